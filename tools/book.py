"""Run the book and build its offline documentation site.

    python tools/book.py run  [--full] [NOTEBOOK ...]   # papermill every notebook into _run/
    python tools/book.py site                           # _run/*.ipynb -> _docs/*.html
    python tools/book.py all  [--full]                  # both, then say where the site is

Quarto cannot be installed on this project's machines, so the site is built here from the
papermill-executed notebooks: nbdev's own processors (directives, `show_doc`, frontmatter) and then
nbconvert's HTML exporter, plus a navigation sidebar. `nbdev_docs` still renders the Quarto site
(from `nbs/_quarto.yml`) wherever Quarto exists.
"""
from __future__ import annotations

import argparse
import html
import os
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NBS, RUN, DOCS = ROOT / "nbs", ROOT / "_run", ROOT / "_docs"


def notebooks() -> list[Path]:
    "The book's notebooks in reading order (nbdev skips names starting with `_`, and so do we)."
    return sorted(p for p in NBS.glob("*.ipynb") if not p.name.startswith(("_", ".")))


def page_name(nb: Path) -> str:
    "nbdev's page naming: `00_core.ipynb` -> `core.html`, `index.ipynb` -> `index.html`."
    return re.sub(r"^\d+[a-z]?_", "", nb.stem) + ".html"


def declared_parameters(nb: Path) -> set[str]:
    "Names assigned in the cell tagged `parameters` (papermill ignores undeclared ones silently)."
    import nbformat
    names = set()
    for cell in nbformat.read(nb, as_version=4).cells:
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            names |= set(re.findall(r"^(\w+)\s*[:=]", cell.source, flags=re.M))
    return names


def run_notebook(nb: Path, out_dir: Path = RUN, full: bool = False, timeout: int = 1800) -> Path:
    "Execute `nb` with papermill (cwd = nbs/, kernel python3); the executed copy goes to `out_dir`."
    import papermill as pm
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / nb.name
    params = {"full": True} if full and "full" in declared_parameters(nb) else {}
    env_before = os.environ.get("MPLBACKEND")
    os.environ.pop("MPLBACKEND", None)  # inline figures are what the docs show
    try:
        pm.execute_notebook(str(nb), str(out), parameters=params, cwd=str(nb.parent), kernel_name="python3",
                            progress_bar=False, execution_timeout=timeout)
    finally:
        if env_before is not None: os.environ["MPLBACKEND"] = env_before
    return out


def run_all(names: list[str] | None = None, full: bool = False, n_jobs: int = 2) -> list[tuple[str, float, str]]:
    "Execute notebooks (two at a time: one per core), printing each as it finishes."
    nbs = [NBS / n if n.endswith(".ipynb") else NBS / f"{n}.ipynb" for n in names] if names else notebooks()
    def one(nb):
        t = time.time()
        try: run_notebook(nb, full=full); status = "ok"
        except Exception as e: status = f"FAILED: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        res = (nb.name, time.time() - t, status)
        print(f"  {res[0]:<40s} {res[1]:7.1f} s  {res[2]}", flush=True)
        return res
    print(f"Executing {len(nbs)} notebooks with papermill into {RUN.relative_to(ROOT)}/ ...", flush=True)
    with ThreadPoolExecutor(n_jobs) as pool: results = list(pool.map(one, nbs))
    return results


# ----------------------------------------------------------------------------------------- site
_CSS = """
body { margin: 0; }
.rr-layout { display: flex; align-items: flex-start; }
.rr-nav { position: sticky; top: 0; flex: 0 0 15rem; height: 100vh; overflow-y: auto; padding: 1rem;
          background: #f6f8fa; border-right: 1px solid #ddd; font: 14px/1.4 system-ui, sans-serif; box-sizing: border-box; }
.rr-nav a { display: block; padding: .25rem .4rem; color: #24292f; text-decoration: none; border-radius: 4px; }
.rr-nav a.current { background: #dbe9ff; font-weight: 600; }
.rr-nav .rr-brand { font-size: 1.2rem; font-weight: 700; margin-bottom: .8rem; }
.rr-main { flex: 1 1 auto; min-width: 0; padding: 0 2rem 3rem; }
.rr-header h1 { margin-bottom: .2rem; } .rr-header p.rr-desc { font-style: italic; opacity: .75; font-size: 1.15rem; }
.rr-pager { display: flex; justify-content: space-between; margin: 2rem 0; font: 14px system-ui, sans-serif; }
"""


