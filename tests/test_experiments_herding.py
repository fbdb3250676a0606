"""Runner features of the mean classifier's Fig. 1 (recursive kernel herding on 3-vs-8 digits): the `classes` and `scale`
options of a scikit-learn dataset, the registry's `mean_herd` / `mean_random_subset` (`RecursiveHerdingClassifier`), the
`support_fraction` metric, and the record grid `meanclf_figure1.toml`. Expected values come from scikit-learn's loader
and from the mean classifier chapter's own `herd_recursive`, computed independently here."""
import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedShuffleSplit

import robust_ref.experiments as ex
from robust_ref.experiments.loaders import sklearn_dataset
from robust_ref.experiments.metrics import METRICS, support_fraction
from robust_ref.mean_classifier import RecursiveHerdingClassifier
from robust_ref.experiments.run import task_data
from robust_ref.mean_classifier import MeanClassifier


def _digits_3v8(n=None):
    d = load_digits()
    keep = np.isin(d.target, (3, 8))
    X, y = d.data[keep] / 16.0, np.where(d.target[keep] == 3, 1, -1)
    return (X, y) if n is None else (X[:n], y[:n])


def test_sklearn_digits_two_classes_scaled():
    X, y = sklearn_dataset("digits", classes=[3, 8], positive=[3], scale=16)()
    Xr, yr = _digits_3v8()
    assert X.shape == (357, 64) and np.array_equal(X, Xr) and np.array_equal(y, yr) and (y == 1).sum() == 183
    assert X.min() == 0.0 and X.max() == 1.0
    X2, y2 = sklearn_dataset("digits", classes=[8, 3])()                     # no positive: the original labels, no scale
    assert sorted(set(y2)) == [3, 8] and X2.max() == 16.0
    assert repr(sklearn_dataset("digits", classes=[3, 8], positive=[3], scale=16)) == \
        "sklearn:digits(positive=[3], classes=[3, 8], scale=16.0)"
    assert repr(sklearn_dataset("breast_cancer", columns=[0], positive=[0])) == "sklearn:breast_cancer(columns=[0], positive=[0])"
    assert sklearn_dataset("digits", classes=[3, 8]) != sklearn_dataset("digits", classes=[3, 8], scale=16)


@pytest.mark.parametrize("kw, msg", [(dict(classes=[3]), "at least two distinct"), (dict(classes=[3, 3]), "at least two distinct"),
                                     (dict(classes="38"), "at least two distinct"), (dict(classes=[3, [8]]), "at least two distinct"),
                                     (dict(scale=0), "scale must be a positive number"), (dict(scale=-16), "scale must be"),
                                     (dict(scale=True), "scale must be"), (dict(scale=float("inf")), "scale must be"),
                                     (dict(scale="16"), "scale must be")])
def test_sklearn_dataset_bad_classes_or_scale(kw, msg):
    with pytest.raises(ValueError, match=msg): sklearn_dataset("digits", **kw)


def test_sklearn_dataset_missing_class_and_grid_file_keys(tmp_path):
    with pytest.raises(ValueError, match=r"has no label 11; its labels are \[0, 1, 2"): sklearn_dataset("digits", classes=[3, 11])()
    f = tmp_path / "g.toml"
    f.write_text('methods = ["mean_herd"]\n[datasets.d]\nsklearn = "digits"\nclasses = [3, 8]\nshift = 1\n')
    with pytest.raises(ValueError, match="columns, positive, classes and scale; remove 'shift'"): ex.read_grid(f)
    f.write_text('methods = ["mean_herd"]\n[datasets.d]\nsklearn = "digits"\nclasses = [3, 8]\nscale = 0\n')
    with pytest.raises(ValueError, match=r"g.toml:5: key 'scale' of dataset 'd'.*scale must be a positive number"): ex.read_grid(f)


