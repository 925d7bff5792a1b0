"""numba.cuda kernels of the exact triangle selection (KMMS19 section 5, Theorem 5.1;
docs/model.md §9.2): steps 1 and 2 of the chain rule of
:class:`~ppm.set_cover.unions.TriangleComplementSelector` on an NVIDIA GPU.

Same inputs and outputs as the CPU kernel :func:`ppm.set_cover._triple_kernels.log_weights`
(``bits`` (L, W) uint64 labellings of the merged cells, ``mass`` normalised to sum 1, the
per-byte tables ``tab0``/``tab1``, ``N0``, ``N1``, ``thr``, and the exponential mechanism's
temperature ``temp``, precomputed on the host by :func:`ppm.mechanisms.em_temperature`:
``epsilon / 2`` for this score of sensitivity 1; no kernel writes the factor ``1/2``):

* step 1 (``c1 < 0``): ``log W(c) = log m(c) + log sum_{c2, c3} m(c2) m(c3) exp(temp q)``;
* step 2 (``c1 >= 0``, ``c2 < 0``): ``log m(c1) + log m(c) + log sum_{c3} m(c3) exp(temp q)``;
* step 3 (both given) is ``O(L)``: :func:`log_weights` hands it to the CPU kernel.

**Counts.** The points inside a triple are ``b_1 & b_2 & b_3``; the multiplicity-weighted counts
``n0``, ``n1`` are exact integers from *bit planes* of the multiplicities (plane ``k`` holds the
points whose multiplicity has bit ``k`` set, so ``n = sum_k popcount(x & plane_k) << k``):
``K`` popcounts per word and label instead of the CPU kernel's 8 byte lookups. The
multiplicities are read back from the tables (``tab[8 w + j, 1 << b]`` is that of point
``64 w + 8 j + b``), so the inputs are the CPU kernel's.

**Sums.** One block per first cell ``c`` (grid-stride), its threads over the second index (step
1: ``c3``, each thread looping over ``c2 < c3`` and ``c2 = c3``: ``q`` and the mass product are
symmetric in ``(c2, c3)``, so the off-diagonal pairs count twice and half the triples are
scored; step 2: ``c3``). Each thread keeps a running log-sum-exp ``(qmax, s)`` of its terms
``m m' exp(temp (q - qmax))`` over the terms with a positive mass product (rescaling ``s``
when a larger ``q`` comes: one pass, no exponent can overflow), then a fixed-order shared-memory
tree combines the threads' pairs (deterministic on the GPU). Compared with the CPU kernel, which
adds the mass products per score bucket and takes a log-sum-exp over the buckets, only the
order of the float64 operations differs: the results agree to float64 rounding (every triple
contributes; a term is lost only where it underflows float64, far below the rounding of a sum
that holds its largest term).

Kernels are compiled per ``(W, threads)`` (shapes of shared and local arrays are compile-time
constants in numba.cuda), for numba's built-in ``numba.cuda`` and the ``numba-cuda`` package,
and run under the CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``; tests).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ppm.gpu import cuda_module, launch, simulator_enabled
from . import _triple_kernels as TK

cuda = None  # numba.cuda, bound by build() (importing it is deferred until a kernel is needed)


def bit_planes(tab: np.ndarray) -> np.ndarray:
    """(W, K) uint64 bit planes of the multiplicities encoded in a per-byte table (8 W, 256)."""
    mult = tab[:, 1 << np.arange(8)].reshape(-1).astype(np.int64)  # point 8 r + b
    W = tab.shape[0] // 8
    K = max(1, int(mult.max(initial=0)).bit_length())
    planes = (mult[:, None] >> np.arange(K)) & 1  # (64 W, K)
    shifts = np.arange(64, dtype=np.uint64)[None, :, None]
    return np.ascontiguousarray(
        (planes.reshape(W, 64, K).astype(np.uint64) << shifts).sum(axis=1, dtype=np.uint64))


@functools.lru_cache(maxsize=None)
def build(W: int, threads: int):
    """Kernels ``(pairs, singles)`` for labellings of ``W`` words and blocks of ``threads``
    threads (a power of two; launch with exactly that many).

    * ``pairs(bits, mass, planes0, planes1, thr, temp, out)``: step 1, ``out[c]`` for all c;
    * ``singles(bits, mass, c1, planes0, planes1, thr, temp, out)``: step 2.
    """
    # A module global, not a local: the simulator swaps module references named in a kernel's
    # globals for its fake ``cuda`` module.
    global cuda
    cuda = cuda_module()
    from numba import float64, int64, uint64

    if threads < 1 or threads & (threads - 1):
        raise ValueError(f"threads must be a power of two, got {threads}")
    NW, NT = int(W), int(threads)
    NEG_INF = -math.inf

    @cuda.jit(device=True)
    def score(x, bits, r, planes0, planes1, thr):
        """``q = min(n0 - thr, -n1)`` of the points in ``x & bits[r]`` (exact integer counts)."""
        n0 = int64(0)
        n1 = int64(0)
        for w in range(NW):
            v = x[w] & bits[r, w]
            for k in range(planes0.shape[1]):
                n0 += int64(cuda.popc(v & planes0[w, k])) << k
            for k in range(planes1.shape[1]):
                n1 += int64(cuda.popc(v & planes1[w, k])) << k
        qa = float64(n0) - thr
        qb = -float64(n1)
        if qa <= qb:  # the CPU kernel's bucket rule: kind A on ties
            return qa
        return qb

    @cuda.jit(device=True)
    def combine(qa, sa, qb, sb, temp):
        """Running log-sum-exp: ``(qa, sa)`` + ``(qb, sb)`` with ``s`` relative to ``exp(temp
        q)``; ``s = 0`` (with ``q = -inf``) is the empty sum."""
        if sb <= 0.0:
            return qa, sa
        if sa <= 0.0:
            return qb, sb
        if qb > qa:
            return qb, sb + sa * math.exp(temp * (qa - qb))
        return qa, sa + sb * math.exp(temp * (qb - qa))

    @cuda.jit(device=True)
    def reduce(sh_q, sh_s, q, s, temp):
        """Fixed-order tree over the block's threads; thread 0 gets the block's ``(q, s)``."""
        tid = cuda.threadIdx.x
        sh_q[tid] = q
        sh_s[tid] = s
        cuda.syncthreads()
        stride = NT // 2
        while stride > 0:
            if tid < stride:
                qq, ss = combine(sh_q[tid], sh_s[tid], sh_q[tid + stride], sh_s[tid + stride],
                                 temp)
                sh_q[tid] = qq
                sh_s[tid] = ss
            cuda.syncthreads()
            stride //= 2
        return sh_q[0], sh_s[0]

    @cuda.jit
    def pairs(bits, mass, planes0, planes1, thr, temp, out):
        sh_q = cuda.shared.array(NT, float64)
        sh_s = cuda.shared.array(NT, float64)
        x = cuda.local.array(NW, uint64)
        L = bits.shape[0]
        tid = cuda.threadIdx.x
        rounds = (L + NT - 1) // NT
        for c in range(cuda.blockIdx.x, L, cuda.gridDim.x):
            mc = mass[c]
            if mc <= 0.0:  # never drawn (the CPU kernel leaves -inf)
                if tid == 0:
                    out[c] = NEG_INF
                continue
            q = NEG_INF
            s = 0.0
            for rd in range(rounds):
                # zig-zag over the rounds: thread tid's c3 alternate between the low and the
                # high lanes, so the triangular loops below even out across the block
                e = rd * NT + (tid if rd % 2 == 0 else NT - 1 - tid)
                if e < L:
                    me = mass[e]
                    if me > 0.0:
                        for w in range(NW):
                            x[w] = bits[c, w] & bits[e, w]
                        for d in range(e):  # c2 < c3: the pair (c2, c3) and (c3, c2)
                            md = mass[d]
                            p = md * me
                            if p > 0.0:
                                q, s = combine(q, s, score(x, bits, d, planes0, planes1, thr),
                                               p, temp)
                        p = 0.5 * me * me  # c2 = c3, once (the total is doubled below)
                        if p > 0.0:
                            q, s = combine(q, s, score(x, bits, e, planes0, planes1, thr), p,
                                           temp)
            q, s = reduce(sh_q, sh_s, q, s, temp)
            if tid == 0:
                out[c] = math.log(mc) + temp * q + math.log(2.0 * s) if s > 0.0 \
                    else NEG_INF
            cuda.syncthreads()  # thread 0 has read the block's sums before they are reused

    @cuda.jit
    def singles(bits, mass, c1, planes0, planes1, thr, temp, out):
        sh_q = cuda.shared.array(NT, float64)
        sh_s = cuda.shared.array(NT, float64)
        x = cuda.local.array(NW, uint64)
        L = bits.shape[0]
        tid = cuda.threadIdx.x
        m1 = mass[c1]
        for c in range(cuda.blockIdx.x, L, cuda.gridDim.x):
            mc = mass[c]
            if mc <= 0.0:
                if tid == 0:
                    out[c] = NEG_INF
                continue
            for w in range(NW):
                x[w] = bits[c1, w] & bits[c, w]
            q = NEG_INF
            s = 0.0
            for e in range(tid, L, NT):
                me = mass[e]
                if me > 0.0:
                    q, s = combine(q, s, score(x, bits, e, planes0, planes1, thr), me, temp)
            q, s = reduce(sh_q, sh_s, q, s, temp)
            if tid == 0:
                out[c] = math.log(m1) + math.log(mc) + temp * q + math.log(s) if s > 0.0 \
                    else NEG_INF
            cuda.syncthreads()

    return pairs, singles


def launch_shape(L: int, threads: int | None = None, blocks: int | None = None):
    """``(threads, blocks)``: 256 threads and one block per cell on a GPU; 8 threads and 2
    blocks under the simulator (every simulated thread is a Python thread)."""
    if simulator_enabled():
        threads, blocks = threads or 8, blocks or 2
    else:
        threads, blocks = threads or 256, blocks or L
    return int(threads), max(1, min(int(blocks), int(L)))


def log_weights(bits, mass, c1, c2, tab0, tab1, N0, N1, thr, temp, threads=None, blocks=None):
    """:func:`ppm.set_cover._triple_kernels.log_weights` with steps 1 and 2 on the GPU (step 3,
    ``O(L)``, on the CPU): equal to float64 rounding (module docstring). ``threads``/``blocks``
    choose the launch shape only."""
    if c1 >= 0 and c2 >= 0:
        return TK.log_weights(bits, mass, c1, c2, tab0, tab1, N0, N1, thr, temp)
    bits = np.ascontiguousarray(bits, dtype=np.uint64)
    L, W = bits.shape
    threads, blocks = launch_shape(L, threads, blocks)
    pairs, singles = build(W, threads)
    cu = cuda_module()
    d_bits = cu.to_device(bits)
    d_mass = cu.to_device(np.ascontiguousarray(mass, dtype=np.float64))
    planes = [cu.to_device(bit_planes(np.asarray(t))) for t in (tab0, tab1)]
    d_out = cu.to_device(np.full(L, -np.inf))
    temp = np.float64(temp)
    if c1 < 0:
        launch(pairs, blocks, threads, d_bits, d_mass, *planes, np.float64(thr), temp, d_out)
    else:
        launch(singles, blocks, threads, d_bits, d_mass, np.int64(c1), *planes,
               np.float64(thr), temp, d_out)
    return d_out.copy_to_host()
