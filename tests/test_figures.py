"""Intervals and the verdict table (each case can fail); the slope and combined verdict rules
are in tests/test_verdicts.py."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from claims.report import verdict_table
from claims.verdicts import mean_ci, paired_difference


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


def test_verdict_table_has_one_row_per_claim_and_marks_missing_ones():
    details = pd.DataFrame([
        dict(claim="C5", setting="d=1, alpha=0.01", measured="slope 0.1", theory="0",
             looseness=10.0, verdict="holds", figure="c5_mixture_weight", alpha=0.01, d=2),
        dict(claim="C5", setting="d=2, alpha=0.1", measured="slope 0.0", theory="0",
             looseness=30.0, verdict="does not hold", figure="c5_mixture_weight", alpha=0.1, d=2),
    ])
    table = verdict_table(details).set_index("claim")
    assert list(table.index[:10]) == [f"C{i}" for i in range(1, 11)]
    assert table.loc["C5", "measured"] == "slope 0.0"        # C5's headline setting (d=2, alpha=0.1)
    assert table.loc["C5", "verdict"] == "mixed: holds in 1 of 2 settings, does not hold in 1"
    assert table.loc["C5", "looseness"] == pytest.approx(20.0)
    assert table.loc["C1", "verdict"] == "not run in this results root"
