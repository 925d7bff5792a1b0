"""Gap-grouped threshold EM (ppm.semi_supervised.threshold_em) against brute force."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.base import clone

from ppm.semi_supervised import BigGridThresholds, BigPoints, GapThresholdMechanism
from ppm.semi_supervised.threshold_em import (
    gap_threshold_em,
    group_log_probabilities,
    predict_threshold,
    threshold_groups,
    uniform_below,
)


def brute_probabilities(x, y, epsilon, b):
    """Loop over all 2T members in canonical order: {member: P}, mistakes counted directly."""
    T = 1 << b
    members = [("ge", k) for k in range(T)] + [("zeros", None)] + [("lt", k) for k in range(1, T)]
    logw = []
    for kind, k in members:
        pred = [0 if kind == "zeros" else int(xi >= k) if kind == "ge" else int(xi < k) for xi in x]
        logw.append(-epsilon * sum(p != yi for p, yi in zip(pred, y)) / 2)
    logw = np.array(logw)
    p = np.exp(logw - logw.max())
    return dict(zip(members, p / p.sum()))


def grouped_probabilities(x, y, epsilon, b):
    """Per-member probabilities of the gap-grouped mechanism: P[group] / |group|."""
    pts = BigPoints(0, np.asarray(x))
    kinds, lows, sizes, mistakes = threshold_groups(pts, np.asarray(y), 1 << b)
    logp = group_log_probabilities(sizes, mistakes, epsilon)
    out = {}
    for kind, lo, size, lp in zip(kinds, lows, sizes, logp):
        for r in range(size):
            out[(kind, None if kind == "zeros" else lo + r)] = math.exp(lp) / size
    return out


samples = st.integers(1, 4).flatmap(lambda b: st.tuples(
    st.just(b),
    st.lists(st.tuples(st.integers(0, (1 << b) - 1), st.integers(0, 1)), min_size=1, max_size=8),
    st.sampled_from([0.1, 1.0, 3.0])))


@settings(max_examples=60)
@given(samples)
def test_grouped_probabilities_equal_brute_force(case):
    b, data, eps = case
    x, y = [d[0] for d in data], [d[1] for d in data]
    brute, grouped = brute_probabilities(x, y, eps, b), grouped_probabilities(x, y, eps, b)
    assert set(brute) == set(grouped)
    for member, p in brute.items():
        assert grouped[member] == pytest.approx(p, rel=1e-9, abs=1e-300)


def test_sampled_frequencies_match_brute_force():
    b, eps = 3, 0.7
    x, y = [1, 2, 2, 5, 6], [0, 1, 0, 1, 1]
    brute = brute_probabilities(x, y, eps, b)
    members = list(brute)
    rng = np.random.default_rng(11)
    draws = 4000
    counts = dict.fromkeys(members, 0)
    for _ in range(draws):
        counts[gap_threshold_em(np.array(x), np.array(y), epsilon=eps, b=b, rng=rng)] += 1
    observed = np.array([counts[m] for m in members])
    expected = np.array([brute[m] for m in members]) * draws
    assert stats.chisquare(observed, expected).pvalue > 1e-3


@settings(max_examples=40)
@given(samples, st.integers(0, 7), st.integers(0, 15), st.integers(0, 1))
def test_privacy_audit_exact_log_ratio(case, which, new_x, new_y):
    """Replace one example: every member's probability moves by a factor <= e^eps."""
    b, data, eps = case
    x, y = [d[0] for d in data], [d[1] for d in data]
    i = which % len(x)
    x2, y2 = list(x), list(y)
    x2[i], y2[i] = new_x % (1 << b), new_y
    p, q = grouped_probabilities(x, y, eps, b), grouped_probabilities(x2, y2, eps, b)
    worst = max(abs(math.log(p[m]) - math.log(q[m])) for m in p)
    assert worst <= eps + 1e-9


def test_uniform_below_small_ranges_chi_square():
    rng = np.random.default_rng(5)
    for n in (2, 3, 7, 10):
        draws = np.array([uniform_below(n, rng) for _ in range(6000)])
        assert draws.min() >= 0 and draws.max() < n
        assert stats.chisquare(np.bincount(draws, minlength=n)).pvalue > 1e-3


def test_uniform_below_huge_ranges():
    rng = np.random.default_rng(6)
    for n in ((1 << 4096) + 12345, 1 << 4096, (1 << 63) + 1, 3 << 2000):
        draws = [uniform_below(n, rng) for _ in range(64)]
        assert all(0 <= v < n for v in draws)
        assert len(set(draws)) == len(draws)
        assert max(draws) > n // 2  # top bits are used (fails w.p. 2^-64 if correct)
        assert min(draws) < n // 2
    assert uniform_below(1, rng) == 0
    with pytest.raises(ValueError, match="got 0"):
        uniform_below(0, rng)


def test_b4096_learns_the_cut():
    pop = BigGridThresholds(b=4096, support=5)
    X, y, public = pop.sample(20000, random_state=1)
    est = GapThresholdMechanism(epsilon=1.0, b=4096, random_state=2).fit(X, y, public)
    assert est.hypothesis_ == ("ge", pop.cut_point)
    assert pop.true_error(est.predict) == (0.0, 0.0)
    assert np.array_equal(est.predict(X), y)


def test_far_gap_threshold_is_uniform_big_integer():
    """With one example the outer gaps (~2^4095 thresholds) win: output spreads over them."""
    b = 4096
    x = BigPoints(1 << (b - 1), np.zeros(1, dtype=np.int64))
    outs = {gap_threshold_em(x, np.array([1]), epsilon=1.0, b=b, rng=r)[1]
            for r in range(20)}
    assert len(outs) == 20 and all(0 <= k < (1 << b) for k in outs)


def test_predict_threshold_on_plain_ints():
    X = np.array([0, 3, 5], dtype=object)
    assert predict_threshold(("ge", 3), X).tolist() == [0, 1, 1]
    assert predict_threshold(("lt", 3), X).tolist() == [1, 0, 0]
    assert predict_threshold(("zeros", None), X).tolist() == [0, 0, 0]


@pytest.mark.parametrize("kwargs, X, y, match", [
    ({"epsilon": 0.0}, [1], [1], "epsilon"),
    ({"b": 0}, [1], [1], "'b' parameter"),
    ({"b": 3}, [8], [1], "contains 8"),
    ({"b": 3}, [-1], [1], "contains -1"),
    ({"b": 3}, np.array([0.5]), [1], "0.5"),
    ({"b": 3}, [1], [2], r"single class \[2\]"),
    ({"b": 3}, np.empty(0, dtype=np.int64), [], "at least one"),
])
def test_bad_input_rejected(kwargs, X, y, match):
    with pytest.raises(ValueError, match=match):
        GapThresholdMechanism(**kwargs).fit(np.asarray(X), np.asarray(y))


def test_clone_and_determinism():
    est = GapThresholdMechanism(epsilon=0.5, b=100, random_state=9)
    assert clone(est).get_params() == est.get_params()
    pop = BigGridThresholds(b=100, support=3)
    X, y, _ = pop.sample(50, random_state=0)
    h1 = clone(est).fit(X, y).hypothesis_
    h2 = clone(est).fit(X, y).hypothesis_
    assert h1 == h2
    assert len({GapThresholdMechanism(epsilon=0.5, b=100, random_state=s).fit(X, y).hypothesis_
                for s in range(10)}) > 1
