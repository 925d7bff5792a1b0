"""Points of a huge one-dimensional domain ``{0..2^b - 1}`` (``b`` up to 4096 and beyond).

BNS15's LabelBoost experiments (docs/model.md §9.4, claim C14) use thresholds on ``X = {0,1}^b`` read
as the integers ``{0..2^b - 1}``. Such points are not float64 (``2^4096`` overflows) and a numpy
object array of Python ints costs a Python comparison per sort step and ~560 bytes per point,
too slow for the millions of unlabelled points the wrapper consumes. The representation shared
by the population (:mod:`.big_grid`), the learners (:mod:`.threshold_em`, :mod:`.label_boost`)
and their ``predict`` is therefore

    ``BigPoints(origin, offsets)``: point ``i`` is the Python int ``origin + offsets[i]``,

with ``origin`` an exact Python int and ``offsets`` an ``int64`` array. Every array of points
whose values span less than ``2^62`` has this form (the population's support is a window of a
few points, so always); sorting, ``np.unique`` and comparisons with a threshold then run on
``int64`` and stay exact. Points spanning more than ``2^62`` are rejected with a ``ValueError``
(a documented limitation of the representation, not of the mechanisms, which work on sorted
Python ints). :func:`as_big_points` also accepts plain integer arrays (``int64`` or object arrays
of Python ints, shape ``(n,)`` or ``(n, 1)``), e.g. for tests on small domains.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np

_MAX_SPAN = 1 << 62


class BigPoints:
    """``n`` points ``origin + offsets[i]`` (exact Python-int values; see the module docstring)."""

    __slots__ = ("origin", "offsets")

    def __init__(self, origin, offsets):
        if isinstance(origin, bool) or not isinstance(origin, Integral):
            raise TypeError(f"origin must be an int, got {origin!r}")
        off = np.asarray(offsets)
        if off.ndim != 1 or (off.size and off.dtype.kind not in "iu"):
            raise TypeError(f"offsets must be a 1-D integer array, got dtype {off.dtype} "
                            f"and shape {off.shape}")
        self.origin = int(origin)
        self.offsets = off.astype(np.int64, copy=False)

    def __len__(self) -> int:
        return int(self.offsets.size)

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self), 1)

    def __getitem__(self, index):
        if isinstance(index, (Integral, np.integer)):
            return self.origin + int(self.offsets[index])
        return BigPoints(self.origin, self.offsets[index])

    def __repr__(self) -> str:
        return f"BigPoints(origin={self.origin}, n={len(self)})"

    def to_ints(self) -> list[int]:
        """The exact values as Python ints."""
        return [self.origin + int(o) for o in self.offsets]

    def min_value(self) -> int:
        return self.origin + int(self.offsets.min())

    def max_value(self) -> int:
        return self.origin + int(self.offsets.max())

    def distinct(self) -> tuple[list[int], np.ndarray]:
        """Sorted distinct values (Python ints) and, per point, the index of its value."""
        uniq, inverse = np.unique(self.offsets, return_inverse=True)
        return [self.origin + int(o) for o in uniq], inverse.ravel()

    def at_least(self, threshold: int) -> np.ndarray:
        """Boolean mask ``x_i >= threshold`` (exact; ``threshold`` any Python int)."""
        rel = int(threshold) - self.origin
        if rel <= -(1 << 63):
            return np.ones(len(self), dtype=bool)
        if rel >= (1 << 63):
            return np.zeros(len(self), dtype=bool)
        return self.offsets >= np.int64(rel)


def concat(*parts: BigPoints) -> BigPoints:
    """Points of ``parts`` in order, as one :class:`BigPoints` (span checked)."""
    parts = [p for p in parts if len(p)]
    if not parts:
        return BigPoints(0, np.empty(0, dtype=np.int64))
    origin = min(p.origin + int(p.offsets.min()) for p in parts)
    top = max(p.origin + int(p.offsets.max()) for p in parts)
    if top - origin >= _MAX_SPAN:
        raise ValueError(f"points span {top - origin} >= 2^62: not representable as BigPoints")
    return BigPoints(origin, np.concatenate([p.offsets + np.int64(p.origin - origin)
                                             for p in parts]))


def as_big_points(X, name: str = "X", b: int | None = None) -> BigPoints:
    """Validate points (``BigPoints`` or an integer array) -> ``BigPoints``.

    With ``b`` given, every point must lie in ``{0..2^b - 1}``. Raises ``ValueError`` naming the
    first bad value (floats, NaN, bools, negative or too large points, a span >= 2^62).
    """
    if isinstance(X, BigPoints):
        pts = X
    else:
        arr = np.asarray(X)
        if arr.ndim == 2 and arr.shape[1] == 1:
            arr = arr[:, 0]
        if arr.ndim != 1:
            raise ValueError(f"{name} must have shape (n,) or (n, 1), got {arr.shape}")
        if arr.dtype.kind in "iu":
            values = [int(v) for v in arr] if arr.dtype.kind == "u" else None
            if values is None:
                pts = _from_int64(arr)
            else:
                pts = _from_ints(values, name)
        elif arr.dtype.kind == "O":
            for v in arr:
                if isinstance(v, bool) or not isinstance(v, (Integral, np.integer)):
                    raise ValueError(f"{name} must contain integers, got {v!r}")
            pts = _from_ints([int(v) for v in arr], name)
        else:
            bad = arr.ravel()[0] if arr.size else arr.dtype
            raise ValueError(f"{name} must contain integers (dtype {arr.dtype}), got {bad!r}")
    if len(pts) and b is not None:
        lo, hi = pts.min_value(), pts.max_value()
        if lo < 0:
            raise ValueError(f"{name} contains {lo}, outside the domain {{0..2^{b} - 1}}")
        if hi >= (1 << b):
            raise ValueError(f"{name} contains {hi}, outside the domain {{0..2^{b} - 1}}")
    return pts


def _from_int64(arr: np.ndarray) -> BigPoints:
    if arr.size == 0:
        return BigPoints(0, np.empty(0, dtype=np.int64))
    lo, hi = int(arr.min()), int(arr.max())
    if hi - lo >= _MAX_SPAN:
        raise ValueError(f"X spans {hi - lo} >= 2^62: not representable as BigPoints")
    return BigPoints(lo, (arr.astype(np.int64) - np.int64(lo)))


def _from_ints(values: list[int], name: str) -> BigPoints:
    if not values:
        return BigPoints(0, np.empty(0, dtype=np.int64))
    lo, hi = min(values), max(values)
    if hi - lo >= _MAX_SPAN:
        raise ValueError(f"{name} spans {hi - lo} >= 2^62: not representable as BigPoints")
    return BigPoints(lo, np.array([v - lo for v in values], dtype=np.int64))
