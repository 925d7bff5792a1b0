"""Figure and verdicts of claim C1 only (``claims/c1_realizable.py``).

    python -m scripts.plot_c1 --results results [--n-boot 300]

Kept as a shortcut; ``scripts/figures.py --only C1`` does the same.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from scripts import figures


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=Path("results"))
    parser.add_argument("--n-boot", type=int, default=figures.N_BOOT)
    args = parser.parse_args(argv)
    figures.main(["--results", str(args.results), "--n-boot", str(args.n_boot), "--only", "C1"])


if __name__ == "__main__":
    main()
