"""Layer 2: every notebook tested by `nbdev_test` with its CI parameters, one test item per notebook.

`execute_once` (conftest) runs nbdev's own `nbdev_test --path nbs/<notebook>` through tools/nbtest.py, which keeps the
executed copy in _run/ for the site; `make book` executes the same notebooks with papermill (its runner is tested
below on the smallest notebook, and `robust-ref reproduce` with `--full` in tests/test_cli.py).
"""
import nbformat
import pytest

import book
from conftest import execute_once, run_nbdev_test

NOTEBOOKS = book.notebooks()


def test_the_book_has_notebooks():
    assert len(NOTEBOOKS) >= 2, "nbs/ should hold index.ipynb and the chapters"
    assert (book.NBS / "index.ipynb") in NOTEBOOKS


def test_nbdev_test_and_the_book_see_the_same_notebooks(root, monkeypatch):
    "Every notebook nbdev_test would pick up in nbs/ is a page of the book and is tested here, and no other."
    from nbdev.doclinks import nbglob
    monkeypatch.chdir(root)
    assert sorted(p.name for p in nbglob(str(book.NBS), as_path=True)) == sorted(p.name for p in NOTEBOOKS)


def _nbdev_skips(cell) -> bool:
    "The code cells nbdev_test does not run: `nbdev_export()` calls and cells marked `#| eval: false`."
    return "nbdev_export(" in cell.source or any(l.replace(" ", "").lower() == "#|eval:false"
                                                 for l in cell.source.splitlines())


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_passes_nbdev_test(nb):
    out = execute_once(nb)
    executed = nbformat.read(out, as_version=4)
    assert executed.metadata["robust_ref"]["engine"] == "nbdev_test" and executed.metadata["robust_ref"]["ok"]
    errors = [o for c in executed.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.output_type == "error"]
    assert not errors, f"{nb.name}: error outputs {[e.ename for e in errors]}"
    code = [c for c in executed.cells if c.cell_type == "code"]
    not_run = [c.get("id") for c in code if c.get("execution_count") is None and not _nbdev_skips(c)]
    assert not not_run, f"{nb.name}: cells {not_run} did not run"


def _scratch(folder, cells):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in cells])
    nb.metadata["kernelspec"] = {"display_name": "python3", "language": "python", "name": "python3"}
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / "scratch.ipynb")
    return folder / "scratch.ipynb"


@pytest.mark.parametrize("cells", [
    ["#| eval: false\nlimit = 3", "assert limit == 3"],                   # nbdev_test skips `eval: false` cells
    ["import os\nassert os.environ.get('IN_TEST') != '1', 'run under nbdev_test'"],  # nbdev_test sets IN_TEST
], ids=["eval-false-cell-defines-a-name", "depends-on-nbdev-test-environment"])
def test_a_cell_failing_only_under_nbdev_test_fails_the_notebook_test(tmp_path, cells):
    "papermill (`make book`) runs these notebooks; nbdev_test, hence the notebook test and `make test`, fails them."
    nb = _scratch(tmp_path / "nbs", cells)
    book.run_notebook(nb, out_dir=tmp_path / "papermill")                 # passes under papermill
    ok, log = run_nbdev_test(nb, keep=tmp_path / "kept")
    assert not ok and "nbdev Tests Failed" in log and "scratch.ipynb" in log
    assert (tmp_path / "kept" / "scratch.ipynb").is_file()               # the failing run is kept, outputs included


def test_a_passing_scratch_notebook_passes_and_is_kept_with_its_outputs(tmp_path):
    nb = _scratch(tmp_path / "nbs", ["x = 20 + 1", "print(x * 2)", "#| eval: false\nraise SystemExit"])
    ok, log = run_nbdev_test(nb, keep=tmp_path / "kept")
    assert ok and "Success." in log, log
    kept = nbformat.read(tmp_path / "kept" / "scratch.ipynb", as_version=4)
    assert [c.execution_count for c in kept.cells] == [1, 2, None]
    assert kept.cells[1].outputs[0].text == "42\n"


def test_make_books_papermill_runner_executes_a_notebook(tmp_path):
    out = book.run_notebook(book.NBS / "index.ipynb", out_dir=tmp_path)
    executed = nbformat.read(out, as_version=4)
    assert "papermill" in executed.metadata and executed.metadata["papermill"]["exception"] is None
