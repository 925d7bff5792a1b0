"""Exact scoring of ``G`` on an NVIDIA GPU (numba.cuda): :class:`CudaScorer`.

The exponential mechanism of BMN20 Algorithm 2 is sampled exactly without materialising ``G``
(``docs/model.md §3``, "Exact sampling without materialising G"): pass 1 is the histogram
``count[m]`` of scores over ``G``, kept per chunk of ``G`` in canonical order; the learner draws
the level and the rank from its ``random_state``; pass 2 (``find``) locates the hypothesis of
that rank at that level. :class:`CudaScorer` *is* :class:`ppm.core.hypothesis_class.BitsetScorer`
with its kernel module replaced by :class:`CudaKernels`: the same bitsets, the same chunks, the
same records (so :mod:`ppm.core.histogram_memo` stores and restores them unchanged) and the same
canonical order, hence the same histogram bit for bit, the same per-chunk histograms and, for
the same seed, the same sampled hypothesis. What runs on the GPU:

* level 2 (pairs ``(i, k)``) and level 3 (triples ``(a, i, k)``): one launch each
  (:mod:`ppm.core._cuda_kernels`); every level ``j >= 4`` is one launch too
  (:meth:`CudaKernels.level3_hist_many`): its ``(j - 3)``-prefixes are enumerated on the host in
  canonical order, their masks go to the device as one table, and each work segment is a
  ``(prefix, first index)`` pair (the CPU scorer runs the prefixes one after another);
* the rank pass: the counting kernel gives, for the chunk that holds the wanted rank, the number
  of hypotheses at the drawn level per row ``(a, i)``; the host then scans the partners ``k`` of
  the one row that holds the rank (``O(|C_pub|)`` on the CPU).

The empty hypothesis and the single halfspaces (``O(|C_pub| n)``) stay on the CPU. Privacy is
untouched (Lemma 4.1): ``G`` is built from the public points only, the kernels compute the same
integer scores. The CUDA plumbing (the numba.cuda module, the device checks, the launches
under the low-occupancy warning filter) comes from :mod:`ppm.gpu`.
"""

from __future__ import annotations

import numpy as np

from ppm.core._cuda_kernels import AGGREGATE, ROWS, build
from ppm.core.hypothesis_class import BitsetScorer
from ppm.gpu import check_cuda, cuda_module, launch, simulator_enabled


def cpu_kernels():
    """The CPU kernels (singles, one row of the rank pass); imported when first needed."""
    from ppm.core import _bitset_kernels

    return _bitset_kernels


#: The default launch on a GPU: persistent blocks of THREADS threads, BLOCKS_PER_SM per
#: multiprocessor. Chosen from ``scripts.bench_gpu --shapes`` on an H100
#: (``results/bench_gpu_shapes.csv``): at level 3 (n = 160, 320) and level 4 (|C_pub| 2,940)
#: 128 x 6 ran 1.02-1.07x the former 256 x 3, the best of eight variants at every size, so one
#: shape serves every size measured; 512-thread blocks and one partner column per thread were
#: slower (0.87-0.92x), warp-aggregated increments much slower (0.39-0.51x).
THREADS, BLOCKS_PER_SM = 128, 6


def forget_compiled() -> None:
    """Drop the compiled kernels of this process (the benchmark's cold start)."""
    build.cache_clear()


def launch_shape(cuda, n_items: int, threads: int | None, blocks: int | None):
    """``(threads, blocks)`` of a launch over ``n_items`` work items: persistent blocks
    (:data:`BLOCKS_PER_SM` per multiprocessor) of :data:`THREADS` threads on a GPU, 2 blocks of
    32 threads under the simulator."""
    if simulator_enabled():  # every simulated thread is a Python thread: keep blocks small
        threads, blocks = threads or 32, blocks or 2
    else:
        threads = threads or THREADS
        if blocks is None:  # persistent blocks
            blocks = BLOCKS_PER_SM * cuda.get_current_device().MULTIPROCESSOR_COUNT
    return threads, max(1, min(int(blocks), int(n_items)))


