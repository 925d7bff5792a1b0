"""One cell of a sweep: ``run(cfg) -> DataFrame`` with one row per (trial, learner).

A *cell* is one point of a sweep (population, n, learner and baselines). Every trial draws a
sample from the population, fits the learner and every baseline on that same sample, and
measures each one's true error on a fresh test sample (the same test sample for all of them,
so comparisons are paired).

Reproducible by construction: every random draw comes from a seed derived from the config and
the trial index (:mod:`experiments.seeding`: the seed and cell-key contract), so results do not
depend on ``n_jobs``, on the launcher, on the device or on which other cells run, and the
learner and the baselines see the same samples.

Columns: each parameter once, under the config entry that owns it (``population.*``,
``learner.*`` on the main learner's rows, ``baselines.<label>.*`` on a baseline's rows), see
:mod:`experiments.columns`.

Resumable: each finished trial is stored atomically in the cell's trial store
(:mod:`experiments.cache`: one SQLite file per cell, one transaction per trial); a rerun loads
the trials already there and computes only the missing ones, so an interrupted sweep loses
nothing it had finished.
"""

from __future__ import annotations

import inspect
import json
import math
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numba
import pandas as pd
from hydra.utils import get_class, instantiate
from joblib import Parallel, delayed
from threadpoolctl import threadpool_limits
from tqdm.auto import tqdm

from experiments import cache, columns, seeding
from experiments.lifecycle import die_with_parent
from ppm.diagnostics import empirical_error
from ppm.populations import check_population, is_synthetic
from ppm.validation import NoPublicExamplesWarning, check_open_unit, check_positive_int

def estimators(spec: dict) -> list[tuple[str, dict]]:
    """The cell's estimators as ``(row label, config)``: the main learner first, then the
    baselines by name (the labels the trials CSV's ``learner`` column carries)."""
    learner = spec["learner"]
    out = [(columns.learner_label(learner["_target_"]), learner)]
    for name, est_cfg in sorted((spec.get("baselines") or {}).items()):
        if not isinstance(est_cfg, dict) or "_target_" not in est_cfg:
            raise ValueError(f"baselines.{name} must be a mapping with a _target_, got {est_cfg!r}")
        out.append((name, est_cfg))
    labels = [label for label, _ in out]
    if len(set(labels)) != len(labels):
        raise ValueError(f"learner and baseline names must be distinct, got {labels}")
    return out


def build_estimator(est_cfg: dict, random_state, population):
    """Instantiate an estimator, passing ``random_state`` only where the class takes one, and
    ``allow_private_on_disk`` (a data parameter, never configured) as the population's
    ``synthetic`` flag, so that a histogram memo is refused on real records."""
    cls = get_class(est_cfg["_target_"])
    kwargs = {}
    if "random_state" in inspect.signature(cls).parameters:
        kwargs["random_state"] = random_state
    if "allow_private_on_disk" in getattr(cls, "_data_params", ()):
        kwargs["allow_private_on_disk"] = is_synthetic(population)
    return instantiate(est_cfg, **kwargs)


def validate_config(cfg) -> dict:
    """Check every value of a cell's config; raise ``ValueError`` before any work starts."""
    spec = seeding.to_container(cfg)
    for key in ("n", "trials", "n_test", "threads"):
        check_positive_int(spec[key], key)
    check_positive_int(spec["seed"], "seed", minimum=0)
    if spec.get("n_unlabelled") is not None:
        check_positive_int(spec["n_unlabelled"], "n_unlabelled")
    n_jobs = spec["n_jobs"]
    if not isinstance(n_jobs, int) or n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs must be a positive int or -1, got {n_jobs!r}")
    analysis = spec["analysis"]
    if not analysis["alphas"]:
        raise ValueError("analysis.alphas must not be empty")
    for a in analysis["alphas"]:
        check_open_unit(a, "analysis.alphas")
    check_open_unit(analysis["beta"], "analysis.beta")
    check_open_unit(analysis["confidence"], "analysis.confidence")
    if "w_pub" in spec["population"]:  # a PPM experiment needs both sub-populations
        check_open_unit(spec["population"]["w_pub"], "population.w_pub")
    check_writable_dir(spec["results_root"], "results_root")
    try:
        population = check_population(instantiate(spec["population"]))
    except Exception as exc:  # hydra wraps constructor errors; surface the message
        raise ValueError(f"invalid population config (population.*): {_root_message(exc)}") from exc
    for label, est_cfg in estimators(spec):
        where = "learner" if est_cfg is spec["learner"] else f"baselines.{label}"
        try:
            est = build_estimator(est_cfg, random_state=0, population=population)
        except Exception as exc:
            raise ValueError(f"invalid config for {where}.*: {_root_message(exc)}") from exc
        if hasattr(est, "_validate_params"):  # every learner's one validation entry point
            try:
                est._validate_params()
            except ValueError as exc:
                raise ValueError(f"invalid config for {where}.*: {exc}") from exc
    return spec


