"""Column generation on a boosting master LP: warm-started `MasterLP` vs rebuilding and solving from scratch.

Usage (from the repository root):

    .venv/bin/python benchmarks/bench_lp.py                       # both masters, diabetes (n = 768), 200 rounds
    .venv/bin/python benchmarks/bench_lp.py --master lpboost --rounds 100

What is timed. A column sequence is generated once, by a real column-generation run on the warm
master: each round a CART tree (max_leaf_nodes=11) is fitted to a weighted bootstrap resample drawn
with the current dual weights (the RMBoost authors' "official mode": no early stop, so all rounds
add a column). The LP work of every round is then timed three ways on exactly the same LPs:

* warm     -- one master alive for the whole run: add the round's rule, `solve()` from the previous
              basis (this is what `robust_ref` does: both masters by default solve their LP over sample
              weights -- RMBoost's dual (17), LPBoost's dual -- on chapter 06's dense dual simplex, each
              solve certified; --rm-form dual/primal puts RMBoost's (17)/(16) on HiGHS, --lp-backend highs
              LPBoost's primal on HiGHS's primal simplex);
* highspy  -- build a new `MasterLP` from all columns so far and solve it cold with HiGHS's
              defaults (presolve, HiGHS chooses the algorithm);
* linprog  -- build the dense inequality-form matrices and call
              `scipy.optimize.linprog(method="highs")`, the way the RMBoost authors' script does it.

Every round's objective is compared across the three (they solve the same LP). No assertions on
time: the ratios are printed side by side.

Then the pivots of the warm masters (--no-profile skips it): the same column sequence is replayed through a fresh
master one pivot at a time, counting the *degenerate* pivots (no reduced cost moves by more than 1e-12: the dual
objective does not move), per block of rounds; and the master is replayed with `DenseDualSimplex`'s cost perturbation
(`perturb=--perturb`, off by default in the library) against the default, alternated, for pivots and seconds.

Then the share of the LP in a whole fit: `LPBoostClassifier` (nu = --nu and nu = 'auto') and `RMBoostClassifier`
(K = rounds and K = 2 x rounds) with the same 11-leaf CART learner of the compiled tree builder (RMBoost: on weighted
bootstrap resamples, as integer counts; LPBoost: with the dual weights), their own `lp_seconds_` against
`learner_seconds_` and `lp_iterations_`; with --perturb > 0 the same fits again with the perturbation on (another
optimal vertex, so other rules and predictions: not the library's default).

Then the rule learner, old vs new (--learner-data, default diabetes and credit; K = rounds): RMBoost with its default
'tree' learner (the compiled builder) against the same fit with scikit-learn's `DecisionTreeClassifier(max_leaf_nodes=
11)` on copied bootstrap rows (the learner before the compiled builder; it draws the same resamples from the same
seed), alternated --repeats times, medians. --accuracy-seeds m adds test accuracy of both over m seeds (70/30 splits).

--floor (alone: --floor --no-cold --no-profile --no-fits --learner-data) asks how low the LP's time could go with the
pivots it makes. Whole fits of RMBoost (K = 2 x rounds) and LPBoost (nu = --nu, `rounds`) are run on every pivot path the
library can take (the default; the cost perturbation --perturb; HiGHS, the fallback: RMBoost's (17) on its dual simplex,
LPBoost's primal on its primal simplex), and the default path's rows are replayed through a fresh master to read, per
pivot, the rows t, the basic structural columns s and the columns a pruned pricing must still evaluate. The seconds a pivot must spend were measured here at each size: the two passes over an explicit B^-1 (B^-1 a_q,
then the rank-1 update) and the pivot row B^-1_r A over t x n. The floor is their sum over the path's pivots, with the
t x t inverse the solver keeps and with an inverse of only its s x s structural core (a solver that factorises less
cannot do less), against the learner's seconds in the same fit: LP <= learner needs the floor below it, before any
pricing, ratio test, certificate or Python is paid for. Then the profile: one more fit of each under cProfile, its LP
seconds split into the compiled pivots, the refactorisations, the certificates, adding the round's rows and the Python
around them, beside what the compiled pivots' work should cost at the unit costs measured above (the full pivot row,
the two passes over the t x t inverse, and the dual steepest-edge weights' pass over it where the pivot takes one).
"""
import argparse
import cProfile
import pstats
import time
from contextlib import contextmanager

import numpy as np
import pandas as pd
from scipy.optimize import linprog
from numba import njit
from sklearn.base import clone
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier
from threadpoolctl import threadpool_limits

from _common import warm_up_rmboost
from robust_ref.datasets import load_dataset
from robust_ref.learners import TreeLearner
try: import robust_ref.master_lp as lp_module   # the dense dual simplex and its pivot kernel live here
except ImportError: import robust_ref.lp as lp_module   # --against an older commit: they lived in robust_ref.lp
from robust_ref.lp import DenseDualSimplex, LPBoostClassifier, LPBoostMaster, MasterLP
import robust_ref.rmboost as _rmboost
from robust_ref.rmboost import RMBoostClassifier, RMBoostMaster
# --against a commit from before `dual` existed: its RMBoost had only the vertex duals, and resampled by default
PAPER_SETTINGS = getattr(_rmboost, "PAPER_SETTINGS", {"resample": True})



