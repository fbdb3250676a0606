"""robust_ref.experiments: the protocol of a task, bit-identical serial/joblib/Dask runs, the resumable store, grid files, summaries."""
import json
import sys
from pathlib import Path
import time
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import make_classification
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

import robust_ref.experiments as E
from robust_ref.experiments import grid as G, loaders as L, registry as REG, run as RUN, store as STORE
from robust_ref.core import derive_seed
from robust_ref.datasets import load_dataset
from robust_ref.noise import flip_class_conditional

STABLE = [c for c in E.ROW_COLUMNS if c not in E.VOLATILE_COLUMNS]


def tiny_grid(**kw):
    args = dict(datasets=["heart"], methods=["tree", "logistic"], noise=["uniform"], rates=[0.0, 0.2], seeds=2, name="tiny")
    args.update(kw)
    return E.Grid(**args)


# ---------------------------------------------------------------- the protocol of one task

def test_task_is_the_protocol_computed_independently():
    grid = E.Grid(["heart"], [("cart", DecisionTreeClassifier(max_depth=3))], noise=["class_conditional"], rates=[0.2],
                  seeds=[7], test_size=0.3)
    (task,) = grid.tasks()
    row = E.run_task(task)
    X, y = load_dataset("heart", return_X_y=True, missing="impute")
    base = ("heart", 7, 0, 0.3)
    split_seed, noise_seed = derive_seed("split", *base) % 2**32, derive_seed("noise", *base, "class_conditional", 0.2)
    fit_seed = derive_seed("fit", *base, "class_conditional", 0.2, "cart") % 2**32
    tr, te = next(StratifiedShuffleSplit(n_splits=1, test_size=0.3, random_state=split_seed).split(X, y))
    noisy = flip_class_conditional(y[tr], 0.2, 0.1, random_state=noise_seed).y   # ρ₊ = ρ, ρ₋ = ρ/2
    model = DecisionTreeClassifier(max_depth=3, random_state=fit_seed).fit(X[tr], noisy)
    assert row["status"] == "ok", row["error"]
    assert row["test_error"] == np.mean(model.predict(X[te]) != y[te])
    assert row["train_error"] == np.mean(model.predict(X[tr]) != noisy)
    assert row["train_clean_error"] == np.mean(model.predict(X[tr]) != y[tr])
    assert row["flip_fraction"] == np.mean(noisy != y[tr]) > 0
    assert (row["n_train"], row["n_test"]) == (len(tr), len(te))
    assert row["n_leaves"] == model.get_n_leaves() and row["fit_seconds"] > 0
    assert 0 <= row["fit_cpu_seconds"] <= 2 * row["fit_seconds"] + 0.05 and np.isfinite(row["load_1min"])
    assert json.loads(row["params"])["max_depth"] == 3 and row["estimator"].endswith("DecisionTreeClassifier")


def test_split_and_noise_seeds_are_shared_across_methods_and_models():
    grid = E.Grid(["heart"], ["tree", "logistic"], noise=["uniform", "one_sided"], rates=[0.1], seeds=[0, 1])
    seeds = {t.key: t.seeds() for t in grid.tasks()}
    for (d, nz, r, m, s, k), sd in seeds.items():
        other = seeds[(d, "one_sided" if nz == "uniform" else "uniform", r, m, s, k)]
        assert sd["split"] == other["split"] and sd["noise"] != other["noise"]
        same_noise = seeds[(d, nz, r, "logistic" if m == "tree" else "tree", s, k)]
        assert sd["noise"] == same_noise["noise"] and sd["fit"] != same_noise["fit"]
    assert len({sd["split"] for sd in seeds.values()}) == 2   # one partition per seed


def test_rate_zero_is_one_clean_cell_for_all_noise_models():
    grid = E.Grid(["heart", "sonar"], ["tree"], noise=["uniform", "one_sided", "adversarial"], rates=[0, 0.1], seeds=2)
    tasks = grid.tasks()
    assert len(tasks) == 2 * (1 + 3) * 2
    assert sum(t.noise == "none" for t in tasks) == 4 and all(t.rate == 0 for t in tasks if t.noise == "none")
    assert len({t.task_id for t in tasks}) == len(tasks)


def test_results_do_not_depend_on_execution_order():
    tasks = tiny_grid(methods=["tree", E.get_method("forest", quick=True)]).tasks()
    RUN._CACHE.clear()
    forward = pd.DataFrame([E.run_task(t) for t in tasks])
    RUN._CACHE.clear()
    backward = pd.DataFrame([E.run_task(t) for t in reversed(tasks)]).iloc[::-1].reset_index(drop=True)
    pd.testing.assert_frame_equal(forward[STABLE[:-1]], backward[STABLE[:-1]], check_exact=True)


# ---------------------------------------------------------------- serial = joblib = Dask, bit for bit

