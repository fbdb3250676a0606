"""Results of record: save/load with provenance, the check of a live run against the record, refreshing one method's rows."""
import json
import os
import platform
import re
import shutil

import numpy as np
import pandas as pd
import pytest
import sklearn.tree

import robust_ref.experiments as E
from robust_ref import cli
from robust_ref.experiments import record as R, run as RUN

GRID = 'name = "tiny"\ndatasets = ["heart"]\nmethods = ["tree", "logistic"]\nnoise = ["uniform"]\nrates = [0.0, 0.2]\nseeds = 3\n'
N_TASKS = 2 * 3 * 2   # (clean + one noisy rate) × seeds × methods


class _Majority(sklearn.tree.DecisionTreeClassifier):
    "A 'code change' to the tree: it predicts its first class everywhere."
    def predict(self, X):
        return np.full(len(X), self.classes_[0])


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    "A record made once: (records folder, grid file, the run's rows)."
    base = tmp_path_factory.mktemp("made")
    (base / "tiny.toml").write_text(GRID)
    df = E.run_grid(E.read_grid(base / "tiny.toml"), base / "runs", backend="serial", progress=False)
    R.save_record(base / "runs", "tiny", grid=base / "tiny.toml", root=base / "record", note="test")
    return base / "record", base / "tiny.toml", df


@pytest.fixture
def root(made, tmp_path):
    "A fresh copy of the record for a test that changes it."
    shutil.copytree(made[0], tmp_path / "record")
    return tmp_path / "record"


def live_slice(**kw):
    args = dict(datasets=["heart"], methods=["tree", "logistic"], noise=["uniform"], rates=[0.0, 0.2], seeds=[1], name="slice")
    args.update(kw)
    return E.run_grid(E.Grid(**args), backend="serial", progress=False)


def test_save_and_load(made):
    records, grid_file, df = made
    folder = records / "tiny"
    assert sorted(p.name for p in folder.iterdir()) == [".gitignore", "grid.json", "grid.toml", "provenance.json", "results.parquet"]
    assert (folder / "grid.toml").read_text() == GRID and (folder / ".gitignore").read_text() == ".refresh/\n"
    meta = json.loads((folder / "grid.json").read_text())
    assert meta["fingerprint"] == E.read_grid(grid_file).fingerprint() and meta["source"] == {"file": "grid.toml"}
    rec, prov = R.load_record("tiny", root=records)
    assert len(rec) == N_TASKS and not {"params", "estimator", "worker", "run_id", "grid"} & set(rec.columns)
    kept = [c for c in df.columns if c not in R.DROPPED_COLUMNS]
    assert list(rec.columns) == kept and "fit_seconds" in kept
    pd.testing.assert_frame_equal(rec, df[kept].reset_index(drop=True), check_exact=True)   # Parquet round-trips bit for bit
    assert re.fullmatch(r"[0-9a-f]{40}", prov["commit"]) and isinstance(prov["dirty"], bool)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", prov["date"])
    m = prov["machine"]
    assert m["cores"] == os.cpu_count() and m["python"] == platform.python_version() and m["ram_gb"] > 0 and m["cpu"]
    assert prov["versions"]["numpy"] == np.__version__ and prov["versions"]["scikit-learn"] == sklearn.__version__
    assert (prov["tasks"], prov["ok"], prov["failed"], prov["tasks_in_grid"], prov["note"]) == (N_TASKS, N_TASKS, 0, N_TASKS, "test")
    runs = json.loads((records.parent / "runs" / "grid.json").read_text())["runs"]
    assert prov["wall_seconds"] == round(runs[0]["seconds"], 1) and runs[0]["seconds"] > 0   # rounded to 0.1 s: a tiny run may store 0.0
    assert prov["fit_seconds_total"] == round(float(df.fit_seconds.sum()), 1)
    assert R.list_records(records) == ["tiny"]
    assert E.record_grid("tiny", root=records).fingerprint() == meta["fingerprint"]


