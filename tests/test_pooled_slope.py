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
    assert res["per_setting"][(2.0, 0.1)] == pytest.approx(own[1], abs=1e-12)
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


# --------------------------------------------------------------------------------------------
# the exponent free of the constant term: n = a + b d^p
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("p", [1.0, 2.0])
def test_increments_exponent_recovers_p_with_noise(p):
    from analysis.pooled_slope import increments_exponent, increments_ratio
    rng = np.random.default_rng(int(p))
    ds = np.array([1.0, 2.0, 3.0])
    vals, groups = [], []
    for s in range(12):
        a, b = rng.uniform(20, 200), rng.uniform(10, 60)  # a constant of any size
        vals += list((a + b * ds ** p) * np.exp(0.02 * rng.standard_normal(3)))
        groups += [s] * 3
    est = increments_exponent(increments_ratio(vals, groups), ds)
    assert est == pytest.approx(p, abs=0.2)
    # a log-log slope on the same numbers mixes the constant in: well below p
    from analysis.pooled_slope import common_slope
    assert common_slope(np.tile(ds, 12), vals, groups) < p - 0.3


def _threshold_trials(settings, grid, trials=60, seed=0):
    """One row per (setting, d, n, trial): trial t succeeds (error 0) from its own threshold
    ``(a + b d^p) * U`` on (U shared by the settings of a trial: one sample), else error 1."""
    rng = np.random.default_rng(seed)
    u = {(d, n, t): rng.uniform(0.7, 1.0) for d in (1, 2, 3) for n in grid for t in range(trials)}
    rows = []
    for eps, (a, b, p) in settings.items():
        for d in (1, 2, 3):
            for n in grid:
                for t in range(trials):
                    th = (a + b * d ** p) * u[(d, n, t)]
                    rows.append(dict(eps=eps, x=d, n=n, trial=t, samples="s",
                                     error=0.0 if n >= th else 1.0))
    return pd.DataFrame(rows)


def test_pooled_exponent_on_trials_recovers_d_squared():
    from analysis.pooled_slope import sample_complexity_exponent_pooled
    grid = np.unique(np.round(8 * 2 ** (np.arange(0, 60) / 8))).astype(int)
    df = _threshold_trials({1.0: (40, 20, 2.0), 2.0: (60, 10, 2.0)}, grid)
    fit = sample_complexity_exponent_pooled(df, "x", "eps", [0.5], 0.1, sample_col="samples",
                                            n_boot=60)
    assert fit["direction"] == "" and fit["lo"] < 2.0 < fit["hi"]
    assert fit["slope"] == pytest.approx(2.0, abs=0.3)


def test_a_censored_cell_enters_as_a_lower_bound():
    """Setting eps=1 grows like d (p = 1); eps=2 like d^3, beyond a short grid at d = 3.
    Dropping it (the old rule) reads p = 1, below the pool measured on a grid long enough
    (biased toward the settings that stay measurable); entering it at the short grid's largest
    n gives an estimate stated as a lower bound, and it is one: at most the full-grid value."""
    from analysis.pooled_slope import sample_complexity_exponent_pooled
    full_grid = np.unique(np.round(8 * 2 ** (np.arange(0, 52) / 8))).astype(int)  # to ~720
    df = _threshold_trials({1.0: (20, 60, 1.0), 2.0: (20, 20, 3.0)}, full_grid)
    short = df[df.n <= 215]
    kw = dict(sample_col="samples", n_boot=40)
    bounded = sample_complexity_exponent_pooled(short, "x", "eps", [0.5], 0.1, **kw)
    dropped = sample_complexity_exponent_pooled(short[short.eps == 1.0], "x", "eps", [0.5], 0.1,
                                                **kw)
    full = sample_complexity_exponent_pooled(df, "x", "eps", [0.5], 0.1, **kw)
    assert bounded["bounded"] == [(2.0, 0.5)] and bounded["direction"] == "lower bound"
    assert full["direction"] == "" and dropped["direction"] == ""
    assert dropped["slope"] == pytest.approx(1.0, abs=0.4)  # 60 trials, a 9% grid
    assert full["slope"] > dropped["slope"] + 0.3  # dropping biased the exponent down
    assert bounded["slope"] <= full["slope"]  # the bound is on the right side
