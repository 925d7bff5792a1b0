"""The CSV layout (each parameter once), its migration, and the trial cache restored from trials.csv.

Cache keys must not change with the layout (other sweeps' caches must still resume), a trial
cached in the first layout must be read as if the pipeline had written it now, and a cache
restored from an aggregated ``trials.csv`` must be byte for byte the pipeline's own.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

import experiments.pipeline as pipeline
from experiments.schema import register_configs
from scripts import migrate_results, restore_cache
from scripts.aggregate import aggregate, curve_columns, curve_config, unique_trials

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = ROOT / "configs"
TINY = ["trials=2", "n_test=200"]
# c10: the main learner plus three baselines, two of them with parameters (epsilon, labels)
CELLS = [["n=12", "learner.epsilon=0.5"], ["n=12", "learner.epsilon=2.0"],
         ["n=16", "learner.epsilon=0.5"], ["n=16", "learner.epsilon=2.0"]]


def _compose(overrides):
    register_configs()
    with initialize_config_dir(config_dir=str(CONFIGS), version_base="1.3"):
        return compose(config_name="config", overrides=list(overrides))


def _sweep(tmp: Path, root: Path, experiment="c10_homogeneity", cells=CELLS) -> Path:
    """Run the cells as a multirun would: one job directory per cell with its trials.csv and
    .hydra/config.yaml (what scripts.aggregate reads)."""
    sweep = tmp / f"sweep_{len(list(tmp.glob('sweep_*')))}"
    for i, over in enumerate(cells):
        cfg = _compose([f"experiment={experiment}", f"results_root={root}", *TINY, *over])
        job = sweep / str(i)
        (job / ".hydra").mkdir(parents=True)
        pipeline.run(cfg).to_csv(job / "trials.csv", index=False)
        OmegaConf.save(cfg, job / ".hydra" / "config.yaml")
    return sweep


def _cache_bytes(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes()
            for p in sorted((root / "cache").glob("*/trial_*.csv"))}


def _to_first_layout(df: pd.DataFrame, main: str) -> pd.DataFrame:
    """The first layout (before one column per parameter), written out independently of experiments/columns.py: bare
    d / w_pub / epsilon, every learner's parameters under learner.*, no seed-002 columns."""
    old = df.copy()
    old["d"] = old["population.d"]
    old["w_pub"] = old.get("population.w_pub", np.nan)
    old["epsilon"] = np.nan
    for label in old["learner"].unique():
        rows = old["learner"] == label
        prefix = "learner." if label == main else f"baselines.{label}."
        for col in [c for c in old.columns if c.startswith(prefix)]:
            param = col[len(prefix):]
            if f"learner.{param}" not in old.columns:
                old[f"learner.{param}"] = pd.Series(np.nan, index=old.index, dtype=object)
            old.loc[rows, f"learner.{param}"] = old.loc[rows, col]
            if param == "epsilon":
                old.loc[rows, "epsilon"] = old.loc[rows, col]
    return old.drop(columns=[c for c in old.columns if c.startswith("baselines.")]
                    + ["n_unlabelled", "n_label_queries", "n_pool"])


def test_each_parameter_is_written_once_under_its_owner(tmp_path):
    df = pipeline.run(_compose(["experiment=c10_homogeneity", f"results_root={tmp_path}",
                                "n=12", *TINY]))
    assert not {"epsilon", "w_pub", "d"} & set(df.columns)
    main, base = df[df.learner == "ppm"], df[df.learner != "ppm"]
    learner_cols = [c for c in df.columns if c.startswith("learner.")]
    assert base[learner_cols].isna().all().all()  # baselines own no learner.* value
    assert main[[c for c in df.columns if c.startswith("baselines.")]].isna().all().all()
    semi = df[df.learner == "semi_private"]
    assert (semi["baselines.semi_private.labels"] == "private").all()
    assert (semi["baselines.semi_private.epsilon"] == 1.0).all()
    assert (df["population.d"] == 2).all()
    # a population without a d parameter still gets population.d
    grid = pipeline.run(_compose(["experiment=c9_domain", f"results_root={tmp_path}", "n=8",
                                  *TINY]))
    assert (grid["population.d"] == 1).all()
    assert (grid.loc[grid.learner == "fully_private", "baselines.fully_private.T"] == 64).all()


