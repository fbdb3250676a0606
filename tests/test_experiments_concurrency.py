"""A results folder under concurrent writers, grids sized and checked before they run, rows checked by their values."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import robust_ref.experiments as E
from robust_ref.experiments import grid as G, store as STORE
from test_experiments import KILL_SCRIPT   # a run that can be killed mid-task

ROOT = str(Path(E.__file__).resolve().parents[2])
ENV = dict(os.environ, PYTHONPATH=ROOT)
CLI = [sys.executable, "-c", "import sys; from robust_ref.cli import main; sys.exit(main())"]

# 120 tasks of about 50 ms: a run lasts several seconds, far longer than the two processes' start-up skew
SLOW = 'datasets = ["heart"]\nrates = [0.0, 0.1, 0.2]\nseeds = 40\n[methods.adaboost]\nn_estimators = 200\n'


def _start(*argv):
    return subprocess.Popen(CLI + list(argv), env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _log_rows(folder):
    return [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines() if line.strip()]


def test_two_runs_of_one_grid_on_one_folder(tmp_path):
    "Two `robust-ref run` at once on one folder: one runs every task once, the other is refused in one line; --wait queues."
    (tmp_path / "g.toml").write_text(SLOW)
    out = tmp_path / "D"
    t0 = time.monotonic()
    a, b = (_start("run", str(tmp_path / "g.toml"), "--out", str(out), "--n-jobs", "1", "--quiet") for _ in range(2))
    (a_out, a_err), (b_out, b_err) = a.communicate(timeout=600), b.communicate(timeout=600)
    codes = sorted([a.returncode, b.returncode])
    assert codes == [0, 2], (a.returncode, a_err, b.returncode, b_err)
    winner, loser_err = (a, b_err) if a.returncode == 0 else (b, a_err)
    assert loser_err.count("\n") == 1 and loser_err.startswith("robust-ref: error: results folder "), loser_err
    assert f"{out} is being written by another run (pid {winner.pid} on host " in loser_err and "--wait" in loser_err
    rows = _log_rows(out)
    ids = [r["task_id"] for r in rows]
    assert len(rows) == 120 and len(set(ids)) == 120          # every task once: no duplicate rows
    meta = json.loads((out / "grid.json").read_text())        # intact JSON
    assert len(meta["runs"]) == 1 and meta["runs"][0]["done"] == 120
    assert E.ResultStore(out).wall_seconds() == meta["runs"][0]["seconds"] > 0
    assert (out / STORE.LOCK_FILE).read_text() == ""          # released
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]
    print(f"two writers: {time.monotonic() - t0:.1f} s wall, {len(rows)} rows, run {meta['runs'][0]['seconds']} s")

    # a third run, with --wait, once they are done: nothing to wait for, nothing to run
    c = _start("run", str(tmp_path / "g.toml"), "--out", str(out), "--n-jobs", "1", "--quiet", "--wait", "120")
    _, c_err = c.communicate(timeout=600)
    assert c.returncode == 0 and "0 new, 120 already done" in c_err, c_err
    assert len(_log_rows(out)) == 120


def test_a_waiting_run_starts_when_the_holder_ends(tmp_path):
    "A run with wait= queues behind the holder (here a store held by this test), then finds the holder's rows done."
    grid = E.Grid(["heart"], ["tree"], rates=[0.0, 0.2], seeds=2, name="q")
    out = tmp_path / "D"
    E.run_grid(grid, out, backend="serial", progress=False)
    store = E.ResultStore(out, grid)
    script = ("import sys, time, robust_ref.experiments as E\n"
              "g = E.Grid(['heart'], ['tree'], rates=[0.0, 0.2], seeds=2, name='q')\n"
              "print('imported', flush=True)\n"
              "t = time.monotonic(); df = E.run_grid(g, sys.argv[1], backend='serial', progress=False, wait=float(sys.argv[2]))\n"
              "print(df.attrs['new'], df.attrs['already_done'], round(time.monotonic() - t, 1))\n")
    refused = subprocess.run([sys.executable, "-c", script, str(out), "0"], env=ENV, capture_output=True, text=True, timeout=300)
    assert refused.returncode == 1 and f"FolderLockedError: results folder {out} is being written by another run (pid {os.getpid()}" in refused.stderr
    waiting = subprocess.Popen([sys.executable, "-c", script, str(out), "60"], env=ENV, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    assert waiting.stdout.readline() == "imported\n"          # its imports done (they took > 8 s on a loaded CI machine)
    time.sleep(3)                                             # it is polling the lock by now
    assert waiting.poll() is None
    store.close()
    o, e = waiting.communicate(timeout=300)
    new, done, seconds = o.split()
    assert waiting.returncode == 0 and (new, done) == ("0", "4") and float(seconds) > 1, (o, e)


def test_two_grids_at_once_on_a_new_folder(tmp_path):
    "Two different grids into one new folder at once: one runs, the other is refused (lock); later, refused (other grid)."
    (tmp_path / "a.toml").write_text(SLOW)
    (tmp_path / "b.toml").write_text(SLOW.replace("seeds = 40", "seeds = 39"))
    out = tmp_path / "D"
    a, b = (_start("run", str(tmp_path / f"{n}.toml"), "--out", str(out), "--n-jobs", "1", "--quiet") for n in "ab")
    (_, a_err), (_, b_err) = a.communicate(timeout=600), b.communicate(timeout=600)
    assert sorted([a.returncode, b.returncode]) == [0, 2], (a_err, b_err)
    won, lost = ("a", "b") if a.returncode == 0 else ("b", "a")
    assert "is being written by another run" in (b_err if won == "a" else a_err)
    meta = json.loads((out / "grid.json").read_text())
    fp = E.read_grid(tmp_path / f"{won}.toml").fingerprint()
    assert list(meta["grids"]) == [fp] and {r["grid"] for r in _log_rows(out)} == {fp}
    assert len(E.load_results(out)) == len(_log_rows(out)) == (120 if won == "a" else 117)   # nothing refused at load
    late = subprocess.run(CLI + ["run", str(tmp_path / f"{lost}.toml"), "--out", str(out), "--quiet"], env=ENV,
                          capture_output=True, text=True, timeout=300)
    assert late.returncode == 2 and late.stderr.count("\n") == 1 and "holds results of a different grid" in late.stderr




def test_a_killed_holder_leaves_no_stale_lock(tmp_path):
    "SIGKILL frees the lock (the kernel releases a flock): the next run takes the folder at once and says whose run ended."
    script = tmp_path / "kill.py"; script.write_text(KILL_SCRIPT)
    out = tmp_path / "D"
    proc = subprocess.Popen([sys.executable, str(script), str(out), "0.4"], env=ENV, stderr=subprocess.PIPE)
    t0 = time.time()
    while (not (out / "results.jsonl").is_file() or len(_log_rows(out)) < 2) and time.time() - t0 < 120: time.sleep(0.05)
    holder = json.loads((out / STORE.LOCK_FILE).read_text())
    assert holder["pid"] == proc.pid
    proc.send_signal(signal.SIGKILL); proc.communicate()
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, str(script), str(out), "0"], env=ENV, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert f"its last writer (pid {proc.pid} on host {holder['host']}" in r.stderr and "ended without releasing it" in r.stderr
    new, done = map(int, r.stdout.split())
    assert new + done == 12 and done >= 2
    rows = E.load_results(out)
    assert len(rows) == 12 and rows.task_id.is_unique


def test_temporary_files_are_unique_per_writer(tmp_path, monkeypatch):
    "grid.json is replaced through a temporary file of the writer's own, never a shared name such as grid.tmp."
    grid = E.Grid(["heart"], ["tree"], rates=[0.0], seeds=1, name="t")
    made = []
    real = STORE.tempfile.mkstemp
    monkeypatch.setattr(STORE.tempfile, "mkstemp", lambda **kw: made.append(real(**kw)) or made[-1])
    with E.ResultStore(tmp_path / "a", grid) as s1: s1.finish_run(s1.start_run(), 1.0, 0)
    names = [Path(p).name for _, p in made]
    assert len(names) == len(set(names)) == 3 and all(n.startswith(".grid.json.") and n.endswith(".tmp") for n in names)
    assert not (tmp_path / "a" / "grid.tmp").exists() and oct((tmp_path / "a" / "grid.json").stat().st_mode & 0o777) != "0o600"


# ---------------------------------------------------------------- grids sized and checked when built or read

def test_a_huge_grid_is_refused_before_it_is_expanded(tmp_path):
    t0 = time.monotonic()
    with pytest.raises(ValueError, match=r"seeds = 1,000,000,000 asks for more repetitions .*MAX_TASKS = 1,000,000"):
        E.Grid(["heart"], ["adaboost"], seeds=10**9)
    with pytest.raises(ValueError, match=r"has 2,400,000 tasks \(2 datasets × 1 methods × 600000 seeds × 1 splits × 2 noise cells\), more than MAX_TASKS"):
        E.Grid(["heart", "sonar"], ["adaboost"], rates=[0.1, 0.2], seeds=600_000)
    (tmp_path / "g.toml").write_text('datasets = ["heart"]\nmethods = ["adaboost"]\nseeds = 1000000000\n')
    with pytest.raises(ValueError, match=r"g.toml:3: key 'seeds': seeds = 1,000,000,000"):
        E.read_grid(tmp_path / "g.toml")
    assert time.monotonic() - t0 < 10
    r = subprocess.run(CLI + ["run", str(tmp_path / "g.toml"), "--out", str(tmp_path / "D")], env=ENV,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "MAX_TASKS" in r.stderr and not (tmp_path / "D").exists()


def test_len_counts_without_expanding(monkeypatch):
    g = E.Grid(["heart", "sonar"], ["adaboost", "tree"], noise=["uniform", "adversarial"], rates=[0.0, 0.1, 0.2], seeds=3, splits=2)
    assert len(g) == len(g.tasks()) == 2 * 2 * 3 * 2 * (2 * 2 + 1)
    assert [t.index for t in g.iter_tasks()] == list(range(len(g)))
    big = E.Grid(["heart"], ["adaboost"], rates=[0.0, 0.1], noise=["uniform", "one_sided"], seeds=300_000)
    monkeypatch.setattr(G, "Task", None)                    # making a task would fail: len and repr make none
    t0 = time.monotonic()
    assert len(big) == 900_000 and "= 900000 tasks" in repr(big) and time.monotonic() - t0 < 1


def test_repeated_seeds_are_an_error_naming_seeds(tmp_path):
    with pytest.raises(ValueError, match=r"seeds lists 1 twice"):
        E.Grid(["heart"], ["adaboost"], seeds=[1, 1])
    (tmp_path / "g.toml").write_text('datasets = ["heart"]\nmethods = ["adaboost"]\nseeds = [0, 1, 1]\n')
    with pytest.raises(ValueError, match=r"g.toml:3: key 'seeds': seeds lists 1 twice"):
        E.read_grid(tmp_path / "g.toml")


@pytest.mark.parametrize("body, match", [
    ('[datasets.ls]\ngenerator = "long_servedio"\nn = -5\n', r"g.toml:4: key 'n' of dataset 'ls': generator 'long_servedio': n must be an int >= 2"),
    ('[datasets.ls]\ngenerator = "long_servedio"\nn = 100\nversion = "3d"\n', r"g.toml:5: key 'version' of dataset 'ls': .*version must be '21'"),
    ('[datasets.mc]\ngenerator = "make_classification"\nn = 100\nn_informative = 40\n', r"g.toml:2: key 'mc': generator 'make_classification': Number of informative"),
    ('[datasets.ex]\ngenerator = "expression_surrogate"\nn = 100\n', r"g.toml:4: key 'n' of dataset 'ex': .*n_positive must be in \(0, n=100\)"),
    ('[datasets.gm]\ngenerator = "gauss_mixture"\nn = 50\nprior = 1.5\n', r"g.toml:5: key 'prior' of dataset 'gm': .*prior must lie in \(0, 1\)"),
    ('[datasets.dr]\ngenerator = "long_servedio"\nn_train = 50\nn_test = 50\ngamma = 0.3\nversion = "2d"\n', r"g.toml:6: key 'gamma' of dataset 'dr'"),
    ('[datasets.f]\nfile = "nope.csv"\n', r"g.toml:2: key 'f': file 'nope.csv' does not exist \(a relative path is read from the folder the run starts in"),
])
def test_dataset_tables_are_checked_when_the_file_is_read(tmp_path, body, match):
    f = tmp_path / "g.toml"
    f.write_text('methods = ["tree"]\n' + body)
    with pytest.raises(ValueError, match=match):
        E.read_grid(f)


def test_generated_datasets_are_checked_in_python_too():
    with pytest.raises(ValueError, match="generator 'long_servedio': n must be an int >= 2"):
        E.generated_dataset("long_servedio", n=-5)
    with pytest.raises(ValueError, match="generator 'long_servedio': version must be '21'"):
        E.drawn_dataset("long_servedio", n_train=50, n_test=50, version="3d")


# ---------------------------------------------------------------- rows checked by their values

def _folder_with_rows(tmp_path):
    grid = E.Grid(["heart"], ["tree"], rates=[0.0, 0.2], seeds=2, name="v")
    out = tmp_path / "D"
    E.run_grid(grid, out, backend="serial", progress=False)
    return grid, out, _log_rows(out)


@pytest.mark.parametrize("change, reason", [
    (dict(test_error="abc"), "test_error is 'abc', not a number"),
    (dict(test_error=1.5), "test_error is 1.5, outside [0, 1]"),
    (dict(fit_seconds=-2.0), "fit_seconds is -2.0, outside [0, inf]"),
    (dict(seed="0"), "seed is '0', not an int >= 0"),
    (dict(task_id="0123456789abcdef"), "task id 0123456789abcdef is not a task of this grid"),
])
def test_a_row_with_impossible_values_is_quarantined(tmp_path, change, reason):
    grid, out, rows = _folder_with_rows(tmp_path)
    bad = dict(rows[0], **change)
    with open(out / "results.jsonl", "a") as f: f.write(json.dumps(bad) + "\n")
    if "task_id" not in change:   # readers can tell a bad value without the grid; a foreign task id needs the grid
        with pytest.warns(RuntimeWarning, match=f"1 damaged line\\(s\\) left out \\(line 5: {reason[:20]}"):
            assert len(E.load_results(out)) == 4
    with pytest.warns(RuntimeWarning, match=r"1 damaged line\(s\) moved to"):
        df = E.run_grid(grid, out, backend="serial", progress=False)
    assert len(df) == 4 and df.attrs["quarantined"] == 1 and df.attrs["new"] == 0
    q = json.loads((out / "results.quarantine.jsonl").read_text())
    assert q["reason"] == reason and q["line"] == 5
    assert len(E.load_results(out)) == 4 and E.error_table(E.load_results(out)).shape[0] >= 1


def test_report_works_after_a_text_error_rate_in_the_log(tmp_path, capsys):
    "A row with test_error 'abc' no longer breaks `report` with pandas' 'agg function failed'."
    from robust_ref import cli
    _, out, rows = _folder_with_rows(tmp_path)
    with open(out / "results.jsonl", "a") as f: f.write(json.dumps(dict(rows[0], test_error="abc")) + "\n")
    assert cli.main(["report", str(out)]) == 0
    assert "damaged line(s) left out (line 5: test_error is 'abc', not a number)" in capsys.readouterr().err
