"""The runner: every notebook executed with papermill into _run/ (cwd = nbs/, kernel python3)."""
from __future__ import annotations

import json
import os
import re
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import paths
from .paths import ROOT, RUN, notebooks


def declared_parameters(nb: Path) -> set[str]:
    "Names assigned in the cell tagged `parameters` (papermill ignores undeclared ones silently)."
    import nbformat
    names = set()
    for cell in nbformat.read(nb, as_version=4).cells:
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            names |= set(re.findall(r"^(\w+)\s*[:=]", cell.source, flags=re.M))
    return names


def _kernel_manager_class():
    """jupyter_client's kernel manager, except that shutting a kernel down does not interrupt it first.

    jupyter_client sends SIGINT before every shutdown request; a kernel still flushing its last output then logs
    "KeyboardInterrupt caught in kernel" into `make book`. papermill shuts a kernel down only after the notebook has
    run, so the shutdown request alone is enough (jupyter_client still terminates a kernel that does not answer it)."""
    from jupyter_client.manager import AsyncKernelManager

    class ShutdownWithoutInterrupt(AsyncKernelManager):
        async def _async_interrupt_kernel(self) -> None:
            if self.shutting_down: return
            await super()._async_interrupt_kernel()
        interrupt_kernel = _async_interrupt_kernel
    return ShutdownWithoutInterrupt


def run_notebook(nb: Path, out_dir: Path = RUN, full: bool = False, timeout: int = 1800) -> Path:
    "Execute `nb` with papermill (cwd = nbs/, kernel python3); the executed copy goes to `out_dir`."
    import papermill as pm
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / nb.name
    params = {"full": True} if full and "full" in declared_parameters(nb) else {}
    env_before = os.environ.get("MPLBACKEND")
    os.environ.pop("MPLBACKEND", None)  # inline figures are what the docs show
    try:
        # The kernel runs on 127.0.0.1 and says so at WARNING level on every start: only its errors go to the log.
        # The kernel starts in nbs/ through nbclient's `resources` path, not papermill's `cwd=`: that one chdir()s the
        # whole process, and with two notebooks run from two threads a kernel could start in the other's directory.
        pm.execute_notebook(str(nb), str(out), parameters=params, kernel_name="python3",
                            progress_bar=False, execution_timeout=timeout,
                            extra_arguments=["--IPKernelApp.log_level=ERROR"],
                            resources={"metadata": {"path": str(nb.parent)}},
                            kernel_manager_class=_kernel_manager_class())
    finally:
        if env_before is not None: os.environ["MPLBACKEND"] = env_before
    return out


def run_all(names: list[str] | None = None, full: bool = False, n_jobs: int = 2) -> list[tuple[str, float, str]]:
    "Execute notebooks (two at a time: one per core), printing each as it finishes."
    nbs = [paths.NBS / n if n.endswith(".ipynb") else paths.NBS / f"{n}.ipynb" for n in names] if names else notebooks()
    def one(nb):
        t = time.time()
        try: run_notebook(nb, full=full); status = "ok"
        except Exception as e: status = f"FAILED: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        res = (nb.name, time.time() - t, status)
        record = {"ok": status == "ok", "seconds": res[1], "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                  "error": "" if status == "ok" else status}
        (RUN / f".{nb.stem}.papermill.json").write_text(json.dumps(record))  # for the book's execution-status page
        print(f"  {res[0]:<40s} {res[1]:7.1f} s  {res[2]}", flush=True)
        return res
    print(f"Executing {len(nbs)} notebooks with papermill into {RUN.relative_to(ROOT)}/ ...", flush=True)
    with ThreadPoolExecutor(n_jobs) as pool: results = list(pool.map(one, nbs))
    return results
