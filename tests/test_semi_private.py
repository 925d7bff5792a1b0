"""Semi-private baseline (docs/model.md §7, BNS15): cover by public dichotomies + exponential mechanism."""

from __future__ import annotations

import itertools

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.base import clone

import ppm.baselines.semi_private as sp
from ppm import PPMHalfspaceLearner, construct_halfspaces
from ppm.diagnostics import n_mistakes, score_histogram
from ppm.baselines.semi_private import (
    SemiPrivateHalfspaceLearner,
    candidate_rule,
    cover_scores,
    semi_private_cover,
)
from tests.brute_force import erm_halfspace_errors, strictly_separable
from tests.brute_force import label_determined_instance as _instance


# -- an independent, plain-Python model of the cover and the scores --------------------------

def _inside(hs, i, x) -> int:
    """[x in h_i] from W, b, tol directly (sum in coordinate order, like the kernel)."""
    v = 0.0
    for t in range(hs.d):
        v += float(hs.W[i, t]) * float(x[t])
    return int(v - float(hs.b[i]) >= -hs.tol)


def _predict_rule(hs, rule, x) -> int:
    kind, i = rule
    if kind == "const1":
        return 1
    if kind == "const0":
        return 0
    inside = _inside(hs, i, x)
    return inside if kind == "inside" else 1 - inside


def _brute_cover(hs, X_pub):
    """Rules of the cover, by a loop over the candidates and a set of seen dichotomies."""
    m = len(hs)
    if len(X_pub) == 0:
        return [("const1", None), ("const0", None)]
    candidates = [(kind, i) for i in range(m) for kind in ("inside", "outside")]
    candidates += [("const1", None), ("const0", None)]
    seen, kept = set(), []
    for rule in candidates:
        dichotomy = tuple(_predict_rule(hs, rule, x) for x in X_pub)
        if dichotomy not in seen:
            seen.add(dichotomy)
            kept.append(rule)
    return kept


def _brute_scores(hs, rules, X, y):
    return [sum(int(_predict_rule(hs, r, x) != int(t)) for x, t in zip(X, y)) for r in rules]


def _exact_logp(scores, epsilon):
    """log P[rule] of the exponential mechanism, straight from the formula."""
    logits = -0.5 * epsilon * np.asarray(scores, dtype=float)
    return logits - np.logaddexp.reduce(logits)


def _rules(fitted):
    return [candidate_rule(int(c), fitted.n_halfspaces_) for c in fitted.cover_]


# -- the cover and the score histogram agree with brute force ----------------------------------

@settings(max_examples=60)
@given(seed=st.integers(0, 10_000), d=st.sampled_from([1, 2, 3]), n=st.integers(0, 9),
       w_pub=st.floats(0.0, 1.0),
       degenerate=st.sampled_from(["", "duplicates", "collinear", "grid"]),
       labels=st.sampled_from(["private", "all"]))
def test_cover_and_histogram_match_brute_force(seed, d, n, w_pub, degenerate, labels):
    X, y, public = _instance(seed, d, n, w_pub, degenerate)
    y = np.random.default_rng(seed + 1).integers(0, 2, size=n)  # arbitrary labels
    f = SemiPrivateHalfspaceLearner(epsilon=1.0, labels=labels,
                                    random_state=seed).fit(X, y, public)
    hs = f.halfspaces_
    expected = _brute_cover(hs, X[public])
    assert _rules(f) == expected  # same dichotomy representatives, same (canonical) order
    assert f.n_hypotheses_ == len(expected)
    assert f.n_candidates_ == 2 * len(hs) + 2
    scored = np.ones(n, dtype=bool) if labels == "all" else ~public
    scores = _brute_scores(hs, expected, X[scored], y[scored])
    np.testing.assert_array_equal(score_histogram(f, X, y, public),
                                  np.bincount(scores, minlength=int(scored.sum()) + 1))
    # The dichotomies of the cover are pairwise distinct and cover every candidate's dichotomy.
    if public.any():
        dich = {tuple(_predict_rule(hs, r, x) for x in X[public]) for r in expected}
        assert len(dich) == len(expected)
    # The output's score is its real number of mistakes on the scored (labelled) examples.
    assert f.rule_ in expected
    assert n_mistakes(f, X[scored], y[scored]) == scores[expected.index(f.rule_)]


