"""Synthetic PPM populations (docs/model.md §§1 and 8).

A population is a distribution over triples ``(x, y, p)``: feature vector ``x`` in R^d, label
``y`` in {0, 1} and privacy bit ``p`` (here a boolean ``public`` mask, True = public). It is a
mixture ``w_pub * D_pub + (1 - w_pub) * D_priv`` of two sub-populations that may look very
different; learners are scored on ``y``, never on ``p`` (docs/model.md §1, ``err(h; D) = P[h(x) != y]``).

:class:`GaussianClusters` is the paper's motivating picture ("healthy" public people, "sick"
private people) as two Gaussian clusters of different shapes on either side of a target
halfspace: with a ``margin`` the clusters are truncated to their side (realizable), with
``margin=None`` they overlap (agnostic).

:class:`GridThresholds` (:mod:`ppm.populations.grid_thresholds`) is the d = 1 grid domain of claim C9 (docs/model.md §§4 and 8): thresholds over
``T`` equally spaced points of [0, 1], the setting where fully private learning pays
``Omega(log T)`` and the PPM learner pays nothing for the domain size. Its true error is exact.

Every object here is immutable after construction apart from a private cache of ``opt()``, so
instances can be shared freely between (reused) joblib worker processes.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
from scipy import optimize
from scipy.special import ndtr

from ppm.populations.base import PopulationBase
from ppm.registry import configurable
from ppm.validation import CLOSED_UNIT, Number, check_positive_int, check_random_state, check_X

# A realizable configuration must keep at least this fraction of a cluster after truncation;
# below it rejection sampling would waste > 10^4 draws per kept point.
MIN_ACCEPTANCE = 1e-4
# Upper bound on the number of scalar draws per rejection-sampling batch (bounds memory).
_MAX_BATCH = 1 << 20


def _rotation(d: int, geometry_seed: int) -> np.ndarray:
    """A fixed orthogonal matrix drawn from ``geometry_seed`` (identity for d = 1).

    QR of a seeded standard Gaussian matrix, with the signs of R's diagonal folded into Q so
    the result is a deterministic function of the seed (plain QR leaves the signs to LAPACK).
    Why rotate at all: the learner uses axis-aligned reference directions for some degenerate
    hyperplanes, and an axis-aligned target would make those coincide with it by accident.
    """
    if d == 1:
        return np.ones((1, 1))
    rng = np.random.default_rng(geometry_seed)
    q, r = np.linalg.qr(rng.standard_normal((d, d)))
    signs = np.sign(np.diag(r))
    signs[signs == 0] = 1.0
    return q * signs


@configurable("population", "gaussian_clusters", stable_name="ppm.populations.GaussianClusters",
              target="ppm.populations.GaussianClusters")
class GaussianClusters(PopulationBase):
    """Two Gaussian clusters on either side of a target halfspace (docs/model.md §§1 and 8).

    Geometry (written in the rotated frame ``z = R^T x``, where ``R`` is a fixed rotation drawn
    from ``geometry_seed`` and the target normal is ``u = R e_1``; for d = 1, ``R = [[1]]``):

    - label 0 ("healthy", the public sub-population in the label-determined model):
      ``N(-separation/2 * u, public_std^2 I)``;
    - label 1 ("sick", private): ``N(+separation/2 * u, R diag(private_std^2,
      (private_std * private_aspect)^2, ...) R^T)``: an elongated cluster of another shape.

    The target boundary is ``{<u, x> = 0}``. Because ``u`` is an eigenvector of both covariances,
    ``<u, x>`` is independent of the orthogonal coordinates within each cluster.

    ``margin`` (float >= 0) makes the population REALIZABLE: each cluster is truncated to its
    own side with an empty band, label 0 keeps ``<u, x> <= -margin/2`` and label 1 keeps
    ``<u, x> >= margin/2`` (rejection sampling of the ``u`` coordinate). ``margin=None`` is the
    AGNOSTIC case: no truncation, overlapping clusters, ``OPT > 0``.

    Generative order for one example (fixed, so a seed reproduces a sample exactly):

    1. privacy bit: ``public = U_1 < w_pub`` (docs/model.md §8: draw the privacy bit first);
    2. label from a second uniform ``U_2`` (always drawn, so runs that differ only in ``eta`` or
       ``public_pos_rate`` share their random numbers):

       - label-determined model (``eta = public_pos_rate = 0``, docs/model.md §1): ``y = 0`` for public,
         ``y = 1`` for private;
       - relaxation (i), ``eta`` in [0, 0.5]: the base label is flipped with probability ``eta``,
         so ``P[y=1 | priv] = P[y=0 | pub] = 1 - eta``. docs/model.md §1 states the relaxation the other
         way round, ``P[p=priv | y=1] = P[p=pub | y=0] = 1 - eta``; by Bayes' rule the two
         coincide exactly when ``w_pub = 1/2`` (otherwise the docs/model.md §1 quantity is
         ``(1-w_pub)(1-eta) / ((1-w_pub)(1-eta) + w_pub eta)``);
       - ``eta = 0.5`` is the HOMOGENEOUS model (docs/model.md §7, the setting of semi-private learners):
         the label is a fair coin independent of the privacy bit, and since features follow
         the label, the public and private sub-populations are the SAME distribution
         (``P[y=1] = 1/2`` in both, ``x | y`` from the same clusters). ``shift = 1 - 2 eta``
         moves the sub-populations from identical (0) to the label-determined model (1) (claim
         C10);
       - relaxation (ii), ``public_pos_rate = rho`` in [0, 1]: public examples get ``y = 1`` with
         probability ``rho``; private examples keep ``y = 1``;
    3. features ``x | y`` from the cluster of ``y`` (all label-0 rows first, then label-1 rows).

    Features follow the label, not the privacy bit, so the realizable case stays realizable
    under both relaxations (only the label marginal and the label/privacy coupling change).

    Parameters
    ----------
    d : int >= 1
    w_pub : float in [0, 1]
        Mixture weight ``P[public]``.
    separation : float >= 0
        Distance between the two cluster means (along ``u``).
    margin : float >= 0 or None
        Width of the empty band around the target boundary (realizable), or None (agnostic).
    public_std, private_std : float > 0
        Standard deviations of the label-0 cluster and of the label-1 cluster along ``u``.
    private_aspect : float > 0
        Ratio of the label-1 cluster's standard deviation orthogonal to ``u`` to that along ``u``.
    eta : float in [0, 0.5]
        Relaxation (i) label-flip probability; 0.5 is the homogeneous model (public and private
        sub-populations identical).
    public_pos_rate : float in [0, 1]
        Relaxation (ii) rate of label 1 among public examples. Cannot be combined with
        ``eta > 0``.
    geometry_seed : int >= 0
        Seed of the rotation ``R`` (the geometry, not the sampling).
    """

    synthetic = True  # drawn from a model, not records: ppm.populations.is_synthetic

    _parameter_constraints = {
        "d": [Number(Integral, 1, None, closed="left")],
        "w_pub": CLOSED_UNIT,
        "separation": [Number(Real, 0, None, closed="left")],
        "margin": [None, Number(Real, 0, None, closed="left")],  # None: agnostic
        "public_std": [Number(Real, 0, None, closed="neither")],
        "private_std": [Number(Real, 0, None, closed="neither")],
        "private_aspect": [Number(Real, 0, None, closed="neither")],
        "eta": [Number(Real, 0, 0.5, closed="both")],
        "public_pos_rate": CLOSED_UNIT,
        "geometry_seed": [Number(Integral, 0, None, closed="left")],
    }

    def __init__(self, *, d=2, w_pub=0.5, separation=2.0, margin: float | None = 0.1,
                 public_std=1.0, private_std=0.5, private_aspect=3.0, eta=0.0,
                 public_pos_rate=0.0, geometry_seed=0):
        # checked and typed by PopulationBase (_parameter_constraints); the rule across them:
        if eta > 0 and public_pos_rate > 0:
            raise ValueError(
                "eta and public_pos_rate are two different relaxations and cannot both be "
                f"positive, got eta={eta!r}, public_pos_rate={public_pos_rate!r}"
            )
        self._R = _rotation(d, geometry_seed)
        self._R.setflags(write=False)
        # Standard deviations of each cluster along the rotated axes (z coordinates).
        self._sd = (
            np.full(d, public_std),
            np.concatenate([[private_std], np.full(d - 1, private_std * private_aspect)]),
        )
        self._mean_u = (-separation / 2.0, separation / 2.0)
        self._opt = None
        self._opt_rule = None

        if margin is not None:
            pi = self.label_probabilities()
            for label in (0, 1):
                acc = self._acceptance(label)
                if pi[label] > 0 and acc < MIN_ACCEPTANCE:
                    raise ValueError(
                        f"margin={margin!r} with separation={separation!r} keeps only a "
                        f"fraction {acc:.3g} < {MIN_ACCEPTANCE:g} of the label-{label} cluster; "
                        "increase separation or decrease margin"
                    )

    # ------------------------------------------------------------------ geometry
    # (each parameter is a read-only attribute, e.g. ``d``, ``w_pub``: PopulationBase)
    @property
    def realizable(self) -> bool:
        """True iff ``margin`` is not None (truncated clusters, OPT = 0)."""
        return self._params["margin"] is not None

    @property
    def normal(self) -> np.ndarray:
        """Unit normal ``u = R e_1`` of the target halfspace (a copy)."""
        return self._R[:, 0].copy()

    @property
    def rotation(self) -> np.ndarray:
        """The rotation ``R`` (columns: ``u`` then the orthogonal axes of the clusters; a copy)."""
        return self._R.copy()

    def _acceptance(self, label: int) -> float:
        """P[a label-``label`` cluster point lies on its side of the margin band]."""
        m = self._params["margin"] or 0.0
        # Both clusters put their mean at distance separation/2 from the boundary.
        return float(ndtr((self._params["separation"] - m) / (2.0 * self._sd[label][0])))

    def label_probabilities(self) -> tuple[float, float]:
        """Marginal label probabilities ``(P[y=0], P[y=1])``."""
        w, eta, rho = self._params["w_pub"], self._params["eta"], self._params["public_pos_rate"]
        # P[y=1 | pub] = eta + rho and P[y=1 | priv] = 1 - eta (at most one of eta, rho is > 0).
        pi1 = (1.0 - w) * (1.0 - eta) + w * (eta + rho)
        return 1.0 - pi1, pi1

    # ------------------------------------------------------------------ sampling
    def _sample_u_coordinate(self, label: int, k: int, rng: np.random.Generator) -> np.ndarray:
        """``k`` draws of ``<u, x>`` for the label-``label`` cluster (truncated if realizable)."""
        loc, sd = self._mean_u[label], self._sd[label][0]
        margin = self._params["margin"]
        if margin is None:
            return loc + sd * rng.standard_normal(k)
        # Vectorised rejection sampling, batches sized from the exact acceptance probability.
        acc = self._acceptance(label)
        kept, total = [np.empty(0)], 0
        while total < k:
            batch = int(min(_MAX_BATCH, max(64, math.ceil(1.2 * (k - total) / acc) + 16)))
            draws = loc + sd * rng.standard_normal(batch)
            draws = draws[draws <= -margin / 2] if label == 0 else draws[draws >= margin / 2]
            kept.append(draws)
            total += draws.size
        return np.concatenate(kept)[:k]

    def sample(self, n, random_state=None):
        """Draw ``n`` i.i.d. triples.

        Returns
        -------
        X : float64 array (n, d)
        y : int64 array (n,), labels in {0, 1}
        public : bool array (n,), True = public example
        """
        n = check_positive_int(n, "n", minimum=0)
        rng = check_random_state(random_state)
        p = self._params
        d = p["d"]

        public = rng.random(n) < p["w_pub"]
        v = rng.random(n)
        if p["public_pos_rate"] > 0:
            y = np.where(public, v < p["public_pos_rate"], True)
        else:
            # Label-determined base label (1 iff private), flipped with probability eta.
            y = (~public) ^ (v < p["eta"])
        y = y.astype(np.int64)

        X = np.empty((n, d))
        for label in (0, 1):
            rows = np.flatnonzero(y == label)
            k = rows.size
            z = np.empty((k, d))
            z[:, 0] = self._sample_u_coordinate(label, k, rng)
            if d > 1:
                z[:, 1:] = rng.standard_normal((k, d - 1)) * self._sd[label][1:]
            X[rows] = z @ self._R.T
        return X, y, public

    # ------------------------------------------------------------------ errors
    def target_predict(self, X) -> np.ndarray:
        """The target halfspace rule: 1 iff ``<u, x> >= 0`` (zero error when realizable)."""
        X = check_X(X, n_features=self._params["d"])
        return (X @ self._R[:, 0] >= 0).astype(np.int64)

    def true_error(self, predict, n_test=50000, random_state=None):
        """Monte Carlo estimate of ``err(h; D) = P[h(x) != y]`` (docs/model.md §1; never uses ``p``).

        ``predict`` maps an (n, d) array to 0/1 predictions. Returns ``(error, standard_error)``
        with ``standard_error = sqrt(error (1 - error) / n_test)``.
        """
        if not callable(predict):
            raise ValueError(f"predict must be callable, got {predict!r}")
        n_test = check_positive_int(n_test, "n_test")
        X, y, _ = self.sample(n_test, random_state=random_state)
        pred = np.asarray(predict(X))
        if pred.shape != (n_test,):
            raise ValueError(f"predict returned shape {pred.shape}, expected ({n_test},)")
        if not np.all(np.isin(pred, (0, 1))):
            raise ValueError("predict must return labels in {0, 1}")
        err = float(np.mean(pred.astype(np.int64) != y))
        return err, math.sqrt(err * (1.0 - err) / n_test)

    def _halfspace_errors(self, w: np.ndarray, b) -> np.ndarray:
        """Exact errors of ``1[<w, z> >= b]`` in the rotated frame, vectorised over ``b``.

        ``P[<w, z> >= b]`` for ``z ~ N(mu, S)`` is ``Phi((<w, mu> - b) / sqrt(w^T S w))``.
        """
        pi0, pi1 = self.label_probabilities()
        b = np.asarray(b, dtype=float)
        s0 = math.sqrt(float(np.sum((w * self._sd[0]) ** 2)))
        s1 = math.sqrt(float(np.sum((w * self._sd[1]) ** 2)))
        return (pi0 * ndtr((w[0] * self._mean_u[0] - b) / s0)  # label 0 predicted 1
                + pi1 * ndtr((b - w[0] * self._mean_u[1]) / s1))  # label 1 predicted 0

    def opt(self) -> float:
        """``OPT = min_h err(h; D)`` over halfspaces (docs/model.md §1), cached on the instance.

        Realizable: 0 (the target has zero error). Agnostic: the error of ``1[<w, x> >= b]`` is
        ``pi0 Phi((<w,mu0> - b)/s0) + pi1 Phi((b - <w,mu1>)/s1)`` with ``s_k = sqrt(w^T S_k w)``
        (the reversed orientation is ``(-w, -b)``), minimised with scipy.optimize from several
        deterministic starts (``+-u``, ``+-`` the LDA direction, ``+-`` each axis) together with the
        two constant classifiers; for d = 1 a dense grid over ``b`` refined by
        ``minimize_scalar``. The error is rotation invariant, so everything is computed in the
        rotated frame where both covariances are diagonal. Being a minimum over local optima it
        is an upper bound on the true OPT that is tight in practice.
        """
        if self._opt is None:
            if self.realizable:
                self._opt, self._opt_rule = 0.0, None
            else:
                self._opt, self._opt_rule = self._agnostic_opt()
        return self._opt

    def opt_predict(self, X) -> np.ndarray:
        """The halfspace (or constant) attaining :meth:`opt`: the target when realizable.

        Used for a paired estimate of the excess error: ``err_test(h) - err_test(h_opt)`` on
        one test sample is unbiased for ``err(h) - OPT`` and its variance comes only from the
        region where ``h`` and ``h_opt`` disagree, so it is far less noisy than
        ``err_test(h) - OPT`` when ``h`` is close to optimal.
        """
        self.opt()
        if self._opt_rule is None:
            return self.target_predict(X)
        X = check_X(X, n_features=self._params["d"])
        kind, w, b = self._opt_rule
        if kind == "const":
            return np.full(X.shape[0], int(b), dtype=np.int64)
        return ((X @ self._R) @ w >= b).astype(np.int64)

    def _agnostic_opt(self) -> float:
        d = self._params["d"]
        pi0, pi1 = self.label_probabilities()
        # the two constant classifiers; rules are ("const", None, label) or ("half", w, b) for
        # 1[<w, z> >= b] in the rotated frame z = R^T x
        best, rule = (pi0, ("const", None, 1)) if pi0 <= pi1 else (pi1, ("const", None, 0))
        if best == 0.0:
            return 0.0, rule

        def consider(err, w, b):
            nonlocal best, rule
            if err < best:
                best, rule = float(err), ("half", np.array(w, dtype=float), float(b))
        # Every threshold worth trying lies well inside this range of <w, z> (|w| = 1).
        spread = self._params["separation"] + 10.0 * max(self._sd[0].max(), self._sd[1].max())

        if d == 1:
            grid = np.linspace(-spread, spread, 20001)
            step = grid[1] - grid[0]
            for sign in (1.0, -1.0):
                w = np.array([sign])
                vals = self._halfspace_errors(w, grid)
                b0 = grid[int(np.argmin(vals))]
                res = optimize.minimize_scalar(
                    lambda b, w=w: float(self._halfspace_errors(w, b)),
                    bounds=(b0 - step, b0 + step), method="bounded", options={"xatol": 1e-12})
                consider(float(vals.min()), w, b0)
                consider(float(self._halfspace_errors(w, res.x)), w, res.x)
            return max(best, 0.0), rule

        var = (self._sd[0] ** 2, self._sd[1] ** 2)
        mu = (np.zeros(d), np.zeros(d))
        mu[0][0], mu[1][0] = self._mean_u
        inv_sqrt_2pi = 1.0 / math.sqrt(2.0 * math.pi)

        def fun_grad(theta):
            # Error of 1[<w, z> >= b] and its gradient in (w, b); scale invariant in (w, b).
            w, b = theta[:-1], theta[-1]
            s0 = math.sqrt(float(np.dot(w * w, var[0])))
            s1 = math.sqrt(float(np.dot(w * w, var[1])))
            if s0 < 1e-300 or s1 < 1e-300:
                return 1.0, np.zeros_like(theta)
            m0, m1 = float(w @ mu[0]), float(w @ mu[1])
            a0, a1 = (m0 - b) / s0, (b - m1) / s1
            f = pi0 * float(ndtr(a0)) + pi1 * float(ndtr(a1))
            phi0 = math.exp(-0.5 * a0 * a0) * inv_sqrt_2pi
            phi1 = math.exp(-0.5 * a1 * a1) * inv_sqrt_2pi
            gw = (pi0 * phi0 * (mu[0] / s0 - (m0 - b) * var[0] * w / s0 ** 3)
                  + pi1 * phi1 * (-mu[1] / s1 - (b - m1) * var[1] * w / s1 ** 3))
            gb = -pi0 * phi0 / s0 + pi1 * phi1 / s1
            return f, np.append(gw, gb)

        # Deterministic starting directions: u (= e_1 here), the LDA-like direction
        # (pooled covariance)^-1 (mu1 - mu0) (parallel to u in this geometry, kept for
        # robustness), and every axis; each with both orientations and its best threshold.
        pooled = pi0 * var[0] + pi1 * var[1]
        directions = [np.eye(d)[j] for j in range(d)]
        if self._params["separation"] > 0:
            directions.insert(0, (mu[1] - mu[0]) / pooled)
        grid = np.linspace(-spread, spread, 4001)
        for w0 in directions:
            w0 = w0 / np.linalg.norm(w0)
            for sign in (1.0, -1.0):
                w = sign * w0
                vals = self._halfspace_errors(w, grid)
                consider(float(vals.min()), w, grid[int(np.argmin(vals))])
                res = optimize.minimize(fun_grad, np.append(w, grid[int(np.argmin(vals))]),
                                        jac=True, method="BFGS",
                                        options={"gtol": 1e-10, "maxiter": 2000})
                w_opt = res.x[:-1]
                if np.linalg.norm(w_opt) > 0:
                    # Re-evaluate rather than trust the optimiser's reported value.
                    consider(float(self._halfspace_errors(w_opt, res.x[-1])), w_opt, res.x[-1])
        return max(best, 0.0), rule

