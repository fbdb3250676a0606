"""The record grids of notebooks 81 (RMBoost's extra grids), 83 (robust trees) and 84 (mean classifier), the registry
entries they need, and the headline claims they assert (robust_ref.statistics.among_best / vanishing_thresholds)."""
import numpy as np
import pandas as pd
import pytest

from robust_ref.datasets import list_datasets, load_dataset, published_table
from robust_ref.experiments import example_grids, get_method, list_methods, read_grid
from robust_ref.experiments.loaders import _Bundled, _Generated
from robust_ref.statistics import among_best, vanishing_thresholds

CRITERIA = {"ANE": "ane", "CL": "cl", "Twoing": "twoing", "Credal": "credal", "GCE": "gce", "MSE": "gini", "CE": "entropy",
            "Ranking": "ranking"}


def grid(name): return read_grid(example_grids()[name])


def ids(g): return {t.task_id: t.seeds() for t in g.tasks()}


# ---------------------------------------------------------------- robust trees (notebook 83)
def test_trees_grid_is_the_papers_binary_protocol_on_bundled_stand_ins():
    g = grid("trees_binary")
    assert list(g.methods) == [f"{m}-{c}" for m in ("DT", "RF") for c in CRITERIA]
    for label, m in g.methods.items():
        model, crit = label.split("-")
        p = m.build(0).get_params()
        assert type(m.estimator).__name__ == ("RobustTreeClassifier" if model == "DT" else "RobustForestClassifier")
        assert p["criterion"] == CRITERIA[crit] and p["max_depth"] is None and p["min_samples_leaf"] == 1   # fully grown
        if model == "RF": assert (p["n_estimators"], p["bootstrap"], p["max_features"]) == (100, True, "sqrt")
        if crit == "GCE": assert p["q"] == 0.7
        if crit == "Credal": assert p["s"] == 1.0
        if crit == "ANE": assert tuple(p["ane_grid"]) == (0.0, 0.25, 0.5, 0.75, 1.0) and p["ane_val_size"] == 0.2
    assert all(isinstance(v, _Bundled) for v in g.datasets.values()) and set(g.datasets) <= set(list_datasets())
    assert all(len(np.unique(load_dataset(d, return_X_y=True)[1])) == 2 for d in g.datasets)   # binary stand-ins
    assert (g.rates, g.seeds, g.splits, g.test_size) == ([0.0, 0.1, 0.2, 0.3, 0.4], [0, 1, 2, 3, 4], 1, 0.2)
    assert list(g.noise) == ["uniform", "class_conditional"] and g.max_train == {"magic": 5000}
    assert len(g) == 6 * 9 * 16 * 5
    assert set(published_table("trees", 2).criterion) == set(CRITERIA)   # the labels' criteria are the paper's


def test_trees_live_slice_is_a_slice_of_the_record_grid():
    g = grid("trees_binary")
    live = g.subset(datasets=["banknote"], rates=[0.0, 0.4], seeds=[0], methods=[f"DT-{c}" for c in CRITERIA])
    full = ids(g)
    assert len(live) == 3 * 8 and all(full[t.task_id] == t.seeds() for t in live.tasks())


# ---------------------------------------------------------------- mean classifier (notebook 84)
def test_registry_entries_for_fig2_are_hyperplanes_through_the_origin_on_raw_features():
    un = get_method("unhinged").build(0)
    assert type(un).__name__ == "MeanClassifier" and un.get_params()["kernel"] == "linear" and not hasattr(un, "steps")
    hinge = get_method("hinge_linear").build(0).get_params()
    assert (hinge["loss"], hinge["fit_intercept"], hinge["C"]) == ("hinge", False, 1.0)
    logit = get_method("logistic_linear").build(0).get_params()
    assert (logit["fit_intercept"], logit["C"]) == (False, 1e4)
    table = list_methods()
    assert table.loc[["unhinged", "hinge_linear", "logistic_linear"], "available"].all()
    assert table.loc["unhinged", "paper"].startswith("mean classifier: van Rooyen")


