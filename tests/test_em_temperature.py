"""Every selection of the library takes the exponential mechanism's temperature from
:func:`ppm.mechanisms.em_temperature` (McSherry-Talwar; BMN20 Lemma 4.6: ``epsilon / 2`` for a
score of sensitivity 1).

The temperature function is replaced (in :mod:`ppm.mechanisms` and wherever a module bound its
name) by a spy: a selection that wrote ``epsilon / 2`` by hand would not call it (the call checks
fail) and would not follow a replaced temperature (the law checks fail: at temperature 0 the
mechanism is its base measure alone, at a tiny temperature the draws stop concentrating).
The selections checked are the ones each private learner declares beside its class
(``_temperature_cases``, :mod:`ppm.audit_spec`).
"""

from __future__ import annotations

import io
import re
import sys
import tokenize
from pathlib import Path

import numpy as np
import pytest

import ppm.mechanisms as M
from ppm.audit_spec import temperature_cases
from ppm.semi_supervised.threshold_em import group_log_probabilities
from ppm.set_cover import HalfplaneSelector, LiteralSelector, TriangleComplementSelector
from ppm.set_cover import _triple_kernels as TK

REAL = M.em_temperature
ROOT = Path(__file__).resolve().parent.parent


class Spy:
    """Stands in for ``em_temperature``: records ``(epsilon, sensitivity)`` and returns
    ``factor`` times the real temperature."""

    def __init__(self, factor: float = 1.0):
        self.factor, self.calls = factor, []

    def __call__(self, epsilon, sensitivity=1):
        self.calls.append((float(epsilon), float(sensitivity)))
        return self.factor * REAL(epsilon, sensitivity)


def install(monkeypatch, spy: Spy) -> Spy:
    """Replace ``em_temperature`` in :mod:`ppm.mechanisms` and in every loaded ``ppm`` module
    that imported the name."""
    for name, mod in list(sys.modules.items()):
        if (name == "ppm" or name.startswith("ppm.")) and getattr(mod, "em_temperature",
                                                                  None) is REAL:
            monkeypatch.setattr(mod, "em_temperature", spy)
    return spy


# -- the function and its contract --------------------------------------------------------------

@pytest.mark.parametrize("eps", [1e-300, 0.05, 0.3, 1.0, 1.7, 3.0, 12.5, 1e300])
def test_temperature_is_half_epsilon_bit_for_bit(eps):
    assert REAL(eps) == 0.5 * eps == eps / 2
    assert REAL(eps, 2.0) == 0.25 * eps
    assert REAL(3, 1) == 1.5 and isinstance(REAL(3), float)


@pytest.mark.parametrize("bad", [0.0, -1.0, np.inf, np.nan, True, "1"])
def test_bad_epsilon_or_sensitivity_is_refused(bad):
    with pytest.raises(ValueError, match="epsilon"):
        REAL(bad)
    with pytest.raises(ValueError, match="sensitivity"):
        REAL(1.0, bad)


def test_log_weights_keep_the_order_of_operations():
    rng = np.random.default_rng(0)
    q, base = rng.normal(size=50) * 40, np.log(rng.random(50))
    base[3] = -np.inf
    for eps in (0.1, 0.7, 2.3):
        assert np.array_equal(M.em_log_weights(q, eps), 0.5 * eps * q)
        assert np.array_equal(M.em_log_weights(q, eps, loss=True), -0.5 * eps * q)
        assert np.array_equal(M.em_log_weights(q, eps, log_base=base), base + 0.5 * eps * q)
        assert np.array_equal(M.em_log_weights(q, eps, log_base=base, loss=True),
                              base - 0.5 * eps * q)
        assert np.array_equal(M.em_log_weights(q, eps, sensitivity=3.0), eps / 2 / 3.0 * q)
    with pytest.raises(ValueError, match="shape"):
        M.em_log_weights(q, 1.0, log_base=base[:-1])


# -- every selection calls it ------------------------------------------------------------------

