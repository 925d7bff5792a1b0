"""The rectangle learners on BigPoints (d = 1) and C17's population (BNS15 Corollary 4.17).

The BigPoints path must be the Python-integer path, draw for draw with the same seed; the
population's true error must be exact (checked here against point-by-point counting, not the
route :meth:`BigGridInterval.true_error` takes)."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest

import ppm.semi_supervised.rectangle_boost as rb
from ppm.semi_supervised import (BigGridInterval, BigPoints, GridRectangleMechanism,
                                 NoisyBigGridInterval,
                                 RectangleLabelBoostLearner)
from ppm.semi_supervised.big_points import as_big_points


def _as_ints(P: BigPoints) -> np.ndarray:
    """The same points as a 2-D object array of Python ints (the other path)."""
    return np.array(P.to_ints(), dtype=object).reshape(-1, 1)


def _line_sample(n, T, seed):
    """Points of {0..T-1} (int64 for small T) labelled by [T/4, 3T/4)."""
    x = np.random.default_rng(seed).integers(0, T, size=n)
    return x.reshape(-1, 1), ((x >= T // 4) & (x < 3 * T // 4)).astype(np.int64)


@pytest.mark.parametrize("seed", range(6))
def test_the_base_mechanism_draws_the_same_on_bigpoints(seed):
    X, y = _line_sample(40, 50, seed)
    kw = dict(epsilon=1.0, T=50, random_state=seed)
    a = GridRectangleMechanism(**kw).fit(X, y)
    b = GridRectangleMechanism(**kw).fit(as_big_points(X), y)
    assert a.rectangle_ == b.rectangle_
    assert (a.predict(X) == b.predict(as_big_points(X))).all()


@pytest.mark.parametrize("seed", range(4))
def test_labelboost_draws_the_same_on_bigpoints(seed):
    X, y = _line_sample(60, 30, seed)
    P = as_big_points(X)
    _, ya, ha = rb.label_boost_rectangles(X[:20], y[:20], X[20:], np.random.default_rng(seed))
    _, yb, hb = rb.label_boost_rectangles(P[:20], y[:20], P[20:], np.random.default_rng(seed))
    assert ha == hb and (ya == yb).all()


@pytest.mark.parametrize("eps", [1.0, 0.5])
def test_a_forced_round_draws_the_same_on_bigpoints_at_a_huge_T(eps):
    pop = BigGridInterval(b=3000, support=4)
    X, y, _ = pop.sample(60, random_state=1)
    U, _, _ = pop.sample(4000, random_state=2)
    fits = []
    for xs, us in [(X, U), (_as_ints(X), _as_ints(U))]:
        with mock.patch.object(rb, "boost_schedule", lambda *a, **k: ([(300, 250)], True)):
            fits.append(RectangleLabelBoostLearner(epsilon=eps, b=3000, T=None, base_n=250,
                                                   random_state=7).fit(xs, y, X_unlabelled=us))
    a, b = fits
    assert a.rounds_ == b.rounds_ == [(300, 250)]
    assert a.rectangle_ == b.rectangle_ and a.rectangle_ is not None
    assert pop.true_error(a.predict) == pop.true_error(b.predict)


def test_the_wrappers_real_rounds_run_on_bigpoints_and_learn():
    pop = BigGridInterval(b=2048, support=4)
    n = 32_000  # above min_labelled = 26,856: one round (m = 56,815 at b = 2048)
    X, y, _ = pop.sample(n, random_state=3)
    U, _, _ = pop.sample(3_300_000, random_state=4)  # the schedule needs 3,240,439
    est = RectangleLabelBoostLearner(b=2048, T=None, random_state=0).fit(X, y, X_unlabelled=U)
    assert not est.failed_ and len(est.rounds_) >= 1
    assert est.base_.rectangle_ == est.rectangle_
    assert pop.true_error(est.predict)[0] == 0.0
    # the base learner alone on the same labelled points: its m is far beyond n
    assert est._m(1) > n


def test_the_domain_is_t_or_b_exactly_one():
    X, y = _line_sample(10, 16, 0)
    for kw in (dict(T=16, b=4), dict(T=None, b=None)):
        for cls in (GridRectangleMechanism, RectangleLabelBoostLearner):
            with pytest.raises(ValueError, match="exactly one") as err:
                cls(**kw).fit(X, y)
            assert "\n" not in str(err.value)
    a = GridRectangleMechanism(T=16, random_state=0).fit(X, y)
    b = GridRectangleMechanism(T=None, b=4, random_state=0).fit(X, y)
    assert a.rectangle_ == b.rectangle_


def test_bigpoints_outside_the_domain_are_refused_in_one_line():
    P = BigPoints(2**64 - 2, np.arange(4))
    with pytest.raises(ValueError, match="outside") as err:
        GridRectangleMechanism(T=None, b=64).fit(P, np.zeros(4, np.int64))
    assert "\n" not in str(err.value)


def test_the_population_is_exact_and_labels_its_interval():
    pop = BigGridInterval(b=4096, support=4, width_bits=32)
    lo, hi = pop.interval
    assert hi - lo + 1 == 2**32 and lo == 2**4095 - 2**31
    pts = pop.support_points().to_ints()
    assert len(pts) == 16 and pts == sorted(pts)
    inside = [int(lo <= v <= hi) for v in pts]
    assert inside == [0] * 4 + [1] * 8 + [0] * 4
    X, y, public = pop.sample(500, random_state=0)
    assert not public.any()
    assert list(y) == [int(lo <= v <= hi) for v in X.to_ints()]
    # an interval missing one support point at each end errs on 2 of the 16 points
    est = GridRectangleMechanism(T=None, b=4096).fit(X, y)
    est.rectangle_ = ((lo + 1, hi - 1),)
    assert pop.true_error(est.predict) == (2 / 16, 0.0)
    est.rectangle_ = ((lo, hi),)
    assert pop.true_error(est.predict) == (0.0, 0.0)
    est.rectangle_ = None
    assert pop.true_error(est.predict) == (0.5, 0.0)


@pytest.mark.parametrize("kw,match", [
    (dict(b=10, width_bits=10), "do not fit"),
    (dict(b=64, support=0), "support"),
    (dict(b=64, width_bits=1, support=2), "do not fit"),
    (dict(b=64, cut=1.5), "cut"),
])
def test_bad_population_parameters_are_refused_in_one_line(kw, match):
    with pytest.raises(ValueError, match=match) as err:
        BigGridInterval(**kw)
    assert "\n" not in str(err.value)


def test_the_population_is_registered_with_its_config():
    from ppm.registry import registered
    names = {c.name for c in registered("population")}
    assert "big_grid_interval" in names


def test_the_noisy_population_is_exact_and_spread_out():
    pop = NoisyBigGridInterval(b=1024, support=8, eta=0.1, spacing_bits=16)
    lo, hi = pop.interval
    pts = pop.support_points().to_ints()
    assert len(pts) == 32 and pts == sorted(pts)
    assert [int(lo <= v <= hi) for v in pts] == [0] * 8 + [1] * 16 + [0] * 8
    assert np.diff(pts[:16]).tolist() == [2**16] * 15 and pts[8] == lo and pts[23] == hi
    X, y, _ = pop.sample(200_000, random_state=0)
    truth = np.array([int(lo <= v <= hi) for v in X.to_ints()])
    assert abs((y != truth).mean() - 0.1) < 0.005  # labels flipped at rate eta
    est = GridRectangleMechanism(T=None, b=1024).fit(X[:10], y[:10])
    est.rectangle_ = ((lo, hi),)
    assert pop.true_error(est.predict) == (pytest.approx(0.1), 0.0)
    est.rectangle_ = ((pts[9], hi),)  # one inside point of the left end left out
    assert pop.true_error(est.predict)[0] == pytest.approx(0.1 + 0.8 / 32)
    with pytest.raises(ValueError, match="do not fit") as err:
        NoisyBigGridInterval(b=64, width_bits=16, spacing_bits=16)
    assert "\n" not in str(err.value)
