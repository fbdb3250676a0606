"""The offline documentation site: one page per notebook, navigation, no error output, figures embedded."""
import re

import nbformat
import pytest

import book
from conftest import execute_once


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    for nb in book.notebooks(): execute_once(nb)
    out = tmp_path_factory.mktemp("site")
    pages = book.build_site(book.RUN, out)
    return out, pages


def test_every_notebook_has_a_page(site):
    out, pages = site
    expected = {book.page_name(nb) for nb in book.notebooks()}
    assert expected == {p.name for p in pages}
    assert (out / "index.html").exists()


def test_pages_link_to_each_other(site):
    out, _ = site
    names = [book.page_name(nb) for nb in book.notebooks()]
    for name in names:
        text = (out / name).read_text()
        hrefs = set(re.findall(r'<nav class="rr-nav">.*?</nav>', text, flags=re.S)[0].split('href="')[1:])
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


def test_figures_are_embedded(site):
    "Every notebook that produced a PNG figure shows it inline (base64), never as a missing file link."
    out, _ = site
    n_with_figures = 0
    for nb in book.notebooks():
        executed = nbformat.read(book.RUN / nb.name, as_version=4)
        n_png = sum("image/png" in o.get("data", {}) for c in executed.cells if c.cell_type == "code"
                    for o in c.get("outputs", []))
        text = (out / book.page_name(nb)).read_text()
        if n_png:
            n_with_figures += 1
            assert text.count("data:image/png;base64,") >= n_png, f"{nb.name}: {n_png} figures, not all embedded"
        assert not re.search(r'<img[^>]+src="(?!data:|https?:)', text), f"{nb.name}: image refers to a local file"
    assert n_with_figures >= 1, "the book should contain at least one figure"


def test_math_typesets_offline(site):
    "MathJax is copied into the site and every page loads it from there, not from a CDN."
    out, _ = site
    assert (out / "mathjax" / "MathJax.js").exists()
    for nb in book.notebooks():
        text = (out / book.page_name(nb)).read_text()
        assert 'src="mathjax/MathJax.js' in text, f"{nb.name}: MathJax not served locally"
