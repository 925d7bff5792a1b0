"""The one exponential-mechanism draw (:mod:`ppm.mechanisms`): its law, its randomness, its input.

The law is tested exactly by a chi-square goodness of fit of many draws against the softmax of
the log-weights (McSherry-Talwar: ``P[i] ∝ exp(epsilon q_i / 2)``), with a control that must be
rejected: draws made at ``epsilon / 2`` tested against the softmax at ``epsilon``.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import softmax
from scipy.stats import chisquare

from ppm.mechanisms import (draw_index, exponential_mechanism, laplace_noise,
                            level_log_probabilities, sample_level_and_rank)

SCORES = np.array([0.0, -1.0, -2.0, -3.0, -5.0, -8.0, -np.inf])  # the last: weight 0
EPSILON = 1.0
N_DRAWS = 4000


def _counts(epsilon: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    draws = [exponential_mechanism(SCORES, epsilon, rng) for _ in range(N_DRAWS)]
    return np.bincount(draws, minlength=SCORES.size)


def test_draws_follow_the_softmax_and_a_wrong_temperature_is_rejected():
    expected = N_DRAWS * softmax(0.5 * EPSILON * SCORES)
    finite = np.isfinite(SCORES)
    right = _counts(EPSILON, seed=0)
    assert right[~finite].sum() == 0  # weight 0 is never drawn
    assert chisquare(right[finite], expected[finite]).pvalue > 1e-3
    wrong = _counts(EPSILON / 2, seed=1)  # the control: half the temperature's inverse
    assert chisquare(wrong[finite], expected[finite]).pvalue < 1e-6


def test_one_uniform_per_draw_and_the_edge_of_the_cdf():
    rng, twin = np.random.default_rng(5), np.random.default_rng(5)
    draw_index(np.array([0.0, -np.inf, 1.0]), rng)
    twin.random()
    assert rng.random() == twin.random()

    class Top:  # u * cdf[-1] == cdf[-1]: the guard steps back to the last positive weight
        def random(self):
            return 1.0

    assert draw_index(np.array([0.0, 1.0, -np.inf, -np.inf]), Top()) == 1
    assert draw_index(np.array([-2000.0, 0.0, -2000.0]), Top()) == 1  # underflows to 0


def test_level_and_rank_draws_the_level_by_the_same_draw():
    counts = np.array([0, 3, 0, 7, 2])
    logp = level_log_probabilities(counts, 2.0)
    assert np.isclose(np.exp(logp).sum(), 1.0) and np.isneginf(logp[[0, 2]]).all()
    rng, twin = np.random.default_rng(3), np.random.default_rng(3)
    level, rank = sample_level_and_rank(counts, 2.0, rng)
    assert level == draw_index(logp, twin) and rank == int(twin.integers(0, counts[level]))
    assert counts[level] > 0 and 0 <= rank < counts[level]


def test_exponential_mechanism_is_one_draw_of_the_log_weights():
    rng, twin = np.random.default_rng(11), np.random.default_rng(11)
    base = np.log(np.array([1.0, 4.0, 2.0, 0.5]))
    m = np.array([3.0, 0.0, 1.0, 2.0])
    for _ in range(20):
        i = exponential_mechanism(m, 1.3, rng, log_base=base, loss=True, sensitivity=2.0)
        assert i == draw_index(base - 1.3 / 4 * m, twin)


@pytest.mark.parametrize("bad", [np.array([]), np.array([[0.0]]), np.array([-np.inf]),
                                 np.array([0.0, np.nan]), np.array([0.0, np.inf])])
def test_bad_log_weights_are_refused(bad):
    with pytest.raises(ValueError, match="log_weights"):
        draw_index(bad, np.random.default_rng(0))


def test_laplace_noise_is_the_generators_laplace_and_refuses_a_bad_scale():
    a = laplace_noise(2.0, np.random.default_rng(9), size=3)
    assert np.array_equal(a, np.random.default_rng(9).laplace(0.0, 2.0, size=3))
    assert laplace_noise(2.0, np.random.default_rng(9)) == a[0]
    with pytest.raises(ValueError, match="scale must be a positive finite number, got 0"):
        laplace_noise(0, np.random.default_rng(0))
