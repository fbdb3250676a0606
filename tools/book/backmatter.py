"""The back matter besides the bibliography: how to cite (from CITATION.cff), the licence (LICENSE), the changelog
(CHANGELOG.md) and the execution status of every notebook, made from the run whose executed copies built the site
(`tools/nbtest.py` leaves `.<notebook>.nbdev_test.json` next to each copy: result, seconds, time finished)."""
from __future__ import annotations

import html
import json
import shutil
import time
from pathlib import Path

from . import paths
from .shell import page_shell

ENGINES = ("nbdev_test", "papermill")  # tools/nbtest.py (make test) and tools/book run (make book) leave these
BACK_MATTER = [("citing.html", "How to cite"), ("status.html", "Execution status"), ("license.html", "Licence"),
               ("changelog.html", "Changelog")]


def _markdown(text: str) -> str:
    from nbconvert.filters.markdown_mistune import markdown2html_mistune
    return markdown2html_mistune(text)


def _write(out_dir: Path, name: str, title: str, desc: str, body: str, pages) -> Path:
    out = out_dir / name
    out.write_text(page_shell(title, desc, f'<div class="jp-RenderedHTMLCommon">{body}</div>', name, pages, ""),
                   encoding="utf-8")
    return out


def status_rows(run_dir: Path, notebooks: list[str]) -> list[dict]:
    "One row per notebook (reading order): its page, result, seconds and when its run finished (UTC)."
    rows = []
    for nb in notebooks:
        runs = [(f, engine) for engine in ENGINES if (f := run_dir / f".{Path(nb).stem}.{engine}.json").exists()]
        f, engine = max(runs, key=lambda r: r[0].stat().st_mtime) if runs else (None, None)  # the run that left the copy
        rec = json.loads(f.read_text()) if f else None
        finished = (rec.get("finished") or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(f.stat().st_mtime))) if rec else None
        rows.append({"notebook": nb, "page": paths.page_name(Path(nb)), "ok": rec["ok"] if rec else None, "engine": engine,
                     "seconds": rec.get("seconds") if rec else None, "finished": finished})
    return rows


def write_status(out_dir: Path, run_dir: Path, notebooks: list[str], titles: dict[str, str], pages) -> Path:
    rows = status_rows(run_dir, notebooks)
    done = [r for r in rows if r["ok"] is not None]
    passed = sum(1 for r in done if r["ok"])
    total = sum(r["seconds"] or 0 for r in done)
    def result(r):
        return "not recorded" if r["ok"] is None else "passed" if r["ok"] else '<span class="rr-fail">failed</span>'
    body = "".join(
        f'<tr><td><a href="{r["page"]}">{html.escape(titles.get(r["page"], r["notebook"]))}</a></td>'
        f'<td><code>{html.escape(r["notebook"])}</code></td><td>{result(r)}</td><td>{r["engine"] or ""}</td>'
        f'<td style="text-align:right">{"" if r["seconds"] is None else format(r["seconds"], ".1f")}</td>'
        f'<td>{html.escape((r["finished"] or "").replace("T", " ").replace("Z", " UTC"))}</td></tr>' for r in rows)
    lead = (f"<p>The pages of this site were rendered from the notebooks as executed in the run below, by nbdev's "
            f"<code>nbdev_test</code> (the tests) or papermill (<code>make book</code>): every cell and every check of "
            f"a notebook runs, and the first error fails it. <strong>{passed} of {len(rows)} notebooks passed</strong>"
            + (f", {len(done) - passed} failed" if len(done) > passed else "")
            + (f", {len(rows) - len(done)} without a record" if len(rows) > len(done) else "")
            + f"; {total:,.0f} s of execution in all. Times are those of the machine that built the site.</p>")
    table = (f'<table class="rr-status"><thead><tr><th>Page</th><th>Notebook</th><th>Result</th><th>Run by</th><th>Seconds</th>'
             f'<th>Finished</th></tr></thead><tbody>{body}</tbody></table>')
    return _write(out_dir, "status.html", "Execution status", "Every notebook of the book, as executed for this site",
                  lead + table, pages)


