"""The record at scale (grid scale_higgs_like): the higgs_like stand-in as a grid generator (one definition, its rows
unchanged), the runner's per-partition draw handed to the fit without a per-task copy, the risk_path metric (RMBoost's
certified R per round; the empty list for the other methods), and a tiny version of the grid end to end."""
import hashlib

import numpy as np
import pandas as pd
import pytest

import robust_ref.experiments as ex
from robust_ref.datasets import higgs_like
from robust_ref.experiments import run as run_mod
from robust_ref.experiments.metrics import METRICS, risk_path

GRID = ex.example_grids()["scale_higgs_like"]


def tiny(folder, n: int = 2000, seeds: str = "[0]"):
    "The record grid with n training rows and the given seeds (everything else as in the file)."
    text = GRID.read_text()
    assert "n_train = 1000000" in text and "seeds = [0, 1, 2]" in text   # the replacements below must hit
    p = folder / "scale_tiny.toml"
    p.write_text(text.replace("n_train = 1000000", f"n_train = {n}").replace("seeds = [0, 1, 2]", f"seeds = {seeds}"))
    return ex.read_grid(p)


def test_the_record_grid_is_the_issues_grid():
    g = ex.read_grid(GRID)
    assert g.name == "scale_higgs_like" and len(g) == 36                    # 3 noise cells × 3 seeds × 4 methods
    d = g.datasets["higgs_like"]
    assert (d.generator, d.n_train, d.n_test, d.params) == ("higgs_like", 1_000_000, 20_000, {})
    assert {(t.noise, t.rate) for t in g.tasks()} == {("none", 0.0), ("uniform", 0.1), ("uniform", 0.2)}
    assert (g.seeds, g.splits, g.metrics) == ([0, 1, 2], 1, (("risk_path", ()),))
    registry = {"RMBoost": "rmboost", "AdaBoost": "adaboost", "LogitBoost": "logitboost", "ANE forest": "robust_forest"}
    assert set(g.methods) == set(registry)
    for label, name in registry.items():                                   # the registry's defaults, nothing overridden
        assert g.methods[label].describe() == ex.get_method(name).describe(), label
    assert g.methods["ANE forest"].build(0).criterion == "ane"


def test_higgs_like_is_defined_once_and_keeps_its_rows():
    from robust_ref.experiments.scaling import higgs_like as from_scaling
    assert from_scaling is higgs_like and ex.GENERATORS["higgs_like"](n=50, random_state=3)[0].shape == (50, 28)
    X, y = higgs_like(1000, random_state=7)
    # hashed from the definition the scaling page's stored measurements were made with, before it moved
    assert hashlib.sha256(X.tobytes() + y.tobytes()).hexdigest()[:16] == "dd5bc0f0f5c97f5d"
    with pytest.raises(ValueError, match="n must be a positive int"): higgs_like(0)


def test_the_grid_draws_exactly_higgs_likes_rows(tmp_path):
    g = tiny(tmp_path, seeds="[0, 1]")
    firsts = []
    for t in g.subset(methods=["AdaBoost"]).tasks():
        X_tr, X_te, y_tr, y_noisy, y_te = ex.task_data(t)
        X, y = higgs_like(2000 + 20_000, random_state=t.seeds()["split"])   # one draw; the first n train, the last 20,000 test
        assert np.array_equal(X_tr, X[:2000]) and np.array_equal(X_te, X[2000:])
        assert np.array_equal(y_tr, y[:2000]) and np.array_equal(y_te, y[2000:])
        assert np.sum(y_noisy != y_tr) == round(t.rate * 2000)              # uniform noise: exactly round(rate·n) flips
        firsts.append((t.seed, X_tr[0, 0]))
    assert len({x for s, x in firsts if s == 0}) == 1 and len({x for _, x in firsts}) == 2   # a draw per seed, shared by its cells


