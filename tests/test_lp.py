"""Tests for robust_ref.lp: the warm-started HiGHS master LP and LPBoost.

Every expected value comes from an independent computation: scipy.optimize.linprog(method="highs")
solving the same LP (or its dual) from scratch, KKT conditions written out here, brute-force stump
enumeration, or closed forms.
"""
import pickle
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from scipy.optimize import linprog
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

import warnings

from robust_ref.datasets import list_datasets, load_dataset
from robust_ref.lp import (DegenerateMarginWarning, LPBoostClassifier, LPBoostMaster, LPResult, LPSolveError, MasterLP,
                           fit_rule, optimality_certificate, pricing_oracle)
from robust_ref.noise import flip_uniform

TOL = 1e-7  # HiGHS's default primal/dual feasibility tolerance: the precision both solvers promise


# ----------------------------------------------------------------------------------------------
# independent helpers
# ----------------------------------------------------------------------------------------------
def linprog_solve(c, A, L, U, lb, ub, sense):
    """Solve min/max c·x, L ≤ Ax ≤ U, lb ≤ x ≤ ub from scratch with linprog.

    Returns (status, objective, x, y, d) with y, d in the shadow-price convention of the problem's
    own sense: linprog minimises, its marginals are ∂f/∂b ≤ 0 for A_ub rows; a '≥ L' row is written
    as -a·x ≤ -L, whose marginal is ∂f/∂(-L) so ∂f/∂L = -marginal.
    """
    s = 1.0 if sense == "min" else -1.0
    up, dn = np.isfinite(U), np.isfinite(L)
    eq = up & dn & (L == U)
    up_only, dn_only = up & ~eq, dn & ~eq
    kw = {}
    if eq.any(): kw.update(A_eq=A[eq], b_eq=U[eq])
    if up_only.any() or dn_only.any():
        kw.update(A_ub=np.r_[A[up_only], -A[dn_only]], b_ub=np.r_[U[up_only], -L[dn_only]])
    r = linprog(s * c, bounds=list(zip(lb, ub)), method="highs", **kw)
    if r.status != 0: return r.status, None, None, None, None
    y = np.zeros(len(L))
    if eq.any(): y[eq] = r.eqlin.marginals
    if up_only.any() or dn_only.any():
        m = r.ineqlin.marginals
        y[up_only] += m[:up_only.sum()]
        y[dn_only] -= m[up_only.sum():]
    d = r.lower.marginals + r.upper.marginals
    return 0, s * r.fun, r.x, s * y, s * d


def kkt_check(c, A, L, U, lb, ub, sense, x, y, d, tol=TOL):
    """Assert the optimality conditions of (x; y, d) directly (independent of robust_ref's certificate)."""
    s = 1.0 if sense == "min" else -1.0
    Ax = A @ x
    # primal feasibility
    assert np.all(Ax >= L - tol) and np.all(Ax <= U + tol)
    assert np.all(x >= lb - tol) and np.all(x <= ub + tol)
    # stationarity: d = c - Aᵀy
    np.testing.assert_allclose(d, c - A.T @ y, atol=tol)
    # dual feasibility (min: y ≥ 0 only usable with a finite lower bound, y ≤ 0 with a finite upper)
    ys, ds = s * y, s * d
    assert np.all(ys[np.isneginf(L)] <= tol) and np.all(ys[np.isposinf(U)] >= -tol)
    assert np.all(ds[np.isneginf(lb)] <= tol) and np.all(ds[np.isposinf(ub)] >= -tol)
    # complementary slackness: a positive (sense-adjusted) dual needs the lower bound active, a negative one the upper
    scale = 1 + np.abs(ys).max(initial=0) + np.abs(ds).max(initial=0)
    act = lambda v, b: np.where(np.isfinite(b), np.abs(v - b), 0.0)
    assert np.all(np.maximum(ys, 0) * act(Ax, L) <= tol * scale)
    assert np.all(np.maximum(-ys, 0) * act(Ax, U) <= tol * scale)
    assert np.all(np.maximum(ds, 0) * act(x, lb) <= tol * scale)
    assert np.all(np.maximum(-ds, 0) * act(x, ub) <= tol * scale)
    # strong duality: primal objective = dual objective
    fin = lambda b: np.where(np.isfinite(b), b, 0.0)
    dual = s * (fin(L) @ np.maximum(ys, 0) - fin(U) @ np.maximum(-ys, 0)
                + fin(lb) @ np.maximum(ds, 0) - fin(ub) @ np.maximum(-ds, 0))
    assert abs(c @ x - dual) <= tol * scale * (1 + np.abs(c @ x))


