"""Tests for robust_ref.losses: derivatives, declared properties, α-limits, stability, calibration, bad inputs.

Expected values are never produced by the code under test: they come from closed formulas written here with
plain NumPy, finite differences, brute-force grid searches, or the papers' printed/derived identities.
"""
import math
import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.special import expit

from robust_ref import losses as L
from robust_ref.losses import (AlphaLoss, ExponentialLoss, GammaRobustLoss, HingeLoss, LogisticLoss, MarginLoss,
                               NELoss, RampLoss, SavageLoss, SigmoidLoss, SquaredHingeLoss, SquaredLoss,
                               TruncatedExponentialLoss, TruncatedHingeLoss, TwoRobustLoss, UnhingedLoss, ZeroOneLoss,
                               conditional_minimizer, conditional_risk, get_loss, min_conditional_risk,
                               psi_transform, surrogate_regret_bound, wrong_side_risk)

HYP = settings(max_examples=40, deadline=None, derandomize=True)
HYP_SLOW = settings(max_examples=25, deadline=None, derandomize=True)   # each example runs a numeric minimisation

# Every loss of the zoo, with parameter values spanning each family's regimes.
ALL = ([get_loss(n) for n in L.LOSSES]
       + [AlphaLoss(a) for a in (0.3, 0.5, 0.77, 1.0, 1.44, 5.0, np.inf)]
       + [GammaRobustLoss(1.5), GammaRobustLoss(3.0, a=2.0), GammaRobustLoss(6.0),
          TruncatedHingeLoss(s=0.0), TruncatedHingeLoss(s=-2.0), TruncatedExponentialLoss(t=-1.0),
          NELoss(lam=0.25), NELoss(lam=2.0), ZeroOneLoss("error"), ZeroOneLoss("correct")])
IDS = [repr(l) for l in ALL]

# Independent formulas (plain NumPy, written from the papers) for the value of every loss.
def reference_value(loss, v):
    v = np.asarray(v, dtype=float)
    with np.errstate(over="ignore"):
        return _reference_value(loss, v)

def _reference_value(loss, v):
    sig = lambda x: 1 / (1 + np.exp(-x))
    t = type(loss)
    if t is ExponentialLoss: return np.exp(-v)
    if t is LogisticLoss: return np.log1p(np.exp(-v))
    if t is HingeLoss: return np.maximum(0, 1 - v)
    if t is SquaredLoss: return (1 - v) ** 2
    if t is SquaredHingeLoss: return np.maximum(0, 1 - v) ** 2
    if t is UnhingedLoss: return 1 - v
    if t is SigmoidLoss: return 1 / (1 + np.exp(v))
    if t is SavageLoss: return 1 / (1 + np.exp(2 * v)) ** 2
    if t is TwoRobustLoss: return 4 / (1 + np.exp(v)) ** 2
    if t is GammaRobustLoss: return 2 ** loss.gamma / (1 + np.exp(loss.a * v)) ** loss.gamma
    if t is RampLoss: return np.minimum(2, np.maximum(0, 1 - v))
    if t is TruncatedHingeLoss: return np.minimum(1 - loss.s, np.maximum(0, 1 - v))
    if t is TruncatedExponentialLoss: return np.minimum(np.exp(-v), np.exp(-loss.t))
    if t is NELoss: return np.minimum(1, np.exp(-v - math.log(2 / loss.lam)))
    if t is ZeroOneLoss: return np.where(v < 0, 1.0, np.where(v > 0, 0.0, {"half": .5, "error": 1., "correct": 0.}[loss.tie]))
    if t is AlphaLoss:
        a = loss.alpha
        if a == 1: return np.log1p(np.exp(-v))
        if np.isinf(a): return 1 - sig(v)
        return a / (a - 1) * (1 - sig(v) ** (1 - 1 / a))
    raise AssertionError(t)

def kink_free(loss, v, gap):
    "Margins at least `gap` away from every kink of the loss."
    keep = np.ones_like(v, dtype=bool)
    for k in loss.kinks: keep &= np.abs(v - k) > gap
    return v[keep]

# ------------------------------------------------------------------------------------------------ values

@pytest.mark.parametrize("loss", ALL, ids=IDS)
def test_value_matches_independent_formula(loss):
    v = np.linspace(-12, 12, 481)
    ref = reference_value(loss, v)
    np.testing.assert_allclose(loss(v), ref, rtol=1e-11, atol=1e-14)
    assert loss(v).shape == v.shape and loss(0.5).shape == ()
    assert np.array_equal(loss([[0.0, 1.0]]), loss(np.array([[0.0, 1.0]])))   # shape preserved (2-D)

# ------------------------------------------------------------------------------------------------ derivatives

