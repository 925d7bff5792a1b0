"""Claim C17 (BNS15 Corollary 4.17 at d = 1): its design constants and its verdicts on synthetic
trials whose n_hat is known (flat, or growing like the base learner's), not on the sweep."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from claims import c17_rectangles as C17
from claims.rules.verdicts import counted
from ppm.semi_supervised.label_boost import boost_schedule, min_labelled, unlabelled_needed
from ppm.semi_supervised.rectangle_boost import rectangle_base_size


class _Store:
    """The two methods of claims.base.ResultStore that analyse reads."""

    n_boot = 60

    def __init__(self, data):
        self.data = data

    def load(self, experiment):
        return self.data.get(experiment)


def _trials(learner, need_of_b, bs, ns, trials=40):
    """Errors 0 from n >= need_of_b(b) on, 1/2 below (the wrapper's Step 2b is such a step)."""
    rows = [dict(learner=learner, n=n, trial=t, excess_error=0.0 if n >= need_of_b(b) else 0.5,
                 **{"population.b": b, "learner.epsilon": 1.0, "population.d": 1,
                    "n_unlabelled": 20_000_000})
            for b in bs for n in ns for t in range(trials)]
    nhat = pd.DataFrame({"alpha": [0.05, 0.15], "beta": [0.1, 0.1]})
    return pd.DataFrame(rows), nhat


NS = [1000 * 1.5 ** k for k in range(12)]


def test_the_design_sizes_of_the_config():
    """m(b) above min_labelled at every b of the counted grid, and the unlabelled sample covers
    every cell's schedule (the numbers the config and the claim page state)."""
    assert min_labelled(10**6, 0.1, 0.1, vc=2) == C17.NEED == 26_856
    need = 0
    for b in (1024, 2048, 4096, 8192):
        m = rectangle_base_size(1 << b, 1, 0.1, 0.1)
        assert m > C17.NEED
        for n in (24576, 26000, 26856, 28000, 32000):
            rounds, ok = boost_schedule(n, m, 0.1, 0.1, vc=2)
            assert ok == (n >= C17.NEED)
            if ok:
                need = max(need, unlabelled_needed(rounds, n))
    assert need == 19_927_085 <= 20_000_000  # b = 8192, n = 26,856 (the config's comment)


def test_the_alternative_is_the_base_learners_ln_C_rate():
    bs = np.array([64, 256, 1024, 4096])
    # ln|C| = ln(T(T+1)/2 + 1) ~ (2b - 1) ln 2: its slope against log b, by numpy's fit
    y = np.log((2 * bs - 1) * math.log(2) + math.log(10))
    slope = np.polyfit(np.log(bs), y, 1)[0]
    assert C17.base_range(bs, 0.1) == pytest.approx((slope, 1.0), abs=1e-6)
    assert 0.95 < slope < 1.0


def test_a_flat_wrapper_holds_and_every_row_names_its_statistic_and_trials():
    bs = [1024, 2048, 4096, 8192]
    store = _Store({C17.WRAPPER_EXP: _trials(C17.WRAPPER, lambda b: 27_000, bs, NS),
                    C17.BASE_EXP: _trials(C17.BASE, lambda b: 16 * b, [64, 256, 1024, 4096],
                                          NS)})
    rows = C17.analyse(store)
    assert {r.extra for r in rows} == {"wrapper", "base learner alone"}
    for r in rows:
        assert r.statistic == C17.STAT_SLOPE and r.trials in (C17.WRAPPER_EXP, C17.BASE_EXP)
    wrap = [r for r in rows if r.extra == "wrapper"]
    assert wrap and wrap[0].verdict.endswith(": holds")
    base = [r for r in rows if r.extra == "base learner alone"]
    assert base and base[0].verdict.startswith("check (") and "passed" in base[0].verdict


def test_a_wrapper_growing_like_its_base_learner_does_not_hold():
    bs = [1024, 2048, 4096, 8192]
    store = _Store({C17.WRAPPER_EXP: _trials(C17.WRAPPER, lambda b: 4 * b, bs, NS + [1e5])})
    rows = C17.analyse(store)
    assert rows and "): does not hold" in rows[0].verdict


def test_a_flat_base_learner_fails_its_check_loudly():
    store = _Store({C17.BASE_EXP: _trials(C17.BASE, lambda b: 5000, [64, 256, 1024, 4096],
                                          NS)})
    rows = C17.analyse(store)
    assert rows and "FAILED" in rows[0].verdict


def _fixed(wrap_ok_of_b, base_ok_of_b, bs=(1024, 2048, 4096, 8192), trials=200, seed=0):
    """Fixed-n trials: success (excess error 0) with probability ok_of_b(b), else 0.1."""
    rng = np.random.default_rng(seed)
    rows = []
    for learner, ok in ((C17.WRAPPER, wrap_ok_of_b), (C17.BASE, base_ok_of_b)):
        for b in bs:
            for t in range(trials):
                rows.append({"learner": learner, "n": 26856, "trial": t, "population.b": b,
                             "population.eta": 0.1, "learner.epsilon": 1.0, "population.d": 1,
                             "excess_error": 0.0 if rng.random() < ok(b) else 0.1})
    nhat = pd.DataFrame({"alpha": [0.02, 0.06], "beta": [0.1, 0.1]})
    return pd.DataFrame(rows), nhat


def test_the_fixed_n_rows_hold_for_a_flat_wrapper_and_fail_for_a_falling_one():
    base = lambda b: 1.0 if b < 4096 else 0.0  # noqa: E731 (the foil crosses n inside the range)
    rows = C17.fixed_n_rows(_Store({C17.FIXED_N: _fixed(lambda b: 0.9, base)}))
    wrap = [r for r in rows if r.extra == "wrapper fixed n"]
    assert len(wrap) == 2 and all(r.verdict.startswith("holds") for r in wrap)
    assert all(r.statistic == C17.STAT_FIXED and r.trials == C17.FIXED_N for r in rows)
    assert all(r.verdict == "check: passed" for r in rows if r.extra == "base learner fixed n")
    rows = C17.fixed_n_rows(_Store({C17.FIXED_N: _fixed(base, base)}))
    assert all(r.verdict.startswith("does not hold") for r in rows if r.extra == "wrapper fixed n")


def test_the_fixed_n_rows_are_inconclusive_when_the_foil_does_not_fall():
    rows = C17.fixed_n_rows(_Store({C17.FIXED_N: _fixed(lambda b: 0.9, lambda b: 1.0)}))
    assert all(r.verdict.startswith("inconclusive")
               for r in rows if r.extra == "wrapper fixed n")


def test_the_noiseless_nhat_row_is_a_reference_not_evidence():
    bs = [1024, 2048, 4096, 8192]
    rows = C17.analyse(_Store({C17.WRAPPER_EXP: _trials(C17.WRAPPER, lambda b: 27_000, bs, NS)}))
    assert rows and not counted(rows[0].verdict) and rows[0].verdict.startswith("reference")
