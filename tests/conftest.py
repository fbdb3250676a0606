"""Shared pytest fixtures: where the project is, and the book's notebooks tested by `nbdev_test` once per run.

Each notebook is executed by nbdev's own `nbdev_test` (tools/nbtest.py: the same command, which also keeps the
executed copy in _run/ for the site and its browser test). With pytest-xdist, the notebook tests are spread over the
workers, and the docs test needs every notebook executed: a lock file per notebook and run makes sure each notebook
is executed by exactly one worker; the others wait for its recorded result. The terminal summary reports
nbdev_test's result and times just above pytest's own summary line.
"""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import book  # noqa: E402  (tools/book/: the site builder `make book` uses)
import nbtest  # noqa: E402  (tools/nbtest.py: nbdev_test, keeping the executed copies)

_RUN_ID = os.environ.get("PYTEST_XDIST_TESTRUNUID") or f"pid{os.getpid()}"
_WAIT_S = 3600
_T0 = time.time()


def run_nbdev_test(nb: Path, keep: Path = book.RUN, timeout: int = 1800) -> tuple[bool, str]:
    "`nbdev_test --path nb` (from the project root, as a contributor runs it), keeping the executed copy in `keep`."
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "nbtest.py"), "--keep", str(keep), "--path", str(nb)],
                       cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                       env={k: v for k, v in os.environ.items() if k != "MPLBACKEND"})
    return r.returncode == 0, (r.stdout + r.stderr)[-20000:]


def _paths(nb: Path):
    book.RUN.mkdir(parents=True, exist_ok=True)
    return book.RUN / f".{nb.stem}.{_RUN_ID}.lock", book.RUN / f".{nb.stem}.{_RUN_ID}.json"


def _run_unless_claimed(nb: Path) -> None:
    "Execute `nb` and record the result, unless another worker has claimed it already (then return at once)."
    lock, result = _paths(nb)
    try:
        os.close(os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return
    try:
        ok, log = run_nbdev_test(nb)
        record = {"ok": ok, "out": str(book.RUN / nb.name), "error": "" if ok else log}
    except Exception as e:  # noqa: BLE001  (recorded and re-raised to every caller)
        record = {"ok": False, "error": f"{type(e).__name__}: {e}"[:20000]}
    tmp = result.with_suffix(".tmp")
    tmp.write_text(json.dumps(record)); tmp.replace(result)


def execute_once(nb: Path) -> Path:
    "nbdev_test `nb` into _run/ once per test run (across xdist workers); re-raise its failure for every caller."
    _run_unless_claimed(nb)
    result = _paths(nb)[1]
    t0 = time.time()
    while not result.exists():
        if time.time() - t0 > _WAIT_S: raise TimeoutError(f"{nb.name}: another worker never finished executing it")
        time.sleep(0.5)
    record = json.loads(result.read_text())
    if not record["ok"]: raise RuntimeError(f"{nb.name} failed under nbdev_test:\n{record['error']}")
    return Path(record["out"])


def execute_all(nbs: list[Path]) -> list[Path]:
    """Every notebook of `nbs` executed once per test run. A worker first runs each notebook nobody has claimed, then waits
    for the others' results: two workers both needing every notebook split them instead of queueing on the same one."""
    for nb in nbs: _run_unless_claimed(nb)
    return [execute_once(nb) for nb in nbs]


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


def tree_boosting_expected_failures(est) -> dict:
    "Checks expected to fail for boosting with scikit-learn trees (scikit-learn x-fails the same for its AdaBoost)."
    if getattr(est, "base_learner", "stump") == "tree":
        return {"check_sample_weight_equivalence_on_dense_data":
                "scikit-learn trees inside boosting: weights ≠ repetitions (sklearn x-fails it for AdaBoostClassifier)"}
    return {}


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    "nbdev_test's result for this run (one line per notebook it ran, slowest first), above pytest's summary line."
    if hasattr(config, "workerinput"): return
    done = [(p, json.loads(p.read_text())) for p in book.RUN.glob(".*.nbdev_test.json") if p.stat().st_mtime >= _T0]
    if not done: return
    failed = [p.name[1:-len(".nbdev_test.json")] for p, r in done if not r["ok"]]
    tr = terminalreporter
    tr.section("nbdev_test over nbs/ (each notebook's folder as working directory, executed in-process by execnb)")
    for p, r in sorted(done, key=lambda d: -d[1]["seconds"]):
        tr.write_line(f"{p.name[1:-len('.nbdev_test.json')]+'.ipynb':<40s} {r['seconds']:7.1f} s  {'ok' if r['ok'] else 'FAILED'}")
    total = sum(r["seconds"] for _, r in done)
    tr.write_line(f"nbdev_test: {len(done) - len(failed)} of {len(done)} notebooks passed, {total:.0f} s of execution"
                  + ("" if not failed else f"; FAILED: {', '.join(failed)}") + (" (Success.)" if not failed else ""))