# every exponential-mechanism selection of every private learner, declared beside its class
# (``_temperature_cases``, ppm.audit_spec): ``case(eps, seed) -> (epsilon_used, release)``
SELECTIONS = temperature_cases()


def test_every_private_learner_declares_its_selections():
    """A private learner without ``_temperature_cases`` is named by ``missing_declarations``;
    the ones declaring none are the two objective-perturbation regressions and the active
    learner (its one selection is its inner GenericLearner's)."""
    from ppm.audit_spec import missing_declarations, private_learners
    assert not [m for m in missing_declarations() if "_temperature_cases" in m]
    none = {c.__name__ for c in private_learners() if not temperature_cases(c)}
    assert none == {"DPLogisticRegression", "PublicAwareDPLogisticRegression",
                    "PrivateActiveLearner"}
    assert len(SELECTIONS) >= 11


@pytest.mark.parametrize("name", sorted(SELECTIONS))
def test_every_selection_calls_the_temperature_with_its_epsilon(name, monkeypatch):
    spy = install(monkeypatch, Spy())
    eps_used, _ = SELECTIONS[name](0.8)
    assert spy.calls, f"{name} never asked ppm.mechanisms.em_temperature for its temperature"
    assert all(e == pytest.approx(eps_used) for e, _ in spy.calls), (spy.calls, eps_used)
    assert {s for _, s in spy.calls} == {1.0}


@pytest.mark.parametrize("name", sorted(SELECTIONS))
def test_every_selection_follows_a_replaced_temperature(name, monkeypatch):
    """At a large epsilon the real mechanism concentrates on the best outcomes; with the
    temperature divided by 10^6 the draws are (nearly) the base measure's, so some seed gives
    another release. A selection with its own ``epsilon / 2`` would release the same."""
    seeds = range(6)
    real = [SELECTIONS[name](40.0, s)[1] for s in seeds]
    install(monkeypatch, Spy(factor=1e-6))
    cold = [SELECTIONS[name](40.0, s)[1] for s in seeds]
    assert any(not np.array_equal(a, b) for a, b in zip(real, cold)), name


# -- at temperature 0 the exact laws are the base measures ---------------------------------------

def test_laws_at_temperature_zero_are_the_base_measures(monkeypatch):
    install(monkeypatch, Spy(factor=0.0))
    counts = np.array([0, 3, 1, 0, 6])
    with np.errstate(divide="ignore"):
        assert np.allclose(M.level_log_probabilities(counts, 2.0), np.log(counts / 10))
    sizes, mistakes = [4, 1, 5], np.array([0, 7, 2])
    assert np.allclose(group_log_probabilities(sizes, mistakes, 3.0), np.log(np.array(sizes) / 10))
    X = np.random.default_rng(0).integers(0, 2, size=(20, 5))
    p = LiteralSelector().select_distribution(X, X[:, 1], 1.0, 5.0)
    assert np.allclose(p, 1 / 10)
    Xg = np.random.default_rng(1).integers(0, 9, size=(10, 2))
    yg = np.random.default_rng(2).integers(0, 2, 10)
    sel = HalfplaneSelector(8)
    buckets = sel.bucket_distribution(Xg, yg, 1.0, 5.0)
    assert np.allclose(buckets["probability"], buckets["area"] / buckets["area"].sum())
    traps, _ = sel.cell_distribution(Xg, yg, 1.0, 5.0)
    assert np.allclose(traps["probability"], traps["area"] / traps["area"].sum())
    pts = np.random.default_rng(3).integers(0, 9, (4, 2))
    cells, logp = TriangleComplementSelector(8).selection_table(pts, np.array([0, 1, 1, 0]),
                                                                0.5, 5.0)
    m = cells.mass / cells.mass.sum()
    with np.errstate(divide="ignore"):
        assert np.allclose(logp, np.log(m[:, None, None] * m[None, :, None] * m[None, None, :]))