def test_serial_joblib_and_dask_are_bit_identical():
    distributed = pytest.importorskip("distributed")
    grid = tiny_grid(datasets=["heart", "haberman"], methods=["tree", E.get_method("forest", quick=True), "gbdt"],
                     rates=[0.0, 0.1], seeds=[3])
    serial = E.run_grid(grid, backend="serial", progress=False)
    joblib_ = E.run_grid(grid, backend="joblib", n_jobs=2, progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        dask_ = E.run_grid(grid, backend="dask", client=client, progress=False)
        assert len(client.scheduler_info()["workers"]) == 2
    assert len(serial) == len(grid) == 12 and (serial.status == "ok").all()
    pd.testing.assert_frame_equal(serial[STABLE], joblib_[STABLE], check_exact=True)
    pd.testing.assert_frame_equal(serial[STABLE], dask_[STABLE], check_exact=True)
    assert len(set(joblib_.worker)) >= 1 and set(dask_.worker).isdisjoint(set(serial.worker))


def test_dead_dask_address_fails_clearly_within_the_timeout(tmp_path):
    pytest.importorskip("distributed")
    t0 = time.perf_counter()
    with pytest.raises(ConnectionError, match="no Dask scheduler answered at 'tcp://127.0.0.1:9'"):
        E.run_grid(tiny_grid(), tmp_path / "out", backend="dask", client="tcp://127.0.0.1:9", timeout=2)
    assert time.perf_counter() - t0 < 2 + 10
    assert not (tmp_path / "out").exists()   # nothing written for a run that could not start
    with pytest.raises(ValueError, match="needs client="):
        E.run_grid(tiny_grid(), backend="dask")


def test_custom_dataset_and_noise_functions_run_in_worker_processes():
    def toy(): return make_classification(n_samples=120, n_features=5, random_state=0)
    def flip_first(y, rate, *, X, random_state):
        y = y.copy(); k = int(round(rate * len(y))); y[:k] = 1 - y[:k]; return y
    grid = E.Grid({"toy": toy}, ["tree"], noise={"first": flip_first}, rates=[0.25], seeds=2)
    a = E.run_grid(grid, backend="serial", progress=False)
    b = E.run_grid(grid, backend="joblib", n_jobs=2, progress=False)
    pd.testing.assert_frame_equal(a[STABLE], b[STABLE], check_exact=True)
    assert (a.status == "ok").all() and np.allclose(a.flip_fraction, 0.25, atol=0.01)


# ---------------------------------------------------------------- the store: resumable, versioned, guarded

def test_rerun_computes_only_missing_tasks(tmp_path):
    grid, out = tiny_grid(), tmp_path / "res"
    first = E.run_grid(grid, out, backend="serial", progress=False)
    meta = json.loads((out / "grid.json").read_text())
    assert meta["runs"][0]["tasks"] == len(grid) == 8 and meta["fingerprint"] == grid.fingerprint()
    assert meta["runs"][0]["versions"]["scikit-learn"] and meta["spec"]["rates"] == [0.0, 0.2]
    E.run_grid(grid, out, backend="serial", progress=False)
    assert len(json.loads((out / "grid.json").read_text())["runs"]) == 1
    lines = (out / "results.jsonl").read_text().splitlines()
    (out / "results.jsonl").write_text("\n".join(lines[:2]) + "\n" + lines[2][:25])  # crash: 6 rows lost, a torn line
    again = E.run_grid(grid, out, backend="serial", progress=False)
    assert json.loads((out / "grid.json").read_text())["runs"][-1]["tasks"] == 6
    pd.testing.assert_frame_equal(first[STABLE], again[STABLE], check_exact=True)
    stored = pd.read_parquet(out / "results.parquet")
    pd.testing.assert_frame_equal(stored[STABLE].reset_index(drop=True),
                                  E.load_results(out)[STABLE].reset_index(drop=True), check_exact=True)


class Interrupter(ClassifierMixin, BaseEstimator):
    "Raises KeyboardInterrupt in fit, like a user pressing Ctrl-C during the second task."
    def __init__(self, x=0): self.x = x
    def fit(self, X, y): raise KeyboardInterrupt
    def predict(self, X): return np.zeros(len(X))


def test_interrupted_run_keeps_the_finished_tasks(tmp_path):
    grid = E.Grid(["heart"], ["tree", ("stop", Interrupter())], seeds=1)
    with pytest.raises(KeyboardInterrupt):
        E.run_grid(grid, tmp_path / "r", backend="serial", progress=False)
    df = E.load_results(tmp_path / "r")
    assert list(df.method) == ["tree"] and (df.status == "ok").all()
    assert (tmp_path / "r" / "results.parquet").is_file()   # consolidated on the way out


def test_failing_method_is_recorded_and_the_grid_goes_on(tmp_path):
    grid = E.Grid(["heart"], [E.Method("bad", LogisticRegression(), {"C": -1.0}), "tree"], seeds=2)
    df = E.run_grid(grid, tmp_path / "r", backend="serial", progress=False)
    assert list(df.status) == ["failed", "ok", "failed", "ok"]
    assert df.error[0].startswith("InvalidParameterError") and "'C'" in df.error[0] and np.isnan(df.test_error[0])
    assert len(E.failures(df)) == 2 and "bad" not in E.error_table(df).columns
    E.run_grid(grid, tmp_path / "r", backend="serial", progress=False, retry_failed=True)
    assert json.loads((tmp_path / "r" / "grid.json").read_text())["runs"][-1]["tasks"] == 2


def test_folder_of_another_grid_is_refused_unless_forced(tmp_path):
    E.run_grid(tiny_grid(), tmp_path / "r", backend="serial", progress=False)
    other = tiny_grid(seeds=3)
    with pytest.raises(ValueError, match="different grid.*force=True"):
        E.run_grid(other, tmp_path / "r", backend="serial", progress=False)
    df = E.run_grid(other, tmp_path / "r", backend="serial", progress=False, force=True)
    assert len(df) == len(other) == 12 and len(E.ResultStore(tmp_path / "r").rows()) == 12


def test_csv_when_pyarrow_is_absent(tmp_path, monkeypatch):
    monkeypatch.setattr(STORE, "_has_pyarrow", lambda: False)
    df = E.run_grid(tiny_grid(), tmp_path / "r", backend="serial", progress=False)
    csv = pd.read_csv(tmp_path / "r" / "results.csv")
    assert not (tmp_path / "r" / "results.parquet").exists()
    np.testing.assert_array_equal(csv.test_error.to_numpy(), df.test_error.to_numpy())


def test_progress_bar_shows_done_and_total(tmp_path, capsys):
    grid = tiny_grid()
    E.run_grid(grid, tmp_path / "r", backend="serial", progress=True)
    err = capsys.readouterr().err
    assert f"{len(grid)}/{len(grid)}" in err
    import re
    assert re.search(r"\[\d\d:\d\d<\d\d:\d\d", err), err    # elapsed<remaining: the ETA
    log = (tmp_path / "r" / "results.jsonl").read_text().splitlines()
    (tmp_path / "r" / "results.jsonl").write_text("\n".join(log[:-3]) + "\n")
    E.run_grid(grid, tmp_path / "r", backend="serial", progress=True)
    err = capsys.readouterr().err
    assert f"{len(grid) - 3}/{len(grid)}" in err and f"{len(grid)}/{len(grid)}" in err   # a resumed run counts what is done


# ---------------------------------------------------------------- the store cannot be bricked

def test_damaged_lines_are_quarantined_and_their_tasks_rerun(tmp_path):
    grid, out = tiny_grid(), tmp_path / "r"
    first = E.run_grid(grid, out, backend="serial", progress=False)
    lines = (out / "results.jsonl").read_text().splitlines()
    assert all(json.loads(l)["grid"] == grid.fingerprint() for l in lines)          # every row names its grid
    lost = [json.loads(lines[i])["task_id"] for i in (1, 3, 5)]
    lines[1], lines[3], lines[5] = "null", "[1, 2]", json.dumps({"status": "ok", "test_error": 0.1})
    (out / "results.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.warns(RuntimeWarning, match=r"3 damaged line\(s\) left out \(line 2: null is not a result row"):
        assert len(E.load_results(out)) == 5                                          # report still reads the folder
    with pytest.warns(RuntimeWarning, match=r"3 damaged line\(s\) moved to .*results.quarantine.jsonl \(line 2: .*line 4: .*"
                                            r"line 6: a row without a task_id\); their tasks are run again"):
        again = E.run_grid(grid, out, backend="serial", progress=False)
    assert {k: again.attrs[k] for k in ('new', 'already_done', 'quarantined')} == dict(new=3, already_done=5, quarantined=3)
    assert again.attrs['wall_seconds'] > 0
    assert set(again.task_id[again.run_id == "run2"]) == set(lost)
    pd.testing.assert_frame_equal(first[STABLE], again[STABLE], check_exact=True)
    kept = [json.loads(l) for l in (out / "results.quarantine.jsonl").read_text().splitlines()]
    assert [(k["line"], k["text"]) for k in kept] == [(2, "null"), (4, "[1, 2]"), (6, lines[5])]   # kept verbatim
    assert len((out / "results.jsonl").read_text().splitlines()) == 8
    with warnings.catch_warnings():
        warnings.simplefilter("error")                                                # the log is clean now
        assert E.run_grid(grid, out, backend="serial", progress=False).attrs["new"] == 0


def test_truncated_grid_json_names_the_file(tmp_path):
    out = tmp_path / "r"
    E.run_grid(tiny_grid(), out, backend="serial", progress=False)
    (out / "grid.json").write_text((out / "grid.json").read_text()[:16])
    for call in (lambda: E.load_results(out), lambda: E.run_grid(tiny_grid(), out, backend="serial", progress=False)):
        with pytest.raises(ValueError, match=r"r/grid.json is damaged \(.*\); .* delete the damaged file"): call()
    (out / "grid.json").unlink()                      # as the message says: the rows still name their grid
    df = E.run_grid(tiny_grid(), out, backend="serial", progress=False)
    assert df.attrs["new"] == 0 and len(df) == 8 and (df.status == "ok").all()


def test_lost_grid_json_does_not_let_another_grid_adopt_the_rows(tmp_path):
    out, a, b = tmp_path / "r", tiny_grid(), tiny_grid(methods=["tree"], seeds=3, name="other")
    E.run_grid(a, out, backend="serial", progress=False)
    (out / "grid.json").unlink()
    with pytest.raises(ValueError, match=r"results.jsonl:1: a row of grid [0-9a-f]{16}; .*merge=True \(--merge\).*force=True"):
        E.run_grid(b, out, backend="serial", progress=False)
    assert not (out / "grid.json").exists() or json.loads((out / "grid.json").read_text())["fingerprint"] != b.fingerprint()
    df_b = E.run_grid(b, out, backend="serial", progress=False, merge=True)
    assert len(df_b) == len(b) == 6 and df_b.attrs["new"] == 6 and set(df_b.grid) == {b.fingerprint()}
    both = E.load_results(out)
    assert len(both) == 8 + 6 and set(both.grid) == {a.fingerprint(), b.fingerprint()}
    assert set(json.loads((out / "grid.json").read_text())["grids"]) == {a.fingerprint(), b.fingerprint()}
    assert E.run_grid(a, out, backend="serial", progress=False).attrs["new"] == 0  # a's rows still count for a


def test_a_row_of_another_grid_is_refused_with_file_and_line(tmp_path):
    out = tmp_path / "r"
    E.run_grid(tiny_grid(), out, backend="serial", progress=False)
    with open(out / "results.jsonl") as f: row = json.loads(f.readline())
    with open(out / "results.jsonl", "a") as f: f.write(json.dumps({**row, "grid": "0123456789abcdef"}) + "\n")
    with pytest.raises(ValueError, match=r"results.jsonl:9: a row of grid 0123456789abcdef"):
        E.run_grid(tiny_grid(), out, backend="serial", progress=False)
    with pytest.warns(RuntimeWarning, match=r"1 row\(s\) of a grid not recorded in grid.json refused \(line 9\)"):
        assert len(E.load_results(out)) == 8
    with pytest.raises(ValueError, match="is a file, not a folder"):
        E.run_grid(tiny_grid(), out / "grid.json", backend="serial", progress=False)
    with pytest.raises(ValueError, match="choose one"):
        E.run_grid(tiny_grid(), out, backend="serial", progress=False, force=True, merge=True)


KILL_SCRIPT = """
import signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)   # Ctrl-C raises, even where the parent started us ignoring SIGINT
from sklearn.tree import DecisionTreeClassifier
import robust_ref.experiments as E

HOLD_AFTER = int(sys.argv[3]) if len(sys.argv) > 3 else None   # after this many fits, the next one waits to be killed
fits = 0

class SlowTree(DecisionTreeClassifier):
    def fit(self, X, y, **kw):
        global fits
        fits += 1
        time.sleep(120 if HOLD_AFTER is not None and fits == HOLD_AFTER + 1 else float(sys.argv[2]))
        return super().fit(X, y, **kw)

grid = E.Grid(["heart"], [("slow", SlowTree(max_depth=3))], noise=["uniform"], rates=[0.0, 0.2], seeds=6, name="kill")
df = E.run_grid(grid, sys.argv[1], backend="serial", progress=False)
print(df.attrs["new"], df.attrs["already_done"])
"""


@pytest.mark.parametrize("sig", ["SIGKILL", "SIGINT"])
def test_a_killed_or_interrupted_run_loses_nothing(tmp_path, sig):
    import os, signal, subprocess
    script = tmp_path / "kill.py"; script.write_text(KILL_SCRIPT)
    env = dict(os.environ, PYTHONPATH=str(Path(E.__file__).resolve().parents[2]))
    out, log = tmp_path / "killed", tmp_path / "killed" / "results.jsonl"
    # the fourth fit waits until the signal comes, so the signal always lands mid-run however loaded the machine is
    proc = subprocess.Popen([sys.executable, str(script), str(out), "0.1", "3"], env=env, stderr=subprocess.PIPE)
    t0 = time.time()
    while (not log.is_file() or len(log.read_text().splitlines()) < 3) and time.time() - t0 < 120: time.sleep(0.05)
    proc.send_signal(getattr(signal, sig))
    try: _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill(); pytest.fail(f"the run did not stop within 60 s of {sig}")
    if sig == "SIGINT":   # Ctrl-C: the run stops with KeyboardInterrupt after consolidating what it has
        assert b"KeyboardInterrupt" in err and (out / "results.parquet").is_file()
    kept = len(log.read_text().splitlines())
    assert kept == 3
    resumed = subprocess.run([sys.executable, str(script), str(out), "0"], env=env, capture_output=True, text=True, check=True)
    new, done = map(int, resumed.stdout.split())
    assert new + done == 12 and done >= 3 and new >= 1
    subprocess.run([sys.executable, str(script), str(tmp_path / "fresh"), "0"], env=env, capture_output=True, check=True)
    a, b = E.load_results(out), E.load_results(tmp_path / "fresh")
    pd.testing.assert_frame_equal(a[STABLE], b[STABLE], check_exact=True)


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(datasets=["sonr"]), ValueError, "Did you mean 'sonar'"),
    (dict(methods=["tre"]), ValueError, "valid methods: .*tree"),
    (dict(noise=["symmetric"]), ValueError, "valid noise models: none, uniform"),
    (dict(rates=[0.5]), ValueError, r"\[0, 0.5\)"),
    (dict(rates=[]), ValueError, "non-empty"),
    (dict(seeds=[-1]), ValueError, "non-negative ints"),
    (dict(splits=0), ValueError, "splits must be an int"),
    (dict(test_size=1.5), ValueError, "test_size"),
    (dict(methods=["tree", "tree"]), ValueError, "appears twice"),
    (dict(methods=[42]), TypeError, "registry name"),
    (dict(datasets=[3]), TypeError, "bundled name"),
    (dict(noise={"mine": 3}), TypeError, "must be a function"),
])
def test_bad_grids(kwargs, exc, match):
    with pytest.raises(exc, match=match): tiny_grid(**kwargs)


