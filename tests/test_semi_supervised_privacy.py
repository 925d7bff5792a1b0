"""Privacy audits of BNS15's mechanisms that the per-module tests do not cover.

* The private active learner (Algorithm 4, Claim 5.7): its output distribution on neighbouring
  pools, computed EXACTLY by enumerating every (queried, unlabelled) subset the learner can
  draw, with an exactly computable 1-DP inner mechanism in place of GenericLearner; the
  log-ratio must be <= ln(1 + p (e - 1)) <= epsilon, p = n_A / n_pool. A sampled check ties the
  enumeration to the learner's own code (its draws follow the enumerated distribution).
* The sanitizer's release is a function of the noisy node counts only (post-processing), drawn
  with the Laplace scale 2(L + 1)/eps: with the same noisy nodes, neighbouring samples give the
  same output. With ``test_sanitizer_node_release_is_epsilon_dp_exactly`` (the node vector's
  density ratio) this is the exact audit of the sanitizer.
* A fitted private learner exposes only what its mechanisms released (no score, count or error
  computed from private data among its public attributes).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from ppm.semi_supervised import (BigGridThresholds, GapThresholdMechanism, GenericLearner,
                                 LabelBoostLearner, PrivateActiveLearner)
from ppm.semi_supervised.active import pool_size
from ppm.semi_supervised.sanitizer import noise_scale, node_counts, sanitize_thresholds, tree_depth

CUTS = np.array([0.0, 0.3, 0.6, 1.1])  # the probe's class: 1 iff x >= cut


def probe_log_probs(x_lab, y_lab, x_unl, epsilon=1.0):
    """Exact log P of the probe: EM with score mistakes(S) + #{unlabelled u >= cut}.

    Replacing one entry (labelled or unlabelled) moves every score by at most 1: 1-DP at
    ``epsilon = 1``, reading both parts as GenericLearner does.
    """
    pred = x_lab[:, None] >= CUTS[None, :]
    score = (pred != (y_lab[:, None] == 1)).sum(axis=0) + (x_unl[:, None] >= CUTS).sum(axis=0)
    logw = -epsilon * score / 2.0
    return logw - np.logaddexp.reduce(logw)


class Probe:
    """Stands in for the inner GenericLearner: draws from :func:`probe_log_probs`."""

    def __init__(self, random_state):
        self.rng = random_state

    def _validate_params(self):
        return None

    def _check_cross_params(self):
        return None

    def fit(self, X, y, X_unlabelled):
        p = np.exp(probe_log_probs(X[:, 0], y, X_unlabelled[:, 0]))
        self.rule_ = int(self.rng.choice(CUTS.size, p=p / p.sum()))
        self.threshold_ = float(CUTS[self.rule_])
        self.n_hypotheses_ = CUTS.size
        return self


def active_distribution(X, y, n_pool, n_A, t):
    """Exact output distribution of Algorithm 4 around the probe: uniform over the disjoint
    (queried t-set, unlabelled (n_A - t)-set) pairs of the first ``n_pool`` entries.

    Vectorised: the probe's score is a sum over entries of a per-entry vector (its mistakes
    when queried, its count when unlabelled), so every pair's scores are two gathered sums.
    """
    x = X[:n_pool, 0]
    lab = (x[:, None] >= CUTS[None, :]) != (y[:n_pool, None] == 1)  # mistakes if queried
    unl = x[:, None] >= CUTS[None, :]  # counts if unlabelled
    qs, us = [], []
    for q in itertools.combinations(range(n_pool), t):
        rest = [i for i in range(n_pool) if i not in q]
        for u in itertools.combinations(rest, n_A - t):
            qs.append(q)
            us.append(u)
    score = lab[np.array(qs)].sum(axis=1) + unl[np.array(us)].sum(axis=1)
    logw = -score / 2.0  # the probe at epsilon = 1
    logp = logw - np.logaddexp.reduce(logw, axis=1, keepdims=True)
    return np.exp(logp).mean(axis=0)


def worst_log_ratio(X, y, n_pool, n_A, t):
    """max over neighbouring pools (one entry's x and y replaced) of the output log-ratio."""
    base = np.log(active_distribution(X, y, n_pool, n_A, t))
    worst = 0.0
    for i, new_x, new_y in itertools.product(range(n_pool), (0.1, 0.5, 0.9), (0, 1)):
        X2, y2 = X.copy(), y.copy()
        X2[i, 0], y2[i] = new_x, new_y
        other = np.log(active_distribution(X2, y2, n_pool, n_A, t))
        worst = max(worst, float(np.max(np.abs(base - other))))
    return worst


def _pool(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.choice([0.1, 0.5, 0.9], size=(n, 1))
    return X, (X[:, 0] >= 0.3).astype(np.int64)


@pytest.mark.parametrize("epsilon, n_A, t", [(0.5, 2, 1), (2.0, 3, 1)])
def test_active_learner_output_is_epsilon_dp_exactly(epsilon, n_A, t):
    n_pool = pool_size(n_A, epsilon)
    X, y = _pool(n_pool, seed=n_A)
    worst = worst_log_ratio(X, y, n_pool, n_A, t)
    p = n_A / n_pool
    assert worst <= math.log(1 + p * (math.e - 1)) + 1e-12  # Claim 5.7's amplification
    assert worst <= epsilon
    # the audit has teeth: without the pool (n_pool = n_A) the probe's 1-DP is not amplified
    unamplified = worst_log_ratio(X[:n_A], y[:n_A], n_A, n_A, t)
    assert unamplified > 2.5 * worst


def test_active_learner_draws_follow_the_enumerated_distribution(monkeypatch):
    """The enumeration above is the learner's own code path: chi-square on its outputs."""
    epsilon, n_A, t = 2.0, 3, 1
    n_pool = pool_size(n_A, epsilon)
    X, y = _pool(n_pool + 4, seed=7)  # entries beyond n_pool are never read
    monkeypatch.setattr(PrivateActiveLearner, "_inner", lambda self, rng: Probe(rng))
    est = PrivateActiveLearner(epsilon=epsilon, n_A=n_A, n_queries=t, T=16)
    draws = np.array([est.set_params(random_state=s).fit(X, y).rule_ for s in range(1500)])
    expected = active_distribution(X, y, n_pool, n_A, t) * draws.size
    observed = np.bincount(draws, minlength=CUTS.size)
    keep = expected > 5
    assert stats.chisquare(observed[keep], expected[keep] * observed[keep].sum()
                           / expected[keep].sum()).pvalue > 1e-3


class NoiseReplay:
    """A Generator stand-in whose Laplace draws make the noisy node counts equal ``z``."""

    def __init__(self, k_idx, L, z):
        self.targets = iter(zip(node_counts(k_idx, L), z))
        self.scales = []

    def laplace(self, loc, scale, size):
        counts, target = next(self.targets)
        assert loc == 0.0 and size == counts.size
        self.scales.append(scale)
        return target - counts


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_sanitizer_release_is_post_processing_of_the_noisy_nodes(epsilon):
    T, alpha0 = 16, 0.3
    L = tree_depth(T)
    rng = np.random.default_rng(0)
    data = rng.integers(0, T, size=12)
    z = [c + rng.laplace(0, noise_scale(L, epsilon), c.size) for c in node_counts(data, L)]
    out = sanitize_thresholds(data, T, epsilon, alpha0, NoiseReplay(data, L, z))
    for i, new in itertools.product(range(data.size), (0, 7, 15)):
        other = data.copy()
        other[i] = new
        replay = NoiseReplay(other, L, z)
        assert np.array_equal(sanitize_thresholds(other, T, epsilon, alpha0, replay), out)
        assert replay.scales == [2 * (L + 1) / epsilon] * (L + 1)


def _released(est) -> set:
    return {a for a in vars(est) if a.endswith("_") and not a.startswith("_")}


def test_fitted_learners_expose_only_released_values():
    """Public learned state = the mechanisms' outputs and sizes fixed by the input shape or the
    parameters; nothing else (adding e.g. a score of the output must update this list)."""
    rng = np.random.default_rng(1)
    X = rng.uniform(0, 1, size=(60, 1))
    y = (X[:, 0] >= 0.5).astype(np.int64)
    U = rng.uniform(0, 1, size=(80, 1))
    gl = GenericLearner(T=64, random_state=0).fit(X, y, X_unlabelled=U)
    assert _released(gl) == {"classes_", "sanitized_", "cover_", "rule_", "threshold_",
                             "n_hypotheses_", "n_sanitized_", "epsilon_sanitizer_",
                             "epsilon_mechanism_",
                             "n_label_queries_", "n_unlabelled_", "n_features_in_"}
    # the cover and its size are functions of the released D~ alone
    from ppm.semi_supervised.cover import threshold_cover
    assert gl.cover_ == threshold_cover(gl.sanitized_) and gl.n_hypotheses_ == len(gl.cover_)
    pool_X = rng.uniform(0, 1, size=(pool_size(20, 1.0), 1))
    act = PrivateActiveLearner(epsilon=1.0, n_A=20, n_queries=5, T=64, random_state=0)
    act.fit(pool_X, (pool_X[:, 0] >= 0.5).astype(np.int64))
    assert _released(act) == {"classes_", "learner_", "rule_", "threshold_", "n_hypotheses_",
                              "n_pool_", "n_label_queries_", "n_features_in_"}
    pop = BigGridThresholds(b=64, support=5)
    Xb, yb, _ = pop.sample(50, random_state=0)
    gap = GapThresholdMechanism(b=64, random_state=0).fit(Xb, yb)
    assert _released(gap) == {"classes_", "hypothesis_", "threshold_", "log_n_hypotheses_",
                              "n_features_in_"}
    lb = LabelBoostLearner(b=64, base_n=40, random_state=0).fit(Xb, yb)
    assert _released(lb) == {"classes_", "fail_reason_", "failed_", "rounds_",
                             "n_unlabelled_used_", "n_features_in_", "base_", "hypothesis_"}
    assert _released(lb.base_) == _released(gap)
