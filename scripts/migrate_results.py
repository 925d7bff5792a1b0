"""Rewrite committed results into the current column layout (each parameter once).

    python -m scripts.migrate_results results                 # every results/<exp>/trials.csv
    python -m scripts.migrate_results results c9_domain ...   # only these experiments
    python -m scripts.migrate_results results --check         # say what would change, write nothing

For every ``<root>/<experiment>/trials.csv`` in the first layout (bare ``epsilon``, ``w_pub``,
``d`` columns; baseline parameters under ``learner.*``) it writes ``trials.csv`` in the layout of
``experiments/columns.py`` and regenerates ``n_hat.csv`` with ``scripts.aggregate.n_hat_table``
(curves keyed by ``learner`` + ``params``). Which label is the main learner and which are
baselines, with their config keys, comes from composing ``configs/experiment/<experiment>.yaml``
(labels no longer in that config are treated as baselines and keep the parameters their rows
carry). Values are moved as text, so no number changes by a digit; the script checks that the
regenerated ``n_hat`` values equal the old ones, curve by curve (same learner, alpha and
values), and refuses to write otherwise.

Idempotent: a table already in the current layout is left as it is (its ``n_hat.csv`` is only
regenerated if it has no ``params`` column). Afterwards run ``make figures`` for the per-claim
``summary.csv`` files and the verdict table.
"""

from __future__ import annotations

import argparse
import functools
import io
from pathlib import Path

import pandas as pd
from hydra import compose, initialize_config_dir
from hydra.errors import ConfigCompositionException
from omegaconf import OmegaConf

from experiments import columns
from experiments.pipeline import _estimator_keys, write_csv_atomic
from experiments.schema import AnalysisConf, register_configs
from scripts.aggregate import PARAMS, n_hat_table

CONFIGS = Path(__file__).resolve().parent.parent / "configs"
NHAT_VALUES = ["learner", "alpha", "beta", "n_hat", "n_hat_lo", "n_hat_hi", "censored",
               "min_trials"]


class MigrationError(RuntimeError):
    """An experiment that cannot be migrated safely (nothing of it is written)."""


@functools.lru_cache(maxsize=None)
def experiment_config(name: str) -> dict | None:
    """The composed config of ``configs/experiment/<name>.yaml`` (None if there is none)."""
    if not (CONFIGS / "experiment" / f"{name}.yaml").exists():
        return None
    register_configs()
    try:
        with initialize_config_dir(config_dir=str(CONFIGS), version_base="1.3"):
            cfg = compose(config_name="config", overrides=[f"experiment={name}"])
    except ConfigCompositionException:
        return None
    cfg = OmegaConf.to_container(cfg, resolve=True)
    cfg.pop("hydra", None)
    return cfg


def estimators_of(df: pd.DataFrame, cfg: dict | None) -> list[tuple[str, bool, list[str]]]:
    """(label, is_main, config keys) for every learner label in ``df``."""
    known = _estimator_keys(cfg) if cfg is not None else []
    labels = set(df["learner"])
    if not any(main for label, main, _ in known if label in labels):
        if "ppm" not in labels:
            raise MigrationError(f"cannot tell the main learner among {sorted(labels)}: no "
                             f"experiment config; add it under configs/experiment/")
        known = [("ppm", True, [])]  # the first layout named the PPM learner "ppm"
    seen = {label for label, _, _ in known}
    return known + [(label, False, []) for label in sorted(labels - seen)]


def migrate_trials_text(text: pd.DataFrame, experiment: str) -> pd.DataFrame:
    """A trials table read as text, in the current layout (unchanged if it already is)."""
    if not columns.is_old_layout(text):
        return text
    return columns.to_current_layout(text, estimators_of(text, experiment_config(experiment)),
                                     empty="")


def _analysis(experiment: str, old_nhat: pd.DataFrame | None) -> tuple[list, float, float]:
    """alphas, beta, confidence: those of the committed n_hat.csv (the config's where they are
    the same set, for its order), the confidence of the config (or the schema's default)."""
    cfg = experiment_config(experiment)
    a = cfg["analysis"] if cfg is not None else None
    confidence = a["confidence"] if a is not None else AnalysisConf().confidence
    if old_nhat is None or old_nhat.empty:  # (real data has no n_hat rows)
        if a is None:
            raise MigrationError(f"{experiment}: no experiment config and no n_hat.csv")
        return list(a["alphas"]), a["beta"], confidence
    alphas = sorted(old_nhat["alpha"].unique())
    if a is not None and set(a["alphas"]) == set(alphas):
        alphas = list(a["alphas"])
    return alphas, float(old_nhat["beta"].iloc[0]), confidence


