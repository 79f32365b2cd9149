# %% [markdown]
# # 04 · Multiclass classification
#
# [Open this chapter on Binder](https://mybinder.org/v2/gh/kmlteach/kmlteach/main?urlpath=lab/tree/notebooks/04-multiclass.ipynb)
#
# *Sources: UML §17.1 (one-versus-all, all-pairs, Example 17.1), UML §17.2 (linear multiclass
# predictors, class-sensitive feature maps, cost-sensitive losses, the generalized hinge loss,
# SGD and the multiclass SVM), UML exercise 17.2 (multiclass perceptron), the lecture slides on
# multiclass learning and Kesler's construction (SL), HSS2 §2.2.1 (Collins' perceptron).
# Error-correcting output codes come from Dietterich & Bakiri (1995), which the sources only name.*
#
# *Notation: every symbol of the course, chapter by chapter, with the letters that change meaning flagged, is in the [glossary](../docs/glossary.md).*
#
# So far every classifier had two labels. With $k$ labels there are two roads: reuse binary
# learners through a *reduction*, or build one predictor that scores every label and returns
# the best one. This notebook walks both roads and compares them on a small picture where
# the difference can be proved.
#
# **You need:** chapter 01 (linear predictors, the hinge loss, SGD and the perceptron); the
# kernels of chapters 02–03 are not used here.
#
# **You will be able to:**
# 1. reduce a multiclass problem to binary ones (one-vs-all, all pairs with votes or a
#    tournament, output codes) and say how each breaks ties;
# 2. compare, on UML's Example 17.1, one-vs-all with a linear multiclass predictor, and
#    explain the difference;
# 3. write a linear multiclass predictor with a class-sensitive feature map $\Psi$ and a cost
#    matrix $\Delta$, and train it with the generalized hinge loss by SGD, and compare it with
#    one-vs-all on real data (handwritten digits);
# 4. turn a multiclass sample into one binary problem with Kesler's construction and train
#    the multiclass perceptrons.

# %%
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import HTML, display

from kmlteach import multiclass as mc
from kmlteach.datasets import example_17_1_weights, three_balls
from kmlteach.exercises import ask, quiz, quiz_html
from kmlteach.plots import show
from kmlteach.plots.ch04 import (
    grid_points,
    plot_classes,
    plot_code,
    plot_constraint_scores,
    plot_kesler_example,
    plot_linear_regions,
    plot_ova,
    plot_pairwise,
    plot_regions,
)
from kmlteach.widgets.ch04 import kesler_points, ring_classes

SEED = 0
rng = np.random.default_rng(SEED)

# %% [markdown]
# ## 1 · Reductions to binary problems (UML §17.1)
#
# Number the labels $1, \dots, k$.
#
# * **One-vs-all** trains $k$ binary classifiers; classifier $h_i$ sees the examples of class
#   $i$ as $+1$ and everything else as $-1$. A new point gets
#   $h(x) \in \operatorname{argmax}_i h_i(x)$ (UML (17.1)). If the $h_i$ only say $\pm 1$,
#   several may say $+1$ (or none), and a tie rule is needed: we always take the smallest
#   index, as UML suggests. If they return a confidence, such as $\langle w_i, x\rangle$, the
#   argmax runs on the confidences and ties become rare.
# * **All pairs** trains one classifier $h_{ij}$ for every pair $i < j$, on the examples of
#   these two classes only ($+1$ for $i$, $-1$ for $j$). UML predicts the class with the most
#   pairwise wins; the slides add a knock-out *tournament* as a second way to decide.
#
# `kmlteach.multiclass` implements both for **any** binary learner: a scikit-learn-style
# estimator (it is copied for every sub-problem) or a plain function `learner(X, y) -> scorer`.
# Here we plug in two tiny learners shipped with the chapter: least squares on $\pm1$ targets
# (with a tiny ridge penalty λ = 10⁻³, `mc.least_squares_learner`; real-valued scores) and
# decision stumps ($\pm1$ only).

# %%
X4, y4 = ring_classes(k=4, m_per_class=40, seed=1)
_ties = lambda m: f"{int(m.tie_mask(X4).sum())} tie" + ("" if int(m.tie_mask(X4).sum()) == 1 else "s")
for name, learner in [("least squares", mc.least_squares_learner), ("stumps", mc.stump_learner)]:
    ova = mc.one_vs_all(X4, y4, learner)
    ava = mc.all_pairs(X4, y4, learner)
    print(
        f"{name:>13}: one-vs-all accuracy {ova.score(X4, y4):.3f} "
        f"({_ties(ova)}), all pairs {ava.score(X4, y4):.3f} ({_ties(ava)})"
    )

# %% [markdown]
# With least-squares scores no training point ties in the one-vs-all argmax (real-valued
# scores rarely tie); with stumps, 30 training points get the same answer from several
# classifiers and the smallest-index rule decides. Ties are not
# a corner case for reductions built on $\pm 1$ classifiers: they are where the reduction
# stops knowing the answer.

# %% [markdown]
# ## 2 · Example 17.1: one-vs-all on three classes in a row
#
# UML's Example 17.1 places three classes in disjoint balls on a line, the middle one
# (class 2) carrying 20 % of the mass and the outer ones 40 % each, and runs one-vs-all with
# an *exact* ERM learner over halfspaces.

# %% [markdown]
# **Predict first.** UML Example 17.1: three classes in a row, the middle one (class 2)
# holding 20 % of the mass. One-vs-all with an exact ERM learner over halfspaces; a tie
# between the binary classifiers is broken by the numerical value of the class label (the
# smallest label wins). Which fraction of the class-2 points does it classify correctly?
#
# * (a) all of them
# * (b) about half of them
# * (c) none of them
# * (d) it depends on the random sample
#
# Replace `"?"` by your letter and run the cell; the text after the next widget reveals the
# answer.

