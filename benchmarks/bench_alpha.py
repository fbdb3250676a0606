"""AdaBoost.α (robust_ref.alpha_loss.AdaBoostAlpha) vs the engine's AdaBoost (robust_ref.baselines.AdaBoostClassifier),
per-round wall time on `magic` (19,020 × 10) with the exact stump. Prints best-of-N per-round times side by side and
their ratio (target ≤ 1.3), by wall time and by process CPU time (the
latter is less sensitive to other jobs on a shared machine); never asserts.

    .venv/bin/python benchmarks/bench_alpha.py [--rounds 200] [--repeats 3] [--alphas 2 0.5 1 inf] [--blas-threads 1]

numpy/BLAS run single-threaded (threadpoolctl.threadpool_limits(1)), as in benchmarks/bench_adaboost.py: on a loaded
2-core machine OpenBLAS's spinning threads swamp the per-round cost of both contenders.
The two are timed interleaved (A, B, A, B, ...) so that load changes on a shared machine hit both alike.
"""
import time

import numpy as np
from threadpoolctl import threadpool_limits

from _common import magic_setup
from robust_ref.alpha_loss import AdaBoostAlpha
from robust_ref.baselines import AdaBoostClassifier


def per_round(make, X, y):
    "(wall, CPU) time of make().fit(X, y) divided by the number of rounds actually run, and the model."
    model = make()
    t0, c0 = time.perf_counter(), time.process_time()
    model.fit(X, y)
    n = model.n_estimators_
    return np.array([(time.perf_counter() - t0) / n, (time.process_time() - c0) / n]), model


def main():
    a, X, y = magic_setup(__doc__.splitlines()[0], lambda ap: ap.add_argument(
        "--alphas", type=float, nargs="+", default=[2.0, 0.5, 1.0, float("inf")]))
    print(f"magic: {X.shape[0]} x {X.shape[1]}, {a.rounds} rounds, best of {a.repeats}, "
          f"BLAS threads {a.blas_threads or 'default'}, exact stump (criterion 'error')")
    for alpha in a.alphas:
        best_ada, best_alpha = np.full(2, np.inf), np.full(2, np.inf)
        for _ in range(a.repeats):           # interleaved so that machine load affects both alike
            t, ada = per_round(lambda: AdaBoostClassifier(n_estimators=a.rounds), X, y)
            best_ada = np.minimum(best_ada, t)
            t, alp = per_round(lambda: AdaBoostAlpha(alpha, n_estimators=a.rounds), X, y)
            best_alpha = np.minimum(best_alpha, t)
        r = best_alpha / best_ada
        print(f"  alpha={alpha:<5g} AdaBoost (engine) {1e3 * best_ada[0]:6.2f} ms/round wall, {1e3 * best_ada[1]:6.2f} CPU "
              f"({ada.n_estimators_} rounds) | AdaBoost.alpha {1e3 * best_alpha[0]:6.2f} wall, {1e3 * best_alpha[1]:6.2f} CPU "
              f"({alp.n_estimators_} rounds) | ratio wall {r[0]:.3f}, CPU {r[1]:.3f} (target <= 1.3)")


if __name__ == "__main__":
    main()
