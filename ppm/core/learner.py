"""Algorithm 2 of the paper (``LearnHalf``): the PPM learner for halfspaces.

1. Split the sample by privacy bit and run ``ConstrHalf`` on the public points
   (:func:`ppm.core.halfspaces.construct_halfspaces`).
2. Build the hypothesis class ``G`` from ``C_pub`` (:mod:`ppm.core.hypothesis_class`).
3. Run the exponential mechanism over ``G`` on all ``n`` labelled pairs, public and private,
   with score ``m(g)`` = number of misclassified examples (:mod:`ppm.mechanisms`).

Privacy (Lemma 4.1): ``G`` is a function of the public points only; private examples enter
only through the scores, whose sensitivity is 1, so the output is ``epsilon``-DP with respect to
the private examples. Nothing in this module scales, prunes or deduplicates using private data.
Sampling is exact over all of ``G`` (no approximation), streamed without materialising ``G``.
"""

from __future__ import annotations

import os
import sys
import time
from math import comb
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import RealNotInt, StrOptions
from sklearn.utils.validation import check_is_fitted

from ppm._sklearn import BinaryLabelsMixin
from ppm.registry import configurable
from ppm.audit_spec import PrivacyAudit, halfspace_sample
from ppm.sklearn_checks import FIT1D
from ppm.validation import (EPSILON, RANDOM_STATE, Number, Satisfies, check_labelled_data,
                            check_random_state, check_X, require_public,
                            warn_if_no_public)
from ppm.core.halfspaces import DEFAULT_REL_TOL, PublicHalfspaces, construct_halfspaces
from ppm.core.hypothesis_class import (
    DEFAULT_BLOCK_ELEMENTS,
    BitsetScorer,
    BlockedScorer,
    ReferenceScorer,
    SortedScorer1D,
    class_size,
)
from ppm.core.cuda_scorer import CudaScorer
from ppm.core.histogram_memo import (MemoisedScorer, check_memo_allowed, memo_key,
                                    supports_memo)
from ppm.core.memory import (construction_bytes, default_max_memory,
                             format_bytes, scorer_bytes)
from ppm.mechanisms import sample_level_and_rank
from ppm.core.sweep_scorer import MAX_COLUMN_BYTES, SweepScorer
from ppm.gpu import AUTO_MIN_HYPOTHESES, DEVICES as _DEVICES, check_cuda, gpu_available

_METHODS = ("auto", "sweep", "bitset", "blocked", "reference")


def make_scorer(halfspaces: PublicHalfspaces, X, y, method: str = "auto",
                block_elements: int = DEFAULT_BLOCK_ELEMENTS, device: str = "auto"):
    """The scorer of ``G`` for a sample: every method and device yields identical histograms
    and samples. ``device="cuda"`` (or "auto" on a GPU for ``|G| >= AUTO_MIN_HYPOTHESES``)
    runs the bitset scorer's pairs, triples and rank pass on the GPU
    (:class:`ppm.core.cuda_scorer.CudaScorer`)."""
    d = halfspaces.d
    if method in ("auto", "bitset") and not (method == "auto" and d == 1
                                             and halfspaces.aff_is_full):
        if device == "cuda" or (device == "auto" and d >= 2 and class_size(len(halfspaces), d)
                                >= AUTO_MIN_HYPOTHESES and gpu_available()):
            return CudaScorer(halfspaces.membership(X), y, d)
    if method == "reference":
        return ReferenceScorer(halfspaces, X, y, d)
    if method == "auto" and d == 1 and halfspaces.aff_is_full:
        return SortedScorer1D(halfspaces, X, y)
    B = halfspaces.membership(X)
    n, m = B.shape[1], B.shape[0]
    if method == "sweep":
        if n >= (1 << 15) or n * m > MAX_COLUMN_BYTES:
            raise ValueError(f"method='sweep' needs n < 32768 and n * |C_pub| <= "
                             f"{MAX_COLUMN_BYTES} bytes, got n = {n}, |C_pub| = {m}")
        return SweepScorer(B, y, d, halfspaces.W, halfspaces.supports)
    if method in ("auto", "bitset"):
        return BitsetScorer(B, y, d)
    return BlockedScorer(B, y, d, block_elements=block_elements)


