"""Privacy audit of the private active learner with the real GenericLearner inside (BNS15
Algorithm 4, Claim 5.7).

``tests/test_semi_supervised_privacy.py`` audits Algorithm 4 exactly around a probe (an
exactly computable 1-DP stand-in for GenericLearner). Here the inner learner is the real
:class:`~ppm.semi_supervised.GenericLearner` (sanitizer with continuous Laplace noise, cover,
exponential mechanism): its output distribution has no closed form, so the audit is sampled.
On a tiny instance (pool values 0.1 / 0.5 / 0.9 on a 4-point grid, ``n_A = 3``, 2 label
queries, ``epsilon = 0.2``: ``n_pool = 86``, ``p = n_A / n_pool``) the learner is fitted 2,000
times on a pool and on a neighbour (one entry's label flipped); for every output the
Clopper-Pearson intervals of its two frequencies give the smallest log-ratio consistent with
the data, which must not exceed Claim 5.7's ``ln(1 + p (e - 1))``. The audit has teeth: with
the pool shrunk to ``n_A`` (no amplification, ``pool_size`` replaced) the same procedure finds
a ratio beyond that bound.
"""

from __future__ import annotations

import math
from collections import Counter
from unittest import mock

import numpy as np
from scipy import stats

import ppm.semi_supervised.active as active
from ppm.semi_supervised import PrivateActiveLearner

EPS, N_A, T_QUERIES, FITS = 0.2, 3, 2, 2000


def _outputs(X, y, seed0):
    est = PrivateActiveLearner(epsilon=EPS, n_A=N_A, n_queries=T_QUERIES, T=4)
    return Counter(est.set_params(random_state=seed0 + s).fit(X, y).rule_ for s in range(FITS))


def _cp(k, n, level=0.99):
    a = 1 - level
    lo = stats.beta.ppf(a / 2, k, n - k + 1) if k > 0 else 0.0
    hi = stats.beta.ppf(1 - a / 2, k + 1, n - k) if k < n else 1.0
    return lo, hi


def smallest_log_ratio(c1: Counter, c2: Counter) -> float:
    """max over outputs of the smallest |log P1/P2| consistent with both 99% intervals."""
    worst = 0.0
    for h in set(c1) | set(c2):
        lo1, hi1 = _cp(c1[h], FITS)
        lo2, hi2 = _cp(c2[h], FITS)
        if lo1 > hi2:
            worst = max(worst, math.log(lo1 / hi2))
        if lo2 > hi1:
            worst = max(worst, math.log(lo2 / hi1))
    return worst


def _pools(n):
    X = np.tile([0.1, 0.5, 0.9], n // 3 + 1)[:n].reshape(-1, 1)
    y = (X[:, 0] >= 0.3).astype(np.int64)
    y2 = y.copy()
    y2[1] = 0  # one entry's label flipped (0.5 labelled 0): a neighbouring pool
    return X, y, y2


def test_active_learner_with_generic_learner_shows_no_violation_of_claim_5_7():
    n_pool = active.pool_size(N_A, EPS)
    X, y, y2 = _pools(n_pool)
    bound = math.log(1 + N_A / n_pool * (math.e - 1))
    found = smallest_log_ratio(_outputs(X, y, 0), _outputs(X, y2, 10_000))
    assert found <= bound


def test_the_sampled_audit_detects_a_learner_without_amplification():
    n_pool = active.pool_size(N_A, EPS)
    bound = math.log(1 + N_A / n_pool * (math.e - 1))
    X, y, y2 = _pools(N_A)
    with mock.patch.object(active, "pool_size", lambda n_A, eps: n_A):
        found = smallest_log_ratio(_outputs(X, y, 0), _outputs(X, y2, 10_000))
    assert found > bound