def test_save_record_bad_input(made, tmp_path):
    records, grid_file, df = made
    with pytest.raises(TypeError, match="grid must be the grid file"):
        R.save_record(df, "x", grid=E.read_grid(grid_file), root=tmp_path)
    other = tmp_path / "other.toml"; other.write_text(GRID.replace("seeds = 3", "seeds = 4"))
    with pytest.raises(ValueError, match="give the grid file the results were run from"):
        R.save_record(df, "x", grid=other, root=tmp_path)
    with pytest.raises(FileExistsError, match="robust-ref record refresh tiny --method M"):
        R.save_record(df, "tiny", grid=grid_file, root=records)
    with pytest.raises(ValueError, match="record name"):
        R.save_record(df, "../escape", grid=grid_file, root=tmp_path)
    with pytest.raises(ValueError, match="no rows"):
        R.save_record(df.iloc[:0], "x", grid=grid_file, root=tmp_path)
    with pytest.raises(FileNotFoundError, match="no record 'tinyy'.*did you mean 'tiny'"):
        R.load_record("tinyy", root=records)


def test_a_live_slice_agrees_with_the_record(made):
    summary = R.check_against_record(live_slice(), "tiny", root=made[0])
    assert summary.to_dict("index") == {m: {"shared": 2, "agreeing": 2, "exact": 2, "not_compared": 0} for m in ("tree", "logistic")}
    assert summary.attrs["how"] == "exact (the record was made on this numeric platform)"


def _one_point(live, points=1, method=None):
    "The live rows with one task's test error moved by `points` test points (of `method`, else of the first row)."
    out = live.copy()
    k = out.index[0] if method is None else out.index[out.method == method][0]
    out.loc[k, "test_error"] += points / out.loc[k, "n_test"]
    return out


def _set_platform(root, platform_id, refreshed=()):
    "Rewrite the record's stored numeric platform (None: remove it, as in records made before it was stored)."
    f = root / "tiny" / "provenance.json"
    prov = json.loads(f.read_text())
    if platform_id is None: prov.pop("numeric_platform")
    else: prov["numeric_platform"] = dict(prov["numeric_platform"], numpy_simd="X86_V2 (another machine)", id=platform_id)
    prov["refreshed"] = [dict(method=m, numeric_platform=R.numeric_platform()) for m in refreshed]
    f.write_text(json.dumps(prov))


def test_the_numeric_platform_is_stored_and_stable(made):
    _, prov = R.load_record("tiny", root=made[0])
    here = R.numeric_platform()
    assert prov["numeric_platform"] == here == R.numeric_platform()
    assert set(here) == {"numpy_simd", "blas", "numba_cpu", "numba_features", "id"} and re.fullmatch(r"[0-9a-f]{12}", here["id"])


def test_the_check_is_exact_on_the_records_platform_and_within_one_test_point_elsewhere(root):
    live = live_slice()
    one, two = _one_point(live), _one_point(live, 2)
    with pytest.raises(AssertionError, match=r"compared exact \(the record was made on this numeric platform\)"):
        R.check_against_record(one, "tiny", root=root)      # made here: one test point is a change
    _set_platform(root, "another00000")
    s = R.check_against_record(one, "tiny", root=root)       # made elsewhere: one test point is rounding
    assert (s.agreeing.sum(), s.exact.sum()) == (4, 3) and s.attrs["how"].startswith("within one test point per task")
    with pytest.raises(AssertionError, match="1 of 4 shared tasks, compared within one test point per task"):
        R.check_against_record(two, "tiny", root=root)       # two test points are not
    with pytest.raises(AssertionError):
        R.check_against_record(one, "tiny", atol=0, root=root)   # an explicit tolerance overrides the platform's
    _set_platform(root, None)                                # a record that does not say: compared as made elsewhere
    assert R.check_against_record(one, "tiny", root=root).agreeing.sum() == 4
    with pytest.raises(AssertionError): R.check_against_record(two, "tiny", root=root)


def test_a_method_refreshed_here_is_checked_exactly_on_a_record_made_elsewhere(root):
    _set_platform(root, "another00000", refreshed=["tree"])
    live = live_slice()
    s = R.check_against_record(_one_point(live, method="logistic"), "tiny", root=root)
    assert s.attrs["how"].startswith("exact for the methods made on this numeric platform") and s.agreeing.sum() == 4
    with pytest.raises(AssertionError, match="method 'tree'"):
        R.check_against_record(_one_point(live, method="tree"), "tiny", root=root)


