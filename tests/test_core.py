"""robust_ref.core: label round trips (hypothesis), validation errors, seeded randomness, stable math."""
import pickle

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from robust_ref.core import (BinaryClassifier, as_generator, check_features, check_sample_weight, decode_labels,
                             derive_seed, encode_binary_labels, log1pexp, log_sigmoid, logsumexp, sigmoid, spawn_seeds)

label_pairs = st.one_of(
    st.lists(st.integers(-10**6, 10**6), min_size=2, max_size=2, unique=True),
    st.lists(st.text(min_size=1, max_size=5), min_size=2, max_size=2, unique=True),
    st.lists(st.floats(-1e9, 1e9, allow_nan=False), min_size=2, max_size=2, unique=True),
)


@given(pair=label_pairs, picks=st.lists(st.booleans(), min_size=2, max_size=60))
def test_encode_decode_round_trip(pair, picks):
    picks = picks + [True, False]  # both classes present
    y = np.array([pair[int(p)] for p in picks])
    y_pm, classes = encode_binary_labels(y)
    assert set(np.unique(y_pm)) == {-1.0, 1.0}
    assert list(classes) == sorted(set(y.tolist()))            # sorted, like np.unique / sklearn
    assert np.array_equal(decode_labels(y_pm, classes), y)
    assert np.array_equal(y_pm == 1, y == classes[1])           # the second class is the positive one


@pytest.mark.parametrize("y, match", [
    ([1, 1, 1], "single class"), ([0, 1, 2], "Only binary"), ([0., np.nan, 1.], "NaN"),
    ([], "empty"), ([[0, 1], [1, 0]], "1-D"), (np.array([0, None, 1], dtype=object), "None"),
])
def test_encode_bad_labels(y, match):
    with pytest.raises(ValueError, match=match): encode_binary_labels(y)


def test_encode_unknown_label_with_given_classes():
    with pytest.raises(ValueError, match="not among"): encode_binary_labels([0, 1, 7], classes=[0, 1])


@pytest.mark.parametrize("w, n, match", [
    ([1, -1, 2], 3, "negative"), ([1, 2], 3, "one weight per sample"), ([0, 0], 2, "all weights are zero"),
    ([1, np.nan], 2, "NaN"), ([[1, 2]], 2, "one weight per sample"),
])
def test_sample_weight_errors(w, n, match):
    with pytest.raises(ValueError, match=match): check_sample_weight(w, n)


def test_sample_weight_defaults_and_normalisation():
    assert np.array_equal(check_sample_weight(None, 3), np.ones(3))
    assert np.array_equal(check_sample_weight(2.0, 2), [2.0, 2.0])
    np.testing.assert_allclose(check_sample_weight([1, 3], 2, normalize=True), [0.25, 0.75])


@pytest.mark.parametrize("X, match", [([[1.0, np.nan]], "NaN"), ([[1.0, np.inf]], "infinity"),
                                      (np.zeros((0, 3)), "0 sample"), ([1.0, 2.0], "2D")])
def test_check_features_errors(X, match):
    with pytest.raises(ValueError, match=match): check_features(X)


def test_generators_are_seeded_and_never_touch_global_state():
    before = np.random.get_state()[1].copy()
    assert np.array_equal(as_generator(5).random(4), as_generator(5).random(4))
    assert not np.array_equal(as_generator(5).random(4), as_generator(6).random(4))
    assert spawn_seeds(1, 3) == spawn_seeds(1, 3) and len(set(spawn_seeds(1, 50))) == 50
    assert np.array_equal(np.random.get_state()[1], before)
    with pytest.raises(TypeError, match="RandomState"): as_generator(np.random.RandomState(0))
    with pytest.raises(TypeError, match="random_state must be"): as_generator("seed")
    with pytest.raises(ValueError, match="non-negative"): as_generator(-1)


@given(st.lists(st.one_of(st.integers(), st.text(max_size=8), st.floats(allow_nan=False)), max_size=5))
def test_derive_seed_is_a_function_of_the_key(key):
    s = derive_seed(*key)
    assert s == derive_seed(*key) and 0 <= s < 2**63
    assert derive_seed(*key, "extra") != s


