"""robust_ref.statistics: Friedman, Nemenyi CD, the diagram and agreement counts against hand-computed values."""
import matplotlib
matplotlib.use("Agg")
import numpy as np
import pandas as pd
import pytest

from robust_ref.statistics import (agreement, agreement_counts, average_ranks, critical_difference, friedman,
                                   nemenyi, plot_critical_difference)


def test_friedman_on_a_hand_computed_table():
    "Four blocks, three methods always in the same order: ranks (1, 2, 3), chi2 = 12N/(k(k+1))·ΣR² − 3N(k+1) = 8, p = e^{-4}."
    t = pd.DataFrame({"a": [0.1, 0.2, 0.3, 0.4], "b": [0.2, 0.3, 0.4, 0.5], "c": [0.3, 0.4, 0.5, 0.6]})
    r = friedman(t)
    assert r.statistic == pytest.approx(8.0) and r.pvalue == pytest.approx(np.exp(-4.0))
    assert r.ranks.to_dict() == {"a": 1.0, "b": 2.0, "c": 3.0} and (r.n_blocks, r.n_methods) == (4, 3)


def test_ties_share_the_average_rank():
    t = pd.DataFrame({"a": [0.1, 0.1], "b": [0.1, 0.3], "c": [0.2, 0.2]})
    assert average_ranks(t).to_dict() == {"a": 1.25, "b": 2.25, "c": 2.5}


@pytest.mark.parametrize("k, n, cd", [(4, 14, 1.25), (5, 30, 1.11), (10, 15, 3.50)])
def test_critical_difference_matches_demsar(k, n, cd):
    "Demšar (2006) §3.2.2: k = 4, N = 14 gives CD = 1.25 (q = 2.569); the others from his q table: q·sqrt(k(k+1)/6N)."
    assert critical_difference(k, n) == pytest.approx(cd, abs=0.01)


def test_nemenyi_and_the_diagram():
    rng = np.random.default_rng(0)
    t = pd.DataFrame(rng.uniform(size=(12, 4)) + np.array([0, 0.5, 0.5, 1.0]), columns=list("wxyz"))
    p = nemenyi(t)
    assert list(p.columns) == list("wxyz") and np.allclose(p.to_numpy(), p.to_numpy().T) and p.loc["w", "z"] < 0.01
    ax = plot_critical_difference(t)
    assert "CD = " in ax.get_title() and "12 blocks" in ax.get_title()


@pytest.mark.parametrize("table, match, exc", [
    ([[1, 2], [3, 4]], "DataFrame", TypeError), (pd.DataFrame({"a": [1.0]}), "at least 2 blocks", ValueError),
    (pd.DataFrame({"a": [1.0, np.nan], "b": [1.0, 2.0], "c": [1, 2]}), "missing or non-numeric", ValueError)])
def test_bad_tables_are_named(table, match, exc):
    with pytest.raises(exc, match=match): friedman(table)


def test_friedman_needs_three_methods():
    with pytest.raises(ValueError, match="at least 3 methods"): friedman(pd.DataFrame({"a": [1.0, 2], "b": [2.0, 1]}))


@pytest.mark.parametrize("args, match", [((1, 5), "n_methods"), ((3, 0), "n_blocks"), ((3, 5, 1.5), "alpha")])
def test_critical_difference_bad_input(args, match):
    with pytest.raises(ValueError, match=match): critical_difference(*args)


def test_agreement_marks_and_counts():
    pub = pd.DataFrame({"dataset": ["a", "a", "b", "b"], "method": ["X", "Y", "X", "Y"],
                        "mean": [10.0, 12.0, 20.0, 25.0], "sd": [1.0, 1.0, 2.0, 2.0]})
    mea = pd.DataFrame({"dataset": ["a", "a", "b"], "method": ["X", "Y", "X"], "mean": [11.0, 13.01, 18.0]})
    cells = agreement(mea, pub, on=["dataset", "method"])
    assert cells["within_1sd"].tolist() == [True, False, True, False]        # |1| ≤ 1, |1.01| > 1, |−2| ≤ 2, unmeasured
    c = agreement_counts(cells, "method")
    assert c.loc["X"].tolist() == [2, 2] and c.loc["Y"].tolist() == [0, 1]
    with pytest.raises(ValueError, match=r"lacks columns \['sd'\]"):
        agreement(mea, pub.drop(columns="sd"), on=["dataset", "method"])
