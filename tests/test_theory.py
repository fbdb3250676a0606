"""Theorem checks that can fail: each check of `robust_ref.theory` holds as stated on its test bed, and fails under
the plausible errors listed in the issue (bound × 0.9, a term deleted or rescaled, the paper's printed form)."""
import numpy as np
import pytest

from robust_ref import checks
from robust_ref import theory as th
from robust_ref.theory import rmboost as th_rmboost


@pytest.fixture(scope="module")
def bed():
    return th.rmboost_bed()


# ---- RMBoost Theorem 2 (11), (12) -------------------------------------------------------------------------------
@pytest.mark.parametrize("form", ["11", "12"])
def test_rmboost_thm2_holds_and_every_term_is_needed(bed, form):
    c = th.check_rmboost_thm2(bed, form=form)
    assert c.ok and c.n_failures == 0
    assert c.min_relative_slack < 0.01                   # attained at μ = μ_o on the clean population setting
    tab = c.term_table()
    assert tab.needed.all(), tab


@pytest.mark.parametrize("form", ["11", "12"])
@pytest.mark.parametrize("mutation", [dict(scale=0.9), dict(drop="noise"), dict(drop="ε_est"), dict(drop="λ"),
                                      dict(drop="ε_opt"), dict(drop="R(μo)"),
                                      dict(factors={k: 0.5 for k in ("ε_opt", "ε_est", "noise", "λ")}),
                                      dict(factors={"noise": -1.0})])
def test_rmboost_thm2_fails_under_mutation(bed, form, mutation):
    assert not th.check_rmboost_thm2(bed, form=form, **mutation).ok


def test_rmboost_thm2_12_needs_the_variance_term_not_only_P(bed):
    # (12) with 2P in place of 2√Var would be a different (valid-looking) statement; deleting √Var must fail
    c = th.check_rmboost_thm2(bed, form="12", settings=["aligned ∞"], drop="noise")
    assert not c.ok


# ---- RMBoost Theorem 3 (15) -------------------------------------------------------------------------------------
def test_rmboost_thm3_holds_and_every_term_is_needed(bed):
    c = th.check_rmboost_thm3(bed)
    assert c.ok and c.min_relative_slack < 0.05
    assert c.term_table().needed.all()


@pytest.mark.parametrize("mutation", [dict(scale=0.9), dict(drop="noise"), dict(drop="ε_approx"), dict(drop="ε_opt"),
                                      dict(drop="ε_est"), dict(drop="λ"), dict(drop="R_Bayes"),
                                      dict(factors={"ε_opt": 0.5, "noise": 0.5, "λ": 0.5, "ε_est": 0.5})])
def test_rmboost_thm3_fails_under_mutation(bed, mutation):
    assert not th.check_rmboost_thm3(bed, **mutation).ok


def test_rmboost_thm3_poor_mu_B_is_really_poor(bed):
    mu_B, eps = th.bayes_representation(bed, "poor")
    assert eps == pytest.approx(2.0)                     # half a ±1 rule that errs somewhere: |±1 − (∓1)| = 2
    assert th.bayes_representation(bed, "exact")[1] < 1e-9


# ---- RMBoost Theorem 4 (deterministic core), Theorem 8 ----------------------------------------------------------
def test_rmboost_thm4_core_holds_and_2P_is_needed():
    c = th.check_rmboost_thm4()
    assert c.ok and c.min_relative_slack < 1e-9
    tab = c.term_table()
    assert tab.loc[["R^(k)", "ε_est", "noise"], "needed"].all()
    assert not th.check_rmboost_thm4(factors={"noise": 0.5}).ok       # 2P → P
    assert not th.check_rmboost_thm4(scale=0.9).ok
    assert not th.check_rmboost_thm4(drop="ε_est").ok


