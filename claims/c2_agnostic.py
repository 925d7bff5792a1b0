"""C2 (Theorem 4.10): agnostic sample complexity ``n ~ max(1/alpha^2, 1/(epsilon alpha))``.

``c2_agnostic`` (overlapping clusters, d = 1, epsilon in {1, 0.05}): slopes of ``log n_hat``
(excess error) against ``log(1/alpha)`` over two regimes (:func:`regimes`), compared as an
upper bound with the theory's local slope (2 where ``1/alpha^2`` dominates, 1 in the
``1/(epsilon alpha)`` regime, with and without the O-form's log factor). Non-private ERM is the
reference; the ratio of PPM's ``n_hat`` at the two epsilons shows the privacy cost.
"""

from __future__ import annotations

import math

import numpy as np

from claims import plotting
from claims.base import Claim, VerdictRow, alphas_of, beta_of, first
from claims.verdicts import fmt_slope, upper_bound_verdict
from ppm import bounds
from ppm.sample_complexity import loglog_slope, sample_complexity_slope
from scripts.aggregate import ERROR_COL

STATEMENT = "agnostic: n ~ max(1/alpha^2, 1/(epsilon alpha)) (Thm 4.10)"
SMALL_ALPHA = 0.01  # "small alpha": where the 1/alpha^2 term must show (Thm 4.10)
PALETTE = ["C0", "C4", "C1", "C5"]


def regimes(alphas: np.ndarray, eps: float) -> list[tuple[str, np.ndarray]]:
    """The alpha ranges a slope is fitted over: small alpha (1/alpha^2 at any epsilon) and the
    larger alphas (for epsilon < 0.2 only those >= epsilon: the 1/(epsilon alpha) regime)."""
    small = alphas[alphas <= SMALL_ALPHA]
    large = alphas[alphas >= max(SMALL_ALPHA, eps if eps < 0.2 else 0.0)]
    return [(f"alpha {a.min():g}..{a.max():g}", a) for a in (small, large) if a.size >= 2]


def _curves(trials, nhat, eps_values):
    """(trials, n_hat rows) per (learner, epsilon); ERM under epsilon None."""
    out = {}
    for learner, eps in [("ppm", e) for e in eps_values] + [("erm", None)]:
        tri, sub = trials[trials.learner == learner], nhat[nhat.learner == learner]
        if learner == "ppm":
            tri, sub = tri[tri["learner.epsilon"] == eps], sub[sub["learner.epsilon"] == eps]
        out[(learner, eps)] = (tri, sub.sort_values("alpha"))
    return out


def _eps_values(trials):
    return sorted(trials.loc[trials.learner == "ppm", "learner.epsilon"].unique(), reverse=True)


def _ppm_rows(tri, sub, eps, beta, d, w_pub, alphas, n_boot) -> list[VerdictRow]:
    ok = plotting.uncensored(sub)
    explicit = np.array([bounds.agnostic_sample_complexity(a, beta, eps, d)
                         for a in sub["alpha"]], dtype=float)
    rows = []
    for name, reg in regimes(alphas, eps):
        fit = sample_complexity_slope(tri, reg, beta, error_col=ERROR_COL, n_boot=n_boot)
        # The theory's local slope over the regime: 2 where 1/alpha^2 dominates, 1 in the
        # 1/(epsilon alpha) regime, plus the log factor of the O-form.
        g2 = np.geomspace(reg.min(), reg.max(), 20)
        theory_log = loglog_slope(1 / g2, bounds.agnostic_shape(g2, beta, eps, d))[0]
        theory = loglog_slope(1 / g2, np.maximum(1 / g2**2, 1 / (eps * g2)))[0]
        in_reg = ok & sub["alpha"].isin(reg).to_numpy()
        loose = explicit[in_reg] / sub["n_hat"].to_numpy()[in_reg]
        rows.append(VerdictRow(
            claim="C2", figure="c2_agnostic",
            setting=f"d={d}, w_pub={w_pub:g}, epsilon={eps:g}, {name}, overlapping "
                    "clusters (excess error)",
            paper="excess error <= alpha once n ~ max(1/alpha^2, 1/(epsilon alpha)) "
                  "(Thm 4.10)",
            measured=f"slope of log n_hat vs log(1/alpha) = {fmt_slope(fit)} "
                     f"({fit['n_points']} uncensored alphas)",
            theory=f"{theory:.2f} (with log factor {theory_log:.2f})",
            looseness=float(np.median(loose)) if loose.size else math.nan,
            verdict=upper_bound_verdict(fit, min(theory, theory_log), max(theory, theory_log),
                                        bool(np.all(loose >= 1)) if loose.size else True),
            slope=fit["slope"], slope_lo=fit["lo"], slope_hi=fit["hi"],
            d=d, epsilon=float(eps), w_pub=w_pub, extra=name))
    return rows


def _ratio_text(curves, eps_values, alphas) -> str:
    """PPM's n_hat at the smallest over the largest epsilon, where both are uncensored."""
    if len(eps_values) < 2:
        return ""
    hi_e, lo_e = eps_values[0], eps_values[-1]
    a_sub = curves[("ppm", hi_e)][1].set_index("alpha")
    b_sub = curves[("ppm", lo_e)][1].set_index("alpha")
    both = [a for a in alphas if a >= lo_e and plotting.uncensored(a_sub.loc[[a]]).all()
            and plotting.uncensored(b_sub.loc[[a]]).all()]
    if not both:
        return ""
    return (f"; PPM n_hat(eps={lo_e:g}) / n_hat(eps={hi_e:g}) for alpha >= {lo_e:g}: "
            + ", ".join(f"{b_sub.loc[a, 'n_hat'] / a_sub.loc[a, 'n_hat']:.1f} (alpha={a:g})"
                        for a in both) + f" vs {hi_e / lo_e:g} if privacy dominated")


