"""The seed and cell-key contract: what makes every random draw and every cache key.

Every random draw of a trial comes from a ``SeedSequence`` whose entropy is
``(seed, hash(population), n, trial, stream)``; a learner's draws add ``hash(label, learner)``.
A *cell* (one point of a sweep) is cached under :func:`cell_key`, a content hash of everything
that determines its trials. So results do not depend on the workers, the launcher, the device
or which other cells run.

What enters the hashes, and what never does:

- every value of the population's and the estimators' configs, except the parameters a class
  declares as execution-only (``_execution_params``: how it computes, never what), and except
  the run's own settings (:data:`EXECUTION_KEYS`);
- a config's ``_target_`` enters as the class's **stable name** (:data:`STABLE_NAMES`), never as
  the import path written in the config. A class can move to another module, or a config can
  name it through a package that re-exports it, without changing one seed or cell key. The
  stable name of a class is the path its first committed results were hashed with; a class not
  in the table hashes under its defining path ``module.qualname`` (add it to the table before
  moving it).

The committed results are the test of this contract (``tests/test_seeding.py``): a cell
composed today has the cell key its committed trials carry.
"""

from __future__ import annotations

import functools
import hashlib
import json

import numpy as np
from hydra.utils import get_class
from omegaconf import DictConfig, OmegaConf

CACHE_VERSION = 2  # 2: rows carry opt_test (paired excess error). It enters every cell key:
# never bump it for a change of columns only.

# Config keys that choose how a cell is run, not what it computes.
EXECUTION_KEYS = ("n_jobs", "threads", "progress", "results_root", "analysis",
                  "experiment_name", "claim", "trials")

# Defining path (module.qualname) -> stable name, for every class a config can instantiate.
STABLE_NAMES = {
    # BMN20: the PPM learner, its populations and baselines
    "ppm.core.learner.PPMHalfspaceLearner": "ppm.PPMHalfspaceLearner",
    "ppm.populations.mixture.GaussianClusters": "ppm.populations.GaussianClusters",
    "ppm.populations.grid_thresholds.GridThresholds": "ppm.populations.GridThresholds",
    "ppm.populations.hard_family.MarginFamily": "ppm.hard_family.MarginFamily",
    "ppm.populations.datasets.BreastCancer": "ppm.datasets.BreastCancer",
    "ppm.baselines.linear.ERMHalfspace": "ppm.baselines.ERMHalfspace",
    "ppm.baselines.linear.PublicOnly": "ppm.baselines.PublicOnly",
    "ppm.baselines.logistic.LogisticRegressionBaseline": "ppm.baselines.LogisticRegressionBaseline",
    "ppm.baselines.logistic.DPLogisticRegression": "ppm.baselines.DPLogisticRegression",
    "ppm.baselines.fully_private.GridExponentialMechanism":
        "ppm.fully_private.GridExponentialMechanism",
    "ppm.baselines.semi_private.SemiPrivateHalfspaceLearner":
        "ppm.semi_private.SemiPrivateHalfspaceLearner",
    # KMMS19
    "ppm.set_cover.learner.SetCoverLearner": "ppm.set_cover.SetCoverLearner",
    "ppm.set_cover.greedy.GreedySetCover": "ppm.set_cover.GreedySetCover",
    "ppm.set_cover.populations.PlantedConjunction": "ppm.set_cover.PlantedConjunction",
    "ppm.set_cover.populations.DecoyConjunction": "ppm.set_cover.populations.DecoyConjunction",
    "ppm.set_cover.polygon_population.GridPolygon": "ppm.set_cover.GridPolygon",
    "ppm.set_cover.polygon_population.GridTriangles":
        "ppm.set_cover.polygon_population.GridTriangles",
    "ppm.set_cover.disjunctions.DisjunctionLearner":
        "ppm.set_cover.disjunctions.DisjunctionLearner",
    "ppm.set_cover.greedy_triangles.GreedyTriangleCover":
        "ppm.set_cover.greedy_triangles.GreedyTriangleCover",
    # BNS15
    "ppm.semi_supervised.generic.GenericLearner": "ppm.semi_supervised.GenericLearner",
    "ppm.semi_supervised.active.PrivateActiveLearner": "ppm.semi_supervised.PrivateActiveLearner",
    "ppm.semi_supervised.label_boost.LabelBoostLearner": "ppm.semi_supervised.LabelBoostLearner",
    "ppm.semi_supervised.threshold_em.GapThresholdMechanism":
        "ppm.semi_supervised.GapThresholdMechanism",
    "ppm.semi_supervised.big_grid.BigGridThresholds": "ppm.semi_supervised.BigGridThresholds",
    "ppm.semi_supervised.big_grid.NoisyBigGridThresholds":
        "ppm.semi_supervised.big_grid.NoisyBigGridThresholds",
    "ppm.semi_supervised.plateau_grid.PlateauGridThresholds":
        "ppm.semi_supervised.PlateauGridThresholds",
}


