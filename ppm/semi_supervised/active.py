"""Private active learner by subsampling (BNS15 Algorithm 4, Claim 5.7, Theorem 5.8).

Beimel, Nissim and Stemmer, section 5.1, docs/model.md §9.5. Input: a pool of ``N`` examples whose labels
are hidden behind an oracle (Definition 5.3 treats the input as a *fully labelled* sample of
which the learner may read ``t`` labels). Algorithm 4 [R: the box was lost; read from the proof
of Claim 5.7]:

1. ``n_pool = ceil((3 + e) n_A / epsilon)``: the learner uses the first ``n_pool`` pool entries
   (a data-independent choice; extra entries are never read) and rejects a smaller pool;
2. keep a uniformly random subset ``S`` of ``n_A`` of them (``rng.choice`` without
   replacement, in random order);
3. query the labels of ``t`` = the first ``t`` members of ``S`` (a uniform ``t``-subset of
   ``S``): ``n_label_queries_ = t``, fixed by the parameters, not by the data (public);
4. run the private semi-supervised learner ``A`` = :class:`GenericLearner` at ``epsilon = 1``
   (its own budget rule, parallel composition by default) on the ``t`` labelled and
   ``n_A - t`` unlabelled members of ``S``.

Privacy (Claim 5.7, amplification by subsampling). Neighbouring pools differ in one entry
``i``. ``S`` and the labelled/unlabelled split are drawn independently of the data; if
``i not in S`` (probability ``1 - p``, ``p = n_A / n_pool <= epsilon / (3 + e)``) the two runs
are identical; otherwise ``A``'s inputs differ in that one entry (labelled or unlabelled part),
where ``A`` is 1-DP. Hence the output is ``ln(1 + p (e - 1)) <= epsilon (e - 1)/(3 + e) <
epsilon``-DP; with an ``(1, delta)``-DP ``A`` the paper's statement is ``(epsilon, O(delta))``
(here ``A`` is pure, so ``delta = 0``). This is privacy in the sense of **Definition 5.3** only:
the learner is **not transcript-private** (Definition 5.4), because the queried indices reveal
``S``; Theorem 5.6 shows a transcript-private learner needs ``Omega(1/(alpha epsilon))``
queries, while here ``t`` does not depend on ``epsilon`` (Theorem 5.8; claim C15). The price is
the pool, ``~ 1/epsilon`` unlabelled examples.

Pipeline mapping (claim C15): the pipeline's labelled sample ``(X, y)`` of size ``n`` is the
pool (its labels are the oracle, read only at the ``t`` queried indices), so ``n >= n_pool``;
the number of label queries is the parameter ``n_queries`` (swept; the trials CSV records
``n_label_queries`` and ``n_pool``), and the labelled ``n_hat`` is read against it, next to
:class:`GenericLearner` at the same ``epsilon`` whose label count is its labelled ``n``.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils.validation import check_is_fitted

from ppm._sklearn import BinaryLabelsMixin
from ppm.registry import configurable
from ppm.audit_spec import PrivacyAudit
from ppm.sklearn_checks import DP_ONE_LABEL, LINE_BELOW_BAR, ONE_D_INDEXED, SMALL_POOL
from ppm.validation import (RANDOM_STATE, Number, check_epsilon, check_labelled_data,
                            check_positive_int, check_random_state, check_X)
from .generic import GenericLearner, labelled_sample_size
from .sanitizer import sanitized_size

POOL_FACTOR = 3.0 + math.e  # Claim 5.7 / docs/model.md §9.5: n_pool = ceil((3 + e) n_A / epsilon)


def pool_size(n_A: int, epsilon: float) -> int:
    """``n_pool = ceil((3 + e) n_A / epsilon)``."""
    return math.ceil(POOL_FACTOR * check_positive_int(n_A, "n_A") / check_epsilon(epsilon))


def choose_queries(n_pool: int, n_A: int, t: int, rng: np.random.Generator):
    """Steps 2-3: ``(queried, unlabelled)`` pool indices; ``|queried| = t``, ``|both| = n_A``."""
    subset = rng.choice(n_pool, size=n_A, replace=False)
    return subset[:t], subset[t:]


@configurable("learner", "active", stable_name="ppm.semi_supervised.PrivateActiveLearner",
              target="ppm.semi_supervised.PrivateActiveLearner")
class PrivateActiveLearner(BinaryLabelsMixin, ClassifierMixin, BaseEstimator):
    """Algorithm 4 of BNS15 around :class:`GenericLearner` (see the module docstring).

    Parameters
    ----------
    epsilon : float in (0, 3 + e]
        Privacy parameter (Definition 5.3); ``n_pool >= n_A`` needs ``epsilon <= 3 + e``.
    n_A : int
        Size of the subsample handed to the inner learner (labelled + unlabelled).
    n_queries : int or None
        Label queries ``t`` (``1 <= t < n_A``). ``None``: the inner learner's labelled size at
        ``epsilon = 1``, :func:`labelled_sample_size` with ``|H| = 2 s`` [P].
    T, low, high, alpha0, beta0, epsilon_split :
        Passed to the inner :class:`GenericLearner` (run at ``epsilon = 1``).
    random_state : None, int, SeedSequence or Generator

    Attributes
    ----------
    n_pool_, n_label_queries_ : int
        Pool size used and labels read (both fixed by the parameters).
    learner_ : GenericLearner
        The fitted inner learner; ``rule_``, ``threshold_`` and ``n_hypotheses_`` are its.
    """

    _one_d_input = True

    _parameter_constraints = {
        # epsilon <= 3 + e, else n_pool < n_A: run the inner learner directly
        "epsilon": [Number(Real, 0, POOL_FACTOR, closed="right")],
        "n_A": [Number(Integral, 2, None, closed="left")],
        "n_queries": [None, Number(Integral, 1, None, closed="left")],
        **{p: c for p, c in GenericLearner._parameter_constraints.items()
           if p not in ("epsilon", "random_state")},  # the inner learner's (run at epsilon 1)
        "random_state": RANDOM_STATE,
    }

    # scikit-learn's check suite runs on this (ppm.sklearn_checks.check_instances)
    _check_params = {"epsilon": 1.0, "n_A": 4, "n_queries": 2, "T": 16, "low": -3.0, "high": 3.0}

    # declared once (ppm.audit_spec): the released state, the checks failed by design, the audit
    _released = ("learner_", "rule_", "threshold_")
    _expected_failed_checks = ONE_D_INDEXED | DP_ONE_LABEL | LINE_BELOW_BAR | SMALL_POOL

    @classmethod
    def _privacy_audits(cls):
        """Exact: claim C15's audit (ppm.diagnostics.active_audit), rerun."""
        return (PrivacyAudit(
            kind="exact", index=8, row=8, exact="active", paper="BNS15 Algorithm 4 (Claim 5.7)",
            neighbours="labelled pools differing in one entry (Definition 5.3)",
            source="ppm/diagnostics/active_audit.py (claim C15)"),)

    @classmethod
    def _temperature_cases(cls):
        """None of its own: its one selection is its inner GenericLearner's, run at epsilon 1
        whatever its own epsilon (GenericLearner declares that case; ppm.audit_spec)."""
        return {}

    def __init__(self, *, epsilon=0.1, n_A=2048, n_queries=None, T=1024, low=0.0, high=1.0,
                 alpha0=0.1, beta0=0.1, epsilon_split=None, random_state=None):
        self.epsilon = epsilon
        self.n_A = n_A
        self.n_queries = n_queries
        self.T = T
        self.low = low
        self.high = high
        self.alpha0 = alpha0
        self.beta0 = beta0
        self.epsilon_split = epsilon_split
        self.random_state = random_state

    def _inner(self, random_state) -> GenericLearner:
        return GenericLearner(epsilon=1.0, T=self.T, low=self.low, high=self.high,
                              alpha0=self.alpha0, beta0=self.beta0,
                              epsilon_split=self.epsilon_split, random_state=random_state)

    def _check_cross_params(self) -> None:
        """The inner learner's rules, and a query budget below ``n_A``."""
        self._inner(0)._check_cross_params()
        n_A, t = int(self.n_A), self._n_queries()
        if t >= n_A:
            raise ValueError(f"n_queries must be < n_A={n_A} (the inner learner needs an "
                             f"unlabelled point), got n_queries={t}")

    def _n_queries(self) -> int:
        """``t``: ``n_queries``, or by default the inner learner's labelled size at epsilon 1."""
        if self.n_queries is None:
            return labelled_sample_size(self.alpha0, self.beta0, 1.0,
                                        2 * sanitized_size(self.alpha0))
        return check_positive_int(self.n_queries, "n_queries")

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, public=None):
        """``(X, y)`` is the pool; labels are read only at the ``t`` queried indices."""
        n_A, t = int(self.n_A), self._n_queries()
        n_pool = pool_size(n_A, self.epsilon)
        rng = check_random_state(self.random_state)
        self._check_names(X, reset=True)
        # every pool entry is private; the label encoding is fixed by the label set (0/1: none)
        X, y, _ = check_labelled_data(X, y, None, encode_y=self._encode_y)
        if X.shape[0] < n_pool:
            raise ValueError(f"the pool needs n_pool = ceil((3 + e) n_A / epsilon) = {n_pool} "
                             f"examples (n_A={n_A}, epsilon={self.epsilon!r}), got {X.shape[0]}")
        queried, unlabelled = choose_queries(n_pool, n_A, t, rng)
        labels = y[queried]  # the oracle: the only labels read
        self.learner_ = self._inner(rng).fit(X[queried], labels, X_unlabelled=X[unlabelled])
        self.rule_ = self.learner_.rule_
        self.threshold_ = self.learner_.threshold_
        self.n_hypotheses_ = self.learner_.n_hypotheses_
        self.n_pool_ = n_pool
        self.n_label_queries_ = int(labels.size)
        self.n_features_in_ = 1
        return self

    def predict(self, X) -> np.ndarray:
        """Labels of the inner learner's threshold (int64 0/1 for a 0/1-labelled sample)."""
        check_is_fitted(self, "learner_")
        self._check_names(X, reset=False)
        return self._decode_y(self.learner_.predict(check_X(X, n_features=1)))
