"""Every estimator of the book, one contract: parameters declared once (`_parameter_constraints`) and checked at
`fit`; invalid → an error naming the parameter; inert → an error naming it; valid → a fit with finite predictions;
default parameters learn on every bundled dataset and pass scikit-learn's estimator checks.

The estimator list is discovered from the package, so a new estimator is covered without editing this file.
"""
import importlib
import inspect
import pkgutil
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

import robust_ref
from robust_ref.core import HasMethods, Interval, InvalidParameterError, Options, _constraint, _defaults, _SPECIAL
from robust_ref.datasets import list_datasets, load_dataset

_BASES = {"BinaryClassifier", "BoostingClassifier"}


def _estimator_classes() -> list[type]:
    out = {}
    for m in pkgutil.iter_modules(robust_ref.__path__):
        if m.name.startswith("_"): continue
        mod = importlib.import_module(f"robust_ref.{m.name}")
        for name, c in vars(mod).items():
            if (inspect.isclass(c) and issubclass(c, ClassifierMixin) and issubclass(c, BaseEstimator)
                    and c.__module__ == mod.__name__ and not name.startswith("_") and name not in _BASES):
                out[name] = c
    return [out[k] for k in sorted(out)]


CLASSES = _estimator_classes()
IDS = [c.__name__ for c in CLASSES]


def _init_params(cls) -> list[str]:
    return [p for p in inspect.signature(cls.__init__).parameters if p != "self"]


def test_the_estimator_list_is_complete():
    "Discovery must find the book's estimators (a refactor that hides them from this file fails here)."
    names = set(IDS)
    for must in ["RMBoostClassifier", "AdaBoostAlpha", "RobustTreeClassifier", "MeanClassifier", "ARBGamma",
                 "AdaBoostClassifier", "LPBoostClassifier", "BrownBoostClassifier"]:
        assert must in names, f"{must} not discovered among {sorted(names)}"


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_every_parameter_is_declared(cls):
    declared = set(getattr(cls, "_parameter_constraints", {}))
    params = set(_init_params(cls))
    assert declared == params, (f"{cls.__name__}: undeclared {sorted(params - declared)}, "
                                f"declared but not a parameter {sorted(declared - params)}")
    for name, (gov, _) in getattr(cls, "_parameter_inert", {}).items():
        assert name in params and gov in params, f"{cls.__name__}._parameter_inert names {name!r}/{gov!r}"


# --- drawing values from a declaration ---------------------------------------------------------------------------

def _valid_values(alt, default):
    "A strategy of values inside one declared alternative (small sizes: every draw is fitted), or None."
    if isinstance(alt, Interval):
        if alt.kind == "int":
            lo = alt.left if alt.left is not None else -3
            if alt.closed in ("right", "neither") and alt.left is not None: lo += 1
            hi = lo + 3
            if alt.right is not None: hi = min(hi, alt.right - (alt.closed in ("left", "neither")))
            return st.integers(lo, hi) if hi >= lo else None
        lo = -5.0 if alt.left is None else float(alt.left)
        hi = (lo + 5.0) if alt.right is None or not np.isfinite(alt.right) else float(alt.right)
        return st.floats(lo, hi, exclude_min=alt.closed in ("right", "neither") or alt.left is None,
                         exclude_max=alt.closed in ("left", "neither") or alt.right is None, allow_nan=False)
    if isinstance(alt, Options): return st.sampled_from(sorted(alt.options))
    if isinstance(alt, HasMethods): return st.just(DecisionTreeClassifier(max_depth=2, random_state=0))
    if alt is _SPECIAL["boolean"]: return st.booleans()
    if alt is _SPECIAL["random_state"]: return st.integers(0, 10)
    if str(alt) == "None": return st.none()
    return None   # a type or callable: only the default is drawn


def _invalid_values(alt):
    "Values just outside an interval / option set / bool / seed (each must be refused unless another alternative takes it)."
    if isinstance(alt, Interval):
        out = [float("nan"), "1"]
        if alt.left is not None and np.isfinite(alt.left):
            out.append(alt.left if alt.closed in ("right", "neither") else alt.left - (1 if alt.kind == "int" else 1e-9))
        if alt.right is not None and np.isfinite(alt.right):
            out.append(alt.right if alt.closed in ("left", "neither") else alt.right + (1 if alt.kind == "int" else 1e-9))
        if alt.kind == "int": out.append(1.5)
        return out
    if isinstance(alt, Options): return ["not-an-option"]
    if alt is _SPECIAL["boolean"]: return ["no", 1]
    if alt is _SPECIAL["random_state"]: return [-1, 0.5]
    return []


def _alternatives(cls, name):
    alts = cls._parameter_constraints[name]
    return [_constraint(a) for a in (alts if isinstance(alts, (list, tuple)) else [alts])]


def _accepted(value, alts) -> bool:
    return any(value in a for a in alts)


def _data(seed=0, n=60, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, "pos", "neg")
    return X, y


