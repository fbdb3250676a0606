"""robust_ref.archboost: scikit-learn compatibility, Algorithms 1–2 against independent reference loops,
the class-probability estimate, breakdown / influence / curvature quantities against closed forms, bad input."""
import pickle
import warnings

import numpy as np
import pytest

from conftest import tree_boosting_expected_failures
from hypothesis import given, settings, strategies as st
from scipy.special import expit, logit
from sklearn.base import clone
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from robust_ref.archboost import (ARBGamma, ArchBoost, ArchBoostClassifier, arb_default_step, arch_hypothesis,
                                  clipped_logit, link_rate, solve_hypothesis)
from robust_ref.baselines import RealAdaBoostClassifier
from robust_ref.datasets import make_hastie
from robust_ref.losses import GammaRobustLoss, TwoRobustLoss, get_loss
from robust_ref.theory.archboost import (breakdown_condition, breakdown_fraction, clean_descent, curvature_at_minimizer,
                                         fit_rkhs_population, influence_bound, influence_function_rkhs, lemma6_bound,
                                         outlier_breaks_direction, _gauss_kernel)


def _estimators():
    yield ARBGamma()                                                    # the defaults are checked too
    yield ArchBoostClassifier()
    yield ARBGamma(n_estimators=8)
    yield ARBGamma(gamma=1.5, n_estimators=5, base_learner="tree", max_depth=2, random_state=0)
    yield ArchBoostClassifier(n_estimators=8)
    yield ArchBoostClassifier(loss="exponential", step="line_search", n_estimators=4)
    yield ArchBoostClassifier(loss="squared", step=0.5, n_estimators=4)
    yield ArchBoostClassifier(loss="truncated_exponential", step=0.8, n_estimators=5)


@parametrize_with_checks(list(_estimators()), expected_failed_checks=tree_boosting_expected_failures)
def test_sklearn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check(estimator)


@pytest.fixture(scope="module")
def small():
    X, y = make_hastie(120, random_state=3)
    Xt, _ = make_hastie(200, random_state=4)
    return X, y, Xt


def _ref_arb_trees(X, y, gamma, alpha, T, seed, depth=1, clip=1e-4):
    "Algorithm 2 written out: sklearn trees, p̃ = (1−c)p + c/2, h = logit p̃, w = e^v(1+e^v)^{−γ−1}."
    rng = np.random.default_rng(seed)                    # the engine's TreeLearner draws one seed per tree like this
    F, w, trees = np.zeros(len(y)), np.full(len(y), 1 / len(y)), []
    for _ in range(T):
        w = w / w.sum()
        tree = DecisionTreeClassifier(max_depth=depth, random_state=int(rng.integers(0, 2**31 - 1))).fit(X, y, sample_weight=w)
        trees.append(tree)
        p = tree.predict_proba(X)[:, list(tree.classes_).index(1)]
        F = F + alpha * logit((1 - clip) * p + clip / 2)
        v = y * F
        w = np.exp(v - (gamma + 1) * np.logaddexp(0, v))
    return F, trees


@pytest.mark.parametrize("gamma,alpha,depth", [(2.0, 0.45, 1), (1.5, 0.78, 2), (4.0, 0.2, 2)])
def test_arb_gamma_matches_reference_loop_with_trees(small, gamma, alpha, depth):
    X, y, Xt = small
    m = ARBGamma(gamma=gamma, n_estimators=25, base_learner="tree", max_depth=depth, random_state=7).fit(X, y)
    F, trees = _ref_arb_trees(X, y, gamma, alpha, 25, 7, depth)
    np.testing.assert_allclose(m.decision_function(X), F, rtol=1e-10, atol=1e-10)
    Ft = sum(alpha * logit(0.9999 * t.predict_proba(Xt)[:, 1] + 0.00005) for t in trees)
    np.testing.assert_allclose(m.decision_function(Xt), Ft, rtol=1e-10, atol=1e-10)
    assert m.estimator_weights_.tolist() == [alpha] * 25


