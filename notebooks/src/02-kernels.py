# %% [markdown]
# # 02 · Kernels
#
# [Open this chapter on Binder](https://mybinder.org/v2/gh/kmlteach/kmlteach/main?urlpath=lab/tree/notebooks/02-kernels.ipynb)
#
# *Sources: UML §16 (embeddings, the kernel trick, kernel SGD, exercises 2–6), HSS1 §1.1–1.2
# (the class-mean classifier, positive definite kernels, closure properties, B-splines).*
#
# *Notation: every symbol of the course, chapter by chapter, with the letters that change meaning flagged, is in the [glossary](../docs/glossary.md).*
#
# Chapter 01 learned halfspaces. Many samples are not separated by any halfspace in the space
# where they live, yet become separable after a fixed non-linear map $\psi$ into a bigger
# space. The price seems to be the dimension of that space, but every algorithm we met only
# needs inner products $\langle\psi(x), \psi(x')\rangle$ — and for the right maps those are
# cheap to compute directly. This is the *kernel trick*.
#
# **You need:** chapter 01 (halfspaces, soft-SVM and its SGD, the perceptron); matrices,
# eigenvalues and positive semi-definiteness.
#
# **You will be able to** (objectives):
# 1. lift data with an explicit feature map and see a linear separator become curved;
# 2. compute Gram matrices and decide whether a similarity is a kernel;
# 3. verify the kernel trick: kernel SGD equals SGD on explicit features (UML Lemma 16.3);
# 4. derive the kernel perceptron, kernel ridge regression and the class-mean classifier;
# 5. choose σ and λ by cross-validation on real data, and compare with a linear method;
# 6. estimate what an exact kernel method costs, and scale it with Nyström landmarks or random
#    Fourier features.

# %%
import math

import matplotlib.pyplot as plt
import numpy as np
from IPython.display import HTML, display

from kmlteach import kernel_methods as km
from kmlteach import kernels as kk
from kmlteach import svm
from kmlteach.datasets import line_example
from kmlteach.exercises import ask, quiz, quiz_html
from kmlteach.plots import show
from kmlteach.plots.ch02 import (
    lift,
    plot_decision_regions,
    plot_eigenvalues,
    plot_gram,
    plot_lifted_3d,
    plot_line_example,
    plot_preimage,
    plot_regression_fit,
)
from kmlteach.widgets.ch02 import boundary_data, embedding_data, psd_points

SEED = 0
rng = np.random.default_rng(SEED)

# %% [markdown]
# ## 1 · Embeddings: the line example (UML §16.1)
#
# Take the integers $-10, \dots, 10$ and label a point $+1$ when $|x| > 2$. On the real line a
# halfspace is a threshold, and no threshold puts the middle block on one side and both tails
# on the other. Map each point to $\psi(x) = (x, x^2)$: in the plane the positive points sit
# high on the parabola, and the line $x_2 = 5$ separates them. In the notation of UML,
# $h(x) = \operatorname{sign}(\langle w, \psi(x)\rangle - b)$ with $w = (0, 1)$, $b = 5$.

# %%
x, y = line_example()
psi = kk.line_embedding(x)
w, b = np.array([0.0, 1.0]), 5.0
print("sign(<w, psi(x)> - b) equals y for every point:", bool(np.all(np.sign(psi @ w - b) == y)))
print("back in input space the rule reads x^2 > 5, i.e. |x| > 2.236")

fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), layout="constrained")
plot_line_example(x, y, ax=axes[0])
plot_line_example(x, y, w, b, ax=axes[1], embedded=True)
show(
    fig,
    alt="Two panels. Left: the integers from -10 to 10 on a line, the five points from -2 to 2 "
    "labelled -1 (blue circles) between positive points (vermillion triangles) on both sides, so no "
    "single threshold separates them. Right: the same points mapped to (x, x squared) lie on a "
    "parabola; the horizontal line at height 5 has every positive point above it and every negative "
    "point below it.",
)

# %% [markdown]
# The same happens in two dimensions. Two concentric rings are not linearly separable, but
# $\psi(x) = (x_1, x_2, x_1^2 + x_2^2)$ lifts the outer ring above the inner one. We fit the exact
# soft-SVM of chapter 01 (objective (15.12) with a bias) *on the lifted points*; its plane
# $\langle w, \psi(x)\rangle + b = 0$ in feature space is a quadratic curve in input space — its
# *pre-image* — here close to a circle.

# %%
Xr, yr = embedding_data("rings")
Psi_r = lift("rings", Xr)
fit = svm.soft_svm(Psi_r, yr, 0.01, homogeneous=False)
acc = np.mean(np.where(Psi_r @ fit.w + fit.b >= 0, 1, -1) == yr)
print(
    f"w = ({fit.w[0]:.3f}, {fit.w[1]:.3f}, {fit.w[2]:.3f}),  b = {fit.b:.3f},  "
    f"training accuracy {100 * acc:.1f} %"
)

fig = plt.figure(figsize=(10, 4.5), layout="constrained")
ax1 = fig.add_subplot(1, 2, 1)
ax2 = fig.add_subplot(1, 2, 2, projection="3d")
plot_preimage(Xr, yr, lambda P: lift("rings", P), fit.w, fit.b, ax=ax1)
plot_lifted_3d(Psi_r, yr, fit.w, fit.b, ax=ax2, labels=("$x_1$", "$x_2$", "$x_1^2+x_2^2$"))
show(
    fig,
    alt="Two panels. Left: two concentric rings of points in the plane, the inner ring labelled "
    "-1 and the outer ring +1, with the pre-image of the soft-SVM plane drawn as a green closed "
    "curve, nearly a circle, running between the rings. Right: the same points lifted to 3-D with "
    "height x1 squared plus x2 squared; the outer ring sits higher, and a flat green plane passes "
    "between the two rings.",
)

# %% [markdown]
# **Kernel embedding explorer.** Choose a data set (the 1-D line example, rings, or an "xor"
# pattern lifted with $x_1 x_2$), rotate the 3-D view with the elevation and azimuth sliders,
# and change λ. Left: input space with the pre-image of the plane; right: feature space.

# %%
# NBVAL_IGNORE_OUTPUT
from kmlteach.widgets.ch02 import make_embedding_explorer

make_embedding_explorer()

# %% [markdown]
# ## 2 · Polynomial feature maps and the kernel trick (UML Example 16.1)
#
# Which map makes *every* polynomial of degree $k$ a linear function? Expanding
# $(1 + \langle x, x'\rangle)^k$ with the multinomial theorem gives one term per monomial
# $\prod_j x_j^{a_j}$ of degree $|a| \le k$, each appearing as a product "something of $x$ times
# the same thing of $x'$". So
#
# $$\psi(x)_a = \sqrt{\frac{k!}{(k-|a|)!\,a_1!\cdots a_d!}}\ \prod_j x_j^{a_j}
# \qquad\Longrightarrow\qquad \langle\psi(x), \psi(x')\rangle = (1 + \langle x, x'\rangle)^k.$$
#
# UML lists all $(d+1)^k$ *ordered* products instead (with repeats); merging repeats gives these
# $\binom{d+k}{k}$ scaled monomials and the same inner products. `kk.polynomial_features`
# builds them; the kernel computes the same numbers in $O(d)$ operations.

