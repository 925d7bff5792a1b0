"""Coverage of every counted statistic on its claim's current design (docs/model.md §5.2).

:mod:`analysis.coverage` measures the ``n_hat`` intervals and plain log-log slopes of five
designs. This module measures the statistic each counted verdict row reads, named by the
row's ``statistic`` id, on the design that row reads today: its cells, alphas, ``n`` grid and
trials per ``n`` from the committed trials. :data:`COUNTED` mirrors the claim modules (which
this layer may not import; tests/test_coverage_counted.py checks the mirror against them).

A design here is a set of **groups** (the values of the statistic's abscissa: ``w_pub``,
epsilon, ``b``, ``ln 2D``, C2's populations; C1 has one group), each read at one or several
**alphas**. Every alpha of a group reads the same trials (an error ``<= alpha``), so a data
set draws one latent ``U ~ Uniform(0, 1)`` per (group, ``n``, trial) and a trial succeeds at
alpha iff ``U <= p_{group, alpha}(n)``; its error is the smallest alpha at which it succeeds
(1.0 if none). Where the claim's groups share their samples (C3's epsilons: ``shared``), one
``U`` per (``n``, trial) serves every group (comonotone); otherwise each group draws its own.
The truths are :func:`analysis.coverage.cell_truth`'s (per (group, alpha): the probit of the
committed successes on ``log n``, the logistic curve with its ED50 and ED_{1-beta}, the
shouldered probit mixture), made non-decreasing in alpha within a group. C2's two-term row has
four more truths (:data:`TWO_TERM_TRUTHS`): the probit curves moved so that their ED_{1-beta}
follow ``A/alpha^2 + B/alpha`` at the fitted parameters, at a share of the ``1/alpha^2`` term
of 0.1 and of 0.9 at the smallest alpha (near the boundaries 0 and 1 of ``share``), and a pure
power ``alpha^-1.5`` (a curve outside the two-term model).

Each data set is read by the claim's own function (fitted reading, the counted one); the true
value is the same statistic of the true ``n_hat``. A joint row ``every(...)`` is covered when
every part's interval covers its truth in the same data set.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import norm

from analysis.aggregate import ERROR_COL
from analysis.coverage import TRUTHS, Cell, cell_truth, read_trials, seed_sequence, trial_grid
from analysis.dose_response import glm_fit
from analysis.floor_slope import (floor_subtracted_slope, floor_subtracted_slope_paired,
                                  two_term_family, two_term_fit, two_term_share)
from analysis.sample_complexity import loglog_slope
from analysis.slopes import (sample_complexity_slope, sample_complexity_slope_against,
                             sample_complexity_slope_family)
from experiments.columns import (ALPHA_TARGET, COMPOSITION, DISJUNCTION, DOMAIN, EPSILON,
                                 GENERIC, K, PPM, SET_COVER, T, W_PUB)

__all__ = ["COUNTED", "PLAN", "TWO_TERM_TRUTHS", "CountedDesign", "load_counted", "truths_of",
           "counted_truth", "simulate_counted", "run_counted"]

TWO_TERM_TRUTHS = ("two_term_fit", "share_0.1", "share_0.9", "power_1.5")
PRIVACY_DOMINATES = 1.0  # claims/c3_epsilon.py: the floor slope's epsilons <= 1
SMALL_ALPHA = 0.01  # claims/c2/agnostic.py: the family slope below, the two-term fit above

# name -> (kind, experiments, filters, x, alphas, shared, statistic). kind: "alphas" (one
# group, slope against 1/alpha: sample_complexity_slope), "against"
# (sample_complexity_slope_against per alpha), "log_ratio" (C5: the against slope times
# ln(x_max/x_min)), "floor" (C3: floor_subtracted_slope_paired, epsilons <= 1 and the largest),
# "family" (C2: each population at its own alpha; its slope below SMALL_ALPHA and the
# two-term fit above), "family_slope" (C2 at epsilon 0.1: the family slope over alpha <=
# SMALL_ALPHA alone). x: the column or the transform the claim reads ("ln_2D" = ln(2D),
# "b_int" = round(log2 T), "b" = log2 T). alphas: the counted ones.
COUNTED = {
    "c1_realizable_d1": ("alphas", ("c1_realizable_d1",), {"learner": PPM}, None,
                         (0.005, 0.01, 0.02, 0.05, 0.1, 0.2), False, "loglog_slope_alpha"),
    "c1_realizable_d2": ("alphas", ("c1_realizable_d2",), {"learner": PPM}, None,
                         (0.03, 0.05, 0.1, 0.2, 0.3), False, "loglog_slope_alpha"),
    "c2_hard_family": ("family", ("c2_hard_family", "c2_hard_family_small_alpha",
                                  "c2_hard_family_fine", "c2_hard_family_fine_alpha0025",
                                  "c2_hard_family_fine_alpha00125"),
                       {"learner": PPM, EPSILON: 1.0}, ALPHA_TARGET, None, False,
                       "every(family_loglog_slope_alpha+two_term_local_slope)"),
    "c2_hard_family_eps01": ("family_slope", ("c2_hard_family", "c2_hard_family_small_alpha"),
                             {"learner": PPM, EPSILON: 0.1}, ALPHA_TARGET, None, False,
                             "family_loglog_slope_alpha"),
    "c3_epsilon_d1": ("floor", ("c3_epsilon_d1",), {"learner": PPM}, EPSILON,
                      (0.02, 0.05, 0.1), True, "every(floor_slope)"),
    "c3_epsilon_d2": ("floor", ("c3_epsilon_d2",), {"learner": PPM}, EPSILON,
                      (0.1, 0.2), True, "every(floor_slope)"),
    "c5_mixture_weight": ("log_ratio", ("c5_mixture_weight",), {"learner": PPM}, W_PUB,
                          (0.01, 0.02, 0.04), False, "every(log_ratio_over_w_pub_range)"),
    "c5_mixture_weight_d2": ("log_ratio", ("c5_mixture_weight_d2",), {"learner": PPM}, W_PUB,
                             (0.1, 0.15, 0.2), False, "every(log_ratio_over_w_pub_range)"),
    "c11_set_cover_D_set_cover": ("against", ("c11_set_cover_D",),
                                  {"learner": SET_COVER, COMPOSITION: "set_cover"}, "ln_2D",
                                  (0.05,), False, "loglog_slope_ln_2d"),
    "c11_set_cover_D_naive": ("against", ("c11_set_cover_D",),
                              {"learner": SET_COVER, COMPOSITION: "naive"}, "ln_2D",
                              (0.05,), False, "loglog_slope_ln_2d"),
    "c11_set_cover_decoy_set_cover": ("against", ("c11_set_cover_decoy",),
                                      {"learner": SET_COVER, COMPOSITION: "set_cover"}, K,
                                      (0.03,), False, "loglog_slope_k"),
    "c13_generic_domain": ("against", ("c13_generic_domain",), {"learner": GENERIC}, "b_int",
                           (0.2,), False, "loglog_slope_b"),
    "c13_generic_domain_plateau": ("against", ("c13_generic_domain_plateau",),
                                   {"learner": GENERIC}, "b_int", (0.1,), False,
                                   "loglog_slope_b"),
    "c16_union_polygons": ("against", ("c16_union_polygons",), {"learner": DISJUNCTION}, "b",
                           (0.01,), False, "loglog_slope_b"),
    "c16_theorem_budget": ("against", ("c16_theorem_budget",), {"learner": DISJUNCTION}, "b",
                           (0.01,), False, "loglog_slope_b"),
    "c12_theorem_budget_dense": ("against", ("c12_theorem_budget_dense",),
                                 {"learner": SET_COVER}, "b", (0.1,), False, "loglog_slope_b"),
}
FAMILY_PARTS = ("family_loglog_slope_alpha", "two_term_local_slope")
# the data sets per design and truth of results/coverage.csv (scripts/coverage.py --counted
# without --datasets), sized to the study's CPU budget: the probit truth first and largest
_AGAINST = {"probit": 80, "mixture": 40}
PLAN = {
    "c1_realizable_d1": {"probit": 150, "mixture": 150},
    "c1_realizable_d2": {"probit": 200, "mixture": 100, "logit": 60},
    "c2_hard_family": {"probit": 80, "mixture": 40, "two_term_fit": 40, "share_0.1": 40,
                       "share_0.9": 40, "power_1.5": 40},
    "c2_hard_family_eps01": {"probit": 100, "mixture": 40},
    "c3_epsilon_d1": {"probit": 250, "mixture": 60},
    "c3_epsilon_d2": {"probit": 100, "mixture": 40},
    "c5_mixture_weight": {"probit": 80, "mixture": 40},
    "c5_mixture_weight_d2": {"probit": 120, "mixture": 60},
    **{name: _AGAINST for name in ("c11_set_cover_D_set_cover", "c11_set_cover_D_naive",
                                   "c11_set_cover_decoy_set_cover", "c13_generic_domain",
                                   "c13_generic_domain_plateau", "c16_union_polygons",
                                   "c16_theorem_budget", "c12_theorem_budget_dense")},
}


def part_statistic(name: str) -> str:
    """The per-row statistic id of a design (the part of its joint row)."""
    stat = COUNTED[name][6]
    return stat[len("every("):-1] if stat.startswith("every(") else stat


@dataclass(frozen=True)
class CountedDesign:
    """Groups (``xs``) x alphas: ``cells[g][j]`` is group ``g`` read at ``alphas[g][j]``."""

    name: str
    kind: str
    beta: float
    x_col: str
    xs: tuple
    alphas: tuple  # per group, ascending
    cells: tuple  # per group, a tuple of analysis.coverage.Cell (one per alpha)
    shared: bool
    setting: str


def _with_x(trials, x):
    if x == "ln_2D":
        return trials.assign(ln_2D=np.log(2.0 * trials[DOMAIN].astype(float))), "ln_2D"
    if x == "b_int":
        return trials.assign(b=np.log2(trials[T].astype(float)).round().astype(int)), "b"
    if x == "b":
        return trials.assign(b=np.log2(trials[T].astype(float))), "b"
    return trials, x


def load_counted(name: str, root="results") -> CountedDesign:
    """The counted design ``name`` (a key of :data:`COUNTED`) from the trials under ``root``."""
    if name not in COUNTED:
        raise ValueError(f"counted design must be one of {sorted(COUNTED)}, got {name!r}")
    kind, exps, filters, x, alphas, shared, _ = COUNTED[name]
    root = Path(root)
    trials = read_trials(name, exps, root)
    for col, v in filters.items():
        trials = trials[trials[col] == v]
    if trials.empty:
        raise ValueError(f"design {name}: no trials match {filters}")
    beta = float(pd.read_csv(root / exps[0] / "n_hat.csv")["beta"].iloc[0])
    if kind == "alphas":
        trials = trials.assign(_g=1.0)
        x_col = "_g"
    else:
        trials, x_col = _with_x(trials, x)
    if kind == "family_slope":  # claims/c2/agnostic.py regimes: alpha <= 0.01 below eps 0.2
        trials = trials[trials[x_col] <= SMALL_ALPHA]
    if kind == "floor":
        eps = trials[x_col]
        trials = trials[(eps <= PRIVACY_DOMINATES) | (eps == eps.max())]
    xs, group_alphas, cells = [], [], []
    for g, sub in trials.groupby(x_col, sort=True):
        own = (float(g),) if kind.startswith("family") else tuple(alphas)
        ns, t, err = trial_grid(sub)
        xs.append(float(g))
        group_alphas.append(own)
        cells.append(tuple(Cell(float(g), a, ns, t, np.array([np.sum(e <= a) for e in err]))
                           for a in own))
    if shared and any(not (np.array_equal(c[0].ns, cells[0][0].ns)
                           and np.array_equal(c[0].trials, cells[0][0].trials)) for c in cells):
        raise ValueError(f"design {name}: shared groups must have one (n, trial) grid")
    parts = [f"{x} " + ", ".join(f"{v:.4g}" for v in xs)] if kind != "alphas" else []
    if kind.startswith("family"):
        parts = [f"epsilon {filters[EPSILON]:g}, alpha_target " + ", ".join(f"{v:g}" for v in xs)]
    if alphas:
        parts.append("alpha " + ", ".join(f"{a:g}" for a in alphas))
    parts.append("groups on one sample" if shared else "")
    setting = "; ".join(p for p in [", ".join(f"{k}={v}" for k, v in filters.items()
                                              if k != "learner") or "", *parts] if p)
    return CountedDesign(name, kind, beta, x_col, tuple(xs), tuple(group_alphas),
                         tuple(cells), shared, setting)


def truths_of(name: str) -> tuple:
    """The truths a design is simulated under (C2's adds :data:`TWO_TERM_TRUTHS`)."""
    return TRUTHS + (TWO_TERM_TRUTHS if COUNTED[name][0] == "family" else ())


def _moved_probit(cell: Cell, beta: float, n_target: float):
    """The cell's probit truth with its slope kept and its ED_{1-beta} moved to ``n_target``."""
    _, b1, _ = glm_fit(np.log(cell.ns), cell.k, cell.trials, link="probit")
    xt = math.log(n_target)
    z = norm.ppf(1.0 - beta)
    return (lambda x: norm.cdf(z + b1 * (np.asarray(x) - xt))), xt


def _two_term_targets(design: CountedDesign, truth: str) -> dict:
    """C2's moved truths: the target ``n_hat`` of each population at alpha >= SMALL_ALPHA."""
    big = [g for g, a in enumerate(design.alphas) if a[0] >= SMALL_ALPHA]
    a = np.array([design.alphas[g][0] for g in big])
    n_probit = np.exp([cell_truth(design.cells[g][0], "probit", design.beta)[1] for g in big])
    a0, n0 = a.min(), float(n_probit[np.argmin(a)])
    if truth == "two_term_fit":
        A, B = two_term_fit(a, n_probit)
    elif truth == "power_1.5":
        return {g: n0 * (a0 / ai) ** 1.5 for g, ai in zip(big, a)}
    else:  # share s of the 1/alpha^2 term at a0, n_hat(a0) kept
        s = float(truth.split("_")[1])
        A, B = s * n0 * a0**2, (1.0 - s) * n0 * a0
    return {g: A / ai**2 + B / ai for g, ai in zip(big, a)}


def counted_truth(design: CountedDesign, truth: str):
    """Per group: the success probabilities at its ``n`` grid per alpha (non-decreasing in
    alpha) and the true ``n_hat`` per alpha: ``(probs, n_true)``, each a list over groups."""
    if truth not in truths_of(design.name):
        raise ValueError(f"truth must be one of {truths_of(design.name)}, got {truth!r}")
    moved = _two_term_targets(design, truth) if truth in TWO_TERM_TRUTHS else {}
    probs, n_true = [], []
    for g, cells in enumerate(design.cells):
        p_g, ed_g = [], []
        for c in cells:
            p, xt = (_moved_probit(c, design.beta, moved[g]) if g in moved
                     else cell_truth(c, "probit" if moved else truth, design.beta))
            p_g.append(p(np.log(c.ns)))
            ed_g.append(math.exp(xt))
        probs.append(np.maximum.accumulate(np.array(p_g), axis=0))
        n_true.append(np.minimum.accumulate(np.array(ed_g)))
    return probs, n_true


def simulate_counted(design: CountedDesign, probs, rng) -> pd.DataFrame:
    """One data set: the trials (``x_col``, ``n``, ``trial``, error) the claim's function reads;
    a trial's error is the smallest alpha of its group at which ``U <= p`` (1.0 if none)."""
    shared_u = None
    if design.shared:
        shared_u = [rng.random(int(t)) for t in design.cells[0][0].trials]
    frames = []
    for g, (cells, p_g) in enumerate(zip(design.cells, probs)):
        c0 = cells[0]
        us = shared_u if shared_u is not None else [rng.random(int(t)) for t in c0.trials]
        alphas = np.array(design.alphas[g])
        errs = []
        for j, u in enumerate(us):
            s = u[None, :] <= p_g[:, j][:, None]  # (alphas, trials), nested in alpha
            errs.append(np.where(s.any(0), alphas[np.argmax(s, axis=0)], 1.0))
        frames.append(pd.DataFrame({
            design.x_col: design.xs[g], "n": np.repeat(c0.ns, c0.trials),
            "trial": np.concatenate([np.arange(t) for t in c0.trials]),
            ERROR_COL: np.concatenate(errs)}))
    df = pd.concat(frames, ignore_index=True)
    if design.x_col == "b" and COUNTED[design.name][3] == "b_int":
        df["b"] = df["b"].astype(int)
    return df


def _true_and_fits(design: CountedDesign, df, n_true, n_boot, seed):
    """``[(statistic, alpha, fit dict, true value)]``: every counted part of one data set."""
    kind, kw = design.kind, dict(error_col=ERROR_COL, n_boot=n_boot, random_state=seed)
    stat = part_statistic(design.name)
    xs = np.array(design.xs)
    out = []
    if kind == "alphas":
        alphas = design.alphas[0]
        fit = sample_complexity_slope(df, list(alphas), design.beta, **kw)
        true = loglog_slope(1.0 / np.array(alphas), n_true[0])[0]
        return [(stat, math.nan, fit, true)]
    if kind == "family_slope":  # C2 at another epsilon: the family slope alone
        a = np.array([al[0] for al in design.alphas])
        fit = sample_complexity_slope_family(df, design.x_col, design.beta, **kw)
        return [(stat, math.nan, fit, loglog_slope(1.0 / a, [v[0] for v in n_true])[0])]
    if kind == "family":
        a = np.array([al[0] for al in design.alphas])
        n = np.array([v[0] for v in n_true])
        small, big = a <= SMALL_ALPHA, a >= SMALL_ALPHA
        fam = sample_complexity_slope_family(
            df[df[design.x_col].isin(a[small])], design.x_col, design.beta, **kw)
        out.append((FAMILY_PARTS[0], math.nan, fam, loglog_slope(1.0 / a[small], n[small])[0]))
        two = two_term_family(df[df[design.x_col].isin(a[big])], design.x_col, design.beta,
                              **kw)["local"]
        A, B = two_term_fit(a[big], n[big])
        out.append((FAMILY_PARTS[1], math.nan, two,
                    1.0 + two_term_share(A, B, float(a[big].min()))))
        return out
    for j, alpha in enumerate(design.alphas[0]):
        n_j = np.array([v[j] for v in n_true])
        if kind == "floor":
            fit = floor_subtracted_slope_paired(df, design.x_col, alpha, design.beta,
                                                fit_max=PRIVACY_DOMINATES, **kw)
            keep = [i for i, x in enumerate(xs) if x <= PRIVACY_DOMINATES and x < xs.max()]
            keep.append(int(np.argmax(xs)))
            true = floor_subtracted_slope(xs[keep], n_j[keep], len(keep) - 1)[0]
        else:
            fit = sample_complexity_slope_against(df, design.x_col, alpha, design.beta, **kw)
            true = loglog_slope(xs, n_j)[0]
            if kind == "log_ratio":  # claims/c5_mixture_weight.py log_ratio
                scale = math.log(xs.max() / xs.min())
                fit = {**fit, "slope": fit["slope"] * scale, "lo": fit["lo"] * scale,
                       "hi": fit["hi"] * scale}
                true *= scale
        out.append((stat, float(alpha), fit, true))
    return out


def run_counted(design: CountedDesign, truth: str, index: int, n_boot: int,
                curves=None) -> list[dict]:
    """One data set's records: one per counted part (``quantity`` its statistic id, ``cell``
    its alpha where the design reads several) and, for a design with a joint row, one
    ``every(...)`` record whose ``covered`` says every part covered its truth at once."""
    probs, n_true = curves if curves is not None else counted_truth(design, truth)
    rng = np.random.default_rng(seed_sequence("counted:" + design.name, truth, index))
    df = simulate_counted(design, probs, rng)
    seed = int(rng.integers(2**32))
    base = dict(design=design.name, truth=truth, dataset=int(index), reading="fit")
    outside = sum(not c.ns[0] <= v <= c.ns[-1] for cells, nt in zip(design.cells, n_true)
                  for c, v in zip(cells, nt))
    out = []
    for stat, alpha, fit, true in _true_and_fits(design, df, n_true, n_boot, seed):
        lo, hi = float(fit["lo"]), float(fit["hi"])
        out.append(dict(base, quantity=stat, cell=alpha, estimate=float(fit["slope"]),
                        lo=lo, hi=hi, true=float(true), outside_grid=outside,
                        lack_of_fit=fit.get("lack_of_fit") or "",
                        censored_frac=float(fit.get("censored_frac", math.nan))))
    joint = COUNTED[design.name][6]
    if joint.startswith("every("):
        cov = [r["lo"] <= r["true"] <= r["hi"] for r in out]
        out.append(dict(base, quantity=joint, cell=math.nan, estimate=math.nan,
                        lo=math.nan, hi=math.nan, true=math.nan, outside_grid=outside,
                        lack_of_fit="; ".join(r["lack_of_fit"] for r in out
                                              if r["lack_of_fit"]),
                        censored_frac=math.nan, covered=bool(all(cov)),
                        below=any(r["true"] < r["lo"] for r in out),
                        above=any(r["true"] > r["hi"] for r in out)))
    return out
