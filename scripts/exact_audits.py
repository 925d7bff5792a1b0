"""Measured verdicts for C6 (privacy, Lemma 4.1) and C7 (Helly, Lemma 4.5) on random instances.

    python -m scripts.exact_audits --results results [--instances 300] [--seed 0]

C6: on random small label-determined samples (d = 1, 2), replace one private example by an
arbitrary ``(x', y')`` (the neighbouring relation of SPEC 1) and compute the EXACT output
distribution of Algorithm 2 on both samples (:func:`ppm.audit.exact_output_distribution`,
enumerating ``G``); the privacy loss is ``max_g |log P[g] - log P'[g]|``. It must never exceed
epsilon. Besides random replacements, the replacement is also chosen adversarially from a
small candidate set (the point that maximises the loss), so the audit gets close to the bound
where it is tight.

C7: on random small samples, the minimum empirical error over ``G`` (exact score histogram)
is compared with the exact non-private ERM halfspace
(:class:`ppm.baselines.ERMHalfspace`, threshold scan for d = 1, line enumeration for d = 2).
Lemma 4.5 says ``min_G <= ERM`` always; we count violations, and, as a control that the check
can fail, how often ``G`` restricted to single halfspaces (j <= 1) is worse than ERM.

Writes ``<results>/c6_privacy/audit.csv`` and ``<results>/c7_helly/helly.csv``; the verdicts
(``summary.csv``) are the claims' analyses, ``claims/c6_privacy.py`` and ``claims/c7_helly.py``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.pipeline import write_csv_atomic
from ppm import construct_halfspaces
from ppm.audit import exact_output_distribution, privacy_loss
from ppm.baselines import ERMHalfspace
from ppm.hypothesis_class import ReferenceScorer
from claims import c6_privacy, c7_helly
from claims.base import ResultStore
from claims.report import write_claim

EPSILONS = c6_privacy.EPSILONS


def _instance(rng: np.random.Generator, d: int, n: int):
    """A label-determined sample: Gaussian points, public w.p. 1/2, label 1 iff private."""
    X = rng.normal(size=(n, d))
    if rng.random() < 0.3:  # integer grid: duplicates and collinear points
        X = rng.integers(-2, 3, size=(n, d)).astype(float)
    public = rng.random(n) < 0.5
    if public.all():
        public[-1] = False
    y = (~public).astype(np.int64)
    return X, y, public


def _instances(rng: np.random.Generator, count: int, d1_every: int, n_below: dict):
    """``(k, d, n, X, y, public)``: instance k has d = 1 every ``d1_every``-th time, else 2, and
    ``2 <= n < n_below[d]`` (lazy: the caller's own draws interleave, in a fixed order)."""
    for k in range(count):
        d = 1 if k % d1_every == 0 else 2
        n = int(rng.integers(2, n_below[d]))
        yield k, d, n, *_instance(rng, d, n)


def audit_c6(n_instances: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng([seed, 6])
    rows = []
    for k, d, n, X, y, public in _instances(rng, n_instances, 2, {1: 8, 2: 6}):
        eps = EPSILONS[k % len(EPSILONS)]
        base, _ = exact_output_distribution(X, y, public, eps)
        i = int(rng.choice(np.flatnonzero(~public)))
        # candidates: one random replacement plus points at and beyond the data (adversarial)
        cands = [(rng.normal(scale=2.0, size=d), int(rng.integers(0, 2)))]
        for x in (X[public][:3] if public.any() else []):
            for lab in (0, 1):
                cands.append((x + 1e-3, lab))
        for lab in (0, 1):
            cands.append((np.full(d, 10.0), lab))
        losses = []
        for x_new, y_new in cands:
            X2, y2 = X.copy(), y.copy()
            X2[i], y2[i] = x_new, y_new
            losses.append(privacy_loss(base, exact_output_distribution(X2, y2, public, eps)[0]))
        rows.append(dict(instance=k, d=d, n=n, n_pub=int(public.sum()), epsilon=eps,
                         loss_random=losses[0], loss_worst=max(losses),
                         ratio_worst=max(losses) / eps))
    return pd.DataFrame(rows)


def audit_c7(n_instances: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng([seed, 7])
    rows = []
    for k, d, n, X, y, public in _instances(rng, n_instances, 3, {1: 16, 2: 11}):
        hs = construct_halfspaces(X[public], n_features=d)
        min_g = int(np.flatnonzero(ReferenceScorer(hs, X, y, d).histogram())[0])
        min_single = int(np.flatnonzero(ReferenceScorer(hs, X, y, 1).histogram())[0])
        erm = ERMHalfspace(method="threshold" if d == 1 else "enumerate").fit(X, y)
        rows.append(dict(instance=k, d=d, n=n, n_pub=int(public.sum()), min_G=min_g,
                         min_single_halfspaces=min_single, erm=erm.n_train_errors_,
                         violation=min_g > erm.n_train_errors_,
                         single_worse=min_single > erm.n_train_errors_))
    return pd.DataFrame(rows)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=Path("results"))
    parser.add_argument("--instances", type=int, default=300)
    parser.add_argument("--seed", type=int, default=20201206)
    args = parser.parse_args(argv)

    write_csv_atomic(audit_c6(args.instances, args.seed),
                     args.results / c6_privacy.AUDIT)
    write_csv_atomic(audit_c7(args.instances, args.seed), args.results / c7_helly.AUDIT)
    store = ResultStore(args.results)
    for claim in (c6_privacy.CLAIM, c7_helly.CLAIM):  # their verdicts, as make figures does
        for row in write_claim(claim, store):
            print(f"{row.claim}: {row.measured} -> {row.verdict}")


if __name__ == "__main__":
    main()
