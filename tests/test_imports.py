"""The package's import graph, read from the source with `ast` (every import statement, also those inside functions): no
module may reach itself through imports, and the experiments registry defines no estimator."""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "robust_ref"


def _modules() -> dict:
    "{dotted module name: path} of every module of the package (a package by its `__init__.py`)."
    out = {}
    for p in PKG.rglob("*.py"):
        parts = list(p.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__": parts = parts[:-1]
        out[".".join(parts)] = p
    return out


def _targets(node, module: str, is_package: bool, modules: dict) -> set:
    "The package's modules one import statement of `module` names (`from a import b` names `a.b` if that is a module, else `a`)."
    if isinstance(node, ast.Import): names = [a.name for a in node.names]
    else:
        base = module if is_package else module.rpartition(".")[0]
        for _ in range(node.level - 1): base = base.rpartition(".")[0]
        source = node.module if node.level == 0 else ".".join(p for p in (base, node.module) if p)
        names = [f"{source}.{a.name}" if f"{source}.{a.name}" in modules else source for a in node.names]
    out = set()
    for name in names:
        while name and name not in modules: name = name.rpartition(".")[0]   # `import robust_ref.x.y` → the longest module
        if name and name != module: out.add(name)
    return out


def import_graph() -> dict:
    "{module: the package's modules it imports}, from every import statement (module level or inside a function)."
    modules, graph = _modules(), {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text())
        graph[name] = set().union(*[_targets(n, name, path.name == "__init__.py", modules) for n in ast.walk(tree)
                                    if isinstance(n, (ast.Import, ast.ImportFrom))])
    return graph


def find_cycle(graph: dict) -> list:
    "One import circle [a, b, …, a] of `graph`, or [] (depth-first search, modules in sorted order)."
    state, stack = {}, []
    def visit(v):
        state[v] = "open"; stack.append(v)
        for w in sorted(graph[v]):
            if state.get(w) == "open": return stack[stack.index(w):] + [w]
            if w not in state and (cycle := visit(w)): return cycle
        state[v] = "done"; stack.pop()
        return []
    for v in sorted(graph):
        if v not in state and (cycle := visit(v)): return cycle
    return []


def test_find_cycle_sees_a_circle_and_its_absence():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []


def test_the_graph_sees_late_and_relative_imports():
    g = import_graph()
    assert "robust_ref.core" in g["robust_ref.baselines"]                       # `from .core import ...`
    assert "robust_ref.experiments.registry" in g["robust_ref.experiments"]    # the package's own __init__
    assert "robust_ref.rmboost" in g["robust_ref.experiments.metrics"]        # imported inside a function


def test_no_import_circle_in_the_package():
    cycle = find_cycle(import_graph())
    assert not cycle, f"import circle: {' → '.join(cycle)}; move what both need to a module below them."


def test_the_registry_defines_no_class_but_method():
    "Estimators live in their chapters (baselines, Arch Boost); the registry only names them."
    tree = ast.parse((PKG / "experiments" / "registry.py").read_text())
    classes = [n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
    assert classes == ["Method"], f"registry.py defines {classes}; only Method belongs there."


def test_the_experiments_floor_imports_no_experiments_module():
    "experiments.base is the floor every experiments module may import: it imports none of them."
    above = sorted(m for m in import_graph()["robust_ref.experiments.base"] if m.startswith("robust_ref.experiments"))
    assert not above, f"robust_ref.experiments.base imports {above}; the floor must import no experiments module."
