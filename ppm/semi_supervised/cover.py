"""Cover from points + exact exponential mechanism over the cover (BNS15, Algorithm 1).

The shared core of the generic semi-supervised construction of Beimel, Nissim and Stemmer
(*Learning Privately with Labeled and Unlabeled Examples*, SODA 2015, Algorithm 1 / Theorem
3.3; docs/model.md §9.3 steps 3-4): given a finite set ``B`` of unlabelled points,

* the **cover** ``H`` keeps one concept per dichotomy of ``B`` (:func:`first_distinct_rows`:
  candidates are enumerated in a fixed canonical order, each one's 0/1 prediction row on ``B``
  is computed, and the first candidate of every distinct row is kept);
* the **exponential mechanism** picks ``h in H`` with ``P[h] ∝ exp(-epsilon m(h) / 2)``,
  ``m(h)`` = mistakes on the labelled sample (sensitivity 1), exactly, through the score
  histogram and :func:`ppm.mechanisms.sample_level_and_rank` (:func:`select_from_cover`).

Two learners use it: :class:`ppm.baselines.semi_private.SemiPrivateHalfspaceLearner` (``B`` = the raw
public points, halfspaces in ``R^d``) and :class:`ppm.semi_supervised.GenericLearner` (``B`` =
the distinct points of a sanitized unlabelled sample, thresholds on a grid).
:func:`threshold_cover` is the cover for grid thresholds.

Privacy: the cover is a function of ``B`` alone (never of a label), so once ``B`` is released
(public points, or a sanitizer's output) the cover costs nothing; the labelled sample enters
only through the scores, so :func:`select_from_cover` is ``epsilon``-DP w.r.t. the labelled
examples (McSherry-Talwar).
"""

from __future__ import annotations

import numpy as np

from ppm.mechanisms import sample_level_and_rank


def first_distinct_rows(packed: np.ndarray) -> np.ndarray:
    """Indices (sorted) of the first occurrence of every distinct row of a 2-D uint8 array.

    ``packed[c]`` is candidate ``c``'s prediction row on ``B`` (``np.packbits`` of its 0/1
    predictions): the result is the cover, one candidate per dichotomy, in candidate order.
    """
    packed = np.ascontiguousarray(packed, dtype=np.uint8)
    if packed.ndim != 2 or packed.shape[0] == 0:
        raise ValueError(f"packed must be a non-empty 2-D array, got shape {packed.shape}")
    n_bytes = packed.shape[1]
    # One opaque bytes value per row; np.unique's return_index gives first occurrences.
    rows = packed.view(np.dtype((np.void, n_bytes))).ravel()
    _, first = np.unique(rows, return_index=True)
    return np.sort(first).astype(np.intp)


def select_from_cover(scores, epsilon: float, rng: np.random.Generator, n_labelled: int):
    """Exact exponential mechanism over the cover: ``P[j] ∝ exp(-epsilon scores[j] / 2)``.

    ``scores[j]`` = mistakes of cover member ``j`` on the labelled sample of size
    ``n_labelled`` (so ``0 <= scores <= n_labelled``). Returns ``(j, level, counts)``: the
    position in the cover of the output, its score and the score histogram. Two draws from
    ``rng`` (level, then a uniform rank among the members of that level, in cover order).
    """
    scores = np.asarray(scores, dtype=np.int64)
    counts = np.bincount(scores, minlength=int(n_labelled) + 1)
    level, rank = sample_level_and_rank(counts, epsilon, rng)
    return int(np.flatnonzero(scores == level)[rank]), int(level), counts


# --- thresholds on a grid ---------------------------------------------------------------------
# Class: the 2T grid thresholds of ppm.baselines.fully_private (both orientations), rules ("ge", k):
# 1 iff x >= g_k, ("zeros", None), ("lt", k): 1 iff x < g_k. On B (sorted distinct grid indices
# b_1 < ... < b_r) every dichotomy of this class is realised by a cut at a point of B:
# candidates in canonical order ("ge", b_1..b_r), ("zeros"), ("lt", b_1..b_r); the cut sits at
# the point itself, i.e. at the upper end of its gap (b_{i-1}, b_i] [P: the paper allows any
# concept of the dichotomy; this is the closed-at-the-point choice of ConstrHalf].


def threshold_candidates(points: np.ndarray):
    """Candidate rules ``[("ge", k)..., ("zeros", None), ("lt", k)...]`` for sorted grid indices."""
    pts = [int(k) for k in np.unique(np.asarray(points, dtype=np.int64))]
    return [("ge", k) for k in pts] + [("zeros", None)] + [("lt", k) for k in pts]


def threshold_predict(rule, k_idx: np.ndarray) -> np.ndarray:
    """0/1 (bool) predictions of a threshold rule on grid indices ``k_idx``."""
    kind, k = rule
    k_idx = np.asarray(k_idx, dtype=np.int64)
    if kind == "zeros":
        return np.zeros(k_idx.shape, dtype=bool)
    if kind == "ge":
        return k_idx >= k
    if kind == "lt":
        return k_idx < k
    raise ValueError(f"unknown threshold rule kind {kind!r}")


def threshold_cover(points: np.ndarray) -> list:
    """One grid threshold per dichotomy of the points ``B`` (grid indices), canonical order.

    With ``r`` distinct points the class realises exactly ``2r`` dichotomies (``r + 1`` cuts of
    one orientation, ``r + 1`` of the other, all-ones and all-zeros counted once); with ``B``
    empty the cover is the constant 0 and ``("ge", 0)`` (constant 1 on the grid).
    """
    pts = np.unique(np.asarray(points, dtype=np.int64))
    if pts.size == 0:
        return [("ge", 0), ("zeros", None)]
    cands = threshold_candidates(pts)
    packed = np.packbits(np.stack([threshold_predict(c, pts) for c in cands]), axis=1)
    return [cands[i] for i in first_distinct_rows(packed)]


def threshold_scores(cover: list, k_idx: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Mistakes of every cover rule on the labelled sample (grid indices ``k_idx``, labels ``y``).

    ``O((n + |H|) log n)``: with ``c(k) = #{i : k_i < k}`` split by label,
    ``m(ge_k) = #{y=1, k_i < k} + #{y=0, k_i >= k}``, ``m(lt_k) = n - m(ge_k)``,
    ``m(zeros) = n_1``.
    """
    k_idx = np.asarray(k_idx, dtype=np.int64)
    y = np.asarray(y).astype(bool)
    n, n1 = y.size, int(y.sum())
    pos = np.sort(k_idx[y])
    neg = np.sort(k_idx[~y])
    kinds = np.array([kind for kind, _ in cover])
    ks = np.array([0 if k is None else k for _, k in cover], dtype=np.int64)
    ge = np.searchsorted(pos, ks, side="left") + (neg.size - np.searchsorted(neg, ks, side="left"))
    out = np.where(kinds == "ge", ge, n - ge)
    out[kinds == "zeros"] = n1
    return out.astype(np.int64)
