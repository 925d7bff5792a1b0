"""Dyadic-tree Laplace quantile sanitizer for thresholds: the pure-DP stand-in for BLR [P].

BNS15 (Beimel-Nissim-Stemmer), Algorithm 1 step 1 / Theorem 3.3: ``D~ = San(D)`` is a
sanitization of the unlabelled private sample ``D`` for the class ``C^⊕ = {h ⊕ f}``. The paper
uses the sanitizer of Blum, Ligett and Roth (BLR, STOC 2008): the exponential mechanism over
*all* multisets of size ``s = O(VC log|X| / alpha^2)`` drawn from the domain ``X``. That is
**infeasible** beyond toy sizes: for thresholds on ``X = {0..2^b - 1}`` there are about
``|X|^s = 2^(b s)`` candidate databases (``b = 8``, ``s = 461``: ``2^3688``), each scored against
every query of the class, and no exact sampler over them exists short of enumeration. This
module is a clearly named substitute (docs/model.md §9.3 [P]), pure ``epsilon``-DP and exact:

1. **Dyadic tree.** ``L = ceil(log2 T)`` (``= b`` when ``T = 2^b``); the domain is padded to
   ``2^L`` cells. Level ``l = 0..L`` has ``2^l`` nodes, node ``(l, j)`` counting the points in
   ``[j 2^(L-l), (j+1) 2^(L-l))``. Every node count gets independent noise ``Lap(2(L+1)/eps)``.
2. **Prefix counts.** The noisy count of ``[0, k)`` is the sum of the noisy nodes of its dyadic
   decomposition (at most one node per level), for ``k = 1..2^L - 1``; ``[0, 0)`` is 0 and
   ``[0, 2^L)`` is ``n`` (the sample size is public under replace-one neighbours).
3. **Isotonic fit.** The noisy prefix counts are projected onto non-decreasing sequences in
   ``[0, n]`` (least squares, PAV: :func:`sklearn.isotonic.isotonic_regression`), an estimate
   ``F(k)`` of ``#{x_i < k}``.
4. **Quantiles.** ``D~`` = the ``s = ceil(2 ln(1/alpha_0) / alpha_0^2)`` points
   ``q_j = min{k : F(k + 1) >= (j - 1/2) n / s}``, ``j = 1..s`` [P: mid-point quantiles], so the
   empirical CDF of ``D~`` tracks ``F`` within ``1/(2s)`` plus the noise of ``F``.

**Why it is epsilon-DP under replace-one neighbours.** Every point lies in exactly ``L + 1``
nodes (one per level). Replacing one point ``x`` by ``x'`` decreases the ``L + 1`` counts of the
nodes containing ``x`` by 1 and increases the ``L + 1`` counts containing ``x'`` by 1 (shared
ancestors cancel), so the vector of node counts changes by at most ``2(L + 1)`` in L1 norm.
The Laplace mechanism with scale ``2(L + 1)/eps`` on that vector is ``eps``-DP; steps 2-4 read
only the noisy counts and the public ``n``: post-processing. (Tested exactly in
``tests/test_generic_learner.py``: the log density ratio of the released node vector on
neighbouring samples is ``||c - c'||_1 / scale <= eps``.)

What it guarantees for ``C^⊕`` of thresholds: ``h ⊕ f`` for two thresholds is an interval or
the complement of one, whose mass under ``D~`` is a difference of two prefix fractions; each
noisy prefix count has error ``O(L^1.5 / eps)`` (``L`` Laplace terms), so ``n ~ b^1.5 /
(alpha eps)`` unlabelled points make ``D~`` an ``alpha``-sanitization: the unlabelled cost grows
with ``b = log|X|``, the shape Theorem 3.3 claims (its ``b / (alpha^3 eps)`` is BLR's).
"""

from __future__ import annotations

import math

import numpy as np
from sklearn.isotonic import isotonic_regression

from ppm.mechanisms import laplace_noise
from ppm.validation import check_epsilon, check_open_unit, check_positive_int

# 2^L node counts and prefix sums of 2^L cells are materialised: cap the tree depth.
MAX_LEVELS = 24


