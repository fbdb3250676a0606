"""Runner features of α-loss's Fig. 8 stand-in: metrics that declare `needs` (the clean test part, the clean training
labels, the partition's seed), `coef_mse_to_clean_fit`, `sensitivity`, and the column subset / positive class of a
scikit-learn dataset. Expected values come from independent fits (scikit-learn's recall_score, a fresh α = 1 fit)."""
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.metrics import recall_score

import robust_ref.experiments as ex
from robust_ref.alpha_loss import AlphaLogisticRegression
from robust_ref.experiments.loaders import sklearn_dataset
from robust_ref.experiments.metrics import METRICS, coef_mse_to_clean_fit, sensitivity
from robust_ref.experiments.run import _data

GD = dict(C=np.inf, solver="gd", lr=0.01, max_iter=200)
REF = {"method": "alpha_logistic", "alpha": 1.0, **GD}


def _grid(metrics, rates=(0.0, 0.1), alphas=(1.0, 2.0), splits=1):
    return ex.Grid({"wdbc8": sklearn_dataset("breast_cancer", columns=range(8), positive=[0])},
                   [ex.get_method("alpha_logistic", f"α={a:g}", alpha=a, **GD) for a in alphas],
                   noise=["stratified"], rates=list(rates), splits=splits, test_size=0.3, metrics=metrics, name="fig8 small")


def test_sklearn_dataset_columns_and_positive():
    X, y = sklearn_dataset("breast_cancer", columns=[7, 0], positive=[0])()
    Xr, yr = load_breast_cancer(return_X_y=True)
    assert np.array_equal(X, Xr[:, [7, 0]]) and np.array_equal(y, np.where(yr == 0, 1, -1)) and (y == 1).sum() == 212
    assert repr(sklearn_dataset("breast_cancer", columns=[7, 0], positive=[0])) == "sklearn:breast_cancer(columns=[7, 0], positive=[0])"
    assert sklearn_dataset("breast_cancer", columns=[0]) != sklearn_dataset("breast_cancer")
    assert repr(sklearn_dataset("breast_cancer")) == "sklearn:breast_cancer"            # no option: the old spec, old fingerprints
    with pytest.raises(ValueError, match="columns must be a non-empty list of distinct"): sklearn_dataset("breast_cancer", columns=[1, 1])
    with pytest.raises(ValueError, match="columns must be"): sklearn_dataset("breast_cancer", columns="0")
    with pytest.raises(ValueError, match="has 30 columns; columns asks for column 30"): sklearn_dataset("breast_cancer", columns=[30])()
    with pytest.raises(TypeError, match="positive must be a non-empty list"): sklearn_dataset("breast_cancer", positive=0)


def test_clean_fit_mse_and_sensitivity_against_independent_fits():
    g = _grid({"coef_mse_to_clean_fit": {"reference": REF}, "sensitivity": {"positive": 1}})
    df = ex.run_grid(g, backend="serial", progress=False).set_index(["rate", "method"])
    assert (df.status == "ok").all()
    assert df.loc[(0.0, "α=1"), "coef_mse_to_clean_fit"] == 0.0                     # its own reference: same data, same labels
    for t in g.tasks():
        X_tr, X_te, y_clean, y_noisy, y_te = _data(t)
        scaler_ref = ex.get_method("alpha_logistic", alpha=1.0, **GD).build(0).fit(X_tr, y_clean)   # an independent reference fit
        model = t.method.build(t.seeds()["fit"]).fit(X_tr, y_noisy)
        mse = np.mean((model[-1].coef_.ravel() - scaler_ref[-1].coef_.ravel()) ** 2)
        row = df.loc[(t.rate, t.method.name)]
        assert row.coef_mse_to_clean_fit == pytest.approx(mse, rel=1e-12, abs=0)
        assert row.sensitivity == recall_score(y_te, model.predict(X_te), pos_label=1)
    assert df.loc[(0.1, "α=1"), "coef_mse_to_clean_fit"] > 1e-3                      # noise moves the α = 1 fit away from the clean one


def test_metrics_with_needs_leave_keys_and_errors_unchanged():
    plain, extra = _grid(None), _grid({"coef_mse_to_clean_fit": {"reference": REF}, "sensitivity": {"positive": 1}})
    assert [t.task_id for t in plain.tasks()] == [t.task_id for t in extra.tasks()]
    a, b = (ex.run_grid(g, backend="serial", progress=False) for g in (plain, extra))
    assert a.test_error.tolist() == b.test_error.tolist() and a.train_error.tolist() == b.train_error.tolist()


