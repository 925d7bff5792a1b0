"""LabelBoost relabelling and the boosting wrapper (ppm.semi_supervised.label_boost)."""

import math

import numpy as np
import pytest
from scipy import stats
from sklearn.base import clone

import ppm.semi_supervised.label_boost as lb_module
from ppm.semi_supervised import BigGridThresholds, BigPoints, LabelBoostLearner
from ppm.semi_supervised.label_boost import (
    label_boost,
    EPS_SUBSAMPLE,
    ROUND_SUBSAMPLE,
    base_sample_size,
    boost_schedule,
    min_labelled,
    unlabelled_needed,
)
from ppm.semi_supervised.threshold_em import predict_threshold


def brute_dichotomies(points):
    """Distinct labelings of ``points`` by every two-sided threshold (brute force)."""
    lo, hi = min(points) - 1, max(points) + 2
    out = set()
    for k in range(lo, hi):
        out.add(tuple(int(p >= k) for p in points))
        out.add(tuple(int(p < k) for p in points))
    out.add(tuple(0 for _ in points))
    return sorted(out)


@pytest.mark.parametrize("seed", range(20))
def test_relabels_consistently_with_h(seed):
    rng = np.random.default_rng(seed)
    S = BigPoints(1 << 300, rng.integers(0, 30, size=rng.integers(0, 12)))
    y = rng.integers(0, 2, size=len(S))
    U = BigPoints((1 << 300) + 7, rng.integers(0, 40, size=rng.integers(1, 15)))
    X, y_new, h = label_boost(S, y, U, rng)
    assert X.to_ints() == S.to_ints() + U.to_ints()
    assert np.array_equal(y_new, predict_threshold(h, X))
    assert tuple(y_new) in {tuple(d) for d in _labelings(X.to_ints())}


def _labelings(points):
    dich = brute_dichotomies(sorted(set(points)))
    order = sorted(set(points))
    return [[d[order.index(p)] for p in points] for d in dich]


def test_em_distribution_matches_brute_force():
    """H = every dichotomy once, P ∝ exp(-mistakes on S_L / 2): chi-square on draws."""
    S, y = np.array([2, 5, 9]), np.array([0, 1, 0])
    U = np.array([5, 11])
    pts = sorted({2, 5, 9, 11})
    dich = brute_dichotomies(pts)
    assert len(dich) == 2 * len(pts)
    idx = {v: pts.index(v) for v in pts}
    w = np.array([math.exp(-sum(d[idx[x]] != t for x, t in zip(S, y)) / 2) for d in dich])
    rng = np.random.default_rng(3)
    counts = dict.fromkeys(dich, 0)
    draws = 1500
    for _ in range(draws):
        X, y_new, _ = label_boost(S, y, U, rng)
        counts[tuple(int(y_new[list(X.to_ints()).index(v)]) for v in pts)] += 1
    observed = np.array([counts[d] for d in dich])
    assert stats.chisquare(observed, w / w.sum() * draws).pvalue > 1e-3


@pytest.mark.parametrize("n", [1, 1000, 26855, 26856, 27000, 30000, 100000])
@pytest.mark.parametrize("m", [948, 56843, 227191])
def test_schedule_sizes_match_formulas(n, m):
    rounds, reached = boost_schedule(n, m, 0.1, 0.1)
    s = n
    for N, K in rounds:
        assert N == math.ceil((3 + math.e ** 4) * K) and K == math.floor(N / (3 + math.e ** 4))
        ell = s / (3 + math.e ** 4)
        # Claim 4.2: kept labelled >= (2/alpha)(VC ln(e K / VC) + ln(1/beta)), VC = 2
        assert ell >= (2 / 0.1) * (2 * math.log(math.e * K / 2) + math.log(10)) - 1e-6
        assert s < K <= m
        s = K
    assert reached == (s >= m)
    if reached and rounds:
        assert rounds[-1][1] == m
    expected = sum(N for N, _ in rounds) - n - sum(K for _, K in rounds[:-1]) if rounds else 0
    assert unlabelled_needed(rounds, n) == expected


def test_min_labelled_is_the_growth_threshold():
    m = base_sample_size(4096, 0.1, 0.1)
    n0 = min_labelled(m, 0.1, 0.1)
    assert boost_schedule(n0, m, 0.1, 0.1)[1] and not boost_schedule(n0 - 1, m, 0.1, 0.1)[1]
    assert n0 == min_labelled(base_sample_size(16384, 0.1, 0.1), 0.1, 0.1)  # flat in b
    assert m == math.ceil(2 * (4097 * math.log(2) + math.log(10)) / 0.1)


SMALL = dict(b=512, alpha0=0.5, beta0=0.5, base_n=6000)  # cheap rounds for the tests


def _data(n, n_u, b=512, seed=0):
    pop = BigGridThresholds(b=b, support=5)
    X, y, _ = pop.sample(n, random_state=seed)
    U, _, _ = pop.sample(n_u, random_state=seed + 1)
    return pop, X, y, U


