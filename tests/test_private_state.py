"""A fitted private learner exposes only what its mechanism released (no private state leaks).

For every private learner of the registry (a registered class with an ``epsilon``), on the
instance(s) its class declares for scikit-learn's checks (``ppm.sklearn_checks.check_instances``): fit
on a sample and on its neighbour with one PRIVATE example's label flipped, with the same seed.
Every public fitted attribute (name ending in ``_``) other than the released hypothesis must be
identical on both samples, and when the released hypothesis is the same the whole fitted state
must be. A score, a score histogram, a training error or a count of clipped private rows in the
public state changes with the flipped label and fails this test.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import BaseEstimator

from ppm import PPMHalfspaceLearner
from ppm.baselines import DPLogisticRegression
from ppm.diagnostics import empirical_error, n_mistakes, score_histogram
from ppm.audit_spec import missing_declarations, private_learners, released
from ppm.sklearn_checks import check_instances

PRIVATE = private_learners()
INSTANCES = {key: est for cls in PRIVATE for key, est in check_instances(cls).items()}

# The fitted attributes that ARE the mechanism's output (the released hypothesis and what the
# learner's analysis releases with it), declared on each class (``_released``, ppm.audit_spec);
# everything else must not move.
RELEASED = {cls.__name__: released(cls) for cls in PRIVATE}


def _make(key: str, seed: int):
    return INSTANCES[key].__class__(**{**INSTANCES[key].get_params(), "random_state": seed})


def _dimension(key: str) -> int:
    """2, or 1 for a learner on a line (it refuses two features in one line)."""
    try:
        _make(key, 0).fit(np.zeros((30, 2), dtype=int), np.arange(30) % 2,
                          np.arange(30) % 3 == 0)
    except ValueError:
        return 1
    return 2


DIMENSION = {key: _dimension(key) for key in INSTANCES}


def test_every_private_learner_of_the_registry_is_covered():
    assert not missing_declarations(), "\n".join(missing_declarations())
    assert all(RELEASED.values()) and len(PRIVATE) >= 10 and len(INSTANCES) >= len(PRIVATE)


def _equal(a, b) -> bool:
    """Deep equality of fitted attributes (arrays, dataclasses such as PublicHalfspaces)."""
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return type(a) is type(b) and all(
            _equal(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
    if isinstance(a, BaseEstimator):  # a fitted inner learner: its fitted state
        return type(a) is type(b) and _equal(_fitted_state(a), _fitted_state(b))
    if isinstance(a, dict):
        return (isinstance(b, dict) and a.keys() == b.keys()
                and all(_equal(a[k], b[k]) for k in a))
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


@pytest.mark.parametrize("key", sorted(INSTANCES))
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(24, 40))
def test_flipping_a_private_label_changes_only_the_released_hypothesis(key, seed, n):
    """On points of {0,1}^d, the one domain every learner takes (its grid, cube or line)."""
    released = RELEASED[key.split("|")[0]]
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, DIMENSION[key]))
    y = rng.integers(0, 2, size=n)
    public = rng.random(n) < 0.5
    public[0], public[1] = True, False  # at least one of each
    i = int(rng.choice(np.flatnonzero(~public)))
    y_flip = y.copy()
    y_flip[i] = 1 - y_flip[i]
    assert _leaks(lambda s: _make(key, s), released, X, y, y_flip, public, seed) == []


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
    make = lambda s: PPMHalfspaceLearner(epsilon=1.0, random_state=s)  # noqa: E731
    assert _leaks(make, PPMHalfspaceLearner._released, X, y, y_flip, public, 0) == [
        "train_error_"]


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