def test_bad_methods_and_runner_arguments():
    with pytest.raises(ValueError, match="unknown parameter 'max_leafs'.*did you mean 'max_leaf_nodes'"):
        E.get_method("tree", max_leafs=3)
    with pytest.raises(TypeError, match="not the class"): E.Method("x", DecisionTreeClassifier)
    with pytest.raises(TypeError, match="scikit-learn classifier"): E.Method("x", object())
    with pytest.raises(ValueError, match="valid backends: serial, joblib, dask"): E.run_grid(tiny_grid(), backend="spark")
    with pytest.raises(ValueError, match="n_jobs"): E.run_grid(tiny_grid(), n_jobs=0)
    with pytest.raises(TypeError, match="must be a Grid"): E.run_grid("grid.toml")
    with pytest.raises(FileNotFoundError, match="not a results folder"): E.load_results("/nonexistent/folder")
    with pytest.raises(ValueError, match="expected the tidy result table"): E.summarise(pd.DataFrame({"a": [1]}))


def test_registry_lists_every_method_and_explains_the_missing():
    table = E.list_methods()
    assert set(table.index) == set(REG._REGISTRY)
    for name in table.index[table.available]:
        est = E.get_method(name).build(0)
        assert hasattr(est, "fit") and hasattr(est, "predict")
    for name in table.index[~table.available]:
        assert table.reason[name]
        with pytest.raises(ValueError, match="not available in this installation"): E.get_method(name)
    assert {"gbdt", "gbdt_quad", "tree", "logistic", "dummy", "forest", "adaboost", "logitboost"} <= set(E.available_methods())


