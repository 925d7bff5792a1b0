"""The Set Cover Learner (Kaplan-Mansour-Matias-Stemmer 2019, section 3; docs/model.md §9.1).

Algorithm *Set Cover Learner* for ``C ⊆ H^{∧k}``, every example private, ``(eps, delta)``-DP
(Claim 3.4, ``eps < 1``, ``delta < 1/e``). With ``(eps', delta') = (eps/2, delta/(1+e^{eps/2}))``
(replace-one neighbours, see :mod:`ppm.set_cover.base`) and ``R = ceil(2k ln(2/alpha_0))``:

for ``j = 1..R``:
  (a) ``S_1``, ``S_0`` = the remaining positive / negative examples;
  (c) ``b_j = |S_0| + w_j - Delta``, ``w_j ~ Lap(R/eps')``, ``Delta = (R/eps') ln(R/beta_0)`` [R];
  (d) ``q(h) = min(#h_0(S_0) - b_j/k, -#h_0(S_1))`` [R: the paper's extracted box lost the minus sign of the
      second term; with it, Claim 3.1's proof reads "q(h_j) >= -lambda, so h_j misclassifies at
      most lambda remaining positives", and the target's literal has ``q = 0``];
  (e) ``h_j = EM(eps_hat, H, q)``; delete every remaining example with ``h_j(x) = 0``;
output ``h_1 ∧ ... ∧ h_R``.

Which epsilon is used where: ``w_j`` and ``Delta`` use ``eps'`` (= ``epsilon / 2``); the
exponential mechanism of every round uses ``eps_hat`` (attribute ``epsilon_round_``):
``eps' / (2 ln(e/delta'))`` (Claim 3.4, ``composition="set_cover"``) or
``eps' / (2 sqrt(2R ln(1/delta')))`` (Example 3.3 by advanced composition, ``"naive"``), unless
the ``epsilon_hat`` knob overrides it (then the run is NOT the theorem's ``(eps, delta)``: see
:func:`ppm.set_cover.base.implied_privacy`). All ``R`` rounds always run (stopping early when
``S`` is empty would leak ``|S|``); the noisy counts ``b_j`` stay local to :meth:`fit`.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils.validation import check_is_fitted

from sklearn.utils._param_validation import StrOptions

from ppm._sklearn import BinaryLabelsMixin
from ppm.mechanisms import laplace_noise
from ppm.audit_spec import EVERY, PrivacyAudit, neighbour_pairs
from ppm.registry import configurable
from ppm.sklearn_checks import BINARY_CUBE, GRID_PLANE
from ppm.validation import OPEN_UNIT, RANDOM_STATE, Number, check_random_state
from .base import (
    add_remove_budget,
    implied_privacy,
    laplace_scale,
    n_rounds,
    noise_margin,
    per_round_epsilon,
)
from .halfplanes import T_MAX, HalfplaneSelector
from .literals import LiteralSelector, column_counts
from .unions import TriangleComplementSelector
from ppm.gpu import DEVICES

HYPOTHESES = ("literals", "halfplanes", "triangle_complements")
COMPOSITIONS = ("set_cover", "naive")


def make_selector(hypotheses: str, T=None, device: str = "cpu"):
    """The selection procedure of a base class: literals, grid halfplanes or triangle
    complements (``device`` is used by the triangle selection only; the others run on the
    CPU)."""
    if hypotheses == "literals":
        return LiteralSelector()
    if hypotheses == "halfplanes":  # exact Select Halfplane (KMMS19, section 4)
        return HalfplaneSelector(T=T)
    if hypotheses == "triangle_complements":  # NOT(HALFPLANE^{AND 3}), KMMS19 section 5
        return TriangleComplementSelector(T=T, device=device)
    raise ValueError(f"hypotheses must be one of {HYPOTHESES}, got {hypotheses!r}")


@configurable("learner", "set_cover", stable_name="ppm.set_cover.SetCoverLearner",
              target="ppm.set_cover.SetCoverLearner")
class SetCoverLearner(BinaryLabelsMixin, ClassifierMixin, BaseEstimator):
    """Private Set Cover Learner for conjunctions of a base class (module docstring).

    Parameters
    ----------
    k : int >= 1
        Number of base hypotheses in the target conjunction.
    epsilon : float in (0, 1)
        Overall privacy parameter (replace-one neighbours, all examples private).
    delta : float in (0, 1/e)
    hypotheses : "literals" | "halfplanes" | "triangle_complements"
        Base class ``H``: literals over ``{0,1}^D``, halfplanes of the grid ``{0..T}^2``, or
        complements of intersections of 3 grid halfplanes (the base class of the
        union-of-polygons learner, :class:`~ppm.set_cover.DisjunctionLearner`).
    composition : "set_cover" | "naive"
        Per-round budget of Claim 3.4 or of Example 3.3 (module docstring).
    alpha0, beta0 : float in (0, 1)
        Design accuracy / confidence (rounds ``R`` and ``Delta``); docs/model.md §9: fixed at 0.1.
    T : int or None
        Grid size for ``hypotheses="halfplanes"`` (points in ``{0..T}^2``); unused for literals.
    epsilon_hat : float or None
        Per-round budget override (None: the composition's formula). A documented knob for
        runs the theorem's budget makes too expensive; the output is then not ``(epsilon,
        delta)``-DP by Claim 3.4 (see :func:`ppm.set_cover.base.implied_privacy`).
    random_state : None, int, SeedSequence or Generator
    pos_label : None or a label
        The label the conjunction predicts where every chosen hypothesis holds (1 in KMMS19;
        the rounds delete the points a hypothesis labels with the other label). ``None``: 1,
        for a sample labelled 0/1; with any other labels it must be given (``ValueError``).
    device : "cpu" | "cuda" | "auto"
        Where the exact triangle selection (``hypotheses="triangle_complements"``, and
        ``"triangles"`` of :class:`~ppm.set_cover.DisjunctionLearner`) scores its ordered cell
        triples: the CPU, an NVIDIA GPU (numba.cuda; ``fit`` raises a ``ValueError`` before any
        work when none is usable; ``L^3`` up to ``1e11`` instead of ``2e8``), or the GPU when
        one is present and ``L^3 >= 1e8`` (:mod:`ppm.set_cover.unions`, docs/gpu.md). The same
        mechanism on every device: the draws agree up to float64 rounding. Literals and
        halfplanes ignore it (they always run on the CPU). Execution-only
        (``_execution_params``): it enters no seed or cache key.

    Attributes
    ----------
    rounds_ : int
        ``R``.
    epsilon_round_ : float
        Per-round budget ``eps_hat`` of the exponential mechanism.
    hypotheses_ : list
        The ``R`` released hypotheses in round order (literals as ``(variable, sign)`` tuples,
        ``sign = 1`` for ``x_i``; halfplanes as :class:`~ppm.set_cover.Halfplane`); the output
        is their conjunction.
    classes_ : the two labels; ``pos_label_`` the resolved ``pos_label``.
    n_features_in_ : int
    """

    _label_param, _label_code = "pos_label", 1
    _label_role = "the conjunction's positive label (1 in KMMS19)"
    _parameter_constraints = {
        "k": [Number(Integral, 1, None, closed="left")],
        "epsilon": OPEN_UNIT,
        "delta": [Number(Real, 0, 1 / math.e, closed="neither")],
        "hypotheses": [StrOptions(set(HYPOTHESES))],
        "composition": [StrOptions(set(COMPOSITIONS))],
        "alpha0": OPEN_UNIT,
        "beta0": OPEN_UNIT,
        "T": [None, Number(Integral, 1, T_MAX, closed="both")],  # grid {0..T}^2
        "epsilon_hat": [None, Number(Real, 0, None, closed="neither")],
        "random_state": RANDOM_STATE,
        "pos_label": "no_validation",  # any label (ppm._sklearn)
        # the value only: whether a GPU is present is checked by fit (a login node without
        # one can validate a sweep whose cells run on GPU nodes)
        "device": [StrOptions(set(DEVICES))],
    }
    # device: the same mechanism on every device; pos_label: the experiments' labels are 0/1
    _param_roles = {"device": "execution", "pos_label": "encoding"}

    def _base_class(self) -> str:
        """The base class the conjunction rounds select from (``make_selector``'s name)."""
        return self.hypotheses

    # scikit-learn's check suite runs on these (ppm.sklearn_checks.check_instances)
    _check_variants = {
        "literals": {"k": 1, "epsilon": 0.9, "hypotheses": "literals"},
        "halfplanes": {"k": 1, "epsilon": 0.9, "hypotheses": "halfplanes", "T": 8}}

    # declared once (ppm.audit_spec): the released state, the checks failed by design, the audit
    _released = ("hypotheses_",)
    _expected_failed_checks = {"literals": BINARY_CUBE, "halfplanes": GRID_PLANE}

    @classmethod
    def _privacy_audits(cls):
        """Statistical, over literals and over grid halfplanes (:func:`audit_instance`)."""
        return (audit_instance(cls, "literals", index=4, row=9, exact="set_cover_literals",
                               paper="KMMS19 Set Cover Learner", what="literals over {0,1}^2",
                               probes="; probes: {0,1}^2"),
                audit_instance(cls, "halfplanes", index=5, row=10, labels=(1, 1, 0, 0),
                               exact="set_cover_halfplanes", n_select=3000, n_eval=12000,
                               paper="KMMS19 Set Cover Learner + Select Halfplane",
                               what="halfplanes of {0..2}^2, two positives at (2,2), two "
                                    "negatives at (0,0)",
                               probes="; probes: the 9 grid points"))

    @classmethod
    def _temperature_cases(cls):
        """One round (k = 1) of each variant's selection at ``epsilon_hat = eps`` on a tiny
        sample; the round's epsilon is ``epsilon_round_`` (ppm.audit_spec)."""
        def variant(hypotheses, T=None):
            def case(eps, seed=0):
                r = np.random.default_rng(5)
                if hypotheses == "literals":
                    X = r.integers(0, 2, size=(50, 8))
                    y = X[:, 0] & X[:, 3]
                else:
                    X = r.integers(0, T + 1, size=(14, 2))
                    y = r.integers(0, 2, 14)
                f = cls(k=1, epsilon=0.5, epsilon_hat=eps, hypotheses=hypotheses, T=T,
                        random_state=seed).fit(X, y)
                return f.epsilon_round_, f.predict(X)
            return case

        return {"set_cover_literals": variant("literals"),
                "set_cover_halfplanes": variant("halfplanes", 8)}

    def __init__(self, *, k=1, epsilon=0.9, delta=1e-6, hypotheses="literals",
                 composition="set_cover", alpha0=0.1, beta0=0.1, T=None, epsilon_hat=None,
                 random_state=None, pos_label=None, device="cpu"):
        self.k = k
        self.epsilon = epsilon
        self.delta = delta
        self.hypotheses = hypotheses
        self.composition = composition
        self.alpha0 = alpha0
        self.beta0 = beta0
        self.T = T
        self.epsilon_hat = epsilon_hat
        self.random_state = random_state
        self.pos_label = pos_label
        self.device = device

    def _check_cross_params(self) -> None:
        """A grid base class needs its grid size ``T``."""
        if self._base_class() != "literals" and self.T is None:
            raise ValueError(f"T must be an integer in [1, 2^20] (grid {{0..T}}^2) for "
                             f"hypotheses={self.hypotheses!r}, got None")

    def _budget(self) -> dict:
        """The run's constants (rounds, budgets, Laplace scale and margin) from the parameters
        (validated by ``fit``'s ``_fit_context``); nothing here sees data."""
        k, eps, d = self.k, float(self.epsilon), self.delta
        alpha0, beta0 = float(self.alpha0), float(self.beta0)
        rounds = n_rounds(int(k), alpha0)
        eps_p, delta_p = add_remove_budget(eps, float(d))
        eps_hat = (float(self.epsilon_hat) if self.epsilon_hat is not None
                   else per_round_epsilon(eps_p, delta_p, rounds, self.composition))
        return {"k": int(k), "rounds": rounds, "eps_prime": eps_p, "eps_hat": eps_hat,
                "scale": laplace_scale(rounds, eps_p),
                "margin": noise_margin(rounds, eps_p, beta0)}

    def _check_data(self, selector, X, y):
        if X is None:
            raise ValueError("X must be an array, got None")
        X = selector.check_X(X)
        n = X.shape[0]
        if n == 0:
            raise ValueError("X is empty (0 examples): the learner needs at least one example")
        return X, self._encode_y(y, n)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, public=None):
        """Run the ``R`` rounds on all examples as private.

        ``public`` is accepted so that the pipeline's positional ``fit(X, y, public)`` works,
        and ignored: the learner is (epsilon, delta)-DP for every example."""
        p = self._budget()
        # device="cuda" without a usable GPU: a ValueError here, before any work
        selector = make_selector(self._base_class(), self.T, self.device)
        self._check_names(X, reset=True)
        X, y = self._check_data(selector, X, y)
        y = self._round_labels(y)
        rng = check_random_state(self.random_state)
        rounds = self._literal_rounds if isinstance(selector, LiteralSelector) else self._rounds
        chosen = rounds(selector, X, y, p, rng)
        self.rounds_ = p["rounds"]
        self.epsilon_round_ = p["eps_hat"]
        # literals as (variable, sign) tuples; halfplanes as the released Halfplane objects
        self.hypotheses_ = [h.as_tuple() if hasattr(h, "as_tuple") else h for h in chosen]
        self.n_features_in_ = X.shape[1]
        return self

    @staticmethod
    def _round_labels(y):
        """The 0/1 labels the conjunction rounds see (the encoded labels here)."""
        return y

    @staticmethod
    def _rounds(selector, X, y, p, rng) -> list:
        """Steps 1a-1e for any base class: select on the remaining examples, delete."""
        alive = np.ones(y.size, dtype=bool)
        chosen = []
        for _ in range(p["rounds"]):
            Xr, yr = X[alive], y[alive]
            n0 = int(np.count_nonzero(yr == 0))
            b = n0 + laplace_noise(p["scale"], rng) - p["margin"]  # step 1c; kept private
            h = selector.select(Xr, yr, b / p["k"], p["eps_hat"], rng)
            idx = np.flatnonzero(alive)
            alive[idx[np.asarray(h.predict(Xr)) == 0]] = False  # step 1e: delete h_j = 0
            chosen.append(h)
        return chosen

    @staticmethod
    def _literal_rounds(selector, X, y, p, rng) -> list:
        """:meth:`_rounds` for literals with the column counts of the remaining examples kept
        up to date (subtract the deleted rows): the same draws in the same order, so the same
        output for the same seed, in ``O(nD)`` per fit instead of per round."""
        alive = np.arange(y.size)
        n0, n1, c0, c1 = column_counts(X, y)
        chosen = []
        for _ in range(p["rounds"]):
            b = n0 + laplace_noise(p["scale"], rng) - p["margin"]  # step 1c; kept private
            h = selector.select_from_counts(n0, n1, c0, c1, b / p["k"], p["eps_hat"], rng)
            keep = X[alive, h.variable] == h.sign  # step 1e: delete h_j = 0
            gone = alive[~keep]
            if gone.size:
                g0, g1, d0, d1 = column_counts(X[gone], y[gone])
                n0, n1, c0, c1 = n0 - g0, n1 - g1, c0 - d0, c1 - d1
                alive = alive[keep]
            chosen.append(h)
        return chosen

    def predict(self, X) -> np.ndarray:
        """``h_1 ∧ ... ∧ h_R``: ``pos_label_`` where it holds, the other label elsewhere (int64
        0/1 for a 0/1-labelled sample)."""
        return self._decode_y(self._conjunction(X))

    def _conjunction(self, X) -> np.ndarray:
        """``h_1 ∧ ... ∧ h_R`` on ``X`` as int64 0/1."""
        check_is_fitted(self, "hypotheses_")
        self._check_names(X, reset=False)
        selector = make_selector(self._base_class(), self.T)
        X = selector.check_X(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features but the estimator was fitted with "
                             f"{self.n_features_in_}")
        if self._base_class() == "literals":
            lits = np.array(sorted(set(self.hypotheses_)), dtype=np.int64).reshape(-1, 2)
            return np.all(X[:, lits[:, 0]] == lits[:, 1], axis=1).astype(np.int64)
        out = np.ones(X.shape[0], dtype=np.int64)
        for h in self.hypotheses_:
            out &= np.asarray(h.predict(X), dtype=np.int64)
        return out


