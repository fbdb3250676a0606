"""Arch Boost's runner features: t(4) feature contamination as a corruption of the grid, per-task extra metrics
(`outlier_share`: Table 6's T, T_o and T_o/T), the Hastie / Gaussian-quantiles generators, and the two grid files
archboost_table6.toml / archboost_figure5.toml that encode the paper's protocols."""
import numpy as np
import pytest

import robust_ref.experiments as ex
from robust_ref.experiments.metrics import METRICS, outlier_share
from robust_ref.experiments.noise_models import Corruption
from robust_ref.experiments.run import _task_data
from robust_ref.noise import contaminate_features


def _small(metrics=("outlier_share",), noise=("t4_features",), rates=(0.1,), n=400, rounds=30):
    return ex.Grid({"hastie": ex.generated_dataset("hastie", n=n)},
                   [ex.get_method("arb_gamma", "ARB-2", gamma=2.0, step=0.5, n_estimators=rounds),
                    ex.get_method("real_adaboost", "Real AdaBoost", learning_rate=0.8, n_estimators=rounds)],
                   noise=list(noise), rates=list(rates), metrics=list(metrics) if isinstance(metrics, tuple) else metrics, name="small")


def test_t4_features_contaminates_exactly_the_masked_training_rows_and_no_label():
    task = _small().tasks()[0]
    X_tr, X_te, y_tr, y_noisy, y_te, touched = _task_data(task)
    X, y = task.loader()
    assert touched.sum() == 30 and len(y_tr) == 300                  # round(0.1 · 300) rows, training part of 400 · 0.75
    assert np.array_equal(y_noisy, y_tr)                              # labels untouched
    # the clean training part, recovered by its rows: an untouched row is a row of X, a touched one is not
    rows = {tuple(r) for r in X}
    assert all(tuple(r) in rows for r in X_tr[~touched]) and not any(tuple(r) in rows for r in X_tr[touched])
    assert all(tuple(r) in rows for r in X_te)                        # the test part is clean


def test_t4_features_is_contaminate_features_with_the_tasks_noise_seed():
    from robust_ref.experiments.noise_models import _noise_t4_features
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(200, 5)), rng.choice([-1, 1], 200)
    c = _noise_t4_features(y, 0.15, X=X, random_state=12345)
    ref = contaminate_features(X, 0.15, df=4.0, random_state=12345)
    assert isinstance(c, Corruption) and np.array_equal(c.X, ref.X) and np.array_equal(c.mask, ref.contaminated)
    assert c.mask.sum() == 30 and np.array_equal(c.y, y) and c.y is not y
    assert np.array_equal(c.X[~c.mask], X[~c.mask]) and not np.any(c.X[c.mask] == X[c.mask])


def test_contaminated_rows_columns_and_rate_zero():
    df = ex.run_grid(_small(rates=(0.0, 0.2)), backend="serial", progress=False)
    assert (df.status == "ok").all(), df.error.tolist()
    assert list(df.noise) == ["none", "none", "t4_features", "t4_features"]
    assert (df.flip_fraction == 0).all()
    assert df.contaminated_fraction.isna().tolist() == [True, True, False, False]   # rate 0 is the clean problem
    assert (df.contaminated_fraction.iloc[2:] == 60 / 300).all()
    assert (df.outlier_T_o <= df.outlier_T).all()
    assert (df.outlier_T_o.iloc[:2] == 0).all()                       # nothing is corrupted at rate 0


class _Staged:
    "A fake ensemble whose rounds predict given label vectors."
    def __init__(self, preds): self.preds = [np.asarray(p) for p in preds]
    def staged_predict(self, X): yield from self.preds