def test_unhinged_survives_the_noise_that_defeats_the_hinge_on_long_servedio():
    "Fig. 2 at sample level: γ = 1/24, σ = 0.2 (above the population switch 1/12): hinge ≈ 1/2, the mean 1."
    from robust_ref.datasets import make_long_servedio
    from robust_ref.noise import apply_noise
    X, y = make_long_servedio(2000, version="2d", gamma=1 / 24, random_state=0)
    Xt, yt = make_long_servedio(1000, version="2d", gamma=1 / 24, random_state=1)
    noisy = apply_noise("uniform", y, 0.2, random_state=3).y
    assert get_method("unhinged").build(0).fit(X, noisy).score(Xt, yt) == 1.0
    hinge = get_method("hinge_linear").build(0).fit(X, noisy).score(Xt, yt)
    assert abs(hinge - 0.5) < 0.05                               # the heaviest atom (mass 1/2) is misclassified
    assert get_method("hinge_linear").build(0).fit(X, y).score(Xt, yt) == 1.0   # clean: all atoms right


def test_meanclf_grid_is_the_sample_level_fig2():
    g = grid("meanclf_long_servedio")
    assert list(g.methods) == ["unhinged", "hinge_linear", "logistic_linear", "mean_classifier"]
    gam = {k: v.params["gamma"] for k, v in g.datasets.items()}
    assert all(isinstance(v, _Generated) and v.generator == "long_servedio" and v.params["version"] == "2d"
               and v.params["n"] == 2000 for v in g.datasets.values())
    assert gam == pytest.approx({"ls_gamma12": 1 / 12, "ls_gamma24": 1 / 24, "ls_gamma48": 1 / 48}, rel=1e-15)
    assert (g.rates, len(g.seeds), g.test_size) == ([0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4], 100, 0.25) and len(g) == 8400


# ---------------------------------------------------------------- RMBoost's extra grids (notebook 81)
def test_rmboost_extra_grids_share_labels_parameters_and_tasks_with_table3():
    t3 = grid("rmboost_table3")
    t3_ids = ids(t3)
    for name in ["rmboost_onesided", "rmboost_onesided_adversarial", "rmboost_table5", "rmboost_figure6"] + [f"rmboost_figure5_n{n}" for n in (100, 300, 500, 700, 900)]:
        g = grid(name)
        assert g.name == name and g.test_size == 0.1 and g.seeds == [0]
        shared = [m for m in g.methods if m in t3.methods]
        assert shared, name
        for m in shared: assert g.methods[m].describe() == t3.methods[m].describe(), (name, m)   # same method, same label
    one = grid("rmboost_onesided")
    assert list(one.noise) == ["one_sided"] and one.splits == 500 and list(one.methods) == ["AdaBoost", "RMBoost"]
    assert one.rates == pytest.approx([0.0] + [0.03 * k for k in range(1, 11)])
    clean = one.subset(rates=[0.0], splits=100)
    assert len(clean) == 2 * 2 * 100 and all(t3_ids[t.task_id] == t.seeds() for t in clean.tasks())   # shared with Table 3
    adv = grid("rmboost_onesided_adversarial")   # the rebuttal's adversarial sweep: 100 of one's 500 partitions, rate 0 shared
    assert list(adv.noise) == ["one_sided_adversarial"] and adv.splits == 100 and adv.rates == one.rates and list(adv.methods) == list(one.methods)
    one_ids = ids(one)
    clean_adv = adv.subset(rates=[0.0])
    assert len(clean_adv) == 400 and all(one_ids[t.task_id] == t.seeds() for t in clean_adv.tasks())
    fig6 = grid("rmboost_figure6")
    lams = [fig6.methods[m].build(0).get_params()["lam"] for m in fig6.methods]
    assert lams == ["auto", 1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1.0] and fig6.splits == 200
    shared6 = fig6.subset(methods=["RMBoost"], splits=100)
    assert all(t3_ids[t.task_id] == t.seeds() for t in shared6.tasks())
    t5 = grid("rmboost_table5")
    assert set(t5.methods) == set(t3.methods) and t5.max_train == {"magic": 5000, "synthetic": 5000}
    assert isinstance(t5.datasets["synthetic"], _Generated) and t5.datasets["synthetic"].generator == "make_classification"
    assert {(t.noise, t.rate) for t in t5.tasks()} == set(zip(published_table("rmboost", 5).noise, published_table("rmboost", 5).rate))
    for n in (100, 300, 500, 700, 900):
        g = grid(f"rmboost_figure5_n{n}")
        assert list(g.methods) == ["AdaBoost", "LPBoost", "RMBoost"] and set(g.max_train.values()) == {n} and g.splits == 100
        assert {t.noise for t in g.tasks()} == {"none"}


