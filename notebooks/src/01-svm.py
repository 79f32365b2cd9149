# %% [markdown]
# # 01 · Margins and support vector machines
#
# [Open this chapter on Binder](https://mybinder.org/v2/gh/kmlteach/kmlteach/main?urlpath=lab/tree/notebooks/01-svm.ipynb)
#
# *Sources: UML §15 (support vector machines), UML §14 ex. 3 (the perceptron as subgradient
# descent), HSS2 §2.2.1 (perceptron, Novikoff's theorem), HSS2 §2.3.1 (soft margin and its dual).*
#
# *Notation: every symbol of the course, chapter by chapter, with the letters that change meaning flagged, is in the [glossary](../docs/glossary.md).*
#
# A linearly separable sample is separated by infinitely many halfspaces. Which one should we
# pick? The support vector machine picks the one that stays as far as possible from every
# training point, and this single idea — keep a *margin* — carries through the whole course.
#
# **You need:** chapter 00 (running cells, `check`, `hint`); vectors, dot products and norms;
# the idea of minimising a convex function (a gradient step).
#
# **You will be able to** (objectives):
# 1. compute the distance of a point to a hyperplane and the margin of a sample;
# 2. solve the hard-SVM and soft-SVM problems exactly and read off the support vectors;
# 3. run SGD for soft-SVM and compare its optimisation gap with a bound of order $\log T/(\lambda T)$;
# 4. relate the hinge, ramp and 0–1 losses;
# 5. check Novikoff's $(R/\gamma)^2$ mistake bound for the perceptron;
# 6. choose λ by cross-validation on real data without touching the test set.

# %%
import numpy as np
from IPython.display import HTML, display

from kmlteach import losses, svm
from kmlteach.datasets import separable
from kmlteach.exercises import ask, quiz, quiz_html
from kmlteach.plots import figure, show
from kmlteach.plots.ch01 import plot_losses, plot_novikoff, plot_sgd_gap, plot_svm
from kmlteach.widgets.ch01 import default_margin_points, soft_margin_points

SEED = 0
rng = np.random.default_rng(SEED)

# %% [markdown]
# ## 1 · Distances and margins
#
# A hyperplane is the set $\{v : \langle w, v\rangle + b = 0\}$. Projecting a point $x$ on the
# unit normal $w/\lVert w\rVert$ shows that its distance to the hyperplane is
#
# $$\operatorname{dist}(x) = \frac{|\langle w, x\rangle + b|}{\lVert w\rVert},$$
#
# which is UML's Claim 15.1 (stated there for $\lVert w\rVert = 1$). For a labelled point the
# *functional margin* $y(\langle w, x\rangle + b)$ is positive exactly when the point is on the
# correct side; divided by $\lVert w\rVert$ it becomes the *geometric margin*, a signed
# distance. The margin of $(w, b)$ on a whole sample is the smallest geometric margin.

# %%
X0, y0 = default_margin_points()
w0, b0 = np.array([1.0, -0.5]), 0.2
d = svm.distance_to_hyperplane(X0, w0, b0)
gm = svm.geometric_margins(X0, y0, w0, b0)
print("distance of the first three points:", ", ".join(f"{v:.3f}" for v in d[:3]))
print(f"margin of (w, b) on the sample:      {gm.min():.3f}  (point {int(np.argmin(gm))})")

# %% [markdown]
# ## 2 · Hard-SVM: the widest band
#
# Among the hyperplanes that separate the sample, hard-SVM returns the one whose margin is
# largest (UML (15.1): maximise $\min_i y_i(\langle w, x_i\rangle + b)$ over $\lVert w\rVert = 1$).
# Fixing the scale so that the closest points have functional margin 1 turns this into a
# quadratic program (UML (15.2); its homogeneous version without $b$ is (15.3)):
#
# $$\min_{w, b}\ \lVert w\rVert^2 \quad\text{s.t.}\quad y_i(\langle w, x_i\rangle + b) \ge 1\ \ (i = 1..m),$$
#
# whose solution has margin $1/\lVert w\rVert$. `svm.hard_svm` solves it exactly (through the
# dual: the closest points of the two classes' convex hulls, found by Wolfe's minimum-norm-point
# algorithm; no QP library needed) and refuses, with a clear error, samples that no hyperplane
# separates. The dual (section 3 writes it out) has one multiplier $\alpha_i \ge 0$ per
# constraint, that is, per training point, and the solver returns them too.
#
# **Predict first.** At the hard-SVM solution, which points have $\alpha_i > 0$?
# (a) every training point; (b) only points with $y_i(\langle w, x_i\rangle + b) = 1$, on the
# edge of the band; (c) only misclassified points; (d) the points farthest from the hyperplane.

# %%
ask("01.c_support", "?")  # replace "?" by your letter; section 3 gives the answer

# %% [markdown] tags=["slide-skip"]
# **Predict, then reveal.** The same hand-placed points, before anything is solved: select the
# points you think will sit on the edges of the widest band (the support vectors), then press
# **Reveal** to draw the hyperplane and its band; drag a point to get a new question. The
# readout keeps your score, and the next cell solves the problem for the starting points.

# %% tags=["slide-skip"]
# NBVAL_IGNORE_OUTPUT
from kmlteach.widgets.ch01 import make_margin_explorer

make_margin_explorer(predict=True)

