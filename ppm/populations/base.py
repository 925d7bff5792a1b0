"""What every population provides: the protocol the trial loop relies on.

A *population* is a distribution over labelled examples with a privacy status (docs/model.md §1:
a mixture ``w_pub * D_pub + (1 - w_pub) * D_priv``; the related papers' populations are the
special cases "all private" and "all public"). The trial loop (``experiments.pipeline``) draws
a training sample, asks for the best error ``OPT`` and scores every learner on a fresh test
sample, so it needs exactly the members of :class:`Population`; ``opt_predict`` and
``realizable`` are optional refinements (a paired excess error, and skipping that pass when
the target errs nowhere). ``synthetic = True`` marks a population drawn from a model rather
than from records (:func:`is_synthetic`): only then may a learner write functions of its
private examples to disk (``PPMHalfspaceLearner(histogram_memo=...)``).
"""

from __future__ import annotations

from typing import Callable, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Population(Protocol):
    """A population the experiments can sample and score against."""

    @property
    def d(self) -> int:
        """Dimension of the examples ``x``."""

    def sample(self, n: int, random_state=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(X, y, public)``: ``n`` i.i.d. examples, labels in {0, 1}, boolean public mask."""

    def opt(self) -> float:
        """``OPT``: the smallest true error of the concept class the claim is about."""

    def true_error(self, predict: Callable[[np.ndarray], np.ndarray], n_test=None,
                   random_state=None) -> tuple[float, float]:
        """``(error, standard error)`` of ``predict`` (exact, or on ``n_test`` fresh examples)."""


def check_population(population) -> Population:
    """``population`` if it follows :class:`Population`, else a one-line ``TypeError``."""
    missing = [m for m in ("d", "sample", "opt", "true_error") if not hasattr(population, m)]
    if missing:
        raise TypeError(f"{type(population).__name__} is not a population: it lacks "
                        f"{', '.join(missing)} (ppm.populations.base.Population)")
    return population


def is_synthetic(population) -> bool:
    """Whether ``population`` declares itself synthetic (class attribute ``synthetic = True``);
    a population that says nothing counts as real records."""
    return getattr(population, "synthetic", False) is True


def param_property(name: str, doc: str) -> property:
    """A read-only attribute backed by ``self._params[name]`` (the constructor's checked value)."""
    return property(lambda self: self._params[name], doc=doc)
