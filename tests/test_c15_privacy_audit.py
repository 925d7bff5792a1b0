"""C15's counted privacy row: the exact audit of the private active learner (BNS15 Algorithm 4,
Definition 5.3) with the real GenericLearner inside (:mod:`ppm.diagnostics.active_audit`).

The enumeration is tied to the learner's own code by sampling (the audit itself is exact): the
sanitizer's closed-form cover law against ``sanitize_thresholds`` with real Laplace noise, and
the whole of Algorithm 4 against ``PrivateActiveLearner.fit``. The loss function is checked on
hand-made laws, and the rule fails where it should: a learner without the pool, CAL, and a
release that reads a node the reduction ignores.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import ppm.diagnostics.active_audit as aa
from claims import c15_active as c15
from claims.rules.accounting import failed, row_kind
from claims.rules.verdicts import counted
from ppm.semi_supervised import PrivateActiveLearner
from ppm.semi_supervised.cover import threshold_cover
from ppm.semi_supervised.sanitizer import sanitize_thresholds
from tests import committed_rows

ROOT = Path(__file__).resolve().parents[1]
INNER = aa.Inner(epsilon=1.0, eps_san=1.0, eps_em=1.0, alpha0=0.1)


def _chi2_ok(observed: Counter, expected: dict, n: int) -> bool:
    keys = [k for k in expected if expected[k] * n > 5]
    obs = np.array([observed[k] for k in keys], dtype=float)
    exp = np.array([expected[k] * n for k in keys])
    exp *= obs.sum() / exp.sum()
    rare = n - obs.sum()  # outputs too rare for the test: their total must be rare too
    return stats.chisquare(obs, exp).pvalue > 1e-3 and rare <= 5 + 3 * math.sqrt(5)


@pytest.mark.parametrize("c0, n", [(0, 3), (2, 3), (1, 2)])
def test_cover_law_is_the_sanitizers_law_with_real_noise(c0, n):
    data = np.array([0] * c0 + [1] * (n - c0))
    rng = np.random.default_rng(c0 * 10 + n)
    draws = 4000
    seen = Counter(tuple(threshold_cover(sanitize_thresholds(data, 2, 1.0, 0.1, rng)))
                   for _ in range(draws))
    law = aa.cover_law(c0, n, 1.0, 0.1)
    assert sum(law.values()) == pytest.approx(1.0, abs=1e-12)
    assert set(seen) <= set(law)
    assert _chi2_ok(seen, law, draws)


def test_active_law_is_the_learners_law():
    """Algorithm 4 (PrivateActiveLearner.fit, T = 2) against the enumerated law of its pool."""
    eps, n_A, t = 2.0, 3, 2
    pool = np.array([2, 3, 1, 3])  # type counts of (0,0), (0,1), (1,0), (1,1): n_pool = 9
    assert pool.sum() == aa.pool_size(n_A, eps)
    X = np.repeat([0.0, 0.0, 1.0, 1.0], pool).reshape(-1, 1)
    y = np.repeat([0, 1, 0, 1], pool)
    perm = np.random.default_rng(1).permutation(X.shape[0])
    X, y = X[perm], y[perm]
    est = PrivateActiveLearner(epsilon=eps, n_A=n_A, n_queries=t, T=2)
    draws = 3000
    seen = Counter(est.set_params(random_state=s).fit(X, y).rule_ for s in range(draws))
    law = aa.active_laws(pool[None, :], n_A, t, aa.Inner.of(est))[0]
    assert law.sum() == pytest.approx(1.0, abs=1e-12)
    assert _chi2_ok(seen, dict(zip(aa.RULES, law)), draws)


def test_every_pools_law_sums_to_one():
    pools = aa.compositions(12)
    assert len(pools) == math.comb(15, 3) and (pools.sum(axis=1) == 12).all()
    laws = aa.active_laws(pools, 2, 1, INNER)
    assert np.allclose(laws.sum(axis=1), 1.0, atol=1e-12)


def test_worst_loss_on_hand_made_laws():
    pools = aa.compositions(1)  # the 4 one-entry pools: every pair is a neighbour
    odd = [i for i, p in enumerate(pools) if tuple(p) == (0, 1, 0, 0)][0]
    laws = np.zeros((4, len(aa.RULES)))
    laws[:, :2] = 0.5
    laws[odd, :2] = [0.25, 0.75]
    loss, i, j = aa.worst_loss(pools, laws)
    assert loss == pytest.approx(math.log(2))
    assert odd in (i, j) and i != j
    laws[odd] = [0, 1, 0, 0, 0]  # an output impossible on one neighbour: infinite loss
    assert aa.worst_loss(pools, laws)[0] == math.inf


def test_the_audit_fails_a_learner_without_amplification_and_cal():
    a = aa.audit_setting(0.25, 2, 1)
    assert a["loss"] <= 0.25 and a["loss"] <= a["claim_5_7_bound"] + aa.TOL
    assert a["no_pool_loss"] > 0.25  # Algorithm 4 without its pool: not 0.25-DP
    assert a["cal_loss"] == math.inf
    fake = [dict(a, loss=a["no_pool_loss"])]
    assert c15.privacy_verdict(fake).startswith("exact audit: FAILS")
    assert c15.privacy_verdict([a]) == f"exact audit: passes ({a['neighbour_pairs']} neighbouring pairs)"
    assert failed(c15.privacy_verdict(fake)) and not failed(c15.privacy_verdict([a]))
    assert c15.privacy_verdict([]) == "not measured"


def test_the_reduction_refuses_a_release_that_reads_another_node(monkeypatch):
    aa.release_pieces.cache_clear()
    real = aa.sanitize_thresholds

    def reads_root(k_idx, T, epsilon, alpha0, rng):
        out = real(k_idx, T, epsilon, alpha0, rng)
        return out if rng._root < 0 else np.zeros_like(out)

    class Replay(aa._NoiseReplay):
        def __init__(self, k_idx, L, z):
            super().__init__(k_idx, L, z)
            self._root = float(z[0][0])
    monkeypatch.setattr(aa, "sanitize_thresholds", reads_root)
    monkeypatch.setattr(aa, "_NoiseReplay", Replay)
    with pytest.raises(ValueError, match="node other than leaf 0"):
        aa.release_pieces(3, 1.0, 0.1)
    aa.release_pieces.cache_clear()


def test_committed_results_count_privacy_once_beside_the_label_rows(tmp_path_factory):
    rows = committed_rows.raw_rows(c15.CLAIM.id, tmp_path_factory)
    priv = [r for r in rows if r.extra == "privacy"]
    check = [r for r in rows if r.extra == "privacy check"]
    # an exact audit: shown in the audit section, never a statistical row
    assert len(priv) == 1 and priv[0].verdict.startswith("exact audit: passes")
    assert row_kind(priv[0].verdict, priv[0].extra) == "audit"
    assert "CAL" in priv[0].theory and "infinity" in priv[0].theory
    assert len(check) == 1 and not counted(check[0].verdict)
    # the label-query rows are fixed by construction (the active learner's flat count, the
    # foil's 1/epsilon): checks, so C15 counts no statistical row at all
    labels = [r for r in rows if r.extra in ("active", "generic")]
    assert labels and all(row_kind(r.verdict, r.extra) == "check" for r in labels)
    assert not any(row_kind(r.verdict, r.extra) == "statistical" and counted(r.verdict)
                   for r in rows)
