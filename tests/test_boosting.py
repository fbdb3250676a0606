"""The boosting engine of robust_ref.boosting: AdaBoost reproduces scikit-learn's SAMME with depth-1 trees,
the step rules do what they claim, staged outputs, early stopping, the strategy/learner protocol, bad inputs."""
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize_scalar
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import AdaBoostClassifier as SkAdaBoost
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

from robust_ref.baselines import AdaBoostClassifier
from robust_ref.boosting import (BoostingStrategy, GradientBoost, MarginBoostClassifier, NewtonBoost,
                                 line_search)
from robust_ref.learners import ConstantRule, Stump
from robust_ref.losses import LOSSES, get_loss

DATA = Path(__file__).resolve().parent.parent / "robust_ref" / "data"


def load(name):
    if name == "breast_cancer":
        X, y = load_breast_cancer(return_X_y=True)
    else:
        d = pd.read_csv(DATA / f"{name}.csv")
        X, y = d.drop(columns="label").to_numpy(float), d["label"].to_numpy()
    # scikit-learn's trees compare features in float32: give both implementations the same numbers
    return X.astype(np.float32).astype(np.float64), y


@pytest.mark.parametrize("name", ["breast_cancer", "banknote", "diabetes", "ionosphere", "sonar"])
@pytest.mark.parametrize("sk_seed", [0, 1])
def test_adaboost_reproduces_sklearn_samme(name, sk_seed):
    """Exact stump with criterion='gini' ≡ sklearn AdaBoostClassifier(DecisionTreeClassifier(max_depth=1)).

    sklearn's binary SAMME decision_function is 2·Σα_m h_m / Σα_m with α_m = log((1−ε)/ε) = 2·(our step),
    i.e. 2F/Σ(our steps). sklearn visits features in a random order (random_state) and keeps the first best split;
    we keep the lowest feature index. The two differ only on exact cross-feature ties, which do not occur on
    these data: two different sklearn seeds give the same ensemble as ours.
    """
    X, y = load(name)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    M = 100
    ours = AdaBoostClassifier(n_estimators=M, criterion="gini").fit(Xtr, ytr)
    sk = SkAdaBoost(DecisionTreeClassifier(max_depth=1), n_estimators=M, random_state=sk_seed).fit(Xtr, ytr)
    assert ours.n_estimators_ == len(sk.estimators_)
    assert np.allclose(2 * ours.estimator_weights_, sk.estimator_weights_[:ours.n_estimators_], rtol=1e-10, atol=0)
    for Z in (Xtr, Xte):
        ours_scaled = 2 * ours.decision_function(Z) / ours.estimator_weights_.sum()
        assert np.max(np.abs(ours_scaled - sk.decision_function(Z))) <= 1e-8
        assert np.array_equal(ours.predict(Z), sk.predict(Z))
    for rule, tree in zip(ours.estimators_, sk.estimators_):      # same split, round by round
        if isinstance(rule, Stump):
            assert (rule.feature, rule.threshold) == (tree.tree_.feature[0], tree.tree_.threshold[0])
        else:                                                      # a split whose leaves vote the same class
            assert isinstance(rule, ConstantRule) and len(np.unique(tree.predict(Xtr))) == 1


def test_adaboost_error_criterion_is_least_weighted_error_and_differs_from_gini():
    X, y = load("diabetes")
    err = AdaBoostClassifier(n_estimators=40).fit(X, y)
    gini = AdaBoostClassifier(n_estimators=40, criterion="gini").fit(X, y)
    assert np.all(err.estimator_errors_ < 0.5)
    assert err.estimators_ != gini.estimators_                    # the criteria do pick different splits
    # round 1 (uniform weights): the error stump's weighted error is ≤ the Gini stump's
    assert err.estimator_errors_[0] <= gini.estimator_errors_[0] + 1e-15


