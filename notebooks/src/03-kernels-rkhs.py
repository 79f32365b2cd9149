# %% [markdown]
# # 03 · Kernels in the RKHS and for structured data
#
# [Open this chapter on Binder](https://mybinder.org/v2/gh/kmlteach/kmlteach/main?urlpath=lab/tree/notebooks/03-kernels-rkhs.ipynb)
#
# *Sources: HSS1 §1.2.2 (the RKHS and its reproducing property), HSS1 §1.3 (operations in the
# RKHS, kernel PCA), HSS1 §1.4 (kernels for sets,
# strings, graphs and generative models), HSS1 §1.5 (kernel dependency estimation), UML §16.2.1
# (the substring kernel).*
#
# *Notation: every symbol of the course, chapter by chapter, with the letters that change meaning flagged, is in the [glossary](../docs/glossary.md).*
#
# Chapter 02 used a kernel as a shortcut for an inner product of feature vectors. This chapter
# takes the shortcut seriously in two directions. First, almost any geometric operation on
# feature vectors — shifting them, centring them, measuring distances, projecting,
# orthogonalising, even principal component analysis — can be written with kernel values only.
# Second, the inputs need not be vectors at all: as soon as we can write down a kernel for
# strings, sets or graphs, every kernel method runs on them unchanged.
#
# **You need:** chapter 02 (kernels, Gram matrices, positive semi-definiteness, the
# representer theorem); eigen-decompositions of symmetric matrices; principal component analysis
# helps but is recalled here.
#
# **You will be able to** (objectives):
# 1. translate, centre, project and orthogonalise in the RKHS through kernel values only;
# 2. run kernel PCA, choose the kernel width, and reproduce the (centred) Gram matrix from the
#    embedding (HSS1 (1.32)); see what the width does on real images (handwritten digits);
# 3. use kernels on sets, strings and graphs, state the sign convention of the diffusion
#    kernel, and build a Fisher kernel from an exponential family;
# 4. predict structured outputs (strings) with kernel dependency estimation.

# %%
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import HTML, display

from kmlteach import kernels as kk
from kmlteach import structured_kernels as sk
from kmlteach.datasets import moons, rings
from kmlteach.exercises import ask, quiz, quiz_html
from kmlteach.kernel_methods import kde_predict, kernel_dependency_estimation, kernel_pca
from kmlteach.plots import OKABE_ITO, scatter_classes, show
from kmlteach.plots.ch03 import (
    plot_embedding,
    plot_graph,
    plot_kernel_matrix,
    plot_ngram_counts,
    plot_spectrum,
)

SEED = 0
rng = np.random.default_rng(SEED)


def err(x):
    """Report a rounding-level discrepancy without printing machine noise."""
    x = float(np.max(np.abs(x)))
    return "< 1e-10" if x < 1e-10 else f"{x:.1e}"


# %% [markdown]
# ## 1 · Working in the RKHS with kernel values only (HSS1 §1.3.1)
#
# The objects of this section are functions in a particular space built from the kernel, its
# *reproducing kernel Hilbert space*. We first say what that space is and which property gives
# it its name (HSS1 §1.2.2), then compute in it with kernel values only.

# %% [markdown]
# ### The RKHS and the reproducing property (HSS1 §1.2.2)
#
# Start from a positive definite kernel $k$ on a set $\mathcal X$ and turn every point into a
# function: $x \mapsto k(\cdot, x)$, the function that scores how similar its argument is to
# $x$. Finite combinations $f = \sum_i a_i\, k(\cdot, x_i)$ form a vector space, and for a second
# combination $g = \sum_j b_j\, k(\cdot, x'_j)$ we set
#
# $$\langle f, g\rangle = \sum_i\sum_j a_i b_j\, k(x_i, x'_j).$$
#
# This is a genuine inner product. It does not depend on how $f$ and $g$ happen to be written,
# because the double sum equals $\sum_j b_j f(x'_j)$ — only values of $f$ — and also
# $\sum_i a_i g(x_i)$. It is symmetric and bilinear, and $\langle f, f\rangle = a^\top K a \ge 0$
# because $k$ is positive definite.
#
# Choosing $g = k(\cdot, x)$, a single term with coefficient 1, gives the **reproducing
# property**
#
# $$\langle k(\cdot, x), f\rangle = f(x) \quad\text{for every } f, \qquad\text{in particular}\qquad
# \langle k(\cdot, x), k(\cdot, x')\rangle = k(x, x').$$
#
# Evaluating a function at $x$ *is* taking its inner product with $k(\cdot, x)$. So
# $\Phi(x) = k(\cdot, x)$ is a feature map of the kernel, and Cauchy–Schwarz gives
# $|f(x)|^2 \le k(x, x)\,\langle f, f\rangle$: a function of small norm cannot take large values,
# and $\langle f, f\rangle = 0$ forces $f = 0$. Adding the limits of Cauchy sequences (completing
# the space) gives the **reproducing kernel Hilbert space** $\mathcal H$ of $k$, and
# $\lVert f\rVert_{\mathcal H} = \sqrt{\langle f, f\rangle}$ is the **RKHS norm** that the
# regularisers $\frac\lambda2\lVert f\rVert_{\mathcal H}^2$ of chapters 02 and 09 penalise. Every
# positive definite kernel has exactly one RKHS, and every RKHS exactly one kernel (the
# Moore–Aronszajn theorem).
#
# The cell below checks the three facts on a Gaussian kernel ($\sigma = 0.5$) and an expansion
# $f$ over five random centres: the reproducing property at seven points, computed from the
# definition of $\langle\cdot,\cdot\rangle$ as a double sum; the independence of the
# representation, $\langle f, g\rangle = \sum_j b_j f(x'_j) = \sum_i a_i g(x_i)$; and the bound
# $|f(x)|^2 \le k(x, x)\lVert f\rVert^2$ on 500 points.


# %%
def rkhs_dot(a, P, b, Q, sigma=0.5):
    """<Σ a_i k(·, p_i), Σ b_j k(·, q_j)> from the definition: Σ_ij a_i b_j k(p_i, q_j)."""
    return float(a @ kk.gram("gaussian", P, Q, sigma=sigma) @ b)


def expansion_at(a, P, Z, sigma=0.5):
    """f(z) = Σ_i a_i k(z, p_i) at every row z of Z."""
    return kk.gram("gaussian", Z, P, sigma=sigma) @ a


def as_bound(x, tol=1e-12):
    """A rounding-level discrepancy, printed as a bound (no machine-dependent digits)."""
    return f"< {tol:.0e}" if float(np.max(np.abs(x))) < tol else f"{float(np.max(np.abs(x))):.1e}"


