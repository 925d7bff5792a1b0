"""Non-private baselines (docs/model.md §7).

- :class:`ERMHalfspace`: non-private empirical risk minimisation over halfspaces, the yardstick
  the PPM learner is compared with (Lemma 4.5: the learner's class ``G`` always contains a rule
  at least as good as this ERM on the sample). Exact for d = 1 (threshold scan), for realizable
  samples (LP feasibility) and for d = 2 (enumeration of lines through sample points);
  approximate (logistic regression) otherwise.
- :class:`PublicOnly`: uses the public examples only.
- :class:`LogisticRegressionBaseline` (non-private) and :class:`DPLogisticRegression` (docs/model.md §7
  (c), the practitioner's pick: diffprivlib's objective-perturbation logistic regression with
  ALL examples treated as private), the two logistic-regression baselines of the real-data
  figure. Both standardise the features with statistics of the PUBLIC training examples only
  (:func:`public_scaling`), so the scaling never touches private data.

All estimators follow scikit-learn conventions: parameters are only stored in ``__init__`` and
validated at the start of ``fit(X, y, public=None)``, which returns ``self``; learned state
lives in trailing-underscore attributes; ``predict(X)`` returns an int64 array of 0/1 labels.
``public`` is accepted everywhere (the PPM sample format) and ignored where irrelevant.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.optimize import linprog
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from sklearn.utils._param_validation import StrOptions

from ppm._sklearn import BinaryLabelsMixin
from ppm.registry import configurable
from ppm.sklearn_checks import CONSTANT_RULE, EMPTY_SAMPLE, FIT1D
from ppm.validation import RANDOM_STATE, check_labelled_data, check_X, warn_if_no_public

_ERM_METHODS = ("auto", "threshold", "lp", "enumerate", "logistic")
# "auto" enumerates exactly (O(n^2 log n)) for d = 2 up to this sample size.
ENUMERATE_MAX_N = 2000
# Two directions through a pivot count as the same line when |cross| <= tol * |a| |b|.
_COLLINEAR_RTOL = 1e-12


# ---------------------------------------------------------------------------------------------
# Exact one-dimensional threshold ERM (also used for the points on a line in the d = 2 sweep)
# ---------------------------------------------------------------------------------------------
def _best_threshold_1d(t: np.ndarray, y: np.ndarray):
    """Best rule ``1[t > tau]``, ``1[t < tau]`` or constant on labelled reals.

    Cuts are placed between consecutive distinct values (at the midpoint, so no point lies on
    the cut) or beyond the extremes; a cut beyond the extremes is a constant classifier.

    Returns ``(errors, kind, value)`` where ``kind`` is ``"const"`` (``value`` = the label) or
    ``"cut"`` (``value = (tau, direction)``, direction +1 for ``t > tau``, -1 for ``t < tau``).
    """
    values, inverse = np.unique(t, return_inverse=True)
    m = values.size
    c1 = np.bincount(inverse, weights=y, minlength=m)
    c0 = np.bincount(inverse, minlength=m) - c1
    cum0 = np.concatenate([[0.0], np.cumsum(c0)])  # label-0 count among the first j values
    cum1 = np.concatenate([[0.0], np.cumsum(c1)])
    tot0, tot1 = cum0[-1], cum1[-1]
    err_up = cum1 + (tot0 - cum0)    # 1 iff t > cut after j values
    err_down = cum0 + (tot1 - cum1)  # 1 iff t < cut after j values
    errs = np.concatenate([err_up, err_down])
    k = int(np.argmin(errs))
    err = int(round(errs[k]))
    direction, j = (1, k) if k <= m else (-1, k - (m + 1))
    if j == 0 or j == m:
        # Beyond the extremes: constant; "t > -inf" and "t < +inf" are all-ones.
        label = int((direction == 1) == (j == 0))
        return err, "const", label
    lo, hi = values[j - 1], values[j]
    return err, "cut", (lo + (hi - lo) / 2.0, direction)


# ---------------------------------------------------------------------------------------------
# Exact d = 2 ERM: angular sweep over lines through pairs of sample points
# ---------------------------------------------------------------------------------------------
def _enumerate_2d(X: np.ndarray, y: np.ndarray):
    """Exact ERM over halfplanes in R^2, ``O(n^2 log n)``.

    Every labelling realised by a halfplane is realised by a small perturbation of a line
    through two distinct sample points (translate the boundary until it meets a point, rotate
    about it until it meets another). A perturbation keeps the off-line labels and can give the
    points on the line any threshold pattern along the line, both directions. So the minimum
    over (line through two points) x (orientation) x (best 1-D threshold of the on-line points)
    together with the constant classifiers is the exact ERM.

    For each pivot ``p`` the other points are folded into the upper half-plane (direction
    ``beta`` in [0, pi), fold sign ``s``), sorted by angle and grouped into lines; the side of
    every off-line point then follows from prefix/suffix counts.

    Returns ``(errors, coef, intercept)``.
    """
    n = X.shape[0]
    n1 = int(y.sum())
    best_err = min(n1, n - n1)
    best = None  # (pivot, member indices, orientation sign, direction vector)

    for i in range(n):
        v = X - X[i]
        coinc = (v[:, 0] == 0) & (v[:, 1] == 0)  # the pivot and its duplicates
        idx = np.flatnonzero(~coinc)
        if idx.size == 0:
            continue
        vi = v[idx]
        flip = (vi[:, 1] < 0) | ((vi[:, 1] == 0) & (vi[:, 0] < 0))
        s = np.where(flip, -1, 1)
        u = vi * s[:, None]
        order = np.argsort(np.arctan2(u[:, 1], u[:, 0]), kind="stable")
        idx, u, s = idx[order], u[order], s[order]
        norms = np.hypot(u[:, 0], u[:, 1])
        cross = u[:-1, 0] * u[1:, 1] - u[:-1, 1] * u[1:, 0]
        new_line = np.abs(cross) > _COLLINEAR_RTOL * norms[:-1] * norms[1:]
        gid = np.concatenate([[0], np.cumsum(new_line)])
        n_lines = int(gid[-1]) + 1
        starts = np.concatenate([[0], np.flatnonzero(new_line) + 1])

        yi = y[idx]
        key = 2 * yi + (s > 0)  # (label, fold sign) in 0..3
        cnt = np.bincount(gid * 4 + key, minlength=4 * n_lines).reshape(n_lines, 4)
        before = np.cumsum(cnt, axis=0) - cnt
        after = cnt.sum(axis=0) - before - cnt
        # Line g: points of later lines are on the positive side iff s = +1, points of
        # earlier lines iff s = -1 (columns: 0 = (y0,s-), 1 = (y0,s+), 2 = (y1,s-), 3 = (y1,s+)).
        pos0 = after[:, 1] + before[:, 0]
        pos1 = after[:, 3] + before[:, 2]
        neg0 = after[:, 0] + before[:, 1]
        neg1 = after[:, 2] + before[:, 3]
        err_pos = pos0 + neg1  # positive side labelled 1
        err_neg = pos1 + neg0  # negative side labelled 1

        # On-line points: the pivot (with duplicates) at t = 0 and the line's members at
        # t = s |u|. With only two distinct positions every assignment is a threshold pattern.
        p1 = int(y[coinc].sum())
        p_min = min(p1, int(coinc.sum()) - p1)
        t = s * norms
        g1 = np.add.reduceat(yi, starts)
        g0 = np.add.reduceat(np.ones_like(yi), starts) - g1
        online = p_min + np.minimum(g0, g1)
        multi = np.flatnonzero(np.minimum.reduceat(t, starts) != np.maximum.reduceat(t, starts))
        for g in multi:
            sl = slice(starts[g], starts[g + 1] if g + 1 < n_lines else idx.size)
            t_line = np.concatenate([np.zeros(int(coinc.sum())), t[sl]])
            y_line = np.concatenate([y[coinc], yi[sl]])
            online[g] = _best_threshold_1d(t_line, y_line)[0]

        total = np.minimum(err_pos, err_neg) + online
        g = int(np.argmin(total))
        if total[g] < best_err:
            best_err = int(total[g])
            sl = slice(starts[g], starts[g + 1] if g + 1 < n_lines else idx.size)
            orient = 1.0 if err_pos[g] <= err_neg[g] else -1.0
            best = (i, idx[sl], orient, u[starts[g]] / norms[starts[g]])
            if best_err == 0:
                break

    if best is None:
        return best_err, np.zeros(2), (1.0 if 2 * n1 > n else -1.0)
    return best_err, *_realise_line(X, y, *best)


def _realise_line(X, y, pivot, members, orient, direction):
    """Turn (line, orientation, best on-line threshold) into an explicit ``(coef, intercept)``.

    The rule is ``<n_o, x - p> + delta (<d, x - p> - tau) + kappa > 0``: ``n_o`` the oriented
    normal, ``d`` the line direction; ``delta`` (rotation) or ``kappa`` (shift) is small enough
    that no off-line point changes side, and gives the on-line points the chosen pattern.
    """
    p = X[pivot]
    V = X - p
    d = direction
    normal = orient * np.array([-d[1], d[0]])
    side = V @ normal
    along = V @ d
    on = np.zeros(X.shape[0], dtype=bool)
    on[members] = True
    on |= (V[:, 0] == 0) & (V[:, 1] == 0)
    m_min = float(np.min(np.abs(side[~on]))) if np.any(~on) else 1.0
    _, kind, value = _best_threshold_1d(along[on], y[on])
    if kind == "const":
        delta, tau, kappa = 0.0, 0.0, (m_min / 2.0 if value == 1 else -m_min / 2.0)
    else:
        tau, direction_sign = value
        scale = float(np.max(np.abs(along))) + abs(tau)
        delta, kappa = direction_sign * m_min / (4.0 * scale), 0.0
    coef = normal + delta * d
    intercept = float(-coef @ p - delta * tau + kappa)
    return coef, intercept


# ---------------------------------------------------------------------------------------------
# Estimators
# ---------------------------------------------------------------------------------------------
class LinearRule(BinaryLabelsMixin):
    """Prediction of a fitted halfspace rule ``1[<coef_, x> + intercept_ > 0]`` (internal label
    1 is ``classes_[1]``)."""

    def decision_function(self, X):
        """``<coef_, x> + intercept_`` (predict ``classes_[1]`` iff > 0)."""
        check_is_fitted(self, "coef_")
        self._check_names(X, reset=False)
        X = check_X(X, n_features=self.n_features_in_)
        return X @ self.coef_ + self.intercept_

    def _predict01(self, X):
        return (self.decision_function(X) > 0).astype(np.int64)

    def predict(self, X):
        """Labels in ``classes_`` (int64 0/1 for a 0/1-labelled sample), shape (n,)."""
        return self._decode_y(self._predict01(X))


@configurable("baseline", stable_name="ppm.baselines.ERMHalfspace")
class ERMHalfspace(LinearRule, ClassifierMixin, BaseEstimator):
    """Non-private ERM over halfspaces (docs/model.md §7, "Non-private ERM halfspace").

    The class is every ``x -> 1[<coef_, x> + intercept_ > 0]`` (both orientations, since the
    sign of ``coef_`` is free) together with the two constant classifiers (``coef_ = 0``,
    ``intercept_ = +1`` or ``-1``).

    Parameters
    ----------
    method : {"auto", "threshold", "lp", "enumerate", "logistic"}
        - ``"threshold"`` (d = 1, exact): sort and try every cut between consecutive distinct
          values and beyond the extremes, both orientations; cuts at midpoints.
        - ``"lp"`` (realizable, exact): LP feasibility ``s_i (<w, x_i> + c) >= 1`` with
          ``s_i = 2 y_i - 1`` (``scipy.optimize.linprog``, HiGHS) on standardised features. If
          infeasible, fall back as ``"auto"`` does.
        - ``"enumerate"`` (d = 2, exact): every line through two sample points, both
          orientations, best assignment of the on-line points realised by a small perturbation;
          ``O(n^2 log n)`` angular sweep. The realised training error is checked against the
          computed minimum (a ``RuntimeWarning`` if rounding broke it).
        - ``"logistic"`` (APPROXIMATE): scikit-learn ``LogisticRegression`` with ``C = 1e6``
          (almost unregularised) on standardised features; the better of it and the two
          constants on the training sample. Not guaranteed to minimise the 0-1 loss.
        - ``"auto"``: d = 1 -> threshold; otherwise lp; if the sample is not separable ->
          enumerate when d = 2 and n <= 2000, else logistic.
        A sample with a single label is fitted exactly by a constant classifier and reported
        as ``method_ = "constant"``. An empty sample is refused (``ValueError``, the one-line
        message of ``PPMHalfspaceLearner``): there is no empirical risk to minimise.
    random_state : None, int or Generator
        Validated for API uniformity; every method is deterministic.

    Attributes
    ----------
    coef_ : (d,) array, intercept_ : float
    method_ : str, the method actually used
    n_train_errors_ : int, realised number of misclassified training examples
    n_features_in_ : int
    """

    _parameter_constraints = {"method": [StrOptions(set(_ERM_METHODS))],
                              "random_state": RANDOM_STATE}

    _expected_failed_checks = FIT1D  # (ppm.sklearn_checks)

    def __init__(self, *, method="auto", random_state=None):
        self.method = method
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, public=None):
        """Fit on all examples; ``public`` is accepted and ignored (non-private baseline)."""
        self._check_names(X, reset=True)
        X, y, _ = check_labelled_data(X, y, public, min_samples=1, encode_y=self._encode_y)
        n, d = X.shape
        if self.method == "threshold" and d != 1:
            raise ValueError(f"method='threshold' needs d = 1, got X with d = {d}")
        if self.method == "enumerate" and d != 2:
            raise ValueError(f"method='enumerate' needs d = 2, got X with d = {d}")
        self.n_features_in_ = d

        n1 = int(y.sum())
        if n1 == 0 or n1 == n:
            coef, intercept, method, target = np.zeros(d), (1.0 if n1 > 0 else -1.0), "constant", 0
        else:
            coef, intercept, method, target = self._fit_nonconstant(X, y)
        self.coef_ = np.asarray(coef, dtype=float)
        self.intercept_ = float(intercept)
        self.method_ = method
        self.n_train_errors_ = int(np.sum(self._predict01(X) != y))
        if target is not None and self.n_train_errors_ != target:
            warnings.warn(
                f"ERMHalfspace({method}): the realised classifier makes {self.n_train_errors_} "
                f"training errors but the computed minimum is {target} (floating-point rounding)",
                RuntimeWarning, stacklevel=2,
            )
        return self

    def _fit_nonconstant(self, X, y):
        """Returns ``(coef, intercept, method_used, computed_min_errors or None)``."""
        n, d = X.shape
        method = self.method
        if method == "auto" and d == 1:
            method = "threshold"
        if method == "auto":
            method = "lp"
        if method == "lp":
            sol = _lp_separator(X, y)
            if sol is not None:
                return (*sol, "lp", 0)
            method = ("threshold" if d == 1 else
                      "enumerate" if d == 2 and n <= ENUMERATE_MAX_N else "logistic")
        if method == "threshold":
            err, kind, value = _best_threshold_1d(X[:, 0], y)
            if kind == "const":
                return np.zeros(1), (1.0 if value == 1 else -1.0), "threshold", err
            tau, direction = value
            return np.array([float(direction)]), -direction * tau, "threshold", err
        if method == "enumerate":
            err, coef, intercept = _enumerate_2d(X, y)
            return coef, intercept, "enumerate", err
        coef, intercept = _logistic(X, y)
        return coef, intercept, "logistic", None

def _lp_separator(X, y):
    """A strict separator ``(coef, intercept)`` via LP feasibility, or None if infeasible.

    Features are standardised first (conditioning; the map back is exact up to rounding), and
    the solution is accepted only if it really separates the training sample.
    """
    n, d = X.shape
    center = X.mean(axis=0)
    scale = X.std(axis=0)
    scale[scale == 0] = 1.0
    Z = (X - center) / scale
    s = 2.0 * y - 1.0
    # Variables (w, c): -s_i (<w, z_i> + c) <= -1.
    A = -s[:, None] * np.hstack([Z, np.ones((n, 1))])
    res = linprog(np.zeros(d + 1), A_ub=A, b_ub=-np.ones(n), bounds=[(None, None)] * (d + 1),
                  method="highs")
    if res.status != 0:
        return None
    w = res.x[:d] / scale
    c = float(res.x[d] - w @ center)
    if np.any(((X @ w + c) > 0).astype(np.int64) != y):
        return None
    return w, c


def _logistic(X, y):
    """Approximate ERM: nearly unregularised logistic regression, or a constant if better."""
    from sklearn.linear_model import LogisticRegression

    center = X.mean(axis=0)
    scale = X.std(axis=0)
    scale[scale == 0] = 1.0
    with warnings.catch_warnings():
        # Separable or nearly separable data make the logistic optimum diverge; the direction
        # found is still what we want.
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = LogisticRegression(C=1e6, max_iter=10000).fit((X - center) / scale, y)
    w = clf.coef_[0] / scale
    c = float(clf.intercept_[0] - w @ center)
    err = int(np.sum(((X @ w + c) > 0).astype(np.int64) != y))
    n1 = int(y.sum())
    if min(n1, y.size - n1) < err:
        return np.zeros(X.shape[1]), (1.0 if 2 * n1 > y.size else -1.0)
    return w, c


@configurable("baseline", stable_name="ppm.baselines.PublicOnly")
class PublicOnly(BinaryLabelsMixin, ClassifierMixin, BaseEstimator):
    """Public-only baseline (docs/model.md §7): the majority label of the public examples.

    Ties and a sample without public examples give 0 (``classes_[0]``). In the label-determined model every
    public label is 0, so this predicts 0 everywhere (error ``P[y = 1]``): the gap between it
    and a learner that also uses the private examples is what the private data are worth.

    Attributes
    ----------
    label_ : the constant prediction (a label of ``classes_``)
    n_public_ : int, number of public examples used
    n_features_in_ : int
    """

    _expected_failed_checks = FIT1D | EMPTY_SAMPLE | CONSTANT_RULE  # (ppm.sklearn_checks)

    def __init__(self):  # no parameters (explicit, so get_params sees an empty signature)
        pass

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, public=None):
        """``public=None`` means every example is public (``check_labelled_data`` convention)."""
        self._check_names(X, reset=True)
        X, y, public = check_labelled_data(X, y, public, encode_y=self._encode_y)
        warn_if_no_public(public, "PublicOnly", "it predicts the tie label 0")
        y_pub = y[public]
        self.n_features_in_ = X.shape[1]
        self.n_public_ = int(y_pub.size)
        self._label01_ = int(2 * int(y_pub.sum()) > y_pub.size)
        label = self._label_codes_[self._label01_]
        self.label_ = label.item() if hasattr(label, "item") else label
        return self

    def predict(self, X):
        """The constant ``label_`` (int64 for a 0/1-labelled sample), shape (n,)."""
        check_is_fitted(self, "label_")
        self._check_names(X, reset=False)
        X = check_X(X, n_features=self.n_features_in_)
        return self._decode_y(np.full(X.shape[0], self._label01_, dtype=np.int64))

