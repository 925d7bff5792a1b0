"""Design aid: the n values and trials per cell that would make a claim's inconclusive slopes
conclusive, as override lines for ``make reproduce``.

    python -m scripts.refine C5 [--results results] [--seed 0]

For every counted row of the claim that is still inconclusive and whose verdict names the
precision it lacks ("half-width h, needs < h*"), the row's cells are found in the claim's
experiments (the learner its "measured" text names, the row's d / epsilon / w_pub / alpha, the
one setting that varies across them as the slope's x), each cell's fitted dose-response curve
proposes the n values around its crossing, and simulation from that curve finds the trials per
cell that bring the slope's half-width under ``h*`` (:mod:`analysis.refine`). Printed per row:
the cells' proposals, the override line ready for ``make reproduce EXPERIMENTS=... ARGS=...``
and the CPU time the committed trials' own fit times predict (per trial, all learners of the
sweep, interpolated in log n). Rows it cannot map (not a log-log slope over one setting, a
censored or separated cell, no target precision) are named with the reason.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.aggregate import ERROR_COL, curve_columns
from analysis.refine import (TRIAL_STEPS, cell_variance_needed, fitted_curve, proposed_ns,
                             trials_needed)
from claims import registry
from claims.base import ResultStore
from claims.rules.accounting import joint_part_verdict
from claims.rules.verdicts import counted
from experiments.columns import D, EPSILON, PPM, W_PUB

NEED = re.compile(r"half-width ([0-9.eE+-]+), needs < ([0-9.eE+-]+)")
SETTINGS = {"d": D, "epsilon": EPSILON, "w_pub": W_PUB}


def _learner(row, nhat) -> str | None:
    present = [str(v) for v in nhat["learner"].dropna().unique()]
    named = [lrn for lrn in present if lrn.lower() in str(row["measured"]).lower()]
    if PPM in present and (PPM in named or not named):
        return PPM
    return named[0] if named else None


def _cells(row, claim, store):
    """``(experiment, learner, x column, cells)`` of a row, or a reason it cannot be mapped;
    ``cells`` is the n_hat table's rows of the slope."""
    exp_named = re.search(r"\(([a-z0-9_]+)\)\s*$", str(row["setting"]))
    exps = [exp_named.group(1)] if exp_named and exp_named.group(1) in claim.experiments \
        else list(claim.experiments)
    for exp in exps:
        data = store.load(exp)
        if data is None:
            continue
        trials, nhat = data
        learner = _learner(row, nhat)
        if learner is None:
            continue
        sub = nhat[nhat["learner"] == learner]
        for name, col in SETTINGS.items():
            if col in sub and np.isfinite(row[name]):
                sub = sub[np.isclose(sub[col].astype(float), float(row[name]))]
        if np.isfinite(row["alpha"]):
            sub = sub[np.isclose(sub["alpha"], float(row["alpha"]))]
        if len(sub) < 2:
            continue
        varying = [c for c in [*SETTINGS.values(), "alpha"] if c in sub
                   and sub[c].nunique() > 1]
        if len(varying) != 1:
            return f"{exp}: its cells vary in {varying or 'nothing'}, not in one setting"
        return exp, learner, varying[0], sub, trials
    return "no experiment of the claim holds two or more of its cells"


def _cost_per_trial(trials, exp_learner_rows):
    """CPU seconds per trial of the sweep (every learner's fit) as a function of n: the
    committed fit times summed per n over every row, per trial of the main learner, fitted as
    a power law in n."""
    if "fit_seconds" not in trials:
        return lambda n: math.nan
    per_n = trials.groupby("n")["fit_seconds"].sum() / exp_learner_rows.groupby("n").size()
    per_n = per_n.dropna()
    per_n = per_n[per_n > 0]
    if per_n.size < 2:
        return lambda n: float(per_n.mean()) if per_n.size else math.nan
    ln, lc = np.log(per_n.index.to_numpy(float)), np.log(per_n.to_numpy())
    # within the grid: interpolation; past it: the local power law of the top three n (the
    # cost of an exact fit grows faster at large n than a global power law says)
    b, a = np.polyfit(ln[-3:], lc[-3:], 1)
    return lambda n: float(math.exp(np.interp(math.log(n), ln, lc) if math.log(n) <= ln[-1]
                                    else a + b * math.log(n)))


