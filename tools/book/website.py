"""The offline site: every executed notebook rendered into _docs/, with the bibliography, highlighted sources and
Pagefind's search index."""
from __future__ import annotations

import html
import re
import sys
from pathlib import Path

from . import paths, shell
from .bib import cite_label, format_reference, parse_bib
from .backmatter import BACK_MATTER, write_back_matter
from .markup import Book
from .nbproc import figures, notebook_css, process_for_docs, render_body
from .paths import DOCS, ROOT, RUN, in_reading_order, notebooks, page_name
from .shell import _toc, page_shell


_EXT = {"svg+xml": "svg", "jpeg": "jpg"}
NOTEBOOKS = "notebooks"  # each page's notebook, for download
FIGURES = "figures"  # images are files of the site (a page with inline base64 figures weighed up to 1.6 MB)


def image_files(body: str, out_dir: Path, stem: str) -> str:
    "Every inline `data:` image of a page -> a file `figures/<page>-<hash>.<ext>` (named by content: the same each build)."
    import base64
    import hashlib
    def save(m):
        data = base64.b64decode(re.sub(r"\s+", "", m.group(2)))
        name = f"{FIGURES}/{stem}-{hashlib.sha1(data).hexdigest()[:12]}.{_EXT.get(m.group(1), m.group(1))}"
        (out_dir / FIGURES).mkdir(parents=True, exist_ok=True)
        (out_dir / name).write_bytes(data)
        return f'src="{name}"'
    return re.sub(r'src="data:image/(png|jpeg|gif|svg\+xml);base64,([^"]+)"', save, body)


def _inline_html(markdown: str) -> str:
    "One line of markdown (a caption) as inline HTML."
    from nbconvert.filters.markdown_mistune import markdown2html_mistune
    return re.sub(r"^<p>|</p>\s*$", "", markdown2html_mistune(markdown).strip())



def pandoc_id(nbconvert_id: str) -> str:
    """The identifier Pandoc (so Quarto) gives a heading, from the one nbconvert gave it: nbconvert keeps the heading's
    punctuation and joins words with '-' (`Kernel-herding-(Algorithm-1)`), Pandoc lower-cases and drops every character
    but letters, digits, '_', '-' and '.' (`kernel-herding-algorithm-1`)."""
    return re.sub(r"[^\w.-]", "", html.unescape(nbconvert_id).lower().replace(" ", "-"))

