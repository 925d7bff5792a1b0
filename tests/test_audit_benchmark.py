"""The statistical audit on the public benchmark of known-buggy mechanisms (StatDP's and
DP-Sniper's: noisy max, the histogram, Lyu-Su-Li's SVT variants; tests/audit_benchmark.py):
correct mechanisms are flagged no more often than the test's level, every buggy one that an
oracle audit catches at a moderate run count is caught by the auditor within a small factor of
the oracle's runs, and a real-valued output needs its declared bins. The table of
docs/privacy_audits.md is ``python -m tests.audit_benchmark``."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from analysis import privacy_audit as pa
from tests import audit_benchmark as bench

PRIVATE = [b for b in bench.BENCHMARK if b[4]]
BUGGY = {b[0]: b for b in bench.BENCHMARK if not b[4]}
# The buggy mechanisms cheap enough for the suite (oracle <= ~30,000 runs); Lyu's Alg. 3 needs
# ~150,000 for the oracle and ~900,000 for the auditor (docs/privacy_audits.md): table only.
CHEAP = ["NoisyMax, Laplace, value", "NoisyMax, exponential, value", "Histogram, scale epsilon",
         "SVT, Lyu Alg. 4 (query noise not x c)", "SVT, Lyu Alg. 5 (no query noise)",
         "SVT, Lyu Alg. 6 (no cutoff)"]
RATIO = 8  # the auditor at RATIO x the oracle's runs (measured ratios: 0.5-6, the doc's table)


@pytest.mark.parametrize("name, mech, outcome, pairs, _", PRIVATE, ids=[b[0] for b in PRIVATE])
def test_correct_mechanisms_are_flagged_at_most_at_the_level(name, mech, outcome, pairs, _):
    """30 audits on their own seeds: at level 0.05 the number flagged is Binomial(30, <= 0.05);
    more than 4 has probability < 0.06 under the null (here, typically none is flagged)."""
    flagged = bench.caught(mech, outcome, pairs, 4000, range(30))
    assert flagged <= stats.binom.ppf(0.95, 30, pa.ALPHA), (name, flagged)


@pytest.mark.parametrize("name, mech, outcome, pairs, _", PRIVATE, ids=[b[0] for b in PRIVATE])
def test_the_oracle_sees_no_excess_loss_in_correct_mechanisms(name, mech, outcome, pairs, _):
    loss, p1, p2 = bench.oracle(mech, outcome, pairs, 200_000)
    assert loss <= bench.EPSILON + 0.05, (name, loss, p1, p2)


# where the ordered and learned families cost power (their held-out score beat the likelihood
# event's on the selection batch, not on the fresh runs): the full auditor catches 3 of 5 here,
# the likelihood family alone 4 of 5 (test below; docs/privacy_audits.md "Event families")
FAMILIES_COST = {"SVT, Lyu Alg. 4 (query noise not x c)"}


@pytest.mark.slow
@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(strict=True, reason="the families cost power here"))
    if n in FAMILIES_COST else n for n in CHEAP])
def test_each_buggy_mechanism_is_caught_near_the_oracles_run_count(name):
    _, mech, outcome, pairs, _ = BUGGY[name]
    loss, p1, p2 = bench.oracle(mech, outcome, pairs, 200_000)
    assert loss > bench.EPSILON  # the papers' verdict: not epsilon-DP, seen by the oracle
    o_runs = bench.oracle_runs(p1, p2)
    assert math.isfinite(o_runs)
    # evaluation runs per side such that the audit's total (selection + evaluation) is
    # RATIO x the oracle's total: total = 2 n_eval + 2 pairs n_select = 3 n_eval
    n_eval = max(200, int(RATIO * o_runs / 3))
    assert bench.caught(mech, outcome, pairs, n_eval, range(5)) >= 4, (name, o_runs)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(FAMILIES_COST))
def test_the_likelihood_family_alone_catches_where_the_families_cost_power(name):
    _, mech, outcome, pairs, _ = BUGGY[name]
    _, p1, p2 = bench.oracle(mech, outcome, pairs, 200_000)
    n_eval = max(200, int(RATIO * bench.oracle_runs(p1, p2) / 3))
    assert bench.caught(mech, outcome, pairs, n_eval, range(5), families=bench.LIKELIHOOD) >= 4


def test_oracle_power_is_monotone_and_calibrated():
    """The oracle's power at the event's own probabilities: near 0 without excess loss, rising
    with n where there is some."""
    assert bench.oracle_power(0.2, 0.2 * math.exp(-bench.EPSILON), 100_000) < 0.06
    low, high = (bench.oracle_power(0.1, 0.02, n) for n in (200, 2000))
    assert low < high and high > 0.95
    assert bench.oracle_runs(0.1, 0.1) == math.inf


def test_a_real_valued_benchmark_output_needs_its_bins():
    _, mech, outcome, pairs, _ = BUGGY["NoisyMax, Laplace, value"]
    with pytest.raises(ValueError, match="declare its discretisation"):
        pa.audit(mech, pairs, bench.EPSILON, n_select=50, n_eval=50)
    assert pa.audit(mech, pairs, bench.EPSILON, n_select=50, n_eval=50,
                    outcome=outcome).runs == 2 * 50 * len(pairs) + 2 * 50


def test_svt_variants_follow_their_algorithms():
    """Alg. 1 stops after its c-th "above" (-1: unanswered); Alg. 5 (no query noise) answers
    the same queries identically in a run; Alg. 3 releases values where the others release 1."""
    rng = np.random.default_rng(0)
    out1 = bench.svt(1)([5, 5, 5, 5, 5], 2000, rng)
    first_above = np.argmax(out1 == 1.0, axis=1)
    assert ((out1 == 1.0).sum(axis=1) <= bench.SVT_C).all()
    rows = np.arange(2000)[(out1 == 1.0).any(axis=1)]
    assert all((out1[r, first_above[r] + 1:] == -1000.0).all() for r in rows)
    out5 = bench.svt(5)([1, 1, 1, 1, 1], 500, rng)
    assert (out5 == out5[:, :1]).all()
    out3 = bench.svt(3)([5, 5, 5, 5, 5], 500, rng)
    assert set(np.unique(out3)) - {-100.0, -1000.0} and not np.isin(out3, [1.0]).all()
