"""The offline documentation site: one page per notebook, navigation, no error output, figures embedded."""
import re

import nbformat
import pytest

import book
from test_book import site_once


@pytest.fixture(scope="module")
def site():
    "The offline site, built once per test run (shared with tests/test_book.py)."
    out = site_once()
    back = {"references.html", *(name for name, _ in book.BACK_MATTER)}
    return out, [p for p in out.glob("*.html") if p.name not in back]


def test_every_notebook_has_a_page(site):
    out, pages = site
    expected = {book.page_name(nb) for nb in book.notebooks()}
    assert expected == {p.name for p in pages}
    assert (out / "index.html").exists() and (out / "references.html").exists()


def test_reader_features(site):
    """Every chapter page links its notebook for download (the file is on the site); the back matter is there: how to
    cite (with CITATION.cff), the execution status of every notebook from the run that built the site, licence, changelog."""
    import json
    import yaml
    out, pages = site
    for p in pages:
        m = re.search(r'<a class="rr-download" href="(notebooks/[^"]+\.ipynb)" download>', p.read_text(encoding="utf-8"))
        assert m and (out / m.group(1)).is_file(), f"{p.name}: no download link to its notebook"
        nbformat.read(out / m.group(1), as_version=4)
    for name, title in book.BACK_MATTER:
        assert f"<title>{title} – robust_ref</title>" in (out / name).read_text(encoding="utf-8"), name
    cff = yaml.safe_load((book.ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0" and cff["title"] and cff["authors"] and len(cff["references"]) == 5
    assert (out / "CITATION.cff").is_file() and "@software{robust_ref" in (out / "citing.html").read_text(encoding="utf-8")
    status = (out / "status.html").read_text(encoding="utf-8")
    for nb in book.notebooks():
        rec = json.loads((book.RUN / f".{nb.stem}.nbdev_test.json").read_text())
        row = re.search(rf'<code>{re.escape(nb.name)}</code></td><td>([^<]+)', status)
        assert row and row.group(1) == ("passed" if rec["ok"] else "failed") or (row and not rec["ok"]), nb.name
    assert "Apache License" in (out / "license.html").read_text(encoding="utf-8")
    assert "0.1.0" in (out / "changelog.html").read_text(encoding="utf-8")


def test_one_shared_stylesheet(site):
    "Pages link the site's stylesheets instead of inlining them (the lab template inlines ~260 KB per page)."
    out, pages = site
    assert (out / "_static" / "notebook.css").stat().st_size > 10_000
    for p in pages:
        text = p.read_text(encoding="utf-8")
        styles = "".join(re.findall(r"<style[^>]*>(.*?)</style>", text, flags=re.S))
        # a pandas Styler table carries its own rules (selectors #T_<uuid>...): content, not site CSS
        inline = len(re.sub(r"#T_[\w-]+[^{}]*\{[^{}]*\}", "", styles))
        assert inline < 5_000, f"{p.name}: {inline} bytes of inline CSS besides result tables' own rules"
        assert 'href="_static/site.css"' in text and 'href="_static/notebook.css"' in text, p.name


def test_sidebar_is_grouped(site):
    "The sidebar groups the chapters: Foundations, Machinery, The five papers, Reproductions, Experiments."
    out, _ = site
    nav = re.search(r'<nav class="rr-nav".*?</nav>', (out / "core.html").read_text(encoding="utf-8"), flags=re.S).group(0)
    titles = re.findall(r'<p class="rr-group-title">([^<]+)</p>', nav)
    assert titles[:5] == ["Foundations", "Machinery", "The five papers", "Reproductions", "Experiments"], titles
    groups = dict(re.findall(r'<p class="rr-group-title">([^<]+)</p>(.*?)</div>', nav, flags=re.S))
    assert 'href="rmboost.html"' in groups["The five papers"] and 'href="core.html"' in groups["Foundations"]
    assert 'href="reproduce_rmboost.html"' in groups["Reproductions"] and 'href="lp.html"' in groups["Machinery"]


def test_contents_panel(site):
    "A chapter page has a contents panel linking its own section headings."
    out, _ = site
    text = (out / "losses.html").read_text(encoding="utf-8")
    toc = re.search(r'<nav class="rr-toc".*?</nav>', text, flags=re.S)
    assert toc, "no contents panel on the losses page"
    anchors = re.findall(r'href="#([^"]+)"', toc.group(0))
    assert len(anchors) >= 3 and all(f'id="{a}"' in text for a in anchors)


def test_pages_link_to_each_other(site):
    out, _ = site
    names = [book.page_name(nb) for nb in book.notebooks()]
    for name in names:
        text = (out / name).read_text()
        hrefs = set(re.findall(r'<nav class="rr-nav".*?</nav>', text, flags=re.S)[0].split('href="')[1:])
        linked = {h.split('"')[0] for h in hrefs}
        assert set(names) <= linked, f"{name}: sidebar misses {set(names) - linked}"


def test_no_error_output_in_pages(site):
    out, _ = site
    for nb in book.notebooks():
        text = (out / book.page_name(nb)).read_text()
        assert "Traceback (most recent call last)" not in text, f"{nb.name}: a traceback is rendered"
        assert 'class="ansi-red-fg">---' not in text, f"{nb.name}: an error output is rendered"


def test_api_docs_rendered(site):
    "Exported functions get a show_doc section (nbdev's processor) on their chapter's page."
    out, _ = site
    core = (out / "core.html").read_text()
    for name in ["encode_binary_labels", "check_sample_weight", "as_generator", "log1pexp", "BinaryClassifier"]:
        assert f'id="{name}"' in core, f"no API section for {name}"


def test_figures_are_files(site):
    "Every figure a notebook produced is shown from an image file of the site (not inlined as base64), and the file exists."
    out, _ = site
    n_with_figures = 0
    for nb in book.notebooks():
        executed = nbformat.read(book.RUN / nb.name, as_version=4)
        n_png = sum("image/png" in o.get("data", {}) for c in executed.cells if c.cell_type == "code"
                    for o in c.get("outputs", []))
        text = (out / book.page_name(nb)).read_text()
        srcs = re.findall(r'<img[^>]+src="([^"]+)"', text)
        assert "data:image/" not in text, f"{nb.name}: an image is inlined as base64"
        if n_png:
            n_with_figures += 1
            files = [s for s in srcs if s.startswith("figures/")]
            assert len(files) >= n_png, f"{nb.name}: {n_png} figures, {len(files)} shown from files"
            assert all((out / f).is_file() for f in files), f"{nb.name}: an image file is missing"
        assert not [s for s in srcs if s.startswith(("http:", "https:"))], f"{nb.name}: an off-site image"
    assert n_with_figures >= 1, "the book should contain at least one figure"


def test_math_typesets_offline(site):
    "MathJax is copied into the site and every page loads it from there, not from a CDN."
    out, _ = site
    assert (out / "mathjax" / "MathJax.js").exists()
    for nb in book.notebooks():
        text = (out / book.page_name(nb)).read_text()
        assert 'src="mathjax/MathJax.js' in text, f"{nb.name}: MathJax not served locally"


# Working-note labels: the project's private notes number their definitions, algorithms, checks and quirks
# (D27, A1.7, check D4, Q1–Q7, ...). A reader has no such notes: the book names things in words or by the paper's own
# numbering (§, eq., Theorem). Math, code spans and string literals are masked (a dataset's columns may be named A1).
WORKING_NOTE_LABEL = re.compile(r"(?<![\w.\-/$\\^_{])[ADQ]\d{1,2}(?:\.\d+)?(?![\w(\[{=])")
_MASK_MD = re.compile(r"```.*?```|`[^`\n]*`|\$\$.*?\$\$|(?<![\\$])\$[^$\n]+?\$|<[^>\n]+>|\]\([^)\s]*\)", re.S)


def reader_text(cell) -> str:
    "What a reader reads of a cell: markdown without math, code spans and URLs; of code, its docstrings and comments."
    if cell.cell_type == "markdown": return _MASK_MD.sub(" ", cell.source)
    if cell.cell_type != "code": return ""
    import ast, io, tokenize
    src = "\n".join(l for l in cell.source.splitlines() if not l.lstrip().startswith(("%", "!")))
    parts = []
    try:
        parts += [t.string for t in tokenize.generate_tokens(io.StringIO(src).readline) if t.type == tokenize.COMMENT]
        tree = ast.parse(src)
    except (SyntaxError, tokenize.TokenError):
        return "\n".join(parts)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc: parts.append(_MASK_MD.sub(" ", doc))
    return "\n".join(parts)


def working_note_labels(text: str) -> list[str]:
    return WORKING_NOTE_LABEL.findall(text)


def test_the_label_check_can_fail():
    "The pattern finds each kind of label the notes used, and leaves paper numbering, math and code alone."
    for s in ["noise (D27).", "mean classifier D30 (CCN)", "(A1.1, A1.6, A1.7)", "check D4).", "| Q5 NE λ = 0 |",
              "| A28 bootstrap |", "Algorithm A1", "(A4/A5):"]:
        assert working_note_labels(s), s
    for s in ["Theorem 2", "§3.2, eq. (17)", "C4.5 and CC1", "$D_2$", "a D2D link", "AD12", "Table A1x",
              "`A1`", "[@mazuelas2025rmboost, §A.1]"]:
        assert not working_note_labels(_MASK_MD.sub(" ", s)), s
    cell = nbformat.v4.new_code_cell('X = ("A1", "A4")  # columns\ndef f():\n    "Recursive herding (A6)."\n')
    assert working_note_labels(reader_text(cell)) == ["A6"]


def test_no_working_note_labels_in_the_book():
    "No markdown cell, docstring or comment of a notebook shows a working-note label such as (D27) or check D4."
    bad = {}
    for nb in book.notebooks():
        for i, cell in enumerate(nbformat.read(nb, as_version=4).cells):
            hits = working_note_labels(reader_text(cell))
            if hits: bad[f"{nb.name} cell {i}"] = hits
    assert not bad, f"{len(bad)} cells show working-note labels:\n" + "\n".join(f"  {k}: {v}" for k, v in bad.items())


# Cross-references and citations, checked on the notebooks themselves (no site build): the offline builder's own
# transforms (`book.Book`) number every theorem block of every page and resolve every `@thm-…`/`@def-…` reference and
# `[@key]` citation; what they cannot resolve, a duplicated label, or a `:::` block left open is a defect a reader
# would see as "?@thm-…" or a wrong number.

def unresolved_references(pages: dict[str, list[str]]) -> dict[str, set[str]]:
    "`pages` = {page name: markdown cells} -> {page: unresolved references, duplicated labels, unclosed blocks}."
    b = book.Book(book.parse_bib((book.NBS / "references.bib").read_text(encoding="utf-8")))
    seen: dict[str, str] = {}
    for page, cells in pages.items():
        for text in cells:
            for line in text.splitlines():
                m = book._OPEN.match(line.strip())
                ident = book._attrs(m.group(2))[0] if m else None
                if ident and ident.split("-", 1)[0] in book.THEOREM_KINDS:
                    if ident in seen: b._miss(page, f"duplicate label #{ident} (first on {seen[ident]})")
                    seen.setdefault(ident, page)
        b.index_page(page, page, cells)
    for page, cells in pages.items():
        for text in cells: b.markdown(text, page)
    return b.missing


def test_the_reference_check_can_fail():
    "Planted defects: a reference to no block, an unknown citation key, a duplicated label, an unclosed block."
    ok = {"a.html": ["::: {#thm-x-1}\nT.\n:::\n\nSee @thm-x-1 and @def-y-1 [@sypherd2023alpha, Lemma 1]."],
          "b.html": ["::: {#def-y-1}\nD.\n:::"]}
    assert unresolved_references(ok) == {}
    assert unresolved_references({**ok, "c.html": ["By @lem-nowhere-3."]}) == {"c.html": {"@lem-nowhere-3"}}
    assert unresolved_references({**ok, "c.html": ["As shown [@nobody1999]."]}) == {"c.html": {"@nobody1999"}}
    dup = unresolved_references({**ok, "c.html": ["::: {#thm-x-1}\nAgain.\n:::"]})
    assert dup == {"c.html": {"duplicate label #thm-x-1 (first on a.html)"}}
    assert unresolved_references({**ok, "c.html": ["::: {.callout-note}\nopen"]}) == {"c.html": {"an unclosed ::: block"}}


def test_every_reference_resolves():
    "Every `@thm-/@lem-/@def-…` reference in the notebooks has a target, every `[@key]` is in references.bib."
    pages = {book.page_name(nb): [c.source for c in nbformat.read(nb, as_version=4).cells if c.cell_type == "markdown"]
             for nb in book.notebooks()}
    bad = unresolved_references(pages)
    assert not bad, f"{len(bad)} pages with references a reader cannot follow:\n" + \
        "\n".join(f"  {p}: {sorted(v)}" for p, v in sorted(bad.items()))


def theorem_number_mismatches(cells: list[str]) -> list[str]:
    """Theorem blocks whose `number=` is not the number their title cites (`[@paper, Lemma 5]` -> `number="5"`, of the
    block's own kind), or that cite a number and carry none: the box would contradict the paper and the heading."""
    bad = []
    for text in cells:
        lines = text.splitlines()
        for i, line in enumerate(lines):
            m = book._OPEN.match(line.strip())
            ident, _, kv = book._attrs(m.group(2)) if m else (None, [], {})
            if not ident or ident.split("-", 1)[0] not in book.THEOREM_KINDS: continue
            kind = book.THEOREM_KINDS[ident.split("-", 1)[0]]
            title = book.markup.block_title(lines, i + 1, kv)[0] or ""
            cited = re.findall(rf"\b{kind}\s+(\d+(?:\.\d+)?)", " ".join(book.markup._CITE.findall(title)))
            if cited != ([kv["number"]] if "number" in kv else []):
                bad.append(f"#{ident}: number={kv.get('number')!r}, its title cites {kind} {cited}")
    return bad


def test_theorem_blocks_carry_the_papers_numbers():
    "Every theorem block whose title cites the paper's number carries it as `number=` (what both renderers show)."
    assert theorem_number_mismatches(['::: {#lem-a-5 number="5"}\n## S [@x, Lemma 5]\n:::', "::: {#def-b}\n## B\n:::"]) == []
    assert theorem_number_mismatches(["::: {#lem-a-5}\n## S [@x, Lemma 5]\n:::"])                 # number missing
    assert theorem_number_mismatches(['::: {#thm-a-1 number="2"}\n## S [@x, Theorem 1]\n:::'])    # number differs
    bad = {nb.name: v for nb in book.notebooks()
           if (v := theorem_number_mismatches([c.source for c in nbformat.read(nb, as_version=4).cells if c.cell_type == "markdown"]))}
    assert not bad, f"theorem blocks without the paper's number: {bad}"


# API docs show every public signature (show_doc); a default value built with NumPy prints as `np.float64(0.5)` or
# `array([...])` there (NumPy >= 2 reprs), which a reader cannot read as a number. Defaults must be plain Python values.
RAW_REPR = re.compile(r"\bnp\.\w+\(|\barray\(")


def raw_repr_defaults(module) -> list[str]:
    "`module.name(param=…)` for every default of a public function, class or method of `module` that prints as a NumPy repr."
    import inspect
    bad = []
    for name, obj in vars(module).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__: continue
        members = [(name, obj)]
        if inspect.isclass(obj):
            members = [(f"{name}.{k}", v) for k, v in vars(obj).items()
                       if inspect.isfunction(v) and (not k.startswith("_") or k == "__init__")]
        for qual, f in members:
            if not callable(f): continue
            try: sig = inspect.signature(f)
            except (TypeError, ValueError): continue
            bad += [f"{module.__name__}.{qual}({p.name}={p.default!r:.60})" for p in sig.parameters.values()
                    if p.default is not inspect.Parameter.empty and not isinstance(p.default, str)
                    and RAW_REPR.search(repr(p.default))]
    return bad


def test_the_raw_repr_check_can_fail():
    "A planted NumPy default is found, in a function and in a class's __init__; plain defaults pass."
    import types, numpy as np
    m = types.ModuleType("planted")
    exec("import numpy as np\n"
         "def f(a, zs=tuple(np.linspace(0, 1, 3)), c=0.5): pass\n"
         "class K:\n    def __init__(self, w=np.ones(2), k=3): pass\n"
         "def ok(a=0.5, zs=(0.0, 0.5, 1.0), s='np.x(') : pass\n", m.__dict__)
    assert raw_repr_defaults(m) == ["planted.f(zs=(np.float64(0.0), np.float64(0.5), np.float64(1.0)))",
                                   "planted.K.__init__(w=array([1., 1.]))"]


def test_no_numpy_reprs_in_signatures():
    "No public signature of the library has a default that the API docs would print as `np.float64(…)` or `array(…)`."
    import importlib, pkgutil
    import robust_ref
    bad = []
    for info in pkgutil.walk_packages(robust_ref.__path__, "robust_ref."):
        if info.name.endswith("_modidx"): continue
        bad += raw_repr_defaults(importlib.import_module(info.name))
    assert not bad, f"{len(bad)} defaults print as NumPy reprs in the API docs (use plain floats/tuples):\n  " + "\n  ".join(bad)


# An unpaired `$` in a markdown cell swallows the rest of the paragraph into broken math (a "Math Processing Error"
# box in the browser); a shell-expanded edit once left "half log-odds ^*$ above" in a chapter.
_CODE_MD = re.compile(r"```.*?```|~~~.*?~~~|`[^`\n]*`", re.S)


def unpaired_dollars(markdown: str) -> bool:
    "True when the cell's math delimiters (outside code; `\\$` is a literal dollar) do not pair up."
    return (_CODE_MD.sub(" ", markdown).replace("\\$", "").count("$")) % 2 == 1


def test_the_dollar_check_can_fail():
    assert unpaired_dollars("the half log-odds ^*$ above") and unpaired_dollars("$a$ and $b")
    assert not unpaired_dollars("$a$, $$b$$, `$x` and a literal \\$5")


def test_math_delimiters_pair_up():
    "Every markdown cell of every notebook has its `$`/`$$` math delimiters paired."
    bad = [f"{nb.name} cell {i}" for nb in book.notebooks()
           for i, c in enumerate(nbformat.read(nb, as_version=4).cells)
           if c.cell_type == "markdown" and unpaired_dollars(c.source)]
    assert not bad, f"unpaired $ in {bad}"


# Results are shown as captioned HTML tables (`robust_ref.statistics.styled`), never as text dumps: a
# `print(df.to_string())` renders as an unlabelled block of monospaced numbers a reader cannot scan, sort by eye or
# cite. Exported cells are library code (a CLI may print text to a terminal) and are not checked.
import ast

TEXT_DUMP_METHODS = {"to_string", "to_markdown"}


def text_table_prints(source: str) -> list[int]:
    "Line numbers (1-based) of `print(...)` calls in `source` whose arguments contain a `.to_string(`/`.to_markdown(` call."
    src = "\n".join("" if l.lstrip().startswith(("%", "!")) else l for l in source.splitlines())
    try: tree = ast.parse(src)
    except SyntaxError: return []
    hits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
            if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in TEXT_DUMP_METHODS
                   for a in [*node.args, *(k.value for k in node.keywords)] for n in ast.walk(a)):
                hits.append(node.lineno)
    return sorted(hits)


def text_dumps(nb_path) -> list[str]:
    "`'<notebook> cell <i> line <l>'` for every text-table print in a non-exported code cell of the notebook."
    nb = nbformat.read(nb_path, as_version=4) if not isinstance(nb_path, nbformat.NotebookNode) else nb_path
    return [f"cell {i} line {l}" for i, c in enumerate(nb.cells)
            if c.cell_type == "code" and not re.search(r"^#\|\s*exports?\b", c.source, flags=re.M)
            for l in text_table_prints(c.source)]


# Notebooks not yet converted (owned by other chapters' work), with the number of text dumps they may still hold:
# the count may only go down; delete an entry when its notebook is clean.
TEXT_DUMPS_PENDING = {}


def test_the_text_dump_check_can_fail():
    "Planted dumps are found (nested, in a loop, with `;`); `display(styled(...))`, exported code and prose are not."
    assert text_table_prints('print(t.to_string(float_format="%.3g"))') == [1]
    assert text_table_prints("for c in cs:\n    print(c); print(c.term_table()[['a']].round(2).to_string(index=False))") == [2]
    assert text_table_prints("x = 1\nprint(\n    df.to_markdown())") == [2]
    assert text_table_prints("print(f'{df.to_string()}')") == [1]
    assert text_table_prints("display(styled(t, caption='x'))\nprint(c)\ns = t.to_string()\n%time f()") == []
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("#| export\ndef cli(t):\n    print(t.to_string())"),
                                         nbformat.v4.new_markdown_cell("print(t.to_string())"),
                                         nbformat.v4.new_code_cell("print(t.to_string())")])
    assert text_dumps(nb) == ["cell 2 line 1"]


