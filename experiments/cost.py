"""What a sweep of the exact PPM learner will cost, before running it.

The cost of a PPM fit at d >= 2 is scoring every hypothesis of ``G`` once (docs/model.md §3), and
``|G|`` depends on the trial's ``n_pub`` and ``d`` only. :func:`cell_hypotheses` replays a cell's
trials with the pipeline's own seeds (the sample of trial ``t`` is drawn from
``seeding.stream_seed(spec, t, seeding.SAMPLE)``, exactly as :func:`experiments.pipeline.run_trial`
draws it), so each trial's ``n_pub`` is the one the sweep will draw, and takes ``|G|`` from the
general-position ``|C_pub| = 2 sum_{i<=d} C(n_pub, i)`` (what ConstrHalf returns on these Gaussian
points; ``tests/test_gpu_batch.py`` checks it against the ``n_hypotheses`` the learner reports).
Nothing is fitted: a cell of 100 trials replays in well under a second.

The H100 model (:func:`h100_seconds`; used by ``scripts/gpu_batch.py``):

- **scoring**: ``sum |G| / rate``. The rates were measured on one H100 (``bench_gpu.csv`` of the
  2026-11 GPU run, shared/gpu-runs/2026-11-c4-d3): :data:`H100_RATE_D3` = 3e11 hypotheses/s
  (level 3, d = 3, n = 224..320: 2.1e11-3.1e11) for d >= 3 and :data:`H100_RATE_D2` = 1.2e11
  (level 2, d = 2, n = 1000) for d <= 2. At d >= 3 the rate holds up to
  :data:`H100_FULL_RATE_WORDS` = 6 bitset words (n <= 384) and falls as ``6 / W`` beyond (a
  hypothesis costs ``floor(W/2) + 1`` popcounts and ``W`` loads): the run's n = 512 (8 words)
  and n = 576 (9 words) cells at w_pub = 0.06 fitted at 2.25e11 and 1.93e11 (8 x |G| / summed
  fit seconds), where a flat 3e11 would be 1/3 short. The 8 trial workers share the GPU, so a
  cell's scoring takes its summed ``|G|`` over the rate whatever the number of workers;
- **overhead**: :data:`FIT_OVERHEAD_S` worker-seconds per trial (ConstrHalf and the bitsets on
  the host, the rank pass, launches, the test error on 50,000 points, the cache write), spread
  over :data:`GPU_WORKERS` = 8 workers: ``trials * FIT_OVERHEAD_S / 8`` wall seconds per cell;
- **histogram memo** (``ppm/core/histogram_memo.py``): a learner with ``histogram_memo`` set
  loads the histogram of a sample it has scored before (same population, ``n``, trial and
  seed: the sample is a function of those only, never of epsilon), so a second epsilon on the
  same samples pays the overhead only. :func:`estimate` walks the cells in run order and charges
  the scoring of a trial to the first cell that draws its sample.

**Calibration.** The measured run of the README (C4, d = 3, ``w_pub = 0.1``, epsilon 1,
``n = 240..352``, trials 0..99: 500 fits, 8 workers, an empty memo) summed 5,612 worker-seconds
of fits, 701.5 s of wall time. Its replayed ``sum |G|`` (:func:`calibrate_overhead`) is
2.1834e14, equal to the ``n_hypotheses`` summed over the PPM rows that run wrote: 727.8 s of
scoring at 3e11/s, *more* than the run took, so the overhead derived from it is negative
(-0.42 worker-seconds per fit): that run scored at 3.11e11/s. The overhead is therefore taken
from what that run and the w_pub = 0.06 run measured outside the scoring: the memo-hit fits
(epsilon 10 on the same 500 samples: 42.3 worker-seconds, 0.085 s per fit; epsilons 2, 4, 10 at
w_pub = 0.06: 0.05 s per fit) plus the time outside the fit (the w_pub = 0.06 sweep, 2,800
trials, took about 3 minutes of wall time for 1,025 worker-seconds of fits: ~0.15
worker-seconds per trial): :data:`FIT_OVERHEAD_S` = 0.25. The model against the measured
epsilon-1 batches (wall = summed fit seconds / 8): w_pub = 0.1, n = 240..352: 743 s vs 701.5 s
(+6%); w_pub = 0.06, n = 256..448: 106 s vs 115 s (-8%); w_pub = 0.06, n = 512, 576 (50 trials
each): 325 s vs 330 s (-2%; a flat 3e11/s would say 224 s, -32%).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from hydra.utils import instantiate
from omegaconf import OmegaConf

from experiments import seeding
from ppm.bounds import hypothesis_class_size_from_halfspaces, num_halfspaces_upper

CONFIG_DIR = str(Path(__file__).resolve().parent.parent / "configs")

H100_RATE_D3 = 3e11   # level-3 hypotheses/s, d >= 3 (bench_gpu.csv, 2026-11: 2.1e11-3.1e11)
H100_RATE_D2 = 1.2e11  # level-2 hypotheses/s, d <= 2 (bench_gpu.csv, 2026-11: 1.19e11)
H100_FULL_RATE_WORDS = 6  # d >= 3: 3e11 up to 6 words of 64 examples, 3e11 * 6 / W beyond
# Level >= 4 (d = 4, whole histograms of C4's price design, configs/c4_price.yaml), measured on
# an H100 in one launch (results/bench_gpu.csv, docs/gpu.md): 1.9e11 hypotheses/s at |G| =
# 2.6e11 (n = 192, |C_pub| 1,586) and 2.7e11 at 3.1e12 (n = 160, |C_pub| 2,940); the model takes
# the smaller. (The earlier one-launch-per-prefix kernel scored 6.4e10 on an H200.)
H100_RATE_D4 = 1.9e11
PRICE_SAMPLE_OVERHEAD_S = 0.25  # ConstrHalf and the membership bitsets on the host, per sample
GPU_WORKERS = 8       # trial workers sharing one GPU (n_jobs=8)
FIT_OVERHEAD_S = 0.25  # worker-seconds per trial outside the scoring (module docstring)

# The calibration run (module docstring): experiment, its overrides, measured worker-seconds.
CALIBRATION_EXPERIMENT = "c4_dimension_d3_wpub"
CALIBRATION_OVERRIDES = ("learner.epsilon=1.0", "n=352,320,288,256,240", "trials=100",
                         "population.d=3", "population.w_pub=0.1", "population.margin=0.1")
CALIBRATION_WORKER_SECONDS = 5612.0


def h100_rate(d: int, n: int) -> float:
    """Hypotheses per second of one H100 at dimension ``d`` and sample size ``n``."""
    if d < 3:
        return H100_RATE_D2
    words = -(-int(n) // 64)
    return H100_RATE_D3 * min(1.0, H100_FULL_RATE_WORDS / words)


def h100_seconds(scored_hypotheses: float, fits: int, d: int, n: int,
                 overhead: float = FIT_OVERHEAD_S, workers: int = GPU_WORKERS) -> float:
    """Wall seconds on one H100: the scoring of ``scored_hypotheses`` plus the per-trial
    overhead of ``fits`` trials spread over ``workers``."""
    return scored_hypotheses / h100_rate(d, n) + fits * overhead / workers


def price_seconds(sizes, d: int, n: int) -> float:
    """H100 seconds of C4's price table at dimension ``d``: one whole histogram per sample of
    ``|G| = sizes[i]`` (one process, samples one after another)."""
    rate = H100_RATE_D4 if d >= 4 else h100_rate(d, n)
    return sum(float(s) for s in sizes) / rate + len(sizes) * PRICE_SAMPLE_OVERHEAD_S


def trial_hypotheses(spec: dict, trial: int, population=None) -> tuple[int, int]:
    """``(n_pub, |G|)`` of one trial of a cell, from the pipeline's own sample seed."""
    population = population if population is not None else instantiate(spec["population"])
    _, _, public = population.sample(spec["n"], random_state=seeding.stream_seed(
        spec, trial, seeding.SAMPLE))
    n_pub = int(public.sum())
    d = int(population.d)
    return n_pub, hypothesis_class_size_from_halfspaces(num_halfspaces_upper(n_pub, d), d)