def _cover_dichotomies(hs):
    cover = [candidate_rule(int(c), len(hs)) for c in semi_private_cover(hs)]
    return {tuple(_predict_rule(hs, r, x) for x in hs.public_points) for r in cover}


def _separable_dichotomies(P):
    return {lab for lab in itertools.product([0, 1], repeat=len(P))
            if strictly_separable(P, np.array(lab))}


@settings(max_examples=25)
@given(seed=st.integers(0, 10_000), d=st.sampled_from([1, 2]), k=st.integers(1, 7),
       degenerate=st.sampled_from(["", "duplicates", "collinear", "grid"]))
def test_cover_has_every_halfspace_dichotomy_in_low_dimension(seed, d, k, degenerate):
    """d <= 2: one rule per linearly separable labelling of the public points, no more."""
    X, _, _ = _instance(seed, d, k, degenerate=degenerate)
    hs = construct_halfspaces(X, n_features=d)
    assert _cover_dichotomies(hs) == _separable_dichotomies(hs.public_points)


def test_cover_misses_split_dichotomies_in_three_dimensions():
    """The documented limitation for d >= 3: a subset of the separable dichotomies."""
    P = np.random.default_rng(2).normal(size=(6, 3))
    hs = construct_halfspaces(P)
    cover, separable = _cover_dichotomies(hs), _separable_dichotomies(hs.public_points)
    assert cover < separable
    assert (len(cover), len(separable)) == (44, 52)  # 52 = 2 sum_{i<=3} C(5, i)


def test_chunked_membership_gives_identical_results(monkeypatch):
    X, y, public = _instance(5, 2, 30)
    a = SemiPrivateHalfspaceLearner(epsilon=0.5, random_state=1).fit(X, y, public)
    monkeypatch.setattr(sp, "CHUNK_ELEMENTS", 7)
    b = SemiPrivateHalfspaceLearner(epsilon=0.5, random_state=1).fit(X, y, public)
    np.testing.assert_array_equal(a.cover_, b.cover_)
    np.testing.assert_array_equal(score_histogram(a, X, y, public),
                                  score_histogram(b, X, y, public))
    assert a.rule_ == b.rule_


def test_no_public_points_cover_is_the_two_constants():
    X = np.random.default_rng(0).normal(size=(6, 2))
    y = np.array([1, 1, 1, 1, 0, 1])
    f = SemiPrivateHalfspaceLearner(epsilon=1.0, random_state=0).fit(X, y, np.zeros(6, bool))
    assert _rules(f) == [("const1", None), ("const0", None)]
    assert f.n_halfspaces_ == 0 and f.n_hypotheses_ == 2
    np.testing.assert_array_equal(score_histogram(f, X, y, np.zeros(6, bool)),
                                  np.bincount([1, 5], minlength=7))
    expected = 1 if f.rule_[0] == "const1" else 0
    np.testing.assert_array_equal(f.predict(X), expected)


# -- privacy: the cover ignores private data; exact privacy loss of the mechanism --------------

@settings(max_examples=40)
@given(seed=st.integers(0, 10_000), d=st.sampled_from([1, 2, 3]), n=st.integers(1, 9))
def test_cover_invariant_to_private_data(seed, d, n):
    rng = np.random.default_rng(seed)
    X, y, public = _instance(seed, d, n)
    X2, y2 = X.copy(), y.copy()
    priv = ~public
    X2[priv] = rng.normal(scale=3.0, size=(int(priv.sum()), d))
    y2[priv] = rng.integers(0, 2, size=int(priv.sum()))
    y3 = y.copy()
    y3[public] = 1 - y3[public]  # public labels are never looked at by the cover either
    a = SemiPrivateHalfspaceLearner(epsilon=1.0, random_state=0).fit(X, y, public)
    b = SemiPrivateHalfspaceLearner(epsilon=1.0, random_state=0).fit(X2, y2, public)
    c = SemiPrivateHalfspaceLearner(epsilon=1.0, random_state=0).fit(X, y3, public)
    for other in (b, c):
        np.testing.assert_array_equal(a.halfspaces_.W, other.halfspaces_.W)
        np.testing.assert_array_equal(a.halfspaces_.b, other.halfspaces_.b)
        np.testing.assert_array_equal(a.cover_, other.cover_)