def _frontmatter(nb) -> dict:
    "Title/description from the raw YAML cell nbdev's FrontmatterProc inserts."
    import yaml
    for cell in nb.cells:
        if _is_frontmatter(cell):
            body = cell.source.strip().strip("-")
            try: return yaml.safe_load(body) or {}
            except Exception: return {}
    return {}


def process_for_docs(executed: Path):
    "Apply nbdev's documentation processors to an executed notebook (keeps its outputs)."
    import nbformat
    from execnb.nbio import read_nb
    from nbdev.processors import FilterDefaults
    nb = read_nb(executed)
    cwd = os.getcwd()
    os.chdir(NBS)  # show_doc cells are re-run where the notebook lives
    try: FilterDefaults()(nb)
    finally: os.chdir(cwd)
    return _nb_to_dict(nb)


def _nb_to_dict(nb):
    "execnb's notebook -> (nbformat node, frontmatter); strings rejoined, emptied and frontmatter cells dropped."
    import nbformat
    from execnb.nbio import nb2str
    d = nbformat.reads(nb2str(nb), as_version=4)
    fm = _frontmatter(d)
    d.cells = [c for c in d.cells if c.get("source") and not _is_frontmatter(c)]
    for c in d.cells:
        c.pop("idx_", None)
        if c.cell_type == "code": _apply_quarto_directives(c)
    return d, fm


def _is_frontmatter(cell) -> bool:
    return cell.cell_type == "raw" and cell.source.lstrip().startswith("---")


_QUARTO_ATTRS = re.compile(r'\{(?:target|style|\.)[^{}\n]*\}')  # link/heading attributes only Quarto understands


def _apply_quarto_directives(cell):
    "Do what Quarto would do with the `#|` options nbdev leaves in: echo/output/include, then drop them."
    lines = cell.source.splitlines()
    opts = dict(re.match(r"#\|\s*([\w-]+):?\s*(.*)", l).groups() for l in lines if re.match(r"#\|\s*[\w-]+", l))
    cell.source = "\n".join(l for l in lines if not l.startswith("#|")).strip("\n")
    tags = set(cell.metadata.get("tags", []))
    if opts.get("echo", "").lower() == "false" or not cell.source: tags.add("remove_input")
    if opts.get("output", "").lower() == "false": tags.add("remove_output")
    if opts.get("include", "").lower() == "false": tags.add("remove_cell")
    cell.metadata["tags"] = sorted(tags)
    for o in cell.get("outputs", []):
        md = o.get("data", {}).get("text/markdown")
        if md: o["data"]["text/markdown"] = _QUARTO_ATTRS.sub("", md)


# MathJax is served from the site itself (copied from the jupyter-server-mathjax wheel), so formulas
# typeset offline too; without that package the page falls back to nbconvert's CDN address.
_MATHJAX_URL = "mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full,Safe"


def copy_mathjax(out_dir: Path) -> bool:
    "Copy MathJax 2 into `out_dir/mathjax`; False (CDN fallback) if jupyter-server-mathjax is absent."
    global _MATHJAX_URL
    import shutil
    try:
        import jupyter_server_mathjax
    except ImportError:
        _MATHJAX_URL = "https://cdnjs.cloudflare.com/ajax/libs/mathjax/2.7.7/MathJax.js?config=TeX-AMS_CHTML-full,Safe"
        return False
    src = Path(jupyter_server_mathjax.__file__).parent / "static"
    if not (out_dir / "mathjax" / "MathJax.js").exists():
        shutil.copytree(src, out_dir / "mathjax", dirs_exist_ok=True)
    return True


