"""Author notebooks as plain text and back (a tiny, dependency-free jupytext "percent" subset).

    python tools/nbtool.py py2nb nbs/_src/00_core.py nbs/00_core.ipynb
    python tools/nbtool.py nb2py nbs/00_core.ipynb /tmp/00_core.py

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


def py2nb(src: str, dst: str):
    "Convert a percent-format script to a notebook with the python3 kernelspec."
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
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"display_name": "python3", "language": "python", "name": "python3"}
    nbformat.write(nb, dst)


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


if __name__ == "__main__":
    cmd, a, b = sys.argv[1:4]
    {"py2nb": py2nb, "nb2py": nb2py}[cmd](a, b)
