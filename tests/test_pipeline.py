"""Hydra/joblib pipeline: configs compose, bad input fails early, seeds, resume, smoke runs."""

from __future__ import annotations

import io
import os
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hydra import compose, initialize_config_dir
from hydra.errors import ConfigCompositionException
from omegaconf import OmegaConf
from omegaconf.errors import ValidationError

import experiments.pipeline as pipeline
from experiments import columns, seeding
from experiments.schema import register_configs
from analysis.aggregate import aggregate, curve_columns, curve_params

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = ROOT / "configs"
EXPERIMENTS = sorted(p.stem for p in (CONFIGS / "experiment").glob("*.yaml"))
TIMING = ["fit_seconds"]


def _compose(overrides=()):
    register_configs()
    with initialize_config_dir(config_dir=str(CONFIGS), version_base="1.3"):
        return compose(config_name="config", overrides=list(overrides))


def _tiny(tmp_path, *extra):
    return [f"results_root={tmp_path}", "n=12", "trials=3", "n_test=400", *extra]


def _makefile_experiments() -> list[str]:
    """The sweeps of make reproduce, as make expands them (the Makefile reads the registry)."""
    res = subprocess.run(["make", "--no-print-directory", "-n", "reproduce", f"PY={sys.executable}",
                          "STAMP="], cwd=ROOT, capture_output=True, text=True, timeout=120)
    line = next(ln for ln in res.stdout.splitlines() if "scripts.run_sweeps" in ln)
    words = shlex.split(line.split("scripts.run_sweeps", 1)[1].split(";")[0])
    names, i = [], 0
    while i < len(words):  # options and their values, then the sweeps
        if words[i].startswith("--"):  # a flag, or an option and its value
            i += 1 if words[i] in ("--verbose", "--no-aggregate") else 2
            continue
        names.append(words[i])
        i += 1
    return names


def test_there_are_experiments():
    assert {"c1_realizable_d1", "c1_realizable_d2"} <= set(EXPERIMENTS)


def test_every_reproduced_sweep_has_a_config_and_a_quick_profile():
    """... except the long experiments (Claim.long): the quick profile leaves them out."""
    from claims.registry import long_experiments

    listed = _makefile_experiments()
    assert len(listed) >= 12
    for name in listed:
        assert name in EXPERIMENTS, name
        assert f"{name}_quick" in EXPERIMENTS or name in long_experiments(), name
    # and no experiment config is left out of make reproduce
    assert {e.removesuffix("_quick") for e in EXPERIMENTS} == set(listed)


def test_make_reproduce_restores_exactly_the_committed_and_long_sweeps():
    """The restore step of make reproduce names every restored experiment (registry) once and
    nothing else; the quick profile and RECOMPUTE=1 restore nothing."""
    from claims.registry import restored_experiments

    def restore_line(*extra):
        res = subprocess.run(["make", "--no-print-directory", "-n", "reproduce",
                              f"PY={sys.executable}", "STAMP=", *extra], cwd=ROOT,
                             capture_output=True, text=True, timeout=120)
        return [ln for ln in res.stdout.splitlines() if "scripts.restore_cache" in ln]

    (line,) = restore_line()
    named = line.split("--cache", 1)[1].split()[1:]
    named = [w.rstrip(";") for w in named if w.rstrip(";").isidentifier()]
    assert sorted(named) == sorted(restored_experiments())
    assert restore_line("PROFILE=quick") == []
    (forget,) = restore_line("RECOMPUTE=1")
    assert "--forget" in forget and "--from" not in forget


def test_the_default_sweeper_is_the_validated_one():
    """configs/config.yaml selects hydra_plugins/ppm_sweeper (jobs composed and validated once),
    and Hydra finds it as a plugin."""
    from hydra.core.plugins import Plugins
    from hydra.plugins.sweeper import Sweeper
    register_configs()
    with initialize_config_dir(config_dir=str(CONFIGS), version_base="1.3"):
        cfg = compose(config_name="config", return_hydra_config=True)
    assert cfg.hydra.sweeper._target_.endswith("ValidatedBasicSweeper")
    found = {f"{c.__module__}.{c.__name__}" for c in Plugins.instance().discover(Sweeper)}
    assert cfg.hydra.sweeper._target_ in found


