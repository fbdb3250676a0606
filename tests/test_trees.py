"""robust_ref.trees: estimator checks, scikit-learn Gini equivalence, impurities vs brute force, vectorised split search
vs a naive loop, determinism, bad input."""
import pickle

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.optimize import minimize
from scipy.stats import entropy as scipy_entropy
from sklearn.base import clone
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from robust_ref.losses import get_loss
from robust_ref.trees import (CRITERIA, MarginLossImpurity, RobustForestClassifier, RobustTreeClassifier, credal_entropy,
                              criterion_params, gain_credal, gain_ranking, gain_twoing, get_criterion, impurity_entropy,
                              impurity_gce, impurity_gini, impurity_misclassification, impurity_ne, impurity_sqrt_gini,
                              split_gain)


def _forest_xfail(estimator):
    # Bootstrap draws rows, so weights ≠ repeated rows (scikit-learn's RandomForestClassifier has the same expected failure).
    if isinstance(estimator, RobustForestClassifier) and estimator.bootstrap:
        return {"check_sample_weight_equivalence_on_dense_data": "bootstrap samples rows: weights are not repetitions"}
    return {}


@parametrize_with_checks([RobustTreeClassifier(random_state=0), RobustTreeClassifier("gini", random_state=0),
                          RobustTreeClassifier("credal", max_leaf_nodes=6, random_state=0),
                          RobustForestClassifier(n_estimators=4, random_state=0),
                          RobustForestClassifier(n_estimators=3, criterion="cl", bootstrap=False, random_state=0)],
                         expected_failed_checks=_forest_xfail)
def test_sklearn_compatible(estimator, check):
    check(estimator)


# ---------------------------------------------------------------- scikit-learn equivalence of the Gini tree
def _partition(leaves):
    return {frozenset(np.flatnonzero(leaves == l)) for l in np.unique(leaves)}


def _data(seed, n=400, d=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32).astype(np.float64)     # scikit-learn's trees work in float32
    y = (X[:, 0] + 0.6 * X[:, 1] + rng.normal(size=n) > 0).astype(int) + (X[:, 2] > 1)
    return X, y, rng


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("kw", [{}, dict(min_samples_leaf=4), dict(max_depth=3), dict(max_leaf_nodes=10),
                                dict(min_samples_leaf=0.02)])
def test_gini_tree_has_sklearn_leaves(seed, kw):
    X, y, rng = _data(seed)
    w = rng.integers(1, 1000, len(y)).astype(float)                 # integer weights: exact counts, no gain ties
    ours = RobustTreeClassifier("gini", random_state=0, **kw).fit(X, y, sample_weight=w)
    ref = DecisionTreeClassifier(random_state=0, **kw).fit(X, y, sample_weight=w)
    assert _partition(ours.apply(X)) == _partition(ref.apply(X))
    assert ours.get_n_leaves() == ref.get_n_leaves() and ours.get_depth() == ref.get_depth()
    t = ref.tree_                                                    # the gains of the internal nodes (tie-invariant)
    inner = t.children_left != -1
    wi = t.weighted_n_node_samples * t.impurity
    ref_gain = wi[inner] - wi[t.children_left[inner]] - wi[t.children_right[inner]]
    our_gain = ours.tree_.gain[ours.tree_.children_left != -1]
    np.testing.assert_allclose(np.sort(our_gain), np.sort(ref_gain), rtol=1e-9, atol=1e-6)


def test_gini_tree_equals_sklearn_on_held_out_data_without_feature_ties():
    X, y, rng = _data(3, n=600)
    X1 = X[:, :1]                                                    # one feature: ties only between thresholds
    ours = RobustTreeClassifier("gini", random_state=0).fit(X1, y)
    ref = DecisionTreeClassifier(random_state=0).fit(X1, y)
    X_new = rng.normal(size=(4000, 1)).astype(np.float32).astype(np.float64)
    assert np.array_equal(ours.predict(X_new), ref.predict(X_new))
    np.testing.assert_allclose(ours.predict_proba(X_new), ref.predict_proba(X_new), atol=1e-12)
    np.testing.assert_array_equal(np.sort(ours.tree_.threshold[ours.tree_.feature >= 0]),
                                  np.sort(ref.tree_.threshold[ref.tree_.feature >= 0]))


