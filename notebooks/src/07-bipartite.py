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
# 5. on real, imbalanced data: reweight the classes, choose the threshold on held-out data, and
#    turn scores into probabilities (Platt scaling) checked by a reliability diagram.

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
# explore, type the θ where you think $F_1$ peaks, then press **Reveal**: the
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
# ## 6 · Lab: finding the good wines
#
# The Wine Quality data of chapter 06 again (Cortez et al. 2009, `kmlteach.datasets.wine_quality`,
# CC BY 4.0), this time with a binary label: a wine is **good** ($y = +1$) when the experts'
# median grade is 7 or more, the label `wine_quality().y` carries — about one wine in five. As in
# chapter 06 we keep one copy of each repeated row. The wines are shuffled once and cut into
# three parts: half of them train, a quarter (the **calibration** wines) choose thresholds and,
# in section 7, turn scores into probabilities, and the last quarter tests. Every measurement is
# standardised with the mean and standard deviation of the training wines.

# %%
from kmlteach.datasets import wine_quality
from kmlteach.plots import OKABE_ITO, label_axes

wq = wine_quality()
_, first = np.unique(wq.X, axis=0, return_index=True)
keep = np.sort(first)  # one copy of each wine
X_w, y_w = wq.X[keep], wq.y[keep]
n_w = len(keep)
order = np.random.default_rng(SEED).permutation(n_w)
tr, ca, te = order[: n_w // 2], order[n_w // 2 : 3 * n_w // 4], order[3 * n_w // 4 :]
Z_w = (X_w - X_w[tr].mean(axis=0)) / X_w[tr].std(axis=0)
for part, idx in (("training", tr), ("calibration", ca), ("test", te)):
    print(
        f"{part:12s} {len(idx):5d} wines, {int(np.sum(y_w[idx] > 0)):4d} good ({np.mean(y_w[idx] > 0):.1%})"
    )

# %% [markdown]
# **Predict first.** The exact soft-SVM of chapter 01 (λ = 0.01, with an offset $b$) is trained
# on the 2 660 training wines, 19 % of them good. How many of the 1 330 test wines does it flag
# at θ = 0?
#
# * (a) none
# * (b) about as many as there are good test wines, some 250
# * (c) more than half of them
#
# Replace `"?"` by your letter and run the cell; the cell below reveals the answer.

# %%
ask("07.c_wine_svm", "?")

# %%
lam_w = 0.01
plain = svm.soft_svm(Z_w[tr], y_w[tr], lam_w, homogeneous=False)
n_good = int(np.sum(y_w[tr] > 0))
print(f"soft-SVM, lambda = {lam_w}: |w| < 1e-6: {bool(np.linalg.norm(plain.w) < 1e-6)}, b = {plain.b:.3f}")
print(
    f"its objective {plain.objective:.4f}; the rule 'every wine is ordinary' (w = 0, b = -1) "
    f"has (lambda/2)|w|^2 + mean hinge = 2 x {n_good}/{len(tr)} = {2 * n_good / len(tr):.4f}"
)
print(f"test wines flagged at theta = 0: {int(np.sum(Z_w[te] @ plain.w + plain.b >= 0))} of {len(te)}")

# %% [markdown]
# Not a single wine: the exact minimiser of the regularised hinge loss on these data is, to the
# solver's precision, the constant rule $w = 0$, $b = -1$ that calls every wine ordinary (this
# settles 07.c_wine_svm). At that point every ordinary wine sits exactly on its margin and costs
# nothing, while every good wine pays a hinge loss of 2. Tilting $w$ towards the good wines
# would lift many ordinary wines over their margins too — on these measurements the two classes
# overlap widely, and there are four ordinary wines for each good one — and the solver finds no
# tilt that pays for itself. The fraud data of section 4 failed the same way with one positive in
# a thousand; here one in five is enough.
#
# **Class weights.** The usual cure counts each good training wine $c$ times, with $c$ the ratio
# of ordinary to good wines (4.2, rounded to 4). With an integer $c$ a class weight is literally a
# repetition of rows: the objective becomes $\frac\lambda2\|w\|^2 + \frac1{m'}\sum_i c_i
# \max(0, 1 - y_i(\langle w, x_i\rangle + b))$ with $m' = \sum_i c_i$ — scikit-learn's
# `class_weight` multiplies $C$ by $c_i$ in the same way. We compare it with the two scorers of
# section 5 trained on the training wines, cut into 5 queries of 532: bipartite SGD for $F_1$ and
# for precision@50 (a constant feature plays the role of the offset). For each scorer the table
# gives the counts at θ = 0, three measures that do not depend on θ, and the test $F_1$ at the
# threshold that maximises $F_1$ on the calibration wines.

# %%
c_w = int(round(np.sum(y_w[tr] < 0) / np.sum(y_w[tr] > 0)))
rows = np.r_[tr, np.repeat(tr[y_w[tr] > 0], c_w - 1)]  # each good wine c_w times
weighted = svm.soft_svm(Z_w[rows], y_w[rows], lam_w, homogeneous=False)
Z1 = np.c_[Z_w, np.ones(n_w)]
wine_queries = split_queries(Z1[tr], y_w[tr], 5, seed=SEED)
w_f1 = R.bipartite_sgd(wine_queries, "f1", eta=0.01, T=1000, seed=SEED).w
w_p50 = R.bipartite_sgd(wine_queries, "precision_at_k", k=50, eta=0.01, T=1000, seed=SEED).w
wine_scores = {
    f"soft-SVM, good wines x {c_w}": Z_w @ weighted.w + weighted.b,
    "bipartite SGD, F1": Z1 @ w_f1,
    "bipartite SGD, precision@50": Z1 @ w_p50,
}
print(
    f"class weight c = {c_w} ({np.sum(y_w[tr] < 0)} ordinary / {n_good} good = {np.sum(y_w[tr] < 0) / n_good:.2f})"
)
print(
    f"{'test wines':28s} {'flagged':>7s} {'recall':>6s} {'prec.':>6s} {'F1':>6s} | {'P@100':>6s} {'AP':>6s} "
    f"{'AUC':>6s} | F1 at the tuned θ"
)
for name, f in wine_scores.items():
    s, fc = f[te], f[ca]
    thetas = np.unique(fc)
    best = thetas[int(np.argmax([M.f1(fc, y_w[ca], t) for t in thetas]))]
    print(
        f"{name:28s} {int(np.sum(s >= 0)):7d} {M.recall(s, y_w[te]):6.3f} {M.precision(s, y_w[te]):6.3f} "
        f"{M.f1(s, y_w[te]):6.3f} | {M.precision_at_k(s, y_w[te], 100):6.3f} {M.average_precision(s, y_w[te]):6.3f} "
        f"{M.auc(s, y_w[te]):6.3f} | {M.f1(s, y_w[te], best):.3f} (θ = {best:+.2f})"
    )

# %% [markdown]
# Three readings of the table.
#
# * **At θ = 0 the scorers sit at different points of the trade-off.** The weighted soft-SVM
#   flags about twice as many wines as there are good ones: high recall, low precision. The
#   bipartite models flag far fewer, with the opposite balance, and the lower $F_1$ at θ = 0.
# * **They order the wines about equally well.** AP and AUC, which do not depend on θ (section
#   3), differ by little between the three; precision@100, which rests on the top 100 wines
#   alone, varies more.
# * **A threshold chosen on held-out data closes the gap.** At the θ that maximises $F_1$ on the
#   calibration wines, the three test $F_1$ values lie within 0.02 of each other. On these
#   data the surrogate built for $F_1$ buys an ordering no better than the weighted hinge's; what
#   differs at θ = 0 is where each puts its threshold, the lesson of the precision@10 model of
#   section 4. Choose the threshold for the measure you care about, on data the scorer did not
#   train on.

# %% [markdown]
# ## 7 · From scores to probabilities: Platt scaling
#
# A score tells on which side of the threshold a wine falls; its size is not a probability. A
# wine merchant who must decide whether to taste a bottle would rather know P(good). Platt (1999)
# fits a sigmoid to the scores,
# $$P(y = +1 \mid f) = \frac{1}{1 + \exp(A f + B)},$$
# by maximum likelihood on scores the classifier did **not** train on (here the calibration
# wines: on its own training points a classifier's scores tend to be too confident). One detail matters:
# the targets are not 1 and 0 but $t_+ = (N_+ + 1)/(N_+ + 2)$ for a positive and
# $t_- = 1/(N_- + 2)$ for a negative, with $N_\pm$ the numbers of positives and negatives — as if
# one extra example of each class had been seen, which keeps $A$ and $B$ finite even when the
# scores separate the classes. `kmlteach.theory.platt_scaling(scores, y)` returns $(A, B)$
# (Newton's method with a line search, as Lin, Lin & Weng (2007) give it; it agrees with
# scikit-learn's sigmoid calibration).
#
# A **reliability diagram** checks the result on the test wines: cut [0, 1] into 10 bins of
# predicted probability and plot, for each bin that holds wines, the mean predicted probability
# against the fraction of good wines among them (below, bins of fewer than 10 test wines are not
# drawn). Calibrated probabilities lie on the diagonal.
# (`kmlteach.metrics.reliability_curve` computes the points; exercise 5 asks you to.)
#
# **Predict first.** With $A < 0$ Platt's sigmoid is a strictly increasing function of the
# score. Replace the weighted soft-SVM's test scores by their Platt probabilities: its average
# precision on the test wines (a) rises: probabilities are better scores; (b) stays exactly the
# same; (c) falls: the sigmoid squeezes the largest scores together.

# %%
ask("07.c_platt_order", "?")

# %%
from kmlteach.metrics import reliability_curve
from kmlteach.theory import platt_scaling

svm_name = f"soft-SVM, good wines x {c_w}"
platt = {name: platt_scaling(wine_scores[name][ca], y_w[ca]) for name in (svm_name, "bipartite SGD, F1")}
probs = {name: pl.probability(wine_scores[name][te]) for name, pl in platt.items()}
probs[f"1/(1 + e^-f), {svm_name}"] = 1 / (1 + np.exp(-wine_scores[svm_name][te]))


def calibration_gap(p, y):
    """The mean over the test wines of |fraction of good wines - mean probability| of their bin."""
    rc = reliability_curve(p, y, n_bins=10)
    return float(np.sum(rc.counts * np.abs(rc.prob_true - rc.prob_pred)) / len(y))


for name, pl in platt.items():
    same = M.average_precision(probs[name], y_w[te]) == M.average_precision(wine_scores[name][te], y_w[te])
    print(
        f"{name:20s}: A = {pl.A:+.3f}, B = {pl.B:+.3f}, P(good | f = 0) = {pl.probability([0.0])[0]:.3f}; "
        f"AP of the probabilities = AP of the scores: {same}"
    )
print(f"1/(1 + c) with c = {c_w}: {1 / (1 + c_w):.3f}")
for name, p in probs.items():
    print(f"mean calibration gap on the test wines, {name}: {calibration_gap(p, y_w[te]):.3f}")

fig, (ax, bx) = figure(11.5, 4.4, ncols=2)
f_ca = wine_scores[svm_name][ca]
edges = np.quantile(f_ca, np.linspace(0, 1, 11))
b_ca = np.searchsorted(edges[1:-1], f_ca, side="right")  # 10 bins of 133 calibration wines
ax.plot(
    [f_ca[b_ca == b].mean() for b in range(10)],
    [np.mean(y_w[ca][b_ca == b] > 0) for b in range(10)],
    "o",
    color=OKABE_ITO["black"],
    ms=6,
    label=f"calibration wines, 10 score bins of {len(ca) // 10}",
)
grid = np.linspace(f_ca.min(), f_ca.max(), 200)
A_w, B_w = platt[svm_name]
ax.plot(
    grid,
    platt[svm_name].probability(grid),
    color=OKABE_ITO["blue"],
    lw=2,
    label=f"Platt: A = {A_w:.2f}, B = {B_w:.2f}",
)
ax.plot(
    grid,
    1 / (1 + np.exp(-grid)),
    "--",
    color=OKABE_ITO["grey"],
    lw=1.6,
    label=r"$1/(1 + e^{-f})$: the score as log-odds",
)
ax.axvline(0, color=OKABE_ITO["grey"], lw=0.8, ls=":")
ax.legend(fontsize=8, loc="upper left")
label_axes(ax, f"score f of the soft-SVM (good wines x {c_w})", "P(good)", "fitting the sigmoid")
bx.plot([0, 1], [0, 1], ":", color=OKABE_ITO["grey"], lw=1.5, label="calibrated")
looks = (
    ("Platt, " + svm_name, OKABE_ITO["blue"], "o"),
    ("Platt, bipartite SGD, F1", OKABE_ITO["vermillion"], "^"),
    (r"$1/(1 + e^{-f})$, " + svm_name, OKABE_ITO["grey"], "s"),
)
for p, (label, color, marker) in zip(probs.values(), looks):
    rc = reliability_curve(p, y_w[te], n_bins=10)
    many = rc.counts >= 10  # bins of fewer than 10 test wines are left out
    bx.plot(rc.prob_pred[many], rc.prob_true[many], "-", color=color, lw=1.2)
    bx.scatter(
        rc.prob_pred[many],
        rc.prob_true[many],
        s=10 + 0.4 * rc.counts[many],
        color=color,
        marker=marker,
        label=label,
        zorder=3,
    )
bx.set(xlim=(0, 1), ylim=(0, 1))
bx.legend(fontsize=8, loc="upper left")
label_axes(
    bx,
    "predicted P(good), mean over the bin",
    "fraction of good wines in the bin",
    f"reliability on the {len(te)} test wines",
)
show(
    fig,
    alt="Left: for the calibration wines, the fraction of good wines in ten bins of the weighted "
    "soft-SVM's score rises from near 0 to about one half; Platt's fitted sigmoid runs through "
    "these points, while the dashed curve 1/(1 + e^-f) lies above them everywhere. Right: the "
    "reliability diagram on the test wines (bins of at least 10 wines, marker area growing with "
    "the number of wines): the Platt probabilities of the soft-SVM and of the F1 model follow the "
    "dotted diagonal, the log-odds reading of the soft-SVM's score lies far below it.",
)

# %% [markdown]
# The average precision does not move (this settles 07.c_platt_order): a strictly increasing map
# keeps the order of the wines, and AP, AUC and precision@k depend on the order alone (section
# 3). What Platt changes is what a number means. On the left, the fitted sigmoid follows the
# fraction of good wines per score bin, while reading the score as log-odds, $1/(1 + e^{-f})$,
# overstates the probability over the whole range of these scores; on the right, the Platt probabilities of both scorers lie near
# the diagonal on the test wines and the log-odds reading lies far below it (the mean gaps
# above). Where the weighted soft-SVM puts its boundary $f = 0$ is now readable too: at a
# probability of good close to $1/(1 + c)$. That is where a rule that counts a missed good wine
# $c$ times as costly as a false alarm should flag — flag when $c\,P(\text{good}) > 1 -
# P(\text{good})$ — while the $F_1$ model's boundary lies near $P = \tfrac12$, which is why it
# flagged fewer wines at θ = 0.

# %% [markdown]
# ## 8 · Exercises
#
# Each exercise is checked against a reference implementation on several inputs.
# Stuck? `hint("07.xxx")`, then `hint("07.xxx", level=2)` and so on: three levels, from a
# nudge to close to code. The third level and `solution("07.xxx")` come with the solutions,
# when your course releases them (until then they say so).
#
# **Exercise 1 (confusion counts).** Return the tuple $(a, b, c, d)$ of (17.11) for scores
# `y_score`, labels `y_true` in $\{\pm1\}$ and threshold `theta` (predicted positive iff
# score ≥ θ).

# %%
from kmlteach.exercises import check, hint, solution  # noqa: F401  (hint and solution: for the student to call)


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
# **Exercise 5 (the points of a reliability diagram).** `y_prob` holds predicted probabilities
# $P(y = +1)$ in [0, 1] and `y_true` the labels ±1. Cut [0, 1] into `n_bins` bins of equal
# width; a probability equal to an inner edge belongs to the lower bin, so bin $b$ (from 0)
# holds the probabilities in $(b/n, (b + 1)/n]$ and bin 0 also holds 0. For every bin that
# holds at least one item, in the order of the bins, return the fraction of its items that are
# positive, the mean of their predicted probabilities and their number, as three arrays
# `(prob_true, prob_pred, counts)`; leave the empty bins out (section 7 draws these points).


# %%
def reliability_bins(y_prob, y_true, n_bins):
    ### BEGIN SOLUTION
    edges = np.linspace(0, 1, n_bins + 1)
    b = np.searchsorted(edges[1:-1], y_prob, side="left")  # an inner edge goes to the lower bin
    counts = np.bincount(b, minlength=n_bins)
    keep = counts > 0
    good = np.bincount(b, weights=(y_true > 0).astype(float), minlength=n_bins)
    total = np.bincount(b, weights=y_prob, minlength=n_bins)
    return good[keep] / counts[keep], total[keep] / counts[keep], counts[keep]
    ### END SOLUTION


check("07.reliability", reliability_bins)

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
# * On real wines, one in five good, the plain soft-SVM collapses to "every wine is ordinary";
#   class weights or a surrogate for $F_1$ give scorers that order the wines about equally well,
#   and a threshold chosen on held-out data matters as much as the training objective.
# * Platt scaling fits $P(y = +1 \mid f) = 1/(1 + e^{Af + B})$ on held-out scores, with targets
#   $(N_+ + 1)/(N_+ + 2)$ and $1/(N_- + 2)$; it leaves the order (AP, AUC) unchanged and makes the
#   numbers probabilities, which a reliability diagram checks.
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
# Your progress in this chapter: a question counts with its first answer, a prediction
# explorer once, with the first answer it scores (its next questions are practice);
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
