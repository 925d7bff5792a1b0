"""What a claim is: its statement, the experiments it reads, its analysis and its figure.

``VerdictRow`` is one measured setting of a claim with real columns (d, epsilon, alpha, w_pub
and a free ``extra`` for what else identifies the setting), so no script parses parameters
back out of the human-readable ``setting`` label; :func:`row_settings` reads a row's d, epsilon
and w_pub from the typed columns of the trials or ``n_hat`` rows it judges (a setting those
rows hold at one value; NaN where they span several, e.g. the swept axis, or have none), so no
claim restates a config value by hand. ``ResultStore`` hands a claim the aggregated
tables of its experiments (``<root>/<experiment>/{trials,n_hat}.csv``, written by
``analysis/aggregate.py``) and the number of bootstrap replicates of every slope interval.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Callable, Optional

import numpy as np
import pandas as pd

from analysis.aggregate import curve_config, unique_trials
from analysis.dose_response import reading
from experiments import columns

# n_hat.csv's grid-reading columns and the columns they stand in for under that reading
GRID_READ = {"n_hat": "n_hat_grid", "n_hat_lo": "n_hat_grid_lo", "n_hat_hi": "n_hat_grid_hi",
             "censored": "censored_grid"}

NAN = math.nan
# ``<root>/PROFILE``: written by ``make reproduce PROFILE=quick`` into its results root; a root
# holding it is a smoke run (few trials, short grids): its verdicts and figures say so.
PROFILE_FILE = "PROFILE"
SMOKE_PREFIX = "smoke run (quick profile): "
SMOKE_NOTE = ("Quick profile: a smoke run (few trials, short grids) that checks the pipeline "
              "end to end; its verdicts are not verdicts on the claims (make reproduce without "
              "PROFILE=quick measures them).")


def is_smoke(root: Path) -> bool:
    """Does ``root`` hold a quick-profile run (its ``PROFILE`` file says ``quick``)?"""
    path = Path(root) / PROFILE_FILE
    return path.is_file() and path.read_text().split()[:1] == ["quick"]


@dataclass
class VerdictRow:
    """One setting of one claim: what the paper says, what we measured, the verdict."""

    claim: str
    figure: str
    setting: str  # human-readable label of the setting (the columns below carry its values)
    paper: str
    measured: str
    theory: str
    looseness: float = NAN  # explicit bound / measured n_hat (median over the points)
    verdict: str = ""
    # Provenance: what the row computes (a short stable id, e.g. ``floor_slope``) and the
    # trials it reads (:func:`trial_set`: experiments, each optionally narrowed to its cells
    # by ``[key=value,...]``). Within a claim no two counted rows read a common trial
    # (:func:`claims.rules.accounting.one_per_trial_set`).
    statistic: str = ""
    trials: str = ""
    slope: float = NAN
    slope_lo: float = NAN
    slope_hi: float = NAN
    d: float = NAN
    epsilon: float = NAN
    alpha: float = NAN
    w_pub: float = NAN
    extra: str = ""  # anything else that identifies the setting (regime, relaxation, source)
    # The same row read with the grid reading of n_hat (the reference beside the counted,
    # fitted reading: docs/model.md §5); filled by claims.reporting.report.
    grid_slope: float = NAN
    grid_lo: float = NAN
    grid_hi: float = NAN
    grid_verdict: str = ""

    @classmethod
    def columns(cls) -> list[str]:
        return [f.name for f in fields(cls)]


def trial_set(*parts) -> str:
    """The ``trials`` of a verdict row: experiment names, each optionally narrowed to the cells
    it reads as ``exp[key=value,...]`` (keys sorted), ``;``-joined, sorted, without repeats.

    ``trial_set("c3_epsilon_d1")``; ``trial_set(("real_breast_cancer", {"epsilon": 0.3}))``:
    the real-data cells at one epsilon, which share no trial with those at another."""
    out = set()
    for part in parts:
        if isinstance(part, str):
            out.add(part)
            continue
        exp, where = part
        sel = ",".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                       for k, v in sorted(where.items()))
        out.add(f"{exp}[{sel}]" if sel else exp)
    return ";".join(sorted(out))


_PART = re.compile(r"^([^\[\]]+)(?:\[(.*)\])?$")


def parse_trial_set(text) -> list[tuple[str, dict]]:
    """:func:`trial_set`'s text back as ``[(experiment, {key: value text})]``."""
    out = []
    for part in str(text or "").split(";"):
        part = part.strip()
        if not part or part == "nan":
            continue
        m = _PART.match(part)
        if m is None:
            raise ValueError(f"not a trial set entry: {part!r}")
        sel = dict(kv.split("=", 1) for kv in m.group(2).split(",")) if m.group(2) else {}
        out.append((m.group(1), sel))
    return out


