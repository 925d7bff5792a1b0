"""Every interval that docs/results.md quotes as a measurement, "X [lo, hi]", is in the
committed results.

The prose of docs/results.md is hand-written, so nothing regenerates it when the summaries
change. This test reads every quoted triple ("1.03 [0.94, 1.09]", signed values and thousands
separators allowed) and looks for it, to the printed precision, in the committed
results/**/summary.csv files: either as a triple inside a text cell (measured, verdict,
grid_verdict, ...) or as the numeric columns slope/slope_lo/slope_hi or
grid_slope/grid_lo/grid_hi, each rounded to the digits the prose prints.

Exempt, by two narrow rules, are intervals that are not measurements of a summary row:
- a triple whose point value is preceded by the word "band" (a theory band, "band 0 [-0.25,
  0.25]"; a band without a point value, "band [1.75, 2.25]", is not a triple at all);
- a triple on a Markdown table row (a line starting with "|", e.g. a coverage table).
"""

import math
import re
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parent.parent
RESULTS_MD = ROOT / "docs" / "results.md"

# A number: optional sign, digits with optional thousands separators, optional decimals.
NUM = r"[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
TRIPLE = re.compile(rf"(?<![\w.\-+\[])({NUM}) \[({NUM}), ({NUM})\]")
NUMERIC_TRIPLES = [("slope", "slope_lo", "slope_hi"), ("grid_slope", "grid_lo", "grid_hi")]


def _value(text: str) -> float:
    return float(text.replace(",", ""))


def _decimals(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


def _exempt(line: str, start: int) -> bool:
    if line.lstrip().startswith("|"):
        return True
    return re.search(r"\bband\s*$", line[:start]) is not None


def quoted_triples(markdown: str) -> list[tuple[str, str, str, str]]:
    """(x, lo, hi, context) for every non-exempt "X [lo, hi]" of the page."""
    # Join wrapped paragraph lines so that a triple broken over two lines is still one; table
    # rows keep their own line.
    lines, out = [], []
    for raw in markdown.splitlines():
        if lines and raw.strip() and not raw.lstrip().startswith(("|", "#", "- "))\
                and lines[-1].strip() and not lines[-1].lstrip().startswith("|"):
            lines[-1] += " " + raw.strip()
        else:
            lines.append(raw)
    for line in lines:
        for m in TRIPLE.finditer(line):
            if not _exempt(line, m.start()):
                out.append((m.group(1), m.group(2), m.group(3), line[max(0, m.start() - 60):m.end()]))
    return out


def _close(value: float, quoted: str) -> bool:
    if not math.isfinite(value):
        return False
    return abs(value - _value(quoted)) <= 0.5 * 10 ** -_decimals(quoted) + 1e-9


def _matches(candidate: tuple[float, float, float], triple: tuple[str, str, str]) -> bool:
    return all(_close(v, q) for v, q in zip(candidate, triple))


def committed_triples() -> list[tuple[float, float, float]]:
    """Every triple of every committed summary: text cells and numeric slope columns."""
    found = []
    for path in sorted((ROOT / "results").rglob("summary.csv")):
        table = pd.read_csv(path)
        for column in table.columns:
            for cell in table[column].dropna():
                if isinstance(cell, str):
                    found += [tuple(map(_value, m.groups())) for m in TRIPLE.finditer(cell)]
        for cols in NUMERIC_TRIPLES:
            if set(cols) <= set(table.columns):
                found += [tuple(map(float, row)) for row in table[list(cols)].itertuples(index=False)]
    return found


def test_the_parser_reads_quoted_intervals():
    text = (
        "slope 1.03 [0.94, 1.09] (grid reading 1.02 [0.82, 1.19]); -0.83 [-0.94, -0.73];\n"
        "+0.123 [+0.046, +0.201] and 19,361 [15,999, 21,010]; band 0 [-0.25, 0.25];\n"
        "band [1.75, 2.25]\n| table | 0.95 [0.90, 0.97] |\n"
    )
    got = [t[:3] for t in quoted_triples(text)]
    assert got == [
        ("1.03", "0.94", "1.09"), ("1.02", "0.82", "1.19"), ("-0.83", "-0.94", "-0.73"),
        ("+0.123", "+0.046", "+0.201"), ("19,361", "15,999", "21,010"),
    ]
    assert _matches((1.0301, 0.9421, 1.0915), ("1.03", "0.94", "1.09"))
    assert not _matches((1.0301, 0.9421, 1.0915), ("1.03", "0.94", "1.10"))


def test_every_quoted_interval_is_in_the_committed_results():
    quoted = quoted_triples(RESULTS_MD.read_text())
    assert quoted, "no interval found: the parser no longer reads docs/results.md"
    committed = committed_triples()
    missing = [
        f"{x} [{lo}, {hi}]  (...{context})"
        for x, lo, hi, context in quoted
        if not any(_matches(c, (x, lo, hi)) for c in committed)
    ]
    assert missing == [], "docs/results.md quotes intervals not in results/**/summary.csv:\n" + "\n".join(missing)


if __name__ == "__main__":  # pragma: no cover
    pytest.main([__file__, "-q"])