@pytest.mark.parametrize("experiment", EXPERIMENTS)
def test_every_experiment_composes_and_validates(experiment):
    cfg = _compose([f"experiment={experiment}"])
    spec = pipeline.validate_config(cfg)
    assert spec["experiment_name"] != "default"


# The active learner's pool (ceil((3 + e) n_A / epsilon)) must fit in the tiny n = 12.
_TINY_EXTRA = {name: ["learner.epsilon=3.0", "learner.n_A=4", "learner.n_queries=2"]
               for name in ("c15_active_queries", "c15_active_queries_quick")}


@pytest.mark.parametrize("experiment", EXPERIMENTS)
def test_every_experiment_smoke_runs(experiment, tmp_path):
    cfg = _compose([f"experiment={experiment}", *_tiny(tmp_path),
                    *_TINY_EXTRA.get(experiment, [])])
    df = pipeline.run(cfg)
    learners = 1 + len(cfg.baselines)
    assert len(df) == 3 * learners
    assert df["error"].between(0, 1).all()
    learner = columns.learner_label(OmegaConf.to_container(cfg.learner, resolve=True)["_target_"])
    assert learner in set(df["learner"])
    for col in ("n_pub", "n_hypotheses", "fit_seconds", columns.D):
        assert col in df.columns
    if "epsilon" in cfg.learner:  # a private learner (c16_greedy's is not)
        assert columns.EPSILON in df.columns
    assert not {"epsilon", "w_pub", "d"} & set(df.columns)  # each parameter once
    for key in cfg.population:
        if key != "_target_":
            assert f"population.{key}" in df.columns


@pytest.mark.parametrize("override", ["population.dd=3", "learner.epsilonn=1", "nn=3"])
def test_unknown_keys_fail_at_compose(override):
    with pytest.raises(ConfigCompositionException):
        _compose([override])


@pytest.mark.parametrize("override", ["trials=abc", "population.d=two", "learner.epsilon=high",
                                      "population.margin=wide"])
def test_wrong_types_fail_at_compose(override):
    with pytest.raises((ConfigCompositionException, ValidationError)):
        _compose([override])


def test_population_schemas_are_the_class_signatures():
    """Built from the constructors (experiments.schema.signature_conf): every parameter with
    its default, and None where the annotation admits it (GaussianClusters' margin)."""
    import inspect
    from dataclasses import MISSING, fields
    from hydra.utils import get_class
    from experiments import schema
    confs = [c for name, c in vars(schema).items() if name.endswith("Conf")
             and str(getattr(c, "_target_", "")).startswith("ppm.")
             and not hasattr(get_class(c._target_), "fit")]
    # one schema per population the configs can name (every one registered in the store)
    from hydra.core.config_store import ConfigStore
    schema.register_configs()
    stored = [n for n in ConfigStore.instance().list("population") if n.endswith("_schema.yaml")]
    assert len(confs) == len(stored) > 0
    for conf in confs:
        params = inspect.signature(get_class(conf._target_)).parameters
        got = {f.name: f.default_factory() if f.default is MISSING else f.default
               for f in fields(conf) if f.name != "_target_"}
        want = {name: list(p.default) if isinstance(p.default, tuple) else p.default
                for name, p in params.items()}
        assert got == want, conf.__name__
    assert _compose(["population.margin=null"]).population.margin is None


@pytest.mark.parametrize("override,name", [
    ("learner.epsilon=0", "epsilon"), ("learner.epsilon=-1", "epsilon"),
    ("population.w_pub=1.5", "w_pub"), ("population.w_pub=-0.1", "w_pub"),
    ("population.d=0", "d"), ("n=0", "n"), ("trials=0", "trials"),
    ("analysis.alphas=[0.1,1.0]", "alphas"), ("analysis.beta=0", "beta"),
    ("population.eta=0.7", "eta"), ("n_jobs=0", "n_jobs"), ("learner.method=mcmc", "method"),
    ("learner.rel_tol=0.5", "rel_tol"),
    # '+' forces a new key past the schema; the constructor then rejects it, still before work.
    ("+population.foo=1", "foo"),
])
def test_bad_values_fail_before_any_work(override, name, tmp_path):
    cfg = _compose([*_tiny(tmp_path), override])
    with pytest.raises(ValueError, match=name):
        pipeline.run(cfg)
    assert not (tmp_path / "cache").exists()