def share_trials(a, b) -> bool:
    """Do two ``trials`` texts read a common trial? Same experiment, and no key that both
    narrow to different values (different cells of a sweep hold different trials)."""
    for exp_a, sel_a in parse_trial_set(a):
        for exp_b, sel_b in parse_trial_set(b):
            if exp_a == exp_b and all(sel_a[k] == sel_b[k] for k in sel_a.keys() & sel_b.keys()):
                return True
    return False


def rows_frame(rows: list[VerdictRow]) -> pd.DataFrame:
    return pd.DataFrame([asdict(r) for r in rows], columns=VerdictRow.columns())


@dataclass
class ResultStore:
    """The aggregated results under ``root``; ``n_boot`` bootstrap replicates per slope."""

    root: Path
    n_boot: int = 300
    _cache: dict = field(default_factory=dict, repr=False)

    def load(self, experiment: str):
        """``(trials, n_hat)`` of one aggregated experiment, or ``None`` if it has not been run.

        ``trials`` has one row per (curve, n, trial) and the ``params`` label; ``n_hat`` carries
        its curves' varying settings as typed columns (``learner.epsilon``, ...) and gets the
        constant ones joined from ``trials`` (``analysis.aggregate.curve_config``)."""
        key = (experiment, reading())
        if key not in self._cache:
            raw = self._tables(experiment)
            if raw is not None:
                trials, nhat = raw
                if reading() == "grid" and "n_hat_grid" in nhat:
                    # the reference reading: its columns stand where the claims read n_hat
                    nhat = nhat.assign(**{c: nhat[g] for c, g in GRID_READ.items()})
                # n_hat.csv carries the varying settings; the constant ones are joined here
                self._cache[key] = (trials, curve_config(nhat, trials))
            else:
                self._cache[key] = None
        return self._cache[key]

    def _tables(self, experiment: str):
        """The two files of one experiment as read, once for every reading (or None)."""
        key = (experiment, "files")
        if key not in self._cache:
            path = self.root / experiment
            self._cache[key] = None
            if (path / "trials.csv").exists() and (path / "n_hat.csv").exists():
                trials = pd.read_csv(path / "trials.csv", low_memory=False,
                                     dtype={"cell_key": str})
                self._cache[key] = (unique_trials(trials), pd.read_csv(path / "n_hat.csv"))
        return self._cache[key]

    def has_any(self, experiments) -> bool:
        return any(self.load(e) is not None for e in experiments)

    @property
    def smoke(self) -> bool:
        """A quick-profile root (:func:`is_smoke`): verdicts and figures are marked smoke runs."""
        return is_smoke(self.root)