# %%
print("features for d = 2, k = 2:", ", ".join(kk.polynomial_feature_names(2, 2)))
Xs = rng.normal(size=(6, 3))
Phi = kk.polynomial_features(Xs, 3)
K = kk.gram("polynomial", Xs, degree=3, c=1)
print(
    f"d = 3, k = 3: {Phi.shape[1]} features;  max |Phi Phi^T - K| < 1e-10: "
    f"{bool(np.max(np.abs(Phi @ Phi.T - K)) < 1e-10)}"
)
print("\n   d    k   C(d+k, k)    (d+1)^k   kernel cost ~ d")
for d in (2, 10, 100):
    for k in (2, 4):
        print(f"{d:4d} {k:4d} {math.comb(d + k, k):11,d} {(d + 1) ** k:10,d}   {d:6d}")

# %% [markdown]
# The min kernel $K(x, x') = \min\{x, x'\}$ on $\{1, \dots, N\}$ (UML ex. 16.4) has an even
# simpler map: $\psi(x) = (\mathbb 1[x \ge 1], \dots, \mathbb 1[x \ge N])$, since the number of
# $s \le N$ below both $x$ and $x'$ is $\min\{x, x'\}$.

# %%
xs_min = np.array([1, 2, 3, 5])
Psi_min = kk.min_features(xs_min, N=5)
print(Psi_min.astype(int))
print(
    "Psi Psi^T equals min(x, x'):",
    bool(np.array_equal(Psi_min @ Psi_min.T, np.minimum.outer(xs_min, xs_min))),
)

# %% [markdown]
# ## 3 · Kernels and Gram matrices
#
# A *kernel* is a function $k(x, x') = \langle\psi(x), \psi(x')\rangle$ for some map $\psi$ into
# a Hilbert space. Given points $x_1, \dots, x_m$ its **Gram matrix** is $K_{ij} = k(x_i, x_j)$
# (HSS1 (1.8)). `kk.gram(kernel, X, Y=None, **params)` computes it for
#
# | kernel | $k(x, x')$ | source |
# |---|---|---|
# | `"linear"` | $\langle x, x'\rangle$ | |
# | `"polynomial"` | $(c + \langle x, x'\rangle)^k$ ($c = 0$: homogeneous) | UML Ex. 16.1, HSS1 (1.22) |
# | `"gaussian"` | $\exp(-\lVert x - x'\rVert^2/(2\sigma))$ $= \exp(-\gamma\lVert x - x'\rVert^2)$, $\gamma = 1/(2\sigma)$ | UML Ex. 16.2, HSS1 §1.2.3.2 |
# | `"exponential"` | $\exp(\gamma\langle x, x'\rangle)$ (for which γ? section 4) | HSS1 §1.2.3.2 |
# | `"min"` | $\prod_j \min(x_j, x'_j)$, $x \ge 0$ | UML ex. 16.4 |
# | `"bspline"` | $\prod_j B_{2p+1}(x_j - x'_j)$ | HSS1 (1.23) |
#
# Mind the Gaussian convention: UML's σ is *not* squared, HSS writes γ. Both are accepted
# (never together). The B-spline $B_n$ is the box $\mathbb 1_{[-1/2, 1/2]}$ convolved with itself
# $n$ times, a piecewise polynomial of degree $n$.
#
# **Predict first.** The next figure draws four Gram matrices of 30 sorted points in $[-2, 2]$,
# among them the Gaussian with a small σ = 0.05. That matrix looks like (a) all entries close
# to 1: every point is similar to every other; (b) bright only on and next to the diagonal;
# (c) all entries close to 0, the diagonal included.

# %%
ask("02.c_gram", "?")

# %%
Xg = np.sort(rng.uniform(-2, 2, size=(30, 1)), axis=0)
fig, axes = plt.subplots(2, 2, figsize=(8.4, 6.4), layout="compressed")  # room for the colour bars
for ax, (name, params, title) in zip(
    axes.ravel(),
    [
        ("polynomial", {"degree": 2}, "polynomial, k = 2"),
        ("gaussian", {"sigma": 0.05}, "Gaussian, σ = 0.05"),
        ("gaussian", {"sigma": 2.0}, "Gaussian, σ = 2"),
        ("bspline", {"order": 3}, "B-spline, n = 3"),
    ],
):
    plot_gram(kk.gram(name, Xg, **params), ax=ax, title=title)
show(
    fig,
    alt="Four heat maps of 30 by 30 Gram matrices on sorted points in [-2, 2], with colour bars. "
    "Polynomial of degree 2: large values only in the top-left and bottom-right corners, where "
    "both points are far from 0 on the same side. Gaussian with sigma 0.05: bright square blocks "
    "along the diagonal, one per cluster of nearby points, dark elsewhere. Gaussian with sigma 2: "
    "bright almost everywhere, dark only where the points are far apart (the other two corners). "
    "B-spline of order 3: a band around the diagonal, zero for points far apart.",
)
same = np.allclose(kk.gram("gaussian", Xg, sigma=0.5), kk.gram("gaussian", Xg, gamma=1.0))
print("sigma = 0.5 (UML) and gamma = 1 (HSS) give the same Gram matrix:", same)
t = np.linspace(-2.5, 2.5, 201)
print(
    "B-spline values: B_0(0) = {:.3f}, B_1(0.5) = {:.3f}, B_3(0) = {:.4f}, B_3(1) = {:.4f}".format(
        *kk.bspline([0.0], 0), *kk.bspline([0.5], 1), *kk.bspline([0.0], 3), *kk.bspline([1.0], 3)
    )
)

# %% [markdown]
# With σ = 0.05 a point is similar only to its close neighbours, so the Gaussian Gram matrix
# is bright only near the diagonal (its diagonal is always $k(x, x) = 1$); with σ = 2 almost
# every pair looks alike. This settles 02.c_gram.
#
# Kernels also encode prior knowledge about data that are not vectors (UML §16.2.1). To spot a
# "signature" string inside a file, map a string $x$ to the 0/1 vector indexed by all strings $v$
# (up to some length) that says whether $v$ occurs in $x$. The inner product counts the
# substrings two strings share; it can be computed without ever listing the exponentially many
# coordinates. Chapter 03 builds more kernels of this kind.

# %%
from kmlteach.structured_kernels import substring_kernel

for s_, t_ in [("abab", "bab"), ("virus", "viral"), ("kernel", "kernel")]:
    print(
        f"K({s_!r}, {t_!r}) = {substring_kernel(s_, t_)} shared substrings,"
        f" of length <= 2: {substring_kernel(s_, t_, max_len=2)}"
    )

# %% [markdown]
# ## 4 · Which similarities are kernels?
#
# **Predict first.** $x x'$ is a kernel on the real line, and so is $\exp(\gamma\, x x')$ for
# $\gamma > 0$. Is $\exp(\gamma\, x x')$ with $\gamma = -1$ a kernel?
#
# * (a) yes: the exponential of a kernel is a kernel
# * (b) no: some Gram matrix of it has a negative eigenvalue
# * (c) yes: every value $\exp(-x x')$ is positive
# * (d) only on the half-line $x > 0$, where $x x'$ is never negative

# %%
ask("02.c_expneg", "?")  # your letter, then read on

