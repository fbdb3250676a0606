"""Speed of robust_ref.trees against scikit-learn's Cython trees, ratios side by side in one run (no assertions).

    .venv/bin/python benchmarks/bench_trees.py            # magic: fully grown trees + 100-tree forests (~2-4 min)
    .venv/bin/python benchmarks/bench_trees.py --quick    # fewer repeats, 20-tree forests

Reported: wall-clock and CPU time (best of `repeats`) of a fully grown tree on magic (19 020 × 10) with the Gini, CL and NE
criteria, against scikit-learn's DecisionTreeClassifier (Gini); and a 100-tree forest with n_jobs=1 and n_jobs=2 (the
speed-up shows whether both cores are used), next to scikit-learn's RandomForestClassifier. On a machine shared with
other jobs the wall-clock numbers are noisy; the CPU-time ratio of the single trees is the stable figure.
"""
import argparse
import os
import time

import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.tree import DecisionTreeClassifier

from robust_ref.datasets import load_dataset
from robust_ref.trees import RobustForestClassifier, RobustTreeClassifier


def worker_cpu():
    "CPU seconds used so far by each child process (the joblib/loky workers), or {} without psutil."
    try: import psutil
    except ImportError: return {}
    out = {}
    for child in psutil.Process().children(recursive=True):
        try: t = child.cpu_times(); out[child.pid] = t.user + t.system
        except psutil.Error: pass
    return out


def best_of(fit, repeats):
    "Best wall-clock and best CPU time (this process only) of `repeats` calls."
    walls, cpus = [], []
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        fit()
        walls.append(time.perf_counter() - w0); cpus.append(time.process_time() - c0)
    return min(walls), min(cpus)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1 repeat per tree, 20-tree forests")
    args = ap.parse_args()
    repeats, n_trees = (1, 20) if args.quick else (3, 100)
    X, y = load_dataset("magic", return_X_y=True)
    print(f"magic: {X.shape[0]} × {X.shape[1]}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")

    print("\nfully grown decision tree (best of", repeats, "fits)")
    sk_wall, sk_cpu = best_of(lambda: DecisionTreeClassifier(random_state=0).fit(X, y), repeats)
    print(f"{'model':<34}{'wall s':>9}{'cpu s':>9}{'wall ×sk':>10}{'cpu ×sk':>10}{'leaves':>8}")
    print(f"{'sklearn DecisionTree (gini)':<34}{sk_wall:9.3f}{sk_cpu:9.3f}{1:10.2f}{1:10.2f}"
          f"{DecisionTreeClassifier(random_state=0).fit(X, y).get_n_leaves():8d}")
    for crit, kw in [("gini", {}), ("cl", {}), ("ne", dict(lam=0.5)), ("entropy", {}), ("credal", {})]:
        model = RobustTreeClassifier(crit, random_state=0, **kw)
        wall, cpu = best_of(lambda: model.fit(X, y), repeats)
        print(f"{'RobustTree (' + crit + ')':<34}{wall:9.3f}{cpu:9.3f}{wall / sk_wall:10.2f}{cpu / sk_cpu:10.2f}{model.get_n_leaves():8d}")
    wall, cpu = best_of(lambda: RobustTreeClassifier("ane", random_state=0).fit(X, y), 1)
    print(f"{'RobustTree (ane: 5 λ + refit)':<34}{wall:9.3f}{cpu:9.3f}{wall / sk_wall:10.2f}{cpu / sk_cpu:10.2f}")

    print(f"\n{n_trees}-tree random forest, gini, bootstrap, sqrt features (one fit each)")
    print(f"{'model':<34}{'wall s':>9}{'speed-up 1→2 jobs':>20}")
    rows = {}
    w0 = time.perf_counter(); RobustForestClassifier(2, "gini", random_state=0, n_jobs=2).fit(X[::50], y[::50])
    print(f"{'(start-up of the 2 worker processes':<34}{time.perf_counter() - w0:9.2f} s, not counted below)")
    for label, make in [("sklearn RandomForest", lambda j: RandomForestClassifier(n_trees, random_state=0, n_jobs=j)),
                        ("RobustForest (gini)", lambda j: RobustForestClassifier(n_trees, "gini", random_state=0, n_jobs=j)),
                        ("RobustForest (ne λ=0.5)", lambda j: RobustForestClassifier(n_trees, "ne", lam=0.5, random_state=0, n_jobs=j))]:
        for jobs in (1, 2):
            before = worker_cpu()
            w0 = time.perf_counter(); make(jobs).fit(X, y); rows[label, jobs] = time.perf_counter() - w0
            used = {pid: t - before.get(pid, 0.0) for pid, t in worker_cpu().items()}
        busy = sorted((round(t, 1) for t in used.values() if t > 0.05), reverse=True)
        print(f"{label + ' n_jobs=1':<34}{rows[label, 1]:9.2f}")
        print(f"{label + ' n_jobs=2':<34}{rows[label, 2]:9.2f}{rows[label, 1] / rows[label, 2]:20.2f}"
              + (f"   worker CPU s: {busy}" if busy else "   (threads in this process)" if "sklearn" in label else ""))
    print(f"\nforest wall time ×sklearn (n_jobs=2): gini {rows['RobustForest (gini)', 2] / rows['sklearn RandomForest', 2]:.1f}, "
          f"ne {rows['RobustForest (ne λ=0.5)', 2] / rows['sklearn RandomForest', 2]:.1f}")


if __name__ == "__main__":
    main()