# Central differences with step h have error h²/6·|φ'''| (truncation) + ε·|φ|/h (rounding): with h = 1e-5 and the
# losses' |φ'''| ≤ ~15·(|φ| + 1) on [−12, 12], both terms are below 3e-10·(1 + |φ|), so a tolerance of
# 1e-7·(1 + |φ| + |φ'|) leaves a 300x margin while any formula error (a wrong sign or factor) is O(|φ'|).
H_FD = 1e-5

@pytest.mark.parametrize("loss", ALL, ids=IDS)
def test_d1_matches_finite_differences(loss):
    v = kink_free(loss, np.linspace(-12, 12, 961), gap=10 * H_FD)
    fd = (loss(v + H_FD) - loss(v - H_FD)) / (2 * H_FD)
    tol = 1e-7 * (1 + np.abs(loss(v)) + np.abs(loss.d1(v)))
    assert np.all(np.abs(fd - loss.d1(v)) <= tol)

@pytest.mark.parametrize("loss", ALL, ids=IDS)
def test_d2_matches_finite_differences(loss):
    v = kink_free(loss, np.linspace(-12, 12, 961), gap=10 * H_FD)
    fd = (loss.d1(v + H_FD) - loss.d1(v - H_FD)) / (2 * H_FD)
    tol = 1e-7 * (1 + np.abs(loss(v)) + np.abs(loss.d1(v)) + np.abs(loss.d2(v)))
    assert np.all(np.abs(fd - loss.d2(v)) <= tol)

@HYP
@given(alpha=st.floats(0.05, 100.0), v=st.floats(-25.0, 25.0))
def test_alpha_loss_derivatives_match_finite_differences_for_any_alpha(alpha, v):
    loss = AlphaLoss(alpha)
    fd1 = (loss(v + H_FD) - loss(v - H_FD)) / (2 * H_FD)
    fd2 = (loss.d1(v + H_FD) - loss.d1(v - H_FD)) / (2 * H_FD)
    scale = 1 + abs(loss(v)) + abs(loss.d1(v)) + abs(loss.d2(v))
    assert abs(fd1 - loss.d1(v)) <= 1e-6 * scale
    assert abs(fd2 - loss.d2(v)) <= 1e-6 * scale

@HYP
@given(alpha=st.floats(0.05, 100.0).filter(lambda a: abs(a - 1) > 0.05), v=st.floats(-10.0, 10.0))
def test_alpha_loss_value_matches_definition_1(alpha, v):
    s = 1 / (1 + math.exp(-v))
    naive = alpha / (alpha - 1) * (1 - s ** (1 - 1 / alpha))      # Definition 1 verbatim (fine away from α=1)
    assert abs(AlphaLoss(alpha)(v) - naive) <= 1e-9 * (1 + abs(naive))

