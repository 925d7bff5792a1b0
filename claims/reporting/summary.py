"""The verdict table, the overview figure and the generated docs from the per-claim summaries
(``python -m scripts.summary``, ``make figures``).

:func:`summarise` reads ``<results>/<claim>/summary.csv`` (:mod:`claims.reporting.figures`
writes them), writes ``<results>/summary.{csv,md}`` and ``summary_details.md``
(:func:`claims.reporting.report.write_table`) and ``figures/overview.png``
(:mod:`claims.reporting.overview`), prints the 100-column digest
(:mod:`claims.reporting.terminal`) and, when the root is this repository's committed
``results/``, refreshes the generated blocks of README.md and docs/
(:mod:`claims.reporting.docs_blocks`); any other results root never edits them.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from claims.base import is_smoke
from claims.reporting import docs_blocks, overview
from claims.reporting.report import write_table
from claims.reporting.terminal import summary_lines
from experiments.lifecycle import critical


def summarise(root: Path) -> None:
    """The verdict table of the results root ``root`` and what is drawn and printed from it
    (module docstring)."""
    with critical():  # summary.md and summary_details.md are rewritten in place
        table = write_table(root)
    overview.draw(root)  # figures/overview.png: every counted setting, per claim
    # the terminal digest (100 columns); summary.md / summary.csv keep every word
    note = ("quick profile: a smoke run, no claim decided" if is_smoke(root) else None)
    print("\n".join(summary_lines(table, root, smoke_note=note)))
    if root.resolve() == (docs_blocks.ROOT / "results").resolve():
        with critical():  # README.md and docs/ are rewritten in place: never half written
            changed = docs_blocks.refresh(root, docs_blocks.ROOT)
        # at most 100 columns a line however many pages changed
        print(textwrap.fill("README.md / docs/: " + (f"refreshed {len(changed)} page(s): "
                                                     + ", ".join(changed) if changed
                                                     else "generated blocks up to date"),
                            width=100, subsequent_indent="  ", break_long_words=False,
                            break_on_hyphens=False))