def test_rmboost_thm8_holds_and_fails_printed_and_halved():
    c = th.check_rmboost_thm8()
    assert c.ok and c.term_table().needed.all()
    assert not th.check_rmboost_thm8(factors={"ε_base": 0.5}).ok
    assert not th.check_rmboost_thm8(form="printed").ok             # the paper's extra 1/n
    assert not th.check_rmboost_thm8(scale=0.9).ok


def test_column_generation_path_reaches_the_full_lp(bed):
    # exact pricing stops only when no rule prices out: then R equals the full-LP optimum (Step-5 certificate)
    from robust_ref.rmboost import rmboost_full_lp
    idx, y = th_rmboost._bed_sample(bed, bed.world.eta, 60, 0)
    Phi = bed.H[idx]
    last = list(th.column_generation_path(Phi, y, 0.05, n_rounds=200))[-1]
    assert np.max(np.abs(Phi.T @ last[4])) <= 0.05 + 1e-9
    assert last[3] == pytest.approx(rmboost_full_lp(Phi, y, 0.05)[1], abs=1e-8)


# ---- robust trees Theorem 4 --------------------------------------------------------------------------------------
def test_trees_thm4_exact_tail_against_a_direct_sum():
    from scipy import stats
    # P(ñ_1 < 50) for counts (60, 40), η = 0.2, by a double sum over the two binomials (independent of the convolution)
    a, b = stats.binom(60, 0.8), stats.binom(40, 0.2)
    direct = sum(a.pmf(i) * b.pmf(j) for i in range(61) for j in range(41) if i + j < 50)
    from robust_ref.theory.trees import _p_majority_lost_binary
    assert _p_majority_lost_binary((60, 40), 0.2) == pytest.approx(direct, rel=1e-12)


def test_trees_thm4_holds_and_fails_under_mutation():
    assert th.check_trees_thm4().ok
    assert not th.check_trees_thm4(form="no_half").ok
    assert not th.check_trees_thm4(form="clean_gamma").ok
    assert not th.check_trees_thm4(scale=0.05).ok      # Hoeffding is ≥ 9× the exact tail here: only gross scalings fail


def test_trees_thm4_proportions_from_the_formula_catch_a_wrong_sampler():
    assert th.check_trees_thm4_proportions().ok
    assert not th.check_trees_thm4_proportions(sampler_rate_factor=1.1).ok
    assert not th.check_trees_thm4_proportions(scale=0.99).ok
    assert not th.check_trees_thm4_proportions(drop="η/(K−1)").ok


# ---- the BoundCheck machinery ------------------------------------------------------------------------------------
def test_bad_mutation_arguments_are_clear_errors(bed):
    with pytest.raises(ValueError, match="unknown term 'nois'"):
        th.check_rmboost_thm2(bed, drop="nois")
    with pytest.raises(ValueError, match="scale must be a positive"):
        th.check_rmboost_thm2(bed, scale=0)
    with pytest.raises(ValueError, match="form must be '11' or '12'"):
        th.check_rmboost_thm2(bed, form="13")
    with pytest.raises(ValueError, match="form must be"):
        th.check_trees_thm4(form="printed")
    with pytest.raises(ValueError, match="n_k\\* > n_other"):
        th.check_trees_thm4(cases=(((40, 60), 0.2),))


def test_bound_check_arithmetic():
    c = checks._check("toy", ["a", "b"], [1.0, 2.0], {"x": [0.5, 1.0], "y": [0.6, 1.0]}, 1.0, (), None)
    assert c.ok and np.allclose(c.slack, [0.1, 0.0])
    assert c.term_table().needed.all()
    m = checks._check("toy", ["a", "b"], [1.0, 2.0], {"x": [0.5, 1.0], "y": [0.6, 1.0]}, 1.0, ("y",), {"x": 2.0})
    assert np.allclose(m.bound, [1.0, 2.0]) and m.ok and m.n_failures == 0
    assert not checks._check("toy", ["a"], [1.0], {"x": [1.0]}, 0.9, (), None).ok


