"""The one registry of configurable classes: every class an experiment config can instantiate.

A class registers itself where it is defined, with :func:`configurable`::

    @configurable("population", "grid_thresholds", stable_name="ppm.populations.GridThresholds")
    class GridThresholds: ...

and everything else is derived from the registry: the stable names that enter seeds and cell
keys (``experiments.seeding.STABLE_NAMES``), the structured-config schema node
``<name>_schema`` of group ``<group>`` (``experiments.schema.register_configs``, built from the
class's ``_parameter_constraints`` and signature) and the lists of classes the tests run.
A new learner or population is therefore its class, registered here, plus one yaml file
``configs/<group>/<name>.yaml`` whose ``defaults`` list names ``<name>_schema``.

Groups: ``population`` and ``learner`` get a schema node; ``baseline`` classes get none (a
baseline file names a ``_target_`` and only the values it sets, since a schema would fill in
every class default, and every value written enters the seeds and cache keys).

The parameter roles (``_param_roles`` of a class, :data:`ROLES`) say which constructor
parameters are not part of what a class computes: they are declared once per class, here read
by the schema (which leaves some out) and by the hashing (which skips the execution-only ones).
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass

__all__ = ["ROLES", "Configurable", "configurable", "execution_params", "registered",
           "stable_names", "unconfigured_params", "unregister"]

GROUPS = ("population", "learner", "baseline")

# role -> (in the config schema, in the seeds and cache keys)
ROLES = {
    "execution": (True, False),   # how the output is computed, never what (method, device)
    "console": (False, False),    # only prints (verbose)
    "data": (False, False),       # set by the pipeline from the population (allow_private_on_disk)
    "encoding": (False, True),    # names labels; the experiments' labels are 0/1 (public_label)
}


@dataclass(frozen=True)
class Configurable:
    """One registered class. ``name``: its yaml file ``configs/<group>/<name>.yaml`` and its
    schema node ``<name>_schema`` (None for a baseline: no schema node). ``stable_name``: the
    name it enters seeds and cell keys under (its path when its first results were hashed: it
    never changes, whatever module the class moves to). ``target``: the ``_target_`` its schema
    node writes (an import path of the class)."""

    cls: type
    group: str
    name: str | None
    stable_name: str
    target: str

    @property
    def schema_name(self) -> str | None:
        return None if self.name is None else f"{self.name}_schema"


_REGISTRY: dict[str, Configurable] = {}  # defining path -> entry
_LOADED = False


def defining_path(cls) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def configurable(group: str, name: str | None = None, *, stable_name: str | None = None,
                 target: str | None = None):
    """Class decorator: register ``cls`` (module docstring). ``stable_name`` defaults to the
    defining path ``module.qualname`` (pin it explicitly before moving the class), ``target``
    to the defining path."""
    if group not in GROUPS:
        raise ValueError(f"group must be one of {GROUPS}, got {group!r}")
    if (name is None) != (group == "baseline"):
        raise ValueError(f"a {group} needs a schema name iff it is not a baseline, got {name!r}")

    def register(cls):
        path = defining_path(cls)
        entry = Configurable(cls, group, name, stable_name or path, target or path)
        clash = [e for e in _REGISTRY.values() if e.cls is not cls and (
            e.stable_name == entry.stable_name
            or (name is not None and (e.group, e.name) == (group, name)))]
        if clash:
            raise ValueError(f"{path}: stable name {entry.stable_name!r} or schema "
                             f"{group}/{name} already taken by {defining_path(clash[0].cls)}")
        _REGISTRY[path] = entry
        return cls

    return register


def unregister(cls) -> None:
    """Remove ``cls`` (tests that register a class of their own)."""
    _REGISTRY.pop(defining_path(cls), None)


def _load() -> None:
    """Import every subpackage of :mod:`ppm`, so that the classes defined (and exported) there
    have registered themselves."""
    global _LOADED
    if _LOADED:
        return
    package = importlib.import_module(__package__)  # by name: ppm imports this module
    for mod in pkgutil.iter_modules(package.__path__):
        if mod.ispkg and not mod.name.startswith("_"):
            importlib.import_module(f"ppm.{mod.name}")
    _LOADED = True


def registered(group: str | None = None) -> list[Configurable]:
    """The registered classes (of ``group``), in registration order."""
    _load()
    return [e for e in _REGISTRY.values() if group is None or e.group == group]


def stable_names() -> dict[str, str]:
    """Defining path -> stable name, for every registered class."""
    _load()
    return {path: e.stable_name for path, e in _REGISTRY.items()}


def _with_role(cls, keep) -> tuple[str, ...]:
    roles = getattr(cls, "_param_roles", {})
    return tuple(p for p, role in roles.items() if keep(ROLES[role]))


def execution_params(cls) -> tuple[str, ...]:
    """Parameters of ``cls`` that enter no seed and no cache key (their role says so)."""
    return _with_role(cls, lambda r: not r[1])


def unconfigured_params(cls) -> tuple[str, ...]:
    """Parameters of ``cls`` left out of its config schema (``random_state`` too: the pipeline
    derives it per trial)."""
    return ("random_state", *_with_role(cls, lambda r: not r[0]))
