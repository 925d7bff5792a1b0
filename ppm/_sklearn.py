"""scikit-learn conventions shared by every learner: labels, tags, metadata routing, and the
copy scikit-learn's check suite can fit (:func:`for_sklearn_checks`; the instances it runs on
and the checks they fail by design: :mod:`ppm.sklearn_checks`).

Labels (the papers use 0/1; ``docs/usage.md`` for users):

* A sample labelled with 0 and 1 (bool, int or float) is used exactly as before: the internal
  labels are ``y.astype(int64)``, ``classes_ = [0, 1]`` (the label space, whatever labels the
  sample happens to carry, so ``classes_`` never depends on the private rows) and ``predict``
  returns the internal 0/1 labels, cast to ``y``'s dtype.
* Any other two labels (strings too) are mapped onto 0/1. A learner whose algorithm treats the
  two labels alike (both orientations of every rule are in its class) maps
  ``classes_[0] -> 0`` and ``classes_[1] -> 1`` (scikit-learn's order). A learner whose
  algorithm does not (BMN20's label-determined model: the public sub-population carries 0; a
  conjunction's positive label in KMMS19) takes the role from a parameter (``public_label``,
  ``pos_label``) and refuses, with a one-line ``ValueError`` naming the labels, to guess it.
  ``classes_`` is then read from ``y``: the label SET is treated as public knowledge (see
  ``docs/usage.md``).

Metadata routing: ``public`` is declared requested by default for ``fit``
(``__metadata_request__fit``), so ``Pipeline``, ``cross_val_score`` and ``GridSearchCV`` route a
``public=`` mask to the learner once ``sklearn.set_config(enable_metadata_routing=True)``,
without a ``set_fit_request(public=True)`` call (which still works).
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import _check_feature_names

from ppm.budget import accounted_fit
from ppm.registry import execution_params

__all__ = ["BinaryLabelsMixin", "decode_labels", "encode_labels", "for_sklearn_checks"]


def _label_list(labels) -> list:
    return [v.item() if hasattr(v, "item") else v for v in labels]


def _as_1d_labels(y, n: int, owner: str) -> np.ndarray:
    if y is None:
        raise ValueError(f"{owner} requires y to be passed, but the target y is None")
    y_arr = np.asarray(y)
    if y_arr.ndim == 2 and y_arr.shape[1] == 1 and y_arr.shape[0] == n:
        warnings.warn("A column-vector y was passed when a 1d array was expected; it is "
                      "raveled to shape (n_samples,)", DataConversionWarning, stacklevel=4)
        y_arr = y_arr.ravel()
    if y_arr.shape != (n,):
        raise ValueError(f"y must have shape ({n},) to match X, got {y_arr.shape}")
    if y_arr.dtype.kind == "c":
        raise ValueError("Complex data not supported: y is complex")
    if y_arr.dtype.kind == "f" and not np.all(np.isfinite(y_arr)):
        raise ValueError(f"y contains NaN or infinity: {y_arr[~np.isfinite(y_arr)][0]!r}")
    return y_arr


def _is_zero_one(y_arr: np.ndarray, labels: np.ndarray) -> bool:
    return y_arr.dtype.kind in "biuf" and bool(np.all(np.isin(labels, (0, 1))))


def encode_labels(y, n: int, *, owner: str, label=None, param: str | None = None,
                  code: int = 0, role: str = ""):
    """``(y01, classes, codes)``: int64 0/1 labels, ``classes_`` and ``codes`` (the label of
    internal 0 and of internal 1).

    ``param`` names the learner's role parameter (``None``: the algorithm treats both labels
    alike); ``label`` is its value, the label that plays internal label ``code``. With 0/1
    labels and ``label=None`` the encoding is the identity (``y.astype(int64)``).
    """
    y_arr = _as_1d_labels(y, n, owner)
    try:
        labels = np.unique(y_arr)
    except TypeError as exc:
        raise ValueError(f"{owner}: y mixes label types that cannot be compared: {exc}") from exc
    zero_one = _is_zero_one(y_arr, labels)
    if not zero_one and y_arr.size:
        kind = type_of_target(y_arr, input_name="y", raise_unknown=True)
        if kind == "continuous":
            bad = y_arr[y_arr != np.round(y_arr)][0].item()
            raise ValueError(f"Unknown label type: continuous. {owner} is a binary classifier; "
                             f"y must hold two class labels, got {bad!r}")
        if labels.size > 2:
            raise ValueError(f"Only binary classification is supported. {owner}: y has "
                             f"{labels.size} labels {_label_list(labels)[:10]}")
    if label is None and zero_one:
        codes = np.asarray([0, 1]).astype(y_arr.dtype)
        return y_arr.astype(np.int64), codes, codes
    if label is None:
        if param is not None:
            raise ValueError(
                f"{owner}: y must carry labels 0 and 1 unless {param} names {role}; got labels "
                f"{_label_list(labels)}: pass {param}=<one of them>")
        if labels.size < 2:
            raise ValueError(f"{owner}: y with labels other than 0 and 1 must carry both classes, "
                             f"got the single class {_label_list(labels)}")
        codes = labels
        return (y_arr == labels[1]).astype(np.int64), labels, codes
    # A role parameter is given: ``label`` plays internal ``code``.
    others = labels[labels != label] if labels.size else labels
    if others.size > 1:
        raise ValueError(f"{owner}: {param}={label!r} is not one of y's labels "
                         f"{_label_list(labels)}")
    if others.size == 1:
        other = others[0]
    elif zero_one and label in (0, 1):
        other = 1 - label
    else:
        raise ValueError(f"{owner}: y carries only the label {label!r} ({param}); with labels "
                         f"other than 0 and 1 both classes must occur in y")
    pair = [label, other] if code == 0 else [other, label]
    if y_arr.dtype.kind in "biuf":
        codes = np.asarray(pair).astype(y_arr.dtype)
    else:  # strings keep a width that fits both labels; objects stay objects
        codes = np.asarray(pair, dtype=object if y_arr.dtype.kind == "O" else None)
    y01 = (y_arr != label) if code == 0 else (y_arr == label)
    classes = np.unique(codes)
    return y01.astype(np.int64), classes, codes


def decode_labels(pred: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Internal 0/1 predictions -> original labels (``codes[pred]``); the identity for int64
    ``codes == [0, 1]`` (the experiments' labels: predictions unchanged, bit for bit)."""
    if codes.dtype == np.int64 and codes[0] == 0 and codes[1] == 1:
        return pred
    return codes[pred]


