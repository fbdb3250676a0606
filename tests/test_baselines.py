"""The user-facing boosters of robust_ref.baselines: scikit-learn compatibility, bad inputs, and faithfulness
to Friedman, Hastie & Tibshirani (2000) against independent reference loops written here."""
import pickle
import warnings

import numpy as np
import pytest

from conftest import tree_boosting_expected_failures
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from sklearn.utils.estimator_checks import parametrize_with_checks

from robust_ref.tree_builder import TreeBuilder
from robust_ref.baselines import (AdaBoostClassifier, GentleBoostClassifier, LogitBoostClassifier,
                                  RealAdaBoostClassifier, LPBoostClassifier)
from robust_ref.boosting import MarginBoostClassifier

ALL = [AdaBoostClassifier, RealAdaBoostClassifier, LogitBoostClassifier, GentleBoostClassifier]


def _estimators():
    for cls in ALL:
        yield cls()                                                     # the defaults are checked too
        yield cls(n_estimators=5, base_learner="tree", max_depth=2, random_state=0)
    yield MarginBoostClassifier()
    yield MarginBoostClassifier(loss="logistic", step="line_search", n_estimators=5)
    yield MarginBoostClassifier(loss="logistic", kind="newton", n_estimators=5)


def _expected_failures(est):
    # Newton boosters fit scikit-learn *regression* trees; those honour weights = repetitions in this check (they
    # pass it), so only the classification-tree boosters carry scikit-learn's AdaBoost x-fail.
    if isinstance(est, (LogitBoostClassifier, GentleBoostClassifier)): return {}
    return tree_boosting_expected_failures(est)


@parametrize_with_checks(list(_estimators()), expected_failed_checks=_expected_failures)
def test_sklearn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)   # empty ensembles on constant-feature check data
        check(estimator)


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=200, n_features=6, n_informative=3, random_state=0)
    return X, y


@pytest.mark.parametrize("cls", ALL)
def test_pickle_clone_pipeline_gridsearch(cls, data):
    X, y = data
    clf = cls(n_estimators=15).fit(X, y)
    clone_of = pickle.loads(pickle.dumps(clf))
    assert np.array_equal(clone_of.decision_function(X), clf.decision_function(X))
    fresh = clone(clf)
    assert not hasattr(fresh, "estimators_") and fresh.get_params() == clf.get_params()
    pipe = make_pipeline(StandardScaler(), cls(n_estimators=15)).fit(X, y)
    assert pipe.score(X, y) > 0.8
    gs = GridSearchCV(cls(), {"n_estimators": [5, 10], "learning_rate": [0.5, 1.0]}, cv=3).fit(X, y)
    assert gs.best_params_["n_estimators"] in (5, 10)
    assert cross_val_score(cls(n_estimators=10), X, y, cv=3).mean() > 0.7


@pytest.mark.parametrize("cls", ALL)
def test_bad_inputs(cls, data):
    X, y = data
    Xn = X.copy(); Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"): cls().fit(Xn, y)
    with pytest.raises(ValueError, match="single class|1 class|one class"): cls().fit(X, np.zeros(len(y)))
    with pytest.raises(ValueError, match="negative"): cls().fit(X, y, sample_weight=-np.ones(len(y)))
    with pytest.raises(ValueError, match="inconsistent"): cls().fit(X, y[:-1])
    with pytest.raises(ValueError, match="binary"): cls().fit(X, np.arange(len(y)) % 3)
    for bad in (0, -3, 2.5, True):
        with pytest.raises(ValueError, match="n_estimators"): cls(n_estimators=bad).fit(X, y)
    for bad in (0, -1.0, np.nan, np.inf):
        with pytest.raises(ValueError, match="learning_rate"): cls(learning_rate=bad).fit(X, y)
    with pytest.raises(ValueError, match="base_learner"): cls(base_learner="forest").fit(X, y)
    clf = cls(n_estimators=5).fit(X, y)
    with pytest.raises(ValueError, match="features"): clf.predict(X[:, :3])
    with pytest.raises(ValueError, match="2D|2-D"): clf.predict(X[0])


def test_specific_bad_parameters(data):
    X, y = data
    with pytest.raises(ValueError, match="z_max"): LogitBoostClassifier(z_max=0).fit(X, y)
    with pytest.raises(ValueError, match="proba_clip"): RealAdaBoostClassifier(proba_clip=1.5).fit(X, y)
    with pytest.raises(ValueError, match="criterion"): AdaBoostClassifier(criterion="entropy").fit(X, y)


def test_lpboost_is_reexported():
    import robust_ref.lp
    assert LPBoostClassifier is robust_ref.lp.LPBoostClassifier


# ---------- faithfulness to FHT (2000): independent reference loops with scikit-learn trees ----------

def _breast():
    X, y = load_breast_cancer(return_X_y=True)
    return X.astype(np.float32).astype(np.float64), np.where(y == 1, 1.0, -1.0), y


def _tree_seeds(random_state, n):
    "The per-round tree seeds TreeLearner draws (one integer per fitted tree from the estimator's Generator)."
    rng = np.random.default_rng(random_state)
    return [int(rng.integers(0, 2**31 - 1)) for _ in range(n)]


