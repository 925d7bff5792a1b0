"""numba kernels of :class:`ppm.core.sweep_scorer.SweepScorer`: incremental (angular sweep) scoring.

For a hypothesis ``(prefix, h_i, h_k)`` with region ``R_i = M ∩ h_i`` (``M`` = the prefix's
intersection) the score is ``m = n_0 - v_i[k]`` with ``v_i[k] = sum_{x in R_i} s_x [x in h_k]``.
For a fixed row ``i`` the whole vector ``v_i`` (over partners ``k``) is needed, and its histogram
over ``k > i``. Rows are visited in the *walk order* of the scorer (halfspaces through the same
pivot sorted by angle, so consecutive rows differ by the few examples the rotating hyperplane
crosses), and ``v`` is updated from the previous row by the signed columns of those examples::

    v_{i'} = v_i + sum_{x entering} s_x B[:, x] - sum_{x leaving} s_x B[:, x]

(integer arithmetic, exact; the membership bits are the single source of truth, the geometry
only decides the order and so the speed). When a step changes many examples the vector is
recomputed from the bitsets by popcount instead. Each hypothesis then costs one histogram
increment plus a few vectorised ``int16`` additions, not a ``popcount`` over the whole sample.

The histogram of a row is order-free, so rows may be visited in any order; the rank pass still
works in canonical order (``find_in_chunk`` of :mod:`ppm.core._bitset_kernels`), on one chunk.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ppm.core._bitset_kernels import popcount


@njit(cache=True)
def _reinit(PQT, wP, R, lo, v):
    """v[k] = popcount(R & P_k) - popcount(R & Q_k) for k in [lo, m)."""
    W, m = PQT.shape
    for k in range(lo, m):
        v[k] = 0
    for t in range(W):
        r = R[t]
        if r == 0:
            continue
        row = PQT[t]
        if t < wP:
            for k in range(lo, m):
                v[k] += popcount(r & row[k])
        else:
            for k in range(lo, m):
                v[k] -= popcount(r & row[k])


@njit(cache=True)
def _apply(Sc, x, e, lo, v):
    """v[lo:] += e * Sc[x, lo:] (Sc[x, k] = s_x [x in h_k], int8)."""
    col = Sc[x]
    m = v.shape[0]
    if e > 0:
        for k in range(lo, m):
            v[k] += col[k]
    else:
        for k in range(lo, m):
            v[k] -= col[k]


@njit(cache=True)
def _hist_row(v, lo, m, n0, h4, nb):
    """4 interleaved histograms of n0 - v[k], k in [lo, m) (independent increments)."""
    k = lo
    while k + 4 <= m:
        h4[n0 - v[k]] += 1
        h4[nb + n0 - v[k + 1]] += 1
        h4[2 * nb + n0 - v[k + 2]] += 1
        h4[3 * nb + n0 - v[k + 3]] += 1
        k += 4
    while k < m:
        h4[n0 - v[k]] += 1
        k += 1


@njit(cache=True)
def _walk(PQT, wP, Mw, Mx, Sc, order, bstart, cptr, cx, ce, t0, t1, fresh, row_min, n0, thr,
          v, R, h4, nb):
    """Rows order[t0:t1] into the histogram h4 (rows i <= row_min only carry the state).

    ``v`` holds row order[t0 - 1] on the columns still needed, or ``fresh`` recomputes it.
    Columns k <= max(block start, row_min + 1) are never read again, so they go stale.
    """
    W, m = PQT.shape
    for t in range(t0, t1):
        i = order[t]
        lo = max(bstart[t], row_min + 1) + 1
        c = 0  # changes inside the mask from row order[t - 1] to row i
        for p in range(cptr[t], cptr[t + 1]):
            if Mx[cx[p]]:
                c += 1
        if (fresh and t == t0) or c > thr:
            for w in range(W):
                R[w] = Mw[w] & PQT[w, i]
            _reinit(PQT, wP, R, lo, v)
        elif c > 0:
            for p in range(cptr[t], cptr[t + 1]):
                x = cx[p]
                if Mx[x]:
                    _apply(Sc, x, ce[p], lo, v)
        if i > row_min and i + 1 < m:
            _hist_row(v, i + 1, m, n0, h4, nb)


@njit(cache=True, parallel=True)
def level2_hist(PQT, wP, Mw, Mx, Sc, order, bstart, cptr, cx, ce, blocks, chunk_bounds,
                n0, thr, hist):
    """Pairs (i, k), i < k, inside the mask; hist[b] = histogram of the rows of block b.

    Block ``b`` is the canonical range [blocks[b], blocks[b+1]) (also its walk positions);
    prange chunk ``c`` walks blocks [chunk_bounds[c], chunk_bounds[c+1]) with one state.
    """
    W, m = PQT.shape
    nb = hist.shape[1]
    for c in prange(chunk_bounds.shape[0] - 1):
        v = np.zeros(m, dtype=np.int16)
        R = np.empty(W, dtype=np.uint64)
        h4 = np.zeros(4 * nb, dtype=np.int32)
        for b in range(chunk_bounds[c], chunk_bounds[c + 1]):
            _walk(PQT, wP, Mw, Mx, Sc, order, bstart, cptr, cx, ce, blocks[b], blocks[b + 1],
                  b == chunk_bounds[c], -1, n0, thr, v, R, h4, nb)
            for j in range(4):
                for q in range(nb):
                    hist[b, q] += h4[j * nb + q]
                    h4[j * nb + q] = 0


@njit(cache=True, parallel=True)
def level3_hist(PQT, wP, Mw, Mx, Sc, order, bstart, cptr, cx, ce, first_bounds, n0, thr, hist):
    """Triples (a, i, k), a < i < k, inside the mask; chunk c covers a in first_bounds[c:c+2]."""
    W, m = PQT.shape
    n = Mx.shape[0]
    nb = hist.shape[1]
    for c in prange(first_bounds.shape[0] - 1):
        v = np.zeros(m, dtype=np.int16)
        R = np.empty(W, dtype=np.uint64)
        A = np.empty(W, dtype=np.uint64)
        Ax = np.empty(n, dtype=np.bool_)
        h4 = np.zeros(4 * nb, dtype=np.int32)
        for a in range(first_bounds[c], first_bounds[c + 1]):
            if a + 2 >= m:
                continue
            for w in range(W):
                A[w] = Mw[w] & PQT[w, a]
            for x in range(n):
                Ax[x] = Mx[x] and Sc[x, a] != 0
            # Rows i > a live in the blocks from the one holding row a + 1 on (blocks are
            # canonical ranges, so walk position a + 1 is in that block too).
            _walk(PQT, wP, A, Ax, Sc, order, bstart, cptr, cx, ce, bstart[a + 1], m, True, a,
                  n0, thr, v, R, h4, nb)
        for j in range(4):
            for q in range(nb):
                hist[c, q] += h4[j * nb + q]


@njit(cache=True, parallel=True)
def signed_columns(B, s, out):
    """out[x, k] = s[x] if B[k, x] else 0 (int8), the column of example x over halfspaces."""
    m, n = B.shape
    for x in prange(n):
        for k in range(m):
            out[x, k] = s[x] if B[k, x] else 0


@njit(cache=True)
def change_lists(B, order, cptr, cx, ce):
    """Examples entering (+1) / leaving (-1) between walk rows t-1 and t; returns the length."""
    m, n = B.shape
    p = 0
    cptr[0] = 0
    cptr[1] = 0
    for t in range(1, m):
        a, b = order[t - 1], order[t]
        for x in range(n):
            if B[a, x] != B[b, x]:
                if p < cx.shape[0]:
                    cx[p] = x
                    ce[p] = 1 if B[b, x] else -1
                p += 1
        cptr[t + 1] = p
    return p


@njit(cache=True, parallel=True)
def floor_walk(steps, repeats, chunks, out):
    """The hardware floor of exact sampling: one histogram increment per hypothesis.

    Each of ``chunks`` parallel tasks runs ``repeats`` times over the +-1 walk ``steps``
    (positions in a small histogram) and only increments ``hist[pos]``; ``out[c]`` receives
    the task's total so the loop cannot be removed. Increments/s = chunks * repeats * len.
    """
    L = steps.shape[0]
    for c in prange(chunks):
        hist = np.zeros(1024, dtype=np.int64)
        for r in range(repeats):
            for j in range(L):
                hist[steps[j]] += 1
        out[c] = hist.sum()
