"""Provenance of C11-C16's rows (KMMS19, BNS15): what each row computes and which trials it
reads (``VerdictRow.statistic``, ``trials``), which rows share trials and are therefore counted
jointly (:func:`claims.rules.accounting.one_per_trial_set`), and the rows whose outcome a construction
fixes, which are checks, not evidence (:func:`claims.rules.accounting.as_check`)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from claims import (c11_set_cover as c11, c12_grid_halfplanes as c12, c13_generic as c13,
                    c14_label_boost as c14, c15_active as c15)
from claims.c16 import union_polygons as c16
from claims.rules.accounting import JOINT, failed, row_kind
from claims.base import parse_trial_set, share_trials
from claims.rules.verdicts import counted
from tests import committed_rows

ROOT = Path(__file__).resolve().parents[1]
MODULES = {"C11": c11, "C12": c12, "C13": c13, "C14": c14, "C15": c15, "C16": c16}


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    """Every claim's rows as the verdict table gets them (rule 4 applied), committed results."""
    out = {}
    for cid, mod in MODULES.items():
        # report.analyse on the committed results, once per test session (tests/committed_rows.py)
        out[cid] = committed_rows.rows(mod.CLAIM.id, tmp_path_factory)
        if out[cid] is None:
            pytest.skip(f"no committed {cid} results")
    return out


def _experiments(row) -> set:
    return {exp for exp, _ in parse_trial_set(row.trials)}


def _one(rows, pred):
    found = [r for r in rows if pred(r)]
    assert found, "no such row"
    return found


def test_every_row_names_its_statistic_and_trials(rows):
    for cid, rs in rows.items():
        # one id per computation, whatever the alpha: the same setting at two alphas shares it
        by_setting = {}
        for r in rs:
            by_setting.setdefault((r.extra, r.setting.split("alpha=")[0]), set()).add(r.statistic)
        assert all(len(ids) == 1 for ids in by_setting.values()), (cid, by_setting)
        assert rs
        for r in rs:
            assert r.statistic.strip() and r.trials.strip(), (cid, r.setting)
            assert re.fullmatch(r"(every\()?[a-z][a-z0-9_+]*\)?", r.statistic), r.statistic
            # an experiment of the claim, or a named table of results/ (the audits)
            mine = set(MODULES[cid].CLAIM.experiments)
            assert all(exp in mine or "/" in exp for exp in _experiments(r)), (cid, r.trials)


# --- constructions are checks --------------------------------------------------------------

def test_construction_rows_are_checks(rows):
    construction = {"C13": ("unlabelled",), "C14": ("base learner alone",),
                    "C15": ("active", "generic")}
    for cid, extras in construction.items():
        for extra in extras:
            for r in _one(rows[cid], lambda r: r.extra == extra):
                assert row_kind(r.verdict, r.extra) == "check", (cid, extra, r.verdict)
                assert "construction" in r.verdict and not failed(r.verdict)


def test_c15_counts_no_statistical_row_and_keeps_its_audit(rows):
    kinds = {row_kind(r.verdict, r.extra) for r in rows["C15"]}
    assert "statistical" not in kinds and "audit" in kinds and "check" in kinds
    audit = _one(rows["C15"], lambda r: r.extra == "privacy")[0]
    assert audit.statistic == c15.STAT_AUDIT and _experiments(audit) == {"privacy_audits/audit"}


def test_c15_theorem_5_6_constant_is_said_to_be_ours(rows):
    for r in _one(rows["C15"], lambda r: r.extra == "separation"):
        assert "assumed constant 1" in r.theory and "not BNS15's" in r.theory
        assert "no constant" in r.paper
        assert _experiments(r) == set(c15.EXPERIMENTS)
        # the smallest epsilon's cells only
        assert {sel["epsilon"] for _, sel in parse_trial_set(r.trials)} == {f"{r.epsilon:g}"}


