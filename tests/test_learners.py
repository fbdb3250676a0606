"""The exact stump search, its real-valued variants, rules, rule pools and weak-learner wrappers of
robust_ref.learners, checked against brute force, closed forms and scikit-learn trees."""
import pickle

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from robust_ref.learners import (ConstantRule, RealStump, Stump, StumpLearner, StumpSearch, TreeLearner, TreeRule,
                                 FEATURE_THRESHOLD_SKLEARN, check_rule_values, half_logit, make_weak_learner,
                                 rule_matrix, stump_pool)


def naive_candidates(X):
    "Every (feature, threshold) in the documented tie-break order: feature, then threshold ascending."
    for j in range(X.shape[1]):
        v = np.unique(X[:, j])
        for a, b in zip(v[:-1], v[1:]):
            yield j, a / 2 + b / 2


def naive_best_stump(X, u):
    "O(n²·d) brute force: first maximiser in (feature, threshold, polarity +1 then −1) order."
    best, arg = -np.inf, None
    for j, t in naive_candidates(X):
        h = np.where(X[:, j] > t, 1.0, -1.0)
        for pol in (1, -1):
            e = float(u @ (pol * h))
            if e > best: best, arg = e, Stump(j, t, pol)
    return arg, best


small_X = st.integers(2, 25).flatmap(lambda n: st.tuples(
    arrays(np.int64, (n, 3), elements=st.integers(0, 4)),      # few distinct values: many exact ties
    arrays(np.int64, (n,), elements=st.integers(-5, 5))))       # integer weights: sums are exact, ties are exact


@settings(max_examples=150, deadline=None)
@given(small_X)
def test_best_stump_equals_brute_force_including_tie_break(data):
    X, u = data[0].astype(float), data[1].astype(float)
    if all(len(np.unique(X[:, j])) == 1 for j in range(3)):
        rule, edge = StumpSearch(X).best_stump(u)
        assert isinstance(rule, ConstantRule) and edge == abs(u.sum())
        return
    rule, edge = StumpSearch(X).best_stump(u)
    ref, ref_edge = naive_best_stump(X, u)
    assert edge == ref_edge                      # integer arithmetic: exact
    assert float(u @ rule(X)) == edge            # the rule really has that edge
    if ref_edge > 0: assert rule == ref          # lowest feature, lowest threshold, polarity +1
    else: assert rule.polarity == 1              # all edges 0: +1 wins the tie


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000))
def test_weighted_error_identity_and_minimality(seed):
    rng = np.random.default_rng(seed)
    n, d = rng.integers(5, 40), rng.integers(1, 4)
    X = rng.normal(size=(n, d)).round(1)
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    w = rng.random(n) + 0.01
    rule, edge = StumpSearch(X).best_stump(w * y)
    err = w @ (rule(X) != y) / w.sum()
    assert abs(edge / w.sum() - (1 - 2 * err)) < 1e-12         # edge = ‖w‖₁(1 − 2ε)
    errs = [w @ (np.where(X[:, j] > t, p, -p) != y) / w.sum() for j, t in naive_candidates(X) for p in (1., -1.)]
    if errs: assert err <= min(errs) + 1e-12                    # least weighted error among all stumps


def test_determinism_and_no_state():
    rng = np.random.default_rng(3)
    X, u = rng.normal(size=(200, 5)), rng.normal(size=200)
    s = StumpSearch(X)
    a, b, c = s.best_stump(u), s.best_stump(u), StumpSearch(X.copy()).best_stump(u)
    assert a == b == c


def test_repeated_sample_equals_doubled_weight():
    rng = np.random.default_rng(4)
    X = rng.integers(0, 5, size=(30, 3)).astype(float); y = np.where(rng.random(30) < .5, -1., 1.)
    w = rng.random(30)
    w2 = w.copy(); w2[0] *= 2
    X3, y3, w3 = np.r_[X, X[:1]], np.r_[y, y[:1]], np.r_[w, w[:1]]
    assert StumpSearch(X).best_stump(w2 * y) [0] == StumpSearch(X3).best_stump(w3 * y3)[0]
    a, b = StumpSearch(X).best_regression_stump(w2, y), StumpSearch(X3).best_regression_stump(w3, y3)
    assert (a.feature, a.threshold) == (b.feature, b.threshold)
    assert a.left_value == pytest.approx(b.left_value, rel=1e-12) and a.right_value == pytest.approx(b.right_value, rel=1e-12)


