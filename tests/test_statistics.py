"""robust_ref.statistics: Friedman, Nemenyi CD, the diagram and agreement counts against hand-computed values."""
import matplotlib
matplotlib.use("Agg")
import numpy as np
import pandas as pd
import pytest

from robust_ref.statistics import (agreement, agreement_counts, agreement_table, average_ranks, critical_difference,
                                   friedman, nemenyi, plot_critical_difference, provenance_table, shaded_cells,
                                   smallest_degradation, styled, tradeoff_front)


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



def _cells():
    pub = pd.DataFrame({"dataset": ["a", "a", "b", "b"], "method": ["X", "Y", "X", "Y"],
                        "mean": [10.0, 12.0, 20.0, 25.0], "sd": [1.0, 1.0, 2.0, 2.0]})
    mea = pd.DataFrame({"dataset": ["a", "a", "b"], "method": ["X", "Y", "X"], "mean": [10.5, 13.5, 22.0],
                        "sd": [0.5, 0.4, 0.9], "n": [30, 30, 30]})
    return agreement(mea, pub, on=["dataset", "method"])


def test_agreement_table_puts_published_next_to_measured_and_shades_outside():
    t = agreement_table(_cells(), index=["method"])
    d = t.data
    assert list(d.columns) == [("a", "measured"), ("a", "published"), ("b", "measured"), ("b", "published")]
    assert d.loc["X", ("a", "measured")] == "10.5 ± 0.5" and d.loc["X", ("b", "published")] == "20.0 ± 2.0"
    assert d.loc["Y", ("b", "measured")] == "–"                       # never measured: shown, not shaded
    assert shaded_cells(t) == [("Y", ("a", "measured"))]             # only Y on a (|13.5 − 12| = 1.5 > 1)
    html = t.to_html()
    assert "30 partitions per cell" in html and "1 of 3" in html and "<caption" in html
    c = _cells()
    c.loc[2, ["measured", "within_1sd"]] = [30.0, False]               # X on b now far off too
    assert shaded_cells(agreement_table(c, index=["method"])) == [("X", ("b", "measured")), ("Y", ("a", "measured"))]


def test_agreement_table_titles_and_rates_as_percent():
    c = _cells().assign(rate=0.1)
    html = agreement_table(c, index=["rate", "method"], caption="Table 3").to_html()
    assert "Table 3. Measured mean" in html and ">10%<" in html and "0.100000" not in html


def test_agreement_table_shows_n_per_cell_when_it_varies():
    c = _cells()
    c.loc[0, "n"] = 7
    d = agreement_table(c, index=["method"]).data
    assert d.loc["X", ("a", "measured")] == "10.5 ± 0.5 (7)" and d.loc["X", ("b", "measured")] == "22.0 ± 0.9 (30)"


def test_agreement_table_bad_input():
    with pytest.raises(ValueError, match=r"lacks columns \['within_1sd'\]"):
        agreement_table(_cells().drop(columns="within_1sd"), index=["method"])
    with pytest.raises(ValueError, match="digits"): agreement_table(_cells(), index=["method"], digits=-1)
    with pytest.raises(TypeError, match="caption"): styled(pd.DataFrame({"a": [1.0]}), caption=3)
    with pytest.raises(TypeError, match="DataFrame"): styled([[1.0]])


def test_styled_has_caption_precision_and_scrolls():
    html = styled(pd.DataFrame({"m": [1.23456]}), "Deg", digits=2).to_html()
    assert "1.23<" in html and "Deg</caption>" in html and "overflow-x: auto" in html


_IDX = pd.MultiIndex.from_tuples([("uniform", 0.1), ("adversarial", 0.1)], names=["noise", "rate"])


def test_smallest_degradation_holds_and_reports_the_published_difference():
    deg = pd.DataFrame({"RMBoost": [0.66, 3.0], "AdaBoost": [3.32, 2.0], "LPBoost": [4.0, 5.0]}, index=_IDX)
    c = smallest_degradation(deg, "RMBoost", published=pd.Series({"RMBoost": 1.71, "AdaBoost": 3.88, "LPBoost": 4.39}))
    assert c.holds and list(c.numbers.index) == ["RMBoost", "AdaBoost", "LPBoost"]
    assert c.numbers.loc["RMBoost", "difference"] == pytest.approx(0.66 - 1.71)
    assert "holds" in c.statement and "-1.05 pp" in c.statement


def test_smallest_degradation_can_fail():
    "The same claim on a frame where another method degrades less (here: under adversarial noise) fails, naming it."
    deg = pd.DataFrame({"RMBoost": [0.66, 3.0], "AdaBoost": [3.32, 2.0], "LPBoost": [4.0, 5.0]}, index=_IDX)
    c = smallest_degradation(deg, "RMBoost", noise="adversarial", rate=0.1)
    assert not c.holds and c.numbers.index[0] == "AdaBoost" and c.numbers.loc["RMBoost", "rank"] == 2
    assert "does not hold" in c.statement and "AdaBoost +2.00 pp" in c.statement