def _strip(df):
    return df.drop(columns=TIMING).reset_index(drop=True)


def test_results_identical_for_any_n_jobs(tmp_path):
    a = pipeline.run(_compose(_tiny(tmp_path / "a", "population.d=2", "n_jobs=1", "trials=4")))
    b = pipeline.run(_compose(_tiny(tmp_path / "b", "population.d=2", "n_jobs=2", "trials=4")))
    pd.testing.assert_frame_equal(_strip(a), _strip(b))
    # ... and the trials differ from each other (seeds really depend on the trial index).
    assert a[a.learner == "ppm"]["n_pub"].nunique() > 1 or a["error"].nunique() > 1


def test_seed_changes_results(tmp_path):
    a = pipeline.run(_compose(_tiny(tmp_path / "a")))
    b = pipeline.run(_compose(_tiny(tmp_path / "b", "seed=7")))
    assert not _strip(a)[["n_pub", "error"]].equals(_strip(b)[["n_pub", "error"]])


def test_learner_and_baselines_see_the_same_samples(tmp_path):
    cfg = _compose(["experiment=c1_realizable_d2", *_tiny(tmp_path)])
    df = pipeline.run(cfg)
    per_trial = df.groupby("trial")["n_pub"].nunique()
    assert (per_trial == 1).all()


def test_interrupted_cell_resumes_without_recomputing(tmp_path, monkeypatch):
    cfg = _compose(_tiny(tmp_path, "trials=4"))
    full = pipeline.run(cfg)

    calls = []
    real = pipeline.run_trial

    def flaky(spec, trial):
        calls.append(trial)
        if trial == 2:
            raise KeyboardInterrupt  # the sweep is interrupted while computing trial 2
        return real(spec, trial)

    fresh = tmp_path / "fresh"
    cfg2 = _compose(_tiny(fresh, "trials=4"))
    monkeypatch.setattr(pipeline, "run_trial", flaky)
    with pytest.raises(KeyboardInterrupt):
        pipeline.run(cfg2)
    assert calls == [0, 1, 2]
    monkeypatch.setattr(pipeline, "run_trial", lambda spec, trial: (calls.append(trial), real(spec, trial))[1])
    calls.clear()
    resumed = pipeline.run(cfg2)
    assert calls == [2, 3]  # trials 0 and 1 were kept from the interrupted run
    pd.testing.assert_frame_equal(_strip(resumed), _strip(full))
    calls.clear()
    pipeline.run(cfg2)
    assert calls == []  # a finished cell is not recomputed


def test_more_trials_reuse_the_cache(tmp_path, monkeypatch):
    pipeline.run(_compose(_tiny(tmp_path, "trials=2")))
    calls = []
    real = pipeline.run_trial
    monkeypatch.setattr(pipeline, "run_trial", lambda s, t: (calls.append(t), real(s, t))[1])
    pipeline.run(_compose(_tiny(tmp_path, "trials=3")))
    assert calls == [2]


def test_scorer_choice_changes_nothing(tmp_path):
    """Backends of the exact mechanism: same seeds, same outputs, same cache cell."""
    a = pipeline.run(_compose(_tiny(tmp_path / "a", "population.d=2", "learner.method=auto")))
    b = pipeline.run(_compose(_tiny(tmp_path / "b", "population.d=2", "learner.method=blocked",
                                    "learner.max_hypotheses=1e12")))
    cols = ["trial", "learner", "n_pub", "error", "train_error", "learner_seed", "cell_key"]
    pd.testing.assert_frame_equal(a[cols], b[cols])


