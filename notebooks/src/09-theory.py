# %% [markdown]
# # 09 · Large-margin theory and online kernel learning
#
# [Open this chapter on Binder](https://mybinder.org/v2/gh/kmlteach/kmlteach/main?urlpath=lab/tree/notebooks/09-theory.ipynb)
#
# *Sources: HSS2 §2.2.2 (NORMA, Algorithm 2.1), §2.2.1 (the perceptron and Novikoff's
# theorem), §2.3.1 (ν-SV classification, (2.5)–(2.6)), §2.3.2 (support estimation, (2.7)–(2.8)),
# §2.4 (margin-based losses, (2.9)–(2.22)), §2.5 (calibration (2.27), Rademacher averages
# (2.26) and the rate (2.28)); HSS1 (1.6)–(1.7) for the Parzen-window classifier.*
#
# *Notation: every symbol of the course, chapter by chapter, with the letters that change meaning flagged, is in the [glossary](../docs/glossary.md).*
#
# The last chapter steps back. Every learner of the course minimised some loss of the margin
# $y f(x)$ plus a norm penalty. Here we look at that recipe from three sides: **online**, where
# points arrive one at a time and the kernel expansion of $f$ grows by one term per point;
# **reparametrised**, where a single number ν ∈ (0, 1] says what fraction of the sample may
# violate the margin, for classification and for estimating where the data live; and
# **statistical**, where Rademacher averages explain why a large margin on the sample
# promises a small error on new data, whatever the dimension.
#
# **You need:** chapter 01 (margins, the hinge loss, soft-SVM and its dual, the perceptron and
# Novikoff's bound), chapter 02 (kernels, Gram matrices, kernel expansions), chapter 03 (the
# RKHS and its norm); expectations and Jensen's inequality.
#
# **Objectives.** After this notebook you will be able to
# 1. write a margin loss, its (sub)gradient and the kernel-expansion coefficient that the
#    gradient contributes, and state the calibration constants of (2.27);
# 2. run NORMA step by step in kernel-expansion form, explain how λ shrinks old terms and what
#    truncating the expansion costs, and recover the perceptron and its mistake bound;
# 3. solve the ν-SVM and the one-class SVM, check the ν-property on the solution, and recognise
#    what the ν-SVM becomes at ν = 1 and the correspondence between C and ν;
# 4. estimate a Rademacher average by Monte Carlo, compare it with its bound as n grows, and
#    read the margin bound (2.28) term by term.
# 5. choose ν for real data from what the ν-property says, and check the choice by cross-validation.

# %%
import numpy as np

from kmlteach import theory
from kmlteach.kernel_methods import class_mean_classifier
from kmlteach.kernels import gram
from kmlteach.online import norma
from kmlteach.plots.ch09 import norma_history, nu_data, oneclass_data, rademacher_data, show, stream_data
from kmlteach.svm import nu_svm, one_class_svm, soft_svm
from kmlteach.widgets.ch09 import perceptron_bound


def below(x, bound):
    """A rounding-level discrepancy shown as a bound: its digits differ between machines."""
    x = float(np.max(np.abs(x)))
    return f"< {bound}" if x < float(bound) else f"{x:.1e}"


SEED = 0
rng = np.random.default_rng(SEED)

# %% [markdown]
# ## 1 · Margin losses and their gradients (HSS2 §2.4)
#
# HSS2 writes every learner of this kind as the minimiser of a regularised risk (2.9),
# $J(f) = \frac1m\sum_i l(x_i, y_i, f) + \frac{\lambda}{2}\|f\|_{\mathcal H}^2$, and lists the
# losses $l$ together with their gradients with respect to $f$. The gradient of the
# evaluation $f \mapsto f(x)$ is $k(x, \cdot)$ (the reproducing property), so by the chain rule
# the gradient of a binary loss $l(y f(x))$ is $l'(y f(x))\, y\, k(x, \cdot)$: **a multiple of one
# kernel function**, whose coefficient is all an algorithm has to store. For the binary losses:
#
# | loss (HSS2) | $l(z)$, with $z = y f(x)$ | $\partial l / \partial z$ | coefficient of $k(x, \cdot)$ in $\partial_f l$ |
# |---|---|---|---|
# | soft margin (2.10)–(2.11), with ρ = 1 | $\max(0, 1 - z)$ | $-1$ if $z < 1$, else 0 | $-y$ or 0 |
# | squared soft margin (not in HSS2; a smooth variant) | $\max(0, 1 - z)^2$ | $-2\max(0, 1 - z)$ | $-2y\max(0, 1 - y f(x))$ |
# | logistic (2.14)–(2.15) | $\log(1 + e^{-z})$ | $-1/(1 + e^{z})$ | $-y/(1 + e^{y f(x)})$ |
# | exponential (§2.5.3, boosting) | $e^{-z}$ | $-e^{-z}$ | $-y e^{-y f(x)}$ |
# | novelty (2.19)–(2.20), labels ignored | $\max(0, \rho - f(x))$ | — | $-1$ if $f(x) < \rho$, else 0 |
#
# The multiclass losses (2.12)–(2.13) and (2.16)–(2.18) and the taxonomy loss (2.21)–(2.22)
# live on a joint kernel $k((x, y), (x', y'))$: their gradients are differences
# $k((x, y^*), \cdot) - k((x, y), \cdot)$ or a probability-weighted sum over the labels, again
# a handful of kernel functions per example; for the multiclass logistic loss the coefficients
# over the labels are the softmax probabilities minus the indicator of the true label. We check
# the binary gradients against finite differences (away from the kinks), and the multiclass
# logistic gradient on one example with three labels.

# %%
z = np.array([-1.5, -0.3, 0.4, 0.9, 1.7])  # margins y f(x), here with y = +1 and f = z
ones = np.ones_like(z)
h = 1e-6
for name in theory.BINARY_LOSSES:
    loss = getattr(theory, name)
    value, grad = loss(z, ones)
    numeric = (loss(z + h, ones).value - loss(z - h, ones).value) / (2 * h)
    print(
        f"{name:20s} l = {np.array2string(value, precision=4)}   "
        f"max |∂l/∂f − finite difference| {below(grad - numeric, '1e-8')}"
    )
F = np.array([[2.0, 0.5, -1.0]])  # scores f(x, ỹ) of one example over 3 labels
ml = theory.multiclass_logistic(F, np.array([0]))
p = np.exp(F[0]) / np.exp(F[0]).sum()
print(
    f"multiclass logistic (2.16)–(2.18), y = 0: l = {ml.value[0]:.4f}, gradient over the labels "
    f"{np.array2string(ml.gradient[0], precision=4)}, softmax − e_y = "
    f"{np.array2string(p - np.eye(3)[0], precision=4)}"
)