# %%
ask("04.c_ova", "?")

# %% [markdown] tags=["slide-skip"]
# **Predict, then reveal.** The widget starts on a sample of this example. Predict which class
# one-vs-all gets most wrong (or none), then press **Reveal** to draw its regions in the left
# panel. Move class 2 off the line or shrink it for a new question; the readout keeps your
# score. Leave its mass below one third for now: what a heavier class 2 does is a question
# of its own further down.

# %% tags=["slide-skip"]
# NBVAL_IGNORE_OUTPUT
from kmlteach.widgets.ch04 import make_ova_failure

make_ova_failure(predict=True)

# %% [markdown]
# For "class 2 against the rest", every halfspace that
# captures some of class 2 also captures at least as much of classes 1 or 3, so the best
# halfspace says $-1$ everywhere. The three classifiers then all say $-1$ on class 2, the tie
# goes to class 1, and class 2 is never predicted. The cell below checks it on a sample; this
# settles 04.c_ova.
#
# `datasets.three_balls(n, seed)` builds this sample so that the argument holds *exactly* on
# the finite sample: each class-2 point is the midpoint of two pairs of points, one of class 1
# and one of class 3, so a halfspace containing $k$ class-2 points contains at least $2k$
# others. `mc.erm_halfspace_2d` is an exact ERM over halfspaces in the plane (it tries every
# line through two sample points, which is enough).

# %%
X, y = three_balls(100, seed=SEED)
print("class counts:", np.bincount(y)[1:].tolist())
erm2 = mc.erm_halfspace_2d(X, np.where(y == 2, 1.0, -1.0))
print(f"ERM for 'class 2 vs rest': constant = {erm2.constant}, training mistakes = {erm2.errors}")
ova = mc.one_vs_all(X, y, mc.erm_halfspace_2d)
pred = ova.predict(X)
print(
    f"one-vs-all: class-2 error {np.mean(pred[y == 2] != 2):.0%}, "
    f"overall error {np.mean(pred != y):.0%}, tied points {int(ova.ties.sum())}"
)
W_book = example_17_1_weights()
print("book's w1, w2, w3:", np.round(W_book, 4).tolist())
print(f"argmax_i <w_i, x> error: {np.mean(np.argmax(X @ W_book.T, axis=1) + 1 != y):.0%}")

fig, axes = plt.subplots(1, 2, figsize=(11, 4.4), layout="constrained")
plot_ova(X, y, ova, ax=axes[0], title="one-vs-all with ERM halfspaces (grey: tie)")
plot_linear_regions(W_book, X, y, ax=axes[1], title="argmax of the book's $w_1, w_2, w_3$")
show(
    fig,
    alt="Two scatter plots of the same three classes in a row (class 1 left, class 2 in the "
    "middle, class 3 right). Left: one-vs-all with ERM halfspaces; the dashed boundaries of h1 "
    "and h3 enclose a grey tied strip that covers all of class 2, so class 2 is never predicted. "
    f"Right: the cones of the book's w1, w2, w3 from the origin, with training error "
    f"{np.mean(np.argmax(X @ W_book.T, axis=1) + 1 != y):.0%}.",
)

# %% [markdown]
# On the left, $h_1$ and $h_3$ are the dashed lines and $h_2$ is the constant $-1$: the grey
# strip is where all three classifiers say $-1$, and the tie hands it to class 1. On the right,
# the three weight vectors of the example split the upper half-plane into three cones, one per
# class: the class of linear multiclass predictors contains a perfect predictor, the
# reduction just does not find it.

# %% [markdown]
# **Predict first.** Keep class 2 on the line between classes 1 and 3 but let its mass grow
# above one third. What does the ERM halfspace for 'class 2 against the rest' become?
#
# * (a) still the constant −1
# * (b) a halfspace that cuts class 2 off alone
# * (c) a halfspace that puts class 2 together with an outer class on the + side
# * (d) the constant +1
#
# Replace `"?"` by your letter and run the cell; the text and the widget below reveal the
# answer.

# %%
ask("04.c_mass", "?")

# %% [markdown]
# **Widget.** Move class 2 off the line, shrink it, or make it heavier, and watch which class
# one-vs-all gets wrong. The right panel is SGD for multiclass learning (section 6) on the
# same sample.
#
# <details><summary>Answer and why</summary>
#
# Lifting class 2 out of the row lets a halfspace cut it off; a mass above one third makes
# "class 2 and class 3 against class 1" a better halfspace than the constant one, and the
# failure moves elsewhere. Setting the mass of class 2 above one third settles 04.c_mass.
#
# </details>

# %%
# NBVAL_IGNORE_OUTPUT
from kmlteach.widgets.ch04 import make_ova_failure

make_ova_failure()

# %% [markdown]
# ## 3 · All pairs: votes, tournaments and ties
#
# With $\pm 1$ pairwise classifiers the vote counts are small integers, and two or more
# classes often win the same number of contests (the slides' "1 red, 2 yellow, 2 green").
# The figure shows five classes in a ring, with decision stumps as the binary learner: dark
# cells are points where the vote ties. A tournament never ties in this sense, but its
# answer depends on the bracket; the right panel shows where it disagrees with the vote.
# (scikit-learn's `OneVsOneClassifier` also votes but breaks ties with summed confidences, so
# it agrees with our vote except on tied points; the tests measure this.)

