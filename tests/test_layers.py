"""The import graph: one direction between layers, no circles, no borrowed private names.

Layers, lowest first: ``ppm`` (the library) <- ``experiments`` <- ``analysis`` <- ``claims`` <-
``scripts`` (command-line entry points, which nothing imports: not the tests either, which run
them as a user does). Read from the source with ``ast``, so a lazy import inside a function
counts as much as one at the top.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = {"ppm": 0, "hydra_plugins": 1, "experiments": 1, "analysis": 2, "claims": 3,
          "scripts": 4}


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    out = {}
    for top in LAYERS:
        for path in sorted((ROOT / top).rglob("*.py")):
            out[_module_name(path)] = path
    return out


MODULES = _modules()


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _imports(name: str) -> list[tuple[str, str | None]]:
    """``(module, imported name or None)`` for every first-party import of module ``name``."""
    path = MODULES[name]
    package = name if _is_package(name) else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out += [(a.name, None) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module
            for alias in node.names:
                sub = f"{mod}.{alias.name}"
                # `from pkg import submodule` depends on the submodule, not on pkg's __init__
                out.append((sub, None) if sub in MODULES else (mod, alias.name))
    return [(m, n) for m, n in out if m.split(".")[0] in LAYERS]


def _graph() -> dict[str, set[str]]:
    return {name: {m for m, _ in _imports(name) if m in MODULES and m != name}
            for name in MODULES}


def test_the_scan_sees_the_packages():
    assert {"ppm.core.learner", "experiments.seeding", "analysis.aggregate",
            "claims.registry", "scripts.figures"} <= set(MODULES)
    assert "ppm.core.halfspaces" in _graph()["ppm.core.learner"]


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_go_down_the_layers(name):
    own = LAYERS[name.split(".")[0]]
    up = [m for m, _ in _imports(name)
          if LAYERS[m.split(".")[0]] > own or (m.split(".")[0] == "scripts"
                                                and name.split(".")[0] != "scripts")]
    assert not up, f"{name} imports from a higher layer: {up}"


def test_nothing_imports_scripts():
    """Entry points only: not even another script imports one."""
    users = {name for name in MODULES for m, _ in _imports(name)
             if m.split(".")[0] == "scripts" and m != "scripts"}
    assert not users


NOT_SCRIPTS = ("tests", "ppm", "experiments", "analysis", "claims", "hydra_plugins")


def _script_imports(source: str) -> list[str]:
    """The ``scripts`` modules a source imports, lazily or not: ``import scripts.x``, ``from
    scripts import x``, ``from scripts.x import y``, ``importlib.import_module("scripts.x")``
    and ``__import__("scripts.x")``. Running one (``python -m scripts.x`` in a subprocess) is
    not importing it."""
    def is_script(name) -> bool:
        return isinstance(name, str) and (name == "scripts" or name.startswith("scripts."))

    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names if is_script(a.name)]
        elif isinstance(node, ast.ImportFrom) and not node.level and is_script(node.module):
            out += [f"{node.module}.{a.name}" for a in node.names]
        elif (isinstance(node, ast.Call) and node.args
              and isinstance(node.args[0], ast.Constant) and is_script(node.args[0].value)
              and ((isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                   or (isinstance(node.func, ast.Name) and node.func.id == "__import__"))):
            out.append(node.args[0].value)
    return out


def test_the_scripts_scan_finds_every_kind_of_import():
    source = ("import os\nimport scripts.figures\ndef f():\n    from scripts import summary\n"
              "    import importlib\n    importlib.import_module('scripts.coverage')\n"
              "    __import__('scripts.bench')\n"
              "    subprocess.run([sys.executable, '-m', 'scripts.reproduce'])\n")
    assert _script_imports(source) == ["scripts.figures", "scripts.summary", "scripts.coverage",
                                       "scripts.bench"]


def test_no_test_or_library_module_imports_scripts():
    """scripts/ holds entry points only: the library, the pipeline, the claims and the tests
    import none (a test runs a command line as a user does: ``python -m scripts.x``)."""
    offenders = {}
    for top in NOT_SCRIPTS:
        for path in sorted((ROOT / top).rglob("*.py")):
            found = _script_imports(path.read_text())
            if found:
                offenders[str(path.relative_to(ROOT))] = found
    assert not offenders, f"modules importing scripts: {offenders}"


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_no_import_circles():
    assert _cycles(_graph()) == []


def test_the_cycle_finder_finds_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_private_names_of_other_modules(name):
    """``from x import _y`` only where ``_y`` is a private submodule of the importer's own
    package (e.g. ``ppm.core`` importing its numba kernels)."""
    package = name if _is_package(name) else name.rpartition(".")[0]
    bad = [f"{m}.{n}" for m, n in _imports(name) if n and n.startswith("_")]
    # a private module (any `_part` of the path) only from inside the package that holds it
    bad += [m for m, _ in _imports(name)
            if any(part.startswith("_") and not f"{package}.".startswith(
                       ".".join(m.split(".")[:i]) + ".")
                   for i, part in enumerate(m.split(".")) if i)]
    assert not bad, f"{name} imports private names of other modules: {bad}"
