"""GPU batches: a YAML file of experiments and Hydra overrides, its H100 estimate and its run.

A batch file (``batches/gpu/<name>.yaml``, docs/gpu.md "GPU batches")::

    # what it is for, one or two lines
    name: c4_wpub06_d3_tail
    experiments:
      - experiment: c4_wpub06_d3
        overrides: ["learner.epsilon=1.0,2.0", "n=576,512,480", "trials=100"]

A batch of C4's exact privacy price (``configs/c4_price.yaml``: whole score histograms, no
sweep) names the dimensions instead of experiments::

    name: c4_price_d4
    price:
      dims: [4]

An override with commas is a sweep over its values (Hydra's multirun: the experiment's own
``hydra.sweeper.params`` first, an override of one of its keys replacing that key's values in
place, cells the Cartesian product in key order). :func:`load` checks the file and
:func:`cells` composes and validates every cell (:func:`experiments.pipeline.validate_config`)
with the runner's own settings (:func:`runner_overrides`); either raises :class:`BatchError`
with one line naming the value, before any work. :func:`experiments.cost.estimate` prices the
cells in run order; :func:`run_command` is the multirun that computes them. Running a batch (the
multiruns, their aggregation, a price batch's table) is :mod:`analysis.gpu_batch_run`: it needs
the analysis layer.

The runner's settings (``results_root``, ``n_jobs``, ``learner.device``,
``learner.max_hypotheses``, ``hydra.*``) are execution-only: no cell key or seed depends on them
(experiments/seeding.py), so the trials are the CPU's. A batch file may not set them.
"""

from __future__ import annotations

import difflib
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from hydra.core.override_parser.overrides_parser import OverridesParser

from experiments import cache, columns, cost, seeding

REPO = Path(__file__).resolve().parent.parent
BATCH_DIR = REPO / "batches" / "gpu"
EXPERIMENT_DIR = REPO / "configs" / "experiment"
BUDGET_MINUTES = 30.0
WORKERS = 8
MAX_HYPOTHESES = 1e14
TOP_KEYS = ("name", "experiments", "price")
PRICE_KEYS = ("dims",)
ENTRY_KEYS = ("experiment", "overrides")
# keys the runner sets (execution-only); a batch may not override them
RUNNER_KEYS = ("experiment", "results_root", "n_jobs", "learner.device",
               "learner.max_hypotheses")
_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


class BatchError(ValueError):
    """A bad batch file: one line naming the value."""


def _check_mapping(data, allowed: tuple[str, ...], what: str, shown: str) -> None:
    """``data`` is a mapping whose keys are all in ``allowed``; else one ``BatchError`` line."""
    if not isinstance(data, dict):
        raise BatchError(f"{what} must be a mapping with keys {', '.join(allowed)}, got {shown}")
    for key in data:
        if key not in allowed:
            raise BatchError(f"{what}: unknown key {key!r} (allowed: {', '.join(allowed)})")


@dataclass
class Entry:
    experiment: str
    overrides: list[str]


@dataclass
class Batch:
    path: Path
    name: str
    entries: list[Entry]
    price_dims: tuple[int, ...] = ()  # a price batch: these d of configs/c4_price.yaml


def _key(override: str) -> str:
    return override.lstrip("+~").split("=", 1)[0]


def load(path) -> Batch:
    """Read and check a batch file (keys, experiment configs, override syntax)."""
    import yaml

    path = Path(path)
    where = str(path)
    if not path.is_file():
        raise BatchError(f"{where}: no such batch file")
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" (line {mark.line + 1})" if mark is not None else ""
        raise BatchError(f"{where}: not valid YAML{at}: {getattr(exc, 'problem', exc)}") from None
    _check_mapping(data, TOP_KEYS, f"{where}: a batch file", type(data).__name__)
    name = data.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise BatchError(f"{where}: name must be a word of letters, digits, '_', '.', '-', "
                         f"got {name!r}")
    if "price" in data:
        return Batch(path, name, [], _price_dims(data, where))
    items = data.get("experiments")
    if not isinstance(items, list) or not items:
        raise BatchError(f"{where}: experiments must be a non-empty list, got {items!r}")
    entries = []
    parser = OverridesParser.create()
    for i, item in enumerate(items):
        at = f"{where}: experiments[{i}]"
        _check_mapping(item, ENTRY_KEYS, at, repr(item))
        exp = item.get("experiment")
        if not isinstance(exp, str) or not exp:
            raise BatchError(f"{at}: experiment must be a config name, got {exp!r}")
        if not (EXPERIMENT_DIR / f"{exp}.yaml").is_file():
            names = sorted(p.stem for p in EXPERIMENT_DIR.glob("*.yaml"))
            close = difflib.get_close_matches(exp, names, n=3, cutoff=0.6)
            hint = f"did you mean {' or '.join(close)}?" if close else "ls configs/experiment"
            raise BatchError(f"{at}: no config configs/experiment/{exp}.yaml: {hint}")
        overrides = item.get("overrides", [])
        if not isinstance(overrides, list) or not all(isinstance(o, str) for o in overrides):
            raise BatchError(f"{at} ({exp}): overrides must be a list of strings such as "
                             f"\"n=480,512\", got {overrides!r}")
        for o in overrides:
            try:
                parser.parse_overrides([o])
            except Exception as exc:
                msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                raise BatchError(f"{at} ({exp}): bad override {o!r}: {msg}") from None
            if "=" not in o:
                raise BatchError(f"{at} ({exp}): override {o!r} sets no value (key=value)")
            key = _key(o)
            if key in RUNNER_KEYS or key == "hydra" or key.startswith(("hydra.", "hydra/")):
                raise BatchError(f"{at} ({exp}): override {o!r}: {key} is set by the runner "
                                 f"(execution-only), not by a batch")
        keys = [_key(o) for o in overrides]
        dup = next((k for k in keys if keys.count(k) > 1), None)
        if dup is not None:
            raise BatchError(f"{at} ({exp}): {dup} is overridden twice")
        entries.append(Entry(exp, epsilon_first(overrides)))
    return Batch(path, name, entries)