def test_a_draw_is_handed_to_the_fit_without_a_copy(tmp_path):
    t = tiny(tmp_path).subset(methods=["AdaBoost"], rates=[0.1]).tasks()[0]
    X_tr, X_te = ex.task_data(t)[:2]
    draw = X_tr.base                                                         # views of the one cached draw
    assert draw is not None and X_te.base is draw and ex.task_data(t)[0].base is draw and draw.shape == (22_000, 28)
    assert np.shares_memory(X_tr, draw) and X_tr.flags.c_contiguous
    a = np.arange(20.0).reshape(10, 2)
    assert np.shares_memory(run_mod._rows(a, np.arange(3, 7)), a)
    for idx in ([3, 5, 6], [6, 5, 4], [4, 4, 6]):                            # not a contiguous ascending run: a copy
        r = run_mod._rows(a, idx)
        assert not np.shares_memory(r, a) and np.array_equal(r, a[idx])


def test_the_cache_drops_the_oldest_entries_past_its_byte_budget(monkeypatch):
    monkeypatch.setattr(run_mod, "_CACHE", {})
    monkeypatch.setattr(run_mod, "_CACHE_BYTES", 2000)
    run_mod._cached("a", lambda: np.zeros(100))                              # 800 bytes
    run_mod._cached("b", lambda: (np.zeros(100), np.zeros(50)))              # 1,200: 2,000 in all, at the budget
    assert list(run_mod._CACHE) == ["a", "b"]
    run_mod._cached("c", lambda: np.zeros(10))                               # over it: the oldest goes
    assert list(run_mod._CACHE) == ["b", "c"]


def test_metric_values_that_are_lists_become_lists_of_floats():
    assert run_mod._metric_value(np.array([0.5, 0.25])) == [0.5, 0.25]
    assert run_mod._metric_value([]) == [] and run_mod._metric_value(3) == 3.0
    assert np.isnan(run_mod._metric_value("x"))
    assert METRICS["risk_path"] is risk_path and risk_path.columns == ("R_path",)


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("scale")
    g = tiny(folder)
    out = folder / "results"
    return g, out, ex.run_grid(g, out, backend="serial", progress=False)


def test_a_tiny_version_runs_end_to_end_and_stores_the_R_path(tiny_run):
    g, out, df = tiny_run
    assert len(df) == 12 and (df.status == "ok").all(), df[df.status != "ok"].error.tolist()
    stored = pd.read_parquet(out / "results.parquet")
    assert len(stored) == 12 and set(stored.n_train) == {2000} and set(stored.n_test) == {20_000}
    rm, other = stored[stored.method == "RMBoost"], stored[stored.method != "RMBoost"]
    assert len(rm) == 3 and all(len(p) == r + 1 for p, r in zip(rm.R_path, rm.n_rounds))   # R⁽⁰⁾ and one per round
    assert all(p[0] == 0.5 for p in rm.R_path) and all(len(p) == 0 for p in other.R_path)  # others: the empty list
    assert [list(p) for p in ex.load_results(out).R_path] == [list(p) for p in stored.R_path]   # the log and the table agree


def test_the_stored_R_path_is_the_fitted_models_bit_for_bit(tiny_run):
    g, out, _ = tiny_run
    stored = pd.read_parquet(out / "results.parquet").set_index("task_id")
    t = next(t for t in g.tasks() if t.method.name == "RMBoost" and t.rate == 0.2)
    X_tr, _, _, y_noisy, _ = ex.task_data(t)
    est = t.method.build(t.seeds()["fit"]).fit(X_tr, y_noisy)              # the task's fit again (deterministic)
    path = np.asarray(stored.R_path[t.task_id], dtype=np.float64)
    assert np.array_equal(path, est.risk_path_) and len(path) == est.n_iter_ + 1
    assert path[-1] == stored.bound[t.task_id] == est.minimax_risk_          # the last entry is the row's bound


def test_a_rerun_resumes_and_the_fits_left_the_cached_draw_alone(tiny_run):
    g, out, _ = tiny_run
    again = ex.run_grid(g, out, backend="serial", progress=False)
    assert (again.attrs["new"], again.attrs["already_done"]) == (0, 12)
    t = g.tasks()[-1]
    X, _ = higgs_like(22_000, random_state=t.seeds()["split"])
    assert np.array_equal(ex.task_data(t)[0], X[:2000])                      # the views the fits saw were not written into