def _neighbour(X, y, public, rng):
    """Replace one private example by an arbitrary (x', y'); it stays private."""
    X2, y2 = X.copy(), y.copy()
    i = rng.choice(np.flatnonzero(~public))
    X2[i] = rng.normal(scale=2.0, size=X.shape[1])
    y2[i] = rng.integers(0, 2)
    return X2, y2


@pytest.mark.parametrize("d,n", [(1, 8), (2, 8), (3, 7)])
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("epsilon", [0.1, 1.0, 3.0])
def test_exact_privacy_loss_on_neighbours(d, n, seed, epsilon):
    rng = np.random.default_rng(seed)
    X, y, public = _instance(seed, d, n)
    if public.all():
        public[0], y[0] = False, 1
    X2, y2 = _neighbour(X, y, public, rng)
    hs = construct_halfspaces(X[public], n_features=d)
    rules = _brute_cover(hs, X[public])
    f1 = SemiPrivateHalfspaceLearner(epsilon=epsilon, random_state=0).fit(X, y, public)
    f2 = SemiPrivateHalfspaceLearner(epsilon=epsilon, random_state=0).fit(X2, y2, public)
    assert _rules(f1) == _rules(f2) == rules
    logp1 = _exact_logp(_brute_scores(hs, rules, X, y), epsilon)
    logp2 = _exact_logp(_brute_scores(hs, rules, X2, y2), epsilon)
    assert np.max(np.abs(logp1 - logp2)) <= epsilon + 1e-9


def test_privacy_audit_is_tight_and_has_power():
    """The audit above can fail: the worst neighbour gets close to epsilon, and the same audit
    of a mechanism with the wrong temperature (exp(-epsilon m), no factor 1/2) exceeds it."""
    epsilon = 3.0
    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0]])
    public = np.array([True, True, False, False, False])
    y = (~public).astype(int)
    hs = construct_halfspaces(X[public], n_features=1)
    rules = _brute_cover(hs, X[public])
    scores = _brute_scores(hs, rules, X, y)
    losses, wrong = [], []
    for x_new in (-5.0, 0.5, 1.5, 10.0):
        for y_new in (0, 1):
            X2, y2 = X.copy(), y.copy()
            X2[3], y2[3] = x_new, y_new
            other = _brute_scores(hs, rules, X2, y2)
            losses.append(np.max(np.abs(_exact_logp(scores, epsilon)
                                        - _exact_logp(other, epsilon))))
            wrong.append(np.max(np.abs(_exact_logp(scores, 2 * epsilon)
                                       - _exact_logp(other, 2 * epsilon))))
    assert 0.75 * epsilon < max(losses) <= epsilon + 1e-9
    assert max(wrong) > epsilon


def test_sampler_frequencies_match_exact_distribution():
    X, y, public = _instance(3, 2, 6)
    epsilon = 0.7
    first = SemiPrivateHalfspaceLearner(epsilon=epsilon, labels="all",
                                        random_state=0).fit(X, y, public)
    rules = _rules(first)
    p = np.exp(_exact_logp(_brute_scores(first.halfspaces_, rules, X, y), epsilon))
    index = {r: i for i, r in enumerate(rules)}
    draws = 2000
    counts = np.zeros(len(rules))
    threads = numba.get_num_threads()
    numba.set_num_threads(1)  # thousands of tiny kernels: skip OpenMP wake-ups on a busy machine
    try:
        for seed in range(draws):
            counts[index[SemiPrivateHalfspaceLearner(epsilon=epsilon, labels="all",
                                                     random_state=seed)
                         .fit(X, y, public).rule_]] += 1
    finally:
        numba.set_num_threads(threads)
    expected = p * draws
    big = expected >= 5
    obs = np.append(counts[big], counts[~big].sum())
    exp = np.append(expected[big], expected[~big].sum())
    if exp[-1] == 0:
        obs, exp = obs[:-1], exp[:-1]
    assert stats.chisquare(obs, exp).pvalue > 1e-4


# -- behaviour ---------------------------------------------------------------------------------