def test_reference_cache_never_changes_a_row():
    from robust_ref.experiments import metrics as M
    g = _grid({"coef_mse_to_clean_fit": {"reference": REF}}, rates=(0.1,), alphas=(2.0,))
    M._CLEAN_FITS.clear()
    cold = ex.run_grid(g, backend="serial", progress=False)
    warm = ex.run_grid(g, backend="serial", progress=False)
    assert len(M._CLEAN_FITS) == 1
    cols = ["coef_mse_to_clean_fit", "n_warnings", "test_error"]
    assert cold[cols].values.tolist() == warm[cols].values.tolist()


def test_sensitivity_by_hand_and_bad_input():
    class Const:
        def predict(self, X): return np.array([1, 1, -1, -1, 1])
    y_test = np.array([1, 1, 1, -1, -1])
    assert sensitivity(Const(), None, None, None, X_test=None, y_test=y_test, positive=1)["sensitivity"] == pytest.approx(2 / 3)
    assert sensitivity(Const(), None, None, None, X_test=None, y_test=y_test, positive=-1)["sensitivity"] == 0.5
    with pytest.raises(ValueError, match="no test point has the label positive=7"):
        sensitivity(Const(), None, None, None, X_test=None, y_test=y_test, positive=7)
    with pytest.raises(ValueError, match="positive must be the label value"): _grid({"sensitivity": {"positive": [1]}})
    with pytest.raises(ValueError, match="missing a required argument: 'positive'"): _grid(["sensitivity"])
    with pytest.raises(ValueError, match="'y_test' is given by the runner"): _grid({"sensitivity": {"positive": 1, "y_test": [1]}})


def test_clean_fit_bad_input():
    with pytest.raises(ValueError, match="reference must be a table naming a registry method"):
        _grid({"coef_mse_to_clean_fit": {"reference": [1.0, 2.0]}})
    with pytest.raises(ValueError, match=r"reference: unknown method 'alpha_logit'"):
        _grid({"coef_mse_to_clean_fit": {"reference": {"method": "alpha_logit"}}})
    with pytest.raises(ValueError, match=r"reference: .*unknown parameter 'alfa'"):
        _grid({"coef_mse_to_clean_fit": {"reference": {"method": "alpha_logistic", "alfa": 1.0}}})
    with pytest.raises(ValueError, match="intercept must be true or false"):
        _grid({"coef_mse_to_clean_fit": {"reference": REF, "intercept": "yes"}})
    ref = {"method": "adaboost", "n_estimators": 3}
    g = _grid({"coef_mse_to_clean_fit": {"reference": ref}}, rates=(0.1,), alphas=(2.0,))
    df = ex.run_grid(g, backend="serial", progress=False)
    assert (df.status == "failed").all() and "intercept_ and coef_" in df.error.iloc[0]


def test_grid_file_options_with_line(tmp_path):
    p = tmp_path / "g.toml"
    p.write_text('[datasets.wdbc]\nsklearn = "breast_cancer"\ncolumns = [0, 0]\n[methods.tree]\n')
    with pytest.raises(ValueError, match=r"g.toml:3: key 'columns' of dataset 'wdbc'.*distinct column indices"): ex.read_grid(p)
    p.write_text('[metrics.sensitivity]\npositive = 1\ny_test = 3\n[datasets.wdbc]\nsklearn = "breast_cancer"\n[methods.tree]\n')
    with pytest.raises(ValueError, match=r"g.toml:\d+: key 'metrics'.*given by the runner"): ex.read_grid(p)


def test_alpha_covid_standin_grid_is_the_protocol():
    g = ex.read_grid(ex.example_grids()["alpha_covid_standin"])
    assert g.name == "alpha_covid_standin" and len(g) == 13 * 4 * 5
    assert (list(g.noise), g.rates, g.seeds, g.splits, g.test_size) == (["stratified"], [0.0, 0.05, 0.1, 0.15], [0], 5, 0.3)
    assert repr(g.datasets["wdbc8"]) == "sklearn:breast_cancer(columns=[0, 1, 2, 3, 4, 5, 6, 7], positive=[0])"
    assert [float(m.split("=")[1]) for m in g.methods] == [0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0, 2.2, 2.4, 2.6, 2.8, 3.0]
    for name, m in g.methods.items():
        est = m.build(0)
        final = est.steps[-1][1].get_params()
        assert type(est.steps[0][1]).__name__ == "StandardScaler" and isinstance(est.steps[-1][1], AlphaLogisticRegression)
        assert (final["alpha"], final["C"], final["solver"], final["lr"], final["max_iter"], final["init"]) == (
            float(name.split("=")[1]), np.inf, "gd", 0.01, 2000, "zeros")
    metrics = {n: dict(p) for n, p in g.metrics}
    assert metrics == {"coef_mse_to_clean_fit": {"reference": {"method": "alpha_logistic", "alpha": 1.0, "C": np.inf, "solver": "gd",
                                                               "lr": 0.01, "max_iter": 2000}},
                       "sensitivity": {"positive": 1}}
    assert set(METRICS) >= {"coef_mse_to_clean_fit", "sensitivity"}