# %%
res = svm.hard_svm(X0, y0)
print(f"w = ({res.w[0]:.4f}, {res.w[1]:.4f}),  b = {res.b:.4f}")
print(f"margin 1/||w|| = {res.margin:.4f};  support vectors: {res.support.tolist()}")
fm = y0 * (X0 @ res.w + res.b)
print(f"smallest functional margin = {fm.min():.6f}  (the constraints are tight on the support vectors)")

fig, ax = figure(5.2, 4.6)
plot_svm(X0, y0, res.w, res.b, res.support, ax=ax, title="max-margin hyperplane", xlim=(-3, 3), ylim=(-3, 3))
show(
    fig,
    alt=f"The {len(y0)} hand-placed points, circles for y = -1 on the left and triangles for "
    f"y = +1 on the right, the max-margin line between them with its grey margin band "
    f"of width {2 * res.margin:.2f}, and the {len(res.support)} support vectors on the "
    "band's edges circled.",
)

# %% [markdown]
# **Margin explorer.** Pick a point and move it. The black line is the max-margin hyperplane,
# the grey band its margin, circled points the support vectors; the orange dash-dotted line is
# the separator the perceptron (section 4) happens to find. Notice that moving a point that is
# *not* a support vector changes nothing — until it enters the band. Flip a label to make the
# sample inseparable and the hard-SVM problem has no solution.

# %%
# NBVAL_IGNORE_OUTPUT
from kmlteach.widgets.ch01 import make_margin_explorer

make_margin_explorer()

# %%
try:
    svm.hard_svm(np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]]), np.array([1.0, 1.0, -1.0, -1.0]))
except ValueError as err:
    print("XOR:", err)

# %% [markdown]
# ## 3 · Support vectors and duality
#
# Why do only a few points matter? For the homogeneous problem, the dual (UML (15.11)) is
#
# $$\max_{\alpha \ge 0}\ \sum_i \alpha_i - \tfrac12 \sum_{i,j} \alpha_i\alpha_j y_i y_j \langle x_i, x_j\rangle,
# \qquad w = \sum_i \alpha_i y_i x_i,$$
#
# (with a bias, the extra constraint $\sum_i \alpha_i y_i = 0$ appears). The solver returned one
# $\alpha_i$ per training point (`res.alpha`); the next cell prints them beside each point's
# margin $y_i(\langle w, x_i\rangle + b)$ and settles the question asked in section 2.

# %%
w_from_alpha = (res.alpha * y0) @ X0
print(f"w = sum_i alpha_i y_i x_i:  {np.allclose(w_from_alpha, res.w, atol=1e-10)}")
print(f"sum_i alpha_i y_i = 0:       {abs(np.sum(res.alpha * y0)) < 1e-10}")
print(" i   alpha_i   y_i(<w,x_i>+b)")
for i in range(len(y0)):
    print(f"{i:2d}  {res.alpha[i]:8.4f}   {fm[i]:8.4f}")

# %% [markdown]
# Only the points on the edge of the band, $y_i(\langle w, x_i\rangle + b) = 1$, have
# $\alpha_i > 0$. This is complementary slackness — the Fritz John / KKT conditions behind UML
# Theorem 15.8: $\alpha_i > 0$ only where the constraint is tight. So $w$ is a combination of
# the support vectors alone. This settles 01.c_support.
#
# Points with $\alpha_i = 0$ could be deleted without changing the solution (the cell below
# solves hard-SVM on the support vectors alone); this is the *sparsity* of SVMs, and the
# reason the dual is solved when $d$ is large or, in the next chapter, infinite.

# %%
res_sv = svm.hard_svm(X0[res.support], y0[res.support])
print(
    f"hard-SVM on the {len(res.support)} support vectors alone: the same w and b: "
    f"{np.allclose(res_sv.w, res.w, atol=1e-9) and abs(res_sv.b - res.b) < 1e-9}"
)

# %% [markdown]
# **The soft-margin dual.** Soft-SVM (section 6) has a dual of the same shape; the only change
# is a box on every $\alpha_i$ (HSS2 (2.4), written with $C = 1/(\lambda m)$ in the course's
# λ convention):
#
# $$\max_{\alpha}\ \sum_i \alpha_i - \tfrac12 \sum_{i,j} \alpha_i\alpha_j y_i y_j \langle x_i, x_j\rangle
# \quad\text{s.t.}\quad 0 \le \alpha_i \le C,\ \ \sum_i \alpha_i y_i = 0.$$
#
# The box comes from the slack variables: a point may violate its constraint, but then it
# pulls on $w$ with the capped force $\alpha_i = C$. KKT now sorts the points into three
# groups — $\alpha_i = 0$ (outside the band, $y_i f(x_i) \ge 1$), $0 < \alpha_i < C$ (exactly on
# the band's edge, $y_i f(x_i) = 1$) and $\alpha_i = C$ (inside the band or misclassified,
# $y_i f(x_i) \le 1$). The hard-margin dual is the case $C = \infty$. The cell checks all three
# statements on a non-separable sample.