def test_outlier_share_by_hand():
    y = np.array([1, 1, -1, -1, 1])
    corrupted = np.array([True, True, False, False, False])
    # misclassified in rounds:        pt0: 4/4, pt1: 3/4, pt2: 4/4, pt3: 1/4, pt4: 0/4
    preds = [[-1, -1, 1, 1, 1], [-1, -1, 1, -1, 1], [-1, -1, 1, -1, 1], [-1, 1, 1, -1, 1]]
    got = outlier_share(_Staged(preds), None, y, corrupted, threshold=0.75)    # more than 3 of 4 rounds: pts 0 and 2
    assert got == dict(outlier_share=0.5, outlier_T=2, outlier_T_o=1)
    got = outlier_share(_Staged(preds), None, y, corrupted, threshold=0.5)     # more than 2 of 4: pts 0, 1, 2
    assert got == dict(outlier_share=2 / 3, outlier_T=3, outlier_T_o=2)
    got = outlier_share(_Staged([[1, 1, -1, -1, 1]]), None, y, corrupted)      # nothing flagged: the ratio is undefined
    assert np.isnan(got["outlier_share"]) and got["outlier_T"] == got["outlier_T_o"] == 0


def test_outlier_share_on_label_noise_counts_the_flipped_points():
    df = ex.run_grid(_small(noise=("uniform",), rates=(0.2,)), backend="serial", progress=False)
    assert (df.status == "ok").all() and "contaminated_fraction" not in df.columns
    assert (df.flip_fraction == 0.2).all() and (df.outlier_T_o <= df.outlier_T).all() and (df.outlier_T_o > 0).all()


def test_outlier_share_bad_input():
    with pytest.raises(ValueError, match="threshold must be a fraction"): outlier_share(_Staged([[1]]), None, [1], [False], threshold=1.5)
    with pytest.raises(TypeError, match="staged_predict"): outlier_share(object(), None, [1], [False])
    with pytest.raises(ValueError, match="threshold must be a fraction"): _small(metrics={"outlier_share": {"threshold": 0}})
    with pytest.raises(ValueError, match=r"unknown metric 'outlier_shar'.*did you mean 'outlier_share'"): _small(metrics=["outlier_shar"])
    with pytest.raises(ValueError, match="its parameters: threshold"): _small(metrics={"outlier_share": {"thresh": 0.5}})
    with pytest.raises(TypeError, match="metrics must be"): _small(metrics=3)
    assert set(METRICS) == {"outlier_share", "coef_mse", "coef_mse_to_clean_fit", "sensitivity", "support_fraction",
                            "column_generation", "pricing_oracle", "refit_stability", "risk_path"}


def test_metrics_change_neither_keys_ids_nor_seeds_nor_errors():
    a, b = _small(metrics=None), _small()
    assert [(t.key, t.task_id, t.seeds()) for t in a.tasks()] == [(t.key, t.task_id, t.seeds()) for t in b.tasks()]
    assert "metrics" not in a.spec() and b.spec()["metrics"] == {"outlier_share": {}}
    assert a.fingerprint() != b.fingerprint()                         # the rows differ (extra columns): another grid
    ra, rb = (ex.run_grid(g, backend="serial", progress=False) for g in (a, b))
    for c in ("test_error", "train_error", "train_clean_error", "n_train", "contaminated_fraction"):
        assert ra[c].tolist() == rb[c].tolist()
    sub = b.subset(methods=["ARB-2"])
    assert sub.metrics == b.metrics and "metrics outlier_share" in repr(b)


def test_grid_file_metrics_and_errors_with_line(tmp_path):
    base = ('name = "t"\nnoise = ["t4_features"]\nrates = [0.1]\n[datasets.h]\ngenerator = "hastie"\nn = 200\n'
            '[methods.ARB]\nmethod = "arb_gamma"\nn_estimators = 5\n')
    p = tmp_path / "g.toml"
    p.write_text('metrics = ["outlier_share"]\n' + base)
    assert ex.read_grid(p).metrics == (("outlier_share", ()),)
    p.write_text(base + '[metrics.outlier_share]\nthreshold = 0.6\n')
    assert ex.read_grid(p).metrics == (("outlier_share", (("threshold", 0.6),)),)
    p.write_text('metrics = ["outlier"]\n' + base)
    with pytest.raises(ValueError, match=r"g.toml:1: key 'metrics'.*unknown metric 'outlier'"): ex.read_grid(p)


