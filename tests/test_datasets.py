"""Tests for robust_ref.datasets: bundled CSVs (checksums, documented counts), loaders, fetchers (offline path),
synthetic generators (exact constructions, determinism, bad input).

Expected numbers come from ../shared/datasets/README.md and the paper specs, typed in here; checksums are
recomputed with hashlib from the files on disk.
"""
import hashlib
import shutil
import urllib.error
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm
from sklearn import datasets as skd
from sklearn.utils import Bunch

import robust_ref.datasets as rd
from robust_ref.datasets import (DATASETS, RMBOOST_TABLE2, FiniteWorld, GaussWorld, dataset_info, fetch_dataset,
                                 list_datasets, load_dataset, long_servedio_world, make_arch_toy_grid,
                                 make_atom_world, make_finite_world, make_hastie, make_long_servedio, make_quantiles,
                                 make_stump_data, threshold_rules, verify_checksums)

DATA = Path(str(resources.files("robust_ref") / "data"))

# data/README.md "Summary": rows, features, {label: count}, missing cells
DOCUMENTED = {
    "diabetes": (768, 8, {0: 500, 1: 268}, 0),
    "german_numer": (1000, 24, {-1: 700, 1: 300}, 0),
    "credit": (690, 15, {1: 307, 2: 383}, 67),
    "blood_transfusion": (748, 4, {-1: 570, 1: 178}, 0),
    "titanic": (891, 7, {0: 549, 1: 342}, 179),
    "raisin": (900, 7, {"Kecimen": 450, "Besni": 450}, 0),
    "qsar": (1055, 41, {-1: 699, 1: 356}, 0),
    "climate": (540, 18, {0: 46, 1: 494}, 0),
    "ionosphere": (351, 34, {-1: 225, 1: 126}, 0),
    "sonar": (208, 60, {"R": 97, "M": 111}, 0),
    "haberman": (306, 3, {1: 225, 2: 81}, 0),
    "mammographic": (961, 5, {0: 516, 1: 445}, 162),
    "heart": (270, 13, {1: 150, -1: 120}, 0),
    "magic": (19020, 10, {"g": 12332, "h": 6688}, 0),
    "banknote": (1372, 4, {0: 762, 1: 610}, 0),
}
# data/README.md: rows with missing values (credit), per-column missing counts (titanic, mammographic)
CREDIT_ROWS_WITH_MISSING = 37
TITANIC_MISSING = {"Age": 177, "Embarked": 2}
MAMMO_MISSING = {"BI_RADS": 2, "Age": 5, "Shape": 31, "Margin": 48, "Density": 76}


# ---------------------------------------------------------------- bundled data

def test_fifteen_names_sorted():
    assert list_datasets() == sorted(DOCUMENTED)
    assert len(DATASETS) == 15 and set(RMBOOST_TABLE2) <= set(DATASETS) and len(RMBOOST_TABLE2) == 8


def test_checksums_match_sha256sums_computed_independently():
    listed = {}
    for line in (DATA / "SHA256SUMS").read_text().splitlines():
        if line.strip():
            digest, fname = line.split()
            listed[fname] = digest
    assert set(listed) == {f"{n}.csv" for n in DOCUMENTED}
    for fname, digest in listed.items():
        assert hashlib.sha256((DATA / fname).read_bytes()).hexdigest() == digest, fname
    got = verify_checksums()
    assert got == {f[:-4]: d for f, d in listed.items()}