def _quiet_fit(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X, y)


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_invalid_values_are_refused_naming_the_parameter(cls):
    "Every declared parameter, every value just outside its declaration: `fit` refuses it, naming the parameter."
    X, y = _data()
    n_cases = 0
    for name in _init_params(cls):
        alts = _alternatives(cls, name)
        for bad in [v for a in alts for v in _invalid_values(a)]:
            if _accepted(bad, alts): continue
            est = cls(**{name: bad})
            with pytest.raises((ValueError, TypeError)) as e:
                _quiet_fit(est, X, y)
            assert name in str(e.value), f"{cls.__name__}({name}={bad!r}): message does not name it: {e.value}"
            n_cases += 1
    assert n_cases > 0 or not _init_params(cls)


def _concrete_values(alts) -> list:
    "A few concrete values inside the declared alternatives (options, numbers inside intervals, bools)."
    out = []
    for a in alts:
        if isinstance(a, Options): out += sorted(a.options)
        elif isinstance(a, Interval):
            lo = a.left if a.left is not None else -1
            for v in ([lo + 1, lo + 2, lo + 3] if a.kind == "int" else [lo + 0.25, lo + 0.5, lo + 1.5]):
                if v in a: out.append(v)
        elif a is _SPECIAL["boolean"]: out += [True, False]
        elif str(a) == "None": out.append(None)
    return out


_GOVERNOR_GUESSES = ["linear", "polynomial", "poly", "gaussian", "rbf", "stump", "tree", "plain", "corrected",
                     "gradient", "newton", "schedule", "line_search", "exact", "lbfgs", "gd", "dense", "dual", "primal"]


@pytest.mark.parametrize("cls", [c for c in CLASSES if getattr(c, "_parameter_inert", None)],
                         ids=[c.__name__ for c in CLASSES if getattr(c, "_parameter_inert", None)])
def test_inert_parameters_are_named(cls):
    "A parameter set where it has no effect is an error naming it and the parameter that makes it inert."
    X, y = _data()
    defaults = _defaults(cls)
    for name, (gov, where) in cls._parameter_inert.items():
        gov_alts = _alternatives(cls, gov)
        takes = (lambda v: bool(where(v))) if callable(where) else (lambda v: v in where)
        off = [v for v in _concrete_values(gov_alts) + _GOVERNOR_GUESSES if _accepted(v, gov_alts) and not takes(v)]
        setting = [v for v in _concrete_values(_alternatives(cls, name)) + [2, 0.5, {"time_limit": 10.0}, (0.25, 0.75)]
                   if _accepted(v, _alternatives(cls, name)) and not (v is None or v == defaults.get(name))]
        assert off and setting, f"{cls.__name__}: cannot build an inert case for {name} (off={off}, setting={setting})"
        with pytest.raises(ValueError, match=f"{name}.*no effect.*{gov}"):
            _quiet_fit(cls(**{gov: off[0], name: setting[0]}), X, y)


