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
  stable name of a class is the path its first committed results were hashed with, declared
  where the class is defined (``@configurable(..., stable_name=...)``, :mod:`ppm.registry`); a
  class not registered hashes under its defining path ``module.qualname`` (register it, with
  its current path as stable name, before moving it).

The committed results are the test of this contract (``tests/test_seeding.py``): a cell
composed today has the cell key its committed trials carry.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping

import numpy as np
from hydra.utils import get_class
from omegaconf import DictConfig, OmegaConf

from ppm import registry

CACHE_VERSION = 2  # 2: rows carry opt_test (paired excess error). It enters every cell key:
# never bump it for a change of columns only.

# Config keys that choose how a cell is run, not what it computes.
EXECUTION_KEYS = ("n_jobs", "threads", "progress", "results_root", "analysis",
                  "experiment_name", "claim", "trials")

class _StableNames(Mapping):
    """Defining path (module.qualname) -> stable name, for every class a config can
    instantiate: read from the registry of configurable classes (:mod:`ppm.registry`, where
    each class declares its stable name), so a class registered later is in it too."""

    def __getitem__(self, path):
        return registry.stable_names()[path]

    def __iter__(self):
        return iter(registry.stable_names())

    def __len__(self):
        return len(registry.stable_names())


STABLE_NAMES = _StableNames()


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