# ---------------------------------------------------------------- grid files

GRID_TOML = """name = "filegrid"
datasets = ["heart", "sonar"]
noise = ["uniform", "one_sided"]
rates = [0.0, 0.1]
seeds = 2
test_size = 0.3

[methods.tree]
[methods.ada]
method = "adaboost"
n_estimators = 5
"""


def test_grid_file_declares_the_same_grid_as_python(tmp_path):
    (tmp_path / "g.toml").write_text(GRID_TOML)
    py = E.Grid(["heart", "sonar"], ["tree", E.get_method("adaboost", label="ada", n_estimators=5)],
                noise=["uniform", "one_sided"], rates=[0, 0.1], seeds=[0, 1], test_size=0.3, name="filegrid")
    assert E.read_grid(tmp_path / "g.toml").fingerprint() == py.fingerprint()
    yaml = pytest.importorskip("yaml")
    data = {"name": "filegrid", "datasets": ["heart", "sonar"], "noise": ["uniform", "one_sided"], "rates": [0.0, 0.1],
            "seeds": 2, "test_size": 0.3, "methods": {"tree": {}, "ada": {"method": "adaboost", "n_estimators": 5}}}
    (tmp_path / "g.yaml").write_text(yaml.safe_dump(data))
    assert E.Grid.from_file(tmp_path / "g.yaml").fingerprint() == py.fingerprint()


@pytest.mark.parametrize("old, new, match", [
    ("seeds = 2", "seed = 2", r"g.toml:5: key 'seed': unknown key \(did you mean 'seeds'\?\)"),
    ("n_estimators = 5", "n_estimator = 5", r"g.toml:11: key 'n_estimator'.*did you mean 'n_estimators'"),
    ('"sonar"]', '"sonr"]', r"g.toml:2: key 'datasets'.*Did you mean 'sonar'"),
    ('"one_sided"]', '"onesided"]', r"g.toml:3: key 'noise'.*valid noise models"),
    ('method = "adaboost"', 'method = "adaboots"', r"g.toml:10: key 'method'.*did you mean 'adaboost'"),
    ("rates = [0.0, 0.1]", "rates = [0.0, 0.7]", r"g.toml:4: key 'rates'"),
    ("seeds = 2", "seeds = [2", r"g.toml: not valid TOML.*line 6"),
])
def test_grid_file_typos_name_line_and_key(tmp_path, old, new, match):
    assert old in GRID_TOML
    (tmp_path / "g.toml").write_text(GRID_TOML.replace(old, new))
    with pytest.raises(ValueError, match=match): E.read_grid(tmp_path / "g.toml")


def test_grid_file_other_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"): E.read_grid(tmp_path / "none.toml")
    (tmp_path / "g.json").write_text("{}")
    with pytest.raises(ValueError, match="must end in .toml, .yaml or .yml"): E.read_grid(tmp_path / "g.json")
    (tmp_path / "g.toml").write_text('datasets = ["heart"]\n')
    with pytest.raises(ValueError, match="needs a 'methods' key"): E.read_grid(tmp_path / "g.toml")


# ---------------------------------------------------------------- summaries against hand computations

def hand_results():
    "A results table built by hand: 2 datasets, methods a/b, clean + uniform 0.2, 2 seeds."
    rows = []
    err = {("d1", "a", 0.0): [0.10, 0.20], ("d1", "b", 0.0): [0.30, 0.30], ("d1", "a", 0.2): [0.40, 0.40],
           ("d1", "b", 0.2): [0.30, 0.50], ("d2", "a", 0.0): [0.20, 0.20], ("d2", "b", 0.0): [0.10, 0.10],
           ("d2", "a", 0.2): [0.25, 0.25], ("d2", "b", 0.2): [0.30, 0.30]}
    for (d, m, r), vals in err.items():
        for s, v in enumerate(vals):
            rows.append(dict(dataset=d, method=m, rate=r, noise="none" if r == 0 else "uniform", seed=s, status="ok",
                             test_error=v, fit_seconds=0.1 * (s + 1)))
    rows.append(dict(dataset="d1", method="a", rate=0.2, noise="uniform", seed=9, status="failed", test_error=np.nan, fit_seconds=np.nan))
    return pd.DataFrame(rows)


def test_error_table_mean_sd():
    t = E.error_table(hand_results())
    assert t.loc[("d1", "none", 0.0), "a"] == f"{15.0:.1f} ± {np.std([10, 20], ddof=1):.1f}"
    assert t.loc[("d1", "uniform", 0.2), "b"] == f"{40.0:.1f} ± {np.std([30, 50], ddof=1):.1f}"
    assert list(t.columns) == ["a", "b"] and t.shape == (4, 2)


def test_average_ranks_and_degradation():
    df = hand_results()
    ranks = E.average_ranks(df)
    # clean: d1 a 0.15 < b 0.30 → a=1; d2 b 0.10 < a 0.20 → a=2; mean a = 1.5, b = 1.5
    assert ranks.loc[("none", 0.0)].tolist() == [1.5, 1.5]
    # uniform 0.2: d1 a 0.40 = b 0.40 → 1.5 each; d2 a 0.25 < b 0.30 → a 1, b 2
    assert ranks.loc[("uniform", 0.2)].tolist() == [1.25, 1.75]
    deg = E.degradation(df)
    # a: d1 40−15 = 25, d2 25−20 = 5 → 15 pp; b: d1 40−30 = 10, d2 30−10 = 20 → 15 pp
    np.testing.assert_allclose(deg.loc[("uniform", 0.2)].to_numpy(), [15.0, 15.0])
    np.testing.assert_allclose(E.fit_times(df).loc["d1", "a"], np.mean([0.1, 0.2, 0.1, 0.2]))


