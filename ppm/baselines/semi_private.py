"""Semi-private (homogeneous public data) baseline: a public cover plus the exponential mechanism.

docs/model.md §7, "Semi-private / homogeneous". The generic construction of Beimel, Nissim and
Stemmer, *Learning Privately with Labeled and Unlabeled Examples* (BNS15, Algorithm 1
there; also Alon, Bassily and Moran, *Limits of Private Learning with Access to Public Data*,
NeurIPS 2019): unlabeled data assumed to come from the *same* distribution as the labelled
population are used to build a finite cover ``H`` of the concept class with one hypothesis per
dichotomy of the unlabeled points; the exponential mechanism (McSherry-Talwar) then picks a
member of ``H`` using the labelled data. Here the public examples play the role of the
unlabeled sample (their points only; their labels are not looked at while building the cover),
and the concept class is halfspaces in ``R^d``.

Construction (deterministic, canonical order):

1. ``C_pub = construct_halfspaces(X_pub)`` (:mod:`ppm.core.halfspaces`, Algorithm 1 of the PPM paper,
   docs/model.md §2): closed halfspaces ``h_0, h_1, ..., h_{m-1}`` whose boundary passes through at
   most ``d`` public points, both orientations. :meth:`PublicHalfspaces.contains` is the single
   source of truth for membership, in the cover and in :meth:`predict` alike.
2. Candidate rules, in this order: for ``i = 0..m-1`` the pair ``("inside", i)`` (predict 1 iff
   ``x in h_i``) and ``("outside", i)`` (predict 1 iff ``x not in h_i``, i.e. the *open*
   opposite halfspace); then ``("const1", None)`` and ``("const0", None)``. A hyperplane through
   public points contributes the dichotomies in which all the public points *on* it go to the
   same side (closed: all in; open complement: all out). For ``d <= 2`` this yields every
   halfspace dichotomy of the public points (checked exhaustively against an LP enumeration in
   ``tests/test_semi_private.py``, degenerate configurations included). For ``d >= 3`` it can
   miss dichotomies that need the points on a plane split between the sides (e.g. only 44 of
   the 52 dichotomies of 6 random points in ``R^3``), so there the cover is a subset
   of "one halfspace per dichotomy"; the experiments (claim C10) use ``d = 2``.
3. The *dichotomy* of a rule is its 0/1 prediction vector on the (deduplicated) public points.
   The cover keeps the **first** candidate, in the order above, of every distinct dichotomy
   (:func:`ppm.semi_supervised.cover.first_distinct_rows`, shared with ``GenericLearner``).
   With no public point the cover is the two constant rules.
4. Exact exponential mechanism over the cover, ``P[h] ∝ exp(-epsilon m(h) / 2)`` with ``m(h)``
   the number of misclassified *labelled* examples (score histogram +
   :func:`ppm.mechanisms.sample_level_and_rank`, the sampler the PPM learner uses; the rank-th
   rule of the drawn level in cover order is output). ``labels="private"`` (default, the
   semi-private model: public examples are unlabeled, the labelled sample is the private one)
   scores the private examples only; ``labels="all"`` (a variant) also counts mistakes on the
   public examples, whose labels are not protected.

Why this is epsilon-DP with respect to the private examples (docs/model.md §1 neighbouring
relation): steps 1-3 read the public points only (never a private example, never any label),
so for a fixed public sample the cover is a fixed finite set. Private data enter only through
the scores ``m(h)``; replacing one private example changes every ``m(h)`` by at most 1, so the
exponential mechanism with ``exp(-epsilon m / 2)`` is epsilon-DP (McSherry-Talwar). Using the
public labels inside the score costs nothing, as public examples are not protected. The
deduplication in step 3 is free for the same reason as ``ConstrHalf``'s (docs/model.md §3, "any
preprocessing that looks at public data only is free").

Why it fails on a mixture (claim C10): the construction assumes that the unlabeled (public)
points come from the same distribution as the labelled (private) ones. In the label-determined
PPM model every private example has label 1, so with ``labels="private"`` every rule of the
cover that labels all private points 1 (the constant 1 among them) has score 0: the mechanism
cannot tell them apart and its output is a uniform draw among them, most of which label much
of the public region 1. In the homogeneous model (privacy independent of the label, ``eta =
0.5`` in :class:`ppm.populations.GaussianClusters`) the private examples carry both labels and
the learner works. The cover itself is a second, milder handicap: step 3 collapses every set of
halfspaces that agree on all public points to one representative chosen by the canonical order
alone, so two halfspaces with the same public dichotomy but different behaviour on the private
region are not both kept. Measured in C10 (``labels="all"``), this one costs little for the
Gaussian clusters in d = 2, because the closed halfspaces of the public hull's facets keep
dichotomies of their own; the PPM learner's class ``G`` is never deduplicated by dichotomy.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils.validation import check_is_fitted

from sklearn.utils._param_validation import RealNotInt, StrOptions

from ppm._sklearn import BinaryLabelsMixin
from ppm.registry import configurable
from ppm.audit_spec import PrivacyAudit, halfspace_sample, neighbour_pairs
from ppm.sklearn_checks import DP_ONE_LABEL, EMPTY_SAMPLE, FIT1D
from ppm.validation import (EPSILON, RANDOM_STATE, Number, check_labelled_data, check_random_state, check_X,
                          warn_if_no_public)
from ppm.core.halfspaces import DEFAULT_REL_TOL, PublicHalfspaces, construct_halfspaces
from ppm.semi_supervised.cover import first_distinct_rows, select_from_cover

_LABELS = ("private", "all")

# Booleans per chunk of the membership computations (bounds the transient memory to ~50 MB).
CHUNK_ELEMENTS = 1 << 24


def candidate_rule(candidate: int, n_halfspaces: int):
    """``(kind, index)`` of candidate number ``candidate`` in the canonical order (module doc)."""
    m = int(n_halfspaces)
    c = int(candidate)
    if not 0 <= c < 2 * m + 2:
        raise ValueError(f"candidate must be in [0, {2 * m + 2}), got {candidate!r}")
    if c < 2 * m:
        return ("inside" if c % 2 == 0 else "outside"), c // 2
    return ("const1" if c == 2 * m else "const0"), None


def _chunks(total: int, per_row: int):
    step = max(1, CHUNK_ELEMENTS // max(1, per_row))
    for start in range(0, total, step):
        yield start, min(total, start + step)


def semi_private_cover(halfspaces: PublicHalfspaces) -> np.ndarray:
    """Candidate numbers of the cover: the first candidate of each public dichotomy, in order.

    Reads the public points stored in ``halfspaces`` only (no private example, no label), so
    it is free under differential privacy. Dichotomies are taken on the deduplicated public
    points ``halfspaces.public_points``: duplicate points always receive the same prediction, so
    the partition of the candidates is the same as on the raw public sample.
    """
    m = len(halfspaces)
    pts = halfspaces.public_points
    k = pts.shape[0]
    if k == 0:
        return np.array([0, 1], dtype=np.intp)  # m = 0: const1, const0
    n_bytes = (k + 7) // 8
    packed = np.empty((2 * m + 2, n_bytes), dtype=np.uint8)
    for start, stop in _chunks(m, k):
        inside = halfspaces.contains(pts, np.arange(start, stop))
        packed[2 * start:2 * stop:2] = np.packbits(inside, axis=1)
        packed[2 * start + 1:2 * stop:2] = np.packbits(~inside, axis=1)
    packed[2 * m] = np.packbits(np.ones(k, dtype=bool))
    packed[2 * m + 1] = np.packbits(np.zeros(k, dtype=bool))
    return first_distinct_rows(packed)


def cover_scores(halfspaces: PublicHalfspaces, cover: np.ndarray, X, y) -> np.ndarray:
    """Mistakes ``m(h)`` on the labelled sample ``(X, y)`` of every cover member, in cover order.

    ``m(inside_i) = #{j : [X_j in h_i] != y_j}``, ``m(outside_i) = n - m(inside_i)``,
    ``m(const1) = n_0``, ``m(const0) = n_1``. Membership is computed in chunks of halfspaces.
    """
    m = len(halfspaces)
    cover = np.asarray(cover, dtype=np.intp)
    y_bool = np.asarray(y).astype(bool)
    n = y_bool.size
    n1 = int(y_bool.sum())
    scores = np.empty(cover.size, dtype=np.int64)
    is_hs = cover < 2 * m
    hs_index = cover[is_hs] // 2
    needed = np.unique(hs_index)
    mis_inside = np.zeros(m, dtype=np.int64)
    for start, stop in _chunks(needed.size, n):
        part = needed[start:stop]
        member = halfspaces.contains(X, part)
        mis_inside[part] = np.count_nonzero(member != y_bool[None, :], axis=1)
    mis = mis_inside[hs_index]
    scores[is_hs] = np.where(cover[is_hs] % 2 == 0, mis, n - mis)
    scores[cover == 2 * m] = n - n1
    scores[cover == 2 * m + 1] = n1
    return scores


@configurable("baseline", stable_name="ppm.semi_private.SemiPrivateHalfspaceLearner")
class SemiPrivateHalfspaceLearner(BinaryLabelsMixin, ClassifierMixin, BaseEstimator):
    """Semi-private halfspace learner: public dichotomy cover + exact exponential mechanism.

    The homogeneous-public-data baseline of docs/model.md §7 (BNS15, Beimel-Nissim-Stemmer;
    Alon-Bassily-Moran); see the module docstring for the construction, the privacy argument
    and why it fails on a mixture of public and private populations (claim C10).

    Parameters
    ----------
    epsilon : float
        Privacy parameter (> 0) of the exponential mechanism.
    rel_tol : float
        Relative geometric tolerance of ``construct_halfspaces`` (see :mod:`ppm.core.halfspaces`).
    labels : {"private", "all"}
        Which examples the exponential mechanism scores: the private (labelled) ones, as in the
        semi-private model where public examples are unlabeled (default), or all of them.
    random_state : None, int, SeedSequence or Generator
        Source of the mechanism's two random draws (level, then rank).

    Attributes
    ----------
    halfspaces_ : PublicHalfspaces
        The halfspaces built from the public points.
    cover_ : int array
        Candidate numbers (see :func:`candidate_rule`) of the cover, in canonical order.
    rule_ : tuple
        ``(kind, index)`` of the output, ``kind`` in ``{"inside", "outside", "const1",
        "const0"}``, ``index`` into ``halfspaces_`` (``None`` for the constants).
    n_hypotheses_ : int
        Number of rules in the cover (``n_hypotheses_`` is what the experiment pipeline logs).
    n_candidates_ : int
        ``2 * n_halfspaces_ + 2`` candidate rules before deduplication.
    n_halfspaces_ : int
        ``len(halfspaces_)``. ``n_pub_``, ``n_priv_`` are the split sizes.
    n_features_in_ : int

    No score, score histogram or training error is kept (functions of the private data); see
    :mod:`ppm.diagnostics` for the non-private research diagnostics.
    """

    _parameter_constraints = {"epsilon": EPSILON,
                              "rel_tol": [Number(RealNotInt, 0, 1e-3, closed="neither")],
                              "labels": [StrOptions(set(_LABELS))], "random_state": RANDOM_STATE}

    # scikit-learn's check suite runs on this (ppm.sklearn_checks.check_instances)
    _check_params = {"epsilon": 5.0, "labels": "all"}

    # declared once (ppm.audit_spec): the released state, the checks failed by design, the audit
    _released = ("rule_",)
    _expected_failed_checks = FIT1D | EMPTY_SAMPLE | DP_ONE_LABEL

    @classmethod
    def _privacy_audits(cls):
        """Statistical: public points fixed, private ones replaced; probes between them."""
        probes = np.array([[-0.5], [0.5], [1.5], [2.5], [3.5]])

        def leak(m):
            def run(data, rs):
                X, y, public = data
                return cls(epsilon=1.0 * m, random_state=rs).fit(X, y, public).predict(probes)
            return run
        base = {"X": [[0.0], [1.0], [2.0], [3.0], [0.5], [1.5], [2.5]],
                "y": [0, 0, 1, 1, 0, 1, 1], "public": [True, True, True, True, False, False, False]}
        return (PrivacyAudit(
            kind="statistical", index=2, row=2, paper="BNS15 / Alon-Bassily-Moran baseline",
            leak=leak, n_select=1000, n_eval=3000,
            neighbours="replace one private example; public examples fixed (not protected)",
            setting="d=1, public points 0, 1, 2, 3, private 0.5, 1.5, 2.5 labelled 0, 1, 1; "
                    "probes -0.5, 0.5, ..., 3.5",
            pairs=lambda: neighbour_pairs(base, [{"y": (5, 0)}, {"X": (4, [2.5]), "y": (4, 1)},
                                                 {"y": (6, 0)}])),)

    @classmethod
    def _temperature_cases(cls):
        """Its selection from the public cover at ``eps`` on a tiny sample (ppm.audit_spec)."""
        def semi_private(eps, seed=0):
            X, y, public = halfspace_sample(2, 40)
            f = cls(epsilon=eps, random_state=seed).fit(X, y, public)
            return eps, f.predict(np.random.default_rng(9).normal(size=(200, 2)))

        return {"semi_private": semi_private}

    def __init__(self, *, epsilon=1.0, rel_tol=DEFAULT_REL_TOL, labels="private",
                 random_state=None):
        self.epsilon = epsilon
        self.rel_tol = rel_tol
        self.labels = labels
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, public=None):
        """Fit on a PPM sample; ``public[i]`` is True for a public example (required)."""
        epsilon = float(self.epsilon)
        rng = check_random_state(self.random_state)
        if public is None:
            raise ValueError("public (boolean mask, True = public example) is required: the "
                             "public points are the unlabeled sample the cover is built from")
        self._check_names(X, reset=True)
        X, y, public = check_labelled_data(X, y, public, encode_y=self._encode_y)
        warn_if_no_public(public, "SemiPrivateHalfspaceLearner", "the cover holds only the two "
                          "constant hypotheses")
        d = X.shape[1]
        # Cover from the public points only (no private example, no label): free under DP.
        hs = construct_halfspaces(X[public], n_features=d, rel_tol=self.rel_tol)
        cover = semi_private_cover(hs)
        # Private data enter only here, through scores of sensitivity 1. In the semi-private
        # model the labelled sample is the private one (labels="private"); labels="all" also
        # counts mistakes on the public examples (their labels are not protected).
        scored = np.ones(y.size, dtype=bool) if self.labels == "all" else ~public
        scores = cover_scores(hs, cover, X[scored], y[scored])
        j, _, _ = select_from_cover(scores, epsilon, rng, int(scored.sum()))
        chosen = int(cover[j])

        self.halfspaces_ = hs
        self.cover_ = cover
        self.rule_ = candidate_rule(chosen, len(hs))
        self.n_hypotheses_ = int(cover.size)
        self.n_candidates_ = 2 * len(hs) + 2
        self.n_halfspaces_ = len(hs)
        self.n_features_in_ = d
        self.n_pub_ = int(public.sum())
        self.n_priv_ = int((~public).sum())
        return self

    def predict(self, X) -> np.ndarray:
        """Labels of the selected rule (``classes_[1]`` for internal 1; int64 0/1 for a
        0/1-labelled sample); membership via ``halfspaces_.contains``."""
        check_is_fitted(self, "rule_")
        self._check_names(X, reset=False)
        X = check_X(X, n_features=self.n_features_in_)
        kind, index = self.rule_
        if kind == "const1":
            return self._decode_y(np.ones(X.shape[0], dtype=np.int64))
        if kind == "const0":
            return self._decode_y(np.zeros(X.shape[0], dtype=np.int64))
        inside = self.halfspaces_.contains(X, [index])[0]
        return self._decode_y((inside if kind == "inside" else ~inside).astype(np.int64))
