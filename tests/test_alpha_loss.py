"""robust_ref.alpha_loss (Sypherd et al.): the α-loss calculus against independent closed forms and hand-computed reference
numbers, the theory helpers (Theorem 1, Lemma 2, Theorem 3), AdaBoostAlpha (α=½ ≡ AdaBoost, an independent
reference loop for α≠½) and AlphaLogisticRegression (α=1 ≡ scikit-learn), scikit-learn compatibility, bad input."""
import math
import pickle
import warnings

import numpy as np
import pytest

from conftest import tree_boosting_expected_failures
from hypothesis import given, settings, strategies as st
from scipy.special import expit
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from robust_ref.alpha_loss import (AdaBoostAlpha, AlphaBoost, AlphaLogisticRegression, alpha_inverse_link, alpha_link,
                                   alpha_loss, alpha_loss_derivative, check_alpha, convexity_region, giving_up_weight,
                                   weight_peak)
from robust_ref.theory.alpha_loss import (B_alpha, linear_noisy_risk_gradient, ls2d_clean_accuracy, ls2d_minimize,
                                          ls2d_noisy_risk, ls2d_noisy_risk_grad, theorem2_bound, theorem3_bounds,
                                          theorem3_chi)
from robust_ref.baselines import AdaBoostClassifier
from robust_ref.datasets import make_long_servedio


# ---------- independent reference formulas (written from the paper, not from the module) ----------

def naive_loss(z, a):
    "Definition 1 written out literally (accurate for moderate |z|)."
    z = np.asarray(z, float)
    if a == 1: return np.log1p(np.exp(-z))
    if np.isinf(a): return 1 / (1 + np.exp(z))
    return a / (a - 1) * (1 - (1 / (1 + np.exp(-z))) ** (1 - 1 / a))


def naive_d1(z, a):
    "(20): −σ'(z) σ(z)^{−1/α}."
    z = np.asarray(z, float)
    with np.errstate(over="ignore"):
        s, sm = 1 / (1 + np.exp(-z)), 1 / (1 + np.exp(z))      # σ(z), σ(−z) without cancellation
    return -s * sm * (s ** (0.0 if np.isinf(a) else -1 / a))


def paper_d2(z, a):
    "(21), exponential form."
    e = np.exp(np.asarray(z, float))
    return e * (a * e - a + 1) * (1 + 1 / e) ** (1 / a) / (a * (e + 1) ** 3)


def paper_d3(z, a):
    "(22), exponential form."
    e = np.exp(np.asarray(z, float))
    return e * (1 + 1 / e) ** (1 / a) * (a**2 * (-e**2 + 4 * e - 1) - 3 * a * e + 2 * a - 1) / (a**2 * (e + 1) ** 4)


ALPHAS = [0.3, 0.5, 0.77, 1, 1.44, 2, 5, 100, np.inf]

# ---------- the loss and Lemma 1 ----------

# Definition 1 of Sypherd et al. (margin-based α-loss), evaluated by hand: α: (l(-5), l(-1), l(0), l'(-5), l'(-1), l'(0))
TABLE = {0.3: (50768.406, 8.7510, 1.7313, -117667.77, -15.6585, -2.5198),
         0.5: (148.4132, 2.7183, 1.0, -148.4132, -2.7183, -1.0),
         0.77: (11.5889, 1.6081, 0.7701, -4.4318, -1.0822, -0.6150),
         1: (5.0067, 1.3133, 0.6931, -0.9933, -0.7311, -0.5),
         1.44: (2.5639, 1.0817, 0.6247, -0.2151, -0.4894, -0.4046),
         np.inf: (0.9933, 0.7311, 0.5, -0.0066, -0.1966, -0.25)}


@pytest.mark.parametrize("a", list(TABLE))
def test_reference_table(a):
    z = np.array([-5.0, -1.0, 0.0])
    ref = np.array(TABLE[a])
    np.testing.assert_allclose(alpha_loss(z, a), ref[:3], rtol=2e-4, atol=6e-5)   # printed to 4-5 digits
    np.testing.assert_allclose(alpha_loss_derivative(z, a, 1), ref[3:], rtol=2e-4, atol=6e-5)


