# %% [markdown]
# # 07 · Bipartite ranking and the precision/recall trade-off
#
# [Open this chapter on Binder](https://mybinder.org/v2/gh/kmlteach/kmlteach/main?urlpath=lab/tree/notebooks/07-bipartite.ipynb)
#
# *Source: UML §17.5 (bipartite ranking, multivariate performance measures, linear predictors
# for bipartite ranking and the procedure that solves Eq. (17.14)).*
#
# *Notation: every symbol of the course, chapter by chapter, with the letters that change meaning flagged, is in the [glossary](../docs/glossary.md).*
#
# In many ranking tasks an item is simply relevant or not: a transaction is fraudulent or
# benign, a document answers the query or does not. The labels are $y \in \{\pm 1\}^r$, the
# predictor still outputs scores, and a threshold turns scores into decisions. Which measure
# should we optimise? This notebook shows why the zero-one loss is the wrong answer when the
# positives are rare, and how to train a linear scorer for F₁ or precision@k instead.
#
# **You need:** chapter 06 (ranking losses, the structured hinge surrogate (17.8) and its
# SGD) and chapter 01's soft-SVM, which section 4 uses as the zero-one surrogate.
#
# **You will be able to:**
# 1. compute the confusion counts $a, b, c, d$ and the precision/recall family of measures —
#    recall, precision, specificity, balanced accuracy, $F_1$, $F_\beta$, precision@k, recall@k;
# 2. read PR and ROC curves and the effect of the threshold θ on them;
# 3. see on imbalanced "fraud" data why a small zero-one loss can be meaningless;
# 4. find the most violating labelling of Eq. (17.14) by sorting, and train with it by SGD.

# %%
import itertools

import numpy as np
from IPython.display import HTML, display

from kmlteach import metrics as M
from kmlteach import ranking as R
from kmlteach import svm
from kmlteach.datasets import fraud, split_queries
from kmlteach.exercises import ask, quiz, quiz_html
from kmlteach.plots import figure, show
from kmlteach.plots.ch07 import (
    example_scores,
    plot_fraud,
    plot_labelling,
    plot_pr_curve,
    plot_roc_curve,
    plot_scores,
)

SEED = 0
rng = np.random.default_rng(SEED)

# %% [markdown]
# ## 1 · From scores to decisions: the counts a, b, c, d
#
# A threshold θ turns the scores $y'$ into labels. We predict $+1$ for item $i$ **iff
# $y'_i \ge \theta$** (UML writes $\operatorname{sign}(y'_i - \theta)$ and leaves the case
# $y'_i = \theta$ open; "≥" is also scikit-learn's convention). Comparing with the truth gives
# the four counts of UML (17.11):
#
# | | $y = +1$ | $y = -1$ |
# |---|---|---|
# | predicted $+1$ | $a$ true positives | $b$ false positives |
# | predicted $-1$ | $c$ false negatives | $d$ true negatives |
#
# Every measure of this chapter is a function of them: **recall** (sensitivity) $a/(a+c)$,
# **precision** $a/(a+b)$, **specificity** $d/(d+b)$, and the average zero-one loss
# $(b+c)/(a+b+c+d)$. (UML prints $(b+d)/(a+b+c+d)$ for the zero-one loss; the mistakes are the
# false positives $b$ and the false negatives $c$, so the numerator is $b + c$.)

# %% [markdown]
# **Predict first.** Lower the threshold θ. The recall
#
# * (a) never decreases
# * (b) never increases
# * (c) can go either way
#
# Replace `"?"` by your letter and run the cell; the cell below reveals the answer.

# %%
ask("07.c_theta", "?")

# %%
y_score, y_true = example_scores()  # 40 scored items, 12 of them positive
for theta in (-1.0, 0.0, 1.0, 2.0):
    a, b, c, d = M.confusion_counts(y_score, y_true, theta)
    print(
        f"theta = {theta:5.2f}: a = {a:2d}, b = {b:2d}, c = {c:2d}, d = {d:2d} | "
        f"recall {M.recall(y_score, y_true, theta):.3f}, precision {M.precision(y_score, y_true, theta):.3f}, "
        f"specificity {M.specificity(y_score, y_true, theta):.3f}"
    )

