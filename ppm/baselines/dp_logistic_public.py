"""DP logistic regression that spends epsilon on the private rows only (real-data figure).

:class:`PublicAwareDPLogisticRegression` is the fair counterpart of
:class:`ppm.baselines.DPLogisticRegression` (which treats every row as private): it is given
what the PPM learner is given (docs/model.md §1), namely the public rows at no privacy cost.

Construction: the objective-perturbation algorithm of Chaudhuri, Monteleoni and Sarwate (2011,
"Differentially private empirical risk minimization", JMLR 12, Algorithm 2) with the public
rows' loss moved into the regularizer. Writing ``x`` for a row mapped as in :meth:`fit` (public
scaling, intercept coordinate, private rows clipped so that ``||x|| <= 1``), ``l(z) = log(1 +
exp(-z))`` (``|l'| <= 1``, ``0 < l'' <= c = 1/4``), ``s = 2y - 1`` and ``Lambda = 1 / (C n)``:

    f = argmin_f  (1/n) sum_{private i} l(s_i <f, x_i>)
                 + [ (1/n) sum_{public i} l(s_i <f, x_i>) + (Lambda/2) ||f||^2 ]
                 + (1/n) <b, f> + (Delta/2) ||f||^2,

with ``eps' = eps - 2 log(1 + c / (n Lambda))``; ``Delta = 0`` if ``eps' > 0``, else ``Delta = c
/ (n (exp(eps/4) - 1)) - Lambda`` and ``eps' = eps / 2``; ``b`` drawn with density
proportional to ``exp(-(eps'/2) ||b||)`` (norm Gamma(d + 1, 2/eps'), direction uniform).

**Privacy (which rows are protected, and why).** The output is epsilon-DP with respect to the
PRIVATE rows in the PPM sense (docs/model.md §1: for every fixed public sample, replacing one
private row by any ``(x, y)``); public rows get no protection, as in the PPM learner. The
bracket is a function of the public rows alone, convex and twice differentiable, so given the
public sample it is a fixed regularizer ``R(f)`` with ``R(f) - (Lambda/2)||f||^2`` convex: the
proof of CMS11's Theorem 9 goes through unchanged with ``R`` in place of ``Lambda N(f)``. (i)
The noise: ``b = -n grad[(1/n) sum_private l + R + (Delta/2)||.||^2](f)`` is a bijection of
``f`` (strict convexity), and replacing one private row changes it by at most ``2`` in norm
(``|l'| <= 1``, ``||x|| <= 1``), a density ratio ``<= exp(eps')``. (ii) The Jacobian: the
Hessian of ``n`` times the objective is ``A + E`` with ``A >= n (Lambda + Delta) I`` (the public
terms only add a positive semi-definite matrix) and ``E`` of rank at most 2 with eigenvalues
at most ``c`` in size, a determinant ratio ``<= (1 + c / (n (Lambda + Delta)))^2``, which the
choice of ``eps'`` and ``Delta`` keeps, with (i), within ``exp(eps)``. The public rows are never
clipped (their norm does not enter the argument); the scaling and the clipping norm are
functions of the public rows only. The guarantee is for the exact minimiser: the objective is
strongly convex and smooth in ``d + 1`` variables, minimised by Newton's method to a gradient
norm below ``1e-10`` (:func:`_minimise`); a fit that stops short raises instead of releasing.

This baseline has no exact privacy audit in this repository (its continuous output cannot be
enumerated like the PPM learner's finite class); an error in it could only make it look better
than a correct one, which favours it in the comparison.

**What is tuned, on what.** The public rows give the scaling (:func:`public_scaling`) and, with
``data_norm="public"``, the clipping norm (the largest norm of a scaled public row). ``C``
cannot be cross-validated on the public rows: in the label-determined model every public row
has label 0, so a held-out public fold scores only "predict 0"; ``C`` is a fixed parameter.
"""

from __future__ import annotations

import math

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import StrOptions

