"""Provenance of every verdict row (``statistic``, ``trials``) and the rule one trial set, one
counted row (claims.rules.accounting.one_per_trial_set), on synthetic rows and on committed results."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from claims.rules.accounting import (JOINT, intersection_union, joint_part_verdict,
                                     one_per_trial_set, row_kind)
from claims.base import VerdictRow, parse_trial_set, share_trials, trial_set
from claims.registry import CLAIMS
from claims.rules.verdicts import combined_verdict, counted

ROOT = Path(__file__).resolve().parent.parent


def _row(verdict, trials, alpha=float("nan"), statistic="slope", claim="CX", **kw):
    return VerdictRow(claim=claim, figure="", setting=f"alpha={alpha}", paper="p",
                      measured=f"slope = {alpha}", theory="t", verdict=verdict,
                      statistic=statistic, trials=trials, alpha=alpha, **kw)


def test_trial_sets_name_cells_and_overlap_only_where_cells_meet():
    t = trial_set(("real", {"epsilon": 0.3}), "c3", "c3")
    assert t == "c3;real[epsilon=0.3]"
    assert parse_trial_set(t) == [("c3", {}), ("real", {"epsilon": "0.3"})]
    assert not share_trials("real[epsilon=0.3]", "real[epsilon=1]")
    assert share_trials("real", "real[epsilon=1]")  # the whole sweep holds the cells
    assert share_trials("a;real[epsilon=1,n=5]", "real[n=5]")
    assert not share_trials("a", "b") and not share_trials("", "a")
    with pytest.raises(ValueError, match="not a trial set entry"):
        parse_trial_set("a[b=1")


def test_several_alphas_of_one_trial_set_count_once_and_only_when_every_one_holds():
    rows = [_row("holds", "e1", 0.05), _row("holds", "e1", 0.1),
            _row("inconclusive (x)", "e1", 0.2), _row("holds", "e2", 0.1)]
    out = one_per_trial_set(rows)
    live = [r for r in out if counted(r.verdict)]
    assert len(live) == 2  # the joint row of e1 and e2's own row
    joint = next(r for r in live if r.trials == "e1")
    assert joint.setting.startswith(JOINT) and "alpha 0.05, alpha 0.1, alpha 0.2" in joint.setting
    assert joint.statistic == "every(slope)" and joint.verdict.startswith("inconclusive")
    assert "2 hold, 1 inconclusive" in joint.verdict
    parts = [r for r in out if r.trials == "e1" and r is not joint]
    assert len(parts) == 3 and all(row_kind(r.verdict) == "breakdown" for r in parts)
    assert [joint_part_verdict(r.verdict) for r in parts] == ["holds", "holds",
                                                             "inconclusive (x)"]
    assert out.index(joint) < out.index(parts[0])  # the joint row stands before its parts
    assert combined_verdict([r.verdict for r in out]).startswith("inconclusive (1 of 2")


def test_the_intersection_union_reading():
    assert intersection_union(["holds", "holds"]) == "holds"
    assert intersection_union(["holds", "holds with caveat: x"]).startswith("holds with caveat")
    # an explanation in parentheses is not a caveat
    assert intersection_union(["holds (within a factor 1.25)", "holds"]) == "holds"
    assert intersection_union(["does not hold (a)", "does not hold (b)"]) == \
        "does not hold (at every one of its 2 readings)"
    mixed = intersection_union(["holds", "does not hold (a)"])
    assert mixed.startswith("inconclusive") and "1 hold, 1 do not hold" in mixed
    assert "every one of its 2 readings of one trial set is inconclusive" in \
        intersection_union(["inconclusive (a)", "inconclusive (b)"])


def test_rows_of_other_kinds_and_rows_alone_on_their_trials_are_untouched():
    rows = [_row("holds", "e1", 0.1), _row("check: passed", "e1", 0.2),
            _row("reference (ERM): holds", "e1", 0.3), _row("holds", "e2", 0.1)]
    out = one_per_trial_set(rows)
    assert [r.verdict for r in out] == [r.verdict for r in rows] and len(out) == 4


def test_rows_of_different_claims_may_share_trials():
    out = one_per_trial_set([_row("holds", "e1", claim="C1"), _row("holds", "e1", claim="C2")])
    assert [r.verdict for r in out] == ["holds", "holds"]


def test_a_counted_row_without_trials_is_refused():
    with pytest.raises(ValueError, match="names no trials"):
        one_per_trial_set([_row("holds", "")])


def _committed():
    frames = [pd.read_csv(ROOT / "results" / c.name / "summary.csv").assign(claim_name=c.name)
              for c in CLAIMS if (ROOT / "results" / c.name / "summary.csv").exists()]
    return pd.concat(frames, ignore_index=True)


def test_every_committed_row_names_its_statistic_and_its_trials():
    rows = _committed()
    for col in ("statistic", "trials"):
        missing = rows[rows[col].isna() | (rows[col].astype(str).str.strip() == "")]
        assert missing.empty, f"{col} missing: {missing[['claim', 'setting']].head().values}"
    table = pd.read_csv(ROOT / "results" / "summary.csv")
    assert {"statistic", "trials"} <= set(table.columns)


def test_no_claim_counts_two_rows_on_one_trial_set_in_the_committed_results():
    rows = _committed()
    extras = rows["extra"].fillna("").astype(str)
    live = rows[[row_kind(v, e) == "statistical" and counted(v)
                 for v, e in zip(rows["verdict"], extras)]]
    for claim, sub in live.groupby("claim"):
        trials = list(sub["trials"])
        for i in range(len(trials)):
            for j in range(i + 1, len(trials)):
                assert not share_trials(trials[i], trials[j]), (claim, trials[i], trials[j])


def test_a_joint_row_quotes_each_reading_without_cutting_a_parenthesis():
    rows = [_row("holds", "e1", 0.1), _row("holds", "e1", 0.2)]
    rows[0].measured = "slope = 1.0 [0.9, 1.1] (5 points; 2 censored); floor 48"
    joint = one_per_trial_set(rows)[0]
    assert "slope = 1.0 [0.9, 1.1] (5 points; 2 censored) -> holds" in joint.measured
