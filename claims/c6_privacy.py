"""C6 (Lemma 4.1): Algorithm 2 is epsilon-DP with respect to the private examples only.

Reads the exact audit ``<results>/c6_privacy/audit.csv`` written by ``scripts/exact_audits.py`` (exact
output distributions of Algorithm 2 on random small samples and on neighbours that replace one
private example, random and adversarial): the largest privacy loss must not exceed epsilon.
"""

from __future__ import annotations

import pandas as pd

from claims.base import Claim, VerdictRow

STATEMENT = "epsilon-DP w.r.t. the private examples only (Lemma 4.1)"
EPSILONS = (0.1, 1.0, 3.0)  # the audit's privacy levels, cycled over the instances
AUDIT = "c6_privacy/audit.csv"


def analyse(results) -> list[VerdictRow]:
    c6 = pd.read_csv(results.root / AUDIT)
    worst = c6.loc[c6["ratio_worst"].idxmax()]
    return [VerdictRow(
        claim="C6", figure="",
        setting=f"{len(c6)} random instances, d=1,2, n<=7, epsilon in {EPSILONS}, exact output "
                "distributions, adversarial neighbours",
        paper=STATEMENT,
        measured=f"max privacy loss / epsilon = {c6['ratio_worst'].max():.4f} "
                 f"(at epsilon={worst['epsilon']:g}, d={int(worst['d'])}); loss > epsilon/2 "
                 f"in {int((c6['ratio_worst'] > 0.5).sum())} of {len(c6)} instances",
        theory="<= 1",
        verdict="holds" if (c6["loss_worst"] <= c6["epsilon"] + 1e-9).all() else "does not hold",
        extra=f"{len(c6)} exact audits")]


CLAIM = Claim(id="C6", name="c6_privacy", statement=STATEMENT, experiments=(), analyse=analyse,
              needs=(AUDIT,))
