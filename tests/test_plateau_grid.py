"""PlateauGridThresholds (claim C13): every threshold but the target errs by ``plateau``, the
sampler draws the four atoms with their masses, and on it the fully private exponential
mechanism's chance of the target falls like ``1 / T`` (the ``ln T`` cost the population exists
to show), while the population is usable from the configs like the other grid populations."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hydra import compose, initialize_config_dir
from hydra.utils import instantiate

from experiments import seeding
from experiments.schema import register_configs
from ppm.baselines.fully_private import grid_threshold_scores, hypothesis_of
from ppm.grid import grid_points
from ppm.populations import is_synthetic
from ppm.semi_supervised import PlateauGridThresholds

CONFIGS = Path(__file__).resolve().parent.parent / "configs"


def _member(kind, k, g):
    """The class member ``(kind, k)`` of GridExponentialMechanism on the grid ``g``."""
    if kind == "ge":
        return lambda X: (X[:, 0] >= g[k]).astype(np.int64)
    if kind == "zeros":
        return lambda X: np.zeros(len(X), dtype=np.int64)
    return lambda X: (X[:, 0] < g[k]).astype(np.int64)


@pytest.mark.parametrize("T, plateau, cut", [(16, 0.15, 0.5), (37, 0.1, 0.3), (4, 0.2, 0.5)])
def test_each_threshold_errs_as_designed(T, plateau, cut):
    pop = PlateauGridThresholds(T=T, plateau=plateau, cut=cut)
    g, t0 = grid_points(T, 0.0, 1.0), pop.n_negative
    measured = np.array([pop.true_error(_member(*hypothesis_of(i, T), g))[0]
                         for i in range(2 * T)])
    np.testing.assert_allclose(measured, pop.class_errors(), atol=1e-12)
    # the design: 1[x >= g_k] errs by plateau everywhere but k = 0 (1/2) and k = T_0 (0)
    ge = measured[:T]
    assert ge[t0] == 0.0 and ge[0] == pytest.approx(0.5)
    assert np.allclose(np.delete(ge, [0, t0]), plateau)
    assert np.count_nonzero(measured < plateau - 1e-12) == 1  # one good threshold only
    assert np.count_nonzero(np.isclose(measured, plateau)) == T - 2


def test_sampling_matches_the_law():
    pop = PlateauGridThresholds(T=256, plateau=0.15, cut=0.5)
    n = 200_000
    X, y, public = pop.sample(n, random_state=1)
    ax, ay, mass = pop.atoms()
    # points are grid points bit for bit, labelled by the target; public iff label 0
    assert set(np.unique(X[:, 0])) == set(ax[:, 0])
    assert set(ax[:, 0]) <= set(grid_points(256, 0.0, 1.0))
    np.testing.assert_array_equal(y, pop.target_predict(X))
    np.testing.assert_array_equal(public, y == 0)
    counts = np.array([np.count_nonzero(X[:, 0] == a) for a in ax[:, 0]])
    sd = np.sqrt(n * mass * (1 - mass))
    assert np.all(np.abs(counts - n * mass) < 5 * sd), (counts, n * mass)
    np.testing.assert_allclose(mass, [0.35, 0.15, 0.15, 0.35])
    # the same seed gives the same sample
    np.testing.assert_array_equal(pop.sample(50, random_state=3)[0], pop.sample(50, 3)[0])


def test_the_exponential_mechanism_pays_ln_t_here():
    """On the sample holding each atom's expected count, the mechanism's odds against the target
    are ``sum_bad exp(-eps (m_h - m_target) / 2)``, dominated by the ``T - 2`` plateau thresholds:
    the odds grow like ``T`` (so the cost like ``ln T``)."""
    eps, n, plateau = 1.0, 200, 0.15
    odds = {}
    for b in (4, 10, 16):
        T = 2 ** b
        pop = PlateauGridThresholds(T=T, plateau=plateau)
        ax, ay, mass = pop.atoms()
        counts = np.round(n * mass).astype(int)
        m = grid_threshold_scores(np.repeat(ax[:, 0], counts), np.repeat(ay, counts),
                                  grid_points(T, 0.0, 1.0))
        good = pop.class_errors() <= 0.1
        assert good.sum() == 1 and m[good][0] == 0
        odds[b] = float(np.exp(-eps * (m[~good] - m[good][0]) / 2).sum())
        plateau_term = (T - 2) * math.exp(-eps * n * plateau / 2)
        assert odds[b] == pytest.approx(plateau_term, rel=1e-3)
    assert odds[16] / odds[4] == pytest.approx((2 ** 16 - 2) / 14, rel=1e-3)


@pytest.mark.parametrize("kwargs, match", [
    (dict(T=3), "'T' parameter"), (dict(plateau=0.5), "'plateau' parameter"),
    (dict(plateau=0.0), "'plateau' parameter"), (dict(plateau=True), "'plateau' parameter"),
    (dict(cut=1.0), "'cut' parameter"), (dict(T=4, cut=0.2), "need at least 2 on each side")])
def test_bad_parameters_get_one_line(kwargs, match):
    with pytest.raises(ValueError, match=match) as err:
        PlateauGridThresholds(**kwargs)
    assert "\n" not in str(err.value)


def test_bad_predict_gets_one_line():
    pop = PlateauGridThresholds(T=16)
    with pytest.raises(ValueError, match="shape"):
        pop.true_error(lambda X: np.zeros(3))
    with pytest.raises(ValueError, match="labels in"):
        pop.true_error(lambda X: np.full(len(X), 2))


def test_usable_from_the_configs():
    register_configs()
    with initialize_config_dir(config_dir=str(CONFIGS), version_base="1.3"):
        cfg = compose(config_name="config", overrides=[
            "experiment=c13_generic_domain_plateau", "population.T=256"])
    pop = instantiate(cfg.population)
    assert isinstance(pop, PlateauGridThresholds) and is_synthetic(pop)
    assert pop.params() == {"T": 256, "plateau": 0.15, "cut": 0.5}
    assert list(cfg.analysis.alphas) == [0.1] and cfg.analysis.alphas[0] < pop.plateau
    assert seeding.stable_name(cfg.population._target_) == \
        "ppm.semi_supervised.PlateauGridThresholds"