# %%
lam_d = 0.1
Xd, yd = soft_margin_points()
sd = svm.soft_svm(Xd, yd, lam_d, homogeneous=False)
C = svm.lam_to_C(lam_d, len(yd))
fd = yd * (Xd @ sd.w + sd.b)
at0, free, atC = sd.alpha <= 1e-9, (sd.alpha > 1e-9) & (sd.alpha < C - 1e-9), sd.alpha >= C - 1e-9
print(
    f"C = 1/(λm) = {C:.4f};  every alpha_i in [0, C]: {bool(np.all((sd.alpha >= -1e-12) & (sd.alpha <= C + 1e-12)))}"
)
print(
    f"alpha_i = 0      : {int(at0.sum()):2d} points, all with y f(x) >= 1: {bool(np.all(fd[at0] >= 1 - 1e-6))}"
)
print(
    f"0 < alpha_i < C  : {int(free.sum()):2d} points, all with y f(x) = 1:  {bool(np.allclose(fd[free], 1, atol=1e-5))}"
)
print(
    f"alpha_i = C      : {int(atC.sum()):2d} points, all with y f(x) <= 1: {bool(np.all(fd[atC] <= 1 + 1e-6))}"
)
print(
    f"w = sum_i alpha_i y_i x_i: {np.allclose((sd.alpha * yd) @ Xd, sd.w, atol=1e-8)};  "
    f"sum_i alpha_i y_i = 0: {abs(float(np.sum(sd.alpha * yd))) < 1e-8}"
)

# %% [markdown]
# ## 4 · The perceptron and Novikoff's bound
#
# The batch perceptron (UML §9.1.2; HSS2 §2.2.1) starts at $w = 0$ and, while some example has
# $y_i\langle w, x_i\rangle \le 0$, adds $y_i x_i$ to $w$. (HSS2 prints "$\ge 0$ counts as
# correct"; from $w = 0$ that test never fires, so we use $\le 0$.) It finds *a* separator,
# not the widest one. Novikoff's theorem bounds the number of updates by $(R/\gamma)^2$, where
# $R = \max_i\lVert x_i\rVert$ and $\gamma$ is the best margin a homogeneous halfspace achieves
# — exactly the margin of `hard_svm(..., homogeneous=True)`. We try it on 40 random samples
# whose margins vary.

# %%
updates, bounds = [], []
for k in range(40):
    Xk, yk = separable(m=60, d=3, margin=float(rng.uniform(0.05, 0.8)), seed=100 + k)
    Xh = np.c_[Xk, np.ones(len(yk))]  # lift to (x, 1): a homogeneous separator in R^4
    hk = svm.hard_svm(Xh, yk, homogeneous=True)
    pk = svm.perceptron(Xh, yk)
    R = np.max(np.linalg.norm(Xh, axis=1))
    updates.append(pk.n_updates)
    bounds.append((R / hk.margin) ** 2)
updates, bounds = np.array(updates), np.array(bounds)
print(f"all samples within the bound: {bool(np.all(updates <= bounds))}")
print(f"largest ratio updates / bound: {np.max(updates / bounds):.3f}")
print(
    f"samples needing less than a tenth of the bound: {int(np.sum(updates < bounds / 10))} of {len(updates)}"
)

fig, ax = figure(5, 3.8)
plot_novikoff(updates, bounds, ax=ax)
show(
    fig,
    alt=f"One dot per random separable sample: the number of perceptron updates against "
    f"Novikoff's bound (R/gamma)^2, on log axes, with the dashed diagonal where they would "
    f"be equal; {'every dot lies on or below' if np.all(updates <= bounds) else 'some dots lie above'}"
    f" the diagonal, the largest ratio updates / bound is {np.max(updates / bounds):.2f}.",
)

# %% [markdown]
# The bound holds everywhere, and it is loose: no sample needs more than about a quarter of
# it, and half of them need less than a tenth. It is a worst case over all orders in which
# mistakes can be made.

# %% [markdown]
# ## 5 · Margin and dimension: how many examples hard-SVM needs
#
# Halfspaces in $\mathbb R^d$ have VC dimension $d + 1$, so a bound that only knows the class
# must ask for a number of examples that grows with $d$ (UML §15.1.2). What if the data also
# keep a margin from the separating hyperplane?
#
# The experiment: points uniform on the unit sphere of $\mathbb R^d$, labelled by a random unit
# $w^*$, with the points closer than $\gamma = 0.1$ to its hyperplane removed, so every point
# has norm 1 and margin at least 0.1 whatever the dimension. We train hard-SVM on $m$ points
# for $d = 20$ and $d = 200$ and measure its error on 2 000 fresh points (mean of 3 samples).
#
# **Predict first.** Same margin, ten times the dimension ($d = 20 \to 200$): the measured test
# errors, at every training set size $m$, (a) grow roughly tenfold; (b) stay within a few
# percentage points of each other; (c) are zero for every $m$.

# %%
ask("01.c_dimension", "?")

# %% [markdown]
# The theory first. Suppose the distribution is *$(\gamma, \rho)$-separable* (UML Definition
# 15.3): every $x$ has $\lVert x\rVert \le \rho$ and some unit $w^*$ gives every example
# $y\langle w^*, x\rangle \ge \gamma$ — the experiment's distribution is $(0.1, 1)$-separable in
# every dimension. Then UML Theorem 15.4 bounds the 0–1 error of the homogeneous hard-SVM by
#
# $$\sqrt{\frac{4(\rho/\gamma)^2}{m}} + \sqrt{\frac{2\log(2/\delta)}{m}}$$
#
# with probability at least $1 - \delta$ over a sample of size $m$. No $d$ appears: only the
# scale-free ratio $(\rho/\gamma)^2$ — the same quantity as in Novikoff's bound above. (UML
# §15.2.2 makes the same point for soft-SVM: its bound depends on $\lVert w\rVert$ and $\rho$,
# not on $d$.)


# %%
def sphere_with_margin(m, d, gamma, rng, w_star):
    """m points uniform on the unit sphere of R^d with |<w*, x>| >= gamma, labelled by w*."""
    X = np.empty((0, d))
    while X.shape[0] < m:
        Z = rng.normal(size=(4 * m, d))
        Z /= np.linalg.norm(Z, axis=1, keepdims=True)
        X = np.vstack([X, Z[np.abs(Z @ w_star) >= gamma]])
    X = X[:m]
    return X, np.sign(X @ w_star)


