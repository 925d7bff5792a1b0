"""The stamp of each aggregated sweep of ``make reproduce`` (``python -m scripts.run_sweeps``):
a sweep whose stamp is fresh is neither composed nor aggregated again.

A stamp (:mod:`experiments.stamps`) holds the sweep's options (:func:`sweep_options`), the
configs and code its tables depend on (:func:`sweep_code`), a digest of each of its cells'
stored trials (:func:`cell_digests`) and its two tables (``trials.csv``, ``n_hat.csv``);
:func:`stamp_sweeps` writes it, :func:`sweep_fresh` reads it.
"""

from __future__ import annotations

from pathlib import Path

SWEEP_CODE = ("configs", "hydra_plugins", "experiments", "ppm", "analysis")


def sweep_code() -> list[Path]:
    """What a sweep's tables depend on besides its cells' trials: the configs (every cell's
    composition and key), the code that composes, validates, reads the cache and aggregates,
    and the lock file (conservative: any edit there runs every sweep's last steps again)."""
    from experiments import stamps
    files = [stamps.REPO / "requirements.lock"]
    for top in SWEEP_CODE:
        files += [p for p in sorted((stamps.REPO / top).rglob("*"))
                  if p.suffix in (".py", ".yaml") and "__pycache__" not in p.parts]
    return files


def cell_digests(results: str, keys) -> dict:
    """A digest of each cell's stored trials (which trials, stored when): one query a cell."""
    import hashlib

    from experiments import cache
    root = Path(results) / "cache"
    return {k: hashlib.sha256(repr(sorted(cache.trial_times(root / k).items())).encode())
            .hexdigest()[:16] for k in sorted(keys)}


def sweep_options(name: str, suffix: str, extra: list[str]) -> dict:
    from experiments import stamps
    return {"experiment": name + suffix, "args": list(extra), "env": stamps.env_options()}


def sweep_fresh(results: str, name: str, options: dict) -> bool:
    """Is the sweep's stamp fresh: the same options, configs and code, every cell's trials as
    they were, and its two tables as they were written?"""
    import json

    from experiments import stamps
    path = stamps.stamp_path(results, "sweeps", name)
    try:
        keys = json.loads(path.read_text()).get("cells") or {}
    except (OSError, ValueError):
        return False
    return bool(keys) and stamps.fresh(path, results, options,
                                       cells=cell_digests(results, keys)) is not None


def stamp_sweeps(results: str, outputs: str, names: list[str], suffix: str,
                 extra: list[str]) -> None:
    """The stamp of each aggregated sweep (:func:`sweep_fresh` reads it)."""
    import pandas as pd

    from experiments import stamps
    code = stamps.signatures(sweep_code(), results)
    for name in names:
        keys = set()
        for f in (Path(outputs) / name).glob("*/trials.csv"):
            keys.update(pd.read_csv(f, usecols=["cell_key"], dtype=str)["cell_key"])
        tables = [Path(results) / name / t for t in ("trials.csv", "n_hat.csv")]
        stamp = stamps.make(results, sweep_options(name, suffix, extra), outputs=tables,
                            cells=cell_digests(results, keys))
        stamp["code"] = code
        stamps.write(stamps.stamp_path(results, "sweeps", name), stamp)