def test_plots_and_report(tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    df = hand_results()
    fig = E.plot_error_curves(df)
    assert len(fig.axes) == 1 and len(fig.axes[0].lines) == 2
    np.testing.assert_allclose(fig.axes[0].lines[0].get_ydata(), [17.5, 32.5])   # method a: clean, then 20% uniform
    fig2 = E.plot_tradeoff(df, "uniform", 0.2)
    np.testing.assert_allclose(fig2.axes[0].collections[0].get_offsets(), [[1.5, 15.0], [1.5, 15.0]])
    with pytest.raises(ValueError, match="no results at noise 'adversarial'"): E.plot_tradeoff(df, "adversarial", 0.2)
    E.run_grid(tiny_grid(), tmp_path / "r", backend="serial", progress=False)
    paths = E.report(tmp_path / "r")
    assert {"errors.csv", "errors.txt", "ranks.csv", "degradation.csv", "error_curves.png", "tradeoff_uniform_20.png"} <= set(paths)
    assert sorted(p.name for p in (tmp_path / "r" / "report").iterdir()) == sorted(paths)   # every file written is counted
    assert (tmp_path / "r" / "report" / "failures.txt").read_text() == "no failed tasks\n"    # not an empty-DataFrame dump
    assert fig.get_suptitle().startswith("mean over 2 datasets (d1, d2), 2 seed × split repetitions")


def test_one_method_order_in_every_table():
    df = hand_results()
    df = pd.concat([df[df.method == "b"], df[df.method == "a"]], ignore_index=True)   # grid order: b, then a
    for table in (E.error_table(df), E.average_ranks(df), E.degradation(df), E.fit_times(df)):
        assert list(table.columns) == ["b", "a"]


def test_grid_says_why_it_has_fewer_tasks_than_the_product():
    g = tiny_grid(noise=["uniform", "one_sided"])      # 1 dataset × 2 noise × 2 rates × 2 methods × 2 seeds = 16
    assert len(g) == 12 and repr(g).endswith("= 12 tasks (not 16: the 4 rate-0 cells are clean labels, run once and shared "
                                              "by the 2 noise models))")
    assert repr(tiny_grid()).endswith("= 8 tasks)")


def test_example_grids_are_valid_and_methods_are_listed_with_public_names():
    assert {"quick", "tour", "rmboost_table3"} <= set(E.example_grids())
    assert E.read_grid(E.example_grids()["tour"]).name == "tour"
    with pytest.raises(ValueError, match="unknown example grid 'quik' \\(did you mean 'quick'\\?\\)"): E.example_grid("quik")
    t = E.list_methods()
    assert list(t.columns[:3]) == ["paper", "description", "available"] and (t.paper != "").all()
    assert not t.implementation.str.contains(r"\._|seed 0").any() and not t.description.str.contains("seed 0").any()
    assert t.loc["gbdt", "implementation"] == "sklearn.ensemble.HistGradientBoostingClassifier"
    assert "needs unit-scale features" in t.loc["mean_classifier", "description"]


# ---------------------------------------------------------------- figures and the XGB-Quad baselines

def test_method_figures():
    X, y = make_classification(n_samples=80, n_features=4, random_state=0)
    tree = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    forest = RandomForestClassifier(n_estimators=3, max_depth=2, random_state=0).fit(X, y)
    hgb = HistGradientBoostingClassifier(max_iter=7, early_stopping=False).fit(X, y)
    assert E.method_figures(tree)["n_leaves"] == tree.get_n_leaves()
    assert E.method_figures(forest) == dict(bound=pytest.approx(np.nan, nan_ok=True), n_rounds=3.0,
                                            n_leaves=float(sum(t.get_n_leaves() for t in forest.estimators_)))
    assert E.method_figures(hgb)["n_rounds"] == 7
    tree.bound_ = 0.25
    assert E.method_figures(tree)["bound"] == 0.25
    m = E.Method("t", DecisionTreeClassifier(max_depth=1), figures=lambda est: {"depth": est.get_depth()})
    row = E.run_task(E.Grid(["heart"], [m]).tasks()[0])
    assert row["depth"] == 1.0


@parametrize_with_checks([E.QuadBoostClassifier(n_estimators=5)])
def test_quadboost_sklearn_compatible(estimator, check):
    check(estimator)


def test_quadboost_is_least_squares_boosting_on_pm1_targets():
    from sklearn.ensemble import HistGradientBoostingRegressor
    X, y = make_classification(n_samples=150, n_features=5, random_state=1)
    q = E.QuadBoostClassifier(n_estimators=10, random_state=0).fit(X, np.where(y == 1, "yes", "no"))
    ref = HistGradientBoostingRegressor(max_iter=10, max_depth=6, learning_rate=0.3, early_stopping=False,
                                        random_state=0).fit(X, np.where(y == 1, 1.0, -1.0))
    np.testing.assert_array_equal(q.decision_function(X), ref.predict(X))
    np.testing.assert_array_equal(q.predict(X), np.where(ref.predict(X) > 0, "yes", "no"))


def test_xgb_quad_without_xgboost_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "xgboost", None)     # `import xgboost` now raises ImportError, installed or not
    X, y = make_classification(n_samples=30, random_state=0)
    with pytest.raises(ImportError, match="pip install xgboost.*QuadBoostClassifier"):
        E.XGBQuadClassifier().fit(X, y)
    with pytest.raises(ValueError, match="xgb_quad.*not available"):
        E.get_method("xgb_quad")
    assert "xgb_quad" not in E.available_methods() and "gbdt_quad" in E.available_methods()


def _best_squared_loss_stump(x, y, base, reg_lambda):
    """XGBoost's first tree for (y − F)²/2 from F = base, written out: gradients g = base − y, hessians 1; the split
    maximising G_L²/(H_L+λ) + G_R²/(H_R+λ) over midpoints of the distinct values; leaf weights −G/(H+λ)."""
    g = base - y
    xs = np.unique(x)
    best = (-np.inf, None)
    for t in (xs[:-1] + xs[1:]) / 2:
        L = x < t
        gain = g[L].sum() ** 2 / (L.sum() + reg_lambda) + g[~L].sum() ** 2 / ((~L).sum() + reg_lambda)
        if gain > best[0] + 1e-12: best = (gain, t)
    t = best[1]; L = x < t
    return t, -g[L].sum() / (L.sum() + reg_lambda), -g[~L].sum() / ((~L).sum() + reg_lambda)


def test_xgb_quad_is_xgboost_least_squares_on_pm1_targets():
    """Against real XGBoost (xgboost-cpu is a dev dependency): one depth-1 round on one feature with 12 distinct
    values (so XGBoost's histogram is exact) equals the squared-loss stump computed by hand from F0 = mean(y±1)."""
    pytest.importorskip("xgboost", reason="xgboost is an optional extra; the dev install provides xgboost-cpu")
    rng = np.random.default_rng(0)
    x = rng.integers(0, 12, 200).astype(float)
    y01 = (x + rng.normal(0, 3, 200) > 6).astype(int)
    ypm = np.where(y01 == 1, 1.0, -1.0)
    clf = E.XGBQuadClassifier(n_estimators=1, max_depth=1, learning_rate=1.0, random_state=0).fit(x[:, None], y01)
    base = ypm.mean()                                     # XGBoost ≥ 2 estimates base_score as the target mean
    t, w_left, w_right = _best_squared_loss_stump(x, ypm, base, reg_lambda=1.0)
    expected = base + np.where(x < t, w_left, w_right)
    np.testing.assert_allclose(clf.decision_function(x[:, None]), expected, rtol=0, atol=1e-6)  # float32 inside XGBoost
    np.testing.assert_array_equal(clf.predict(x[:, None]), (expected > 0).astype(int))
    # more rounds: deterministic for a seed, and the squared training potential mean (1 − yF)² goes down
    X, y = make_classification(n_samples=300, n_features=6, random_state=2)
    ypm = np.where(y == 1, 1.0, -1.0)
    pot = [np.mean((1 - ypm * E.XGBQuadClassifier(n_estimators=k, random_state=0).fit(X, y).decision_function(X)) ** 2)
           for k in (1, 5, 20)]
    assert pot[0] > pot[1] > pot[2]
    a = E.XGBQuadClassifier(n_estimators=10, random_state=3).fit(X, y).decision_function(X)
    b = E.XGBQuadClassifier(n_estimators=10, random_state=3).fit(X, y).decision_function(X)
    np.testing.assert_array_equal(a, b)
    assert isinstance(E.get_method("xgb_quad").build(0), E.XGBQuadClassifier)


def test_yaml_grid_file_typos_name_line_and_key(tmp_path):
    pytest.importorskip("yaml")
    text = "name: y\ndatasets: [heart]\nrates: [0.0, 0.1]\nseed: 2\nmethods:\n  ada:\n    method: adaboost\n    n_estimators: 5\n"
    (tmp_path / "g.yaml").write_text(text)
    with pytest.raises(ValueError, match=r"g.yaml:4: key 'seed': unknown key"): E.read_grid(tmp_path / "g.yaml")
    (tmp_path / "g.yaml").write_text(text.replace("seed:", "seeds:").replace("n_estimators", "n_estimator"))
    with pytest.raises(ValueError, match=r"g.yaml:8: key 'n_estimator'"): E.read_grid(tmp_path / "g.yaml")
    (tmp_path / "g.yaml").write_text("- just\n- a list\n")
    with pytest.raises(ValueError, match="must be a mapping"): E.read_grid(tmp_path / "g.yaml")