def write_citation(out_dir: Path, pages) -> Path | None:
    "How to cite: the software entry of CITATION.cff as text and BibTeX, and the papers it asks to cite with it."
    import yaml
    cff_path = paths.ROOT / "CITATION.cff"
    if not cff_path.exists(): return None
    cff = yaml.safe_load(cff_path.read_text(encoding="utf-8"))
    shutil.copy2(cff_path, out_dir / "CITATION.cff")
    who = " and ".join(a.get("name") or f'{a.get("family-names", "")}, {a.get("given-names", "")}' for a in cff["authors"])
    year = time.strftime("%Y")
    bibtex = (f"@software{{robust_ref,\n  author  = {{{{{who}}}}},\n  title   = {{{{{cff['title']}}}}},\n"
              f"  version = {{{cff.get('version', '')}}},\n  year    = {{{year}}},\n  license = {{{cff.get('license', '')}}},\n"
              f"  url     = {{{cff.get('repository-code', cff.get('url', ''))}}}\n}}")
    def ref(r):
        names = ", ".join(f'{a.get("given-names", "")} {a.get("family-names", "")}'.strip() for a in r.get("authors", []))
        venue = r.get("collection-title") or r.get("journal") or ""
        ident = f' doi:{r["doi"]}' if r.get("doi") else "".join(f' {i["value"]}' for i in r.get("identifiers", []))
        return (f"<li>{html.escape(names)} ({r.get('year', '')}). {html.escape(r['title'])}. <em>{html.escape(venue)}</em>."
                f"{html.escape(ident)}</li>")
    body = (f"<p>{html.escape(cff['message'])}</p>"
            f"<h2 id=\"the-software\">The library and the book</h2>"
            f"<p>{html.escape(who)} ({year}). <em>{html.escape(cff['title'])}</em>, version {html.escape(str(cff.get('version', '')))}. "
            f"{html.escape(cff.get('license', ''))}. {html.escape(cff.get('repository-code', ''))}</p>"
            f"<pre><code>{html.escape(bibtex)}</code></pre>"
            f'<p>The same in the Citation File Format: <a href="CITATION.cff" download>CITATION.cff</a> '
            f"(what GitHub's \"Cite this repository\" reads).</p>"
            f"<h2 id=\"the-papers\">The papers</h2><p>Each chapter implements one paper; cite the paper whose method or "
            f"result you use (BibTeX entries in the <a href=\"references.html\">references</a>).</p>"
            f"<ol>{''.join(ref(r) for r in cff.get('references', []))}</ol>")
    return _write(out_dir, "citing.html", "How to cite", "The library, the book and the papers they implement", body, pages)


def write_license(out_dir: Path, pages) -> Path | None:
    lic = paths.ROOT / "LICENSE"
    if not lic.exists(): return None
    spdx = {"apache2": "Apache-2.0"}.get(paths._settings().get("license", ""), "")
    body = (f"<p>robust_ref, its notebooks and this book are licensed under the <strong>{spdx or 'licence below'}"
            f"</strong> licence. The benchmark data sets shipped with the library keep their own licences and "
            f"provenance, listed in <code>robust_ref/data/README.md</code>; the published tables transcribed from the "
            f"papers are cited to their sources.</p><pre>{html.escape(lic.read_text(encoding='utf-8'))}</pre>")
    return _write(out_dir, "license.html", "Licence", spdx, body, pages)


def write_changelog(out_dir: Path, pages) -> Path | None:
    log = paths.ROOT / "CHANGELOG.md"
    if not log.exists(): return None
    text = log.read_text(encoding="utf-8")
    text = text.split("\n", 1)[1] if text.startswith("# ") else text  # the page frame shows the title
    return _write(out_dir, "changelog.html", "Changelog", "What changed, release by release", _markdown(text), pages)


def write_back_matter(out_dir: Path, run_dir: Path, notebooks: list[str], titles: dict[str, str], pages) -> list[Path]:
    return [p for p in (write_citation(out_dir, pages), write_status(out_dir, run_dir, notebooks, titles, pages),
                        write_license(out_dir, pages), write_changelog(out_dir, pages)) if p]
