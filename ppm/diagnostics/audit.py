"""Exact privacy audit of ``LearnHalf`` through its production path (Lemma 4.1, claim C6).

**Output distribution.** :func:`exact_output_distribution` runs the learner's own steps 1-2
(:meth:`PPMHalfspaceLearner._mechanism_scorer`, the code ``fit`` runs: validation, ``ConstrHalf``,
``make_scorer`` for the chosen ``method``), takes the scorer's ``histogram()`` (the histogram
``fit`` samples the level from, with :func:`ppm.mechanisms.level_log_probabilities`, the function
inside ``sample_level_and_rank``), and asks the scorer's ``find(level, rank)`` (``fit``'s rank
pass) for EVERY ``(level, rank)``. Since ``fit`` draws the level with those probabilities and the
rank uniformly, hypothesis ``g = find(L, r)`` is output with probability
``P[level = L] / count[L]``; the audit checks that ``find`` hits every member of ``G`` exactly
once, so this is the full, exact output distribution of the production sampler.

**Neighbours.** The neighbouring relation (docs/model.md §1) replaces one private example by an arbitrary
``(x', y')`` that stays private. The score of every hypothesis depends on ``x'`` only through
its membership column (which halfspaces of ``C_pub`` contain it, and whether it lies in
``Aff``), so one representative per realisable membership pattern covers every neighbour:
:func:`arrangement_cells` returns a point in every face (of every dimension) of the arrangement
of the hyperplanes of ``C_pub`` inside ``Aff``, plus one point off ``Aff``. With both labels that
is every neighbour, up to equivalence. Exponential in ``d``; for tiny samples only.
"""

from __future__ import annotations

import numpy as np

from ppm.core.halfspaces import DEFAULT_REL_TOL, PublicHalfspaces
from ppm.core.hypothesis_class import iter_hypotheses
from ppm.mechanisms import level_log_probabilities

# Geometric slack (relative to the public scale) to decide that a representative point lies
# on a hyperplane; far above rounding (1e-15) and far below the gaps of the audit's samples.
_ON_PLANE = 1e-7


def exact_output_distribution(X, y, public, epsilon: float, method: str = "auto",
                              rel_tol: float = DEFAULT_REL_TOL):
    """``({hypothesis index tuple: log P[output]}, C_pub)`` of ``PPMHalfspaceLearner.fit``.

    Uses the production scorer of ``method`` (histogram and rank pass); raises
    ``AssertionError`` if the rank pass is not a bijection from ``(level, rank)`` onto ``G``.
    """
    from ppm.core.learner import PPMHalfspaceLearner  # the learner imports nothing from here

    learner = PPMHalfspaceLearner(epsilon=epsilon, method=method, rel_tol=rel_tol)
    hs, scorer, size, _ = learner._mechanism_scorer(X, y, public)
    counts = scorer.histogram()
    level_logp = level_log_probabilities(counts, learner.epsilon)
    logp = {}
    for level in np.flatnonzero(counts):
        lp = float(level_logp[level] - np.log(counts[level]))
        for rank in range(int(counts[level])):
            logp[tuple(int(i) for i in scorer.find(int(level), rank))] = lp
    if len(logp) != size or set(logp) != set(iter_hypotheses(len(hs), hs.d)):
        raise AssertionError(f"method={method!r}: the rank pass does not enumerate G exactly "
                             f"once ({len(logp)} distinct outputs, |G| = {size})")
    return logp, hs


def privacy_loss(logp_a: dict, logp_b: dict) -> float:
    """``max_g |log P_a[g] - log P_b[g]|`` over a common hypothesis class (inf if they differ)."""
    if logp_a.keys() != logp_b.keys():
        return float("inf")
    return max(abs(logp_a[g] - logp_b[g]) for g in logp_a)


