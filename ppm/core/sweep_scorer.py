"""Exact streamed scoring of ``G`` by an angular sweep (``method="sweep"``, opt-in, d >= 2).

Same protocol, canonical order and records as :class:`ppm.core.hypothesis_class.BitsetScorer`
(docs/model.md §3: ``histogram()`` then ``find(level, rank)``), hence identical histograms and
samples for the same seed. Only the histogram pass differs. For a hypothesis with rows
``(prefix, h_i, h_k)`` the score is ``m = n_0 - v_i[k]`` with
``v_i[k] = sum_{x in M ∩ h_i} s_x [x in h_k]`` (``s_x = +1`` for label 0, ``-1`` for label 1,
``M`` the prefix's region). Rows ``i`` are visited in a *walk order*:

* **blocks**: maximal canonical runs of halfspaces whose supports share their first ``d - 1``
  public points (for d = 2: the lines through one pivot ``p``, for d = 3: the planes through
  the line ``pq``); blocks stay in canonical order, so the partners ``k > i`` of a row are a
  suffix that covers the rest of its block and every later block;
* **inside a block** the hyperplanes rotate about the common ``(d - 2)``-flat: sorted by the
  angle of the normal in the plane of the block's two principal normal directions, both
  orientations of each hyperplane included.

Consecutive rows then differ by the few examples the rotating hyperplane crosses, and ``v`` is
updated from the previous row by their signed membership columns (:mod:`ppm.core._sweep_kernels`),
or recomputed by popcount when a step changes many examples. The histogram of a row does not
depend on the order in which rows are visited; per-block (level 2) and per-prefix-chunk
(level >= 3) histograms keep the rank pass in canonical order on a single chunk.

Privacy: the walk order and blocks come from ``C_pub`` (public points) only; the sample enters
through the membership matrix, exactly as in the other scorers.
"""

from __future__ import annotations

import numpy as np

from ppm.core._sweep_kernels import floor_walk  # noqa: F401  (the benchmark floor, scripts/bench.py)
from ppm.core.hypothesis_class import (BitsetScorer, balanced_bounds, halfspace_signs,
                                       prefix_triple_runs)

# Reinitialise v by popcount when a step changes more than this many examples per word of
# the bitsets (an update touches one int8 column per example, a popcount pass W words).
REINIT_PER_WORD = 4
# The signed columns take n * |C_pub| bytes; above this the bitset scorer is the default.
MAX_COLUMN_BYTES = 1 << 29


def walk_order(W: np.ndarray, supports: np.ndarray, d: int):
    """(order, blocks): walk positions -> canonical indices, and block start positions.

    ``order`` permutes indices only inside each block, so block ``b`` occupies the same range
    ``[blocks[b], blocks[b+1])`` of canonical indices and of walk positions.
    """
    m = W.shape[0]
    if m == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(1, dtype=np.int64)
    key = supports[:, : max(1, d - 1)]
    new = np.ones(m, dtype=bool)
    new[1:] = np.any(key[1:] != key[:-1], axis=1)
    blocks = np.append(np.flatnonzero(new), m).astype(np.int64)
    order = np.arange(m, dtype=np.int64)
    for lo, hi in zip(blocks[:-1], blocks[1:]):
        if hi - lo < 3:
            continue
        N = W[lo:hi]
        _, _, Vt = np.linalg.svd(N, full_matrices=False)
        u = N @ Vt[:2].T if Vt.shape[0] >= 2 else np.stack([N @ Vt[0], 0 * N[:, 0]], axis=1)
        angle = np.arctan2(u[:, 1], u[:, 0])
        order[lo:hi] = lo + np.argsort(angle, kind="stable")
    return order, blocks


class SweepScorer(BitsetScorer):
    """Exact scoring of ``G`` by incremental row vectors along an angular sweep (d >= 2).

    Needs ``n < 2**15`` examples (``int16`` row vectors). Memory: the bitsets of
    :class:`BitsetScorer` plus ``n |C_pub|`` bytes of signed membership columns.
    """

    def __init__(self, B: np.ndarray, y: np.ndarray, d: int, W: np.ndarray,
                 supports: np.ndarray, chunks: int = 256, level2_chunks: int = 32):
        from ppm.core import _sweep_kernels as sweep

        super().__init__(B, y, d, chunks=chunks)
        if self.n >= (1 << 15):
            raise ValueError(f"SweepScorer needs n < 32768 examples, got {self.n}")
        self._sw = sweep
        B = np.ascontiguousarray(B)
        self._order, self._blocks = walk_order(np.asarray(W), np.asarray(supports), d)
        self._bstart = np.repeat(self._blocks[:-1], np.diff(self._blocks))
        self._Sc = np.empty((self.n, self.m), dtype=np.int8)
        sweep.signed_columns(B, halfspace_signs(y).astype(np.int8), self._Sc)
        self._cptr = np.zeros(self.m + 1, dtype=np.int64)
        empty_x, empty_e = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int8)
        total = sweep.change_lists(B, self._order, self._cptr, empty_x, empty_e)
        self._cx = np.empty(total, dtype=np.int64)
        self._ce = np.empty(total, dtype=np.int8)
        sweep.change_lists(B, self._order, self._cptr, self._cx, self._ce)
        self._thr = REINIT_PER_WORD * self.PQT.shape[0]
        self._B = B
        self._level2_chunks = int(level2_chunks)

    def _masks(self, prefix: tuple):
        Mx = np.ones(self.n, dtype=np.bool_)
        for i in prefix:
            Mx &= self._B[i]
        return self._mask(prefix), Mx

    def histogram(self) -> np.ndarray:
        k, sw, n1 = self._kernels, self._sw, self.n + 1
        total = np.zeros(n1, dtype=np.int64)
        records = [("empty", (), None, None)]
        total[self.n0] += 1
        if self.m:
            single = k.singles(self.PQT, self.wP, self._ones, self.n0)
            total += np.bincount(single, minlength=n1)
            records.append(("singles", (), single, None))
        args = (self.PQT, self.wP)
        walk = (self._Sc, self._order, self._bstart, self._cptr, self._cx, self._ce)
        if self.d >= 2 and self.m >= 2:
            blocks = self._blocks
            sizes = np.diff(blocks)
            # Work of a block: its pairs (i, k > i).
            first, last = blocks[:-1], blocks[1:] - 1
            work = sizes * (self.m - 1) - (first + last) * sizes / 2.0
            nb = len(sizes)
            bounds = balanced_bounds(0, nb, np.maximum(work, 1.0), self._level2_chunks)
            hist = np.zeros((nb, n1), dtype=np.int64)
            Mw, Mx = self._masks(())
            sw.level2_hist(*args, Mw, Mx, *walk, blocks, bounds, self.n0, self._thr, hist)
            total += hist.sum(axis=0)
            records.append(("pairs", (), blocks, hist))
        for prefix, bounds in prefix_triple_runs(self.m, self.d, self._chunks):
            hist = np.zeros((len(bounds) - 1, n1), dtype=np.int64)
            Mw, Mx = self._masks(prefix)
            sw.level3_hist(*args, Mw, Mx, *walk, bounds, self.n0, self._thr, hist)
            total += hist.sum(axis=0)
            records.append(("triples", prefix, bounds, hist))
        self._records = records
        return total
