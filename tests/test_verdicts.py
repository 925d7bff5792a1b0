"""The verdict rules on synthetic intervals: every rule is tested in both directions.

Theory range [1, 1.2] and SLOPE_TOL = 0.25 give the equivalence band [0.75, 1.45] below.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from analysis.dose_response import use_reading
from analysis.split_comparison import nadeau_bengio
from claims.reporting.report import verdict_table
from claims.rules.predictions import (prediction_bands, prediction_verdict, rate_verdict,
                                      theory_with_alternative)
from claims.rules.accounting import row_kind
from claims.rules.verdicts import (FAILS, FASTER, HOLDS, SLOPE_TOL, combined_verdict, counted,
                                   markdown_table, mean_ci, slope_band, upper_bound_verdict, verdict)
from analysis.slopes import sample_complexity_slope_against, sample_complexity_slope_paired

TH = (1.0, 1.2)


def _fit(slope, lo, hi, n=5):
    return {"slope": slope, "lo": lo, "hi": hi, "n_points": n}


def test_the_band_is_the_theory_widened_by_the_stated_margin():
    assert SLOPE_TOL == 0.25
    assert slope_band(*TH) == pytest.approx((0.75, 1.45))


@pytest.mark.parametrize("lo,hi,expected", [
    (0.80, 1.40, "holds"),              # inside the band
    (0.76, 0.90, "holds"),              # inside, though below the theory itself
    (0.70, 0.90, "inconclusive"),       # crosses the lower edge: not "holds"
    (1.30, 1.50, "inconclusive"),       # crosses the upper edge
    (0.50, 2.00, "inconclusive"),       # wider than the band: imprecision is not evidence
    (1.50, 1.70, "does not hold"),      # entirely above
    (0.30, 0.70, "does not hold"),      # entirely below
])
def test_two_sided_verdict(lo, hi, expected):
    assert verdict(lo, hi, (lo + hi) / 2, *TH, n_points=5).startswith(expected)


def test_imprecision_never_makes_holds_easier():
    # the same point estimate with ever wider intervals: holds, then never holds again
    out = [verdict(1.1 - h, 1.1 + h, 1.1, *TH, n_points=5) for h in np.linspace(0.05, 1.0, 40)]
    first_not = next(i for i, v in enumerate(out) if v != "holds")
    assert first_not > 0 and all(v.startswith("inconclusive") for v in out[first_not:])


def test_too_few_points_or_no_slope():
    assert verdict(1.0, 1.1, 1.05, *TH, n_points=2).startswith("inconclusive")
    assert verdict(1.0, 1.1, 1.05, *TH, n_points=3) == "holds"
    assert verdict(math.nan, math.nan, math.nan, *TH, n_points=0) == "not measured"


@pytest.mark.parametrize("fit,below,worse,expected", [
    (_fit(1.1, 1.0, 1.2), True, "above", "holds"),
    (_fit(0.0, -0.1, 0.1), True, "above", FASTER),        # well below: a finding, not "holds"
    (_fit(-0.5, -0.6, -0.4), True, "above", FASTER),
    (_fit(2.0, 1.8, 2.2), True, "above", "does not hold"),  # slower than the bound's rate
    (_fit(0.0, -0.1, 0.1), True, "below", "does not hold"),  # direction flipped (epsilon)
    (_fit(2.0, 1.8, 2.2), True, "below", FASTER),
    (_fit(0.7, 0.6, 0.8), True, "above", "inconclusive"),  # crosses the lower edge
    (_fit(1.1, 1.0, 1.2), False, "above", "holds (but n_hat exceeds the explicit bound)"),
])
def test_upper_bound_verdict(fit, below, worse, expected):
    out = upper_bound_verdict(fit, *TH, below, worse=worse)
    assert out.startswith(expected) if expected == "inconclusive" else out == expected


def test_upper_bound_verdict_rejects_a_bad_direction():
    with pytest.raises(ValueError, match="worse"):
        upper_bound_verdict(_fit(1.1, 1.0, 1.2), *TH, True, worse="up")


@pytest.mark.parametrize("verdicts,expected", [
    (["holds"] * 4 + ["inconclusive (x)"] * 2, "holds in 4 of 6 settings, 2 inconclusive"),
    (["holds"] * 2 + ["inconclusive (x)"] * 4, "inconclusive (2 of 6 settings conclusive)"),
    (["holds", "inconclusive (x)"], "inconclusive (1 of 2 settings conclusive)"),  # not most
    (["holds", "holds", "reference (non-private)"], "holds in 2 of 2 settings"),
    (["does not hold", "does not hold", "holds"],
     "mixed: holds in 1 of 3 settings, does not hold in 2"),
    ([FASTER, FASTER, "inconclusive (x)"], f"{FASTER} in 2 of 3 settings, 1 inconclusive"),
    (["holds", "holds with caveat", "not measured"],
     "holds (with caveat) in 2 of 3 settings, 1 inconclusive"),
    (["reference (non-private)"], "nothing counted: 1 reference or breakdown rows (details in the claim's rows)"),
    (["holds", FASTER, "breakdown (part of a pooled row): inconclusive (x)",
      "breakdown (part of a pooled row): inconclusive (y)"],
     f"mixed: holds in 1 of 2 settings, {FASTER} in 1"),
    (["does not hold"], "does not hold"),
])
def test_combined_verdict(verdicts, expected):
    assert combined_verdict(verdicts) == expected


def test_verdict_table_counts_the_settings():
    details = pd.DataFrame([
        dict(claim="C5", setting="a", measured="slope 0.1", theory="0", looseness=10.0,
             verdict="holds", figure="c5_mixture_weight", alpha=0.01),
        dict(claim="C5", setting="b", measured="slope 0.0", theory="0", looseness=30.0,
             verdict="does not hold", figure="c5_mixture_weight", alpha=0.02),
        dict(claim="C5", setting="c", measured="slope 0.0", theory="0", looseness=20.0,
             verdict="inconclusive (x)", figure="c5_mixture_weight", alpha=0.04),
    ])
    table = verdict_table(details).set_index("claim")
    assert table.loc["C5", "verdict"] == ("mixed: holds in 1 of 3 settings, does not hold in "
                                          "1, 1 inconclusive")
    assert table.loc["C1", "verdict"] == "not run in this results root"


def test_mean_ci_is_the_student_t_interval():
    v = np.array([1.0, 2.0, 4.0, 7.0])
    m, lo, hi = mean_ci(v)
    half = stats.t.ppf(0.975, 3) * v.std(ddof=1) / 2  # independent: t quantile x s / sqrt(n)
    assert (m, lo, hi) == pytest.approx((3.5, 3.5 - half, 3.5 + half))
    # no spread: no zero-width interval; with a resolution the interval is at least +- it
    m, lo, hi = mean_ci([2.0, 2.0])
    assert m == 2.0 and math.isnan(lo) and math.isnan(hi)
    assert mean_ci([2.0, 2.0], resolution=0.01) == pytest.approx((2.0, 1.99, 2.01))
    # a narrow t interval is widened to the resolution, a wide one is not
    m, lo, hi = mean_ci([0.0, 0.001, 0.002], resolution=0.05)
    assert (lo, hi) == pytest.approx((m - 0.05, m + 0.05))
    m, lo, hi = mean_ci(v, resolution=0.05)
    assert (lo, hi) == pytest.approx((3.5 - half, 3.5 + half))


def test_nadeau_bengio_widens_by_the_overlap_correction():
    d = np.array([0.01, 0.03, -0.02, 0.05, 0.02, 0.0, 0.04, 0.01])
    m, lo, hi, p = nadeau_bengio(d, n_train=200, n_test=369)
    k, s2 = d.size, d.var(ddof=1)
    half = stats.t.ppf(0.975, k - 1) * math.sqrt((1 / k + 369 / 200) * s2)
    assert (lo, hi) == pytest.approx((m - half, m + half))
    # with no test/train overlap term it is the plain t interval: much narrower here
    m0, lo0, hi0 = mean_ci(d)
    assert hi0 - lo0 < (hi - lo) / 3
    assert 0 < p < 1


def test_markdown_table_formats_and_escapes():
    out = markdown_table(pd.DataFrame({"a": [1.23456, np.nan], "b": ["x|y", "2.50"]}))
    lines = out.splitlines()
    assert lines[0].split("|")[1].strip() == "a" and set(lines[1]) <= {"|", "-"}
    assert "1.23 " in lines[2] and "x\\|y" in lines[2] and "–" in lines[3] and "2.50" in lines[3]


N_GRID = (16, 32, 64, 128, 256, 512, 1024)


def _shared_sample_trials(rng, trials=60, n_grid=N_GRID, eps=(0.25, 0.5, 1.0)):
    """Errors that depend on the shared sample of (n, trial) much more than on epsilon:
    ``error = S / (epsilon n)`` with ``S ~ Exp(1)`` shared by the epsilons of a trial, so at
    alpha = 0.05 the true n_hat is ``ln(10) / (0.05 epsilon)`` (46 to 184)."""
    rows = []
    for n in n_grid:
        for t in range(trials):
            shared = rng.exponential(1.0)  # how hard this trial's sample is
            for e in eps:
                rows.append(dict(n=n, trial=t, epsilon=e,
                                 error=shared / (e * n) * rng.uniform(0.95, 1.05)))
    return pd.DataFrame(rows)


def test_paired_bootstrap_is_narrower_when_epsilons_share_samples():
    # close epsilons read off the same samples; resampling them jointly keeps that dependence.
    # A fine grid (ratio 2^(1/8)): every replicate also draws n_hat within its bracket, and on a
    # coarse grid that resolution, not the sampling, sets the width (measured: 0.90)
    grid = tuple(np.unique(np.round(16 * 2 ** (np.arange(0, 49) / 8))).astype(int))
    df = _shared_sample_trials(np.random.default_rng(1), eps=(0.75, 0.875, 1.0), n_grid=grid,
                               trials=100)
    kw = dict(alpha=0.05, beta=0.1, n_boot=200)
    # the grid reading: its replicates place n_hat in brackets of the same cells at every
    # epsilon. The fitted reading reads each epsilon's curve in its own window of cells, and
    # different n are different samples, so on this fine grid little dependence is left to keep
    # (measured: paired 1.10 wide, independent 1.01); the coverage study measures the fitted
    # reading's paired intervals on C3's own design (analysis/coverage.py)
    with use_reading("grid"):
        joint = sample_complexity_slope_paired(df, "epsilon", **kw)
        indep = sample_complexity_slope_against(df, "epsilon", **kw)
    assert joint["slope"] == pytest.approx(indep["slope"])  # same point estimate
    assert joint["hi"] - joint["lo"] < 0.95 * (indep["hi"] - indep["lo"])


def test_paired_bootstrap_needs_aligned_trials():
    df = _shared_sample_trials(np.random.default_rng(2), trials=5)
    with pytest.raises(ValueError, match="every"):
        sample_complexity_slope_paired(df.iloc[1:], "epsilon", 0.05, 0.1, n_boot=5)


def test_censored_replicates_are_counted_not_dropped():
    # at epsilon = 0.25 the largest n (256) barely reaches the target at alpha = 0.04
    # (P = 0.92 per trial): some replicates are right-censored there (5% of cells, measured)
    rng = np.random.default_rng(3)
    df = _shared_sample_trials(rng, trials=30, n_grid=N_GRID[:5])
    fit = sample_complexity_slope_paired(df, "epsilon", 0.04, 0.1, n_boot=100)
    assert fit["n_points"] == 3
    assert fit["n_boot_valid"] == 100  # no replicate lost
    assert 0 < fit["censored_frac"] < 1


def test_a_cell_censored_in_a_replicate_enters_at_the_largest_n():
    # grid n = 5, 10, 20, 40; the three groups first reach the target at 10, 20, 40 (n_hat is
    # interpolated in log n: 5 c, 10 c, 20 c with c = 2^0.9)
    from analysis.sample_complexity import loglog_slope
    from analysis.slopes import bootstrap
    ns = np.array([5.0, 10.0, 20.0, 40.0])
    ok, bad = np.zeros(10), np.ones(10)
    groups = [[bad, ok, ok, ok], [bad, bad, ok, ok], [bad, bad, bad, ok]]
    datasets = [(ns, g) for g in groups]
    cells = [(0, 0.5, 1.0), (1, 0.5, 2.0), (2, 0.5, 4.0)]

    def resample(rng):  # every replicate: the third group fails everywhere (right-censored)
        return [groups[0], groups[1], [bad, bad, bad, bad]]

    with use_reading("grid"):  # the grid reading's resolution; the fitted reading: below
        fit = bootstrap(datasets, cells, 0.1, 20, np.random.default_rng(0), 0.95,
                         resample=resample)
    assert fit["slope"] == pytest.approx(1.0) and fit["n_points"] == 3
    # replicates: the first two n_hat anywhere in their brackets (5, 10] and (10, 20], the
    # third at the grid's edge 40; the grid alone (resolution) puts the third in (20, 40]
    steepest = loglog_slope([1.0, 2.0, 4.0], [5.0, 10.0, 40.0])[0]
    flattest = loglog_slope([1.0, 2.0, 4.0], [10.0, 20.0, 20.0])[0]
    assert flattest <= fit["lo"] < 1.0 < fit["hi"] <= steepest
    assert fit["hi"] > fit["resolution"][1]  # the censored replicates reach beyond the grid
    assert fit["censored_frac"] == pytest.approx(1 / 3)
    # the fitted reading: step curves are separated (no maximum-likelihood fit), so each reads
    # its bracket; the censored cell of every replicate still enters, at the grid's edge
    fit = bootstrap(datasets, cells, 0.1, 20, np.random.default_rng(0), 0.95,
                    resample=resample)
    assert fit["status"] == ["bracket"] * 3 and fit["n_boot_valid"] == 20
    assert fit["censored_frac"] == pytest.approx(1 / 3)
    assert flattest <= fit["lo"] < fit["hi"] <= steepest


def test_a_missing_upper_end_draws_an_open_whisker():
    import matplotlib.pyplot as plt

    from claims.reporting import plotting
    sub = pd.DataFrame({"n_hat": [100.0, 200.0], "n_hat_lo": [80.0, 150.0],
                        "n_hat_hi": [130.0, np.nan], "censored": ["", ""]})
    fig, ax = plt.subplots()
    plotting.draw_nhat(ax, [1.0, 2.0], sub, 1000.0, dict(color="C0", marker="o"), "x")
    arrows = [t for t in ax.texts if getattr(t, "arrow_patch", None) is not None]
    plt.close(fig)
    assert len(arrows) == 1  # only the row without an upper end
    assert arrows[0].xy == (2.0, 1.0)  # to the top of the axis (axes fraction)


# --------------------------------------------------------------------------------------------
# verdicts the measurements must earn: grid resolution, repeated measurements, checks
# --------------------------------------------------------------------------------------------


def _step_trials(thresholds, grid, trials=40, x_col="x"):
    """Every trial fails below the group's threshold and succeeds from it on: a step curve."""
    rows = [{x_col: x, "n": n, "trial": t, "error": 0.0 if n >= th else 0.5}
            for x, th in thresholds.items() for n in grid for t in range(trials)]
    return pd.DataFrame(rows)


