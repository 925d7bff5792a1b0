"""The seed and cell-key contract (experiments/seeding.py), tested against the committed results.

Every committed trial carries the key of its cell. If a module move, a renamed config path or a
change of the hashing changed a seed or a key, the committed trials would no longer be the
trials the code computes, and a restored cache would never be read.
"""

from __future__ import annotations

import copy
import itertools
from pathlib import Path

import pandas as pd
import pytest
import yaml
from hydra import compose, initialize_config_dir
from hydra.utils import get_class
from omegaconf import OmegaConf

from claims import registry
from experiments import seeding
from experiments.schema import register_configs

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = ROOT / "configs"
COMMITTED = [e for e in registry.experiments() if (ROOT / "results" / e / "trials.csv").exists()]


def _compose(overrides, hydra_cfg=False):
    register_configs()
    with initialize_config_dir(config_dir=str(CONFIGS), version_base="1.3"):
        return compose(config_name="config", overrides=list(overrides),
                       return_hydra_config=hydra_cfg)


def _cells(experiment: str):
    """Every cell of an experiment's sweep grid, as the spec the pipeline hashes (the values
    set on the composed config, so the schema's types apply as in a sweep)."""
    params = OmegaConf.to_container(
        _compose([f"experiment={experiment}"], hydra_cfg=True).hydra.sweeper.params) or {}
    base = _compose([f"experiment={experiment}"])
    grids = [[yaml.safe_load(v) for v in str(values).split(",")] for values in params.values()]
    for combo in itertools.product(*grids):
        cfg = copy.deepcopy(base)
        for key, value in zip(params, combo):
            OmegaConf.update(cfg, key, value, merge=False)
        yield seeding.to_container(cfg)


def test_every_committed_experiment_is_checked():
    assert len(COMMITTED) >= 25


@pytest.mark.parametrize("experiment", COMMITTED)
def test_committed_cell_keys_are_the_ones_the_code_computes(experiment):
    committed = set(pd.read_csv(ROOT / "results" / experiment / "trials.csv",
                                usecols=["cell_key"], dtype=str)["cell_key"])
    computed = {seeding.cell_key(spec) for spec in _cells(experiment)}
    assert committed <= computed, f"{len(committed - computed)} committed cells not reproduced"


def test_a_committed_seed_is_the_one_the_code_draws():
    """The learner seed of a committed row, recomputed from its cell's config and trial."""
    experiment = "c1_realizable_d1"
    trials = pd.read_csv(ROOT / "results" / experiment / "trials.csv", dtype={"cell_key": str})
    by_key = {seeding.cell_key(spec): spec for spec in _cells(experiment)}
    for _, row in trials.groupby("learner").head(2).iterrows():
        spec = by_key[row["cell_key"]]
        label = row["learner"]
        est = spec["learner"] if label == "ppm" else spec["baselines"][label]
        assert seeding.learner_seed(spec, int(row["trial"]), label, est) == row["learner_seed"]


def test_a_class_named_through_another_path_keeps_its_seeds_and_keys():
    spec = next(_cells("c1_realizable_d1"))
    assert spec["learner"]["_target_"] == "ppm.PPMHalfspaceLearner"
    moved = yaml.safe_load(yaml.safe_dump(spec))
    moved["learner"]["_target_"] = "ppm.core.learner.PPMHalfspaceLearner"
    moved["population"]["_target_"] = "ppm.populations.mixture.GaussianClusters"
    assert seeding.cell_key(moved) == seeding.cell_key(spec)
    assert seeding.stream_seed(moved, 3, seeding.SAMPLE) == seeding.stream_seed(spec, 3,
                                                                               seeding.SAMPLE)
    assert (seeding.learner_seed(moved, 3, "ppm", moved["learner"])
            == seeding.learner_seed(spec, 3, "ppm", spec["learner"]))


