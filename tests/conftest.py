"""Shared pytest fixtures: where the project is, and the book's notebooks executed once per session."""
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import book  # noqa: E402  (tools/book.py: the same runner `make book` uses)

_executed: dict[str, object] = {}


def execute_once(nb: Path):
    "papermill-run `nb` into _run/ once per test session; re-raise its failure for every caller."
    if nb.name not in _executed:
        try: _executed[nb.name] = book.run_notebook(nb)
        except Exception as e: _executed[nb.name] = e
    res = _executed[nb.name]
    if isinstance(res, Exception): raise res
    return res


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT
