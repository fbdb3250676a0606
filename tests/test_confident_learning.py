"""ConfidentLearningClassifier: scikit-learn contract, determinism, flags that find flipped labels, clear errors."""
import builtins
import warnings

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.svm import LinearSVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from robust_ref.baselines import LogitBoostClassifier
from robust_ref.confident_learning import ConfidentLearningClassifier
from robust_ref.noise import flip_uniform


def _world(n=400, seed=0):
    "A separable-ish world (clean labels ~ sign of a linear score with small margin noise)."
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = np.where(X @ np.array([2.0, -1.0, 0.5, 0.0]) > 0, "b", "a")
    return X, y


@parametrize_with_checks([ConfidentLearningClassifier(LogisticRegression(), cv=3, random_state=0)])
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(estimator)


def test_flags_find_the_flipped_labels():
    "On an easy world with 15% uniform flips the flags are mostly flips and catch most of them."
    X, y = _world()
    noisy = flip_uniform(y, 0.15, random_state=1)
    cl = ConfidentLearningClassifier(LogisticRegression(), random_state=0).fit(X, noisy.y)
    flipped = np.asarray(noisy.flipped)
    tp = (cl.label_issues_ & flipped).sum()
    assert tp / cl.n_label_issues_ > 0.8 and tp / flipped.sum() > 0.7
    # and the cleaned model beats the one trained on the noisy labels, on the clean labels
    plain = LogisticRegression().fit(X, noisy.y)
    X_te, y_te = _world(2000, seed=5)
    assert cl.score(X_te, y_te) >= plain.score(X_te, y_te)
    assert cl.label_issues_.dtype == bool and cl.label_issues_.shape == (len(y),)
    assert cl.oof_proba_.shape == (len(y), 2) and np.allclose(cl.oof_proba_.sum(1), 1)


def test_same_seed_same_flags_and_model_no_global_state():
    X, y = _world(300)
    noisy = flip_uniform(y, 0.2, random_state=2).y
    np.random.seed(123); a = ConfidentLearningClassifier(LogitBoostClassifier(n_estimators=20), random_state=7).fit(X, noisy)
    state = np.random.get_state()[1].copy()
    np.random.seed(999); b = ConfidentLearningClassifier(LogitBoostClassifier(n_estimators=20), random_state=7).fit(X, noisy)
    assert np.array_equal(a.label_issues_, b.label_issues_)
    assert np.array_equal(a.decision_function(X), b.decision_function(X))
    np.random.seed(123); ConfidentLearningClassifier(LogitBoostClassifier(n_estimators=20), random_state=7).fit(X, noisy)
    assert np.array_equal(np.random.get_state()[1], state)      # the global NumPy state is not touched
    c = ConfidentLearningClassifier(LogitBoostClassifier(n_estimators=20), random_state=8).fit(X, noisy)
    assert not np.array_equal(c.oof_proba_, a.oof_proba_)        # another seed, other folds


def test_a_class_is_never_emptied():
    "Even if cleanlab flags (almost) a whole class, min_keep_per_class rows of it stay."
    X, y = _world(200)
    y_bad = y.copy(); y_bad[: 60] = np.where(y_bad[:60] == "a", "b", "a")   # a third flipped
    cl = ConfidentLearningClassifier(LogisticRegression(), filter_by="predicted_neq_given",
                                     min_keep_per_class=90, random_state=0).fit(X, y_bad)
    kept = y_bad[~cl.label_issues_]
    assert min((kept == "a").sum(), (kept == "b").sum()) >= min(90, (y_bad == "a").sum(), (y_bad == "b").sum())


@pytest.mark.parametrize("params, match", [
    (dict(cv=1), "'cv'"), (dict(cv=2.5), "'cv'"), (dict(cv="5"), "'cv'"), (dict(filter_by="all"), "'filter_by'"),
    (dict(estimator=LinearSVC()), "'estimator'"), (dict(estimator=LogisticRegression), "not the class"),
    (dict(min_keep_per_class=0), "'min_keep_per_class'"), (dict(random_state=-3), "'random_state'")])
