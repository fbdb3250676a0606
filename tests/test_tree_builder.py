"""robust_ref.tree_builder's regression trees (MSE): node tables identical to scikit-learn's DecisionTreeRegressor,
bit for bit, on random weighted problems (continuous and duplicated values, constant features, zero weights, ties),
depth first and best first; and the boosting engine's LogitBoost/GentleBoost identical to the scikit-learn path."""
import numpy as np
import pytest
from sklearn.tree import DecisionTreeRegressor

from robust_ref.tree_builder import RegressionTreeBuilder

_FIELDS = ("children_left", "children_right", "feature", "threshold", "impurity", "n_node_samples",
           "weighted_n_node_samples")


def _problem(rng, kind):
    n, d = int(rng.integers(2, 250)), int(rng.integers(1, 7))
    X = rng.normal(size=(n, d))
    if kind == "duplicates": X = np.round(X * 2) / 2
    if kind == "constant": X[:, rng.integers(0, d)] = 1.5
    if kind == "integers": X = rng.integers(0, 3, size=(n, d)).astype(float)
    if kind == "float32-close": X = X * 1e-6 + 1.0                         # values within float32's resolution
    z = rng.normal(size=n) if rng.random() < 0.6 else np.sign(rng.normal(size=n))   # ±1 targets: many equal gains
    w = rng.exponential(size=n) if rng.random() < 0.7 else np.ones(n)
    if rng.random() < 0.3: w[rng.random(n) < 0.3] = 0.0
    if not np.any(w > 0): w[0] = 1.0
    return X, z, w


@pytest.mark.parametrize("kind", ["continuous", "duplicates", "constant", "integers", "float32-close"])
@pytest.mark.parametrize("md, mln", [(1, None), (3, None), (None, None), (10, 11), (None, 4)])
def test_regression_trees_are_scikit_learns_bit_for_bit(kind, md, mln):
    rng = np.random.default_rng(abs(hash((kind, md, mln))) % 2**32)
    differ = []
    for rep in range(12):
        X, z, w = _problem(rng, kind)
        seed = int(rng.integers(0, 2**31 - 1))
        ours = RegressionTreeBuilder(X, max_depth=md, max_leaf_nodes=mln).grow(z, w, random_state=seed)
        sk = DecisionTreeRegressor(max_depth=md, max_leaf_nodes=mln, random_state=seed).fit(X, z, sample_weight=w)
        t = sk.tree_
        same = ours.node_count == t.node_count and all(np.array_equal(getattr(ours, f), getattr(t, f)) for f in _FIELDS)
        same = same and np.array_equal(ours.value[:, 0], t.value[:, 0, 0])
        Xn = np.vstack([X, rng.normal(size=X.shape) * X.std() + X.mean()])   # training rows and new rows
        same = same and np.array_equal(ours.value[ours.apply(Xn), 0], sk.predict(Xn))
        if not same: differ.append(rep)
    assert differ == []


def test_regression_tree_random_state_forms_and_bad_inputs():
    rng = np.random.default_rng(0)
    X, z = rng.normal(size=(50, 3)), rng.normal(size=50)
    b = RegressionTreeBuilder(X, max_depth=2)
    t1 = b.grow(z, None, random_state=4)
    t2 = b.grow(z, None, random_state=np.random.RandomState(4))             # scikit-learn's two forms of a seed
    assert np.array_equal(t1.threshold, t2.threshold) and t1.float32
    with pytest.raises(TypeError, match="random_state"): b.grow(z, None, random_state=np.random.default_rng(4))
    with pytest.raises(ValueError, match="z must have shape"): b.grow(z[:3])
    with pytest.raises(ValueError, match="sample_weight must have shape"): b.grow(z, np.ones(3))
    with pytest.raises(ValueError, match="positive entry"): b.grow(z, np.zeros(50))
    with pytest.raises(ValueError, match="max_leaf_nodes"): RegressionTreeBuilder(X, max_leaf_nodes=1)
    with pytest.raises(ValueError, match="2-D"): RegressionTreeBuilder(np.ones(5))


@pytest.mark.parametrize("dataset", ["diabetes", "credit", "titanic"])
def test_logitboost_and_gentleboost_with_trees_equal_the_scikit_learn_path(dataset):
    "Same decision values, bit for bit, as with scikit-learn's regression trees (the path the results of record used)."
    from tree_oracle import SklearnRegressionTrees
    from robust_ref.baselines import GentleBoostClassifier, LogitBoostClassifier
    from robust_ref.datasets import load_dataset
    X, y = load_dataset(dataset, return_X_y=True, missing="impute")
    for cls in (LogitBoostClassifier, GentleBoostClassifier):
        for md, mln, seeds in [(10, 11, (0,)), (1, None, range(3))]:  # 11-leaf trees: one seed per dataset and method
            for seed in seeds:
                new = cls(n_estimators=100, base_learner="tree", max_depth=md, max_leaf_nodes=mln, random_state=seed).fit(X, y)
                old = cls(n_estimators=100, base_learner=SklearnRegressionTrees(md, mln), random_state=seed).fit(X, y)
                assert np.array_equal(new.decision_function(X), old.decision_function(X)), (cls.__name__, md, seed)