def _scorer_kind(halfspaces: PublicHalfspaces, method: str) -> str:
    """Which scorer :func:`make_scorer` builds, for its memory (:func:`ppm.core.memory.scorer_bytes`;
    the GPU scorer holds the bitset scorer's arrays on the host)."""
    if method == "reference":
        return "reference"
    if method == "auto" and halfspaces.d == 1 and halfspaces.aff_is_full:
        return "sorted"
    return {"sweep": "sweep", "blocked": "blocked"}.get(method, "bitset")


@configurable("learner", "ppm", stable_name="ppm.PPMHalfspaceLearner",
              target="ppm.PPMHalfspaceLearner")
class PPMHalfspaceLearner(BinaryLabelsMixin, ClassifierMixin, BaseEstimator):
    """``LearnHalf`` (Algorithm 2): epsilon-DP w.r.t. private examples, improper, exact.

    ``_execution_params``: the parameters that only choose how the exact sample is computed
    (every scorer returns the same hypothesis for the same seed); the experiment pipeline
    leaves them out of seeds and cache keys.

    Parameters
    ----------
    epsilon : float
        Privacy parameter (> 0) of the exponential mechanism.
    random_state : None, int, SeedSequence or Generator
        Source of the mechanism's two random draws (level, then rank).
    method : {"auto", "sweep", "bitset", "blocked", "reference"}
        How ``G`` is scored. All give the same output for the same seed. "auto" uses a sort for
        d = 1 and the bitset/popcount kernels (numba) otherwise; "sweep" updates each row's
        score vector incrementally along an angular sweep (:mod:`ppm.core.sweep_scorer`, n < 32768;
        not faster than "bitset" on the benchmark, see README Performance); "blocked" scores
        by dense float32 matrix products (the straightforward reference for benchmarks); "reference" is
        a plain Python loop over ``G`` (tests only). The bitset kernels use
        ``numba.get_num_threads()`` threads.
    device : {"auto", "cpu", "cuda"}
        Where the bitset scorer runs (same output on every device for the same seed, see
        ``docs/gpu.md``). "cuda" scores pairs, triples and the rank pass on an NVIDIA GPU
        (numba.cuda; ``pip install -e '.[gpu]'``) and fails with a one-line error, before any
        work, when there is none; it needs method "auto" or "bitset". "auto" takes the GPU when
        one is present and ``|G| >= 1e8`` (``ppm.gpu.AUTO_MIN_HYPOTHESES``; below,
        the CPU is done in about 0.1 s), the CPU otherwise. d = 1 keeps its sort on the CPU.
    rel_tol : float
        Relative geometric tolerance of ``ConstrHalf`` (see :mod:`ppm.core.halfspaces`).
    block_elements : int
        Scores per block of the blocked scorer (memory/speed knob, no effect on the output).
    max_hypotheses : float
        Refuse (``ValueError``, before any scoring) when ``|G|`` exceeds this; at d >= 2 a
        ``|G|`` already too large on a few of the public points is refused before
        ``ConstrHalf`` runs on all of them (d = 3, n = 400: 0.2 s instead of ~10 s). Exact
        enumeration runs at about ``1e9`` hypotheses/s on 2 cores, so the default ``1e11`` is a
        couple of minutes; ``|G|`` grows like ``n_pub^(d^2)``. Raise it to run larger
        instances exactly; nothing is ever approximated.
    max_memory : None or float
        Refuse (``ValueError``, one line naming the estimate and the limit) a fit whose arrays
        need more than this many bytes, before allocating them: ``ConstrHalf``'s (checked
        before it runs, from the number of distinct public points and d) and the scorer's
        (membership matrix and bitsets, checked before they are built). The estimates count
        the large arrays only, so they are lower bounds (:mod:`ppm.core.memory`). ``None``:
        the machine's physical memory. Execution-only, like ``max_hypotheses``.
    histogram_memo : None or a directory path
        Store each score histogram of ``G`` (and the rank pass's per-chunk records) there and
        reuse it on the same sample (:mod:`ppm.core.histogram_memo`; same output). The
        histogram is a function of the private examples: refused unless
        ``allow_private_on_disk=True``. Execution-only.
    allow_private_on_disk : bool
        Whether ``histogram_memo`` may write functions of the private examples to disk: only
        for synthetic data (the experiment pipeline sets it from the population's ``synthetic``
        flag, never from a config). Execution-only.
    verbose : bool
        Print one line per step of ``fit`` to stderr (``ConstrHalf``'s ``|C_pub|``, ``|G|`` with
        the expected scoring time at ~1e9 hypotheses/s, the time each step took), for fits that
        take minutes. The lines state only sizes fixed by the public points and the split
        sizes, and timings. Execution-only (no effect on the output).
    public_label : None or a label
        The label of the public sub-population in BMN20's label-determined model: ``G``'s
        hypotheses predict it inside an intersection of halfspaces built from the public points
        and the other label elsewhere. ``None``: 0, for a sample labelled 0/1 (the paper's
        encoding); with any other labels it must be given (``ValueError`` otherwise).

    Attributes
    ----------
    halfspaces_ : PublicHalfspaces
        ``C_pub`` and ``Aff`` built from the public examples.
    hypothesis_ : tuple of int
        Indices into ``halfspaces_`` of the output hypothesis (``()`` = ``g_empty``).
    W_, b_ : arrays
        The selected halfspaces ``<W_[i], x> >= b_[i]``: the output labels ``public_label_`` (0)
        inside their intersection with ``Aff`` and the other label (1) elsewhere.
    classes_ : array of the two labels; ``public_label_`` the resolved ``public_label``.
    n_hypotheses_ : int
        ``|G|``. ``n_halfspaces_`` is ``|C_pub|``; ``n_pub_``, ``n_priv_`` the split sizes
        (fixed under the neighbouring relation, which replaces a private example).

    Only the sampled hypothesis and what is built from the public points are kept: no score,
    score histogram or training error (functions of the private data, not released by the
    mechanism). For experiments, :mod:`ppm.diagnostics` recomputes them explicitly, NOT
    differentially private.
    """

    _parameter_constraints = {
        "epsilon": EPSILON,
        "random_state": RANDOM_STATE,
        "method": [StrOptions(set(_METHODS))],
        "rel_tol": [Number(RealNotInt, 0, 1e-3, closed="neither")],
        "block_elements": [Number(Integral, 1, None, closed="left")],
        "max_hypotheses": [Number(Real, 1, None, closed="left", finite=False)],
        "histogram_memo": [None, Satisfies(lambda v: isinstance(v, (str, os.PathLike))
                                           and bool(str(v)), "a directory path")],
        "device": [StrOptions(set(_DEVICES))],
        "public_label": "no_validation",  # any label (ppm._sklearn)
        "max_memory": [None, Number(Real, 0, None, closed="neither", finite=False)],
        "allow_private_on_disk": ["boolean"],
        "verbose": ["verbose"],
    }
    # execution: every scorer returns the same hypothesis for the same seed, so these enter no
    # seed or cache key; allow_private_on_disk is set by the pipeline from the population (the
    # synthetic flag), verbose only prints, public_label only names labels (experiments: 0/1)
    _param_roles = {"method": "execution", "block_elements": "execution",
                    "max_hypotheses": "execution", "histogram_memo": "execution",
                    "device": "execution", "max_memory": "execution",
                    "allow_private_on_disk": "data", "verbose": "console",
                    "public_label": "encoding"}
    _label_param, _label_code = "public_label", 0
    _label_role = "the public sub-population's label (0 in BMN20's label-determined model)"

    # scikit-learn's check suite runs on this (ppm.sklearn_checks.check_instances)
    _check_params = {"epsilon": 5.0, "method": "blocked"}

    # declared once (ppm.audit_spec): the released state, the checks failed by design, the audit
    _released = ("hypothesis_", "W_", "b_")
    _expected_failed_checks = FIT1D

    @classmethod
    def _privacy_audits(cls):
        """Exact: the committed exact audit of claim C6, its worst instance recomputed."""
        return (PrivacyAudit(
            kind="exact", index=7, row=0, exact="c6", paper="BMN20 Algorithm 2 (LearnHalf)",
            neighbours="replace one private example by any (x', y'), every cell of the public "
                       "arrangement x both labels",
            source="scripts/exact_audits.py (results/c6_privacy/audit.csv)"),)

    @classmethod
    def _temperature_cases(cls):
        """Its halfspace selection at ``eps`` on a tiny sample (ppm.audit_spec)."""
        def ppm(eps, seed=0):
            X, y, public = halfspace_sample()
            f = cls(epsilon=eps, random_state=seed).fit(X, y, public)
            return eps, f.predict(np.random.default_rng(9).normal(size=(200, 2)))

        return {"ppm": ppm}

    def __init__(self, *, epsilon: float = 1.0, random_state=None, method: str = "auto",
                 rel_tol: float = DEFAULT_REL_TOL, block_elements: int = DEFAULT_BLOCK_ELEMENTS,
                 max_hypotheses: float = 1e11, histogram_memo=None, device: str = "auto",
                 public_label=None, max_memory: float | None = None,
                 allow_private_on_disk: bool = False, verbose: bool = False):
        self.epsilon = epsilon
        self.random_state = random_state
        self.method = method
        self.rel_tol = rel_tol
        self.block_elements = block_elements
        self.max_hypotheses = max_hypotheses
        self.histogram_memo = histogram_memo
        self.device = device
        self.public_label = public_label
        self.max_memory = max_memory
        self.allow_private_on_disk = allow_private_on_disk
        self.verbose = verbose

    def _check_cross_params(self) -> None:
        """The rules across parameters (each parameter's own: ``_parameter_constraints``)."""
        if self.device == "cuda" and self.method not in ("auto", "bitset"):
            raise ValueError("device='cuda' runs the bitset scorer: method must be 'auto' or "
                             f"'bitset', got {self.method!r}")
        check_memo_allowed(self.histogram_memo, self.allow_private_on_disk)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, public=None):
        """Fit on a PPM sample; ``public[i]`` is True for a public example (required: without
        the mask there is no public point to build ``G`` from, so ``None`` raises)."""
        hs, scorer, size, public = self._mechanism_scorer(X, y, public)
        rng = check_random_state(self.random_state)
        # Step 3: exact exponential mechanism over G on all labelled pairs. The histogram and
        # the level are private intermediates: only the hypothesis leaves this method.
        start = time.perf_counter()
        level, rank = sample_level_and_rank(scorer.histogram(), self.epsilon, rng)
        hyp = scorer.find(level, rank)
        self._say(f"scored G and sampled a hypothesis in {time.perf_counter() - start:.1f} s")

        self.halfspaces_ = hs
        self.hypothesis_ = tuple(int(i) for i in hyp)
        idx = np.asarray(self.hypothesis_, dtype=np.intp)
        self.W_ = hs.W[idx]
        self.b_ = hs.b[idx]
        self.n_hypotheses_ = size
        self.n_halfspaces_ = len(hs)
        self.n_features_in_ = hs.d
        self.n_pub_ = int(public.sum())
        self.n_priv_ = int((~public).sum())
        return self

    # validates like fit when called directly (the audit); inside fit, already validated
    @_fit_context(prefer_skip_nested_validation=True)
    def _mechanism_scorer(self, X, y, public):
        """Steps 1-2 of ``fit``: validate, build ``C_pub`` and the scorer of ``G`` on the sample.

        Returns ``(halfspaces, scorer, |G|, public)``; ``fit`` samples from
        ``scorer.histogram()`` / ``scorer.find``. The exact privacy audit
        (:func:`ppm.diagnostics.audit.exact_output_distribution`) calls this same method, so it audits the
        production path.
        """
        if self.device == "cuda":
            check_cuda()  # no GPU: one-line error before any work
        require_public(public, type(self).__name__)
        self._check_names(X, reset=True)
        # Empty data is refused here (scikit-learn's convention); the baselines and the other
        # mechanisms keep their documented constant output on an empty sample (their tests).
        X, y, public = check_labelled_data(X, y, public, min_samples=1, encode_y=self._encode_y)
        warn_if_no_public(public, "PPMHalfspaceLearner", "C_pub is empty, so G holds only the "
                          "constant hypothesis 1")
        d = X.shape[1]
        X_pub = X[public]
        limit = default_max_memory() if self.max_memory is None else float(self.max_memory)
        if X_pub.shape[0]:
            pts = np.unique(X_pub[:, 0])[:, None] if d == 1 else np.unique(X_pub, axis=0)
            if limit is not None:
                self._check_memory(construction_bytes(len(pts), d), limit, f"ConstrHalf on "
                                   f"{len(pts)} distinct public points in d = {d}")
            self._refuse_oversize_early(pts, d, int(public.sum()))
        # Step 1: C_pub from the public points only (Lemma 4.1: G never sees private data).
        start = time.perf_counter()
        hs = construct_halfspaces(X_pub, n_features=d, rel_tol=self.rel_tol)
        size = class_size(len(hs), d)
        self._say(f"ConstrHalf: |C_pub| = {len(hs)} halfspaces from {int(public.sum())} public "
                  f"points (d = {d}) in {time.perf_counter() - start:.1f} s; |G| = {size:.3g} "
                  f"hypotheses, about {max(size / 1e9, 0.1):.3g} s to score at ~1e9/s")
        if size > self.max_hypotheses:
            raise ValueError(
                f"|G| = {size:.3g} hypotheses (d = {d}, {len(hs)} halfspaces from "
                f"{int(public.sum())} public points) exceeds max_hypotheses = "
                f"{self.max_hypotheses:.3g}; exact enumeration at ~1e9/s would take about "
                f"{size / 1e9:.3g} s. Raise max_hypotheses to run it anyway."
            )
        if limit is not None:
            kind = _scorer_kind(hs, self.method)
            self._check_memory(
                scorer_bytes(len(hs), X.shape[0], int(np.sum(y == 0)), d, kind),
                limit, f"the {kind} scorer of G ({len(hs)} halfspaces, n = {X.shape[0]})")
        # Step 2: the scorer of G (built from C_pub) on all n labelled pairs.
        scorer = make_scorer(hs, X, y, self.method, self.block_elements, self.device)
        if self.histogram_memo is not None and supports_memo(scorer):
            scorer = MemoisedScorer(scorer, self.histogram_memo,
                                    memo_key(scorer, X, y, public, self.rel_tol))
        return hs, scorer, size, public

    def _say(self, line: str) -> None:
        if self.verbose:
            print(f"[PPMHalfspaceLearner] {line}", file=sys.stderr, flush=True)

    def _refuse_oversize_early(self, pts: np.ndarray, d: int, n_pub: int) -> None:
        """Refuse an oversize ``G`` before ``ConstrHalf`` runs on every public point.

        ``ConstrHalf`` on ``k`` distinct points costs ``~C(k, d)`` hyperplanes (seconds at
        d = 3, k = 200), and ``|G|`` is only known after it. When even the upper bound
        ``|C_pub| <= 2 sum_i C(k, i)`` keeps ``|G|`` within ``max_hypotheses`` nothing is
        checked here. Otherwise ``ConstrHalf`` runs on a growing prefix ``S`` of the sorted
        distinct points (at most ~2e4 subsets) that holds the point of largest magnitude (so
        the tolerance scale is the same): with ``Aff`` full-dimensional for both, each
        halfspace built from a subset of ``S`` is the one built in the full run, so
        ``|G(S)| <= |G|`` and ``|G(S)| > max_hypotheses`` refuses for sure. Public points
        only (Lemma 4.1)."""
        k = len(pts)
        if d == 1 or 1 + sum(comb(2 * sum(comb(k, i) for i in range(1, d + 1)), j)
                             for j in range(1, d + 1)) <= self.max_hypotheses:
            return
        scale = np.max(np.abs(pts), axis=1)
        top = int(np.argmax(scale))
        s = d + 2
        while s < k and comb(s, d) <= 20_000:
            chosen = np.unique(np.r_[np.arange(s - 1), top])
            sub = construct_halfspaces(pts[chosen], n_features=d, rel_tol=self.rel_tol)
            if not sub.aff_is_full:
                return  # the normals then depend on Aff's basis: only the full run decides
            lower = class_size(len(sub), d)
            if lower > self.max_hypotheses:
                raise ValueError(
                    f"|G| >= {lower:.3g} hypotheses (d = {d}, at least {len(sub)} halfspaces "
                    f"from {n_pub} public points, counted on {len(chosen)} of them before "
                    f"ConstrHalf runs on all) exceeds max_hypotheses = "
                    f"{self.max_hypotheses:.3g}; exact enumeration at ~1e9/s would take at "
                    f"least {lower / 1e9:.3g} s. Raise max_hypotheses to run it anyway.")
            s *= 2

    def _check_memory(self, estimate: int, limit: float, what: str) -> None:
        if estimate > limit:
            source = ("max_memory" if self.max_memory is not None
                      else "max_memory = None: the physical memory")
            raise ValueError(
                f"{what} needs at least {format_bytes(estimate)} of memory, more than "
                f"{source} = {format_bytes(limit)}; use fewer features or public points, or "
                f"raise max_memory (bytes) if the machine has more")

    def predict(self, X) -> np.ndarray:
        """``public_label_`` (0) inside ``h_1 ∩ ... ∩ h_j ∩ Aff`` of the output hypothesis,
        the other label (1) elsewhere."""
        check_is_fitted(self, "hypothesis_")
        self._check_names(X, reset=False)
        X = check_X(X, n_features=self.n_features_in_)
        if not self.hypothesis_:
            return self._decode_y(np.ones(X.shape[0], dtype=np.int64))
        # Same membership test as the scorers (PublicHalfspaces.contains), so the training
        # mistakes of predict equal the score the mechanism used.
        inside = np.all(self.halfspaces_.contains(X, self.hypothesis_), axis=0)
        inside &= self.halfspaces_.in_affine_hull(X)
        return self._decode_y(np.where(inside, 0, 1).astype(np.int64))

    def decision_function(self, X) -> np.ndarray:
        """Signed distance to the boundary of the released polytope: > 0 predicts
        ``classes_[1]``, <= 0 ``classes_[0]`` (scikit-learn's convention; ``predict`` agrees
        with its sign on every row), so ROC AUC and other ranking scores work.

        With ``s(x) = max(max_i (b_i - <W_i, x>), dist(x, Aff)) - tol`` (the ``W_`` rows are
        unit normals), ``s <= 0`` exactly where ``predict`` says inside: inside, ``-s`` is the
        distance to the nearest facet (up to ``tol``); outside, ``s`` is the largest violation
        of a facet or of ``Aff``. It is ``s`` when the inside label ``public_label_`` is
        ``classes_[0]``, ``-s`` otherwise. ``g_empty`` (no halfspace) has no boundary: a
        constant (every point outside).

        Privacy: computed from the released model only (``W_``, ``b_``, ``Aff`` and ``tol``,
        all built from the public points, and the sampled hypothesis), never from the training
        sample, so it is post-processing of the epsilon-DP output and costs no privacy.
        """
        check_is_fitted(self, "hypothesis_")
        self._check_names(X, reset=False)
        X = np.ascontiguousarray(check_X(X, n_features=self.n_features_in_), dtype=float)
        hs = self.halfspaces_
        if not self.hypothesis_:
            s = np.ones(X.shape[0])
        else:
            # <W_i, x> summed in coordinate order, as PublicHalfspaces.contains does, so the
            # sign of s is exactly predict's membership test
            v = np.zeros((len(self.hypothesis_), X.shape[0]))
            for t in range(X.shape[1]):
                v += self.W_[:, t:t + 1] * X[None, :, t]
            s = np.max(self.b_[:, None] - v, axis=0) - hs.tol
            if not hs.aff_is_full:
                diff = X - hs.aff_point
                resid = diff - (diff @ hs.aff_basis.T) @ hs.aff_basis
                s = np.maximum(s, np.sqrt(np.einsum("ij,ij->i", resid, resid)) - hs.tol)
        inside_is_first = self._decode_y(np.zeros(1, dtype=np.int64))[0] == self.classes_[0]
        if inside_is_first:
            return s
        # inside (s <= 0) must be > 0 here: the boundary itself gets the smallest positive value
        return np.where(s == 0, np.nextafter(0.0, 1.0), -s)


def learn_halfspace(X, y, public, epsilon: float, random_state=None, **kwargs):
    """Functional form of ``LearnHalf``: returns the fitted :class:`PPMHalfspaceLearner`."""
    return PPMHalfspaceLearner(epsilon=epsilon, random_state=random_state, **kwargs).fit(
        X, y, public
    )