# %% [markdown]
# Lowering θ can only add predicted positives, so the recall grows (to 1 at θ = −∞) while
# precision and specificity tend to fall: a **trade-off** that θ controls. This settles
# 07.c_theta.

# %% [markdown]
# ## 2 · Measures that combine precision and recall (UML §17.5)
#
# * **Balanced accuracy** $\tfrac12\big(\tfrac{a}{a+c} + \tfrac{d}{d+b}\big)$: the accuracy on the
#   positives averaged with the accuracy on the negatives.
# * **$F_1$** $= 2a/(2a+b+c)$, the harmonic mean of precision and recall: 1 only when both are
#   1, and 0 as soon as one of them is 0.
# * **$F_\beta$** $= (1+\beta^2)a / (b + \beta^2 c + (1+\beta^2)a)$, a weighted harmonic mean:
#   $\frac1{F_\beta} = \frac{1}{1+\beta^2}\cdot\frac1P + \frac{\beta^2}{1+\beta^2}\cdot\frac1R$
#   with $P$ the precision and $R$ the recall. So $1/R$ weighs $\beta^2$ times as much as $1/P$
#   — equivalently, in the formula a missed positive ($c$) costs $\beta^2$ times as much as a
#   false alarm ($b$). $\beta = 1$ gives $F_1$.
# * **precision@k**: the precision when at least $k$ items are predicted positive
#   ($a + b \ge k$): θ is the $k$-th largest score, and items tied with it are all predicted
#   positive. **recall@k**: the recall when at most $k$ items may be flagged ($a + b \le k$);
#   if the items tied with the $k$-th score do not all fit, none of them is flagged. Think of
#   a fraud team that can only check $k$ transactions a day.
#
# The losses of UML §17.5 are one minus these scores, e.g. $\Delta = 1 - F_1$ and
# $\Delta = 1 - \tfrac12(\tfrac{a}{a+c} + \tfrac{d}{d+b})$ (one printing of the book lost the
# minus signs). When a denominator is 0 — say, no item is predicted positive, so precision is
# $0/0$ — `kmlteach.metrics` returns `zero_division` (0 by default, like scikit-learn).
#
# **Predict first.** At θ = 0 the example of section 1 has precision 0.5 and recall 0.833.
# Which of $F_{0.5}$, $F_1$ and $F_2$ is the largest there? (a) $F_{0.5}$; (b) $F_1$; (c) $F_2$;
# (d) all three are equal.

# %%
ask("07.c_fbeta", "?")

# %%
theta = 0.0
print(f"balanced accuracy = {M.balanced_accuracy(y_score, y_true, theta):.4f}")
print(f"F1                = {M.f1(y_score, y_true, theta):.4f}")
P, Rc = M.precision(y_score, y_true, theta), M.recall(y_score, y_true, theta)
for beta in (0.5, 2.0):
    harmonic = 1 / ((1 / P + beta**2 / Rc) / (1 + beta**2))
    print(
        f"F_beta, beta = {beta:3.1f} = {M.f_beta(y_score, y_true, theta, beta=beta):.4f}"
        f"  (weighted harmonic mean of P = {P:.3f} and R = {Rc:.3f}: {harmonic:.4f})"
    )
for k in (5, 10, 20):
    print(
        f"k = {k:2d}: precision@k = {M.precision_at_k(y_score, y_true, k):.4f}, "
        f"recall@k = {M.recall_at_k(y_score, y_true, k):.4f}"
    )

# %% [markdown]
# $F_2$ is the largest: with β = 2 the recall, the larger of the two, weighs four times as much
# as the precision, and every $F_\beta$ lies between them. In general $\beta > 1$ favours recall
# and $\beta < 1$ precision. This settles 07.c_fbeta.