def test_a_zero_width_interval_is_never_holds():
    # the old rule: [0, 0] lies inside the band around 0, so "holds"
    assert verdict(0.0, 0.0, 0.0, 0.0, 0.0, n_points=4).startswith("inconclusive")
    fit = {"slope": 1.1, "lo": 1.1, "hi": 1.1, "n_points": 4}
    assert upper_bound_verdict(fit, 1.0, 1.2, True).startswith("inconclusive")


def test_a_step_curve_gets_an_n_hat_interval_at_least_one_grid_step_wide():
    from analysis.sample_complexity import empirical_sample_complexity
    grid = [16, 32, 64, 128, 256]
    df = _step_trials({1: 64}, grid, trials=60)
    out = empirical_sample_complexity(df, [0.1], 0.1).iloc[0]
    assert 32 < out["n_hat"] <= 64
    # the old interval was the point itself (every curve, optimistic or not, steps at 64)
    assert out["n_hat_lo"] <= 32 and out["n_hat_hi"] >= 64


def test_a_step_curve_slope_interval_carries_the_grid_resolution():
    # flat truth on a step curve: the old bootstrap gave exactly [0, 0] (every replicate the
    # same interpolation), which "held" against a theory of 0
    grid = [2 ** k for k in range(4, 12)]
    df = _step_trials({1: 256, 2: 256, 4: 256, 8: 256}, grid)
    fit = sample_complexity_slope_against(df, "x", 0.1, 0.1, n_boot=200)
    assert fit["slope"] == pytest.approx(0.0, abs=1e-12)
    # the fitted reading: separated windows read their bracket, each replicate at a uniform
    # position in it: the crossing is only known within (128, 256]
    assert fit["hi"] - fit["lo"] > 0.1
    with use_reading("grid"):
        fit = sample_complexity_slope_against(df, "x", 0.1, 0.1, n_boot=200)
    assert fit["hi"] - fit["lo"] > 0.1
    assert fit["lo"] <= fit["resolution"][0] and fit["resolution"][1] <= fit["hi"]