def test_generators_hastie_and_quantiles_are_the_data_chapters():
    from robust_ref.datasets import make_hastie, make_quantiles
    X, y = ex.generated_dataset("hastie", n=50, random_state=4)()
    Xr, yr = make_hastie(50, random_state=4)
    assert np.array_equal(X, Xr) and np.array_equal(y, yr) and X.shape == (50, 10)
    X, y = ex.drawn_dataset("quantiles", n_train=30, n_test=20)(random_state=9)
    Xr, yr = make_quantiles(50, random_state=9)
    assert np.array_equal(X, Xr) and np.array_equal(y, yr) and X.shape == (50, 20)


@pytest.mark.parametrize("name, kw", [
    ("alpha_long_servedio", dict(methods=["α=0.5"], rates=[0.0, 0.2], splits=1)),
    ("trees_binary", dict(datasets=["banknote"], methods=["DT-CL", "DT-MSE"], rates=[0.0, 0.2], seeds=[0], splits=1)),
    ("meanclf_long_servedio", dict(datasets=["ls_gamma12"], rates=[0.0, 0.1], seeds=[0, 1])),
])
def test_label_noise_rows_are_still_the_records(name, kw):
    "The corruption path changed in _data: rows of label-noise grids still equal the committed records, exactly."
    g = ex.record_grid(name)
    live = ex.run_grid(g.subset(**kw), backend="serial", progress=False)
    summary = ex.check_against_record(live, name)
    assert summary.shared.sum() == len(live) >= 2 and (summary.shared == summary.agreeing).all()


def test_check_against_record_compares_metric_and_contamination_columns(tmp_path):
    import pandas as pd
    p = tmp_path / "tiny6.toml"
    p.write_text('name = "tiny6"\nnoise = ["t4_features"]\nrates = [0.0, 0.1]\nmetrics = ["outlier_share"]\n'
                 '[datasets.h]\ngenerator = "hastie"\nn = 300\n[methods.ARB]\nmethod = "arb_gamma"\nstep = 0.5\nn_estimators = 20\n')
    g = ex.read_grid(p)
    df = ex.run_grid(g, backend="serial", progress=False)
    root = tmp_path / "rec"
    folder = ex.save_record(df, "tiny6", grid=p, root=root)
    rec, _ = ex.load_record("tiny6", root=root)
    assert {"outlier_share", "outlier_T", "outlier_T_o", "contaminated_fraction"} <= set(rec.columns)
    assert ex.check_against_record(df, "tiny6", root=root).agreeing.sum() == 2
    for col, delta, caught_with_atol in [("outlier_T", 1, False), ("contaminated_fraction", 0.01, True)]:
        bad = rec.copy(); bad.loc[1, col] += delta
        bad.to_parquet(folder / "results.parquet", index=False)
        with pytest.raises(AssertionError, match="method 'ARB': 1 of 2 tasks"):
            ex.check_against_record(df, "tiny6", root=root)
        if caught_with_atol:
            with pytest.raises(AssertionError): ex.check_against_record(df, "tiny6", atol=0.01, root=root)
        else: assert ex.check_against_record(df, "tiny6", atol=0.01, root=root).agreeing.sum() == 2
    rec.to_parquet(folder / "results.parquet", index=False)


def test_table6_grid_is_the_papers_protocol():
    g = ex.read_grid(ex.example_grids()["archboost_table6"])
    assert g.name == "archboost_table6" and len(g) == 40
    assert list(g.noise) == ["t4_features"] and g.rates == [0.05, 0.1, 0.15, 0.2] and (g.seeds, g.splits) == ([0], 5)
    assert g.metrics == (("outlier_share", ()),)
    d = g.datasets["hastie"]
    assert (d.generator, d.n_train, d.n_test) == ("hastie", 2000, 2000)
    arb, ada = (g.methods[m].build(0).get_params() for m in ["ARB-2", "Real AdaBoost"])
    assert (arb["gamma"], arb["step"], arb["n_estimators"]) == (2.0, 0.5, 800)
    assert (ada["learning_rate"], ada["n_estimators"]) == (0.8, 800)


