"""Structured-config schema (Hydra ConfigStore): a misspelled key or a wrong type fails at compose.

Value ranges (epsilon > 0, w_pub in [0, 1], ...) are checked by
:func:`experiments.pipeline.validate_config` before any work, because structured configs only
check types. Groups mirror the code: ``population/`` -> :mod:`ppm.populations` (and :mod:`ppm.hard_family`), ``learner/`` ->
:mod:`ppm.learner`, ``experiment/`` -> files that only override.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING


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
class MarginFamilyConf:
    _target_: str = "ppm.hard_family.MarginFamily"
    alpha_target: float = 0.01
    c: float = 4.0
    orientation: int = 1
    w_pub: float = 0.5


@dataclass
class BreastCancerConf:
    _target_: str = "ppm.datasets.BreastCancer"
    features: List[str] = field(default_factory=lambda: ["mean texture", "worst area"])


@dataclass
class PPMLearnerConf:
    _target_: str = "ppm.PPMHalfspaceLearner"
    epsilon: float = 1.0
    method: str = "auto"
    rel_tol: float = 1e-9
    block_elements: int = 4194304
    max_hypotheses: float = 1.0e11


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
    cs.store(group="population", name="margin_family_schema", node=MarginFamilyConf)
    cs.store(group="learner", name="ppm_schema", node=PPMLearnerConf)