def test_another_class_changes_the_key():
    spec = next(_cells("c10_homogeneity"))
    other = yaml.safe_load(yaml.safe_dump(spec))
    other["baselines"]["erm"]["_target_"] = "ppm.baselines.PublicOnly"
    assert seeding.cell_key(other) != seeding.cell_key(spec)


def _config_targets():
    targets = set()
    for path in CONFIGS.rglob("*.yaml"):
        for line in path.read_text().splitlines():
            if line.strip().startswith("_target_:"):
                targets.add(line.split(":", 1)[1].split("#")[0].strip())
    from experiments import schema
    for name in dir(schema):
        default = getattr(getattr(schema, name), "__dataclass_fields__", {}).get("_target_")
        if default is not None:
            targets.add(default.default)
    return sorted(t for t in targets if t.startswith("ppm."))


@pytest.mark.parametrize("target", _config_targets())
def test_every_configurable_class_has_a_stable_name(target):
    """A class outside the table would hash under its module path: moving it would change every
    seed of its experiments."""
    assert seeding.defining_path(get_class(target)) in seeding.STABLE_NAMES


@pytest.mark.parametrize("experiment", COMMITTED)
def test_committed_n_hat_is_what_the_code_computes_from_the_committed_trials(experiment):
    """A committed n_hat.csv is never stale: the current analysis, run on the committed
    trials.csv with the experiment's own analysis settings, writes the same bytes."""
    import io

    from analysis.aggregate import n_hat_table

    analysis = _compose([f"experiment={experiment}"]).analysis
    trials = pd.read_csv(ROOT / "results" / experiment / "trials.csv", low_memory=False,
                         dtype={"cell_key": str})
    buf = io.StringIO()
    n_hat_table(trials, list(analysis.alphas), analysis.beta, analysis.confidence).to_csv(
        buf, index=False)
    assert buf.getvalue() == (ROOT / "results" / experiment / "n_hat.csv").read_text()


@pytest.mark.parametrize("experiment, cell", [
    ("c16_union_polygons", ["population.T=64", "n=1000"]),
    ("c16_theorem_budget", ["population.T=64", "n=40000"]),
    # C4 at d = 3: the exact mechanism over |G| ~ 1e6 (n_pub ~ 8); the long cells of the same
    # sweep follow the same code path with a larger class
    ("c4_dimension_d3_wpub", ["learner.epsilon=1.0", "n=80"]),
    ("c4_epsilon_fit_d3", ["learner.epsilon=2.0", "n=64"]),
    # made on an H100 (learner.device=cuda; |G| = 3.5e9 over the two trials, ~10 s here): the
    # GPU's rows are the CPU's
    ("c4_wpub06_d3", ["learner.epsilon=10.0", "n=288"]),
])
def test_committed_long_rows_are_recomputed_exactly(experiment, cell, tmp_path):
    """Two trials of one committed cell of a long experiment (its trials are restored, not
    recomputed, by make reproduce), recomputed by the pipeline from the config: every column of
    the committed rows, exactly, fit times and the scratch paths aside."""
    from experiments import pipeline

    cfg = _compose([f"experiment={experiment}", *cell, "trials=2",
                    f"results_root={tmp_path}", "progress=false"])
    fresh = pipeline.run(cfg)
    committed = pd.read_csv(ROOT / "results" / experiment / "trials.csv", dtype={"cell_key": str},
                            low_memory=False)
    committed = committed[(committed.cell_key == fresh["cell_key"].iloc[0])
                          & (committed.trial < 2)].dropna(axis=1, how="all")
    skip = {"fit_seconds", "learner.histogram_memo"}
    cols = [c for c in committed.columns if c not in skip]
    assert {"trial", "learner", "n_pub", "error", "seed", "learner_seed"} <= set(cols)
    key = ["trial", "learner"]
    got = fresh[cols].sort_values(key).reset_index(drop=True)
    want = committed[cols].sort_values(key).reset_index(drop=True)
    assert len(want) == len(got) > 0
    pd.testing.assert_frame_equal(got, want, check_dtype=False, check_exact=True)
