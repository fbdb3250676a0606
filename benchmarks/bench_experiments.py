"""Benchmark of robust_ref.experiments: parallel speed-up and per-task overhead of the runner.

    .venv/bin/python benchmarks/bench_experiments.py            # 200-task grid, 1 vs 2 workers, joblib and Dask
    .venv/bin/python benchmarks/bench_experiments.py --tasks 40 # a smaller grid (quick look)

Targets (issue "Experiments at scale"): a 200-task grid runs >= 1.8x faster on 2 workers than on 1
(joblib and Dask) with identical results; runner overhead per task (trivial classifier) <= 50 ms.
Pool and cluster start-up are excluded from the timed runs (they are paid once per session) and
reported separately. On a machine shared with other jobs the speed-up is bounded by the free cores:
the script prints the load average next to the numbers.
"""
from __future__ import annotations

import argparse
import json
import os
import time

import pandas as pd

import robust_ref.experiments as E

STABLE = [c for c in E.ROW_COLUMNS if c not in E.VOLATILE_COLUMNS]


def scaling_grid(n_tasks: int) -> E.Grid:
    "A grid of n_tasks tasks (n_tasks a multiple of 40) with fits of ~0.05-0.3 s each."
    datasets = ["heart", "sonar", "ionosphere", "diabetes", "banknote"]
    seeds = max(1, n_tasks // 40)
    return E.Grid(datasets, [E.get_method("forest", n_estimators=30), E.get_method("gbdt", max_iter=30)],
                  noise=["uniform"], rates=[0.0, 0.1, 0.2, 0.3], seeds=seeds, name="bench")


def timed(f):
    t0 = time.perf_counter(); out = f(); return out, time.perf_counter() - t0


def bench_scaling(n_tasks: int) -> dict:
    grid = scaling_grid(n_tasks)
    res = {"tasks": len(grid)}
    ref, res["joblib_1"] = timed(lambda: E.run_grid(grid, backend="joblib", n_jobs=1, progress=False))
    warm = E.Grid(["heart"], ["dummy"], seeds=4, name="warm-up")   # start the pool and import the package in its workers
    _, res["joblib_pool_start"] = timed(lambda: E.run_grid(warm, backend="joblib", n_jobs=2, progress=False))
    out, res["joblib_2"] = timed(lambda: E.run_grid(grid, backend="joblib", n_jobs=2, progress=False))
    pd.testing.assert_frame_equal(ref[STABLE], out[STABLE], check_exact=True)
    res["sum_fit_seconds_serial"] = float(ref.fit_seconds.sum())
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        return res
    for n in (1, 2):
        t0 = time.perf_counter()
        with LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None) as cl, Client(cl) as c:
            c.run(lambda: __import__("robust_ref.experiments"))   # workers import the package before the clock starts
            res[f"dask_{n}_cluster_start"] = time.perf_counter() - t0
            out, res[f"dask_{n}"] = timed(lambda: E.run_grid(grid, backend="dask", client=c, progress=False))
        pd.testing.assert_frame_equal(ref[STABLE], out[STABLE], check_exact=True)
    res["identical"] = True
    return res


def bench_overhead(n_tasks: int = 400) -> dict:
    "Runner overhead per task: wall time minus fit time, for a trivial classifier (majority class)."
    grid = E.Grid(["heart"], ["dummy"], noise=["uniform"], rates=[0.1], seeds=n_tasks, name="overhead")
    E.run_task(grid.tasks()[0])   # load the data once, as a long run does
    df, wall = timed(lambda: E.run_grid(grid, backend="serial", progress=False))
    df2, wall_store = timed(lambda: E.run_grid(grid, f"/tmp/bench_overhead_{os.getpid()}", backend="serial", progress=False, force=True))
    return {"tasks": len(grid), "ms_per_task": 1000 * wall / len(grid),
            "ms_per_task_minus_fit": 1000 * (wall - df.fit_seconds.sum()) / len(grid),
            "ms_per_task_with_store": 1000 * wall_store / len(grid)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=200, help="tasks in the scaling grid (multiple of 40)")
    ap.add_argument("--json", help="also write the numbers to this file")
    a = ap.parse_args()
    load = os.getloadavg()
    over = bench_overhead()
    print(f"load average {load[0]:.1f} on {os.cpu_count()} cores")
    print(f"runner overhead: {over['ms_per_task_minus_fit']:.2f} ms/task (wall {over['ms_per_task']:.2f} ms/task, "
          f"with the result store {over['ms_per_task_with_store']:.2f} ms/task; target <= 50 ms)")
    sc = bench_scaling(a.tasks)
    print(f"scaling grid: {sc['tasks']} tasks, sum of fit times {sc['sum_fit_seconds_serial']:.1f} s")
    print(f"joblib: 1 worker {sc['joblib_1']:.1f} s, 2 workers {sc['joblib_2']:.1f} s -> speed-up "
          f"{sc['joblib_1'] / sc['joblib_2']:.2f}x (pool start {sc['joblib_pool_start']:.1f} s)")
    if "dask_1" in sc:
        print(f"dask:   1 worker {sc['dask_1']:.1f} s, 2 workers {sc['dask_2']:.1f} s -> speed-up "
              f"{sc['dask_1'] / sc['dask_2']:.2f}x (cluster start {sc['dask_1_cluster_start']:.1f} / {sc['dask_2_cluster_start']:.1f} s)")
    print("results identical across joblib 1/2 and Dask 1/2 workers:", sc.get("identical", "dask not installed"))
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    if a.json:
        with open(a.json, "w") as f: json.dump(dict(overhead=over, scaling=sc, load=load), f, indent=1)


if __name__ == "__main__":
    main()