# %% [markdown]
# If $k$ is a kernel, every Gram matrix is positive semi-definite: for any coefficients $c$,
# $\sum_{ij} c_i c_j K_{ij} = \lVert\sum_i c_i\psi(x_i)\rVert^2 \ge 0$ (HSS1 (1.9)). Conversely
# (HSS1 Def. 3, UML Lemma 16.2) a symmetric function all of whose Gram matrices are PSD *is* a
# kernel. So one negative eigenvalue of one Gram matrix proves that a candidate is not a kernel.
# `kk.is_psd(K)` returns the verdict and the smallest eigenvalue; `kk.similarity` computes Gram
# matrices of candidates that are not kernels.
#
# <details><summary>Answer and why</summary>
#
# Three classic failures:
#
# * $\exp(\gamma\, x x')$ with $\gamma < 0$: for $x = 1, x' = -1, \gamma = -1$ the Gram matrix
#   $\begin{pmatrix} e^{-1} & e \\ e & e^{-1}\end{pmatrix}$ has determinant $e^{-2} - e^2 < 0$
#   (HSS1 states the exponential kernel for every γ; its Taylor argument needs $\gamma \ge 0$).
#   Positive values do not rescue it, nor does the half-line: $x = 1, x' = 2$ give the
#   determinant $e^{-5} - e^{-4} < 0$;
# * even-order B-splines $B_{2p}$: their Fourier transform $\operatorname{sinc}^{2p+1}$ changes sign;
# * the negative distance $-\lVert x - x'\rVert$: zero diagonal, negative off-diagonal.
#
# A kernel also satisfies Cauchy–Schwarz, $k(x, x')^2 \le k(x, x)\,k(x', x')$ (HSS1 Prop. 4):
# the $2\times 2$ Gram matrix has a non-negative determinant. The first failure above settles
# 02.c_expneg.
#
# </details>


# %%
def fmt_eig(v):
    """An eigenvalue, with rounding noise below 1e-9 shown as 0."""
    return "0 (to rounding)" if abs(v) < 1e-9 else f"{v:+.2e}"


K_bad = kk.similarity("exponential", [[1.0], [-1.0]], gamma=-1.0)
print(
    "exp(-x x') on {1, -1}:",
    kk.is_psd(K_bad).psd,
    f"smallest eigenvalue {kk.is_psd(K_bad).smallest_eigenvalue:.4f}",
    f"(e^-1 - e = {math.exp(-1) - math.e:.4f})",
)
grid = psd_points(16, "bspline")
rows = [
    ("exponential, gamma = +1", kk.similarity("exponential", grid, gamma=1.0)),
    ("exponential, gamma = -1", kk.similarity("exponential", grid, gamma=-1.0)),
    ("B-spline order 2", kk.similarity("bspline", grid, order=2)),
    ("B-spline order 3", kk.similarity("bspline", grid, order=3)),
    ("negative distance", kk.similarity("negative_distance", grid)),
]
for name, Kc in rows:
    psd, lmin = kk.is_psd(Kc)
    print(
        f"{name:<26} PSD: {str(psd):<5}  smallest eigenvalue {fmt_eig(lmin):<16}  "
        f"Cauchy-Schwarz ratio {kk.cauchy_schwarz_ratio(Kc):.3f}"
    )

fig, axes = plt.subplots(1, 3, figsize=(10, 3.4), layout="constrained")
plot_gram(rows[2][1], ax=axes[0], title="B-spline, order 2 (16 points)")
for ax, (name, Kc) in zip(axes[1:], [rows[2], rows[3]]):
    plot_eigenvalues(np.linalg.eigvalsh(Kc), ax=ax, title=f"spectrum: {name}")
    ax.set_yscale("symlog", linthresh=1e-3)
show(
    fig,
    alt="Three panels. Left: the 16 by 16 Gram matrix of the order-2 B-spline, a band around "
    "the diagonal. Middle: its eigenvalues in descending order on a symmetric-log axis; the last "
    "ones are negative, drawn as hatched vermillion bars below zero, so order 2 is not a kernel. "
    "Right: the eigenvalues of the order-3 B-spline, all at or above zero (solid blue bars).",
)

# %% [markdown]
# **PSD lab.** Pick a candidate similarity and its parameter: the left panel shows its Gram
# matrix on evenly spaced points, the right panel the eigenvalues on a symmetric-log scale —
# negative ones are hatched in vermillion. Try the exponential with γ crossing 0, B-splines of
# even and odd order, and a Gaussian with a tiny or huge σ. The negative distance always shows
# exactly one negative eigenvalue: it is only *conditionally* positive definite (the quadratic
# form is non-negative for coefficients summing to zero, HSS1 (1.20)), which is enough for
# methods that are invariant to translations in feature space.

# %%
# NBVAL_IGNORE_OUTPUT
from kmlteach.widgets.ch02 import make_psd_lab

make_psd_lab()

# %% [markdown]
# ### Building new kernels (HSS1 Prop. 5)
#
# Kernels can be combined without losing positive definiteness: (i) $\alpha_1 k_1 + \alpha_2 k_2$
# with $\alpha_i \ge 0$; (ii) the product $k_1 k_2$; (iii) on pairs $(x_1, x_2)$ the tensor product
# $k_1(x_1, x_1')k_2(x_2, x_2')$ and the direct sum $k_1(x_1, x_1') + k_2(x_2, x_2')$; (iv)
# pointwise limits; (v) $f(x)f(x')$ for any $f$. The exponential kernel is the limit of its
# Taylor partial sums $\sum_{i<n} (\gamma\langle x, x'\rangle)^i / i!$, each a non-negative
# combination of homogeneous polynomial kernels — hence a kernel when $\gamma \ge 0$.

# %%
Xc = rng.normal(size=(20, 3))
gauss, poly, lin = (
    kk.make_kernel("gaussian", sigma=0.5),
    kk.make_kernel("polynomial", degree=2),
    kk.make_kernel("linear"),
)
combos = [
    ("sum 2 k_gauss + 0.5 k_poly", kk.kernel_sum(gauss, poly, 2.0, 0.5)),
    ("product k_gauss k_poly", kk.kernel_product(gauss, poly)),
    ("tensor product on (x1:2, x3)", kk.tensor_product(gauss, lin, 2)),
    ("direct sum on (x1, x2:3)", kk.direct_sum(gauss, lin, 1)),
    ("f(x) f(x'), f = sum sin", kk.feature_product(lambda r: np.sin(r).sum())),
]
for name, k in combos:
    print(
        f"{name:<30} PSD: {kk.is_psd(k(Xc)).psd}   smallest eigenvalue {fmt_eig(kk.is_psd(k(Xc)).smallest_eigenvalue)}"
    )
target = kk.gram("exponential", Xc, gamma=0.3)
for n in (1, 2, 4, 8, 16):
    err = np.max(np.abs(kk.exponential_taylor_gram(Xc, gamma=0.3, n_terms=n) - target))
    print(f"Taylor partial sum with {n:2d} terms: max error {err:.1e}")