def test_herd_levels_match_the_chapters_recursion():
    X, y = _digits_3v8(140)
    full = MeanClassifier(bandwidth=1.0).fit(X, y)
    serial = full.herd_recursive(0.025, stop_size=20)
    h0 = RecursiveHerdingClassifier(level=0, stop_size=20).fit(X, y)
    assert np.array_equal(h0.decision_function(X), full.decision_function(X)) and (h0.herd_level_, h0.residual_to_full_) == (0, 0.0)
    for k in (1, 4):
        h = RecursiveHerdingClassifier(level=k, stop_size=20).fit(X, y)
        lv = serial[k - 1]
        assert h.herd_level_ == h.n_levels_ == k and np.array_equal(np.sort(h.support_), np.sort(lv.classifier.support_))
        assert np.array_equal(h.decision_function(X), lv.classifier.decision_function(X))
        assert h.residual_to_full_ == lv.residual_full <= k * 0.025 and h.support_fraction_ == lv.size / 140
        assert np.array_equal(h.predict(X), lv.classifier.predict(X))
    last = RecursiveHerdingClassifier(level=len(serial) + 3, stop_size=20).fit(X, y)   # past the end: the last level, said so
    assert last.herd_level_ == len(serial) and np.array_equal(np.sort(last.support_), np.sort(serial[-1].classifier.support_))
    X, y = _digits_3v8(200)
    par = MeanClassifier(bandwidth=1.0).fit(X, y).herd_recursive(0.025, parallel=True, group_size=100, stop_size=20, random_state=5)
    hp = RecursiveHerdingClassifier(level=2, parallel=True, group_size=100, stop_size=20, random_state=5).fit(X, y)
    assert len(par) >= 2 and hp.herd_level_ == 2
    assert np.array_equal(hp.decision_function(X), par[1].classifier.decision_function(X))


def test_parallel_levels_with_a_fixed_seed_are_one_recursion():
    X, y = _digits_3v8(200)
    a = RecursiveHerdingClassifier(level=2, parallel=True, group_size=100, stop_size=20, random_state=0).fit(X, y)
    b = RecursiveHerdingClassifier(level=3, parallel=True, group_size=100, stop_size=20, random_state=0).fit(X, y)
    assert b.herd_level_ == 3 and set(b.support_) < set(a.support_)      # level 3 herds level 2's herd


def test_random_subset_has_the_herds_size_and_is_the_subsets_mean():
    X, y = _digits_3v8(140)
    h = RecursiveHerdingClassifier(level=3, stop_size=20).fit(X, y)
    r = RecursiveHerdingClassifier(level=3, stop_size=20, points="random", random_state=4).fit(X, y)
    assert len(r.support_) == len(h.support_) and r.herd_level_ == 3 and not np.array_equal(np.sort(r.support_), np.sort(h.support_))
    again = RecursiveHerdingClassifier(level=3, stop_size=20, points="random", random_state=4).fit(X, y)
    other = RecursiveHerdingClassifier(level=3, stop_size=20, points="random", random_state=5).fit(X, y)
    assert np.array_equal(r.support_, again.support_) and not np.array_equal(r.support_, other.support_)
    S = r.support_
    sub = MeanClassifier(bandwidth=1.0).fit(X[S], y[S])
    assert np.allclose(r.decision_function(X), sub.decision_function(X), rtol=0, atol=1e-14)
    G = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2)                   # ‖ω − ω_S‖ from the Gram matrix directly
    d = y / 140.0
    d[S] -= y[S] / len(S)
    assert abs(r.residual_to_full_ - np.sqrt(d @ G @ d)) < 1e-12


@pytest.mark.parametrize("kw, name", [(dict(level=-1), "level"), (dict(level=1.5), "level"), (dict(points="subset"), "points"),
                                      (dict(eps=0.0), "eps"), (dict(bandwidth=-1.0), "bandwidth"), (dict(stop_size=0), "stop_size"),
                                      (dict(group_size=0), "group_size"), (dict(parallel="yes"), "parallel")])
def test_herding_classifier_bad_parameters(kw, name):
    X, y = _digits_3v8(40)
    with pytest.raises((ValueError, TypeError), match=name): RecursiveHerdingClassifier(**kw).fit(X, y)
    with pytest.raises(ValueError, match=name): ex.validate_method(ex.get_method("mean_herd", **kw))


def test_support_fraction_metric():
    X, y = _digits_3v8(178)
    h = RecursiveHerdingClassifier(level=2, stop_size=20).fit(X, y)
    assert h.herd_level_ == 2 and 0 < h.residual_to_full_ <= 0.05 and len(h.support_) < 178
    assert support_fraction(h, X, y, None) == dict(support_size=len(h.support_), support_fraction=len(h.support_) / 178,
                                                   herd_level=2.0, residual_to_full=h.residual_to_full_)
    out = support_fraction(MeanClassifier().fit(X, y), X, y, None)
    assert out["support_size"] == 178 and out["support_fraction"] == 1.0 and np.isnan(out["herd_level"])
    with pytest.raises(TypeError, match="support_fraction needs a model that keeps"): support_fraction(LogisticRegression().fit(X, y), X, y, None)
    assert METRICS["support_fraction"] is support_fraction


