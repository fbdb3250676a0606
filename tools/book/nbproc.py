"""nbdev's processing of an executed notebook for its page: the documentation processors, Quarto's cell options,
and nbconvert's HTML of the cells."""
from __future__ import annotations

import functools
import os
import re
from pathlib import Path

from . import paths


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
    os.chdir(paths.NBS)  # show_doc cells are re-run where the notebook lives
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
    if opts.get("code-fold", "").lower() == "true" and cell.source and "remove_input" not in tags:
        tags.add("remove_input")   # the code moves into a closed <details> ahead of its outputs, as Quarto folds it
        cell.outputs = [_folded_code(cell.source, _yaml_scalar(opts.get("code-summary", "Code")))] + list(cell.get("outputs", []))
    cell.metadata["tags"] = sorted(tags)
    fig = {k: _yaml_scalar(opts[k]) for k in ("label", "fig-cap", "fig-alt") if k in opts}
    if fig: cell.metadata["rr_figure"] = fig  # rendered by `figures` below, once the page's figures are counted
    for o in cell.get("outputs", []):
        md = o.get("data", {}).get("text/markdown")
        if md:  # a fence's attributes (`::: {.callout-warning}`) stay for the block renderer
            md = md if isinstance(md, str) else "".join(md)
            o["data"]["text/markdown"] = "\n".join(l if l.lstrip().startswith(":::") else _QUARTO_ATTRS.sub("", l)
                                                   for l in md.split("\n"))


def _folded_code(source: str, summary: str):
    "Quarto's `code-fold: true`: the cell's code, highlighted, in a closed <details> whose summary is `code-summary`."
    import html
    import nbformat
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer
    code = highlight(source, PythonLexer(), HtmlFormatter(cssclass="highlight hl-ipython3"))
    return nbformat.from_dict({"output_type": "display_data", "metadata": {}, "data": {"text/html":
        f'<details class="rr-fold code-fold"><summary>{html.escape(summary)}</summary>{code}</details>'}})


def _yaml_scalar(text: str) -> str:
    "A `#|` option's value as YAML reads it (`\"a: b\"` -> `a: b`)."
    import yaml
    try: v = yaml.safe_load(text)
    except yaml.YAMLError: v = text
    return str(v).strip() if v is not None else ""


def figures(cells, caption_html) -> int:
    """Quarto's figure options on a code cell (`#| label: fig-…`, `#| fig-cap:`, `#| fig-alt:`) -> one numbered
    <figure> with the cell's images, its alt text and a caption "Figure n: …" (numbered per page, in reading order,
    as Quarto numbers a page's figures). `caption_html(markdown)` renders the caption. Returns the figures counted."""
    import html
    import nbformat
    n = 0
    for c in cells:
        fig = c.get("metadata", {}).get("rr_figure")
        if c.cell_type != "code" or not fig: continue
        outs = c.get("outputs", [])
        images = [o for o in outs if "image/png" in o.get("data", {})]
        if not images: continue
        n += 1
        alt = html.escape(fig.get("fig-alt") or fig.get("fig-cap") or "", quote=True)
        imgs = "".join(f'<img src="data:image/png;base64,{"".join(o.data["image/png"]).strip()}" alt="{alt}">' for o in images)
        cap = f'<figcaption><span class="rr-fig-label">Figure&nbsp;{n}:</span> {caption_html(fig.get("fig-cap", ""))}</figcaption>'
        ident = f' id="{html.escape(fig["label"])}"' if fig.get("label") else ""
        figure = {"output_type": "display_data", "metadata": {},
                  "data": {"text/html": f'<figure class="rr-figure"{ident}>{imgs}{cap}</figure>'}}
        first, ids = next(i for i, o in enumerate(outs) if o is images[0]), {id(o) for o in images}
        c["outputs"] = outs[:first] + [nbformat.from_dict(figure)] + [o for o in outs[first:] if id(o) not in ids]
    return n


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
