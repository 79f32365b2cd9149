"""Plausible wrong answers fail the visible cases (issue 36, point 4).

For every exercise, at least three wrong implementations a student could plausibly write
(off by one, ``<`` for ``≤``, a sweep instead of the first violator, a missing term at the
first position, a transposed argument, σ for 2σ, a missing normalisation, ...) that are
*not* catalogued mistakes. Each must fail at least one visible case — so that ``check()``
warns the student before the grader takes points on a hidden case — and at least one
hidden case, so that the grade agrees with the warning. None of them may be named as a
catalogued mistake either: their output differs from every catalogued one somewhere.

The catalogued mistakes themselves are tested in ``test_exercises_mistakes.py``.
"""

from __future__ import annotations

import copy
from collections import Counter
from functools import partial

import numpy as np
import pytest

from kmlteach.course.grade.cases import hidden_cases
from kmlteach.exercises import check, registry
from kmlteach.exercises._match import copy_args, find_mistake

PLAUSIBLE: dict[str, list] = {}


def plausible(ex_id: str):
    """Register the decorated function as a plausible wrong answer to ``ex_id``."""

    def add(fn):
        PLAUSIBLE.setdefault(ex_id, []).append(fn)
        return fn

    return add


def _f(v):
    return np.asarray(v, dtype=float)


# --- 00 ------------------------------------------------------------------------------------


@plausible("00.margins")
def margins_summed(X, y, w):
    """y @ (X @ w): one number, the sum of the margins, instead of one margin per point."""
    return float(_f(y) @ (_f(X) @ _f(w)))


@plausible("00.margins")
def margins_minimum(X, y, w):
    """The margin of the sample (the smallest margin) instead of every margin."""
    return float(np.min(_f(y) * (_f(X) @ _f(w))))


@plausible("00.margins")
def margins_sign(X, y, w):
    """Only whether each point is on the right side: the sign of the margin."""
    return np.sign(_f(y) * (_f(X) @ _f(w)))


@plausible("00.margins")
def margins_labels_on_columns(X, y, w):
    """(y * X) @ w: the labels broadcast over the columns of X, not its rows."""
    return (_f(y) * _f(X)) @ _f(w)


# --- 01 ------------------------------------------------------------------------------------


@plausible("01.distance")
def distance_no_offset(x, w, b):
    """Forgot the offset b."""
    return abs(float(_f(w) @ _f(x))) / float(np.linalg.norm(w))


@plausible("01.distance")
def distance_minus_offset(x, w, b):
    """|<w, x> − b|: the hyperplane read as <w, v> = b."""
    return abs(float(_f(w) @ _f(x)) - b) / float(np.linalg.norm(w))


@plausible("01.distance")
def distance_l1_norm(x, w, b):
    """Divided by the 1-norm of w."""
    return abs(float(_f(w) @ _f(x)) + b) / float(np.abs(_f(w)).sum())


@plausible("01.distance")
def distance_precedence(x, w, b):
    """|<w, x>| + b/‖w‖: only the offset divided."""
    return abs(float(_f(w) @ _f(x))) + b / float(np.linalg.norm(w))


def _hinge(w, x, y, *, at_one=False, label=True, gradient_in_x=False, flat_gradient=False):
    z = (y if label else 1.0) * float(_f(w) @ _f(x))
    if (z <= 1 if at_one else z < 1) or flat_gradient:
        return max(0.0, 1.0 - z), -y * (_f(w) if gradient_in_x else _f(x))
    return 0.0, np.zeros(len(x))


plausible("01.hinge")(partial(_hinge, at_one=True))  # z <= 1: margin exactly 1 on the linear piece
plausible("01.hinge")(partial(_hinge, label=False))  # the margin without the label, z = <w, x>
plausible("01.hinge")(partial(_hinge, gradient_in_x=True))  # the gradient in x, −y·w
plausible("01.hinge")(partial(_hinge, flat_gradient=True))  # −y·x on the flat piece too


@plausible("01.sgd_step")
def sgd_at_one(theta, t, lam, x, y):
    """Updates at margin exactly 1 too (≤ for <)."""
    w = _f(theta) / (lam * t)
    return w, (_f(theta) + y * _f(x)) if y * float(w @ _f(x)) <= 1 else _f(theta).copy()


@plausible("01.sgd_step")
def sgd_w_after_update(theta, t, lam, x, y):
    """Updated θ first and computed w from the new θ."""
    theta = _f(theta)
    new = theta + y * _f(x) if y * float(theta @ _f(x)) / (lam * t) < 1 else theta.copy()
    return new / (lam * t), new


@plausible("01.sgd_step")
def sgd_t_plus_one(theta, t, lam, x, y):
    """w = θ/(λ(t + 1)): counted the steps from 0."""
    w = _f(theta) / (lam * (t + 1))
    return w, (_f(theta) + y * _f(x)) if y * float(w @ _f(x)) < 1 else _f(theta).copy()


@plausible("01.sgd_step")
def sgd_margin_without_label(theta, t, lam, x, y):
    """The test <w, x> < 1 without the label."""
    w = _f(theta) / (lam * t)
    return w, (_f(theta) + y * _f(x)) if float(w @ _f(x)) < 1 else _f(theta).copy()


def _perceptron_runs(X, y, *, cyclic=False, passes=None, margin=0.0, step=1.0, cap=5000):
    """A perceptron on (X, y): first violator (or a cyclic sweep), test y<w, x> <= margin."""
    X, y = _f(X), _f(y)
    m = len(y)
    w = np.zeros(X.shape[1])
    if not cyclic:
        for _ in range(cap if passes is None else passes):
            bad = np.flatnonzero(y * (X @ w) <= margin)
            if not bad.size:
                break
            w = w + step * y[bad[0]] * X[bad[0]]
        return w
    for _ in range(cap if passes is None else passes):
        changed = False
        for i in range(m):
            if y[i] * (X[i] @ w) <= margin:
                w = w + step * y[i] * X[i]
                changed = True
        if not changed:
            break
    return w


plausible("01.perceptron")(partial(_perceptron_runs, cyclic=True))  # the sweep, repeated
plausible("01.perceptron")(partial(_perceptron_runs, cyclic=True, passes=1))  # one sweep only
plausible("01.perceptron")(partial(_perceptron_runs, margin=1.0))  # the margin test of the hinge
plausible("01.perceptron")(partial(_perceptron_runs, step=0.5))  # a learning rate ½


@plausible("01.subgradient_perceptron")
def subgrad_last_maximiser(w, X, y):
    """The last maximiser on ties."""
    v = 1 - _f(y) * (_f(X) @ _f(w))
    i = len(v) - 1 - int(np.argmax(v[::-1]))
    return -_f(y)[i] * _f(X)[i]


@plausible("01.subgradient_perceptron")
def subgrad_no_label(w, X, y):
    """−x_i without the label."""
    i = int(np.argmax(1 - _f(y) * (_f(X) @ _f(w))))
    return -_f(X)[i]