rng_h = np.random.default_rng(SEED + 3)  # its own stream: later cells unchanged
P_f, a_f = rng_h.normal(size=(5, 2)), rng_h.normal(size=5)  # f = Σ a_i k(·, p_i)
Q_g, b_g = rng_h.normal(size=(4, 2)), rng_h.normal(size=4)  # g = Σ b_j k(·, q_j)
X_eval = rng_h.normal(size=(7, 2))
reproduced = [rkhs_dot(np.ones(1), x[None, :], a_f, P_f) for x in X_eval]
print(
    f"max |<k(·, x), f> − f(x)| at 7 points: {as_bound(np.subtract(reproduced, expansion_at(a_f, P_f, X_eval)))}"
)
fg = rkhs_dot(a_f, P_f, b_g, Q_g)
print(
    f"|<f, g> − Σ_j b_j f(q_j)|, |<f, g> − Σ_i a_i g(p_i)|: "
    f"{as_bound(fg - b_g @ expansion_at(a_f, P_f, Q_g))}, {as_bound(fg - a_f @ expansion_at(b_g, Q_g, P_f))}"
)
Z_cs = rng_h.normal(scale=1.5, size=(500, 2))
ratio = expansion_at(a_f, P_f, Z_cs) ** 2 / (1.0 * rkhs_dot(a_f, P_f, a_f, P_f))  # k(z, z) = 1
print(f"|f(z)|² ≤ k(z, z)‖f‖² at all 500 points: {bool(np.all(ratio <= 1 + 1e-12))}")

# %% [markdown]
# ### Expansions through their coefficients
#
# Every element we manipulate below is a *kernel expansion* $f = \sum_i a_i \Phi(x_i)$, stored as
# its coefficient vector $a$. Inner products of expansions only need the Gram matrix:
# $\langle \sum_i a_i\Phi(x_i), \sum_j b_j\Phi(x_j)\rangle = a^\top K b$. To see that nothing is
# lost we use the inhomogeneous polynomial kernel $(1 + \langle x, x'\rangle)^2$ on $\mathbb{R}^2$,
# whose feature map is small enough to write out (`kk.polynomial_features`, 6 coordinates), and
# compare each kernel-only computation with the same computation on explicit features.

# %%
X = rng.normal(size=(8, 2))
K = kk.gram("polynomial", X, degree=2, c=1)
Phi = kk.polynomial_features(X, 2)  # rows Φ(x_i), with Φ Φᵀ = K
print(f"feature dimension: {Phi.shape[1]};  max |Φ Φᵀ − K| = {err(Phi @ Phi.T - K)}")

# %% [markdown]
# **Translation (1.29).** Shifting every feature vector by $\Gamma = \sum_i \alpha_i \Phi(x_i)$
# changes the kernel into
# $k(x, x') + \sum_i \alpha_i k(x_i, x) + \sum_i \alpha_i k(x_i, x') + \sum_{i,j}\alpha_i\alpha_j k(x_i, x_j)$.
# Only shifts that are themselves expansions can be computed this way.
#
# **Centring.** The choice $\alpha_i = -1/m$ moves the mean of the sample to the origin. With
# $\mathbf 1_m$ the $m\times m$ matrix of entries $1/m$, the centred Gram matrix is
# $\tilde K = K - \mathbf 1_m K - K\mathbf 1_m + \mathbf 1_m K \mathbf 1_m$.

# %%
alpha = rng.normal(size=8)
Gamma = alpha @ Phi  # the shift, written out
err_translate = np.abs(kk.translate(K, alpha) - (Phi + Gamma) @ (Phi + Gamma).T).max()
Phi_c = Phi - Phi.mean(axis=0)
K_c = kk.center(K)
print(f"translation (1.29):  max deviation from explicit features = {err(err_translate)}")
print(f"centring:            max deviation from explicit features = {err(K_c - Phi_c @ Phi_c.T)}")
print(f"row sums of the centred K: max |.| = {err(K_c.sum(axis=1))}  (the mean is now 0)")

fig, axes = plt.subplots(1, 2, figsize=(10.0, 4.4), layout="constrained")
plot_kernel_matrix(K, ax=axes[0], title="K (polynomial, degree 2)")
plot_kernel_matrix(K_c, ax=axes[1], title="centred K̃")
show(
    fig,
    alt="Two 8 by 8 heat maps with every entry written in its cell and a diverging colour bar "
    "centred at 0. Left: the polynomial Gram matrix K of the 8 points. Right: the centred matrix "
    "K-tilde, whose entries are smaller and change sign; each of its rows sums to 0.",
)

# %% [markdown]
# **Distances.** $\lVert\Phi(x) - \Phi(x')\rVert^2 = k(x,x) + k(x',x') - 2k(x,x')$, so a kernel
# also gives a metric on the inputs (HSS1 §1.3.1.3).
#
# **Projection and deflation (1.30)–(1.31).** For expansions $\Psi$ and $\Gamma$, the part of
# $\Psi$ along $\Gamma$ is $\frac{\langle\Gamma,\Psi\rangle}{\lVert\Gamma\rVert^2}\Gamma$ and
# deflation removes it. Repeating deflation against the vectors found so far is Gram–Schmidt,
# entirely in coefficient space.

# %%
D = kk.rkhs_distances(K)
D_explicit = np.linalg.norm(Phi[:, None, :] - Phi[None, :, :], axis=-1)
print(f"distances: max deviation from explicit features = {err(D - D_explicit)}")

a, g = rng.normal(size=8), rng.normal(size=8)
a_defl = kk.deflate(a, g, K)
print(f"<deflated Ψ, Γ> = {err(kk.rkhs_inner(a_defl, g, K))}   (orthogonal)")
print(f"projection + deflation give Ψ back: {np.allclose(kk.project(a, g, K) + a_defl, a)}")

Q = kk.gram_schmidt(K, tol=1e-6)  # orthonormalise Φ(x_1), ..., Φ(x_8)
print(
    f"Gram–Schmidt kept {Q.shape[1]} of 8 vectors;  max |QᵀKQ − I| = {err(Q.T @ K @ Q - np.eye(Q.shape[1]))}"
)

# %% [markdown]
# Gram–Schmidt stopped after 6 vectors: the feature space of this kernel *has* only 6
# dimensions, so the seventh and eighth images are combinations of the first six. Deciding
# that a vector is dependent needs a tolerance: its remaining norm is the square root of a
# quadratic form $a^\top K a$ that cancels to rounding level, so it comes out near
# $\sqrt{\varepsilon}\approx 10^{-8}$ relative to the data rather than $10^{-16}$; hence
# `tol=1e-6`. With the
# Gaussian kernel the images of distinct points are always independent, and all 8 survive:

# %%
K_gauss = kk.gram("gaussian", X, sigma=0.5)
Qg = kk.gram_schmidt(K_gauss)
print(
    f"Gaussian kernel: {Qg.shape[1]} orthonormal vectors, max |QᵀKQ − I| = "
    f"{err(Qg.T @ K_gauss @ Qg - np.eye(Qg.shape[1]))}"
)