def test_two_alphas_with_the_same_crossings_are_one_measurement():
    from dataclasses import dataclass

    from analysis.sample_complexity import crossing_signature
    from claims.rules.verdicts import mark_same_measurement
    grid = [16, 32, 64, 128, 256]
    df = _step_trials({1: 64, 2: 128}, grid)  # errors 0 or 0.5: alpha 0.05 and 0.2 alike
    s1, s2 = (crossing_signature(df, a, 0.1, by=["x"]) for a in (0.05, 0.2))
    assert s1 == s2 and s1 != crossing_signature(df, 0.6, 0.1, by=["x"])

    @dataclass
    class Row:
        alpha: float
        verdict: str
    rows = [Row(0.05, "holds"), Row(0.2, "holds"), Row(0.6, "does not hold")]
    sigs = {0.05: s1, 0.2: s2, 0.6: ("other",)}
    mark_same_measurement(rows, lambda r: sigs[r.alpha], lambda r: f"alpha = {r.alpha:g}")
    assert rows[1].verdict.startswith("same measurement as alpha = 0.05")
    # counted once: 1 holds + 1 fails (the old count: 2 holds of 3)
    assert combined_verdict([r.verdict for r in rows]) == \
        "mixed: holds in 1 of 2 settings, does not hold in 1"


