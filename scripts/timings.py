"""Time a documented command as a user runs it, and record the machine and its load beside it.

    python -m scripts.timings --label "make test" -- make test
    python -m scripts.timings --label "make reproduce PROFILE=quick" -- make reproduce PROFILE=quick

One row per run is appended to ``results/timings.csv`` (``--out``): when, the commit, the
label and the command, the wall time, the exit status, the CPU count, the 1-minute load
average before and after (a time measured under load says so), the CPU model and Python. The
times the README and docs/reproducing.md state are read from this file.
"""

from __future__ import annotations

if __name__ == "__main__":  # Ctrl-C: one line, exit 130, from before the slow imports
    from experiments.lifecycle import stop_on_ctrl_c
    stop_on_ctrl_c("timing a command (scripts.timings)", "rerun it")

import argparse
import csv
import datetime as dt
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

COLUMNS = ["when", "commit", "label", "command", "wall_seconds", "exit", "cpus",
           "load1_before", "load1_after", "cpu_model", "python"]


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
        return out + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return ""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", required=True, help="the command as the docs name it")
    parser.add_argument("--out", type=Path, default=Path("results/timings.csv"))
    parser.add_argument("command", nargs=argparse.REMAINDER, help="after --: the command")
    args = parser.parse_args(argv)
    cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not cmd:
        parser.exit(2, "error: no command to time (give it after --)\n")
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    rc = subprocess.call(cmd)
    wall = time.perf_counter() - start
    row = dict(when=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
               commit=commit(), label=args.label, command=" ".join(cmd),
               wall_seconds=f"{wall:.1f}", exit=rc, cpus=os.cpu_count(),
               load1_before=f"{load_before:.2f}", load1_after=f"{os.getloadavg()[0]:.2f}",
               cpu_model=cpu_model(), python=platform.python_version())
    new = not args.out.exists()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "a", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=COLUMNS)
        if new:
            writer.writeheader()
        writer.writerow(row)
    print(f"timings: {args.label}: {wall / 60:.1f} min wall, exit {rc}, {row['cpus']} CPUs, "
          f"load {row['load1_before']} -> {row['load1_after']} ({args.out})", file=sys.stderr)
    return rc


if __name__ == "__main__":
    sys.exit(main())
