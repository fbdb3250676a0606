"""Project hygiene: notebooks are the source (export in sync, clean), papermill tags survive, README is true."""
import filecmp
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def _copy_project(dst: Path) -> Path:
    for name in ["settings.ini", "setup.py", "pyproject.toml"]: shutil.copy(ROOT / name, dst / name)
    shutil.copytree(ROOT / "nbs", dst / "nbs", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    shutil.copytree(ROOT / "robust_ref", dst / "robust_ref", ignore=shutil.ignore_patterns("__pycache__"))
    return dst


def test_export_is_in_sync(tmp_path):
    "nbdev_export on the committed notebooks leaves the committed modules byte-identical."
    proj = _copy_project(tmp_path)
    subprocess.run([BIN / "nbdev_export"], cwd=proj, check=True, capture_output=True)
    mods = sorted(p.relative_to(ROOT) for p in (ROOT / "robust_ref").rglob("*.py"))
    new = sorted(p.relative_to(proj) for p in (proj / "robust_ref").rglob("*.py"))
    assert mods == new, f"export creates/removes modules: {set(mods) ^ set(new)}"
    stale = [str(m) for m in mods if not filecmp.cmp(ROOT / m, proj / m, shallow=False)]
    assert not stale, f"run nbdev_export and commit: out of sync {stale}"


def test_nbdev_clean_leaves_notebooks_unchanged(tmp_path):
    proj = _copy_project(tmp_path)
    subprocess.run([BIN / "nbdev_clean"], cwd=proj, check=True, capture_output=True)
    dirty = [p.name for p in (ROOT / "nbs").glob("*.ipynb")
             if p.read_bytes() != (proj / "nbs" / p.name).read_bytes()]
    assert not dirty, f"run nbdev_clean and commit: {dirty}"


def test_parameters_tag_survives_nbdev_clean(tmp_path):
    "Without allowed_cell_metadata_keys = tags, nbdev_clean strips the tag and papermill -p is silently ignored."
    proj = _copy_project(tmp_path)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("full = False", metadata={"tags": ["parameters"]})])
    nb.metadata["kernelspec"] = {"display_name": "python3", "language": "python", "name": "python3"}
    target = proj / "nbs" / "zz_tagcheck.ipynb"
    nbformat.write(nb, target)
    subprocess.run([BIN / "nbdev_clean", "--fname", str(target)], cwd=proj, check=True, capture_output=True)
    assert nbformat.read(target, as_version=4).cells[0].metadata.get("tags") == ["parameters"]
    for p in (ROOT / "nbs").glob("*.ipynb"):  # and in the committed notebooks that declare parameters
        src = p.read_text()
        if "full = " in src and "parameters" not in src:
            pytest.fail(f"{p.name} seems to have lost its parameters tag")


def _readme():
    return (ROOT / "README.md").read_text()


def test_readme_gives_exactly_two_commands():
    "README's fresh-machine section: one command for the book + site, one for the tests, and nothing else."
    block = re.search(r"## On a fresh machine.*?```(?:bash|sh)?\n(.*?)```", _readme(), flags=re.S)
    assert block, "README needs a '## On a fresh machine' section with a code block"
    cmds = [l for l in block.group(1).splitlines() if l.strip() and not l.strip().startswith("#")]
    assert cmds == ["make book", "make test"], cmds
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^make test$", ci, flags=re.M), ".ci/run must call the README test command"
    mk = (ROOT / "Makefile").read_text()
    assert re.search(r"^book:", mk, flags=re.M) and re.search(r"^test:", mk, flags=re.M)


def test_readme_quick_start_runs(tmp_path):
    "The quick start in README.md is executed as written (in a fresh interpreter, outside the repo): one method per paper and a baseline."
    m = re.search(r"## Quick start.*?```python\n(.*?)```", _readme(), flags=re.S)
    assert m, "README needs a '## Quick start' section with a python block"
    code = m.group(1)
    assert len(code.strip().splitlines()) <= 20
    for cls in ("RMBoostClassifier", "AdaBoostAlpha", "RobustForestClassifier", "MeanClassifier", "ARBGamma", "AdaBoostClassifier"):
        assert f"{cls}(" in code, f"the quick start should fit {cls}"
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    rows = [l.rsplit(None, 1) for l in r.stdout.strip().splitlines()]
    assert [name for name, _ in rows] == ["AdaBoost (baseline)", "RMBoost", "AdaBoost.α", "robust forest", "ARB-γ", "mean classifier"]
    majority = 0.651   # diabetes: 500 of 768 negative
    assert all(majority < float(acc) <= 1 for _, acc in rows), r.stdout   # every method learns something under 20% noise


def test_readme_grid_example_is_a_valid_grid(tmp_path):
    "The grid file shown in README.md reads as a grid (its keys and method parameters are validated)."
    from robust_ref.experiments import read_grid
    m = re.search(r"## From the shell.*?```toml\n(.*?)```", _readme(), flags=re.S)
    assert m, "README needs a grid example in its 'From the shell' section"
    (tmp_path / "demo.toml").write_text(m.group(1))
    g = read_grid(tmp_path / "demo.toml")
    assert list(g.methods) == ["adaboost", "rmboost", "alpha4"] and len(g) == 2 * (1 + 2) * 3 * 3


def test_pins_in_settings():
    ini = (ROOT / "settings.ini").read_text()
    for pin in ["nbdev==2.4.14", "execnb==0.1.18", "fastcore==1.12.4"]: assert pin in ini
    assert re.search(r"^allowed_cell_metadata_keys\s*=\s*tags", ini, flags=re.M)


def test_imports_live_in_cells_of_their_own():
    "nbdev's docs processor re-runs every cell containing an import; mixed cells break the docs build."
    import ast
    bad = []
    for p in sorted((ROOT / "nbs").glob("*.ipynb")):
        for i, c in enumerate(nbformat.read(p, as_version=4).cells):
            if c.cell_type != "code" or re.search(r"^#\|\s*(export|exports|exporti|hide)\b", c.source, flags=re.M):
                continue
            try: body = ast.parse(c.source).body
            except SyntaxError: continue
            kinds = {isinstance(s, (ast.Import, ast.ImportFrom)) for s in body}
            if kinds == {True, False}: bad.append(f"{p.name} cell {i}")
    assert not bad, f"split imports into their own cells (python tools/nbtool.py split-imports NB): {bad}"


# the working notes' vocabulary, spelled so this file does not match itself
WORKING_NOTES = ["spec " + "§", "seed " + "00", "shared/" + "papers", "papers/" + "seeds", "the " + "spec's"]


def _leaks(text: str) -> list:
    return [w for w in WORKING_NOTES if w in text]


def test_no_working_notes_in_the_sources():
    "The book's pages are checked in the browser test; the code, tests, benchmarks and tools cite the papers too, never the working notes."
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    src = [f for f in tracked if f.endswith((".py", ".ipynb", ".md", ".toml", ".ini", ".cfg")) and not f.startswith("record/")]
    assert len(src) > 100, len(src)
    bad = {f: _leaks((ROOT / f).read_text(encoding="utf-8")) for f in src}
    bad = {f: w for f, w in bad.items() if w}
    assert not bad, f"{len(bad)} files cite the working notes instead of the papers: {bad}"
    assert _leaks("as in spec " + "§3.1") and _leaks("(seed " + "004)") and not _leaks("Mazuelas & Álvarez (2025), §3")
