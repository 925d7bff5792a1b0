"""scikit-learn's check suite on the learners: the instances it runs on and the checks they fail.

A learner runs scikit-learn's checks (tests/test_sklearn_checks.py) on the instance(s) its class
declares: ``_check_params`` (parameters small enough for the checks' data; ``random_state=0``
is added where the class takes one) or, for a class checked in several variants,
``_check_variants`` (label -> parameters), always through :func:`ppm.for_sklearn_checks`. The
checks each variant fails by design, each with its reason (the learner's domain or a deliberate
choice, not a broken API), are declared on its class, ``_expected_failed_checks``, composed from
the named sets below (keyed by variant label for a class with ``_check_variants``);
:data:`EXPECTED_FAILED_CHECKS` (keyed by :func:`check_key`) is derived from those declarations
through the registry, and docs/usage.md's table is generated from them
(``claims.reporting.docs_blocks.learners_table``).
"""

from __future__ import annotations

from ppm._sklearn import for_sklearn_checks

__all__ = ["EXPECTED_FAILED_CHECKS",  # noqa: F822 - computed on first use (module __getattr__)
           "check_instances", "check_key", "expected_failed_checks", "for_sklearn_checks"]


def _fail(reason: str, *checks: str) -> dict[str, str]:
    return dict.fromkeys(checks, reason)


FIT1D = _fail("1-D X is read as n one-feature rows (the package's documented d = 1 input), not "
              "refused", "check_fit1d")
EMPTY_SAMPLE = _fail("an empty sample is a valid input: the output is data-independent "
                     "(documented and tested)", "check_estimators_empty_data_messages")
CONSTANT_RULE = _fail("a constant classifier (the public majority label): training accuracy is "
                      "the majority share", "check_classifiers_train")
DP_ONE_LABEL = _fail("epsilon-DP: on a one-label sample the mechanism still outputs the other "
                     "label with positive probability", "check_classifiers_one_label")
LINE_NO_MULTICLASS = _fail("thresholds on a line: X must have one feature (d = 1)",
                           "check_classifier_not_supporting_multiclass")
LINE_BELOW_BAR = _fail("one threshold on the first coordinate of the check's 2-D blobs is below "
                       "its accuracy bar", "check_classifiers_train")
_ONE_D_CHECKS = (
    "check_dict_unchanged", "check_dont_overwrite_parameters", "check_dtype_object",
    "check_estimator_sparse_array", "check_f_contiguous_array_estimator",
    "check_fit2d_1feature", "check_fit2d_1sample", "check_fit2d_predict1d",
    "check_methods_sample_order_invariance", "check_methods_subset_invariance",
    "check_n_features_in", "check_n_features_in_after_fitting")
ONE_D_INDEXED = _fail("d = 1 learner: the check indexes its one_d_array input as 2-D",
                      *_ONE_D_CHECKS)
SMALL_POOL = _fail(
    "thresholds on a line (d = 1) and a pool of ceil((3 + e) n_A / epsilon) examples",
    "check_classifier_data_not_an_array", "check_classifiers_classes", "check_estimators_dtypes",
    "check_estimators_fit_returns_self", "check_estimators_nan_inf",
    "check_estimators_overwrite_params", "check_n_features_in_after_fitting",
    "check_readonly_memmap_input")
# the checks that feed real-valued X (or labels a discrete domain cannot hold): every learner on a
# discrete domain fails them; on an integer grid, check_classifier_data_not_an_array passes
_REAL_X_CHECKS = (
    "check_classifier_data_not_an_array", *_ONE_D_CHECKS,
    "check_classifier_not_supporting_multiclass", "check_classifiers_classes",
    "check_classifiers_one_label", "check_classifiers_regression_target",
    "check_classifiers_train", "check_complex_data", "check_estimator_sparse_matrix",
    "check_estimator_sparse_tag", "check_estimators_dtypes",
    "check_estimators_empty_data_messages", "check_estimators_fit_returns_self",
    "check_estimators_nan_inf", "check_estimators_overwrite_params", "check_estimators_pickle",
    "check_fit_check_is_fitted", "check_fit_idempotent", "check_fit_score_takes_y",
    "check_pipeline_consistency", "check_positive_only_tag_during_fit",
    "check_readonly_memmap_input", "check_requires_y_none", "check_supervised_y_2d")
