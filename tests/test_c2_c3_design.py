"""The counted statistics of C2 (two-term fit where both terms weigh) and C3 (floor-subtracted
slope), each on synthetic data where the answer is known and the rule can fail."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis.dose_response import use_reading
from analysis.floor_slope import (NON_POSITIVE_VALUE, _joint_resample, floor_subtracted_slope,
                                  floor_subtracted_slope_paired, two_term_family,
                                  two_term_fit, two_term_share)
from analysis.slopes import sample_complexity_slope_paired
from claims import c3_epsilon
from claims.c2 import agnostic as c2_agnostic
from claims.c2 import two_term as c2_two_term
from claims.rules.outcomes import FAILS, HOLDS
from claims.rules.predictions import rate_verdict
from claims.rules.verdicts import counted

NS = np.unique(np.round(np.geomspace(2, 2**17, 34)))
EPS = (0.05, 0.1, 0.2, 0.5, 1.0, 10.0)


def _epsilon_sweep(A, B, trials=40, seed=0, alpha=0.05):
    """Every epsilon of an (n, trial) scores one sample (one shared noise draw z): the error is
    alpha * (n_true / n) * exp(z), n_true = A/epsilon + B, so n_hat is proportional to it."""
    rng = np.random.default_rng(seed)
    rows = []
    for n in NS:
        z = rng.normal(0.0, 0.3, trials)
        for e in EPS:
            err = alpha * ((A / e + B) / n) * np.exp(z)
            rows += [dict(n=n, trial=t, epsilon=e, error=err[t]) for t in range(trials)]
    return pd.DataFrame(rows)


def _family(A, B, alphas=(0.01, 0.02, 0.04, 0.08), trials=200, seed=2):
    """One population per alpha: n_true(alpha) = A/alpha^2 + B/alpha."""
    rng = np.random.default_rng(seed)
    rows = []
    for a in alphas:
        n_true = A / a**2 + B / a
        for n in NS:
            err = a * (n_true / n) * np.exp(rng.normal(0.0, 0.3, trials))
            rows += [dict(n=n, trial=t, alpha_target=a, error=v) for t, v in enumerate(err)]
    return pd.DataFrame(rows)


def test_floor_subtracted_slope_is_exact_under_the_model():
    eps = np.array([0.05, 0.1, 0.5, 1.0, 10.0])
    slope, flag = floor_subtracted_slope(eps, 30.0 / eps + 500.0, 4)
    assert not flag and slope == pytest.approx(-1.0, abs=1e-12)
    vals = 30.0 / eps + 500.0
    vals[3] = vals[4] - 1.0  # n_hat(1) below the floor
    assert floor_subtracted_slope(eps, vals, 4) == (NON_POSITIVE_VALUE, True)


def test_floor_subtracted_recovers_minus_one_where_the_plain_slope_does_not():
    df = _epsilon_sweep(A=100.0, B=100.0)
    with use_reading("fit"):
        fit = floor_subtracted_slope_paired(df, "epsilon", 0.05, 0.1, fit_max=1.0, n_boot=60)
        plain = sample_complexity_slope_paired(df[df.epsilon <= 1], "epsilon", 0.05, 0.1,
                                               n_boot=60)
    fit["n_uncensored"] = fit["n_points"]
    assert fit["x_floor"] == 10.0 and fit["fit_x"] == [0.05, 0.1, 0.2, 0.5, 1.0]
    assert fit["lo"] <= -1.0 <= fit["hi"], fit
    assert fit["non_positive_frac"] == 0.0
    assert rate_verdict(fit, c3_epsilon.RATE, c3_epsilon.ALTERNATIVE) == HOLDS
    assert plain["lo"] > -1.0  # the floor pulls the plain slope toward 0
    assert rate_verdict(plain, c3_epsilon.RATE, c3_epsilon.ALTERNATIVE) != HOLDS


def test_floor_subtracted_slope_does_not_hold_without_epsilon_dependence():
    df = _epsilon_sweep(A=0.0, B=300.0)
    with use_reading("fit"):
        fit = floor_subtracted_slope_paired(df, "epsilon", 0.05, 0.1, fit_max=1.0, n_boot=60)
    fit["n_uncensored"] = fit["n_points"]
    assert fit["non_positive_frac"] > 0.0
    assert not rate_verdict(fit, c3_epsilon.RATE, c3_epsilon.ALTERNATIVE).startswith(HOLDS)


def test_joint_resample_draws_one_index_per_shared_n():
    e = [np.arange(5.0), np.arange(7.0)]
    datasets = [(np.array([2.0, 4.0]), e), (np.array([2.0, 4.0]), [x + 100 for x in e])]
    ids = [[tuple(range(5)), tuple(range(7))]] * 2
    out = _joint_resample(datasets, ids)(np.random.default_rng(3))
    for a, b in zip(out[0], out[1]):
        np.testing.assert_array_equal(a + 100, b)


def test_two_term_fit_recovers_its_terms():
    a = np.array([0.01, 0.02, 0.04, 0.08])
    A, B = two_term_fit(a, 0.2 / a**2 + 4.0 / a)
    assert A == pytest.approx(0.2) and B == pytest.approx(4.0)
    assert two_term_share(0.0, 4.0, 0.01) == 0.0
    assert two_term_fit(a, 4.0 / a)[0] == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("A, B, expected", [(0.2, 4.0, HOLDS), (0.0, 20.0, FAILS)])
def test_two_term_rule(A, B, expected):
    with use_reading("fit"):
        res = two_term_family(_family(A, B), "alpha_target", 0.1, n_boot=60)
    v = c2_two_term.two_term_verdict(res["local"], res["misfit"])
    assert v.startswith(expected), (v, res["local"], res["misfit"])


def test_not_counted_rows():
    th = {"rate": 1.0, "O-shape": 1.13, "explicit": 2.04}  # epsilon 0.05, alpha 0.05..0.2
    fit = dict(slope=1.0, lo=0.7, hi=1.3, n_points=3)
    v = c2_agnostic._smooth_verdict(fit, th, np.array([2.0]))
    assert v.startswith("breakdown (") and not counted(v)
    assert not counted(c2_agnostic.PURE_NOTE) and not counted(c3_epsilon.PLAIN_NOTE)


def test_c3_reads_only_the_configured_alphas():
    nhat = pd.DataFrame({"alpha": [0.1, 0.2, 0.3]})
    np.testing.assert_allclose(c3_epsilon._alphas("c3_epsilon_d2", nhat), [0.1, 0.2])
    np.testing.assert_allclose(c3_epsilon._alphas("no_such_experiment", nhat),
                               [0.1, 0.2, 0.3])
