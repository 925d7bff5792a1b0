"""Entry point: a thin ``@hydra.main`` over :func:`experiments.pipeline.run`.

    .venv/bin/python -m experiments.run -m experiment=c1_realizable_d1   # the sweep of a figure
    .venv/bin/python -m experiments.run n=200 population.d=2 learner.epsilon=0.5  # one cell

Each job (one cell of the sweep) writes ``trials.csv`` into its Hydra output directory
(a single cell: ``outputs/single/<timestamp>/``, printed at the end); ``analysis/aggregate.py``
collects them. Finished trials are cached under ``<results_root>/cache`` so an interrupted
sweep resumes where it stopped.

Errors a user can read: a bad value, an unknown key or group option, or a wrong type on the
command line ends with one line ``error: ...`` naming the key and the value, and exit status 2,
before any trial runs (a misspelled experiment or other group option: the closest names, not
all of them); ``HYDRA_FULL_ERROR=1`` shows the full traceback instead. Ctrl-C ends with one line
saying which finished trials were kept. An experiment that defines a sweep grid
(``hydra.sweeper.params``) run without ``--multirun``/``-m`` runs one cell, and says so on
stderr.
"""

from __future__ import annotations

import os
import signal
import sys


def _interrupted_while_starting(signum, frame) -> None:
    """Ctrl-C before :func:`cli` runs (the imports take seconds): one line, no traceback."""
    print("interrupted while the sweep was starting: none of its trials had run",
          file=sys.stderr, flush=True)
    os._exit(130)


if __name__ == "__main__" and signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
    signal.signal(signal.SIGINT, _interrupted_while_starting)

import difflib  # noqa: E402
import re  # noqa: E402
from pathlib import Path  # noqa: E402

import hydra  # noqa: E402
from hydra.core.hydra_config import HydraConfig  # noqa: E402
from hydra.errors import MissingConfigException  # noqa: E402
from hydra.types import RunMode  # noqa: E402
from omegaconf import DictConfig  # noqa: E402

from experiments import lifecycle  # noqa: E402
from experiments.pipeline import run, validate_config  # noqa: E402
from experiments.schema import register_configs  # noqa: E402

CONFIG_DIR = str(Path(__file__).resolve().parent.parent / "configs")

register_configs()


@hydra.main(version_base="1.3", config_path=CONFIG_DIR, config_name="config")
def main(cfg: DictConfig) -> None:
    hc = HydraConfig.get()
    single = hc.mode == RunMode.RUN
    if single:
        grid = hc.sweeper.get("params") or {}
        if grid:
            print(f"note: experiment {hc.runtime.choices.get('experiment')} defines a sweep grid "
                  f"(hydra.sweeper.params: {', '.join(grid)}) that was not expanded: this runs "
                  f"one cell (n={cfg.n}); --multirun/-m expands it", file=sys.stderr, flush=True)
        lifecycle.SESSION["results_root"] = cfg.results_root
        try:  # a sweep's cells are validated by experiments.callbacks.ValidateSweep
            validate_config(cfg)
        except (ValueError, TypeError) as exc:
            if lifecycle.SESSION.get("full_error"):
                raise
            raise SystemExit(str(exc)) from exc  # not an Exception: Hydra adds no banner
    df = run(cfg)
    out = Path(hc.runtime.output_dir) / "trials.csv"
    df.to_csv(out, index=False)
    if single:
        print(f"wrote {out} ({len(df)} rows: {cfg.trials} trials x "
              f"{df['learner'].nunique()} learners); trial cache: "
              f"{Path(cfg.results_root) / 'cache' / str(df['cell_key'].iloc[0])}", flush=True)


_NOISE = re.compile(r"^\s*(full_key|object_type|reference_type|msg)\s*[:=]|"
                    r"^Set the environment variable HYDRA_FULL_ERROR")


def one_line(exc: BaseException) -> str:
    """The messages of an exception chain on one line, without Hydra's debugging fields."""
    parts: list[str] = []
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        lines = [ln.strip() for ln in str(exc).splitlines()]
        msg = " ".join(ln for ln in lines if ln and not _NOISE.match(ln))
        msg = msg.split(" Config search path:")[0]  # after "Available options in ...: a b c"
        if msg and "$VALUE" not in msg and not any(msg in p or p in msg for p in parts):
            parts.append(msg)
        exc = exc.__cause__ or exc.__context__
    return ": ".join(parts) or "unknown error"


def missing_option(exc: BaseException) -> str | None:
    """One line for an unknown config group option (``experiment=c5_mixture_weigth``): the
    closest names instead of Hydra's list of every option; ``None`` for other errors."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, MissingConfigException) and exc.missing_cfg_file and exc.options:
            group, _, name = str(exc.missing_cfg_file).rpartition("/")
            # the structured-config schemas (experiments/schema.py) are no option to choose
            options = [o for o in exc.options if not o.endswith("_schema")] or list(exc.options)
            close = difflib.get_close_matches(name, options, n=3, cutoff=0.6)
            hint = (f"did you mean {' or '.join(close)}?" if close
                    else "no option has a similar name")
            return (f"no config {exc.missing_cfg_file} ({len(options)} {group} options: ls "
                    f"configs/{group}): {hint}")
        exc = exc.__cause__ or exc.__context__
    return None


def cli() -> None:
    """``main()`` with one-line errors (unless ``HYDRA_FULL_ERROR=1``) and a one-line Ctrl-C."""
    full_error = os.environ.get("HYDRA_FULL_ERROR") == "1"
    lifecycle.SESSION["full_error"] = full_error
    # Until the config is composed, Ctrl-C counts the trials of the root named on the command
    # line (results_root=...; the config's default otherwise).
    lifecycle.SESSION["results_root"] = next(
        (a.split("=", 1)[1] for a in reversed(sys.argv) if a.startswith("results_root=")),
        "results")
    os.environ["HYDRA_FULL_ERROR"] = "1"  # Hydra re-raises; the message is formatted below
    # After Ctrl-C the pools' resource trackers (separate processes) would each warn about the
    # semaphores of the killed workers; the one line below says what matters.
    os.environ["PYTHONWARNINGS"] = ",".join(
        filter(None, [os.environ.get("PYTHONWARNINGS"), "ignore:resource_tracker:UserWarning"]))
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)  # from here: KeyboardInterrupt
    try:
        main()
    except KeyboardInterrupt:
        print(lifecycle.interrupted_message(),
              file=sys.stderr, flush=True)
        os._exit(130)  # no interpreter teardown: worker pools would print their own tracebacks
    except SystemExit as exc:
        if isinstance(exc.code, str):  # a message (experiments.callbacks.ValidateSweep)
            print(f"error: {exc.code}", file=sys.stderr, flush=True)
            sys.exit(2)
        raise
    except Exception as exc:
        if full_error:
            raise
        print(f"error: {missing_option(exc) or one_line(exc)}  (HYDRA_FULL_ERROR=1 for the "
              f"traceback)", file=sys.stderr, flush=True)
        sys.exit(2)


if __name__ == "__main__":
    cli()
