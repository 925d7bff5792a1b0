"""Exact privacy audit of the private active learner (BNS15 Algorithm 4, Definition 5.3,
Claim 5.7) with the real GenericLearner inside (claim C15).

**What is private.** BNS15 Definition 5.3 treats the input of an active learner as a fully
labelled database (the pool) of which the learner reads some labels; the learner is
``epsilon``-DP when its output distribution changes by at most ``e^epsilon`` between pools
that differ in one entry (its point, its label or both). The audit computes that output
distribution EXACTLY, on every pool of a small domain, and the largest log-ratio over every
pair of neighbouring pools.

**The instance.** The grid has ``T = 2`` points (grid indices 0 and 1), so an entry is one of 4
types ``(grid index, label)`` and a pool of ``n_pool`` entries is, for the learner, its type
counts (``choose_queries`` draws a uniform ordered subset: the output law depends on the
multiset only). Every composition of ``n_pool`` into the 4 types is audited, and every
neighbour of each (one entry of one type replaced by one of another type), which is every
neighbouring pair up to equivalence (entries beyond ``n_pool`` are never read).

**The law of Algorithm 4.** The ``t`` queried and ``n_A - t`` unlabelled members of the subset
have type counts ``(a, b)`` with the multivariate hypergeometric probability
``prod_tau C(m_tau, a_tau) C(m_tau - a_tau, b_tau) / (C(n_pool, t) C(n_pool - t, n_A - t))``.
The inner learner (:class:`~ppm.semi_supervised.GenericLearner` at epsilon 1, the object
:meth:`PrivateActiveLearner._inner` builds) then has an exact law:

* sanitizer (:func:`ppm.semi_supervised.sanitizer.sanitize_thresholds`): on ``T = 2`` the dyadic
  tree has depth 1 and the release is a function of ONE noisy count, leaf 0's ``u = c_0 +
  Lap(4 / eps_san)`` (``c_0`` = unlabelled points at index 0): the prefix count of ``[0, 1)``
  is that leaf, isotonic regression on one value clips it to ``[0, n]``, and the quantiles
  compare it with the targets ``(j - 1/2) n / s``. :func:`release_pieces` cuts the ``u`` axis
  at every target and at 0 and ``n``, runs the REAL ``sanitize_thresholds`` (noise replayed so
  that the noisy node counts take chosen values) and the real
  :func:`~ppm.semi_supervised.cover.threshold_cover` at an interior point of every piece, twice
  with different values of the other two nodes (they must not matter: else a ``ValueError``);
  the probability of a piece is a difference of two Laplace CDFs (closed form);
* exponential mechanism (:func:`~ppm.semi_supervised.cover.select_from_cover`): the level is
  drawn with :func:`ppm.mechanisms.level_log_probabilities` of the score histogram of
  :func:`~ppm.semi_supervised.cover.threshold_scores`, the rank uniformly: rule ``j`` has
  probability ``P[level = score_j] / count[score_j]``.

Larger ``T`` make the release an integral over the isotonic regression of several Laplace
counts, with no closed form: the sampled audit of ``tests/test_active_audit.py`` covers
``T = 4``. Floats: every probability is a float64 sum of closed-form terms; the verdict allows
:data:`TOL` on log-ratios.

**Alternatives**, audited by the same loss function on the same pools:

* ``no_pool``: Algorithm 4 without its pool (``n_pool = n_A``, no amplification by subsampling):
  the inner learner's own 1-DP, more than a small epsilon;
* ``cal``: a non-private active learner, CAL for thresholds on the two points (query the label
  of one entry, uniform among the entries, at each grid point present and output the threshold
  consistent with the answers): its law is a function of label frequencies, and a neighbour
  that makes a label appear where there was none changes an output probability from 0 to
  positive: loss infinity.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.special import gammaln

from ppm.mechanisms import level_log_probabilities
from ppm.semi_supervised.active import PrivateActiveLearner, pool_size
from ppm.semi_supervised.cover import threshold_cover, threshold_scores
from ppm.semi_supervised.generic import budget
from ppm.semi_supervised.sanitizer import (node_counts, noise_scale, sanitize_thresholds,
                                           sanitized_size, tree_depth)

T_AUDIT = 2
TYPES = ((0, 0), (0, 1), (1, 0), (1, 1))  # (grid index, label)
#: every rule the inner learner can output on the 2-point grid (the covers' union)
RULES = (("ge", 0), ("ge", 1), ("zeros", None), ("lt", 0), ("lt", 1))
TOL = 1e-9  # float tolerance on log-probabilities


class _NoiseReplay:
    """A Generator stand-in for :func:`sanitize_thresholds`: its Laplace draws make the noisy
    node counts (level 0 first) equal ``z``."""

    def __init__(self, k_idx, L, z):
        self._it = iter(zip(node_counts(np.asarray(k_idx), L), z))

    def laplace(self, loc, scale, size):
        counts, target = next(self._it)
        if loc != 0.0 or size != counts.size:
            raise ValueError("unexpected Laplace draw: the sanitizer's noise layout changed")
        return np.asarray(target, dtype=float) - counts


def _release(n: int, u: float, others: tuple, eps_san: float, alpha0: float) -> tuple:
    """The real sanitizer and cover on ``T = 2`` with leaf 0's noisy count ``u`` (root and
    leaf 1 at ``others``): the cover as a tuple of rules."""
    L = tree_depth(T_AUDIT)
    data = np.zeros(n, dtype=np.int64)  # any sample of size n: the noise is replayed
    z = [np.array([others[0]]), np.array([u, others[1]])]
    released = sanitize_thresholds(data, T_AUDIT, eps_san, alpha0, _NoiseReplay(data, L, z))
    return tuple(threshold_cover(released))


@lru_cache(maxsize=None)
def release_pieces(n: int, eps_san: float, alpha0: float) -> tuple:
    """The sanitizer's release on ``T = 2`` as a function of leaf 0's noisy count: pieces
    ``(lo, hi, cover)`` of the real line (merged where the cover is the same; module
    docstring). Raises ``ValueError`` if the other nodes change the release."""
    s = sanitized_size(alpha0)
    cuts = np.unique(np.concatenate([(np.arange(1, s + 1) - 0.5) * n / s, [0.0, float(n)]]))
    edges = np.concatenate([[-math.inf], cuts, [math.inf]])
    pieces = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        u = lo + 1.0 if not np.isfinite(hi) else hi - 1.0 if not np.isfinite(lo) else (lo + hi) / 2
        covers = {_release(n, u, others, eps_san, alpha0)
                  for others in ((float(n), 0.0), (-3.0 * n, 7.5 * n))}
        if len(covers) != 1:
            raise ValueError("the T = 2 release depends on a node other than leaf 0")
        cover = covers.pop()
        if pieces and pieces[-1][2] == cover:
            pieces[-1] = (pieces[-1][0], float(hi), cover)
        else:
            pieces.append((float(lo), float(hi), cover))
    return tuple(pieces)


def laplace_cdf(x: float) -> float:
    """CDF of the standard Laplace distribution (scale 1)."""
    if x == math.inf:
        return 1.0
    if x == -math.inf:
        return 0.0
    return 0.5 * math.exp(x) if x < 0 else 1.0 - 0.5 * math.exp(-x)


def cover_law(c0: int, n: int, eps_san: float, alpha0: float) -> dict:
    """``P[cover]`` of the sanitizer + cover on ``n`` unlabelled points, ``c0`` of them at
    grid index 0 (leaf 0's count), exactly (closed-form Laplace CDFs)."""
    scale = noise_scale(tree_depth(T_AUDIT), eps_san)
    out: dict = {}
    for lo, hi, cover in release_pieces(n, eps_san, alpha0):
        p = laplace_cdf((hi - c0) / scale) - laplace_cdf((lo - c0) / scale)
        out[cover] = out.get(cover, 0.0) + p
    return out


def em_law(cover: tuple, k_lab: np.ndarray, y_lab: np.ndarray, eps_em: float) -> np.ndarray:
    """The exponential mechanism's law over :data:`RULES` on the labelled sample (the level by
    :func:`level_log_probabilities`, the rank uniform: ``select_from_cover``'s two draws)."""
    scores = threshold_scores(list(cover), k_lab, y_lab)
    counts = np.bincount(scores, minlength=int(y_lab.size) + 1)
    lp = level_log_probabilities(counts, eps_em)
    out = np.zeros(len(RULES))
    for rule, sc in zip(cover, scores):
        out[RULES.index(rule)] += math.exp(lp[sc]) / counts[sc]
    return out


@dataclass(frozen=True)
class Inner:
    """The inner learner's budget and sanitizer size (from :meth:`PrivateActiveLearner._inner`)."""

    epsilon: float  # the inner learner's total budget (1 in Algorithm 4)
    eps_san: float
    eps_em: float
    alpha0: float

    @classmethod
    def of(cls, learner: PrivateActiveLearner) -> "Inner":
        inner = learner._inner(0)
        eps_san, eps_em = budget(float(inner.epsilon), inner.epsilon_split)
        return cls(float(inner.epsilon), float(eps_san), float(eps_em), float(inner.alpha0))


@lru_cache(maxsize=None)
def inner_law(lab: tuple, c0: int, n_unl: int, inner: Inner) -> np.ndarray:
    """GenericLearner's exact output law over :data:`RULES`: ``lab`` = labelled type counts
    (4, :data:`TYPES` order), ``c0`` of the ``n_unl`` unlabelled points at grid index 0."""
    k_lab = np.repeat([k for k, _ in TYPES], lab).astype(np.int64)
    y_lab = np.repeat([y for _, y in TYPES], lab).astype(np.int64)
    out = np.zeros(len(RULES))
    for cover, p in cover_law(c0, n_unl, inner.eps_san, inner.alpha0).items():
        if p > 0:
            out += p * em_law(cover, k_lab, y_lab, inner.eps_em)
    return out


def compositions(total: int, parts: int = 4) -> np.ndarray:
    """Every vector of ``parts`` non-negative integers summing to ``total`` (rows)."""
    rows = [np.diff(np.concatenate([[-1], c, [total + parts - 1]])) - 1
            for c in itertools.combinations(range(total + parts - 1), parts - 1)]
    return np.array(rows, dtype=np.int64).reshape(-1, parts)


def _log_comb(n, k):
    n, k = np.asarray(n, dtype=float), np.asarray(k, dtype=float)
    with np.errstate(invalid="ignore"):
        out = gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)
    return np.where((k < 0) | (k > n), -np.inf, out)


