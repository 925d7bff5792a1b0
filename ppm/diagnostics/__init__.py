"""Diagnostics that are NOT differentially private: research tools that look at private data.

- :mod:`~ppm.diagnostics.empirical`: training errors and score histograms recomputed from the
  private training sample (reported in the trial tables, never released by a learner);
- :mod:`~ppm.diagnostics.audit`: the exact privacy audit of the PPM learner (its output
  distribution on neighbouring samples, enumerated).
"""

from ppm.diagnostics.empirical import empirical_error, n_mistakes, score_histogram

__all__ = ["empirical_error", "n_mistakes", "score_histogram"]
