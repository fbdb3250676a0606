"""Speed and memory of robust_ref's compiled tree builder against scikit-learn's Cython trees, ratios side by side in one run.

    .venv/bin/python benchmarks/bench_trees.py            # magic + diabetes, 5 repeats, 100-tree forests (~5-10 min)
    .venv/bin/python benchmarks/bench_trees.py --quick    # 1 repeat, 20-tree forests

Reported (medians of `repeats` fits, one BLAS thread, no assertions):
- compile cost of the builder in a fresh numba cache, and the cached load cost of a new process;
- Gini, NE(λ=0.5), CE (entropy) and CL trees at depth 10 and fully grown on magic and diabetes, as a ratio to
  scikit-learn's DecisionTreeClassifier (Gini) at the same depth (target ≤ 1.2), and ANE (5 λ + refit, target ≤ 3);
  ANE's search alone: the five λ trees in one pass (`TreeBuilder.grow_many`) against five `grow` calls;
- a 100-tree forest against RandomForestClassifier(n_jobs=2) wall time (target ≤ 1.2), and forest prediction
  (predict_proba, target ≤ 1.2);
- LogitBoost and GentleBoost (100 rounds of ≤ 11-leaf trees, and of stumps): fit time with the compiled regression
  trees against the old path (scikit-learn's DecisionTreeRegressor, `tests/tree_oracle.SklearnRegressionTrees`; same
  trees, same predictions);
- RMBoost at K = 200 on diabetes and credit: fit time with the compiled rule learner against the old path
  (`base_learner=DecisionTreeClassifier(max_leaf_nodes=11)`, target ≥ 1.8×) and the learner's share of each fit
  (target: halved); with RMBOOST_AUTHORS set, the authors' own script (one fit each, target ≥ 50× slower than ours);
- peak memory of fitting a fully grown tree on magic, as a multiple of X's size (target < 2): the growth of the
  resident set of a fresh process, sampled every 0.2 ms during the fit (the compiled code allocates outside tracemalloc).
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.tree import DecisionTreeClassifier
from threadpoolctl import threadpool_limits

from robust_ref.datasets import load_dataset
from robust_ref.tree_builder import TreeBuilder
from robust_ref.trees import _ANE_GRID, RobustForestClassifier, RobustTreeClassifier

ROOT = Path(__file__).resolve().parent.parent

_WARM = ("import time; t0 = time.perf_counter(); import numpy as np; from robust_ref.tree_builder import TreeBuilder; "
         "t1 = time.perf_counter(); X = np.random.default_rng(0).normal(size=(50, 3)); "
         "TreeBuilder(X, 'gini').grow((X[:, 0] > 0).astype(int), None, 2, 0); t2 = time.perf_counter(); "
         "TreeBuilder(X, 'ne').grow_many((X[:, 0] > 0).astype(int), None, 2, 0, params=(0, 0.5, 1)); "
         "print(t1 - t0, t2 - t1, time.perf_counter() - t2)")

_MEMORY = """
import os, threading, time
from robust_ref.datasets import load_dataset
from robust_ref.trees import RobustTreeClassifier
X, y = load_dataset("magic", return_X_y=True)
RobustTreeClassifier("gini").fit(X[::50], y[::50])          # compiled code loaded
page = os.sysconf("SC_PAGE_SIZE")
rss = lambda: int(open("/proc/self/statm").read().split()[1]) * page
peak, done = [0], [False]
def watch():                                                 # the builder releases the GIL: sample the RSS meanwhile
    while not done[0]: peak[0] = max(peak[0], rss()); time.sleep(0.0002)