def test_verify_checksums_detects_a_modified_file(tmp_path):
    for f in DATA.iterdir():
        if f.is_file(): shutil.copy(f, tmp_path / f.name)
    assert len(verify_checksums(tmp_path)) == 15
    with open(tmp_path / "heart.csv", "a") as fh: fh.write("1,2,3\n")
    with pytest.raises(ValueError, match="heart.csv"):
        verify_checksums(tmp_path)
    (tmp_path / "sonar.csv").unlink()
    with pytest.raises(ValueError, match="sonar.csv \\(missing\\)"):
        verify_checksums(tmp_path)


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_documented_counts(name):
    n, d, classes, n_missing = DOCUMENTED[name]
    b = load_dataset(name)
    assert b.data.shape == (n, d) and b.target.shape == (n,)
    assert len(b.feature_names) == d
    assert int(np.isnan(b.data).sum()) == n_missing == b.n_missing
    values, counts = np.unique(b.target, return_counts=True)
    assert dict(zip(values.tolist(), counts.tolist())) == classes
    assert b.target_names.tolist() == sorted(classes)
    # the loader agrees with a plain pandas read of the file
    df = pd.read_csv(DATA / f"{name}.csv")
    np.testing.assert_array_equal(b.data, df.drop(columns="label").to_numpy(float))
    assert list(b.feature_names) == list(df.columns[:-1])


def test_dataset_info_table_matches_documented():
    info = dataset_info()
    assert list(info.index) == sorted(DOCUMENTED)
    for name, (n, d, classes, m) in DOCUMENTED.items():
        assert info.loc[name, "rows"] == n and info.loc[name, "features"] == d and info.loc[name, "missing_cells"] == m
        assert np.isclose(info.loc[name, "minority"], min(classes.values()) / n, atol=5e-4)
    assert info.loc["credit", "rows_with_missing"] == CREDIT_ROWS_WITH_MISSING
    assert info["rmboost_table2"].sum() == 8


def test_missing_value_positions():
    t = load_dataset("titanic", as_frame=True).data
    assert t.isna().sum()[t.isna().sum() > 0].to_dict() == TITANIC_MISSING
    m = load_dataset("mammographic", as_frame=True).data
    assert m.isna().sum().to_dict() == MAMMO_MISSING


def test_missing_options():
    for name, complete_rows in (("credit", 690 - 37), ("titanic", 891 - 179)):
        Xd, yd = load_dataset(name, return_X_y=True, missing="drop")
        assert Xd.shape[0] == complete_rows == yd.shape[0] and not np.isnan(Xd).any()
    df = pd.read_csv(DATA / "mammographic.csv")
    Xd, _ = load_dataset("mammographic", return_X_y=True, missing="drop")
    assert Xd.shape[0] == int(df.drop(columns="label").notna().all(axis=1).sum()) == 830
    # impute: median for measurements, mode for codes (computed here with plain numpy)
    raw = load_dataset("titanic", as_frame=True).data
    Xi = load_dataset("titanic", as_frame=True, missing="impute").data
    age, emb = raw["Age"].to_numpy(), raw["Embarked"].to_numpy()
    assert np.all(Xi["Age"][np.isnan(age)] == np.nanmedian(age))
    vals, cnt = np.unique(emb[~np.isnan(emb)], return_counts=True)
    assert np.all(Xi["Embarked"][np.isnan(emb)] == vals[np.argmax(cnt)]) and vals[np.argmax(cnt)] == 2  # S
    np.testing.assert_array_equal(Xi.to_numpy()[~raw.isna().any(axis=1)], raw.to_numpy()[~raw.isna().any(axis=1)])
    for name in ("credit", "mammographic", "heart"):
        X = load_dataset(name, missing="impute").data
        assert X.shape[0] == DOCUMENTED[name][0] and not np.isnan(X).any()


def test_bunch_and_return_X_y_consistent():
    b = load_dataset("raisin")
    assert isinstance(b, Bunch) and b.frame is None and b.name == "raisin" and "CC BY 4.0" in b.DESCR
    X, y = load_dataset("raisin", return_X_y=True)
    np.testing.assert_array_equal(X, b.data); np.testing.assert_array_equal(y, b.target)
    f = load_dataset("raisin", as_frame=True)
    assert isinstance(f.data, pd.DataFrame) and isinstance(f.target, pd.Series)
    np.testing.assert_array_equal(f.data.to_numpy(), b.data)
    assert list(f.frame.columns) == b.feature_names + ["label"] and f.frame.shape == (900, 8)
    Xf, yf = load_dataset("raisin", return_X_y=True, as_frame=True)
    assert isinstance(Xf, pd.DataFrame) and isinstance(yf, pd.Series)
    assert b.data.dtype == np.float64


