# %% [markdown]
# # 06 · Ranking
#
# [Open this chapter on Binder](https://mybinder.org/v2/gh/kmlteach/kmlteach/main?urlpath=lab/tree/notebooks/06-ranking.ipynb)
#
# *Source: UML §17.4 (ranking losses, linear predictors for ranking, the assignment problem and
# Lemma 17.4), with the SGD of UML §17.2.5.*
#
# *Notation: every symbol of the course, chapter by chapter, with the letters that change meaning flagged, is in the [glossary](../docs/glossary.md).*
#
# A search engine does not classify documents, it *orders* them: what matters is which
# results come first. In this chapter a prediction is a whole ordering of $r$ items, and we
# need losses that say how far one ordering is from another — and ways to learn a scoring
# function whose ordering has a small loss.
#
# **You need:** chapter 04 (the generalized hinge loss with a cost Δ, SGD on it, and the loss-
# augmented argmax).
#
# **You will be able to:**
# 1. turn a score vector into the permutation it induces and compute the 0–1, Kendall-tau and
#    NDCG losses (with a top-$k$ discount);
# 2. explain why these losses are hard to minimise directly and write the convex surrogates
#    for linear ranking functions;
# 3. reduce the NDCG surrogate's subgradient to an assignment problem, solve it with the
#    Hungarian method, and check Lemma 17.4 (the LP relaxation has a permutation optimum);
# 4. learn a linear ranking function by SGD and follow its held-out losses.
# 5. rank real data — wines graded by experts — and judge the result against simple baselines.

# %%
import itertools

import numpy as np
from IPython.display import HTML, display

from kmlteach import ranking as R
from kmlteach.datasets import ranking_queries
from kmlteach.exercises import ask, quiz, quiz_html
from kmlteach.plots import figure, show
from kmlteach.plots.ch06 import plot_assignment, plot_learning_curves, plot_ranked_list

SEED = 0
rng = np.random.default_rng(SEED)


def vec(v, nd=3):
    """Print a vector with a fixed number of decimals (or as integers)."""
    v = np.asarray(v)
    if v.dtype.kind in "iu":
        return "(" + ", ".join(str(int(x)) for x in v) + ")"
    return "(" + ", ".join(f"{x:.{nd}f}" for x in v) + ")"


# %% [markdown]
# ## 1 · A ranking is a score vector
#
# For a list $\bar x = (x_1, \dots, x_r)$ of items the predictor returns scores
# $y' \in \mathbb{R}^r$. Sorting the scores gives the ordering; UML writes it as the permutation
# $\pi(y')$ whose $i$-th entry is the **position** of item $i$ when the scores are sorted
# *increasingly*. So position $r$ is the top of the list and position 1 the bottom. The book's
# example: $y = (2, 1, 6, -1, 0.5)$ sorted is $(-1, 0.5, 1, 2, 6)$, hence
# $\pi(y) = (4, 3, 5, 1, 2)$.
#
# Equal scores do not define an order, so we fix a rule: **tied items are ordered by index,
# the smaller index getting the smaller position** (a stable sort).

# %%
y_book = np.array([2.0, 1.0, 6.0, -1.0, 0.5])
print("pi(2, 1, 6, -1, 0.5) =", vec(R.permutation(y_book)))
print("pi(1, 1, 0)          =", vec(R.permutation([1.0, 1.0, 0.0])), " (tie: item 1 below item 2)")

# %% [markdown]
# ## 2 · Three ranking losses (UML §17.4)
#
# Let $y$ be the true relevance scores and $y'$ the prediction.
#
# * **0–1 ranking loss** $\mathbb{1}[\pi(y') \neq \pi(y)]$: one swap anywhere costs as much as
#   a completely reversed list — too blunt to be useful.
# * **Kendall-tau loss**: the fraction of pairs that the two vectors order differently,
#   $$\Delta(y', y) = \frac{2}{r(r-1)} \sum_{i<j} \mathbb{1}\big[\operatorname{sign}(y'_i - y'_j) \ne \operatorname{sign}(y_i - y_j)\big].$$
#   There are $r(r-1)/2$ pairs, so the factor makes it a fraction in $[0, 1]$. Without ties it
#   equals $(1-\tau)/2$ for Kendall's rank correlation $\tau$. With ties, $\operatorname{sign}(0) = 0$
#   matters: a pair tied in $y$ but not in $y'$ counts as a disagreement.
# * **NDCG loss**: with a non-increasing weight per rank (the *discount*) the gain
#   $G(y', y) = \sum_i D(\pi(y')_i)\, y_i$ adds up the true relevances, each weighted by the
#   place where $y'$ puts it. Dividing by the best possible gain $G(y, y)$ and subtracting
#   from one gives $\Delta(y', y) = 1 - G(y', y)/G(y, y) \in [0, 1]$. The usual discount is
#   $D(i) = 1/\log_2(r - i + 2)$ for the top $k$ positions $i \in \{r-k+1, \dots, r\}$ and $0$
#   below: the top item weighs 1, the next $1/\log_2 3 \approx 0.63$, and so on.