def test_closed_form_step_is_the_exact_line_search_for_exponential_loss():
    X, y = load("breast_cancer")
    a = MarginBoostClassifier(n_estimators=25).fit(X, y)
    b = MarginBoostClassifier(n_estimators=25, step="line_search").fit(X, y)
    c = MarginBoostClassifier(n_estimators=25, step="newton").fit(X, y)
    assert a.estimators_ == b.estimators_
    assert np.allclose(a.estimator_weights_, b.estimator_weights_, atol=1e-6)   # Brent's xatol ≪ 1e-6
    assert c.estimator_weights_[0] > 0 and c.n_estimators_ == 25


def test_line_search_steps_minimise_the_risk_along_the_rule():
    X, y = load("ionosphere")
    clf = MarginBoostClassifier(loss="logistic", step="line_search", n_estimators=10).fit(X, y)
    ypm = np.where(y == clf.classes_[1], 1.0, -1.0)
    loss = get_loss("logistic")
    F = np.zeros(len(y))
    for a, h in zip(clf.estimator_weights_, clf.estimators_):
        hv = h(X)
        risk = lambda t: float(np.mean(loss(ypm * (F + t * hv))))
        ref = minimize_scalar(risk, bounds=(0, 50), method="bounded", options={"xatol": 1e-12}).x  # independent scipy
        assert risk(a) <= risk(ref) + 1e-12
        F += a * hv
    assert np.all(np.diff(clf.train_risk_) <= 1e-15)


def test_line_search_is_global_and_never_worse_than_zero():
    f = lambda a: np.cos(3 * a) + 0.1 * a          # several local minima on [0, 10]
    a = line_search(f, alpha_max=10)
    grid = np.linspace(0, 10, 100001)
    assert f(a) <= f(grid).min() + 1e-6
    assert line_search(lambda a: a ** 2, 5.0) == 0.0  # increasing: stay at 0


def test_adaboost_weights_give_previous_rule_error_one_half():
    X, y = load("sonar")
    clf = MarginBoostClassifier(n_estimators=10).fit(X, y)
    ypm = np.where(y == clf.classes_[1], 1.0, -1.0)
    s = GradientBoost("exponential"); s.start(ypm, np.full(len(y), 1 / len(y)))
    F = np.zeros(len(y))
    for a, h in zip(clf.estimator_weights_, clf.estimators_):
        F += a * h(X)
        w = s.weights(F)
        assert abs(w @ (h(X) != ypm) - 0.5) < 1e-12


def test_staged_outputs():
    X, y = load("banknote")
    for clf in (MarginBoostClassifier(n_estimators=15), MarginBoostClassifier(kind="newton", n_estimators=15),
                MarginBoostClassifier(weak_kind="logit", step=1.0, n_estimators=15)):
        clf.fit(X, y)
        st = list(clf.staged_decision_function(X))
        assert len(st) == clf.n_estimators_
        assert np.allclose(st[-1], clf.decision_function(X), rtol=0, atol=1e-12)
        assert np.array_equal(list(clf.staged_predict(X))[-1], clf.predict(X))
        P = clf.predict_proba(X)
        assert np.allclose(P.sum(axis=1), 1) and np.array_equal(clf.classes_[P.argmax(axis=1)], clf.predict(X))


def test_early_stop_on_perfect_rule_matches_sklearn():
    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0]]); y = np.array([0, 0, 1, 1, 1])
    ours = AdaBoostClassifier(n_estimators=10, criterion="gini").fit(X, y)
    sk = SkAdaBoost(DecisionTreeClassifier(max_depth=1), n_estimators=10).fit(X, y)
    assert ours.n_estimators_ == len(sk.estimators_) == 1 and ours.stop_reason_ == "perfect"
    assert 2 * ours.estimator_weights_[0] == sk.estimator_weights_[0] == 1.0     # sklearn's convention
    assert np.array_equal(ours.predict(X), y)


