"""``make help`` lists every target of the Makefile and every variable it reads, one line each,
and the pipeline's targets are thin calls of ``scripts/reproduce.py`` (its logic lives there),
run here as make runs it (``python -m scripts.reproduce ...``: its start is a tenth of a second
until a target reads the claims' registry)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAKEFILE = (ROOT / "Makefile").read_text()
VARIABLES = ("PROFILE", "N_JOBS", "ARGS", "EXPERIMENTS", "CLAIMS", "RECOMPUTE", "RESULTS",
             "OUTPUTS", "LAUNCHER", "VERBOSE", "GPU", "TEST_WORKERS", "N_BOOT",
             "AUDIT_INSTANCES", "PYTHON", "VENV")

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")


def _driver(*args: str, rc: int = 0) -> subprocess.CompletedProcess:
    """``python -m scripts.reproduce <args>`` (no ``PPM_ARGS`` from the caller), exit ``rc``."""
    env = {k: v for k, v in os.environ.items() if k != "PPM_ARGS"}
    proc = subprocess.run([sys.executable, "-m", "scripts.reproduce", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == rc, proc.stderr
    return proc


def _help() -> list[str]:
    out = subprocess.run(["make", "--no-print-directory", "help"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    return out.splitlines()


def _targets() -> set[str]:
    """Every rule the Makefile defines by name (not the stamp files, not variable lines)."""
    return {m.group(1) for m in re.finditer(r"^([a-z][a-z0-9-]*)\s*:(?!=)", MAKEFILE, re.M)}


def test_help_lists_every_target_once():
    targets = _targets()
    assert {"install", "test", "test-fast", "test-slurm", "reproduce", "audit", "c4-inputs",
            "figures", "notebook", "bench", "coverage", "clean-cache", "clean",
            "help"} <= targets
    listed = [ln.split()[0] for ln in _help() if ln.startswith("  ") and ln.split()[0].islower()]
    assert sorted(listed) == sorted(targets)
    phony = re.search(r"^\.PHONY:((?:.*\\\n)*.*)$", MAKEFILE, re.M).group(1)
    assert set(phony.replace("\\", " ").split()) == targets


def test_help_lists_every_variable_with_its_default():
    lines = [ln.strip() for ln in _help()]
    listed = {ln.split("=", 1)[0]: ln for ln in lines if re.match(r"[A-Z_]+=", ln)}
    assert set(VARIABLES) <= set(listed)
    # each with a description, and the default the Makefile assigns
    for name, line in listed.items():
        default = re.search(rf"^{name} \?= ?(.*)$", MAKEFILE, re.M)
        shown = line.split("=", 1)[1].split(None, 1)
        assert len(shown) == 2 or (default is None and len(line.split()) > 1), line
        if default:
            assert line.startswith(f"{name}={default.group(1)} "), line
    # and every variable with a default in the Makefile is listed
    for name in re.findall(r"^([A-Z_]+) \?=", MAKEFILE, re.M):
        assert name in listed, name


def test_the_makefile_stays_thin():
    assert len(MAKEFILE.splitlines()) <= 80
    usage = _driver("--help").stdout  # the driver's targets: {reproduce,audit,...}
    targets = set(re.search(r"\{([a-z0-9,-]+)\}", usage).group(1).split(","))
    for target in ("reproduce", "audit", "c4-inputs", "figures", "notebook", "bench",
                   "coverage", "clean-cache"):
        assert target in targets


@pytest.mark.parametrize("args, root", [
    ("", "results/quick"),
    ("learner.epsilon=0.5 analysis.alphas=[0.1,0.2] n=4,16,64 trials=3",
     "results/quick/overrides/learner.epsilon_0.5_analysis.alphas_0.1-"),
    ("'population.w_pub=0.3'", "results/quick/overrides/population.w_pub_0.3-"),
    ("$%^", "results/quick/overrides/args-"),
])
def test_results_root_of_args_is_the_documented_slug_and_hash(args, root):
    """The overrides root: ARGS with bytes outside [A-Za-z0-9_.-] as _, at most 40 characters,
    then the first 8 hex digits of its SHA-256 (a shell pipeline in the Makefile before)."""
    results = _driver("results", "--profile", "quick", "--args", args).stdout.rstrip("\n")
    assert results.startswith(root) and "\n" not in results
    if args:
        import hashlib
        assert results.endswith("-" + hashlib.sha256(args.encode()).hexdigest()[:8])
        shell = subprocess.run(
            ["bash", "-c", "printf '%s' \"$1\" | LC_ALL=C tr -c 'A-Za-z0-9_.-' '_' | tr -s '_' "
             "| cut -c1-40 | sed 's/^[_.-]*//; s/[_.-]*$//'", "_", args],
            capture_output=True, text=True, check=True).stdout.rstrip("\n")
        assert results.rsplit("/", 1)[1].rsplit("-", 1)[0] == (shell or "args")


def test_dry_run_prints_every_step_of_a_claims_run():
    out = _driver("reproduce", "--profile", "quick", "--claims", "C4", "--dry-run"
                  ).stdout.splitlines()
    steps = [ln.split(" -m ", 1)[1].split()[0] for ln in out if " -m " in ln]
    # C4's inputs: the class-size table, the fixed design's price and the nested k_eff table
    assert steps == ["claims.registry", "scripts.run_sweeps", "scripts.log_class_size",
                     "scripts.mechanism_price", "scripts.mechanism_price", "scripts.figures",
                     "scripts.summary"]
    assert any("exact audits (C6, C7) left out" in ln for ln in out)
    assert out[-1].startswith('echo "== quick profile: a smoke run')


@pytest.mark.parametrize("flag, value, name", [("--n-jobs", "0", "N_JOBS"),
                                               ("--profile", "bogus", "PROFILE"),
                                               ("--launcher", "pbs", "LAUNCHER")])
def test_the_driver_refuses_a_bad_value_in_one_line(flag, value, name, tmp_path):
    """Called directly (not through make, which stops first), the driver names the variable."""
    err = _driver("figures", flag, value, "--results", str(tmp_path / "r"), rc=2).stderr.strip()
    assert err.startswith(f"{name} must be") and f"'{value}'" in err and "\n" not in err
    assert not (tmp_path / "r").exists()


def test_reproduce_keeps_committed_non_sweep_tables_unless_recompute(tmp_path):
    """In the default profile the committed privacy audits and C4's price tables are kept (as
    the long sweeps' trials are restored); RECOMPUTE=1 and the quick profile recompute them."""
    root = tmp_path / "root"
    (root / "privacy_audits").mkdir(parents=True)
    (root / "privacy_audits" / "audit.csv").write_text("learner\n")

    def steps(*extra):
        return _driver("reproduce", "--results", str(root), "--dry-run", *extra).stdout

    kept = steps()
    assert "scripts.privacy_audits" not in kept and "== kept as committed" in kept
    assert "scripts.exact_audits" in kept  # seconds: always rerun
    assert "scripts.mechanism_price" in kept  # C4's tables are not in this root: computed
    assert "scripts.privacy_audits" in steps("--recompute")
    assert "scripts.privacy_audits" in steps("--profile", "quick")