def _best_real_stump(X, y, w):
    "Brute force: the split minimising Σ_leaves √(W₊W₋) over every feature and midpoint; leaf p = weighted share."
    best = None
    for j in range(X.shape[1]):
        xs = np.unique(X[:, j])
        for thr in (xs[:-1] + xs[1:]) / 2:
            r = X[:, j] > thr
            Z = sum(np.sqrt(w[m & (y > 0)].sum() * w[m & (y < 0)].sum()) for m in (~r, r))
            if best is None or Z < best[0] - 1e-15:
                best = (Z, j, thr, w[~r & (y > 0)].sum() / w[~r].sum(), w[r & (y > 0)].sum() / w[r].sum())
    return best[1:]


def test_arch_boost_stumps_match_brute_force_loop():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3)); y = np.where(X[:, 0] + 0.5 * rng.normal(size=40) > 0, 1, -1)
    g, alpha, T = 2.0, 0.3, 12
    m = ArchBoostClassifier(loss="two_robust", step=alpha, n_estimators=T).fit(X, y)   # exact h = logit p̃ / (γ−1)
    F = np.zeros(40)
    for t in range(T):
        v = y * F
        w = np.exp(v - 3 * np.logaddexp(0, v)); w /= w.sum()
        j, thr, pl, pr = _best_real_stump(X, y, w)
        lo = logit(0.9999 * np.where(X[:, j] > thr, pr, pl) + 0.00005)
        F = F + alpha * lo / (g - 1)
        assert m.estimators_[t].base.feature == j
    np.testing.assert_allclose(m.decision_function(X), F, rtol=1e-9, atol=1e-9)


def test_least_squares_arch_boost_replays_F():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(50, 2)); y = np.where(X[:, 1] > 0.2, 1, -1)
    y[:5] *= -1
    m = ArchBoostClassifier(loss="squared", step=0.7, n_estimators=10, base_learner="tree", random_state=2).fit(X, y)
    Xt = rng.normal(size=(30, 2))
    F, Ft = np.zeros(50), np.zeros(30)
    rs = np.random.default_rng(2)
    for t in range(m.n_estimators_):
        v = y * F
        w = 2 * (1 - v); assert np.all(w > 0); w /= w.sum()
        tree = DecisionTreeClassifier(max_depth=1, random_state=int(rs.integers(0, 2**31 - 1))).fit(X, y, sample_weight=w)
        for Z, G in ((X, F), (Xt, Ft)):
            C = 2 * (0.9999 * tree.predict_proba(Z)[:, 1] + 0.00005) - 1
            G += 0.7 * C * (1 - G**2) / (1 + C * G)
    np.testing.assert_allclose(m.decision_function(X), F, atol=1e-10)
    np.testing.assert_allclose(m.decision_function(Xt), Ft, atol=1e-10)
    assert np.all(np.abs(Ft) < 1)
    np.testing.assert_allclose(m.predict_proba(Xt)[:, 1], (1 + Ft) / 2, atol=1e-12)


def test_exponential_arch_boost_is_real_adaboost(small):
    X, y, Xt = small
    a = ArchBoostClassifier(loss="exponential", step=0.8, n_estimators=30).fit(X, y)
    b = RealAdaBoostClassifier(n_estimators=30, learning_rate=0.8).fit(X, y)
    assert np.array_equal(a.decision_function(Xt), b.decision_function(Xt))
    np.testing.assert_allclose(a.predict_proba(Xt), b.predict_proba(Xt), atol=1e-15)


