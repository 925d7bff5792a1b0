"""Populations: the distributions the experiments sample (docs/model.md §1 and §8).

Every population follows :class:`ppm.populations.base.Population`. The mixtures of BMN20 live
here; the populations of the related papers live with their learners
(:mod:`ppm.set_cover` for KMMS19, :mod:`ppm.semi_supervised` for BNS15).
"""

from ppm.populations.base import Population, PopulationBase, check_population, is_synthetic
from ppm.populations.datasets import BreastCancer, load_breast_cancer_ppm
from ppm.populations.grid_thresholds import GridThresholds
from ppm.populations.hard_family import MarginFamily
from ppm.populations.mixture import GaussianClusters

__all__ = ["BreastCancer", "GaussianClusters", "GridThresholds", "MarginFamily", "Population",
           "PopulationBase", "check_population", "is_synthetic", "load_breast_cancer_ppm"]
