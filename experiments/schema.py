"""Structured-config schema (Hydra ConfigStore): a misspelled key or a wrong type fails at compose.

Value ranges (epsilon > 0, w_pub in [0, 1], ...) are checked by
:func:`experiments.pipeline.validate_config` before any work, because structured configs only
check types. Groups mirror the code: ``population/`` -> :mod:`ppm.populations` (and
:mod:`ppm.populations.hard_family`, :mod:`ppm.set_cover`, :mod:`ppm.semi_supervised`), ``learner/`` ->
:mod:`ppm.core.learner` (schema built from the class signature: :func:`estimator_conf`),
``baseline/`` -> :mod:`ppm.baselines` & co. (each file names a ``_target_`` and only the values
it sets: a schema would fill in the class defaults, and every value written enters the seeds
and cache keys; the class's ``_validate_params`` checks them before any work),
``experiment/`` -> files that only select and override.
"""

from __future__ import annotations

import inspect
import typing
from dataclasses import dataclass, field, make_dataclass
from typing import Any, Dict, List, Optional

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING

from ppm import PPMHalfspaceLearner
from ppm.populations import BreastCancer, GaussianClusters, GridThresholds, MarginFamily
from ppm.set_cover import (DisjunctionLearner, GreedyTriangleCover, GridPolygon, GridTriangles,
                           PlantedConjunction, SetCoverLearner)
from ppm.set_cover.populations import DecoyConjunction
from ppm.semi_supervised import (BigGridThresholds, GapThresholdMechanism, GenericLearner,
                                 LabelBoostLearner, PlateauGridThresholds,
                                 PrivateActiveLearner)
from ppm.semi_supervised.big_grid import NoisyBigGridThresholds


def _hint(cls, name: str):
    """The annotation of ``cls.__init__``'s parameter ``name`` (None if absent or unresolved)."""
    try:
        return typing.get_type_hints(cls.__init__).get(name)
    except Exception:  # an annotation that does not resolve: no hint
        return None


def _field(cls, p: inspect.Parameter) -> tuple:
    """``(name, type, field)`` of one constructor parameter (:func:`signature_conf`)."""
    args = typing.get_args(_hint(cls, p.name))
    nullable = type(None) in args
    simple = [a for a in args if a in (bool, int, float, str)]
    default = p.default
    if isinstance(default, (bool, int, float, str)):
        kind = Optional[type(default)] if nullable else type(default)
        return p.name, kind, field(default=default)
    if default is None and nullable and len(args) == 2 and simple:
        return p.name, Optional[simple[0]], field(default=None)
    if isinstance(default, (list, tuple)) and all(isinstance(v, str) for v in default):
        return p.name, List[str], field(default_factory=lambda v=tuple(default): list(v))
    return p.name, Any, field(default=default)


def signature_conf(cls, target: str, skip=()):
    """The structured config of a class, built from its ``__init__`` signature: the class is
    the one source of every parameter, default and type. The type is the default's (``bool``,
    ``int``, ``float``, ``str``), ``Optional`` of it when the parameter's annotation admits None
    (``margin: float | None = 0.1``; a None default takes the annotation's type:
    ``support: int | None = None``), ``List[str]`` for a list or tuple of strings, else ``Any``
    (the class's own validation checks the value before any work). A key the class does not
    take fails at compose, naming the key and ``<Class>Conf``."""
    spec = [("_target_", str, field(default=target))]
    spec += [_field(cls, p) for p in inspect.signature(cls).parameters.values()
             if p.name not in skip]
    return make_dataclass(f"{cls.__name__}Conf", spec)


def population_conf(cls, target: str):
    """A population's structured config (:func:`signature_conf`): every constructor parameter."""
    return signature_conf(cls, target)


def estimator_conf(cls, target: str):
    """The structured config of an estimator (:func:`signature_conf`); ``random_state`` is the
    pipeline's: it is derived per trial, never configured; nor are the class's
    ``_encoding_params``, which only name labels: the experiments' samples are labelled 0/1,
    where the label encoding is the identity, so configs, seeds and cache keys stay those of
    the 0/1 learners; nor its ``_data_params``, which the pipeline sets from the population:
    ``allow_private_on_disk``; nor its ``_console_params`` (``verbose``), which only print)."""
    return signature_conf(cls, target, skip={"random_state",
                                              *getattr(cls, "_encoding_params", ()),
                                              *getattr(cls, "_data_params", ()),
                                              *getattr(cls, "_console_params", ())})


