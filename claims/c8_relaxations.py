"""C8 (Section 4.3): the construction survives the two relaxations of the privacy model.

Relaxation (i): privacy is only correlated with the label (flip probability eta). Relaxation
(ii): public examples carry both labels (a fraction rho = public_pos_rate of them label 1).

**The counted test is sample complexity** (docs/claims/c8_relaxations.md, the design fixed
before the trials): ``c8_eta_n`` (eta 0..0.4) and ``c8_label_mix_n`` (rho 0..0.5), n in steps
of 2^(1/4), 200 trials per cell. Per relaxation the statistic (:data:`N_STATISTIC`) is
``ln(n_hat(largest level) / n_hat(level 0))`` at alpha = 0.1, beta = 0.1 (the fitted reading
of ``n_hat``), with a percentile bootstrap over trials (:func:`ratio_fit`). BMN20's bound
(Theorem 4.9) involves neither eta nor rho, so ``n_hat`` should not grow: an upper reading with
the margin :data:`FACTOR` in the claim's own unit (:func:`growth_verdict`): holds when the
interval's upper end is at most ``ln 1.5``, does not hold when its lower end is above it,
inconclusive otherwise. The alternative it excludes: the relaxation acting as label noise on the
privacy proxy at the rate q where label and privacy status disagree (eta; w_pub rho), which
multiplies the sample complexity by about ``1 / (1 - 2 q)^2`` (:func:`noise_alternative`).
Beside it, not counted: ``n_hat`` at every level and the log ratio implied by the
least-squares line of ``ln n_hat`` on the level.

**Reference rows** (one n, not counted): ``c8_eta`` and ``c8_label_mix`` at their largest n,
PPM's mean error at each level minus its mean error at level 0 (trial-matched, 95% intervals,
never narrower than ``1 / n_test``: :func:`claims.rules.verdicts.mean_ci`), read with the rule "the
interval's upper end at most ``TOL``" (:func:`_row`). One n cannot say how many examples a
relaxation costs, so these rows are shown as references.

Provenance: counted rows ``statistic`` :data:`N_STATISTIC`, ``trials`` the whole sweep
(``c8_eta_n``); reference rows ``paired_error_difference`` on ``c8_eta[n=256]``. No two rows
share a trial (each sweep has its own seed).
"""

from __future__ import annotations

import math

import numpy as np

from analysis.aggregate import ERROR_COL
from analysis.slopes import sample_complexity_slope_against
from claims.reporting import plotting
from claims.base import Claim, VerdictRow, alphas_of, beta_of, first, trial_set
from claims.rules.outcomes import FAILS, HOLDS, fit_defect, inconclusive, interval_defect
from claims.rules.verdicts import error_resolution, mean_ci
from experiments.columns import D, EPSILON, ERM, ETA, PPM, PUBLIC_POS_RATE, W_PUB

STATEMENT = "the construction survives the two relaxations"
REFERENCE = ("reference (one n, not counted: the counted test is the sample complexity, "
             "log_n_hat_ratio_at_largest_level): ")
TOL = 0.02  # "essentially the same accuracy": the interval's upper end within 2 points of error
# What each row computes (VerdictRow.statistic): the trial-matched difference of PPM's mean
# error at a relaxation level and at level 0, at the largest n only (the row's trials are that
# experiment's cells at that n).
STATISTIC = "paired_error_difference"
# The counted statistic: ln(n_hat(largest level) / n_hat(level 0)) of one sample-complexity sweep.
N_STATISTIC = "log_n_hat_ratio_at_largest_level"
# The margin in the claim's own unit, fixed before the trials: n_hat grows by at most this
# factor up to the largest level (docs/claims/c8_relaxations.md).
FACTOR = 1.5
# No coverage study has this ratio's design yet (docs/claims/c8_relaxations.md): said on the row.
COVERAGE_NOTE = "; the interval's coverage on this design is not measured"
N_RELAXATIONS = (  # experiment, swept column, name, the paper's sentence, axis label
    ("c8_eta_n", ETA, "relaxation (i)",
     "same construction, essentially the same accuracy when privacy is only correlated with "
     "the label: n_hat does not grow with eta", "relaxation (i): flip probability eta"),
    ("c8_label_mix_n", PUBLIC_POS_RATE, "relaxation (ii)",
     "same construction and analysis when public examples carry both labels: n_hat does not "
     "grow with the label mix", "relaxation (ii): fraction rho of label 1 among public examples"),
)
RELAXATIONS = (  # experiment, swept column, name, the paper's sentence, axis label
    ("c8_eta", ETA, "relaxation (i)",
     "same construction, essentially the same accuracy when privacy is only correlated with "
     "the label", "relaxation (i): flip probability eta"),
    ("c8_label_mix", PUBLIC_POS_RATE, "relaxation (ii)",
     "same construction and analysis when public examples carry both labels",
     "relaxation (ii): fraction of label 1 among public examples"),
)


