"""Measured verdicts for C6 (privacy, Lemma 4.1) and C7 (Helly, Lemma 4.5) on random instances.

    python -m scripts.exact_audits --results results [--instances 300] [--seed 0] [--jobs 2]

C6: on random small samples (d = 1, 2, 3; labels arbitrary, public w.p. 1/2), the EXACT output
distribution of ``PPMHalfspaceLearner.fit`` is computed through its production path
(:func:`ppm.diagnostics.audit.exact_output_distribution`: the learner's own ``_mechanism_scorer``, the
scorer's ``histogram()`` and its rank pass ``find`` for every ``(level, rank)``). One private
example is replaced by a point of EVERY cell of the arrangement of the public halfspaces
(:func:`ppm.diagnostics.audit.arrangement_cells`: one point per realisable membership pattern, faces of
every dimension and the complement of ``Aff``), with both labels: every neighbour up to
equivalence. The privacy loss ``max_g |log P[g] - log P'[g]|`` must not exceed epsilon.
Scorers: the neighbours of instance k are audited with one method (auto, sweep, bitset,
blocked, reference, cycled so that every (d, method) pair gets the same share; d = 3 is a fifth
of the instances, d = 1 and 2 two fifths each), and on every instance the base sample's
distribution is computed with all five methods and required to agree. Half the samples are
label-determined (docs/model.md §1), half have arbitrary labels (privacy holds for any data). Size limits (exhaustive enumeration of every neighbour):
d = 1: n <= 7; d = 2 and 3: n <= 5 with at most 3 distinct public points, i.e. ``Aff`` of
dimension <= 2 in d = 3 (a full-dimensional d = 3 arrangement, 4 public points, has ~1700
cells and ``|G|`` ~ 3700: ~3300 neighbours at ~0.1-0.5 s each per scorer, tens of minutes
per instance).

C7: on random small samples, the minimum empirical error over ``G`` (exact score histogram of
the production scorer) is compared with the exact non-private ERM halfspace (d = 1, 2:
:class:`ppm.baselines.ERMHalfspace`; d = 3: labelings in increasing Hamming distance with an LP
separability check). Lemma 4.5 says ``min_G <= ERM`` always; we count violations, and, as a
control that the check can fail, how often ``G`` restricted to single halfspaces (j <= 1) is
worse than ERM.

Writes ``<results>/c6_privacy/audit.csv`` and ``<results>/c7_helly/helly.csv``; the verdicts
(``summary.csv``) are the claims' analyses, ``claims/c6_privacy.py`` and ``claims/c7_helly.py``.
"""

from __future__ import annotations

if __name__ == "__main__":  # Ctrl-C: one line, exit 130, from before the slow imports
    from experiments.lifecycle import stop_on_ctrl_c
    stop_on_ctrl_c('the exact audits of C6 and C7 (scripts.exact_audits)',
                   'rerun it (make audit) to redo them')

import argparse
import itertools
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # the claims' figures go to files only

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from joblib import Parallel, delayed  # noqa: E402
from scipy.optimize import linprog

from experiments import committed  # noqa: E402
from ppm import construct_halfspaces
from ppm.diagnostics.audit import exact_output_distribution, neighbour_losses, privacy_loss
from ppm.baselines import ERMHalfspace
from ppm.core.hypothesis_class import ReferenceScorer, class_size
from ppm.core.learner import make_scorer
from claims import c6_privacy, c7_helly
from claims.base import ResultStore
from claims.reporting.report import write_claim

EPSILONS = c6_privacy.EPSILONS
METHODS = c6_privacy.METHODS
DIMS = (1, 2, 3)


def _audit_c6_one(k: int, seed: int) -> dict:
    inst = c6_privacy.audit_instance(k, seed)
    d, method, eps, n, i = (inst[key] for key in ("d", "method", "epsilon", "n", "i"))
    X, y, public = inst["X"], inst["y"], inst["public"]
    t0 = time.process_time()  # CPU time: robust on a shared machine
    base = [exact_output_distribution(X, y, public, eps, m)[0] for m in METHODS]
    agree = max(privacy_loss(base[0], b) for b in base[1:])
    worst = neighbour_losses(X, y, public, i, eps, (method,))
    hs = construct_halfspaces(X[public], n_features=d)
    return dict(instance=k, d=d, n=n, n_pub=int(public.sum()), aff_dim=hs.aff_dim,
                n_hypotheses=class_size(len(hs), d), method=method, epsilon=eps,
                neighbours=worst["neighbours"], methods_disagree=agree > 1e-9,
                loss_worst=worst[method], ratio_worst=worst[method] / eps,
                cpu_seconds=time.process_time() - t0)