# %% [markdown]
# **Explore the gallery.** Pick a loss and a margin $z_0$: the bold curve is the loss, the dot
# its value, the dashed line the tangent $l(z_0) + g\,(z - z_0)$ with the subgradient $g$ shown on
# the right. For a convex loss the tangent never rises above the curve — that is what makes $g$
# a subgradient (the 0–1 loss is not convex and has no subgradient at 0). The readout gives
# the coefficient $-\eta\,\partial l/\partial z$ that NORMA
# (section 2) would give the new term for a point with $y = +1$. First the static picture at
# the soft margin's kink, $z_0 = 1$, where any $g \in [-1, 0]$ is a subgradient and the library
# picks 0.

# %%
from kmlteach.widgets.ch09 import make_loss_gallery

gallery = make_loss_gallery(loss="soft_margin", z=1.0)
show(
    gallery,
    alt="Left: the 0-1, soft-margin, squared soft-margin, logistic and exponential "
    "losses as functions of the margin z from -2.5 to 2.5, the soft margin drawn "
    "bold with a dot at z = 1 and its flat tangent. Right: the derivatives of the "
    "same losses, the soft margin's jumping from -1 to 0 at z = 1.",
)

# %%
# NBVAL_IGNORE_OUTPUT
gallery

# %% [markdown]
# ### Calibration (HSS2 §2.5.3)
#
# Why is it safe to minimise a convex surrogate ψ instead of the 0–1 loss
# $\chi(\xi) = \frac12(1 - \operatorname{sgn}\xi)$? Inequality (2.27) bounds the excess 0–1 risk
# of any $f$ by a power of its excess ψ-risk,
# $E[\chi(yf)] - E[\chi(yf^*_\chi)] \le c\,\big(E[\psi(yf)] - E[\psi(yf^*_\psi)]\big)^s$,
# with $c = 4, s = 1$ for the soft margin and $c = \sqrt8, s = \frac12$ for the logistic and
# exponential losses. So driving the ψ-risk to its minimum drives the 0–1 risk to the Bayes
# risk: the surrogate is **consistent**.
#
# We check the inequality where it is decided — at one $x$. Let $\eta = P(y = 1 \mid x)$. The
# conditional ψ-risk of a value $f$ is $C(\eta, f) = \eta\,\psi(f) + (1 - \eta)\,\psi(-f)$, and
# a value with the wrong sign costs $|2\eta - 1|$ more 0–1 risk than the Bayes decision and at
# least $H^-(\eta) - H(\eta)$ more ψ-risk, where $H$ is the smallest conditional ψ-risk and $H^-$
# the smallest over values of the wrong sign. If
# $|2\eta - 1| \le c\,(H^-(\eta) - H(\eta))^s$ for every η, averaging over $x$ gives (2.27)
# (Jensen's inequality, as $t \mapsto t^s$ is concave for $s \le 1$). `theory.calibration`
# minimises over $f$ numerically on a grid of η and returns the smallest $c$ that works:

# %%
for name in theory.BINARY_LOSSES:
    cal = theory.calibration(name)
    book = f"book: c = {cal.c_book:.4f}, holds: {cal.holds}" if cal.c_book else "not in the book"
    print(f"{name:20s} s = {cal.s:.1f}: smallest c on the grid {cal.c_min:.4f}   ({book})")

# %% [markdown]
# The printed constants hold with room to spare: the soft margin needs only $c = 1$, the
# logistic and exponential losses $c = \sqrt2$ — half the book's $\sqrt8$. (The squared soft
# margin, not listed in the book, is calibrated with $s = \frac12$.)

# %% [markdown]
# ## 2 · NORMA: online learning in an RKHS (HSS2 §2.2.2, Algorithm 2.1)
#
# Online, we see $(x_t, y_t)$, predict $f_t(x_t)$, pay the loss, and update — one point at a
# time, never revisiting old ones. NORMA takes one stochastic-gradient step on the
# *instantaneous* risk $J_t(f) = l(x_t, y_t, f) + \frac\lambda2\|f\|^2_{\mathcal H}$, whose
# gradient is $g_t = l'_t\,k(x_t, \cdot) + \lambda f_t$, with $l'_t$ the derivative of the loss
# in the value $f_t(x_t)$. The step $f_{t+1} = f_t - \eta_t g_t$ becomes, **in kernel-expansion
# form**,
# $$f_{t+1} = (1 - \eta_t\lambda)\,f_t - \eta_t\, l'_t\, k(x_t, \cdot), \qquad f_1 = 0,$$
# so $f_{t+1} = \sum_{s \le t} c_s k(x_s, \cdot)$: one new coefficient $c_t = -\eta_t l'_t$ per
# step, and every old coefficient shrinks by the factor $(1 - \eta_t\lambda)$. With constant η a
# term that is $a$ steps old carries the factor $(1 - \eta\lambda)^a$ — the regulariser makes the
# learner **forget** geometrically. We run `norma` on a stream and redo its first steps by hand.

# %%
X_s, y_s = stream_data()  # 120 points, separable through the origin
sigma, lam, eta = 0.5, 0.05, 0.5
res = norma(X_s, y_s, lam, eta, kernel="gaussian", loss="hinge", sigma=sigma)
K_s = gram("gaussian", X_s, sigma=sigma)
coef = np.zeros(0)
for t in range(5):  # five steps of the update above, by hand
    f_t = coef @ K_s[:t, t]
    d = -y_s[t] if y_s[t] * f_t < 1 else 0.0
    coef = np.r_[(1 - eta * lam) * coef, -eta * d]
    print(
        f"t = {t + 1}: f_t(x_t) = {f_t:+.4f} (library {res.predictions[t]:+.4f}), "
        f"new coefficient {coef[-1]:+.3f}"
    )
C_hist = norma_history(res, y_s)
print(
    f"after all 120 steps: max |hand-built history − library coefficients| "
    f"{below(C_hist[-1] - res.coef, '1e-12')}"
)
print(
    f"the first term's coefficient: {C_hist[0, 0]:+.4f} after step 1, {res.coef[0]:+.6f} "
    f"after step 120 = {C_hist[0, 0]:+.4f} × (1 − ηλ)^119 = {C_hist[0, 0] * (1 - eta * lam) ** 119:+.6f}"
)

# %% [markdown]
# **The linear kernel is the primal algorithm.** With $k(x, x') = \langle x, x'\rangle$ the
# expansion is the vector $w_t = \sum_s c_s x_s$, and the update is
# $w_{t+1} = (1 - \eta\lambda) w_t - \eta\, l'_t\, x_t$ — SGD on the regularised hinge loss.
# Both forms give the same predictions:

