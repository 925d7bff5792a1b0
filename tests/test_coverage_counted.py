"""The coverage of the counted statistics (analysis/coverage_counted.py, coverage_tails.py):
the designs mirror what the claims count, the simulation encodes every alpha of a trial,
the tails are counted on the right side, and results/coverage.csv holds a row with both tails
for every counted statistic."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis import coverage_counted as cc
from analysis.aggregate import ERROR_COL
from analysis.coverage_tails import TAIL_TARGET, calibration, summarise_counted, upper_bound
from experiments.columns import EPSILON

ROOT = Path(__file__).resolve().parent.parent
# the verdicts of rows that count for nothing (shown, references, checks)
EXCLUDED = ("breakdown (the", "reference", "check", "breakdown (not counted: superseded",
            "breakdown (not counted: the same", "breakdown (not counted: the foil",
            "breakdown (not counted: faster", "breakdown (not counted: alpha below the error",
            "same measurement")


def _summary(claim_dir):
    return pd.read_csv(ROOT / "results" / claim_dir / "summary.csv")


def _reads(trials: str, exp: str) -> bool:
    """Does a row's ``trials`` (``exp[cells];exp2[cells]``) read the experiment ``exp``?"""
    return any(part.split("[")[0] == exp for part in str(trials).split(";"))


def _counted_parts(summary, statistic):
    """The rows of ``statistic`` a claim counts, alone or as a part of a joint row."""
    rows = summary[summary["statistic"] == statistic]
    return rows[~rows["verdict"].astype(str).str.startswith(EXCLUDED)]


def test_statistic_ids_and_settings_mirror_the_claims():
    """Each design's statistic id, experiments, alphas and selection are the claim's own."""
    from claims import (c1_realizable as c1, c3_epsilon as c3, c5_mixture_weight as c5,
                        c11_set_cover as c11, c13_generic as c13)
    from claims.c2 import agnostic as c2, two_term
    from claims.c16 import union_polygons as c16
    from claims.base import alphas_of
    from experiments.columns import PPM
    for exp in c1.EXPERIMENTS:
        nhat = pd.read_csv(ROOT / "results" / exp / "n_hat.csv")
        assert cc.part_statistic(exp) == c1.STATISTIC
        assert cc.COUNTED[exp][1] == (exp,)
        assert np.allclose(cc.COUNTED[exp][4], alphas_of(nhat[nhat.learner == PPM]))
    for exp in c3.EXPERIMENTS:
        nhat = pd.read_csv(ROOT / "results" / exp / "n_hat.csv")
        assert cc.COUNTED[exp][6] == f"every({c3.FLOOR_STAT})" and cc.COUNTED[exp][5]
        assert np.allclose(cc.COUNTED[exp][4], c3._alphas(exp, nhat))
    assert cc.PRIVACY_DOMINATES == c3.PRIVACY_DOMINATES
    for exp in c5.EXPERIMENTS:
        nhat = pd.read_csv(ROOT / "results" / exp / "n_hat.csv")
        assert cc.COUNTED[exp][6] == f"every({c5.STATISTIC})"
        assert np.allclose(cc.COUNTED[exp][4], alphas_of(nhat))
    fam = cc.COUNTED["c2_hard_family"]
    assert fam[1] == (c2.FAMILY, c2.FAMILY_SMALL, *c2.FAMILY_FINE)
    assert cc.FAMILY_PARTS == (c2.FAMILY_STAT, two_term.TWO_TERM_STAT)
    assert cc.SMALL_ALPHA == c2.SMALL_ALPHA and fam[2][EPSILON] == c2.CLAIM.headline["epsilon"]
    other = cc.COUNTED["c2_hard_family_eps01"]
    assert other[6] == c2.FAMILY_STAT and other[1] == (c2.FAMILY, c2.FAMILY_SMALL)
    # at epsilon 0.1 only the small-alpha regime is read (claims/c2/agnostic.py regimes)
    assert [a for _, a in c2.regimes(np.array([0.00125, 0.0025, 0.005, 0.01, 0.02, 0.04,
                                               0.08]), other[2][EPSILON])][0].max() == 0.01
    assert len(c2.regimes(np.array([0.01, 0.02, 0.04, 0.08]), other[2][EPSILON])) == 0
    assert cc.part_statistic("c11_set_cover_D_naive") == c11.STAT_D
    assert cc.part_statistic("c11_set_cover_decoy_set_cover") == c11.STAT_K
    assert cc.part_statistic("c13_generic_domain") == c13.STAT_FLAT
    assert cc.COUNTED["c13_generic_domain_plateau"][1] == (c13.PLATEAU_EXP,)
    assert cc.part_statistic("c16_union_polygons") == c16.STAT_SLOPE
    assert cc.part_statistic("c16_theorem_budget") == c16.STAT_SLOPE


