"""Exact privacy audit of the composed LabelBoost wrapper (BNS15 Algorithm 3, Lemma 4.1, Claim 4.3).

The per-module tests audit the base mechanism and LabelBoost's exponential mechanism separately;
here the whole fit (one boosting round: uniform subsample of ``K`` of the ``N`` database
entries, LabelBoost on it, the base learner on the relabelled points) is audited on a tiny
instance by computing its output distribution EXACTLY and comparing neighbouring databases (one
labelled entry's ``(x, y)`` or one unlabelled entry's ``x`` replaced), as
``ppm.diagnostics.audit`` and ``scripts/exact_audits.py`` do for PPM.

The real code computes every probability: LabelBoost's dichotomies and scores come from
:func:`ppm.semi_supervised.label_boost.label_boost` (the mechanism's ``draw_index``,
:func:`ppm.mechanisms.draw_index`, replaced by a recorder
of the log-weights and then by each index in turn), the base learner's from
:func:`~ppm.semi_supervised.threshold_em.threshold_groups` and
:func:`~ppm.semi_supervised.threshold_em.group_log_probabilities`. The subsample is uniform
over the ``K``-subsets (``rng.choice`` without replacement), enumerated by entry type. Claim
4.2's sizes need ``~26,856`` labelled points for one round, so the round is forced on the tiny
instance by replacing :func:`boost_schedule` with one round ``(N, K)``, ``N = ceil((3 + e^4)
K)`` (the real subsampling ratio). A sampled check ties the enumeration to
``LabelBoostLearner.fit`` itself.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict
from unittest import mock

import numpy as np
from scipy import stats
from scipy.special import logsumexp

import ppm.mechanisms as mechanisms
import ppm.semi_supervised.label_boost as lb
from ppm.semi_supervised import LabelBoostLearner
from ppm.semi_supervised.big_points import as_big_points
from ppm.semi_supervised.threshold_em import group_log_probabilities, threshold_groups

B = 2  # domain {0..3}: 2 * 4 thresholds
K = 2
N = math.ceil(lb.ROUND_SUBSAMPLE * K)  # 116


def base_distribution(x, y, eps: float = 1.0) -> dict:
    """Exact output distribution of the base learner (gap-grouped EM at ``eps``)."""
    kinds, lows, sizes, mistakes = threshold_groups(as_big_points(np.asarray(x, np.int64), b=B),
                                                    np.asarray(y, np.int64), 1 << B)
    out = defaultdict(float)
    for kind, lo, size, lp in zip(kinds, lows, sizes, group_log_probabilities(sizes, mistakes,
                                                                              eps)):
        for r in range(size):
            out[(kind, None if kind == "zeros" else lo + r)] += math.exp(lp) / size
    return out


def boost_then_base(lab, unl, eps: float = 1.0) -> dict:
    """LabelBoost on the kept labelled ``lab`` = [(x, y)] and unlabelled ``unl`` = [x], then the
    base learner: exact output distribution (the real label_boost, every index of its EM)."""
    sl = np.array([x for x, _ in lab], dtype=np.int64)
    yl = np.array([y for _, y in lab], dtype=np.int64)
    su = np.array(unl, dtype=np.int64)
    seen = {}

    def record(log_w, rng):
        seen["log_w"] = np.asarray(log_w, dtype=float)
        return 0

    with mock.patch.object(mechanisms, "draw_index", record):
        lb.label_boost(sl, yl, su, 0, epsilon=eps)
    log_p = seen["log_w"] - logsumexp(seen["log_w"])
    out = defaultdict(float)
    for i, lp in enumerate(log_p):
        with mock.patch.object(mechanisms, "draw_index", lambda log_w, rng, i=i: i):
            X, y, _ = lb.label_boost(sl, yl, su, 0, epsilon=eps)
        for h, p in base_distribution(X.to_ints(), y, eps).items():
            out[h] += math.exp(lp) * p
    return out


_PAIRS: dict = {}


def wrapper_distribution(lab, unl, eps: float = 1.0) -> dict:
    """Exact output distribution of one round (K = 2 of the N entries) + the base learner.

    Entries are grouped by type (``("L", x, y)`` or ``("U", x)``); a kept pair's conditional
    distribution depends on the types only (memoised), and the pair of types has probability
    ``count / C(N, 2)``."""
    types = Counter([("L", x, y) for x, y in lab] + [("U", x) for x in unl])
    total = sum(types.values())
    out = defaultdict(float)
    keys = sorted(types)
    for i, a in enumerate(keys):
        for b in keys[i:]:
            count = (types[a] * (types[a] - 1) // 2) if a == b else types[a] * types[b]
            if count == 0:
                continue
            key = (a, b, eps)
            if key not in _PAIRS:
                kept = [a, b]
                _PAIRS[key] = boost_then_base([(t[1], t[2]) for t in kept if t[0] == "L"],
                                              [t[1] for t in kept if t[0] == "U"], eps)
            for h, p in _PAIRS[key].items():
                out[h] += count / math.comb(total, 2) * p
    return out


def worst_log_ratio(lab, unl, eps: float = 1.0) -> float:
    """max over neighbours (one entry replaced by any value of its part) and outputs."""
    base = wrapper_distribution(lab, unl, eps)
    worst = 0.0
    for i, (x, y) in itertools.product(range(len(lab)), itertools.product(range(1 << B), (0, 1))):
        other = wrapper_distribution(lab[:i] + [(x, y)] + lab[i + 1:], unl, eps)
        worst = max(worst, max(abs(math.log(base[h]) - math.log(other[h])) for h in base))
    for i, x in itertools.product(sorted(set(range(len(unl))), key=lambda j: unl[j]),
                                  range(1 << B)):
        other = wrapper_distribution(lab, unl[:i] + [x] + unl[i + 1:], eps)
        worst = max(worst, max(abs(math.log(base[h]) - math.log(other[h])) for h in base))
    return worst


def _instance(n_unl, seed=0):
    rng = np.random.default_rng(seed)
    return [(1, 0), (2, 1)], [int(v) for v in rng.integers(0, 1 << B, size=n_unl)]


def _one_round(n_l):
    return lambda n, m, a, b, *args, **kw: ([(N, K)], True)


def test_composed_wrapper_is_1_dp_exactly():
    lab, unl = _instance(N - 2)
    worst = worst_log_ratio(lab, unl)
    p = K / N
    # Claim 4.3 with eps* = 4 (Lemma 4.1: LabelBoost + a 1-DP base learner is 4-DP)
    assert worst <= math.log(1 + p * (math.e ** 4 - 1)) + 1e-9
    assert worst <= 1.0  # the wrapper's pure 1-DP (Remark 4.15)
    # the audit sees the subsampling: without it (the K kept entries are the whole database)
    # LabelBoost + the base learner move the output by 0.24 on this instance, ~100 times the
    # 0.0026 measured with it (the amplification p (e^0.24 - 1) predicts ~0.005)
    unamplified = worst_log_ratio(lab, [])
    assert unamplified > 10 * worst
    # 2x control: LabelBoost and the base learner at 2 epsilon. The exact audit resolves the
    # leak (amplification predicts ~2.3x: p (e^0.48 - 1) against p (e^0.24 - 1)), but the
    # stated 1 is loose by a factor of hundreds: the 2x leak stays far below it, so no audit
    # against the stated epsilon can catch it at any run count (docs/privacy_audits.md)
    doubled = worst_log_ratio(lab, unl, eps=2.0)
    assert 1.5 * worst < doubled < 1.0


def test_wrapper_draws_follow_the_enumerated_distribution():
    """The enumeration is LabelBoostLearner.fit's own path: chi-square on its outputs."""
    lab, unl = _instance(N - 2, seed=1)
    exact = wrapper_distribution(lab, unl)
    X = np.array([x for x, _ in lab], dtype=np.int64)
    y = np.array([v for _, v in lab], dtype=np.int64)
    U = np.array(unl, dtype=np.int64)
    draws = Counter()
    with mock.patch.object(lb, "boost_schedule", _one_round(len(lab))):
        for s in range(3000):
            est = LabelBoostLearner(epsilon=1.0, b=B, base_n=K, random_state=s).fit(
                X, y, X_unlabelled=U)
            assert est.rounds_ == [(N, K)] and not est.failed_
            draws[est.hypothesis_] += 1
    hs = sorted(exact, key=str)
    expected = np.array([exact[h] for h in hs]) * 3000
    observed = np.array([draws[h] for h in hs])
    assert sum(observed) == 3000  # nothing outside the enumerated support
    keep = expected > 5
    assert stats.chisquare(observed[keep], expected[keep] * observed[keep].sum()
                           / expected[keep].sum()).pvalue > 1e-3