# %%
X5, y5 = ring_classes(k=5, m_per_class=30, seed=SEED)
ava5 = mc.all_pairs(X5, y5, mc.stump_learner)
lim = ((-6.5, 6.5), (-6.0, 6.0))
G = grid_points(*lim, 160)
vote, tour = ava5.decide(G, "vote"), ava5.decide(G, "tournament")
print(f"vote: {vote.ties.mean():.1%} of the plane tied; rule: {vote.rule}")
print(f"vote and tournament disagree on {np.mean(vote.index != tour.index):.1%} of the plane")
dec5 = ava5.decide(X5)
print(
    f"training points with a tied vote: {int(dec5.ties.sum())}; e.g. votes of the first one:",
    dec5.scores[np.argmax(dec5.ties)].tolist(),
)

fig, axes = plt.subplots(1, 2, figsize=(11, 4.6), layout="constrained")
plot_pairwise(X5, y5, ava5, ax=axes[0], xlim=lim[0], ylim=lim[1])
plot_regions(tour.index, *lim, ax=axes[1], ties=vote.index != tour.index)
plot_classes(X5, y5, ax=axes[1])
axes[1].set_title("tournament (dark: differs from the vote)")
axes[1].set_xlabel("$x_1$")
axes[1].set_ylabel("$x_2$")
show(
    fig,
    alt=f"Two region plots of five classes placed on a ring. Left: all pairs with the "
    f"majority vote; the dark grey tied cells cover {vote.ties.mean():.1%} of the plane, near the "
    f"centre. Right: the knock-out tournament on the same classifiers; dark cells mark the "
    f"{np.mean(vote.index != tour.index):.1%} of the plane where it differs from the vote.",
)

# %% [markdown]
# **Widget.** Switch learner and decision rule, and drag class 1 around. Least-squares
# classifiers have real-valued scores, but the vote only uses their signs, so ties remain —
# they just shrink to the small polygons where three boundaries do not meet in one point.

# %%
# NBVAL_IGNORE_OUTPUT
from kmlteach.widgets.ch04 import make_ava_ties

make_ava_ties()

# %% [markdown]
# ## 4 · Error-correcting output codes (Dietterich & Bakiri 1995)
#
# *This section goes beyond the course sources, which only mention the idea.* Give every class
# a codeword in $\{-1, +1\}^L$, the rows of a code matrix $M$. Column $l$ defines a binary
# problem (relabel each example of class $c$ with $M_{cl}$); one classifier per column
# predicts a bit, and a new point gets the class whose codeword is closest in Hamming
# distance. One-vs-all is the identity code; codes whose rows are far apart tolerate wrong
# bits: with minimum distance $d$, up to $\lfloor (d-1)/2 \rfloor$ wrong bits are corrected.
# The *exhaustive* code of Dietterich & Bakiri uses all $2^{k-1} - 1$ distinct splits.

# %%
code = mc.ecoc_code(4, "exhaustive")
dist = (code[:, None, :] != code[None, :, :]).sum(axis=2)
print("minimum distance between codewords:", int(dist[~np.eye(4, dtype=bool)].min()))
for name, c in [("one-vs-all code", "ova"), ("exhaustive code", code)]:
    model = mc.ecoc(X4, y4, mc.stump_learner, code=c)
    print(
        f"{name:>16}: {model.code.shape[1]} binary problems, training accuracy "
        f"{model.score(X4, y4):.3f}, ties {int(model.tie_mask(X4).sum())}"
    )

fig, ax = plt.subplots(figsize=(5.5, 2.4), layout="constrained")
plot_code(code, ax=ax, title="exhaustive code for k = 4 (rows: codewords)")
show(
    fig,
    alt=f"The exhaustive code matrix for four classes as a {code.shape[0]} by {code.shape[1]} "
    "grid of plus and minus signs, one row per class and one column per binary problem; "
    "any two rows differ in at least four columns.",
)

# %% [markdown]
# ## 5 · Linear multiclass predictors (UML §17.2)
#
# Instead of $k$ separate problems, score every pair (input, label) with one weight vector:
# a *class-sensitive feature map* $\Psi(x, y) \in \mathbb{R}^d$ and
# $h_w(x) = \operatorname{argmax}_y \langle w, \Psi(x, y)\rangle$. Two maps from §17.2.1:
#
# * the **multivector** map (17.2) puts $x$ into block $y$ of a vector of $k$ blocks, so
#   $w = [w_1; \dots; w_k]$ and $\langle w, \Psi(x, y)\rangle = \langle w_y, x\rangle$ — one
#   weight vector per class, exactly the form of Example 17.1's predictor;
# * the **TF-IDF** map weighs the word counts of a document by how rare each word is *outside*
#   topic $y$: $\Psi_j(x, y) = \mathrm{TF}(j, x)\log\frac{m}{\mathrm{DF}(j, y)}$. Here $m$ is
#   the number of training documents, $\mathrm{TF}(j, x)$ the number of times word $j$ occurs
#   in $x$, and — as UML §17.2.1 defines it — $\mathrm{DF}(j, y)$ is the number of
#   **occurrences** of word $j$ in the training documents whose topic is *not* $y$ (a count of
#   occurrences, not of documents, despite its name). Its dimension does not grow with the
#   number of topics. (The book's formula divides by zero for a word that never appears
#   outside a topic; we add 1 to DF by default: $\log\frac{m}{\mathrm{DF}(j, y) + 1}$.)

# %%
psi = mc.MultivectorPsi(n_classes=3, n_features=2)
x = np.array([1.0, 2.0])
print("Psi(x, y) for y = 0, 1, 2 (0-based):")
print(psi.all(x))
W = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
print("<w, Psi(x, y)> =", (psi.all(x) @ W.ravel()).tolist(), " W @ x =", (W @ x).tolist())