# ---------------------------------------------------------------- impurities vs independent brute force
def _brute_min_risk(loss, p, rng, m=20000):
    "min over many simplex points of Σ_j p_j ℓ(ŷ, e_j)."
    K = len(p)
    Y = np.vstack([rng.dirichlet(0.5 * np.ones(K), size=m), np.eye(K), p[None]])
    return (loss(Y) @ p).min()


@pytest.mark.parametrize("K", [2, 3, 5])
def test_impurities_are_minimal_risks(K):
    rng = np.random.default_rng(K)
    losses = {"gini": (lambda Y: (Y ** 2).sum(1, keepdims=True) - 2 * Y + 1, impurity_gini),
              "entropy": (lambda Y: -np.log(np.maximum(Y, 1e-300)), impurity_entropy),
              "misclassification": (lambda Y: 1 - Y, impurity_misclassification),          # ℓ∞ on the simplex
              "gce": (lambda Y: (1 - Y ** 0.7) / 0.7, lambda c: impurity_gce(c, 0.7))}
    for p in rng.dirichlet(np.ones(K), size=8):
        for name, (loss, imp) in losses.items():
            best = _brute_min_risk(loss, p, rng)
            assert imp(p) <= best + 1e-10, name                       # the closed form is a lower bound ...
            assert best - imp(p) < 5e-3, name                         # ... and (up to candidate density) attained
        assert abs(impurity_entropy(p) - scipy_entropy(p)) < 1e-12


def test_ne_impurity_is_the_binary_ne_infimum():
    scores = np.concatenate([np.linspace(-40, 40, 80001)])
    for lam in (0.25, 0.5, 0.75, 1.0):
        mu = np.log(2 / lam)
        for p in np.linspace(0, 1, 23):
            risk = p * np.minimum(1, np.exp(-scores - mu)) + (1 - p) * np.minimum(1, np.exp(scores - mu))
            assert abs(impurity_ne(np.array([1 - p, p]), lam) - risk.min()) < 1e-6


def test_ne_limits_and_sqrt_gini_bound():
    rng = np.random.default_rng(0)
    for K in (2, 3, 7):
        c = rng.integers(0, 9, (3000, K)).astype(float)
        np.testing.assert_array_equal(impurity_ne(c, 1.0), impurity_misclassification(c))
        np.testing.assert_array_equal(impurity_ne(c, 0.0), impurity_sqrt_gini(c))
        assert np.all(impurity_sqrt_gini(c) >= impurity_misclassification(c) - 1e-9)
        W = c.sum(1)
        np.testing.assert_allclose(impurity_sqrt_gini(c), np.sqrt((W ** 2 - (c ** 2).sum(1)) * (K - 1) / K))


def test_credal_entropy_matches_slsqp():
    rng = np.random.default_rng(1)
    for c in rng.integers(0, 7, (15, 4)).astype(float):
        for s in (0.5, 1.0, 3.0):
            N = c.sum(); lo, hi = c / (N + s), (c + s) / (N + s)
            res = minimize(lambda q: np.sum(q * np.log(np.maximum(q, 1e-300))), (lo + hi) / 2, method="SLSQP",
                           bounds=list(zip(lo, hi)), constraints={"type": "eq", "fun": lambda q: q.sum() - 1},
                           options=dict(ftol=1e-15, maxiter=1000))
            assert abs(credal_entropy(c, s) - (-res.fun)) < 1e-6


def test_twoing_is_half_gini_for_two_classes_and_ranking_brute_force():
    rng = np.random.default_rng(2)
    L, R = rng.integers(1, 20, (500, 2)).astype(float), rng.integers(1, 20, (500, 2)).astype(float)
    np.testing.assert_allclose(gain_twoing(L, R, L + R), split_gain(get_criterion("gini"), L, R, L + R) / 2, rtol=1e-9, atol=1e-12)
    for l, r in zip(L[:60].astype(int), R[:60].astype(int)):
        pos_neg = lambda a, b: a[1] * b[0]                               # positives of a × negatives of b
        node = (l + r)
        brute = node[0] * node[1] / 2 - (l[0] * l[1] + r[0] * r[1]) / 2 - min(pos_neg(l, r), pos_neg(r, l))
        assert abs(gain_ranking(l.astype(float), r.astype(float), node.astype(float)) * node.sum() - brute) < 1e-9


def test_twoing_multiclass_formula():
    L, R = np.array([3., 1, 4]), np.array([1., 5, 2])
    pL, pR, nL, nR = L / L.sum(), R / R.sum(), L.sum(), R.sum()
    expected = (nL + nR) * nL * nR / (nL + nR) ** 2 * np.abs(pL - pR).sum() ** 2 / 4
    assert abs(gain_twoing(L, R, L + R) - expected) < 1e-12