def test_figure5_grid_is_the_papers_protocol():
    g = ex.read_grid(ex.example_grids()["archboost_figure5"])
    assert g.name == "archboost_figure5" and len(g) == 2 * 17 * 8 * 20 == 5440
    assert g.rates == [round(i * 0.025, 3) for i in range(17)] and (g.seeds, g.splits) == ([0], 20)
    assert {k: (d.generator, d.n_train, d.n_test) for k, d in g.datasets.items()} == {
        "hastie": ("hastie", 2000, 10000), "quantiles": ("quantiles", 2000, 10000)}
    steps = {m: g.methods[m].build(0).get_params()["step"] for m in g.methods if m.startswith("ARB-")}
    assert steps == {"ARB-1.5": 0.78, "ARB-2": 0.45, "ARB-3": 0.28, "ARB-4": 0.2, "ARB-5": 0.14, "ARB-6": 0.1}
    assert all(m.build(0).get_params()["n_estimators"] == 1000 for m in g.methods.values())
    assert g.methods["RobustBoost"].build(0).get_params()["error_goal"] == 0.1
    assert g.methods["Real AdaBoost"].build(0).get_params()["learning_rate"] == 0.8


def test_record_or_live(tmp_path):
    from robust_ref.experiments.record import record_or_live
    p = tmp_path / "tiny7.toml"
    p.write_text('name = "tiny7"\nnoise = ["t4_features"]\nrates = [0.0, 0.1]\nsplits = 2\nmetrics = ["outlier_share"]\n'
                 '[datasets.h]\ngenerator = "hastie"\nn = 300\n[methods.ARB]\nmethod = "arb_gamma"\nn_estimators = 10\n')
    g, root = ex.read_grid(p), tmp_path / "rec"
    live_grid = g.subset(splits=1)
    rows, rec, scope = record_or_live(g, live_grid, "Table X", root=root, show=False)
    assert rec is None and len(rows) == 2 and scope == "live slice (reduced CI size: 2 of the grid's 4 tasks)"
    ex.save_record(ex.run_grid(g, backend="serial", progress=False), "tiny7", grid=p, root=root)
    rows, rec, scope = record_or_live(g, live_grid, root=root, show=False)
    assert rec is not None and len(rows) == 4 and scope == "results of record (2 repetitions)"
    other = ex.Grid({"h": g.datasets["h"]}, list(g.methods.values()), noise=["uniform"], rates=[0.1], name="other")
    with pytest.raises(ValueError, match="not tasks of grid 'tiny7'"): record_or_live(g, other, root=root, show=False)
    with pytest.raises(TypeError, match="must be Grids"): record_or_live(g, "slice", root=root, show=False)


def test_sklearn_datasets_as_loaders_and_in_grid_files(tmp_path):
    from sklearn.datasets import load_breast_cancer
    from robust_ref.experiments.loaders import sklearn_dataset
    X, y = sklearn_dataset("breast_cancer")()
    Xr, yr = load_breast_cancer(return_X_y=True)
    assert np.array_equal(X, Xr) and np.array_equal(y, yr) and X.shape == (569, 30)
    from robust_ref.experiments.loaders import sklearn_dataset
    assert sklearn_dataset("breast_cancer") == sklearn_dataset("breast_cancer") and repr(sklearn_dataset("breast_cancer")) == "sklearn:breast_cancer"
    with pytest.raises(ValueError, match=r"unknown scikit-learn dataset 'breast'.*did you mean 'breast_cancer'"): sklearn_dataset("breast")
    p = tmp_path / "g.toml"
    p.write_text('[datasets.wdbc]\nsklearn = "breast_cancer"\nn = 3\n[methods.tree]\n')
    with pytest.raises(ValueError, match=r"g.toml:3: key 'n' of dataset 'wdbc'.*takes only sklearn.*remove 'n'"): ex.read_grid(p)


def test_alpha_breast_cancer_grid_is_the_papers_protocol():
    g = ex.read_grid(ex.example_grids()["alpha_breast_cancer"])
    assert g.name == "alpha_breast_cancer" and len(g) == 400 and repr(g.datasets["wdbc"]) == "sklearn:breast_cancer"
    assert (list(g.noise), g.rates, g.seeds, g.splits, g.test_size) == (["uniform_iid"], [0.0, 0.1, 0.2, 0.3], [0], 20, 0.3)
    params = {m: g.methods[m].build(0).get_params() for m in g.methods}
    assert {m: (p["alpha"], p["n_estimators"]) for m, p in params.items()} == {
        "α=0.5": (0.5, 100), "α=1": (1.0, 100), "α=2": (2.0, 100), "α=5": (5.0, 100), "α=10": (10.0, 100)}


