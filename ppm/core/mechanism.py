"""The exponential mechanism over a score histogram (McSherry-Talwar; BMN20 Lemma 4.6).

Kept for its import path: the sampler lives in :mod:`ppm.mechanisms` (one draw for every
learner); this module re-exports BMN20's level-and-rank draw and its level probabilities.
"""

from ppm.mechanisms import level_log_probabilities, level_log_weights, sample_level_and_rank

__all__ = ["level_log_probabilities", "level_log_weights", "sample_level_and_rank"]
