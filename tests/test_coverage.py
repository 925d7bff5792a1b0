"""The coverage study (analysis/coverage.py): its truths, its simulation, and a small version
of the study itself, which must find the fitted reading's slope intervals calibrated and must
be able to tell a miscalibrated interval (the same intervals narrowed by 30%)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm
from pathlib import Path

from analysis import coverage as cov
from analysis.aggregate import ERROR_COL
from analysis.dose_response import glm_fit

DESIGN = "c1_realizable_d1"
# the small study: 300 data sets put a 0.94 coverage's standard error at 0.014, so both the
# window [0.90, 0.98] and the control's gap below 0.90 are about 3 standard errors wide
STUDY_DATASETS, STUDY_N_BOOT = 200, 100


@pytest.fixture(scope="module")
def design():
    return cov.load_design(DESIGN)


def test_designs_mirror_their_claims():
    """The designs read what the claims read (analysis/ may not import claims/)."""
    from claims import c3_epsilon, c5_mixture_weight
    from claims.c2 import agnostic as c2_agnostic
    from claims.base import ResultStore
    assert cov.DESIGNS["c3_epsilon_d1"][4] == (None, c3_epsilon.PRIVACY_DOMINATES)
    assert cov.DESIGNS["c3_epsilon_d1"][3] == c3_epsilon.CLAIM.headline["alpha"]
    assert cov.DESIGNS["c5_mixture_weight_d2"][3] == c5_mixture_weight.CLAIM.headline["alpha"]
    assert cov.DESIGNS["c2_hard_family"][4] == (None, c2_agnostic.SMALL_ALPHA)
    family = (c2_agnostic.FAMILY, c2_agnostic.FAMILY_SMALL, *c2_agnostic.FAMILY_FINE)
    assert set(cov.DESIGNS["c2_hard_family"][1]) == set(family)
    assert ResultStore.__dataclass_fields__["n_boot"].default == cov.CLAIM_N_BOOT


@pytest.mark.parametrize("truth", cov.TRUTHS)
def test_every_truth_crosses_one_minus_beta_at_the_probits_n_hat(design, truth):
    target = 1.0 - design.beta
    for c in design.cells:
        b0, b1, _ = glm_fit(np.log(c.ns), c.k, c.trials)
        p, xt = cov.cell_truth(c, truth, design.beta)
        assert xt == pytest.approx((norm.ppf(target) - b0) / b1, rel=1e-12)
        assert p(xt) == pytest.approx(target, abs=1e-9)
        assert np.all(np.diff(p(np.linspace(xt - 5, xt + 5, 200))) >= 0)
        if truth == "logit":  # and the probit's ED50
            assert p(-b0 / b1) == pytest.approx(0.5, abs=1e-12)
        if truth == "mixture":  # the shoulder: just below 1 - beta, a factor 2 before it
            assert 0.8 < p(xt - math.log(2.0)) < target


def test_shared_cells_are_monotone_in_alpha(design):
    for truth in cov.TRUTHS:
        probs, ed = cov.truth_curves(design, truth)
        assert np.all(np.diff(np.array(probs), axis=0) >= 0)  # alphas ascending
        assert np.all(np.diff(ed) <= 0)


def test_simulated_errors_encode_success_at_every_alpha(design):
    """error <= alpha iff U <= p(alpha, n) on the shared latent U, and the draw depends only
    on (design, truth, index)."""
    probs, _ = cov.truth_curves(design, "mixture")
    rng = np.random.default_rng(cov.seed_sequence(design.name, "mixture", 3))
    df, datasets, _ = cov.simulate(design, probs, rng)
    rng = np.random.default_rng(cov.seed_sequence(design.name, "mixture", 3))
    us = [rng.random(int(t)) for t in design.cells[0].trials]
    for j, n in enumerate(design.cells[0].ns):
        err = df.loc[df["n"] == n, ERROR_COL].to_numpy()
        assert np.array_equal(err, datasets[0][1][j])
        for c, p in zip(design.cells, probs):
            assert np.array_equal(err <= c.alpha, us[j] <= p[j])
    other = np.random.default_rng(cov.seed_sequence(design.name, "mixture", 4)).random(3)
    assert not np.array_equal(other, np.random.default_rng(
        cov.seed_sequence(design.name, "mixture", 3)).random(3))


def test_paired_design_shares_u_across_epsilons():
    d = cov.load_design("c3_epsilon_d1")
    probs, _ = cov.truth_curves(d, "probit")
    df, datasets, resample = cov.simulate(d, probs, np.random.default_rng(0))
    assert resample is not None
    # comonotone: at each (n, trial), a success at a harder cell implies one at an easier one
    for j in range(d.cells[0].ns.size):
        s = np.array([errs[j] <= c.alpha for (_, errs), c in zip(datasets, d.cells)])
        p = np.array([pr[j] for pr in probs])
        order = np.argsort(p)
        assert np.all(np.diff(s[order].astype(int), axis=0) >= 0)


def test_per_cell_intervals_come_from_the_claims_own_replicates(design):
    """run_dataset checks that its per-cell bootstrap returns the claim's interval (else it
    raises); the per-cell records then cover the cells, each on the log scale."""
    recs = cov.run_dataset(design, "probit", 0, 30)
    for reading in cov.READINGS:
        mine = [r for r in recs if r["reading"] == reading and r["quantity"] == "n_hat"]
        assert [r["cell"] for r in mine] == [c.x for c in design.cells]
        assert all(r["lo"] <= r["estimate"] <= r["hi"] for r in mine)


def test_summary_counts_a_missing_interval_as_a_miss():
    recs = [dict(design="d", truth="t", reading="fit", quantity="slope", cell=math.nan,
                 estimate=1.0, lo=lo, hi=hi, true=1.0, outside_grid=0, lack_of_fit=lof,
                 censored_frac=0.0)
            for lo, hi, lof in ((0.9, 1.1, ""), (1.05, 1.2, "cell 0: ..."),
                                (math.nan, math.nan, ""), (0.5, 1.5, ""))]
    row = cov.summarise(recs).iloc[0]
    assert (row.coverage, row.valid, row.datasets, row.lack_of_fit_frac) == (0.5, 3, 4, 0.25)
    assert row.coverage_lo < 0.5 < row.coverage_hi
    # each tail on its own side: (1.05, 1.2) lies above the truth 1.0 (miss_lo)
    assert (row.miss_lo, row.miss_hi) == (0.25, 0.0) and row.miss_lo_upper > 0.25
    narrowed = cov.summarise(recs, scale=0.1).iloc[0]
    assert narrowed.coverage == 0.5  # (1.0 stays at the centre of the two that held it)


def test_fitted_slope_interval_is_calibrated_and_the_test_has_power(design):
    """The small study: C1 d = 1's design, probit truth, the fitted reading. Coverage of the
    claim's 95% slope interval must lie in [0.90, 0.98]; the same intervals narrowed by 30%
    about their centre must fall below 0.90 (so a miscalibrated interval fails this test)."""
    from joblib import Parallel, delayed
    curves = cov.truth_curves(design, "probit")
    blocks = np.array_split(np.arange(STUDY_DATASETS), 2)
    parts = Parallel(n_jobs=2)(delayed(_slopes)(design, curves, b) for b in blocks)
    recs = [r for p in parts for r in p]
    row = cov.summarise(recs).iloc[0]
    assert row.datasets == STUDY_DATASETS and row.valid >= 0.99 * STUDY_DATASETS
    assert 0.90 <= row.coverage <= 0.98, row.to_dict()
    narrowed = cov.summarise(recs, scale=0.7).iloc[0]
    assert narrowed.coverage < 0.90, narrowed.to_dict()
    assert abs(row.bias) < row.sd  # centred on the truth


def _slopes(design, curves, indices):
    return [r for i in indices
            for r in cov.run_dataset(design, "probit", int(i), STUDY_N_BOOT, ("fit",),
                                     per_cell=False, curves=curves)]


def test_docs_tables_are_the_csvs():
    """docs/model.md's coverage tables are markdown_table(results/coverage.csv), not typed."""
    from pathlib import Path
    import pandas as pd
    root = Path(__file__).resolve().parent.parent
    csv = root / "results" / "coverage.csv"
    if not csv.exists():
        pytest.skip("results/coverage.csv not written (make coverage)")
    assert cov.markdown_table(pd.read_csv(csv)) in (root / "docs" / "model.md").read_text()


