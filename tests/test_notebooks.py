"""Layer 2: every notebook re-executed by papermill with its CI parameters, one test item per notebook."""
import nbformat
import pytest

import book
from conftest import execute_once

NOTEBOOKS = book.notebooks()


def test_the_book_has_notebooks():
    assert len(NOTEBOOKS) >= 2, "nbs/ should hold index.ipynb and the chapters"
    assert (book.NBS / "index.ipynb") in NOTEBOOKS


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_under_papermill(nb):
    out = execute_once(nb)
    executed = nbformat.read(out, as_version=4)
    errors = [o for c in executed.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.output_type == "error"]
    assert not errors, f"{nb.name}: error outputs {[e.ename for e in errors]}"
    n_code = sum(c.cell_type == "code" for c in executed.cells)
    n_run = sum(c.cell_type == "code" and c.get("execution_count") is not None for c in executed.cells)
    skipped = sum("skip-execution" in c.metadata.get("tags", []) for c in executed.cells)
    assert n_run + skipped == n_code, f"{nb.name}: only {n_run} of {n_code} code cells ran"
