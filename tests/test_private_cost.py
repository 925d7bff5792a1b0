"""C4's counted test (analysis/private_cost.py): the private cost's increments ratio against
the exact-ln|G| and the d predictions, on simulated trials whose law we choose."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from analysis.private_cost import log_g_at, private_cost_ratio_pooled
from claims.rules.predictions import prediction_verdict
from claims.rules.verdicts import FAILS, HOLDS
from experiments.columns import D, EPSILON, ERM, PPM, W_PUB

LOG_G = {1: 4.0, 2: 12.0, 3: 23.0}  # an exact-ln|G| shape: ratio (23 - 12) / (12 - 4) = 1.375
GRID = np.unique(np.round(8 * 2 ** (np.arange(0, 64) / 10))).astype(int)  # 8 .. ~680, 7% steps


def _trials(private, erm=lambda d: 20.0 * d, settings=((0.1, 1.0), (0.1, 2.0)), trials=80,
            grid=GRID, seed=0):
    """PPM and ERM rows per (setting, d, n, trial). Trial t of a sample succeeds (error 0) from
    its threshold ``base(d) * U``, U shared by every learner and epsilon run on that sample,
    else error 1; PPM's threshold is ``erm(d) + private(d, epsilon)``."""
    rng = np.random.default_rng(seed)
    rows = []
    for d in (1, 2, 3):
        for n in grid:
            for t in range(trials):
                u = rng.uniform(0.75, 1.0)
                rows.append({"learner": ERM, D: d, "n": n, "trial": t,
                             "error": float(n < erm(d) * u), EPSILON: math.nan, W_PUB: 0.1,
                             "samples": f"s{d}", "log_n_hypotheses": math.nan})
                for _, eps in settings:
                    th = (erm(d) + private(d, eps)) * u
                    rows.append({"learner": PPM, D: d, "n": n, "trial": t,
                                 "error": float(n < th), EPSILON: eps, W_PUB: 0.1,
                                 "samples": f"s{d}",
                                 "log_n_hypotheses": LOG_G[d] + 0.01 * math.log(n)})
    return pd.DataFrame(rows)


SETTINGS = {(0.1, 1.0): [0.5], (0.1, 2.0): [0.5]}


def test_a_cost_growing_with_ln_g_holds_and_one_growing_with_d_does_not():
    grows_g = _trials(lambda d, eps: 12.0 * LOG_G[d] / eps)
    fit = private_cost_ratio_pooled(grows_g, SETTINGS, 0.1, n_boot=80)
    assert fit["settings"] == [(0.1, 1.0, 0.5), (0.1, 2.0, 0.5)] and fit["direction"] == ""
    lo_p, hi_p = fit["predicted"]
    assert lo_p == pytest.approx(1.375, abs=0.01) and hi_p < 1.4
    assert fit["lo"] < 1.375 < fit["hi"] and fit["lo"] > 1.0
    v = prediction_verdict(fit["lo"], fit["hi"], fit["ratio"], fit["predicted"], (1.0, 1.0))
    assert v == HOLDS
    grows_d = _trials(lambda d, eps: 120.0 * d / eps)
    fit = private_cost_ratio_pooled(grows_d, SETTINGS, 0.1, n_boot=80)
    assert fit["lo"] < 1.0 < fit["hi"] < fit["predicted"][0]
    v = prediction_verdict(fit["lo"], fit["hi"], fit["ratio"], fit["predicted"], (1.0, 1.0))
    assert v.startswith(FAILS)


def test_the_non_private_part_is_subtracted():
    """ERM growing like d^2 under a private cost growing like d: PPM's own n_hat grows faster
    than d (raw ratio well above 1), the private cost does not (ratio near 1)."""
    df = _trials(lambda d, eps: 100.0 * d / eps, erm=lambda d: 30.0 * d * d)
    fit = private_cost_ratio_pooled(df, SETTINGS, 0.1, n_boot=0)
    assert fit["ratio"] == pytest.approx(1.0, abs=0.15)
    assert fit["raw_ratio"] > 1.3


def test_a_setting_censored_at_d3_makes_the_ratio_a_lower_bound():
    df = _trials(lambda d, eps: 12.0 * LOG_G[d] / eps if eps > 1 else {1: 30, 2: 100, 3: 500}[d])
    short = df[df.n <= 300]
    fit = private_cost_ratio_pooled(short, SETTINGS, 0.1, n_boot=30)
    assert fit["bounded"] == [(0.1, 1.0, 0.5)] and fit["direction"] == "lower bound"
    full = private_cost_ratio_pooled(df, SETTINGS, 0.1, n_boot=0)
    assert full["direction"] == "" and fit["ratio"] <= full["ratio"]


def test_settings_without_every_d_or_censored_below_d3_are_excluded():
    df = _trials(lambda d, eps: 12.0 * LOG_G[d] / eps)
    fit = private_cost_ratio_pooled(df[~((df[D] == 2) & (df.learner == ERM))], SETTINGS, 0.1,
                                    n_boot=0)
    assert not fit["settings"] and "not run at every d" in fit["excluded"][0][-1]
    fit = private_cost_ratio_pooled(df[df.n <= 40], SETTINGS, 0.1, n_boot=0)
    assert not fit["settings"] and "censored" in fit["excluded"][0][-1]


def test_bad_input_is_refused():
    df = _trials(lambda d, eps: 10.0 * d, trials=4, grid=[8, 64])
    with pytest.raises(ValueError, match="learner must be"):
        private_cost_ratio_pooled(df.assign(learner="dp"), SETTINGS, 0.1, n_boot=0)
    with pytest.raises(ValueError, match="beta"):
        private_cost_ratio_pooled(df, SETTINGS, 1.5, n_boot=0)


def test_log_g_is_read_at_the_crossing_n():
    rows = pd.DataFrame({"n": [64, 64, 128, 128], "log_n_hypotheses": [10.0, 12.0, 20.0, 22.0]})
    assert log_g_at(rows, 64) == pytest.approx(11.0)
    assert log_g_at(rows, math.sqrt(64 * 128)) == pytest.approx(16.0)  # half-way in log n
    assert log_g_at(rows, 500) == pytest.approx(21.0)  # the grid's end outside it


@pytest.mark.parametrize("lo, hi, expect", [
    (1.2, 1.6, HOLDS),                              # meets ln|G| [1.3, 1.45], excludes 1
    (0.8, 1.1, FAILS),                              # meets 1 only
    (1.6, 1.9, FAILS),                              # above both
    (0.9, 1.5, "inconclusive (cannot separate"),    # meets both
])
def test_prediction_verdict_weighs_both_predictions(lo, hi, expect):
    v = prediction_verdict(lo, hi, (lo + hi) / 2, (1.3, 1.45), (1.0, 1.0))
    assert v.startswith(expect)


def test_prediction_verdict_refuses_what_cannot_decide():
    assert prediction_verdict(1.4, 1.4, 1.4, (1.3, 1.45), (1.0, 1.0)).startswith(
        "inconclusive (zero-width")
    assert "cannot separate them" in prediction_verdict(1.2, 1.6, 1.4, (0.9, 1.45), (1.0, 1.0))
    # a lower bound excludes only what lies below it
    assert prediction_verdict(1.1, 1.5, 1.3, (1.3, 1.45), (1.0, 1.0),
                              direction="lower bound").startswith("inconclusive")
    assert prediction_verdict(1.6, 1.9, 1.7, (1.3, 1.45), (1.0, 1.0),
                              direction="lower bound").startswith(FAILS)

