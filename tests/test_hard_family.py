"""Tests of ppm.populations.MarginFamily (claim C2's hard family) and its family analysis."""

import math

import numpy as np
import pandas as pd
import pytest

from ppm import PPMHalfspaceLearner
from ppm.baselines import ERMHalfspace
from ppm.populations.hard_family import MarginFamily
from analysis.sample_complexity import empirical_sample_complexity
from analysis.slopes import family_sample_complexity, sample_complexity_slope_family


def _mc_error(pop, predict, n, seed):
    """Monte Carlo error on a fresh sample: an independent path from the exact integral."""
    X, y, _ = pop.sample(n, random_state=seed)
    err = float(np.mean(predict(X) != y))
    return err, math.sqrt(err * (1 - err) / n)


def _interval_rule(lo, hi):
    return lambda X: np.where((X[:, 0] >= lo) & (X[:, 0] <= hi), 0, 1).astype(np.int64)


# ------------------------------------------------------------------------------ exact errors
@pytest.mark.parametrize("orientation", [1, -1])
@pytest.mark.parametrize("t", [-0.9, -0.25, 0.0, 0.03, 0.6])
def test_threshold_error_closed_form(orientation, t):
    pop = MarginFamily(alpha_target=0.02, c=4.0, orientation=orientation)
    for direction in (1, -1):
        rule = (lambda X: (direction * (X[:, 0] - t) >= 0).astype(np.int64))
        err, se = pop.true_error(rule)
        assert se == 0.0
        # 1[x >= t] agrees with the Bayes rule of D_+ except on [min(0,t), max(0,t)].
        agrees = (direction == 1) == (orientation == 1)
        leb = abs(t) if agrees else 2.0 - abs(t)
        assert err == pytest.approx(pop.opt() + pop.gamma * leb, abs=1e-12)


@pytest.mark.parametrize("rule_args", [(-0.5, 0.2), (0.1, 0.1001), (-2.0, -0.3), (0.4, 3.0)])
def test_interval_rules_exact_vs_closed_form_and_monte_carlo(rule_args):
    pop = MarginFamily(alpha_target=0.05, c=4.0)
    rule = _interval_rule(*rule_args)
    exact, _ = pop.true_error(rule)
    assert exact == pytest.approx(pop.error_of_zero_set([rule_args]), abs=1e-12)
    mc, se = _mc_error(pop, rule, 400_000, seed=11)
    assert abs(mc - exact) <= 5 * se


def test_fitted_learners_exact_vs_monte_carlo():
    pop = MarginFamily(alpha_target=0.04)
    X, y, public = pop.sample(300, random_state=3)
    for est in (PPMHalfspaceLearner(epsilon=1.0, random_state=0), ERMHalfspace()):
        est.fit(X, y, public)
        exact, _ = pop.true_error(est.predict)
        mc, se = _mc_error(pop, est.predict, 400_000, seed=5)
        assert abs(mc - exact) <= 5 * se


def test_error_of_zero_set_merges_and_validates():
    pop = MarginFamily(alpha_target=0.01)
    a = pop.error_of_zero_set([(-0.5, 0.0), (-0.2, 0.3)])
    assert a == pytest.approx(pop.error_of_zero_set([(-0.5, 0.3)]))
    assert pop.error_of_zero_set([]) == pytest.approx(0.5)  # constant 1: errs on all label 0
    with pytest.raises(ValueError, match="l <= r"):
        pop.error_of_zero_set([(0.3, 0.1)])


def test_true_error_validates_predict():
    pop = MarginFamily()
    with pytest.raises(ValueError, match="callable"):
        pop.true_error(3)
    with pytest.raises(ValueError, match="labels in"):
        pop.true_error(lambda X: np.full(X.shape[0], 2))
    with pytest.raises(ValueError, match="shape"):
        pop.true_error(lambda X: np.zeros(3))


# ------------------------------------------------------------------------------ opt
@pytest.mark.parametrize("orientation", [1, -1])
def test_opt_is_the_minimum_over_rays_and_constants(orientation):
    pop = MarginFamily(alpha_target=0.03, c=4.0, orientation=orientation)
    assert pop.opt() == pytest.approx(0.5 - 0.12)
    assert pop.true_error(pop.opt_predict)[0] == pytest.approx(pop.opt(), abs=1e-12)
    # brute force over thresholds, both directions, and the two constants
    errs = [pop.error_of_zero_set([(-1.0, t)]) for t in np.linspace(-1, 1, 201)]
    errs += [pop.error_of_zero_set([(t, 1.0)]) for t in np.linspace(-1, 1, 201)]
    assert min(errs) == pytest.approx(pop.opt(), abs=1e-12)
    mc, se = _mc_error(pop, pop.opt_predict, 400_000, seed=9)
    assert abs(mc - pop.opt()) <= 5 * se


