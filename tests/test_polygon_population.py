"""GridPolygon / GridHalfplane (C12 population): exact labels, support, exact true error."""

import numpy as np
import pytest

from ppm.set_cover.halfplanes import HalfplaneSelector
from ppm.set_cover.polygon_population import GridHalfplane, GridPolygon


@pytest.mark.parametrize("k", [1, 3, 4, 6])
def test_support_points_hug_the_boundary_and_are_labelled(k):
    pop = GridPolygon(T=2 ** 12, k=k, support=40, geometry_seed=3)
    X, y, public = pop.sample(2000, random_state=0)
    assert np.array_equal(public, y == 0)
    assert np.array_equal(pop.target_predict(X), y)
    assert np.all((X >= 0) & (X <= pop.T)) and np.all(X == np.round(X))
    # every support point is within ~1 grid unit of an edge: moving it by <= 2 units in some
    # direction flips the label
    for p in np.unique(X, axis=0):
        nb = np.clip(p + np.array([(i, j) for i in range(-2, 3) for j in range(-2, 3)]), 0, pop.T)
        assert len(set(pop.target_predict(nb))) == 2
    assert 0.4 < public.mean() < 0.6


def test_target_is_a_halfplane_of_the_dual_class():
    """k = 1: the target is realizable in Observation 4.1's class: some dual point labels the
    whole support correctly, and the selector's cell of zero errors has positive area."""
    pop = GridHalfplane(T=256, support=20, geometry_seed=1)
    X, y, _ = pop.sample(300, random_state=1)
    _, cells = HalfplaneSelector(256).cell_distribution(X.astype(int), y, 0.0, 1.0)
    target = "".join(map(str, y))
    assert (cells.labelling == target).any()


def test_true_error_exact_with_support_and_on_small_grid():
    pop = GridHalfplane(T=64, support=16, w_pub=0.3, geometry_seed=2)
    assert pop.true_error(pop.target_predict) == (0.0, 0.0)
    assert pop.true_error(lambda X: np.ones(len(X), int)) == (pytest.approx(0.3), 0.0)
    assert pop.true_error(lambda X: np.zeros(len(X), int)) == (pytest.approx(0.7), 0.0)
    full = GridPolygon(T=64, k=4, support=None, w_pub=0.3, geometry_seed=2)
    assert full.true_error(lambda X: np.ones(len(X), int)) == (pytest.approx(0.3), 0.0)
    big = GridPolygon(T=2 ** 20, k=3, support=None, geometry_seed=2)
    err, se = big.true_error(lambda X: np.ones(len(X), int), n_test=2000, random_state=0)
    assert err == pytest.approx(0.5) and se == 0.0
    err, se = big.true_error(lambda X: (X[:, 0] > 2 ** 19).astype(int), n_test=4000,
                             random_state=0)
    assert 0.0 < err < 1.0 and se > 0


def test_sample_is_reproducible_and_uniform_sides_are_labelled():
    pop = GridPolygon(T=1000, k=3, support=None, geometry_seed=5)
    a, b = pop.sample(500, random_state=9), pop.sample(500, random_state=9)
    assert all(np.array_equal(u, v) for u, v in zip(a, b))
    assert np.array_equal(pop.target_predict(a[0]), a[1])


@pytest.mark.parametrize("kw, match", [({"T": 3}, "T"), ({"T": 2 ** 21}, "T"),
                                       ({"k": 2}, "'k' parameter of GridPolygon"), ({"k": 0}, "k"),
                                       ({"w_pub": 1.5}, "w_pub"), ({"support": 0}, "support"),
                                       ({"geometry_seed": -1}, "geometry_seed")])
def test_bad_parameters_rejected(kw, match):
    with pytest.raises(ValueError, match=match):
        GridPolygon(**kw)