# %% [markdown]
# ## 3 · All thresholds at once: PR and ROC curves
#
# Sweeping θ over every distinct score traces the **precision–recall curve** and the **ROC
# curve** (recall against the false-positive rate $b/(b+d)$). Two summaries: the **average
# precision** $\sum_n (R_n - R_{n-1}) P_n$ — precision at each threshold, weighted by the recall
# it adds, with tied scores forming one threshold (scikit-learn's definition) — and the **area
# under the ROC curve**, which equals the probability that a random positive scores above a
# random negative (ties count one half). Neither depends on θ, and both are unchanged by any
# strictly increasing transformation of the scores.

# %%
print(f"average precision = {M.average_precision(y_score, y_true):.4f}")
print(f"AUC               = {M.auc(y_score, y_true):.4f}")
print(f"AUC of exp(scores) = {M.auc(np.exp(y_score), y_true):.4f} (a monotone map changes nothing)")
fig, axes = figure(11, 3.5, ncols=3, width_ratios=[1.5, 1, 1])
plot_scores(y_score, y_true, theta=0.0, ax=axes[0], title="scores and threshold θ = 0")
plot_pr_curve(y_score, y_true, theta=0.0, ax=axes[1], title="PR curve")
plot_roc_curve(y_score, y_true, theta=0.0, ax=axes[2], title="ROC curve")
show(
    fig,
    alt=f"Left: the {len(y_true)} scores on a horizontal axis, negatives (circles) in the "
    f"lower row and positives (triangles) in the upper one, with the threshold at 0 and the "
    f"predicted-positive side shaded. Middle: the PR curve, precision against recall, a "
    f"staircase from precision 1 down to the positive rate, with a dot at theta = 0. "
    f"Right: the ROC curve, recall against the false-positive rate, above the diagonal of "
    f"random scores, area {M.auc(y_score, y_true):.2f}, with the same dot.",
)

# %% [markdown] tags=["slide-skip"]
# **Predict, then reveal.** A fresh sample of 40 scored items, drawn like the first. Before you
# explore, put the guess slider where you think $F_1$ peaks, then press **Reveal**: the
# readout (with $F_1$) and a line at the answer appear. **next question ▶** then asks another
# threshold question on the same sample (the largest θ with recall ≥ 0.8, where the zero-one
# loss is smallest, ...). The readout keeps your score.

# %% tags=["slide-skip"]
# NBVAL_IGNORE_OUTPUT
from kmlteach.widgets.ch07 import make_pr_explorer

make_pr_explorer(*example_scores(seed=4), predict=True)

# %% [markdown]
# **The precision/recall trade-off.** Move θ: the shaded side of the black line is predicted
# positive, the table shows $a, b, c, d$, and the red dot runs along both curves. Where is $F_1$
# largest? The $k$ slider circles the top-$k$ items and marks precision@k on the PR curve.

# %%
# NBVAL_IGNORE_OUTPUT
from kmlteach.widgets.ch07 import make_pr_explorer

make_pr_explorer()

# %% [markdown]
# ## 4 · Fraud detection: one positive in a thousand
#
# UML §17.5 motivates the measures of this chapter with fraud detection, where the class we
# care about is rare: say one transaction in a thousand is fraudulent. `fraud(n, pos_rate)`
# draws such data in the plane: 50 000 transactions, 50 of them fraudulent, sitting in the tail
# of the benign cloud. We keep half for training and measure on the other half.

# %%
X, y = fraud(50_000, pos_rate=0.001, seed=1)
Xb = np.c_[X, np.ones(len(y))]  # a constant feature plays the role of a bias
Xtr, ytr, Xte, yte = Xb[:25_000], y[:25_000], Xb[25_000:], y[25_000:]
print(f"positives: {int(np.sum(ytr > 0))} for training, {int(np.sum(yte > 0))} for testing")

