"""The registry: every claim, in the order of the verdict table.

    python -m claims.registry --experiments [--quick]   # the sweeps `make reproduce` runs
    python -m claims.registry --experiments --claims C5 C9   # ... of these claims only
    python -m claims.registry --check C5 c9_domain       # one error line for an unknown claim
    python -m claims.registry --experiments --skip-long # ... without the long ones (base names)
    python -m claims.registry --long                     # the long ones (trials committed)
    python -m claims.registry --restored                 # long + committed: make reproduce restores
    python -m claims.registry                            # id, experiments and statement per claim

Long experiments (``Claim.long``) are left out of the quick profile: ``--quick`` lists the
``_quick`` twins of the others only. ``make reproduce`` restores the committed trials of the long
and the ``Claim.committed`` experiments (``--restored``) before it runs.

Adding a claim: write ``claims/<name>.py`` exporting ``CLAIM`` (see ``claims/c5_mixture_weight.py``;
a claim with helper modules of its own is a package, e.g. ``claims/c4/``) and its experiment
configs ``configs/experiment/<exp>.yaml`` + ``<exp>_quick.yaml``, then name the module in
:data:`MODULES`. ``scripts/reproduce.py`` (behind the Makefile), ``scripts/figures.py``,
``scripts/summary.py`` and the notebook read this list.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import sys
from pathlib import Path

from claims.base import Claim

# The claim modules under claims/, in the order of the verdict table; each exports ``CLAIM``. A
# claim with parts of its own is a package, named here by its claim module (``c4.dimension``).
MODULES = ("c1_realizable", "c2.agnostic", "c3_epsilon", "c4.dimension", "c5_mixture_weight",
           "c6_privacy", "c7_helly", "c8_relaxations", "c9_domain", "c10_homogeneity",
           "c11_set_cover", "c12_grid_halfplanes", "c13_generic", "c14_label_boost", "c15_active",
           "c16.union_polygons", "c17_rectangles", "real_breast_cancer", "privacy_audits")
CLAIMS: tuple[Claim, ...] = tuple(importlib.import_module(f"claims.{m}").CLAIM for m in MODULES)
QUICK_SUFFIX = "_quick"


CONFIGS = Path(__file__).resolve().parents[1] / "configs" / "experiment"


def get(key: str) -> Claim:
    """A claim by id ("C5", any case) or name ("c5_mixture_weight")."""
    for c in CLAIMS:
        if key in (c.id, c.name) or str(key).lower() == c.id.lower():
            return c
    raise KeyError(unknown_claim(key))


def unknown_claim(key: str) -> str:
    """One line for a claim that is not in the registry, with the closest ids and names."""
    names = [c.id for c in CLAIMS] + [c.name for c in CLAIMS]
    close = difflib.get_close_matches(str(key), names, n=3, cutoff=0.5)
    return (f"no claim {key!r} ({'did you mean ' + ' or '.join(close) + '? ' if close else ''}"
            f"claims: {', '.join(c.id for c in CLAIMS)}; python -m claims.registry lists them)")


def claim_experiments(keys, quick: bool = False) -> list[str]:
    """The experiments of the claims ``keys`` (ids or names; base names, in registry order);
    ``quick``: without the long ones (the quick profile has no twin of them)."""
    chosen = [get(k) for k in keys]  # KeyError: one line, the first unknown claim
    names = list(dict.fromkeys(e for c in chosen for e in c.experiments))
    return [n for n in names if n not in long_experiments()] if quick else names


def resolve(names, suffix: str = "") -> tuple[list[str], list[str]]:
    """What ``EXPERIMENTS`` names, as base experiment names, and one note per expansion.

    Each entry is an experiment config (``c5_mixture_weight``; the profile's suffix typed too,
    ``c5_mixture_weight_quick``, is accepted) or a claim id or name (``C5``,
    ``c5_mixture_weight``'s claim ``C5``), which stands for that claim's experiments (in the
    quick profile without its long ones). Anything else raises ``ValueError`` with one line
    naming it and the closest names as they are to be typed (base names, never with the
    suffix ``make`` adds)."""
    available = {p.stem for p in CONFIGS.glob("*.yaml")}
    base = sorted(n for n in available if not n.endswith(QUICK_SUFFIX))
    out, notes = [], []
    for name in names:
        stem = name[:-len(suffix)] if suffix and name.endswith(suffix) else name
        if stem + suffix in available and stem in base:
            out.append(stem)
            continue
        try:
            claim = get(name)
        except KeyError:
            close = difflib.get_close_matches(stem, base + [c.id for c in CLAIMS], n=3,
                                              cutoff=0.5)
            raise ValueError(
                f"no experiment {name!r} "
                f"({'did you mean ' + ' or '.join(close) + '? ' if close else ''}experiments: "
                f"ls configs/experiment | grep -v _quick; claims: C1..C16 or real_breast_cancer, "
                f"e.g. CLAIMS=C5)") from None
        exps = claim_experiments([claim.id], quick=suffix == QUICK_SUFFIX)
        skipped = [e for e in claim.experiments if e not in exps]
        notes.append(f"== {claim.id}: its experiments {' '.join(exps) or '(none)'}"
                     + (f" ({' '.join(skipped)}: long, not in the quick profile)" if skipped
                        else "") + ("" if claim.experiments else " (exact audits: make audit)"))
        out.extend(exps)
    return list(dict.fromkeys(out)), notes


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
    parser.add_argument("--claims", nargs="+", default=None,
                        help="with --experiments: only the experiments of these claims (ids "
                             "or names)")
    parser.add_argument("--check", nargs="*", default=None,
                        help="exit 2 with one error line if any of these is not a claim")
    parser.add_argument("--restored", action="store_true",
                        help="print what make reproduce restores from committed trials "
                             "(long + committed)")
    args = parser.parse_args(argv)
    if args.check is not None:
        for key in args.check:
            try:
                get(key)
            except KeyError as exc:
                print(f"error: CLAIMS: {exc.args[0]}", file=sys.stderr)
                raise SystemExit(2) from None
        return
    if args.experiments and args.claims:
        try:  # an unknown claim prints nothing here: the Makefile's --check step says why
            names = claim_experiments(args.claims, quick=args.quick or args.skip_long)
        except KeyError:
            raise SystemExit(2) from None
        print(" ".join(n + QUICK_SUFFIX for n in names) if args.quick else " ".join(names))
        return
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