# %% [markdown]
# **Predict first.** True relevances y = (3, 0, 2, 1, 0, 2), predicted scores y' = (0.6, 0.9,
# 0.2, 0.5, 0.1, 0.7). What is the NDCG loss with top k = 1? (a number)
#
# Replace `"?"` by your number and run the cell; the cell below reveals the answer.

# %%
ask("06.c_ndcg_top1", "?")

# %%
y_true = np.array([3.0, 0.0, 2.0, 1.0, 0.0, 2.0])  # six documents, graded 0..3
y_pred = np.array([0.6, 0.9, 0.2, 0.5, 0.1, 0.7])  # a first guess of a scorer
print("pi(y')                 =", vec(R.permutation(y_pred)))
print(f"0-1 ranking loss       = {R.zero_one_ranking_loss(y_pred, y_true):.0f}")
print(f"Kendall-tau loss       = {R.kendall_tau_loss(y_pred, y_true):.4f}")
for k in (1, 3, None):
    print(f"NDCG loss, top k = {str(k):>4s} = {R.ndcg_loss(y_pred, y_true, k=k):.4f}")
print("discounts of positions 1..6 (k = 3):", vec(R.discount(np.arange(1, 7), 6, k=3)))

# %% [markdown]
# The line "NDCG loss, top k = 1" settles 06.c_ndcg_top1: only the item on top counts, and the
# first guess puts there an item of relevance 0, so the gain is 0 and the loss is 1.
#
# **Predict first.** Same y = (3, 0, 2, 1, 0, 2). A scorer that never gives two items the same
# score: what is the smallest Kendall-tau loss it can reach?
#
# * (a) 0
# * (b) 1/15
# * (c) 2/15
# * (d) 1/2
#
# Replace `"?"` by your letter and run the cell; the second remark below reveals the answer.

# %%
ask("06.c_kendall_floor", "?")

# %% [markdown]
# A remark on conventions, worth knowing before comparing with other software: with the rank
# from the top $\rho = r - i + 1$ the discount is $1/\log_2(\rho + 1)$, the one in
# scikit-learn's `ndcg_score`, which also uses the relevances themselves as gains. So
# `1 - ndcg_score([y], [y'], k=k)` equals our loss whenever $y'$ has no ties (the tests check
# this). On ties in $y'$ scikit-learn averages the gains of the tied items while we break the
# tie by index; and when no relevant item exists ($G(y, y) = 0$) it reports a score of 0,
# whereas we define the loss as 0 (every ordering is as good as the best one).
#
# <details><summary>Answer and why</summary>
#
# The Kendall loss of a relevance vector *with grades* can never reach 0 for a scorer without
# ties: every pair with the same grade counts as a disagreement. This settles
# 06.c_kendall_floor.
#
# </details>
#
# The figure shows the ranked list of the first guess: bar $j$ is the true relevance of the
# item put at rank $j$ (the letter below), the dashed steps the ideal order, the dotted curve
# the discount. Items beyond the top $k = 3$ (shaded) do not count in the truncated NDCG.

# %%
fig, ax = figure(6.4, 3.6)
plot_ranked_list(
    y_pred,
    y_true,
    k=3,
    ax=ax,
    title=f"Kendall {R.kendall_tau_loss(y_pred, y_true):.3f}, "
    f"NDCG@3 loss {R.ndcg_loss(y_pred, y_true, k=3):.3f}",
)
shown = y_true[np.argsort(-R.permutation(y_pred), kind="stable")]
show(
    fig,
    alt=f"Bars for ranks 1 to {len(y_true)} of the first guess, each as high as the true "
    f"relevance of the item put there and labelled with it: {', '.join(f'{g:g}' for g in shown)}"
    f" (a relevance-0 item is a grey dash on the axis); dashed steps show the ideal order, "
    f"a dotted curve the discount, and the ranks after 3 are shaded.",
)

# %% [markdown] tags=["slide-skip"]
# **Predict, then reveal.** The same six documents, scored by a second scorer this time. Work
# out the Kendall-tau loss of the order its scores give, type your guess, then press **Reveal**
# to draw the ranked list (within 0.05 counts); move a score past another one for a new question
# (a move that keeps the order asks nothing new: the losses stay the same). The readout keeps
# your score.

# %% tags=["slide-skip"]
# NBVAL_IGNORE_OUTPUT
from kmlteach.widgets.ch06 import make_ranking_explorer

make_ranking_explorer(scores=[0.3, 0.8, 0.9, 0.1, 0.4, 0.6], predict=True)

# %% [markdown]
# **Reorder the items.** Each slider is the predicted score of one document (its true
# relevance is in the label). Move the best document *A* to the top, then try to fix the
# order further down and watch which loss reacts: the NDCG loss with a small $k$ ignores
# everything below the top $k$, the Kendall loss counts every pair alike. The **ideal order**
# button sets every score to its relevance divided by 4 (the sliders run from 0 to 1): the
# scores then order the documents exactly as the relevances do, ties included, and all three
# losses vanish.

# %%
# NBVAL_IGNORE_OUTPUT
from kmlteach.widgets.ch06 import make_ranking_explorer

make_ranking_explorer()