# Populations: the class is the one source of every parameter and default (the _target_ is the
# path configs name, also the hashing name of experiments.seeding.STABLE_NAMES).
GaussianClustersConf = population_conf(GaussianClusters, "ppm.populations.GaussianClusters")
GridThresholdsConf = population_conf(GridThresholds, "ppm.populations.GridThresholds")
PlantedConjunctionConf = population_conf(PlantedConjunction, "ppm.set_cover.PlantedConjunction")
DecoyConjunctionConf = population_conf(DecoyConjunction,
                                       "ppm.set_cover.populations.DecoyConjunction")
GridPolygonConf = population_conf(GridPolygon, "ppm.set_cover.GridPolygon")
GridTrianglesConf = population_conf(GridTriangles, "ppm.set_cover.GridTriangles")
NoisyBigGridThresholdsConf = population_conf(
    NoisyBigGridThresholds, "ppm.semi_supervised.big_grid.NoisyBigGridThresholds")
BigGridThresholdsConf = population_conf(BigGridThresholds,
                                        "ppm.semi_supervised.BigGridThresholds")
PlateauGridThresholdsConf = population_conf(PlateauGridThresholds,
                                            "ppm.semi_supervised.PlateauGridThresholds")
MarginFamilyConf = population_conf(MarginFamily, "ppm.populations.MarginFamily")
BreastCancerConf = population_conf(BreastCancer, "ppm.populations.BreastCancer")


PPMLearnerConf = estimator_conf(PPMHalfspaceLearner, "ppm.PPMHalfspaceLearner")
# BNS15's learners (ppm.semi_supervised): the class is the one source of every default.
GenericLearnerConf = estimator_conf(GenericLearner, "ppm.semi_supervised.GenericLearner")
PrivateActiveLearnerConf = estimator_conf(PrivateActiveLearner,
                                          "ppm.semi_supervised.PrivateActiveLearner")
LabelBoostLearnerConf = estimator_conf(LabelBoostLearner, "ppm.semi_supervised.LabelBoostLearner")
GapThresholdMechanismConf = estimator_conf(GapThresholdMechanism,
                                           "ppm.semi_supervised.GapThresholdMechanism")


SetCoverLearnerConf = estimator_conf(SetCoverLearner, "ppm.set_cover.SetCoverLearner")
DisjunctionLearnerConf = estimator_conf(DisjunctionLearner, "ppm.set_cover.DisjunctionLearner")
GreedyTriangleCoverConf = estimator_conf(GreedyTriangleCover, "ppm.set_cover.GreedyTriangleCover")


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
    """Register the schema nodes (idempotent; called before composing)."""
    cs = ConfigStore.instance()
    cs.store(name="config_schema", node=Config)
    cs.store(group="population", name="gaussian_clusters_schema", node=GaussianClustersConf)
    cs.store(group="population", name="grid_thresholds_schema", node=GridThresholdsConf)
    cs.store(group="population", name="breast_cancer_schema", node=BreastCancerConf)
    cs.store(group="population", name="planted_conjunction_schema", node=PlantedConjunctionConf)
    cs.store(group="population", name="decoy_conjunction_schema", node=DecoyConjunctionConf)
    cs.store(group="population", name="grid_polygon_schema", node=GridPolygonConf)
    cs.store(group="population", name="grid_triangles_schema", node=GridTrianglesConf)
    cs.store(group="population", name="big_grid_thresholds_schema", node=BigGridThresholdsConf)
    cs.store(group="population", name="noisy_big_grid_thresholds_schema",
             node=NoisyBigGridThresholdsConf)
    cs.store(group="population", name="plateau_grid_thresholds_schema",
             node=PlateauGridThresholdsConf)
    cs.store(group="population", name="margin_family_schema", node=MarginFamilyConf)
    cs.store(group="learner", name="ppm_schema", node=PPMLearnerConf)
    cs.store(group="learner", name="set_cover_schema", node=SetCoverLearnerConf)
    cs.store(group="learner", name="disjunction_schema", node=DisjunctionLearnerConf)
    cs.store(group="learner", name="greedy_triangles_schema", node=GreedyTriangleCoverConf)
    cs.store(group="learner", name="label_boost_schema", node=LabelBoostLearnerConf)
    cs.store(group="learner", name="generic_schema", node=GenericLearnerConf)
    cs.store(group="learner", name="active_schema", node=PrivateActiveLearnerConf)
    cs.store(group="learner", name="gap_threshold_schema", node=GapThresholdMechanismConf)
