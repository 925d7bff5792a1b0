"""Hydra callback: validate every job of a multirun before the launcher starts any of them,
then report progress as cells finish.

Hydra's sweeper already composes every job before launching (so unknown keys and wrong types
fail early); this adds the value checks of :func:`experiments.pipeline.validate_config`
(epsilon > 0, w_pub in (0, 1), d >= 1, alphas in (0, 1), a writable results_root, ...) for every
combination and the launcher's ``n_jobs``, so a bad value in one cell stops the whole sweep
before any work starts.

Progress: every finished cell prints one line (cells done / total, elapsed, ETA) to stderr, the
same on a terminal, in a CI log or in a SLURM job's log. Cells count each other through marker
files in ``<sweep dir>/.progress/``, which works across processes and nodes alike.
"""

from __future__ import annotations

import copy
import itertools
import logging
import os
import sys
import time
from pathlib import Path

from hydra import compose
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.experimental.callback import Callback
from omegaconf import DictConfig, OmegaConf, open_dict

from experiments import lifecycle
from experiments.pipeline import validate_config

log = logging.getLogger(__name__)


def _base_overrides(config: DictConfig) -> list[str]:
    """The command-line overrides that are not swept (same for every job)."""
    swept = set((config.hydra.sweeper.get("params") or {}).keys())
    out = []
    for o in config.hydra.overrides.task:
        key = o.lstrip("+~").split("=", 1)[0]
        if "," in o.split("=", 1)[-1] or key in swept or key.startswith("hydra"):
            continue
        out.append(o)
    return out


def _sweep_only(config: DictConfig, overrides: list[str]) -> list[str]:
    """A job's overrides minus those already in the base composition."""
    base = set(_base_overrides(config))
    return [o for o in overrides if o not in base]


def sweep_job_overrides(config: DictConfig) -> list[list[str]]:
    """The override list of every job, expanded the way Hydra's BasicSweeper expands them.

    BasicSweeper.split_arguments lives in ``hydra._internal`` (no public API), so its rule is
    restated here with the public override parser: one value list per key (a later override of
    a key replaces an earlier one: the command line beats ``hydra.sweeper.params``), discrete
    sweeps expanded, and the Cartesian product in key order.
    """
    params = [f"{k}={v}" for k, v in (config.hydra.sweeper.get("params") or {}).items()]
    params += list(config.hydra.overrides.task)
    per_key: dict[str, list[str]] = {}
    for o in OverridesParser.create().parse_overrides(params):
        key = o.get_key_element()
        if o.is_sweep_override():
            if not o.is_discrete_sweep():
                raise ValueError(f"{o.input_line}: only discrete sweeps (a,b,c) are supported")
            per_key[key] = [f"{key}={v}" for v in o.sweep_string_iterator()]
        else:
            per_key[key] = [f"{key}={o.get_value_element_as_str()}"]
    batch = [list(job) for job in itertools.product(*per_key.values())]
    return [[o for o in job if not o.lstrip("+~").startswith("hydra")] for job in batch]


def apply_value_overrides(base: DictConfig, overrides: list[str]) -> DictConfig | None:
    """``base`` with ``overrides`` applied, if every one sets a leaf value; else ``None``.

    Composing a config costs ~0.2 s, and Hydra composes every job anyway; for the common sweep
    over plain values (n, epsilon, d, ...) patching a copy of the already composed config gives
    the same job config without a second composition. Group choices (``population=...``),
    additions and deletions fall back to a full ``compose``.
    """
    cfg = copy.deepcopy(base)
    with open_dict(cfg):
        cfg.pop("hydra", None)
    for ov in OverridesParser.create().parse_overrides(overrides):
        key = ov.key_or_group
        if ov.is_add() or ov.is_delete() or ov.package is not None:
            return None
        node = OmegaConf.select(cfg, key, default=_MISSING)
        if node is _MISSING or OmegaConf.is_config(node):
            return None  # a config group choice or an unknown key: compose handles it
        OmegaConf.update(cfg, key, ov.value(), merge=False)
    return cfg


_MISSING = object()