class _ScriptedLearner:
    "A learner protocol object returning pre-set rules (to force ε ≥ ½ at a chosen round)."
    def __init__(self, rules): self.rules = rules
    def prepare(self, X, random_state=None):
        rules = iter(self.rules)
        class Bound:
            def fit_sign(self, y, w): return next(rules)
        return Bound()


def test_early_stop_when_no_better_than_chance():
    X = np.arange(8.0)[:, None]; y = np.array([0, 0, 0, 1, 0, 1, 1, 1])
    good, bad = Stump(0, 3.5, 1), Stump(0, 3.5, -1)        # `bad` is `good` negated: ε > ½
    clf = MarginBoostClassifier(n_estimators=5, base_learner=_ScriptedLearner([good, bad])).fit(X, y)
    assert clf.n_estimators_ == 1 and clf.stop_reason_ == "useless" and clf.estimators_ == [good]
    with pytest.warns(UserWarning, match="empty"):
        empty = MarginBoostClassifier(n_estimators=5, base_learner=_ScriptedLearner([bad])).fit(X, y)
    assert empty.n_estimators_ == 0 and np.all(empty.decision_function(X) == 0)
    with pytest.warns(UserWarning, match="empty"):                # constant features: no stump has an edge
        assert MarginBoostClassifier().fit(np.ones((6, 2)), [0, 1] * 3).n_estimators_ == 0


def test_newton_working_response_and_weights_match_fht():
    rng = np.random.default_rng(0)
    y = np.where(rng.random(50) < 0.5, -1.0, 1.0); F = rng.normal(scale=3, size=50)
    s = NewtonBoost("logistic", scale=2.0, z_max=4.0); s.start(y, np.full(50, 0.02))
    p = 1 / (1 + np.exp(-2 * F)); ystar = (y + 1) / 2
    assert np.allclose(s.working_response(F), np.clip((ystar - p) / (p * (1 - p)), -4, 4), rtol=1e-12)
    assert np.allclose(s.weights(F), p * (1 - p) / np.sum(p * (1 - p)), rtol=1e-10)
    g = NewtonBoost("exponential"); g.start(y, np.full(50, 0.02))
    assert np.array_equal(g.working_response(F), y)
    assert np.allclose(g.weights(F), np.exp(-y * F) / np.exp(-y * F).sum(), rtol=1e-12)


def test_weights_are_stable_for_huge_margins():
    y = np.array([1.0, -1.0, 1.0]); F = np.array([1e6, 1e6, -800.0])
    for s in (GradientBoost("exponential"), NewtonBoost("exponential"), NewtonBoost("logistic", 2.0, 4.0)):
        s.start(y, np.full(3, 1 / 3))
        w = s.weights(F)
        assert np.all(np.isfinite(w)) and abs(w.sum() - 1) < 1e-12
    s = NewtonBoost("logistic", 2.0, 4.0); s.start(y, np.full(3, 1 / 3))
    assert np.all(np.isfinite(s.working_response(F)))


def test_sample_weight_zero_equals_removal_and_integer_weights_equal_repetition():
    X, y = load("sonar")
    w = np.ones(len(y)); w[:20] = 0
    a = MarginBoostClassifier(n_estimators=20).fit(X, y, sample_weight=w)
    b = MarginBoostClassifier(n_estimators=20).fit(X[20:], y[20:])
    assert a.estimators_ == b.estimators_ and np.allclose(a.estimator_weights_, b.estimator_weights_)
    w2 = np.ones(len(y)); w2[:10] = 2
    c = MarginBoostClassifier(n_estimators=20).fit(X, y, sample_weight=w2)
    d = MarginBoostClassifier(n_estimators=20).fit(np.r_[X, X[:10]], np.r_[y, y[:10]])
    assert c.estimators_ == d.estimators_ and np.allclose(c.estimator_weights_, d.estimator_weights_, rtol=1e-10)