class CudaKernels:
    """The kernel module of :class:`CudaScorer`: same functions and signatures as
    :mod:`ppm.core._bitset_kernels` (``singles``, ``level2_hist``, ``level3_hist``,
    ``find_in_chunk``), pairs and triples computed on the GPU."""

    def __init__(self, PQT: np.ndarray, wP: int, n: int, threads: int | None = None,
                 blocks: int | None = None, cols: int = 2, flush_limit: int = (1 << 32) - 1,
                 out_bytes: int = 1 << 30, aggregate: bool | None = None):
        self._cuda = cuda_module()
        self.W, self.m = PQT.shape
        self.n = int(n)
        self._PQT = PQT
        self._threads, self._blocks, self._cols = threads, blocks, int(cols)
        self._limit = int(flush_limit)
        self._out_bytes = int(out_bytes)  # device buffer of one level-j launch's output slots
        self._aggregate = AGGREGATE if aggregate is None else bool(aggregate)
        self._dPQT = None
        self.wP = int(wP)

    # -- helpers ------------------------------------------------------------------------------
    def _kernels(self, threads):
        return build(self.W, self.wP, self.n, threads, self._cols, self._limit,
                     self._aggregate)

    def _device_pqt(self):
        if self._dPQT is None:
            self._dPQT = self._cuda.to_device(np.ascontiguousarray(self._PQT))
        return self._dPQT

    def _segments(self, a, lo, hi, out, p=None):
        """``(p, a, lo, hi, out, offsets)``: per segment its prefix mask (a row of the launch's
        mask table; 0 when ``p`` is None), first index, rows and output slot, empty segments
        dropped, and the item offsets (32-row items, segment by segment)."""
        if p is None:
            p = np.zeros(len(a), dtype=np.int64)
        p, a, lo, hi, out = (np.asarray(v, dtype=np.int64) for v in (p, a, lo, hi, out))
        keep = hi > lo
        p, a, lo, hi, out = p[keep], a[keep], lo[keep], hi[keep], out[keep]
        offsets = np.concatenate([[0], np.cumsum(-(-(hi - lo) // ROWS))]).astype(np.int64)
        return p, a, lo, hi, out, offsets

    def _launch(self, kernel_index, M, segs, n0, tail_args, out):
        """Launch kernel ``kernel_index`` of :func:`build` on the segments; ``M`` is one mask
        (``W`` words) or a table of prefix masks (``(prefixes, W)``, indexed by the segments)."""
        p, a, lo, hi, slot, offsets = segs
        n_items = int(offsets[-1])
        if n_items == 0:
            return
        cuda = self._cuda
        threads, blocks = launch_shape(cuda, n_items, self._threads, self._blocks)
        kernel = self._kernels(threads)[kernel_index]
        counter = cuda.to_device(np.zeros(1, dtype=np.int64))
        Mp = np.ascontiguousarray(np.atleast_2d(M), dtype=np.uint64)
        args = (self._device_pqt(), cuda.to_device(Mp),
                *(cuda.to_device(v) for v in (p, a, lo, hi, slot, offsets)), np.int64(n_items),
                counter, np.int64(n0 - 64 * self.wP), *tail_args)
        launch(kernel, blocks, threads, *args, out)

    def _hist(self, M, segs, n0, n_slots) -> np.ndarray:
        d_out = self._cuda.to_device(np.zeros((n_slots, self.n + 2), dtype=np.uint64))
        self._launch(0, M, segs, n0, (), d_out)
        return d_out.copy_to_host()[:, :self.n + 1].astype(np.int64)

    def _level3_segments(self, first_bounds, slots):
        """One segment per first index a in [first_bounds[0], first_bounds[-1])."""
        a = np.arange(first_bounds[0], first_bounds[-1], dtype=np.int64)
        chunk = np.searchsorted(first_bounds, a, side="right") - 1
        return self._segments(a, a + 1, np.full_like(a, self.m - 1), slots(a, chunk))

    # -- the kernel module interface --------------------------------------------------------
    @staticmethod
    def singles(PQT, wP, M, n0):
        return cpu_kernels().singles(PQT, wP, M, n0)

    # ``csa`` (the CPU kernels' choice of popcount) is accepted and ignored: the GPU kernel
    # always uses the carry-save popcount.
    def level2_hist(self, PQT, wP, M, row_bounds, n0, hist, csa=False):
        c = np.arange(len(row_bounds) - 1)
        segs = self._segments(np.full(c.size, -1), row_bounds[:-1], row_bounds[1:], c)
        hist += self._hist(M, segs, n0, hist.shape[0])

    def level3_hist(self, PQT, wP, M, first_bounds, n0, hist, csa=False):
        segs = self._level3_segments(np.asarray(first_bounds), lambda a, chunk: chunk)
        hist += self._hist(M, segs, n0, hist.shape[0])

    def prefix_masks(self, prefixes) -> np.ndarray:
        """``(len(prefixes), W)``: the AND of each prefix's halfspaces (all ones for ``()``);
        the prefixes of one level have one length."""
        P = np.asarray(prefixes, dtype=np.int64).reshape(len(prefixes), -1)
        M = np.full((P.shape[0], self.W), ~np.uint64(0), dtype=np.uint64)
        for j in range(P.shape[1]):
            M &= self._PQT[:, P[:, j]].T
        return M

    def prefix_launches(self, prefixes, bounds_list, n_chunks):
        """The launches of :meth:`level3_hist_many`: ``(start, stop, masks, segs, n_slots)`` per
        batch of prefixes ``[start, stop)``; prefix ``q`` has the chunk bounds
        ``bounds_list[q]`` (``n_chunks[q]`` chunks) and its slots follow those of the prefixes
        before it in the batch. A batch holds as many prefixes as their slots allow in
        ``out_bytes`` of device memory (1 GiB by default: level 4 at ``|C_pub|`` = 1,588 and
        n = 192 has about 3.7e5 chunks, 0.58 GB, so one launch)."""
        masks = self.prefix_masks(prefixes)
        per_launch = max(1, self._out_bytes // (8 * (self.n + 2)))
        start = 0
        while start < len(prefixes):
            stop, slots = start, 0
            while stop < len(prefixes) and (stop == start or slots + n_chunks[stop] <= per_launch):
                slots += n_chunks[stop]
                stop += 1
            ps, as_, outs = [], [], []
            offset = 0
            for q in range(start, stop):
                b = np.asarray(bounds_list[q], dtype=np.int64)
                a = np.arange(b[0], b[-1], dtype=np.int64)
                ps.append(np.full(a.size, q - start, dtype=np.int64))
                as_.append(a)
                outs.append(offset + np.searchsorted(b, a, side="right") - 1)
                offset += n_chunks[q]
            a = np.concatenate(as_)
            segs = self._segments(a, a + 1, np.full_like(a, self.m - 1), np.concatenate(outs),
                                  p=np.concatenate(ps))
            yield start, stop, masks[start:stop], segs, offset
            start = stop

    def level3_hist_many(self, PQT, wP, prefixes, bounds_list, n0, hists):
        """Triples under every prefix of one level (``j - 3`` halfspaces each): ``hists[q] +=``
        what :meth:`level3_hist` under prefix ``q``'s mask would add, in one launch per batch of
        :meth:`prefix_launches` (a segment per ``(prefix, first index a)``, the prefix masks in
        one table on the device)."""
        if not prefixes:
            return
        n_chunks = [h.shape[0] for h in hists]
        for start, stop, masks, segs, n_slots in self.prefix_launches(prefixes, bounds_list,
                                                                       n_chunks):
            out = self._hist(masks, segs, n0, n_slots)
            row = 0
            for q in range(start, stop):
                hists[q] += out[row:row + n_chunks[q]]
                row += n_chunks[q]

    def count_rows(self, M, depth, lo, hi, n0, level):
        """Rows of the chunk in canonical order, as ``(a, i)`` arrays, and per row the number
        of partners ``k > i`` with score ``level`` (GPU)."""
        if depth == 2:
            rows_i = np.arange(lo, hi, dtype=np.int64)
            rows_a = np.full(rows_i.size, -1, dtype=np.int64)
            segs = self._segments([-1], [lo], [hi], [0])
        else:
            width = np.maximum(self.m - 2 - np.arange(lo, hi), 0)
            starts = np.concatenate([[0], np.cumsum(width)])
            segs = self._level3_segments(np.array([lo, hi]), lambda a, chunk: starts[a - lo])
            rows_a = np.repeat(np.arange(lo, hi, dtype=np.int64), width)
            rows_i = rows_a + 1 + (np.arange(starts[-1]) - np.repeat(starts[:-1], width))
        d_out = self._cuda.to_device(np.zeros(rows_i.size, dtype=np.uint32))
        self._launch(1, M, segs, n0, (np.int64(level),), d_out)
        return rows_a, rows_i, d_out.copy_to_host().astype(np.int64)

    def find_in_chunk(self, PQT, wP, M, depth, lo, hi, n0, level, rank):
        rows_a, rows_i, counts = self.count_rows(M, depth, lo, hi, n0, level)
        cum = np.cumsum(counts)
        row = int(np.searchsorted(cum, rank, side="right"))
        if row >= counts.size:
            return -1, -1, -1
        rank -= int(cum[row - 1]) if row else 0
        a, i = int(rows_a[row]), int(rows_i[row])
        A = M & PQT[:, a] if a >= 0 else M
        _, i2, k = cpu_kernels().find_in_chunk(PQT, wP, np.ascontiguousarray(A), 2, i, i + 1, n0,
                                      level, rank)
        if i2 != i:
            return -1, -1, -1
        return a, i, k


class CudaScorer(BitsetScorer):
    """:class:`ppm.core.hypothesis_class.BitsetScorer` with pairs, triples and the rank pass on an
    NVIDIA GPU (:class:`CudaKernels`). Identical histograms, records and samples.

    ``threads``/``blocks``: launch shape (default :data:`THREADS` threads and
    :data:`BLOCKS_PER_SM` persistent blocks per multiprocessor; 32 threads and 2 blocks under
    the simulator); ``cols``: partner columns per
    thread; ``flush_limit`` and ``aggregate`` (warp-aggregated increments; default
    :data:`ppm.core._cuda_kernels.AGGREGATE`): see :func:`ppm.core._cuda_kernels.build`;
    ``out_bytes``: the device
    buffer of the per-chunk histograms of one level-``j >= 3`` launch (a level whose chunks need
    more is scored in several launches; tests lower it). None of them changes
    any output.
    """

    def __init__(self, B: np.ndarray, y: np.ndarray, d: int, chunks: int = 256, **launch):
        check_cuda()
        super().__init__(B, y, d, chunks)
        self._kernels = CudaKernels(self.PQT, self.wP, self.n, **launch)
