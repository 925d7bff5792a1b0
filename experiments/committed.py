"""The committed results are written only on purpose.

``results/`` of this repository holds the committed results (CSVs, figures, verdict tables);
its scratch roots ``results/local/``, ``results/quick/``, ``results/overrides/``,
``results/cache/`` and ``results/notebook/`` are not committed (.gitignore). A script that writes
files refuses a destination in the committed tree unless it is given ``--overwrite-committed``
(``make reproduce`` and ``make bench`` pass it: regenerating those files is what they are for).
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
COMMITTED = REPO / "results"
SCRATCH_ROOTS = ("local", "quick", "overrides", "cache", "notebook")
FLAG = "--overwrite-committed"


def is_committed(dest: Path) -> bool:
    """Would writing ``dest`` replace committed results (``results/...`` of this repository,
    outside its scratch roots)?"""
    try:
        rel = Path(dest).resolve().relative_to(COMMITTED.resolve())
    except ValueError:
        return False
    return not rel.parts or rel.parts[0] not in SCRATCH_ROOTS


def add_flag(parser) -> None:
    parser.add_argument(FLAG, "--force", dest="overwrite_committed", action="store_true",
                        help="allow writing into the committed results/ (refused without it)")


def refuse_committed(dests, overwrite: bool) -> None:
    """Exit with one line (status 2) if any of ``dests`` is committed and ``overwrite`` is off."""
    committed = [Path(d) for d in dests if is_committed(d)]
    if committed and not overwrite:
        first = committed[0]
        print(f"error: refusing to write {', '.join(map(str, committed))}: committed results "
              f"live there. Write to a scratch root instead (e.g. results/local/{first.name}), "
              f"or pass {FLAG} to replace them on purpose.", file=sys.stderr)
        sys.exit(2)
