"""Execute a notebook (a jupytext percent script in ``notebooks/``) into one self-contained HTML
page, its figures inline.

    python -m scripts.notebook [--results results] [--out results/notebook] [NOTEBOOK.py ...]

``make notebook [RESULTS=results/quick]`` runs this. Each notebook (default: every
``notebooks/*.py``: ``inspect_results.py``, which reads the results root, and
``privacy_utility.py``, which fits the learners on the breast-cancer data shipped with
scikit-learn, under a minute on one core, and reads no results) is read with jupytext, executed with nbclient in a ``python3`` kernel
(ipykernel) from ``notebooks/``, on the results root given by ``--results`` (passed to the
kernel as ``PPM_RESULTS``), and written by nbconvert to ``<out>/<name>.html`` (every figure a
PNG embedded in the page: it opens anywhere, offline) and ``<out>/<name>.ipynb`` (open it with
Jupyter to go on from there). A cell that fails stops the run with its error.
"""

from __future__ import annotations

if __name__ == "__main__":  # Ctrl-C: one line, exit 130, from before the slow imports
    from experiments.lifecycle import stop_on_ctrl_c
    stop_on_ctrl_c('the notebook (scripts.notebook)',
                   'rerun it (make notebook)')

import argparse
import sys
from pathlib import Path

from analysis.notebooks import execute, to_html

ROOT = Path(__file__).resolve().parent.parent


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", type=Path, nargs="*",
                        default=sorted((ROOT / "notebooks").glob("*.py")))
    parser.add_argument("--results", type=Path, default=Path("results"),
                        help="the results root the notebook reads (make reproduce writes it)")
    parser.add_argument("--out", type=Path, default=None,
                        help="directory of the HTML pages (default: <results>/notebook)")
    args = parser.parse_args(argv)
    if not args.results.is_dir():
        print(f"error: no results root {args.results}: run make reproduce (or make reproduce "
              f"PROFILE=quick and make notebook RESULTS=results/quick) first", file=sys.stderr)
        return 2
    out_dir = args.out or args.results / "notebook"
    for path in args.notebooks:
        try:
            nb = execute(path.resolve(), args.results)
        except Exception as exc:  # noqa: BLE001  nbclient's CellExecutionError: the cell's error
            print(f"error: {path} failed on {args.results}:\n{exc}", file=sys.stderr)
            return 1
        html = to_html(nb, out_dir / f"{path.stem}.html")
        images = sum("image/png" in o.get("data", {}) for c in nb.cells
                     for o in c.get("outputs", []))
        print(f"{path.relative_to(ROOT) if path.resolve().is_relative_to(ROOT) else path}: "
              f"executed on {args.results} -> {html} ({images} figures inline; the executed "
              f"notebook beside it: {html.with_suffix('.ipynb')})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
