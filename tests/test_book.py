"""The book as a reader opens it: every page of the offline site loaded in headless Chromium.

Fails on any MathJax error ("Math Processing Error", a TeX parse error, a MathJax file that does not load),
on any JavaScript console error or failed resource, and on a page whose theorem boxes are missing (fewer
rendered boxes than the notebook's `::: {#thm-…}` blocks, or a literal `:::` fence left in the text).
Also: no page leaks working notes or off-site links.

As a reader uses the book (one Chromium driven over the DevTools protocol, `Browser`): a query typed into the search
box lists the page that treats it, on a chapter page and on a source page, and its result leads there; wide content
(a table, a display formula, a code line or output) scrolls inside its own box, which fades on the side with more to
see, and no chapter page is wider than the window, on a desktop (1400 px) and a phone (420 px); on every page, after
MathJax finished, no formula is marked as an error (undefined macros included) and no TeX shows in the prose;
Next/Previous follow the sidebar; no build-machine path, no words about how the book was made, no raw backticks in
titles, no doubled parentheses around a citation.

The Quarto render's filter nbs/_filters/paper-numbers.lua (the papers' theorem numbers) is run through pandoc where
one is found ($PANDOC, PATH or the pypandoc_binary wheel); without one those tests are skipped, saying so.

Chromium is Debian's `chromium` package (`apt-get install -y chromium`; `.ci/run` installs it). Without it the
browser tests are skipped with that instruction, except under CI (`CI=true`), where they fail.
`BOOK_SITE=/path/to/_docs pytest tests/test_book.py` checks an already built site instead of building one.
"""
import json
import os
import re
import shutil
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote

import nbformat
import pytest

import book
from conftest import execute_all, execute_once

_RUN_ID = os.environ.get("PYTEST_XDIST_TESTRUNUID") or f"pid{os.getpid()}"
THEOREM_FENCE = re.compile(r"^:{3,}\s*\{#(?:%s)-[\w-]+" % "|".join(book.THEOREM_KINDS), flags=re.M)
# Every test here shares one Chromium and one visit of every page (the module-scoped `browser` and `reports`): on two
# xdist workers each would start its own and read all 86 pages again. `make test` runs pytest with `--dist loadgroup`,
# which keeps a group on one worker.
pytestmark = pytest.mark.xdist_group("book")
INSTALL = "install it with `apt-get update && apt-get install -y chromium` (Debian's package; .ci/run does this)"


def site_once() -> Path:
    "Build the offline site from the executed notebooks once per test run (across xdist workers), into _run/."
    if os.environ.get("BOOK_SITE"): return Path(os.environ["BOOK_SITE"])
    execute_all(book.notebooks())
    out = book.RUN / f".site-{_RUN_ID}"
    lock, done = book.RUN / f".site-{_RUN_ID}.lock", book.RUN / f".site-{_RUN_ID}.json"
    try:
        os.close(os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)); owner = True
    except FileExistsError:
        owner = False
    if owner:
        for old in book.RUN.glob(".site-*"):  # sites of earlier test runs
            if _RUN_ID not in old.name: shutil.rmtree(old, ignore_errors=True) if old.is_dir() else old.unlink(missing_ok=True)
        try:
            book.build_site(book.RUN, out); rec = {"ok": True}
        except Exception as e:  # noqa: BLE001  (recorded and re-raised to every caller)
            rec = {"ok": False, "error": f"{type(e).__name__}: {e}"}
        tmp = done.with_suffix(".tmp"); tmp.write_text(json.dumps(rec)); tmp.replace(done)
    t0 = time.time()
    while not done.exists():
        if time.time() - t0 > 3600: raise TimeoutError("another worker never finished building the site")
        time.sleep(0.5)
    rec = json.loads(done.read_text())
    if not rec["ok"]: raise RuntimeError(f"building the site failed: {rec['error']}")
    return out