def test_labels_pm_is_second_sorted_class_positive():
    for name in ("sonar", "haberman", "heart", "magic"):
        b = load_dataset(name)
        y = load_dataset(name, labels="pm").target
        assert set(np.unique(y)) == {-1, 1}
        np.testing.assert_array_equal(y == 1, b.target == sorted(DOCUMENTED[name][2])[1])
    assert (load_dataset("haberman", labels="pm").target == 1).sum() == 81  # 2 = died → +1


def test_loader_does_not_share_state_between_calls():
    a = load_dataset("heart"); a.data[:] = 0
    assert load_dataset("heart").data.any()
    f = load_dataset("heart", as_frame=True); f.data.iloc[:, :] = 0
    assert load_dataset("heart").data.any()


def test_load_bad_input():
    with pytest.raises(ValueError, match="Did you mean 'diabetes'") as e:
        load_dataset("diabets")
    for name in DOCUMENTED: assert name in str(e.value)
    with pytest.raises(ValueError, match="Valid names"):
        load_dataset("iris")
    with pytest.raises(TypeError, match="string"):
        load_dataset(3)
    with pytest.raises(ValueError, match="missing must be one of"):
        load_dataset("credit", missing="median")
    with pytest.raises(ValueError, match="labels must be one of"):
        load_dataset("credit", labels="01")
    assert load_dataset("German-Numer").name == "german_numer"


# ---------------------------------------------------------------- fetchers (never the network)

def _no_route(*a, **k):
    raise urllib.error.URLError("no route to host")


@pytest.mark.parametrize("name,fetcher", [("covertype", "fetch_covtype"), ("higgs", "fetch_openml"),
                                          ("susy", "fetch_openml"), ("adult", "fetch_openml")])
def test_fetch_offline_error(monkeypatch, name, fetcher):
    monkeypatch.setattr(skd, fetcher, _no_route)
    with pytest.raises(ConnectionError, match="needs the network") as e:
        fetch_dataset(name)
    assert "no route to host" in str(e.value) and "scikit_learn_data" in str(e.value)


def test_fetch_covertype_binarised_and_subsampled(monkeypatch):
    target = np.array([1, 2, 2, 3, 7, 2, 5, 1])
    fake = Bunch(data=np.arange(16.).reshape(8, 2), target=target)
    monkeypatch.setattr(skd, "fetch_covtype", lambda **k: fake)
    X, y = fetch_dataset("covertype", return_X_y=True)
    np.testing.assert_array_equal(y, [0, 1, 1, 0, 0, 1, 0, 0])
    b1 = fetch_dataset("covertype", n_samples=5, random_state=0)
    b2 = fetch_dataset("covertype", n_samples=5, random_state=0)
    assert b1.data.shape == (5, 2) and np.array_equal(b1.data, b2.data)
    rows = (b1.data[:, 0] / 2).astype(int)           # which original rows were drawn
    np.testing.assert_array_equal(b1.target, (target[rows] == 2).astype(int))
    with pytest.raises(ValueError, match="exceeds"):
        fetch_dataset("covertype", n_samples=9)


def test_fetch_higgs_uses_21_low_level_features(monkeypatch):
    data = pd.DataFrame(np.arange(5 * 28, dtype=float).reshape(5, 28))
    data.iloc[2, 3] = np.nan
    fake = Bunch(data=data, target=pd.Series(["1", "0", "1", "0", "1"]))
    monkeypatch.setattr(skd, "fetch_openml", lambda **k: fake)
    X, y = fetch_dataset("higgs", return_X_y=True)
    assert X.shape == (4, 21) and y.tolist() == [1, 0, 0, 1]


