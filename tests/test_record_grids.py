"""The results-of-record grid files (robust_ref/grids/*.toml read by notebooks 81 and 90) encode the papers' protocols."""
import pytest

from robust_ref.datasets import list_datasets, published_table
from robust_ref.experiments import available_methods, example_grids, read_grid


def test_rmboost_table3_grid_is_the_papers_protocol():
    g = read_grid(example_grids()["rmboost_table3"])
    pub = published_table("rmboost", 3)
    assert g.name == "rmboost_table3"
    assert list(g.datasets) == list(dict.fromkeys(pub.dataset))           # the 8 datasets of Table 3, in its order
    assert (g.seeds, g.splits, g.test_size) == ([0], 100, 0.1)            # 100 stratified partitions, 10% test
    settings = {(t.noise, t.rate) for t in g.tasks()}
    assert settings == set(zip(pub.noise, pub.rate)) == {("none", 0.0), ("uniform", 0.1), ("uniform", 0.2),
                                                          ("adversarial", 0.1), ("adversarial", 0.2)}
    assert len(g) == 8 * 5 * 100 * 9
    book = {"AdaBoost", "RealAdaBoost", "LogitBoost", "GentleBoost", "LPBoost", "BrownBoost", "RobustBoost", "XGB-Quad", "RMBoost"}
    assert set(g.methods) == book
    assert set(pub.method) - book == {"Robust-GBDT", "Minimax"}          # not in the book / RMBoost's bound column
    assert g.methods["RMBoost"].build(0).get_params()["n_estimators"] == 200
    for m in ["AdaBoost", "RealAdaBoost", "LogitBoost", "GentleBoost", "BrownBoost", "RobustBoost"]:
        p = g.methods[m].build(0).get_params()
        assert (p["n_estimators"], p["base_learner"], p["max_leaf_nodes"]) == (100, "tree", 11), m


def test_a_live_slice_has_the_record_grids_task_keys():
    "Notebook 81's live slice: the same methods, fewer datasets/partitions — every task is a task of the record grid."
    g = read_grid(example_grids()["rmboost_table3"])
    live = g.subset(datasets=["titanic"], rates=[0.0, 0.1], seeds=g.seeds[:1], splits=1)
    ids = {t.task_id: t.seeds() for t in g.tasks()}
    assert len(live) == 27 and all(ids[t.task_id] == t.seeds() for t in live.tasks())


def test_leaderboard_grid_covers_every_method_dataset_and_noise_model():
    g = read_grid(example_grids()["leaderboard"])
    assert g.name == "leaderboard" and list(g.datasets) == list_datasets()          # all 15 bundled datasets
    fig2_only = {"unhinged", "hinge_linear", "logistic_linear"}   # raw-feature hyperplanes through the origin (notebook 84's grid)
    paper_only = {"arb_trunc_exp",   # Arch Boost's truncated exponential: Fig. 5's comparison (notebook 85's grid), not the leaderboard's
                  "mean_herd", "mean_random_subset"}   # the mean classifier's herds: Fig. 1 (notebook 84's grid)
    assert set(g.methods) == set(available_methods()) - {"dummy"} - fig2_only - paper_only   # every other registry method that runs here
    assert list(g.noise) == ["uniform", "class_conditional", "one_sided", "adversarial"]
    assert (g.rates, g.seeds, g.splits) == ([0.0, 0.1, 0.2, 0.3], [0, 1, 2, 3, 4], 1)
    assert all(m.params == {} for m in g.methods.values())                           # default parameters
    assert g.max_train == {"magic": 5000} and {"cl_gbdt", "cl_logistic"} <= set(g.methods)   # the confident-learning contenders
    assert len(g) == 15 * (1 + 4 * 3) * len(g.methods) * 5 == 15 * 13 * 22 * 5
