"""The Quarto subset the chapters are written in, as HTML inside markdown: theorem blocks, proofs, remarks, callouts,
cross-references (`@thm-…`) and citations (`[@key]`).

Theorem numbers are the papers'. A chapter restates a paper's Lemma 5 as Lemma 5, so its heading, its check and the
prose all say "Lemma 5"; a box numbered in reading order (Quarto's default: the chapter's first lemma is Lemma 1)
would contradict them. The number is therefore written on the block, as a Pandoc attribute both renderers accept:

    ::: {#lem-rmboost-5 number="5"}
    ## Strong duality of the inner maximisation [@mazuelas2025rmboost, Lemma 5]

This renderer shows `number` on the box ("Lemma 5") and in every cross-reference to it; a reference from another
page also names the paper the number belongs to ("Lemma 5 (Mazuelas & Álvarez 2025)"): the work of the citation in
the box's title that carries the number. A block without `number` (a definition of the book's own) is unnumbered.
Quarto numbers its blocks itself and cannot be told a number; nbs/_filters/paper-numbers.lua (a Lua filter that
_quarto.yml runs) hands it `number` so that Quarto's box and references show the paper's number too, and renders the
same under plain pandoc. The tests check that `number` equals the number the title cites.
"""
from __future__ import annotations

import html
import re

from .bib import cite_label

THEOREM_KINDS = {"thm": "Theorem", "lem": "Lemma", "cor": "Corollary", "prp": "Proposition", "def": "Definition",
                 "cnj": "Conjecture", "exm": "Example", "exr": "Exercise", "alg": "Algorithm"}
CALLOUT_TITLES = {"note": "Note", "warning": "Warning", "tip": "Tip", "important": "Important", "caution": "Caution"}
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


def _pipes_in_table_math(text: str) -> str:
    "In a pipe-table row, a `|` inside `$…$` would split the cell: write it as `\\vert` (what it means there)."
    def row(line):
        if not line.lstrip().startswith("|"): return line
        return re.sub(r"(?<![\\$])\$[^$\n]+?\$", lambda m: m.group(0).replace("\\|", "\\Vert ").replace("|", "\\vert "), line)
    return "\n".join(row(l) for l in text.split("\n"))


def title_html(title: str) -> str:
    "A page title as HTML: Markdown code spans (`robust-ref`) in code font, never shown as raw backticks."
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(title))


def title_text(title: str) -> str:
    "A page title as plain text (for <title>): Markdown code spans lose their backticks."
    return re.sub(r"`([^`]+)`", r"\1", title)


def block_title(lines: list[str], j: int, kv: dict) -> tuple[str | None, int | None]:
    "A fenced block's title: a `## Title` line right after the fence (Quarto's convention, and its line), else `title=`."
    while j < len(lines) and not lines[j].strip(): j += 1
    if j < len(lines) and re.match(r"^#{1,6}\s", lines[j].strip()):
        return re.sub(r"^#{1,6}\s+", "", lines[j].strip()), j
    return kv.get("title") or kv.get("name"), None


class Book:
    "What the transforms need across pages: theorem labels, the bibliography, and what went unresolved."
    def __init__(self, bib: dict[str, dict]):
        self.bib, self.labels, self.titles = bib, {}, {}
        self.missing: dict[str, set[str]] = {}
        self.cited: set[str] = set()

    def index_page(self, page: str, title: str, markdown: list[str]):
        "Label the theorem blocks of one page: kind, the paper's number (the `number` attribute) and the paper's name."
        self.titles[page] = title
        for text in markdown:
            lines = text.splitlines()
            for i, line in enumerate(lines):
                m = _OPEN.match(line.strip())
                if not m: continue
                ident, _, kv = _attrs(m.group(2))
                kind = ident.split("-", 1)[0] if ident else None
                if kind in THEOREM_KINDS:
                    self.labels[ident] = (page, THEOREM_KINDS[kind], kv.get("number"),
                                          self.paper_of(block_title(lines, i + 1, kv)[0] or ""))

    def paper_of(self, title: str) -> str | None:
        "The work a box's title cites for its number (`[@a; @b, Algorithm 1]` -> b's label); else its first work."
        items = [m for inner in _CITE.findall(title) for item in inner.split(";")
                 if (m := re.match(r"\s*-?@([\w:.-]*\w)\s*,?\s*(.*)$", item.strip(), flags=re.S)) and m.group(1) in self.bib]
        pick = next((m for m in items if re.search(r"\d", m.group(2))), items[0] if items else None)
        return cite_label(self.bib[pick.group(1)]) if pick else None

    # ---- inline: citations and cross-references
    def _miss(self, page, what):
        self.missing.setdefault(page, set()).add(what)

    def xref(self, label: str, page: str) -> str:
        if label not in self.labels:
            self._miss(page, "@" + label)
            return f'<span class="rr-missing">?@{html.escape(label)}</span>'
        p, kind, n, paper = self.labels[label]
        where = "" if p == page else f" ({html.escape(paper) if paper else title_html(self.titles.get(p, p))})"
        return f'<a class="rr-xref" href="{"" if p == page else p}#{label}">{kind}{"&nbsp;" + n if n else ""}{where}</a>'

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
                title, j = block_title(lines, i + 1, kv)
                if j is not None: i = j
                kind = ident.split("-", 1)[0] if ident else None
                if kind in THEOREM_KINDS:
                    p, name, n, _ = self.labels[ident]
                    head = f'<a class="rr-thm-label" href="#{ident}">{name}{" " + n if n else ""}</a>'
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