def test_checks_are_not_settings_and_a_failed_check_is_loud():
    from claims.rules.verdicts import check_verdict
    assert check_verdict(True) == "check: passed"
    assert combined_verdict(["holds", "holds", check_verdict(True)]) == \
        "holds in 2 of 2 settings"
    out = combined_verdict(["holds", "holds", check_verdict(False, "1 of 30 above")])
    assert out.startswith("CHECK FAILED (1 of 1 built-in checks failed") and "holds in 2" in out
    assert combined_verdict([check_verdict(True)]).startswith("checks only")


@pytest.mark.parametrize("lo,hi,direction,expected", [
    (1.8, 2.2, "", "holds"),
    (1.8, 2.2, "lower bound", "inconclusive"),  # the truth may lie above the band
    (2.6, 3.0, "lower bound", "does not hold"),  # even the lower bound is above it
    (0.5, 1.0, "lower bound", "inconclusive"),  # below as a lower bound says nothing
    (0.5, 1.0, "upper bound", FASTER),
])
def test_a_censored_estimate_decides_only_on_its_own_side(lo, hi, direction, expected):
    from claims.rules.verdicts import bound_estimate_verdict
    fit = {"slope": (lo + hi) / 2, "lo": lo, "hi": hi, "n_points": 9}
    assert bound_estimate_verdict(fit, 2.0, 2.1, direction).startswith(expected)


