"""The CPU bitset kernels of levels 2 and 3 as they were before the v2 kernels (``kernel="v1"`` of
:class:`ppm.core.hypothesis_class.BitsetScorer`), kept unchanged for two uses: the before/after
measurement of ``scripts/bench.py`` (the same bitsets, the same process) and an independent
second implementation the tests compare the current kernels with (tests/test_bitset_v2.py).

Same bitsets and histograms as :mod:`ppm.core._bitset_kernels` (whose docstring describes the
layout): word-outer tiles of ``TILE`` partners scored into an ``int64`` vector with a signed
vectorised popcount (or the carry-save fold, ``csa=True``), then 4 interleaved ``int64``
sub-histograms per chunk.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ppm.core._bitset_kernels import popcount

ROWS = 8
TILE = 512


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