# %% [markdown]
# ## 2 · Kernel PCA (HSS1 §1.3.2)
#
# PCA finds the directions of largest variance of centred data. In feature space each
# principal axis is an expansion $v_j = \sum_i \alpha^j_i\,(\Phi(x_i) - \bar\Phi)$, and the
# coefficient vectors are eigenvectors of the centred Gram matrix $\tilde K$. We scale them so
# that $\lVert v_j\rVert = 1$, i.e. $\lambda_j\lVert\alpha^j\rVert^2 = 1$ (the source leaves the
# scaling open); the coordinate of a point on axis $j$ is then $\sqrt{\lambda_j}\,u^j_i$.
#
# Two concentric rings cannot be separated by any line in the plane. What does kernel PCA,
# which never sees the labels, make of them?
#
# **Predict first.** Rings of radii 0.5 and 1.5 (with a little noise), Gaussian kernel with
# σ = 0.3. Along the first kernel principal component the two rings (a) stay mixed: PCA ignores
# the labels; (b) fall apart: one ring on each side; (c) collapse to one value per ring.

# %%
ask("03.c_rings", "?")

# %% [markdown] tags=["slide-skip"]
# **Predict, then reveal.** The explorer starts on these rings with σ = 0.316 (its slider moves
# in steps of a tenth of a decade, and 0.316 ≈ 10^−0.5 is the step nearest the 0.3 of the
# static figure below). For the data set
# and σ you set, will a threshold on the first kernel-PCA component separate the two classes?
# Commit to an answer, then press **Reveal** to draw the embedding; change σ or the data set
# for a new question. The readout keeps your score.

# %% tags=["slide-skip"]
# NBVAL_IGNORE_OUTPUT
from kmlteach.widgets.ch03 import make_kpca_explorer

make_kpca_explorer(predict=True)

# %%
Xr, yr = rings(m=160, radii=(0.5, 1.5), noise=0.1, seed=SEED)
Kr = kk.gram("gaussian", Xr, sigma=0.3)
pca = kernel_pca(Kr, 10)
total = np.trace(Kr) - Kr.sum() / len(Kr)  # trace of the centred K: total variance
print("top eigenvalues / trace:", ", ".join(f"{v / total:.3f}" for v in pca.eigenvalues[:5]))
print(f"unit-norm axes: max |αᵀ K̃ α − 1| = {err(np.diag(pca.alphas.T @ kk.center(Kr) @ pca.alphas) - 1)}")

fig, axes = plt.subplots(1, 3, figsize=(10, 3.4), layout="constrained")
scatter_classes(Xr, yr, ax=axes[0], s=14)
axes[0].set(xlabel="$x_1$", ylabel="$x_2$", title="rings in the plane", aspect="equal")
plot_spectrum(pca.eigenvalues / total, ax=axes[1], k=10, title="eigenvalue / trace")
plot_embedding(pca.embedding, yr, ax=axes[2], title="kernel PCA, σ = 0.3")
show(
    fig,
    alt="Three panels. Left: 160 points on two concentric rings, inner ring labelled -1 (blue "
    "circles), outer ring +1 (vermillion triangles). Middle: bar chart of the ten leading "
    "eigenvalues of the centred Gaussian Gram matrix as shares of its trace, decreasing. Right: "
    "the points projected on the first two kernel principal components; the two rings fall "
    "apart along component 1.",
)

# %% [markdown]
# The rings fall apart along the first component: in feature space the Gaussian kernel makes
# the distance from the centre a direction of large variance, and the two rings differ exactly
# there, although PCA never saw a label. This settles 03.c_rings.
#
# **Kernel PCA explorer.** Change the width σ of the Gaussian kernel (UML's convention
# $\exp(-\lVert x - x'\rVert^2/(2\sigma))$) and the data set. A very wide kernel behaves almost
# like a linear one and the rings stay mixed on the first component; a very narrow one makes
# every point its own cluster and spreads the variance over many components (the lab on
# handwritten digits at the end of this section measures both ends).

# %%
# NBVAL_IGNORE_OUTPUT
from kmlteach.widgets.ch03 import make_diffusion_explorer, make_kpca_explorer, make_ngram_explorer

make_kpca_explorer()

# %% [markdown]
# **Identity (1.32).** Keeping *every* component with a non-zero eigenvalue is only a change of
# basis in the span of the data, so inner products of the embedded points give the Gram
# matrix back. With centring it is the centred matrix $\tilde K$ that comes back; skipping the
# centring (eigenvectors of $K$ itself) gives $K$ exactly as HSS1 writes it.

# %%
Xs = Xr[:40]
Ks = kk.gram("gaussian", Xs, sigma=0.3)
Z = kernel_pca(Ks, 40).embedding
print(f"centred:   max |Z Zᵀ − K̃| = {err(Z @ Z.T - kk.center(Ks))}")
lam, U = np.linalg.eigh(Ks)
Z_raw = U * np.sqrt(np.maximum(lam, 0))
print(f"uncentred: max |Z Zᵀ − K| = {err(Z_raw @ Z_raw.T - Ks)}")

# %% [markdown]
# New points are projected with the same expansions (after centring their kernel values with
# the training means). The transformer `KernelPCA` wraps this:

# %%
Xm, ym = moons(m=120, noise=0.08, seed=SEED)
from kmlteach.kernel_methods import KernelPCA  # scikit-learn style: loads scikit-learn, so only here

tf = KernelPCA(n_components=2, kernel="gaussian", sigma=0.1).fit(Xm[:100])
Z_new = tf.transform(Xm[100:])
print(f"train embedding {tf.embedding_.shape}, 20 new points projected: {Z_new.shape}")
print(
    f"a training point projected again lands on its embedding: "
    f"{np.allclose(tf.transform(Xm[:3]), tf.embedding_[:3])}"
)

# %% [markdown]
# ### Lab on real data: kernel PCA of handwritten digits
#
# The digits that ship with the course (`kmlteach.datasets.digits`, UCI, CC BY 4.0) are 8 × 8
# images of handwritten digits, 64 grey levels per image; we take the first 60 images of each
# digit (600 in all) and scale the pixels to $[0, 1]$. Ordinary PCA is kernel PCA with the
# linear kernel $\langle x, x'\rangle$: it finds the directions of largest pixel variance. The
# Gaussian kernel adds a width σ. The squared distances $\lVert x - x'\rVert^2$ between these
# images lie between 0.4 and 23 (median 9), so σ = 0.3 makes every image dissimilar to nearly
# every other, and σ = 1000 makes every kernel value close to 1.
#
# **Predict first.** With the very wide kernel, σ = 1000, the two-dimensional kernel PCA
# embedding of the 600 digits, compared with the embedding by linear PCA, is (a) nearly the
# same picture, up to a scale factor and the signs of the axes; (b) a single point: every
# kernel value is close to 1, so every image looks alike; (c) an unrelated picture: the
# Gaussian kernel is not linear.