@pytest.mark.parametrize("a", [0.3, 0.5, 0.77, 1, 1.44, 3, 20])
def test_lemma1_closed_forms(a):
    z = np.linspace(-8, 8, 161)
    np.testing.assert_allclose(alpha_loss(z, a), naive_loss(z, a), rtol=1e-12)
    np.testing.assert_allclose(alpha_loss_derivative(z, a, 1), naive_d1(z, a), rtol=1e-12)
    np.testing.assert_allclose(alpha_loss_derivative(z, a, 2), paper_d2(z, a), rtol=1e-9, atol=1e-13)
    np.testing.assert_allclose(alpha_loss_derivative(z, a, 3), paper_d3(z, a), rtol=1e-9, atol=1e-13)


def test_lemma1_special_cases():
    z = np.linspace(-8, 8, 161)
    e = np.exp(z)
    np.testing.assert_allclose(alpha_loss_derivative(z, np.inf, 2), e * (e - 1) / (e + 1) ** 3, atol=1e-15)
    np.testing.assert_allclose(alpha_loss_derivative(z, np.inf, 3), (-e**3 + 4 * e**2 - e) / (e + 1) ** 4, atol=1e-15)
    np.testing.assert_allclose(alpha_loss_derivative(z, 1, 3), (e - e**2) / (e + 1) ** 3, atol=1e-15)
    for k in (1, 2, 3):
        np.testing.assert_allclose(alpha_loss_derivative(z, 0.5, k), (-1) ** k * np.exp(-z), rtol=1e-14)


@settings(max_examples=60, deadline=None)
@given(z=st.floats(-30, 30), a=st.sampled_from(ALPHAS), k=st.sampled_from([1, 2, 3]))
def test_derivatives_match_finite_differences(z, a, k):
    h = 1e-5
    f = (lambda x: alpha_loss(x, a)) if k == 1 else (lambda x: alpha_loss_derivative(x, a, k - 1))
    fd = (f(z + h) - f(z - h)) / (2 * h)
    exact = alpha_loss_derivative(z, a, k)
    scale = max(1.0, abs(float(f(z))), abs(float(exact)))
    assert abs(fd - exact) <= 1e-6 * scale * (1e3 if a < 1 else 1)


@pytest.mark.parametrize("a", [0.3, 0.5, 0.77, 1, 1 + 1e-9, 1.5, 2, 10, 100, 1e12, np.inf])
def test_extreme_margins(a):
    big = np.array([-1e6, 1e6])
    L, d1 = alpha_loss(big, a), alpha_loss_derivative(big, a, 1)
    assert not np.isnan(L).any() and not np.isnan(d1).any()
    assert L[1] == 0 and d1[1] == 0
    if a >= 1:
        b = 1.0 if np.isinf(a) else 1 - 1 / a
        expected = 1e6 if a == 1 else -math.expm1(-b * 1e6) / b        # log σ(−1e6) = −1e6 exactly
        assert math.isfinite(L[0]) and abs(L[0] - expected) <= 1e-12 * expected
        assert d1[0] == pytest.approx(-math.exp(-b * 1e6), abs=1e-300)
        for k in (2, 3): assert np.all(np.isfinite(alpha_loss_derivative(big, a, k)))
    else:   # the true value e^{(1/α−1)·1e6} exceeds float64: inf, never NaN
        assert np.isinf(L[0]) and np.isinf(d1[0])


def test_limits_in_alpha():
    z = np.linspace(-8, 8, 161)
    assert np.max(np.abs(alpha_loss(z, 1e9) - alpha_loss(z, np.inf))) <= 1e-8
    assert np.max(np.abs(alpha_loss(z, 1 + 1e-8) - alpha_loss(z, 1))) <= 1e-8 * 40
    assert np.max(np.abs(alpha_loss(z, 1 - 1e-8) - alpha_loss(z, 1))) <= 1e-8 * 40


# ---------- Proposition 1, weights, link ----------

@pytest.mark.parametrize("a,z0", [(1.44, -1.1856), (2, -0.6931), (3, -0.4055), (10, -0.1054), (np.inf, 0.0)])
def test_convexity_region(a, z0):
    lo = convexity_region(a)[0]
    assert lo == pytest.approx(z0, abs=1e-4) and weight_peak(a) == lo
    assert paper_d2(lo - 0.01, a if np.isfinite(a) else 1e12) < 0 < paper_d2(lo + 0.01, a if np.isfinite(a) else 1e12)