# ---- the privacy audit of the Set Cover and Disjunction Learners (ppm.audit_spec) ----------
# R = 2 rounds (alpha0 = 0.8), the per-round budget set by the epsilon_hat knob; stated
# guarantee: basic composition, R epsilon_hat + eps' (pure DP, proven: implied_privacy). The
# leak at multiplier m: the epsilon_hat whose stated bound is m times larger, (m (R epsilon_hat
# + eps') - eps') / R (the Laplace thresholds as they are).
SC_EPS, SC_DELTA, SC_ALPHA0, SC_HAT = 0.9, 1e-6, 0.8, 1.0
SC_MULTIPLIERS = (2.0, 3.0, 4.0, 6.0)  # the basic-composition bound is loose here (docs)
SC_CONTROL = "the rounds' exponential mechanisms at the epsilon_hat stating {m:g}x the loss"
CUBE = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
GRID_T2 = np.array([[i, j] for i in range(3) for j in range(3)])


def set_cover_claim(epsilon_hat: float = SC_HAT) -> float:
    """The audited instance's stated epsilon: basic composition at per-round ``epsilon_hat``."""
    eps_ar, _ = add_remove_budget(SC_EPS, SC_DELTA)
    return implied_privacy(epsilon_hat, SC_DELTA, n_rounds(1, SC_ALPHA0),
                           eps_ar)["basic_epsilon"]


