"""The library's noise: the exponential mechanism's draw and the Laplace mechanism, one home.

Every private learner of ``ppm`` draws through this module, so the sampler is written (and
tested) once:

* :func:`em_temperature` is the exponential mechanism's temperature (McSherry and Talwar, FOCS
  2007): ``epsilon / (2 sensitivity)``, computed as ``0.5 * epsilon / sensitivity`` (bit for
  bit ``0.5 * epsilon`` at sensitivity 1). It is the only place of the library where the
  factor ``1/2`` of the mechanism is written: every selection (the log-weights below, and the
  numba and CUDA kernels of the triangle selection, which receive the temperature as an
  argument) takes its temperature from here.
* :func:`em_log_weights` is the mechanism's unnormalised log-weights: ``log_base + t q`` for
  a utility ``q``, or ``log_base - t m`` for a loss ``m`` (``t`` the temperature; ``log_base``
  an optional log base measure: a count, an area, a size, for draws grouped by score level).
  BMN20's Algorithm 2 (Lemma 4.6) samples ``P[g] ∝ exp(-epsilon m(g) / 2)``; KMMS19's Set
  Cover Learner (step 1e, Proposition 2.5), Select Halfplane (Lemma 4.6) and the triangle
  selection of section 5, and BNS15's generic learner, threshold mechanism and LabelBoost, all
  reduce to one such draw per choice. :func:`exponential_mechanism` is the log-weights and the
  draw in one call.
* :func:`draw_index` is the draw over a finite list of outcomes: log-weights in, index out,
  ``P[i] = exp(w_i) / sum_j exp(w_j)`` exactly up to float64 rounding of the normalised
  weights. One uniform from the Generator, one inverse-CDF lookup (``searchsorted``), one
  rounding guard.
* :func:`sample_level_and_rank` is BMN20's factorised mechanism over a score histogram
  (docs/model.md §3): a level ``m*`` drawn by :func:`draw_index` with log-weight
  ``ln count[m*] - epsilon m* / 2``, then a uniform rank in ``[0, count[m*])``; every
  hypothesis ``g`` is output with probability exactly ``exp(-epsilon m(g)/2) / sum_g'
  exp(-epsilon m(g')/2)``: no approximation, no pruning.
* :func:`uniform_below` is an exactly uniform rank for any Python int (groups of ``2^b``
  thresholds, BNS15's base learner).
* :func:`laplace_noise` is the Laplace mechanism (Dwork-McSherry-Nissim-Smith 2006): the noisy
  count of KMMS19's step 1c and the dyadic-tree counts of BNS15's sanitizer substitute.

Exactness of the draw. The weights are normalised by log-sum-exp (``scipy.special.logsumexp``
subtracts the maximum before exponentiating, so no weight overflows), their cumulative sum is
the CDF, and ``u * cdf[-1]`` for one uniform ``u`` in ``[0, 1)`` is located by
``searchsorted(side="right")``: outcome ``i`` is drawn iff ``cdf[i-1] <= u cdf[-1] < cdf[i]``,
so an outcome of weight 0 (``-inf`` log-weight, or one that underflows) is never drawn, except
when ``u cdf[-1]`` rounds up to ``cdf[-1]`` itself; the guard then steps back from the end to
the last outcome of positive weight.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
from scipy.special import logsumexp

from ppm.validation import check_epsilon


def em_temperature(epsilon: float, sensitivity: float = 1) -> float:
    """The exponential mechanism's temperature ``epsilon / (2 sensitivity)`` (McSherry-Talwar;
    BMN20 Lemma 4.6): ``P[outcome] ∝ exp(temperature * utility)`` is ``epsilon``-DP when the
    utility has sensitivity ``sensitivity``. Computed as ``0.5 * epsilon / sensitivity``."""
    epsilon = check_epsilon(epsilon)
    if isinstance(sensitivity, bool) or not isinstance(sensitivity, Real) \
            or not math.isfinite(sensitivity) or sensitivity <= 0:
        raise ValueError(f"sensitivity must be a positive finite number, got {sensitivity!r}")
    return 0.5 * epsilon / sensitivity


def em_log_weights(scores, epsilon: float, *, sensitivity: float = 1, log_base=None,
                   loss: bool = False) -> np.ndarray:
    """Unnormalised log-weights of the exponential mechanism over ``scores`` (float64).

    ``t = em_temperature(epsilon, sensitivity)``; a utility (``loss=False``, larger is better)
    gives ``t * q``, a loss (``loss=True``: mistakes) gives ``-t * m``; with ``log_base`` (the
    log of a base measure per outcome, ``-inf`` for measure 0) the weights are ``log_base + t
    * q`` or ``log_base - t * m``, in that order of operations.
    """
    t = em_temperature(epsilon, sensitivity)
    scores = np.asarray(scores, dtype=float)
    if log_base is None:
        return -t * scores if loss else t * scores
    log_base = np.asarray(log_base, dtype=float)
    if log_base.shape != scores.shape:
        raise ValueError(f"log_base has shape {log_base.shape}, scores {scores.shape}")
    return log_base - t * scores if loss else log_base + t * scores


def exponential_mechanism(scores, epsilon: float, rng: np.random.Generator, *,
                          sensitivity: float = 1, log_base=None, loss: bool = False) -> int:
    """One draw of the exponential mechanism: :func:`draw_index` of :func:`em_log_weights`
    (one uniform from ``rng``)."""
    return draw_index(em_log_weights(scores, epsilon, sensitivity=sensitivity,
                                     log_base=log_base, loss=loss), rng)


def draw_index(log_weights, rng: np.random.Generator) -> int:
    """The exponential mechanism's draw: index ``i`` with probability ``∝ exp(log_weights[i])``.

    ``log_weights``: a non-empty 1-D float array, ``-inf`` allowed (weight 0), at least one
    finite. Consumes exactly one ``rng.random()``. See the module docstring for the guard.
    """
    log_weights = np.asarray(log_weights, dtype=float)
    if log_weights.ndim != 1 or log_weights.size == 0:
        raise ValueError(f"log_weights must be a non-empty 1-D array, got shape "
                         f"{log_weights.shape}")
    if np.isnan(log_weights).any() or not (log_weights < np.inf).all() \
            or not np.isfinite(log_weights).any():
        raise ValueError(f"log_weights must be finite or -inf with at least one finite entry, "
                         f"got {log_weights}")
    p = np.exp(log_weights - logsumexp(log_weights))
    cdf = np.cumsum(p)
    i = min(int(np.searchsorted(cdf, rng.random() * cdf[-1], side="right")), p.size - 1)
    while p[i] <= 0.0:  # rounding guard: u * cdf[-1] rounded up to cdf[-1] (module docstring)
        i -= 1
    return i


def level_log_weights(counts, epsilon: float) -> np.ndarray:
    """``ln count[m] - epsilon m / 2`` per level ``m`` of the score histogram (``-inf`` where
    empty): the unnormalised log-weights of BMN20's level draw (:func:`em_log_weights` of the
    loss ``m`` over the base measure ``count[m]``)."""
    epsilon = check_epsilon(epsilon)
    counts = np.asarray(counts)
    if counts.ndim != 1 or counts.size == 0 or np.any(counts < 0) or counts.sum() == 0:
        raise ValueError("counts must be a non-empty 1-D histogram of non-negative counts")
    levels = np.arange(counts.size, dtype=float)
    with np.errstate(divide="ignore"):
        log_counts = np.log(counts.astype(float))
    return em_log_weights(levels, epsilon, log_base=log_counts, loss=True)


def level_log_probabilities(counts, epsilon: float) -> np.ndarray:
    """``log P[level = m]`` for the score histogram ``counts`` (``-inf`` where empty)."""
    logw = level_log_weights(counts, epsilon)
    return logw - logsumexp(logw)


def sample_level_and_rank(counts, epsilon: float, rng: np.random.Generator):
    """Draw ``(level, rank)`` for BMN20's exact exponential mechanism over a score histogram:
    the level by :func:`draw_index`, then a uniform rank within it (two draws from ``rng``)."""
    level = draw_index(level_log_weights(counts, epsilon), rng)
    rank = int(rng.integers(0, int(counts[level])))
    return level, rank


def uniform_below(n: int, rng: np.random.Generator) -> int:
    """An exactly uniform integer in ``[0, n)`` for any Python int ``n >= 1``.

    Draws ``ceil(bits / 63)`` limbs of 63 uniform bits, keeps the low ``bits = (n-1).bit_length()``
    bits and rejects values ``>= n`` (acceptance ``> 1/2``): every value of ``[0, n)`` has
    probability exactly ``1/n`` given the Generator's uniform limbs.
    """
    if isinstance(n, bool) or not isinstance(n, Integral) or n < 1:
        raise ValueError(f"n must be an integer >= 1, got {n!r}")
    n = int(n)
    if n == 1:
        return 0
    bits = (n - 1).bit_length()
    n_limbs = -(-bits // 63)
    mask = (1 << bits) - 1
    while True:
        limbs = rng.integers(0, 1 << 63, size=n_limbs, dtype=np.int64)
        value = 0
        for limb in limbs:
            value = (value << 63) | int(limb)
        value &= mask
        if value < n:
            return value


def laplace_noise(scale: float, rng: np.random.Generator, size=None):
    """``Lap(scale)`` noise (the Laplace mechanism: a count of L1 sensitivity ``s`` plus
    ``Lap(s / epsilon)`` is epsilon-DP): ``rng.laplace(0, scale, size)``, one float when
    ``size`` is None."""
    if not np.isfinite(scale) or scale <= 0:
        raise ValueError(f"scale must be a positive finite number, got {scale!r}")
    return rng.laplace(0.0, scale, size=size)
