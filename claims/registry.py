"""The registry: every claim, in the order of the verdict table.

    python -m claims.registry --experiments [--quick]   # the sweeps `make reproduce` runs
    python -m claims.registry --experiments --skip-long # ... without the long ones (base names)
    python -m claims.registry --long                     # the long ones (trials committed)
    python -m claims.registry --restored                 # long + committed: make reproduce restores
    python -m claims.registry                            # id, experiments and statement per claim

Long experiments (``Claim.long``) are left out of the quick profile: ``--quick`` lists the
``_quick`` twins of the others only. ``make reproduce`` restores the committed trials of the long
and the ``Claim.committed`` experiments (``--restored``) before it runs.

Adding a claim: write ``claims/<name>.py`` exporting ``CLAIM`` (see ``claims/c5_mixture_weight.py``)
and its experiment configs ``configs/experiment/<exp>.yaml`` + ``<exp>_quick.yaml``, then list
the module below. The Makefile, ``scripts/figures.py``, ``scripts/summary.py`` and the notebook
read this list.
"""

from __future__ import annotations

import argparse

from claims import (c1_realizable, c2_agnostic, c3_epsilon, c4_dimension, c5_mixture_weight,
                    c6_privacy, c7_helly, c8_relaxations, c9_domain, c10_homogeneity,
                    c11_set_cover, c12_grid_halfplanes, c13_generic, c14_label_boost,
                    c15_active, c16_union_polygons, real_breast_cancer)
from claims.base import Claim

CLAIMS: tuple[Claim, ...] = tuple(m.CLAIM for m in (
    c1_realizable, c2_agnostic, c3_epsilon, c4_dimension, c5_mixture_weight, c6_privacy,
    c7_helly, c8_relaxations, c9_domain, c10_homogeneity, c11_set_cover, c12_grid_halfplanes,
    c13_generic, c14_label_boost, c15_active, c16_union_polygons, real_breast_cancer))
QUICK_SUFFIX = "_quick"


def get(key: str) -> Claim:
    """A claim by id ("C5") or name ("c5_mixture_weight")."""
    for c in CLAIMS:
        if key in (c.id, c.name):
            return c
    raise KeyError(f"no claim {key!r}; known: {[c.name for c in CLAIMS]}")


def experiments(quick: bool = False, skip_long: bool = False) -> list[str]:
    """Every experiment config some claim reads, once, in registry order; ``quick``: the
    ``_quick`` twins, without the long experiments (which have none to run)."""
    names = list(dict.fromkeys(e for c in CLAIMS for e in c.experiments))
    if quick or skip_long:
        names = [n for n in names if n not in long_experiments()]
    return [n + QUICK_SUFFIX for n in names] if quick else names


def long_experiments() -> list[str]:
    """The experiments marked long by their claim (``Claim.long``): trials committed."""
    return list(dict.fromkeys(e for c in CLAIMS for e in c.long))


def restored_experiments() -> list[str]:
    """What ``make reproduce`` restores from committed trials (``RECOMPUTE=1``: nothing): the
    long experiments and those a claim marks ``committed``."""
    return list(dict.fromkeys(list(long_experiments())
                              + [e for c in CLAIMS for e in c.committed]))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="the claims and the experiments they read")
    parser.add_argument("--experiments", action="store_true",
                        help="print the experiment configs, space separated (for the Makefile)")
    parser.add_argument("--quick", action="store_true",
                        help="their _quick twins (long experiments left out)")
    parser.add_argument("--skip-long", action="store_true",
                        help="leave out the long experiments (base names)")
    parser.add_argument("--long", action="store_true",
                        help="print the long experiments (trials committed, restored)")
    parser.add_argument("--restored", action="store_true",
                        help="print what make reproduce restores from committed trials "
                             "(long + committed)")
    args = parser.parse_args(argv)
    if args.experiments:
        print(" ".join(experiments(args.quick, args.skip_long)))
        return
    if args.long:
        print(" ".join(long_experiments()))
        return
    if args.restored:
        print(" ".join(restored_experiments()))
        return
    for c in CLAIMS:
        print(f"{c.id:>9}  {c.name:<20} {' '.join(c.experiments) or '(exact audits)':<40} "
              f"{c.statement}" + (f"  [long: {' '.join(c.long)}]" if c.long else "")
              + (f"  [committed: {' '.join(c.committed)}]" if c.committed else ""))


if __name__ == "__main__":
    main()