gamma_s, delta_s = 0.1, 0.05
ms = np.array([25, 50, 100, 200, 400, 800, 1600])
bound_s = np.sqrt(4 / gamma_s**2 / ms) + np.sqrt(2 * np.log(2 / delta_s) / ms)
errors = {}
for d in (20, 200):
    rng_d = np.random.default_rng(SEED + d)
    w_star = rng_d.normal(size=d)
    w_star /= np.linalg.norm(w_star)
    Xt, yt = sphere_with_margin(2000, d, gamma_s, rng_d, w_star)
    errors[d] = []
    for m in ms:
        e = []
        for _ in range(3):
            Xm, ym = sphere_with_margin(int(m), d, gamma_s, rng_d, w_star)
            wm = svm.hard_svm(Xm, ym, homogeneous=True).w
            e.append(np.mean(np.sign(Xt @ wm) != yt))
        errors[d].append(float(np.mean(e)))
print("    m    error d=20   error d=200   Theorem 15.4 bound (δ = 0.05)")
for i, m in enumerate(ms):
    print(f"{m:5d}    {errors[20][i]:9.3f}   {errors[200][i]:10.3f}   {bound_s[i]:8.3f}")

fig, ax = figure(6.2, 3.9)
ax.plot(ms, errors[20], "o-", color="#0072B2", label="measured error, d = 20")
ax.plot(ms, errors[200], "s--", color="#D55E00", label="measured error, d = 200")
ax.plot(ms, np.minimum(bound_s, 1.0), "k-", lw=2, label="Theorem 15.4 bound (capped at 1)")
ax.set_xscale("log")
ax.set_xlabel("training set size m")
ax.set_ylabel("0–1 test error")
ax.set_ylim(-0.02, 1.02)
ax.set_title(r"hard-SVM with margin $\gamma = 0.1$, $\rho = 1$: the dimension does not matter")
ax.legend(fontsize=9, loc="center right")
show(
    fig,
    alt=f"Test error against the training set size m on a log axis from {ms[0]} to {ms[-1]}: "
    f"the measured errors in dimension 20 and 200 start at {errors[20][0]:.2f} and "
    f"{errors[200][0]:.2f} and fall together to {errors[20][-1]:.2f} and "
    f"{errors[200][-1]:.2f}; the Theorem 15.4 bound, capped at 1, ends at "
    f"{min(bound_s[-1], 1.0):.2f}, far above both.",
)

# %% [markdown]
# Ten times the dimension, the same margin: the two error curves are close, as the
# theorem predicts — its bound is the same for both (this settles 01.c_dimension). The bound itself is far above the
# measured errors (it holds for *every* $(\gamma, \rho)$-separable distribution and every
# $\delta$) and only drops below 1 from about $m = 500$; what it gets right is what the error
# depends on.

# %% [markdown]
# ## 6 · Soft-SVM and the role of λ
#
# Real data are rarely separable. Soft-SVM lets constraints be violated and pays for it with
# the hinge loss. We write its objective as in UML (15.12), the form SGD minimises:
#
# $$F(w, b) = \frac{\lambda}{2}\lVert w\rVert^2 + \frac1m\sum_{i=1}^m \max\{0,\ 1 - y_i(\langle w, x_i\rangle + b)\}.$$
#
# (UML (15.6) writes $\lambda\lVert w\rVert^2$, so its $\lambda$ is half of ours; libraries write
# $\frac12\lVert w\rVert^2 + C\sum_i\xi_i$, i.e. $C = 1/(\lambda m)$.) `svm.soft_svm` returns the exact minimiser (dual coordinate descent to a duality gap below $10^{-8}$).
#
# **Predict first.** The figure below solves soft-SVM with λ = 0.003, 0.1 and 3. As λ grows, the
# margin width $2/\lVert w\rVert$ (a) shrinks; (b) grows; (c) stays the same.

# %%
ask("01.c_width", "?")

# %%
Xs, ys = soft_margin_points()
fig, axes = figure(12, 4.2, ncols=3)
widths = []
for ax, lam in zip(axes, (0.003, 0.1, 3.0)):
    r = svm.soft_svm(Xs, ys, lam, homogeneous=False)
    viol = int(np.sum(ys * (Xs @ r.w + r.b) < 1))
    widths.append(f"{2 / np.linalg.norm(r.w):.2f} with {viol} violations")
    plot_svm(
        Xs,
        ys,
        r.w,
        r.b,
        ax=ax,
        xlim=(-3, 3),
        ylim=(-3, 3),
        legend=(ax is axes[0]),
        title=f"$\\lambda$ = {lam}: width {2 / np.linalg.norm(r.w):.2f}, {viol} violations",
    )
show(
    fig,
    alt="Three panels, the same two overlapping clouds and the soft-SVM line with its margin "
    "band for lambda = 0.003, 0.1 and 3: the band widens from left to right (margin width "
    + ", then ".join(widths)
    + ").",
)

# %% [markdown]
# The band widens as λ grows: a larger λ weighs $\frac{\lambda}{2}\lVert w\rVert^2$ more, so
# $\lVert w\rVert$ shrinks and the margin $2/\lVert w\rVert$ grows, at the price of more
# violations. This settles 01.c_width. In the other direction, as $\lambda \to 0$ the problem
# approaches hard-SVM.
#
# **λ explorer.** Slide λ over four decades. Squares mark margin violations
# ($y f(x) < 1$); the readout tracks the margin width $2/\lVert w\rVert$, the violations, the
# training errors and the objective.