def test_probability_estimates(small):
    X, y, Xt = small
    for g in (1.5, 2.0, 3.0):
        m = ARBGamma(gamma=g, n_estimators=20).fit(X, y)
        P = m.predict_proba(Xt)
        assert np.all((P >= 0) & (P <= 1)) and np.allclose(P.sum(1), 1)
        np.testing.assert_allclose(P[:, 1], expit((g - 1) * m.decision_function(Xt)), atol=1e-15)
        assert np.array_equal(m.predict(Xt), m.classes_[(P[:, 1] > 0.5).astype(int)])
        # eq. (26) by brute-force products of the leaf probabilities
        num = np.ones(len(Xt)); den = np.ones(len(Xt))
        for r in m.estimators_:
            pt = expit(r.logit(Xt)); num *= pt; den *= 1 - pt
        np.testing.assert_allclose(m.product_proba(Xt)[:, 1], num / (num + den), rtol=1e-9)
        # with α ≡ 1/(γ−1) both estimates coincide (every round solves (13) exactly)
        m2 = ARBGamma(gamma=g, step=1 / (g - 1), n_estimators=20).fit(X, y)
        np.testing.assert_allclose(m2.predict_proba(Xt), m2.product_proba(Xt), atol=1e-10)
    staged = list(m.staged_predict_proba(Xt))
    np.testing.assert_allclose(staged[-1], m.predict_proba(Xt))


def test_monotone_risk_and_hardness_with_line_search(small):
    X, y, _ = small
    for loss in ("two_robust", GammaRobustLoss(gamma=1.5), "logistic"):
        m = ArchBoostClassifier(loss, step="line_search", n_estimators=20).fit(X, y)
        L = m.loss_
        risks = np.r_[L(0.0), m.train_risk_]
        assert np.all(np.diff(risks) <= 1e-12) and np.all(m.edges_ > 0)
        F = np.zeros(len(y))
        for a, r in zip(m.estimator_weights_, m.estimators_):
            h = r(X); F = F + a * h
            w = L.weight(y * F)
            assert abs(w @ (y * h)) / (w.sum() * np.sqrt(np.mean(h * h))) < 1e-6   # eq. (11) after an exact search


def test_determinism_and_pickle(small):
    X, y, Xt = small
    a = ARBGamma(n_estimators=15, base_learner="tree", max_depth=2, random_state=5).fit(X, y)
    b = ARBGamma(n_estimators=15, base_learner="tree", max_depth=2, random_state=5).fit(X, y)
    assert np.array_equal(a.decision_function(Xt), b.decision_function(Xt))
    c = pickle.loads(pickle.dumps(ArchBoostClassifier("squared", n_estimators=5).fit(X, y)))
    assert np.all(np.isfinite(c.decision_function(Xt)))
    assert clone(a).get_params() == a.get_params()


def test_default_steps():
    assert arb_default_step(2) == 0.45 and arb_default_step(1.5) == 0.78 and arb_default_step(6) == 0.10
    assert arb_default_step(1.3) == pytest.approx(1.5)
    X, y = make_hastie(60, random_state=0)
    assert ARBGamma(gamma=3.0, n_estimators=3).fit(X, y).estimator_weights_[0] == 0.28
    assert ARBGamma(gamma=3.0, exact_h=True, n_estimators=3).fit(X, y).estimator_weights_[0] == pytest.approx(0.56)


@settings(max_examples=200, deadline=None)
@given(st.floats(-5, 5), st.floats(0.001, 0.999), st.sampled_from(["exponential", "logistic", "two_robust", "savage"]))
def test_hypothesis_solves_eq13(F, p, name):
    h = float(arch_hypothesis(name, F, p, clip=0))
    assert np.sign(h) == np.sign(p - 0.5)
    assert h == pytest.approx(solve_hypothesis(name, F, p), abs=1e-8)


@settings(max_examples=100, deadline=None)
@given(st.floats(-0.95, 0.95), st.floats(0.01, 0.99))
def test_ls_hypothesis_solves_eq13(F, p):
    h = float(arch_hypothesis("squared", F, p, clip=0))
    assert h == pytest.approx(solve_hypothesis("squared", F, p), abs=1e-8)
    assert abs(F + h) < 1


