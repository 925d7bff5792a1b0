"""The rectangle learners (BNS15 Corollary 4.17): bad inputs, size refusals, the wrapper's paths,
any T. Their exact laws and privacy audits: tests/test_rectangles_audit.py."""

from __future__ import annotations

import math
from unittest import mock

import numpy as np
import pytest

import ppm.semi_supervised.rectangle_boost as rb
import ppm.semi_supervised.rectangles as R
from ppm.semi_supervised import GridRectangleMechanism, RectangleLabelBoostLearner
from ppm.semi_supervised.label_boost import min_labelled

LEARNERS = [GridRectangleMechanism, RectangleLabelBoostLearner]


def _box_sample(n, d, T, seed=0):
    """Points of {0..T-1}^d labelled by the box [T/4, 3T/4)^d."""
    X = np.random.default_rng(seed).integers(0, T, size=(n, d))
    return X, ((X >= T // 4) & (X < 3 * T // 4)).all(axis=1).astype(np.int64)


@pytest.mark.parametrize("cls", LEARNERS)
@pytest.mark.parametrize("X,match", [
    (np.array([[0.5], [1.0]]), "integer points"),
    (np.array([1, 2]), "2-D"),
    (np.array([[0], [16]]), "outside"),
    (np.array([[-1], [3]]), "outside"),
    (np.zeros((0, 2), dtype=np.int64), "at least one"),
    (np.array([[True], [False]]), "integer points"),
])
def test_bad_points_are_refused_in_one_line(cls, X, match):
    with pytest.raises(ValueError, match=match) as err:
        cls(T=16, random_state=0).fit(X, np.zeros(len(X), dtype=np.int64))
    assert "\n" not in str(err.value)


def test_unlabelled_points_must_share_the_dimension():
    X, y = _box_sample(10, 2, 16)
    with pytest.raises(ValueError, match="X_unlabelled has 1 features, expected 2"):
        RectangleLabelBoostLearner(T=16).fit(X, y, X_unlabelled=np.zeros((4, 1), np.int64))


def test_predict_checks_the_dimension_and_the_grid():
    X, y = _box_sample(10, 2, 16)
    est = GridRectangleMechanism(T=16, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="expected 2"):
        est.predict(X[:, :1])
    with pytest.raises(ValueError, match="outside"):
        est.predict(X + 16)


@pytest.mark.parametrize("n,d,refused", [(737, 2, True), (736, 2, False), (10**5, 2, True),
                                         (60, 3, True), (59, 3, False)])
def test_the_base_mechanism_refuses_sizes_beyond_max_work_before_work(n, d, refused):
    X, y = _box_sample(n, d, 64)
    est = GridRectangleMechanism(T=64, random_state=0)
    if refused:
        with mock.patch.object(R, "rectangle_em", side_effect=AssertionError("work started")):
            with pytest.raises(ValueError, match="max_work") as err:
                est.fit(X, y)
        assert "\n" not in str(err.value)
    else:
        assert R.worst_case_work(n, d) <= R.MAX_WORK


def test_the_wrapper_refuses_a_labelboost_round_beyond_max_work_before_work():
    d, m = 2, 60_000
    n_l = min_labelled(m, 0.1, 0.1, vc=2 * d)
    rounds, reached = rb.boost_schedule(n_l, m, 0.1, 0.1, vc=2 * d)
    assert reached and rounds  # the sizes of a real round at d = 2
    X = np.zeros((n_l, d), dtype=np.int64)
    U = np.zeros((rb.unlabelled_needed(rounds, n_l), d), dtype=np.int64)
    with mock.patch.object(rb, "label_boost_rectangles", side_effect=AssertionError("work")):
        with pytest.raises(ValueError, match="candidate boxes") as err:
            RectangleLabelBoostLearner(T=2**40, base_n=m, random_state=0).fit(
                X, np.zeros(n_l, np.int64), X_unlabelled=U)
    assert "\n" not in str(err.value)


def test_the_wrapper_fails_on_sizes_and_outputs_the_empty_rectangle():
    X, y = _box_sample(40, 1, 1024)
    est = RectangleLabelBoostLearner(T=1024, base_n=100, random_state=0).fit(X, y)
    assert est.failed_ and est.fail_reason_ == "labelled" and est.rectangle_ is None
    assert not est.predict(X).any()
    n_l = min_labelled(30_000, 0.1, 0.1, vc=2)  # enough labelled points, no unlabelled ones
    X, y = _box_sample(n_l, 1, 1024)
    est = RectangleLabelBoostLearner(T=1024, base_n=30_000, random_state=0).fit(X, y)
    assert est.failed_ and est.fail_reason_ == "unlabelled"


def test_without_rounds_the_wrapper_is_its_base_learner_on_the_same_draws():
    X, y = _box_sample(300, 2, 64, seed=1)
    est = RectangleLabelBoostLearner(T=64, base_n=200, random_state=5).fit(X, y)
    assert est.rounds_ == [] and not est.failed_
    base = GridRectangleMechanism(epsilon=1.0, T=64,
                                  random_state=np.random.default_rng(5)).fit(X, y)
    assert est.rectangle_ == base.rectangle_
    assert (est.predict(X) == base.predict(X)).all()


def test_a_forced_round_relabels_then_learns():
    X, y = _box_sample(30, 1, 2**20, seed=2)
    U, _ = _box_sample(400, 1, 2**20, seed=3)
    with mock.patch.object(rb, "boost_schedule", lambda *a, **k: ([(230, 200)], True)):
        est = RectangleLabelBoostLearner(T=2**20, base_n=200, random_state=0).fit(
            X, y, X_unlabelled=U)
    assert est.n_unlabelled_used_ == 200 and est.base_ is not None
    assert est.base_.rectangle_ == est.rectangle_


def test_the_base_mechanism_learns_a_box_and_is_seeded():
    X, y = _box_sample(400, 2, 2**12)
    a = GridRectangleMechanism(epsilon=1.0, T=2**12, random_state=3).fit(X, y)
    b = GridRectangleMechanism(epsilon=1.0, T=2**12, random_state=3).fit(X, y)
    assert a.rectangle_ == b.rectangle_
    Xt, yt = _box_sample(5000, 2, 2**12, seed=9)
    assert (a.predict(Xt) != yt).mean() < 0.1
    assert a.log_n_hypotheses_ == pytest.approx(math.log((2**12 * (2**12 + 1) // 2) ** 2 + 1))


@pytest.mark.parametrize("d", [1, 2])
def test_any_T_huge_coordinates_are_exact_python_ints(d):
    T = 2**300
    rng = np.random.default_rng(d)
    X = np.array([[int(v) * 2**250 for v in row] for row in rng.integers(0, 2**40, (60, d))],
                 dtype=object)
    y = np.array([int(all(2**280 <= v < 2**289 for v in row)) for row in X])
    est = GridRectangleMechanism(epsilon=1.0, T=T, random_state=0).fit(X, y)
    rect = est.rectangle_
    assert rect is None or all(0 <= a <= b < T and isinstance(a, int) for a, b in rect)
    assert est.predict(X).shape == (60,)
    _, _, h = rb.label_boost_rectangles(X[:30], y[:30], X[30:], np.random.default_rng(0))
    assert h is None or all(0 <= a <= b < T for a, b in h)


def test_the_d1_labelboost_reaches_the_wrappers_sizes():
    X, y = _box_sample(120_000, 1, 2**30)
    _, y_new, h = rb.label_boost_rectangles(X[:30_000], y[:30_000], X[30_000:],
                                            np.random.default_rng(0))
    assert (y_new != y).mean() < 0.01
