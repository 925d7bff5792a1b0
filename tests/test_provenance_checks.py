"""Provenance (``VerdictRow.statistic`` / ``trials``) of C4, C6, C7, C10, the privacy audits and
the real data: which rows read common trials, and which rows are checks.

The rows are analysed from the committed results (skipped where they are absent); C10's parity
rows are also built on synthetic trials, so the check/fail logic is tested without them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from claims import c6_privacy, c10_homogeneity, real_breast_cancer
from claims.c4 import dimension as c4_dimension, mechanism as c4_mechanism, price as c4_price
from claims.rules.accounting import failed, row_kind
from claims.base import ResultStore, parse_trial_set, share_trials
from claims.rules.verdicts import counted
from tests import committed_rows

RESULTS = Path(__file__).resolve().parents[1] / "results"
MINE = ("C4", "C6", "C7", "C10", "PA", "real data")


@pytest.fixture(scope="module")
def store():
    return ResultStore(RESULTS, n_boot=20)


@pytest.fixture(scope="module")
def analysed(tmp_path_factory):
    """The analysed rows (after the one-per-trial-set rule) of every claim that can be read:
    ``report.analyse`` on the committed results, once per test session (tests/committed_rows.py)."""
    out = {}
    for cid in MINE:
        rows = committed_rows.rows(cid, tmp_path_factory)
        if rows is not None:
            out[cid] = rows
    if not out:
        pytest.skip("no committed results")
    return out


def test_every_row_names_its_statistic_and_trials(analysed):
    for cid, rows in analysed.items():
        assert rows, cid
        for r in rows:
            assert str(r.statistic).strip(), (cid, r.setting)
            assert parse_trial_set(r.trials), (cid, r.setting)
            # stable ids: snake_case (or the joint's every(...)), never a number in them
            assert not any(ch.isdigit() for ch in r.statistic.replace("4_6", "")), r.statistic


def test_real_data_rows_at_different_epsilons_read_different_trials(analysed):
    if "real data" not in analysed:
        pytest.skip("no real-data results")
    allrows = [r for r in analysed["real data"] if np.isfinite(r.epsilon)]
    # each comparison (the fair DP baseline, diffprivlib's reference) reads its own sweep
    for r in allrows:
        exps = {exp for exp, _ in parse_trial_set(r.trials)}
        assert len(exps & set(real_breast_cancer.CLAIM.experiments)) == 1, r.trials
    rows = [r for r in allrows if not r.verdict.startswith("reference")]
    assert len({r.epsilon for r in rows}) >= 2
    for r in rows:
        # narrowed to its own epsilon in every part
        assert all(float(sel["epsilon"]) == r.epsilon for _, sel in parse_trial_set(r.trials))
    for i, a in enumerate(rows):
        for b in rows[i + 1:]:
            assert not share_trials(a.trials, b.trials), (a.epsilon, b.epsilon)
    # hence no joint row: each counted epsilon is its own row
    assert not any(r.statistic.startswith("every(") for r in analysed["real data"])


def test_c4_epsilon_fit_rows_at_different_alphas_share_trials(store):
    if store.load(c4_mechanism.EPSILON_FIT) is None:
        pytest.skip("no c4_epsilon_fit results")
    rows = c4_mechanism.epsilon_fit_rows(store)
    assert len({r.alpha for r in rows}) >= 2
    for r in rows:
        exps = {exp for exp, _ in parse_trial_set(r.trials)}
        assert exps == {e for e in c4_mechanism.EPSILON_FIT_SWEEPS if store.load(e) is not None}
        assert exps <= set(c4_dimension.CLAIM.experiments)
        assert row_kind(r.verdict, r.extra) == "check"
    assert share_trials(rows[0].trials, rows[-1].trials)
    assert rows[0].statistic == rows[-1].statistic


def test_c4_counts_the_nested_price_table_once_and_the_blind_d4_row_as_a_breakdown(analysed):
    """C4's one counted row: the exponent in d on the nested price table (n_pub moves). The
    blind d = 4 prediction holds n_pub at 12 and its coverage is not measured: a breakdown that
    names the d = 4 rows it measures and the d = 3 rows its prediction was made from."""
    if "C4" not in analysed:
        pytest.skip("no C4 results")
    from claims.c4 import blind as c4_blind
    from analysis import mechanism_price
    live = [r for r in analysed["C4"]
            if row_kind(r.verdict, r.extra) == "statistical" and counted(r.verdict)]
    assert [r.statistic for r in live] == [c4_price.STAT_K_EFF]
    if (RESULTS / mechanism_price.CSV_GPU).exists():
        (blind,) = [r for r in analysed["C4"] if r.statistic == c4_blind.STAT_D4]
        assert row_kind(blind.verdict) == "breakdown", blind.verdict
        assert parse_trial_set(blind.trials) == [(mechanism_price.CSV.removesuffix(".csv"), {}),
                                                 (mechanism_price.CSV_GPU.removesuffix(".csv"),
                                                  {})]
        assert not share_trials(live[0].trials, blind.trials)
    live = live[:1]
    assert live[0].extra == "counted test"
    from analysis import mechanism_price
    assert mechanism_price.NESTED_CSV.removesuffix(".csv") in {e for e, _ in
                                                              parse_trial_set(live[0].trials)}
    # the breakdowns at the other epsilons read the same samples: same trials, not counted
    others = [r for r in analysed["C4"] if r.statistic == c4_price.STAT_K_EFF_BY_EPS]
    assert others and all(share_trials(r.trials, live[0].trials) for r in others)
    assert all(row_kind(r.verdict) == "breakdown" for r in others)


def test_pa_ppm_audit_names_the_c6_audit_table(analysed):
    if "PA" not in analysed or "C6" not in analysed:
        pytest.skip("no audit results")
    ppm = [r for r in analysed["PA"] if "PPMHalfspaceLearner" in r.setting]
    assert len(ppm) == 1 and share_trials(ppm[0].trials, analysed["C6"][0].trials)
    others = [r for r in analysed["PA"] if r is not ppm[0]]
    # each learner's audit is its own runs
    assert not any(share_trials(a.trials, b.trials)
                   for i, a in enumerate(others) for b in others[i + 1:])
    assert c6_privacy.AUDIT.removesuffix(".csv") == analysed["C6"][0].trials


def _c10_trials(gap0: float, trials: int = 40) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    frames = []
    for eta, gap in ((0.5, gap0), (0.0, 0.25)):
        for trial in range(trials):
            e = rng.uniform(0.01, 0.03)
            for learner, err in (("ppm", e), ("semi_private", e + gap + rng.normal(0, 0.005))):
                frames.append(dict(n=256, trial=trial, learner=learner, error=err,
                                   **{"population.eta": eta, "population.d": 2}))
    return pd.DataFrame(frames).assign(shift=lambda t: 1 - 2 * t["population.eta"])


@pytest.mark.parametrize("gap0, passes", [(0.0, True), (0.06, False)])
def test_c10_shift0_parity_is_a_check_that_can_fail(gap0, passes):
    parity, mixture = c10_homogeneity._row(_c10_trials(gap0), "semi_private", "semi-private",
                                           "c10_homogeneity")
    # met: a check that passed; not met: a property of that baseline, shown as a reference
    # row (never "check: FAILED", which says "a bug")
    assert row_kind(parity.verdict, parity.extra) == ("check" if passes else "reference")
    assert not failed(parity.verdict) and not counted(parity.verdict)
    # the failure at shift 1 is a check only where parity holds; else it is no failure of the
    # mixture alone: a reference row
    assert row_kind(mixture.verdict, mixture.extra) == ("check" if passes else "reference")
    assert not failed(mixture.verdict)
    # the two rows read different cells of the sweep (shift 0 vs shift 1)
    assert not share_trials(parity.trials, mixture.trials)
    assert {e for e, _ in parse_trial_set(parity.trials)} <= set(
        c10_homogeneity.CLAIM.experiments)


def test_c10_committed_rows_are_checks_and_a_finding(analysed):
    if "C10" not in analysed:
        pytest.skip("no C10 results")
    rows = analysed["C10"]
    # the baseline not built to fail (semi_private_all), reading both cells of c10_homogeneity
    # at its largest n, is a finding (shown, not counted); every other row is a check or a
    # reference: nothing counted
    fair = [r for r in rows if r.extra.endswith("fair baseline")]
    rest = [r for r in rows if r not in fair]
    assert len(fair) == 1 and not counted(fair[0].verdict)
    assert row_kind(fair[0].verdict, fair[0].extra) == "reference"
    assert {sel.get("shift") for _, sel in parse_trial_set(fair[0].trials)} == {"0", "1"}
    shift0 = [r for r in rest if all(sel.get("shift") == "0"
                                     for _, sel in parse_trial_set(r.trials))]
    assert len(shift0) == len(rest) // 2 >= 1
    kinds = {row_kind(r.verdict, r.extra) for r in rest}
    assert "check" in kinds and kinds <= {"check", "reference"}
    assert not any(counted(r.verdict) for r in rest)
