"""C4 at d = 4, judged blind: k_eff's prediction under d^2 and under d, committed in
``configs/c4_predictions.yaml`` before any d = 4 row existed (docs/claims/c4_dimension.md "d = 4,
blind"; BMN20 Lemma 4.6, Theorem 4.9).

The cell: the fixed design of ``configs/c4_price.yaml`` (n = 192, n_pub = 12) at epsilon 10,
where the cap does not bind at d = 4 (``n_pub >= (2/10)(16 + 12)``); its d = 4 rows come from
the GPU batch ``batches/gpu/c4_price_d4.yaml``. Each model carries k_eff from d = 3 to d = 4 on
the same design: ``k_eff(4) = k_eff(3) (4/3)^b`` with ``b = 2`` (d^2) or ``b = 1`` (d), the
interval that of the measured ``k_eff(3)`` (a bootstrap over samples) times the factor
(:func:`predict`). The row (:func:`analyse`) weighs the measured ``k_eff(4)`` interval (the
prediction's 2,000 bootstrap replicates) against the two with
:func:`claims.rules.predictions.prediction_verdict`, the rule committed with the prediction; until
the rows exist it says what waits. Its text also reads the rows as exponents of d, which the
committed rule does not weigh: the local exponent ``ln(k_eff(4)/k_eff(3)) / ln(4/3)`` with a
bootstrap over both tables' samples, and the least-squares slope of ``ln k_eff`` on ``ln d`` over
d = 1..4 (:func:`exponents`).

The row is a breakdown, not counted: C4 is ``d^2 ln n_pub``, this design holds n_pub at 12 (the
counted test, claims/c4/price.py, moves n_pub), and its interval's coverage is not measured. A
"holds" that is narrow (the estimate above d^2's interval, or the local exponent excluding 2 from
above) says so in the verdict.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from analysis import mechanism_price as mp
from claims.base import VerdictRow, trial_set
from claims.rules.outcomes import HOLDS, LEVEL
from claims.rules.predictions import prediction_verdict
from claims.rules.verdicts import fmt_interval

PREDICTIONS = mp.CONFIG.parent / "c4_predictions.yaml"
GPU_BATCH = "batches/gpu/c4_price_d4.yaml"
STAT_D4 = "k_eff_blind_prediction"
# Not counted: C4 is d^2 ln n_pub, and this design holds n_pub at 12 (the counted test moves it:
# claims/c4/price.py); nor is its interval's coverage measured.
BREAKDOWN = ("breakdown (one n_pub, 12: the counted test moves n_pub; this interval's coverage "
             "is not measured)")
EPSILON, D_FROM, D_TO = 10.0, 3, 4
MODELS = {"d^2": 2.0, "d": 1.0}
N_BOOT = 2000  # the prediction's replicates; the measured interval uses as many


def k_interval(df: pd.DataFrame, d: int, epsilon: float, n_boot: int, seed: int = 0):
    """Mean k_eff over the samples at ``(d, epsilon)`` and its percentile bootstrap interval."""
    g = df[(df["d"] == d) & (df["epsilon"] == epsilon)]
    k = mp.k_eff(g["excess_mean"].to_numpy(), epsilon)
    if k.size < 2:
        return math.nan, math.nan, math.nan, int(k.size)
    rng = np.random.default_rng(seed)
    boot = k[rng.integers(0, k.size, (n_boot, k.size))].mean(axis=1)
    a = (1.0 - LEVEL) / 2.0
    lo, hi = np.quantile(boot, [a, 1.0 - a])
    return float(k.mean()), float(lo), float(hi), int(k.size)


def predict(df: pd.DataFrame, n_boot: int = N_BOOT, seed: int = 0) -> dict:
    """Each model's k_eff at d = 4 from the measured d = 3 (the committed CPU rows)."""
    k3, lo3, hi3, n3 = k_interval(df, D_FROM, EPSILON, n_boot, seed)
    out = {"cell": {"design": "configs/c4_price.yaml", "d": D_TO, "epsilon": EPSILON},
           "anchor": {"d": D_FROM, "k_eff": round(k3, 4), "lo": round(lo3, 4),
                      "hi": round(hi3, 4), "samples": n3},
           "models": {}}
    for name, b in MODELS.items():
        f = (D_TO / D_FROM) ** b
        out["models"][name] = {"b": b, "k_eff": round(k3 * f, 4), "lo": round(lo3 * f, 4),
                               "hi": round(hi3 * f, 4), "pure": float(D_TO ** b)}
    return out