# %% [markdown]
# ## 5 · The representer theorem and the kernel trick
#
# UML Theorem 16.1: for any objective $f(\langle w, \psi(x_1)\rangle, \dots,
# \langle w, \psi(x_m)\rangle) + R(\lVert w\rVert)$ with $R$ non-decreasing, *some* minimiser is
# $w = \sum_j \alpha_j \psi(x_j)$. HSS1 Theorem 6 (Eqs. (1.24)–(1.25)) says it in the RKHS of
# chapter 03 — an arbitrary loss of the values $f(x_1), \dots, f(x_m)$ plus
# $\Omega(\lVert f\rVert^2)$ — and asks more of the regulariser to say more: when $\Omega$ is
# *strictly* increasing, *every* minimiser has the form $f = \sum_i \alpha_i k(x_i, \cdot)$. With
# a merely non-decreasing $\Omega$ only the weaker statement survives, some minimiser has the
# form (HSS1's remark after the proof), which is UML's version.
#
# The reason is geometric. Split $w = w_\parallel + u$, with $w_\parallel$ in the span of the
# $\psi(x_i)$ and $u$ orthogonal to every $\psi(x_i)$. The component $u$ changes no prediction
# on the sample, so the first term does not see it, while $\lVert w\rVert^2 = \lVert
# w_\parallel\rVert^2 + \lVert u\rVert^2$. Dropping $u$ therefore never increases the
# objective; with a strictly increasing regulariser and $u \ne 0$ it decreases it, so no
# minimiser keeps a $u \ne 0$. Where the regulariser is flat, a minimiser may keep a $u$ that
# costs nothing: it is then not a kernel expansion, but $w_\parallel$ is a minimiser that is.
#
# In the span, $\langle w, \psi(x)\rangle = \sum_j \alpha_j k(x_j, x)$ and $\lVert w\rVert^2 =
# \alpha^\top K\alpha$: the problem is about $\alpha \in \mathbb R^m$ and the Gram matrix only.
# `km.kernel_expansion` evaluates such predictors from $K(\text{test}, \text{train})$. The cell
# below builds $u$ for five points with explicit degree-2 features (6 coordinates), then
# compares two regularisers on a sample that $w_\parallel$ fits exactly (squared loss 0):
# $R(t) = t^2/2$, strictly increasing, and $R(t) = \max(0, t^2 - 60)/2$, flat up to
# $\lVert w\rVert^2 = 60$.

# %%
Xp = rng.normal(size=(5, 2))
Phi_p = kk.polynomial_features(Xp, 2)  # 6 features, 5 points
alpha = rng.normal(size=5)
w_span = Phi_p.T @ alpha
u = np.linalg.svd(Phi_p)[2][-1]  # orthogonal to every psi(x_i)
print("u is orthogonal to every psi(x_i):", bool(np.max(np.abs(Phi_p @ u)) < 1e-12))
print("predictions on the sample unchanged:", np.allclose(Phi_p @ (w_span + u), Phi_p @ w_span))
print(f"||w||^2: {w_span @ w_span:.4f} (span)  vs  {(w_span + u) @ (w_span + u):.4f} (with u)")
Kp = kk.gram("polynomial", Xp, degree=2)
print("alpha^T K alpha equals ||w||^2:", bool(np.isclose(alpha @ Kp @ alpha, w_span @ w_span)))

targets = Phi_p @ w_span  # labels that w_span fits exactly


def objective(w, R):
    """Mean squared loss on the sample plus R(||w||)."""
    return float(np.mean((Phi_p @ w - targets) ** 2)) + R(float(np.sqrt(w @ w)))


for name, R in [
    ("R(t) = t^2/2, strictly increasing    ", lambda t: t**2 / 2),
    ("R(t) = max(0, t^2 - 60)/2, flat to 60", lambda t: max(0.0, t**2 - 60.0) / 2),
]:
    print(
        f"{name}: objective {objective(w_span, R):.4f} at w_span, "
        f"{objective(w_span + u, R):.4f} at w_span + u"
    )

# %% [markdown]
# With the strictly increasing $R$ the component $u$ costs $\frac12\lVert u\rVert^2 = 0.5$, so
# $w_\parallel + u$ is beaten by $w_\parallel$ and cannot be a minimiser. With the flat $R$ both
# objectives are 0, the smallest value this objective can take, so *both* are minimisers — and
# $w_\parallel + u$ is not in the span of the $\psi(x_i)$: only "some minimiser" is a kernel
# expansion there.

# %% [markdown]
# ## 6 · SGD for soft-SVM with kernels (UML §16.3)
#
# Chapter 01's SGD keeps $\theta^{(t)}$, a sum of vectors $y_i\psi(x_i)$. Writing
# $\theta^{(t)} = \sum_j \beta_j^{(t)}\psi(x_j)$ gives the kernel version:
#
# * $\beta^{(1)} = 0$; for $t = 1..T$: $\alpha^{(t)} = \beta^{(t)}/(\lambda t)$; draw $i$; if
#   $y_i \sum_j \alpha_j^{(t)} K(x_j, x_i) < 1$ then $\beta_i \mathrel{+}= y_i$;
# * output $\bar\alpha = \frac1T\sum_t \alpha^{(t)}$, i.e. $\bar w = \sum_j \bar\alpha_j\psi(x_j)$.
#
# Lemma 16.3: with the same random indices this is *exactly* SGD on the features. `kernel_sgd_svm`
# draws its indices like `svm.sgd_soft_svm`, so we can check the lemma to rounding error.

# %%
Xm, ym, Xt, yt = boundary_data()
Phi_m = kk.polynomial_features(Xm, 3)
K_m = kk.gram("polynomial", Xm, degree=3)
for seed in range(3):
    w_feat = svm.sgd_soft_svm(Phi_m, ym, 0.01, 2000, seed).w
    a_ker = km.kernel_sgd_svm(K_m, ym, 0.01, 2000, seed).alpha
    diff = np.max(np.abs(Phi_m.T @ a_ker - w_feat))
    print(
        f"seed {seed}: sum_j alpha_j psi(x_j) equals w_bar of SGD on features (to 1e-10): {bool(diff < 1e-10)}"
    )

# %% [markdown]
# **Predict first.** The figure below runs kernel SGD with Gaussian kernels of widths
# σ = 0.005, 0.1 and 5. Compared with σ = 0.1, the test accuracy with the tiny σ = 0.005 is
# (a) higher: more flexible is better; (b) lower: the boundary bends around individual training
# points; (c) exactly the same.

# %%
ask("02.c_sigma", "?")

# %% [markdown] tags=["slide-skip"]
# **Predict, then reveal.** On the two moons of this section, pick a kernel and its parameter,
# type your guess of the test accuracy (in %), then press **Reveal** to draw the boundary (a
# guess within 5 points counts). Every new setting asks again, and the readout keeps your score. The
# figure after it shows six settings at once.

# %% tags=["slide-skip"]
# NBVAL_IGNORE_OUTPUT
from kmlteach.widgets.ch02 import make_boundary_explorer

make_boundary_explorer(predict=True)

# %% [markdown]
# With the Gaussian kernel the feature space is infinite-dimensional (UML Example 16.2), so
# only the kernel version can run. The width σ controls how local the predictor is, and the
# polynomial degree plays a similar role. (Kernel SGD has no bias term, as in §16.3.)

# %%
fig, axes = plt.subplots(2, 3, figsize=(10, 7.0), layout="constrained")
for ax, (name, params) in zip(
    axes.ravel(),
    [
        ("gaussian", {"sigma": 0.005}),
        ("gaussian", {"sigma": 0.1}),
        ("gaussian", {"sigma": 5.0}),
        ("polynomial", {"degree": 1}),
        ("polynomial", {"degree": 3}),
        ("polynomial", {"degree": 6}),
    ],
):
    res = km.kernel_sgd_svm(kk.gram(name, Xm, **params), ym, 0.001, 6000, 0)
    test = np.mean(np.where(kk.gram(name, Xt, Xm, **params) @ res.alpha >= 0, 1, -1) == yt)
    label = f"σ = {params['sigma']}" if name == "gaussian" else f"k = {params['degree']}"
    plot_decision_regions(
        Xm,
        ym,
        lambda P: kk.gram(name, P, Xm, **params) @ res.alpha,
        ax=ax,
        lim=(-1.7, 2.7),
        n=90,
        title=f"{name}, {label}: test acc. {100 * test:.1f} %",
        legend=(ax is axes[0, 0]),
    )
    ax.title.set_fontsize(10)  # three panels in a row: long titles at 12 pt would collide
