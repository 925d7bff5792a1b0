"""numba kernels of :class:`ppm.core.hypothesis_class.BitsetScorer` (exact scoring of ``G``).

Every halfspace ``h`` of ``C_pub`` is stored as two bitsets over the sample, restricted to
``Aff``: ``P[h]`` over the label-0 examples and ``Q[h]`` over the label-1 examples. The region
of a hypothesis is the AND of its halfspaces' bitsets and its score is
``m = n_0 - (popcount(P part) - popcount(Q part))``, exact integer arithmetic.

Layout for speed: the bitsets are stored word-major, ``PQT[t, k]`` = word ``t`` of halfspace
``k`` (the first ``wP`` words are ``P``). For a block of ``ROWS`` rows ``i`` (each already ANDed
with the prefix of the hypothesis) the kernel scores a tile of partners ``k`` at once: the loop
over ``k`` is contiguous, so LLVM vectorises it (AVX-512 ``vpopcntq`` where the CPU has it, a
shuffle-based popcount otherwise), and each tile is loaded once for the whole block of rows.
Histograms are kept per *chunk* (a block of rows for level 2, of first indices for level 3) so
the rank pass recomputes one chunk, in canonical order, with the plain formula.

What the v2 kernels changed (the v1 kernels before them are kept as
:mod:`ppm.core._bitset_kernels_v1` for the benchmark's before/after and the tests;
docs/performance.md has the numbers):

* **Sign-constant passes** (:func:`_tile_scores`): two words per pass, label-0 words subtracted
  and label-1 words added by loops whose signs are constants (v1 multiplied each popcount by a
  runtime sign), and the first pass assigns the score (no separate initialisation sweep).
* **int32 scores and histograms sized for L1**: the tile's scores are ``int32`` and go into 4
  interleaved ``int32`` sub-histograms per thread, unrolled by 4 so consecutive increments never
  wait on each other (``16 (n + 1)`` bytes: L1-resident up to n of about 1,500), flushed into the
  chunk's ``int64`` histogram at the end and before any bin could pass ``FLUSH_LIMIT``.
* **Longer partner tiles** (:func:`tile_width`): 2048 partners up to 8 words (at most 128 KiB
  of words, L2-resident), fewer above (v1: 512 partners at any word count): each (row, tile)
  pair costs a fixed setup of its passes, which longer tiles spread over more partners.

**Carry-save popcount** (``csa=True`` of :func:`level2_hist` / :func:`level3_hist`,
:func:`_tile_scores_csa`): the GPU kernel's Harley-Seal fold (docs/gpu.md) in the same
word-outer / partner-inner loops, ``floor(W/2) + 1`` popcounts per hypothesis instead of ``W``,
same histograms. It is not the default (``CSA_MIN_WORDS = None``): per pair of words it trades
one popcount for a load and a store of the per-partner ``ones`` word and about five logic
operations, which costs as much or more: 0.66-1.02x the plain popcount's speed with the v1
kernels on an AVX-512 Xeon, and 0.43-0.93x with the v2 kernels on the 2-core AMD EPYC (AVX2, no
``vpopcntq``; v1 there: 0.69-1.17x), measured with ``scripts/bench.py --popcount-only``
(docs/performance.md).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.extending import intrinsic

ROWS = 8
# Partners per tile, fewer where their words would pass TILE_MAX_BYTES (L2-resident). On the
# 2-core EPYC (one thread, 2-11 words) tiles of 184-8192 partners were within the noise of each
# other, 2048 among the fastest: each (row, tile) pair has a fixed cost, so not short tiles.
TILE_PARTNERS = 2048
TILE_MAX_BYTES = 1 << 17
# Increments an int32 sub-histogram bin may receive between flushes into the int64 histogram.
FLUSH_LIMIT = (1 << 31) - 1
# BitsetScorer scores with the carry-save popcount from this many words per bitset on; None:
# never (slower than the plain popcount at 2-11 words wherever measured, see above).
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


@njit(cache=True, inline="always")
def _pass(out, L, a, ca, b, cb, sa, sb, assign, n0):
    """One pass over a tile for words ``a``, ``b`` with constant signs ``sa``, ``sb`` (+-1, or 0:
    word absent) and ``assign`` (first pass: no separate initialisation sweep). Inlined with
    constant arguments, so each call is its own loop without multiplies or branches."""
    if assign:
        for j in range(L):
            out[j] = n0 + sa * popcount(a & ca[j]) + sb * popcount(b & cb[j])
    else:
        for j in range(L):
            out[j] += sa * popcount(a & ca[j]) + sb * popcount(b & cb[j])


@njit(cache=True)
def _tile_scores(PQT, wP, r_words, kt, L, n0, out):
    """out[j] (int32) = score m of the region (row r) ∩ h_{kt + j}, for j < L.

    Label-0 words (``t < wP``) subtract, label-1 words add, two words per pass; the sign pattern
    of a pass is a constant of its loop (the v1 kernel multiplied by a runtime sign)."""
    W = PQT.shape[0]
    c0 = PQT[0, kt:kt + L]
    if W == 1:
        if wP:
            _pass(out, L, r_words[0], c0, r_words[0], c0, -1, 0, True, n0)
        else:
            _pass(out, L, r_words[0], c0, r_words[0], c0, 1, 0, True, n0)
        return
    c1 = PQT[1, kt:kt + L]
    if wP >= 2:
        _pass(out, L, r_words[0], c0, r_words[1], c1, -1, -1, True, n0)
    elif wP == 1:
        _pass(out, L, r_words[0], c0, r_words[1], c1, -1, 1, True, n0)
    else:
        _pass(out, L, r_words[0], c0, r_words[1], c1, 1, 1, True, n0)
    t = 2
    while t + 1 < wP:
        _pass(out, L, r_words[t], PQT[t, kt:kt + L], r_words[t + 1], PQT[t + 1, kt:kt + L],
              -1, -1, False, n0)
        t += 2
    if t < wP:  # t = wP - 1: the last label-0 word, paired with the first label-1 word
        ca = PQT[t, kt:kt + L]
        if t + 1 < W:
            _pass(out, L, r_words[t], ca, r_words[t + 1], PQT[t + 1, kt:kt + L], -1, 1, False, n0)
            t += 2
        else:
            _pass(out, L, r_words[t], ca, r_words[t], ca, -1, 0, False, n0)
            t += 1
    while t + 1 < W:
        _pass(out, L, r_words[t], PQT[t, kt:kt + L], r_words[t + 1], PQT[t + 1, kt:kt + L],
              1, 1, False, n0)
        t += 2
    if t < W:
        ca = PQT[t, kt:kt + L]
        _pass(out, L, r_words[t], ca, r_words[t], ca, 1, 0, False, n0)


@njit(cache=True)
def _tile_scores_csa(PQT, wP, r_words, kt, L, n0, out, ones):
    """:func:`_tile_scores` with the carry-save popcount: same ``out``, ``floor(W/2) + 1``
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
def tile_width(W):
    """Partners per tile: ``TILE_PARTNERS``, or fewer so that the tile's words stay within
    ``TILE_MAX_BYTES`` (in L2 while it is scored against a block of ``ROWS`` rows); a multiple
    of 8, at least 64."""
    return max(64, min(TILE_PARTNERS, TILE_MAX_BYTES // (8 * W)) & ~7)


@njit(cache=True)
def _flush(h, H):
    """Add the 4 int32 sub-histograms ``h`` into the int64 histogram ``H`` and zero them."""
    n1 = H.shape[0]
    for q in range(4):
        for v in range(n1):
            H[v] += h[q * n1 + v]
            h[q * n1 + v] = 0


@njit(cache=True)
def _rows_range(PQT, wP, M, lo, hi, n0, h, H, pending, tile, csa, limit):
    """Pairs (i, k), k > i, for rows i in [lo, hi), under the mask M (one word per row of PQT),
    counted into ``h``: 4 interleaved int32 histograms of ``n1 = n + 1`` bins (flattened),
    flushed into the int64 ``H`` before any bin could pass ``limit`` (``pending[0]`` counts the
    increments since the last flush). Returns nothing; ``csa`` as in :func:`level2_hist`."""
    W, m = PQT.shape
    n1 = H.shape[0]
    R = np.empty((ROWS, W), dtype=np.uint64)
    S = np.empty(tile, dtype=np.int32)
    ones = np.empty(tile, dtype=np.uint64)
    for b in range(lo, hi, ROWS):
        nr = min(ROWS, hi - b)
        work = nr * (m - 1 - b)  # at most this many increments in this block of rows
        if pending[0] + work > limit:
            _flush(h, H)
            pending[0] = 0
        pending[0] += work
        for r in range(nr):
            for t in range(W):
                R[r, t] = M[t] & PQT[t, b + r]
        for kt in range(b + 1, m, tile):
            L = min(tile, m - kt)
            for r in range(nr):
                first = max(0, b + r + 1 - kt)  # partners k > i = b + r
                if first >= L:
                    continue
                if csa:
                    _tile_scores_csa(PQT, wP, R[r], kt, L, n0, S, ones)
                else:
                    _tile_scores(PQT, wP, R[r], kt, L, n0, S)
                # 4 sub-histograms, unrolled: consecutive increments never wait on each other
                j = first
                while j + 3 < L:
                    h[S[j]] += 1
                    h[n1 + S[j + 1]] += 1
                    h[2 * n1 + S[j + 2]] += 1
                    h[3 * n1 + S[j + 3]] += 1
                    j += 4
                while j < L:
                    h[S[j]] += 1
                    j += 1


@njit(cache=True, parallel=True)
def level2_hist(PQT, wP, M, row_bounds, n0, hist, csa=False, limit=FLUSH_LIMIT):
    """Pairs (i, k), i < k, inside mask M; chunk c covers rows [row_bounds[c], row_bounds[c+1]).

    ``csa``: the carry-save popcount (:func:`_tile_scores_csa`); the histograms are the same.
    ``limit``: increments between flushes of the int32 sub-histograms (tests lower it)."""
    tile = tile_width(PQT.shape[0])
    for c in prange(row_bounds.shape[0] - 1):
        h = np.zeros(4 * hist.shape[1], dtype=np.int32)
        pending = np.zeros(1, dtype=np.int64)
        _rows_range(PQT, wP, M, row_bounds[c], row_bounds[c + 1], n0, h, hist[c], pending,
                    tile, csa, limit)
        _flush(h, hist[c])


@njit(cache=True, parallel=True)
def level3_hist(PQT, wP, M, first_bounds, n0, hist, csa=False, limit=FLUSH_LIMIT):
    """Triples (a, i, k), a < i < k, inside M; chunk c covers a in [first_bounds[c], ...).

    ``csa`` and ``limit`` as in :func:`level2_hist`."""
    W, m = PQT.shape
    tile = tile_width(W)
    for c in prange(first_bounds.shape[0] - 1):
        h = np.zeros(4 * hist.shape[1], dtype=np.int32)
        pending = np.zeros(1, dtype=np.int64)
        A = np.empty(W, dtype=np.uint64)
        for a in range(first_bounds[c], first_bounds[c + 1]):
            for t in range(W):
                A[t] = M[t] & PQT[t, a]
            _rows_range(PQT, wP, A, a + 1, m - 1, n0, h, hist[c], pending, tile, csa, limit)
        _flush(h, hist[c])


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