@pytest.mark.parametrize("name", ["exponential", "logistic", "squared", "hinge"])
def test_margin_loss_impurity_closed_forms(name):
    p = np.linspace(0, 1, 301)
    exact = {"exponential": 2 * np.sqrt(p * (1 - p)), "logistic": scipy_entropy(np.stack([p, 1 - p])),
             "squared": 4 * p * (1 - p), "hinge": 2 * np.minimum(p, 1 - p)}[name]
    imp = MarginLossImpurity(get_loss(name))
    assert np.max(np.abs(imp(np.stack([1 - p, p], axis=1)) - exact)) < 2e-4


# ---------------------------------------------------------------- vectorised search vs a naive loop
def _naive_best_gain(X, y, w, rows, K, crit, params, msl):
    "Best gain over every feature and every midpoint threshold, by explicit loops."
    best = -np.inf
    T = np.bincount(y[rows], weights=w[rows], minlength=K)
    for f in range(X.shape[1]):
        vals = np.unique(X[rows, f])
        for t in (vals[:-1] + vals[1:]) / 2:
            left = rows[X[rows, f] <= t]; right = rows[X[rows, f] > t]
            if len(left) < msl or len(right) < msl: continue
            Lc = np.bincount(y[left], weights=w[left], minlength=K)
            best = max(best, float(split_gain(crit, Lc, T - Lc, T, **params)))
    return best


def _rows_of(tree, leaves, i):
    if tree.children_left[i] == -1: return np.flatnonzero(leaves == i)
    return np.concatenate([_rows_of(tree, leaves, tree.children_left[i]), _rows_of(tree, leaves, tree.children_right[i])])


def _check_against_naive(X, y, w, criterion, K, msl=1, max_depth=3, **kw):
    m = RobustTreeClassifier(criterion, max_depth=max_depth, min_samples_leaf=msl, random_state=0, **kw).fit(X, y, sample_weight=w)
    crit = get_criterion(criterion); params = criterion_params(crit, **kw)
    t, leaves = m.tree_, m.tree_.apply(X)
    for i in range(t.node_count):
        rows = _rows_of(t, leaves, i)
        rows = rows[w[rows] > 0]
        best = _naive_best_gain(X, y, w, rows, K, crit, params, msl)
        if t.children_left[i] != -1:                                     # an internal node took the best split ...
            assert abs(t.gain[i] - best) <= 1e-9 * max(1, abs(best)), (criterion, i, t.gain[i], best)
            left = _rows_of(t, leaves, t.children_left[i])
            assert np.all(X[left, t.feature[i]] <= t.threshold[i])
        elif t.depth[i] < max_depth and len(np.unique(y[rows])) > 1:     # ... and a leaf had none worth taking
            assert best <= 1e-10 * w[rows].sum() or not np.isfinite(best), (criterion, i, best)


@pytest.mark.parametrize("criterion", sorted(set(CRITERIA) - {"ane", "ranking"}))
def test_search_equals_naive_loop_multiclass(criterion):
    rng = np.random.default_rng(5)
    X = np.round(rng.normal(size=(90, 3)), 1)                            # rounding makes runs of equal values
    y = rng.integers(0, 3, 90)
    _check_against_naive(X, y, np.ones(90), criterion, 3, msl=2)


@pytest.mark.parametrize("criterion", ["ranking", "gini", "ne", "credal"])
def test_search_equals_naive_loop_binary_weighted(criterion):
    rng = np.random.default_rng(6)
    X = np.round(rng.normal(size=(80, 3)), 1)
    y = (X[:, 0] + rng.normal(size=80) > 0).astype(int)
    w = rng.integers(0, 4, 80).astype(float)                             # zero weights drop rows
    _check_against_naive(X, y, w, criterion, 2)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), K=st.integers(2, 4), crit=st.sampled_from(["gini", "cl", "ne", "entropy", "twoing"]))
def test_search_equals_naive_loop_property(seed, K, crit):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(8, 40))
    X = rng.integers(0, 4, (n, 2)).astype(float)
    y = rng.integers(0, K, n); y[:K] = np.arange(K)
    _check_against_naive(X, y, np.ones(n), crit, K, max_depth=2)


