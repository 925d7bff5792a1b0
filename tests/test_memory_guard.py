"""PPMHalfspaceLearner refuses a fit that cannot fit in memory before allocating it.

At d = 10 and n = 200 ConstrHalf alone would ask for tens of thousands of TiB; without the guard
the fit ran for about a minute and ended in numpy's ``MemoryError``. The refusals are checked to
come before the work they guard by replacing that work with a function that fails the test if
it is reached (no timing). The estimates (ppm/core/memory.py) are checked against
``tracemalloc``'s measured peak: lower bounds, and not loose ones.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import ppm.core.learner as learner_module
from ppm import PPMHalfspaceLearner
from ppm.core import memory
from ppm.core.halfspaces import construct_halfspaces
from ppm.core.learner import _scorer_kind, make_scorer
from ppm.populations import GaussianClusters


def _unreachable(what):
    def fail(*args, **kwargs):
        raise AssertionError(f"{what} was reached: the memory check must refuse before it")
    return fail


def _sample(d, n, seed=0):
    return GaussianClusters(d=d, w_pub=0.5, margin=0.1).sample(n, random_state=seed)


def test_d10_n200_is_refused_before_constrhalf(monkeypatch):
    X, y, public = _sample(10, 200)
    monkeypatch.setattr(learner_module, "construct_halfspaces", _unreachable("ConstrHalf"))
    with pytest.raises(ValueError) as err:
        PPMHalfspaceLearner(epsilon=1.0, random_state=0).fit(X, y, public=public)
    msg = str(err.value)
    k = len(np.unique(X[public], axis=0))
    assert "\n" not in msg
    assert f"ConstrHalf on {k} distinct public points in d = 10 needs at least" in msg
    assert memory.format_bytes(memory.construction_bytes(k, 10)) in msg
    assert "the physical memory" in msg


def test_the_default_limit_is_the_physical_memory(monkeypatch):
    X, y, public = _sample(2, 60)
    k = len(np.unique(X[public], axis=0))
    need = memory.construction_bytes(k, 2)
    monkeypatch.setattr(learner_module, "default_max_memory", lambda: need - 1)
    monkeypatch.setattr(learner_module, "construct_halfspaces", _unreachable("ConstrHalf"))
    with pytest.raises(ValueError, match="physical memory = "):
        PPMHalfspaceLearner(epsilon=1.0).fit(X, y, public=public)


def test_scorer_is_refused_before_the_membership_matrix(monkeypatch):
    """ConstrHalf fits, the scorer's arrays (membership matrix, bitsets) do not."""
    X, y, public = _sample(2, 3000)
    public = public & (np.cumsum(public) <= 20)  # 20 public points, 2980 private ones
    k = len(np.unique(X[public], axis=0))
    hs = construct_halfspaces(X[public])
    build = memory.construction_bytes(k, 2)
    score = memory.scorer_bytes(len(hs), len(y), int(np.sum(y == 0)), 2, "bitset")
    assert build < score
    limit = (build + score) // 2
    monkeypatch.setattr(learner_module, "make_scorer", _unreachable("make_scorer"))
    with pytest.raises(ValueError) as err:
        PPMHalfspaceLearner(epsilon=1.0, max_memory=limit).fit(X, y, public=public)
    msg = str(err.value)
    assert "\n" not in msg
    assert f"the bitset scorer of G ({len(hs)} halfspaces, n = 3000) needs at least" in msg
    assert f"max_memory = {memory.format_bytes(limit)}" in msg


def test_a_limit_above_the_estimates_changes_nothing():
    X, y, public = _sample(2, 80)
    base = PPMHalfspaceLearner(epsilon=1.0, random_state=3).fit(X, y, public=public)
    roomy = PPMHalfspaceLearner(epsilon=1.0, random_state=3, max_memory=1e12).fit(
        X, y, public=public)
    assert roomy.hypothesis_ == base.hypothesis_
    assert "max_memory" in PPMHalfspaceLearner._execution_params  # not in seeds or cell keys


@pytest.mark.parametrize("bad", [0, -1.0, "8GB", True, float("nan")])
def test_bad_max_memory_is_named(bad):
    X, y, public = _sample(1, 20)
    with pytest.raises(ValueError, match="'max_memory' parameter") as err:
        PPMHalfspaceLearner(max_memory=bad).fit(X, y, public=public)
    assert repr(bad) in str(err.value)


@pytest.mark.parametrize("d,k", [(1, 500), (2, 200), (3, 40), (4, 20), (5, 14)])
def test_construction_estimate_is_a_close_lower_bound(d, k):
    X = np.random.default_rng(d).normal(size=(k, d))
    construct_halfspaces(X[:5])  # compile the kernels outside the measurement
    tracemalloc.start()
    try:
        construct_halfspaces(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    estimate = memory.construction_bytes(k, d)
    assert estimate <= peak <= 2.5 * estimate, (estimate, peak)


@pytest.mark.parametrize("d,method", [(1, "auto"), (2, "auto"), (2, "blocked"), (2, "sweep"),
                                      (3, "bitset"), (2, "reference")])
def test_scorer_estimate_is_a_close_lower_bound(d, method):
    rng = np.random.default_rng(d)
    n = 2000
    X, y = rng.normal(size=(n, d)), rng.integers(0, 2, n)
    hs = construct_halfspaces(X[:40 if d < 3 else 15])
    make_scorer(hs, X[:10], y[:10], method)  # compile outside the measurement
    tracemalloc.start()
    try:
        make_scorer(hs, X, y, method)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    peak += hs.W.nbytes + hs.b.nbytes + hs.supports.nbytes  # built before, counted in it
    estimate = memory.scorer_bytes(len(hs), n, int(np.sum(y == 0)), d, _scorer_kind(hs, method))
    assert estimate <= peak <= 2.5 * estimate, (estimate, peak)
