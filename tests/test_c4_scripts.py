"""Tests of the C4 diagnostics (ln|G| table, the mechanism's exact price): the library code of
``analysis.class_size`` / ``analysis.mechanism_price`` and its command lines (run as a user
runs them)."""

import math

import numpy as np
import pytest

from ppm import PPMHalfspaceLearner
from ppm.core.halfspaces import construct_halfspaces
from ppm.core.hypothesis_class import ReferenceScorer, iter_hypotheses
from ppm.populations import GaussianClusters
from analysis.class_size import class_size_table, fit_d2, local_exponents
from analysis.mechanism_price import sample_rows


def test_log_class_size_matches_enumerated_G():
    df = class_size_table(dims=(1, 2), n_pubs=(4, 6), max_subsets=10**6, seed=3)
    for row in df.itertuples():
        X, _, _ = GaussianClusters(d=row.d, w_pub=1.0, margin=0.1).sample(6, random_state=3 + row.d)
        m = len(construct_halfspaces(X[:row.n_pub]))
        size = sum(1 for _ in iter_hypotheses(m, row.d))  # brute-force count of G
        assert row.log_G == pytest.approx(math.log(size))
        assert row.source == "constrhalf"
    f = fit_d2(df)
    assert 0 < f["slope"] and f["r2"] <= 1


def test_log_class_size_marks_infeasible_cells():
    df = class_size_table(dims=(3,), n_pubs=(8, 16), max_subsets=91, seed=0)  # 92, 696 subsets
    assert list(df["source"]) == ["general_position", "general_position"]


def _design(**kw):
    from analysis.mechanism_price import PriceDesign
    base = dict(n=12, n_pub=4, samples=2, dims_cpu=(1, 2), dims_gpu=(), epsilons=(1.0, 4.0),
                counted_epsilon=1.0, beta=0.1, seed=5, w_pub=0.5, margin=0.1)
    return PriceDesign(**{**base, **kw})


def test_fixed_sample_has_exactly_n_pub_public_rows_from_the_population():
    from analysis.mechanism_price import fixed_sample
    design = _design(n=40, n_pub=3)
    X, y, public = fixed_sample(design, 2, 0)
    assert X.shape == (40, 2) and int(public.sum()) == 3
    # privacy follows the label in this population: the public rows are one class
    assert len(set(y[public])) == 1
    X2, _, _ = fixed_sample(design, 2, 0)
    assert np.array_equal(X, X2)  # a function of (design, d, sample) only
    assert not np.array_equal(X, fixed_sample(design, 2, 1)[0])
    # a public count far above w_pub n needs several chunks: still exact
    assert int(fixed_sample(_design(n=20, n_pub=18), 1, 0)[2].sum()) == 18


def test_mechanism_price_expectation_matches_the_learner():
    # Exact E[m(g_hat)] - min m against the mean training mistakes of real fits (Monte Carlo).
    from analysis.mechanism_price import fixed_sample
    design, d, eps = _design(), 2, 1.0
    (row,) = [r for r in sample_rows(design, d, 0) if r["epsilon"] == eps]
    X, y, public = fixed_sample(design, d, 0)
    hs = construct_halfspaces(X[public], n_features=d)
    ref = ReferenceScorer(hs, X, y, d)
    reps = 3000
    excess = np.array([
        ref.score(PPMHalfspaceLearner(epsilon=eps, random_state=s).fit(X, y, public).hypothesis_)
        for s in range(reps)]) - row["min_m"]
    assert abs(excess.mean() - row["excess_mean"]) <= 5 * excess.std() / math.sqrt(reps) + 1e-9
    assert row["excess_q"] == pytest.approx(np.quantile(excess, 0.9), abs=1.0)
    # c_min: the hypotheses at the minimal score, counted by brute force
    scores = [ref.score(h) for h in iter_hypotheses(len(hs), d)]
    assert row["log_c_min"] == pytest.approx(math.log(scores.count(min(scores))))


def test_c4_price_design_refuses_bad_values():
    with pytest.raises(ValueError, match="n_pub must be in"):
        _design(n_pub=12)
    with pytest.raises(ValueError, match="counted_epsilon 2 is not"):
        _design(counted_epsilon=2.0)