words = ["goal", "match", "vote", "party", "the"]
TF = np.array([[3, 2, 0, 0, 4], [2, 3, 0, 1, 5], [0, 0, 3, 2, 4], [0, 1, 2, 3, 6]], dtype=float)
topics = ["sport", "sport", "politics", "politics"]
tfidf = mc.TfidfPsi(TF, topics)
doc = np.array([1.0, 0.0, 0.0, 0.0, 2.0])  # "goal the the"
for c, topic in enumerate(tfidf.classes):
    v = tfidf(doc, c)
    print(
        f"Psi('goal the the', {topic:>8}) =",
        (np.round(v, 3) + 0.0).tolist(),
        f"  sum (w = all ones): {v.sum():.3f}",
    )
print(f"m = {TF.shape[0]} documents; DF(j, y) = occurrences outside topic y:")
for c, topic in enumerate(tfidf.classes):
    print(
        f"  DF(., {topic:>8}) =",
        tfidf.DF[c].astype(int).tolist(),
        "  log(m / (DF + 1)) =",
        (np.round(tfidf.idf[c], 3) + 0.0).tolist(),
    )

# %% [markdown]
# With $w = (1, \dots, 1)$ the score is the sum of the entries: "goal" is rare outside sport,
# so sport wins. The very common "the" gets a **negative** weight for both topics, and the
# table above says why: DF counts occurrences, so it can exceed the number of documents $m$
# ("the" occurs 10 times outside sport and 9 times outside politics, with $m = 4$), and then
# $\log\frac{m}{\mathrm{DF} + 1} < 0$. A negative entry is not a bug: a word that is frequent
# *outside* topic $y$ is evidence against $y$. What matters for the argmax is the difference
# between topics, and since "the" is about equally frequent everywhere its two weights nearly
# cancel ($\log\frac{4}{11}$ against $\log\frac{4}{10}$). Counting documents instead of
# occurrences would give $\mathrm{DF} + 1 \le m$ whenever every topic has a training document,
# and so no negative weight.
#
# In the realizable case, finding $w$ with $\langle w, \Psi(x_i, y_i)\rangle >
# \langle w, \Psi(x_i, y)\rangle$ for all $i$ and $y \ne y_i$ is a set of linear inequalities
# (§17.2.3): a linear program, or a job for the multiclass perceptron of section 7.

# %% [markdown]
# ## 6 · Cost-sensitive losses, the generalized hinge loss and SGD (§17.2.2–17.2.5)
#
# A cost $\Delta(y', y) \ge 0$ with $\Delta(y, y) = 0$ says how bad it is to predict $y'$ when
# the truth is $y$ (we store it as a matrix `delta[y', y]`, prediction first as in the book).
# Minimising the empirical $\Delta$-risk is hard, so §17.2.4 replaces it by the
# **generalized hinge loss**
#
# $$\ell(w, (x, y)) = \max_{y'} \big[\Delta(y', y) + \langle w, \Psi(x, y') - \Psi(x, y)\rangle\big],$$
#
# a maximum of affine functions of $w$ (hence convex) that is at least $\Delta(h_w(x), y)$:
# take $y' = h_w(x)$ and note the inner product is then $\ge 0$. A subgradient is
# $\Psi(x, \hat y) - \Psi(x, y)$ for a maximiser $\hat y$ (Claim 14.6), and that is all
# **SGD for multiclass learning** needs:
#
# $$w^{(t+1)} = w^{(t)} - \eta\,\big(\Psi(x, \hat y) - \Psi(x, y)\big), \qquad
# \bar w = \tfrac1T \textstyle\sum_{t=1}^T w^{(t)}.$$

# %%
Wr = rng.normal(size=(3, 2))
Xr = rng.normal(size=(200, 2))
yr = rng.integers(0, 3, size=200)
D = np.array([[0.0, 1.0, 4.0], [1.0, 0.0, 1.0], [4.0, 1.0, 0.0]])
hinge = mc.generalized_hinge(Wr, Xr, yr, delta=D)
pred_r = np.argmax(Xr @ Wr.T, axis=1)
print(f"hinge >= Delta(h_w(x), y) on all 200 random examples: {bool(np.all(hinge >= D[pred_r, yr]))}")
print(f"mean hinge {hinge.mean():.3f} vs mean Delta {D[pred_r, yr].mean():.3f}")

res = mc.multiclass_svm_sgd(X, y, eta=0.1, T=20_000, seed=SEED)
print(
    f"SGD on the three balls: training error {np.mean(res.predict(X) != y):.0%}; "
    f"rows of W (classes {res.classes.tolist()}):"
)
print(np.round(res.W, 3))

# %% [markdown]
# **What a cost matrix changes.** Three overlapping classes, classes 1 and 3 side by side;
# first with the 0–1 loss, then with $\Delta(1, 3) = \Delta(3, 1) = 5$: confusing classes 1
# and 3 now costs five times more. The predictor confuses them less, and class 2 grows into a
# buffer between them.

# %%
C3 = np.array([[-0.8, 4.0], [0.0, 4.5], [0.8, 4.0]])
y3 = np.arange(300) % 3 + 1
X3 = C3[y3 - 1] + np.random.default_rng(SEED + 1).normal(scale=0.9, size=(300, 2))
D13 = np.array([[0.0, 1.0, 5.0], [1.0, 0.0, 1.0], [5.0, 1.0, 0.0]])
fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), layout="constrained")
for ax, (name, delta) in zip(axes, [("0-1 loss", None), ("Δ(1,3) = Δ(3,1) = 5", D13)]):
    r = mc.multiclass_svm_sgd(X3, y3, eta=0.05, T=30_000, seed=SEED, delta=delta)
    p = r.predict(X3)
    n13 = int(np.sum((p == 1) & (y3 == 3)) + np.sum((p == 3) & (y3 == 1)))
    cost = D13[p - 1, y3 - 1].mean()
    print(
        f"{name}:\n  accuracy {np.mean(p == y3):.3f}, 1<->3 confusions {n13}, "
        f"mean cost under D13 {cost:.3f}, predicted counts {np.bincount(p, minlength=4)[1:].tolist()}"
    )
    # room below the origin for the arrows of w_1 and w_3, which point almost sideways
    plot_linear_regions(r.W, X3, y3, ax=ax, xlim=(-4.5, 4.5), ylim=(-1.5, 7.5), title=name)
