"""Checks of the RMBoost and Arch Boost results (`robust_ref.theory`, defined in chapters 10 and 50 beside their
statements): each is registered with its planted errors, plus values derived by hand, independent of the checks."""
import numpy as np
import pytest

from robust_ref import theory as th
from robust_ref.theory import rmboost as th_rmboost


# That each registered check holds and fails under every one of its mutations is asserted by the `demonstrate` cell
# after it in its chapter and once more by the index page (nbs/80_theory.ipynb: `summary_table()` over every check).
NAMES_B = sorted(n for n, e in th.CHECKS.items() if e.check.__name__.split("_")[1] in ("rmboost", "archboost"))


@pytest.mark.parametrize("name", NAMES_B)
def test_check_is_registered_with_mutations(name):
    fn, kw, bed, muts, ref = th.CHECKS[name]
    assert fn is getattr(th, fn.__name__)                      # the registry the summary table runs holds the export
    assert callable(fn) and bed and len(muts) >= 1


@pytest.fixture(scope="module")
def bed():
    return th.rmboost_bed()


# ---- RMBoost ----------------------------------------------------------------------------------------------------
def test_rmboost_lemma5_constant_rule_has_worst_case_one_half(bed):
    # h ≡ ½ errs with probability ½ under every p, so the left side is ½ whatever τ and λ (by hand)
    tau = bed.stats("clean n=200")[3]
    left, mu, s = th_rmboost._lemma5_sides(bed.H, np.full(len(bed.H), 0.5), tau, 0.05)
    assert left == pytest.approx(0.5, abs=1e-9)
    assert 1 - tau @ mu + 0.05 * np.abs(mu).sum() + s == pytest.approx(0.5, abs=1e-8)


def test_rmboost_lemma5_and_thm1_terms_are_tight(bed):
    c = th.check_rmboost_lemma5(bed)
    assert c.min_relative_slack > -1e-9 and c.term_table().needed.all()
    t1 = th.check_rmboost_thm1(bed)
    assert np.all(t1.quantity <= 0.5 + 1e-9)                   # R̄ ≤ F(0) = ½
    assert t1.term_table().loc["λ‖μ*‖₁", "needed"]


def test_rmboost_lemma6a_equality_at_feasible_mu(bed):
    c = th.check_rmboost_lemma6a(bed)
    feas = np.array([lab.startswith(("0.5·", "1·")) for lab in c.labels])
    assert np.allclose(c.slack[feas], 0, atol=1e-12)          # |f| ≤ ½: R(h_μ) = ½ − E*ᵀμ exactly
    assert c.term_table().needed.all()


def test_rmboost_lemma6b_uniform_noise_by_hand(bed):
    # uniform symmetric ρ: E_tr[y f] = (1 − 2ρ) E*[y f]
    c = th.check_rmboost_lemma6b(bed, n_functions=3)
    i = [k for k, lab in enumerate(c.labels) if lab.startswith("uniform 0.3")]
    assert np.allclose(c.quantity[i], 0.4 * c.terms["E*[yf]"][i], atol=1e-15)
    with pytest.raises(ValueError, match="form must be 'stated' or 'rho_minus_y'"):
        th.check_rmboost_lemma6b(bed, form="printed")


def test_rmboost_lemma7_attained_and_lambda_undetectable(bed):
    c = th.check_rmboost_lemma7(bed)
    assert c.min_relative_slack < 1e-9
    tab = c.term_table()
    assert tab.drop("−λ").needed.all() and not tab.loc["−λ", "needed"]


def test_rmboost_consistency_world_and_rate():
    px, eta, s = th.rmboost_margin_world()
    assert np.allclose(np.abs(2 * eta - 1), np.arange(1, 33) / 64) and px.sum() == pytest.approx(1)
    c = th.check_rmboost_consistency()
    assert c.ok and c.quantity[0] < -0.6                      # measured −0.79
    assert not th.check_rmboost_consistency(lam=0.01).ok
    with pytest.raises(ValueError, match="rules must be 'full' or 'half'"):
        th.check_rmboost_consistency(rules="quarter")


# ---- Arch Boost -------------------------------------------------------------------------------------------------
def test_archboost_lemma3_closed_form_at_one_half():
    # η = ½: v* = 0 and C(v*) = 2^γ(½·2^{−γ} + ½·2^{−γ}) = 1 (by hand)
    c = th.check_archboost_lemma3(gammas=(2.0,), scales_a=(1.0,), etas=(0.5,))
    assert c.ok and c.quantity[0] == pytest.approx(0.0, abs=1e-12) and c.quantity[1] == pytest.approx(1.0, abs=1e-12)
    with pytest.raises(ValueError, match="form must be 'corrected' or 'printed'"):
        th.check_archboost_lemma3(form="paper")


