"""C10 (Section 1): methods built for homogeneous public data fail on a mixture.

``c10_homogeneity``: the semi-private learner (public data unlabeled, assumed to come from the
same distribution as the private data) against PPM as the public and private sub-populations
move apart (shift = 1 - 2 eta: 0 homogeneous, 1 label-determined). At the largest n, the paired
error difference semi-private minus PPM must be > 0 at shift 1 and about 0 at shift 0 (its
interval within ``TOL``; significantly beyond it: a caveat; neither: inconclusive). At shift 1
every private label is 1, so the semi-private learner (which ignores the public labels) has no
negative example: its failure is structural. The variant that scores the public labels too
(``semi_private_all``) is reported as a finding when it beats PPM, never as a failure of PPM.
``c10_generic``: the same test for the published learner, BNS15's GenericLearner (Algorithm
1; its sanitizer is our Laplace-tree substitute for Blum-Ligett-Roth), with the public points as
its unlabelled sample and the private examples as its labelled one; d = 1 (the sanitizer exists
for thresholds only), next to the one-dichotomy cover (``semi_private``) and PPM at d = 1.

What counts (:mod:`claims.rules.accounting`): nothing; C10's rows are checks and one finding.
BMN20's statement (Section 1) is that a method built for homogeneous public data *can* fail on a
mixture: a worst-case statement, which the construction below shows (the checks) and which no
benign population can refute. The comparison with the baseline that is not built to fail
(:func:`fair_row`: ``semi_private_all``, the semi-private learner that also scores the public
labels, so it assumes nothing about which label is public) is shown as a finding, not counted
(:data:`FINDING`): its rule was written after the difference had been seen, and a learner that
beats PPM on this Gaussian population says nothing about the worst case. Its statistic is the
paired error difference ``error(semi_private_all) - error(PPM)`` at shift 1 and the largest n
(:data:`STATISTIC`); the rule, from BMN20's statement (Section 1: a method built for
homogeneous public data fails on a mixture) with C10's parity margin ``TOL``: parity at shift 0
(the upper end of the shift-0 difference within ``TOL``) is its precondition; then **holds**
(the method fails on the mixture) when the shift-1 interval lies entirely above ``TOL``, **does
not hold** when its upper end is at most ``TOL`` (no failure beyond the parity margin),
**inconclusive** when it straddles ``TOL``. The difference at every shift is reported beside it.

The rest are checks. The failure at shift 1
follows from the construction (every private label is 1, so a learner that reads only the
private labels has no negative example): a built-in check per learner ("check: passed" /
"check: FAILED"), not evidence. The parity at shift 0 (the difference's interval within ``TOL``,
a margin fixed by design) is a precondition, not the claim: on homogeneous data every method
should match PPM. So it is a check per learner too (:func:`claims.rules.accounting.as_check`):
"check (precondition ...): passed" when the parity holds; a "reference (precondition not met, not a
bug: ...)" row when it does not hold or is not established (a property of that baseline, shown
and not counted) (an interval that straddles ``TOL`` names the paired trials that
would decide it, :func:`decide_text`). ``c10_generic`` runs 400 trials per cell: at 40 the
GenericLearner's shift-0 difference +0.016 [+0.008, +0.025] straddled the margin, and 400
trials at n = 1024 (about 0.1 CPU-hours) decided it: +0.024 [+0.021, +0.028], beyond the margin
(its parity check fails).

Provenance (``VerdictRow.statistic`` / ``trials``): both rows of a learner are the paired error
difference learner minus PPM (:data:`STATISTIC`), each read off its own cells of the sweep at
the largest n (``<experiment>[n=..,shift=0]`` and ``[n=..,shift=1]``; shift = 1 - 2 eta). The
counted row reads both cells (the shift-1 difference, its precondition at shift 0): the same
samples as the semi-private learner's checks (every learner is fitted on the same sample),
which are not counted, so the sweep has one counted row.
"""

from __future__ import annotations

import numpy as np

from claims.reporting import plotting
from claims.rules.accounting import as_check
from claims.base import Claim, VerdictRow, trial_set
from claims.rules.verdicts import check_verdict, error_resolution, mean_ci, paired_difference
from experiments.columns import D, ERM, ETA, GENERIC, PPM, SEMI_PRIVATE, SEMI_PRIVATE_ALL

STATEMENT = "methods built for homogeneous public data fail on a mixture"
TOL = 0.02  # "about 0" at shift 0: the difference's upper bound within 2 points of error
GL = GENERIC  # the main learner's label in c10_generic
STATISTIC = "paired_error_difference"  # error(learner) - error(PPM), paired on the trial
PARITY = f"precondition: parity with PPM on homogeneous data, interval within {TOL:g}"


