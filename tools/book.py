"""Run the book and build its documentation site.

    python tools/book.py run  [--full] [NOTEBOOK ...]   # papermill every notebook into _run/
    python tools/book.py site [--offline]               # _run/*.ipynb -> _docs/
    python tools/book.py all  [--full]                  # both (what `make book` runs)

The site is rendered from the *executed* copies in _run/. Where a `quarto` binary is on PATH, the Quarto site:
the executed notebooks are processed by nbdev (`proc_nbs`, as `nbdev_docs` does) and `quarto render`ed with
nbs/_quarto.yml; README.md is never regenerated. Otherwise (Quarto cannot be installed on this project's
machines) the offline site: nbdev's processors, nbconvert's HTML, and this file's renderer of the Quarto subset
the book is written in (theorem blocks, proofs, callouts, cross-references, citations), with MathJax, a
Pagefind search index and highlighted sources served from the site itself.
"""
from __future__ import annotations

import argparse
import functools
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
# The offline site renders the Quarto subset the chapters are written in (theorem blocks, proofs, callouts,
# cross-references, citations), serves MathJax and its search index from the site itself, and shares one
# stylesheet. Every page's HTML is nbconvert's (lab template) body inside our own page shell.

THEOREM_KINDS = {"thm": "Theorem", "lem": "Lemma", "cor": "Corollary", "prp": "Proposition", "def": "Definition",
                 "cnj": "Conjecture", "exm": "Example", "exr": "Exercise"}
CALLOUT_TITLES = {"note": "Note", "warning": "Warning", "tip": "Tip", "important": "Important", "caution": "Caution"}
TOC_FILE = "sidebar.yml"  # nbs/sidebar.yml: the table of contents, as data both renderers read
_OPEN = re.compile(r"^(:{3,})\s*\{([^{}]*)\}\s*$")
_OPEN_BARE = re.compile(r"^(:{3,})\s*([A-Za-z][\w-]*)\s*$")  # `::: callout-note`
_CLOSE = re.compile(r"^(:{3,})\s*$")
_XREF = re.compile(r"(?<![\w@/.\[-])@((?:%s)-[\w-]*\w)" % "|".join(THEOREM_KINDS))
_CITE = re.compile(r"\[(-?@[^\[\]]+)\]")
_MASK = re.compile(r"(```.*?```|~~~.*?~~~|`[^`\n]+`|\$\$.*?\$\$|(?<![\\$])\$[^$\n]+?\$|<[^>\n]+>)", re.S)


def _attrs(spec: str) -> tuple[str | None, list[str], dict]:
    "Pandoc attribute block `#id .class key=\"v\"` -> (id, classes, key/values)."
    ident = (m.group(1) if (m := re.search(r"#([\w:.-]+)", spec)) else None)
    classes = re.findall(r"(?:^|\s)\.([\w-]+)", spec)
    kv = {k: v1 or v2 for k, v1, v2 in re.findall(r'([\w-]+)=(?:"([^"]*)"|(\S+))', spec)}
    return ident, classes, kv


# BibTeX's accent commands -> Unicode combining marks (`Dem{\\v{s}}ar` is Demšar, not "Dem\\vsar" on the page)
_TEX_ACCENTS = {"'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303", "=": "\u0304",
                ".": "\u0307", "u": "\u0306", "v": "\u030c", "H": "\u030b", "c": "\u0327", "k": "\u0328", "r": "\u030a"}
_TEX_LETTERS = {"i": "ı", "j": "ȷ", "o": "ø", "O": "Ø", "l": "ł", "L": "Ł", "ss": "ß", "ae": "æ", "AE": "Æ", "oe": "œ",
                "OE": "Œ", "aa": "å", "AA": "Å"}


def tex_to_unicode(s: str) -> str:
    "BibTeX field text -> Unicode: accent commands, special letters and escaped characters (`\\&`)."
    import unicodedata
    s = re.sub(r"\\(%s)(?![A-Za-z])\s*" % "|".join(sorted(_TEX_LETTERS, key=len, reverse=True)),
               lambda m: _TEX_LETTERS[m.group(1)], s)
    def accent(m):
        letter = m.group(2) or m.group(3)
        return unicodedata.normalize("NFC", {"ı": "i", "ȷ": "j"}.get(letter, letter) + _TEX_ACCENTS[m.group(1)])
    s = re.sub(r"\\([`'^\"~=.]|[uvHckr](?=[\s{]))\s*(?:\{\s*([A-Za-zıȷ])\s*\}|([A-Za-zıȷ]))", accent, s)
    return re.sub(r"\\([&%$#_{}])", r"\1", s)