def random_bounded_lp_rows(rng, m):
    """Row bounds that all admit 0 (so x = 0 is feasible): ranged, one-sided and an equality row."""
    L = -rng.uniform(0.5, 2, m); U = rng.uniform(0.5, 2, m)
    L[m // 2: m // 2 + m // 6] = -np.inf          # some '≤ U' rows
    U[m // 2 + m // 6: m // 2 + m // 3] = np.inf  # some '≥ L' rows
    L[-1] = U[-1] = 0.0                            # an equality row
    return L, U


def random_column(rng, j, m, sense):
    """A column whose bounds and cost keep the LP bounded: boxed, sign-constrained with a harmless cost, or free
    (free columns only among the first few, all supported on the first 10 ranged rows: full column rank)."""
    s = 1.0 if sense == "min" else -1.0
    kind = j % 4
    if kind == 0 and j < 12:                         # free, on the ranged rows 0..9
        a = np.zeros(m); a[:10] = rng.normal(size=10)
        return rng.normal(), a, -np.inf, np.inf
    a = rng.normal(size=m) * (rng.random(m) < 0.5)
    a[rng.integers(10)] = rng.normal()               # at least one entry
    if kind == 1: return s * abs(rng.normal()), a, 0.0, np.inf       # min: c ≥ 0 on x ≥ 0
    if kind == 2: return -s * abs(rng.normal()), a, -np.inf, 0.0     # min: c ≤ 0 on x ≤ 0
    return rng.normal(), a, -rng.uniform(0, 1), rng.uniform(0.5, 2)  # boxed


# ----------------------------------------------------------------------------------------------
# the 100-column run
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("sense, algorithm", [("min", "dual"), ("max", "dual"), ("min", "primal"), ("max", "auto")])
def test_100_column_run_matches_linprog_after_every_round(sense, algorithm):
    rng = np.random.default_rng(1 if sense == "min" else 2)
    m, K = 30, 100
    L, U = random_bounded_lp_rows(rng, m)
    lp = MasterLP(L, U, sense=sense, offset=0.25, algorithm=algorithm)
    c, A, lb, ub = [], np.zeros((m, 0)), [], []
    warm_iters, unique_x, unique_y = [], 0, 0
    for j in range(K):
        cj, aj, lj, uj = random_column(rng, j, m, sense)
        assert lp.add_column(cj, aj, lj, uj) == j
        c.append(cj); A = np.c_[A, aj]; lb.append(lj); ub.append(uj)
        res = lp.solve()
        cc, lo, hi = np.array(c), np.array(lb), np.array(ub)
        status, obj, x, y, d = linprog_solve(cc, A, L, U, lo, hi, sense)
        assert status == 0 and res.status == "Optimal"
        scale = 1 + abs(obj)
        assert abs(res.objective - (obj + 0.25)) <= TOL * scale
        np.testing.assert_allclose(res.row_value, A @ res.x, atol=1e-9)
        kkt_check(cc, A, L, U, lo, hi, sense, res.x, res.row_dual, res.reduced_cost)
        # Equality of x with linprog's needs a unique primal (strict complementarity: every active bound carries
        # a non-zero dual); equality of (y, d) needs a unique dual (a non-degenerate vertex: exactly k active
        # bounds). Both hold for generic data, but x = 0 and the equality row at 0 make early rounds degenerate:
        # there the KKT check above (with the objective) is the test, as any optimal dual is equally valid.
        row_act = (np.abs(A @ x - L) < 1e-9) | (np.abs(A @ x - U) < 1e-9)
        col_act = (np.abs(x - lo) < 1e-9) | (np.abs(x - hi) < 1e-9)
        if np.all(np.abs(y[row_act]) > 1e-9) and np.all(np.abs(d[col_act]) > 1e-9):
            np.testing.assert_allclose(res.x, x, atol=TOL * scale); unique_x += 1
        if row_act.sum() + col_act.sum() == len(cc):
            np.testing.assert_allclose(res.row_dual, y, atol=TOL * scale)
            np.testing.assert_allclose(res.reduced_cost, d, atol=TOL * scale); unique_y += 1
        warm_iters.append(res.iterations)
    assert unique_x >= 70 and unique_y >= 70   # the exact comparisons did run in most rounds
    # the warm start pays off: far fewer pivots per round than columns in the LP
    assert np.mean(warm_iters[50:]) < 25


def test_degenerate_boosting_master_objective_and_kkt_each_round():
    """An RMBoost-shaped master (±1 columns, ranged rows ±1/2) is highly degenerate: its duals are not unique,
    so we compare objectives with linprog and certify the duals with the KKT conditions instead of equality."""
    rng = np.random.default_rng(5)
    n, K = 60, 40
    y = rng.choice([-1.0, 1.0], n)
    lam = 1 / np.sqrt(n)
    lp = MasterLP(np.full(n, -0.5), np.full(n, 0.5), offset=0.5)
    cols, costs = [], []
    for k in range(K):
        v = np.sign(rng.normal(size=n) + 0.5 * y); tau = y @ v / n
        lp.add_column(-tau + lam, v); lp.add_column(tau + lam, -v)
        cols += [v, -v]; costs += [-tau + lam, tau + lam]
        res = lp.solve()
        A, c = np.column_stack(cols), np.array(costs)
        lo, hi = np.zeros(len(c)), np.full(len(c), np.inf)
        status, obj, *_ = linprog_solve(c, A, np.full(n, -0.5), np.full(n, 0.5), lo, hi, "min")
        assert abs(res.objective - (obj + 0.5)) <= TOL
        kkt_check(c, A, np.full(n, -0.5), np.full(n, 0.5), lo, hi, "min", res.x, res.row_dual, res.reduced_cost)
        # RMBoost's restricted LP (Mazuelas & Álvarez 2025, the master problem of Algorithm 1): α - β = -row_dual, and R = ½(1 - ‖α - β‖₁)
        assert abs(0.5 * (1 - np.abs(res.row_dual).sum()) - res.objective) <= TOL


# ----------------------------------------------------------------------------------------------
# editing the LP: remove, re-cost, re-bound
# ----------------------------------------------------------------------------------------------
def _grown_lp(seed=3, m=20, K=30, sense="min"):
    rng = np.random.default_rng(seed)
    L, U = random_bounded_lp_rows(rng, m)
    lp = MasterLP(L, U, sense=sense)
    cols = [random_column(rng, j, m, sense) for j in range(K)]
    for col in cols: lp.add_column(*col)
    return lp, L, U, cols


def _arrays(cols):
    c = np.array([x[0] for x in cols]); A = np.column_stack([x[1] for x in cols])
    return c, A, np.array([x[2] for x in cols]), np.array([x[3] for x in cols])


def test_remove_columns_including_basic_ones_matches_linprog():
    lp, L, U, cols = _grown_lp()
    res = lp.solve()
    basic_like = np.flatnonzero(np.abs(res.x) > 1e-9)
    rng = np.random.default_rng(0)
    drop = np.unique(np.r_[basic_like[:3], rng.choice(30, 5, replace=False)])
    mapping = lp.remove_columns(drop)
    keep = np.setdiff1d(np.arange(30), drop)
    assert lp.n_cols == len(keep)
    np.testing.assert_array_equal(mapping[keep], np.arange(len(keep)))
    assert np.all(mapping[drop] == -1)
    res2 = lp.solve()
    c, A, lo, hi = _arrays([cols[j] for j in keep])
    status, obj, x, y, d = linprog_solve(c, A, L, U, lo, hi, "min")
    assert abs(res2.objective - obj) <= TOL * (1 + abs(obj))
    np.testing.assert_allclose(res2.x, x, atol=TOL)
    kkt_check(c, A, L, U, lo, hi, "min", res2.x, res2.row_dual, res2.reduced_cost)
    # the LP HiGHS holds is exactly the kept columns
    arr = lp.to_arrays()
    np.testing.assert_array_equal(arr["A"], A); np.testing.assert_array_equal(arr["c"], c)


def test_remove_nonbasic_zero_columns_keeps_basis_and_value():
    lp, L, U, cols = _grown_lp(seed=4)
    res = lp.solve()
    zero = np.flatnonzero(np.abs(res.x) < 1e-12)
    assert len(zero) > 0
    mapping = lp.remove_columns(zero)
    res2 = lp.solve()
    assert abs(res2.objective - res.objective) < 1e-12
    np.testing.assert_allclose(res2.x, res.x[mapping >= 0], atol=1e-12)
    assert res2.iterations == 0


def test_remove_columns_mask_negative_and_empty():
    lp, *_ = _grown_lp(K=6)
    np.testing.assert_array_equal(lp.remove_columns([]), np.arange(6))
    mask = np.zeros(6, bool); mask[[1, 4]] = True
    np.testing.assert_array_equal(lp.remove_columns(mask), [0, -1, 1, 2, -1, 3])
    np.testing.assert_array_equal(lp.remove_columns(-1), [0, 1, 2, -1])
    assert lp.n_cols == 3
    with pytest.raises(ValueError, match="outside"): lp.remove_columns([3])
    with pytest.raises(ValueError, match="one entry per column"): lp.remove_columns(np.ones(5, bool))
    with pytest.raises(TypeError, match="integer"): lp.remove_columns([0.5])


def test_set_costs_bounds_and_row_bounds_match_linprog():
    lp, L, U, cols = _grown_lp(seed=6, K=25)
    lp.solve()
    rng = np.random.default_rng(1)
    c, A, lo, hi = _arrays(cols)
    idx = np.array([7, 3, 11])                   # unsorted on purpose: values must follow this order
    new_c = rng.normal(size=3); lp.set_costs(idx, new_c); c[idx] = new_c
    box = np.array([3, 7, 19]); lp.set_bounds(box, -0.3, [0.4, 0.5, 0.6]); lo[box] = -0.3; hi[box] = [0.4, 0.5, 0.6]
    rows = np.array([0, 5]); lp.set_row_bounds(rows, [-0.2, -0.1], [0.3, 0.2]); L[rows] = [-0.2, -0.1]; U[rows] = [0.3, 0.2]
    res = lp.solve()
    status, obj, x, y, d = linprog_solve(c, A, L, U, lo, hi, "min")
    assert abs(res.objective - obj) <= TOL * (1 + abs(obj))
    np.testing.assert_allclose(res.x, x, atol=TOL)
    kkt_check(c, A, L, U, lo, hi, "min", res.x, res.row_dual, res.reduced_cost)


def test_add_columns_batch_sparse_and_from_arrays_agree():
    import scipy.sparse as sp
    rng = np.random.default_rng(7)
    m = 15
    L, U = random_bounded_lp_rows(rng, m)
    cols = [random_column(rng, j, m, "max") for j in range(20)]
    c, A, lo, hi = _arrays(cols)
    one = MasterLP(L, U, sense="max")
    for cj, aj, lj, uj in cols:   # sparse (indices, values) form
        nz = np.flatnonzero(aj); one.add_column(cj, (nz, aj[nz]), lj, uj)
    batch = MasterLP(L, U, sense="max"); batch.add_columns(c, sp.csc_matrix(A), lo, hi)
    whole = MasterLP.from_arrays(c, A, L, U, lo, hi, sense="max")
    objs = [lp.solve().objective for lp in (one, batch, whole)]
    status, obj, *_ = linprog_solve(c, A, L, U, lo, hi, "max")
    np.testing.assert_allclose(objs, obj, atol=TOL * (1 + abs(obj)))
    np.testing.assert_array_equal(one.to_arrays()["A"], A)


def test_no_columns_is_optimal_or_infeasible():
    res = MasterLP([-1, 0], [1, 2], offset=3.0).solve()
    assert res.objective == 3.0 and res.x.shape == (0,) and np.all(res.row_dual == 0)
    with pytest.raises(LPSolveError, match="Infeasible"): MasterLP([1], [2]).solve()


# ----------------------------------------------------------------------------------------------
# failure is loud
# ----------------------------------------------------------------------------------------------
def test_infeasible_unbounded_and_limits_raise_naming_the_status():
    lp = MasterLP([1.0], [np.inf]); lp.add_column(0.0, [1.0], 0, 0.5)
    with pytest.raises(LPSolveError, match="Infeasible") as e: lp.solve()
    assert e.value.status == "Infeasible" and isinstance(e.value, RuntimeError)
    lp = MasterLP([1.0], [np.inf]); lp.add_column(-1.0, [1.0])
    with pytest.raises(LPSolveError, match="Unbounded") as e: lp.solve()
    assert e.value.status == "Unbounded"
    lp = MasterLP([1.0], [np.inf], sense="max"); lp.add_column(1.0, [1.0])
    with pytest.raises(LPSolveError, match="Unbounded"): lp.solve()
    lp, *_ = _grown_lp(seed=8)
    lp._h.setOptionValue("simplex_iteration_limit", 1)   # a limit reached is not an optimum
    with pytest.raises(LPSolveError, match="limit") as e: lp.solve()
    assert "limit" in e.value.status.lower()


def test_masterlp_bad_inputs():
    with pytest.raises(ValueError, match="sense"): MasterLP([0], [1], sense="maximise")
    with pytest.raises(ValueError, match="algorithm"): MasterLP([0], [1], algorithm="barrier")
    with pytest.raises(ValueError, match="cross"): MasterLP([0, 2], [1, 1])
    with pytest.raises(ValueError, match="NaN"): MasterLP([np.nan], [1])
    with pytest.raises(ValueError, match="length 2"): MasterLP([0, 0], [1, 1, 1])
    with pytest.raises(ValueError, match="1-D"): MasterLP([[0]], [[1]])
    with pytest.raises(ValueError, match="lower bound must be finite or -inf"): MasterLP([np.inf], [np.inf])
    with pytest.raises(ValueError, match="rejected option"): MasterLP([0], [1], options={"bogus": 1})
    with pytest.raises(ValueError, match="offset"): MasterLP([0], [1], offset=np.nan)
    lp = MasterLP([0, 0], [1, 1])
    with pytest.raises(ValueError, match="cost"): lp.add_column(np.inf, [1, 1])
    with pytest.raises(ValueError, match="length 2"): lp.add_column(1.0, [1, 1, 1])
    with pytest.raises(ValueError, match="NaN"): lp.add_column(1.0, [1, np.nan])
    with pytest.raises(ValueError, match="cross"): lp.add_column(1.0, [1, 1], lb=2, ub=1)
    with pytest.raises(ValueError, match=r"\[0, 2\)"): lp.add_column(1.0, ([0, 5], [1.0, 1.0]))
    with pytest.raises(ValueError, match="duplicates"): lp.add_column(1.0, ([1, 1], [1.0, 1.0]))
    with pytest.raises(TypeError, match="integers"): lp.add_column(1.0, ([0.5], [1.0]))
    with pytest.raises(ValueError, match="one row per LP row"): lp.add_columns([1.0], np.ones((3, 1)))
    with pytest.raises(ValueError, match="NaN or inf"): lp.add_columns([1.0], np.full((2, 1), np.nan))
    with pytest.raises(ValueError, match="one column per LP column"): lp.add_rows(0, 1, np.ones((1, 3)))
    one_col = MasterLP([0], [1]); one_col.add_column(1.0, [1.0])
    with pytest.raises(ValueError, match="NaN or inf"): one_col.add_rows(0, 1, [[np.nan]])
    with pytest.raises(ValueError, match="cross"): one_col.add_rows(1, 0, [[1.0]])
    with pytest.raises(ValueError, match="lower bound must be a scalar or have length 1"): one_col.add_rows([0, 0], [1, 1], [[1.0]])
    with pytest.raises(TypeError, match="integer row indices"): one_col.remove_rows([0.5])
    with pytest.raises(ValueError, match="row index outside"): MasterLP([0], [1]).remove_rows([3])
    with pytest.raises(ValueError, match="2-D"): lp.add_columns([1.0], np.ones(2))
    with pytest.raises(ValueError, match="costs"): lp.add_columns([1.0, 2.0], np.ones((2, 1)))
    lp.add_column(1.0, [1, 0])
    with pytest.raises(ValueError, match="twice"): lp.set_costs([0, 0], [1.0, 2.0])
    with pytest.raises(ValueError, match="outside"): lp.set_bounds([1], 0, 1)
    with pytest.raises(ValueError, match="row indices"): lp.set_row_bounds([2], 0, 1)
    with pytest.raises(TypeError, match="pickled"): pickle.dumps(lp)
    assert "1 columns" in repr(lp)


# ----------------------------------------------------------------------------------------------
# property tests on small random LPs
# ----------------------------------------------------------------------------------------------
@st.composite
def small_lps(draw):
    m = draw(st.integers(1, 5)); k = draw(st.integers(1, 5))
    ints = lambda n, lo=-3, hi=3: np.array(draw(st.lists(st.integers(lo, hi), min_size=n, max_size=n)), float)
    A = ints(m * k).reshape(m, k); c = ints(k)
    def bounds(n, lo, hi):
        a, b = ints(n, lo, hi), ints(n, lo, hi)
        a, b = np.minimum(a, b), np.maximum(a, b)
        a[np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))] = -np.inf
        b[np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))] = np.inf
        return a, b
    L, U = bounds(m, -4, 4); lb, ub = bounds(k, -2, 2)
    return c, A, L, U, lb, ub, draw(st.sampled_from(["min", "max"]))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_lps())