# %% [markdown]
# ## 3 · Linear ranking functions and convex surrogates (UML §17.4.1)
#
# A linear ranking function scores every item with the same vector $w$:
# $h_w(\bar x) = (\langle w, x_1\rangle, \dots, \langle w, x_r\rangle)$ (UML (17.6)). The losses
# above depend on $w$ only through an ordering, so they are piecewise constant in $w$ — no
# gradient to follow. As for classification we replace them by convex upper bounds.
#
# **Kendall hinge.** Each pair is a small binary problem. With $s_{ij} = \operatorname{sign}(y_i - y_j)$
# the pair is misordered when $s_{ij}\langle w, x_i - x_j\rangle \le 0$, an event bounded by the
# hinge $\max\{0,\ 1 - s_{ij}\langle w, x_i - x_j\rangle\}$, and
# averaging over pairs bounds the Kendall loss by a convex function of $w$.
#
# **NDCG hinge.** The permutation a score vector induces is the maximiser
# $\pi(y') = \operatorname{argmax}_{v \in V} \sum_i v_i y'_i$ over all permutations $v$ of
# $(1, \dots, r)$ (UML (17.7)): pair the largest position with the largest score. Writing
# $\Psi(\bar x, v) = \sum_i v_i x_i$ turns ranking into a multiclass problem with $r!$ "labels",
# and the generalized hinge loss of chapter 04 gives (UML (17.8))
# $$\ell(w) = \max_{v \in V}\Big[\Delta(v, y) + \sum_i (v_i - \pi(y)_i)\langle w, x_i\rangle\Big] \ \ge\ \Delta(h_w(\bar x), y).$$
# A subgradient is $\sum_i (v_i - \pi(y)_i) x_i$ at the maximising $v$. Let us check (17.7) and the
# bound on a random list.

# %%
r, d = 6, 3
Xq = rng.normal(size=(r, d))
yq = np.array([3.0, 0.0, 1.0, 2.0, 0.0, 1.0])
w = rng.normal(size=d)
scores = R.linear_scores(w, Xq)
perms = [np.array(p) for p in itertools.permutations(range(1, r + 1))]
best = max(perms, key=lambda v: v @ scores)
print("argmax_v sum v_i y'_i =", vec(best), "  pi(y') =", vec(R.permutation(scores)))
kh, nh = R.kendall_hinge(w, Xq, yq), R.ndcg_hinge(w, Xq, yq)
print(f"Kendall loss {R.kendall_tau_loss(scores, yq):.4f} <= Kendall hinge {kh.loss:.4f}")
print(f"NDCG loss    {R.ndcg_loss(scores, yq):.4f} <= NDCG hinge    {nh.loss:.4f}")

# %% [markdown]
# ## 4 · The assignment problem and Lemma 17.4
#
# Finding the maximiser $v$ in (17.8) looks like a search over $r!$ permutations. Plugging in
# the NDCG loss, it becomes $\operatorname{argmin}_{v} \sum_i (\alpha_i v_i + \beta_i D(v_i))$ with
# $\alpha_i = -\langle w, x_i\rangle$ and $\beta_i = y_i/G(y, y)$: item $i$ placed at position
# $j$ costs $A_{ij} = j\alpha_i + D(j)\beta_i$, and every position takes one item. This is the
# **assignment problem** (UML (17.9)): tasks $i$, workers $j$, cost matrix $A$. Kuhn's
# *Hungarian method* solves it exactly in $O(r^3)$; `R.assignment` implements it (in its
# shortest-augmenting-path form) and returns the column of each row.
#
# **Mind the indexing.** Until now permutations were lists of **1-based positions**, as in
# UML: $\pi(y)_i \in \{1, \dots, r\}$. The assignment solver numbers rows and columns from
# 0, as NumPy does, so its answer $v$ below is a 0-based permutation of $0, \dots, 4$: row $i$
# (task $i + 1$) goes to column $v_i$ (worker $v_i + 1$), and position $j$ of (17.9) is column
# $j - 1$ of $A$.

# %%
A = rng.integers(0, 10, size=(5, 5)).astype(float)
v = R.assignment(A)
brute = min(itertools.permutations(range(5)), key=lambda p: A[np.arange(5), list(p)].sum())
print("Hungarian:   v =", vec(v), f" cost {R.assignment_cost(A, v):.0f}")
print("brute force: v =", vec(np.array(brute)), f" cost {A[np.arange(5), list(brute)].sum():.0f}")
best = A[np.arange(5), list(brute)].sum()
optima = [p for p in itertools.permutations(range(5)) if A[np.arange(5), list(p)].sum() == best]
tie = " (a tie: the two may pick different v)" if len(optima) > 1 else ""
print(f"{len(optima)} of the 120 assignments reach the minimum cost {best:.0f}{tie}")

fig, ax = figure(4.4, 3.8)
plot_assignment(A, v, ax=ax, title=f"optimal assignment, cost {R.assignment_cost(A, v):.0f}", values=True)
show(
    fig,
    alt="Heat map of the 5 by 5 cost matrix, each cost written in its cell; one framed cell "
    "per row and per column marks the optimal assignment: "
    + ", ".join(f"task {i + 1} to worker {j + 1}" for i, j in enumerate(v))
    + f", total cost {R.assignment_cost(A, v):.0f}.",
)