class Links:
    """Make every link resolve inside the site: nbdev's doc links (doc host) -> the local page, with the anchor
    spelled as on the page; source links (code host) -> the local highlighted module (or a configured remote);
    anything else off-site -> plain text (its address kept in a tooltip)."""
    def __init__(self, out_dir: Path, remote: str | None = None):
        s = paths._settings()
        self.doc = (s.get("doc_host", "").rstrip("/") + "/" + s.get("doc_baseurl", "").strip("/")).rstrip("/") + "/"
        self.git = s.get("git_url", "").rstrip("/") + "/"
        self.remote, self.out, self.ids = remote, out_dir, {}
        self.sources: set[str] = set()
        self.delinked: dict[str, list[str]] = {}

    def learn_ids(self, page: str, body: str):
        "Each id of the page under its lower-case spelling and under Quarto's (Pandoc's) spelling of the same heading."
        ids = re.findall(r'\bid="([^"]+)"', body)
        self.ids[page] = {**{pandoc_id(i): i for i in ids}, **{i.lower(): i for i in ids}}

    def fix(self, page: str, text: str, prefix: str = "") -> str:
        def repl(m):
            attr, url = m.group(1), html.unescape(m.group(2))
            if url.startswith(self.doc):
                rest = url[len(self.doc):]
                target, _, anchor = rest.partition("#")
                target = target or "index.html"
                if anchor and target in self.ids:  # spelled as on the page; an anchor the page lacks -> the page
                    anchor = self.ids[target].get(anchor.lower(), "")
                return f'{attr}="{prefix}{target}{"#" + anchor if anchor else ""}"'
            if url.startswith(self.git) and "/blob/" in url:
                path, _, line = url.split("/blob/", 1)[1].split("/", 1)[1].partition("#")
                if self.remote: return f'{attr}="{self.remote.rstrip("/")}/blob/main/{path}{"#" + line if line else ""}"'
                self.sources.add(path)
                line = re.sub(r"^L(\d+).*", r"L-\1", line)
                return f'{attr}="{prefix}src/{path}.html{"#" + line if line else ""}"'
            return m.group(0)
        text = re.sub(r'(href|src)="(https?://[^"]+)"', repl, text)
        # a markdown link to another notebook (`[chapter](10_rmboost.ipynb#sec)`, as Quarto wants it) -> its page
        # (a section anchor in Quarto's spelling, `#why-rmboost-...`, -> the id nbconvert gave the heading)
        def nb_link(m):
            target, anchor = page_name(Path(m.group(1) + ".ipynb")), (m.group(2) or "#")[1:]
            if anchor: anchor = self.ids.get(target, {}).get(anchor.lower(), anchor)
            return f'href="{prefix}{target}{"#" + anchor if anchor else ""}"'
        text = re.sub(r'href="([\w-]+)\.ipynb(#[^"]*)?"', nb_link, text)
        if self.remote: return text
        def delink(m):
            self.delinked.setdefault(page, []).append(m.group(2))
            return f'<span class="rr-offsite" title="{m.group(2)}">{m.group(3)}</span>'
        return re.sub(r'<a\b([^>]*?)href="(https?://[^"]+)"[^>]*>(.*?)</a>', delink, text, flags=re.S)

    def write_sources(self, pages) -> list[Path]:
        "A highlighted, line-anchored copy of every module a page links to (`src/robust_ref/x.py.html#L-12`)."
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import PythonLexer
        written = []
        for path in sorted(self.sources):
            src = ROOT / path
            if not src.exists(): continue
            out = self.out / "src" / (path + ".html")
            out.parent.mkdir(parents=True, exist_ok=True)
            code = highlight(src.read_text(encoding="utf-8"), PythonLexer(),
                             HtmlFormatter(linenos="inline", lineanchors="L", anchorlinenos=True, cssclass="rr-src"))
            prefix = "../" * (len(Path(path).parts))
            main = f'<p class="rr-desc">Generated from the notebooks by nbdev; edit the notebook, not this file.</p>{code}'
            out.write_text(page_shell(path, "", main, "src/" + path + ".html", pages, "", prefix=prefix), encoding="utf-8")
            written.append(out)
        return written


def write_references(out_dir: Path, book: "Book", pages, bib_path: Path) -> Path:
    "The bibliography page: every entry of references.bib, cited ones marked with where they are cited."
    items = "".join(format_reference(k, e) for k, e in sorted(book.bib.items(), key=lambda kv: cite_label(kv[1]).lower()))
    main = f'<div class="jp-RenderedHTMLCommon"><ol class="rr-refs">{items}</ol></div>'
    out = out_dir / "references.html"
    out.write_text(page_shell("References", f"The works the chapters cite ({bib_path.name})", main, out.name, pages, ""),
                   encoding="utf-8")
    return out


def build_search_index(out_dir: Path) -> bool:
    "Pagefind's offline full-text index and UI into `out_dir/pagefind` (False if the pagefind wheel is absent)."
    import subprocess
    try:
        import pagefind_bin  # noqa: F401  (the `pagefind[bin]` extra: the binary wheel)
    except ImportError:
        return False
    r = subprocess.run([sys.executable, "-m", "pagefind", "--site", str(out_dir), "--silent"], capture_output=True, text=True)
    if r.returncode: raise RuntimeError(f"pagefind failed:\n{r.stdout}\n{r.stderr}")
    return True