def test_random_small_lps_agree_with_linprog(lp_data):
    c, A, L, U, lb, ub, sense = lp_data
    status, obj, *_ = linprog_solve(c, A, L, U, lb, ub, sense)
    lp = MasterLP.from_arrays(c, A, L, U, lb, ub, sense=sense)
    if status != 0:   # infeasible (2) or unbounded (3): the master must raise, naming a non-optimal status
        with pytest.raises(LPSolveError) as e: lp.solve()
        assert e.value.status != "Optimal"
        return
    res = lp.solve()
    assert abs(res.objective - obj) <= TOL * (1 + abs(obj))
    kkt_check(c, A, L, U, lb, ub, sense, res.x, res.row_dual, res.reduced_cost)
    cert = optimality_certificate(c, A, L, U, lb, ub, res, sense=sense)
    assert max(v for k, v in cert.items() if not k.endswith("objective")) <= 1e-7


@settings(max_examples=40, deadline=None)
@given(small_lps(), st.integers(0, 2**31 - 1))
def test_incremental_equals_from_scratch(lp_data, seed):
    """Adding the columns one by one (solving in between when possible) ends at the from-scratch optimum."""
    c, A, L, U, lb, ub, sense = lp_data
    status, obj, *_ = linprog_solve(c, A, L, U, lb, ub, sense)
    lp = MasterLP(L, U, sense=sense)
    for j in np.random.default_rng(seed).permutation(len(c)):
        lp.add_column(c[j], A[:, j], lb[j], ub[j])
        try: lp.solve()
        except LPSolveError: pass
    if status != 0:
        with pytest.raises(LPSolveError): lp.solve()
    else:
        assert abs(lp.solve().objective - obj) <= TOL * (1 + abs(obj))


