"""The hypothesis class ``G`` of Algorithm 2 (``LearnHalf``) and exact streamed scoring.

docs/model.md §3. ``G`` holds the empty hypothesis ``g_empty = 1`` and, for every ``j = 1..d`` and
every set of ``j`` distinct halfspaces ``h_1 < ... < h_j`` of ``C_pub``, the hypothesis
"0 on ``h_1 ∩ ... ∩ h_j ∩ Aff``, 1 elsewhere". Its score is the number of misclassified
examples, ``m(g) = #{y = 0, x not in R} + #{y = 1, x in R}`` for the region ``R`` labelled 0.
Writing ``s_x = +1`` if ``y = 0`` and ``-1`` if ``y = 1``, ``m(g) = n_0 - sum_{x in R} s_x``:
for pairs this is the bilinear form ``B_i diag(s) B_k^T`` of membership rows.

**Canonical order** of ``G`` (shared by every scorer, so the same seed gives the same sample):
``g_empty``; then the ``j``-subsets for ``j = 1, 2, ..., min(d, |C_pub|)``, each level in
lexicographic order of the index tuples into ``C_pub`` (itself in canonical order, see
:mod:`ppm.core.halfspaces`).

``|G|`` reaches ``1e9`` for d = 2 at a few hundred public points, so no scorer materialises one
score per hypothesis. Each scorer exposes the two passes of the exact sampler (docs/model.md §3):
``histogram()`` returns ``count[m]`` for ``m = 0..n`` over all of ``G``, and
``find(level, rank)`` returns the index tuple of the ``rank``-th hypothesis (0-based, in
canonical order) whose score is ``level``. The bitset and blocked scorers keep one small
histogram per chunk of ``G`` so the second pass recomputes a single chunk. Memory is
``O(|C_pub| n)`` (the membership matrix) plus one chunk, never ``O(|G|)``.

Scorers:

* :class:`SortedScorer1D` -- d = 1 with ``Aff = R``: a sort plus prefix sums, ``O(n log n)``.
* :class:`BitsetScorer` -- any d >= 2, the default: membership bitsets ANDed and counted with
  vectorised hardware popcount in numba kernels (:mod:`ppm.core._bitset_kernels`), both cores.
* :class:`BlockedScorer` -- any d: levels 0 and 1 directly; level ``j >= 2`` enumerates the
  ``(j-2)``-prefixes lexicographically and scores all ``(i, k)`` completions of a prefix by
  dense float32 matrix products in row blocks (exact: integer sums below ``2**24``). The
  straightforward reference of the benchmark.
* :class:`ppm.core.sweep_scorer.SweepScorer` -- any d >= 2, opt-in: the bitset scorer's records and
  rank pass, with each row's score vector updated incrementally along an angular sweep.
* :class:`ReferenceScorer` -- a plain loop over ``G`` evaluating every region from the
  halfspaces themselves. Slow; the ground truth for tests.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
import numpy as np

from ppm.bounds import hypothesis_class_size_from_halfspaces
from ppm.core.halfspaces import PublicHalfspaces

DEFAULT_BLOCK_ELEMENTS = 1 << 22


def class_size(n_halfspaces: int, d: int) -> int:
    """``|G| = 1 + sum_{j=1..min(d, m)} C(m, j)`` for ``m = |C_pub|`` (docs/model.md §3)."""
    return hypothesis_class_size_from_halfspaces(int(n_halfspaces), int(d))


def iter_hypotheses(n_halfspaces: int, d: int):
    """Index tuples of ``G`` in canonical order (``()`` is ``g_empty``)."""
    yield ()
    for j in range(1, min(d, n_halfspaces) + 1):
        yield from itertools.combinations(range(n_halfspaces), j)


def halfspace_signs(y: np.ndarray) -> np.ndarray:
    return np.where(np.asarray(y) == 0, 1, -1).astype(np.int64)


class ReferenceScorer:
    """Plain enumeration of ``G`` (tests and equivalence checks only: ``O(|G| n d)``)."""

    def __init__(self, halfspaces: PublicHalfspaces, X: np.ndarray, y: np.ndarray, d: int):
        self.halfspaces = halfspaces
        self.d = d
        self.y = np.asarray(y)
        self.n = self.y.shape[0]
        self._inside = halfspaces.contains(X)  # (m, n), evaluated from W, b directly
        self._aff = halfspaces.in_affine_hull(X)
        self._levels = None

    def score(self, hyp: tuple) -> int:
        if len(hyp) == 0:
            region = np.zeros(self.n, dtype=bool)
        else:
            region = self._aff & np.all(self._inside[list(hyp)], axis=0)
        return int(np.sum((self.y == 0) & ~region) + np.sum((self.y == 1) & region))

    def scores(self):
        for hyp in iter_hypotheses(len(self.halfspaces), self.d):
            yield hyp, self.score(hyp)

    def histogram(self) -> np.ndarray:
        counts = np.zeros(self.n + 1, dtype=np.int64)
        self._levels = {}  # level -> its hypotheses in canonical order (the rank pass)
        for hyp, m in self.scores():
            counts[m] += 1
            self._levels.setdefault(m, []).append(hyp)
        return counts

    def find(self, level: int, rank: int) -> tuple:
        if self._levels is None:
            self.histogram()
        members = self._levels.get(int(level), [])
        if not 0 <= rank < len(members):
            raise IndexError(f"no hypothesis of rank {rank} at level {level}")
        return members[rank]


class SortedScorer1D:
    """d = 1 with ``Aff = R``: ``C_pub = ({x >= t_i}, {x <= t_i})`` for sorted unique public ``t``.

    Scores of all halfspaces come from one sort of the sample and prefix sums of ``s``.
    Comparisons are exact (``tol = 0`` for d = 1), matching ``PublicHalfspaces.contains``.
    """

    def __init__(self, halfspaces: PublicHalfspaces, X: np.ndarray, y: np.ndarray):
        if halfspaces.d != 1 or not halfspaces.aff_is_full:
            raise ValueError("SortedScorer1D needs d = 1 and at least two distinct public points")
        x = np.asarray(X, dtype=float).reshape(-1)
        s = halfspace_signs(y)
        order = np.argsort(x, kind="stable")
        xs = x[order]
        cs = np.concatenate([[0], np.cumsum(s[order])])
        t = halfspaces.public_points[:, 0]
        upper = cs[-1] - cs[np.searchsorted(xs, t, side="left")]  # sum of s over x >= t
        lower = cs[np.searchsorted(xs, t, side="right")]  # sum of s over x <= t
        n0 = int(np.sum(s == 1))
        self.n = x.shape[0]
        self.n0 = n0
        # Canonical order interleaves (upper, lower) per public point.
        self.single_scores = n0 - np.stack([upper, lower], axis=1).reshape(-1)

    def histogram(self) -> np.ndarray:
        counts = np.bincount(self.single_scores, minlength=self.n + 1).astype(np.int64)
        counts[self.n0] += 1  # g_empty
        return counts

    def find(self, level: int, rank: int) -> tuple:
        if level == self.n0:
            if rank == 0:
                return ()
            rank -= 1
        hits = np.flatnonzero(self.single_scores == level)
        return (int(hits[rank]),)


@dataclass
class _Chunk:
    """A contiguous run of ``G`` in canonical order, scored as one array."""

    kind: str  # "empty" | "singles" | "block"
    hist: np.ndarray
    prefix: tuple = ()
    row_start: int = 0
    row_stop: int = 0


class BlockedScorer:
    """Exact streamed scoring of ``G`` for any d by blocked dense matrix products.

    ``B`` is the membership matrix ``halfspaces.membership(X)`` (``m x n``, boolean), the single
    source of truth for which example lies in which (closed) halfspace of ``C_pub`` and ``Aff``.
    """

    def __init__(self, B: np.ndarray, y: np.ndarray, d: int,
                 block_elements: int = DEFAULT_BLOCK_ELEMENTS):
        self.m, self.n = B.shape
        self.d = d
        s = halfspace_signs(y)
        self.n0 = int(np.sum(s == 1))
        # float32 sums of 0/+-1 terms are exact below 2**24 examples.
        dtype = np.float32 if self.n < (1 << 24) else np.float64
        self._Bf = B.astype(dtype)
        self._Bs = self._Bf * s.astype(dtype)[None, :]
        self._block_elements = max(1, int(block_elements))
        self._chunks: list[_Chunk] | None = None
        self._prefix_cache: tuple | None = None

    # -- pass 1 ---------------------------------------------------------------------------
    def histogram(self) -> np.ndarray:
        chunks, total = [], np.zeros(self.n + 1, dtype=np.int64)
        for chunk in self._iter_chunks():
            if chunk.kind == "block":
                full = self._block_matrix(chunk)
                R = chunk.row_stop - chunk.row_start
                # All entries, minus the strictly lower triangle of the first R columns (k <= i).
                below = full[:, :R][np.tril(np.ones((R, R), dtype=bool), -1)]
                chunk.hist = (np.bincount(full.ravel(), minlength=self.n + 1)
                              - np.bincount(below, minlength=self.n + 1)).astype(np.int64)
            else:
                chunk.hist = np.bincount(self._values(chunk), minlength=self.n + 1).astype(np.int64)
            total += chunk.hist
            chunks.append(chunk)
        self._chunks = chunks
        return total

    # -- pass 2 ---------------------------------------------------------------------------
    def find(self, level: int, rank: int) -> tuple:
        if self._chunks is None:
            self.histogram()
        for chunk in self._chunks:
            c = int(chunk.hist[level])
            if rank < c:
                vals = self._values(chunk)
                pos = int(np.flatnonzero(vals == level)[rank])
                return self._decode(chunk, pos)
            rank -= c
        raise IndexError(f"no hypothesis of rank {rank} at level {level}")

    # -- enumeration in canonical order ----------------------------------------------------
    def _iter_chunks(self):
        empty = np.zeros(0, dtype=np.int64)
        yield _Chunk("empty", empty)
        if self.m == 0:
            return
        yield _Chunk("singles", empty)
        for j in range(2, min(self.d, self.m) + 1):
            for prefix in itertools.combinations(range(self.m), j - 2):
                first_row = prefix[-1] + 1 if prefix else 0
                a = first_row
                while a < self.m - 1:  # the row index i needs some k > i
                    width = self.m - a - 1
                    rows = max(1, self._block_elements // width)
                    b = min(self.m - 1, a + rows)
                    yield _Chunk("block", empty, prefix, a, b)
                    a = b

    def _prefix_vector(self, prefix: tuple) -> np.ndarray | None:
        if not prefix:
            return None
        if self._prefix_cache is None or self._prefix_cache[0] != prefix:
            v = np.prod(self._Bf[list(prefix)], axis=0)
            self._prefix_cache = (prefix, v)
        return self._prefix_cache[1]

    def _values(self, chunk: _Chunk) -> np.ndarray:
        """Scores of the chunk's hypotheses, flattened in canonical order."""
        if chunk.kind == "empty":
            return np.array([self.n0], dtype=np.intp)
        if chunk.kind == "singles":
            return (self.n0 - self._Bs.sum(axis=1)).astype(np.intp)
        vals = self._block_matrix(chunk)
        # Row r stands for i = a + r; its valid partners are k = a + 1 + c > i, i.e. c >= r.
        R = chunk.row_stop - chunk.row_start
        keep = np.ones(vals.shape, dtype=bool)
        keep[:, :R] = np.triu(np.ones((R, R), dtype=bool))
        return vals[keep]

    def _block_matrix(self, chunk: _Chunk) -> np.ndarray:
        """Scores of (prefix, i, k) for rows i in [a, b) and all k > a (some invalid: k <= i)."""
        a, b = chunk.row_start, chunk.row_stop
        v = self._prefix_vector(chunk.prefix)
        rows = self._Bf[a:b] if v is None else self._Bf[a:b] * v[None, :]
        P = rows @ self._Bs[a + 1:].T  # P[r, c] = sum_x s_x [x in rows r] [x in h_{a+1+c}]
        return (self.n0 - P).astype(np.intp)

    def _decode(self, chunk: _Chunk, pos: int) -> tuple:
        if chunk.kind == "empty":
            return ()
        if chunk.kind == "singles":
            return (pos,)
        a, b = chunk.row_start, chunk.row_stop
        width = self.m - a - 1
        for r in range(b - a):
            length = width - r
            if pos < length:
                return chunk.prefix + (a + r, a + 1 + r + pos)
            pos -= length
        raise IndexError("position outside chunk")


