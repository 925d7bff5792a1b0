"""Verdict rules of the claims and the verdict table (each case can fail)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from claims.report import verdict_table
from claims.verdicts import combined_verdict, mean_ci, paired_difference, upper_bound_verdict


def _fit(slope, lo, hi, n=5):
    return {"slope": slope, "lo": lo, "hi": hi, "n_points": n}


@pytest.mark.parametrize("fit,below,expected", [
    (_fit(2.0, 1.8, 2.2), True, "holds"),
    (_fit(1.0, 0.8, 1.2), True, "holds with caveat: faster than the worst-case rate"),
    (_fit(1.0, 0.8, 1.2), False, "does not hold"),
    (_fit(3.0, 2.8, 3.2), True, "does not hold"),
    (_fit(2.0, 1.8, 2.2), False, "holds (but n_hat exceeds the explicit bound)"),
    (_fit(2.0, 0.0, 4.0), True, "inconclusive (too few points or interval too wide)"),
])
def test_upper_bound_verdict(fit, below, expected):
    assert upper_bound_verdict(fit, 2.0, 2.3, below) == expected


def test_mean_ci_covers_the_mean_at_the_nominal_rate():
    rng = np.random.default_rng(0)
    hits = 0
    for _ in range(400):
        m, lo, hi = mean_ci(rng.normal(1.0, 2.0, size=50))
        hits += lo <= 1.0 <= hi
    assert 0.91 <= hits / 400 <= 0.98
    assert all(math.isnan(v) for v in mean_ci([]))


def test_paired_difference_pairs_on_trial():
    df = pd.DataFrame({
        "learner": ["a"] * 3 + ["b"] * 3,
        "n": [10] * 6,
        "trial": [0, 1, 2, 2, 1, 0],          # b's rows in another order
        "error": [0.3, 0.4, 0.5, 0.1, 0.2, 0.3],
    })
    m, lo, hi = paired_difference(df, "a", "b", ["n"])
    # pairs: (0.3-0.3, 0.4-0.2, 0.5-0.1) = (0, 0.2, 0.4)
    assert m == pytest.approx(0.2)
    assert lo < 0.2 < hi


@pytest.mark.parametrize("verdicts,expected", [
    (["holds", "holds"], "holds"),
    (["holds", "holds with caveat", "reference (non-private)"], "holds with caveat"),
    (["holds", "does not hold", "inconclusive (x)"],
     "mixed: 1 of 2 conclusive settings hold (1 of 3 settings inconclusive)"),
    (["holds", "inconclusive (x)"], "holds (1 of 2 settings inconclusive)"),
    (["inconclusive (x)", "not measured"], "inconclusive"),
    (["reference (non-private)"], "not run"),
])
def test_combined_verdict(verdicts, expected):
    assert combined_verdict(verdicts) == expected


def test_verdict_table_has_one_row_per_claim_and_marks_missing_ones():
    details = pd.DataFrame([
        dict(claim="C5", setting="d=1, alpha=0.01", measured="slope 0.1", theory="0",
             looseness=10.0, verdict="holds", figure="c5_mixture_weight", alpha=0.01),
        dict(claim="C5", setting="d=1, alpha=0.02", measured="slope 0.0", theory="0",
             looseness=30.0, verdict="does not hold", figure="c5_mixture_weight", alpha=0.02),
    ])
    table = verdict_table(details).set_index("claim")
    assert list(table.index[:10]) == [f"C{i}" for i in range(1, 11)]
    assert table.loc["C5", "measured"] == "slope 0.0"        # the headline setting (alpha=0.02)
    assert table.loc["C5", "verdict"] == "mixed: 1 of 2 conclusive settings hold"
    assert table.loc["C5", "looseness"] == pytest.approx(20.0)
    assert table.loc["C1", "verdict"] == "not run"