def cell_hypotheses(spec: dict) -> list[int]:
    """``|G|`` of every trial ``0..trials-1`` of a cell (a composed config as a plain dict)."""
    population = instantiate(spec["population"])
    return [trial_hypotheses(spec, t, population)[1] for t in range(spec["trials"])]


def expand_sweep(params: dict, task: list[str]) -> list[list[str]]:
    """The override list of every job of a multirun, in Hydra's run order: the config's
    ``hydra.sweeper.params`` then the command line ``task`` (a later value list of a key
    replaces an earlier one in its place), Cartesian product in key order
    (:func:`experiments.callbacks.sweep_job_overrides`; ``hydra.*`` overrides dropped)."""
    from experiments.callbacks import sweep_job_overrides

    cfg = OmegaConf.create({"hydra": {"sweeper": {"params": dict(params)},
                                      "overrides": {"task": list(task)}}})
    return sweep_job_overrides(cfg)


def compose_cell(overrides: list[str], return_hydra_config: bool = False):
    """One cell's config (Hydra's compose API; needs :func:`hydra_ctx`)."""
    from hydra import compose

    return compose(config_name="config", overrides=list(overrides),
                   return_hydra_config=return_hydra_config)


def hydra_ctx():
    """``initialize_config_dir`` on the project's configs, the structured schemas registered."""
    from hydra import initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    from experiments.schema import register_configs

    register_configs()
    GlobalHydra.instance().clear()
    return initialize_config_dir(config_dir=CONFIG_DIR, version_base="1.3")


