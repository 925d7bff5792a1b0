"""Tests of the exact Select Halfplane (KMMS19 section 4, docs/model.md §9.2).

Independent references: exact polygon clipping with Fractions (each cell = the dual box cut by
the n closed halfplanes of its sign vector), a fine grid of the dual evaluated with the primal
rule of Observation 4.1, and the full-grid arrangement for the privacy audit.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from ppm.set_cover.halfplanes import Halfplane, HalfplaneSelector


def _clip(poly, x, y, above):
    """Sutherland-Hodgman: keep ``b >= y - x a`` (above) or ``b <= y - x a``, exact."""
    def inside(p):
        v = p[1] - (y - x * p[0])
        return v >= 0 if above else v <= 0

    def cross(p, q):
        fp, fq = p[1] - (y - x * p[0]), q[1] - (y - x * q[0])
        t = fp / (fp - fq)
        return (p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1]))

    out = []
    for k, cur in enumerate(poly):
        prev = poly[k - 1]
        if inside(cur):
            if not inside(prev):
                out.append(cross(prev, cur))
            out.append(cur)
        elif inside(prev):
            out.append(cross(prev, cur))
    return out


def _area(poly):
    if len(poly) < 3:
        return Fraction(0)
    s = sum(poly[k - 1][0] * poly[k][1] - poly[k][0] * poly[k - 1][1] for k in range(len(poly)))
    return abs(s) / 2


def _cell_area(X, T, box, labelling):
    """Exact area of the cell of ``labelling`` in ``box`` by clipping (independent of the sweep)."""
    B = Fraction(2 * T * T)
    poly = [(-B, -B), (B, -B), (B, B), (-B, B)]
    for (x, y), lab in zip(X, labelling):
        zero = lab == "0"
        # box 1 (z=+1): label 0 iff the dual point is above the line; box 2: iff below
        poly = _clip(poly, int(x), int(y), above=(zero == (box == 1)))
        if not poly:
            return Fraction(0)
    return _area(poly)


def _score(X, y, labelling, threshold):
    zero = np.array([c == "0" for c in labelling], dtype=bool)
    return min(np.sum(zero & (y == 0)) - threshold, -np.sum(zero & (y == 1)))


def _random_sample(rng, T, n):
    X = rng.integers(0, T + 1, size=(n, 2))
    return X, rng.integers(0, 2, size=n)


SAMPLES = {
    "random": (3, np.array([[0, 1], [2, 3], [3, 0], [1, 1], [2, 2]]), np.array([0, 1, 1, 0, 0])),
    # collinear points = concurrent dual lines (all through (1, 0)); same x = parallel lines
    "collinear": (3, np.array([[0, 0], [1, 1], [2, 2], [3, 3], [1, 0], [1, 3]]),
                  np.array([1, 0, 1, 0, 0, 1])),
    "duplicates": (2, np.array([[1, 1], [1, 1], [1, 1], [0, 2], [2, 0], [0, 2]]),
                   np.array([0, 1, 0, 1, 1, 0])),
    "single": (1, np.array([[1, 0]]), np.array([0])),
}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_cells_equal_exact_clipping(name):
    T, X, y = SAMPLES[name]
    thr, eps = 1.5, 0.8
    traps, cells = HalfplaneSelector(T).cell_distribution(X, y, thr, eps)
    box_area = Fraction(16 * T ** 4)
    exact = {}
    for box in (1, 2):
        sub = cells[cells.box == box]
        assert math.isclose(sub.area.sum(), float(box_area), rel_tol=1e-12)
        for lab in sub.labelling:
            exact[(box, lab)] = _cell_area(X, T, box, lab)
        # the clipped cells of the sweep's labellings tile the box: no cell missed
        assert sum(v for (b, _), v in exact.items() if b == box) == box_area
    # each trapezoid's q (prefix counts) equals the score of its labelling
    for _, row in traps.iterrows():
        assert row.q == _score(X, y, row.labelling, thr)
    weights = {k: float(v) * math.exp(eps / 2 * _score(X, y, k[1], thr))
               for k, v in exact.items()}
    total = sum(weights.values())
    for _, row in cells.iterrows():
        assert math.isclose(row.area, float(exact[(row.box, row.labelling)]), rel_tol=1e-9)
        assert math.isclose(row.probability, weights[(row.box, row.labelling)] / total,
                            rel_tol=1e-9)


def test_cells_match_fine_grid_of_the_dual():
    """Brute force: label X with the primal rule at the centres of a fine grid of the dual."""
    T, X, y = SAMPLES["random"]
    _, cells = HalfplaneSelector(T).cell_distribution(X, y, 1.0, 1.0)
    G, B = 400, 2 * T * T
    centres = -B + (np.arange(G) + 0.5) * (2 * B / G)
    A, Bb = np.meshgrid(centres, centres, indexing="ij")
    a, b = A.ravel()[:, None], Bb.ravel()[:, None]
    lab = (X[None, :, 1] >= a * X[None, :, 0] + b)  # box 1, z = +1
    for box, labs in ((1, lab), (2, ~lab | (X[None, :, 1] == a * X[None, :, 0] + b))):
        keys, counts = np.unique(labs.astype(np.int8), axis=0, return_counts=True)
        grid_area = {"".join(map(str, k)): c * (2 * B / G) ** 2 for k, c in zip(keys, counts)}
        exact = dict(zip(cells[cells.box == box].labelling, cells[cells.box == box].area))
        assert set(grid_area) <= set(exact)
        for k, v in grid_area.items():
            # grid error: cell perimeter (< 4 box sides + 2 per line crossing) times spacing
            assert abs(v - exact[k]) <= (8 * B + 4 * B * len(X)) * (2 * B / G)
        big = [k for k, v in exact.items() if v > 0.01 * (2 * B) ** 2]
        for k in big:
            assert abs(grid_area[k] - exact[k]) / exact[k] < 0.05


def test_sampled_labelling_frequencies_match_cell_distribution():
    T, X, y = SAMPLES["collinear"]
    thr, eps = 1.0, 2.0
    sel = HalfplaneSelector(T)
    _, cells = sel.cell_distribution(X, y, thr, eps)
    probs = cells.groupby("labelling").probability.sum()
    rng = np.random.default_rng(7)
    draws = 3000
    counts = {}
    for _ in range(draws):
        lab = "".join(map(str, sel.select(X, y, thr, eps, rng).predict(X)))
        counts[lab] = counts.get(lab, 0) + 1
    assert set(counts) <= set(probs.index)
    # chi-square over labellings, rare ones pooled (expected count >= 5)
    exp_ = probs.to_numpy() * draws
    obs = np.array([counts.get(k, 0) for k in probs.index])
    rare = exp_ < 5
    exp_ = np.append(exp_[~rare], exp_[rare].sum())
    obs = np.append(obs[~rare], obs[rare].sum())
    p = stats.chisquare(obs, exp_).pvalue
    assert p > 1e-4, (p, obs, exp_)


def test_uniform_point_inside_trapezoids():
    """With a negligible epsilon the output is uniform on the dual box: every trapezoid's
    inverse-CDF sampler must be exact for the marginals to be uniform."""
    T, X, y = SAMPLES["random"]
    sel, rng = HalfplaneSelector(T), np.random.default_rng(3)
    B = 2 * T * T
    pts = [sel.select(X, y, 0.0, 1e-12, rng) for _ in range(2000)]
    a_hat = np.array([float(h.a_hat) for h in pts])
    b = np.array([float(h.b) for h in pts])
    assert stats.kstest(a_hat, stats.uniform(-B, 4 * B).cdf).pvalue > 1e-4
    assert stats.kstest(b, stats.uniform(-B, 2 * B).cdf).pvalue > 1e-4
    # joint check: the a-coordinate conditional on the upper half of b is uniform too
    assert stats.kstest(a_hat[b > B / 2], stats.uniform(-B, 4 * B).cdf).pvalue > 1e-4


def _grid_cells(T):
    """Cells of the arrangement of ALL grid points: events independent of the sample."""
    G = np.array([(i, j) for i in range(T + 1) for j in range(T + 1)])
    _, cells = HalfplaneSelector(T).cell_distribution(G, np.zeros(len(G), int), 0.0, 1.0)
    return G, cells


def test_privacy_audit_neighbouring_samples():
    """log P_S(E) - log P_S'(E) <= epsilon for every full-grid labelling E (finest events:
    any event is a union of them), S' = S with one example replaced, all replacements."""
    T, eps, thr = 2, 0.7, 0.5
    G, gcells = _grid_cells(T)
    sel = HalfplaneSelector(T)
    index = {tuple(p): k for k, p in enumerate(G)}
    rng = np.random.default_rng(11)
    worst = 0.0
    for _ in range(3):
        X, y = _random_sample(rng, T, 3)
        cols = [index[tuple(p)] for p in X]

        def log_probs(X, y):
            cols = [index[tuple(p)] for p in X]
            q = np.array([_score(X, y, "".join(lab[c] for c in cols), thr)
                          for lab in gcells.labelling])
            logw = np.log(gcells.area.to_numpy()) + eps / 2 * q
            return logw - np.logaddexp.reduce(logw)

        base = log_probs(X, y)
        # the implementation's cell probabilities equal the grid-cell aggregation
        _, cells = sel.cell_distribution(X, y, thr, eps)
        agg = {}
        for lab, box, lp in zip(gcells.labelling, gcells.box, base):
            key = (box, "".join(lab[c] for c in cols))
            agg[key] = agg.get(key, 0.0) + math.exp(lp)
        for _, row in cells.iterrows():
            assert math.isclose(row.probability, agg[(row.box, row.labelling)], rel_tol=1e-9)
        for i in range(3):
            for p in G:
                for lab in (0, 1):
                    X2, y2 = X.copy(), y.copy()
                    X2[i], y2[i] = p, lab
                    worst = max(worst, np.abs(base - log_probs(X2, y2)).max())
    assert worst <= eps + 1e-9
    assert worst > 0.5 * eps  # the audit is not vacuous