# %%
lin = norma(X_s, y_s, lam, eta, kernel="linear", loss="hinge")
w = np.zeros(2)
pred = np.empty(len(y_s))
for t in range(len(y_s)):
    pred[t] = w @ X_s[t]
    d = -y_s[t] if y_s[t] * pred[t] < 1 else 0.0
    w = (1 - eta * lam) * w - eta * d * X_s[t]
print(f"max |primal − expansion| over the 120 predictions {below(pred - lin.predictions, '1e-12')}")
print(
    f"final w: primal {np.array2string(w, precision=4)}, expansion Σ c_s x_s "
    f"{np.array2string(lin.coef @ X_s, precision=4)}"
)

# %% [markdown]
# **A budget.** The expansion grows by one term per point, and so does the cost of a
# prediction. Since old terms decay like $(1 - \eta\lambda)^a$, Kivinen et al. (2004), the paper
# HSS2 §2.2.2 cites for NORMA, simply drop every term older than τ steps. The function changes by the dropped part;
# `norma` reports a bound on its RKHS norm, $\sum_{\text{dropped}} |c_s|\sqrt{k(x_s, x_s)}$, which
# falls as τ grows, since every dropped term has decayed by at least $(1 - \eta\lambda)^\tau$:

# %%
for tau in (5, 10, 20, 40):
    cut = norma(X_s, y_s, lam, eta, kernel="gaussian", loss="hinge", sigma=sigma, budget=tau)
    print(
        f"τ = {tau:2d}: {cut.n_terms:3d} terms kept, truncation error ≤ {cut.truncation_error:.4f}, "
        f"mistakes {cut.mistakes[-1]:2d} (no budget: {res.mistakes[-1]})"
    )

# %% [markdown]
# The error bound falls as τ grows, and a short memory costs mistakes on this stream: the
# learner forgets points it will need again.

# %% [markdown]
# **The perceptron is a special case.** Take $\mathcal H = \mathbb R^d$ (the linear kernel),
# λ = 0, η = 1 and the loss $\max(0, -y f(x))$, whose subgradient is $-y$ when
# $y f(x) \le 0$ and 0 otherwise. The library takes $-y$ at $y f = 0$, so that the first point,
# met with $f_1 = 0$, updates; HSS2 §2.2.1 counts $y\langle w, x\rangle = 0$ as correct, so
# started from $w = 0$ its rule would never update. Algorithm 2.1 is then the perceptron of
# §2.2.1, and Novikoff's theorem (Theorem 10) bounds its mistakes by $(R/\gamma)^2$, with
# $R = \max_i\|x_i\|$ and γ the margin of the best separator through the origin — here the
# homogeneous hard SVM of chapter 01.

# %%
perc = norma(X_s, y_s, 0.0, 1.0, kernel="linear", loss="perceptron")
R, gamma, bound = perceptron_bound(X_s, y_s)
print(f"R = {R:.3f}, γ = {gamma:.4f}: mistakes {perc.mistakes[-1]} ≤ (R/γ)² = {bound:.1f}")
print(
    f"the expansion has {np.count_nonzero(perc.coef)} non-zero terms, one per mistake, with values "
    f"{np.unique(perc.coef[perc.coef != 0]).tolist()}"
)

# %% [markdown]
# The bound holds for *every* order of the stream; this order is an easy one. Below, the stream
# after 40 steps with the Gaussian kernel, hinge loss, λ = 0.05 and η = 0.5, as in the cells
# above: the marker area of each term is proportional to $|c_s|$, so the early terms have
# visibly shrunk.

# %%
from kmlteach.widgets.ch09 import make_norma_stream

stream = make_norma_stream()
with stream.hold():
    stream.controls["kernel"].value = "gaussian"
    stream.controls["loss"].value = "hinge"
    stream.controls["lam"].value = 0.05
    stream.controls["t"].value = 40
show(
    stream,
    alt="Left: the first 40 points of the stream in the plane; points with a non-zero "
    "coefficient are drawn with area proportional to its size, the older ones "
    "smaller, and the curved boundary f = 0 separates the two classes. Right: the "
    "cumulative number of mistakes against the step t on a log scale.",
)

# %% [markdown]
# **Watch the stream.** Press play or move $t$: the ringed point has just arrived, the black
# curve is $f_{t+1} = 0$. Set λ = 0.2 and watch old terms fade; set a budget τ and watch them
# vanish. The widget keeps η = 0.5 throughout, so with the Gaussian kernel, the hinge loss and
# λ = 0.05 it counts the mistakes printed above. With the linear kernel, the perceptron loss,
# λ = 0 and no budget the dashed line is Novikoff's bound; there η only scales $f$ (every
# coefficient is $\pm\eta$), so the mistakes are those of the perceptron with η = 1.

# %%
# NBVAL_IGNORE_OUTPUT
stream

# %% [markdown]
# ## 3 · ν-SV classification (HSS2 §2.3.1, (2.5)–(2.6))
#
# In the soft-margin SVM (2.2) the constant $C$ has no direct meaning. The ν-SVM makes the
# margin itself a variable ρ of the problem, weighted by a parameter ν:
# $$\min_{w, b, \xi, \rho}\ \tfrac12\|w\|^2 + \sum_i \xi_i - n\nu\rho \quad\text{s.t.}\quad
# y_i(\langle w, x_i\rangle + b) \ge \rho - \xi_i,\ \ \xi_i \ge 0. \tag{2.5}$$
# Its dual (2.6) is $\min_\alpha \frac12\alpha^\top Q\alpha$ with $Q_{ij} = y_iy_jk(x_i, x_j)$,
# subject to $\alpha^\top y = 0$, $\alpha^\top\mathbf 1 = n\nu$ and $0 \le \alpha_i \le 1$, and
# $f(x) = \sum_i\alpha_iy_ik(x_i, x) + b$. Call $x_i$ a **margin error** if $y_if(x_i) < \rho$
# (its slack is positive) and a **support vector** if $\alpha_i > 0$. When the solution has
# ρ > 0, the **ν-property** holds:
# $$\frac{\#\text{margin errors}}{n} \;\le\; \nu \;\le\; \frac{\#\text{support vectors}}{n}.$$
# (Each margin error has $\alpha_i = 1$, and $\sum\alpha_i = n\nu$ with every $\alpha_i \le 1$
# needs at least $n\nu$ non-zero terms.) ν must not exceed $2\min(n_+, n_-)/n$, or the two
# equality constraints cannot both hold.
#
# **Predict first.** A cell below solves the ν-SVM on 60 points of two overlapping classes for
# ν = 0.1, 0.3, 0.6 and 1. As ν grows, the margin ρ (a) shrinks: a larger ν tolerates more
# errors; (b) grows; (c) stays the same: ν only counts points.