def balanced_bounds(lo: int, hi: int, weights: np.ndarray, chunks: int) -> np.ndarray:
    """Split [lo, hi) into at most ``chunks`` contiguous runs of roughly equal total weight."""
    if hi <= lo:
        return np.array([lo, lo], dtype=np.int64)
    cum = np.concatenate([[0.0], np.cumsum(weights, dtype=float)])
    targets = np.linspace(0.0, cum[-1], chunks + 1)[1:-1]
    inner = lo + np.searchsorted(cum, targets, side="left")
    return np.unique(np.concatenate([[lo], np.clip(inner, lo, hi), [hi]])).astype(np.int64)


def prefix_triple_runs(m: int, d: int, chunks: int):
    """Levels ``j >= 3`` of the canonical order of ``G`` (docs/model.md §3): for each prefix of
    ``j - 3`` rows (lexicographic) that leaves a triple, ``(prefix, bounds)`` with the first
    rows ``i`` of its triples ``(i, j, k)`` split into balanced runs (``(m-1-i)(m-2-i)/2``
    triples start at row ``i``)."""
    for j in range(3, min(d, m) + 1):
        for prefix in itertools.combinations(range(m), j - 3):
            start = prefix[-1] + 1 if prefix else 0
            if start > m - 3:
                continue
            r = m - 1 - np.arange(start, m - 2)
            yield prefix, balanced_bounds(start, m - 2, r * (r - 1) / 2, chunks)