def sweep_params(experiment: str, overrides: list[str] = ()) -> dict:
    """The ``hydra.sweeper.params`` of an experiment (``overrides``: non-sweep ones only)."""
    base = compose_cell([f"experiment={experiment}", *overrides], return_hydra_config=True)
    return OmegaConf.to_container(base.hydra.sweeper.params) or {}


# --------------------------------------------------------------------------------------------
# Cells and the memo-aware estimate
# --------------------------------------------------------------------------------------------


@dataclass
class Cell:
    """One cell of a batch, in run order."""
    experiment: str
    overrides: list[str]              # the job's full override list (as the sweep runs it)
    shown: list[str]                  # the overrides worth printing (swept or set by the batch)
    spec: dict                        # the composed config as a plain dict
    sizes: list[int] = field(default_factory=list)   # |G| per trial
    scored: list[bool] = field(default_factory=list)  # whether the trial's scoring is paid here
    seconds: float = 0.0              # H100 wall seconds

    @property
    def d(self) -> int:
        return int(self.spec["population"].get("d", 1))

    @property
    def n(self) -> int:
        return int(self.spec["n"])

    @property
    def trials(self) -> int:
        return int(self.spec["trials"])

    @property
    def sum_hypotheses(self) -> int:
        return sum(self.sizes)

    @property
    def scored_hypotheses(self) -> int:
        return sum(g for g, s in zip(self.sizes, self.scored) if s)

    @property
    def max_hypotheses(self) -> int:
        return max(self.sizes, default=0)


def memo_dir(spec: dict) -> str | None:
    """The histogram memo directory of a cell's learner (``None``: no memo)."""
    memo = (spec.get("learner") or {}).get("histogram_memo")
    return None if memo in (None, "") else str(memo)


def sample_key(spec: dict, trial: int) -> tuple:
    """What a trial's sample (hence its histogram of ``G``) depends on: the trial entropy
    ``(seed, hash(population), n, trial)`` (experiments/seeding.py)."""
    return tuple(seeding.trial_entropy(spec, trial))