def load(name):
    "X (missing values imputed, as the library's loader does) and y in ±1 (the larger label is +1)."
    X, y = load_dataset(name, missing="impute", return_X_y=True)
    return np.asarray(X, float), np.where(y == np.unique(y)[1], 1.0, -1.0)


def bootstrap_tree_rule(X, signed, rng):
    "CART with 11 leaves on a weighted bootstrap by |signed| with labels sign(signed); returns h(X) in ±1."
    w = np.abs(signed); lab = np.where(signed >= 0, 1.0, -1.0)
    idx = rng.choice(len(X), len(X), replace=True, p=w / w.sum())
    if np.unique(lab[idx]).size < 2: return np.full(len(X), lab[idx][0])
    tree = DecisionTreeClassifier(max_leaf_nodes=11, random_state=int(rng.integers(2**31 - 1)))
    return tree.fit(X[idx], lab[idx]).predict(X).astype(float)


# ---------------------------------------------------------------------------------------------- LPBoost
def lpboost_warm(X, y, rounds, nu, seed, backend="dense"):
    "Real column generation on the warm master; returns the column sequence, per-round LP times and objectives."
    rng = np.random.default_rng(seed)
    n = len(y); D = np.full(n, 1 / (nu * n))
    t0 = time.perf_counter(); master = LPBoostMaster(y, D, backend=backend); t_build = time.perf_counter() - t0
    u = np.full(n, 1 / n)
    H, times, objs, iters = [], [], [], []
    for _ in range(rounds):
        h = bootstrap_tree_rule(X, u * y, rng)
        H.append(h)
        t0 = time.perf_counter()
        master.add_rule(h); sol = master.solve()
        times.append(time.perf_counter() - t0)
        u = sol.u; objs.append(sol.objective); iters.append(sol.iterations)
    times[0] += t_build
    return np.column_stack(H), np.array(times), np.array(objs), np.array(iters)


def lpboost_cold_highspy(H, y, nu, k):
    "Rebuild the LPBoost primal with k rules (columns ρ, ξ, a) as a new MasterLP, HiGHS defaults, and solve it cold."
    n = len(y)
    c = np.r_[1.0, np.full(n, -1 / (nu * n)), np.zeros(k)]
    A = np.r_[np.c_[-np.ones(n), np.eye(n), y[:, None] * H[:, :k]], np.r_[0.0, np.zeros(n), np.ones(k)][None]]
    lb = np.r_[-np.inf, np.zeros(n + k)]
    lp = MasterLP.from_arrays(c, A, np.r_[np.zeros(n), 1.0], np.r_[np.full(n, np.inf), 1.0], lb, np.inf,
                              sense="max", algorithm="auto")
    return lp.solve().objective


def lpboost_cold_linprog(H, y, nu, k):
    "The LPBoost primal in linprog's form (min -ρ + DΣξ, -y_i H_i a - ξ_i + ρ ≤ 0, Σa = 1), dense, from scratch."
    n = len(y); D = 1 / (nu * n)
    c = np.r_[-1.0, np.full(n, D), np.zeros(k)]
    A_ub = np.c_[np.ones(n), -np.eye(n), -y[:, None] * H[:, :k]]
    A_eq = np.r_[0.0, np.zeros(n), np.ones(k)][None]
    r = linprog(c, A_ub=A_ub, b_ub=np.zeros(n), A_eq=A_eq, b_eq=[1.0],
                bounds=[(None, None)] + [(0, None)] * (n + k), method="highs")
    assert r.status == 0, r.message
    return -r.fun


# ---------------------------------------------------------------------------------------------- RMBoost
def rmboost_warm(X, y, rounds, seed, form="dense"):
    "The library's `RMBoostMaster` (LP (16) or its dual (17)), one rule per round; duals → weights p."
    rng = np.random.default_rng(seed)
    n = len(y); lam = 1 / np.sqrt(n)
    t0 = time.perf_counter(); master = RMBoostMaster(y, form=form); t_build = time.perf_counter() - t0
    p = y / n
    H, times, objs, iters = [], [], [], []
    for _ in range(rounds):
        v = bootstrap_tree_rule(X, p, rng)
        H.append(v)
        t0 = time.perf_counter()
        master.add_rules(v[:, None], lam); sol = master.solve()
        times.append(time.perf_counter() - t0)
        p = y / n - sol.alpha_minus_beta
        objs.append(sol.risk); iters.append(sol.iterations)
    times[0] += t_build
    return np.column_stack(H), np.array(times), np.array(objs), np.array(iters)


def rmboost_arrays(H, y, k):
    n = len(y); lam = 1 / np.sqrt(n)
    Phi = H[:, :k]; tau = y @ Phi / n
    return np.r_[-tau + lam, tau + lam], np.c_[Phi, -Phi]


def rmboost_cold_highspy(H, y, k):
    n = len(y)
    c, M = rmboost_arrays(H, y, k)
    return MasterLP.from_arrays(c, M, np.full(n, -0.5), np.full(n, 0.5), offset=0.5, algorithm="auto").solve().objective


def rmboost_cold_linprog(H, y, k):
    "The authors' encoding: A_ub = [Φ -Φ; -Φ Φ; -I 0; 0 -I] (2n + 2t rows), b_ub = [½; ½; 0; 0]."
    n = len(y)
    c, M = rmboost_arrays(H, y, k)
    A_ub = np.r_[M, -M, -np.eye(2 * k)]
    b_ub = np.r_[np.full(2 * n, 0.5), np.zeros(2 * k)]
    r = linprog(c, A_ub=A_ub, b_ub=b_ub, bounds=(None, None), method="highs")
    assert r.status == 0, r.message
    return r.fun + 0.5