def test_strategy_protocol_is_extensible():
    "A later chapter's strategy (here: AdaBoost with a fixed step) plugs into the engine unchanged."
    class FixedStep(BoostingStrategy):
        def weights(self, F): w = self.w0 * np.exp(-self.y * F); return w / w.sum()
        def step(self, F, w, h): return 0.1 * self.lr, "ok"
    from robust_ref.boosting import BoostingClassifier
    class Fixed(BoostingClassifier):
        def __init__(self, n_estimators=5, learning_rate=1.0): self.n_estimators, self.learning_rate = n_estimators, learning_rate
        def _make_strategy(self): return FixedStep()
    X, y = load("banknote")
    clf = Fixed().fit(X, y)
    assert clf.n_estimators_ == 5 and np.all(clf.estimator_weights_ == 0.1)


def test_bad_parameters():
    X, y = load("haberman")
    for kw, match in [(dict(n_estimators=0), "n_estimators"), (dict(n_estimators=1.5), "n_estimators"),
                      (dict(learning_rate=0), "learning_rate"), (dict(learning_rate=np.nan), "learning_rate"),
                      (dict(step="wolfe"), "step"), (dict(step=-1.0), "step"), (dict(kind="adam"), "kind"),
                      (dict(weak_kind="tree"), "weak_kind"), (dict(weak_kind="logit"), "closed-form"),
                      (dict(loss="nope"), "unknown loss")]:
        with pytest.raises(ValueError, match=match):
            MarginBoostClassifier(**kw).fit(X, y)
    with pytest.raises(ValueError, match="scale"): NewtonBoost(scale=0)
    with pytest.raises(ValueError, match="z_max"): NewtonBoost(z_max=-1)


# --- (loss, kind) pairs: every zoo loss either boosts or is refused at fit start (issue 18) ---------------------
# The expected verdicts are written from the losses' shapes, not computed by the code under test:
# gradient boosting needs weights −φ' ≥ 0 and not all 0; Newton boosting needs φ'' ≥ 0 and φ'' > 0 where φ' ≠ 0.
GRADIENT_REFUSED = {"squared": "not monotone", "zero_one": "no descent direction"}
NEWTON_REFUSED = {**{k: "φ''\\(v\\) < 0" for k in ("sigmoid", "savage", "alpha", "gamma_robust", "two_robust")},
                  **{k: "infinite" for k in ("hinge", "unhinged", "ramp", "truncated_hinge")},
                  "zero_one": "no curvature"}
GRADIENT_STEPS = [("sign", "closed_form"), ("sign", "line_search"), ("sign", "newton"), ("sign", 0.1),
                  ("logit", "line_search")]
ZOO = sorted(LOSSES)


def test_zoo_is_the_sixteen_losses():
    assert len(ZOO) == 16 and set(GRADIENT_REFUSED) | set(NEWTON_REFUSED) <= set(ZOO)


@pytest.mark.parametrize("loss", ZOO)
def test_every_loss_and_step_pair_fits_or_is_refused_at_start(loss):
    X, y = load("diabetes")
    majority = max(np.mean(y == c) for c in np.unique(y))
    configs = [dict(kind="gradient", weak_kind=wk, step=st) for wk, st in GRADIENT_STEPS] + [dict(kind="newton")]
    for cfg in configs:
        clf = MarginBoostClassifier(loss=loss, n_estimators=15, **cfg)
        refused = (GRADIENT_REFUSED if cfg["kind"] == "gradient" else NEWTON_REFUSED).get(loss)
        if refused:
            with pytest.raises(ValueError, match=rf"\(loss='{loss}', kind='{cfg['kind']}'\) is not supported: .*{refused}"):
                clf.fit(X, y)
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("error")          # no overflow/invalid RuntimeWarning either
            clf.fit(X, y)
        F = clf.decision_function(X)
        assert np.all(np.isfinite(F)) and clf.n_estimators_ >= 1, (loss, cfg)
        assert clf.score(X, y) > majority, (loss, cfg, clf.score(X, y))   # learns something


