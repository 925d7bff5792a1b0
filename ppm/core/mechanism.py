"""The exponential mechanism over a score histogram (McSherry-Talwar; paper Lemma 4.6).

Algorithm 2 samples ``g`` from ``G`` with ``P[g] ∝ exp(-epsilon * m(g) / 2)``, ``m(g)`` the
number of misclassified examples (sensitivity 1 when one private example is replaced). Because
``m`` takes only ``n + 1`` values, the exact mechanism factorises (docs/model.md §3):

1. draw the level ``m*`` with probability ``∝ count[m*] * exp(-epsilon * m* / 2)``
   (log-sum-exp in float64), then
2. draw a rank uniformly in ``[0, count[m*])`` and take that hypothesis of level ``m*``.

Every hypothesis ``g`` is then output with probability exactly
``exp(-epsilon m(g)/2) / sum_g' exp(-epsilon m(g')/2)``: no approximation, no pruning.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from ppm.validation import check_epsilon


def level_log_probabilities(counts: np.ndarray, epsilon: float) -> np.ndarray:
    """``log P[level = m]`` for the score histogram ``counts`` (``-inf`` where empty)."""
    epsilon = check_epsilon(epsilon)
    counts = np.asarray(counts)
    if counts.ndim != 1 or counts.size == 0 or np.any(counts < 0) or counts.sum() == 0:
        raise ValueError("counts must be a non-empty 1-D histogram of non-negative counts")
    levels = np.arange(counts.size, dtype=float)
    with np.errstate(divide="ignore"):
        logw = np.log(counts.astype(float)) - 0.5 * epsilon * levels
    return logw - logsumexp(logw)


def sample_level_and_rank(counts: np.ndarray, epsilon: float, rng: np.random.Generator):
    """Draw ``(level, rank)`` for the exact exponential mechanism (two draws from ``rng``)."""
    logp = level_log_probabilities(counts, epsilon)
    cdf = np.cumsum(np.exp(logp))
    level = int(np.searchsorted(cdf, rng.random() * cdf[-1], side="right"))
    level = min(level, counts.size - 1)
    while counts[level] == 0:  # guard against a zero-width step from rounding at the edge
        level -= 1
    rank = int(rng.integers(0, int(counts[level])))
    return level, rank