@pytest.mark.parametrize("claim_dir, names", [
    ("c1_realizable", ["c1_realizable_d1", "c1_realizable_d2"]),
    ("c2_agnostic", ["c2_hard_family", "c2_hard_family_eps01"]),
    ("c3_epsilon", ["c3_epsilon_d1", "c3_epsilon_d2"]),
    ("c5_mixture_weight", ["c5_mixture_weight", "c5_mixture_weight_d2"]),
    ("c11_set_cover", ["c11_set_cover_D_set_cover", "c11_set_cover_D_naive",
                       "c11_set_cover_decoy_set_cover"]),
    ("c13_generic", ["c13_generic_domain", "c13_generic_domain_plateau"]),
    ("c16_union_polygons", ["c16_union_polygons", "c16_theorem_budget"]),
    ("c12_grid_halfplanes", ["c12_theorem_budget_dense"]),
])
def test_every_simulated_statistic_is_counted_at_its_alphas(claim_dir, names):
    """The claim's summary.csv counts each simulated statistic (alone or as a part of a
    joint row) at the simulated alphas, and names each joint row simulated."""
    summary = _summary(claim_dir)
    for name in names:
        kind, exps, _, _, alphas, _, stat = cc.COUNTED[name]
        if stat.startswith("every("):
            joint = summary[summary["statistic"] == stat]
            assert joint["trials"].map(lambda t: _reads(t, exps[0])).any(), name
        for part in (cc.FAMILY_PARTS if kind == "family" else (cc.part_statistic(name),)):
            # (a family row's two-term part reads alpha >= 0.01 only: both are counted)
            rows = _counted_parts(summary, part)
            rows = rows[rows["trials"].map(lambda t: _reads(t, exps[0]))]
            if kind.startswith("family"):  # the family's rows name their epsilon
                eps = cc.COUNTED[name][2][EPSILON]
                rows = rows[np.isclose(rows["epsilon"], eps)]
            assert len(rows), (name, part)
            if alphas and kind not in ("alphas",):
                measured = set(np.round(rows["alpha"].dropna(), 6))
                assert measured == set(np.round(alphas, 6)), (name, measured, alphas)


def test_errors_encode_success_at_every_alpha_of_a_group():
    """error <= alpha iff U <= p(alpha, n) at every alpha, on one latent U per (n, trial)
    that every epsilon of C3 shares (one sample), nested in alpha."""
    d = cc.load_counted("c3_epsilon_d2")
    probs, n_true = cc.counted_truth(d, "mixture")
    rng = np.random.default_rng(5)
    df = cc.simulate_counted(d, probs, rng)
    rng = np.random.default_rng(5)
    us = [rng.random(int(t)) for t in d.cells[0][0].trials]
    for g, x in enumerate(d.xs):
        sub = df[df[d.x_col] == x]
        assert np.all(np.diff(probs[g], axis=0) >= 0) and np.all(np.diff(n_true[g]) <= 0)
        for j, n in enumerate(d.cells[g][0].ns):
            err = sub.loc[sub["n"] == n, ERROR_COL].to_numpy()
            for a, p in zip(d.alphas[g], probs[g]):
                assert np.array_equal(err <= a, us[j] <= p[j])


def test_independent_groups_draw_their_own_u():
    d = cc.load_counted("c5_mixture_weight_d2")
    probs, _ = cc.counted_truth(d, "probit")
    df = cc.simulate_counted(d, probs, np.random.default_rng(1))
    a, b = (df[df[d.x_col] == x] for x in d.xs[:2])
    n = d.cells[0][0].ns[0]
    ea, eb = (f.loc[f["n"] == n, ERROR_COL].to_numpy() for f in (a, b))
    assert not np.array_equal(ea, eb)