# %%
ask("03.c_digits", "?")

# %%
from kmlteach.datasets import digits

dg = digits()
pick = np.concatenate([np.flatnonzero(dg.y == c)[:60] for c in range(10)])
X_dg, y_dg = dg.X[pick] / 16.0, dg.y[pick]
d2 = kk.rkhs_distances(kk.gram("linear", X_dg))[np.triu_indices(len(y_dg), 1)] ** 2
print(
    f"squared distances between the 600 images: {d2.min():.2f} to {d2.max():.1f}, median {np.median(d2):.1f}"
)


def share(p, K, k):
    """Share of the centred K's trace (the total variance) held by the first k components."""
    return float(p.eigenvalues[:k].sum() / (np.trace(K) - K.sum() / len(K)))


def nn_agreement(Z, y):
    """Fraction of points whose nearest other point (Euclidean, in Z) has the same label."""
    D2 = ((Z[:, None, :] - Z[None, :, :]) ** 2).sum(axis=-1)
    np.fill_diagonal(D2, np.inf)
    return float(np.mean(y[np.argmin(D2, axis=1)] == y))


K_lin = kk.gram("linear", X_dg)
pca_lin = kernel_pca(K_lin, 10)
emb = {"linear PCA": pca_lin.embedding}
print(
    "kernel          top 2 / top 10 of the variance   |corr| with linear PCA (1, 2)   same-digit neighbour in 2-D"
)
print(
    f"linear          {share(pca_lin, K_lin, 2):6.3f} / {share(pca_lin, K_lin, 10):.3f}"
    f"{'':37}{nn_agreement(pca_lin.embedding[:, :2], y_dg):6.3f}"
)
for sigma_dg in (0.3, 1.0, 3.0, 10.0, 30.0, 100.0, 1000.0):
    K_dg = kk.gram("gaussian", X_dg, sigma=sigma_dg)
    p_dg = kernel_pca(K_dg, 10)
    corr = [abs(np.corrcoef(p_dg.embedding[:, j], pca_lin.embedding[:, j])[0, 1]) for j in (0, 1)]
    print(
        f"σ = {sigma_dg:<9g}   {share(p_dg, K_dg, 2):6.3f} / {share(p_dg, K_dg, 10):.3f}"
        f"{'':15}{corr[0]:.3f}, {corr[1]:.3f}{'':17}{nn_agreement(p_dg.embedding[:, :2], y_dg):6.3f}"
    )
    if sigma_dg in (0.3, 3.0, 1000.0):
        emb[f"Gaussian, σ = {sigma_dg:g}"] = p_dg.embedding
    if sigma_dg == 1000.0:
        ratio = sigma_dg * p_dg.eigenvalues[:2] / pca_lin.eigenvalues[:2]
print(
    f"σ = 1000: σ × eigenvalue / linear PCA's eigenvalue, components 1 and 2: {ratio[0]:.3f}, {ratio[1]:.3f}"
)

fig, axes = plt.subplots(1, 4, figsize=(13, 3.6), layout="constrained")
colours = [OKABE_ITO[c] for c in ("blue", "vermillion", "green", "orange", "purple", "sky", "black", "grey")]
for ax, (name, Z) in zip(
    axes, [(k, emb[k]) for k in ("linear PCA", "Gaussian, σ = 1000", "Gaussian, σ = 3", "Gaussian, σ = 0.3")]
):
    for c in range(10):  # every other image, drawn as its digit, to keep the glyphs legible
        P = Z[y_dg == c][::2, :2]
        ax.scatter(P[:, 0], P[:, 1], marker=f"${c}$", s=42, color=colours[c % 8], linewidths=0)
    lim = np.abs(Z[:, :2]).max() * 1.08
    ax.set(xlim=(-lim, lim), ylim=(-lim, lim), xlabel="component 1", ylabel="component 2", title=name)
    ax.locator_params(nbins=5)
show(
    fig,
    alt="Four scatter plots of the digits, each image drawn as its digit (0 to 9) at its first two "
    "kernel principal components (every other image). Linear PCA and the Gaussian kernel with "
    "sigma 1000 show the same picture at scales about 30 times apart: sixes at the top, zeros on "
    "the left, fours on the upper right, threes at the bottom, the other digits overlapping in "
    "the middle. With sigma 3 the groups are much the same, mirrored left to right. With sigma "
    "0.3 the zeros spread along component 1 and the sixes along component 2, and every other "
    "image sits near the origin.",
)

# %% [markdown]
# The wide kernel draws linear PCA's picture, only smaller (this settles 03.c_digits): at
# σ = 1000 both components correlate with linear PCA's to three decimals, and σ times each
# eigenvalue is within half a percent of linear PCA's. The reason is a first-order expansion.
# With $t = \lVert x - x'\rVert^2/(2\sigma) \le 23/2000$, $e^{-t} = 1 - t$ up to
# $t^2/2 < 10^{-4}$, so $K \approx \mathbf 1\mathbf 1^\top - \frac{1}{2\sigma}D$ with $D$ the
# matrix of squared distances. Centring removes the constant matrix; and since
# $\lVert x_i - x_j\rVert^2 = \lVert x_i\rVert^2 + \lVert x_j\rVert^2 - 2\langle x_i, x_j\rangle$,
# it also removes the terms that depend on $i$ alone or on $j$ alone. What is left is the
# centred linear Gram matrix divided by σ: the same eigenvectors, eigenvalues divided by σ,
# and an embedding shrunk by $\sqrt\sigma \approx 32$ (compare the axes of the first two
# panels).
#
# At the other end, σ = 0.3, the kernel values between different images nearly vanish, $K$ is
# close to the identity, and the variance spreads over hundreds of components (the first ten
# hold 4 % of it). The two leading components single out the zeros and the sixes and leave
# every other image near the origin, so fewer images have a nearest neighbour of the same digit
# in the plane (41 %) than with linear PCA (60 %). In between, σ = 1 to 3 does slightly better
# than linear PCA (62–63 %). The width decides how much of the variance the leading components
# hold — from almost none to linear PCA's share — more than how well they sort the digits.

# %% [markdown]
# ## 3 · Kernels for structured data (HSS1 §1.4)

# %% [markdown]
# ### 3.1 Sets
# For subsets of a finite alphabet, $k(A, B) = \sum_{x\in A}\sum_{y \in B} 1[x = y] = |A\cap B|$
# is a kernel (HSS1 §1.4.1): map each element to a vertex $e_x$ of the simplex and a set to the
# **sum** of its vertices. (The prose of the source says *average*; with an average the inner
# product would be $|A\cap B|/(|A||B|)$, not $|A\cap B|$.)