def test_c10_has_no_escape_through_a_small_error():
    """Shift 0: the learner's own error is small (0.03) but it is +0.016 [+0.008, +0.025]
    worse than PPM: the old rule (error <= 0.05) said "holds"; the difference is neither
    within 0.02 nor beyond it, so the precondition (parity at shift 0) is not established: a
    reference row, neither counted nor a failed check."""
    from claims.c10_homogeneity import _row
    rng = np.random.default_rng(0)
    rows = []
    for shift in (0.0, 1.0):
        for t in range(200):
            ppm = 0.014 + 0.002 * rng.standard_normal()
            gap = (0.016 if shift == 0 else 0.2) + 0.06 * rng.standard_normal()
            rows += [dict(learner="ppm", trial=t, n=100, shift=shift, error=ppm),
                     dict(learner="semi_private", trial=t, n=100, shift=shift, error=ppm + gap)]
    df = pd.DataFrame(rows).assign(**{"population.d": 1})
    parity, check = _row(df, "semi_private", "semi-private", "x")
    v = parity.verdict
    assert v.startswith("reference (precondition not met, not a bug: not established"), v
    assert not counted(v) and row_kind(v) == "reference"
    assert "paired trials at this n decide it" in v  # the design that would decide it
    # without parity at shift 0, the shift-1 difference is not the mixture's alone: a reference
    assert check.verdict.startswith("reference (precondition at shift 0 not met")


