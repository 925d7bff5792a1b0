"""Disjunctions and unions of polygons (KMMS19 Theorem 1.3, Section 5 / Theorem 5.1).

Exactness of the triangle selection: its cells against Select Halfplane's independently
labelled cells, its chain-rule probability table against a brute-force integration over all
ordered cell triples, a replace-one neighbour audit of one round on the common refinement, and
the learners (bit-for-bit De Morgan, planted disjunction, planted non-convex union)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from tests.brute_force import in_closed_hull
from ppm.set_cover import (DisjunctionLearner, HalfplaneSelector, PlantedConjunction,
                           SetCoverLearner, TriangleComplementSelector)
from ppm.set_cover.halfplanes import dual_trapezoids
from ppm.set_cover.polygon_population import GridTriangles


def _sample(seed, m, T=8, dup=3):
    rng = np.random.default_rng(seed)
    pts = rng.integers(0, T + 1, (m, 2))
    X = np.concatenate([pts, pts[rng.integers(0, m, dup)]])
    return X, rng.integers(0, 2, X.shape[0])


def _reference_cells(X, T):
    """Cells merged per labelling of the rows of X, from HalfplaneSelector.cell_distribution
    (labellings by Halfplane.predict at interior points): {labelling: area}."""
    _, cells = HalfplaneSelector(T).cell_distribution(X, np.zeros(len(X), int), 0.0, 1.0)
    out = {}
    for r in cells.itertuples():
        out[r.labelling] = out.get(r.labelling, 0.0) + r.area
    return out


def _row_labelling(cells, X, T):
    """Labellings of the rows of X by the selector's merged cells, as strings."""
    pts = cells.trap.points
    idx = np.searchsorted(pts[:, 0] * (T + 1) + pts[:, 1], X[:, 0] * (T + 1) + X[:, 1])
    return ["".join(map(str, row)) for row in cells.labels[:, idx]]


@pytest.mark.parametrize("seed", range(4))
def test_dual_trapezoids_match_select_halfplane_cells(seed):
    X, _ = _sample(seed, 6)
    d = dual_trapezoids(X, 8)
    mine = {}
    for box in (1, 2):
        lab = d.labelling(box)
        for t in range(d.area.size):
            key = (box, "".join(map(str, lab[t])))
            mine[key] = mine.get(key, 0.0) + d.area[t]
    pts = [tuple(p) for p in d.points]
    _, ref = HalfplaneSelector(8).cell_distribution(np.array(pts), np.zeros(len(pts), int),
                                                    0.0, 1.0)
    ref = {(r.box, r.labelling): r.area for r in ref.itertuples()}
    assert set(mine) == set(ref)
    for k, v in ref.items():
        assert mine[k] == pytest.approx(v, rel=1e-12)
    rng = np.random.default_rng(seed)
    for t in range(d.area.size):  # a released point labels the points as its trapezoid
        for box in (1, 2):
            assert (d.halfplane(t, box, rng).predict(d.points) == d.labelling(box)[t]).all()


def _brute_force_logp(X, y, T, thr, eps):
    """Exact log-probabilities of ordered cell triples, keyed by row labellings."""
    ref = _reference_cells(X, T)
    keys = sorted(ref)
    lab = np.array([[int(ch) for ch in k] for k in keys], dtype=np.int64)
    mass = np.array([ref[k] for k in keys])
    inside = lab[:, None, None, :] & lab[None, :, None, :] & lab[None, None, :, :]
    n0 = (inside * (y == 0)).sum(axis=3)
    n1 = (inside * (y == 1)).sum(axis=3)
    q = np.minimum(n0 - thr, -n1)
    logw = (np.log(mass)[:, None, None] + np.log(mass)[None, :, None]
            + np.log(mass)[None, None, :] + 0.5 * eps * q)
    top = logw.max()
    return keys, logw - (top + math.log(math.fsum(np.exp(logw - top).ravel())))


@pytest.mark.parametrize("seed,m", [(0, 5), (1, 7), (2, 8)])
def test_selection_table_equals_brute_force_integration(seed, m):
    X, y = _sample(seed, m)
    thr, eps = 1.3, 0.8
    keys, ref = _brute_force_logp(X, y, 8, thr, eps)
    cells, logp = TriangleComplementSelector(8).selection_table(X, y, thr, eps)
    mine = _row_labelling(cells, X, 8)
    assert sorted(mine) == keys
    perm = np.array([keys.index(k) for k in mine])
    ref = ref[np.ix_(perm, perm, perm)]
    assert math.fsum(np.exp(logp).ravel()) == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(np.exp(logp), np.exp(ref), rtol=1e-9, atol=1e-300)


