"""Tests for analysis.sample_complexity (docs/model.md §5) on synthetic trials with a known error law."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest, norm

from analysis.sample_complexity import (empirical_sample_complexity,
                                         loglog_slope,
                                         n_hat_from_curve,
                                         slope_against,
                                         success_curve)

from analysis.slopes import sample_complexity_slope, sample_complexity_slope_against
from analysis.dose_response import use_reading


@pytest.fixture(autouse=True)
def _grid_reading():
    """These tests pin the grid reading (first run of successes, interpolated; kept as the
    reference beside the fitted reading, which tests/test_dose_response.py tests)."""
    with use_reading("grid"):
        yield


def _trials(ns, n_trials, law, seed=0, **cols):
    """One row per trial: error = law(n, rng) for each n in ns."""
    rng = np.random.default_rng(seed)
    rows = [(n, t, law(n, rng)) for n in ns for t in range(n_trials)]
    df = pd.DataFrame(rows, columns=["n", "trial", "error"])
    for k, v in cols.items():
        df[k] = v
    return df


def _lognormal_law(c, sigma, power=1.0):
    return lambda n, rng: c / n**power * math.exp(sigma * rng.standard_normal())


# ------------------------------------------------------------------------------------------
# success_curve and Clopper-Pearson
# ------------------------------------------------------------------------------------------


def test_success_curve_counts_by_hand():
    df = pd.DataFrame({"n": [20, 10, 10, 10, 20], "error": [0.0, 0.1, 0.2, 0.3, 0.5]})
    cur = success_curve(df, 0.2)
    assert list(cur.columns) == ["n", "trials", "successes", "frac", "cp_lo", "cp_hi"]
    assert cur["n"].tolist() == [10, 20]  # sorted
    assert cur["trials"].tolist() == [3, 2]
    assert cur["successes"].tolist() == [2, 1]  # error == alpha counts as success
    assert cur["frac"].tolist() == pytest.approx([2 / 3, 1 / 2])


def test_success_curve_custom_columns():
    df = pd.DataFrame({"size": [5, 5], "excess_error": [0.01, 0.3]})
    cur = success_curve(df, 0.1, n_col="size", error_col="excess_error")
    assert cur["successes"].tolist() == [1] and cur["trials"].tolist() == [2]


@pytest.mark.parametrize("k, t", [(0, 20), (20, 20), (7, 20), (1, 1), (0, 1), (13, 50)])
@pytest.mark.parametrize("conf", [0.95, 0.8])
def test_clopper_pearson_matches_scipy_binomtest(k, t, conf):
    df = pd.DataFrame({"n": [100] * t, "error": [0.0] * k + [1.0] * (t - k)})
    cur = success_curve(df, 0.5, confidence=conf)
    ci = binomtest(k, t).proportion_ci(confidence_level=conf, method="exact")
    assert cur["cp_lo"].iloc[0] == pytest.approx(ci.low, abs=1e-10)
    assert cur["cp_hi"].iloc[0] == pytest.approx(ci.high, abs=1e-10)


# ------------------------------------------------------------------------------------------
# n_hat_from_curve
# ------------------------------------------------------------------------------------------


def test_n_hat_deterministic_crossing_between_grid_points():
    # error = 10/n exactly: error <= 0.03 iff n >= 333.3, between grid points 200 and 400.
    # fractions 0, 0, 1, 1 -> interpolate target 0.9 in log n: 200 * 2^0.9
    df = _trials([100, 200, 400, 800], 10, lambda n, rng: 10.0 / n)
    out = empirical_sample_complexity(df, [0.03], beta=0.1)
    assert out["n_hat"].iloc[0] == pytest.approx(200 * 2**0.9, rel=1e-12)
    assert out["censored"].iloc[0] == ""
    assert 200 < out["n_hat"].iloc[0] <= 400


def test_n_hat_interpolates_on_the_fraction():
    # target 0.9 between f = 0.7 at n = 200 and f = 0.95 at n = 400: t = 0.2 / 0.25 = 0.8
    v, c = n_hat_from_curve([100, 200, 400], [0.5, 0.7, 0.95], 0.9)
    assert v == pytest.approx(200 * 2**0.8, rel=1e-12) and c == ""


def test_n_hat_monotone_envelope_ignores_early_lucky_success():
    # reaches 0.95 at n = 1, drops to 0.5 at n = 2: the crossing is between 2 and 4
    v, c = n_hat_from_curve([1, 2, 4, 8], [0.95, 0.5, 0.95, 1.0], 0.9)
    t = (0.9 - 0.5) / (0.95 - 0.5)
    assert v == pytest.approx(2 * 2**t, rel=1e-12) and c == ""


def test_n_hat_exact_hit_at_grid_point():
    v, c = n_hat_from_curve([10, 20, 40], [0.0, 0.9, 1.0], 0.9)
    assert v == pytest.approx(20.0) and c == ""


def test_n_hat_censoring():
    assert n_hat_from_curve([10, 20, 40], [0.95, 0.99, 1.0], 0.9) == (10.0, "left")
    v, c = n_hat_from_curve([10, 20, 40], [0.0, 0.5, 0.8], 0.9)
    assert math.isnan(v) and c == "right"
    v, c = n_hat_from_curve([10, 20, 40], [0.95, 0.99, 0.5], 0.9)  # last point fails
    assert math.isnan(v) and c == "right"
    v, c = n_hat_from_curve([10], [1.0], 0.5)
    assert (v, c) == (10.0, "left")


def test_n_hat_fraction_equal_to_target_counts_despite_rounding():
    # 1 - 1/3 rounds above 2/3 in floating point; 2 of 3 successes must still reach it
    beta = 1 / 3
    assert 2 / 3 < 1 - beta
    df = pd.DataFrame({"n": [10] * 3 + [20] * 3, "error": [1, 1, 1, 0, 0, 1.0]})
    out = empirical_sample_complexity(df, [0.5], beta=beta)
    assert out["n_hat"].iloc[0] == pytest.approx(20.0) and out["censored"].iloc[0] == ""


def test_n_hat_from_curve_validation():
    with pytest.raises(ValueError, match="target"):
        n_hat_from_curve([1, 2], [0.5, 1.0], 1.0)
    with pytest.raises(ValueError, match="ns"):
        n_hat_from_curve([2, 1], [0.5, 1.0], 0.9)
    with pytest.raises(ValueError, match="ns"):
        n_hat_from_curve([0, 1], [0.5, 1.0], 0.9)
    with pytest.raises(ValueError, match="fracs"):
        n_hat_from_curve([1, 2], [0.5, 1.5], 0.9)
    with pytest.raises(ValueError, match="fracs"):
        n_hat_from_curve([1, 2, 3], [0.5, 1.0], 0.9)


# ------------------------------------------------------------------------------------------
# empirical_sample_complexity on a known error law
# ------------------------------------------------------------------------------------------

NS = np.unique(np.round(np.geomspace(20, 40000, 40)).astype(int))


def test_n_hat_recovers_known_lognormal_law():
    # error = c/n * exp(sigma Z): P[error <= a] >= 1 - beta  iff  n >= (c/a) exp(sigma z_{1-b})
    c, sigma, beta = 5.0, 0.3, 0.1
    df = _trials(NS, 400, _lognormal_law(c, sigma), seed=1)
    alphas = [0.002, 0.01, 0.05]
    out = empirical_sample_complexity(df, alphas, beta)
    truth = np.array([c / a * math.exp(sigma * norm.ppf(1 - beta)) for a in alphas])
    assert np.all(out["censored"] == "")
    np.testing.assert_allclose(out["n_hat"], truth, rtol=0.12)
    assert np.all(out["n_hat_lo"] <= out["n_hat"]) and np.all(out["n_hat"] <= out["n_hat_hi"])
    assert np.all(out["n_hat_lo"] < truth * 1.05) and np.all(truth < out["n_hat_hi"] * 1.05)
    assert out["min_trials"].tolist() == [400] * 3
    assert out["beta"].tolist() == [beta] * 3


def test_empirical_by_groups_and_columns():
    df = pd.concat([
        _trials(NS, 60, _lognormal_law(2.0, 0.2), seed=2, eps=1.0),
        _trials(NS, 60, _lognormal_law(8.0, 0.2), seed=3, eps=0.25),
    ])
    out = empirical_sample_complexity(df, [0.01, 0.02], 0.1, by="eps")
    assert list(out.columns) == ["eps", "alpha", "beta", "n_hat", "n_hat_lo", "n_hat_hi",
                                 "censored", "min_trials", "n_hat_grid", "n_hat_grid_lo",
                                 "n_hat_grid_hi", "censored_grid", "fit_status",
                                 "fit_deviance_p"]
    # under the grid reading the counted columns are the grid's
    assert out["n_hat"].equals(out["n_hat_grid"])
    assert len(out) == 4
    a = out.set_index(["eps", "alpha"])["n_hat"]
    # c differs by 4: n_hat (prop. to c) should differ by about 4 at each alpha
    assert a[(0.25, 0.01)] / a[(1.0, 0.01)] == pytest.approx(4.0, rel=0.2)
    assert a[(1.0, 0.01)] / a[(1.0, 0.02)] == pytest.approx(2.0, rel=0.2)


def test_empirical_censoring_and_upper_end_unreached():
    # few trials: the Clopper-Pearson lower curve never reaches 0.9 -> n_hat_hi = nan
    df = _trials([10, 20, 40], 10, lambda n, rng: 1.0 / n)
    out = empirical_sample_complexity(df, [0.5, 0.001], 0.1)
    left, right = out.iloc[0], out.iloc[1]
    assert left["censored"] == "left" and left["n_hat"] == 10
    assert math.isnan(left["n_hat_hi"])  # cp_lo with 10/10 successes is 0.69 < 0.9
    assert right["censored"] == "right" and math.isnan(right["n_hat"])


# ------------------------------------------------------------------------------------------
# slopes
# ------------------------------------------------------------------------------------------


def test_loglog_slope_exact_power_law_and_filtering():
    x = np.array([1.0, 2.0, 4.0, 8.0, np.nan, -1.0, 3.0])
    y = 3.0 * np.abs(x) ** -1.5
    y[-1] = np.nan  # dropped
    s, b = loglog_slope(x, y)
    assert s == pytest.approx(-1.5) and b == pytest.approx(math.log(3.0))
    assert all(math.isnan(v) for v in loglog_slope([1.0, 2.0], [1.0, np.nan]))
    assert all(math.isnan(v) for v in loglog_slope([2.0, 2.0], [1.0, 3.0]))
    with pytest.raises(ValueError, match="same length"):
        loglog_slope([1.0], [1.0, 2.0])


def test_slope_against_drops_censored_rows():
    t = pd.DataFrame({"eps": [0.1, 0.2, 0.4, 0.8], "n_hat": [800.0, 400.0, 200.0, 7.0],
                      "censored": ["", "", "", "left"]})
    s, _ = slope_against(t, "eps")
    assert s == pytest.approx(-1.0)


@pytest.mark.parametrize("power, theory", [(1.0, 1.0), (0.5, 2.0)])
def test_sample_complexity_slope_recovers_known_rate(power, theory):
    # error = c / n^power * lognormal -> n_hat prop. to alpha^(-1/power)
    ns = NS if power == 1.0 else np.unique(np.round(np.geomspace(20, 2e6, 40)).astype(int))
    df = _trials(ns, 100, _lognormal_law(1.0, 0.25, power), seed=4)
    alphas = np.geomspace(0.001, 0.02, 6) if power == 1.0 else np.geomspace(0.002, 0.05, 6)
    res = sample_complexity_slope(df, alphas, 0.1, n_boot=100, random_state=0)
    assert res["n_points"] == 6
    assert res["slope"] == pytest.approx(theory, abs=0.06 * theory)
    assert res["lo"] <= theory <= res["hi"]
    assert res["lo"] < res["slope"] < res["hi"]
    assert 0 < res["se"] < 0.1


def test_sample_complexity_slope_is_deterministic_and_seeded():
    df = _trials(NS, 40, _lognormal_law(2.0, 0.4), seed=5)
    alphas = np.geomspace(0.002, 0.02, 5)
    r1 = sample_complexity_slope(df, alphas, 0.1, n_boot=50, random_state=7)
    r2 = sample_complexity_slope(df, alphas, 0.1, n_boot=50, random_state=7)
    r3 = sample_complexity_slope(df, alphas, 0.1, n_boot=50, random_state=8)
    assert r1 == r2
    assert r1["slope"] == r3["slope"] and r1["lo"] != r3["lo"]


def test_sample_complexity_slope_skips_censored_alphas():
    df = _trials(NS, 50, lambda n, rng: 10.0 / n, seed=0)
    # alpha = 0.9 is left-censored (n = 20 already works), 1e-5 is right-censored
    res = sample_complexity_slope(df, [0.9, 0.01, 0.003, 0.001, 1e-5], 0.1, n_boot=20,
                                  keep_censored=False)
    assert res["n_points"] == 3 and res["direction"] == ""
    # 0/1 fractions: each n_hat sits within one grid ratio (~1.2) of the crossing 10/alpha
    assert res["slope"] == pytest.approx(1.0, abs=0.1)
    res = sample_complexity_slope(df, [0.9, 1e-5], 0.1, n_boot=20, keep_censored=False)
    assert res["n_points"] == 0 and math.isnan(res["slope"]) and math.isnan(res["lo"])


def test_sample_complexity_slope_keeps_censored_alphas_as_bounds():
    # by default the censored alphas enter at the grid's edges: 0.9's true n_hat is below the
    # smallest n, 1e-5's above the largest, so both can only steepen the slope: a lower bound
    df = _trials(NS, 50, lambda n, rng: 10.0 / n, seed=0)
    res = sample_complexity_slope(df, [0.9, 0.01, 0.003, 0.001, 1e-5], 0.1, n_boot=20)
    assert res["n_points"] == 3 and res["n_cells"] == 5 and res["bounds"] == 2
    assert res["direction"] == "lower bound"
    assert res["slope"] < 0.9  # flattened by the edges, and reported as a bound
    # a right-censored cell at the small end of x raises the truth at low x: an upper bound
    res = sample_complexity_slope(df, [0.01, 0.003, 0.001], 0.1, n_boot=0)
    assert res["direction"] == ""


def test_censored_direction_both_ways():
    from analysis.slopes import censored_direction
    from analysis.sample_complexity import loglog_slope

    def fn(x, y, _):
        return loglog_slope(x, y)[0]
    xs = np.array([1.0, 2.0, 4.0, 8.0])
    ys = np.array([10.0, 20.0, 40.0, 80.0])
    assert censored_direction(xs, ys, np.array(["right", "", "", ""]), None, fn) == "upper bound"
    assert censored_direction(xs, ys, np.array(["", "", "", "right"]), None, fn) == "lower bound"
    assert censored_direction(xs, ys, np.array(["right", "", "", "right"]), None,
                              fn) == "bound both ways"
    assert censored_direction(xs, ys, np.array(["", "", "", ""]), None, fn) == ""


def test_sample_complexity_slope_against_epsilon():
    # n_hat prop. to 1/eps: error = c/(eps n) * lognormal; slope of log n_hat on log eps = -1
    parts = [_trials(NS, 60, _lognormal_law(1.0 / e, 0.3), seed=10 + i, eps=e)
             for i, e in enumerate([0.1, 0.2, 0.5, 1.0])]
    res = sample_complexity_slope_against(pd.concat(parts), "eps", 0.01, 0.1, n_boot=60)
    assert res["n_points"] == 4
    assert res["slope"] == pytest.approx(-1.0, abs=0.08)
    assert res["lo"] <= -1.0 <= res["hi"]


# ------------------------------------------------------------------------------------------
# validation
# ------------------------------------------------------------------------------------------

DF = pd.DataFrame({"n": [10, 10, 20], "error": [0.1, 0.2, 0.0]})


@pytest.mark.parametrize("alpha", [0, 1, 1.5, -0.1, float("nan")])
def test_alpha_validation(alpha):
    with pytest.raises(ValueError, match="alpha"):
        success_curve(DF, alpha)
    with pytest.raises(ValueError, match="alpha"):
        empirical_sample_complexity(DF, [0.1, alpha], 0.1)
    with pytest.raises(ValueError, match="alpha"):
        sample_complexity_slope(DF, [alpha, 0.1], 0.1)


@pytest.mark.parametrize("beta", [0, 1, 1.5, float("nan")])
def test_beta_validation(beta):
    with pytest.raises(ValueError, match="beta"):
        empirical_sample_complexity(DF, [0.1], beta)
    with pytest.raises(ValueError, match="beta"):
        sample_complexity_slope(DF, [0.1, 0.2], beta)


def test_other_validation():
    with pytest.raises(ValueError, match="confidence"):
        success_curve(DF, 0.1, confidence=1.0)
    with pytest.raises(ValueError, match="missing|no column"):
        success_curve(DF, 0.1, error_col="excess_error")
    with pytest.raises(ValueError, match="DataFrame"):
        success_curve(DF.to_numpy(), 0.1)
    with pytest.raises(ValueError, match="'error'"):
        success_curve(pd.DataFrame({"n": [1, 2], "error": [0.1, np.nan]}), 0.1)
    with pytest.raises(ValueError, match="'n'"):
        success_curve(pd.DataFrame({"n": [0, 2], "error": [0.1, 0.2]}), 0.1)
    with pytest.raises(ValueError, match="empty"):
        success_curve(DF.iloc[:0], 0.1)
    with pytest.raises(ValueError, match="no column"):
        empirical_sample_complexity(DF, [0.1], 0.1, by="eps")
    with pytest.raises(ValueError, match="n_boot"):
        sample_complexity_slope(DF, [0.1, 0.2], 0.1, n_boot=-1)
    with pytest.raises(ValueError, match="level"):
        sample_complexity_slope(DF, [0.1, 0.2], 0.1, level=0)
    with pytest.raises(ValueError, match="random_state"):
        sample_complexity_slope(DF, [0.1, 0.2], 0.1, random_state=-3)
    with pytest.raises(ValueError, match="'eps'"):
        sample_complexity_slope_against(DF.assign(eps=[1.0, 0.0, 1.0]), "eps", 0.1, 0.1)


def test_slope_difference_paired_measures_the_contrast_on_shared_samples():
    from analysis.slopes import slope_difference_paired
    # learner "a" needs n ~ x (its error c x / n), "b" does not depend on x; both read the
    # same per-trial noise (the shared sample), so the contrast is much tighter than either
    parts = []
    for i, x in enumerate([1.0, 2.0, 4.0, 8.0]):
        noise = _trials(NS, 60, lambda n, rng: math.exp(0.3 * rng.standard_normal()),
                        seed=20 + i)
        for lrn, c in (("a", x), ("b", 1.0)):
            parts.append(noise.assign(error=noise["error"] * c / noise["n"], learner=lrn, x=x))
    df = pd.concat(parts)
    res = slope_difference_paired(df, "x", "a", "b", 0.01, 0.1, n_boot=60)
    assert res["slope"] == pytest.approx(1.0, abs=0.1) and res["lo"] <= 1.0 <= res["hi"]
    assert res["n_points"] == 4 and res["direction"] == ""
    back = slope_difference_paired(df, "x", "b", "a", 0.01, 0.1, n_boot=60)
    assert back["slope"] == pytest.approx(-res["slope"])
    # unpaired rows are refused
    with pytest.raises(ValueError, match="must share"):
        slope_difference_paired(df[~((df.learner == "b") & (df.x == 2.0) & (df.trial == 0))],
                                "x", "a", "b", 0.01, 0.1, n_boot=5)