def chromium() -> str | None:
    return next((p for p in (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")) if p), None)


def need_chromium() -> str:
    exe = chromium()
    if exe: return exe
    msg = f"headless Chromium is needed to check the book in a browser: {INSTALL}"
    if os.environ.get("CI", "").lower() in ("true", "1"): pytest.fail(msg)
    pytest.skip(msg)


class _Quiet(SimpleHTTPRequestHandler):
    "Serves the site silently, remembering every request it could not answer (a missing script, font, page)."
    missing: list[str] = []

    def log_message(self, *a): pass

    def send_error(self, code, *a, **kw):
        if code == 404: _Quiet.missing.append(self.path)
        return super().send_error(code, *a, **kw)


@pytest.fixture(scope="module")
def site() -> Path:
    return site_once()


@pytest.fixture(scope="module")
def served(site):
    "The site on http://127.0.0.1:PORT/ (file:// blocks scripts MathJax and the search need)."
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(site)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()


class Browser:
    """One headless Chromium driven over the DevTools protocol, as a reader uses a page: load it, wait for its scripts,
    focus a field and type into it, read what is shown. Started with `--remote-debugging-port=0`; the port Chromium
    picked is read from `DevToolsActivePort` in its profile directory; JSON messages go over a websocket
    (`websocket-client`, in the `dev` extra)."""

    def __init__(self, exe: str):
        import tempfile
        import urllib.request
        import websocket
        self.profile = Path(tempfile.mkdtemp(prefix="rr-cdp-"))
        self.proc = subprocess.Popen([exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                                      "--no-first-run", "--remote-debugging-port=0", "--remote-allow-origins=*",
                                      f"--user-data-dir={self.profile}", "--window-size=1400,1000", "about:blank"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file, t0 = self.profile / "DevToolsActivePort", time.time()
        while not (port_file.exists() and port_file.read_text().strip()):
            if time.time() - t0 > 60 or self.proc.poll() is not None: self.close(); raise RuntimeError("Chromium did not start")
            time.sleep(0.1)
        port = port_file.read_text().split()[0]
        t0 = time.time()
        while True:
            targets = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10).read())
            pages = [t for t in targets if t.get("type") == "page"]
            if pages or time.time() - t0 > 30: break
            time.sleep(0.2)
        self.ws = websocket.create_connection(pages[0]["webSocketDebuggerUrl"], timeout=120, suppress_origin=True)
        self.next_id, self.errors = 0, []
        self.send("Runtime.enable"); self.send("Log.enable")   # uncaught exceptions, console.error, failed loads

    def send(self, method: str, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:  # events arriving meanwhile: only the page's errors are kept
            msg = json.loads(self.ws.recv())
            self._note_error(msg)
            if msg.get("id") == self.next_id:
                if "error" in msg: raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})

    def _note_error(self, msg: dict):
        "An uncaught exception, a console.error call or an error-level log entry (a script or file that did not load)."
        m, p = msg.get("method"), msg.get("params", {})
        if m == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            self.errors.append(f"uncaught: {d.get('exception', {}).get('description') or d.get('text')}"[:300])
        elif m == "Runtime.consoleAPICalled" and p.get("type") == "error":
            self.errors.append("console.error: " + " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))[:300])
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            if p["entry"].get("url") == "about:blank" or "font at 'about:blank'" in p["entry"].get("text", ""):
                return   # MathJax 2's web-font probe (@font-face MathJax_Blank, src about:blank): refused by design, harmless
            self.errors.append(f"log: {p['entry'].get('text')} {p['entry'].get('url', '')}"[:300])

    def js(self, expr: str):
        "Evaluate `expr` in the page (a promise is awaited) and return its value."
        r = self.send("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r: raise RuntimeError(f"JavaScript failed: {r['exceptionDetails']}")
        return r["result"].get("value")

    def wait_for(self, expr: str, timeout: float = 60.0, every: float = 0.1):
        "Poll `expr` until it is truthy; its last value (falsy after `timeout` s)."
        t0 = time.time()
        while True:
            try: v = self.js(expr)
            except RuntimeError: v = None  # the page is being replaced (its JavaScript context went away)
            if v or time.time() - t0 > timeout: return v
            time.sleep(every)

    def open(self, url: str, timeout: float = 90.0, wait_for_math: bool = True) -> bool:
        "Load `url` and wait until it is loaded and (unless told not to) MathJax, where the page has it, has typeset it."
        self._leave()
        self.send("Page.navigate", url=url)
        return self._arrived(timeout, wait_for_math)

    def _leave(self):
        self.js("window.rrLeft = true")  # set on the page being left: the loaded page is the one without it
        self.errors = []                  # from here on: the new page's errors

    def _arrived(self, timeout: float, wait_for_math: bool) -> bool:
        return bool(self.wait_for("!window.rrLeft && document.readyState === 'complete'" + (
            " && (!window.MathJax || document.body.getAttribute('data-mathjax') === 'done')" if wait_for_math else ""), timeout))

    def resize(self, width: int | None, height: int = 1000):
        "Show pages `width` CSS pixels wide (a phone: 420), until `resize(None)` restores the window's own 1400."
        if width is None: self.send("Emulation.clearDeviceMetricsOverride")
        else: self.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)

    def _point(self, element: str) -> tuple[float, float]:
        "The centre of the first line box of the element `element` (a JavaScript expression), scrolled into view first."
        return tuple(self.js(f"(() => {{ const e = {element}; e.scrollIntoView({{block: 'center'}}); "
                             f"const r = e.getClientRects()[0]; return [r.left + r.width / 2, r.top + r.height / 2]; }})()"))

    def click(self, element: str, navigates: bool = False, timeout: float = 60.0, wait_for_math: bool = True) -> bool:
        """Click `element` (a JavaScript expression) with the mouse, as a reader does; with `navigates`, wait for the page
        the click leads to (as `open` does)."""
        x, y = self._point(element)
        if navigates: self._leave()
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)
        return self._arrived(timeout, wait_for_math) if navigates else True

    def scroll_sideways(self, element: str, timeout: float = 10.0) -> bool:
        "Turn the mouse wheel sideways over `element` until it is scrolled to its right end (True) or `timeout` s pass."
        x, y = self._point(element)
        at_end, t0 = f"(e => e.scrollLeft >= e.scrollWidth - e.clientWidth - 1)({element})", time.time()
        while not self.js(at_end):
            if time.time() - t0 > timeout: return False
            self.send("Input.dispatchMouseEvent", type="mouseWheel", x=x, y=y, deltaX=600, deltaY=0)
            time.sleep(0.05)
        return True

    def type_text(self, text: str):
        "Type into the focused element, one key at a time (keydown, the character, keyup), as a keyboard does."
        for ch in text:
            self.send("Input.dispatchKeyEvent", type="keyDown", key=ch, text=ch)
            self.send("Input.dispatchKeyEvent", type="keyUp", key=ch)

    def search(self, query: str, timeout: float = 20.0) -> tuple[list[str], str]:
        """Click into the open page's search box, delete what it holds and type `query` key by key; the addresses of the
        results listed once Pagefind has counted them and the list stopped changing, and the box's message."""
        box = "document.querySelector('#rr-search input')"
        self.click(box)
        for _ in range(len(self.js(f"{box}.value"))):
            self.send("Input.dispatchKeyEvent", type="rawKeyDown", key="Backspace", code="Backspace", windowsVirtualKeyCode=8)
            self.send("Input.dispatchKeyEvent", type="keyUp", key="Backspace", code="Backspace", windowsVirtualKeyCode=8)
        self.type_text(query)
        state, last, stable, t0 = ["", []], None, 0, time.time()
        while time.time() - t0 < timeout and stable < 3:
            time.sleep(0.25)
            state = self.js("[(document.querySelector('#rr-search .pagefind-ui__message') || {}).textContent || '', "
                            "[...document.querySelectorAll('#rr-search a.pagefind-ui__result-link')].map(a => a.href)]")
            done = re.match(r"\d+ results? for " + re.escape(query), state[0]) and state[1] and all(state[1])
            stable = stable + 1 if done and state == last else 0
            last = state
        return state[1], state[0]

    def close(self):
        try: self.ws.close()
        except Exception: pass  # noqa: BLE001
        self.proc.terminate()
        try: self.proc.wait(10)
        except subprocess.TimeoutExpired: self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


@pytest.fixture(scope="module")
def browser():
    b = Browser(need_chromium())
    yield b
    b.close()


def page_problems(dom: str, console: list[str], expected_theorems: int, source_page: bool = False) -> list[str]:
    "Everything wrong with one loaded page (empty = the page is fine); a highlighted module may contain ':::' as code."
    problems = []
    text = re.sub(r"<(script|style)\b.*?</\1>", "", dom, flags=re.S)  # the page's own MathJax config names the error
    n_mpe = text.count("Math Processing Error")
    if n_mpe: problems.append(f"{n_mpe} Math Processing Error(s)")
    if 'data-mathjax="done"' not in dom and "MathJax" in dom:
        problems.append("MathJax did not finish typesetting (no data-mathjax=done: old page or a script error)")
    m = re.search(r'<pre id="rr-errors"[^>]*>(.*?)</pre>', dom, flags=re.S)
    in_page = json.loads(html_unescape(m.group(1))) if m else []
    if in_page: problems.append(f"{len(in_page)} JavaScript error(s) on the page: {in_page[:3]}")
    if console: problems.append(f"{len(console)} console error(s): {console[:3]}")
    boxes = len(re.findall(r'<div[^>]*\bclass="rr-thm\b', dom))
    if boxes < expected_theorems: problems.append(f"{boxes} theorem boxes rendered, {expected_theorems} in the notebook")
    if not source_page and re.search(r"(^|>|\n)\s*:::", text): problems.append("a literal ':::' fence is shown (an unrendered Quarto block)")
    return problems


def html_unescape(s: str) -> str:
    import html
    return html.unescape(s)


def expected_theorem_boxes(nb: Path) -> int:
    return sum(len(THEOREM_FENCE.findall(c.source)) for c in nbformat.read(nb, as_version=4).cells if c.cell_type == "markdown")


def test_every_page_in_a_browser(site, reports):
    "0 math errors, 0 JavaScript errors, every theorem box rendered, on every page: chapters, references, sources."
    expected = {book.page_name(nb): expected_theorem_boxes(nb) for nb in book.notebooks()}
    assert set(expected) <= set(reports) and any(p.startswith("src/") for p in reports), sorted(reports)[:5]
    bad = {p: probs for p, r in reports.items()
           if (probs := page_problems(r["dom"], r["errors"], expected.get(p, 0), source_page=p.startswith("src/")))}
    if _Quiet.missing: bad["(server)"] = [f"{len(_Quiet.missing)} requests for missing files: {sorted(set(_Quiet.missing))[:5]}"]
    assert not bad, f"{len(bad)} of {len(reports)} pages fail in Chromium:\n" + "\n".join(f"  {k}: {v}" for k, v in bad.items())


def test_the_checker_sees_errors():
    "The page check reports each kind of failure it is meant to catch (so a green run means something)."
    good = '<body data-mathjax="done"><div class="rr-thm theorem">x</div><pre id="rr-errors" hidden>[]</pre>'
    assert page_problems(good, [], 1) == []
    assert page_problems(good.replace("x<", "[Math Processing Error]<"), [], 1)
    assert page_problems(good, ['[1:1:INFO:CONSOLE(3)] "Uncaught TypeError: x", source: a.js (3)'], 1)
    assert page_problems(good.replace("[]", "[&quot;MathJax: TeX parse error&quot;]"), [], 1)
    assert page_problems(good, [], 2)  # a theorem box missing
    assert page_problems(good.replace("x<", "<p>::: {#thm-a}</p><"), [], 1)
    assert not page_problems(good.replace("x<", "<p>::: {#thm-a}</p><"), [], 1, source_page=True)  # ':::' as code
    assert page_problems('<body><script src="MathJax.js"></script>', [], 0)  # MathJax never finished


FORBIDDEN = ["spec " + "§", "seed " + "00", "papers/",   # spelled so the sources check passes this file
             "np.float64(", "[PAPER ERROR]"]


def test_no_working_notes_or_offsite_links(site):
    "No page cites working notes or links outside the site (the offline builder keeps every link local)."
    bad = {}
    for page in sorted(site.rglob("*.html")):
        if "pagefind" in page.parts or page.name.startswith("_"): continue
        text = page.read_text(encoding="utf-8")
        visible = re.sub(r"<(script|style)\b.*?</\1>", "", text, flags=re.S)
        hits = [f for f in FORBIDDEN if f in visible]
        hits += re.findall(r'<a\b[^>]*href="((?:https?:)?//[^"]+)"', text)
        hits += re.findall(r'<(?:script|link|img)\b[^>]*(?:src|href)="((?:https?:)?//[^"]+)"', text)
        if hits: bad[str(page.relative_to(site))] = sorted(set(hits))[:5]
    assert not bad, f"{len(bad)} pages leak working notes or off-site links:\n" + "\n".join(f"  {k}: {v}" for k, v in bad.items())


def test_internal_links_resolve(site):
    "Every local href (page and #anchor) points at a file of the site and an id on that page."
    ids, bad = {}, []
    pages = [p for p in site.rglob("*.html") if "pagefind" not in p.parts]
    for p in pages: ids[p.resolve()] = {html_unescape(i) for i in re.findall(r'\bid="([^"]+)"', p.read_text(encoding="utf-8"))}
    for p in pages:
        for href in re.findall(r'<a\b[^>]*href="([^"#:]*)(?:#([^"]*))?"', p.read_text(encoding="utf-8")):
            target = (p.parent / href[0]).resolve() if href[0] else p.resolve()
            if target.is_dir(): target = target / "index.html"
            raw = html_unescape(href[1])  # a browser tries the fragment as written, then percent-decoded
            if target.suffix != ".html" and target.is_file(): continue  # a file to download: the notebook, CITATION.cff
            if target not in ids: bad.append(f"{p.name} -> {href[0]}")
            elif raw and raw not in ids[target] and unquote(raw) not in ids[target]: bad.append(f"{p.name} -> {href[0]}#{raw}")
    assert not bad, f"{len(bad)} broken internal links, e.g. {bad[:8]}"


def test_a_section_link_in_quartos_spelling_finds_nbconverts_heading_id():
    "`[…](40_mean_classifier.ipynb#kernel-herding-algorithm-1)` is Quarto's id of '## Kernel herding (Algorithm 1)'."
    from book.website import pandoc_id
    assert pandoc_id("Kernel-herding-(Algorithm-1)") == "kernel-herding-algorithm-1"
    assert pandoc_id("Definition-1:-which-losses-are-Arch") == "definition-1-which-losses-are-arch"
    assert pandoc_id("Why-RMBoost-often-stops-at-one-tree") == "why-rmboost-often-stops-at-one-tree"
    assert pandoc_id("The-α-loss") == "the-α-loss"


def test_quarto_subset_renders():
    """Theorem blocks carry the paper's number (`number=`; none: unnumbered), titled, cross-referenced across pages with
    the paper named; citations link the bibliography."""
    bib = book.parse_bib((book.NBS / "references.bib").read_text(encoding="utf-8"))
    b = book.Book(bib)
    a = ['::: {#thm-x-2 number="2"}\n## Risk bound [@mazuelas2025rmboost, Theorem 2]\nIt holds.\n:::\n\n'
         '::: {#lem-x-5 number="5"}\nL.\n:::\n::: {#thm-x-3}\nT.\n:::']
    b.index_page("a.html", "Chapter A", a)
    b.index_page("b.html", "Chapter B", ['::: {#def-y-1 number="1"}\n## D [@sypherd2023alpha, Definition 1]\nD.\n:::',
                                         '::: {#alg-z-3 number="3"}\n## Z [@freund1997adaboost; @friedman2000additive, Algorithm 3]\n:::'])
    out = b.markdown(a[0], "a.html")
    assert '<div id="thm-x-2" class="rr-thm rr-thm theorem">' in out and ">Theorem 2</a>" in out
    assert ">Lemma 5</a>" in out and ">Theorem</a>" in out  # a block without `number` is unnumbered
    assert 'href="references.html#ref-mazuelas2025rmboost">Mazuelas &amp; Álvarez 2025</a>, Theorem 2' in out
    assert "## Risk bound" not in out
    ref = b.markdown("See @thm-x-2 and @def-y-1, @alg-z-3, $a@thm-x-2$ and `@thm-x-2`.", "a.html")
    assert '<a class="rr-xref" href="#thm-x-2">Theorem&nbsp;2</a>' in ref
    assert '<a class="rr-xref" href="b.html#def-y-1">Definition&nbsp;1 (Sypherd et al. 2023)</a>' in ref
    assert '<a class="rr-xref" href="b.html#alg-z-3">Algorithm&nbsp;3 (Friedman et al. 2000)</a>' in ref  # the numbering work
    assert "$a@thm-x-2$" in ref and "`@thm-x-2`" in ref
    assert b.markdown("[@sypherd2023alpha; @long2010random, §2]", "a.html").count('class="rr-cite"') == 2
    col = b.markdown('::: {.callout-note collapse="true"}\n## Implementation notes\nsolver\n:::', "a.html")
    assert col.startswith('<details class="rr-callout callout callout-note"><summary>Implementation notes</summary>')
    warn = b.markdown("::: {.callout-warning}\n## Where the paper errs\nx\n:::", "a.html")
    assert '<p class="rr-callout-title">Where the paper errs</p>' in warn
    assert '<p class="rr-qed">∎</p></div>' in b.markdown("::: {.proof}\nbecause\n:::", "a.html")
    assert not b.missing
    b.markdown("@thm-nowhere and [@nobody2020]", "a.html")
    assert b.missing == {"a.html": {"@thm-nowhere", "@nobody2020"}}


PAPER_NUMBERS = book.NBS / "_filters" / "paper-numbers.lua"  # the Quarto render's filter: the papers' theorem numbers
THEOREMS_MD = """The duality is @lem-rmboost-5; see also [@thm-rmboost-2] and @def-rule.

::: {#def-rule}
## Rule
A rule.
:::

::: {#lem-rmboost-5 number="5"}
## Strong duality of the inner maximisation
It holds.
:::

::: {#thm-rmboost-2 number="2"}
A bound.
:::
"""
# Quarto's side of what the filter relies on (quarto-cli, src/resources/filters): a user filter is loaded with `_G` in
# its environment; every theorem block enters the cross-reference index through the global
# `indexAddEntry(label, parent, order, caption)` with the table `order` that numbers it (`order.order`: Quarto's running
# count); the box's title and every reference read that table.
QUARTO_STAND_IN = r"""
local KINDS = {def = "Definition", lem = "Lemma", thm = "Theorem"}
local entries, counts = {}, {}
function indexAddEntry(label, parent, order, caption) entries[label] = {order = order} end
quarto = {}
local user = assert(loadfile(os.getenv("USER_FILTER"), "bt", setmetatable({_G = _G}, {__index = _G})))()
local function shown(label) return KINDS[label:match("^(%a+)%-")] .. " " .. tostring(entries[label].order.order) end
function Pandoc(doc)
  for _, f in ipairs(user) do if f.Pandoc then doc = f.Pandoc(doc) or doc end end     -- at: pre-ast
  doc = doc:walk({Div = function(div)                                                   -- index, in reading order
    local k = div.identifier:match("^(%a+)%-")
    if not KINDS[k] then return nil end
    counts[k] = (counts[k] or 0) + 1
    indexAddEntry(div.identifier, nil, {order = counts[k]}, {})
    div.content:insert(1, pandoc.Para({pandoc.Strong(shown(div.identifier))}))
    return div
  end})
  return doc:walk({Cite = function(cite)                                                -- resolve the references
    local label = cite.citations[1].id
    if entries[label] then return pandoc.Link(shown(label), "#" .. label) end
  end})
end
"""


def pandoc_binary() -> str:
    "A pandoc 2.17+ (Lua filters with `doc:walk`) to run the filter with: $PANDOC, `pandoc` on PATH, or pypandoc_binary's."
    exe = os.environ.get("PANDOC") or shutil.which("pandoc")
    if not exe:
        try:
            import pypandoc
            exe = pypandoc.get_pandoc_path()
        except (ImportError, OSError):
            pytest.skip("no pandoc to run nbs/_filters/paper-numbers.lua with: set $PANDOC, put pandoc on PATH or "
                        "pip install pypandoc_binary (155 MB installed: not in the dev extra)")
    out = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
    version = tuple(int(x) for x in re.match(r"\S+ (\d+)\.(\d+)", out).groups())
    if version < (2, 17): pytest.skip(f"{exe} is pandoc {version}: the filter needs 2.17 or later")
    return exe


def run_pandoc(exe: str, markdown: str, *filters: Path, env: dict | None = None) -> str:
    "`markdown` through pandoc and `filters` to HTML, as its text (non-breaking spaces as spaces)."
    r = subprocess.run([exe, "-f", "markdown", "-t", "html", *(f"--lua-filter={f}" for f in filters)], input=markdown,
                       capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=60)
    assert r.returncode == 0, r.stderr
    return html_unescape(re.sub(r"<[^>]+>", "", r.stdout)).replace("\xa0", " ")


def test_paper_numbers_filter_under_plain_pandoc():
    """nbs/_filters/paper-numbers.lua under plain pandoc renders what Quarto would: the box titled with the paper's
    number ("Lemma 5 (…)", whatever its place), references to it by that number; a block without one unnumbered."""
    text = " ".join(run_pandoc(pandoc_binary(), THEOREMS_MD, PAPER_NUMBERS).split())
    assert "The duality is Lemma 5; see also Theorem 2 and Definition." in text
    assert "Lemma 5 (Strong duality of the inner maximisation) It holds." in text
    assert "Theorem 2 A bound." in text and "Definition (Rule) A rule." in text


def test_paper_numbers_filter_under_quarto(tmp_path):
    """Under Quarto (stood in for by its side of the contract, QUARTO_STAND_IN), the filter gives Quarto's index the
    paper's numbers: the boxes and references read "Lemma 5" and "Theorem 2" where Quarto counts 1 and 1; a block
    without `number` keeps Quarto's count. Without the filter, the same stand-in shows Quarto's counts."""
    exe = pandoc_binary()
    stand_in, none = tmp_path / "quarto_stand_in.lua", tmp_path / "no_filter.lua"
    stand_in.write_text(QUARTO_STAND_IN); none.write_text("return {{}}\n")
    text = " ".join(run_pandoc(exe, THEOREMS_MD, stand_in, env={"USER_FILTER": str(PAPER_NUMBERS)}).split())
    assert "The duality is Lemma 5; see also Theorem 2 and Definition 1." in text
    assert "Lemma 5 Strong duality" in text and "Theorem 2 A bound." in text and "Definition 1 Rule" in text
    quarto_alone = " ".join(run_pandoc(exe, THEOREMS_MD, stand_in, env={"USER_FILTER": str(none)}).split())
    assert "The duality is Lemma 1; see also Theorem 1 and Definition 1." in quarto_alone


def test_quarto_runs_the_paper_numbers_filter():
    "nbs/_quarto.yml registers the filter before Quarto parses the theorem blocks (`at: pre-ast`), from a file that exists."
    import yaml
    filters = yaml.safe_load((book.NBS / "_quarto.yml").read_text(encoding="utf-8"))["filters"]
    entry = next(f for f in filters if isinstance(f, dict) and f.get("path", "").endswith("paper-numbers.lua"))
    assert entry["at"] == "pre-ast" and (book.NBS / entry["path"]) == PAPER_NUMBERS and PAPER_NUMBERS.exists()


def test_the_books_tests_share_one_worker():
    "`make test` keeps an xdist group on one worker; without `--dist loadgroup` the group mark does nothing."
    make = (book.ROOT / "Makefile").read_text()
    line = next(l for l in make.splitlines() if "-m pytest tests" in l)
    assert "--dist loadgroup" in line and "-n 2" in line, line
    assert any(m.name == "xdist_group" and m.args == ("book",) for m in [pytestmark])


def test_bibliography_has_every_key_the_book_uses():
    "references.bib holds the agreed keys with author, title, year, venue; every [@key] in the notebooks is in it."
    bib = book.parse_bib((book.NBS / "references.bib").read_text(encoding="utf-8"))
    agreed = {"mazuelas2025rmboost", "sypherd2023alpha", "wilton2024trees", "vanrooyen2015average", "li2018archboost",
              "freund2001brownboost", "freund2009robustboost", "demiriz2002lpboost", "friedman2000additive",
              "schapire1999improved", "freund1997adaboost", "long2010random", "chen2010herding",
              "northcutt2021confident", "breiman2001forests", "chen2016xgboost"}
    assert agreed <= set(bib), f"missing keys: {agreed - set(bib)}"
    for k, e in bib.items():
        assert e.get("author") and e.get("title") and e.get("year", "").isdigit(), k
        assert e.get("journal") or e.get("booktitle") or e.get("howpublished") or (e.get("type") == "book" and e.get("publisher")), k
    assert book.cite_label(bib["mazuelas2025rmboost"]) == "Mazuelas & Álvarez 2025"
    assert book.cite_label(bib["sypherd2023alpha"]) == "Sypherd et al. 2023"
    used = set()
    for nb in book.notebooks():
        for c in nbformat.read(nb, as_version=4).cells:
            if c.cell_type == "markdown":
                for inner in re.findall(r"\[(-?@[^\[\]]+)\]", c.source):
                    used |= {k for k in re.findall(r"-?@([\w:.-]*\w)", inner) if k.split("-")[0] not in book.THEOREM_KINDS}
    assert used <= set(bib), f"cited but not in references.bib: {used - set(bib)}"


def test_parameters_cells_parse_with_papermill():
    "papermill reads every parameters cell (a `=` in a comment once made it log 'Unable to parse line 1')."
    from papermill.inspection import _infer_parameters
    import logging
    n = 0
    for nb in book.notebooks():
        node = nbformat.read(nb, as_version=4)
        for c in node.cells: c.metadata.setdefault("tags", [])  # papermill's inspection expects the key
        cells = [c for c in node.cells if "parameters" in c.metadata.get("tags", [])]
        if not cells: continue
        n += 1
        records = []
        handler = logging.Handler(); handler.emit = records.append
        logging.getLogger("papermill").addHandler(handler)
        try:
            params = _infer_parameters(node)
        finally:
            logging.getLogger("papermill").removeHandler(handler)
        declared = book.declared_parameters(nb)
        assert {p.name for p in params} == declared, f"{nb.name}: papermill sees {[p.name for p in params]}, cell declares {declared}"
        assert not [r.getMessage() for r in records if r.levelno >= logging.WARNING], f"{nb.name}: {[r.getMessage() for r in records]}"
    assert n >= 5, "the reproduction notebooks and the leaderboard declare parameters"


def test_quarto_branch_with_a_stand_in_quarto(tmp_path, monkeypatch):
    """Quarto cannot be installed here, so a stand-in `quarto` on PATH checks the branch up to Quarto's door: the
    executed notebooks (outputs kept) are processed by nbdev into _proc/ with the book's Quarto files and the grouped
    sidebar, `quarto render _proc --no-cache` is called, its _docs/ becomes the site, and README.md is untouched."""
    for name in ("index.ipynb", "95_errata.ipynb"): execute_once(book.NBS / name)
    stub = tmp_path / "bin" / "quarto"
    stub.parent.mkdir()
    stub.write_text('#!/usr/bin/env bash\necho "$@" > "%s"\nmkdir -p "$2/_docs" && echo stub > "$2/_docs/index.html"\n'
                    % (tmp_path / "call.txt"))
    stub.chmod(0o755)
    monkeypatch.setenv("PATH", f"{stub.parent}:{os.environ['PATH']}")
    readme = (book.ROOT / "README.md").read_bytes()
    out = book.build_quarto(book.RUN, tmp_path / "docs", nbs=[book.NBS / "index.ipynb", book.NBS / "95_errata.ipynb"])
    assert (tmp_path / "call.txt").read_text().split() == ["render", str(book.ROOT / "_proc"), "--no-cache"]
    assert (out / "index.html").read_text().strip() == "stub"
    proc = book.ROOT / "_proc"
    assert {"_quarto.yml", "references.bib", "sidebar.yml", "index.ipynb", "95_errata.ipynb"} <= {p.name for p in proc.iterdir()}
    assert (proc / "_filters" / "paper-numbers.lua").read_text() == PAPER_NUMBERS.read_text()  # the filter _quarto.yml names
    assert "- part: The five papers" in (proc / "sidebar.yml").read_text()
    import yaml
    assert yaml.safe_load((proc / "_quarto.yml").read_text())["project"]["type"] == "book"  # cross-page references resolve
    executed = nbformat.read(book.RUN / "index.ipynb", as_version=4)
    processed = nbformat.read(proc / "index.ipynb", as_version=4)
    n_out = lambda nb: sum(len(c.get("outputs", [])) for c in nb.cells if c.cell_type == "code")
    assert n_out(executed) > 0 and n_out(processed) > 0, "the Quarto branch must render the executed copies (with outputs)"
    assert (book.ROOT / "README.md").read_bytes() == readme


def test_printed_callouts_and_section_links_render(tmp_path, monkeypatch):
    """A cell that prints a Quarto callout (`show_check`'s warning, an `output: asis` cell) renders it as a callout,
    not as a literal `:::` fence; a link to another notebook's section in Quarto's spelling
    (`10_rmboost.ipynb#why-rmboost-often-stops-at-one-tree`) points at the id the heading got on that page."""
    nbs, run = tmp_path / "nbs", tmp_path / "run"
    nbs.mkdir(); run.mkdir()
    a = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Chapter A"),
                                        nbformat.v4.new_markdown_cell("## Why It Stops Early\n\ntext")])
    code = nbformat.v4.new_code_cell("show()", outputs=[nbformat.v4.new_output(
        "display_data", data={"text/markdown": "::: {.callout-warning}\n## Rows being refreshed\n\nnot compared\n:::"})])
    b = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Chapter B"),
                                        nbformat.v4.new_markdown_cell("See [why](10_a.ipynb#why-it-stops-early)."), code])
    for name, nb in (("10_a.ipynb", a), ("20_b.ipynb", b)):
        nbformat.write(nb, nbs / name); nbformat.write(nb, run / name)
    monkeypatch.setattr(book.paths, "NBS", nbs)
    book.build_site(run, tmp_path / "docs", search=False)
    page_a, page_b = ((tmp_path / "docs" / p).read_text(encoding="utf-8") for p in ("a.html", "b.html"))
    assert ":::" not in page_b and '<p class="rr-callout-title">Rows being refreshed</p>' in page_b
    heading_id = re.search(r'<h2 id="([^"]+)"', page_a).group(1)
    assert f'href="a.html#{heading_id}"' in page_b