def _trials(results, experiment="c10_homogeneity"):
    data = results.load(experiment)
    return None if data is None else data[0].assign(shift=1.0 - 2.0 * data[0][ETA])


def _row(trials, learner: str, name: str, experiment: str) -> VerdictRow:
    n = int(trials["n"].max())
    big = trials[trials.n == n]
    s0, s1 = big["shift"].min(), big["shift"].max()
    # every interval at least the test sample's resolution: never of zero width
    res = error_resolution(big)
    m0, lo0, hi0 = paired_difference(big[big["shift"] == s0], learner, PPM, ["n"], res)
    m1, lo1, hi1 = paired_difference(big[big["shift"] == s1], learner, PPM, ["n"], res)
    sp0 = mean_ci(big[(big["shift"] == s0) & (big.learner == learner)]["error"],
                  resolution=res)
    variant, finding = "", ""
    if SEMI_PRIVATE_ALL in set(big.learner):
        mv, lov, hiv = paired_difference(big[big["shift"] == s1], SEMI_PRIVATE_ALL, PPM,
                                         ["n"], res)
        variant = (f"; variant scoring public labels too, shift {s1:g}: "
                   f"{mv:+.3f} [{lov:+.3f}, {hiv:+.3f}]")
        # at shift 1 every private label is 1: a learner that ignores the public labels has
        # no negative example, so its failure is structural; a variant that scores the public
        # labels too is a different method, and beating PPM there is a finding, not a failure
        if np.isfinite(hiv) and hiv < 0:
            finding = (f"; finding: the variant scoring public labels too beats PPM at shift "
                       f"{s1:g} ({mv:+.3f} [{lov:+.3f}, {hiv:+.3f}]): the semi-private "
                       "learner's failure is structural (no negative private labels), not a "
                       "limit of every learner that uses the public data")
    if learner != SEMI_PRIVATE and SEMI_PRIVATE in set(big.learner):
        mc, loc, hic = paired_difference(big[big["shift"] == s1], SEMI_PRIVATE, PPM, ["n"],
                                         res)
        variant = (f"; one-dichotomy cover (raw public points), shift {s1:g}: "
                   f"{mc:+.3f} [{loc:+.3f}, {hic:+.3f}]")
    fails_on_mixture = bool(np.isfinite(lo1) and lo1 > 0)
    # "about 0" at shift 0 is an equivalence test on the difference itself (no escape through
    # a small error of the learner alone): within TOL, or significantly beyond it
    works_homogeneous = bool(np.isfinite(hi0) and hi0 <= TOL)
    weak_homogeneous = bool(np.isfinite(lo0) and lo0 > TOL)
    d = int(trials[D].iloc[0])
    n_pairs = int(((big["shift"] == s0) & (big.learner == learner)).sum())
    setting = f"{name}, d={d}, n={n}, shift {s0:g}..{s1:g}"
    if not np.isfinite(hi0):
        v = "not established (no interval: no spread and no resolution)"
    elif works_homogeneous:
        v = f"shift {s0:g}: {m0:+.3f} [{lo0:+.3f}, {hi0:+.3f}] within {TOL:g}"
    elif weak_homogeneous:
        v = (f"{name} worse than PPM when homogeneous: shift {s0:g}: "
             f"{m0:+.3f} [{lo0:+.3f}, {hi0:+.3f}] beyond {TOL:g}; a property of this "
             "baseline, not a bug: the comparison at shift 1 presumes a baseline that matches "
             "PPM on homogeneous data")
    else:
        v = (f"not established: at shift {s0:g} the difference {m0:+.3f} [{lo0:+.3f}, "
             f"{hi0:+.3f}] is neither within {TOL:g} nor beyond it; "
             + decide_text(m0, lo0, hi0, n_pairs))
    parity_row = VerdictRow(
        claim="C10", figure="c10_homogeneity", setting=setting + ": parity when homogeneous",
        paper=STATEMENT,
        measured=(f"error({name}) - error(PPM), paired, shift {s0:g}: "
                  f"{m0:+.3f} [{lo0:+.3f}, {hi0:+.3f}] ({n_pairs} paired trials); {name} error "
                  f"at shift {s0:g}: {sp0[0]:.3f}"),
        theory=(f"about 0 at shift {s0:g} (homogeneous: interval within {TOL:g}, the margin "
                f"fixed by design): a precondition (every method should match PPM on "
                f"homogeneous data), a check, not evidence; the failure at shift {s1:g} follows "
                "from the construction (a check, below); C10's counted comparison is the "
                "baseline not built to fail there (semi_private_all, its own row)"),
        # met: a check that passed; not met (or not established): a property of the baseline,
        # not a bug, so a reference row (shown, not counted, never "check: FAILED")
        verdict=(as_check(PARITY, True, v) if works_homogeneous
                 else f"reference (precondition not met, not a bug: {v})"),
        statistic=STATISTIC,
        trials=trial_set((experiment, {"n": n, "shift": s0})),
        d=d, extra=f"{experiment}, n={n}, shift {s0:g} parity check")
    check_row = VerdictRow(
        claim="C10", figure="c10_homogeneity", setting=setting + ": failure on the mixture",
        paper=STATEMENT,
        measured=(f"error({name}) - error(PPM), paired, shift {s1:g}: "
                  f"{m1:+.3f} [{lo1:+.3f}, {hi1:+.3f}]{variant}{finding}"),
        theory=(f"> 0 at shift {s1:g} by construction: every private label is 1 there, so a "
                "learner that reads only the private labels has no negative example; a check, "
                "not evidence"),
        # without parity at shift 0 the failure at shift 1 cannot be read as the mixture's:
        # shown as a reference, not as a check that passed
        verdict=(check_verdict(fails_on_mixture, f"shift {s1:g}: {m1:+.3f} [{lo1:+.3f}, "
                                                 f"{hi1:+.3f}] meets 0") if works_homogeneous
                 else f"reference (precondition at shift {s0:g} not met: the difference at "
                      f"shift {s1:g} is not the mixture's alone): {m1:+.3f} [{lo1:+.3f}, "
                      f"{hi1:+.3f}]"),
        statistic=STATISTIC, trials=trial_set((experiment, {"n": n, "shift": s1})),
        d=d, extra=f"{experiment}, n={n}, shift {s1:g} check")
    return [parity_row, check_row]