# %%
# NBVAL_IGNORE_OUTPUT
from kmlteach.widgets.ch01 import make_lambda_explorer

make_lambda_explorer()

# %% [markdown]
# ### Lab on real data: choosing λ by cross-validation
#
# On forty hand-placed points we can look at the band and judge λ by eye. On real data in 30
# dimensions we cannot, and the test set must not be the judge either: a test set that picked
# λ no longer measures the error of the classifier we ship. The standard recipe is *k-fold
# cross-validation* (UML §11.2.4, beyond this chapter's sources): cut the training sample into
# k folds; for every candidate λ, train on k − 1 folds and measure the accuracy on the fold
# left out; average over the k folds; keep the λ with the best average; then train once more on
# the whole training sample and look at the test set once.
#
# The data: the *Breast Cancer Wisconsin (Diagnostic)* set that ships with the course
# (`kmlteach.datasets.breast_cancer`, CC BY 4.0; `.citation` names its source): 569 tumours,
# each described by 30 measurements of its cell nuclei, label $+1$ for malignant. A stratified
# fifth (114 tumours) is set aside as the test set, the same split chapter 02 uses. The
# measurements come in very different units (areas of several hundred, smoothness near 0.1), so
# every split is standardised with the mean and standard deviation of its *training* folds
# only (`standardize`, a helper of chapter 02's package). The learner is the exact soft-SVM
# with a bias, for λ = 10⁻⁵, 10⁻⁴, …, 10; a larger λ buys a shorter $w$ with a worse fit of the
# training folds.
#
# **Predict first.** As λ grows from 10⁻⁵ to 10, the cross-validated accuracy (the mean over
# the five held-out folds) (a) falls from the start: the smallest λ fits best, so it predicts
# best; (b) first rises, then falls; (c) keeps rising: more regularisation is always safer.

# %%
ask("01.c_cv", "?")

# %%
from kmlteach.datasets import breast_cancer
from kmlteach.kernel_methods import kfold_indices, standardize

bc = breast_cancer()
test_bc = kfold_indices(bc.y, 5, seed=1) == 0  # a stratified fifth, set aside (as in chapter 02)
X_bc, y_bc = bc.X[~test_bc], bc.y[~test_bc]
folds = kfold_indices(y_bc, 5, seed=0)  # the 5 folds of the training sample
lams_cv = 10.0 ** np.arange(-5, 2)
fit_acc, cv_acc = np.zeros((len(lams_cv), 5)), np.zeros((len(lams_cv), 5))
for f in range(5):
    A, B = standardize(X_bc[folds != f], X_bc[folds == f])
    y_in, y_out = y_bc[folds != f], y_bc[folds == f]
    for a, lam_cv in enumerate(lams_cv):
        r = svm.soft_svm(A, y_in, lam_cv, homogeneous=False)
        fit_acc[a, f] = np.mean(np.where(A @ r.w + r.b >= 0, 1, -1) == y_in)
        cv_acc[a, f] = np.mean(np.where(B @ r.w + r.b >= 0, 1, -1) == y_out)
m_fold = int(np.sum(folds != 0))
print(
    f"{len(y_bc)} training tumours ({int(np.sum(y_bc == 1))} malignant) in 5 folds, "
    f"{int(test_bc.sum())} set aside"
)
print("      λ   C = 1/(λm)   accuracy on the training folds   cross-validated accuracy")
for a, lam_cv in enumerate(lams_cv):
    print(
        f"{lam_cv:7.0e}   {svm.lam_to_C(lam_cv, m_fold):9.3g}   {100 * fit_acc[a].mean():20.1f} %"
        f"   {100 * cv_acc[a].mean():17.1f} % ± {100 * cv_acc[a].std():.1f}"
    )
best_cv = int(np.argmax(np.round(cv_acc.mean(axis=1), 12)))
lam_best = float(lams_cv[best_cv])
print(f"chosen: λ = {lam_best:g} (C = {svm.lam_to_C(lam_best, m_fold):.3g} for m = {m_fold} examples)")

fig, ax = figure(6.4, 3.9)
for acc, style, name in [
    (fit_acc, "s--", "training folds"),
    (cv_acc, "o-", "held-out fold (cross-validated)"),
]:
    mean, sd = 100 * acc.mean(axis=1), 100 * acc.std(axis=1)
    col = "#0072B2" if acc is cv_acc else "#E69F00"
    ax.plot(lams_cv, mean, style, color=col, label=f"accuracy on the {name}")
    ax.fill_between(lams_cv, mean - sd, mean + sd, color=col, alpha=0.2, lw=0)
ax.plot(lam_best, 100 * cv_acc[best_cv].mean(), "k*", ms=16, label=f"chosen: λ = {lam_best:g}")
ax.set_xscale("log")
ax.set_xlabel("λ (log scale)")
ax.set_ylabel("accuracy (%), mean over 5 folds")
ax.set_title("linear soft-SVM on the breast-cancer data")
ax.legend(fontsize=9, loc="lower left")
show(
    fig,
    alt="Accuracy in percent against lambda on a log axis from 1e-5 to 10, mean over five folds "
    "with a band of one standard deviation: on the training folds it falls from "
    f"{100 * fit_acc[0].mean():.1f} to {100 * fit_acc[-1].mean():.1f}; on the held-out folds it "
    f"rises from {100 * cv_acc[0].mean():.1f} to {100 * cv_acc[best_cv].mean():.1f} at the "
    f"chosen lambda = {lam_best:g} (a black star), then falls to {100 * cv_acc[-1].mean():.1f}.",
)