show(
    fig,
    alt="Two region plots of three overlapping classes, class 2 between classes 1 and 3. "
    "Left, trained with the 0-1 loss; right, with confusing classes 1 and 3 five times as "
    "costly: the class-2 cone in the middle is wider on the right, so fewer points of class 1 "
    "and 3 are mistaken for each other.",
)

# %% [markdown]
# **The multiclass SVM.** Adding a regulariser gives the RLM rule of §17.2.5,
# written in the course's one convention (chapter 00's notation table) as
# $\min_w \frac\lambda2\lVert w\rVert^2 + \frac1m\sum_i \ell(w, (x_i, y_i))$; the book prints
# $\lambda\lVert w\rVert^2$, the same problem with half our $\lambda$. `mc.multiclass_svm`
# minimises it with the SGD of §15.5 ($w^{(t)} = \theta^{(t)}/(\lambda t)$). It is the same
# problem as Crammer & Singer's $\frac12\sum_y\lVert w_y\rVert^2 + C\sum_i\xi_i$ for
# $C = 1/(\lambda m)$ (`kmlteach.svm.lam_to_C`) — the tests check our objective against
# scikit-learn's `LinearSVC(multi_class="crammer_singer")`.

# %%
for T in (300, 3000, 30_000):
    r = mc.multiclass_svm(X3, y3, lam=0.02, T=T, seed=SEED)
    print(f"T = {T:>6}: objective {r.objective:.4f}, training accuracy {r.score(X3, y3):.3f}")

# %% [markdown]
# ### Lab on real data: one-vs-all against the multiclass SVM on the digits
#
# Example 17.1 was built so that one-vs-all fails. What happens on real data? The handwritten
# digits that ship with the course (`kmlteach.datasets.digits`, UCI, CC BY 4.0): 1 797 images
# of 8 × 8 pixels, ten classes, split at random into 1 200 for training and 597 for testing
# (the split of chapter 02's last section), pixels scaled to $[0, 1]$, plus a constant feature
# 1 that plays the bias. Two linear predictors with one weight vector per digit and the same
# prediction $\operatorname{argmax}_c \langle w_c, x\rangle$, differing only in how the ten
# vectors are trained, both with λ = 10⁻³ (not tuned):
#
# * **one-vs-all** with the exact soft-SVM of chapter 01 as the binary learner: ten separate
#   problems "digit $c$ against the other nine";
# * the **multiclass SVM** of this section (`mc.multiclass_svm`, the SGD of §15.5 with
#   $T = 100m$ steps): one problem, whose generalized hinge loss compares the ten scores of
#   each training digit with each other.
#
# Each binary classifier of one-vs-all also answers on its own: it *claims* a test digit when
# $\langle w_c, x\rangle > 0$. A digit can be claimed by exactly one classifier, by several, or
# by none.
#
# **Predict first.** Where does one-vs-all make most of its test mistakes? (a) where exactly one
# classifier claims the digit: most digits are there, so most mistakes are too; (b) on the
# digits that no classifier claims (all ten scores negative); (c) on the digits that two or
# more classifiers claim.

# %%
ask("04.c_digits", "?")

# %%
from kmlteach.datasets import digits
from kmlteach.svm import soft_svm

dg = digits()
perm = np.random.default_rng(0).permutation(len(dg.y))  # chapter 02's split
X_dg = np.c_[dg.X / 16.0, np.ones(len(dg.y))]
tr, te = perm[:1200], perm[1200:]
lam_dg = 1e-3
ova_dg = mc.one_vs_all(X_dg[tr], dg.y[tr], lambda A, t: soft_svm(A, t, lam_dg))
msvm_dg = mc.multiclass_svm(X_dg[tr], dg.y[tr], lam=lam_dg, T=100 * len(tr), seed=SEED)
S_te, y_te = ova_dg.decision_function(X_dg[te]), dg.y[te]
p_ova, p_msvm = np.argmax(S_te, axis=1), msvm_dg.predict(X_dg[te])
claims = np.sum(S_te > 0, axis=1)
print(
    f"test accuracy: one-vs-all {100 * np.mean(p_ova == y_te):.1f} % ({int(np.sum(p_ova == y_te))} of "
    f"{len(y_te)}), multiclass SVM {100 * np.mean(p_msvm == y_te):.1f} % ({int(np.sum(p_msvm == y_te))})"
)
print("claimed by        test digits   one-vs-all errors   multiclass SVM errors")
for name, g in [
    ("no classifier", claims == 0),
    ("one classifier", claims == 1),
    ("two or more", claims >= 2),
]:
    print(
        f"{name:<17} {int(g.sum()):11d}   {int(np.sum(p_ova[g] != y_te[g])):17d}"
        f"   {int(np.sum(p_msvm[g] != y_te[g])):21d}"
    )
print(
    f"right by the multiclass SVM only: {int(np.sum((p_ova != y_te) & (p_msvm == y_te)))};  "
    f"by one-vs-all only: {int(np.sum((p_ova == y_te) & (p_msvm != y_te)))}"
)

