"The record grids of notebooks 82 (α-loss) and 85 (Arch Boost), their published tables and headline claims on synthetic frames."
import numpy as np
import pandas as pd
import pytest

import robust_ref.experiments as E
from robust_ref.datasets import published_table


def test_alpha_grid_is_the_papers_protocol():
    g = E.read_grid(E.example_grids()["alpha_long_servedio"])
    assert g.datasets["long_servedio"] == E.drawn_dataset("long_servedio", n_train=800, n_test=2000)
    assert list(g.noise) == ["uniform_iid"] and g.rates == [0.0, 0.1, 0.2, 0.3, 0.45] and g.splits == 80
    alphas = {m: meth.params for m, meth in g.methods.items() if m.startswith("α=")}
    assert sorted(p["alpha"] for p in alphas.values()) == [0.5, 1, 2, 4, 5, 8, 10, 20]
    assert all(m == f"α={p['alpha']:g}" and p["n_estimators"] == 1000 for m, p in alphas.items())
    assert {type(meth.build(0)).__name__ for meth in g.methods.values()} == {"AdaBoostAlpha", "LogitBoostClassifier"}
    assert g.curve_rounds[0] == 1 and g.curve_rounds[-1] == 1000 and 100 in g.curve_rounds
    assert len(g) == 9 * 5 * 80


def test_archboost_grid_is_the_papers_protocol():
    g = E.read_grid(E.example_grids()["archboost_long_servedio"])
    assert g.datasets["long_servedio"] == E.drawn_dataset("long_servedio", n_train=800, n_test=10000)
    assert list(g.noise) == ["uniform_iid"] and g.splits == 20
    np.testing.assert_allclose(g.rates, np.arange(9) * 0.05)
    p = {m: meth.params for m, meth in g.methods.items()}
    assert p["Real AdaBoost"] == {"learning_rate": 0.8, "n_estimators": 1000}
    assert p["RobustBoost"] == {"error_goal": 0.15, "n_estimators": 1000}
    assert {m: q["gamma"] for m, q in p.items() if "gamma" in q} == {"ARB-1.3": 1.3, "ARB-1.5": 1.5, "ARB-2": 2.0, "ARB-4": 4.0}
    assert all(q["n_estimators"] == 1000 for q in p.values()) and len(g) == 7 * 9 * 20
    assert set(published_table("archboost", 5).method) <= set(g.methods)   # Table 5's labels are the grid's


def test_real_adaboost_of_the_grid_is_archboost_exponential_with_step_0_8():
    from robust_ref.archboost import ArchBoostClassifier
    from robust_ref.datasets import make_long_servedio
    X, y = make_long_servedio(500, random_state=4)
    yn = np.where(np.random.default_rng(2).random(500) < 0.1, -y, y)
    est = E.read_grid(E.example_grids()["archboost_long_servedio"]).methods["Real AdaBoost"].build(0).set_params(n_estimators=60)
    a = est.fit(X[:400], yn[:400]).decision_function(X[400:])
    b = ArchBoostClassifier("exponential", step=0.8, n_estimators=60).fit(X[:400], yn[:400]).decision_function(X[400:])
    np.testing.assert_array_equal(a, b)


