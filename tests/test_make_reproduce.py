"""The documented commands, run as a user runs them: ``make reproduce`` with ARGS and EXPERIMENTS
in the quick profile, the figures step on a partial results root, the sweep's closing hint, and
``make notebook``; in a copy of this checkout (a clone plus the working tree's changes), so the
committed ``results/`` is checked untouched (``git status`` clean apart from ignored paths).

Each test runs one small quick experiment (a few seconds of sweeps; the rest is start-up and the
figures step).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pandas as pd
import pytest
from hydra.core.override_parser.overrides_parser import OverridesParser

ROOT = Path(__file__).resolve().parent.parent
VENV = Path(sys.prefix)  # the environment running the tests: the copy's .venv points into it

pytestmark = pytest.mark.skipif(shutil.which("make") is None or shutil.which("git") is None,
                                reason="needs make and git")


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True).stdout


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    """A clone of this repository's HEAD with the working tree's changes on top (committed
    there, so ``git status`` starts clean) and a ``.venv`` whose entries point into the running
    environment (its own install stamp: make does not reinstall)."""
    dest = tmp_path_factory.mktemp("checkout") / "ppm"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(dest)], check=True)
    changed = _git(ROOT, "ls-files", "-z", "--modified", "--others", "--exclude-standard")
    for rel in filter(None, changed.split("\0")):
        src = ROOT / rel
        if src.is_file() and not src.is_symlink():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
        elif not src.exists():
            (dest / rel).unlink(missing_ok=True)
    for rel in filter(None, _git(ROOT, "ls-files", "-z", "--deleted").split("\0")):
        (dest / rel).unlink(missing_ok=True)
    _git(dest, "add", "-A")
    _git(dest, "-c", "user.name=test", "-c", "user.email=test@example.com", "commit", "-q",
         "--allow-empty", "-m", "working tree")
    venv = dest / ".venv"
    venv.mkdir()
    for entry in VENV.iterdir():
        if entry.name != ".installed-stamp":
            (venv / entry.name).symlink_to(entry)
    (venv / ".installed-stamp").touch()
    return dest


def _env(repo: Path) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "PPM_RESULTS")}
    env["PYTHONPATH"] = str(repo)  # the copy's code, not the installed checkout's
    return env


def _run(repo: Path, *cmd: str, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run(list(cmd), cwd=repo, env=_env(repo), capture_output=True, text=True,
                          timeout=600)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} exited {proc.returncode}\n--- stdout\n"
                             f"{proc.stdout[-4000:]}\n--- stderr\n{proc.stderr[-4000:]}")
    return proc


def _clean(repo: Path) -> None:
    status = _git(repo, "status", "--porcelain")
    assert status == "", f"the run changed tracked or unignored files:\n{status}"


def _root_printed(stdout: str) -> str:
    m = re.search(r"== done: results root (\S+):", stdout)
    assert m, stdout[-2000:]
    return m.group(1)


def test_args_with_equals_commas_and_brackets(checkout):
    args = "learner.epsilon=0.5 analysis.alphas=[0.1,0.2] n=4,16,64 trials=3"
    proc = _run(checkout, "make", "reproduce", "PROFILE=quick",
                "EXPERIMENTS=c1_realizable_d1", f"ARGS={args}")
    root = _root_printed(proc.stdout)
    digest = hashlib.sha256(args.encode()).hexdigest()[:8]
    assert re.fullmatch(r"results/quick/overrides/[A-Za-z0-9_.-]+-" + digest, root)
    # the root is itself a valid Hydra override value, read back unchanged
    (parsed,) = OverridesParser.create().parse_overrides([f"results_root={root}"])
    assert parsed.value() == root
    trials = pd.read_csv(checkout / root / "c1_realizable_d1" / "trials.csv")
    assert set(trials.loc[trials.learner == "ppm", "learner.epsilon"]) == {0.5}
    assert sorted(trials["n"].unique()) == [4, 16, 64] and trials["trial"].nunique() == 3
    nhat = pd.read_csv(checkout / root / "c1_realizable_d1" / "n_hat.csv")
    assert sorted(nhat["alpha"].unique()) == [0.1, 0.2]
    assert (checkout / root / "figures" / "c1_realizable.png").is_file()
    assert "C3: not run in this results root" in proc.stdout
    assert "exact audits (C6, C7) left out" in proc.stdout
    # quiet by default: no Hydra job listing (VERBOSE=1 shows it)
    assert "[HYDRA]" not in proc.stdout + proc.stderr
    _clean(checkout)


def test_one_experiment_with_an_override_in_the_quick_profile(checkout):
    proc = _run(checkout, "make", "reproduce", "PROFILE=quick", "EXPERIMENTS=c5_mixture_weight",
                "ARGS=population.w_pub=0.3")
    root = checkout / _root_printed(proc.stdout)
    trials = pd.read_csv(root / "c5_mixture_weight" / "trials.csv")
    assert set(trials["population.w_pub"]) == {0.3}
    # the override replaces the axis C5 sweeps: said before the sweep runs
    (note,) = [ln for ln in proc.stdout.splitlines() if ln.startswith("note:")]
    assert note.startswith("note: population.w_pub=0.3 fixes an axis swept by C5")
    # the figures step drew what the root holds and named every claim it does not hold
    for claim in ("C1", "C2", "C3", "C4", "C6", "C7", "C15"):
        assert f"{claim}: not run in this results root" in proc.stdout
    assert (root / "figures" / "c5_mixture_weight.png").is_file()
    assert sorted(p.name for p in (root / "figures").iterdir()) == ["c5_mixture_weight.png"]
    # a quick root says on every verdict that it is a smoke run
    summary = (root / "summary.md").read_text()
    assert summary.startswith("**Quick profile: a smoke run")
    table = pd.read_csv(root / "summary.csv").set_index("claim")
    assert table.loc["C5", "verdict"].startswith("smoke run (quick profile): ")
    assert table.loc["C3", "verdict"] == "not run in this results root"
    _clean(checkout)
    # make notebook on that root: one HTML page with the figures inline
    nb = _run(checkout, "make", "notebook", f"RESULTS={root.relative_to(checkout)}")
    html = root / "notebook" / "inspect_results.html"
    assert html.is_file(), nb.stdout
    assert "WARNING" not in nb.stdout + nb.stderr, nb.stderr  # no kernel transport warning
    assert "data:image/png;base64," in html.read_text()
    executed = nbformat.read(html.with_suffix(".ipynb"), as_version=4)
    assert any("image/png" in out.get("data", {}) for cell in executed.cells
               for out in cell.get("outputs", []))
    _clean(checkout)


def test_figures_step_on_a_partial_root_fails_only_without_keep_going(checkout, tmp_path):
    """A claim whose analysis fails on what a root holds is reported, the rest are drawn."""
    root = tmp_path / "root"
    shutil.copytree(ROOT / "results" / "c3_epsilon_d1", root / "c3_epsilon_d1",
                    ignore=shutil.ignore_patterns("summary.*"))
    shutil.copytree(ROOT / "results" / "c8_eta", root / "c8_eta",
                    ignore=shutil.ignore_patterns("summary.*"))
    trials = pd.read_csv(root / "c3_epsilon_d1" / "trials.csv", low_memory=False)
    trials = trials[trials["learner.epsilon"].isna() | (trials["learner.epsilon"] < 1)]
    trials.to_csv(root / "c3_epsilon_d1" / "trials.csv", index=False)  # no epsilon >= 1 left
    py = str(checkout / ".venv" / "bin" / "python")
    cmd = [py, "-m", "scripts.figures", "--results", str(root), "--n-boot", "20"]
    strict = _run(checkout, *cmd, "--only", "C3", "C8", "C1", check=False)
    assert strict.returncode == 1
    assert "C3: cannot be analysed from this results root" in strict.stdout
    assert "C1: not run in this results root" in strict.stdout
    assert (root / "figures" / "c8_relaxations.png").is_file()
    assert not (root / "c3_epsilon" / "summary.csv").exists()
    _run(checkout, *cmd, "--only", "C3", "C8", "--keep-going")


def test_the_sweep_hint_never_overwrites_committed_results(checkout):
    committed = (checkout / "results" / "c8_eta" / "trials.csv").read_bytes()
    sweep = _run(checkout, str(checkout / ".venv" / "bin" / "python"), "-m", "experiments.run",
                 "-m", "experiment=c8_eta_quick", "trials=2", "n_test=2000",
                 "hydra.sweep.dir=outputs/hint", "hydra.launcher.n_jobs=1")
    hint = re.search(r"aggregate with: python -m scripts\.aggregate (\S+) --out (\S+)",
                     sweep.stderr)
    assert hint, sweep.stderr[-2000:]
    assert hint.group(2) == "results/local/c8_eta"
    py = str(checkout / ".venv" / "bin" / "python")
    refused = _run(checkout, py, "-m", "scripts.aggregate", "outputs/hint", "--out",
                   "results/c8_eta", check=False)
    assert refused.returncode == 2 and "--overwrite-committed" in refused.stderr
    refused = _run(checkout, py, "-m", "scripts.aggregate", "outputs/hint", "--out-root",
                   "results", check=False)
    assert refused.returncode == 2
    assert (checkout / "results" / "c8_eta" / "trials.csv").read_bytes() == committed
    _run(checkout, py, "-m", "scripts.aggregate", hint.group(1), "--out", hint.group(2))
    assert (checkout / "results" / "local" / "c8_eta" / "n_hat.csv").is_file()
    _clean(checkout)
    # the explicit flag does overwrite (what make reproduce passes into results/)
    _run(checkout, py, "-m", "scripts.aggregate", "outputs/hint", "--out", "results/c8_eta",
         "--overwrite-committed")
    assert (checkout / "results" / "c8_eta" / "trials.csv").read_bytes() != committed
    _git(checkout, "checkout", "--", "results/c8_eta")
    _clean(checkout)


def _last_lines(stderr: str) -> list[str]:
    """stderr without make's own closing line (``make: *** [...] Error 2``)."""
    return [ln for ln in stderr.splitlines() if ln.strip() and not ln.startswith("make")]


