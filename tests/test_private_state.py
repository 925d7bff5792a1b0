"""A fitted private learner exposes only what its mechanism released (no private state leaks).

For every private learner: fit on a sample and on its neighbour with one PRIVATE example's label
flipped, with the same seed. Every public fitted attribute (name ending in ``_``) other than the
released hypothesis must be identical on both samples, and when the released hypothesis is the
same the whole fitted state must be. A score, a score histogram, a training error or a count of
clipped private rows in the public state changes with the flipped label and fails this test.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ppm import PPMHalfspaceLearner
from ppm.baselines import DPLogisticRegression
from ppm.diagnostics import empirical_error, n_mistakes, score_histogram
from ppm.baselines.fully_private import GridExponentialMechanism
from ppm.baselines.semi_private import SemiPrivateHalfspaceLearner

# (factory, names of the released hypothesis attributes, dimension)
LEARNERS = {
    "ppm": (lambda s: PPMHalfspaceLearner(epsilon=1.0, random_state=s),
            ("hypothesis_", "W_", "b_"), 2),
    "ppm_d1": (lambda s: PPMHalfspaceLearner(epsilon=1.0, random_state=s),
               ("hypothesis_", "W_", "b_"), 1),
    "grid": (lambda s: GridExponentialMechanism(epsilon=1.0, T=16, low=-2.0, high=2.0,
                                                random_state=s),
             ("hypothesis_", "hypothesis_index_", "threshold_"), 1),
    "semi_private": (lambda s: SemiPrivateHalfspaceLearner(epsilon=1.0, random_state=s),
                     ("rule_",), 2),
    "semi_private_all": (lambda s: SemiPrivateHalfspaceLearner(epsilon=1.0, labels="all",
                                                               random_state=s), ("rule_",), 2),
    "dp_logistic": (lambda s: DPLogisticRegression(epsilon=1.0, random_state=s),
                    ("coef_", "intercept_"), 2),
}


def _equal(a, b) -> bool:
    """Deep equality of fitted attributes (arrays, dataclasses such as PublicHalfspaces)."""
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return type(a) is type(b) and all(
            _equal(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
    if isinstance(a, (tuple, list)):
        return (isinstance(b, (tuple, list)) and len(a) == len(b)
                and all(_equal(u, v) for u, v in zip(a, b)))
    return type(a) is type(b) and a == b


def _fitted_state(est) -> dict:
    return {k: v for k, v in vars(est).items() if k.endswith("_") and not k.startswith("_")}


def _leaks(make, released, X, y, y_flip, public, seed) -> list[str]:
    a = _fitted_state(make(seed).fit(X, y, public))
    b = _fitted_state(make(seed).fit(X, y_flip, public))
    assert a.keys() == b.keys()
    same_output = all(_equal(a[k], b[k]) for k in released)
    return [k for k in a if (same_output or k not in released) and not _equal(a[k], b[k])]


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(4, 14), name=st.sampled_from(sorted(LEARNERS)))
def test_flipping_a_private_label_changes_only_the_released_hypothesis(seed, n, name):
    make, released, d = LEARNERS[name]
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = rng.integers(0, 2, size=n)
    public = rng.random(n) < 0.5
    public[0], public[1] = True, False  # at least one of each
    i = int(rng.choice(np.flatnonzero(~public)))
    y_flip = y.copy()
    y_flip[i] = 1 - y_flip[i]
    assert _leaks(make, released, X, y, y_flip, public, seed) == []


def test_the_check_detects_a_leaking_attribute(monkeypatch):
    """The test above can fail: a learner that stores its training error is caught."""
    fit = PPMHalfspaceLearner.fit

    def leaky_fit(self, X, y, public):
        fit(self, X, y, public)
        self.train_error_ = empirical_error(self, X, y)
        return self

    monkeypatch.setattr(PPMHalfspaceLearner, "fit", leaky_fit)
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.3, 0.3], [2.0, 2.0]])
    public = np.array([True, True, True, False, False])
    y = np.array([0, 0, 0, 0, 1])
    y_flip = np.array([0, 0, 0, 1, 1])
    make, released, _ = LEARNERS["ppm"]
    assert _leaks(make, released, X, y, y_flip, public, 0) == ["train_error_"]


def test_diagnostics_recompute_what_the_learner_no_longer_stores():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(12, 2))
    y = rng.integers(0, 2, size=12)
    public = rng.random(12) < 0.5
    f = PPMHalfspaceLearner(epsilon=1.0, random_state=0).fit(X, y, public)
    for attr in ("score_", "score_counts_", "train_error_"):
        assert not hasattr(f, attr)
    brute = np.sum(f.predict(X) != y)
    assert n_mistakes(f, X, y) == brute and empirical_error(f, X, y) == brute / 12
    counts = score_histogram(f, X, y)
    assert counts.sum() == f.n_hypotheses_ and counts[brute] >= 1
    assert np.isnan(empirical_error(f, X[:0], y[:0]))
    with pytest.raises(TypeError, match="DPLogisticRegression"):
        score_histogram(DPLogisticRegression(random_state=0).fit(X, y, public), X, y)
