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

Every population of the package subclasses :class:`PopulationBase`: its parameters the
scikit-learn way (declared once in ``_parameter_constraints``; validation before the
constructor's body, ``get_params``/``params()`` and ``repr`` from the signature).
"""

from __future__ import annotations

import functools
import inspect
from numbers import Integral, Real
from typing import Callable, Protocol, runtime_checkable

import numpy as np
from sklearn.utils._param_validation import make_constraint, validate_parameter_constraints


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


def _kept_as(value, constraints):
    """``value`` as the type of the first constraint it satisfies: an ``Integral`` constraint
    keeps an ``int``, a ``Real`` one a ``float`` (``w_pub=1`` is kept as ``1.0``), any other
    (``None``, a predicate) the value itself."""
    for constraint in map(make_constraint, constraints):
        if constraint.is_satisfied_by(value):
            kind = getattr(constraint, "type", None)
            if kind is Integral:
                return int(value)
            if kind is Real:
                return float(value)
            return value
    return value


class PopulationBase:
    """The parameters of a population, by scikit-learn's conventions (``BaseEstimator``'s).

    A subclass declares each keyword-only constructor parameter once, in
    ``_parameter_constraints`` (:mod:`sklearn.utils._param_validation`, as the estimators do;
    ``ppm.validation`` adds :class:`~ppm.validation.Number`, ``CLOSED_UNIT``, ...), and gets:

    - validation before its constructor's body runs: its ``__init__`` is wrapped (as
      scikit-learn's ``_fit_context`` wraps ``fit``), so a bad value is refused in one line
      (``InvalidParameterError``, a ``ValueError``, naming the parameter, the class and the
      value) before any work; rules across parameters (``k <= D``) stay in the body;
    - ``self._params``: every parameter, in signature order, kept as the type its constraint
      states (:func:`_kept_as`), set before the body runs, which receives these values; a body
      may replace a value by a canonical form (``BreastCancer``: the feature names as a tuple);
    - :meth:`get_params` / :meth:`params` (from the constructor's signature), ``__repr__``
      (from them: ``Name(p=value, ...)``) and a read-only attribute per parameter (unless the
      class defines that name itself).

    A subclass whose body calls ``super().__init__(...)`` is validated once, by its own
    constraints (the outermost constructor; the parent's body then receives checked values).
    """

    _parameter_constraints: dict = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is not None:
            cls.__init__ = _checked_init(init)
        undeclared = [n for n in cls._get_param_names() if n not in cls._parameter_constraints]
        if undeclared:
            raise TypeError(f"{cls.__name__}: parameter(s) {undeclared} not declared in "
                            "_parameter_constraints")
        for name in cls._get_param_names():
            if not hasattr(cls, name):
                setattr(cls, name, _param_attribute(name))

    @classmethod
    def _get_param_names(cls) -> tuple[str, ...]:
        """The constructor's parameters, in signature order (scikit-learn sorts them; the
        order here is the order of ``params()`` and of the ``repr``)."""
        if cls.__init__ is object.__init__:
            return ()
        return tuple(p.name for p in inspect.signature(cls.__init__).parameters.values()
                     if p.name != "self")

    def get_params(self, deep: bool = False) -> dict:
        """The constructor's arguments as kept (validated, typed by their constraints)."""
        return {name: self._params[name] for name in self._get_param_names()}

    def params(self) -> dict:
        """The constructor's arguments as kept, e.g. for CSV columns (:meth:`get_params`)."""
        return self.get_params()

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"


def _param_attribute(name: str) -> property:
    """The read-only attribute ``name``: the parameter as kept (an ``AttributeError`` on an
    instance of a subclass that does not take it)."""

    def get(self):
        try:
            return self._params[name]
        except KeyError:
            raise AttributeError(f"{type(self).__name__} has no parameter {name!r}") from None

    return property(get, doc=f"The parameter ``{name}`` (read-only).")


def _checked_init(init):
    """``init`` preceded, in the outermost constructor call, by the validation and the
    storing of the parameters (:class:`PopulationBase`)."""
    signature = inspect.signature(init)
    for p in list(signature.parameters.values())[1:]:
        if p.kind is not p.KEYWORD_ONLY:
            raise TypeError(f"{init.__qualname__}: population parameters are keyword-only, "
                            f"got {p.name!r} ({p.kind.description})")

    @functools.wraps(init)
    def wrapper(self, *args, **kwargs):
        if "_params" in self.__dict__:  # a subclass's constructor has checked them
            return init(self, *args, **kwargs)
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        values = dict(list(bound.arguments.items())[1:])
        cls = type(self)
        validate_parameter_constraints(cls._parameter_constraints, values,
                                       caller_name=cls.__name__)
        kept = {k: _kept_as(v, cls._parameter_constraints.get(k, ())) for k, v in values.items()}
        self._params = kept
        return init(self, **kept)

    return wrapper
