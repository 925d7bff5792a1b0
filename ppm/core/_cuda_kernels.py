"""numba.cuda kernels of :class:`ppm.core.cuda_scorer.CudaScorer` (exact scoring of ``G``).

Same bitsets as the CPU kernels (:mod:`ppm.core._bitset_kernels`): ``PQT[t, k]`` is word ``t`` of
halfspace ``k``, the first ``wP`` words over the label-0 examples, the rest over the label-1
examples, so the score of a region ``R`` is ``m = n0 - popcount(R ∩ P) + popcount(R ∩ Q)``.

**Work items.** A launch scores the pairs ``(i, k)``, ``k > i``, of a list of *segments*: a
segment is a run of rows ``i`` in ``[lo, hi)`` under a mask and writes to one output slot. The
mask is a row ``Mp[p]`` of a table of prefix masks (the AND of the hypothesis' prefix
halfspaces, built on the host), ANDed with halfspace ``a`` when ``a >= 0``: a segment is a
``(prefix, first index)`` pair. Level 2 has one segment per chunk of rows (one mask, no ``a``);
level 3 one segment per first index ``a`` (its slot is the chunk of ``a``); a level ``j >= 4``
one segment per ``(j - 3)``-prefix and first index, so that all prefixes of a level are scored
in one launch (or a few, when their output slots would not fit the device buffer). A work
item is a block of ``ROWS = 32`` consecutive rows of one segment; persistent thread blocks pull
items from a global atomic counter (items are numbered segment by segment, so a block meets the
slots in increasing order).

**Per item.** The block ANDs the item's rows into shared memory; each thread keeps ``COLS``
partner columns ``k`` in registers and scores them against every row of the item (shared-memory
broadcast reads). Pairs with ``k <= i`` go to an extra, discarded bin, so no warp diverges on the
triangle. Scores go to per-warp ``uint32`` histograms in shared memory, flushed (summed over the
copies, one global ``uint64`` atomic per non-empty bin) into the output slot when the slot
changes and before any bin could overflow. When ``n`` is too large for per-warp copies in 48 KiB
of static shared memory, fewer copies are kept; with none, increments go straight to global
memory (slower, same numbers).

**Carry-save popcount.** The label-0 words enter complemented, ``popcount(x) = 64 -
popcount(~x)``, so every word adds with the same sign: ``m = n0 - 64 wP + sum_t popcount(x'_t)``.
A carry-save adder (Harley-Seal) folds the words two at a time into a running ``ones`` word and
counts only the carries: ``floor(W / 2) + 1`` popcounts per hypothesis instead of ``W`` (4 instead
of 6 at 6 words). Integer identities only: the score is exact.

**Rank pass.** :func:`build` also returns a counting kernel with the same loops: for one chunk
and one level it writes, per row ``(a, i)`` of the chunk, how many partners ``k`` reach that
level; the host finds the row of the wanted rank and the partner inside it (one row, on the CPU).

Kernels are compiled per ``(W, wP, n, copies, cols)``: shapes of shared and local arrays are
compile-time constants in numba.cuda. They compile for numba's built-in ``numba.cuda`` and for the
``numba-cuda`` package (which replaces it when installed), and run under the CUDA simulator
(``NUMBA_ENABLE_CUDASIM=1``; tests).
"""

from __future__ import annotations

import functools

from ppm.gpu import cuda_module, simulator_enabled

ROWS = 32  # rows i per work item (a warp's width: one row per lane when loading)
SHARED_HIST_BYTES = 40 * 1024  # static shared memory for the per-warp histograms (of 48 KiB)
_UINT32_MAX = (1 << 32) - 1
#: Warp-aggregated histogram increments by default (``build(aggregate=...)``): off. On an H100
#: (``scripts.bench_gpu --shapes``, ``results/bench_gpu_shapes.csv``) they ran at 0.39-0.51 of
#: one shared-memory increment per pair at level 3 and 4: the scores of a warp's 32 partners
#: are spread over many bins, so few increments merge, and ``match_any_sync`` costs more
#: than the conflicts it saves.
AGGREGATE = False
cuda = None  # numba.cuda, bound by build() (importing it is deferred until a kernel is needed)


