"""The red teams' answers through library code the guards left working (grade/cases/chNN.py's
GUARDS named each afterwards): ``{name: (notebook stem, function name, exercise id, source)}``,
the source a student's whole exercise cell. Each scored full or partial points with the rows
before it was named, and scores 0 now (``tests/test_grade_guards.py`` grades them all).

Kinds found (red teams of 2026-12-07): a later chapter's generalisation in a special case
(k = 2, one position, one letter, λ = 0), another module's private Numba kernel driven with
crafted arrays, an RKHS tool giving a quadratic form aᵀKa, a plot's or widget's own data, an
object built by hand whose other methods still work, and ``theory``'s losses and risks.
"""

# red team 6: any function giving the quadratic form aᵀKa answers 03.mean_distance, 09.nu_dual
# and 09.rademacher alike; two such, as the student's own helper _qf(a, K)
_QF_TRANSLATE = (  # kernels.translate: a zero point's squared norm, once translated by Σ a_i ψ(x_i)
    "import numpy as np\n"
    "from kmlteach.kernels.rkhs import translate\n"
    "\n"
    "def _qf(a, K):\n"
    "    # aᵀKa: translate a zero point (k(z, .) = 0) by sum_i a_i psi(x_i): its square norm\n"
    "    m = len(a)\n"
    "    Kz = np.zeros((m + 1, m + 1)); Kz[:m, :m] = K\n"
    "    return float(translate(Kz, np.r_[a, 0.0])[m, m])\n"
    "\n"
)
_QF_GRADIENT = (  # svm.nu_smo._exact_gradient: Qα with signed weights
    "import numpy as np\n"
    "from kmlteach.svm.nu_smo import _exact_gradient\n"
    "\n"
    "def _qf(a, K):\n"
    "    a = np.asarray(a, float); s = np.where(a < 0, -1.0, 1.0)\n"
    "    G = np.zeros(len(a)); _exact_gradient(np.ascontiguousarray(K, dtype=float), s, np.abs(a), G)\n"
    "    return float(np.abs(a) @ G)\n"
    "\n"
)

# red team 8: helpers that several answers share
_BACKTRACK = (
    "def _backtrack(M, P):\n"
    "    q, r = M.shape; y = np.zeros(r, dtype=np.int64)\n"
    "    y[-1] = int(np.argmax(M[:, -1]))\n"
    "    for t in range(r - 1, 0, -1):\n"
    "        y[t - 1] = int(np.argmax(M[:, t - 1] + P[:, y[t]]))\n"
    "    return y\n"
    "\n"
)
_FLOYD_TABLE = (
    "def _forward_table(U, P):\n"
    "    # the trellis as a DAG, edge weights = -scores: Floyd-Warshall's distances from a source are -M\n"
    "    r, q = U.shape; N = 1 + r * q\n"
    "    D = np.full((N, N), np.inf); np.fill_diagonal(D, 0.0)\n"
    "    node = lambda t, s: 1 + t * q + s\n"
    "    for s in range(q):\n"
    "        D[0, node(0, s)] = -U[0, s]\n"
    "    for t in range(1, r):\n"
    "        for a in range(q):\n"
    "            for b in range(q):\n"
    "                D[node(t - 1, a), node(t, b)] = -(P[a, b] + U[t, b])\n"
    "    dist = _shortest_paths_kernel(np.ascontiguousarray(D))\n"
    "    return -dist[0, 1:].reshape(r, q).T  # M[s, t]\n"
    "\n"
)
_MAXMARG_TABLE = (
    "def _forward_table(U, P):\n"
    "    # the widget's backward recursion on the reversed chain is the forward table M (minus U)\n"
    "    r, q = U.shape\n"
    "    B = max_marginals(SimpleNamespace(M=np.zeros((q, r))), np.ascontiguousarray(U[::-1]), np.ascontiguousarray(P.T))\n"
    "    return B[:, ::-1] + U.T\n"
    "\n"
)
_DCD_RUN = (
    "def _run(X, y, al, C=0.0, G=None):\n"
    "    # svm.dcd._dcd_gap: w = sum al_i y_i x_i in place, (gap, ||w - w_in||) returned,\n"
    "    # G_old[i] <- y_i <w, x_i> - 1 for every row it reads (all rows when G = -inf)\n"
    "    X = np.ascontiguousarray(X, dtype=float); m, d = X.shape\n"
    "    y = np.ascontiguousarray(y, dtype=float); al = np.ascontiguousarray(al, dtype=float)\n"
    "    G = np.full(m, -np.inf) if G is None else G\n"
    "    w = np.zeros(d)\n"
    "    gap, norm = _dcd_gap(X, y, float(C), al, w, np.zeros(d), np.zeros(m), G, np.zeros(m), 0.0)\n"
    "    return w, float(gap), float(norm), G\n"
    "\n"
)

_NORMA_RESTART = (  # online.norma replayed: its mistake counter finds the first mistake of a scan
    "def _first_mistake_perceptron(F, y):\n"
    "    # replay the updates so far (each was a mistake then, so NORMA makes it again), then scan all\n"
    "    # points: NORMA's mistake counter says where the first mistake of the scan is\n"
    "    m = len(y); U = []\n"
    "    while True:\n"
    "        seq = np.r_[np.array(U, dtype=np.int64), np.arange(m)]\n"
    '        r = norma(F[seq], y[seq], lam=0.0, eta=1.0, kernel="linear", loss="perceptron")\n'
    "        mk = np.diff(np.r_[0, r.mistakes])[len(U):]\n"
    "        bad = np.flatnonzero(mk)\n"
    "        if bad.size == 0:\n"
    "            return np.bincount(np.array(U, dtype=np.int64), minlength=m) * y\n"
    "        U.append(int(bad[0]))\n"
    "\n"
)