# %%
from kmlteach.exercises import ask

ask("09.c_rho", "?")

# %% [markdown]
# **Predict first.** Take ν = 1 (30 points per class, Gaussian kernel) and compare the
# ν-SVM's decision function $f$ with the class-mean classifier of chapter 02 on the same kernel.
# $f$ is (a) a different function: the ν-SVM still weights each point by where it lies relative
# to the margin band; (b) the class-mean classifier's decision function times a positive factor,
# plus a constant; (c) exactly the class-mean classifier's decision function, offset included.

# %%
ask("09.c_parzen", "?")

# %% [markdown] tags=["slide-skip"]
# **Predict, then reveal.** The ν-SVM on these 60 points, one ν at a time. Before anything is
# drawn, guess what fraction of the sample will be support vectors ($\alpha_i > 0$) at this ν
# (within 0.05 counts), then press **Reveal**: the rings, the crosses and the two fraction
# curves appear. Move ν for a new question; the readout keeps your score.

# %% tags=["slide-skip"]
# NBVAL_IGNORE_OUTPUT
from kmlteach.widgets.ch09 import make_nu_explorer

make_nu_explorer(nu=0.3, predict=True)

# %%
X_nu, y_nu = nu_data()  # 60 points, 30 per class, overlapping
for nu in (0.1, 0.3, 0.6, 1.0):  # tol=1e-9: the printed digits are the optimum's, not the solver's stop
    sol = nu_svm(X_nu, y_nu, nu, kernel="gaussian", sigma=1.0, tol=1e-9)
    me, sv = len(sol.margin_errors) / 60, len(sol.support) / 60
    print(
        f"ν = {nu:.1f}: ρ = {sol.rho:7.4f}, margin errors {me:.3f} ≤ ν ≤ support vectors {sv:.3f}"
        f" {'✓' if me <= nu <= sv else '✗'}"
    )

# %% [markdown]
# ρ grows with ν: in (2.5) each unit of ρ lowers the objective by $n\nu$, so a larger ν buys a
# wider band, paid for with more margin errors. This settles 09.c_rho.
#
# **ν = 1 is the Parzen-window classifier.** With ν = 1 and balanced classes, $\sum\alpha_i = n$
# and $\alpha_i \le 1$ force every $\alpha_i = 1$. Then
# $f(x) = \sum_{y_i = +1}k(x_i, x) - \sum_{y_i = -1}k(x_i, x) + b$: with 30 points per class this
# is 30 times the class-mean classifier of HSS1 (1.6) (chapter 02), up to the offset — "an
# affine copy" in HSS2's words; the offsets differ, because the ν-SVM computes its $b$ from its
# own optimality conditions. With a Gaussian kernel the two sums are, up to the constant that
# normalises the kernel, 30 times the Parzen-window density estimates (1.7) of the two classes.
# The cell below checks both steps; this settles 09.c_parzen.

# %%
full = nu_svm(X_nu, y_nu, 1.0, kernel="gaussian", sigma=1.0)
K_nu = gram("gaussian", X_nu, sigma=1.0)
parzen = class_mean_classifier(K_nu, y_nu)
f_nu = full.decision_function(X_nu)
print(f"all α_i = 1: {bool(np.all(full.alpha == 1.0))}")
print(
    f"max |(f − b) − 30·(class-mean classifier − its b)| "
    f"{below((f_nu - full.b) - 30 * (parzen.decision_function(K_nu) - parzen.b), '1e-12')}"
)
print(f"the offsets differ: |b − 30·(class-mean b)| > 0.1: {bool(abs(full.b - 30 * parzen.b) > 0.1)}")

# %% [markdown]
# **C and ν describe the same solutions.** HSS2 notes that for every $C$ some ν makes the
# solution of (2.6) a multiple of the solution of (2.4). Concretely, if the ν-SVM returns
# $(w, b, \rho)$ with ρ > 0, then $(w/\rho, b/\rho)$ solves the soft-margin problem with
# $C = 1/\rho$ — in this course's convention $\frac\lambda2\|w\|^2 + \frac1n\sum$ hinge, with
# λ = ρ/n — and the soft-margin dual variables then add up to $n\nu C$. We check it with the
# linear kernel and the exact `soft_svm` of chapter 01, at ν = 0.31. (At ν = 0.3 each class's
# α add up to the whole number $n\nu/2 = 9$ and every α of class +1 ends at 0 or 1: no
# support vector of that class sits exactly on the band's edge, so the conditions that fix ρ
# and $b$ leave a whole interval of optimal ρ, and which one a solver returns depends on its
# last steps. The correspondence holds for each of them.)

# %%
lin_nu = nu_svm(X_nu, y_nu, 0.31, kernel="linear", tol=1e-9)
w_nu = (lin_nu.alpha * y_nu) @ X_nu
soft = soft_svm(X_nu, y_nu, lin_nu.rho / 60, homogeneous=False)
print(
    f"ν-SVM, ν = 0.31: ρ = {lin_nu.rho:.4f}, w/ρ = {np.array2string(w_nu / lin_nu.rho, precision=5)}, "
    f"b/ρ = {lin_nu.b / lin_nu.rho:.5f}"
)
print(f"soft-SVM, C = 1/ρ: w   = {np.array2string(soft.w, precision=5)}, b   = {soft.b:.5f}")
print(f"Σ α(soft) / (n C) = {soft.alpha.sum() * lin_nu.rho / 60:.5f}  (= ν)")
free = (lin_nu.alpha > 1e-9) & (lin_nu.alpha < 1 - 1e-9)
print(
    f"support vectors on the band's edge (0 < α < 1): {free[y_nu < 0].sum()} of class −1, {free[y_nu > 0].sum()} of class +1"
)

# %% [markdown]
# The picture for ν = 0.3: the solid curve is $f = 0$, the dashed curves $f = \pm\rho$ bound the
# margin band, green rings mark support vectors and crosses mark margin errors; the dotted
# curve is the boundary of the Parzen-window classifier, for comparison. On the right,
# the two fractions over a grid of 40 values of ν: the staircase of margin errors stays on or
# below the diagonal, the one of support vectors on or above it.

# %%
from kmlteach.widgets.ch09 import make_nu_explorer

nu_view = make_nu_explorer(X_nu, y_nu, nu=0.3)
show(
    nu_view,
    alt="Left: two overlapping classes in the plane with the nu-SVM boundary f = 0 and "
    "the dashed margin curves f = plus and minus rho for nu = 0.3; support vectors "
    "are ringed, margin errors crossed, and a dotted curve shows the Parzen-window "
    "classifier's boundary. Right: the fraction of support vectors "
    "(above the diagonal) and of margin errors (below it) against nu from 0 to 1.",
)