# %% [markdown]
# **Predict first.** A soft-SVM is trained on 25 000 transactions, 0.1 % of them fraudulent.
# How many of the 25 000 test transactions will it flag at threshold 0?
#
# * (a) none
# * (b) about 25
# * (c) about 250
# * (d) thousands
#
# Replace `"?"` by your letter and run the cell; the table below reveals the answer.

# %%
ask("07.c_fraud", "?")

# %% [markdown]
# Now three linear scorers $\langle w, (x, 1)\rangle$, thresholded at 0, and after them, for
# comparison, the rule that calls every transaction benign:
#
# * **soft-SVM by SGD** (chapter 01, λ = 10⁻³): a hinge-loss classifier, i.e. a convex
#   surrogate of the *zero-one* loss;
# * **bipartite SGD for $F_1$** and **for precision@10** (section 5 explains how they work): the
#   same linear scorers, trained on the structured hinge (17.14) of the measure we care about.
#
# The training set is cut into 5 groups of 5 000 transactions (4 or 5 frauds each): these are
# the "queries" $(\bar x, y)$ that SGD samples.

# %%
queries = split_queries(Xtr, ytr, 5, seed=SEED)
models = {
    "soft-SVM (zero-one surrogate)": svm.sgd_soft_svm(Xtr, ytr, 1e-3, 20_000, SEED).w,
    "bipartite SGD, F1": R.bipartite_sgd(queries, "f1", eta=1e-4, T=1000, seed=SEED).w,
    "bipartite SGD, precision@10": R.bipartite_sgd(
        queries, "precision_at_k", k=10, eta=1e-4, T=1000, seed=SEED
    ).w,
}
print(
    f"{'model':31s} {'0-1 loss':>8s} {'flagged':>7s} {'recall':>6s} {'prec.':>6s} {'F1':>6s} "
    f"{'P@10':>6s} {'AP':>6s} {'AUC':>6s}"
)
for name, w in models.items():
    s = Xte @ w
    print(
        f"{name:31s} {M.zero_one_loss(s, yte):8.4f} {int(np.sum(s >= 0)):7d} "
        f"{M.recall(s, yte):6.3f} {M.precision(s, yte):6.3f} {M.f1(s, yte):6.3f} "
        f"{M.precision_at_k(s, yte, 10):6.3f} {M.average_precision(s, yte):6.3f} {M.auc(s, yte):6.3f}"
    )
everyone_benign = -np.ones(len(yte))
print(
    f"all-negative predictor: zero-one loss {M.zero_one_loss(everyone_benign, yte):.4f}, "
    f"recall {M.recall(everyone_benign, yte):.1f}, F1 {M.f1(everyone_benign, yte):.1f}"
)

fig, axes = figure(11, 4.8, ncols=2)
plot_fraud(Xte[:, :2], yte, lines=models, ax=axes[0], title="test transactions and the lines ⟨w, (x, 1)⟩ = 0")
colors, styles = ["#D55E00", "#000000", "#009E73"], ["-", "--", "-."]
for (name, w), c, ls in zip(models.items(), colors, styles):
    plot_pr_curve(Xte @ w, yte, ax=axes[1], label=name, color=c, ls=ls, baseline=False)
axes[1].set_title("PR curves on the test half")
ap = {name: M.average_precision(Xte @ w, yte) for name, w in models.items()}
show(
    fig,
    alt="Left: the test transactions in the first two features, a large cloud of benign "
    "points and a few fraud triangles at the upper right, with each model's line "
    "<w, (x, 1)> = 0 where it crosses the plot. Right: the PR curve of each model on the "
    "test half, with average precision " + ", ".join(f"{a:.2f} for {n}" for n, a in ap.items()) + ".",
)