# ------------------------------------------------------------------------------------------- as a reader uses it
def page_of(url: str) -> str:
    "The page an address names: 'http://127.0.0.1:8000/rmboost.html#why' -> 'rmboost.html'."
    return url.split("#")[0].rsplit("/", 1)[-1]


SEARCH_RESULTS = "[...document.querySelectorAll('#rr-search a.pagefind-ui__result-link')]"


def test_search_finds_the_chapters_and_leads_to_them(site, served, browser):
    """As a reader searches (Pagefind's offline index, through the search box): on the home page, 'minimax' lists RMBoost's
    chapter among the first three pages found and 'breakdown' Arch Boost's theorems page (its Theorem 2, the
    gradient-direction breakdown, is stated and checked there); clicking the result opens that chapter, at
    the section the result names."""
    assert (site / "pagefind" / "pagefind-ui.js").exists(), "the site was built without its search index (pip install 'pagefind[bin]')"
    failures = []
    for query, expected in (("minimax", "rmboost.html"), ("breakdown", "archboost_theorems.html")):
        assert browser.open(served + "index.html", wait_for_math=False), "index.html did not load"
        assert browser.wait_for("!!document.querySelector('#rr-search input')", 20), "index.html: no search box"
        # Pagefind compiles its WebAssembly off the main thread: on a busy machine the first query can take a while
        found, message = browser.search(query, timeout=90)
        top = list(dict.fromkeys(map(page_of, found)))[:3]
        if expected not in top:
            failures.append(f"'{query}': first pages {top} (box says {message!r}), expected {expected}"); continue
        # a result naming a section (Pagefind's sub-result, `page#heading`) if there is one, else the page's own
        i = next((i for i, u in enumerate(found) if page_of(u) == expected and "#" in u),
                 next(i for i, u in enumerate(found) if page_of(u) == expected))
        href = found[i]
        if not browser.click(f"{SEARCH_RESULTS}[{i}]", navigates=True, wait_for_math=False):
            failures.append(f"'{query}': following {href} did not load a page"); continue
        at = browser.js("location.href")
        if page_of(at) != expected: failures.append(f"'{query}': following {href} led to {at}"); continue
        if "#" in href:
            shown = browser.js("(() => { const e = document.getElementById(decodeURIComponent(location.hash.slice(1)));"
                               " if (!e) return 'missing'; const r = e.getBoundingClientRect();"
                               " return r.top >= -1 && r.top < innerHeight ? 'shown' : 'off screen'; })()")
            if shown != "shown": failures.append(f"'{query}': {href}: the section it names is {shown}")
    assert not failures, "\n".join(failures)


