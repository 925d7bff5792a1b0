"""The verdict table: one row per claim of the registry, from the per-claim summary CSVs.

    python -m scripts.summary --results results

Reads ``<results>/<claim>/summary.csv`` (written by ``scripts/figures.py``) and writes

- ``<results>/summary.csv`` and ``<results>/summary.md``: one row per claim: what the paper says,
  the headline measurement (with its interval), the theory's value, the looseness of the
  explicit bound (``n_theory / n_hat``, median over the measured points), the combined verdict
  over all settings of the claim, and the figure;
- ``<results>/summary_details.md``: every setting of every claim, with its own verdict.

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

import argparse
from pathlib import Path

from claims import docs_blocks
from claims.report import write_table


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=Path("results"))
    args = parser.parse_args(argv)
    table = write_table(args.results)
    print(table[["claim", "verdict"]].to_string(index=False))
    if args.results.resolve() == (docs_blocks.ROOT / "results").resolve():
        changed = docs_blocks.refresh(args.results, docs_blocks.ROOT)
        print("README.md / docs/: " + (f"refreshed {', '.join(changed)}" if changed
                                       else "generated blocks up to date"))


if __name__ == "__main__":
    main()
