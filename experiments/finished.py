"""A sweep whose every cell is complete in the trial cache is not launched.

``make reproduce`` runs every sweep through Hydra (``scripts/run_sweeps.py``): a start-up, the
validation of every cell, the launcher's workers (or a SLURM array) and one job per cell, which
then finds all its trials in the cache and only writes its ``trials.csv``. When every cell of a
sweep is complete in its store, :func:`write_finished` does that last step itself, in the
calling process: the cells are composed as the sweep's callback composes them
(:class:`experiments.callbacks.ValidateSweep`: one composition, plain value overrides patched
into it), validated (:func:`experiments.pipeline.validate_config`), each store is asked for its
trial count (one query per cell), and if none is short every job directory gets what Hydra's job
would write there for the aggregation: ``<sweep dir>/<job number>/trials.csv`` from
:func:`experiments.pipeline.run` (which reads the store and computes nothing) and
``.hydra/config.yaml``. The job numbers are Hydra's (:func:`experiments.cost.expand_sweep`:
the basic sweeper's order). Anything unusual (a sweep that is not complete, a cell that fails
to compose or validate, a job sub-directory other than the job number) returns ``None`` before
anything is written, and the sweep is launched as before.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from omegaconf import OmegaConf

SUBDIR = "${hydra.job.num}"


def _key(override: str) -> str:
    return override.lstrip("+~").split("=", 1)[0]


def sweep_cells(task: list[str]) -> list[tuple[list[str], object]] | None:
    """``(job overrides, job config)`` of every job of ``--multirun <task>``, in Hydra's order
    (needs :func:`experiments.cost.hydra_ctx`); ``None`` if the sweep's job directories would
    not be named by the job number."""
    from experiments import cost
    from experiments.callbacks import apply_value_overrides

    plain = [o for o in task if "," not in o.split("=", 1)[-1] and not o.startswith("hydra")]
    full = cost.compose_cell(plain, return_hydra_config=True)
    if OmegaConf.to_container(full.hydra.sweep, resolve=False).get("subdir") != SUBDIR:
        return None
    params = OmegaConf.to_container(full.hydra.sweeper.params) or {}
    base = cost.compose_cell(plain)
    cells = []
    for job in cost.expand_sweep(params, task):
        cfg = None
        if all(not o.startswith(("+", "~")) for o in job):
            cfg = apply_value_overrides(base, [o for o in job if o not in plain])
        if cfg is None:
            cfg = cost.compose_cell(job)
        cells.append((job, cfg))
    return cells


def missing_trials(cells) -> int:
    """How many trials of these cells are not in their stores (each cell validated)."""
    from experiments import cache, seeding
    from experiments.pipeline import validate_config

    missing = 0
    for _, cfg in cells:
        spec = validate_config(cfg)
        cell_dir = Path(spec["results_root"]).resolve() / "cache" / seeding.cell_key(spec)
        missing += spec["trials"] - cache.count(cell_dir, spec["trials"])
    return missing


def write_finished(task: list[str], sweep_dir) -> int | None:
    """If every cell of ``--multirun <task>`` is complete in the trial cache, write each job's
    ``trials.csv`` and ``.hydra/config.yaml`` under ``sweep_dir`` and return the number of
    cells; otherwise (or if anything is unusual) write nothing and return ``None``."""
    from experiments import cost
    from experiments.pipeline import run

    try:
        with cost.hydra_ctx():
            cells = sweep_cells(task)
            if not cells or missing_trials(cells):
                return None
    except Exception:  # the sweep itself says what is wrong
        return None
    sweep_dir = Path(sweep_dir)
    try:
        for num, (job, cfg) in enumerate(cells):
            out = sweep_dir / str(num)
            (out / ".hydra").mkdir(parents=True, exist_ok=True)
            OmegaConf.save(cfg, out / ".hydra" / "config.yaml")
            OmegaConf.save(OmegaConf.create(list(job)), out / ".hydra" / "overrides.yaml")
            run(cfg).to_csv(out / "trials.csv", index=False)
    except Exception:  # e.g. trials forgotten meanwhile: the sweep computes them
        shutil.rmtree(sweep_dir, ignore_errors=True)
        return None
    return len(cells)
