"""Set Cover Learner (KMMS19 section 3, docs/model.md §9.1): literal EM, privacy audit, learner, population."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from ppm.set_cover import GreedySetCover, LiteralSelector, PlantedConjunction, SetCoverLearner
from ppm.set_cover.base import implied_privacy


# -- an independent, plain-Python model of the literal class and of the score -------------------

def _brute_scores(X, y, threshold, D):
    """q(h) for the 2D literals in canonical order (x_0..x_{D-1}, NOT x_0..NOT x_{D-1})."""
    out = []
    for sign in (1, 0):
        for i in range(D):
            zeros_neg = sum(1 for row, lab in zip(X, y) if lab == 0 and row[i] != sign)
            zeros_pos = sum(1 for row, lab in zip(X, y) if lab == 1 and row[i] != sign)
            out.append(min(zeros_neg - threshold, -zeros_pos))
    return out


def _brute_probs(X, y, threshold, epsilon, D):
    w = [math.exp(epsilon * q / 2) for q in _brute_scores(X, y, threshold, D)]
    z = sum(w)
    return np.array([v / z for v in w])


@st.composite
def _instances(draw):
    D = draw(st.integers(1, 4))
    n = draw(st.integers(0, 10))
    X = np.array(draw(st.lists(st.lists(st.integers(0, 1), min_size=D, max_size=D),
                               min_size=n, max_size=n)), dtype=np.uint8).reshape(n, D)
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), dtype=np.int64)
    threshold = draw(st.floats(-5, 5))
    epsilon = draw(st.sampled_from([0.05, 0.5, 1.0, 3.0]))
    return X, y, threshold, epsilon


@given(_instances())
@settings(max_examples=150)
def test_literal_distribution_equals_brute_force_formula(inst):
    X, y, threshold, epsilon = inst
    p = LiteralSelector().select_distribution(X, y, threshold, epsilon)
    np.testing.assert_allclose(p, _brute_probs(X.tolist(), y.tolist(), threshold, epsilon, X.shape[1]),
                               rtol=1e-10, atol=1e-15)


def test_literal_select_frequencies_match_distribution():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(12, 3), dtype=np.uint8)
    y = rng.integers(0, 2, size=12)
    sel = LiteralSelector()
    p = sel.select_distribution(X, y, 1.3, 1.0)
    assert p.min() > 1e-3  # every cell has a reasonable expected count
    draws = 4000
    counts = np.zeros(6)
    for _ in range(draws):
        lit = sel.select(X, y, 1.3, 1.0, rng)
        counts[lit.variable + (0 if lit.sign == 1 else 3)] += 1
    assert stats.chisquare(counts, draws * p).pvalue > 1e-4


def test_literal_scores_are_distinguishing():
    """The EM is not uniform: the consistent literal that covers the negatives is favoured."""
    X = np.array([[1, 0], [1, 1], [0, 1], [0, 0]], dtype=np.uint8)
    y = np.array([1, 1, 0, 0])
    p = LiteralSelector().select_distribution(X, y, 0.0, 2.0)
    assert np.argmax(p) == 0  # x_0: labels 0 both negatives, no positive


# -- privacy audit: one call of the literal EM is epsilon-DP for a fixed threshold --------------

def test_literal_em_privacy_audit_replace_one():
    D, n = 2, 4
    domain = [(np.array(bits, dtype=np.uint8), lab)
              for bits in itertools.product((0, 1), repeat=D) for lab in (0, 1)]
    rng = np.random.default_rng(1)
    sel = LiteralSelector()
    worst = 0.0
    for epsilon in (0.1, 1.0, 2.5):
        for _ in range(25):
            idx = rng.integers(0, len(domain), size=n)
            X = np.array([domain[i][0] for i in idx])
            y = np.array([domain[i][1] for i in idx])
            threshold = float(rng.uniform(-2, 2))
            logp = np.log(sel.select_distribution(X, y, threshold, epsilon))
            for pos, (row, lab) in itertools.product(range(n), domain):
                X2, y2 = X.copy(), y.copy()
                X2[pos], y2[pos] = row, lab
                logp2 = np.log(sel.select_distribution(X2, y2, threshold, epsilon))
                ratio = np.max(np.abs(logp - logp2)) / epsilon
                assert ratio <= 1 + 1e-9
                worst = max(worst, ratio)
    assert worst > 0.5  # the audit is not vacuous: neighbours do move the distribution


# -- rounds and budgets ------------------------------------------------------------------------

@pytest.mark.parametrize("k,epsilon,delta,composition", [
    (1, 0.5, 1e-6, "set_cover"), (4, 0.9, 1e-6, "set_cover"), (8, 0.9, 1e-6, "naive"),
    (3, 0.2, 0.01, "naive"),
])
def test_rounds_and_round_epsilon_match_formulas(k, epsilon, delta, composition):
    n = 30
    X = np.random.default_rng(0).integers(0, 2, size=(n, 5))
    y = np.arange(n) % 2
    est = SetCoverLearner(k=k, epsilon=epsilon, delta=delta, composition=composition,
                          random_state=0).fit(X, y)
    R = math.ceil(2 * k * math.log(20))
    eps_p = epsilon / 2
    delta_p = delta / (1 + math.exp(epsilon / 2))
    expect = (eps_p / (2 * (1 + math.log(1 / delta_p))) if composition == "set_cover"
              else eps_p / (2 * math.sqrt(2 * R * math.log(1 / delta_p))))
    assert est.rounds_ == R
    assert est.epsilon_round_ == pytest.approx(expect, rel=1e-12)
    assert len(est.hypotheses_) == R


def test_epsilon_hat_knob_and_implied_privacy():
    est = SetCoverLearner(k=2, epsilon=0.9, epsilon_hat=0.5, random_state=0)
    est.fit(np.eye(4, dtype=int), [1, 0, 0, 0])
    assert est.epsilon_round_ == 0.5
    imp = implied_privacy(0.5, 1e-6, est.rounds_, 0.45)
    assert imp["basic_epsilon"] == pytest.approx(est.rounds_ * 0.5 + 0.45)
    assert not imp["claim_3_4_valid"]  # outside Claim 3.4's range: reported, not hidden
    # at the theorem's own budget the inversion gives back (eps, delta) = (0.9, 1e-6)
    eps_p, delta_p = 0.45, 1e-6 / (1 + math.exp(0.45))
    back = implied_privacy(eps_p / (2 * math.log(math.e / delta_p)), delta_p, 24, eps_p)
    assert back["claim_3_4_valid"]
    assert back["claim_3_4_epsilon"] == pytest.approx(0.9)
    assert back["claim_3_4_delta"] == pytest.approx(1e-6)


# -- the learner ------------------------------------------------------------------------------

@pytest.mark.parametrize("composition", ["set_cover", "naive"])
def test_learner_recovers_planted_conjunction_at_large_n(composition):
    pop = PlantedConjunction(D=1024, k=4, geometry_seed=3)
    X, y, public = pop.sample(30000, random_state=11)
    est = SetCoverLearner(k=4, epsilon=0.9, delta=1e-6, composition=composition,
                          random_state=5).fit(X, y, public)
    assert pop.conjunction_error(est.hypotheses_) < 0.01
    err, se = pop.true_error(est.predict, n_test=20000, random_state=2)
    assert err < 0.01


def test_learner_fails_at_small_n():
    """Control for the recovery test: with too few examples the private learner errs."""
    pop = PlantedConjunction(D=1024, k=4, geometry_seed=3)
    X, y, public = pop.sample(1000, random_state=11)
    est = SetCoverLearner(k=4, epsilon=0.9, delta=1e-6, random_state=5).fit(X, y, public)
    assert pop.conjunction_error(est.hypotheses_) > 0.1


def test_learner_exposes_only_released_state():
    X = np.random.default_rng(0).integers(0, 2, size=(40, 6))
    est = SetCoverLearner(k=2, epsilon=0.5, random_state=0).fit(X, X[:, 0])
    public = {a for a in vars(est) if a.endswith("_") and not a.startswith("_")}
    assert public == {"rounds_", "epsilon_round_", "hypotheses_", "n_features_in_", "classes_",
                      "pos_label_"}


def _bad(**kw):
    base = dict(k=2, epsilon=0.5, delta=1e-6)
    base.update(kw)
    return base


@pytest.mark.parametrize("params,match", [
    (_bad(epsilon=1.0), "epsilon.*1.0"), (_bad(epsilon=0.0), "epsilon.*0.0"),
    (_bad(epsilon=-0.3), "-0.3"), (_bad(delta=0.5), "delta.*0.5"), (_bad(delta=0.0), "delta"),
    (_bad(k=0), "k.*0"), (_bad(k=2.5), "k.*2.5"), (_bad(k=True), "k.*True"),
    (_bad(composition="basic"), "basic"), (_bad(hypotheses="boxes"), "boxes"),
    (_bad(alpha0=1.5), "alpha0.*1.5"), (_bad(epsilon_hat=-1.0), "epsilon_hat.*-1.0"),
])
def test_bad_parameters_rejected_naming_value(params, match):
    with pytest.raises(ValueError, match=match):
        SetCoverLearner(**params).fit(np.eye(3, dtype=int), [1, 0, 0])


@pytest.mark.parametrize("X,y,match", [
    (np.array([[0, 2], [1, 0]]), [0, 1], "binary.*2"),
    (np.array([[0.0, np.nan], [1, 0]]), [0, 1], "NaN"),
    (np.array([[0, 0.5]]), [0], "0.5"),
    (np.zeros((0, 3)), np.zeros(0), "empty"),
    (np.eye(2), [0, 3], "labels 0 and 1.*3"),
    (np.eye(2), [0, np.nan], "NaN"),
    (np.eye(2), [0, 1, 1], "shape"),
])
def test_bad_data_rejected_naming_value(X, y, match):
    with pytest.raises(ValueError, match=match):
        SetCoverLearner(k=1, epsilon=0.5).fit(X, y)


def test_clone_round_trip_and_not_fitted():
    est = SetCoverLearner(k=3, epsilon=0.7, delta=1e-5, composition="naive", alpha0=0.2,
                          beta0=0.05, epsilon_hat=None, random_state=4)
    cl = clone(est)
    assert cl.get_params() == est.get_params()
    with pytest.raises(NotFittedError):
        cl.predict(np.eye(2, dtype=int))
    with pytest.raises(TypeError):
        SetCoverLearner(3)  # keyword-only


def test_deterministic_under_fixed_seed():
    pop = PlantedConjunction(D=64, k=2, geometry_seed=1)
    X, y, _ = pop.sample(800, random_state=0)
    fits = [SetCoverLearner(k=2, epsilon=0.5, random_state=s).fit(X, y).hypotheses_
            for s in (7, 7, 8)]
    assert fits[0] == fits[1]
    assert fits[0] != fits[2]  # at this small n the mechanism is visibly random


def test_halfplanes_dispatch(monkeypatch):
    """hypotheses="halfplanes" runs the generic rounds with the halfplane selector: R calls on
    the remaining examples, deletion of the points the chosen hypothesis labels 0."""
    calls = []

    class FakeHalf:
        def __init__(self, t):
            self.t = t

        def predict(self, X):
            return (np.asarray(X)[:, 0] >= self.t).astype(np.int64)

    class FakeSelector:
        def __init__(self, *, T):
            self.T = T

        def check_X(self, X):
            return np.asarray(X, dtype=np.int64)

        def select(self, X, y, threshold, epsilon, rng):
            calls.append((X.shape[0], threshold, epsilon))
            return FakeHalf(1)

    import ppm.set_cover.learner as learner_mod
    monkeypatch.setattr(learner_mod, "HalfplaneSelector", FakeSelector)
    est = SetCoverLearner(k=1, epsilon=0.5, hypotheses="halfplanes", T=8)
    X = np.array([[0, 0], [1, 1], [2, 2], [3, 0]])
    est.fit(X, [0, 1, 1, 0])
    assert len(calls) == est.rounds_
    assert calls[0][0] == 4 and calls[1][0] == 3  # the point at x = 0 was deleted in round 1
    np.testing.assert_array_equal(est.predict(X), [0, 1, 1, 1])


@pytest.mark.parametrize("k,composition,n", [(1, "set_cover", 300), (4, "naive", 2000),
                                             (8, "set_cover", 5000)])
def test_counts_path_equals_generic_rounds(k, composition, n):
    """The literal learner's incremental counts give exactly the draws of the generic loop
    (select on the remaining examples, then delete), seed for seed."""
    from ppm.validation import check_random_state
    from ppm.set_cover.literals import LiteralSelector
    X, y, _ = PlantedConjunction(D=32, k=k, geometry_seed=4).sample(n, random_state=1)
    for seed in range(4):
        est = SetCoverLearner(k=k, epsilon=0.9, composition=composition, random_state=seed)
        est.fit(X, y)
        generic = SetCoverLearner._rounds(LiteralSelector(), X, y, est._budget(),
                                          check_random_state(seed))
        assert [h.as_tuple() for h in generic] == est.hypotheses_


# -- population and greedy baseline -----------------------------------------------------------

def test_planted_conjunction_sample_structure():
    pop = PlantedConjunction(D=40, k=5, w_pub=0.3, geometry_seed=2)
    X, y, public = pop.sample(4000, random_state=0)
    assert X.dtype == np.uint8 and X.shape == (4000, 40)
    np.testing.assert_array_equal(public, y == 0)
    tv = np.array([v for v, _ in pop.target])
    ts = np.array([s for _, s in pop.target])
    violations = (X[:, tv] != ts).sum(axis=1)
    assert np.all(violations[y == 1] == 0) and np.all(violations[y == 0] == 1)
    assert abs(public.mean() - 0.3) < 0.03
    other = np.setdiff1d(np.arange(40), tv)
    assert abs(X[:, other].mean() - 0.5) < 0.01
    which = np.argmax(X[y == 0][:, tv] != ts, axis=1)
    assert np.all(np.bincount(which, minlength=5) > 0.15 * (y == 0).sum())


def test_conjunction_error_exact_vs_formula_and_sample():
    pop = PlantedConjunction(D=30, k=3, w_pub=0.4, geometry_seed=5)
    t = pop.target
    free = next(v for v in range(30) if v not in dict(t))
    cases = {
        tuple(t): 0.0,
        tuple(t[1:]): 0.4 / 3,                     # one target literal dropped
        tuple(t + [(free, 1)]): 0.6 / 2,           # a non-target literal added
        ((t[0][0], 1 - t[0][1]),): 0.6 + 0.4 / 3,  # negated: right only on 2/3 of negatives
        ((free, 1), (free, 0)): 0.6,               # contradiction: predicts 0
    }
    for lits, expect in cases.items():
        assert pop.conjunction_error(lits) == pytest.approx(expect)
        est = GreedySetCover()
        est.hypotheses_, est.n_features_in_ = list(lits), 30
        err, se = pop.true_error(est.predict, n_test=40000, random_state=1)
        assert abs(err - expect) <= 4 * se + 1e-12


def test_greedy_set_cover_recovers_target_and_is_consistent():
    pop = PlantedConjunction(D=256, k=4, geometry_seed=0)
    X, y, _ = pop.sample(300, random_state=3)
    est = GreedySetCover().fit(X, y)
    np.testing.assert_array_equal(est.predict(X), y)
    assert set(est.hypotheses_) <= set(pop.target) or pop.conjunction_error(est.hypotheses_) < 0.02
    assert pop.conjunction_error(est.hypotheses_) < 0.02


def test_population_rejects_bad_parameters():
    with pytest.raises(ValueError, match="k must be <= D"):
        PlantedConjunction(D=3, k=4)
    with pytest.raises(ValueError, match="w_pub.*1.5"):
        PlantedConjunction(D=3, k=1, w_pub=1.5)


def test_noisy_threshold_is_laplace_with_the_documented_scale_and_margin(monkeypatch):
    """b_j / k handed to the selector: Laplace(|S_0| - Delta, R / eps') / k, eps' = eps / 2."""
    seen = []

    class KeepAll:
        def predict(self, X):
            return np.ones(len(X), dtype=np.int64)

    class Recorder:
        def __init__(self, *, T):
            pass

        def check_X(self, X):
            return np.asarray(X, dtype=np.int64)

        def select(self, X, y, threshold, epsilon, rng):
            seen.append((threshold, epsilon))
            return KeepAll()

    import ppm.set_cover.learner as learner_mod
    monkeypatch.setattr(learner_mod, "HalfplaneSelector", Recorder)
    k, eps, n0 = 2, 0.6, 7
    X = np.zeros((10, 2), dtype=np.int64)
    y = np.array([0] * n0 + [1] * 3)
    for seed in range(150):
        est = SetCoverLearner(k=k, epsilon=eps, hypotheses="halfplanes", T=4, random_state=seed)
        est.fit(X, y)
    R = math.ceil(2 * k * math.log(20))
    scale = R / (eps / 2)
    delta_margin = scale * math.log(R / 0.1)
    b = np.array([t for t, _ in seen]) * k
    assert b.size == 150 * R
    assert all(e == est.epsilon_round_ for _, e in seen)
    assert stats.kstest(b, stats.laplace(loc=n0 - delta_margin, scale=scale).cdf).pvalue > 1e-3
