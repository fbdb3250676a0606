"""Results do not depend on the processor: not on OpenBLAS's kernel nor on numpy's SIMD dispatch.

The project's machines change CPU between sessions. OpenBLAS picks its kernel by CPU when numpy loads (SkylakeX,
Haswell, Zen, ...) and numpy dispatches its SIMD loops by CPU; either can change the last bits of a sum, and one last
bit can flip an LP pivot or a tie between splits and with it a whole model. This test emulates other CPUs on this one.
In one subprocess per configuration (the settings act only when numpy loads) the worker tests/data/cross_platform_fit.py
fits every estimator of the book — every registry method robust_ref implements at its defaults, the settings of RMBoost's
Table 3, RMBoost/LPBoost variants — on three bundled datasets, clean and with 20% uniform label noise, and saves the
test-set outputs bit for bit. Each worker checks that its configuration took (threadpoolctl's OpenBLAS architecture,
numpy's disabled features) and fails loudly if not. Against the host's outputs:
- estimators declaring `_exact_across_platforms` (RMBoost and LPBoost, every variant; AdaBoost, Real AdaBoost, LogitBoost,
  GentleBoost, BrownBoost and RobustBoost, with stumps and with Table 3's trees) give bit-identical decision values;
- every estimator gives the same predictions;
- every other decision value (predict_proba where there is none) agrees within 1e-9 relative: |a − b| ≤ 1e-9·max(1, |a|).
numba's target CPU is not varied: `@njit` code without fastmath keeps its order of operations, and NUMBA_CPU_NAME=generic
gave the host's bits for every output here (measured once); as a configuration it would recompile all the book's numba
code (~2 min of CPU per run, no cache on a fresh checkout). The workers run with host-target numba code.
The boosters with ≤ 11-leaf trees at Table 3's settings and RobustBoost used to change their predictions here (numpy's
AVX-512 exp/log, BLAS dot products of the weights, LAPACK in RobustBoost's and BrownBoost's solver, scipy's
least_squares): one bit of a weight moved a tree split. The boosting engine's weights, edges and steps now use the
fixed-order kernels of robust_ref.core, and BrownBoost and RobustBoost solve their 2×2 equations in scalar arithmetic
(`box_dogleg`, chapter 61).
"""
import json
import os
import platform
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
WORKER = ROOT / "tests" / "data" / "cross_platform_fit.py"
RTOL = 1e-9
CPU_KNOBS = ("OPENBLAS_CORETYPE", "NPY_DISABLE_CPU_FEATURES", "NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES")

pytestmark = [pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"),
                                 reason=f"emulates x86-64 CPUs through OpenBLAS x86 kernels; this host is {platform.machine()}"),
              pytest.mark.xdist_group("cross_platform")]   # one worker runs the module's fits once (`--dist loadgroup`)


def numpy_cap() -> list[str]:
    "numpy's dispatch targets enabled here that imply AVX-512 (none on other CPUs: then every enabled one, the baseline)."
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    on = [f for f in __cpu_dispatch__ if __cpu_features__.get(f)]
    return [f for f in on if f == "X86_V4" or f.startswith("AVX512")] or on


def configurations() -> dict:
    "Name → environment; the first is the reference."
    configs = {"host": {}, "Haswell": {"OPENBLAS_CORETYPE": "Haswell"}, "Sandybridge": {"OPENBLAS_CORETYPE": "Sandybridge"}}
    cap = numpy_cap()
    if cap: configs["numpy-capped"] = {"NPY_DISABLE_CPU_FEATURES": " ".join(cap)}
    return configs