def test_unknown_experiment_names_the_closest_ones(checkout):
    proc = _run(checkout, "make", "reproduce", "PROFILE=quick",
                "EXPERIMENTS=c5_mixture_weigth", check=False)
    assert proc.returncode != 0
    (line,) = [ln for ln in proc.stderr.splitlines() if ln.startswith("error:")]
    # names as they are to be typed: the base name, not the quick profile's config name
    assert "did you mean c5_mixture_weight " in line and len(line) < 300
    assert "_quick" not in line.split("did you mean", 1)[1].split("?", 1)[0]
    assert line.startswith("error: EXPERIMENTS: no experiment 'c5_mixture_weigth'")
    # the error is the log's last line, and make does not report a timeout (xargs's 124)
    assert _last_lines(proc.stderr)[-1] == line
    assert "Error 124" not in proc.stderr and "Error 2" in proc.stderr


def test_a_sweep_that_cannot_take_an_override_is_left_out_with_one_line(checkout):
    proc = _run(checkout, "make", "reproduce", "PROFILE=quick", "VERBOSE=1",
                "EXPERIMENTS=c16_greedy c8_eta", "ARGS=learner.epsilon=0.5 trials=2 n_test=2000")
    assert ("c16_greedy_quick: its learner GreedyTriangleCover has no epsilon "
            "(learner.epsilon=0.5); left out") in proc.stdout.splitlines()
    assert not any(ln.startswith("== sweep") and "c16_greedy_quick" in ln
                   for ln in proc.stdout.splitlines())
    root = checkout / _root_printed(proc.stdout)
    trials = pd.read_csv(root / "c8_eta" / "trials.csv")
    assert set(trials.loc[trials.learner == "ppm", "learner.epsilon"]) == {0.5}
    assert not (root / "c16_greedy").exists()
    assert "[HYDRA] \t#0 : " in proc.stdout + proc.stderr  # VERBOSE=1: Hydra's job listing
    _clean(checkout)