# %% [markdown]
# The NDCG surrogate's maximiser is exactly such an assignment; `R.ndcg_most_violating` builds
# $A$, calls the solver and adds 1 to its answer, so the $v$ it prints, like the search over all
# $6! = 720$ permutations it is compared with below, is again a list of 1-based positions.

# %%
mu = R.linear_scores(w, Xq)
v_star = R.ndcg_most_violating(mu, yq)
pi_y = R.permutation(yq)
value = lambda v: R.ndcg_loss(v.astype(float), yq) + (v - pi_y) @ mu
v_brute = max(perms, key=value)
print("assignment:  v =", vec(v_star), f" value {value(v_star):.6f}")
print("brute force: v =", vec(v_brute), f" value {value(v_brute):.6f}")

# %% [markdown]
# **Why an LP would do (Lemma 17.4).** Drop the constraint $B_{ij} \in \{0, 1\}$ from the
# permutation-matrix formulation of (17.9): the feasible set becomes the *doubly stochastic*
# matrices (non-negative, rows and columns summing to 1), a polytope whose corners are the
# permutation matrices (Birkhoff–von Neumann, Claim 17.3). A linear objective on a polytope is
# minimised at a corner, so the relaxed problem (17.10) has a permutation matrix among its
# optima. Two numerical views, with NumPy alone:
#
# 1. random doubly stochastic matrices (mixtures of permutation matrices) never beat the
#    Hungarian optimum — evidence, not a proof;
# 2. a certificate for *all* of them at once, from LP duality. Numbers $u_i$ (one per row) and
#    $v_j$ (one per column) with $u_i + v_j \le A_{ij}$ in every cell bound every doubly
#    stochastic $B$ from below:
#    $\langle A, B\rangle = \sum_{ij} B_{ij}(A_{ij} - u_i - v_j) + \sum_i u_i + \sum_j v_j \ge \sum_i u_i + \sum_j v_j$,
#    because the entries of $B$ are non-negative and its rows and columns sum to 1. We build
#    such *dual potentials* from the optimal assignment σ: its cells are made tight,
#    $u_i = A_{i\sigma(i)} - v_{\sigma(i)}$, so the potentials add up to the cost of σ by
#    construction, and the other constraints read $v_j \le v_{\sigma(i)} + A_{ij} - A_{i\sigma(i)}$:
#    shortest-path conditions, which $r$ sweeps of Bellman–Ford satisfy unless some cyclic
#    reassignment of σ is cheaper. What the cell checks is that every constraint holds in the
#    end; then no doubly stochastic matrix, and no other permutation, costs less than σ.

# %%
r5 = 5
opt = R.assignment_cost(A, v)
gaps = []
for _ in range(2000):
    lam = rng.dirichlet(np.ones(4))
    B = sum(l * np.eye(r5)[rng.permutation(r5)] for l in lam)  # a doubly stochastic matrix
    gaps.append(float(np.sum(A * B)) - opt)
print(f"min over 2000 doubly stochastic B of <A, B> - optimum = {min(gaps):.4f} (never negative)")


def dual_potentials(A, sigma):
    """(u, v) with u_i + v_sigma(i) = A[i, sigma(i)], the v_j by Bellman-Ford sweeps over
    v_j <= v_sigma(i) + A[i, j] - A[i, sigma(i)] (sigma 0-based)."""
    n_tasks = len(sigma)
    tight = A[np.arange(n_tasks), sigma]
    col = np.zeros(n_tasks)
    for _ in range(n_tasks):
        for task in range(n_tasks):
            col = np.minimum(col, col[sigma[task]] + A[task] - tight[task])
    return tight - col[sigma], col


A6 = np.random.default_rng(3).integers(0, 10, size=(6, 6)).astype(float)
for name, M in (("5 x 5 example", A), ("6 x 6 matrix ", A6)):
    sigma = R.assignment(M)
    u_pot, v_pot = dual_potentials(M, sigma)
    reduced = M - u_pot[:, None] - v_pot[None, :]
    print(
        f"{name}: u = {vec(u_pot, 0)}, v = {vec(v_pot, 0)}; smallest A_ij - u_i - v_j = "
        f"{reduced.min() + 0.0:.0f}; sum u + sum v = {u_pot.sum() + v_pot.sum():.0f} = optimum "
        f"{R.assignment_cost(M, sigma):.0f} (sum of the row minima: {M.min(axis=1).sum():.0f})"
    )

# %% [markdown]
# In both cases every constraint holds (no reduced cost $A_{ij} - u_i - v_j$ is negative), so
# the Hungarian answer is optimal over all doubly stochastic matrices. For the 5 × 5 example
# the certificate is plain: each row's cheapest cell lies in a column of its own, so $u$ holds
# the row minima and $v = 0$. The 6 × 6 matrix needs the shifts $v_j$: its row minima add up to
# far less than its optimum, and only the potentials close the gap.

