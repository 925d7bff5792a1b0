"""C7 (Lemma 4.5, Helly): the public-built class G holds a rule at least as good as ERM.

Reads the exact audit ``<results>/c7_helly/helly.csv`` written by ``scripts/exact_audits.py``: on random
small samples, the minimum empirical error over G against the exact ERM halfspace. Lemma 4.5
says ``min_G <= ERM`` always; as a control that the check can fail, G restricted to single
halfspaces (j <= 1) is counted where it is worse than ERM. An exact audit: "exact audit: passes
(N instances)" or "exact audit: FAILS (...)" (:func:`claims.rules.accounting.audit_verdict`), never
counted as statistical evidence.
"""

from __future__ import annotations

import pandas as pd

from claims.rules.accounting import audit_verdict
from claims.base import Claim, VerdictRow, trial_set

STATEMENT = "G holds a rule at least as good as ERM (Lemma 4.5, Helly)"
AUDIT = "c7_helly/helly.csv"
STATISTIC = "exact_min_error_over_G_vs_erm"  # violations of min_G error <= ERM's error


def analyse(results) -> list[VerdictRow]:
    c7 = pd.read_csv(results.root / AUDIT)
    d2 = c7[c7.d >= 2]
    return [VerdictRow(
        claim="C7", figure="",
        setting=f"{len(c7)} random instances, d=1,2,3 (n<=15, 10, 8), exact min over G "
                "(production scorer) vs exact ERM",
        paper="G holds a hypothesis at least as good as ERM (Lemma 4.5, Helly)",
        measured=f"violations {int(c7['violation'].sum())}/{len(c7)}; control: single "
                 f"halfspaces (j<=1) worse than ERM in {int(d2['single_worse'].sum())}/{len(d2)} "
                 f"d>=2 instances; exact, {len(c7)} instances",
        theory="0 violations",
        verdict=audit_verdict(not c7["violation"].any(), len(c7), "instances",
                              detail=f"{int(c7['violation'].sum())} violations"),
        statistic=STATISTIC, trials=trial_set(AUDIT.removesuffix(".csv")),
        extra=f"{len(c7)} exact audits")]


CLAIM = Claim(id="C7", name="c7_helly", statement=STATEMENT, experiments=(), analyse=analyse,
              needs=(AUDIT,))
