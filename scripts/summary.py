"""The verdict table: one row per claim of the registry, from the per-claim summary CSVs.

    python -m scripts.summary --results results

Prints a digest that fits 100 columns (``claims/terminal.py``: claim, verdict word, the number
that decides it, and where the full tables are). Reads ``<results>/<claim>/summary.csv`` (written by ``scripts/figures.py``) and writes

- ``<results>/summary.csv`` and ``<results>/summary.md``: one row per claim: what the paper says,
  the headline measurement (with its interval), the theory's value, the looseness of the
  explicit bound (``n_theory / n_hat``, median over the measured points), the combined verdict
  over all settings of the claim, and the figure;
- ``<results>/summary_details.md``: every setting of every claim, with its own verdict;
- ``<results>/figures/overview.png``: every counted setting's measured interval against the
  band its claim predicts, one panel per claim (``claims/overview.py``).

The rules (headline setting, combined verdict) are in ``claims/report.py`` and
``claims/verdicts.py``. Claims whose experiments are not in the results root are listed as "not
run in this results root". In a quick-profile root (``<results>/PROFILE``, written by
``make reproduce PROFILE=quick``) every verdict reads "smoke run (quick profile): ..." and the
markdown tables open with a line saying that the quick profile decides nothing.

When ``--results`` is the committed ``results/`` of this repository, it then refreshes the
generated blocks of ``README.md`` and ``docs/`` (the README's verdict table, one page per claim
under ``docs/claims/``, the benchmark table: ``claims/docs_blocks.py``). A run on any other
results root (the quick profile, ``ARGS`` overrides, your own ``RESULTS=``) never edits them.
"""

from __future__ import annotations

if __name__ == "__main__":  # Ctrl-C: one line, exit 130, from before the slow imports
    from experiments.lifecycle import stop_on_ctrl_c
    stop_on_ctrl_c('the verdict table (scripts.summary)',
                   'rerun it (or make figures) to write the table')

import argparse
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only

from claims import docs_blocks, overview  # noqa: E402
from claims.base import is_smoke  # noqa: E402
from claims.report import write_table  # noqa: E402
from claims.terminal import summary_lines  # noqa: E402
from experiments.lifecycle import critical  # noqa: E402


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=Path("results"))
    args = parser.parse_args(argv)
    with critical():  # summary.md and summary_details.md are rewritten in place
        table = write_table(args.results)
    overview.draw(args.results)  # figures/overview.png: every counted setting, per claim
    # the terminal digest (100 columns); summary.md / summary.csv keep every word
    note = ("quick profile: a smoke run, no claim decided" if is_smoke(args.results) else None)
    print("\n".join(summary_lines(table, args.results, smoke_note=note)))
    if args.results.resolve() == (docs_blocks.ROOT / "results").resolve():
        with critical():  # README.md and docs/ are rewritten in place: never half written
            changed = docs_blocks.refresh(args.results, docs_blocks.ROOT)
        # at most 100 columns a line however many pages changed
        print(textwrap.fill("README.md / docs/: " + (f"refreshed {len(changed)} page(s): "
                                                     + ", ".join(changed) if changed
                                                     else "generated blocks up to date"),
                            width=100, subsequent_indent="  ", break_long_words=False,
                            break_on_hyphens=False))


if __name__ == "__main__":
    main()