@pytest.mark.parametrize("truth, share", [("share_0.1", 0.1), ("share_0.9", 0.9)])
def test_two_term_truths_put_the_share_where_named(truth, share):
    """C2's moved truths: each population's curve crosses 1 - beta at A/alpha^2 + B/alpha
    with the named share at the smallest alpha >= 0.01, so the true local slope is 1 + share;
    the pure power alpha^-1.5 lies outside the model (its two-term fit misses a cell)."""
    from analysis.floor_slope import two_term_fit
    d = cc.load_counted("c2_hard_family")
    probs, n_true = cc.counted_truth(d, truth)
    big = [g for g, a in enumerate(d.alphas) if a[0] >= cc.SMALL_ALPHA]
    a = np.array([d.alphas[g][0] for g in big])
    n = np.array([n_true[g][0] for g in big])
    A, B = two_term_fit(a, n)
    assert A / a.min() ** 2 / (A / a.min() ** 2 + B / a.min()) == pytest.approx(share, 1e-6)
    for g in big:  # the moved probit crosses 1 - beta at its target
        c = d.cells[g][0]
        p, xt = cc._moved_probit(c, d.beta, n_true[g][0])
        assert p(xt) == pytest.approx(1 - d.beta, abs=1e-12)
    _, n_pow = cc.counted_truth(d, "power_1.5")
    npw = np.array([n_pow[g][0] for g in big])
    A, B = two_term_fit(a, npw)
    assert np.max(np.abs(np.log((A / a**2 + B / a) / npw))) > 0.02


def _rec(lo, hi, true=1.0, quantity="s"):
    return dict(design="d", truth="t", reading="fit", quantity=quantity, cell=math.nan,
                estimate=(lo + hi) / 2, lo=lo, hi=hi, true=true, outside_grid=0,
                lack_of_fit="", censored_frac=0.0)


def test_tails_are_counted_on_their_own_side():
    """miss_lo: the truth below the interval; miss_hi: above it; a missing interval is a
    miss of neither tail but not a cover; a joint row reads its parts' flags."""
    recs = [_rec(1.1, 1.3), _rec(1.1, 1.2), _rec(0.5, 0.9), _rec(0.9, 1.1),
            _rec(math.nan, math.nan)]
    row = summarise_counted(recs).iloc[0]
    assert (row.coverage, row.miss_lo, row.miss_hi) == (0.2, 0.4, 0.2)
    assert row.miss_lo_upper == pytest.approx(upper_bound(2, 5))
    assert row.calibration.startswith("short: truth below the interval 0.400")
    assert "and truth above the interval 0.200" in row.calibration
    joint = [dict(_rec(0, 2, quantity="every(s)"), covered=c, below=b, above=a)
             for c, b, a in ((True, False, False), (False, True, True), (True, False, False))]
    row = summarise_counted(joint).iloc[0]
    assert (row.coverage, row.miss_lo, row.miss_hi) == (2 / 3, 1 / 3, 1 / 3)


def test_calibration_names_over_coverage_conservative():
    assert calibration(0.0, 0.0, 0.97) == "conservative (over-covers)"
    assert calibration(0.02, 0.03, 0.90) == "within target"
    assert calibration(0.0, TAIL_TARGET + 0.01, 0.90).startswith("short: truth above")
    # 12 of 120 clears the nominal 0.025 beyond Monte-Carlo error; 6 of 120 does not
    assert "beyond Monte-Carlo error" in calibration(0.0, 0.1, 0.8, datasets=120)
    assert "beyond" not in calibration(0.0, 0.05, 0.8, datasets=120)
    # a joint row of 3 readings: each tail against 3 x the target (the union bound)
    assert calibration(0.1, 0.11, 0.7, parts=3).startswith("within target (3 parts")
    assert calibration(0.1, 0.13, 0.7, parts=3).startswith("short: truth above")
    assert upper_bound(0, 100) == pytest.approx(1 - 0.05 ** (1 / 100), rel=1e-9)


