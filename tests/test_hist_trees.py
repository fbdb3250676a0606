"""robust_ref.tree_builder's binned (histogram) builder and the `tree_method` parameter.

The strong test: on features with at most 255 distinct values (a bin per value) `BinnedTreeBuilder` grows the exact
builder's tree — the same split features, the same partition of the training rows, the same counts, gains and values
(bit for bit with unit weights and bootstrap counts, to round-off with real weights) — for every criterion code, level
by level and best first, with histogram subtraction at every node and with none. Then: bin edges on hand-made data,
test error within 0.5 points of the exact builder's on magic and on a 10^5-row synthetic set, the same tree for the same
seed, `tree_method` validated, and 'auto' exact (results bit-identical) at the size of every bundled dataset.
"""
import zlib

import numpy as np
import pytest
from sklearn.model_selection import train_test_split

from robust_ref.baselines import AdaBoostClassifier
from robust_ref.datasets import list_datasets, load_dataset
from robust_ref.learners import TreeLearner
from robust_ref.rmboost import RMBoostClassifier
from robust_ref.tree_builder import (HIST_AUTO_N, BinnedTreeBuilder, TreeBuilder, bin_features, make_tree_builder,
                                     resolve_tree_method)
from robust_ref.trees import RobustForestClassifier, RobustTreeClassifier

_TABLE = (np.linspace(0, 1, 201), np.minimum(np.linspace(0, 1, 201), 1 - np.linspace(0, 1, 201)) ** 0.7)
_CRITERIA = [("gini", 0.0), ("entropy", 0.0), ("misclassification", 0.0), ("sqrt_gini", 0.0), ("ne", 0.5), ("ne", 1.0),
             ("gce", 0.7), ("credal", 1.0), ("twoing", 0.0), ("ranking", 0.0), ("table", 0.0)]
_BINARY_ONLY = {"ranking", "table"}
# Misclassification (and NE at λ ≥ 1, which is misclassification) has plateaus of equal gains; with real weights the
# summation order (histogram subtraction; children totals in row order, not in feature-0 order) decides which of the
# tied thresholds wins by round-off, so those two are compared with unit weights and bootstrap counts only.
_CASES = [(c, p, wk) for c, p in _CRITERIA for wk in ("unit", "counts", "real")
          if not (wk == "real" and (c == "misclassification" or (c == "ne" and p >= 1)))]
_GROWTH = [dict(max_depth=5), dict(max_leaf_nodes=10, max_features=3), dict(min_samples_leaf=9, max_features=2)]


def _few_values(seed, K, n=1500):
    "Five features with 3 ... 255 distinct values (so a bin per value) and noisy labels in 0..K−1."
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, L, n) * 0.37 - 4.0 for L in (3, 17, 60, 255, 120)])
    score = X[:, 1] - 0.05 * X[:, 3] + 0.8 * X[:, 0] + 2.0 * rng.normal(size=n)
    y = np.digitize(score, np.quantile(score, np.arange(1, K) / K))
    return X, y


def _weights(kind, n, rng):
    if kind == "unit": return None
    if kind == "counts": return rng.multinomial(n, np.full(n, 1.0 / n)).astype(float)   # a bootstrap (zeros left out)
    w = rng.exponential(size=n)
    w[rng.random(n) < 0.2] = 0.0
    return w


def _assert_same_tree(te, th, X, w, bits: bool):
    assert th.node_count == te.node_count
    for f in ("children_left", "children_right", "feature", "n_node_samples", "depth"):
        np.testing.assert_array_equal(getattr(th, f), getattr(te, f), err_msg=f)
    train = X if w is None else X[w > 0]
    np.testing.assert_array_equal(th.apply(train), te.apply(train))       # the same leaf for every training row
    for f, thr in zip(th.feature[th.children_left != -1], th.threshold[th.children_left != -1]):
        u = np.unique(X[:, f])                                             # the binned threshold: midway between two
        i = np.searchsorted(u, thr)                                        # neighbouring values of the training feature
        assert 0 < i < len(u) and thr == u[i - 1] / 2 + u[i] / 2, (f, thr)
    for f in ("value", "gain", "impurity", "weighted_n_node_samples"):
        if bits: np.testing.assert_array_equal(getattr(th, f), getattr(te, f), err_msg=f)
        else:       # real weights: other summation orders; √Gini of a nearly pure node loses digits to cancellation
            tol = 1e-11 if f in ("value", "weighted_n_node_samples") else 1e-6
            np.testing.assert_allclose(getattr(th, f), getattr(te, f), rtol=tol, atol=tol, err_msg=f)


