"""Every claim's summary and figure, and the stamps that skip a claim nothing has changed
(``python -m scripts.figures``, ``make figures``).

For each claim: ``analyse`` the aggregated CSVs of its experiments, write
``<results>/<claim>/summary.{csv,md}`` and draw ``<results>/figures/<claim>.png``
(:func:`claims.reporting.report.write_claims`). Runs on whatever the results root holds: a claim
whose experiments are not there is reported in one line ("C3: not run in this results root")
and the others are drawn; a claim whose analysis fails on what is there is reported in one line
too, and the others are still drawn (:func:`draw` returns 1, or 0 with ``keep_going``).

A claim whose stamp is fresh (``<results>/cache/stamps/figures/<claim>.json``,
:mod:`experiments.stamps`: the tables it read, which of its experiments' tables exist, its code,
``n_boot``, a smoke root or not, and its summary and figures as written) is not analysed again:
one line names the claims skipped (``force`` redraws them).
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import textwrap
from pathlib import Path

from joblib import Parallel, delayed

from claims import registry
from claims.base import ResultStore
from claims.reporting.report import smoke_verdict, write_claims
from claims.reporting.terminal import WIDTH, fit
from experiments import stamps

N_BOOT = 300


def _claim_code(claim) -> list[str]:
    """The source files a claim's summary and figure depend on: every module of this
    repository loaded here except the other claims' modules, unless this claim's module
    refers to them (directly or through a claim module it refers to)."""
    import inspect

    mods = {c.analyse.__module__ for c in registry.CLAIMS}
    own, todo = set(), [claim.analyse.__module__]
    while todo:
        name = todo.pop()
        if name in own:
            continue
        own.add(name)
        for value in vars(sys.modules[name]).values():
            ref = value.__name__ if inspect.ismodule(value) else getattr(value, "__module__", "")
            if ref in mods and ref not in own:
                todo.append(ref)
    others = {str(Path(sys.modules[m].__file__).resolve()) for m in mods - own
              if m in sys.modules}
    return [str(p) for p in stamps.code_files() if str(p) not in others]


def _one_claim(claim_id: str, root: Path, n_boot: int):
    """One claim's summary and figure (in a worker, or in this process):
    ``(rows or None, error or None, printed, (inputs, outputs, code))``. Its lines are captured
    and printed by the parent in claim order, never interleaved; the files it read and wrote
    are recorded for its stamp (:mod:`experiments.stamps`)."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    out = io.StringIO()
    claim = registry.get(claim_id)
    with stamps.Recorder([root, stamps.REPO]) as rec, contextlib.redirect_stdout(out):
        done, failed = write_claims([claim], ResultStore(root, n_boot=n_boot))
    files = (sorted(map(str, rec.inputs)), sorted(map(str, rec.written)), _claim_code(claim))
    return done.get(claim_id), failed.get(claim_id), out.getvalue(), files


def claim_options(claim, root: Path, n_boot: int) -> dict:
    """What a claim's stamp holds besides its files: the options, whether the root is a smoke
    run, and which of the files it may read exist (a table that appears is a change)."""
    maybe = [f"{e}/{f}" for e in claim.experiments for f in ("trials.csv", "n_hat.csv")]
    return {"claim": claim.id, "n_boot": n_boot, "smoke": ResultStore(root).smoke,
            "present": [p for p in [*maybe, *claim.needs] if (root / p).exists()],
            "env": stamps.env_options()}


def unchanged(claims, root: Path, n_boot: int) -> list:
    """The claims whose stamp is fresh: their inputs, code and options as when they were last
    drawn, and their summary and figures still there."""
    return [c for c in claims if stamps.fresh(stamps.stamp_path(root, "figures", c.name), root,
                                              claim_options(c, root, n_boot)) is not None]


def write_all(claims, root: Path, n_boot: int, n_jobs: int) -> tuple[dict, dict]:
    """:func:`claims.reporting.report.write_claims` for every claim, ``n_jobs`` claims at a
    time (each claim writes only its own files); each claim analysed writes its stamp."""
    for claim in claims:  # a claim redrawn now is stale until it is done
        stamps.stamp_path(root, "figures", claim.name).unlink(missing_ok=True)
    if n_jobs == 1 or len(claims) == 1:
        results = [_one_claim(c.id, root, n_boot) for c in claims]
    else:
        jobs = Parallel(n_jobs=n_jobs, backend="loky")
        results = jobs(delayed(_one_claim)(c.id, root, n_boot) for c in claims)
    done, failed = {}, {}
    for claim, (rows, error, printed, (inputs, outputs, code)) in zip(claims, results):
        sys.stdout.write(printed)
        if rows:
            done[claim.id] = rows
        if error:
            failed[claim.id] = error
        elif rows:
            stamps.write(stamps.stamp_path(root, "figures", claim.name),
                         stamps.make(root, claim_options(claim, root, n_boot), code, inputs,
                                     outputs))
    return done, failed


def draw(claims, root: Path, n_boot: int = N_BOOT, n_jobs: int = 1, force: bool = False,
         overview: bool = False, keep_going: bool = False) -> int:
    """Summaries and figures of ``claims`` (:class:`claims.base.Claim`, registry order) from the
    results root ``root``, those with a fresh stamp skipped unless ``force``; one terminal line
    per setting, and with ``overview`` also ``figures/overview.png``. Returns the exit status:
    1 if a claim could not be analysed from ``root`` (0 with ``keep_going``), else 0."""
    store = ResultStore(root, n_boot=n_boot)
    kept = [] if force else unchanged(claims, root, n_boot)
    if kept:  # one line for all of them, however many (at most WIDTH columns)
        which = (f"all {len(kept)} claims" if len(kept) == len(claims) else
                 f"{len(kept)} of {len(claims)} claims ({' '.join(c.id for c in kept)})")
        print(fit(f"== skipped, unchanged since drawn (tables, code, options): {which}",
                  WIDTH))
    claims = [c for c in claims if c not in kept]
    done, failed = write_all(claims, root, n_boot, n_jobs)
    for claim in claims:
        if claim.id not in done:
            continue
        print(f"== {claim.id}: {claim.name}")
        for row in done[claim.id]:
            verdict = smoke_verdict(row.verdict) if store.smoke else row.verdict
            # one terminal line per setting; <results>/<claim>/summary.md keeps every word
            print(fit(f"  {row.setting}: {verdict}", WIDTH))
    drawn = sorted({r.figure for rows in done.values() for r in rows if r.figure})
    if drawn:
        # at most WIDTH columns a line, however many figures and however long the root's path
        print(textwrap.fill(f"figures ({len(drawn)}) in {root / 'figures'}/: "
                            + ", ".join(drawn), width=WIDTH, subsequent_indent="  ",
                            break_long_words=False, break_on_hyphens=False))
    if overview:
        from claims.reporting import overview as overview_figure
        drawn_overview = overview_figure.draw(root)
        print(f"overview: {drawn_overview or 'no claim with an interval, not drawn'}")
    if failed:
        print(f"{len(failed)} claim(s) could not be analysed from {root}: "
              f"{', '.join(failed)}", file=sys.stderr)
        return 0 if keep_going else 1
    return 0