# %% [markdown]
# **Move ν.** The band widens and more points become support vectors and margin errors, the
# two fractions always bracketing ν. At ν = 1 every point is a support vector (the Parzen limit):
# $f$ is then the Parzen-window score up to a factor and an offset, so its boundary $f = 0$ and
# the dotted boundary of the Parzen-window classifier are two level sets of the same function,
# differing only in their offsets.

# %%
# NBVAL_IGNORE_OUTPUT
nu_view

# %% [markdown]
# ## 4 · Estimating the support of a distribution (HSS2 §2.3.2, (2.7)–(2.8))
#
# Without labels, we can still ask *where* the data live: find a small region holding all
# but a fraction ν of the sample. The one-class SVM separates the data from the origin of the
# feature space with the largest margin,
# $$\min_{w, \xi, \rho}\ \tfrac12\|w\|^2 + \sum_i\xi_i - n\nu\rho \quad\text{s.t.}\quad
# \langle w, \Phi(x_i)\rangle \ge \rho - \xi_i,\ \ \xi_i \ge 0, \tag{2.7}$$
# with dual (2.8): $\min_\alpha\frac12\alpha^\top K\alpha$ subject to $\alpha^\top\mathbf 1 = \nu n$
# and $0 \le \alpha_i \le 1$. The estimate of the support is $\{x : f(x) \ge 0\}$ with
# $f(x) = \sum_i\alpha_ik(x_i, x) - \rho$. The same counting as for (2.6) gives: at most a
# fraction ν of the sample lies outside ($f(x_i) < 0$), at least a fraction ν are support vectors.

# %%
X_oc, outliers = oneclass_data()  # 90 points in two clusters, 8 spread-out extras
for nu in (0.05, 0.2, 0.5):
    oc = one_class_svm(X_oc, nu, sigma=0.1)
    out, sv = len(oc.outliers) / 90, len(oc.support) / 90
    print(
        f"ν = {nu:.2f}: outside {out:.3f} ≤ ν ≤ support vectors {sv:.3f} "
        f"{'✓' if out <= nu <= sv else '✗'}, ρ = {oc.rho:.4f}"
    )

# %% [markdown]
# **ν = 1 is the Parzen-window density.** Again ν = 1 forces every $\alpha_i = 1$, and
# $f + \rho = \sum_i k(x_i, \cdot)$. The Gaussian $\exp(-\|x - x'\|^2/(2\sigma))$ integrates to
# $2\pi\sigma$ over the plane, so $(f + \rho)/(2\pi\sigma n)$ is the Parzen-window estimate of the
# density. For ν < 1, $f$ is a *thresholded* density built from the support vectors only.

# %%
oc1 = one_class_svm(X_oc, 1.0, sigma=0.1)
probe = rng.uniform(-2, 2, size=(5, 2))
dens = gram("gaussian", probe, X_oc, sigma=0.1).mean(axis=1) / (2 * np.pi * 0.1)
print(f"all α_i = 1: {bool(np.all(oc1.alpha == 1.0))}")
print(
    f"max |(f + ρ)/(2πσn) − Parzen density| at 5 random points "
    f"{below((oc1.decision_function(probe) + oc1.rho) / (2 * np.pi * 0.1 * 90) - dens, '1e-12')}"
)

# %% [markdown]
# The picture: the grey shading is the Parzen density, the red curve the boundary $f = 0$ for
# ν = 0.2, σ = 0.1.

# %%
from kmlteach.widgets.ch09 import make_oneclass_explorer

oc_view = make_oneclass_explorer(X_oc, outliers, nu=0.2, sigma=0.1)
show(
    oc_view,
    alt="A sample of 90 points in two clusters over a grey Parzen density. A red curve, "
    "the one-class SVM boundary f = 0 for nu = 0.2 and sigma = 0.1, encloses the "
    "dense parts of both clusters; ringed support vectors lie on or outside it and "
    "crossed points lie outside.",
)

# %% [markdown]
# **Explore.** A small σ gives a wiggly boundary hugging the points, a large σ a smooth one.
# Inject the outliers: with small ν they fall outside the support; with ν large enough the
# boundary stretches to include some of them.

# %%
# NBVAL_IGNORE_OUTPUT
oc_view

# %% [markdown]
# ## 5 · Rademacher averages (HSS2 §2.5.2)
#
# A large margin on the sample should mean a small error on new data. The tool that makes this
# precise measures how well a class $\mathcal F$ can correlate with pure noise: the
# **Rademacher average** $R_n[\mathcal F] = E_{X,\sigma}\sup_{f \in \mathcal F}\frac1n\sum_i\sigma_if(x_i)$,
# with independent signs $\sigma_i = \pm1$. For the unit ball of linear functions
# $\{x \mapsto \langle w, x\rangle : \|w\| \le 1\}$ the supremum is attained at $w$ along
# $\sum\sigma_ix_i$, so the empirical average is $E_\sigma\|\frac1n\sum_i\sigma_ix_i\|$, and
# Jensen's inequality gives the inner step of (2.26):
# $$E_\sigma\Big\|\sum_i\sigma_ix_i\Big\| \le \Big(E_\sigma\Big\|\sum_i\sigma_ix_i\Big\|^2\Big)^{1/2}
# = \Big(\sum_i\|x_i\|^2\Big)^{1/2},$$
# the cross terms vanishing because the $\sigma_i$ are independent with mean 0. Divided by $n$
# this is $r/\sqrt n$ with $r$ the root-mean-square length of the sample — no dimension anywhere.
# (A second use of Jensen, over the sample, gives (2.26)'s $\sqrt{nE\|x\|^2}$.)
# The Khintchine–Kahane inequality bounds it from below by the same quantity over $\sqrt2$.
#
# **Predict first.** The cell below also draws 200 sign vectors for 50 orthonormal points (the
# rows of the 50 × 50 identity). The 200 values of $\|\frac1n\sum_i\sigma_ix_i\|$ (a) vary
# from draw to draw, like any Monte-Carlo sample; (b) are all equal; (c) are all 0: the signs
# cancel.

# %%
ask("09.c_orthonormal", "?")

# %%
X_r = rademacher_data()  # 2000 points in 20 dimensions, unequal scales
for n in (10, 100, 1000):
    rad = theory.rademacher_linear(X_r[:n], n_draws=1000, seed=SEED)
    print(
        f"n = {n:4d}: estimate {rad.estimate:.4f} ± {rad.stderr:.4f}, bound √(Σ‖x_i‖²)/n = "
        f"{rad.bound:.4f}, ratio {rad.estimate / rad.bound:.3f}"
    )
