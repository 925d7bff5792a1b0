"""What a row of the verdict table is, and whether it is counted as evidence.

Three rules, shared by the claims and by the verdict table (:mod:`claims.reporting.report`):

1. **Audits and checks are not evidence.** An exact audit of a proven lemma (C6, C7, C15's
   privacy audit) or a built-in check can fail only through a bug: it is shown as what it is,
   "exact audit: passes (N neighbouring pairs)" or "exact audit: FAILS (...)"
   (:func:`audit_verdict`; "statistical audit: ..." for a sampled one), in its own section of
   ``results/summary.md``, never in the statistical verdict table, and never counted by
   :func:`claims.rules.verdicts.combined_verdict`'s statistical rows. A failed audit is loud: the
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
4. **One trial set, one counted row** (:func:`one_per_trial_set`, applied to every claim by
   :func:`claims.reporting.report.analyse`). Every row names what it computes (``statistic``) and
   the trials it reads (``trials``); within a claim, counted rows that read a common trial (several
   alphas read off the same trials, say) are counted once, as one joint row that holds only
   when each of them holds (an intersection-union reading, :func:`intersection_union`); the
   single readings stay as breakdowns. Distinct claims may read the same trials: their
   ``trials`` columns say so, and no table adds up claims.
"""

from __future__ import annotations

import math
import re

import numpy as np

from claims.base import SMOKE_PREFIX
from claims.rules.outcomes import FASTER
from claims.rules.verdicts import CHECK_FAILED, combined_verdict

EXACT_AUDIT = "exact audit"
STAT_AUDIT = "statistical audit"
AUDITS = (EXACT_AUDIT, STAT_AUDIT)
PRIVACY_AUDIT = "privacy audit"  # ``extra`` of the rows of claims/privacy_audits.py
PASSES, FAILS_WORD = "passes", "FAILS"
UNDERPOWERED = "UNDERPOWERED"  # no violation found; the audit missed its positive control
# an outer band edge further than this many times the measured value from the alternative is
# one no plausible measurement reaches: the band cannot be missed there (rule 2)
PLAUSIBLE = 10.0
KINDS = ("statistical", "audit", "check", "reference", "breakdown", "same measurement")


def _plain(verdict) -> str:
    return str(verdict).removeprefix(SMOKE_PREFIX)


def audit_verdict(passed: bool, count: int, unit: str = "instances", exact: bool = True,
                  detail: str = "", underpowered: bool = False) -> str:
    """"exact audit: passes (5246 neighbouring pairs)" or "exact audit: FAILS (... ; detail)";
    ``underpowered``: no violation found, but the audit missed its positive control, so it
    cannot vouch for the guarantee at that leak: "statistical audit: UNDERPOWERED (N runs;
    detail)". Not a failure (nothing found is wrong with the learner), never "passes"."""
    head = EXACT_AUDIT if exact else STAT_AUDIT
    if passed and underpowered:
        return f"{head}: {UNDERPOWERED} ({int(count)} {unit}" + (f"; {detail})" if detail else ")")
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
    statistical rows (:func:`claims.rules.verdicts.combined_verdict`, with its checks) and kind
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
        checks = [v for v, k in zip(verdicts, kinds) if k == "check"]
        if checks:  # the claim's other rows are checks (constructions): said beside the audit
            n_ok = sum(not failed(v) for v in checks)
            head, kind = claim_verdict([v for v, k in zip(verdicts, kinds) if k != "check"],
                                       [e for e, k in zip(extras, kinds) if k != "check"])
            tail = f"its other rows are checks only ({n_ok} of {len(checks)} passed)"
            if n_ok < len(checks):
                return f"CHECK FAILED ({len(checks) - n_ok} of {len(checks)}); {head}; {tail}", kind
            return f"{head}; {tail}", kind
        if len(audits) == 1:
            return audits[0], "audit"
        weak = [v for v in audits if f": {UNDERPOWERED}" in _plain(v)]
        word = FAILS_WORD if bad else PASSES
        head = EXACT_AUDIT if all(_plain(v).startswith(EXACT_AUDIT) for v in audits) else "audits"
        n_pass = len(audits) - len(bad) - len(weak)
        tail = (f", {len(weak)} {UNDERPOWERED} (no violation found, but each missed its "
                "positive control)" if weak else "")
        return (loud + f"{head}: {word} ({n_pass} of {len(audits)} pass{tail})"
                if not weak or bad else
                f"{head}: {n_pass} of {len(audits)} pass{tail}"), "audit"
    return combined_verdict(rest), ("check" if any(k == "check" for k in kinds) else
                                     "statistical")


# --- rule 4: one trial set, one counted row -------------------------------------------------

JOINT = "every reading of one trial set"
JOINT_PART = f"counted jointly ({JOINT})"


def joint_part_verdict(verdict) -> str | None:
    """The verdict of a reading that :func:`one_per_trial_set` made a breakdown (what it says
    on its own, e.g. to size a design that would decide it), or ``None`` for any other row."""
    v = _plain(verdict)
    marker = f"{JOINT_PART}): "
    if v.startswith("breakdown (") and marker in v:
        return v.split(marker, 1)[1]
    return None


def _varying_label(parts) -> list[str]:
    """A short label per part: the one setting column that varies among them, else ``extra``
    (else the setting)."""
    for name in ("alpha", "epsilon", "d", "w_pub"):
        vals = [getattr(r, name) for r in parts]
        finite = [v for v in vals if isinstance(v, (int, float)) and math.isfinite(v)]
        if len(finite) == len(vals) and len(set(finite)) == len(vals):
            return [f"{name} {v:g}" for v in vals]
    return [str(r.extra or r.setting) for r in parts]