@plausible("01.subgradient_perceptron")
def subgrad_zero_when_negative(w, X, y):
    """The objective read as max(0, ·): 0 when every term is negative."""
    v = 1 - _f(y) * (_f(X) @ _f(w))
    i = int(np.argmax(v))
    return -_f(y)[i] * _f(X)[i] if v[i] > 0 else np.zeros(_f(X).shape[1])


@plausible("01.subgradient_perceptron")
def subgrad_mean(w, X, y):
    """The average of the gradients of all terms."""
    return -(_f(y) @ _f(X)) / len(y)


@plausible("01.dual")
def dual_quadratic_without_labels(X, y, alpha):
    """The labels in w but not in the quadratic term: ½ αᵀ(X Xᵀ)α."""
    X, y, a = _f(X), _f(y), _f(alpha)
    return (a * y) @ X, float(a.sum() - 0.5 * a @ (X @ X.T) @ a)


@plausible("01.dual")
def dual_diagonal_only(X, y, alpha):
    """Only the terms i = j of the double sum: ½ Σ α_i² ‖x_i‖²."""
    X, y, a = _f(X), _f(y), _f(alpha)
    return (a * y) @ X, float(a.sum() - 0.5 * np.sum(a**2 * np.sum(X**2, axis=1)))


@plausible("01.dual")
def dual_norm_not_squared(X, y, alpha):
    """½‖w‖ instead of ½‖w‖²."""
    w = (_f(alpha) * _f(y)) @ _f(X)
    return w, float(_f(alpha).sum() - 0.5 * np.linalg.norm(w))


@plausible("01.dual")
def dual_mean_alpha(X, y, alpha):
    """The mean of the α_i instead of their sum."""
    w = (_f(alpha) * _f(y)) @ _f(X)
    return w, float(_f(alpha).mean() - 0.5 * w @ w)


# --- 02 ------------------------------------------------------------------------------------


SQRT2 = float(np.sqrt(2))


def _poly_map(X, lin=SQRT2, sq=1.0, cross=SQRT2, diagonal_twice=False):
    X = _f(X)
    d = X.shape[1]
    cols = [np.ones(len(X))] + [lin * X[:, j] for j in range(d)] + [sq * X[:, j] ** 2 for j in range(d)]
    cols += [cross * X[:, j] * X[:, k] for j in range(d) for k in range(j + (0 if diagonal_twice else 1), d)]
    return np.column_stack(cols)


plausible("02.poly_features")(partial(_poly_map, sq=SQRT2))  # √2 on the squares too
plausible("02.poly_features")(partial(_poly_map, lin=2.0))  # 2 instead of √2 on the linear terms
plausible("02.poly_features")(partial(_poly_map, cross=0.0))  # no cross terms x_j x_k
plausible("02.poly_features")(partial(_poly_map, diagonal_twice=True))  # j <= k: squares twice


def _sq(X, Y):
    X, Y = _f(X), _f(Y)
    return np.sum((X[:, None, :] - Y[None, :, :]) ** 2, axis=2)


@plausible("02.gram")
def gram_expansion_without_two(X, Y, sigma):
    """‖x‖² + ‖y‖² − <x, y>: the factor 2 of the expansion forgotten."""
    X, Y = _f(X), _f(Y)
    D = (X**2).sum(1)[:, None] + (Y**2).sum(1)[None, :] - X @ Y.T
    return np.exp(-D / (2 * sigma))


@plausible("02.gram")
def gram_of_x_only(X, Y, sigma):
    """K(X, X) whatever Y."""
    return np.exp(-_sq(X, X) / (2 * sigma))


@plausible("02.gram")
def gram_manhattan(X, Y, sigma):
    """The squared distance replaced by the sum of absolute differences."""
    return np.exp(-np.abs(_f(X)[:, None, :] - _f(Y)[None, :, :]).sum(2) / (2 * sigma))


@plausible("02.gram")
def gram_transposed(X, Y, sigma):
    """K(Y, X): the rows are the points of Y."""
    return np.exp(-_sq(Y, X) / (2 * sigma))


def _kernel_perceptron(K, y, *, assign=False, counts=False, last=False, passes=None, cap=2000):
    K, y = _f(K), _f(y)
    a = np.zeros(len(y))
    for _ in range(cap if passes is None else passes * len(y)):
        score = K @ (a * y) if counts else K @ a
        bad = np.flatnonzero(y * score <= 0)
        if not bad.size:
            break
        i = bad[-1] if last else bad[0]
        if counts:
            a[i] += 1.0
        elif assign:
            a[i] = y[i]
        else:
            a[i] += y[i]
    return a


plausible("02.kernel_perceptron")(partial(_kernel_perceptron, assign=True))  # α_i = y_i, not +=
plausible("02.kernel_perceptron")(partial(_kernel_perceptron, counts=True))  # counts, scores K(α∘y)
plausible("02.kernel_perceptron")(partial(_kernel_perceptron, last=True))  # the last mistake


@plausible("02.kernel_perceptron")
def kernel_perceptron_one_pass(K, y):
    """One sweep over the points, updating on each mistake."""
    K, y = _f(K), _f(y)
    a = np.zeros(len(y))
    for i in range(len(y)):
        if y[i] * (K[i] @ a) <= 0:
            a[i] += y[i]
    return a


@plausible("02.kernel_ridge")
def ridge_scalar_not_identity(K, y, lam):
    """K + λm added to every entry: the identity forgotten."""
    return np.linalg.solve(_f(K) + lam * len(y), _f(y))


@plausible("02.kernel_ridge")
def ridge_lambda_over_m(K, y, lam):
    """λ/m on the diagonal."""
    return np.linalg.solve(_f(K) + lam / len(y) * np.eye(len(y)), _f(y))


@plausible("02.kernel_ridge")
def ridge_fitted_values(K, y, lam):
    """The fitted values Kα instead of α."""
    K = _f(K)
    return K @ np.linalg.solve(K + lam * len(y) * np.eye(len(y)), _f(y))


@plausible("02.kernel_ridge")
def ridge_half(K, y, lam):
    """λm/2 on the diagonal."""
    return np.linalg.solve(_f(K) + lam * len(y) / 2 * np.eye(len(y)), _f(y))


def _class_mean_scores(K_test, K, y, *, diagonal=False, half=0.5, total=False):
    K_test, K, y = _f(K_test), _f(K), _f(y)
    p, n = y > 0, y < 0
    if diagonal:
        b = half * (np.diag(K)[n].mean() - np.diag(K)[p].mean())
    else:
        b = half * (K[np.ix_(n, n)].mean() - K[np.ix_(p, p)].mean())
    if total:
        return (K_test[:, p].sum(1) - K_test[:, n].sum(1)) / len(y) + b
    return K_test[:, p].mean(1) - K_test[:, n].mean(1) + b


