"""Numba kernels: exact sweep of the dual line arrangement of Select Halfplane (docs/model.md §9.2).

KMMS19 (Kaplan, Mansour, Matias, Stemmer, ICML 2019), section 4, Select Halfplane Step 3:
the sample's dual lines ``b = y - x a`` cut the box ``[-B, B]^2`` (``B = 2 T^2``) into regions
(Observation 4.4). We sweep the vertical slabs between consecutive event abscissae (pairwise
intersections of lines, crossings of the box's top/bottom edges) left to right. Inside a slab
the lines are totally ordered; the gap ``g`` between the lines at positions ``g - 1`` and ``g``
(bottom edge / top edge at the ends) is a trapezoid whose points lie strictly above exactly the
lines at positions ``0..g-1``. A gap is closed (its trapezoid emitted) only when one of its
bounding lines changes or crosses a box edge, so the sweep costs O(#incidences) = O(n^2) after
sorting the events: the O(n^2 log n) of docs/model.md §9.2.

Exact arithmetic: every abscissa is a rational ``P / Q`` with int64 ``P``, ``Q > 0`` (pairs:
``|P|, Q <= T``; edges: ``|P| <= B + T``, ``Q <= T``). For ``T <= 2^20`` every product below
stays under ``2^63``; the caller enforces that bound. Only the areas are float64, each computed
from exact integer numerators (so tiny cells near vertices keep their relative accuracy).

Gap scores: with ``cum0[g]``, ``cum1[g]`` the label-0 / label-1 multiplicities of the lines
below gap ``g``, box 1 (``z = +1``) labels 0 exactly those lines (Observation 4.1: ``f = 0`` iff
``y < a x + b`` iff the dual point is strictly above the line), box 2 (``z = -1``) labels 0
exactly the lines above. The score ``q = min(n0 - threshold, -n1)`` takes few distinct values,
so areas are accumulated per score *bucket*: kind A ``(n0 - threshold)`` index ``n0``, kind B
``(-n1)`` index ``N0 + 1 + n1``; box 2 buckets are offset by ``N0 + N1 + 2``.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def _value_num(line, side, xs, ys, P, Q, B):
    """Numerator over ``Q`` of the clipped height of ``line`` at ``a = P / Q``.

    ``line < 0`` is the box edge on ``side`` (-1 bottom, +1 top)."""
    if line < 0:
        return side * B * Q
    v = ys[line] * Q - xs[line] * P
    lim = B * Q
    if v > lim:
        return lim
    if v < -lim:
        return -lim
    return v


@njit(cache=True, inline="always")
def _trapezoid_area(lo, hi, P0, Q0, P1, Q1, xs, ys, B):
    """Area of ``{P0/Q0 <= a <= P1/Q1, clip(lo(a)) <= b <= clip(hi(a))}`` (affine widths)."""
    w0 = _value_num(hi, 1, xs, ys, P0, Q0, B) - _value_num(lo, -1, xs, ys, P0, Q0, B)
    w1 = _value_num(hi, 1, xs, ys, P1, Q1, B) - _value_num(lo, -1, xs, ys, P1, Q1, B)
    da = float(P1 * Q0 - P0 * Q1) / (float(Q0) * float(Q1))
    return da * 0.5 * (float(w0) / float(Q0) + float(w1) / float(Q1))


@njit(cache=True, inline="always")
def _bucket(box, n0, n1, N0, N1, thr):
    """Score bucket of a gap in ``box`` (0: z=+1, 1: z=-1) whose box-1 counts are n0, n1."""
    if box == 1:
        n0 = N0 - n0
        n1 = N1 - n1
    if n0 - thr <= -n1:
        b = n0
    else:
        b = N0 + 1 + n1
    return box * (N0 + N1 + 2) + b


@njit(cache=True)
def _emit(mode, g, lo, hi, P0, Q0, P1, Q1, xs, ys, B, cum0, cum1, N0, N1, thr,
          bucket_area, bucket_count, tb, rec_int, rec_area, n_rec):
    """Handle one closed trapezoid. Returns the new record count."""
    if P0 * Q1 == P1 * Q0:
        return n_rec
    area = _trapezoid_area(lo, hi, P0, Q0, P1, Q1, xs, ys, B)
    if area <= 0.0:
        return n_rec
    if mode == 0:
        for box in range(2):
            b = _bucket(box, cum0[g], cum1[g], N0, N1, thr)
            bucket_area[b] += area
            bucket_count[b] += 1
        return n_rec
    if mode == 1 and _bucket(tb // (N0 + N1 + 2), cum0[g], cum1[g], N0, N1, thr) != tb:
        return n_rec
    rec_int[n_rec, 0], rec_int[n_rec, 1] = P0, Q0
    rec_int[n_rec, 2], rec_int[n_rec, 3] = P1, Q1
    rec_int[n_rec, 4], rec_int[n_rec, 5] = lo, hi
    rec_int[n_rec, 6], rec_int[n_rec, 7] = cum0[g], cum1[g]
    rec_area[n_rec] = area
    return n_rec + 1


@njit(cache=True)
def _reverse_blocks(inv, n_inv, order, pos_of, xs, ys, P, Q, cum0, cum1, c0, c1, buf):
    """Reverse every block of involved lines meeting at one point at ``a = P / Q``."""
    # sort the involved lines by position (blocks are contiguous in the order)
    ps = buf[:n_inv]
    for k in range(n_inv):
        ps[k] = pos_of[inv[k]]
    if n_inv == 2:  # the common case: one simple crossing
        if ps[0] > ps[1]:
            ps[0], ps[1] = ps[1], ps[0]
    else:
        ps.sort()
    k = 0
    while k < n_inv:
        e = k
        v = ys[order[ps[k]]] * Q - xs[order[ps[k]]] * P
        while e + 1 < n_inv and ys[order[ps[e + 1]]] * Q - xs[order[ps[e + 1]]] * P == v:
            e += 1
        if e > k:
            p, r = ps[k], ps[e]
            if r - p != e - k:  # lines through one point must be adjacent: exactness check
                return False
            i, j = p, r
            while i < j:
                order[i], order[j] = order[j], order[i]
                i += 1
                j -= 1
            for t in range(p, r + 1):
                pos_of[order[t]] = t
                cum0[t + 1] = cum0[t] + c0[order[t]]
                cum1[t + 1] = cum1[t] + c1[order[t]]
        k = e + 1
    return True


@njit(cache=True)
def sweep(mode, xs, ys, c0, c1, B, ev_P, ev_Q, ev_i, ev_j, grp, thr,
          bucket_area, bucket_count, tb, rec_int, rec_area):
    """Sweep the arrangement of the distinct lines ``(xs, ys)`` (sorted by ``(x, y)``).

    mode 0: accumulate the area and the number of trapezoids of every score bucket into
    ``bucket_area`` / ``bucket_count``; returns 0;
    mode 1: record the trapezoids of bucket ``tb`` (box-1 coordinates; ``rec_int`` needs
    ``bucket_count[tb]`` rows) in sweep order; returns the count;
    mode 2: record every box-1 trapezoid; returns the count.
    A record is ``(P0, Q0, P1, Q1, lo, hi, n0, n1)`` in ``rec_int`` and its area in
    ``rec_area``. No draw happens here: the caller draws among the records
    (:func:`ppm.mechanisms.draw_index`). Returns -2 if an exactness check failed.
    """
    m = xs.shape[0]
    N0, N1 = c0.sum(), c1.sum()
    order = np.arange(m)  # at a = -B the order is by (x, y): the caller sorted the lines
    pos_of = np.arange(m)
    cum0 = np.zeros(m + 1, dtype=np.int64)
    cum1 = np.zeros(m + 1, dtype=np.int64)
    for t in range(m):
        cum0[t + 1] = cum0[t] + c0[t]
        cum1[t + 1] = cum1[t] + c1[t]
    sP = np.full(m + 1, -B, dtype=np.int64)  # start abscissa of each gap's open trapezoid
    sQ = np.ones(m + 1, dtype=np.int64)
    stamp_l = np.full(m, -1, dtype=np.int64)
    stamp_g = np.full(m + 1, -1, dtype=np.int64)
    inv = np.empty(m, dtype=np.int64)
    gaps = np.empty(m + 1, dtype=np.int64)
    buf = np.empty(m, dtype=np.int64)
    n_rec = 0
    n_grp = grp.shape[0] - 1
    for G in range(n_grp + 1):
        if G < n_grp:
            P, Q = ev_P[grp[G]], ev_Q[grp[G]]
            n_inv = 0
            for e in range(grp[G], grp[G + 1]):
                for line in (ev_i[e], ev_j[e]):
                    if line >= 0 and stamp_l[line] != G:
                        stamp_l[line] = G
                        inv[n_inv] = line
                        n_inv += 1
            n_gaps = 0
            for k in range(n_inv):
                p = pos_of[inv[k]]
                for g in (p, p + 1):
                    if stamp_g[g] != G:
                        stamp_g[g] = G
                        gaps[n_gaps] = g
                        n_gaps += 1
        else:  # final closing at the right edge a = B
            P, Q = B, 1
            n_inv = 0
            n_gaps = m + 1
            for g in range(m + 1):
                gaps[g] = g
        for k in range(n_gaps):
            g = gaps[k]
            lo = order[g - 1] if g > 0 else -1
            hi = order[g] if g < m else -1
            n_rec = _emit(mode, g, lo, hi, sP[g], sQ[g], P, Q, xs, ys, B, cum0, cum1,
                          N0, N1, thr, bucket_area, bucket_count, tb, rec_int, rec_area, n_rec)
            sP[g], sQ[g] = P, Q
        if n_inv > 1:
            if not _reverse_blocks(inv, n_inv, order, pos_of, xs, ys, P, Q,
                                   cum0, cum1, c0, c1, buf):
                return -2
    return n_rec


@njit(cache=True)
def build_events(xs, ys, B):
    """Events of the sweep: every pair of non-parallel distinct lines (``a = dy / dx``) and
    every crossing of ``b = +B`` / ``b = -B`` strictly inside ``-B < a < B`` (on the vertical
    box edges nothing changes). Lines are sorted by ``(x, y)``, so ``dx >= 0``."""
    m = xs.shape[0]
    cap = m * (m - 1) // 2 + 2 * m
    P = np.empty(cap, dtype=np.int64)
    Q = np.empty(cap, dtype=np.int64)
    ei = np.empty(cap, dtype=np.int64)
    ej = np.empty(cap, dtype=np.int64)
    c = 0
    for i in range(m):
        for j in range(i + 1, m):
            dx = xs[j] - xs[i]
            if dx != 0:  # equal x: parallel lines, never meet
                P[c], Q[c], ei[c], ej[c] = ys[j] - ys[i], dx, i, j
                c += 1
    for i in range(m):
        if xs[i] > 0:
            for num in (ys[i] - B, ys[i] + B):  # b = +B at a = (y - B)/x, b = -B at (y + B)/x
                if -B * xs[i] < num < B * xs[i]:
                    P[c], Q[c], ei[c], ej[c] = num, xs[i], i, -1
                    c += 1
    return P[:c], Q[:c], ei[:c], ej[:c]


@njit(cache=True)
def exact_event_order(P, Q, ei, ej, idx):
    """Sort the events exactly and group equal abscissae; ``idx`` is an argsort by ``P / Q``.

    Float division is correctly rounded, hence monotone: only runs of EQUAL float keys can be
    out of exact order; each run is insertion-sorted by integer cross-multiplication. Groups are
    maximal runs of exactly equal rationals (cross-multiplication, no reduction needed)."""
    n = idx.shape[0]
    s = 0
    while s < n:
        e = s + 1
        key = P[idx[s]] / Q[idx[s]]
        while e < n and P[idx[e]] / Q[idx[e]] == key:
            e += 1
        for k in range(s + 1, e):
            cur = idx[k]
            t = k - 1
            while t >= s and P[idx[t]] * Q[cur] > P[cur] * Q[idx[t]]:
                idx[t + 1] = idx[t]
                t -= 1
            idx[t + 1] = cur
        s = e
    sP, sQ, si, sj = P[idx], Q[idx], ei[idx], ej[idx]
    grp = np.empty(n + 1, dtype=np.int64)
    g = 0
    for k in range(n):
        if k == 0 or sP[k] * sQ[k - 1] != sP[k - 1] * sQ[k]:
            grp[g] = k
            g += 1
    grp[g] = n
    return sP, sQ, si, sj, grp[:g + 1]


def count_records(n_events, m):
    """Upper bound on the trapezoids mode 2 records: an event group closes at most two gaps
    per involved line (at most two lines per event), plus the ``m + 1`` final closings."""
    return 4 * n_events + m + 1