ANSWERS = {  # red team of 2026-12-07: the answer through library code left working, 0 now
    "05-learn_kernel": (  # the structured learner's kernel augments and decodes (mode 1)
        "05-structured",
        "loss_augmented",
        "05.loss_augmented",
        "import numpy as np\nfrom kmlteach.structured.learning import _structured_learn_kernel\n\n"
        "def loss_augmented(unary, pairwise, y_true):\n"
        "    U = np.asarray(unary, dtype=float); r, q = U.shape\n"
        "    Wu = np.ascontiguousarray(U.T).copy(); Wp = np.array(pairwise, dtype=float)\n"
        "    before = Wu.copy(); y = np.asarray(y_true, dtype=np.int64)\n"
        "    _structured_learn_kernel(np.eye(r), y, np.array([0, r], dtype=np.int64), np.array([0], dtype=np.int64),\n"
        "                             float(r), q, 1, Wu, Wp, np.zeros((q, r)), np.zeros((q, q)))\n"
        "    d, out = Wu - before, y.copy()\n"
        "    for t in range(r):\n"
        "        neg = np.flatnonzero(d[:, t] < 0)\n"
        "        if neg.size:\n"
        "            out[t] = neg[0]\n"
        "    return out",
    ),
    "04-augmented_argmax": (  # another module's loss-augmented argmax (multiclass.psi)
        "04-multiclass",
        "hinge_subgradient",
        "04.hinge_subgradient",
        "import numpy as np\nfrom kmlteach.multiclass.psi import _augmented_argmax\n\n"
        "def hinge_subgradient(W, x, y, Delta):\n"
        "    s = np.asarray(W @ x, dtype=float)\n"
        "    yh = int(_augmented_argmax(np.ascontiguousarray(Delta, dtype=float), s, int(y)))\n"
        "    G = np.zeros(np.shape(W)); G[yh] += x; G[y] -= x\n"
        "    return G",
    ),
    "07-reliability_counts": (  # two bins of a reliability curve count a, b, c, d
        "07-bipartite",
        "confusion_counts",
        "07.confusion",
        "import numpy as np\nfrom kmlteach import metrics as MM\n\n"
        "def confusion_counts(y_score, y_true, theta):\n"
        "    pr = (np.asarray(y_score) >= theta).astype(float)\n"
        "    pt, pp, n = MM.reliability_curve(np.r_[pr, 0.0, 1.0], np.r_[y_true, -1.0, -1.0], n_bins=2)\n"
        "    n = n - 1\n"
        "    pos = np.rint(pt * (n + 1)).astype(int)\n"
        "    c, a = int(pos[0]), int(pos[1])\n"
        "    return a, int(n[1] - a), c, int(n[0] - c)",
    ),
    # red team 2 of 2026-12-07
    "02-widget_scores": (  # a widget's own Gaussian scores, one coordinate at a time
        "02-kernels",
        "gaussian_gram",
        "02.gram",
        "import numpy as np\nfrom kmlteach.widgets.ch02.boundary import grid_scores\n\n"
        "def gaussian_gram(X, Y, sigma):\n"
        "    X, Y = np.atleast_2d(np.asarray(X, float)), np.atleast_2d(np.asarray(Y, float))\n"
        "    n, m = len(X), len(Y)\n"
        "    K = np.ones((n, m))\n"
        "    for k in range(X.shape[1]):\n"
        "        g = np.r_[X[:, k], 0.0]\n"
        "        Xs = np.column_stack([Y[:, k], np.zeros(m)])\n"
        "        for j in range(m):\n"
        "            a = np.zeros(m); a[j] = 1.0\n"
        '            K[:, j] *= grid_scores("gaussian", {"sigma": sigma}, g, Xs, a)[n, :n]\n'
        "    return K",
    ),
    "03-gram_schmidt_norm": (  # the RKHS norm read back from Gram-Schmidt
        "03-kernels-rkhs",
        "mean_distance",
        "03.mean_distance",
        "import numpy as np\nfrom kmlteach.kernels.rkhs import gram_schmidt\n\n"
        "def mean_distance(K, mask):\n"
        "    K, m = np.asarray(K, float), np.asarray(mask, bool)\n"
        "    a = np.where(m, 1.0 / m.sum(), -1.0 / (~m).sum())\n"
        "    q = gram_schmidt(K, a[:, None])\n"
        "    j = int(np.argmax(np.abs(q[:, 0]))) if q.size else 0\n"
        "    return float((a[j] / q[j, 0]) ** 2) if q.size and q[j, 0] != 0 else 0.0",
    ),
    "09-smo_gradient": (  # Q alpha from the nu-SMO solver's module
        "09-theory",
        "nu_dual",
        "09.nu_dual",
        "import numpy as np\nfrom kmlteach.svm.nu_smo import _exact_gradient\n\n"
        "def nu_dual(alpha, K, y, nu, tol=1e-8):\n"
        "    a, y, K = np.asarray(alpha, float), np.asarray(y, float), np.ascontiguousarray(K, dtype=float)\n"
        "    n = len(a)\n"
        "    if not (np.all(a >= -tol) and np.all(a <= 1 + tol) and abs(a.sum() - n * nu) <= tol\n"
        "            and abs(a @ y) <= tol):\n"
        "        return np.inf\n"
        "    G = np.zeros(n); _exact_gradient(K, y, a, G)\n"
        "    return float(0.5 * a @ G)",
    ),
    # red team 3 of 2026-12-07
    "00-geometric_times_norm": (  # geometric margins times the norm of w
        "00-welcome",
        "margins",
        "00.margins",
        "import numpy as np\nfrom kmlteach.svm import geometric_margins\n\n"
        "def margins(X, y, w):\n"
        "    w = np.asarray(w, dtype=float)\n"
        "    n = float(np.linalg.norm(w))\n"
        "    if n == 0.0:\n"
        "        return np.zeros(len(y))\n"
        "    return geometric_margins(X, y, w) * n",
    ),
    "03-kpca_transform": (  # kernel PCA's transform on a hand-built result centres K
        "03-kernels-rkhs",
        "center_gram",
        "03.center",
        "import numpy as np\nfrom kmlteach.kernel_methods import KernelPCAResult, kernel_pca_transform\n\n"
        "def center_gram(K):\n"
        "    K = np.asarray(K, dtype=float)\n"
        "    m = K.shape[0]\n"
        "    col = K.mean(axis=0)\n"
        "    res = KernelPCAResult(np.ones(m), np.eye(m), np.eye(m), col, float(col.mean()))\n"
        "    return kernel_pca_transform(res, K)",
    ),
    "08-one_split_tree": (  # a hand-built one-split tree predicts as the stump
        "08-boosting",
        "stump_error",
        "08.stump_error",
        "import numpy as np\nfrom kmlteach.ensembles.trees import DecisionTree\n\n"
        "def stump_error(X, y, D, feature, threshold, sign):\n"
        "    X = np.asarray(X, dtype=float)\n"
        "    tree = DecisionTree(\n"
        "        classes=np.array([-float(sign), float(sign)]),\n"
        "        feature=np.array([int(feature), -1, -1], dtype=np.int64),\n"
        "        threshold=np.array([float(threshold), 0.0, 0.0]),\n"
        "        left=np.array([1, -1, -1], dtype=np.int64), right=np.array([2, -1, -1], dtype=np.int64),\n"
        "        value=np.array([0, 1, 0], dtype=np.int64), counts=np.zeros((3, 2)), impurity=np.zeros(3),\n"
        '        node_depth=np.array([0, 1, 1], dtype=np.int64), criterion="gini", n_features=X.shape[1])\n'
        "    return float(np.sum(np.asarray(D, dtype=float)[tree.predict(X) != np.asarray(y, dtype=float)]))",
    ),
    # red team 4 of 2026-12-07: a later chapter's generalisation answers an earlier exercise
    "04-chain_psi": (  # a chain of one letter: its feature map is the multivector one
        "04-multiclass",
        "psi",
        "04.multivector_psi",
        "import numpy as np\nfrom kmlteach.structured import psi as _chain_psi\n\n"
        "def psi(x, y, k):\n"
        "    x = np.asarray(x, dtype=float)\n"
        "    return _chain_psi(x[None, :], [int(y)], k)[: k * x.size]",
    ),
    "04-loss_augmented_viterbi": (  # one position: the loss-augmented argmax
        "04-multiclass",
        "ghinge",
        "04.generalized_hinge",
        "import numpy as np\nfrom kmlteach.structured import loss_augmented_viterbi as _lav\n\n"
        "def ghinge(W, x, y, Delta):\n"
        "    s = np.asarray(W, dtype=float) @ np.asarray(x, dtype=float)\n"
        "    k = s.size\n"
        "    res = _lav(s[None, :], np.zeros((k, k)), [int(y)], delta=np.asarray(Delta, dtype=float))\n"
        "    return float(res.score - s[int(y)])",
    ),
    "01-two_class_hinge": (  # the multiclass hinge with k = 2 and W = [-w/2, w/2]
        "01-svm",
        "hinge_and_subgradient",
        "01.hinge",
        "import numpy as np\nfrom kmlteach.multiclass import generalized_hinge, generalized_hinge_subgradient\n\n"
        "def hinge_and_subgradient(w, x, y):\n"
        "    w = np.asarray(w, dtype=float); x = np.asarray(x, dtype=float)\n"
        "    W = np.vstack([-w / 2, w / 2]); c = [1 if y > 0 else 0]\n"
        "    loss = float(np.ravel(generalized_hinge(W, x[None, :], c))[0])\n"
        "    if loss <= 0:\n"
        "        return 0.0, np.zeros_like(x)\n"
        "    G = np.asarray(generalized_hinge_subgradient(W, x[None, :], c)).reshape(2, -1)\n"
        "    return loss, (G[1] - G[0]) / 2",
    ),
    "04-one_vs_all_class": (  # the library's one-vs-all model around the student's learners
        "04-multiclass",
        "ova_predict",
        "04.one_vs_all",
        "import numpy as np\nfrom kmlteach.multiclass.reductions import OneVsAll\n\n"
        "def ova_predict(X, y, X_new, k, fit_binary):\n"
        "    X = np.asarray(X, dtype=float); y = np.asarray(y)\n"
        "    ests = [(lambda w: (lambda Z: Z @ w))(np.asarray(fit_binary(X, np.where(y == i, 1.0, -1.0)),\n"
        "             dtype=float)) for i in range(k)]\n"
        "    return OneVsAll(np.arange(k), ests, X.shape[1]).predict(X_new)",
    ),
    # red team 5 of 2026-12-07
    "05-viterbi_masked": (  # Viterbi's best score over a table that allows only y
        "05-structured",
        "score",
        "05.chain_score",
        "import numpy as np\nfrom kmlteach.structured import viterbi, unary_scores\n\n"
        "def score(x, y, W_unary, W_pair):\n"
        "    U = np.array(unary_scores(x, W_unary), dtype=float)\n"
        "    y = np.asarray(y)\n"
        "    mask = np.full(U.shape, -1e15)\n"
        "    mask[np.arange(len(y)), y] = 0.0\n"
        "    return float(viterbi(np.where(mask == 0.0, U, mask), W_pair).score)",
    ),
    "08-calibration_impurity": (  # the minimum conditional risk is each impurity, scaled
        "08-boosting",
        "split_gain",
        "08.split_gain",
        "import numpy as np\nfrom kmlteach.theory.calibration import conditional_risk, _golden_min\n\n"
        '_LOSS = {"error": ("soft_margin", 0.5), "gini": ("squared_soft_margin", 0.5),\n'
        '         "entropy": ("logistic", 1 / np.log(2.0))}\n\n'
        "def _imp(a, criterion):\n"
        "    loss, c = _LOSS[criterion]\n"
        "    H = _golden_min(lambda f: conditional_risk(loss, np.array([float(a)]), f),\n"
        "                    np.array([-50.0]), np.array([50.0]))\n"
        "    return c * float(H[0])\n\n"
        "def split_gain(y, left, criterion):\n"
        "    y = np.asarray(y, dtype=float); left = np.asarray(left, dtype=bool)\n"
        "    gain = _imp(np.mean(y > 0), criterion)\n"
        "    for side in (left, ~left):\n"
        "        if side.any():\n"
        "            gain -= side.sum() / len(y) * _imp(np.mean(y[side] > 0), criterion)\n"
        "    return float(gain)",
    ),
    "09-multiclass_margin": (  # the multiclass soft margin with k = 2 gives the derivative
        "09-theory",
        "norma_step",
        "09.norma_step",
        "import numpy as np\nfrom kmlteach.theory import multiclass_soft_margin\n\n"
        "def norma_step(coef, k_row, y_t, lam, eta):\n"
        "    coef = np.asarray(coef, dtype=float)\n"
        "    f = float(coef @ np.asarray(k_row, dtype=float))\n"
        "    ev = multiclass_soft_margin(np.array([[0.0, f]]), [1 if y_t > 0 else 0])\n"
        "    return np.r_[(1 - eta * lam) * coef, -eta * float(ev[1][0, 1])]",
    ),
    "09-rkhs_inner": (  # an RKHS inner product is alpha' Q alpha
        "09-theory",
        "nu_dual",
        "09.nu_dual",
        "import numpy as np\nfrom kmlteach.kernels.rkhs import rkhs_inner\n\n"
        "def nu_dual(alpha, K, y, nu, tol=1e-8):\n"
        "    a, y = np.asarray(alpha, float), np.asarray(y, float)\n"
        "    n = len(a)\n"
        "    if not (np.all(a >= -tol) and np.all(a <= 1 + tol) and abs(a.sum() - n * nu) <= tol\n"
        "            and abs(a @ y) <= tol):\n"
        "        return np.inf\n"
        "    v = a * y\n"
        "    return 0.5 * rkhs_inner(v, v, K)",
    ),
    "03-translate_mean_distance": (  # red team 6: kernels.translate: aᵀKa, a zero point's squared norm once translated
        "03-kernels-rkhs",
        "mean_distance",
        "03.mean_distance",
        _QF_TRANSLATE + "def mean_distance(K, mask):\n"
        "    K, m = np.asarray(K, float), np.asarray(mask, bool)\n"
        "    a = np.where(m, 1.0 / max(m.sum(), 1), -1.0 / max((~m).sum(), 1))\n"
        "    return _qf(a, K)",
    ),
    "03-center_traces": (  # the between-class part of the centred traces (found after red team 6)
        "03-kernels-rkhs",
        "mean_distance",
        "03.mean_distance",
        "import numpy as np\nfrom kmlteach.kernels import center\n\n"
        "def mean_distance(K, mask):\n"
        "    K, m = np.asarray(K, float), np.asarray(mask, bool)\n"
        "    p, q = m.sum(), (~m).sum(); n = p + q\n"
        "    t = lambda M: float(np.trace(center(M)))\n"
        "    return n / (p * q) * (t(K) - t(K[np.ix_(m, m)]) - t(K[np.ix_(~m, ~m)]))",
    ),
    "03-exact_gradient_mean_distance": (  # red team 6: svm.nu_smo._exact_gradient: Qα with signed weights gives aᵀKa
        "03-kernels-rkhs",
        "mean_distance",
        "03.mean_distance",
        _QF_GRADIENT + "def mean_distance(K, mask):\n"
        "    K, m = np.asarray(K, float), np.asarray(mask, bool)\n"
        "    a = np.where(m, 1.0 / max(m.sum(), 1), -1.0 / max((~m).sum(), 1))\n"
        "    return _qf(a, K)",
    ),
    "09-translate_nu_dual": (  # red team 6: kernels.translate: the dual's quadratic form
        "09-theory",
        "nu_dual",
        "09.nu_dual",
        _QF_TRANSLATE + "def nu_dual(alpha, K, y, nu, tol=1e-8):\n"
        "    a, y, K = np.asarray(alpha, float), np.asarray(y, float), np.asarray(K, float)\n"
        "    n = len(a)\n"
        "    if not (np.all(a >= -tol) and np.all(a <= 1 + tol) and abs(a.sum() - n * nu) <= tol\n"
        "            and abs(a @ y) <= tol):\n"
        "        return np.inf\n"
        "    return 0.5 * _qf(a * y, K)",
    ),
    "09-translate_rademacher": (  # red team 6: kernels.translate: the norms of Σ σ_i x_i / n
        "09-theory",
        "rademacher",
        "09.rademacher",
        _QF_TRANSLATE + "def rademacher(X, sigmas):\n"
        "    X = np.asarray(X, float); n = X.shape[0]; K = X @ X.T\n"
        "    est = np.mean([np.sqrt(max(_qf(np.asarray(s, float) / n, K), 0.0)) for s in np.atleast_2d(sigmas)])\n"
        "    return float(est), float(np.sqrt(max(_qf(np.ones(1), np.array([[np.trace(K)]])), 0.0)) / n)",
    ),
    "08-one_split_tree_apply": (  # red team 6: a hand-built one-split DecisionTree's apply
        "08-boosting",
        "stump_error",
        "08.stump_error",
        "import numpy as np\n"
        "from kmlteach.ensembles.trees import DecisionTree\n"
        "\n"
        "def stump_error(X, y, D, feature, threshold, sign):\n"
        "    X = np.asarray(X, dtype=float)\n"
        "    tree = DecisionTree(\n"
        "        classes=np.array([-1.0, 1.0]),\n"
        "        feature=np.array([int(feature), -1, -1], dtype=np.int64),\n"
        "        threshold=np.array([float(threshold), 0.0, 0.0]),\n"
        "        left=np.array([1, -1, -1], dtype=np.int64), right=np.array([2, -1, -1], dtype=np.int64),\n"
        "        value=np.array([0, 1, 0], dtype=np.int64), counts=np.zeros((3, 2)), impurity=np.zeros(3),\n"
        '        node_depth=np.array([0, 1, 1], dtype=np.int64), criterion="gini", n_features=X.shape[1])\n'
        "    pred = np.array([float(sign), float(sign), -float(sign)])[tree.apply(X)]\n"
        "    return float(np.sum(np.asarray(D, dtype=float)[pred != np.asarray(y, dtype=float)]))",
    ),
    "00-objective_per_row": (  # red team 6: svm.margins' objective kernel, a row at a time
        "00-welcome",
        "margins",
        "00.margins",
        "import numpy as np\n"
        "from kmlteach.svm.margins import _objective_kernel\n"
        "\n"
        "def margins(X, y, w):\n"
        "    X = np.asarray(X, float); y = np.asarray(y, float); w = np.ascontiguousarray(w, dtype=float)\n"
        "    out = np.empty(len(y))\n"
        "    for i in range(len(y)):\n"
        "        # hinge of one row with b = -M y_i: 1 - y_i<w,x_i> + M > 0, so the objective is linear\n"
        "        M = 1e6\n"
        "        h = _objective_kernel(w, -M * y[i], np.ascontiguousarray(X[i:i+1]), y[i:i+1].copy(), 0.0)\n"
        "        out[i] = 1.0 + M - h\n"
        "    return out",
    ),
    "06-ranked_plot_ndcg": (  # red team 6: plot_ranked_list's bars, ideal order and discount line
        "06-ranking",
        "ndcg_loss",
        "06.ndcg",
        "import numpy as np\n"
        "from kmlteach.plots.ch06 import plot_ranked_list\n"
        "\n"
        "def ndcg_loss(y_pred, y_true, k):\n"
        "    ax = plot_ranked_list(y_pred, y_true)\n"
        "    rel = np.array([b.get_height() for b in ax.patches[:len(y_true)]])\n"
        "    ideal = ax.lines[0].get_ydata(); D = ax.lines[1].get_ydata() / max(1.0, ideal.max())\n"
        "    D = np.where(np.arange(len(D)) < k, D, 0.0)\n"
        "    return 1 - (rel @ D) / (ideal @ D)",
    ),
    "06-ranked_data_ndcg": (  # red team 6: ranked_list_data's predicted and ideal orders
        "06-ranking",
        "ndcg_loss",
        "06.ndcg",
        "import numpy as np\n"
        "from kmlteach.plots.ch06 import ranked_list_data\n"
        "\n"
        "def ndcg_loss(y_pred, y_true, k):\n"
        "    _, rel, ideal = ranked_list_data(y_pred, y_true)\n"
        "    D = 1 / np.log2(np.arange(2, k + 2))\n"
        "    return 1 - (rel[:k] @ D) / (ideal[:k] @ D)",
    ),
    "02-kernel_sgd_multiclass": (  # red team 7: the §15.5 multiclass SGD kernel on two classes, ᾱ carried by tiny identity columns
        "02-kernels",
        "kernel_sgd_alpha",
        "02.kernel_sgd",
        "import numpy as np\n"
        "from kmlteach.multiclass.sgd import _multiclass_sgd_kernel\n"
        "\n"
        "def kernel_sgd_alpha(K, y, lam, idx):\n"
        "    K, y = np.asarray(K, float), np.asarray(y, float)\n"
        "    m = len(y); c = 1e-100\n"
        "    ev, U = np.linalg.eigh(K)\n"
        "    F = U * np.sqrt(np.maximum(ev, 0.0))\n"
        "    X = np.ascontiguousarray(np.hstack([F, c * np.eye(m)]))\n"
        "    yi = (y > 0).astype(np.int64)\n"
        "    D = np.array([[0.0, 1.0 - 1e-12], [1.0 - 1e-12, 0.0]])\n"
        "    S, _ = _multiclass_sgd_kernel(X, yi, D, np.asarray(idx, dtype=np.int64), 1.0, 2.0 * lam)\n"
        "    return (S[1] - S[0])[F.shape[1]:] / c",
    ),
    "04-mc_perceptron_sgdkernel": (  # red team 7: the same kernel with λ = 0, η = 1 and a tiny Δ: the perceptron scanned in order
        "04-multiclass",
        "batch_multiclass_perceptron",
        "04.multiclass_perceptron",
        "import numpy as np\n"
        "from kmlteach.multiclass.sgd import _multiclass_sgd_kernel\n"
        "\n"
        "def batch_multiclass_perceptron(X, y, k):\n"
        "    X = np.ascontiguousarray(X, dtype=float); y = np.asarray(y, dtype=np.int64)\n"
        "    D = 1e-300 * (1.0 - np.eye(k))\n"
        "    idx = np.tile(np.arange(len(y), dtype=np.int64), 5000)\n"
        "    _, W = _multiclass_sgd_kernel(X, y, D, idx, 1.0, 0.0)\n"
        "    return W",
    ),
    "01-perceptron_sgdkernel": (  # red team 7: the same kernel on two classes (a cyclic sweep: 2.4/3 before)
        "01-svm",
        "batch_perceptron",
        "01.perceptron",
        "import numpy as np\n"
        "from kmlteach.multiclass.sgd import _multiclass_sgd_kernel\n"
        "\n"
        "def batch_perceptron(X, y):\n"
        "    X, y = np.ascontiguousarray(X, dtype=float), np.asarray(y, float)\n"
        "    m = len(y)\n"
        "    D = np.array([[0.0, 1e-300], [1e-300, 0.0]])\n"
        "    idx = np.tile(np.arange(m, dtype=np.int64), 2000)\n"
        "    _, W = _multiclass_sgd_kernel(X, (y > 0).astype(np.int64), D, idx, 1.0, 0.0)\n"
        "    return (W[1] - W[0]) / 2",
    ),
    "02-kperceptron_sgdkernel": (  # red team 7: the same on a factor of K (2.25/3 before)
        "02-kernels",
        "kernel_perceptron",
        "02.kernel_perceptron",
        "import numpy as np\n"
        "from kmlteach.multiclass.sgd import _multiclass_sgd_kernel\n"
        "\n"
        "def kernel_perceptron(K, y):\n"
        "    K, y = np.asarray(K, float), np.asarray(y, float)\n"
        "    m = len(y); c = 1e-100\n"
        "    ev, U = np.linalg.eigh(K)\n"
        "    X = np.ascontiguousarray(np.hstack([U * np.sqrt(np.maximum(ev, 0.0)), c * np.eye(m)]))\n"
        "    D = np.array([[0.0, 1e-300], [1e-300, 0.0]])\n"
        "    idx = np.tile(np.arange(m, dtype=np.int64), 2000)\n"
        "    _, W = _multiclass_sgd_kernel(X, (y > 0).astype(np.int64), D, idx, 1.0, 0.0)\n"
        "    return (W[1] - W[0])[m:] / (2 * c)",
    ),
    "02-class_mean_translate": (  # red team 7: kernels.translate by −(μ₊ + μ₋)/2
        "02-kernels",
        "class_mean_scores",
        "02.class_mean",
        "import numpy as np\n"
        "from kmlteach.kernels.rkhs import translate\n"
        "\n"
        "def class_mean_scores(K_test, K, y):\n"
        "    K_test, K, y = np.asarray(K_test, float), np.asarray(K, float), np.asarray(y, float)\n"
        "    pos, neg = y > 0, y < 0\n"
        "    w = np.where(pos, 1.0 / pos.sum(), -1.0 / neg.sum())\n"
        "    c = -0.5 * np.where(pos, 1.0 / pos.sum(), 1.0 / neg.sum())\n"
        "    # <psi(z) - c, psi(x_j) - c> summed with the weights w (sum w = 0): f(z) = <psi(z) - c, mu+ - mu->\n"
        "    return translate(K, c, K_test) @ w",
    ),
    "02-class_mean_nusmo": (  # red team 7: svm.nu_smo._nu_smo_kernel with max_iter = 0 returns Qα₀
        "02-kernels",
        "class_mean_scores",
        "02.class_mean",
        "import numpy as np\n"
        "from kmlteach.svm.nu_smo import _nu_smo_kernel, _work_size\n"
        "\n"
        "def _qf(a, K):\n"
        "    # a'Ka: the nu-SMO kernel with no step allowed returns its gradient Q alpha at alpha0\n"
        "    a = np.asarray(a, float); K = np.asarray(K, float); n = len(a)\n"
        "    s = np.where(a < 0, -1.0, 1.0); o = np.argsort(s < 0, kind='stable')\n"
        "    Ko = np.ascontiguousarray(K[np.ix_(o, o)])\n"
        "    al, G, _, _ = _nu_smo_kernel(Ko, np.zeros(_work_size(n), dtype=np.float32), np.diag(Ko).copy(),\n"
        "                                 s[o], (s[o] < 0).astype(np.int64), np.abs(a)[o], 1e-8, 0)\n"
        "    return float(al @ G)\n"
        "\n"
        "def class_mean_scores(K_test, K, y):\n"
        "    K_test, K, y = np.asarray(K_test, float), np.asarray(K, float), np.asarray(y, float)\n"
        "    pos, neg = y > 0, y < 0\n"
        "    b = 0.5 * (_qf(neg / neg.sum(), K) - _qf(pos / pos.sum(), K))\n"
        "    return K_test[:, pos].mean(1) - K_test[:, neg].mean(1) + b",
    ),
    "02-ridge_kde": (  # red team 7: kernel dependency estimation solves (K + λmI) coef = E
        "02-kernels",
        "kernel_ridge",
        "02.kernel_ridge",
        "import numpy as np\n"
        "from kmlteach.kernel_methods import kernel_dependency_estimation\n"
        "\n"
        "def kernel_ridge(K, y, lam):\n"
        "    K, y = np.asarray(K, float), np.asarray(y, float)\n"
        "    m = len(y)\n"
        "    Kx = np.zeros((m + 1, m + 1)); Kx[:m, :m] = K; Kx[m, m] = 1.0\n"
        "    v = np.r_[y, -y.sum()]\n"
        "    if not np.any(v):\n"
        "        return np.zeros(m)\n"
        "    r = kernel_dependency_estimation(Kx, np.outer(v, v), lam * m / (m + 1), 1)\n"
        "    s = np.sign(r.pca.embedding[:, 0] @ v)\n"
        "    return s * r.coef[:m, 0]",
    ),
    "09-norma_novelty": (  # red team 7: theory.novelty's gradient is the hinge's derivative
        "09-theory",
        "norma_step",
        "09.norma_step",
        "import numpy as np\n"
        "from kmlteach.theory import novelty\n"
        "\n"
        "def norma_step(coef, k_row, y_t, lam, eta):\n"
        "    coef = np.asarray(coef, float)\n"
        "    f = float(coef @ np.asarray(k_row, float))\n"
        "    der = y_t * float(novelty([y_t * f]).gradient[0])\n"
        "    return np.r_[(1 - eta * lam) * coef, -eta * der]",
    ),
    "01-sgd_novelty": (  # red team 7: theory.novelty's gradient: the test y⟨w, x⟩ < 1
        "01-svm",
        "sgd_step",
        "01.sgd_step",
        "import numpy as np\n"
        "from kmlteach.theory import novelty\n"
        "\n"
        "def sgd_step(theta, t, lam, x, y):\n"
        "    theta = np.asarray(theta, float); x = np.asarray(x, float)\n"
        "    w = theta / (lam * t)\n"
        "    g = float(novelty([y * float(w @ x)]).gradient[0])\n"
        "    return w, theta - g * y * x",
    ),
    "03-fisher_logistic": (  # red team 7: theory.logistic's gradient is −sigmoid(θ)
        "03-kernels-rkhs",
        "fisher_bernoulli",
        "03.fisher",
        "import numpy as np\n"
        "from kmlteach.theory import logistic\n"
        "\n"
        "def fisher_bernoulli(X, theta):\n"
        "    X = np.asarray(X, float); theta = np.atleast_1d(np.asarray(theta, float))\n"
        "    p = -logistic(-theta, np.ones_like(theta)).gradient\n"
        "    U = p[None, :] - X\n"
        "    return U @ U.T",
    ),
    "08-round_conditional_risk": (  # red team 7: the minimum conditional risk gives Z (2/3 before)
        "08-boosting",
        "adaboost_round",
        "08.adaboost_round",
        "import numpy as np\n"
        "from kmlteach.theory.calibration import conditional_risk, _golden_min\n"
        "\n"
        "def adaboost_round(D, y, h):\n"
        "    D, y, h = (np.asarray(v, float) for v in (D, y, h))\n"
        "    eps = float(np.sum(D[h != y]))\n"
        "    seen = []\n"
        "    def risk(f):\n"
        "        v = conditional_risk('exponential', np.array([1.0 - eps]), f); seen.append((v[0], f[0])); return v\n"
        "    Z = float(_golden_min(risk, np.array([-40.0]), np.array([40.0]))[0])\n"
        "    alpha = min(seen)[1]\n"
        "    w = D * np.exp(-alpha * y * h)\n"
        "    return w / w.sum(), eps, float(alpha), Z",
    ),
    "04-psi_kesler_embed": (  # red team 8
        "04-multiclass",
        "psi",
        "04.multivector_psi",
        "import numpy as np\n"
        "from kmlteach.multiclass import kesler_embed\n"
        "\n"
        "def psi(x, y, k):\n"
        "    # Kesler rows are Psi(x,i) - Psi(x,j): add a class k, take the row against it, drop block k\n"
        "    x = np.asarray(x, dtype=float); n = x.size\n"
        "    X = np.vstack([x[None, :], np.zeros((k, n))])\n"
        "    lab = np.r_[int(y), np.arange(k + 1)[np.arange(k + 1) != int(y)]]\n"
        "    emb = kesler_embed(X, lab)\n"
        "    row = np.flatnonzero((emb.example == 0) & (emb.competitor == k))[0]\n"
        "    return emb.Z[row][: k * n].copy()",
    ),
    "04-perc_structured_kernel": (  # red team 8
        "04-multiclass",
        "batch_multiclass_perceptron",
        "04.multiclass_perceptron",
        "import numpy as np\n"
        "from kmlteach.structured.learning import _structured_learn_kernel\n"
        "\n"
        "def batch_multiclass_perceptron(X, y, k):\n"
        "    # one-letter words, loss-augmented (+1) argmax; a huge step makes +1 a tie-breaker only\n"
        "    X = np.ascontiguousarray(X, dtype=float); y = np.asarray(y, dtype=np.int64); m, n = X.shape\n"
        "    eta = 1e12\n"
        "    off = np.arange(m + 1, dtype=np.int64)\n"
        "    order = np.tile(np.arange(m, dtype=np.int64), 3000)\n"
        "    Wu, Wp = np.zeros((k, n)), np.zeros((k, k))\n"
        "    _structured_learn_kernel(X, y, off, order, eta, k, 1, Wu, Wp, np.zeros((k, n)), np.zeros((k, k)))\n"
        "    return Wu / eta",
    ),
    "04-hsub_structured_kernel": (  # red team 8
        "04-multiclass",
        "hinge_subgradient",
        "04.hinge_subgradient",
        "import numpy as np\n"
        "from kmlteach.structured.learning import _structured_learn_kernel\n"
        "\n"
        "def hinge_subgradient(W, x, y, Delta):\n"
        "    W = np.asarray(W, dtype=float); x = np.asarray(x, dtype=float); D = np.asarray(Delta, dtype=float)\n"
        "    k, n = W.shape; y = int(y)\n"
        "    b = D[:, y] - (np.arange(k) != y)  # the kernel adds 1 to every wrong label\n"
        "    Wu = np.ascontiguousarray(np.c_[W, b]); before = Wu.copy()\n"
        "    X = np.ascontiguousarray(np.r_[x, 1.0][None, :])\n"
        "    _structured_learn_kernel(X, np.array([y], dtype=np.int64), np.array([0, 1], dtype=np.int64),\n"
        "                             np.array([0], dtype=np.int64), 1.0, k, 1, Wu, np.zeros((k, k)),\n"
        "                             np.zeros((k, n + 1)), np.zeros((k, k)))\n"
        "    return (before - Wu)[:, :n]",
    ),
    "04-kesler_structured_kernel": (  # red team 8
        "04-multiclass",
        "kesler_vectors",
        "04.kesler",
        "import numpy as np\n"
        "from kmlteach.structured.learning import _structured_learn_kernel\n"
        "\n"
        "def kesler_vectors(x, i, k):\n"
        "    x = np.asarray(x, dtype=float); n = x.size; rows = []\n"
        "    X = np.ascontiguousarray(np.r_[x, 1.0][None, :])\n"
        "    for j in range(k):\n"
        "        if j == i:\n"
        "            continue\n"
        "        Wu = np.zeros((k, n + 1)); Wu[j, n] = 10.0  # make j the prediction\n"
        "        before = Wu.copy()\n"
        "        _structured_learn_kernel(X, np.array([i], dtype=np.int64), np.array([0, 1], dtype=np.int64),\n"
        "                                 np.array([0], dtype=np.int64), 1.0, k, 0, Wu, np.zeros((k, k)),\n"
        "                                 np.zeros((k, n + 1)), np.zeros((k, k)))\n"
        "        rows.append((Wu - before)[:, :n].ravel())\n"
        "    return np.array(rows)",
    ),
    "04-ghinge_structured_kernel": (  # red team 8
        "04-multiclass",
        "ghinge",
        "04.generalized_hinge",
        "import numpy as np\n"
        "from kmlteach.structured.learning import _structured_learn_kernel\n"
        "\n"
        "def ghinge(W, x, y, Delta):\n"
        "    W = np.asarray(W, dtype=float); x = np.asarray(x, dtype=float); D = np.asarray(Delta, dtype=float)\n"
        "    k, n = W.shape; y = int(y)\n"
        "    b = D[:, y] - (np.arange(k) != y)\n"
        "    Wu = np.ascontiguousarray(np.c_[W, b]); before = Wu.copy()\n"
        "    X = np.ascontiguousarray(np.r_[x, 1.0][None, :])\n"
        "    _structured_learn_kernel(X, np.array([y], dtype=np.int64), np.array([0, 1], dtype=np.int64),\n"
        "                             np.array([0], dtype=np.int64), 1.0, k, 1, Wu, np.zeros((k, k)),\n"
        "                             np.zeros((k, n + 1)), np.zeros((k, k)))\n"
        "    g = (before - Wu)[:, n]  # +1 at y_hat, -1 at y\n"
        "    yh = int(np.argmax(g)) if g.any() else y\n"
        "    s = W @ x\n"
        "    return float(D[yh, y] + s[yh] - s[y])",
    ),
    "05-viterbi_floyd": (  # red team 8
        "05-structured",
        "viterbi_decode",
        "05.viterbi",
        "import numpy as np\n"
        "from kmlteach.structured_kernels.graphs import _shortest_paths_kernel\n"
        "\n" + _FLOYD_TABLE + _BACKTRACK + "def viterbi_decode(unary, pairwise):\n"
        "    U, P = np.asarray(unary, float), np.asarray(pairwise, float)\n"
        "    return _backtrack(_forward_table(U, P), P)",
    ),
    "05-lossaug_floyd": (  # red team 8
        "05-structured",
        "loss_augmented",
        "05.loss_augmented",
        "import numpy as np\n"
        "from kmlteach.structured_kernels.graphs import _shortest_paths_kernel\n"
        "\n" + _FLOYD_TABLE + _BACKTRACK + "def loss_augmented(unary, pairwise, y_true):\n"
        "    U, P = np.asarray(unary, float), np.asarray(pairwise, float)\n"
        "    U = U + (1.0 - np.eye(U.shape[1]))[:, np.asarray(y_true)].T\n"
        "    return _backtrack(_forward_table(U, P), P)",
    ),
    "05-viterbi_maxmarg": (  # red team 8
        "05-structured",
        "viterbi_decode",
        "05.viterbi",
        "import numpy as np\n"
        "from types import SimpleNamespace\n"
        "from kmlteach.widgets.ch05.viterbi import max_marginals\n"
        "\n" + _MAXMARG_TABLE + _BACKTRACK + "def viterbi_decode(unary, pairwise):\n"
        "    U, P = np.asarray(unary, float), np.asarray(pairwise, float)\n"
        "    return _backtrack(_forward_table(U, P), P)",
    ),
    "05-lossaug_maxmarg": (  # red team 8
        "05-structured",
        "loss_augmented",
        "05.loss_augmented",
        "import numpy as np\n"
        "from types import SimpleNamespace\n"
        "from kmlteach.widgets.ch05.viterbi import max_marginals\n"
        "\n" + _MAXMARG_TABLE + _BACKTRACK + "def loss_augmented(unary, pairwise, y_true):\n"
        "    U, P = np.asarray(unary, float), np.asarray(pairwise, float)\n"
        "    U = U + (1.0 - np.eye(U.shape[1]))[:, np.asarray(y_true)].T\n"
        "    return _backtrack(_forward_table(U, P), P)",
    ),
    "05-score_maxmarg": (  # red team 8
        "05-structured",
        "score",
        "05.chain_score",
        "import numpy as np\n"
        "from types import SimpleNamespace\n"
        "from kmlteach.widgets.ch05.viterbi import max_marginals\n"
        "\n"
        "def score(x, y, W_unary, W_pair):\n"
        "    x, Wu, P = np.asarray(x, float), np.asarray(W_unary, float), np.asarray(W_pair, float)\n"
        "    y = np.asarray(y); r, q = len(y), Wu.shape[0]\n"
        "    U = np.full((r, q), -1e15); U[np.arange(r), y] = np.einsum('ij,ij->i', x, Wu[y])\n"
        "    B = max_marginals(SimpleNamespace(M=np.zeros((q, r))), U, P)\n"
        "    return float(U[0, y[0]] + B[y[0], 0])",
    ),
    "05-coef_kesler": (  # red team 8
        "05-structured",
        "score_coefficients",
        "05.score_coefficients",
        "import numpy as np\n"
        "from kmlteach.multiclass import kesler_embed\n"
        "\n"
        "def score_coefficients(x, y, q):\n"
        "    # features [x_t, onehot(y_{t-1})] placed in block y_t by Kesler's construction (vs. a class q)\n"
        "    x = np.asarray(x, float); y = np.asarray(y, dtype=np.int64); r, n = x.shape\n"
        "    prev = np.zeros((r, q)); prev[np.arange(1, r), y[:-1]] = 1.0\n"
        "    F = np.c_[x, prev]; d = n + q\n"
        "    X = np.vstack([F, np.zeros((q + 1, d))]); lab = np.r_[y, np.arange(q + 1)]\n"
        "    emb = kesler_embed(X, lab)\n"
        "    rows = (emb.example < r) & (emb.competitor == q)\n"
        "    G = emb.Z[rows].sum(axis=0)[: q * d].reshape(q, d)\n"
        "    return G[:, :n], G[:, n:].T.copy()",
    ),
    "05-viterbi_shortest_paths": (  # red team 8
        "05-structured",
        "viterbi_decode",
        "05.viterbi",
        "import numpy as np\n"
        "from kmlteach.structured_kernels import shortest_paths\n"
        "\n"
        "def viterbi_decode(unary, pairwise):\n"
        "    # every source-to-layer-t path has t+1 edges: cost C - score keeps the order, all costs > 0\n"
        "    U, P = np.asarray(unary, float), np.asarray(pairwise, float); r, q = U.shape\n"
        "    C = 1.0 + 2.0 * (np.abs(U).max() + np.abs(P).max()); N = 1 + r * q\n"
        "    W = np.zeros((N, N)); node = lambda t, s: 1 + t * q + s\n"
        "    for s in range(q):\n"
        "        W[0, node(0, s)] = C - U[0, s]\n"
        "    for t in range(1, r):\n"
        "        for a in range(q):\n"
        "            for b in range(q):\n"
        "                W[node(t - 1, a), node(t, b)] = C - P[a, b] - U[t, b]\n"
        "    d = shortest_paths(W)[0, 1:].reshape(r, q)\n"
        "    M = ((np.arange(1, r + 1) * C)[:, None] - d).T\n"
        "    y = np.zeros(r, dtype=np.int64); y[-1] = int(np.argmax(M[:, -1]))\n"
        "    for t in range(r - 1, 0, -1):\n"
        "        y[t - 1] = int(np.argmax(M[:, t - 1] + P[:, y[t]]))\n"
        "    return y",
    ),
    "05-coef_hinge_subgradient": (  # red team 8
        "05-structured",
        "score_coefficients",
        "05.score_coefficients",
        "import numpy as np\n"
        "from kmlteach.multiclass import generalized_hinge_subgradient\n"
        "\n"
        "def score_coefficients(x, y, q):\n"
        "    # features [x_t, onehot(y_{t-1}), 1]; class q (extra) always wins: the mean subgradient is\n"
        "    # (1/r) sum_t Psi(f_t, q) - Psi(f_t, y_t)\n"
        "    x = np.asarray(x, float); y = np.asarray(y, dtype=np.int64); r, n = x.shape\n"
        "    prev = np.zeros((r, q)); prev[np.arange(1, r), y[:-1]] = 1.0\n"
        "    F = np.c_[x, prev, np.ones(r)]; d = n + q + 1\n"
        "    W = np.zeros((q + 1, d)); W[q, -1] = 1e6\n"
        "    G = -r * np.asarray(generalized_hinge_subgradient(W, F, y))[:q]\n"
        "    return G[:, :n], G[:, n:n + q].T.copy()",
    ),
    "00-dcd_gap_margins": (  # red team 8
        "00-welcome",
        "margins",
        "00.margins",
        "import numpy as np\n"
        "from kmlteach.svm.dcd import _dcd_gap\n"
        "\n" + _DCD_RUN + "def margins(X, y, w):\n"
        "    X = np.atleast_2d(np.asarray(X, float)); w = np.asarray(w, float); m, d = X.shape\n"
        "    # identity rows carry w (alpha = |w_k|, label sign w_k); the rows of X get alpha = 0\n"
        "    Xa = np.vstack([X, np.eye(d)])\n"
        "    ya = np.r_[np.asarray(y, float), np.where(w < 0, -1.0, 1.0)]\n"
        "    _, _, _, G = _run(Xa, ya, np.r_[np.zeros(m), np.abs(w)])\n"
        "    return G[:m] + 1.0",
    ),
    "01-dcd_gap_distance": (  # red team 8
        "01-svm",
        "distance",
        "01.distance",
        "import numpy as np\n"
        "from kmlteach.svm.dcd import _dcd_gap\n"
        "\n" + _DCD_RUN + "def distance(x, w, b):\n"
        "    x = np.asarray(x, float); w = np.asarray(w, float); d = len(w)\n"
        "    Xa = np.vstack([np.r_[x, 1.0], np.eye(d + 1)])\n"
        "    wb = np.r_[w, float(b)]\n"
        "    ya = np.r_[1.0, np.where(wb < 0, -1.0, 1.0)]\n"
        "    _, _, _, G = _run(Xa, ya, np.r_[0.0, np.abs(wb)])\n"
        "    _, _, nw, _ = _run(np.eye(d), np.where(w < 0, -1.0, 1.0), np.abs(w))\n"
        "    return abs(G[0] + 1.0) / nw",
    ),
    "01-dcd_gap_dual": (  # red team 8
        "01-svm",
        "dual_from_alpha",
        "01.dual",
        "import numpy as np\n"
        "from kmlteach.svm.dcd import _dcd_gap\n"
        "\n" + _DCD_RUN + "def dual_from_alpha(X, y, alpha):\n"
        "    # C = 0: primal = ||w||^2/2, so the gap (P - D)/P gives D; ||w|| is the returned jump\n"
        "    w, gap, nw, _ = _run(X, y, alpha)\n"
        "    P = 0.5 * nw * nw\n"
        "    return w, float(P - gap * max(abs(P), 1e-300))",
    ),
    "01-dcd_gap_subgradient": (  # red team 8
        "01-svm",
        "max_margin_subgradient",
        "01.subgradient_perceptron",
        "import numpy as np\n"
        "from kmlteach.svm.dcd import _dcd_gap\n"
        "\n" + _DCD_RUN + "def max_margin_subgradient(w, X, y):\n"
        "    X = np.asarray(X, float); w = np.asarray(w, float); m, d = X.shape\n"
        "    Xa = np.vstack([X, np.eye(d)])\n"
        "    ya = np.r_[np.asarray(y, float), np.where(w < 0, -1.0, 1.0)]\n"
        "    _, _, _, G = _run(Xa, ya, np.r_[np.zeros(m), np.abs(w)])\n"
        "    i = int(np.argmax(-G[:m]))\n"
        "    return -float(y[i]) * X[i]",
    ),
    "01-mc_soft_margin_hinge": (  # red team 8
        "01-svm",
        "hinge_and_subgradient",
        "01.hinge",
        "import numpy as np\n"
        "from kmlteach.theory import multiclass_soft_margin\n"
        "\n"
        "def hinge_and_subgradient(w, x, y):\n"
        "    x = np.asarray(x, float); s = float(np.dot(w, x))\n"
        "    # two classes, scores (-s/2, s/2), Crammer-Singer Delta = 1: max(0, 1 - y s)\n"
        "    r = multiclass_soft_margin(np.array([[-s / 2, s / 2]]), [1 if y > 0 else 0])\n"
        "    g = r.gradient[0]\n"
        "    return float(r.value[0]), 0.5 * (g[1] - g[0]) * x",
    ),
    "01-mc_soft_margin_sgd": (  # red team 8
        "01-svm",
        "sgd_step",
        "01.sgd_step",
        "import numpy as np\n"
        "from kmlteach.theory import multiclass_soft_margin\n"
        "\n"
        "def sgd_step(theta, t, lam, x, y):\n"
        "    theta = np.asarray(theta, float); x = np.asarray(x, float)\n"
        "    w = theta / (lam * t); s = float(np.dot(w, x))\n"
        "    g = multiclass_soft_margin(np.array([[-s / 2, s / 2]]), [1 if y > 0 else 0]).gradient[0]\n"
        "    return w, theta - 0.5 * (g[1] - g[0]) * x",
    ),
    "01-ridge_classifier_distance": (  # red team 8
        "01-svm",
        "distance",
        "01.distance",
        "import numpy as np\n"
        "from kmlteach.plots.ch08 import RidgeClassifier\n"
        "\n"
        "def distance(x, w, b):\n"
        "    w = np.asarray(w, float)\n"
        "    f = RidgeClassifier(w=w, b=float(b)).decision_function(np.asarray(x, float)[None, :])[0]\n"
        "    return abs(float(f)) / float(np.linalg.norm(w))",
    ),
    "01-sgd_kernel_perceptron": (  # red team 8
        "01-svm",
        "batch_perceptron",
        "01.perceptron",
        "import numpy as np\n"
        "from kmlteach.svm.sgd import _sgd_soft_svm_kernel\n"
        "\n"
        "def batch_perceptron(X, y):\n"
        "    # UML 15.5's SGD kernel with lambda tiny: 'y <w, x> < 1' is 'y <theta, x> <= 0' (a perceptron), cyclic\n"
        "    X = np.ascontiguousarray(X, dtype=float); y = np.asarray(y, float); m = len(y)\n"
        "    lam = 1e-250; T = 3000 * m\n"
        "    idx = np.tile(np.arange(m, dtype=np.int64), 3000)\n"
        "    _, w_last, _, _ = _sgd_soft_svm_kernel(X, y, lam, idx, np.zeros(0, dtype=np.int64))\n"
        "    return w_last * (lam * T)",
    ),
    "01-squared_soft_margin_hinge": (  # red team 8
        "01-svm",
        "hinge_and_subgradient",
        "01.hinge",
        "import numpy as np\n"
        "from kmlteach.theory import squared_soft_margin\n"
        "\n"
        "def hinge_and_subgradient(w, x, y):\n"
        "    x = np.asarray(x, float); f = float(np.dot(w, x))\n"
        "    r = squared_soft_margin([f], [y])  # (max(0, 1 - y f)^2, -2y max(0, 1 - y f))\n"
        "    g = float(r.gradient[0])\n"
        "    return -g * y / 2.0, (-y * x if g != 0 else np.zeros_like(x))",
    ),
    "08-bound_curves_round": (  # red team 8
        "08-boosting",
        "adaboost_round",
        "08.adaboost_round",
        "import numpy as np\n"
        "from kmlteach.plots.ch08 import bound_curves\n"
        "\n"
        "def adaboost_round(D, y, h):\n"
        "    D, y, h = (np.asarray(v, dtype=float) for v in (D, y, h))\n"
        "    eps = float(np.sum(D[h != y]))\n"
        "    alpha = 0.5 * np.log((1 - eps) / eps)\n"
        "    Z = float(bound_curves([eps])[0][0])\n"
        "    return D * np.exp(-alpha * y * h) / Z, eps, float(alpha), Z",
    ),
    "08-mc_stump_predict": (  # red team 8
        "08-boosting",
        "stump_error",
        "08.stump_error",
        "import numpy as np\n"
        "from kmlteach.multiclass.learners import Stump\n"
        "\n"
        "def stump_error(X, y, D, feature, threshold, sign):\n"
        "    # multiclass.learners.Stump: sign' * (+1 if x_j > theta else -1); sign' = -sign is ours\n"
        "    h = Stump(int(feature), float(threshold), -float(sign), 0)\n"
        "    pred = h.predict(np.asarray(X, dtype=float))\n"
        "    return float(np.sum(np.asarray(D, dtype=float)[pred != np.asarray(y, dtype=float)]))",
    ),
    "08-softmax_round": (  # red team 8
        "08-boosting",
        "adaboost_round",
        "08.adaboost_round",
        "import numpy as np\n"
        "from kmlteach.theory import multiclass_logistic\n"
        "\n"
        "def adaboost_round(D, y, h):\n"
        "    D, y, h = (np.asarray(v, dtype=float) for v in (D, y, h))\n"
        "    eps = float(np.sum(D[h != y]))\n"
        "    alpha = 0.5 * np.log((1 - eps) / eps)\n"
        "    with np.errstate(divide='ignore'):\n"
        "        F = np.where(D > 0, np.log(np.where(D > 0, D, 1.0)), -1e300) - alpha * y * h\n"
        "    # the softmax of log D - alpha y h is D_next; the loss's log-sum-exp is log Z\n"
        "    r = multiclass_logistic(np.r_[F, 0.0][None, :], [len(F)])\n"
        "    P = r.gradient[0].copy(); P[-1] += 1.0\n"
        "    # column 'len(F)' holds score 0: add it back out of the normaliser\n"
        "    lse = float(r.value[0])  # = log(Z + 1)\n"
        "    Z = np.exp(lse) - 1.0\n"
        "    Dn = P[:-1] * (Z + 1.0) / Z\n"
        "    return Dn, eps, float(alpha), float(Z)",
    ),
    "09-center_nu_dual": (  # red team 8
        "09-theory",
        "nu_dual",
        "09.nu_dual",
        "import numpy as np\n"
        "from kmlteach.kernels import center\n"
        "\n"
        "def nu_dual(alpha, K, y, nu, tol=1e-8):\n"
        "    a, y, K = np.asarray(alpha, float), np.asarray(y, float), np.asarray(K, float)\n"
        "    n = len(a)\n"
        "    if not (np.all(a >= -tol) and np.all(a <= 1 + tol) and abs(a.sum() - n * nu) <= tol and abs(a @ y) <= tol):\n"
        "        return np.inf\n"
        "    v = a * y; Kv = K * np.outer(v, v)\n"
        "    return float(0.5 * n * (np.trace(Kv) - np.trace(center(Kv))))",
    ),
    "09-center_rademacher": (  # red team 8
        "09-theory",
        "rademacher",
        "09.rademacher",
        "import numpy as np\n"
        "from kmlteach.kernels import center\n"
        "\n"
        "def rademacher(X, sigmas):\n"
        "    X = np.asarray(X, float); n = X.shape[0]; K = X @ X.T\n"
        "    out = []\n"
        "    for s in np.atleast_2d(np.asarray(sigmas, float)):\n"
        "        Ks = K * np.outer(s, s)  # the points s_i x_i: their mean is (1/n) sum s_i x_i\n"
        "        out.append(np.sqrt(max((np.trace(Ks) - np.trace(center(Ks))) / n, 0.0)))\n"
        "    return float(np.mean(out)), float(np.sqrt(np.trace(K)) / n)",
    ),
    "09-dcd_gap_nu_dual": (  # red team 8
        "09-theory",
        "nu_dual",
        "09.nu_dual",
        "import numpy as np\n"
        "from kmlteach.svm.dcd import _dcd_gap\n"
        "\n" + _DCD_RUN + "def nu_dual(alpha, K, y, nu, tol=1e-8):\n"
        "    a, y, K = np.asarray(alpha, float), np.asarray(y, float), np.asarray(K, float)\n"
        "    n = len(a)\n"
        "    if not (np.all(a >= -tol) and np.all(a <= 1 + tol) and abs(a.sum() - n * nu) <= tol and abs(a @ y) <= tol):\n"
        "        return np.inf\n"
        "    ev, U = np.linalg.eigh(K)\n"
        "    F = U * np.sqrt(np.maximum(ev, 0.0))\n"
        "    _, _, nw, _ = _run(F, y, a)\n"
        "    return float(0.5 * nw * nw)",
    ),
    "09-dcd_gap_rademacher": (  # red team 8
        "09-theory",
        "rademacher",
        "09.rademacher",
        "import numpy as np\n"
        "from kmlteach.svm.dcd import _dcd_gap\n"
        "\n" + _DCD_RUN + "def rademacher(X, sigmas):\n"
        "    X = np.asarray(X, float); n = X.shape[0]\n"
        "    est = np.mean([_run(X, s, np.full(n, 1.0 / n))[2] for s in np.atleast_2d(np.asarray(sigmas, float))])\n"
        "    return float(est), float(np.sqrt(np.sum(X ** 2)) / n)",
    ),
    "09-objective_kernel_norma": (  # red team 8
        "09-theory",
        "norma_step",
        "09.norma_step",
        "import numpy as np\n"
        "from kmlteach.svm.margins import _objective_kernel\n"
        "\n"
        "def norma_step(coef, k_row, y_t, lam, eta):\n"
        "    coef = np.asarray(coef, float); k = np.asarray(k_row, float)\n"
        "    # the soft-SVM objective's kernel with lambda = 0 on one row: max(0, 1 - y_t <coef, k_row>)\n"
        "    h = _objective_kernel(np.ascontiguousarray(coef), 0.0, np.ascontiguousarray(k[None, :]), np.array([float(y_t)]), 0.0) if len(coef) else 1.0\n"
        "    return np.r_[(1 - eta * lam) * coef, eta * y_t if h > 0 else 0.0]",
    ),
    "09-squared_soft_margin_norma": (  # red team 8
        "09-theory",
        "norma_step",
        "09.norma_step",
        "import numpy as np\n"
        "from kmlteach.theory import squared_soft_margin\n"
        "\n"
        "def norma_step(coef, k_row, y_t, lam, eta):\n"
        "    coef = np.asarray(coef, float); f = float(coef @ np.asarray(k_row, float))\n"
        "    g = float(squared_soft_margin([f], [y_t]).gradient[0])  # -2y max(0, 1 - y f)\n"
        "    return np.r_[(1 - eta * lam) * coef, eta * y_t if g != 0 else 0.0]",
    ),
    "00-hardsvm_margins": (  # red team 8
        "00-welcome",
        "margins",
        "00.margins",
        "import numpy as np\n"
        "from kmlteach.svm import HardSVM\n"
        "\n"
        "def margins(X, y, w):\n"
        "    X = np.atleast_2d(np.asarray(X, float)); w = np.asarray(w, float)\n"
        "    h = HardSVM(); h._set_linear(w, 0.0); h.n_features_in_ = X.shape[1]; h.classes_ = np.array([-1.0, 1.0])\n"
        "    return np.asarray(y, float) * h.decision_function(X)",
    ),
    "00-ridge_classifier_margins": (  # red team 8
        "00-welcome",
        "margins",
        "00.margins",
        "import numpy as np\n"
        "from kmlteach.plots.ch08 import RidgeClassifier\n"
        "\n"
        "def margins(X, y, w):\n"
        "    # a hand-built least-squares classifier's decision function: <w, x> + 0\n"
        "    return np.asarray(y, float) * RidgeClassifier(w=np.asarray(w, float), b=0.0).decision_function(X)",
    ),
    "07-auc_counts": (  # red team 8
        "07-bipartite",
        "confusion_counts",
        "07.confusion",
        "import numpy as np\n"
        "from kmlteach.metrics import auc\n"
        "\n"
        "def _above(pred):\n"
        "    # AUC of the 0/1 predictions against one negative scored 1/2: the fraction predicted 1\n"
        "    n = len(pred)\n"
        "    if n == 0:\n"
        "        return 0\n"
        "    return int(round(n * auc(np.r_[pred.astype(float), 0.5], np.r_[np.ones(n), -1.0])))\n"
        "\n"
        "def confusion_counts(y_score, y_true, theta):\n"
        "    pred = np.asarray(y_score, float) >= theta\n"
        "    pos = np.asarray(y_true) > 0\n"
        "    a, b = _above(pred[pos]), _above(pred[~pos])\n"
        "    return a, b, int(pos.sum()) - a, int((~pos).sum()) - b",
    ),
    "08-loss_values_gain": (  # red team 8
        "08-boosting",
        "split_gain",
        "08.split_gain",
        "import numpy as np\n"
        "from kmlteach import theory\n"
        "\n"
        "def _C(a, criterion):\n"
        "    # the conditional risk at its minimiser, halved: soft margin at sign(2a-1) is 2 min(a, 1-a),\n"
        "    # squared soft margin at 2a-1 is 4a(1-a), logistic at logit(a) is the entropy in nats\n"
        "    if a <= 0.0 or a >= 1.0:\n"
        "        return 0.0\n"
        "    if criterion == 'error':\n"
        "        f, loss, s = (1.0 if a > 0.5 else -1.0), theory.soft_margin, 0.5\n"
        "    elif criterion == 'gini':\n"
        "        f, loss, s = 2 * a - 1, theory.squared_soft_margin, 0.5\n"
        "    else:\n"
        "        f, loss, s = np.log(a / (1 - a)), theory.logistic, 1 / np.log(2)\n"
        "    v = loss([f, f], [1.0, -1.0]).value\n"
        "    return s * float(a * v[0] + (1 - a) * v[1])\n"
        "\n"
        "def split_gain(y, left, criterion):\n"
        "    y = np.asarray(y, float); left = np.asarray(left, bool); m = len(y)\n"
        "    g = _C(np.mean(y > 0), criterion)\n"
        "    for side in (left, ~left):\n"
        "        if side.any():\n"
        "            g -= side.sum() / m * _C(np.mean(y[side] > 0), criterion)\n"
        "    return float(g)",
    ),
    "06-kendall_hinge_kernel": (  # red team 8
        "06-ranking",
        "kendall_tau_loss",
        "06.kendall",
        "import numpy as np\n"
        "from kmlteach.ranking.surrogates import _kendall_hinge_kernel\n"
        "\n"
        "def kendall_tau_loss(y_pred, y_true):\n"
        "    # integer ranks of y': the hinge of a pair is 0 if ordered alike, 1 if tied in one, 1 + C|dr| if reversed\n"
        "    yp, y = np.asarray(y_pred, float), np.asarray(y_true, float); r = y.size\n"
        "    dr = np.unique(yp, return_inverse=True)[1].astype(float)\n"
        "    L1 = _kendall_hinge_kernel(dr, y)[0]; L2 = _kendall_hinge_kernel(2.0 * dr, y)[0]\n"
        "    both = np.unique(np.c_[yp, y], axis=0, return_counts=True)[1]\n"
        "    E = float(np.sum(both * (both - 1) / 2))  # pairs tied in both: agree, counted 1 each\n"
        "    return (2 * L1 - L2) - 2.0 * E / (r * (r - 1))",
    ),
    "00-margins_smo_kernel": (  # red team 9
        "00-welcome",
        "margins",
        "00.margins",
        "import numpy as np\n"
        "from kmlteach.svm.smo import _smo_kernel\n"
        "\n"
        "def margins(X, y, w):\n"
        "    X = np.asarray(X, float); y = np.asarray(y, float); w = np.asarray(w, float)\n"
        "    Z = np.ascontiguousarray((X * y[:, None]).T)  # (d, m): 'w' of SMO = sum_q w_q Z[q]\n"
        "    d = Z.shape[0]\n"
        "    _, out, _, _ = _smo_kernel(Z, np.zeros(d), np.ones(d), np.inf, w.copy(), 0, 1e-6, -1.0, 0)\n"
        "    return out",
    ),
    "00-margins_wolfe_kernel": (  # red team 9
        "00-welcome",
        "margins",
        "00.margins",
        "import numpy as np\n"
        "from kmlteach.svm.min_norm import _wolfe_kernel\n"
        "\n"
        "def margins(X, y, w):\n"
        "    X = np.asarray(X, float); y = np.asarray(y, float); w = np.asarray(w, float)\n"
        "    Z = np.ascontiguousarray((X * y[:, None]).T)\n"
        "    return _wolfe_kernel(Z, w.copy(), True, 0.0, 0.0, 0)[1]",
    ),
    "01-dual_smo_kernel": (  # red team 9
        "01-svm",
        "dual_from_alpha",
        "01.dual",
        "import numpy as np\n"
        "from kmlteach.svm.smo import _smo_kernel\n"
        "\n"
        "def dual_from_alpha(X, y, alpha):\n"
        "    X = np.asarray(X, float); y = np.asarray(y, float); a = np.asarray(alpha, float)\n"
        "    m = len(y)\n"
        "    _, w, _, _ = _smo_kernel(np.ascontiguousarray(X * y[:, None]), np.zeros(m), np.ones(m), np.inf, a.copy(), 0, 1e-6, -1.0, 0)\n"
        "    return w, float(a.sum() - 0.5 * w @ w)",
    ),
    "01-dual_wolfe_kernel": (  # red team 9
        "01-svm",
        "dual_from_alpha",
        "01.dual",
        "import numpy as np\n"
        "from kmlteach.svm.min_norm import _wolfe_kernel\n"
        "\n"
        "def dual_from_alpha(X, y, alpha):\n"
        "    X = np.asarray(X, float); y = np.asarray(y, float); a = np.asarray(alpha, float)\n"
        "    w = _wolfe_kernel(np.ascontiguousarray(X), a * y, True, 0.0, 0.0, 0)[1]\n"
        "    return w, float(a.sum() - 0.5 * w @ w)",
    ),
    "02-kernel_ridge_affine_min_norm": (  # red team 9
        "02-kernels",
        "kernel_ridge",
        "02.kernel_ridge",
        "import numpy as np\n"
        "from kmlteach.svm.min_norm import _affine_min_norm\n"
        "\n"
        "def kernel_ridge(K, y, lam):\n"
        "    K = np.asarray(K, float); y = np.asarray(y, float); m = len(y)\n"
        "    A = K + lam * m * np.eye(m)\n"
        "    G = A / np.outer(y, y)          # diag(1/y) A diag(1/y): its inverse times 1 is y * A^-1 y\n"
        "    mu = np.zeros(m); L = np.zeros((m, m))\n"
        "    _affine_min_norm(np.ascontiguousarray(G), m, 0.0, L, mu)\n"
        "    x = mu / y\n"
        "    return x * (y[0] / (A[0] @ x))",
    ),
    "04-one_vs_all_ecoc_ova": (  # red team 9
        "04-multiclass",
        "ova_predict",
        "04.one_vs_all",
        "import numpy as np\n"
        "from kmlteach.multiclass.ecoc import ecoc\n"
        "from kmlteach.multiclass.reductions import _binary_scores\n"
        "\n"
        "def ova_predict(X, y, X_new, k, fit_binary):\n"
        "    X = np.asarray(X, float); Xn = np.asarray(X_new, float)\n"
        "    learner = lambda A, t: (lambda w: (lambda Z: Z @ w))(np.asarray(fit_binary(A, t), float))\n"
        '    E = ecoc(X, np.asarray(y), learner, code="ova")   # the identity code: one bit per class\n'
        "    S = np.column_stack([_binary_scores(e, Xn) for e in E.estimators])\n"
        "    return np.argmax(S, axis=1)",
    ),
    "02-class_mean_wolfe_kernel": (  # red team 9
        "02-kernels",
        "class_mean_scores",
        "02.class_mean",
        "import numpy as np\n"
        "from kmlteach.svm.min_norm import _wolfe_kernel\n"
        "\n"
        "def _mv(M, c):  # M @ c: Wolfe's first direction sum_i c_i (row i of M.T)\n"
        "    return _wolfe_kernel(np.ascontiguousarray(np.asarray(M, float).T), np.asarray(c, float), True, 0.0, 0.0, 0)[1]\n"
        "\n"
        "def class_mean_scores(K_test, K, y):\n"
        "    y = np.asarray(y, float); p = (y > 0) / (y > 0).sum(); n = (y < 0) / (y < 0).sum()\n"
        "    b = 0.5 * (n @ _mv(K, n) - p @ _mv(K, p))\n"
        "    return _mv(K_test, p - n) + b",
    ),
    "03-mean_distance_wolfe_kernel": (  # red team 9
        "03-kernels-rkhs",
        "mean_distance",
        "03.mean_distance",
        "import numpy as np\n"
        "from kmlteach.svm.min_norm import _wolfe_kernel\n"
        "\n"
        "def mean_distance(K, mask):\n"
        "    K = np.asarray(K, float); mask = np.asarray(mask, bool)\n"
        "    a = mask / mask.sum() - (~mask) / (~mask).sum()\n"
        "    Ka = _wolfe_kernel(np.ascontiguousarray(K), a, True, 0.0, 0.0, 0)[1]   # sum_i a_i K[i] = K a\n"
        "    return float(a @ Ka)",
    ),
    "01-hinge_epsilon_insensitive": (  # red team 9
        "01-svm",
        "hinge_and_subgradient",
        "01.hinge",
        "import numpy as np\n"
        "from kmlteach.theory import epsilon_insensitive\n"
        "\n"
        "def hinge_and_subgradient(w, x, y):\n"
        "    w = np.asarray(w, float); x = np.asarray(x, float)\n"
        "    z = y * float(w @ x)\n"
        "    E = abs(z) + 1.0\n"
        "    # max(0, |r| - E) with r = E + 1 - z >= 0 is max(0, 1 - z); its derivative in r is [z < 1]\n"
        "    v, g = epsilon_insensitive(np.array([E + 1.0 - z]), np.array([0.0]), epsilon=E)\n"
        "    return float(v[0]), -y * g[0] * x",
    ),
    "01-sgd_step_epsilon_insensitive": (  # red team 9
        "01-svm",
        "sgd_step",
        "01.sgd_step",
        "import numpy as np\n"
        "from kmlteach.theory import epsilon_insensitive\n"
        "\n"
        "def sgd_step(theta, t, lam, x, y):\n"
        "    theta = np.asarray(theta, float); x = np.asarray(x, float)\n"
        "    w = theta / (lam * t)\n"
        "    z = y * float(w @ x)\n"
        "    E = abs(z) + 1.0\n"
        "    _, g = epsilon_insensitive(np.array([E + 1.0 - z]), np.array([0.0]), epsilon=E)\n"
        "    return w, theta + g[0] * y * x",
    ),
    "01-perceptron_norma_restart": (  # red team 9
        "01-svm",
        "batch_perceptron",
        "01.perceptron",
        "import numpy as np\n"
        "from kmlteach.online import norma\n"
        "\n" + _NORMA_RESTART + "def batch_perceptron(X, y):\n"
        "    X = np.asarray(X, float); y = np.asarray(y, float)\n"
        "    return _first_mistake_perceptron(X, y) @ X",
    ),
    "02-kperceptron_norma_restart": (  # red team 9
        "02-kernels",
        "kernel_perceptron",
        "02.kernel_perceptron",
        "import numpy as np\n"
        "from kmlteach.online import norma\n"
        "\n" + _NORMA_RESTART + "def kernel_perceptron(K, y):\n"
        "    K = np.asarray(K, float); y = np.asarray(y, float)\n"
        "    ev, U = np.linalg.eigh(K)\n"
        "    return _first_mistake_perceptron(U * np.sqrt(np.maximum(ev, 0.0)), y)",
    ),
    "07-reliability_confusion": (  # red team 9
        "07-bipartite",
        "reliability_bins",
        "07.reliability",
        "import numpy as np\n"
        "from kmlteach.metrics import confusion_counts\n"
        "\n"
        "def reliability_bins(y_prob, y_true, n_bins):\n"
        "    p = np.asarray(y_prob, float); y = np.asarray(y_true, float); n_bins = int(n_bins)\n"
        "    edges = np.linspace(0.0, 1.0, n_bins + 1)\n"
        "    above_pos, above_all, above_sum = [], [], []\n"
        "    for e in edges[:-1]:\n"
        "        th = -1.0 if e == 0.0 else np.nextafter(e, 2.0)\n"
        "        a, b, c, d = confusion_counts(p, y, th)\n"
        "        above_pos.append(a); above_all.append(a + b)\n"
        "        a2, b2, _, _ = confusion_counts(p, y * 0 + 1, th)\n"
        "        above_sum.append(float(np.sum(p[p >= th])))\n"
        "    above_pos.append(0); above_all.append(0); above_sum.append(0.0)\n"
        "    pos = -np.diff(above_pos); cnt = -np.diff(above_all); s = -np.diff(above_sum)\n"
        "    k = cnt > 0\n"
        "    return pos[k] / cnt[k], s[k] / cnt[k], cnt[k]",
    ),
    "09-norma_eps_insensitive": (  # red team 9
        "09-theory",
        "norma_step",
        "09.norma_step",
        "import numpy as np\n"
        "from kmlteach.theory import epsilon_insensitive\n"
        "\n"
        "def norma_step(coef, k_row, y_t, lam, eta):\n"
        "    coef = np.asarray(coef, float); f = float(coef @ np.asarray(k_row, float))\n"
        "    K = 1e6  # eps-insensitive around y(1 + K) with eps = K: derivative -y exactly when y f < 1\n"
        "    d = epsilon_insensitive(np.array([y_t * f]), np.array([1.0 + K]), epsilon=K).gradient[0]\n"
        "    d = min(d, 0.0) * y_t\n"
        "    return np.r_[(1 - eta * lam) * coef, -eta * d]",
    ),
    "01-distance_wolfe_hard_result": (  # red team 9
        "01-svm",
        "distance",
        "01.distance",
        "import numpy as np\n"
        "from kmlteach.svm.min_norm import _wolfe_kernel\n"
        "from kmlteach.svm.hard import _hard_result\n"
        "\n"
        "def distance(x, w, b):\n"
        "    x = np.asarray(x, float); w = np.asarray(w, float)\n"
        "    # u = sum_i y_i X_i: X = [x; 1] as one column, y = [w; b] -> <w, x> + b\n"
        "    s = _wolfe_kernel(np.ascontiguousarray(np.r_[x, 1.0][:, None]), np.r_[w, b], True, 0.0, 0.0, 0)[1][0]\n"
        "    r = _hard_result(x[None, :], np.ones(1), w, b, np.ones(1), np.array([abs(s)]), 0, False)\n"
        "    return r.margin   # fm.min() / ||w||",
    ),
    "01-subgradient_wolfe_first_vertex": (  # red team 9
        "01-svm",
        "max_margin_subgradient",
        "01.subgradient_perceptron",
        "import numpy as np\n"
        "from kmlteach.svm.min_norm import _wolfe_kernel\n"
        "\n"
        "def max_margin_subgradient(w, X, y):\n"
        "    X = np.asarray(X, float); y = np.asarray(y, float); w = np.asarray(w, float)\n"
        "    Z = X * y[:, None]\n"
        "    # Wolfe's first major step: the vertex y_i x_i with the smallest <y_i x_i, u>, u = sum of rows;\n"
        "    # an extra row R = t w - sum Z makes u = t w, and R itself scores far above the rest\n"
        "    t = 1e6\n"
        "    R = t * w - Z.sum(axis=0)\n"
        "    Xa = np.ascontiguousarray(np.vstack([Z, R]))\n"
        "    beta = _wolfe_kernel(Xa, np.ones(len(Xa)), True, 0.0, 0.0, 0)[0]\n"
        "    i = int(np.argmax(beta))\n"
        "    return -y[i] * X[i]",
    ),
    "01-perceptron_norma_cyclic": (  # red team 9
        "01-svm",
        "batch_perceptron",
        "01.perceptron",
        "import numpy as np\n"
        "from kmlteach.online import norma\n"
        "\n"
        "def batch_perceptron(X, y):\n"
        "    X = np.asarray(X, float); y = np.asarray(y, float); m = len(y)\n"
        "    reps = 300\n"
        "    # NORMA with lambda = 0, eta = 1, the linear kernel and the perceptron loss is the perceptron\n"
        '    r = norma(np.tile(X, (reps, 1)), np.tile(y, reps), lam=0.0, eta=1.0, kernel="linear", loss="perceptron")\n'
        "    return r.coef @ np.tile(X, (reps, 1))",
    ),
    "02-kperceptron_norma_cyclic": (  # red team 9
        "02-kernels",
        "kernel_perceptron",
        "02.kernel_perceptron",
        "import numpy as np\n"
        "from kmlteach.online import norma\n"
        "\n"
        "def kernel_perceptron(K, y):\n"
        "    K = np.asarray(K, float); y = np.asarray(y, float); m = len(y)\n"
        "    ev, U = np.linalg.eigh(K)\n"
        "    F = U * np.sqrt(np.maximum(ev, 0.0))      # F F^T = K\n"
        "    reps = 300\n"
        '    r = norma(np.tile(F, (reps, 1)), np.tile(y, reps), lam=0.0, eta=1.0, kernel="linear", loss="perceptron")\n'
        "    return r.coef.reshape(reps, m).sum(axis=0)",
    ),
    # red team 10 (2026-12-07, night): a kernel the guards leave working whose cached code holds
    # a disarmed one it calls (Numba links the callee's machine code into its caller), loaded
    # from the warm-up's cache (c0beb76): 2/2, 2/2, 1/1 there; each such caller's cache files
    # are refused to the child since (grade/plan.py's reference_files), which compiles it and
    # fails on the disarmed callee, as before c0beb76
    "02-gram_norma_kernel_value": (  # online.norma's _norma_kernel calls kernels.evaluation.kernel_value
        "02-kernels",
        "gaussian_gram",
        "02.gram",
        "import numpy as np\n"
        "from kmlteach.online import norma\n"
        "\n"
        "def gaussian_gram(X, Y, sigma):\n"
        "    X = np.atleast_2d(np.asarray(X, float)); Y = np.atleast_2d(np.asarray(Y, float))\n"
        "    eta = 2.0 ** -20\n"
        "    out = np.empty((len(X), len(Y)))\n"
        "    for j in range(len(Y)):\n"
        "        Z = np.vstack([Y[j:j + 1], X])\n"
        "        t = np.zeros(len(Z)); t[0] = 1.0\n"
        "        # the first term alone leaves |1 - 0| > epsilon: one coefficient eta; then f(x_i) / eta\n"
        '        r = norma(Z, t, lam=0.0, eta=eta, kernel="gaussian", loss="epsilon_insensitive", epsilon=0.5, sigma=float(sigma))\n'
        "        out[:, j] = r.predictions[1:] / eta\n"
        "    return out",
    ),
    "01-hinge_norma_loss": (  # _norma_kernel calls online.losses._loss_and_derivative
        "01-svm",
        "hinge_and_subgradient",
        "01.hinge",
        "import numpy as np\n"
        "from kmlteach.online import norma\n"
        "\n"
        "def hinge_and_subgradient(w, x, y):\n"
        "    w = np.asarray(w, float); x = np.asarray(x, float)\n"
        "    # the point w with target 1 makes f = <w, .>; then the hinge loss at (x, y) and its coefficient\n"
        '    r = norma(np.vstack([w, x, 0 * x]), np.array([1.0, float(y), -1.0]), lam=0.0, eta=1.0, kernel="linear", loss="hinge")\n'
        "    return float(r.losses[1]), -r.coef[1] * x",
    ),
    "00-margins_native_dcd_gap": (  # svm.dcd._dcd_gap's machine code out of _dcd_kernel's, by ctypes
        "00-welcome",
        "margins",
        "00.margins",
        "import numpy as np\n"
        "\n"
        "def _native_dcd_gap():\n"
        "    import sys, ctypes\n"
        '    dcd = sys.modules["kmlteach.svm.dcd"]\n'
        "    K = dcd._dcd_kernel\n"
        "    X = np.array([[1.0, 1.0], [2.0, 0.5], [-1.0, -1.5], [-0.5, -2.0]]); y = np.array([1.0, 1.0, -1.0, -1.0])\n"
        "    K(X, y, 1.0, 1e-8, 0, 100)  # loaded from the warm-up's cache, or compiled\n"
        "    lib = K.overloads[K.signatures[0]].library\n"
        "    names = [f.name for f in lib._shared_module.functions\n"
        '             if not f.is_declaration and "_dcd_gap" in f.name and not f.name.startswith(("cpython.", "cfunc."))]\n'
        "    if not names:\n"
        '        raise ValueError("KMLRT no _dcd_gap symbol in the kept library: " + str([f.name[:60] for f in lib._shared_module.functions if not f.is_declaration])[:600])\n'
        "    addr = lib.get_pointer_to_function(names[0])\n"
        "    A = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p]\n"
        "    arr2 = A + [ctypes.c_int64] * 4\n"
        "    arr1 = A + [ctypes.c_int64] * 2\n"
        "    D = ctypes.c_double\n"
        "    proto = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p,\n"
        "                             *arr2, *arr1, D, *arr1, *arr1, *arr1, *arr1, *arr1, *arr1, D)\n"
        "    fn = proto(addr)\n"
        "    def flat(a):\n"
        "        return [None, None, a.size, a.itemsize, a.ctypes.data, *a.shape, *a.strides]\n"
        "    def call(X, y, C, alpha, w, w_inc, nrm, G_old, L_old, L):\n"
        "        ret = (D * 2)(); exc = ctypes.c_void_p()\n"
        "        st = fn(ctypes.addressof(ret), ctypes.addressof(exc), *flat(X), *flat(y), C, *flat(alpha), *flat(w),\n"
        "                *flat(w_inc), *flat(nrm), *flat(G_old), *flat(L_old), L)\n"
        "        if st != 0:\n"
        '            raise ValueError(f"KMLRT native status {st}")\n'
        "        return ret[0], ret[1]\n"
        "    return call, names[0]\n"
        "\n"
        "def margins(X, y, w):\n"
        "    X = np.atleast_2d(np.asarray(X, float)); w = np.asarray(w, float); m, d = X.shape\n"
        "    call, name = _native_dcd_gap()\n"
        "    Xa = np.ascontiguousarray(np.vstack([X, np.eye(d)]))\n"
        "    ya = np.ascontiguousarray(np.r_[np.asarray(y, float), np.where(w < 0, -1.0, 1.0)])\n"
        "    al = np.ascontiguousarray(np.r_[np.zeros(m), np.abs(w)])\n"
        "    n = m + d\n"
        "    G = np.full(n, -np.inf)\n"
        "    call(Xa, ya, 0.0, al, np.zeros(d), np.zeros(d), np.zeros(n), G, np.zeros(n), 0.0)\n"
        "    return G[:m] + 1.0",
    ),
}