plausible("02.class_mean")(partial(_class_mean_scores, diagonal=True))  # ‖c‖² as the mean of k(x_i, x_i)
plausible("02.class_mean")(partial(_class_mean_scores, half=1.0))  # no ½ in b
plausible("02.class_mean")(partial(_class_mean_scores, total=True))  # divided by m, not the class sizes


def _kernel_sgd(K, y, lam, idx, *, at_one=False, after=False, from_zero=False, average=True):
    K, y = _f(K), _f(y)
    beta, total = np.zeros(len(y)), np.zeros(len(y))
    for t, i in enumerate(idx, 0 if from_zero else 1):
        with np.errstate(divide="ignore", invalid="ignore"):
            a = beta / (lam * t)
        if not after:
            total += a
        z = y[i] * (K[i] @ a)
        if z <= 1 if at_one else z < 1:
            beta[i] += y[i]
        if after:
            total += beta / (lam * t)
    return total / len(idx) if average else total


plausible("02.kernel_sgd")(partial(_kernel_sgd, at_one=True))  # updates at y(Kα)_i = 1 too
plausible("02.kernel_sgd")(partial(_kernel_sgd, from_zero=True))  # t counted from 0
plausible("02.kernel_sgd")(partial(_kernel_sgd, average=False))  # the sum of the iterates


# --- 03 ------------------------------------------------------------------------------------


@plausible("03.center")
def center_grand_mean_only(K):
    """Subtracted the mean of all entries only."""
    return _f(K) - _f(K).mean()


@plausible("03.center")
def center_rows_twice(K):
    """Symmetry assumed: the column means subtracted twice."""
    K = _f(K)
    return K - 2 * K.mean(0)[None, :] + K.mean()


@plausible("03.center")
def center_grand_mean_subtracted(K):
    """The grand mean subtracted instead of added back."""
    K = _f(K)
    return K - K.mean(0)[None, :] - K.mean(1)[:, None] - K.mean()


def _grams(s, n, tail=False):
    return Counter(s[i : i + n] for i in range(len(s) if tail else len(s) - n + 1))


@plausible("03.ngram")
def ngram_min_counts(x, y, n):
    """The smaller of the two counts of each shared n-gram."""
    cx, cy = _grams(x, n), _grams(y, n)
    return sum(min(c, cy[g]) for g, c in cx.items())


@plausible("03.ngram")
def ngram_truncated_tail(x, y, n):
    """x[i:i+n] for every start i: the shorter pieces at the end counted too."""
    cx, cy = _grams(x, n, tail=True), _grams(y, n, tail=True)
    return sum(c * cy[g] for g, c in cx.items())


@plausible("03.ngram")
def ngram_normalised(x, y, n):
    """The normalised kernel k(x, y)/√(k(x, x) k(y, y))."""
    cx, cy = _grams(x, n), _grams(y, n)
    kxy = sum(c * cy[g] for g, c in cx.items())
    kxx, kyy = sum(c * c for c in cx.values()), sum(c * c for c in cy.values())
    return kxy / np.sqrt(kxx * kyy) if kxx and kyy else 0.0


@plausible("03.ngram")
def ngram_letters(x, y, n):
    """Counted single letters whatever n."""
    cx, cy = _grams(x, 1), _grams(y, 1)
    return sum(c * cy[g] for g, c in cx.items())


def _minus_laplacian(A):
    A = _f(A)
    return A - np.diag(A.sum(1))


@plausible("03.diffusion")
def heat_no_transpose(A, beta):
    """V diag(e^{βλ}) V without the transpose."""
    lam, V = np.linalg.eigh(_minus_laplacian(A))
    return (V * np.exp(beta * lam)) @ V


@plausible("03.diffusion")
def heat_first_order(A, beta):
    """I + β(A − D): the series stopped after its linear term."""
    return np.eye(len(A)) + beta * _minus_laplacian(A)


@plausible("03.diffusion")
def heat_normalised_laplacian(A, beta):
    """The normalised Laplacian D^{−½}(A − D)D^{−½}."""
    A = _f(A)
    s = 1 / np.sqrt(A.sum(1))
    lam, V = np.linalg.eigh(s[:, None] * _minus_laplacian(A) * s[None, :])
    return (V * np.exp(beta * lam)) @ V.T


@plausible("03.diffusion")
def heat_half_beta(A, beta):
    """e^{β(A − D)/2}: a ½ from the continuous heat equation."""
    lam, V = np.linalg.eigh(_minus_laplacian(A))
    return (V * np.exp(beta * lam / 2)) @ V.T


def _top(K, p, *, centre="both"):
    K = _f(K)
    m = len(K)
    H = np.eye(m) - 1 / m
    Kc = {"both": H @ K @ H, "left": H @ K}[centre]
    lam, U = np.linalg.eigh((Kc + Kc.T) / 2)
    return lam[::-1][:p], U[:, ::-1][:, :p]


@plausible("03.kpca")
def kpca_eigenvalues_over_m(K, p):
    """√(λ/m): the eigenvalues of the covariance, not of the centred Gram matrix."""
    lam, U = _top(K, p)
    return U * np.sqrt(np.maximum(lam, 0) / len(K))


@plausible("03.kpca")
def kpca_lambda_not_root(K, p):
    """λ_j u_j instead of √λ_j u_j."""
    lam, U = _top(K, p)
    return U * lam


@plausible("03.kpca")
def kpca_coefficients(K, p):
    """The expansion coefficients u_j/√λ_j instead of the projections."""
    lam, U = _top(K, p)
    return U / np.sqrt(np.maximum(lam, 1e-300))


@plausible("03.kpca")
def kpca_centred_on_one_side(K, p):
    """Centred on one side only, H K, then made symmetric."""
    lam, U = _top(K, p, centre="left")
    return U * np.sqrt(np.maximum(lam, 0))


def _fisher_scores(X, theta, mean):
    U = mean(_f(theta))[None, :] - _f(X)
    return U


@plausible("03.fisher")
def fisher_sigmoid_sign(X, theta):
    """1/(1 + e^{θ}): the sigmoid of −θ."""
    U = _fisher_scores(X, theta, lambda t: 1 / (1 + np.exp(t)))
    return U @ U.T


@plausible("03.fisher")
def fisher_transposed(X, theta):
    """Uᵀ U: a d × d matrix instead of the n × n kernel."""
    U = _fisher_scores(X, theta, lambda t: 1 / (1 + np.exp(-t)))
    return U.T @ U


@plausible("03.fisher")
def fisher_exp_not_sigmoid(X, theta):
    """e^θ as the mean: the normaliser 1 + e^θ forgotten."""
    U = _fisher_scores(X, theta, np.exp)
    return U @ U.T


