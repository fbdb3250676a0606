"""How the fit cost of every method of the book grows with the number of training rows, n = 10^3 ... 10^6.

Usage (from the repository root):

    .venv/bin/python benchmarks/bench_scaling.py                                  # n = 1e3 ... 1e5, every method
    .venv/bin/python benchmarks/bench_scaling.py --sizes 1000 10000 100000 1000000 --methods rmboost adaboost
    .venv/bin/python benchmarks/bench_scaling.py --data magic                     # the bundled magic set (n <= 15,216)
    .venv/bin/python benchmarks/bench_scaling.py --csv benchmarks/measured        # also write bench_scaling.csv there

What is measured. Each (method, n) is one fresh process with one BLAS/OpenMP/numba thread: it builds the data, fits once
on a 1,000-row slice (which loads the numba kernels from the cache, so compilation is not timed), then fits on the n
rows and reports the fit's CPU seconds (`time.process_time`), wall seconds, the process's peak resident memory above
what it held before the fit (`ru_maxrss`), the test error on 20,000 held-out rows and the CPU seconds of that prediction
(the mean classifier with a kernel does its work there: each test row meets every training row). scikit-learn's
`HistGradientBoostingClassifier(max_iter=100)` and `AdaBoostClassifier` (decision stumps, 100 rounds) are timed in the
same run as the reference points. A method whose fit takes more than --max-seconds is not run at larger n. Then, per
method, the slope of log(CPU seconds) against log(n) over the sizes it finished (1 = linear), and its CPU seconds as a
multiple of HistGradientBoosting's at the same n. No assertion on time: the numbers are printed side by side.

The data. `--data higgs_like` (the default) is a synthetic stand-in shaped like the HIGGS benchmark (Baldi, Sadowski &
Whiteson 2014): 21 "low-level" features (seven positive, momentum-like, heavy-tailed; fourteen Gaussian angles and
coordinates) and 7 "high-level" features that are smooth nonlinear functions of them (invariant-mass-like norms,
products and ratios); the label is the sign of a nonlinear score plus Gaussian noise, so the Bayes error is about 0.2.
It is a stand-in, not HIGGS: HIGGS itself (11 million rows) is `robust_ref.datasets.fetch_dataset("higgs")` and needs
the network. `--data magic` uses the bundled magic set (19,020 rows: at most 15,216 for training).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
BOOK = ["rmboost", "lpboost", "adaboost", "real_adaboost", "logitboost", "gentleboost", "brownboost", "robustboost",
        "adaboost_alpha", "alpha_logistic", "arb_gamma", "arb_trunc_exp", "robust_tree", "robust_forest",
        "mean_classifier", "unhinged"]
REFERENCES = ["sklearn_hgb", "sklearn_adaboost"]
N_TEST = 20_000


def higgs_like(n: int, random_state: int = 0) -> tuple[np.ndarray, np.ndarray]:
    "n rows of the 28-feature HIGGS-like stand-in and their ±1 labels (documented in the module docstring)."
    rng = np.random.default_rng(random_state)
    mom = rng.gamma(shape=2.0, scale=0.5, size=(n, 7))                   # positive, heavy-tailed momenta
    ang = rng.standard_normal((n, 14))                                    # angles and coordinates
    low = np.hstack([mom, ang])
    m1 = np.sqrt((mom[:, 0] + mom[:, 1]) ** 2 + (ang[:, 0] - ang[:, 1]) ** 2)
    m2 = np.sqrt((mom[:, 2] + mom[:, 3]) ** 2 + (ang[:, 2] - ang[:, 3]) ** 2)
    high = np.column_stack([m1, m2, m1 * m2, m1 / (1 + m2), np.hypot(mom[:, 4], ang[:, 4]),
                            mom[:, 5] * np.cos(ang[:, 5]), np.log1p(mom[:, 6] * mom[:, 0])])
    score = (0.9 * (m1 - m1.mean()) - 0.7 * (m2 - m2.mean()) + 0.6 * np.sin(2 * ang[:, 6]) + 0.5 * ang[:, 7] * ang[:, 8]
             - 0.4 * np.abs(ang[:, 9]) + 0.3 * high[:, 5] + 0.45 * rng.standard_normal(n))
    return np.hstack([low, high]), np.where(score > np.median(score), 1, -1)


def _data(name: str, n: int, seed: int):
    if name == "higgs_like":
        X, y = higgs_like(n + N_TEST, random_state=seed)
        return X[:n], y[:n], X[n:], y[n:]
    from robust_ref.datasets import load_dataset
    X, y = load_dataset(name)
    rng = np.random.default_rng(seed); idx = rng.permutation(len(y)); n_test = len(y) // 5
    if n > len(y) - n_test: raise SystemExit(f"--data {name} has {len(y) - n_test} training rows at most; got n = {n}.")
    return X[idx[n_test:n_test + n]], y[idx[n_test:n_test + n]], X[idx[:n_test]], y[idx[:n_test]]


def _model(method: str, seed: int):
    if method == "sklearn_hgb":
        from sklearn.ensemble import HistGradientBoostingClassifier
        return HistGradientBoostingClassifier(max_iter=100, early_stopping=False, random_state=seed)
    if method == "sklearn_adaboost":
        from sklearn.ensemble import AdaBoostClassifier
        return AdaBoostClassifier(n_estimators=100, random_state=seed)
    from robust_ref.experiments.registry import get_method
    return get_method(method).build(random_state=seed)


def measure_one(method: str, data: str, n: int, seed: int) -> dict:
    "One fit in this process (called in a fresh child): CPU and wall seconds, peak memory above the pre-fit level, error."
    X, y, Xt, yt = _data(data, n, seed)
    _model(method, seed).fit(X[:1000], y[:1000])                       # loads numba's cached kernels: not timed
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    model = _model(method, seed)
    c0, w0 = time.process_time(), time.perf_counter()
    model.fit(X, y)
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    c1 = time.process_time()
    err = float(np.mean(model.predict(Xt) != yt))
    return dict(method=method, data=data, n=n, cpu_s=cpu, wall_s=wall, peak_mb=max(peak - base, 0) / 1024, test_error=err,
                predict_cpu_s=time.process_time() - c1)


def run_child(method: str, data: str, n: int, seed: int, timeout: float) -> dict:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
           "NUMBA_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, __file__, "--child", method, data, str(n), str(seed)]
    try:
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return dict(method=method, data=data, n=n, status=f"over {timeout:.0f} s")
    if out.returncode != 0:
        return dict(method=method, data=data, n=n, status="failed: " + (out.stderr.strip().splitlines() or ["?"])[-1][:120])
    return {**json.loads(out.stdout.strip().splitlines()[-1]), "status": "ok"}


def slopes(df: pd.DataFrame) -> pd.DataFrame:
    "Per method: the least-squares slope of log CPU seconds on log n, over the sizes it finished (needs ≥ 2)."
    rows = []
    for m, g in df[df.status == "ok"].groupby("method", sort=False):
        g = g[g.cpu_s > 0]
        b = np.polyfit(np.log(g.n), np.log(g.cpu_s), 1)[0] if len(g) >= 2 else math.nan
        rows.append(dict(method=m, sizes=len(g), slope=b, cpu_s_at_largest=g.cpu_s.iloc[-1], largest_n=g.n.iloc[-1]))
    return pd.DataFrame(rows).set_index("method")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1_000, 3_000, 10_000, 30_000, 100_000])
    ap.add_argument("--methods", nargs="+", default=BOOK + REFERENCES)
    ap.add_argument("--data", default="higgs_like", help="higgs_like (synthetic stand-in) or a bundled dataset name")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-seconds", type=float, default=600.0, help="a method slower than this stops growing n")
    ap.add_argument("--csv", metavar="DIR", help="also write bench_scaling.csv into DIR")
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        method, data, n, seed = a.child
        print(json.dumps(measure_one(method, data, int(n), int(seed)))); return
    rows, stopped = [], set()
    for n in sorted(a.sizes):
        for m in a.methods:
            if m in stopped: continue
            r = run_child(m, a.data, n, a.seed, timeout=a.max_seconds + 120)
            rows.append(r)
            if r["status"] != "ok" or r["cpu_s"] > a.max_seconds: stopped.add(m)
            cpu = f"{r['cpu_s']:9.2f} s  {r['peak_mb']:8.1f} MB  error {r['test_error']:.4f}" if r["status"] == "ok" else r["status"]
            print(f"n = {n:>9,}  {m:<18} {cpu}", flush=True)
    df = pd.DataFrame(rows)
    ok = df[df.status == "ok"]
    ref = ok[ok.method == "sklearn_hgb"].set_index("n").cpu_s
    table = ok.pivot(index="method", columns="n", values="cpu_s").reindex([m for m in a.methods if m in set(ok.method)])
    print("\nCPU seconds of one fit (one thread):"); print(table.round(2).to_string())
    if len(ref):
        print("\nCPU seconds as a multiple of HistGradientBoostingClassifier(max_iter=100) at the same n:")
        print(table.div(ref, axis=1).round(1).to_string())
    print("\nCPU seconds to predict the 20,000 test rows:")
    print(ok.pivot(index="method", columns="n", values="predict_cpu_s").round(2).to_string())
    print("\nPeak memory above the pre-fit level (MB):")
    print(ok.pivot(index="method", columns="n", values="peak_mb").round(1).to_string())
    print("\nSlope of log CPU seconds against log n (1 = linear):"); print(slopes(df).round(2).to_string())
    if a.csv:
        out = Path(a.csv) / "bench_scaling.csv"
        df.assign(date=time.strftime("%Y-%m-%d"), load_1min=os.getloadavg()[0], cores=os.cpu_count()).to_csv(out, index=False)
        print(f"\nwritten: {out}")


if __name__ == "__main__":
    main()