def check_writable_dir(path, name: str) -> None:
    """``path`` is, or can be created as, a directory this process can write into."""
    p = Path(str(path)).expanduser().absolute()
    existing = p
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise ValueError(f"{name} must be a writable directory, got {str(path)!r} "
                         f"({existing} is not a directory)")
    # os.access alone is not enough (root, read-only mounts): try a file, then remove it.
    try:
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as exc:
        raise ValueError(f"{name} must be a writable directory, got {str(path)!r} "
                         f"({existing}: {exc.strerror})") from exc


def _root_message(exc: BaseException) -> str:
    while exc.__cause__ is not None:
        exc = exc.__cause__
    return str(exc)


def _flatten(prefix: str, params: dict) -> dict:
    return {f"{prefix}{k}": v for k, v in params.items() if k != "_target_"}


def _owners(spec: dict) -> list[tuple[str, str]]:
    """(label, column prefix) of every learner of a cell: ``learner.`` for the main learner,
    ``baselines.<label>.`` for a baseline (experiments/columns.py: each parameter once)."""
    return [(label, columns.owner_prefix(label, i == 0))
            for i, (label, _) in enumerate(estimators(spec))]


def run_trial(spec: dict, trial: int) -> pd.DataFrame:
    """Draw one sample, fit the learner and every baseline, measure true errors."""
    # One knob for both thread pools (BLAS in the blocked scorer, numba in the bitset scorer).
    numba.set_num_threads(min(spec["threads"], numba.config.NUMBA_NUM_THREADS))
    with threadpool_limits(limits=spec["threads"]):
        population = check_population(instantiate(spec["population"]))
        X, y, public = population.sample(
            spec["n"], random_state=seeding.stream_seed(spec, trial, seeding.SAMPLE))
        opt = population.opt()
        # A separate unlabelled sample from its own seed stream (X only), for learners whose fit
        # takes X_unlabelled (BNS15's).
        X_unl = None
        if spec.get("n_unlabelled") is not None:
            X_unl = population.sample(spec["n_unlabelled"], random_state=seeding.stream_seed(
                spec, trial, seeding.UNLABELLED))[0]
        # Paired excess error: the rule attaining OPT scored on the same test sample, so
        # err_test(h) - err_test(h_opt) is unbiased for err(h) - OPT with variance only from
        # where h and h_opt disagree (exactly err_test(h) when realizable: h_opt errs nowhere).
        test_seed = seeding.stream_seed(spec, trial, seeding.TEST)
        opt_test = math.nan
        if hasattr(population, "opt_predict"):
            if getattr(population, "realizable", False):
                opt_test = 0.0  # the target errs nowhere: no second pass over the test sample
            else:
                opt_test, _ = population.true_error(population.opt_predict,
                                                    n_test=spec["n_test"],
                                                    random_state=test_seed)
        rows = []
        owned = dict(_owners(spec))
        for label, est_cfg in estimators(spec):
            learner_seed = seeding.learner_seed(spec, trial, label, est_cfg)
            est = build_estimator(est_cfg, random_state=learner_seed, population=population)
            t0 = time.perf_counter()
            takes_unl = "X_unlabelled" in inspect.signature(est.fit).parameters
            with warnings.catch_warnings():
                # the smallest cells draw an all-private sample now and then, by design
                warnings.simplefilter("ignore", NoPublicExamplesWarning)
                est.fit(X, y, public, **({"X_unlabelled": X_unl} if takes_unl and X_unl is not None
                                         else {}))
            fit_seconds = time.perf_counter() - t0
            # Same test sample for every learner of this trial: paired comparison.
            err, se = population.true_error(est.predict, n_test=spec["n_test"],
                                            random_state=test_seed)
            n_hyp = getattr(est, "n_hypotheses_", None)
            rows.append({
                "trial": trial,
                "learner": label,
                "n": spec["n"],
                "n_pub": int(public.sum()),
                "n_priv": int((~public).sum()),
                "error": float(err),
                "error_se": float(se),
                "opt": float(opt),
                "excess_error": float(err - (opt if math.isnan(opt_test) else opt_test)),
                "opt_test": float(opt_test),
                "train_error": empirical_error(est, X, y),  # NOT private (ppm.diagnostics)
                "n_halfspaces": getattr(est, "n_halfspaces_", math.nan),
                "n_hypotheses": float(n_hyp) if n_hyp is not None else math.nan,
                "log_n_hypotheses": math.log(n_hyp) if n_hyp else math.nan,
                "fit_seconds": fit_seconds,
                "n_unlabelled": spec.get("n_unlabelled"),
                "n_label_queries": getattr(est, "n_label_queries_", math.nan),
                "n_pool": getattr(est, "n_pool_", math.nan),
                "n_test": spec["n_test"],
                "seed": spec["seed"],
                "learner_seed": learner_seed,
                **_flatten(columns.POPULATION, spec["population"]),
                # a population without a d parameter still has a dimension: one name for it
                **({} if "d" in spec["population"] else {columns.D: population.d}),
                **_flatten(owned[label], est_cfg),  # learner.* or baselines.<label>.*
            })
    return columns.order_columns(pd.DataFrame(rows))


