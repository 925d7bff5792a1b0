"""What a row is and whether it counts (claims/rules/accounting.py), and where the verdict table shows
it: audits and checks never in the statistical table, a band that cannot be missed not counted,
a fast interval meeting the alternative not counted, one fact one row (C9, C11, C13), bands
that read no measured value (C14, C16), and designs too small to conclude (C10, real data)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from claims import (c9_domain, c10_homogeneity, c11_set_cover, c12_grid_halfplanes,
                    c13_generic, c14_label_boost, real_breast_cancer)
from claims.rules.accounting import (as_check, audit_verdict, claim_verdict, could_fail, failed,
                                     faster_counts, row_kind, vacuous_edge)
from claims.base import VerdictRow, rows_frame
from claims.rules.outcomes import FASTER
from claims.registry import CLAIMS
from claims.reporting.report import AUDIT_HEADING, audit_rows, verdict_table, write_table
from claims.reporting.terminal import AUDIT_HEADER, summary_lines
from claims.rules.verdicts import combined_verdict, counted


def _row(claim, verdict, extra="", setting="s", **kw):
    return VerdictRow(claim=claim, figure="", setting=setting, paper="p", measured="m",
                      theory="t", verdict=verdict, extra=extra, **kw)


def test_audit_verdicts_say_what_they_are_and_fail_loudly():
    assert audit_verdict(True, 5246, "neighbouring pairs") == \
        "exact audit: passes (5246 neighbouring pairs)"
    bad = audit_verdict(False, 300, detail="2 above epsilon")
    assert bad.startswith("exact audit: FAILS (300 instances; 2 above epsilon") and failed(bad)
    assert row_kind(bad) == "audit" and row_kind("none", "privacy audit") == "audit"
    assert row_kind("check: passed") == "check" and row_kind("holds") == "statistical"
    assert claim_verdict([audit_verdict(True, 300)]) == ("exact audit: passes (300 instances)",
                                                         "audit")
    v, kind = claim_verdict(["holds", "holds", bad])
    assert kind == "statistical" and v.startswith("AUDIT FAILED (1 of 1") and "holds in 2" in v
    # the statistical combination never sees the audit
    assert claim_verdict(["holds", audit_verdict(True, 9)])[0] == combined_verdict(["holds"])


def test_an_audit_claim_with_construction_checks_says_both():
    """A claim whose rows are an audit and checks (constructions) says both: the audit's
    verdict, then that its other rows are checks only; a failed check is loud at the front."""
    ok = as_check("construction", True)
    v, kind = claim_verdict([audit_verdict(True, 77, "neighbouring pairs"), ok, ok])
    assert kind == "audit" and v.startswith("exact audit: passes (77 neighbouring pairs)")
    assert v.endswith("its other rows are checks only (2 of 2 passed)")
    v, _ = claim_verdict([audit_verdict(True, 77), ok, as_check("construction", False)])
    assert v.startswith("CHECK FAILED (1 of 2)") and failed(as_check("c", False))


def _details():
    rows = [_row("C1", "holds", d=1), _row("C1", "holds", d=2),
            _row("C6", audit_verdict(True, 300)), _row("C7", audit_verdict(True, 300)),
            _row("C15", "holds", extra="generic"),
            _row("C15", audit_verdict(True, 77, "neighbouring pairs"), extra="privacy",
                 setting="exact audit of Alg. 4"),
            _row("C15", "statistical audit: passes (1000 draws)", extra="privacy audit",
                 setting="privacy audit of the active learner"),
            _row("C16", "check: passed", setting="the foil")]
    return rows_frame(rows)


def test_audit_rows_never_appear_in_the_statistical_table(tmp_path):
    details = _details()
    table = verdict_table(details).set_index("claim")
    assert table.loc["C6", "verdict"] == "exact audit: passes (300 instances)"
    assert table.loc["C6", "kind"] == "audit" and table.loc["C1", "kind"] == "statistical"
    assert table.loc["C15", "verdict"] == "holds"  # the audits are not counted
    assert "77 neighbouring pairs" in table.loc["C15", "audits"]
    for c in CLAIMS:
        (tmp_path / c.name).mkdir()
    for cid, sub in details.groupby("claim"):
        name = next(c.name for c in CLAIMS if c.id == cid)
        sub.to_csv(tmp_path / name / "summary.csv", index=False)
    write_table(tmp_path)
    md = (tmp_path / "summary.md").read_text()
    stat, audits = md.split(AUDIT_HEADING)
    assert "C6" not in stat.split("[C1]: ")[0] and "| [C1] " in stat and "[C6]" not in stat
    assert "exact audit" not in stat and "statistical audit" not in stat
    for text in ("| C6 ", "| C7 ", "exact audit of Alg. 4", "privacy audit of the active",
                 "the foil"):
        assert text in audits
    assert len(audit_rows(details)) == 5  # C6, C7, two of C15, C16's check
    csv = pd.read_csv(tmp_path / "summary.csv")
    assert list(csv["claim"]).count("C6") == 1 and "kind" in csv


def test_terminal_lists_audits_apart_and_a_failed_one_loudly():
    details = _details()
    details.loc[details.claim == "C7", "verdict"] = audit_verdict(False, 300, detail="1 violation")
    lines = summary_lines(verdict_table(details), "results")
    head = lines.index(AUDIT_HEADER)
    assert not any(ln.startswith("C7 ") for ln in lines[:head])
    assert any(ln.startswith("C7") and "FAILS" in ln for ln in lines[head:])
    assert all(len(ln) <= 100 for ln in lines)


def test_a_band_it_cannot_miss_is_not_counted():
    # C16: the mechanism's coefficient 8.84e4 sits ~160x above the measured 544
    assert vacuous_edge(544.0, (1.0, 88400.0), (0.0, 0.0))
    v = could_fail("holds", 524.0, 565.0, 544.0, (1.0, 88400.0), (0.0, 0.0))
    assert v.startswith("check (") and not counted(v)
    # a band within reach stays evidence
    assert could_fail("holds", 0.6, 0.7, 0.68, (0.46, 1.25), (-0.25, 0.25)) == "holds"
    assert not counted(as_check("x", True)) and failed(as_check("x", False))


def test_c12_faster_row_meeting_the_alternative_band_is_not_counted():
    v = could_fail(FASTER, -0.06, 0.34, 0.15, (0.46, 1.25), (-0.25, 0.25))
    assert not counted(v) and v.startswith("breakdown")
    assert not faster_counts(-0.06, 0.34, (-0.25, 0.25))
    # one that excludes the alternative still counts
    assert could_fail(FASTER, 0.3, 0.4, 0.35, (0.46, 1.25), (-0.25, 0.25)) == FASTER
    fit = dict(slope=0.15, lo=-0.06, hi=0.34)
    assert not counted(c12_grid_halfplanes.counted_only_if_it_could_fail(FASTER, fit, 0.71))


def test_c11_counts_two_decoy_rows_not_six():
    rows = [_row("C11", "holds", extra=f"decoys, {c}; k", alpha=a)
            for a in (0.03, 0.05) for c in ("set_cover", "naive")]
    rows += [_row("C11", "holds", extra="decoys, gap naive - set_cover; k", alpha=a)
             for a in (0.03, 0.05)]
    c11_set_cover.one_fact_decoys(rows)
    kept = [r for r in rows if counted(r.verdict)]
    assert len(kept) == 2 and {r.alpha for r in kept} == {0.03}
    assert {r.extra for r in kept} == {"decoys, set_cover; k", "decoys, gap naive - set_cover; k"}


def test_c9_and_c13_count_one_row_per_question():
    rows = [_row("C9", "holds", extra="T 4..1048576", alpha=0.2),
            _row("C9", "inconclusive (x)", extra="T 4..1048576, paired contrast", alpha=0.1)]
    c9_domain.one_fact(rows)
    assert not counted(rows[0].verdict) and counted(rows[1].verdict)
    assert "design that would decide" in rows[1].theory and "CPU-hours" in rows[1].theory
    rows = [_row("C13", "holds", extra="labelled", alpha=0.1),
            _row("C13", "holds", extra="labelled contrast", alpha=0.1),
            _row("C13", "holds", extra="labelled", alpha=0.2),
            _row("C13", "holds", extra="labelled plateau", alpha=0.1),
            _row("C13", "holds", extra="labelled contrast plateau", alpha=0.1)]
    c13_generic.one_fact(rows)
    assert [counted(r.verdict) for r in rows] == [False, False, True, True, False]
    assert "CPU-hours" in rows[2].theory


def test_c14_bands_come_from_the_design_not_the_foil():
    steep, shallow = c14_label_boost.design_fall([2048, 4096, 8192, 16384])
    assert (steep, shallow) == pytest.approx((-0.4, -0.3))
    curve = pd.DataFrame({"n": [2048, 4096, 8192, 16384]})
    wrap = dict(slope=0.0, lo=-0.03, hi=0.03, n_points=4)
    # the foil falls by a different measured amount: the verdict does not move
    a = c14_label_boost.fixed_n_verdict(wrap, dict(slope=-0.3, lo=-0.31, hi=-0.29, curve=curve))
    b = c14_label_boost.fixed_n_verdict(wrap, dict(slope=-0.1, lo=-0.2, hi=-0.05, curve=curve))
    assert a == b == "holds"


def test_c10_failure_on_the_mixture_is_a_check():
    rng = np.random.default_rng(0)
    frames = []
    for eta, gap in ((0.5, 0.0), (0.0, 0.25)):
        for trial in range(40):
            e = rng.uniform(0.01, 0.03)
            for learner, err in (("ppm", e), ("semi_private", e + gap + rng.normal(0, 0.005))):
                frames.append(dict(n=256, trial=trial, learner=learner, error=err,
                                   **{"population.eta": eta, "population.d": 2}))
    trials = pd.DataFrame(frames).assign(shift=lambda t: 1 - 2 * t["population.eta"])
    parity, check = c10_homogeneity._row(trials, "semi_private", "semi-private", "x")
    # parity at shift 0 is a precondition: a check that passed, not evidence
    assert row_kind(parity.verdict) == "check" and not failed(parity.verdict)
    assert parity.verdict.startswith("check (precondition: parity") and not counted(parity.verdict)
    assert check.verdict == "check: passed" and not counted(check.verdict)


def test_real_data_too_small_to_conclude_is_not_counted():
    v = real_breast_cancer.at_this_size("inconclusive (interval straddles 0; x)", 0.11, 200, 369)
    assert not counted(v) and "cannot conclude at this size" in v
    assert real_breast_cancer.at_this_size("PPM better", 0.1, 200, 369) == "PPM better"
    assert math.isclose(369 / 200, 1.845)


def test_an_underpowered_audit_is_neither_a_pass_nor_a_failure():
    weak = audit_verdict(True, 12000, "runs", exact=False, detail="its 2x control was missed",
                         underpowered=True)
    assert weak == "statistical audit: UNDERPOWERED (12000 runs; its 2x control was missed)"
    assert not failed(weak) and row_kind(weak) == "audit"
    v, kind = claim_verdict([audit_verdict(True, 300), weak, audit_verdict(True, 9)])
    assert kind == "audit"
    assert v.startswith("audits: 2 of 3 pass, 1 UNDERPOWERED") and "AUDIT FAILED" not in v
    # a violation stays loud beside it
    bad = audit_verdict(False, 10, "runs", exact=False, detail="violated")
    assert claim_verdict([weak, bad])[0].startswith("AUDIT FAILED (1 of 2")