def test_a_method_of_fixed_order_arithmetic_is_checked_exactly_on_every_platform(root, monkeypatch):
    "A refresh by an estimator that declares its results the same bits everywhere makes the method's check exact anywhere."
    monkeypatch.setattr(sklearn.tree.DecisionTreeClassifier, "_exact_across_platforms", True, raising=False)
    R.refresh_record("tiny", "tree", root=root, backend="serial", progress=False)
    prov = json.loads((root / "tiny" / "provenance.json").read_text())
    assert prov["refreshed"][-1]["exact_across_platforms"] is True
    prov["numeric_platform"] = dict(prov["numeric_platform"], id="another00000")     # the record and its refresh made
    prov["refreshed"][-1]["numeric_platform"] = dict(prov["numeric_platform"])        # elsewhere
    (root / "tiny" / "provenance.json").write_text(json.dumps(prov))
    live = live_slice()
    with pytest.raises(AssertionError, match="method 'tree'"):            # one test point is a change for the exact method
        R.check_against_record(_one_point(live, method="tree"), "tiny", root=root)
    assert R.check_against_record(_one_point(live, method="logistic"), "tiny", root=root).agreeing.sum() == 4   # not for the other


def test_a_pending_method_runs_uncompared_until_its_refresh(root, monkeypatch):
    monkeypatch.setattr(sklearn.tree, "DecisionTreeClassifier", _Majority)   # a code change to 'tree'
    live = live_slice()
    with pytest.raises(AssertionError, match="method 'tree'"): R.check_against_record(live, "tiny", root=root)
    note = R.mark_pending("tiny", "tree", "the tree predicts the majority", root=root)
    assert note["reason"] == "the tree predicts the majority" and note["method"] == "tree"
    s = R.check_against_record(live, "tiny", root=root)
    assert s.loc["tree"].tolist() == [2, 0, 0, 2] and s.loc["logistic"].tolist() == [2, 2, 2, 0]
    assert list(s.attrs["pending"]) == ["tree"]
    with pytest.raises(AssertionError, match="method 'logistic'"):          # the other method is still compared
        R.check_against_record(_one_point(live, method="logistic"), "tiny", root=root)
    with pytest.raises(ValueError, match="did you mean 'tree'"): R.mark_pending("tiny", "tre", "x", root=root)
    with pytest.raises(ValueError, match="reason"): R.mark_pending("tiny", "tree", "  ", root=root)
    R.refresh_record("tiny", "tree", root=root, backend="serial", progress=False)
    assert R.load_record("tiny", root=root)[1]["pending"] == []
    assert R.check_against_record(live, "tiny", root=root).loc["tree", "exact"] == 2


def test_the_check_fails_naming_the_changed_method_and_its_refresh_command(made, monkeypatch):
    monkeypatch.setattr(sklearn.tree, "DecisionTreeClassifier", _Majority)   # what the registry's 'tree' builds
    live = live_slice()
    with pytest.raises(AssertionError) as e:
        R.check_against_record(live, "tiny", root=made[0])
    msg = str(e.value)
    assert "method 'tree': 2 of 2 tasks, at heart/none 0, heart/uniform 0.2" in msg
    assert "robust-ref record refresh tiny --method tree" in msg and "'logistic'" not in msg
    assert R.check_against_record(live, "tiny", atol=0.99, root=made[0]).agreeing.sum() == 4   # a tolerance lets it pass


def test_the_check_cannot_pass_vacuously(made):
    with pytest.raises(AssertionError, match="shares no task"):
        R.check_against_record(live_slice(seeds=[7]), "tiny", root=made[0])
    with pytest.raises(ValueError, match="atol"):
        R.check_against_record(live_slice(), "tiny", atol=-0.1, root=made[0])


