"""The GPU backend of the exact triangle selection (ppm.set_cover._cuda_triple_kernels) against
the CPU kernel (ppm.set_cover._triple_kernels): KMMS19 section 5, Theorem 5.1; docs/model.md
§9.2; docs/gpu.md.

No GPU is needed: the kernels run under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``) in a
subprocess (numba reads the variable once at import; this process keeps the real CPU kernels),
on tiny inputs (every simulated thread is a Python thread). ``PPM_TEST_CUDA_REAL=1`` runs the
same checks on a real GPU. Every check compares the GPU path with the independent CPU path.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.test_cuda_scorer import simulated_python


def _run(check: str, timeout: int = 300) -> str:
    """``check`` of this file in a subprocess (the simulator's, as tests/test_cuda_scorer.py)."""
    return simulated_python(f"import tests.test_cuda_triples as t; t.{check}()", timeout)


def _sample(seed, m, T=8, dup=3, labels="mixed"):
    """``m`` random grid points (distinct or not) and ``dup`` repeats of some of them."""
    rng = np.random.default_rng(seed)
    pts = rng.integers(0, T + 1, (m, 2))
    X = np.concatenate([pts, pts[rng.integers(0, m, dup)]])
    y = rng.integers(0, 2, X.shape[0]) if labels == "mixed" else np.full(X.shape[0], labels)
    return X, y


def _kinds(labels, c0, c1, thr):
    """Which kinds of score (``n0 - thr``, ``-n1``) occur over all ordered triples."""
    lab = labels.astype(np.int64)
    inside = lab[:, None, None, :] & lab[None, :, None, :] & lab[None, None, :, :]
    n0, n1 = inside @ c0, inside @ c1
    a = n0 - thr <= -n1
    return bool(a.any()), bool((~a).any())


# -- checks run in a subprocess under the simulator -------------------------------------------
def _compare(args, launches=({},), c1s=(-1,)):
    """Steps 1 and 2 of the GPU kernel against the CPU kernel on the same inputs."""
    from ppm.set_cover import _cuda_triple_kernels as CK, _triple_kernels as TK

    bits, mass, tab0, tab1, N0, N1, thr, eps = args
    cpu1 = TK.log_weights(bits, mass, -1, -1, tab0, tab1, N0, N1, thr, eps)
    assert np.isfinite(cpu1).any()
    for launch in launches:
        gpu1 = CK.log_weights(bits, mass, -1, -1, tab0, tab1, N0, N1, thr, eps, **launch)
        assert np.array_equal(np.isinf(gpu1), np.isinf(cpu1))
        # atol: an absolute error of a log-weight is the relative error of the weight
        np.testing.assert_allclose(gpu1, cpu1, rtol=1e-12, atol=1e-12)
    for c1 in c1s:
        c1 = int(np.flatnonzero(mass > 0)[c1])
        cpu2 = TK.log_weights(bits, mass, c1, -1, tab0, tab1, N0, N1, thr, eps)
        gpu2 = CK.log_weights(bits, mass, c1, -1, tab0, tab1, N0, N1, thr, eps, **launches[-1])
        assert np.array_equal(np.isinf(gpu2), np.isinf(cpu2))
        np.testing.assert_allclose(gpu2, cpu2, rtol=1e-12, atol=1e-12)
    return cpu1


def sim_log_weights():
    """Random samples (m <= 5 distinct points, duplicates, both labels, thresholds for which
    both kinds of score occur), one label class empty, a cell of mass 0, and a synthetic input
    of 2 words with multiplicities up to 6 (several bit planes)."""
    from ppm.set_cover import TriangleComplementSelector
    from ppm.set_cover import _triple_kernels as TK

    sel = TriangleComplementSelector(8)
    cases = [  # (seed, m, dup, labels, eps, thr as a fraction of N0 + N1)
        (0, 5, 3, "mixed", 0.8, 0.5), (1, 5, 4, "mixed", 3.0, 0.3),
        (2, 4, 2, "mixed", 0.05, 0.7), (3, 4, 2, 1, 1.0, 0.4), (4, 4, 2, 0, 1.0, 0.6)]
    for seed, m, dup, labels, eps, frac in cases:
        X, y = _sample(seed, m, dup=dup, labels=labels)
        cells = sel.cells(X, y)
        thr = frac * (cells.c0.sum() + cells.c1.sum()) + 0.25
        assert _kinds(cells.labels, cells.c0, cells.c1, thr) == (True, True)
        _, args = sel._prepare(X, y, thr, eps)
        args = args[1:]  # without the kernel
        launches = ({}, dict(threads=4, blocks=3)) if seed == 0 else ({},)
        _compare(args, launches, c1s=(0, -1) if seed == 0 else (-1,))
        if seed == 2:  # a cell of mass 0: -inf in both, and never a partner
            mass = args[1].copy()
            mass[[2, 5]] = 0.0
            mass /= mass.sum()
            out = _compare((args[0], mass, *args[2:]))
            assert np.isinf(out[[2, 5]]).all()
        print(f"seed {seed}: {args[0].shape[0]} cells, N0={args[4]}, N1={args[5]}: equal")
    rng = np.random.default_rng(9)
    labels = (rng.random((10, 70)) < 0.6).astype(np.int8)
    c0, c1 = rng.integers(0, 7, 70), rng.integers(0, 4, 70)
    bits, tab0, tab1 = TK.pack(labels, c0, c1)
    assert bits.shape == (10, 2)
    mass = rng.random(10)
    _compare((bits, mass / mass.sum(), tab0, tab1, int(c0.sum()), int(c1.sum()),
              0.45 * (c0.sum() + c1.sum()), 0.02), launches=({}, dict(threads=16, blocks=1)))
    print("2 words, 3 bit planes: equal")


def sim_select():
    """``select`` on the CPU and on the (simulated) GPU draws the same triangle per seed."""
    from ppm.set_cover import TriangleComplementSelector

    cpu, gpu = TriangleComplementSelector(8), TriangleComplementSelector(8, device="cuda")
    for seed in range(2):  # 4 and 5 points
        X, y = _sample(10 + seed, 4 + seed % 2, dup=2)
        thr, eps = 0.5 + seed, 0.7 + seed
        tri = [sel.select(X, y, thr, eps, np.random.default_rng(seed)).triangle
               for sel in (cpu, gpu)]
        coef = [[(h.a_hat, h.b) for h in t.halfplanes] for t in tri]
        assert coef[0] == coef[1], (seed, coef)
        print(f"seed {seed}: {coef[0]}")


def sim_fit():
    """A DisjunctionLearner over triangles fitted on the (simulated) GPU releases the CPU's
    triangles and predicts the same labels on the whole grid."""
    from ppm.set_cover import DisjunctionLearner

    X, y = _sample(21, 4, dup=2)
    kw = dict(k=1, epsilon=0.9, epsilon_hat=2.0, hypotheses="triangles", T=8, random_state=5)
    cpu = DisjunctionLearner(device="cpu", **kw).fit(X, y)
    gpu = DisjunctionLearner(device="cuda", **kw).fit(X, y)
    coef = [[[(h.a_hat, h.b) for h in t.halfplanes] for t in f.triangles_] for f in (cpu, gpu)]
    assert coef[0] == coef[1]
    grid = np.array([(i, j) for i in range(9) for j in range(9)])
    assert np.array_equal(cpu.predict(grid), gpu.predict(grid))
    print(f"{len(cpu.triangles_)} triangles equal; {int(cpu.predict(grid).sum())} grid points "
          "inside their union")


# -- tests --------------------------------------------------------------------------------------
def test_log_weights_equal_cpu_kernel():
    print(_run("sim_log_weights"))


def test_select_draws_the_cpu_triangle():
    print(_run("sim_select"))


def test_disjunction_fit_equals_cpu():
    print(_run("sim_fit"))


def test_bit_planes_recover_the_multiplicities():
    from ppm.set_cover import _cuda_triple_kernels as CK, _triple_kernels as TK

    rng = np.random.default_rng(0)
    c0, c1 = rng.integers(0, 40, 100), np.zeros(100, dtype=np.int64)
    _, tab0, tab1 = TK.pack(np.zeros((1, 100), dtype=np.int8), c0, c1)
    for c, tab in ((c0, tab0), (c1, tab1)):
        planes = CK.bit_planes(tab)
        assert planes.shape == (2, max(1, int(c.max()).bit_length()))
        bits = (planes[:, None, :] >> np.arange(64, dtype=np.uint64)[None, :, None]) & 1
        got = (bits.reshape(128, -1).astype(np.int64) << np.arange(planes.shape[1])).sum(1)
        assert np.array_equal(got[:100], c) and not got[100:].any()


def test_bad_device_named():
    from ppm.set_cover import DisjunctionLearner, SetCoverLearner, TriangleComplementSelector

    for bad in ("gpu", "CUDA", None, 0):
        with pytest.raises(ValueError, match="device must be one of") as err:
            TriangleComplementSelector(8, device=bad)
        assert repr(bad) in str(err.value) and "\n" not in str(err.value)
        for cls in (SetCoverLearner, DisjunctionLearner):  # scikit-learn's constraint message
            with pytest.raises(ValueError, match=r"'device' parameter of \w+ must be a str "
                                                 r"among .*'cuda'.*Got"):
                cls(device=bad)._validate_params()
    for cls in (SetCoverLearner, DisjunctionLearner):
        assert cls._execution_params == ("device",)
        assert cls().get_params()["device"] == "cpu"
        cls(device="cuda")._validate_params()  # the value only: a GPU is checked by fit


def test_device_is_execution_only():
    from experiments import seeding

    cfg = {"_target_": "ppm.set_cover.DisjunctionLearner", "k": 2, "device": "cuda"}
    assert seeding.output_params(cfg) == {"_target_": "ppm.set_cover.DisjunctionLearner", "k": 2}


def test_cuda_without_gpu_fails_before_any_work(monkeypatch):
    """No GPU and no simulator (this process never enables it): a one-line ValueError before
    the dual arrangement is built or the data looked at."""
    from ppm import gpu
    from ppm.set_cover import DisjunctionLearner, TriangleComplementSelector, learner, unions

    if gpu.cuda_usable():
        pytest.skip("a GPU (or the simulator) is available here")

    def no_work(*args, **kwargs):
        raise AssertionError("work started before the device check")

    monkeypatch.setattr(unions, "dual_trapezoids", no_work)
    monkeypatch.setattr(learner.SetCoverLearner, "_check_data", no_work)
    with pytest.raises(ValueError, match="device='cuda' needs an NVIDIA GPU") as err:
        TriangleComplementSelector(8, device="cuda")
    assert "\n" not in str(err.value)
    X, y = _sample(0, 5)
    with pytest.raises(ValueError, match="device='cuda' needs an NVIDIA GPU"):
        DisjunctionLearner(hypotheses="triangles", T=8, device="cuda").fit(X, y)
    monkeypatch.undo()
    # "auto" on the same machine is the CPU path, bit for bit
    kw = dict(hypotheses="triangles", T=8, epsilon_hat=1.0, random_state=4)
    auto = DisjunctionLearner(device="auto", **kw).fit(X, y)
    cpu = DisjunctionLearner(device="cpu", **kw).fit(X, y)
    assert repr(auto.triangles_) == repr(cpu.triangles_)


def test_gpu_limit_and_auto_rule(monkeypatch):
    """The GPU's refusal limit applies where the GPU runs, and is named when it refuses (no
    kernel runs: the refusal comes first)."""
    from ppm.set_cover import TriangleComplementSelector, unions

    monkeypatch.setattr(unions, "cuda_usable", lambda: True)
    monkeypatch.setattr(unions, "gpu_available", lambda: True)
    gpu, auto = (TriangleComplementSelector(8, device=d) for d in ("cuda", "auto"))
    cpu = TriangleComplementSelector(8)
    assert gpu.limit(1e3) == unions.MAX_TRIPLES_GPU == 1e11
    assert cpu.limit(1e10) == unions.MAX_TRIPLES == 2e8
    assert not auto.uses_gpu(unions.AUTO_MIN_TRIPLES - 1) and auto.uses_gpu(
        unions.AUTO_MIN_TRIPLES)
    X, y = _sample(0, 8)
    with pytest.raises(ValueError, match=r"> the limit max_triples=1e\+03 on the GPU"):
        TriangleComplementSelector(8, max_triples=1000, device="cuda").select(
            X, y, 0.0, 1.0, np.random.default_rng(0))