# ---------------------------------------------------------------------------------------------- pivots
@contextmanager
def perturbation(eps):
    "Every `DenseDualSimplex` made inside the block gets `perturb=eps` (the masters do not expose it)."
    defaults = DenseDualSimplex.__init__.__kwdefaults__
    saved = defaults["perturb"]; defaults["perturb"] = float(eps)
    try: yield
    finally: defaults["perturb"] = saved


@contextmanager
def pivot_by_pivot(observe):
    """Run the compiled pivots one at a time (the same pivots: each call re-prices, deterministically). `observe(args)`
    sees the solver's arrays (the arguments of `_dual_simplex_pivots`) before each pivot and returns what to call after
    it, or None."""
    real = lp_module._dual_simplex_pivots
    def stepped(*args):
        done, budget = 0, args[-1]
        while done < budget:
            after = observe(args)
            p, status = real(*args[:-1], 1)
            if p == 0: return done, status
            done += 1
            if after is not None: after()
        return done, lp_module._BUDGET_USED
    lp_module._dual_simplex_pivots = stepped
    try: yield
    finally: lp_module._dual_simplex_pivots = real


def one_pivot_at_a_time(log):
    "Log, per pivot, whether it was degenerate (no non-basic reduced cost moved by more than 1e-12)."
    def observe(args):
        basic, d = args[3], args[9]
        before = d.copy()
        def after():
            moved = np.abs(d - before); moved[basic] = 0.0
            log.append(moved.max() <= 1e-12)
        return after
    return pivot_by_pivot(observe)


def replay(master, H, y, nu, perturb=0.0, log=None, sizes=None, pricing=None):
    """A fresh dense master fed the columns of H one per round; returns (seconds, pivots per round, objectives).
    `sizes`, a list, gets (rows, basic structural columns) of the LP after each round; `pricing`, a list, gets per
    pivot the fraction of columns a pruned pricing must evaluate, the basic structural columns, the rows and whether
    the steepest-edge weights took a whole pass over B⁻¹ (`pruned_pricing`)."""
    n = len(y)
    with perturbation(perturb):
        m = LPBoostMaster(y, np.full(n, 1 / (nu * n))) if master == "lpboost" else RMBoostMaster(y)
    pivots, objs, T = [], [], 0.0
    for k in range(H.shape[1]):
        t0 = time.perf_counter()
        with one_pivot_at_a_time(log) if log is not None else pruned_pricing(pricing) if pricing is not None \
                else perturbation(perturb):
            if master == "lpboost": m.add_rule(H[:, k]); sol = m.solve(); it, obj = sol.iterations, sol.objective
            else: m.add_rules(H[:, k:k + 1], 1 / np.sqrt(n)); sol = m.solve(); it, obj = sol.iterations, sol.risk
        T += time.perf_counter() - t0; pivots.append(it); objs.append(obj)
        if sizes is not None: sizes.append((m.lp.n_rows, int((m.lp.basic < m.lp.N).sum())))
    assert m.fallbacks == 0, "a round went to HiGHS"
    return T, np.array(pivots), np.array(objs)


def pivot_profile(master, H, y, nu, perturb, block=50):
    "Degenerate pivots per block of rounds; then default vs perturbed replays, alternated (medians of 2)."
    log, rounds = [], []
    _, piv, _ = replay(master, H, y, nu, log=log)
    deg = np.array(log, bool); ends = np.cumsum(piv)
    print(f"\n-- {master}: pivots of the warm master, {H.shape[1]} rounds: {len(deg)} in all, {deg.sum()} degenerate "
          f"({deg.mean():.0%}) --")
    for lo in range(0, H.shape[1], block):
        a, b = (ends[lo - 1] if lo else 0), ends[min(lo + block, H.shape[1]) - 1]
        print(f"rounds {lo + 1:>3}-{min(lo + block, H.shape[1]):>3}: {b - a:>6d} pivots ({(b - a) / block:5.1f} a round), "
              f"{deg[a:b].sum():>6d} degenerate")
        rounds.append(dict(master=master, rounds=f"{lo + 1}-{min(lo + block, H.shape[1])}", pivots=int(b - a),
                           degenerate=int(deg[a:b].sum())))
    if perturb <= 0: return rounds, None
    runs = {0.0: [], perturb: []}
    for _ in range(2):
        for eps in runs: runs[eps].append(replay(master, H, y, nu, perturb=eps))
    (T0, p0, o0), (T1, p1, o1) = ((np.median([r[0] for r in runs[e]]), runs[e][0][1], runs[e][0][2]) for e in runs)
    row = dict(master=master, rounds=H.shape[1], pivots_default=int(p0.sum()), pivots_perturbed=int(p1.sum()),
               lp_s_default=T0, lp_s_perturbed=T1, speedup=T0 / T1, max_obj_diff=float(np.abs(o0 - o1).max()))
    print(f"perturb = {perturb:g}: pivots {p0.sum()} -> {p1.sum()}, LP s {T0:.2f} -> {T1:.2f} ({T0 / T1:.2f}x), "
          f"max |objective difference| {row['max_obj_diff']:.1e}")
    return rounds, row