def test_sampler_frequencies_follow_the_table():
    X, y = _sample(3, 4, dup=2)
    sel = TriangleComplementSelector(8)
    cells, logp = sel.selection_table(X, y, 0.5, 1.0)
    p1 = np.exp(logp).sum(axis=(1, 2))
    rng = np.random.default_rng(0)
    n = 2000
    counts = np.zeros(p1.size)
    for _ in range(n):
        tri = sel.select(X, y, 0.5, 1.0, rng).triangle
        lab = tri.halfplanes[0].predict(cells.trap.points)
        counts[np.flatnonzero((cells.labels == lab).all(axis=1))[0]] += 1
    # first cell's marginal: chi-square over cells with expected count >= 5
    big = p1 * n >= 5
    exp_c = np.append(p1[big] * n, p1[~big].sum() * n)
    obs = np.append(counts[big], counts[~big].sum())
    chi2 = ((obs - exp_c) ** 2 / np.maximum(exp_c, 1e-12)).sum()
    assert chi2 < big.sum() + 1 + 5 * math.sqrt(2 * (big.sum() + 1))


@pytest.mark.parametrize("seed", range(3))
def test_one_round_is_epsilon_dp_on_replace_one_neighbours(seed):
    """Densities on the common refinement (the arrangement of both samples' points)."""
    X, y = _sample(seed, 6, dup=2)
    Xn, yn = X.copy(), y.copy()
    rng = np.random.default_rng(100 + seed)
    Xn[0], yn[0] = rng.integers(0, 9, 2), 1 - y[0]
    thr, eps = 0.7, 0.9
    sel = TriangleComplementSelector(8)
    U = np.concatenate([X, Xn])
    ucells = sel.cells(U, np.zeros(len(U), int))
    ulab = _row_labelling(ucells, U, 8)
    logdens = []
    for S, lab in ((X, y), (Xn, yn)):
        cells, logp = sel.selection_table(S, lab, thr, eps)
        own = {k: i for i, k in enumerate(_row_labelling(cells, S, 8))}
        rows = slice(0, len(X)) if S is X else slice(len(X), len(U))
        idx = np.array([own[u[rows]] for u in ulab])
        logm = np.log(cells.mass / cells.mass.sum())
        logdens.append(logp[np.ix_(idx, idx, idx)] - logm[idx][:, None, None]
                       - logm[idx][None, :, None] - logm[idx][None, None, :])
    assert np.max(np.abs(logdens[0] - logdens[1])) <= eps + 1e-9


def test_triple_limit_refuses_before_scoring():
    X, y = _sample(0, 8)
    with pytest.raises(ValueError, match=r"ordered cell triples > the limit max_triples=1e\+03"):
        TriangleComplementSelector(8, max_triples=1000).select(
            X, y, 0.0, 1.0, np.random.default_rng(0))


# -- the learners ------------------------------------------------------------------------------

def test_disjunction_is_negated_conjunction_on_flipped_labels_bit_for_bit():
    X, y, _ = PlantedConjunction(D=64, k=2, geometry_seed=1).sample(3000, random_state=3)
    yd = 1 - y  # NOT(l_1 AND l_2) = (NOT l_1) OR (NOT l_2): a planted disjunction
    dis = DisjunctionLearner(k=2, epsilon=0.9, epsilon_hat=0.5, random_state=7).fit(X, yd)
    con = SetCoverLearner(k=2, epsilon=0.9, epsilon_hat=0.5, random_state=7).fit(X, 1 - yd)
    assert dis.hypotheses_ == con.hypotheses_
    Xt, yt, _ = PlantedConjunction(D=64, k=2, geometry_seed=1).sample(5000, random_state=4)
    np.testing.assert_array_equal(dis.predict(Xt), 1 - con.predict(Xt))
    assert np.mean(dis.predict(Xt) != 1 - yt) < 0.02