w_f1, w_p10 = models["bipartite SGD, F1"], models["bipartite SGD, precision@10"]
cos = w_f1[:2] @ w_p10[:2] / (np.linalg.norm(w_f1[:2]) * np.linalg.norm(w_p10[:2]))
angle = np.degrees(np.arccos(min(cos, 1.0)))
top = lambda w, k: set(np.argsort(-(Xte @ w), kind="stable")[:k].tolist())
print(f"angle between the directions (w1, w2) of the F1 and precision@10 models: {angle:.2f} degrees")
print(
    f"bias / |direction|: F1 model {w_f1[2] / np.linalg.norm(w_f1[:2]):.2f}, "
    f"precision@10 model {w_p10[2] / np.linalg.norm(w_p10[:2]):.2f}"
)
for k in (10, 50):
    print(f"top-{k} test transactions shared by the two models: {len(top(w_f1, k) & top(w_p10, k))} of {k}")

# %% [markdown]
# The soft-SVM flags nothing: it behaves like the rule that calls every transaction benign,
# which errs only on the one fraud in a thousand — a zero-one loss that looks excellent — and
# catches no fraud at all. The zero-one loss cannot tell that rule from a useful one, and the
# bank gains nothing from it (this settles 07.c_fraud). Training on the $F_1$ surrogate moves the line into the
# fraud cluster and gives a far better $F_1$ (and, on these data, even a smaller zero-one
# loss: the hinge surrogate of the SVM is only a loose proxy for the zero-one loss).
#
# The precision@10 model needs an honest reading. Its direction $(w_1, w_2)$ is the $F_1$
# model's to within a fraction of a degree, so it ranks the test transactions almost exactly
# as the $F_1$ model does (the same top 10, 49 of the same top 50), and its precision@10, AP
# and AUC agree with the $F_1$ model's to three decimals. What differs is the bias: relative
# to the length of its direction it is some 200 times larger, so at threshold 0 it flags
# nothing — which precision@k ignores, since it is measured at the $k$ best scores. So this
# run does **not** show a model trained for precision@10 ranking differently from one trained
# for $F_1$; it shows that on these data both surrogates find the same ordering, and that only
# $F_1$ also cares where the threshold sits. The AUCs of all three scorers are close to 1:
# they differ at the threshold and at the very top of the list, as the PR curves show.

# %% [markdown]
# ## 5 · Training for a multivariate measure (UML §17.5.1)
#
# For a linear scorer the decision vector is $b(y') = \operatorname{argmax}_{v \in V} \sum_i v_i y'_i$
# (UML (17.13)): with $V = \{\pm1\}^r$ this is "+1 iff the score is ≥ 0"; for precision@k
# $V$ holds the labellings with at least $k$ positives, for recall@k at most $k$. As for NDCG
# in chapter 06, the generalized hinge gives a convex upper bound on $\Delta(b(h_w(\bar x)), y)$:
# $$\ell(w) = \max_{v \in V}\Big[\Delta(v, y) + \sum_i (v_i - y_i)\langle w, x_i\rangle\Big],$$
# with subgradient $\sum_i (v_i - y_i)x_i$ at the maximiser — the **most violating labelling**.
# There are $2^r$ labellings, but $\Delta$ depends on $v$ only through $a$ and $b$. For fixed
# $(a, b)$ the best $v$ flags the $a$ best-scored positives and the $b$ best-scored negatives,
# so it is enough to sort the scores once and try every admissible pair $(a, b)$: the
# procedure "Solving Equation (17.14)", $O(r\log r + PN)$ for $P$ positives and $N$
# negatives. We compare it with a search over all $2^{10} = 1024$ labellings.

# %%
r = 10
mu = np.round(rng.normal(size=r), 2)
y_small = np.array([1.0, -1.0, 1.0, -1.0, -1.0, 1.0, -1.0, -1.0, 1.0, -1.0])


def objective(v, measure, k=None):
    """Δ(v, y) + Σ_i (v_i − y_i) μ_i, with Δ from the confusion counts of v."""
    a, b = np.sum((v > 0) & (y_small > 0)), np.sum((v > 0) & (y_small < 0))
    c, d = np.sum((v < 0) & (y_small > 0)), np.sum((v < 0) & (y_small < 0))
    delta = {
        "f1": 1 - 2 * a / (2 * a + b + c),
        "balanced": 1 - 0.5 * (a / (a + c) + d / (d + b)),
        "precision_at_k": 1 - a / max(a + b, 1),
        "recall_at_k": 1 - a / (a + c),
    }[measure]
    return delta + (v - y_small) @ mu