@pytest.mark.parametrize("crit, par, wkind", _CASES, ids=[f"{c}-{p}-{wk}" for c, p, wk in _CASES])
def test_binned_tree_is_the_exact_tree_on_few_distinct_values(crit, par, wkind):
    rng = np.random.default_rng(zlib.crc32(repr((crit, par, wkind)).encode()))
    sizes = []
    for K in ((2,) if crit in _BINARY_ONLY else (2, 3)):
        X, y = _few_values(int(rng.integers(1 << 30)), K)
        w = _weights(wkind, len(y), rng)
        table = _TABLE if crit == "table" else None
        for growth in _GROWTH:
            seed = int(rng.integers(1 << 30))
            te = TreeBuilder(X, crit, param=par, table=table, **growth).grow(y, w, K, random_state=seed)
            sizes.append(te.node_count)
            for keep in (None, 1, 10**9):       # default, histogram subtraction at every node, never
                th = BinnedTreeBuilder(X, crit, param=par, table=table, keep_rows=keep, **growth).grow(y, w, K, random_state=seed)
                _assert_same_tree(te, th, X, w, bits=wkind != "real")
    assert len(sizes) >= 3 and max(sizes) > 6                            # real trees, not only stumps


def test_grow_many_is_grow_one_by_one():
    X, y = _few_values(5, 2)
    w = np.random.default_rng(0).multinomial(len(y), np.full(len(y), 1 / len(y))).astype(float)
    lams = [0.0, 0.5, 1.0]
    many = BinnedTreeBuilder(X, "ne", max_depth=4).grow_many(y, w, 2, random_state=3, params=lams)
    exact = TreeBuilder(X, "ne", max_depth=4).grow_many(y, w, 2, random_state=3, params=lams)
    for th, te in zip(many, exact): _assert_same_tree(te, th, X, w, bits=True)


def test_a_tiny_tree_by_hand():
    X = np.array([[0.0, 7.0], [1.0, 5.0], [2.0, 7.0], [3.0, 5.0]])
    t = BinnedTreeBuilder(X, "gini").grow(np.array([0, 0, 1, 1]), random_state=0)
    assert (t.node_count, t.feature[0], t.threshold[0]) == (3, 0, 1.5)     # x0 ≤ 1.5 separates the classes
    np.testing.assert_array_equal(t.value, [[0.5, 0.5], [1.0, 0.0], [0.0, 1.0]])
    assert t.gain[0] == 2.0                                                # W·Gini: 4·½ − 0 − 0


def test_bin_edges_by_hand():
    codes, off, edges = bin_features(np.arange(10.0)[:, None], max_bins=2)
    np.testing.assert_array_equal(edges, [4.5, np.inf])                    # the cut after the first half of the rows
    np.testing.assert_array_equal(codes[0], [0] * 5 + [1] * 5)
    codes, off, edges = bin_features(np.array([0.0] * 8 + [1.0, 2.0])[:, None], max_bins=2)
    np.testing.assert_array_equal(edges, [0.5, np.inf])                    # a value on most rows is a bin of its own
    codes, off, edges = bin_features(np.random.default_rng(0).normal(size=(3000, 3)), max_bins=16)
    np.testing.assert_array_equal(off, [0, 16, 32, 48])
    assert codes.dtype == np.uint8
    assert np.all(np.abs(np.bincount(codes[1], minlength=16) - 3000 / 16) <= 1)   # quantile bins: equal row counts


def test_bad_binning_input_is_refused():
    with pytest.raises(ValueError, match="max_bins must be an int in"):
        bin_features(np.zeros((4, 2)), max_bins=256)
    with pytest.raises(ValueError, match="NaN or infinite"):
        bin_features(np.array([[0.0], [np.nan]]))


def test_same_seed_same_tree_bit_for_bit():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(20_000, 6))                                        # many distinct values: quantile bins
    y = (X[:, 0] + X[:, 1] ** 2 + rng.normal(size=len(X)) > 1).astype(int)
    w = rng.multinomial(len(y), np.full(len(y), 1 / len(y))).astype(float)
    a = BinnedTreeBuilder(X, "gini", max_features=2).grow(y, w, 2, random_state=11)
    b = BinnedTreeBuilder(X.copy(), "gini", max_features=2).grow(y, w, 2, random_state=11)
    for f in ("children_left", "feature", "threshold", "value", "gain", "impurity"):
        assert np.array_equal(getattr(a, f), getattr(b, f))
    c = BinnedTreeBuilder(X, "gini", max_features=2).grow(y, w, 2, random_state=12)
    assert not (a.node_count == c.node_count and np.array_equal(a.feature, c.feature))   # the seed matters
    f1 = RobustForestClassifier(8, "gini", tree_method="hist", random_state=3).fit(X[:5000], y[:5000])
    f2 = RobustForestClassifier(8, "gini", tree_method="hist", random_state=3).fit(X[:5000], y[:5000])
    assert np.array_equal(f1.predict_proba(X[5000:]), f2.predict_proba(X[5000:]))


def _magic():
    X, y = load_dataset("magic", return_X_y=True)
    return train_test_split(X, y, test_size=0.2, random_state=0, stratify=y)


def test_hist_error_within_half_a_point_on_magic():
    Xtr, Xte, ytr, yte = _magic()
    err = {}
    for m in ("exact", "hist"):
        ada = AdaBoostClassifier(n_estimators=60, base_learner="tree", max_depth=4, tree_method=m, random_state=0).fit(Xtr, ytr)
        rf = RobustForestClassifier(60, "gini", tree_method=m, random_state=0).fit(Xtr, ytr)
        err[m] = (np.mean(ada.predict(Xte) != yte), np.mean(rf.predict(Xte) != yte))
    for e_exact, e_hist in zip(err["exact"], err["hist"]):
        assert abs(e_hist - e_exact) <= 0.005, err
        assert e_exact < 0.2


