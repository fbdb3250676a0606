"""The grid metrics behind RMBoost's diagnosis and its pricing options: column_generation, pricing_oracle and
refit_stability, and the rmboost_options grid whose record chapter 10 and notebook 81 read."""
import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

import robust_ref.experiments as ex
from robust_ref.experiments.metrics import METRICS, column_generation, pricing_oracle, refit_stability
from robust_ref.rmboost import PAPER_SETTINGS, RMBoostClassifier


@pytest.fixture(scope="module")
def fitted():
    X, y = ex.task_data(next(iter(ex.read_grid(ex.example_grids()["rmboost_options"]).subset(
        datasets=["diabetes"], methods=["RMBoost"], rates=[0.2], splits=1).tasks())))[0::3]
    return RMBoostClassifier(n_estimators=30, random_state=0, **PAPER_SETTINGS).fit(X, y), X, y


def test_column_generation_reports_the_fit_as_its_attributes_say(fitted):
    clf, X, y = fitted
    out = column_generation(clf, X, y, None)
    assert tuple(out) == column_generation.columns
    assert out["nonzero_rules"] == np.count_nonzero(np.abs(clf.coef_) > 1e-9)
    assert out["single_rule"] == (out["nonzero_rules"] == 1)
    assert out["R_final"] == clf.minimax_risk_ and out["R_round1"] == clf.risk_path_[1]
    assert out["rules_added"] == len(clf.rules_) and out["n"] == len(y) and out["lam"] == pytest.approx(1 / np.sqrt(len(y)))
    assert 0 < out["dual_support"] <= out["rules_added"]   # a vertex dual: at most one nonzero α_i − β_i per rule


def test_pricing_oracle_certifies_every_R_it_reports(fitted):
    clf, X, y = fitted
    out = pricing_oracle(clf, X, y, None, draws=10, rounds=2)
    assert tuple(out) == pricing_oracle.columns
    assert abs(out["R_refit"] - clf.minimax_risk_) < 1e-9     # the final LP re-solved gives the fit's own bound
    assert out["R_with_oracle_rule"] <= out["R_refit"] + 1e-9 and out["R_with_empirical_tree"] <= out["R_refit"] + 1e-9
    assert out["oracle_edge_over_lam"] == pytest.approx(out["oracle_edge"] * np.sqrt(len(y)))
    assert out["oracle_violated"] == (out["oracle_edge"] > 1 / np.sqrt(len(y)) + clf.lp_tol)


def test_rmboost_metrics_refuse_other_models_and_bad_parameters(fitted):
    _, X, y = fitted
    lr = LogisticRegression().fit(X, y)
    for f in (column_generation, pricing_oracle):
        with pytest.raises(TypeError, match=f"{f.__name__} needs an RMBoost model.*LogisticRegression"): f(lr, X, y, None)
    piped = make_pipeline(StandardScaler(), RMBoostClassifier(n_estimators=5, random_state=0)).fit(X, y)
    assert column_generation(piped, X, y, None)["R_final"] == piped[-1].minimax_risk_   # a Pipeline ending in RMBoost
    for bad, match in ((dict(draws=-1), "draws"), (dict(rounds=0), "rounds"), (dict(rounds=True), "rounds")):
        with pytest.raises(ValueError, match=f"pricing_oracle: {match}"):
            ex.Grid(["sonar"], ["rmboost"], metrics={"pricing_oracle": bad})
    for ulps in (0, 65, 1.5):
        with pytest.raises(ValueError, match="refit_stability: ulps"): ex.Grid(["sonar"], ["tree"], metrics={"refit_stability": {"ulps": ulps}})


class _LastBit(ClassifierMixin, BaseEstimator):
    "Predicts class 1 everywhere when the last bit of its first training feature is set: a model chaotic in rounding."
    def fit(self, X, y):
        self.classes_ = np.array([0, 1]); self.bit_ = int(np.asarray(X, dtype=np.float64)[0, 0].view(np.int64) & 1); return self
    def predict(self, X): return np.full(len(X), self.bit_)


def test_refit_stability_sees_a_model_that_one_ulp_moves_and_not_a_stable_one(fitted):
    _, X, y = fitted
    assert refit_stability(_LastBit().fit(X, y), X, y, None, X_test=X[:50]) == dict(refit_changed=1.0)
    assert refit_stability(_LastBit().fit(X, y), X, y, None, X_test=X[:50], ulps=2) == dict(refit_changed=0.0)
    tree = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)   # thresholds halfway between values: one ulp moves none
    assert refit_stability(tree, X, y, None, X_test=X) == dict(refit_changed=0.0)
    assert refit_stability.needs == ("X_test",) and METRICS["refit_stability"] is refit_stability


def test_the_options_grid_shares_its_paper_tasks_with_table3():
    g = ex.read_grid(ex.example_grids()["rmboost_options"])
    t3 = ex.read_grid(ex.example_grids()["rmboost_table3"])
    paper = {t.task_id for t in g.subset(methods=["RMBoost"]).tasks()}
    assert len(g) == 192 and len(paper) == 48
    assert paper <= {t.task_id for t in t3.subset(methods=["RMBoost"], noise=["uniform"], rates=[0.0, 0.2], splits=3).tasks()}
    params = {name: m.build(0).get_params() for name, m in g.methods.items()}
    assert {k: params["RMBoost"][k] for k in PAPER_SETTINGS} == PAPER_SETTINGS
    defaults = RMBoostClassifier().get_params()
    assert {k: params["RMBoost smoothed+weighted"][k] for k in PAPER_SETTINGS} == {k: defaults[k] for k in PAPER_SETTINGS}
