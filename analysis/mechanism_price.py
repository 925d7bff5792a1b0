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
    histogram): what a run at ``d`` will score (:func:`analysis.gpu_batch_run.price_estimate`
    prices it)."""
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
    """Means per (d, epsilon) (and n_pub in a nested table), the mean quantile's ratio to the
    mean bound and k_eff (:func:`k_eff` of the mean price)."""
    keys = ["d", "n_pub", "epsilon"] if "n_priv" in df else ["d", "epsilon"]
    out = (df.groupby(keys)
           .agg(samples=("sample", "nunique"), log_G=("log_G", "mean"),
                log_c_min=("log_c_min", "mean"), excess_mean=("excess_mean", "mean"),
                excess_q=("excess_q", "mean"), em_bound=("em_bound", "mean"))
           .reset_index())
    out["ratio_q_to_bound"] = out["excess_q"] / out["em_bound"]
    out["k_eff"] = k_eff(out["excess_mean"], out["epsilon"])
    return out


# ------------------------------------------------------------------------------------------
# The nested design of C4's counted test (configs/c4_k_eff.yaml): k_eff where nothing caps it
# ------------------------------------------------------------------------------------------

#: the nested table's places under a results root (CPU; a GPU run of more d writes the second)
NESTED_CSV = "c4_dimension/k_eff.csv"
NESTED_CSV_GPU = "c4_dimension/k_eff_gpu.csv"
NESTED_CONFIG = CONFIG.parent / "c4_k_eff.yaml"
_NESTED_KEYS = ("population", "n_priv", "n_pubs", "samples", "dims", "epsilons",
                "counted_epsilon", "cap_factor", "flat_margin", "beta", "seed")


@dataclass(frozen=True)
class NestedDesign:
    """C4's counted design (``configs/c4_k_eff.yaml``): per (d, sample) ONE private sample of
    ``n_priv`` rows and nested public sets (the first ``n_pub`` public rows of one draw, for
    every ``n_pub`` in ``n_pubs``), so that the cells of one sample differ only by the public
    rows added. A cell ``(d, n_pub, epsilon)`` is *uncapped* when ``n_pub >= (cap_factor /
    epsilon)(d^2 + 3d)`` (:meth:`uncapped`)."""

    n_priv: int
    n_pubs: tuple[int, ...]
    samples: int
    dims: tuple[int, ...]
    epsilons: tuple[float, ...]
    counted_epsilon: float
    cap_factor: float
    flat_margin: float
    beta: float
    seed: int
    w_pub: float
    margin: float

    def __post_init__(self):
        if self.n_priv < 1:
            raise ValueError(f"c4 k_eff design: n_priv must be >= 1, got {self.n_priv}")
        if not self.n_pubs or min(self.n_pubs) < 1 or list(self.n_pubs) != sorted(set(self.n_pubs)):
            raise ValueError(f"c4 k_eff design: n_pubs must be increasing and >= 1, got "
                             f"{list(self.n_pubs)}")
        if self.samples < 2:
            raise ValueError(f"c4 k_eff design: samples must be >= 2, got {self.samples}")
        if not self.dims or min(self.dims) < 1:
            raise ValueError(f"c4 k_eff design: every d must be >= 1, got {list(self.dims)}")
        if not self.epsilons or min(self.epsilons) <= 0:
            raise ValueError(f"c4 k_eff design: epsilons must be > 0, got {list(self.epsilons)}")
        if self.counted_epsilon not in self.epsilons:
            raise ValueError(f"c4 k_eff design: counted_epsilon {self.counted_epsilon:g} is "
                             f"not one of the epsilons {list(self.epsilons)}")
        if self.cap_factor <= 0 or not 0 < self.flat_margin < 1:
            raise ValueError(f"c4 k_eff design: cap_factor must be > 0 and flat_margin in "
                             f"(0, 1), got {self.cap_factor}, {self.flat_margin}")
        if not 0 < self.beta < 1:
            raise ValueError(f"c4 k_eff design: beta must be in (0, 1), got {self.beta}")

    def uncapped(self, d: int, n_pub: int, epsilon: float) -> bool:
        """Whether the cell is free of the small-``n_pub`` cap: hypotheses that exclude the
        private cluster err on public rows only, so the price cannot exceed about ``n_pub /
        2``; the mechanism's price at ``k = d^2`` degrees of freedom is about ``k / (e^(eps/2)
        - 1) <= 2 k / epsilon``, kept below ``n_pub / 2`` with room for ``3d`` more."""
        return n_pub >= self.cap_factor / epsilon * (d * d + 3 * d)


def load_nested_design(path=NESTED_CONFIG) -> NestedDesign:
    """The nested design in ``path`` (one error line naming a missing or unknown key)."""
    import yaml

    data = yaml.safe_load(Path(path).read_text())
    if not isinstance(data, dict) or set(data) != set(_NESTED_KEYS):
        got = sorted(data) if isinstance(data, dict) else type(data).__name__
        raise ValueError(f"{path}: the keys must be {', '.join(_NESTED_KEYS)}, got {got}")
    pop = data["population"]
    return NestedDesign(
        n_priv=int(data["n_priv"]), n_pubs=tuple(int(v) for v in data["n_pubs"]),
        samples=int(data["samples"]), dims=tuple(int(d) for d in data["dims"]),
        epsilons=tuple(float(e) for e in data["epsilons"]),
        counted_epsilon=float(data["counted_epsilon"]), cap_factor=float(data["cap_factor"]),
        flat_margin=float(data["flat_margin"]), beta=float(data["beta"]),
        seed=int(data["seed"]), w_pub=float(pop["w_pub"]), margin=float(pop["margin"]))


def k_eff(excess_mean, epsilon):
    """``E (e^(epsilon/2) - 1)``: the mechanism's mean excess in units of its value at one
    degree of freedom. If ``count[m]`` near the minimum grows like ``C(m + k - 1, k - 1)`` (k
    free parameters; k = 1: a threshold, the geometric law of d = 1) the exact law is negative
    binomial and this is ``k`` at every epsilon (docs/claims/c4_dimension.md)."""
    return np.asarray(excess_mean, dtype=float) * np.expm1(np.asarray(epsilon, dtype=float) / 2)


def nested_sample(design: NestedDesign, d: int, sample: int, n_pub: int):
    """The rows of cell ``n_pub`` of ``sample`` at ``d``: the first ``n_pub`` public rows of
    one draw (nested in ``n_pub``) and the same ``n_priv`` private rows at every ``n_pub``."""
    top = max(design.n_pubs)
    base = PriceDesign(n=design.n_priv + top, n_pub=top, samples=design.samples,
                       dims_cpu=(d,), dims_gpu=(), epsilons=design.epsilons,
                       counted_epsilon=design.counted_epsilon, beta=design.beta,
                       seed=design.seed, w_pub=design.w_pub, margin=design.margin)
    X, y, public = fixed_sample(base, d, sample)  # public rows first
    keep = np.r_[np.arange(n_pub), np.arange(top, X.shape[0])]
    return X[keep], y[keep], public[keep]


def nested_rows(design: NestedDesign, d: int, sample: int, n_pubs=None,
                device: str = "auto") -> list[dict]:
    """The rows of one sample at every ``n_pub`` (one per (n_pub, epsilon))."""
    rows = []
    for k in design.n_pubs if n_pubs is None else n_pubs:
        X, y, public = nested_sample(design, d, sample, k)
        t0 = time.perf_counter()
        hs = construct_halfspaces(X[public], n_features=d)
        counts = np.asarray(make_scorer(hs, X, y, device=device).histogram())  # diagnostic
        seconds = time.perf_counter() - t0
        log_G = math.log(class_size(len(hs), d))
        m_min = int(np.flatnonzero(counts)[0])
        base = {"d": d, "n_priv": design.n_priv, "n_pub": k, "sample": sample,
                "n_halfspaces": len(hs), "log_G": log_G,
                "log_c_min": math.log(int(counts[m_min]))}
        for law in law_rows(counts, design.epsilons, design.beta):
            rows.append({**base, **law, "beta": design.beta,
                         "k_eff": float(k_eff(law["excess_mean"], law["epsilon"])),
                         "uncapped": design.uncapped(d, k, law["epsilon"]),
                         "em_bound": em_excess(log_G, law["epsilon"], design.beta),
                         "histogram_seconds": seconds})
    return rows


def nested_table(design: NestedDesign, dims=None, samples=None, n_pubs=None,
                 device: str = "auto", log=None) -> pd.DataFrame:
    """:func:`nested_rows` of every d and sample (``samples``: an iterable of sample indices
    or a count), as one table."""
    idx = range(design.samples) if samples is None else (
        range(samples) if isinstance(samples, int) else samples)
    rows = []
    for d in design.dims if dims is None else dims:
        t0 = time.perf_counter()
        for s in idx:
            rows += nested_rows(design, int(d), int(s), n_pubs, device)
        if log is not None:
            log(f"d={d}: {time.perf_counter() - t0:.1f} s")
    return pd.DataFrame(rows)