def test_c4_local_exponents_recover_d_squared():
    # ln|G| = d^2 ln n_pub + c exactly: every local exponent is d^2, and the fit's slope is 1.
    import pandas as pd
    rows = [{"d": d, "n_pub": n, "log_G": d * d * math.log(n) + 0.3 * d,
             "d2_log_n_pub": d * d * math.log(n)} for d in (1, 2, 3) for n in (8, 16, 32)]
    df = pd.DataFrame(rows)
    assert local_exponents(df)["exponent"].to_numpy() == pytest.approx([1, 4, 9])
    assert local_exponents(df, -2)["n_pub_pair"].tolist() == ["8-16"] * 3
    assert fit_d2(df[df.d == 2])["slope"] == pytest.approx(1.0)


def test_c4_epsilon_fit_recovers_a_and_b():
    from claims.c4.mechanism import fit_a_b
    eps = np.array([1.0, 2.0, 4.0, 10.0])
    assert fit_a_b(eps, 120.0 / eps + 15.0) == pytest.approx((120.0, 15.0))
    # censored points (NaN) are skipped; fewer than two finite points: no fit
    assert fit_a_b(eps, np.array([np.nan, 75.0, 45.0, 27.0])) == pytest.approx((120.0, 15.0))
    assert all(math.isnan(v) for v in fit_a_b(eps, np.array([np.nan, np.nan, 45.0, np.nan])))


def _script(*args) -> str:
    """``python -m scripts.<args>`` as a user runs it: its stdout (exit 0)."""
    import subprocess
    import sys
    from pathlib import Path
    proc = subprocess.run([sys.executable, "-m", *args], cwd=Path(__file__).resolve().parents[1],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def test_c4_command_lines_write_the_library_tables(tmp_path):
    # the scripts are argparse + a call: their CSVs are the library's tables (times aside)
    import pandas as pd
    from analysis import class_size, mechanism_price
    _script("scripts.log_class_size", "--out", str(tmp_path / "g.csv"), "--max-subsets", "100")
    got = pd.read_csv(tmp_path / "g.csv")
    want = class_size.class_size_table(max_subsets=100)  # ConstrHalf at d = 1 and a few d = 2
    assert set(got["source"]) == {"constrhalf", "general_position"}
    pd.testing.assert_frame_equal(got.drop(columns="constrhalf_seconds"),
                                  want.drop(columns="constrhalf_seconds"), check_exact=True)
    out = _script("scripts.mechanism_price", "--out", str(tmp_path / "p.csv"), "--dims", "1",
                  "2", "--samples", "2")
    got = pd.read_csv(tmp_path / "p.csv").drop(columns="histogram_seconds")
    want = mechanism_price.price_table(mechanism_price.load_design(), (1, 2), 2)
    want = want.drop(columns="histogram_seconds")
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    assert "wrote" in out


def test_c4_nested_command_line_writes_the_library_table(tmp_path):
    import pandas as pd
    from analysis import mechanism_price
    out = _script("scripts.mechanism_price", "--nested", "--out", str(tmp_path / "k.csv"),
                  "--dims", "1", "2", "--samples", "2")
    got = pd.read_csv(tmp_path / "k.csv").drop(columns="histogram_seconds")
    want = mechanism_price.nested_table(mechanism_price.load_nested_design(), (1, 2), 2)
    pd.testing.assert_frame_equal(got, want.drop(columns="histogram_seconds"), check_exact=True)
    assert set(got["n_pub"]) == set(mechanism_price.load_nested_design().n_pubs)
    assert "wrote" in out and "k_eff" in out


def test_c4_nested_design_refuses_bad_values():
    from analysis.mechanism_price import NestedDesign
    base = dict(n_priv=50, n_pubs=(12, 16), samples=2, dims=(1, 2), epsilons=(4.0,),
                counted_epsilon=4.0, cap_factor=2.0, flat_margin=0.2, beta=0.1, seed=0,
                w_pub=0.5, margin=0.1)
    for bad, match in (({"n_pubs": (16, 12)}, "n_pubs must be increasing"),
                       ({"counted_epsilon": 1.0}, "counted_epsilon 1 is not"),
                       ({"flat_margin": 1.5}, "flat_margin in"),
                       ({"samples": 1}, "samples must be")):
        with pytest.raises(ValueError, match=match):
            NestedDesign(**{**base, **bad})
