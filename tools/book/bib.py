"""A small BibTeX reader for nbs/references.bib: entries, author-year labels, formatted references."""
from __future__ import annotations

import html
import re

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