# ---- Arch Boost Lemma 5(a), Lemma 8 ------------------------------------------------------------------------------
def test_archboost_lemma5a_exact_tail_and_range():
    c = th.check_archboost_lemma5a()
    assert c.ok
    assert not th.check_archboost_lemma5a(M_phi=2.0).ok          # M_φ = 2 instead of 2^γ
    assert not th.check_archboost_lemma5a(gamma=3.0, M_phi=4.0).ok  # M_φ of γ = 2 used for γ = 3
    assert th.check_archboost_lemma5a(gamma=3.0).ok
    assert not th.check_archboost_lemma5a(scale=0.2).ok


def test_archboost_lemma5a_tail_matches_a_direct_sum():
    from robust_ref.theory.archboost import _binom_upper_tail
    from math import comb
    n, kmin = 50, 30
    assert _binom_upper_tail(n, kmin) == pytest.approx(sum(comb(n, k) for k in range(kmin, n + 1)) / 2**n, rel=1e-12)


def test_archboost_lemma8_factor_two_is_needed():
    c = th.check_archboost_lemma8()
    assert c.ok and c.min_relative_slack < 0.1
    assert not th.check_archboost_lemma8(factors={"2·sup|R̂−R|": 0.5}).ok
    assert not th.check_archboost_lemma8(scale=0.9).ok


# ---- mean classifier Theorem 3 (quantile form), Theorem 19 (expectation form) -------------------------------------
@pytest.mark.parametrize("variant", ["paper", "derived", "derived_trueKL"])
def test_meanclf_thm3_holds_for_every_constant(variant):
    assert th.check_meanclf_thm3(variant=variant).ok


def test_meanclf_thm3_fails_when_scaled():
    assert not th.check_meanclf_thm3(scale=0.85).ok
    assert not th.check_meanclf_thm3(scale=0.2).ok              # the "bound ÷ 5"


def test_meanclf_gap_quantile_against_enumeration():
    from robust_ref.theory.mean_classifier import _gap_quantile_one_atom
    from scipy import stats
    n, eta, delta = 7, 0.6, 0.1
    vals = sorted(((2 * b / n - 1) * ((2 * b / n - 1) - (2 * eta - 1)), stats.binom.pmf(b, n, eta)) for b in range(n + 1))
    acc = 0.0
    for g, p in vals:
        acc += p
        if acc >= 1 - delta - 1e-12: break
    assert _gap_quantile_one_atom(n, eta, delta) == pytest.approx(g, abs=1e-15)


def test_meanclf_thm19_expectation_form():
    c = th.check_meanclf_thm19()
    assert c.ok and c.min_relative_slack < 0.01
    assert th.check_meanclf_thm19(kl="paper").ok
    assert not th.check_meanclf_thm19(kl="none").ok
    assert not th.check_meanclf_thm19(scale=0.9).ok
    with pytest.raises(ValueError, match="kl must be"):
        th.check_meanclf_thm19(kl="half")


# ---- α-loss: the noisy gradient and Theorem 2 ---------------------------------------------------------------------
def _gradient_p_dropped(theta, V, alpha, p):
    from robust_ref.alpha_loss import alpha_loss_derivative
    m = V @ theta
    return (1 - p) * alpha_loss_derivative(m, alpha, 1) @ V / V.shape[0]


def _gradient_sign_flipped(theta, V, alpha, p):
    from robust_ref.alpha_loss import alpha_loss_derivative
    m = V @ theta
    return ((1 - p) * alpha_loss_derivative(m, alpha, 1) + p * alpha_loss_derivative(-m, alpha, 1)) @ V / V.shape[0]


def test_alpha_gradient_matches_finite_differences_and_catches_bugs():
    assert th.check_alpha_gradient().ok
    assert not th.check_alpha_gradient(gradient=_gradient_p_dropped).ok
    assert not th.check_alpha_gradient(gradient=_gradient_sign_flipped).ok
    assert not th.check_alpha_gradient(scale=0.999).ok


def test_alpha_thm2_safe_form_holds_and_gross_errors_fail():
    c = th.check_alpha_thm2()
    assert c.ok and c.min_relative_slack < 0.95           # the left side reaches ~7% of the bound
    assert not th.check_alpha_thm2(scale=0.05).ok          # the issue's × 0.01 passed on the old test bed


# ---- RMBoost (13) ------------------------------------------------------------------------------------------------
def test_rmboost_eq13_corrected_holds_printed_fails():
    assert th.check_rmboost_eq13().ok
    assert th.check_rmboost_eq13(form="vc").ok
    printed = th.check_rmboost_eq13(form="printed")
    assert not printed.ok
    assert "n=1000 δ=1e-06" in [l for l, s in zip(printed.labels, printed.slack) if s < 0]
    assert not th.check_rmboost_eq13(scale=0.7).ok
    assert not th.check_rmboost_eq13(drop="deviation").ok


def test_summary_table_reports_caught_mutations():
    sub = {k: th.CHECKS[k] for k in ("RMBoost (13)", "Arch Boost Lemma 5(a)", "Mean classifier Theorem 19 (E form)")}
    t = th.summary_table(sub)
    assert t.holds.all() and t.all_caught.all()
    assert t.loc["RMBoost (13)", "mutations_that_fail"] == "printed constant, bound × 0.7"
    # a mutation that cannot fail is reported as not caught
    weak = {"Arch Boost Lemma 5(a)": th.RegisteredCheck(th.check_archboost_lemma5a, {}, "bed", {"bound × 0.9": dict(scale=0.9)},
                                                        "lem-archboost-5")}
    assert not th.summary_table(weak).all_caught.iloc[0]


# ---- Arch Boost Theorem 2 ----------------------------------------------------------------------------------------
def test_archboost_thm2_sharp_condition():
    c = th.check_archboost_thm2()
    assert c.ok and len(c.quantity) >= 6
    assert not th.check_archboost_thm2(relax=1.05).ok
    assert not th.check_archboost_thm2(relax=1.5).ok


def test_archboost_thm2_condition_agrees_with_chapter_function():
    from robust_ref.theory.archboost import breakdown_condition
    for a in (0.95, 0.99, 1.01, 1.1):
        for o in (0.2, 1.0, 3.0):
            y, w, out = np.array([1.0, -1.0, 1.0]), np.array([a, 1.0, o]), np.array([False, False, True])
            p = (a + o) / (a + 1 + o)
            assert breakdown_condition(y, w, np.zeros(3, int), out) == (o <= (p - 0.5) / (1 - p) * (a + 1))


# ---- Arch Boost Theorem 4 / Corollary 1: rate with growing T_n ---------------------------------------------------
def test_archboost_thm4_rate_growing_T_passes_fixed_T_fails():
    c = th.check_archboost_thm4_rate()
    assert c.ok and np.all(c.quantity < -0.3)              # measured −0.62 (φ) and −0.57 (0-1)
    assert not th.check_archboost_thm4_rate(T=15).ok      # the approximation error of 15 rounds does not vanish


# ---- mean classifier Theorem 21 (expectation form) ---------------------------------------------------------------
def test_meanclf_thm21_mixture_is_exercised_and_log_k_is_needed():
    c = th.check_meanclf_thm21()
    assert c.ok
    picked_B = [float(l.split("w.p. ")[1].rstrip(")")) for l in c.labels]
    assert min(picked_B) >= 0.3 and max(picked_B) <= 0.7     # both maps are selected: the mixture matters
    assert th.check_meanclf_thm21(kl="paper").ok
    assert not th.check_meanclf_thm21(kl="no_log_k").ok
    assert not th.check_meanclf_thm21(kl="none").ok


