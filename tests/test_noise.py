"""robust_ref.noise: exact counts, mask consistency, determinism, per-class rates (hypothesis), statistics of the
i.i.d. modes against binomial standard errors, Appendix J against an independent loop, and every bad input."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import stats
from sklearn.linear_model import LogisticRegression

from robust_ref.noise import (NOISE_MODELS, ContaminatedFeatures, NoisyLabels, apply_noise, contaminate_features,
                              flip_adversarial, flip_class_conditional, flip_indices, flip_instance_dependent,
                              flip_multiclass_cc, flip_one_sided, flip_pairwise, flip_stratified, flip_transition,
                              flip_uniform, logitboost_standin, mahalanobis_transition, n_flips, pairwise_transition,
                              uniform_transition)

# ---------------------------------------------------------------- strategies

label_pairs = st.one_of(
    st.lists(st.integers(-1000, 1000), min_size=2, max_size=2, unique=True),
    st.lists(st.text(alphabet="abcxyz", min_size=1, max_size=4), min_size=2, max_size=2, unique=True),
    st.just([-1.0, 1.0]),
)


@st.composite
def binary_labels(draw, min_size=2, max_size=120):
    pair = draw(label_pairs)
    picks = draw(st.lists(st.booleans(), min_size=min_size, max_size=max_size)) + [True, False]
    return np.array([pair[int(p)] for p in picks])


@st.composite
def kclass_labels(draw):
    K = draw(st.integers(3, 6))
    codes = draw(st.lists(st.integers(0, K - 1), min_size=K, max_size=150)) + list(range(K))
    values = np.array([f"c{k}" for k in range(K)])
    return values[codes]


seeds = st.integers(0, 2**32 - 1)
rates_half = st.floats(0, 0.499, allow_nan=False)


def assert_consistent(res, y):
    "The invariants of every NoisyLabels: shape, dtype, values among the classes, mask == (noisy != clean)."
    assert isinstance(res, NoisyLabels)
    assert res.y.shape == y.shape and res.y.dtype == y.dtype and res.flipped.dtype == bool
    assert np.array_equal(res.flipped, res.y != y)
    assert set(res.y.tolist()) <= set(y.tolist())


# ---------------------------------------------------------------- property tests: binary models

@given(y=binary_labels(), rate=rates_half, seed=seeds)
def test_uniform_exact_count_mask_and_determinism(y, rate, seed):
    res = flip_uniform(y, rate, random_state=seed)
    assert_consistent(res, y)
    assert res.flipped.sum() == round(rate * len(y))
    again = flip_uniform(y, rate, random_state=seed)
    assert np.array_equal(res.y, again.y) and np.array_equal(res.flipped, again.flipped)


@given(y=binary_labels(), rate=rates_half, seed=seeds)
def test_uniform_iid_mask_and_determinism(y, rate, seed):
    res = flip_uniform(y, rate, exact=False, random_state=seed)
    assert_consistent(res, y)
    assert np.array_equal(res.y, flip_uniform(y, rate, exact=False, random_state=seed).y)
    g = np.random.default_rng(seed)  # a Generator gives the same draws as its int seed
    assert np.array_equal(res.y, flip_uniform(y, rate, exact=False, random_state=g).y)


@given(y=binary_labels(), rp=st.floats(0, 0.95), rn=st.floats(0, 0.95), seed=seeds, pos=st.booleans())
def test_class_conditional_exact_counts_per_class(y, rp, rn, seed, pos):
    if rp + rn >= 1: rn = max(0.0, 0.999 - rp)
    classes = np.unique(y)
    pos_label = classes[1] if pos else classes[0]
    res = flip_class_conditional(y, rp, rn, pos_label=pos_label, random_state=seed)
    assert_consistent(res, y)
    is_pos = y == pos_label
    assert res.flipped[is_pos].sum() == round(rp * is_pos.sum())
    assert res.flipped[~is_pos].sum() == round(rn * (~is_pos).sum())
    assert np.array_equal(res.y, flip_class_conditional(y, rp, rn, pos_label=pos_label, random_state=seed).y)


@given(y=binary_labels(), rate=st.floats(0, 0.999), seed=seeds, first=st.booleans())
def test_one_sided_only_touches_from_class(y, rate, seed, first):
    c = np.unique(y)[0 if first else 1]
    res = flip_one_sided(y, rate, from_class=c, random_state=seed)
    assert_consistent(res, y)
    assert not res.flipped[y != c].any()
    assert res.flipped[y == c].sum() == round(rate * (y == c).sum())


@given(y=binary_labels(min_size=10), rate=rates_half, seed=seeds)
def test_stratified_counts_and_class_sizes(y, rate, seed):
    m = round(rate * len(y) / 2)
    sizes = [np.sum(y == c) for c in np.unique(y)]
    if m > min(sizes):
        with pytest.raises(ValueError, match="minority"): flip_stratified(y, rate, random_state=seed)
        return
    res = flip_stratified(y, rate, random_state=seed)
    assert_consistent(res, y)
    for c in np.unique(y): assert res.flipped[y == c].sum() == m
    assert sorted(np.unique(res.y, return_counts=True)[1]) == sorted(sizes)


@given(y=binary_labels(), rate=rates_half, data=st.data())
def test_adversarial_matches_brute_force_top_margins(y, rate, data):
    scores = np.array(data.draw(st.lists(st.sampled_from([-2.0, -0.5, 0.0, 0.5, 2.0]),
                                         min_size=len(y), max_size=len(y))))   # many ties: test index tie-breaking
    res = flip_adversarial(y, rate, scores=scores)
    assert_consistent(res, y)
    y_pm = np.where(y == np.unique(y)[1], 1, -1)
    order = sorted(range(len(y)), key=lambda i: (-(y_pm[i] * scores[i]), i))
    assert set(np.flatnonzero(res.flipped)) == set(order[:round(rate * len(y))])


@given(y=binary_labels(), rate=st.floats(0, 0.999), data=st.data())
def test_adversarial_one_sided_brute_force(y, rate, data):
    scores = np.array(data.draw(st.lists(st.floats(-5, 5), min_size=len(y), max_size=len(y))))
    c = np.unique(y)[0]
    res = flip_adversarial(y, rate, scores=scores, from_class=c)
    y_pm = np.where(y == np.unique(y)[1], 1, -1)
    cand = [i for i in range(len(y)) if y[i] == c]
    order = sorted(cand, key=lambda i: (-(y_pm[i] * scores[i]), i))
    assert set(np.flatnonzero(res.flipped)) == set(order[:round(rate * len(cand))])


# ---------------------------------------------------------------- property tests: K classes

@given(y=kclass_labels(), frac=st.floats(0, 0.999), seed=seeds)
def test_uniform_kclass_exact_count(y, frac, seed):
    K = len(np.unique(y))
    rate = frac * (K - 1) / K
    res = flip_uniform(y, rate, random_state=seed)
    assert_consistent(res, y)
    assert res.flipped.sum() == round(rate * len(y))


@given(y=kclass_labels(), rate=rates_half, seed=seeds)
def test_pairwise_goes_to_next_class_with_exact_per_class_counts(y, rate, seed):
    classes = np.unique(y)
    res = flip_pairwise(y, rate, random_state=seed)
    assert_consistent(res, y)
    nxt = {c: classes[(k + 1) % len(classes)] for k, c in enumerate(classes)}
    assert all(res.y[i] == nxt[y[i]] for i in np.flatnonzero(res.flipped))
    for c in classes: assert res.flipped[y == c].sum() == round(rate * np.sum(y == c))


@given(y=kclass_labels(), seed=seeds, data=st.data())
def test_transition_exact_counts_follow_T(y, seed, data):
    classes = np.unique(y); K = len(classes)
    # a random valid T: diagonal ≥ 0.5 dominates, off-diagonal mass spread randomly
    keep = np.array(data.draw(st.lists(st.floats(0.5, 1.0), min_size=K, max_size=K)))
    w = np.array(data.draw(st.lists(st.floats(0.01, 1.0), min_size=K * K, max_size=K * K))).reshape(K, K)
    np.fill_diagonal(w, 0)
    T = (1 - keep)[:, None] * w / w.sum(axis=1, keepdims=True)
    np.fill_diagonal(T, keep)
    res = flip_transition(y, T, random_state=seed)
    assert_consistent(res, y)
    for j, c in enumerate(classes):
        nj = np.sum(y == c)
        m = round((1 - T[j, j]) * nj)
        assert res.flipped[y == c].sum() == m
        for k, d in enumerate(classes):   # each target within one of its proportional share
            if k != j: assert abs(np.sum(res.y[y == c] == d) - m * T[j, k] / (1 - T[j, j] if T[j, j] < 1 else 1)) < 1 + 1e-9


# ---------------------------------------------------------------- statistics of the i.i.d. modes

def test_uniform_iid_rate_and_binomial_spread():
    y = np.repeat([0, 1], 5000)
    counts = np.array([flip_uniform(y, 0.2, exact=False, random_state=s).flipped.sum() for s in range(300)])
    se = np.sqrt(10000 * 0.2 * 0.8)
    assert abs(counts.mean() - 2000) < 5 * se / np.sqrt(300)
    assert 0.7 * se < counts.std() < 1.3 * se          # binomial spread, unlike the exact mode
    assert len({flip_uniform(y, 0.2, random_state=s).flipped.sum() for s in range(20)}) == 1


def test_class_conditional_iid_rates_per_class():
    y = np.repeat(["neg", "pos"], [30000, 20000])
    res = flip_class_conditional(y, 0.1, 0.3, exact=False, random_state=0)
    for cls, rate in (("pos", 0.1), ("neg", 0.3)):
        n = np.sum(y == cls)
        assert abs(res.flipped[y == cls].mean() - rate) < 5 * np.sqrt(rate * (1 - rate) / n)


def test_uniform_kclass_targets_are_uniform_chi2():
    y = np.repeat(np.arange(5), 4000)
    res = flip_uniform(y, 0.6, random_state=1)
    for j in range(5):
        tgt = res.y[(y == j) & res.flipped]
        obs = np.bincount(tgt, minlength=5)
        assert obs[j] == 0
        assert stats.chisquare(np.delete(obs, j)).pvalue > 1e-4


def test_transition_iid_matches_T():
    T = np.array([[0.7, 0.2, 0.1], [0.05, 0.9, 0.05], [0.3, 0.0, 0.7]])
    y = np.repeat(["x", "y", "z"], 20000)
    res = flip_transition(y, T, exact=False, random_state=3)
    for j, c in enumerate("xyz"):
        freq = np.array([np.mean(res.y[y == c] == d) for d in "xyz"])
        assert np.all(np.abs(freq - T[j]) <= 5 * np.sqrt(T[j] * (1 - T[j]) / 20000) + 1e-12)
    assert not np.any((y == "z") & (res.y == "y"))       # zero-probability transitions never happen


def test_instance_dependent_probabilities():
    y = np.tile([1, 2], 10000)
    p = np.where(np.arange(20000) < 10000, 0.0, 0.25)
    p[:10] = 1.0
    res = flip_instance_dependent(y, p, random_state=0)
    assert_consistent(res, y)
    assert res.flipped[:10].all() and not res.flipped[10:10000].any()
    assert abs(res.flipped[10000:].mean() - 0.25) < 5 * np.sqrt(0.25 * 0.75 / 10000)


# ---------------------------------------------------------------- adversarial with a fitted reference rule

def test_adversarial_with_model_matches_independent_fit():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3)); y = np.where(X[:, 0] + 0.5 * rng.normal(size=300) > 0, "p", "n")
    res = flip_adversarial(y, 0.1, X=X, model=LogisticRegression())
    y_pm = np.where(y == "p", 1, -1)
    m = y_pm * LogisticRegression().fit(X, y_pm).decision_function(X)
    assert set(np.flatnonzero(res.flipped)) == set(np.argsort(-m, kind="stable")[:30])


def test_adversarial_default_standin_is_seeded_and_flips_confident_points():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 2)); y = (X[:, 0] > 0).astype(int)
    a = flip_adversarial(y, 0.15, X=X, random_state=7)
    b = flip_adversarial(y, 0.15, X=X, random_state=7)
    assert np.array_equal(a.y, b.y) and a.flipped.sum() == 30
    # the most confident points of a clean fit are far from the boundary x0 = 0
    assert np.median(np.abs(X[a.flipped, 0])) > np.median(np.abs(X[~a.flipped, 0]))
    est = logitboost_standin(0)
    assert est.get_params()["loss"] == "log_loss" and est.get_params()["max_leaf_nodes"] == 11


# ---------------------------------------------------------------- transition matrices

def test_uniform_and_pairwise_transition_closed_forms():
    np.testing.assert_allclose(uniform_transition(4, 0.3),
                               [[.7, .1, .1, .1], [.1, .7, .1, .1], [.1, .1, .7, .1], [.1, .1, .1, .7]])
    np.testing.assert_allclose(pairwise_transition(3, 0.2), [[.8, .2, 0], [0, .8, .2], [.2, 0, .8]])
    np.testing.assert_allclose(uniform_transition(2, 0.3), pairwise_transition(2, 0.3))


def _appendix_j_by_hand(X, y):
    "Independent, loop-by-loop Appendix J with the row-stochastic correction (the robust-trees paper's label-noise generation)."
    cls = sorted(set(y.tolist())); K = len(cls)
    D = np.zeros((K, K))
    for i in range(K):
        for j in range(K):
            if i == j: continue
            A, B = X[y == cls[i]], X[y == cls[j]]
            S = ((len(A) - 1) * np.cov(A.T) + (len(B) - 1) * np.cov(B.T)) / (len(A) + len(B) - 2)
            d = A.mean(0) - B.mean(0)
            D[i, j] = np.sqrt(d @ np.linalg.pinv(S) @ d)
    s_ii = np.array([sum(D[i, j] for j in range(K) if j != i) for i in range(K)])
    s_ii = 0.5 + 0.4 * (s_ii - s_ii.min()) / (s_ii.max() - s_ii.min())
    T = np.zeros((K, K))
    for i in range(K):
        tot = sum(1 / D[i, k] for k in range(K) if k != i)
        for j in range(K):
            T[i, j] = s_ii[i] if i == j else (1 - s_ii[i]) * (1 / D[i, j]) / tot
    return T


def test_mahalanobis_transition_against_independent_loop():
    rng = np.random.default_rng(5)
    y = np.repeat([0, 1, 2, 3], [80, 120, 100, 90])
    centers = np.array([[0, 0, 0], [1, 0, 0], [0, 3, 0], [4, 4, 1]])
    X = rng.normal(size=(len(y), 3)) @ np.array([[1, .3, 0], [0, 1, .2], [0, 0, .5]]) + centers[y]
    T = mahalanobis_transition(X, y)
    np.testing.assert_allclose(T, _appendix_j_by_hand(X, y), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(T.sum(axis=1), 1, atol=1e-12)
    assert np.isclose(T.diagonal().min(), 0.5) and np.isclose(T.diagonal().max(), 0.9)


def test_mahalanobis_singular_covariance_uses_pinv():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 50)
    X = np.c_[rng.normal(size=(150, 2)) + np.array([[0, 0], [2, 0], [0, 5]])[y], np.zeros(150)]  # constant pixel
    T = mahalanobis_transition(X, y)
    np.testing.assert_allclose(T, _appendix_j_by_hand(X, y), rtol=1e-8)
    res = flip_multiclass_cc(y, X, random_state=0)
    for j in range(3): assert res.flipped[y == j].sum() == round((1 - T[j, j]) * 50)


# ---------------------------------------------------------------- contamination, indices, registry

def test_contaminate_features_counts_rows_and_t4_distribution():
    X = np.zeros((4000, 5))
    res = contaminate_features(X, 0.25, random_state=0)
    assert isinstance(res, ContaminatedFeatures) and res.contaminated.sum() == 1000
    assert np.all(res.X[~res.contaminated] == 0) and np.all(res.X[res.contaminated] != 0)
    assert stats.kstest(res.X[res.contaminated].ravel(), stats.t(4).cdf).pvalue > 1e-3
    assert np.array_equal(res.X, contaminate_features(X, 0.25, random_state=0).X)
    iid = contaminate_features(X, 0.25, exact=False, random_state=0).contaminated.mean()
    assert abs(iid - 0.25) < 5 * np.sqrt(0.25 * 0.75 / 4000)
    assert np.all(X == 0)                                    # the input is not modified


def test_flip_indices_binary_and_kclass():
    y = np.array(["a", "b", "a", "b"])
    np.testing.assert_array_equal(flip_indices(y, [0, 3]).y, ["b", "b", "a", "a"])
    np.testing.assert_array_equal(flip_indices(y, np.array([False, True, False, False])).y, ["a", "a", "a", "b"])
    yk = np.array([0, 1, 2, 0, 1, 2])
    res = flip_indices(yk, [1, 2], random_state=0)
    assert np.array_equal(np.flatnonzero(res.flipped), [1, 2])
    assert flip_indices(y, []).flipped.sum() == 0


def test_classes_parameter_allows_absent_class_and_sets_order():
    y = np.zeros(50, dtype=np.int32)
    res = flip_uniform(y, 0.2, classes=[0, 1], random_state=0)
    assert res.y.dtype == np.int32 and res.flipped.sum() == 10 and set(res.y[res.flipped]) == {1}
    res = flip_class_conditional(np.array([1, 1, 2, 2]), 0.5, 0.0, classes=[2, 1])  # classes[1] = 1 is positive
    assert res.flipped[:2].sum() == 1 and not res.flipped[2:].any()


def test_registry_equals_direct_calls_and_lists_names():
    y = np.tile([0, 1], 50)
    assert set(NOISE_MODELS) >= {"uniform", "class_conditional", "one_sided", "adversarial", "pairwise", "transition"}
    a = apply_noise("uniform", y, 0.2, random_state=4); b = flip_uniform(y, 0.2, random_state=4)
    assert np.array_equal(a.y, b.y)
    a = apply_noise("class_conditional", y, 0.1, 0.3, exact=False, random_state=4)
    b = flip_class_conditional(y, 0.1, 0.3, exact=False, random_state=4)
    assert np.array_equal(a.y, b.y)
    with pytest.raises(ValueError, match="valid names: adversarial"): apply_noise("gauss", y, 0.1)
    with pytest.raises(TypeError, match="name must be a string"): apply_noise(3, y, 0.1)


def test_n_flips_rounding():
    assert n_flips(0.1, 30) == 3 and n_flips(0.29, 100) == 29 and n_flips(0.25, 10) == 2 and n_flips(0.35, 10) == 4
    assert n_flips(0, 0) == 0 and n_flips(1, 7) == 7


def test_global_numpy_state_untouched():
    state = np.random.get_state()[1].copy()
    flip_uniform(np.tile([0, 1], 20), 0.2); contaminate_features(np.zeros((10, 2)), 0.2)
    assert np.array_equal(state, np.random.get_state()[1])


# ---------------------------------------------------------------- bad inputs: every public function

yb = np.tile(["a", "b"], 10)
y3 = np.tile([0, 1, 2], 10)
Xb = np.random.default_rng(0).normal(size=(20, 2))
X3 = np.random.default_rng(0).normal(size=(30, 2)) + np.array([[0, 0], [2, 0], [0, 5]])[y3]

BAD = [
    # uniform
    (flip_uniform, (yb, 0.5), {}, ValueError, r"rate=0.5 is outside the valid range \[0, 0.5\)"),
    (flip_uniform, (y3, 0.7), {}, ValueError, "2/3"),
    (flip_uniform, (yb, -0.1), {}, ValueError, "valid range"),
    (flip_uniform, (yb, float("nan")), {}, ValueError, "valid range"),
    (flip_uniform, (yb, True), {}, TypeError, "real number"),
    (flip_uniform, (yb, "0.1"), {}, TypeError, "real number"),
    (flip_uniform, (yb, 0.1), {"exact": "yes"}, TypeError, "exact must be True or False"),
    (flip_uniform, (np.array(["a"] * 5), 0.1), {}, ValueError, "single class"),
    (flip_uniform, ([[0, 1], [1, 0]], 0.1), {}, ValueError, "1-D"),
    (flip_uniform, ([], 0.1), {}, ValueError, "empty"),
    (flip_uniform, ([0.0, np.nan, 1.0], 0.1), {}, ValueError, "NaN"),
    (flip_uniform, ([0, 1, 5], 0.1), {"classes": [0, 1]}, ValueError, "not among the classes"),
    (flip_uniform, (np.array(["a", "b"]), 0.1), {"classes": ["a", "long"]}, ValueError, "cannot be stored"),
    (flip_uniform, ([0, 1], 0.1), {"classes": [0, 1, 1]}, ValueError, "duplicates"),
    (flip_uniform, ([0, 1], 0.1), {"classes": [[0, 1]]}, ValueError, "1-D"),
    (flip_uniform, (yb, 0.1), {"random_state": "seed"}, TypeError, "random_state"),
    # class-conditional
    (flip_class_conditional, (yb, 0.6, 0.4), {}, ValueError, "rate_pos \\+ rate_neg = 1 must be < 1"),
    (flip_class_conditional, (yb, 1.0, 0.0), {}, ValueError, "rate_pos=1.0 is outside"),
    (flip_class_conditional, (yb, 0.1, -0.2), {}, ValueError, "rate_neg=-0.2 is outside"),
    (flip_class_conditional, (y3, 0.1, 0.2), {}, ValueError, "binary noise model"),
    (flip_class_conditional, (yb, 0.1, 0.2), {"pos_label": "z"}, ValueError, "pos_label='z' is not one of"),
    # one-sided
    (flip_one_sided, (yb, 1.0), {}, ValueError, r"valid range \[0, 1\)"),
    (flip_one_sided, (yb, 0.1), {"from_class": "q"}, ValueError, "from_class='q'"),
    (flip_one_sided, (y3, 0.1), {}, ValueError, "binary"),
    # stratified
    (flip_stratified, (yb, 0.5), {}, ValueError, r"\[0, 0.5\)"),
    (flip_stratified, (np.array([0] * 18 + [1, 1]), 0.4), {}, ValueError, "minority"),
    (flip_stratified, (y3, 0.1), {}, ValueError, "binary"),
    # adversarial
    (flip_adversarial, (yb, 0.5), {"scores": np.zeros(20)}, ValueError, r"\[0, 0.5\)"),
    (flip_adversarial, (yb, 0.1), {}, ValueError, "exactly one of scores"),
    (flip_adversarial, (yb, 0.1), {"scores": np.zeros(20), "X": Xb}, ValueError, "exactly one of scores"),
    (flip_adversarial, (yb, 0.1), {"scores": np.zeros(19)}, ValueError, "one per label"),
    (flip_adversarial, (yb, 0.1), {"scores": np.r_[np.nan, np.zeros(19)]}, ValueError, "NaN"),
    (flip_adversarial, (yb, 0.1), {"X": Xb[:10]}, ValueError, "rows"),
    (flip_adversarial, (yb, 0.1), {"X": np.r_[[[np.inf, 0]], Xb[1:]]}, ValueError, "infinity"),
    (flip_adversarial, (y3, 0.1), {"scores": np.zeros(30)}, ValueError, "binary"),
    (flip_adversarial, (yb, 0.1), {"scores": np.zeros(20), "from_class": "q"}, ValueError, "from_class='q'"),
    (flip_adversarial, (yb, 0.1), {"X": Xb, "model": object()}, TypeError, "unfitted scikit-learn classifier"),
    # instance-dependent and indices
    (flip_instance_dependent, (yb, np.full(20, 1.5)), {}, ValueError, r"valid range \[0, 1\]"),
    (flip_instance_dependent, (yb, np.full(19, 0.5)), {}, ValueError, "one flip probability per label"),
    (flip_instance_dependent, (yb, ["x"] * 20), {}, TypeError, "array of numbers"),
    (flip_instance_dependent, (yb, np.r_[np.nan, np.zeros(19)]), {}, ValueError, "valid range"),
    (flip_indices, (yb, [25]), {}, ValueError, r"\[0, 20\)"),
    (flip_indices, (yb, [0.5]), {}, ValueError, "integer positions"),
    (flip_indices, (yb, np.ones(5, bool)), {}, ValueError, "one entry per label"),
    # transitions
    (flip_transition, (y3, np.eye(2)), {}, ValueError, "3×3"),
    (flip_transition, (y3, [[.9, .2, 0], [0, 1, 0], [0, 0, 1]]), {}, ValueError, "row-stochastic: row 0"),
    (flip_transition, (y3, [[1.2, -.2, 0], [0, 1, 0], [0, 0, 1]]), {}, ValueError, r"valid range \[0, 1\]"),
    (flip_transition, (y3, [[.4, .6, 0], [0, 1, 0], [0, 0, 1]]), {}, ValueError, "T\\[0, 0\\]=0.4 must exceed"),
    (flip_transition, (y3, np.full((3, 3), np.nan)), {}, ValueError, "NaN"),
    (flip_pairwise, (y3, 0.5), {}, ValueError, r"\[0, 0.5\)"),
    (uniform_transition, (1, 0.1), {}, ValueError, "K must be an int ≥ 2"),
    (uniform_transition, (3, 0.7), {}, ValueError, "2/3"),
    (pairwise_transition, (3.0, 0.1), {}, ValueError, "K must be an int"),
    (pairwise_transition, (3, 0.6), {}, ValueError, r"\[0, 0.5\)"),
    (mahalanobis_transition, (Xb, yb), {}, ValueError, "K ≥ 3"),
    (mahalanobis_transition, (X3[:10], y3), {}, ValueError, "rows"),
    (mahalanobis_transition, (X3, y3), {"low": 0.4}, ValueError, "low=0.4 is outside"),
    (mahalanobis_transition, (X3, y3), {"high": 0.5}, ValueError, "high"),
    (mahalanobis_transition, (np.zeros((30, 2)), y3), {}, ValueError, "identical means"),
    (mahalanobis_transition, (X3[:4], y3[:4]), {}, ValueError, "needs ≥ 2"),
    (mahalanobis_transition, (X3, y3), {"rcond": -1.0}, ValueError, r"rcond=-1.0 is outside the valid range \[0, 1\)"),
    (mahalanobis_transition, (X3, y3), {"rcond": 1.0}, ValueError, r"rcond=1.0 is outside the valid range \[0, 1\)"),
    (mahalanobis_transition, (X3, y3), {"rcond": float("nan")}, ValueError, "rcond=nan is outside"),
    (flip_multiclass_cc, (yb, Xb), {}, ValueError, "K ≥ 3"),
    # contamination
    (contaminate_features, (Xb, 0.5), {}, ValueError, r"fraction=0.5 is outside the valid range \[0, 0.5\)"),
    (contaminate_features, (Xb, 0.1), {"df": 0}, ValueError, "df=0"),
    (contaminate_features, (Xb, 0.1), {"df": "4"}, ValueError, "df='4'"),
    (contaminate_features, (Xb, 0.1), {"scale": -1.0}, ValueError, "scale=-1.0"),
    (contaminate_features, (np.r_[[[np.nan, 0]], Xb], 0.1), {}, ValueError, "NaN"),
    (contaminate_features, (Xb, 0.1), {"exact": None}, TypeError, "exact"),
    # helpers and registry
    (n_flips, (1.5, 10), {}, ValueError, "valid range"),
    (n_flips, (0.1, -3), {}, ValueError, "non-negative int"),
    (n_flips, (0.1, 2.5), {}, ValueError, "non-negative int"),
    (apply_noise, ("nope", yb, 0.1), {}, ValueError, "unknown noise model 'nope'"),
    (logitboost_standin, (-1,), {}, ValueError, "non-negative int"),
    (logitboost_standin, ("0",), {}, ValueError, "random_state must be None"),
    (apply_noise, ("uniform", yb, 0.7), {}, ValueError, "valid range"),
]


@pytest.mark.parametrize("f, args, kwargs, exc, match", BAD, ids=[f"{b[0].__name__}-{i}" for i, b in enumerate(BAD)])
def test_bad_inputs_raise_documented_errors(f, args, kwargs, exc, match):
    with pytest.raises(exc, match=match): f(*args, **kwargs)


def test_every_public_function_has_a_bad_input_test():
    import robust_ref.noise as mod
    public = {n for n in mod.__all__ if callable(getattr(mod, n)) and not isinstance(getattr(mod, n), type)}
    tested = {b[0].__name__ for b in BAD}
    assert public <= tested, public - tested