# %% [markdown]
# ## 5 · Learning to rank with SGD
#
# `R.ranking_sgd` runs "SGD for multiclass learning" (UML §17.2.5) on either surrogate:
# $w^{(1)} = 0$; at step $t$ draw one query $(\bar x, y)$, take the subgradient $v_t$ and set
# $w^{(t+1)} = w^{(t)} - \eta v_t$; output the average $\bar w$. Our data: 200 synthetic
# queries of 10 items in $\mathbb{R}^{20}$ whose relevance grades 0–3 come from a hidden
# direction plus noise (`ranking_queries`). We train on 150 queries and measure both losses
# on the other 50 while $T$ grows (the running averages are recorded every 5 steps).
#
# **Predict first.** The grades come from the hidden direction plus noise. As $T$ grows, the
# held-out NDCG loss of the two SGD models (a) goes to 0: enough steps order every query right;
# (b) levels off near the held-out NDCG loss of the hidden direction itself, well above 0;
# (c) grows with $T$: the hinge is not the loss.

# %%
ask("06.c_sgd_floor", "?")

# %%
queries, w_hidden = ranking_queries(200, r=10, d=20, noise=1.0, seed=SEED, return_w=True)
train, test = queries[:150], queries[150:]
runs = {
    name: R.ranking_sgd(train, surrogate=name, eta=0.01, T=2000, seed=SEED, record_every=5)
    for name in ("kendall", "ndcg")
}
steps = runs["kendall"].path_t
keep = np.unique(np.round(np.logspace(0, np.log10(len(steps)), 15)).astype(int)) - 1
curves_ndcg = {
    f"trained on the {name} hinge": [R.mean_loss(res.path[i], test, "ndcg") for i in keep]
    for name, res in runs.items()
}
curves_kendall = {
    f"trained on the {name} hinge": [R.mean_loss(res.path[i], test, "kendall") for i in keep]
    for name, res in runs.items()
}
floor = np.mean([np.mean([yy[i] == yy[j] for i in range(10) for j in range(i + 1, 10)]) for _, yy in test])
hidden_ndcg, hidden_kendall = R.mean_loss(w_hidden, test, "ndcg"), R.mean_loss(w_hidden, test, "kendall")
for name, res in runs.items():
    print(
        f"{name:>7s} surrogate, T = 2000: held-out NDCG loss {R.mean_loss(res.w, test, 'ndcg'):.4f}, "
        f"Kendall loss {R.mean_loss(res.w, test, 'kendall'):.4f}"
    )
print(
    f"hidden direction:              held-out NDCG loss {hidden_ndcg:.4f}, Kendall loss {hidden_kendall:.4f}"
)
print(f"share of tied pairs in the test grades (a floor for the Kendall loss): {floor:.4f}")

fig, axes = figure(10, 3.6, ncols=2)
plot_learning_curves(steps[keep], curves_ndcg, ax=axes[0], ylabel="held-out NDCG loss")
axes[0].axhline(hidden_ndcg, color="grey", ls=":", label="hidden direction")
plot_learning_curves(steps[keep], curves_kendall, ax=axes[1], ylabel="held-out Kendall loss")
axes[1].axhline(floor, color="grey", ls=":", label="tied-pair floor")
for ax in axes:
    ax.legend(fontsize=8)
end = {name: (c[-1], curves_kendall[name][-1]) for name, c in curves_ndcg.items()}
show(
    fig,
    alt="Held-out NDCG loss (left) and Kendall loss (right) against the SGD steps T on a log "
    "axis, for the models trained on the Kendall hinge (solid, circles) and on the NDCG "
    "hinge (dashed, triangles); after the last step: "
    + "; ".join(f"{n}: NDCG {a:.3f}, Kendall {b:.3f}" for n, (a, b) in end.items())
    + f". Dotted grey lines: the hidden direction's NDCG loss {hidden_ndcg:.3f} and the "
    f"tied-pair floor {floor:.3f} of the Kendall loss.",
)

# %% [markdown]
# Both surrogates bring the held-out NDCG loss down within a few hundred steps and then level
# off close to the loss of the hidden direction that generated the grades, far from 0: the
# noise added to the grades is not a function of $x$, so on fresh queries no linear scorer can
# predict it, and even the hidden direction misorders some items. SGD can only hope to find a
# direction about as good as the hidden one. This settles 06.c_sgd_floor. Here the NDCG hinge,
# built for this loss, ends a little lower than the Kendall hinge.
#
# The Kendall loss has a second floor (dotted): it can never go below the share of tied pairs.
# With graded relevance many pairs are ties (two irrelevant documents), and a linear scorer
# never produces ties, so those pairs count as disagreements whatever $w$ is — the floor of
# section 2, averaged over the test queries.

# %% [markdown]
# ## 6 · Lab: ranking real wines
#
# So far the relevance grades were generated. Here they come from people: the Wine Quality data
# (Cortez et al. 2009; `kmlteach.datasets.wine_quality`, CC BY 4.0, its `.citation` names the
# source) describe 6 497 Portuguese *vinho verde* wines, red and white, by eleven laboratory
# measurements (acidity, sugar, sulphur dioxide, density, pH, sulphates, alcohol, ...) and a
# red/white flag, each with the median of at least three experts' grades on a scale of 0 to 10
# (3 to 9 occur). The data come as one table, not as queries, so we make the lists ourselves;
# these are our choices, and you can change any of them:
#
# * some rows repeat an earlier row exactly (same measurements, same grade). We keep one copy of
#   each wine, so that no wine sits in a training list and a test list at once;
# * a **list** is 10 wines drawn at random without replacement, like a shelf to be ordered for a
#   customer; the first 400 lists train, the rest test;
# * the **relevance** of a wine is its grade above 5, $\max(0, \text{grade} - 5)$: 0 for grade 5
#   or below and up to 4 for grade 9 — to a customer who wants a good bottle an ordinary wine
#   adds nothing to the gain;
# * every measurement is standardised with the mean and standard deviation of the training
#   wines.

