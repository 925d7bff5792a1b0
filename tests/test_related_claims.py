"""Claims C11-C16 (KMMS19, BNS15): the populations that let them fail, their rules, their rows.

* :class:`~ppm.set_cover.populations.DecoyConjunction`: a decoy literal deletes about
  ``decoy_alpha / (2k)`` of the positives and ``1/k`` of the negatives (the k-factor property);
* :class:`~ppm.semi_supervised.big_grid.NoisyBigGridThresholds`: noise rate, exact error;
* every new rule returns "does not hold" on synthetic numbers on each side it should;
* the claims give the new rows on the committed results.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from claims import c11_set_cover as c11
from claims import c12_grid_halfplanes as c12
from claims import c13_generic as c13
from claims import c14_label_boost as c14
from claims import c15_active as c15
from claims.c16 import union_polygons as c16
from claims.base import ResultStore
from claims.rules.verdicts import FAILS, HOLDS, counted
from ppm.semi_supervised.big_grid import NoisyBigGridThresholds
from ppm.semi_supervised.big_points import as_big_points
from ppm.set_cover import SetCoverLearner
from ppm.set_cover.populations import DecoyConjunction
from tests import committed_rows

ROOT = Path(__file__).resolve().parent.parent


def _fit(slope, lo, hi, n_points=4):
    return {"slope": slope, "lo": lo, "hi": hi, "n_points": n_points}


# --- C11: the decoy population -------------------------------------------------------------

@pytest.mark.parametrize("k", [1, 2, 4, 8])
def test_a_decoy_literal_deletes_alpha_over_2k_of_the_positives(k):
    pop = DecoyConjunction(D=40, k=k, decoy_alpha=0.2, geometry_seed=3)
    X, y, public = pop.sample(60000, random_state=k)
    assert np.array_equal(pop.target_predict(X), y) and np.array_equal(public, y == 0)
    v, s = np.array(pop.decoys).T
    deleted_pos = (X[y == 1][:, v] != s).mean()  # over the decoys and the positives
    deleted_neg = (X[y == 0][:, v] != s).mean()
    assert deleted_pos == pytest.approx(0.2 / (2 * k), rel=0.05)
    assert pop.decoy_rate == pytest.approx(0.2 / (2 * k))
    assert deleted_neg == pytest.approx(1 / k, rel=0.05)  # as much as a target literal
    tv, ts = np.array(pop.target).T
    assert (X[y == 0][:, tv] != ts).sum(axis=1).tolist() == [1] * int((y == 0).sum())


def test_decoy_conjunction_error_is_exact():
    pop = DecoyConjunction(D=12, k=2, decoy_alpha=0.3, geometry_seed=1)
    d = pop.decoys
    for lits in (pop.target, pop.target + d[:3], d[:2], [pop.target[0]], []):
        exact = pop.conjunction_error(lits)
        est = SetCoverLearner(k=2).fit(*pop.sample(50, random_state=0)[:2])
        est.hypotheses_ = [tuple(h) for h in lits]
        if lits:
            err, se = pop.true_error(est.predict, n_test=200000, random_state=2)
            assert err == pytest.approx(exact, abs=5 * se + 1e-9)
    assert pop.conjunction_error(pop.target) == 0.0
    # one decoy more costs (1 - w_pub) p
    assert pop.conjunction_error(pop.target + d[:1]) == pytest.approx(0.5 * pop.decoy_rate)


def test_decoy_conjunction_rejects_bad_values():
    with pytest.raises(ValueError, match="k must be < D"):
        DecoyConjunction(D=3, k=3)
    with pytest.raises(ValueError, match="decoy_alpha"):
        DecoyConjunction(D=8, k=2, decoy_alpha=0.0)
    with pytest.raises(ValueError, match="decoy_alpha"):
        DecoyConjunction(D=8, k=2, decoy_alpha=1.5)


def test_the_decoy_prediction_is_linear_in_k_up_to_a_log():
    ks = np.array([1, 2, 4, 8])
    pred = [c11.decoy_prediction(int(k), 64, 0.05, 0.1, 0.0143) for k in ks]
    slope = np.polyfit(np.log(ks), np.log(pred), 1)[0]
    assert 0.6 < slope < 1.0


def test_c11_k_rule_fails_both_ways():
    sc, naive, names = (0.8, 1.1), (1.26, 1.59), ("Claim 3.4", "naive composition")
    assert c11.k_rate_verdict(_fit(0.9, 0.8, 1.0), sc, naive, names, True) == HOLDS
    flat = c11.k_rate_verdict(_fit(0.05, -0.1, 0.2), sc, naive, names, True)
    steep = c11.k_rate_verdict(_fit(1.9, 1.85, 2.0), sc, naive, names, True)
    assert flat.startswith(FAILS) and "flatter" in flat
    assert steep.startswith(FAILS)
    # inside the naive band: the alternative, not Claim 3.4
    assert "consistent with naive" in c11.k_rate_verdict(_fit(1.4, 1.3, 1.5), sc, naive,
                                                         names, True)
    # the case: an interval meeting both bands cannot separate them
    assert c11.k_rate_verdict(_fit(1.19, 1.07, 1.30), naive, sc, names[::-1],
                              True).startswith("inconclusive (cannot separate")
    assert "exceeds" in c11.k_rate_verdict(_fit(0.9, 0.8, 1.0), sc, naive, names, False)


def test_c11_paired_contrast_on_committed_decoy_trials():
    results = ResultStore(ROOT / "results", n_boot=20)
    trials, nhat = results.load(c11.DECOY)
    row = c11._contrast_row(trials, 0.05, 0.1, 20, 64, 0.9, 1e-6, "decoys: ")
    assert "alternative no saving 0" in row.theory and counted(row.verdict)
    assert row.slope_lo <= row.slope <= row.slope_hi and row.slope_hi > row.slope_lo
    # the budgets' ratio against log k is about 0.5
    assert 0.4 < c11._budget_gap(np.array([1.0, 2, 4, 8]), 0.9, 1e-6) < 0.6


# --- C12: the theorem's explicit form ---------------------------------------------------

def test_c12_theorem_parts_add_up_and_grow_like_b():
    p6, p20 = (c12.theorem_4_7_parts(b, 0.1, 0.1, 0.9, 1e-6) for b in (6, 20))
    for p in (p6, p20):
        total = p["factor"] * (p["em_T"] + p["em_free"] + p["laplace"] + p["vc"])
        assert p["n"] == pytest.approx(total)
    assert p20["em_T"] / p6["em_T"] == pytest.approx(20 / 6)
    assert p6["em_free"] == p20["em_free"] and p6["laplace"] == p20["laplace"]
    # eps_s = eps_hat / 2 with Claim 3.4's eps_hat = 0.0143 at (0.9, 1e-6)
    assert p6["em_T"] == pytest.approx(8 / (0.01428 / 2) * 6 * math.log(2), rel=2e-3)


# --- C13: the contrast and the unlabelled rate -------------------------------------------

def test_c13_difference_rule():
    assert c13.difference_verdict(_fit(0.8, 0.6, 1.0), 0.66) == HOLDS
    assert c13.difference_verdict(_fit(0.0, -0.2, 0.2), 0.66).startswith(FAILS)
    assert c13.difference_verdict(_fit(0.2, 0.1, 0.3), 0.66).startswith("inconclusive")
    assert c13.difference_verdict(_fit(0.5, -0.05, 0.8), 0.66).startswith(
        "inconclusive (cannot separate")
    assert c13.difference_verdict(_fit(2.0, 1.8, 2.2), 0.66).startswith(FAILS)


def test_c13_unlabelled_rule_is_one_sided_growth():
    th = c13.theorem_3_3_slope([4, 8, 12, 16, 18], 0.1, 0.1)
    assert 0.95 < th <= 1.0
    assert c13.grows_verdict(_fit(1.0, 0.85, 1.15), th) == HOLDS
    assert c13.grows_verdict(_fit(1.6, 1.4, 1.8), th) == HOLDS  # faster growth still grows
    assert c13.grows_verdict(_fit(0.0, -0.2, 0.2), th).startswith(FAILS)
    assert c13.grows_verdict(_fit(0.5, 0.1, 0.9), th).startswith("inconclusive")


def test_c13_paired_difference_on_committed_trials():
    results = ResultStore(ROOT / "results", n_boot=20)
    trials = c13._load(results, "c13_generic_domain")[0]
    d = c13.slope_difference(trials, 0.2, 0.1, n_boot=20)
    gl = c13.sample_complexity_slope_against(trials[trials.learner == c13.GL], "b", 0.2, 0.1,
                                             error_col=c13.ERROR_COL, n_boot=0)
    fp = c13.sample_complexity_slope_against(trials[trials.learner == c13.FP], "b", 0.2, 0.1,
                                             error_col=c13.ERROR_COL, n_boot=0)
    assert d["slope"] == pytest.approx(fp["slope"] - gl["slope"])
    assert d["lo"] <= d["slope"] <= d["hi"] and d["n_points"] >= 3


# --- C14: the noisy population ---------------------------------------------------------

def test_noisy_big_grid_thresholds():
    pop = NoisyBigGridThresholds(b=64, support=10, eta=0.2, spacing_bits=8)
    X, y, public = pop.sample(40000, random_state=0)
    truth = pop.target_predict(X)
    assert (y != truth).mean() == pytest.approx(0.2, abs=0.01) and not public.any()
    assert pop.opt() == 0.2
    assert pop.true_error(pop.target_predict) == (pytest.approx(0.2), 0.0)
    pts = pop.support_points()
    assert np.all(np.diff(pts.offsets) == 256)
    # one support point on the wrong side costs (1 - 2 eta) / (2 support)
    def shifted(Z):
        return as_big_points(Z).at_least(pop.cut_point - 256).astype(np.int64)

    assert pop.true_error(shifted)[0] == pytest.approx(0.2 + 0.6 / 20)
    with pytest.raises(ValueError, match="eta"):
        NoisyBigGridThresholds(eta=0.5)
    with pytest.raises(ValueError, match="do not fit"):
        NoisyBigGridThresholds(b=8, support=10, spacing_bits=6)


# --- C15: the separation rule ------------------------------------------------------------

def test_c14_a_n_hat_at_the_size_step_is_not_counted():
    import pandas as pd
    by = pd.DataFrame({"n_hat": [12544.0, 12540.0], "censored": [None, None]})
    assert not counted(c14.at_the_step("holds", by, [12400, 12552, 13000], 12552))
    by2 = pd.DataFrame({"n_hat": [12544.0, 14000.0], "censored": [None, None]})
    assert c14.at_the_step("does not hold", by2, [12400, 12552, 13000], 12552) == FAILS


def _c14_trials(wrap_rates, base_rates, trials):
    """Synthetic fixed-n rows: per b, a fraction ``rate`` of the trials at excess error 0, the
    rest at 0.4 (the wrapper's and the base learner's)."""
    import pandas as pd
    from experiments.columns import B
    rows = []
    for b, pw, pb in zip((2048, 4096, 8192, 16384), wrap_rates, base_rates):
        for learner, p in ((c14.WRAPPER, pw), (c14.BASE, pb)):
            k = round(p * trials)
            rows += [(learner, b, t, 0.0 if t < k else 0.4) for t in range(trials)]
    return pd.DataFrame(rows, columns=["learner", B, "trial", "excess_error"])


def _c14_verdict(wrap_rates, base_rates, trials):
    df = _c14_trials(wrap_rates, base_rates, trials)
    fits = [c14.success_slope(df[df.learner == who], 0.02) for who in (c14.WRAPPER, c14.BASE)]
    return fits, c14.fixed_n_verdict(*fits)


def test_c14_success_slope_is_the_least_squares_slope_per_doubling():
    (fw, fb), _ = _c14_verdict([0.8, 0.7, 0.6, 0.5], [1.0, 0.0, 0.0, 0.0], 200)
    assert fw["slope"] == pytest.approx(-0.1)
    assert fb["slope"] == pytest.approx(-0.3)
    assert fb["lo"] < fb["hi"] < 0  # all-or-nothing rates still give a non-zero width


def test_c14_fixed_n_rule_holds_fails_and_is_inconclusive():
    base = [1.0, 0.0, 0.0, 0.0]
    # flat wrapper, 200 trials per b: inside [-0.15, 0.15]
    assert _c14_verdict([0.8, 0.78, 0.8, 0.79], base, 200)[1] == HOLDS
    # the wrapper behaves like the base learner: it does not hold
    assert _c14_verdict(base, base, 200)[1].startswith(FAILS)
    # a mild fall measured on 12 trials per b: the interval meets both bands
    (fw, _), v = _c14_verdict([0.75, 0.67, 0.58, 0.5], base, 12)
    assert v.startswith("inconclusive (cannot separate the wrapper flat from a cost crossing "
                        "n inside the b range (the base learner's) at this precision")
    assert "x the trials per cell" in v
    # a base learner that does not fall leaves nothing to separate
    v = _c14_verdict([0.8, 0.8, 0.8, 0.8], [0.9, 0.9, 0.88, 0.9], 200)[1]
    assert v.startswith("inconclusive (the base learner's success rate does not fall")


def test_c15_separation_rule():
    nan = math.nan
    assert c15.separation_verdict((50, 40, 120), (930, 750, nan), 200) == HOLDS
    assert c15.separation_verdict((900, 800, 1000), (300, 250, 350), 2000) == FAILS
    assert c15.separation_verdict((300, 250, 350), (900, 800, nan), 200) == FAILS
    assert c15.separation_verdict((50, 40, 300), (200, 150, 250), 1000).startswith(
        "inconclusive")


# --- C16: the foil and the explicit bound ------------------------------------------------

def _c16_trials(union_errors, convex_errors, T=64, n=(1000, 25000)):
    """A synthetic c16_union_polygons table: per n, the given errors of each learner."""
    import pandas as pd
    rows = []
    for nn in n:
        for learner, errs in ((c16.MAIN, union_errors), (c16.CONVEX, convex_errors)):
            for t, e in enumerate(errs):
                rows.append({"learner": learner, "n": nn, "trial": t, "error": e, c16.T: T,
                             "population.w_pub": 0.5, "population.support": 8, "population.d": 2,
                             "learner.epsilon": 0.9, "learner.delta": 1e-6, "learner.k": 2,
                             "learner.epsilon_hat": 0.5, "baselines.convex.epsilon": 0.9,
                             "baselines.convex.delta": 1e-6, "baselines.convex.k": 6,
                             "baselines.convex.epsilon_hat": 0.5})
    return pd.DataFrame(rows)


def test_c16_foil_rule_fails_both_ways():
    bc = {64: 0.25}
    below = c16.foil_rows(_c16_trials([0.0] * 40, [0.3] * 40), bc)
    above = c16.foil_rows(_c16_trials([0.3, 0.28] * 20, [0.3] * 40), bc)
    across = c16.foil_rows(_c16_trials([0.0, 0.5] * 20, [0.3] * 40), bc)
    assert below[0].verdict == HOLDS and above[0].verdict == FAILS
    assert across[0].verdict.startswith("inconclusive")
    assert below[1].verdict == "check: passed" and not counted(below[1].verdict)
    # a convex learner under the best convex error can only be a bug: the check says so
    bug = c16.foil_rows(_c16_trials([0.0] * 40, [0.1] * 40), bc)
    assert bug[1].verdict.startswith("check: FAILED")


def test_c16_identical_errors_get_the_rule_of_three_interval():
    m, lo, hi = c16.error_interval([0.0] * 40)
    assert (m, lo) == (0.0, 0.0) and hi == pytest.approx(1 - 0.05 ** (1 / 40))
    # three equal trials cannot put the mean below a quarter
    assert c16.error_interval([0.0] * 3)[2] > 0.25


def test_c16_bound_is_theorem_3_2_with_three_select_halfplane_losses():
    b6, b20 = (c16.theorem_bound(2.0 ** b, 0.1, 0.1, 0.9, 1e-6, 0.5) for b in (6, 20))
    beta_s = 0.1 / (8 * math.log(20))
    lam = 3 * (8 / 0.25) * math.log(2 * 64 / beta_s)
    eps_p = 0.45  # add/remove epsilon of (0.9, 1e-6) replace-one
    hand = 2 * math.log(10) / 0.1 * (7 * math.log(2) + lam
                                     + math.log(2 / 0.1 * math.log(10)) / eps_p)
    assert b6 == pytest.approx(hand, rel=1e-3)
    per_bit = 2 * math.log(10) / 0.1 * 3 * 32 * math.log(2)
    assert b20 - b6 == pytest.approx(14 * per_bit)


# --- rows on the committed results -------------------------------------------------------

@pytest.mark.parametrize("module, extra", [
    (c11, "decoys, set_cover; k"), (c12, "theorem budget"), (c13, "labelled plateau"),
    (c14, "wrapper fixed n"), (c16, "foil"), (c16, "theorem")])
def test_new_rows_on_committed_results(module, extra, tmp_path_factory):
    rows = committed_rows.raw_rows(module.CLAIM.id, tmp_path_factory)
    new = [r for r in rows if extra in r.extra]
    assert new and any(counted(r.verdict) for r in new) and all(r.measured for r in new)


@pytest.mark.parametrize("module, extra", [
    (c11, "composition=set_cover; k"), (c14, "wrapper"), (c14, "wrapper noisy"),
    (c14, "base learner fixed n"), (c15, "active"), (c15, "separation"),
    # C15's foil (GenericLearner's 1/epsilon labels) is fixed by its construction: a check
    (c15, "generic"),
    # one fact, one row: C13's contrasts read the trials its counted flat rows read
    (c13, "labelled contrast"), (c13, "labelled contrast plateau")])
def test_rows_built_in_by_the_design_are_not_counted(module, extra, tmp_path_factory):
    rows = committed_rows.raw_rows(module.CLAIM.id, tmp_path_factory)
    old = [r for r in rows if r.extra == extra]
    assert old and not any(counted(r.verdict) for r in old)


# --- one fact, one row (C15; C16: tests/test_c16_ln_t.py) -------------------------------------

def test_linear_in_log_x_reads_a_mechanisms_ln_coefficient():
    from analysis.slopes import linear_in_log_x
    T = np.array([64.0, 4096, 65536, 2 ** 20])
    assert linear_in_log_x(T, 100 + 37.0 * np.log(T)) == pytest.approx(37.0)
    assert math.isnan(linear_in_log_x(T[:1], [1.0]))


def test_c15_counts_the_generic_learner_row_not_the_separation(tmp_path_factory):
    rows = committed_rows.raw_rows(c15.CLAIM.id, tmp_path_factory)
    sep = [r for r in rows if r.extra == "separation"]
    gen = [r for r in rows if r.extra == "generic"]
    assert sep and not any(counted(r.verdict) for r in sep)
    assert gen and all("alternative epsilon-free" in r.theory for r in gen)
    assert all("constant 1" in r.theory for r in sep)


# --- C9: PPM flat against the fully private learner's ln T, and the paired contrast ----------

def _c9_trials(fp_growth, seed=0):
    """PPM's n_hat flat in T, the fully private learner's ~ T^fp_growth, on shared samples."""
    import pandas as pd
    rng = np.random.default_rng(seed)
    ns = np.unique(np.geomspace(16, 4096, 30).astype(int))
    rows = []
    for T in (4, 64, 1024, 16384, 262144):
        for t in range(60):
            z = math.exp(0.2 * rng.standard_normal())  # the shared sample's difficulty
            for n in ns:
                rows.append(("ppm", T, n, t, 20.0 * z / n))
                rows.append(("fully_private", T, n, t, 20.0 * z * T ** fp_growth / n))
    df = pd.DataFrame(rows, columns=["learner", "population.T", "n", "trial", "error"])
    return df.assign(excess_error=df["error"])


def test_c9_flat_holds_only_when_the_comparator_grows():
    from claims import c9_domain as c9
    from analysis.slopes import sample_complexity_slope_against

    def rows_for(growth):
        tr = _c9_trials(growth)
        pp, fp = (sample_complexity_slope_against(tr[tr.learner == lrn], c9.T, 0.1, 0.1,
                                                  error_col=c9.ERROR_COL, n_boot=60)
                  for lrn in ("ppm", "fully_private"))
        th = c9._ln_t_range(np.array([4.0, 64, 1024, 16384, 262144]), 0.1)
        return c9._rows("C9", tr, pp, fp, th, 0.1, 0.1, 60, "s", "fully private EM", "ppm",
                        "fully_private", dict(d=1, alpha=0.1))
    flat, contrast = rows_for(0.15)
    assert flat.verdict == HOLDS and "alternative fully private EM ln T" in flat.theory
    assert "alternative no contrast 0" in contrast.theory and counted(contrast.verdict)
    assert contrast.slope == pytest.approx(-0.15, abs=0.05)
    # the comparator flat too: PPM's flatness shows nothing, and the contrast is not there
    flat, contrast = rows_for(0.0)
    assert flat.verdict.startswith("inconclusive (PPM is flat, but")
    assert not contrast.verdict.startswith(HOLDS)
