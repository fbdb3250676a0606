"""RMBoost fit cost: column generation on the warm-started master vs rebuilding and re-solving the LP from
scratch every round (the authors' approach), at K rounds on `credit` and `diabetes` (n ≈ 700); then how fit time
grows with n (subsamples of `magic`) and with K. Prints tables (and ratios side by side); never asserts.

    .venv/bin/python benchmarks/bench_rmboost.py [--rounds 200] [--datasets credit diabetes] [--sizes 100 300 1000 3000 5000]
                                                 [--scaling-rounds 50] [--k-grid 25 50 100 200] [--linprog-every 0]
                                                 [--blas-threads 1] [--plot scaling.png]

The warm path is the fit itself with the library default: the dual LP (17), a row per rule, kept alive in
`DenseDualSimplex` and re-solved by its compiled dual simplex from the previous basis (each solve certified optimal;
the numba code is loaded before any timing). The from-scratch path re-solves, at every round, the authors' LP (16) with exactly the rules the warm run had
at that round (new HiGHS model, presolve on), so both paths solve the same 200 LPs and must give the same R
(reported: max |ΔR| over the rounds). `--linprog-every m`
also solves every m-th of those LPs with scipy's linprog in the official code's formulation (A_ub with 2n rows) and
extrapolates its total. BLAS is limited to one thread (threadpoolctl), as in bench_adaboost.py.
"""
import argparse
import time

import numpy as np
from scipy.optimize import linprog
from threadpoolctl import threadpool_limits

from _common import warm_up_rmboost
from robust_ref.datasets import load_dataset
from robust_ref.learners import rule_matrix
from robust_ref.rmboost import PAPER_SETTINGS, RMBoostClassifier, RMBoostMaster


def warm_fit(X, y, rounds, seed=0, form="dense"):
    "Fit RMBoost (official mode, resampled ≤11-leaf trees) with the warm-started master; returns (model, wall seconds)."
    t0 = time.perf_counter()
    model = RMBoostClassifier(**PAPER_SETTINGS, n_estimators=rounds, random_state=seed, lp_form=form).fit(X, y)
    return model, time.perf_counter() - t0


def scratch_solves(model, X, y_pm):
    "Re-solve every round's LP (16) from scratch (new HiGHS model, presolve on); returns (seconds, max |ΔR|, pivots)."
    V = rule_matrix(model.rules_, X)
    lam = model.lam_
    total, gap, pivots = 0.0, 0.0, 0
    for k in range(1, len(model.risk_path_)):
        act = np.flatnonzero(model.active_path_[k])
        if act.size == 0: continue
        m = RMBoostMaster(y_pm, lp_warm_start=False, form="primal")   # the authors' LP (16), rebuilt each round
        m.add_rules(V[:, act], lam[act])
        sol = m.solve()                               # seconds include building the LP, as the authors do
        total += sol.seconds; pivots += sol.iterations
        gap = max(gap, abs(sol.risk - model.risk_path_[k]))
    return total, gap, pivots


def linprog_solves(model, X, y_pm, every):
    "The official code's formulation with scipy linprog on every `every`-th round; returns extrapolated seconds, max |ΔR|."
    V = rule_matrix(model.rules_, X)
    n = len(y_pm)
    total, gap, done = 0.0, 0.0, 0
    ks = range(every, len(model.risk_path_), every)
    for k in ks:
        act = np.flatnonzero(model.active_path_[k])
        t0 = time.perf_counter()
        Phi = V[:, act]; tau = Phi.T @ y_pm / n; lam = model.lam_[act]
        A = np.vstack([np.hstack([Phi, -Phi]), np.hstack([-Phi, Phi])])
        r = linprog(np.r_[lam - tau, lam + tau], A_ub=A, b_ub=np.full(2 * n, 0.5), bounds=(0, None), method="highs")
        total += time.perf_counter() - t0; done += 1
        gap = max(gap, abs(r.fun + 0.5 - model.risk_path_[k]))
    return total * (len(model.risk_path_) - 1) / max(done, 1), gap


def compare(name, rounds, linprog_every):
    X, y = load_dataset(name, missing="impute", return_X_y=True)
    model, wall = warm_fit(X, y, rounds)
    y_pm = np.where(y == model.classes_[1], 1.0, -1.0)
    cold_s, gap, cold_piv = scratch_solves(model, X, y_pm)
    lp, learn = model.lp_seconds_, model.learner_seconds_
    print(f"\n{name}: n = {len(y)}, d = {X.shape[1]}, K = {rounds}, {len(model.rules_)} rules, R = {model.minimax_risk_:.6f}")
    print(f"  fit wall time                 {wall:8.2f} s")
    print(f"  base learner (trees)          {learn:8.2f} s  ({learn / wall:5.1%} of fit)")
    print(f"  LP, warm-started master       {lp:8.2f} s  ({lp / wall:5.1%} of fit; {model.lp_iterations_} simplex pivots, "
          f"{model.lp_fallbacks_} HiGHS fallbacks)")
    print(f"  LP (16), rebuilt + solved cold{cold_s:8.2f} s  ({cold_piv} pivots)")
    print(f"  ratio cold / warm LP time     {cold_s / lp:8.1f}×  (target ≥ 20×)")
    print(f"  LP share ≤ learner share?     {lp <= learn}  (LP {lp / wall:.1%} vs learner {learn / wall:.1%})")
    print(f"  max |R_warm − R_cold| over rounds {gap:.1e}  (target ≤ 1e-7)")
    row = dict(dataset=name, n=len(y), K=rounds, fit_s=wall, learner_s=learn, lp_warm_s=lp, lp_warm_pivots=model.lp_iterations_,
               lp_fallbacks=model.lp_fallbacks_,
               lp_cold_s=cold_s, lp_cold_pivots=cold_piv, ratio_cold=cold_s / lp, max_dR=gap)
    if linprog_every:
        lp_s, lp_gap = linprog_solves(model, X, y_pm, linprog_every)
        print(f"  LP, linprog A_ub form (extrap.) {lp_s:6.2f} s  → ratio {lp_s / lp:.1f}×; max |ΔR| {lp_gap:.1e}")
        row.update(lp_linprog_s=lp_s, ratio_linprog=lp_s / lp, max_dR_linprog=lp_gap)
    return row