# %%
from kmlteach.datasets import wine_quality
from kmlteach.plots import OKABE_ITO

wq = wine_quality()
_, first = np.unique(wq.X, axis=0, return_index=True)
keep = np.sort(first)  # one copy of each wine, in the order of the file
X_w, grade = wq.X[keep], wq.target[keep]
relevance = np.maximum(grade - 5, 0)
r_w = 10
n_lists = len(keep) // r_w
lists = np.random.default_rng(SEED).permutation(len(keep))[: n_lists * r_w].reshape(n_lists, r_w)
train_rows = lists[:400].ravel()
Z_w = (X_w - X_w[train_rows].mean(axis=0)) / X_w[train_rows].std(axis=0)
wine_lists = [(Z_w[rows], relevance[rows]) for rows in lists]
train_w, test_w = wine_lists[:400], wine_lists[400:]
print(
    f"{len(wq.target)} rows, {len(keep)} distinct wines: {n_lists} lists of {r_w}, "
    f"{len(train_w)} for training and {len(test_w)} for testing"
)
print("wines of relevance 0, 1, 2, 3, 4:", ", ".join(str(int(np.sum(relevance == g))) for g in range(5)))
tied = np.mean([np.mean([y[i] == y[j] for i in range(r_w) for j in range(i + 1, r_w)]) for _, y in test_w])
print(f"share of tied pairs in the test lists (the floor of the Kendall loss): {tied:.3f}")

# %% [markdown]
# Four linear scorers $\langle w, x\rangle$ will order the test lists:
#
# * **alcohol alone**, $w = e_{\text{alcohol}}$: no learning at all, one measurement;
# * **least squares on the grades**: $w$ (with an offset, dropped afterwards) fits each training
#   wine's grade, one wine at a time — it never sees a list;
# * **SGD on the Kendall hinge** and **SGD on the NDCG hinge** (section 5, 4 000 steps, η = 0.05),
#   trained on the 400 lists.
#
# As a reference, a uniformly random order: each item lands at each position with probability
# $1/r$, so its expected gain is $\frac1r\sum_i y_i \sum_j D(j)$, and it misorders each untied
# pair with probability ½ — exact expected losses, no simulation needed.
#
# **Predict first.** Least squares fits grades, SGD fits orders. Compare the held-out NDCG@3
# loss of least squares with that of SGD on the NDCG hinge: least squares is
# (a) clearly worse, by 0.05 or more: fitting the grades of the many ordinary wines is not
# ordering the top of a list; (b) within 0.01 of it; (c) clearly better, by 0.05 or more.

# %%
ask("06.c_wine_pointwise", "?")


# %%
def random_order_losses(y, k=None):
    """Expected NDCG@k loss and Kendall loss of a uniformly random order of y (exact)."""
    r = len(y)
    D = R.discount(np.arange(1, r + 1), r, k=k)
    ndcg = 1 - y.sum() * D.mean() / R.dcg(y, y, k=k)
    ties = sum(y[i] == y[j] for i in range(r) for j in range(i + 1, r))
    pairs = r * (r - 1) / 2
    return ndcg, (ties + (pairs - ties) / 2) / pairs


w_ls = np.linalg.lstsq(np.c_[Z_w[train_rows], np.ones(len(train_rows))], grade[train_rows], rcond=None)[0][
    :-1
]
scorers = {
    "alcohol alone": np.eye(len(wq.feature_names))[wq.feature_names.index("alcohol")],
    "least squares on the grades": w_ls,
    "SGD, Kendall hinge": R.ranking_sgd(train_w, surrogate="kendall", eta=0.05, T=4000, seed=SEED).w,
    "SGD, NDCG hinge": R.ranking_sgd(train_w, surrogate="ndcg", eta=0.05, T=4000, seed=SEED).w,
}
random3 = np.mean([random_order_losses(y, 3) for _, y in test_w], axis=0)
random_all = np.mean([random_order_losses(y)[0] for _, y in test_w])
print(f"{'held-out losses':28s} {'NDCG@3':>7s} {'NDCG':>7s} {'Kendall':>7s}")
print(f"{'random order (expected)':28s} {random3[0]:7.3f} {random_all:7.3f} {random3[1]:7.3f}")
for name, w in scorers.items():
    print(
        f"{name:28s} {R.mean_loss(w, test_w, 'ndcg', k=3):7.3f} {R.mean_loss(w, test_w, 'ndcg'):7.3f} "
        f"{R.mean_loss(w, test_w, 'kendall'):7.3f}"
    )