def test_fetch_bad_input():
    with pytest.raises(ValueError, match="Did you mean 'higgs'"):
        fetch_dataset("higs")
    with pytest.raises(ValueError, match="load_dataset"):
        fetch_dataset("sonar")
    with pytest.raises(ValueError, match="n_samples"):
        fetch_dataset("susy", n_samples=0)


# ---------------------------------------------------------------- Long–Servedio

def test_long_servedio_21_construction():
    X, y, kind = make_long_servedio(3000, return_kind=True, random_state=1)
    assert X.shape == (3000, 21) and y.dtype == np.int64 and set(np.unique(y)) == {-1, 1}
    Z = y[:, None] * X                                        # agreement with the label, per coordinate
    assert np.all(Z[kind == 0] == 1)
    np.testing.assert_array_equal(Z[kind == 1], np.tile(np.r_[np.ones(11), -np.ones(10)], ((kind == 1).sum(), 1)))
    pen = Z[kind == 2]
    assert np.all((pen[:, :11] == 1).sum(1) == 5) and np.all((pen[:, 11:] == 1).sum(1) == 6)
    assert np.all(np.sign(X.sum(1)) == y)
    # every coordinate of a penalizer's first block agrees with y with probability 5/11 (3 binomial SEs … ×4)
    p_hat = (pen[:, :11] == 1).mean(0)
    se = np.sqrt(5 / 11 * 6 / 11 / len(pen))
    assert np.all(np.abs(p_hat - 5 / 11) < 4.5 * se)
    # type frequencies 1/4, 1/4, 1/2 and balanced labels
    freq = np.bincount(kind, minlength=3) / 3000
    assert np.all(np.abs(freq - [0.25, 0.25, 0.5]) < 4.5 * np.sqrt(0.25 / 3000))
    assert abs((y == 1).mean() - 0.5) < 4.5 * np.sqrt(0.25 / 3000)


def test_long_servedio_2d_construction():
    g = 1 / 24
    X, y, kind = make_long_servedio(500, version="2d", gamma=g, return_kind=True, random_state=2)
    atoms = np.array([[1, 0], [g, 5 * g], [g, -g]])
    np.testing.assert_array_equal(X, y[:, None] * atoms[kind])
    assert np.all(np.sign(X[:, 0]) == y)


def test_long_servedio_world_mean_classifier_closed_form():
    for g in (1 / 20, 1 / 24):
        w = long_servedio_world(g)
        pp, pm = w.label_masses()
        omega = (pp - pm) @ w.atoms
        np.testing.assert_allclose(omega, [0.25 + 0.75 * g, 0.75 * g], atol=1e-15)
        for s in (0.1, 0.4):
            qp, qm = w.with_label_noise(s).label_masses()
            np.testing.assert_allclose((qp - qm) @ w.atoms, (1 - 2 * s) * omega, atol=1e-15)


@pytest.mark.parametrize("version", ["21", "2d"])
def test_long_servedio_determinism(version):
    a = make_long_servedio(200, version=version, random_state=5)
    b = make_long_servedio(200, version=version, random_state=5)
    c = make_long_servedio(200, version=version, random_state=6)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert not np.array_equal(a[0], c[0])
    g1, g2 = np.random.default_rng(9), np.random.default_rng(9)
    assert np.array_equal(make_long_servedio(30, version=version, random_state=g1)[0],
                          make_long_servedio(30, version=version, random_state=g2)[0])


def test_long_servedio_bad_input():
    for n in (0, -3, 2.5, True):
        with pytest.raises(ValueError, match="positive int"):
            make_long_servedio(n)
    with pytest.raises(ValueError, match="version"):
        make_long_servedio(10, version="3d")
    for g in (0, 1 / 6, -0.1, 0.5):
        with pytest.raises(ValueError, match="1/6"):
            make_long_servedio(10, version="2d", gamma=g)
    with pytest.raises(ValueError, match="1/6"):
        long_servedio_world(0.2)
    with pytest.raises(TypeError, match="RandomState"):
        make_long_servedio(10, random_state=np.random.RandomState(0))


