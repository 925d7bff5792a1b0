"""Logistic-regression baselines of the real-data figure (docs/model.md §7 (c)).

:class:`LogisticRegressionBaseline` (non-private) and :class:`DPLogisticRegression` (the
practitioner's pick: diffprivlib's objective-perturbation logistic regression with ALL examples
treated as private). Both standardise the features with statistics of the PUBLIC training
examples only (:func:`public_scaling`), so the scaling never touches private data. Re-exported
by :mod:`ppm.baselines` (configs name ``ppm.baselines.<class>``).
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context

from ppm.registry import configurable
from ppm.audit_spec import PrivacyAudit
from ppm.sklearn_checks import DP_ONE_LABEL, EMPTY_SAMPLE, FIT1D
from ppm.validation import (EPSILON, RANDOM_STATE, check_labelled_data, check_random_state)
from ppm.baselines.linear import LinearRule

# L-BFGS iterations of both logistic regressions (the optimiser's budget, not a privacy knob:
# objective perturbation is private for the exact minimiser of the perturbed objective).
_LOGISTIC_MAX_ITER = 1000


def public_scaling(X: np.ndarray, public: np.ndarray):
    """``(center, scale)`` from the PUBLIC rows of ``X`` only (docs/model.md §§3 and 8).

    Private rows are never read, so the scaling is free in privacy terms: changing any private
    example leaves it unchanged. Fewer than 2 public rows: ``center = 0``, ``scale = 1`` (no
    scaling). A zero (or non-finite) standard deviation becomes 1.
    """
    d = X.shape[1]
    X_pub = X[public]  # PUBLIC ROWS ONLY
    if X_pub.shape[0] < 2:
        return np.zeros(d), np.ones(d)
    center = X_pub.mean(axis=0)
    scale = X_pub.std(axis=0)
    scale[~(np.isfinite(scale) & (scale > 0))] = 1.0
    return center, scale


def _seed_from(random_state) -> int:
    """A deterministic integer seed (valid for ``np.random.RandomState``) from ``random_state``."""
    return int(check_random_state(random_state).integers(0, 2 ** 32 - 1))


class _ScaledLinearModel(LinearRule, ClassifierMixin, BaseEstimator):
    """Shared prediction of a linear rule fitted on publicly scaled features.

    ``coef_`` and ``intercept_`` are expressed in the ORIGINAL feature space:
    ``<w, (x - center_) / scale_> + b = <coef_, x> + intercept_`` with ``coef_ = w / scale_``
    and ``intercept_ = b - <coef_, center_>``.
    """

    def _set_rule(self, w, b, center, scale, n_features):
        self.center_ = center
        self.scale_ = scale
        self.coef_ = np.asarray(w, dtype=float) / scale
        self.intercept_ = float(b - self.coef_ @ center)
        self.n_features_in_ = n_features


@configurable("baseline", stable_name="ppm.baselines.LogisticRegressionBaseline")
class LogisticRegressionBaseline(_ScaledLinearModel):
    """Non-private logistic regression on all examples (docs/model.md §7, real-data figure).

    Features are standardised with the mean and standard deviation of the PUBLIC training
    examples only (:func:`public_scaling`; ``public=None`` means all examples are public),
    then scikit-learn's ``LogisticRegression(C=C)`` (L2 penalty, lbfgs) is fitted on every
    example, public and private. A sample with a single label (or no example) is fitted by the
    constant classifier of that label (0 for an empty sample), with ``model_ = None``.

    Parameters
    ----------
    C : float > 0
        Inverse L2 regularisation strength (scikit-learn's ``C``).
    random_state : None, int or Generator
        Validated; an integer seed derived from it is passed to scikit-learn (lbfgs itself is
        deterministic).

    Attributes
    ----------
    coef_ : (d,) array, intercept_ : float
        The rule ``1[<coef_, x> + intercept_ > 0]`` in the original feature space.
    center_, scale_ : (d,) arrays, the public-only scaling
    model_ : the fitted ``sklearn.linear_model.LogisticRegression`` (on scaled features) or None
    n_features_in_ : int
    """

    _parameter_constraints = {"C": EPSILON, "random_state": RANDOM_STATE}  # C: > 0, finite

    _expected_failed_checks = FIT1D | EMPTY_SAMPLE  # (ppm.sklearn_checks)

    def __init__(self, *, C=1.0, random_state=None):
        self.C = C
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=False)  # it fits a library estimator inside
    def fit(self, X, y, public=None):
        """Fit on all examples; the scaling uses the public ones only."""
        C = float(self.C)
        seed = _seed_from(self.random_state)
        self._check_names(X, reset=True)
        X, y, public = check_labelled_data(X, y, public, encode_y=self._encode_y)
        n, d = X.shape
        center, scale = public_scaling(X, public)
        n1 = int(y.sum())
        if n1 == 0 or n1 == n:
            self.model_ = None
            self._set_rule(np.zeros(d), 1.0 if n1 > 0 else -1.0, center, scale, d)
            return self
        from sklearn.linear_model import LogisticRegression

        self.model_ = LogisticRegression(C=C, max_iter=_LOGISTIC_MAX_ITER, random_state=seed)
        self.model_.fit((X - center) / scale, y)
        self._set_rule(self.model_.coef_[0], self.model_.intercept_[0], center, scale, d)
        return self


@configurable("baseline", stable_name="ppm.baselines.DPLogisticRegression")
class DPLogisticRegression(_ScaledLinearModel):
    """Fully private logistic regression, diffprivlib (docs/model.md §7 (c), "the practitioner's pick").

    ALL examples are treated as private (the public/private split is not exploited), except
    that the feature scaling uses the public examples only, which is free under the PPM
    privacy definition (docs/model.md §1: public examples are never protected):

    1. ``center_``, ``scale_`` from the PUBLIC examples only (:func:`public_scaling`);
    2. every scaled row is clipped to L2 norm ``<= data_norm``. ``data_norm`` is a fixed
       hyperparameter, never computed from the data (diffprivlib would otherwise compute it
       from the data and raise a ``PrivacyLeakWarning``);
    3. ``diffprivlib.models.LogisticRegression(epsilon=epsilon, data_norm=data_norm, C=C)``
       (objective perturbation, Chaudhuri-Monteleoni-Sarwate 2011), epsilon-DP with respect
       to replacing any one example ``(x, y)``, with a fresh ``BudgetAccountant`` per fit (the
       global default accountant is never touched).

    A sample with a single label cannot go through diffprivlib's ``fit`` (it refuses one
    class); answering with a constant would be a data-dependent branch that breaks privacy, so
    the SAME mechanism is run instead through diffprivlib's ``_logistic_regression_path`` with
    exactly the arguments its ``fit`` uses for a binary problem (``pos_class=1``); the test
    suite checks that both routes agree on two-label samples. An empty sample (no data at
    all) gives ``coef_ = 0``, ``intercept_ = 0`` (predict 0). Prediction does not clip (as
    diffprivlib's own ``predict``).

    Parameters
    ----------
    epsilon : float > 0
        Privacy parameter (also the ``epsilon`` column of the pipeline).
    data_norm : float > 0
        Clipping norm of the publicly scaled rows (fixed in advance).
    C : float > 0
        Inverse L2 regularisation strength.
    random_state : None, int or Generator
        An integer seed derived deterministically from it seeds diffprivlib's noise, so a
        fixed ``random_state`` reproduces the output exactly.

    Attributes
    ----------
    coef_ : (d,) array, intercept_ : float
        The rule ``1[<coef_, x> + intercept_ > 0]`` in the original feature space.
    center_, scale_ : (d,) arrays, the public-only scaling
    n_features_in_ : int

    Only the released rule is kept: diffprivlib's fitted model (its ``n_iter_``, ``classes_``
    and whether a model exists at all depend on the private sample) and the number of clipped
    rows (a count over private examples) are not stored.
    """

    _parameter_constraints = {"epsilon": EPSILON, "data_norm": EPSILON, "C": EPSILON,
                              "random_state": RANDOM_STATE}  # positive finite numbers

    # declared once (ppm.audit_spec): the released state, the checks failed by design, the audit
    _released = ("coef_", "intercept_")
    _expected_failed_checks = FIT1D | EMPTY_SAMPLE | DP_ONE_LABEL  # at its default epsilon 1

    @classmethod
    def _privacy_audits(cls):
        """None: a continuous output law (docs/privacy_audits.md)."""
        return (PrivacyAudit(
            kind="none", index=12, row=3, paper="BMN20 baseline (diffprivlib)",
            setting="continuous output law (no enumeration); a sampled audit has no power at "
                    "feasible run counts (noise 6x too small, 2,200 runs: epsilon_lb 0.67 < 1) "
                    "and costs ~50 ms per fit",
            neighbours="replace one private example (the public rows fix the scaling)",
            verdict="not audited", source="docs/privacy_audits.md"),)

    @classmethod
    def _temperature_cases(cls):
        """None: objective perturbation (diffprivlib) adds noise to the objective; it selects
        nothing with the exponential mechanism (ppm.audit_spec)."""
        return {}

    def __init__(self, *, epsilon=1.0, data_norm=3.0, C=1.0, random_state=None):
        self.epsilon = epsilon
        self.data_norm = data_norm
        self.C = C
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=False)  # it fits a library estimator inside
    def fit(self, X, y, public=None):
        """Fit treating every example as private; the scaling uses the public ones only."""
        epsilon, data_norm, C = float(self.epsilon), float(self.data_norm), float(self.C)
        seed = _seed_from(self.random_state)
        self._check_names(X, reset=True)
        X, y, public = check_labelled_data(X, y, public, encode_y=self._encode_y)
        n, d = X.shape
        center, scale = public_scaling(X, public)
        Z = (X - center) / scale
        norms = np.linalg.norm(Z, axis=1)
        too_long = norms > data_norm
        Z[too_long] *= (data_norm / norms[too_long])[:, None]
        if n == 0:
            self._set_rule(np.zeros(d), 0.0, center, scale, d)
            return self

        from diffprivlib.accountant import BudgetAccountant
        from diffprivlib.models import LogisticRegression
        from diffprivlib.models.logistic_regression import _logistic_regression_path

        with warnings.catch_warnings():
            # diffprivlib 0.6.6 passes `iprint` to scipy's L-BFGS-B, which newer SciPy
            # deprecates; third-party noise, not a property of this estimator.
            warnings.filterwarnings("ignore", message=r".*iprint", category=DeprecationWarning)
            if 0 < int(y.sum()) < n:
                model = LogisticRegression(
                    epsilon=epsilon, data_norm=data_norm, C=C, max_iter=_LOGISTIC_MAX_ITER,
                    random_state=seed, accountant=BudgetAccountant(),
                ).fit(Z, y)
                w, b = model.coef_[0], model.intercept_[0]
            else:
                # One label only: the same objective-perturbation mechanism (see docstring).
                coefs, _, _ = _logistic_regression_path(
                    np.ascontiguousarray(Z), y, epsilon=epsilon, data_norm=data_norm,
                    pos_class=1, Cs=[C], fit_intercept=True, max_iter=_LOGISTIC_MAX_ITER,
                    tol=1e-4, random_state=seed, check_input=False,
                )
                w, b = coefs[0, :-1], coefs[0, -1]
        self._set_rule(w, b, center, scale, d)
        return self
