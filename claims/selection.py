"""Which claims read a sweep: the names in ``make reproduce``'s notes on ``ARGS``
(:func:`experiments.overrides.check`'s ``claims_of``), from the registry (:mod:`claims.registry`).
"""

from __future__ import annotations


def claims_of(experiment: str) -> str:
    """The claims reading a sweep, for the override notes (e.g. "C5"; "C2/C4" for a sweep two
    claims read; empty for one no claim reads)."""
    from claims.registry import CLAIMS
    return "/".join(c.id for c in CLAIMS if experiment in c.experiments)