def parse_bib(text: str) -> dict[str, dict]:
    "A small BibTeX reader for references.bib: {key: {'type', field: value}}; braces kept balanced, then dropped."
    entries = {}
    for m in re.finditer(r"@(\w+)\s*\{\s*([^,\s]+)\s*,", text):
        i, depth, j = m.end(), 1, m.end()
        while depth and j < len(text):
            depth += {"{": 1, "}": -1}.get(text[j], 0); j += 1
        body, fields, k = text[i:j - 1], {"type": m.group(1).lower()}, 0
        for f in re.finditer(r"(\w+)\s*=\s*", body):
            if f.start() < k: continue
            s, depth, k = f.end(), 0, f.end()
            while k < len(body) and (depth or body[k] != ","):
                depth += {"{": 1, "}": -1}.get(body[k], 0); k += 1
            value = tex_to_unicode(body[s:k].strip().strip('{}"'))
            fields[f.group(1).lower()] = re.sub(r"\s+", " ", value.replace("{", "").replace("}", ""))
        entries[m.group(2)] = fields
    return entries


def _surnames(authors: str) -> list[str]:
    return [(a.split(",")[0] if "," in a else a.split()[-1]).strip() for a in authors.split(" and ")]


def cite_label(e: dict) -> str:
    "Author-year label: `Breiman 2001`, `Mazuelas & Álvarez 2025`, `Sypherd et al. 2023`."
    s = _surnames(e.get("author", "Anonymous"))
    who = s[0] if len(s) == 1 else f"{s[0]} & {s[1]}" if len(s) == 2 else f"{s[0]} et al."
    return f"{who} {e.get('year', 'n.d.')}"


def format_reference(key: str, e: dict) -> str:
    "One bibliography entry as HTML (no off-site link: identifiers are printed, not linked)."
    names = []
    for a in e.get("author", "").split(" and "):
        last, first = (a.split(",", 1) + [""])[:2] if "," in a else (a.split()[-1], " ".join(a.split()[:-1]))
        names.append(f"{first.strip()} {last.strip()}".strip())
    who = ", ".join(names[:-1]) + (" and " if len(names) > 1 else "") + names[-1]
    venue = e.get("journal") or e.get("booktitle") or e.get("publisher") or e.get("howpublished") or ""
    vol = f", {e['volume']}" + (f"({e['number']})" if e.get("number") else "") if e.get("volume") else ""
    pages = f", pp. {e['pages'].replace('--', '–')}" if e.get("pages") else ""
    ident = (f" doi:{e['doi']}." if e.get("doi") else f" arXiv:{e['eprint']}." if e.get("eprint") else "")
    return (f'<li id="ref-{html.escape(key)}"><span class="rr-ref-key">[{html.escape(cite_label(e))}]</span> '
            f'{html.escape(who)} ({html.escape(e.get("year", "n.d."))}). {html.escape(e.get("title", ""))}. '
            f'<em>{html.escape(venue)}</em>{html.escape(vol + pages)}.{html.escape(ident)}</li>')


def _pipes_in_table_math(text: str) -> str:
    "In a pipe-table row, a `|` inside `$…$` would split the cell: write it as `\\vert` (what it means there)."
    def row(line):
        if not line.lstrip().startswith("|"): return line
        return re.sub(r"(?<![\\$])\$[^$\n]+?\$", lambda m: m.group(0).replace("\\|", "\\Vert ").replace("|", "\\vert "), line)
    return "\n".join(row(l) for l in text.split("\n"))