def active_laws(pools: np.ndarray, n_A: int, t: int, inner: Inner) -> np.ndarray:
    """Algorithm 4's exact output law (rows over :data:`RULES`) on every pool (type counts,
    rows of ``pools``, all of size ``n_pool``): the hypergeometric subset law times the inner
    learner's law (module docstring)."""
    n_pool = int(pools[0].sum())
    laws = np.zeros((pools.shape[0], len(RULES)))
    norm = float(_log_comb(n_pool, t) + _log_comb(n_pool - t, n_A - t))
    for a in compositions(t):
        for b in compositions(n_A - t):
            logw = (_log_comb(pools, a) + _log_comb(pools - a, b)).sum(axis=1) - norm
            law = inner_law(tuple(int(v) for v in a), int(b[0] + b[1]), n_A - t, inner)
            laws += np.exp(logw)[:, None] * law[None, :]
    return laws


def cal_laws(pools: np.ndarray) -> np.ndarray:
    """The non-private CAL's law on every pool (module docstring): at each grid point present
    the label of one entry drawn uniformly among its entries; the consistent threshold."""
    laws = np.zeros((pools.shape[0], len(RULES)))
    m = pools.astype(float)
    at = [m[:, 0] + m[:, 1], m[:, 2] + m[:, 3]]
    p1 = [np.divide(m[:, 1], at[0], out=np.zeros_like(at[0]), where=at[0] > 0),
          np.divide(m[:, 3], at[1], out=np.zeros_like(at[1]), where=at[1] > 0)]
    for l0, l1 in itertools.product((0, 1), repeat=2):
        w = np.where(at[0] > 0, p1[0] if l0 else 1 - p1[0], float(l0 == l1))
        w = w * np.where(at[1] > 0, p1[1] if l1 else 1 - p1[1], float(l0 == l1))
        rule = {(1, 1): ("ge", 0), (0, 1): ("ge", 1), (0, 0): ("zeros", None),
                (1, 0): ("lt", 1)}[(l0, l1)]
        laws[:, RULES.index(rule)] += w
    return laws