def test_real_data_separates_mechanism_noise_from_the_split_overlap():
    from analysis.split_comparison import split_mechanism_interval
    from claims.real_breast_cancer import comparison
    rng = np.random.default_rng(0)
    # 40 splits x 20 draws: the splits agree (no split variance), the mechanism is noisy
    by_split = [0.05 + 0.3 * rng.standard_normal(20) for _ in range(40)]
    m, lo, hi, _, separated = split_mechanism_interval(by_split, 200, 369)
    flat = np.concatenate(by_split)
    _, nb_lo, nb_hi, _ = nadeau_bengio(flat, 200, 369)  # inflates the mechanism noise too
    assert separated and hi - lo < 0.5 * (nb_hi - nb_lo)
    # one draw per split: not separable, the plain corrected t (conservative)
    one = [d[:1] for d in by_split]
    assert split_mechanism_interval(one, 200, 369)[4] is False
    assert split_mechanism_interval(one, 200, 369)[:4] == pytest.approx(
        nadeau_bengio([d[0] for d in one], 200, 369))
    # split means that vary less than the mechanism noise alone makes them: the split-level
    # variance is not estimable (not clipped to 0): Nadeau-Bengio on the split means
    flat_splits = [d - d.mean() + 0.05 for d in by_split]  # every split mean exactly 0.05
    wobble = [d + 1e-3 * (i % 2) for i, d in enumerate(flat_splits)]
    m2, lo2, hi2, _, sep2 = split_mechanism_interval(wobble, 200, 369)
    assert sep2 is False
    assert (m2, lo2, hi2) == pytest.approx(nadeau_bengio([d.mean() for d in wobble], 200, 369)[:3])
    # an interval straddling 0 is no evidence of "no difference"
    assert comparison(-0.458, 0.743).startswith("inconclusive")
    assert comparison(-0.01, 0.015).startswith("no difference")
    assert comparison(0.01, 0.2) == "PPM better"


# ------------------------------------------------------------------------------------------
# Prediction bands: a rate weighed against the alternative the claim argues against


def test_prediction_bands_are_derived_from_the_two_predictions():
    # far apart (0 vs 1): each widened by SLOPE_TOL
    bp, ba = prediction_bands((0, 0), (1, 1))
    assert bp == pytest.approx((-0.25, 0.25)) and ba == pytest.approx((0.75, 1.25))
    # close (C9: 0 vs 0.09): the facing edges meet at the midpoint, the far edges keep the tol
    bp, ba = prediction_bands((0, 0), (0.09, 0.09))
    assert bp == pytest.approx((-0.25, 0.045)) and ba == pytest.approx((0.045, 0.34))
    # alternative below the prediction
    bp, ba = prediction_bands((1.0, 1.0), (0.5, 0.5))
    assert bp == pytest.approx((0.75, 1.25)) and ba == pytest.approx((0.25, 0.75))
    assert prediction_bands((0, 1), (0.5, 2)) is None
    assert prediction_bands((1.0001, 2), (1, 1)) is None  # touching: not separable
    assert "alternative naive" in theory_with_alternative((1, 1), (1.5, 1.5), ("k", "naive"))


def test_rate_verdict_holds_only_when_the_alternative_is_excluded():
    # C9's case: PPM [-0.033, 0.023] is inside the PPM band against 0.09: holds
    assert rate_verdict(_fit(-0.005, -0.033, 0.023), (0, 0), (0.09, 0.09)) == HOLDS
    # the same interval against the old +-0.25 "flat" would have held even if it reached 0.09:
    v = rate_verdict(_fit(0.0, -0.03, 0.10), (0, 0), (0.09, 0.09), ("PPM flat", "EM ln T"))
    assert v.startswith("inconclusive (cannot separate PPM flat from EM ln T")
    assert "x the trials per cell" in v
    # inside the alternative's band: does not hold
    v = rate_verdict(_fit(0.10, 0.07, 0.13), (0, 0), (0.09, 0.09), ("PPM flat", "EM ln T"))
    assert v.startswith(FAILS) and "consistent with EM ln T" in v
    # outside both (steeper than either): does not hold
    assert rate_verdict(_fit(2.0, 1.8, 2.2), (1, 1), (0.5, 0.5)).startswith(FAILS)
    # C11's case: Claim 3.4 [0.96, 1.09] against naive 1.5: the interval [0.46, 1.34] meets
    # both bands
    v = rate_verdict(_fit(0.9, 0.46, 1.34), (0.96, 1.09), (1.5, 1.5))
    assert v.startswith("inconclusive (cannot separate")
    # the outer edge of the prediction's band: inconclusive, not holds
    v = rate_verdict(_fit(-0.2, -0.4, 0.0), (0, 0), (0.09, 0.09))
    assert v.startswith("inconclusive (interval crosses an edge") and "x the trials" in v
    assert rate_verdict(_fit(0.0, -0.01, 0.01, n=2), (0, 0), (1, 1)).startswith(
        "inconclusive (2 uncensored")
    assert rate_verdict(_fit(0.0, 0.0, 0.0), (0, 0), (1, 1)).startswith(
        "inconclusive (zero-width")
    assert rate_verdict(_fit(0.0, -0.1, 0.1), (0, 0.5), (0.4, 1)).startswith(
        "inconclusive (the paper's rate and the alternative overlap")