class Book:
    "What the transforms need across pages: theorem labels, the bibliography, and what went unresolved."
    def __init__(self, bib: dict[str, dict]):
        self.bib, self.labels, self.titles = bib, {}, {}
        self.missing: dict[str, set[str]] = {}
        self.cited: set[str] = set()

    def index_page(self, page: str, title: str, markdown: list[str]):
        "Number the theorem blocks of one page, per kind, in reading order (Quarto's numbering)."
        self.titles[page] = title
        counts: dict[str, int] = {}
        for text in markdown:
            for line in text.splitlines():
                m = _OPEN.match(line.strip())
                if not m: continue
                ident, _, _ = _attrs(m.group(2))
                kind = ident.split("-", 1)[0] if ident else None
                if kind in THEOREM_KINDS:
                    counts[kind] = counts.get(kind, 0) + 1
                    self.labels[ident] = (page, THEOREM_KINDS[kind], counts[kind])

    # ---- inline: citations and cross-references
    def _miss(self, page, what):
        self.missing.setdefault(page, set()).add(what)

    def xref(self, label: str, page: str) -> str:
        if label not in self.labels:
            self._miss(page, "@" + label)
            return f'<span class="rr-missing">?@{html.escape(label)}</span>'
        p, kind, n = self.labels[label]
        where = "" if p == page else f" ({title_html(self.titles.get(p, p))})"
        return f'<a class="rr-xref" href="{"" if p == page else p}#{label}">{kind}&nbsp;{n}{where}</a>'

    def cite(self, inner: str, page: str) -> str:
        parts = []
        for item in inner.split(";"):
            m = re.match(r"\s*-?@([\w:.-]*\w)\s*,?\s*(.*)$", item.strip(), flags=re.S)
            if not m: return f"[{inner}]"  # not a citation after all
            key, loc = m.group(1), m.group(2).strip()
            if key.split("-", 1)[0] in THEOREM_KINDS:
                parts.append(self.xref(key, page) + (f", {loc}" if loc else "")); continue
            if key not in self.bib:
                self._miss(page, "@" + key); parts.append(f'<span class="rr-missing">?@{html.escape(key)}</span>'); continue
            self.cited.add(key)
            parts.append(f'<a class="rr-cite" href="references.html#ref-{key}">{html.escape(cite_label(self.bib[key]))}</a>'
                         + (f", {loc}" if loc else ""))
        return "(" + "; ".join(parts) + ")"

    def inline(self, text: str, page: str) -> str:
        "Citations and cross-references in markdown text; code spans, math and HTML tags are left alone."
        masked: list[str] = []
        def hide(m): masked.append(m.group(0)); return f"\x00{len(masked) - 1}\x00"
        t = _MASK.sub(hide, text)
        t = _CITE.sub(lambda m: self.cite(m.group(1), page) if re.match(r"-?@\w", m.group(1)) else m.group(0), t)
        t = _XREF.sub(lambda m: self.xref(m.group(1), page), t)
        return re.sub(r"\x00(\d+)\x00", lambda m: masked[int(m.group(1))], t)

    # ---- blocks: theorem environments, proofs, callouts
    def blocks(self, text: str, page: str) -> str:
        "Quarto fenced divs -> HTML blocks with markdown inside (blank lines keep the inner markdown rendered)."
        from nbconvert.filters.markdown_mistune import markdown2html_mistune
        def title_html(t): return re.sub(r"^<p>|</p>\s*$", "", markdown2html_mistune(self.inline(t, page)).strip())
        out, stack, lines, i = [], [], text.splitlines(), 0
        while i < len(lines):
            line = lines[i]; s = line.strip()
            m = _OPEN.match(s) or _OPEN_BARE.match(s)
            if m and not (_CLOSE.match(s)):
                spec = m.group(2) if _OPEN.match(s) else "." + m.group(2)
                ident, classes, kv = _attrs(spec)
                # a `## Title` line right after the fence is the block's title (Quarto's convention)
                j = i + 1
                while j < len(lines) and not lines[j].strip(): j += 1
                title = kv.get("title") or kv.get("name")
                if j < len(lines) and re.match(r"^#{1,6}\s", lines[j].strip()):
                    title, i = re.sub(r"^#{1,6}\s+", "", lines[j].strip()), j
                kind = ident.split("-", 1)[0] if ident else None
                if kind in THEOREM_KINDS:
                    p, name, n = self.labels[ident]
                    head = f'<a class="rr-thm-label" href="#{ident}">{name} {n}</a>'
                    if title: head += f' <span class="rr-thm-name">({title_html(title)})</span>'
                    out += [f'<div id="{ident}" class="rr-thm rr-{kind} theorem">', f'<p class="rr-thm-head">{head}</p>', ""]
                    stack.append("</div>")
                elif any(c.startswith("callout-") for c in classes):
                    ctype = next(c for c in classes if c.startswith("callout-"))[8:]
                    label = title_html(title) if title else CALLOUT_TITLES.get(ctype, ctype.title())
                    idattr = f' id="{ident}"' if ident else ""
                    if kv.get("collapse", "").lower() == "true":
                        out += [f'<details{idattr} class="rr-callout callout callout-{ctype}"><summary>{label}</summary>', ""]
                        stack.append("</details>")
                    else:
                        out += [f'<div{idattr} class="rr-callout callout callout-{ctype}"><p class="rr-callout-title">{label}</p>', ""]
                        stack.append("</div>")
                elif "proof" in classes or "remark" in classes or "solution" in classes:
                    word = "Proof" if "proof" in classes else "Remark" if "remark" in classes else "Solution"
                    lead = f"{word} ({title_html(title)})" if title else word
                    out += [f'<div class="rr-{word.lower()} {word.lower()}"><p class="rr-proof-head"><em>{lead}.</em></p>', ""]
                    stack.append('<p class="rr-qed">∎</p></div>' if word == "Proof" else "</div>")
                else:
                    idattr = f' id="{ident}"' if ident else ""
                    out += [f'<div{idattr} class="{" ".join(classes)}">', ""]
                    stack.append("</div>")
            elif _CLOSE.match(s) and stack:
                out += ["", stack.pop(), ""]
            else:
                out.append(line)
            i += 1
        if stack:
            self._miss(page, "an unclosed ::: block"); out += [""] + stack[::-1]
        return "\n".join(out)

    def markdown(self, text: str, page: str) -> str:
        return self.inline(self.blocks(_pipes_in_table_math(text), page), page)


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
        if md:  # a fence's attributes (`::: {.callout-warning}`) stay for the block renderer
            md = md if isinstance(md, str) else "".join(md)
            o["data"]["text/markdown"] = "\n".join(l if l.lstrip().startswith(":::") else _QUARTO_ATTRS.sub("", l)
                                                   for l in md.split("\n"))