def worst_loss(pools: np.ndarray, laws: np.ndarray) -> tuple[float, int, int]:
    """``max |log P[h] - log P'[h]|`` over every pool and every neighbour (one entry of type
    ``tau`` replaced by one of type ``tau' != tau``; 0 where both are 0, infinity where one
    is): ``(loss, pool index, neighbour index)``."""
    n = int(pools[0].sum())
    base = n + 1
    key = pools[:, 0] * base ** 2 + pools[:, 1] * base + pools[:, 2]
    index = np.full(base ** 3, -1, dtype=np.int64)
    index[key] = np.arange(pools.shape[0])
    with np.errstate(divide="ignore"):
        logl = np.log(laws)
    worst, arg = -1.0, (-1, -1)
    for src, dst in itertools.permutations(range(4), 2):
        ok = pools[:, src] > 0
        moved = pools[ok].copy()
        moved[:, src] -= 1
        moved[:, dst] += 1
        j = index[moved[:, 0] * base ** 2 + moved[:, 1] * base + moved[:, 2]]
        a, b = logl[ok], logl[j]
        with np.errstate(invalid="ignore"):
            diff = np.abs(a - b)
        diff = np.where(np.isneginf(a) & np.isneginf(b), 0.0, diff)
        row = diff.max(axis=1)
        i = int(np.argmax(row))
        if row[i] > worst:
            worst, arg = float(row[i]), (int(np.flatnonzero(ok)[i]), int(j[i]))
    return worst, arg[0], arg[1]


