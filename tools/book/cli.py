"""The command line `make book` uses (`python tools/book run|site|all`)."""
from __future__ import annotations

import argparse
import os
import sys
import time

from . import __doc__ as DOC
from .paths import DOCS
from .quarto_render import build_quarto
from .run import run_all
from .website import build_site


def main(argv=None):
    import shutil
    ap = argparse.ArgumentParser(description=DOC, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["run", "site", "all"])
    ap.add_argument("notebooks", nargs="*", help="notebook names (default: all)")
    ap.add_argument("--full", action="store_true", help="pass full=True to notebooks that declare it (paper-size runs)")
    ap.add_argument("--offline", action="store_true", help="build the offline site even where a quarto binary exists")
    ap.add_argument("--remote", default=os.environ.get("ROBUST_REF_REMOTE"),
                    help="link sources to this repository URL instead of local copies (default: $ROBUST_REF_REMOTE)")
    a = ap.parse_args(argv)
    t0, failed = time.time(), []
    if a.what in ("run", "all"):
        failed = [r for r in run_all(a.notebooks or None, full=a.full) if r[2] != "ok"]
    if a.what in ("site", "all"):
        if shutil.which("quarto") and not a.offline:
            print("quarto found on PATH: rendering the Quarto site from the executed notebooks ...", flush=True)
            build_quarto()
            print(f"Quarto site built into {DOCS}/ in {time.time() - t0:.0f} s (total).")
        else:
            print("No quarto binary on PATH: building the offline site (pip install quarto-cli, with internet, "
                  "gives the Quarto one) ...", flush=True)
            pages = build_site(remote=a.remote)
            n_html = sum(1 for _ in DOCS.rglob("*.html"))
            size = sum(f.stat().st_size for f in DOCS.rglob("*") if f.is_file())
            print(f"Built the offline site: {len(pages)} chapter pages ({n_html} HTML files with references and "
                  f"sources, {size / 1e6:.1f} MB) into {DOCS}/ in {time.time() - t0:.0f} s (total).")
        print(f"Serve it (search needs http):\n"
              f"  python -m http.server -d {DOCS} 8000 --bind 127.0.0.1   # then visit http://127.0.0.1:8000/")
    if failed:
        print("Notebooks that failed:", ", ".join(r[0] for r in failed), file=sys.stderr)
        sys.exit(1)