for measure, k in (("f1", None), ("balanced", None), ("precision_at_k", 4), ("recall_at_k", 2)):
    allowed = [
        np.array(v)
        for v in itertools.product((-1.0, 1.0), repeat=r)
        if k is None
        or (measure == "precision_at_k" and sum(v) / 2 + r / 2 >= k)
        or (measure == "recall_at_k" and sum(v) / 2 + r / 2 <= k)
    ]
    brute = max(objective(v, measure, k) for v in allowed)
    v = R.bipartite_most_violating(mu, y_small, measure, k=k)
    print(
        f"{measure:15s} sorting: {objective(v, measure, k):.4f}   brute force over "
        f"{len(allowed):4d} labellings: {brute:.4f}"
    )

# %% [markdown]
# The figure shows the maximiser for $F_1$ when the scores are small (here $0.05\,\mu$): the
# loss term dominates, and $v$ flips labels so as to make $F_1$ zero — every positive is
# called negative, and negatives with high scores are called positive. With large scores $v$
# simply follows the sign of the scores. The subgradient step then pushes $w$ away from these
# mistakes.

# %%
v_small = R.bipartite_most_violating(0.05 * mu, y_small, "f1")
fig, ax = figure(7.5, 2.8)
plot_labelling(mu, y_small, v_small, ax=ax, title="most violating labelling for F1 (scores × 0.05)")
show(
    fig,
    alt=f"Two rows of {len(y_small)} items sorted by score, best first: the true labels y on "
    f"top and the most violating labelling v below, triangles for +1 and circles for -1; "
    f"the {int(np.sum(v_small != y_small))} items where v differs from y are circled; v "
    f"calls {int(np.sum((v_small > 0) & (y_small > 0)))} of the {int(np.sum(y_small > 0))} "
    f"positives positive.",
)

# %% [markdown]
# **Explore the most violating labelling.** Choose the measure, the scale of $w$ and, for the
# @k measures, $k$. The readout splits the objective (17.14) into the loss $\Delta(v, y)$ and
# the score term $\sum_i (v_i - y_i)\mu_i$.

# %%
# NBVAL_IGNORE_OUTPUT
from kmlteach.widgets.ch07 import make_violating_explorer

make_violating_explorer(mu, y_small, scale=0.05)

# %% [markdown]
# ## 6 · Exercises
#
# Each exercise is checked against a reference implementation on several inputs; use
# `hint("07.xxx")` if you are stuck.
#
# **Exercise 1 (confusion counts).** Return the tuple $(a, b, c, d)$ of (17.11) for scores
# `y_score`, labels `y_true` in $\{\pm1\}$ and threshold `theta` (predicted positive iff
# score ≥ θ).

# %%
from kmlteach.exercises import check, hint, solution


def confusion_counts(y_score, y_true, theta):
    ### BEGIN SOLUTION
    pred, pos = y_score >= theta, y_true > 0
    a, b = int(np.sum(pred & pos)), int(np.sum(pred & ~pos))
    c, d = int(np.sum(~pred & pos)), int(np.sum(~pred & ~pos))
    return a, b, c, d
    ### END SOLUTION


check("07.confusion", confusion_counts)

# %% [markdown]
# **Exercise 2 (F-beta).** Return $F_\beta = (1+\beta^2)a/(b + \beta^2 c + (1+\beta^2)a)$ at
# threshold `theta` (you may use your `confusion_counts`).


# %%
def f_beta(y_score, y_true, theta, beta):
    ### BEGIN SOLUTION
    a, b, c, d = confusion_counts(y_score, y_true, theta)
    b2 = beta**2
    return (1 + b2) * a / ((1 + b2) * a + b + b2 * c)
    ### END SOLUTION