class Rounds(ClassifierMixin, BaseEstimator):
    "An estimator that calls its round count n_rounds (as the RMBoost chapter does)."
    def __init__(self, n_rounds=100, alpha=1.0): self.n_rounds, self.alpha = n_rounds, alpha
    def fit(self, X, y): self.classes_ = np.unique(y); return self
    def predict(self, X): return np.full(len(X), self.classes_[0])


def test_quick_settings_use_the_estimators_own_round_parameter():
    assert REG._adapt_quick(Rounds(), {"n_estimators": 20, "max_leaf_nodes": 4}) == {"n_rounds": 20}
    assert REG._adapt_quick(HistGradientBoostingClassifier(), {"n_estimators": 20}) == {"max_iter": 20}
    assert REG._adapt_quick(DecisionTreeClassifier(), {"n_estimators": 20}) == {}
    assert E.get_method("logistic", C=0.5).params == {"logisticregression__C": 0.5}   # routed to the pipeline's last step
    assert E.get_method("logistic").describe()["estimator"].endswith("StandardScaler + sklearn.linear_model._logistic.LogisticRegression")


@pytest.mark.parametrize("cls", [E.QuadBoostClassifier, E.XGBQuadClassifier])
@pytest.mark.parametrize("param, value, allowed", [
    ("learning_rate", 0, r"\(0, 1\]"), ("learning_rate", float("nan"), r"\(0, 1\]"), ("learning_rate", float("inf"), r"\(0, 1\]"),
    ("learning_rate", 1e9, r"\(0, 1\]"), ("n_estimators", 0, r"\[1, inf\)"), ("n_estimators", -5, r"\[1, inf\)"),
    ("n_estimators", 2.5, r"an int in \[1, inf\)"), ("max_depth", 0, r"\[1, inf\)"), ("random_state", -1, "an int >= 0, .*Generator"),
    ("random_state", 2.5, "an int >= 0, .*Generator"), ("n_jobs", 0, r"\[1, inf\) or an int in \[-1, -1\]"), ("n_jobs", "x", r"\[-1, -1\]"),
])
def test_quad_boosters_validate_their_parameters(cls, param, value, allowed):
    if param not in cls().get_params(): pytest.skip(f"{cls.__name__} has no {param}")
    X, y = make_classification(n_samples=40, n_features=3, n_informative=2, n_redundant=1, random_state=0)
    with pytest.raises(ValueError, match=rf"{cls.__name__}: the '{param}' parameter must be .*{allowed}; got"):
        cls(**{param: value}).fit(X, y)   # raised before xgboost is imported: no C++ stack trace, names our parameter


def test_quadboost_seed_generator_is_reproducible():
    X, y = make_classification(n_samples=60, n_features=3, n_informative=2, n_redundant=1, random_state=0)
    a = E.QuadBoostClassifier(n_estimators=5, random_state=np.random.default_rng(3)).fit(X, y).decision_function(X)
    b = E.QuadBoostClassifier(n_estimators=5, random_state=np.random.default_rng(3)).fit(X, y).decision_function(X)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("body, match", [
    ('quick = "no"\n[methods.tree]\n', r"g.toml:2: key 'quick': must be true or false .*got 'no'"),
    ("[methods.gbdt_quad]\nn_estimators = -5\n", r"g.toml:3: key 'n_estimators': QuadBoostClassifier: the 'n_estimators' parameter must be an int in \[1, inf\); got -5"),
    ("[methods.logistic]\nC = -1.0\n", r"g.toml:3: key 'C': The 'C' parameter of LogisticRegression must be"),
    ("[methods.gbdt_quad]\nlearning_rate = 1e9\n", r"g.toml:3: key 'learning_rate': .*\(0, 1\]; got 1000000000.0"),
])
def test_grid_file_values_are_validated_when_read(tmp_path, body, match):
    (tmp_path / "g.toml").write_text('datasets = ["heart"]\n' + body)
    with pytest.raises(ValueError, match=match): E.read_grid(tmp_path / "g.toml")


def test_grid_file_that_is_a_folder_and_bad_runner_flags(tmp_path):
    with pytest.raises(ValueError, match="is a folder, not a file"): E.read_grid(tmp_path)
    with pytest.raises(ValueError, match=r"threads must be an int ≥ 1 .*got 'x'"): E.run_grid(tiny_grid(), threads="x")
    with pytest.raises(ValueError, match="threads must be"): E.run_grid(tiny_grid(), threads=0)
    for flag in ("force", "merge", "retry_failed", "progress"):
        with pytest.raises(TypeError, match=f"{flag} must be True or False; got 'no'"): E.run_grid(tiny_grid(), **{flag: "no"})


@pytest.mark.parametrize("kw", [dict(return_X_y="yes"), dict(as_frame=1), dict(return_X_y="no")])
def test_load_dataset_flags_are_real_bools(kw):
    # datasets.py's load_dataset is edited by this task (issue 18); its test lives with the runner that relies on it
    with pytest.raises(TypeError, match=f"{next(iter(kw))} must be True or False; got {next(iter(kw.values()))!r}"):
        load_dataset("heart", **kw)
    X, y = load_dataset("heart", return_X_y=True, as_frame=np.bool_(False))
    assert isinstance(X, np.ndarray) and X.shape == (270, 13)


def test_a_folder_written_before_rows_named_their_grid_still_reads_and_resumes(tmp_path):
    grid, out = tiny_grid(), tmp_path / "r"
    first = E.run_grid(grid, out, backend="serial", progress=False)
    rows = [json.loads(l) for l in (out / "results.jsonl").read_text().splitlines()]
    (out / "results.jsonl").write_text("".join(json.dumps({k: v for k, v in r.items() if k != "grid"}) + "\n" for r in rows[:6]))
    meta = json.loads((out / "grid.json").read_text()); del meta["grids"]
    (out / "grid.json").write_text(json.dumps(meta))                       # as the previous version wrote them
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(E.load_results(out)) == 6                               # read: the rows belong to grid.json's grid
        again = E.run_grid(grid, out, backend="serial", progress=False)     # write: rows stamped, 2 missing tasks run
    assert again.attrs["new"] == 2 and again.attrs["already_done"] == 6
    pd.testing.assert_frame_equal(first[STABLE], again[STABLE], check_exact=True)
    assert all(json.loads(l)["grid"] == grid.fingerprint() for l in (out / "results.jsonl").read_text().splitlines())


# ---------------------------------------------------------------- the package split

NAMES_BEFORE_SPLIT = ['NOISE', 'ROW_COLUMNS', 'VOLATILE_COLUMNS', 'Method', 'XGBQuadClassifier', 'QuadBoostClassifier',
                      'available_methods', 'list_methods', 'get_method', 'Task', 'method_figures', 'run_task', 'Grid',
                      'validate_method', 'read_grid', 'example_grids', 'example_grid', 'versions', 'ResultStore',
                      'load_results', 'run_grid', 'failures', 'summarise', 'error_table', 'average_ranks', 'degradation',
                      'fit_times', 'plot_error_curves', 'plot_tradeoff', 'report']   # __all__ of experiments.py at 2479743


