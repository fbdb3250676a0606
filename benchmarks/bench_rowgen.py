"""RMBoost's master with a working set of samples (chapter 06, "A working set of samples") against the full master.

    .venv/bin/python benchmarks/bench_rowgen.py                       # all three parts, n = 100,000, K = 100
    .venv/bin/python benchmarks/bench_rowgen.py --parts active --csv benchmarks/measured
    .venv/bin/python benchmarks/bench_rowgen.py --parts speed --n 1000000 --rounds 10 --modes new

Three parts (--parts, default all):

* active -- which sample constraints matter, round by round, in whole RMBoost fits (the estimator's defaults and
  PAPER_SETTINGS, K = --rounds, seed 0) on diabetes, credit, magic and --n rows of the HIGGS-like stand-in of
  bench_scaling.py, all on the full master: per round, the samples with a basic α_i or β_i, the samples with α_i − β_i
  ≠ 0, the samples whose constraint |f(x_i)| ≤ ½ is tight, and (every 10th round and the last) the distinct (label, rule
  outputs) signatures (exact aggregation could merge samples with equal signatures). Summarised per fit; --csv DIR
  writes the summary as DIR/rowgen_active_sets.csv (read by nbs/06_lp.ipynb).
* same -- at the records' sizes (diabetes, credit, magic; K = --check-rounds), the rules of a full-master fit are fed
  one round at a time to a full and a working-set master: the largest |R_full − R_ws| over the rounds, certificates
  failed, the final |W| / n and the full passes.
* speed -- RMBoost fits (--settings: the defaults or PAPER_SETTINGS; K = --rounds) on --n HIGGS-like rows, in one run,
  each in a fresh one-thread child process (peak memory from getrusage): --modes old (the full master, the exact tree
  builder), new (the working-set master, exact trees), auto (the estimator's defaults: both options 'auto'), histgb
  (scikit-learn's HistGradientBoostingClassifier(max_iter=K), the reference point). Fit CPU and wall seconds, LP and
  learner seconds, pivots, and the ratios old / new, old / auto and each / histgb. Timings are printed, never asserted.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from robust_ref.experiments.scaling import higgs_like  # noqa: E402

from robust_ref.datasets import load_dataset  # noqa: E402
from robust_ref.rmboost import PAPER_SETTINGS, RMBoostClassifier, RMBoostMaster, RMBoostStrategy  # noqa: E402

RECORDS = ("diabetes", "credit", "magic")


def datasets(n_synthetic):
    out = [(d, *load_dataset(d, return_X_y=True, missing="impute")) for d in RECORDS]
    if n_synthetic: out.append((f"higgs_like", *higgs_like(n_synthetic)))
    return out


def active_sets(n_synthetic, K):
    "Per fit: the largest and final numbers of samples with a basic column, nonzero α − β, tight constraints; signatures."
    rows, update = [], RMBoostStrategy.update
    def observe(self, k, sol):
        m, lp = self.master, self.master.lp
        R = m._rules.rows
        f = np.asarray(sol.mu) @ R.astype(np.float64)
        last = k + 1 == self._K
        rows.append(dict(fit=self._tag, round=k + 1, n=m.n, rules=m.n_rules,
                         basic=np.unique(lp.basic[lp.basic < lp.N] % lp.n).size,
                         nonzero=int((np.abs(sol.alpha_minus_beta) > 1e-9).sum()),
                         tight=int((np.abs(f) >= 0.5 - 1e-9).sum()),
                         signatures=len(np.unique(np.c_[m.y, R.T], axis=0)) if (k % 10 == 9 or last) else np.nan))
        return update(self, k, sol)
    RMBoostStrategy.update = observe
    try:
        for name, X, y in datasets(n_synthetic):
            for option, kw in (("default", {}), ("paper", PAPER_SETTINGS)):
                RMBoostStrategy._tag, RMBoostStrategy._K = f"{name}|{option}", K
                RMBoostClassifier(n_estimators=K, random_state=0, lp_working_set=False, **kw).fit(X, y)
    finally:
        RMBoostStrategy.update = update
    df = pd.DataFrame(rows)
    g = df.groupby("fit", sort=False)
    out = pd.DataFrame({"n": g.n.first(), "rounds": g.size(), "rules": g.rules.last(),
                        "basic_max": g.basic.max(), "basic_last": g.basic.last(),
                        "nonzero_max": g.nonzero.max(), "tight_share_median": (df.tight / df.n).groupby(df.fit, sort=False).median(),
                        "tight_share_last": g.tight.last() / g.n.first(),
                        "signatures_last": g.signatures.apply(lambda s: s.dropna().iloc[-1])})
    out.index = pd.MultiIndex.from_tuples([tuple(i.split("|")) for i in out.index], names=["data", "option"])
    return out.reset_index()


def same_optimum(K):
    "The rules of a full-master fit, fed round by round to a full and a working-set master."
    rows = []
    for name, X, y in datasets(0):
        for option, kw in (("default", {}), ("paper", PAPER_SETTINGS)):
            clf = RMBoostClassifier(n_estimators=K, random_state=0, lp_working_set=False, **kw).fit(X, y)
            y_pm = np.where(np.asarray(y) == clf.classes_[1], 1.0, -1.0)
            H = clf._rule_values(np.asarray(X, dtype=float))
            full, ws = (RMBoostMaster(y_pm, working_set=w) for w in (False, True))
            dR, bad, t = 0.0, 0, {"full": 0.0, "ws": 0.0}
            for j in range(H.shape[1]):
                sols = []
                for key, m in (("full", full), ("ws", ws)):
                    m.add_rules(H[:, [j]], clf.lam_[j]); t0 = time.perf_counter(); sols.append(m.solve())
                    t[key] += time.perf_counter() - t0
                dR, bad = max(dR, abs(sols[0].risk - sols[1].risk)), bad + (not ws.certify(sols[1]))
            rows.append(dict(data=name, option=option, n=len(y_pm), rounds=H.shape[1], max_dR=dR, uncertified=bad,
                             ws_repairs_fallbacks=ws.repairs + ws.fallbacks, W_share=ws.lp.ws.size / len(y_pm),
                             full_passes=ws.lp.ws_passes, lp_full_s=t["full"], lp_ws_s=t["ws"]))
    return pd.DataFrame(rows)


MODES = {   # what each speed mode fits: RMBoost's master and tree builder, or the reference point
    "old": dict(lp_working_set=False, tree_method="exact"),   # the full master and the exact builder (before both options)
    "new": dict(lp_working_set=True, tree_method="exact"),    # the working-set master alone
    "auto": {},                                              # the estimator's defaults: both 'auto' (on above 50,000 rows)
    "histgb": None,                                          # scikit-learn's HistGradientBoostingClassifier(max_iter=K)
}


def child(n, K, mode, settings):
    X, y = higgs_like(n)
    kw = PAPER_SETTINGS if settings == "paper" else {}
    if MODES[mode] is None:
        from sklearn.ensemble import HistGradientBoostingClassifier
        make = lambda k: HistGradientBoostingClassifier(max_iter=k, early_stopping=False, random_state=0)
    else:
        make = lambda k: RMBoostClassifier(n_estimators=k, random_state=0, **MODES[mode], **kw)
    make(3).fit(X[:2000], y[:2000])   # numba's cache: not timed
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0, c0 = time.perf_counter(), time.process_time()
    clf = make(K).fit(X, y)
    fit, cpu = time.perf_counter() - t0, time.process_time() - c0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps(dict(n=n, K=K, settings=settings, master=mode, fit_s=fit, fit_cpu_s=cpu,
                          lp_s=getattr(clf, "lp_seconds_", float("nan")), learner_s=getattr(clf, "learner_seconds_", float("nan")),
                          pivots=int(getattr(clf, "lp_iterations_", 0)), R=getattr(clf, "minimax_risk_", float("nan")),
                          fallbacks=int(getattr(clf, "lp_fallbacks_", 0)), data_mb=X.nbytes / 2**20,
                          peak_mb_above_data=max(peak - base, 0) / 1024)))


def speed(n, K, modes, settings):
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
           "NUMBA_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    rows = []
    for mode in modes:
        out = subprocess.run([sys.executable, __file__, "--child", str(n), str(K), mode, settings], env=env, capture_output=True,
                             text=True, check=True)
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(rows[-1], flush=True)
    df = pd.DataFrame(rows).set_index("master")
    for a, b in (("old", "new"), ("old", "auto")):
        if {a, b} <= set(df.index):
            print(f"{a} / {b}: fit CPU {df.fit_cpu_s[a] / df.fit_cpu_s[b]:.1f}x, LP {df.lp_s[a] / df.lp_s[b]:.1f}x")
    for m in df.index.drop("histgb", errors="ignore"):
        if "histgb" in df.index: print(f"{m} / HistGradientBoosting(max_iter={K}): fit CPU {df.fit_cpu_s[m] / df.fit_cpu_s['histgb']:.1f}x")
    return df


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--parts", nargs="+", default=["active", "same", "speed"], choices=["active", "same", "speed"])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--check-rounds", type=int, default=200)
    ap.add_argument("--modes", nargs="+", default=["old", "new", "auto", "histgb"], choices=list(MODES))
    ap.add_argument("--csv", type=Path, default=None)
    ap.add_argument("--settings", default="default", choices=["default", "paper"])   # speed: the estimator's defaults or PAPER_SETTINGS
    ap.add_argument("--child", nargs=4, default=None)
    a = ap.parse_args(argv)
    if a.child:
        return child(int(a.child[0]), int(a.child[1]), a.child[2], a.child[3])
    pd.set_option("display.width", 200)
    load = os.getloadavg()[0]
    if "active" in a.parts:
        act = active_sets(a.n, a.rounds).assign(measured=time.strftime("%Y-%m-%d"), load=round(load, 1), cores=os.cpu_count())
        print(act.round(4).to_string())
        if a.csv: act.to_csv(a.csv / "rowgen_active_sets.csv", index=False)
    if "same" in a.parts:
        print(same_optimum(a.check_rounds).round(9).to_string())
    if "speed" in a.parts:
        print(speed(a.n, a.rounds, a.modes, a.settings).round(3).to_string())


if __name__ == "__main__":
    main()
