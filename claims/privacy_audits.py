"""Privacy audits of every private learner of the repository (audits, never counted as evidence).

Reads ``<results>/privacy_audits/audit.csv`` (written by ``scripts/privacy_audits.py``; method
in docs/privacy_audits.md) and gives one "privacy audit" row per private learner of
:data:`LEARNERS` (derived from what each learner declares beside its class, ppm.audit_spec), of kind

* **exact**: the output law enumerated on tiny inputs and every neighbour compared
  (BMN20's ``PPMHalfspaceLearner``: claim C6's audit; BNS15's private active learner: claim
  C15's; LabelBoost's wrapper: ``tests/test_label_boost_audit.py``);
* **statistical**: :mod:`analysis.privacy_audit`, a 95% lower confidence bound
  ``epsilon_lb`` on the privacy loss from fresh runs (Clopper-Pearson), against the stated
  epsilon;
* **none**: no audit. A learner the file lists as ``none`` (with the reason: DP logistic
  regression, docs/privacy_audits.md) reads "none (not audited: reason)", not a failure; a
  learner missing from the file altogether is a failed audit (every private learner must at
  least be accounted for).

Rule (:func:`claims.rules.accounting.audit_verdict`, rows marked ``extra = "privacy audit"`` so that
the verdict table lists them with the audits, never as evidence): "exact audit: passes (N
neighbouring pairs)" / "statistical audit: passes (N runs)" iff the audit passes (``epsilon_lb
<= epsilon``) AND its positive control fails (the same learner with its noise mis-scaled,
audited against the same stated epsilon, gives ``epsilon_lb > epsilon``); "...: FAILS (...)"
when the stated epsilon is violated; "statistical audit: UNDERPOWERED (...)" when no violation
is found but the control was not caught: the audit had no power on its pairs and run counts
against that leak, so it vouches for nothing there (shown as such, never as "passes", and not
as a failure of the learner). The control read is the one at ``factor``
:data:`CONTROL_FACTOR` (2: the learner stated to lose twice its budget, the factor-2 bug) where
the file has it, else the learner's only control (the exact active learner's: without its
pool). Where the stated epsilon is a loose bound (the file's ``exact_loss`` of the 2x leak is
within it, so no audit can catch that leak at any run count) the control read is the file's
``control_factor``, the smallest multiplier whose exact loss exceeds epsilon, and the measured
text says why; with none such the verdict reads "UNDERPOWERED (...; cannot be caught at any
run count: the stated bound is loose by factor ...)" (docs/privacy_audits.md, "Loose bounds"); the measured text also gives the smallest multiplier the audit detects
(``smallest_detected``, its power curve over the multipliers, docs/privacy_audits.md). An audit that lives in the test suite (LabelBoost)
reads "exact audit: in the test suite (...)", without a number.
"""

from __future__ import annotations

import math
import re

import pandas as pd

from claims.rules.accounting import PRIVACY_AUDIT, audit_verdict
from claims.base import Claim, VerdictRow, trial_set
from ppm.audit_spec import declared

AUDIT = "privacy_audits/audit.csv"
STATEMENT = "every private learner is (epsilon, delta)-DP w.r.t. its own neighbour relation"
# The private learners of ppm/ (one row each), by the names the audit script writes: every
# declaration of the registry's private learners, in the order of its ``row`` (ppm.audit_spec).
LEARNERS = tuple(name for name, _, a in sorted(declared(), key=lambda t: t[2].row))
# provenance ids (VerdictRow.statistic) per kind of audit; a learner missing from the file
STATISTIC = {"exact": "exact_privacy_loss", "statistical": "privacy_audit_epsilon_lb",
             "none": "not_audited"}
MISSING = "privacy_audit_missing"
CONTROL_FACTOR = 2.0
IN_TESTS = "in the test suite"
NOT_AUDITED = "none (not audited"  # a documented gap (kind none): an audit row, not a failure


def _num(v, digits: int = 3) -> str:
    return "n/a" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{digits}f}"


def audit_trials(learner: str, rows: pd.DataFrame) -> str:
    """The ``trials`` of one learner's row: its rows of ``privacy_audits/audit.csv``
    (narrowed to the learner: each learner's audit is its own runs), and the results table its
    ``source`` names when the audit was run elsewhere (PPM's: ``c6_privacy/audit.csv``)."""
    parts = [(AUDIT.removesuffix(".csv"), {"learner": learner})]
    for source in rows.get("source", pd.Series(dtype=str)).dropna().astype(str):
        parts += [m for m in re.findall(r"results/([\w/.-]+?)\.csv", source)]
    return trial_set(*parts)