def test_every_public_name_of_the_old_module_imports_from_the_package():
    import importlib
    mod = importlib.import_module("robust_ref.experiments")
    missing = [n for n in NAMES_BEFORE_SPLIT if not hasattr(mod, n)]
    assert not missing, missing
    assert set(NAMES_BEFORE_SPLIT) <= set(mod.__all__)
    ns = {}
    exec("from robust_ref.experiments import *", ns)
    assert set(NAMES_BEFORE_SPLIT) <= set(ns)
    assert E.run_task is RUN.run_task and E.Grid is G.Grid and E.ResultStore is STORE.ResultStore   # one object, not copies


def test_rows_unchanged_by_the_package_split():
    "The rows that the single-module runner computed (tests/data, commit 2479743) are recomputed bit for bit: keys, ids, seeds, values."
    frozen = json.loads((Path(__file__).parent / "data" / "experiments_rows_before_split.json").read_text())
    grid = E.Grid(["sonar"], ["logistic", "tree", E.get_method("adaboost", quick=True), E.get_method("gbdt_quad", quick=True)],
                  noise=["uniform", "adversarial"], rates=[0, 0.1], seeds=2, name="frozen")
    assert grid.spec() == frozen["spec"]
    assert grid.fingerprint() == frozen["fingerprint"]   # an old results folder is still this grid's
    df = E.run_grid(grid, backend="serial", progress=False)
    assert len(df) == len(frozen["rows"]) == 24
    for old, row in zip(frozen["rows"], df.to_dict("records")):
        for k, v in old.items():
            got = row[k]
            if v is None: assert got is None or got != got, (k, got)     # NaN stored as null
            else: assert got == v, (old["task_id"], k, got, v)          # exact, floats included
    assert list(df.task_id) == [r["task_id"] for r in frozen["rows"]]


# ---------------------------------------------------------------- training-row caps and generated datasets

def test_max_train_subsamples_the_training_part_after_the_split():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from robust_ref.noise import flip_uniform
    capped = E.Grid(["sonar"], ["logistic"], rates=[0.2], seeds=2, max_train={"sonar": 60}, name="cap")
    plain = E.Grid(["sonar"], ["logistic"], rates=[0.2], seeds=2, name="cap")
    assert "max_train" not in plain.spec() and capped.spec()["max_train"] == {"sonar": 60}
    assert "training rows capped: sonar 60" in repr(capped)
    for tc, tp in zip(capped.tasks(), plain.tasks()):
        assert tc.key == tp.key + (("max_train", 60),) and tc.task_id != tp.task_id
        sc, sp = tc.seeds(), tp.seeds()
        assert sc["split"] == sp["split"] and sc["noise"] != sp["noise"] and "subsample" not in sp
        Xc, Xtc, yc, _, ytc = RUN._data(tc)
        Xp, Xtp, yp, _, ytp = RUN._data(tp)
        assert len(yc) == 60 and len(yp) == 156
        np.testing.assert_array_equal(Xtc, Xtp); np.testing.assert_array_equal(ytc, ytp)   # the same test part
        rows_p = {r.tobytes() for r in Xp}
        assert all(r.tobytes() in rows_p for r in Xc)                                       # a subset of the training part
    # the protocol by hand: split, uniform subsample of the training part, noise on it, fit, clean test error
    task = capped.tasks()[1]
    X, y = load_dataset("sonar", return_X_y=True, missing="impute")
    s = task.seeds()
    tr, te = next(StratifiedShuffleSplit(n_splits=1, test_size=0.25, random_state=s["split"]).split(X, y))
    tr = np.sort(np.random.default_rng(s["subsample"]).choice(tr, size=60, replace=False))
    y_noisy = flip_uniform(y[tr], 0.2, random_state=s["noise"]).y
    model = make_pipeline(StandardScaler(), LogisticRegression()).fit(X[tr], y_noisy)
    row = E.run_task(task)
    assert row["n_train"] == 60 and row["flip_fraction"] == 12 / 60
    assert row["test_error"] == np.mean(model.predict(X[te]) != y[te])
    # a cap at or above the training size keeps every row
    assert E.run_task(E.Grid(["sonar"], ["tree"], max_train=10_000).tasks()[0])["n_train"] == 156


@pytest.mark.parametrize("max_train, match", [({"sonr": 50}, "did you mean 'sonar'"), (1, "int >= 2"),
                                              ({"sonar": 2.5}, "int >= 2"), (True, "int >= 2")])
def test_max_train_bad_input(max_train, match):
    with pytest.raises(ValueError, match=match):
        E.Grid(["sonar"], ["tree"], max_train=max_train)


def test_max_train_and_generated_datasets_in_a_grid_file(tmp_path):
    f = tmp_path / "g.toml"
    f.write_text('name = "g"\nrates = [0.0, 0.1]\nmax_train = {sonar = 50}\nmethods = ["tree"]\n\n'
                 '[datasets.sonar]\n\n[datasets.ls]\ngenerator = "long_servedio"\nn = 300\nversion = "2d"\n')
    g = E.read_grid(f)
    assert g.max_train == {"sonar": 50} and list(g.datasets) == ["sonar", "ls"]
    assert g.spec()["datasets"] == {"sonar": "bundled:sonar", "ls": "generated:long_servedio(n=300, random_state=0, version='2d')"}
    assert g.fingerprint() == E.Grid({"sonar": L._Bundled("sonar"), "ls": E.generated_dataset("long_servedio", n=300, version="2d")},
                                     ["tree"], rates=[0.0, 0.1], max_train={"sonar": 50}, name="g").fingerprint()
    df = E.run_grid(g, backend="serial", progress=False)
    assert (df.status == "ok").all() and set(df[df.dataset == "sonar"].n_train) == {50} and set(df[df.dataset == "ls"].n_train) == {225}
    f.write_text(f.read_text().replace("max_train = {sonar = 50}", "max_train = {sonar = 0}"))
    with pytest.raises(ValueError, match=r"g.toml:3: key 'max_train'.*int >= 2"):
        E.read_grid(f)
    f.write_text('methods = ["tree"]\n[datasets.ls]\ngenerator = "long_servant"\nn = 30\n')
    with pytest.raises(ValueError, match=r"g.toml:2: key 'ls'.*did you mean 'long_servedio'"):
        E.read_grid(f)
    f.write_text('methods = ["tree"]\n[datasets.ls]\ngenerator = "long_servedio"\nn = 30\nm = 3\n')
    with pytest.raises(ValueError, match=r"g.toml:5: key 'm' of dataset 'ls'.*unexpected keyword argument 'm'; its parameters: n, random_state, version, gamma"):
        E.read_grid(f)
    f.write_text('methods = ["tree"]\n[datasets.lss]\n')
    with pytest.raises(ValueError, match=r"g.toml:2: key 'lss'.*generator = one of long_servedio"):
        E.read_grid(f)


def test_generated_dataset_is_a_fixed_seeded_sample():
    import pickle
    a = E.generated_dataset("long_servedio", n=200)
    b = pickle.loads(pickle.dumps(a))
    assert a == b and hash(a) == hash(b) and a != E.generated_dataset("long_servedio", n=200, random_state=1)
    Xa, ya = a(); Xb, yb = b()
    np.testing.assert_array_equal(Xa, Xb); np.testing.assert_array_equal(ya, yb)
    from robust_ref.datasets import make_long_servedio
    X0, y0 = make_long_servedio(200, random_state=0)
    np.testing.assert_array_equal(Xa, X0); np.testing.assert_array_equal(ya, y0)
    with pytest.raises(ValueError, match="random_state must be an int >= 0"):
        E.generated_dataset("long_servedio", n=200, random_state=None)
    with pytest.raises(ValueError, match="unknown generator 'make_moons'"):
        E.generated_dataset("make_moons", n=200)


