"""PrivateActiveLearner (BNS15, Algorithm 4, Claim 5.7): sizes, oracle use, validation, API."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.base import clone

from ppm.populations import GridThresholds
from ppm.semi_supervised import PrivateActiveLearner
from ppm.semi_supervised.active import choose_queries, pool_size

T = 256


def _pool(n, seed=0):
    return GridThresholds(T=T, support=4).sample(n, random_state=seed)


@pytest.mark.parametrize("n_A, eps", [(100, 0.05), (2048, 0.1), (7, 1.0), (50, 3.0)])
def test_pool_size_formula(n_A, eps):
    assert pool_size(n_A, eps) == math.ceil((3 + math.exp(1)) * n_A / eps)


def test_subsample_and_query_sizes():
    q, u = choose_queries(1000, 120, 30, np.random.default_rng(0))
    assert q.size == 30 and u.size == 90
    both = np.concatenate([q, u])
    assert np.unique(both).size == 120 and both.min() >= 0 and both.max() < 1000


def test_fitted_sizes_and_label_queries():
    n_pool = pool_size(300, 0.5)
    X, y, p = _pool(n_pool + 10)
    est = PrivateActiveLearner(epsilon=0.5, n_A=300, n_queries=40, T=T, random_state=1)
    est.fit(X, y, p)
    assert est.n_pool_ == n_pool and est.n_label_queries_ == 40
    assert est.learner_.n_label_queries_ == 40 and est.learner_.n_unlabelled_ == 260


def test_only_the_queried_labels_and_the_first_n_pool_entries_are_read():
    """Replay the learner's first draw (the subset), then change every label that is not
    queried and every entry beyond n_pool: the output must not move."""
    n_A, t, eps, seed = 300, 40, 0.5, 11
    n_pool = pool_size(n_A, eps)
    X, y, p = _pool(n_pool + 50)
    a = PrivateActiveLearner(epsilon=eps, n_A=n_A, n_queries=t, T=T, random_state=seed)
    a.fit(X, y, p)
    queried, _ = choose_queries(n_pool, n_A, t, np.random.default_rng(seed))
    y2 = 1 - y
    y2[queried] = y[queried]
    X2 = X.copy()
    X2[n_pool:] = 0.0
    b = PrivateActiveLearner(epsilon=eps, n_A=n_A, n_queries=t, T=T, random_state=seed)
    b.fit(X2, y2, p)
    assert a.rule_ == b.rule_
    # and the queried labels do matter (the test can fail): flip them all
    y3 = y.copy()
    y3[queried] = 1 - y[queried]
    c = PrivateActiveLearner(epsilon=eps, n_A=n_A, n_queries=t, T=T, random_state=seed)
    assert c.fit(X, y3, p).rule_ != a.rule_


def test_default_queries_follow_the_formula():
    est = PrivateActiveLearner(epsilon=0.5, n_A=2048, T=T)
    s = math.ceil(2 * math.log(10) / 0.01)
    t = math.ceil(4 * (math.log(2 * s) + math.log(10)) / 0.1)
    assert est._n_queries() == t


def test_learns_and_is_deterministic():
    X, y, p = _pool(pool_size(2048, 0.2), seed=3)
    kw = dict(epsilon=0.2, n_A=2048, n_queries=128, T=T, random_state=5)
    a = PrivateActiveLearner(**kw).fit(X, y, p)
    b = PrivateActiveLearner(**kw).fit(X, y, p)
    assert a.rule_ == b.rule_
    assert GridThresholds(T=T, support=4).true_error(a.predict)[0] == 0.0
    assert clone(a).get_params() == a.get_params()


@pytest.mark.parametrize("kwargs, word", [
    ({"epsilon": 6.0}, "epsilon"), ({"epsilon": -1}, "epsilon"), ({"n_A": 1}, "n_A"),
    ({"n_queries": 300}, "n_queries"), ({"n_queries": 0}, "n_queries"), ({"T": 1}, "T"),
])
def test_bad_parameters_are_rejected_naming_the_value(kwargs, word):
    X, y, p = _pool(50)
    with pytest.raises(ValueError, match=word):
        PrivateActiveLearner(**{"n_A": 300, "n_queries": 10, "T": T, **kwargs}).fit(X, y, p)


def test_too_small_pool_is_rejected():
    X, y, p = _pool(100)
    with pytest.raises(ValueError, match="n_pool"):
        PrivateActiveLearner(epsilon=0.5, n_A=300, n_queries=10, T=T).fit(X, y, p)