def test_certificate_flags_wrong_dual_sign():
    lp = MasterLP([-np.inf, -np.inf], [4, 6], sense="max")
    lp.add_column(1.0, [1, 1]); lp.add_column(2.0, [1, 3])
    res = lp.solve()
    a = lp.to_arrays()
    args = [a[k] for k in ("c", "A", "row_lower", "row_upper", "col_lower", "col_upper")]
    good = optimality_certificate(*args, result=res, sense="max")
    assert good["duality_gap"] < 1e-12 and good["dual_infeasibility"] == 0
    flipped = LPResult("Optimal", res.objective, res.x, -res.row_dual, a["c"] + a["A"].T @ res.row_dual,
                       res.row_value, 0)
    bad = optimality_certificate(*args, result=flipped, sense="max")
    assert bad["dual_infeasibility"] >= 0.5 and bad["duality_gap"] >= 1
    # the same duals are wrong for a maximisation but read as a minimisation they are the wrong sign too
    assert optimality_certificate(*args, result=res, sense="min")["dual_infeasibility"] >= 0.5


# ----------------------------------------------------------------------------------------------
# LPBoost master: primal in HiGHS vs the dual LP solved by linprog
# ----------------------------------------------------------------------------------------------
def lpboost_dual_linprog(H, y, D):
    """min β s.t. Σ_i u_i y_i H_ij ≤ β ∀j, Σu = 1, 0 ≤ u ≤ D (the Demiriz et al. dual), from scratch."""
    n, T = H.shape
    c = np.r_[np.zeros(n), 1.0]
    A_ub = np.c_[(H * y[:, None]).T, -np.ones(T)]
    r = linprog(c, A_ub=A_ub, b_ub=np.zeros(T), A_eq=np.r_[np.ones(n), 0.0][None], b_eq=[1.0],
                bounds=[(0, d) for d in D] + [(None, None)], method="highs")
    assert r.status == 0
    return r.fun, r.x[:n]


@pytest.mark.parametrize("nu", [0.05, 0.3, 1.0])
def test_lpboost_master_duals_solve_the_dual_lp(nu):
    rng = np.random.default_rng(11)
    n = 80
    y = rng.choice([-1.0, 1.0], n)
    D = np.full(n, 1 / (nu * n))
    master = LPBoostMaster(y, D)
    H = np.zeros((n, 0))
    for k in range(25):
        h = np.sign(rng.normal(size=n) + 0.6 * y) if k % 3 else np.clip(rng.normal(size=n) + 0.5 * y, -1, 1)
        master.add_rule(h); H = np.c_[H, h]
        sol = master.solve()
        beta_ref, _ = lpboost_dual_linprog(H, y, D)
        assert abs(sol.beta - beta_ref) <= TOL                   # β (our row dual) = dual LP optimum
        assert abs(sol.objective - beta_ref) <= TOL              # strong duality: ρ - DΣξ = β
        u = sol.u                                                 # u is dual feasible and optimal
        assert abs(u.sum() - 1) <= TOL and np.all(u <= D + TOL)
        edges = (u * y) @ H
        assert edges.max() <= sol.beta + TOL
        a = sol.a
        assert abs(a.sum() - 1) <= TOL and np.all(a >= 0)
        assert np.all(np.abs(edges[a > 1e-9] - sol.beta) <= 1e-6)  # complementary slackness (a_j > 0 ⇒ tight)
        margins = y * (H @ a)                                        # ξ_i = (ρ - margin_i)_+ at the optimum
        assert abs(sol.rho - D @ np.maximum(sol.rho - margins, 0) - beta_ref) <= 1e-6


@pytest.mark.parametrize("nu, real, perturb", [(0.05, False, 0.0), (0.3, True, 0.0), (1.0, False, 0.0),
                                               (0.1, False, 1e-7), (0.3, True, 1e-4)])
