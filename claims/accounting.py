"""What a row of the verdict table is, and whether it is counted as evidence.

Three rules, shared by the claims and by the verdict table (:mod:`claims.report`):

1. **Audits and checks are not evidence.** An exact audit of a proven lemma (C6, C7, C15's
   privacy audit) or a built-in check can fail only through a bug: it is shown as what it is,
   "exact audit: passes (N neighbouring pairs)" or "exact audit: FAILS (...)"
   (:func:`audit_verdict`; "statistical audit: ..." for a sampled one), in its own section of
   ``results/summary.md``, never in the statistical verdict table, and never counted by
   :func:`claims.verdicts.combined_verdict`'s statistical rows. A failed audit is loud: the
   claim's verdict starts with "AUDIT FAILED" (:func:`claim_verdict`). :func:`row_kind` says
   what a row is (``statistical``, ``audit``, ``check``, ``reference``, ``breakdown``,
   ``same measurement``), from its verdict's prefix and, for the privacy audits of
   ``claims/privacy_audits.py``, from ``extra = "privacy audit"``.
2. **Counted only when it could have failed** (:func:`could_fail`). A row weighed against a
   prediction band and an alternative band counts only if an interval of its own width could
   have excluded each of them at a plausible value of the statistic: a prediction band whose
   outer edge lies more than :data:`PLAUSIBLE` times the measured value away from the
   alternative is an edge the measurement cannot miss (C16's mechanism coefficient, about
   160x the measured ``d n_hat / d ln T``), so the row is a check, not evidence. And a
   "faster than the worst case" row counts only when its interval excludes the alternative's
   band (:func:`faster_counts`): an interval that meets it cannot tell a fast rate from the
   alternative (C12's Set Cover Learner at alpha 0.01).
3. **One fact, one row.** Rows that answer the same question on the same trials are shown as
   breakdowns (:func:`breakdown`), which ``combined_verdict`` does not count.
"""

from __future__ import annotations

import math
import re

import numpy as np

from claims.base import SMOKE_PREFIX
from claims.outcomes import FASTER
from claims.verdicts import CHECK_FAILED, combined_verdict

EXACT_AUDIT = "exact audit"
STAT_AUDIT = "statistical audit"
AUDITS = (EXACT_AUDIT, STAT_AUDIT)
PRIVACY_AUDIT = "privacy audit"  # ``extra`` of the rows of claims/privacy_audits.py
PASSES, FAILS_WORD = "passes", "FAILS"
# an outer band edge further than this many times the measured value from the alternative is
# one no plausible measurement reaches: the band cannot be missed there (rule 2)
PLAUSIBLE = 10.0
KINDS = ("statistical", "audit", "check", "reference", "breakdown", "same measurement")


def _plain(verdict) -> str:
    return str(verdict).removeprefix(SMOKE_PREFIX)


def audit_verdict(passed: bool, count: int, unit: str = "instances", exact: bool = True,
                  detail: str = "") -> str:
    """"exact audit: passes (5246 neighbouring pairs)" or "exact audit: FAILS (... ; detail)"."""
    head = EXACT_AUDIT if exact else STAT_AUDIT
    what = f"{int(count)} {unit}" + (f"; {detail}" if detail and not passed else "")
    return f"{head}: {PASSES if passed else FAILS_WORD} ({what})"


def is_audit(verdict, extra="") -> bool:
    return _plain(verdict).startswith(AUDITS) or str(extra).strip() == PRIVACY_AUDIT


def row_kind(verdict, extra="") -> str:
    """What a row is: one of :data:`KINDS` (module docstring, rule 1)."""
    v = _plain(verdict)
    if is_audit(v, extra):
        return "audit"
    for kind in ("check", "reference", "breakdown", "same measurement"):
        if v.startswith(kind):
            return kind
    return "statistical"


def failed(verdict) -> bool:
    """A failed audit or check (loud wherever it is shown)."""
    v = _plain(verdict)
    return (v.startswith(AUDITS) and f": {FAILS_WORD}" in v) or v.startswith(CHECK_FAILED)


def breakdown(reason: str, verdict: str) -> str:
    """A row shown but not counted (rule 3, and rule 2's fast rows): ``breakdown (reason): v``."""
    return f"breakdown (not counted: {reason}): {verdict}"