# ------------------------------------------------------------------------------ sampling
@pytest.mark.parametrize("orientation", [1, -1])
def test_sample_labels_privacy_and_conditional_rates(orientation):
    pop = MarginFamily(alpha_target=0.05, c=4.0, orientation=orientation)
    n = 200_000
    X, y, public = pop.sample(n, random_state=1)
    assert X.shape == (n, 1) and X.dtype == np.float64 and y.dtype == np.int64
    np.testing.assert_array_equal(y, (~public).astype(np.int64))  # label-determined
    assert np.all((X >= -1) & (X < 1))
    assert abs(public.mean() - 0.5) <= 5 * math.sqrt(0.25 / n)
    pos = X[:, 0] >= 0
    assert abs(pos.mean() - 0.5) <= 5 * math.sqrt(0.25 / n)  # uniform marginal: half each side
    for side, sign in ((pos, 1), (~pos, -1)):
        p = 0.5 + orientation * sign * pop.gamma
        rate = y[side].mean()
        assert abs(rate - p) <= 5 * math.sqrt(p * (1 - p) / side.sum())
    # uniform within a side
    assert abs(np.mean(X[pos, 0] < 0.5) - 0.5) <= 5 * math.sqrt(0.25 / pos.sum())


def test_sample_is_deterministic_under_a_seed():
    pop = MarginFamily(alpha_target=0.01)
    a, b, c = pop.sample(100, 7), pop.sample(100, 7), pop.sample(100, 8)
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    assert not np.array_equal(a[0], c[0])


# ------------------------------------------------------------------------------ validation
@pytest.mark.parametrize("kwargs, match", [
    ({"alpha_target": 0.2, "c": 4.0}, "gamma"),       # gamma = 0.8
    ({"alpha_target": 0.125, "c": 4.0}, "gamma"),     # gamma = 0.5 exactly
    ({"alpha_target": 0.0}, "alpha_target"),
    ({"alpha_target": 1.5}, "alpha_target"),
    ({"c": 0.0}, "'c' parameter of MarginFamily"),
    ({"c": float("nan")}, "'c' parameter of MarginFamily"),
    ({"c": True}, "'c' parameter of MarginFamily"),
    ({"orientation": 0}, "orientation"),
    ({"w_pub": 0.3}, "w_pub"),
])
def test_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        MarginFamily(**kwargs)


def test_params_roundtrip():
    pop = MarginFamily(alpha_target=0.01, c=3.0, orientation=-1)
    assert MarginFamily(**pop.params()).params() == pop.params()
    assert pop.gamma == pytest.approx(0.03) and pop.d == 1 and not pop.realizable


# ------------------------------------------------------------------------------ analysis
def test_family_sample_complexity_reads_each_population_at_its_own_alpha():
    rng = np.random.default_rng(0)
    rows = []
    for a in (0.01, 0.02):
        for n in (10, 100, 1000):
            for t in range(20):
                rows.append({"population.alpha_target": a, "n": n,
                             "error": rng.uniform(0, 3 * a) if n < 1000 else a / 2})
    df = pd.DataFrame(rows)
    from analysis.dose_response import use_reading
    # both readings (the fitted one reads this plateau-then-step curve as right-censored, nan)
    for reading in ("grid", "fit"):
        with use_reading(reading):
            fam = family_sample_complexity(df, "population.alpha_target", beta=0.1)
            for a in (0.01, 0.02):
                own = empirical_sample_complexity(df[df["population.alpha_target"] == a],
                                                  [a], 0.1)
                row = fam[fam["alpha"] == a].iloc[0]
                assert row["n_hat"] == pytest.approx(own["n_hat"].iloc[0], nan_ok=True)
                assert row["censored"] == own["censored"].iloc[0]
                if reading == "grid":
                    assert np.isfinite(row["n_hat"])
    with use_reading("grid"):
        res = sample_complexity_slope_family(df, "population.alpha_target", beta=0.1, n_boot=0)
    assert res["n_points"] == 2