def _one_line(exc: BaseException) -> str:
    """The first line of ``exc``'s message (omegaconf appends ``full_key:``/``object_type`` lines)."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _check_launcher(config: DictConfig) -> None:
    n_jobs = config.hydra.launcher.get("n_jobs", 1)
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0 or n_jobs < -1:
        raise SystemExit(f"hydra.launcher.n_jobs must be a positive int or -1 (parallel cells), "
                         f"got {n_jobs!r}")


def _hms(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def _progress_dir(config: DictConfig) -> Path:
    return Path(config.hydra.sweep.dir) / ".progress"


class ValidateSweep(Callback):
    def on_multirun_start(self, config: DictConfig, **kwargs) -> None:
        _check_launcher(config)
        jobs = sweep_job_overrides(config)
        base = None
        for overrides in jobs:
            # Hydra turns an Exception raised in a callback into a warning and goes on (the
            # sweep would launch); SystemExit is not caught, so any failure to build or validate
            # a job's config stops the sweep here, before any job starts.
            try:
                cfg = None
                if all(not o.startswith(("+", "~")) for o in overrides):
                    if base is None:
                        base = compose(config_name=config.hydra.job.config_name,
                                       overrides=_base_overrides(config))
                    cfg = apply_value_overrides(base, _sweep_only(config, overrides))
                if cfg is None:
                    cfg = compose(config_name=config.hydra.job.config_name, overrides=overrides)
                validate_config(cfg)
            except Exception as exc:
                raise SystemExit(f"Invalid sweep job [{' '.join(overrides)}]: "
                                 f"{_one_line(exc)}") from exc
        log.info("validated %d sweep jobs", len(jobs))
        progress = _progress_dir(config)
        if progress.exists():
            for marker in progress.glob("*.done"):
                marker.unlink()
        progress.mkdir(parents=True, exist_ok=True)
        (progress / "total").write_text(f"{len(jobs)} {time.time()}")
        lifecycle.SESSION["results_root"] = config.get("results_root")
        os.environ[lifecycle.SWEEP_PID_ENV] = str(os.getpid())

    def on_job_start(self, config: DictConfig, **kwargs) -> None:
        parent = lifecycle.sweep_parent(str(config.hydra.launcher.get("_target_", "")))
        if parent is not None:
            lifecycle.die_with_parent(parent)  # a joblib launcher worker: never outlive the sweep

    def on_job_end(self, config: DictConfig, job_return=None, **kwargs) -> None:
        progress = _progress_dir(config)
        try:
            total, start = (progress / "total").read_text().split()
        except (FileNotFoundError, ValueError):
            return  # a single run
        (progress / f"{config.hydra.job.num}.done").touch()
        done = len(list(progress.glob("*.done")))
        elapsed = time.time() - float(start)
        eta = elapsed / done * (int(total) - done)
        overrides = " ".join(config.hydra.overrides.task)
        status = "failed" if job_return is not None and job_return.status.name == "FAILED" else "done"
        print(f"[{config.experiment_name}] cell {done}/{total} {status} ({overrides}) | "
              f"elapsed {_hms(elapsed)}, ETA {_hms(eta)}", file=sys.stderr, flush=True)

    def on_multirun_end(self, config: DictConfig, **kwargs) -> None:
        print(f"[{config.experiment_name}] sweep finished: trials.csv of every cell under "
              f"{config.hydra.sweep.dir}/<job>/, trial cache under {config.results_root}/cache; "
              f"aggregate with: python -m scripts.aggregate {config.hydra.sweep.dir} "
              f"--out {aggregate_destination(config)}", file=sys.stderr, flush=True)


def aggregate_destination(config: DictConfig) -> str:
    """Where the closing hint tells the user to aggregate a sweep: ``<results_root>/<name>``,
    unless that holds committed results (the default ``results_root: results``); then the
    scratch root ``results/local/<name>`` (not committed), so copying the hint never replaces
    committed results (``experiments/committed.py``: refused without --overwrite-committed)."""
    dest = Path(str(config.results_root)) / str(config.experiment_name)
    try:
        from experiments.committed import is_committed
    except ImportError:  # scripts/ not importable here: always the scratch root
        committed = True
    else:
        committed = is_committed(dest)
    return str(Path("results") / "local" / dest.name) if committed else str(dest)