@settings(max_examples=300)
@given(st.floats(-1e6, 1e6, allow_nan=False))
def test_stable_primitives_match_independent_forms(v):
    # independent references: Python's math on the branch where each textbook formula is exact
    import math
    ref = v + math.log1p(math.exp(-v)) if v > 0 else math.log1p(math.exp(v))
    assert log1pexp(v) == pytest.approx(ref, rel=1e-15, abs=1e-300)  # same formula on each branch: ulp-level
    s = 1 / (1 + math.exp(-v)) if v > -700 else 0.0
    assert sigmoid(v) == pytest.approx(s, rel=1e-14, abs=1e-300)
    assert log_sigmoid(v) == pytest.approx(-log1pexp(-v), rel=1e-15)


def test_primitives_at_the_extremes():
    with np.errstate(over="raise", invalid="raise"):
        assert log1pexp(1e6) == 1e6 and log1pexp(-1e6) == 0.0
        assert sigmoid(1e6) == 1.0 and sigmoid(-1e6) == 0.0 and log_sigmoid(-1e6) == -1e6
    assert logsumexp(np.array([1e6, 1e6])) == pytest.approx(1e6 + np.log(2), rel=1e-15)


class _MeanDiff(BinaryClassifier):
    "Smallest useful subclass: score = <x, weighted mean difference>."
    def __init__(self, shift=0.0): self.shift = shift
    def _fit(self, X, y_pm, w): self.coef_ = (w * y_pm) @ X / w.sum()
    def _decision(self, X): return X @ self.coef_ + self.shift


@parametrize_with_checks([_MeanDiff()])
def test_base_passes_sklearn_checks(estimator, check):
    check(estimator)


def test_base_pickles_and_clones():
    X = np.array([[0., 1.], [1., 0.], [0., -1.], [-1., 0.]]); y = ["b", "a", "a", "b"]
    clf = _MeanDiff().fit(X, y)
    again = pickle.loads(pickle.dumps(clf))
    assert np.array_equal(again.decision_function(X), clf.decision_function(X))
    assert clone(clf).get_params() == {"shift": 0.0}


# --- declared parameter constraints (validate_params) ------------------------------------------------------------
from sklearn.base import BaseEstimator
from sklearn.tree import DecisionTreeClassifier

from robust_ref.core import HasMethods, Interval, InvalidParameterError, Options, check_label_types, validate_params


class _Declared(BaseEstimator):
    _parameter_constraints = {"n": [Interval("int", 1, None, closed="left")],
                              "rate": [Interval("real", 0, 1, closed="right")],
                              "scale": [Interval("real", 0, np.inf, closed="neither"), None],
                              "mode": [Options({"a", "b"}), HasMethods("fit", "predict")],
                              "depth": [Interval("int", 1, None, closed="left"), None],
                              "flag": ["boolean"], "seed": ["random_state"], "fn": [callable, None]}
    _parameter_inert = {"depth": ("mode", {"b"})}

    def __init__(self, n=3, rate=0.5, scale=None, mode="a", depth=None, flag=False, seed=None, fn=None):
        self.n, self.rate, self.scale, self.mode, self.depth, self.flag, self.seed, self.fn = (
            n, rate, scale, mode, depth, flag, seed, fn)


@pytest.mark.parametrize("params", [
    {}, dict(n=np.int32(7)), dict(rate=1), dict(rate=np.float32(0.25)), dict(scale=1e300),
    dict(mode=DecisionTreeClassifier()), dict(mode="b", depth=4), dict(flag=np.True_),
    dict(seed=0), dict(seed=np.random.default_rng(1)), dict(seed=np.random.SeedSequence(2)), dict(fn=len)])
def test_validate_params_accepts(params):
    validate_params(_Declared(**params))


@pytest.mark.parametrize("params, name", [
    (dict(n=0), "'n'"), (dict(n=2.0), "'n'"), (dict(n=True), "'n'"), (dict(n="3"), "'n'"),
    (dict(rate=0), "'rate'"), (dict(rate=1.0000001), "'rate'"), (dict(rate=float("nan")), "'rate'"),
    (dict(scale=np.inf), "'scale'"), (dict(scale=0.0), "'scale'"), (dict(mode="c"), "'mode'"),
    (dict(mode=DecisionTreeClassifier), "not the class"), (dict(flag="no"), "'flag'"), (dict(flag=1), "'flag'"),
    (dict(seed=-1), "'seed'"), (dict(seed=0.5), "'seed'"), (dict(seed=np.random.RandomState(0)), "'seed'"),
    (dict(fn=3), "'fn'"), (dict(fn=int), "'fn'"), (dict(depth=0, mode="b"), "'depth'"),
    (dict(depth=3), "depth=3 has no effect unless mode is one of {'b'}")])
