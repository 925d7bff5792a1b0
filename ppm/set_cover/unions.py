"""Exact selection of a triangle complement: the base class of the union-of-polygons learner.

KMMS19 (Kaplan, Mansour, Matias, Stemmer, ICML 2019), section 5, Theorem 5.1; docs/model.md
§9.2. A simple polygon with ``k`` edges is a union of at most ``k`` triangles (a
triangulation has ``k - 2``), each an intersection of 3 halfplanes, so ``k-UNION-GON ⊆ (HALFPLANE^{∧3})^{∨k}``. By De Morgan
``T_1 ∨ ... ∨ T_R = ¬(¬T_1 ∧ ... ∧ ¬T_R)``: the union learner
(:class:`~ppm.set_cover.DisjunctionLearner` with ``hypotheses="triangles"``) runs the Set Cover
Learner on the flipped labels ``1 - y`` with the base class ``H' = ¬(HALFPLANE^{∧3})`` and
negates its output. With ``S'_0`` = the original positives and ``S'_1`` = the original
negatives, the round score is ``q(T) = min(#pos inside T - b_j/k, -#neg inside T)``, the
examples inside the drawn ``T_j`` are deleted, and the output is ``T_1 ∨ ... ∨ T_R``.

The selection (:class:`TriangleComplementSelector`, the exponential mechanism over ``H'``).
A "triangle" is an ordered triple of halfplanes ``(f_1, f_2, f_3)``, i.e. three points of the
dual box of Select Halfplane (Observation 4.1); ``T = f_1 ∧ f_2 ∧ f_3``. The base measure is
the product of the dual box's area measure on the three coordinates, the natural extension of
Select Halfplane's base measure to ``H^{∧3}`` (each coordinate is one of Select Halfplane's
halfplanes); the mechanism's density is ``∝ exp(epsilon q / 2)`` (``epsilon``-DP for the score
of sensitivity 1, the same reading of ``eps_s = epsilon / 2`` as Select Halfplane). Ordered
triples: the map from ordered triples to triangles is 6-to-1 up to measure zero, so the
unordered measure is the same measure up to a constant factor; sampling ordered triples is the
exact mechanism on either. The score depends on ``(f_1, f_2, f_3)`` only through the three
cells of the dual arrangement containing them (each cell = one labelling of the sample), so the
mechanism is: draw an ordered triple of cells ``(c_1, c_2, c_3)`` with probability ``∝ mass(c_1)
mass(c_2) mass(c_3) exp(epsilon q / 2)`` (``q`` from the AND of the three labellings), then a
uniform point in each cell. Cells with the same labelling (in either box) are merged (their
masses summed; a point is then drawn from the merged set ∝ area), which changes nothing.
Identical sample points are merged with multiplicities, so the cost depends on the number
``m`` of DISTINCT points: ``L = O(m^2)`` labellings, ``L^3`` triples.

Sampling (exact, float64, log-sum-exp): the chain rule ``P(c_1) P(c_2 | c_1) P(c_3 | c_1,
c_2)``. ``log W(c_1) = log sum_{c_2, c_3} mass(c_1) mass(c_2) mass(c_3) exp(epsilon q / 2)``:
for each ``c_1`` the kernel (:mod:`ppm.set_cover._triple_kernels`) adds ``mass(c_2) mass(c_3)``
(masses normalised to sum 1, so no product underflows) into the bucket of the triple's score
(``q`` takes ``N_0 + N_1 + 2`` values; the counts inside are exact integers from bit-packed
labellings), then takes the log-sum-exp over the buckets. Draw ``c_1``; the same with ``c_1``
fixed gives ``log W(c_2 | c_1)``; draw ``c_2``; ``log mass(c_3) + epsilon q / 2`` for the
fixed pair gives ``c_3``. The kernels (CPU and GPU) receive the temperature ``epsilon / 2``
from :func:`ppm.mechanisms.em_temperature`, the draws are :func:`ppm.mechanisms.draw_index`.
:meth:`TriangleComplementSelector.selection_table` returns the
probability of every ordered triple through the same three steps (for the exactness tests).
``q`` does not factor over the three cells, so no exact shortcut avoids the ``L^3`` triples: a
sample whose ``L^3`` exceeds the limit is refused with a ``ValueError`` before any triple is
scored (the sweep that counts the cells costs ``O(m^2 log m)``). On the CPU the limit is
:data:`MAX_TRIPLES` = ``2e8`` (about 1.7 s per round on one CPU core; m = 24 random points: 552
cells, 1.4 s).

GPU (``device="cuda"``, or ``"auto"`` with a GPU for ``L^3 >= AUTO_MIN_TRIPLES``): steps 1 and
2 of the chain rule run as numba.cuda kernels (:mod:`ppm.set_cover._cuda_triple_kernels`: one
block per first cell, exact integer counts, a fixed-order log-sum-exp reduction), step 3
(``O(L)``) and the draws stay on the host. The mechanism is the same; only the order of the
float64 additions differs, so the log-weights agree with the CPU kernel's to float64 rounding
and the draws are the same except where a uniform falls within rounding of a boundary of the
cumulative distribution (docs/gpu.md). The GPU limit is :data:`MAX_TRIPLES_GPU` = ``1e11``
(about m <= 64 distinct points).
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Real

import numpy as np

from ppm.gpu import AUTO_MIN_TRIPLES, check_device, cuda_usable, gpu_available
from ppm.mechanisms import draw_index, em_temperature
from ppm.validation import check_labels
from . import _triple_kernels as TK
from .halfplanes import (Halfplane, check_grid_points, check_grid_size, check_real,
                         dual_trapezoids)

#: default limit on the number ``L^3`` of ordered cell triples of one selection on the CPU
MAX_TRIPLES = 2 * 10**8
#: the same on the GPU (``device="cuda"``, or ``"auto"`` on a GPU): about m <= 64 distinct points
MAX_TRIPLES_GPU = 10**11


class Triangle:
    """``f_1 ∧ f_2 ∧ f_3`` for three :class:`~ppm.set_cover.Halfplane` (an intersection of 3
    halfplanes: a triangle, or an unbounded or empty region)."""

    def __init__(self, halfplanes):
        self.halfplanes = tuple(halfplanes)
        if len(self.halfplanes) != 3:
            raise ValueError(f"a Triangle needs 3 halfplanes, got {len(self.halfplanes)}")

    def __repr__(self) -> str:
        return f"Triangle({list(self.halfplanes)!r})"

    def predict(self, X) -> np.ndarray:
        out = np.ones(np.asarray(X).shape[0], dtype=np.int64)
        for h in self.halfplanes:
            out &= h.predict(X)
        return out


class TriangleComplement:
    """``¬T`` for a :class:`Triangle` ``T``: the base hypothesis of the union learner's
    conjunction (labels 0 exactly the points inside ``T``)."""

    def __init__(self, triangle: Triangle):
        self.triangle = triangle

    def __repr__(self) -> str:
        return f"TriangleComplement({self.triangle!r})"

    def predict(self, X) -> np.ndarray:
        return 1 - self.triangle.predict(X)


@dataclass
class TripleCells:
    """The merged cells of one selection: ``labels`` (L, m) int8 labellings of the distinct
    points, ``mass`` (L,) areas (both boxes, summed per labelling), ``members`` per labelling
    the (box, trapezoid) pairs and their areas; ``c0``/``c1``: multiplicities of the distinct
    points with conjunction-side label 0 / 1 (original positives / negatives)."""

    trap: object
    labels: np.ndarray
    mass: np.ndarray
    cell_of: np.ndarray  # (2 n_trap,) labelling index of (box 1 trapezoids, box 2 trapezoids)
    c0: np.ndarray
    c1: np.ndarray


class TriangleComplementSelector:
    """Exponential mechanism over ``¬(HALFPLANE^{∧3})`` on ``{0..T}^2`` (module docstring).

    ``select(X, y, threshold, epsilon, rng)`` draws ``¬T`` with density ``∝ exp(epsilon q / 2)``
    with respect to the product of the dual area measures, ``q(¬T) = min(#¬T_0(S_0) - threshold,
    -#¬T_0(S_1))`` (``¬T_0`` = the points inside ``T``; ``S_0``/``S_1`` = rows with ``y = 0 / 1``:
    in the union learner the original positives / negatives).

    ``device``: where steps 1 and 2 of the chain rule run: "cpu" (the numba CPU kernel),
    "cuda" (an NVIDIA GPU, numba.cuda; a ``ValueError`` here, before any work, when none is
    usable) or "auto" (the GPU when :func:`ppm.gpu.gpu_available` and ``L^3 >=``
    :data:`AUTO_MIN_TRIPLES`, else the CPU). ``max_triples``: refuse a sample with more ordered
    cell triples (``None``: :data:`MAX_TRIPLES` on the CPU, :data:`MAX_TRIPLES_GPU` on the
    GPU)."""

    def __init__(self, T: int, max_triples: float | None = None, device: str = "cpu"):
        self.T = check_grid_size(T)
        if max_triples is not None and (isinstance(max_triples, bool) or not isinstance(
                max_triples, Real) or not max_triples >= 1):
            raise ValueError(f"max_triples must be None or a number >= 1, got {max_triples!r}")
        self.max_triples = None if max_triples is None else float(max_triples)
        self.device = check_device(device)
        if self.device == "cuda" and not cuda_usable():
            raise ValueError("device='cuda' needs an NVIDIA GPU visible to numba.cuda (install "
                             "the extra: pip install -e '.[gpu]'); none was found. Use "
                             "device='cpu' or 'auto'.")

    def uses_gpu(self, n_triples: float) -> bool:
        """Whether a selection with ``n_triples`` ordered cell triples runs on the GPU."""
        return self.device == "cuda" or (self.device == "auto" and n_triples >= AUTO_MIN_TRIPLES
                                         and gpu_available())

    def limit(self, n_triples: float) -> float:
        """The refusal limit that applies to a selection of ``n_triples`` triples."""
        if self.max_triples is not None:
            return self.max_triples
        return float(MAX_TRIPLES_GPU if self.uses_gpu(n_triples) else MAX_TRIPLES)

    def check_X(self, X) -> np.ndarray:
        return check_grid_points(X, self.T)

    def cells(self, X, y) -> TripleCells:
        """Merged cells of the dual arrangement of the distinct points of ``X`` (refuses a
        sample with more than ``max_triples`` ordered cell triples)."""
        X = self.check_X(X)
        y = check_labels(y, X.shape[0])
        trap = dual_trapezoids(X, self.T)
        key = X[:, 0] * (self.T + 1) + X[:, 1]
        pkey = trap.points[:, 0] * (self.T + 1) + trap.points[:, 1]
        idx = np.searchsorted(pkey, key)  # distinct points sorted by key
        m = pkey.size
        c1 = np.bincount(idx, weights=y, minlength=m)
        c0 = np.bincount(idx, minlength=m) - c1
        lab = np.concatenate([trap.labelling(1), trap.labelling(2)])
        labels, cell_of = np.unique(lab, axis=0, return_inverse=True)
        cell_of = cell_of.reshape(-1)
        n_triples = float(labels.shape[0]) ** 3
        limit = self.limit(n_triples)
        if n_triples > limit:
            where = "GPU" if self.uses_gpu(n_triples) else "CPU"
            raise ValueError(
                f"triangle selection refused: {labels.shape[0]} cells give {n_triples:.3g} "
                f"ordered cell triples > the limit max_triples={limit:.3g} on the {where} "
                f"({m} distinct points)")
        mass = np.bincount(cell_of, weights=np.concatenate([trap.area, trap.area]),
                           minlength=labels.shape[0])
        return TripleCells(trap, labels.astype(np.int8), mass, cell_of, c0, c1)

    def _prepare(self, X, y, threshold, epsilon):
        threshold = check_real(threshold, "threshold")
        epsilon = check_real(epsilon, "epsilon", positive=True)
        cells = self.cells(X, y)
        bits, tab0, tab1 = TK.pack(cells.labels, cells.c0.astype(np.int64),
                                   cells.c1.astype(np.int64))
        mass = cells.mass / cells.mass.sum()
        N0, N1 = int(cells.c0.sum()), int(cells.c1.sum())
        kernel = TK.log_weights
        if self.uses_gpu(float(mass.size) ** 3):
            from . import _cuda_triple_kernels  # imports numba.cuda: only when it runs

            kernel = _cuda_triple_kernels.log_weights
        temp = em_temperature(epsilon)  # the kernels receive the mechanism's temperature
        args = (kernel, bits, mass, tab0, tab1, N0, N1, threshold, temp)
        return cells, args

    @staticmethod
    def _step(args, c1: int, c2: int) -> np.ndarray:
        """Normalised log-probabilities of the next cell given ``c1`` (and ``c2``); -1: none."""
        kernel, bits, mass, tab0, tab1, N0, N1, thr, temp = args
        logw = kernel(bits, mass, c1, c2, tab0, tab1, N0, N1, thr, temp)
        top = logw.max()
        return logw - (top + np.log(np.exp(logw - top).sum()))

    def selection_table(self, X, y, threshold, epsilon):
        """The sampler's probabilities of every ordered cell triple, by its own chain rule:
        ``(cells, logp)`` with ``logp[c1, c2, c3] = log P(c1) + log P(c2 | c1) + log P(c3 |
        c1, c2)`` (for tests and audits; ``L^3`` floats)."""
        cells, args = self._prepare(X, y, threshold, epsilon)
        logp1 = self._step(args, -1, -1)
        L = logp1.size
        logp = np.full((L, L, L), -np.inf)
        for a in range(L):
            if logp1[a] == -np.inf:
                continue
            logp2 = self._step(args, a, -1)
            for b in range(L):
                if logp2[b] > -np.inf:
                    logp[a, b] = logp1[a] + logp2[b] + self._step(args, a, b)
        return cells, logp

    def select(self, X, y, threshold: float, epsilon: float,
               rng: np.random.Generator) -> TriangleComplement:
        """Draw ``(c_1, c_2, c_3)`` by the chain rule, then a uniform point in each cell."""
        if not isinstance(rng, np.random.Generator):
            raise ValueError(f"rng must be a numpy Generator, got {rng!r}")
        cells, args = self._prepare(X, y, threshold, epsilon)
        c1 = draw_index(self._step(args, -1, -1), rng)
        c2 = draw_index(self._step(args, c1, -1), rng)
        c3 = draw_index(self._step(args, c1, c2), rng)
        return TriangleComplement(Triangle(self._point(cells, c, rng) for c in (c1, c2, c3)))

    @staticmethod
    def _point(cells: TripleCells, c: int, rng) -> Halfplane:
        """A uniform point of merged cell ``c``: a trapezoid ∝ area, then uniform in it."""
        trap = cells.trap
        n_t = trap.area.size
        members = np.flatnonzero(cells.cell_of == c)
        area = trap.area[members % n_t]
        j = int(members[draw_index(np.log(area), rng)])
        return trap.halfplane(j % n_t, 1 + j // n_t, rng)