def test_alpha_loss_lemma1_closed_forms():
    # Sypherd et al. eq. (20)-(21) in their exponential form, written independently
    z = np.linspace(-8, 8, 161)
    for a in (0.5, 0.77, 1.0, 1.44, 3.0):
        d1 = -np.exp(z) / (1 + np.exp(z)) ** 2 * (1 + np.exp(-z)) ** (1 / a)
        d2 = np.exp(z) * (a * np.exp(z) - a + 1) * (1 + np.exp(-z)) ** (1 / a) / (a * (np.exp(z) + 1) ** 3)
        np.testing.assert_allclose(AlphaLoss(a).d1(z), d1, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(AlphaLoss(a).d2(z), d2, rtol=1e-12, atol=1e-15)

def test_gamma_robust_derivatives_closed_form():
    # Li & Bradic, the γ-robust loss's derivative: φ' = −aγ2^γ e^{av}/(1+e^{av})^{γ+1}
    v = np.linspace(-10, 10, 201)
    for g, a in [(1.5, 1.0), (2.0, 1.0), (3.0, 2.0)]:
        ref = -a * g * 2 ** g * np.exp(a * v) / (1 + np.exp(a * v)) ** (g + 1)
        np.testing.assert_allclose(GammaRobustLoss(g, a=a).d1(v), ref, rtol=1e-12, atol=1e-300)

# ------------------------------------------------------------------------------------------------ α limits

def _rel(a, b): return np.max(np.abs(a - b) / np.maximum(1.0, np.abs(b)))

@pytest.mark.parametrize("near,exact_ref", [
    (1 + 1e-13, lambda v: np.logaddexp(0, -v)), (1 - 1e-13, lambda v: np.logaddexp(0, -v)),
    (0.5 + 1e-13, lambda v: np.exp(-v)), (0.5 - 1e-13, lambda v: np.exp(-v)),
    (1e13, lambda v: expit(-v)), (1e15, lambda v: expit(-v))])
def test_alpha_loss_limits_hold_to_1e10(near, exact_ref):
    v = np.linspace(-30, 30, 1201)
    assert _rel(AlphaLoss(near)(v), exact_ref(v)) < 1e-10

@pytest.mark.parametrize("delta", [1e-3, 1e-5, 1e-8, 1e-11, -1e-4, -1e-9])
def test_alpha_loss_accurate_near_alpha_one(delta):
    # Box–Cox series l = −L·Σ_k (βL)^k/(k+1)!, L = log σ(v), β = 1 − 1/α: 8 terms are exact to 1e-20 here
    alpha = 1 + delta
    beta = 1 - 1 / alpha
    v = np.linspace(-30, 30, 601)
    Lg = -np.logaddexp(0, -v)
    series = -Lg * sum((beta * Lg) ** k / math.factorial(k + 1) for k in range(8))
    np.testing.assert_allclose(AlphaLoss(alpha)(v), series, rtol=1e-13, atol=1e-300)

@pytest.mark.parametrize("near,exact", [(1 + 1e-13, 1.0), (1 - 1e-13, 1.0), (0.5 + 1e-13, 0.5), (1e13, np.inf)])
def test_alpha_loss_derivative_limits_hold_to_1e10(near, exact):
    v = np.linspace(-30, 30, 1201)
    for f in ("d1", "d2"):
        assert _rel(getattr(AlphaLoss(near), f)(v), getattr(AlphaLoss(exact), f)(v)) < 1e-10

def test_alpha_loss_exact_special_cases():
    v = np.linspace(-30, 30, 601)
    np.testing.assert_allclose(AlphaLoss(0.5)(v), np.exp(-v), rtol=1e-15)
    np.testing.assert_allclose(AlphaLoss(1)(v), np.logaddexp(0, -v), rtol=1e-14, atol=1e-300)
    np.testing.assert_allclose(AlphaLoss(np.inf)(v), expit(-v), rtol=1e-14, atol=1e-300)
    np.testing.assert_allclose(AlphaLoss(float("inf")).d1(v), -expit(v) * expit(-v), rtol=1e-12, atol=1e-300)

# ------------------------------------------------------------------------------------------------ stability

LIMITS = {  # φ at margins (−1e6, −1e3, 1e3, 1e6), independently: overflowing values are inf, underflow is 0
    "exponential": (np.inf, np.inf, 0, 0), "logistic": (1e6, 1e3, 0, 0), "hinge": (1e6 + 1, 1001, 0, 0),
    "squared": ((1 + 1e6) ** 2, 1001 ** 2, 999 ** 2, (1e6 - 1) ** 2), "squared_hinge": ((1 + 1e6) ** 2, 1001 ** 2, 0, 0),
    "unhinged": (1e6 + 1, 1001, -999, 1 - 1e6), "sigmoid": (1, 1, 0, 0), "savage": (1, 1, 0, 0),
    "ramp": (2, 2, 0, 0), "truncated_hinge": (2, 2, 0, 0), "truncated_exponential": (math.e ** 2, math.e ** 2, 0, 0),
    "ne": (1, 1, 0, 0), "zero_one": (1, 1, 0, 0), "alpha": (2, 2, 0, 0), "gamma_robust": (4, 4, 0, 0), "two_robust": (4, 4, 0, 0)}

@pytest.mark.parametrize("name", sorted(LIMITS))
def test_values_at_huge_margins(name):
    got = get_loss(name)(np.array([-1e6, -1e3, 1e3, 1e6]))
    np.testing.assert_allclose(got, LIMITS[name], rtol=1e-12, atol=0)

@pytest.mark.parametrize("loss", ALL, ids=IDS)
def test_no_nan_and_no_warnings_at_huge_margins(loss):
    v = np.array([-1e6, -1e3, -750.0, -700.0, 700.0, 750.0, 1e3, 1e6])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for f in (loss.value, loss.d1, loss.d2, loss.weight) + ((loss.log_weight,) if loss.monotone else ()):
            out = f(v)
            assert not np.any(np.isnan(out)), f.__name__
        if loss.monotone and np.any(loss.weight(v) > 0):
            w = loss.sample_weights(v)
            assert np.all(np.isfinite(w)) and abs(w.sum() - 1) < 1e-12
    # finite wherever the true value is representable: bounded losses everywhere, all losses for v >= 0
    assert np.all(np.isfinite(loss(v[v >= 0])))
    if loss.bounded: assert np.all(np.isfinite(loss(v))) and np.all(np.isfinite(loss.d1(v)))
    assert np.all(np.abs(loss.d1(v[v > 100])) < 1e-30) or not loss.monotone or type(loss) is UnhingedLoss

def test_exponential_sample_weights_in_log_space():
    v = np.array([-1e6, -1e6 + 1.0, 0.0])
    w = ExponentialLoss().sample_weights(v)
    np.testing.assert_allclose(w, [1 / (1 + np.exp(-1)), np.exp(-1) / (1 + np.exp(-1)), 0.0], rtol=1e-14)
    v = np.array([-2.0, 0.5, 3.0])
    np.testing.assert_allclose(AlphaLoss(2).sample_weights(v), AlphaLoss(2).weight(v) / AlphaLoss(2).weight(v).sum())

# ------------------------------------------------------------------------------------------------ properties

SUP = {SigmoidLoss: lambda l: 1.0, SavageLoss: lambda l: 1.0, TwoRobustLoss: lambda l: 4.0,
       GammaRobustLoss: lambda l: 2 ** l.gamma, RampLoss: lambda l: 2.0, TruncatedHingeLoss: lambda l: 1 - l.s,
       TruncatedExponentialLoss: lambda l: math.exp(-l.t), NELoss: lambda l: 1.0, ZeroOneLoss: lambda l: 1.0,
       AlphaLoss: lambda l: 1.0 if np.isinf(l.alpha) else l.alpha / (l.alpha - 1)}

@pytest.mark.parametrize("loss", ALL, ids=IDS)
def test_declared_properties_are_verified(loss):
    d, c = loss.declared_properties(), loss.check_properties()
    for k in ("convex", "calibrated", "bounded", "monotone", "symmetric", "gamma_robust"):
        assert d[k] == c[k], k
    for k in ("symmetric_constant", "link_rate"):
        assert (d[k] is None) == (c[k] is None), k
        if d[k] is not None: assert abs(d[k] - c[k]) < 1e-6, k

pairs = st.tuples(st.floats(-30, 30), st.floats(-30, 30), st.floats(0, 1))

@pytest.mark.parametrize("loss", [l for l in ALL if l.convex], ids=[repr(l) for l in ALL if l.convex])
@HYP
@given(xyl=pairs)
def test_convex_losses_are_midpoint_convex(loss, xyl):
    x, y, lam = xyl
    lhs = loss(lam * x + (1 - lam) * y)
    rhs = lam * loss(x) + (1 - lam) * loss(y)
    assert lhs <= rhs + 1e-12 * (1 + abs(rhs))

@pytest.mark.parametrize("loss", [l for l in ALL if not l.convex], ids=[repr(l) for l in ALL if not l.convex])
def test_nonconvex_losses_violate_convexity_somewhere(loss):
    x = np.linspace(-10, 10, 401)
    X, Y = np.meshgrid(x, x)
    gap = loss((X + Y) / 2) - (loss(X) + loss(Y)) / 2          # > 0 is a violation of midpoint convexity
    assert gap.max() > 1e-6

@pytest.mark.parametrize("loss", ALL, ids=IDS)
@HYP
@given(v=st.floats(-1e6, 1e6))
def test_bounded_losses_stay_within_their_range(loss, v):
    val = loss(v)
    if loss.bounded:
        assert -1e-15 <= val <= SUP[type(loss)](loss) * (1 + 1e-12)
    else:
        assert not np.isnan(val)

@pytest.mark.parametrize("loss", [l for l in ALL if not l.bounded], ids=[repr(l) for l in ALL if not l.bounded])
def test_unbounded_losses_are_unbounded(loss):
    assert max(abs(loss(-1e3)), abs(loss(1e3))) > 100

@pytest.mark.parametrize("loss", ALL, ids=IDS)
@HYP
@given(v=st.floats(-1e4, 1e4))
def test_symmetry_constant(loss, v):
    s = loss(v) + loss(-v)
    if loss.symmetric:
        assert abs(s - loss.symmetric_constant) <= 1e-12 * (1 + abs(s))

@pytest.mark.parametrize("loss", [l for l in ALL if not l.symmetric], ids=[repr(l) for l in ALL if not l.symmetric])
def test_nonsymmetric_losses_have_varying_sum(loss):
    v = np.linspace(-5, 5, 101)
    assert np.ptp(loss(v) + loss(-v)) > 1e-3

@pytest.mark.parametrize("loss", [l for l in ALL if l.monotone], ids=[repr(l) for l in ALL if l.monotone])
@HYP
@given(x=st.floats(-1e3, 1e3), dx=st.floats(0, 50))
def test_monotone_losses_do_not_increase(loss, x, dx):
    assert loss(x + dx) <= loss(x) + 1e-15 * abs(loss(x)) + 1e-300
    assert loss.d1(x) <= 0

def test_squared_loss_is_not_monotone():
    assert SquaredLoss()(3.0) > SquaredLoss()(1.0) and SquaredLoss().d1(2.0) > 0

@pytest.mark.parametrize("loss", [l for l in ALL if l.calibrated], ids=[repr(l) for l in ALL if l.calibrated])
@HYP_SLOW
@given(eta=st.floats(0.01, 0.99).filter(lambda e: abs(e - 0.5) > 1e-3))
def test_calibration_sign_of_minimizer(loss, eta):
    for method in ("auto", "numeric"):
        v = conditional_minimizer(loss, eta, method=method)
        assert np.sign(v) == np.sign(2 * eta - 1), method
    # brute force, independently of the library: the best grid margin has the Bayes sign (grid step 0.005, and
    # |η − 1/2| > 0.05 keeps |v*| ≥ 0.05 ≫ step for every loss here, so the grid can resolve the sign)
    if abs(eta - 0.5) <= 0.05: return
    R = loss.score_range or 40
    grid = np.linspace(-R, R, int(2 * R / 0.005) + 2)   # even count: 0 is not a grid point
    risk = eta * reference_value(loss, grid) + (1 - eta) * reference_value(loss, -grid)
    best = grid[np.flatnonzero(risk <= risk.min() * (1 + 1e-12) + 1e-300)]
    assert np.all(np.sign(best) == np.sign(2 * eta - 1))

def test_noncalibrated_loss_is_detected():
    @__import__("dataclasses").dataclass(frozen=True, repr=False)
    class Even(MarginLoss):             # φ(v) = v²: C_η(v) = v² for every η, minimiser 0, never calibrated
        name = "even"
        def _value(self, v): return v * v
        def _d1(self, v): return 2 * v
        def _d2(self, v): return np.full_like(v, 2.0)
    c = Even().check_properties()
    assert c["calibrated"] is False and c["convex"] is True and c["symmetric"] is False
    assert c["monotone"] is False and c["bounded"] is False

@pytest.mark.parametrize("loss", [ExponentialLoss(), LogisticLoss(), SquaredLoss(), SquaredHingeLoss(),
                                  TwoRobustLoss(), SavageLoss(), GammaRobustLoss(1.5), GammaRobustLoss(3.0, a=2.0),
                                  AlphaLoss(2.0), AlphaLoss(0.3)], ids=repr)
def test_arch_condition_ii_unique_critical_point(loss):
    # Li & Bradic, Lemmas 1 and 3: C'_η has exactly one sign change, at the closed-form v*(η) (grid step 1e-3)
    v = np.arange(-30, 30, 1e-3) if loss.score_range is None else np.arange(-5, 5, 1e-3)
    for eta in (0.05, 0.3, 0.7, 0.95):
        dC = eta * loss.d1(v) - (1 - eta) * loss.d1(-v)
        sign = np.sign(dC[np.abs(dC) > 1e-14])
        assert np.count_nonzero(np.diff(sign)) == 1
        vz = v[np.abs(dC) > 1e-14][np.flatnonzero(np.diff(sign))[0]]
        assert abs(vz - conditional_minimizer(loss, eta)) < 2e-3

def test_sigmoid_has_no_critical_point_remark1():
    v = np.linspace(-30, 30, 6001)
    for eta in (0.1, 0.4, 0.6, 0.9):
        dC = eta * SigmoidLoss().d1(v) - (1 - eta) * SigmoidLoss().d1(-v)
        assert np.all(np.sign(dC) == np.sign(1 - 2 * eta))
    np.testing.assert_allclose(SigmoidLoss().d1(v) / SigmoidLoss().d1(-v), 1.0, rtol=1e-12)

# ------------------------------------------------------------------------------------------------ calibration

def test_conditional_risk_formula_and_broadcasting():
    eta, v = np.array([[0.2], [0.9]]), np.array([-1.0, 0.0, 2.0])
    ref = eta * np.exp(-v) + (1 - eta) * np.exp(v)
    np.testing.assert_allclose(conditional_risk("exponential", eta, v), ref, rtol=1e-15)
    assert conditional_risk(ExponentialLoss(), 0.0, -1e6) == 0.0     # 0·inf is 0, not NaN

@pytest.mark.parametrize("loss,vstar", [
    (ExponentialLoss(), lambda e: 0.5 * np.log(e / (1 - e))), (LogisticLoss(), lambda e: np.log(e / (1 - e))),
    (SquaredLoss(), lambda e: 2 * e - 1), (SquaredHingeLoss(), lambda e: 2 * e - 1),
    (HingeLoss(), lambda e: np.sign(2 * e - 1)), (RampLoss(), lambda e: np.sign(2 * e - 1)),
    (UnhingedLoss(), lambda e: np.sign(2 * e - 1)), (SavageLoss(), lambda e: 0.5 * np.log(e / (1 - e))),
    (TwoRobustLoss(), lambda e: np.log(e / (1 - e))), (AlphaLoss(3.0), lambda e: 3 * np.log(e / (1 - e))),
    (GammaRobustLoss(1.5, a=2.0), lambda e: np.log(e / (1 - e)) / 1.0)], ids=lambda p: "closed_form" if type(p).__name__ == "function" else repr(p))
def test_conditional_minimizer_closed_and_numeric(loss, vstar):
    eta = np.array([0.05, 0.2, 0.45, 0.6, 0.85, 0.97])
    np.testing.assert_allclose(conditional_minimizer(loss, eta), vstar(eta), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(conditional_minimizer(loss, eta, method="numeric"), vstar(eta), atol=1e-5)

def test_minimizer_at_infinity_and_at_one_half():
    assert np.array_equal(conditional_minimizer(SigmoidLoss(), [0.2, 0.5, 0.8], method="numeric"), [-np.inf, 0, np.inf])
    assert conditional_minimizer(ExponentialLoss(), 1.0) == np.inf
    assert np.isposinf(conditional_minimizer(TruncatedExponentialLoss(), 0.95, method="numeric"))
    assert abs(conditional_minimizer(TruncatedExponentialLoss(), 0.7, method="numeric") - 0.5 * np.log(7 / 3)) < 1e-6
    # at η = 1/2, C is even: 0 is a minimiser for all but the s = 0 truncated hinge and the λ = 2 NE loss, whose
    # C_{1/2}(v) = (1 + e^{−|v|})/2 is *maximal* at 0 and decreases to its infimum 1/2 at ±∞
    for loss in ALL:
        v = np.linspace(-50, 50, 10001)
        c_half = (reference_value(loss, v) + reference_value(loss, -v)) / 2
        got = conditional_minimizer(loss, 0.5, method="numeric")
        if c_half[5000] <= c_half.min() + 1e-12: assert got == 0, loss
        else: assert got != 0 and c_half.min() < c_half[5000], loss
    assert np.isinf(conditional_minimizer(NELoss(lam=2.0), 0.5, method="numeric"))

def test_bayes_and_wrong_side_risks():
    eta = np.linspace(0.02, 0.98, 25)
    np.testing.assert_allclose(min_conditional_risk("exponential", eta), 2 * np.sqrt(eta * (1 - eta)), rtol=1e-12)
    ent = -eta * np.log(eta) - (1 - eta) * np.log(1 - eta)
    np.testing.assert_allclose(min_conditional_risk("logistic", eta, method="numeric"), ent, rtol=1e-12)
    np.testing.assert_allclose(min_conditional_risk("sigmoid", eta, method="numeric"), np.minimum(eta, 1 - eta), atol=1e-15)
    np.testing.assert_allclose(wrong_side_risk("exponential", eta), np.ones_like(eta), rtol=1e-12)
    np.testing.assert_allclose(wrong_side_risk("hinge", eta), np.ones_like(eta), rtol=1e-12)

def _psi_logistic(t):
    "ψ(θ) = (1+θ)/2·ln(1+θ) + (1−θ)/2·ln(1−θ), with the limit ln 2 at |θ| = 1 (0·log 0 = 0)."
    t = np.abs(np.asarray(t, dtype=float))
    tt = np.where(t < 1, t, 0.0)
    return np.where(t < 1, (1 + tt) / 2 * np.log1p(tt) + (1 - tt) / 2 * np.log1p(-tt), np.log(2))

PSI = {"exponential": lambda t: 1 - np.sqrt(1 - t * t),
       "logistic": lambda t: _psi_logistic(t),
       "hinge": np.abs, "squared": np.square, "squared_hinge": np.square, "unhinged": np.abs, "ramp": np.abs,
       "sigmoid": lambda t: np.abs(t) / 2, "zero_one": lambda t: np.abs(t) / 2, "savage": lambda t: t * t / 4, "two_robust": np.square}

@pytest.mark.parametrize("name", sorted(PSI))
def test_psi_closed_form_and_numeric(name):
    theta = np.linspace(-1, 1, 41)
    np.testing.assert_allclose(psi_transform(name, theta), PSI[name](theta), atol=1e-14)
    np.testing.assert_allclose(psi_transform(name, theta, method="numeric"), PSI[name](theta), atol=1e-7)

def test_psi_of_alpha_loss_is_convex_even_and_between_limits():
    theta = np.linspace(0, 1, 21)
    p2 = psi_transform(AlphaLoss(2.0), theta)
    assert p2[0] == 0 and np.all(np.diff(p2) > 0) and np.all(np.diff(p2, 2) >= -1e-10)
    np.testing.assert_allclose(psi_transform(AlphaLoss(2.0), -theta), p2)
    # α-loss has H⁻ = l(0) and H = C_η(α·logit η): closed form written here independently
    eta = (1 + theta) / 2
    with np.errstate(divide="ignore"):
        vs = np.clip(2 * np.log(eta / (1 - eta)), -1e6, 1e6)
    ref_raw = reference_value(AlphaLoss(2.0), 0.0) - (eta * reference_value(AlphaLoss(2.0), vs)
                                                      + (1 - eta) * reference_value(AlphaLoss(2.0), -vs))
    np.testing.assert_allclose(p2, ref_raw, atol=1e-9)

@HYP
@given(e=st.floats(0, 2))
def test_regret_bound_inverts_psi(e):
    for name in ("exponential", "hinge", "squared", "sigmoid", "logistic"):
        b = surrogate_regret_bound(name, e)
        assert 0 <= b <= 1
        if b < 1: assert abs(PSI[name](b) - e) <= 1e-12 * (1 + e)
        else: assert PSI[name](1.0) <= e + 1e-12

def test_regret_bound_numeric_matches_closed():
    e = np.array([0.0, 0.01, 0.1, 0.3])
    np.testing.assert_allclose(surrogate_regret_bound("savage", e, method="numeric"),
                               np.minimum(1, 2 * np.sqrt(e)), atol=2e-3)   # numeric ψ is a 401-point interpolant
    np.testing.assert_allclose(surrogate_regret_bound("savage", e), np.minimum(1, 2 * np.sqrt(e)), atol=1e-14)

# ------------------------------------------------------------------------------------------------ API

def test_registry_and_get_loss():
    for name, cls in L.LOSSES.items():
        assert isinstance(get_loss(name), cls) and get_loss(name).name == name
    assert get_loss("EXP") == ExponentialLoss() and get_loss("ARB-2") == TwoRobustLoss()
    assert get_loss("alpha", alpha=np.inf) == AlphaLoss(np.inf)
    inst = AlphaLoss(2.0)
    assert get_loss(inst) is inst
    assert get_loss("gamma_robust", gamma=3).params == {"gamma": 3.0, "a": 1.0}

@pytest.mark.parametrize("loss", ALL, ids=IDS)
def test_pickle_eq_hash_repr(loss):
    clone = pickle.loads(pickle.dumps(loss))
    assert clone == loss and hash(clone) == hash(loss) and repr(clone) == repr(loss)
    assert type(loss).__name__ in repr(loss)

def test_weight_is_minus_d1_and_log_weight():
    v = np.linspace(-5, 5, 11)
    for loss in ALL:
        np.testing.assert_array_equal(loss.weight(v), -loss.d1(v))
        if loss.monotone:
            with np.errstate(divide="ignore"):
                np.testing.assert_allclose(loss.log_weight(v), np.log(-loss.d1(v)), rtol=1e-12, atol=1e-12)

# ------------------------------------------------------------------------------------------------ bad inputs

_ALPHA_MSG = "(0, inf]"
@pytest.mark.parametrize("alpha,match", [(0, _ALPHA_MSG), (-2, _ALPHA_MSG), ("inf", "np.inf"), (np.nan, _ALPHA_MSG),
                                         (True, "real number"), (None, "real number"), (-np.inf, _ALPHA_MSG),
                                         (5e-324, "subnormal")])
def test_alpha_loss_rejects_bad_alpha(alpha, match):
    with pytest.raises(ValueError, match=match.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[").replace("]", r"\]")):
        AlphaLoss(alpha)

@pytest.mark.parametrize("make,match", [
    (lambda: GammaRobustLoss(1.0), "sigmoid"), (lambda: GammaRobustLoss(0.5), "gamma must be > 1"),
    (lambda: GammaRobustLoss(2.0, a=0), "a must be > 0"), (lambda: GammaRobustLoss("2"), "real number"),
    (lambda: TruncatedHingeLoss(s=0.5), "s ≤ 0"), (lambda: TruncatedExponentialLoss(t=1.0), "t must be ≤ 0"),
    (lambda: NELoss(lam=0), "lam"), (lambda: NELoss(lam=3), "lam"), (lambda: TruncatedHingeLoss(s=np.inf), "finite")])
def test_parametrised_losses_reject_bad_parameters(make, match):
    with pytest.raises(ValueError, match=match):
        make()

def test_get_loss_errors():
    with pytest.raises(ValueError, match="valid names: .*exponential"): get_loss("adaboosty")
    with pytest.raises(ValueError, match="no parameter"): get_loss("hinge", alpha=2)
    with pytest.raises(ValueError, match="together with a loss instance"): get_loss(AlphaLoss(2), alpha=3)
    with pytest.raises(TypeError, match="name"): get_loss(3)

@pytest.mark.parametrize("bad", [np.nan, [0.0, np.inf], [-np.inf], [[1.0, np.nan]]])
def test_non_finite_margins_raise(bad):
    for f in (LogisticLoss(), LogisticLoss().d1, LogisticLoss().d2, AlphaLoss(2).weight, HingeLoss().log_weight):
        with pytest.raises(ValueError, match="NaN or inf"): f(bad)

def test_non_numeric_margins_raise():
    with pytest.raises(TypeError, match="real numbers"): ExponentialLoss()(["1.0"])
    with pytest.raises(TypeError, match="real numbers"): ExponentialLoss()(np.array([None, 1.0]))

def test_calibration_functions_reject_bad_input():
    with pytest.raises(ValueError, match="probability"): conditional_risk("hinge", 1.5, 0.0)
    with pytest.raises(ValueError, match="probability"): conditional_minimizer("hinge", [np.nan])
    with pytest.raises(ValueError, match="probability"): min_conditional_risk("hinge", -0.1)
    with pytest.raises(TypeError, match="probability"): wrong_side_risk("hinge", "a")
    with pytest.raises(ValueError, match=r"\[-1, 1\]"): psi_transform("hinge", 1.2)
    with pytest.raises(ValueError, match="≥ 0"): surrogate_regret_bound("hinge", -0.1)
    with pytest.raises(ValueError, match="method"): psi_transform("hinge", 0.2, method="exact")
    with pytest.raises(ValueError, match="numeric"): conditional_minimizer(RampLoss(), 0.3, method="closed") \
        if RampLoss()._minimizer(np.array(0.3)) is None else conditional_minimizer(TruncatedHingeLoss(0.0), 0.3, method="closed")
    with pytest.raises(ValueError, match="numeric"): surrogate_regret_bound(AlphaLoss(2), 0.1, method="closed")
    with pytest.raises(ValueError, match="NaN or inf"): conditional_risk("hinge", 0.3, np.nan)

def test_zero_one_loss_ties_and_calibration():
    assert ZeroOneLoss()(0.0) == 0.5 and ZeroOneLoss("error")(0.0) == 1 and ZeroOneLoss("correct")(0.0) == 0
    # tie="correct": abstaining is free, so H⁻(η) = C_η(0) = 0 < H(η) = min(η, 1−η) is impossible to beat
    np.testing.assert_allclose(wrong_side_risk(ZeroOneLoss("correct"), [0.2, 0.8]), [0.0, 0.0], atol=0)
    np.testing.assert_allclose(wrong_side_risk(ZeroOneLoss(), [0.2, 0.8]), [0.5, 0.5], atol=0)
    theta = np.linspace(-1, 1, 21)
    np.testing.assert_allclose(psi_transform(ZeroOneLoss("error"), theta, method="numeric"), np.abs(theta), atol=1e-12)
    np.testing.assert_allclose(psi_transform(ZeroOneLoss("error"), theta), np.abs(theta), atol=0)
    with pytest.raises(ValueError, match="tie must be one of"): ZeroOneLoss("random")
    with pytest.raises(ValueError, match="every weight"): ZeroOneLoss().sample_weights([1.0, -1.0])

def test_sample_weights_errors():
    with pytest.raises(ValueError, match="negative"): SquaredLoss().sample_weights([0.0, 2.0])
    with pytest.raises(ValueError, match="negative"): SquaredLoss().log_weight([0.0, 2.0])
    with pytest.raises(ValueError, match="every weight"): HingeLoss().sample_weights([2.0, 3.0])


def test_gamma_robust_is_finite_up_to_gamma_max_and_refuses_beyond():
    "c·a·γ = 2^γ·γ overflowed at γ = 1023 (d1(0) = −inf) and 2^γ raised a bare OverflowError at γ ≥ 1024."
    for g in (1023.0 if L.GAMMA_MAX >= 1023 else L.GAMMA_MAX, L.GAMMA_MAX, 2.0):
        loss = GammaRobustLoss(gamma=g)
        # φ(0) = 2^γ 2^{−γ} = 1, φ'(0) = −γ/2 (σ(0)σ(0)^γ 2^γ γ), φ''(0) = −γ/2·(1 − (γ+1)/2) = γ(γ−1)/4
        assert loss(0.0) == pytest.approx(1.0, rel=1e-12)
        assert loss.d1(0.0) == pytest.approx(-g / 2, rel=1e-12)
        assert loss.d2(0.0) == pytest.approx(g * (g - 1) / 4, rel=1e-12)
        v = np.array([-1e6, -30.0, 0.0, 30.0, 1e6])
        for f in (loss.value, loss.d1, loss.d2, loss.log_weight):
            with np.errstate(over="raise", invalid="raise", divide="raise"):   # underflow to 0 is fine
                f(v)
        assert np.all(np.isfinite(loss(v))) and np.all(np.isfinite(loss.d1(v))) and np.all(np.isfinite(loss.d2(v)))
    assert GammaRobustLoss(gamma=1000.0)(-1e6) == pytest.approx(2.0 ** 1000, rel=1e-12)   # sup φ = 2^γ
    for g in (1024.0, 5000.0):
        with pytest.raises(ValueError, match=r"gamma must be in \(1, 1000\]; got gamma=" + str(g)):
            GammaRobustLoss(gamma=g)