# ---- RMBoost Table 4 against Table 3 -----------------------------------------------------------------------------
TABLE4_ERRS = ["RMBoost delta_adversarial_20", "RMBoost delta_uniform_20", "Robust-GBDT delta_uniform_20",
               "XGB-Quad delta_adversarial_10", "XGB-Quad delta_adversarial_20"]


def test_rmboost_table4_recomputation_by_hand():
    # Robust-GBDT at 20% uniform noise, from the published Table 3 rows directly (independent of the pivot code)
    from robust_ref.datasets import published_table
    t3 = published_table("rmboost", 3)
    g = t3[t3.method == "Robust-GBDT"].set_index(["noise", "rate", "dataset"])["mean"]
    by_hand = float(np.mean([g[("uniform", 0.2, d)] - g[("none", 0.0, d)] for d in t3.dataset.unique()]))
    rec, env = th.rmboost_table4_from_table3()
    assert rec.loc["Robust-GBDT", "delta_uniform_20"] == pytest.approx(by_hand, abs=1e-12)
    assert rec.loc["Robust-GBDT", "delta_uniform_20"] == pytest.approx(0.625, abs=1e-12)
    assert "Minimax" not in rec.index and len(rec) == 9
    assert np.allclose(rec["avg_rank_clean"].sum(), 9 * 10 / 2)      # ranks of 9 methods always sum to 45 per dataset


def test_rmboost_table4_rank_ties_are_averaged_and_rounding_envelope():
    t3 = __import__("pandas").DataFrame(dict(
        dataset=["a"] * 3 + ["a"] * 3, noise=["none"] * 3 + ["uniform"] * 3, rate=[0.0] * 3 + [0.1] * 3,
        method=["A", "B", "C"] * 2, mean=[10.0, 10.0, 30.0, 12.0, 11.0, 33.0]))
    with pytest.raises(ValueError, match="no rows for noise='uniform', rate=0.2"):
        th.rmboost_table4_from_table3(t3)
    t3 = __import__("pandas").concat([t3] + [t3.iloc[3:].assign(noise=n, rate=r)
                                            for n, r in (("uniform", 0.2), ("adversarial", 0.1), ("adversarial", 0.2))])
    rec, env = th.rmboost_table4_from_table3(t3)
    assert rec.avg_rank_clean.tolist() == [1.5, 1.5, 3.0]            # A and B tie
    assert env.avg_rank_clean.tolist() == [0.5, 0.5, 0.0]            # the tie could go either way; C is surely last
    assert rec.delta_uniform_10.tolist() == [2.0, 1.0, 3.0]
    assert env.delta_uniform_10.tolist() == [1.0, 1.0, 1.0]          # ±0.5 on each of two 2-digit entries ≥ 10


def test_rmboost_table4_published_disagrees_beyond_rounding_recomputed_passes():
    c = th.check_rmboost_table4("published")
    assert not c.ok and c.n_failures == 5
    assert sorted(l.split(":")[0] for l, s in zip(c.labels, c.slack) if s < 0) == TABLE4_ERRS
    worst = c.labels[int(np.argmin(c.slack))]
    assert worst.startswith("Robust-GBDT delta_uniform_20: 3.75 vs 0.62")
    consistent = th.check_rmboost_table4("recomputed")
    assert consistent.ok
    # the published table with its five bad entries replaced by the recomputation is consistent too
    from robust_ref.datasets import published_table
    rec = th.rmboost_table4_from_table3()[0]
    fixed = published_table("rmboost", 4).set_index("method")
    for lab in TABLE4_ERRS:
        m, col = lab.split(" ")
        fixed.loc[m, col] = round(rec.loc[m, col], 2)
    assert th.check_rmboost_table4(fixed).ok