@settings(max_examples=40, deadline=None)
@given(T=st.integers(1, 8), data=st.data())
def test_area_identity_property(T, data):
    n = data.draw(st.integers(0, 9))
    pts = data.draw(st.lists(st.tuples(st.integers(0, T), st.integers(0, T)),
                             min_size=n, max_size=n))
    X = np.array(pts, dtype=np.int64).reshape(-1, 2)
    y = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), dtype=int)
    traps, cells = HalfplaneSelector(T).cell_distribution(X, y, 0.5, 1.0)
    for box in (1, 2):
        assert math.isclose(cells[cells.box == box].area.sum(), 16.0 * T ** 4, rel_tol=1e-12)
    assert math.isclose(cells.probability.sum(), 1.0, rel_tol=1e-12)
    assert (cells.q_max == cells.q_min).all()  # q constant on each cell (Observation 4.4)


def test_area_identity_large_grid():
    T = 2 ** 20
    rng = np.random.default_rng(5)
    X, y = _random_sample(rng, T, 60)
    X[30:40] = X[:10]  # duplicates
    X[40:50, 0] = X[40, 0]  # parallel lines
    X[50:60] = np.column_stack([np.arange(10) * 1000, np.arange(10) * 3000])  # collinear
    sel = HalfplaneSelector(T)
    dist = sel.bucket_distribution(X, y, 3.0, 0.5)
    for box in (1, 2):
        assert math.isclose(dist[dist.box == box].area.sum(), 16.0 * T ** 4, rel_tol=1e-9)
    h = sel.select(X, y, 3.0, 0.5, rng)
    assert h.predict(X).shape == (60,)