w_sgd = scorers["SGD, NDCG hinge"]
cosine = w_ls @ w_sgd / (np.linalg.norm(w_ls) * np.linalg.norm(w_sgd))
print(f"cosine between the directions of least squares and of SGD on the NDCG hinge: {cosine:.2f}")
closed = (random3[0] - R.mean_loss(scorers["alcohol alone"], test_w, "ndcg", k=3)) / (
    random3[0] - R.mean_loss(w_sgd, test_w, "ndcg", k=3)
)
print(f"share of the NDCG@3 gap between a random order and SGD that alcohol alone closes: {closed:.2f}")
print(
    f"SGD on the NDCG hinge, on its own 400 training lists: NDCG@3 loss {R.mean_loss(w_sgd, train_w, 'ndcg', k=3):.3f}"
)

ks = np.arange(1, r_w + 1)
fig, (ax, bx) = figure(11.5, 4.2, ncols=2, width_ratios=[1, 1.1])
random_k = [np.mean([random_order_losses(y, k)[0] for _, y in test_w]) for k in ks]
ax.plot(ks, random_k, ":", color=OKABE_ITO["grey"], lw=2, label="random order (expected)")
styles = {
    "alcohol alone": ("s-", OKABE_ITO["orange"]),
    "least squares on the grades": ("o-", OKABE_ITO["blue"]),
    "SGD, Kendall hinge": ("^--", OKABE_ITO["green"]),
    "SGD, NDCG hinge": ("v-", OKABE_ITO["vermillion"]),
}
at3 = {}
for name, w in scorers.items():
    curve = [R.mean_loss(w, test_w, "ndcg", k=int(k)) for k in ks]
    at3[name] = curve[2]
    ax.plot(ks, curve, styles[name][0], color=styles[name][1], lw=1.6, ms=5, label=name)
ax.set(
    xticks=ks,
    ylim=(0, None),
    xlabel="k (only the top k positions count)",
    ylabel="held-out NDCG@k loss",
    title=f"{len(test_w)} test lists of {r_w} wines",
)
ax.legend(fontsize=8)
names = [n.replace("_", " ") for n in wq.feature_names]
for off, (name, w) in zip((-0.2, 0.2), (("least squares on the grades", w_ls), ("SGD, NDCG hinge", w_sgd))):
    bx.barh(
        np.arange(len(names)) + off, w / np.linalg.norm(w), height=0.38, color=styles[name][1], label=name
    )
bx.set_yticks(np.arange(len(names)), names)
bx.invert_yaxis()
bx.axvline(0, color="black", lw=0.8)
bx.legend(fontsize=8, loc="lower left")
bx.set(
    xlabel="weight of the standardised measurement (w scaled to length 1)", title="the two learned directions"
)
show(
    fig,
    alt="Left: the held-out NDCG@k loss against k from 1 to 10 for the random order (a dotted "
    f"line falling from {random_k[0]:.2f} to {random_k[-1]:.2f}) and the four scorers, all far below it; alcohol alone "
    f"lies above the three learned scorers, whose curves nearly coincide (at k = 3: "
    + ", ".join(f"{n} {v:.3f}" for n, v in at3.items())
    + "). Right: horizontal bars of the weights of the twelve standardised measurements in the "
    "directions learned by least squares and by SGD on the NDCG hinge; the two bars of the "
    "measurements mostly have the same sign and similar lengths.",
)

# %% [markdown]
# Least squares ends within 0.01 of SGD on the NDCG hinge (this settles 06.c_wine_pointwise),
# and the right panel shows why: the two directions almost coincide (the cosine above). With a
# linear scorer and these measurements, fitting each wine's grade and ordering the lists lead to
# nearly the same $w$, so the surrogate built for NDCG has little left to gain. Three more things
# to read off the table and the figure:
#
# * a single measurement, alcohol, already closes most of the gap between a random order and
#   the learned scorers (the share printed above). Compare with such a baseline before crediting
#   a learner;
# * the Kendall losses stay far above 0, and must: the share of tied pairs printed earlier
#   counts against any scorer without ties (section 2);
# * the NDCG losses are far from 0 as well, even on the 400 lists SGD trained on: no linear
#   function of these twelve measurements reproduces the tasters' order.

# %% [markdown]
# ## 7 · Exercises
#
# Each exercise is checked against a reference implementation on several inputs.
# Stuck? `hint("06.xxx")`, then `hint("06.xxx", level=2)` and so on: three levels, from a
# nudge to close to code. The third level and `solution("06.xxx")` come with the solutions,
# when your course releases them (until then they say so).
#
# **Exercise 1 (π(y)).** Return the permutation $\pi(y)$ as an integer array of 1-based
# positions (position $r$ = largest score). Ties: the smaller index gets the smaller position.

# %%
from kmlteach.exercises import check, hint, solution  # noqa: F401  (hint and solution: for the student to call)


def permutation(y):
    ### BEGIN SOLUTION
    order = np.argsort(y, kind="stable")
    pi = np.empty(len(y), dtype=int)
    pi[order] = np.arange(1, len(y) + 1)
    return pi
    ### END SOLUTION


check("06.permutation", permutation)

# %% [markdown]
# **Exercise 2 (Kendall tau).** Return the Kendall-tau loss of $y'$ (`y_pred`) against $y$
# (`y_true`): the fraction of the $r(r-1)/2$ pairs whose signs of differences disagree.


