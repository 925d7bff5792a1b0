"""Several mechanism draws per split for the real-data comparison (PPM vs DP-LR, breast cancer).

The real-data claim (``claims/real_breast_cancer.py``) separates the variability of the splits
from the mechanisms' noise (:func:`analysis.split_comparison.split_mechanism_interval`), which
needs several draws of each private mechanism on the same split. :func:`split_rows` replays the
``real_breast_cancer`` sweep's splits exactly (the pipeline's config, seeds and test rows:
:func:`experiments.pipeline.run_trial`'s streams), and on each split

* PPM: steps 1-2 of ``PPMHalfspaceLearner.fit`` (``C_pub`` and the scorer of ``G``, which use
  no randomness and do not depend on epsilon) run once; ``fit`` itself then runs for every
  epsilon and draw with that scorer handed back (:class:`ScoredOnce`), so step 3, the
  exponential mechanism's draw, is ``fit``'s own code, and the fitted estimator exposes what
  ``fit`` exposes and nothing else;
* DP-LR (diffprivlib): refitted for every draw (about 0.05 s).

* the fair DP-LR of ``real_breast_cancer_fair`` (``dp_logistic_public``, public rows free):
  refitted for every draw (a few milliseconds).

Draw 0 uses the pipeline's learner seed, so it reproduces the committed trial
(:func:`check_draw_zero`); draw ``d >= 1`` uses the seed ``SeedSequence((learner_seed, d))``.
The command line is ``python -m scripts.real_draws`` (where the table goes, its cost).
"""

from __future__ import annotations

import copy
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from hydra import compose, initialize_config_dir

from experiments import columns, seeding
from experiments.pipeline import build_estimator, estimators, validate_config
from experiments.schema import register_configs
from ppm.core.learner import PPMHalfspaceLearner
from ppm.populations import check_population
from ppm.validation import NoPublicExamplesWarning
from hydra.utils import instantiate

EXPERIMENT = "real_breast_cancer"
OUT = "real_breast_cancer_draws"
CONFIGS = Path(__file__).resolve().parents[1] / "configs"
EPSILONS = (0.1, 0.3, 1.0, 3.0, 10.0)  # the sweep's learner.epsilon values
PRIVATE = (columns.PPM, columns.DP_LOGISTIC, columns.DP_LOGISTIC_PUBLIC)


class _OneHistogram:
    """A scorer whose score histogram (a function of the sample only) is computed once;
    ``find`` (the rank pass of one draw) is the scorer's own."""

    def __init__(self, scorer):
        self._scorer, self._hist = scorer, None

    def histogram(self):
        if self._hist is None:
            self._hist = self._scorer.histogram()
        return self._hist.copy()

    def find(self, level, rank):
        return self._scorer.find(level, rank)


class ScoredOnce(PPMHalfspaceLearner):
    """``PPMHalfspaceLearner`` whose steps 1-2 (``C_pub``, the scorer of ``G`` and its score
    histogram: no randomness, no epsilon) are computed once per sample and handed back to
    ``fit``; ``fit``'s step 3 (the draw) and what it stores on the estimator are unchanged.
    The cache lives in the class, never on a fitted estimator."""

    _cache: dict = {}

    def _mechanism_scorer(self, X, y, public):
        key = (id(X), id(y), id(public), self.public_label, self.rel_tol)
        if key not in ScoredOnce._cache:
            ScoredOnce._cache.clear()
            before = set(vars(self))
            hs, scorer, size, pub = super()._mechanism_scorer(X, y, public)
            # what steps 1-2 set on the estimator (feature names, the label encoding): the
            # same for every fit on this sample, so copied onto the later ones
            state = {k: copy.deepcopy(v) for k, v in vars(self).items() if k not in before}
            ScoredOnce._cache[key] = (hs, _OneHistogram(scorer), size, pub, state)
        else:
            self._validate_params()  # this epsilon and seed are still validated
        hs, scorer, size, pub, state = ScoredOnce._cache[key]
        self.__dict__.update(copy.deepcopy(state))
        return hs, scorer, size, pub


def spec_for(epsilon: float, trials: int | None = None, experiment: str = EXPERIMENT) -> dict:
    """The sweep's cell spec at ``epsilon`` (the pipeline's validated config)."""
    register_configs()
    over = [f"experiment={experiment}", f"learner.epsilon={epsilon}"]
    with initialize_config_dir(config_dir=str(CONFIGS), version_base="1.3"):
        cfg = compose(config_name="config", overrides=over)
    spec = validate_config(cfg)
    if trials is not None:
        spec["trials"] = trials
    return spec


def draw_seed(learner_seed: int, draw: int) -> int:
    """Draw 0: the pipeline's learner seed; draw d: a seed from ``(learner_seed, d)``."""
    if draw == 0:
        return int(learner_seed)
    return int(np.random.SeedSequence((int(learner_seed), int(draw))).generate_state(1)[0])


def split_rows(specs: dict, trial: int, draws: int, out: str = OUT) -> list[dict]:
    """Every private learner's test error on one split, for every epsilon and draw."""
    any_spec = next(iter(specs.values()))
    population = check_population(instantiate(any_spec["population"]))
    X, y, public = population.sample(any_spec["n"], random_state=seeding.stream_seed(
        any_spec, trial, seeding.SAMPLE))
    test_seed = seeding.stream_seed(any_spec, trial, seeding.TEST)
    rows = []
    for eps, spec in specs.items():
        for label, est_cfg in estimators(spec):
            if label not in PRIVATE:
                continue
            seed = seeding.learner_seed(spec, trial, label, est_cfg)
            for d in range(draws):
                est = build_estimator(est_cfg, random_state=draw_seed(seed, d),
                                      population=population)
                if label == columns.PPM:
                    est = ScoredOnce(**est.get_params())
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", NoPublicExamplesWarning)
                    est.fit(X, y, public)
                secs = time.perf_counter() - t0
                err, _ = population.true_error(est.predict, n_test=spec["n_test"],
                                               random_state=test_seed)
                rows.append({"experiment_name": out, "trial": trial, "draw": d,
                             "learner": label, "n": spec["n"], "n_pub": int(public.sum()),
                             "n_priv": int((~public).sum()), "error": float(err),
                             "fit_seconds": secs, "learner_seed": seed,
                             "draw_seed": draw_seed(seed, d), columns.EPSILON: eps,
                             columns.FEATURES: str(spec["population"].get("features"))})
    return rows


def check_draw_zero(rows: pd.DataFrame, committed: pd.DataFrame) -> int:
    """Draw 0 must reproduce the committed trials (same split, seed, test rows): the number of
    (split, learner, epsilon) cells compared; ``ValueError`` on a mismatch."""
    c = committed[committed.learner.isin(PRIVATE)].copy()
    c["eps"] = c[columns.EPSILON].where(c.learner == columns.PPM)
    for label in PRIVATE[1:]:
        col = columns.baseline_column(label, columns.EPSILON)
        if col in c:
            c["eps"] = c["eps"].where(c.learner != label, c[col])
    c = c.set_index(["trial", "learner", "eps"])["error"]
    z = rows[rows.draw == 0].set_index(["trial", "learner", columns.EPSILON])["error"]
    both = z.index.intersection(c.index)
    bad = [(k, z[k], c[k]) for k in both if abs(z[k] - c[k]) > 1e-12]
    if bad:
        raise ValueError(f"draw 0 does not reproduce the committed trials: {bad[:3]}")
    return len(both)
