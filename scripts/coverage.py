"""Coverage of the n_hat intervals on each rate claim's own design (docs/model.md §5.2).

    python -m scripts.coverage [--datasets 100] [--n-boot 150] [--designs c1_realizable_d1 ...]
                               [--truths probit logit mixture] [--out results/coverage.csv]
                               [--n-jobs 1] [--merge] [--overwrite-committed]
    python -m scripts.coverage --markdown results/coverage.csv   # the docs' tables

Simulates ``--datasets`` data sets per design and truth (:mod:`analysis.coverage`), reads each
with the grid and the fitted reading (``--n-boot`` bootstrap replicates; the claims use 300)
and writes one row per (design, truth, reading, quantity[, cell]): bias, sd, mean width,
coverage of the 95% interval with its Clopper-Pearson interval, and for the fitted reading the
fraction of data sets whose statistic was flagged with a lack of fit. ``n_hat`` rows are on
the natural-log scale. Writing into the committed ``results/`` needs ``--overwrite-committed``.
``--merge`` keeps ``--out``'s other rows as they are (the designs run replace their own rows
of the truths run). The designs are :data:`analysis.coverage.DESIGNS` and
:data:`analysis.coverage_designs.MORE` (C9, C13, C12); the runs are
:mod:`analysis.coverage_run`.

    python -m scripts.coverage --counted all --merge --overwrite-committed   # as committed
    python -m scripts.coverage --counted c3_epsilon_d1 [--truths probit] [--datasets 120]

``--counted`` runs the counted statistics instead (:mod:`analysis.coverage_counted`: one row
per design, truth and counted statistic, ``quantity`` its id, fitted reading; ``all`` for every
design of :data:`analysis.coverage_counted.COUNTED`; data sets per truth from its ``PLAN``
unless ``--datasets``), with each tail's miss rate
(:mod:`analysis.coverage_tails`). ``--merge`` replaces only the (design, truth, quantity) rows
it writes.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from analysis import coverage_counted as cc
from analysis.coverage import DESIGNS, TRUTHS, markdown_table
from analysis.coverage_designs import MORE, load_any
from analysis.coverage_run import check_request, run_counted, run_designs
from analysis.coverage_tails import markdown_counted
from experiments import committed


def _positive(name, minimum=1):
    def parse(text):
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be an integer, got {text!r}")
        if v < minimum:
            raise argparse.ArgumentTypeError(f"{name} must be >= {minimum}, got {v}")
        return v
    return parse


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=_positive("--datasets", 2), default=None,
                        help="data sets per design and truth (default 100; --counted: "
                             "analysis.coverage_counted.PLAN's)")
    parser.add_argument("--n-boot", type=_positive("--n-boot", 20), default=150)
    parser.add_argument("--designs", nargs="+", default=list(DESIGNS), metavar="DESIGN",
                        help=f"default: {' '.join(DESIGNS)}; also {' '.join(MORE)}")
    parser.add_argument("--counted", nargs="+", metavar="DESIGN",
                        help=f"the counted statistics of these designs instead (or all): "
                             f"{' '.join(cc.COUNTED)}")
    parser.add_argument("--truths", nargs="+", default=None, metavar="TRUTH",
                        help=f"default: {' '.join(TRUTHS)} (--counted: each design's own, "
                             f"C2's adds {' '.join(cc.TWO_TERM_TRUTHS)})")
    parser.add_argument("--out", type=Path, default=Path("results/coverage.csv"))
    parser.add_argument("--results", type=Path, default=Path("results"),
                        help="where the committed trials of the designs are read")
    parser.add_argument("--n-jobs", type=_positive("--n-jobs"), default=1)
    parser.add_argument("--merge", action="store_true",
                        help="keep --out's rows of the designs not run")
    parser.add_argument("--markdown", type=Path, metavar="CSV",
                        help="print the docs' markdown tables of a written CSV and exit")
    committed.add_flag(parser)
    args = parser.parse_args(argv)
    if args.markdown is not None:
        if not args.markdown.is_file():
            parser.error(f"--markdown: no file {str(args.markdown)!r}")
        table = pd.read_csv(args.markdown)
        print(markdown_table(table))
        if "calibration" in table and (~table["quantity"].isin(["slope", "n_hat"])).any():
            print("\n" + markdown_counted(table, list(cc.COUNTED)))
        return
    try:
        args.counted = check_request(args.designs, args.counted, args.truths, args.out)
    except ValueError as exc:
        parser.error(str(exc))
    committed.refuse_committed([args.out], args.overwrite_committed)
    if args.counted is not None:
        try:
            designs = [cc.load_counted(d, args.results) for d in args.counted]
        except (OSError, ValueError) as exc:
            parser.error(str(exc))
        run_counted(designs, args.truths, args.datasets, args.n_boot, args.out, args.n_jobs,
                    args.merge)
        return
    truths = args.truths or list(TRUTHS)
    try:
        designs = [load_any(d, args.results) for d in args.designs]
    except (OSError, ValueError) as exc:
        parser.error(str(exc))
    run_designs(designs, truths, args.datasets or 100, args.n_boot, args.out, args.n_jobs,
                args.merge)


if __name__ == "__main__":
    main()