def set_cover_hat(m: float) -> float:
    """The per-round ``epsilon_hat`` whose stated bound is ``m`` times the shipped one's (the
    bound is affine in ``epsilon_hat``: solved from two of its values)."""
    base, slope = set_cover_claim(0.0), set_cover_claim(1.0) - set_cover_claim(0.0)
    return (m * set_cover_claim(SC_HAT) - base) / slope


def audit_instance(cls, hypotheses: str, *, index: int, row: int, paper: str, what: str,
                   labels=(1, 0, 0, 0), probes: str = "", exact: str | None = None,
                   n_select: int = 1000, n_eval: int = 3000) -> PrivacyAudit:
    """The statistical audit of ``cls`` (the Set Cover Learner or its De Morgan dual) over
    ``hypotheses`` on the audit's tiny instance (k = 1; ``labels`` of its four points, ``what``
    and ``probes`` its setting's words), docs/privacy_audits.md."""
    literals = hypotheses == "literals"
    grid, T = (CUBE, None) if literals else (GRID_T2, 2)

    def leak(m):
        hat = set_cover_hat(m)

        def run(data, rs):
            X, y = data
            est = cls(k=1, epsilon=SC_EPS, delta=SC_DELTA, hypotheses=hypotheses, T=T,
                      alpha0=SC_ALPHA0, epsilon_hat=hat, random_state=rs)
            return est.fit(X, y).predict(grid)
        return run
    note = (f"k=1, R=2 (alpha0={SC_ALPHA0}), epsilon={SC_EPS}, delta={SC_DELTA:g}, "
            f"epsilon_hat={SC_HAT} per round; stated: basic composition R epsilon_hat + "
            f"eps' = {set_cover_claim():.3g} (pure)")
    if literals:
        base = {"X": np.array([[1, 1], [1, 0], [0, 1], [0, 0]]), "y": list(labels)}
        changes = [{"X": (0, [0, 0])}, {"y": (0, 0)}, {"X": (1, [1, 1]), "y": (1, 1)}]
    else:
        # where the leak concentrates (an exact search over one-example changes): two positives
        # share a point, and the neighbour moves one of them onto the negatives' point
        base = {"X": np.array([[2, 2], [2, 2], [0, 0], [0, 0]]), "y": list(labels)}
        changes = [{"X": (0, [0, 0])}]
    return PrivacyAudit(kind="statistical", index=index, row=row, variant=hypotheses,
                        paper=paper, epsilon=set_cover_claim, leak=leak, exact=exact,
                        multipliers=SC_MULTIPLIERS, control=SC_CONTROL, n_select=n_select,
                        n_eval=n_eval, neighbours=EVERY, setting=what + ", " + note + probes,
                        pairs=lambda: neighbour_pairs(base, changes))
