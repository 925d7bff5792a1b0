"""Every learner is a scikit-learn estimator: clone round-trips, get/set_params, keyword-only
parameters, one validation entry point, NotFittedError before fit, learned state with a
trailing underscore, and the pipeline's positional ``fit(X, y, public)``."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from ppm.budget import BudgetAccountant, BudgetExceededError
from ppm.registry import registered
from ppm.sklearn_checks import check_instances


def _case(cls):
    """``(cls, non-default parameters, a bad parameter)``: the parameters of the class's first
    check instance (ppm.sklearn_checks) that differ from its defaults, ``random_state`` 3 where it
    has one, and its first validated parameter set to a value no constraint accepts."""
    est = next(iter(check_instances(cls).values()))
    defaults = cls().get_params()
    params = {k: v for k, v in est.get_params().items() if k != "random_state" and v != defaults[k]}
    if "random_state" in defaults:
        params["random_state"] = 3
    bad = next(((p, object()) for p, c in cls._parameter_constraints.items()
                if p != "random_state" and c != "no_validation"), None)
    return cls, params, bad


# every registered estimator class (ppm.registry), on its check instance's parameters
LEARNERS = [_case(e.cls) for e in registered() if e.group != "population"]
IDS = [c.__name__ for c, _, _ in LEARNERS]


def _sample(n=30, seed=0, cls=None):
    """Points of {0,1}^d, the one domain every learner takes (its grid, cube or line): d = 2, or
    1 for a learner on a line (it refuses two features); labels and public mask at random, at
    least one public and one private example."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, size=n)
    public = rng.random(n) < 0.5
    public[0], public[1] = True, False
    X = rng.integers(0, 2, size=(n, 2))
    if cls is not None:
        try:
            cls(**_PARAMS[cls]).fit(X, y, public)
        except ValueError:
            X = X[:, :1]
    return X, y, public


_PARAMS = {cls: params for cls, params, _ in LEARNERS}


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
        est.fit(*_sample())


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


# -- hand-picked non-default values: set, cloned, read back, and used by the refit ---------------

PRIVATE = [(cls, params) for cls, params, _ in LEARNERS if "epsilon" in cls._parameter_constraints]


@pytest.mark.parametrize("cls,params", PRIVATE, ids=[c.__name__ for c, _ in PRIVATE])
def test_a_non_default_epsilon_survives_set_params_clone_and_refit(cls, params):
    """``epsilon=0.37`` (no learner's default) set after construction: the clone reads it back,
    its fit is charged 0.37 by an accountant (ppm.budget) and refused under a 0.36 budget, and
    it releases what the original releases on the same seed."""
    assert cls().get_params()["epsilon"] != 0.37
    est = cls(**params).set_params(epsilon=0.37)
    twin = clone(est)
    assert twin is not est and twin.get_params() == est.get_params()
    assert twin.get_params()["epsilon"] == 0.37 and twin.epsilon == 0.37
    X, y, public = _sample(n=80, cls=cls)
    with BudgetAccountant(epsilon=0.37) as acc:
        twin.fit(X, y, public)
    assert acc.history == [(cls.__name__, 0.37)]
    with BudgetAccountant(epsilon=0.36), pytest.raises(BudgetExceededError):
        clone(est).fit(X, y, public)
    if "random_state" in params:  # seeded (3): the same release
        assert np.array_equal(est.fit(X, y, public).predict(X), twin.predict(X))


WITH_C = [e.cls for e in registered() if "C" in getattr(e.cls, "_parameter_constraints", {})]


def _logistic_sample(n=60):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(n, 2))
    y = (X[:, 0] - 0.5 * X[:, 1] > 0).astype(np.int64)
    public = np.arange(n) % 2 == 0
    return X, y, public


@pytest.mark.parametrize("cls", WITH_C, ids=[c.__name__ for c in WITH_C])
def test_C_one_half_survives_clone_and_changes_the_fit(cls):
    """``C=0.5`` on each logistic regression (the registry's classes with a ``C``): kept by
    set_params, get_params and clone, and the clone's fit is the original's (same seed), not
    the fit at the default ``C=1``."""
    assert cls().C == 1.0
    base = {"random_state": 3} if "random_state" in cls().get_params() else {}
    est = cls(**base).set_params(C=0.5)
    twin = clone(est)
    assert twin.get_params() == est.get_params() and twin.get_params()["C"] == 0.5
    assert cls(**base).set_params(C=0.5).get_params() == {**cls().get_params(), **base, "C": 0.5}
    X, y, public = _logistic_sample()
    coef = est.fit(X, y, public).coef_
    assert np.array_equal(twin.fit(X, y, public).coef_, coef)
    assert not np.allclose(clone(est).set_params(C=1.0).fit(X, y, public).coef_, coef)


def test_the_dp_logistic_regression_keeps_its_hand_set_parameters():
    """The practitioner's pick with every parameter away from its default (as configured by
    hand): ``epsilon=2``, ``data_norm=2``, ``C=0.5``."""
    from ppm.baselines import DPLogisticRegression
    assert DPLogisticRegression in WITH_C
    params = dict(epsilon=2.0, data_norm=2.0, C=0.5, random_state=3)
    est = DPLogisticRegression(**params)
    assert all(est.get_params()[k] != v for k, v in DPLogisticRegression().get_params().items()
               if k in params)
    assert clone(est).get_params() == est.get_params() == {**est.get_params(), **params}
    X, y, public = _logistic_sample()
    assert np.array_equal(clone(est).fit(X, y, public).coef_, est.fit(X, y, public).coef_)
