"""Tests for analysis.dose_response: the fitted reading of n_hat (ED_{1-beta} of a binomial GLM
on log n), its model-free companion (centred isotonic regression), its failure modes and its
use by the bootstrap and the verdicts."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from analysis.dose_response import (cir_crossing, fieller_interval, fisher_scoring, glm_fit,
                                    lack_of_fit, read_cell, read_curves, separated, use_link,
                                    use_reading)
from analysis.sample_complexity import empirical_sample_complexity
from analysis.slopes import bootstrap, sample_complexity_slope_against
from claims.rules.predictions import rate_verdict

NS = np.array([32, 48, 64, 96, 128, 192, 256, 384, 512], dtype=float)


def _probit(b0, b1):
    return lambda n: norm.cdf(b0 + b1 * np.log(n))


def _ed(b0, b1, p):
    return math.exp((norm.ppf(p) - b0) / b1)


def test_batch_fit_equals_statsmodels_for_both_links():
    rng = np.random.default_rng(0)
    x = np.log(NS[2:7])
    t = np.full(x.size, 60.0)
    rows = []
    while len(rows) < 25:
        k = rng.binomial(60, norm.cdf(-9 + 2.0 * x)).astype(float)
        if not separated(x, k, t):
            rows.append(k)
    K = np.array(rows)
    X = np.tile(x, (K.shape[0], 1))
    for link in ("probit", "logit"):
        b0, b1, ok = fisher_scoring(X, K, np.full_like(K, 60.0), np.ones_like(K), link)
        assert ok.all()
        for r in range(K.shape[0]):
            s0, s1, _ = glm_fit(x, K[r], t, link)
            assert b0[r] == pytest.approx(s0, rel=1e-6, abs=1e-6)
            assert b1[r] == pytest.approx(s1, rel=1e-6, abs=1e-6)


def test_fitted_reading_recovers_a_known_ed90_on_large_samples():
    b0, b1 = -10.0, 2.2
    truth = _ed(b0, b1, 0.9)
    rng = np.random.default_rng(1)
    t = np.full(NS.size, 20000.0)
    k = rng.binomial(20000, _probit(b0, b1)(NS)).astype(float)
    r = read_curves([(NS, k, t)], 0.9)
    assert r.status[0] == "fit" and r.censored[0] == ""
    assert r.value[0] == pytest.approx(truth, rel=0.02)
    # the model-free companion agrees on such a smooth, densely sampled curve
    assert r.cir[0] == pytest.approx(truth, rel=0.05)


def test_logit_sensitivity_reading_differs_from_probit_on_a_probit_curve():
    rng = np.random.default_rng(2)
    t = np.full(NS.size, 20000.0)
    k = rng.binomial(20000, _probit(-10.0, 2.2)(NS)).astype(float)
    probit = read_curves([(NS, k, t)], 0.9).value[0]
    with use_link("logit"):
        logit = read_curves([(NS, k, t)], 0.9).value[0]
    assert logit != probit and logit == pytest.approx(probit, rel=0.15)


def test_separated_curve_reads_its_bracket():
    t = np.full(NS.size, 40.0)
    k = np.where(NS >= 128, 40.0, 0.0)  # every trial fails below 128, succeeds from 128
    assert separated(np.log(NS), k, t)
    r = read_curves([(NS, k, t)], 0.9)
    assert r.status[0] == "bracket"
    assert r.value[0] == pytest.approx(math.sqrt(96 * 128))  # the bracket's midpoint in log n
    drawn = read_curves([(NS, k, t)] * 200, 0.9, rng=np.random.default_rng(0)).value
    assert drawn.min() >= 96 and drawn.max() <= 128 and np.ptp(drawn) > 20
    # one mixed cell only: quasi-separation, still no maximum-likelihood fit
    k2 = k.copy()
    k2[NS == 128] = 30
    assert separated(np.log(NS), k2, t)


def test_censoring_is_a_bound_at_the_edge_not_an_extrapolation():
    t = np.full(NS.size, 50.0)
    low = np.round(0.5 * t)  # never reaches 0.9
    r = read_curves([(NS, low, t), (NS, t.copy(), t)], 0.9)
    assert list(r.censored) == ["right", "left"]
    assert r.value[0] == NS[-1] and r.value[1] == NS[0]
    assert math.isnan(read_cell(NS, low, t, 0.9)[0])  # the tables' right-censored n_hat


def test_fitted_value_is_never_past_the_last_cell():
    rng = np.random.default_rng(3)
    t = np.full(NS.size, 40.0)
    curves = [(NS, rng.binomial(40, _probit(-12.0, 2.0)(NS)).astype(float), t)
              for _ in range(300)]  # ED90 ~ 520, just past the last cell
    r = read_curves(curves, 0.9)
    assert np.nanmax(r.value) <= NS[-1]
    assert (r.censored == "right").sum() > 50


def test_centred_isotonic_crossing_by_hand():
    ns = np.array([10.0, 20.0, 40.0, 80.0])
    t = np.array([10.0, 10.0, 10.0, 10.0])
    k = np.array([2.0, 6.0, 4.0, 10.0])  # 0.6 then 0.4 violate: pooled to 0.5 at 20, 40
    # blocks: (10; 0.2), (20, 40 pooled at the geometric mean 28.28; 0.5), (80; 1.0)
    # 0.9 lies between 0.5 at log 28.28 and 1.0 at log 80: 4/5 of the way in log n
    expect = math.exp(math.log(math.sqrt(800)) + 0.8 * (math.log(80) - math.log(math.sqrt(800))))
    value, cens = cir_crossing(ns, k, t, 0.9)
    assert cens == "" and value == pytest.approx(expect, rel=1e-12)


def test_fieller_interval_covers_the_true_ed90():
    b0, b1 = -10.0, 2.2
    truth = _ed(b0, b1, 0.9)
    rng = np.random.default_rng(4)
    t = np.full(NS.size, 60.0)
    hit = n = 0
    for _ in range(400):
        k = rng.binomial(60, _probit(b0, b1)(NS)).astype(float)
        val, lo, hi, cens, status, _ = read_cell(NS, k, t, 0.9)
        if status != "fit" or cens:
            continue
        n += 1
        hi = math.inf if math.isnan(hi) else hi
        lo = 0.0 if math.isnan(lo) else lo
        hit += lo <= truth <= hi
    assert n > 350
    assert 0.90 <= hit / n <= 0.985


def test_fieller_interval_is_unbounded_when_the_slope_is_not_significant():
    x = np.log(NS[:4])
    k, t = np.array([20.0, 22, 19, 23]), np.full(4, 40.0)
    b0, b1, _ = glm_fit(x, k, t)
    assert math.isnan(fieller_interval(x, k, t, b0, b1, 0.9)[1])


def _power_law_trials(xs, slope, n_trials, seed):
    """Trials whose success curve at each x is a probit in log n with ED90 = 40 x^slope."""
    rng = np.random.default_rng(seed)
    rows = []
    for x in xs:
        ed90 = 40.0 * x ** slope
        b1 = 2.5
        b0 = norm.ppf(0.9) - b1 * math.log(ed90)
        for n in NS:
            p = norm.cdf(b0 + b1 * math.log(n))
            ok = rng.random(n_trials) < p
            rows += [{"x": x, "n": n, "error": 0.0 if s else 1.0} for s in ok]
    return pd.DataFrame(rows)


def test_fitted_slope_covers_a_known_power_law_and_is_narrower_than_the_grid():
    df = _power_law_trials([1.0, 2.0, 4.0], 0.5, 60, seed=5)
    fit = sample_complexity_slope_against(df, "x", 0.5, 0.1, n_boot=150, random_state=0)
    with use_reading("grid"):
        grid = sample_complexity_slope_against(df, "x", 0.5, 0.1, n_boot=150, random_state=0)
    assert fit["lo"] <= 0.5 <= fit["hi"]
    assert fit["hi"] - fit["lo"] < grid["hi"] - grid["lo"]
    assert fit["lack_of_fit"] == "" and fit["reading"] == "fit" and "reading" not in grid


def test_lack_of_fit_flags_a_shoulder_and_spares_a_probit():
    rng = np.random.default_rng(6)
    x = np.log(NS)
    # a shoulder at 0.85 (neither probit nor logit): 0.85 Phi(3(x - ln 60)) + 0.15 Phi(...)
    shoulder = 0.85 * norm.cdf(3 * (x - math.log(60))) + 0.15 * norm.cdf(3 * (x - math.log(400)))
    errs = {"probit": [], "shoulder": []}
    for name, p in (("probit", norm.cdf(-10 + 2.2 * x)), ("shoulder", shoulder)):
        for n, q in zip(NS, p):
            errs[name].append(np.where(rng.random(1000) < q, 0.0, 1.0))
    out = {}
    for name, e in errs.items():
        res = bootstrap([(NS, e)], [(0, 0.5, 1.0)], 0.1, 200, np.random.default_rng(0), 0.95,
                        slope_fn=lambda x, y, _: float(np.log(y[0])) if len(y) else math.nan)
        out[name] = res["lack_of_fit"]
    assert out["probit"] == ""
    assert out["shoulder"] != ""


def test_lack_of_fit_makes_a_rate_verdict_inconclusive():
    fit = {"slope": 1.0, "lo": 0.95, "hi": 1.05, "n_points": 5, "lack_of_fit": "cell 2: ..."}
    assert rate_verdict(fit, (1.0, 1.0), (2.0, 2.0)).startswith("inconclusive (lack of fit")
    assert rate_verdict({**fit, "lack_of_fit": ""}, (1.0, 1.0), (2.0, 2.0)) == "holds"


def test_n_hat_table_counts_the_fit_and_keeps_the_grid_reading():
    df = _power_law_trials([1.0], 0.0, 60, seed=7)
    out = empirical_sample_complexity(df, [0.5], 0.1)
    with use_reading("grid"):
        grid = empirical_sample_complexity(df, [0.5], 0.1)
    assert out["n_hat_grid"].iloc[0] == grid["n_hat"].iloc[0]
    assert out["n_hat"].iloc[0] != grid["n_hat"].iloc[0]
    assert out["fit_status"].iloc[0] == "fit"
    assert out["n_hat_lo"].iloc[0] < out["n_hat"].iloc[0] < out["n_hat_hi"].iloc[0]


def test_bad_reading_or_link_is_one_line():
    with pytest.raises(ValueError, match="reading must be one of .* got 'grids'"):
        with use_reading("grids"):
            pass
    with pytest.raises(ValueError, match="link must be one of .* got 'cloglog'"):
        with use_link("cloglog"):
            pass


def test_lack_of_fit_reads_flat_cells():
    from analysis.dose_response import CurveReads
    v = np.array([10.0, 20.0])
    point = CurveReads(v, np.array(["", ""], dtype=object),
                       np.array(["fit", "flat"], dtype=object), v, np.array([0.5, math.nan]), v)
    boot = CurveReads(*(np.tile(a, (50, 1)) for a in (v, point.censored, point.status, v,
                                                      point.dev_p, v)))
    reasons = lack_of_fit(point, boot)
    assert len(reasons) == 1 and "cell 1" in reasons[0]


def test_a_run_of_all_success_cells_is_not_centred():
    # a steep curve that reaches 1 just after its crossing and stays there: centring the run of
    # 1s into one block (as an interior violation would be) put its point far past the crossing
    # and flagged a correct fit as a lack of fit; CIR leaves boundary blocks as they are
    ns = np.array([512, 600, 720, 850, 1000, 1200, 1440, 1700, 2000, 2800, 3400, 4000, 4700,
                   5600, 6700, 8000], dtype=float)
    k = np.array([0, 0, 1, 103] + [160] * 12, dtype=float)
    t = np.full(ns.size, 160.0)
    value, cens = cir_crossing(ns, k, t, 0.9)
    # 0.9 between 850 (103/160) and 1000 (1.0), linearly in log n
    u = (0.9 - 103 / 160) / (1 - 103 / 160)
    assert cens == "" and value == pytest.approx(math.exp(math.log(850) + u * math.log(1000 / 850)))
    # the same curve cut after its first success cell reads the same crossing
    assert cir_crossing(ns[:5], k[:5], t[:5], 0.9)[0] == pytest.approx(value)
