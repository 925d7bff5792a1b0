"""C10's counted row: the semi-private learner that also scores the public labels
(``semi_private_all``, not built to fail on the mixture) against PPM across the shift.

The rule (parity at shift 0 as the precondition, then the shift-1 paired difference against the
margin ``TOL``) on synthetic trials with a known gap and on synthetic intervals; the row's
provenance (statistic, trials) on synthetic and committed results; bad input.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from claims import c10_homogeneity as c10
from claims.rules.accounting import row_kind
from claims.base import ResultStore, parse_trial_set
from claims.rules.verdicts import counted

ROOT = Path(__file__).resolve().parents[1]
TOL = c10.TOL


def _trials(gap0: float, gap1: float, trials: int = 40, with_variant=True) -> pd.DataFrame:
    """Paired trials at shift 0 (eta 0.5) and shift 1 (eta 0): the variant's error is PPM's
    plus ``gap`` plus noise, so the true paired difference is the gap."""
    rng = np.random.default_rng(1)
    frames = []
    for eta, gap in ((0.5, gap0), (0.0, gap1)):
        for n in (64, 256):
            for trial in range(trials):
                e = rng.uniform(0.03, 0.06)
                errs = [("ppm", e), ("semi_private", e + 0.2)]
                if with_variant:
                    errs.append(("semi_private_all", e + gap + rng.normal(0, 0.005)))
                frames += [dict(n=n, trial=trial, learner=lrn, error=err, n_test=50000,
                                **{"population.eta": eta, "population.d": 2})
                           for lrn, err in errs]
    return pd.DataFrame(frames).assign(shift=lambda t: 1 - 2 * t["population.eta"])


@pytest.mark.parametrize("gap0, gap1, word", [
    (0.0, 0.10, "holds"),            # fails on the mixture, parity when homogeneous
    (0.0, 0.0, "does not hold"),     # parity at both ends: no failure
    (0.0, -0.02, "does not hold"),   # beats PPM on the mixture
    (0.0, TOL, "inconclusive"),      # at the margin: the interval straddles it
    (0.08, 0.10, "inconclusive"),    # no parity when homogeneous: precondition not met
])
def test_the_rule_on_synthetic_trials(gap0, gap1, word):
    row = c10.fair_row(_trials(gap0, gap1))
    # the rule's word, shown as a finding: never counted (module docstring, "What counts")
    assert row.verdict.startswith(c10.FINDING + ": " + word)
    assert not counted(row.verdict) and row_kind(row.verdict, row.extra) == "reference"


def test_beating_ppm_is_said_plainly():
    row = c10.fair_row(_trials(0.0, -0.02))
    assert "beats PPM" in row.verdict and "below 0" in row.verdict


def test_the_difference_is_reported_at_every_shift_and_size():
    row = c10.fair_row(_trials(0.0, 0.05))
    assert "shift 0:" in row.measured and "shift 1:" in row.measured
    assert "at n=64, shift 1:" in row.measured


def test_provenance_reads_both_cells_at_the_largest_n():
    row = c10.fair_row(_trials(0.0, 0.0), "c10_homogeneity")
    assert row.statistic == c10.STATISTIC == "paired_error_difference"
    parts = parse_trial_set(row.trials)
    assert [e for e, _ in parts] == ["c10_homogeneity", "c10_homogeneity"]
    assert sorted(sel["shift"] for _, sel in parts) == ["0", "1"]
    assert {sel["n"] for _, sel in parts} == {"256"}


def test_no_variant_no_row():
    assert c10.fair_row(_trials(0.0, 0.0, with_variant=False)) is None


@pytest.mark.parametrize("d0, d1, word", [
    ((0.0, -0.01, 0.01), (0.05, 0.03, 0.07), "holds"),
    ((0.0, -0.01, 0.01), (0.01, 0.0, TOL), "does not hold"),  # upper end at the margin
    ((0.0, -0.01, 0.01), (0.02, 0.01, 0.03), "inconclusive"),
    ((0.0, -0.01, TOL + 1e-6), (0.05, 0.03, 0.07), "inconclusive (precondition"),
    ((0.0, float("nan"), float("nan")), (0.05, 0.03, 0.07), "inconclusive (no interval"),
])
def test_the_rule_on_synthetic_intervals(d0, d1, word):
    assert c10.fair_verdict(d0, d1).startswith(word)


def test_bad_input():
    with pytest.raises(ValueError, match="tol"):
        c10.fair_verdict((0, -1, 1), (0, -1, 1), tol=0)
    with pytest.raises(ValueError, match="tol"):
        c10.fair_verdict((0, -1, 1), (0, -1, 1), tol="0.02")


def test_the_committed_finding_row():
    store = ResultStore(ROOT / "results", n_boot=20)
    if store.load("c10_homogeneity") is None:
        pytest.skip("no committed c10_homogeneity results")
    rows = c10.analyse(store)
    fair = [r for r in rows if r.extra.endswith("fair baseline")]
    assert len(fair) == 1
    assert [r for r in rows if counted(r.verdict)] == []  # checks and one finding
    assert fair[0].trials == "c10_homogeneity[n=256,shift=0];c10_homogeneity[n=256,shift=1]"