# %%
A_set, B_set = set("kernel"), set("colonel")
Phi_sets, alphabet = sk.set_features([A_set, B_set])
print("alphabet:", "".join(alphabet))
print("Φ(A) =", Phi_sets[0].astype(int), "  Φ(B) =", Phi_sets[1].astype(int))
print(f"|A ∩ B| = {sk.set_kernel(A_set, B_set)} = <Φ(A), Φ(B)> = {Phi_sets[0] @ Phi_sets[1]:.0f}")

# %% [markdown]
# ### 3.2 Strings: n-grams and substrings
# The **n-gram kernel** (HSS1 (1.34)) counts, for each string $s$ of length $n$, its occurrences
# in both inputs and sums the products: $k(x, x') = \sum_{s\in\Sigma^n} \#(s\in x)\,\#(s\in x')$.
# It is the inner product of two count vectors with $|\Sigma|^n$ coordinates, but only the
# n-grams that actually occur need to be touched.
#
# **Predict first.** Count by hand: what is the 2-gram kernel of "banana" and "bandana"? Type the
# number; the figure and the Gram matrix below (row 0, column 1) give it away.

# %%
ask("03.c_ngram", "?")

# %%
fig, ax = plt.subplots(figsize=(7.0, 3.0), layout="constrained")
plot_ngram_counts("banana", "bandana", 2, ax=ax)
show(
    fig,
    alt="Grouped bar chart of 2-gram counts. Shared 2-grams, on a green shade: an (2 in banana, "
    "2 in bandana), ba (1 and 1), na (2 and 1); only in bandana: da and nd (1 each). Blue solid bars "
    "for x = banana, orange hatched bars for y = bandana; the title gives k(x, y) = 7.",
)
words = ["banana", "bandana", "ananas", "cabana", "nab"]
Phi_ng, vocab = sk.ngram_features(words, 2)
K_ng = sk.structured_gram(sk.ngram_kernel, words, n=2)
print("bigram vocabulary:", " ".join(vocab))
print(f"Φ Φᵀ equals the Gram matrix: {np.array_equal(Phi_ng @ Phi_ng.T, K_ng)}")
print(K_ng.astype(int))

# %% [markdown]
# The shared 2-grams give $1\cdot 1 + 2\cdot 2 + 2\cdot 1 = 7$ (the figure's title and the Gram
# matrix agree). This settles 03.c_ngram.
#
# **n-gram explorer.** Type two strings and choose $n$. The readout writes the kernel as the
# sum of products of counts over the shared n-grams; the normalised value
# $k(x,y)/\sqrt{k(x,x)k(y,y)}$ is the cosine of the angle between the two count vectors.

# %%
# NBVAL_IGNORE_OUTPUT
make_ngram_explorer("banana", "bandana", 2)

# %% [markdown]
# UML §16.2.1 uses a kernel that ignores counts and lengths: $\psi(x)$ has one 0/1 coordinate
# per string $v$, telling whether $v$ occurs in $x$, so $K(x, x')$ is the **number of distinct
# common substrings** (we count the non-empty ones). The feature space is exponentially large,
# yet the kernel takes time linear in the lengths: `sk.substring_kernel` builds a suffix
# automaton of one string and walks the other through it.

# %%
print(f"K('banana', 'bandana') = {sk.substring_kernel('banana', 'bandana')}  (a, b, n, an, ba, na, ana, ban)")
Phi_sub, vocab_sub = sk.substring_features(words)
K_sub = sk.structured_gram(sk.substring_kernel, words)
print(
    f"explicit indicators: {Phi_sub.shape[1]} substrings;  Φ Φᵀ = K: {np.array_equal(Phi_sub @ Phi_sub.T, K_sub)}"
)
print(f"smallest eigenvalue of K: {np.linalg.eigvalsh(K_sub).min():.3f}  (≥ 0: a kernel)")
dna = ["".join(rng.choice(list("acgt"), 3000)) for _ in range(2)]
print(
    f"two random DNA strings of length 3000 share {sk.substring_kernel(dna[0], dna[1])} "
    f"distinct substrings (of length ≤ 4: {sk.substring_kernel(dna[0], dna[1], max_len=4)} of 340 possible)"
)

# %% [markdown]
# ### 3.3 Convolution kernels
# Haussler's R-convolution (HSS1 (1.36)) builds a kernel for composite objects from kernels on
# their parts: sum, over all decompositions $x'$ of $x$ and $y'$ of $y$, the product of part
# kernels $\prod_i k_i(x'_i, y'_i)$. Here a string is decomposed into all its (prefix, suffix)
# splits. With exact-match part kernels two splits agree only when the strings are equal, and
# then $|x| + 1$ times; with a softer part kernel (shared letters) we get a graded similarity.


# %%
def shared_letters(u, v):
    return float(sk.ngram_kernel(u, v, 1))


def exact(u, v):
    return float(u == v)


print(
    f"exact parts:   k('abc', 'abc') = {sk.convolution_kernel('abc', 'abc', sk.prefix_suffix_splits, exact):.0f}, "
    f"k('abc', 'abd') = {sk.convolution_kernel('abc', 'abd', sk.prefix_suffix_splits, exact):.0f}"
)
short = ["abc", "abd", "cab", "ab", "bca"]
K_conv = sk.structured_gram(
    sk.convolution_kernel, short, relation=sk.prefix_suffix_splits, part_kernels=shared_letters
)
print("letter-count parts:\n", K_conv.astype(int))
print(f"smallest eigenvalue: {np.linalg.eigvalsh(K_conv).min():.3f}")

# %% [markdown]
# ### 3.4 The diffusion kernel on a graph — and its sign
# For items that are nodes of a graph with adjacency matrix $A$ and degree matrix $D$, HSS1
# §1.4.4 writes $L = A - D$ and builds the kernel from the matrix exponential. The sign matters:
#
# * $K = e^{\beta L} = e^{\beta(A - D)}$ is the **heat kernel**: row $i$ is the heat found at
#   each node after a time $\beta$ when one unit starts at node $i$; entries are positive on a
#   connected graph and decay with graph distance.
# * The display in HSS1 reads $K = e^{-\beta L} = \lim_n (1 - \tfrac{\beta}{n}L)^n$. It is also
#   positive definite (the exponential of any symmetric matrix is), but its rows alternate in
#   sign along a path: it is not a diffusion.
#
# `sk.diffusion_kernel(A, beta)` returns the heat kernel; `sign="printed"` gives the displayed
# formula. Both use an eigendecomposition $L = V\operatorname{diag}(\lambda)V^\top$, so
# $e^{\pm\beta L} = V\operatorname{diag}(e^{\pm\beta\lambda})V^\top$.