def histogram_copies(n: int, threads: int) -> int:
    """Per-warp shared histograms that fit (0: increment global memory directly)."""
    return int(min(threads // 32, SHARED_HIST_BYTES // (4 * (n + 2))))


def aggregation_available() -> bool:
    """Whether warp-aggregated increments can be compiled: not under the CUDA simulator, which
    implements no warp intrinsics (``match_any_sync``)."""
    return not simulator_enabled()


def _jit(cuda, simulator: bool, threads: int):
    """``cuda.jit`` with ``launch_bounds=(threads, 3)`` (3 resident blocks per multiprocessor)
    where the target supports it: the numba-cuda package. The simulator rejects it, and numba's
    built-in target accepts the keyword but fails when it compiles the kernel."""
    if not simulator:
        import inspect

        try:
            supported = "launch_bounds" in inspect.signature(cuda.compile_ptx).parameters
        except (AttributeError, TypeError, ValueError):
            supported = False
        if supported:
            return cuda.jit(launch_bounds=(threads, 3))
    return cuda.jit


@functools.lru_cache(maxsize=None)
def build(W: int, wP: int, n: int, threads: int, cols: int = 2, limit: int = _UINT32_MAX,
          aggregate: bool = False):
    """Compile-time specialised kernels ``(hist, count, sink)`` for bitsets of ``W`` words.

    * ``hist(PQT, Mp, seg_p, seg_a, seg_lo, seg_hi, seg_out, offsets, n_items, counter, base,
      out)``:
      ``out[seg_out[s], m] +=`` the number of pairs of segment ``s`` (rows under the mask
      ``Mp[seg_p[s]]``, ANDed with halfspace ``seg_a[s]`` when it is ``>= 0``) with score ``m``
      (``out`` is ``uint64`` with ``n + 2`` columns; the last one is not written).
    * ``count(PQT, Mp, seg_p, seg_a, seg_lo, seg_hi, seg_out, offsets, n_items, counter, base,
      level, out)``: ``out[seg_out[s] + i - seg_lo[s]] =`` the number of partners ``k > i`` of
      row ``i`` with score ``level`` (``uint32``).
    * ``sink(...)`` (the popcount ceiling of the benchmark): ``hist``'s loads and popcounts with
      the histogram replaced by a per-thread sum, ``out[thread] = sum of scores``.

    ``aggregate``: warp-aggregated increments (``hist`` only): the lanes of a warp that hold
    the same bin are found with ``match_any_sync`` and add their count with one atomic, by the
    lowest lane; pairs ``k <= i`` add nothing instead of going to the discard bin. The CUDA
    simulator has no warp intrinsics, so there it falls back to one increment per pair
    (:func:`aggregation_available`); the histogram is the same either way.

    ``limit``: flush the shared histograms before a block's pending increments could exceed it
    (``2**32 - 1``, the ``uint32`` bins; tests lower it to exercise the flushes).

    Launch with ``threads`` threads per block (a multiple of 32) and any number of blocks; the
    caller zeroes ``counter`` (``int64[1]``) before each launch.
    """
    # A module global, not a local: the simulator swaps module references named in a kernel's
    # globals for its fake ``cuda`` module.
    global cuda
    cuda = cuda_module()
    from numba import int64, uint32, uint64

    simulator = simulator_enabled()
    if threads % 32:
        raise ValueError(f"threads must be a multiple of 32, got {threads}")
    NB = n + 2  # scores 0..n and the discard bin n + 1
    DISCARD = n + 1
    NW, WP, COLS, R = W, wP, cols, ROWS
    COPIES = histogram_copies(n, threads)
    GLOBAL = COPIES == 0
    SH_COPIES, SH_BINS = (1, 1) if GLOBAL else (COPIES, NB)
    if not 0 < limit <= _UINT32_MAX:
        raise ValueError(f"limit must be in [1, 2**32 - 1], got {limit}")
    LIMIT = int(limit)
    AGGREGATE = bool(aggregate) and aggregation_available()
    FULL_MASK = 0xFFFFFFFF  # all 32 lanes (numba types match_any_sync's mask as int32)
    jit = _jit(cuda, simulator, threads)

    @cuda.jit(device=True)
    def csa_popcount(rows, r, colw, c):
        """sum_t popcount(x'_t) for x_t = rows[r, t] & colw[c, t], label-0 words complemented."""
        ones = uint64(0)
        twos = uint64(0)
        for t in range(0, NW - 1, 2):
            x = rows[r, t] & colw[c, t]
            if t < WP:
                x = ~x
            y = rows[r, t + 1] & colw[c, t + 1]
            if t + 1 < WP:
                y = ~y
            u = ones ^ x
            twos += cuda.popc((ones & x) | (u & y))
            ones = u ^ y
        total = cuda.popc(ones) + twos + twos
        if NW % 2 == 1:
            x = rows[r, NW - 1] & colw[c, NW - 1]
            if NW - 1 < WP:
                x = ~x
            total += cuda.popc(x)
        return total

    @cuda.jit(device=True)
    def next_item(counter, offsets, n_items, sh_item):
        """Thread 0 takes the next item and its segment (binary search over ``offsets``)."""
        if cuda.threadIdx.x == 0:
            it = cuda.atomic.add(counter, 0, int64(1))
            s = int64(0)
            if it < n_items:
                lo = int64(0)
                hi = int64(offsets.shape[0] - 1)
                while hi - lo > 1:
                    mid = (lo + hi) // 2
                    if offsets[mid] <= it:
                        lo = mid
                    else:
                        hi = mid
                s = lo
            sh_item[0] = it
            sh_item[1] = s
        cuda.syncthreads()

    @cuda.jit(device=True)
    def load_rows(PQT, Mp, p, a, i0, nrows, sh_rows):
        tid = cuda.threadIdx.x
        for e in range(tid, R * NW, cuda.blockDim.x):
            r = e // NW
            t = e - r * NW
            v = uint64(0)
            if r < nrows:
                v = Mp[p, t] & PQT[t, i0 + r]
                if a >= 0:
                    v &= PQT[t, a]
            sh_rows[r, t] = v
        cuda.syncthreads()

    @cuda.jit(device=True)
    def flush(sh_hist, out, dst):
        cuda.syncthreads()
        tid = cuda.threadIdx.x
        for b in range(tid, NB, cuda.blockDim.x):
            tot = uint64(0)
            for cp in range(SH_COPIES):
                tot += uint64(sh_hist[cp, b])
                sh_hist[cp, b] = uint32(0)
            if b < DISCARD and tot != 0:
                cuda.atomic.add(out, (dst, b), tot)
        cuda.syncthreads()

    def make_hist(sink):
        PLAIN = sink or not AGGREGATE  # one increment per pair (or the sink's sum)

        @jit
        def kernel(PQT, Mp, seg_p, seg_a, seg_lo, seg_hi, seg_out, offsets, n_items, counter,
                   base, out):
            sh_hist = cuda.shared.array((SH_COPIES, SH_BINS), uint32)
            sh_rows = cuda.shared.array((R, NW), uint64)
            sh_item = cuda.shared.array(2, int64)
            colw = cuda.local.array((COLS, NW), uint64)
            m = PQT.shape[1]
            tid = cuda.threadIdx.x
            nth = cuda.blockDim.x
            copy = (tid // 32) % SH_COPIES
            lower_lanes = (uint32(1) << uint32(tid % 32)) - uint32(1)  # lanes below this one
            if not GLOBAL:
                for e in range(tid, SH_COPIES * SH_BINS, nth):
                    sh_hist[e // SH_BINS, e % SH_BINS] = uint32(0)
            acc = int64(0)
            cur = int64(-1)
            pending = int64(0)
            while True:
                next_item(counter, offsets, n_items, sh_item)
                it = sh_item[0]
                s = sh_item[1]
                if it >= n_items:
                    break
                i0 = seg_lo[s] + R * (it - offsets[s])
                nrows = seg_hi[s] - i0
                if nrows > R:  # (not min(): numba's CUDA target mis-types it with two ints)
                    nrows = int64(R)
                dst = seg_out[s]
                span = nrows * (m - i0 - 1)  # increments of this item, discarded ones too
                if not sink and not GLOBAL and cur >= 0 and (
                        dst != cur or pending + span > LIMIT):
                    flush(sh_hist, out, cur)
                    pending = int64(0)
                cur = dst
                pending += span
                load_rows(PQT, Mp, seg_p[s], seg_a[s], i0, nrows, sh_rows)
                for kt in range(i0 + 1, m, COLS * nth):
                    for c in range(COLS):
                        k = kt + c * nth + tid
                        if k < m:
                            for t in range(NW):
                                colw[c, t] = PQT[t, k]
                    for r in range(nrows):
                        i = i0 + r
                        for c in range(COLS):
                            k = kt + c * nth + tid
                            if PLAIN:
                                if k < m:
                                    sc = int64(csa_popcount(sh_rows, r, colw, c)) + base
                                    if sink:
                                        acc += sc
                                    else:
                                        b = sc if k > i else int64(DISCARD)
                                        if GLOBAL:
                                            cuda.atomic.add(out, (dst, b), uint64(1))
                                        else:
                                            cuda.atomic.add(sh_hist, (copy, b), uint32(1))
                            else:
                                # every lane of the warp gets here (the loops are uniform over
                                # the block): the lanes holding the same bin add once, by the
                                # lowest lane of the group; pairs k <= i or k >= m add nothing
                                b = int64(DISCARD)
                                if k < m and k > i:
                                    b = int64(csa_popcount(sh_rows, r, colw, c)) + base
                                grp = cuda.match_any_sync(FULL_MASK, b)
                                if b != DISCARD and (grp & lower_lanes) == 0:
                                    if GLOBAL:
                                        cuda.atomic.add(out, (dst, b), uint64(cuda.popc(grp)))
                                    else:
                                        cuda.atomic.add(sh_hist, (copy, b),
                                                        uint32(cuda.popc(grp)))
                cuda.syncthreads()  # before the next item overwrites sh_rows and sh_item
            if sink:
                out[cuda.blockIdx.x * nth + tid, 0] = uint64(acc)
            elif not GLOBAL and cur >= 0:
                flush(sh_hist, out, cur)

        return kernel

    @jit
    def count(PQT, Mp, seg_p, seg_a, seg_lo, seg_hi, seg_out, offsets, n_items, counter, base,
              level, out):
        sh_rows = cuda.shared.array((R, NW), uint64)
        sh_cnt = cuda.shared.array(R, uint32)
        sh_item = cuda.shared.array(2, int64)
        colw = cuda.local.array((COLS, NW), uint64)
        m = PQT.shape[1]
        tid = cuda.threadIdx.x
        nth = cuda.blockDim.x
        while True:
            next_item(counter, offsets, n_items, sh_item)
            it = sh_item[0]
            s = sh_item[1]
            if it >= n_items:
                break
            i0 = seg_lo[s] + R * (it - offsets[s])
            nrows = seg_hi[s] - i0
            if nrows > R:
                nrows = int64(R)
            if tid < R:
                sh_cnt[tid] = uint32(0)
            load_rows(PQT, Mp, seg_p[s], seg_a[s], i0, nrows, sh_rows)
            for kt in range(i0 + 1, m, COLS * nth):
                for c in range(COLS):
                    k = kt + c * nth + tid
                    if k < m:
                        for t in range(NW):
                            colw[c, t] = PQT[t, k]
                for r in range(nrows):
                    i = i0 + r
                    for c in range(COLS):
                        k = kt + c * nth + tid
                        if k < m and k > i:
                            if int64(csa_popcount(sh_rows, r, colw, c)) + base == level:
                                cuda.atomic.add(sh_cnt, r, uint32(1))
            cuda.syncthreads()
            if tid < nrows:
                out[seg_out[s] + i0 + tid - seg_lo[s]] = sh_cnt[tid]
            cuda.syncthreads()

    return make_hist(False), count, make_hist(True)