def _block_means(K, mask, *, paired=False, over=None, cross=-2.0):
    K, a = _f(K), np.asarray(mask, dtype=bool)
    b = ~a

    def block(r, c):
        if paired:  # K[r, c] with two boolean masks pairs them up: the diagonal of the block
            return K[r, c].mean() if r is c else K[np.ix_(r, c)].mean()
        if over is not None:
            return K[np.ix_(r, c)].sum() / over
        return K[np.ix_(r, c)].mean()

    return float(block(a, a) + block(b, b) + cross * block(a, b))


plausible("03.mean_distance")(partial(_block_means, paired=True))  # K[a, a]: the diagonal entries
plausible("03.mean_distance")(partial(_block_means, cross=2.0))  # + 2<μ_A, μ_B>


@plausible("03.mean_distance")
def mean_distance_over_m_squared(K, mask):
    """Every block's sum divided by m²."""
    return _block_means(K, mask, over=len(K) ** 2)


# --- 04 ------------------------------------------------------------------------------------


@plausible("04.multivector_psi")
def psi_block_of_length_k(x, y, k):
    """Block y starts at y·k: the roles of n and k exchanged."""
    x = _f(x)
    out = np.zeros(k * x.size)
    out[y * k : y * k + x.size] = x
    return out


@plausible("04.multivector_psi")
def psi_one_block_too_far(x, y, k):
    """Block y + 1."""
    x = _f(x)
    out = np.zeros(k * x.size)
    out[(y + 1) * x.size : (y + 2) * x.size] = x
    return out


@plausible("04.multivector_psi")
def psi_k_plus_one_blocks(x, y, k):
    """k + 1 blocks, as if the labels ran from 0 to k."""
    x = _f(x)
    out = np.zeros((k + 1) * x.size)
    out[y * x.size : (y + 1) * x.size] = x
    return out


def _ghinge_terms(W, x, y, Delta):
    s = _f(W) @ _f(x)
    return _f(Delta)[:, y] + s - s[y]


@plausible("04.generalized_hinge")
def ghinge_sum(W, x, y, Delta):
    """The sum over y' of the positive parts (one hinge per label) instead of one maximum."""
    v = _ghinge_terms(W, x, y, Delta)
    return float(np.sum(np.maximum(v, 0)))


@plausible("04.generalized_hinge")
def ghinge_no_delta(W, x, y, Delta):
    """No cost at all: max over y' of s[y'] − s[y]."""
    s = _f(W) @ _f(x)
    return float(np.max(s - s[y]))


@plausible("04.generalized_hinge")
def ghinge_margin_one(W, x, y, Delta):
    """A margin of 1 added to the cost of every label y' ≠ y."""
    v = _ghinge_terms(W, x, y, Delta) + (np.arange(len(Delta)) != y)
    return float(np.max(v))


def _mcp(X, y, k, *, passes=None, every=False, restart=False, argmax_all=False, cap=20_000):
    X, y = _f(X), np.asarray(y)
    W = np.zeros((k, X.shape[1]))
    m, i, clean, steps = len(y), 0, 0, 0
    while steps < (cap if passes is None else passes * m) and clean < m:
        s = W @ X[i]
        if argmax_all:
            j = int(np.argmax(s))
            bad = [j] if j != y[i] else []
        else:
            rivals = [j for j in range(k) if j != y[i]]
            bad = [j for j in rivals if s[j] >= s[y[i]]]
            if bad and not every:
                bad = [max(rivals, key=lambda j: (s[j], -j))]
        for j in bad:
            W[y[i]] += X[i]
            W[j] -= X[i]
        clean = 0 if bad else clean + 1
        i = 0 if (bad and restart) else (i + 1) % m
        steps += 1
    return W


plausible("04.multiclass_perceptron")(partial(_mcp, passes=1))  # one pass only
plausible("04.multiclass_perceptron")(partial(_mcp, every=True))  # every violating label demoted
plausible("04.multiclass_perceptron")(partial(_mcp, restart=True))  # back to i = 0 after an update


def _ova(X, y, X_new, k, fit_binary, *, zero_one=False, normalise=False, one_based=False, first=False):
    X_new = _f(X_new)
    cols = []
    for c in range(k):
        t = (np.asarray(y) == c).astype(float)
        w = _f(fit_binary(X, t if zero_one else 2 * t - 1))
        n = np.linalg.norm(w)
        cols.append(X_new @ w / (n if normalise and n > 0 else 1.0))
    S = np.column_stack(cols)
    if first:  # the first class whose classifier says "yes", the largest score if none does
        return np.where((S > 0).any(axis=1), np.argmax(S > 0, axis=1), np.argmax(S, axis=1))
    return np.argmax(S, axis=1) + (1 if one_based else 0)


plausible("04.one_vs_all")(partial(_ova, normalise=True))  # scores divided by ‖w_c‖
plausible("04.one_vs_all")(partial(_ova, one_based=True))  # classes reported from 1
plausible("04.one_vs_all")(partial(_ova, first=True))  # the first class that says yes


@plausible("04.kesler")
def kesler_columns(x, i, k):
    """The vectors as columns: a (k n) × (k − 1) matrix."""
    from kmlteach.exercises.ch04 import kesler_vectors

    return kesler_vectors(x, i, k).T


@plausible("04.kesler")
def kesler_first_k_minus_one(x, i, k):
    """j in range(k − 1): j = i kept (a zero row), the last competitor left out."""
    x = _f(x)
    n = x.size
    rows = np.zeros((k - 1, k * n))
    for j in range(k - 1):
        rows[j, i * n : (i + 1) * n] += x
        rows[j, j * n : (j + 1) * n] -= x
    return rows


@plausible("04.kesler")
def kesler_interleaved(x, i, k):
    """x spread over every k-th entry instead of one block."""
    x = _f(x)
    rows = []
    for j in range(k):
        if j != i:
            M = np.zeros((x.size, k))
            M[:, i] += x
            M[:, j] -= x
            rows.append(M.ravel())
    return np.array(rows)


def _hsub_pick(W, x, y, Delta, *, transposed=False, only_yhat=False, flat=False):
    W, x, D = _f(W), _f(x), _f(Delta)
    s = W @ x
    yhat = int(np.argmax((D[y, :] if transposed else D[:, y]) + s - s[y]))
    G = np.zeros_like(W)
    G[yhat] += x
    if not only_yhat:
        G[y] -= x
    return G.ravel() if flat else G


plausible("04.hinge_subgradient")(partial(_hsub_pick, transposed=True))  # Delta[y, y']
plausible("04.hinge_subgradient")(partial(_hsub_pick, only_yhat=True))  # the row of y forgotten
plausible("04.hinge_subgradient")(partial(_hsub_pick, flat=True))  # a vector of length k n


# --- 05 ------------------------------------------------------------------------------------


