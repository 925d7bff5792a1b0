"""Numba kernels of the exact triangle selection (KMMS19 section 5; docs/model.md §9.2).

The ``L`` merged cells of the dual arrangement are bit-packed labellings of the ``m`` distinct
points (``bits``: (L, W) uint64, bit ``i`` = 1 iff the cell's halfplane labels point ``i``
with 1). For an ordered triple the points inside the triangle are ``b_1 & b_2 & b_3``; their
multiplicity-weighted counts of conjunction-side label 0 / 1 are sums of per-byte lookup
tables (``tab0``, ``tab1``: (8 W, 256) int64), exact integers. The score ``q = min(n0 - thr,
-n1)`` takes one of ``N0 + N1 + 2`` bucket values (kind A: ``n0 - thr``, index ``n0``; kind B:
``-n1``, index ``N0 + 1 + n1``), so the weights are accumulated per bucket as sums of mass
products (no exponential per triple) and combined by a log-sum-exp over the buckets.

The kernels receive the exponential mechanism's temperature ``temp`` (``epsilon / 2`` for the
score of sensitivity 1), precomputed by :func:`ppm.mechanisms.em_temperature`, and weight a
score ``q`` by ``exp(temp q)``: the factor ``1/2`` is not written here.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def byte_counts(x, w, tab0, tab1):
    n0 = 0
    n1 = 0
    for j in range(8):
        v = (x >> np.uint64(8 * j)) & np.uint64(255)
        if v:
            n0 += tab0[8 * w + j, v]
            n1 += tab1[8 * w + j, v]
    return n0, n1


@njit(cache=True, inline="always")
def triple_counts(x12, row, tab0, tab1):
    """Multiplicity-weighted counts (label 0, label 1) of the points in ``x12 & row``."""
    n0 = 0
    n1 = 0
    for w in range(x12.shape[0]):
        a0, a1 = byte_counts(x12[w] & row[w], w, tab0, tab1)
        n0 += a0
        n1 += a1
    return n0, n1


@njit(cache=True, inline="always")
def _bucket(n0, n1, N0, thr):
    if n0 - thr <= -n1:
        return n0
    return N0 + 1 + n1


@njit(cache=True)
def _bucket_lse(acc, N0, thr, temp):
    """``log sum_b acc[b] exp(temp q_b)`` over the buckets with ``acc > 0``."""
    nb = acc.shape[0]
    top = -np.inf
    for b in range(nb):
        if acc[b] > 0.0:
            q = (b - thr) if b <= N0 else -(b - N0 - 1.0)
            v = np.log(acc[b]) + temp * q
            if v > top:
                top = v
    if top == -np.inf:
        return -np.inf
    s = 0.0
    for b in range(nb):
        if acc[b] > 0.0:
            q = (b - thr) if b <= N0 else -(b - N0 - 1.0)
            s += np.exp(np.log(acc[b]) + temp * q - top)
    return top + np.log(s)


@njit(cache=True)
def log_weights(bits, mass, c1, c2, tab0, tab1, N0, N1, thr, temp):
    """Unnormalised log-weights of one step of the chain rule (``mass`` normalised to sum 1;
    ``temp`` = :func:`ppm.mechanisms.em_temperature` of the selection's epsilon).

    ``c1 < 0``: ``log W(c) = log sum_{c2, c3} m(c) m(c2) m(c3) exp(temp q)`` for every ``c``;
    ``c1 >= 0, c2 < 0``: ``log sum_{c3} m(c1) m(c) m(c3) exp(temp q)`` for every ``c``;
    both given: ``log m(c1) m(c2) m(c) + temp q`` for every ``c``."""
    L, W = bits.shape
    out = np.full(L, -np.inf)
    acc = np.zeros(N0 + N1 + 2)
    if c1 >= 0 and c2 >= 0:
        base = np.log(mass[c1]) + np.log(mass[c2])
        x12 = bits[c1] & bits[c2]
        for c in range(L):
            n0, n1 = triple_counts(x12, bits[c], tab0, tab1)
            out[c] = base + np.log(mass[c]) + temp * min(n0 - thr, -float(n1))
        return out
    x12 = np.empty(W, dtype=np.uint64)
    for c in range(L):
        if mass[c] <= 0.0:
            continue
        acc[:] = 0.0
        if c1 >= 0:  # sum over c3 for (c1, c)
            for w in range(W):
                x12[w] = bits[c1, w] & bits[c, w]
            for c3 in range(L):
                n0, n1 = triple_counts(x12, bits[c3], tab0, tab1)
                acc[_bucket(n0, n1, N0, thr)] += mass[c3]
            out[c] = np.log(mass[c1]) + np.log(mass[c]) + _bucket_lse(acc, N0, thr, temp)
        else:  # sum over (c2, c3) for c
            for d in range(L):
                for w in range(W):
                    x12[w] = bits[c, w] & bits[d, w]
                md = mass[d]
                for c3 in range(L):
                    n0, n1 = triple_counts(x12, bits[c3], tab0, tab1)
                    acc[_bucket(n0, n1, N0, thr)] += md * mass[c3]
            out[c] = np.log(mass[c]) + _bucket_lse(acc, N0, thr, temp)
    return out


def pack(labels: np.ndarray, c0: np.ndarray, c1: np.ndarray):
    """Bit-pack (L, m) 0/1 labellings and build the per-byte count tables of ``c0``/``c1``."""
    L, m = labels.shape
    W = max(1, (m + 63) // 64)
    padded = np.zeros((L, 64 * W), dtype=np.uint64)
    padded[:, :m] = labels
    shifts = np.arange(64, dtype=np.uint64)
    bits = (padded.reshape(L, W, 64) << shifts).sum(axis=2, dtype=np.uint64)
    tabs = []
    for c in (c0, c1):
        cp = np.zeros(64 * W, dtype=np.int64)
        cp[:m] = c
        v = np.arange(256)
        sel = (v[:, None] >> np.arange(8)) & 1  # (256, 8)
        tabs.append(np.stack([sel @ cp[8 * k:8 * k + 8] for k in range(8 * W)]))
    return np.ascontiguousarray(bits), tabs[0], tabs[1]