def audit_c6(n_instances: int, seed: int, jobs: int = 1) -> pd.DataFrame:
    rows = Parallel(n_jobs=jobs)(delayed(_audit_c6_one)(k, seed) for k in range(n_instances))
    return pd.DataFrame(rows)


def _exact_erm_errors(X: np.ndarray, y: np.ndarray) -> int:
    """Fewest mistakes of any halfspace classifier: labelings by increasing Hamming distance,
    the first strictly separable one (LP feasibility) wins. Exponential: tiny n only."""
    n, d = X.shape
    A = np.hstack([X, np.ones((n, 1))])
    for k in range(n + 1):
        for flip in itertools.combinations(range(n), k):
            lab = y.copy()
            lab[list(flip)] = 1 - lab[list(flip)]
            if lab.min() == lab.max():
                return k
            s = 2.0 * lab - 1.0
            res = linprog(np.zeros(d + 1), A_ub=-s[:, None] * A, b_ub=-np.ones(n),
                          bounds=[(None, None)] * (d + 1), method="highs")
            if res.status == 0:
                return k
    raise AssertionError("unreachable: a constant labeling is always separable")


def audit_c7(n_instances: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng([seed, 7])
    rows = []
    for k in range(n_instances):
        d = DIMS[k % 3]
        n = int(rng.integers(2, {1: 16, 2: 11, 3: 9}[d]))
        X, y, public = c6_privacy.random_sample(rng, d, n)
        hs = construct_halfspaces(X[public], n_features=d)
        min_g = int(np.flatnonzero(make_scorer(hs, X, y).histogram())[0])  # production scorer
        min_single = int(np.flatnonzero(ReferenceScorer(hs, X, y, 1).histogram())[0])
        if d == 3:
            erm = _exact_erm_errors(X, y)
        else:
            erm = ERMHalfspace(method="threshold" if d == 1 else "enumerate").fit(X, y)
            erm = int(np.sum(erm.predict(X) != y))
        rows.append(dict(instance=k, d=d, n=n, n_pub=int(public.sum()), aff_dim=hs.aff_dim,
                         min_G=min_g,
                         min_single_halfspaces=min_single, erm=erm, violation=min_g > erm,
                         single_worse=min_single > erm))
    return pd.DataFrame(rows)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=Path("results"))
    parser.add_argument("--instances", type=int, default=300)
    parser.add_argument("--seed", type=int, default=20201206)
    parser.add_argument("--jobs", type=int, default=2, help="processes for the C6 audit")
    args = parser.parse_args(argv)

    t0 = time.perf_counter()
    c6 = audit_c6(args.instances, args.seed, args.jobs)
    committed.write_csv_settled(c6, args.results / c6_privacy.AUDIT)  # cpu_seconds aside
    print(f"C6 audit: {len(c6)} instances, {int(c6['neighbours'].sum())} neighbours, "
          f"{time.perf_counter() - t0:.1f} s wall, {c6['cpu_seconds'].sum():.1f} s CPU in the "
          f"instances ({args.jobs} processes)")
    print(c6.groupby("d")["cpu_seconds"].agg(["count", "sum", "max"]).round(2).to_string())
    print(c6.groupby(["d", "method"])["loss_worst"].max().unstack().round(4).to_string())
    committed.write_csv_settled(audit_c7(args.instances, args.seed),
                                args.results / c7_helly.AUDIT)
    store = ResultStore(args.results)
    for claim in (c6_privacy.CLAIM, c7_helly.CLAIM):  # their verdicts, as make figures does
        for row in write_claim(claim, store):
            print(f"{row.claim}: {row.measured} -> {row.verdict}")


if __name__ == "__main__":
    main()
