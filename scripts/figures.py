"""Figures and per-setting verdicts of every claim in the registry (``claims/``).

    python -m scripts.figures --results results [--only c3_epsilon C9 ...] [--n-boot 300]

For each claim (``claims.registry.CLAIMS``): ``analyse`` the aggregated CSVs of its experiments,
write ``<results>/<claim>/summary.{csv,md}`` and draw ``<results>/figures/<claim>.png``. A claim
whose results are missing is skipped with a one-line notice. The verdict rules are in
``claims/verdicts.py`` (and docs/results.md).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from claims import registry
from claims.base import ResultStore
from claims.report import write_claim

N_BOOT = 300


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=Path("results"))
    parser.add_argument("--only", nargs="*", default=None,
                        help="claim ids or names (default: every claim)")
    parser.add_argument("--n-boot", type=int, default=N_BOOT,
                        help="bootstrap replicates per slope interval (precision vs time)")
    args = parser.parse_args(argv)
    claims = [registry.get(k) for k in args.only] if args.only else registry.CLAIMS
    store = ResultStore(args.results, n_boot=args.n_boot)
    for claim in claims:
        rows = write_claim(claim, store)
        if rows:
            print(f"== {claim.id}: {claim.name}")
            for r in rows:
                print(f"  {r.setting}: {r.verdict}")


if __name__ == "__main__":
    main()
