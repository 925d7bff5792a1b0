"""Tests for analysis.pooled_slope: the common slope over settings that share their samples (C4)."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.pooled_slope import common_slope, sample_complexity_slope_pooled
from analysis.sample_complexity import empirical_sample_complexity, loglog_slope
from analysis.slopes import sample_complexity_slope_against

NS = [8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512]


def _setting(xs, power_x, c, n_trials=40, seed=0, **cols):
    """Trials whose error law is c * x^power_x / n (lognormal noise), at every x and n."""
    rng = np.random.default_rng(seed)
    rows = [(x, n, t, c * x**power_x / n * math.exp(0.4 * rng.standard_normal()))
            for x in xs for n in NS for t in range(n_trials)]
    df = pd.DataFrame(rows, columns=["x", "n", "trial", "error"])
    for k, v in cols.items():
        df[k] = v
    return df


@given(st.lists(st.floats(-3, 3), min_size=2, max_size=5),
       st.floats(-2, 3), st.integers(2, 4))
@settings(max_examples=50, deadline=None)
def test_common_slope_recovers_the_slope_under_any_intercepts(intercepts, b, k):
    x = np.tile(np.arange(1.0, k + 1), len(intercepts))
    g = np.repeat(np.arange(len(intercepts)), k)
    y = np.exp(np.asarray(intercepts)[g]) * x**b
    assert common_slope(x, y, g) == pytest.approx(b, abs=1e-9)


def test_common_slope_differs_from_one_line_when_intercepts_differ():
    x = np.array([1.0, 2.0, 4.0, 8.0])
    g = np.array([0, 0, 1, 1])
    y = np.array([1.0, 2.0, 1.0, 2.0])  # slope 1 within each setting, nearly flat overall
    assert common_slope(x, y, g) == pytest.approx(1.0)
    assert loglog_slope(x, y)[0] < 0.5
    assert math.isnan(common_slope([2.0, 2.0], [1.0, 3.0], [0, 1]))  # nothing varies


def test_pooled_point_slope_is_the_mean_of_the_settings_slopes():
    a = _setting([1, 2, 3], 1.0, 5.0, seed=1, eps=1.0, samples="s")
    b = _setting([1, 2, 3], 2.0, 2.0, seed=2, eps=2.0, samples="t")
    df = pd.concat([a, b], ignore_index=True)
    res = sample_complexity_slope_pooled(df, "x", "eps", [0.1], 0.1, sample_col="samples",
                                         n_boot=0)
    own = [sample_complexity_slope_against(s, "x", 0.1, 0.1, n_boot=0)["slope"]
           for s in (a, b)]
    assert res["slope"] == pytest.approx(np.mean(own), abs=1e-12)
    # one setting's curves fitted alone or in the bootstrap's batch: the same maximum-likelihood
    # fit, converged to the IRLS tolerance (1e-10 relative), not bit for bit
    assert res["per_setting"][(2.0, 0.1)] == pytest.approx(own[1], abs=1e-9)
    assert res["settings"] == [(1.0, 0.1), (2.0, 0.1)] and res["excluded"] == []


def test_one_setting_is_sample_complexity_slope_against_exactly():
    a = _setting([1, 2, 3], 1.5, 3.0, seed=3, eps=1.0, samples="s")
    res = sample_complexity_slope_pooled(a, "x", "eps", [0.1], 0.1, sample_col="samples",
                                         n_boot=100, random_state=7)
    ref = sample_complexity_slope_against(a, "x", 0.1, 0.1, n_boot=100, random_state=7)
    for k in ("slope", "lo", "hi", "n_points"):
        assert res[k] == pytest.approx(ref[k], rel=1e-12)


def test_settings_on_the_same_samples_are_resampled_jointly():
    """Two copies of one setting on the same samples carry no more information than one: the
    pooled interval equals the single setting's. Declared independent (two sample groups), the
    same numbers give a narrower interval: that is what joint resampling prevents."""
    a = _setting([1, 2, 3], 1.5, 3.0, seed=4, eps=1.0, samples="s")
    twins = pd.concat([a, a.assign(eps=2.0)], ignore_index=True)
    shared = sample_complexity_slope_pooled(twins, "x", "eps", [0.1], 0.1,
                                            sample_col="samples", n_boot=200, random_state=1)
    single = sample_complexity_slope_pooled(a, "x", "eps", [0.1], 0.1, sample_col="samples",
                                            n_boot=200, random_state=1)
    assert (shared["lo"], shared["hi"]) == pytest.approx((single["lo"], single["hi"]), rel=1e-12)
    apart = sample_complexity_slope_pooled(twins.assign(samples=twins.eps.astype(str)), "x",
                                           "eps", [0.1], 0.1, sample_col="samples",
                                           n_boot=200, random_state=1)
    assert apart["hi"] - apart["lo"] < 0.9 * (single["hi"] - single["lo"])


def test_a_setting_censored_at_some_x_is_excluded_and_named():
    ok = _setting([1, 2, 3], 1.0, 5.0, seed=5, eps=1.0, samples="s")
    steep = _setting([1, 2, 3], 4.0, 1.0, seed=6, eps=2.0, samples="t")  # n_hat(3) > 512
    nh = empirical_sample_complexity(steep, [0.1], 0.1, by="x")
    assert nh.loc[nh.x == 3, "censored"].item() == "right"
    res = sample_complexity_slope_pooled(pd.concat([ok, steep]), "x", "eps", [0.1], 0.1,
                                         sample_col="samples", n_boot=0)
    assert res["settings"] == [(1.0, 0.1)]
    assert res["excluded"] == [(2.0, 0.1, "n_hat censored at x = 3")]


def test_alphas_per_setting():
    a = _setting([1, 2, 3], 1.0, 5.0, seed=8, eps=1.0, samples="s")
    b = _setting([1, 2, 3], 1.0, 5.0, seed=9, eps=2.0, samples="t")
    res = sample_complexity_slope_pooled(pd.concat([a, b]), "x", "eps",
                                         {1.0: [0.1, 0.2], 2.0: [0.2]}, 0.1,
                                         sample_col="samples", n_boot=0)
    assert res["settings"] == [(1.0, 0.1), (1.0, 0.2), (2.0, 0.2)]
    with pytest.raises(ValueError, match="no entry"):
        sample_complexity_slope_pooled(pd.concat([a, b]), "x", "eps", {1.0: [0.1]}, 0.1,
                                       sample_col="samples")


def test_bad_inputs_are_refused_before_any_work():
    a = _setting([1, 2, 3], 1.0, 5.0, seed=10, eps=1.0, samples="s")
    mixed = a.copy()
    mixed.loc[mixed.index[:5], "samples"] = "other"
    with pytest.raises(ValueError, match="mixes sample groups"):
        sample_complexity_slope_pooled(mixed, "x", "eps", [0.1], 0.1, sample_col="samples")
    short = pd.concat([a, a[a.trial < 30].assign(eps=2.0)])
    with pytest.raises(ValueError, match="same \\(n, trial\\) cells"):
        sample_complexity_slope_pooled(short, "x", "eps", [0.1], 0.1, sample_col="samples")
    with pytest.raises(ValueError, match="positive"):
        sample_complexity_slope_pooled(a.assign(x=a.x - 1), "x", "eps", [0.1], 0.1,
                                       sample_col="samples")
    with pytest.raises(ValueError, match="NaN"):
        sample_complexity_slope_pooled(a.assign(error=np.nan), "x", "eps", [0.1], 0.1,
                                       sample_col="samples")
    with pytest.raises(ValueError, match="one learner"):
        sample_complexity_slope_pooled(pd.concat([a, a]), "x", "eps", [0.1], 0.1,
                                       sample_col="samples")
    with pytest.raises(ValueError, match="alpha"):
        sample_complexity_slope_pooled(a, "x", "eps", [1.5], 0.1, sample_col="samples")