def test_bad_parameters_are_named(params, match):
    X, y = _world(60)
    with pytest.raises(ValueError, match=match):
        ConfidentLearningClassifier(**params).fit(X, y)


def test_too_few_samples_per_class_for_the_folds():
    X, y = _world(60)
    y = np.array(["a"] * 57 + ["b"] * 3)
    with pytest.warns(UserWarning, match="so 3 folds are used"):
        ConfidentLearningClassifier(LogisticRegression(), random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="at least 2 samples of each class"):
        ConfidentLearningClassifier(LogisticRegression()).fit(X, np.array(["a"] * 59 + ["b"]))


def test_missing_cleanlab_says_how_to_install(monkeypatch):
    real_import = builtins.__import__
    def fake_import(name, *args, **kwargs):
        if name.startswith("cleanlab"): raise ImportError("No module named 'cleanlab'")
        return real_import(name, *args, **kwargs)
    monkeypatch.setattr(builtins, "__import__", fake_import)
    X, y = _world(60)
    with pytest.raises(ImportError, match=r"robust_ref\[cleanlab\]"):
        ConfidentLearningClassifier(LogisticRegression()).fit(X, y)


def test_a_pipeline_base_model_gets_the_weights_and_the_seed():
    "A pipeline has no `sample_weight`: the weights go to its last step (the registry's cl_logistic wraps one)."
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    X, y = _world()
    noisy = flip_uniform(y, 0.15, random_state=1).y
    w = np.random.default_rng(0).uniform(0.5, 2, len(y))
    pipe = ConfidentLearningClassifier(make_pipeline(StandardScaler(), LogisticRegression()), random_state=0)
    bare = ConfidentLearningClassifier(LogisticRegression(), random_state=0)
    Xs = StandardScaler().fit_transform(X)   # per-fold scaling differs slightly, so compare what cannot move: the refit
    pipe.fit(X, noisy, sample_weight=w)
    keep = ~pipe.label_issues_
    ref = LogisticRegression().fit(StandardScaler().fit(X[keep]).transform(X[keep]), noisy[keep], sample_weight=w[keep])
    assert np.allclose(pipe.estimator_[-1].coef_, ref.coef_)
    unweighted = LogisticRegression().fit(StandardScaler().fit(X[keep]).transform(X[keep]), noisy[keep])
    assert not np.allclose(pipe.estimator_[-1].coef_, unweighted.coef_)   # the weights were used, not dropped
    assert bare.fit(Xs, noisy, sample_weight=w).n_label_issues_ > 0


def test_cv_given_by_hand_is_checked_and_named():
    "cv follows scikit-learn's convention (int, splitter, list of pairs); a list that is not one, or not a partition, names cv."
    from sklearn.model_selection import KFold
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3)); y = (X[:, 0] + 0.3 * rng.normal(size=120) > 0).astype(int)
    pairs = list(KFold(4, shuffle=True, random_state=0).split(X))
    a = ConfidentLearningClassifier(LogitBoostClassifier(n_estimators=10), cv=pairs, random_state=0).fit(X, y)
    b = ConfidentLearningClassifier(LogitBoostClassifier(n_estimators=10), cv=KFold(4, shuffle=True, random_state=0),
                                    random_state=0).fit(X, y)
    assert np.array_equal(a.oof_proba_, b.oof_proba_)
    with pytest.raises(ValueError, match=r"'cv' must be an int >= 2 \(stratified folds\), a splitter with split\(\), or a list"):
        ConfidentLearningClassifier(cv=[1, 2, 3]).fit(X, y)
    with pytest.raises(ValueError, match=r"cv: the test parts of the folds must cover every sample exactly once"):
        ConfidentLearningClassifier(cv=pairs[:2]).fit(X, y)
    with pytest.raises(ValueError, match=r"cv: fold 0 is not a pair of non-empty integer index arrays"):
        ConfidentLearningClassifier(cv=[(np.arange(60), np.arange(60, 500))]).fit(X, y)