show(
    fig,
    alt="Six panels, each the two-moons training sample with the region predicted +1 tinted "
    "vermillion, the region predicted -1 tinted blue and the decision boundary in black. Top row, "
    "Gaussian kernel: sigma 0.005 gives a jagged boundary that bends around single training "
    "points, sigma 0.1 a smooth curve between the two moons, sigma 5 a gently curved line. Bottom row, polynomial kernel: "
    "degree 1 is a straight line, degrees 3 and 6 bend around the moons. Each title gives the "
    "test accuracy.",
)

# %% [markdown]
# The tiny σ loses test accuracy: $k(x, x_j)$ is almost 0 except right next to $x_j$, so the
# boundary bends around single training points (it memorises them); a huge σ makes the
# boundary almost linear. This settles 02.c_sigma.
#
# **Decision-boundary explorer.** Switch between the Gaussian and polynomial kernels and slide
# σ, the degree and λ; the readout reports training and test accuracy on a fresh sample.

# %%
# NBVAL_IGNORE_OUTPUT
from kmlteach.widgets.ch02 import make_boundary_explorer

make_boundary_explorer()

# %% [markdown]
# `km.KernelSVM` wraps the same procedure as a scikit-learn-style classifier (any two labels,
# `fit`/`predict`/`decision_function`, default $T = 20m$ steps).

# %%
clf = km.KernelSVM(kernel="gaussian", sigma=0.1, lam=0.001, T=6000, seed=0).fit(Xm, ym)
print(f"KernelSVM test accuracy: {100 * np.mean(clf.predict(Xt) == yt):.1f} %")

# %% [markdown]
# ### Choosing σ and λ by cross-validation, on real data
#
# The two moons let us *see* what σ does; on real data we cannot look, and the test set must
# not be used to choose either (it would no longer estimate the error of what we ship). The
# standard recipe is $k$-fold cross-validation (UML §11.2.4, beyond this course's sources):
# cut the training sample into $k$ folds, train on $k-1$ of them for each candidate $(\lambda,
# \sigma)$, score on the fold left out, average over the folds, keep the best candidate, then
# train once more on the whole training sample and report the untouched test set.
#
# The data: the *Breast Cancer Wisconsin (Diagnostic)* set, 569 tumours described by 30
# measurements of cell nuclei, label $+1$ for malignant (bundled with the course; CC BY 4.0,
# `breast_cancer().citation` says where it comes from). The features have very different units
# (areas in the thousands, smoothness around 0.1), so each split is standardised with the
# means and standard deviations of its *training* folds only.
#
# Chapter 01's lab ran this recipe on the same split with the *linear* soft-SVM: λ = 0.01 won
# the cross-validation (97.4 % held-out accuracy) and the test set then had 113 of its 114
# tumours right. A Gaussian kernel can bend the boundary around what a hyperplane misses.
#
# **Predict first.** With σ and λ chosen by cross-validation, the Gaussian kernel's test
# accuracy on the same 114 tumours will be (a) clearly better: a curved boundary fits what a
# hyperplane cannot; (b) about the same, within a tumour or two; (c) clearly worse: a Gaussian
# kernel in 30 dimensions always overfits.

# %%
ask("02.c_linear", "?")

# %%
from kmlteach.datasets import breast_cancer
from kmlteach.plots.ch02 import plot_validation_curve

data = breast_cancer()
test_mask = km.kfold_indices(data.y, 5, seed=1) == 0  # a stratified 20 % test set, set aside
X_cv, y_cv = data.X[~test_mask], data.y[~test_mask]
sigmas = 2.0 ** np.arange(-1, 11)  # σ = 0.5, 1, 2, ..., 1024
lams = [1e-4, 1e-3, 1e-2, 1e-1]
cv = km.cross_validate_kernel_svm(X_cv, y_cv, lams, sigmas, k=5, seed=0)
print(
    f"{X_cv.shape[0]} training examples ({int(np.sum(y_cv == 1))} malignant), {int(test_mask.sum())} "
    f"set aside; {len(lams)} × {len(sigmas)} candidates × 5 folds = {cv.scores.size} fits"
)
print(
    f"chosen: λ = {cv.best_lam:g}, σ = {cv.best_sigma:g}, CV accuracy "
    f"{100 * cv.mean[cv.best]:.1f} % ± {100 * cv.std[cv.best]:.1f} % over the folds"
)

fig, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
plot_validation_curve(cv, ax=ax, title="Gaussian soft-SVM on the breast-cancer data")
show(
    fig,
    alt="Validation curves: 5-fold cross-validated accuracy in percent against the kernel "
    "width sigma on a log axis from 0.5 to 1024, one line per lambda (0.0001, 0.001, 0.01, 0.1) "
    "with a shaded band of one standard deviation. All lines sit near 96 to 97 percent for small "
    "and medium sigma; for large sigma the accuracy falls, fastest for the largest lambda, which "
    "drops to about 63 percent. A black star marks the chosen lambda = 0.001, sigma = 8.",
)

# %% [markdown]
# For small σ every λ does about as well; as σ grows the predictor becomes smoother, and a large
# λ (a short $w$) then cannot fit the data any more: the curve for λ = 0.1 falls to the share of
# the majority class. Near the top the differences are smaller than one standard deviation over
# the folds, so the choice is a good one rather than *the* best; what we must not do is pick
# by the test set. Training once more on all training examples with the chosen pair:

# %%
A_tr, A_te = km.standardize(X_cv, data.X[test_mask])
final = km.kernel_sgd_svm(
    kk.gram("gaussian", A_tr, sigma=cv.best_sigma), y_cv, cv.best_lam, 20 * len(y_cv), 0
)
pred = np.where(kk.gram("gaussian", A_te, A_tr, sigma=cv.best_sigma) @ final.alpha >= 0, 1, -1)
y_te = data.y[test_mask]
lin = svm.soft_svm(A_tr, y_cv, 0.01, homogeneous=False)  # chapter 01's lab: linear, λ = 0.01
pred_lin = np.where(A_te @ lin.w + lin.b >= 0, 1, -1)
for name, p_ in [
    (f"Gaussian kernel, σ = {cv.best_sigma:g}", pred),
    ("linear soft-SVM (chapter 01)", pred_lin),
]:
    print(
        f"{name:<29} test accuracy {100 * np.mean(p_ == y_te):.1f} % ({int(np.sum(p_ == y_te))} of "
        f"{len(y_te)}); malignant tumours missed: {int(np.sum((p_ == -1) & (y_te == 1)))} of "
        f"{int(np.sum(y_te == 1))}"
    )

