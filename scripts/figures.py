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

import contextlib  # noqa: E402
import io  # noqa: E402
import textwrap  # noqa: E402
import os  # noqa: E402

from joblib import Parallel, delayed  # noqa: E402

from claims import registry  # noqa: E402
from claims.base import ResultStore  # noqa: E402
from claims.report import smoke_verdict, write_claims  # noqa: E402
from claims.terminal import WIDTH, fit  # noqa: E402

N_BOOT = 300


def _one_claim(claim_id: str, root: Path, n_boot: int):
    """One claim's summary and figure (in a worker): ``(rows or None, error or None, printed)``.
    Its lines are captured and printed by the parent in claim order, never interleaved."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        done, failed = write_claims([registry.get(claim_id)], ResultStore(root, n_boot=n_boot))
    return done.get(claim_id), failed.get(claim_id), out.getvalue()


def write_all(claims, root: Path, n_boot: int, n_jobs: int) -> tuple[dict, dict]:
    """:func:`claims.report.write_claims` for every claim, ``n_jobs`` claims at a time (each
    claim writes only its own files)."""
    if n_jobs == 1 or len(claims) == 1:
        return write_claims(claims, ResultStore(root, n_boot=n_boot))
    jobs = Parallel(n_jobs=n_jobs, backend="loky")
    results = jobs(delayed(_one_claim)(c.id, root, n_boot) for c in claims)
    done, failed = {}, {}
    for claim, (rows, error, printed) in zip(claims, results):
        sys.stdout.write(printed)
        if rows:
            done[claim.id] = rows
        if error:
            failed[claim.id] = error
    return done, failed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=Path("results"))
    parser.add_argument("--only", nargs="*", default=None,
                        help="claim ids or names (default: every claim)")
    parser.add_argument("--n-boot", type=int, default=N_BOOT,
                        help="bootstrap replicates per slope interval (precision vs time)")
    parser.add_argument("--keep-going", action="store_true",
                        help="exit 0 even if a claim cannot be analysed from this root")
    parser.add_argument("--n-jobs", type=int, default=min(4, os.cpu_count() or 1),
                        help="claims analysed in parallel (default: the cores, at most 4)")
    args = parser.parse_args(argv)
    if args.n_jobs < 1:
        parser.exit(2, f"error: --n-jobs must be a positive integer, got {args.n_jobs}\n")
    try:
        claims = [registry.get(k) for k in args.only] if args.only else registry.CLAIMS
    except KeyError as exc:
        parser.exit(2, f"error: --only: {exc.args[0]}\n")
    store = ResultStore(args.results, n_boot=args.n_boot)
    done, failed = write_all(claims, args.results, args.n_boot, args.n_jobs)
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
        # at most WIDTH columns a line, however many figures and however long the root's path
        print(textwrap.fill(f"figures ({len(drawn)}) in {args.results / 'figures'}/: "
                            + ", ".join(drawn), width=WIDTH, subsequent_indent="  ",
                            break_long_words=False, break_on_hyphens=False))
    if failed:
        print(f"{len(failed)} claim(s) could not be analysed from {args.results}: "
              f"{', '.join(failed)}", file=sys.stderr)
        return 0 if args.keep_going else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
