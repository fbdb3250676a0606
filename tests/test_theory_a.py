"""Checks of the α-loss, robust-trees and mean-classifier results (`robust_ref.theory`, defined in chapters 20, 30 and
40 beside their statements): each is registered with its plausible errors (each chapter's `demonstrate` cell and the
index page, chapter 80, assert they all fail); hand-computed values pin the test beds."""
import numpy as np
import pytest

from robust_ref import theory as th


# That each registered check holds and fails under every one of its mutations is asserted by the `demonstrate` cell
# after it in its chapter and once more by the index page (nbs/80_theory.ipynb: `summary_table()` over every check).
PAPERS_A = ("alpha", "trees", "meanclf")
NAMES_A = sorted(n for n, e in th.CHECKS.items() if e.check.__name__.split("_")[1] in PAPERS_A)


def test_the_three_papers_have_their_checks():
    assert len(NAMES_A) >= 50 and {th.CHECKS[n].check.__name__.split("_")[1] for n in NAMES_A} == set(PAPERS_A)


@pytest.mark.parametrize("name", NAMES_A)
def test_registered_check_has_mutations(name):
    fn, kw, bed, muts, ref = th.CHECKS[name]
    assert callable(fn) and bed and muts, f"{name} has no mutation"
    assert fn is getattr(th, fn.__name__)                      # the registry runs the exported check


# ---- α-loss ------------------------------------------------------------------------------------------------------
def test_alpha_lemma2_root_is_alpha_log_N_by_hand():
    # B^α_N(x) = e^x − N e^{−x} at α = ½ (every derivative of l̃^{1/2} = e^{−z} is ±e^{−z}): root ½ ln N
    from robust_ref.theory.alpha_loss import B_alpha
    x = np.array([-1.0, 0.3, 2.0])
    assert np.allclose(B_alpha(x, 0.5, 3.0), np.exp(x) - 3.0 * np.exp(-x), rtol=1e-13)
    c = th.check_alpha_lemma2(alphas=(0.5,), Ns=(3.0,))
    assert c.quantity[0] == pytest.approx(0.5 * np.log(3.0), abs=1e-12)


def test_alpha_thm1_matches_the_papers_quoted_optimum():
    # the paper's α = 3 optimum (41.59, ≈0) with 3·20·ln 2 = 41.589 (N = 2, γ = 1/20)
    c = th.check_alpha_thm1(alphas_good=(3.0,), alphas_convex=(1.0,))
    assert c.ok and c.quantity[0] == pytest.approx(60 * np.log(2), rel=1e-4)
    assert c.quantity[-1] == 0.5                                      # α = 1: fair coin


def test_alpha_thm2_worst_ratio_is_small_and_attained_at_the_premise():
    r, z, d = th.alpha_thm2_worst_ratio(1.0)
    assert 0.066 < r < 0.069 and z == pytest.approx(np.log(2 + np.sqrt(3)), abs=1e-6) and 0.5 < d < 1.5
    r_inf = th.alpha_thm2_worst_ratio(np.inf)[0]
    assert 0.056 < r_inf < 0.059
    # the worst case, evaluated directly with the chapter's functions: (14) at one support point, d = 1, r = z* + Δ
    from robust_ref.theory.alpha_loss import linear_noisy_risk_gradient, theorem2_bound
    V = np.ones((1, 1))
    lhs = abs(linear_noisy_risk_gradient([z + d], V, 1.0, 0.2)[0] - linear_noisy_risk_gradient([z], V, 1.0, 0.2)[0])
    assert lhs / theorem2_bound(1.0, 0.2, 1, z + d, z) == pytest.approx(r, rel=1e-6)
    assert th.alpha_thm2_worst_ratio(1.0, "first_term_C1")[0] < 0.5
    with pytest.raises(ValueError, match="form must be"):
        th.alpha_thm2_worst_ratio(1.0, "printed")