@pytest.mark.parametrize("argv, says", [
    (["--n-boot", "x"], "--n-boot must be an integer, got 'x'"),
    (["--designs", "c9"], "unknown design 'c9'"),
    (["--markdown", "/nonexistent.csv"], "no file '/nonexistent.csv'"),
    (["--out", "results/coverage_refused.csv"], "refusing to write"),
])
def test_script_rejects_a_bad_argument_in_one_line_before_any_work(argv, says, tmp_path):
    """As a user runs it: exit 2, the last line names the value, nothing written."""
    import subprocess
    import sys
    argv = argv if "--out" in argv else [*argv, "--out", str(tmp_path / "c.csv")]
    proc = subprocess.run([sys.executable, "-m", "scripts.coverage", *argv],
                          cwd=Path(__file__).resolve().parents[1], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 2
    assert says in proc.stderr.strip().splitlines()[-1]
    assert not (tmp_path / "c.csv").exists()
    assert not Path(__file__).resolve().parents[1].joinpath("results/coverage_refused.csv").exists()


@pytest.mark.parametrize("kw, says", [
    ({"designs": ["c9"]}, "--designs: unknown design 'c9'"),
    ({"truths": ["gumbel"]}, "--truths: unknown truth 'gumbel'"),
    ({"out": Path("/nonexistent/dir/c.csv")}, "--out: no directory '/nonexistent/dir'"),
])
def test_a_bad_request_is_one_line_naming_the_value(kw, says, tmp_path):
    from analysis.coverage_run import check_request
    args = {"designs": list(cov.DESIGNS), "counted": None, "truths": None,
            "out": tmp_path / "c.csv", **kw}
    with pytest.raises(ValueError) as exc:
        check_request(**args)
    assert str(exc.value).startswith(says) and "\n" not in str(exc.value)
    assert check_request(list(cov.DESIGNS), None, list(cov.TRUTHS), tmp_path / "c.csv") is None


# --------------------------------------------------------------------------------------------
# the designs of analysis/coverage_designs.py: C9, C13 (paired contrasts) and C12
# --------------------------------------------------------------------------------------------


def test_more_designs_mirror_their_claims():
    """C9, C13 and C12's designs read what their claims read: experiment, learners (in the
    order of the claim's difference), abscissa and the headline alpha."""
    from analysis import coverage_designs as cd
    from claims import c9_domain, c12_grid_halfplanes as c12, c13_generic as c13
    from experiments.columns import FULLY_PRIVATE, PPM, T
    kind, exp, learners, x_col, alpha = cd.MORE["c9_domain_d1"]
    assert (kind, exp, x_col) == ("contrast", c9_domain.CLAIM.experiments[0], T)
    assert learners == (PPM, FULLY_PRIVATE)  # _rows(..., PPM, FULLY_PRIVATE): PPM minus EM
    assert alpha == c9_domain.CLAIM_HEADLINE_ALPHA == c9_domain.CLAIM.headline["alpha"]
    kind, exp, learners, x_col, alpha = cd.MORE["c13_generic_plateau"]
    assert (kind, exp, learners, x_col) == ("contrast", c13.PLATEAU_EXP, (c13.FP, c13.GL), "b")
    assert alpha == c13.CLAIM.headline["alpha"]
    kind, exp, learners, x_col, alpha = cd.MORE["c12_grid_halfplanes"]
    assert (kind, exp, learners, x_col) == ("against", c12.EXPERIMENT, (c12.MAIN,), "b")
    assert alpha == c12.CLAIM.headline["alpha"]
    assert cd.FLAT == {"c9_domain_d1"}  # C9 counts PPM's own slope too; C13's GL row is not here
    assert set(cov.MORE_RECORDS) == {r for rs in cd.RECORDS.values() for r in rs}
    assert set(cd.RECORDS) == set(cd.MORE) and not set(cd.MORE) & set(cov.DESIGNS)


@pytest.mark.parametrize("name", ["c9_domain_d1", "c13_generic_plateau", "c12_grid_halfplanes"])
def test_more_designs_are_the_committed_grids(name):
    """Every cell is one (learner, x) curve of the committed trials at the claim's alpha; the
    two learners of a contrast share their x, n grid and trials per n."""
    import pandas as pd
    from analysis import coverage_designs as cd
    from experiments.columns import T
    d = cd.load_any(name)
    kind, exp, learners, x_col, alpha = cd.MORE[name]
    trials = pd.read_csv(f"results/{exp}/trials.csv", low_memory=False)
    xs = np.sort(trials[T].unique()).astype(float)
    if x_col == "b":
        xs = np.round(np.log2(xs))
    assert len(d.cells) == len(learners) * xs.size
    nx = xs.size
    assert [c.x for c in d.cells[:nx]] == list(xs)
    assert all(c.alpha == alpha for c in d.cells)
    n_hat = pd.read_csv(f"results/{exp}/n_hat.csv")
    assert alpha in set(n_hat["alpha"]) and d.beta == n_hat["beta"].iloc[0]
    for a, b in zip(d.cells[:nx], d.cells[nx:]):
        assert a.x == b.x and np.array_equal(a.ns, b.ns) and np.array_equal(a.trials, b.trials)


@pytest.mark.parametrize("name", ["c9_domain_d1", "c13_generic_plateau"])
def test_contrast_designs_share_u_between_the_learners(name):
    """At one (x, n, trial) the two learners read the same latent U (error <= alpha iff
    U <= p_learner(n)); the data set is slope_difference_paired's own grouping of the df."""
    from analysis import coverage_designs as cd
    from analysis.slopes import slope_difference_paired
    d = cd.load_any(name)
    probs, _ = cov.truth_curves(d, "mixture")
    df, datasets, resample = cd.simulate_contrast(d, probs, np.random.default_rng(7))
    rng = np.random.default_rng(7)
    nx = len(d.cells) // 2
    for i in range(nx):
        us = [rng.random(int(t)) for t in d.cells[i].trials]
        for j, u in enumerate(us):
            for k in (i, nx + i):
                assert np.array_equal(datasets[k][1][j] <= d.cells[k].alpha, u <= probs[k][j])
    # the resample draws one set of trial indices per (x, n) for both learners
    rep = resample(np.random.default_rng(1))
    for i in range(nx):
        for j in range(d.cells[i].ns.size):
            a, b = rep[i][j], rep[nx + i][j]
            assert a.size == b.size == d.cells[i].trials[j]
    _, _, learners, x_col, alpha = cd.MORE[name]
    res = slope_difference_paired(df, x_col, *learners, alpha, d.beta, error_col=ERROR_COL,
                                  n_boot=0)
    pt = [float(np.exp(np.log(v))) for v in res["n_hat"]]
    assert len(pt) == 2 * nx


def test_contrast_records_come_from_the_claims_own_replicates():
    """run_contrast raises unless its recorded bootstrap gives the claim's statistic and
    interval (slope_difference_paired, and C9's sample_complexity_slope_against); the per-cell
    records carry +x for the difference's first learner and -x for its second."""
    from analysis import coverage_designs as cd
    d = cd.load_any("c13_generic_plateau")
    recs = cd.run_contrast(d, "logit", 0, 20, verify=True)
    nx = len(d.cells) // 2
    for reading in cov.READINGS:
        mine = [r for r in recs if r["reading"] == reading and r["quantity"] == "n_hat"]
        assert [r["cell"] for r in mine] == ([c.x for c in d.cells[:nx]]
                                             + [-c.x for c in d.cells[nx:]])
        assert all(r["lo"] <= r["estimate"] <= r["hi"] for r in mine)
        slope = [r for r in recs if r["reading"] == reading and r["quantity"] == "slope"]
        assert [r["design"] for r in slope] == ["c13_generic_plateau_contrast"]


def test_merge_keeps_the_other_designs_rows(tmp_path):
    """--merge: the designs run replace their own rows; every other row stays as it was."""
    import pandas as pd
    from analysis.coverage_designs import load_any
    from analysis.coverage_run import run_designs
    out = tmp_path / "c.csv"
    design = [load_any("c12_grid_halfplanes")]
    run_designs(design, ["probit"], 2, 20, out)
    first = pd.read_csv(out)
    assert set(first["design"]) == {"c12_grid_halfplanes"}
    other = first.assign(design="c1_realizable_d1", coverage=0.123456789012345)
    pd.concat([other, first]).to_csv(out, index=False)
    before = out.read_text().splitlines()[1:len(other) + 1]
    run_designs(design, ["probit"], 2, 20, out, merge=True)
    after = out.read_text().splitlines()
    assert after[1:len(other) + 1] == before and len(after) == 1 + 2 * len(first)


def test_lack_of_fit_rates_script_rejects_a_bad_run_in_one_line(tmp_path):
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-m", "scripts.coverage_lack_of_fit", "--runs",
                          "c9_domain_d1:probit", "--out", str(tmp_path / "x.csv")],
                         cwd=Path(__file__).resolve().parents[1], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 2
    assert out.stderr.strip().count("\n") == 0 and "'c9_domain_d1:probit'" in out.stderr
    assert not (tmp_path / "x.csv").exists()