def audit_setting(epsilon: float, n_A: int, t: int) -> dict:
    """One setting: every pool of ``n_pool(epsilon, n_A)`` entries on the 2-point grid, its
    exact law and the worst neighbour; with the no-pool and CAL alternatives."""
    learner = PrivateActiveLearner(epsilon=epsilon, n_A=n_A, n_queries=t, T=T_AUDIT)
    learner._validate_params()
    inner = Inner.of(learner)
    n_pool = pool_size(n_A, epsilon)
    pools = compositions(n_pool)
    loss, i, j = worst_loss(pools, active_laws(pools, n_A, t, inner))
    small = compositions(n_A)
    no_pool, _, _ = worst_loss(small, active_laws(small, n_A, t, inner))
    cal, _, _ = worst_loss(pools, cal_laws(pools))
    p = n_A / n_pool
    return {"epsilon": epsilon, "n_A": n_A, "t": t, "n_pool": n_pool,
            "pools": int(pools.shape[0]), "neighbour_pairs": _pairs(pools),
            "loss": loss, "worst_pool": pools[i].tolist(), "worst_neighbour": pools[j].tolist(),
            "claim_5_7_bound": math.log1p(p * math.expm1(inner.epsilon)),
            "no_pool_loss": no_pool, "cal_loss": cal}


def _pairs(pools: np.ndarray) -> int:
    """Ordered neighbouring pairs audited: per pool, (types present) x 3 other types."""
    return int((pools > 0).sum() * 3)


#: the audited settings: (epsilon, n_A, t), n_pool = ceil((3 + e) n_A / epsilon) <= 46 (the
#: pools of 69 entries that n_A = 3 needs at epsilon 0.25 take 5 s each and add nothing new)
SETTINGS = ((0.25, 2, 1),) + tuple((eps, n_A, t) for eps in (0.5, 1.0, 2.0) for n_A in (2, 3)
                                   for t in range(1, n_A))


def audit(settings=SETTINGS) -> list[dict]:
    """Every setting of :data:`SETTINGS` (about 4 s on one core)."""
    return [audit_setting(*s) for s in settings]