def write_predictions(df: pd.DataFrame, gpu_rows_exist: bool, path=PREDICTIONS) -> dict:
    """Writes :func:`predict` to ``path``; refuses once d = 4 rows exist (a prediction made
    after the data is not blind)."""
    import yaml

    if gpu_rows_exist:
        raise ValueError(f"d = {D_TO} rows exist: the prediction in {path} must predate them")
    pred = predict(df)
    head = ("# C4 at d = 4, BLIND: k_eff = E (e^(eps/2) - 1) predicted under d^2 and d from the\n"
            "# committed d = 3 rows, before any d = 4 row existed (claims/c4/blind.py; written\n"
            "# by python -m scripts.mechanism_price --predict-d4). Do not edit by hand.\n")
    Path(path).write_text(head + yaml.safe_dump(pred, sort_keys=False))
    return pred


def exponents(cpu: pd.DataFrame, gpu: pd.DataFrame, n_boot: int = N_BOOT, seed: int = 1):
    """The rows read as exponents of d at epsilon 10 (not weighed by the committed rule):
    ``(local, lo, hi, fit)``: the local exponent ``ln(k_eff(4)/k_eff(3)) / ln(4/3)`` with its
    percentile interval (the d = 3 and d = 4 samples resampled independently: they are
    independent draws), and the least-squares slope of ``ln k_eff`` on ``ln d``, d = 1..4."""
    def per_sample(df, d):
        g = df[(df["d"] == d) & (df["epsilon"] == EPSILON)]
        return mp.k_eff(g["excess_mean"].to_numpy(), EPSILON)

    k3, k4 = per_sample(cpu, D_FROM), per_sample(gpu, D_TO)
    if k3.size < 2 or k4.size < 2:
        return math.nan, math.nan, math.nan, math.nan
    rng = np.random.default_rng(seed)
    b3 = k3[rng.integers(0, k3.size, (n_boot, k3.size))].mean(axis=1)
    b4 = k4[rng.integers(0, k4.size, (n_boot, k4.size))].mean(axis=1)
    scale = math.log(D_TO / D_FROM)
    a = (1.0 - LEVEL) / 2.0
    lo, hi = np.quantile(np.log(b4 / b3) / scale, [a, 1.0 - a])
    ds = [d for d in range(1, D_FROM + 1) if per_sample(cpu, d).size]
    means = [per_sample(cpu, d).mean() for d in ds] + [k4.mean()]
    fit = float(np.polyfit(np.log([*ds, D_TO]), np.log(means), 1)[0])
    return math.log(k4.mean() / k3.mean()) / scale, float(lo), float(hi), fit


def _reading(k4: float, lo: float, hi: float, pred: dict, exps: tuple) -> str:
    """Where the measured interval lies against d^2's, in words, and the exponents."""
    m = pred["models"]["d^2"]
    if lo > m["hi"]:
        where = f"it lies above d^2's interval (upper end {m['hi']:.2f})"
    elif hi < m["lo"]:
        where = f"it lies below d^2's interval (lower end {m['lo']:.2f})"
    elif k4 > m["hi"]:
        where = (f"the estimate lies above d^2's interval (upper end {m['hi']:.2f}); the two "
                 f"intervals overlap only from {lo:.2f} to {m['hi']:.2f}")
    elif k4 < m["lo"]:
        where = (f"the estimate lies below d^2's interval (lower end {m['lo']:.2f}); the two "
                 f"intervals overlap only from {m['lo']:.2f} to {hi:.2f}")
    else:
        where = "the estimate lies inside d^2's interval"
    local, elo, ehi, fit = exps
    if math.isnan(local):
        return where
    side = ("above d^2's 2 at this precision" if elo > 2 else
            "below d^2's 2 at this precision" if ehi < 2 else "d^2's 2 inside")
    return (f"{where}; as an exponent of d (not weighed by the committed rule): local, d = "
            f"{D_FROM} to {D_TO}, {fmt_interval(local, elo, ehi)} ({side}; d's is 1), least "
            f"squares over d = 1..{D_TO}: {fit:.2f}")