def test_alpha_thm2_taylor_step_second_term_never_needed():
    c = th.check_alpha_thm2_step()
    assert c.ok and c.min_relative_slack < 1e-3
    tab = c.term_table()
    assert tab.loc["|Δ| l″", "needed"] and not tab.loc["Δ²/2 l‴", "needed"]


def test_alpha_bad_forms():
    with pytest.raises(ValueError, match="part must be"):
        th.check_alpha_lemma2(part="4")
    with pytest.raises(ValueError, match="form must be one of"):
        th.check_alpha_lemma2(part="3", form="no_alpha")
    with pytest.raises(ValueError, match="form must be"):
        th.check_alpha_prop1(form="quasi")


# ---- robust trees ------------------------------------------------------------------------------------------------
def test_trees_thm2_by_hand_uniform_node():
    # uniform p over K = 3: 01 gives 1 − 1/3, MAE 2(1 − 1/3), GCE q = 3 gives (1/3)(1 − 1/3)
    c = th.check_trees_thm2(Ks=(3,), n_p=0)
    vals = dict(zip([l.split(" p#")[0] for l in c.labels], c.correct_bound))
    assert vals["K=3 01"] == pytest.approx(2 / 3) and vals["K=3 MAE"] == pytest.approx(4 / 3)
    assert vals["K=3 GCE q=3"] == pytest.approx(2 / 9)


def test_trees_lemma7_dkw_radius_and_ne_loss():
    c = th.check_trees_lemma7(mus=(0.5,), n=1000)
    assert c.ok
    assert np.max(c.tol) == pytest.approx(np.sqrt(np.log(2e6) / 2000), rel=1e-12)
    with pytest.raises(ValueError, match="form must be"):
        th.check_trees_lemma7(form="printed")


def test_trees_lemma6_zero_one_at_zero_is_one():
    c = th.check_trees_lemma6(zs=(0.0,))
    assert c.quantity[0] == 1.0 and c.ok          # a CDF is right-continuous: F(0) = 1 for Ber(0)


# ---- mean classifier ---------------------------------------------------------------------------------------------
def test_meanclf_thm1_single_atom_counterexample_with_tie_error():
    # one atom, η = 0.6, f = 0: with ℓ01(y, 0) = 1 the 0-1 regret is 1 − 0.4 = 0.6 > the linear regret 0.2
    from robust_ref.mean_classifier import zero_one
    eta = 0.6
    r01 = eta * zero_one(1, 0.0, "error") + (1 - eta) * zero_one(-1, 0.0, "error") - (1 - eta)
    lin = (eta * 1 + (1 - eta) * 1) - (eta * 0 + (1 - eta) * 2)
    assert float(r01) == pytest.approx(0.6) and lin == pytest.approx(0.2)


def test_meanclf_thm4_printed_fails_exactly_where_the_spec_says():
    c = th.check_meanclf_thm4(variant="paper")
    bad = {l for l, s in zip(c.labels, c.slack) if s < 0}
    assert {"n=1000 δ=1e-06", "n=10000 δ=1e-06", "n=100 δ=1e-06"} <= bad
    assert all("δ=0.1" not in l and "δ=0.01" not in l for l in bad)


def test_meanclf_thm5_is_the_max_over_maps_and_close_to_the_bound():
    c = th.check_meanclf_thm5()
    assert c.ok and 0.85 < float(np.max(c.quantity / c.bound)) < 0.87
    from robust_ref.theory.mean_classifier import thm3_bound
    assert c.bound[0] == pytest.approx(np.sqrt(2 * (1 + np.log(2) + np.log(1e8)) / 18), rel=1e-12)
    assert c.bound[0] == pytest.approx(thm3_bound(18, 1e-8, k=2), rel=1e-15)


def test_meanclf_thm6_sample_bed_has_small_negative_margins():
    from robust_ref.theory.mean_classifier import _thm6_sample
    Phi, y = _thm6_sample()
    assert np.all(np.linalg.norm(Phi, axis=1) <= 1)
    w = (y[:, None] * Phi).mean(0)
    m = y * (Phi @ w)
    assert (m < 0).sum() == 3 and m[m < 0].min() > -0.1 and m[m > 0].min() > 0.3