def _row(learner: str, rows: pd.DataFrame) -> VerdictRow:
    if rows.empty:
        return VerdictRow(claim="PA", figure="", setting=f"privacy audit of {learner} (none)",
                          statistic=MISSING, trials=audit_trials(learner, rows),
                          paper=STATEMENT, measured="none: no audit of this learner",
                          theory="epsilon_lb <= epsilon; control's epsilon_lb > epsilon",
                          verdict=audit_verdict(False, 0, "runs", exact=False,
                                                detail="no audit of this learner in the file"),
                          extra=PRIVACY_AUDIT)
    kind = next(k for k in ("exact", "statistical", "none") if (rows["kind"] == k).any())
    rows = rows[rows["kind"] == kind]
    real = rows[~rows["control"].astype(bool)].iloc[0]
    ctrl = rows[rows["control"].astype(bool)]
    factor, loose = _control_factor(real), ""
    if factor != CONTROL_FACTOR:  # a loose stated bound: the exact loss says which control
        loose = _loose_note(real, rows, factor)
    if "factor" in ctrl and (ctrl["factor"] == factor).any():
        ctrl = ctrl[ctrl["factor"] == factor]
    elif not math.isfinite(factor):
        ctrl = ctrl.iloc[:0]
    what = "exact largest loss" if kind == "exact" else "epsilon_lb (95% lower bound)"
    common = dict(claim="PA", figure="", paper=f"{real['paper']}: {STATEMENT} "
                  f"({real['neighbours']})", epsilon=float(real["epsilon"]),
                  statistic=STATISTIC[kind], trials=audit_trials(learner, rows),
                  extra=PRIVACY_AUDIT)
    if kind == "none":
        return VerdictRow(**common, setting=f"privacy audit of {learner} (none)",
                          measured=f"none: {real['setting']}",
                          theory="epsilon_lb <= epsilon; control's epsilon_lb > epsilon",
                          verdict=f"{NOT_AUDITED}: {real['setting'].split(';')[0]})")
    if real["verdict"] == IN_TESTS:
        return VerdictRow(**common, setting=f"privacy audit of {learner} (exact, test suite)",
                          measured=f"exact audit in {real['source']}: {real['setting']}",
                          theory="worst loss <= epsilon",
                          verdict=f"exact audit: {IN_TESTS} ({real['source']}; not rerun here)")
    measured = (f"{what} = {_num(real['epsilon_lb'])} vs stated epsilon "
                f"{_num(real['epsilon'])} (delta {real['delta']:g}; {int(real['runs'])} "
                f"{'neighbouring pairs' if kind == 'exact' else 'runs'}): {real['verdict']}")
    caught = False
    measured += loose
    if ctrl.empty:
        measured += "; no positive control" if not loose else ""
    else:
        c = ctrl.iloc[0]
        caught = c["verdict"] == "fails"
        control = c["setting"].split("CONTROL: ")[-1]
        measured += (f"; positive control ({control}): {what} = {_num(c['epsilon_lb'])} vs "
                     f"{_num(c['epsilon'])}: {'caught' if caught else 'NOT caught'}")
        smallest = real.get("smallest_detected", math.nan)
        if kind == "statistical" and not pd.isna(smallest):
            measured += ("; smallest multiplier detected: " + (
                f"{smallest:g}x" if math.isfinite(smallest) else "none of those tried"))
    passed = real["verdict"] == "passes"
    if passed and not math.isfinite(factor):
        detail = ("cannot be caught at any run count: the stated bound is loose by factor "
                  f"{real['epsilon'] / real['exact_loss']:.1f}")
    else:
        detail = ""
    detail = detail or ("the stated epsilon is violated" if not passed else
              "no violation found, but its positive control was not caught: at these runs it "
              "cannot vouch for the guarantee against that leak" if not caught else "")
    return VerdictRow(**common, setting=f"privacy audit of {learner} ({kind}): "
                      f"{real['setting']}", measured=measured,
                      theory="epsilon_lb <= epsilon; control's epsilon_lb > epsilon",
                      verdict=audit_verdict(passed, int(real["runs"]),
                                            "neighbouring pairs" if kind == "exact" else "runs",
                                            exact=kind == "exact", detail=detail,
                                            underpowered=passed and not caught))


def _control_factor(real) -> float:
    """The multiplier of the control the verdict reads: the file's ``control_factor`` (the
    script's rule, docs/privacy_audits.md "Loose bounds"), else :data:`CONTROL_FACTOR`."""
    v = real.get("control_factor", math.nan)
    return CONTROL_FACTOR if v is None or pd.isna(v) else float(v)


def _loose_note(real, rows: pd.DataFrame, factor: float) -> str:
    """Why the 2x control is not the one read: its exact loss is within the stated epsilon."""
    eps, one = float(real["epsilon"]), float(real["exact_loss"])
    two = rows.loc[rows["factor"] == CONTROL_FACTOR, "exact_loss"]
    note = (f"; the {CONTROL_FACTOR:g}x control cannot be caught at any run count: its exact "
            f"loss {float(two.iloc[0]) if len(two) else math.nan:.3f} <= stated {eps:.3f} (the "
            f"stated bound is loose by factor {eps / one:.1f}: exact loss {one:.3f} at 1x)")
    if not math.isfinite(factor):
        return note + "; no multiplier tried makes the exact loss exceed epsilon"
    at = rows.loc[rows["factor"] == factor, "exact_loss"]
    return note + (f"; the control read is {factor:g}x, the smallest multiplier whose exact "
                   f"loss ({float(at.iloc[0]):.3f}) exceeds epsilon")


def analyse(results, learners=LEARNERS) -> list[VerdictRow]:
    audit = pd.read_csv(results.root / AUDIT)
    return [_row(name, audit[audit["learner"] == name]) for name in learners]


CLAIM = Claim(id="PA", name="privacy_audits", statement=STATEMENT, experiments=(),
              analyse=analyse, needs=(AUDIT,))