# MathJax 2 is served from the site itself (copied from the jupyter-server-mathjax wheel). That wheel ships
# only the STIX-Web fonts, while MathJax's HTML-CSS output asks for its TeX fonts by default: unconfigured,
# every formula that needs a web font fails with "[Math Processing Error]". Select STIX-Web explicitly.
_MATHJAX_URL = "mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full,Safe"
_MATHJAX_CONFIG = r"""MathJax.Hub.Config({
  tex2jax: {inlineMath: [['$','$'], ['\\(','\\)']], displayMath: [['$$','$$'], ['\\[','\\]']],
            processEscapes: true, processEnvironments: true},
  TeX: {extensions: ["AMSmath.js", "AMSsymbols.js"], equationNumbers: {autoNumber: "none"}},
  "HTML-CSS": {availableFonts: ["STIX-Web"], preferredFont: "STIX-Web", webFont: "STIX-Web", imageFont: null},
  SVG: {font: "STIX-Web"}, showMathMenu: false, messageStyle: "none",
  // The preview and the hidden assistive MathML would ask for the TeX fonts the bundle lacks (404s).
  "fast-preview": {disabled: true}, AssistiveMML: {disabled: true}, menuSettings: {assistiveMML: false}
});
// A formula that fails is a bug of the book: say so on the console (the browser test reads it).
MathJax.Hub.Register.MessageHook("Math Processing Error", function (m) { console.error("MathJax: Math Processing Error", m[2] && m[2].message); });
MathJax.Hub.Register.MessageHook("TeX Jax - parse error", function (m) { console.error("MathJax: TeX parse error: " + m[1] + " in " + m[2]); });
MathJax.Hub.Register.MessageHook("file failed to load", function (m) { console.error("MathJax: file failed to load " + m[1]); });
MathJax.Hub.Queue(function () { document.body.setAttribute("data-mathjax", "done"); });"""
# Errors and console.error calls are collected on the page too (the browser test reads them from the DOM).
_ERROR_COLLECTOR = r"""window.rrErrors = [];
(function () { var e = console.error; console.error = function () { window.rrErrors.push([].join.call(arguments, " ")); e.apply(console, arguments); }; })();
window.addEventListener("error", function (ev) { window.rrErrors.push(ev.message || ("failed to load " + (ev.target && (ev.target.src || ev.target.href)))); }, true);
document.addEventListener("DOMContentLoaded", function () { setTimeout(function rrReport() {
  if (window.MathJax && document.body.getAttribute("data-mathjax") !== "done") return setTimeout(rrReport, 100);
  var p = document.createElement("pre"); p.id = "rr-errors"; p.hidden = true; p.textContent = JSON.stringify(window.rrErrors);
  document.body.appendChild(p); }, 0); });"""


def copy_mathjax(out_dir: Path) -> bool:
    "Copy MathJax 2 into `out_dir/mathjax`; False (CDN fallback, math only online) if jupyter-server-mathjax is absent."
    global _MATHJAX_URL
    import shutil
    try:
        import jupyter_server_mathjax
    except ImportError:
        _MATHJAX_URL = "https://cdnjs.cloudflare.com/ajax/libs/mathjax/2.7.7/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full,Safe"
        return False
    src = Path(jupyter_server_mathjax.__file__).parent / "static"
    if not (out_dir / "mathjax" / "MathJax.js").exists():
        shutil.copytree(src, out_dir / "mathjax", dirs_exist_ok=True)
    return True


def _settings() -> dict:
    import configparser
    cp = configparser.ConfigParser(); cp.read(ROOT / "settings.ini")
    return dict(cp["DEFAULT"])


def toc(nbs: Path | None = None) -> list[tuple[str, list[str]]]:
    """The table of contents from nbs/sidebar.yml (Quarto's `website: sidebar: contents:`): [(section, [notebook
    file names])] in reading order; a top-level entry (the home page) has the section "". The sidebar and the
    previous/next links of both renderers follow it."""
    import yaml
    data = yaml.safe_load(((nbs or NBS) / TOC_FILE).read_text(encoding="utf-8")) or {}
    out: list[tuple[str, list[str]]] = []
    for item in data.get("website", {}).get("sidebar", {}).get("contents", []):
        if isinstance(item, str): out.append(("", [item]))
        elif isinstance(item, dict) and "section" in item:
            out.append((item["section"], [c if isinstance(c, str) else c.get("href", "") for c in item.get("contents", [])]))
    return out


def in_reading_order(names: list[str]) -> list[tuple[str, str]]:
    "(notebook file name, section) in the table of contents' order; notebooks it does not list come last, under 'More'."
    listed = [(nb, sec) for sec, nbs in (toc() if (NBS / TOC_FILE).exists() else []) for nb in nbs if nb in names]
    seen = {nb for nb, _ in listed}
    return listed + [(n, "More") for n in names if n not in seen]


