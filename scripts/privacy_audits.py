"""Privacy audits of every private learner: exact where an audit enumerates the output law,
statistical (``analysis.privacy_audit``) otherwise, each with a positive control.

    python -m scripts.privacy_audits [--results results] [--seed 20210524] [--jobs 2]
                                     [--only NAME ...] [--scale 1.0]

Writes ``<results>/privacy_audits/audit.csv``: one row per (learner, kind, control), with the
stated ``epsilon`` (and ``delta``), ``epsilon_lb`` (statistical: the 95% lower confidence bound
on the privacy loss; exact: the exact largest loss found), the number of mechanism runs (or
neighbouring pairs, for exact audits) and the verdict ("passes": ``epsilon_lb <= epsilon``,
"fails" otherwise). A control row must fail; the real row must pass. The verdict rows of the
claim-like module :mod:`claims.privacy_audits` are read from that file. Method, neighbour
relations and what each audit can show: docs/privacy_audits.md.

What is audited, and how, is declared by each private learner beside its class
(:mod:`ppm.audit_spec`); the audits are run by :mod:`analysis.privacy_audit_runs`. This script
parses its arguments, adds the one exact audit that reads a committed result (BMN20's learner,
``PPMHalfspaceLearner``: the committed exact audit ``<results>/c6_privacy/audit.csv`` of
``scripts/exact_audits.py``, its worst instance recomputed exactly at the stated epsilon and, as
the control, with the mechanism at 2 epsilon) and writes the file.

``--scale`` multiplies every statistical audit's run counts (a rescaled run is never written
into the committed results/). Seeds: every audit and every control draws from its own stream,
``analysis.privacy_audit.stream_seed(seed, learner index, control index)``, written in the
``seed`` column (no two alike; exact rows draw nothing and leave it empty), so the file is a
function of ``--seed``.
"""

from __future__ import annotations

if __name__ == "__main__":  # Ctrl-C: one line, exit 130, from before the slow imports
    from experiments.lifecycle import stop_on_ctrl_c
    stop_on_ctrl_c('the privacy audits (scripts.privacy_audits)',
                   'rerun it to redo them')

import argparse
import math
import time
from pathlib import Path

import pandas as pd

from analysis.privacy_audit import FAILS, PASSES
from analysis.privacy_audit_runs import (FACTOR, RUNNERS, audit_table, exact_rows, one_thread,
                                         run_statistical, statistical_specs)

OUT = "privacy_audits/audit.csv"


def exact_ppm(results: Path, seed: int):
    """The runner of BMN20's learner (its declaration names it ``c6``): the committed exact C6
    audit, its worst instance recomputed exactly at the stated epsilon and (control) with the
    mechanism at FACTOR epsilon."""
    def run(name, a) -> list[dict]:
        from claims import c6_privacy
        from ppm.diagnostics.audit import neighbour_losses

        c6 = pd.read_csv(results / "c6_privacy" / "audit.csv")
        worst = c6.loc[c6["ratio_worst"].idxmax()]
        k = int(worst["instance"])
        inst = c6_privacy.audit_instance(k, seed)  # the committed audit's instance k
        d, method, eps, n, i = (inst[key] for key in ("d", "method", "epsilon", "n", "i"))
        X, y, public = inst["X"], inst["y"], inst["public"]
        again = neighbour_losses(X, y, public, i, eps, (method,))
        if not math.isclose(again[method], float(worst["loss_worst"]), rel_tol=1e-9,
                            abs_tol=1e-12):
            raise AssertionError(f"C6 instance {k} recomputes to {again[method]}, the "
                                 f"committed audit says {worst['loss_worst']}")
        control = neighbour_losses(X, y, public, i, FACTOR * eps, (method,))[method]
        common = dict(learner=name, paper=a.paper, kind="exact", neighbours=a.neighbours,
                      delta=a.delta, event_size=math.nan, source=a.source)
        setting = (f"{len(c6)} random instances, d=1,2,3, epsilon in {c6_privacy.EPSILONS}; "
                   f"worst: instance {k} (d={d}, n={n}, epsilon={eps:g}, {method})")
        return [dict(common, control=False, factor=1.0, setting=setting, epsilon=eps,
                     epsilon_lb=float(again[method]), runs=int(c6["neighbours"].sum()),
                     pairs=int(c6["neighbours"].sum()),
                     verdict=PASSES if (c6["loss_worst"] <= c6["epsilon"] + 1e-9).all()
                     else FAILS),
                dict(common, control=True, factor=FACTOR, setting=setting + "; CONTROL: the "
                     f"mechanism at {FACTOR:g} epsilon", epsilon=eps,
                     epsilon_lb=float(control), runs=again["neighbours"],
                     pairs=again["neighbours"],
                     verdict=PASSES if control <= eps + 1e-9 else FAILS)]
    return run


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=Path("results"))
    parser.add_argument("--seed", type=int, default=20210524)
    parser.add_argument("--c6-seed", type=int, default=20201206,
                        help="the seed of the committed C6 audit (scripts.exact_audits)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--only", nargs="*", default=None, help="learner name prefixes")
    args = parser.parse_args(argv)
    from joblib import Parallel, delayed

    t0 = time.perf_counter()
    specs = [s for s in statistical_specs()
             if not args.only or any(s["learner"].startswith(p) for p in args.only)]
    chunks = Parallel(n_jobs=args.jobs)(delayed(run_statistical)(s, args.seed, args.scale)
                                        for s in specs)
    rows = [r for c in chunks for r in c]
    if not args.only:
        one_thread()
        rows += exact_rows({**RUNNERS, "c6": exact_ppm(args.results, args.c6_seed)})
    df = audit_table(rows)
    for r in df.itertuples():
        print(f"{r.learner:32s} {r.kind:11s} factor={r.factor:<4g} eps={r.epsilon:.3f} "
              f"lb={r.epsilon_lb:.3f} runs={r.runs} -> {r.verdict}"
              f" (smallest detected: {r.smallest_detected:g})")
    print(f"{time.perf_counter() - t0:.1f} s wall ({args.jobs} processes)")
    from experiments import committed
    if args.only or (args.scale != 1.0 and committed.is_committed(args.results / OUT)):
        return  # a partial look, or a rescaled one of the committed root: not written
    dest = args.results / OUT
    dest.parent.mkdir(parents=True, exist_ok=True)
    committed.write_csv_settled(df.drop(columns=["seconds"], errors="ignore"), dest)


if __name__ == "__main__":
    main()