# %%
A_path = sk.adjacency_matrix([(i, i + 1) for i in range(4)], 5)
heat = sk.diffusion_kernel(A_path, 0.5)
printed = sk.diffusion_kernel(A_path, 0.5, sign="printed")
limit = sk.diffusion_kernel_limit(A_path, 0.5, n=10_000, sign="printed")
print("5-node path, β = 0.5, row of node 0:")
print("  heat    expm(β(A−D))      :", ", ".join(f"{v:+.3f}" for v in heat[0]))
print("  printed expm(−β(A−D))     :", ", ".join(f"{v:+.3f}" for v in printed[0]))
print("  printed limit, n = 10 000 :", ", ".join(f"{v:+.3f}" for v in limit[0]))
print(
    f"smallest eigenvalues: heat {np.linalg.eigvalsh(heat).min():.3f}, printed {np.linalg.eigvalsh(printed).min():.3f}"
)

fig, axes = plt.subplots(1, 2, figsize=(9.0, 2.6), layout="constrained")
pos = np.c_[np.linspace(-1.2, 1.2, 5), np.zeros(5)]
plot_graph(A_path, pos, heat[0], ax=axes[0], highlight=0)
axes[0].set_title("heat kernel: row of node 0")
plot_graph(A_path, pos, printed[0], ax=axes[1], highlight=0)
axes[1].set_title("printed sign: row of node 0")
for ax in axes:
    ax.set_ylim(-0.8, 0.8)
show(
    fig,
    alt="Two drawings of the same 5-node path graph, nodes 0 to 4 from left to right, node 0 "
    "circled in green, each node coloured by and labelled with its entry in row 0 of the kernel. "
    "Left, heat kernel: the values are all positive and shrink along the path. Right, printed "
    "sign: the values alternate in sign from node to node, shown by the minus signs and the "
    "purple versus orange fill.",
)

# %% [markdown]
# **Predict first.** Make β large in the explorer below. On a connected graph with $n$ nodes,
# every entry of the heat kernel $e^{\beta(A-D)}$ tends to (a) 0; (b) $1/n$; (c) 1; (d) infinity.
# The cell after the question prints the 5-node path at β = 50.

# %%
ask("03.c_heat", "?")

# %%
print(
    "heat kernel of the 5-node path at β = 50, row of node 0:",
    ", ".join(f"{v:.4f}" for v in sk.diffusion_kernel(A_path, 50.0)[0]),
)
row_sums = np.array([sk.diffusion_kernel(A_path, b_).sum(axis=1) for b_ in (0.1, 0.5, 5.0, 50.0)])
print(f"every row sums to 1 at β = 0.1, 0.5, 5 and 50: max |row sum − 1| {as_bound(row_sums - 1)}")

# %% [markdown]
# Every entry of the row is $1/5$. No heat is lost — each row of the heat kernel sums to 1, at
# every β — and on a connected graph it spreads evenly over the $n$ nodes,
# $e^{\beta(A-D)} \to \mathbb 1\mathbb 1^\top/n$. This settles 03.c_heat.
#
# **Diffusion explorer.** Edit the graph in the text field (edges as `i-j`, separated by
# spaces), choose how many nodes it has and which node's row colours it, slide β and switch the
# sign convention. Things to try: cut the graph in two and see that no heat crosses the gap;
# make β large and see the heat spread evenly over each connected component; switch to the
# printed sign and watch the colours alternate.

# %%
# NBVAL_IGNORE_OUTPUT
make_diffusion_explorer()

# %% [markdown]
# ### 3.5 Kernels between graphs
# To compare two whole graphs we compare what happens inside them (HSS1 §1.4.5).
#
# * **Shortest paths (1.38).** Floyd–Warshall turns each graph into a complete graph whose edge
#   $(i, j)$ carries the shortest-path length $d(i, j)$. The kernel compares all pairs of such
#   edges: here with $k_h = 1[\text{start labels equal}]\cdot 1[\text{end labels equal}]\cdot
#   1[d = d']$, i.e. it counts pairs of node pairs with the same labels at the same distance.
# * **Random walks.** Pairs of walks with the same label sequence are walks on the *product
#   graph*, whose nodes are label-matching node pairs. Weighting a pair of walks of length
#   $\ell$ by $\lambda^\ell$ and summing over all lengths gives
#   $k = p^\top (I - \lambda A_\times)^{-1} p$, finite only when $\lambda < 1/\rho(A_\times)$.
#
# The three small labelled graphs below look like molecules: a triangle C–C–O, a chain
# C–O–C, and a star with a C centre and three O leaves.

# %%
graphs = {
    "triangle": (sk.adjacency_matrix([(0, 1), (1, 2), (2, 0)], 3), ["C", "C", "O"]),
    "chain": (sk.adjacency_matrix([(0, 1), (1, 2)], 3), ["C", "O", "C"]),
    "star": (sk.adjacency_matrix([(0, 1), (0, 2), (0, 3)], 4), ["C", "O", "O", "O"]),
}
names = list(graphs)
K_sp = np.array(
    [
        [sk.shortest_path_kernel(graphs[a][0], graphs[b][0], graphs[a][1], graphs[b][1]) for b in names]
        for a in names
    ]
)
print("shortest-path kernel:\n", K_sp.astype(int))
K_rw = np.array(
    [
        [sk.random_walk_kernel(graphs[a][0], graphs[b][0], 0.1, graphs[a][1], graphs[b][1]) for b in names]
        for a in names
    ]
)
print("random-walk kernel, λ = 0.1:\n", np.round(K_rw, 3))
A_t, l_t = graphs["triangle"]
parts = [sk.random_walk_kernel(A_t, A_t, 0.1, l_t, l_t, max_length=L) for L in (0, 1, 2, 5, 10)]
print("triangle with itself, walks up to length 0, 1, 2, 5, 10:", ", ".join(f"{v:.4f}" for v in parts))
print(
    f"smallest eigenvalues: shortest path {np.linalg.eigvalsh(K_sp).min():.3f}, "
    f"random walk {np.linalg.eigvalsh(K_rw).min():.3f}"
)

# %% [markdown]
# ### 3.6 Fisher kernels (HSS1 §1.4.6)
# A probabilistic model $p(x\mid\theta)$ also defines a kernel. Its *Fisher score*
# $U_\theta(x) = \partial_\theta(-\log p(x\mid\theta))$ tells, up to its sign, in which
# direction the parameters would have to move to make $x$ more likely; the Fisher kernel is $U_\theta(x)^\top I^{-1}U_\theta(x')$ with the Fisher
# information $I = \mathbb{E}[U_\theta U_\theta^\top]$, or simply $U_\theta(x)^\top U_\theta(x')$
# unnormalised. For an exponential family $p(x\mid\theta) = \exp(\langle\phi(x),\theta\rangle -
# g(\theta))$ the score is $\partial g(\theta) - \phi(x)$, hence identity (1.43): the
# unnormalised Fisher kernel is $[\phi(x) - \partial g(\theta)]^\top[\phi(x') - \partial g(\theta)]$, a
# linear kernel on centred sufficient statistics.
#
# Model: five independent coins (a "document" records which of five words it contains), with
# natural parameters $\theta_k$ = log-odds, $\partial g(\theta) = \operatorname{sigmoid}(\theta)$,
# fitted by maximum likelihood.

