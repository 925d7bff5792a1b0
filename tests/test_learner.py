"""Algorithm 2 (LearnHalf): Helly (C7), privacy (C6), exactness of the sampler, determinism."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from ppm import PPMHalfspaceLearner, construct_halfspaces, learn_halfspace
from ppm.diagnostics.audit import exact_output_distribution, privacy_loss
from ppm.diagnostics import n_mistakes, score_histogram
from ppm.core.hypothesis_class import ReferenceScorer, class_size, iter_hypotheses
from ppm.core.learner import make_scorer
from tests.brute_force import erm_halfspace_errors
from tests.brute_force import label_determined_instance as _instance
# imported here, not inside the @given test below: importing a module that defines @given tests
# from inside a running @given test fails Hypothesis's nested-given health check
from tests.test_halfspaces import _on_flat


def _direct_scores(X, y, public):
    """Every hypothesis of G with its mistakes, by evaluating predict of a fitted learner.

    Independent of the scorers: the region of each g is evaluated through PPMHalfspaceLearner.predict
    with the hypothesis forced, and mistakes counted against y.
    """
    hs = construct_halfspaces(X[public], n_features=X.shape[1])
    probe = PPMHalfspaceLearner(epsilon=1.0, random_state=0).fit(X, y, public)
    out = {}
    for hyp in iter_hypotheses(len(hs), X.shape[1]):
        probe.hypothesis_ = hyp
        probe.W_, probe.b_ = hs.W[list(hyp)], hs.b[list(hyp)]
        out[hyp] = int(np.sum(probe.predict(X) != y))
    return out


# -- Lemma 4.5 (Helly): G holds a hypothesis at least as good as the ERM halfspace ----------

@pytest.mark.parametrize("d", [1, 2])
@pytest.mark.parametrize("seed", range(25))
def test_helly_min_over_G_at_most_erm(d, seed):
    rng = np.random.default_rng(1000 * d + seed)
    n = int(rng.integers(2, 8))
    X, y, public = _instance(seed + 77 * d, d, n, w_pub=float(rng.uniform(0.2, 0.8)))
    erm = erm_halfspace_errors(X, y)
    hs = construct_halfspaces(X[public], n_features=d)
    best = int(np.flatnonzero(ReferenceScorer(hs, X, y, d).histogram())[0])
    assert best <= erm
    # With a huge epsilon the mechanism returns a minimiser over G.
    fitted = PPMHalfspaceLearner(epsilon=1e4, random_state=seed).fit(X, y, public)
    assert n_mistakes(fitted, X, y) == best


def test_helly_needs_more_than_single_halfspaces():
    """Sanity of the test above: in d = 2, G with j <= 1 only would not always reach ERM."""
    worse = 0
    for seed in range(40):
        X, y, public = _instance(seed, 2, 7)
        erm = erm_halfspace_errors(X, y)
        hs = construct_halfspaces(X[public], n_features=2)
        scorer = ReferenceScorer(hs, X, y, 1)  # restrict G to j <= 1
        worse += int(np.flatnonzero(scorer.histogram())[0] > erm)
    assert worse > 0


# -- Lemma 4.1: privacy -------------------------------------------------------------------

def _neighbour(X, y, public, rng):
    """Replace one private example by an arbitrary (x', y'); it stays private."""
    X2, y2 = X.copy(), y.copy()
    i = rng.choice(np.flatnonzero(~public))
    X2[i] = rng.normal(scale=2.0, size=X.shape[1])
    y2[i] = rng.integers(0, 2)
    return X2, y2


@pytest.mark.parametrize("d,n", [(1, 7), (2, 6)])
@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("epsilon", [0.1, 1.0, 3.0])
def test_exact_privacy_loss_on_neighbours(d, n, seed, epsilon):
    rng = np.random.default_rng(seed)
    X, y, public = _instance(seed, d, n)
    if public.all():
        public[0] = False
        y[0] = 1
    X2, y2 = _neighbour(X, y, public, rng)
    logp1, hs1 = exact_output_distribution(X, y, public, epsilon)
    logp2, hs2 = exact_output_distribution(X2, y2, public, epsilon)
    np.testing.assert_array_equal(hs1.W, hs2.W)
    assert privacy_loss(logp1, logp2) <= epsilon + 1e-9
    # And the distribution is the exponential mechanism, scored independently.
    direct = _direct_scores(X, y, public)
    w = {g: -epsilon * m / 2 for g, m in direct.items()}
    log_z = np.logaddexp.reduce(list(w.values()))
    for g, lw in w.items():
        assert logp1[g] == pytest.approx(lw - log_z, abs=1e-9)


def test_privacy_loss_is_tight_somewhere():
    """The audit can fail: the worst case over neighbours gets close to epsilon."""
    epsilon = 1.0
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    public = np.array([True, True, False, False])
    y = (~public).astype(int)
    losses = []
    for x_new in (-5.0, 0.5, 1.5, 10.0):
        for y_new in (0, 1):
            X2, y2 = X.copy(), y.copy()
            X2[3], y2[3] = x_new, y_new
            losses.append(privacy_loss(exact_output_distribution(X, y, public, epsilon)[0],
                                       exact_output_distribution(X2, y2, public, epsilon)[0]))
    assert max(losses) > 0.5 * epsilon


@given(seed=st.integers(0, 10_000), d=st.sampled_from([1, 2, 3]), n=st.integers(1, 9))
def test_G_invariant_to_private_data(seed, d, n):
    rng = np.random.default_rng(seed)
    X, y, public = _instance(seed, d, n)
    X2, y2 = X.copy(), y.copy()
    priv = ~public
    X2[priv] = rng.normal(scale=3.0, size=(int(priv.sum()), d))
    y2[priv] = rng.integers(0, 2, size=int(priv.sum()))
    a = PPMHalfspaceLearner(epsilon=1.0, random_state=0).fit(X, y, public)
    b = PPMHalfspaceLearner(epsilon=1.0, random_state=0).fit(X2, y2, public)
    np.testing.assert_array_equal(a.halfspaces_.W, b.halfspaces_.W)
    np.testing.assert_array_equal(a.halfspaces_.b, b.halfspaces_.b)
    assert a.n_hypotheses_ == b.n_hypotheses_


# -- the sampler is the exponential mechanism -----------------------------------------------

@pytest.mark.parametrize("d,n,epsilon", [(1, 8, 1.0), (2, 5, 0.5)])
def test_sampler_frequencies_match_exponential_mechanism(d, n, epsilon):
    X, y, public = _instance(3, d, n)
    direct = _direct_scores(X, y, public)
    hyps = list(direct)
    logits = np.array([-epsilon * direct[g] / 2 for g in hyps])
    p = np.exp(logits - np.logaddexp.reduce(logits))
    draws = 6000
    index = {g: i for i, g in enumerate(hyps)}
    counts = np.zeros(len(hyps))
    for seed in range(draws):
        fitted = PPMHalfspaceLearner(epsilon=epsilon, random_state=seed).fit(X, y, public)
        counts[index[fitted.hypothesis_]] += 1
    # Chi-square goodness of fit, pooling cells with small expectation.
    expected = p * draws
    big = expected >= 5
    obs = np.append(counts[big], counts[~big].sum())
    exp = np.append(expected[big], expected[~big].sum())
    if exp[-1] == 0:
        obs, exp = obs[:-1], exp[:-1]
    pval = stats.chisquare(obs, exp).pvalue
    assert pval > 1e-4


def test_sampler_detects_wrong_temperature():
    """The frequency test has power: frequencies differ from exp(-eps m) (no factor 1/2)."""
    X, y, public = _instance(3, 1, 8)
    direct = _direct_scores(X, y, public)
    hyps = list(direct)
    wrong = np.array([-1.0 * direct[g] for g in hyps])
    p = np.exp(wrong - np.logaddexp.reduce(wrong))
    draws = 3000
    index = {g: i for i, g in enumerate(hyps)}
    counts = np.zeros(len(hyps))
    for seed in range(draws):
        counts[index[PPMHalfspaceLearner(epsilon=1.0, random_state=seed).fit(X, y, public).hypothesis_]] += 1
    expected = p * draws
    big = expected >= 5
    assert stats.chisquare(counts[big], expected[big] * counts[big].sum() / expected[big].sum()).pvalue < 1e-4


# -- exactness of the fast scorers ----------------------------------------------------------

@pytest.mark.parametrize("degenerate", ["", "duplicates", "collinear", "grid"])
@pytest.mark.parametrize("d", [1, 2, 3])
@pytest.mark.parametrize("seed", range(6))
def test_scorers_agree_with_reference(degenerate, d, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 9 if d < 3 else 7))
    X, y, public = _instance(seed, d, n, w_pub=float(rng.uniform(0, 1)), degenerate=degenerate)
    y = rng.integers(0, 2, size=n)  # arbitrary labels: scoring must not assume label-determined
    hs = construct_halfspaces(X[public], n_features=d)
    ref = make_scorer(hs, X, y, "reference")
    hist = ref.histogram()
    assert hist.sum() == class_size(len(hs), d)
    for method, block in [("blocked", 1), ("blocked", 7), ("bitset", 0), ("sweep", 0),
                          ("auto", 1 << 20)]:
        fast = make_scorer(hs, X, y, method, block_elements=block)
        np.testing.assert_array_equal(fast.histogram(), hist)
        for level in np.flatnonzero(hist):
            for rank in {0, int(hist[level]) // 2, int(hist[level]) - 1}:
                assert fast.find(int(level), rank) == ref.find(int(level), rank)


@pytest.mark.parametrize("d", [1, 2])
def test_same_seed_same_output_across_methods(d):
    X, y, public = _instance(11, d, 9)
    outs = {PPMHalfspaceLearner(epsilon=0.7, random_state=5, method=m).fit(X, y, public).hypothesis_
            for m in ("auto", "sweep", "bitset", "blocked", "reference")}
    assert len(outs) == 1


@given(seed=st.integers(0, 10_000), d=st.sampled_from([2, 3]), n=st.integers(0, 40),
       degenerate=st.sampled_from(["", "duplicates", "collinear", "grid"]),
       w_pub=st.floats(0.0, 1.0))
def test_sweep_scorer_equals_bitset_scorer(seed, d, n, degenerate, w_pub):
    """The angular sweep (incremental row vectors) against the popcount scorer, on larger
    instances than the reference can enumerate; labels arbitrary, points on hyperplanes
    included (public points lie on their own hyperplanes, grids put many on each)."""
    if d == 3:
        n = min(n, 16)
    rng = np.random.default_rng(seed)
    X, _, public = _instance(seed, d, n, w_pub=w_pub, degenerate=degenerate)
    y = rng.integers(0, 2, size=n)
    hs = construct_halfspaces(X[public], n_features=d)
    a, b = make_scorer(hs, X, y, "sweep"), make_scorer(hs, X, y, "bitset")
    hist = b.histogram()
    np.testing.assert_array_equal(a.histogram(), hist)
    for level in np.flatnonzero(hist)[:: max(1, np.count_nonzero(hist) // 4)]:
        for rank in {0, int(hist[level]) // 3, int(hist[level]) - 1}:
            assert a.find(int(level), rank) == b.find(int(level), rank)


def test_determinism_and_seed_dependence():
    X, y, public = _instance(2, 2, 40)
    a = PPMHalfspaceLearner(epsilon=1.0, random_state=3).fit(X, y, public)
    b = PPMHalfspaceLearner(epsilon=1.0, random_state=3).fit(X, y, public)
    assert a.hypothesis_ == b.hypothesis_
    outs = {PPMHalfspaceLearner(epsilon=0.05, random_state=s).fit(X, y, public).hypothesis_
            for s in range(10)}
    assert len(outs) > 1


# -- fitted state and prediction --------------------------------------------------------------

def test_fitted_attributes_and_counts():
    X, y, public = _instance(4, 2, 30)
    f = learn_halfspace(X, y, public, epsilon=1.0, random_state=0)
    n_pub = int(public.sum())
    assert f.n_pub_ == n_pub and f.n_priv_ == 30 - n_pub
    assert f.n_halfspaces_ <= 2 * (n_pub + math.comb(n_pub, 2))
    assert f.n_hypotheses_ == 1 + f.n_halfspaces_ + math.comb(f.n_halfspaces_, 2)
    assert score_histogram(f, X, y).sum() == f.n_hypotheses_


def test_no_public_points_gives_empty_hypothesis():
    X = np.random.default_rng(0).normal(size=(5, 2))
    public = np.zeros(5, dtype=bool)
    f = PPMHalfspaceLearner(epsilon=1.0, random_state=0).fit(X, np.ones(5, int), public)
    assert f.hypothesis_ == () and f.n_hypotheses_ == 1
    np.testing.assert_array_equal(f.predict(X), 1)


def test_realizable_learning_improves_with_n():
    """PPM on separable label-determined data: error falls as n grows (statistical sanity)."""
    rng = np.random.default_rng(0)

    def sample(n):
        X = rng.normal(size=(n, 1))
        public = X[:, 0] < 0
        return X, (~public).astype(int), public

    Xt, yt, _ = sample(20000)
    errs = []
    for n in (20, 2000):
        e = [np.mean(PPMHalfspaceLearner(epsilon=1.0, random_state=s).fit(*sample(n)).predict(Xt) != yt)
             for s in range(10)]
        errs.append(np.median(e))
    assert errs[1] < errs[0] / 5


# -- validation -------------------------------------------------------------------------------

@pytest.mark.parametrize("epsilon", [0, -1.0, float("nan"), float("inf"), "1", True, None])
def test_bad_epsilon(epsilon):
    X, y, public = _instance(0, 1, 5)
    with pytest.raises(ValueError, match="epsilon"):
        PPMHalfspaceLearner(epsilon=epsilon).fit(X, y, public)


def test_bad_data():
    X, y, public = _instance(0, 2, 5)
    Xn = X.copy()
    Xn[2, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        PPMHalfspaceLearner().fit(Xn, y, public)
    with pytest.raises(ValueError, match="labels 0 and 1"):
        PPMHalfspaceLearner().fit(X, y + 1, public)
    with pytest.raises(ValueError, match="public"):
        PPMHalfspaceLearner().fit(X, y, public[:3])
    with pytest.raises(ValueError, match="public"):
        PPMHalfspaceLearner().fit(X, y, None)
    with pytest.raises(ValueError, match="method"):
        PPMHalfspaceLearner(method="mcmc").fit(X, y, public)
    with pytest.raises(ValueError, match="block_elements"):
        PPMHalfspaceLearner(block_elements=0).fit(X, y, public)
    with pytest.raises(ValueError, match="max_hypotheses"):
        PPMHalfspaceLearner(max_hypotheses=0).fit(X, y, public)

    with pytest.raises(ValueError, match="not fitted"):
        PPMHalfspaceLearner().predict(X)
    f = PPMHalfspaceLearner().fit(X, y, public)
    with pytest.raises(ValueError, match="features"):
        f.predict(np.zeros((3, 3)))


@pytest.mark.parametrize("seed", range(3))
def test_bitset_matches_blocked_on_larger_samples(seed):
    """Many chunks, several words per bitset, label-determined and noisy labels (d = 2, 3)."""
    rng = np.random.default_rng(seed)
    for d, n in [(2, 150), (3, 22)]:
        X, y, public = _instance(seed, d, n)
        if seed == 2:
            y = rng.integers(0, 2, size=n)
        hs = construct_halfspaces(X[public], n_features=d)
        fast = make_scorer(hs, X, y, "bitset")
        slow = make_scorer(hs, X, y, "blocked")
        hist = slow.histogram()
        np.testing.assert_array_equal(fast.histogram(), hist)
        for level in np.flatnonzero(hist)[:: max(1, len(np.flatnonzero(hist)) // 6)]:
            for rank in {0, int(hist[level]) - 1, int(rng.integers(hist[level]))}:
                assert fast.find(int(level), rank) == slow.find(int(level), rank)


def test_refuses_an_infeasible_class_before_scoring():
    X, y, public = _instance(0, 4, 30, w_pub=0.9)
    with pytest.raises(ValueError, match=r"\|G\| >?= .* exceeds max_hypotheses"):
        PPMHalfspaceLearner().fit(X, y, public)
    small = PPMHalfspaceLearner(max_hypotheses=1e2)
    with pytest.raises(ValueError, match="max_hypotheses"):
        small.fit(*_instance(0, 2, 12))


@given(seed=st.integers(0, 10_000), d=st.sampled_from([2, 3]), n=st.integers(3, 7),
       axis=st.booleans(), grid=st.booleans())
@settings(max_examples=60, deadline=None)
def test_helly_when_the_public_points_lie_on_a_flat(seed, d, n, axis, grid):
    """Lemma 4.5 on degenerate samples: the public points span a line (a line or a plane at
    d = 3), axis-parallel or not, on integers or not; private points anywhere, some on Aff."""
    rng = np.random.default_rng(seed)
    r = int(rng.integers(1, d))
    n_pub = int(rng.integers(1, n))
    X_pub = _on_flat(seed, d, r, n_pub, axis, grid)
    on = _on_flat(seed + 1, d, r, n, axis, grid)[: n - n_pub]  # a parallel flat ...
    on = on - on[:1] + X_pub[:1] if rng.random() < 0.5 else on  # ... or Aff itself
    X = np.concatenate([X_pub, on])
    public = np.arange(n) < n_pub
    y = (~public).astype(int)
    erm = erm_halfspace_errors(X, y)
    hs = construct_halfspaces(X[public], n_features=d)
    best = int(np.flatnonzero(ReferenceScorer(hs, X, y, d).histogram())[0])
    assert best <= erm