# ---------------------------------------------------------------- tree-level theory
def test_cl_tree_early_stopping_and_equivalences():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(250, 4)); y = np.digitize(X[:, 0] + 0.5 * X[:, 1] + 0.5 * rng.normal(size=250), [-0.5, 0.5])
    cl = RobustTreeClassifier("cl", random_state=1).fit(X, y)
    ne1 = RobustTreeClassifier("ne", lam=1.0, random_state=1).fit(X, y)
    for k in ("children_left", "feature", "threshold", "value"):
        np.testing.assert_array_equal(getattr(cl.tree_, k), getattr(ne1.tree_, k))
    # Theorem 5 (a): every impure leaf admits no split that changes a majority (naive gain 0, exact in integers)
    crit = get_criterion("cl"); leaves = cl.apply(X)
    for leaf in np.flatnonzero(cl.tree_.children_left == -1):
        rows = np.flatnonzero(leaves == leaf)
        if len(np.unique(y[rows])) > 1:
            assert _naive_best_gain(X, y, np.ones(len(y)), rows, 3, crit, {}, 1) == 0
    # Theorem 3: leaf prediction = majority
    for leaf in np.unique(leaves):
        assert cl.classes_[np.argmax(np.bincount(y[leaves == leaf], minlength=3))] == cl.predict(X[leaves == leaf][:1])[0]
    tiny = RobustTreeClassifier("ne", lam=0.5 / np.sqrt(len(y)), random_state=1).fit(X, y)
    sq = RobustTreeClassifier("sqrt_gini", random_state=1).fit(X, y)
    assert _partition(tiny.apply(X)) == _partition(sq.apply(X))


# ---------------------------------------------------------------- determinism, forests, ANE
def test_determinism_and_forest_parallel_equivalence():
    X, y, _ = _data(8, n=300)
    a = RobustTreeClassifier("ane", random_state=3).fit(X, y)
    b = RobustTreeClassifier("ane", random_state=3).fit(X, y)
    assert a.lam_ == b.lam_ and a.ane_scores_ == b.ane_scores_
    np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
    f1 = RobustForestClassifier(6, "gini", n_jobs=1, random_state=4).fit(X, y)
    f2 = RobustForestClassifier(6, "gini", n_jobs=2, random_state=4).fit(X, y)
    np.testing.assert_array_equal(f1.predict_proba(X), f2.predict_proba(X))
    np.testing.assert_allclose(f1.predict_proba(X), np.mean([e.predict_proba(X) for e in f1.estimators_], axis=0))
    assert f1.apply(X).shape == (len(y), 6)
    assert abs(f1.feature_importances_.sum() - 1) < 1e-12
    g = pickle.loads(pickle.dumps(f1))
    np.testing.assert_array_equal(g.predict(X), f1.predict(X))
    assert clone(f1).get_params() == f1.get_params()


def test_forest_prediction_in_one_pass_is_the_per_tree_sum_bit_for_bit():
    "One compiled pass over the packed trees = the trees' leaf values summed in tree order / n_trees, for any n_jobs."
    X, y, rng = _data(11, n=700)
    Xn = rng.normal(size=(1500, X.shape[1]))
    for K_y in (y, np.digitize(X[:, 0], [-0.5, 0.5])):                           # 2 and 3 classes
        f = RobustForestClassifier(7, "ne", lam=0.5, n_jobs=2, random_state=5).fit(X, K_y)
        ref = f.estimators_[0].tree_.value[f.estimators_[0].tree_.apply(Xn)].copy()
        for e in f.estimators_[1:]: ref += e.tree_.value[e.tree_.apply(Xn)]
        for jobs in (1, 2, -1):
            f.n_jobs = jobs
            np.testing.assert_array_equal(f.predict_proba(Xn), ref / 7)
            np.testing.assert_array_equal(f.apply(Xn), np.stack([e.tree_.apply(Xn) for e in f.estimators_], axis=1))
        f.estimators_ = f.estimators_[:3]                                         # a changed forest is packed afresh
        np.testing.assert_array_equal(f.predict_proba(Xn), np.mean([e.predict_proba(Xn) for e in f.estimators_], axis=0))