def _two_triangles():
    """Support: 6 points inside two disjoint triangles (positives), 6 outside (negatives),
    some between them (the union is not convex)."""
    pos = [(2, 2), (3, 2), (2, 3), (14, 14), (13, 14), (14, 13)]
    neg = [(8, 8), (5, 5), (11, 11), (2, 14), (14, 2), (8, 2)]
    return np.array(pos + neg), np.array([1] * 6 + [0] * 6)


def _best_convex_errors(pos, neg, w_pos=1.0, w_neg=1.0):
    """Least weight of support points a convex set misclassifies (it holds a subset of the
    positives and every negative in their hull); unit weights: the fewest points."""
    return min(w_pos * (len(pos) - r) + w_neg * sum(in_closed_hull(q, S) for q in neg)
               for r in range(len(pos) + 1) for S in itertools.combinations(pos, r))


def test_union_learner_learns_two_disjoint_triangles():
    """A planted non-convex union on a 12-point support (cost: m = 12 distinct points,
    whatever n): the learner beats every convex set, which errs on >= 3 support points."""
    support, labels = _two_triangles()
    pos = [tuple(p) for p in support[labels == 1]]
    neg = [tuple(p) for p in support[labels == 0]]
    assert _best_convex_errors(pos, neg) == 3
    rng = np.random.default_rng(0)
    i = rng.integers(0, len(support), 3000)
    est = DisjunctionLearner(k=2, hypotheses="triangles", T=16, epsilon=0.9, epsilon_hat=0.5,
                             random_state=1).fit(support[i], labels[i])
    assert est.rounds_ == 12 and len(est.triangles_) == 12
    assert np.sum(est.predict(support) != labels) <= 1  # 0 at 8 of 8 seeds tried
    inside = np.zeros(len(support), dtype=np.int64)
    for t in est.triangles_:
        inside |= t.predict(support)
    np.testing.assert_array_equal(est.predict(support), inside)


def test_disjunction_learner_validates_hypotheses():
    with pytest.raises(ValueError, match="'hypotheses' parameter of DisjunctionLearner"):
        DisjunctionLearner(hypotheses="triangle_complements").fit(np.zeros((2, 2)), [0, 1])


# -- the population ----------------------------------------------------------------------------

@pytest.mark.parametrize("T", [16, 17, 64, 1000])
def test_grid_triangles_labels_are_the_union_of_two_disjoint_triangles(T):
    pop = GridTriangles(T=T, support=8)
    A, B = (tuple(map(tuple, V.tolist())) for V in pop.triangles)
    g = np.arange(0, T + 1, max(1, T // 40))
    G = np.column_stack([np.repeat(g, g.size), np.tile(g, g.size)])
    sp, sn = pop.support_points()
    G = np.vstack([G, sp, sn])
    ref = [int(in_closed_hull(tuple(p), A) or in_closed_hull(tuple(p), B)) for p in G.tolist()]
    np.testing.assert_array_equal(pop.target_predict(G), ref)
    assert not any(in_closed_hull(tuple(p), B) for p in A)  # disjoint (B is convex)
    assert pop.target_predict([[T // 2, T // 2]])[0] == 0
    assert (pop.target_predict(sp) == 1).all() and (pop.target_predict(sn) == 0).all()
    X, y, public = pop.sample(500, random_state=0)
    np.testing.assert_array_equal(pop.target_predict(X), y)
    np.testing.assert_array_equal(public, y == 0)


def test_grid_triangles_uniform_sides():
    pop = GridTriangles(T=64, support=None)
    X, y, _ = pop.sample(400, random_state=1)
    np.testing.assert_array_equal(pop.target_predict(X), y)
    assert pop.true_error(pop.target_predict) == (0.0, 0.0)


def test_union_learner_beats_every_convex_set_on_grid_triangles():
    pop = GridTriangles(T=64, support=8, w_pub=0.5)
    pos, neg = ([tuple(p) for p in P.tolist()] for P in pop.support_points())
    best = _best_convex_errors(pos, neg, 0.5 / len(pos), 0.5 / len(neg))
    assert best >= 0.5 / len(neg)  # the centre, a negative, is in the positives' hull
    X, y, _ = pop.sample(5000, random_state=0)
    est = DisjunctionLearner(k=pop.k, hypotheses="triangles", T=64, epsilon=0.9,
                             epsilon_hat=0.5, random_state=0).fit(X, y)
    err, se = pop.true_error(est.predict)
    assert se == 0.0 and err < best  # 0 at 5 of 5 seeds tried