def as_check(reason: str, passed: bool, verdict: str = "") -> str:
    """A row whose band cannot be missed (rule 2): "check (reason): passed" or "check:
    FAILED (...)" (loud)."""
    if passed:
        return f"check ({reason}): passed" + (f"; {verdict}" if verdict else "")
    return f"{CHECK_FAILED} ({reason})" + (f"; {verdict}" if verdict else "")


def _meets(lo, hi, band) -> bool:
    return band[0] <= hi and lo <= band[1]


def faster_counts(lo: float, hi: float, band_a) -> bool:
    """Rule 2: a "faster than the worst case" interval counts only if it excludes the
    alternative's band."""
    return bool(np.isfinite([lo, hi]).all()) and not _meets(lo, hi, band_a)


def vacuous_edge(estimate: float, band_p, band_a, factor: float = PLAUSIBLE) -> bool:
    """Does the prediction band's outer edge (the one away from the alternative) lie more than
    ``factor`` times the measured distance from the alternative? (rule 2)"""
    centre = (band_a[0] + band_a[1]) / 2
    if not (np.isfinite(estimate) and np.isfinite(centre)):
        return False
    away = band_p[1] if band_p[0] >= band_a[1] else band_p[0]
    if not np.isfinite(away):
        return False  # an open band ("grows") has no edge to miss; its closed side decides
    dist = abs(estimate - centre)
    return dist > 0 and abs(away - centre) > factor * dist


def could_fail(verdict: str, lo: float, hi: float, estimate: float, band_p, band_a,
               factor: float = PLAUSIBLE) -> str:
    """``verdict``, or its demotion when the row could not have failed (rule 2): a vacuous
    outer edge makes it a check; a fast interval meeting the alternative a breakdown."""
    v = str(verdict)
    if v.startswith(FASTER) and not faster_counts(lo, hi, band_a):
        return breakdown(f"faster than the worst case, but the interval [{lo:.2f}, {hi:.2f}] "
                         f"meets the alternative's band [{band_a[0]:.2f}, {band_a[1]:.2f}]: "
                         "it could not have excluded the alternative", v)
    if v.startswith(("holds", FASTER)) and vacuous_edge(estimate, band_p, band_a, factor):
        away = band_p[1] if band_p[0] >= band_a[1] else band_p[0]
        ratio = abs(away) / abs(estimate) if estimate else math.inf
        return as_check(f"the prediction's edge {away:.3g} lies {ratio:.0f}x beyond the "
                        "measurement: a band it cannot miss is a check, not evidence", True, v)
    return v


_COUNT = re.compile(r"\((\d+) ([^;)]*)")


def audit_count(verdict) -> str:
    """"5246 neighbouring pairs" from an audit verdict, "" if it names none."""
    m = _COUNT.search(_plain(verdict))
    return f"{m.group(1)} {m.group(2).strip()}" if m else ""


def claim_verdict(verdicts, extras=None) -> tuple[str, str]:
    """``(verdict, kind)`` of one claim from its rows (rule 1): the combined verdict of its
    statistical rows (:func:`claims.verdicts.combined_verdict`, with its checks) and kind
    "statistical"; a claim with audits only reads "exact audit: passes (N instances)" and
    kind "audit". A failed audit makes the verdict start with "AUDIT FAILED"."""
    verdicts = [str(v) for v in verdicts]
    extras = list(extras) if extras is not None else [""] * len(verdicts)
    kinds = [row_kind(v, e) for v, e in zip(verdicts, extras)]
    audits = [v for v, k in zip(verdicts, kinds) if k == "audit" and _plain(v).startswith(AUDITS)]
    bad = [v for v in audits if failed(v)]
    loud = (f"AUDIT FAILED ({len(bad)} of {len(audits)} audits failed: a bug); " if bad else "")
    rest = [v for v, k in zip(verdicts, kinds) if k != "audit"]
    if any(k == "statistical" for k in kinds):
        return loud + combined_verdict(rest), "statistical"
    if audits:
        if len(audits) == 1:
            return audits[0], "audit"
        word = FAILS_WORD if bad else PASSES
        head = EXACT_AUDIT if all(_plain(v).startswith(EXACT_AUDIT) for v in audits) else "audits"
        return loud + f"{head}: {word} ({len(audits) - len(bad)} of {len(audits)} pass)", "audit"
    return combined_verdict(rest), ("check" if any(k == "check" for k in kinds) else
                                     "statistical")