def _chain(x, y, Wu, Wp, *, skip_first=False, drop_last_pair=False, all_labels=False):
    x, y, Wu, Wp = _f(x), np.asarray(y), _f(Wu), _f(Wp)
    r = len(y)
    if all_labels:
        unary = float(np.sum(x @ Wu.T))
    else:
        unary = float(sum(Wu[y[t]] @ x[t] for t in range(1 if skip_first else 0, r)))
    pairs = float(sum(Wp[y[t - 1], y[t]] for t in range(1, r - 1 if drop_last_pair else r)))
    return unary + pairs


plausible("05.chain_score")(partial(_chain, skip_first=True))  # the letter term of position 0 missing
plausible("05.chain_score")(partial(_chain, drop_last_pair=True))  # range(1, r − 1): the last pair missing
plausible("05.chain_score")(partial(_chain, all_labels=True))  # every letter with every label's weights


def _viterbi_variant(unary, pairwise, *, pointer_without_pairs=False, column_argmax=False, unary_shift=False):
    U, P = _f(unary), _f(pairwise)
    r, q = U.shape
    M = np.zeros((r, q))
    back = np.zeros((r, q), dtype=np.int64)
    M[0] = U[0]
    for t in range(1, r):
        cand = M[t - 1][:, None] + P
        back[t] = np.argmax(M[t - 1]) if pointer_without_pairs else np.argmax(cand, axis=0)
        M[t] = cand.max(0) + (U[t - 1] if unary_shift else U[t])
    if column_argmax:
        return np.argmax(M, axis=1)
    path = [int(np.argmax(M[-1]))]
    for t in range(r - 1, 0, -1):
        path.append(int(back[t, path[-1]]))
    return np.array(path[::-1])


plausible("05.viterbi")(partial(_viterbi_variant, pointer_without_pairs=True))  # pointer = best cell
plausible("05.viterbi")(partial(_viterbi_variant, column_argmax=True))  # the best cell of every column
plausible("05.viterbi")(partial(_viterbi_variant, unary_shift=True))  # unary[t − 1] in column t


@plausible("05.loss_augmented")
def loss_augmented_normalised(unary, pairwise, y_true):
    """The Hamming loss divided by r (UML's Δ) while the exercise counts wrong letters."""
    from kmlteach.structured import viterbi

    U = _f(unary)
    cost = (np.arange(U.shape[1])[None, :] != np.asarray(y_true)[:, None]) / U.shape[0]
    return viterbi(U + cost, pairwise).labels


@plausible("05.loss_augmented")
def loss_augmented_column_mask(unary, pairwise, y_true):
    """cost[:, y_true] = 0: every label that occurs anywhere in y_true costs nothing anywhere."""
    from kmlteach.structured import viterbi

    U = _f(unary)
    cost = np.ones_like(U)
    cost[:, np.asarray(y_true)] = 0.0
    return viterbi(U + cost, pairwise).labels


@plausible("05.loss_augmented")
def loss_augmented_greedy(unary, pairwise, y_true):
    """The loss added, then each position decoded on its own (the pairwise terms forgotten)."""
    U = _f(unary)
    return np.argmax(U + (np.arange(U.shape[1])[None, :] != np.asarray(y_true)[:, None]), axis=1)


def _coefs(x, y, q, *, drop_last_pair=False, mean_unary=False, symmetric=False):
    x, y = _f(x), np.asarray(y)
    Gu, Gp = np.zeros((q, x.shape[1])), np.zeros((q, q))
    np.add.at(Gu, y, x)
    if mean_unary:
        n = np.bincount(y, minlength=q)
        Gu = Gu / np.maximum(n, 1)[:, None]
    stop = len(y) - 1 if drop_last_pair else len(y)
    for t in range(1, stop):
        Gp[y[t - 1], y[t]] += 1
        if symmetric and y[t - 1] != y[t]:
            Gp[y[t], y[t - 1]] += 1
    return Gu, Gp


plausible("05.score_coefficients")(partial(_coefs, drop_last_pair=True))  # the last bigram missing
plausible("05.score_coefficients")(partial(_coefs, mean_unary=True))  # the mean letter of each label
plausible("05.score_coefficients")(partial(_coefs, symmetric=True))  # each bigram counted both ways


# --- 06 ------------------------------------------------------------------------------------


@plausible("06.permutation")
def permutation_average_ties(y):
    """Tied items share the average of their positions (scipy's rankdata)."""
    y = _f(y)
    less = (y[None, :] < y[:, None]).sum(1)
    equal = (y[None, :] == y[:, None]).sum(1)
    return less + (equal + 1) / 2


@plausible("06.permutation")
def permutation_count_smaller(y):
    """1 + the number of smaller items: tied items share a position."""
    y = _f(y)
    return 1 + (y[None, :] < y[:, None]).sum(1)


@plausible("06.permutation")
def permutation_flipped_decreasing(y):
    """r + 1 − (the stable decreasing position): ties in reverse order."""
    y = _f(y)
    order = np.argsort(-y, kind="stable")
    pos = np.empty(len(y), dtype=int)
    pos[order] = np.arange(1, len(y) + 1)
    return len(y) + 1 - pos


def _signs(v):
    v = _f(v)
    return np.sign(v[:, None] - v[None, :])


@plausible("06.kendall")
def kendall_over_r_r_minus_one(y_pred, y_true):
    """The discordant pairs i < j divided by r(r − 1)."""
    r = len(y_true)
    return float(np.triu(_signs(y_pred) != _signs(y_true), 1).sum() / (r * (r - 1)))


@plausible("06.kendall")
def kendall_from_tau(y_pred, y_true):
    """(1 − τ)/2 with Kendall's τ-a: ties count half a disagreement."""
    r = len(y_true)
    tau = np.triu(_signs(y_pred) * _signs(y_true), 1).sum() / (r * (r - 1) / 2)
    return float((1 - tau) / 2)


@plausible("06.kendall")
def kendall_prediction_ties_agree(y_pred, y_true):
    """Opposite strict orders, plus ties in y only: a tie in the prediction never counts."""
    sp, st = _signs(y_pred), _signs(y_true)
    bad = (sp * st < 0) | ((st == 0) & (sp != 0))
    r = len(y_true)
    return float(2 * np.triu(bad, 1).sum() / (r * (r - 1)))


@plausible("06.kendall")
def kendall_untied_pairs_only(y_pred, y_true):
    """Divided by the number of pairs not tied in y."""
    sp, st = _signs(y_pred), _signs(y_true)
    untied = np.triu(st != 0, 1).sum()
    return float(np.triu(sp != st, 1).sum() / untied) if untied else 0.0


def _ndcg(y_pred, y_true, k, *, strict=False, gain=None, log_rank=False, swap=False):
    from kmlteach.exercises.ch06 import permutation

    yp, y = _f(y_pred), _f(y_true)
    if swap:
        yp, y = y, yp
    r = len(y)
    g = gain(y) if gain else y

    def D(pos):
        rank = r - pos + 1
        keep = rank < k if strict else rank <= k
        with np.errstate(divide="ignore"):
            return np.where(keep, 1.0 / np.log2(rank + (0.0 if log_rank else 1.0)), 0.0)

    with np.errstate(divide="ignore", invalid="ignore"):
        return float(1.0 - (D(permutation(yp)) @ g) / (D(permutation(y)) @ g))


