"""Shared pytest fixtures: where the project is, and the book's notebooks executed once per test run.

With pytest-xdist, the notebook tests are spread over the workers, and the docs test needs every notebook
executed: a lock file per notebook and run makes sure each notebook is executed by exactly one worker;
the others wait for its recorded result.
"""
import json
import os
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import book  # noqa: E402  (tools/book.py: the same runner `make book` uses)

_RUN_ID = os.environ.get("PYTEST_XDIST_TESTRUNUID") or f"pid{os.getpid()}"
_WAIT_S = 3600


def _paths(nb: Path):
    book.RUN.mkdir(parents=True, exist_ok=True)
    return book.RUN / f".{nb.stem}.{_RUN_ID}.lock", book.RUN / f".{nb.stem}.{_RUN_ID}.json"


def execute_once(nb: Path) -> Path:
    "papermill-run `nb` into _run/ once per test run (across xdist workers); re-raise its failure for every caller."
    lock, result = _paths(nb)
    try:
        os.close(os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        owner = True
    except FileExistsError:
        owner = False
    if owner:
        try:
            out = book.run_notebook(nb)
            record = {"ok": True, "out": str(out)}
        except Exception as e:  # noqa: BLE001  (recorded and re-raised to every caller)
            record = {"ok": False, "error": f"{type(e).__name__}: {e}"[:20000]}
        tmp = result.with_suffix(".tmp")
        tmp.write_text(json.dumps(record)); tmp.replace(result)
    t0 = time.time()
    while not result.exists():
        if time.time() - t0 > _WAIT_S: raise TimeoutError(f"{nb.name}: another worker never finished executing it")
        time.sleep(0.5)
    record = json.loads(result.read_text())
    if not record["ok"]: raise RuntimeError(f"{nb.name} failed under papermill:\n{record['error']}")
    return Path(record["out"])


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


def tree_boosting_expected_failures(est) -> dict:
    "Checks expected to fail for boosting with scikit-learn trees (scikit-learn x-fails the same for its AdaBoost)."
    if getattr(est, "base_learner", "stump") == "tree":
        return {"check_sample_weight_equivalence_on_dense_data":
                "scikit-learn trees inside boosting: weights ≠ repetitions (sklearn x-fails it for AdaBoostClassifier)"}
    return {}