def test_constants_option():
    X = np.arange(6.)[:, None]; y = np.array([1, 1, -1, 1, 1, 1.]); w = np.array([1, 1, 1, 1, 1, 5.])
    s = StumpSearch(X)
    assert isinstance(s.best_stump(w * y)[0], Stump)
    rule, edge = s.best_stump(w * y, constants=True)
    assert rule == ConstantRule(1.0) and edge == pytest.approx((w * y).sum())


def test_thresholds_are_midpoints_and_min_gap():
    X = np.array([[0.], [1.], [1.], [1 + 5e-8], [4.]])
    s = StumpSearch(X)
    assert np.allclose(s.thresholds[0][s.valid[0]], [0.5, 1 + 2.5e-8, 2.5 + 2.5e-8])
    s7 = StumpSearch(X, min_gap=FEATURE_THRESHOLD_SKLEARN)        # scikit-learn skips the 5e-8 gap
    assert s7.n_splits == 2


def _float32_data(seed, n=300, d=6):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32).astype(np.float64)
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y, rng.random(n) + 0.05


@pytest.mark.parametrize("seed", range(5))
def test_gini_stump_matches_sklearn_tree(seed):
    X, y, w = _float32_data(seed)
    ours = StumpSearch(X, min_gap=FEATURE_THRESHOLD_SKLEARN).best_gini_stump(w, y)
    tree = DecisionTreeClassifier(max_depth=1, random_state=0).fit(X, y, sample_weight=w)
    assert np.array_equal(ours(X), tree.predict(X))
    if isinstance(ours, Stump):
        assert (ours.feature, ours.threshold) == (tree.tree_.feature[0], tree.tree_.threshold[0])


@pytest.mark.parametrize("seed", range(5))
def test_regression_stump_matches_sklearn_and_brute_force(seed):
    X, _, w = _float32_data(seed)
    z = np.random.default_rng(seed + 100).normal(size=len(w))
    ours = StumpSearch(X).best_regression_stump(w, z)
    sse = lambda p: float(w @ (z - p) ** 2)
    tree = DecisionTreeRegressor(max_depth=1).fit(X, z, sample_weight=w)
    assert sse(ours(X)) == pytest.approx(sse(tree.predict(X)), rel=1e-10)
    best = min(sse(np.where(X[:, j] > t, np.average(z[X[:, j] > t], weights=w[X[:, j] > t]),
                            np.average(z[X[:, j] <= t], weights=w[X[:, j] <= t])))
               for j, t in naive_candidates(X[:60]))   # sample of candidate thresholds: none beats ours
    assert sse(ours(X)) <= best + 1e-9


def test_real_stump_minimises_Z_and_has_half_logit_leaves():
    X, y, w = _float32_data(7, n=120, d=3)
    c = 1e-4
    ours = StumpSearch(X).best_real_stump(w, y, proba_clip=c)
    def Z(j, t):
        tot = 0.0
        for side in (X[:, j] <= t, X[:, j] > t):
            tot += np.sqrt(w[side & (y > 0)].sum() * w[side & (y < 0)].sum())
        return 2 * tot
    zs = [Z(j, t) for j, t in naive_candidates(X)]
    assert Z(ours.feature, ours.threshold) == pytest.approx(min(zs), rel=1e-12)
    left = X[:, ours.feature] <= ours.threshold
    p = w[left & (y > 0)].sum() / w[left].sum()
    pt = (1 - c) * p + c / 2
    assert ours.left_value == pytest.approx(0.5 * np.log(pt / (1 - pt)), rel=1e-12)


def test_half_logit_is_finite_and_bounded():
    v = half_logit(np.array([0.0, 0.5, 1.0]), 1e-4)
    assert v[1] == 0 and np.isfinite(v).all() and v[2] == pytest.approx(0.5 * np.log((2 - 1e-4) / 1e-4))


def test_stump_pool_and_rule_matrix():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    pool = stump_pool(X)
    assert len(pool) == 1198                                   # StumpData: T = 1198 candidate rules
    M = rule_matrix(pool, X)
    assert M.shape == (300, 1198) and set(np.unique(M)) == {-1.0, 1.0}
    assert len({tuple(c) for c in M.T}) == 1198                # all distinct on the data
    Xd = np.c_[X[:, 0], X[:, 0]]                               # duplicate feature: half the stumps repeat
    assert len(stump_pool(Xd, dedupe=True)) == (len(stump_pool(Xd)) - 2) // 2 + 2
    assert rule_matrix([], X).shape == (300, 0)