@pytest.mark.parametrize("d", [1, 2])
@pytest.mark.parametrize("seed", range(8))
def test_huge_epsilon_reaches_best_rule_in_cover(d, seed):
    """Separated label-determined sample: with epsilon = 1e6 the output is a cover minimiser."""
    rng = np.random.default_rng(seed)
    n = 10
    X = rng.normal(size=(n, d))
    direction = rng.normal(size=d)
    public = X @ direction < 0.2  # public points (label 0) on one side, private (label 1) beyond
    y = (~public).astype(int)
    f = SemiPrivateHalfspaceLearner(epsilon=1e6, labels="all",
                                    random_state=seed).fit(X, y, public)
    rules = _brute_cover(f.halfspaces_, X[public])
    best = min(_brute_scores(f.halfspaces_, rules, X, y))
    assert n_mistakes(f, X, y) == best


def test_failure_mode_on_a_mixture():
    """Two halfspaces with the same public dichotomy but opposite private labels: one is kept.

    Public triangle (label 0), private points (label 1) beyond the hypotenuse. Both
    "1 iff x < 0" and "1 iff x + y > 1" label every public point 0, but they disagree on every
    private point. The cover keeps only the first in canonical order, the useless one, so even
    with a huge epsilon the semi-private learner errs, while ERM and the PPM learner make 0
    mistakes.
    """
    X_pub = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    X_priv = np.array([[2.0, 2.0], [3.0, 1.0], [1.0, 3.0], [2.5, 2.5]])
    X = np.vstack([X_pub, X_priv])
    public = np.arange(7) < 3
    y = (~public).astype(int)
    hs = construct_halfspaces(X_pub)

    def find(w, b):
        hits = np.flatnonzero(np.all(np.isclose(hs.W, w), axis=1) & np.isclose(hs.b, b))
        assert hits.size == 1
        return int(hits[0])

    i_x = find([1.0, 0.0], 0.0)                        # {x >= 0}
    s = 1 / np.sqrt(2.0)
    i_diag = find([-s, -s], -s)                        # {x + y <= 1}
    rule_a, rule_b = ("outside", i_x), ("outside", i_diag)
    dich = [tuple(_predict_rule(hs, r, x) for x in X_pub) for r in (rule_a, rule_b)]
    assert dich[0] == dich[1] == (0, 0, 0)
    assert [_predict_rule(hs, rule_a, x) for x in X_priv] == [0, 0, 0, 0]
    assert [_predict_rule(hs, rule_b, x) for x in X_priv] == [1, 1, 1, 1]

    cover = [candidate_rule(int(c), len(hs)) for c in semi_private_cover(hs)]
    assert rule_a in cover and rule_b not in cover and ("const0", None) not in cover
    assert i_x < i_diag  # kept because it comes first, not because it is better

    scores = cover_scores(hs, semi_private_cover(hs), X, y)
    assert erm_halfspace_errors(X, y) == 0
    assert scores.min() > 0
    f = SemiPrivateHalfspaceLearner(epsilon=1e6, labels="all", random_state=0).fit(X, y, public)
    assert n_mistakes(f, X, y) == scores.min() > 0
    assert n_mistakes(PPMHalfspaceLearner(epsilon=1e6, random_state=0).fit(X, y, public),
                      X, y) == 0


# -- determinism, API, validation --------------------------------------------------------------

def test_determinism_and_seed_dependence():
    X, y, public = _instance(2, 2, 40)
    a = SemiPrivateHalfspaceLearner(epsilon=1.0, random_state=3).fit(X, y, public)
    b = SemiPrivateHalfspaceLearner(epsilon=1.0, random_state=3).fit(X, y, public)
    assert a.rule_ == b.rule_
    pred = a.predict(X)
    assert pred.dtype == np.int64 and set(np.unique(pred)) <= {0, 1}
    np.testing.assert_array_equal(pred, b.predict(X))
    outs = {SemiPrivateHalfspaceLearner(epsilon=0.05, random_state=s).fit(X, y, public).rule_
            for s in range(10)}
    assert len(outs) > 1


