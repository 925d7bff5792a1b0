"""C4: the exponential mechanism's privacy price vs d, exactly (BMN20 Lemma 4.6; docs/model.md §§3-4).

NON-PRIVATE RESEARCH DIAGNOSTIC: this reads the score histogram of ``G`` on the whole sample,
private examples included (the same histogram ``PPMHalfspaceLearner.fit`` builds with
:func:`ppm.core.learner.make_scorer`), which a released model must never expose.

The design (``configs/c4_price.yaml``, :class:`PriceDesign`): at a fixed sample size ``n`` and
a fixed number ``n_pub`` of public rows (population ``GaussianClusters(d, w_pub, margin)``
conditioned on exactly ``n_pub`` public rows: :func:`fixed_sample`), for each sample
:func:`sample_rows` builds ``C_pub`` from the public points (ConstrHalf), the exact histogram
``count[m]`` of the training mistakes over ``G``, and from it, without sampling, the law of the
mechanism's level ``P[m(g_hat) = m] ∝ count[m] exp(-epsilon m / 2)``
(:func:`ppm.mechanisms.level_log_probabilities`). Reported per (d, sample, epsilon):

* ``excess_mean = E[m(g_hat)] - min_G m``: the privacy price in training mistakes (in this
  realizable population ``min_G m = 0``, BMN20 Lemma 4.5, so every mistake is the mechanism's);
* ``excess_q``: the ``(1 - beta)``-quantile of ``m(g_hat) - min_G m``, what Lemma 4.6 bounds;
* ``em_bound = (2/epsilon)(ln|G| + ln(1/beta))`` (:func:`ppm.bounds.em_excess`), in counts;
* ``log_G`` (exact ``ln|G|``) and ``log_c_min`` (``ln count[min_G m]``: the hypotheses at the
  minimal score, which the union bound behind the lemma ignores).

The histogram does not depend on epsilon, so one histogram serves every epsilon. Fixing
``n_pub`` fixes the class's size law across samples, so the growth in d is read at one public
sample size. The rows are a function of (design, d, sample) only: the same on any device.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ppm.bounds import em_excess
from ppm.core.halfspaces import construct_halfspaces
from ppm.core.hypothesis_class import class_size
from ppm.core.learner import make_scorer
from ppm.mechanisms import level_log_probabilities
from ppm.populations import GaussianClusters

#: the tables' places under a results root: d on a CPU, d on a GPU (a batch's rows)
CSV = "c4_dimension/privacy_price.csv"
CSV_GPU = "c4_dimension/privacy_price_gpu.csv"
CONFIG = Path(__file__).resolve().parent.parent / "configs" / "c4_price.yaml"
_KEYS = ("population", "n", "n_pub", "samples", "dims_cpu", "dims_gpu", "epsilons",
         "counted_epsilon", "beta", "seed")


@dataclass(frozen=True)
class PriceDesign:
    """The fixed design of C4's price table (``configs/c4_price.yaml``)."""

    n: int
    n_pub: int
    samples: int
    dims_cpu: tuple[int, ...]
    dims_gpu: tuple[int, ...]
    epsilons: tuple[float, ...]
    counted_epsilon: float
    beta: float
    seed: int
    w_pub: float
    margin: float

    def __post_init__(self):
        if not 1 <= self.n_pub < self.n:
            raise ValueError(f"c4 price design: n_pub must be in [1, n), got n_pub = "
                             f"{self.n_pub}, n = {self.n}")
        if self.samples < 2:
            raise ValueError(f"c4 price design: samples must be >= 2, got {self.samples}")
        if any(int(d) < 1 for d in self.dims_cpu + self.dims_gpu):
            raise ValueError(f"c4 price design: every d must be >= 1, got "
                             f"{list(self.dims_cpu + self.dims_gpu)}")
        if not self.epsilons or min(self.epsilons) <= 0:
            raise ValueError(f"c4 price design: epsilons must be > 0, got {list(self.epsilons)}")
        if self.counted_epsilon not in self.epsilons:
            raise ValueError(f"c4 price design: counted_epsilon {self.counted_epsilon:g} is not "
                             f"one of the epsilons {list(self.epsilons)}")
        if not 0 < self.beta < 1:
            raise ValueError(f"c4 price design: beta must be in (0, 1), got {self.beta}")


def load_design(path=CONFIG) -> PriceDesign:
    """The design in ``path`` (one error line naming a missing or unknown key)."""
    import yaml

    data = yaml.safe_load(Path(path).read_text())
    if not isinstance(data, dict) or set(data) != set(_KEYS):
        got = sorted(data) if isinstance(data, dict) else type(data).__name__
        raise ValueError(f"{path}: the keys must be {', '.join(_KEYS)}, got {got}")
    pop = data["population"]
    return PriceDesign(
        n=int(data["n"]), n_pub=int(data["n_pub"]), samples=int(data["samples"]),
        dims_cpu=tuple(int(d) for d in data["dims_cpu"]),
        dims_gpu=tuple(int(d) for d in data["dims_gpu"]),
        epsilons=tuple(float(e) for e in data["epsilons"]),
        counted_epsilon=float(data["counted_epsilon"]), beta=float(data["beta"]),
        seed=int(data["seed"]), w_pub=float(pop["w_pub"]), margin=float(pop["margin"]))