# %%
def kendall_tau_loss(y_pred, y_true):
    ### BEGIN SOLUTION
    r = len(y_true)
    bad = 0
    for i in range(r):
        for j in range(i + 1, r):
            if np.sign(y_pred[i] - y_pred[j]) != np.sign(y_true[i] - y_true[j]):
                bad += 1
    return 2 * bad / (r * (r - 1))
    ### END SOLUTION


check("06.kendall", kendall_tau_loss)

# %% [markdown]
# **Exercise 3 (NDCG with a top-k discount).** Return $1 - G(y', y)/G(y, y)$ with
# $D(i) = 1/\log_2(r - i + 2)$ for the top $k$ positions $i \ge r - k + 1$ and $0$ otherwise
# (you may use your `permutation`).


# %%
def ndcg_loss(y_pred, y_true, k):
    ### BEGIN SOLUTION
    r = len(y_true)

    def D(pos):
        return np.where(pos >= r - k + 1, 1 / np.log2(r - pos + 2), 0.0)

    def G(s):
        return D(permutation(s)) @ y_true

    return 1 - G(y_pred) / G(y_true)
    ### END SOLUTION


check("06.ndcg", ndcg_loss)

# %% [markdown]
# **Exercise 4 (derivation: the NDCG surrogate is an assignment problem).** Starting from
# (17.8) with the NDCG loss, $\max_v \big[\Delta(v, y) + \sum_i (v_i - \pi(y)_i)\mu_i\big]$
# over permutations $v$, drop every term that does not depend on $v$ and show that what is left
# is $\min_v \sum_i A[i, v_i]$ for a cost matrix $A$ (section 4). Return $A$ as an $(r, r)$
# array whose column $j - 1$ is position $j$, with $\mu$ = `y_score`, $y$ = `y_true` and the
# top-$k$ discount (if $G(y, y) = 0$, the NDCG term vanishes: use $\beta = 0$). The tests solve
# your $A$ with `R.assignment` and compare with `R.ndcg_most_violating`.


# %%
def ndcg_costs(y_score, y_true, k):
    ### BEGIN SOLUTION
    r = len(y_true)
    j = np.arange(1, r + 1, dtype=float)
    D = np.where(j >= r - k + 1, 1.0 / np.log2(r - j + 2), 0.0)
    G = D[permutation(y_true) - 1] @ y_true
    beta = y_true / G if G > 0 else np.zeros(r)
    return np.outer(-y_score, j) + np.outer(beta, D)
    ### END SOLUTION


check("06.ndcg_costs", ndcg_costs)

# %% [markdown]
# ## Summary
#
# * A score vector induces a permutation $\pi(y')$ (position $r$ = top); ties need a rule.
# * The 0–1 ranking loss is blunt, the Kendall-tau loss counts discordant pairs, the NDCG loss
#   weighs the relevance of each item by a discount of its rank and can ignore all but the top
#   $k$.
# * For linear scorers $\langle w, x_i\rangle$ these losses get convex surrogates: a pairwise
#   hinge for Kendall, and for NDCG a generalized hinge whose maximiser is an assignment
#   problem — solved in $O(r^3)$ by the Hungarian method, and an LP with a permutation optimum
#   (Lemma 17.4).
# * SGD on either surrogate learns a ranking function from example queries.
# * On real wines graded by tasters, SGD on either surrogate and plain least squares on the grades
#   order held-out lists about equally well, a single measurement (alcohol) gets most of the way,
#   and tied grades keep the Kendall loss far from 0.
#
# Next: [07 · Bipartite ranking](07-bipartite.ipynb) — when every item is simply relevant or
# not, and the measures are precision, recall and F₁.

# %% [markdown]
# ## Recap quiz
#
# Five questions on this chapter. The list below is the static
# version; the widget after it checks your answers (or call `ask("06.q2", "a")`
# yourself, with a number for a numeric question, as in `ask("06.q1", 0.25)`).

# %%
display(HTML(quiz_html("06")))

# %%
# NBVAL_IGNORE_OUTPUT
quiz("06")

# %%
# Your progress in this chapter: a question counts with its first answer, a prediction
# explorer once, with the first answer it scores (its next questions are practice);
# kmlteach.progress() lists every chapter.
import kmlteach

kmlteach.progress("06")

# %% [markdown]
# ## Sources and further reading
#
# **Sources** (the short names used in this chapter):
#
# * **UML** = S. Shalev-Shwartz and S. Ben-David, *Understanding Machine Learning: From Theory to Algorithms*, Cambridge University Press, 2014 (§17.4).
#
# **Further reading** (classic references, beyond the course's sources):
#
# * M. G. Kendall, "A new measure of rank correlation", *Biometrika* 30(1/2), 81–93, 1938.
# * K. Järvelin and J. Kekäläinen, "Cumulated gain-based evaluation of IR techniques", *ACM Transactions on Information Systems* 20(4), 422–446, 2002 — NDCG.
# * T. Joachims, "Optimizing search engines using clickthrough data", *Proceedings of KDD*, 2002 — ranking with pairwise SVM constraints.