def test_convex_alpha_loss_is_newton_boostable():
    from robust_ref.losses import AlphaLoss
    X, y = load("haberman")
    clf = MarginBoostClassifier(loss=AlphaLoss(0.7), kind="newton", n_estimators=10).fit(X, y)
    assert clf.n_estimators_ == 10 and np.all(np.isfinite(clf.decision_function(X)))
    with pytest.raises(ValueError, match="not convex"):
        MarginBoostClassifier(loss=AlphaLoss(1.5), kind="newton").fit(X, y)


def test_flat_loss_stops_at_a_stationary_point():
    "Ramp loss, constant step 3: after one round every margin is ±3, outside [−1, 1): all weights 0 → stop."
    X, y = np.arange(6.0)[:, None], np.array([0, 0, 1, 0, 1, 1])
    clf = MarginBoostClassifier(loss="ramp", step=3.0, n_estimators=10).fit(X, y)
    assert clf.n_estimators_ == 1 and clf.stop_reason_ == "stationary"
    s = GradientBoost("ramp"); yy = np.array([-1., 1.]); s.start(yy, np.array([.5, .5]))
    assert s.weights(3 * yy) is None and np.allclose(s.weights(0 * yy), [.5, .5])


# --- declared parameters: every bad value is refused at fit start, naming the parameter (issue 18) -------------
from sklearn.tree import DecisionTreeClassifier as _SkTree  # noqa: E402

from robust_ref.alpha_loss import AdaBoostAlpha, AlphaLogisticRegression  # noqa: E402
from robust_ref.archboost import ARBGamma, ArchBoostClassifier  # noqa: E402
from robust_ref.baselines import GentleBoostClassifier, LogitBoostClassifier, RealAdaBoostClassifier  # noqa: E402
from robust_ref.brownboost import BrownBoostClassifier, RobustBoostClassifier  # noqa: E402
from robust_ref.mean_classifier import HerdedMeanClassifier, MeanClassifier  # noqa: E402

_ENGINE_BAD = {"n_estimators": [0, -5, 1.5, "10", True, None],
               "learning_rate": [0, -1.0, np.nan, np.inf, "1", None],
               "base_learner": ["forest", _SkTree, _SkTree(), None],
               "random_state": [-1, 1.5, "x"]}
_TREE_BAD = {"max_depth": [0, 1.5, "3"], "max_leaf_nodes": [1, 2.5]}          # with base_learner='tree'
_INERT = [("max_depth", 3), ("max_depth", None), ("max_leaf_nodes", 11)]       # with the default stumps
_OWN_BAD = {
    AdaBoostClassifier: {"criterion": ["bogus", 1]},
    RealAdaBoostClassifier: {"proba_clip": [0, 1, -0.1, np.nan, "1e-4"]},
    LogitBoostClassifier: {"z_max": [0, -1, np.nan, "4"]},
    GentleBoostClassifier: {},
    MarginBoostClassifier: {"loss": [3, None], "kind": ["adam", None], "weak_kind": ["tree"], "step": ["wolfe", -1.0, 0, np.inf]},
    BrownBoostClassifier: {"c": [0, -1, np.nan, np.inf, "2"], "criterion": ["bogus"]},
    RobustBoostClassifier: {"error_goal": [0, 0.5, 0.7, np.nan, "0.1"], "theta": [-0.1, 1, np.nan], "sigma": [0, -1, np.inf]},
    AdaBoostAlpha: {"alpha": [0, -1, np.nan, "inf", True], "step": ["wolfe", -1.0], "stop_on_perfect": ["no", 1],
                    "proba_link": ["probit"]},
    ArchBoostClassifier: {"loss": [3], "step": [0, -0.5, "auto", "wolfe"], "exact_h": ["no", 1, "yes"],
                          "schedule_power": [0, 1.5, np.nan], "proba_clip": [0, 1]},
    ARBGamma: {"gamma": [1, 0.5, 1024, np.inf, "2"], "step": [0, "wolfe"], "exact_h": ["no", 0]},
}
_OWN_INERT = {MarginBoostClassifier: [(dict(kind="newton", step=0.1), "step", "kind"),
                                      (dict(kind="newton", weak_kind="logit"), "weak_kind", "kind")],
              ArchBoostClassifier: [(dict(schedule_power=0.8), "schedule_power", "step")],
              ARBGamma: [(dict(schedule_power=0.8), "schedule_power", "step")]}