def _face_points(A: np.ndarray, c: np.ndarray, slack: float) -> list:
    """Points ``u`` of R^r, at least one in every face of the arrangement ``{a_i . u = c_i}``.

    Recursion on the dimension: the faces inside hyperplane ``H`` are the faces of the
    arrangement restricted to ``H`` (hyperplanes parallel to ``H`` do not meet it); every
    full-dimensional cell has a facet on some ``H``, and a point of that facet (on no other
    hyperplane) moved off ``H`` by less than its distance to the other hyperplanes, to either
    side, lands in the two cells the facet separates.
    """
    r = A.shape[1]
    if r == 0 or A.shape[0] == 0:
        return [np.zeros(r)]
    norms = np.linalg.norm(A, axis=1)
    A, c = A / norms[:, None], c / norms
    # One row per hyperplane: C_pub holds both orientations, and distinct hyperplanes can
    # restrict to the same one (planes through a common line); a duplicate would hide facets.
    sign = np.sign(A[np.arange(A.shape[0]), np.argmax(np.abs(A) > 1e-9, axis=1)])
    A, c = A * sign[:, None], c * sign
    _, first = np.unique(np.round(np.column_stack([A, c]) / slack), axis=0, return_index=True)
    A, c = A[np.sort(first)], c[np.sort(first)]
    points = []
    for i in range(A.shape[0]):
        a, others = A[i], np.delete(np.arange(A.shape[0]), i)
        u0 = a * c[i]
        N = np.linalg.svd(a[None, :])[2][1:]  # orthonormal basis of a's orthogonal complement
        A2, c2 = A[others] @ N.T, c[others] - A[others] @ u0
        meets = np.linalg.norm(A2, axis=1) > 1e-9  # not parallel to H (nor H itself)
        for v in _face_points(A2[meets], c2[meets], slack):
            u = u0 + N.T @ v
            points.append(u)
            dist = np.abs(A[others] @ u - c[others])
            if not np.any(dist <= slack):  # relative interior of a facet: open both sides
                step = 0.5 * float(dist.min()) if dist.size else 1.0
                points.extend([u + step * a, u - step * a])
    return points


def arrangement_cells(hs: PublicHalfspaces) -> np.ndarray:
    """One point per realisable membership pattern of ``hs.membership`` (rows: points).

    Every face of the arrangement of ``C_pub``'s hyperplanes inside ``Aff`` (of every
    dimension), plus one point off ``Aff`` when ``Aff`` is not all of R^d (there no region
    contains it: the all-zero column). Duplicate patterns are dropped.
    """
    d = hs.d
    if hs.aff_dim < 0:
        return np.zeros((1, d))
    scale = max(1.0, float(np.max(np.abs(hs.public_points))))
    origin, basis = hs.aff_point, hs.aff_basis  # Aff = origin + span(basis rows)
    if hs.aff_is_full:  # plain coordinates: exact for d = 1, where membership has tol = 0
        origin, basis = np.zeros(d), np.eye(d)
    A, c = hs.W @ basis.T, hs.b - hs.W @ origin
    keep = np.linalg.norm(A, axis=1) > 1e-9  # hyperplanes containing Aff cut nothing
    U = _face_points(A[keep], c[keep], _ON_PLANE * scale)
    P = [origin + basis.T @ u for u in U]
    if hs.aff_dim < d:
        normal = np.linalg.svd(np.vstack([basis, np.zeros((1, d))]))[2][hs.aff_dim]
        P.append(origin + scale * normal)
    P = np.array(P)
    _, first = np.unique(hs.membership(P).T, axis=0, return_index=True)
    return P[np.sort(first)]


def neighbour_losses(X, y, public, index: int, epsilon: float, methods,
                     rel_tol: float = DEFAULT_REL_TOL) -> dict:
    """Worst privacy loss per ``method`` over all neighbours replacing private example ``index``.

    Every cell of :func:`arrangement_cells` with both labels. Also checks that every method
    gives the same distribution on every sample. Returns ``{method: max loss}`` and the number
    of neighbours under ``"neighbours"``.
    """
    if public[index]:
        raise ValueError(f"example {index} is public; neighbours replace a private example")
    base = {m: exact_output_distribution(X, y, public, epsilon, m, rel_tol) for m in methods}
    hs = base[methods[0]][1]
    cells = arrangement_cells(hs)
    worst = dict.fromkeys(methods, 0.0)
    for x_new in cells:
        for y_new in (0, 1):
            X2, y2 = X.copy(), y.copy()
            X2[index], y2[index] = x_new, y_new
            ref = None
            for m in methods:
                logp, _ = exact_output_distribution(X2, y2, public, epsilon, m, rel_tol)
                worst[m] = max(worst[m], privacy_loss(base[m][0], logp))
                if ref is None:
                    ref = logp
                elif privacy_loss(ref, logp) > 1e-9:
                    raise AssertionError(f"method={m!r} disagrees with {methods[0]!r}")
    worst["neighbours"] = 2 * len(cells)
    return worst