@pytest.mark.parametrize("mutate", ["adv20 × 0.9", "sign", "one entry = printed", "rank + 2"])
def test_rmboost_table4_check_fails_on_inconsistent_tables(mutate):
    rec = th.rmboost_table4_from_table3()[0].round(2)
    if mutate == "adv20 × 0.9": rec["delta_adversarial_20"] *= 0.9
    elif mutate == "sign": rec["delta_uniform_10"] *= -1
    elif mutate == "one entry = printed": rec.loc["Robust-GBDT", "delta_uniform_20"] = 3.75
    else: rec.loc["RMBoost", "avg_rank_clean"] += 2.0               # 5.31 > the highest rank rounding allows (4.75)
    assert not th.check_rmboost_table4(rec).ok


def test_rmboost_table4_bad_input():
    with pytest.raises(ValueError, match="table4 must be 'recomputed', 'published'"):
        th.check_rmboost_table4("printed")
    with pytest.raises(TypeError, match="table4 must be"):
        th.check_rmboost_table4(3)
    rec = th.rmboost_table4_from_table3()[0]
    with pytest.raises(ValueError, match="lacks \\['delta_uniform_10'\\]"):
        th.check_rmboost_table4(rec.drop(columns="delta_uniform_10"))
    with pytest.raises(ValueError, match="table3 must be a DataFrame"):
        th.rmboost_table4_from_table3(rec)


# ---- lemmas and closed-form identities ---------------------------------------------------------------------------
def test_alpha_lemma1_derivatives_and_slips():
    from robust_ref.theory.alpha_loss import _third_sign_flipped
    assert th.check_alpha_lemma1().ok
    assert not th.check_alpha_lemma1(scale=0.99).ok
    assert not th.check_alpha_lemma1(derivative=_third_sign_flipped).ok

    def beta_for_beta_plus_one(z, a, k):             # second derivative of α-loss with α ↦ α + 1 (a wrong exponent)
        from robust_ref.alpha_loss import alpha_loss_derivative
        return alpha_loss_derivative(z, a + 1.0 if k == 2 else a, k)
    assert not th.check_alpha_lemma1(alphas=(2.0,), derivative=beta_for_beta_plus_one).ok


def test_alpha_lemma1_against_closed_forms_at_alpha_1():
    # α = 1 is the logistic loss log(1 + e^{−z}): l' = −σ(−z), l'' = σ(z)σ(−z), l''' = σσ(−z)(σ(−z) − σ)  (by hand)
    from robust_ref.alpha_loss import alpha_loss_derivative
    z = np.linspace(-5, 5, 11); s = 1 / (1 + np.exp(-z))
    assert np.allclose(alpha_loss_derivative(z, 1.0, 1), -(1 - s), atol=1e-14)
    assert np.allclose(alpha_loss_derivative(z, 1.0, 2), s * (1 - s), atol=1e-14)
    assert np.allclose(alpha_loss_derivative(z, 1.0, 3), s * (1 - s) * (1 - 2 * s), atol=1e-14)


def test_alpha_lemma3_ratio_is_tanh_and_mutations_fail():
    c = th.check_alpha_lemma3()
    assert c.ok and c.min_relative_slack < 1e-9                  # ratio → 1 as |z| → ∞
    nz = np.abs(c.terms["|l̃¹ ′′|"]) > 1e-200
    from robust_ref.theory.alpha_loss import _TAIL
    z = np.r_[-_TAIL[::-1], 0.0, _TAIL]                   # the default grid
    assert np.allclose((c.quantity / c.terms["|l̃¹ ′′|"])[nz], np.abs(np.tanh(z / 2))[nz], rtol=1e-9)
    assert not th.check_alpha_lemma3(scale=0.9).ok
    assert not th.check_alpha_lemma3(form="swapped").ok


def test_alpha_lemma4_domain_matters():
    c = th.check_alpha_lemma4()
    assert c.ok and c.min_relative_slack < 1e-9                  # equality at the crossing ±ln 2
    assert not th.check_alpha_lemma4(scale=0.9).ok
    assert not th.check_alpha_lemma4(form="all_z").ok
    with pytest.raises(ValueError, match="\\|z\\| ≥ ln 2"):
        th.check_alpha_lemma4(zs=(0.5, 1.0))