def test_ane_grid_is_inert_outside_ane():
    "ane_grid (like ane_val_size) is read by ANE only: set with another criterion it is an error naming both."
    X, y, _ = _data(12, n=80)
    for cls in (RobustTreeClassifier, RobustForestClassifier):
        for crit in ("ne", "gini"):
            with pytest.raises(ValueError, match="ane_grid.*no effect.*criterion"):
                cls(criterion=crit, ane_grid=(0.25, 0.75)).fit(X, y)
        m = cls(criterion="ane", ane_grid=(0.25, 0.75), random_state=0).fit(X, y)
        assert set(m.ane_scores_) == {0.25, 0.75}
        cls(criterion="ne", ane_grid=(0.0, 0.25, 0.5, 0.75, 1.0)).fit(X, y)             # the default: accepted


def test_ane_tuning_picks_the_best_validation_lambda():
    X, y, _ = _data(9, n=300)
    m = RobustTreeClassifier("ane", random_state=0).fit(X, y)
    assert set(m.ane_scores_) == {0.0, 0.25, 0.5, 0.75, 1.0}
    best = max(m.ane_scores_.values())
    assert m.lam_ == max(l for l, s in m.ane_scores_.items() if s == best)       # ties → larger λ


def test_predict_proba_is_leaf_proportions():
    X, y, rng = _data(10, n=200)
    w = rng.uniform(0.5, 2, 200)
    m = RobustTreeClassifier("ne", lam=0.5, max_depth=3, random_state=0).fit(X, y, sample_weight=w)
    leaves = m.apply(X)
    for leaf in np.unique(leaves):
        rows = leaves == leaf
        expected = np.bincount(y[rows], weights=w[rows], minlength=3) / w[rows].sum()
        np.testing.assert_allclose(m.predict_proba(X[rows][:1])[0], expected, atol=1e-12)


# ---------------------------------------------------------------- bad input
X0 = np.random.default_rng(0).normal(size=(40, 3))
Y3 = np.arange(40) % 3


@pytest.mark.parametrize("est, match", [
    (RobustTreeClassifier("gimi"), "valid criteria: ane, credal, entropy, gce, gini, misclassification, ne, ranking, sqrt_gini, twoing"),
    (RobustTreeClassifier("ne", lam=1.2), r"'lam' parameter must be a real number in \[0, 1\]; got 1.2"),
    (RobustTreeClassifier("gini", lam=-0.1), r"'lam' parameter .* got -0.1"),
    (RobustTreeClassifier("gce", q=-0.5), r"'q' parameter must be a real number in \[0, inf\); got -0.5"),
    (RobustTreeClassifier("gce", q=np.inf), r"'q' parameter .* got inf"),
    (RobustTreeClassifier("credal", s=0), r"'s' parameter must be a real number in \(0, inf\); got 0"),
    (RobustTreeClassifier("ranking"), "binary problems only"),
    (RobustTreeClassifier(get_loss("logistic")), "binary problems only"),
    (RobustTreeClassifier(3), "'criterion' parameter must be a str or a MarginLoss; got 3"),
    (RobustTreeClassifier(min_samples_leaf=0), r"'min_samples_leaf' parameter must be an int in \[1, inf\) or a real number in \(0, 0.5\]; got 0\."),
    (RobustTreeClassifier(min_samples_leaf=0.7), r"'min_samples_leaf' .* got 0.7"),
    (RobustTreeClassifier(max_depth=0), r"'max_depth' parameter must be an int in \[1, inf\) or None; got 0"),
    (RobustTreeClassifier(max_depth=2.5), r"'max_depth' .* got 2.5"),
    (RobustTreeClassifier(max_leaf_nodes=1), r"'max_leaf_nodes' parameter must be an int in \[2, inf\) or None; got 1"),
    (RobustTreeClassifier(max_features="half"), r"'max_features' .* got 'half'"),
    (RobustTreeClassifier(max_features=7), r"max_features=7 must lie in \[1, n_features=3\]"),
    (RobustTreeClassifier(ane_grid=(0.5, 2.0)), r"lam \(in ane_grid\)=2.0: it must be a real number in \[0, 1\]"),
    (RobustTreeClassifier(ane_grid=()), "ane_grid is empty"),
    (RobustTreeClassifier(ane_grid="0.5"), "'ane_grid' parameter must be a tuple or a list or a ndarray"),
    (RobustTreeClassifier(ane_val_size=1.0), r"'ane_val_size' parameter must be a real number in \(0, 1\); got 1.0"),
    (RobustTreeClassifier(random_state=-1), "'random_state' parameter"),
    (RobustForestClassifier(n_estimators=0), r"'n_estimators' parameter must be an int in \[1, inf\); got 0"),
    (RobustForestClassifier(n_jobs=0), "'n_jobs' parameter"),
    (RobustForestClassifier(bootstrap="yes"), "'bootstrap' parameter must be a bool .* got 'yes'"),
])
def test_bad_parameters(est, match):
    with pytest.raises(ValueError, match=match):                       # (InvalidParameterError is also a TypeError)
        est.fit(X0, Y3)


