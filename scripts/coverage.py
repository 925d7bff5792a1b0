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
:data:`analysis.coverage_designs.MORE` (C9, C13, C12).

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
import sys
import time
from pathlib import Path

import pandas as pd

from analysis.coverage import DESIGNS, READINGS, TRUTHS, summarise
from analysis.coverage import markdown_table, truth_curves
from analysis.coverage_designs import MORE, load_any, record_settings, run_any
from analysis import coverage_counted as cc
from analysis.coverage_tails import label_calibration, markdown_counted, summarise_counted
from experiments import committed

BLOCK = 10  # data sets per joblib task: one truth's curves fitted once per block


def _block(design, truth, indices, n_boot):
    curves = truth_curves(design, truth)
    out = []
    for i in indices:
        # the claim's own function is run beside the recorded bootstrap on one data set in
        # BLOCK (same result or an error): every one would double the cost
        out += run_any(design, truth, i, n_boot, READINGS, curves=curves,
                       verify=(i % BLOCK == 0))
    return out


def _counted_block(design, truth, indices, n_boot):
    curves = cc.counted_truth(design, truth)
    return [r for i in indices for r in cc.run_counted(design, truth, i, n_boot, curves)]


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
    for d in args.designs:
        if d not in DESIGNS and d not in MORE:
            parser.error(f"--designs: unknown design {d!r} (one of "
                         f"{', '.join([*DESIGNS, *MORE])})")
    if args.counted is not None:
        if args.counted == ["all"]:
            args.counted = list(cc.COUNTED)
        for d in args.counted:
            if d not in cc.COUNTED:
                parser.error(f"--counted: unknown design {d!r} (one of "
                             f"{', '.join(cc.COUNTED)})")
    for t in args.truths or ():
        known = (*TRUTHS, *cc.TWO_TERM_TRUTHS) if args.counted else TRUTHS
        if t not in known:
            parser.error(f"--truths: unknown truth {t!r} (one of {', '.join(known)})")
        if args.counted and not all(t in cc.truths_of(d) for d in args.counted):
            parser.error(f"--truths: {t!r} is not a truth of every design of --counted")
    if not args.out.parent.is_dir():
        parser.error(f"--out: no directory {str(args.out.parent)!r}")
    committed.refuse_committed([args.out], args.overwrite_committed)
    if args.counted is not None:
        return _run_counted(args, parser)
    args.truths = args.truths or list(TRUTHS)
    args.datasets = args.datasets or 100
    try:
        designs = [load_any(d, args.results) for d in args.designs]
    except (OSError, ValueError) as exc:
        parser.error(str(exc))

    from joblib import Parallel, delayed
    start = time.time()
    settings = {k: v for d in designs for k, v in record_settings(d).items()}
    kept = None
    if args.merge and args.out.is_file():  # the other designs' rows, as they are
        kept = pd.read_csv(args.out)
        kept = kept[~(kept["design"].isin(list(settings)) & kept["truth"].isin(args.truths)
                      & kept["quantity"].isin(["slope", "n_hat"]))]
    records = []
    for design in designs:  # the table is rewritten after each design: a long run shows progress
        tasks = [(t, range(i, min(i + BLOCK, args.datasets)))
                 for t in args.truths for i in range(0, args.datasets, BLOCK)]
        parts = Parallel(n_jobs=args.n_jobs)(delayed(_block)(design, t, idx, args.n_boot)
                                             for t, idx in tasks)
        records += [r for p in parts for r in p]
        table = summarise(records).assign(n_boot=args.n_boot)
        table.insert(1, "setting", table["design"].map(settings))
        if kept is not None:
            table = pd.concat([kept, table], ignore_index=True)
        table.to_csv(args.out, index=False)
        print(f"{args.out}: {design.name} done, {time.time() - start:.0f} s", file=sys.stderr)
    print(f"{args.out}: {len(table)} rows, {args.datasets} data sets x "
          f"{len(designs)} designs x {len(args.truths)} truths, n_boot {args.n_boot}, "
          f"{time.time() - start:.0f} s", file=sys.stderr)

def _run_counted(args, parser) -> None:
    """``--counted``: the counted statistics of each design, merged by (design, truth,
    quantity) where ``--merge`` is given."""
    from joblib import Parallel, delayed
    try:
        designs = [cc.load_counted(d, args.results) for d in args.counted]
    except (OSError, ValueError) as exc:
        parser.error(str(exc))
    start, records = time.time(), []
    settings = {d.name: d.setting for d in designs}
    for design in designs:
        plan = cc.PLAN[design.name]
        truths = args.truths or [t for t in cc.truths_of(design.name) if t in plan]
        sizes = {t: args.datasets or plan.get(t, 40) for t in truths}
        tasks = [(t, range(i, min(i + BLOCK, sizes[t])))
                 for t in truths for i in range(0, sizes[t], BLOCK)]
        parts = Parallel(n_jobs=args.n_jobs)(delayed(_counted_block)(design, t, idx,
                                                                     args.n_boot)
                                             for t, idx in tasks)
        records += [r for p in parts for r in p]
        table = summarise_counted(records).assign(n_boot=args.n_boot)
        table.insert(1, "setting", table["design"].map(settings))
        if args.merge and args.out.is_file():
            kept = pd.read_csv(args.out)
            new = set(zip(table["design"], table["truth"], table["quantity"]))
            mine = [k in new for k in zip(kept["design"], kept["truth"], kept["quantity"])]
            table = pd.concat([kept[~pd.Series(mine, index=kept.index)], table],
                              ignore_index=True)
        table = label_calibration(table)
        table.to_csv(args.out, index=False)
        print(f"{args.out}: {design.name} done, {time.time() - start:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
