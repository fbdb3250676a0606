"""Fit every estimator of the book on fixed data and save its test-set outputs: the worker of tests/test_cross_platform.py.

    python tests/data/cross_platform_fit.py OUT_DIR

The caller sets the CPU configuration in the environment (OPENBLAS_CORETYPE, NPY_DISABLE_CPU_FEATURES, NUMBA_CPU_NAME);
they act when numpy and numba load, so each configuration is one process. Before fitting, the process checks that
each one took (OpenBLAS's kernel as threadpoolctl reports it, numpy's dispatched features, numba's target CPU) and
exits non-zero if not. It writes OUT_DIR/outputs.npz (`{method}|{dataset}|{noise}|decision` and `|predict`, exact
float64 bits), OUT_DIR/runtime.json (what loaded, which methods declare `_exact_across_platforms`, seconds) and, once
every estimator has been fitted once (its numba code compiled and cached), the marker OUT_DIR/warm.
"""
import json
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.linalg  # noqa: F401  (loads scipy's OpenBLAS too, so threadpoolctl sees both)
from numba.core.registry import CPUDispatcher, cpu_target
from numpy._core._multiarray_umath import __cpu_features__
from sklearn.model_selection import train_test_split
from threadpoolctl import threadpool_info

from robust_ref.datasets import load_dataset
from robust_ref.experiments.grid import read_grid
from robust_ref.experiments.registry import get_method, list_methods
from robust_ref.noise import flip_uniform

ROOT = Path(__file__).resolve().parents[2]
DATASETS = ("heart", "sonar", "haberman")
NOISE = {"clean": 0.0, "flip20": 0.2}
# RMBoost and LPBoost variants beyond the registry defaults (RMBoost's: the paper's algorithm) and Table 3: every LP form (the HiGHS ones at 20 rounds:
# HiGHS takes 5x as long), the working-set masters, both stopping modes, both base learners, the pricing options, a fixed ν
VARIANTS = {"rmboost:paper": ("rmboost", dict(mode="paper")), "rmboost:stump": ("rmboost", dict(base_learner="stump")),
            "rmboost:smoothed": ("rmboost", dict(dual="smoothed")),
            "rmboost:smoothed-weighted": ("rmboost", dict(dual="smoothed", resample=False)),   # RMBoostClassifier()'s defaults
            "rmboost:dual": ("rmboost", dict(lp_form="dual", n_estimators=20)),
            "rmboost:primal": ("rmboost", dict(lp_form="primal", n_estimators=20)),
            "rmboost:working-set": ("rmboost", dict(lp_working_set=True)),   # the working-set master, forced on at small n
            "rmboost:working-set-weighted": ("rmboost", dict(dual="smoothed", resample=False, lp_working_set=True)),
            "lpboost:tree": ("lpboost", dict(base_learner="tree")), "lpboost:nu0.1": ("lpboost", dict(nu=0.1)),
            "lpboost:working-set": ("lpboost", dict(lp_working_set=True))}   # LPBoost's working-set master, forced on


def runtime() -> dict:
    "What this process actually loaded: OpenBLAS kernels, numpy's disabled dispatch targets, numba's target CPU."
    blas = [dict(lib=Path(i["filepath"]).name, architecture=i.get("architecture"), threads=i["num_threads"])
            for i in threadpool_info() if i["user_api"] == "blas"]
    asked = os.environ.get("NPY_DISABLE_CPU_FEATURES", "").split()
    return dict(blas=blas, npy_disabled=asked, npy_still_on=[f for f in asked if __cpu_features__.get(f)],
                numba_cpu=cpu_target.target_context.codegen()._get_host_cpu_name())


def check(rt: dict):
    "Exit loudly unless every requested setting took."
    want = os.environ.get("OPENBLAS_CORETYPE")
    bad = [b for b in rt["blas"] if (want and (b["architecture"] or "").lower() != want.lower()) or b["threads"] != 1]
    if bad or not rt["blas"]: sys.exit(f"OPENBLAS_CORETYPE={want!r}, OPENBLAS_NUM_THREADS=1 did not take: {rt['blas']}")
    if rt["npy_still_on"]: sys.exit(f"NPY_DISABLE_CPU_FEATURES did not disable {rt['npy_still_on']}")
    if os.environ.get("NUMBA_CPU_NAME", rt["numba_cpu"]) != rt["numba_cpu"]:
        sys.exit(f"NUMBA_CPU_NAME={os.environ['NUMBA_CPU_NAME']} did not take: numba targets {rt['numba_cpu']}")


def methods() -> dict:
    "Label → Method: every available registry method implemented by robust_ref at its defaults, Table 3's settings, VARIANTS."
    own = [n for n, r in list_methods().iterrows() if r.available and "robust_ref." in r.implementation]
    found = {n: get_method(n) for n in own}
    found |= {f"table3:{k}": m for k, m in read_grid(ROOT / "robust_ref/grids/rmboost_table3.toml").methods.items()}
    found |= {k: get_method(n, label=k, **p) for k, (n, p) in VARIANTS.items()}
    unique = {}
    for k, m in found.items(): unique.setdefault(json.dumps(m.describe(), sort_keys=True), (k, m))   # Table 3 repeats defaults
    return dict(unique.values())


def build(method):
    "A fresh estimator with random_state=0 on every step that has one (Method.build sets only the outer one)."
    est = method.build(0)
    return est.set_params(**{k: 0 for k in est.get_params() if k.split("__")[-1] == "random_state"})


def exact(est) -> bool:
    last = est.steps[-1][1] if hasattr(est, "steps") else est
    return bool(getattr(last, "_exact_across_platforms", False))


def main(out: Path):
    rt = runtime(); check(rt)
    t0, arrays, todo = time.perf_counter(), {}, methods()
    seconds = dict.fromkeys(todo, 0.0)
    warnings.simplefilter("ignore")   # convergence chatter; the comparison is of the outputs
    for ds in DATASETS:
        X, y = load_dataset(ds, return_X_y=True)
        Xtr, Xte, ytr, _ = train_test_split(X, y, train_size=100, stratify=y, random_state=0)
        for noise, rate in NOISE.items():
            yn = flip_uniform(ytr, rate, random_state=0).y if rate else ytr
            for label, m in todo.items():
                t = time.process_time(); est = build(m).fit(Xtr, yn)
                scores = est.decision_function(Xte) if hasattr(est, "decision_function") else est.predict_proba(Xte)
                arrays[f"{label}|{ds}|{noise}|decision"] = np.asarray(scores, dtype=np.float64)
                arrays[f"{label}|{ds}|{noise}|predict"] = np.asarray(est.predict(Xte))
                seconds[label] += time.process_time() - t
            (out / "warm").touch()   # every estimator has run once: numba's cache holds what this process compiled
    disp = {id(v): v for mod in list(sys.modules) if mod.startswith("robust_ref") for v in vars(sys.modules[mod]).values()
            if isinstance(v, CPUDispatcher)}.values()
    rt |= dict(exact=[k for k, m in todo.items() if exact(m.estimator)], seconds=round(time.perf_counter() - t0, 1),
               cpu_seconds={k: round(v, 2) for k, v in seconds.items()},
               numba_cache=dict(hits=sum(sum(d.stats.cache_hits.values()) for d in disp),
                                misses=sum(sum(d.stats.cache_misses.values()) for d in disp)))
    np.savez(out / "outputs.npz", **arrays)
    (out / "runtime.json").write_text(json.dumps(rt, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
