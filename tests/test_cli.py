"""The robust-ref console script: every sub-command, --help, one-line errors with exit code 2."""
import json
import subprocess
from pathlib import Path
import sys

import pandas as pd
import pytest

from robust_ref import cli
from robust_ref.datasets import dataset_info

GRID = """datasets = ["heart"]
noise = ["uniform"]
rates = [0.0, 0.2]
seeds = 2
methods = ["tree", "logistic"]
"""


def run(*argv, capsys):
    try: code = cli.main(list(argv))
    except SystemExit as e: code = e.code
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code, err, fragment):
    assert code == 2, (code, err)
    assert err.startswith("robust-ref: error:") and err.count("\n") == 1, err
    assert fragment in err, err


def test_datasets_lists_names_and_shapes(capsys):
    code, out, _ = run("datasets", capsys=capsys)
    assert code == 0
    info = dataset_info()
    for name in info.index:
        line = next(l for l in out.splitlines() if l.split()[:1] == [name])
        assert line.split()[1:3] == [str(info.loc[name, "rows"]), str(info.loc[name, "features"])]


def test_methods_lists_the_registry(capsys):
    code, out, _ = run("methods", capsys=capsys)
    assert code == 0 and "gbdt" in out and "xgb_quad" in out
    header = out.splitlines()[0].split()
    assert header == ["available", "paper", "description"]
    line = next(l for l in out.splitlines() if l.startswith("rmboost "))
    assert "True" in line and "Mazuelas & Álvarez 2025" in line and "robust minimax boosting" in line
    assert "._" not in out and "seed 0" not in out   # public names only, no internal codes


def test_run_then_resume_then_report(tmp_path, capsys):
    (tmp_path / "g.toml").write_text(GRID)
    out = tmp_path / "res"
    code, stdout, err = run("run", str(tmp_path / "g.toml"), "--n-jobs", "1", "--out", str(out), "--quiet", capsys=capsys)
    assert code == 0, err
    df = pd.read_parquet(out / "results.parquet")
    assert len(df) == 8 and (df.status == "ok").all() and "tree" in stdout and "= 8 tasks" in err
    assert "8 new, 0 already done; 8 tasks in" in err and ", 0 failed" in err
    code, _, err = run("run", str(tmp_path / "g.toml"), "--n-jobs", "1", "--out", str(out), "--quiet", capsys=capsys)
    assert code == 0 and len(json.loads((out / "grid.json").read_text())["runs"]) == 1   # nothing recomputed
    assert "0 new, 8 already done" in err
    code, stdout, err = run("report", str(out), capsys=capsys)
    assert code == 0, err
    assert (out / "report" / "errors.csv").is_file() and (out / "report" / "error_curves.png").is_file()
    assert "average ranks" in stdout
    assert f"wrote {len(list((out / 'report').iterdir()))} files" in err


def test_run_refuses_folder_of_another_grid_unless_forced(tmp_path, capsys):
    (tmp_path / "g.toml").write_text(GRID)
    (tmp_path / "h.toml").write_text(GRID.replace("seeds = 2", "seeds = 1"))
    out = str(tmp_path / "res")
    assert run("run", str(tmp_path / "g.toml"), "--n-jobs", "1", "--out", out, "--quiet", capsys=capsys)[0] == 0
    code, _, err = run("run", str(tmp_path / "h.toml"), "--n-jobs", "1", "--out", out, "--quiet", capsys=capsys)
    assert_one_line_error(code, err, "different grid")
    code, _, err = run("run", str(tmp_path / "h.toml"), "--n-jobs", "1", "--out", out, "--quiet", "--force", capsys=capsys)
    assert code == 0, err


@pytest.mark.parametrize("argv, fragment", [
    ((), "the following arguments are required: COMMAND"),
    (("frobnicate",), "invalid choice: 'frobnicate'"),
    (("run",), "the following arguments are required: GRID_FILE"),
    (("run", "missing.toml"), "grid file missing.toml does not exist"),
    (("run", "g.toml", "--n-jobs", "x"), "argument --n-jobs: expected an int, got 'x'"),
    (("run", "g.toml", "--n-jobs", "0"), "must be -1 (all cores) or a number of processes >= 1; got 0"),
    (("run", "g.toml", "--n-jobs", "-100"), "must be -1 (all cores) or a number of processes >= 1; got -100"),
    (("run", "g.toml", "--force", "--merge"), "not allowed with argument --force"),
    (("run", ".", "--n-jobs", "1"), "grid file . is a folder, not a file"),
    (("example-grid", "nope"), "unknown example grid 'nope'"),
    (("run", "g.toml", "--timeout", "-1"), "argument --timeout: must be > 0"),
    (("report",), "required: OUT_DIR"),
    (("report", "/nonexistent/dir"), "is not a results folder"),
    (("reproduce", "nopaper"), "no reproduction notebook for paper 'nopaper'"),
    (("datasets", "--bogus"), "unrecognized arguments: --bogus"),
])
def test_bad_arguments_one_line_exit_2(argv, fragment, capsys):
    code, _, err = run(*argv, capsys=capsys)
    assert_one_line_error(code, err, fragment)