# %% [markdown]
# The two test accuracies differ by one tumour out of 114, less than the spread of either
# method's accuracy over the cross-validation folds: on these data the kernel buys nothing
# (this settles 02.c_linear). The thirty measurements make the two classes almost linearly
# separable (chapter 01's linear SVM fits 98.5 % of its training folds), so the Gaussian
# kernel's extra flexibility has little to add. A kernel pays where no hyperplane separates the
# classes, as for the two moons above: trying the linear method first is cheap and tells which
# case you are in.

# %% [markdown]
# ## 7 · More kernel methods (UML ex. 16.2, 16.3, 16.6; HSS1 §1.2.1)
#
# **Kernel perceptron.** The batch perceptron adds $y_i\psi(x_i)$ to $w$ at each mistake, so $w$ is
# always $\sum_j\alpha_j\psi(x_j)$ with $\alpha_j$ = $y_j$ × (number of updates on $j$), and the
# mistake test $y_i\langle w, \psi(x_i)\rangle \le 0$ reads $y_i (K\alpha)_i \le 0$.

# %%
Xq, yq = embedding_data("rings")
Kq = kk.gram("polynomial", Xq, degree=2)
kp = km.kernel_perceptron(Kq, yq)
pf = svm.perceptron(kk.polynomial_features(Xq, 2), yq)
print(f"kernel perceptron: {kp.n_updates} updates, converged: {kp.converged}")
print(
    "same updates and same w as the perceptron on explicit features:",
    kp.n_updates == pf.n_updates and bool(np.allclose(kk.polynomial_features(Xq, 2).T @ kp.alpha, pf.w)),
)

# %% [markdown]
# **Kernel ridge regression.** We minimise $\frac\lambda2\lVert w\rVert^2 + \frac1{2m}\sum_i
# (\langle w, \psi(x_i)\rangle - y_i)^2$. With $w = \sum_j\alpha_j\psi(x_j)$ the gradient is
# $K\big(\lambda\alpha + \frac1m(K\alpha - y)\big)$, which vanishes for
#
# $$\alpha = (K + \lambda m I)^{-1} y.$$
#
# (UML (16.8) writes $\lambda\lVert w\rVert^2$ without the ½, so its λ is half of ours — the same
# factor as between (15.6) and (15.12).)

# %%
xr = np.sort(rng.uniform(0, 6, size=25))
tr = np.sin(xr) + 0.2 * rng.normal(size=25)
xs_plot = np.linspace(0, 6, 300)
fits = {}
for name, params, lam_r in [
    ("gaussian", {"sigma": 0.005}, 1e-4),
    ("gaussian", {"sigma": 0.5}, 1e-3),
    ("polynomial", {"degree": 3}, 1e-3),
]:
    kr = km.kernel_ridge(kk.gram(name, xr[:, None], **params), tr, lam_r)
    label = f"{name}, " + (f"σ = {params['sigma']}" if name == "gaussian" else f"k = {params['degree']}")
    fits[label] = km.kernel_expansion(kk.gram(name, xs_plot[:, None], xr[:, None], **params), kr.alpha)
    print(f"{label:<22} objective {kr.objective:.4f}")
fig, ax = plt.subplots(figsize=(7, 3.8), layout="constrained")
plot_regression_fit(xr, tr, xs_plot, fits, ax=ax, title="kernel ridge regression")
ax.set_ylim(-2, 2)
show(
    fig,
    alt="Kernel ridge regression of 25 noisy samples of sin(x) on [0, 6] (black dots), with "
    "three fitted curves: a Gaussian kernel with sigma 0.005 (solid) spikes at each sample and "
    "falls back to 0 between them; a Gaussian with sigma 0.5 (dashed) and a cubic polynomial "
    "kernel (dash-dotted) both give smooth curves close to the sine.",
)

# %% [markdown]
# **Class-mean (Parzen) classifier.** Assign $x$ to the class whose mean $c_\pm$ in feature space
# is closer. Expanding the squared distances, this is $\operatorname{sign}(\langle w, \psi(x)\rangle + b)$
# with $w = c_+ - c_-$ and $b = \frac12(\lVert c_-\rVert^2 - \lVert c_+\rVert^2)$ (HSS1 (1.4)), and in
# kernel values only (HSS1 (1.6), UML ex. 16.6)
#
# $$f(x) = \frac1{m_+}\sum_{y_i = +1} k(x, x_i) - \frac1{m_-}\sum_{y_i = -1} k(x, x_i) + b,\qquad
# b = \tfrac12\Big(\tfrac1{m_-^2}\sum_{y_i = y_j = -1} k(x_i, x_j) - \tfrac1{m_+^2}\sum_{y_i = y_j = +1} k(x_i, x_j)\Big).$$
#
# With a Gaussian kernel the two sums are Parzen-window density estimates (HSS1 (1.7)).

# %%
fig, axes = plt.subplots(1, 2, figsize=(9, 4), layout="constrained")
for ax, (name, params) in zip(axes, [("linear", {}), ("gaussian", {"sigma": 0.05})]):
    cm = km.class_mean_classifier(kk.gram(name, Xm, **params), ym)
    test = np.mean(cm.predict(kk.gram(name, Xt, Xm, **params)) == yt)
    plot_decision_regions(
        Xm,
        ym,
        lambda P: cm.decision_function(kk.gram(name, P, Xm, **params)),
        ax=ax,
        lim=(-1.7, 2.7),
        n=90,
        legend=(ax is axes[0]),
        title=f"class means, {name}: test acc. {100 * test:.1f} %",
    )
show(
    fig,
    alt="Two panels with the two-moons training sample and the class-mean classifier's "
    "regions (blue tint for -1, vermillion tint for +1) and boundary (black). Left, linear kernel: "
    "the boundary is a straight line through the middle, the perpendicular bisector of the two "
    "class means. Right, Gaussian kernel with sigma 0.05: a closed curve around the lower moon "
    "(+1), so the two moons are separated far better. The titles give the test accuracies.",
)
Phi2 = kk.polynomial_features(Xm, 2)
cm2 = km.class_mean_classifier(kk.gram("polynomial", Xm, degree=2), ym)
cp, cn = Phi2[ym > 0].mean(0), Phi2[ym < 0].mean(0)
print(
    "b from kernel values equals (||c-||^2 - ||c+||^2)/2:", bool(np.isclose(cm2.b, 0.5 * (cn @ cn - cp @ cp)))
)