def fixed_sample(design: PriceDesign, d: int, sample: int):
    """Sample ``sample`` at dimension ``d``: i.i.d. rows of the population, of which the first
    ``n_pub`` public and the first ``n - n_pub`` private (chunks of ``n`` rows drawn from
    ``SeedSequence([seed, d, n, n_pub, sample, chunk])`` until both are there)."""
    pop = GaussianClusters(d=d, w_pub=design.w_pub, margin=design.margin)
    n, k = design.n, design.n_pub
    parts, have_pub, have_priv, chunk = [], 0, 0, 0
    while have_pub < k or have_priv < n - k:
        X, y, public = pop.sample(n, random_state=np.random.SeedSequence(
            [design.seed, d, n, k, sample, chunk]))
        parts.append((X, y, public))
        have_pub += int(public.sum())
        have_priv += int((~public).sum())
        chunk += 1
    X = np.concatenate([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    public = np.concatenate([p[2] for p in parts])
    keep = np.concatenate([np.flatnonzero(public)[:k], np.flatnonzero(~public)[:n - k]])
    return X[keep], y[keep], public[keep]


def class_sizes(design: PriceDesign, d: int, samples: int | None = None) -> list[int]:
    """The exact ``|G|`` of every sample at dimension ``d`` (ConstrHalf on its public rows; no
    histogram): what a run at ``d`` will score (``scripts/gpu_batch.py`` prices it)."""
    out = []
    for s in range(design.samples if samples is None else samples):
        X, _, public = fixed_sample(design, d, s)
        out.append(class_size(len(construct_halfspaces(X[public], n_features=d)), d))
    return out


def law_rows(counts: np.ndarray, epsilons, beta: float) -> list[dict]:
    """Per epsilon, the exact law's mean and ``(1 - beta)``-quantile of the excess mistakes."""
    levels = np.arange(counts.size)
    m_min = int(levels[counts > 0][0])
    out = []
    for eps in epsilons:
        p = np.exp(level_log_probabilities(counts, eps))
        cdf = np.cumsum(p) / p.sum()
        q = int(levels[np.searchsorted(cdf, 1.0 - beta - 1e-12)])
        # exactly rounded sums: the same bits on any BLAS and thread count
        out.append({"epsilon": float(eps), "min_m": m_min,
                    "excess_mean": math.fsum(p * levels) / math.fsum(p) - m_min,
                    "excess_q": q - m_min})
    return out


def sample_rows(design: PriceDesign, d: int, sample: int, device: str = "auto") -> list[dict]:
    """The rows of one sample: one per epsilon."""
    X, y, public = fixed_sample(design, d, sample)
    t0 = time.perf_counter()
    hs = construct_halfspaces(X[public], n_features=d)
    counts = np.asarray(make_scorer(hs, X, y, device=device).histogram())  # private data: diagnostic
    seconds = time.perf_counter() - t0
    log_G = math.log(class_size(len(hs), d))
    m_min = int(np.flatnonzero(counts)[0])
    base = {"d": d, "n": design.n, "n_pub": design.n_pub, "sample": sample,
            "n_halfspaces": len(hs), "log_G": log_G, "log_c_min": math.log(int(counts[m_min]))}
    return [{**base, **law, "beta": design.beta,
             "em_bound": em_excess(log_G, law["epsilon"], design.beta),
             "histogram_seconds": seconds}
            for law in law_rows(counts, design.epsilons, design.beta)]


def price_table(design: PriceDesign, dims, samples: int | None = None, device: str = "auto",
                log=None) -> pd.DataFrame:
    """:func:`sample_rows` of every d and sample, as one table. ``log``: called with each d's
    time."""
    rows = []
    for d in dims:
        t0 = time.perf_counter()
        for s in range(design.samples if samples is None else samples):
            rows += sample_rows(design, int(d), s, device)
        if log is not None:
            log(f"d={d}: {time.perf_counter() - t0:.1f} s")
    return pd.DataFrame(rows)


def read_tables(root) -> pd.DataFrame | None:
    """The CPU and GPU tables under a results root, as one (None if neither is there)."""
    parts = [pd.read_csv(Path(root) / rel) for rel in (CSV, CSV_GPU)
             if (Path(root) / rel).exists()]
    return pd.concat(parts, ignore_index=True) if parts else None


def summary(df: pd.DataFrame) -> pd.DataFrame:
    """Means per (d, epsilon), and the mean quantile's ratio to the mean bound."""
    out = (df.groupby(["d", "epsilon"])
           .agg(samples=("sample", "nunique"), log_G=("log_G", "mean"),
                log_c_min=("log_c_min", "mean"), excess_mean=("excess_mean", "mean"),
                excess_q=("excess_q", "mean"), em_bound=("em_bound", "mean"))
           .reset_index())
    out["ratio_q_to_bound"] = out["excess_q"] / out["em_bound"]
    return out
