"""What the magic-dataset benchmarks share: the command line, one-thread BLAS, and the data."""
import argparse
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

DATA = Path(__file__).resolve().parent.parent / "robust_ref" / "data" / "magic.csv"


def magic_setup(description: str, add_args=None):
    "Parse --rounds/--repeats/--blas-threads (+ `add_args(parser)`), limit BLAS threads, load magic → (args, X, y)."
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--blas-threads", type=int, default=1, help="0 = leave BLAS threading alone")
    if add_args: add_args(ap)
    a = ap.parse_args()
    # one BLAS thread: multi-threaded dot products of ~19k numbers are slower on 2 shared cores
    if a.blas_threads > 0: threadpool_limits(a.blas_threads)
    d = pd.read_csv(DATA)
    return a, d.drop(columns="label").to_numpy(np.float64), d["label"].to_numpy()


def warm_up_rmboost():
    "Load (or compile, the first time after an edit) RMBoost's numba pivots, so no timed fit pays for it."
    from robust_ref.rmboost import RMBoostMaster
    y = np.array([1.0, -1.0, 1.0])
    master = RMBoostMaster(y)
    master.add_rules(np.array([[1.0], [1.0], [-1.0]]), 0.01)
    master.solve()