plausible("06.ndcg")(partial(_ndcg, strict=True))  # rank < k: the top-k cut one place short
plausible("06.ndcg")(partial(_ndcg, gain=lambda y: 2**y - 1))  # the gain 2^y − 1 of the IR literature
plausible("06.ndcg")(partial(_ndcg, log_rank=True))  # 1/log₂(rank) instead of 1/log₂(rank + 1)
plausible("06.ndcg")(partial(_ndcg, swap=True))  # y_pred and y_true exchanged


def _ndcg_cost_variant(
    y_score, y_true, k, *, zero_based=False, transposed=False, strict=False, from_score=False
):
    from kmlteach.exercises.ch06 import permutation

    mu, y = _f(y_score), _f(y_true)
    r = len(y)
    j = np.arange(1, r + 1, dtype=float)
    cut = j > r - k + 1 if strict else j >= r - k + 1
    D = np.where(cut, 1.0 / np.log2(r - j + 2), 0.0)
    ideal = float(D[permutation(mu if from_score else y) - 1] @ y)
    beta = y / ideal if ideal > 0 else np.zeros(r)
    A = np.outer(-mu, j - 1 if zero_based else j) + np.outer(beta, D)
    return A.T if transposed else A


plausible("06.ndcg_costs")(partial(_ndcg_cost_variant, zero_based=True))  # positions 0 .. r − 1 in j·α_i
plausible("06.ndcg_costs")(partial(_ndcg_cost_variant, transposed=True))  # positions × items
plausible("06.ndcg_costs")(partial(_ndcg_cost_variant, strict=True))  # j > r − k + 1: one place short
plausible("06.ndcg_costs")(partial(_ndcg_cost_variant, from_score=True))  # G from the scores' order


# --- 07 ------------------------------------------------------------------------------------


@plausible("07.confusion")
def confusion_sklearn_order(y_score, y_true, theta):
    """(d, b, c, a): scikit-learn's confusion_matrix(...).ravel() order (tn, fp, fn, tp)."""
    from kmlteach.exercises.ch07 import confusion_counts

    a, b, c, d = confusion_counts(y_score, y_true, theta)
    return d, b, c, a


@plausible("07.confusion")
def confusion_fractions(y_score, y_true, theta):
    """The four counts divided by the number of items."""
    from kmlteach.exercises.ch07 import confusion_counts

    n = len(y_true)
    return tuple(v / n for v in confusion_counts(y_score, y_true, theta))


@plausible("07.confusion")
def confusion_theta_on_both_sides(y_score, y_true, theta):
    """Predicted + with ≥ θ and predicted − with ≤ θ: a score equal to θ is counted twice."""
    s, pos = _f(y_score), _f(y_true) > 0
    up, down = s >= theta, s <= theta
    return (
        int(np.sum(up & pos)),
        int(np.sum(up & ~pos)),
        int(np.sum(down & pos)),
        int(np.sum(down & ~pos)),
    )


def _counts(y_score, y_true, theta, strict=False):
    s, pos = _f(y_score), _f(y_true) > 0
    pred = s > theta if strict else s >= theta
    return np.sum(pred & pos), np.sum(pred & ~pos), np.sum(~pred & pos)


@plausible("07.fbeta")
def fbeta_arithmetic_mean(y_score, y_true, theta, beta):
    """The weighted arithmetic mean of precision and recall."""
    a, b, c = _counts(y_score, y_true, theta)
    P, R = a / (a + b), a / (a + c)
    return float((P + beta**2 * R) / (1 + beta**2))


@plausible("07.fbeta")
def fbeta_no_numerator_factor(y_score, y_true, theta, beta):
    """a/((1 + β²)a + b + β²c): the factor 1 + β² missing above the line."""
    a, b, c = _counts(y_score, y_true, theta)
    return float(a / ((1 + beta**2) * a + b + beta**2 * c))


@plausible("07.fbeta")
def fbeta_strict_threshold(y_score, y_true, theta, beta):
    """Predicted positive when the score is above θ (> for ≥)."""
    a, b, c = _counts(y_score, y_true, theta, strict=True)
    return float((1 + beta**2) * a / ((1 + beta**2) * a + b + beta**2 * c))


@plausible("07.precision_at_k")
def patk_ascending(y_score, y_true, k):
    """θ = the k-th smallest score."""
    s = _f(y_score)
    pred = s >= np.sort(s)[k - 1]
    return float(np.sum(pred & (_f(y_true) > 0)) / np.sum(pred))


@plausible("07.precision_at_k")
def patk_unsorted(y_score, y_true, k):
    """θ = the score of item k − 1: the sort forgotten."""
    s = _f(y_score)
    pred = s >= s[k - 1]
    return float(np.sum(pred & (_f(y_true) > 0)) / np.sum(pred))


@plausible("07.precision_at_k")
def patk_ties_over_k(y_score, y_true, k):
    """The tied items counted as positives but the count divided by k."""
    s = _f(y_score)
    pred = s >= np.sort(s)[::-1][k - 1]
    return float(np.sum(pred & (_f(y_true) > 0)) / k)


def _fixed(y_score, y_true, a, b, *, swap=False, ascending=False, ignore_b=False):
    mu, y = _f(y_score), np.asarray(y_true)
    if swap:
        a, b = b, a
    v = -np.ones(len(y))
    for cls, n in ((1, a), (-1, 0 if ignore_b else b)):
        idx = np.flatnonzero(y == cls)
        idx = idx[np.argsort(mu[idx] if ascending else -mu[idx], kind="stable")]
        v[idx[:n]] = 1.0
    return v


plausible("07.fixed_ab")(partial(_fixed, swap=True))  # a negatives and b positives
plausible("07.fixed_ab")(partial(_fixed, ascending=True))  # +1 on the lowest scores of both classes
plausible("07.fixed_ab")(partial(_fixed, ignore_b=True))  # no negative labelled +1


def _bins(y_prob, y_true, n_bins, *, centres=False, shares=False, fewer=False, unclipped=False):
    p, pos = _f(y_prob), _f(y_true) > 0
    n = n_bins - 1 if fewer else n_bins
    if unclipped:  # floor(p n): an edge in the upper bin, and p = 1 in a bin of its own
        b = np.floor(p * n).astype(int)
    else:
        b = np.searchsorted(np.linspace(0.0, 1.0, n + 1)[1:-1], p, side="left")
    counts = np.bincount(b, minlength=n)
    full = counts > 0
    frac = np.bincount(b, weights=pos.astype(float), minlength=n)[full] / counts[full]
    mean = (
        ((np.arange(len(counts)) + 0.5) / n)[full]
        if centres
        else np.bincount(b, weights=p)[full] / counts[full]
    )
    return frac, mean, counts[full] / len(p) if shares else counts[full]


