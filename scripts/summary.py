"""The verdict table: one row per claim of the registry, from the per-claim summary CSVs.

    python -m scripts.summary --results results

Prints a digest that fits 100 columns (``claims/reporting/terminal.py``: claim, verdict word,
the number that decides it, and where the full tables are). Reads
``<results>/<claim>/summary.csv`` (written by ``scripts/figures.py``) and writes

- ``<results>/summary.csv`` and ``<results>/summary.md``: one row per claim: what the paper says,
  the headline measurement (with its interval), the theory's value, the looseness of the
  explicit bound (``n_theory / n_hat``, median over the measured points), the combined verdict
  over all settings of the claim, and the figure;
- ``<results>/summary_details.md``: every setting of every claim, with its own verdict;
- ``<results>/figures/overview.png``: every counted setting's measured interval against the
  band its claim predicts, one panel per claim (``claims/reporting/overview.py``).

The work is :func:`claims.reporting.summary.summarise`'s; this parses the arguments. The rules
(headline setting, combined verdict) are in ``claims/reporting/report.py`` and
``claims/rules/verdicts.py``. Claims whose experiments are not in the results root are listed as
"not run in this results root". In a quick-profile root (``<results>/PROFILE``, written by
``make reproduce PROFILE=quick``) every verdict reads "smoke run (quick profile): ..." and the
markdown tables open with a line saying that the quick profile decides nothing.

When ``--results`` is the committed ``results/`` of this repository, it then refreshes the
generated blocks of ``README.md`` and ``docs/`` (the README's verdict table, one page per claim
under ``docs/claims/``, the benchmark table: ``claims/reporting/docs_blocks.py``). A run on any
other results root (the quick profile, ``ARGS`` overrides, your own ``RESULTS=``) never edits
them.
"""

from __future__ import annotations

if __name__ == "__main__":  # Ctrl-C: one line, exit 130, from before the slow imports
    from experiments.lifecycle import stop_on_ctrl_c
    stop_on_ctrl_c('the verdict table (scripts.summary)',
                   'rerun it (or make figures) to write the table')

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only

from claims.reporting.summary import summarise  # noqa: E402


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=Path("results"))
    args = parser.parse_args(argv)
    summarise(args.results)


if __name__ == "__main__":
    main()
