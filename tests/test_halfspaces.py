"""Algorithm 1 (ConstrHalf): the conventions of SPEC section 2."""

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