def tree_depth(T: int) -> int:
    """``L = ceil(log2 T)``: the number of levels below the root (``T >= 2``)."""
    T = check_positive_int(T, "T", minimum=2)
    L = (T - 1).bit_length()
    if L > MAX_LEVELS:
        raise ValueError(f"T={T} needs a dyadic tree of depth {L} > {MAX_LEVELS} (2^L node "
                         f"counts are materialised)")
    return L


def noise_scale(L: int, epsilon: float) -> float:
    """Laplace scale ``2 (L + 1) / epsilon`` per node (L1 sensitivity ``2 (L + 1)``)."""
    return 2.0 * (L + 1) / check_epsilon(epsilon)


def sanitized_size(alpha0: float) -> int:
    """``s = ceil(2 ln(1/alpha_0) / alpha_0^2)`` points in ``D~`` (docs/model.md §9.3 [P])."""
    a = check_open_unit(alpha0, "alpha0")
    return math.ceil(2.0 * math.log(1.0 / a) / a ** 2)


def node_counts(k_idx: np.ndarray, L: int) -> list[np.ndarray]:
    """Exact counts of every node, level by level: ``counts[l][j]`` (``l = 0..L``)."""
    leaves = np.bincount(np.asarray(k_idx, dtype=np.int64), minlength=1 << L).astype(float)
    levels = [leaves]
    for _ in range(L):
        levels.append(levels[-1].reshape(-1, 2).sum(axis=1))
    return levels[::-1]


def noisy_node_counts(k_idx, L: int, epsilon: float, rng: np.random.Generator):
    """Step 1: node counts plus i.i.d. ``Lap(2(L+1)/eps)`` noise (level 0 first)."""
    scale = noise_scale(L, epsilon)
    return [c + laplace_noise(scale, rng, size=c.size) for c in node_counts(k_idx, L)]


def prefix_counts(nodes: list[np.ndarray], L: int) -> np.ndarray:
    """Step 2: ``P[k]`` = sum of the nodes of the dyadic decomposition of ``[0, k)``,
    ``k = 0..2^L``.

    Built level by level in ``O(2^L)``: at level ``l`` the prefixes end at ``j 2^(L-l)``; an
    even ``j = 2i`` is a prefix of level ``l - 1`` and an odd ``j = 2i + 1`` adds node ``(l, 2i)``.
    """
    P = np.array([0.0, nodes[0][0]])
    for level in range(1, L + 1):
        nxt = np.empty(2 * P.size - 1)
        nxt[0::2] = P
        nxt[1::2] = P[:-1] + nodes[level][0::2]
        P = nxt
    return P


def sanitize_thresholds(k_idx, T: int, epsilon: float, alpha0: float,
                        rng: np.random.Generator) -> np.ndarray:
    """``D~``: ``s`` grid indices (sorted, with repeats) released from the sample ``k_idx``.

    ``k_idx`` are grid indices in ``[0, T)``; ``epsilon``-DP w.r.t. replacing one of them
    (module docstring). The sample size ``n = len(k_idx)`` is public.
    """
    epsilon = check_epsilon(epsilon)
    s = sanitized_size(alpha0)
    L = tree_depth(T)
    k_idx = np.asarray(k_idx, dtype=np.int64)
    n = k_idx.size
    if n == 0:
        raise ValueError("the unlabelled sample must not be empty")
    if k_idx.min() < 0 or k_idx.max() >= T:
        raise ValueError(f"grid indices must be in [0, {T}), got range "
                         f"[{k_idx.min()}, {k_idx.max()}]")
    prefix = prefix_counts(noisy_node_counts(k_idx, L, epsilon, rng), L)
    inner = isotonic_regression(prefix[1:-1], y_min=0.0, y_max=float(n), increasing=True)
    F = np.concatenate([[0.0], inner, [float(n)]])  # F[k] ~ #{x_i < k}, k = 0..2^L
    targets = (np.arange(1, s + 1) - 0.5) * n / s
    # q = min{k : F[k + 1] >= target}; F is non-decreasing and F[2^L] = n >= every target.
    q = np.searchsorted(F[1:], targets, side="left")
    return np.minimum(q, T - 1).astype(np.int64)