def estimate(cells: list[Cell], overhead: float = FIT_OVERHEAD_S,
             workers: int = GPU_WORKERS, memo_seen: set | None = None) -> float:
    """Fill ``sizes``, ``scored`` and ``seconds`` of every cell (in the order given: the run
    order) and return the total H100 seconds. A trial's scoring is charged only to the first
    cell, among those whose learner has a histogram memo, that draws its sample (same
    population, ``n``, trial, seed and memo directory): the later ones load its histogram.
    ``memo_seen`` carries those samples across calls."""
    seen = memo_seen if memo_seen is not None else set()
    total = 0.0
    for cell in cells:
        if not cell.sizes:
            cell.sizes = cell_hypotheses(cell.spec)
        memo = memo_dir(cell.spec)
        cell.scored = []
        for t in range(cell.trials):
            if memo is None:
                cell.scored.append(True)
                continue
            key = (memo, *sample_key(cell.spec, t))
            cell.scored.append(key not in seen)
            seen.add(key)
        cell.seconds = h100_seconds(cell.scored_hypotheses, cell.trials, cell.d, cell.n, overhead,
                                    workers)
        total += cell.seconds
    return total


def experiment_cells(experiment: str, overrides: list[str], extra: list[str] = ()) -> list[Cell]:
    """The cells of ``experiment`` with the batch ``overrides`` (sweeps allowed) and ``extra``
    command-line overrides, in the order the multirun runs them (needs :func:`hydra_ctx`)."""
    plain = [o for o in (*extra, *overrides) if "," not in o.split("=", 1)[-1]
             and not o.startswith("hydra")]
    params = sweep_params(experiment, plain)
    task = [f"experiment={experiment}", *extra, *overrides]
    shown_keys = {*params, *(o.lstrip("+~").split("=", 1)[0] for o in overrides)}
    cells = []
    for job in expand_sweep(params, task):
        cfg = compose_cell(job)
        shown = [o for o in job if o.lstrip("+~").split("=", 1)[0] in shown_keys]
        cells.append(Cell(experiment, job, shown, seeding.to_container(cfg)))
    return cells


def calibrate_overhead(workers: int = GPU_WORKERS) -> dict:
    """Replay the measured run (module docstring): its fits, ``sum |G|``, the model's scoring
    seconds, the measured wall seconds, the per-fit overhead that would make the model equal
    it (``derived_overhead``) and the model's seconds with :data:`FIT_OVERHEAD_S`."""
    with hydra_ctx():
        cells = experiment_cells(CALIBRATION_EXPERIMENT, list(CALIBRATION_OVERRIDES))
    model = estimate(cells, workers=workers)
    fits = sum(c.trials for c in cells)
    scoring = sum(c.sum_hypotheses / h100_rate(c.d, c.n) for c in cells)
    wall = CALIBRATION_WORKER_SECONDS / workers
    return {"fits": fits, "sum_hypotheses": sum(c.sum_hypotheses for c in cells),
            "scoring_seconds": scoring, "wall_seconds": wall,
            "derived_overhead": (wall - scoring) * workers / fits, "model_seconds": model}


def measure_rate(d: int, w_pub: float, n: int, seed: int = 0) -> tuple[float, float, int]:
    """One timed CPU fit (as the CPU sweeps run it: one thread per job): returns (hypotheses
    per second, seconds, |G|) (``scripts/estimate_sweep_time.py``)."""
    import time

    from ppm import PPMHalfspaceLearner
    from ppm.populations import GaussianClusters

    X, y, public = GaussianClusters(d=d, w_pub=w_pub, margin=0.1).sample(n, random_state=seed)
    est = PPMHalfspaceLearner(epsilon=1.0, random_state=0, max_hypotheses=1e13)
    Xw, yw, pw = GaussianClusters(d=d, w_pub=0.5, margin=0.1).sample(12, random_state=1)
    est.fit(Xw, yw, pw)  # compile the numba kernels (all levels) outside the timing
    t0 = time.perf_counter()
    est.fit(X, y, public)
    sec = time.perf_counter() - t0
    return est.n_hypotheses_ / sec, sec, est.n_hypotheses_


def sweep_hypotheses(experiment: str) -> tuple[float, int, int]:
    """Total |G| over every (job, trial) of an experiment's own sweep, PPM at d >= 2; jobs;
    trials (``scripts/estimate_sweep_time.py``)."""
    with hydra_ctx():
        cells = experiment_cells(experiment, [])
    total, trials = 0.0, 0
    for cell in cells:
        if cell.d < 2:
            continue
        total += sum(cell_hypotheses(cell.spec))
        trials += cell.trials
    return total, len(cells), trials


