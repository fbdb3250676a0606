"""One paper, one place: every `check_<paper>_*` of `robust_ref.theory` is defined in its paper's chapter (a notebook
of the paper's number, named by nbdev's cell marker above it in the exported module), registered once with
`register_check`, and the apparatus (page 07, `robust_ref.checks`) defines no batch registry besides the one `CHECKS`."""
import ast
import re
from pathlib import Path

import pytest

from robust_ref import theory as th

ROOT = Path(__file__).resolve().parent.parent
MODULES = [ROOT / "robust_ref" / "checks.py", *sorted((ROOT / "robust_ref" / "theory").glob("*.py"))]
NUMBER = {"rmboost": "10", "alpha": "20", "trees": "30", "meanclf": "40", "archboost": "50"}


def _papers_notebook(key: str, nb: str | None) -> bool:
    "Is `nb` one of the paper's chapter notebooks (`10_rmboost.ipynb`, `10a_rmboost_theorems.ipynb`, ...)?"
    return bool(nb and re.match(NUMBER[key] + r"[a-z]?_", nb))


def _top_level_by_notebook():
    "(name, notebook, node) of every top-level statement of the check modules, with the notebook it came from."
    return [t for module in MODULES for t in _top_level_of(module)]


def _top_level_of(module: Path):
    text = module.read_text(encoding="utf-8")
    marks = [(m.start(), m.group(1)) for m in re.finditer(r"^# %% (?:\.\./)+nbs/(\S+\.ipynb) #\w+$", text, flags=re.M)]
    line_nb, k = {}, 0
    offsets = [0]
    for line in text.splitlines(keepends=True): offsets.append(offsets[-1] + len(line))
    out = []
    for node in ast.parse(text).body:
        pos = offsets[node.lineno - 1]
        nb = max(((p, n) for p, n in marks if p <= pos), default=(0, None))[1]
        targets = getattr(node, "targets", None) or [getattr(node, "target", None)]
        names = [node.name] if isinstance(node, (ast.FunctionDef, ast.ClassDef)) else \
                [t.id for t in targets if isinstance(t, ast.Name)]
        out += [(n, nb, node) for n in names] or [(None, nb, node)]
    return out


def test_every_check_is_defined_in_its_papers_chapter():
    wrong, seen = [], set()
    for name, nb, _ in _top_level_by_notebook():
        m = re.match(r"check_(rmboost|alpha|trees|meanclf|archboost)_", name or "")
        if m:
            seen.add(name)
            if not _papers_notebook(m.group(1), nb): wrong.append(f"{name} in {nb}")
    assert not wrong, f"checks defined away from their paper's chapter: {wrong}"
    exported = {n for n in dir(th) if re.match(r"check_(rmboost|alpha|trees|meanclf|archboost)_", n)}
    assert exported == seen and len(seen) >= 70


def test_no_batch_registry_and_one_registration_per_result():
    names = [n for n, _, _ in _top_level_by_notebook() if n]
    assert [n for n in names if n.startswith("CHECKS")] == ["CHECKS"], "one registry only"
    assert not [n for n in dir(th) if n.startswith("CHECKS_")], "no batch registries"
    calls = [node.value for _, _, node in _top_level_by_notebook()
             if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
             and getattr(node.value.func, "id", "") == "register_check"]
    registered = [c.args[0].value for c in calls]
    assert len(registered) == len(set(registered)) == len(th.CHECKS), "each result registered exactly once"
    assert set(registered) == set(th.CHECKS)


def test_each_registration_follows_its_check_in_the_same_chapter():
    where, bad = {}, []
    for name, nb, node in _top_level_by_notebook():
        if name: where[name] = nb
        if isinstance(node, ast.Expr) and getattr(getattr(node.value, "func", None), "id", "") == "register_check":
            fn = node.value.args[1].id
            if where.get(fn) != nb: bad.append(f"{node.value.args[0].value}: {fn} in {where.get(fn)}, registered in {nb}")
    assert not bad, bad


@pytest.mark.parametrize("name", sorted(th.CHECKS))
def test_registered_result_names_its_statement(name):
    e = th.CHECKS[name]
    assert e.check is getattr(th, e.check.__name__)
    if e.ref is not None:
        page = {n: nb for n, nb, _ in _top_level_by_notebook()}[e.check.__name__]   # the check's statement is on its page
        assert "{#" + e.ref in (ROOT / "nbs" / page).read_text(encoding="utf-8"), f"{name}: no statement {e.ref} in {page}"


def test_register_check_refuses_a_second_check_under_a_taken_name():
    reg = {}
    th.register_check("r", th.check_alpha_lemma3, {}, "bed", {"× 0.9": dict(scale=0.9)}, registry=reg)
    with pytest.raises(ValueError, match="already registered"):
        th.register_check("r", th.check_alpha_lemma4, {}, "bed", {"× 0.9": dict(scale=0.9)}, registry=reg)
    with pytest.raises(ValueError, match="planted error"):
        th.register_check("s", th.check_alpha_lemma4, {}, "bed", {}, registry=reg)


def test_a_redefinition_outside_the_library_keeps_the_registered_check():
    "nbdev's doc build re-runs a chapter's exported cells in the process that tests: the registry keeps the library's check."
    import types
    name = sorted(th.CHECKS)[0]
    e = th.CHECKS[name]
    f = e.check
    copy = types.FunctionType(f.__code__, {**f.__globals__, "__name__": "docs_build"}, f.__name__, f.__defaults__, f.__closure__)
    copy.__qualname__, copy.__module__ = f.__qualname__, "docs_build"
    assert th.register_check(name, copy, e.kwargs, e.test_bed, e.mutations, e.ref).check is f and th.CHECKS[name].check is f
    reg = {}
    th.register_check("r", f, e.kwargs, e.test_bed, e.mutations, registry=reg)
    edited = types.FunctionType(compile("def g(): return 1", "<cell>", "exec").co_consts[0], {}, f.__name__)
    assert th.register_check("r", edited, {}, "bed", {"x": {}}, registry=reg).check is edited   # an edited cell replaces it
