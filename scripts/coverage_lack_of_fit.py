"""How often the lack-of-fit check fires, on the coverage study's designs (docs/model.md §5.2).

    python -m scripts.coverage_lack_of_fit --runs c12_grid_halfplanes:probit:30 ... \\
        [--n-boot 150] [--out results/coverage_lack_of_fit.csv]

For each ``design:truth:datasets`` run, the fitted reading's bootstrap of every data set
(the same seeds as ``scripts/coverage.py``, so data set ``i`` is the same draw) and the
fraction of data sets whose statistic the check flags, with its Clopper-Pearson interval.
Under a probit truth every flag is a false alarm; under the mixture, a detection. It measures
the check alone (the intervals' coverage does not depend on it) and is much cheaper than the
whole study, which measures both readings.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd
from scipy.stats import beta as beta_dist

from analysis import coverage_designs as cd
from experiments import committed


def _run(spec: str) -> tuple[str, str, int]:
    parts = spec.split(":")
    if len(parts) != 3 or not parts[2].isdigit() or int(parts[2]) < 1:
        raise ValueError(f"a run is design:truth:datasets (e.g. c9_domain_d1:probit:30), "
                         f"got {spec!r}")
    return parts[0], parts[1], int(parts[2])


def measure(design: str, truth: str, datasets: int, n_boot: int) -> list[dict]:
    d = cd.load_any(design)
    curves = cd.truth_curves(d, truth)
    flags: dict = {}
    start = time.time()
    for i in range(datasets):
        for r in cd.run_any(d, truth, i, n_boot, readings=("fit",), curves=curves,
                            verify=False):
            # one flag per statistic (the per-cell rows repeat their statistic's flag)
            if "lack_of_fit" in r and r.get("quantity") != "n_hat":
                flags.setdefault(r.get("design") or d.name, []).append(bool(r["lack_of_fit"]))
    rows = []
    for record, f in flags.items():
        k, m = sum(f), len(f)
        rows.append({"design": design, "truth": truth, "statistic": record, "datasets": m,
                     "flagged": k, "rate": k / m,
                     "rate_lo": beta_dist.ppf(0.025, k, m - k + 1) if k else 0.0,
                     "rate_hi": beta_dist.ppf(0.975, k + 1, m - k) if k < m else 1.0,
                     "n_boot": n_boot, "seconds": round(time.time() - start)})
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", nargs="+", required=True, metavar="DESIGN:TRUTH:DATASETS")
    parser.add_argument("--n-boot", type=int, default=150)
    parser.add_argument("--out", type=Path, default=Path("results/coverage_lack_of_fit.csv"))
    committed.add_flag(parser)
    args = parser.parse_args(argv)
    try:
        runs = [_run(s) for s in args.runs]
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.n_boot < 20:
        print(f"error: --n-boot must be at least 20 (the check reads bootstrap tails), got "
              f"{args.n_boot}", file=sys.stderr)
        return 2
    committed.refuse_committed([args.out], args.overwrite_committed)
    rows = []
    for design, truth, n in runs:
        rows += measure(design, truth, n, args.n_boot)
        print(pd.DataFrame(rows[-1:]).to_string(index=False, header=False), flush=True)
    out = pd.DataFrame(rows)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    out.round(4).to_csv(args.out, index=False)
    print(f"{args.out}: {len(out)} rows")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