# ---------------------------------------------------------------- finite worlds

def test_finite_world_rmboost():
    w = make_finite_world(40, random_state=0)
    x = np.arange(40)
    np.testing.assert_allclose(w.eta, 1 / (1 + np.exp(-3 * np.sin(x / 5))), rtol=1e-14)
    assert w.atoms.shape == (40, 1) and np.isclose(w.px.sum(), 1)
    assert np.array_equal(w.px, make_finite_world(40, random_state=0).px)
    assert not np.array_equal(w.px, make_finite_world(40, random_state=1).px)
    u = make_finite_world(40, marginal="uniform")
    np.testing.assert_allclose(u.px, np.full(40, 1 / 40))
    # Bayes risk by brute force over all deterministic rules on the atoms is impossible (2^40); use the
    # pointwise characterisation: min over h_j∈{0,1} of each term
    terms = np.minimum(w.px * w.eta, w.px * (1 - w.eta))
    assert np.isclose(w.bayes_risk(), terms.sum(), atol=1e-15)
    assert np.isclose(w.risk(np.ones(40)), np.sum(w.px * (1 - w.eta)), atol=1e-15)
    assert np.isclose(w.risk(np.full(40, 0.5)), 0.5, atol=1e-15)


def test_threshold_rules():
    m = 7
    H = threshold_rules(m)
    assert H.shape == (m, 2 * m) and set(np.unique(H)) == {-1, 1}
    cols = {tuple(c) for c in H.T}
    brute = set()
    for t in range(m + 1):                          # all thresholds including the constant ones
        r = tuple(np.where(np.arange(m) - t + 0.5 > 0, 1, -1)); brute |= {r, tuple(-np.array(r))}
    assert cols == brute and len(cols) == 2 * m
    assert np.linalg.matrix_rank(H.astype(float)) == m


def test_with_label_noise_and_sampling():
    w = FiniteWorld(np.array([[0.], [1.], [2.]]), np.array([0.2, 0.3, 0.5]), np.array([1.0, 0.5, 0.0]))
    n = w.with_label_noise([0.1, 0.2, 0.3], 0.25)
    np.testing.assert_allclose(n.eta, [0.9, 0.5 * 0.8 + 0.25 * 0.5, 0.25], atol=1e-15)
    X, y, idx = w.sample(20000, random_state=0, return_index=True)
    np.testing.assert_array_equal(X[:, 0], idx)
    assert np.all(y[idx == 0] == 1) and np.all(y[idx == 2] == -1)
    freq = np.bincount(idx, minlength=3) / 20000
    assert np.all(np.abs(freq - w.px) < 5 * np.sqrt(0.25 / 20000))
    a, b = w.sample(50, random_state=3), w.sample(50, random_state=3)
    assert np.array_equal(a[1], b[1])


def test_finite_world_bad_input():
    with pytest.raises(ValueError, match="probability vector"):
        FiniteWorld(np.zeros((2, 1)), [0.5, 0.6], [0.1, 0.2])
    with pytest.raises(ValueError, match="one entry per atom"):
        FiniteWorld(np.zeros((3, 1)), [0.5, 0.5], [0.1, 0.2])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        FiniteWorld(np.zeros((2, 1)), [0.5, 0.5], [0.1, 1.2])
    w = make_finite_world(5, marginal="uniform")
    with pytest.raises(ValueError, match="rho_pos"):
        w.with_label_noise(1.5)
    with pytest.raises(ValueError, match="h_plus"):
        w.risk(np.ones(4))
    with pytest.raises(ValueError, match="positive int"):
        w.sample(0)
    with pytest.raises(ValueError, match="marginal"):
        make_finite_world(5, marginal="zipf")
    with pytest.raises(ValueError, match="concentration"):
        make_finite_world(5, concentration=0)
    with pytest.raises(ValueError, match="positive int"):
        make_finite_world(0)


