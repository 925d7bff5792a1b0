"""Figures and per-setting verdicts of every claim in the registry (``claims/``).

    python -m scripts.figures --results results [--only c3_epsilon C9 ...] [--n-boot 300]
                              [--keep-going]

``--only`` takes claim ids (any case) or names and redraws only those claims (``make figures
CLAIMS="C3 C9"`` passes it); the others' files are left as they are.

For each claim (``claims.registry.CLAIMS``): ``analyse`` the aggregated CSVs of its experiments,
write ``<results>/<claim>/summary.{csv,md}`` and draw ``<results>/figures/<claim>.png``. Runs on
whatever the results root holds: a claim whose experiments are not there is reported in one line
("C3: not run in this results root") and the others are drawn. A claim whose analysis fails on
what is there is reported in one line too, and the others are still drawn; the exit status is
then 1, or 0 with ``--keep-going`` (``make reproduce`` passes it for a root made with ARGS or a
chosen EXPERIMENTS list, where an override can leave a claim without the values it compares).
The verdict rules are in ``claims/verdicts.py`` (and docs/results.md).
"""

from __future__ import annotations

if __name__ == "__main__":  # Ctrl-C: one line, exit 130, from before the slow imports
    from experiments.lifecycle import stop_on_ctrl_c
    stop_on_ctrl_c('figures (scripts.figures)',
                   'the CSVs are intact: rerun it (or make figures)')

import argparse
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only: nothing is displayed from the command line

from claims import registry  # noqa: E402
from claims.base import ResultStore  # noqa: E402
from claims.report import smoke_verdict, write_claims  # noqa: E402
from claims.terminal import WIDTH, fit  # noqa: E402

N_BOOT = 300


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=Path("results"))
    parser.add_argument("--only", nargs="*", default=None,
                        help="claim ids or names (default: every claim)")
    parser.add_argument("--n-boot", type=int, default=N_BOOT,
                        help="bootstrap replicates per slope interval (precision vs time)")
    parser.add_argument("--keep-going", action="store_true",
                        help="exit 0 even if a claim cannot be analysed from this root")
    args = parser.parse_args(argv)
    try:
        claims = [registry.get(k) for k in args.only] if args.only else registry.CLAIMS
    except KeyError as exc:
        parser.exit(2, f"error: --only: {exc.args[0]}\n")
    store = ResultStore(args.results, n_boot=args.n_boot)
    done, failed = write_claims(claims, store)
    for claim in claims:
        if claim.id not in done:
            continue
        print(f"== {claim.id}: {claim.name}")
        for row in done[claim.id]:
            verdict = smoke_verdict(row.verdict) if store.smoke else row.verdict
            # one terminal line per setting; <results>/<claim>/summary.md keeps every word
            print(fit(f"  {row.setting}: {verdict}", WIDTH))
    drawn = sorted({r.figure for rows in done.values() for r in rows if r.figure})
    if drawn:
        print(f"figures: {args.results / 'figures'}/ ({len(drawn)}: {', '.join(drawn)})")
    if failed:
        print(f"{len(failed)} claim(s) could not be analysed from {args.results}: "
              f"{', '.join(failed)}", file=sys.stderr)
        return 0 if args.keep_going else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
