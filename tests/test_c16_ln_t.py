"""C16's d n_hat / d ln T row: a check against the exponential mechanism's ln T coefficient (a
band the measurement cannot miss is not evidence), loud when it fails (synthetic learners whose
n_hat grows with ln T at a known rate), and the committed results count one theory-banded slope
row per experiment."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.aggregate import ERROR_COL
from analysis.slopes import linear_in_log_x, sample_complexity_slope_against
from claims.c16 import ln_t as c16_ln_t, union_polygons as c16
from claims.rules.accounting import failed, vacuous_edge
from claims.base import ResultStore
from claims.rules.verdicts import counted

ROOT = Path(__file__).resolve().parents[1]
TS = (2.0 ** 6, 2.0 ** 9, 2.0 ** 12, 2.0 ** 16, 2.0 ** 20)
NS = np.unique(np.geomspace(200, 60000, 60).astype(int))


def _trials(per_ln, n0=2000.0, trials=60, spread=0.05, seed=0):
    """Trials of a learner whose trial-t success threshold is (n0 + per_ln ln T) e^{spread z_t}:
    error 0 from the threshold on, 0.5 below it."""
    rng = np.random.default_rng(seed)
    rows = []
    for T in TS:
        thr = (n0 + per_ln * math.log(T)) * np.exp(spread * rng.standard_normal(trials))
        for n in NS:
            for t in range(trials):
                rows.append((T, n, t, 0.0 if n >= thr[t] else 0.5))
    df = pd.DataFrame(rows, columns=[c16.T, "n", "trial", "error"])
    return df.assign(**{ERROR_COL: df["error"]})


def _verdict(per_ln, coef, **kw):
    """The fit and the verdict (a check: no margin from the data)."""
    fit = sample_complexity_slope_against(_trials(per_ln, **kw), c16.T, 0.1, 0.1,
                                          error_col=ERROR_COL, n_boot=80,
                                          slope_fn=linear_in_log_x)
    return fit, c16_ln_t.ln_t_verdict(fit, coef)


def test_coefficient_is_the_explicit_bounds_growth_per_ln_t():
    # Theorem 5.1's explicit bound grows in T only through the mechanism's loss: its increment
    # per unit ln T is the coefficient (a second route: the bound's own lambda)
    for alpha, eh in ((0.01, 0.5), (0.1, 0.0143)):
        b1, b2 = (c16.theorem_bound(t, alpha, 0.1, 0.9, 1e-6, eh) for t in (2.0 ** 6, 2.0 ** 20))
        assert c16_ln_t.mechanism_ln_t_coefficient(2, alpha, eh) == pytest.approx(
            (b2 - b1) / (14 * math.log(2)), rel=1e-9)
    assert c16_ln_t.mechanism_ln_t_coefficient(2, 0.01, 0.5) == pytest.approx(88419.4, rel=1e-5)


def test_ln_t_row_is_a_check_below_the_mechanisms_coefficient():
    # C far above the measurement: a band it cannot miss is a check, not evidence
    fit, v = _verdict(300.0, coef=50000.0)
    assert fit["slope"] == pytest.approx(300.0, rel=0.15)
    assert v.startswith("check (") and v.endswith("passed") and not counted(v)
    assert vacuous_edge(fit["slope"], (1.0, 50000.0), (0.0, 0.0))


def test_ln_t_check_fails_loudly_above_the_mechanisms_coefficient():
    # a learner paying far more per ln T than the exponential mechanism explains
    _, v = _verdict(3000.0, coef=500.0)
    assert v.startswith("check: FAILED") and failed(v)


def test_ln_t_check_reads_no_margin_from_the_data():
    # the verdict does not depend on the learner's n_hat level (the old margin did)
    _, a = _verdict(300.0, coef=50000.0, n0=2000.0)
    _, b = _verdict(300.0, coef=50000.0, n0=20000.0)
    assert a.split(":")[0].split("measured")[0] == b.split(":")[0].split("measured")[0]
    assert c16_ln_t.ln_t_verdict({"slope": math.nan, "lo": 0.0, "hi": 2.0}, 10.0) == \
        "check: not measured"


def test_interval_is_never_narrower_than_the_grid():
    # every trial alike: no sampling spread at all, yet the interval keeps the grid's bracket
    from analysis.dose_response import use_reading
    with use_reading("grid"):
        fit, _ = _verdict(300.0, coef=5000.0, spread=0.0)
    r_lo, r_hi = fit["resolution"]
    assert fit["lo"] <= r_lo < r_hi <= fit["hi"]
    assert fit["hi"] - fit["lo"] > 0
    # the fitted reading: step curves are separated, each replicate draws in the bracket
    fit, _ = _verdict(300.0, coef=5000.0, spread=0.0)
    assert fit["hi"] - fit["lo"] > 0


def test_counted_alpha_prefers_uncensored_then_smaller():
    assert c16_ln_t.counted_alpha({0.01: {"n_points": 4}, 0.1: {"n_points": 5}}) == 0.1
    assert c16_ln_t.counted_alpha({0.01: {"n_points": 5}, 0.1: {"n_points": 5}}) == 0.01


def test_committed_results_count_one_ln_t_row_per_experiment():
    rows = c16.CLAIM.analyse(ResultStore(ROOT / "results", n_boot=20))
    ln_rows = [r for r in rows if r.extra.endswith("d n_hat / d ln T")]
    # a band it cannot miss: the d n_hat / d ln T rows are checks, not evidence
    assert len(ln_rows) == 2 and not any(counted(r.verdict) for r in ln_rows)
    assert all(r.verdict.startswith("check") for r in ln_rows)
    assert all(r.measured.startswith("d n_hat / d ln T = ") for r in ln_rows)
    # one log b slope per experiment counts (theory bands); the other alpha is a breakdown
    logb = [r for r in rows if r.measured.startswith("slope of log n_hat vs log b")
            and r.extra.startswith(c16.MAIN)]
    assert len(logb) == 4 and sum(counted(r.verdict) for r in logb) == 2
    assert all(r.verdict.startswith("breakdown") for r in logb if not counted(r.verdict))
    assert all("T-free 0" in r.theory for r in logb)


def test_target_triple_measure_by_the_samplers_chain_rule():
    """At a vanishing epsilon the selection's own chain rule (bit-packed kernels, log-sum-exp)
    draws a cell triple with its base measure: summed over the triples whose triangle holds
    exactly triangle A's positives, it must give target_triple_measure."""
    from ppm.set_cover.unions import TriangleComplementSelector
    T_ = 64
    pop = c16.GridTriangles(T=T_, w_pub=0.5, support=4)
    pos, neg = pop.support_points()
    X = np.vstack([pos, neg])
    y = np.r_[np.zeros(len(pos)), np.ones(len(neg))].astype(np.int64)
    cells, logp = TriangleComplementSelector(T=T_).selection_table(X, y, 0.0, 1e-12)
    pts = cells.trap.points
    inside = pop.target_predict(pts).astype(bool) & (pts.sum(axis=1) < T_)  # triangle A
    lab = cells.labels.astype(bool)
    hit = np.all((lab[:, None, None, :] & lab[None, :, None, :] & lab[None, None, :, :])
                 == inside, axis=-1)
    assert hit.any()
    assert np.exp(logp[hit]).sum() == pytest.approx(
        c16_ln_t.target_triple_measure(T_, 0.5, 4), rel=1e-9)


def test_target_triple_exponent_is_symmetric_and_falls_with_t():
    # the two triangles are point reflections of each other: the same measure
    for b in (6, 12):
        assert c16_ln_t.target_triple_measure(2 ** b, 0.5, 8, 0) == pytest.approx(
            c16_ln_t.target_triple_measure(2 ** b, 0.5, 8, 1), rel=1e-9)
    gamma, meas = c16_ln_t.target_triple_exponent([64, 4096, 2 ** 20], 0.5, 8)
    assert meas[64] > meas[4096] > meas[2 ** 20] > 0
    # a power law: the two halves of the range give the same exponent
    g1 = math.log(meas[64] / meas[4096]) / math.log(4096 / 64)
    g2 = math.log(meas[4096] / meas[2 ** 20]) / math.log(2 ** 20 / 4096)
    assert g1 == pytest.approx(g2, rel=0.02) and gamma == pytest.approx(g1, rel=0.02)
    assert 0 < gamma < 24  # below what the coefficient C assumes (Claim 4.5's floor)