def _parse(text: pd.DataFrame) -> pd.DataFrame:
    """The table as ``pd.read_csv`` of its written file gives it (floats exact)."""
    buf = io.StringIO()
    text.to_csv(buf, index=False)
    buf.seek(0)
    return pd.read_csv(buf, low_memory=False)


def _same_values(old: pd.DataFrame, new: pd.DataFrame) -> bool:
    """Same curves' values: the multiset of (learner, alpha, beta, n_hat, ...) rows, exactly."""
    def norm(df):
        out = pd.DataFrame({c: (df[c].astype(object).where(df[c].notna(), "").astype(str)
                                if c in ("learner", "censored")
                                else pd.to_numeric(df[c]).astype(float)) for c in NHAT_VALUES})
        return out.sort_values(NHAT_VALUES).reset_index(drop=True)
    return len(old) == len(new) and norm(old).equals(norm(new))


def needs_migration(exp_dir: Path) -> bool:
    nhat = exp_dir / "n_hat.csv"
    header = pd.read_csv(exp_dir / "trials.csv", nrows=0).columns
    return (any(c in header for c in columns.OLD_DUPLICATES) or not nhat.exists()
            or PARAMS not in pd.read_csv(nhat, nrows=0).columns)


def convert(exp_dir: Path) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(trials as text, as read, new trials as text, parsed, regenerated n_hat) of one experiment,
    nothing written; stops if the regenerated n_hat values differ from the old ones."""
    experiment = exp_dir.name
    text = pd.read_csv(exp_dir / "trials.csv", dtype=str, keep_default_na=False)
    nhat_path = exp_dir / "n_hat.csv"
    old_nhat = pd.read_csv(nhat_path) if nhat_path.exists() else None
    new_text = migrate_trials_text(text, experiment)
    trials = _parse(new_text)
    nhat = n_hat_table(trials, *_analysis(experiment, old_nhat))
    if old_nhat is not None and not _same_values(old_nhat, nhat):
        raise MigrationError(f"{exp_dir}: the regenerated n_hat values differ from n_hat.csv; "
                             f"nothing written (aggregate it again from its sweep instead)")
    return text, new_text, trials, _parse(nhat)  # n_hat as read back from its file


def migrate(exp_dir: Path, check: bool = False) -> str:
    """Migrate one experiment directory; return a one-line report."""
    if not needs_migration(exp_dir):
        return f"{exp_dir}: already in the current layout"
    text, new_text, trials, nhat = convert(exp_dir)
    path, nhat_path = exp_dir / "trials.csv", exp_dir / "n_hat.csv"
    changed = new_text is not text
    dropped = sorted(set(text.columns) - set(new_text.columns))
    added = sorted(set(new_text.columns) - set(text.columns))
    if not check:
        if changed:
            write_csv_atomic(new_text, path)
        write_csv_atomic(nhat, nhat_path)
    verb = "would migrate" if check else "migrated"
    return (f"{exp_dir}: {verb} ({len(trials)} rows; dropped {', '.join(dropped) or '-'}; "
            f"added {', '.join(added) or '-'}; n_hat keys {', '.join(nhat.columns[:3])}, ...: "
            f"same n_hat values)")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path, help="results root (holds <experiment>/trials.csv)")
    parser.add_argument("experiments", nargs="*", help="only these (default: every one)")
    parser.add_argument("--check", action="store_true", help="report only, write nothing")
    args = parser.parse_args(argv)
    dirs = ([args.root / e for e in args.experiments] if args.experiments
            else sorted(p.parent for p in args.root.glob("*/trials.csv")))
    failed = []
    for d in dirs:
        if not (d / "trials.csv").exists():
            raise SystemExit(f"no {d / 'trials.csv'}")
        try:
            print(migrate(d, check=args.check), flush=True)
        except MigrationError as exc:  # say it, go on with the others
            print(f"error: {exc}", flush=True)
            failed.append(d.name)
    if failed:
        raise SystemExit(f"not migrated: {' '.join(failed)}")


if __name__ == "__main__":
    main()