def _first_clause(text: str) -> str:
    """``text`` up to its first "; " outside parentheses (a reading's headline measurement)."""
    depth = 0
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if ch == ";" and depth <= 0:
            return text[:i]
    return text


def intersection_union(verdicts) -> str:
    """The joint verdict of ``k`` readings of one trial set (rule 4): an intersection-union
    reading, so no multiplicity correction is needed for it. "holds" only when every reading
    holds (each at its own 95% level: the joint statement "holds at every reading" is then at
    95% too); a common other conclusive outcome ("does not hold", faster, between) when every
    reading has it; otherwise "inconclusive", saying how the readings split (one reading that
    does not hold among others that hold is not counted as a failure: that would be the
    best of k tests, whose level is not 95%)."""
    from claims.rules.verdicts import outcome_kind
    from claims.rules.outcomes import BETWEEN, FAILS, HOLDS, inconclusive

    verdicts = [_plain(v) for v in verdicts]
    kinds = [outcome_kind(v) for v in verdicts]
    k = len(verdicts)
    if len(set(kinds)) == 1 and kinds[0] != "inconclusive":
        kind = kinds[0]
        if kind == "holds":
            caveat = [v for v in verdicts if "caveat" in v]
            return HOLDS if not caveat else f"holds with caveat ({caveat[0]})"
        word = {"fails": FAILS, "faster": FASTER, "between": BETWEEN}[kind]
        return f"{word} (at every one of its {k} readings)"
    if set(kinds) == {"inconclusive"}:
        return inconclusive(f"every one of its {k} readings of one trial set is inconclusive; "
                            "counted only when every reading agrees")
    counts = {}
    for kind in kinds:
        counts[kind] = counts.get(kind, 0) + 1
    words = {"holds": "hold", "fails": "do not hold", "faster": "faster", "between": "between",
             "inconclusive": "inconclusive"}
    split = ", ".join(f"{n} {words[kind]}" for kind, n in counts.items())
    return inconclusive(f"its {k} readings of one trial set disagree: {split}; counted only "
                        "when every reading agrees")


def one_per_trial_set(rows):
    """Rule 4, the same for every claim: within a claim no two counted rows read a common
    trial (:func:`claims.base.share_trials` on their ``trials``). The counted rows of a claim
    that share trials (connected through any common trial) become breakdowns, and one joint
    row (:func:`intersection_union`) stands for them, with ``statistic`` ``every(<ids>)`` and
    the union of their trials. Rows of other kinds, and counted rows alone on their trials,
    are returned unchanged. A counted row that names no trials is refused (it cannot be
    accounted for)."""
    from claims.base import VerdictRow, share_trials, trial_set
    from claims.rules.verdicts import counted

    out = list(rows)
    live = [i for i, r in enumerate(out)
            if row_kind(r.verdict, r.extra) == "statistical" and counted(r.verdict)]
    for i in live:
        if not str(out[i].trials).strip():
            raise ValueError(f"{out[i].claim}: the counted row {out[i].setting!r} names no "
                             "trials (VerdictRow.trials)")
    group = {i: i for i in live}  # union-find over rows sharing a trial

    def root(i):
        while group[i] != i:
            i = group[i]
        return i

    for a_pos, a in enumerate(live):
        for b in live[a_pos + 1:]:
            if out[a].claim == out[b].claim and share_trials(out[a].trials, out[b].trials):
                group[root(b)] = root(a)
    comps: dict[int, list[int]] = {}
    for i in live:
        comps.setdefault(root(i), []).append(i)
    joints = {}
    for members in comps.values():
        if len(members) < 2:
            continue
        parts = [out[i] for i in members]
        labels = _varying_label(parts)
        trials = trial_set(*[p for r in parts for p in str(r.trials).split(";") if p])
        stats = list(dict.fromkeys(r.statistic for r in parts))
        joint = VerdictRow(
            claim=parts[0].claim, figure=parts[0].figure,
            setting=f"{JOINT} ({trials}): {', '.join(labels)}",
            paper=parts[0].paper,
            measured="; ".join(f"{lab}: {_first_clause(r.measured)} -> {_plain(r.verdict)}"
                               for lab, r in zip(labels, parts)),
            theory=parts[0].theory if len({r.theory for r in parts}) == 1 else
            "each reading against its own band: " + " | ".join(r.theory for r in parts),
            looseness=float(np.nanmedian([r.looseness for r in parts]))
            if np.isfinite([r.looseness for r in parts]).any() else math.nan,
            verdict=intersection_union([r.verdict for r in parts]),
            statistic=f"every({'+'.join(s for s in stats if s)})", trials=trials,
            extra=f"{JOINT}: {', '.join(labels)}")
        for name in ("d", "epsilon", "alpha", "w_pub"):
            vals = {getattr(r, name) for r in parts}
            if len(vals) == 1:
                setattr(joint, name, vals.pop())
        joints[members[0]] = joint
        for lab, i in zip(labels, members):
            out[i].verdict = breakdown(f"one of {len(members)} readings of the trials of "
                                       f"{trials}, {JOINT_PART}", out[i].verdict)
            out[i].grid_verdict = (breakdown("counted jointly", out[i].grid_verdict)
                                   if out[i].grid_verdict else out[i].grid_verdict)
    result = []
    for i, r in enumerate(out):
        if i in joints:
            result.append(joints[i])
        result.append(r)
    return result