_OTHER_BAD = {   # estimators outside the engine
    AlphaLogisticRegression: {"alpha": [0, "inf"], "C": [0, -1, np.nan, "1"], "penalty": ["l1"],
                              "fit_intercept": ["no", 1], "solver": ["sgd"], "max_iter": [0, 2.5, True],
                              "tol": [0, -1e-3, np.inf], "init": ["ones"], "proba_link": ["probit"],
                              "random_state": [-1]},
    MeanClassifier: {"kernel": [3, None], "bandwidth": [0, -1, np.nan, "1"], "variant": ["median"],
                     "normalize": ["no", 1], "tie": ["half"], "kernel_params": [[1, 2]]},
    HerdedMeanClassifier: {"eps": [0, -0.1, np.nan, "0.05"], "method": ["greedy", None], "normalize": ["yes"],
                           "random_state": [-2], "group_size": [0], "max_points": [0, 2.5], "tie": [0]},
}
_OTHER_INERT = {AlphaLogisticRegression: [(dict(lr=0.5), "lr", "solver")],
                MeanClassifier: [(dict(kernel="linear", bandwidth=2.0), "bandwidth", "kernel"),
                                 (dict(degree=2), "degree", "kernel"), (dict(rate_pos=0.1, rate_neg=0.1), "rate_pos", "variant")],
                HerdedMeanClassifier: [(dict(group_size=50), "group_size", "method"),
                                       (dict(method="parallel", max_points=5), "max_points", "method")]}


def _bad_cases():
    for cls, own in _OWN_BAD.items():
        params = cls().get_params()
        for name, values in {**_ENGINE_BAD, **own}.items():
            if name in params:
                for v in values: yield cls, {name: v}, (name,)
        for name, values in _TREE_BAD.items():
            for v in values: yield cls, {"base_learner": "tree", name: v}, (name,)
        for name, v in _INERT: yield cls, {name: v}, (name, "base_learner")
        for kw, name, gov in _OWN_INERT.get(cls, []): yield cls, kw, (name, gov)
    for cls, own in _OTHER_BAD.items():
        for name, values in own.items():
            for v in values: yield cls, {name: v}, (name,)
        for kw, name, gov in _OTHER_INERT.get(cls, []): yield cls, kw, (name, gov)


BAD_CASES = list(_bad_cases())


def test_bad_input_case_count_by_estimator():
    "The report's numbers: bad-input cases per estimator (each is one `fit` that must raise)."
    counts = pd.Series([c.__name__ for c, _, _ in BAD_CASES]).value_counts()
    print(counts.to_string())
    assert len(counts) == 13 and counts.min() >= 10


@pytest.mark.parametrize("cls,kw,names", BAD_CASES, ids=[f"{c.__name__}-{k}" for c, k, _ in BAD_CASES])
def test_declared_parameters_refuse_bad_values(cls, kw, names):
    X, y = np.array([[0.0], [1.0], [2.0], [3.0]]), np.array([0, 0, 1, 1])
    with pytest.raises((ValueError, TypeError)) as err:
        cls(**kw).fit(X, y)
    msg = str(err.value)
    for name in names:
        assert name in msg, (kw, msg)


def test_fitting_the_engine_itself_says_what_to_fit():
    from robust_ref.boosting import BoostingClassifier
    X, y = np.random.default_rng(0).normal(size=(30, 2)), np.r_[np.zeros(15, int), np.ones(15, int)]
    with pytest.raises(TypeError, match="BoostingClassifier is the boosting engine, not a classifier: fit one built on it"):
        BoostingClassifier().fit(X, y)