def test_grid_file_typo_names_line_and_key(tmp_path, capsys):
    (tmp_path / "g.toml").write_text(GRID.replace("rates", "ratez"))
    code, _, err = run("run", str(tmp_path / "g.toml"), "--out", str(tmp_path / "r"), capsys=capsys)
    assert_one_line_error(code, err, "g.toml:3: key 'ratez': unknown key (did you mean 'rates'?)")


def test_unknown_method_and_out_that_is_a_file_name_where(tmp_path, capsys):
    (tmp_path / "g.toml").write_text(GRID.replace('"logistic"', '"logistik"'))
    code, _, err = run("run", str(tmp_path / "g.toml"), "--out", str(tmp_path / "r"), capsys=capsys)
    assert_one_line_error(code, err, "g.toml:5: key 'logistik': unknown method 'logistik' (did you mean 'logistic'?)")
    (tmp_path / "h.toml").write_text(GRID); (tmp_path / "afile").write_text("")
    code, _, err = run("run", str(tmp_path / "h.toml"), "--out", str(tmp_path / "afile"), capsys=capsys)
    assert_one_line_error(code, err, "afile is a file, not a folder")


def test_failed_tasks_give_exit_code_1(tmp_path, capsys):
    (tmp_path / "g.toml").write_text('datasets = ["heart"]\nseeds = 1\n[methods.tree]\n[methods.bad]\nmethod = "logistic"\n'
                                     'solver = "newton-cholesky"\nl1_ratio = 0.5\n')   # each value valid, the pair fails in fit
    code, _, err = run("run", str(tmp_path / "g.toml"), "--n-jobs", "1", "--out", str(tmp_path / "r"), "--quiet", capsys=capsys)
    assert code == 1 and "robust-ref: 1 of 2 tasks failed" in err and "--retry-failed" in err
    run("report", str(tmp_path / "r"), capsys=capsys)
    text = (tmp_path / "r" / "report" / "failures.txt").read_text()
    assert "bad" in text and "newton-cholesky" in text and "Empty DataFrame" not in text


def test_dead_dask_address(tmp_path, capsys):
    pytest.importorskip("distributed")
    (tmp_path / "g.toml").write_text(GRID)
    code, _, err = run("run", str(tmp_path / "g.toml"), "--dask", "tcp://127.0.0.1:9", "--timeout", "2",
                       "--out", str(tmp_path / "r"), capsys=capsys)
    assert_one_line_error(code, err, "no Dask scheduler answered at 'tcp://127.0.0.1:9' within 2 s")


def test_reproduce_names_the_available_notebooks(tmp_path, capsys):
    nbs = tmp_path / "nbs"; nbs.mkdir()
    for name in ["80_reproduce_rmboost.ipynb", "81_reproduce_alpha_loss.ipynb", "70_experiments.ipynb"]:
        (nbs / name).write_text("{}")
    assert list(cli.reproduction_notebooks(nbs)) == ["rmboost", "alpha_loss"]
    code, _, err = run("reproduce", "trees", "--nbs", str(nbs), capsys=capsys)
    assert_one_line_error(code, err, "available: rmboost, alpha_loss")


def toy_notebook(nbs):
    "A reproduction notebook in miniature: a parameters cell whose comment holds an '=', a last cell printing a verdict."
    import nbformat
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# Reproducing the toy paper"),
        nbformat.v4.new_code_cell("full = False   # True: the paper's protocol (K = 200)", metadata={"tags": ["parameters"]}),
        nbformat.v4.new_code_cell("open('ran.txt', 'w').write(str(full))"),
        nbformat.v4.new_code_cell("print(f'verdict: 3 of 4 cells within one published sd (full={full})')")])
    nb.metadata["kernelspec"] = {"display_name": "python3", "language": "python", "name": "python3"}
    nbformat.write(nb, nbs / "89_reproduce_toy.ipynb")


