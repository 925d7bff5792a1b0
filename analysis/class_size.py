"""C4's exact ``ln|G|`` against ``d^2 ln n_pub`` (BMN20 Algorithms 1-2, proof of Theorem 4.9).

For d = 1..6 and several ``n_pub`` (:func:`class_size_table`), ``n_pub`` public points are drawn
from the C4 population (the public, label-0 side of ``GaussianClusters(d, margin=0.1)``: ``w_pub
= 1``; one draw of ``max(n_pub)`` points per d, prefixes for the smaller ``n_pub``), ``ConstrHalf``
(:func:`ppm.core.halfspaces.construct_halfspaces`, with its deduplication) builds ``C_pub``, and

    |G| = 1 + sum_{j=1..d} C(|C_pub|, j)

is computed exactly as a Python integer (:func:`ppm.bounds.hypothesis_class_size_from_halfspaces`;
``G`` itself is never enumerated), then ``ln |G|``. This is where the ``d^2`` of Theorem 4.9 comes
from: ``|C_pub| ~ 2 n_pub^d / d!`` and ``|G| ~ |C_pub|^d / d!``, so ``ln |G| ~ d^2 ln n_pub``
(docs/model.md §§2-4).

``ConstrHalf`` enumerates ``sum_{i<=d} C(n_pub, i)`` subsets of public points (one SVD each),
about 1e4-3e4 subsets/s here, so it is run only where that count is at most ``max_subsets``
(default 7e5: under a minute per cell). For example d = 6 stops at n_pub = 24 (C(32, 6) = 9e5
subsets, C(128, 6) = 5e9). The other cells get the general-position count ``|C_pub| = 2
sum_{i<=d} C(n_pub, i)`` (Algorithm 1's upper bound, which ConstrHalf attains in every cell
where it runs: Gaussian points are in general position almost surely), marked ``source =
general_position``.

The table's reading (:func:`fit_d2`, :func:`local_exponents`) is here too; the verdict row and
the panel are the claim's (:mod:`claims.c4.mechanism`), the command line
``scripts/log_class_size.py``.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd

from ppm.bounds import hypothesis_class_size_from_halfspaces, num_halfspaces_upper
from ppm.core.halfspaces import construct_halfspaces
from ppm.populations import GaussianClusters

#: the table's place under a results root
CSV = "c4_dimension/log_class_size.csv"
DIMS = (1, 2, 3, 4, 5, 6)
N_PUBS = (8, 16, 24, 32, 48, 64, 96, 128)
MAX_SUBSETS = 700_000


def n_subsets(n_pub: int, d: int) -> int:
    """Subsets ``ConstrHalf`` visits: ``sum_{i=1..d} C(n_pub, i)``."""
    return sum(math.comb(n_pub, i) for i in range(1, d + 1))


def class_size_table(dims=DIMS, n_pubs=N_PUBS, max_subsets=MAX_SUBSETS, seed=0,
                     log=None) -> pd.DataFrame:
    """One row per ``(d, n_pub)``: ``|C_pub|``, its general-position count, the exact ``ln|G|``
    and ``log10|G|``, ``d^2 ln n_pub``, the source of ``|C_pub|`` and ConstrHalf's time.
    ``log``: called with one progress line per cell (e.g. ``print``)."""
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
            if log is not None:
                log(f"d={d} n_pub={n_pub:4d} |C_pub|={m:>12d} ln|G|={math.log(size):9.2f} "
                    f"({source}, {seconds:.2f} s)")
    return pd.DataFrame(rows)


def fit_d2(df: pd.DataFrame) -> dict:
    """Least squares ``ln|G| = a d^2 ln n_pub + b``, with R^2."""
    x, y = df["d2_log_n_pub"].to_numpy(), df["log_G"].to_numpy()
    a, b = np.polyfit(x, y, 1)
    r2 = 1.0 - np.sum((y - (a * x + b)) ** 2) / np.sum((y - y.mean()) ** 2)
    return {"slope": float(a), "intercept": float(b), "r2": float(r2), "points": int(len(df))}


def local_exponents(df: pd.DataFrame, pair: int = -1) -> pd.DataFrame:
    """Per d, the slope of ``ln|G|`` on ``ln n_pub`` between consecutive n_pub (-> d^2).

    ``pair = -1``: the two largest n_pub; ``-2``: the next window down, and so on.
    """
    out = []
    for d, g in df.sort_values("n_pub").groupby("d"):
        a, b = g.iloc[pair - 1], g.iloc[pair]
        out.append({"d": int(d), "d2": int(d * d), "n_pub_pair": f"{int(a.n_pub)}-{int(b.n_pub)}",
                    "exponent": (b.log_G - a.log_G) / math.log(b.n_pub / a.n_pub)})
    return pd.DataFrame(out)


def summary(df: pd.DataFrame) -> str:
    """How often ConstrHalf attains the general-position count, the ``d^2`` fit on the
    ConstrHalf cells and on all cells, and the top local exponents (a few lines of text)."""
    exact = df[df["source"] == "constrhalf"]
    lines = [f"ConstrHalf attains the general-position |C_pub| in "
             f"{int((exact.n_halfspaces == exact.n_halfspaces_upper).sum())}/{len(exact)} cells"]
    for name, part in (("ConstrHalf cells", exact), ("all cells", df)):
        f = fit_d2(part)
        lines.append(f"fit ln|G| = {f['slope']:.3f} d^2 ln n_pub + {f['intercept']:.2f} "
                     f"(R^2 = {f['r2']:.4f}, {f['points']} {name})")
    lines.append(local_exponents(df).to_string(index=False))
    return "\n".join(lines)
