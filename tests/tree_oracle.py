"""The numpy tree builder that robust_ref.trees used before the compiled builder (robust_ref.tree_builder), kept unchanged
as a test oracle only: level-by-level growth with vectorised split search. tests/test_trees.py checks that the compiled
builder grows the same trees (same partitions, thresholds and gains) for every criterion."""
import heapq

import numpy as np

from robust_ref.core import as_generator
from robust_ref.trees import Tree, impurity_gini, credal_entropy


def _total(c): return c.sum(-1)


def _safe_div(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return np.divide(a, b, out=np.zeros(np.broadcast_shapes(a.shape, b.shape)), where=b > 0)


def _node_impurity(crit, c, params) -> np.ndarray:
    W = _total(c)
    if crit.kind == "impurity": return _safe_div(crit.func(c, **params), W)
    if crit.name == "credal": return credal_entropy(c, **params)
    if crit.name == "ranking": return _safe_div(c[..., 0] * c[..., 1], 2 * W * W)
    return _safe_div(impurity_gini(c), W)


_BLOCK = 1 << 21   # max elements (positions × K) of one block of cumulative counts (16 MB)
_RTOL = 1e-10      # a split needs gain > _RTOL·W_node: zero gains up to float round-off do not split (Theorem 5)

def _ranges(starts, ends):
    "Positions of the concatenated ranges [s, e), the range id of every position, each range's offset and length."
    lens = ends - starts
    offs = np.cumsum(lens) - lens
    seg = np.repeat(np.arange(len(starts)), lens)
    pos = np.arange(int(lens.sum())) + np.repeat(starts - offs, lens)
    return pos, seg, offs, lens

def _before(cum, offs):
    "Value of the cumulative array `cum` (last axis) just before each range offset (0 for a range starting at 0)."
    prev = cum[..., np.maximum(offs - 1, 0)]
    prev[..., offs == 0] = 0
    return prev

class _Grower:
    """Grows one tree. `order[f]` lists the (positive-weight) rows sorted by feature f *within each node*: every node owns
    the same contiguous range of positions in all d rows of `order`, and a split partitions that range stably
    (left rows first), so the per-feature sort done once at the root stays valid all the way down."""

    def __init__(self, X, codes, w, K, crit, params, min_samples_leaf, max_features, rng):
        keep = w > 0
        X, codes, w = X[keep], codes[keep], w[keep]
        self.n, self.d = X.shape
        self.K, self.crit, self.params = K, crit, params
        self.msl, self.mf, self.rng = min_samples_leaf, max_features, rng
        self.Xt = np.ascontiguousarray(X.T)
        self.codes, self.wk, self.unit = codes, w, bool(np.all(w == 1))
        self.order = np.argsort(self.Xt, axis=1, kind="stable")
        self.is_left = np.zeros(self.n, dtype=bool)
        self.frows = np.arange(self.d)[:, None]

    def _choose_features(self, starts, ends):
        "Per node: the features to search (max_features among those that vary on the node) and a random tie-break key."
        S = len(starts)
        varying = (self.Xt[self.frows, self.order[:, starts]] < self.Xt[self.frows, self.order[:, ends - 1]]).T
        keys = self.rng.random((S, self.d))
        if self.mf >= self.d: return varying, keys
        masked = np.where(varying, keys, np.inf)
        rank = np.argsort(np.argsort(masked, axis=1, kind="stable"), axis=1, kind="stable")
        return varying & (rank < self.mf), keys

    def _chunks(self, lengths):
        "Split consecutive (node, feature) pairs into chunks of about _BLOCK/K positions each."
        cum = np.cumsum(lengths)
        cuts = np.searchsorted(cum, np.arange(1, int(cum[-1] * self.K // _BLOCK) + 1) * (_BLOCK // self.K), side="right")
        edges = np.unique(np.concatenate([[0], cuts, [len(lengths)]]))
        return zip(edges[:-1], edges[1:])

    def search(self, starts, ends, T):
        "Best split of every node [start, end) with class counts T: (gain, feature, rows going left, threshold)."
        S, K = len(starts), self.K
        sel, keys = self._choose_features(starts, ends)
        pnode, pfeat = np.nonzero(sel)                                  # the (node, feature) pairs to search
        pgain, pj = np.full(len(pnode), -np.inf), np.zeros(len(pnode), dtype=np.intp)
        Tk = np.ascontiguousarray(T.T)                                  # (K, S): class axis first, see below
        parent = self.crit.func(np.moveaxis(Tk, 0, -1), **self.params) if self.crit.kind == "impurity" else None
        for p0, p1 in (self._chunks((ends - starts)[pnode]) if len(pnode) else ()):
            nd, fs = pnode[p0:p1], pfeat[p0:p1]
            pos, seg, offs, lens = _ranges(starts[nd], ends[nd])       # all positions of the chunk's pairs
            fr = fs[seg]
            O = np.take(self.order, fr * self.n + pos)                 # rows of each pair, sorted by the pair's feature
            V = self.Xt[fr, O]
            # Runs of equal values: a threshold can only fall after the last row of a run, so class counts are
            # accumulated per run (one bincount, no K×m one-hot array) and the criterion is evaluated once per run.
            new_run = np.empty(len(pos), dtype=bool)
            new_run[0] = True
            np.not_equal(V[1:], V[:-1], out=new_run[1:])
            new_run[offs] = True
            rid = np.cumsum(new_run) - 1
            n_runs = int(rid[-1]) + 1
            run_start = np.flatnonzero(new_run)
            run_last = np.append(run_start[1:], len(pos)) - 1         # last position of every run
            rpair, roffs = seg[run_start], rid[offs]                   # pair of every run; first run of every pair
            w_pos = None if self.unit else self.wk[O]                  # (unit weights: integer counting is faster)
            cnt = np.bincount(self.codes[O] * n_runs + rid, weights=w_pos, minlength=K * n_runs).reshape(K, n_runs)
            cnt = cnt.astype(np.float64, copy=False)
            # Counts are class-first, (K, runs), handed to the criterion as the (runs, K) view: sums and maxima over
            # the class axis then add K contiguous arrays instead of reducing a short inner axis (30× faster).
            per_pair = np.diff(np.append(roffs, n_runs))               # runs of every pair
            L = np.cumsum(cnt, axis=1)                                 # cumulative weighted class counts ...
            L -= np.repeat(_before(L, roffs), per_pair, axis=1)        # ... restarted at every pair
            Tp = np.repeat(Tk[:, nd], per_pair, axis=1)
            R = Tp - L
            with np.errstate(all="ignore"):
                if parent is None: G = self.crit.func(L.T, R.T, Tp.T, **self.params)
                else: G = (np.repeat(parent[nd], per_pair) - self.crit.func(L.T, **self.params)
                           - self.crit.func(R.T, **self.params))
            jl = run_last - offs[rpair]                                # rows left of the threshold, minus 1
            valid = (jl + 1 >= self.msl) & (lens[rpair] - jl - 1 >= self.msl)   # (the last run leaves 0 rows right)
            G[~valid] = -np.inf
            mx = np.maximum.reduceat(G, roffs)                         # best gain per pair ...
            pgain[p0:p1] = mx
            pj[p0:p1] = np.minimum.reduceat(np.where(G == mx[rpair], jl, len(pos)), roffs)   # ... at its lowest threshold
        gain, feat, j = np.full(S, -np.inf), np.zeros(S, dtype=np.intp), np.zeros(S, dtype=np.intp)
        if len(pnode):
            rank = np.lexsort((keys[pnode, pfeat], -pgain, pnode))     # per node: largest gain, then random feature order
            first = rank[np.r_[True, pnode[rank][1:] != pnode[rank][:-1]]]
            gain[pnode[first]], feat[pnode[first]], j[pnode[first]] = pgain[first], pfeat[first], pj[first]
        ok = np.isfinite(gain)
        a = self.order[feat, np.where(ok, starts + j, starts)]
        b = self.order[feat, np.where(ok, starts + j + 1, starts)]
        va, vb = self.Xt[feat, a], self.Xt[feat, b]
        thr = va / 2 + vb / 2                                          # midpoint, computed as scikit-learn does
        thr = np.where((thr == vb) | ~np.isfinite(thr), va, thr)
        return gain, feat, j + 1, thr

    def partition(self, starts, ends, feat, nleft):
        "Split every node [start, end) into its first `nleft` rows in feature `feat` order and the rest, in all features."
        lpos, lseg, _, _ = _ranges(starts, starts + nleft)
        left_rows = self.order[feat[lseg], lpos]
        self.is_left[left_rows] = True
        pos, seg, offs, lens = _ranges(starts, ends)
        j = np.arange(len(pos)) - offs[seg]
        step = max(1, (4 * _BLOCK) // max(1, len(pos)))
        for f0 in range(0, self.d, step):
            O = self.order[f0:f0 + step, pos]
            F = self.is_left[O]
            cl = np.cumsum(F, axis=1)
            lrank = cl - F - _before(cl, offs)[:, seg]                  # left rows before this one, within its node
            dest = np.where(F, lrank, nleft[seg] + j - lrank) + starts[seg]
            self.order[np.arange(f0, min(f0 + step, self.d))[:, None], dest] = O
        self.is_left[left_rows] = False

    def counts(self, starts, ends):
        "Weighted class counts of the rows in every range."
        pos, seg, _, _ = _ranges(starts, ends)
        rows = self.order[0, pos]
        return np.bincount(seg * self.K + self.codes[rows], weights=self.wk[rows],
                           minlength=len(starts) * self.K).reshape(len(starts), self.K)


def _grow(X, codes, w, K, crit, params, *, max_depth=None, min_samples_leaf=1, max_features=None,
          max_leaf_nodes=None, random_state=None) -> Tree:
    "Grow a tree on rows with class codes 0..K−1 and weights w: level by level, or best-first if `max_leaf_nodes` is set."
    g = _Grower(X, codes, w, K, crit, params, min_samples_leaf, max_features or X.shape[1], as_generator(random_state))
    cap = 2 * g.n + 1
    start, end, depth = np.zeros(cap, np.intp), np.zeros(cap, np.intp), np.zeros(cap, np.intp)
    T = np.zeros((cap, K))
    left, right = np.full(cap, -1, np.intp), np.full(cap, -1, np.intp)
    feat, thr, gain = np.full(cap, -2, np.intp), np.full(cap, -2.0), np.zeros(cap)
    s_gain, s_feat, s_nl, s_thr = np.full(cap, -np.inf), np.zeros(cap, np.intp), np.zeros(cap, np.intp), np.zeros(cap)
    end[0], T[0] = g.n, np.bincount(g.codes, weights=g.wk, minlength=K)
    max_depth = np.inf if max_depth is None else max_depth
    n_nodes = 1

    def evaluate(ids):
        "Best split of the nodes `ids`; s_gain stays −inf where a node must be a leaf."
        ok = ids[((end[ids] - start[ids]) >= 2 * min_samples_leaf) & ((T[ids] > 0).sum(axis=1) > 1) & (depth[ids] < max_depth)]
        if ok.size == 0: return
        gn, f, nl, t = g.search(start[ok], end[ok], T[ok])
        good = gn > _RTOL * T[ok].sum(axis=1)
        s_gain[ok[good]], s_feat[ok[good]], s_nl[ok[good]], s_thr[ok[good]] = gn[good], f[good], nl[good], t[good]

    def split(ids):
        "Partition the nodes `ids` (in increasing `start` order) and create their children; returns the children ids."
        nonlocal n_nodes
        g.partition(start[ids], end[ids], s_feat[ids], s_nl[ids])
        L = n_nodes + 2 * np.arange(len(ids)); R = L + 1
        n_nodes += 2 * len(ids)
        left[ids], right[ids] = L, R
        feat[ids], thr[ids], gain[ids] = s_feat[ids], s_thr[ids], s_gain[ids]
        start[L], end[L] = start[ids], start[ids] + s_nl[ids]
        start[R], end[R] = start[ids] + s_nl[ids], end[ids]
        depth[L] = depth[R] = depth[ids] + 1
        kids = np.stack([L, R], axis=1).ravel()                        # increasing start order
        T[kids] = g.counts(start[kids], end[kids])
        return kids

    if max_leaf_nodes is None:                                          # level by level: the whole level in one search
        front = np.array([0])
        while front.size:
            evaluate(front)
            front = front[np.isfinite(s_gain[front])]
            if front.size: front = split(front)
    else:                                                               # best-first: always split the best leaf
        evaluate(np.array([0]))
        heap = [(-s_gain[0], 0)] if np.isfinite(s_gain[0]) else []
        n_leaves = 1
        while heap and n_leaves < max_leaf_nodes:
            _, i = heapq.heappop(heap)
            kids = split(np.array([i]))
            n_leaves += 1
            evaluate(kids)
            for k in kids:
                if np.isfinite(s_gain[k]): heapq.heappush(heap, (-s_gain[k], int(k)))
    sl = slice(0, n_nodes)
    Wn = T[sl].sum(axis=1)
    return Tree(children_left=left[sl].copy(), children_right=right[sl].copy(), feature=feat[sl].copy(),
                threshold=thr[sl].copy(), value=T[sl] / Wn[:, None],
                impurity=_node_impurity(crit, T[sl], params), n_node_samples=end[sl] - start[sl],
                weighted_n_node_samples=Wn, gain=gain[sl].copy(), depth=depth[sl].copy())



class SklearnRegressionTrees:
    """The boosting engine's tree learner with regression trees from scikit-learn's `DecisionTreeRegressor`, as
    `TreeLearner.fit_regression` grew them before `RegressionTreeBuilder` (same seeds drawn in the same order): the
    engine-level oracle of the compiled regression trees, and the old path of the benchmark."""

    def __init__(self, max_depth=1, max_leaf_nodes=None):
        self.max_depth, self.max_leaf_nodes = max_depth, max_leaf_nodes

    def prepare(self, X, random_state=None):
        from sklearn.tree import DecisionTreeRegressor
        from robust_ref.learners import TreeLearner, TreeRule
        bound = TreeLearner(self.max_depth, self.max_leaf_nodes).prepare(X, random_state)
        def fit_regression(z, w):
            tree = DecisionTreeRegressor(max_depth=self.max_depth, max_leaf_nodes=self.max_leaf_nodes,
                                         random_state=bound._seed()).fit(bound.X, z, sample_weight=w)
            return TreeRule(tree, "value")
        bound.fit_regression = fit_regression
        return bound
