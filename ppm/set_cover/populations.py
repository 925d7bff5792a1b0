"""Planted conjunctions over ``{0,1}^D`` (claim C11; docs/model.md §9.6; KMMS19 Theorem 3.5).

Target: the AND of ``k`` literals on ``k`` distinct variables of ``D``, chosen (variables and
signs) by ``geometry_seed`` alone. Generative order for one example (label-determined privacy
model, docs/model.md §§1 and 8; privacy bit first):

1. ``public = U < w_pub`` (one uniform per example, for all examples first);
2. private examples are positives (``y = 1``): uniform over the ``2^{D-k}`` satisfying
   assignments (target variables at their target value, the others fair coins);
3. public examples are negatives (``y = 0``): one target literal ``j`` uniform over the ``k``,
   violated; the other target literals satisfied; every other variable a fair coin. So every
   negative violates exactly one target literal (docs/model.md §9.6).

With ``w_pub = 0.5`` positives have half the mass. The population is realizable by the target
(``opt() = 0``). ``public`` (= label 0) is only there so that the repository's pipeline (and PPM)
can run on the same samples; the Set Cover Learner treats every example as private.

True error: :meth:`true_error` evaluates ``predict`` on a fresh *stratified* test sample
(``n_test/2`` positives and ``n_test/2`` negatives, error ``= (1 - w_pub) FNR + w_pub FPR``,
unbiased), in chunks to bound memory; :meth:`conjunction_error` gives the EXACT error of a
conjunction of literals (used by the tests to check the sampled estimate).
"""

from __future__ import annotations

import math

from numbers import Integral, Real

import numpy as np

from ppm.populations.base import PopulationBase
from ppm.registry import configurable
from ppm.validation import CLOSED_UNIT, Number, check_positive_int, check_random_state
from .literals import check_binary_X

# Test points per chunk in true_error (bounds memory at D = 1024: 16384 x 1024 bytes = 16 MB).
_CHUNK = 1 << 14


@configurable("population", "planted_conjunction", stable_name="ppm.set_cover.PlantedConjunction",
              target="ppm.set_cover.PlantedConjunction")