def test_atom_world():
    w = make_atom_world(200, random_state=0)
    assert w.atoms.shape == (200, 2) and np.all(np.abs(w.atoms) <= 1)
    np.testing.assert_allclose(w.eta, 1 / (1 + np.exp(-4 * w.atoms[:, 0])), rtol=1e-14)
    np.testing.assert_allclose(w.px, np.full(200, 1 / 200))
    d = make_atom_world(60, eta=lambda A: (A[:, 0] + 0.2 * A[:, 1] > 0) * 1.0, random_state=1)
    assert set(np.unique(d.eta)) <= {0.0, 1.0} and d.bayes_risk() == 0
    assert np.array_equal(make_atom_world(10, random_state=4).atoms, make_atom_world(10, random_state=4).atoms)
    with pytest.raises(TypeError, match="callable"):
        make_atom_world(10, eta=0.5)
    with pytest.raises(ValueError, match="one probability per atom"):
        make_atom_world(10, eta=lambda A: np.ones(3))
    with pytest.raises(ValueError, match="positive int"):
        make_atom_world(10, n_features=0)


# ---------------------------------------------------------------- Gaussian world

def test_gauss_world():
    g = GaussWorld()
    assert np.isclose(g.bayes_risk(), norm.cdf(-np.sqrt(1.25)), rtol=1e-14)
    gmm = GaussWorld(mean=(1, 1), prior=0.14)
    b0, w = gmm.bayes_coef()
    assert np.isclose(b0, np.log(0.14 / 0.86)) and np.allclose(w, [2, 2])
    # η from Bayes' rule with scipy densities
    X = np.array([[0.3, -0.2], [-1.0, 2.0]])
    num = 0.14 * norm.pdf(X - 1).prod(1)
    den = num + 0.86 * norm.pdf(X + 1).prod(1)
    np.testing.assert_allclose(gmm.eta(X), num / den, rtol=1e-12)
    # Bayes risk by numerical integration along the projection t = μᵀx/‖μ‖ (1-D, scipy quad)
    from scipy.integrate import quad
    s = np.sqrt(2)
    f = lambda t: min(0.14 * norm.pdf(t - s), 0.86 * norm.pdf(t + s))
    assert np.isclose(gmm.bayes_risk(), quad(f, -12, 12, points=[0.0], limit=200)[0], atol=1e-9)
    Xs, ys = gmm.sample(1000, random_state=0)
    assert Xs.shape == (1000, 2) and ys.dtype == np.int64
    assert np.array_equal(Xs, gmm.sample(1000, random_state=0)[0])
    assert not np.array_equal(Xs, gmm.sample(1000, random_state=1)[0])


def test_gauss_world_bad_input():
    with pytest.raises(ValueError, match="prior"):
        GaussWorld(prior=1.0)
    with pytest.raises(ValueError, match="non-zero"):
        GaussWorld(mean=(0, 0))
    with pytest.raises(ValueError, match="shape"):
        GaussWorld().eta(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="positive int"):
        GaussWorld().sample(-1)


# ---------------------------------------------------------------- StumpData

def test_stump_data_reproduces_its_generator_written_out():
    rng = np.random.default_rng(0)                  # the generator written out independently in numpy
    X = rng.normal(size=(300, 2))
    ytrue = np.where(X[:, 0] + 0.5 * X[:, 1] ** 2 - 0.5 > 0, 1, -1)
    y = np.where(rng.random(300) < 0.1, -ytrue, ytrue)
    Xs, ys, cs = make_stump_data(return_clean=True)
    assert np.array_equal(Xs, X) and np.array_equal(ys, y) and np.array_equal(cs, ytrue)
    # by hand: the best stump's noisy training error is 0.18667 (= 56/300)
    best = 1.0
    for j in range(2):
        v = np.unique(Xs[:, j]); t = (v[1:] + v[:-1]) / 2
        err = (np.where(Xs[:, j][:, None] > t, 1, -1) != ys[:, None]).mean(0)
        best = min(best, err.min(), (1 - err).min())
    assert abs(best - 0.18667) < 5e-6
    assert np.array_equal(make_stump_data(50, noise=0.0)[1], make_stump_data(50, noise=0.0, return_clean=True)[2])
    with pytest.raises(ValueError, match="noise"):
        make_stump_data(noise=1.5)
    with pytest.raises(ValueError, match="positive int"):
        make_stump_data(0)


