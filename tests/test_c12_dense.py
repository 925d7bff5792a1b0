"""C12 at the theorem's budget on the dense design (``c12_theorem_budget_dense``): the rule on
synthetic learners whose n_hat grows with log T or not at all (one counted row, alpha 0.1;
alpha 0.01 a breakdown; the pilot superseded), the bound's status read one-sided, the exact
round-one diagnostic, and the provenance of the committed row."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from analysis.aggregate import ERROR_COL
from analysis.sample_complexity import empirical_sample_complexity
from claims import c12_grid_halfplanes as c12, registry
from claims.rules.accounting import one_per_trial_set, row_kind
from claims.rules.verdicts import counted, outcome_kind
from experiments.columns import D, DELTA, EPSILON

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "configs" / "experiment"
BS = (6, 8, 10, 12, 14, 16, 18, 20)
NS = [round(2 ** (k / 8)) for k in range(106, 124)]


def _trials(threshold, exp, trials=40, spread=0.04, seed=0, ns=NS):
    """A Set Cover Learner whose trial-t success threshold at b is ``threshold(b) e^{spread z}``:
    error 0 from it on, 1/2 below (a probit in log n, so the fitted reading has no lack of
    fit)."""
    rng = np.random.default_rng(seed)
    rows = []
    for b in BS:
        thr = threshold(b) * np.exp(spread * rng.standard_normal(trials))
        for n in ns:
            for t in range(trials):
                rows.append((2 ** b, n, t, 0.0 if n >= thr[t] else 0.5))
    df = pd.DataFrame(rows, columns=[c12.T, "n", "trial", ERROR_COL])
    return df.assign(learner=c12.MAIN, experiment_name=exp,
                     **{EPSILON: 0.9, DELTA: 1e-6, D: 2, "error": df[ERROR_COL]})


class _Store:
    """The two experiments the theorem rows read, as ``ResultStore.load`` returns them."""

    def __init__(self, **data):
        self.n_boot = 40
        self._data = {}
        for exp, trials in data.items():
            nhat = empirical_sample_complexity(trials, [0.01, 0.1], 0.1, by=[c12.T],
                                               error_col=ERROR_COL)
            self._data[exp] = (trials, nhat.assign(learner=c12.MAIN))

    def load(self, exp):
        return self._data.get(exp)

    def has_any(self, exps):
        return any(e in self._data for e in exps)


def _log_t(b):
    return 1800.0 * b  # n_hat proportional to log T: slope 1 against log b


def _flat(b):
    return 25000.0


@pytest.fixture(scope="module")
def grows():
    return c12.theorem_rows(_Store(**{c12.DENSE: _trials(_log_t, c12.DENSE),
                                      c12.THEOREM: _trials(_log_t, c12.THEOREM, seed=1)}))


def _dense(rows, alpha):
    return next(r for r in rows if " dense" in r.extra and math.isclose(r.alpha, alpha))


def test_log_t_growth_holds_at_alpha_01_and_says_the_bound_status(grows):
    row = _dense(grows, 0.1)
    assert counted(row.verdict) and row_kind(row.verdict) == "statistical"
    assert outcome_kind(row.verdict) == "holds", row.verdict
    assert 0.7 < row.slope < 1.3
    assert "n_hat grows with log T" in row.verdict
    assert "the bound: Theorem 4.7's explicit bound (constant 1) holds with" in row.verdict
    assert "slack at every b" in row.verdict and row.trials == c12.DENSE


def test_alpha_001_is_a_breakdown_and_the_pilot_is_superseded(grows):
    low = _dense(grows, 0.01)
    assert not counted(low.verdict) and c12.EXACT_RECOVERY in low.verdict
    pilot = [r for r in grows if " dense" not in r.extra]
    assert len(pilot) == 2 and all(c12.SUPERSEDED in r.verdict for r in pilot)
    assert all(not counted(r.verdict) for r in pilot)


def test_one_counted_row_per_trial_set(grows):
    live = [r for r in one_per_trial_set(grows) if counted(r.verdict)
            and row_kind(r.verdict, r.extra) == "statistical"]
    assert [(r.trials, r.alpha) for r in live] == [(c12.DENSE, 0.1)]


def test_a_t_free_learner_is_faster_than_the_bound_and_not_counted():
    """An upper bound is not violated by a T-free cost: "faster than the worst case", and a
    breakdown, since its interval cannot exclude the T-free alternative."""
    rows = c12.theorem_rows(_Store(**{c12.DENSE: _trials(_flat, c12.DENSE, seed=2)}))
    row = _dense(rows, 0.1)
    assert not counted(row.verdict) and "faster than the worst case" in row.verdict
    assert abs(row.slope) < 0.25 and "holds with" in row.verdict  # the bound itself holds


def test_growth_faster_than_log_t_does_not_hold():
    wide = np.unique(np.geomspace(3000, 400000, 70).astype(int))
    rows = c12.theorem_rows(_Store(**{c12.DENSE: _trials(lambda b: 150.0 * b ** 2, c12.DENSE,
                                                         seed=4, ns=wide)}))
    row = _dense(rows, 0.1)
    assert counted(row.verdict) and outcome_kind(row.verdict) == "fails", row.verdict
    assert row.slope > 1.5


def test_without_the_dense_trials_the_pilot_counts_as_before():
    rows = c12.theorem_rows(_Store(**{c12.THEOREM: _trials(_log_t, c12.THEOREM, seed=3)}))
    assert len(rows) == 2 and all(c12.SUPERSEDED not in r.verdict for r in rows)
    assert all("the bound:" not in r.verdict for r in rows)


def test_bound_status_is_one_sided():
    assert c12.bound_status([6, 8], [10.0, 20.0], [100.0, 100.0]) == (
        "Theorem 4.7's explicit bound (constant 1) holds with 5x slack at every b (5x..10x)")
    over = c12.bound_status([6, 8], [10.0, 200.0], [100.0, 100.0])
    assert "EXCEEDED at b = 8" in over and "holds" not in over
    cens = c12.bound_status([6], [10.0], [100.0], censored=[8])
    assert "every measured b" in cens and "b = 8 n_hat is censored" in cens


def test_round_one_exact_reads_the_mechanism():
    lo, hi = c12.round_one_exact(12, [12000, 60000])
    # P[no error] <= P[error <= alpha]; both rise with n; past n = 128 Delta (~7000: two
    # missed negatives leave the window) the area ratio is geometry alone
    assert lo["p_exact"] <= lo["p_alpha"] and hi["p_exact"] <= hi["p_alpha"]
    assert lo["p_alpha"] < 0.1 and hi["p_exact"] > 0.95
    assert math.isclose(lo["area_ratio"], hi["area_ratio"], rel_tol=1e-9)


# --- provenance: the committed design and row -------------------------------------------------


def test_dense_config_is_its_own_trial_set_and_restored():
    cfg = yaml.safe_load((CONFIGS / f"{c12.DENSE}.yaml").read_text())
    pilot = yaml.safe_load((CONFIGS / f"{c12.THEOREM}.yaml").read_text())
    assert cfg["seed"] != pilot.get("seed", 20201206)
    params = cfg["hydra"]["sweeper"]["params"]
    assert [int(math.log2(int(t))) for t in str(params["population.T"]).split(",")] == list(BS)
    ns = [int(v) for v in str(params["n"]).split(",")]
    assert np.allclose(np.diff(np.log2(ns)), 1 / 8, atol=1e-3)
    quick = yaml.safe_load((CONFIGS / f"{c12.DENSE}_quick.yaml").read_text())
    assert quick["defaults"] == [c12.DENSE]
    assert c12.DENSE in c12.CLAIM.experiments and c12.DENSE in registry.restored_experiments()


COMMITTED = ROOT / "results" / c12.DENSE / "trials.csv"


@pytest.mark.skipif(not COMMITTED.exists(), reason="dense trials not committed")
def test_committed_trials_match_the_design():
    t = pd.read_csv(COMMITTED, usecols=["population.T", "n", "trial", "seed"])
    assert set(np.log2(t["population.T"]).astype(int)) == set(BS)
    assert set(t["n"]) == set(NS)
    assert t.groupby(["population.T", "n"])["trial"].nunique().eq(60).all()
    assert set(t["seed"]) == {20201412}


SUMMARY = ROOT / "results" / c12.EXPERIMENT / "summary.csv"


@pytest.mark.skipif(not SUMMARY.exists() or not COMMITTED.exists(), reason="not committed")
def test_committed_summary_counts_the_dense_row_once():
    s = pd.read_csv(SUMMARY)
    mine = s[s["trials"] == c12.DENSE]
    live = mine[[counted(v) and row_kind(v) == "statistical" for v in mine["verdict"]]]
    assert len(live) == 1 and math.isclose(live["alpha"].iloc[0], 0.1)
    assert "Theorem 4.7's explicit bound (constant 1)" in live["verdict"].iloc[0]
    assert live["statistic"].iloc[0] == c12.STATISTIC
    pilot = s[s["trials"] == c12.THEOREM]
    assert len(pilot) and all(c12.SUPERSEDED in v for v in pilot["verdict"])


ROUND_ONE = ROOT / "results" / c12.DENSE / c12.ROUND_ONE


@pytest.mark.skipif(not ROUND_ONE.exists(), reason="round-one table not committed")
def test_committed_round_one_table_recomputes():
    table = pd.read_csv(ROUND_ONE)
    row = table[(table.b == 12) & (table.n == 23170)].iloc[0]
    again = c12.round_one_exact(12, [23170])[0]
    for col in ("p_alpha", "p_exact", "area_ratio"):
        assert math.isclose(row[col], again[col], rel_tol=1e-9), col