class PlantedConjunction(PopulationBase):
    """AND of ``k`` of the ``2D`` literals; positives uniform, negatives violate one literal.

    Parameters
    ----------
    D : int >= 1
        Number of Boolean variables.
    k : int in [1, D]
        Number of target literals.
    w_pub : float in [0, 1]
        ``P[public] = P[y = 0]``.
    geometry_seed : int >= 0
        Chooses the target's variables and signs.
    """

    realizable = True
    synthetic = True  # drawn from a model, not records: ppm.populations.is_synthetic

    _parameter_constraints = {
        "D": [Number(Integral, 1, None, closed="left")],
        "k": [Number(Integral, 1, None, closed="left")],
        "w_pub": CLOSED_UNIT,
        "geometry_seed": [Number(Integral, 0, None, closed="left")],
    }

    def __init__(self, *, D=64, k=2, w_pub=0.5, geometry_seed=0):
        if k > D:
            raise ValueError(f"k must be <= D, got k={k!r} with D={D!r}")
        g = np.random.default_rng(geometry_seed)
        self._vars = np.sort(g.choice(D, size=k, replace=False)).astype(np.int64)
        self.halfspace_signs = g.integers(0, 2, size=k).astype(np.uint8)

    @property
    def d(self) -> int:
        """Dimension of ``x`` (``D``), for the pipeline's CSV column ``d``."""
        return self._params["D"]

    @property
    def target(self) -> list[tuple[int, int]]:
        """The target literals ``(variable, sign)`` (``sign = 1``: ``x_i``, 0: ``NOT x_i``)."""
        return [(int(v), int(s)) for v, s in zip(self._vars, self.halfspace_signs)]

    def opt(self) -> float:
        return 0.0

    def target_predict(self, X) -> np.ndarray:
        X = check_binary_X(X, n_features=self.d)
        return np.all(X[:, self._vars] == self.halfspace_signs, axis=1).astype(np.int64)

    opt_predict = target_predict

    def _draw(self, n_pos: int, n_neg: int, rng: np.random.Generator) -> np.ndarray:
        """``n_pos`` positives then ``n_neg`` negatives (uint8 rows)."""
        D, k = self._params["D"], self._params["k"]
        X = rng.integers(0, 2, size=(n_pos + n_neg, D), dtype=np.uint8)
        X[:, self._vars] = self.halfspace_signs
        violated = rng.integers(0, k, size=n_neg)
        rows = n_pos + np.arange(n_neg)
        X[rows, self._vars[violated]] = 1 - self.halfspace_signs[violated]
        return X

    def sample(self, n, random_state=None):
        """Draw ``n`` i.i.d. triples; ``X`` uint8 (n, D), ``y`` int64, ``public`` bool."""
        n = check_positive_int(n, "n", minimum=0)
        rng = check_random_state(random_state)
        public = rng.random(n) < self._params["w_pub"]
        n_neg = int(public.sum())
        Xs = self._draw(n - n_neg, n_neg, rng)
        X = np.empty_like(Xs)
        X[~public] = Xs[: n - n_neg]
        X[public] = Xs[n - n_neg:]
        return X, (~public).astype(np.int64), public

    def true_error(self, predict, n_test=50000, random_state=None):
        """``(err, se)`` on a stratified fresh sample (module docstring)."""
        if not callable(predict):
            raise ValueError(f"predict must be callable, got {predict!r}")
        n_test = check_positive_int(n_test, "n_test", minimum=2)
        rng = check_random_state(random_state)
        w = self._params["w_pub"]
        half = n_test // 2
        wrong = {0: 0, 1: 0}
        for label in (1, 0):
            for lo in range(0, half, _CHUNK):
                m = min(_CHUNK, half - lo)
                X = self._draw(m, 0, rng) if label == 1 else self._draw(0, m, rng)
                pred = np.asarray(predict(X))
                if pred.shape != (m,) or not np.all(np.isin(pred, (0, 1))):
                    raise ValueError("predict must return one label in {0, 1} per row")
                wrong[label] += int(np.count_nonzero(pred != label))
        fnr, fpr = wrong[1] / half, wrong[0] / half
        err = (1 - w) * fnr + w * fpr
        se = math.sqrt((1 - w) ** 2 * fnr * (1 - fnr) / half + w ** 2 * fpr * (1 - fpr) / half)
        return float(err), float(se)

    def conjunction_error(self, literals) -> float:
        """EXACT error of the conjunction of ``literals`` (``(variable, sign)`` pairs).

        Positives: every target variable is fixed, every other variable a fair coin, so
        ``P[h = 1] = 0`` if ``h`` contradicts itself or the target, else ``2^{-m}`` with ``m``
        the number of distinct non-target variables of ``h``. Negatives: the same for each of
        the ``k`` violation patterns, averaged.
        """
        lits = {(int(v), int(s)) for v, s in literals}
        signs = {}
        for v, s in lits:
            if signs.setdefault(v, s) != s:
                return 1.0 - self._params["w_pub"]  # h = 0 everywhere: every positive missed
        target = dict(self.target)
        m = sum(1 for v in signs if v not in target)

        def p_one(assign):  # P[h = 1] when the target variables are set to `assign`
            return 0.0 if any(signs[v] != assign[v] for v in signs if v in target) else 2.0 ** -m

        p_pos = p_one(target)
        p_neg = np.mean([p_one({**target, v: 1 - s}) for v, s in target.items()])
        w = self._params["w_pub"]
        return float((1 - w) * (1 - p_pos) + w * p_neg)


@configurable("population", "decoy_conjunction",
              stable_name="ppm.set_cover.populations.DecoyConjunction",
              target="ppm.set_cover.populations.DecoyConjunction")