I = np.eye(50)
rad = theory.rademacher_linear(I, n_draws=200, seed=SEED)
print(
    f"50 orthonormal points: estimate {rad.estimate:.6f} = √50/50 = {np.sqrt(50) / 50:.6f}; "
    f"all 200 draws equal up to round-off: {bool(np.ptp(rad.samples) < 1e-12)}"
)
radk = theory.rademacher_kernel(gram("gaussian", X_r[:100], sigma=1.0), n_draws=1000, seed=SEED)
print(f"Gaussian kernel, n = 100: estimate {radk.estimate:.4f}, bound √(tr K)/n = {radk.bound:.4f} = 1/√100")

# %% [markdown]
# The estimate falls like $1/\sqrt n$ and its ratio to the bound stays between $1/\sqrt2 \approx
# 0.707$ and 1. For orthonormal points the bound is attained exactly: whatever the signs,
# $\|\sum_i\sigma_ie_i\|^2 = n$, so every draw gives $\sqrt n/n$ (this settles 09.c_orthonormal). With a kernel,
# $\|x\|^2$ becomes $k(x, x)$, so the bound is $\sqrt{\operatorname{tr}K}/n$: for the Gaussian
# kernel, $k(x, x) = 1$ and the bound is $1/\sqrt n$ for every sample. (Here the estimate nearly
# reaches it: the 20-dimensional points lie far apart on the scale of σ, so most off-diagonal
# entries of $K$ are small and the points are nearly orthonormal in feature space.)

# %%
from kmlteach.widgets.ch09 import make_rademacher_explorer

rad_view = make_rademacher_explorer(X_r, n=100)
show(
    rad_view,
    alt="Left: on log-log axes, the Monte-Carlo Rademacher estimates with error bars "
    "for n from 10 to 2000, lying between the bound and the bound divided by root "
    "two, all falling like one over root n. Right: the ratio of estimate to bound, "
    "between 0.7 and 1 for every n.",
)

# %% [markdown]
# **Move n** to read off the estimate, its standard error and the bound for each sample size.

# %%
# NBVAL_IGNORE_OUTPUT
rad_view

# %% [markdown]
# ## 6 · The margin bound (2.28), term by term (HSS2 §2.5.4)
#
# HSS2 assembles the pieces — the bound ψ ≥ χ, McDiarmid's inequality (2.24)–(2.25), the
# symmetrisation that brings in $R_n$, the contraction by the Lipschitz constant of ψ and
# (2.26) — into a rate for the soft-margin loss $\psi(\xi) = \max(0, 1 - \gamma\xi)$. For the
# empirical ψ-risk minimiser $f^n_{\psi,\mathcal F}$ over linear functions with $\|w\| \le W$, on
# data with $\|x\| \le R$ and root-mean-square length $r$, with probability at least $1 - \delta$,
# $$E[\chi(yf^n_{\psi,\mathcal F})] \le E[\chi(yf^*_\chi)] + \delta(\mathcal F, \psi)
# + \frac{4RW\gamma}{\sqrt n}\Big(\sqrt{-2\log\delta} + \frac rR + \sqrt{8\log2}\Big). \tag{2.28}$$
# Read it from left to right: the Bayes risk (nobody does better), the **approximation error**
# δ(F, ψ) of the class (HSS2 prints it without the ψ inside the expectations; it is the ψ-risk
# of the best $f$ in $\mathcal F$ minus the best ψ-risk overall), and the **estimation error**:
# a confidence term from McDiarmid, a complexity term from the Rademacher average of the linear
# class (4Wγ·r/√n) and a term for the offset $b$. The last three shrink like $1/\sqrt n$ and
# contain $R$, $W$, γ but not the dimension. We evaluate them for a soft-margin SVM trained on
# the ν-SVM data with the linear kernel.

# %%
svm_fit = soft_svm(X_nu, y_nu, 0.01, homogeneous=False)
W = float(np.linalg.norm(svm_fit.w))
R_nu = float(np.max(np.linalg.norm(X_nu, axis=1)))
r_nu = float(np.sqrt(np.mean(np.sum(X_nu**2, axis=1))))
print(f"W = ‖w‖ = {W:.3f}, R = {R_nu:.3f}, r = {r_nu:.3f}, γ = 1, δ = 0.05")
for n in (60, 10_000, 1_000_000):
    mb = theory.margin_bound(n=n, R=R_nu, W=W, gamma=1.0, r=r_nu, delta=0.05)
    print(
        f"n = {n:9,d}: confidence {mb.confidence:.4f} + complexity {mb.complexity:.4f} + "
        f"offset {mb.offset:.4f} = estimation term {mb.estimation:.4f}"
    )

# %% [markdown]
# At the $n = 60$ points we trained on, the estimation term is far above 1, so the bound says
# nothing about this classifier; it becomes informative only for very large samples. What it
# does say at every $n$ is *how* the guarantee scales: like $RW\gamma/\sqrt n$, the classical
# radius–margin quantity, never with the dimension of the feature space — which is why a
# Gaussian-kernel SVM, whose feature space is infinite-dimensional, can still generalise.

# %% [markdown]
# ## 7 · Lab: choosing ν on real data
#
# Section 3 gave ν a meaning: at a solution with ρ > 0 at most a fraction ν of the training
# points are margin errors and at least a fraction ν are support vectors. Here we use that
# meaning on real data, the breast-cancer set of chapters 01–02 (`kmlteach.datasets.breast_cancer`,
# Wolberg, Street and Mangasarian, CC BY 4.0): 569 tumours, 30 measurements of the cell nuclei
# in an image of each, $y = +1$ for malignant. 400 tumours, drawn at random, train and the other
# 169 test; the measurements are standardised with the training tumours' mean and standard
# deviation, and the kernel is Gaussian with σ = 15 in the course's convention
# $\exp(-\|x - x'\|^2/(2\sigma))$, kept fixed: two standardised tumours lie at a squared
# distance of about 60 on average (twice the 30 unit variances), so a typical pair has a kernel
# value near $e^{-2}$.
#
# **Predict first.** At ν = 0.2 the ν-SVM is trained on the 400 training tumours, and its
# solution has ρ > 0. Its training error — the fraction of training tumours on the wrong side
# of $f = 0$ — is (a) at most 0.2; (b) at most 0.1, half of ν; (c) not bounded by ν: ν bounds
# the margin errors, not the mistakes.

# %%
ask("09.c_nu_mistakes", "?")

# %%
from kmlteach.datasets import breast_cancer
from kmlteach.plots import OKABE_ITO, figure, label_axes

