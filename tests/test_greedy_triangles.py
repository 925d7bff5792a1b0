"""C16's population and references: GridTriangles' centre mass and exact best convex error,
and the non-private greedy set cover by triangles (KMMS19 section 1.1 with Theorem 5.1's
disjuncts). Each is checked against an independent route: brute-force convex hulls by
Caratheodory, brute-force triple scans in numpy, a planted union."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from sklearn.base import clone

from tests.brute_force import in_closed_hull
from ppm.set_cover import GreedyTriangleCover, GridTriangles, TriangleComplementSelector


def _support_probabilities(pop, n=400_000, seed=0):
    """Empirical frequencies of the negative support points in a large sample."""
    X, y, _ = pop.sample(n, random_state=seed)
    _, neg = pop.support_points()
    neg_rows = X[y == 0].astype(np.int64)
    return np.array([np.mean(np.all(neg_rows == q, axis=1)) for q in neg])


@pytest.mark.parametrize("T,centre_mass", [(64, 0.5), (1000, 0.5), (4096, 0.2), (2 ** 20, 0.7)])
def test_best_convex_error_matches_brute_force(T, centre_mass):
    pop = GridTriangles(T=T, support=6, w_pub=0.4, centre_mass=centre_mass)
    pos, neg = ([tuple(p) for p in P.tolist()] for P in pop.support_points())
    # negatives' probabilities read off the sampler, not from the population's attributes
    p_neg = _support_probabilities(pop)
    assert abs(p_neg[-1] - centre_mass) < 0.01 and neg[-1] == (T // 2, T // 2)
    p_neg = np.append(np.full(len(neg) - 1, (1 - centre_mass) / (len(neg) - 1)), centre_mass)
    best = min(0.6 * (len(pos) - sum(in_closed_hull(q, S) for q in pos)) / len(pos)
               + 0.4 * sum(w for q, w in zip(neg, p_neg) if in_closed_hull(q, S))
               for r in range(len(pos) + 1) for S in itertools.combinations(pos, r))
    assert pop.best_convex_error() == pytest.approx(best, abs=1e-12)
    assert best > 0  # the centre makes the union non-convex


def test_best_convex_error_is_a_quarter_at_every_grid_size_of_c16():
    for b in (6, 9, 12, 16, 20):
        assert GridTriangles(T=2 ** b).best_convex_error() == pytest.approx(0.25)


def test_centre_mass_enters_the_exact_error():
    pop = GridTriangles(T=256, w_pub=0.3, centre_mass=0.6)
    centre = np.array([128, 128])

    def only_centre_wrong(X):
        X = np.asarray(X, dtype=np.int64)
        return np.where(np.all(X == centre, axis=1), 1, pop.target_predict(X))

    assert pop.true_error(only_centre_wrong) == (pytest.approx(0.3 * 0.6), 0.0)
    assert pop.params()["centre_mass"] == 0.6


@pytest.mark.parametrize("bad", [0, 1, 1.5, -0.1, "a", None])
def test_bad_centre_mass_is_refused(bad):
    with pytest.raises(ValueError, match="centre_mass"):
        GridTriangles(T=64, centre_mass=bad)


def test_best_convex_error_needs_finite_support():
    with pytest.raises(ValueError, match="finite support"):
        GridTriangles(T=64, support=None).best_convex_error()


# -- greedy set cover by triangles --------------------------------------------------------------

def _brute_best_gain(X, y, T, uncovered_pos):
    """Most uncovered positives (with multiplicity) inside a triple of cells with no negative
    inside: numpy over every unordered triple of the selector's merged cells."""
    cells = TriangleComplementSelector(T).cells(X, y)
    lab = cells.labels.astype(bool)
    best = 0
    for a, b, c in itertools.combinations_with_replacement(range(lab.shape[0]), 3):
        inside = lab[a] & lab[b] & lab[c]
        if cells.c0[inside].sum() == 0:
            best = max(best, int(uncovered_pos[inside].sum()))
    return best


@pytest.mark.parametrize("seed", range(3))
def test_greedy_first_choice_is_the_best_triangle(seed):
    rng = np.random.default_rng(seed)
    pts = rng.integers(0, 9, (6, 2))
    X = np.concatenate([pts, pts[rng.integers(0, 6, 4)]])
    y = rng.integers(0, 2, X.shape[0])
    est = GreedyTriangleCover(T=8, random_state=seed).fit(X, y)
    cells = TriangleComplementSelector(8).cells(X, y)
    best = _brute_best_gain(X, y, 8, cells.c1.astype(int))
    if best == 0:
        assert est.triangles_ == []
        return
    first = est.triangles_[0].predict(X)
    assert first[y == 0].sum() == 0 and first[y == 1].sum() == best


@pytest.mark.parametrize("T", [64, 2 ** 20])
def test_greedy_is_consistent_on_a_planted_union(T):
    pop = GridTriangles(T=T)
    X, y, _ = pop.sample(300, random_state=1)
    est = GreedyTriangleCover(T=T, random_state=0).fit(X, y)
    np.testing.assert_array_equal(est.predict(X), y)  # consistent with every example
    assert len(est.triangles_) <= 2 * math.log(y.sum()) + 1
    assert pop.true_error(est.predict)[0] < pop.best_convex_error()


def test_greedy_labels_params_and_errors():
    pop = GridTriangles(T=64)
    X, y, _ = pop.sample(200, random_state=2)
    labels = np.where(y == 1, "in", "out")
    est = GreedyTriangleCover(T=64, pos_label="in", random_state=0).fit(X, labels)
    assert set(est.classes_) == {"in", "out"}
    np.testing.assert_array_equal(est.predict(X), labels)
    assert clone(est).get_params()["T"] == 64
    with pytest.raises(ValueError, match="T"):
        GreedyTriangleCover(T=-1).fit(X, y)
    with pytest.raises(ValueError, match="max_triples"):
        GreedyTriangleCover(T=64, max_triples=0).fit(X, y)
    with pytest.raises(ValueError, match="triangle selection refused"):
        GreedyTriangleCover(T=64, max_triples=10).fit(X, y)
    with pytest.raises(ValueError):
        GreedyTriangleCover(T=64).fit(np.array([[70, 1]]), [1])  # outside the grid