# Why the variant's row is shown, not counted (module docstring, "What counts").
FINDING = ("reference (not counted: a finding, not a test of the claim: BMN20's 'fails' is a "
           "worst-case statement and this population is not a worst case, and the rule was "
           "written after the difference had been seen)")


def fair_verdict(d0: tuple, d1: tuple, tol: float = TOL) -> str:
    """The rule of the counted row (module docstring) on the paired differences ``d0`` (shift
    0) and ``d1`` (shift 1), each ``(mean, lo, hi)``: parity at shift 0 first (its upper end
    within ``tol``; otherwise "inconclusive": the shift-1 difference would not be the
    mixture's alone), then the shift-1 interval entirely above ``tol``: holds; its upper end
    at most ``tol``: does not hold; straddling ``tol``: inconclusive."""
    if not (isinstance(tol, (int, float)) and tol > 0):
        raise ValueError(f"tol must be a number > 0, got {tol!r}")
    (m0, lo0, hi0), (m1, lo1, hi1) = d0, d1
    if not np.isfinite([lo0, hi0, lo1, hi1]).all():
        return "inconclusive (no interval: no spread and no resolution)"
    at1 = f"shift 1: {m1:+.3f} [{lo1:+.3f}, {hi1:+.3f}]"
    if hi0 > tol:
        return (f"inconclusive (precondition not met: at shift 0 the difference {m0:+.3f} "
                f"[{lo0:+.3f}, {hi0:+.3f}] reaches above {tol:g}, so the difference at "
                f"{at1} is not the mixture's alone)")
    if lo1 > tol:
        return (f"holds (fails on the mixture: {at1} lies entirely above {tol:g}, with parity "
                "at shift 0)")
    if hi1 <= tol:
        better = ("; it beats PPM there: the whole interval lies below 0" if hi1 < 0 else "")
        return (f"does not hold (no failure on the mixture beyond the parity margin: {at1}, "
                f"upper end within {tol:g}{better})")
    return f"inconclusive ({at1} straddles {tol:g})"