def test_bad_data():
    Xn = X0.copy(); Xn[2, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"): RobustTreeClassifier().fit(Xn, Y3)
    m = RobustTreeClassifier("gini").fit(X0, Y3)
    with pytest.raises(ValueError, match="NaN"): m.predict(Xn)
    with pytest.raises(ValueError, match="no training samples with positive weight"):
        RobustTreeClassifier("gini").fit(X0, Y3, sample_weight=(Y3 != 1).astype(float))
    with pytest.raises(ValueError, match="one class"): RobustTreeClassifier("gini").fit(X0, np.zeros(40))
    with pytest.raises(ValueError, match="features"): m.predict(X0[:, :2])
    with pytest.raises(ValueError, match="unknown criterion"): get_criterion(3)


# ---------------------------------------------------------------- the compiled builder vs the numpy builder (oracle)
_EXACT = ("children_left", "children_right", "feature", "threshold", "n_node_samples", "depth")


def _assert_same_tree(ref, new):
    for k in _EXACT:
        np.testing.assert_array_equal(getattr(new, k), getattr(ref, k), err_msg=k)
    W = ref.weighted_n_node_samples[0]
    for k in ("gain", "impurity", "value", "weighted_n_node_samples"):
        np.testing.assert_allclose(getattr(new, k), getattr(ref, k), rtol=1e-12, atol=1e-12 * W, err_msg=k)


def _oracle_cases():
    crits = [(c, {"ne": {"lam": 0.5}, "ane": {"lam": 0.3}, "gce": {"q": 0.7}, "credal": {"s": 1.0}}.get(c, {}))
             for c in sorted(CRITERIA)] + [("gce", {"q": 0.0}), ("gce", {"q": 1.5}), ("ne", {"lam": 0.0}),
                                           ("ne", {"lam": 1.0}), (get_loss("logistic"), {}), (get_loss("alpha", alpha=3), {})]
    return [(c, p, K) for c, p in crits for K in (2, 3)
            if K == 2 or (isinstance(c, str) and not CRITERIA[c].binary_only)]


@pytest.mark.parametrize("crit, params, K", _oracle_cases(), ids=str)
def test_compiled_builder_grows_the_numpy_builders_trees(crit, params, K):
    "Same partitions, thresholds and gains as the numpy builder, on unit weights and on bootstrap counts (with zeros)."
    from tree_oracle import _grow as oracle_grow
    from robust_ref.trees import _grow
    rng = np.random.default_rng(K)
    n = 240
    X = np.round(rng.normal(size=(n, 4)), 1)                          # runs of equal values, ties between features
    y = np.where(rng.random(n) < 0.6, (X[:, 0] > 0) * (K - 1), rng.integers(0, K, n))
    c = get_criterion(crit)
    for w in (np.ones(n), np.bincount(rng.integers(0, n, n), minlength=n).astype(float)):
        for opts in ({}, dict(max_depth=3, min_samples_leaf=3), dict(max_features=2), dict(max_leaf_nodes=7),
                     dict(max_leaf_nodes=40, min_samples_leaf=2, max_features=3)):
            ref = oracle_grow(X, y, w, K, c, params, random_state=5, **opts)
            _assert_same_tree(ref, _grow(X, y, w, K, c, params, random_state=5, **opts))


def test_compiled_builder_with_real_weights_splits_where_the_numpy_builder_got_nan():
    "Real weights: the numpy builder's right counts T − L could be −1e-17, a NaN GCE gain, and a root that never split."
    from tree_oracle import _grow as oracle_grow
    from robust_ref.trees import _grow
    rng = np.random.default_rng(1)
    X = np.round(rng.normal(size=(200, 3)), 1)
    y = np.where(rng.random(200) < .6, (X[:, 0] > 0).astype(int), rng.integers(0, 2, 200))
    w = rng.uniform(0.2, 2, 200)
    c = get_criterion("gce")
    assert oracle_grow(X, y, w, 2, c, {"q": 0.7}, random_state=3, max_depth=2).node_count == 1
    t = _grow(X, y, w, 2, c, {"q": 0.7}, random_state=3, max_depth=2)
    assert t.node_count == 7 and np.all(np.isfinite(t.gain))
    _check_against_naive(X, y, w, "gce", 2, max_depth=2)            # and every split is the best by the naive loop


def test_tree_builder_reuse_bootstrap_counts_and_repeated_rows():
    from robust_ref.tree_builder import TreeBuilder, presort
    rng = np.random.default_rng(12)
    X = np.round(rng.normal(size=(150, 3)), 1)
    y = (X[:, 0] + rng.normal(size=150) > 0).astype(int)
    b = TreeBuilder(X, "entropy")
    order0 = b.order.copy()
    np.testing.assert_array_equal(order0, presort(X.T))
    counts = np.bincount(rng.integers(0, 150, 150), minlength=150)
    t1 = b.grow(y, counts.astype(float), 2, random_state=0)
    t2 = b.grow(y, counts.astype(float), 2, random_state=0)
    np.testing.assert_array_equal(b.order, order0)                     # growing never touches the shared sorting
    _assert_same_tree(t1, t2)
    rows = np.repeat(np.arange(150), counts)                           # the bootstrap sample as explicit rows
    t3 = TreeBuilder(X[rows], "entropy").grow(y[rows], None, 2, random_state=0)
    for k in ("children_left", "feature", "threshold", "depth"):
        np.testing.assert_array_equal(getattr(t1, k), getattr(t3, k))
    np.testing.assert_allclose(t1.gain, t3.gain, rtol=1e-12)
    np.testing.assert_array_equal(t1.weighted_n_node_samples, t3.weighted_n_node_samples)
    with pytest.raises(ValueError, match="criterion must be one of"): TreeBuilder(X, "gimi")
    with pytest.raises(ValueError, match="sample_weight must have shape"): b.grow(y, np.ones(3))


def test_ane_tree_is_the_ne_tree_of_the_chosen_lambda():
    X, y, _ = _data(13, n=300)
    m = RobustTreeClassifier("ane", random_state=0).fit(X, y)
    ref = RobustTreeClassifier("ne", lam=m.lam_, random_state=0).fit(X, y)
    _assert_same_tree(ref.tree_, m.tree_)


@pytest.mark.parametrize("make", [lambda: RobustTreeClassifier(), lambda: RobustForestClassifier(n_estimators=3)])
def test_mixed_label_types_are_named(make):
    X = np.random.default_rng(0).normal(size=(8, 2))
    with pytest.raises(ValueError, match="mixes label types"):
        make().fit(X, np.array(["a", 1] * 4, dtype=object))


@pytest.mark.parametrize("K", [2, 3])
def test_grow_many_grows_the_tree_of_every_lambda(K):
    "ANE's one-pass search (grow_many): bit for bit the NE tree `grow` grows per λ, and the numpy oracle's, on every option."
    from tree_oracle import _grow as oracle_grow
    from robust_ref.tree_builder import TreeBuilder
    lams = (0.0, 0.25, 0.5, 0.75, 1.0)
    rng = np.random.default_rng(20 + K)
    n = 240
    X = np.round(rng.normal(size=(n, 4)), 1)                          # runs of equal values, ties between features
    y = np.where(rng.random(n) < 0.6, (X[:, 0] > 0) * (K - 1), rng.integers(0, K, n))
    n_diverged = 0
    for w in (None, np.bincount(rng.integers(0, n, n), minlength=n).astype(float), rng.uniform(0.2, 2, n) * (rng.random(n) < 0.8)):
        for opts in ({}, dict(max_depth=3, min_samples_leaf=3), dict(max_features=2), dict(max_features=1, min_samples_leaf=2),
                     dict(max_leaf_nodes=7)):
            b = TreeBuilder(X, "ne", **opts)
            many = b.grow_many(y, w, K, 7, params=lams)
            assert len(many) == len(lams)
            for lam, t in zip(lams, many):
                ref = b.grow(y, w, K, 7, param=lam)
                _assert_same_tree(ref, t)
                np.testing.assert_array_equal(t.gain, ref.gain)          # the same floating-point operations
                np.testing.assert_array_equal(t.impurity, ref.impurity)
            n_diverged += len({tuple(t.feature) for t in many}) > 1
            if w is None and opts in ({}, dict(max_features=2)):
                for lam, t in zip(lams, many):
                    _assert_same_tree(oracle_grow(X, y, np.ones(n), K, get_criterion("ne"), {"lam": lam}, random_state=7, **opts), t)
    assert n_diverged >= 5                                             # the λ trees do split differently somewhere


def test_ane_one_pass_search_selects_what_a_tree_per_lambda_selects():
    "Same validation scores, λ and final tree as growing one NE tree per λ from scratch on the 80 % (the old search)."
    from robust_ref.core import spawn_seeds
    from robust_ref.tree_builder import TreeBuilder
    from robust_ref.trees import _ANE_GRID, _tune_lambda
    X, y, rng = _data(31, n=500)
    y = np.where(rng.random(len(y)) < 0.25, rng.integers(0, 3, len(y)), y)    # 25 % of labels redrawn
    codes = np.unique(y, return_inverse=True)[1]
    for kw, seed in (({}, 0), (dict(max_depth=4), 1), (dict(max_features=2, min_samples_leaf=3), 2)):
        m = RobustTreeClassifier("ane", random_state=seed, **kw).fit(X, y)
        tune_seed, grow_seed = spawn_seeds(seed, 2)
        b = TreeBuilder(X, "ne", **kw)
        def per_lambda(wa, rows, lams, Xb):
            trees = [b.grow(codes, wa, 3, grow_seed, param=lam) for lam in lams]
            return [t.value[t.apply(Xb)].argmax(axis=1) for t in trees]
        lam, scores = _tune_lambda(per_lambda, X, codes, np.ones(len(y)), _ANE_GRID, 0.2, tune_seed)
        assert m.lam_ == lam and m.ane_scores_ == scores
        _assert_same_tree(b.grow(codes, None, 3, grow_seed, param=lam), m.tree_)


def test_parameters_of_other_criteria_are_refused_by_name():
    "lam/q/s/ane_val_size set where the criterion never reads them: an error naming both; aliases count as the criterion."
    X, y, _ = _data(2, n=60)
    for make in (RobustTreeClassifier, lambda **kw: RobustForestClassifier(n_estimators=2, **kw)):
        for kw, gov in ((dict(lam=0.3), "'ne'"), (dict(criterion="gini", q=0.2), "'gce'"),
                        (dict(criterion="cl", s=2.0), "'credal'"), (dict(criterion="ne", ane_val_size=0.3), "'ane'")):
            name = next(k for k in kw if k != "criterion")
            with pytest.raises(ValueError, match=f"{name}=.* has no effect unless criterion is {gov}"):
                make(**kw).fit(X, y)
        assert make(criterion="NE", lam=0.3).fit(X, y).lam_ == 0.3
        assert make(criterion="gce", q=0.2).fit(X, y).criterion_ == "gce"


@pytest.mark.parametrize("n_jobs, n_seeds", [(1, 1), (1, 9), (2, 11), (2, 3)])
def test_ane_tuning_counts_trees_a_batch_at_a_time_with_the_bits_of_whole_forests(n_jobs, n_seeds):
    "The λ tuning's mean leaf values, summed a batch of trees at a time, equal np.mean over each whole forest bit for bit."
    from robust_ref.core import spawn_seeds
    from robust_ref.trees import _builder, _forest_mean_values, _grow_forest, _prepare_fit, _ANE_GRID
    rng = np.random.default_rng(n_seeds)
    X = rng.normal(size=(300, 4)); y = (X[:, 0] + rng.normal(scale=0.8, size=300) > 0).astype(int)
    est = RobustForestClassifier(n_estimators=n_seeds)
    X, classes, codes, w, crit, params, opts, grid, val = _prepare_fit(est, X, y, None)
    builder = _builder(X, crit, params, **opts)
    seeds, rows, Xb, lams = spawn_seeds(7, n_seeds), np.arange(250), X[250:], list(_ANE_GRID)
    wa = np.where(np.arange(300) < 250, w, 0.0)
    want = [np.mean([t.value[t.apply(Xb)] for t in forest], axis=0)
            for forest in _grow_forest(builder, codes, wa, 2, lams, seeds, True, n_jobs, rows)]
    grow = lambda part: _grow_forest(builder, codes, wa, 2, lams, part, True, n_jobs, rows)
    got = _forest_mean_values(grow, seeds, Xb, batch=4 * n_jobs)
    assert len(got) == len(lams) and all(np.array_equal(a, b) for a, b in zip(got, want))
    assert not all(np.array_equal(got[0], g) for g in got[1:])                 # the λs grow different forests