bc = breast_cancer()
order = np.random.default_rng(SEED).permutation(len(bc.y))
tr, te = order[:400], order[400:]
Z_bc = (bc.X - bc.X[tr].mean(axis=0)) / bc.X[tr].std(axis=0)
X_btr, y_btr, X_bte, y_bte = Z_bc[tr], bc.y[tr], Z_bc[te], bc.y[te]
sigma_bc = 15.0
n_pos = int(np.sum(y_btr > 0))
d2 = np.sum((X_btr[:, None, :] - X_btr[None, :, :]) ** 2, axis=-1)
print(f"mean squared distance between two training tumours: {d2.sum() / (400 * 399):.1f}")
print(
    f"{n_pos} malignant of 400 training tumours: ν can go up to 2 min(n+, n-)/n = {2 * min(n_pos, 400 - n_pos) / 400:.3f}"
)
nus = np.array([0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6])
fold = np.arange(400) % 5  # the training tumours are in random order already


def error(sol, X, y):
    """0-1 error of sign f (f = 0 counts as +1)."""
    return float(np.mean(np.where(sol.decision_function(X) >= 0, 1, -1) != y))


lab = []
print(f"{'ν':>5s} {'ρ':>7s} {'margin err.':>11s} {'SVs':>6s} {'training':>8s} {'5-fold CV':>9s} {'test':>6s}")
for nu in nus:
    sol = nu_svm(X_btr, y_btr, nu, kernel="gaussian", sigma=sigma_bc)
    cv = np.mean(
        [
            error(
                nu_svm(X_btr[fold != k], y_btr[fold != k], nu, kernel="gaussian", sigma=sigma_bc),
                X_btr[fold == k],
                y_btr[fold == k],
            )
            for k in range(5)
        ]
    )
    row = (
        len(sol.margin_errors) / 400,
        len(sol.support) / 400,
        error(sol, X_btr, y_btr),
        cv,
        error(sol, X_bte, y_bte),
    )
    lab.append(row)
    print(f"{nu:5.2f} {sol.rho:7.3f} {row[0]:11.3f} {row[1]:6.3f} {row[2]:8.3f} {row[3]:9.3f} {row[4]:6.3f}")
lab = np.array(lab)
print(
    f"margin errors <= ν <= support vectors in every row: {bool(np.all((lab[:, 0] <= nus) & (nus <= lab[:, 1])))}"
)
print(f"training error <= margin errors in every row: {bool(np.all(lab[:, 2] <= lab[:, 0]))}")
best = int(np.argmin(lab[:, 3]))
print(
    f"smallest 5-fold CV error at ν = {nus[best]:.2f}: test error {lab[best, 4]:.3f}, "
    f"{int(round(lab[best, 1] * 400))} support vectors"
)

fig, (ax, bx) = figure(11.5, 4.0, ncols=2)
ax.plot([0, 0.65], [0, 0.65], ":", color=OKABE_ITO["grey"], lw=1.5, label="ν")
ax.plot(nus, lab[:, 1], "o-", color=OKABE_ITO["green"], lw=2, label="support vectors")
ax.plot(nus, lab[:, 0], "x-", color=OKABE_ITO["vermillion"], lw=2, ms=8, label="margin errors")
ax.plot(nus, lab[:, 2], "s--", color=OKABE_ITO["black"], lw=1.2, ms=4, label="training errors")
ax.legend(fontsize=8, loc="upper left")
label_axes(ax, "ν", "fraction of the 400 training tumours", "the ν-property on real data")
bx.plot(nus, lab[:, 2], "s--", color=OKABE_ITO["black"], lw=1.2, ms=4, label="training")
bx.plot(nus, lab[:, 3], "o-", color=OKABE_ITO["blue"], lw=2, label="5-fold cross-validation")
bx.plot(nus, lab[:, 4], "^-", color=OKABE_ITO["orange"], lw=2, label="test (169 tumours)")
bx.axvline(nus[best], color=OKABE_ITO["grey"], lw=1, ls=":")
bx.legend(fontsize=8, loc="upper left")
label_axes(bx, "ν", "error", f"ν chosen by cross-validation: {nus[best]:.2f}")
show(
    fig,
    alt="Left: against ν from 0.02 to 0.6, the fraction of support vectors lies on or above the "
    "dotted diagonal and the fraction of margin errors on or below it, the two closing in on it "
    "as ν grows; the training error lies below both. Right: training, 5-fold cross-validation "
    f"and test errors against ν, all below 0.07; the cross-validation error is smallest at ν = "
    f"{nus[best]:.2f} (a dotted line), in a flat valley between about 0.05 and 0.2.",
)

# %% [markdown]
# In every row the training error is at most the fraction of margin errors, hence at most ν
# (this settles 09.c_nu_mistakes): a tumour on the wrong side has $y_if(x_i) < 0 < \rho$, so it
# is a margin error, and there are at most $\nu n$ of those. The bound is loose — at ν = 0.2
# only a few training tumours are misclassified — because most margin errors lie inside the
# band on the right side of $f = 0$.
#
# So ν is a knob with a meaning, and that meaning gives a first choice before any validation:
# ν must exceed the fraction of training points you expect on the wrong side (the training
# error can never exceed ν), and νn is a lower bound on the number of support vectors, that is
# on the kernel evaluations each prediction costs. Cross-validation then picks within that
# range: here a flat valley from about ν = 0.05 to 0.2, with the smallest CV error at the ν
# printed above. At the very small ν = 0.02 no training tumour is a margin error and the test
# error is higher; at large ν the band swallows a large part of the sample, the support
# vectors with it, and the errors grow again. Compare chapter 02, which chose λ and σ on the
# same data by cross-validation: its candidates for λ spanned powers of ten with no meaning of
# their own, while the candidates for ν are fractions of the sample.

# %% [markdown]
# ## 8 · Exercises
#
# Each exercise is checked on several inputs against a reference implementation.
# Stuck? `hint("09.xxx")`, then `hint("09.xxx", level=2)` and so on: three levels, from a
# nudge to close to code. The third level and `solution("09.xxx")` come with the solutions,
# when your course releases them (until then they say so).
#
# **Exercise 1 (one NORMA step).** The current function is $f_t = \sum_s$ `coef[s]` $k(x_s, \cdot)$
# and `k_row[s]` $= k(x_s, x_t)$. Return the coefficients of $f_{t+1}$ for the hinge loss
# $\max(0, 1 - y f)$ (derivative $-y$ if $y f < 1$, else 0): one longer than `coef`.

# %%
from kmlteach.exercises import check, hint, solution  # noqa: F401  (hint and solution: for the student to call)


