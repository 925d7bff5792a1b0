"""Every learner is a scikit-learn estimator: clone round-trips, get/set_params, keyword-only
parameters, one validation entry point, NotFittedError before fit, learned state with a
trailing underscore, and the pipeline's positional ``fit(X, y, public)``."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from ppm import PPMHalfspaceLearner
from ppm.baselines import (DPLogisticRegression, ERMHalfspace, LogisticRegressionBaseline)
from ppm.baselines.fully_private import GridExponentialMechanism
from ppm.baselines.semi_private import SemiPrivateHalfspaceLearner
from ppm.registry import registered
from ppm.set_cover import DisjunctionLearner, GreedySetCover, GreedyTriangleCover, SetCoverLearner
from ppm.semi_supervised import (GapThresholdMechanism, GenericLearner, GridRectangleMechanism,
                                 LabelBoostLearner, PrivateActiveLearner,
                                 RectangleLabelBoostLearner)

# class -> (non-default parameters, a bad parameter the validation must name); LEARNERS is
# every registered estimator class (ppm.registry), with its entry here or ({}, None).
_CASES = {
    PPMHalfspaceLearner: (dict(epsilon=0.5, method="reference", block_elements=1024),
                          ("epsilon", -1.0)),
    ERMHalfspace: (dict(method="threshold"), ("method", "nope")),
    LogisticRegressionBaseline: (dict(C=0.5), ("C", 0.0)),
    DPLogisticRegression: (dict(epsilon=2.0, data_norm=2.0, C=0.5), ("data_norm", -1.0)),
    SemiPrivateHalfspaceLearner: (dict(epsilon=0.5, labels="all"), ("labels", "some")),
    GridExponentialMechanism: (dict(epsilon=0.5, T=16), ("T", 1)),
    SetCoverLearner: (dict(k=2, epsilon=0.5, composition="naive", alpha0=0.2), ("delta", 0.5)),
    DisjunctionLearner: (dict(k=2, epsilon=0.5, composition="naive"), ("hypotheses", "nope")),
    GreedyTriangleCover: (dict(T=2), ("max_triples", 0)),
    GenericLearner: (dict(epsilon=0.5, T=16, epsilon_split=0.5), ("epsilon_split", 1.5)),
    PrivateActiveLearner: (dict(epsilon=1.0, n_A=4, n_queries=2, T=16), ("n_queries", 4)),
    LabelBoostLearner: (dict(b=8, base_n=10), ("base_n", 0)),
    GapThresholdMechanism: (dict(epsilon=0.5, b=8), ("b", 0)),
    GridRectangleMechanism: (dict(epsilon=0.5, T=256), ("T", 1)),
    RectangleLabelBoostLearner: (dict(T=256, base_n=10), ("base_n", 0)),
}
LEARNERS = [(e.cls, *_CASES.get(e.cls, ({}, None))) for e in registered()
            if e.group != "population"]
# BNS15's thresholds on {0..2^b - 1} take integer points (BigPoints or int arrays).
INTEGER_POINTS = (LabelBoostLearner, GapThresholdMechanism, GridRectangleMechanism,
                  RectangleLabelBoostLearner)
IDS = [c.__name__ for c, _, _ in LEARNERS]


def _binary_sample(n=30, seed=0):
    """KMMS19's conjunction learners take points of {0,1}^D (label = x_0 AND NOT x_1)."""
    X = np.random.default_rng(seed).integers(0, 2, size=(n, 4))
    y = (X[:, 0] & (1 - X[:, 1])).astype(np.int64)
    return X, y, y == 0


def _grid_sample(n=30, seed=0):
    """Points of {0..2}^2 for the triangle cover (label: inside a corner triangle)."""
    X = np.random.default_rng(seed).integers(0, 3, size=(n, 2))
    y = (X.sum(axis=1) <= 1).astype(np.int64)
    return X, y, y == 0


_SAMPLES = {SetCoverLearner: _binary_sample, GreedySetCover: _binary_sample,
            DisjunctionLearner: _binary_sample, GreedyTriangleCover: _grid_sample}


def _sample(n=30, seed=0, cls=None):
    if cls in _SAMPLES:
        return _SAMPLES[cls](n, seed)
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.0, 1.0, size=(n, 1))
    if cls in INTEGER_POINTS:
        X = np.floor(X * 256).astype(np.int64)
        y = (X[:, 0] >= 128).astype(np.int64)
    else:
        y = (X[:, 0] > 0.5).astype(np.int64)
    public = y == 0  # label-determined: public iff label 0
    return X, y, public


@pytest.mark.parametrize("cls,params,bad", LEARNERS, ids=IDS)
def test_clone_and_params_round_trip(cls, params, bad):
    est = cls(**params)
    twin = clone(est)
    assert twin is not est and twin.get_params() == est.get_params()
    for key, value in params.items():
        assert twin.get_params()[key] == value
    defaults = cls().get_params()
    assert cls().set_params(**params).get_params() == {**defaults, **params}


@pytest.mark.parametrize("cls,params,bad", LEARNERS, ids=IDS)
def test_parameters_are_keyword_only_and_stored_unchanged(cls, params, bad):
    sig = inspect.signature(cls.__init__)
    assert all(p.kind == p.KEYWORD_ONLY for name, p in sig.parameters.items() if name != "self")
    if sig.parameters.keys() - {"self"}:
        with pytest.raises(TypeError):
            cls(1.0)
    est = cls(**params)
    assert all(getattr(est, k) is v for k, v in params.items())


@pytest.mark.parametrize("cls,params,bad", LEARNERS, ids=IDS)
def test_one_validation_entry_point_names_the_bad_value(cls, params, bad):
    assert cls(**params)._validate_params() is None
    if bad is None:
        return
    name, value = bad
    est = cls(**{**params, name: value})
    with pytest.raises(ValueError, match=name):
        est._validate_params()
    with pytest.raises(ValueError, match=name):  # fit validates before any work
        est.fit(*_sample(cls=cls))


@pytest.mark.parametrize("cls,params,bad", LEARNERS, ids=IDS)
def test_not_fitted_then_fitted_state_has_trailing_underscores(cls, params, bad):
    est = cls(**params)
    X, y, public = _sample(cls=cls)
    with pytest.raises(NotFittedError):
        est.predict(X)
    before = set(vars(est))
    est.set_params(random_state=0) if "random_state" in est.get_params() else None
    fitted = est.fit(X, y, public)  # the pipeline's positional call
    assert fitted is est
    learned = set(vars(est)) - before
    assert learned and all(a.endswith("_") for a in learned)
    assert est.predict(X).shape == (X.shape[0],)
    assert clone(est).get_params() == est.get_params()
    assert not hasattr(clone(est), "n_features_in_")  # clone drops the learned state