# %% [markdown]
# The cross-validated accuracy first rises, then falls (this settles 01.c_cv). With a tiny λ the
# soft-SVM fits the training folds almost perfectly and does worse on the fold it did not see:
# it *overfits*. With a large λ the penalty $\frac\lambda2\lVert w\rVert^2$ dominates, $w$
# shrinks, and the predictor *underfits*: it is wrong on the training folds too. Near the top
# the differences are smaller than the spread over the folds, so the chosen λ is a good value
# rather than *the* best one. The last step trains on the whole training sample with the chosen
# λ and opens the test set, once:

# %%
A_bc, B_bc = standardize(X_bc, bc.X[test_bc])
final_bc = svm.soft_svm(A_bc, y_bc, lam_best, homogeneous=False)
pred_bc, y_te_bc = np.where(B_bc @ final_bc.w + final_bc.b >= 0, 1, -1), bc.y[test_bc]
print(
    f"test accuracy {100 * np.mean(pred_bc == y_te_bc):.1f} % ({int(np.sum(pred_bc == y_te_bc))} of "
    f"{len(y_te_bc)}); malignant tumours missed: {int(np.sum((pred_bc == -1) & (y_te_bc == 1)))} of "
    f"{int(np.sum(y_te_bc == 1))}"
)

# %% [markdown]
# A straight hyperplane in the 30 standardised measurements already separates the test tumours
# almost perfectly. Chapter 02 runs the same recipe on the same split with a Gaussian kernel,
# which can bend the boundary, and compares.

# %% [markdown]
# ## 7 · Hinge, ramp and 0–1 losses
#
# With $z = y\langle w, x\rangle$ the margin of one example, the 0–1 loss is $\mathbb 1[z \le 0]$.
# The hinge loss $\max(0, 1 - z)$ is a convex upper bound on it that vanishes for margins
# $\ge 1$, which is why soft-SVM is a convex program. How good an upper bound? Take any convex
# $\varphi \ge 0$ with $\varphi(z) = 0$ for $z \ge 1$ and $\varphi(0) \ge 1$ (so it lies above the
# 0–1 loss). On the mistakes, $z \le 0$, convexity through the points $0$ and $1$ forces
# $\varphi(z) \ge \varphi(0)(1 - z) \ge 1 - z$: no such surrogate is below the hinge there. On
# $0 < z < 1$ it can be: the squared hinge $\max(0, 1 - z)^2$ is smaller. So there is no smallest
# convex upper bound, but the hinge is the smallest one on every misclassified point (the cell
# below checks both facts). The ramp loss
# $\min\{1, \max(0, 1 - z)\}$ (UML §15.2.3) also upper-bounds the 0–1 loss but caps the
# penalty of a badly misclassified point at 1: it is robust to outliers and not convex. The
# logistic loss $\log(1 + e^{-z})$ and the exponential loss $e^{-z}$ (boosting, chapter 08) are
# other convex surrogates.

# %%
fig, ax = figure(6.4, 3.8)
plot_losses(ax=ax)
show(
    fig,
    alt="The 0-1, hinge, ramp, logistic and exponential losses against the margin z from "
    "-2.5 to 2.5: the 0-1 loss steps from 1 to 0 at z = 0, the hinge falls linearly to 0 "
    "at z = 1, the ramp is the hinge capped at 1, and the logistic and exponential "
    "losses decrease smoothly.",
)
z = np.array([-1.0, 0.0, 0.5, 1.0, 2.0])
for name in ("zero_one", "hinge", "ramp"):
    print(f"{name:>8}: " + "  ".join(f"{v:.2f}" for v in losses.LOSSES[name][0](z)))
zz = np.linspace(-3, 0.999, 400)
sq_hinge = np.maximum(0.0, 1 - zz) ** 2
print(
    f"squared hinge >= hinge on every z <= 0:   {bool(np.all(sq_hinge[zz <= 0] >= losses.hinge(zz[zz <= 0])))}"
)
print(
    f"squared hinge <  hinge on every 0 < z < 1: {bool(np.all(sq_hinge[zz > 0] < losses.hinge(zz[zz > 0])))}"
)

# %% [markdown]
# **Loss gallery.** Move the margin $z$ and read every loss and a subgradient there; at a kink
# (hinge at $z = 1$) any slope between the two one-sided derivatives is a subgradient.

# %%
# NBVAL_IGNORE_OUTPUT
from kmlteach.widgets.ch01 import make_loss_gallery

make_loss_gallery()

