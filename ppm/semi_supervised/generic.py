"""GenericLearner: sanitize, cover, exponential mechanism (BNS15 Algorithm 1, Theorem 3.3).

Beimel, Nissim and Stemmer, *Learning Privately with Labeled and Unlabeled Examples* (SODA
2015), docs/model.md §9.3. A private semi-supervised learner: a labelled sample ``S`` (``m`` points) and an
unlabelled sample ``D`` (``n`` points), both private, i.i.d. from one distribution. Steps:

1. ``D~ = San(D)``: here :func:`ppm.semi_supervised.sanitizer.sanitize_thresholds`, the
   dyadic-tree Laplace quantile sanitizer, a pure-DP **substitute** for the paper's
   Blum-Ligett-Roth sanitizer, which is infeasible (see that module) [P];
2. ``B`` = the distinct points of ``D~``;
3. ``H`` = one concept per dichotomy of ``B``
   (:func:`ppm.semi_supervised.cover.threshold_cover`); class: the ``2T`` grid thresholds of
   :class:`ppm.baselines.fully_private.GridExponentialMechanism`, both orientations (``1[x >= g_k]``,
   the constant 0, ``1[x < g_k]``), so ``|H| = 2|B| <= 2s``;
4. ``h = EM(eps, H, -mistakes on S)``, exact
   (:func:`ppm.semi_supervised.cover.select_from_cover`).

Domain: the ``T`` grid points ``g_k = low + k (high - low) / (T - 1)`` of
:func:`ppm.baselines.fully_private.grid_points` (``T = 2^b``: ``X = {0..2^b - 1}``), the domain of
:class:`ppm.populations.GridThresholds`. A real ``x`` is read as the grid index of the largest
grid point ``<= x`` (clipped to the grid), a fixed data-independent map.

Privacy budget [P]. ``epsilon_split=None`` (default) follows the paper's proof of Theorem 3.3:
``D`` and ``S`` are disjoint samples, a neighbouring pair of inputs differs in one entry of one
of them, so the sanitizer (which reads only ``D``) and the mechanism (which reads ``D`` only
through the released ``D~``, and ``S``) each run at the full ``epsilon`` (parallel
composition). ``epsilon_split = r`` in ``(0, 1)`` runs the sanitizer at ``r epsilon`` and the
mechanism at ``(1 - r) epsilon`` (basic composition): ``epsilon``-DP even if one change can
touch both samples. Either way the total is the sum of the parts (audited in the tests:
conditioned on ``D~`` the mechanism's log-ratio is ``<=`` its share; the sanitizer's is
``<=`` its share).

Constants [P]. ``alpha_0 = beta_0 = 0.1`` design values (docs/model.md §9); the sanitized size is
``s = ceil(2 ln(1/alpha_0)/alpha_0^2)`` (461 at ``alpha_0 = 0.1``). Theorem 3.3 [R]: labelled
``m = O((VC log(1/alpha) + log(1/beta)) / (alpha eps))``, independent of ``|X|``: the mechanism
picks among ``<= 2s`` concepts whatever ``b``; unlabelled ``n`` grows with ``b = log|X|``
(here through the sanitizer's ``O(b^1.5/eps)`` prefix-count error; claim C13).

Fit signature: ``fit(X, y, public=None, X_unlabelled=None)``. With ``X_unlabelled`` given (seed
002's model, claims C13 and C15) every example is private, ``(X, y)`` is ``S``, ``X_unlabelled``
is ``D`` and ``public`` is ignored. Without it (claim C10, the semi-private reading) ``D`` = the
public points ``X[public]`` (their labels unused) and ``S`` = the private examples.
"""

from __future__ import annotations

import inspect
import math
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils.validation import check_is_fitted

from ppm._sklearn import BinaryLabelsMixin
from ppm.registry import configurable
from ppm.audit_spec import GRID4, PrivacyAudit, neighbour_pairs
from ppm.sklearn_checks import DP_ONE_LABEL, FIT1D, LINE_BELOW_BAR, ONE_D_INDEXED
from ppm.validation import (
    EPSILON,
    OPEN_UNIT,
    RANDOM_STATE,
    Number,
    check_epsilon,
    check_labelled_data,
    check_open_unit,
    check_random_state,
    check_X,
)
from ppm.grid import GRID_CONSTRAINTS, check_grid, check_grid_span, grid_points
from .cover import select_from_cover, threshold_cover, threshold_predict, threshold_scores
from .sanitizer import MAX_LEVELS, sanitize_thresholds, sanitized_size


def check_epsilon_split(value):
    """``None`` (parallel composition) or a share in ``(0, 1)`` for the sanitizer."""
    if value is None:
        return None
    return check_open_unit(value, "epsilon_split")


