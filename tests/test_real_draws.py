"""Real data with several mechanism draws per split (``experiments/real_draws.py``) and the
variance decomposition of ``claims/real_breast_cancer.py`` that reads them."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from claims import real_breast_cancer as real
from ppm.core.learner import PPMHalfspaceLearner
from experiments import real_draws
from tests import committed_rows

ROOT = Path(__file__).resolve().parents[1]


def _sample(seed=0, n=60):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = (X[:, 0] + 0.3 * X[:, 1] > 0.2).astype(np.int64)
    return X, y, y == 0


def test_scored_once_fit_is_fit():
    """The cached steps 1-2 change nothing: same hypothesis and the same public attributes as
    PPMHalfspaceLearner.fit, for several epsilons and seeds on one sample."""
    X, y, public = _sample()
    for eps, seed in ((0.1, 1), (1.0, 2), (10.0, 3), (1.0, 4)):
        ref = PPMHalfspaceLearner(epsilon=eps, random_state=seed).fit(X, y, public)
        once = real_draws.ScoredOnce(epsilon=eps, random_state=seed).fit(X, y, public)
        assert once.hypothesis_ == ref.hypothesis_
        assert sorted(k for k in vars(once) if k.endswith("_")) == \
            sorted(k for k in vars(ref) if k.endswith("_"))
        assert np.array_equal(once.predict(X), ref.predict(X))


def test_draw_seeds():
    assert real_draws.draw_seed(12345, 0) == 12345
    seeds = {real_draws.draw_seed(12345, d) for d in range(50)}
    assert len(seeds) == 50


def test_variance_parts_separate_splits_from_mechanisms():
    rng = np.random.default_rng(0)
    J, k, sd_split, sd_mech = 400, 20, 0.05, 0.2
    by_split = [0.01 + sd_split * rng.standard_normal() + sd_mech * rng.standard_normal(k)
                for _ in range(J)]
    split_var, mech_var, J_, k_ = real.variance_parts(by_split)
    assert (J_, k_) == (J, k)
    assert math.sqrt(mech_var) == pytest.approx(sd_mech, rel=0.05)
    assert math.sqrt(split_var) == pytest.approx(sd_split, rel=0.25)
    # one draw per split: the parts cannot be separated
    assert math.isnan(real.variance_parts([d[:1] for d in by_split])[0])
    # more draws lower the detectable difference toward the splits-only floor, never below
    m, lo, hi, _, sep = real.split_mechanism_interval(by_split, 200, 369)
    mde = real.detectable_difference(lo, hi, J - 1)
    floor = real.draws_floor(split_var, J, 200, 369)
    assert sep and floor < mde


def test_check_draw_zero_refuses_a_mismatch():
    committed = pd.DataFrame({"trial": [0, 0], "learner": ["ppm", "dp_logistic"],
                              "learner.epsilon": [1.0, np.nan],
                              "baselines.dp_logistic.epsilon": [np.nan, 1.0],
                              "error": [0.1, 0.2]})
    rows = pd.DataFrame({"trial": [0, 0], "draw": [0, 0], "learner": ["ppm", "dp_logistic"],
                         "learner.epsilon": [1.0, 1.0], "error": [0.1, 0.2]})
    assert real_draws.check_draw_zero(rows, committed) == 2
    rows.loc[1, "error"] = 0.25
    with pytest.raises(ValueError, match="does not reproduce"):
        real_draws.check_draw_zero(rows, committed)


def test_committed_draws_reproduce_the_sweep_and_feed_the_rows(tmp_path_factory):
    draws = pd.read_csv(ROOT / "results" / "real_breast_cancer_draws" / "trials.csv")
    committed = pd.read_csv(ROOT / "results" / "real_breast_cancer" / "trials.csv")
    assert real_draws.check_draw_zero(draws, committed) == 400  # 40 splits x 5 eps x 2
    assert draws.groupby(["trial", "learner", "learner.epsilon"]).size().eq(20).all()
    rows = committed_rows.raw_rows(real.CLAIM.id, tmp_path_factory)
    # 5 epsilons x (fair DP-LR, shown; diffprivlib's, a reference) + the joint counted row
    per_eps = [r for r in rows if np.isfinite(r.epsilon)]
    assert len(rows) == 11 and len(per_eps) == 10
    for r in per_eps:
        assert "20 mechanism draws per split" in r.setting
        assert "(mechanisms)" in r.measured
        # the split-level part: estimated, or said not to be (never a clipped 0)
        assert ("(splits)" in r.measured) != ("not estimable" in r.measured)
        assert "detectable at 80% power" in r.measured


def test_stale_draws_are_not_read(tmp_path):
    """A draws table whose draw 0 is not the sweep's trial (a rerun sweep) is ignored."""
    import shutil
    from claims.base import ResultStore
    for sub in ("real_breast_cancer", "real_breast_cancer_draws", "real_breast_cancer_fair",
                "real_breast_cancer_fair_draws"):
        shutil.copytree(ROOT / "results" / sub, tmp_path / sub)
    fresh = real.CLAIM.analyse(ResultStore(tmp_path, n_boot=10))
    assert all("20 draws per split" in r.measured for r in fresh)
    for sub in ("real_breast_cancer_draws", "real_breast_cancer_fair_draws"):
        path = tmp_path / sub / "trials.csv"
        d = pd.read_csv(path)
        d.loc[(d.draw == 0) & (d.learner == "ppm") & (d.trial == 3), "error"] += 0.01
        d.to_csv(path, index=False)
    stale = real.CLAIM.analyse(ResultStore(tmp_path, n_boot=10))
    assert len(stale) == 11 and all("is stale" in r.measured for r in stale)
    assert all("1 mechanism draw per split" in r.setting for r in stale
               if np.isfinite(r.epsilon))