def _run_and_store(spec: dict, trial: int, cell_dir: str) -> int:
    cache.write_trial(run_trial(spec, trial), Path(cell_dir), trial)
    return trial


def _run_and_store_in_worker(spec: dict, trial: int, cell_dir: str, parent: int) -> int:
    die_with_parent(parent)  # a loky worker never outlives the cell that started it
    return _run_and_store(spec, trial, cell_dir)


def run(cfg) -> pd.DataFrame:
    """Run (or resume) one cell; return its tidy trials table, one row per (trial, learner)."""
    spec = validate_config(cfg)
    key = seeding.cell_key(spec)
    cell_dir = Path(spec["results_root"]).resolve() / "cache" / key
    cell_dir.mkdir(parents=True, exist_ok=True)
    (cell_dir / "config.json").write_text(json.dumps(spec, sort_keys=True, indent=1, default=str))
    done = cache.finished(cell_dir)  # one query (a cell of the former layout migrated first)
    todo = [t for t in range(spec["trials"]) if t not in done]
    if todo:
        show = spec["progress"] and not os.environ.get("CI") and sys.stderr.isatty()
        desc = f"{spec['experiment_name']} n={spec['n']}"
        if spec["n_jobs"] == 1:
            for t in tqdm(todo, desc=desc, disable=not show):
                _run_and_store(spec, t, str(cell_dir))
        else:
            jobs = Parallel(n_jobs=spec["n_jobs"], backend="loky", return_as="generator_unordered")
            results = jobs(delayed(_run_and_store_in_worker)(spec, t, str(cell_dir), os.getpid())
                       for t in todo)
            for _ in tqdm(results, total=len(todo), desc=desc, disable=not show):
                pass
    df = cache.read_trials(cell_dir, range(spec["trials"]))
    # Trials cached by another experiment carry that experiment's execution-only settings
    # (which cannot change a result), or none at all when they were cached before a setting
    # existed; report this run's, so a table never mixes them or splits a curve on them.
    owned = dict(_owners(spec))
    for label, est_cfg in estimators(spec):
        rows = df["learner"] == label
        for param in seeding.execution_params(est_cfg):
            if param in est_cfg:
                col, value = f"{owned[label]}{param}", est_cfg[param]
                # a column read as all-NaN floats (cached with None) takes a path only as object
                if col in df.columns and isinstance(value, str) and df[col].dtype != object:
                    df[col] = df[col].astype(object)
                df.loc[rows, col] = value
    df.insert(0, "experiment_name", spec["experiment_name"])
    df.insert(1, "claim", spec["claim"])
    df["cell_key"] = key
    return df