# Tables 7–9 as notebook 85 had them typed into its code cells before they became data (Li & Bradic 2018, §5.4)
OLD = {7: [["3.35% (1.29%)", "3.49% (1.23%)", "4.52% (1.61%)", "4.06% (1.48%)"], ["4.71% (1.76%)", "4.43% (1.63%)", "4.78% (1.66%)", "5.38% (1.92%)"],
           ["5.71% (1.71%)", "5.03% (1.60%)", "5.35% (1.77%)", "6.24% (1.97%)"], ["6.92% (2.06%)", "5.84% (2.04%)", "6.47% (2.14%)", "7.01% (2.28%)"]],
       8: [["5.84% (0.43%)", "6.52% (0.43%)", "7.37% (0.36%)", "7.04% (0.44%)"], ["9.68% (0.58%)", "8.79% (0.57%)", "8.96% (0.51%)", "11.52% (0.78%)"],
           ["12.35% (1.03%)", "10.88% (0.94%)", "10.81% (0.74%)", "14.63% (0.98%)"], ["14.16% (0.85%)", "12.50% (0.76%)", "11.95% (0.99%)", "17.88% (0.81%)"]],
       9: [["9.66% (1.90%)", "9.45% (1.93%)", "10.24% (2.10%)", "10.51% (2.20%)"], ["11.35% (2.50%)", "11.16% (2.20%)", "11.82% (2.95%)", "12.40% (2.89%)"],
           ["12.92% (3.43%)", "12.17% (3.50%)", "12.22% (3.04%)", "14.76% (3.54%)"], ["13.46% (4.91%)", "13.33% (5.03%)", "13.29% (3.13%)", "15.85% (6.85%)"]]}


@pytest.mark.parametrize("table, dataset", [(7, "wdbc"), (8, "sensorless"), (9, "gse20194")])
def test_archboost_tables_7_9_csv_equals_what_the_notebook_had(table, dataset):
    p = published_table("archboost", table)
    assert len(p) == 16 and set(p.dataset) == {dataset} and set(p.location) == {"Section 5.4"}
    cells = p.assign(txt=[f"{m:.2f}% ({s:.2f}%)" for m, s in zip(p["mean"], p["sd"])]).pivot(index="flipped", columns="method", values="txt")
    got = cells.loc[[0.0, 0.05, 0.10, 0.15], ["ARB-2", "ARB-1.5", "RobustBoost", "Real AdaBoost"]].to_numpy().tolist()
    assert got == OLD[table]


def _curve_frame(final):
    "A synthetic result frame of the α grid: 3 runs per method at p = 0.1, curves ending at `final` accuracy (± 0.005)."
    rows = []
    for m, acc in final.items():
        for split, jitter in enumerate([-0.005, 0.0, 0.005]):
            err = 1 - acc - jitter
            rows.append(dict(task_id=f"{m}{split}", task_index=len(rows), dataset="long_servedio", noise="uniform_iid", rate=0.1,
                             method=m, seed=0, split=split, status="ok", test_error=err,
                             curve_rounds=[1, 100, 1000], curve_test_error=[0.5, (0.5 + err) / 2, err]))
    return pd.DataFrame(rows)


@pytest.mark.parametrize("alpha2, alpha1, holds", [(0.999, 0.75, True), (0.985, 0.75, False), (0.999, 0.81, False)])
def test_alpha_headline_claim_on_synthetic_frames(alpha2, alpha1, holds):
    # what notebook 82 does: curve_summary, accuracy at the last round, level_claim
    cs = E.curve_summary(_curve_frame({"α=0.5": 0.73, "α=1": alpha1, "α=2": alpha2}))
    at = cs.xs(("long_servedio", "uniform_iid", 0.1), level=["dataset", "noise", "rate"])
    final = 1 - at["mean"].unstack("round")[1000]
    np.testing.assert_allclose(final[["α=0.5", "α=1", "α=2"]], [0.73, alpha1, alpha2])
    c = E.level_claim(final, at_least={"α=2": 0.99}, below={"α=0.5": 0.8, "α=1": 0.8})
    assert c.holds is holds
    assert ("does not hold" in c.statement) is (not holds)


@pytest.mark.parametrize("logit, holds", [(0.20, True), (0.0005, False)])
def test_archboost_table5_ordering_on_synthetic_frames(logit, holds):
    errors = pd.Series({"Real AdaBoost": 0.25, "LogitBoost": logit, "RobustBoost": 0.002, "ARB-2": 0.0002})
    c = E.ordering_claim(errors, ["ARB-2", "RobustBoost", "LogitBoost", "Real AdaBoost"])
    assert c.holds is holds and c.numbers.holds.sum() == (3 if holds else 2)