def test_search_box_finds_pages_on_chapter_and_source_pages(site, served, browser):
    """Typed into the search box like a reader, on a chapter page and on a source page, a query lists the page that
    treats it (a chapter page once passed Pagefind a bare module specifier: it said "Searching…" forever)."""
    assert (site / "pagefind" / "pagefind-ui.js").exists(), "the site was built without its search index (pip install 'pagefind[bin]')"
    src = sorted((site / "src").rglob("*.py.html"))
    assert src, "no local source pages"
    cases = [("mean_classifier.html", "unhinged", "mean_classifier.html"), ("mean_classifier.html", "minimax", "rmboost.html"),
             (str(src[0].relative_to(site)), "breakdown", "archboost.html")]
    failures, opened = [], None
    for page, query, expected in cases:
        if page != opened:  # no need to wait for MathJax: the search box is there once the page has loaded
            assert browser.open(served + page, wait_for_math=False), f"{page} did not load"
            assert browser.wait_for("!!document.querySelector('#rr-search input')", 20), f"{page}: no search box"
            opened = page
        found, message = browser.search(query)
        found = list(dict.fromkeys(map(page_of, found)))
        if expected not in found: failures.append(f"on {page}, '{query}': {found[:8]} (box says {message!r}), expected {expected}")
    assert not failures, "\n".join(failures)