def test_no_text_table_dumps():
    "No notebook prints a table as text (`print(df.to_string())`); the pending ones only lose dumps."
    found = {nb.name: text_dumps(nb) for nb in book.notebooks()}
    bad = {k: v for k, v in found.items() if len(v) > TEXT_DUMPS_PENDING.get(k, 0)}
    assert not bad, ("tables printed as text (show them with display(styled(df, caption=...)) from "
                     "robust_ref.statistics):\n" + "\n".join(f"  {k}: {v}" for k, v in sorted(bad.items())))


# The same defect seen where the reader sees it, in the executed pages: a stream or plain-text output holding a block
# of ≥ 10 consecutive lines of ≥ 3 columns separated by runs of spaces (how pandas, numpy and hand-aligned f-strings
# lay out a table). Checked on the notebooks converted so far (executed once per test run, shared with test_book.py).
TABLES_AS_HTML = ["03b_tree_builder.ipynb", "06_lp.ipynb", "10_rmboost.ipynb", "30_robust_trees.ipynb",
                  "40_mean_classifier.ipynb", "50_archboost.ipynb", "70_experiments.ipynb", "72_statistics.ipynb",
                  "80_theory.ipynb", "81_reproduce_rmboost.ipynb"]


def text_table_blocks(text: str, min_lines: int = 10, min_columns: int = 3) -> list[str]:
    "The first line of every block of ≥ `min_lines` consecutive lines with ≥ `min_columns` space-separated columns."
    out, run = [], []
    for line in [*text.splitlines(), ""]:
        if len(re.split(r"\s{2,}", line.strip())) >= min_columns: run.append(line)
        else:
            if len(run) >= min_lines: out.append(run[0].strip()[:80])
            run = []
    return out


