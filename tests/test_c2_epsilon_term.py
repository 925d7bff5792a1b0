"""C2's epsilon term (analysis.epsilon_term, claims.c2.epsilon_term): the u + v/epsilon fit
recovers known terms, the growth rule holds on a 1/(epsilon alpha) truth and fails on a
1/(epsilon alpha^2) one, bad input is refused, and the row names its statistic and trials."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from analysis.aggregate import ERROR_COL
from analysis.bootstrap import shared_draws
from analysis.dose_response import use_reading
from analysis.epsilon_term import (_datasets, epsilon_term_fit,
                                   epsilon_term_growth, growth_slope, pair_coefficient)
from claims.c2 import agnostic as c2_agnostic, epsilon_term as et
from claims.rules.accounting import one_per_trial_set
from claims.rules.outcomes import FAILS, HOLDS
from claims.rules.verdicts import CHECK_PASSED, counted
from experiments.columns import ALPHA_TARGET, C, D, EPSILON, ERM, PPM, W_PUB

NS = np.unique(np.round(np.geomspace(8, 2**17, 30)))
EPS = (0.05, 0.1, 0.2, 1.0, 10.0)
ALPHAS = (0.01, 0.02, 0.04, 0.08)


def _sweep(u_of, v_of, trials=100, seed=0):
    """One population per alpha, PPM at every epsilon of EPS on the same samples: the error of
    (alpha, n, trial) is alpha * (n_true / n) * exp(z) with one noise draw z shared by every
    epsilon, n_true = u(alpha) + v(alpha)/epsilon, so n_hat is proportional to n_true."""
    rng = np.random.default_rng(seed)
    parts = []
    for a in ALPHAS:
        for n in NS:
            z = rng.normal(0.0, 0.3, trials)
            for e in EPS:
                n_true = u_of(a) + v_of(a) / e
                parts.append(pd.DataFrame({ALPHA_TARGET: a, EPSILON: e, "n": n,
                                           "trial": np.arange(trials),
                                           ERROR_COL: a * (n_true / n) * np.exp(z)}))
    return pd.concat(parts, ignore_index=True)


def test_fit_recovers_u_and_v_exactly_under_the_model():
    x = 1.0 / np.array(EPS)
    u, v = epsilon_term_fit(x, 300.0 + 40.0 * x)
    assert u == pytest.approx(300.0) and v == pytest.approx(40.0)
    assert pair_coefficient(x, 300.0 + 40.0 * x) == pytest.approx(40.0)
    # the pair reads the two smallest epsilons only: a change elsewhere does not move it
    n = 300.0 + 40.0 * x
    n[-1] *= 3
    assert pair_coefficient(x, n) == pytest.approx(40.0)
    assert epsilon_term_fit(x, n)[1] != pytest.approx(40.0)
    assert math.isnan(epsilon_term_fit([2.0, 2.0], [5.0, 6.0])[0])


def test_growth_slope_reads_the_power_of_one_over_alpha():
    a = np.array(ALPHAS)
    assert growth_slope(a, 3.0 / a) == pytest.approx(1.0)
    assert growth_slope(a, 3.0 / a**2) == pytest.approx(2.0)
    assert math.isnan(growth_slope(a, np.array([1.0, 2.0, -1.0, 4.0])))
    with pytest.raises(ValueError, match="one length"):
        growth_slope(a, [1.0, 2.0])


@pytest.mark.parametrize("v_of, expected", [(lambda a: 3.0 / a, HOLDS),
                                            (lambda a: 0.12 / a**2, FAILS)])
def test_rule_holds_on_one_over_epsilon_alpha_and_fails_on_its_square(v_of, expected):
    df = _sweep(lambda a: 0.2 / a**2, v_of)
    with use_reading("fit"):
        res = epsilon_term_growth(df, ALPHA_TARGET, EPSILON, 0.1, error_col=ERROR_COL,
                                  n_boot=60)
    predicted = et.predicted_range(res["alphas"], EPS, 0.1, 1)
    verdict, fit, which = et.growth_verdict(res, predicted)
    assert verdict.startswith(expected), (verdict, fit)
    assert which.startswith("v (")  # the model holds: no fallback to v2
    true = 1.0 if expected == HOLDS else 2.0
    assert res["lo"] <= true + 0.1 and true - 0.1 <= res["hi"]
    # v(alpha) is proportional to the truth: the ratio is one constant across alphas
    ratio = res["v"] / np.array([v_of(a) for a in res["alphas"]])
    np.testing.assert_allclose(ratio, ratio.mean(), rtol=0.15)
    assert np.all(res["v_lo"] > 0) and res["nonpositive_frac"] == 0.0


def test_model_check_switches_to_the_pair_reading():
    res = dict(slope=1.0, lo=0.9, hi=1.1, n_points=4, lack_of_fit="", nonpositive_frac=0.0,
               secondary=dict(slope=2.0, lo=1.9, hi=2.1),
               misfit=dict(slope=1.0, lo=0.8, hi=1.2))
    verdict, fit, which = et.growth_verdict(res, (1.0, 1.17))
    assert which.startswith("v2") and fit["slope"] == 2.0 and verdict.startswith(FAILS)
    res["misfit"] = dict(slope=0.1, lo=-0.2, hi=0.4)
    verdict, fit, which = et.growth_verdict(res, (1.0, 1.17))
    assert which.startswith("v (") and verdict == HOLDS
    res["nonpositive_frac"] = 0.2
    assert et.growth_verdict(res, (1.0, 1.17))[0].startswith("inconclusive")


def test_predicted_range_is_one_plus_the_log_factor():
    lo, hi = et.predicted_range(ALPHAS, EPS, 0.1, 1)
    assert lo == 1.0 and 1.05 < hi < 1.3
    with pytest.raises(ValueError, match="two alphas"):
        et.predicted_range([0.01], EPS, 0.1, 1)


def test_joint_resample_shares_draws_across_epsilon_not_across_alpha():
    df = _sweep(lambda a: 0.2 / a**2, lambda a: 3.0 / a, trials=50)
    df = df[df["n"].isin(NS[:2])]
    datasets, cells, keys = _datasets(df, ALPHA_TARGET, EPSILON, "n", ERROR_COL, "trial")
    assert len(cells) == len(ALPHAS) * len(EPS)
    # replace every cell's errors by its trial index: the draw itself becomes visible
    idx = [(ns, [np.arange(e.size, dtype=float) for e in errs]) for ns, errs in datasets]
    out = shared_draws(idx, keys)(np.random.default_rng(1))
    draws = {}
    for (_, a, _), drawn in zip(cells, out):
        draws.setdefault(a, []).append(drawn[0])
    for a, ds in draws.items():  # one draw for every epsilon of a population
        assert all(np.array_equal(ds[0], d) for d in ds), a
    firsts = [ds[0] for ds in draws.values()]  # populations drawn independently
    assert not any(np.array_equal(firsts[0], f) for f in firsts[1:])


@pytest.mark.parametrize("mutate, match", [
    (lambda d: d.drop(columns=[EPSILON]), "no column"),
    (lambda d: d.assign(**{EPSILON: -d[EPSILON]}), "positive finite epsilons"),
    (lambda d: d[d[EPSILON] == 0.1], "two epsilons"),
    (lambda d: d[d[ALPHA_TARGET] == 0.01], "two alphas"),
    (lambda d: pd.concat([d, d.iloc[:1]]), "more than one row"),
    (lambda d: d.assign(n=0), "positive sample sizes"),
])
def test_bad_input_is_refused_before_any_work(mutate, match):
    df = _sweep(lambda a: 0.2 / a**2, lambda a: 3.0 / a, trials=5)
    with pytest.raises(ValueError, match=match):
        epsilon_term_growth(mutate(df), ALPHA_TARGET, EPSILON, 0.1, error_col=ERROR_COL)
    with pytest.raises(ValueError, match="beta"):
        epsilon_term_growth(df, ALPHA_TARGET, EPSILON, 1.5, error_col=ERROR_COL)


class _Store:
    """A results store holding only the epsilon-term sweeps (synthetic trials)."""

    n_boot = 40

    def __init__(self, trials):
        self.trials = trials

    def load(self, exp):
        if exp not in et.EXPERIMENTS:
            return None
        big = exp == et.EXPERIMENTS[0]
        sel = self.trials[ALPHA_TARGET] >= 0.04 if big else self.trials[ALPHA_TARGET] < 0.04
        return self.trials[sel], pd.DataFrame({"beta": [0.1], "alpha": [0.04]})


def test_rows_name_their_statistic_and_their_own_trials():
    ppm = _sweep(lambda a: 0.2 / a**2, lambda a: 3.0 / a, trials=60).assign(learner=PPM)
    erm = ppm[ppm[EPSILON] == 1.0].drop(columns=[EPSILON]).assign(learner=ERM)
    trials = pd.concat([ppm, erm], ignore_index=True).assign(**{D: 1, W_PUB: 0.5, C: 4.0})
    with use_reading("fit"):
        rows = et.rows(_Store(trials))
    assert [r.statistic for r in rows] == [et.STATISTIC, et.CHECK_STATISTIC]
    main, check = rows
    assert main.trials == "c2_epsilon_term;c2_epsilon_term_small_alpha"
    assert counted(main.verdict) and main.verdict == HOLDS, main.measured
    assert check.verdict == CHECK_PASSED and not counted(check.verdict)
    assert one_per_trial_set(rows)[0].verdict == main.verdict  # alone on its trials
    assert set(et.EXPERIMENTS) <= set(c2_agnostic.CLAIM.experiments)
    assert set(et.EXPERIMENTS) <= set(c2_agnostic.CLAIM.committed)