@pytest.mark.parametrize("noise", [0.5, 0.7, 1.0, -0.1, float("nan")])
def test_stump_data_refuses_a_noise_rate_that_inverts_the_labels(noise):
    "At noise ≥ 1/2 the flipped label is at least as likely as the clean one (0.7: most labels inverted): refused."
    with pytest.raises(ValueError, match=r"noise=.* is outside the valid range \[0, 0.5\)"):
        make_stump_data(50, noise=noise)


# ---------------------------------------------------------------- Arch Boost data

def test_arch_toy_grid():
    X, y = make_arch_toy_grid(flip=False)
    assert X.shape == (121, 2) and (y == 1).sum() == 66 and (y == -1).sum() == 55
    np.testing.assert_array_equal(y, np.where(np.round(X.sum(1) / 0.3) <= 10, 1, -1))
    Xf, yf = make_arch_toy_grid()
    changed = np.flatnonzero(yf != y)
    np.testing.assert_allclose(X[changed], [[0.6, 1.2], [0.9, 1.2]])
    assert np.all(y[changed] == 1)


def test_hastie_matches_sklearn():
    X, y = make_hastie(500, random_state=3)
    Xr, yr = skd.make_hastie_10_2(n_samples=500, random_state=3)
    assert np.array_equal(X, Xr) and np.array_equal(y, yr) and y.dtype == np.int64
    np.testing.assert_array_equal(y, np.where((X ** 2).sum(1) > 9.34, 1, -1))
    a, b = make_hastie(20, random_state=np.random.default_rng(1)), make_hastie(20, random_state=np.random.default_rng(1))
    assert np.array_equal(a[0], b[0]) and not np.array_equal(a[0], make_hastie(20, random_state=4)[0])


def test_quantiles_matches_sklearn():
    X, y = make_quantiles(1000, random_state=4)
    Xr, yr = skd.make_gaussian_quantiles(cov=2.0, n_samples=1000, n_features=20, n_classes=2, random_state=4)
    assert np.array_equal(X, Xr) and np.array_equal(y, np.where(yr == 1, 1, -1))
    r2 = (X ** 2).sum(1)
    assert (y == 1).sum() == 500 and r2[y == 1].min() >= r2[y == -1].max()


def test_arch_bad_input():
    with pytest.raises(ValueError, match="positive int"):
        make_hastie(0)
    with pytest.raises(ValueError, match="positive int"):
        make_quantiles(0)
    with pytest.raises(ValueError, match="at least 2"):
        make_quantiles(1)
    with pytest.raises(ValueError, match="cov"):
        make_quantiles(10, cov=-1)
    with pytest.raises(ValueError, match="n_features"):
        make_quantiles(10, n_features=0)


# --- the papers' published tables ---------------------------------------------------------------------------------
from robust_ref.datasets import PUBLISHED_TABLES, published_table


@pytest.mark.parametrize("paper, table, n_rows", [("rmboost", 1, 80), ("rmboost", 3, 400), ("rmboost", 4, 9),
                                                  ("rmboost", 5, 150), ("trees", 2, 336), ("trees", 3, 210),
                                                  ("trees", 4, 336), ("trees", 5, 210), ("archboost", 5, 8),
                                                  ("archboost", 6, 8)])
def test_published_tables_have_the_papers_shape(paper, table, n_rows):
    df = published_table(paper, table)
    assert len(df) == n_rows and (df["table"] == table).all() and df["location"].notna().all()