_GRID_X_CHECKS = tuple(c for c in _REAL_X_CHECKS if c != "check_classifier_data_not_an_array")
BINARY_CUBE = _fail("conjunctions of literals: X must be points of {0,1}^D", *_REAL_X_CHECKS)
GRID_PLANE = _fail("grid halfplanes: X must be integer points of {0..T}^2", *_GRID_X_CHECKS)
BIG_LINE = _fail("thresholds on {0..2^b - 1}: X must hold non-negative integers, one feature",
                 *_REAL_X_CHECKS)
GRID_BOXES = _fail("rectangles on {0..T-1}^d: X must hold integer points of the grid (2-D)",
                   *_GRID_X_CHECKS)


def _declared_failures(cls) -> dict:
    """``{check_key: {check: reason}}`` of ``cls``'s own ``_expected_failed_checks`` (keyed by
    variant label for a class with ``_check_variants``); refused when the class declares none."""
    own = cls.__dict__.get("_expected_failed_checks")
    if own is None:
        raise AttributeError(f"{cls.__module__}.{cls.__name__}: declare _expected_failed_checks "
                             f"(named sets of ppm.sklearn_checks; {{}} if it passes every check)")
    variants = getattr(cls, "_check_variants", None)
    if not variants:
        return {cls.__name__: dict(own)}
    if set(own) != set(variants):
        raise ValueError(f"{cls.__name__}._expected_failed_checks: one entry per variant "
                         f"{sorted(variants)}, got {sorted(own)}")
    return {f"{cls.__name__}|{label}": dict(own[label]) for label in variants}


def _expected_table() -> dict[str, dict[str, str]]:
    """:data:`EXPECTED_FAILED_CHECKS`, derived from the registry: every learner and baseline's
    declaration, in registration order."""
    from ppm.registry import registered
    return {key: fails for e in registered() if e.group in ("learner", "baseline")
            for key, fails in _declared_failures(e.cls).items()}


def __getattr__(name: str):
    """``EXPECTED_FAILED_CHECKS`` (``{check_key: {check: reason}}``), computed on first use from
    the classes' declarations (the learner modules import the named sets from here)."""
    if name == "EXPECTED_FAILED_CHECKS":
        return _expected_table()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def check_instances(cls) -> dict:
    """``{check_key: instance}``: the instance(s) of learner class ``cls`` that scikit-learn's
    check suite runs on (its ``_check_params`` or ``_check_variants``)."""
    seed = {"random_state": 0} if "random_state" in cls._get_param_names() else {}
    variants = getattr(cls, "_check_variants", None)
    if not variants:
        return {cls.__name__: cls(**seed, **getattr(cls, "_check_params", {}))}
    return {f"{cls.__name__}|{label}": cls(**seed, **params) for label, params in variants.items()}


def check_key(estimator) -> str:
    """The key of ``estimator`` (a check instance, or its :func:`for_sklearn_checks` copy) in
    :data:`EXPECTED_FAILED_CHECKS`: its class name, ``|<variant>`` for a class with variants."""
    cls = type(estimator)
    if cls.__qualname__.startswith("_checkable."):
        cls = cls.__mro__[1]
    variants = getattr(cls, "_check_variants", None)
    if not variants:
        return cls.__name__
    params = estimator.get_params(deep=False)
    match = [label for label, p in variants.items() if all(params[k] == v for k, v in p.items())]
    return f"{cls.__name__}|{match[0]}" if len(match) == 1 else cls.__name__


def expected_failed_checks(estimator) -> dict[str, str]:
    """The checks ``estimator`` fails by design, each with its reason (``{}`` if none)."""
    cls = type(estimator)
    if cls.__qualname__.startswith("_checkable."):
        cls = cls.__mro__[1]
    return _declared_failures(cls).get(check_key(estimator), {})