def test_run_record_runs_resumably_and_saves_once(tmp_path, capsys):
    from robust_ref.experiments.record import run_record
    p = tmp_path / "tiny8.toml"
    p.write_text('name = "tiny8"\nrates = [0.0, 0.1]\n[datasets.h]\ngenerator = "hastie"\nn = 200\n[methods.tree]\n')
    root, out = tmp_path / "rec", tmp_path / "results"
    folder = run_record(p, out, n_jobs=1, root=root)
    assert folder == out / "tiny8" and ex.list_records(root) == ["tiny8"] and len(ex.load_record("tiny8", root)[0]) == 2
    run_record(p, out, n_jobs=1, root=root)                     # again: nothing to run, the record is kept
    assert "record tiny8 exists" in capsys.readouterr().out


def test_coef_mse_by_hand_and_bad_input():
    from robust_ref.experiments.metrics import coef_mse

    class Lin:
        intercept_, coef_, alpha = np.array([-1.0]), np.array([[3.0, 1.0]]), 2.0
    got = coef_mse(Lin(), None, None, None, reference=[-2.0, 2.0, 2.0], scale_by="alpha")
    assert got["coef_mse"] == pytest.approx((1 + 1 + 1) / 3)                              # (−1+2)², (3−2)², (1−2)²
    assert got["coef_mse_scaled"] == pytest.approx(((-0.5 + 2) ** 2 + (1.5 - 2) ** 2 + (0.5 - 2) ** 2) / 3)
    assert np.isnan(coef_mse(Lin(), None, None, None, reference=[-2, 2, 2])["coef_mse_scaled"])
    with pytest.raises(ValueError, match="has 3 parameters .* reference has 2"): coef_mse(Lin(), None, None, None, reference=[1, 2])
    with pytest.raises(TypeError, match="intercept_ and coef_"): coef_mse(object(), None, None, None, reference=[1])
    with pytest.raises(ValueError, match="reference must be a non-empty list"): _small(metrics={"coef_mse": {"reference": "x"}})
    with pytest.raises(ValueError, match="missing a required argument: 'reference'"): _small(metrics=["coef_mse"])


def test_alpha_gauss_mixture_grid_is_the_papers_protocol():
    from robust_ref.datasets import GaussWorld
    g = ex.read_grid(ex.example_grids()["alpha_gauss_mixture"])
    assert g.name == "alpha_gauss_mixture" and len(g) == 16 * 5 * 30
    assert (list(g.noise), g.rates, g.splits) == (["uniform_iid"], [0.0, 0.1, 0.2, 0.3, 0.4], 30)
    gw = GaussWorld(mean=(1.0, 1.0), prior=0.14)
    ref = dict(dict(g.metrics)["coef_mse"])
    assert np.allclose(ref["reference"], np.r_[gw.bayes_coef()[0], gw.bayes_coef()[1]]) and ref["scale_by"] == "alpha"
    X, y = g.datasets["gmm"](random_state=3)
    Xr, yr = gw.sample(12000, random_state=3)
    assert np.array_equal(X, Xr) and np.array_equal(y, yr)
    for name, m in g.methods.items():
        est = m.build(0)
        final = est.steps[-1][1].get_params()
        assert est.steps[0][1] == "passthrough" and final["C"] == np.inf and final["alpha"] == float(name.split("=")[1])
        assert (final["solver"], final["max_iter"]) == (("gd", 2000) if name.startswith("GD") else ("lbfgs", 2000))
        if name.startswith("GD"): assert (final["lr"], final["init"], final["random_state"]) == (0.01, "uniform01", 0)


def test_coef_mse_in_a_task_row_is_reproducible():
    g = ex.read_grid(ex.example_grids()["alpha_gauss_mixture"]).subset(methods=["GD α=2", "L-BFGS α=1"], rates=[0.1], splits=1)
    a, b = (ex.run_grid(g, backend="serial", progress=False) for _ in range(2))
    assert (a.status == "ok").all() and a.coef_mse.tolist() == b.coef_mse.tolist() and a.coef_mse_scaled.notna().all()