def test_wrapper_rounds_and_subsample_sizes(monkeypatch):
    rounds, reached = boost_schedule(4200, 6000, 0.5, 0.5)
    assert reached and len(rounds) == 2
    need = unlabelled_needed(rounds, 4200)
    pop, X, y, U = _data(4200, need)
    sizes = []
    real = lb_module._subsample
    monkeypatch.setattr(lb_module, "_subsample",
                        lambda x, yy, u, size, rng: sizes.append((len(x) + len(u), size))
                        or real(x, yy, u, size, rng))
    est = LabelBoostLearner(random_state=1, **SMALL).fit(X, y, X_unlabelled=U)
    assert not est.failed_ and est.rounds_ == rounds and est.n_unlabelled_used_ == need
    assert sizes == [(N, K) for N, K in rounds]
    assert all(K == math.floor(N / ROUND_SUBSAMPLE) for N, K in sizes)
    assert pop.true_error(est.predict)[0] <= 0.1
    # Theorem 4.14: epsilon < 1 first keeps an eps / (3 + e) fraction of each part, so the
    # round sizes follow from the input sizes alone
    n_l, n_u = 9000, 200000
    pop, X, y, U = _data(n_l, n_u)
    est = LabelBoostLearner(random_state=1, **{**SMALL, "epsilon": 0.5}).fit(X, y, X_unlabelled=U)
    kept = math.floor(0.5 * n_l / EPS_SUBSAMPLE)
    assert est.rounds_ == boost_schedule(kept, 6000, 0.5, 0.5)[0]


def test_presubsample_keeps_an_eps_fraction_of_each_part():
    x = BigPoints(1 << 100, np.arange(1000))
    y = np.arange(1000) % 2
    u = BigPoints((1 << 100) + 5000, np.arange(3000))
    kx, ky, ku = lb_module.presubsample(x, y, u, 0.4, np.random.default_rng(0))
    assert len(kx) == math.floor(0.4 * 1000 / EPS_SUBSAMPLE) == ky.size
    assert len(ku) == math.floor(0.4 * 3000 / EPS_SUBSAMPLE)
    kept = np.asarray(kx.offsets)
    assert np.unique(kept).size == kept.size and np.array_equal(ky, kept % 2)
    assert set(ku.to_ints()) <= set(u.to_ints())


def test_wrapper_fails_on_step_2b():
    _, X, y, U = _data(200, 10)
    est = LabelBoostLearner(random_state=0, **SMALL).fit(X, y, X_unlabelled=U)
    assert est.failed_ and est.fail_reason_ == "labelled"
    assert est.predict(X).tolist() == [0] * len(X)
    _, X, y, U = _data(4500, 10)
    est = LabelBoostLearner(random_state=0, **SMALL).fit(X, y, X_unlabelled=U)
    assert est.failed_ and est.fail_reason_ == "unlabelled"


def test_b4096_labelled_cost_below_the_base_learners():
    """30000 labelled points boost to m = 56843 at b = 4096 (one round) and learn the cut."""
    pop, X, y, U = _data(30000, 3300000, b=4096)
    est = LabelBoostLearner(b=4096, random_state=4).fit(X, y, X_unlabelled=U)
    assert len(est.rounds_) == 1 and est.hypothesis_ == ("ge", pop.cut_point)


@pytest.mark.parametrize("kwargs, match", [
    ({"epsilon": 1.5}, "1.5"), ({"epsilon": -1}, "-1"), ({"b": 0}, "Got 0"),
    ({"alpha0": 0.0}, "alpha0"), ({"beta0": 1.0}, "beta0"), ({"base_n": 0}, "base_n"),
])
def test_bad_parameters_rejected(kwargs, match):
    _, X, y, U = _data(20, 20)
    with pytest.raises(ValueError, match=match):
        LabelBoostLearner(**{**SMALL, **kwargs}).fit(X, y, X_unlabelled=U)


def test_bad_data_rejected():
    with pytest.raises(ValueError, match="contains 512"):
        LabelBoostLearner(b=9).fit(np.array([1, 512]), np.array([0, 1]))
    with pytest.raises(ValueError, match="X_unlabelled contains -3"):
        LabelBoostLearner(b=9).fit(np.array([1]), np.array([0]), X_unlabelled=np.array([-3]))
    with pytest.raises(ValueError, match=r"single class \[3\]"):
        LabelBoostLearner(b=9).fit(np.array([1]), np.array([3]))


def test_clone_and_determinism():
    est = LabelBoostLearner(random_state=7, **SMALL)
    assert clone(est).get_params() == est.get_params()
    _, X, y, U = _data(4500, 350000)
    a = clone(est).fit(X, y, X_unlabelled=U)
    b = clone(est).fit(X, y, X_unlabelled=U)
    assert a.hypothesis_ == b.hypothesis_ and a.rounds_ == b.rounds_