def norma_step(coef, k_row, y_t, lam, eta):
    ### BEGIN SOLUTION
    f = coef @ k_row
    der = -y_t if y_t * f < 1 else 0.0
    return np.r_[(1 - eta * lam) * coef, -eta * der]
    ### END SOLUTION


check("09.norma_step", norma_step)

# %% [markdown]
# **Exercise 2 (the ν-property from a solution).** Given the dual solution `alpha`, the values
# `yf` $= y_if(x_i)$ and ρ, return the pair (fraction of margin errors, fraction of support
# vectors). Solvers stop at a tolerance: count a margin error when $y_if(x_i) < \rho - $ `tol`
# and a support vector when $\alpha_i >$ `tol`.


# %%
def nu_property(alpha, yf, rho, tol=1e-6):
    ### BEGIN SOLUTION
    return float(np.mean(yf < rho - tol)), float(np.mean(alpha > tol))
    ### END SOLUTION


check("09.nu_property", nu_property)

# %% [markdown]
# **Exercise 3 (a one-class decision value).** Return $f(z) = \sum_i\alpha_i
# \exp(-\|x_i - z\|^2/(2\sigma)) - \rho$ for every row $z$ of `Z` (an array of length $m$).


# %%
def oneclass_value(alpha, X, rho, sigma, Z):
    ### BEGIN SOLUTION
    D2 = ((Z[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    return np.exp(-D2 / (2 * sigma)) @ alpha - rho
    ### END SOLUTION


check("09.oneclass_value", oneclass_value)

# %% [markdown]
# **Exercise 4 (a Rademacher average and its bound).** Each row of `sigmas` is one draw of the
# signs $\sigma \in \{\pm1\}^n$. Return the pair (the average over the draws of
# $\|\frac1n\sum_i\sigma_ix_i\|$, the bound $\sqrt{\sum_i\|x_i\|^2}/n$ of (2.26)).


# %%
def rademacher(X, sigmas):
    ### BEGIN SOLUTION
    n = X.shape[0]
    estimate = np.linalg.norm(sigmas @ X, axis=1).mean() / n
    return estimate, np.sqrt((X**2).sum()) / n
    ### END SOLUTION


check("09.rademacher", rademacher)

# %% [markdown]
# **Exercise 5 (the dual (2.6) from the primal (2.5)).** Derive the dual on paper: write the
# Lagrangian of (2.5) with multipliers $\alpha_i \ge 0$ and $\eta_i \ge 0$, and set its
# derivatives in $w$, $b$, $\xi_i$ and ρ to zero. Each derivative gives one constraint on α.
# Then return the dual objective $\frac12\alpha^\top Q\alpha$ ($Q_{ij} = y_iy_jK_{ij}$) when α
# satisfies all the constraints you derived (each up to `tol`), and `np.inf` when it does not.


# %%
def nu_dual(alpha, K, y, nu, tol=1e-8):
    ### BEGIN SOLUTION
    n = len(alpha)
    if alpha.min() < -tol or alpha.max() > 1 + tol or abs(alpha.sum() - n * nu) > tol or abs(alpha @ y) > tol:
        return np.inf
    v = alpha * y
    return 0.5 * v @ K @ v
    ### END SOLUTION


check("09.nu_dual", nu_dual)

# %% [markdown]
# ## Summary
#
# * The gradient of a margin loss in an RKHS is a multiple of $k(x, \cdot)$ (or a few of them for
#   multiclass and structured losses); calibration (2.27) makes minimising a convex surrogate
#   consistent for the 0–1 loss.
# * NORMA is SGD on the instantaneous regularised risk: one new coefficient $-\eta_tl'_t$ per
#   point, old ones shrunk by $(1 - \eta_t\lambda)$, so a budget of the last τ terms loses
#   little; with λ = 0, the perceptron loss and a linear kernel it is the perceptron, with at
#   most $(R/\gamma)^2$ mistakes on separable data.
# * The ν-SVM and the one-class SVM replace $C$ by ν: the fraction of margin errors (points
#   outside) is at most ν and the fraction of support vectors at least ν; ν = 1 gives the
#   Parzen-window classifier or density, and each $C$ corresponds to a ν.
# * On real data (breast tumours) the ν-property holds row by row, the training error never exceeds
#   ν, and cross-validation picks ν in a flat valley whose values are fractions of the sample.
# * Rademacher averages of the linear unit ball are at most $\sqrt{\sum\|x_i\|^2}/n$; with the
#   margin bound (2.28) they give an $O(RW\gamma/\sqrt n)$ rate that ignores the dimension.
#
# This is the last chapter. Back to the start: [00 · Welcome](00-welcome.ipynb).

# %% [markdown]
# ## 9 · Recap quiz
#
# Five questions on this chapter. The list below is the static version; the widget after it
# checks your answers (or call `ask("09.q1", "a")` yourself).

# %%
from IPython.display import HTML, display

from kmlteach.exercises import quiz, quiz_html

display(HTML(quiz_html("09")))

# %%
# NBVAL_IGNORE_OUTPUT
quiz("09")

# %%
# Your progress in this chapter: a question counts with its first answer, a prediction
# explorer once, with the first answer it scores (its next questions are practice);
# kmlteach.progress() lists every chapter.
import kmlteach

kmlteach.progress("09")

# %% [markdown]
# ## Sources and further reading
#
# **Sources** (the short names used in this chapter):
#
# * **HSS2** = T. Hofmann, B. Schölkopf, A. J. Smola et al., chapters 1 (*Measuring Similarity with Kernels*, HSS1) and 2 (*Discriminative Models*, HSS2) of G. Bakır, T. Hofmann, B. Schölkopf, A. J. Smola, B. Taskar and S. V. N. Vishwanathan (eds.), *Predicting Structured Data*, MIT Press, 2007 (§2.2–2.5).
# * **HSS1** = chapter 1 of the same book, for the Parzen-window classifier ((1.6)–(1.7)).
#
# **Further reading** (classic references, beyond the course's sources):
#
# * J. Kivinen, A. J. Smola and R. C. Williamson, "Online learning with kernels", *IEEE Transactions on Signal Processing* 52(8), 2165–2176, 2004 — NORMA.
# * B. Schölkopf, A. J. Smola, R. C. Williamson and P. L. Bartlett, "New support vector algorithms", *Neural Computation* 12(5), 1207–1245, 2000 — the ν-SVM.
# * P. L. Bartlett and S. Mendelson, "Rademacher and Gaussian complexities: risk bounds and structural results", *Journal of Machine Learning Research* 3, 463–482, 2002.
# * P. L. Bartlett, M. I. Jordan and J. D. McAuliffe, "Convexity, classification, and risk bounds", *Journal of the American Statistical Association* 101(473), 138–156, 2006 — calibration.