unclaimed = np.flatnonzero(claims == 0)[:12]
fig, axes = plt.subplots(2, 6, figsize=(11, 4.2), layout="constrained")
for ax, i in zip(axes.ravel(), unclaimed):
    ax.imshow(X_dg[te][i, :64].reshape(8, 8), cmap="gray_r", vmin=0, vmax=1)
    ax.set_xticks([])
    ax.set_yticks([])
    o, v = [f"{p[i]}" + ("" if p[i] == y_te[i] else "✗") for p in (p_ova, p_msvm)]
    ax.set_title(f"true {y_te[i]}: OvA {o}, SVM {v}\nbest OvA score {S_te[i].max():+.2f}", fontsize=8)
show(
    fig,
    alt=f"The first {len(unclaimed)} test digits that no one-vs-all classifier claims, as 8 by 8 "
    "grey images, each titled with its true digit, the predictions of one-vs-all and of the "
    "multiclass SVM (a cross when wrong) and one-vs-all's best score, negative for all of them: "
    + "; ".join(f"{y_te[i]} predicted {p_ova[i]} and {p_msvm[i]}" for i in unclaimed)
    + ".",
)

# %% [markdown]
# Most of one-vs-all's mistakes, 14 of 20, fall on the 41 test digits that no classifier claims,
# 7 % of the test set (this settles 04.c_digits). Each binary classifier was trained to say no to
# nine digits out of ten, and an image unlike the training images of its digit gets a no from
# all ten; the argmax then compares ten negative scores that no step of training ever compared
# with each other. The multiclass SVM's generalized hinge loss does compare them: it asks the
# true digit's score to beat every other digit's score by a margin, the very comparison the
# argmax makes. It makes 11 mistakes on those 41 digits against 14, and 16 against 20 in all
# (581 of 597 right against 577). The gap is small: with a good binary learner one-vs-all
# comes close to the joint model on these data, as Rifkin & Klautau (2004) found on many data
# sets; Example 17.1 shows that close is not guaranteed, and where the loss goes when it is not.

# %% [markdown]
# ## 7 · Multiclass perceptrons and Kesler's construction
#
# **Kesler's construction** (slides) makes the multiclass problem *one* binary problem. An
# example $x$ of class $i$ becomes the $k - 1$ vectors
# $x_{ij} = \Psi(x, i) - \Psi(x, j) \in \mathbb{R}^{kn}$, $j \ne i$: $+x$ in block $i$,
# $-x$ in block $j$. For $W = [w_1; \dots; w_k]$, $\langle W, x_{ij}\rangle = (w_i - w_j)\cdot x$,
# so $W$ classifies $x$ correctly exactly when it puts all its $x_{ij}$ on the positive side
# of a homogeneous hyperplane. (One slide prints $-x$ inside the second block vector *before*
# subtracting, which would give $+x$ in block $j$; the difference above is what is meant.)

# %%
Xk, yk = kesler_points()
emb = mc.kesler_embed(Xk, yk)
i = 5
print(f"example {i}: x = {Xk[i].tolist()}, class {yk[i]}")
for row in np.flatnonzero(emb.example == i):
    print(f"  x_{{{emb.label[row] + 1},{emb.competitor[row] + 1}}} =", emb.Z[row].tolist())

full = mc.kesler_embed(Xk, yk, negatives=True)  # add the mirrored -x_ij with label -1
from kmlteach.svm import perceptron

p = perceptron(full.Z, full.t)
Wk = full.weights(p.w)
print(
    f"binary perceptron in R^{full.Z.shape[1]}: {p.n_updates} updates; as a multiclass "
    f"predictor it makes {int(np.sum(np.argmax(Xk @ Wk.T, axis=1) + 1 != yk))} training errors"
)

fig, axes = plt.subplots(
    1, 2, figsize=(11, 2.8), layout="constrained", gridspec_kw={"width_ratios": [1.6, 1]}
)
plot_kesler_example(emb, i, ax=axes[0])
rows = np.flatnonzero(emb.example == i)
plot_constraint_scores(
    emb.Z[rows] @ Wk.ravel(),
    emb.competitor[rows],
    int(emb.label[rows[0]]),
    ax=axes[1],
    title="$\\langle W, x_{ij}\\rangle$ for the learned W",
)
show(
    fig,
    alt=f"Left: a heat map with the {len(rows)} Kesler vectors of example {i} "
    f"(class {int(emb.label[rows[0]]) + 1}) as rows and the {Xk.shape[1] * 3} coordinates in three "
    "blocks as columns, each cell labelled with its value. Right: one bar per competitor with "
    "the score of the learned W; every bar is green and above zero, so no constraint is violated.",
)

# %% [markdown]
# The same update, written with one weight vector per class, gives the multiclass
# perceptrons. They differ in which competitors they demote after a mistake on $(x, i)$:
#
# * **batch** (UML ex. 17.2): while some $(x_i, y)$ has $\langle w, \Psi(x_i, y_i)\rangle \le
#   \langle w, \Psi(x_i, y)\rangle$, add $\Psi(x_i, y_i) - \Psi(x_i, y)$; Theorem 17.5 bounds the
#   number of updates by $(R\lVert w^\star\rVert)^2$ for any $w^\star$ with unit margin, where
#   $R = \max_{i,y}\lVert\Psi(x_i, y_i) - \Psi(x_i, y)\rVert$;
# * **Kesler**: promote $w_i$ and demote *every* $w_j$ with $(w_i - w_j)\cdot x \le 0$ (the
#   slides write $< 0$, which never fires from $W = 0$);
# * **conservative**: demote only the strongest competitor $j^\star$;
# * **Collins** (HSS2 §2.2.1): predict $z = \operatorname{argmax}_y$ over all labels and update
#   if $z \ne y$; at $W = 0$ all labels tie, and we pick the smallest index.
#
# **Predict first.** The next cell builds a separable sample of 100 points in four classes,
# prints the Theorem 17.5 bound $(R\lVert w^\star\rVert)^2$ for it and runs the four perceptrons.
# Their numbers of updates are (a) close to the bound: it is tight; (b) a few percent of the
# bound or less; (c) above the bound on this sample.

