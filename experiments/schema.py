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
from dataclasses import dataclass, field, make_dataclass
from typing import Any, Dict, List, Optional

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING

from ppm import PPMHalfspaceLearner
from ppm.set_cover import DisjunctionLearner, GreedyTriangleCover, SetCoverLearner
from ppm.semi_supervised import (GapThresholdMechanism, GenericLearner, LabelBoostLearner,
                                 PrivateActiveLearner)


@dataclass
class GaussianClustersConf:
    _target_: str = "ppm.populations.GaussianClusters"
    d: int = 2
    w_pub: float = 0.5
    separation: float = 2.0
    margin: Optional[float] = 0.1
    public_std: float = 1.0
    private_std: float = 0.5
    private_aspect: float = 3.0
    eta: float = 0.0
    public_pos_rate: float = 0.0
    geometry_seed: int = 0


@dataclass
class GridThresholdsConf:
    _target_: str = "ppm.populations.GridThresholds"
    T: int = 64
    w_pub: float = 0.5
    cut: float = 0.5
    support: Optional[int] = None


@dataclass
class PlantedConjunctionConf:
    _target_: str = "ppm.set_cover.PlantedConjunction"
    D: int = 64
    k: int = 2
    w_pub: float = 0.5
    geometry_seed: int = 0


@dataclass
class DecoyConjunctionConf:
    _target_: str = "ppm.set_cover.populations.DecoyConjunction"
    D: int = 64
    k: int = 2
    w_pub: float = 0.5
    decoy_alpha: float = 0.1
    geometry_seed: int = 0


@dataclass
class GridPolygonConf:
    _target_: str = "ppm.set_cover.GridPolygon"
    T: int = 1024
    k: int = 1
    w_pub: float = 0.5
    support: Optional[int] = 32
    geometry_seed: int = 0


@dataclass
class GridTrianglesConf:
    _target_: str = "ppm.set_cover.GridTriangles"
    T: int = 1024
    w_pub: float = 0.5
    support: Optional[int] = 8
    centre_mass: float = 0.5


@dataclass
class NoisyBigGridThresholdsConf:
    _target_: str = "ppm.semi_supervised.big_grid.NoisyBigGridThresholds"
    b: int = 64
    support: int = 25
    cut: float = 0.5
    eta: float = 0.1
    spacing_bits: int = 16


@dataclass
class BigGridThresholdsConf:
    _target_: str = "ppm.semi_supervised.BigGridThresholds"
    b: int = 64
    support: int = 5
    cut: float = 0.5


@dataclass
class MarginFamilyConf:
    _target_: str = "ppm.populations.MarginFamily"
    alpha_target: float = 0.01
    c: float = 4.0
    orientation: int = 1
    w_pub: float = 0.5


@dataclass
class BreastCancerConf:
    _target_: str = "ppm.populations.BreastCancer"
    features: List[str] = field(default_factory=lambda: ["mean texture", "worst area"])


def estimator_conf(cls, target: str):
    """The structured config of an estimator, built from its ``__init__`` signature: the class
    is the one source of every parameter, type and default (``random_state`` is the pipeline's:
    it is derived per trial, never configured; nor are the class's ``_encoding_params``, which
    only name labels: the experiments' samples are labelled 0/1, where the label encoding is the
    identity, so configs, seeds and cache keys stay those of the 0/1 learners)."""
    spec = [("_target_", str, field(default=target))]
    skip = {"random_state", *getattr(cls, "_encoding_params", ())}
    for p in inspect.signature(cls).parameters.values():
        if p.name in skip:
            continue
        kind = type(p.default) if isinstance(p.default, (bool, int, float, str)) else Any
        spec.append((p.name, kind, field(default=p.default)))
    return make_dataclass(f"{cls.__name__}Conf", spec)


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
    cs.store(group="population", name="margin_family_schema", node=MarginFamilyConf)
    cs.store(group="learner", name="ppm_schema", node=PPMLearnerConf)
    cs.store(group="learner", name="set_cover_schema", node=SetCoverLearnerConf)
    cs.store(group="learner", name="disjunction_schema", node=DisjunctionLearnerConf)
    cs.store(group="learner", name="greedy_triangles_schema", node=GreedyTriangleCoverConf)
    cs.store(group="learner", name="label_boost_schema", node=LabelBoostLearnerConf)
    cs.store(group="learner", name="generic_schema", node=GenericLearnerConf)
    cs.store(group="learner", name="active_schema", node=PrivateActiveLearnerConf)
    cs.store(group="learner", name="gap_threshold_schema", node=GapThresholdMechanismConf)