def test_archboost_lemma1_critical_points_by_hand():
    # logistic: v* = logit α; at α = 0.8, log 4
    c = th.check_archboost_lemma1(losses=("logistic",), alphas=(0.8,))
    i = c.labels.index("LogisticLoss() α=0.8: critical point")
    assert c.quantity[i] == pytest.approx(np.log(4), abs=1e-9)
    with pytest.raises(ValueError, match="form must be 'stated' or 'printed_proof'"):
        th.check_archboost_lemma2(form="printed")


def test_archboost_G_printed_is_right_only_at_gamma_one():
    assert th.check_archboost_eq18_G(gammas=(1.0,), form="printed").ok
    assert not th.check_archboost_eq18_G(gammas=(1.5,), form="printed").ok


def test_archboost_lemma4_radius_values():
    from robust_ref.theory.archboost import _curvature_radius
    from robust_ref.losses import GammaRobustLoss
    L = GammaRobustLoss(2.0)
    r = [_curvature_radius(L, np.linspace(d, 1 - d, 61)) for d in (0.05, 0.1, 0.2)]
    assert np.all(np.diff(r) > 0) and r[0] == pytest.approx(0.7323, abs=1e-3)
    # the radius is where the curvature vanishes: k(F* + r) = 0 at the worst p (here p = δ or 1 − δ)
    p = 0.05; v = float(L._minimizer(p))
    k = [p * L.d2(v + s * r[0]) + (1 - p) * L.d2(-v - s * r[0]) for s in (1, -1)]
    assert min(abs(float(x)) for x in k) < 1e-9


def test_archboost_thm3_far_point_is_half_over_lambda():
    # two-robust: φ'(0) = −8/8 = −1, so the far point's IF norm is ≈ |φ'(0)|·√M_k/(2λ) = 1/(2λ) (by hand)
    c = th.check_archboost_thm3(losses=("two_robust",), lams=(1e-4,), kernel_scales=(1.0,), zxs=(40.0,))
    assert c.ok and np.allclose(c.quantity, 1 / (2e-4), rtol=1e-3)
    assert c.min_relative_slack < 0.02
    with pytest.raises(ValueError, match="form must be 'corrected' or 'printed'"):
        th.check_archboost_thm3(form="M_k")


def test_archboost_thm1_bad_form():
    with pytest.raises(ValueError, match="form must be 'stated', 'clipped_p' or 'unweighted'"):
        th.check_archboost_thm1_margin(form="clipped")


def test_archboost_lemma7_fits_worst_case_by_hand():
    from robust_ref.losses import TwoRobustLoss
    phi = TwoRobustLoss()
    c = th.check_archboost_lemma7_fits(zetas=(2.0,))
    i = c.labels.index("worst case: sample at −60, population at +60, ζ=2")
    f = lambda v: float(phi(np.array([v]))[0])
    assert c.quantity[i] == pytest.approx((f(-60) - f(-2)) + (f(2) - f(60)), rel=1e-12)
    assert c.quantity[i] == pytest.approx(4 - 4 / (1 + np.exp(-2.0))**2 + 4 / (1 + np.exp(2.0))**2, rel=1e-9)
    fit = [l.startswith("ARB-2") for l in c.labels]
    assert np.all(c.quantity[fit] < 0.05)


def test_archboost_thm1_theta_least_squares_by_hand():
    # least squares at F = 0: h = C = 2p − 1 (Table 2), so h(0.25) = −0.5 and the C = p slip gives +0.25
    from robust_ref.archboost import arch_hypothesis
    assert float(arch_hypothesis("squared", 0.0, 0.25, clip=0)) == pytest.approx(-0.5, abs=1e-12)
    assert th.check_archboost_thm1_theta(losses=("squared",)).ok
    assert not th.check_archboost_thm1_theta(losses=("squared",), form="C_is_p").ok
    assert th.check_archboost_thm1_theta(losses=("logistic",), form="C_is_p").ok      # the slip only concerns least squares
    with pytest.raises(ValueError, match="form must be 'stated' or 'C_is_p'"):
        th.check_archboost_thm1_theta(form="C")