def test_trees_lemma9_equality_case_and_hypothesis_needed():
    c = th.check_trees_lemma9()
    assert c.ok and c.min_relative_slack < 1e-12
    assert not th.check_trees_lemma9(scale=0.9).ok
    assert not th.check_trees_lemma9(form="no_sum_condition").ok
    with pytest.raises(ValueError, match="form must be"):
        th.check_trees_lemma9(form="printed")


def test_meanclf_thm20_two_point_is_tight():
    c = th.check_meanclf_thm20()
    assert c.ok and c.term_table().needed.all()
    # at q = ½, ‖μ‖ = 1 the left side is β − β³/12 + O(β⁵): log cosh β / β + β/2 (by hand)
    b = 0.05
    i = c.labels.index(f"β={b:g} q=0.5 ‖μ‖=1")
    assert c.quantity[i] == pytest.approx(np.log(np.cosh(b)) / b + b / 2, rel=1e-12)
    for mut in (dict(scale=0.9), dict(drop="β‖φ‖²/2"), dict(drop="β(b−a)²/8"), dict(factors={"β(b−a)²/8": 0.5})):
        assert not th.check_meanclf_thm20(**mut).ok
    assert th.check_meanclf_thm20(part="ii").ok
    assert not th.check_meanclf_thm20(part="ii", scale=0.9).ok
    with pytest.raises(ValueError, match="part must be"):
        th.check_meanclf_thm20(part="iii")


def test_archboost_lemma7_attained_and_positive_side_too_small():
    c = th.check_archboost_lemma7()
    assert c.ok and c.min_relative_slack < 1e-9
    assert not th.check_archboost_lemma7(scale=0.9).ok
    assert not th.check_archboost_lemma7(form="positive_side").ok
    # Δ by hand for γ = 2 (φ = 4(1 + e^v)^{−2}), ζ = 1: 4 − 4(1 + e^{−1})^{−2}
    i = c.labels.index("γ=2 ζ=1")
    assert c.terms["Δ(ζ)"][i] == pytest.approx(4 - 4 / (1 + np.exp(-1.0))**2, rel=1e-12)


def test_trees_thm1_closed_forms_are_the_minima():
    c = th.check_trees_thm1()
    assert c.ok and len(c.quantity) == 240
    assert not th.check_trees_thm1(scale=0.9).ok
    assert not th.check_trees_thm1(factors={"entropy": 1 / np.log(2)}).ok             # entropy in bits
    assert not th.check_trees_thm1(factors={"2·misclassification (MAE)": 0.5}).ok      # MAE's factor 2 dropped
    assert not th.check_trees_thm1(drop="Gini").ok
    # by hand: p = (½, ½): Gini ½, entropy ln 2, misclassification ½, MAE 1
    from robust_ref.theory.trees import _simplex_loss
    from robust_ref.trees import impurity_entropy, impurity_gini, impurity_misclassification
    p = np.array([0.5, 0.5])
    assert (impurity_gini(p), impurity_misclassification(p)) == (0.5, 0.5)
    assert impurity_entropy(p) == pytest.approx(np.log(2), rel=1e-15)
    with pytest.raises(ValueError, match="unknown loss 'hinge'"):
        _simplex_loss("hinge", np.eye(2))


def test_checks_registry_covers_the_new_results():
    for k in ("RMBoost Table 4 vs Table 3", "α-loss Lemma 1", "α-loss Lemma 3", "α-loss Lemma 4", "Trees Theorem 1",
              "Trees Lemma 9", "Mean classifier Theorem 20 (i)", "Mean classifier Theorem 20 (ii)", "Arch Boost Lemma 7"):
        assert k in th.CHECKS
    sub = {k: th.CHECKS[k] for k in ("RMBoost Table 4 vs Table 3", "α-loss Lemma 4", "Arch Boost Lemma 7")}
    t = th.summary_table(sub)
    assert t.holds.all() and t.all_caught.all()