def test_committed_fair_draws_reproduce_the_fair_sweep_and_pair_with_the_main_one():
    """The fair sweep's draw 0 is its trial; its PPM draws are the main sweep's (same splits,
    same seeds), so the two comparisons share PPM's draws (which is why only one is counted)."""
    fair = pd.read_csv(ROOT / "results" / "real_breast_cancer_fair_draws" / "trials.csv")
    committed = pd.read_csv(ROOT / "results" / "real_breast_cancer_fair" / "trials.csv")
    assert real_draws.check_draw_zero(fair, committed) == 400  # 40 splits x 5 eps x 2
    main = pd.read_csv(ROOT / "results" / "real_breast_cancer_draws" / "trials.csv")
    key = ["trial", "draw", "learner.epsilon"]
    a = main[main.learner == "ppm"].set_index(key)["error"].sort_index()
    b = fair[fair.learner == "ppm"].set_index(key)["error"].sort_index()
    assert len(a) == len(b) == 4000 and a.equals(b)


def test_only_the_fair_comparison_is_counted(tmp_path_factory):
    from claims.rules.accounting import row_kind
    from claims.rules.verdicts import counted
    rows = committed_rows.raw_rows(real.CLAIM.id, tmp_path_factory)
    fair = [r for r in rows if "vs fair DP-LR" in r.setting and np.isfinite(r.epsilon)]
    joint = [r for r in rows if "read jointly" in r.setting]
    ref = [r for r in rows if "vs DP-LR" in r.setting]
    assert len(fair) == len(ref) == 5 and len(joint) == 1
    assert all(row_kind(r.verdict) == "reference" for r in ref)
    # the five epsilons share the splits: one counted row reads them all, each shown alone
    assert [r for r in rows if counted(r.verdict)] == joint
    assert all(r.verdict.startswith("breakdown (not counted: one epsilon of the joint row")
               for r in fair)
    assert all(r.trials.startswith("real_breast_cancer_fair[") for r in fair)
    assert all(f"real_breast_cancer_fair[epsilon={r.epsilon:g}]" in joint[0].trials.split(";")
               for r in fair)
    assert all("identical to real_breast_cancer's on 200 of 200 trials" in r.measured
               for r in fair)