def test_both_devices_receive_the_temperature(monkeypatch):
    """The triangle kernels get ``em_temperature(epsilon)`` as an argument on the CPU and on
    the GPU path (a stand-in for the CUDA module records what it is handed)."""
    import ppm.set_cover as sc

    spy = install(monkeypatch, Spy(factor=3.0))
    seen = []

    class FakeCuda:
        @staticmethod
        def log_weights(bits, mass, c1, c2, tab0, tab1, N0, N1, thr, temp, **kw):
            seen.append(temp)
            return TK.log_weights(bits, mass, c1, c2, tab0, tab1, N0, N1, thr, temp)

    monkeypatch.setitem(sys.modules, "ppm.set_cover._cuda_triple_kernels", FakeCuda)
    monkeypatch.setattr(sc, "_cuda_triple_kernels", FakeCuda, raising=False)
    pts = np.random.default_rng(3).integers(0, 9, (4, 2))
    y = np.array([0, 1, 1, 0])
    sel = TriangleComplementSelector(8)
    cpu = sel.selection_table(pts, y, 0.5, 0.7)[1]
    monkeypatch.setattr(sel, "uses_gpu", lambda n: True)
    gpu = sel.selection_table(pts, y, 0.5, 0.7)[1]
    assert seen and set(seen) == {3.0 * REAL(0.7)} and spy.calls
    assert np.array_equal(cpu, gpu)


# -- and nobody writes it by hand ---------------------------------------------------------------

# ``0.5 * eps...``, ``eps... * 0.5``, ``eps... / 2``, ``eps ... * q / 2``, ``eps... / (2 ...``
HAND_WRITTEN = re.compile(r"0\.5\s*\*\s*-?\s*eps|eps\w*\s*\*\s*0\.5"
                          r"|eps\w*[^=\n]*?/\s*\(?\s*2(\.0*)?\b")
# Not temperatures: KMMS19's group-privacy budget split (add/remove from replace-one,
# ``(eps / 2, delta / (1 + e^{eps/2}))``) and the per-round budget of Claim 3.4 / Example 3.3.
NOT_TEMPERATURES = {("ppm/set_cover/base.py", "half = epsilon / 2.0"),
                    ("ppm/set_cover/base.py",
                     "return epsilon / (2.0 * math.log(math.e / delta))"),
                    ("ppm/set_cover/base.py",
                     "return epsilon / (2.0 * math.sqrt(2.0 * rounds * math.log(1.0 / delta)))"),
                    # objective perturbation (Chaudhuri, Monteleoni and Sarwate 2011, Alg. 2):
                    # the noise's budget epsilon/2 and the regularizer's correction, no EM
                    ("ppm/baselines/dp_logistic_public.py",
                     "return epsilon / 2.0, C_LOGISTIC / (n * math.expm1(epsilon / 4.0)) - lam")}


def _code_lines(path: Path):
    """The source lines of ``path`` with strings and comments blanked out."""
    src = path.read_text()
    lines = src.splitlines()
    out = [list(line) for line in lines]
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type in (tokenize.STRING, tokenize.COMMENT):
            (r0, c0), (r1, c1) = tok.start, tok.end
            for r in range(r0, r1 + 1):
                a = c0 if r == r0 else 0
                b = c1 if r == r1 else len(out[r - 1])
                out[r - 1][a:b] = " " * (b - a)
    return ["".join(chars) for chars in out], lines


def test_no_module_computes_the_temperature_by_hand():
    found = []
    for path in sorted((ROOT / "ppm").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel == "ppm/mechanisms.py":
            continue
        code, lines = _code_lines(path)
        for no, line in enumerate(code, 1):
            if HAND_WRITTEN.search(line) and (rel, lines[no - 1].strip()) not in NOT_TEMPERATURES:
                found.append(f"{rel}:{no}: {lines[no - 1].strip()}")
    assert found == []


def test_the_hand_written_check_can_fail():
    for line in ("logw = 0.5 * epsilon * q", "t = eps / 2", "w = -epsilon / (2 * s) * m",
                 "half_eps = np.float64(0.5 * eps)", "w = epsilon * q / 2", "t = eps * 0.5"):
        assert HAND_WRITTEN.search(line), line