def test_alpha_thm3_corrected_is_attained_printed_fails():
    c = th.check_alpha_thm3()
    assert c.ok and c.min_relative_slack < 1e-9 and c.term_table().needed.all()
    assert not th.check_alpha_thm3(form="printed").ok
    assert not th.check_alpha_thm3(scale=0.9).ok
    assert not th.check_alpha_thm3(drop="spread").ok
    # the paper's counterexample, by hand: X ≡ 1, θ = 0, α = 1, p = ¼: ‖∇R‖ = (1 − 2p)/2 = ¼ < (18)'s 1 − χ = ¾
    from robust_ref.theory.alpha_loss import linear_noisy_risk_gradient, theorem3_chi
    assert np.linalg.norm(linear_noisy_risk_gradient([0.0], np.ones((1, 1)), 1, 0.25)) == pytest.approx(0.25, abs=1e-12)
    assert 1 - theorem3_chi(1, 0.25, 1e-9) == pytest.approx(0.75, abs=1e-6)
    with pytest.raises(ValueError, match="form must be 'corrected' or 'printed'"):
        th.check_alpha_thm3(form="18")


def test_trees_lemma10_and_thm5_equivalences_and_mutations():
    assert th.check_trees_lemma10().ok
    assert not th.check_trees_lemma10(form="union").ok
    assert th.check_trees_thm5("a").ok and th.check_trees_thm5("b").ok
    assert not th.check_trees_thm5("a", form="union").ok
    assert not th.check_trees_thm5("b", form="conservative").ok
    # by hand: n_L = (2, 1), n_R = (1, 2): the parent (3, 3) has both classes as majority, the children keep only one
    # each, so RR = (6 − 3) − (3 − 2) − (3 − 2) = 1 > 0 and M_S = {0, 1} ⊄ M_L ∩ M_R = ∅
    c = th.check_trees_thm5("a", m=3, k=2)
    i = c.labels.index("n_L=(2, 1) n_R=(1, 2)")
    assert c.quantity[i] == 0 and c.terms["condition"][i] == 0
    with pytest.raises(ValueError, match="form must be one of \\('stated', 'conservative'\\) for part 'b'"):
        th.check_trees_thm5("b", form="union")


def test_meanclf_thm6_identity_and_strict_convention_fails():
    c = th.check_meanclf_thm6()
    assert c.ok
    assert not th.check_meanclf_thm6(form="strict").ok
    assert not th.check_meanclf_thm6(scale=0.9).ok
    # by hand, the paper's one-point case: f = 0, η = ½: strict ℓ_ε = 1 but the max of the strict ℓ01 over the band is ½
    s = th.check_meanclf_thm6(eps_values=(0.1,), M=5, form="strict")
    assert s.quantity[0] > s.bound[0]
    with pytest.raises(ValueError, match="form must be 'stated' or 'strict'"):
        th.check_meanclf_thm6(form="open")


def test_trees_thm8_ne_impurity():
    c = th.check_trees_thm8()
    assert c.ok and c.min_relative_slack > -1e-12
    assert not th.check_trees_thm8(form="lambda_e").ok
    assert not th.check_trees_thm8(form="no_half").ok
    assert not th.check_trees_thm8(scale=0.9).ok
    # by hand: μ = 0 (λ = 2), p₊ = ½: inf = ½ (CL), since λ√(½·½ ·2 /2) = 1 > ½
    i = th.check_trees_thm8(mus=(0.0,), p_pos=(0.5,))
    assert i.quantity[0] == pytest.approx(0.5, abs=1e-12) and i.bound[0] == pytest.approx(0.5, abs=1e-12)
