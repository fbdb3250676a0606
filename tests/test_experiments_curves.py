"Runner features for the synthetic-curve papers: fresh draws per partition, i.i.d. flips, per-round curves, claims."
import hashlib
import json

import numpy as np
import pandas as pd
import pytest

import robust_ref.experiments as E
from robust_ref.alpha_loss import AdaBoostAlpha
from robust_ref.datasets import make_long_servedio
from robust_ref.noise import flip_uniform
from sklearn.tree import DecisionTreeClassifier


def _digest(grid):
    return hashlib.sha256(json.dumps([[t.task_id, t.seeds()] for t in grid.tasks()]).encode()).hexdigest()[:16]


# computed on main (commit 1a289d6) before the curve and draw features existed: the record runs use these keys
@pytest.mark.parametrize("name, fingerprint, digest", [("rmboost_table3", "485f44d123b7c32e", "d1a0a0fc20951ee2"),
                                                        ("leaderboard", "241a78248b30bea7", "10a22b6b66357d88")])
def test_record_grids_keep_their_task_ids_seeds_and_fingerprint(name, fingerprint, digest):
    g = E.read_grid(E.example_grids()[name])
    assert g.fingerprint() == fingerprint and _digest(g) == digest
    assert "curve_rounds" not in g.spec() and g.curve_rounds is None


def _grid(**kw):
    return E.Grid({"ls": E.drawn_dataset("long_servedio", n_train=120, n_test=300)},
                  [("a05", AdaBoostAlpha(0.5, n_estimators=15)), ("a2", AdaBoostAlpha(2.0, n_estimators=15))],
                  noise=["uniform_iid"], rates=[0.0, 0.2], splits=2, **kw)


def test_drawn_dataset_is_the_generator_called_with_the_split_seed_computed_independently():
    t = next(t for t in _grid().tasks() if t.rate == 0.2 and t.split == 1 and t.method.name == "a2")
    X_tr, X_te, y_tr, y_noisy, y_te = E.run._data(t)
    s = t.seeds()
    X, y = make_long_servedio(420, random_state=s["split"])          # the generator's defaults: 21 features, γ = 1/20
    np.testing.assert_array_equal(X_tr, X[:120]); np.testing.assert_array_equal(X_te, X[120:])
    np.testing.assert_array_equal(y_tr, y[:120]); np.testing.assert_array_equal(y_te, y[120:])
    np.testing.assert_array_equal(y_noisy, flip_uniform(y[:120], 0.2, exact=False, random_state=s["noise"]).y)
    other = E.run._data(next(t for t in _grid().tasks() if t.split == 0 and t.rate == 0.2))
    assert not np.array_equal(other[0], X_tr)                          # a fresh sample in each partition


def test_uniform_iid_flips_are_bernoulli_not_an_exact_count():
    y = np.r_[np.ones(500), -np.ones(500)]
    counts = {int(np.sum(E.NOISE["uniform_iid"](y, 0.1, X=None, random_state=s) != y)) for s in range(20)}
    exact = {int(np.sum(E.NOISE["uniform"](y, 0.1, X=None, random_state=s) != y)) for s in range(20)}
    assert exact == {100} and len(counts) > 5 and min(counts) < 100 < max(counts)


def test_curves_are_staged_errors_and_do_not_change_keys_or_results():
    plain, curved = _grid(), _grid(curve_rounds=[15, 1, 5, 40])
    assert curved.curve_rounds == (1, 5, 15, 40)
    assert [t.task_id for t in plain.tasks()] == [t.task_id for t in curved.tasks()]
    assert plain.fingerprint() != curved.fingerprint()        # the stored rows differ (they hold curves)
    a, b = E.run_grid(plain, backend="serial", progress=False), E.run_grid(curved, backend="serial", progress=False)
    assert (b.status == "ok").all()
    pd.testing.assert_series_equal(a.test_error, b.test_error)
    t = curved.tasks()[3]
    X_tr, X_te, _, y_noisy, y_te = E.run._data(t)
    est = t.method.build(t.seeds()["fit"]).fit(X_tr, y_noisy)
    staged = [np.mean(p != y_te) for p in est.staged_predict(X_te)]
    want = [staged[min(r, len(staged)) - 1] for r in (1, 5, 15, 40)]   # round 40 > 15 fitted rounds: the final ensemble
    assert list(b.curve_test_error[3]) == want and list(b.curve_rounds[3]) == [1, 5, 15, 40]


