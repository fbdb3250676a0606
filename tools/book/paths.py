"""Where the book lives and in which order it is read: the notebooks, their pages, the table of contents."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
NBS, RUN, DOCS = ROOT / "nbs", ROOT / "_run", ROOT / "_docs"
TOC_FILE = "sidebar.yml"  # nbs/sidebar.yml: the table of contents, as data both renderers read


def notebooks() -> list[Path]:
    "The book's notebooks in reading order (nbdev skips names starting with `_`, and so do we)."
    return sorted(p for p in NBS.glob("*.ipynb") if not p.name.startswith(("_", ".")))


def page_name(nb: Path) -> str:
    "nbdev's page naming: `00_core.ipynb` -> `core.html`, `index.ipynb` -> `index.html`."
    return re.sub(r"^\d+[a-z]?\d*_", "", nb.stem) + ".html"


def _settings() -> dict:
    import configparser
    cp = configparser.ConfigParser(); cp.read(ROOT / "settings.ini")
    return dict(cp["DEFAULT"])


def toc(nbs: Path | None = None) -> list[tuple[str, list[str]]]:
    """The table of contents from nbs/sidebar.yml: [(part, [notebook file names])] in reading order; a top-level entry
    (the home page) has the part "". The sidebar and the previous/next links of both renderers follow it. Written as a
    Quarto book's `book: chapters:` (`- part: Foundations` with its `chapters:`); a website's `website: sidebar:
    contents:` (`- section:` with `contents:`) is read too."""
    import yaml
    data = yaml.safe_load(((nbs or NBS) / TOC_FILE).read_text(encoding="utf-8")) or {}
    items = data.get("book", {}).get("chapters") or data.get("website", {}).get("sidebar", {}).get("contents", [])
    out: list[tuple[str, list[str]]] = []
    for item in items:
        if isinstance(item, str): out.append(("", [item]))
        elif isinstance(item, dict) and ("part" in item or "section" in item):
            entries = item.get("chapters", item.get("contents", []))
            out.append((item.get("part", item.get("section")), [c if isinstance(c, str) else c.get("href", "") for c in entries]))
    return out


def in_reading_order(names: list[str]) -> list[tuple[str, str]]:
    "(notebook file name, section) in the table of contents' order; notebooks it does not list come last, under 'More'."
    listed = [(nb, sec) for sec, nbs in (toc() if (NBS / TOC_FILE).exists() else []) for nb in nbs if nb in names]
    seen = {nb for nb, _ in listed}
    return listed + [(n, "More") for n in names if n not in seen]