def test_convex_for_alpha_at_most_one():
    z = np.linspace(-50, 50, 20001)
    for a in (0.3, 0.5, 0.77, 1):
        assert convexity_region(a) == (-math.inf, math.inf) and weight_peak(a) == -math.inf
        assert alpha_loss_derivative(z, a, 2).min() >= -1e-15


def test_weight_ratios():
    ref = {0.5: (148.41, 22026.5), 1: (1.987, 2.000), 2: (0.230, 0.0191), 5: (0.0630, 0.00117), np.inf: (0.0266, 0.000182)}
    for a, r in ref.items():
        w = giving_up_weight(np.array([-5.0, -10.0, 0.0]), a)
        np.testing.assert_allclose(w[:2] / w[2], r, rtol=3e-3)
        np.testing.assert_allclose(w, -naive_d1([-5.0, -10.0, 0.0], a), rtol=1e-12)


def test_link_and_inverse_link():
    eta = np.array([0.1, 0.5, 0.6, 0.95])
    for a in (0.5, 1, 2, 7):
        np.testing.assert_allclose(alpha_link(eta, a), a * np.log(eta / (1 - eta)), rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(alpha_inverse_link(a * np.log(eta / (1 - eta)), a), eta, rtol=1e-12)
    assert np.array_equal(alpha_link(np.array([0.3, 0.5, 0.7]), np.inf), [-np.inf, 0.0, np.inf])
    with pytest.raises(ValueError, match="no finite link"): alpha_inverse_link([0.0], np.inf)


# ---------- Lemma 2, Theorem 1, Theorem 3 ----------

def test_lemma2_sign_change_and_limit():
    x = np.linspace(-60, 60, 120_001)
    for a in (1.1, 2, 3, 10):
        B = B_alpha(x, a, 2)
        ch = x[np.flatnonzero(np.diff(np.sign(B)))]
        assert len(ch) == 1 and abs(ch[0] - a * math.log(2)) <= 1e-3
        assert np.diff(B).min() < 0
    for a in (0.5, 1): assert np.diff(B_alpha(x, a, 2)).min() >= -1e-15
    s = expit(x)
    assert np.max(np.abs(B_alpha(x, 1e8, 2) - s * (1 - s) * (1 - 2))) < 1e-7


def test_ls2d_risk_matches_paper_eq26_and_gradient():
    g, N = 1 / 20, 2.0
    for th in ([0.3, -1.2], [41.0, 0.5], [-3.0, 7.0]):
        t1, t2 = th
        l = lambda z: naive_loss(z, 3)
        eq26 = (N * l(t1) + l(-t1) + 2 * N * l(g * (t1 - t2)) + 2 * l(-g * (t1 - t2))
                + N * l(g * (t1 + 5 * t2)) + l(-g * (t1 + 5 * t2)))
        assert 4 * (N + 1) * ls2d_noisy_risk(th, 3) == pytest.approx(eq26, rel=1e-12)
        fd = [(ls2d_noisy_risk(np.add(th, e), 3) - ls2d_noisy_risk(np.subtract(th, e), 3)) / 2e-6 for e in np.eye(2) * 1e-6]
        np.testing.assert_allclose(ls2d_noisy_risk_grad(th, 3), fd, atol=1e-8)


def test_theorem1_quoted_optima():
    th1 = ls2d_minimize(1)                                   # convex: unique minimum
    np.testing.assert_allclose(th1, [0.78893, 1.41221], atol=1e-4)
    assert ls2d_clean_accuracy(th1) == 0.5
    th3 = ls2d_minimize(3, start=(3 * 20 * math.log(2), 0))
    assert th3[0] == pytest.approx(41.58883, abs=1e-4) and abs(th3[1]) < 1e-6
    assert ls2d_clean_accuracy(th3) == 1.0
    # α = 1.8: the good point is only a local minimum (fair-coin point has lower risk)
    good, bad = ls2d_minimize(1.8, start=(1.8 * 20 * math.log(2), 0)), ls2d_minimize(1.8)
    assert ls2d_clean_accuracy(good) == 1.0 and ls2d_clean_accuracy(bad) == 0.5
    assert ls2d_noisy_risk(bad, 1.8) < ls2d_noisy_risk(good, 1.8)
    # α = 1.1: no good stationary point — BFGS from the claimed optimum leaves the perfect region
    assert ls2d_clean_accuracy(ls2d_minimize(1.1, start=(1.1 * 20 * math.log(2), 0))) == 0.5


def test_theorem3_printed_fails_corrected_holds():
    # a one-point counterexample to Theorem 3 as printed: X ≡ 1, θ = 0, α = 1, p = 1/4
    g = np.linalg.norm(linear_noisy_risk_gradient([0.0], [[1.0]], 1, 0.25))
    assert g == pytest.approx(0.25, abs=1e-12)
    b = theorem3_bounds(1, 0.25, 1e-9, 1.0, 1.0)
    assert g < b["printed"] and g >= b["corrected"] - 1e-12
    # χ closed forms (19)
    for p, rho in ((0.1, 0.2), (0.3, 0.05)):
        assert theorem3_chi(1, p, rho) == pytest.approx(expit(rho) - p, rel=1e-12)
        assert theorem3_chi(np.inf, p, rho) == pytest.approx((1 - 2 * p) * (1 - expit(rho) * expit(-rho)), rel=1e-12)
    # a grid value worked out independently: p=0.2, r=0.1, α=1: min ‖∇R‖ ≈ 0.218 < printed 0.508, corrected ≈ 0.206
    rng = np.random.default_rng(0)
    X1 = np.column_stack([rng.uniform(0.2, 1, 20_000), rng.uniform(0.1, 0.9, 20_000)])
    nm, mn = np.linalg.norm(X1.mean(0)), np.linalg.norm(X1, axis=1).mean()
    ang = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    thetas = np.vstack([[0, 0], 0.05 * np.column_stack([np.cos(ang), np.sin(ang)]), 0.1 * np.column_stack([np.cos(ang), np.sin(ang)])])
    gmin = min(np.linalg.norm(linear_noisy_risk_gradient(t, X1, 1, 0.2)) for t in thetas)
    b = theorem3_bounds(1, 0.2, 0.1 * math.sqrt(2), nm, mn)
    assert gmin == pytest.approx(0.218, abs=3e-3) and b["printed"] == pytest.approx(0.508, abs=3e-3)
    assert b["corrected"] <= gmin < b["printed"]


def test_theorem2_bound_closed_form():
    z, p, d, r = 2.0, 0.2, 3, 5.0
    s = expit(z)
    d2_1, d3_1 = s * (1 - s), abs(math.exp(z) - math.exp(2 * z)) / (math.exp(z) + 1) ** 3
    assert theorem2_bound(1, p, d, r, z) == pytest.approx(2 * (math.sqrt(d) * r * d2_1 + d * r**2 * d3_1), rel=1e-12)
    d2_i = abs(math.exp(z) * (math.exp(z) - 1) / (math.exp(z) + 1) ** 3)
    assert theorem2_bound(np.inf, p, d, r, z) == pytest.approx((2 - 4 * p) * (math.sqrt(d) * r * d2_i + d * r**2 * d3_1), rel=1e-12)
    with pytest.raises(ValueError, match="alpha in"): theorem2_bound(2, p, d, r, z)


# ---------- AdaBoostAlpha ----------

def _breast():
    X, y = load_breast_cancer(return_X_y=True)
    return X, y


@pytest.mark.parametrize("kw", [{}, {"criterion": "gini"}, {"base_learner": "tree", "max_depth": 2, "random_state": 3}])
def test_adaboost_alpha_half_is_adaboost(kw):
    X, y = _breast()
    ours, ada = AdaBoostAlpha(0.5, n_estimators=60, **kw).fit(X, y), AdaBoostClassifier(n_estimators=60, **kw).fit(X, y)
    assert ours.n_estimators_ == ada.n_estimators_
    for r1, r2 in zip(ours.estimators_, ada.estimators_):          # the same rules
        if kw.get("base_learner") == "tree":
            t1, t2 = r1.tree, r2.tree                                   # the builder's Tree (feature, threshold, value)
            assert np.array_equal(t1.feature, t2.feature) and np.array_equal(t1.threshold, t2.threshold)
            assert np.array_equal(t1.value, t2.value)
        else:
            assert repr(r1) == repr(r2)
    np.testing.assert_allclose(ours.estimator_weights_, ada.estimator_weights_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.decision_function(X), ada.decision_function(X), rtol=0, atol=1e-10)
    assert np.array_equal(ours.predict(X), ada.predict(X))


def _reference_adaboost_alpha(X, y_pm, a, T, step="half"):
    "Algorithm 1 written out with scikit-learn stumps (gini) and the literal weights σ'(z)σ(z)^{-1/α}."
    H, rules, thetas = np.zeros(len(y_pm)), [], []
    for _ in range(T):
        z = y_pm * H
        s = expit(z)
        D = s * (1 - s) * s ** (-1 / a); D = D / D.sum()
        tree = DecisionTreeClassifier(max_depth=1, random_state=0).fit(X, y_pm, sample_weight=D)
        h = tree.predict(X)
        eps = D[h != y_pm].sum()
        th = 0.5 * np.log((1 - eps) / eps) if step == "half" else a * np.log((1 - eps) / eps)
        H = H + th * h; rules.append(tree); thetas.append(th)
    return H, np.array(thetas)


@pytest.mark.parametrize("a,step", [(1, "closed_form"), (2, "closed_form"), (1.5, "alpha_log")])
def test_adaboost_alpha_matches_reference_algorithm_1(a, step):
    X, y = _breast()
    X = X.astype(np.float32).astype(np.float64)
    y_pm = np.where(y == 1, 1.0, -1.0)
    ref_H, ref_th = _reference_adaboost_alpha(X, y_pm, a, 25, "half" if step == "closed_form" else "alog")
    ours = AdaBoostAlpha(a, n_estimators=25, step=step, criterion="gini").fit(X, y)
    np.testing.assert_allclose(ours.estimator_weights_, ref_th, rtol=1e-9)
    # the same rule on the training points up to split-threshold ties (equal-error stumps on a float32 midpoint)
    close = np.isclose(ours.decision_function(X), ref_H, rtol=1e-9, atol=1e-9)
    assert close.mean() >= 0.995, close.mean()


def test_weights_are_normalised_minus_derivative():
    rng = np.random.default_rng(0)
    y, F = np.where(rng.random(50) < 0.5, -1.0, 1.0), rng.normal(0, 10, 50)
    for a in (0.5, 1, 3, np.inf):
        s = AlphaBoost(a); s.start(y, np.full(50, 1 / 50))
        w = -naive_d1(y * F, a) if a != 0.5 else np.exp(-y * F)
        np.testing.assert_allclose(s.weights(F), w / w.sum(), rtol=1e-10, atol=1e-300)


def test_line_search_step_minimises_risk():
    X, y = make_long_servedio(300, version="21", random_state=0)
    clf = AdaBoostAlpha(3, n_estimators=5, step="line_search").fit(X, y)
    H = np.zeros(len(y)); yp = np.where(y == clf.classes_[1], 1.0, -1.0)
    for th, r in zip(clf.estimator_weights_, clf.estimators_):
        h = r(X)
        grid = np.linspace(0, 50, 20001)
        risks = [naive_loss(yp * (H + t * h), 3).mean() for t in grid]
        assert naive_loss(yp * (H + th * h), 3).mean() <= min(risks) + 1e-9
        H = H + th * h


def test_giving_up_on_long_servedio():
    Xtr, ytr = make_long_servedio(800, version="21", random_state=10)
    Xte, yte = make_long_servedio(2000, version="21", random_state=11)
    rng = np.random.default_rng(12)
    yn = np.where(rng.random(len(ytr)) < 0.1, -ytr, ytr)
    acc = {a: AdaBoostAlpha(a, n_estimators=500).fit(Xtr, yn).score(Xte, yte) for a in (0.5, 2)}
    assert acc[0.5] < 0.8 < 0.9 < acc[2]


def test_stop_on_perfect_and_clipping():
    X = np.array([[0.0], [1.0], [2.0], [3.0]]); y = np.array([0, 0, 1, 1])
    stop = AdaBoostAlpha(2, n_estimators=5).fit(X, y)
    assert stop.n_estimators_ == 1 and stop.stop_reason_ == "perfect"
    go = AdaBoostAlpha(2, n_estimators=3, stop_on_perfect=False).fit(X, y)
    assert go.estimator_weights_[0] == pytest.approx(0.5 * math.log((1 - 1e-10) / 1e-10))


def test_predict_proba_links():
    X, y = _breast()
    for a in (0.5, 2):
        clf = AdaBoostAlpha(a, n_estimators=10).fit(X, y)
        H = clf.decision_function(X)
        np.testing.assert_allclose(clf.predict_proba(X)[:, 1], expit(H / a), rtol=1e-14)
        clf2 = clone(clf).set_params(proba_link="logistic").fit(X, y)
        np.testing.assert_allclose(clf2.predict_proba(X)[:, 1], expit(H), rtol=1e-14)
        last = list(clf.staged_predict_proba(X))[-1]
        np.testing.assert_allclose(last, clf.predict_proba(X))
    inf = AdaBoostAlpha(np.inf, n_estimators=5).fit(X, y)
    with pytest.raises(ValueError, match="no finite link"): inf.predict_proba(X)
    assert AdaBoostAlpha(np.inf, n_estimators=5, proba_link="logistic").fit(X, y).predict_proba(X).shape == (len(y), 2)


# ---------- AlphaLogisticRegression ----------

@pytest.mark.parametrize("C", [0.05, 1.0, 10.0])
def test_alpha_one_is_sklearn_logistic_regression(C):
    X, y = _breast()
    X = StandardScaler().fit_transform(X)
    ours = AlphaLogisticRegression(alpha=1, C=C, tol=1e-10, max_iter=5000).fit(X, y)
    sk = LogisticRegression(C=C, tol=1e-12, max_iter=20_000).fit(X, y)
    np.testing.assert_allclose(ours.coef_, sk.coef_, atol=1e-5)
    np.testing.assert_allclose(ours.intercept_, sk.intercept_, atol=1e-5)


def test_alpha_one_sample_weights_match_sklearn():
    X, y = make_classification(200, 5, random_state=1)
    s = np.random.default_rng(0).uniform(0.2, 3, 200)
    ours = AlphaLogisticRegression(alpha=1, C=0.5, tol=1e-10).fit(X, y, sample_weight=s)
    sk = LogisticRegression(C=0.5, tol=1e-12, max_iter=20_000).fit(X, y, sample_weight=s)
    np.testing.assert_allclose(ours.coef_, sk.coef_, atol=1e-5)


def test_alpha_lr_gradient_is_zero_at_solution_and_matches_fd():
    X, y = make_classification(300, 4, random_state=2)
    yp = np.where(y == 1, 1.0, -1.0)
    for a in (0.7, 2.0):
        m = AlphaLogisticRegression(alpha=a, C=2.0, tol=1e-10).fit(X, y)
        th = np.r_[m.coef_[0], m.intercept_]
        Z = np.hstack([X, np.ones((300, 1))])
        J = lambda t: 2.0 * naive_loss(yp * (Z @ t), a).sum() + 0.5 * np.sum(t[:4] ** 2)
        fd = np.array([(J(th + e) - J(th - e)) / 2e-6 for e in np.eye(5) * 1e-6])
        assert np.max(np.abs(fd)) < 1e-3 * (1 + np.abs(th).max())     # stationary (FD error ~1e-6·|J|)


def test_alpha_lr_gd_protocol_and_link():
    X, y = make_classification(400, 3, n_informative=2, n_redundant=0, random_state=3)
    gd = AlphaLogisticRegression(alpha=2, penalty=None, solver="gd", lr=0.5, max_iter=50, init="uniform01", random_state=4).fit(X, y)
    again = clone(gd).fit(X, y)
    assert np.array_equal(gd.coef_, again.coef_) and gd.n_iter_ == 50
    # the GD iterate equals a hand-written loop
    rng = np.random.default_rng(4); th = rng.uniform(0, 1, 4)
    Z, yp = np.hstack([X, np.ones((400, 1))]), np.where(y == 1, 1.0, -1.0)
    for _ in range(50): th = th - 0.5 * (naive_d1(yp * (Z @ th), 2) * yp) @ Z / 400
    np.testing.assert_allclose(np.r_[gd.coef_[0], gd.intercept_], th, rtol=1e-10)
    np.testing.assert_allclose(gd.predict_proba(X)[:, 1], expit(gd.decision_function(X) / 2), rtol=1e-14)


def test_alpha_inf_without_penalty_warns():
    X, y = make_classification(100, 3, n_redundant=0, random_state=0)
    with pytest.warns(UserWarning, match="no finite minimiser"):
        AlphaLogisticRegression(alpha=np.inf, penalty=None, max_iter=20).fit(X, y)


# ---------- scikit-learn compatibility, determinism, bad input ----------

def _estimators():
    yield AdaBoostAlpha()                                               # the defaults are checked too
    yield AdaBoostAlpha(2, n_estimators=8)
    yield AdaBoostAlpha(0.7, n_estimators=5, step="line_search")
    yield AdaBoostAlpha(3, n_estimators=5, base_learner="tree", max_depth=2, random_state=0)
    yield AlphaLogisticRegression()
    yield AlphaLogisticRegression(alpha=1, C=10.0, tol=1e-10)   # weights ≡ repetitions is checked to rtol 1e-7




@parametrize_with_checks(list(_estimators()), expected_failed_checks=tree_boosting_expected_failures)
def test_sklearn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check(estimator)


@pytest.mark.parametrize("make", [lambda: AdaBoostAlpha(2, n_estimators=20, base_learner="tree", max_depth=2, random_state=7),
                                  lambda: AlphaLogisticRegression(alpha=2, solver="gd", init="uniform01", random_state=7, max_iter=30)])
def test_determinism_and_pickle(make):
    X, y = make_classification(150, 5, random_state=0)
    a, b = make().fit(X, y), make().fit(X, y)
    assert np.array_equal(a.decision_function(X), b.decision_function(X))
    c = pickle.loads(pickle.dumps(a))
    assert np.array_equal(c.decision_function(X), a.decision_function(X))


@pytest.mark.parametrize("cls", [AdaBoostAlpha, AlphaLogisticRegression])
def test_bad_input(cls):
    X, y = make_classification(60, 4, random_state=0)
    for bad, msg in (("inf", "np.inf"), (0, r"\(0, inf\]"), (-1.0, r"\(0, inf\]"), (5e-324, "subnormal"), (np.nan, "finite|real"), (True, "real number")):
        with pytest.raises(ValueError, match=msg): cls(alpha=bad).fit(X, y)
    Xn = X.copy(); Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"): cls().fit(Xn, y)
    with pytest.raises(ValueError, match="binary"): cls().fit(X, np.arange(60) % 3)
    with pytest.raises(ValueError, match="single class"): cls().fit(X, np.zeros(60))
    with pytest.raises(ValueError, match="proba_link"): cls(proba_link="probit").fit(X, y)
    fitted = cls().fit(X, y)
    with pytest.raises(ValueError, match="features"): fitted.predict(X[:, :2])


def test_bad_parameters_specific():
    X, y = make_classification(60, 4, random_state=0)
    with pytest.raises(ValueError, match="finite alpha"): AdaBoostAlpha(np.inf, step="alpha_log").fit(X, y)
    with pytest.raises(ValueError, match="step"): AdaBoostAlpha(step="wolfe").fit(X, y)
    with pytest.raises(ValueError, match="stop_on_perfect"): AdaBoostAlpha(stop_on_perfect="yes").fit(X, y)
    with pytest.raises(ValueError, match="n_estimators"): AdaBoostAlpha(n_estimators=0).fit(X, y)
    for kw, msg in (({"C": 0}, "'C' parameter must"), ({"C": "1"}, "'C' parameter must"), ({"penalty": "l1"}, "penalty"), ({"solver": "sag"}, "solver"),
                    ({"max_iter": 0}, "max_iter"), ({"tol": -1}, "tol"), ({"lr": np.inf}, "lr"), ({"init": "normal"}, "init"),
                    ({"fit_intercept": "no"}, "fit_intercept")):
        with pytest.raises(ValueError, match=msg): AlphaLogisticRegression(**kw).fit(X, y)


def test_bad_input_functions():
    with pytest.raises(ValueError, match="np.inf"): check_alpha("inf")
    with pytest.raises(ValueError, match="NaN or inf"): alpha_loss([0.0, np.nan], 2)
    with pytest.raises(ValueError, match="NaN or inf"): alpha_loss_derivative([np.inf], 2, 2)
    with pytest.raises(TypeError, match="real numbers"): alpha_loss(["a"], 2)
    with pytest.raises(ValueError, match="order"): alpha_loss_derivative(0.0, 2, 0)
    with pytest.raises(ValueError, match="probability"): alpha_link([1.5], 2)
    with pytest.raises(ValueError, match="p \\(the symmetric"): ls2d_noisy_risk([1, 1], 2, p=0.5)
    with pytest.raises(ValueError, match="gamma"): ls2d_noisy_risk([1, 1], 2, gamma=0.2)
    with pytest.raises(ValueError, match="form"): theorem2_bound(1, 0.1, 2, 1.0, 2.0, form="other")
    with pytest.raises(ValueError, match="p \\(the symmetric"): linear_noisy_risk_gradient([0.0], [[1.0]], 1, -0.1)


def test_gd_divergence_and_non_convergence_warn():
    "solver='gd' used to diverge silently (|coef| up to 1e220) or stop at max_iter with no warning."
    from sklearn.exceptions import ConvergenceWarning
    X, y = make_classification(n_samples=200, n_features=4, n_informative=3, n_redundant=0, random_state=0)
    with pytest.warns(ConvergenceWarning, match=r"diverged: lr=1e\+06 is too large"):
        big = AlphaLogisticRegression(alpha=0.6, solver="gd", lr=1e6, max_iter=300).fit(X * 100, y)
    assert np.all(np.isfinite(big.coef_))                 # the last finite iterate is kept
    with pytest.warns(ConvergenceWarning, match=r"stopped at max_iter=3 with max \|gradient\|"):
        AlphaLogisticRegression(alpha=2, solver="gd", lr=1e-3, max_iter=3).fit(X, y)
    Xs = StandardScaler().fit_transform(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # converged: silent
        clf = AlphaLogisticRegression(alpha=1, solver="gd", lr=1.0, max_iter=5000, tol=1e-6).fit(Xs, y)
    assert clf.n_iter_ == 5000


def _heart_standardised():
    from robust_ref.datasets import load_dataset
    X, y = load_dataset("heart", return_X_y=True, missing="impute")
    return StandardScaler().fit_transform(X), y


def test_a_feature_too_small_for_the_penalty_is_held_at_zero_and_named():
    """Issue 36: with feature 0 × 1e-300 the L2 penalty's weight on its column-scaled coefficient, 1/(C Σs max|x₀|²),
    overflowed to inf; inf·0 made the objective NaN and L-BFGS stopped after one step with wrong coefficients on the
    twelve other features (training accuracy 0.822 instead of 0.852), with a bare 'divide by zero' RuntimeWarning.
    The penalised optimum of that coefficient is 0 to float precision: it is held there, the others are fitted as
    without the feature, and a FeatureScaleWarning names feature 0 and says to standardise."""
    from robust_ref.core import FeatureScaleWarning
    X, y = _heart_standardised()
    Xs = X.copy(); Xs[:, 0] *= 1e-300
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        a = AlphaLogisticRegression().fit(Xs, y)
    msgs = [f"{w.category.__name__}: {w.message}" for w in rec]
    assert len(msgs) == 1 and msgs[0].startswith("FeatureScaleWarning") and "feature 0 of X varies" in msgs[0], msgs
    assert "StandardScaler" in msgs[0]
    b = AlphaLogisticRegression().fit(X[:, 1:], y)
    assert a.coef_[0, 0] == 0
    np.testing.assert_allclose(a.coef_[0, 1:], b.coef_[0], rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(a.decision_function(Xs), b.decision_function(X[:, 1:]), rtol=1e-6, atol=1e-8)


def test_every_feature_too_small_for_the_penalty_warns_and_the_unpenalised_fit_is_scale_invariant():
    """Every feature × 1e-300: the penalised optimum is the intercept-only model (the penalty outweighs any use of the
    features), which predicted the majority class without a word; now a FeatureScaleWarning names every feature.
    Without a penalty the fit is scale invariant: no warning, the predictions of the unscaled data."""
    from robust_ref.core import FeatureScaleWarning
    X, y = _heart_standardised()
    with pytest.warns(FeatureScaleWarning, match=r"features 0, 1, 2, .* \(every feature\) of X vary"):
        a = AlphaLogisticRegression().fit(X * 1e-300, y)
    assert np.all(a.coef_ == 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        free = AlphaLogisticRegression(C=np.inf).fit(X * 1e-300, y)
        np.testing.assert_array_equal(free.predict(X * 1e-300), AlphaLogisticRegression(C=np.inf).fit(X, y).predict(X))
        AlphaLogisticRegression().fit(X, y)                          # a normal scale: silent
