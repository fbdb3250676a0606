"""Every tolerance that decides a discrete choice in RMBoost's and LPBoost's column generation, pinned from both sides.

Each test builds a case that sits between the default tolerance and a looser one: the default must decide it one way
and the loosened tolerance the other way, so raising a default (say the LPBoost certificate's 1e-9 to 1e-6) fails
here. The fixed-order kernels those decisions are computed with are checked against plain Python sums, which add
in index order by definition.
"""
import functools
import inspect
import operator
from dataclasses import replace

import numpy as np
import pytest

from robust_ref.lp import (DenseDualSimplex, LPBoostClassifier, LPBoostMaster, fixed_dot, fixed_inverse, fixed_matvec,
                           rows_combine, rows_dot)
from robust_ref.rmboost import TIE_ATOL, RMBoostClassifier, RMBoostMaster


def python_sum(terms):
    "Left-to-right sum from 0.0: the order the fixed kernels promise."
    return functools.reduce(operator.add, map(float, terms), 0.0)


def test_fixed_kernels_sum_in_index_order():
    rng = np.random.default_rng(7)
    R, x = rng.normal(size=(9, 31)) * 10.0 ** rng.integers(-8, 8, size=(9, 31)), rng.normal(size=31)
    expect = np.array([python_sum(r * x) for r in R])                 # products exact in numpy and Python alike
    assert np.array_equal(rows_dot(R, x), expect)                     # bit for bit, not allclose
    assert fixed_dot(R[3], x) == expect[3]
    c = rng.normal(size=9); c[[1, 4]] = 0.0
    assert np.array_equal(rows_combine(c, R), [python_sum(c * col) for col in R.T])
    assert np.array_equal(fixed_matvec(np.asfortranarray(R), x), expect)
    # a different order gives other bits on these magnitudes, so the comparisons above can fail
    assert not np.array_equal(expect, [python_sum((r * x)[::-1]) for r in R])


def test_fixed_inverse():
    rng = np.random.default_rng(8)
    M = rng.normal(size=(30, 30))
    np.testing.assert_allclose(fixed_inverse(M) @ M, np.eye(30), atol=1e-10)
    assert fixed_inverse(np.array([[1.0, 2.0], [2.0, 4.0]])) is None          # singular
    with pytest.raises(ValueError, match="square"): fixed_inverse(np.ones((2, 3)))


def test_dense_simplex_feasibility_tolerance():
    "min x s.t. 1e-7 ≤ x ≤ 1: the slack basis is infeasible by 1e-7; the default tol (1e-9) pivots, 1e-6 would not."
    def solve(**kw):
        lp = DenseDualSimplex(1, ub=1.0, cost=1.0, mirror=False, **kw)
        lp.add_rows(np.ones(1), 1e-7, np.inf)
        return lp.solve()[0][0]
    assert solve() == pytest.approx(1e-7, rel=1e-12)
    assert solve(tol=1e-6) == 0.0


def _lpboost_solution():
    rng = np.random.default_rng(3)
    y = rng.choice([-1.0, 1.0], 60)
    m = LPBoostMaster(y, 1 / (0.2 * 60))
    for _ in range(8): m.add_rule(np.where(rng.random(60) < 0.7, y, -y))
    return m, m.solve()


def test_lpboost_certificate_tolerance():
    "A solution whose β is off by 1e-7 is rejected with the default tolerance (1e-9), accepted with 1e-6."
    m, sol = _lpboost_solution()
    assert m.certify(sol)
    off = replace(sol, beta=sol.beta + 1e-7)
    assert not m.certify(off)
    assert m.certify(off, tol=1e-6)
    assert inspect.signature(LPBoostMaster).parameters["tol"].default == 1e-9


def test_rmboost_certificate_tolerance():
    "α − β moved by 2e-6 on one point: the gap R16 − R17 is 1e-6, rejected at lp_tol = 1e-7, accepted at 1e-5."
    rng = np.random.default_rng(4)
    y = rng.choice([-1.0, 1.0], 50)
    m = RMBoostMaster(y)
    for _ in range(6): m.add_rules(np.where(rng.random(50) < 0.7, y, -y)[:, None], 0.05)
    sol = m.solve()
    assert m.certify(sol)
    d = sol.alpha_minus_beta.copy()
    i = int(np.argmax(np.abs(d))); d[i] += 2e-6 * np.sign(d[i])
    assert not m.certify(replace(sol, dual=d))
    assert m.certify(replace(sol, dual=d), tol=1e-5)
    assert m.lp_tol == 1e-7


def test_classifier_stopping_tolerances_are_the_documented_defaults():
    "The edge tests (LPBoost: edge ≤ β + tol; RMBoost: edge ≤ λ + lp_tol) use these defaults; loosening one fails here."
    assert LPBoostClassifier().tol == 1e-6
    assert RMBoostClassifier().lp_tol == 1e-7


def test_rmboost_tie_tolerance():
    "|f| = 1e-8 is a decision, not a tie, with TIE_ATOL = 1e-9 (1e-7 would make it one); |f| = 5e-10 takes the tie class."
    X = np.r_[np.zeros((10, 1)), np.ones((10, 1))]; y = np.r_[np.zeros(10), np.ones(10)]
    clf = RMBoostClassifier(n_estimators=3, random_state=0, tie="positive").fit(X, y)
    assert np.array_equal(clf._break_ties(np.array([-1e-8, 1e-8, -5e-10, 0.0])), [-1.0, 1.0, 1.0, 1.0])
    assert TIE_ATOL == 1e-9