def level_kernels(kernel: str = "v2"):
    """The CPU module of :class:`BitsetScorer`'s level-2 and level-3 kernels (``level2_hist``,
    ``level3_hist``): ``"v2"``, the current ones (:mod:`ppm.core._bitset_kernels`), or ``"v1"``,
    the ones v2 replaced (:mod:`ppm.core._bitset_kernels_v1`; the benchmark's before)."""
    if kernel == "v1":
        from ppm.core import _bitset_kernels_v1

        return _bitset_kernels_v1
    if kernel == "v2":
        from ppm.core import _bitset_kernels

        return _bitset_kernels
    raise ValueError(f"kernel must be 'v1' or 'v2', got {kernel!r}")


class BitsetScorer:
    """Exact streamed scoring of ``G`` with bitsets and vectorised popcount (numba; d >= 2).

    Same protocol and canonical order as :class:`BlockedScorer`, from the same membership
    matrix ``B``, so it returns identical histograms and samples (checked by the tests).
    Memory: ``|C_pub| n`` bits plus ``chunks x (n + 1)`` counters per level, never ``O(|G|)``.
    Kernels in :mod:`ppm.core._bitset_kernels`; their threads follow ``numba.set_num_threads``.

    ``csa``: score pairs and triples with the carry-save popcount (same histograms, records and
    samples); None (the default) uses it from ``_bitset_kernels.CSA_MIN_WORDS`` words on, which
    is None (never): it was slower than the plain popcount where measured (docs/performance.md).
    ``kernel``: ``"v2"`` (the default, :mod:`ppm.core._bitset_kernels`) or ``"v1"``, the level-2
    and level-3 kernels as they were before v2 (:mod:`ppm.core._bitset_kernels_v1`, kept
    for the benchmark's before/after and the tests); same histograms, records and samples.
    """

    def __init__(self, B: np.ndarray, y: np.ndarray, d: int, chunks: int = 256,
                 csa: bool | None = None, kernel: str = "v2"):
        from ppm.core import _bitset_kernels as kernels

        if kernel not in ("v1", "v2"):
            raise ValueError(f"kernel must be 'v1' or 'v2', got {kernel!r}")
        self.kernel = kernel

        self._kernels = kernels
        self.m, self.n = B.shape
        self.d = d
        lab0 = np.asarray(y) == 0
        self.n0 = int(lab0.sum())
        n1 = self.n - self.n0
        self.wP = max(1, -(-self.n0 // 64))
        # Bit position of each example in a row: label-0 examples first, label-1 from word wP.
        pos = np.where(lab0, np.cumsum(lab0) - 1, 64 * self.wP + np.cumsum(~lab0) - 1)
        self.PQT = np.zeros((self.wP + max(1, -(-n1 // 64)), self.m), dtype=np.uint64)
        kernels.pack_word_major(np.ascontiguousarray(B), pos.astype(np.int64), self.PQT)
        self._ones = np.full(self.PQT.shape[0], ~np.uint64(0))
        if csa is None:
            csa = kernels.CSA_MIN_WORDS is not None and self.PQT.shape[0] >= kernels.CSA_MIN_WORDS
        self.csa = bool(csa)
        self._chunks = int(chunks)
        self._records: list | None = None

    def _mask(self, prefix: tuple) -> np.ndarray:
        M = self._ones.copy()
        for i in prefix:
            M &= self.PQT[:, i]
        return M

    def _level_kernels(self):
        """The module (or object) whose ``level2_hist`` / ``level3_hist`` score levels 2 and 3."""
        return level_kernels("v1") if self.kernel == "v1" else self._kernels

    def histogram(self) -> np.ndarray:
        k, n1 = self._level_kernels(), self.n + 1
        total = np.zeros(n1, dtype=np.int64)
        records = [("empty", (), None, None)]  # (kind, prefix, bounds, per-chunk hist)
        total[self.n0] += 1
        if self.m:
            single = self._kernels.singles(self.PQT, self.wP, self._ones, self.n0)
            total += np.bincount(single, minlength=n1)
            records.append(("singles", (), single, None))
        if self.d >= 2 and self.m >= 2:
            rows = np.arange(self.m - 1)
            bounds = balanced_bounds(0, self.m - 1, self.m - 1 - rows, self._chunks)
            hist = np.zeros((len(bounds) - 1, n1), dtype=np.int64)
            k.level2_hist(self.PQT, self.wP, self._ones, bounds, self.n0, hist, self.csa)
            total += hist.sum(axis=0)
            records.append(("pairs", (), bounds, hist))
        many = getattr(k, "level3_hist_many", None)
        # Levels j >= 3 by their (j - 3)-prefixes; a kernel module with ``level3_hist_many``
        # (the GPU) scores all prefixes of a level together, the CPU one prefix at a time.
        for _, runs in itertools.groupby(prefix_triple_runs(self.m, self.d, self._chunks),
                                         key=lambda run: len(run[0])):
            runs = list(runs)
            hists = [np.zeros((len(b) - 1, n1), dtype=np.int64) for _, b in runs]
            if many is not None:
                many(self.PQT, self.wP, [p for p, _ in runs], [b for _, b in runs], self.n0,
                     hists)
            for (prefix, bounds), hist in zip(runs, hists):
                if many is None:
                    k.level3_hist(self.PQT, self.wP, self._mask(prefix), bounds, self.n0, hist,
                                  self.csa)
                total += hist.sum(axis=0)
                records.append(("triples", prefix, bounds, hist))
        self._records = records
        return total

    def histogram_state(self):
        """The records of the rank pass after :meth:`histogram` (for :mod:`ppm.core.histogram_memo`,
        which stores them with the histogram ``histogram()`` returned)."""
        if self._records is None:
            raise RuntimeError("histogram() has not run")
        return {"records": self._records, "m": self.m, "n": self.n, "n0": self.n0}

    def restore_histogram(self, state) -> np.ndarray:
        """Restore a stored :meth:`histogram_state` plus ``"histogram"`` (same sample) and
        return the histogram."""
        if (state["m"], state["n"], state["n0"]) != (self.m, self.n, self.n0):
            raise ValueError("histogram state of a different sample")
        self._records = state["records"]
        return np.array(state["histogram"], dtype=np.int64)

    def find(self, level: int, rank: int) -> tuple:
        if self._records is None:
            self.histogram()
        for kind, prefix, data, hist in self._records:
            if kind == "empty":
                if level == self.n0:
                    if rank == 0:
                        return ()
                    rank -= 1
                continue
            if kind == "singles":
                hits = np.flatnonzero(data == level)
                if rank < hits.size:
                    return (int(hits[rank]),)
                rank -= hits.size
                continue
            for c in range(hist.shape[0]):
                count = int(hist[c, level])
                if rank >= count:
                    rank -= count
                    continue
                depth = 2 if kind == "pairs" else 3
                a, i, kk = self._kernels.find_in_chunk(self.PQT, self.wP, self._mask(prefix), depth,
                                                 int(data[c]), int(data[c + 1]), self.n0,
                                                 level, rank)
                if i < 0:
                    raise RuntimeError("histogram and rank pass disagree")  # a kernel bug
                return prefix + ((int(a),) if depth == 3 else ()) + (int(i), int(kk))
        raise IndexError(f"no hypothesis of rank {rank} at level {level}")