# ---------------------------------------------------------------- the claims
ACC = pd.DataFrame({"ANE": [90, 80, 70], "CL": [85, 82, 69], "MSE": [91, 60, 50]}, index=["a", "b", "c"])


def test_among_best_holds_and_fails():
    ok = among_best({"DT": ACC, "RF": ACC + 1}, "ANE", higher_is_better=True)
    assert ok.holds and list(ok.numbers["place"]) == [1, 1]
    assert ok.numbers.loc["DT", "average_rank"] == pytest.approx(5 / 3)       # ranks 2, 2, 1 (higher accuracy is better)
    bad = among_best({"DT": ACC, "RF": ACC.assign(ANE=[1, 1, 1])}, "ANE", higher_is_better=True)
    assert not bad.holds and list(bad.numbers["holds"]) == [True, False] and "does not hold" in bad.statement
    errors = 100 - ACC                                                          # the same as errors, lower is better
    assert among_best(errors, "ANE").numbers["average_rank"].iloc[0] == pytest.approx(5 / 3)
    assert not among_best(errors, "MSE", k=1).holds and among_best(errors, "MSE", k=3).holds
    cl = among_best(ACC, "CL", k=1, higher_is_better=True)                      # CL ranks 3, 1, 2 → 2: second to ANE
    assert not cl.holds and cl.numbers["place"].iloc[0] == 2 and among_best(ACC, "CL", k=2, higher_is_better=True).holds


@pytest.mark.parametrize("args, exc, match", [
    (("nope", "ANE"), TypeError, "blocks × methods DataFrame"),
    (({"DT": ACC}, "XGB"), ValueError, "'XGB' is not a column of table 'DT'"),
    (({"DT": ACC}, "ANE", 0), ValueError, "k must be an int >= 1"),
    (({"DT": ACC.assign(ANE=[1, np.nan, 2])}, "ANE"), ValueError, "missing or non-numeric"),
])
def test_among_best_bad_input(args, exc, match):
    with pytest.raises(exc, match=match): among_best(*args)


THR = pd.DataFrame({"hinge": [0.144, 0.084, 0.046, 0.023], "mean": [np.nan] * 4}, index=[1 / 12, 1 / 24, 1 / 48, 1 / 100])


def test_vanishing_thresholds_holds_and_fails():
    ok = vanishing_thresholds(THR, robust="mean", fragile="hinge")
    assert ok.holds and ok.numbers["hinge threshold / γ"].tolist() == pytest.approx([1.728, 2.016, 2.208, 2.3])
    assert not vanishing_thresholds(THR.assign(mean=[np.nan, np.nan, 0.3, np.nan]), "mean", "hinge").holds   # mean fails once
    assert not vanishing_thresholds(THR.assign(hinge=[0.144, 0.084, 0.046, 0.046]), "mean", "hinge").holds  # stops shrinking
    assert not vanishing_thresholds(THR.assign(hinge=[0.144, np.nan, 0.046, 0.023]), "mean", "hinge").holds # survives at one γ
    flat = THR.assign(hinge=[0.2, 0.15, 0.1, 0.05])                # shrinks, but not in proportion to γ (ratio 2.4 → 5)
    assert not vanishing_thresholds(flat, "mean", "hinge").holds and vanishing_thresholds(flat, "mean", "hinge", max_ratio=3).holds
    shuffled = THR.iloc[[2, 0, 3, 1]]                              # row order does not matter
    assert vanishing_thresholds(shuffled, "mean", "hinge").numbers.equals(ok.numbers)


@pytest.mark.parametrize("args, kw, exc, match", [
    (("x",), dict(robust="mean", fragile="hinge"), TypeError, "thresholds must be a DataFrame"),
    ((THR,), dict(robust="unhinged", fragile="hinge"), ValueError, "'unhinged' is not a column"),
    ((THR.set_axis(list("abcd")),), dict(robust="mean", fragile="hinge"), ValueError, "indexed by the scale"),
    ((THR,), dict(robust="mean", fragile="hinge", max_ratio=0.5), ValueError, "max_ratio must be a number >= 1"),
])
def test_vanishing_thresholds_bad_input(args, kw, exc, match):
    with pytest.raises(exc, match=match): vanishing_thresholds(*args, **kw)