@dataclass(frozen=True)
class Claim:
    """One claim of the paper.

    ``experiments``: the experiment configs (``configs/experiment/<name>.yaml`` and its
    ``_quick`` twin) whose results the claim reads; ``needs``: the result files it reads that
    no sweep writes (the exact audits of C6/C7), relative to the results root. ``name`` is the
    output directory (``<results>/<name>/summary.csv``) and the figure's file name.
    ``headline``: the values of the setting shown in the one-row verdict table.
    ``long``: those of ``experiments`` whose sweep takes long (beyond ~10 minutes of 2-core
    time). Their trials are committed (``results/<exp>/trials.csv``), ``make
    reproduce`` restores them into the trial cache before it runs (``scripts/restore_cache.py``;
    ``RECOMPUTE=1`` skips that), and the quick profile leaves them out (they need no ``_quick``
    config).
    ``committed``: sweeps of a few CPU-minutes each that ``make reproduce`` also restores from
    their committed trials (so that it stays within ~30 minutes on 2 cores; ``RECOMPUTE=1``
    recomputes them too) but that, unlike ``long`` ones, the quick profile still runs through
    their ``_quick`` twin.
    ``inputs``: the claim's result files that no sweep writes but ``make reproduce`` makes
    when the claim's experiments run, each ``(module, out, quick_args)``: ``python -m module
    --out <results>/out [quick_args in the quick profile] --overwrite-committed``
    (``scripts/reproduce.py`` runs them; C4's class-size and privacy-price tables).
    """

    id: str
    name: str
    statement: str  # the paper's claim, written once (the verdict table's "paper" column)
    experiments: tuple[str, ...]
    analyse: Callable[[ResultStore], list[VerdictRow]]
    plot: Optional[Callable[[ResultStore, list[VerdictRow], Path], None]] = None
    needs: tuple[str, ...] = ()
    headline: dict = field(default_factory=dict)
    has_theorem: bool = True  # False: an application whose verdicts are comparisons
    long: tuple[str, ...] = ()
    committed: tuple[str, ...] = ()
    inputs: tuple[tuple[str, str, tuple[str, ...]], ...] = ()

    def __post_init__(self):
        for kind, names in (("long", self.long), ("committed", self.committed)):
            stray = set(names) - set(self.experiments)
            if stray:
                raise ValueError(f"{self.id}: {kind} experiments {sorted(stray)} are not among "
                                 f"its experiments {list(self.experiments)}")

    @property
    def figure(self) -> str:
        return self.name if self.plot is not None else ""

    def available(self, results: ResultStore) -> bool:
        if self.needs:
            return all((results.root / p).exists() for p in self.needs)
        return results.has_any(self.experiments)


def first(df: pd.DataFrame, col: str, cast=float):
    """The (constant) value of ``col`` in ``df``: a setting of one experiment."""
    return cast(df[col].iloc[0])


def beta_of(nhat: pd.DataFrame) -> float:
    return float(nhat["beta"].iloc[0])


def alphas_of(nhat: pd.DataFrame) -> np.ndarray:
    return np.sort(nhat["alpha"].unique())


def setting_value(trials: pd.DataFrame, col: str, default=None, cast=float):
    """A setting of an experiment: the first value of the column ``col`` (a name of
    :mod:`experiments.columns`, e.g. ``W_PUB``) where the trials have one, else ``default``."""
    if col in trials and trials[col].notna().any():
        return cast(trials[col].dropna().iloc[0])
    if default is None:
        raise KeyError(f"no column {col!r} in the trials")
    return cast(default)


def _one(values: pd.Series) -> float:
    """The value a column holds on the judged rows, or NaN when it holds none or several."""
    vals = pd.unique(values.dropna())
    return float(vals[0]) if len(vals) == 1 else NAN


def row_settings(rows: pd.DataFrame) -> dict:
    """``d``, ``epsilon`` and ``w_pub`` of a verdict row, read from the rows it judges (trials
    or ``n_hat`` rows with their config columns; :class:`VerdictRow`'s fields of those names).

    ``d`` and ``w_pub`` are the population's (:data:`experiments.columns.D`, ``W_PUB``);
    ``epsilon`` is each row's own learner's (``learner.epsilon`` on the main learner's rows,
    ``baselines.<label>.epsilon`` on a baseline's). A setting is NaN where the rows hold none
    (a learner without ``epsilon``, a population without ``w_pub``) or several (the swept
    axis: its range is the row's ``setting`` and ``extra``)."""
    eps = rows[columns.EPSILON] if columns.EPSILON in rows else pd.Series(NAN, index=rows.index)
    for label in rows["learner"].unique() if "learner" in rows else ():
        col = columns.baseline_column(str(label), columns.EPSILON)
        if col in rows:
            mine = rows["learner"] == label
            eps = eps.where(~mine | eps.notna(), rows[col])
    d = _one(rows[columns.D]) if columns.D in rows else NAN
    return {"d": int(d) if np.isfinite(d) and d == int(d) else d,  # a dimension: an integer
            "epsilon": _one(eps),
            "w_pub": _one(rows[columns.W_PUB]) if columns.W_PUB in rows else NAN}
