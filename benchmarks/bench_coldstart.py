"""The first fit after installation: each estimator's first fit in a fresh process with an empty numba cache, and
again with the cache that `robust-ref warm-up` (run by `make venv` at install) leaves, side by side in one run.

Usage (from the repository root):

    .venv/bin/python benchmarks/bench_coldstart.py                       # every estimator below, on diabetes
    .venv/bin/python benchmarks/bench_coldstart.py --estimators rmboost robust_tree
    .venv/bin/python benchmarks/bench_coldstart.py --csv benchmarks/measured   # also write coldstart.csv there

What is measured. numba compiles a kernel the first time a process calls it with a new type signature and, with
`cache=True`, writes the machine code to its cache (keyed on the source file's path and modification time), which
later processes load instead of compiling. `NUMBA_CACHE_DIR` points that cache elsewhere, so a new temporary folder is
an empty cache: the state of a fresh installation. For each estimator, in a fresh process with one thread: import its
module, build it with its class defaults (what a user writes first), fit it on `diabetes` (768 rows, 8 features) and
predict; the wall and CPU seconds of those steps are its "first fit". Then the same fit again in the same process,
its "second fit" (nothing left to import or compile): first minus second is what importing and compiling cost. Run
(1) with an empty cache, one new folder per estimator, so each pays for its own compilation; (2) after
`robust_ref.cli.main(['warm-up'])` filled a cache (timed too), each estimator on its own copy of that cache, so no
estimator profits from another's compilation. The goal is a first fit under 5 s after warm-up. The load average is
printed: on a shared machine the wall seconds move with it, the CPU seconds much less.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
# name: (module, class, constructor arguments); class defaults, as a user's first fit
ESTIMATORS = {
    "robust_tree": ("robust_ref.trees", "RobustTreeClassifier", {}),
    "robust_forest": ("robust_ref.trees", "RobustForestClassifier", {}),
    "adaboost": ("robust_ref.baselines", "AdaBoostClassifier", {}),
    "logitboost": ("robust_ref.baselines", "LogitBoostClassifier", {}),
    "arb_gamma": ("robust_ref.archboost", "ARBGamma", {}),
    "adaboost_alpha": ("robust_ref.alpha_loss", "AdaBoostAlpha", {}),
    "rmboost": ("robust_ref.rmboost", "RMBoostClassifier", {}),
    "lpboost": ("robust_ref.lp", "LPBoostClassifier", {}),
    "mean_classifier": ("robust_ref.mean_classifier", "MeanClassifier", {}),
    # the same estimators on their other compiled paths: boosting with trees, RMBoost with the paper's settings
    "adaboost_tree": ("robust_ref.baselines", "AdaBoostClassifier", {"base_learner": "tree", "max_depth": 3}),
    "logitboost_tree": ("robust_ref.baselines", "LogitBoostClassifier", {"base_learner": "tree", "max_depth": 3}),
    "arb_gamma_tree": ("robust_ref.archboost", "ARBGamma", {"base_learner": "tree", "max_depth": 3}),
    "adaboost_alpha_tree": ("robust_ref.alpha_loss", "AdaBoostAlpha", {"base_learner": "tree", "max_depth": 3}),
    "rmboost_paper": ("robust_ref.rmboost", "RMBoostClassifier", {"resample": True, "dual": "vertex"}),
}
GOAL_S = 5.0


def first_fit(name: str) -> dict:
    "In this (fresh) process: import the estimator's module, fit it once on diabetes, predict; wall and CPU seconds."
    import importlib
    from robust_ref.datasets import load_dataset
    X, y = load_dataset("diabetes", return_X_y=True, missing="impute")
    if name == "mean_classifier":
        X = (X - X.mean(0)) / X.std(0)                                  # the mean classifier wants unit-scale features
    module, cls, kw = ESTIMATORS[name]
    w0, c0 = time.perf_counter(), time.process_time()
    est = getattr(importlib.import_module(module), cls)(**kw)
    est.fit(X, y)
    est.predict(X)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    w1, c1 = time.perf_counter(), time.process_time()
    getattr(importlib.import_module(module), cls)(**kw).fit(X, y).predict(X)   # the same fit again: nothing to compile
    return dict(estimator=name, wall_s=wall, cpu_s=cpu, second_wall_s=time.perf_counter() - w1,
                second_cpu_s=time.process_time() - c1)


def _env(cache: str) -> dict:
    return {**os.environ, "NUMBA_CACHE_DIR": cache, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}


def run_child(name: str, cache: str) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", name], env=_env(cache), capture_output=True, text=True)
    if out.returncode != 0:
        nan = float("nan")
        last = (out.stderr.strip().splitlines() or ["?"])[-1][:120]
        return dict(estimator=name, wall_s=nan, cpu_s=nan, second_wall_s=nan, second_cpu_s=nan,
                    status=f"failed: {last}")
    return {**json.loads(out.stdout.strip().splitlines()[-1]), "status": "ok"}


def warm_up(cache: str) -> float:
    "`robust-ref warm-up` in a fresh process writing into `cache`; its wall seconds."
    t0 = time.perf_counter()
    code = "from robust_ref.cli import main; raise SystemExit(main(['warm-up', '--quiet']))"
    subprocess.run([sys.executable, "-c", code], env=_env(cache), check=True)
    return time.perf_counter() - t0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--estimators", nargs="+", default=list(ESTIMATORS), choices=list(ESTIMATORS))
    ap.add_argument("--csv", metavar="DIR", help="also write coldstart.csv into DIR")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        print(json.dumps(first_fit(a.child))); return
    rows = []
    with tempfile.TemporaryDirectory(prefix="coldstart-") as tmp:
        for name in a.estimators:                                         # (1) empty cache, one per estimator
            r = run_child(name, tempfile.mkdtemp(dir=tmp))
            rows.append({**r, "cache": "empty"})
            print(f"empty cache   {name:<20} wall {r['wall_s']:7.1f} s  CPU {r['cpu_s']:7.1f} s  second fit CPU "
                  f"{r['second_cpu_s']:6.2f} s  {r['status']}", flush=True)
        warm = tempfile.mkdtemp(dir=tmp)
        warm_s = warm_up(warm)                                            # (2) after warm-up, a copy of its cache each
        print(f"warm-up       {warm_s:.1f} s (wall)", flush=True)
        for name in a.estimators:
            cache = Path(tmp) / f"warm-{name}"
            shutil.copytree(warm, cache)
            r = run_child(name, str(cache))
            rows.append({**r, "cache": "after warm-up"})
            print(f"after warm-up {name:<20} wall {r['wall_s']:7.1f} s  CPU {r['cpu_s']:7.1f} s  second fit CPU "
                  f"{r['second_cpu_s']:6.2f} s  {r['status']}", flush=True)
    df = pd.DataFrame(rows)
    table = df.pivot(index="estimator", columns="cache", values=["wall_s", "cpu_s", "second_cpu_s"])
    table = table.reindex(a.estimators)
    print(f"\nFirst fit (import + fit + predict on diabetes), seconds; warm-up took {warm_s:.1f} s; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores:")
    print(table.round(2).to_string())
    late = df[(df.cache == "after warm-up") & ~(df.wall_s < GOAL_S)].estimator.tolist()
    print(f"\nAfter warm-up, first fits at or over {GOAL_S:.0f} s: {', '.join(late) if late else 'none'}")
    if a.csv:
        out = Path(a.csv) / "coldstart.csv"
        df.assign(warm_up_s=warm_s, date=time.strftime("%Y-%m-%d"), load_1min=os.getloadavg()[0],
                  cores=os.cpu_count()).to_csv(out, index=False)
        print(f"written: {out}")


if __name__ == "__main__":
    main()