# %%
docs = (rng.random((30, 5)) < [0.1, 0.3, 0.5, 0.7, 0.9]).astype(float)
theta = sk.exp_family_mle(docs, "bernoulli")
U = sk.fisher_score(docs, theta)
print("θ̂ (log-odds):", ", ".join(f"{t:+.2f}" for t in theta))
print(f"mean Fisher score at the MLE: max |.| = {err(U.mean(axis=0))}")
K_f = sk.fisher_kernel(docs, theta=theta)
mean_phi = 1 / (1 + np.exp(-theta))
print(f"identity (1.43): max |K − (φ − ∂g)(φ − ∂g)ᵀ| = {err(K_f - (docs - mean_phi) @ (docs - mean_phi).T)}")
I_f = sk.fisher_information(theta)
C_U = U.T @ U / len(U)  # sample covariance of the scores (their mean is 0)
print(
    f"Fisher information diag(p(1 − p)) vs the sample variances of U: max difference = "
    f"{err(np.diag(I_f) - np.diag(C_U))}"
)
print(
    f"off the diagonal I is 0 (independent coins); the sample covariances reach "
    f"{np.abs(C_U - np.diag(np.diag(C_U))).max():.3f}"
)
K_fn = sk.fisher_kernel(docs, theta=theta, normalized=True)

fig, axes = plt.subplots(1, 2, figsize=(9.0, 3.6), layout="compressed")  # room for the colour bars
plot_kernel_matrix(K_f[:8, :8], ax=axes[0], title="unnormalised Fisher kernel")
plot_kernel_matrix(K_fn[:8, :8], ax=axes[1], title="normalised (with I⁻¹)")
show(
    fig,
    alt="Two 8 by 8 heat maps with the values written in the cells and diverging colour bars: "
    "the Fisher kernel between the first 8 documents, left without and right with the inverse "
    "Fisher information. Both show the same pattern of positive and negative entries; the "
    "normalised values are larger, up to about 6 against about 1.2.",
)

# %% [markdown]
# The normalised kernel divides each coordinate by its variance $p_k(1-p_k)$: agreeing on a rare
# word (small variance) counts for much more than agreeing on a common one.

# %% [markdown]
# ## 4 · Kernel dependency estimation: predicting strings (HSS1 §1.5)
#
# When the *outputs* are structured too, KDE (Weston et al.) proceeds in three steps:
# 1. embed the training outputs with kernel PCA for an output kernel $k_y$;
# 2. learn a map from inputs to these embedding coordinates by kernel ridge regression with an
#    input kernel;
# 3. decode a new input by the candidate output whose feature vector is closest to the
#    prediction, $y^* = \arg\min_y \lVert\Phi_y(y) - T(x)\rVert^2$ (1.44) — a pre-image problem,
#    solved here by search over a finite candidate set.
#
# Task: from a random string over $\{a, b, c\}$ predict its reversal. Both kernels are sums of
# the n-gram kernels for $n = 1, 2, 3$. Reversal maps the n-gram counts of $x$ linearly onto
# those of the output (each n-gram is reversed), so a linear map in feature space can learn it.
# The candidate set holds the reversed test strings, the test strings themselves as
# distractors, and the reversed training strings.


# %%
def k_str(u, v):
    return float(sum(sk.ngram_kernel(u, v, q) for q in (1, 2, 3)))


def random_strings(count):
    return ["".join(rng.choice(list("abc"), int(rng.integers(4, 8)))) for _ in range(count)]


train_x, test_x = random_strings(80), random_strings(12)
train_y = [s[::-1] for s in train_x]
candidates = list(dict.fromkeys([s[::-1] for s in test_x] + test_x + train_y))
model = kernel_dependency_estimation(
    sk.structured_gram(k_str, train_x), sk.structured_gram(k_str, train_y), lam=1e-6
)
pred = kde_predict(
    model,
    sk.structured_gram(k_str, test_x, train_x),
    sk.structured_gram(k_str, candidates, train_y),
    np.array([k_str(c, c) for c in candidates]),
)
guesses = [candidates[i] for i in pred.index]
for x_, g_ in list(zip(test_x, guesses))[:6]:
    print(f"{x_:>8} -> {g_:<8} {'✓' if g_ == x_[::-1] else '✗'}")
print(
    f"correct: {sum(g_ == x_[::-1] for x_, g_ in zip(test_x, guesses))} of {len(test_x)} "
    f"(candidate set of {len(candidates)} strings)"
)

# %% [markdown]
# With only unigram features the reversal would be invisible (a string and its reverse have
# the same letter counts), and the decoder could not tell the distractor from the answer.
# Try it: replace `(1, 2, 3)` by `(1,)` in `k_str` and rerun the cell.

# %% [markdown]
# ## 5 · Exercises
#
# Each function below is checked against the reference implementation on several inputs.
# Stuck? `hint("03.xxx")`, then `hint("03.xxx", level=2)` and so on: three levels, from a
# nudge to close to code. The third level and `solution("03.xxx")` come with the solutions,
# when your course releases them (until then they say so).
#
# **Exercise 1 (centring).** Return $\tilde K = K - \mathbf 1_m K - K\mathbf 1_m +
# \mathbf 1_m K\mathbf 1_m$ for a square Gram matrix `K`.

# %%
from kmlteach.exercises import check, hint, solution  # noqa: F401  (hint and solution: for the student to call)


def center_gram(K):
    ### BEGIN SOLUTION
    return K - K.mean(axis=0, keepdims=True) - K.mean(axis=1, keepdims=True) + K.mean()
    ### END SOLUTION


check("03.center", center_gram)

# %% [markdown]
# **Exercise 2 (n-gram kernel).** Return $\sum_s \#(s\in x)\,\#(s\in y)$ over strings $s$ of
# length `n`, counting overlapping occurrences (so `ngram("aaaa", "aa", 2)` is 3).

# %%
from collections import Counter


def ngram(x, y, n):
    ### BEGIN SOLUTION
    cx = Counter(x[i : i + n] for i in range(len(x) - n + 1))
    cy = Counter(y[i : i + n] for i in range(len(y) - n + 1))
    return sum(c * cy[s] for s, c in cx.items())
    ### END SOLUTION


check("03.ngram", ngram)

# %% [markdown]
# **Exercise 3 (heat kernel).** For a symmetric 0/1 adjacency matrix `A` and `beta > 0`, return
# $e^{\beta(A - D)}$ using an eigendecomposition (no SciPy).