def fair_row(trials, experiment: str = "c10_homogeneity") -> VerdictRow | None:
    """The counted row: ``semi_private_all`` against PPM across the shift (module docstring);
    ``None`` when the sweep has no ``semi_private_all``."""
    if SEMI_PRIVATE_ALL not in set(trials.learner):
        return None
    n = int(trials["n"].max())
    big = trials[trials.n == n]
    res = error_resolution(big)
    shifts = np.sort(big["shift"].unique())
    s0, s1 = float(shifts.min()), float(shifts.max())
    diffs = {float(s): paired_difference(big[big["shift"] == s], SEMI_PRIVATE_ALL, PPM, ["n"],
                                         res) for s in shifts}
    d0, d1 = diffs[s0], diffs[s1]
    pairs = int(((big["shift"] == s1) & (big.learner == SEMI_PRIVATE_ALL)).sum())
    d = int(trials[D].iloc[0])
    across = "; ".join(f"shift {s:g}: {m:+.3f} [{lo:+.3f}, {hi:+.3f}]"
                       for s, (m, lo, hi) in sorted(diffs.items()))
    # the other sizes of the sweep, at shift 1 (reported, not read by the rule)
    for n_other in sorted(set(trials["n"]) - {n}):
        small = trials[(trials.n == n_other) & (trials["shift"] == s1)]
        m, lo, hi = paired_difference(small, SEMI_PRIVATE_ALL, PPM, ["n"], res)
        across += f"; at n={n_other}, shift {s1:g}: {m:+.3f} [{lo:+.3f}, {hi:+.3f}]"
    return VerdictRow(
        claim="C10", figure="c10_homogeneity",
        setting=(f"semi-private scoring public labels too, d={d}, n={n}, shift {s0:g}..{s1:g}: "
                 "the baseline not built to fail"),
        paper=STATEMENT,
        measured=(f"error(semi_private_all) - error(PPM), paired ({pairs} trials per shift), "
                  f"shift {s1:g}: {d1[0]:+.3f} [{d1[1]:+.3f}, {d1[2]:+.3f}]; at every shift: "
                  f"{across}; change from shift {s0:g} to {s1:g} (context): "
                  f"{d1[0] - d0[0]:+.3f}"),
        theory=(f"BMN20 (Section 1): a method built for homogeneous public data fails on a "
                f"mixture: parity at shift {s0:g} (upper end within {TOL:g}, the precondition), "
                f"above {TOL:g} at shift {s1:g} (the interval entirely above it); alternative: "
                f"no failure, the shift-{s1:g} upper end within {TOL:g}"),
        verdict=f"{FINDING}: {fair_verdict(d0, d1)}",
        statistic=STATISTIC,
        trials=trial_set((experiment, {"n": n, "shift": s0}), (experiment, {"n": n, "shift": s1})),
        d=d, extra=f"{experiment}, n={n}, fair baseline")


def decide_text(m0: float, lo0: float, hi0: float, n_pairs: int) -> str:
    """The design that would decide an equivalence at shift 0 the interval straddles: the
    trials that shrink the half-width below ``TOL - |mean|`` (half-width ~ 1/sqrt(trials))."""
    half, room = (hi0 - lo0) / 2, TOL - abs(m0)
    if not (np.isfinite(half) and half > 0 and room > 0 and n_pairs > 0):
        return "the mean sits at the margin: no number of trials decides it"
    need = int(np.ceil(n_pairs * (half / room) ** 2))
    return (f"about {need} paired trials at this n decide it if the true difference stays "
            f"near {m0:+.3f}")


def analyse(results) -> list[VerdictRow]:
    rows = []
    trials = _trials(results)
    if trials is not None:
        rows += _row(trials, SEMI_PRIVATE, "semi-private", "c10_homogeneity")
        rows += [r for r in (fair_row(trials),) if r is not None]
    trials = _trials(results, "c10_generic")
    if trials is not None:
        rows += _row(trials, GL, "GenericLearner (BNS15)", "c10_generic")
    return rows


def plot(results, rows: list[VerdictRow], out_dir) -> None:
    panels = [(e, t) for e, t in (("c10_homogeneity", _trials(results)),
                                  ("c10_generic", _trials(results, "c10_generic")))
              if t is not None]
    fig, axes = plotting.panels(len(panels), 7.4, 6.6)
    for ax, (experiment, trials) in zip(axes, panels):
        learners = [PPM, SEMI_PRIVATE, SEMI_PRIVATE_ALL, ERM]
        if experiment == "c10_generic":
            learners = [GL] + learners
        plotting.error_panel(ax, trials, "shift",
                             "shift = 1 - 2 eta  (0: homogeneous, 1: label-determined)",
                             [lrn for lrn in learners if lrn in set(trials.learner)])
        row = next((r for r in rows if r.extra.startswith(experiment)
                    and r.extra.endswith("parity check")), None)
        if row is not None:
            ax.set_title(f"{row.setting}: {row.verdict}", fontsize=9)
    plotting.save(fig, out_dir, "c10_homogeneity",
                  "C10: semi-private learners (homogeneous assumption) vs PPM; right: seed "
                  "BNS15's GenericLearner (Laplace-tree sanitizer substitute)")


CLAIM = Claim(id="C10", name="c10_homogeneity", statement=STATEMENT,
              experiments=("c10_homogeneity", "c10_generic"), analyse=analyse, plot=plot,
              committed=("c10_homogeneity", "c10_generic"))