def test_published_cells_as_printed():
    "Spot checks against the papers' printed tables (values read off the papers, not computed)."
    t3 = published_table("rmboost", 3).set_index(["method", "dataset", "noise", "rate"])
    assert tuple(t3.loc[("RMBoost", "diabetes", "adversarial", 0.1), ["mean", "sd"]]) == (22.0, 3.6)   # the printed anomaly
    assert tuple(t3.loc[("XGB-Quad", "climate", "none", 0.0), ["mean", "sd"]]) == (8.4, 2.0)
    assert tuple(t3.loc[("Minimax", "german_numer", "adversarial", 0.2), ["mean", "sd"]]) == (35.0, 0.3)
    assert sorted(t3.index.get_level_values("method").unique()) == sorted(
        ["RobustBoost", "AdaBoost", "LPBoost", "LogitBoost", "GentleBoost", "BrownBoost", "Robust-GBDT", "XGB-Quad",
         "RMBoost", "Minimax"])
    t4 = published_table("rmboost", 4).set_index("method")
    assert t4.loc["RMBoost", "avg_rank_clean"] == 3.31 and t4.loc["XGB-Quad", "delta_uniform_10"] == 1.65
    t5 = published_table("rmboost", 5).set_index(["method", "dataset", "noise", "rate"])
    assert tuple(t5.loc[("LPBoost", "higgs", "uniform", 0.2), ["mean", "sd"]]) == (46.0, 3.3)
    tr = published_table("trees", 2).set_index(["dataset", "criterion", "setting"])
    assert tr.loc[("MNIST", "ANE", "η=0.0"), "accuracy"] == 94.0 and bool(tr.loc[("MNIST", "ANE", "η=0.0"), "bold"])
    a5 = published_table("archboost", 5).set_index(["method", "test_labels"])
    assert a5.loc[("ARB-2", "clean"), "mean"] == 0.02


def test_rmboost_rebuttal_one_sided_as_printed():
    "The authors' responses to the reviews (one-sided noise): values read off the printed table, not computed."
    rb = published_table("rmboost", "rebuttal")
    assert len(rb) == 80 and (rb["table"] == "rebuttal").all() and rb["location"].notna().all()
    assert sorted(rb.rate.unique()) == pytest.approx([0.03 * k for k in range(1, 11)])
    cells = rb.set_index(["dataset", "noise", "rate", "method"])
    assert tuple(cells.loc[("diabetes", "one_sided", 0.3, "AdaBoost"), ["mean", "sd"]]) == (38.0, 5.6)
    assert tuple(cells.loc[("diabetes", "one_sided_adversarial", 0.12, "RMBoost"), ["mean", "sd"]]) == (32.0, 6.5)
    assert tuple(cells.loc[("raisin", "one_sided_adversarial", 0.09, "AdaBoost"), ["mean", "sd"]]) == (21.0, 3.9)
    assert tuple(cells.loc[("raisin", "one_sided", 0.03, "RMBoost"), ["mean", "sd"]]) == (15.0, 3.4)


def test_rmboost_table_1_repeats_table_3():
    t1, t3 = published_table("rmboost", 1), published_table("rmboost", 3)
    both = t1.merge(t3, on=["dataset", "noise", "rate", "method"], suffixes=("_1", "_3"))
    assert len(both) == 80 and (both.mean_1 == both.mean_3).all() and (both.sd_1 == both.sd_3).all()


@pytest.mark.parametrize("args, match", [(("alpha", 1), "unknown paper"), (("rmboost", 2), r"available: \[1, 3, 4, 5\]"),
                                         (("trees", True), "no shipped table"), (("trees", "2"), "no shipped table"),
                                         (("rmboost", "rebutal"), r"sources outside the paper: \['rebuttal'\]"),
                                         (("trees", "rebuttal"), r"available: \[2, 3, 4, 5\]\.$")])
def test_published_table_bad_input(args, match):
    with pytest.raises(ValueError, match=match): published_table(*args)


def test_every_published_file_is_listed_and_shipped():
    from robust_ref.datasets import _data_dir
    shipped = {p.name for p in (_data_dir() / "published").iterdir() if p.name.endswith(".csv")}
    assert shipped == set(PUBLISHED_TABLES.values())
