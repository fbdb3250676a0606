"""Tests of robust_ref.experiments.scaling (chapter 73): the stand-in's shape, the slope fit and the slope check that
the chapter asserts (it must reject a quadratic growth), the tables, and the fresh-process measurement's failure row."""
import math

import numpy as np
import pandas as pd
import pytest

from robust_ref.experiments.scaling import (check_slope, fit_slope, higgs_like, measure_in_fresh_process, scaling_data,
                                            scaling_slopes, scaling_table)


def _run(growth: float) -> pd.DataFrame:
    n = np.array([1_000, 3_000, 10_000, 30_000, 100_000])
    return pd.DataFrame(dict(method="m", n=n, cpu_s=1e-7 * n**growth, peak_mb=1e-3 * n, status="ok"))


def test_fit_slope_recovers_the_exponent():
    for b in (0.5, 1.0, 2.0):
        assert fit_slope(_run(b).n, _run(b).cpu_s) == pytest.approx(b, abs=1e-9)
    assert math.isnan(fit_slope([1_000, 1_000], [1.0, 2.0])) and math.isnan(fit_slope([1_000], [1.0]))


def test_check_slope_rejects_a_slope_of_two_and_passes_a_linear_one():
    assert check_slope(_run(1.0), "m", 1.3) == pytest.approx(1.0)
    with pytest.raises(AssertionError, match=r"n\^2.00 .* faster than the bound n\^1.3"):
        check_slope(_run(2.0), "m", 1.3)
    with pytest.raises(AssertionError, match="no finished fit at both ends"):
        check_slope(_run(1.0)[lambda d: d.n < 100_000], "m", 1.3)
    failed = _run(1.0).assign(status=lambda d: np.where(d.n == 100_000, "over 60 s", "ok"))
    with pytest.raises(AssertionError, match="no finished fit at both ends"):
        check_slope(failed, "m", 1.3)


def test_slopes_and_tables():
    df = pd.concat([_run(1.0), _run(2.0).assign(method="q")], ignore_index=True)
    sl = scaling_slopes(df, between=(10_000, 100_000))
    assert sl.loc["q", "slope"] == pytest.approx(2.0) and sl.loc["m", "sizes"] == 3 and sl.loc["m", "largest_n"] == 100_000
    t = scaling_table(df, "peak_mb")
    assert list(t.index) == ["m", "q"] and list(t.columns) == [1_000, 3_000, 10_000, 30_000, 100_000]


def test_the_stand_in_and_the_data():
    X, y = higgs_like(500, random_state=3)
    assert X.shape == (500, 28) and set(np.unique(y)) == {-1, 1} and np.isfinite(X).all()
    X, y, Xt, yt = scaling_data("higgs_like", 300, seed=1, n_test=100)
    assert X.shape == (300, 28) and Xt.shape == (100, 28)
    with pytest.raises(ValueError, match="training rows at most"):
        scaling_data("magic", 10**6)


def test_a_failing_fit_is_a_row_with_its_error():
    r = measure_in_fresh_process("no_such_method", "higgs_like", 1_000, n_test=100, timeout=300)
    assert r["method"] == "no_such_method" and r["status"].startswith("failed: ")


def test_tables_of_a_run_where_nothing_finished_are_empty():
    "A run whose every fit timed out (LPBoost at 10⁶ rows did) gives empty tables, not a KeyError on the missing column."
    df = pd.DataFrame([dict(method="lpboost", data="higgs_like", n=1_000_000, status="over 1320 s")])
    assert scaling_table(df, "cpu_s").empty and scaling_table(df, "peak_mb").empty and scaling_slopes(df).empty
    done = pd.concat([df, pd.DataFrame([dict(method="lpboost", data="higgs_like", n=1_000, status="ok", cpu_s=0.5)])])
    assert scaling_table(done, "cpu_s").loc["lpboost", 1_000] == 0.5


def test_the_prediction_time_is_the_best_of_up_to_three_within_the_budget(monkeypatch):
    "The fewest CPU seconds over the calls made; a call that takes the whole budget is the only one."
    import robust_ref.experiments.scaling as sc
    clock = iter([0.0, 0.5, 1.0, 1.2, 2.0, 2.9])          # three calls taking 0.5, 0.2 and 0.9 s
    monkeypatch.setattr(sc.time, "process_time", lambda: next(clock))
    calls = []
    out, best, n = sc._best_cpu_seconds(lambda: calls.append(1) or len(calls))
    assert (out, best, n, len(calls)) == (3, pytest.approx(0.2), 3, 3)
    clock = iter([0.0, 6.0])                               # one call over the 5 s budget: no second one
    calls.clear()
    assert sc._best_cpu_seconds(lambda: calls.append(1) or len(calls))[1:] == (6.0, 1) and len(calls) == 1