check("07.fbeta", f_beta)

# %% [markdown]
# **Exercise 3 (precision@k).** Return the precision when θ is the $k$-th largest score (every
# item with score ≥ θ is predicted positive, so ties with the $k$-th score count too).


# %%
def precision_at_k(y_score, y_true, k):
    ### BEGIN SOLUTION
    theta = np.sort(y_score)[::-1][k - 1]
    pred = y_score >= theta
    return np.sum(pred & (y_true > 0)) / np.sum(pred)
    ### END SOLUTION


check("07.precision_at_k", precision_at_k)

# %% [markdown]
# **Exercise 4 (derivation: why the (17.14) procedure is right).** The procedure of UML §17.5.1
# tries every pair $(a, b)$ — $a$ of the positives and $b$ of the negatives labelled $+1$ — and
# for each pair takes the labelling that puts $+1$ on the $a$ best-scored positives and the $b$
# best-scored negatives. Show that for fixed $(a, b)$ this labelling maximises
# $\Delta(v, y) + \sum_i (v_i - y_i)\mu_i$ over all $v$ with those counts (hint: which terms
# are constant once $a$ and $b$ are fixed?), and return it as a $\pm1$ array; on tied scores
# take the smaller index first. The tests compare with a brute-force search over all
# labellings with the same counts.


# %%
def best_labelling(y_score, y_true, a, b):
    ### BEGIN SOLUTION
    pos = np.flatnonzero(y_true > 0)
    neg = np.flatnonzero(y_true < 0)
    pos = pos[np.argsort(-y_score[pos], kind="stable")]
    neg = neg[np.argsort(-y_score[neg], kind="stable")]
    v = -np.ones(len(y_true))
    v[pos[:a]] = 1.0
    v[neg[:b]] = 1.0
    return v
    ### END SOLUTION


check("07.fixed_ab", best_labelling)

# %% [markdown]
# ## Summary
#
# * A threshold turns scores into decisions; the counts $a, b, c, d$ give recall, precision,
#   specificity, balanced accuracy, $F_1$, $F_\beta$, and with a budget $k$, precision@k and
#   recall@k. Moving θ trades precision for recall; PR and ROC curves show every θ at once.
# * With rare positives the zero-one loss rewards flagging nothing; measures built from
#   $a, b, c$ do not.
# * For linear scorers, the structured hinge (17.14) bounds any such measure; its most
#   violating labelling needs only a sort and a loop over $(a, b)$, so SGD can train for
#   $F_1$ or precision@k directly.
#
# Next: [08 · Boosting and ensembles](08-boosting.ipynb) — many weak rules combined into one
# strong predictor: AdaBoost, decision trees, bagging and random forests.

# %% [markdown]
# ## Recap quiz
#
# Five questions on this chapter. The list below is the static
# version; the widget after it checks your answers (or call `ask("07.q3", "b")`
# yourself, with a number for a numeric question, as in `ask("07.q1", 0.8)`).

# %%
display(HTML(quiz_html("07")))

# %%
# NBVAL_IGNORE_OUTPUT
quiz("07")

# %%
# Your progress in this chapter (a question counts with its first answer);
# kmlteach.progress() lists every chapter.
import kmlteach

kmlteach.progress("07")

# %% [markdown]
# ## Sources and further reading
#
# **Sources** (the short names used in this chapter):
#
# * **UML** = S. Shalev-Shwartz and S. Ben-David, *Understanding Machine Learning: From Theory to Algorithms*, Cambridge University Press, 2014 (§17.5).
#
# **Further reading** (classic references, beyond the course's sources):
#
# * T. Joachims, "A support vector method for multivariate performance measures", *Proceedings of ICML*, 2005 — the training procedure of §5.
# * T. Fawcett, "An introduction to ROC analysis", *Pattern Recognition Letters* 27(8), 861–874, 2006.
# * J. Davis and M. Goadrich, "The relationship between precision-recall and ROC curves", *Proceedings of ICML*, 2006.
