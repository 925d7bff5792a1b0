"""Figures and per-setting verdicts of every claim in the registry (``claims/``).

    python -m scripts.figures --results results [--only c3_epsilon C9 ...] [--n-boot 300]
                              [--keep-going] [--force] [--overview]

``--only`` takes claim ids (any case) or names and redraws only those claims (``make figures
CLAIMS="C3 C9"`` passes it); the others' files are left as they are. The work is
:func:`claims.reporting.figures.draw`'s; this parses the arguments.

For each claim (``claims.registry.CLAIMS``): ``analyse`` the aggregated CSVs of its experiments,
write ``<results>/<claim>/summary.{csv,md}`` and draw ``<results>/figures/<claim>.png``. Runs on
whatever the results root holds: a claim whose experiments are not there is reported in one line
("C3: not run in this results root") and the others are drawn. A claim whose analysis fails on
what is there is reported in one line too, and the others are still drawn; the exit status is
then 1, or 0 with ``--keep-going`` (``make reproduce`` passes it for a root made with ARGS or a
chosen EXPERIMENTS list, where an override can leave a claim without the values it compares).
The verdict rules are in ``claims/rules/verdicts.py`` (and docs/results.md).

A claim whose stamp is fresh (``<results>/cache/stamps/figures/<claim>.json``,
:mod:`experiments.stamps`: the tables it read, which of its experiments' tables exist, its code,
``--n-boot``, a smoke root or not, and its summary and figures as written) is not analysed
again: one line names the claims skipped (``--force`` redraws them). ``--overview`` also redraws
``figures/overview.png`` (``scripts/summary.py`` draws it with the verdict table).
"""

from __future__ import annotations

if __name__ == "__main__":  # Ctrl-C: one line, exit 130, from before the slow imports
    from experiments.lifecycle import stop_on_ctrl_c
    stop_on_ctrl_c('figures (scripts.figures)',
                   'the CSVs are intact: rerun it (or make figures)')

import argparse
import os
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only: nothing is displayed from the command line

from claims import registry  # noqa: E402
from claims.reporting import figures  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=Path("results"))
    parser.add_argument("--only", nargs="*", default=None,
                        help="claim ids or names (default: every claim)")
    parser.add_argument("--n-boot", type=int, default=figures.N_BOOT,
                        help="bootstrap replicates per slope interval (precision vs time)")
    parser.add_argument("--keep-going", action="store_true",
                        help="exit 0 even if a claim cannot be analysed from this root")
    parser.add_argument("--n-jobs", type=int, default=min(4, os.cpu_count() or 1),
                        help="claims analysed in parallel (default: the cores, at most 4)")
    parser.add_argument("--overview", action="store_true",
                        help="also redraw figures/overview.png from the claims' summary.csv "
                             "(scripts.summary draws it with the verdict table)")
    parser.add_argument("--force", action="store_true",
                        help="redraw every claim asked for, even one whose inputs, code and "
                             "options are unchanged since it was last drawn")
    args = parser.parse_args(argv)
    if args.n_jobs < 1:
        parser.exit(2, f"error: --n-jobs must be a positive integer, got {args.n_jobs}\n")
    try:
        claims = [registry.get(k) for k in args.only] if args.only else registry.CLAIMS
    except KeyError as exc:
        parser.exit(2, f"error: --only: {exc.args[0]}\n")
    return figures.draw(claims, args.results, args.n_boot, args.n_jobs, force=args.force,
                        overview=args.overview, keep_going=args.keep_going)


if __name__ == "__main__":
    sys.exit(main())
