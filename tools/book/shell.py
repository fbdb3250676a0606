"""The page shell: the same frame for every page (stylesheet, local MathJax, search, sidebar, contents, pager)."""
from __future__ import annotations

import html
import re
from pathlib import Path

from .markup import title_html, title_text

CSS_FILE = Path(__file__).with_name("site.css")  # the site's own stylesheet, written to _static/site.css


def site_css() -> str:
    "The stylesheet every page links (the code highlighting's rules are appended by the builder)."
    return CSS_FILE.read_text(encoding="utf-8")


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

# A box whose content is wider than the page scrolls (site.css); while it has more to show on a side, it carries the
# class rr-more-left / rr-more-right, which fades that side out (site.css). Updated as the box scrolls or changes size
# (the window too, a <details> opened), and once MathJax has made its display formulas into boxes.
_SCROLL_CUES = r"""(function () {
  var BOXES = "main pre, main table, main .MathJax_Display, main .jp-OutputArea-output, main .jp-RenderedHTMLCommon, main .rr-fold > .highlight";
  var watched = new WeakSet(), resized = window.ResizeObserver && new ResizeObserver(function (es) { es.forEach(function (e) { edges(e.target); }); });
  function edges(el) {
    var more = el.scrollWidth - el.clientWidth;
    el.classList.toggle("rr-more-left", more > 1 && el.scrollLeft > 1);
    el.classList.toggle("rr-more-right", more > 1 && el.scrollLeft < more - 1);
  }
  function scan() {
    document.querySelectorAll(BOXES).forEach(function (el) {
      if (!watched.has(el) && /auto|scroll/.test(getComputedStyle(el).overflowX)) {
        watched.add(el); el.addEventListener("scroll", function () { edges(el); }, {passive: true});
        if (resized) resized.observe(el);
      }
      if (watched.has(el)) edges(el);
    });
  }
  var queued = false;
  function soon() { if (!queued) { queued = true; requestAnimationFrame(function () { queued = false; scan(); }); } }
  scan(); window.addEventListener("load", scan);
  window.addEventListener("resize", soon);          // Chromium's ResizeObserver misses a <table> made narrower
  document.addEventListener("toggle", soon, true);  // a <details> opened: its boxes are laid out now
  if (window.MathJax && MathJax.Hub) MathJax.Hub.Register.StartupHook("End", scan);
})();"""


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


def page_shell(title: str, desc: str, main_html: str, name: str, pages, toc: str, prefix: str = "",
               notebook: str | None = None) -> str:
    """The same frame for every page: one shared stylesheet, local MathJax, search, sidebar, contents, pager; a chapter
    page offers its notebook (`notebook`: its address on the site) for download."""
    names = [p for p, _, _ in pages]
    idx = names.index(name) if name in names else -1
    prev = (f'<a class="rr-prev" href="{prefix}{pages[idx-1][0]}">← {title_html(pages[idx-1][1])}</a>'
            if idx > 0 else "<span></span>")
    nxt = (f'<a class="rr-next" href="{prefix}{pages[idx+1][0]}">{title_html(pages[idx+1][1])} →</a>'
           if 0 <= idx < len(pages) - 1 else "<span></span>")
    header = (f'<header class="rr-header"><h1 class="title">{title_html(title)}</h1>'
              + (f'<p class="rr-desc">{html.escape(desc)}</p>' if desc else "")
              + (f'<p class="rr-actions" data-pagefind-ignore><a class="rr-download" href="{prefix}{notebook}" download>'
                 f'Download this notebook (.ipynb)</a> · <a href="{prefix}status.html">execution status</a></p>' if notebook else "")
              + "</header>")
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
<script>{_SCROLL_CUES}</script>
<script>if (matchMedia("(max-width: 800px)").matches) document.querySelector(".rr-nav-box").open = false;</script>
</body></html>
"""