def test_staged_errors_past_an_early_stop_repeat_the_final_ensemble():
    class Two:
        def staged_predict(self, X):
            yield np.array([1, 1, -1, -1]); yield np.array([1, -1, -1, -1])
    assert E.staged_test_errors(Two(), None, [1, -1, -1, -1], [1, 2, 7]) == [0.25, 0.0, 0.0]
    with pytest.raises(TypeError, match="staged_predict"):
        E.staged_test_errors(DecisionTreeClassifier(), None, [1], [1])


def test_a_method_without_stages_fails_its_rows_with_the_reason():
    g = E.Grid({"ls": E.drawn_dataset("long_servedio", n_train=60, n_test=60)}, [("tree", DecisionTreeClassifier(max_depth=2))],
               curve_rounds=[1])
    df = E.run_grid(g, backend="serial", progress=False)
    assert (df.status == "failed").all() and df.error.str.contains("staged_predict").all()


def test_curves_survive_the_store_and_parquet_and_summarise(tmp_path):
    g = _grid(curve_rounds=[1, 5, 15])
    E.run_grid(g, tmp_path / "r", backend="serial", progress=False)
    df = pd.read_parquet(tmp_path / "r" / "results.parquet")
    cs = E.curve_summary(df)
    cell = df[(df.method == "a2") & (df.rate == 0.2)]
    errs = np.array([list(e) for e in cell.curve_test_error])
    np.testing.assert_allclose(cs.loc[("ls", "uniform_iid", 0.2, "a2")]["mean"].to_numpy(), errs.mean(0))
    np.testing.assert_allclose(cs.loc[("ls", "uniform_iid", 0.2, "a2")]["sd"].to_numpy(), errs.std(0, ddof=1))
    assert list(cs.loc[("ls", "none", 0.0, "a05")]["n"]) == [2, 2, 2]
    fig = E.plot_round_curves(df, "ls", "uniform_iid", 0.2, accuracy=True)
    assert len(fig.axes[0].lines) == 2
    with pytest.raises(ValueError, match="no curves for"): E.plot_round_curves(df, "ls", "uniform", 0.2)
    with pytest.raises(ValueError, match="curve_rounds"): E.curve_summary(df.drop(columns=["curve_rounds", "curve_test_error"]))


def test_grid_file_with_drawn_dataset_and_curves(tmp_path):
    f = tmp_path / "g.toml"
    f.write_text('name = "c"\nnoise = ["uniform_iid"]\nrates = [0.1]\ncurve_rounds = [1, 10]\n'
                 '[datasets.ls]\ngenerator = "long_servedio"\nn_train = 50\nn_test = 70\n[methods.adaboost_alpha]\nn_estimators = 10\n')
    g = E.read_grid(f)
    assert g.datasets["ls"] == E.drawn_dataset("long_servedio", n_train=50, n_test=70) and g.curve_rounds == (1, 10)
    assert g.spec()["datasets"]["ls"] == "drawn:long_servedio(n_train=50, n_test=70)"
    f.write_text(f.read_text().replace("n_test = 70\n", ""))
    with pytest.raises(ValueError, match="g.toml:.*n_test is missing"): E.read_grid(f)


@pytest.mark.parametrize("kwargs, match", [
    (dict(n_train=1, n_test=5), "n_train must be an int >= 2"), (dict(n_train=5, n_test=0), "n_test must be an int >= 1"),
    (dict(n_train=5, n_test=5, n=3), "sets 'n' itself"), (dict(n_train=5, n_test=5, random_state=3), "sets 'random_state' itself"),
    (dict(n_train=5, n_test=5, gama=0.1), "its parameters")])
def test_bad_drawn_datasets(kwargs, match):
    with pytest.raises(ValueError, match=match): E.drawn_dataset("long_servedio", **kwargs)


@pytest.mark.parametrize("rounds", [[], [0, 3], [1.5], "10", [True]])
def test_bad_curve_rounds(rounds):
    with pytest.raises(ValueError, match="curve_rounds must be"): _grid(curve_rounds=rounds)


def test_subset_keeps_curves_and_draws():
    g = _grid(curve_rounds=[1, 5]).subset(rates=[0.2], splits=1)
    assert g.curve_rounds == (1, 5) and len(g) == 2


def test_level_claim_both_directions():
    acc = pd.Series({"α=0.5": 0.73, "α=1": 0.79, "α=2": 0.991})
    c = E.level_claim(acc, at_least={"α=2": 0.99}, below={"α=0.5": 0.8, "α=1": 0.8})
    assert c.holds and list(c.numbers.holds) == [True] * 3
    c = E.level_claim(acc.replace(0.991, 0.98), at_least={"α=2": 0.99}, below={"α=0.5": 0.8, "α=1": 0.8})
    assert not c.holds and "fails for α=2" in c.statement and c.numbers.loc["α=2", "margin"] == pytest.approx(-0.01)
    c = E.level_claim(acc.replace(0.79, 0.8), at_least={"α=2": 0.99}, below={"α=1": 0.8})   # "below" is strict
    assert not c.holds
    with pytest.raises(ValueError, match="no value"): E.level_claim(acc, at_least={"α=3": 0.9})
    with pytest.raises(ValueError, match="needs a level"): E.level_claim(acc)


