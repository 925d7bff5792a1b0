"""numba kernels of :class:`ppm.core.hypothesis_class.BitsetScorer` (exact scoring of ``G``).

Every halfspace ``h`` of ``C_pub`` is stored as two bitsets over the sample, restricted to
``Aff``: ``P[h]`` over the label-0 examples and ``Q[h]`` over the label-1 examples. The region
of a hypothesis is the AND of its halfspaces' bitsets and its score is
``m = n_0 - (popcount(P part) - popcount(Q part))``, exact integer arithmetic.

Layout for speed: the bitsets are stored word-major, ``PQT[t, k]`` = word ``t`` of halfspace
``k`` (the first ``wP`` words are ``P``). For a block of ``ROWS`` rows ``i`` (each already ANDed
with the prefix of the hypothesis) the kernel scores a tile of ``TILE`` partners ``k`` at once:
the loop over ``k`` is contiguous, so LLVM vectorises it (AVX-512 ``vpopcntq`` where the CPU has
it, a shuffle-based popcount otherwise), and each tile is loaded once for the whole block of
rows. Scores go into 4 interleaved sub-histograms so consecutive increments do not wait on
each other. Histograms are kept per *chunk* (a block of rows for level 2, of first indices for
level 3) so the rank pass recomputes one chunk, in canonical order, with the plain formula.

**Carry-save popcount** (``csa=True`` of :func:`level2_hist` / :func:`level3_hist`,
:func:`_tile_levels_csa`): the GPU kernel's Harley-Seal fold (docs/gpu.md) in the same
word-outer / partner-inner loops, ``floor(W/2) + 1`` popcounts per hypothesis instead of ``W``,
same histograms. It is not the default (``CSA_MIN_WORDS = None``): per pair of words it trades
one popcount for a load and a store of the per-partner ``ones`` word and about five logic
operations, which costs as much. Measured with ``scripts/bench.py --popcount-only`` (histogram
pass only, same bitsets, alternating, fastest of 3) on 2 cores of an Intel Xeon with AVX-512
``vpopcntq``, shared with about one to two cores of other work: 0.85-0.94x the plain kernel's
speed at 1 thread and 0.66-1.02x at 2 threads over 2-11 words (4 words of the d = 3, n = 200,
``w_pub = 0.1`` cell: 0.88x and 0.66x; synthetic 6 and 9 words: 0.85x, 0.94x / 0.87x, 1.02x);
compiled for the same CPU without AVX-512 (shuffle-based popcount, ``NUMBA_CPU_NAME=znver3``
and the ``avx512`` features off): 0.77-0.94x. Details in docs/performance.md.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.extending import intrinsic

ROWS = 8
TILE = 512
# BitsetScorer scores with the carry-save popcount from this many words per bitset on; None:
# never (it measured 0.66-1.02x the plain popcount's speed at 2-11 words, see above).
CSA_MIN_WORDS = None


@intrinsic
def popcount(typingctx, x):
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.zext(builder.ctpop(args[0]), ir.IntType(64))

    return sig, codegen


@njit(cache=True, parallel=True)
def pack_word_major(B, pos, out):
    """out[pos[j] >> 6, k] has bit pos[j] & 63 set iff B[k, j] (out zero-initialised)."""
    for k in prange(B.shape[0]):
        for j in range(B.shape[1]):
            if B[k, j]:
                p = pos[j]
                out[p >> 6, k] |= np.uint64(1) << np.uint64(p & 63)


@njit(cache=True)
def _tile_levels(PQT, wP, r_words, kt, L, n0, out):
    """out[j] = score m of the region (row r) ∩ h_{kt + j}, for j < L (n0 - signed count)."""
    W = PQT.shape[0]
    for j in range(L):
        out[j] = n0
    # Two words per pass over the tile: half the read-modify-writes of ``out``.
    for t in range(0, W - 1, 2):
        a, b = r_words[t], r_words[t + 1]
        sa = -1 if t < wP else 1
        sb = -1 if t + 1 < wP else 1
        ca = PQT[t, kt:kt + L]
        cb = PQT[t + 1, kt:kt + L]
        for j in range(L):
            out[j] += sa * popcount(a & ca[j]) + sb * popcount(b & cb[j])
    if W % 2:
        t = W - 1
        a = r_words[t]
        sa = -1 if t < wP else 1
        ca = PQT[t, kt:kt + L]
        for j in range(L):
            out[j] += sa * popcount(a & ca[j])


@njit(cache=True)
def _tile_levels_csa(PQT, wP, r_words, kt, L, n0, out, ones):
    """:func:`_tile_levels` with the carry-save popcount: same ``out``, ``floor(W/2) + 1``
    popcounts per partner instead of ``W``. ``ones`` is scratch (``L`` words at least).

    Label-0 words enter complemented (``popcount(x) = 64 - popcount(~x)``), so every word adds
    with the same sign, ``m = n0 - 64 wP + sum_t popcount(x'_t)``. Per pair of words ``x, y``
    a full adder folds them into ``ones`` (``u = ones ^ x``, carry ``(ones & x) | (u & y)``,
    ``ones = u ^ y``) and only the carry, of weight 2, is counted; ``ones`` is counted once at
    the end. An odd first word seeds ``ones``. Integer identities only: exact.
    """
    W = PQT.shape[0]
    full = ~np.uint64(0)
    zero = np.uint64(0)
    t0 = W % 2
    if t0:
        a = r_words[0]
        fa = full if 0 < wP else zero
        ca = PQT[0, kt:kt + L]
        for j in range(L):
            ones[j] = (a & ca[j]) ^ fa
    else:
        for j in range(L):
            ones[j] = zero
    for j in range(L):
        out[j] = 0
    for t in range(t0, W - 1, 2):
        a, b = r_words[t], r_words[t + 1]
        fa = full if t < wP else zero
        fb = full if t + 1 < wP else zero
        ca = PQT[t, kt:kt + L]
        cb = PQT[t + 1, kt:kt + L]
        for j in range(L):
            x = (a & ca[j]) ^ fa
            y = (b & cb[j]) ^ fb
            o = ones[j]
            u = o ^ x
            ones[j] = u ^ y
            out[j] += popcount((o & x) | (u & y))
    base = n0 - 64 * wP
    for j in range(L):
        out[j] = base + popcount(ones[j]) + 2 * out[j]


@njit(cache=True)
def _rows_range(PQT, wP, M, lo, hi, n0, hist4, csa):
    """Pairs (i, k), k > i, for rows i in [lo, hi), under the mask M (one word per row of PQT).

    ``hist4`` is 4 interleaved histograms of ``n1 = n + 1`` bins, flattened. ``csa``: score
    the tiles with :func:`_tile_levels_csa` instead of :func:`_tile_levels` (same scores).
    """
    W, m = PQT.shape
    n1 = hist4.shape[0] // 4
    R = np.empty((ROWS, W), dtype=np.uint64)
    S = np.empty(TILE, dtype=np.int64)
    ones = np.empty(TILE, dtype=np.uint64)
    for b in range(lo, hi, ROWS):
        nr = min(ROWS, hi - b)
        for r in range(nr):
            for t in range(W):
                R[r, t] = M[t] & PQT[t, b + r]
        for kt in range(b + 1, m, TILE):
            L = min(TILE, m - kt)
            for r in range(nr):
                first = max(0, b + r + 1 - kt)  # partners k > i = b + r
                if first >= L:
                    continue
                if csa:
                    _tile_levels_csa(PQT, wP, R[r], kt, L, n0, S, ones)
                else:
                    _tile_levels(PQT, wP, R[r], kt, L, n0, S)
                for j in range(first, L):
                    hist4[(j & 3) * n1 + S[j]] += 1


@njit(cache=True, parallel=True)
def level2_hist(PQT, wP, M, row_bounds, n0, hist, csa=False):
    """Pairs (i, k), i < k, inside mask M; chunk c covers rows [row_bounds[c], row_bounds[c+1]).

    ``csa``: the carry-save popcount (:func:`_tile_levels_csa`); the histograms are the same."""
    for c in prange(row_bounds.shape[0] - 1):
        hist4 = np.zeros(4 * hist.shape[1], dtype=np.int64)
        _rows_range(PQT, wP, M, row_bounds[c], row_bounds[c + 1], n0, hist4, csa)
        hist[c] += hist4.reshape(4, hist.shape[1]).sum(axis=0)


@njit(cache=True, parallel=True)
def level3_hist(PQT, wP, M, first_bounds, n0, hist, csa=False):
    """Triples (a, i, k), a < i < k, inside M; chunk c covers a in [first_bounds[c], ...).

    ``csa`` as in :func:`level2_hist`."""
    W, m = PQT.shape
    for c in prange(first_bounds.shape[0] - 1):
        hist4 = np.zeros(4 * hist.shape[1], dtype=np.int64)
        A = np.empty(W, dtype=np.uint64)
        for a in range(first_bounds[c], first_bounds[c + 1]):
            for t in range(W):
                A[t] = M[t] & PQT[t, a]
            _rows_range(PQT, wP, A, a + 1, m - 1, n0, hist4, csa)
        hist[c] += hist4.reshape(4, hist.shape[1]).sum(axis=0)


@njit(cache=True)
def _score(R, PQT, k, wP):
    S = 0
    for t in range(PQT.shape[0]):
        c = popcount(R[t] & PQT[t, k])
        S += c if t < wP else -c
    return S


@njit(cache=True)
def find_in_chunk(PQT, wP, M, depth, lo, hi, n0, level, rank):
    """The rank-th (0-based) hypothesis with score ``level`` in a chunk, in canonical order.

    depth 2: pairs (i, k) with i in [lo, hi); depth 3: triples (a, i, k) with a in [lo, hi).
    Plain scalar formula. Returns (a, i, k) with a = -1 for depth 2, or (-1, -1, -1).
    """
    W, m = PQT.shape
    A = M.copy()
    R = np.empty(W, dtype=np.uint64)
    for a in range(lo, hi):
        if depth == 3:
            for t in range(W):
                A[t] = M[t] & PQT[t, a]
            i_lo, i_hi = a + 1, m - 1
        else:
            i_lo, i_hi = a, a + 1
        for i in range(i_lo, i_hi):
            for t in range(W):
                R[t] = A[t] & PQT[t, i]
            for k in range(i + 1, m):
                if n0 - _score(R, PQT, k, wP) == level:
                    if rank == 0:
                        return (a if depth == 3 else -1), i, k
                    rank -= 1
    return -1, -1, -1


@njit(cache=True)
def singles(PQT, wP, M, n0):
    """Scores of the single halfspaces inside the mask, in index order."""
    out = np.empty(PQT.shape[1], dtype=np.int64)
    for k in range(PQT.shape[1]):
        out[k] = n0 - _score(M, PQT, k, wP)
    return out