def test_breakdown_fraction_closed_forms():
    M = np.array([0.0, 1.0, 5.0, 30.0])
    q = 0.8
    np.testing.assert_allclose(breakdown_fraction("exponential", M, q), 0.6 / (0.6 + np.exp(M)), rtol=1e-12)
    np.testing.assert_allclose(breakdown_fraction("logistic", M, q), 0.3 / (0.3 + expit(M)), rtol=1e-12)
    w2 = lambda v: np.exp(v) / (1 + np.exp(v))**3
    np.testing.assert_allclose(breakdown_fraction("two_robust", M, q), 0.6 * w2(0) / (0.6 * w2(0) + w2(-M)), rtol=1e-12)
    assert breakdown_fraction("exponential", 1e6) == 0 and breakdown_fraction("two_robust", 1e6) == 1
    eps = np.linspace(0, 0.99, 100)
    for name in ("exponential", "logistic", "two_robust"):
        e = breakdown_fraction(name, 2.0)
        assert np.array_equal(outlier_breaks_direction(name, eps, 2.0), eps > e)


def test_breakdown_condition_theorem2_random():
    rng = np.random.default_rng(3)
    held = 0
    for _ in range(3000):
        n, J = rng.integers(5, 40), rng.integers(1, 4)
        y = np.where(rng.random(n) < 0.5, 1.0, -1.0); reg = rng.integers(0, J, n)
        out = rng.random(n) < rng.uniform(0, 0.5); w = rng.exponential(size=n)
        P = {j: w[(reg == j) & (y > 0)].sum() / w[reg == j].sum() for j in np.unique(reg)}
        if any(p in (0, 1) for p in P.values()): continue
        h = logit(np.array([P[j] for j in reg]))
        if breakdown_condition(y, w, reg, out):
            held += 1
            assert clean_descent(y, w, h, out) >= -1e-12
        brute = sum(y[i] * w[i] * h[i] for i in range(n) if not out[i])
        assert clean_descent(y, w, h, out) == pytest.approx(brute, abs=1e-10)
    assert held > 200


def test_curvature_closed_forms():
    p = np.linspace(0.01, 0.99, 99)
    np.testing.assert_allclose(curvature_at_minimizer(TwoRobustLoss(), p), 8 * p**2 * (1 - p)**2, atol=1e-13)
    for g in (1.5, 3.0, 6.0):
        assert curvature_at_minimizer(GammaRobustLoss(gamma=g), 0.5) == pytest.approx(g * (g - 1) / 4, rel=1e-12)
    # exponential: F* = ½ logit p, φ'' = e^{−v}: c(p) = 2√(p(1−p))
    np.testing.assert_allclose(curvature_at_minimizer("exponential", p), 2 * np.sqrt(p * (1 - p)), rtol=1e-12)


def test_influence_function_vs_finite_difference_and_bound():
    x = np.linspace(-4, 4, 21); pi = np.full(21, 1 / 21); p = expit(2 * x)
    for name in ("two_robust", "exponential"):
        L, lam = get_loss(name), 1e-2
        beta = fit_rkhs_population(L, x, pi, p, lam)
        for zx, zy in ((0.7, -1), (-2.1, 1), (3.1, 1)):   # off the atoms (a repeated point makes K singular)
            norm, c, fz = influence_function_rkhs(L, x, pi, p, lam, zx, zy, beta=beta)
            assert norm <= influence_bound(L, lam, zy * fz)
            eps = 1e-6
            be = fit_rkhs_population(L, np.r_[x, zx], np.r_[(1 - eps) * pi, eps], np.r_[p, float(zy > 0)], lam)
            d = (be - np.r_[beta, 0]) / eps - c
            K = _gauss_kernel(np.r_[x, zx], np.r_[x, zx], 1.0)
            assert np.sqrt(d @ K @ d) / norm < 1e-2
    # the exponential IF grows with a more negative margin; the bound's second term vanishes for ARB-2
    assert influence_bound("two_robust", 1e-3, -40.0) == pytest.approx(np.sqrt(1 / 1e-3), rel=1e-12)