def test_rate_verdict_upper_bound_faster_side():
    # C3-like: prediction -1, alternative 0 (no epsilon dependence); worse = "below"
    assert rate_verdict(_fit(-1.0, -1.1, -0.9), (-1, -1), (0, 0), worse="below") == HOLDS
    # the issue's near-flat -0.31: entirely flatter than -1's band, so not "holds" but the
    # finding "faster" (an upper bound); two-sided it crosses the alternative's band's edge
    # it meets the alternative's band [-0.25, 0.25], so it could not have excluded it: shown,
    # not counted; one that excludes it counts as the finding
    v = rate_verdict(_fit(-0.31, -0.45, -0.2), (-1, -1), (0, 0), worse="below")
    assert v.startswith("breakdown (not counted: faster") and v.endswith(FASTER)
    assert rate_verdict(_fit(-0.5, -0.6, -0.4), (-1, -1), (0, 0), worse="below") == FASTER
    v = rate_verdict(_fit(-0.31, -0.45, -0.2), (-1, -1), (0, 0))
    assert v.startswith("inconclusive (interval crosses an edge of the alternative's band")
    # inside the band of the faster alternative: not counted either
    v = rate_verdict(_fit(-0.1, -0.2, 0.0), (-1, -1), (0, 0), worse="below")
    assert v.startswith("breakdown") and "meets the alternative's band" in v
    # two-sided, the same interval does not hold
    v = rate_verdict(_fit(-0.1, -0.2, 0.0), (-1, -1), (0, 0))
    assert v.startswith(FAILS) and "consistent with the alternative" in v
    # steeper than the prediction band: does not hold (slower learner)
    assert rate_verdict(_fit(-2.0, -2.2, -1.8), (-1, -1), (0, 0),
                        worse="below").startswith(FAILS)
    # a realizable rate faster than 1 against 2, worse above: below both is FASTER
    assert rate_verdict(_fit(0.3, 0.2, 0.4), (1, 1), (2, 2), worse="above") == FASTER
    # between the bands on the slow side (1 against 2): does not hold
    assert rate_verdict(_fit(1.6, 1.5, 1.7), (1, 1), (2, 2), worse="above").startswith(
        FAILS + " (the interval lies between")
    # between the bands on the fast side (C3: -1 against 0): faster than the worst case
    assert rate_verdict(_fit(-0.5, -0.6, -0.4), (-1, -1), (0, 0), worse="below") == FASTER
    # two-sided: between is a failure
    assert rate_verdict(_fit(-0.5, -0.6, -0.4), (-1, -1), (0, 0)).startswith(FAILS)


def test_rate_verdict_censored_bounds_decide_only_their_side():
    fit = dict(_fit(0.2, 0.1, 0.3), direction="lower bound")
    # a "grows" prediction (0, inf) against flat: a lower bound inside it holds
    assert rate_verdict(fit, (0.05, math.inf), (0, 0)).startswith(HOLDS)
    # a lower bound above the prediction's band: the truth is further out: does not hold
    assert rate_verdict(dict(_fit(1.0, 0.8, 1.2), direction="lower bound"),
                        (0, 0), (0.5, 0.5)).startswith(FAILS + " (even as a lower bound")
    # a lower bound inside a closed band cannot confirm it
    assert rate_verdict(fit, (0.2, 0.2), (1, 1)).startswith("inconclusive (censored cells")
    assert rate_verdict(dict(fit, direction="upper bound"), (0.2, 0.2),
                        (1, 1)).startswith("inconclusive (censored cells")
    assert rate_verdict(dict(fit, direction="bound both ways"), (0.2, 0.2),
                        (1, 1)).startswith("inconclusive (censored cells on both")


def test_prediction_verdict_upper_bound_direction():
    # an upper bound: predictions entirely above hi are excluded
    v = prediction_verdict(0.0, 0.1, 0.05, (0.5, 0.5), (0.0, 0.0), direction="upper bound")
    assert v.startswith(FAILS + " (even as an upper bound")
    v = prediction_verdict(0.0, 0.1, 0.05, (0.0, 0.0), (0.5, 0.5), direction="upper bound")
    assert v.startswith("inconclusive (censored cells make the estimate an upper bound")


def test_upper_bound_verdict_reads_the_censored_direction():
    fit = dict(_fit(1.6, 1.5, 1.7), direction="lower bound")  # above [0.75, 1.45]
    assert upper_bound_verdict(fit, *TH, True).startswith(FAILS + " (even as a lower bound")
    fit = dict(_fit(1.1, 1.0, 1.2), direction="lower bound")  # inside: the truth may be above
    assert upper_bound_verdict(fit, *TH, True).startswith("inconclusive (censored")
    fit = dict(_fit(1.1, 1.0, 1.2), direction="")
    assert upper_bound_verdict(fit, *TH, True) == HOLDS