# Wide content, as a reader scrolls it. A box (an element with `data-rr-box`): is it wider than it shows, does it carry
# the fade on its right / left side (site.css's `rr-more-right` / `rr-more-left` and a mask), and where is its last
# column (a table's last cell in its longest row; a formula's math) against the part of the box that shows?
_BOX_STATE = r"""(() => {
  const el = document.querySelector("[data-rr-box]"), s = getComputedStyle(el), box = el.getBoundingClientRect();
  const rows = el.rows ? [...el.rows] : [], row = rows.reduce((a, r) => (!a || r.cells.length > a.cells.length ? r : a), null);
  const last = (row ? row.cells[row.cells.length - 1] : el.querySelector(".MathJax") || el).getBoundingClientRect();
  const left = box.left + el.clientLeft;
  return {scrollWidth: el.scrollWidth, clientWidth: el.clientWidth, cue: [...el.classList].filter(c => c.startsWith("rr-more-")),
          mask: s.maskImage || s.webkitMaskImage || "none", lastLeft: last.left, lastRight: last.right,
          shownLeft: left, shownRight: left + el.clientWidth};
})()"""

# Every box of a page that hides part of its content, and every element wider than the window outside a scrolling box.
_OVERFLOW_REPORT = r"""(() => {
  const main = document.querySelector("main"), vw = document.documentElement.clientWidth;
  const name = e => e.tagName.toLowerCase() + [...e.classList].slice(0, 2).map(c => "." + c).join("");
  const scrolls = e => /auto|scroll/.test(getComputedStyle(e).overflowX);
  const inScroller = e => { for (let p = e.parentElement; p && p !== main; p = p.parentElement) if (scrolls(p)) return true; return false; };
  const clipped = [], uncued = [], wider = [];
  for (const e of main.querySelectorAll("*")) {
    if (!e.getClientRects().length || e.closest(".MathJax")) continue;  // not shown (a closed block); MathJax's own glyph boxes
    if (e.scrollWidth > e.clientWidth + 1) {
      const ox = getComputedStyle(e).overflowX;
      if (/hidden|clip/.test(ox)) clipped.push(`${name(e)} ${e.scrollWidth}/${e.clientWidth} px`);
      else if (/auto|scroll/.test(ox) && !e.classList.contains(e.scrollLeft > 1 ? "rr-more-left" : "rr-more-right"))
        uncued.push(`${name(e)} ${e.scrollWidth}/${e.clientWidth} px`);
    }
    if (e.getBoundingClientRect().right > vw + 1 && !inScroller(e)) wider.push(`${name(e)} to ${Math.round(e.getBoundingClientRect().right)} px`);
  }
  return {pageWidth: document.documentElement.scrollWidth, window: vw, clipped: clipped.slice(0, 4), uncued: uncued.slice(0, 4),
          wider: wider.slice(0, 4), n: [clipped.length, uncued.length, wider.length]};
})()"""

WIDTHS = (1400, 420)  # a desktop window and a phone