def test_lpboost_dense_master_agrees_with_highs_every_round(nu, real, perturb):
    """The default master (LPBoost's dual on the dense dual simplex) and the primal on HiGHS, fed the same rules:
    equal objectives to 1e-8 every round, both equal to linprog's dual from scratch, and every dense round certified
    without the HiGHS fallback. The same with the dense solver's cost perturbation (off by default) switched on."""
    rng = np.random.default_rng(5)
    n = 120
    y = rng.choice([-1.0, 1.0], n)
    D = np.full(n, 1 / (nu * n))
    dense, highs = LPBoostMaster(y, D), LPBoostMaster(y, D, backend="highs")
    dense.lp.perturb = perturb
    H = np.zeros((n, 0))
    for k in range(60):
        h = np.clip(rng.normal(size=n) + 0.4 * y, -1, 1) if real else np.where(rng.normal(size=n) + 0.4 * y > 0, 1.0, -1.0)
        dense.add_rule(h); highs.add_rule(h); H = np.c_[H, h]
        a, b = dense.solve(), highs.solve()
        assert abs(a.objective - b.objective) <= 1e-8
        assert abs(a.objective - lpboost_dual_linprog(H, y, D)[0]) <= TOL
        assert abs(a.u.sum() - 1) <= 1e-9 and np.all(a.u <= D + 1e-12)
        assert ((a.u * y) @ H).max() <= a.beta + 1e-9 and abs(a.a.sum() - 1) <= 1e-9
    assert dense.fallbacks == 0 and dense.certify(a)
    bad = replace(a, coef=np.r_[1.0, np.zeros(len(a.a) - 1)])          # a feasible but not optimal primal
    assert not dense.certify(bad)                                     # the certificate can fail


def test_lpboost_master_bad_inputs():
    with pytest.raises(ValueError, match="±1"): LPBoostMaster([0, 1, 1], 1.0)
    with pytest.raises(ValueError, match="ΣD ≥ 1"): LPBoostMaster([1, -1], 0.2)
    with pytest.raises(ValueError, match="length 2"): LPBoostMaster([1, -1], [1, 1, 1])
    m = LPBoostMaster([1, -1], 1.0)
    with pytest.raises(ValueError, match="rule outputs"): m.add_rule([1, 1, 1])
    with pytest.raises(ValueError, match="NaN"): m.add_rule([np.nan, 1])


# ----------------------------------------------------------------------------------------------
# LPBoost classifier
# ----------------------------------------------------------------------------------------------
class BruteForceStumps:
    """Local exact oracle (chapter-04 learner protocol): enumerate every stump (+ both polarities) naively."""
    def prepare(self, X, random_state=None):
        self.X = np.asarray(X, float)
        self.cands = [(j, t) for j in range(X.shape[1])
                      for t in (lambda v: (v[1:] + v[:-1]) / 2)(np.unique(self.X[:, j]))]
        return self

    def fit_sign(self, y, w):
        s = y * w
        best, best_edge = None, -np.inf
        for j, t in self.cands:
            h = np.where(self.X[:, j] > t, 1.0, -1.0)
            for pol in (1.0, -1.0):
                e = s @ (pol * h)
                if e > best_edge + 1e-15: best, best_edge = (j, t, pol), e
        j, t, pol = best
        return lambda X: pol * np.where(np.asarray(X)[:, j] > t, 1.0, -1.0)


def _data(n=120, seed=0, noise=0.15):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] + 0.7 * X[:, 1] ** 2 - 0.5 > 0, 1, 0)
    flip = rng.random(n) < noise
    return X, np.where(flip, 1 - y, y)


def test_lpboost_converges_to_full_lp_over_all_stumps():
    """Column generation with an exact oracle reaches the optimum of the LP over *all* stumps (solved by linprog)."""
    X, y = _data(n=70)
    nu = 0.2
    clf = LPBoostClassifier(nu=nu, n_estimators=500, tol=1e-9).fit(X, y)
    assert clf.converged_
    y_pm = np.where(y == 1, 1.0, -1.0)
    oracle = BruteForceStumps().prepare(X)
    H = np.column_stack([np.where(X[:, j] > t, 1.0, -1.0) for j, t in oracle.cands])
    H = np.c_[H, -H]
    beta_all, _ = lpboost_dual_linprog(H, y_pm, np.full(len(y), 1 / (nu * len(y))))
    assert abs(clf.beta_path_[-1] - beta_all) <= 1e-7
    # the brute-force oracle plugged in gives the same LP value
    clf_bf = LPBoostClassifier(nu=nu, n_estimators=500, tol=1e-9, base_learner=BruteForceStumps()).fit(X, y)
    assert abs(clf_bf.beta_path_[-1] - beta_all) <= 1e-7


def test_lpboost_paths_and_fitted_attributes():
    X, y = _data()
    clf = LPBoostClassifier(nu=0.1, n_estimators=60, random_state=0).fit(X, y)
    k = clf.n_iter_
    assert len(clf.estimators_) == k == len(clf.beta_path_) == len(clf.rho_path_) == len(clf.weights_path_)
    assert len(clf.edge_path_) in (k, k + 1)
    assert np.all(np.diff(clf.beta_path_) >= -1e-9)                   # β_k non-decreasing
    assert np.all(clf.edge_path_[1:k] >= clf.beta_path_[:k - 1] - 1e-9)  # every added rule violated the dual
    assert abs(clf.estimator_weights_.sum() - 1) < 1e-9 and np.all(clf.estimator_weights_ >= 0)
    assert abs(clf.dual_weights_.sum() - 1) < 1e-9
    t = clf.fit_trace_                                                # the one history: the paths are views of it
    assert len(t.solutions) == k + 1 and t.final.a is clf.estimator_weights_ and clf.beta_path_[-1] == t.final.beta
    staged = list(clf.staged_decision_function(X))
    assert len(staged) == k
    np.testing.assert_allclose(staged[-1], clf.decision_function(X))
    assert list(clf.staged_predict(X))[-1].tolist() == clf.predict(X).tolist()
    assert clf.score(X, y) > 0.8
    # lp_iterations_: a fresh master fed the same rules makes the same pivots, round by round
    y_pm = np.where(y == clf.classes_[1], 1.0, -1.0)
    master = LPBoostMaster(y_pm, np.minimum(1 / (0.1 * len(y)), 1.0))
    pivots = 0
    for r in clf.estimators_:
        master.add_rule(r(X)); pivots += master.solve().iterations
    assert clf.lp_iterations_ == pivots > k


def test_lpboost_sklearn_base_learner_and_determinism():
    X, y = _data(seed=2)
    tree = DecisionTreeClassifier(max_depth=2, max_features=2)
    a = LPBoostClassifier(nu=0.3, n_estimators=40, base_learner=tree, random_state=3).fit(X, y)
    b = LPBoostClassifier(nu=0.3, n_estimators=40, base_learner=tree, random_state=3).fit(X, y)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert a.score(X, y) > 0.75
    t = LPBoostClassifier(n_estimators=15, base_learner="tree", random_state=1).fit(X, y)
    assert t.n_iter_ >= 1