def noise_alternative(x_col: str, level: float, w_pub: float) -> float:
    """The alternative's log ratio at ``level``: label noise on the privacy proxy at the rate
    ``q`` where label and privacy status disagree (``eta``; ``w_pub * rho`` under relaxation
    (ii)) multiplies the sample complexity by about ``1 / (1 - 2 q)^2``: ``-2 ln(1 - 2 q)``
    (``inf`` from ``q = 1/2`` on)."""
    level, w_pub = float(level), float(w_pub)
    if not (0.0 <= level <= 1.0 and 0.0 <= w_pub <= 1.0):
        raise ValueError(f"level and w_pub must lie in [0, 1], got {level!r}, {w_pub!r}")
    q = level if x_col == ETA else w_pub * level
    return -2.0 * math.log(1.0 - 2.0 * q) if q < 0.5 else math.inf


def _end_ratio(x, v, _=None) -> float:
    """``ln(n_hat at the largest x / n_hat at the smallest x)`` (a bootstrap ``slope_fn``)."""
    x, v = np.asarray(x, dtype=float), np.asarray(v, dtype=float)
    if x.size < 2:
        return math.nan
    a, b = v[np.argmax(x)], v[np.argmin(x)]
    return float(math.log(a / b)) if np.isfinite([a, b]).all() and a > 0 and b > 0 else math.nan


def _line_ratio(x, v, _=None) -> float:
    """The log ratio over the range that the least-squares line of ``ln n_hat`` on x implies."""
    x, v = np.asarray(x, dtype=float), np.asarray(v, dtype=float)
    ok = np.isfinite(v) & (v > 0)
    if ok.sum() < 2 or np.ptp(x[ok]) == 0:
        return math.nan
    return float(np.polyfit(x[ok], np.log(v[ok]), 1)[0] * np.ptp(x))


def ratio_fit(ppm, x_col: str, alpha: float, beta: float, n_boot: int, line: bool = False,
              random_state=0) -> dict:
    """``ln(n_hat(max level) / n_hat(min level))`` of one learner's trials (``line``: the ratio
    the least-squares line through every level implies), with the percentile bootstrap of
    :func:`analysis.slopes.sample_complexity_slope_against` (trials resampled within each
    ``(level, n)`` cell; every cell's ``n_hat`` the fitted reading). The level (which may be 0)
    enters shifted by 1, a positive x the engine accepts; censored cells enter at the grid's
    edge and ``direction`` says which way they bound the ratio. ``levels``: the sorted levels,
    ``n_hat``/``status`` per level."""
    if x_col not in ppm:
        raise ValueError(f"no column {x_col!r} in the trials")
    levels = np.sort(ppm[x_col].astype(float).unique())
    if levels.size < 2:
        raise ValueError(f"need at least two levels of {x_col!r}, got {levels.tolist()!r}")
    fit = sample_complexity_slope_against(
        ppm.assign(_level=ppm[x_col].astype(float) + 1.0), "_level", alpha, beta,
        error_col=ERROR_COL, n_boot=n_boot, random_state=random_state,
        slope_fn=_line_ratio if line else _end_ratio)
    return {**fit, "levels": levels}


def growth_verdict(fit: dict, level_text: str, factor: float = FACTOR) -> str:
    """The upper reading of the log ratio (module docstring): its 95% interval's upper end at
    most ``ln factor``: holds; its lower end above ``ln factor``: does not hold; otherwise
    inconclusive. An interval that cannot be weighed (:func:`claims.rules.outcomes.interval_defect`,
    a lack of fit) is inconclusive; censored cells (``fit["direction"]``) make the ratio a
    bound, which can show only the side it bounds. An upper end within a tenth of the
    half-width of the margin is named a near miss."""
    if not (isinstance(factor, (int, float)) and factor > 1):
        raise ValueError(f"factor must be a number > 1, got {factor!r}")
    defect = fit_defect(fit) or interval_defect(fit["lo"], fit["hi"], fit["slope"])
    if defect:
        return defect
    est, lo, hi, m = fit["slope"], fit["lo"], fit["hi"], math.log(factor)
    interval = (f"ln ratio {est:+.3f} [{lo:+.3f}, {hi:+.3f}], a factor {math.exp(est):.2f} "
                f"[{math.exp(lo):.2f}, {math.exp(hi):.2f}]")
    direction = fit.get("direction", "") or ""
    if lo > m and direction in ("", "lower bound"):
        return (f"{FAILS} (n_hat grows by more than a factor {factor:g} up to {level_text}: "
                f"{interval}" + (f", {direction}" if direction else "") + ")")
    if hi <= m and direction in ("", "upper bound"):
        near = ("; near miss: the upper end clears the margin by less than a tenth of the "
                "half-width" if m - hi < (hi - lo) / 20 else "")
        drop = ("; n_hat drops: the whole interval lies below 0" if hi < 0 else "")
        return (f"{HOLDS} (n_hat grows by at most a factor {factor:g} up to {level_text}: "
                f"{interval}" + (f", {direction}" if direction else "") + f"{drop}{near})")
    if direction:
        return inconclusive(f"censored cells make the {interval} a {direction}: it cannot "
                            f"show the side of ln {factor:g} = {m:.3f} it does not bound")
    return inconclusive(f"{interval} crosses ln {factor:g} = {m:.3f}")


