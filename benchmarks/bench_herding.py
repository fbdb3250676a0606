"""Kernel herding time and peak memory vs n (robust_ref.mean_classifier.kernel_herding).

Discriminative herding of the mean classifier to a 1 % herd (max_points = n/100), Gaussian kernel, d = 64 features.
The kernel columns are computed incrementally and μ = G p in row blocks of ≤ 32 MiB, so memory grows linearly in n;
the full-Gram reference (n ≤ 4000) is timed for comparison.

    .venv/bin/python benchmarks/bench_herding.py                  # n = 500 … 10 000
    .venv/bin/python benchmarks/bench_herding.py --n 2000 20000   # chosen sizes
"""
import argparse
import time
import tracemalloc

import numpy as np

from robust_ref.mean_classifier import kernel_herding, make_kernel


def data(n, d=64, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, :4].sum(1) + rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


def run(n, kern, reference):
    X, y = data(n)
    tracemalloc.start()
    t0 = time.perf_counter()
    h = kernel_herding(X, kern, signs=y, eps=1e-6, max_points=max(1, n // 100))
    t = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    row = dict(n=n, herd=h.size, iterations=h.n_iter, residual=h.residual, seconds=t,
               peak_MB=peak / 2**20, data_MB=X.nbytes / 2**20, full_gram_MB=8 * n * n / 2**20)
    if reference and n <= 4000:
        t0 = time.perf_counter()
        G = kern(X, X)
        g = kernel_herding(X, kern, signs=y, eps=1e-6, max_points=max(1, n // 100), gram=G)
        row["full_gram_seconds"] = time.perf_counter() - t0
        row["max_weight_diff"] = float(np.abs(g.dense_weights(n) - h.dense_weights(n)).max())
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, nargs="+", default=[500, 1000, 2000, 5000, 10_000])
    ap.add_argument("--bandwidth", type=float, default=8.0, help="Gaussian bandwidth h (≈ median distance for d = 64)")
    ap.add_argument("--no-reference", action="store_true", help="skip the full-Gram reference runs")
    args = ap.parse_args()
    kern = make_kernel("gaussian", bandwidth=args.bandwidth)
    print(f"{'n':>7} {'herd':>5} {'iters':>6} {'residual':>9} {'seconds':>8} {'peak MB':>8} {'data MB':>8} "
          f"{'n×n MB':>9} {'full-Gram s':>11} {'Δweights':>9}")
    for n in args.n:
        r = run(n, kern, not args.no_reference)
        ref = (f"{r['full_gram_seconds']:11.2f} {r['max_weight_diff']:9.1e}" if "full_gram_seconds" in r
               else f"{'—':>11} {'—':>9}")
        print(f"{r['n']:7d} {r['herd']:5d} {r['iterations']:6d} {r['residual']:9.4f} {r['seconds']:8.2f} "
              f"{r['peak_MB']:8.1f} {r['data_MB']:8.1f} {r['full_gram_MB']:9.0f} {ref}", flush=True)


if __name__ == "__main__":
    main()
