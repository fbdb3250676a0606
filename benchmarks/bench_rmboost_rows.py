"""Which rows of RMBoost's master LP matter at its optimum — the measurement a master that scales with n must start
from. RMBoost's LP has one pair of constraints −½ ≤ f(x_i) ≤ ½ per training sample; a row-generation master would keep a
working set of the rows active at the optimum (|f(x_i)| = ½), and exact aggregation would merge samples whose label and
rule outputs coincide. For each Table 3 task (partition 0, clean and 20% uniform noise; the record's splits and noisy
labels), the paper's algorithm and the estimator's default (K = 200): rules in the LP, nonzero rules, the share of
samples whose margin constraint is active, and the number of distinct (label, rule outputs) patterns over all the LP's
rules and over its nonzero rules only. Prints the table and the medians; never asserts (results, not timings).

    .venv/bin/python benchmarks/bench_rmboost_rows.py [--splits 1]
"""
import argparse

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from robust_ref.experiments import example_grids, read_grid
from robust_ref.experiments.run import task_data
from robust_ref.rmboost import PAPER_SETTINGS, RMBoostClassifier


def row_summary(clf: RMBoostClassifier, X, y, tol: float = 1e-9) -> dict:
    "Active margin constraints and distinct (label, rule outputs) patterns of a fitted RMBoost's final LP."
    H, y_pm = clf._rule_values(X), np.where(np.asarray(y) == clf.classes_[1], 1, -1)
    f = H @ clf.coef_ if H.shape[1] else np.zeros(len(y_pm))
    nz = np.abs(clf.coef_) > tol
    return dict(n=len(y_pm), rules=H.shape[1], nonzero=int(nz.sum()), active_share=float(np.mean(np.abs(np.abs(f) - 0.5) <= tol)),
                patterns_all_rules=len(np.unique(np.c_[y_pm, H], axis=0)),
                patterns_nonzero_rules=len(np.unique(np.c_[y_pm, H[:, nz]], axis=0)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--splits", type=int, default=1)
    a = ap.parse_args()
    threadpool_limits(1)
    grid = read_grid(example_grids()["rmboost_options"]).subset(methods=["RMBoost"], splits=a.splits)
    rows = []
    for t in grid.tasks():
        X, _, _, y, _ = task_data(t)
        for option, kw in (("paper", PAPER_SETTINGS), ("default", {})):
            clf = RMBoostClassifier(random_state=t.seeds()["fit"], **kw).fit(X, y)
            rows.append(dict(dataset=t.dataset, rate=t.rate, split=t.split, option=option, **row_summary(clf, X, y)))
    df = pd.DataFrame(rows)
    pd.set_option("display.width", 200)
    print(df.round(3).to_string())
    df["single_rule"] = df.nonzero == 1
    print(df.groupby(["option", "single_rule"])[["n", "rules", "nonzero", "active_share", "patterns_all_rules",
                                                 "patterns_nonzero_rules"]].median().round(3).to_string())


if __name__ == "__main__":
    main()
