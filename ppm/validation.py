"""Input validation shared by the whole package.

Every public entry point validates at the boundary and raises ``ValueError`` whose message
names the offending parameter and value, before any work starts.

Constructor parameters are declared once per class, as scikit-learn's ``_parameter_constraints``
(:mod:`sklearn.utils._param_validation`): estimators validate them with scikit-learn's
``BaseEstimator._validate_params`` (:class:`ppm._sklearn.BinaryLabelsMixin`, called by
scikit-learn's ``_fit_context`` around ``fit``), populations before their constructor's body
runs (:class:`ppm.populations.base.PopulationBase`). The error is scikit-learn's
``InvalidParameterError`` (a ``ValueError`` and a ``TypeError``): one line naming the
parameter, the class and the value. :class:`Number`, :class:`Satisfies` and
:data:`RANDOM_STATE` are the constraints scikit-learn's do not state.
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from pathlib import Path

import numpy as np
from scipy.sparse import issparse
from sklearn.utils._param_validation import (  # noqa: F401 (InvalidParameterError: re-export)
    Interval, InvalidParameterError, Options)


class Number(Interval):
    """scikit-learn's ``Interval`` that also refuses ``bool`` (an ``Integral`` to Python) and,
    unless ``finite=False``, an infinite float (``Interval(Real, 0, None)`` admits ``inf``)."""

    def __init__(self, type, left, right, *, closed, finite=True):
        super().__init__(type, left, right, closed=closed)
        self.finite = finite

    def is_satisfied_by(self, val):
        if isinstance(val, (bool, np.bool_)) or not super().is_satisfied_by(val):
            return False
        return not self.finite or self.type is Integral or math.isfinite(val)

    def __str__(self):
        text = super().__str__()
        return text.replace("a float", "a finite float", 1) if (
            self.finite and self.type is not Integral) else text


class Satisfies(Options):
    """A constraint given by a predicate and its description (``Options`` is one of the
    constraint types ``validate_parameter_constraints`` takes as given)."""

    def __init__(self, predicate, description: str, kind=None):
        super().__init__(object, set())
        self.predicate = predicate
        self.description = description
        self.kind = kind  # the config type of the values it admits (None: any)

    def is_satisfied_by(self, val):
        try:
            return bool(self.predicate(val))
        except Exception:  # a value the predicate cannot read does not satisfy it
            return False

    def __str__(self):
        return self.description


class Choice(Options):
    """scikit-learn's ``Options`` that refuses ``bool`` (``True == 1`` to Python)."""

    def is_satisfied_by(self, val):
        return not isinstance(val, (bool, np.bool_)) and super().is_satisfied_by(val)


# check_random_state's inputs: scikit-learn's "random_state" caps ints at 2^32 - 1, while the
# pipeline's per-trial seeds are 63-bit, and admits a RandomState, which is refused here.
RANDOM_STATE = [Number(Integral, 0, None, closed="left"), np.random.SeedSequence,
                np.random.Generator, None]
EPSILON = [Number(Real, 0, None, closed="neither")]  # a positive finite number
OPEN_UNIT = [Number(Real, 0, 1, closed="neither")]
CLOSED_UNIT = [Number(Real, 0, 1, closed="both")]


def check_epsilon(epsilon, name: str = "epsilon") -> float:
    """Privacy parameter: a finite real number > 0."""
    if isinstance(epsilon, bool) or not isinstance(epsilon, Real):
        raise ValueError(f"{name} must be a positive finite number, got {epsilon!r}")
    eps = float(epsilon)
    if not math.isfinite(eps) or eps <= 0:
        raise ValueError(f"{name} must be a positive finite number, got {epsilon!r}")
    return eps


def check_open_unit(value, name: str) -> float:
    """A number in the open interval (0, 1) (alpha, beta)."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ValueError(f"{name} must be a number in (0, 1), got {value!r}")
    v = float(value)
    if not (0.0 < v < 1.0):
        raise ValueError(f"{name} must be in (0, 1), got {value!r}")
    return v


def check_closed_unit(value, name: str) -> float:
    """A number in the closed interval [0, 1] (mixture weights, rates)."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")
    v = float(value)
    if not (0.0 <= v <= 1.0):
        raise ValueError(f"{name} must be in [0, 1], got {value!r}")
    return v


def check_positive_int(value, name: str, minimum: int = 1) -> int:
    """An integer >= ``minimum`` (dimension d, sample sizes, trial counts)."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if int(value) < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_random_state(random_state) -> np.random.Generator:
    """``None``, an int seed, a ``SeedSequence`` or a ``Generator`` -> ``Generator``."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None or isinstance(random_state, np.random.SeedSequence):
        return np.random.default_rng(random_state)
    if isinstance(random_state, Integral) and not isinstance(random_state, bool):
        if int(random_state) < 0:
            raise ValueError(f"random_state must be a non-negative integer, got {random_state!r}")
        return np.random.default_rng(int(random_state))
    raise ValueError(
        f"random_state must be None, a non-negative int, a SeedSequence or a Generator, "
        f"got {random_state!r}"
    )