# %% [markdown]
# ## 8 · The cost of kernel methods, and how to scale them
#
# In this section $n$ is the number of training points and $m$ the number of *landmarks* (the
# names `kk.nystroem` uses). Every kernel method above starts from the $n \times n$ Gram
# matrix: $n^2$ kernel values to compute and store ($8n^2$ bytes: 11.5 MB for the 1 200
# digits below, 3.2 GB for 20 000 points), and kernel ridge regression then solves an
# $n \times n$ linear system, about $n^3/3$ multiply-adds for a Cholesky or LU factorisation.
# Twice the data, four times the memory and eight times the solve.
#
# Practitioners replace $K$ by a low-rank $\Phi\Phi^\top$, with $\Phi$ an $n \times m$ (or
# $n \times D$) matrix of features, and run a *linear* method on $\Phi$ (both constructions
# are beyond the course's sources):
#
# * **Nyström** (Williams & Seeger, 2001): draw $m$ landmarks among the training points, let
#   $C = K[:, J]$ be their $n \times m$ kernel columns and $W = K[J, J] = U\Lambda U^\top$ their
#   own Gram matrix; $\Phi = CU\Lambda^{-1/2}$ gives $\Phi\Phi^\top = CW^{+}C^\top$, exact on the
#   landmarks' rows and columns, and $K$ itself when every point is a landmark. Cost: $nm$
#   kernel values and an $m \times m$ eigendecomposition (`kk.nystroem`, `kk.nystroem_map`).
# * **Random Fourier features** (Rahimi & Recht, 2007): the Gaussian kernel is an average of
#   cosines, $k(x, x') = \mathbb E_\omega \cos(\omega^\top(x - x'))$ for
#   $\omega \sim \mathcal N(0, I/\sigma)$ (Bochner's theorem), so $D$ random draws give
#   $z(x) = \sqrt{2/D}\,(\cos(\omega_j^\top x + b_j))_{j \le D}$ with $b_j$ uniform on
#   $[0, 2\pi)$ and $\mathbb E[z(x)^\top z(x')] = k(x, x')$. No kernel value is computed, and
#   the error falls like $1/\sqrt D$ (`kk.random_fourier_features`).
#
# Ridge regression on the features solves $(\Phi^\top\Phi + \lambda nI)W = \Phi^\top Y$, an
# $m \times m$ system: about $nm^2$ multiply-adds instead of $n^3/3$. It is exactly kernel ridge
# regression with $K$ replaced by $\Phi\Phi^\top$, since $\Phi(\Phi^\top\Phi + \lambda
# nI)^{-1} = (\Phi\Phi^\top + \lambda nI)^{-1}\Phi$.
#
# The data: the handwritten *digits* that ship with the course (`kmlteach.datasets.digits`,
# UCI, CC BY 4.0): 1 797 images of 8 × 8 pixels, split at random into 1 200 for training and
# 597 for testing, pixels scaled to $[0, 1]$. The task is the ten-class problem solved by
# kernel ridge regression with one $\pm1$ output per digit (predict the digit with the largest
# output), Gaussian kernel with σ = 5 and λ = 10⁻⁴ (fixed for this section, not tuned); $m$ and
# $D$ run from 10 to 800.
#
# **Predict first.** Random Fourier features with $D = 400$ approximate $K$ more than ten times
# worse than Nyström with $m = 400$ landmarks (relative Frobenius error, printed below). Their
# test accuracies are (a) Nyström's far higher: its kernel is ten times closer to the exact
# one; (b) both within a point of the exact kernel's; (c) both far below the exact kernel's.

# %%
ask("02.c_scale", "?")

# %%
from kmlteach.widgets.ch02 import plot_scale, scale_table

table = scale_table()  # exact kernel ridge, Nyström and random features on the digits
print(
    f"{table.n_train} training and {table.n_test} test digits; exact kernel: test accuracy "
    f"{100 * table.exact_accuracy:.1f} %"
)
print("  m or D   Nyström: error  accuracy   random features: error  accuracy")
for i, s_ in enumerate(table.sizes):
    print(
        f"{s_:8d}   {table.error['nystroem'][i]:#14.2g}  {100 * table.accuracy['nystroem'][i]:6.1f} %"
        f"   {table.error['rff'][i]:#22.2g}  {100 * table.accuracy['rff'][i]:6.1f} %"
    )

fig, axes = plt.subplots(1, 3, figsize=(12.5, 3.9), layout="constrained")
plot_scale(table, axes=axes)
show(
    fig,
    alt="Three panels against m (Nyström, blue circles) or D (random Fourier features, vermillion "
    "triangles) on a log axis from 10 to 800. Left: the relative error of the kernel "
    f"approximation falls from {table.error['nystroem'][0]:.2g} to {table.error['nystroem'][-1]:.2g} "
    f"for Nyström and from {table.error['rff'][0]:.2g} to {table.error['rff'][-1]:.2g} for random "
    "features. Middle: the training cost of the cost model in millions of multiply-adds, rising "
    "with m or D, with the exact kernel's cost as a dotted line. Right: the test accuracy rises "
    f"from {100 * table.accuracy['nystroem'][0]:.0f} and {100 * table.accuracy['rff'][0]:.0f} "
    f"percent to the exact kernel's {100 * table.exact_accuracy:.1f} percent (dotted line).",
)

# %% [markdown]
# Both reach the exact kernel's accuracy to within a point from $m = D = 400$ on, although
# random features approximate $K$ more than ten times worse (this settles 02.c_scale): the
# error of the approximation in $K$ is not the error of the classifier, and a classifier can
# be as good as the exact one with a kernel that is off by 10 %. Nyström's error falls much
# faster with $m$: its features are built from the data (the landmarks' kernel columns), while
# random features use nothing of the data but its dimension.
#
# The middle panel is a model of the cost (the leading terms: $n^2 d + n^3/3$ for the exact
# kernel, $nmd + m^3 + 2nm^2$ for Nyström, $nDd + nD^2 + D^3/3$ for random features, with
# $d = 64$ pixels), not a measurement. At $n = 1200$ Nyström with 400 landmarks already costs
# nearly as much as the exact kernel: the approximation pays for large $n$, where the exact
# cost grows like $n^3$ and the approximate one, at a fixed $m$, like $n$:

# %%
from kmlteach.widgets.ch02.scale import cost_model

for n_ in (1_200, 20_000, 100_000):
    ratio = cost_model("exact", 0, n_, 64) / cost_model("nystroem", 400, n_, 64)
    print(
        f"n = {n_:>7,}: the exact kernel needs {ratio:7,.1f} times the multiply-adds of Nyström "
        f"with m = 400; its Gram matrix takes {8 * n_**2 / 1e6:8,.1f} MB"
    )

# %% [markdown]
# **Scale explorer.** Choose Nyström or random features and slide $m$ (or $D$): the rings mark
# the setting on each panel. The middle panel here shows training times *measured* on this
# machine when the table above was computed (the features or the Gram matrix of the training
# points plus the solve, on one thread, the shortest of a few runs), with the exact kernel's as
# the dotted line. They vary from run to run and from machine to machine, so the page prints
# none of them; the readout gives the numbers of your run.

# %%
# NBVAL_IGNORE_OUTPUT
from kmlteach.widgets.ch02 import make_scale_explorer

make_scale_explorer(table)

# %% [markdown]
# ## 9 · Exercises
#
# Each exercise is checked against the reference implementation on several inputs.
# Stuck? `hint("02.xxx")`, then `hint("02.xxx", level=2)` and so on: three levels, from a
# nudge to close to code. The third level and `solution("02.xxx")` come with the solutions,
# when your course releases them (until then they say so).
#
# **Exercise 1 (polynomial feature map).** For inputs $X$ of shape $(m, d)$ return explicit
# features $\psi(x)$ (one row per point) with $\langle\psi(x), \psi(x')\rangle = (1 + \langle x, x'\rangle)^2$.
# Any order of the features is accepted.

# %%
from kmlteach.exercises import check, hint, solution  # noqa: F401  (hint and solution: for the student to call)


def poly_features(X):
    ### BEGIN SOLUTION
    m, d = X.shape
    cols = [np.ones(m)] + [np.sqrt(2) * X[:, j] for j in range(d)] + [X[:, j] ** 2 for j in range(d)]
    cols += [np.sqrt(2) * X[:, j] * X[:, k] for j in range(d) for k in range(j + 1, d)]
    return np.column_stack(cols)
    ### END SOLUTION


check("02.poly_features", poly_features)

