"""Algorithm 1 of the paper (``ConstrHalf``): candidate halfspaces built from public points only.

docs/model.md §2. For every non-empty subset ``T`` of the (deduplicated) public points with
``|T| <= d`` we choose one hyperplane ``{x : <w, x> = b}`` containing ``T`` and add both closed
halfspaces ``{<w, x> >= b}`` and ``{<w, x> <= b}``. The result also carries the affine hull
``Aff`` of the public points.

Conventions fixed here (docs/model.md §2, "Conventions"):

* **Duplicate public points** are merged first (``np.unique``); a subset containing two copies of
  a point spans the same hyperplanes as the subset without the copy.
* **Choice of the hyperplane** when ``T`` does not determine it (``|T| < d`` or ``T`` affinely
  dependent): the normal is the projection, onto the null space of the centred points of ``T``,
  of the standard basis vector ``e_j`` whose projection is longest (lowest ``j`` on ties); when
  ``T`` determines the hyperplane this is its unique normal up to sign. If ``Aff`` is a proper
  subspace and that normal is orthogonal to it (the hyperplane would contain ``Aff`` and cut
  nothing there, e.g. singletons of public points on the line ``x = 1`` in R^2 get ``e_1``), and
  ``T`` does not span ``Aff``, the normal is instead the longest projection of ``Aff``'s basis
  vectors onto that null space (lowest index on ties): a hyperplane through ``T`` that cuts
  ``Aff``, as Lemma 4.5's hulls inside ``Aff`` need. Reading of the paper: "one arbitrary
  halfspace supported by T" (Algorithm 1, step 5) with the intersection taken inside ``Aff``
  (Section 4); the general-position choice is unchanged. Sign rule: the first
  coordinate of ``w`` with ``|w_i| > 1e-12`` is positive. Offset ``b`` = mean of ``<w, t>`` over
  ``T``. The choice is a function of ``T`` and ``Aff`` (public points only), never of private data.
* **Closed halfspaces with a tolerance**: ``x`` is in ``{<w, x> >= b}`` iff
  ``<w, x> - b >= -tol`` with ``tol = rel_tol * max(1, max |X_pub|)`` (default ``rel_tol =
  1e-9``), so that points of ``T`` (which satisfy ``<w, t> = b`` only up to rounding) lie in both
  members of the pair. For ``d = 1`` the hyperplane ``{x = t}`` is represented exactly
  (``w = +-1``, ``b = +-t``) and ``tol = 0``: comparisons are exact.
* **Deduplication**: ``C_pub`` is a set. Two halfspaces are identical when their unit normals
  and offsets agree after rounding to ``1e-9`` (relative to the public scale); the first in
  canonical order is kept. Uses public data only, so it costs no privacy and shrinks ``|G|``.
* **Affine hull**: ``Aff`` is stored as a point and an orthonormal basis of its directions
  (rank decided with the same tolerance); membership is "distance to ``Aff`` <= tol".
* **Canonical order** of ``C_pub``: subsets by size, then lexicographically in the indices of
  the sorted unique public points; each subset contributes ``(upper, lower)`` in that order.
  Every scorer and the sampler index ``G`` in this order (see :mod:`ppm.core.hypothesis_class`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from math import comb

import numpy as np
from numba import njit, prange

from ppm.validation import check_positive_int, check_X

DEFAULT_REL_TOL = 1e-9


@njit(cache=True, parallel=True)
def _contains_kernel(W, b, X, tol, out):
    """out[k, j] = <W[k], X[j]> - b[k] >= -tol, the sum taken in coordinate order (no FMA)."""
    for k in prange(W.shape[0]):
        for j in range(X.shape[0]):
            v = 0.0
            for t in range(W.shape[1]):
                v += W[k, t] * X[j, t]
            out[k, j] = v - b[k] >= -tol


@dataclass(frozen=True)
class PublicHalfspaces:
    """The output of ``ConstrHalf``: closed halfspaces ``<W[i], x> >= b[i]`` and ``Aff``.

    Attributes
    ----------
    W, b : arrays of shape (m, d) and (m,)
        Halfspace ``i`` is ``{x : <W[i], x> - b[i] >= -tol}``; ``W`` rows are unit vectors.
    supports : int array (m, d)
        The subset ``T`` (indices into :attr:`public_points`, padded with -1) that generated
        each halfspace.
    public_points : array (k, d)
        The sorted, deduplicated public points.
    tol : float
        Absolute membership tolerance (0 for d = 1).
    aff_point, aff_basis : arrays (d,), (r, d)
        ``Aff = aff_point + span(aff_basis)``; ``r = d`` means ``Aff`` is all of R^d.
    """

    W: np.ndarray
    b: np.ndarray
    supports: np.ndarray = field(repr=False)
    public_points: np.ndarray = field(repr=False)
    tol: float
    aff_point: np.ndarray
    aff_basis: np.ndarray

    @property
    def d(self) -> int:
        return self.W.shape[1]

    def __len__(self) -> int:
        return self.W.shape[0]

    @property
    def aff_dim(self) -> int:
        """Dimension of the affine hull (-1 for an empty public set)."""
        if self.public_points.shape[0] == 0:
            return -1
        return self.aff_basis.shape[0]

    @property
    def aff_is_full(self) -> bool:
        return self.aff_dim == self.d

    def in_affine_hull(self, X: np.ndarray) -> np.ndarray:
        """Boolean mask: which rows of ``X`` lie in ``Aff`` (within ``tol``)."""
        X = np.asarray(X, dtype=float)
        if self.aff_is_full:
            return np.ones(X.shape[0], dtype=bool)
        if self.public_points.shape[0] == 0:
            return np.zeros(X.shape[0], dtype=bool)
        diff = X - self.aff_point
        resid = diff - (diff @ self.aff_basis.T) @ self.aff_basis
        return np.sqrt(np.einsum("ij,ij->i", resid, resid)) <= self.tol

    def contains(self, X: np.ndarray, index=None) -> np.ndarray:
        """Membership matrix ``M[i, j] = [X[j] in halfspace i]`` (closed, with ``tol``).

        ``index`` restricts to a subset of halfspaces. Does not intersect with ``Aff``. The
        single source of truth for membership: every scorer of ``G`` and ``predict`` use it.
        """
        X = np.ascontiguousarray(X, dtype=float)
        W = self.W if index is None else self.W[np.asarray(index, dtype=np.intp)]
        b = self.b if index is None else self.b[np.asarray(index, dtype=np.intp)]
        out = np.empty((W.shape[0], X.shape[0]), dtype=bool)
        if W.shape[0] and X.shape[0]:
            _contains_kernel(np.ascontiguousarray(W), np.ascontiguousarray(b), X,
                             float(self.tol), out)
        return out

    def membership(self, X: np.ndarray) -> np.ndarray:
        """``contains(X) & in_affine_hull(X)``: the matrix every scorer of ``G`` works from."""
        out = self.contains(X)
        if not self.aff_is_full:
            out &= self.in_affine_hull(X)[None, :]
        return out


def _subsets(k_points: int, size: int) -> np.ndarray:
    """All ``size``-subsets of ``range(k_points)`` in lexicographic order, as an int array."""
    if size == 1:
        return np.arange(k_points, dtype=np.intp)[:, None]
    if size == 2:
        return np.stack(np.triu_indices(k_points, k=1), axis=1).astype(np.intp)
    count = comb(k_points, size)
    flat = np.fromiter(
        itertools.chain.from_iterable(itertools.combinations(range(k_points), size)),
        dtype=np.intp,
        count=count * size,
    )
    return flat.reshape(count, size)


def _normals(P: np.ndarray, scale: float, rel_tol: float, aff_basis: np.ndarray) -> np.ndarray:
    """Deterministic unit normals of hyperplanes through each point set ``P[i]`` (shape N, k, d).

    ``aff_basis``: orthonormal rows spanning the directions of ``Aff`` (public, like ``P``).
    """
    N, k, d = P.shape
    eye = np.eye(d)
    if k == 1:
        null_proj = np.broadcast_to(eye, (N, d, d))
    else:
        A = P[:, 1:, :] - P[:, :1, :]
        _, S, Vt = np.linalg.svd(A, full_matrices=False)
        keep = (S > rel_tol * scale).astype(float)  # rank decided with the public tolerance
        row_proj = np.einsum("nr,nri,nrj->nij", keep, Vt, Vt)
        null_proj = eye[None, :, :] - row_proj
    # Projection of e_j onto the null space is column j; its squared length is the diagonal.
    diag = np.einsum("nii->ni", null_proj)
    j = np.argmax(diag, axis=1)
    w = null_proj[np.arange(N), :, j]
    w /= np.linalg.norm(w, axis=1, keepdims=True)
    r = aff_basis.shape[0]
    if 0 < r < d:
        # A normal orthogonal to Aff's directions gives a hyperplane that CONTAINS Aff, so
        # its pair cuts nothing there (Lemma 4.5 needs the relative facets of hulls inside
        # Aff). When T does not span Aff, take instead the longest projection of Aff's basis
        # vectors onto T's null space: it lies in Aff's directions, so the hyperplane cuts Aff.
        flat = np.linalg.norm(w @ aff_basis.T, axis=1) <= rel_tol
        if flat.any():
            cand = np.einsum("nij,rj->nri", null_proj[flat], aff_basis)  # (n, r, d)
            length = np.linalg.norm(cand, axis=2)
            best = np.argmax(length, axis=1)
            cuts = length[np.arange(best.size), best] > rel_tol
            alt = cand[np.arange(best.size), best]
            rows = np.flatnonzero(flat)[cuts]
            w[rows] = alt[cuts] / length[np.arange(best.size), best][cuts, None]
    # Sign rule: first clearly non-zero coordinate positive.
    first = np.argmax(np.abs(w) > 1e-12, axis=1)
    sign = np.sign(w[np.arange(N), first])
    return w * sign[:, None]


def check_rel_tol(rel_tol) -> float:
    """The relative geometric tolerance: a float in (0, 1e-3)."""
    if not (isinstance(rel_tol, float) and 0.0 < rel_tol < 1e-3):
        raise ValueError(f"rel_tol must be a float in (0, 1e-3), got {rel_tol!r}")
    return rel_tol


def construct_halfspaces(X_pub, n_features: int | None = None, rel_tol: float = DEFAULT_REL_TOL):
    """Algorithm 1 (``ConstrHalf``): candidate halfspaces from the public points only.

    Parameters
    ----------
    X_pub : array (n_pub, d)
        Public feature vectors; labels are not used. May be empty.
    n_features : int, optional
        Dimension ``d``; required when ``X_pub`` is empty.
    rel_tol : float
        Relative tolerance for closedness, rank decisions and deduplication (module docstring).

    Returns
    -------
    PublicHalfspaces
        ``C_pub`` in canonical order and the affine hull ``Aff``.
        ``len(C_pub) <= 2 * sum_{i=1..d} C(n_pub, i)``.
    """
    check_rel_tol(rel_tol)
    X_arr = np.asarray(X_pub, dtype=float)
    if X_arr.size == 0:
        if n_features is None and (X_arr.ndim != 2 or X_arr.shape[1] == 0):
            raise ValueError("n_features is required when X_pub is empty")
        d = check_positive_int(n_features if n_features is not None else X_arr.shape[1], "n_features")
        X_arr = np.empty((0, d))
    else:
        X_arr = check_X(X_arr, "X_pub", n_features=n_features)
    d = X_arr.shape[1]

    if X_arr.shape[0] == 0:
        pts = X_arr
    elif d == 1:
        pts = np.unique(X_arr[:, 0])[:, None]  # same order as axis=0, much faster
    else:
        pts = np.unique(X_arr, axis=0)
    k = pts.shape[0]
    scale = max(1.0, float(np.max(np.abs(pts))) if k else 1.0)
    tol = 0.0 if d == 1 else rel_tol * scale

    # Affine hull of the public points (rank with the same tolerance).
    if k == 0:
        aff_point, aff_basis = np.zeros(d), np.empty((0, d))
    else:
        aff_point = pts.mean(axis=0) if d > 1 else pts[0].copy()
        if k == 1:
            aff_basis = np.empty((0, d))
        else:
            _, S, Vt = np.linalg.svd(pts - pts[0], full_matrices=False)
            r = int(np.sum(S > rel_tol * scale))
            aff_basis = Vt[:r].copy()
        if aff_basis.shape[0] == d:
            aff_basis = np.eye(d)

    W_parts, b_parts, support_parts = [], [], []
    for size in range(1, min(d, k) + 1):
        idx = _subsets(k, size)
        P = pts[idx]
        if d == 1:
            w = np.ones((idx.shape[0], 1))
            b = P[:, 0, 0].copy()  # exact: the hyperplane {x = t}
        else:
            w = _normals(P, scale, rel_tol, aff_basis)
            b = np.einsum("nkd,nd->n", P, w) / size
        # Interleave (upper, lower) = ({<w,x> >= b}, {<-w,x> >= -b}).
        W_pair = np.stack([w, -w], axis=1).reshape(-1, d)
        b_pair = np.stack([b, -b], axis=1).reshape(-1)
        W_parts.append(W_pair)
        b_parts.append(b_pair)
        padded = np.full((idx.shape[0], d), -1, dtype=np.intp)
        padded[:, :size] = idx
        support_parts.append(np.repeat(padded, 2, axis=0))

    if W_parts:
        W = np.concatenate(W_parts)
        b = np.concatenate(b_parts)
        supports = np.concatenate(support_parts)
    else:
        W, b, supports = np.empty((0, d)), np.empty(0), np.empty((0, d), dtype=np.intp)
    if d > 1 and W.shape[0]:
        # (For d = 1 the unique points already give distinct hyperplanes; no rounding there.)
        # Deduplicate: identical (unit normal, offset) up to the tolerance; keep the first.
        key = np.round(np.concatenate([W, b[:, None] / scale], axis=1) / rel_tol).astype(np.int64)
        _, first = np.unique(key, axis=0, return_index=True)
        keep = np.sort(first)
        W, b, supports = W[keep], b[keep], supports[keep]

    return PublicHalfspaces(
        W=W, b=b, supports=supports, public_points=pts, tol=tol,
        aff_point=aff_point, aff_basis=aff_basis,
    )