def text_table_outputs(nb) -> list[str]:
    "`'cell <i>: <first line>'` for every text output (stream, or plain text without HTML) that holds a text table."
    bad = []
    for i, c in enumerate(nb.cells):
        if c.cell_type != "code": continue
        for o in c.get("outputs", []):
            if o.get("output_type") == "stream": text = o.get("text", "")
            elif "text/html" in o.get("data", {}): continue
            else: text = o.get("data", {}).get("text/plain", "")
            bad += [f"cell {i}: {b}" for b in text_table_blocks("".join(text))]
    return bad


def test_the_text_table_output_check_can_fail():
    "A printed DataFrame of 12 rows is found in a stream and in a plain-text result; its HTML twin and prose are not."
    import numpy as np, pandas as pd
    df = pd.DataFrame(np.arange(36.0).reshape(12, 3) / 7, columns=["ok", "failures", "min_slack"])
    assert text_table_blocks(df.to_string()) and not text_table_blocks(df.head(8).to_string())
    assert not text_table_blocks("\n".join(f"line {i}: a sentence of prose, with single spaces" for i in range(20)))
    cells = [nbformat.v4.new_code_cell("x", outputs=[nbformat.v4.new_output("stream", name="stdout", text=df.to_string())]),
             nbformat.v4.new_code_cell("df", outputs=[nbformat.v4.new_output("execute_result", data={
                 "text/plain": df.to_string(), "text/html": df.to_html()})]),
             nbformat.v4.new_code_cell("s", outputs=[nbformat.v4.new_output("execute_result", data={"text/plain": df.to_string()})])]
    found = text_table_outputs(nbformat.v4.new_notebook(cells=cells))
    assert [f.split(":")[0] for f in found] == ["cell 0", "cell 2"]