def _synthetic(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 10))
    X[:, 5:] = np.exp(X[:, 5:])                                             # skewed features: quantile bins matter
    y = (np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.5 * np.log(X[:, 5]) + rng.normal(size=n) > 0).astype(int)
    return X, y


def test_hist_error_within_half_a_point_on_a_hundred_thousand_rows():
    X, y = _synthetic(120_000, 1)
    Xtr, ytr, Xte, yte = X[:100_000], y[:100_000], X[100_000:], y[100_000:]
    assert resolve_tree_method("auto", len(ytr)) == "hist"
    err = {}
    for m in ("exact", "auto"):                                            # 'auto' is 'hist' at this size
        ada = AdaBoostClassifier(n_estimators=30, base_learner="tree", max_depth=3, tree_method=m, random_state=0).fit(Xtr, ytr)
        err[m] = np.mean(ada.predict(Xte) != yte)
    assert abs(err["auto"] - err["exact"]) <= 0.005 and err["exact"] < 0.3, err


@pytest.mark.parametrize("make", [
    lambda m: AdaBoostClassifier(base_learner="tree", tree_method=m),
    lambda m: RobustTreeClassifier("gini", tree_method=m),
    lambda m: RobustForestClassifier(3, "gini", tree_method=m),
    lambda m: RMBoostClassifier(n_estimators=3, tree_method=m),
], ids=["adaboost", "robust_tree", "robust_forest", "rmboost"])
@pytest.mark.parametrize("bad", ["fast", "Hist", None, 1])
def test_bad_tree_method_is_refused_naming_it(make, bad):
    X, y = _few_values(0, 2, n=200)
    with pytest.raises(ValueError, match="tree_method"):
        make(bad).fit(X, y)


def test_tree_method_without_a_tree_learner_is_an_error():
    X, y = _few_values(0, 2, n=200)
    with pytest.raises(ValueError, match="tree_method.*no effect.*base_learner"):
        AdaBoostClassifier(tree_method="hist").fit(X, y)                     # stumps: no tree builder to choose
    with pytest.raises(ValueError, match="tree_method must be"):
        make_tree_builder(X, tree_method="binned")
    with pytest.raises(ValueError, match="tree_method must be"):
        TreeLearner(tree_method="approx")


def test_auto_is_exact_at_every_bundled_size():
    "'auto' picks the exact builder for every bundled dataset (so no existing result changes) and hist above the bound."
    assert HIST_AUTO_N == 50_000
    for name in list_datasets():
        n = len(load_dataset(name, return_X_y=True)[1])
        assert resolve_tree_method("auto", n) == "exact", name
    assert resolve_tree_method("auto", HIST_AUTO_N) == "exact" and resolve_tree_method("auto", HIST_AUTO_N + 1) == "hist"
    assert type(TreeLearner(2).prepare(np.zeros((HIST_AUTO_N, 2)), 0).builder) is TreeBuilder
    assert type(TreeLearner(2).prepare(np.zeros((HIST_AUTO_N + 1, 2)), 0).builder) is BinnedTreeBuilder
    assert type(TreeLearner(2, tree_method="hist").prepare(np.zeros((10, 2)), 0).builder) is BinnedTreeBuilder


def test_auto_results_are_the_exact_results_on_magic():
    Xtr, Xte, ytr, yte = _magic()
    Xtr, ytr = Xtr[:3000], ytr[:3000]
    for make in (lambda m: AdaBoostClassifier(n_estimators=10, base_learner="tree", max_depth=3, tree_method=m, random_state=0),
                 lambda m: RobustForestClassifier(5, "ane", tree_method=m, random_state=0),
                 lambda m: RMBoostClassifier(n_estimators=5, tree_method=m, random_state=0)):
        a, e = make("auto").fit(Xtr, ytr), make("exact").fit(Xtr, ytr)
        assert np.array_equal(a.predict_proba(Xte), e.predict_proba(Xte))


def test_hist_estimators_split_at_bin_edges():
    "With tree_method='hist' the fitted trees' thresholds are bin edges of the training X (the binned builder was used)."
    X, y = _synthetic(3000, 2)
    codes, off, edges = bin_features(X)
    for m, inside in (("hist", True), ("exact", False)):
        t = RobustTreeClassifier("gini", max_depth=6, tree_method=m, random_state=0).fit(X, y).tree_
        inner = t.children_left != -1
        on_edge = [thr in edges[off[f]:off[f + 1]] for f, thr in zip(t.feature[inner], t.threshold[inner])]
        assert all(on_edge) if inside else not all(on_edge)
    ada = AdaBoostClassifier(n_estimators=3, base_learner="tree", max_depth=2, tree_method="hist", random_state=0).fit(X, y)
    t = ada.estimators_[0].tree
    inner = t.children_left != -1
    assert all(thr in edges[off[f]:off[f + 1]] for f, thr in zip(t.feature[inner], t.threshold[inner]))