def test_lpboost_integer_weights_equal_duplication_in_lp_value():
    X, y = _data(n=50, seed=4)
    w = np.random.default_rng(0).integers(1, 3, len(y))
    a = LPBoostClassifier(nu=0.3, n_estimators=300, tol=1e-10).fit(X, y, sample_weight=w)
    b = LPBoostClassifier(nu=0.3, n_estimators=300, tol=1e-10).fit(np.repeat(X, w, 0), np.repeat(y, w))
    assert abs(a.beta_path_[-1] - b.beta_path_[-1]) <= 1e-7   # same LP over all stumps, exact oracle


def test_lpboost_pickle_clone_pipeline_gridsearch():
    X, y = _data()
    clf = LPBoostClassifier(n_estimators=20).fit(X, y)
    clf2 = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(clf.decision_function(X), clf2.decision_function(X))
    c = clone(clf)
    assert not hasattr(c, "estimators_") and c.get_params() == clf.get_params()
    pipe = make_pipeline(StandardScaler(), LPBoostClassifier(n_estimators=60)).fit(X, y)
    assert pipe.score(X, y) > 0.8
    gs = GridSearchCV(LPBoostClassifier(n_estimators=15), {"nu": [0.1, 0.5]}, cv=3).fit(X, y)
    assert gs.best_params_["nu"] in (0.1, 0.5)


@pytest.mark.parametrize("params, match", [
    (dict(nu=0.0), "nu"), (dict(nu=1.5), "nu"), (dict(nu=-0.1), "nu"), (dict(nu="a"), "nu"), (dict(nu=True), "nu"),
    (dict(n_estimators=0), "n_estimators"), (dict(n_estimators=2.5), "n_estimators"),
    (dict(tol=-1.0), "tol"), (dict(tol=np.nan), "tol"),
    (dict(base_learner="forest"), "base_learner"),
])
def test_lpboost_bad_params(params, match):
    X, y = _data(n=30)
    with pytest.raises(ValueError, match=match): LPBoostClassifier(**params).fit(X, y)


def test_lpboost_bad_data():
    X, y = _data(n=30)
    with pytest.raises(TypeError, match="base_learner"): LPBoostClassifier(base_learner=3).fit(X, y)
    Xn = X.copy(); Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"): LPBoostClassifier().fit(Xn, y)
    with pytest.raises(ValueError, match="single class"): LPBoostClassifier().fit(X, np.ones(30))
    with pytest.raises(ValueError, match="binary"): LPBoostClassifier().fit(X, np.arange(30) % 3)
    clf = LPBoostClassifier(n_estimators=5).fit(X, y)
    with pytest.raises(ValueError, match="features"): clf.decision_function(X[:, :2])
    with pytest.raises(ValueError, match="features"): next(clf.staged_decision_function(X[:, :2]))


def test_pricing_oracle_and_fit_rule():
    X, y = _data(n=40)
    s = np.where(y == 1, 1.0, -1.0) / 40
    rule, h = fit_rule(pricing_oracle("stump", X), X, s)
    # the exact oracle beats every brute-force stump
    bf_rule = BruteForceStumps().prepare(X).fit_sign(np.sign(s), np.abs(s))
    assert s @ h >= s @ bf_rule(X) - 1e-12
    with pytest.raises(TypeError, match="base_learner"): pricing_oracle(object(), X)

    class Unbounded:
        def prepare(self, X, random_state=None): return self
        def fit_sign(self, y, w): return lambda X: 2.0 * np.ones(len(X))
    with pytest.raises(ValueError, match=r"\[-1, 1\]"): fit_rule(pricing_oracle(Unbounded(), X), X, s)