def test_cell_key_ignores_execution_settings():
    base = pipeline.validate_config(_compose([]))
    other = pipeline.validate_config(_compose(["n_jobs=2", "progress=false", "trials=5",
                                               "learner.histogram_memo=/tmp/memo",
                                               "learner.method=blocked"]))
    assert seeding.cell_key(base) == seeding.cell_key(other)
    changed = pipeline.validate_config(_compose(["learner.epsilon=0.5"]))
    assert seeding.cell_key(base) != seeding.cell_key(changed)


def _entry(args, cwd):
    env = dict(os.environ, HYDRA_FULL_ERROR="0")
    return subprocess.run([sys.executable, "-m", "experiments.run", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_multirun_rejects_a_bad_cell_before_any_job_runs(tmp_path):
    res = _entry(["--multirun", "population.w_pub=0.5,1.5", "n=10", "trials=1", "n_test=100",
                  f"results_root={tmp_path}", f"hydra.sweep.dir={tmp_path / 'sweep'}"], ROOT)
    assert res.returncode != 0
    assert "w_pub" in res.stderr + res.stdout
    assert not (tmp_path / "cache").exists()


def test_multirun_joblib_launcher_and_aggregation(tmp_path):
    sweep = tmp_path / "sweep"
    res = _entry(["--multirun", "n=10,20", "population.d=1", "trials=2", "n_test=200",
                  "hydra.launcher.n_jobs=2", f"results_root={tmp_path}",
                  f"hydra.sweep.dir={sweep}", "experiment_name=smoke"], ROOT)
    assert res.returncode == 0, res.stderr[-2000:]
    df, nh = aggregate(sweep, tmp_path / "agg")
    assert sorted(df["n"].unique()) == [10, 20]
    assert (tmp_path / "agg" / "n_hat.csv").exists()
    assert set(nh["learner"]) == {"ppm"}
    assert curve_columns(df) == ["learner", "params"]


def test_make_reproduce_quick_profile(tmp_path):
    """The quick profile end to end through the Makefile (as a user runs it)."""
    res = subprocess.run(
        ["make", "--no-print-directory", "reproduce", "PROFILE=quick", f"RESULTS={tmp_path}/res",
         f"OUTPUTS={tmp_path}/out", "N_JOBS=2"],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
    )
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    res_dir = tmp_path / "res"
    for fig in ("c1_realizable", "c2_agnostic", "c3_epsilon", "c4_dimension", "c5_mixture_weight",
                "c8_relaxations", "c9_domain", "c10_homogeneity", "real_breast_cancer"):
        assert (res_dir / "figures" / f"{fig}.png").stat().st_size > 10_000, fig
    summary = pd.read_csv(res_dir / "c1_realizable" / "summary.csv")
    assert set(summary["claim"]) == {"C1"} and set(summary["d"]) == {1, 2}
    table = pd.read_csv(res_dir / "summary.csv")
    assert list(table["claim"][:10]) == [f"C{i}" for i in range(1, 11)]
    assert not table["verdict"].str.contains("not run").any()


def test_notebook_runs_on_results(tmp_path):
    """The inspection notebook (jupytext percent script) runs headless on a results tree."""
    sweep = tmp_path / "sweep"
    res = _entry(["--multirun", "n=10,40", "population.d=2", "trials=3", "n_test=200",
                  f"results_root={tmp_path}", f"hydra.sweep.dir={sweep}", "experiment_name=nb",
                  "+baselines={erm:{_target_:ppm.baselines.ERMHalfspace}}"], ROOT)
    assert res.returncode == 0, res.stderr[-2000:]
    aggregate(sweep, tmp_path / "res" / "nb")
    run = subprocess.run([sys.executable, str(ROOT / "notebooks" / "inspect_results.py"),
                          str(tmp_path / "res")], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "n_hat" in run.stdout and "erm" in run.stdout


@pytest.mark.parametrize("args,expected", [
    ((0.9, 1.1, 1.0, 1.0, 1.2, 5), "holds"),
    ((1.5, 1.7, 1.6, 1.0, 1.2, 5), "does not hold"),
    ((1.3, 1.5, 1.4, 1.0, 1.2, 5), "inconclusive (interval crosses theory +- 0.25)"),
    ((0.0, 3.0, 1.5, 1.0, 1.2, 5), "inconclusive (interval wider than theory +- 0.25)"),
    ((0.9, 1.1, 1.0, 1.0, 1.2, 2), "inconclusive (2 uncensored points, fewer than 3)"),
    ((float("nan"),) * 3 + (1.0, 1.2, 0), "not measured"),
])
def test_c1_verdict_rule(args, expected):
    from claims.rules.verdicts import verdict

    assert verdict(*args) == expected


def test_excess_error_is_paired_against_the_optimal_rule(tmp_path):
    """Agnostic: excess = err_test(h) - err_test(h_opt) on the same test sample; realizable:
    the target errs nowhere, so excess = error."""
    agn = pipeline.run(_compose(["population.d=1", "population.margin=null", "n=40",
                                 "trials=4", "n_test=20000", f"results_root={tmp_path}"]))
    assert np.allclose(agn["excess_error"], agn["error"] - agn["opt_test"])
    # the paired reference estimates OPT within its Monte Carlo error ...
    se = np.sqrt(agn["opt"] * (1 - agn["opt"]) / 20000)
    assert (np.abs(agn["opt_test"] - agn["opt"]) <= 4 * se).all()
    # ... and is the same for every learner of a trial (one test sample)
    assert (agn.groupby("trial")["opt_test"].nunique() == 1).all()
    rea = pipeline.run(_compose(["population.d=1", "n=40", "trials=2", "n_test=2000",
                                 f"results_root={tmp_path}"]))
    assert (rea["opt_test"] == 0).all()
    assert np.array_equal(rea["excess_error"], rea["error"])


@pytest.mark.parametrize("experiment", ["c3_epsilon_d1", "c9_domain", "real_breast_cancer"])
def test_fast_sweep_validation_equals_composition(experiment):
    """The callback's shortcut (patching the composed base config) gives exactly the config
    that composing the job gives."""
    from omegaconf import OmegaConf

    from experiments.callbacks import apply_value_overrides

    register_configs()
    with initialize_config_dir(config_dir=str(CONFIGS), version_base="1.3"):
        base = compose(config_name="config", overrides=[f"experiment={experiment}"])
        params = {k: str(v).split(",")[-1] for k, v in base.hydra.sweeper.params.items()} \
            if "hydra" in base else {}
        job = [f"{k}={v}" for k, v in params.items()] or ["n=7"]
        fast = apply_value_overrides(base, job)
        full = compose(config_name="config", overrides=[f"experiment={experiment}", *job])
    assert fast is not None
    full = OmegaConf.to_container(full, resolve=True)
    full.pop("hydra", None)
    assert OmegaConf.to_container(fast, resolve=True) == full
    with pytest.raises(Exception):
        apply_value_overrides(base, ["population.nope=3"]) or (_ for _ in ()).throw(KeyError())


def test_cached_trials_report_this_runs_execution_settings(tmp_path):
    """A cell reused from another experiment's cache (same key: execution-only settings do not
    enter it) reports the current run's execution settings, and curves never split on them."""
    first = pipeline.run(_compose(["population.d=1", "n=20", "trials=2", "n_test=300",
                                   f"results_root={tmp_path}", "learner.max_hypotheses=1e9"]))
    second = pipeline.run(_compose(["population.d=1", "n=20", "trials=2", "n_test=300",
                                    f"results_root={tmp_path}", "learner.max_hypotheses=5e9"]))
    assert (first["cell_key"] == second["cell_key"]).all()
    assert (first["learner.max_hypotheses"] == 1e9).all()
    assert (second["learner.max_hypotheses"] == 5e9).all()
    assert second["fit_seconds"].equals(first["fit_seconds"])  # served from the cache
    both = pd.concat([first, second.assign(n=40)], ignore_index=True)
    assert "learner.max_hypotheses" not in curve_columns(both)


def test_trials_cached_before_a_setting_existed_report_this_runs_value(tmp_path):
    """A cell whose every trial was cached before an execution setting existed (its trial files
    have no such column) still reports this run's value: a curve never splits between cells
    cached before and after (seen with learner.histogram_memo on shared cells)."""
    cfg = ["population.d=2", "trials=2", "n_test=300", f"results_root={tmp_path}",
           "learner.histogram_memo=" + str(tmp_path / "memo")]
    old = pipeline.run(_compose(["n=12", *cfg]))
    cell = tmp_path / "cache" / old["cell_key"].iloc[0]
    with sqlite3.connect(cell / "trials.sqlite") as con:  # as if stored before it existed
        for trial, text in con.execute("SELECT trial, csv FROM trials").fetchall():
            new = pd.read_csv(io.StringIO(text)).drop(columns=["learner.histogram_memo"])
            con.execute("UPDATE trials SET csv = ? WHERE trial = ?",
                        (new.to_csv(index=False), trial))
    con.close()
    again = pipeline.run(_compose(["n=12", *cfg]))
    new = pipeline.run(_compose(["n=16", *cfg]))
    both = pd.concat([again, new], ignore_index=True)
    ppm_rows = both[both.learner == "ppm"]
    assert (ppm_rows["learner.histogram_memo"] == str(tmp_path / "memo")).all()
    assert "learner.histogram_memo" not in curve_columns(both)
    assert (curve_params(both) == curve_params(both).iloc[0]).all()
    # ... and both ways between experiments that share a fully cached cell: one without the
    # memo (the column reads as all-NaN floats), one with it (a path), in either order
    for first, second in ((None, "memo"), ("memo", None)):
        root = tmp_path / f"share_{first}"
        opts = lambda memo: [f"results_root={root}", "population.d=1", "n=10", "trials=2",
                             "n_test=200"] + ([f"learner.histogram_memo={root / memo}"]
                                              if memo else [])
        pipeline.run(_compose(opts(first)))
        df = pipeline.run(_compose(opts(second)))
        got = df.loc[df.learner == "ppm", "learner.histogram_memo"]
        assert (got == str(root / second)).all() if second else got.isna().all()


@pytest.mark.parametrize("experiment,override,match", [
    ("c9_domain", "baselines.fully_private.T=1", "fully_private"),
    ("c10_homogeneity", "baselines.semi_private.labels=public", "semi_private"),
    ("real_breast_cancer", "baselines.dp_logistic.data_norm=-1", "dp_logistic"),
    ("real_breast_cancer", "population.features=[nope]", "population"),
    # real records: the histogram memo would write functions of the private examples to disk
    ("real_breast_cancer", "learner.histogram_memo=/tmp/memo", "histogram_memo='/tmp/memo' "
     "would write score histograms of G computed from the private examples to disk"),
    ("c9_domain", "population.support=0", "population"),
])
def test_bad_baseline_or_population_values_fail_before_work(experiment, override, match, tmp_path):
    cfg = _compose([f"experiment={experiment}", override, f"results_root={tmp_path}"])
    with pytest.raises(ValueError, match=match):
        pipeline.validate_config(cfg)
    assert not (tmp_path / "cache").exists()


def test_unlabelled_sample_hook(tmp_path, monkeypatch):
    """n_unlabelled: a separate unlabelled sample reaches fit(X_unlabelled=...); unset, cell
    keys are those of a spec without the key (caches of older experiments stay valid)."""
    spec = pipeline.validate_config(_compose([]))
    assert spec["n_unlabelled"] is None
    no_key = {k: v for k, v in spec.items() if k != "n_unlabelled"}
    assert seeding.cell_key(spec) == seeding.cell_key(no_key)
    from ppm.semi_supervised import GenericLearner
    seen, orig = [], GenericLearner.fit

    def fit(self, X, y, public=None, X_unlabelled=None):
        seen.append(len(X_unlabelled))
        return orig(self, X, y, public, X_unlabelled)

    monkeypatch.setattr(GenericLearner, "fit", fit)
    cfg = _compose(["experiment=c13_generic_domain", *_tiny(tmp_path), "n_unlabelled=37"])
    df = pipeline.run(cfg)
    assert seen == [37, 37, 37]
    assert (df["n_unlabelled"] == 37).all()
    generic = df[df["learner"] == "GenericLearner"]
    assert (generic["n_label_queries"] == 12).all()
    spec37 = pipeline.validate_config(cfg)
    assert seeding.cell_key(spec37) != seeding.cell_key({**spec37, "n_unlabelled": 38})