# ---------------------------------------------------------------------------------------------- floor
@njit(cache=True)
def _basis_passes(Binv, v, reps):
    "`reps` pivots' worth of what a pivot does to an explicit B⁻¹: the entering column B⁻¹a_q, then the rank-1 update."
    t = Binv.shape[0]; row = np.empty(t); acc = 0.0
    for p in range(reps):
        col = np.dot(Binv, v); r = p % t
        for k in range(t): row[k] = Binv[r, k] / (col[r] + 1.0)
        for i in range(t):
            if i == r: continue
            c = col[i] * 1e-9               # small multipliers keep B⁻¹ bounded over thousands of repetitions
            for k in range(t): Binv[i, k] -= c * row[k]
        acc += col[0]
    return acc


@njit(cache=True)
def _pivot_rows(Binv, A, reps):
    "`reps` pivot rows B⁻¹_r·A (one gemv over the t × n rule matrix, as the library computes it)."
    acc = 0.0
    for p in range(reps): acc += np.dot(Binv[p % Binv.shape[0]], A)[0]
    return acc


def per_pivot_seconds(n, sizes, seed=0):
    "Measured seconds of a pivot's two passes over B⁻¹ and of its pivot row, at each basis size in `sizes`."
    rng = np.random.default_rng(seed)
    basis, row = [], []
    for t in sizes:
        B = rng.standard_normal((t, t)) * 1e-3
        v, A = np.sign(rng.standard_normal(t)), np.sign(rng.standard_normal((t, n)))
        reps = max(200, int(4e6 / t ** 2))
        for f, args, out in ((_basis_passes, (B, v), basis), (_pivot_rows, (B, A), row)):
            f(*args, 2); t0 = time.perf_counter(); f(*args, reps); out.append((time.perf_counter() - t0) / reps)
    return np.asarray(basis), np.asarray(row)