# ---------------------------------------------------------------- the contender: confident learning

def test_confident_learning_contenders_wrap_the_books_base_models():
    from robust_ref.confident_learning import ConfidentLearningClassifier
    from sklearn.pipeline import Pipeline
    table = E.list_methods()
    for name in ("cl_gbdt", "cl_logistic"):
        assert bool(table.loc[name, "available"]) and table.loc[name, "paper"].startswith("contender: confident learning")
        assert table.loc[name, "implementation"] == "robust_ref.confident_learning.ConfidentLearningClassifier"
    est = E.get_method("cl_gbdt", quick=True).build(7)
    assert isinstance(est, ConfidentLearningClassifier) and est.random_state == 7
    assert isinstance(est.estimator, HistGradientBoostingClassifier)
    assert est.estimator.max_iter == 20 and est.estimator.early_stopping is False
    lr = E.get_method("cl_logistic").build(0).estimator
    assert isinstance(lr, Pipeline) and [type(s).__name__ for _, s in lr.steps] == ["StandardScaler", "LogisticRegression"]
    # a task of the grid = confident learning fitted by hand on the task's data with the task's seed
    grid = E.Grid(["heart"], [E.get_method("cl_gbdt", quick=True)], rates=[0.2], name="cl")
    task = grid.tasks()[0]
    row = E.run_task(task)
    assert row["status"] == "ok", row["error"]
    X_tr, X_te, _, y_noisy, y_te = RUN._data(task)
    hand = ConfidentLearningClassifier(HistGradientBoostingClassifier(early_stopping=False, max_iter=20),
                                       random_state=task.seeds()["fit"]).fit(X_tr, y_noisy)
    assert row["test_error"] == np.mean(hand.predict(X_te) != y_te)
    assert hand.n_label_issues_ > 0        # it did drop labels on 20%-noisy heart


def test_confident_learning_is_unavailable_without_cleanlab(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "cleanlab", None)    # `import cleanlab` now fails, installed or not
    table = E.list_methods()
    for name in ("cl_gbdt", "cl_logistic"):
        assert not table.loc[name, "available"]
        assert "pip install robust_ref[cleanlab]" in table.loc[name, "reason"]
        assert name not in E.available_methods()
        with pytest.raises(ValueError, match=r"not available in this installation: needs the optional package cleanlab: "
                                              r"pip install robust_ref\[cleanlab\]"):
            E.get_method(name)
    assert bool(table.loc["gbdt", "available"]) and "gbdt" in E.available_methods()   # the rest of the registry is untouched
    f = tmp_path / "g.toml"
    f.write_text('datasets = ["heart"]\nmethods = ["tree", "cl_logistic"]\n')
    with pytest.raises(ValueError, match=r"g.toml:2: key 'cl_logistic'.*pip install robust_ref\[cleanlab\]"):
        E.read_grid(f)


def test_subset_keeps_task_keys_ids_and_seeds():
    full = E.Grid(["heart", "sonar"], ["tree", "logistic"], noise=["uniform", "one_sided"], rates=[0.0, 0.1, 0.2], seeds=3,
                  splits=2, max_train={"sonar": 100, "heart": 150}, name="full")
    part = full.subset(datasets=["sonar"], methods="logistic", noise=["one_sided"], rates=[0.0, 0.2], seeds=[2], splits=1)
    by_id = {t.task_id: t for t in full.tasks()}
    tasks = part.tasks()
    assert len(tasks) == 2 and part.max_train == {"sonar": 100} and part.test_size == full.test_size
    for t in tasks:
        assert t.task_id in by_id and by_id[t.task_id].key == t.key and by_id[t.task_id].seeds() == t.seeds()
    assert [t.key[:6] for t in tasks] == [("sonar", "none", 0.0, "logistic", 2, 0), ("sonar", "one_sided", 0.2, "logistic", 2, 0)]
    assert len(full.subset()) == len(full)
    with pytest.raises(ValueError, match="method 'logistc' is not in grid 'full' \\(did you mean 'logistic'\\?\\)"):
        full.subset(methods=["logistc"])
    with pytest.raises(ValueError, match="seed 5 is not in grid 'full'"):
        full.subset(seeds=[5])
    with pytest.raises(ValueError, match=r"splits must be an int in \[1, 2\]"):
        full.subset(splits=3)


def test_capped_and_generated_grid_is_the_same_on_local_processes():
    grid = E.Grid(["sonar", ("ls", E.generated_dataset("long_servedio", n=300, version="2d"))], ["tree", "logistic"],
                  rates=[0.0, 0.2], seeds=2, max_train={"sonar": 80}, name="procs")
    a = E.run_grid(grid, backend="serial", progress=False)
    b = E.run_grid(grid, backend="joblib", n_jobs=2, progress=False)
    assert (a.status == "ok").all() and set(a[a.dataset == "sonar"].n_train) == {80}
    pd.testing.assert_frame_equal(a[STABLE], b[STABLE], check_exact=True)


def test_cpu_clock_of_a_busy_fit_is_its_own_work_not_the_wait(monkeypatch):
    "A fit that sleeps (waits, as it would for a CPU taken by other work) adds wall time, not CPU time."
    import time as _time
    from sklearn.tree import DecisionTreeClassifier
    class Sleepy(DecisionTreeClassifier):
        def fit(self, X, y, sample_weight=None):
            _time.sleep(0.3)
            return super().fit(X, y, sample_weight=sample_weight)
    task = next(iter(E.Grid(["heart"], [E.Method("sleepy", Sleepy(), dict(max_depth=2))], noise=["none"], seeds=[0]).tasks()))
    row = E.run_task(task)
    assert row["status"] == "ok", row["error"]
    assert row["fit_seconds"] >= 0.3 and row["fit_cpu_seconds"] < 0.2
    df = pd.DataFrame([row])
    assert E.fit_times(df, clock="cpu").iloc[0, 0] == row["fit_cpu_seconds"]
    assert E.fit_times(df).iloc[0, 0] == row["fit_seconds"]
    with pytest.raises(ValueError, match="clock must be one of"):
        E.fit_times(df, clock="process")


def test_fit_times_median_ignores_a_compile_spike():
    rows = [dict(dataset="d", noise="none", rate=0.0, status="ok", method="a", fit_seconds=s, fit_cpu_seconds=s)
            for s in (0.1, 0.2, 0.3, 40.0)]
    df = pd.DataFrame(rows)
    assert E.fit_times(df, clock="cpu", stat="median").loc["d", "a"] == pytest.approx(0.25)
    assert E.fit_times(df, clock="cpu").loc["d", "a"] == pytest.approx(10.15)
    with pytest.raises(ValueError, match="stat must be"):
        E.fit_times(df, stat="max")


def test_xgb_quad_refuses_values_beyond_float32_with_the_fix():
    "XGBoost stores features as float32: X * 1e300 gave a C++ XGBoostError; now a ValueError saying to rescale."
    pytest.importorskip("xgboost", reason="xgboost is an optional extra; the dev install provides xgboost-cpu")
    X, y = make_classification(n_samples=60, random_state=0)
    with pytest.raises(ValueError, match=r"XGBQuadClassifier: X has a value of magnitude .*e\+300, beyond float32's largest .*rescale X"):
        E.XGBQuadClassifier(n_estimators=2).fit(X * 1e300, y)
    est = E.XGBQuadClassifier(n_estimators=2).fit(X, y)
    with pytest.raises(ValueError, match="beyond float32's largest"):
        est.predict(X * 1e300)
