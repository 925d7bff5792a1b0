"""Choosing what to run: claim ids in EXPERIMENTS / CLAIMS, suggestions as they are typed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from claims import registry

ROOT = Path(__file__).resolve().parents[1]


def test_claim_ids_expand_to_their_experiments():
    names, notes = registry.resolve(["C5"], "_quick")
    assert names == ["c5_mixture_weight"]  # c5_mixture_weight_d2 is long: not in quick
    assert "c5_mixture_weight_d2" in notes[0] and "long" in notes[0]
    assert registry.resolve(["c5"], "")[0] == ["c5_mixture_weight", "c5_mixture_weight_d2"]
    assert registry.resolve(["c3_epsilon"], "")[0] == ["c3_epsilon_d1", "c3_epsilon_d2"]


def test_experiment_names_with_or_without_the_suffix():
    assert registry.resolve(["c9_domain", "c1_realizable_d1_quick"], "_quick")[0] == \
        ["c9_domain", "c1_realizable_d1"]


@pytest.mark.parametrize("typed, suggested", [
    ("c5_mixture", "c5_mixture_weight"),
    ("c5_mixture_weight_quick_quick", "c5_mixture_weight"),
    ("C55", "C5"),
])
def test_unknown_names_suggest_what_to_type(typed, suggested):
    with pytest.raises(ValueError) as err:
        registry.resolve([typed], "_quick")
    msg = str(err.value)
    assert "\n" not in msg and repr(typed) in msg and f"did you mean {suggested}" in msg
    assert "_quick" not in msg.split("did you mean", 1)[1].split("?")[0]


def test_run_sweeps_refuses_in_one_line_before_any_work(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "scripts.run_sweeps", "--results", str(tmp_path),
                           "--suffix", "_quick", "--outputs", str(tmp_path / "out"),
                           "c5_mixture"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    err = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(err) == 1, proc.stderr
    assert err[0].startswith("error: EXPERIMENTS: no experiment")
    assert not (tmp_path / "cache").exists() and not (tmp_path / "out").exists()


def _make_n(*args):
    return subprocess.run(["make", "-n", "-o", ".venv/.installed-stamp", "reproduce", *args],
                          cwd=ROOT, capture_output=True, text=True, check=True).stdout


def test_make_claims_selects_sweeps_and_figures():
    out = _make_n("PROFILE=quick", "CLAIMS=C5")
    sweeps = next(line for line in out.splitlines() if "scripts.run_sweeps" in line)
    assert sweeps.rstrip("; \\").endswith(" c5_mixture_weight")
    assert "scripts.figures" in out and "--only C5" in out
    assert "claims.registry --check C5" in out


def test_unknown_claim_is_one_line(capsys):
    with pytest.raises(SystemExit) as exit_:
        registry.main(["--check", "C5", "C77"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'C77'" in err[0]


def test_progress_line_counts_sweeps_and_estimates_the_rest():
    from experiments.sweep_runner import progress_line
    assert progress_line(1, 42, "c1_realizable_d1", 0, 3.0) == "== sweep 1 of 42: c1_realizable_d1"
    line = progress_line(12, 42, "c5_mixture_weight", 11, 11 * 60.0)
    assert line.startswith("== sweep 12 of 42: c5_mixture_weight (run: 11 done in 11:00;")
    assert "about 31:00 left" in line  # 31 sweeps to go at one minute each
    assert "1:02:00 left" in progress_line(2, 63, "x", 1, 60.0)
