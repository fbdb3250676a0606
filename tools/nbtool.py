"""Author notebooks as plain text and back (a tiny, dependency-free jupytext "percent" subset).

    python tools/nbtool.py py2nb nbs/_src/00_core.py nbs/00_core.ipynb
    python tools/nbtool.py nb2py nbs/00_core.ipynb /tmp/00_core.py

py2nb also moves top-level imports of non-exported cells into cells of their own (see split_imports).
Cell markers: `# %%` (code), `# %% [markdown]` (markdown, each line prefixed `# `),
optional tags: `# %% tags=["parameters", "skip-execution"]`.
The notebook stays the source of truth; this only makes editing it in a text editor easy.
"""
import json
import re
import sys
from pathlib import Path

import nbformat

_MARK = re.compile(r"^# %%(?P<md> \[markdown\])?(?: tags=(?P<tags>\[.*\]))?\s*$")


def _finish(cells, kind, tags, lines):
    while lines and not lines[-1].strip(): lines.pop()
    while lines and not lines[0].strip(): lines.pop(0)
    if kind is None or not lines: return
    if kind == "markdown":
        src = "\n".join(l[2:] if l.startswith("# ") else l[1:] if l.startswith("#") else l for l in lines)
        cell = nbformat.v4.new_markdown_cell(src)
    else:
        cell = nbformat.v4.new_code_cell("\n".join(lines))
    if tags: cell.metadata["tags"] = tags
    cells.append(cell)


def _reuse_ids(cells, old_path):
    "Give cells whose source is unchanged the id they had in `old_path`, so diffs and exported `# %%` markers stay put."
    if not Path(old_path).exists(): return
    free = {}
    for c in nbformat.read(old_path, as_version=4).cells:
        free.setdefault(c.source, []).append(c.get("id"))
    for c in cells:
        ids = free.get(c.source)
        if ids: c["id"] = ids.pop(0)


def py2nb(src: str, dst: str, ids_from: str | None = None):
    """Convert a percent-format script to a notebook with the python3 kernelspec. Unchanged cells keep the ids they
    have in `ids_from` (default: the notebook being overwritten)."""
    cells, kind, tags, lines = [], None, None, []
    for line in Path(src).read_text().splitlines():
        m = _MARK.match(line)
        if m:
            _finish(cells, kind, tags, lines)
            kind = "markdown" if m["md"] else "code"
            tags = json.loads(m["tags"]) if m["tags"] else None
            lines = []
        else:
            lines.append(line)
    _finish(cells, kind, tags, lines)
    _reuse_ids(cells, ids_from or dst)
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"display_name": "python3", "language": "python", "name": "python3"}
    nbformat.write(nb, dst)
    split_imports(dst)  # nbdev's docs processor needs imports in cells of their own


def nb2py(src: str, dst: str):
    "Convert a notebook back to percent format (outputs dropped)."
    nb = nbformat.read(src, as_version=4)
    out = []
    for c in nb.cells:
        tags = c.metadata.get("tags")
        t = f" tags={json.dumps(tags)}" if tags else ""
        if c.cell_type == "markdown":
            out.append(f"# %% [markdown]{t}")
            out.extend(("# " + l) if l else "#" for l in c.source.splitlines())
        else:
            out.append(f"# %%{t}")
            out.extend(c.source.splitlines())
        out.append("")
    Path(dst).write_text("\n".join(out) + "\n")


def split_imports(path: str) -> int:
    """Move top-level imports of non-exported code cells into a cell of their own (nbdev's docs processor
    re-executes every cell that contains an import; mixed cells then fail for lack of notebook state)."""
    import ast
    nb = nbformat.read(path, as_version=4)
    out, n = [], 0
    for c in nb.cells:
        if c.cell_type != "code" or re.search(r"^#\|\s*(export|exports|exporti|hide)\b", c.source, flags=re.M):
            out.append(c); continue
        try: tree = ast.parse(c.source)
        except SyntaxError: out.append(c); continue
        imps = [s for s in tree.body if isinstance(s, (ast.Import, ast.ImportFrom))]
        rest = [s for s in tree.body if not isinstance(s, (ast.Import, ast.ImportFrom))]
        if not imps or not rest: out.append(c); continue
        lines = c.source.splitlines()
        imp_lines = {i for s in imps for i in range(s.lineno - 1, s.end_lineno)}
        directives = [l for l in lines if l.startswith("#|")]
        out.append(nbformat.v4.new_code_cell("\n".join(directives + [lines[i] for i in sorted(imp_lines)])))
        c.source = "\n".join(l for i, l in enumerate(lines) if i not in imp_lines).strip("\n")
        out.append(c); n += 1
    nb.cells = out
    nbformat.write(nb, path)
    return n


if __name__ == "__main__":
    cmd, *args = sys.argv[1:]
    if cmd == "split-imports":
        for a in args: print(a, split_imports(a), "cells split")
    else: {"py2nb": py2nb, "nb2py": nb2py}[cmd](*args)