def test_halfplane_predict_exact_ties_and_orientation():
    T = 10
    X = np.array([(i, j) for i in range(T + 1) for j in range(T + 1)])
    for a_hat, b in [(Fraction(1, 3), Fraction(2)), (Fraction(2 * 100 + 50, 1), Fraction(-7, 2)),
                     (Fraction(-5), Fraction(0)), (Fraction(200 + 3, 7), Fraction(10, 3))]:
        h = Halfplane(a_hat, b, T)
        z = 1 if a_hat <= 200 else -1
        a = a_hat - (400 if z == -1 else 0)
        want = [int(z * y >= z * (a * x + b)) for x, y in X]
        assert h.predict(X).tolist() == want
    # a point exactly on the line is labelled 1 in both orientations
    assert Halfplane(Fraction(1), Fraction(0), T).predict(np.array([[3, 3]]))[0] == 1
    assert Halfplane(Fraction(401), Fraction(0), T).predict(np.array([[3, 3]]))[0] == 1


def test_determinism_under_a_fixed_seed():
    T, X, y = SAMPLES["random"]
    sel = HalfplaneSelector(T)
    h1 = sel.select(X, y, 1.0, 1.0, np.random.default_rng(42))
    h2 = sel.select(X, y, 1.0, 1.0, np.random.default_rng(42))
    h3 = sel.select(X, y, 1.0, 1.0, np.random.default_rng(43))
    assert (h1.a_hat, h1.b) == (h2.a_hat, h2.b)
    assert (h1.a_hat, h1.b) != (h3.a_hat, h3.b)