def _price_dims(data: dict, where: str) -> tuple[int, ...]:
    """The dimensions of a price batch (no ``experiments`` beside it)."""
    if "experiments" in data:
        raise BatchError(f"{where}: a batch has either experiments or price, not both")
    price = data["price"]
    _check_mapping(price, PRICE_KEYS, f"{where}: price", repr(price))
    dims = price.get("dims")
    if (not isinstance(dims, list) or not dims
            or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 1 for d in dims)):
        raise BatchError(f"{where}: price.dims must be a non-empty list of dimensions >= 1, "
                         f"got {dims!r}")
    return tuple(dims)


#: where a price batch writes its rows under its results root (analysis.mechanism_price.CSV_GPU)
PRICE_CSV_GPU = "c4_dimension/privacy_price_gpu.csv"


def epsilon_first(overrides: list[str]) -> list[str]:
    """``learner.epsilon`` first (cells run epsilon by epsilon: the memo is reused)."""
    return sorted(overrides, key=lambda o: _key(o) != "learner.epsilon")


def default_out(batch: Batch) -> Path:
    """The scratch root a batch runs into: ``results/local/gpu/<name>`` (never committed)."""
    return REPO / "results" / "local" / "gpu" / batch.name


def runner_overrides(out, device: str = "cuda", workers: int = WORKERS) -> list[str]:
    """The execution-only settings of a batch run (no cell key or seed depends on them)."""
    return [f"results_root={out}", f"n_jobs={workers}", f"learner.device={device}",
            f"learner.max_hypotheses={MAX_HYPOTHESES:g}"]


def run_command(entry: Entry, out, device: str = "cuda", workers: int = WORKERS,
                index: int = 0) -> list[str]:
    """The multirun of one batch entry (run it with ``sys.executable`` from the repository)."""
    out = Path(out)
    return [sys.executable, "-m", "experiments.run", "--multirun",
            f"experiment={entry.experiment}", f"results_root={out}",
            f"hydra.sweep.dir={out / 'outputs' / entry.experiment}",
            f"hydra.sweep.subdir={index}_${{hydra.job.num}}",
            "hydra.launcher.n_jobs=1", f"n_jobs={workers}", f"learner.device={device}",
            f"learner.max_hypotheses={MAX_HYPOTHESES:g}", *entry.overrides]


def _one_line(exc: BaseException) -> str:
    from experiments.run import missing_option, one_line

    return missing_option(exc) or one_line(exc)


def cells(batch: Batch, out, device: str = "cuda", workers: int = WORKERS) -> list[cost.Cell]:
    """Every cell of the batch in run order, composed with the runner's settings and validated
    (:class:`BatchError` naming the cell and the value on the first bad one)."""
    from experiments.pipeline import validate_config

    extra = runner_overrides(out, device, workers)
    found: list[cost.Cell] = []
    with cost.hydra_ctx():
        for i, entry in enumerate(batch.entries):
            at = f"{batch.path}: experiments[{i}] ({entry.experiment})"
            try:
                entry_cells = cost.experiment_cells(entry.experiment, entry.overrides, extra)
            except Exception as exc:
                raise BatchError(f"{at}: {_one_line(exc)}") from None
            for cell in entry_cells:
                try:
                    validate_config(cell.spec)
                except (ValueError, TypeError) as exc:
                    raise BatchError(f"{at} [{' '.join(cell.shown)}]: {exc}") from None
            found += entry_cells
    return found


