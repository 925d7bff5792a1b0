"""Paired comparisons over overlapping random splits: the Nadeau-Bengio corrected interval.

The splits of a repeated random-subsampling design share most of their rows, so per-split
differences are correlated and a plain t interval over splits is far too narrow. Nadeau and
Bengio (2003, "Inference for the generalization error", Machine Learning 52: 239-281) correct
the variance of the mean difference over ``k`` splits to ``(1/k + n_test/n_train) s^2``. With
several draws of a private mechanism per split (:func:`split_mechanism_interval`), the
mechanism's noise, independent across splits and draws, is separated from the split-level
variance and not inflated. Used by the real-data comparison (claims/real_breast_cancer.py).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

LEVEL = 0.95

__all__ = ["POWER", "detectable_difference", "draws_floor", "nadeau_bengio",
           "split_mechanism_interval", "variance_parts"]


def nadeau_bengio(diffs, n_train: int, n_test: int, level: float = LEVEL):
    """Mean of ``diffs`` over ``k`` overlapping random splits with the Nadeau-Bengio interval.

    Corrected resampled t-test (Nadeau & Bengio 2003): ``var = (1/k + n_test/n_train) s^2``
    with ``s^2`` the sample variance of the differences, Student t with ``k - 1`` degrees of
    freedom. Returns ``(mean, lo, hi, p_value)`` (two-sided, H0: mean difference 0).
    """
    d = np.asarray(diffs, dtype=float)
    d = d[np.isfinite(d)]
    k = d.size
    if k < 2:
        return (float(d.mean()) if k else math.nan), math.nan, math.nan, math.nan
    m = float(d.mean())
    se = math.sqrt((1.0 / k + n_test / n_train) * float(d.var(ddof=1)))
    if se == 0.0:
        return m, m, m, (1.0 if m == 0 else 0.0)
    t = stats.t(df=k - 1)
    half = float(t.ppf(0.5 + level / 2)) * se
    return m, m - half, m + half, float(2 * t.sf(abs(m) / se))


def split_mechanism_interval(diffs_by_split, n_train: int, n_test: int, level: float = LEVEL):
    """Mean difference over splits with several mechanism draws each, and its interval.

    ``diffs_by_split``: one array per split of the paired differences of its ``k`` mechanism
    draws (each draw re-runs the private learners on the same split, from a seed derived from
    the learner seed and the draw index). Variance decomposition: ``s_w^2`` the pooled
    within-split variance (the mechanisms' noise, independent across splits and draws),
    ``s_b^2`` the variance of the split means; the split-level variance ``s_b^2 - s_w^2 / k``
    gets the Nadeau-Bengio factor ``(1/J + n_test/n_train)`` (the splits overlap), the
    mechanism variance enters as ``s_w^2 / (J k)`` (not inflated). Student t with ``J - 1``
    degrees of freedom. The two are not separable with one draw per split, nor when the
    split-level estimate is not positive (``s_b^2 <= s_w^2 / k``: the split means vary no more
    than the mechanism noise alone makes them, and a split-level variance of 0 would be a guess,
    not an estimate): then the plain :func:`nadeau_bengio` on the split means, the whole of
    ``s_b^2`` corrected (conservative). Returns ``(mean, lo, hi, p_value, separated)``.
    """
    parts = [np.asarray(d, dtype=float) for d in diffs_by_split]
    parts = [d[np.isfinite(d)] for d in parts]
    parts = [d for d in parts if d.size]
    k = min((d.size for d in parts), default=0)
    if k < 2:
        m, lo, hi, p = nadeau_bengio([d.mean() for d in parts], n_train, n_test, level)
        return m, lo, hi, p, False
    parts = [d[:k] for d in parts]  # a balanced design: k draws per split
    J = len(parts)
    means = np.array([d.mean() for d in parts])
    m = float(means.mean())
    if J < 2:
        return m, math.nan, math.nan, math.nan, True
    s_w2 = float(np.mean([d.var(ddof=1) for d in parts]))
    s_b2 = float(means.var(ddof=1))
    split_var = s_b2 - s_w2 / k
    if split_var <= 0.0:  # not separable (docstring): the conservative reading
        m, lo, hi, p = nadeau_bengio(means, n_train, n_test, level)
        return m, lo, hi, p, False
    se = math.sqrt((1.0 / J + n_test / n_train) * split_var + s_w2 / (J * k))
    if se == 0.0:
        return m, m, m, (1.0 if m == 0 else 0.0), True
    t = stats.t(df=J - 1)
    half = float(t.ppf(0.5 + level / 2)) * se
    return m, m - half, m + half, float(2 * t.sf(abs(m) / se)), True


def variance_parts(diffs_by_split) -> tuple[float, float, int, int]:
    """``(s_split^2, s_w^2, J, k)`` of :func:`split_mechanism_interval`'s decomposition: the
    split-level variance ``s_b^2 - s_w^2 / k`` (NaN where it is not positive: not estimable)
    and the pooled within-split (mechanism) variance, with ``J`` splits of ``k`` draws (NaN
    parts with fewer than 2 of either)."""
    parts = [np.asarray(d, dtype=float) for d in diffs_by_split]
    parts = [d[np.isfinite(d)] for d in parts]
    parts = [d for d in parts if d.size]
    k = min((d.size for d in parts), default=0)
    J = len(parts)
    if k < 2 or J < 2:
        return math.nan, math.nan, J, k
    parts = [d[:k] for d in parts]
    means = np.array([d.mean() for d in parts])
    s_w2 = float(np.mean([d.var(ddof=1) for d in parts]))
    split_var = float(means.var(ddof=1)) - s_w2 / k
    return (split_var if split_var > 0.0 else math.nan), s_w2, J, k


POWER = 0.8  # the power at which a design's smallest detectable difference is stated


def draws_floor(split_var: float, J: int, n_train: int, n_test: int, level: float = LEVEL,
                power: float = POWER) -> float:
    """The detectable difference of the same splits with infinitely many draws: the mechanism
    part gone, only the corrected split-level variance ``(1/J + n_test/n_train) s_split^2``
    left (``J - 1`` degrees of freedom)."""
    if not np.isfinite(split_var) or J < 2:
        return math.nan
    t = stats.t(df=J - 1)
    se = math.sqrt((1.0 / J + n_test / n_train) * split_var)
    return (float(t.ppf(0.5 + level / 2)) + float(t.ppf(power))) * se


def detectable_difference(lo: float, hi: float, df: int, level: float = LEVEL,
                          power: float = POWER) -> float:
    """The smallest true difference the design detects with probability ``power`` (two-sided
    test at ``level``): ``(t_{(1+level)/2} + t_{power}) se`` with ``df`` degrees of freedom, the
    standard error read back from the interval ``[lo, hi]`` (``half = t_{(1+level)/2} se``)."""
    if not (np.isfinite(lo) and np.isfinite(hi)) or df < 1:
        return math.nan
    t = stats.t(df=df)
    q = float(t.ppf(0.5 + level / 2))
    se = (hi - lo) / 2 / q
    return (q + float(t.ppf(power))) * se