def test_reproduce_runs_a_notebook_with_papermill(tmp_path, capsys):
    nbs = tmp_path / "nbs"; nbs.mkdir()
    toy_notebook(nbs)
    code, out, err = run("reproduce", "toy", "--full", "--nbs", str(nbs), "--output", str(tmp_path / "o.ipynb"), "--quiet",
                         capsys=capsys)
    assert code == 0, err
    assert (nbs / "ran.txt").read_text() == "True" and (tmp_path / "o.ipynb").is_file()
    assert out == "toy: 3 of 4 cells within one published sd (full=True)\n"      # the verdict line, on stdout
    assert "Unable to parse" not in err and "unknown parameter" not in err       # the '=' in the comment is no warning
    html = (tmp_path / "o.html").read_text()
    assert html.lstrip().lower().startswith("<!doctype html") and "3 of 4 cells within one published sd" in html


def test_reproduce_needs_a_parameters_cell_assigning_full(tmp_path, capsys):
    import nbformat
    nbs = tmp_path / "nbs"; nbs.mkdir()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1", metadata={"tags": ["parameters"]})])
    nbformat.write(nb, nbs / "88_reproduce_bare.ipynb")
    code, _, err = run("reproduce", "bare", "--nbs", str(nbs), capsys=capsys)
    assert_one_line_error(code, err, "has no cell tagged 'parameters' that assigns full")