def _valid_params(cls):
    "A hypothesis strategy of parameter dicts drawn from the declaration (inert parameters left at their default)."
    defaults = _defaults(cls)
    inert = getattr(cls, "_parameter_inert", {})
    fields = {}
    for name in _init_params(cls):
        if name in inert: continue
        strats = [s for a in _alternatives(cls, name) if (s := _valid_values(a, defaults.get(name))) is not None]
        fields[name] = st.one_of(st.just(defaults.get(name)), *strats) if strats else st.just(defaults.get(name))
    return st.fixed_dictionaries(fields)


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_valid_values_fit_with_finite_predictions(cls):
    """Values drawn inside the declaration fit, and give finite scores — or are refused by a cross-parameter check
    that names one of the parameters drawn (never a NaN model, never a crash deep inside `fit`)."""
    X, y = _data()

    @settings(max_examples=12, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(params=_valid_params(cls))
    def check(params):
        est = cls(**params)
        try:
            _quiet_fit(est, X, y)
        except (ValueError, TypeError) as e:
            changed = [k for k, v in params.items() if v is not _defaults(cls).get(k)]
            assert any(k in str(e) for k in changed), f"{cls.__name__}({params}) failed without naming a parameter: {e!r}"
            return
        score = est.decision_function(X) if hasattr(est, "decision_function") else est.predict_proba(X)
        assert np.all(np.isfinite(score)), f"{cls.__name__}({params}) gives non-finite scores"
        assert set(est.predict(X)) <= {"pos", "neg"}

    check()


# --- defaults: every bundled dataset, scikit-learn's checks -------------------------------------------------------

def _subsample(X, y, n_max=400, seed=0):
    if len(y) <= n_max: return X, y
    idx = np.random.default_rng(seed).choice(len(y), n_max, replace=False)
    return X[idx], y[idx]


# Linear / kernel-mean models that are not scale invariant: their docstrings say to standardise the features first
# (as the experiment registry does). On raw features MeanClassifier/HerdedMeanClassifier/AlphaLogisticRegression
# predict the majority class on climate (features of very different scales, 91% one class); standardised they learn.
_SCALE_FIRST = {"MeanClassifier", "HerdedMeanClassifier", "RecursiveHerdingClassifier", "AlphaLogisticRegression"}

# The one pair that cannot learn with default parameters, why, and the setting with which it must learn instead:
_CANNOT_WITH_DEFAULTS = {
    ("HerdedMeanClassifier", "haberman"): (dict(eps=1e-3), "the mean classifier itself beats the majority rule there by 2 "
        "points only (0.245 vs 0.265, majority predicted on 95% of rows); herding to eps = 0.05 keeps 11 points and "
        "loses that margin (all majority); eps = 1e-3 (171 points) recovers the mean classifier's 0.245"),
}


def test_the_exception_is_real():
    "The listed pair really fails with defaults (else the exception must go)."
    X, y = _subsample(*load_dataset("haberman", return_X_y=True, missing="impute"))
    _, counts = np.unique(y, return_counts=True)
    est = make_pipeline(StandardScaler(), CLASSES[IDS.index("HerdedMeanClassifier")](random_state=0))
    assert 1 - _quiet_fit(est, X, y).score(X, y) >= 1 - counts.max() / counts.sum()


@pytest.mark.parametrize("dataset", list_datasets())
def test_defaults_learn_on_every_dataset(dataset):
    """Each estimator with default parameters beats the majority rule on the training data of every bundled dataset
    (up to 400 rows drawn with a fixed seed). A baseline that degenerates to a constant makes every comparison wrong."""
    X, y = _subsample(*load_dataset(dataset, return_X_y=True, missing="impute"))
    _, counts = np.unique(y, return_counts=True)
    majority_error = 1 - counts.max() / counts.sum()
    bad = []
    for cls in CLASSES:
        est = cls(random_state=0) if "random_state" in _init_params(cls) else cls()
        est.set_params(**_CANNOT_WITH_DEFAULTS.get((cls.__name__, dataset), ({}, ""))[0])
        if cls.__name__ in _SCALE_FIRST: est = make_pipeline(StandardScaler(), est)
        err = 1 - _quiet_fit(est, X, y).score(X, y)
        if not err < majority_error: bad.append(f"{cls.__name__}: training error {err:.3f} ≥ majority {majority_error:.3f}")
    assert not bad, f"{dataset}: " + "; ".join(bad)


def _default_instances():
    for cls in CLASSES:
        yield cls(random_state=0) if "random_state" in _init_params(cls) else cls()


_BOOTSTRAP = ("draws bootstrap resamples with the sample weights as probabilities, so a weight is not the same as a "
              "repetition; scikit-learn x-fails this check for its own bagging ensembles (RandomForestClassifier) too")
# Strict (below): a declared failure that starts passing fails the run, so a declaration cannot outlive its reason.
# RMBoostClassifier(**PAPER_SETTINGS), with its bootstrap draws, passes this check on its data (15 rows, 30 random
# features): tests/test_rmboost.py runs the estimator checks on it.
_XFAIL_WITH_DEFAULTS = {
    "RobustForestClassifier": {"check_sample_weight_equivalence_on_dense_data": f"bootstrap=True (the default) {_BOOTSTRAP}"},
    "RMBoostClassifier": {"check_sample_weight_equivalence_on_dense_data": "resample=False (the default): the tree learner "
                          "breaks ties between equal-gain splits on round-off, which differs between a weight and repeated "
                          "rows (as RMBoostClassifier(resample=False) in tests/test_rmboost.py)"},
    "CVStopping": {"check_fit2d_1feature": "cv=5 (the default) stratified folds need 5 rows of each class; the check's 10 "
                   "rows hold 3 of one, and the error says so (CVStopping(cv=2) passes every check in "
                   "tests/test_experiments_paper_protocols.py)"},
}


def _expected_failures(est) -> dict:
    return dict(_XFAIL_WITH_DEFAULTS.get(type(est).__name__, {}))


@parametrize_with_checks(list(_default_instances()), expected_failed_checks=_expected_failures, xfail_strict=True)
def test_sklearn_checks_with_default_parameters(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(estimator)


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_mixed_label_types_are_named(cls):
    "Labels mixing strings and numbers cannot be sorted into classes_: every estimator says so (not numpy's '<' error)."
    X, _ = _data(n=20)
    with pytest.raises(ValueError, match="mixes label types"):
        cls().fit(X, np.array(["a", 1] * 10, dtype=object))


def test_a_gaussian_bandwidth_too_small_to_square_is_refused():
    "h = 5e-324 passes h > 0, but 2h² underflows to 0 (a ZeroDivisionError deep in fit before this check)."
    from robust_ref.mean_classifier import MeanClassifier, RecursiveHerdingClassifier
    X, y = _data()
    for est in (MeanClassifier(bandwidth=5e-324), RecursiveHerdingClassifier(bandwidth=1e-160)):
        with pytest.raises(ValueError, match="bandwidth=.* is too small"): est.fit(X, y)
    assert np.all(np.isfinite(MeanClassifier(bandwidth=1e-150).fit(X, y).decision_function(X)))