def refine_row(row, claim, store, seed=0) -> list[str]:
    """The printed lines for one row."""
    head = f"- {row['setting']}: {row['verdict']}"
    m = NEED.search(str(row["verdict"]))
    censored = "censored" in str(row["verdict"])
    if not m and not censored:
        return [head, "  (the verdict names no target precision: nothing to size)"]
    mapped = _cells(row, claim, store)
    if isinstance(mapped, str):
        return [head, f"  (cannot map the row to its cells: {mapped})"]
    exp, learner, x_col, cells, trials = mapped
    if not m:
        return [head, *_extend_censored(row, exp, learner, x_col, cells, trials)]
    half, need = float(m.group(1)), float(m.group(2))
    beta = float(cells["beta"].iloc[0])
    target = 1.0 - beta
    xs = (1.0 / cells["alpha"] if x_col == "alpha" else cells[x_col]).astype(float).to_numpy()
    var_needed = cell_variance_needed(xs, need)
    lines = [head, f"  {exp}, {learner}, slope over {x_col}: half-width {half:.3g} -> "
                   f"{need:.3g}, per-cell var(log n_hat) <= {var_needed:.3g}"]
    lrn_rows = trials[trials["learner"] == learner]
    cost = _cost_per_trial(trials, lrn_rows)
    all_ns, t_max, have = set(), 0, []
    for (_, cell), x in zip(cells.iterrows(), xs):
        rows = lrn_rows
        for c in curve_columns(trials):  # the cell's curve: every key column it has
            if c in cell.index and c in rows:
                rows = rows[(rows[c] == cell[c]) | (rows[c].isna() & pd.isna(cell[c]))]
        g = rows.groupby("n")[ERROR_COL]
        ns = np.array(sorted(g.groups), dtype=float)
        k = np.array([np.sum(g.get_group(n) <= cell["alpha"]) for n in ns], dtype=float)
        t = np.array([g.get_group(n).size for n in ns], dtype=float)
        curve = fitted_curve(ns, k, t, target)
        label = f"{x_col}={x:g}" if x_col != "alpha" else f"alpha={cell['alpha']:g}"
        if curve is None:
            lines.append(f"    {label}: {cell.get('fit_status', '?')} curve: no fitted curve "
                         f"to simulate; extend the grid past n = {ns[-1]:g} first")
            continue
        new_ns = proposed_ns(ns, curve, target)
        tn, var = trials_needed(new_ns, curve, target, var_needed, seed=seed)
        have.append(dict(zip(ns, t)))
        all_ns |= set(new_ns)
        t_max = max(t_max, tn if tn is not None else TRIAL_STEPS[-1])
        lines.append(f"    {label}: n_hat {cell['n_hat']:.4g}; n = "
                     + ", ".join(f"{n:g}" for n in new_ns)
                     + (f" at {tn} trials (var {var:.3g})" if tn is not None
                        else f": even {TRIAL_STEPS[-1]} trials give var {var:.3g}: widen the "
                             "x range"))
    if not all_ns:
        return lines
    # the override runs every n of the list at every x: that is what it costs
    seconds = sum(max(t_max - h.get(n, 0), 0) * cost(n) for h in have for n in all_ns)
    x_vals = "" if x_col == "alpha" else f" {x_col}=" + ",".join(f"{v:g}" for v in sorted(xs))
    fixed = " ".join(f"{col}={row[name]:g}" for name, col in SETTINGS.items()
                     if col != x_col and np.isfinite(row[name]) and col in cells
                     and cells[col].nunique() == 1 and col != D)
    ns_txt = ",".join(str(int(n)) for n in sorted(all_ns, reverse=True))
    lines.append(f'  make reproduce EXPERIMENTS={exp} ARGS="trials={t_max} n={ns_txt}'
                 f'{x_vals}{" " + fixed if fixed else ""}"')
    lines.append(f"  expected CPU time: ~{seconds / 3600:.2f} CPU-hours (committed fit times)")
    return lines


def _extend_censored(row, exp, learner, x_col, cells, trials) -> list[str]:
    """A row made a bound by right-censored cells: the grid extended past its last n (steps of
    2^(1/4) up to 2^(3/4) x) at the trials per cell it has, with the cost."""
    lrn_rows = trials[trials["learner"] == learner]
    last = float(lrn_rows["n"].max())
    # every alpha reads the same trials; otherwise the learner's rows at n split over the x
    per_cell = int(lrn_rows.groupby("n").size().min()
                   / (1 if x_col == "alpha" else max(len(cells), 1))) or 1
    cens = cells[cells["censored"].fillna("").astype(str) == "right"]
    if cens.empty:
        return ["  (no right-censored cell of this row: nothing to extend)"]
    new = [int(round(last * 2 ** (j / 4))) for j in (1, 2, 3)]
    cost = _cost_per_trial(trials, lrn_rows)
    seconds = sum(per_cell * cost(n) for n in new) * (len(cells) if x_col != "alpha" else 1)
    what = ", ".join(f"alpha={a:g}" for a in cens["alpha"]) if x_col == "alpha" else \
        ", ".join(f"{x_col}={v:g}" for v in cens[x_col])
    x_vals = "" if x_col == "alpha" else f" {x_col}=" + ",".join(
        f"{v:g}" for v in sorted(cells[x_col].astype(float)))
    return [f"  {exp}, {learner}: right-censored at n = {last:g} ({what}): extend the grid",
            f'  make reproduce EXPERIMENTS={exp} ARGS="trials={per_cell} n='
            + ",".join(str(n) for n in reversed(new)) + f'{x_vals}"',
            f"  expected CPU time: ~{seconds / 3600:.2f} CPU-hours (committed fit times, "
            "extrapolated past the grid)"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("claim", help="claim id or name, e.g. C5")
    parser.add_argument("--results", type=Path, default=Path("results"))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        claim = registry.get(args.claim)
    except KeyError as e:
        print(f"error: {e.args[0]}", file=sys.stderr)
        return 2
    path = args.results / claim.name / "summary.csv"
    if not path.is_file():
        print(f"error: no {path}: run make reproduce (or make figures) first", file=sys.stderr)
        return 2
    rows = pd.read_csv(path)
    # a reading counted jointly with others on its trials is sized on its own verdict
    part = rows["verdict"].map(joint_part_verdict)
    rows["verdict"] = part.where(part.notna(), rows["verdict"])
    joint = rows.get("statistic", pd.Series("", index=rows.index)).astype(str).str.startswith(
        "every(")
    todo = rows[rows["verdict"].astype(str).str.startswith("inconclusive")
                & rows["verdict"].map(counted) & ~joint]
    print(f"{claim.id}: {len(todo)} counted row(s) inconclusive in {path}")
    store = ResultStore(args.results)
    for _, row in todo.iterrows():
        print("\n".join(refine_row(row, claim, store, args.seed)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
