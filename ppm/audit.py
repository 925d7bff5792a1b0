"""Exact output distribution of ``LearnHalf`` on small instances (privacy audits, claim C6).

Enumerates ``G`` with the reference scorer and returns ``P[output = g]`` for every ``g``, built
from the same pieces the learner samples with: the level probabilities of
:func:`ppm.mechanism.level_log_probabilities` and a uniform draw within the level. Exponential
in ``d``; meant for tiny samples.
"""

from __future__ import annotations

import numpy as np

from ._validation import check_epsilon, check_labelled_data
from .halfspaces import DEFAULT_REL_TOL, construct_halfspaces
from .hypothesis_class import ReferenceScorer
from .mechanism import level_log_probabilities


def exact_output_distribution(X, y, public, epsilon: float, rel_tol: float = DEFAULT_REL_TOL):
    """``{hypothesis index tuple: log probability}`` of Algorithm 2's output, and ``C_pub``."""
    epsilon = check_epsilon(epsilon)
    X, y, public = check_labelled_data(X, y, public)
    hs = construct_halfspaces(X[public], n_features=X.shape[1], rel_tol=rel_tol)
    scorer = ReferenceScorer(hs, X, y, X.shape[1])
    scored = list(scorer.scores())
    counts = np.bincount([m for _, m in scored], minlength=len(y) + 1)
    level_logp = level_log_probabilities(counts, epsilon)
    logp = {hyp: float(level_logp[m] - np.log(counts[m])) for hyp, m in scored}
    return logp, hs


def privacy_loss(logp_a: dict, logp_b: dict) -> float:
    """``max_g |log P_a[g] - log P_b[g]|`` over a common hypothesis class (inf if they differ)."""
    if logp_a.keys() != logp_b.keys():
        return float("inf")
    return max(abs(logp_a[g] - logp_b[g]) for g in logp_a)
