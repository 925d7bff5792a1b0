"""Tests for ppm.bounds (docs/model.md §4): hand-computed values, exact search, monotonicity."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ppm.bounds import theorems
from ppm.bounds import (
    agnostic_bound,
    agnostic_sample_complexity,
    agnostic_shape,
    compression_deviation,
    em_excess,
    fit_shape_constant,
    hypothesis_class_size,
    hypothesis_class_size_from_halfspaces,
    log_hypothesis_class_size,
    nonprivate_agnostic_shape,
    nonprivate_realizable_shape,
    num_halfspaces_upper,
    realizable_bound,
    realizable_sample_complexity,
    realizable_shape,
)

# ------------------------------------------------------------------------------------------
# counting |C_pub| and |G| by hand
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "n_pub, d, expected",
    [
        (3, 1, 6),  # 2 * 3
        (3, 2, 12),  # 2 * (3 + 3)
        (4, 3, 28),  # 2 * (4 + 6 + 4)
        (1, 3, 2),  # 2 * (1 + 0 + 0)
        (0, 5, 0),
        (5, 2, 30),  # 2 * (5 + 10)
    ],
)
def test_num_halfspaces_upper_hand_values(n_pub, d, expected):
    assert num_halfspaces_upper(n_pub, d) == expected


@pytest.mark.parametrize(
    "n_pub, d, expected",
    [
        (3, 1, 7),  # |C| = 6: 1 + 6
        (3, 2, 79),  # |C| = 12: 1 + 12 + 66
        (2, 2, 22),  # |C| = 6: 1 + 6 + 15
        (1, 3, 4),  # |C| = 2: 1 + 2 + 1 (min(d, |C|) = 2 terms)
        (4, 3, 3683),  # |C| = 28: 1 + 28 + 378 + 3276
        (0, 2, 1),  # no public data: only the empty hypothesis
    ],
)
def test_hypothesis_class_size_hand_values(n_pub, d, expected):
    got = hypothesis_class_size(n_pub, d)
    assert got == expected and isinstance(got, int)


def test_hypothesis_class_size_from_halfspaces_hand_values():
    assert hypothesis_class_size_from_halfspaces(5, 2) == 1 + 5 + 10
    assert hypothesis_class_size_from_halfspaces(2, 5) == 1 + 2 + 1
    assert hypothesis_class_size_from_halfspaces(0, 3) == 1
    assert hypothesis_class_size_from_halfspaces(10, 3) == 1 + 10 + 45 + 120


def test_exact_size_is_exact_for_huge_classes():
    # 2e9-ish halfspaces, d = 3: the leading term is C(m, 3) with m = 2(n + C(n,2) + C(n,3))
    n = 1000
    m = 2 * (n + n * (n - 1) // 2 + n * (n - 1) * (n - 2) // 6)
    expected = 1 + m + m * (m - 1) // 2 + m * (m - 1) * (m - 2) // 6
    assert hypothesis_class_size(n, 3) == expected


def test_log_size_real_valued_hand_values():
    assert log_hypothesis_class_size(0, 3) == 0.0
    # n_pub = 0.5, d = 1: m = 2 * 0.5 = 1, |G| = 1 + 1
    assert log_hypothesis_class_size(0.5, 1) == pytest.approx(math.log(2.0), rel=1e-14)
    # n_pub = 1.5, d = 2: C(1.5,1) = 1.5, C(1.5,2) = 1.5*0.5/2 = 0.375, m = 3.75,
    # |G| = 1 + 3.75 + 3.75*2.75/2 = 9.90625
    assert log_hypothesis_class_size(1.5, 2) == pytest.approx(math.log(9.90625), rel=1e-14)


@settings(max_examples=60, deadline=None)
@given(n_pub=st.integers(0, 5000), d=st.integers(1, 7))
def test_log_size_matches_exact_int(n_pub, d):
    exact = hypothesis_class_size(n_pub, d)
    assert log_hypothesis_class_size(n_pub, d) == pytest.approx(math.log(exact), rel=1e-12,
                                                                abs=1e-12)


@pytest.mark.parametrize("n_pub, d", [(10**9, 10), (10**6, 4), (123456789, 1)])
def test_log_size_large_no_overflow(n_pub, d):
    got = log_hypothesis_class_size(n_pub, d)
    assert math.isfinite(got)
    assert got == pytest.approx(math.log(hypothesis_class_size(n_pub, d)), rel=1e-12)


def test_log_size_vectorised_continuous_nondecreasing():
    x = np.linspace(0.0, 12.0, 2401)
    v = log_hypothesis_class_size(x, 3)
    assert v.shape == x.shape
    assert np.all(np.diff(v) >= -1e-12)
    assert np.max(np.abs(np.diff(v))) < 0.2  # no jumps at the integers (continuous extension)
    assert math.isfinite(log_hypothesis_class_size(1e12, 10))


# ------------------------------------------------------------------------------------------
# Lemma 4.6, Lemma 4.8, Theorems 4.9 and 4.10 written out with math
# ------------------------------------------------------------------------------------------


def test_em_excess_hand_value():
    assert em_excess(math.log(79), 0.5, 0.1) == pytest.approx(4 * (math.log(79) + math.log(10)))


def test_compression_deviation_hand_value():
    k, n, b, e = 4, 1000, 0.05, 0.1
    lg = math.log(n / b)
    expected = math.sqrt(e * 4 * k * lg / n) + 8 * k * lg / n + 2 * k / n
    assert compression_deviation(e, k, n, b) == pytest.approx(expected, rel=1e-13)
    assert compression_deviation(0.0, k, n, b) == pytest.approx(8 * k * lg / n + 2 * k / n)


@pytest.mark.parametrize("w_pub, n_pub", [(1.0, 1000), (0.5, 500)])
def test_realizable_bound_against_arithmetic(w_pub, n_pub):
    n, d, eps, beta = 1000, 2, 1.0, 0.1
    k = d * d
    m = 2 * (n_pub + math.comb(n_pub, 2))
    G = 1 + m + math.comb(m, 2)
    e = 2 * (math.log(G) + math.log(2 / beta)) / (eps * n)
    lg = math.log(2 * n / beta)
    B = e + math.sqrt(e * 4 * k * lg / n) + 8 * k * lg / n + 2 * k / n
    assert realizable_bound(n, d, eps, beta, w_pub) == pytest.approx(B, rel=1e-12)


def test_agnostic_bound_against_arithmetic():
    n, d, eps, beta = 5000, 2, 0.5, 0.1
    k, D = 4, 3
    m = 2 * (n + math.comb(n, 2))
    G = 1 + m + math.comb(m, 2)
    em = 2 * (math.log(G) + math.log(4 / beta)) / (eps * n)
    lg = math.log(4 * n / beta)
    comp = math.sqrt(4 * k * lg / n) + 8 * k * lg / n + 2 * k / n  # err_hat = 1, with the sqrt
    vc = math.sqrt(8 / n * (D * math.log(2 * math.e * n / D) + math.log(16 / beta)))
    assert agnostic_bound(n, d, eps, beta) == pytest.approx(em + comp + 2 * vc, rel=1e-12)


def test_bounds_vectorised_in_n():
    ns = np.array([10, 100, 1000, 10**6])
    v = realizable_bound(ns, 2, 1.0, 0.05)
    assert v.shape == (4,)
    assert v[2] == pytest.approx(realizable_bound(1000, 2, 1.0, 0.05), rel=1e-14)
    a = agnostic_bound(ns, 2, 1.0, 0.05)
    assert a[3] == pytest.approx(agnostic_bound(10**6, 2, 1.0, 0.05), rel=1e-14)


# ------------------------------------------------------------------------------------------
# exact sample complexity = brute-force scan
# ------------------------------------------------------------------------------------------


def _scan(bound_fn, alpha, d, eps, beta, w, n_max):
    ns = np.arange(1, n_max + 1)
    ok = bound_fn(ns, d, eps, beta, w) <= alpha
    assert ok.any(), "scan range too short"
    return int(ns[np.argmax(ok)])


SETTINGS = [
    # alpha, beta, epsilon, d, w_pub
    (0.9, 0.05, 1.0, 1, 1.0),
    (0.3, 0.05, 1.0, 1, 1.0),
    (0.5, 0.9, 0.5, 2, 1.0),
    (0.6, 0.1, 5.0, 2, 0.01),
    (0.95, 0.5, 2.0, 3, 0.3),
    (0.999, 0.99, 0.05, 1, 1.0),
]


@pytest.mark.parametrize("alpha, beta, eps, d, w", SETTINGS)
def test_realizable_sample_complexity_is_brute_force_minimum(alpha, beta, eps, d, w):
    n = realizable_sample_complexity(alpha, beta, eps, d, w)
    assert isinstance(n, int)
    assert n == _scan(realizable_bound, alpha, d, eps, beta, w, 200_000)
    assert realizable_bound(n, d, eps, beta, w) <= alpha
    if n > 1:
        assert realizable_bound(n - 1, d, eps, beta, w) > alpha


@pytest.mark.parametrize("alpha, beta, eps, d, w", [s for s in SETTINGS if s[3] <= 2])
def test_agnostic_sample_complexity_is_brute_force_minimum(alpha, beta, eps, d, w):
    n = agnostic_sample_complexity(alpha, beta, eps, d, w)
    assert n == _scan(agnostic_bound, alpha, d, eps, beta, w, 200_000)
    assert agnostic_bound(n, d, eps, beta, w) <= alpha < agnostic_bound(n - 1, d, eps, beta, w)


def test_search_is_exact_for_a_non_monotone_bound():
    # bisection would return 1000; the only n below it with bound <= alpha is 37
    def bound(n):
        n = np.asarray(n, dtype=float)
        return np.where(n == 37, 0.4, np.where(n >= 1000, 0.1, 0.9))

    def lower(a, b):
        return float(np.min(bound(np.arange(a, b + 1))))

    assert theorems._smallest_n(bound, lower, 0.5) == 37
    assert theorems._smallest_n(bound, lower, 0.2) == 1000
    assert theorems._smallest_n(bound, lower, 0.95) == 1


def test_bound_is_not_monotone_at_tiny_n_but_search_stays_exact():
    # B(1) < B(2) here (ln|G|/n grows at tiny n), values far above 1
    assert realizable_bound(1, 4, 0.01, 0.99) < realizable_bound(2, 4, 0.01, 0.99)
    n = realizable_sample_complexity(0.9, 0.99, 0.01, 4)
    assert realizable_bound(n, 4, 0.01, 0.99) <= 0.9 < realizable_bound(n - 1, 4, 0.01, 0.99)


@pytest.mark.parametrize("fn,bound_fn", [(realizable_sample_complexity, realizable_bound),
                                         (agnostic_sample_complexity, agnostic_bound)])
@pytest.mark.parametrize("alpha", [0.999, 1e-4])
def test_search_exact_at_extreme_alpha(fn, bound_fn, alpha):
    """The search returns the smallest n: B(n) <= alpha < B(n - 1), and no n' < n on a log
    grid and a window below n satisfies the bound (its speed is printed by scripts/bench.py)."""
    beta, eps, d = 0.05, 1.0, 10
    n = fn(alpha, beta, eps, d)
    assert isinstance(n, int) and n >= 1
    assert bound_fn(n, d, eps, beta) <= alpha
    below = np.unique(np.concatenate([
        np.arange(max(1, n - 2000), n),
        np.geomspace(1, max(1, n - 1), 400).astype(np.int64)])).astype(float)
    below = below[below < n]
    if n > 1:
        assert bound_fn(n - 1, d, eps, beta) > alpha
        assert np.all(bound_fn(below, d, eps, beta) > alpha)


# ------------------------------------------------------------------------------------------
# monotonicity (hypothesis) and asymptotic slopes
# ------------------------------------------------------------------------------------------

alpha_st = st.floats(1e-3, 0.99)
eps_st = st.floats(1e-2, 10.0)
beta_st = st.floats(1e-3, 0.5)


@settings(max_examples=25, deadline=None)
@given(a1=alpha_st, a2=alpha_st, eps=eps_st, beta=beta_st, d=st.integers(1, 4),
       agn=st.booleans())
def test_n_theory_nonincreasing_in_alpha(a1, a2, eps, beta, d, agn):
    f = agnostic_sample_complexity if agn else realizable_sample_complexity
    lo, hi = sorted((a1, a2))
    assert f(lo, beta, eps, d) >= f(hi, beta, eps, d)


@settings(max_examples=25, deadline=None)
@given(alpha=alpha_st, e1=eps_st, e2=eps_st, beta=beta_st, d=st.integers(1, 4),
       agn=st.booleans())
def test_n_theory_nonincreasing_in_epsilon(alpha, e1, e2, beta, d, agn):
    f = agnostic_sample_complexity if agn else realizable_sample_complexity
    lo, hi = sorted((e1, e2))
    assert f(alpha, beta, lo, d) >= f(alpha, beta, hi, d)


@settings(max_examples=25, deadline=None)
@given(alpha=alpha_st, eps=eps_st, beta=beta_st, d=st.integers(1, 6), agn=st.booleans(),
       w=st.floats(0.01, 1.0))
def test_n_theory_nondecreasing_in_d_and_w_pub(alpha, eps, beta, d, agn, w):
    f = agnostic_sample_complexity if agn else realizable_sample_complexity
    assert f(alpha, beta, eps, d + 1) >= f(alpha, beta, eps, d)
    assert f(alpha, beta, eps, d, w) <= f(alpha, beta, eps, d, 1.0)


def _local_slope(f, alpha, eps, d=2, beta=0.05):
    return math.log(f(alpha, beta, eps, d) / f(2 * alpha, beta, eps, d)) / math.log(2)


def test_realizable_local_slope_approaches_one():
    s_mid, s_small = (_local_slope(realizable_sample_complexity, a, 1.0) for a in (1e-2, 1e-6))
    assert 1.0 < s_small < s_mid  # log factors push it above 1, less so for smaller alpha
    assert abs(s_small - 1.0) < 0.06


def test_agnostic_local_slope_approaches_two():
    s_mid, s_small = (_local_slope(agnostic_sample_complexity, a, 1.0) for a in (1e-2, 1e-6))
    assert s_small < s_mid
    assert abs(s_small - 2.0) < 0.08


def test_agnostic_slope_is_one_when_privacy_dominates():
    # epsilon << alpha: the 1/(epsilon alpha) term dominates max(1/alpha^2, 1/(epsilon alpha))
    assert abs(_local_slope(agnostic_sample_complexity, 0.05, 1e-5) - 1.0) < 0.15


# ------------------------------------------------------------------------------------------
# O-shapes and the fitted constant
# ------------------------------------------------------------------------------------------


def test_shape_hand_values():
    # d/(eps alpha) = 20 > e: L = ln 20
    assert realizable_shape(0.1, 0.1, 1.0, 2) == pytest.approx(
        (4 * math.log(20) + math.log(10)) / 0.1)
    # d/(eps alpha) = 1/9 < e: log factor guarded at 1
    assert realizable_shape(0.9, 0.5, 10.0, 1) == pytest.approx((1 + math.log(2)) / 9.0)
    # eps = 1 > alpha: 1/alpha^2 = 100 wins; eps = 0.01: 1/(eps alpha) = 1000 wins
    assert agnostic_shape(0.1, 0.1, 1.0, 2) == pytest.approx(
        (4 * math.log(20) + math.log(10)) * 100)
    assert agnostic_shape(0.1, 0.1, 0.01, 2) == pytest.approx(
        (4 * math.log(2000) + math.log(10)) * 1000)
    assert nonprivate_realizable_shape(0.1, 0.1, 3) == pytest.approx((3 + math.log(10)) / 0.1)
    assert nonprivate_agnostic_shape(0.1, 0.1, 3) == pytest.approx((3 + math.log(10)) / 0.01)


@pytest.mark.parametrize(
    "fn, extra",
    [(realizable_shape, (0.05, 0.5, 2)), (agnostic_shape, (0.05, 0.5, 2)),
     (nonprivate_realizable_shape, (0.05, 2)), (nonprivate_agnostic_shape, (0.05, 2))],
)
def test_shapes_vectorised(fn, extra):
    alphas = np.array([[0.01, 0.1], [0.3, 0.9]])
    v = fn(alphas, *extra)
    assert v.shape == alphas.shape
    for idx in np.ndindex(alphas.shape):
        assert v[idx] == pytest.approx(fn(float(alphas[idx]), *extra), rel=1e-14)


def test_shape_vectorised_in_epsilon():
    eps = np.array([0.01, 0.1, 1.0])
    v = realizable_shape(0.1, 0.05, eps, 2)
    assert v[0] == pytest.approx(realizable_shape(0.1, 0.05, 0.01, 2))


def test_fit_shape_constant():
    s = np.array([10.0, 100.0, 1000.0])
    assert fit_shape_constant(3.0 * s, s) == pytest.approx(3.0)
    assert fit_shape_constant([2.0, 8.0], [1.0, 1.0]) == pytest.approx(4.0)  # geometric mean
    assert fit_shape_constant([2.0, np.nan, 0.0, 8.0], [1.0, 1.0, 1.0, 1.0]) == pytest.approx(4.0)
    with pytest.raises(ValueError, match="n_hat"):
        fit_shape_constant([np.nan, -1.0], [1.0, 1.0])
    with pytest.raises(ValueError, match="same length"):
        fit_shape_constant([1.0, 2.0], [1.0])


# ------------------------------------------------------------------------------------------
# validation
# ------------------------------------------------------------------------------------------

GOOD = dict(alpha=0.1, beta=0.05, epsilon=1.0, d=2)
BAD_VALUES = [
    ("alpha", 0), ("alpha", 1), ("alpha", 1.5), ("alpha", float("nan")), ("alpha", True),
    ("beta", 0), ("beta", 1.0), ("beta", -0.1),
    ("epsilon", 0), ("epsilon", -1), ("epsilon", float("nan")), ("epsilon", float("inf")),
    ("d", 0), ("d", 1.5), ("d", -2), ("d", "2"),
]


@pytest.mark.parametrize("name, value", BAD_VALUES)
@pytest.mark.parametrize("fn", [realizable_sample_complexity, agnostic_sample_complexity])
def test_sample_complexity_validation(fn, name, value):
    kw = {**GOOD, name: value}
    with pytest.raises(ValueError, match=name):
        fn(kw["alpha"], kw["beta"], kw["epsilon"], kw["d"])


@pytest.mark.parametrize("name, value", [b for b in BAD_VALUES if b[0] != "alpha"])
@pytest.mark.parametrize("fn", [realizable_bound, agnostic_bound])
def test_bound_validation(fn, name, value):
    kw = {**GOOD, name: value}
    with pytest.raises(ValueError, match=name):
        fn(100, kw["d"], kw["epsilon"], kw["beta"])


@pytest.mark.parametrize("name, value", BAD_VALUES)
@pytest.mark.parametrize("fn", [realizable_shape, agnostic_shape])
def test_shape_validation(fn, name, value):
    kw = {**GOOD, name: value}
    with pytest.raises(ValueError, match=name):
        fn(kw["alpha"], kw["beta"], kw["epsilon"], kw["d"])


@pytest.mark.parametrize("fn", [nonprivate_realizable_shape, nonprivate_agnostic_shape])
def test_nonprivate_shape_validation(fn):
    for args, name in [((0.0, 0.1, 1), "alpha"), ((np.array([0.1, 1.0]), 0.1, 1), "alpha"),
                       ((0.1, 0.0, 1), "beta"), ((0.1, 0.1, 0), "d"), ((0.1, 0.1, 1.5), "d")]:
        with pytest.raises(ValueError, match=name):
            fn(*args)


@pytest.mark.parametrize("w", [0.0, -0.5, 1.01, float("nan"), "1"])
def test_w_pub_validation(w):
    for fn in (realizable_bound, agnostic_bound):
        with pytest.raises(ValueError, match="w_pub"):
            fn(100, 2, 1.0, 0.05, w)
    for fn in (realizable_sample_complexity, agnostic_sample_complexity):
        with pytest.raises(ValueError, match="w_pub"):
            fn(0.1, 0.05, 1.0, 2, w)


def test_other_validation():
    with pytest.raises(ValueError, match="n_pub"):
        num_halfspaces_upper(-1, 2)
    with pytest.raises(ValueError, match="n_pub"):
        hypothesis_class_size(2.5, 2)
    with pytest.raises(ValueError, match="d"):
        hypothesis_class_size(3, 0)
    with pytest.raises(ValueError, match="m"):
        hypothesis_class_size_from_halfspaces(-3, 2)
    with pytest.raises(ValueError, match="n_pub"):
        log_hypothesis_class_size(-0.5, 2)
    with pytest.raises(ValueError, match="n_pub"):
        log_hypothesis_class_size(np.array([1.0, np.nan]), 2)
    with pytest.raises(ValueError, match="d"):
        log_hypothesis_class_size(5, 1.5)
    with pytest.raises(ValueError, match="log_G"):
        em_excess(-1.0, 1.0, 0.1)
    with pytest.raises(ValueError, match="epsilon"):
        em_excess(1.0, 0.0, 0.1)
    with pytest.raises(ValueError, match="beta"):
        em_excess(1.0, 1.0, 0.0)
    with pytest.raises(ValueError, match="err_hat"):
        compression_deviation(1.5, 4, 100, 0.1)
    with pytest.raises(ValueError, match="k"):
        compression_deviation(0.5, 0, 100, 0.1)
    with pytest.raises(ValueError, match="n"):
        compression_deviation(0.5, 4, 0.5, 0.1)
    with pytest.raises(ValueError, match="n"):
        realizable_bound(0, 2, 1.0, 0.1)
    with pytest.raises(ValueError, match="n"):
        agnostic_bound(np.array([10.0, np.inf]), 2, 1.0, 0.1)
