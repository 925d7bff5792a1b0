"""Fully private baseline (docs/model.md §7 (a)): exact exponential mechanism over grid thresholds, d = 1."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.base import clone

import ppm.baselines.fully_private as fp
from ppm.diagnostics import n_mistakes, score_histogram
from ppm.baselines.fully_private import (
    GridExponentialMechanism,
    grid_points,
    grid_threshold_scores,
    hypothesis_of,
)
from ppm.mechanisms import level_log_probabilities


# -- an independent, plain-Python model of the class ---------------------------------------------

def _python_grid(T, low, high):
    return [low + (k * (high - low)) / (T - 1) for k in range(T)]


def _brute_class(T, low, high):
    """The 2T members in canonical order as (name, predicate on a float)."""
    g = _python_grid(T, low, high)
    members = [(("ge", k), (lambda x, t=g[k]: int(x >= t))) for k in range(T)]
    members.append((("zeros", None), lambda x: 0))
    members += [(("lt", k), (lambda x, t=g[k]: int(x < t))) for k in range(1, T)]
    return members


def _brute_scores(x, y, T, low, high):
    return [sum(int(h(float(xi)) != int(yi)) for xi, yi in zip(x, y))
            for _, h in _brute_class(T, low, high)]


def _exact_logp(scores, epsilon):
    """log P[h] of the exponential mechanism, straight from the formula."""
    logits = -0.5 * epsilon * np.asarray(scores, dtype=float)
    return logits - np.logaddexp.reduce(logits)


@st.composite
def _samples(draw):
    T = draw(st.integers(2, 12))
    low = draw(st.sampled_from([0.0, -1.0, -3.5, 1e15]))
    high = low + draw(st.sampled_from([1.0, 0.3, 7.0]))  # 1e15 + 0.3: repeated float grid points
    n = draw(st.integers(0, 14))
    grid = _python_grid(T, low, high)
    # Values on the grid (ties with thresholds), off the grid and outside [low, high].
    pool = grid + [low - 1.0, high + 2.0, (low + high) / 2 + 1e-3, low + 1e-9]
    x = np.array(draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)), dtype=float)
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), dtype=np.int64)
    return T, low, high, x, y


# -- scores and histogram agree with brute force -----------------------------------------------

@settings(max_examples=80)
@given(sample=_samples(), seed=st.integers(0, 1000))
def test_scores_and_histogram_match_brute_force(sample, seed):
    T, low, high, x, y = sample
    np.testing.assert_array_equal(grid_points(T, low, high), _python_grid(T, low, high))
    brute = _brute_scores(x, y, T, low, high)
    scores = grid_threshold_scores(x, y, grid_points(T, low, high))
    np.testing.assert_array_equal(scores, brute)
    f = GridExponentialMechanism(epsilon=1.0, T=T, low=low, high=high,
                                 random_state=seed).fit(x[:, None], y)
    np.testing.assert_array_equal(score_histogram(f, x[:, None], y),
                                  np.bincount(brute, minlength=len(y) + 1))
    assert f.n_hypotheses_ == 2 * T == len(brute)
    assert f.hypothesis_ == _brute_class(T, low, high)[f.hypothesis_index_][0]
    assert f.hypothesis_ == hypothesis_of(f.hypothesis_index_, T)
    # The prediction rule is the member the mechanism scored.
    assert brute[f.hypothesis_index_] == n_mistakes(f, x[:, None], y)


@pytest.mark.parametrize("T", [2, 3, 7, 10, 49, 64, 1000, 12345, 1 << 20])
def test_default_grid_is_k_over_T_minus_1_exactly(T):
    """The [0, 1] grid is k / (T - 1) bit for bit (the grid population's domain, claim C9)."""
    np.testing.assert_array_equal(grid_points(T, 0.0, 1.0), np.arange(T) / (T - 1))


def test_canonical_order_and_distinct_functions_on_the_grid():
    T = 5
    g = grid_points(T, 0.0, 1.0)
    names = [name for name, _ in _brute_class(T, 0.0, 1.0)]
    assert names[:T] == [("ge", k) for k in range(T)]
    assert names[T] == ("zeros", None) and names[T + 1:] == [("lt", k) for k in range(1, T)]
    assert [hypothesis_of(i, T) for i in range(2 * T)] == names
    tables = {tuple(h(v) for v in g) for _, h in _brute_class(T, 0.0, 1.0)}
    assert len(tables) == 2 * T  # 2T distinct functions on the grid
    assert tuple(1 for _ in g) in tables  # ("ge", 0)


# -- privacy: exact output distribution on neighbouring datasets -------------------------------

@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("epsilon", [0.1, 1.0, 4.0])
def test_exact_privacy_loss_on_neighbours(seed, epsilon):
    rng = np.random.default_rng(seed)
    T, low, high = int(rng.integers(2, 9)), -1.0, 2.0
    n = int(rng.integers(1, 10))
    x = rng.uniform(-1.5, 2.5, size=n)
    y = rng.integers(0, 2, size=n)
    public = rng.random(n) < 0.5
    x2, y2 = x.copy(), y.copy()
    i = int(rng.integers(n))  # any example: all are private here, public ones included
    x2[i], y2[i] = rng.uniform(-3, 3), rng.integers(0, 2)
    logp1 = _exact_logp(_brute_scores(x, y, T, low, high), epsilon)
    logp2 = _exact_logp(_brute_scores(x2, y2, T, low, high), epsilon)
    assert np.max(np.abs(logp1 - logp2)) <= epsilon + 1e-9
    # The learner's sampler (level, then uniform rank) induces exactly this distribution.
    f = GridExponentialMechanism(epsilon=epsilon, T=T, low=low, high=high,
                                 random_state=0).fit(x, y, public)
    scores = grid_threshold_scores(x, y, grid_points(T, low, high))
    counts = score_histogram(f, x[:, None], y)
    induced = level_log_probabilities(counts, epsilon)[scores] - np.log(counts[scores])
    np.testing.assert_allclose(induced, logp1, rtol=0, atol=1e-9)


def test_privacy_audit_is_tight_and_has_power():
    """Worst neighbour: loss close to epsilon; the wrong temperature exp(-epsilon m) exceeds it."""
    epsilon, T = 3.0, 6
    x = np.array([0.1, 0.3, 0.5, 0.7, 0.9])
    y = np.array([0, 0, 1, 1, 1])
    base = _brute_scores(x, y, T, 0.0, 1.0)
    losses, wrong = [], []
    for x_new in (-1.0, 0.15, 0.45, 2.0):
        for y_new in (0, 1):
            x2, y2 = x.copy(), y.copy()
            x2[2], y2[2] = x_new, y_new
            other = _brute_scores(x2, y2, T, 0.0, 1.0)
            losses.append(np.max(np.abs(_exact_logp(base, epsilon) - _exact_logp(other, epsilon))))
            wrong.append(np.max(np.abs(_exact_logp(base, 2 * epsilon)
                                       - _exact_logp(other, 2 * epsilon))))
    assert 0.75 * epsilon < max(losses) <= epsilon + 1e-9
    assert max(wrong) > epsilon


def _frequencies(x, y, T, epsilon, draws):
    counts = np.zeros(2 * T)
    for seed in range(draws):
        f = GridExponentialMechanism(epsilon=epsilon, T=T, random_state=seed).fit(x, y)
        counts[f.hypothesis_index_] += 1
    return counts


def _chisquare_pvalue(counts, p):
    expected = p * counts.sum()
    big = expected >= 5
    obs = np.append(counts[big], counts[~big].sum())
    exp = np.append(expected[big], expected[~big].sum())
    if exp[-1] == 0:
        obs, exp = obs[:-1], exp[:-1]
    return stats.chisquare(obs, exp).pvalue


def test_sampler_frequencies_match_exact_distribution():
    x = np.array([0.05, 0.4, 0.45, 0.8, 0.95, 0.6])
    y = np.array([0, 0, 1, 1, 1, 0])
    T, epsilon = 4, 1.0
    counts = _frequencies(x, y, T, epsilon, 4000)
    p = np.exp(_exact_logp(_brute_scores(x, y, T, 0.0, 1.0), epsilon))
    assert _chisquare_pvalue(counts, p) > 1e-4
    # Power: the same frequencies are rejected against the wrong temperature.
    p_wrong = np.exp(_exact_logp(_brute_scores(x, y, T, 0.0, 1.0), 2 * epsilon))
    assert _chisquare_pvalue(counts, p_wrong) < 1e-4


# -- behaviour ---------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(6))
def test_huge_epsilon_returns_a_minimum_error_threshold(seed):
    rng = np.random.default_rng(seed)
    T = int(rng.integers(2, 40))
    x = rng.uniform(-0.2, 1.2, size=30)
    y = (rng.random(30) < np.where(x > 0.4, 0.85, 0.15)).astype(int)
    f = GridExponentialMechanism(epsilon=1e6, T=T, random_state=seed).fit(x, y)
    brute = _brute_scores(x, y, T, 0.0, 1.0)
    assert n_mistakes(f, x[:, None], y) == min(brute)


def test_large_grid_is_fast_and_exact():
    """T = 2^20 (the experiments' largest): no n x T matrix, exact minimiser on realizable data."""
    T = 1 << 20
    g = grid_points(T, 0.0, 1.0)
    rng = np.random.default_rng(0)
    x = g[rng.integers(0, T, size=2000)]
    y = (x >= g[333_333]).astype(int)
    f = GridExponentialMechanism(epsilon=1e6, T=T, random_state=0).fit(x, y)
    assert f.n_hypotheses_ == 2 * T and score_histogram(f, x[:, None], y).sum() == 2 * T
    assert np.all(f.predict(x[:, None]) == y)
    assert f.hypothesis_[0] == "ge" and f.threshold_ == g[f.hypothesis_[1]]


def test_predict_on_reals_uses_the_inequalities():
    f = GridExponentialMechanism(epsilon=1.0, T=5, random_state=0).fit([0.2, 0.9], [0, 1])
    probe = np.array([-10.0, 0.0, 0.25, 0.5, 0.74, 0.75, 1.0, 10.0])
    f.hypothesis_, f.threshold_ = ("ge", 3), 0.75
    np.testing.assert_array_equal(f.predict(probe), [0, 0, 0, 0, 0, 1, 1, 1])
    f.hypothesis_, f.threshold_ = ("lt", 3), 0.75
    np.testing.assert_array_equal(f.predict(probe), [1, 1, 1, 1, 1, 0, 0, 0])
    f.hypothesis_, f.threshold_ = ("zeros", None), None
    np.testing.assert_array_equal(f.predict(probe), 0)


# -- determinism, API, validation --------------------------------------------------------------

def test_determinism_public_ignored_and_int64():
    rng = np.random.default_rng(1)
    x = rng.uniform(size=25)
    y = (x > 0.5).astype(int)
    public = rng.random(25) < 0.5
    a = GridExponentialMechanism(epsilon=0.5, T=32, random_state=7).fit(x, y, public)
    b = GridExponentialMechanism(epsilon=0.5, T=32, random_state=7).fit(x, y)
    assert a.hypothesis_ == b.hypothesis_ and a.threshold_ == b.threshold_
    pred = a.predict(x[:, None])
    assert pred.dtype == np.int64 and set(np.unique(pred)) <= {0, 1}
    outs = {GridExponentialMechanism(epsilon=0.05, T=32, random_state=s).fit(x, y).hypothesis_
            for s in range(10)}
    assert len(outs) > 1


def test_sklearn_conventions():
    est = GridExponentialMechanism(epsilon=0.3, T=10, low=-1.0, high=1.0, random_state=4)
    assert est.get_params() == {"epsilon": 0.3, "T": 10, "low": -1.0, "high": 1.0,
                                "random_state": 4}
    x = np.linspace(-1, 1, 9)
    y = (x > 0).astype(int)
    assert est.fit(x, y) is est
    assert clone(est).fit(x, y).hypothesis_ == est.hypothesis_
    assert 0.0 <= est.score(x[:, None], y) <= 1.0


@pytest.mark.parametrize("params,match", [
    ({"epsilon": 0}, "epsilon.*0"),
    ({"epsilon": -1.0}, r"epsilon.*-1\.0"),
    ({"epsilon": float("nan")}, "epsilon.*nan"),
    ({"T": 1}, "T.*1"),
    ({"T": 2.5}, r"T.*2\.5"),
    ({"T": True}, "T.*True"),
    ({"low": 1.0, "high": 1.0}, r"low=1\.0, high=1\.0"),
    ({"low": 2.0, "high": 1.0}, r"low=2\.0, high=1\.0"),
    ({"low": float("nan")}, "low.*nan"),
    ({"high": float("inf")}, "high.*inf"),
    ({"low": -1e308, "high": 1e308}, r"\(high - low\) \* \(T - 1\)"),
    ({"low": 0.0, "high": 1e306, "T": 1000}, r"T=1000"),
    ({"random_state": -1}, "random_state.*-1"),
])
def test_bad_parameters(params, match, monkeypatch):
    def boom(*args, **kwargs):
        raise AssertionError("work started before validation")

    monkeypatch.setattr(fp, "grid_points", boom)
    monkeypatch.setattr(fp, "grid_threshold_scores", boom)
    with pytest.raises(ValueError, match=match):
        GridExponentialMechanism(**params).fit([0.1, 0.7], [0, 1])


def test_bad_data(monkeypatch):
    monkeypatch.setattr(fp, "grid_points", lambda *a: (_ for _ in ()).throw(AssertionError))
    with pytest.raises(ValueError, match="NaN"):
        GridExponentialMechanism().fit([0.1, np.nan], [0, 1])
    with pytest.raises(ValueError, match="one feature.*2 features"):
        GridExponentialMechanism().fit(np.zeros((3, 2)), [0, 1, 1])
    with pytest.raises(ValueError, match="Only binary classification"):
        GridExponentialMechanism().fit([0.1, 0.2, 0.3], [0, 1, 2])
    monkeypatch.undo()
    with pytest.raises(ValueError, match="not fitted"):
        GridExponentialMechanism().predict([0.5])
    f = GridExponentialMechanism().fit([0.1, 0.7], [0, 1])
    with pytest.raises(ValueError, match="2 features"):
        f.predict(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="index"):
        hypothesis_of(2 * 64, 64)
