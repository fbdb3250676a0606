"""The shape of the package and of the chapters a student reads: no module over ~1,000 lines (except nbdev's index
`_modidx.py` and the compiled tree builder), no exported cell over 60 lines outside numba kernels."""
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_MODULE_LINES, MAX_CELL_LINES = 1000, 60
EXEMPT_MODULES = {"_modidx.py", "tree_builder.py"}


def module_sizes() -> dict:
    "Lines of every module of the package, by path relative to the package."
    pkg = ROOT / "robust_ref"
    return {str(p.relative_to(pkg)): len(p.read_text(encoding="utf-8").splitlines()) for p in pkg.rglob("*.py")}


def long_exported_cells(limit: int = MAX_CELL_LINES) -> list:
    "(notebook, cell id, lines) of every exported code cell longer than `limit` lines that is not a numba kernel."
    out = []
    for nb in sorted((ROOT / "nbs").glob("*.ipynb")):
        for c in json.loads(nb.read_text(encoding="utf-8"))["cells"]:
            src = "".join(c["source"])
            if c["cell_type"] != "code" or not re.match(r"#\|\s*export", src): continue
            if re.search(r"^@(numba\.)?(njit|jit)\b", src, flags=re.M): continue   # compiled kernels stay whole
            n = len(src.splitlines())
            if n > limit: out.append((nb.name, c.get("id"), n))
    return out


def test_no_module_over_a_thousand_lines():
    big = {m: n for m, n in module_sizes().items() if n > MAX_MODULE_LINES and Path(m).name not in EXEMPT_MODULES}
    assert not big, f"modules over {MAX_MODULE_LINES} lines: {big}"


def test_no_exported_cell_over_sixty_lines():
    long = long_exported_cells()
    assert not long, f"{len(long)} exported cells over {MAX_CELL_LINES} lines (split with @patch): {long}"


def test_the_limits_can_fail():
    "The scans see what they should: a limit of 10 lines finds long cells, and the package's largest module is counted."
    assert len(long_exported_cells(10)) > 20
    assert max(module_sizes().values()) > MAX_MODULE_LINES   # _modidx.py at least
