"""The CSV layout (each parameter once) and the trial cache restored from trials.csv.

Cache keys must not change with the layout (other sweeps' caches must still resume), and a
cache restored from an aggregated ``trials.csv`` must be byte for byte the pipeline's own.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

import experiments.pipeline as pipeline
from experiments.schema import register_configs
from experiments import cache as restore_cache
from experiments import seeding
from analysis.aggregate import aggregate, curve_columns, curve_config, unique_trials
from analysis.sample_complexity import N_HAT_COLUMNS

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
    .hydra/config.yaml (what analysis.aggregate reads)."""
    sweep = tmp / f"sweep_{len(list(tmp.glob('sweep_*')))}"
    for i, over in enumerate(cells):
        cfg = _compose([f"experiment={experiment}", f"results_root={root}", *TINY, *over])
        job = sweep / str(i)
        (job / ".hydra").mkdir(parents=True)
        pipeline.run(cfg).to_csv(job / "trials.csv", index=False)
        OmegaConf.save(cfg, job / ".hydra" / "config.yaml")
    return sweep


def _cache_bytes(root: Path) -> dict[tuple[str, int], bytes]:
    return {(key, trial): text.encode()
            for key, trial, text, _, _ in restore_cache.scan(root / "cache")}


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
    # its population moved to configs/population/grid_thresholds_support4.yaml: same cells
    ("c13_generic_domain", ["population.T=4096", "n=64"]),
    ("c13_generic_domain_plateau", ["population.T=4096", "n=64"]),
])
def test_cell_keys_are_those_of_the_committed_trials(experiment, overrides):
    """The layout change left every cache key as it was: a cell composed now has the key its
    committed trials carry (so existing caches resume)."""
    spec = pipeline.validate_config(_compose([f"experiment={experiment}", *overrides]))
    committed = pd.read_csv(ROOT / "results" / experiment / "trials.csv", low_memory=False)
    assert seeding.cell_key(spec) in set(committed["cell_key"])


def test_n_hat_curves_are_learner_and_own_typed_settings(tmp_path):
    df, nh = aggregate(_sweep(tmp_path, tmp_path), tmp_path / "agg")
    keys = [c for c in nh.columns if c not in N_HAT_COLUMNS]
    own = ["learner.epsilon", "baselines.semi_private.epsilon",
           "baselines.semi_private_all.epsilon"]
    assert keys == ["learner", "params", *own]  # nothing shared varies here
    assert nh[["learner", "params"]].notna().all().all()
    # each learner's own setting, typed, on its rows only (under its trials.csv name)
    for col, label in zip(own, ("ppm", "semi_private", "semi_private_all")):
        assert nh[col].dtype == float
        assert set(nh.loc[nh.learner == label, col]) == {0.5, 2.0}
        assert nh.loc[nh.learner != label, col].isna().all()
    curves = set(map(tuple, nh[["learner", "params"]].drop_duplicates().to_numpy()))
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
    assert curve_columns(df) == ["learner", "params", *own]


def test_execution_settings_never_enter_the_params_key(tmp_path):
    a = pipeline.run(_compose([f"results_root={tmp_path}", "n=10", *TINY,
                               "learner.max_hypotheses=1e9"]))
    b = pipeline.run(_compose([f"results_root={tmp_path}", "n=10", *TINY,
                               "learner.max_hypotheses=5e9"]))
    both = unique_trials(pd.concat([a, b], ignore_index=True))
    assert set(both["params"]) == {"-"} and len(both) == 2


def test_restored_cache_is_the_pipelines_own(tmp_path, monkeypatch):
    """Run, aggregate, delete the cache, restore it from trials.csv: the same trial texts byte
    for byte, a rerun computes nothing and gives the same n_hat.csv; --forget removes them
    again."""
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


