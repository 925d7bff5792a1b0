"""Overrides checked up front: which sweeps of a run can take ``ARGS``, before any trial runs.

``make reproduce ARGS="..."`` applies the same Hydra overrides to every selected sweep, but not
every sweep has every key (the greedy cover of C16 has no ``learner.epsilon``) or accepts every
value (C2's hard family needs ``population.w_pub=0.5``). :func:`check` composes every selected
sweep with the overrides (Hydra's compose API, once per sweep; the further values of a swept
override are patched into that composition and validated like a sweep's cells,
:func:`experiments.pipeline.validate_config`, which instantiates the population and learners) and
sorts the sweeps:

- a sweep that cannot take an override is left out, with one line saying why
  (``c16_greedy_quick: its learner GreedyTriangleCover has no epsilon (learner.epsilon=0.5);
  left out``);
- an override that no selected sweep can take (a misspelled key, a value every sweep rejects)
  is an error: one line naming it, and nothing runs;
- an override that fixes an axis a claim sweeps is noted (``note: population.w_pub=0.3 fixes
  the axis C5 sweeps ...``).

``hydra.*`` overrides (launcher knobs) are left to the sweeps themselves.
"""

from __future__ import annotations

import difflib
import itertools
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from hydra.core.override_parser.overrides_parser import OverridesParser
from omegaconf import OmegaConf, open_dict

CONFIG_DIR = str(Path(__file__).resolve().parent.parent / "configs")


@dataclass
class Override:
    line: str          # as typed
    key: str           # key or group, without +/~
    values: list[str]  # one concrete override line per value (a sweep: one per value)
    sweep: bool
    plain: bool        # a value change (no +, ~, package)

    @property
    def is_hydra(self) -> bool:
        return self.key == "hydra" or self.key.startswith(("hydra.", "hydra/"))


@dataclass
class Result:
    kept: list[str] = field(default_factory=list)
    left_out: dict[str, str] = field(default_factory=dict)  # experiment -> one line why
    notes: list[str] = field(default_factory=list)
    error: str | None = None


def split_args(args: str) -> list[str]:
    """ARGS split like a shell command line (what the Makefile's ``eval`` did)."""
    return shlex.split(args)


def parse(args: list[str]) -> list[Override]:
    out = []
    for o in OverridesParser.create().parse_overrides(args):
        prefix = "+" if o.is_add() else "~" if o.is_delete() else ""
        if o.is_force_add():
            prefix = "++"
        key = o.key_or_group if o.package is None else f"{o.key_or_group}@{o.package}"
        if o.is_sweep_override():
            if not o.is_discrete_sweep():
                raise ValueError(f"{o.input_line}: only discrete sweeps (a,b,c) are supported")
            values = [f"{prefix}{key}={v}" for v in o.sweep_string_iterator()]
        else:
            values = [o.input_line]
        out.append(Override(o.input_line, o.key_or_group, values, o.is_sweep_override(),
                            not (prefix or o.package)))
    return out


def _compose(experiment: str, overrides: list[str], hydra_config: bool = False):
    return compose(config_name="config", overrides=[f"experiment={experiment}", *overrides],
                   return_hydra_config=hydra_config)


def _one_line(exc: BaseException) -> str:
    from experiments.run import one_line  # the entry point's formatting of Hydra errors
    return one_line(exc)


_NO_KEY = re.compile(r"Key '([^']+)' not in '(\w+?)(Conf)?'")
_COULD_NOT = re.compile(r"Could not (?:override|append to|delete from) '([^']+)'")


def _reason(exc: BaseException, ov: Override | None, value: str) -> str:
    """Why a sweep cannot take ``value`` (an override line), in a few words."""
    msg = _one_line(exc)
    m = _NO_KEY.search(msg)
    if m and ov is not None and ov.key.count(".") >= 1:
        head = ov.key.split(".", 1)[0]
        what = {"learner": "its learner", "population": "its population"}.get(head, head)
        return f"{what} {m.group(2)} has no {m.group(1)} ({value})"
    if _COULD_NOT.search(msg) or m:
        return f"it has no {ov.key if ov else 'such key'} ({value}: {msg})"
    if isinstance(exc, (ValueError, TypeError)):
        return f"{value} rejected: {(str(exc).strip().splitlines() or [msg])[0]}"
    return f"{value}: {msg}"


def _culprit(experiment: str, overrides: list[Override], exc: BaseException, root: str):
    """(override, value line) a failed composition or validation is due to, or (None, None)."""
    from experiments.pipeline import validate_config
    msg = _one_line(exc)
    m = _COULD_NOT.search(msg)
    if m:
        for ov in overrides:
            if ov.key == m.group(1):
                return ov, ov.values[0]
    for ov in overrides:
        for value in ov.values:
            try:
                validate_config(_compose(experiment, [f"results_root={root}", value]))
            except Exception:  # noqa: BLE001  this override alone fails: it is the culprit
                return ov, value
    return None, None