def load_predictions(path=None) -> dict | None:
    import yaml

    path = PREDICTIONS if path is None else path
    return yaml.safe_load(Path(path).read_text()) if Path(path).exists() else None


def _pred_text(pred: dict) -> str:
    a = pred["anchor"]
    return (f"from k_eff(3) = {fmt_interval(a['k_eff'], a['lo'], a['hi'])}: "
            + "; ".join(f"{name}: k_eff(4) = {fmt_interval(m['k_eff'], m['lo'], m['hi'])} "
                        f"(pure model {m['pure']:g})" for name, m in pred["models"].items()))


def analyse(results) -> list[VerdictRow]:
    pred = load_predictions()
    if pred is None:
        return []
    gpu = Path(results.root) / mp.CSV_GPU
    df = pd.read_csv(gpu) if gpu.exists() else None
    setting = (f"k_eff at d = {D_TO}, blind: n = 192, n_pub = 12, epsilon = {EPSILON:g} (the "
               f"cap does not bind), predicted from d = {D_FROM} before any d = {D_TO} row")
    theory = _pred_text(pred)
    if df is None or not (df["d"] == D_TO).any():
        return [VerdictRow(
            claim="C4", figure="c4_dimension", setting=setting,
            paper="ln|G| = O(d^2 ln n_pub) (Theorem 4.9's d^2)",
            measured=f"no d = {D_TO} rows: the GPU batch {GPU_BATCH} has not run",
            theory=theory,
            verdict=f"reference (a prediction committed in configs/c4_predictions.yaml; the "
                    f"d = {D_TO} rows wait for the GPU batch {GPU_BATCH})",
            statistic=STAT_D4, trials=trial_set(mp.CSV.removesuffix(".csv")),
            epsilon=EPSILON, extra="d = 4 blind")]
    k4, lo, hi, n = k_interval(df, D_TO, EPSILON, N_BOOT)
    cpu = Path(results.root) / mp.CSV
    exps = (exponents(pd.read_csv(cpu), df) if cpu.exists()
            else (math.nan,) * 4)
    m2, m1 = pred["models"]["d^2"], pred["models"]["d"]
    v = prediction_verdict(lo, hi, k4, (m2["lo"], m2["hi"]), (m1["lo"], m1["hi"]),
                           ("d^2's", "d's"))
    if v == HOLDS and (k4 > m2["hi"] or exps[1] > MODELS["d^2"]):
        v += (" by the rule committed with the prediction, narrowly: the estimate lies above "
              "d^2's interval" + (f", and the local exponent {exps[0]:.2f} [{exps[1]:.2f}, "
                                  f"{exps[2]:.2f}] excludes 2 from above"
                                  if exps[1] > MODELS["d^2"] else ""))
    return [VerdictRow(
        claim="C4", figure="c4_dimension", setting=setting,
        paper="ln|G| = O(d^2 ln n_pub) (Theorem 4.9's d^2)",
        measured=(f"k_eff(4) = {fmt_interval(k4, lo, hi)} ({n} samples, {N_BOOT} bootstrap "
                  f"replicates as the prediction); {_reading(k4, lo, hi, pred, exps)}"),
        theory=theory, verdict=f"{BREAKDOWN}: {v}", statistic=STAT_D4,
        # the d = 4 rows measured, and the d = 3 rows the prediction (and the exponents) read
        trials=trial_set(mp.CSV_GPU.removesuffix(".csv"), mp.CSV.removesuffix(".csv")),
        slope=k4, slope_lo=lo, slope_hi=hi, epsilon=EPSILON, extra="d = 4 blind")]
