"""C6 (Lemma 4.1): Algorithm 2 is epsilon-DP with respect to the private examples only.

Reads the exact audit ``<results>/c6_privacy/audit.csv`` written by ``scripts/exact_audits.py``:
exact output distributions of ``PPMHalfspaceLearner.fit``'s production path (every scorer
method) on random small samples, d = 1, 2, 3, and on EVERY neighbour that replaces one private
example (one point per cell of the public arrangement, both labels). The largest privacy loss
must not exceed epsilon, and all scorer methods must give the same distribution.

An exact audit of a proven lemma can fail only through a bug: its verdict is "exact audit:
passes (N instances)" or "exact audit: FAILS (...)" (:func:`claims.rules.accounting.audit_verdict`),
shown in the audit section of the verdict table, never counted as statistical evidence.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from claims.rules.accounting import audit_verdict
from claims.base import Claim, VerdictRow, trial_set

STATEMENT = "epsilon-DP w.r.t. the private examples only (Lemma 4.1)"
EPSILONS = (0.1, 1.0, 3.0)  # the audit's privacy levels, cycled over the instances
METHODS = ("auto", "sweep", "bitset", "blocked", "reference")  # PPMHalfspaceLearner scorers

# Instance k of the audit (scripts/exact_audits.py; scripts/privacy_audits.py recomputes one): its
# d is C6_DIMS[k % 5] (d = 3, the slowest, on a fifth of the instances to keep `make audit` near a
# minute on 2 cores), its scorer METHODS[(k // 5) % 5]: every (d, scorer) pair gets the same
# share; epsilon EPSILONS[(k // 25) % 3].
C6_DIMS = (1, 2, 3, 1, 2)


def random_sample(rng: np.random.Generator, d: int, n: int, max_public: int | None = None,
                  arbitrary_labels: bool = False):
    """A small sample: Gaussian points (integer grid w.p. 0.3: duplicates, collinear points),
    public w.p. 1/2 (at least one public and one private); labels label-determined
    (docs/model.md §1, label 1 iff private) or, with ``arbitrary_labels``, uniform."""
    X = rng.normal(size=(n, d))
    if rng.random() < 0.3:
        X = rng.integers(-2, 3, size=(n, d)).astype(float)
    public = rng.random(n) < 0.5
    public[0], public[-1] = True, False
    if max_public is not None:  # at most max_public distinct public points
        while len(np.unique(X[public], axis=0)) > max_public:
            public[np.flatnonzero(public)[-1]] = False
    y = rng.integers(0, 2, size=n) if arbitrary_labels else (~public).astype(np.int64)
    return X, y, public


def audit_instance(k: int, seed: int) -> dict:
    """Instance ``k`` of the C6 audit: ``d, method, epsilon, n, X, y, public`` and ``i``, the
    private example whose replacement by every neighbour is audited. Privacy holds for any
    data: half the samples get arbitrary labels."""
    rng = np.random.default_rng([seed, 6, k])
    d, method = C6_DIMS[k % 5], METHODS[(k // 5) % len(METHODS)]
    eps = EPSILONS[(k // 25) % len(EPSILONS)]
    n = int(rng.integers(2, 8 if d == 1 else 6))
    X, y, public = random_sample(rng, d, n, max_public=None if d == 1 else 3,
                                 arbitrary_labels=bool(k % 2))
    i = int(rng.choice(np.flatnonzero(~public)))
    return dict(d=d, method=method, epsilon=eps, n=n, X=X, y=y, public=public, i=i)
AUDIT = "c6_privacy/audit.csv"
STATISTIC = "exact_privacy_loss"  # the largest exact privacy loss over neighbours / epsilon
TOL = 1e-9  # float tolerance on log-probabilities


def analyse(results) -> list[VerdictRow]:
    c6 = pd.read_csv(results.root / AUDIT)
    worst = c6.loc[c6["ratio_worst"].idxmax()]
    by = c6.groupby(["d", "method"])["ratio_worst"].max()
    per = "; ".join(f"d={d} {m} {v:.4f}" for (d, m), v in by.items())
    holds = (c6["loss_worst"] <= c6["epsilon"] + TOL).all() and not c6["methods_disagree"].any()
    return [VerdictRow(
        claim="C6", figure="",
        setting=f"{len(c6)} random instances, d=1,2,3 (n<=7 at d=1, n<=5 and <=3 public points "
                f"at d=2,3), epsilon in {EPSILONS}, exact output distributions through fit's "
                f"scorers ({', '.join(METHODS)}), every neighbour cell x both labels "
                f"({int(c6['neighbours'].sum())} neighbours)",
        paper=STATEMENT,
        measured=f"max privacy loss / epsilon = {c6['ratio_worst'].max():.4f} "
                 f"(at epsilon={worst['epsilon']:g}, d={int(worst['d'])}, "
                 f"{worst['method']}); loss > epsilon/2 in "
                 f"{int((c6['ratio_worst'] > 0.5).sum())} of {len(c6)} instances; scorers "
                 f"disagree in {int(c6['methods_disagree'].sum())}; exact, {len(c6)} instances, "
                 f"{int(c6['neighbours'].sum())} neighbouring pairs",
        theory="<= 1",
        verdict=audit_verdict(bool(holds), len(c6), "instances",
                              detail=f"{int((c6['loss_worst'] > c6['epsilon'] + TOL).sum())} "
                                     f"above epsilon, scorers disagree in "
                                     f"{int(c6['methods_disagree'].sum())}"),
        statistic=STATISTIC, trials=trial_set(AUDIT.removesuffix(".csv")),
        extra=f"max loss/epsilon per d and scorer: {per}")]


CLAIM = Claim(id="C6", name="c6_privacy", statement=STATEMENT, experiments=(), analyse=analyse,
              needs=(AUDIT,))
