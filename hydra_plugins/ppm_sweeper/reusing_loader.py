"""Hydra's config loader for a sweep's jobs, without a full composition of every job.

Hydra's launchers call ``ConfigLoader.load_sweep_config(master, overrides)`` once per job: a
whole composition (defaults list, every config file, schema merge), about 75 ms of CPU per cell
here, a fifth of a quick-profile cell. Most sweeps vary plain values (``n``, ``epsilon``, ``d``)
over one set of keys, so jobs that differ only in those values differ only in those leaves and
in Hydra's record of the overrides (``hydra.overrides.task``, ``hydra.job.override_dirname``).
:class:`ReusingConfigLoader` composes the first job of each shape (the same override keys in
the same order) in full, and builds a later job of that shape from a copy of it when its group
choices (``experiment=...``, ``population=...``) and whole-node values are those of the first
and only values of existing leaves differ: each set with :func:`omegaconf.OmegaConf.update`, as
Hydra applies a command-line value (validated against the schema alike), and the two records
rewritten as Hydra writes them. Any other job (another group choice, a list or dict value, an
addition ``+key``, a deletion ``~key``) is composed in full. ``tests/test_reusing_loader.py`` compares
both paths on the jobs of every committed experiment, ``hydra`` node included.

The cache of first jobs is per process (module level): with the joblib launcher's worker
processes each worker keeps its own.
"""

from __future__ import annotations

import copy
from typing import Any, List

from hydra._internal.config_loader_impl import get_overrides_dirname
from hydra.core.config_loader import ConfigLoader
from hydra.core.override_parser.overrides_parser import OverridesParser
from omegaconf import DictConfig, OmegaConf, open_dict

_FIRST: dict = {}  # (config_name, hydra overrides, job keys) -> (fixed lines, leaf keys, config)
_ABSENT = object()


def _parsed(overrides: List[str]) -> list | None:
    """The parsed overrides when each sets one key (no +, ++, ~, package, sweep or hydra
    override), else None."""
    parsed = OverridesParser.create().parse_overrides(overrides)
    for ov in parsed:
        if ov.is_add() or ov.is_force_add() or ov.is_delete() or ov.package is not None \
                or ov.is_sweep_override() or ov.is_hydra_override():
            return None
    return parsed


class ReusingConfigLoader(ConfigLoader):
    """``inner`` (Hydra's loader) whose :meth:`load_sweep_config` reuses the first job of each
    shape (module docstring); everything else is ``inner``'s."""

    def __init__(self, inner: ConfigLoader):
        self.inner = inner

    def load_sweep_config(self, master_config: DictConfig,
                          sweep_overrides: List[str]) -> DictConfig:
        parsed = _parsed(list(sweep_overrides))
        if parsed is None:
            return self.inner.load_sweep_config(master_config, sweep_overrides)
        key = (master_config.hydra.job.config_name,
               tuple(OmegaConf.to_container(master_config.hydra.overrides.hydra)),
               tuple(ov.key_or_group for ov in parsed))
        first = _FIRST.get(key)
        if first is not None:
            fixed, leaves, cfg0 = first
            # group choices (experiment=..., population=...) and whole nodes as in the first
            # job; a leaf given a list or dict changes a node's shape: composed
            if fixed == tuple(ov.input_line for ov in parsed if ov.key_or_group not in leaves) \
                    and not any(isinstance(ov.value(), (list, dict))
                                for ov in parsed if ov.key_or_group in leaves):
                return self._from_first(cfg0, parsed, leaves)
        cfg = self.inner.load_sweep_config(master_config, sweep_overrides)
        leaves = frozenset(ov.key_or_group for ov in parsed if _leaf(cfg, ov.key_or_group))
        _FIRST[key] = (tuple(ov.input_line for ov in parsed if ov.key_or_group not in leaves),
                       leaves, copy.deepcopy(cfg))
        return cfg

    @staticmethod
    def _from_first(first: DictConfig, parsed: list, leaves: frozenset) -> DictConfig:
        """The first job's config with this job's leaf values and its override records."""
        cfg = copy.deepcopy(first)
        for ov in parsed:
            if ov.key_or_group in leaves:  # as Hydra applies a command-line value
                OmegaConf.update(cfg, ov.key_or_group, ov.value(), merge=True)
        names = cfg.hydra.job.config.override_dirname
        with open_dict(cfg.hydra):
            cfg.hydra.overrides.task = [ov.input_line for ov in parsed]
            cfg.hydra.job.override_dirname = get_overrides_dirname(
                overrides=parsed, kv_sep=names.kv_sep, item_sep=names.item_sep,
                exclude_keys=names.exclude_keys)
        return cfg

    # -- the rest is Hydra's loader ------------------------------------------------------------
    def load_configuration(self, *args: Any, **kwargs: Any) -> DictConfig:
        return self.inner.load_configuration(*args, **kwargs)

    def get_search_path(self) -> Any:
        return self.inner.get_search_path()

    def get_sources(self) -> Any:
        return self.inner.get_sources()

    def list_groups(self, parent_name: str) -> Any:
        return self.inner.list_groups(parent_name)

    def get_group_options(self, *args: Any, **kwargs: Any) -> Any:
        return self.inner.get_group_options(*args, **kwargs)

    def compute_defaults_list(self, *args: Any, **kwargs: Any) -> Any:
        return self.inner.compute_defaults_list(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:  # any other method of Hydra's implementation
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)


def _leaf(cfg: DictConfig, key: str) -> bool:
    """Whether ``key`` names an existing leaf value of ``cfg`` (not a node, not missing)."""
    node = OmegaConf.select(cfg, key, default=_ABSENT, throw_on_missing=False)
    return node is not _ABSENT and not OmegaConf.is_config(node)