def defining_path(cls) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


@functools.lru_cache(maxsize=None)
def stable_name(target: str) -> str:
    """The name under which the class ``target`` names enters seeds and cell keys."""
    try:
        cls = get_class(str(target))
    except Exception:  # not importable: validation reports it; hash what was written
        return str(target)
    path = defining_path(cls)
    return STABLE_NAMES.get(path, path)


def canonical(obj):
    """``obj`` with every ``_target_`` replaced by its class's stable name (recursively)."""
    if isinstance(obj, dict):
        return {k: (stable_name(v) if k == "_target_" else canonical(v)) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [canonical(v) for v in obj]
    return obj


def to_container(cfg) -> dict:
    """A plain dict of a (Hydra) config, interpolations resolved."""
    if isinstance(cfg, DictConfig):
        return OmegaConf.to_container(cfg, resolve=True, throw_on_missing=True)
    return dict(cfg)


def execution_params(est_cfg: dict) -> tuple[str, ...]:
    """Parameters that only choose how an estimator computes its output, declared by its class
    (``_execution_params``): they enter neither seeds nor cache keys."""
    return tuple(getattr(get_class(est_cfg["_target_"]), "_execution_params", ()))


def output_params(est_cfg: dict) -> dict:
    """An estimator's config without its execution-only parameters."""
    skip = execution_params(est_cfg)
    return {k: v for k, v in est_cfg.items() if k not in skip}


def hash_words(obj) -> list[int]:
    """Four 32-bit words of a stable hash of a JSON-able object, ``_target_`` as stable names."""
    blob = json.dumps(canonical(obj), sort_keys=True, default=str).encode()
    digest = hashlib.sha256(blob).digest()
    return [int.from_bytes(digest[i:i + 4], "little") for i in range(0, 16, 4)]


def seed_from(entropy: list[int]) -> int:
    """A 63-bit integer seed from a SeedSequence (stored in the CSV to replay one trial)."""
    state = np.random.SeedSequence(entropy).generate_state(2, dtype=np.uint32)
    return int(state[0]) << 31 | int(state[1]) >> 1


# The streams of one trial: entropy (seed, hash(population), n, trial, stream, ...).
SAMPLE, TEST, LEARNER, UNLABELLED = 0, 1, 2, 3


def trial_entropy(spec: dict, trial: int) -> list[int]:
    return [spec["seed"], *hash_words(spec["population"]), spec["n"], trial]


def stream_seed(spec: dict, trial: int, stream: int) -> int:
    """The seed of one of a trial's streams (:data:`SAMPLE`, :data:`TEST`, :data:`UNLABELLED`)."""
    return seed_from(trial_entropy(spec, trial) + [stream])


def learner_seed(spec: dict, trial: int, label: str, est_cfg: dict) -> int:
    """The seed of one learner in one trial: its label and output parameters enter."""
    return seed_from(trial_entropy(spec, trial) + [LEARNER,
                                                   *hash_words([label, output_params(est_cfg)])])


def cell_key(spec: dict) -> str:
    """Content hash of everything that determines a cell's trials (not how they are run)."""
    core = {k: v for k, v in spec.items() if k not in EXECUTION_KEYS}
    if core.get("n_unlabelled") is None:
        core.pop("n_unlabelled", None)  # cells without an unlabelled sample keep their keys
    core["learner"] = output_params(core["learner"])
    core["baselines"] = {k: output_params(v) for k, v in (core.get("baselines") or {}).items()}
    core["cache_version"] = CACHE_VERSION
    blob = json.dumps(canonical(core), sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:20]
