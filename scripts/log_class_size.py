"""C4: ``ln |G|`` against ``d^2 ln n_pub``, from ``|C_pub|`` built by ``ConstrHalf`` (docs/model.md §§2-4).

    python -m scripts.log_class_size [--out results/c4_dimension/log_class_size.csv]
                                     [--overwrite-committed]  # the default --out is committed

For d = 1..6 and several ``n_pub``, draws ``n_pub`` public points from the C4 population (the
public, label-0 side of ``GaussianClusters(d, margin=0.1)``: ``w_pub = 1``; one draw of
``max(n_pub)`` points per d, prefixes for the smaller ``n_pub``), runs ``ConstrHalf``
(:func:`ppm.core.halfspaces.construct_halfspaces`, with its deduplication) and computes

    |G| = 1 + sum_{j=1..d} C(|C_pub|, j)

exactly as a Python integer (:func:`ppm.bounds.hypothesis_class_size_from_halfspaces`; ``G``
itself is never enumerated), then ``ln |G|``. This is where the ``d^2`` of Theorem 4.9 comes
from: ``|C_pub| ~ 2 n_pub^d / d!`` and ``|G| ~ |C_pub|^d / d!``, so ``ln |G| ~ d^2 ln n_pub``.

``ConstrHalf`` enumerates ``sum_{i<=d} C(n_pub, i)`` subsets of public points (one SVD each),
about 1e4-3e4 subsets/s here, so it is run only where that count is at most ``--max-subsets``
(default 7e5: under a minute per cell). For example d = 6 stops at n_pub = 24 (C(32, 6) =
9e5 subsets, C(128, 6) = 5e9). The other cells get the general-position count
``|C_pub| = 2 sum_{i<=d} C(n_pub, i)`` (Algorithm 1's upper bound, which ConstrHalf attains in
every cell where it runs: Gaussian points are in general position almost surely), marked
``source = general_position``; the fits are reported on the ConstrHalf cells and on all cells.
The analysis of the table (fit, local exponents, the C4 row and panel) is the claim's:
:mod:`claims.c4_mechanism`; this script only produces the CSV.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import pandas as pd

from claims.c4_mechanism import fit_d2, local_exponents  # the claim's analysis of this table
from ppm.files import write_csv_atomic
from ppm.bounds import hypothesis_class_size_from_halfspaces, num_halfspaces_upper
from ppm.core.halfspaces import construct_halfspaces
from ppm.populations import GaussianClusters
from experiments import committed

DIMS = (1, 2, 3, 4, 5, 6)
N_PUBS = (8, 16, 24, 32, 48, 64, 96, 128)


def n_subsets(n_pub: int, d: int) -> int:
    """Subsets ``ConstrHalf`` visits: ``sum_{i=1..d} C(n_pub, i)``."""
    return sum(math.comb(n_pub, i) for i in range(1, d + 1))


def class_size_rows(dims=DIMS, n_pubs=N_PUBS, max_subsets=700_000, seed=0) -> pd.DataFrame:
    rows = []
    for d in dims:
        X, _, _ = GaussianClusters(d=d, w_pub=1.0, margin=0.1).sample(max(n_pubs),
                                                                     random_state=seed + d)
        for n_pub in n_pubs:
            upper = num_halfspaces_upper(n_pub, d)
            if n_subsets(n_pub, d) <= max_subsets:
                t0 = time.perf_counter()
                m = len(construct_halfspaces(X[:n_pub]))
                seconds, source = time.perf_counter() - t0, "constrhalf"
            else:
                m, seconds, source = upper, math.nan, "general_position"
            size = hypothesis_class_size_from_halfspaces(m, d)  # exact Python int
            rows.append({"d": d, "n_pub": n_pub, "n_subsets": n_subsets(n_pub, d),
                         "n_halfspaces": m, "n_halfspaces_upper": upper,
                         "log_G": math.log(size), "log10_G": math.log10(size),
                         "d2_log_n_pub": d * d * math.log(n_pub), "source": source,
                         "constrhalf_seconds": seconds})
            print(f"d={d} n_pub={n_pub:4d} |C_pub|={m:>12d} ln|G|={math.log(size):9.2f} "
                  f"({source}, {seconds:.2f} s)", flush=True)
    return pd.DataFrame(rows)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path,
                        default=Path("results/c4_dimension/log_class_size.csv"))
    parser.add_argument("--max-subsets", type=float, default=7e5)
    parser.add_argument("--seed", type=int, default=0)
    committed.add_flag(parser)
    args = parser.parse_args(argv)
    committed.refuse_committed([args.out], args.overwrite_committed)
    df = class_size_rows(max_subsets=args.max_subsets, seed=args.seed)
    write_csv_atomic(df, args.out)
    exact = df[df["source"] == "constrhalf"]
    print(f"ConstrHalf attains the general-position |C_pub| in "
          f"{int((exact.n_halfspaces == exact.n_halfspaces_upper).sum())}/{len(exact)} cells")
    for name, part in (("ConstrHalf cells", exact), ("all cells", df)):
        f = fit_d2(part)
        print(f"fit ln|G| = {f['slope']:.3f} d^2 ln n_pub + {f['intercept']:.2f} "
              f"(R^2 = {f['r2']:.4f}, {f['points']} {name})")
    print(local_exponents(df).to_string(index=False))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