def test_rules_are_picklable_hashable_and_validate_input():
    h = Stump(2, 0.5, -1)
    assert pickle.loads(pickle.dumps(h)) == h and hash(h) == hash(Stump(2, 0.5, -1))
    with pytest.raises(ValueError, match="feature 2"): h(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="2-D"): h(np.zeros(3))
    assert list(RealStump(0, 0.0, -0.25, 0.75)(np.array([[-1.], [1.]]))) == [-0.25, 0.75]
    assert list(ConstantRule(-1)(np.zeros((2, 5)))) == [-1.0, -1.0]


def test_tree_rule_outputs():
    X, y, w = _float32_data(1)
    t = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y, sample_weight=w)
    assert np.array_equal(TreeRule(t, "sign")(X), t.predict(X))
    p = t.predict_proba(X)[:, 1]
    assert np.allclose(TreeRule(t, "logit", 1e-3)(X), half_logit(p, 1e-3))
    r = DecisionTreeRegressor(max_depth=2).fit(X, y)
    assert np.array_equal(TreeRule(r, "value")(X), r.predict(X))
    with pytest.raises(ValueError, match="output"): TreeRule(t, "proba")
    assert pickle.loads(pickle.dumps(TreeRule(t)))(X[:5]).shape == (5,)


@pytest.mark.parametrize("kw", [dict(max_depth=1), dict(max_depth=3), dict(max_depth=None, max_leaf_nodes=6),
                                dict(max_depth=2, criterion="entropy")])
def test_tree_learner_grows_scikit_learns_tree_without_gain_ties(kw):
    "The compiled builder's trees = scikit-learn's (same leaves, same probabilities) where no two splits tie in gain."
    rng = np.random.default_rng(21)
    X = rng.normal(size=(300, 3)).astype(np.float32).astype(np.float64)       # scikit-learn's trees compare in float32
    y = np.where(X[:, 0] + 0.7 * X[:, 1] + 0.8 * rng.normal(size=300) > 0, 1.0, -1.0)
    w = rng.integers(1, 1000, 300).astype(float)                                 # integer weights: exact counts
    bound = TreeLearner(**kw).prepare(X, 0)
    h, g = bound.fit_sign(y, w), bound.fit_logit(y, w)
    sk = DecisionTreeClassifier(random_state=0, **kw).fit(X, y, sample_weight=w)
    X_new = rng.normal(size=(2000, 3)).astype(np.float32).astype(np.float64)
    assert h.tree.n_leaves == sk.get_n_leaves() and h.tree.max_depth == sk.get_depth()
    np.testing.assert_array_equal(h(X_new), sk.predict(X_new))
    np.testing.assert_allclose(g(X_new), half_logit(sk.predict_proba(X_new)[:, 1], 1e-4), rtol=1e-12, atol=1e-12)
    b2 = TreeLearner(**kw).prepare(X, 0)                                         # same seed, same trees
    np.testing.assert_array_equal(b2.fit_sign(y, w)(X_new), h(X_new))
    with pytest.raises(ValueError, match="classification Tree has 'sign' or 'logit'"): TreeRule(h.tree, "value")(X)
    with pytest.raises(ValueError, match="feature"): h(X[:, :0])


def test_learners_bind_once_and_answer_three_calls():
    X, y, w = _float32_data(2)
    for learner in (StumpLearner(), StumpLearner("gini"), TreeLearner(max_depth=2)):
        b = learner.prepare(X, 0)
        assert set(np.unique(b.fit_sign(y, w)(X))) <= {-1.0, 1.0}
        assert np.isfinite(b.fit_logit(y, w)(X)).all()
        assert np.abs(b.fit_regression(y, w)(X)).max() <= 1 + 1e-12      # weighted means of ±1