def test_refresh_replaces_one_methods_rows(root, monkeypatch):
    before, _ = R.load_record("tiny", root=root)
    monkeypatch.setattr(sklearn.tree, "DecisionTreeClassifier", _Majority)
    new = R.refresh_record("tiny", "tree", root=root, backend="serial", progress=False)
    after, prov = R.load_record("tiny", root=root)
    assert len(new) == N_TASKS // 2 and new.attrs["changed"] > 0 and new.attrs["already_done"] == 0
    cols = [c for c in after.columns if c not in E.VOLATILE_COLUMNS]
    pd.testing.assert_frame_equal(after[after.method == "logistic"][cols].reset_index(drop=True),
                                  before[before.method == "logistic"][cols].reset_index(drop=True), check_exact=True)
    assert list(after.task_id) == list(before.task_id)          # grid order kept
    assert (after[after.method == "tree"].test_error.to_numpy() != before[before.method == "tree"].test_error.to_numpy()).any()
    R.check_against_record(live_slice(), "tiny", root=root)     # the changed code now agrees with the record
    r = prov["refreshed"][-1]
    assert (r["method"], r["tasks"], r["changed"], r["failed"]) == ("tree", N_TASKS // 2, new.attrs["changed"], 0)
    assert not (root / "tiny" / ".refresh").exists()
    monkeypatch.undo()
    with pytest.raises(AssertionError, match="--method tree"):   # the original tree no longer matches the refreshed record
        R.check_against_record(live_slice(), "tiny", root=root)
    with pytest.raises(ValueError, match="not in the record's grid.*did you mean 'tree'"):
        R.refresh_record("tiny", "tre", root=root, backend="serial", progress=False)


def test_an_interrupted_refresh_resumes(root, monkeypatch):
    calls, real = [], RUN.run_task
    def flaky(task, threads=1):
        calls.append(task.task_id)
        if len(calls) == 3: raise KeyboardInterrupt
        return real(task, threads)
    monkeypatch.setattr(RUN, "run_task", flaky)
    with pytest.raises(KeyboardInterrupt):
        R.refresh_record("tiny", "logistic", root=root, backend="serial", progress=False)
    assert len((root / "tiny" / ".refresh" / "logistic" / "results.jsonl").read_text().splitlines()) == 2
    monkeypatch.setattr(RUN, "run_task", real)
    new = R.refresh_record("tiny", "logistic", root=root, backend="serial", progress=False)
    assert new.attrs["already_done"] == 2 and len(new) == N_TASKS // 2 and new.attrs["changed"] == 0


def run(*argv, capsys):
    try: code = cli.main(list(argv))
    except SystemExit as e: code = e.code
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_record_show_and_refresh(root, capsys):
    code, out, _ = run("record", "show", "--root", str(root), capsys=capsys)
    lines = out.splitlines()   # a header, then one line per record: name, tasks, failed, commit, date
    assert code == 0 and lines[0].split()[:3] == ["record", "tasks", "failed"] and len(lines) == 2
    assert lines[1].split()[:3] == ["tiny", str(N_TASKS), "0"]
    code, out, _ = run("record", "show", "tiny", "--root", str(root), capsys=capsys)
    assert code == 0 and f"record tiny: grid 'tiny', {N_TASKS} tasks (0 failed)" in out and "logistic" in out
    code, _, err = run("record", "refresh", "tiny", "--method", "tree", "--n-jobs", "1", "--quiet", "--root", str(root), capsys=capsys)
    assert code == 0 and f"method tree: {N_TASKS // 2} tasks (0 from an interrupted refresh), 0 with changed results" in err, err
    code, out, _ = run("record", "show", "tiny", "--root", str(root), capsys=capsys)
    assert "refreshed tree: 6 tasks, 0 changed" in out
    for argv, fragment in [(("record", "refresh", "tiny", "--method", "nope", "--root", str(root)), "not in the record's grid"),
                           (("record", "show", "nope", "--root", str(root)), "no record 'nope'"),
                           (("record", "refresh", "tiny", "--root", str(root)), "--method"),
                           (("record",), "ACTION")]:
        code, _, err = run(*argv, capsys=capsys)
        assert code == 2 and err.startswith("robust-ref: error:") and err.count("\n") == 1 and fragment in err, (argv, err)


def test_cli_record_save(made, tmp_path, capsys):
    records, grid_file, df = made
    code, _, err = run("record", "save", "copy", str(records.parent / "runs"), "--grid", str(grid_file), "--note", "n",
                       "--root", str(tmp_path), capsys=capsys)
    assert code == 0 and f"record copy: {N_TASKS} tasks (0 failed)" in err, err
    a, b = R.load_record("copy", root=tmp_path)[0], R.load_record("tiny", root=records)[0]
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    code, _, err = run("record", "save", "copy", str(records.parent / "runs"), "--grid", str(grid_file), "--root", str(tmp_path),
                       capsys=capsys)
    assert code == 2 and "exists" in err and err.count("\n") == 1


FACTORY = '''
from sklearn.tree import DecisionTreeClassifier
from robust_ref.experiments import Grid, Method

def grid():
    depth = Method("depth2", DecisionTreeClassifier(max_depth=2), figures=lambda est: {"depth": est.get_depth(), "nodes": est.tree_.node_count})
    return Grid(["heart"], [depth, "logistic"], noise=["uniform"], rates=[0.0, 0.2], seeds=2, max_train={"heart": 120}, name="factory")
'''


def test_a_grid_built_by_a_function_and_extra_method_figures(tmp_path, monkeypatch):
    (tmp_path / "my_grids.py").write_text(FACTORY)
    monkeypatch.syspath_prepend(str(tmp_path))
    import my_grids
    df = E.run_grid(my_grids.grid(), backend="serial", progress=False)
    R.save_record(df, "fac", grid="my_grids:grid", root=tmp_path / "record")
    rec, prov = R.load_record("fac", root=tmp_path / "record")
    assert json.loads((tmp_path / "record" / "fac" / "grid.json").read_text())["source"] == {"factory": "my_grids:grid"}
    d = rec[rec.method == "depth2"]
    assert set(d.depth) == {2.0} and (d.nodes >= 3).all() and rec[rec.method == "logistic"].depth.isna().all()   # extra figures kept
    assert set(rec.n_train) == {120}
    new = R.refresh_record("fac", "depth2", root=tmp_path / "record", backend="serial", progress=False)
    assert new.attrs["changed"] == 0 and "depth" in new.columns
    vol = [c for c in E.VOLATILE_COLUMNS if c in rec.columns]
    pd.testing.assert_frame_equal(R.load_record("fac", root=tmp_path / "record")[0].drop(columns=vol),
                                  rec.drop(columns=vol), check_exact=True)
    with pytest.raises(ValueError, match="grid 'no_such_module:grid': ModuleNotFoundError"):
        R.save_record(df, "fac2", grid="no_such_module:grid", root=tmp_path / "record")
    with pytest.raises(ValueError, match="grid 'my_grids:nope': AttributeError"):
        R.save_record(df, "fac2", grid="my_grids:nope", root=tmp_path / "record")
    assert R.list_records(tmp_path / "record") == ["fac"] and not (tmp_path / "record" / "fac2").exists()   # nothing written


def test_wall_time_unknown_for_runs_that_did_not_record_it(made, tmp_path):
    records, grid_file, df = made
    runs = tmp_path / "runs"
    shutil.copytree(records.parent / "runs", runs)
    meta = json.loads((runs / "grid.json").read_text())
    assert E.ResultStore(runs).wall_seconds() == meta["runs"][0]["seconds"] > 0
    for r in meta["runs"]: r.pop("seconds")                        # a folder written by an older runner
    (runs / "grid.json").write_text(json.dumps(meta))
    assert E.ResultStore(runs).wall_seconds() is None
    R.save_record(runs, "old", grid=grid_file, root=tmp_path / "record")
    assert R.load_record("old", root=tmp_path / "record")[1]["wall_seconds"] is None   # unknown, never a made-up 0
    R.save_record(runs, "old", grid=grid_file, root=tmp_path / "record", wall_seconds=3600, overwrite=True)
    assert R.load_record("old", root=tmp_path / "record")[1]["wall_seconds"] == 3600
