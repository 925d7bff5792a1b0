"""Structured-config schema (Hydra ConfigStore): a misspelled key or a wrong type fails at compose.

Value ranges (epsilon > 0, w_pub in [0, 1], ...) are checked by
:func:`experiments.pipeline.validate_config` before any work, because structured configs only
check types. The schema nodes are derived from the registry of configurable classes
(:mod:`ppm.registry`): every registered population and learner gets the node ``<name>_schema``
of its group (``population/``, ``learner/``), built from the class (:func:`signature_conf`),
and its yaml file ``configs/<group>/<name>.yaml`` names that node in its defaults. Baselines
(``baseline/``) get no node: each file names a ``_target_`` and only the values it sets (a
schema would fill in the class defaults, and every value written enters the seeds and cache
keys; the class's ``_parameter_constraints`` check them before any work). ``experiment/`` ->
files that only select and override.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field, make_dataclass
from numbers import Integral
from typing import Any, Dict, List, Optional

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING
from sklearn.utils._param_validation import Interval, Options, StrOptions

from ppm import registry
from ppm.validation import Satisfies


def _kind(constraint):
    """The config type of the values one constraint admits (``Any``: none that OmegaConf has)."""
    if isinstance(constraint, Interval):
        return int if constraint.type is Integral else float
    if isinstance(constraint, StrOptions) or constraint is str:
        return str
    if isinstance(constraint, Satisfies):
        return constraint.kind or Any
    if isinstance(constraint, Options):
        return int if constraint.type is Integral else float if constraint.type is not object \
            else Any
    if constraint == "boolean" or constraint is bool:
        return bool
    return Any


def conf_type(constraints, default):
    """The config type of a parameter, from its constraints: ``int`` for integer intervals,
    ``float`` for real ones, ``str`` for string options, ``bool`` for ``"boolean"``,
    ``List[str]`` for a list of names, ``Optional`` of it when None is admitted (or is the
    default), else ``Any``: a parameter whose values mix these kinds (an int or a float) keeps
    the value written, unconverted (values enter the seeds and cache keys as written)."""
    if constraints == "no_validation":
        return Any
    kinds = {_kind(c) for c in constraints if c is not None}
    if len(kinds) != 1 or Any in kinds:
        return Any
    kind = kinds.pop()
    kind = List[str] if kind == list[str] else kind
    return Optional[kind] if None in constraints or default is None else kind


def _field(cls, p: inspect.Parameter) -> tuple:
    """``(name, type, field)`` of one constructor parameter (:func:`signature_conf`)."""
    kind = conf_type(cls._parameter_constraints.get(p.name, "no_validation"), p.default)
    if isinstance(p.default, (list, tuple)):
        return p.name, kind, field(default_factory=lambda v=tuple(p.default): list(v))
    return p.name, kind, field(default=p.default)


def signature_conf(cls, target: str, skip=()):
    """The structured config of a class: its ``__init__`` signature gives every parameter and
    default, its ``_parameter_constraints`` every type (:func:`conf_type`). A key the class
    does not take fails at compose, naming the key and ``<Class>Conf``."""
    spec = [("_target_", str, field(default=target))]
    spec += [_field(cls, p) for p in inspect.signature(cls).parameters.values()
             if p.name not in skip]
    return make_dataclass(f"{cls.__name__}Conf", spec)


def class_conf(entry: registry.Configurable):
    """The schema node of a registered population or learner: every constructor parameter but
    those its ``_param_roles`` keep out of configs (:func:`ppm.registry.unconfigured_params`:
    ``random_state``, which the pipeline derives per trial; label names, since the
    experiments' samples are labelled 0/1; flags the pipeline sets from the population;
    console output)."""
    return signature_conf(entry.cls, entry.target, skip=registry.unconfigured_params(entry.cls))


def schema_nodes() -> dict:
    """``(group, node name) -> structured config`` of every registered population and
    learner."""
    return {(e.group, e.schema_name): class_conf(e) for e in registry.registered()
            if e.schema_name is not None}


# The nodes of the registered classes, also as module attributes ``<Class>Conf``.
globals().update({conf.__name__: conf for conf in schema_nodes().values()})
PPMLearnerConf = globals()["PPMHalfspaceLearnerConf"]


@dataclass
class AnalysisConf:
    alphas: List[float] = field(default_factory=lambda: [0.05, 0.1, 0.2])
    beta: float = 0.1
    confidence: float = 0.95


@dataclass
class Config:
    experiment_name: str = "default"
    claim: str = ""
    seed: int = 20201206
    trials: int = 20
    n: int = 100
    # Size of a separate unlabelled sample (BNS15's learners, fit(..., X_unlabelled=...));
    # null: none drawn, and the key is left out of the cell key (old caches stay valid).
    n_unlabelled: Optional[int] = None
    n_jobs: int = 1
    threads: int = 1
    n_test: int = 50000
    results_root: str = "results"
    progress: bool = True
    population: Any = MISSING
    learner: Any = MISSING
    # name -> estimator config with _target_ (non-private or other reference learners),
    # fitted on the same samples as the learner in every trial.
    baselines: Dict[str, Any] = field(default_factory=dict)
    analysis: AnalysisConf = field(default_factory=AnalysisConf)


def register_configs() -> None:
    """Register the schema nodes (idempotent; called before composing): the top-level
    ``config_schema`` and one node per registered population and learner."""
    cs = ConfigStore.instance()
    cs.store(name="config_schema", node=Config)
    for (group, name), node in schema_nodes().items():
        cs.store(group=group, name=name, node=node)
