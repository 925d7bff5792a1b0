"""The v2 CPU bitset kernels (:mod:`ppm.core._bitset_kernels`: sign-constant passes,
int32 scores and sub-histograms flushed into int64, L1-sized partner tiles) against the kernels
they replaced (:mod:`ppm.core._bitset_kernels_v1`, kept unchanged) and an independent brute force:
the same per-chunk histograms bit for bit on random bitsets (1 to 9 words, every label-0 split,
both popcounts, lowered flush limits), the same scorer records and ranks, the same released
hypothesis."""

from __future__ import annotations

import numpy as np
import pytest

from ppm import PPMHalfspaceLearner, construct_halfspaces
from ppm.core import _bitset_kernels as kernels
from ppm.core import _bitset_kernels_v1 as v1
from ppm.core.hypothesis_class import BitsetScorer, balanced_bounds
from tests.brute_force import label_determined_instance as _instance
from tests.test_bitset_csa import _brute_hist, _random_bitsets, _wp_values


def _hist(module, PQT, wP, M, n0, depth, bounds, n1, csa, *limit):
    hist = np.zeros((len(bounds) - 1, n1), dtype=np.int64)
    run = module.level2_hist if depth == 2 else module.level3_hist
    run(PQT, wP, M, bounds, n0, hist, csa, *limit)
    return hist


@pytest.mark.parametrize("W", range(1, 10))
@pytest.mark.parametrize("depth", [2, 3])
def test_v2_histograms_equal_v1_and_brute_force(W, depth):
    rng = np.random.default_rng(1000 + 10 * W + depth)
    m = 21 if depth == 2 else 12
    n1 = 64 * W + 1
    for wP in _wp_values(W):
        PQT = _random_bitsets(rng, W, m)
        M = _random_bitsets(rng, W, 1)[:, 0] | _random_bitsets(rng, W, 1)[:, 0]
        n0 = 64 * wP
        last = m - 1 if depth == 2 else m - 2
        bounds = balanced_bounds(0, last, np.ones(last), 3)
        brute = _brute_hist(PQT, wP, M, n0, depth, bounds, n1)
        for csa in (False, True):
            new = _hist(kernels, PQT, wP, M, n0, depth, bounds, n1, csa)
            np.testing.assert_array_equal(new, brute)
            np.testing.assert_array_equal(new, _hist(v1, PQT, wP, M, n0, depth, bounds, n1, csa))


@pytest.mark.parametrize("limit", [1, 7, 1000])
@pytest.mark.parametrize("depth", [2, 3])
def test_flushes_of_the_int32_sub_histograms_change_nothing(limit, depth):
    """A lowered flush limit makes the int32 sub-histograms flush into the int64 histogram
    after (almost) every block of rows; the counts must still equal the v1 kernel's, and the
    counts must exceed the limit (or the flush path was not exercised)."""
    rng = np.random.default_rng(limit)
    W, wP = 3, 1
    m = kernels.tile_width(W) + 40 if depth == 2 else 70
    PQT = _random_bitsets(rng, W, m)
    M = np.full(W, ~np.uint64(0))
    n0, n1 = 64 * wP, 64 * W + 1
    last = m - 1 if depth == 2 else m - 2
    bounds = balanced_bounds(0, last, np.ones(last), 2)
    new = _hist(kernels, PQT, wP, M, n0, depth, bounds, n1, False, limit)
    old = _hist(v1, PQT, wP, M, n0, depth, bounds, n1, False)
    assert old.max() > limit
    np.testing.assert_array_equal(new, old)


@pytest.mark.parametrize("W,wP", [(2, 1), (20, 7)])
def test_partners_across_several_tiles(W, wP):
    """More partners than three tiles of :func:`tile_width` and rows in many blocks of
    ``ROWS``, under a random mask: levels 2 and 3 against the v1 kernels (512-partner tiles)."""
    rng = np.random.default_rng(W)
    m = 3 * kernels.tile_width(W) + 2 * kernels.ROWS + 3
    PQT = _random_bitsets(rng, W, m)
    M = _random_bitsets(rng, W, 1)[:, 0] | _random_bitsets(rng, W, 1)[:, 0]
    n0, n1 = 64 * wP, 64 * W + 1
    bounds = balanced_bounds(0, m - 1, m - 1 - np.arange(m - 1), 5)
    new = _hist(kernels, PQT, wP, M, n0, 2, bounds, n1, False)
    np.testing.assert_array_equal(new, _hist(v1, PQT, wP, M, n0, 2, bounds, n1, False))
    assert new.sum() == m * (m - 1) // 2
    first = np.array([0, 2, 3], dtype=np.int64)  # triples with a < 3: three long first indices
    new3 = _hist(kernels, PQT, wP, M, n0, 3, first, n1, False)
    np.testing.assert_array_equal(new3, _hist(v1, PQT, wP, M, n0, 3, first, n1, False))


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("d,n", [(2, 150), (3, 24), (4, 11)])
def test_scorer_records_and_ranks_equal_v1(seed, d, n):
    rng = np.random.default_rng(seed)
    X, y, public = _instance(seed, d, n)
    if seed == 1:
        y = rng.integers(0, 2, size=n)  # noisy labels: label-0 and label-1 words both used
    B = construct_halfspaces(X[public], n_features=d).membership(X)
    old, new = BitsetScorer(B, y, d, kernel="v1"), BitsetScorer(B, y, d)
    assert new.kernel == "v2"
    hist = old.histogram()
    np.testing.assert_array_equal(new.histogram(), hist)
    for (k1, p1, d1, h1), (k2, p2, d2, h2) in zip(old._records, new._records, strict=True):
        assert (k1, p1) == (k2, p2)
        for a, b in ((d1, d2), (h1, h2)):
            np.testing.assert_array_equal(a, b)
    for level in np.flatnonzero(hist)[:: max(1, np.count_nonzero(hist) // 5)]:
        for rank in {0, int(hist[level]) - 1, int(rng.integers(hist[level]))}:
            assert new.find(int(level), rank) == old.find(int(level), rank)


@pytest.mark.parametrize("seed", range(3))
def test_learner_releases_the_v1_hypothesis(monkeypatch, seed):
    """The learner with the v2 kernels against the same fit with the v1 kernels swapped in."""
    X, y, public = _instance(seed, 3, 22)
    new = PPMHalfspaceLearner(epsilon=1.0, random_state=seed, method="bitset").fit(X, y, public)
    monkeypatch.setattr(kernels, "level2_hist", v1.level2_hist)
    monkeypatch.setattr(kernels, "level3_hist", v1.level3_hist)
    old = PPMHalfspaceLearner(epsilon=1.0, random_state=seed, method="bitset").fit(X, y, public)
    assert new.hypothesis_ == old.hypothesis_
    np.testing.assert_array_equal(new.predict(X), old.predict(X))


def test_unknown_kernel_is_rejected():
    with pytest.raises(ValueError, match="kernel"):
        BitsetScorer(np.ones((3, 5), dtype=bool), np.array([0, 1, 0, 1, 1]), 2, kernel="v3")