plausible("07.reliability")(partial(_bins, centres=True))  # the bin's centre instead of its mean probability
plausible("07.reliability")(partial(_bins, shares=True))  # counts divided by the number of items
plausible("07.reliability")(partial(_bins, fewer=True))  # np.linspace(0, 1, n_bins): one bin short
plausible("07.reliability")(partial(_bins, unclipped=True))  # floor(p·n_bins) without the last bin's clip


# --- 08 ------------------------------------------------------------------------------------


def _stump_pred(X, feature, threshold, sign):
    return np.where(_f(X)[:, feature] <= threshold, sign, -sign)


@plausible("08.stump_error")
def stump_sides_swapped(X, y, D, feature, threshold, sign):
    """sign on the > side and −sign on the ≤ side."""
    pred = -_stump_pred(X, feature, threshold, sign)
    return float(np.sum(_f(D)[pred != _f(y)]))


@plausible("08.stump_error")
def stump_row_not_column(X, y, D, feature, threshold, sign):
    """X[feature] (a point) instead of X[:, feature] (a feature)."""
    pred = np.where(_f(X)[feature] <= threshold, sign, -sign)
    return float(np.sum(_f(D)[pred != _f(y)]))


@plausible("08.stump_error")
def stump_mean_weight(X, y, D, feature, threshold, sign):
    """The mean of D over the mistakes instead of their sum."""
    pred = _stump_pred(X, feature, threshold, sign)
    bad = pred != _f(y)
    return float(np.mean(_f(D)[bad])) if bad.any() else 0.0


def _adaboost(D, y, h, *, inverted=False, z_after=False, correct_mass=False):
    D, y, h = _f(D), _f(y), _f(h)
    eps = float(np.sum(D[h == y] if correct_mass else D[h != y]))
    alpha = 0.5 * np.log(eps / (1 - eps) if inverted else (1 - eps) / eps)
    w = D * np.exp(-alpha * y * h)
    Dn = w / w.sum()
    return Dn, eps, float(alpha), float(Dn.sum() if z_after else w.sum())


plausible("08.adaboost_round")(partial(_adaboost, inverted=True))  # α = ½ ln(ε/(1 − ε))
plausible("08.adaboost_round")(partial(_adaboost, z_after=True))  # Z summed after normalising: 1
plausible("08.adaboost_round")(partial(_adaboost, correct_mass=True))  # ε = the weight of the right points


@plausible("08.training_bound")
def bound_exp_without_two(epsilons):
    """exp(−Σ γ_t²): the 2 of the exponent missing."""
    e = _f(epsilons)
    return float(np.prod(2 * np.sqrt(e * (1 - e)))), float(np.exp(-np.sum((0.5 - e) ** 2)))


@plausible("08.training_bound")
def bound_without_root(epsilons):
    """Π 4ε_t(1 − ε_t): the square root of Z_t forgotten."""
    e = _f(epsilons)
    return float(np.prod(4 * e * (1 - e))), float(np.exp(-2 * np.sum((0.5 - e) ** 2)))


@plausible("08.training_bound")
def bound_swapped(epsilons):
    """The exponential bound first."""
    e = _f(epsilons)
    return float(np.exp(-2 * np.sum((0.5 - e) ** 2))), float(np.prod(2 * np.sqrt(e * (1 - e))))


def _oob_variant(predictions, samples, y, *, count=False, everyone=False, sign_vote=False):
    P, S, y = _f(predictions), np.asarray(samples), _f(y)
    B, m = P.shape
    oob = np.ones((B, m), dtype=bool)
    for b in range(B):
        oob[b, S[b]] = False
    has = oob.any(axis=0)
    votes = P.sum(0) if everyone else np.where(oob, P, 0.0).sum(0)
    pred = np.sign(votes) if sign_vote else np.where(votes > 0, 1.0, -1.0)
    wrong = pred[has] != y[has]
    return float(wrong.sum() if count else wrong.mean())


plausible("08.oob_error")(partial(_oob_variant, count=True))  # the number of wrong votes
plausible("08.oob_error")(partial(_oob_variant, everyone=True))  # every member votes on every point
plausible("08.oob_error")(partial(_oob_variant, sign_vote=True))  # np.sign(votes): a tie predicts 0


def _impurity(a, criterion, *, gini_factor=2.0, unguarded=False):
    if criterion == "error":
        return min(a, 1 - a)
    if criterion == "gini":
        return gini_factor * a * (1 - a)
    with np.errstate(divide="ignore", invalid="ignore"):
        ps = (a, 1 - a) if unguarded else tuple(p for p in (a, 1 - a) if p > 0)
        return float(-sum(p * np.log2(p) for p in ps))


def _split(y, left, criterion, *, reverse=False, keep_empty=False, **kw):
    y, left = _f(y), np.asarray(left, dtype=bool)
    m = len(y)
    children = 0.0
    for side in (left, ~left):
        if side.any() or keep_empty:
            with np.errstate(invalid="ignore"):
                children += side.sum() / m * _impurity(np.mean(y[side] > 0), criterion, **kw)
    parent = _impurity(np.mean(y > 0), criterion, **kw)
    return float(children - parent if reverse else parent - children)


plausible("08.split_gain")(partial(_split, gini_factor=1.0))  # Gini a(1 − a) without the 2
plausible("08.split_gain")(partial(_split, unguarded=True))  # 0·log₂0 computed: nan
plausible("08.split_gain")(partial(_split, reverse=True))  # children minus parent
plausible("08.split_gain")(partial(_split, keep_empty=True))  # an empty side's mean: nan


@plausible("08.best_alpha")
def best_alpha_z_without_two(w_correct, w_wrong, w_abstain=0.0):
    """Z* = w_abstain + √(w_correct w_wrong)."""
    return 0.5 * np.log(w_correct / w_wrong), w_abstain + np.sqrt(w_correct * w_wrong)


@plausible("08.best_alpha")
def best_alpha_z_without_root(w_correct, w_wrong, w_abstain=0.0):
    """Z* = w_abstain + 2 w_correct w_wrong: the square root forgotten."""
    return 0.5 * np.log(w_correct / w_wrong), w_abstain + 2 * w_correct * w_wrong


@plausible("08.best_alpha")
def best_alpha_z_from_epsilon(w_correct, w_wrong, w_abstain=0.0):
    """α right, but Z from AdaBoost's 2√(ε(1 − ε)) with ε = w_wrong."""
    return 0.5 * np.log(w_correct / w_wrong), w_abstain + 2 * np.sqrt(w_wrong * (1 - w_wrong))


# --- 09 ------------------------------------------------------------------------------------


def _norma(coef, k_row, y_t, lam, eta, *, no_label=False, shrink_new=False, prepend=False, bare=False):
    coef = _f(coef)
    f = float(coef @ _f(k_row))
    z = f if no_label else y_t * f
    new = (1.0 if bare else y_t) * eta if z < 1 else 0.0
    old = (1 - eta * lam) * coef
    if shrink_new:
        new *= 1 - eta * lam
    return np.r_[new, old] if prepend else np.r_[old, new]