def test_run_counted_reads_the_claims_own_function():
    """One data set of C5 at d = 2: each alpha's record is the claim's log ratio (the
    against slope times ln(w_max / w_min)) on the simulated trials, with the truth's."""
    from analysis.slopes import sample_complexity_slope_against
    d = cc.load_counted("c5_mixture_weight_d2")
    curves = cc.counted_truth(d, "probit")
    recs = cc.run_counted(d, "probit", 3, 20, curves)
    rng = np.random.default_rng(cc.seed_sequence("counted:" + d.name, "probit", 3))
    df = cc.simulate_counted(d, curves[0], rng)
    seed = int(rng.integers(2**32))
    scale = math.log(max(d.xs) / min(d.xs))
    for r, a in zip(recs, d.alphas[0]):
        fit = sample_complexity_slope_against(df, d.x_col, a, d.beta, error_col=ERROR_COL,
                                              n_boot=20, random_state=seed)
        assert r["cell"] == a and r["estimate"] == pytest.approx(fit["slope"] * scale)
        assert (r["lo"], r["hi"]) == pytest.approx((fit["lo"] * scale, fit["hi"] * scale))
    assert recs[-1]["quantity"] == "every(log_ratio_over_w_pub_range)"
    assert recs[-1]["covered"] == all(r["lo"] <= r["true"] <= r["hi"] for r in recs[:-1])


def test_results_hold_every_counted_statistic_with_both_tails():
    """results/coverage.csv: for every design of COUNTED, a row per counted statistic (and
    its joint row) under the probit truth, with both tails and their upper bounds."""
    table = pd.read_csv(ROOT / "results" / "coverage.csv")
    for name, (kind, *_, stat) in cc.COUNTED.items():
        mine = table[(table["design"] == name) & (table["truth"] == "probit")]
        wanted = [*(cc.FAMILY_PARTS if kind == "family" else (cc.part_statistic(name),))]
        if stat.startswith("every("):
            wanted.append(stat)
        for q in wanted:
            rows = mine[mine["quantity"] == q]
            assert len(rows), (name, q)
            for col in ("miss_lo", "miss_lo_upper", "miss_hi", "miss_hi_upper", "calibration"):
                assert rows[col].notna().all(), (name, q, col)
            assert (rows["datasets"] >= 40).all() and (rows["reading"] == "fit").all()
    # every counted row is the PLAN's size (what --counted all reproduces)
    counted = table[table["design"].isin(list(cc.COUNTED))
                    & ~table["quantity"].isin(["slope", "n_hat"])]
    for r in counted.itertuples():
        assert r.datasets == cc.PLAN[r.design][r.truth], (r.design, r.truth, r.datasets)


@pytest.mark.parametrize("counted, truths, says", [
    (["c9"], None, "--counted: unknown design 'c9'"),
    (["c1_realizable_d1"], ["share_0.1"],
     "--truths: 'share_0.1' is not a truth of every design of --counted"),
])
def test_a_bad_counted_request_is_one_line_naming_the_value(counted, truths, says, tmp_path):
    from analysis.coverage_run import check_request
    with pytest.raises(ValueError) as exc:
        check_request([], counted, truths, tmp_path / "c.csv")
    assert str(exc.value).startswith(says) and "\n" not in str(exc.value)
    assert check_request([], ["all"], None, tmp_path / "c.csv") == list(cc.COUNTED)


def test_counted_merge_replaces_only_its_own_rows(tmp_path):
    from analysis.coverage_run import run_counted
    out = tmp_path / "c.csv"
    design = [cc.load_counted("c11_set_cover_D_naive")]
    run_counted(design, ["probit"], 2, 20, out)
    first = pd.read_csv(out)
    other = first.assign(truth="mixture", coverage=0.123456789)
    pd.concat([other, first]).to_csv(out, index=False)
    run_counted(design, ["probit"], 2, 20, out, merge=True)
    after = pd.read_csv(out)
    assert len(after) == 2 * len(first)
    assert (after.loc[after["truth"] == "mixture", "coverage"] == 0.123456789).all()
    assert np.allclose(after.loc[after["truth"] == "probit", "coverage"], first["coverage"])


def test_docs_table_of_the_counted_statistics_is_the_csvs():
    """docs/model.md's table of the counted statistics is markdown_counted(results/coverage.csv)."""
    from analysis.coverage_tails import markdown_counted
    table = pd.read_csv(ROOT / "results" / "coverage.csv")
    text = markdown_counted(table, list(cc.COUNTED))
    assert text.count("\n") > len(cc.COUNTED)
    assert text in (ROOT / "docs" / "model.md").read_text()
