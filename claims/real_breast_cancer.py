"""Real data (the paper's motivating example): breast cancer, benign rows public, malignant private.

``real_breast_cancer`` (repeated random splits): test accuracy of PPM against DP logistic
regression (diffprivlib) at each of the five epsilons, paired on the split, with non-private
logistic regression and a public-only learner as references. No theorem: the verdicts are
comparisons.

The splits are random subsamples of the same 569 rows, so their training (and test) sets
overlap and the per-split differences are correlated: a plain t interval over splits is far too
narrow. The comparison uses the corrected resampled t-test of Nadeau and Bengio (2003,
"Inference for the generalization error", Machine Learning 52: 239-281): the variance of the
mean difference over ``k`` splits is ``(1/k + n_test/n_train) s^2`` instead of ``s^2 / k``,
with ``k - 1`` degrees of freedom (:func:`nadeau_bengio`). The correction is for the overlap of
the splits only: the private mechanisms' noise is independent across splits and must not be
inflated. :func:`split_mechanism_interval` separates the two from several mechanism draws per
split (a ``draw`` column in the trials): the between-split variance, less its mechanism share,
is corrected, the within-split (mechanism) variance enters divided by the draws. The draws
come from ``scripts/real_draws.py``: it replays the sweep's 40 splits exactly (draw 0
reproduces every committed PPM and DP-LR error) and draws each private mechanism 20 times per
split and epsilon (PPM's class ``G`` and its score histogram, which use no randomness and no
epsilon, are built once per split and handed back to ``fit``, whose draw is unchanged; DP-LR is
refitted), in about 5 minutes on one core; its table ``real_breast_cancer_draws/trials.csv``
replaces the one-draw trials in the comparison when present (:func:`_private_trials`). Each row
states both parts of the variance (:func:`variance_parts`: the split-level and the mechanism
standard deviations).

Verdict: "PPM better" / "DP-LR better" when the interval excludes 0; "no difference" only when
the interval lies within +-``EQUIVALENCE`` (an equivalence test); otherwise "inconclusive": an
interval straddling 0 is a test without power, not evidence of no difference. The five epsilons
read the same 40 splits (each epsilon its own mechanism draws), so they are one trial set: the
counted row reads them jointly, each interval at the Bonferroni level ``1 - 0.05/5``
(:func:`joint_verdict`), and the per-epsilon rows at 95% are shown, not counted (the rule fixed
after the first reading had counted each epsilon on its own and clipped a negative split-level
variance estimate to 0; docs/claims/real_breast_cancer.md says what changed). Every row states
the smallest difference its design detects with 80% power (:func:`detectable_difference`), so an
"inconclusive" says how large an effect it could have seen: the Nadeau-Bengio factor ``1/J +
n_test/n_train`` (1.87 here) of the split-level variance does not shrink with more splits, and
the mechanism part shrinks with the draws; the row also gives the floor that no number of
draws goes below, the detectable difference with the mechanism part removed
(:func:`draws_floor`).

The comparison with diffprivlib's DP-LR is not like for like: PPM protects only the malignant
records, DP-LR protects every record (diffprivlib's mechanisms treat every row as private). The
sibling sweep ``real_breast_cancer_fair`` (same seed and splits, paired) compares PPM with a DP-LR
given what PPM is given, the public rows at no privacy cost
(:class:`ppm.baselines.dp_logistic_public.PublicAwareDPLogisticRegression`: epsilon spent on the
private rows only). Those rows are the counted ones; the diffprivlib rows, whose PPM arm is the
same draws, stay as references (not counted: one trial set, one counted row). The fair
baseline's mechanism draws come from ``scripts/real_draws.py --experiment
real_breast_cancer_fair`` (``real_breast_cancer_fair_draws/trials.csv``).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from claims.reporting import plotting
from claims.base import Claim, VerdictRow, trial_set
from analysis.split_comparison import (POWER, detectable_difference, draws_floor,
                                       split_mechanism_interval, variance_parts)
from claims.rules.verdicts import LEVEL, mean_ci
from experiments.columns import (DP_LOGISTIC, DP_LOGISTIC_PUBLIC, EPSILON, FEATURES, LOGISTIC,
                                 PPM, PUBLIC_ONLY, baseline_column)

STATEMENT = ("breast cancer, benign public / malignant private: PPM vs a DP logistic regression "
             "that also uses the public rows free and protects the malignant ones only (fair "
             "DP-LR); diffprivlib's DP-LR, which protects every record, as a reference")
EQUIVALENCE = 0.02  # "no difference": the accuracy difference's interval within +-2 points
N_ROWS = 569  # rows of sklearn's breast-cancer data: each split tests on the rows not trained on
NOT_LIKE_FOR_LIKE = ("DP-LR (diffprivlib) protects every record, PPM only the malignant ones")
LIKE_FOR_LIKE = ("fair DP-LR: public rows free, epsilon on the malignant rows only, as PPM; "
                 "not audited and C chosen on a non-private pilot (both favour it)")
NAMES = {DP_LOGISTIC: "DP-LR", DP_LOGISTIC_PUBLIC: "fair DP-LR"}


def comparison(lo: float, hi: float, mde: float = math.nan, other: str = "DP-LR") -> str:
    """The verdict of one PPM - ``other`` accuracy interval; ``mde``: the smallest difference
    the design detects at 80% power (:func:`detectable_difference`), said when inconclusive."""
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return "inconclusive (no interval)"
    if hi - lo <= 0:
        return "inconclusive (zero-width interval: no spread to estimate)"
    if lo > 0:
        return "PPM better"
    if hi < 0:
        return f"{other} better"
    if -EQUIVALENCE <= lo and hi <= EQUIVALENCE:
        return f"no difference (interval within +-{EQUIVALENCE:g})"
    power = (f"; this design detects a difference of {mde:.3f} with {POWER:.0%} power and "
             f"rules out only differences beyond [{lo:+.3f}, {hi:+.3f}]"
             if np.isfinite(mde) else "")
    return f"inconclusive (interval straddles 0{power})"


def _eps_col(trials, learner: str) -> str:
    """The column holding ``learner``'s epsilon: the main learner's ``learner.epsilon``; a
    baseline's ``baselines.<label>.epsilon`` once the CSVs carry it, until then the old
    columns."""
    rows = trials[trials.learner == learner]
    cols = [EPSILON] if learner == PPM else [
        baseline_column(learner, EPSILON), EPSILON, "epsilon"]
    for col in cols:
        if col in rows and rows[col].notna().any():
            return col
    raise KeyError(f"no epsilon column for {learner!r}")


def _trials(results):
    data = results.load(EXPERIMENT)
    return None if data is None else data[0].assign(accuracy=1.0 - data[0]["error"])


DRAWS = "real_breast_cancer_draws/trials.csv"  # scripts/real_draws.py (module docstring)
EXPERIMENT = "real_breast_cancer"
FAIR = "real_breast_cancer_fair"  # PPM vs the fair DP-LR, the same splits (module docstring)
FAIR_DRAWS = "real_breast_cancer_fair_draws/trials.csv"  # scripts/real_draws.py --experiment
# provenance id (VerdictRow.statistic): the mean paired accuracy difference PPM - DP-LR over
# the splits with its Nadeau-Bengio corrected interval (:func:`split_mechanism_interval`)
STATISTIC = "nadeau_bengio_accuracy_difference"
# the counted row: the same statistic at every epsilon, Bonferroni-corrected, read jointly
JOINT_STATISTIC = "nadeau_bengio_accuracy_difference_bonferroni_over_epsilon"


def row_trials(epsilon: float, draws: bool, experiment: str = EXPERIMENT,
               draws_file: str = DRAWS) -> str:
    """The ``trials`` of the row at ``epsilon``: the sweep's cells at that epsilon and, when
    the comparison reads them, the mechanism draws at that epsilon (``scripts/real_draws.py``,
    ``<experiment>_draws``). The splits are the same 40 at every epsilon; the mechanisms'
    draws differ (one cell per epsilon), so rows at different epsilons read different trials
    but share the split-level part of their variance."""
    parts = [(experiment, {"epsilon": float(epsilon)})]
    if draws:
        parts.append((draws_file.split("/")[0], {"epsilon": float(epsilon)}))
    return trial_set(*parts)


def _private_trials(results, trials, draws_file: str = DRAWS, other: str = DP_LOGISTIC):
    """The private learners' (PPM and ``other``) trials with several mechanism draws per split
    when ``scripts/real_draws.py`` has written them and their draw 0 is the sweep's trial (same
    error in every cell both have), else the sweep's one-draw trials. Returns ``(trials,
    source)``."""
    path = results.root / draws_file
    if not path.exists():
        return trials, "the sweep's trials (1 draw per split)"
    d = pd.read_csv(path)
    d = d[d.learner.isin((PPM, other))]
    d = d.assign(accuracy=1.0 - d["error"])
    # the baseline rows' epsilon under the sweep's column name (the draws table has one column)
    d[baseline_column(other, EPSILON)] = d[EPSILON].where(d.learner == other)
    d[EPSILON] = d[EPSILON].where(d.learner == PPM)
    for learner in (PPM, other):
        mine, theirs = _by_eps(d[d.draw == 0], learner), _by_eps(trials, learner)
        for e in set(mine) & set(theirs):
            a = mine[e].droplevel("draw")
            b = theirs[e].droplevel("draw")
            common = a.index.intersection(b.index)
            if len(common) < len(b) or not np.allclose(a[common], b[common], atol=1e-12):
                return trials, (f"the sweep's trials (1 draw per split; {draws_file} is stale: "
                                f"its draw 0 is not the sweep's {learner} at epsilon {e:g})")
    return d, f"{draws_file} ({int(d['draw'].nunique())} draws per split)"


def _by_eps(trials, learner):
    """epsilon -> accuracy indexed by (trial, draw) (draw 0 when the trials have one)."""
    g = trials[trials.learner == learner]
    if "draw" not in g:
        g = g.assign(draw=0)
    return {e: s.set_index(["trial", "draw"])["accuracy"]
            for e, s in g.groupby(_eps_col(trials, learner))}


def _fair_trials(results):
    data = results.load(FAIR)
    return None if data is None else data[0].assign(accuracy=1.0 - data[0]["error"])


def paired_with_sweep(trials, fair) -> str:
    """Whether the fair sweep's PPM is the main sweep's, trial by trial (same splits, same
    seeds: identical errors), said in the rows."""
    a = trials[trials.learner == PPM].set_index(["trial", EPSILON])["error"]
    b = fair[fair.learner == PPM].set_index(["trial", EPSILON])["error"]
    common = a.index.intersection(b.index)
    same = int((np.abs(a[common] - b[common]) <= 1e-12).sum())
    return f"PPM's error identical to {EXPERIMENT}'s on {same} of {len(b)} trials"


def analyse(results) -> list[VerdictRow]:
    trials = _trials(results)
    if trials is None:
        return []
    fair = _fair_trials(results)
    rows = []
    if fair is not None:
        rows += _rows(results, fair, FAIR, FAIR_DRAWS, DP_LOGISTIC_PUBLIC, LIKE_FOR_LIKE,
                      counted=True, note=paired_with_sweep(trials, fair))
    rows += _rows(results, trials, EXPERIMENT, DRAWS, DP_LOGISTIC, NOT_LIKE_FOR_LIKE,
                  counted=fair is None)
    return rows


def _rows(results, trials, experiment, draws_file, other, paper, counted, note=""):
    """One row per epsilon: PPM - ``other`` (module docstring); ``counted=False``: references.
    ``counted=True``: the per-epsilon rows are shown (not counted) and one joint row across the
    epsilons, Bonferroni-corrected, is counted (:func:`joint_verdict`)."""
    name = NAMES[other]
    n = int(trials["n"].iloc[0])
    n_test = N_ROWS - n
    feats = trials[FEATURES].iloc[0] if FEATURES in trials else ""
    priv, source = _private_trials(results, trials, draws_file, other)
    ppm, dpl = _by_eps(priv, PPM), _by_eps(priv, other)
    k = priv["trial"].nunique()
    rows, joint = [], []
    eps = sorted(set(ppm) & set(dpl))
    for e in eps:
        diff = (ppm[e] - dpl[e]).dropna()
        by_split = [g.to_numpy() for _, g in diff.groupby(level="trial")]
        m, lo, hi, p, separated = split_mechanism_interval(by_split, n, n_test)
        split_means = np.array([d.mean() for d in by_split])
        mde = detectable_difference(lo, hi, len(by_split) - 1)
        draws = min(d.size for d in by_split)
        split_var, mech_var, J, _ = variance_parts(by_split)
        floor = draws_floor(split_var, J, n, n_test)
        parts = (f"; sd of the difference: {math.sqrt(split_var):.3f} between splits (splits), "
                 f"{math.sqrt(mech_var):.3f} between draws on one split (mechanisms); with "
                 f"infinitely many draws these splits detect {floor:.3f} at best"
                 if np.isfinite(split_var) else
                 f"; sd of the difference between draws on one split (mechanisms): "
                 f"{math.sqrt(mech_var):.3f}; the split-level part is not estimable (the split "
                 f"means vary no more than the mechanisms alone make them)"
                 if np.isfinite(mech_var) else "")
        how = (f"{draws} mechanism draws per split: Nadeau-Bengio on the split variance only"
               if separated else "1 mechanism draw per split: Nadeau-Bengio on the whole "
               "variance, mechanism noise included (conservative)" if draws == 1 else
               f"{draws} mechanism draws per split, the split-level variance not separable: "
               "Nadeau-Bengio on the split means, mechanism noise included (conservative)")
        verdict = comparison(lo, hi, mde, name)
        if counted:
            joint.append((float(e), *split_mechanism_interval(by_split, n, n_test,
                                                              1.0 - (1.0 - LEVEL) / len(eps))[:3]))
            verdict = (f"breakdown (not counted: one epsilon of the joint row across the "
                       f"{len(eps)} epsilons, which share the splits): {verdict}")
        else:
            verdict = (f"reference (not counted: diffprivlib's DP-LR treats every row as "
                       f"private; the counted comparison is with the fair DP-LR of {FAIR}, on "
                       f"the same PPM draws): {at_this_size(verdict, floor, n, n_test)}")
        rows.append(VerdictRow(
            claim="real data", figure="real_breast_cancer",
            setting=f"breast cancer {feats}, n_train={n}, {k} overlapping splits "
                    f"({how}), PPM vs {name}, epsilon={e:g}",
            paper=f"PPM model motivating example (healthy public, sick private); {paper}",
            # short: the verdict table joins the five epsilons into one cell
            measured=f"eps {e:g}: PPM - {name} {m:+.3f} [{lo:+.3f}, {hi:+.3f}], p = {p:.2g} "
                     f"(accuracy {ppm[e].mean():.3f} vs {dpl[e].mean():.3f}; PPM ahead on "
                     f"{int((split_means > 0).sum())} of {split_means.size} splits); "
                     f"detectable at {POWER:.0%} power: {mde:.3f}{parts}; from {source}"
                     + (f"; {note}" if note else ""),
            theory=(f"(no theorem: an application) PPM - {name} > 0; alternative: no difference "
                    f"(within +-{EQUIVALENCE:g}) or {name} better"),
            verdict=verdict,
            statistic=STATISTIC,
            trials=row_trials(e, source.startswith(draws_file), experiment, draws_file),
            epsilon=float(e), extra=f"{feats}, n_train={n}, vs {name}"))
    if joint:
        rows.append(VerdictRow(
            claim="real data", figure="real_breast_cancer",
            setting=f"breast cancer {feats}, n_train={n}, {k} overlapping splits, PPM vs "
                    f"{name}, the {len(joint)} epsilons read jointly",
            paper=f"PPM model motivating example (healthy public, sick private); {paper}",
            measured="; ".join(f"eps {e:g}: {m:+.3f} [{lo:+.3f}, {hi:+.3f}]"
                               for e, m, lo, hi in joint)
                     + f" (each at {1 - (1 - LEVEL) / len(joint):.0%}: Bonferroni over the "
                       f"{len(joint)} epsilons); from {source}",
            theory=(f"(no theorem: an application) PPM - {name} > 0 at some epsilon; "
                    f"alternative: no difference (within +-{EQUIVALENCE:g}) or {name} better"),
            verdict=joint_verdict(joint, name),
            statistic=JOINT_STATISTIC,
            trials=trial_set(*[p for e, *_ in joint for p in row_trials(
                e, source.startswith(draws_file), experiment, draws_file).split(";")]),
            extra=f"{feats}, n_train={n}, vs {name}, joint"))
    return rows


def joint_verdict(joint, name: str) -> str:
    """The counted verdict of the epsilons read jointly: ``joint`` holds ``(epsilon, mean, lo,
    hi)`` with Bonferroni-corrected intervals (the epsilons share the splits: one trial set,
    one counted row). "PPM better at epsilon ..." where some intervals lie above 0 and none
    below (and the reverse), "mixed" where both, "no difference" when every interval lies
    within +-``EQUIVALENCE``, else "inconclusive"."""
    up = [f"{e:g}" for e, _, lo, _ in joint if lo > 0]
    down = [f"{e:g}" for e, _, _, hi in joint if hi < 0]
    if up and down:
        return f"mixed (PPM better at epsilon {', '.join(up)}, {name} better at {', '.join(down)})"
    if up or down:
        return (f"PPM better (at epsilon {', '.join(up)})" if up
                else f"{name} better (at epsilon {', '.join(down)})")
    if all(-EQUIVALENCE <= lo and hi <= EQUIVALENCE for _, _, lo, hi in joint):
        return f"no difference (every interval within +-{EQUIVALENCE:g})"
    widths = [hi - lo for _, _, lo, hi in joint]
    return (f"inconclusive (every epsilon's interval straddles 0; widths {min(widths):.3f} to "
            f"{max(widths):.3f}: the per-epsilon rows say what each design detects)")


CANNOT_CONCLUDE = "cannot conclude at this size"


def at_this_size(verdict: str, floor: float, n_train: int, n_test: int) -> str:
    """An interval that straddles 0 at this ``n_train``: more splits cannot decide it, since the
    Nadeau-Bengio variance keeps its ``n_test / n_train`` term however many splits are drawn
    (:func:`draws_floor`: the smallest difference these splits detect with infinitely many
    draws). Shown, not counted: "breakdown (not counted: cannot conclude at this size ...)"."""
    if not verdict.startswith("inconclusive (interval straddles 0"):
        return verdict
    floor_txt = (f"these splits detect {floor:.3f} at best with infinitely many draws, "
                 if np.isfinite(floor) else "")
    return (f"breakdown (not counted: {CANNOT_CONCLUDE}, n_train = {n_train}: {floor_txt}"
            f"and the Nadeau-Bengio term n_test/n_train = {n_test / n_train:.2f} does not "
            f"shrink with more splits; a larger n_train decides it): {verdict}")


def paired_intervals(results, trials, draws_file: str, other: str) -> pd.DataFrame:
    """Per epsilon, the paired difference PPM - ``other`` with the interval its row is judged
    on (:func:`split_mechanism_interval`): columns ``epsilon, mean, lo, hi``."""
    n = int(trials["n"].iloc[0])
    priv, _ = _private_trials(results, trials, draws_file, other)
    ppm, dpl = _by_eps(priv, PPM), _by_eps(priv, other)
    out = []
    for e in sorted(set(ppm) & set(dpl)):
        diff = (ppm[e] - dpl[e]).dropna()
        by_split = [g.to_numpy() for _, g in diff.groupby(level="trial")]
        m, lo, hi, _, _ = split_mechanism_interval(by_split, n, N_ROWS - n)
        out.append({"epsilon": float(e), "mean": m, "lo": lo, "hi": hi})
    return pd.DataFrame(out)


def _short(verdict: str) -> str:
    """A verdict in a few words for the figure (the full text is in the summary)."""
    v = (verdict.split("): ", 1)[1] if verdict.startswith(("reference (", "breakdown ("))
         else verdict)
    if CANNOT_CONCLUDE in v:
        return "cannot conclude"
    return v.split(" (")[0]


def _accuracy_panel(ax, results, trials, fair) -> None:
    series = [(trials, DRAWS, DP_LOGISTIC)]
    if fair is not None:
        series.insert(0, (fair, FAIR_DRAWS, DP_LOGISTIC_PUBLIC))
    for i, (tr, draws_file, other) in enumerate(series):
        priv, _ = _private_trials(results, tr, draws_file, other)
        for learner in ((PPM, other) if i == 0 else (other,)):
            col = _eps_col(priv, learner)
            # per split, the mean over its mechanism draws (one draw: the trial itself)
            split = priv[priv.learner == learner].groupby([col, "trial"])["accuracy"].mean()
            stats_ = split.groupby(level=0).apply(mean_ci)
            m, lo, hi = (np.array([s[k] for s in stats_]) for k in range(3))
            style, label = (plotting.style_and_label(learner) if learner != DP_LOGISTIC_PUBLIC
                            else (dict(color="C4", marker="s"), "fair DP-LR (public rows free)"))
            ax.errorbar(stats_.index, m, yerr=[m - lo, hi - m], capsize=3, label=label, **style)
    for learner in (LOGISTIC, PUBLIC_ONLY):
        g = trials[trials.learner == learner]
        if g.empty:
            continue
        style, label = plotting.style_and_label(learner)
        m, lo, hi = mean_ci(g.drop_duplicates("trial")["accuracy"])
        ax.axhline(m, color=style["color"], ls="--", label=f"{label}: {m:.3f}")
        ax.axhspan(lo, hi, color=style["color"], alpha=0.15)
    ax.set_xscale("log")
    ax.set_xlabel(r"privacy parameter $\epsilon$")
    ax.set_ylabel("test accuracy on held-out rows", fontsize=9)
    ax.set_title("accuracy: mean over splits; bars: 95% t interval of the split means, "
                 "NOT corrected for the splits' overlap (too narrow to compare; see right)",
                 fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    plotting.legend_below(ax)


def _difference_panel(ax, results, trials, fair, rows) -> None:
    series = [(trials, DRAWS, DP_LOGISTIC, 1.08)]
    if fair is not None:
        series.insert(0, (fair, FAIR_DRAWS, DP_LOGISTIC_PUBLIC, 0.93))
    verdicts = {(r.extra.rsplit("vs ", 1)[-1], r.epsilon): _short(r.verdict) for r in rows}
    top, bottom = -math.inf, math.inf
    for tr, draws_file, other, shift in series:
        d = paired_intervals(results, tr, draws_file, other)
        top, bottom = max(top, d["hi"].max()), min(bottom, d["lo"].min())
        name = NAMES[other]
        style = (dict(color="C4", marker="s") if other == DP_LOGISTIC_PUBLIC
                 else dict(color="C3", marker="D"))
        ax.errorbar(d["epsilon"] * shift, d["mean"], yerr=[d["mean"] - d["lo"],
                    d["hi"] - d["mean"]], capsize=3, ls="none", label=f"PPM - {name}" + (
                        " (reference)" if other == DP_LOGISTIC and fair is not None
                        else " (counted jointly over epsilon, at 99% each)"), **style)
        for _, r in d.iterrows():
            v = verdicts.get((name, r["epsilon"]), "")
            ax.annotate(v, (r["epsilon"] * shift, r["hi"]), textcoords="offset points",
                        xytext=(0, 3), ha="center", fontsize=6, color=style["color"],
                        rotation=90, va="bottom")
    if np.isfinite(top) and np.isfinite(bottom):  # room above the bars for the verdicts
        ax.set_ylim(min(bottom, -EQUIVALENCE) - 0.05 * (top - bottom),
                    top + 0.45 * (top - bottom))
    ax.axhline(0.0, color="k", lw=0.8)
    ax.axhspan(-EQUIVALENCE, EQUIVALENCE, color="0.5", alpha=0.15,
               label=f"no difference band (+-{EQUIVALENCE:g})")
    ax.set_xscale("log")
    ax.set_xlabel(r"privacy parameter $\epsilon$")
    ax.set_ylabel("paired accuracy difference", fontsize=9)
    ax.set_title("the tested statistic: PPM - baseline, paired on the splits; bars: each "
                 "epsilon's Nadeau-Bengio corrected 95% interval (the counted row reads the five "
                 "jointly, Bonferroni: 99% each)", fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    plotting.legend_below(ax)


def plot(results, rows: list[VerdictRow], out_dir) -> None:
    trials = _trials(results)
    fair = _fair_trials(results)
    fig, (ax, bx) = plotting.panels(2, 6.4, 6.6)
    _accuracy_panel(ax, results, trials, fair)
    _difference_panel(bx, results, trials, fair, rows)
    feats = trials[FEATURES].iloc[0] if FEATURES in trials else ""
    fig.text(0.5, 0.935, f"{feats}, {int(trials['n'].iloc[0])} training rows per split, "
             f"{trials['trial'].nunique()} splits (the same in both sweeps); counted: PPM vs "
             f"fair DP-LR; diffprivlib's DP-LR (every row private) is a reference",
             ha="center", fontsize=8)
    plotting.save(fig, out_dir, "real_breast_cancer",
                  "Real data: breast cancer (benign = public, malignant = private)")


CLAIM = Claim(id="real data", name="real_breast_cancer", statement=STATEMENT,
              experiments=(EXPERIMENT, FAIR), analyse=analyse, plot=plot,
              headline={"epsilon": 1.0}, has_theorem=False,
              # ~16 CPU-min (40 splits x 5 epsilons x 4 learners) and ~1.5 CPU-min (the fair
              # sweep): restored by make reproduce
              committed=(EXPERIMENT, FAIR))