def check_X(X, name: str = "X", n_features: int | None = None) -> np.ndarray:
    """A finite 2-D float array (a 1-D array is read as one feature per row)."""
    if issparse(X):
        raise TypeError(f"{name} is a sparse matrix: sparse input is not supported, pass a dense "
                        f"array (X.toarray())")
    try:
        raw = np.asarray(X)
        if raw.dtype.kind == "c":
            raise ValueError(f"Complex data not supported: {name} is complex")
        arr = np.asarray(raw, dtype=float)
    except (TypeError, ValueError) as exc:
        if "Complex data" in str(exc):
            raise
        raise TypeError(f"{name} must be a numeric array, got {type(X).__name__}: {exc}") from exc
    if arr.ndim == 1:
        if n_features is not None and n_features != 1:
            # a single row passed as X[0] would otherwise be read as len(X[0]) one-feature rows
            raise ValueError(
                f"{name} is 1-D with shape {arr.shape} but the estimator was fitted with "
                f"{n_features} features; Reshape your data: pass a 2-D array (one row: "
                f"X.reshape(1, -1))"
            )
        arr = arr.reshape(-1, 1)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_samples, n_features), got shape {arr.shape}")
    if arr.shape[1] < 1:
        raise ValueError(f"{name} must have at least one feature: 0 feature(s) (shape="
                         f"{arr.shape}) while a minimum of 1 is required.")
    if not np.all(np.isfinite(arr)):
        bad = np.argwhere(~np.isfinite(arr))[0]
        raise ValueError(
            f"{name} contains NaN or infinity (first at row {bad[0]}, column {bad[1]}: "
            f"{arr[bad[0], bad[1]]!r})"
        )
    if n_features is not None and arr.shape[1] != n_features:
        raise ValueError(
            f"{name} has {arr.shape[1]} features, but predict is expecting {n_features} "
            f"features as input (the estimator was fitted with {n_features})"
        )
    return arr


def check_labels(y, n: int) -> np.ndarray:
    """0/1 labels of ``n`` examples as int64 (bool accepted); the first bad label is named."""
    y_arr = np.asarray(y)
    if y_arr.shape != (n,):
        raise ValueError(f"y must have shape ({n},) to match X, got {y_arr.shape}")
    if y_arr.dtype.kind == "f" and not np.all(np.isfinite(y_arr)):
        raise ValueError("y contains NaN or infinity")
    if not np.all(np.isin(y_arr, (0, 1))):
        bad = y_arr[~np.isin(y_arr, (0, 1))][0]
        raise ValueError(f"y must contain only labels 0 and 1, got {bad.item()!r}")
    return y_arr.astype(np.int64)


def check_labelled_data(X, y, public=None, min_samples: int = 0, encode_y=None):
    """Validate a PPM sample ``(X, y, public)``.

    ``y`` must be 0/1, or ``encode_y(y, n)`` maps it to 0/1 (a learner's
    ``_encode_y``, :mod:`ppm._sklearn`); ``public`` a boolean mask (True = public example).
    ``public=None`` means every example is public (for non-private baselines).
    """
    X = check_X(X)
    n = X.shape[0]
    if n < min_samples:  # scikit-learn's convention: no fit on an empty sample
        raise ValueError(f"X has {n} samples (shape {X.shape}); fit needs at least "
                         f"{min_samples} example(s)")
    y_arr = check_labels(y, n) if encode_y is None else encode_y(y, n)
    if public is None:
        pub = np.ones(n, dtype=bool)
    else:
        pub = np.asarray(public)
        if pub.shape != (n,):
            raise ValueError(f"public must have shape ({n},) to match X, got {pub.shape}")
        if pub.dtype != bool:
            if not np.all(np.isin(pub, (0, 1))):
                raise ValueError("public must be a boolean mask (True = public example)")
            pub = pub.astype(bool)
    return X, y_arr, pub


def caller_stacklevel() -> int:
    """The ``stacklevel`` that points a warning issued by this function's caller at the first
    frame outside this package and scikit-learn's ``fit`` wrappers (``_fit_context``): the
    user's ``fit`` call, whatever wrappers (budget accounting, the check suite's copy) lie
    between."""
    import sys

    import sklearn.base

    inside = (str(Path(__file__).resolve().parent), str(Path(sklearn.base.__file__).resolve()))
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and str(Path(frame.f_code.co_filename).resolve()).startswith(
            inside):
        frame, level = frame.f_back, level + 1
    return level


class PublicNotRoutedWarning(UserWarning):
    """``fit`` got no ``public`` mask (in cross-validation: not routed to the learner)."""


def require_public(public, learner: str) -> None:
    """Refuse a fit without the ``public`` mask in one line. scikit-learn's ``cross_val_score``
    and ``GridSearchCV`` catch a failed fit and report only "All the k fits failed" with the
    traceback under it, so the same line is also issued once as a
    :class:`PublicNotRoutedWarning`, which prints above their report."""
    if public is not None:
        return
    import warnings

    msg = (f"{learner}.fit got no public mask (boolean, True = public example): pass "
           "fit(X, y, public=mask); in cross_val_score or GridSearchCV pass "
           "params={'public': mask} (docs/usage.md, 'route public')")
    warnings.warn(msg, PublicNotRoutedWarning, stacklevel=caller_stacklevel())
    raise ValueError(msg)


class NoPublicExamplesWarning(UserWarning):
    """A learner that builds its hypotheses from public examples was given none."""


def warn_if_no_public(public: np.ndarray, learner: str, consequence: str) -> None:
    """Warn (not raise) on an all-private sample: the learners stay defined on it (a sweep's
    smallest cells draw one now and then), but a user calling ``fit`` directly should know."""
    if not public.any():
        import warnings

        warnings.warn(f"{learner}.fit got {public.size} examples and none public "
                      f"(public is all False): {consequence}", NoPublicExamplesWarning,
                      stacklevel=caller_stacklevel())
