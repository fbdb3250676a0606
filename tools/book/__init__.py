"""Run the book and build its documentation site.

    python tools/book run  [--full] [NOTEBOOK ...]   # papermill every notebook into _run/
    python tools/book site [--offline]               # _run/*.ipynb -> _docs/
    python tools/book all  [--full]                  # both (what `make book` runs)

The site is rendered from the *executed* copies in _run/. Where a `quarto` binary is on PATH, the Quarto site:
the executed notebooks are processed by nbdev (`proc_nbs`, as `nbdev_docs` does) and `quarto render`ed with
nbs/_quarto.yml; README.md is never regenerated. Otherwise (Quarto cannot be installed on this project's
machines) the offline site: nbdev's processors, nbconvert's HTML, and this package's renderer of the Quarto subset
the book is written in (theorem blocks, proofs, callouts, cross-references, citations), with MathJax, a
Pagefind search index and highlighted sources served from the site itself.

One job per module:

    paths.py          where the book lives, its notebooks and pages, the table of contents (nbs/sidebar.yml)
    run.py            the runner: papermill into _run/
    bib.py            the BibTeX reader (references.bib -> labels and formatted references)
    markup.py         the Quarto subset: theorem blocks, proofs, callouts, cross-references, citations
    nbproc.py         nbdev's documentation processors and nbconvert's HTML of a notebook's cells
    shell.py          the page frame (site.css, local MathJax, search box, sidebar, contents, pager)
    website.py        the offline site: pages, figures as files, bibliography, sources, search index
    backmatter.py     how to cite (CITATION.cff), execution status, licence, changelog
    quarto_render.py  the Quarto site, where a `quarto` binary exists
    cli.py            the command line above
"""
from .backmatter import BACK_MATTER, status_rows
from .bib import cite_label, format_reference, parse_bib, tex_to_unicode
from .markup import _OPEN, _attrs, CALLOUT_TITLES, THEOREM_KINDS, Book, title_html, title_text
from .paths import DOCS, NBS, ROOT, RUN, TOC_FILE, in_reading_order, notebooks, page_name, toc
from .quarto_render import build_quarto
from .run import declared_parameters, run_all, run_notebook
from .website import Links, build_site
from . import paths  # noqa: F401  (paths.NBS is the one to patch: every module reads it from there)
from .cli import main