@pytest.mark.parametrize("kw, match", [(dict(method="Nope"), "method 'Nope' is not a column"),
                                       (dict(method="RMBoost", rate=0.3), r"no row \(noise='uniform', rate=0.3\)")])
def test_smallest_degradation_bad_input(kw, match):
    deg = pd.DataFrame({"RMBoost": [0.66, 3.0], "AdaBoost": [3.32, 2.0]}, index=_IDX)
    with pytest.raises(ValueError, match=match): smallest_degradation(deg, **kw)
    with pytest.raises(TypeError, match="DataFrame"): smallest_degradation(deg.to_numpy(), "RMBoost")



# The paper's Table 4 (Mazuelas & Álvarez 2025): clean average rank and increase under 10% uniform noise, typed in.
_PUB_RANK = pd.Series({"RobustBoost": 5.94, "AdaBoost": 2.38, "LPBoost": 6.94, "LogitBoost": 3.63, "GentleBoost": 4.69,
                       "BrownBoost": 5.50, "Robust-GBDT": 6.63, "XGB-Quad": 6.00, "RMBoost": 3.31})
_PUB_DEG = pd.Series({"RobustBoost": 3.08, "AdaBoost": 3.88, "LPBoost": 4.39, "LogitBoost": 3.27, "GentleBoost": 3.38,
                      "BrownBoost": 2.72, "Robust-GBDT": 2.82, "XGB-Quad": 1.65, "RMBoost": 1.71})


def test_tradeoff_front_on_the_published_table_4():
    "By hand: only AdaBoost ranks better than RMBoost (2.38 < 3.31) and it degrades more; only XGB-Quad degrades less and it ranks worse."
    c = tradeoff_front(_PUB_RANK, _PUB_DEG, "RMBoost")
    assert c.holds and "holds" in c.statement
    assert set(c.numbers.index[c.numbers["on the front"]]) == {"AdaBoost", "RMBoost", "XGB-Quad"}
    assert c.numbers.loc["LogitBoost", "dominated by"] == "RMBoost"      # 3.63 > 3.31 and 3.27 > 1.71
    # the stronger reading "RMBoost degrades least" is false on the paper's own table (XGB-Quad 1.65 < 1.71)
    deg = pd.DataFrame([_PUB_DEG], index=pd.MultiIndex.from_tuples([("uniform", 0.1)], names=["noise", "rate"]))
    assert not smallest_degradation(deg, "RMBoost").holds


@pytest.mark.parametrize("method, value", [("AdaBoost", 1.70), ("LogitBoost", 1.0)])
def test_tradeoff_front_can_fail(method, value):
    "A plausible error: one method better or equal on both axes (AdaBoost degrading 1.70 < 1.71; LogitBoost 3.63 rank is worse, so it must not dominate)."
    c = tradeoff_front(_PUB_RANK, _PUB_DEG.replace({_PUB_DEG[method]: value}), "RMBoost")
    if method == "AdaBoost":
        assert not c.holds and c.numbers.loc["RMBoost", "dominated by"] == "AdaBoost" and "dominated by AdaBoost" in c.statement
    else:   # worse rank, smaller increase: RMBoost stays on the front, LogitBoost joins it
        assert c.holds and c.numbers.loc["LogitBoost", "on the front"]


def test_tradeoff_front_ties_do_not_dominate():
    "Equal on both axes is not domination; equal on one and better on the other is."
    r, d = pd.Series({"a": 1.0, "b": 1.0}), pd.Series({"a": 2.0, "b": 2.0})
    assert tradeoff_front(r, d, "a").holds
    assert not tradeoff_front(r, d.replace({2.0: 2.0}).where(d.index != "b", 1.9), "a").holds


def test_tradeoff_front_bad_input():
    with pytest.raises(ValueError, match="same methods"): tradeoff_front(_PUB_RANK, _PUB_DEG.drop("LPBoost"), "RMBoost")
    with pytest.raises(ValueError, match="'Nope' is not"): tradeoff_front(_PUB_RANK, _PUB_DEG, "Nope")
    with pytest.raises(TypeError, match="Series"): tradeoff_front(_PUB_RANK.to_numpy(), _PUB_DEG, "RMBoost")

def test_provenance_table_flattens():
    t = provenance_table({"commit": "abc", "versions": {"numpy": "2.1"}, "wall_time_s": 12.5})
    assert t.data.to_dict()["value"] == {"commit": "abc", "versions.numpy": "2.1", "wall_time_s": "12.5"}
    with pytest.raises(TypeError, match="provenance must be a dict"): provenance_table([1])


def test_provenance_table_leaves_out_the_run_note_a_reader_does_not_need():
    prov = {"commit": "abc", "note": "computed in two parts on shared cores", "pending": [{"method": "M", "note": "stale"}]}
    assert "note" not in provenance_table(prov).data.index                      # how the run was scheduled: not shown
    assert "pending" in provenance_table(prov).data.index                       # a data warning stays
    assert "note" in provenance_table(prov, omit=()).data.index