# %%
def heat_kernel(A, beta):
    ### BEGIN SOLUTION
    L = A - np.diag(A.sum(axis=1))
    lam, V = np.linalg.eigh(L)
    return (V * np.exp(beta * lam)) @ V.T
    ### END SOLUTION


check("03.diffusion", heat_kernel)

# %% [markdown]
# **Exercise 4 (kernel PCA).** For an uncentred Gram matrix `K` and `p`, return the $(m, p)$
# matrix of projections of the training points on the first `p` unit-norm axes. The signs of
# the axes are arbitrary; the checker compares $ZZ^\top$.


# %%
def kpca_embedding(K, p):
    ### BEGIN SOLUTION
    Kc = K - K.mean(axis=0) - K.mean(axis=1)[:, None] + K.mean()
    lam, U = np.linalg.eigh(Kc)
    lam, U = lam[::-1][:p], U[:, ::-1][:, :p]
    return U * np.sqrt(np.maximum(lam, 0))
    ### END SOLUTION


check("03.kpca", kpca_embedding)

# %% [markdown]
# **Exercise 5 (Fisher kernel).** For binary data `X` (rows are samples) and log-odds `theta`
# of independent coins, return the unnormalised Fisher kernel matrix.


# %%
def fisher_bernoulli(X, theta):
    ### BEGIN SOLUTION
    U = 1 / (1 + np.exp(-theta)) - X
    return U @ U.T
    ### END SOLUTION


check("03.fisher", fisher_bernoulli)

# %% [markdown]
# **Exercise 6 (derivation: how far apart are two classes in the RKHS?).** Split the sample into
# $A$ (`mask` true) and $B$ (the rest) and let $\mu_A = \frac1{|A|}\sum_{i\in A}\Phi(x_i)$, $\mu_B$
# likewise. Expand $\lVert\mu_A - \mu_B\rVert^2$ with the rules of section 1 until only kernel values
# remain, and return it from the Gram matrix `K` alone. (With a characteristic kernel such as the
# Gaussian this is the squared *maximum mean discrepancy* between the two samples.) The cell after
# the check compares your formula with explicit feature vectors.


# %%
def mean_distance(K, mask):
    ### BEGIN SOLUTION
    a, b = mask, ~mask
    return K[np.ix_(a, a)].mean() + K[np.ix_(b, b)].mean() - 2 * K[np.ix_(a, b)].mean()
    ### END SOLUTION


check("03.mean_distance", mean_distance)

# %%
X_md = rng.normal(size=(10, 2))
mask_md = np.arange(10) < 4
Phi_md = kk.polynomial_features(X_md, 2)
explicit = float(np.sum((Phi_md[mask_md].mean(0) - Phi_md[~mask_md].mean(0)) ** 2))
K_md = kk.gram("polynomial", X_md, degree=2)
c_md = np.where(mask_md, 1 / mask_md.sum(), -1 / (~mask_md).sum())  # μ_A − μ_B = Σ c_i Φ(x_i)
print(f"‖μ_A − μ_B‖² from explicit degree-2 features: {explicit:.6f}")
print(f"the same from kernel values only, cᵀKc:        {float(c_md @ K_md @ c_md):.6f}")

# %% [markdown]
# ## Summary
#
# * Expansions $\sum_i a_i\Phi(x_i)$ are handled through their coefficients: translation,
#   centring, distances, projection, deflation and Gram–Schmidt need only the Gram matrix.
# * Kernel PCA diagonalises the centred Gram matrix; with unit-norm axes the embedding
#   reproduces $\tilde K$ (1.32), and the kernel width decides what the first components see:
#   on the digits a very wide Gaussian kernel gives linear PCA's picture, scaled by $1/\sqrt\sigma$,
#   and a very narrow one spreads the variance over hundreds of components.
# * Sets, strings and graphs get kernels through explicit (often huge) feature maps whose inner
#   products are cheap: $|A\cap B|$ with a *sum* of simplex vertices, n-gram counts, common
#   substrings, convolution over decompositions, shortest paths, walks on the product graph.
# * The diffusion kernel is the heat kernel $e^{\beta(A-D)}$; the printed $e^{-\beta L}$ with
#   $L = A - D$ flips the sign and oscillates.
# * A generative model gives the Fisher kernel, for exponential families a linear kernel on
#   centred sufficient statistics (1.43).
# * Kernel dependency estimation predicts structured outputs: regress onto the kernel PCA
#   coordinates of the outputs, then decode by the nearest candidate.
#
# Next: [04 · Multiclass classification](04-multiclass.ipynb).

# %% [markdown]
# ## Recap quiz
#
# Five questions on this chapter, listed here; the widget below checks your choice (or type
# `ask("03.q3", "b")` in a cell — a numeric question takes a number, as in `ask("03.q1", 0.5)`).

# %%
display(HTML(quiz_html("03")))

# %%
# NBVAL_IGNORE_OUTPUT
quiz("03")

# %%
# Your progress in this chapter: a question counts with its first answer, a prediction
# explorer once, with the first answer it scores (its next questions are practice);
# kmlteach.progress() lists every chapter.
import kmlteach

kmlteach.progress("03")

# %% [markdown]
# ## Sources and further reading
#
# **Sources** (the short names used in this chapter):
#
# * **HSS1** = T. Hofmann, B. Schölkopf, A. J. Smola et al., chapters 1 (*Measuring Similarity with Kernels*, HSS1) and 2 (*Discriminative Models*, HSS2) of G. Bakır, T. Hofmann, B. Schölkopf, A. J. Smola, B. Taskar and S. V. N. Vishwanathan (eds.), *Predicting Structured Data*, MIT Press, 2007 (§1.2.2 for the RKHS, §1.3–1.5).
# * **UML** = S. Shalev-Shwartz and S. Ben-David, *Understanding Machine Learning: From Theory to Algorithms*, Cambridge University Press, 2014 (§16.2.1).
#
# **Further reading** (classic references, beyond the course's sources):
#
# * N. Aronszajn, "Theory of reproducing kernels", *Transactions of the American Mathematical Society* 68(3), 337–404, 1950 — the RKHS and the Moore–Aronszajn theorem.
# * B. Schölkopf, A. J. Smola and K.-R. Müller, "Nonlinear component analysis as a kernel eigenvalue problem", *Neural Computation* 10(5), 1299–1319, 1998 — kernel PCA.
# * R. I. Kondor and J. Lafferty, "Diffusion kernels on graphs and other discrete input spaces", *Proceedings of ICML*, 2002 — the heat kernel of §3.4.
# * T. S. Jaakkola and D. Haussler, "Exploiting generative models in discriminative classifiers", *Advances in Neural Information Processing Systems* 11, 1999 — Fisher kernels.
