"""Literals over ``{0,1}^D``: the base class of conjunctions (KMMS19, Example 2.3, Thm 3.5).

``H`` = the ``2D`` literals ``x_i`` and ``NOT x_i``; ``CONJ_{k,D} = H^{∧k}``. Canonical order:
index ``i < D`` is the literal ``x_i`` (labels a point 0 iff ``x_i = 0``), index ``D + i`` is
``NOT x_i`` (labels 0 iff ``x_i = 1``); a literal is written ``(i, sign)`` with ``sign = 1`` for
``x_i`` and ``0`` for ``NOT x_i``, so it predicts ``1[x_i = sign]``.

Selection procedure (step 1e with the exponential mechanism, Proposition 2.5): with
``c_sigma[i] = #{x in S_sigma : x_i = 1}`` and ``n_sigma = |S_sigma|``,

    #h_0(S_sigma) = n_sigma - c_sigma[i]  for x_i,     c_sigma[i]  for NOT x_i,
    q(h) = min(#h_0(S_0) - threshold, -#h_0(S_1)),

two column sums of the sample give all ``2D`` scores (``O(nD)``, vectorised), and ``h`` is drawn
with probability exactly ``exp(eps q(h)/2) / sum_h' exp(eps q(h')/2)`` (log-sum-exp in float64,
one inverse-CDF draw: :func:`ppm.mechanisms.exponential_mechanism`). The class is fixed by
``D`` alone: no data touch it before the mechanism.
``q`` has sensitivity 1 for a fixed ``threshold`` (each of the two counts moves by at most 1 when
one example is added, removed or replaced), so one call is ``eps``-DP given the threshold.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from ppm.mechanisms import em_log_weights, exponential_mechanism
from ppm.validation import check_epsilon


@dataclass(frozen=True)
class Literal:
    """The literal ``x_variable`` (``sign = 1``) or ``NOT x_variable`` (``sign = 0``)."""

    variable: int
    sign: int

    def predict(self, X) -> np.ndarray:
        X = np.asarray(X)
        return (X[:, self.variable] == self.sign).astype(np.int64)

    def as_tuple(self) -> tuple[int, int]:
        return (int(self.variable), int(self.sign))


def check_binary_X(X, name: str = "X", n_features: int | None = None) -> np.ndarray:
    """A 2-D array with entries in {0, 1} (bool or numeric), returned as C-contiguous uint8."""
    arr = np.asarray(X)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_samples, D), got shape {arr.shape}")
    if arr.shape[1] < 1:
        raise ValueError(f"{name} must have at least one variable (D >= 1), got shape {arr.shape}")
    if arr.dtype == bool or arr.dtype == np.uint8 and arr.size and arr.max() <= 1:
        out = arr.view(np.uint8) if arr.dtype == bool else arr
    else:
        if arr.dtype.kind not in "biuf":
            raise ValueError(f"{name} must be numeric or boolean, got dtype {arr.dtype}")
        if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
            bad = np.argwhere(~np.isfinite(arr))[0]
            raise ValueError(f"{name} contains NaN or infinity (first at row {bad[0]}, column "
                             f"{bad[1]}: {arr[bad[0], bad[1]]!r})")
        ok = (arr == 0) | (arr == 1)
        if not np.all(ok):
            bad = np.argwhere(~ok)[0]
            raise ValueError(f"{name} must be binary (entries 0 or 1) for literals, got "
                             f"{arr[bad[0], bad[1]]!r} at row {bad[0]}, column {bad[1]}")
        out = arr.astype(np.uint8)
    if n_features is not None and out.shape[1] != n_features:
        raise ValueError(f"{name} has D = {out.shape[1]} variables but the estimator was "
                         f"fitted with D = {n_features}")
    return np.ascontiguousarray(out)


def literal_of(index: int, D: int) -> Literal:
    """The literal at position ``index`` of the canonical order (module docstring)."""
    if not 0 <= index < 2 * D:
        raise ValueError(f"index must be in [0, {2 * D}), got {index!r}")
    return Literal(int(index % D), 1 if index < D else 0)


def column_counts(X: np.ndarray, y: np.ndarray):
    """``(n0, n1, c0, c1)``: sizes of ``S_0``, ``S_1`` and their column sums (int64)."""
    y = np.asarray(y)
    neg = y == 0
    D = X.shape[1]
    n0 = int(np.count_nonzero(neg))
    n1 = y.size - n0
    # Column sums in int32 are exact for n < 2^31 and twice as fast as int64 on uint8 input.
    c0 = X[neg].sum(axis=0, dtype=np.int32).astype(np.int64) if n0 else np.zeros(D, np.int64)
    c1 = X[~neg].sum(axis=0, dtype=np.int32).astype(np.int64) if n1 else np.zeros(D, np.int64)
    return n0, n1, c0, c1


def scores_from_counts(n0: int, n1: int, c0: np.ndarray, c1: np.ndarray,
                       threshold: float) -> np.ndarray:
    """``q(h)`` for all ``2D`` literals in canonical order from the counts of
    :func:`column_counts` (module docstring)."""
    zeros_neg = np.concatenate([n0 - c0, c0])  # #h_0(S_0)
    zeros_pos = np.concatenate([n1 - c1, c1])  # #h_0(S_1)
    return np.minimum(zeros_neg - float(threshold), -zeros_pos.astype(float))


def literal_scores(X: np.ndarray, y: np.ndarray, threshold: float) -> np.ndarray:
    """``q(h)`` for all ``2D`` literals in canonical order (float64)."""
    return scores_from_counts(*column_counts(X, y), threshold)


class LiteralSelector:
    """Exact exponential mechanism over the ``2D`` literals (module docstring)."""

    def check_X(self, X) -> np.ndarray:
        return check_binary_X(X)

    def select_distribution(self, X, y, threshold: float, epsilon: float) -> np.ndarray:
        """``P[h]`` for all ``2D`` literals in canonical order (sums to 1)."""
        return self.distribution_from_counts(*column_counts(X, y), threshold, epsilon)

    @staticmethod
    def distribution_from_counts(n0, n1, c0, c1, threshold: float,
                                 epsilon: float) -> np.ndarray:
        """:meth:`select_distribution` from the counts of :func:`column_counts`."""
        epsilon = check_epsilon(epsilon)
        logw = em_log_weights(scores_from_counts(n0, n1, c0, c1, threshold), epsilon)
        return np.exp(logw - logsumexp(logw))

    def select(self, X, y, threshold: float, epsilon: float,
               rng: np.random.Generator) -> Literal:
        """Draw one literal with ``P[h] ∝ exp(epsilon q(h) / 2)`` (one uniform from ``rng``)."""
        return self.select_from_counts(*column_counts(X, y), threshold, epsilon, rng)

    def select_from_counts(self, n0, n1, c0, c1, threshold: float, epsilon: float,
                           rng: np.random.Generator) -> Literal:
        """:meth:`select` from the counts of :func:`column_counts`: the Set Cover Learner keeps
        them up to date as it deletes examples (``O(nD)`` per fit instead of per round)."""
        epsilon = check_epsilon(epsilon)
        i = exponential_mechanism(scores_from_counts(n0, n1, c0, c1, threshold), epsilon, rng)
        return literal_of(i, len(c0))