def cached_trials(cell: cost.Cell) -> int:
    """How many of a cell's trials are already in its trial cache (``<results_root>/cache``)."""
    cell_dir = Path(cell.spec["results_root"]).resolve() / "cache" / seeding.cell_key(cell.spec)
    return cache.count(cell_dir, cell.trials)


def committed_execution_values(found: list[cost.Cell]) -> dict[str, dict[str, dict]]:
    """Per cell key, per row label: the execution-only columns as ``make reproduce`` writes them
    (the experiment's config with the cell's own overrides, without the runner's settings and
    with the default ``results_root``: ``learner.device``, ``learner.max_hypotheses``,
    ``learner.histogram_memo``, ...). A batch's rows carry these, so that they sit next to the
    CPU rows of ``results/<exp>/trials.csv`` as if computed there (needs :func:`cost.hydra_ctx`)."""
    runner = {_key(o) for o in runner_overrides("x")}
    out: dict[str, dict[str, dict]] = {}
    for cell in found:
        spec = seeding.to_container(cost.compose_cell(
            [o for o in cell.overrides if _key(o) not in runner or _key(o) == "experiment"]))
        key = seeding.cell_key(spec)
        if key != seeding.cell_key(cell.spec):  # the runner's keys are execution-only
            raise RuntimeError(f"cell key of {cell.shown} depends on the runner's settings")
        per_label = {}
        ests = [(spec["learner"], columns.MAIN)] + [
            (cfg, columns.owner_prefix(name, False))
            for name, cfg in sorted((spec.get("baselines") or {}).items())]
        for i, (est_cfg, prefix) in enumerate(ests):
            label = columns.learner_label(est_cfg["_target_"]) if i == 0 else prefix.split(".")[1]
            per_label[label] = {f"{prefix}{p}": est_cfg[p]
                                for p in seeding.execution_params(est_cfg) if p in est_cfg}
        out[key] = per_label
    return out


def as_committed(df, values: dict[str, dict[str, dict]]):
    """``df`` (a job's or a batch's trials table) with its execution-only columns set to
    ``values`` (:func:`committed_execution_values`)."""
    df = df.copy()
    for key, per_label in values.items():
        for label, cols in per_label.items():
            rows = (df["cell_key"].astype(str) == key) & (df["learner"] == label)
            for col, value in cols.items():
                if col in df.columns and isinstance(value, str) and df[col].dtype != object:
                    df[col] = df[col].astype(object)
                df.loc[rows, col] = value
    return df


def rewrite_jobs(sweep_dir, values: dict[str, dict[str, dict]]) -> int:
    """Set the execution-only columns of every job table ``<sweep_dir>/*/trials.csv`` to
    ``values`` (:func:`as_committed`) before they are aggregated; returns the tables written."""
    import pandas as pd

    from ppm.files import write_csv_atomic

    jobs = sorted(Path(sweep_dir).glob("*/trials.csv"))
    for job in jobs:
        df = pd.read_csv(job, low_memory=False, dtype={"cell_key": str})
        write_csv_atomic(as_committed(df, values), job)
    return len(jobs)


def format_estimate(found: list[cost.Cell]) -> list[str]:
    """The estimate table (one line per cell) and the total."""
    lines = [f"{'experiment':<22} {'overrides':<44} {'trials':>6} {'E|G|/fit':>9} "
             f"{'sum |G|':>9} {'scored':>9} {'H100 s':>8}"]
    for c in found:
        note = ""
        if c.max_hypotheses > MAX_HYPOTHESES:
            note = f"  (largest |G| {c.max_hypotheses:.3g} > max_hypotheses {MAX_HYPOTHESES:g})"
        elif c.scored_hypotheses == 0 and c.sum_hypotheses:
            note = "  (memo: histograms of an earlier cell)"
        lines.append(f"{c.experiment:<22} {' '.join(c.shown):<44} {c.trials:>6} "
                     f"{c.sum_hypotheses / max(c.trials, 1):>9.3g} {c.sum_hypotheses:>9.3g} "
                     f"{c.scored_hypotheses:>9.3g} {c.seconds:>8.1f}{note}")
    total = sum(c.seconds for c in found)
    lines.append(f"total: {len(found)} cells, {sum(c.trials for c in found)} trials, "
                 f"{total / 60:.1f} H100-minutes (budget {BUDGET_MINUTES:g}; model: "
                 f"experiments/cost.py)")
    return lines


def estimate_minutes(path, out=None) -> tuple[float, list[cost.Cell]]:
    """H100-minutes of a batch file, and its priced cells."""
    batch = load(path)
    found = cells(batch, out if out is not None else default_out(batch))
    return cost.estimate(found) / 60, found
