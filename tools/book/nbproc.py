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
    cell.metadata["tags"] = sorted(tags)
    for o in cell.get("outputs", []):
        md = o.get("data", {}).get("text/markdown")
        if md:  # a fence's attributes (`::: {.callout-warning}`) stay for the block renderer
            md = md if isinstance(md, str) else "".join(md)
            o["data"]["text/markdown"] = "\n".join(l if l.lstrip().startswith(":::") else _QUARTO_ATTRS.sub("", l)
                                                   for l in md.split("\n"))


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
