"""Why RMBoost often stops at one tree: the stall diagnosis of chapter 10 on the record's protocol (the Table 3 grid's
tasks: same splits, noisy labels and fit seeds as the results of record), at full size. For each fit of RMBoost with
the paper's settings (K = 200, λ = 1/√n, ≤ 11-leaf trees on weighted bootstrap resamples): `stall_summary` (nonzero
rules, R after round 1 and at the end, rounds at which R fell, edges against λ, support of the final dual, margins at
|f| = ½) and `pricing_oracle_gap` (the largest edge a much stronger search finds at the final duals; R after adding
its rule, after 20 more rounds priced by the direct tree, and after adding the tree grown on the unweighted sample).
Prints the table and a summary; writes it as CSV with its provenance (commit, date, load, cores). Never asserts.

    .venv/bin/python benchmarks/bench_rmboost_stall.py [--datasets ...] [--splits 3] [--rates 0 0.2] [--draws 200]
                                                       [--rounds 20] [--csv benchmarks/measured]

One process, one BLAS thread: 48 fits (8 datasets × 3 partitions × 2 rates) take about 2–3 minutes on 2 cores.
"""
import argparse
import os
import subprocess
import time
from pathlib import Path

import pandas as pd
from threadpoolctl import threadpool_limits

from robust_ref.experiments import example_grids, read_grid
from robust_ref.experiments.run import task_data
from robust_ref.rmboost import pricing_oracle_gap, stall_summary


def stall_rows(grid, draws=200, rounds=20, progress=print):
    "One row per RMBoost task of `grid`: the task, the fit's `stall_summary` and the oracle's answer."
    rows = []
    for t in grid.tasks():
        X, X_te, _, y, y_te = task_data(t)
        t0 = time.perf_counter()
        clf = t.method.build(t.seeds()["fit"]).fit(X, y)
        fit_s = time.perf_counter() - t0
        gap = pricing_oracle_gap(clf, X, y, n_draws=draws, rounds=rounds)
        row = dict(dataset=t.dataset, noise=t.noise, rate=t.rate, split=t.split, **stall_summary(clf, X, y),
                   oracle_edge=gap.edge, oracle_edge_over_lam=gap.edge / gap.lam, oracle_source=gap.source,
                   oracle_violated=gap.violated, R_refit=gap.risk, R_with_oracle_rule=gap.risk_with_rule,
                   R_after_direct_rounds=float(gap.risk_continued[-1]), direct_rounds=len(gap.risk_continued) - 2,
                   R_with_empirical_tree=gap.risk_with_empirical_tree, empirical_tree_error=gap.empirical_tree_error,
                   test_error=float((clf.predict(X_te) != y_te).mean()), fit_s=fit_s,
                   oracle_s=time.perf_counter() - t0 - fit_s)
        rows.append(row)
        if progress:
            progress(f"{t.dataset:18s} {t.noise:8s} {t.rate:.1f} split {t.split}: nonzero {row['nonzero_rules']:3d}, R "
                     f"{row['R_round1']:.4f} → {row['R_final']:.4f}, oracle edge/λ {row['oracle_edge_over_lam']:.1f}, R with its "
                     f"rule {row['R_with_oracle_rule']:.4f}, with the empirical tree {row['R_with_empirical_tree']:.4f}")
    return pd.DataFrame(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    grid = read_grid(example_grids()["rmboost_table3"])
    ap.add_argument("--datasets", nargs="+", default=list(grid.datasets))
    ap.add_argument("--splits", type=int, default=3)
    ap.add_argument("--rates", nargs="+", type=float, default=[0.0, 0.2])
    ap.add_argument("--draws", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--csv", default="", help="folder to write rmboost_stall.csv into (empty: print only)")
    a = ap.parse_args()
    threadpool_limits(1)
    sub = grid.subset(datasets=a.datasets, methods=["RMBoost"], noise=["uniform"], rates=a.rates, splits=a.splits)
    t0 = time.perf_counter()
    df = stall_rows(sub, a.draws, a.rounds)
    here = Path(__file__).resolve().parent.parent
    commit = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=here, capture_output=True, text=True).stdout.strip()
    df = df.assign(commit=commit, measured=time.strftime("%Y-%m-%d"), load=round(os.getloadavg()[0], 2), cores=os.cpu_count())
    pd.set_option("display.width", 250); pd.set_option("display.max_columns", 40)
    print(df.drop(columns=["commit", "measured", "load", "cores"]).round(4).to_string())
    by = df.groupby("rate")
    print(by.agg(fits=("single_rule", "size"), single_rule=("single_rule", "sum"), R_fell_after_round1=("rounds_R_fell", lambda s: (s > 0).sum()),
                 oracle_violated=("oracle_violated", "sum"),
                 R_lowered_by_oracle_rule=("R_with_oracle_rule", lambda s: (s < df.loc[s.index, "R_final"] - 1e-9).sum()),
                 R_lowered_by_empirical_tree=("R_with_empirical_tree", lambda s: (s < df.loc[s.index, "R_final"] - 1e-9).sum())).to_string())
    print(f"{len(df)} fits in {time.perf_counter() - t0:.0f} s (commit {commit})")
    if a.csv:
        out = Path(a.csv) / "rmboost_stall.csv"
        df.to_csv(out, index=False)
        print("written", out)


if __name__ == "__main__":
    main()