def test_a_cell_key_that_looks_like_a_number_stays_text(tmp_path):
    """A hex key of digits and one 'e' (45e0959...) parses as the float inf; aggregated tables
    once carried 'inf' for such a cell, which a restored cache then never found."""
    root = tmp_path / "results"
    sweep = _sweep(tmp_path, root, cells=CELLS[:1])
    job = sweep / "0" / "trials.csv"
    job.write_text(job.read_text().replace(pd.read_csv(job)["cell_key"].iloc[0],
                                           "45e09596829787507045"))
    aggregate(sweep, root / "c10_homogeneity")
    assert set(pd.read_csv(root / "c10_homogeneity" / "trials.csv", dtype=str)["cell_key"]) == {
        "45e09596829787507045"}


# --- the contract: the pipeline writes, and the claims read, the names of experiments.columns

SETTING_COLUMNS = ("D", "W_PUB", "T", "C", "B", "K", "DOMAIN", "ETA", "PUBLIC_POS_RATE",
                   "DECOY_ALPHA", "ALPHA_TARGET", "SUPPORT", "FEATURES", "EPSILON", "DELTA",
                   "EPSILON_HAT", "LEARNER_K", "ALPHA0", "COMPOSITION", "N_A", "N_QUERIES")


def test_the_pipeline_writes_the_contracts_names(tmp_path):
    from experiments import columns
    df = pipeline.run(_compose(["experiment=c10_homogeneity", f"results_root={tmp_path}",
                                "n=12", *TINY]))
    assert {columns.D, columns.ETA, columns.EPSILON} <= set(df.columns)
    assert {columns.PPM, columns.ERM, columns.SEMI_PRIVATE, columns.SEMI_PRIVATE_ALL} == \
        set(df["learner"])
    assert columns.baseline_column(columns.SEMI_PRIVATE, columns.EPSILON) in df.columns


def test_every_setting_the_claims_read_is_a_committed_column():
    """Each setting name of the contract is the header of some committed trials table (all
    written by the pipeline), so a misspelt constant cannot pass for a missing setting."""
    from experiments import columns
    headers = set()
    for path in sorted((ROOT / "results").glob("*/trials.csv")):
        headers |= set(pd.read_csv(path, nrows=0).columns)
    missing = {name: getattr(columns, name) for name in SETTING_COLUMNS
               if getattr(columns, name) not in headers}
    assert not missing


def test_one_label_rule_for_the_pipeline_and_the_gpu_batches():
    from experiments import columns, gpu_batch
    from ppm import PPMHalfspaceLearner
    assert columns.PPM_CLASS == PPMHalfspaceLearner.__name__
    assert columns.learner_label("ppm.PPMHalfspaceLearner") == columns.PPM
    assert columns.learner_label("ppm.set_cover.SetCoverLearner") == columns.SET_COVER
    for module in (pipeline, gpu_batch):
        assert "PPMHalfspaceLearner" not in Path(module.__file__).read_text()


def _code_strings(path: Path):
    """The string constants of a module's code (docstrings left out)."""
    import ast
    tree = ast.parse(path.read_text())
    docs = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef))
            and node.body and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)}
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docs]


def test_analysis_and_claims_spell_no_column_or_label():
    """Columns and row labels are named in experiments/columns.py only: the analysis and the
    claims import them (a prefix or label spelt out again would drift from what is written)."""
    from experiments import columns
    labels = {v for k, v in vars(columns).items()
              if k.isupper() and isinstance(v, str) and not v.endswith(".")} - {
        getattr(columns, name) for name in SETTING_COLUMNS}
    prefixes = (columns.POPULATION, columns.MAIN, columns.BASELINES)
    found = []
    for path in sorted([*(ROOT / "claims").glob("*.py"), *(ROOT / "analysis").glob("*.py")]):
        found += [f"{path.relative_to(ROOT)}:{line}: {text!r}" for line, text in _code_strings(path)
                  if text.startswith(prefixes) or text in labels]
    assert not found
