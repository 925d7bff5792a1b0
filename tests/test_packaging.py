"""The two pinned environments agree, and the pins satisfy pyproject's ranges."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent


def _lock() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            pins[canonicalize_name(name)] = version
    return pins


def _environment_yml() -> dict[str, str]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pins = {}
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            for item in dep["pip"]:
                if "==" in item:
                    name, version = item.split("==")
                    pins[canonicalize_name(name)] = version
        elif "=" in dep and not dep.startswith("python="):
            name, version = dep.split("=")
            pins[canonicalize_name(name)] = version
    return pins


def test_environment_yml_matches_lock():
    assert _environment_yml() == _lock()


def test_lock_satisfies_pyproject_ranges():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = [Requirement(r) for r in project["dependencies"]]
    reqs += [Requirement(r) for r in project["optional-dependencies"]["test"]]
    lock = _lock()
    for req in reqs:
        name = canonicalize_name(req.name)
        assert name in lock, f"{req.name} is in pyproject.toml but not pinned"
        assert req.specifier.contains(lock[name]), f"{req.name}=={lock[name]} violates {req}"


def test_environment_python_matches_lock_python():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    assert "python=3.11" in env["dependencies"]
    assert re.search(r"requires-python = \">=3\.1\d\"", (ROOT / "pyproject.toml").read_text())