class BinaryLabelsMixin:
    """``classes_`` / label mapping and the tags of the package's binary classifiers.

    Subclasses call :meth:`_encode_y` in ``fit`` and :meth:`_decode_y` in ``predict``.
    ``_label_param`` names the role parameter (``None``: both labels alike) and
    ``_label_code`` the internal label it plays.

    Parameters: ``_parameter_constraints`` declares each one (scikit-learn's
    :mod:`sklearn.utils._param_validation`); :meth:`_validate_params`, the one validation entry
    point (``fit`` and the pipeline call it before any work), checks them with scikit-learn's
    ``BaseEstimator._validate_params`` and then the class's rules across parameters
    (:meth:`_check_cross_params`). ``_param_roles`` declares, once, the parameters that are not
    part of what the class computes (:data:`ppm.registry.ROLES`: ``execution``, ``console``,
    ``data``, ``encoding``); ``_execution_params``, which enter no seed or cache key, are
    derived from it.
    """

    _label_param: str | None = None
    _label_code: int = 0
    _label_role: str = ""
    _parameter_constraints: dict = {}
    _param_roles: dict = {}
    _execution_params: tuple = ()
    _data_params: tuple = ()
    _one_d_input = False  # True: a d = 1 learner, which also takes X as a 1-D array of points
    # the instance(s) scikit-learn's check suite runs on (ppm.sklearn_checks.check_instances)
    _check_params: dict = {}
    _check_variants: dict = {}
    # Every learner takes the public mask by keyword; routed by default (module docstring).
    __metadata_request__fit = {"public": True}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._execution_params = execution_params(cls)
        # read by the pipeline, which sets them from the population
        cls._data_params = tuple(p for p, role in cls._param_roles.items() if role == "data")
        # A private learner (one with an epsilon) reports each fit to an active
        # ppm.budget.BudgetAccountant: repeated fits on the same private rows compose.
        fit = cls.__dict__.get("fit")
        if (fit is not None and "epsilon" in cls._parameter_constraints
                and not getattr(fit, "__ppm_accounted__", False)):
            cls.fit = accounted_fit(fit)

    def _validate_params(self) -> None:
        """scikit-learn's check of ``_parameter_constraints`` (``InvalidParameterError``
        naming the first bad parameter), then :meth:`_check_cross_params`."""
        super()._validate_params()
        self._check_cross_params()

    def _check_cross_params(self) -> None:
        """Rules that no single parameter's constraint states (``a < b``): none by default."""

    def _encode_y(self, y, n: int) -> np.ndarray:
        param = self._label_param
        label = getattr(self, param) if param else None
        y01, classes, codes = encode_labels(y, n, owner=type(self).__name__, label=label,
                                            param=param, code=self._label_code,
                                            role=self._label_role)
        self.classes_ = classes
        self._label_codes_ = codes
        if param:
            setattr(self, f"{param}_", codes[self._label_code])
        return y01

    def _check_names(self, X, *, reset: bool) -> None:
        """``feature_names_in_`` from a DataFrame's columns (set in fit, checked in predict);
        column names are the schema, not data."""
        _check_feature_names(self, X, reset=reset)

    def _decode_y(self, pred) -> np.ndarray:
        codes = getattr(self, "_label_codes_", None)  # None: state set by hand, 0/1 labels
        return np.asarray(pred) if codes is None else decode_labels(np.asarray(pred), codes)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.sparse = False
        tags.input_tags.allow_nan = False
        tags.input_tags.one_d_array = self._one_d_input
        return tags


