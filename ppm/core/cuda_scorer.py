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
  (:mod:`ppm.core._cuda_kernels`); every level ``j >= 4`` enumerates its ``(j - 3)``-prefixes on
  the host, in canonical order, and runs the level-3 kernel under each prefix's mask (one
  launch per prefix, as the CPU scorer does);
* the rank pass: the counting kernel gives, for the chunk that holds the wanted rank, the number
  of hypotheses at the drawn level per row ``(a, i)``; the host then scans the partners ``k`` of
  the one row that holds the rank (``O(|C_pub|)`` on the CPU).

The empty hypothesis and the single halfspaces (``O(|C_pub| n)``) stay on the CPU. Privacy is
untouched (Lemma 4.1): ``G`` is built from the public points only, the kernels compute the same
integer scores.
"""

from __future__ import annotations

import contextlib
import warnings

import numpy as np

from ppm.core._cuda_kernels import ROWS, build, cuda_module, simulator_enabled
from ppm.core.hypothesis_class import BitsetScorer


def cpu_kernels():
    """The CPU kernels (singles, one row of the rank pass); imported when first needed."""
    from ppm.core import _bitset_kernels

    return _bitset_kernels

# device="auto" takes the GPU from this many hypotheses on: below it the CPU kernels (about
# 1e9 hypotheses/s on 2 cores) finish in ~0.1 s, the time the GPU path spends compiling its
# kernels for a new word count (cached per process) and moving the bitsets.
AUTO_MIN_HYPOTHESES = 1e8


def gpu_available() -> bool:
    """A real CUDA GPU usable by numba (the simulator does not count)."""
    if simulator_enabled():
        return False
    try:
        return bool(cuda_module().is_available())
    except Exception:  # no driver, a broken toolkit, numba-cuda failing to import
        return False


def cuda_usable() -> bool:
    """A real GPU, or the CUDA simulator when ``NUMBA_ENABLE_CUDASIM=1`` is set (tests)."""
    if simulator_enabled():
        return True
    return gpu_available()


def check_cuda() -> None:
    """Raise a one-line ``RuntimeError`` unless :func:`cuda_usable`."""
    if not cuda_usable():
        raise RuntimeError(
            "device='cuda' needs an NVIDIA GPU visible to numba.cuda (install the extra: "
            "pip install -e '.[gpu]'); none was found. Use device='cpu' or 'auto'.")


# numba's launch-time NumbaPerformanceWarning for grids under 128 blocks. The launch shapes here
# are chosen on purpose (persistent blocks, one block per cell, small grids for small inputs),
# so the warning printed at every launch of a sweep says nothing: it alone is silenced, at the
# launches, by its category and message (every other warning still shows).
LOW_OCCUPANCY_MESSAGE = r"Grid size \d+ will likely result in GPU under-utilization"


def _performance_warning_classes() -> tuple:
    """``NumbaPerformanceWarning`` of numba and, when installed, of numba-cuda (which may
    define its own class in ``numba.cuda.core.errors``)."""
    from numba.core.errors import NumbaPerformanceWarning

    classes = [NumbaPerformanceWarning]
    try:
        from numba.cuda.core.errors import NumbaPerformanceWarning as CudaPerformanceWarning
    except ImportError:  # numba's built-in numba.cuda: the class above
        pass
    else:
        if CudaPerformanceWarning not in classes:
            classes.append(CudaPerformanceWarning)
    return tuple(classes)


@contextlib.contextmanager
def quiet_low_occupancy():
    """Around a kernel launch (``kernel[blocks, threads](...)``): ignore numba's low-occupancy
    ``NumbaPerformanceWarning`` ("Grid size N will likely result in GPU under-utilization ..."),
    only that category and message."""
    with warnings.catch_warnings():
        for category in _performance_warning_classes():
            warnings.filterwarnings("ignore", message=LOW_OCCUPANCY_MESSAGE, category=category)
        yield


def launch_shape(cuda, n_items: int, threads: int | None, blocks: int | None):
    if simulator_enabled():  # every simulated thread is a Python thread: keep blocks small
        threads, blocks = threads or 32, blocks or 2
    else:
        threads = threads or 256
        if blocks is None:
            blocks = 3 * cuda.get_current_device().MULTIPROCESSOR_COUNT  # persistent blocks
    return threads, max(1, min(int(blocks), int(n_items)))


class CudaKernels:
    """The kernel module of :class:`CudaScorer`: same functions and signatures as
    :mod:`ppm.core._bitset_kernels` (``singles``, ``level2_hist``, ``level3_hist``,
    ``find_in_chunk``), pairs and triples computed on the GPU."""

    def __init__(self, PQT: np.ndarray, wP: int, n: int, threads: int | None = None,
                 blocks: int | None = None, cols: int = 2, flush_limit: int = (1 << 32) - 1):
        self._cuda = cuda_module()
        self.W, self.m = PQT.shape
        self.n = int(n)
        self._PQT = PQT
        self._threads, self._blocks, self._cols = threads, blocks, int(cols)
        self._limit = int(flush_limit)
        self._dPQT = None
        self.wP = int(wP)

    # -- helpers ------------------------------------------------------------------------------
    def _kernels(self, threads):
        return build(self.W, self.wP, self.n, threads, self._cols, self._limit)

    def _device_pqt(self):
        if self._dPQT is None:
            self._dPQT = self._cuda.to_device(np.ascontiguousarray(self._PQT))
        return self._dPQT

    def _segments(self, a, lo, hi, out):
        a, lo, hi, out = (np.asarray(v, dtype=np.int64) for v in (a, lo, hi, out))
        keep = hi > lo
        a, lo, hi, out = a[keep], lo[keep], hi[keep], out[keep]
        offsets = np.concatenate([[0], np.cumsum(-(-(hi - lo) // ROWS))]).astype(np.int64)
        return a, lo, hi, out, offsets

    def _launch(self, kernel_index, M, segs, n0, tail_args, out):
        a, lo, hi, slot, offsets = segs
        n_items = int(offsets[-1])
        if n_items == 0:
            return
        cuda = self._cuda
        threads, blocks = launch_shape(cuda, n_items, self._threads, self._blocks)
        kernel = self._kernels(threads)[kernel_index]
        counter = cuda.to_device(np.zeros(1, dtype=np.int64))
        args = (self._device_pqt(), cuda.to_device(np.ascontiguousarray(M, dtype=np.uint64)),
                *(cuda.to_device(v) for v in (a, lo, hi, slot, offsets)), np.int64(n_items),
                counter, np.int64(n0 - 64 * self.wP), *tail_args)
        with quiet_low_occupancy():
            kernel[blocks, threads](*args, out)
        cuda.synchronize()

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

    ``threads``/``blocks``: launch shape (default 256 threads and 3 persistent blocks per
    multiprocessor; 32 threads and 2 blocks under the simulator); ``cols``: partner columns per
    thread; ``flush_limit``: see :func:`ppm.core._cuda_kernels.build`. None of them changes
    any output.
    """

    def __init__(self, B: np.ndarray, y: np.ndarray, d: int, chunks: int = 256, **launch):
        check_cuda()
        super().__init__(B, y, d, chunks)
        self._kernels = CudaKernels(self.PQT, self.wP, self.n, **launch)
