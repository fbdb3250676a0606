"""AdaBoost with the exact stump (features sorted once per fit) vs scikit-learn's AdaBoostClassifier with
depth-1 trees, 200 rounds on `magic` (19,020 × 10). Prints best-of-3 wall times and their ratio; never asserts.

    .venv/bin/python benchmarks/bench_adaboost.py [--rounds 200] [--repeats 3] [--blas-threads 1]

BLAS is limited to one thread by default: on a loaded 2-core machine OpenBLAS's threaded dot product of 19k
numbers took 0.9 ms instead of 4 µs (spinning threads), which swamps both contenders.
"""
import time

import numpy as np
from sklearn.ensemble import AdaBoostClassifier as SkAdaBoost
from sklearn.tree import DecisionTreeClassifier

from _common import magic_setup
from robust_ref.baselines import AdaBoostClassifier


def best_time(make, X, y, repeats):
    "Best-of-`repeats` wall time of make().fit(X, y), and the last fitted model."
    best = np.inf
    for _ in range(repeats):
        model = make()
        t0 = time.perf_counter(); model.fit(X, y); best = min(best, time.perf_counter() - t0)
    return best, model


def main():
    a, X, y = magic_setup(__doc__.splitlines()[0])
    X = X.astype(np.float32).astype(np.float64)            # sklearn trees use float32: same numbers for both
    print(f"magic: {X.shape[0]} x {X.shape[1]}, {a.rounds} rounds, best of {a.repeats}, BLAS threads "
          f"{a.blas_threads or 'default'}")
    runs = {
        "robust_ref AdaBoost, exact stump (error)": lambda: AdaBoostClassifier(n_estimators=a.rounds),
        "robust_ref AdaBoost, exact stump (gini)": lambda: AdaBoostClassifier(n_estimators=a.rounds, criterion="gini"),
        "sklearn AdaBoostClassifier(max_depth=1)": lambda: SkAdaBoost(DecisionTreeClassifier(max_depth=1),
                                                                       n_estimators=a.rounds, random_state=0),
    }
    times, models = {}, {}
    for name, make in runs.items():
        times[name], models[name] = best_time(make, X, y, a.repeats)
        print(f"  {name:44s} {times[name]:7.3f} s")
    names = list(runs)
    sk = times[names[2]]
    print(f"ratio own/sklearn: error criterion {times[names[0]] / sk:.3f}, gini criterion {times[names[1]] / sk:.3f} "
          "(target ≤ 1.0)")
    gini, skm = models[names[1]], models[names[2]]
    diff = np.abs(2 * gini.decision_function(X) / gini.estimator_weights_.sum() - skm.decision_function(X)).max()
    print(f"gini variant vs sklearn: max |decision difference| {diff:.2e}, "
          f"identical predictions: {np.array_equal(gini.predict(X), skm.predict(X))}")


if __name__ == "__main__":
    main()
