"""Memory of an exact PPM fit, estimated before anything large is allocated.

``PPMHalfspaceLearner(max_memory=...)`` refuses, with a one-line ``ValueError`` naming the
estimate and the limit, a fit whose arrays cannot fit, instead of running for a minute and
ending in numpy's ``MemoryError`` (d = 10, n = 200: ConstrHalf alone asks for tens of GiB).
Two checks, both on public quantities (sizes of the public point set and of the sample, which
the neighbouring relation fixes), before the work they guard:

* :func:`construction_bytes` before ``ConstrHalf`` (:func:`ppm.core.halfspaces.construct_halfspaces`):
  its arrays are ``C(k, s)`` rows per subset size ``s = 1..min(d, k)`` of the ``k`` distinct
  public points (the subsets, their points, the SVD of their differences and two ``d x d``
  projections per subset), kept level by level;
* :func:`scorer_bytes` before the scorer of ``G`` is built: the membership matrix ``B``
  (``|C_pub| x n`` booleans) and the scorer's own arrays (bitsets, float copies, sweep columns).

Both count only the large arrays that are alive at the same time, so they are lower bounds of
the peak (numpy's temporaries and LAPACK's workspace come on top): a refusal is always
justified, and what the guard lets through may still need somewhat more
(tests/test_memory_guard.py compares the estimates with ``tracemalloc``'s peak).
"""

from __future__ import annotations

import os
from math import comb
from numbers import Real

__all__ = ["check_max_memory", "construction_bytes", "default_max_memory", "format_bytes",
           "scorer_bytes"]

_F8 = 8  # float64 / int64 / intp bytes


def default_max_memory() -> float | None:
    """The machine's physical memory in bytes (``os.sysconf``), or None where unknown."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # not a POSIX system
        return None
    return float(total) if total > 0 else None


def check_max_memory(value) -> None:
    """``max_memory``: None (the physical memory) or a number of bytes > 0."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, Real) or not value > 0:
        raise ValueError(f"max_memory must be None (the machine's physical memory) or a number "
                         f"of bytes > 0, got {value!r}")


def format_bytes(n: float) -> str:
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:.0f} B"


def construction_bytes(k_points: int, d: int) -> int:
    """Bytes that ``ConstrHalf`` on ``k_points`` distinct public points in ``R^d`` holds at its
    peak (a lower bound: module docstring)."""
    k, d = int(k_points), int(d)
    peak = kept = 0  # kept: the halfspaces of the finished levels (W pair, b pair, supports)
    total_rows = 0
    for s in range(1, min(d, k) + 1):
        N = comb(k, s)
        live = N * s * _F8 + N * s * d * _F8  # the subsets and their points
        if d == 1:
            live += 2 * N * _F8  # w, b
        elif s == 1:
            live += 2 * N * d * _F8  # diagonal of the projection, the normals
        else:
            r = s - 1  # differences to the first point; SVD (U, S, Vt); two d x d projections
            live += N * (r * d + r * r + r + r * d + r + 2 * d * d) * _F8
        peak = max(peak, kept + live)
        kept += 2 * N * (2 * d + 1) * _F8
        total_rows += 2 * N
    if total_rows:  # the levels concatenated; for d > 1 deduplication: the key (m x (d + 1)),
        # np.unique's sorting permutation and sorted copy of it
        dedup = total_rows * (2 * (d + 1) + 1) * _F8 if d > 1 else 0
        peak = max(peak, 2 * kept + dedup)
    return peak


def scorer_bytes(m: int, n: int, n0: int, d: int, scorer: str) -> int:
    """Bytes of the scorer of ``G`` for ``m = |C_pub|`` halfspaces and ``n`` examples (``n0``
    labelled 0), ``C_pub`` included (a lower bound: module docstring).

    ``scorer``: "sorted" (d = 1, no membership matrix), "reference", "blocked", "bitset"
    (also the GPU scorer's host side) or "sweep".
    """
    m, n, n0 = int(m), int(n), int(n0)
    halfspaces = m * (2 * d + 1) * _F8  # W, b, supports
    if scorer == "sorted":
        return halfspaces + 4 * n * _F8
    membership = m * n  # booleans
    words = max(1, -(-n0 // 64)) + max(1, -(-(n - n0) // 64))
    if scorer == "reference":
        return halfspaces + membership
    if scorer == "blocked":
        item = 4 if n < (1 << 24) else 8
        # (its blocks of at most block_elements scores come on top, during the histogram)
        return halfspaces + membership + 2 * item * m * n
    bitsets = words * m * _F8
    if scorer == "sweep":
        return halfspaces + membership + bitsets + n * m  # the int8 signed columns
    return halfspaces + membership + bitsets