def title_html(title: str) -> str:
    "A page title as HTML: Markdown code spans (`robust-ref`) in code font, never shown as raw backticks."
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(title))


def title_text(title: str) -> str:
    "A page title as plain text (for <title>): Markdown code spans lose their backticks."
    return re.sub(r"`([^`]+)`", r"\1", title)


def _sidebar(current: str, pages: list[tuple[str, str, str]]) -> str:
    "Grouped navigation in the table of contents' order; `pages` = (html name, title, section) in reading order."
    parts, groups = [], []
    for _, _, g in pages:
        if g not in groups: groups.append(g)
    for g in groups:
        items = [(p, t) for p, t, gg in pages if gg == g]
        if not items: continue
        cur = ' class="current" aria-current="page"'
        links = "".join(f'<a href="{p}"{cur if p == current else ""}>{title_html(t)}</a>' for p, t in items)
        head = f'<p class="rr-group-title">{g}</p>' if g else ""
        parts.append(f'<div class="rr-group">{head}{links}</div>')
    return "".join(parts)


def _toc(body: str) -> str:
    "Per-page contents from the h2/h3 headings nbconvert gave ids to."
    items = []
    for lvl, ident, inner in re.findall(r'<h([23])[^>]*\bid="([^"]+)"[^>]*>(.*?)</h\1>', body, flags=re.S):
        text = re.sub(r"<a class=\"anchor-link\".*?</a>", "", inner, flags=re.S)
        text = re.sub(r"<[^>]+>", "", text).strip()
        if text: items.append(f'<a class="rr-toc-{lvl}" href="#{ident}">{text}</a>')  # both already HTML-escaped
    return f'<nav class="rr-toc" aria-label="On this page"><p class="rr-group-title">On this page</p>{"".join(items)}</nav>' if len(items) > 1 else ""


SEARCH = True  # set by build_site: Pagefind's UI is linked only when the index is built


def _search_tags(prefix: str) -> str:
    if not SEARCH: return ""
    # Pagefind `import()`s its bundle from bundlePath, which a browser resolves against pagefind-ui.js's own address, not
    # the page's: "pagefind/" was a bare module specifier (the box said "Searching…" forever) and "./pagefind/" would be
    # pagefind/pagefind/. An absolute URL made from the page's address means the same bundle on every page.
    return (f'<script src="{prefix}pagefind/pagefind-ui.js"></script>\n<script>new PagefindUI({{element: "#rr-search", '
            f'bundlePath: new URL("{prefix}pagefind/", location.href).href, showSubResults: true, showImages: false, '
            f'resetStyles: false}});</script>')