from ppm.baselines.linear import LinearRule
from ppm.baselines.logistic import public_scaling
from ppm.registry import configurable
from ppm.audit_spec import PrivacyAudit
from ppm.sklearn_checks import DP_ONE_LABEL, EMPTY_SAMPLE, FIT1D
from ppm.validation import EPSILON, RANDOM_STATE, check_labelled_data, check_random_state

C_LOGISTIC = 0.25  # the bound c on the logistic loss's second derivative (CMS11 Corollary 11)
GTOL = 1e-10  # Newton stops when the gradient norm of the (1/n-scaled) objective is below this
_MAX_NEWTON = 200


def _loss_parts(f, X, s):
    """Sum of ``l(s <f, x>)`` over the rows, its gradient and Hessian (stable forms)."""
    z = s * (X @ f)
    loss = float(np.logaddexp(0.0, -z).sum())
    p = np.exp(-np.logaddexp(0.0, z))  # sigmoid(-z) = -l'(z)
    grad = -(X.T @ (s * p))
    w = p * (1.0 - p)  # l''(z)
    hess = (X * w[:, None]).T @ X
    return loss, grad, hess


def _minimise(X, s, n, ridge, b):
    """The exact minimiser of ``(1/n) sum l + (ridge/2)||f||^2 + <b, f>/n`` (Newton, line search)."""
    k = X.shape[1]
    f = np.zeros(k)

    def value(f):
        return _loss_parts(f, X, s)[0] / n + 0.5 * ridge * f @ f + b @ f / n

    for _ in range(_MAX_NEWTON):
        loss, g, H = _loss_parts(f, X, s)
        g = g / n + ridge * f + b / n
        if np.linalg.norm(g) < GTOL:
            return f
        step = np.linalg.solve(H / n + ridge * np.eye(k), g)
        v0, t = loss / n + 0.5 * ridge * f @ f + b @ f / n, 1.0
        slack = 1e-12 * (1.0 + abs(v0))  # rounding: near the minimum the values tie
        while value(f - t * step) > v0 - 1e-4 * t * (g @ step) + slack and t > 1e-12:
            t *= 0.5
        f = f - t * step
    raise RuntimeError(f"objective perturbation: Newton did not reach gradient norm {GTOL:g} "
                       f"in {_MAX_NEWTON} steps; no rule released")


def noise_seed(random_state) -> int:
    """The integer seed of the noise's generator, derived deterministically from
    ``random_state``."""
    return int(check_random_state(random_state).integers(0, 2 ** 32 - 1))


def perturbation_parameters(epsilon: float, n: int, C: float) -> tuple[float, float]:
    """``(eps', Delta)`` of CMS11 Algorithm 2 for ``Lambda = 1/(C n)``, ``c = 1/4``."""
    lam = 1.0 / (C * n)
    eps_prime = epsilon - 2.0 * math.log1p(C_LOGISTIC / (n * lam))
    if eps_prime > 0:
        return eps_prime, 0.0
    return epsilon / 2.0, C_LOGISTIC / (n * math.expm1(epsilon / 4.0)) - lam