def fit_under(name: str, extra: dict, out: Path):
    "Run the worker under one configuration; its runtime report and outputs."
    out.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in CPU_KNOBS}
    env |= dict(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0",
                PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])), **extra)
    r = subprocess.run([sys.executable, str(WORKER), str(out)], env=env, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, f"configuration {name} {extra}: the worker failed\n{r.stderr[-4000:]}"
    return json.loads((out / "runtime.json").read_text()), dict(np.load(out / "outputs.npz"))


def max_rel_diff(a: np.ndarray, b: np.ndarray) -> float:
    "max |a − b| / max(1, |a|); 0 where both are equal (inf) or NaN, inf where only one is NaN."
    with np.errstate(invalid="ignore"):
        d = np.abs(a - b) / np.maximum(1.0, np.abs(a))
    d[(a == b) | (np.isnan(a) & np.isnan(b))] = 0.0
    return float(np.nan_to_num(d, nan=np.inf).max(initial=0.0))


def compare(ref: dict, other: dict, exact: set) -> list[dict]:
    "One row per (estimator, dataset, noise): predictions that differ, largest relative difference, bit-identity."
    rows = []
    for key in sorted(k for k in ref if k.endswith("|decision")):
        method, dataset, noise, _ = key.split("|")
        a, b = ref[key], other[key]
        pred = key.replace("|decision", "|predict")
        rows.append(dict(method=method, dataset=dataset, noise=noise, exact=method in exact, n=len(ref[pred]),
                         differ=int(np.sum(ref[pred] != other[pred])), rel=max_rel_diff(a, b),
                         bits=a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()))
    return rows


def failed(row: dict) -> bool:
    return row["differ"] > 0 or (row["exact"] and not row["bits"]) or row["rel"] > RTOL


def describe(name: str, extra: dict, rt: dict) -> str:
    blas = ", ".join(sorted({f"{b['architecture']}" for b in rt["blas"]}))
    return (f"  {name}: env {extra or '(none: host defaults)'} -> OpenBLAS kernel {blas} ({len(rt['blas'])} libs), "
            f"numpy disabled {rt['npy_disabled'] or 'nothing'}, numba target {rt['numba_cpu']} "
            f"(cache hits {rt['numba_cache']['hits']}, misses {rt['numba_cache']['misses']}); fits {rt['seconds']} s")


def table(rows: list[dict]) -> str:
    head = f"  {'estimator':24s} {'dataset':9s} {'noise':6s} {'config':12s} {'#pred differ':>13s} {'max rel diff':>12s}  must be exact"
    lines = [f"  {r['method']:24s} {r['dataset']:9s} {r['noise']:6s} {r['config']:12s} {r['differ']:>6d} of {r['n']:<4d}"
             f"{r['rel']:>12.2e}  {'yes, bits differ' if r['exact'] and not r['bits'] else ''}" for r in rows]
    return "\n".join([head, *lines])


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    "The configurations, and each one's runtime report and outputs (the host's first)."
    tmp, configs = tmp_path_factory.mktemp("cpu"), configurations()
    with ThreadPoolExecutor(2) as pool:   # two at a time: each worker is single-threaded
        host = pool.submit(fit_under, "host", {}, tmp / "host")
        # the others start once the host has run every estimator: on a fresh checkout it compiles the book's numba
        # code (~100 s of CPU) into numba's cache, which the others then load instead of compiling it too
        while not (tmp / "host" / "warm").exists() and not host.done(): time.sleep(0.2)
        rest = {c: pool.submit(fit_under, c, configs[c], tmp / c) for c in list(configs)[1:]}
        return configs, {"host": host.result()} | {c: f.result() for c, f in rest.items()}


def check(configs: dict, runs: dict) -> None:
    "Assert the rules on every estimator, with a table of every failing cell."
    ref_rt, ref = runs["host"]
    exact = set(ref_rt["exact"])
    fixed = {"rmboost", "lpboost", "adaboost", "real_adaboost", "logitboost", "gentleboost", "brownboost", "robustboost"}
    assert fixed <= exact, f"{sorted(fixed - exact)} no longer declare _exact_across_platforms: {sorted(exact)}"
    rows = [r | dict(config=name) for name, (rt, out) in list(runs.items())[1:] for r in compare(ref, out, exact)]
    assert rows, "no estimator compared"
    bad = sorted((r for r in rows if failed(r)), key=lambda r: (r["method"], r["config"], r["dataset"], r["noise"]))
    assert not bad, (
        f"outputs depend on the CPU configuration (reference: host; bit-identity required of {sorted(exact)}; "
        f"predictions identical and decision values within {RTOL:g} relative required of all):\n"
        + "\n".join(describe(name, configs[name], rt) for name, (rt, _) in runs.items())
        + f"\n{len(bad)} of {len(rows)} (estimator, dataset, noise, config) cells differ:\n{table(bad)}")


def test_results_do_not_depend_on_the_cpu(runs):
    check(*runs)
