"""GenericLearner (BNS15, Algorithm 1): sanitizer privacy, cover, mechanism, budget, API."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.stats import laplace
from sklearn.base import clone

import ppm.semi_supervised.generic as generic_mod
from ppm.populations import GridThresholds
from ppm.semi_supervised import GenericLearner
from ppm.semi_supervised.cover import (
    select_from_cover,
    threshold_cover,
    threshold_predict,
    threshold_scores,
)
from ppm.semi_supervised.sanitizer import (
    node_counts,
    noise_scale,
    prefix_counts,
    sanitize_thresholds,
    sanitized_size,
    tree_depth,
)


def _brute_node_counts(points, L):
    """Counts of [j 2^(L-l), (j+1) 2^(L-l)) by direct loops."""
    out = []
    for level in range(L + 1):
        size = 2 ** (L - level)
        out.append(np.array([sum(j * size <= p < (j + 1) * size for p in points)
                             for j in range(2 ** level)], dtype=float))
    return out


def test_node_counts_match_brute_force():
    rng = np.random.default_rng(0)
    pts = rng.integers(0, 16, size=25)
    for a, b in zip(node_counts(pts, 4), _brute_node_counts(pts, 4)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("epsilon", [0.3, 1.0])
def test_sanitizer_node_release_is_epsilon_dp_exactly(epsilon):
    """Exact audit: the released node vector is Laplace around the true counts, so the log
    density ratio on neighbours is sum_v (|z_v - c'_v| - |z_v - c_v|) / scale, at most
    ||c - c'||_1 / scale; check its supremum <= epsilon over every replace-one neighbour of
    every 3-point sample on the grid {0..7}, and at random released vectors."""
    L = tree_depth(8)
    scale = noise_scale(L, epsilon)
    rng = np.random.default_rng(1)
    worst = 0.0
    for data in itertools.combinations_with_replacement(range(8), 3):
        c = np.concatenate(_brute_node_counts(data, L))
        for i, new in itertools.product(range(3), range(8)):
            other = list(data)
            other[i] = new
            c2 = np.concatenate(_brute_node_counts(other, L))
            sup = np.abs(c - c2).sum() / scale
            worst = max(worst, sup)
            z = c + rng.laplace(0, scale, size=c.size)
            ratio = laplace.logpdf(z, c, scale).sum() - laplace.logpdf(z, c2, scale).sum()
            assert ratio <= epsilon + 1e-9
    assert worst <= epsilon + 1e-12
    assert worst >= 0.5 * epsilon  # the bound is nearly tight (root shared: 2L of 2(L+1))


def test_prefix_counts_are_dyadic_sums():
    rng = np.random.default_rng(2)
    L = 4
    nodes = [rng.normal(size=2 ** level) for level in range(L + 1)]
    P = prefix_counts(nodes, L)
    for k in range(2 ** L + 1):
        total, start = 0.0, 0
        for level in range(L + 1):  # greedy dyadic decomposition of [0, k)
            size = 2 ** (L - level)
            if start + size <= k:
                total += nodes[level][start // size]
                start += size
        assert P[k] == pytest.approx(total)


def test_sanitizer_without_noise_returns_the_empirical_quantiles():
    rng = np.random.default_rng(3)
    pts = rng.integers(0, 64, size=200)
    out = sanitize_thresholds(pts, 64, 1e9, 0.1, rng)  # noise ~1e-8: negligible
    s = sanitized_size(0.1)
    assert s == math.ceil(2 * math.log(10) / 0.01) == len(out)
    srt = np.sort(pts)
    for j, q in enumerate(out, start=1):  # q_j = min{k : #{x <= k} >= (j - 1/2) n / s}
        target = (j - 0.5) * pts.size / s
        assert np.sum(srt <= q) >= target and np.sum(srt <= q - 1) < target


def _all_grid_thresholds(T):
    return [("ge", k) for k in range(T)] + [("zeros", None)] + [("lt", k) for k in range(1, T)]


@pytest.mark.parametrize("seed", range(6))
def test_cover_has_one_concept_per_dichotomy(seed):
    rng = np.random.default_rng(seed)
    T = 16
    B = rng.integers(0, T, size=rng.integers(1, 7))
    pts = np.unique(B)
    brute = {tuple(threshold_predict(r, pts)) for r in _all_grid_thresholds(T)}
    cover = threshold_cover(B)
    rows = [tuple(threshold_predict(r, pts)) for r in cover]
    assert len(set(rows)) == len(rows) == len(brute) == 2 * pts.size
    assert set(rows) == brute


@pytest.mark.parametrize("seed", range(4))
def test_threshold_scores_match_brute_force(seed):
    rng = np.random.default_rng(seed)
    cover = _all_grid_thresholds(12)
    k = rng.integers(0, 12, size=30)
    y = rng.integers(0, 2, size=30)
    brute = [int(np.sum(threshold_predict(r, k) != y.astype(bool))) for r in cover]
    np.testing.assert_array_equal(threshold_scores(cover, k, y), brute)


def test_select_from_cover_samples_the_exponential_mechanism():
    scores = np.array([0, 3, 1, 1, 5, 0, 2])
    eps = 0.8
    p = np.exp(-eps * scores / 2)
    p /= p.sum()  # brute-force formula
    rng = np.random.default_rng(4)
    draws = np.array([select_from_cover(scores, eps, rng, 5)[0] for _ in range(4000)])
    freq = np.bincount(draws, minlength=scores.size) / draws.size
    assert np.max(np.abs(freq - p)) < 0.03


def test_mechanism_log_ratio_on_neighbours_conditioned_on_the_sanitizer():
    """Given D~ (so the cover is fixed), the EM's output distribution on neighbouring labelled
    samples, computed exactly from the learner's own scores, has log-ratio <= its share."""
    rng = np.random.default_rng(5)
    cover = threshold_cover(rng.integers(0, 16, size=6))
    k = rng.integers(0, 16, size=8)
    y = rng.integers(0, 2, size=8)
    eps = 0.7
    worst = 0.0
    base = threshold_scores(cover, k, y)
    for i, new_k, new_y in itertools.product(range(8), range(16), range(2)):
        k2, y2 = k.copy(), y.copy()
        k2[i], y2[i] = new_k, new_y
        other = threshold_scores(cover, k2, y2)
        lp = -eps * base / 2 - np.logaddexp.reduce(-eps * base / 2)
        lq = -eps * other / 2 - np.logaddexp.reduce(-eps * other / 2)
        worst = max(worst, np.max(np.abs(lp - lq)))
    assert worst <= eps + 1e-12


@pytest.mark.parametrize("split, expected", [(None, (1.2, 1.2)), (0.25, (0.3, 0.9))])
def test_budget_is_the_sum_of_the_parts(monkeypatch, split, expected):
    """Record the epsilon the sanitizer and the mechanism are actually called with."""
    seen = {}
    real_san, real_sel = generic_mod.sanitize_thresholds, generic_mod.select_from_cover

    def san(k, T, eps, a0, rng):
        seen["san"] = eps
        return real_san(k, T, eps, a0, rng)

    def sel(scores, eps, rng, n):
        seen["em"] = eps
        return real_sel(scores, eps, rng, n)

    monkeypatch.setattr(generic_mod, "sanitize_thresholds", san)
    monkeypatch.setattr(generic_mod, "select_from_cover", sel)
    pop = GridThresholds(T=64, support=4)
    X, y, p = pop.sample(30, random_state=0)
    Xu = pop.sample(100, random_state=1)[0]
    GenericLearner(epsilon=1.2, T=64, epsilon_split=split, random_state=0).fit(
        X, y, p, X_unlabelled=Xu)
    assert (seen["san"], seen["em"]) == pytest.approx(expected)
    if split is not None:  # sequential composition: the parts add up to epsilon
        assert seen["san"] + seen["em"] == pytest.approx(1.2)


def test_learns_the_grid_threshold_and_is_deterministic():
    pop = GridThresholds(T=2 ** 20, support=4)
    X, y, p = pop.sample(256, random_state=0)
    Xu = pop.sample(8192, random_state=1)[0]
    a = GenericLearner(epsilon=1.0, T=2 ** 20, random_state=7).fit(X, y, p, X_unlabelled=Xu)
    b = GenericLearner(epsilon=1.0, T=2 ** 20, random_state=7).fit(X, y, p, X_unlabelled=Xu)
    assert a.rule_ == b.rule_ and np.array_equal(a.sanitized_, b.sanitized_)
    assert pop.true_error(a.predict)[0] == 0.0
    assert a.n_hypotheses_ <= 2 * sanitized_size(0.1)
    assert a.n_label_queries_ == 256 and a.n_unlabelled_ == 8192


def test_public_points_are_the_unlabelled_sample_without_X_unlabelled():
    pop = GridThresholds(T=256, support=4)
    X, y, p = pop.sample(200, random_state=0)
    est = GenericLearner(epsilon=1.0, T=256, random_state=0).fit(X, y, p)
    assert est.n_unlabelled_ == int(p.sum()) and est.n_label_queries_ == int((~p).sum())
    with pytest.raises(ValueError, match="X_unlabelled is required"):
        GenericLearner(T=256).fit(X, y)


def test_clone_round_trip():
    est = GenericLearner(epsilon=0.5, T=128, alpha0=0.2, epsilon_split=0.3, random_state=3)
    c = clone(est)
    assert c.get_params() == est.get_params()
    with pytest.raises(TypeError):
        GenericLearner(0.5)  # keyword-only


@pytest.mark.parametrize("kwargs, word", [
    ({"epsilon": 0}, "epsilon"), ({"epsilon": float("nan")}, "epsilon"),
    ({"T": 1}, "T"), ({"T": 2 ** 30}, "1073741824"), ({"alpha0": 1.5}, "alpha0"),
    ({"beta0": 0}, "beta0"), ({"epsilon_split": 1.0}, "epsilon_split"),
])
def test_bad_parameters_are_rejected_naming_the_value(kwargs, word):
    pop = GridThresholds(T=64)
    X, y, p = pop.sample(20, random_state=0)
    with pytest.raises(ValueError, match=word):
        GenericLearner(**{"T": 64, **kwargs}).fit(X, y, p, X_unlabelled=X)


def test_bad_data_is_rejected():
    X = np.array([[0.1], [0.9]])
    y = np.array([0, 1])
    with pytest.raises(ValueError, match="NaN"):
        GenericLearner(T=64).fit(X, y, X_unlabelled=np.array([[np.nan]]))
    with pytest.raises(ValueError, match="empty"):
        GenericLearner(T=64).fit(X, y, X_unlabelled=np.empty((0, 1)))
    with pytest.raises(ValueError, match="one feature"):
        GenericLearner(T=64).fit(np.zeros((2, 2)), y, X_unlabelled=X)
