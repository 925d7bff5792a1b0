"""Algorithm 1 (ConstrHalf): the conventions of docs/model.md §2."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ppm import construct_halfspaces

points = st.integers(0, 10_000).flatmap(
    lambda seed: st.tuples(st.just(seed), st.integers(1, 3), st.integers(0, 9))
)


@given(points)
def test_count_bound_supports_and_pairs(args):
    seed, d, n = args
    X = np.random.default_rng(seed).normal(size=(n, d))
    hs = construct_halfspaces(X, n_features=d)
    assert len(hs) <= 2 * sum(math.comb(n, i) for i in range(1, d + 1))
    # Every halfspace's boundary passes through its support T, and T lies in it (closed).
    for i, T in enumerate(hs.supports):
        P = hs.public_points[T[T >= 0]]
        assert np.all(np.abs(P @ hs.W[i] - hs.b[i]) <= max(hs.tol, 1e-12) * 10)
        assert hs.contains(P, [i]).all()
    np.testing.assert_allclose(np.linalg.norm(hs.W, axis=1), 1.0)
    # In general position nothing merges: exactly two halfspaces per subset of size <= d.
    if n > 0:
        assert len(hs) == 2 * sum(math.comb(n, i) for i in range(1, min(d, n) + 1))


@given(points)
def test_depends_on_the_set_of_public_points_only(args):
    seed, d, n = args
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    a = construct_halfspaces(X, n_features=d)
    b = construct_halfspaces(np.concatenate([X[rng.permutation(n)], X[:2]]), n_features=d)
    np.testing.assert_array_equal(a.W, b.W)
    np.testing.assert_array_equal(a.b, b.b)


def test_empty_public_set():
    hs = construct_halfspaces(np.empty((0, 3)), n_features=3)
    assert len(hs) == 0 and hs.aff_dim == -1
    assert not hs.in_affine_hull(np.zeros((2, 3))).any()
    with pytest.raises(ValueError, match="n_features"):
        construct_halfspaces([])


def test_single_point_in_the_plane():
    hs = construct_halfspaces([[1.0, 2.0]])
    assert len(hs) == 2  # one line through the point, both closed sides
    np.testing.assert_allclose(hs.W[0], -hs.W[1])
    assert hs.contains(np.array([[1.0, 2.0]])).all()  # on the line: in both
    assert hs.aff_dim == 0
    assert hs.in_affine_hull(np.array([[1.0, 2.0], [1.0, 2.1]])).tolist() == [True, False]


def test_collinear_points_affine_hull_and_dedup():
    X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    hs = construct_halfspaces(X)
    assert hs.aff_dim == 1
    # Every pair spans the same line x1 = x2: one opposite pair for all 6 pairs.
    diag = np.abs(np.abs(hs.W @ np.array([1.0, -1.0])) - math.sqrt(2)) < 1e-9
    assert diag.sum() == 2
    assert hs.in_affine_hull(np.array([[5.0, 5.0], [5.0, 5.1]])).tolist() == [True, False]


def test_d1_is_exact():
    t = np.array([[0.0], [1e-300], [1.0]])
    hs = construct_halfspaces(t)
    assert hs.tol == 0.0 and len(hs) == 6
    inside = hs.contains(np.array([[0.0], [5e-301], [1e-300]]))
    # {x >= 1e-300} holds 1e-300 but not 5e-301: no tolerance in d = 1.
    assert inside[2].tolist() == [False, False, True]


def test_full_dimensional_affine_hull():
    X = np.random.default_rng(0).normal(size=(6, 3))
    hs = construct_halfspaces(X)
    assert hs.aff_is_full
    assert hs.in_affine_hull(np.random.default_rng(1).normal(size=(10, 3))).all()


@pytest.mark.parametrize("bad", [[[np.nan, 1.0]], [[np.inf, 0.0]]])
def test_rejects_non_finite(bad):
    with pytest.raises(ValueError, match="NaN or infinity"):
        construct_halfspaces(bad)


def test_rejects_bad_tolerance():
    with pytest.raises(ValueError, match="rel_tol"):
        construct_halfspaces([[0.0]], rel_tol=0.5)


def _on_flat(seed: int, d: int, r: int, n: int, axis: bool, grid: bool) -> np.ndarray:
    """n points on an r-dimensional affine flat of R^d: axis-parallel or random directions,
    optionally integer points (grid populations produce such flats)."""
    rng = np.random.default_rng(seed)
    if axis:
        B = np.eye(d)[rng.choice(d, size=r, replace=False)]
    else:
        B = np.linalg.qr(rng.normal(size=(d, r)))[0].T
    if grid:
        B = np.round(B * 2.0)
        B[np.all(B == 0, axis=1), 0] = 1.0
    p0 = np.round(rng.normal(size=d) * 3) if grid else rng.normal(size=d)
    coef = rng.integers(-3, 4, size=(n, r)) if grid else rng.normal(size=(n, r))
    return p0 + coef @ B


@given(st.integers(0, 10_000), st.sampled_from([(2, 1), (3, 1), (3, 2)]), st.integers(2, 6),
       st.booleans(), st.booleans())
def test_hyperplanes_cut_a_lower_dimensional_aff(seed, dims, n, axis, grid):
    """Lemma 4.5 works inside Aff: every pair whose support T does not span Aff must cut Aff
    (its normal is not orthogonal to Aff's directions). The old convention broke this for
    axis-parallel flats: singletons on the line x = c in R^2 got the normal e_1."""
    d, r = dims
    X = _on_flat(seed, d, r, n, axis, grid)
    hs = construct_halfspaces(X, n_features=d)
    if hs.aff_dim < 1:
        return
    pts = hs.public_points
    for i, T in enumerate(hs.supports):
        P = pts[T[T >= 0]]
        span = np.linalg.matrix_rank(P[1:] - P[0], tol=1e-9) if len(P) > 1 else 0
        if span < hs.aff_dim:
            assert np.linalg.norm(hs.aff_basis @ hs.W[i]) > 1e-6, (i, P)
        assert np.all(np.abs(P @ hs.W[i] - hs.b[i]) <= 1e-8)


def test_singletons_on_a_vertical_line_cut_it():
    hs = construct_halfspaces(np.array([[1.0, 1.0], [1.0, 2.0]]))
    # The line x = 1 is Aff; the singletons' lines are y = 1 and y = 2, the pair's is x = 1.
    rows = {tuple(np.round(w, 12)) + (round(b, 12),) for w, b in zip(hs.W, hs.b)}
    assert (0.0, 1.0, 1.0) in rows and (0.0, 1.0, 2.0) in rows
    assert (1.0, 0.0, 1.0) in rows