def _n_hat_text(nhat, learner, x_col, alpha) -> str:
    """``n_hat`` per level of one learner, from the n_hat table (the reading in force)."""
    name = "eta" if x_col == ETA else "rho"
    sub = nhat[(nhat.learner == learner) & np.isclose(nhat.alpha, alpha)].sort_values(x_col)
    ok = plotting.uncensored(sub)
    return ", ".join(f"{name}={lv:g}: " + (f"{v:.0f}" if k else f"censored ({c} of {v:.0f})")
                     for lv, v, k, c in zip(sub[x_col], sub["n_hat"], ok,
                                            sub["censored"].fillna("").astype(str)))


def n_row(trials, nhat, x_col, name, paper, exp, n_boot) -> VerdictRow:
    """The counted row of one relaxation's sample-complexity sweep (module docstring)."""
    ppm = trials[trials.learner == PPM]
    beta, d, eps, w_pub = beta_of(nhat), first(trials, D, int), first(ppm, EPSILON), \
        first(trials, W_PUB)
    alpha = float(alphas_of(nhat).min())
    fit = ratio_fit(ppm, x_col, alpha, beta, n_boot)
    line = ratio_fit(ppm, x_col, alpha, beta, n_boot, line=True)
    top = float(fit["levels"].max())
    short = "eta" if x_col == ETA else "rho"
    level_text = f"{short} = {top:g}"
    alt = noise_alternative(x_col, top, w_pub)
    m = math.log(FACTOR)
    erm_text = ("; ERM n_hat (non-private reference): " + _n_hat_text(nhat, ERM, x_col, alpha)
                if (nhat.learner == ERM).any() else "")
    ns = np.sort(ppm["n"].unique())
    return VerdictRow(
        claim="C8", figure="c8_relaxations",
        setting=f"{name}, d={d}, alpha={alpha:g}, {short} 0..{top:g}, n {ns.min()}..{ns.max()}",
        paper=paper,
        measured=(f"ln(n_hat({level_text}) / n_hat({short} = 0)) = {fit['slope']:+.3f} "
                  f"[{fit['lo']:+.3f}, {fit['hi']:+.3f}] (a factor "
                  f"{math.exp(fit['slope']):.2f}); PPM n_hat: {_n_hat_text(nhat, PPM, x_col, alpha)}; "
                  + (f"two levels, so the least-squares line of ln n_hat on {short} is the "
                     f"counted ratio itself (the second summary is the grid reading)"
                     if ppm[x_col].nunique() == 2 else
                     f"ratio implied by the least-squares line of ln n_hat on {short} (not "
                     f"counted): {line['slope']:+.3f} [{line['lo']:+.3f}, {line['hi']:+.3f}]")
                  + erm_text),
        theory=(f"BMN20 Thm 4.9's bound involves no {short}, so n_hat should not grow; our "
                f"margin, not BMN20's: a factor at most {FACTOR:g} up "
                f"to {level_text} (ln ratio <= {m:.3f}); alternative: label "
                f"noise on the privacy proxy, n ~ 1/(1 - 2q)^2: ln ratio {alt:.2f} (a factor "
                f"{math.exp(alt):.0f})"),
        verdict=growth_verdict(fit, level_text) + COVERAGE_NOTE,
        statistic=N_STATISTIC, trials=trial_set(exp),
        slope=fit["slope"], slope_lo=fit["lo"], slope_hi=fit["hi"],
        d=d, epsilon=eps, alpha=alpha, w_pub=w_pub, extra=name)