def scaling(sizes, rounds, k_grid, plot, forms=("dense",)):
    "Fit time vs n (magic subsamples, K = rounds) and vs K (credit), for each LP form; returns two lists of dict rows."
    X, y = load_dataset("magic", return_X_y=True)
    rows_n, rows_k = [], []
    print(f"\nfit time vs n (magic subsamples, K = {rounds}):\n  form        n   fit s    LP s  learner s  pivots")
    for n in sizes:
        idx = np.random.default_rng(n).choice(len(y), n, replace=False)
        for form in forms:
            m, wall = warm_fit(X[idx], y[idx], rounds, form=form)
            rows_n.append(dict(form=form, n=n, K=rounds, fit_s=wall, lp_s=m.lp_seconds_, learner_s=m.learner_seconds_,
                               pivots=m.lp_iterations_))
            print(f"  {form:7s} {n:6d} {wall:7.2f} {m.lp_seconds_:7.2f} {m.learner_seconds_:10.2f} {m.lp_iterations_:7d}")
    Xc, yc = load_dataset("credit", missing="impute", return_X_y=True)
    print(f"\nfit time vs K (credit, n = {len(yc)}):\n  form        K   fit s    LP s  learner s  pivots")
    for K in k_grid:
        for form in forms:
            m, wall = warm_fit(Xc, yc, K, form=form)
            rows_k.append(dict(form=form, n=len(yc), K=K, fit_s=wall, lp_s=m.lp_seconds_, learner_s=m.learner_seconds_,
                               pivots=m.lp_iterations_))
            print(f"  {form:7s} {K:6d} {wall:7.2f} {m.lp_seconds_:7.2f} {m.learner_seconds_:10.2f} {m.lp_iterations_:7d}")
    if plot:
        import matplotlib; matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(1, 2, figsize=(8, 3))
        for key, lab in (("fit_s", "fit"), ("lp_s", "LP"), ("learner_s", "learner")):
            ax[0].loglog([r["n"] for r in rows_n], [r[key] for r in rows_n], "o-", label=lab)
            ax[1].plot([r["K"] for r in rows_k], [r[key] for r in rows_k], "o-", label=lab)
        ax[0].set(xlabel=f"n (K = {rounds})", ylabel="seconds"); ax[1].set(xlabel="K (credit)"); ax[0].legend()
        fig.tight_layout(); fig.savefig(plot, dpi=100); print(f"figure written to {plot}")
    return rows_n, rows_k


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--datasets", nargs="*", default=["credit", "diabetes"])
    ap.add_argument("--sizes", type=int, nargs="*", default=[100, 300, 1000, 3000, 5000])
    ap.add_argument("--scaling-rounds", type=int, default=50)
    ap.add_argument("--k-grid", type=int, nargs="*", default=[25, 50, 100, 200])
    ap.add_argument("--linprog-every", type=int, default=5, help="0 = skip the linprog formulation")
    ap.add_argument("--blas-threads", type=int, default=1, help="0 = leave BLAS threading alone")
    ap.add_argument("--plot", default="", help="write the scaling figure to this PNG")
    ap.add_argument("--forms", nargs="*", default=["dense", "dual", "primal"], help="LP forms in the scaling tables")
    ap.add_argument("--csv", default="", help="write the tables as CSV files into this folder (read by 10_rmboost)")
    a = ap.parse_args()
    if a.blas_threads > 0: threadpool_limits(a.blas_threads)
    warm_up_rmboost()
    rows = [compare(name, a.rounds, a.linprog_every) for name in a.datasets]
    rows_n, rows_k = scaling(a.sizes, a.scaling_rounds, a.k_grid, a.plot, a.forms) if (a.sizes or a.k_grid) else ([], [])
    if a.csv:
        import os
        import pandas as pd
        os.makedirs(a.csv, exist_ok=True)
        stamp = dict(measured=time.strftime("%Y-%m-%d"), load=round(os.getloadavg()[0], 2), cores=os.cpu_count())
        for name, table in (("rmboost_warm_vs_cold", rows), ("rmboost_time_vs_n", rows_n), ("rmboost_time_vs_k", rows_k)):
            if table: pd.DataFrame(table).assign(**stamp).to_csv(f"{a.csv}/{name}.csv", index=False, float_format="%.6g")
        print(f"tables written to {a.csv}/")


if __name__ == "__main__":
    main()