def test_validate_params_rejects_naming_the_parameter(params, name):
    with pytest.raises(InvalidParameterError, match=name.replace("(", r"\(").replace("{", r"\{")) as e:
        validate_params(_Declared(**params))
    assert isinstance(e.value, ValueError) and isinstance(e.value, TypeError)
    assert repr(list(params.values())[0])[:12] in str(e.value) or "no effect" in str(e.value)


def test_interval_bounds_and_infinity():
    assert np.inf not in Interval("real", 0, None) and np.inf in Interval("real", 0, np.inf)
    assert np.inf not in Interval("real", 0, np.inf, closed="left") and -np.inf not in Interval("real", None, 0)
    assert 10**400 in Interval("int", 0, None)                  # huge Python ints are ints, not overflow errors
    with pytest.raises(ValueError, match="kind"): Interval("float", 0, 1)
    with pytest.raises(ValueError, match="exceeds"): Interval("real", 2, 1)
    with pytest.raises(ValueError, match="closed"): Interval("real", 0, 1, closed="open")


def test_declaration_errors_are_caught():
    class Bad(_Declared): _parameter_constraints = {"nope": [None]}
    with pytest.raises(ValueError, match="unknown parameter 'nope'"): validate_params(Bad())
    class Bad2(_Declared): _parameter_constraints = {"n": ["boolish"]}
    with pytest.raises(ValueError, match="unknown parameter constraint"): validate_params(Bad2())


def test_binary_classifier_validates_params_before_data():
    class Clf(BinaryClassifier):
        _parameter_constraints = {"k": [Interval("int", 1, None, closed="left")]}
        def __init__(self, k=1): self.k = k
        def _fit(self, X, y, w): self.w_ = 0
        def _decision(self, X): return np.zeros(len(X))
    X = np.zeros((4, 1))
    Clf().fit(X, [0, 1, 0, 1])
    with pytest.raises(ValueError, match="'k' parameter"): Clf(k=0).fit(X, [0, 1, 0, 1])
    with pytest.raises(ValueError, match="'k' parameter"): Clf(k=0).fit(X[:0], [])   # parameters first


@pytest.mark.parametrize("y", [np.array(["a", 1, "a", 1], dtype=object), ["a", 1, "a", 1], [b"x", 2.0, b"x", 2.0]])
def test_mixed_label_types_are_named(y):
    with pytest.raises(ValueError, match="mixes label types"): check_label_types(y)
    with pytest.raises(ValueError, match="mixes label types"): encode_binary_labels(y)


def test_base_class_fit_names_what_to_implement():
    with pytest.raises(NotImplementedError, match="implement _fit"): BinaryClassifier().fit(np.zeros((4, 1)), [0, 1, 0, 1])


def test_class_hint_only_when_an_instance_would_do():
    class NeedsPrepare(_Declared):
        _parameter_constraints = {**_Declared._parameter_constraints, "mode": [Options({"a"}), HasMethods("prepare")]}
    with pytest.raises(InvalidParameterError) as e:
        validate_params(NeedsPrepare(mode=DecisionTreeClassifier))
    assert "not the class" not in str(e.value) and "prepare" in str(e.value)


def test_tiny_scale_features_are_found_and_named():
    "Issue 36: non-constant columns whose spread's square underflows are reported (constant ones are not), once, by name."
    import warnings
    from robust_ref.core import FeatureScaleWarning, TINY_SPREAD, tiny_scale_features, warn_tiny_scale_features
    X = np.c_[np.arange(5.0), np.arange(5.0) * 1e-300, np.full(5, 1e-300), np.arange(5.0) * 1e-150,
              [-1e308, 1e308, 0, 0, 0], np.arange(5.0) * TINY_SPREAD / 8]
    assert list(tiny_scale_features(X)) == [1, 5]            # ±1e308 spreads overflow to inf: not tiny
    with pytest.warns(FeatureScaleWarning, match=r"^Est: features 1, 5 of X vary by less than 1.5e-154.*StandardScaler\(\), Est\(\)"):
        warn_tiny_scale_features(X, "Est", "it cannot see them")
    with pytest.warns(FeatureScaleWarning, match=r"feature 0 \(every feature\) of X varies"):
        warn_tiny_scale_features(X[:, [1]], "Est", "x")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert warn_tiny_scale_features(X[:, [0, 2, 3]], "Est", "x").size == 0
