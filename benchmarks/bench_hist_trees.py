"""Exact against binned (histogram) trees: fit CPU time and test error side by side, in one run.

    .venv/bin/python benchmarks/bench_hist_trees.py            # higgs_like at n = 1e4, 1e5, and magic (~3 min)
    .venv/bin/python benchmarks/bench_hist_trees.py --full     # also n = 1e6 (~30 min)

Every model is fitted twice on the same rows, with `tree_method='exact'` (chapter 03b's `TreeBuilder`: every threshold)
and `tree_method='hist'` (`BinnedTreeBuilder`: features binned once into at most 255 bins), with the same seed. The
models: a 20-tree Gini forest (`RobustForestClassifier`, √d features per node, fully grown trees), AdaBoost with 50
depth-3 trees (`AdaBoostClassifier(base_learner='tree')`) and one fully grown Gini tree (`RobustTreeClassifier`).
The data: the 28-feature HIGGS-like stand-in of `bench_scaling.py` (`higgs_like`, 20,000 test rows) and the bundled
magic set (a seeded 80/20 split: 15,216 training rows). Reported: the fit's CPU seconds (`time.process_time`, one
BLAS and one numba thread; every model is fitted once on 500 rows first, so numba's compilation is not timed), the
ratio exact / hist, and both test errors. No assertion: the numbers are printed side by side.
"""
import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
from robust_ref.experiments.scaling import higgs_like  # noqa: E402  (the 28-feature stand-in, documented there)

from robust_ref.baselines import AdaBoostClassifier  # noqa: E402
from robust_ref.datasets import load_dataset  # noqa: E402
from robust_ref.trees import RobustForestClassifier, RobustTreeClassifier  # noqa: E402

MODELS = {
    "forest (20 Gini trees)": lambda m: RobustForestClassifier(20, "gini", n_jobs=1, tree_method=m, random_state=0),
    "AdaBoost (50 depth-3 trees)": lambda m: AdaBoostClassifier(50, base_learner="tree", max_depth=3, tree_method=m,
                                                                random_state=0),
    "tree (Gini, fully grown)": lambda m: RobustTreeClassifier("gini", tree_method=m, random_state=0),
}


def datasets(full: bool):
    "(name, X_train, y_train, X_test, y_test) for each run."
    for n in [10_000, 100_000] + ([1_000_000] if full else []):
        X, y = higgs_like(n + 20_000, random_state=0)
        yield f"higgs_like n={n:,}", X[:n], y[:n], X[n:], y[n:]
    X, y = load_dataset("magic", return_X_y=True)
    idx = np.random.default_rng(0).permutation(len(y))
    n_test = len(y) // 5
    yield f"magic n={len(y) - n_test:,}", X[idx[n_test:]], y[idx[n_test:]], X[idx[:n_test]], y[idx[:n_test]]


def fit_time(make, X, y):
    t0 = time.process_time()
    est = make().fit(X, y)
    return time.process_time() - t0, est


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--full", action="store_true", help="also n = 1,000,000 rows")
    args = ap.parse_args()
    X, y = higgs_like(500, random_state=1)
    for make in MODELS.values():                       # load (or compile) the numba kernels before any timing
        for m in ("exact", "hist"): make(m).fit(X, y)
    print(f"{'data':<22} {'model':<28} {'exact s':>9} {'hist s':>9} {'exact/hist':>10} {'err exact':>9} {'err hist':>9} {'diff pp':>8}")
    with threadpool_limits(1):
        for name, Xtr, ytr, Xte, yte in datasets(args.full):
            for label, make in MODELS.items():
                row = {}
                for m in ("exact", "hist"):
                    sec, est = fit_time(lambda: make(m), Xtr, ytr)
                    row[m] = (sec, float(np.mean(est.predict(Xte) != yte)))
                (te, ee), (th, eh) = row["exact"], row["hist"]
                print(f"{name:<22} {label:<28} {te:9.2f} {th:9.2f} {te / th:10.1f} {ee:9.4f} {eh:9.4f} {100 * (eh - ee):+8.2f}",
                      flush=True)


if __name__ == "__main__":
    main()