# %% [markdown]
# ## 8 · SGD for soft-SVM (UML §15.5)
#
# The procedure keeps a running sum $\theta$ of the sampled subgradient directions instead of
# $w$ itself:
#
# * $\theta^{(1)} = 0$; for $t = 1, \dots, T$: $w^{(t)} = \theta^{(t)}/(\lambda t)$; draw $i$
#   uniformly from $\{1..m\}$; if $y_i\langle w^{(t)}, x_i\rangle < 1$ set
#   $\theta^{(t+1)} = \theta^{(t)} + y_i x_i$, else $\theta^{(t+1)} = \theta^{(t)}$;
# * output $\bar w = \frac1T \sum_{t=1}^T w^{(t)}$.
#
# This is SGD with step size $\eta_t = 1/(\lambda t)$ on the homogeneous objective $F(w)$
# above: unrolling $w^{(t+1)} = w^{(t)} - \eta_t(\lambda w^{(t)} + v_t)$ gives exactly
# $w^{(t+1)} = -\frac{1}{\lambda t}\sum_{j\le t} v_j$. For a $\lambda$-strongly convex objective
# whose sampled subgradients have norm at most $\rho$, the expected gap of the average is at
# most $\frac{\rho^2}{2\lambda T}(1 + \ln T)$ (the SGD analysis of UML §14.5.3). Here
# $\lVert v_t\rVert \le R = \max_i\lVert x_i\rVert$ and $\lambda\lVert w^{(t)}\rVert \le R$, so
# $\rho = 2R$ and $c = \rho^2/2 = 2R^2$.
# We measure the gap against the exact minimiser for growing $T$, averaged over 5 seeds.

# %%
lam = 0.1
Xg, yg = soft_margin_points(m=200, seed=7)
exact = svm.soft_svm(Xg, yg, lam)
R = float(np.max(np.linalg.norm(Xg, axis=1)))
Ts = np.array([10, 100, 1_000, 10_000, 100_000])
gaps = []
for T in Ts:
    g = [svm.sgd_soft_svm(Xg, yg, lam, int(T), s).objective - exact.objective for s in range(5)]
    gaps.append(np.mean(g))
gaps = np.array(gaps)
c = 2 * R**2
bound = c * (1 + np.log(Ts)) / (lam * Ts)
for T, g, bd in zip(Ts, gaps, bound):
    print(f"T = {T:>7d}:  gap = {g:.2e}   bound = {bd:.2e}")

fig, ax = figure(6, 3.8)
plot_sgd_gap(Ts, gaps, bound, ax=ax, title=f"$\\lambda$ = {lam}, m = {len(yg)}, c = 2R² = {c:.1f}")
show(
    fig,
    alt=f"Log-log plot against the number of SGD steps T from {Ts[0]} to {Ts[-1]}: the "
    f"measured objective gap falls from {gaps[0]:.1e} to {gaps[-1]:.1e} and "
    f"{'stays below' if np.all(gaps < bound) else 'is not always below'} the bound c(1 + log T)/(lambda T), which falls from {bound[0]:.1e} to {bound[-1]:.1e}.",
)

# %% [markdown]
# **SGD explorer.** The exact minimiser (black) against SGD's averaged output (orange) after
# $T$ steps; try different seeds at small $T$ to see the randomness, then increase $T$.

# %%
# NBVAL_IGNORE_OUTPUT
from kmlteach.widgets.ch01 import make_sgd_explorer

make_sgd_explorer()

# %% [markdown]
# ## 9 · Exercises
#
# Each exercise is checked against the reference implementation on several inputs.
# Stuck? `hint("01.xxx")`, then `hint("01.xxx", level=2)` and so on: three levels, from a
# nudge to close to code. The third level and `solution("01.xxx")` come with the solutions,
# when your course releases them (until then they say so).
# The time estimates are on the course map (chapter 00).
#
# **Exercise 1 (distance).** Return the Euclidean distance of `x` to the hyperplane
# $\langle w, v\rangle + b = 0$ (Claim 15.1, for any non-zero $w$).

# %%
from kmlteach.exercises import check, hint, solution  # noqa: F401  (hint and solution: for the student to call)


def distance(x, w, b):
    ### BEGIN SOLUTION
    return abs(np.dot(w, x) + b) / np.linalg.norm(w)
    ### END SOLUTION


check("01.distance", distance)

# %% [markdown]
# **Exercise 2 (hinge).** Return the pair (loss, subgradient) for the hinge loss of a single
# example as a function of $w$: $\max(0, 1 - y\langle w, x\rangle)$ and a subgradient with
# respect to $w$ — the one SGD uses: $-yx$ when $y\langle w, x\rangle < 1$, else $0$.


# %%
def hinge_and_subgradient(w, x, y):
    ### BEGIN SOLUTION
    z = y * np.dot(w, x)
    if z < 1:
        return 1 - z, -y * x
    return 0.0, np.zeros_like(x)
    ### END SOLUTION


check("01.hinge", hinge_and_subgradient)

# %% [markdown]
# **Exercise 3 (one SGD step).** Implement step $t$ of SGD for soft-SVM: given $\theta^{(t)}$,
# $t$, $\lambda$ and the drawn example $(x, y)$, return $(w^{(t)}, \theta^{(t+1)})$.


# %%
def sgd_step(theta, t, lam, x, y):
    ### BEGIN SOLUTION
    w = theta / (lam * t)
    if y * np.dot(w, x) < 1:
        return w, theta + y * x
    return w, theta.copy()
    ### END SOLUTION


check("01.sgd_step", sgd_step)

# %% [markdown]
# **Exercise 4 (batch perceptron).** Start from $w = 0$; while some $i$ has
# $y_i\langle w, x_i\rangle \le 0$, update with the *first* such $i$. Return $w$ (the inputs are
# separable, so the loop ends).


# %%
def batch_perceptron(X, y):
    ### BEGIN SOLUTION
    w = np.zeros(X.shape[1])
    while True:
        bad = np.flatnonzero(y * (X @ w) <= 0)
        if bad.size == 0:
            return w
        w = w + y[bad[0]] * X[bad[0]]
    ### END SOLUTION


check("01.perceptron", batch_perceptron)

