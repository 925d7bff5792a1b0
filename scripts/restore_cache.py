"""Restore the trial cache of long experiments from their committed ``trials.csv``.

    python -m scripts.restore_cache --from results --cache results/cache c4_dimension_d3 ...
    python -m scripts.restore_cache --forget --cache results/cache   # drop what was restored

See :mod:`experiments.cache` (what is restored, byte for byte, and what ``--forget`` deletes)
and :mod:`experiments.restoring` (the restore of each experiment).
One line per experiment whose trials were read; those whose ``trials.csv`` is unchanged since
it was last restored into this cache are not read again, and share one line.
"""

from __future__ import annotations

if __name__ == "__main__":  # Ctrl-C: one line, exit 130, from before the slow imports
    from experiments.lifecycle import stop_on_ctrl_c
    stop_on_ctrl_c('restoring committed trials (scripts.restore_cache)',
                   'rerun it: restoring is idempotent')

import argparse
from functools import partial
from pathlib import Path

from experiments.cache import forget
from experiments.restoring import restore_experiments


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("experiments", nargs="*")
    parser.add_argument("--from", dest="source", type=Path, default=Path("results"),
                        help="results root holding <experiment>/trials.csv (default: results)")
    parser.add_argument("--cache", type=Path, required=True, help="the trial cache to fill")
    parser.add_argument("--forget", action="store_true",
                        help="delete the restored trials instead")
    args = parser.parse_args(argv)
    if args.forget:
        print(f"restore_cache: forgot {forget(args.cache)} restored trials under {args.cache}")
        return
    restore_experiments(args.experiments, args.source, args.cache,
                        say=partial(print, flush=True))


if __name__ == "__main__":
    main()