def render_page(nb_dict, fm: dict, name: str, pages: list[tuple[str, str]]) -> str:
    "nbconvert HTML of one notebook, with the site header, sidebar and prev/next links."
    from nbconvert import HTMLExporter
    from traitlets.config import Config
    c = Config()
    c.TagRemovePreprocessor.enabled = True
    c.TagRemovePreprocessor.remove_cell_tags = {"remove_cell"}
    c.TagRemovePreprocessor.remove_input_tags = {"remove_input"}
    c.TagRemovePreprocessor.remove_all_outputs_tags = {"remove_output"}
    exporter = HTMLExporter(config=c, template_name="lab", exclude_input_prompt=True, exclude_output_prompt=True,
                            mathjax_url=_MATHJAX_URL)
    body, _ = exporter.from_notebook_node(nb_dict)
    title = fm.get("title", name)
    nav = "".join(f'<a href="{p}" class="{"current" if p == name else ""}">{html.escape(t)}</a>' for p, t in pages)
    idx = [p for p, _ in pages].index(name)
    prev = f'<a href="{pages[idx-1][0]}">← {html.escape(pages[idx-1][1])}</a>' if idx > 0 else "<span></span>"
    nxt = f'<a href="{pages[idx+1][0]}">{html.escape(pages[idx+1][1])} →</a>' if idx + 1 < len(pages) else "<span></span>"
    header = (f'<div class="rr-header"><h1>{html.escape(title)}</h1>'
              + (f'<p class="rr-desc">{html.escape(fm["description"])}</p>' if fm.get("description") else "") + "</div>")
    pre = (f'<div class="rr-layout"><nav class="rr-nav"><div class="rr-brand"><a href="index.html">robust_ref</a></div>{nav}</nav>'
           f'<div class="rr-main">{header}')
    post = f'<div class="rr-pager">{prev}{nxt}</div></div></div>'
    body = re.sub(r"<title>.*?</title>", f"<title>{html.escape(title)} – robust_ref</title>", body, count=1, flags=re.S)
    body = body.replace("</head>", f"<style>{_CSS}</style></head>", 1)
    body = re.sub(r"(<body[^>]*>)", lambda m: m.group(1) + pre, body, count=1)
    return body.replace("</body>", post + "</body>", 1)


def build_site(run_dir: Path = RUN, out_dir: Path = DOCS) -> list[Path]:
    "Build `out_dir`: one HTML page per executed notebook in `run_dir`, index first."
    # only the book's current notebooks (stale executed copies of renamed notebooks are ignored)
    execs = [run_dir / nb.name for nb in notebooks() if (run_dir / nb.name).exists()]
    execs.sort(key=lambda p: (p.stem != "index", p.name))
    if not execs: raise SystemExit(f"no executed notebooks in {run_dir}: run `python tools/book.py run` first")
    out_dir.mkdir(parents=True, exist_ok=True)
    copy_mathjax(out_dir)
    processed = [(page_name(p), *process_for_docs(p)) for p in execs]
    pages = [(name, fm.get("title", name)) for name, _, fm in processed]
    written = []
    for name, nb_dict, fm in processed:
        (out_dir / name).write_text(render_page(nb_dict, fm, name, pages), encoding="utf-8")
        written.append(out_dir / name)
    (out_dir / ".nojekyll").touch()
    return written


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["run", "site", "all"])
    ap.add_argument("notebooks", nargs="*", help="notebook names (default: all)")
    ap.add_argument("--full", action="store_true", help="pass full=True to notebooks that declare it (paper-size runs)")
    a = ap.parse_args(argv)
    t0, failed = time.time(), []
    if a.what in ("run", "all"):
        failed = [r for r in run_all(a.notebooks or None, full=a.full) if r[2] != "ok"]
    if a.what in ("site", "all"):
        pages = build_site()
        print(f"Built {len(pages)} pages into {DOCS}/ in {time.time() - t0:.0f} s (total).")
        print(f"Open {DOCS / 'index.html'} in a browser, or serve it:\n"
              f"  python -m http.server -d {DOCS} 8000 --bind 127.0.0.1   # then visit http://127.0.0.1:8000/")
    if failed:
        print("Notebooks that failed:", ", ".join(r[0] for r in failed), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
