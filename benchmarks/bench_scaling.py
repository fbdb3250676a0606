"""How the fit cost of every method of the book grows with the number of training rows, n = 10^3 ... 10^6.

Usage (from the repository root):

    .venv/bin/python benchmarks/bench_scaling.py                                  # n = 1e3 ... 1e5, every method
    .venv/bin/python benchmarks/bench_scaling.py --sizes 1000 10000 100000 1000000 --methods rmboost adaboost
    .venv/bin/python benchmarks/bench_scaling.py --data magic --sizes 1000 3000 10000 15000   # the bundled magic set
    .venv/bin/python benchmarks/bench_scaling.py --csv benchmarks/measured        # also write scaling_<data>.csv there

The measuring code is `robust_ref.experiments.scaling` (chapter 73, "How the methods scale with n", which documents
it and shows the stored tables): each (method, n) is one fresh process with one BLAS/OpenMP/numba thread that fits
once on a 1,000-row slice (loading numba's cached kernels, untimed), then fits on the n rows and reports the fit's CPU
seconds, wall seconds, peak-memory growth, the test error and the prediction's CPU seconds. scikit-learn's
HistGradientBoostingClassifier(max_iter=100) and AdaBoostClassifier (100 stumps) are timed in the same run as the
reference points. A method whose fit takes more than --max-seconds is not run at larger n. This script prints the
tables, each method's slope of log CPU seconds on log n, and its CPU seconds as a multiple of HistGradientBoosting's
at the same n. No assertion on time: the numbers are printed side by side.

`--data higgs_like` (the default) is a 28-feature synthetic stand-in shaped like HIGGS, not HIGGS itself (see
`robust_ref.experiments.scaling.higgs_like`); `--data magic` is the bundled magic set (at most 15,216 training rows).
"""
from __future__ import annotations

import argparse
from pathlib import Path

from robust_ref.experiments.scaling import (BOOK_METHODS, N_TEST, REFERENCES, scaling_run, scaling_slopes,
                                            scaling_table)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1_000, 3_000, 10_000, 30_000, 100_000])
    ap.add_argument("--methods", nargs="+", default=BOOK_METHODS + REFERENCES)
    ap.add_argument("--data", default="higgs_like", help="higgs_like (synthetic stand-in) or a bundled dataset name")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-test", type=int, default=N_TEST, help="held-out rows of the stand-in")
    ap.add_argument("--max-seconds", type=float, default=600.0, help="a method slower than this stops growing n")
    ap.add_argument("--csv", metavar="DIR", help="also write scaling_<data>.csv into DIR")
    a = ap.parse_args(argv)

    def show(r):
        what = (f"{r['cpu_s']:9.2f} s  {r['peak_mb']:8.1f} MB  error {r['test_error']:.4f}" if r["status"] == "ok"
                else r["status"])
        print(f"n = {r['n']:>9,}  {r['method']:<18} {what}", flush=True)

    df = scaling_run(a.methods, a.sizes, data=a.data, seed=a.seed, n_test=a.n_test, max_seconds=a.max_seconds,
                     progress=show)
    table = scaling_table(df, "cpu_s")
    print("\nCPU seconds of one fit (one thread):"); print(table.round(2).to_string())
    if "sklearn_hgb" in table.index:
        print("\nCPU seconds as a multiple of HistGradientBoostingClassifier(max_iter=100) at the same n:")
        print(table.div(table.loc["sklearn_hgb"], axis=1).round(1).to_string())
    print(f"\nCPU seconds to predict the held-out rows:"); print(scaling_table(df, "predict_cpu_s").round(2).to_string())
    print("\nPeak memory the fit added to its process (MB):"); print(scaling_table(df, "peak_mb").round(1).to_string())
    print("\nSlope of log CPU seconds against log n (1 = linear):"); print(scaling_slopes(df).round(2).to_string())
    if a.csv:
        out = Path(a.csv) / f"scaling_{a.data}.csv"
        df.to_csv(out, index=False, float_format="%.6g")
        print(f"\nwritten: {out}")


if __name__ == "__main__":
    main()