def test_meanclf_thm8_by_hand_two_atoms():
    # two atoms, K = identity: f_P = p₊ − p₋ per atom; σ-noise gives (1 − 2σ)(p₊ − p₋)
    from robust_ref.mean_classifier import noisy_masses, population_scores
    a, b = np.array([0.3, 0.1]), np.array([0.2, 0.4])
    f = population_scores(np.eye(2), *noisy_masses(a, b, 0.25))
    assert np.allclose(f, 0.5 * (a - b), atol=1e-15)


def test_meanclf_lemma7_adversarial_contamination_beyond_the_condition_raises_the_risk():
    c = th.check_meanclf_lemma7(sigma_factor=3.0)
    assert not c.ok and "adversarial Q" in c.labels[int(np.argmin(c.slack))] or c.n_failures > 0
    assert th.check_meanclf_lemma7().ok


def test_meanclf_thm13_and_lemma23_verdicts():
    c = th.check_meanclf_thm13()
    robust = dict(zip(c.labels, c.quantity == 0))
    assert all(robust[n] for n in ("unhinged", "sigmoid", "ramp", "zero_one", "3 − 2yv"))
    assert not any(robust[n] for n in ("hinge", "logistic", "exponential", "squared"))
    d = th.check_meanclf_lemma23()
    assert dict(zip(d.labels, d.quantity))["−hinge"] == 1.0 and dict(zip(d.labels, d.quantity))["hinge + 7"] == 0.0


def test_meanclf_kde_uses_an_independent_density_estimator():
    c = th.check_meanclf_kde(n_test=200)
    assert c.ok and set(np.unique(c.quantity)) == {-1.0, 1.0}


@pytest.mark.parametrize("fn, bad", [(th.check_meanclf_thm2, dict(form="cubed")), (th.check_meanclf_eq34, dict(form="min")),
                                     (th.check_meanclf_kde, dict(form="silverman")), (th.check_meanclf_thm4, dict(variant="x")),
                                     (th.check_meanclf_thm21_mc, dict(form="paper")), (th.check_meanclf_lemma7, dict(form="strict"))])
def test_meanclf_bad_forms(fn, bad):
    with pytest.raises(ValueError, match="must be"):
        fn(**bad)


def test_meanclf_thm22_regular_tetrahedron_by_hand():
    # d = 3, circumradius 1: edge² = 2(d+1)/d = 8/3; centroid to edge midpoint √(1 − 2/3) = √(1/3); ε₁ = 1 (the
    # circumscribed ball); m = 4 uses all vertices (distance 0), ε₂ = half an edge = √(8/3)/2
    c = th.check_meanclf_thm22(dims=(3,), ms=(2, 4))
    assert c.quantity == pytest.approx([np.sqrt(1 / 3), 0.0], abs=1e-12)
    assert c.bound == pytest.approx([1.0, np.sqrt(2) * np.sqrt(8 / 3) / 2 / 2], rel=1e-12)
    assert 0.70 < float(np.max(th.check_meanclf_thm22().quantity / th.check_meanclf_thm22().bound)) < 0.71
    with pytest.raises(ValueError, match="m must be even"):
        th.check_meanclf_thm22(ms=(3,))


def test_alpha_lemma2_tails_by_hand():
    # α = 2, N = 2: B(x) = σ'(x)(σ(−x)^{−½} − 2σ(x)^{−½}); at x = 200 this is ≈ e^{−200}·e^{100} = e^{−100}
    c = th.check_alpha_lemma2("4-5", alphas=(2.0,), Ns=(2.0,))
    assert c.ok and c.quantity[0] == pytest.approx(np.exp(-100.0), rel=1e-6)
    assert not th.check_alpha_lemma2("4-5", alphas=(1.0,), Ns=(2.0,), form="all_alpha").ok   # α = 1: B(200) → 1