@pytest.mark.parametrize("experiment,overrides", [
    ("c1_realizable_d1", ["n=64"]),
    ("c9_domain", ["population.T=256", "n=32"]),
    ("c10_homogeneity", ["population.eta=0.2", "n=64"]),
])
def test_cell_keys_are_those_of_the_committed_trials(experiment, overrides):
    """The layout change left every cache key as it was: a cell composed now has the key its
    committed trials carry (so existing caches resume)."""
    spec = pipeline.validate_config(_compose([f"experiment={experiment}", *overrides]))
    committed = pd.read_csv(ROOT / "results" / experiment / "trials.csv", low_memory=False)
    assert pipeline.cell_key(spec) in set(committed["cell_key"])


def test_trials_cached_in_the_first_layout_resume_unchanged(tmp_path, monkeypatch):
    cfg = _compose(["experiment=c10_homogeneity", f"results_root={tmp_path}", "n=12", *TINY])
    new = pipeline.run(cfg)
    for path in (tmp_path / "cache").glob("*/trial_*.csv"):
        _to_first_layout(pd.read_csv(path), "ppm").to_csv(path, index=False)
    assert "w_pub" in pd.read_csv(next((tmp_path / "cache").glob("*/trial_*.csv"))).columns
    calls = []
    real = pipeline.run_trial
    monkeypatch.setattr(pipeline, "run_trial", lambda s, t: (calls.append(t), real(s, t))[1])
    again = pipeline.run(cfg)
    assert calls == []
    pd.testing.assert_frame_equal(again, new)


def test_n_hat_curves_are_learner_and_own_params_without_nan_keys(tmp_path):
    df, nh = aggregate(_sweep(tmp_path, tmp_path), tmp_path / "agg")
    keys = [c for c in nh.columns if c not in ("alpha", "beta", "n_hat", "n_hat_lo",
                                               "n_hat_hi", "censored", "min_trials")]
    assert keys == ["learner", "params"]  # nothing shared varies here; no NaN-filled key
    assert nh[keys].notna().all().all()
    curves = set(map(tuple, nh[keys].drop_duplicates().to_numpy()))
    assert curves == {("ppm", "epsilon=0.5"), ("ppm", "epsilon=2"), ("erm", "-"),
                      ("semi_private", "epsilon=0.5"), ("semi_private", "epsilon=2"),
                      ("semi_private_all", "epsilon=0.5"), ("semi_private_all", "epsilon=2")}
    # ERM appears in both epsilon cells with the same samples: counted once per trial
    trials = unique_trials(df)
    assert len(trials[trials.learner == "erm"]) == 2 * 2
    joined = curve_config(nh, trials)
    ppm = joined[joined.learner == "ppm"]
    assert set(ppm["learner.epsilon"]) == {0.5, 2.0}
    assert joined.loc[joined.learner == "erm", "learner.epsilon"].isna().all()
    assert curve_columns(df) == ["learner", "params"]


def test_execution_settings_never_enter_the_params_key(tmp_path):
    a = pipeline.run(_compose([f"results_root={tmp_path}", "n=10", *TINY,
                               "learner.max_hypotheses=1e9"]))
    b = pipeline.run(_compose([f"results_root={tmp_path}", "n=10", *TINY,
                               "learner.max_hypotheses=5e9"]))
    both = unique_trials(pd.concat([a, b], ignore_index=True))
    assert set(both["params"]) == {"-"} and len(both) == 2


def test_migration_rewrites_the_first_layout_and_is_idempotent(tmp_path):
    aggregate(_sweep(tmp_path, tmp_path), tmp_path / "res" / "c10_homogeneity")
    exp = tmp_path / "res" / "c10_homogeneity"
    current, nhat = (exp / "trials.csv").read_bytes(), (exp / "n_hat.csv").read_bytes()
    old = _to_first_layout(pd.read_csv(exp / "trials.csv"), "ppm")
    old.to_csv(exp / "trials.csv", index=False)
    (exp / "n_hat.csv").unlink()
    migrate_results.main([str(tmp_path / "res")])
    assert (exp / "trials.csv").read_bytes() == current
    assert (exp / "n_hat.csv").read_bytes() == nhat
    before = {p: p.read_bytes() for p in exp.iterdir()}
    assert "already" in migrate_results.migrate(exp)
    assert {p: p.read_bytes() for p in exp.iterdir()} == before