def overflow_problems(page: str, r: dict) -> list[str]:
    "What `_OVERFLOW_REPORT` found wrong on `page`: the page wider than the window, content cut off, a box without its cue."
    bad = []
    if r["pageWidth"] > r["window"]: bad.append(f"{page}: the page is {r['pageWidth']} px wide in a {r['window']} px window ({r['n'][2]} elements stick out, e.g. {r['wider']})")
    if r["clipped"]: bad.append(f"{page}: {r['n'][0]} boxes cut their content off, e.g. {r['clipped']}")
    if r["uncued"]: bad.append(f"{page}: {r['n'][1]} scrolling boxes without the fade on the side with more, e.g. {r['uncued']}")
    return bad


def box_problems(browser: Browser, element: str, what: str) -> list[str]:
    """`element` (a JavaScript expression) on the open page, as a reader meets it: wider than it shows, its last column
    hidden and its right side faded; scrolled sideways with the mouse wheel to its end, the last column shows and the
    fade on the right is gone (the one on the left, where there is now more, is there)."""
    if not browser.js(f"(() => {{ const e = {element}; if (!e) return false; document.querySelectorAll('[data-rr-box]')"
                      f".forEach(o => o.removeAttribute('data-rr-box')); e.setAttribute('data-rr-box', ''); return true; }})()"):
        return [f"{what}: not found"]
    bad, before = [], browser.js(_BOX_STATE)
    if before["scrollWidth"] <= before["clientWidth"]:
        return [f"{what}: not scrollable ({before['scrollWidth']} px of content in {before['clientWidth']} px)"]
    if before["lastRight"] <= before["shownRight"] + 1: bad.append(f"{what}: its last column shows before scrolling ({before})")
    if before["cue"] != ["rr-more-right"] or "gradient" not in before["mask"]:
        bad.append(f"{what}: no fade on its right side (classes {before['cue']}, mask {before['mask']})")
    if not browser.scroll_sideways("document.querySelector('[data-rr-box]')"):
        return bad + [f"{what}: the mouse wheel did not scroll it to its end"]
    after = browser.wait_for("(s => s.cue.join() === 'rr-more-left' && s)(" + _BOX_STATE + ")", timeout=5) or browser.js(_BOX_STATE)
    if not (after["shownLeft"] - 1 < after["lastRight"] <= after["shownRight"] + 1):
        bad.append(f"{what}: scrolled to its end, its last column ends at {after['lastRight']:.0f} px, outside the box's "
                   f"{after['shownLeft']:.0f}-{after['shownRight']:.0f} px")
    if after["cue"] != ["rr-more-left"] or "to right" not in after["mask"]:
        bad.append(f"{what}: scrolled to its end, it still fades on the right or not on the left (classes {after['cue']}, mask {after['mask']})")
    return bad


WIDEST = "[...document.querySelectorAll('main {0}')].filter(e => e.getClientRects().length).reduce((a, e) => (!a || e.scrollWidth - e.clientWidth > a.scrollWidth - a.clientWidth ? e : a), null)"


def test_the_wide_content_check_can_fail():
    "The page check reports a page wider than the window, a box that cuts its content off and a scrolling box without its fade."
    fine = {"pageWidth": 405, "window": 405, "clipped": [], "uncued": [], "wider": [], "n": [0, 0, 0]}
    assert overflow_problems("a.html", fine) == []
    assert overflow_problems("a.html", fine | {"pageWidth": 1600, "wider": ["table to 1600 px"], "n": [0, 0, 1]})
    assert overflow_problems("a.html", fine | {"clipped": ["div.jp-InputArea-editor 1491/809 px"], "n": [1, 0, 0]})
    assert overflow_problems("a.html", fine | {"uncued": ["pre 964/343 px"], "n": [0, 1, 0]})


