"""Public-only preprocessing: statistics from the public rows, applied to every row.

A ``Pipeline(StandardScaler(), learner)`` fits the scaler's mean and scale on ALL rows,
private ones included, and releases them with the model: that is outside the learner's
epsilon guarantee. :class:`PublicStandardScaler` fits on the rows where ``public`` is True
only (the mask is routed to it like to the learners, ``docs/usage.md``), so changing any
private row leaves its statistics, and the scaled public rows, unchanged.

:func:`check_pipeline` warns (:class:`PrivacyWarning`) for every fitted step placed before a
private learner in a ``Pipeline`` that is neither public-only nor stateless.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils.validation import _check_feature_names, check_is_fitted

from ppm.validation import check_X
from ppm.baselines.logistic import public_scaling

__all__ = ["PrivacyWarning", "PublicStandardScaler", "check_pipeline"]


class PrivacyWarning(UserWarning):
    """A computation on private rows that the learner's epsilon guarantee does not cover."""


class PublicStandardScaler(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Standardise with the mean and standard deviation of the PUBLIC rows only.

    ``fit(X, y=None, public=mask)``: ``mean_`` and ``scale_`` from ``X[public]``
    (:func:`ppm.baselines.public_scaling`: fewer than 2 public rows give mean 0 and scale 1; a
    zero standard deviation becomes 1). ``transform`` applies them to every row. ``public``
    is required (no silent default) and requested by default for metadata routing.

    Attributes
    ----------
    mean_, scale_ : (d,) arrays, functions of the public rows only
    n_public_ : int, the number of public rows used
    n_features_in_ : int
    """

    __metadata_request__fit = {"public": True}
    _public_only = True  # check_pipeline: fitted on public rows only

    def __init__(self):
        pass

    def fit(self, X, y=None, public=None):
        if public is None:
            raise ValueError("PublicStandardScaler.fit needs public (boolean mask, True = public "
                             "row): its statistics come from the public rows only")
        _check_feature_names(self, X, reset=True)
        X = check_X(X)
        pub = np.asarray(public)
        if pub.shape != (X.shape[0],):
            raise ValueError(f"public must have shape ({X.shape[0]},) to match X, got "
                             f"{pub.shape}")
        pub = pub.astype(bool)
        self.mean_, self.scale_ = public_scaling(X, pub)
        self.n_public_ = int(pub.sum())
        self.n_features_in_ = X.shape[1]
        return self

    def transform(self, X):
        check_is_fitted(self, "mean_")
        _check_feature_names(self, X, reset=False)
        X = check_X(X, n_features=self.n_features_in_)
        return (X - self.mean_) / self.scale_

    def fit_transform(self, X, y=None, public=None):
        return self.fit(X, y, public=public).transform(X)


def _is_private_learner(est) -> bool:
    from ppm._sklearn import BinaryLabelsMixin

    return isinstance(est, BinaryLabelsMixin)


def _is_public_only(step) -> bool:
    if step is None or step == "passthrough" or getattr(step, "_public_only", False):
        return True
    try:
        from sklearn.utils import get_tags

        return not get_tags(step).requires_fit  # stateless: learns nothing from rows
    except Exception:  # pragma: no cover - third-party objects without tags
        return False


def check_pipeline(estimator) -> list[str]:
    """Warn (:class:`PrivacyWarning`) for each step fitted on all rows before a ppm learner.

    ``estimator``: a ``Pipeline``, or a search (``GridSearchCV``...) around one. Returns the
    names of the offending steps. A step is fine when it is public-only
    (:class:`PublicStandardScaler`), stateless (its tags say ``requires_fit=False``, e.g.
    ``FunctionTransformer``) or ``"passthrough"``.
    """
    from sklearn.pipeline import Pipeline

    inner = getattr(estimator, "estimator", estimator)
    if not isinstance(inner, Pipeline):
        return []
    bad = []
    for i, (name, step) in enumerate(inner.steps):
        if _is_private_learner(step):
            for prev_name, prev in inner.steps[:i]:
                if not _is_public_only(prev):
                    bad.append(prev_name)
                    warnings.warn(
                        f"pipeline step {prev_name!r} ({type(prev).__name__}) is fitted on all "
                        f"rows, private ones included, and its fitted state is released with "
                        f"the model outside the epsilon guarantee of {type(step).__name__}; use "
                        f"a public-only step (ppm.preprocessing.PublicStandardScaler)",
                        PrivacyWarning, stacklevel=2)
            break
    return bad