# %% [markdown]
# **Exercise 5 (perceptron as subgradient descent, UML §14 ex. 3).** For a separable sample,
# $f(w) = \max_i (1 - y_i\langle w, x_i\rangle)$ is convex and $f(w) < 1$ means $w$ separates.
# Return a subgradient of $f$ at $w$ — the gradient of the first term attaining the maximum.
# (Subgradient descent with this direction updates $w \leftarrow w + \eta\, y_{i^*}x_{i^*}$:
# a perceptron that always corrects the *worst* example.)


# %%
def max_margin_subgradient(w, X, y):
    ### BEGIN SOLUTION
    i = np.argmax(1 - y * (X @ w))
    return -y[i] * X[i]
    ### END SOLUTION


check("01.subgradient_perceptron", max_margin_subgradient)

# %% [markdown]
# **Exercise 6 (derivation: the hard-SVM dual, UML §15.4).** Section 3 used the dual without
# deriving it; do it now for the homogeneous problem $\min_w \tfrac12\lVert w\rVert^2$ s.t.
# $y_i\langle w, x_i\rangle \ge 1$ (the factor ½ changes no minimiser). With multipliers
# $\alpha_i \ge 0$ the Lagrangian is
#
# $$L(w, \alpha) = \tfrac12\lVert w\rVert^2 + \sum_i \alpha_i\,(1 - y_i\langle w, x_i\rangle).$$
#
# Minimise it over $w$ on paper (set $\nabla_w L = 0$), substitute the minimiser back, and code the
# two results: return `(w, D)` with $w(\alpha)$ the minimiser and $D(\alpha) = \min_w L(w, \alpha)$,
# for any $\alpha \ge 0$. At the solver's $\alpha$, $D$ equals $\tfrac12\lVert w^*\rVert^2$
# (strong duality); the cell after the check confirms it on the sample of section 2.


# %%
def dual_from_alpha(X, y, alpha):
    ### BEGIN SOLUTION
    w = (alpha * y) @ X
    return w, alpha.sum() - 0.5 * w @ w
    ### END SOLUTION


check("01.dual", dual_from_alpha)

# %%
res_h = svm.hard_svm(X0, y0, homogeneous=True)
D_star = float(np.sum(res_h.alpha) - 0.5 * res_h.w @ res_h.w)
print(
    f"homogeneous hard-SVM on section 2's sample: primal ½||w||² = {0.5 * res_h.w @ res_h.w:.6f}, "
    f"dual D(alpha) = {D_star:.6f}"
)

# %% [markdown]
# ## Summary
#
# * The distance to a hyperplane is $|\langle w, x\rangle + b|/\lVert w\rVert$; the margin of a
#   sample is the smallest such (signed) distance.
# * Hard-SVM maximises the margin; with the scaling "closest functional margin = 1" it is the
#   QP $\min\lVert w\rVert^2$ s.t. $y_i(\langle w, x_i\rangle + b) \ge 1$, and its solution is a
#   combination of the support vectors only.
# * Soft-SVM trades margin against hinge loss through λ; SGD solves it with steps
#   $1/(\lambda t)$ and an averaged output; its expected optimisation gap is bounded by a
#   constant times $\log T/(\lambda T)$.
# * The perceptron finds some separator within $(R/\gamma)^2$ updates.
# * On real data λ is chosen by cross-validation, never by the test set: on the breast-cancer
#   tumours the held-out accuracy first rises with λ (less overfitting), then falls
#   (underfitting).
#
# Next: [02 · Kernels](02-kernels.ipynb) — the same algorithms, in a feature space we never
# have to build.

# %% [markdown]
# ## Recap quiz
#
# Five questions on this chapter, listed here; the widget below checks your choice (or type
# `ask("01.q3", "a")` in a cell — a numeric question takes a number, as in `ask("01.q1", 2.5)`).

# %%
display(HTML(quiz_html("01")))

# %%
# NBVAL_IGNORE_OUTPUT
quiz("01")

# %%
# Your progress in this chapter: a question counts with its first answer, a prediction
# explorer once, with the first answer it scores (its next questions are practice);
# kmlteach.progress() lists every chapter.
import kmlteach

kmlteach.progress("01")

# %% [markdown]
# ## Sources and further reading
#
# **Sources** (the short names used in this chapter):
#
# * **UML** = S. Shalev-Shwartz and S. Ben-David, *Understanding Machine Learning: From Theory to Algorithms*, Cambridge University Press, 2014 (ch. 15, and ch. 14 ex. 3).
# * **HSS2** = T. Hofmann, B. Schölkopf, A. J. Smola et al., chapters 1 (*Measuring Similarity with Kernels*, HSS1) and 2 (*Discriminative Models*, HSS2) of G. Bakır, T. Hofmann, B. Schölkopf, A. J. Smola, B. Taskar and S. V. N. Vishwanathan (eds.), *Predicting Structured Data*, MIT Press, 2007 (§2.2.1, §2.3.1).
#
# **Further reading** (classic references, beyond the course's sources):
#
# * C. Cortes and V. Vapnik, "Support-vector networks", *Machine Learning* 20(3), 273–297, 1995 — the soft-margin SVM.
# * A. B. J. Novikoff, "On convergence proofs on perceptrons", *Proceedings of the Symposium on the Mathematical Theory of Automata*, 1962 — the (R/γ)² bound.
# * S. Shalev-Shwartz, Y. Singer, N. Srebro and A. Cotter, "Pegasos: primal estimated sub-gradient solver for SVM", *Mathematical Programming* 127(1), 3–30, 2011 — the SGD of §8 and its analysis.