def wide_content_report(browser: Browser) -> dict[int, dict]:
    """`_OVERFLOW_REPORT` of the open page in a window of each of `WIDTHS` (the page as loaded, then made narrower, as
    a reader narrows the window: the layout and the fades follow; MathJax's output does not depend on the width)."""
    out = {}
    for width in WIDTHS:
        browser.resize(width)
        browser.js("new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")  # laid out, fades updated
        out[width] = browser.js(_OVERFLOW_REPORT)
    browser.resize(None)
    browser.js("new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
    return out


def test_no_chapter_page_is_wider_than_the_window(reports):
    """On a desktop (1400 px) and a phone (420 px), every chapter page: no element makes the page wider than the window,
    no box cuts its content off (the lab template's code cells once cut long lines), every box that scrolls fades on
    the side with more to see."""
    chapters = [p for p in map(book.page_name, book.notebooks()) if p in reports]  # all: test_every_page_in_a_browser
    assert len(chapters) > 30, f"only {len(chapters)} chapter pages in the site"
    bad = [f"{width} px, {b}" for page in chapters for width, r in reports[page]["overflow"].items() for b in overflow_problems(page, r)]
    assert not bad, f"{len(bad)} problems with wide content:\n" + "\n".join(f"  {b}" for b in bad)


def test_wide_content_scrolls_in_its_box_with_a_fade(served, browser):
    """Loaded on a desktop (1400 px) and on a phone (420 px): the reproduction page's Table 3 (8 data sets) and its widest
    table, and the RMBoost chapter's widest display formula, scroll sideways inside their box, which fades on the side
    with more to see until scrolled to that end, where the last column shows."""
    targets = {"reproduce_rmboost.html": [("Table 3", "[...document.querySelectorAll('main table')].find(t => t.caption && /^Table 3\\b/.test(t.caption.textContent))"),
                                          ("the widest table", WIDEST.format("table"))],
               "rmboost.html": [("the widest display formula", WIDEST.format(".MathJax_Display"))]}
    bad = []
    try:
        for width in WIDTHS:
            browser.resize(width)
            for page, boxes in targets.items():
                if not browser.open(served + page): bad.append(f"{width} px, {page}: did not load"); continue
                for what, element in boxes:
                    bad += [f"{width} px, {page}: {b}" for b in box_problems(browser, element, what)]
    finally:
        browser.resize(None)
    assert not bad, f"{len(bad)} wide boxes a reader cannot read to the end:\n" + "\n".join(f"  {b}" for b in bad)


# What the reader sees of a page, gathered in one visit after MathJax finished: formulas MathJax marks as errors
# (a parse error, an undefined macro shown in red), the visible text with every collapsed block opened, the prose
# outside code and math, the sidebar's entries and the pager's links.
_PAGE_REPORT = r"""(() => {
  document.querySelectorAll("details").forEach(d => d.open = true);
  const bad = [];
  if (window.MathJax && MathJax.Hub && MathJax.Hub.getAllJax) for (const j of MathJax.Hub.getAllJax()) {
    let err = false;
    const walk = m => { if (!m || err || typeof m !== "object") return;
      if (m.type === "merror" || (m.type === "mtext" && m.mathcolor === "red")) err = true; else (m.data || []).forEach(walk); };
    walk(j.root); if (err) bad.push(j.originalText);
  }
  const domErrors = document.querySelectorAll("mjx-merror, [data-mjx-error], .MathJax .merror, .MathJax .noError, .MathJax_Error").length;
  const prose = [], w = document.createTreeWalker(document.querySelector("main") || document.body, NodeFilter.SHOW_TEXT);
  for (let n; (n = w.nextNode());) {
    const el = n.parentElement;
    if (!el || el.closest("script,style,pre,code,.MathJax,.MathJax_Display,.MathJax_Preview,.jp-InputArea,.rr-src")) continue;
    if (el.checkVisibility && !el.checkVisibility()) continue;
    prose.push(n.nodeValue);
  }
  const nav = [...document.querySelectorAll(".rr-nav a")].filter(a => !a.closest(".rr-brand"))
                .map(a => [a.getAttribute("href"), a.textContent]);
  const pager = [...document.querySelectorAll(".rr-pager a")].map(a => [a.getAttribute("href"), a.textContent]);
  // every theorem box: its id, the number it shows, its title, and the last heading before it outside any box
  const heads = [...document.querySelectorAll("main h1, main h2, main h3, main h4")].filter(h => !h.closest(".rr-thm"));
  const boxes = [...document.querySelectorAll("main .rr-thm")].map(b => {
    const before = heads.filter(h => h.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING);
    return {id: b.id, label: ((b.querySelector(".rr-thm-label") || {}).textContent || "").trim(),
            title: ((b.querySelector(".rr-thm-name") || {}).textContent || "").trim(),
            heading: before.length ? before[before.length - 1].textContent.replace("¶", "").trim() : ""};
  });
  // every image a code cell produced: inside a <figure> with a caption? its alt text?
  const figures = [...document.querySelectorAll("main .jp-OutputArea img")].map(img => {
    const f = img.closest("figure"), cap = f && f.querySelector("figcaption");
    return {alt: img.getAttribute("alt") || "", caption: cap ? cap.textContent.trim() : ""};
  });
  const xrefs = [...document.querySelectorAll("main a.rr-xref")].map(a => [a.getAttribute("href"), a.textContent]);
  return {boxes: boxes, xrefs: xrefs, figures: figures, mathErrors: bad.length || domErrors, mathExamples: bad.slice(0, 3), domErrors: domErrors,
          text: document.body.innerText, prose: prose.join(""), nav: nav,
          next: (pager.find(p => p[1].trim().endsWith("→")) || [null])[0],
          prev: (pager.find(p => p[1].trim().startsWith("←")) || [null])[0]};
})()"""


@pytest.fixture(scope="module")
def reports(site, served, browser) -> dict[str, dict]:
    "Every page of the site (chapters, references, highlighted sources) as the reader sees it: {path: report}."
    pages = sorted(str(p.relative_to(site)) for p in site.rglob("*.html")
                   if "pagefind" not in p.parts and not p.name.startswith("_") and "mathjax" not in p.parts)
    out = {}
    _Quiet.missing.clear()
    for page in pages:
        loaded = browser.open(served + page)
        dom = browser.js("document.documentElement.outerHTML")   # before the report opens the collapsed blocks
        overflow = {} if page.startswith("src/") else wide_content_report(browser)
        out[page] = browser.js(_PAGE_REPORT) | {"loaded": loaded, "dom": dom, "errors": list(browser.errors), "overflow": overflow}
    return out


KINDS = "Theorem|Lemma|Corollary|Proposition|Definition|Algorithm|Conjecture|Example|Exercise"


def numbers_named(text: str, kind: str) -> set[str]:
    "The numbers of `kind` a text names: 'Theorem 2', 'Theorems 2 and 3', 'Lemmas 5–8', 'Corollary 2.1' (MathJax-free text)."
    out = set()
    for m in re.finditer(rf"\b{kind}s?\s+(\d+(?:\.\d+)?(?:\s*(?:,|and|–|-|to)\s*\d+(?:\.\d+)?)*)", text):
        out |= set(re.findall(r"\d+(?:\.\d+)?", m.group(1)))
        for a, b in re.findall(r"(\d+)\s*[–-]\s*(\d+)", m.group(1)): out |= {str(i) for i in range(int(a), int(b) + 1)}
    return out


def theorem_number_problems(reports: dict[str, dict]) -> list[str]:
    """A theorem box whose number differs from the one its title cites ("(van Rooyen et al. 2015, Theorem 1)") or the
    heading above it names ("Theorem 1: the linear loss bounds…"), or a cross-reference whose number differs from its box's."""
    bad, shown = [], {}
    for page, r in reports.items():
        for b in r.get("boxes", []):
            m = re.fullmatch(rf"({KINDS})(?:\s+(\S+))?", b["label"])
            if not m: bad.append(f"{page}#{b['id']}: box label {b['label']!r}"); continue
            kind, n = m.groups()
            shown[(page, b["id"])] = b["label"]
            for where, text in (("its title cites", b["title"]), ("the heading above it names", b["heading"])):
                named = numbers_named(text, kind)
                if named and n not in named:
                    bad.append(f"{page}: box '{b['label']}' ({b['id']}), {where} {kind} {', '.join(sorted(named))}")
    for page, r in reports.items():
        for href, text in r.get("xrefs", []):
            target, _, ident = href.partition("#")
            label = shown.get((target or page, ident))
            if label and not re.match(re.escape(label) + r"(?!\S)", text.replace("\xa0", " ")):
                bad.append(f"{page}: reference '{text}' to {target or page}#{ident}, whose box shows '{label}'")
    return bad


def test_the_theorem_number_check_can_fail():
    "The number check catches a box numbered in reading order under a heading and title with the paper's number."
    box = {"id": "thm-meanclf-1", "label": "Theorem 2", "title": "Surrogate regret bound (van Rooyen et al. 2015, Theorem 1)",
           "heading": "Theorem 1: the linear loss bounds the 0-1 regret"}
    assert len(theorem_number_problems({"m.html": {"boxes": [box], "xrefs": []}})) == 2
    fine = box | {"label": "Theorem 1"}
    assert theorem_number_problems({"m.html": {"boxes": [fine], "xrefs": [["#thm-meanclf-1", "Theorem\xa01"]]}}) == []
    assert theorem_number_problems({"m.html": {"boxes": [fine], "xrefs": []},
                                    "t.html": {"boxes": [], "xrefs": [["m.html#thm-meanclf-1", "Theorem\xa012 (x)"]]}})
    assert numbers_named("Theorem 4, Lemmas 5–8, Corollary 1: consistency", "Lemma") == {"5", "6", "7", "8"}
    assert numbers_named("Lemma 6, Lemma 7, Theorems 2 and 3", "Theorem") == {"2", "3"}


def test_theorem_boxes_carry_the_papers_numbers(reports):
    "In Chromium, on every page: each theorem box shows the number its title and heading use, and so does every reference to it."
    n_boxes = sum(len(r.get("boxes", [])) for r in reports.values())
    assert n_boxes >= 70, f"only {n_boxes} theorem boxes found"
    bad = theorem_number_problems(reports)
    assert not bad, f"{len(bad)} theorem numbers disagree:\n" + "\n".join(f"  {b}" for b in bad)


DEFAULT_ALT = "No description has been provided for this image"


def figure_problems(reports: dict[str, dict], pending: dict[str, int] | None = None) -> list[str]:
    "Figures without a numbered caption ('Figure n: …') or with no / nbconvert's default alt text, page by page."
    bad = []
    for page, r in reports.items():
        figs = r.get("figures", [])
        n_bad = sum(1 for f in figs if not re.match(r"Figure\s\d+:\s*\S", f["caption"]) or not f["alt"].strip()
                    or f["alt"].strip() == DEFAULT_ALT)
        if n_bad > (pending or {}).get(page, 0):
            bad.append(f"{page}: {n_bad} of {len(figs)} figures without a numbered caption and alt text")
    return bad


def test_the_figure_check_can_fail():
    "The figure check catches an uncaptioned figure and nbconvert's default alt text; a captioned one passes."
    good = {"alt": "Two panels of loss curves", "caption": "Figure 1: The margin losses."}
    assert figure_problems({"a.html": {"figures": [good]}}, {}) == []
    assert figure_problems({"a.html": {"figures": [good | {"caption": ""}]}}, {})
    assert figure_problems({"a.html": {"figures": [good | {"alt": DEFAULT_ALT}]}}, {})
    assert figure_problems({"a.html": {"figures": [good | {"alt": DEFAULT_ALT}]}}, {"a.html": 1}) == []


def test_every_figure_has_a_caption_and_alt_text(reports):
    "In Chromium: every figure on every page sits in a <figure> with a numbered caption and alt text of its own."
    n = sum(len(r.get("figures", [])) for r in reports.values())
    assert n >= 40, f"only {n} figures found"
    bad = figure_problems(reports)
    assert not bad, f"{len(bad)} pages with figures a reader cannot identify:\n" + "\n".join(f"  {b}" for b in bad)


def test_no_math_errors_on_any_page(reports):
    "0 formulas that MathJax marks as errors (a red undefined macro such as `\\*`, a parse error) on every page."
    assert len(reports) > 40
    bad = {p: f"{r['mathErrors']} formula(s), e.g. {r['mathExamples']}" for p, r in reports.items() if r["mathErrors"]}
    bad |= {p: "MathJax did not finish" for p, r in reports.items() if not r["loaded"]}
    assert not bad, f"{len(bad)} pages with math errors:\n" + "\n".join(f"  {k}: {v}" for k, v in bad.items())


def test_no_tex_left_in_prose(reports):
    "No TeX command outside math shows in the prose (a BibTeX accent once read 'Dem\\vsar' on the references page)."
    bad = {p: sorted(set(re.findall(r"\w*\\[A-Za-z]+\w*", r["prose"])))[:5] for p, r in reports.items()}
    bad = {p: v for p, v in bad.items() if v}
    assert not bad, f"{len(bad)} pages show TeX outside math:\n" + "\n".join(f"  {k}: {v}" for k, v in bad.items())


def test_bibtex_accents_become_letters():
    bib = book.parse_bib(r"@article{d, author = {Dem{\v{s}}ar, Janez and M\"{u}ller, A. and Erd\H{o}s, P.}, title = {Na\"ive {\'E}t\'e \& co}, year = {2006}}")
    assert bib["d"]["author"] == "Demšar, Janez and Müller, A. and Erdős, P." and bib["d"]["title"] == "Naïve Été & co"
    assert all("\\" not in v for e in book.parse_bib((book.NBS / "references.bib").read_text(encoding="utf-8")).values()
               for v in e.values())


def test_next_and_previous_follow_the_sidebar(reports):
    "Every page's Next is the next sidebar entry and its Previous the one before (not the next notebook number)."
    sidebar = [h for h, _ in reports["index.html"]["nav"]]
    assert len(sidebar) > 30 and sidebar[0] == "index.html"
    bad = []
    for i, page in enumerate(sidebar):
        r = reports[page]
        want_next = sidebar[i + 1] if i + 1 < len(sidebar) else None
        want_prev = sidebar[i - 1] if i else None
        if r["next"] != want_next: bad.append(f"{page}: Next -> {r['next']}, the sidebar's next is {want_next}")
        if r["prev"] != want_prev: bad.append(f"{page}: Previous -> {r['prev']}, the sidebar's previous is {want_prev}")
        if [h for h, _ in r["nav"]] != sidebar: bad.append(f"{page}: its sidebar differs from the home page's")
    assert not bad, f"{len(bad)} navigation links disagree with the sidebar:\n" + "\n".join(f"  {b}" for b in bad)


def test_the_table_of_contents_lists_every_notebook_once():
    "nbs/sidebar.yml (a Quarto book's chapters; the sidebar and pager of both renderers) lists every notebook once, and nothing else."
    import yaml
    assert "chapters" in yaml.safe_load((book.NBS / book.TOC_FILE).read_text(encoding="utf-8"))["book"]
    listed = [nb for _, nbs in book.toc() for nb in nbs]
    assert sorted(listed) == sorted(nb.name for nb in book.notebooks()), (
        f"missing: {sorted({nb.name for nb in book.notebooks()} - set(listed))}, extra: {sorted(set(listed) - {nb.name for nb in book.notebooks()})}")
    assert len(listed) == len(set(listed)), "a notebook is listed twice"


# A path of the machine that built the site, and words about how the book was made, mean nothing to a reader. The
# words are those that told of the making (a record "run in two sittings", "cut off by a session end", "the mutations
# the issue lists"); "sitting at F*" and the rows an LP constraint "cuts off" are the book's own prose.
BUILD_PATH = re.compile(r"(?:/work/|/tmp/|/home/\w|/root/|site-packages|\.venv/|/usr/lib/python)")
PROCESS_WORDS = re.compile(r"\b(?:issue #?\d+|the issue (?:lists|asks|says)|tickets?|sessions?|sittings|"
                           r"(?:one|two|three|first|second|earlier|another|a) sitting\b|cut off by|cut (?:it|them) off)", re.I)


def test_no_build_paths_or_process_words(reports):
    "No page shows a build-machine path (a warning printing .venv/lib/...) or words about how the book was developed."
    bad = {}
    for page, r in reports.items():
        hits = [m.group(0) for m in PROCESS_WORDS.finditer(r["text"])]
        if not page.startswith("src/"):  # the library's own source is shown as it is
            hits += [m.group(0) for m in BUILD_PATH.finditer(r["text"])]
        if hits: bad[page] = sorted(set(hits))[:6]
    assert not bad, f"{len(bad)} pages show build paths or process words:\n" + "\n".join(f"  {k}: {v}" for k, v in bad.items())


def test_the_noise_patterns_find_what_they_are_for():
    "The patterns above catch the noise once shown, and leave the book's own prose alone."
    for noisy in ["/work/wt36/.venv/lib/python3.11/site-packages/tqdm/auto.py:21: TqdmWarning", "8 tasks in /tmp/tmp9wmz9kqf/res",
                  "Run in two sittings on 2 cores", "cut off by a session end", "the mutations the issue lists"]:
        assert BUILD_PATH.search(noisy) or PROCESS_WORDS.search(noisy), noisy
    for prose in ["a point with label -1, sitting at F*", "the dual simplex repairs whatever the new rows cut off",
                  "the regression builder only when a regression tree is first asked for"]:
        assert not (BUILD_PATH.search(prose) or PROCESS_WORDS.search(prose)), prose


def test_sidebar_titles_show_no_markup(reports):
    "Chapter titles in the sidebar, pager and page headings show no raw Markdown (a title in backticks)."
    bad = sorted({t for r in reports.values() for _, t in r["nav"] if "`" in t})
    assert not bad, f"sidebar titles with raw backticks: {bad}"


DOUBLED_CITATION = re.compile(r"\(\s*\(\s*[^\W\d][^()\d]{0,80}\b(?:1[89]|20)\d\d\b")  # "((van Rooyen et al. 2015"


def test_citations_are_not_doubly_parenthesised(reports):
    "A citation renders one pair of parentheses: never '((van Rooyen et al. 2015))' (a `([@key])` in the markdown)."
    assert DOUBLED_CITATION.search("the 0-1 regret ((van Rooyen et al. 2015, Theorem 1): 0-1 regret ≤ linear regret)")
    assert DOUBLED_CITATION.search("((Mazuelas & Álvarez 2025; Sypherd et al. 2023; Wilton & Ye 2024; van Rooyen et al. 2015; Li & Bradic 2018))")
    assert not DOUBLED_CITATION.search("f((1, 2015)) and (see (Breiman 2001))")
    bad = {p: re.findall(DOUBLED_CITATION, r["text"])[:3] for p, r in reports.items()}
    bad = {p: v for p, v in bad.items() if v}
    assert not bad, f"{len(bad)} pages with doubled parentheses:\n" + "\n".join(f"  {k}: {v}" for k, v in bad.items())


PAPER_CHAPTER_PAGES = ("rmboost.html", "alpha_loss.html", "robust_trees.html", "mean_classifier.html", "archboost.html")


def fold_problems(reports: dict[str, dict], pages=PAPER_CHAPTER_PAGES) -> list[str]:
    "Paper chapters whose exercises lack at least two worked solutions folded (closed) under 'Solution to Exercise n'."
    bad = []
    for page in pages:
        dom = reports.get(page, {}).get("dom", "")
        folds = re.findall(r'<details class="rr-fold[^"]*"([^>]*)><summary>Solution to Exercise (\d+)</summary>(.*?)</details>', dom, flags=re.S)
        if len(folds) < 2: bad.append(f"{page}: {len(folds)} folded solutions")
        bad += [f"{page}: the solution to Exercise {n} is open" for attrs, n, _ in folds if "open" in attrs]
        bad += [f"{page}: the solution to Exercise {n} shows no code" for _, n, code in folds if "assert" not in code]
        if "#| code-fold" in dom: bad.append(f"{page}: a raw '#| code-fold' option is shown")
    return bad


def test_the_fold_check_can_fail():
    sol = '<details class="rr-fold code-fold"><summary>Solution to Exercise {n}</summary><pre>assert x</pre></details>'
    good = {"a.html": {"dom": sol.format(n=1) + sol.format(n=2)}}
    assert fold_problems(good, ("a.html",)) == []
    assert fold_problems({"a.html": {"dom": sol.format(n=1)}}, ("a.html",))                                  # one only
    assert fold_problems({"a.html": {"dom": sol.format(n=1).replace('"rr-fold code-fold"', '"rr-fold code-fold" open') + sol.format(n=2)}}, ("a.html",))
    assert fold_problems({"a.html": {"dom": "<pre>#| code-fold: true\nassert x</pre>" + sol.format(n=1) + sol.format(n=2)}}, ("a.html",))


def test_exercise_solutions_are_folded_and_open_on_a_click(reports, served, browser):
    "Every paper chapter shows its worked solutions closed under their exercises; a reader's click opens one and shows its code."
    bad = fold_problems(reports)
    assert not bad, "\n".join(bad)
    assert browser.open(served + "rmboost.html")
    first = "document.querySelector('details.rr-fold')"
    assert browser.js(f"{first}.open") is False and browser.js(f"{first}.getBoundingClientRect().height") < 60
    browser.js(f"{first}.querySelector('summary').click()")
    assert browser.wait_for(f"{first}.open", timeout=5)
    shown = browser.js(f"{first}.innerText")
    assert "assert" in shown and browser.js(f"{first}.getBoundingClientRect().height") > 100
