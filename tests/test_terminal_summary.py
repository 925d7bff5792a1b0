"""The verdict digest printed at the end of ``make reproduce`` / ``make figures`` fits a terminal.

The full verdict table has cells of hundreds of characters (summary.md, summary.csv); the
terminal gets one line per claim within 100 columns, with the verdict word and the deciding
number, and pointers to the full files.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from claims.registry import CLAIMS
from claims.reporting.terminal import AUDIT_HEADER, deciding_number, summary_lines, verdict_word

ROOT = Path(__file__).resolve().parents[1]


def test_verdict_word_drops_long_explanations_only():
    assert verdict_word("inconclusive (1 of 2 settings conclusive)") == \
        "inconclusive (1 of 2 settings conclusive)"
    long = ("inconclusive (cannot separate the ln|G| prediction from the d (VC) prediction at "
            "this precision; separating them needs more trials)")
    assert verdict_word(long) == "inconclusive"
    assert verdict_word("smoke run (quick profile): holds") == "holds"
    assert verdict_word("inconclusive (interval straddles 0; this design detects a difference "
                        "of 0.1 with 80% power) at epsilon 0.1; PPM better at epsilon 0.3") == \
        "inconclusive at epsilon 0.1; PPM better at epsilon 0.3"


@pytest.mark.parametrize("measured, number", [
    ("slope of log n_hat vs log(1/alpha) = 1.02 [0.82, 1.19]", "1.02 [0.82, 1.19]"),
    ("eps 0.1: PPM - DP-LR +0.077 [-0.005, +0.159], p = 0.064", "+0.077 [-0.005, +0.159]"),
    ("max privacy loss / epsilon = 0.9861 (at epsilon=3, d=1)", "0.9861"),
    ("violations 0/300; control: single halfspaces (j<=1) worse", "0/300"),
])
def test_deciding_number(measured, number):
    assert deciding_number(measured) == number


def test_committed_table_fits_100_columns():
    table = pd.read_csv(ROOT / "results" / "summary.csv")
    lines = summary_lines(table, "results")
    assert max(len(line) for line in lines) <= 100
    stat = table[table["kind"] != "audit"]  # audit-only claims are listed below, apart
    body = lines[1:1 + len(stat)]
    assert [line.split("  ")[0].strip() for line in body] == list(stat["claim"].astype(str))
    # the verdict starts in the first quarter of the line, not near column 580
    assert all(line.index(verdict_word(v)[:8]) < 25 for line, v in zip(body, stat["verdict"]))
    assert any("summary_details.md" in line for line in lines)


def test_the_summary_step_prints_the_digest(tmp_path, capsys):
    # the summary step (python -m scripts.summary) on a copy of the committed per-claim
    # summaries (never on results/ itself, which would refresh the README's generated blocks)
    for claim in CLAIMS:
        src = ROOT / "results" / claim.name / "summary.csv"
        if src.exists():
            (tmp_path / claim.name).mkdir()
            shutil.copy(src, tmp_path / claim.name / "summary.csv")
    from claims.reporting.summary import summarise
    summarise(tmp_path)
    out = capsys.readouterr().out.splitlines()
    assert out and max(map(len, out)) <= 100
    # one statistical line each; the audits and checks (C16's check, C6's audit) come below
    head = out.index(AUDIT_HEADER)
    assert sum(line.startswith(("C1 ", "C16 ")) for line in out[:head]) == 2
    assert not any(line.startswith(("C6 ", "C7 ")) for line in out[:head])
    assert any(line.startswith("C6 ") and "exact audit" in line for line in out[head:])
    assert (tmp_path / "summary.md").exists()


def test_claims_not_run_show_no_number():
    table = pd.DataFrame({"claim": ["C1", "C2"],
                          "verdict": ["holds", "not run in this results root"],
                          "measured": ["slope = 1.0 [0.9, 1.1]", "not run in this results root"]})
    lines = summary_lines(table, "results/quick", smoke_note="quick profile")
    assert lines[2].startswith("C2 ") and lines[2].count("not run") == 1  # no number column
    assert lines[2].rstrip().endswith("not run in this results root")
    assert lines[-1] == "quick profile"
