"""Restoring the trial cache of long experiments from their committed ``trials.csv`` (``make
reproduce``'s first step: ``python -m scripts.restore_cache``).

:func:`restore_experiments` restores each experiment's committed table into the trial cache
(:func:`experiments.cache.restore`: byte for byte, rows marked restored) and says one line per
experiment whose trials were read; those whose ``trials.csv`` is unchanged since it was last
restored into this cache (:func:`experiments.cache.unchanged`) are not read again, and share one
line.
"""

from __future__ import annotations

from pathlib import Path

from experiments.cache import restore, unchanged


def restore_experiments(experiments, source: Path, cache: Path, say=print) -> None:
    """Restore ``<source>/<experiment>/trials.csv`` of each of ``experiments`` into ``cache``,
    one ``say`` line per experiment read or missing, one for all the unchanged ones."""
    source, cache = Path(source), Path(cache)
    same = same_trials = 0
    for exp in experiments:
        path = source / exp / "trials.csv"
        if not path.exists():
            say(f"restore_cache: {exp}: no committed {path}; its trials will be computed")
            continue
        known = unchanged(path, cache)
        if known is not None:  # restored here before, file unchanged: nothing to read
            same += 1
            same_trials += known
            continue
        written, kept = restore(path, cache)
        say(f"restore_cache: {exp}: restored {written} trials from {path} "
            f"({kept} already in {cache})")
    if same:
        say(f"restore_cache: {same} experiment(s) unchanged since restored ({same_trials} "
            f"trials already in {cache})")