def pruned_pricing(log):
    """Log, per pivot, the fraction of structural columns that a pricing skipping provably ineligible columns must
    still evaluate, and the basic structural columns before the pivot. |B⁻¹_r a_j| ≤ ‖B⁻¹_r‖₁ max_k |A_kj|, so a
    column with |d_j| > H ‖B⁻¹_r‖₁ max_k |A_kj| can neither enter nor lower the Harris bound H; the count uses the
    pivot's true H, so any real pricing (which must first estimate H) evaluates at least these. Also logged: the rows
    t, and whether the pivot's steepest-edge weights cost a whole pass over B⁻¹ (8 × infeasible rows ≥ t)."""
    def observe(args):
        Vt, N, BT, basic, is_basic, at_upper, lb, hb, zB, d, tol, _ = args
        Binv, (t, m) = BT.T, Vt.shape        # the pivots hold B^-1 transposed (row by row)
        lo, hi = lb[basic], hb[basic]
        infeas = np.maximum(lo - zB, zB - hi)
        if t == 0 or infeas.max() <= tol: return None      # optimal: no pivot follows
        score = np.where(infeas > tol, infeas ** 2 / np.einsum("ij,ij->i", Binv, Binv), -1.0)   # dual steepest edge
        r = int(np.argmax(score)); sgn = -1.0 if lo[r] - zB[r] > 0 else 1.0
        g = Binv[r] @ Vt
        a = np.r_[sgn * (np.r_[g, -g] if N > m else g), -sgn * Binv[r]]   # the signed pivot row, slacks last
        movable = ~is_basic & (hb > lb)
        ok = movable & np.where(at_upper, a < -tol, a > tol)
        with np.errstate(divide="ignore", invalid="ignore"):
            H = np.min(np.where(ok, (d + np.where(at_upper, -tol, tol)) / a, np.inf))
        cmax = np.tile(np.abs(Vt).max(axis=0), N // m)
        need = movable[:N] & (np.abs(d[:N]) <= H * np.abs(Binv[r]).sum() * cmax)
        log.append((need.sum() / N, int((basic < N).sum()), t, 8 * int((infeas > tol).sum()) >= t))
        return None
    return pivot_by_pivot(observe)


_LP_PARTS = {  # where a fit's LP seconds go, by the functions cProfile sees (the compiled kernels appear by name)
    "pivots (compiled)": ("tottime", ("_dual_simplex_pivots", "_pass_breakpoints", "_leaving_row")),
    "refactorisation": ("cumtime", ("_refactor",)),
    "certificate": ("cumtime", ("certify",)),
    "adding the round's rows": ("cumtime", ("add_rules", "add_rule")),
}


def lp_breakdown(make, X, y):
    "One whole fit under cProfile: the LP's seconds by part, the rest of the LP (Python around them) last."
    prof, est = cProfile.Profile(), make()
    prof.enable(); est.fit(X, y); prof.disable()
    stats = pstats.Stats(prof).stats        # {(file, line, name): (calls, ncalls, tottime, cumtime, callers)}
    parts = {part: sum(v[2 if kind == "tottime" else 3] for k, v in stats.items() if k[2] in names)
             for part, (kind, names) in _LP_PARTS.items()}
    parts["rest of the LP (Python)"] = est.lp_seconds_ - sum(parts.values())
    return est.lp_seconds_, parts


@contextmanager
def capture_rows(log):
    "Append to `log` the rule values every RMBoost / LPBoost master is fed inside the block."
    add_rules, add_rule = RMBoostMaster.add_rules, LPBoostMaster.add_rule
    def rm(self, V, lam): log.append(np.asarray(V, float).reshape(self.n, -1)); return add_rules(self, V, lam)
    def lpb(self, h): log.append(np.asarray(h, float).reshape(-1, 1)); return add_rule(self, h)
    RMBoostMaster.add_rules, LPBoostMaster.add_rule = rm, lpb
    try: yield
    finally: RMBoostMaster.add_rules, LPBoostMaster.add_rule = add_rules, add_rule


@contextmanager
def lpboost_on_highs():
    "Every `LPBoostMaster` made inside the block solves on HiGHS (the classifier does not expose the back end)."
    init = LPBoostMaster.__init__
    saved = init.__defaults__                  # (options, backend, tol, working_set)
    init.__defaults__ = (saved[0], "highs", *saved[2:])
    try: yield
    finally: init.__defaults__ = saved


def pivot_floor(X, y, rounds, nu, seed, perturb):
    "Whole-fit pivots on every path, then the floor of the LP seconds on the default path against the learner's."
    tree = TreeLearner(max_depth=None, max_leaf_nodes=11)
    fits = {"rmboost": (f"K={2 * rounds}", lambda **kw: RMBoostClassifier(**PAPER_SETTINGS, n_estimators=2 * rounds, random_state=seed, **kw)),
            "lpboost": (f"nu={nu:g}", lambda **kw: LPBoostClassifier(nu=nu, n_estimators=rounds, base_learner=tree,
                                                                     tol=0.0, random_state=seed))}
    paths, floors, profiles = [], [], []
    sizes = np.unique(np.r_[np.arange(8, 64, 8), np.arange(64, 2 * rounds + 17, 16)])   # t ≤ rules + 1
    basis_s, row_s = per_pivot_seconds(len(y), sizes)
    for master, (setting, make) in fits.items():
        make().fit(X, y)                 # load the compiled learner and pivots: the timed fits pay for neither
        log = []
        with capture_rows(log): est = make().fit(X, y)
        others = [("HiGHS", lpboost_on_highs(), {"lp_form": "dual"} if master == "rmboost" else {})]
        if perturb > 0: others.insert(0, (f"perturb={perturb:g}", perturbation(perturb), {}))
        for path, ctx, kw in [("default", None, None)] + others:
            e = est
            if ctx is not None:
                with ctx: e = make(**kw).fit(X, y)
            paths.append(dict(master=master, setting=setting, path=path, pivots=e.lp_iterations_, lp_s=e.lp_seconds_,
                              learner_s=e.learner_seconds_))
        H, rs, pp = np.hstack(log), [], []
        _, piv, _ = replay(master, H, y, nu, sizes=rs, pricing=pp)
        assert piv.sum() == est.lp_iterations_ == len(pp), "the replay left the fit's pivot path"
        t = np.array(rs)[:, 0][np.repeat(np.arange(len(piv)), piv)]   # the rows t at each pivot
        frac, s, t_seen, dse_pass = np.array(pp).T
        assert np.array_equal(t_seen, t), "the replay's rows per pivot disagree with its sizes per round"
        basis, row = np.interp(s, sizes, basis_s), np.interp(t, sizes, row_s)
        basis_txt = np.interp(t, sizes, basis_s)
        floors.append(dict(master=master, setting=setting, pivots=int(piv.sum()), lp_s=est.lp_seconds_,
                           learner_s=est.learner_seconds_, pivot_row_s=row.sum(), pruned_share=float(np.mean(frac)),
                           pivot_row_pruned_s=float(row @ np.asarray(frac)),
                           basis_txt_s=float(basis_txt.sum()), basis_core_s=basis.sum(),
                           floor_s=float(basis.sum() + row @ np.asarray(frac))))
        # the profile: where the default path's LP seconds go, and what the compiled pivots' work should cost
        lp_s, parts = lp_breakdown(make, X, y)
        profiles.append(dict(master=master, setting=setting, lp_s=lp_s, **parts,
                             model_full_row_s=row.sum(), model_two_passes_s=float(basis_txt.sum()),
                             model_dse_pass_s=float(basis_txt @ dse_pass) / 2, dse_pass_share=float(dse_pass.mean()),
                             floor_s=floors[-1]["floor_s"]))
    return paths, floors, pd.DataFrame(dict(t=sizes, basis_us=basis_s * 1e6, pivot_row_us=row_s * 1e6)), profiles


# ---------------------------------------------------------------------------------------------- against another commit
def fit_times(data, rounds, nu, seed):
    """Whole fits as a user makes them with the robust_ref on sys.path: RMBoost (K = each of `rounds`) and LPBoost (nu,
    each of `rounds`, the 11-leaf compiled CART learner); per fit the LP's and the learner's seconds and the pivots."""
    import sys
    X, y = load(data)
    tree = TreeLearner(max_depth=None, max_leaf_nodes=11)
    out = {}
    for K in rounds:
        for master, est in (("rmboost", RMBoostClassifier(**PAPER_SETTINGS, n_estimators=K, random_state=seed)),
                            ("lpboost", LPBoostClassifier(nu=nu, n_estimators=K, base_learner=tree, tol=0.0, random_state=seed))):
            c0 = time.process_time(); est.fit(X, y); cpu = time.process_time() - c0
            out[f"{master} {K}"] = dict(cpu_s=cpu, lp_s=est.lp_seconds_, learner_s=est.learner_seconds_, pivots=int(est.lp_iterations_),
                                        fallbacks=int(est.lp_fallbacks_), module=sys.modules[type(est).__module__].__file__)
    return out


def against(rev, datasets, rounds, nu, seed, repeats):
    """The LP seconds of this tree's masters against those of commit `rev` in whole fits (each code on its own pivot
    path: a master's duals choose the next rule, so a column sequence made by one master is not neutral for the other).
    Every fit runs in a subprocess, the two trees alternated `repeats` times after one untimed pass (numba compiles and
    caches per tree); medians, per-pivot microseconds and the ratio reference / this tree. The fits' CPU seconds
    (`process_time`) are given too: on a shared machine they move less with the load than the wall seconds do."""
    import json, os, subprocess, sys, tempfile
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ref = os.path.join(tempfile.mkdtemp(prefix="bench_lp_against_"), "ref")
    subprocess.run(["git", "-C", here, "worktree", "add", "-q", "--detach", ref, rev], check=True)
    try:
        rows = []
        for name in datasets:
            times = {"ref": [], "this": []}
            for r in range(repeats + 1):
                for tree, root in (("ref", ref), ("this", here)):
                    env = dict(os.environ, PYTHONPATH=root, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
                    code = (f"import sys, json; sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r}); import bench_lp; "
                            f"print(json.dumps(bench_lp.fit_times({name!r}, {list(rounds)!r}, {nu!r}, {seed!r})))")
                    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True,
                                         cwd=root)   # `python -c` puts the working directory first on sys.path
                    if r: times[tree].append(json.loads(res.stdout.strip().splitlines()[-1]))
            for t, root in (("ref", ref), ("this", here)):   # each tree's fits ran its own code
                assert all(x[f]["module"].startswith(root) for x in times[t] for f in x), f"{t} did not import {root}"
            for fit in times["this"][0]:
                med = {t: {k: np.median([x[fit][k] for x in times[t]]) for k in ("cpu_s", "lp_s", "learner_s", "pivots")} for t in times}
                rows.append(dict(data=name, fit=fit, ref_lp_s=med["ref"]["lp_s"], this_lp_s=med["this"]["lp_s"],
                                 lp_speedup=med["ref"]["lp_s"] / med["this"]["lp_s"], ref_pivots=int(med["ref"]["pivots"]),
                                 this_pivots=int(med["this"]["pivots"]),
                                 ref_us_per_pivot=1e6 * med["ref"]["lp_s"] / max(med["ref"]["pivots"], 1),
                                 this_us_per_pivot=1e6 * med["this"]["lp_s"] / max(med["this"]["pivots"], 1),
                                 this_learner_s=med["this"]["learner_s"], ref_fit_cpu_s=med["ref"]["cpu_s"],
                                 this_fit_cpu_s=med["this"]["cpu_s"], fit_cpu_speedup=med["ref"]["cpu_s"] / med["this"]["cpu_s"],
                                 fallbacks=max(x[fit]["fallbacks"] for t in times for x in times[t])))
        return pd.DataFrame(rows)
    finally:
        subprocess.run(["git", "-C", here, "worktree", "remove", "--force", ref], check=False)


# ---------------------------------------------------------------------------------------------- driver
def run(master, X, y, rounds, nu, seed, every, rm_form="dense", lp_backend="dense", cold_on=True):
    if master == "lpboost":
        H, t_warm, obj, iters = lpboost_warm(X, y, rounds, nu, seed, lp_backend)
        cold = {"highspy": lambda k: lpboost_cold_highspy(H, y, nu, k),
                "linprog": lambda k: lpboost_cold_linprog(H, y, nu, k)}
    else:
        H, t_warm, obj, iters = rmboost_warm(X, y, rounds, seed, rm_form)
        cold = {"highspy": lambda k: rmboost_cold_highspy(H, y, k),
                "linprog": lambda k: rmboost_cold_linprog(H, y, k)}
    if not cold_on: return dict(master=master, warm_s=t_warm.sum(), pivots=int(iters.sum())), H
    t_cold = {name: np.zeros(rounds) for name in cold}
    worst = 0.0
    for k in range(1, rounds + 1):
        for name, f in cold.items():
            t0 = time.perf_counter(); o = f(k); t_cold[name][k - 1] = time.perf_counter() - t0
            worst = max(worst, abs(o - obj[k - 1]))
    print(f"\n== {master} master, n = {len(y)}, {rounds} rounds "
          f"(max |objective difference| warm vs cold over all rounds: {worst:.1e}) ==")
    print(f"{'round':>5} {'warm ms':>9} {'pivots':>6} {'highspy ms':>11} {'linprog ms':>11} {'x highspy':>10} {'x linprog':>10}")
    for k in list(range(every - 1, rounds, every)):
        w, a, b = t_warm[k] * 1e3, t_cold["highspy"][k] * 1e3, t_cold["linprog"][k] * 1e3
        print(f"{k + 1:>5} {w:>9.2f} {iters[k]:>6d} {a:>11.2f} {b:>11.2f} {a / w:>10.1f} {b / w:>10.1f}")
    W, A, B = t_warm.sum(), t_cold["highspy"].sum(), t_cold["linprog"].sum()
    print(f"{'total':>5} {W:>8.2f}s {iters.sum():>6d} {A:>10.2f}s {B:>10.2f}s {A / W:>10.1f} {B / W:>10.1f}")
    return dict(master=master, n=len(y), rounds=rounds, warm_s=W, cold_highspy_s=A, cold_linprog_s=B,
                ratio_highspy=A / W, ratio_linprog=B / W, max_obj_diff=worst, pivots=int(iters.sum())), H


def _timed_fit(est, X, y):
    t0 = time.perf_counter(); est.fit(X, y); total = time.perf_counter() - t0
    return dict(rounds_done=est.n_iter_, fit_s=total, lp_s=est.lp_seconds_, learner_s=est.learner_seconds_,
                lp_share=est.lp_seconds_ / total, learner_share=est.learner_seconds_ / total,
                lp_le_learner=est.lp_seconds_ <= est.learner_seconds_, pivots=est.lp_iterations_,
                fallbacks=est.lp_fallbacks_)


def fit_shares(X, y, rounds, nu, seed, perturb=0.0):
    "LP seconds vs base-learner seconds inside whole fits, same compiled 11-leaf CART learner (bootstrap for RMBoost)."
    tree = TreeLearner(max_depth=None, max_leaf_nodes=11)
    fits = [("LPBoost", f"nu={nu:g}", LPBoostClassifier(nu=nu, n_estimators=rounds, base_learner=tree, tol=0.0,
                                                        random_state=seed)),
            ("LPBoost", "nu=auto", LPBoostClassifier(nu="auto", n_estimators=rounds, base_learner=tree, tol=0.0,
                                                     random_state=seed)),
            ("RMBoost", f"K={rounds}", RMBoostClassifier(**PAPER_SETTINGS, n_estimators=rounds, random_state=seed)),
            ("RMBoost", f"K={2 * rounds}", RMBoostClassifier(**PAPER_SETTINGS, n_estimators=2 * rounds, random_state=seed))]
    rows = []
    for name, setting, est in fits:
        rows.append(dict(estimator=name, setting=setting, perturb=0.0, **_timed_fit(est, X, y)))
        if perturb > 0 and setting != "nu=auto":
            with perturbation(perturb):
                rows.append(dict(estimator=name, setting=setting, perturb=perturb, **_timed_fit(clone(est), X, y)))
    return rows


def learner_old_vs_new(names, rounds, seed, repeats):
    "RMBoost fits with the compiled 'tree' learner vs scikit-learn's tree on copied bootstrap rows, alternated; medians."
    rows = []
    for name in names:
        X, y = load_dataset(name, missing="impute", return_X_y=True)
        runs = {"old": [], "new": []}
        for _ in range(repeats):
            for which, bl in (("old", DecisionTreeClassifier(max_leaf_nodes=11)), ("new", "tree")):
                runs[which].append(_timed_fit(RMBoostClassifier(**PAPER_SETTINGS, n_estimators=rounds, base_learner=bl, random_state=seed),
                                              X, y))
        med = {w: pd.DataFrame(r).median(numeric_only=True) for w, r in runs.items()}
        for w in ("old", "new"):
            rows.append(dict(data=name, K=rounds, learner="sklearn CART on X[idx]" if w == "old" else "compiled, counts",
                             fit_s=med[w].fit_s, learner_s=med[w].learner_s, lp_s=med[w].lp_s,
                             learner_share=med[w].learner_share, lp_share=med[w].lp_share))
        rows.append(dict(data=name, K=rounds, learner="old / new", fit_s=med["old"].fit_s / med["new"].fit_s,
                         learner_s=med["old"].learner_s / med["new"].learner_s, lp_s=med["old"].lp_s / med["new"].lp_s,
                         learner_share=med["old"].learner_share / med["new"].learner_share,
                         lp_share=med["old"].lp_share / med["new"].lp_share))
    return rows


def accuracy_old_vs_new(name, rounds, seeds):
    "Test accuracy of RMBoost with the compiled vs the scikit-learn tree learner over `seeds` 70/30 splits."
    X, y = load_dataset(name, missing="impute", return_X_y=True)
    acc = {"old": [], "new": []}
    for seed in range(seeds):
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=seed, stratify=y)
        for which, bl in (("old", DecisionTreeClassifier(max_leaf_nodes=11)), ("new", "tree")):
            m = RMBoostClassifier(**PAPER_SETTINGS, n_estimators=rounds, base_learner=bl, random_state=seed).fit(Xtr, ytr)
            acc[which].append(float(np.mean(m.predict(Xte) == yte)))
    a, b = np.array(acc["old"]), np.array(acc["new"])
    d = b - a
    return dict(data=name, K=rounds, seeds=seeds, acc_old=a.mean(), acc_new=b.mean(), mean_diff=d.mean(),
                se_diff=d.std(ddof=1) / np.sqrt(seeds) if seeds > 1 else np.nan, sd_old=a.std(ddof=1) if seeds > 1 else np.nan)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="diabetes")
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--nu", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--every", type=int, default=20, help="print every k-th round")
    ap.add_argument("--master", choices=["lpboost", "rmboost", "both"], default="both")
    ap.add_argument("--rm-form", choices=["dense", "primal", "dual"], default="dense", help="LP form of the RMBoost master (default: the library default)")
    ap.add_argument("--lp-backend", choices=["dense", "highs"], default="dense", help="back end of the LPBoost master (default: the library default)")
    ap.add_argument("--no-fits", action="store_true", help="skip the LP-share-of-fit table")
    ap.add_argument("--no-cold", action="store_true", help="skip the rebuilt HiGHS / linprog solves (minutes)")
    ap.add_argument("--no-profile", action="store_true", help="skip the pivot profile")
    ap.add_argument("--perturb", type=float, default=1e-7, help="DenseDualSimplex cost perturbation to compare (0: none)")
    ap.add_argument("--profile-rounds", type=int, nargs=2, default=[400, 200], metavar=("RMBOOST", "LPBOOST"),
                    help="rounds of the pivot profile's column sequences")
    ap.add_argument("--learner-data", nargs="*", default=["diabetes", "credit"], help="old vs new rule learner on these")
    ap.add_argument("--repeats", type=int, default=2, help="alternated repeats of the old/new learner fits")
    ap.add_argument("--floor", action="store_true", help="whole-fit pivot paths and the floor of the LP's seconds")
    ap.add_argument("--accuracy-seeds", type=int, default=0, help="test accuracy old vs new learner over this many seeds")
    ap.add_argument("--against", metavar="REV", help="only: the LP seconds of whole fits, this tree against commit REV")
    ap.add_argument("--against-data", nargs="*", default=["diabetes", "credit"], help="data sets of --against")
    args = ap.parse_args(argv)
    threadpool_limits(1)   # one BLAS thread for every path, as the other benchmarks
    X, y = load(args.data)
    warm_up_rmboost()
    if args.against:
        print(f"\nLP seconds in whole fits, commit {args.against} (ref) against this tree, K = {args.rounds} and "
              f"{2 * args.rounds} (medians of {args.repeats} alternated runs in subprocesses):")
        print(against(args.against, args.against_data, (args.rounds, 2 * args.rounds), args.nu, args.seed, args.repeats).to_string(
            index=False, float_format=lambda v: f"{v:.3g}"))
        return
    masters = ["lpboost", "rmboost"] if args.master == "both" else [args.master]
    rows = [run(m, X, y, args.rounds, args.nu, args.seed, args.every, args.rm_form, args.lp_backend,
                not args.no_cold)[0] for m in masters]
    print("\nsummary (cold time / warm time, LP work only; targets: LPBoost >= 20x, RMBoost >= 79x vs highspy):")
    print(pd.DataFrame(rows).to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    if not args.no_profile and args.rm_form == "dense" and args.lp_backend == "dense":
        blocks, perturbed = [], []
        for m in masters:
            k = args.profile_rounds[0 if m == "rmboost" else 1]
            H = run(m, X, y, k, args.nu, args.seed, k, cold_on=False)[1]
            b, r = pivot_profile(m, H, y, args.nu, args.perturb)
            blocks += b; perturbed += [r] if r else []
        if perturbed:
            print(f"\nwarm masters, default vs perturb = {args.perturb:g} (same columns; medians of 2 alternated replays):")
            print(pd.DataFrame(perturbed).to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    if not args.no_fits:
        print("\nLP share of whole fits (target: LP seconds <= base-learner seconds):")
        print(pd.DataFrame(fit_shares(X, y, args.rounds, args.nu, args.seed, args.perturb)).to_string(
            index=False, float_format=lambda v: f"{v:.3g}"))
    if args.learner_data:
        print(f"\nRMBoost's rule learner, old vs new (K = {args.rounds}, medians of {args.repeats} alternated fits; "
              "targets: learner share halves, fit >= 1.8x faster):")
        print(pd.DataFrame(learner_old_vs_new(args.learner_data, args.rounds, args.seed, args.repeats)).to_string(
            index=False, float_format=lambda v: f"{v:.3g}"))
    if args.floor:
        paths, floors, costs, profiles = pivot_floor(X, y, args.rounds, args.nu, args.seed, args.perturb)
        fmt = lambda v: f"{v:.3g}"
        print(f"\nseconds a pivot spends at basis size t (n = {len(y)}): two passes over B^-1, and the pivot row over t x n:")
        print(costs.iloc[::4].to_string(index=False, float_format=fmt))
        print("\nwhole fits, every pivot path the library can take:")
        print(pd.DataFrame(paths).to_string(index=False, float_format=fmt))
        print("\nthe floor on the default path (seconds; floor_s = the pruned pivot row + two passes over an s x s core "
              "inverse, s = basic structural columns at each pivot):")
        print(pd.DataFrame(floors).to_string(index=False, float_format=fmt))
        print("\nthe profile (seconds): one more fit of each under cProfile, its LP seconds by part; then what the compiled "
              "pivots' work should cost at the measured unit costs: the full pivot row over t x n, the two passes over "
              "the t x t B^-1, and the steepest-edge pass over B^-1 (taken at dse_pass_share of the pivots); the floor "
              "as above:")
        print(pd.DataFrame(profiles).set_index(["master", "setting"]).T.to_string(float_format=fmt))
    if args.accuracy_seeds:
        print(f"\ntest accuracy, old vs new learner ({args.accuracy_seeds} seeds, 70/30 splits, K = {args.rounds}):")
        print(pd.DataFrame([accuracy_old_vs_new(d, args.rounds, args.accuracy_seeds) for d in args.learner_data or [args.data]])
              .to_string(index=False, float_format=lambda v: f"{v:.4g}"))


if __name__ == "__main__":
    main()