@configurable("baseline", stable_name="ppm.baselines.PublicAwareDPLogisticRegression")
class PublicAwareDPLogisticRegression(LinearRule, ClassifierMixin, BaseEstimator):
    """DP logistic regression protecting the private rows only (module docstring: the privacy).

    1. ``center_``, ``scale_`` from the PUBLIC rows only (:func:`public_scaling`);
    2. clipping norm ``data_norm_``: ``data_norm`` if a number, else (``"public"``) the largest
       L2 norm of a scaled PUBLIC row (1 if there is none);
    3. every row becomes ``x = [z / data_norm_, 1] / sqrt(2)`` (``z`` the scaled row), the
       PRIVATE rows' ``z`` clipped to norm ``data_norm_`` first, so ``||x|| <= 1`` for them;
    4. objective perturbation with the public rows' loss in the regularizer (module docstring),
       noise from ``random_state``.

    Parameters
    ----------
    epsilon : float > 0
        Privacy parameter for the private rows.
    C : float > 0
        Inverse L2 regularisation strength, as scikit-learn's (``Lambda = 1 / (C n)``).
    data_norm : float > 0 or "public"
        Clipping norm of the private scaled rows, or "public": from the public rows only.
    random_state : None, int or Generator

    Attributes
    ----------
    coef_ : (d,) array, intercept_ : float
        The rule ``1[<coef_, x> + intercept_ > 0]`` in the original feature space.
    center_, scale_ : (d,) arrays, the public-only scaling
    data_norm_ : float, the clipping norm used (a function of the public rows only)
    n_features_in_ : int
    """

    _parameter_constraints = {"epsilon": EPSILON, "C": EPSILON,
                              "data_norm": [*EPSILON, StrOptions({"public"})],
                              "random_state": RANDOM_STATE}

    # declared once (ppm.audit_spec): the released state, the checks failed by design, the audit
    _released = ("coef_", "intercept_")
    _expected_failed_checks = FIT1D | EMPTY_SAMPLE | DP_ONE_LABEL

    @classmethod
    def _privacy_audits(cls):
        """None: a continuous output law (docs/privacy_audits.md)."""
        return (PrivacyAudit(
            kind="none", index=13, row=4,
            paper="CMS11 objective perturbation, public rows in the regularizer",
            setting="continuous output law (no enumeration); the same objective perturbation as "
                    "DPLogisticRegression, whose sampled audit had no power at feasible run "
                    "counts; the privacy argument: ppm/baselines/dp_logistic_public.py",
            neighbours="replace one private row by any (x, y); public rows fixed (not protected)",
            verdict="not audited", source="docs/privacy_audits.md"),)

    @classmethod
    def _temperature_cases(cls):
        """None: objective perturbation (CMS11 Algorithm 2) adds a noise vector to the
        objective; it selects nothing with the exponential mechanism (ppm.audit_spec)."""
        return {}

    def __init__(self, *, epsilon=1.0, C=1.0, data_norm="public", random_state=None):
        self.epsilon = epsilon
        self.C = C
        self.data_norm = data_norm
        self.random_state = random_state

    def _set_rule(self, w, b, center, scale, n_features):
        """The rule ``<w, (x - center) / scale> + b`` in the original feature space."""
        self.center_, self.scale_ = center, scale
        self.coef_ = np.asarray(w, dtype=float) / scale
        self.intercept_ = float(b - self.coef_ @ center)
        self.n_features_in_ = n_features

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, public=None):
        """Fit; epsilon is spent on the private rows, the public rows are used freely."""
        epsilon, C = float(self.epsilon), float(self.C)
        rng = np.random.default_rng(noise_seed(self.random_state))
        self._check_names(X, reset=True)
        X, y, public = check_labelled_data(X, y, public, encode_y=self._encode_y)
        n, d = X.shape
        center, scale = public_scaling(X, public)
        Z = (X - center) / scale
        if self.data_norm == "public":
            pub_norms = np.linalg.norm(Z[public], axis=1)
            norm = float(pub_norms.max()) if pub_norms.size and pub_norms.max() > 0 else 1.0
        else:
            norm = float(self.data_norm)
        self.data_norm_ = norm
        if n == 0:
            self._set_rule(np.zeros(d), 0.0, center, scale, d)
            return self
        priv = ~public
        lengths = np.linalg.norm(Z[priv], axis=1)
        shrink = np.minimum(1.0, norm / np.where(lengths > 0, lengths, 1.0))
        Z[priv] *= shrink[:, None]  # PRIVATE rows clipped; public rows untouched
        A = np.hstack([Z / norm, np.ones((n, 1))]) / math.sqrt(2.0)
        eps_prime, delta = perturbation_parameters(epsilon, n, C)
        direction = rng.standard_normal(d + 1)
        direction /= np.linalg.norm(direction)
        b = rng.gamma(shape=d + 1, scale=2.0 / eps_prime) * direction
        f = _minimise(A, 2.0 * y - 1.0, n, 1.0 / (C * n) + delta, b)
        # back to the scaled space: <f, x> = <f[:d] / (norm sqrt 2), z> + f[d] / sqrt 2
        self._set_rule(f[:d] / (norm * math.sqrt(2.0)), f[d] / math.sqrt(2.0), center, scale, d)
        return self