def analyse(results) -> list[VerdictRow]:
    data = results.load("c2_agnostic")
    if data is None:
        return []
    trials, nhat = data
    beta, alphas = beta_of(nhat), alphas_of(nhat)
    d, w_pub = first(trials, "population.d", int), first(trials, "population.w_pub")
    eps_values = _eps_values(trials)
    curves = _curves(trials, nhat, eps_values)
    rows = []
    for eps in eps_values:
        rows += _ppm_rows(*curves[("ppm", eps)], eps, beta, d, w_pub, alphas, results.n_boot)
    fit = sample_complexity_slope(curves[("erm", None)][0], alphas[alphas <= SMALL_ALPHA], beta,
                                  error_col=ERROR_COL, n_boot=results.n_boot)
    rows.append(VerdictRow(
        claim="C2", figure="c2_agnostic",
        setting=f"d={d}, non-private ERM (reference), alpha <= {SMALL_ALPHA:g}",
        paper="non-private agnostic rate (d + ln 1/beta)/alpha^2",
        measured="slope = " + fmt_slope(fit) + _ratio_text(curves, eps_values, alphas),
        theory="2", verdict="reference (non-private)",
        slope=fit["slope"], slope_lo=fit["lo"], slope_hi=fit["hi"],
        d=d, w_pub=w_pub, extra=f"non-private ERM, alpha <= {SMALL_ALPHA:g}"))
    return rows


def plot(results, rows: list[VerdictRow], out_dir) -> None:
    """Left: 90% quantile of excess error vs n (the beta = 0.1 level n_hat inverts), with the
    explicit bound; right: n_hat vs alpha with the explicit n and the fitted O-shape."""
    trials, nhat = results.load("c2_agnostic")
    beta, alphas = beta_of(nhat), alphas_of(nhat)
    d, w_pub = first(trials, "population.d", int), first(trials, "population.w_pub")
    eps_values = _eps_values(trials)
    colors = {e: PALETTE[i % len(PALETTE)] for i, e in enumerate(eps_values)}
    curves = _curves(trials, nhat, eps_values)
    fig, (ax1, ax2) = plotting.panels(2, 6.4, 6.0)
    ns = np.sort(trials["n"].unique()).astype(float)
    grid = np.geomspace(alphas.min(), alphas.max(), 40)
    for (learner, eps), (tri, sub) in curves.items():
        suffix = f", epsilon = {eps:g}" if learner == "ppm" else ""
        over = {"color": colors[eps]} if learner == "ppm" else {}
        style, label = plotting.style_and_label(learner, suffix, **over)
        q = tri.groupby("n")[ERROR_COL].quantile(1 - beta)
        ax1.plot(q.index, np.maximum(q.to_numpy(), 1e-5), ls="-", label=label, **style)
        plotting.draw_nhat(ax2, sub["alpha"], sub, float(ns.max()), style, label)
        if learner != "ppm":
            continue
        c = colors[eps]
        ax1.plot(ns, [bounds.agnostic_bound(n, d, eps, beta) for n in ns], color=c, ls="--",
                 lw=1, label=f"Thm 4.10 explicit bound, epsilon = {eps:g}")
        ax2.plot(grid, [bounds.agnostic_sample_complexity(a, beta, eps, d) for a in grid],
                 color=c, ls="--", lw=1, label=f"Thm 4.10 explicit n, epsilon = {eps:g}")
        ok = plotting.uncensored(sub)
        if ok.any():
            shape_pts = bounds.agnostic_shape(sub["alpha"].to_numpy(), beta, eps, d)
            const = bounds.fit_shape_constant(sub["n_hat"].to_numpy()[ok], shape_pts[ok])
            ax2.plot(grid, const * bounds.agnostic_shape(grid, beta, eps, d), color=c, ls=":",
                     label=f"O-shape fitted ({const:.2g} x), epsilon = {eps:g}")
    plotting.log_axes(ax1, None, "sample size n", f"{1 - beta:.0%} quantile of excess error "
                      "over trials")
    ax1.set_title(f"excess error vs n (d = {d}, w_pub = {w_pub:g})", fontsize=9)
    plotting.legend_below(ax1)
    plotting.log_axes(ax2, alphas, r"target excess error $\alpha$", plotting.nhat_label(beta))
    ax2.set_title("PPM slopes\n" + "\n".join(
        f"eps={r.epsilon:g}, {r.extra}: {r.slope:.2f}" for r in rows
        if r.verdict != "reference (non-private)"), fontsize=8)
    plotting.legend_below(ax2)
    plotting.save(fig, out_dir, "c2_agnostic", "C2 (Theorem 4.10): agnostic sample complexity")


CLAIM = Claim(id="C2", name="c2_agnostic", statement=STATEMENT, experiments=("c2_agnostic",),
              analyse=analyse, plot=plot, headline={"epsilon": 1.0})
