"""C4: the exponential mechanism's own price vs d, exactly (BMN20 Lemma 4.6; docs/model.md §§3-4).

NON-PRIVATE RESEARCH DIAGNOSTIC: this reads the score histogram of ``G`` on the whole sample,
private examples included (the same histogram ``PPMHalfspaceLearner.fit`` builds with
:func:`ppm.core.learner.make_scorer`), which a released model must never expose.

At fixed ``n`` (C4 population ``GaussianClusters(d, margin=0.1, w_pub=0.5)``), for each trial
sample :func:`sample_rows` builds ``C_pub`` from the public points, the exact histogram
``count[m]`` of the training mistakes over ``G``, and from it, without sampling, the law of the
mechanism's level ``P[m(g_hat) = m] ∝ count[m] exp(-epsilon m / 2)``
(:func:`ppm.core.mechanism.level_log_probabilities`). Reported per (d, epsilon, trial):

* ``excess_mean = E[m(g_hat)] - min_G m`` and ``excess_q = `` the ``(1 - beta)``-quantile of
  ``m(g_hat) - min_G m`` (what Lemma 4.6 bounds with probability ``1 - beta``);
* ``em_bound = (2/epsilon)(ln|G| + ln(1/beta))`` (:func:`ppm.bounds.em_excess`), in counts.

The histogram does not depend on epsilon, so one histogram serves every epsilon. The C4 rows,
bound check and panel are the claim's (:mod:`claims.c4_mechanism`), the command line
``scripts/mechanism_price.py``.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd

from ppm.bounds import em_excess
from ppm.core.halfspaces import construct_halfspaces
from ppm.core.hypothesis_class import class_size
from ppm.core.learner import make_scorer
from ppm.core.mechanism import level_log_probabilities
from ppm.populations import GaussianClusters

#: the table's place under a results root
CSV = "c4_dimension/mechanism_price.csv"
N, TRIALS, DIMS, EPSILONS, BETA, SEED = 40, 10, (1, 2, 3), (0.1, 1.0, 10.0), 0.1, 20201206


def sample_rows(d: int, n: int, trials: int, epsilons, beta: float, seed: int) -> list[dict]:
    """The rows of one d: one per (trial, epsilon); trial ``t``'s sample is drawn from
    ``SeedSequence([seed, d, n, t])``."""
    pop = GaussianClusters(d=d, w_pub=0.5, margin=0.1)
    rows = []
    for trial in range(trials):
        X, y, public = pop.sample(n, random_state=np.random.SeedSequence([seed, d, n, trial]))
        t0 = time.perf_counter()
        hs = construct_halfspaces(X[public], n_features=d)
        counts = make_scorer(hs, X, y).histogram()  # private data: diagnostic only
        seconds = time.perf_counter() - t0
        levels = np.arange(counts.size)
        m_min = int(levels[counts > 0][0])
        log_G = math.log(class_size(len(hs), d))
        for eps in epsilons:
            p = np.exp(level_log_probabilities(counts, eps))
            cdf = np.cumsum(p) / p.sum()
            q = int(levels[np.searchsorted(cdf, 1.0 - beta - 1e-12)])
            rows.append({"d": d, "n": n, "trial": trial, "n_pub": int(public.sum()),
                         "n_halfspaces": len(hs), "log_G": log_G, "epsilon": eps,
                         "beta": beta, "min_m": m_min,
                         # exactly rounded sums: the same bits on any BLAS and thread count
                         "excess_mean": math.fsum(p * levels) / math.fsum(p) - m_min,
                         "excess_q": q - m_min, "em_bound": em_excess(log_G, eps, beta),
                         "histogram_seconds": seconds})
    return rows


def price_table(dims=DIMS, n=N, trials=TRIALS, epsilons=EPSILONS, beta=BETA, seed=SEED,
                log=None) -> pd.DataFrame:
    """:func:`sample_rows` of every d, as one table. ``log``: called with each d's time."""
    rows = []
    for d in dims:
        t0 = time.perf_counter()
        rows += sample_rows(d, n, trials, epsilons, beta, seed)
        if log is not None:
            log(f"d={d}: {time.perf_counter() - t0:.1f} s")
    return pd.DataFrame(rows)


def summary(df: pd.DataFrame) -> pd.DataFrame:
    """Means per (d, epsilon), and the mean quantile's ratio to the mean bound."""
    out = (df.groupby(["d", "epsilon"])
           .agg(n_pub=("n_pub", "mean"), log_G=("log_G", "mean"), min_m=("min_m", "mean"),
                excess_mean=("excess_mean", "mean"), excess_q=("excess_q", "mean"),
                em_bound=("em_bound", "mean"))
           .reset_index())
    out["ratio_q_to_bound"] = out["excess_q"] / out["em_bound"]
    return out