class DecoyConjunction(PlantedConjunction):
    """Planted conjunction with *decoy* literals that cost only ``alpha_0 / (2k)`` of the
    positives (claim C11's population where Theorem 3.5's factor ``k`` must show).

    On :class:`PlantedConjunction` every wrong literal labels about half the positives 0, so
    the exponential mechanism separates it from the target at ``n ~ (8 / eps_hat) ln(2DR /
    (k beta))``, with no factor ``k``. Here every non-target variable ``v`` carries a decoy
    literal ``(v, s_v)`` (sign drawn by ``geometry_seed``) that looks like a target literal on
    the negatives and is almost right on the positives:

    * positives (``y = 1``): target variables at their target value; ``x_v = s_v`` except with
      probability ``p = decoy_alpha / (2k)`` (then ``x_v = 1 - s_v``), independently per ``v``;
    * negatives (``y = 0``): one target literal violated (uniform over the ``k``), the other
      target literals satisfied, as in :class:`PlantedConjunction`; each decoy literal violated
      (``x_v = 1 - s_v``) with probability ``1 / k``, independently -- so a decoy deletes about
      ``|S_0| / k`` negatives, as much as a target literal, and its score in the Set Cover
      Learner is ``q ~ -p |S_1|`` (the second term of the min), not ``min(., 0) = 0``.

    Each decoy kept in the output costs ``(1 - w_pub) p`` of error, and the learner runs ``R =
    ceil(2k ln(2/alpha_0))`` rounds: error ``<= decoy_alpha / 2`` (at ``w_pub = 1/2``) needs
    fewer than about ``2k`` decoys, i.e. the exponential mechanism must prefer the ``k``
    target literals (score 0) over the ``D - k`` decoys (score ``-p n_1``) in most rounds, which
    takes ``n_1 p eps_hat / 2 ~ ln(2 (D - k) / k)``: ``n ~ (8k / (decoy_alpha eps_hat))
    ln(2 (D - k) / k)`` (at ``w_pub = 1/2``), linear in ``k`` up to the logarithm. Realizable by
    the target (``opt() = 0``); the other literal of a decoy variable labels ``1 - p`` of the
    positives 0 and never competes.

    Parameters
    ----------
    D, k, w_pub, geometry_seed :
        As in :class:`PlantedConjunction` (``k < D``: at least one decoy).
    decoy_alpha : float in (0, 1]
        ``p = decoy_alpha / (2k)``: the fraction of the positives a decoy literal labels 0.
    """

    _parameter_constraints = {**PlantedConjunction._parameter_constraints,
                              "decoy_alpha": [Number(Real, 0, 1, closed="right")]}

    def __init__(self, *, D=64, k=2, w_pub=0.5, decoy_alpha=0.1, geometry_seed=0):
        super().__init__(D=D, k=k, w_pub=w_pub, geometry_seed=geometry_seed)
        if k >= D:
            raise ValueError(f"k must be < D (at least one decoy variable), got k={k!r}, D={D!r}")
        # decoy signs from a stream of their own (the target's draws above are unchanged)
        g = np.random.default_rng([int(geometry_seed), 1])
        self._decoy_vars = np.setdiff1d(np.arange(D), self._vars)
        self.decoy_signs = g.integers(0, 2, size=self._decoy_vars.size).astype(np.uint8)

    @property
    def decoy_rate(self) -> float:
        """``p``: the fraction of the positives that a decoy literal labels 0."""
        return self._params["decoy_alpha"] / (2 * self._params["k"])

    @property
    def decoys(self) -> list[tuple[int, int]]:
        """The decoy literals ``(variable, sign)``."""
        return [(int(v), int(s)) for v, s in zip(self._decoy_vars, self.decoy_signs)]

    def _draw(self, n_pos: int, n_neg: int, rng: np.random.Generator) -> np.ndarray:
        """``n_pos`` positives then ``n_neg`` negatives (uint8 rows), in chunks."""
        D, k = self._params["D"], self._params["k"]
        X = np.empty((n_pos + n_neg, D), dtype=np.uint8)
        X[:, self._vars] = self.halfspace_signs
        for lo in range(0, n_pos + n_neg, _CHUNK):
            hi = min(lo + _CHUNK, n_pos + n_neg)
            rate = np.where(np.arange(lo, hi) < n_pos, self.decoy_rate, 1.0 / k)
            flip = rng.random((hi - lo, self._decoy_vars.size), dtype=np.float32) < \
                rate[:, None].astype(np.float32)
            X[lo:hi, self._decoy_vars] = self.decoy_signs ^ flip.astype(np.uint8)
        violated = rng.integers(0, k, size=n_neg)
        rows = n_pos + np.arange(n_neg)
        X[rows, self._vars[violated]] = 1 - self.halfspace_signs[violated]
        return X

    def conjunction_error(self, literals) -> float:
        """EXACT error of the conjunction of ``literals`` (``(variable, sign)`` pairs).

        Every variable is independent given the label (and, for negatives, the violated target
        literal), so ``P[h = 1]`` is a product over the distinct variables of ``h``."""
        lits = {(int(v), int(s)) for v, s in literals}
        signs = {}
        for v, s in lits:
            if signs.setdefault(v, s) != s:
                return 1.0 - self._params["w_pub"]
        target, k = dict(self.target), self._params["k"]
        decoy = dict(self.decoys)

        def p_one(assign, rate):  # P[h = 1]; target variables fixed to `assign`
            p = 1.0
            for v, s in signs.items():
                if v in target:
                    p *= float(s == assign[v])
                else:  # x_v = decoy sign except with probability `rate`
                    p *= (1 - rate) if s == decoy[v] else rate
            return p

        p_pos = p_one(target, self.decoy_rate)
        p_neg = np.mean([p_one({**target, v: 1 - s}, 1.0 / k) for v, s in target.items()])
        w = self._params["w_pub"]
        return float((1 - w) * (1 - p_pos) + w * p_neg)
