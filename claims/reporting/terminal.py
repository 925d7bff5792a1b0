"""The verdict table as a terminal reads it: one line per claim, at most 100 columns.

``results/summary.md`` and ``summary.csv`` keep every word (cells of several hundred characters,
``claims/reporting/report.py``); what ``make reproduce`` / ``make figures`` print at the end is this
digest instead: the claim, its verdict word (long parenthetical explanations dropped) and the one
number that decides it (the headline measurement's first estimate with its interval), then
pointers to the full files. Claims made of audits only (kind "audit": C6, C7) and the audits
and checks of the other claims (the table's ``audits`` column) are listed apart, under
:data:`AUDIT_HEADER`: they are not evidence, and a failed one reads "FAILS" / "FAILED" there.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pandas as pd

from claims.base import SMOKE_PREFIX

WIDTH = 100
ELLIPSIS = "…"
# a parenthetical of at most this many characters stays in the verdict word ("(1 of 2 settings
# conclusive)"); longer ones (C4's precision argument, the real data's power analysis) go
KEEP_PAREN = 32
# the headline estimate: a number followed by its interval, e.g. "1.02 [0.82, 1.19]"
_ESTIMATE = re.compile(r"[-+]?\d[\d.]*(?:e[-+]?\d+)? \[[^\]]*\]")
_EQUALS = re.compile(r" = ([-+]?\d[\d.]*(?:e[-+]?\d+)?%?)")
_COUNT = re.compile(r"\d+/\d+")  # "violations 0/300"
AUDIT_HEADER = "audits and checks (not evidence: each can fail only through a bug):"


_CELL_LINE = re.compile(r"^(\[[^\]]*\] cell \d+/\d+ \w+ \()(.*)(\) \| elapsed .*)$")


def fit_line(line: str, width: int = WIDTH) -> str:
    """One line of a step's output in lines of at most ``width`` columns: a sweep's cell line
    (``[<sweep>] cell 7/16 done (<overrides>) | elapsed ..., ETA ...``) keeps its head and its
    clock and cuts its overrides (``…``); any other long line is wrapped at words, its
    continuations indented (a word longer than a line is broken)."""
    line = line.rstrip("\n")
    if len(line) <= width:
        return line
    m = _CELL_LINE.match(line)
    if m:
        head, middle, tail = m.groups()
        room = width - len(head) - len(tail) - 1
        if room >= 8:
            return head + middle[:room].rstrip() + "\u2026" + tail
    # tabs kept as they are (Hydra's job listing "[HYDRA] \t#0 : ..." stays greppable)
    return textwrap.fill(line, width=width, subsequent_indent="   ", break_long_words=True,
                         break_on_hyphens=False, expand_tabs=False, replace_whitespace=False)


def fit(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters (cut ones end in an ellipsis)."""
    text = " ".join(str(text).split())
    if len(text) <= width:
        return text
    return text[:max(0, width - 1)].rstrip() + ELLIPSIS


def verdict_word(verdict: str) -> str:
    """The verdict without its long top-level parenthetical explanations."""
    text = str(verdict).removeprefix(SMOKE_PREFIX)  # the digest says "smoke run" once, below
    out, group, depth = [], [], 0
    for ch in text:
        if ch == "(":
            depth += 1
        if depth:
            group.append(ch)
        else:
            out.append(ch)
        if ch == ")" and depth:
            depth -= 1
            if not depth:
                inner = "".join(group)
                if len(inner) - 2 <= KEEP_PAREN:
                    out.append(inner)
                group = []
    out.extend(group)  # an unclosed parenthesis: keep the text as it is
    return " ".join("".join(out).split()).replace(" ;", ";").replace(" ,", ",")


def deciding_number(measured) -> str:
    """The headline measurement's first estimate with its interval, else its first `` = x``,
    else its first count ``k/n``, else the start of the text."""
    text = "" if measured is None or (isinstance(measured, float) and pd.isna(measured)) \
        else str(measured)
    if text.startswith(("not run", "cannot be analysed")):
        return ""  # the verdict column says it
    m = _ESTIMATE.search(text)
    if m:
        return m.group(0)
    m = _EQUALS.search(text)
    if m:
        return m.group(1)
    m = _COUNT.search(text)
    if m:
        return m.group(0)
    return fit(text, 24)


def summary_lines(table: pd.DataFrame, root: Path | str, width: int = WIDTH,
                  smoke_note: str | None = None) -> list[str]:
    """The digest of a verdict table (``claims.reporting.report.verdict_table``'s columns ``claim``,
    ``verdict``, ``measured``): a header, one line per claim, then where the full table is.
    Every line fits ``width`` columns."""
    ids = [str(c) for c in table["claim"]]
    id_w = max([len("claim"), *map(len, ids)])
    verdicts = [verdict_word(v) for v in table["verdict"]]
    numbers = [deciding_number(m) for m in table.get("measured", [""] * len(table))]
    num_w = min(26, max([len("deciding number"), *map(len, numbers)]))
    verdict_w = width - id_w - num_w - 4
    kinds = [str(k) for k in table["kind"]] if "kind" in table else [""] * len(table)
    audits = ([("" if pd.isna(a) else str(a)) for a in table["audits"]] if "audits" in table
              else [""] * len(table))
    lines = [f"{'claim':<{id_w}}  {'verdict':<{verdict_w}}  {'deciding number':<{num_w}}".rstrip()]
    for cid, verdict, number, kind in zip(ids, verdicts, numbers, kinds):
        if kind == "audit":
            continue  # below, with the audits and checks: not evidence
        lines.append(f"{cid:<{id_w}}  {fit(verdict, verdict_w):<{verdict_w}}  "
                     f"{fit(number, num_w)}".rstrip())
    checked = [(cid, verdict if kind == "audit" else audit)
               for cid, verdict, kind, audit in zip(ids, verdicts, kinds, audits)
               if kind == "audit" or audit]
    if checked:
        lines.append(fit(AUDIT_HEADER, width))
        for cid, text in checked:
            lines.append(f"{cid:<{id_w}}  {fit(text, width - id_w - 2)}".rstrip())
    root = Path(root)
    lines += [fit(f"full table: {root / 'summary.md'} (long cells cut; every word in "
                  f"{root / 'summary.csv'})", width),
              fit(f"every setting of every claim: {root / 'summary_details.md'}", width)]
    if smoke_note:
        lines.append(fit(smoke_note, width))
    return lines