# %%
ask("04.c_bound", "?")

# %%
W_true = np.array([[1.0, 0.3], [-0.3, 1.0], [-1.0, -0.3], [0.3, -1.0]])
Xs = rng.uniform(-4, 4, size=(400, 2))
S = Xs @ W_true.T
top2 = np.sort(S, axis=1)[:, -2:]
Xs = Xs[top2[:, 1] - top2[:, 0] >= 0.5][:100]  # keep points with a clear margin
ys_sep = np.argmax(Xs @ W_true.T, axis=1) + 1
top2 = np.sort(Xs @ W_true.T, axis=1)[:, -2:]
gamma = float(np.min(top2[:, 1] - top2[:, 0]))
w_star = W_true / gamma  # unit margin: <w*, Psi(x,y_i) - Psi(x,y)> >= 1
R = np.sqrt(2) * np.max(np.linalg.norm(Xs, axis=1))
print(f"bound (R ||w*||)^2 = {(R * np.linalg.norm(w_star)) ** 2:.0f}")
for name, f in [
    ("batch", mc.multiclass_perceptron),
    ("Kesler", mc.kesler_perceptron),
    ("conservative", mc.conservative_perceptron),
    ("Collins", mc.collins_perceptron),
]:
    r = f(Xs, ys_sep)
    print(
        f"{name:>13}: {r.n_updates:4d} updates on {r.n_mistakes:4d} mistaken examples, "
        f"converged {r.converged}, training errors {int(np.sum(r.predict(Xs) != ys_sep))}"
    )

# %% [markdown]
# All four need one or two dozen updates where the bound allows almost a thousand: the bound holds
# for every sample with that margin and radius, and this one is far from the worst case. This
# settles 04.c_bound.
#
# **Widget.** Pick an example and step the Kesler perceptron: the heat map shows the example's
# vectors $x_{ij}$, the bars the constraints $\langle W, x_{ij}\rangle$. A violated constraint
# ($\le 0$) is drawn red, hatched and marked with a cross — at 0 updates $W = 0$, every score is
# 0 and only the crosses show that all constraints fail.

# %%
# NBVAL_IGNORE_OUTPUT
from kmlteach.widgets.ch04 import make_kesler_view

make_kesler_view()

# %% [markdown]
# ## 8 · Exercises
#
# Each exercise is checked against the reference implementation on several inputs. Classes
# are 0-based here: $y \in \{0, \dots, k-1\}$ and block $y$ starts at coordinate $y\,n$.
# Stuck? `hint("04.xxx")`, then `hint("04.xxx", level=2)` and so on: three levels, from a
# nudge to close to code. The third level and `solution("04.xxx")` come with the solutions,
# when your course releases them (until then they say so).
#
# **Exercise 1 (multivector Ψ).** Return $\Psi(x, y) \in \mathbb{R}^{kn}$ of (17.2). Labels
# run from 0 to $k - 1$ here, as Python counts (UML numbers them from 1).

# %%
from kmlteach.exercises import check, hint, solution  # noqa: F401  (hint and solution: for the student to call)


def psi(x, y, k):
    ### BEGIN SOLUTION
    n = len(x)
    out = np.zeros(k * n)
    out[y * n : (y + 1) * n] = x
    return out
    ### END SOLUTION


check("04.multivector_psi", psi)

# %% [markdown]
# **Exercise 2 (generalized hinge).** For the multivector map, weights `W` (one row per
# class), one example `(x, y)` and a cost matrix `Delta[y', y]`, return
# $\max_{y'} \Delta(y', y) + \langle w_{y'}, x\rangle - \langle w_y, x\rangle$ (17.3).


# %%
def ghinge(W, x, y, Delta):
    ### BEGIN SOLUTION
    s = W @ x
    return float(np.max(Delta[:, y] + s - s[y]))
    ### END SOLUTION


check("04.generalized_hinge", ghinge)

# %% [markdown]
# **Exercise 3 (batch multiclass perceptron).** Implement UML exercise 17.2 with the
# multivector map and return `W` of shape `(k, n)`. Start from zero; pass over the examples in
# order; at example $i$, take the competitor $j \ne y_i$ with the largest score (smallest
# index on ties) and, if its score is at least that of $y_i$, add $x_i$ to $w_{y_i}$ and
# subtract it from $w_j$. Stop after a pass without update (the test data are separable).


# %%
def batch_multiclass_perceptron(X, y, k):
    ### BEGIN SOLUTION
    W = np.zeros((k, X.shape[1]))
    while True:
        updated = False
        for x, yi in zip(X, y):
            s = W @ x
            c = s.copy()
            c[yi] = -np.inf
            j = int(np.argmax(c))
            if s[j] >= s[yi]:
                W[yi] += x
                W[j] -= x
                updated = True
        if not updated:
            return W
    ### END SOLUTION


check("04.multiclass_perceptron", batch_multiclass_perceptron)

# %% [markdown]
# **Exercise 4 (one-vs-all).** `fit_binary(X, t)` returns a weight vector $w$ for labels
# $t \in \{\pm1\}$. Train one-vs-all on `(X, y)` and return the predicted classes of the rows
# of `X_new`, scoring with $\langle w_c, x\rangle$ and breaking ties towards the smallest index.


