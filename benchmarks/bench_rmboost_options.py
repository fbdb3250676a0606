"""RMBoost's paper algorithm against its pricing options, on the record's protocol (the Table 3 grid's tasks: same
splits, noisy labels and fit seeds as the results of record). For each task, RMBoost with the paper's settings (K = 200,
λ = 1/√n, ≤ 11-leaf trees on weighted bootstrap resamples drawn from the LP's vertex dual) and each option:

- `smoothed`: the pricing weights are the smoothed running mean of the vertex duals, p ← θ·p + (1−θ)·p_vertex with
  θ = 0.8 (a stabilised dual in the sense of Wentges 1997), so a round's bootstrap is not drawn from one degenerate
  vertex's few support points;
- `weighted`: the tree is grown on the whole sample with the duals as sample weights (`resample=False`), no bootstrap;
- `smoothed+weighted`: both.

Per fit: the certified R (every option solves the same restricted LP and certifies it as the paper's algorithm does),
nonzero rules, the last round at which R fell, the test error, the fit's seconds, and its stability: the share of test
predictions that change when every training feature is moved by one ulp (`np.nextafter`). Prints the table, the
per-option means and a paired comparison with the paper's algorithm across the tasks (wins/ties/losses, Wilcoxon's
signed-rank p-value). Writes the table as CSV with its provenance (commit, date, load, cores). Never asserts.

    .venv/bin/python benchmarks/bench_rmboost_options.py [--datasets ...] [--splits 3] [--rates 0 0.2] [--n-jobs 2]
                                                         [--csv benchmarks/measured]

One BLAS thread per process: 48 tasks × 4 configurations × 2 fits take about 15 minutes on 2 cores.
"""
import argparse
import os
import subprocess
import time
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from threadpoolctl import threadpool_limits

from robust_ref.experiments import example_grids, read_grid
from robust_ref.experiments.run import task_data
from robust_ref.rmboost import stall_summary
from robust_ref.statistics import paired_comparison

OPTIONS = {"paper": {}, "smoothed": {"dual": "smoothed"}, "weighted": {"resample": False},
           "smoothed+weighted": {"dual": "smoothed", "resample": False}}


def option_rows(task, options=OPTIONS) -> list[dict]:
    "One row per option on one RMBoost task of the Table 3 grid."
    threadpool_limits(1)
    X, X_te, _, y, y_te = task_data(task)
    X_ulp = np.nextafter(X, np.inf)
    rows = []
    for name, params in options.items():
        t0 = time.perf_counter()
        clf = task.method.build(task.seeds()["fit"]).set_params(**params).fit(X, y)
        fit_s = time.perf_counter() - t0
        pred = clf.predict(X_te)
        moved = task.method.build(task.seeds()["fit"]).set_params(**params).fit(X_ulp, y).predict(X_te)
        st = stall_summary(clf, X, y)
        rows.append(dict(dataset=task.dataset, noise=task.noise, rate=task.rate, split=task.split, option=name,
                         R_round1=st["R_round1"], R_final=st["R_final"], nonzero_rules=st["nonzero_rules"],
                         single_rule=st["single_rule"], last_fall=st["last_fall"], rounds_R_fell=st["rounds_R_fell"],
                         dual_support=st["dual_support"], test_error=float(np.mean(pred != y_te)),
                         ulp_changed=float(np.mean(pred != moved)), fit_s=fit_s))
    return rows


def paired(df: pd.DataFrame, col: str, base: str = "paper") -> pd.DataFrame:
    "Each option against `base` on `col`, paired by task (the statistics chapter's `paired_comparison`)."
    wide = df.pivot_table(index=["dataset", "rate", "split"], columns="option", values=col)
    return paired_comparison(wide, base).assign(measure=col)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    grid = read_grid(example_grids()["rmboost_table3"])
    ap.add_argument("--datasets", nargs="+", default=list(grid.datasets))
    ap.add_argument("--splits", type=int, default=3)
    ap.add_argument("--rates", nargs="+", type=float, default=[0.0, 0.2])
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--csv", default="", help="folder to write rmboost_options.csv into (empty: print only)")
    a = ap.parse_args()
    sub = grid.subset(datasets=a.datasets, methods=["RMBoost"], noise=["uniform"], rates=a.rates, splits=a.splits)
    tasks = list(sub.tasks())
    t0 = time.perf_counter()
    done = Parallel(n_jobs=a.n_jobs, verbose=5)(delayed(option_rows)(t) for t in tasks)
    df = pd.DataFrame([r for rows in done for r in rows])
    here = Path(__file__).resolve().parent.parent
    commit = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=here, capture_output=True, text=True).stdout.strip()
    df = df.assign(commit=commit, measured=time.strftime("%Y-%m-%d"), load=round(os.getloadavg()[0], 2), cores=os.cpu_count())
    pd.set_option("display.width", 250); pd.set_option("display.max_columns", 40)
    print(df.drop(columns=["commit", "measured", "load", "cores"]).round(4).to_string())
    print(df.groupby(["rate", "option"]).agg(fits=("R_final", "size"), single_rule=("single_rule", "sum"),
                                             R_final=("R_final", "mean"), test_error=("test_error", "mean"),
                                             nonzero=("nonzero_rules", "median"), last_fall=("last_fall", "median"),
                                             ulp_changed=("ulp_changed", "mean"), fit_s=("fit_s", "median")).round(4).to_string())
    print(pd.concat([paired(df, "R_final"), paired(df, "test_error")]).round(4).to_string())
    print(f"{len(tasks)} tasks × {df.option.nunique()} options in {time.perf_counter() - t0:.0f} s (commit {commit})")
    if a.csv:
        out = Path(a.csv) / "rmboost_options.csv"
        df.to_csv(out, index=False)
        print("written", out)


if __name__ == "__main__":
    main()