@parametrize_with_checks([LPBoostClassifier(n_estimators=10, random_state=0)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_lpboost_nothing_to_learn_keeps_one_rule_and_stops():
    X = np.ones((6, 2)); y = np.array([0, 1, 0, 1, 0, 1])   # no split exists, classes balanced: every edge is 0
    clf = LPBoostClassifier().fit(X, y)
    assert clf.n_iter_ == 1 and clf.converged_ and abs(clf.edge_path_[0]) < 1e-12
    assert clf.predict(X).shape == (6,)


def _bundled(name, n_max=2000):
    X, y = load_dataset(name, return_X_y=True, missing="impute")
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    if len(y) > n_max:   # magic (19,020 rows): a seeded subsample keeps the test fast
        idx = np.random.default_rng(0).choice(len(y), n_max, replace=False)
        X, y = X[idx], y[idx]
    return X, y


def _majority_rate(y):
    return 1 - np.unique(y, return_counts=True)[1].max() / len(y)


@pytest.mark.parametrize("name", list_datasets())
def test_lpboost_defaults_learn_on_every_bundled_dataset(name):
    """Issue 18: with default settings LPBoost beats the majority rule on its training data, on all 15 datasets,
    and its LP optimum is certified positive: nu='auto' puts ν above 2ε₁, so β* ≥ 1 − 2/2.2 = 1/11."""
    X, y = _bundled(name)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DegenerateMarginWarning)
        clf = LPBoostClassifier().fit(X, y)
    assert np.mean(clf.predict(X) != y) < _majority_rate(y)
    assert clf.beta_path_[-1] >= 1 / 11 - 1e-7 and clf.rho_path_[-1] > 0
    # ν follows from the first rule's weighted error, recomputed here from the rule itself
    y_pm = np.where(y == clf.classes_[1], 1.0, -1.0)
    eps1 = np.mean(clf.estimators_[0](X) != y_pm)
    assert clf.nu_ == pytest.approx(min(1.0, max(0.1, 2.2 * eps1)), abs=1e-12)


@pytest.mark.parametrize("name, rate, nu, rounds", [("diabetes", 0.0, 0.1, 100), ("german_numer", 0.2, 0.1, 300),
                                                    ("german_numer", 0.2, 0.4, 300)])
def test_lpboost_degenerate_optimum_warns(name, rate, nu, rounds):
    """The cases of issue 18, each with a DegenerateMarginWarning. diabetes, ν = 0.1: after 100 rounds the restricted
    master is still on its β ≤ 0 plateau (ρ ≤ 0). german_numer + 20% noise: column generation converges (the exact
    stump oracle certifies the full LP's optimum) with β* = 0, where every optimum has y·f ≥ 0 on every point: on noisy
    data that is the zero function, every prediction a tie."""
    X, y = _bundled(name)
    if rate: y = flip_uniform(y, rate, random_state=0).y
    with pytest.warns(DegenerateMarginWarning, match="nu"):
        clf = LPBoostClassifier(nu=nu, n_estimators=rounds).fit(X, y)
    assert clf.rho_path_[-1] <= clf.tol
    if name == "german_numer":
        assert clf.converged_ and abs(clf.beta_path_[-1]) <= 1e-9
        f = clf.decision_function(X)
        y_pm = np.where(y == clf.classes_[1], 1.0, -1.0)
        assert np.all(y_pm * f >= -1e-9) and np.mean(np.abs(f) <= 1e-9) >= 0.99
    with warnings.catch_warnings():                   # and the default learns on the same data
        warnings.simplefilter("error", DegenerateMarginWarning)
        auto = LPBoostClassifier().fit(X, y)
    assert np.mean(auto.predict(X) != y) < _majority_rate(y)


# ----------------------------------------------------------------------------------------------
# row generation: add_rows / remove_rows on a live model (the RMBoost master in its dual form)
# ----------------------------------------------------------------------------------------------
def test_model_without_rows_then_rows_added_one_at_a_time_matches_linprog():
    """Start with columns only, add a random ranged row per round (dual simplex repairs it from the old basis);
    after every round the objective equals linprog's from scratch and the KKT conditions hold."""
    rng = np.random.default_rng(11)
    k, rounds = 15, 40
    c = -rng.uniform(0.1, 1.0, k)                         # min c·x with c < 0 and 0 ≤ x ≤ 3: bounded, feasible (x=0)
    lp = MasterLP(np.empty(0), np.empty(0), algorithm="dual")
    lp.add_columns(c, np.empty((0, k)), 0.0, 3.0)
    assert lp.n_rows == 0 and abs(lp.solve().objective - 3 * c.sum()) <= TOL   # no rows: every x_j at its bound
    rows, L, U, iters = [], [], [], []
    for r in range(rounds):
        a = rng.normal(size=k) * (rng.random(k) < 0.7)
        lo, hi = -rng.uniform(0.5, 2), rng.uniform(0.5, 2)  # 0 inside: x = 0 stays feasible
        idx = lp.add_rows(lo, hi, a[None])
        assert idx.tolist() == [r] and lp.n_rows == r + 1
        rows.append(a); L.append(lo); U.append(hi)
        res = lp.solve(); iters.append(res.iterations)
        A = np.array(rows)
        status, obj, *_ = linprog_solve(c, A, np.array(L), np.array(U), np.zeros(k), np.full(k, 3.0), "min")
        assert status == 0 and abs(res.objective - obj) <= TOL * max(1, abs(obj))
        kkt_check(c, A, np.array(L), np.array(U), np.zeros(k), np.full(k, 3.0), "min", res.x, res.row_dual,
                  res.reduced_cost)
    assert np.mean(iters[10:]) < k                        # warm: a few pivots per new row, not a fresh solve


def test_remove_rows_matches_linprog_and_returns_the_index_map():
    rng = np.random.default_rng(12)
    k, m = 10, 25
    c = -rng.uniform(0.1, 1.0, k)
    A = rng.normal(size=(m, k)); L = -rng.uniform(0.5, 2, m); U = rng.uniform(0.5, 2, m)
    lp = MasterLP(L, U); lp.add_columns(c, A, 0.0, 3.0); lp.solve()
    drop = np.array([0, 3, 7, 24])
    mapping = lp.remove_rows(drop)
    keep = np.setdiff1d(np.arange(m), drop)
    assert lp.n_rows == len(keep) and np.all(mapping[drop] == -1)
    np.testing.assert_array_equal(mapping[keep], np.arange(len(keep)))
    res = lp.solve()
    status, obj, *_ = linprog_solve(c, A[keep], L[keep], U[keep], np.zeros(k), np.full(k, 3.0), "min")
    assert abs(res.objective - obj) <= TOL * max(1, abs(obj))
    arrays = lp.to_arrays()
    np.testing.assert_array_equal(arrays["A"], A[keep])
    np.testing.assert_array_equal(arrays["row_lower"], L[keep])
    lp.remove_rows(np.ones(lp.n_rows, dtype=bool))        # a boolean mask: every row
    assert lp.n_rows == 0 and abs(lp.solve().objective - 3 * c.sum()) <= TOL


# ----------------------------------------------------------------------------------------------
# the working-set master (page 06's `use_working_set`, on LPBoost's dual with shrink=True)
# ----------------------------------------------------------------------------------------------
def lpboost_working_set_replay(X, y, K):
    """Fit LPBoost (the full master), then feed its rules one round at a time to a full and a working-set master on
    the same LP; per round: |optimum_full − optimum_ws|, whether the working-set solution certifies on all n points,
    and its repairs + fallbacks."""
    clf = LPBoostClassifier(n_estimators=K, lp_working_set=False).fit(X, y)
    X = np.asarray(X, dtype=float)
    y_pm = np.where(np.asarray(y) == clf.classes_[1], 1.0, -1.0)
    H, D = clf._rule_outputs(X), np.minimum(1.0 / (clf.nu_ * len(y_pm)), 1.0)
    full, ws = (LPBoostMaster(y_pm, D, working_set=w) for w in (False, True))
    assert ws.lp.ws is not None and ws.lp.ws_shrink and full.lp.ws is None
    out = []
    for j in range(H.shape[1]):
        for m in (full, ws): m.add_rule(H[:, j])
        a, b = full.solve(), ws.solve()
        out.append((abs(a.objective - b.objective), ws.certify(b), ws.repairs + ws.fallbacks))
    return np.array(out, dtype=float), full, ws


@pytest.mark.parametrize("name,K", [("diabetes", 100), ("credit", 100), ("magic", 40)])
def test_lpboost_working_set_master_has_the_full_masters_optimum_every_round(name, K):
    "The working-set master (shrink on) reaches the full master's optimum β every round, certified on all n points."
    X, y = load_dataset(name, missing="impute", return_X_y=True)
    res, full, ws = lpboost_working_set_replay(X, y, K)
    assert len(res) >= 10 and res[:, 0].max() <= 1e-7 and res[:, 1].all() and res[:, 2].max() == 0
    assert full.repairs + full.fallbacks == 0
    assert ws.lp.ws.size < ws.n and ws.lp.ws_passes > len(res)   # it priced fewer samples; ≥ 1 full pass per solve
    assert np.any(ws.lp.at_upper[np.setdiff1d(np.arange(ws.n), ws.lp.ws)])   # samples outside W held at their cap


def test_lpboost_working_set_without_the_full_pass_is_caught(monkeypatch):
    "A planted bug — the final pass over all n skipped — leaves violated samples: the replay check sees it."
    from robust_ref.lp import DenseDualSimplex
    X, y = load_dataset("diabetes", missing="impute", return_X_y=True)
    monkeypatch.setattr(DenseDualSimplex, "_ws_add_violated", lambda self: False)
    res, full, ws = lpboost_working_set_replay(X, y, 30)
    assert res[:, 2].max() > 0   # solves whose certificate failed on all n points: repaired or sent to HiGHS (counted)


def test_lpboost_working_set_auto_is_bit_identical_below_the_threshold():
    "At 'auto' a fit on fewer than 50,000 rows is the full master's, bit for bit; True takes another path, same optimum."
    X, y = load_dataset("credit", missing="impute", return_X_y=True)
    auto, off, on = (LPBoostClassifier(n_estimators=30, lp_working_set=w).fit(X, y) for w in ("auto", False, True))
    same = lambda a, b: np.array_equal(np.asarray(a).view(np.int64), np.asarray(b).view(np.int64))
    assert same(auto.decision_function(X), off.decision_function(X)) and same(auto.beta_path_, off.beta_path_)
    assert auto.lp_iterations_ == off.lp_iterations_
    assert on.lp_repairs_ + on.lp_fallbacks_ == 0 and abs(on.beta_path_[0] - off.beta_path_[0]) <= 1e-7


def test_lpboost_working_set_auto_rule_and_parameter():
    "'auto' turns the working set on above 50,000 training points only (RMBoost's threshold); the parameter is checked."
    from robust_ref.experiments.base import without_added_later
    from robust_ref.rmboost import RMBoostMasterDense
    assert LPBoostMaster.working_set_min_n == RMBoostMasterDense.working_set_min_n == 50_000   # one constant
    for n, on in ((50_000, False), (50_001, True)):
        m = LPBoostMaster(np.where(np.arange(n) % 3 == 0, 1.0, -1.0), 1.0)
        assert m.uses_working_set is on and (m.lp.ws is not None) is on
    y2 = np.array([1.0, -1.0])
    assert LPBoostMaster(y2, 1.0, working_set=np.True_).lp.ws is not None
    assert LPBoostMaster(y2, 1.0, backend="highs").working_set == "auto"   # 'auto' is no error on HiGHS: it never applies
    with pytest.raises(ValueError, match="working_set must be"): LPBoostMaster(y2, 1.0, working_set="yes")
    with pytest.raises(ValueError, match="working_set=True needs backend='dense'"):
        LPBoostMaster(y2, 1.0, backend="highs", working_set=True)
    X, y = load_dataset("diabetes", missing="impute", return_X_y=True)
    with pytest.raises(ValueError, match="lp_working_set"): LPBoostClassifier(lp_working_set="yes").fit(X, y)
    params = LPBoostClassifier().get_params()
    assert "lp_working_set" not in without_added_later(LPBoostClassifier, params)       # grid fingerprints unchanged
    assert without_added_later(LPBoostClassifier, {**params, "lp_working_set": True})["lp_working_set"] is True


# ---- the bound-flipping ratio test (page 06's `_pass_breakpoints`; LPBoost's working-set master turns it on) ----

def test_pass_breakpoints_against_a_direct_computation():
    """Candidates sorted by ratio (then index), passed while the slope stays positive; each passed column moves to its
    other bound and the basic values move by −B⁻¹ Σ Δx_j a_j — checked against numpy's solve on a random basis."""
    from robust_ref.master_lp import _pass_breakpoints
    rng = np.random.default_rng(3)
    t, m = 5, 7
    Vt, B = rng.normal(size=(t, m)), rng.normal(size=(t, t)) + 3 * np.eye(t)
    BT = np.ascontiguousarray(np.linalg.inv(B).T)
    lb, hb = np.zeros(m + t), np.r_[rng.uniform(0.1, 0.5, m), np.full(t, np.inf)]
    hb[m + 1] = 0.3                                   # one slack with a finite box
    at_upper = np.zeros(m + t, bool); at_upper[[2, 5]] = True
    cand = np.array([0, 2, 3, 5, 6, m + 1, m + 3])    # in index order, as the kernel collects them
    ratio = np.array([0.4, 0.1, 0.1, 0.3, 0.05, 0.2, 0.35]); absa = rng.uniform(0.5, 2.0, cand.size)
    zB0 = rng.normal(size=t)
    order = np.argsort(ratio, kind="stable")
    slope, passed = 1.5, []
    for k in order[:-1]:                              # the reference: pass while the slope stays positive
        drop = absa[k] * (hb[cand[k]] - lb[cand[k]])
        if not slope - drop > 0: break
        slope -= drop; passed.append(cand[k])
    assert 2 <= len(passed) < cand.size - 1           # the data exercise both passing and stopping
    v = np.zeros(t)
    for j in passed:
        dx = -(hb[j] - lb[j]) if at_upper[j] else hb[j] - lb[j]
        if j < m: v += dx * Vt[:, j]
        else: v[j - m] -= dx
    expect_z = zB0 - np.linalg.solve(B, v)
    c, r, a, up, zB = cand.copy(), ratio.copy(), absa.copy(), at_upper.copy(), zB0.copy()
    n = _pass_breakpoints(Vt, m, BT, c, r, a, cand.size, 1.5, up, lb, hb, zB, np.empty(t), np.empty(t))
    assert n == len(passed) and list(c[:n]) == passed and list(c) == list(cand[order])
    assert np.array_equal(up, at_upper ^ np.isin(np.arange(m + t), passed))
    np.testing.assert_allclose(zB, expect_z, rtol=0, atol=1e-13)


def test_bound_flipping_keeps_the_optimum_with_fewer_pivots(monkeypatch):
    """LPBoost's working-set master with the bound-flipping ratio test (its default) against the same master without it,
    round by round on diabetes and credit: the same optimum as the full master (≤ 1e-12), every solve certified on all
    n points, and at least 3× fewer pivots (measured: 5,076 → 826 and 4,605 → 672)."""
    from robust_ref.lp import DenseDualSimplex
    orig = DenseDualSimplex.use_working_set
    for name in ("diabetes", "credit"):
        X, y = load_dataset(name, missing="impute", return_X_y=True)
        clf = LPBoostClassifier(n_estimators=100, lp_working_set=False).fit(X, y)
        y_pm = np.where(np.asarray(y) == clf.classes_[1], 1.0, -1.0)
        H, D = clf._rule_outputs(np.asarray(X, float)), np.minimum(1.0 / (clf.nu_ * len(y_pm)), 1.0)
        pivots = {}
        for flip in (True, False):
            monkeypatch.setattr(DenseDualSimplex, "use_working_set",
                                lambda self, add=256, shrink=False, flip=False, _f=flip: orig(self, add, shrink, _f))
            full, ws = LPBoostMaster(y_pm, D, working_set=False), LPBoostMaster(y_pm, D, working_set=True)
            assert ws.lp.ws_flip is flip
            pivots[flip] = 0
            for j in range(H.shape[1]):
                for mst in (full, ws): mst.add_rule(H[:, j])
                a, b = full.solve(), ws.solve()
                assert abs(a.objective - b.objective) <= 1e-12 and ws.certify(b)
                pivots[flip] += b.iterations
            assert ws.repairs + ws.fallbacks == 0
        assert 3 * pivots[True] <= pivots[False], pivots
    monkeypatch.undo()
    assert LPBoostMaster(np.where(np.arange(60_000) % 3 == 0, 1.0, -1.0), 1.0).lp.ws_flip   # on in LPBoost's working set
    with pytest.raises(ValueError, match="flip must be True or False"): DenseDualSimplex(3, mirror=False).use_working_set(flip="yes")