base = rss()
th = threading.Thread(target=watch); th.start()
m = RobustTreeClassifier("{crit}", random_state=0).fit(X, y)
done[0] = True; th.join()
print((max(peak[0], rss()) - base) / X.nbytes, m.get_n_leaves())
"""


def _python(code, env=None):
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})
    if out.returncode: raise RuntimeError(out.stderr)
    return out.stdout.split()


def _mark(ratio, target):
    return "" if ratio <= target else "*"


def median_time(fit, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter(); fit(); times.append(time.perf_counter() - t0)
    return float(np.median(times))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1 repeat per tree, 20-tree forests")
    ap.add_argument("--no-compile", action="store_true", help="skip the fresh-cache compile measurement (~1-2 min)")
    ap.add_argument("--only", nargs="*", default=None, choices=_SECTIONS, help="run only these sections")
    args = ap.parse_args()
    run = set(args.only or _SECTIONS)
    threadpool_limits(1)
    repeats, n_trees = (1, 20) if args.quick else (5, 100)
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")

    if "compile" in run and not args.no_compile:
        with tempfile.TemporaryDirectory() as cache:
            imp, first, many = map(float, _python(_WARM, {"NUMBA_CACHE_DIR": cache}))
            print(f"compiled builder, fresh cache: import {imp:.2f} s, first tree (compiles) {first:.1f} s, "
                  f"first ANE search (compiles grow_many) {many:.1f} s")
    if "compile" in run: _cached()
    if "trees" in run: _trees(repeats)
    if "forests" in run: _forests(repeats, n_trees)
    if "boosting" in run: _boosting(repeats)
    if "rmboost" in run: _rmboost(max(1, repeats // 2))
    if "memory" in run: _memory()


_SECTIONS = ("compile", "trees", "forests", "boosting", "rmboost", "memory")


def _cached():
    imp, first, many = map(float, _python(_WARM))
    print(f"compiled builder, cached:      import {imp:.2f} s, first tree (loads the cache) {first:.2f} s, "
          f"first ANE search {many:.2f} s")


def _trees(repeats):
    print(f"\ntrees: median of {repeats} fits; ratio = time / scikit-learn's Gini tree at the same depth "
          "(target ≤ 1.2; ANE ≤ 3)")
    print("(* = target missed)")
    print(f"{'data':<9}{'depth':>6}{'sklearn s':>11}{'gini':>8}{'ne':>8}{'ce':>8}{'cl':>8}{'ane':>8}   leaves sk/gini/ne/ce/cl"
          "   ANE search: one pass / a tree per λ")
    for name in ("magic", "diabetes"):
        X, y = load_dataset(name, return_X_y=True)
        RobustTreeClassifier("gini").fit(X[::50], y[::50])
        for depth in (10, None):
            sk = DecisionTreeClassifier(max_depth=depth, random_state=0)
            t_sk = median_time(lambda: sk.fit(X, y), repeats)
            cells, leaves = [], [sk.get_n_leaves()]
            for crit, kw in (("gini", {}), ("ne", dict(lam=0.5)), ("entropy", {}), ("cl", {}), ("ane", {})):
                m = RobustTreeClassifier(crit, max_depth=depth, random_state=0, **kw)
                r = median_time(lambda: m.fit(X, y), repeats if crit != "ane" else max(1, repeats // 2)) / t_sk
                cells.append(f"{r:7.2f}" + _mark(r, 3.0 if crit == "ane" else 1.2).ljust(1))
                if crit != "ane": leaves.append(m.get_n_leaves())
            codes = np.unique(y, return_inverse=True)[1]
            w80 = (np.random.default_rng(0).random(len(y)) < 0.8).astype(float)   # ANE's training 80 %
            b = TreeBuilder(X, "ne", max_depth=depth)
            t_one = median_time(lambda: b.grow_many(codes, w80, 2, 0, params=_ANE_GRID), repeats)
            t_per = median_time(lambda: [b.grow(codes, w80, 2, 0, param=lam) for lam in _ANE_GRID], repeats)
            print(f"{name:<9}{str(depth):>6}{t_sk:11.4f}" + "".join(cells) + "   " + "/".join(map(str, leaves))
                  + f"   {t_one:.3f} s / {t_per:.3f} s ({t_per / t_one:.1f}× faster)")


def _forests(repeats, n_trees):
    print(f"\n{n_trees}-tree forests (gini, bootstrap, sqrt features): wall time of one fit, ratio to "
          "RandomForestClassifier(n_jobs=2) (target ≤ 1.2)")
    for name in ("magic", "diabetes"):
        X, y = load_dataset(name, return_X_y=True)
        RobustForestClassifier(2, "gini", n_jobs=2, random_state=0).fit(X[::50], y[::50])
        rf = RandomForestClassifier(n_trees, random_state=0, n_jobs=2)
        t_rf = median_time(lambda: rf.fit(X, y), max(1, repeats // 2))
        p_rf = median_time(lambda: rf.predict_proba(X), max(1, repeats // 2))
        row = f"{name:<9} sklearn {t_rf:7.2f} s"
        for crit in ("gini", "ne", "ane"):
            f = RobustForestClassifier(n_trees, crit, n_jobs=2, random_state=0)
            t = median_time(lambda: f.fit(X, y), 1 if crit == "ane" else max(1, repeats // 2))
            row += f"   {crit} {t:6.2f} s ({t / t_rf:.2f}×{_mark(t / t_rf, 1.2) if crit == 'gini' else ''})"
        p = median_time(lambda: f.predict_proba(X), max(1, repeats // 2))
        print(row + f"   predict_proba ×sklearn {p / p_rf:.2f}{_mark(p / p_rf, 1.2)}")


def _boosting(repeats):
    sys.path.insert(0, str(ROOT / "tests"))
    from tree_oracle import SklearnRegressionTrees
    from robust_ref.baselines import GentleBoostClassifier, LogitBoostClassifier
    print("\nboosting with regression trees, 100 rounds: fit time old (scikit-learn's DecisionTreeRegressor) / new "
          "(compiled, same trees)")
    for name in ("diabetes", "credit"):
        X, y = load_dataset(name, return_X_y=True, missing="impute")
        for cls in (LogitBoostClassifier, GentleBoostClassifier):
            for md, mln, label in ((10, 11, "≤ 11 leaves"), (1, None, "stumps")):
                new = cls(100, base_learner="tree", max_depth=md, max_leaf_nodes=mln, random_state=0)
                old = cls(100, base_learner=SklearnRegressionTrees(md, mln), random_state=0)
                t_new, t_old = median_time(lambda: new.fit(X, y), repeats), median_time(lambda: old.fit(X, y), repeats)
                same = np.array_equal(new.decision_function(X), old.decision_function(X))
                print(f"  {name:<9}{cls.__name__:<24}{label:<13} old {t_old:6.3f} s   new {t_new:6.3f} s   "
                      f"{t_old / t_new:5.2f}× faster   same predictions: {same}")


def _authors_rmboost():
    """The RMBoost authors' script (`RMBoost.py` of MachineLearningBCAM/RMBoost-NeurIPS-2025) from the folder named by
    the environment variable RMBOOST_AUTHORS, or None. It imports mosek at its top; its `solver="linprog"` path (scipy's
    HiGHS) never uses it, so an empty stand-in module is put in its place when mosek is not installed."""
    folder = os.environ.get("RMBOOST_AUTHORS")
    if not folder or not (Path(folder) / "RMBoost.py").is_file(): return None
    import importlib.util
    import types
    try: import mosek  # noqa: F401
    except ImportError: sys.modules["mosek"] = types.ModuleType("mosek")
    spec = importlib.util.spec_from_file_location("rmboost_authors", Path(folder) / "RMBoost.py")
    module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)
    return module


def _rmboost(repeats):
    from robust_ref.rmboost import PAPER_SETTINGS, RMBoostClassifier
    authors = _authors_rmboost()
    print("\nRMBoost, K = 200: fit time old (DecisionTreeClassifier(max_leaf_nodes=11) rule learner) / new (compiled "
          "builder), target ≥ 1.8×; learner's share of the fit (target: halved)")
    for name in ("diabetes", "credit"):
        X, y = load_dataset(name, return_X_y=True, missing="impute")
        fits = {}
        for label, base in (("old", DecisionTreeClassifier(max_leaf_nodes=11)), ("new", "tree")):
            m = RMBoostClassifier(**PAPER_SETTINGS, n_estimators=200, base_learner=base, random_state=0)
            fits[label] = (median_time(lambda: m.fit(X, y), repeats), m.learner_seconds_, m.lp_seconds_)
        (to, lo, _), (tn, ln, lpn) = fits["old"], fits["new"]
        halved = ln / tn <= lo / to / 2           # target: the learner's share of the fit halves
        print(f"  {name:<9} old {to:6.3f} s (learner {lo / to:4.0%})   new {tn:6.3f} s (learner {ln / tn:4.0%}"
              f"{'' if halved else '*'}, LP {lpn / tn:4.0%})   {to / tn:5.2f}× faster{'' if to / tn >= 1.8 else '*'}"
              f"   learner alone {lo / ln:4.2f}× faster")
        if authors is not None:   # its fit, K = 200 rounds, on per-feature z-scored X and ±1 labels (as its main.m)
            Z, ypm = (X - X.mean(0)) / np.where(X.std(0) > 0, X.std(0), 1.0), np.where(y == y.max(), 1.0, -1.0)
            ta = median_time(lambda: authors.fit(Z, ypm, T=200, solver="linprog"), 1)
            print(f"  {name:<9} the authors' script (linprog, one fit) {ta:6.1f} s: {ta / tn:5.1f}× the new fit "
                  f"(target ≥ 50×){'' if ta / tn >= 50 else '*'}")
    if authors is None:
        print("  the authors' script: not timed. Set RMBOOST_AUTHORS to a folder holding RMBoost.py of "
              "MachineLearningBCAM/RMBoost-NeurIPS-2025 (commit 8caa987) to time it side by side (mosek is not needed).")


def _memory():
    print("\nmemory: peak resident-set growth (sampled) while fitting a fully grown tree on magic, × X.nbytes (target < 2)")
    for crit in ("gini", "entropy"):
        ratio, n_leaves = _python(_MEMORY.format(crit=crit))
        print(f"  {crit:<8} {float(ratio):.2f}× X{_mark(float(ratio), 2.0)} ({n_leaves} leaves)")


if __name__ == "__main__":
    main()