def test_an_override_no_sweep_can_take_fails_in_one_line_before_any_work(checkout):
    proc = _run(checkout, "make", "reproduce", "PROFILE=quick",
                "EXPERIMENTS=c8_eta c5_mixture_weight", "ARGS=learner.epsilonn=1", check=False)
    assert proc.returncode == 2 and "Error 124" not in proc.stderr
    last = _last_lines(proc.stderr)
    assert last[-1].startswith("error: learner.epsilonn=1: no selected sweep can take it")
    assert "did you mean learner.epsilon?" in last[-1]
    assert "== sweep" not in proc.stdout and "left out" not in proc.stdout  # that line only
    assert not list(checkout.glob("results/quick/overrides/learner.epsilonn*"))


def test_a_sweep_config_without_multirun_says_so(checkout, tmp_path):
    proc = _run(checkout, str(checkout / ".venv" / "bin" / "python"), "-m", "experiments.run",
                "experiment=c8_eta_quick", "trials=1", "n_test=500", "n=8",
                f"results_root={tmp_path}", f"hydra.run.dir={tmp_path}/run")
    notes = [ln for ln in proc.stderr.splitlines() if ln.startswith("note:")]
    assert len(notes) == 1 and "--multirun/-m" in notes[0] and "one cell" in notes[0]


