"""Hydra callback: validate every job of a multirun before the launcher starts any of them.

Hydra's sweeper already composes every job before launching (so unknown keys and wrong types
fail early); this adds the value checks of :func:`experiments.pipeline.validate_config`
(epsilon > 0, w_pub in [0, 1], d >= 1, alphas in (0, 1), ...) for every combination, so a bad
value in one cell stops the whole sweep before any work starts.
"""

from __future__ import annotations

import logging

from hydra import compose
from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.experimental.callback import Callback
from omegaconf import DictConfig

from experiments.pipeline import validate_config

log = logging.getLogger(__name__)


def sweep_job_overrides(config: DictConfig) -> list[list[str]]:
    """The override list of every job, expanded the way Hydra's BasicSweeper expands them."""
    params = [f"{k}={v}" for k, v in (config.hydra.sweeper.get("params") or {}).items()]
    params += list(config.hydra.overrides.task)
    overrides = OverridesParser.create().parse_overrides(params)
    (batch,) = BasicSweeper.split_arguments(overrides, None)
    return [[o for o in job if not o.lstrip("+~").startswith("hydra")] for job in batch]


class ValidateSweep(Callback):
    def on_multirun_start(self, config: DictConfig, **kwargs) -> None:
        jobs = sweep_job_overrides(config)
        for overrides in jobs:
            cfg = compose(config_name=config.hydra.job.config_name, overrides=overrides)
            try:
                validate_config(cfg)
            except ValueError as exc:
                # Hydra turns an Exception raised in a callback into a warning and goes on;
                # SystemExit is not caught, so the sweep stops here, before any job starts.
                raise SystemExit(f"Invalid sweep job [{' '.join(overrides)}]: {exc}") from exc
        log.info("validated %d sweep jobs", len(jobs))
