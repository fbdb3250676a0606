"""nbdev_test, as `make test` runs it, keeping what it executed for the site.

    python tools/nbtest.py [--keep DIR] [nbdev_test's options, e.g. --path nbs/10_rmboost.ipynb --timing]

This is nbdev's own `nbdev_test` (its test flags from settings.ini, each notebook's folder as working directory,
execution in-process by execnb, its worker pool, its exit status), with one addition: every notebook it executes is
also written, outputs included (figures as plain PNG, as `make book` keeps them, not execnb's retina), to DIR (default `_run/`) together with a small JSON status file, so the offline site
and its browser test are built from the very run that tested the notebooks instead of from a second execution.

Written next to `<name>.ipynb` in DIR: `.<name>.nbdev_test.json` with `{"ok": bool, "seconds": float, "finished": UTC time,
"error": str}` (the book's execution-status page is made from these files).
A cell nbdev_test does not run (an `nbdev_export()` cell, `#| eval: false`, a cell flagged with a test flag) keeps no
outputs and no execution count in the copy.
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

KEEP_ENV = "ROBUST_REF_KEEP_EXECUTED"


def status_path(keep: Path, nb_name: str) -> Path:
    return keep / f".{Path(nb_name).stem}.nbdev_test.json"


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    tmp.replace(path)


def _keep(nb, keep: Path, ok: bool, seconds: float, error: str) -> None:
    "The source notebook with the outputs and execution counts of the cells nbdev_test ran (matched by cell id)."
    import nbformat
    src = Path(nb.path_)
    executed = {c.get("id"): c for c in nb.cells if c.get("cell_type") == "code"}
    copy = nbformat.read(src, as_version=4)
    for cell in copy.cells:
        if cell.cell_type != "code": continue
        ran = executed.get(cell.get("id"))
        cell.outputs = [nbformat.from_dict(dict(o)) for o in (ran.get("outputs") or [])] if ran is not None else []
        cell.execution_count = ran.get("rr_count_") if ran is not None else None
        for o in cell.outputs:
            if "execution_count" in o: o.execution_count = cell.execution_count
    copy.metadata["robust_ref"] = {"engine": "nbdev_test", "ok": ok, "seconds": round(seconds, 3)}
    keep.mkdir(parents=True, exist_ok=True)
    _write_atomic(keep / src.name, nbformat.writes(copy))
    finished = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    _write_atomic(status_path(keep, src.name), json.dumps({"ok": ok, "seconds": seconds, "finished": finished,
                                                          "error": error[-20000:]}))


def install(keep: Path) -> None:
    "Make execnb's shell (which nbdev_test uses) also keep each notebook it runs, in `keep`."
    from execnb.shell import CaptureShell
    run_cell_of_nb, run_all, init = CaptureShell.cell, CaptureShell.run_all, CaptureShell.__init__

    def plain_png(self, path=None, mpl_format="png", *a, **kw):  # the figures `make book` (papermill) keeps
        init(self, path, mpl_format, *a, **kw)

    def cell(self, c, *a, **kw):
        out = run_cell_of_nb(self, c, *a, **kw)
        if c.cell_type == "code":  # execnb runs cells without history, so IPython's counter stays at 1
            self.rr_count_ = getattr(self, "rr_count_", 0) + 1
            c.rr_count_ = self.rr_count_
        return out

    def run_all_keeping(self, nb, *a, **kw):
        t0, ok, err = time.time(), False, ""
        try:
            run_all(self, nb, *a, **kw)
            ok = True
        except BaseException:
            err = self.prettytb(fname=getattr(nb, "path_", None))
            raise
        finally:
            _keep(nb, keep, ok, time.time() - t0, err)

    CaptureShell.__init__, CaptureShell.cell, CaptureShell.run_all = plain_png, cell, run_all_keeping


def main(argv: list[str]) -> None:
    keep = Path(os.environ.get(KEEP_ENV) or Path(__file__).resolve().parent.parent / "_run")
    if "--keep" in argv:
        i = argv.index("--keep"); keep = Path(argv[i + 1]); del argv[i:i + 2]
    install(keep.resolve())
    from nbdev.test import nbdev_test
    sys.argv = ["nbdev_test", *argv]
    nbdev_test()


if __name__ == "__main__":
    main(sys.argv[1:])