def _row(trials, x_col, name, paper, exp="") -> VerdictRow:
    """The reference row of one relaxation at one n (not counted: one n says nothing about how
    many examples the relaxation costs); ``exp``: the experiment the trials come from."""
    n = int(trials["n"].max())
    ppm = trials[(trials.learner == PPM) & (trials.n == n)]
    x0 = ppm[x_col].min()
    base = ppm[ppm[x_col] == x0].set_index("trial")["error"]
    worst, worst_x, parts, ok_all, caveat_ok, fails, no_ci = -np.inf, None, [], True, True, \
        False, False
    res = error_resolution(ppm)
    for x, g in ppm[ppm[x_col] != x0].groupby(x_col):
        # independent samples per cell (the seed hashes the population): the differences of
        # trial-matched pairs are i.i.d. with the variance of a difference of two means
        m, lo, hi = mean_ci((g.set_index("trial")["error"] - base).dropna(), resolution=res)
        parts.append(f"{x:g}: {m:+.3f} [{lo:+.3f}, {hi:+.3f}]")
        no_ci |= not np.isfinite(hi)
        ok_all &= bool(np.isfinite(hi) and hi <= TOL)
        fails |= bool(np.isfinite(lo) and lo > TOL)
        caveat_ok &= bool(np.isfinite(hi) and hi <= max(float(x), TOL))
        if m > worst:
            worst, worst_x = m, x
    d = int(trials[D].iloc[0])
    return VerdictRow(
        claim="C8", figure="c8_relaxations", setting=f"{name}, d={d}, n={n}", paper=paper,
        measured=f"PPM mean error minus mean error at {x_col.split('.')[-1]} = 0: "
                 + "; ".join(parts),
        theory=f"small change: the interval's upper end <= {TOL:g} (alternative: the "
               f"error grows by more than {TOL:g})",
        verdict=REFERENCE + (
            "inconclusive (no interval: no spread and no resolution)" if no_ci else
            "holds" if ok_all else
            "does not hold (an interval lies entirely above "
            f"{TOL:g})" if fails else
            f"holds with caveat: error grows by up to {worst:.3f} (at {worst_x:g}), "
            "the interval within the relaxation level" if caveat_ok else
            f"inconclusive (an interval reaches above {TOL:g}: more trials would decide)"),
        statistic=STATISTIC, trials=trial_set((exp, {"n": n})) if exp else "",
        d=d, extra=name)


def analyse(results) -> list[VerdictRow]:
    rows = [n_row(*data, x_col, name, paper, exp, results.n_boot)
            for exp, x_col, name, paper, _ in N_RELAXATIONS
            if (data := results.load(exp)) is not None]
    return rows + [_row(data[0], x_col, name, paper, exp)
                   for exp, x_col, name, paper, _ in RELAXATIONS
                   if (data := results.load(exp)) is not None]


def _nhat_panel(ax, trials, nhat, x_col, xlabel, row) -> None:
    """n_hat (with its interval) against the level, PPM and ERM, log y."""
    alpha = float(alphas_of(nhat).min())
    for learner in (PPM, ERM):
        sub = nhat[(nhat.learner == learner) & (nhat.alpha == alpha)].sort_values(x_col)
        if len(sub):
            style, label = plotting.style_and_label(learner, f", alpha = {alpha:g}")
            plotting.draw_nhat(ax, sub[x_col], sub, float(trials["n"].max()), style, label)
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(plotting.nhat_label(beta_of(nhat)))
    ax.grid(True, alpha=0.3)
    if row is not None:
        ax.set_title(f"{row.setting}: {row.verdict}", fontsize=9)
    plotting.legend_below(ax)


def plot(results, rows: list[VerdictRow], out_dir) -> None:
    by_exp = {r.trials: r for r in rows}
    present = [("n", results.load(exp), x_col, xlabel, by_exp.get(exp))
               for exp, x_col, _, _, xlabel in N_RELAXATIONS if results.load(exp) is not None]
    present += [("error", results.load(exp), x_col, xlabel,
                 next((r for r in rows if r.trials.startswith(exp + "[")), None))
                for exp, x_col, _, _, xlabel in RELAXATIONS if results.load(exp) is not None]
    fig, axes = plotting.panels(len(present), 6.4, 6.0)
    for ax, (kind, (trials, nhat), x_col, xlabel, row) in zip(axes, present):
        if kind == "n":
            _nhat_panel(ax, trials, nhat, x_col, xlabel, row)
            continue
        plotting.error_panel(ax, trials, x_col, xlabel, [PPM, ERM])
        if row is not None:
            ax.set_title(f"{row.setting}: {row.verdict}", fontsize=9)
    plotting.save(fig, out_dir, "c8_relaxations",
                  "C8: the relaxations of the label-determined privacy model (n_hat against "
                  "the level: counted; error at one n: reference)")


EXPERIMENTS = tuple(e for e, *_ in N_RELAXATIONS) + tuple(e for e, *_ in RELAXATIONS)
CLAIM = Claim(id="C8", name="c8_relaxations", statement=STATEMENT,
              experiments=EXPERIMENTS, analyse=analyse, plot=plot,
              committed=EXPERIMENTS)