def test_ordering_claim_both_directions():
    t = pd.DataFrame({"ARB-2": [0.001, 0.01], "RobustBoost": [0.002, 0.03], "Real AdaBoost": [0.25, 0.2]},
                     index=pd.Index([0.1, 0.2], name="rate"))
    assert E.ordering_claim(t, ["ARB-2", "RobustBoost", "Real AdaBoost"]).holds
    c = E.ordering_claim(t.assign(**{"RobustBoost": [0.002, 0.005]}), ["ARB-2", "RobustBoost", "Real AdaBoost"])
    assert not c.holds and "RobustBoost 0.005" in c.statement and c.numbers.holds.sum() == 3
    assert not E.ordering_claim(t.iloc[[0]], ["ARB-2", "RobustBoost"], higher_is_better=True).holds
    assert E.ordering_claim({"A": 0.9, "B": 0.3}, [("A", "B")], higher_is_better=True).holds
    c = E.ordering_claim({"A": 0.3, "B": 0.3}, ["A", "B"])
    assert not c.holds                                                  # a tie is not "better"
    with pytest.raises(ValueError, match="not columns"): E.ordering_claim(t, ["ARB-2", "LogitBoost"])
    with pytest.raises(ValueError, match="at least 2"): E.ordering_claim(t, ["ARB-2"])


def test_a_record_with_curves_is_checked_round_by_round(tmp_path):
    f = tmp_path / "c.toml"
    f.write_text('name = "c"\nnoise = ["uniform_iid"]\nrates = [0.2]\nsplits = 2\ncurve_rounds = [1, 3, 8]\n'
                 '[datasets.ls]\ngenerator = "long_servedio"\nn_train = 60\nn_test = 80\n[methods.a2]\nmethod = "adaboost_alpha"\nn_estimators = 8\n')
    g = E.read_grid(f)
    E.save_record(E.run_grid(g, backend="serial", progress=False), "c", grid=f, root=tmp_path / "rec")
    live = E.run_grid(g.subset(splits=1), backend="serial", progress=False)
    assert E.check_against_record(live, "c", root=tmp_path / "rec")["agreeing"].sum() == 1
    rec = pd.read_parquet(tmp_path / "rec" / "c" / "results.parquet")
    assert list(rec.curve_rounds[0]) == [1, 3, 8]
    rec.at[0, "curve_test_error"] = np.asarray(rec.curve_test_error[0]) + np.r_[0.0, 0.0125, 0.0]   # one test point at round 3
    rec.to_parquet(tmp_path / "rec" / "c" / "results.parquet", index=False)
    with pytest.raises(AssertionError, match="method 'a2': 1 of 1 tasks"): E.check_against_record(live, "c", root=tmp_path / "rec")
    assert E.check_against_record(live, "c", atol=0.02, root=tmp_path / "rec")["agreeing"].sum() == 1   # within the tolerance


def test_refreshing_one_method_of_a_curve_record_keeps_its_curves(tmp_path):
    f = tmp_path / "c.toml"
    f.write_text('name = "c"\nnoise = ["uniform_iid"]\nrates = [0.2]\nsplits = 2\ncurve_rounds = [1, 4]\n'
                 '[datasets.ls]\ngenerator = "long_servedio"\nn_train = 60\nn_test = 80\n'
                 '[methods.a2]\nmethod = "adaboost_alpha"\nn_estimators = 4\n[methods.a05]\nmethod = "adaboost_alpha"\nalpha = 0.5\nn_estimators = 4\n')
    g = E.read_grid(f)
    E.save_record(E.run_grid(g, backend="serial", progress=False), "c", grid=f, root=tmp_path / "rec")
    before = pd.read_parquet(tmp_path / "rec" / "c" / "results.parquet")
    E.refresh_record("c", "a2", root=tmp_path / "rec", backend="serial")
    after = pd.read_parquet(tmp_path / "rec" / "c" / "results.parquet")
    assert len(after) == 4 and all(len(c) == 2 for c in after.curve_test_error)
    key = ["task_id"]
    pd.testing.assert_series_equal(before.sort_values(key).curve_test_error.map(list).reset_index(drop=True),
                                   after.sort_values(key).curve_test_error.map(list).reset_index(drop=True))