def uncaptioned_tables(nb) -> list[str]:
    "`'cell <i>'` for every HTML table in the outputs that has no `<caption>` (a reader must be told what it shows)."
    bad = []
    for i, c in enumerate(nb.cells):
        if c.cell_type != "code": continue
        for o in c.get("outputs", []):
            html = o.get("data", {}).get("text/html", "")
            html = "".join(html) if isinstance(html, list) else html
            bad += [f"cell {i}" for t in re.findall(r"<table.*?</table>", html, flags=re.S) if "<caption" not in t]
    return bad


def test_the_caption_check_can_fail():
    "A bare DataFrame's HTML has no caption and is found; the same table through `styled(..., caption=...)` is not."
    import pandas as pd
    from robust_ref.statistics import styled
    df = pd.DataFrame({"a": [1.0, 2.0], "b": [3.0, 4.0]})
    out = lambda html: nbformat.v4.new_code_cell("t", outputs=[nbformat.v4.new_output(
        "display_data", data={"text/html": html, "text/plain": "t"})])
    nb = nbformat.v4.new_notebook(cells=[out(df.to_html()), out(styled(df, caption="what the rows are").to_html()),
                                         out(styled(df).to_html())])
    assert uncaptioned_tables(nb) == ["cell 0", "cell 2"]


@pytest.mark.parametrize("name", TABLES_AS_HTML)
def test_no_text_tables_in_executed_pages(name):
    "The executed notebook shows no table as plain text, and every HTML table has a caption (the nbdev_test run, cached)."
    from conftest import execute_once
    executed = nbformat.read(execute_once(book.NBS / name), as_version=4)
    bad = text_table_outputs(executed)
    assert not bad, f"{name}: {len(bad)} outputs are text tables (use display(styled(df, caption=...))):\n  " + "\n  ".join(bad)
    bad = uncaptioned_tables(executed)
    assert not bad, f"{name}: HTML tables without a caption in {bad} (use styled(df, caption=...))"