# -- scikit-learn's check suite ------------------------------------------------------------------
_N_CHECK_PUBLIC = 3


def _labels_1d(y, n):
    """``y`` as a 1-D array of ``n`` labels, or None when malformed (the learner reports it)."""
    if y is None:
        return None
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.ravel()
    return y if y.ndim == 1 and y.shape[0] == n and n > 0 else None


def _first_label(labels):
    v = np.sort(labels)[0]
    return v.item() if hasattr(v, "item") else v


class _CheckableClasses:
    """Namespace of the subclasses made by :func:`for_sklearn_checks` (one per learner class),
    so that pickle finds them as ``ppm._sklearn._checkable.<name>``."""


_checkable = _CheckableClasses()


def _checkable_class(cls):
    name = cls.__name__
    sub = getattr(_checkable, name, None)
    if sub is not None and sub.__mro__[1] is cls:
        return sub

    def fit(self, X, y, public=None, **kwargs):
        n = len(np.asarray(X)) if X is not None and np.ndim(np.asarray(X)) else 0
        y1 = _labels_1d(y, n)
        if public is None:
            public = np.zeros(n, dtype=bool)
            if y1 is not None:
                public[np.flatnonzero(y1 == _first_label(y1))[:_N_CHECK_PUBLIC]] = True
        param = self._label_param
        saved = getattr(self, param) if param else None
        if param and saved is None and y1 is not None and not (
                y1.dtype.kind in "biuf" and np.all(np.isin(y1, (0, 1)))):
            setattr(self, param, _first_label(y1))
        try:
            return cls.fit(self, X, y, public, **kwargs)
        finally:
            if param:
                setattr(self, param, saved)

    sub = type(name, (cls,), {"fit": fit, "__module__": __name__,
                              "__qualname__": f"_checkable.{name}", "__doc__": cls.__doc__})
    setattr(_checkable, name, sub)
    return sub


def for_sklearn_checks(estimator):
    """A copy of a ppm learner that scikit-learn's check suite can fit as ``fit(X, y)``.

    ``sklearn.utils.estimator_checks.check_estimator`` and ``parametrize_with_checks`` call
    ``fit(X, y)`` without the ``public`` mask that every ppm learner takes (and that
    ``PPMHalfspaceLearner`` requires). The copy (same class name and parameters; a subclass whose
    ``fit`` is the only difference) supplies, when ``public`` is not given, a deterministic
    mask: the first 3 rows carrying the sample's first label (sorted) are public, the others
    private (BMN20's label-determined model with a few public points, so ``|G|`` stays small).
    With labels other than 0/1 it also names that first label as the learner's role label
    (``public_label`` / ``pos_label``) when the parameter is unset, and restores the parameter
    after ``fit``. For the check suite only: the learners themselves never guess either
    (``docs/usage.md``).
    """
    if not isinstance(estimator, BinaryLabelsMixin):
        raise TypeError(f"for_sklearn_checks takes a ppm learner, got {type(estimator).__name__}")
    if type(estimator).__qualname__.startswith("_checkable."):
        return estimator
    return _checkable_class(type(estimator))(**estimator.get_params(deep=False))