def test_construction_checks_can_fail():
    flat = dict(slope=0.0, lo=-0.1, hi=0.1, n_points=5)
    steep = dict(slope=2.5, lo=2.3, hi=2.7, n_points=5)
    assert failed(c13.substitute_check(flat, 1.0))  # no growth: not our sanitizer's
    assert failed(c13.substitute_check(steep, 1.0))  # beyond b^1.5: not our sanitizer's
    assert not failed(c13.substitute_check(dict(slope=1.2, lo=1.0, hi=1.4, n_points=5), 1.0))
    assert failed(c15.by_construction(c15.ACTIVE, "does not hold", steep, 0.0))
    assert failed(c15.by_construction(c15.GL, "does not hold", flat, -1.0))
    assert not failed(c15.by_construction(c15.ACTIVE, "holds", flat, 0.0))
    assert failed(c14.base_check("does not hold")) and not failed(c14.base_check("holds"))


# --- which rows share trials ---------------------------------------------------------------

def _joints(rs):
    return [r for r in rs if r.setting.startswith(JOINT)]


def test_c11_decoy_rows_are_one_joint_row_and_the_d_rows_stay_apart(rows):
    rs = rows["C11"]
    decoy = _one(rs, lambda r: r.extra.startswith("decoys")
                 and "one of 2 readings" in r.verdict)  # the two formerly counted decoy rows
    assert {r.statistic for r in decoy} == {c11.STAT_K, c11.STAT_GAP}
    assert share_trials(decoy[0].trials, decoy[1].trials)
    (joint,) = _joints(rs)
    assert _experiments(joint) == {c11.DECOY} and row_kind(joint.verdict) == "statistical"
    d_rows = [r for r in rs if r.extra.endswith("; D") and row_kind(r.verdict) == "statistical"]
    assert len(d_rows) == 2 and not share_trials(d_rows[0].trials, d_rows[1].trials)
    assert not any(share_trials(d.trials, joint.trials) for d in d_rows)
    assert all(_experiments(d) == {c11.CLAIM.experiments[1]} for d in d_rows)


def test_c12_ppm_rows_are_one_trial_set_apart_from_the_set_cover_learner(rows):
    rs = rows["C12"]
    ppm = [r for r in rs if r.extra.startswith(c12.PPM + ";")]
    scl = [r for r in rs if r.extra.startswith(c12.MAIN + ";")]
    assert len(ppm) == 2 and share_trials(ppm[0].trials, ppm[1].trials)
    assert not any(share_trials(p.trials, s.trials) for p in ppm for s in scl)
    joints = _joints(rs)
    # the theorem-budget pilot is superseded by the dense design (one counted reading, alpha 0.1)
    assert {frozenset(_experiments(j)) for j in joints} == {frozenset({c12.EXPERIMENT})}
    grid = next(j for j in joints if _experiments(j) == {c12.EXPERIMENT})
    assert grid.trials == ppm[0].trials


def test_c13_counted_rows_read_different_experiments(rows):
    stat = [r for r in rows["C13"] if row_kind(r.verdict) == "statistical"]
    assert not _joints(rows["C13"]) and len(stat) == 2
    assert {frozenset(_experiments(r)) for r in stat} == {
        frozenset({c13.EXPERIMENTS[0]}), frozenset({c13.PLATEAU_EXP})}
    assert not share_trials(stat[0].trials, stat[1].trials)


def test_c14_fixed_n_rows_are_one_joint_row(rows):
    rs = rows["C14"]
    wrap = [r for r in rs if r.extra == "wrapper fixed n"]
    assert len(wrap) == 2 and all(_experiments(r) == {c14.FIXED_N} for r in wrap)
    assert share_trials(wrap[0].trials, wrap[1].trials)
    (joint,) = _joints(rs)
    assert joint.statistic == f"every({c14.STAT_FIXED})" and counted(joint.verdict)
    assert all(row_kind(r.verdict) == "breakdown" for r in wrap)


def test_c16_slope_and_foil_read_the_union_learners_runs(rows):
    rs = rows["C16"]
    foil = _one(rs, lambda r: r.extra == f"{c16.MAIN}; foil")[0]
    convex = _one(rs, lambda r: r.extra == f"{c16.CONVEX}; foil")[0]
    theorem = [r for r in rs if "theorem" in r.extra and row_kind(r.verdict) == "statistical"]
    (joint,) = _joints(rs)
    assert share_trials(joint.trials, foil.trials) and _experiments(joint) == {c16.EXPERIMENT}
    assert not share_trials(convex.trials, foil.trials)  # the foil learner's own runs
    assert len(theorem) == 1 and not share_trials(theorem[0].trials, joint.trials)
    assert row_kind(convex.verdict) == "check"
    assert math.isfinite(theorem[0].slope)