# ------------------------------------------------------------------------------------------
# C8: "essentially the same accuracy" on the interval's upper end


def _c8_trials(shift, sd, trials=40, seed=0, n_test=2000):
    rng = np.random.default_rng(seed)
    rows = []
    for eta, delta in ((0.0, 0.0), (0.1, shift)):
        for t in range(trials):
            rows.append({"learner": "ppm", "n": 100, "trial": t, "population.eta": eta,
                         "population.d": 1, "n_test": n_test,
                         "error": 0.05 + delta + rng.normal(0, sd)})
    return pd.DataFrame(rows)


def _c8_reading(verdict: str) -> str:
    """The one-n rows are references now (the counted test is C8's n_hat ratio): their own
    reading follows the reference's reason."""
    assert verdict.startswith("reference (one n"), verdict
    return verdict.split("): ", 1)[1]


def test_c8_rule_reads_the_upper_end_so_noise_cannot_help():
    from claims.c8_relaxations import _row
    assert _c8_reading(_row(_c8_trials(0.0, 0.01), "population.eta", "r", "p").verdict) == "holds"
    # the same mean change with much noise: the old rule (m <= 3 se) passed it; now it cannot
    v = _c8_reading(_row(_c8_trials(0.015, 0.2), "population.eta", "r", "p").verdict)
    assert not v.startswith("holds ") and v != "holds"
    # a clear growth beyond the tolerance and the relaxation level: does not hold
    v = _c8_reading(_row(_c8_trials(0.2, 0.01), "population.eta", "r", "p").verdict)
    assert v.startswith("does not hold")


def test_c8_no_spread_is_not_a_zero_width_interval():
    from claims.c8_relaxations import _row
    df = _c8_trials(0.0, 0.0)
    row = _row(df, "population.eta", "r", "p")
    assert _c8_reading(row.verdict) == "holds"  # +- 1/n_test: the test error's resolution
    assert "[-0.001, +0.001]" in row.measured
    row = _row(df.drop(columns="n_test"), "population.eta", "r", "p")
    assert _c8_reading(row.verdict).startswith("inconclusive (no interval")


# ------------------------------------------------------------------------------------------
# Real data: the smallest difference a design detects


def test_detectable_difference_is_the_80_percent_power_effect():
    from claims.real_breast_cancer import comparison, detectable_difference
    se = 0.1
    half = stats.t.ppf(0.975, 1000) * se
    mde = detectable_difference(-half, half, 1000)
    assert mde == pytest.approx((1.96 + 0.8416) * se, rel=1e-2)
    # power by simulation: a true difference of mde is detected about 80% of the time
    rng = np.random.default_rng(0)
    est = rng.normal(mde, se, 20000)
    assert np.mean(np.abs(est) > half) == pytest.approx(0.8, abs=0.02)
    v = comparison(-0.4, 0.7, mde)
    assert v.startswith("inconclusive") and f"{mde:.3f}" in v
    assert comparison(0.01, 0.05, mde) == "PPM better"
    assert comparison(0.01, 0.01).startswith("inconclusive (zero-width")


def test_a_claim_with_reference_rows_only_is_not_called_not_run():
    v = combined_verdict(["reference (precondition not met, not a bug: x)", "reference (y): z"])
    assert v.startswith("nothing counted: 2 reference") and "not run" not in v
    assert combined_verdict([]) == "not run"


def test_real_data_joint_row_reads_every_epsilon_once():
    from claims.real_breast_cancer import joint_verdict
    assert joint_verdict([(0.1, 0.06, 0.01, 0.1), (1.0, 0.0, -0.1, 0.1)], "fair DP-LR") == (
        "PPM better (at epsilon 0.1)")
    assert joint_verdict([(0.1, -0.06, -0.1, -0.01), (1.0, 0.06, 0.01, 0.1)], "X").startswith(
        "mixed (PPM better at epsilon 1, X better at 0.1")
    assert joint_verdict([(0.1, 0.0, -0.01, 0.01)], "X").startswith("no difference")
    v = joint_verdict([(0.1, 0.0, -0.01, 0.01), (1.0, 0.0, -0.2, 0.1)], "X")
    assert v.startswith("inconclusive") and counted(v)