def test_lemma6_bound_values():
    b = lemma6_bound(np.array([1e3, 1e12, 1e18]))
    np.testing.assert_allclose(b, [70.16, 2.798, 0.1606], rtol=2e-3)


def test_link_rates():
    assert link_rate("exponential") == 2 and link_rate("logistic") == 1 and link_rate("savage") == 2
    assert link_rate(GammaRobustLoss(gamma=3.0, a=2.0)) == 4 and link_rate("truncated_exponential") == 2
    assert link_rate("squared") is None


def test_finite_at_huge_margins():
    X, y = make_hastie(50, random_state=1)
    s = ArchBoost(GammaRobustLoss(gamma=1.5), 0.5)
    s.start(np.where(y > 0, 1.0, -1.0), np.full(50, 1 / 50))
    for F in (np.full(50, 1e6), np.full(50, -1e6), np.where(np.arange(50) % 2, 1e6, -1e6)):
        w = s.weights(F)
        assert np.all(np.isfinite(w)) and w.sum() == pytest.approx(1) and np.isfinite(s.risk(F))
    assert np.all(np.isfinite(arch_hypothesis("two_robust", np.array([-1e6, 1e6]), np.array([0.0, 1.0]))))
    assert np.isfinite(clipped_logit(np.array([0.0, 1.0]))).all()


G, S = r"gamma must be (> 1|a finite real number|in \(1, 1000\])", "'step' parameter must be"


@pytest.mark.parametrize("est,match", [
    (ARBGamma(gamma=1.0), G), (ARBGamma(gamma=0.5), G), (ARBGamma(gamma=np.nan), G), (ARBGamma(gamma=True), G),
    (ARBGamma(gamma=1024.0), G), (ARBGamma(step=0), S), (ArchBoostClassifier(step=-1), S),
    (ArchBoostClassifier(step="auto"), S), (ArchBoostClassifier(step=np.inf), S),
    (ArchBoostClassifier(loss="sigmoid"), "not an Arch"), (ArchBoostClassifier(loss="hinge"), "not an Arch"),
    (ArchBoostClassifier(loss="nope"), "unknown loss"), (ArchBoostClassifier("squared", step=2.0), "step ≤ 1"),
    (ArchBoostClassifier(step="schedule", schedule_power=0), "schedule_power"),
    (ArchBoostClassifier(n_estimators=0), "n_estimators"), (ArchBoostClassifier(proba_clip=1.5), "proba_clip")])
def test_bad_parameters(est, match):
    X, y = make_hastie(30, random_state=0)
    with pytest.raises(ValueError, match=match): est.fit(X, y)


def test_bad_inputs():
    X, y = make_hastie(30, random_state=0)
    Xn = X.copy(); Xn[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"): ARBGamma().fit(Xn, y)
    with pytest.raises(ValueError, match="NaN"): ARBGamma(n_estimators=2).fit(X, y).predict(Xn)
    with pytest.raises(ValueError, match="q must"): breakdown_fraction("two_robust", 1.0, q=0.5)
    for bad in (-0.1, 1.0, np.nan):
        with pytest.raises(ValueError, match=r"\[0, 1\)"): outlier_breaks_direction("logistic", bad, 1.0)
    with pytest.raises(ValueError, match="strictly inside"): curvature_at_minimizer("logistic", 0.0)
    with pytest.raises(ValueError, match="probabilities"): clipped_logit(np.array([0.5, np.nan]))
    with pytest.raises(ValueError, match="probabilities"): arch_hypothesis("logistic", 0.0, 1.2)
    with pytest.raises(ValueError, match="lam"): fit_rkhs_population("logistic", [0.0], [1.0], [0.5], 0.0)