def test_restored_cache_is_the_pipelines_own(tmp_path, monkeypatch):
    """Run, aggregate, delete the cache, restore it from trials.csv: the same files byte for
    byte, a rerun computes nothing and gives the same n_hat.csv; --forget removes them again."""
    root = tmp_path / "results"
    aggregate(_sweep(tmp_path, root), root / "c10_homogeneity")
    own = _cache_bytes(root)
    first_nhat = (root / "c10_homogeneity" / "n_hat.csv").read_bytes()
    first_trials = (root / "c10_homogeneity" / "trials.csv").read_bytes()
    shutil.rmtree(root / "cache")
    written, kept = restore_cache.restore(root / "c10_homogeneity" / "trials.csv",
                                          root / "cache")
    assert (written, kept) == (len(own), 0)
    assert _cache_bytes(root) == own
    calls = []
    real = pipeline.run_trial
    monkeypatch.setattr(pipeline, "run_trial", lambda s, t: (calls.append(t), real(s, t))[1])
    aggregate(_sweep(tmp_path, root), root / "c10_homogeneity")
    assert calls == []
    assert (root / "c10_homogeneity" / "n_hat.csv").read_bytes() == first_nhat
    assert (root / "c10_homogeneity" / "trials.csv").read_bytes() == first_trials
    assert restore_cache.restore(root / "c10_homogeneity" / "trials.csv",
                                 root / "cache") == (0, len(own))
    assert restore_cache.forget(root / "cache") == len(own)
    assert _cache_bytes(root) == {}


def test_long_experiments_are_left_out_of_the_quick_profile():
    from claims import registry
    from claims.base import Claim

    long = registry.long_experiments()
    assert long and set(long) <= set(registry.experiments())
    quick = registry.experiments(quick=True)
    assert not {e + registry.QUICK_SUFFIX for e in long} & set(quick)
    assert len(quick) == len(registry.experiments()) - len(long)
    with pytest.raises(ValueError, match="not among"):
        Claim(id="X", name="x", statement="", experiments=("a",), analyse=list, long=("b",))
    with pytest.raises(ValueError, match="committed experiments"):
        Claim(id="X", name="x", statement="", experiments=("a",), analyse=list,
              committed=("b",))


def test_committed_experiments_are_restored_but_stay_in_the_quick_profile():
    from claims import registry

    committed = [e for c in registry.CLAIMS for e in c.committed]
    restored = registry.restored_experiments()
    assert set(registry.long_experiments()) | set(committed) == set(restored)
    quick = registry.experiments(quick=True)
    assert {e + registry.QUICK_SUFFIX for e in committed} <= set(quick)


def test_results_in_the_first_layout_are_read_as_if_migrated(tmp_path, capsys):
    """make figures before the migration: ResultStore converts in memory, same tables."""
    from claims.base import ResultStore

    exp = tmp_path / "res" / "c10_homogeneity"
    aggregate(_sweep(tmp_path, tmp_path), exp)
    trials, nhat = ResultStore(tmp_path / "res").load("c10_homogeneity")
    old_nhat = pd.read_csv(exp / "n_hat.csv").drop(columns="params")
    old_nhat.to_csv(exp / "n_hat.csv", index=False)
    _to_first_layout(pd.read_csv(exp / "trials.csv"), "ppm").to_csv(exp / "trials.csv",
                                                                    index=False)
    trials2, nhat2 = ResultStore(tmp_path / "res").load("c10_homogeneity")
    assert "converted in memory" in capsys.readouterr().out
    pd.testing.assert_frame_equal(trials2.reset_index(drop=True), trials.reset_index(drop=True))
    pd.testing.assert_frame_equal(nhat2, nhat)
