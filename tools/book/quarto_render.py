"""The Quarto site, where a `quarto` binary exists: the executed notebooks processed by nbdev and `quarto render`ed."""
from __future__ import annotations

import os
from pathlib import Path

from . import paths
from .paths import DOCS, ROOT, RUN, TOC_FILE, notebooks

FILTERS = "_filters"  # nbs/_filters/: Pandoc Lua filters of the Quarto render (paper-numbers.lua: the papers' theorem numbers)


def build_quarto(run_dir: Path = RUN, out_dir: Path = DOCS, nbs: list[Path] | None = None) -> Path:
    """Render the Quarto site from the *executed* notebooks: stage them with nbs/'s Quarto files, apply nbdev's
    processors (`nbdev.serve.proc_nbs`, as `nbdev_docs` does) and run `quarto render`. README.md is not touched
    (no `nbdev_readme`)."""
    import shutil
    import subprocess
    stage = run_dir / "quarto_src"  # inside _run/ (ignored by git), next to the executed copies
    shutil.rmtree(stage, ignore_errors=True); stage.mkdir()
    for f in paths.NBS.iterdir():
        if f.is_file() and f.suffix in {".yml", ".css", ".bib", ".scss"}: shutil.copy2(f, stage / f.name)
    for nb in nbs or notebooks():
        src = run_dir / nb.name
        if not src.exists(): raise SystemExit(f"{nb.name} has not been executed into {run_dir}")
        shutil.copy2(src, stage / nb.name)
    from nbdev.serve import proc_nbs
    cwd = os.getcwd(); os.chdir(ROOT)
    try: cache = proc_nbs(str(stage), force=True, n_workers=0)
    finally: os.chdir(cwd)
    shutil.copy2(paths.NBS / TOC_FILE, cache / TOC_FILE)  # the table of contents as written (nbdev must not regenerate it)
    if (paths.NBS / FILTERS).is_dir():  # the Lua filters _quarto.yml names (nbdev does not copy a `_` folder)
        shutil.copytree(paths.NBS / FILTERS, cache / FILTERS, dirs_exist_ok=True)
    subprocess.run(["quarto", "render", str(cache), "--no-cache"], check=True)
    shutil.rmtree(out_dir, ignore_errors=True)
    shutil.move(str(cache / "_docs"), str(out_dir))
    return out_dir