def build_site(run_dir: Path = RUN, out_dir: Path = DOCS, remote: str | None = None, search: bool = True) -> list[Path]:
    """Build `out_dir`: one HTML page per executed notebook in `run_dir` (index first), the bibliography,
    highlighted sources and the search index. Returns the chapter pages written."""
    import shutil
    order = in_reading_order([nb.name for nb in notebooks()])
    execs = [run_dir / nb for nb, _ in order if (run_dir / nb).exists()]
    section = dict(order)
    if not execs: raise SystemExit(f"no executed notebooks in {run_dir}: run `python tools/book run` first")
    out_dir.mkdir(parents=True, exist_ok=True)
    source_of = {page_name(p): p.name for p in execs}
    for stale in ("pagefind", "src", FIGURES, NOTEBOOKS): shutil.rmtree(out_dir / stale, ignore_errors=True)
    try:
        import pagefind_bin  # noqa: F401
        shell.SEARCH = search
    except ImportError:
        shell.SEARCH = False
    shell.copy_mathjax(out_dir)
    (out_dir / "_static").mkdir(exist_ok=True)
    (out_dir / "_static" / "notebook.css").write_text(notebook_css(), encoding="utf-8")
    from pygments.formatters import HtmlFormatter
    (out_dir / "_static" / "site.css").write_text(shell.site_css() + HtmlFormatter().get_style_defs(".rr-src"), encoding="utf-8")
    bib_path = paths.NBS / "references.bib"
    book = Book(parse_bib(bib_path.read_text(encoding="utf-8")) if bib_path.exists() else {})
    processed = [(page_name(p), *r) for p, r in zip(execs, map(process_for_docs, execs))]
    pages = [(name, fm.get("title", name), section[p.name]) for p, (name, _, fm) in zip(execs, processed)]
    pages.append(("references.html", "References", "Back matter"))
    pages += [(n, t, "Back matter") for n, t in BACK_MATTER]
    for name, nb_dict, fm in processed:
        book.index_page(name, fm.get("title", name), [c.source for c in nb_dict.cells if c.cell_type == "markdown"])
    links = Links(out_dir, remote)
    for name, nb_dict, fm in processed:
        for c in nb_dict.cells:
            if c.cell_type == "markdown": c.source = book.markdown(c.source, name)
            for o in c.get("outputs", []):  # show_doc's docstrings cite; `output: asis` cells print callouts
                md = o.get("data", {}).get("text/markdown")
                if md: o["data"]["text/markdown"] = book.markdown(md if isinstance(md, str) else "".join(md), name)
        figures(nb_dict.cells, lambda cap, page=name: _inline_html(book.inline(cap, page)))
    bodies = []
    for (name, _, fm), body in zip(processed, map(render_body, [d for _, d, _ in processed])):
        links.learn_ids(name, body)
        bodies.append((name, fm, body))
    written = []
    for name, fm, body in bodies:
        body = links.fix(name, image_files(body, out_dir, Path(name).stem))
        nb = source_of[name]
        if (paths.NBS / nb).exists():  # the notebook as a reader runs it (no outputs), for download
            (out_dir / NOTEBOOKS).mkdir(exist_ok=True)
            shutil.copy2(paths.NBS / nb, out_dir / NOTEBOOKS / nb)
        page = page_shell(fm.get("title", name), fm.get("description", ""), body, name, pages, _toc(body),
                          notebook=f"{NOTEBOOKS}/{nb}" if (paths.NBS / nb).exists() else None)
        (out_dir / name).write_text(page, encoding="utf-8")
        written.append(out_dir / name)
    write_references(out_dir, book, pages, bib_path)
    write_back_matter(out_dir, run_dir, [p.name for p in execs], {n: fm.get("title", n) for n, _, fm in processed}, pages)
    links.write_sources(pages)
    (out_dir / ".nojekyll").touch()
    for page, what in sorted(book.missing.items()):
        print(f"  WARNING {page}: unresolved {', '.join(sorted(what))}", file=sys.stderr)
    for page, urls in sorted(links.delinked.items()):
        print(f"  note {page}: {len(urls)} off-site link(s) shown as text: {', '.join(sorted(set(urls))[:3])}", file=sys.stderr)
    if shell.SEARCH: build_search_index(out_dir)
    build_site.book, build_site.links = book, links  # for the tests
    return written