plausible("09.norma_step")(partial(_norma, no_label=True))  # the test f < 1 without the label
plausible("09.norma_step")(partial(_norma, shrink_new=True))  # the new coefficient shrunk too
plausible("09.norma_step")(partial(_norma, prepend=True))  # the new coefficient put first
plausible("09.norma_step")(partial(_norma, bare=True))  # the new coefficient η without y_t


@plausible("09.nu_property")
def nu_misclassified(alpha, yf, rho, tol=1e-6):
    """Margin errors read as misclassified points, y f < 0."""
    return float(np.mean(_f(yf) < -tol)), float(np.mean(_f(alpha) > tol))


@plausible("09.nu_property")
def nu_support_without_tol(alpha, yf, rho, tol=1e-6):
    """A support vector is any α_i > 0 (the tolerance forgotten for α)."""
    return float(np.mean(_f(yf) < rho - tol)), float(np.mean(_f(alpha) > 0))


@plausible("09.nu_property")
def nu_free_support_vectors(alpha, yf, rho, tol=1e-6):
    """Only the free support vectors, tol < α_i < 1 − tol, counted as support vectors."""
    a = _f(alpha)
    return float(np.mean(_f(yf) < rho - tol)), float(np.mean((a > tol) & (a < 1 - tol)))


def _oc(alpha, X, rho, sigma, Z, *, over=2.0, root=False, mean=False):
    D2 = np.sum((_f(Z)[:, None, :] - _f(X)[None, :, :]) ** 2, axis=2)
    K = np.exp(-(np.sqrt(D2) if root else D2) / (over * sigma))
    return (K @ _f(alpha)) / (len(alpha) if mean else 1) - rho


plausible("09.oneclass_value")(partial(_oc, over=1.0))  # exp(−d²/σ)
plausible("09.oneclass_value")(partial(_oc, root=True))  # the distance, not its square
plausible("09.oneclass_value")(partial(_oc, mean=True))  # the mean over the sample, not the sum


@plausible("09.rademacher")
def rademacher_without_one_over_n(X, sigmas):
    """The estimate without the 1/n."""
    X = _f(X)
    return float(np.mean(np.linalg.norm(_f(sigmas) @ X, axis=1))), float(np.sqrt(np.sum(X**2)) / len(X))


@plausible("09.rademacher")
def rademacher_bound_root_of_mean(X, sigmas):
    """The bound √(Σ‖x_i‖²/n): the root of the mean instead of root/n."""
    X = _f(X)
    n = len(X)
    return float(np.mean(np.linalg.norm(_f(sigmas) @ X, axis=1)) / n), float(np.sqrt(np.sum(X**2) / n))


@plausible("09.rademacher")
def rademacher_root_mean_square(X, sigmas):
    """√(mean of the squared norms) instead of the mean of the norms."""
    X = _f(X)
    n = len(X)
    S = _f(sigmas) @ X
    return float(np.sqrt(np.mean(np.sum(S**2, axis=1))) / n), float(np.sqrt(np.sum(X**2)) / n)


def _nu_dual(alpha, K, y, nu, tol=1e-8, *, no_labels=False, at_least=False, negative=False, exact=False):
    a, y = _f(alpha), _f(y)
    n = len(a)
    t = 0.0 if exact else tol
    total = a.sum() >= n * nu - t if at_least else abs(a.sum() - n * nu) <= t
    if not (np.all(a >= -t) and np.all(a <= 1 + t) and total and abs(a @ y) <= t):
        return np.inf
    v = a if no_labels else a * y
    return float((-0.5 if negative else 0.5) * v @ _f(K) @ v)


plausible("09.nu_dual")(partial(_nu_dual, no_labels=True))  # ½ αᵀKα: the labels forgotten in Q
plausible("09.nu_dual")(partial(_nu_dual, at_least=True))  # Σα ≥ nν instead of Σα = nν
plausible("09.nu_dual")(partial(_nu_dual, negative=True))  # the dual's −½ αᵀQα
plausible("09.nu_dual")(partial(_nu_dual, exact=True))  # the constraints without the tolerance


# --- the tests -------------------------------------------------------------------------------

REG = registry()
IDS = sorted(REG)
PAIRS = [(ex_id, k) for ex_id in IDS for k in range(len(PLAUSIBLE.get(ex_id, [])))]


def _name(fn) -> str:
    if isinstance(fn, partial):
        return fn.func.__name__ + "(" + ", ".join(f"{k}={v!r}"[:30] for k, v in fn.keywords.items()) + ")"
    return fn.__name__


def test_every_exercise_has_three_plausible_alternatives():
    assert set(PLAUSIBLE) == set(IDS), sorted(set(IDS) ^ set(PLAUSIBLE))
    short = {i: len(PLAUSIBLE[i]) for i in IDS if len(PLAUSIBLE[i]) < 3}
    assert not short, short


def _hidden_failures(ex, fn) -> int:
    n = 0
    for h in hidden_cases(ex.id):
        expected = ex.reference(*copy.deepcopy(h.args), **copy.deepcopy(h.kwargs))
        try:
            with np.errstate(all="ignore"):
                got = ex.prepare(fn(*copy.deepcopy(h.args), **copy.deepcopy(h.kwargs)))
            n += not ex.compare(expected, got)
        except Exception:
            n += 1
    return n


@pytest.mark.parametrize("ex_id, k", PAIRS, ids=[f"{i}-{k}" for i, k in PAIRS])
def test_a_plausible_alternative_fails_a_visible_and_a_hidden_case(ex_id, k, capsys):
    ex, fn = REG[ex_id], PLAUSIBLE[ex_id][k]
    with np.errstate(all="ignore"):
        ok = check(ex_id, fn)
    out = capsys.readouterr().out
    assert not ok, f"{ex_id}: {_name(fn)} passes every visible case"
    assert _hidden_failures(ex, fn) > 0, f"{ex_id}: {_name(fn)} passes every hidden case"
    # not a catalogued mistake under another name: check() names none for it
    assert "Common mistake" not in out and "Convention:" not in out, (ex_id, _name(fn), out)


@pytest.mark.parametrize("ex_id", IDS)
def test_the_plausible_alternatives_are_not_catalogued(ex_id):
    """Each behaves unlike every catalogued mistake on the visible cases (where it runs)."""
    ex = REG[ex_id]
    cases = ex.all_cases()
    for fn in PLAUSIBLE[ex_id]:
        try:
            with np.errstate(all="ignore"):
                values = [ex.prepare(fn(*copy_args(c)[0], **copy_args(c)[1])) for c in cases]
        except Exception:
            continue
        assert find_mistake(ex, cases, values) is None, (ex_id, _name(fn))