def test_help_and_exit_codes_in_a_real_process():
    cmd = [sys.executable, "-c", "import sys; from robust_ref.cli import main; sys.exit(main())"]
    for sub in ([], ["datasets"], ["methods"], ["example-grid"], ["run"], ["report"], ["reproduce"]):
        r = subprocess.run(cmd + sub + ["--help"], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0 and r.stdout.startswith("usage: robust-ref"), (sub, r.stderr)
    r = subprocess.run(cmd + ["run"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr


def test_a_new_users_first_hour(tmp_path, capsys, monkeypatch):
    "help → example grid → run → resume → report → reproduce (CI size), checking the counts, files and exit codes a user sees."
    monkeypatch.chdir(tmp_path)
    code, out, _ = run("--help", capsys=capsys)
    assert code == 0 and all(c in out for c in ("datasets", "methods", "example-grid", "run", "report", "reproduce"))
    code, out, _ = run("run", "--help", capsys=capsys)
    assert code == 0 and all(f"\n  {k}" in out for k in ("name ", "datasets ", "noise ", "rates ", "seeds ", "splits ",
                                                          "test_size ", "quick ", "methods ", "[methods.rmboost]"))
    code, grid_text, _ = run("example-grid", capsys=capsys)
    assert code == 0
    (tmp_path / "grid.toml").write_text(grid_text)
    code, out, err = run("run", "grid.toml", "--n-jobs", "1", "--quiet", capsys=capsys)   # default folder results/grid
    assert code == 0, err
    assert "= 36 tasks (not 48: the 12 rate-0 cells are clean labels, run once and shared by the 2 noise models)" in err
    assert "36 new, 0 already done; 36 tasks in results/grid, 0 failed" in err
    assert out.splitlines()[0].split() == ["method", "adaboost", "rmboost", "adaboost_alpha", "robust_tree", "mean_classifier", "arb_gamma"]
    df = pd.read_parquet(tmp_path / "results" / "grid" / "results.parquet")
    assert len(df) == 36 and (df.status == "ok").all() and df.grid.nunique() == 1
    code, _, err = run("run", "grid.toml", "--n-jobs", "1", "--quiet", capsys=capsys)
    assert code == 0 and "0 new, 36 already done" in err
    code, out, err = run("report", "results/grid", capsys=capsys)
    written = sorted(p.name for p in (tmp_path / "results" / "grid" / "report").iterdir())
    assert code == 0 and f"wrote {len(written)} files" in err and len(written) == 13
    assert {"errors.csv", "failures.txt", "error_curves.png", "tradeoff_uniform_20.png", "tradeoff_class_conditional_20.png"} <= set(written)
    assert (tmp_path / "results" / "grid" / "report" / "failures.txt").read_text() == "no failed tasks\n"
    nbs = tmp_path / "nbs"; nbs.mkdir()
    toy_notebook(nbs)
    code, out, err = run("reproduce", "toy", "--nbs", str(nbs), "--quiet", capsys=capsys)   # CI size: full = False
    assert code == 0, err
    assert out == "toy: 3 of 4 cells within one published sd (full=False)\n"
    assert (tmp_path / "89_reproduce_toy.out.ipynb").is_file() and (tmp_path / "89_reproduce_toy.out.html").is_file()
    code, _, err = run("reproduce", "toy", "--nbs", str(nbs), "--output", "x.html", capsys=capsys)
    assert_one_line_error(code, err, "--output must name a .ipynb file")


def test_every_reproduction_notebook_prints_a_verdict_and_takes_full():
    "What `reproduce` relies on in the book's 8x notebooks: a parameters cell assigning `full`, a cell printing 'verdict: …'."
    found = cli.reproduction_notebooks()
    assert set(found) == {"rmboost", "alpha_loss", "robust_trees", "mean_classifier", "archboost"}
    for paper, nb in found.items():
        assert cli._parameters_source(nb) is not None and "full =" in cli._parameters_source(nb), paper
        cells = json.loads(nb.read_text())["cells"]
        assert any(c["cell_type"] == "code" and 'print(f"verdict: ' in "".join(c["source"]) for c in cells), paper
        assert cli._title(nb), paper


def test_a_damaged_line_is_reported_in_one_line_and_rerun(tmp_path, capsys):
    (tmp_path / "g.toml").write_text(GRID)
    out = tmp_path / "res"
    assert run("run", str(tmp_path / "g.toml"), "--n-jobs", "1", "--out", str(out), "--quiet", capsys=capsys)[0] == 0
    lines = (out / "results.jsonl").read_text().splitlines()
    (out / "results.jsonl").write_text("\n".join(["null"] + lines[1:]) + "\n")
    code, _, err = run("report", str(out), capsys=capsys)
    assert code == 0 and "robust-ref: warning: " in err and "1 damaged line(s) left out (line 1: null is not a result row" in err
    code, _, err = run("run", str(tmp_path / "g.toml"), "--n-jobs", "1", "--out", str(out), "--quiet", capsys=capsys)
    assert code == 0 and "robust-ref: warning: " in err and "moved to" in err
    assert "1 new, 7 already done; 1 damaged line(s) quarantined; 8 tasks in" in err
    assert "Traceback" not in err and "warnings.warn" not in err


# ---------------------------------------------------------------- the last unclear errors, each one line

def test_an_option_before_the_command_is_named(capsys):
    code, _, err = run("--bogus", capsys=capsys)
    assert_one_line_error(code, err, "unknown option --bogus: the command comes first")
    assert "commands: datasets, methods, example-grid, run, report, reproduce, record, warm-up" in err


def test_an_empty_dask_address_is_refused_not_run_locally(tmp_path, capsys):
    (tmp_path / "g.toml").write_text(GRID)
    code, _, err = run("run", str(tmp_path / "g.toml"), "--out", str(tmp_path / "res"), "--dask", "", capsys=capsys)
    assert_one_line_error(code, err, "needs a Dask scheduler address such as tcp://127.0.0.1:8786; got an empty one")
    assert not (tmp_path / "res").exists()


def test_a_damaged_notebook_or_provenance_names_the_file(tmp_path, capsys):
    nbs = tmp_path / "nbs"; nbs.mkdir()
    (nbs / "89_reproduce_toy.ipynb").write_text('{"cells": [')
    code, _, err = run("reproduce", "toy", "--nbs", str(nbs), capsys=capsys)
    assert_one_line_error(code, err, f"{nbs / '89_reproduce_toy.ipynb'} is not a readable notebook (damaged JSON")
    rec = tmp_path / "record" / "r1"; rec.mkdir(parents=True)
    (rec / "provenance.json").write_text("{not json")
    for argv in (("record", "show", "--root", str(tmp_path / "record")), ("record", "show", "r1", "--root", str(tmp_path / "record"))):
        code, _, err = run(*argv, capsys=capsys)
        assert_one_line_error(code, err, f"{rec / 'provenance.json'} is not a readable record provenance (damaged JSON")


def test_a_full_disk_reports_the_append_naming_the_log(tmp_path, capsys, monkeypatch):
    "A full disk fails the append first; the table written after it must not replace that error with its own."
    import builtins, errno
    from robust_ref.experiments import store as STORE
    (tmp_path / "g.toml").write_text(GRID)
    real_open = builtins.open
    def full_disk(file, mode="r", *a, **k):
        if str(file).endswith("results.jsonl") and "a" in mode: raise OSError(errno.ENOSPC, "No space left on device")
        return real_open(file, mode, *a, **k)
    monkeypatch.setattr(STORE, "open", full_disk, raising=False)
    monkeypatch.setattr(pd.DataFrame, "to_parquet", lambda *a, **k: (_ for _ in ()).throw(OSError("pyarrow: IOError")))
    code, _, err = run("run", str(tmp_path / "g.toml"), "--out", str(tmp_path / "res"), "--n-jobs", "1", "--quiet", capsys=capsys)
    assert_one_line_error(code, err, f"could not append a row to {tmp_path / 'res' / 'results.jsonl'}: No space left on device")


def test_a_folder_held_by_another_writer_is_one_line(tmp_path, capsys):
    import os
    from robust_ref.experiments import ResultStore, read_grid
    (tmp_path / "g.toml").write_text(GRID)
    with ResultStore(tmp_path / "res", read_grid(tmp_path / "g.toml")):
        code, _, err = run("run", str(tmp_path / "g.toml"), "--out", str(tmp_path / "res"), "--quiet", capsys=capsys)
    assert_one_line_error(code, err, f"results folder {tmp_path / 'res'} is being written by this process (pid {os.getpid()})")
    code, _, err = run("run", str(tmp_path / "g.toml"), "--out", str(tmp_path / "res"), "--n-jobs", "1", "--quiet", capsys=capsys)
    assert code == 0 and "8 new, 0 already done" in err


_FIRST_FITS = """
import json, numba
from robust_ref.datasets import load_dataset
from robust_ref.rmboost import RMBoostClassifier, PAPER_SETTINGS
from robust_ref.lp import LPBoostClassifier
from robust_ref.trees import RobustTreeClassifier, RobustForestClassifier
from robust_ref.baselines import AdaBoostClassifier, LogitBoostClassifier, GentleBoostClassifier
X, y = load_dataset("diabetes", return_X_y=True, missing="impute")
for est in (RMBoostClassifier(n_estimators=20, random_state=0), RMBoostClassifier(n_estimators=20, random_state=0, **PAPER_SETTINGS),
            LPBoostClassifier(n_estimators=20), RobustTreeClassifier("ane", random_state=0), RobustTreeClassifier("gini", max_depth=5),
            RobustForestClassifier(n_estimators=3, random_state=0), AdaBoostClassifier(base_learner="tree", n_estimators=5),
            LogitBoostClassifier(base_learner="tree", max_depth=3, n_estimators=5), GentleBoostClassifier(base_learner="tree", n_estimators=5),
            # what tree_method / lp_working_set = 'auto' take above 50,000 rows
            RMBoostClassifier(n_estimators=20, random_state=0, tree_method="hist", lp_working_set=True),
            RMBoostClassifier(n_estimators=20, random_state=0, tree_method="hist", lp_working_set=True, **PAPER_SETTINGS),
            LPBoostClassifier(n_estimators=20, lp_working_set=True),
            RobustForestClassifier(n_estimators=3, random_state=0, tree_method="hist"),
            RobustTreeClassifier("ane", random_state=0, tree_method="hist"),
            AdaBoostClassifier(base_learner="tree", n_estimators=5, tree_method="hist")):
    est.fit(X, y).predict(X)
import sys
misses = {f"{m}.{d.py_func.__name__}": sum(d.stats.cache_misses.values()) for m, mod in list(sys.modules.items()) if m.startswith("robust_ref")
          for d in vars(mod).values() if isinstance(d, numba.core.registry.CPUDispatcher) and d.stats.cache_misses}
print(json.dumps(misses))
"""


def test_warm_up_compiles_every_kernel_the_first_fits_use():
    "After `robust-ref warm-up` (make venv runs it), a new process's first fits load every numba kernel from the cache: none compiles."
    warm = subprocess.run([str(Path(sys.executable).parent / "robust-ref"), "warm-up"], capture_output=True, text=True, timeout=900)
    assert warm.returncode == 0 and "numba kernels compiled into the cache" in warm.stdout, warm.stderr[-2000:]
    assert "RMBoost" in warm.stdout and "robust forest" in warm.stdout
    fits = subprocess.run([sys.executable, "-c", _FIRST_FITS], capture_output=True, text=True, timeout=900)
    assert fits.returncode == 0, fits.stderr[-2000:]
    misses = json.loads(fits.stdout.strip().splitlines()[-1])
    assert misses == {}, f"kernels compiled by a first fit after the warm-up (add a fit that uses them to warm_up): {misses}"