# %%
def ova_predict(X, y, X_new, k, fit_binary):
    ### BEGIN SOLUTION
    S = np.column_stack([X_new @ fit_binary(X, np.where(y == c, 1.0, -1.0)) for c in range(k)])
    return np.argmax(S, axis=1)
    ### END SOLUTION


check("04.one_vs_all", ova_predict)

# %% [markdown]
# **Exercise 5 (Kesler).** Return the $k-1$ vectors $x_{ij}$ of an example $x$ of class $i$,
# as the rows of an array, for $j \ne i$ in increasing order.


# %%
def kesler_vectors(x, i, k):
    ### BEGIN SOLUTION
    n = len(x)
    rows = []
    for j in range(k):
        if j == i:
            continue
        v = np.zeros(k * n)
        v[i * n : (i + 1) * n] = x
        v[j * n : (j + 1) * n] = -x
        rows.append(v)
    return np.array(rows)
    ### END SOLUTION


check("04.kesler", kesler_vectors)

# %% [markdown]
# **Exercise 6 (derivation: a subgradient of the generalized hinge).** SGD for multiclass
# learning (UML §17.2.5) steps along $\Psi(x, \hat y) - \Psi(x, y)$ with $\hat y$ the
# maximiser in (17.3). Derive why this is a subgradient of $w \mapsto \ell(w, (x, y))$: the
# loss is a maximum of functions that are affine in $w$ — what is the gradient of the piece of
# label $y'$, and which piece gives a subgradient of the maximum? Then return it for the
# multivector map as a $(k, n)$ matrix `G` (row $c$ = block $c$), taking the smallest
# maximising index on ties. Your answer is checked against the subgradient inequality
# $\ell(W') \ge \ell(W) + \langle G, W' - W\rangle$ in the tests.


# %%
def hinge_subgradient(W, x, y, Delta):
    ### BEGIN SOLUTION
    s = W @ x
    yhat = int(np.argmax(Delta[:, y] + s - s[y]))
    G = np.zeros(W.shape)
    G[yhat] += x
    G[y] -= x
    return G
    ### END SOLUTION


check("04.hinge_subgradient", hinge_subgradient)

# %% [markdown]
# ## Summary
#
# * Reductions reuse binary learners: one-vs-all ($k$ problems), all pairs ($k(k-1)/2$
#   problems, decided by votes or a tournament), output codes (any split of the classes, with
#   Hamming decoding). Each needs an explicit tie rule, and ties are frequent when the binary
#   classifiers only say $\pm1$.
# * The binary learners never see how their outputs will be combined. In Example 17.1 the best
#   halfspace for the middle class is the constant $-1$, so one-vs-all never predicts it,
#   while a linear multiclass predictor separates all three classes.
# * On the handwritten digits one-vs-all with soft-SVMs comes within four test digits of the
#   multiclass SVM, and most of its mistakes fall on the digits that none of its ten binary
#   classifiers claims.
# * A linear multiclass predictor is $\operatorname{argmax}_y \langle w, \Psi(x, y)\rangle$;
#   the multivector map gives one weight vector per class, TF-IDF a shared one. Costs
#   $\Delta(y', y)$ enter through the generalized hinge loss, a convex upper bound on the cost
#   of the prediction; SGD on it needs only the loss-augmented argmax.
# * Kesler's construction turns the multiclass problem into one binary problem in
#   $\mathbb{R}^{kn}$; the multiclass perceptrons are the binary perceptron run there, and they
#   stop after at most $(R\lVert w^\star\rVert)^2$ updates on separable data.
#
# Next: [05 · Structured output prediction](05-structured.ipynb) — the same argmax over labels,
# when a label is a whole word and there are too many to list.

# %% [markdown]
# ## Recap quiz
#
# Five questions on this chapter. The list below is the static
# version; the widget after it checks your answers (or call `ask("04.q2", "a")`
# yourself, with a number for a numeric question, as in `ask("04.q1", 12)`).

# %%
display(HTML(quiz_html("04")))

# %%
# NBVAL_IGNORE_OUTPUT
quiz("04")

# %%
# Your progress in this chapter: a question counts with its first answer, a prediction
# explorer once, with the first answer it scores (its next questions are practice);
# kmlteach.progress() lists every chapter.
import kmlteach

kmlteach.progress("04")

# %% [markdown]
# ## Sources and further reading
#
# **Sources** (the short names used in this chapter):
#
# * **UML** = S. Shalev-Shwartz and S. Ben-David, *Understanding Machine Learning: From Theory to Algorithms*, Cambridge University Press, 2014 (§17.1–17.2).
# * **SL** = D. Roth, *CIS 519/419 Applied Machine Learning*, lecture slides, University of Pennsylvania (multiclass and constraint classification: Kesler's construction).
# * **HSS2** = T. Hofmann, B. Schölkopf, A. J. Smola et al., chapters 1 (*Measuring Similarity with Kernels*, HSS1) and 2 (*Discriminative Models*, HSS2) of G. Bakır, T. Hofmann, B. Schölkopf, A. J. Smola, B. Taskar and S. V. N. Vishwanathan (eds.), *Predicting Structured Data*, MIT Press, 2007 (§2.2.1).
#
# **Further reading** (classic references, beyond the course's sources):
#
# * T. G. Dietterich and G. Bakiri, "Solving multiclass learning problems via error-correcting output codes", *Journal of Artificial Intelligence Research* 2, 263–286, 1995.
# * K. Crammer and Y. Singer, "On the algorithmic implementation of multiclass kernel-based vector machines", *Journal of Machine Learning Research* 2, 265–292, 2001 — the multiclass hinge loss.
# * R. Rifkin and A. Klautau, "In defense of one-vs-all classification", *Journal of Machine Learning Research* 5, 101–141, 2004.
