"""The carry-save popcount of the CPU bitset kernels (``csa=True``) against the plain popcount and
an independent brute force: same per-chunk histograms of levels 2 and 3, bit for bit, for 1 to 9
words per bitset and label-0 word counts 0, all and in between; same scorer records, ranks and
learner output."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ppm import PPMHalfspaceLearner, construct_halfspaces
from ppm.core import _bitset_kernels as kernels
from ppm.core.hypothesis_class import BitsetScorer, balanced_bounds
from ppm.core.learner import make_scorer
from tests.brute_force import label_determined_instance as _instance


def _random_bitsets(rng, W, m):
    """Word-major bitsets ``(W, m)``: uniform words, plus all-zero and all-one words."""
    PQT = rng.integers(0, 1 << 63, size=(W, m), dtype=np.int64).astype(np.uint64)
    PQT |= rng.integers(0, 2, size=(W, m)).astype(np.uint64) << np.uint64(63)
    PQT[:, rng.random(m) < 0.1] = 0
    PQT[:, rng.random(m) < 0.1] = ~np.uint64(0)
    return PQT


def _wp_values(W):
    return sorted({0, 1, W // 2, W - 1, W} & set(range(W + 1)))


def _brute_score(words, wP, n0):
    """n0 - popcount(label-0 words) + popcount(label-1 words), with Python integers."""
    s = n0
    for t, x in enumerate(words):
        c = bin(int(x)).count("1")
        s += -c if t < wP else c
    return s


def _brute_hist(PQT, wP, M, n0, depth, bounds, n1):
    """Per-chunk histograms of pairs (depth 2, chunks of first rows) or triples (depth 3,
    chunks of first indices), every tuple ANDed word by word in Python."""
    W, m = PQT.shape
    hist = np.zeros((len(bounds) - 1, n1), dtype=np.int64)
    chunk_of = np.searchsorted(bounds, np.arange(m), side="right") - 1
    for tup in itertools.combinations(range(m), depth):
        words = [int(M[t]) for t in range(W)]
        for h in tup:
            words = [w & int(PQT[t, h]) for t, w in enumerate(words)]
        hist[chunk_of[tup[0]], _brute_score(words, wP, n0)] += 1
    return hist


def _kernel_hist(PQT, wP, M, n0, depth, bounds, n1, csa):
    hist = np.zeros((len(bounds) - 1, n1), dtype=np.int64)
    run = kernels.level2_hist if depth == 2 else kernels.level3_hist
    run(PQT, wP, M, bounds, n0, hist, csa)
    return hist


@pytest.mark.parametrize("W", range(1, 10))
@pytest.mark.parametrize("depth", [2, 3])
def test_csa_histograms_equal_plain_and_brute_force(W, depth):
    rng = np.random.default_rng(100 * W + depth)
    m = 23 if depth == 2 else 13
    n1 = 64 * W + 1
    for wP in _wp_values(W):
        PQT = _random_bitsets(rng, W, m)
        for M in (np.full(W, ~np.uint64(0)), _random_bitsets(rng, W, 1)[:, 0]):
            n0 = 64 * wP  # scores stay in [0, 64 W]
            last = m - 1 if depth == 2 else m - 2
            bounds = balanced_bounds(0, last, np.ones(last), 3)
            plain = _kernel_hist(PQT, wP, M, n0, depth, bounds, n1, False)
            csa = _kernel_hist(PQT, wP, M, n0, depth, bounds, n1, True)
            np.testing.assert_array_equal(csa, plain)
            np.testing.assert_array_equal(csa, _brute_hist(PQT, wP, M, n0, depth, bounds, n1))


@pytest.mark.parametrize("W,wP", [(1, 0), (2, 1), (5, 3), (6, 6), (9, 4)])
def test_csa_across_tiles_and_row_blocks(W, wP):
    """More partners than one tile (``TILE``) and rows in many blocks of ``ROWS``: the level-2
    histogram against a numpy brute force (popcount by bytes), and the call without ``csa``
    (the plain popcount) against ``csa=True``."""
    rng = np.random.default_rng(W)
    m = kernels.tile_width(W) + 3 * kernels.ROWS + 5  # more partners than one tile
    PQT = _random_bitsets(rng, W, m)
    M = np.full(W, ~np.uint64(0))
    n0, n1 = 64 * wP, 64 * W + 1
    bounds = balanced_bounds(0, m - 1, m - 1 - np.arange(m - 1), 7)
    plain = np.zeros((len(bounds) - 1, n1), dtype=np.int64)
    kernels.level2_hist(PQT, wP, M, bounds, n0, plain)  # csa left out: the plain popcount
    csa = _kernel_hist(PQT, wP, M, n0, 2, bounds, n1, True)
    np.testing.assert_array_equal(csa, plain)
    sign = np.where(np.arange(W) < wP, -1, 1)
    brute = np.zeros_like(plain)
    chunk_of = np.searchsorted(bounds, np.arange(m), side="right") - 1
    for i in range(m - 1):
        x = (PQT[:, i:i + 1] & PQT[:, i + 1:]).T.copy()  # (partners, W)
        counts = np.unpackbits(x.view(np.uint8), axis=1).reshape(-1, W, 64).sum(axis=2, dtype=np.int64)
        np.add.at(brute[chunk_of[i]], n0 + counts @ sign, 1)
    np.testing.assert_array_equal(csa, brute)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("d,n", [(2, 150), (3, 24)])
def test_bitset_scorer_with_csa_gives_the_same_records_and_ranks(seed, d, n):
    rng = np.random.default_rng(seed)
    X, y, public = _instance(seed, d, n)
    if seed == 2:
        y = rng.integers(0, 2, size=n)  # noisy labels: label-0 and label-1 words both used
    B = construct_halfspaces(X[public], n_features=d).membership(X)
    plain, csa = BitsetScorer(B, y, d, csa=False), BitsetScorer(B, y, d, csa=True)
    hist = plain.histogram()
    np.testing.assert_array_equal(csa.histogram(), hist)
    for (k1, p1, d1, h1), (k2, p2, d2, h2) in zip(plain._records, csa._records, strict=True):
        assert (k1, p1) == (k2, p2)
        for a, b in ((d1, d2), (h1, h2)):
            np.testing.assert_array_equal(a, b)
    for level in np.flatnonzero(hist)[:: max(1, np.count_nonzero(hist) // 5)]:
        for rank in {0, int(hist[level]) - 1, int(rng.integers(hist[level]))}:
            assert csa.find(int(level), rank) == plain.find(int(level), rank)


def test_the_default_follows_csa_min_words(monkeypatch):
    X, y, public = _instance(0, 2, 130)
    hs = construct_halfspaces(X[public], n_features=2)
    W = make_scorer(hs, X, y, "bitset").PQT.shape[0]
    assert make_scorer(hs, X, y, "bitset").csa == (kernels.CSA_MIN_WORDS is not None
                                                   and W >= kernels.CSA_MIN_WORDS)
    monkeypatch.setattr(kernels, "CSA_MIN_WORDS", W)
    assert make_scorer(hs, X, y, "bitset").csa
    monkeypatch.setattr(kernels, "CSA_MIN_WORDS", W + 1)
    assert not make_scorer(hs, X, y, "bitset").csa


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("d,n", [(2, 120), (3, 22)])
def test_learner_releases_the_same_hypothesis_with_either_popcount(monkeypatch, seed, d, n):
    X, y, public = _instance(seed, d, n)
    used = []  # the csa argument of every level-d kernel call

    def spy(real):
        def run(*args):
            used.append(args[-1])
            return real(*args)
        return run

    level = "level2_hist" if d == 2 else "level3_hist"
    monkeypatch.setattr(kernels, level, spy(getattr(kernels, level)))
    fits = {}
    for threshold in (None, 1):  # None: plain popcount; 1: carry-save at every word count
        monkeypatch.setattr(kernels, "CSA_MIN_WORDS", threshold)
        fits[threshold] = PPMHalfspaceLearner(epsilon=1.0, random_state=seed,
                                              method="bitset").fit(X, y, public)
    assert set(used) == {False, True}
    assert fits[None].hypothesis_ == fits[1].hypothesis_
    np.testing.assert_array_equal(fits[None].predict(X), fits[1].predict(X))