def test_sklearn_conventions():
    est = SemiPrivateHalfspaceLearner(epsilon=0.3, rel_tol=1e-8, random_state=4)
    assert est.get_params() == {"epsilon": 0.3, "rel_tol": 1e-8, "labels": "private",
                                "random_state": 4}
    X, y, public = _instance(1, 2, 12)
    assert est.fit(X, y, public) is est
    twin = clone(est).fit(X, y, public)
    assert twin.rule_ == est.rule_ and not hasattr(clone(est), "rule_")
    assert 0.0 <= est.score(X, y) <= 1.0


@pytest.mark.parametrize("epsilon", [0, -1.0, float("nan"), float("inf"), "1", None])
def test_bad_epsilon(epsilon):
    X, y, public = _instance(0, 2, 5)
    with pytest.raises(ValueError, match=f"epsilon.*{epsilon!r}".replace("(", r"\(")):
        SemiPrivateHalfspaceLearner(epsilon=epsilon).fit(X, y, public)


def test_bad_inputs():
    X, y, public = _instance(0, 2, 6)
    Xn = X.copy()
    Xn[2, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        SemiPrivateHalfspaceLearner().fit(Xn, y, public)
    with pytest.raises(ValueError, match="rel_tol.*0.5"):
        SemiPrivateHalfspaceLearner(rel_tol=0.5).fit(X, y, public)
    with pytest.raises(ValueError, match="labels"):
        SemiPrivateHalfspaceLearner(labels="public").fit(X, y, public)
    with pytest.raises(ValueError, match="random_state.*-3"):
        SemiPrivateHalfspaceLearner(random_state=-3).fit(X, y, public)
    with pytest.raises(ValueError, match="Only binary classification"):
        SemiPrivateHalfspaceLearner().fit(X, y + np.arange(y.size) % 3, public)
    with pytest.raises(ValueError, match="public"):
        SemiPrivateHalfspaceLearner().fit(X, y, public[:3])
    with pytest.raises(ValueError, match="public"):
        SemiPrivateHalfspaceLearner().fit(X, y)
    with pytest.raises(ValueError, match="not fitted"):
        SemiPrivateHalfspaceLearner().predict(X)
    f = SemiPrivateHalfspaceLearner().fit(X, y, public)
    with pytest.raises(ValueError, match="3 features"):
        f.predict(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="candidate"):
        candidate_rule(2 * len(f.halfspaces_) + 2, len(f.halfspaces_))


def test_validation_happens_before_any_work(monkeypatch):
    def boom(*args, **kwargs):
        raise AssertionError("work started before validation")

    monkeypatch.setattr(sp, "construct_halfspaces", boom)
    X, y, public = _instance(0, 2, 5)
    with pytest.raises(ValueError, match="epsilon"):
        SemiPrivateHalfspaceLearner(epsilon=-2.0).fit(X, y, public)
    with pytest.raises(ValueError, match="NaN"):
        SemiPrivateHalfspaceLearner().fit(np.full((5, 2), np.nan), y, public)


def test_private_labels_only_cannot_learn_label_determined_privacy():
    """Semi-private model (public = unlabeled): when every private label is 1, every rule that
    labels all private points 1 scores 0, the constant 1 among them, so even a huge epsilon
    draws uniformly among them; with privacy independent of the label it learns."""
    from ppm.populations import GaussianClusters

    det = GaussianClusters(d=2, w_pub=0.5, eta=0.0)
    X, y, public = det.sample(120, random_state=5)
    outs = [SemiPrivateHalfspaceLearner(epsilon=1e6, random_state=s).fit(X, y, public)
            for s in range(30)]
    assert all(n_mistakes(f, X[~public], y[~public]) == 0 for f in outs)
    zero = score_histogram(outs[0], X, y, public)[0]
    assert zero > 10                       # many indistinguishable rules
    errs = [det.true_error(f.predict, n_test=4000, random_state=1)[0] for f in outs]
    assert np.mean(errs) > 0.1
    hom = GaussianClusters(d=2, w_pub=0.5, eta=0.5)
    X, y, public = hom.sample(120, random_state=5)
    f = SemiPrivateHalfspaceLearner(epsilon=1e6, random_state=0).fit(X, y, public)
    assert hom.true_error(f.predict, n_test=4000, random_state=1)[0] < 0.1
