"""ARB-γ vs the engine's Real AdaBoost: per-round fit time on `magic` (19,020 × 10), measured side by side.
Prints best-of-`repeats` wall times per round and their ratio (target ≤ 1.3); never asserts.

    .venv/bin/python benchmarks/bench_archboost.py [--rounds 200] [--repeats 3] [--blas-threads 1]

Both run on the same engine with the same exact stump (Real AdaBoost's split), so the ratio measures what ARB-γ
adds per round: the γ-robust log-weights v − (γ+1)·softplus(v) instead of −v, and the rescaled rule.
NumPy/BLAS is limited to one thread (threadpoolctl.threadpool_limits(1)) as in bench_adaboost.py: on a loaded 2-core
machine threaded BLAS reductions of 19k numbers spin and swamp both contenders. The two contenders are timed in
alternation, repeat by repeat, so that a change in machine load affects both alike.
"""
import time

import numpy as np
from threadpoolctl import threadpool_limits

from _common import magic_setup
from robust_ref.archboost import ARBGamma, ArchBoostClassifier
from robust_ref.baselines import RealAdaBoostClassifier


def main():
    a, X, y = magic_setup(__doc__.splitlines()[0])
    print(f"magic: {X.shape[0]} x {X.shape[1]}, {a.rounds} rounds, best of {a.repeats}, BLAS threads "
          f"{a.blas_threads or 'default'}")
    runs = {
        "Real AdaBoost (engine, step 0.8)": lambda: RealAdaBoostClassifier(n_estimators=a.rounds, learning_rate=0.8),
        "ARB-2 (gamma=2, step 0.45)": lambda: ARBGamma(2.0, n_estimators=a.rounds),
        "ARB-1.5 (gamma=1.5, step 0.78)": lambda: ARBGamma(1.5, n_estimators=a.rounds),
        "Arch Boost, exponential loss": lambda: ArchBoostClassifier("exponential", step=0.8, n_estimators=a.rounds),
    }
    best = {name: np.inf for name in runs}
    rounds = {}
    for _ in range(a.repeats):
        for name, make in runs.items():
            model = make()
            t0 = time.perf_counter(); model.fit(X, y); dt = time.perf_counter() - t0
            rounds[name] = model.n_estimators_
            best[name] = min(best[name], dt / model.n_estimators_)
    base = best[next(iter(runs))]
    for name in runs:
        print(f"  {name:36s} {1e3 * best[name]:7.3f} ms/round ({rounds[name]} rounds)  ratio {best[name] / base:.3f}")
    print(f"ARB-2 / Real AdaBoost per-round time ratio: {best['ARB-2 (gamma=2, step 0.45)'] / base:.3f} (target ≤ 1.3)")


if __name__ == "__main__":
    main()