@pytest.mark.parametrize("X, match", [
    (np.array([[0, 5]]), "off the grid.*5"),
    (np.array([[-1, 0]]), "off the grid.*-1"),
    (np.array([[0.5, 1.0]]), "integers.*0.5"),
    (np.array([[np.nan, 1.0]]), "NaN"),
    (np.array([1, 2]), "shape"),
    (np.array([["a", "b"]]), "dtype"),
])
def test_bad_points_rejected(X, match):
    with pytest.raises(ValueError, match=match):
        HalfplaneSelector(4).check_X(X)


@pytest.mark.parametrize("T", [0, -3, 2.5, True, 2 ** 21, "4"])
def test_bad_T_rejected(T):
    with pytest.raises(ValueError, match="T must be"):
        HalfplaneSelector(T)


def test_bad_call_arguments_rejected():
    sel, X, rng = HalfplaneSelector(3), np.array([[0, 1], [2, 2]]), np.random.default_rng(0)
    with pytest.raises(ValueError, match="labels 0 and 1.*2"):
        sel.select(X, np.array([0, 2]), 1.0, 1.0, rng)
    with pytest.raises(ValueError, match="epsilon.*0"):
        sel.select(X, np.array([0, 1]), 1.0, 0.0, rng)
    with pytest.raises(ValueError, match="threshold.*nan"):
        sel.select(X, np.array([0, 1]), float("nan"), 1.0, rng)
    with pytest.raises(ValueError, match="rng"):
        sel.select(X, np.array([0, 1]), 1.0, 1.0, 42)


def test_empty_and_one_class_samples():
    """The Set Cover Learner may call with no remaining positives / negatives / examples."""
    sel, rng = HalfplaneSelector(3), np.random.default_rng(0)
    h = sel.select(np.zeros((0, 2), dtype=int), np.zeros(0, dtype=int), 0.0, 1.0, rng)
    assert h.predict(np.array([[1, 1]])).shape == (1,)
    dist = sel.bucket_distribution(np.zeros((0, 2), dtype=int), np.zeros(0, dtype=int), 0.0, 1.0)
    assert math.isclose(dist.probability[dist.area > 0].sum(), 1.0)
    X = np.array([[0, 0], [3, 3], [1, 2]])
    for lab in (0, 1):
        _, cells = sel.cell_distribution(X, np.full(3, lab), 1.0, 1.0)
        assert math.isclose(cells.probability.sum(), 1.0)