def _claims_of(experiment: str, suffix: str, claims_of) -> str:
    """The claims reading ``experiment`` (``claims_of(base name)``, given by the caller: this
    layer does not import the claims), or ``""``."""
    if claims_of is None:
        return ""
    base = experiment[:-len(suffix)] if suffix and experiment.endswith(suffix) else experiment
    return claims_of(base)


def _close_keys(experiment: str, ov: Override) -> str:
    """' (did you mean learner.epsilon?)' for a misspelled key, from the sweep's own config."""
    try:
        cfg = _compose(experiment, [])
    except Exception:  # noqa: BLE001
        return ""
    keys = []

    def walk(node, prefix):
        for k, v in node.items_ex(resolve=False) if OmegaConf.is_dict(node) else []:
            path = f"{prefix}{k}"
            keys.append(path)
            if OmegaConf.is_dict(v):
                walk(v, path + ".")
    walk(cfg, "")
    close = difflib.get_close_matches(ov.key, keys, n=2, cutoff=0.75)
    return f" (did you mean {' or '.join(close)}?)" if close else ""


def check(experiments: list[str], args: list[str], results_root: str,
          suffix: str = "", claims_of=None) -> Result:
    """Sort ``experiments`` (config names) by whether they can take the overrides ``args``;
    ``claims_of(name)`` names the claims reading a sweep in the notes (e.g. ``"C5"``)."""
    from experiments.pipeline import validate_config
    from experiments.callbacks import apply_value_overrides
    from experiments.schema import register_configs

    res = Result()
    try:
        overrides = [ov for ov in parse(args) if not ov.is_hydra]
    except Exception as exc:  # noqa: BLE001  a syntax error in ARGS
        res.error = f"ARGS: {_one_line(exc)}"
        return res
    if not overrides:
        res.kept = list(experiments)
        return res
    register_configs()
    rejected: dict[str, dict[str, str]] = {ov.line: {} for ov in overrides}
    swept_axes: dict[str, list[tuple[str, str]]] = {}  # override line -> [(experiment, values)]
    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=CONFIG_DIR, version_base="1.3"):
        for exp in experiments:
            first = [ov.values[0] for ov in overrides]
            try:
                cfg = _compose(exp, [f"results_root={results_root}", *first], hydra_config=True)
                params = dict(cfg.hydra.sweeper.get("params") or {})
                with open_dict(cfg):
                    cfg.pop("hydra")
                validate_config(cfg)
                for combo in itertools.product(*(ov.values for ov in overrides)):
                    if list(combo) == first:
                        continue
                    changed = [c for c, f in zip(combo, first) if c != f]
                    other = apply_value_overrides(cfg, changed)
                    if other is None:
                        other = _compose(exp, [f"results_root={results_root}", *combo])
                    validate_config(other)
            except Exception as exc:  # noqa: BLE001  the sweep cannot take one of the overrides
                try:
                    _compose(exp, [])
                except Exception as base_exc:  # noqa: BLE001  an unknown experiment
                    from experiments.run import missing_option
                    res.error = f"experiment={exp}: {missing_option(base_exc) or _one_line(base_exc)}"
                    return res
                ov, value = _culprit(exp, overrides, exc, results_root)
                why = _reason(exc, ov, value or " ".join(first))
                res.left_out[exp] = f"{exp}: {why}; left out"
                if ov is not None:
                    rejected[ov.line][exp] = why
                continue
            res.kept.append(exp)
            for ov in overrides:
                if ov.plain and ov.key in params:
                    swept_axes.setdefault(ov.line, []).append((exp, str(params[ov.key])))
    for ov in overrides:
        if experiments and len(rejected[ov.line]) == len(experiments):
            exp, why = next(iter(rejected[ov.line].items()))
            hint = ""
            if "has no" in why:
                with initialize_config_dir(config_dir=CONFIG_DIR, version_base="1.3"):
                    hint = _close_keys(exp, ov)
            res.error = (f"{ov.line}: no selected sweep can take it ({exp}: {why}{hint}"
                         + (f"; and {len(experiments) - 1} more)" if len(experiments) > 1 else ")"))
            return res
    if not res.kept:
        res.error = ("no selected sweep can take ARGS=" + shlex.join(args) + ": "
                     + "; ".join(res.left_out.values()))
        return res
    for line, where in swept_axes.items():
        ov = next(o for o in overrides if o.line == line)
        if len(where) > 3 and len(where) == len(res.kept):
            named = f"every selected sweep ({len(where)})"
        elif len(where) == 1:
            (e, v), = where
            named = f"{_claims_of(e, suffix, claims_of) or e} ({e}: {ov.key} over {v})"
        else:  # grouped by claim, without the values: one readable line
            by_claim: dict[str, list[str]] = {}
            for e, _ in where:
                by_claim.setdefault(_claims_of(e, suffix, claims_of) or e, []).append(e)
            named = ", ".join(f"{c} ({' '.join(es)})" for c, es in by_claim.items())
        if ov.sweep:
            res.notes.append(f"note: {line} replaces the values of an axis swept by {named}")
        else:
            res.notes.append(f"note: {line} fixes an axis swept by {named}: with {ov.key} fixed "
                             f"each has one point on it (no slope along {ov.key})")
    return res