def test_bad_inputs():
    X = np.random.default_rng(0).normal(size=(10, 2))
    s = StumpSearch(X)
    with pytest.raises(ValueError, match="NaN"): StumpSearch(np.array([[1.0], [np.nan]]))
    with pytest.raises(ValueError, match="2D|2-D"): StumpSearch(np.ones(5))
    with pytest.raises(ValueError, match="min_gap"): StumpSearch(X, min_gap=-1)
    with pytest.raises(ValueError, match="one entry per training sample"): s.best_stump(np.ones(9))
    with pytest.raises(ValueError, match="NaN or inf"): s.best_stump(np.r_[np.nan, np.ones(9)])
    with pytest.raises(ValueError, match="≥ 0"): s.best_gini_stump(-np.ones(10), np.ones(10))
    with pytest.raises(ValueError, match="≥ 0"): s.best_regression_stump(-np.ones(10), np.ones(10))
    with pytest.raises(ValueError, match="criterion"): StumpLearner("entropy")
    with pytest.raises(ValueError, match="proba_clip"): StumpLearner(proba_clip=0)
    with pytest.raises(ValueError, match="proba_clip"): TreeLearner(proba_clip=1)
    with pytest.raises(ValueError, match="criterion must be one of"): TreeLearner(criterion="mse")
    with pytest.raises(ValueError, match="base_learner"): make_weak_learner("forest")
    with pytest.raises(ValueError, match=r"\[-1, 1\]"): check_rule_values([0.0, 1.5])
    with pytest.raises(ValueError, match="NaN"): check_rule_values([0.0, np.nan])


def test_real_stump_pure_splits_are_exact_ties():
    """Two splits that both give pure leaves have Z exactly 0 (not √(rounding residue) ≈ 1e-7): a tie, so the lowest
    feature wins. Found by search: with the old W₋ = W − W₊ this data gave Z = 3.5e-7 vs 2.5e-7 and picked feature 1."""
    X = np.column_stack([np.arange(8.0), [3.0, 1.0, 0.0, 2.0, 6.0, 5.0, 4.0, 7.0]])
    y = np.r_[-np.ones(4), np.ones(4)]
    w = np.array([22.586942841732437, 0.01245547058352835, 0.02883307570075776, 0.05861230648127328,
                  5.540905021732678, 8.097107759127777, 0.5604759520061858, 2.884212144312105])
    s = StumpSearch(X)
    rule = s.best_real_stump(w, y)
    assert rule.feature == 0 and rule.threshold == 3.5                  # both features split 4|4 perfectly: a tie
    P, Pt = s._left_and_total(np.where(y > 0, w, 0.0)); N, Nt = s._left_and_total(np.where(y > 0, 0.0, w))
    Z = np.sqrt(P * N) + np.sqrt((Pt - P) * (Nt - N))
    assert Z[0, 3] == 0.0 and Z[1, 3] == 0.0                             # exactly
    assert rule.left_value < 0 < rule.right_value


@pytest.mark.parametrize("seed", range(40))
def test_feature_blocks_change_memory_not_answers(seed, monkeypatch):
    "Arrays formed one feature (or two) at a time: the same stumps as all features at once, and brute force's edge."
    import robust_ref.learners as learners
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(2, 50)), int(rng.integers(2, 6))
    X = rng.integers(0, 4, size=(n, d)).astype(float)                # few values: exact ties across features
    w = rng.integers(0, 4, size=n).astype(float) if seed % 2 else rng.random(n)
    w[0] += 1.0
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    whole = StumpSearch(X)
    monkeypatch.setattr(learners, "STUMP_BLOCK", n * (1 + seed % 2))   # one or two features per block
    split = StumpSearch(X)
    assert len(whole.blocks) == 1 and len(split.blocks) == -(-d // (1 + seed % 2))
    for call in (lambda s: s.best_stump(w * y), lambda s: s.best_stump(w * y, constants=True),
                 lambda s: s.best_gini_stump(w, y), lambda s: s.best_real_stump(w, y),
                 lambda s: s.best_regression_stump(w, y)):
        assert call(split) == call(whole)
    assert np.array_equal(split.edges(w * y), whole.edges(w * y), equal_nan=True)
    assert (split.order == whole.order).all() and (split.valid == whole.valid).all()
    assert np.array_equal(split.thresholds, whole.thresholds)
    if seed % 2:                                                      # integer weights: the brute force is exact
        rule, edge = split.best_stump(w * y)
        ref, ref_edge = naive_best_stump(X, w * y)
        assert edge == ref_edge and (ref_edge == 0 or rule == ref)