def test_registry_names_the_herded_means():
    t = ex.list_methods()
    assert t.loc["mean_herd", "available"] and t.loc["mean_random_subset", "available"]
    assert t.loc["mean_herd", "paper"] == "mean classifier: van Rooyen, Menon & Williamson 2015"
    assert ex.get_method("mean_random_subset").estimator.points == "random" and ex.get_method("mean_herd").estimator.points == "herd"


def test_figure1_grid_and_its_tasks():
    g = ex.read_grid(ex.example_grids()["meanclf_figure1"])
    assert len(g) == 20 * 71 and g.test_size == 0.5 and g.splits == 20 and g.rates == [0.0]
    assert [n for n, _ in g.metrics] == ["support_fraction"]
    levels = {name: m.params["level"] for name, m in g.methods.items()}
    assert levels["full mean"] == 0 and max(levels[f"serial {k}"] for k in range(1, 21)) == 20 and levels["parallel 30"] == 30
    assert all(g.methods[f"parallel {k}"].params["random_state"] == 0 for k in range(1, 31))
    assert all(g.methods[f"random {k}"].estimator.points == "random" for k in range(1, 21))
    # the runner's split is the page's: stratified 50/50 of the 357 images (178 train, 179 test)
    X, y = _digits_3v8()
    row = ex.run_task(g.subset(methods=["full mean"], splits=1).tasks()[0])
    assert row["status"] == "ok" and (row["n_train"], row["n_test"]) == (178, 179) and row["support_size"] == 178
    seed = g.tasks()[0].seeds()["split"]
    tr, te = next(StratifiedShuffleSplit(n_splits=1, test_size=0.5, random_state=seed).split(X, y))
    assert row["test_error"] == np.mean(MeanClassifier(bandwidth=1.0).fit(X[tr], y[tr]).predict(X[te]) != y[te])
    Xtr, Xte, ytr, ynoisy, yte = task_data(g.tasks()[0])                    # the page's bandwidth table uses these arrays
    assert np.array_equal(Xtr, X[tr]) and np.array_equal(Xte, X[te]) and np.array_equal(ytr, y[tr]) and np.array_equal(yte, y[te])
    assert np.array_equal(ynoisy, ytr)                                       # rate 0: clean labels
    with pytest.raises(TypeError, match="task_data needs a Task"): task_data(g)


def test_figure1_record_rows_are_reproduced_exactly():
    """Another partition than the page's live slice: its rows (errors, size, level, residual) equal the committed record on
    the record's numeric platform; elsewhere the errors agree within one test point (`check_against_record`'s default)."""
    g = ex.record_grid("meanclf_figure1")
    assert g.fingerprint() == ex.read_grid(ex.example_grids()["meanclf_figure1"]).fingerprint()
    sub = g.subset(methods=["full mean", "serial 5", "parallel 12", "random 10"], splits=8)
    tasks = [t for t in sub.tasks() if t.split == 7]
    live = pd.DataFrame([ex.run_task(t) for t in tasks])
    assert len(live) == 4 and (live.split == 7).all()
    summary = ex.check_against_record(live, "meanclf_figure1")
    assert (summary.shared == 1).all() and (summary.agreeing == 1).all()
    rec, _ = ex.load_record("meanclf_figure1")
    assert len(rec) == 1420 and (rec.status == "ok").all()
    assert set(live.columns) >= {"support_size", "support_fraction", "herd_level", "residual_to_full"}


from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402


_WEIGHTS = ("a sample weight is not a repetition: the full mean is the same, but herding and the random subset choose among "
            "rows, so a repeated row is a separate candidate (documented in the class docstring)")


@parametrize_with_checks([RecursiveHerdingClassifier(level=2, stop_size=5),
                          RecursiveHerdingClassifier(level=2, stop_size=5, points="random", random_state=0)],
                         expected_failed_checks=lambda est: {"check_sample_weight_equivalence_on_dense_data": _WEIGHTS})
def test_herding_classifier_passes_sklearn_checks(estimator, check):
    check(estimator)