def page_shell(title: str, desc: str, main_html: str, name: str, pages, toc: str, prefix: str = "") -> str:
    "The same frame for every page: one shared stylesheet, local MathJax, search, sidebar, contents, pager."
    names = [p for p, _, _ in pages]
    idx = names.index(name) if name in names else -1
    prev = (f'<a class="rr-prev" href="{prefix}{pages[idx-1][0]}">← {title_html(pages[idx-1][1])}</a>'
            if idx > 0 else "<span></span>")
    nxt = (f'<a class="rr-next" href="{prefix}{pages[idx+1][0]}">{title_html(pages[idx+1][1])} →</a>'
           if 0 <= idx < len(pages) - 1 else "<span></span>")
    header = (f'<header class="rr-header"><h1 class="title">{title_html(title)}</h1>'
              + (f'<p class="rr-desc">{html.escape(desc)}</p>' if desc else "") + "</header>")
    side = _sidebar(name, [(prefix + p, t, g) for p, t, g in pages]).replace(f'href="{prefix}{name}"', f'href="{prefix}{name}"')
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>{html.escape(title_text(title))} – robust_ref</title>
<script>{_ERROR_COLLECTOR}</script>
<link rel="stylesheet" href="{prefix}_static/notebook.css">
<link rel="stylesheet" href="{prefix}_static/site.css">
{f'<link rel="stylesheet" href="{prefix}pagefind/pagefind-ui.css">' if SEARCH else ""}
<script type="text/x-mathjax-config">{_MATHJAX_CONFIG}</script>
<script src="{prefix if not _MATHJAX_URL.startswith('http') else ''}{_MATHJAX_URL}"></script>
</head>
<body class="jp-Notebook" data-jp-theme-light="true" data-jp-theme-name="JupyterLab Light">
<div class="rr-layout">
<nav class="rr-nav" aria-label="Chapters"><details class="rr-nav-box" open><summary class="rr-brand"><a href="{prefix}index.html">robust_ref</a></summary>
<div id="rr-search"></div>{side}</details></nav>
<main class="rr-main" data-pagefind-body>{header}{main_html}
<div class="rr-pager" data-pagefind-ignore>{prev}{nxt}</div></main>
{toc}
</div>
{_search_tags(prefix)}
<script>if (matchMedia("(max-width: 800px)").matches) document.querySelector(".rr-nav-box").open = false;</script>
</body></html>
"""


@functools.lru_cache(maxsize=1)
def _exporter():
    "One HTML exporter per process (building one compiles the lab template's Jinja code again, ~0.5 s a page)."
    from nbconvert import HTMLExporter
    from traitlets.config import Config
    c = Config()
    c.TagRemovePreprocessor.enabled = True
    c.TagRemovePreprocessor.remove_cell_tags = {"remove_cell"}
    c.TagRemovePreprocessor.remove_input_tags = {"remove_input"}
    c.TagRemovePreprocessor.remove_all_outputs_tags = {"remove_output"}
    return HTMLExporter(config=c, template_name="lab", exclude_input_prompt=True, exclude_output_prompt=True)


def notebook_css() -> str:
    "The lab template's stylesheets, written once to _static/notebook.css instead of inlined in every page."
    import nbformat
    body, _ = _exporter().from_notebook_node(nbformat.v4.new_notebook())
    return "\n".join(re.findall(r"<style[^>]*>(.*?)</style>", body, flags=re.S))


def render_body(nb_dict) -> str:
    "nbconvert's HTML of the notebook's cells only (the page frame is ours)."
    body, _ = _exporter().from_notebook_node(nb_dict)
    m = re.search(r"<main>(.*)</main>", body, flags=re.S)
    return m.group(1) if m else body


class Links:
    """Make every link resolve inside the site: nbdev's doc links (doc host) -> the local page, with the anchor
    spelled as on the page; source links (code host) -> the local highlighted module (or a configured remote);
    anything else off-site -> plain text (its address kept in a tooltip)."""
    def __init__(self, out_dir: Path, remote: str | None = None):
        s = _settings()
        self.doc = (s.get("doc_host", "").rstrip("/") + "/" + s.get("doc_baseurl", "").strip("/")).rstrip("/") + "/"
        self.git = s.get("git_url", "").rstrip("/") + "/"
        self.remote, self.out, self.ids = remote, out_dir, {}
        self.sources: set[str] = set()
        self.delinked: dict[str, list[str]] = {}

    def learn_ids(self, page: str, body: str):
        self.ids[page] = {i.lower(): i for i in re.findall(r'\bid="([^"]+)"', body)}

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


_SITE_CSS = """
:root { --rr-accent: #1f5fa8; --rr-side: 16rem; --rr-toc: 14rem; }
html { scroll-padding-top: 1rem; }
body { margin: 0; font: 16px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d2125; }
.rr-layout { display: grid; grid-template-columns: var(--rr-side) minmax(0, 1fr) var(--rr-toc); align-items: start; }
.rr-nav { position: sticky; top: 0; height: 100vh; overflow-y: auto; padding: 1rem; box-sizing: border-box;
          background: #f6f8fa; border-right: 1px solid #ddd; font-size: 14px; line-height: 1.35; }
.rr-nav summary { list-style: none; cursor: default; } .rr-nav summary::-webkit-details-marker { display: none; }
.rr-brand a { font-size: 1.25rem; font-weight: 700; color: #24292f; text-decoration: none; }
.rr-nav a { display: block; padding: .22rem .45rem; color: #24292f; text-decoration: none; border-radius: 4px; }
.rr-nav a:hover { background: #e8eef6; } .rr-nav a.current { background: #dbe9ff; font-weight: 600; }
.rr-group { margin-top: .8rem; }
.rr-group-title { margin: .2rem 0 .2rem .45rem; font-size: .75rem; font-weight: 700; letter-spacing: .06em; text-transform: uppercase; color: #57606a; }
#rr-search { margin: .7rem 0; --pagefind-ui-scale: .7; --pagefind-ui-primary: var(--rr-accent); }
.rr-main { min-width: 0; padding: 0 2rem 3rem; max-width: 60rem; box-sizing: border-box; }
.rr-header h1 { margin: 1.2rem 0 .2rem; font-size: 2rem; }
.rr-desc { font-style: italic; color: #57606a; font-size: 1.1rem; margin-top: .2rem; }
.rr-toc { position: sticky; top: 0; max-height: 100vh; overflow-y: auto; padding: 1rem .8rem; box-sizing: border-box; font-size: 13px; }
.rr-toc a { display: block; padding: .15rem .3rem; color: #444; text-decoration: none; border-left: 2px solid #e5e5e5; }
.rr-toc a:hover { color: var(--rr-accent); border-left-color: var(--rr-accent); } .rr-toc a.rr-toc-3 { padding-left: 1rem; }
.rr-pager { display: flex; justify-content: space-between; gap: 1rem; margin: 2.5rem 0; font-size: 14px; }
/* nbconvert's first heading repeats the page title; the frame shows it once */
.rr-main .jp-Cell:first-of-type h1:first-child, .rr-main .jp-Cell:first-of-type h1 + blockquote { display: none; }
.jp-RenderedHTMLCommon { padding-right: 0; font-size: 16px; }
.jp-OutputArea-output, .jp-RenderedHTMLCommon table { max-width: 100%; overflow-x: auto; }
.jp-RenderedHTMLCommon table { display: block; }
.jp-OutputArea-output pre { white-space: pre; overflow-x: auto; }
.jp-RenderedImage img { max-width: 100%; height: auto; }
.MathJax_Display { overflow-x: auto; overflow-y: hidden; max-width: 100%; }  /* a wide formula scrolls, never clips */
/* theorem environments, proofs, callouts (Quarto's subset) */
.rr-thm { margin: 1.1rem 0; padding: .6rem 1rem .2rem; border: 1px solid #c9d6e8; border-left: 4px solid var(--rr-accent);
          border-radius: 4px; background: #f5f8fc; }
.rr-def { border-left-color: #2f8a4a; background: #f4faf5; border-color: #cfe3d3; }
.rr-lem, .rr-cor, .rr-prp { border-left-color: #6a4fb3; background: #f8f6fc; border-color: #ddd4ef; }
.rr-thm-head { margin: .1rem 0 .4rem; } .rr-thm-label { font-weight: 700; color: #1d2125; text-decoration: none; }
.rr-thm-name { font-weight: 600; }
.rr-proof { margin: .6rem 0 1rem; padding-left: 1rem; border-left: 2px solid #ddd; }
.rr-proof-head { margin-bottom: .2rem; } .rr-qed { text-align: right; margin: 0; }
.rr-callout { margin: 1rem 0; padding: .5rem 1rem; border: 1px solid #ddd; border-left: 4px solid #6c757d; border-radius: 4px; background: #fafbfc; }
.rr-callout > summary, .rr-callout-title { font-weight: 700; margin: .2rem 0 .4rem; cursor: pointer; }
.callout-note { border-left-color: #0d6efd; } .callout-warning { border-left-color: #d9822b; background: #fffaf3; }
.callout-important { border-left-color: #dc3545; } .callout-tip { border-left-color: #198754; } .callout-caution { border-left-color: #fd7e14; }
.rr-missing { color: #b00; font-weight: 700; }
.rr-offsite { border-bottom: 1px dotted #999; }
.rr-refs li { margin: .5rem 0; } .rr-ref-key { font-weight: 600; }
.rr-src { font-size: 13px; overflow-x: auto; } .rr-src .linenos { color: #999; padding-right: .8rem; user-select: none; }
.rr-src :target, .rr-src a[id]:target + span { background: #fff3b0; }
/* narrow screens: the sidebar becomes a collapsible bar above the page, the contents panel is dropped */
@media (max-width: 1100px) { .rr-layout { grid-template-columns: var(--rr-side) minmax(0, 1fr); } .rr-toc { display: none; } }
@media (max-width: 800px) {
  .rr-layout { display: block; }
  .rr-nav { position: static; height: auto; border-right: 0; border-bottom: 1px solid #ddd; padding: .5rem 1rem; }
  .rr-nav summary { cursor: pointer; } .rr-nav summary::after { content: " ☰"; }
  .rr-main { padding: 0 1rem 2rem; }
}
"""


def _book_pages(execs: list[Path]) -> list:
    "(page name, title, group) in reading order, plus the bibliography page last."
    return []


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
    global SEARCH
    import shutil
    order = in_reading_order([nb.name for nb in notebooks()])
    execs = [run_dir / nb for nb, _ in order if (run_dir / nb).exists()]
    section = dict(order)
    if not execs: raise SystemExit(f"no executed notebooks in {run_dir}: run `python tools/book.py run` first")
    out_dir.mkdir(parents=True, exist_ok=True)
    for stale in ("pagefind", "src"): shutil.rmtree(out_dir / stale, ignore_errors=True)
    try:
        import pagefind_bin  # noqa: F401
        SEARCH = search
    except ImportError:
        SEARCH = False
    copy_mathjax(out_dir)
    (out_dir / "_static").mkdir(exist_ok=True)
    (out_dir / "_static" / "notebook.css").write_text(notebook_css(), encoding="utf-8")
    from pygments.formatters import HtmlFormatter
    (out_dir / "_static" / "site.css").write_text(_SITE_CSS + HtmlFormatter().get_style_defs(".rr-src"), encoding="utf-8")
    bib_path = NBS / "references.bib"
    book = Book(parse_bib(bib_path.read_text(encoding="utf-8")) if bib_path.exists() else {})
    processed = [(page_name(p), *r) for p, r in zip(execs, map(process_for_docs, execs))]
    pages = [(name, fm.get("title", name), section[p.name]) for p, (name, _, fm) in zip(execs, processed)]
    pages.append(("references.html", "References", "Back matter"))
    for name, nb_dict, fm in processed:
        book.index_page(name, fm.get("title", name), [c.source for c in nb_dict.cells if c.cell_type == "markdown"])
    links = Links(out_dir, remote)
    for name, nb_dict, fm in processed:
        for c in nb_dict.cells:
            if c.cell_type == "markdown": c.source = book.markdown(c.source, name)
            for o in c.get("outputs", []):  # show_doc's docstrings cite; `output: asis` cells print callouts
                md = o.get("data", {}).get("text/markdown")
                if md: o["data"]["text/markdown"] = book.markdown(md if isinstance(md, str) else "".join(md), name)
    bodies = []
    for (name, _, fm), body in zip(processed, map(render_body, [d for _, d, _ in processed])):
        links.learn_ids(name, body)
        bodies.append((name, fm, body))
    written = []
    for name, fm, body in bodies:
        body = links.fix(name, body)
        page = page_shell(fm.get("title", name), fm.get("description", ""), body, name, pages, _toc(body))
        (out_dir / name).write_text(page, encoding="utf-8")
        written.append(out_dir / name)
    write_references(out_dir, book, pages, bib_path)
    links.write_sources(pages)
    (out_dir / ".nojekyll").touch()
    for page, what in sorted(book.missing.items()):
        print(f"  WARNING {page}: unresolved {', '.join(sorted(what))}", file=sys.stderr)
    for page, urls in sorted(links.delinked.items()):
        print(f"  note {page}: {len(urls)} off-site link(s) shown as text: {', '.join(sorted(set(urls))[:3])}", file=sys.stderr)
    if SEARCH: build_search_index(out_dir)
    build_site.book, build_site.links = book, links  # for the tests
    return written


# ----------------------------------------------------------------------------------------- Quarto
def build_quarto(run_dir: Path = RUN, out_dir: Path = DOCS, nbs: list[Path] | None = None) -> Path:
    """Render the Quarto site from the *executed* notebooks: stage them with nbs/'s Quarto files, apply nbdev's
    processors (`nbdev.serve.proc_nbs`, as `nbdev_docs` does) and run `quarto render`. README.md is not touched
    (no `nbdev_readme`)."""
    import shutil
    import subprocess
    stage = run_dir / "quarto_src"  # inside _run/ (ignored by git), next to the executed copies
    shutil.rmtree(stage, ignore_errors=True); stage.mkdir()
    for f in NBS.iterdir():
        if f.is_file() and f.suffix in {".yml", ".css", ".bib", ".scss"}: shutil.copy2(f, stage / f.name)
    for nb in nbs or notebooks():
        src = run_dir / nb.name
        if not src.exists(): raise SystemExit(f"{nb.name} has not been executed into {run_dir}")
        shutil.copy2(src, stage / nb.name)
    from nbdev.serve import proc_nbs
    cwd = os.getcwd(); os.chdir(ROOT)
    try: cache = proc_nbs(str(stage), force=True, n_workers=0)
    finally: os.chdir(cwd)
    shutil.copy2(NBS / TOC_FILE, cache / TOC_FILE)  # the table of contents as written (nbdev must not regenerate it)
    subprocess.run(["quarto", "render", str(cache), "--no-cache"], check=True)
    shutil.rmtree(out_dir, ignore_errors=True)
    shutil.move(str(cache / "_docs"), str(out_dir))
    return out_dir


def main(argv=None):
    import shutil
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["run", "site", "all"])
    ap.add_argument("notebooks", nargs="*", help="notebook names (default: all)")
    ap.add_argument("--full", action="store_true", help="pass full=True to notebooks that declare it (paper-size runs)")
    ap.add_argument("--offline", action="store_true", help="build the offline site even where a quarto binary exists")
    ap.add_argument("--remote", default=os.environ.get("ROBUST_REF_REMOTE"),
                    help="link sources to this repository URL instead of local copies (default: $ROBUST_REF_REMOTE)")
    a = ap.parse_args(argv)
    t0, failed = time.time(), []
    if a.what in ("run", "all"):
        failed = [r for r in run_all(a.notebooks or None, full=a.full) if r[2] != "ok"]
    if a.what in ("site", "all"):
        if shutil.which("quarto") and not a.offline:
            print("quarto found on PATH: rendering the Quarto site from the executed notebooks ...", flush=True)
            build_quarto()
            print(f"Quarto site built into {DOCS}/ in {time.time() - t0:.0f} s (total).")
        else:
            print("No quarto binary on PATH: building the offline site (pip install quarto-cli, with internet, "
                  "gives the Quarto one) ...", flush=True)
            pages = build_site(remote=a.remote)
            n_html = sum(1 for _ in DOCS.rglob("*.html"))
            size = sum(f.stat().st_size for f in DOCS.rglob("*") if f.is_file())
            print(f"Built the offline site: {len(pages)} chapter pages ({n_html} HTML files with references and "
                  f"sources, {size / 1e6:.1f} MB) into {DOCS}/ in {time.time() - t0:.0f} s (total).")
        print(f"Serve it (search needs http):\n"
              f"  python -m http.server -d {DOCS} 8000 --bind 127.0.0.1   # then visit http://127.0.0.1:8000/")
    if failed:
        print("Notebooks that failed:", ", ".join(r[0] for r in failed), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