def budget(epsilon: float, epsilon_split):
    """``(eps_sanitizer, eps_mechanism)`` (module docstring, "Privacy budget")."""
    if epsilon_split is None:
        return epsilon, epsilon
    return epsilon_split * epsilon, (1.0 - epsilon_split) * epsilon


def to_grid_index(x: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Index of the largest grid point ``<= x`` (0 below the grid): data-independent map."""
    return np.maximum(np.searchsorted(grid, np.asarray(x, dtype=float), side="right") - 1, 0)


@configurable("learner", "generic", stable_name="ppm.semi_supervised.GenericLearner",
              target="ppm.semi_supervised.GenericLearner")
class GenericLearner(BinaryLabelsMixin, ClassifierMixin, BaseEstimator):
    """BNS15's GenericLearner for grid thresholds (Algorithm 1, Theorem 3.3; module doc).

    Parameters
    ----------
    epsilon : float
        Total privacy parameter (> 0).
    T : int
        Domain size (``2^b`` for ``X = {0..2^b - 1}``; ``ceil(log2 T) <= 24``).
    low, high : float
        Grid end points (as :class:`ppm.baselines.fully_private.GridExponentialMechanism`).
    alpha0, beta0 : float in (0, 1)
        Design accuracy / confidence; ``alpha0`` fixes the sanitized size ``s``.
        ``beta0`` is recorded only (the construction has no other constant depending on it).
    epsilon_split : None or float in (0, 1)
        Budget split (module docstring): ``None`` = the paper's parallel composition.
    random_state : None, int, SeedSequence or Generator

    Attributes
    ----------
    sanitized_ : int array
        ``D~`` as grid indices (released by the sanitizer: public).
    cover_ : list of rules ``(kind, k)``; ``n_hypotheses_`` its size.
    rule_ : ``(kind, k)`` output; ``threshold_`` its grid point (``None`` for ``"zeros"``).
    n_label_queries_ : int
        Labels read (``len(y)``: fixed by the input size, public).
    n_unlabelled_ : int
    """

    _one_d_input = True
    _parameter_constraints = {
        "epsilon": EPSILON,
        **GRID_CONSTRAINTS,
        # the dyadic tree's depth ceil(log2 T) is at most MAX_LEVELS (2^L counts materialised)
        "T": [Number(Integral, 2, 2**MAX_LEVELS, closed="both")],
        "alpha0": OPEN_UNIT,
        "beta0": OPEN_UNIT,
        "epsilon_split": [None, *OPEN_UNIT],  # None: the paper's parallel composition
        "random_state": RANDOM_STATE,
    }

    # scikit-learn's check suite runs on this (ppm.sklearn_checks.check_instances)
    _check_params = {"epsilon": 5.0, "T": 16, "low": -3.0, "high": 3.0}

    # declared once (ppm.audit_spec): the released state, the checks failed by design, the audit
    _released = ("rule_", "threshold_")
    _expected_failed_checks = FIT1D | DP_ONE_LABEL | LINE_BELOW_BAR | ONE_D_INDEXED

    @classmethod
    def _privacy_audits(cls):
        """Statistical: labelled and unlabelled points both private; probes: the T = 4 grid."""
        def leak(m):
            def run(data, rs):
                X, y, U = data
                est = cls(epsilon=1.0 * m, T=4, random_state=rs)
                return est.fit(X, y, X_unlabelled=U).predict(GRID4[:, None])
            return run
        base = {"X": GRID4[[0, 1, 2, 3]][:, None], "y": [0, 0, 1, 1], "U": GRID4[[0, 1, 2, 3]][:, None]}
        return (PrivacyAudit(
            kind="statistical", index=3, row=6, paper="BNS15 Algorithm 1 (sanitizer + EM)",
            leak=leak, n_select=12000, n_eval=48000,
            neighbours="replace one labelled example (x, y) or one unlabelled point x "
                       "(all private)",
            setting="T=4, 4 labelled and 4 unlabelled points; probes: the 4 grid points",
            pairs=lambda: neighbour_pairs(base, [{"y": (3, 0)}, {"U": (0, [GRID4[3]])},
                                                 {"y": (1, 1)}])),)

    @classmethod
    def _temperature_cases(cls):
        """Its selection from the cover at its mechanism's epsilon, on 60 labelled and 200
        unlabelled points of a T = 64 grid (ppm.audit_spec)."""
        def generic(eps, seed=0):
            from ppm.populations.grid_thresholds import GridThresholds
            pop = GridThresholds(T=64, support=4)
            X, y, p = pop.sample(60, random_state=0)
            Xu = pop.sample(200, random_state=10)[0]
            f = cls(epsilon=eps, T=64, random_state=seed).fit(X, y, p, X_unlabelled=Xu)
            return f.epsilon_mechanism_, f.predict(np.linspace(0, 1, 101)[:, None])

        return {"generic": generic}

    def __init__(self, *, epsilon=1.0, T=1024, low=0.0, high=1.0, alpha0=0.1, beta0=0.1,
                 epsilon_split=None, random_state=None):
        self.epsilon = epsilon
        self.T = T
        self.low = low
        self.high = high
        self.alpha0 = alpha0
        self.beta0 = beta0
        self.epsilon_split = epsilon_split
        self.random_state = random_state

    def _check_cross_params(self) -> None:
        check_grid_span(self.T, self.low, self.high)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, public=None, X_unlabelled=None):
        """Fit on labelled ``(X, y)`` and unlabelled ``X_unlabelled`` (module docstring)."""
        eps = float(self.epsilon)
        T, low, high = check_grid(self.T, self.low, self.high)
        split = check_epsilon_split(self.epsilon_split)
        rng = check_random_state(self.random_state)
        has_public = public is not None
        self._check_names(X, reset=True)
        X, y, public = check_labelled_data(X, y, public, encode_y=self._encode_y)
        if X.shape[0] == 0:
            raise ValueError("X must not be empty")
        if X.shape[1] != 1:
            raise ValueError(f"GenericLearner needs one feature (thresholds), got {X.shape[1]}")
        if X_unlabelled is None:
            if not has_public or not public.any():
                raise ValueError("X_unlabelled is required when there are no public points "
                                 "(public=None or no True entry)")
            X_unl, X, y = X[public], X[~public], y[~public]
        else:
            X_unl = check_X(X_unlabelled, "X_unlabelled", n_features=1)
        if X_unl.shape[0] == 0:
            raise ValueError("X_unlabelled must not be empty")
        return self._fit_parts(X[:, 0], y, X_unl[:, 0], eps, T, low, high, split, rng)

    def _fit_parts(self, x, y, x_unl, eps, T, low, high, split, rng):
        grid = grid_points(T, low, high)
        eps_san, eps_em = budget(eps, split)
        # (1)-(2): only the sanitizer reads the unlabelled sample.
        sanitized = sanitize_thresholds(to_grid_index(x_unl, grid), T, eps_san, self.alpha0, rng)
        # (3): the cover is a function of the released D~ only.
        cover = threshold_cover(sanitized)
        # (4): the labelled sample enters only through scores of sensitivity 1.
        scores = threshold_scores(cover, to_grid_index(x, grid), y)
        j, _, _ = select_from_cover(scores, eps_em, rng, y.size)
        kind, k = cover[j]
        self.sanitized_ = sanitized
        self.cover_ = cover
        self.rule_ = (kind, k)
        self.threshold_ = None if k is None else float(grid[k])
        self.n_hypotheses_ = len(cover)
        self.n_sanitized_ = int(sanitized_size(self.alpha0))
        self.epsilon_sanitizer_, self.epsilon_mechanism_ = eps_san, eps_em
        self.n_label_queries_ = int(y.size)
        self.n_unlabelled_ = int(x_unl.size)
        self.n_features_in_ = 1
        return self

    def predict(self, X) -> np.ndarray:
        """Labels of the selected threshold rule (int64 0/1 for a 0/1-labelled sample)."""
        check_is_fitted(self, "rule_")
        self._check_names(X, reset=False)
        X = check_X(X, n_features=self.n_features_in_)
        grid = grid_points(int(self.T), float(self.low), float(self.high))
        return self._decode_y(
            threshold_predict(self.rule_, to_grid_index(X[:, 0], grid)).astype(np.int64))


def fit_accepts_unlabelled(est) -> bool:
    """True when ``est.fit`` takes ``X_unlabelled`` (the pipeline's hook uses this)."""
    return "X_unlabelled" in inspect.signature(est.fit).parameters


def labelled_sample_size(alpha0: float, beta0: float, epsilon: float, n_hypotheses: int) -> int:
    """Labelled size at which the EM's excess mistakes are ``<= alpha0 m / 2`` w.p. ``1 - beta0``.

    McSherry-Talwar: ``m(h) <= OPT + (2/eps)(ln|H| + ln(1/beta0))``; asking this to be
    ``<= alpha0 m / 2`` gives ``m = ceil(4 (ln|H| + ln(1/beta0)) / (alpha0 eps))`` [P]. Used by
    :class:`ppm.semi_supervised.PrivateActiveLearner` for its default number of queries.
    """
    a = check_open_unit(alpha0, "alpha0")
    b = check_open_unit(beta0, "beta0")
    e = check_epsilon(epsilon)
    return math.ceil(4.0 * (math.log(n_hypotheses) + math.log(1.0 / b)) / (a * e))