# -- every line the default run prints fits 100 columns ----------------------------------------
LONG = "c2_hard_family_fine_alpha00125_quick"  # the longest sweep name, with its suffix


def test_the_run_s_own_lines_fit_100_columns_with_long_names():
    from claims.reporting.terminal import fit_line
    from experiments import stamps
    from experiments.sweep_runner import progress_line

    root = "/a/results/root/whose/path/is/long/" + "x" * 60
    lines = [fit_line(progress_line(44, 45, LONG, 43, 3600 * 9.5)),
             stamps.skip_line("C4's price table (" + "n" * 80 + ".csv)"),
             fit_line(f"[{LONG}] cell 117/120 done (n=262144 population.alpha=0.00125 "
                      f"learner.epsilon=1 population.margin=0.1) | elapsed 1:02:03, "
                      f"ETA 0:00:31"),
             fit_line(f"restore_cache: {LONG}: restored 123456 trials from "
                      f"{root}/{LONG}/trials.csv (0 already in {root}/cache)"),
             fit_line("C6: " + "a measured value; " * 30 + "-> holds")]
    for text in lines:
        assert all(len(line) <= 100 for line in text.splitlines()), text
    cell = lines[2]
    assert "\n" not in cell and cell.endswith("| elapsed 1:02:03, ETA 0:00:31") and "…" in cell
    assert fit_line("short line\n") == "short line"  # short lines as they are
    # wrapped, not cut: every word is still there
    whole = (f"restore_cache: {LONG}: restored 123456 trials from {root}/{LONG}/trials.csv "
             f"(0 already in {root}/cache)")
    assert "".join(lines[3].split()) == "".join(whole.split())
    assert "".join(lines[0].split()) == "".join(
        progress_line(44, 45, LONG, 43, 3600 * 9.5).split())


def test_the_sweeps_relay_their_output_through_the_formatter():
    """A sweep's output is relayed through the runner's formatter (the script's fit_line), one
    line at a time; Hydra's listing and the sweep's own error line are not relayed."""
    import io
    import types

    from claims.reporting.terminal import fit_line
    from experiments.sweep_runner import Runner

    args = types.SimpleNamespace(verbose=False)
    runner = Runner(args, fit=fit_line)
    sweep = types.SimpleNamespace(tail=[])
    long = (f"[{LONG}] all 120 cells complete in the trial cache: their trials.csv written from "
            f"it, no sweep launched\n")
    text = long + "[2026-11-28 10:00:00,123][HYDRA] \t#0 : n=8\nerror: bad\nshort\n"
    out = io.StringIO()
    runner.relay(sweep, io.StringIO(text), out)
    lines = out.getvalue().splitlines()
    assert len(lines) >= 3 and all(len(line) <= 100 for line in lines)
    assert "".join("".join(lines[:-1]).split()) == "".join(long.split())
    assert lines[-1] == "short" and len(sweep.tail) == 4
