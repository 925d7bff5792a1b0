"""The theory of BMN20 (docs/model.md §4): class sizes, explicit bounds and their O-shapes.

- :mod:`~ppm.bounds.theorems`: ``|C_pub|``, ``|G|``, the explicit realizable and agnostic
  bounds (Theorems 4.9 and 4.10) and the sample complexities they imply;
- :mod:`~ppm.bounds.shapes`: the O-shapes (constants dropped) a measured curve is fitted to;
- :mod:`~ppm.bounds.checks`: the argument checks they share.
"""

from ppm.bounds.shapes import (agnostic_shape, fit_shape_constant, nonprivate_agnostic_shape,
                               nonprivate_realizable_shape, realizable_shape)
from ppm.bounds.theorems import (agnostic_bound, agnostic_sample_complexity,
                                 compression_deviation, em_excess, hypothesis_class_size,
                                 hypothesis_class_size_from_halfspaces,
                                 log_hypothesis_class_size, num_halfspaces_upper,
                                 realizable_bound, realizable_sample_complexity)

__all__ = ["agnostic_bound", "agnostic_sample_complexity", "agnostic_shape",
           "compression_deviation", "em_excess", "fit_shape_constant", "hypothesis_class_size",
           "hypothesis_class_size_from_halfspaces", "log_hypothesis_class_size",
           "nonprivate_agnostic_shape", "nonprivate_realizable_shape", "num_halfspaces_upper",
           "realizable_bound", "realizable_sample_complexity", "realizable_shape"]