def test_real_adaboost_matches_fht_algorithm_2():
    X, ypm, y = _breast()
    M, c = 20, 1e-4
    ours = RealAdaBoostClassifier(n_estimators=M, base_learner="tree", max_depth=2, random_state=3).fit(X, y)
    w, F = np.full(len(y), 1 / len(y)), np.zeros(len(y))
    builder = TreeBuilder(X, "gini", max_depth=2)   # the book's tree (breast cancer has exact gain ties, which
    for seed in _tree_seeds(3, M):                   # scikit-learn's tree breaks another way); the recursion is what is tested
        t = builder.grow((ypm > 0).astype(int), w, 2, seed)
        p = (1 - c) * t.value[t.apply(X), 1] + c / 2
        f = 0.5 * np.log(p / (1 - p))
        F += f
        w = w * np.exp(-ypm * f); w /= w.sum()
    assert np.allclose(ours.decision_function(X), F, rtol=1e-10, atol=1e-10)   # same recursion; rounding only


def test_logitboost_matches_fht_algorithm_3():
    X, ypm, y = _breast()
    M = 20
    ours = LogitBoostClassifier(n_estimators=M, base_learner="tree", max_depth=1, random_state=5).fit(X, y)
    ystar, F = (ypm + 1) / 2, np.zeros(len(y))
    for seed in _tree_seeds(5, M):
        p = np.exp(F) / (np.exp(F) + np.exp(-F))
        z = np.clip((ystar - p) / (p * (1 - p)), -4, 4)
        w = p * (1 - p)
        f = DecisionTreeRegressor(max_depth=1, random_state=seed).fit(X, z, sample_weight=w / w.sum()).predict(X)
        F += 0.5 * f
    assert np.allclose(ours.decision_function(X), F, rtol=1e-9, atol=1e-9)


def test_gentleboost_matches_fht_algorithm_4():
    X, ypm, y = _breast()
    M = 20
    ours = GentleBoostClassifier(n_estimators=M, base_learner="tree", max_depth=1, random_state=7).fit(X, y)
    w, F = np.full(len(y), 1 / len(y)), np.zeros(len(y))
    for seed in _tree_seeds(7, M):
        f = DecisionTreeRegressor(max_depth=1, random_state=seed).fit(X, ypm, sample_weight=w).predict(X)
        F += f
        w = w * np.exp(-ypm * f); w /= w.sum()
    assert np.allclose(ours.decision_function(X), F, rtol=1e-9, atol=1e-9)


def test_exact_stump_versions_fit_well():
    X, ypm, y = _breast()
    for cls in ALL:
        clf = cls(n_estimators=50).fit(X[::2], y[::2])
        assert clf.score(X[1::2], y[1::2]) > 0.92, cls.__name__


def test_learning_rate_scales_steps():
    X, ypm, y = _breast()
    a = RealAdaBoostClassifier(n_estimators=1).fit(X, y)
    b = RealAdaBoostClassifier(n_estimators=1, learning_rate=0.3).fit(X, y)
    assert np.allclose(0.3 * a.decision_function(X), b.decision_function(X), rtol=1e-12)
    lb = LogitBoostClassifier(n_estimators=1).fit(X, y)
    assert lb.estimator_weights_[0] == 0.5     # F += ½ f


def test_determinism_with_trees():
    X, ypm, y = _breast()
    for cls in ALL:
        a = cls(n_estimators=8, base_learner="tree", max_depth=3, random_state=11).fit(X, y).decision_function(X)
        b = cls(n_estimators=8, base_learner="tree", max_depth=3, random_state=11).fit(X, y).decision_function(X)
        assert np.array_equal(a, b)


# --- machinery, not later chapters; one hook instead of state stashes (issue 17 part 3) ------------------------
def _imports(module_file):
    import ast
    from pathlib import Path
    tree = ast.parse(Path(module_file).read_text())
    return {(n.module or "").lstrip(".") for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level > 0}


def test_baselines_import_only_earlier_chapters():
    "Chapter 60 must not import chapter 61 (BrownBoost) or any later chapter; 61 builds on the engine (05)."
    import robust_ref.baselines as B
    import robust_ref.brownboost as BB
    later = {"brownboost", "experiments", "cli"}
    assert not (_imports(B.__file__) & later), _imports(B.__file__)
    assert _imports(BB.__file__) <= {"boosting", "core", "losses"}, _imports(BB.__file__)


@pytest.mark.parametrize("make", [lambda: __import__("robust_ref.archboost", fromlist=["x"]).ARBGamma(n_estimators=5),
                                  lambda: __import__("robust_ref.brownboost", fromlist=["x"]).BrownBoostClassifier(n_estimators=5),
                                  lambda: __import__("robust_ref.brownboost", fromlist=["x"]).RobustBoostClassifier(n_estimators=5)])
def test_after_fit_hook_leaves_no_strategy_behind(make):
    "The engine hands the finished strategy to `_after_fit`; no `_strategy` attribute is stashed (nor popped)."
    X, y = make_classification(80, 4, random_state=1)
    clf = make().fit(X, y)
    assert "_strategy" not in vars(clf) and not any(k.startswith("_strat") for k in vars(clf))
    fitted = {k for k in vars(clf) if k.endswith("_") and not k.startswith("_")}
    assert fitted & {"edges_", "remaining_time_", "time_"}                # the hook ran and recorded the strategy state
    assert np.array_equal(pickle.loads(pickle.dumps(clf)).decision_function(X), clf.decision_function(X))