# %% [markdown]
# **Exercise 2 (Gram matrix).** Return the Gaussian Gram matrix
# $K_{ij} = \exp(-\lVert X_i - Y_j\rVert^2/(2\sigma))$ in UML's convention.


# %%
def gaussian_gram(X, Y, sigma):
    ### BEGIN SOLUTION
    D = (X**2).sum(1)[:, None] + (Y**2).sum(1)[None, :] - 2 * X @ Y.T
    return np.exp(-np.maximum(D, 0) / (2 * sigma))
    ### END SOLUTION


check("02.gram", gaussian_gram)

# %% [markdown]
# **Exercise 3 (kernel perceptron).** Given a Gram matrix $K$ and labels $y$ of a separable
# sample, run the batch perceptron in kernel form: start from $\alpha = 0$; while some $i$ has
# $y_i (K\alpha)_i \le 0$, take the *first* such $i$ and add $y_i$ to $\alpha_i$. Return $\alpha$.


# %%
def kernel_perceptron(K, y):
    ### BEGIN SOLUTION
    alpha = np.zeros(len(y))
    while True:
        bad = np.flatnonzero(y * (K @ alpha) <= 0)
        if bad.size == 0:
            return alpha
        alpha[bad[0]] += y[bad[0]]
    ### END SOLUTION


check("02.kernel_perceptron", kernel_perceptron)

# %% [markdown]
# **Exercise 4 (kernel ridge).** Return the coefficients $\alpha$ of the minimiser of
# $\frac\lambda2\lVert w\rVert^2 + \frac1{2m}\sum_i(\langle w, \psi(x_i)\rangle - y_i)^2$ from the Gram matrix.


# %%
def kernel_ridge(K, y, lam):
    ### BEGIN SOLUTION
    m = len(y)
    return np.linalg.solve(K + lam * m * np.eye(m), y)
    ### END SOLUTION


check("02.kernel_ridge", kernel_ridge)

# %% [markdown]
# **Exercise 5 (class-mean classifier).** Given `K_test[a, j]` $= k(z_a, x_j)$, the training Gram
# matrix `K` and labels `y`, return the scores $f(z_a)$ of HSS1 (1.6) *including* the offset $b$.


# %%
def class_mean_scores(K_test, K, y):
    ### BEGIN SOLUTION
    p, n = y > 0, y < 0
    b = 0.5 * (K[np.ix_(n, n)].mean() - K[np.ix_(p, p)].mean())
    return K_test[:, p].mean(1) - K_test[:, n].mean(1) + b
    ### END SOLUTION


check("02.class_mean", class_mean_scores)

# %% [markdown]
# **Exercise 6 (derivation: Lemma 16.3).** Chapter 01's SGD keeps $\theta^{(t)}$, a sum of vectors
# $y_i\psi(x_i)$, and predicts with $w^{(t)} = \theta^{(t)}/(\lambda t)$. Derive its kernel form: write
# $\theta^{(t)} = \sum_j \beta_j\psi(x_j)$, find what one step does to β and how
# $y_i\langle w^{(t)}, \psi(x_i)\rangle$ is computed from `K`, and return
# $\bar\alpha = \frac1T\sum_{t=1}^T \alpha^{(t)}$ with $\alpha^{(t)} = \beta^{(t)}/(\lambda t)$ taken
# *before* step $t$'s update. Unlike section 6, the indices are given: step $t$ uses example
# `idx[t-1]`. (Section 6 printed the equivalence with the library; here you derive the loop.)


# %%
def kernel_sgd_alpha(K, y, lam, idx):
    ### BEGIN SOLUTION
    beta, total = np.zeros(len(y)), np.zeros(len(y))
    for t, i in enumerate(idx, 1):
        alpha = beta / (lam * t)
        total += alpha
        if y[i] * (K[i] @ alpha) < 1:
            beta[i] += y[i]
    return total / len(idx)
    ### END SOLUTION


check("02.kernel_sgd", kernel_sgd_alpha)

# %% [markdown]
# ## Summary
#
# * A feature map $\psi$ turns non-linear problems into linear ones; a plane in feature space is a
#   curve (its pre-image) in input space.
# * A kernel computes $\langle\psi(x), \psi(x')\rangle$ directly: $(1 + \langle x, x'\rangle)^k$ covers all
#   monomials of degree $\le k$ at $O(d)$ cost; the Gaussian kernel has an infinite-dimensional ψ.
# * A similarity is a kernel exactly when all its Gram matrices are PSD; one negative eigenvalue
#   disproves it. Sums, products, tensor products, limits and $f(x)f(x')$ of kernels are kernels.
# * By the representer theorem, regularised linear learning needs only α and the Gram matrix
#   (some minimiser is a kernel expansion; every minimiser when the regulariser is strictly
#   increasing, HSS1 Thm 6): kernel SGD equals SGD on features (Lemma 16.3), and the
#   perceptron, ridge regression and the class-mean classifier all have kernel forms.
# * On real data σ and λ are chosen by cross-validation; on the breast-cancer tumours the
#   Gaussian kernel does no better than chapter 01's linear SVM.
# * An exact kernel method needs $n^2$ kernel values and an $O(n^3)$ solve; Nyström landmarks
#   and random Fourier features give an $n \times m$ feature matrix and an $O(nm^2)$ solve, and
#   on the digits 400 features match the exact kernel's accuracy.
#
# Next: [03 · Kernels in the RKHS and for structured data](03-kernels-rkhs.ipynb) — centring,
# kernel PCA and kernels on strings and graphs.

# %% [markdown]
# ## Recap quiz
#
# Five questions on this chapter, listed here; the widget below checks your choice (or type
# `ask("02.q2", "a")` in a cell — a numeric question takes a number, as in `ask("02.q1", 12)`).

# %%
display(HTML(quiz_html("02")))

# %%
# NBVAL_IGNORE_OUTPUT
quiz("02")

# %%
# Your progress in this chapter: a question counts with its first answer, a prediction
# explorer once, with the first answer it scores (its next questions are practice);
# kmlteach.progress() lists every chapter.
import kmlteach

kmlteach.progress("02")

# %% [markdown]
# ## Sources and further reading
#
# **Sources** (the short names used in this chapter):
#
# * **UML** = S. Shalev-Shwartz and S. Ben-David, *Understanding Machine Learning: From Theory to Algorithms*, Cambridge University Press, 2014 (ch. 16).
# * **HSS1** = T. Hofmann, B. Schölkopf, A. J. Smola et al., chapters 1 (*Measuring Similarity with Kernels*, HSS1) and 2 (*Discriminative Models*, HSS2) of G. Bakır, T. Hofmann, B. Schölkopf, A. J. Smola, B. Taskar and S. V. N. Vishwanathan (eds.), *Predicting Structured Data*, MIT Press, 2007 (§1.1–1.2).
#
# **Further reading** (classic references, beyond the course's sources):
#
# * B. Schölkopf and A. J. Smola, *Learning with Kernels*, MIT Press, 2002 — chapters 2 and 4 on kernels and the representer theorem.
# * J. Shawe-Taylor and N. Cristianini, *Kernel Methods for Pattern Analysis*, Cambridge University Press, 2004 — kernel ridge regression, the class-mean classifier and many kernels.
# * G. Kimeldorf and G. Wahba, "Some results on Tchebycheffian spline functions", *Journal of Mathematical Analysis and Applications* 33(1), 82–95, 1971 — the first representer theorem.
