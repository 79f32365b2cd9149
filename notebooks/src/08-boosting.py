# %% [markdown]
# # 08 · Boosting and ensembles: AdaBoost, decision trees, bagging, random forests
#
# [Open this chapter on Binder](https://mybinder.org/v2/gh/kmlteach/kmlteach/main?urlpath=lab/tree/notebooks/08-boosting.ipynb)
#
# *Sources: SL (the lecture slides on AdaBoost, its analysis, boosting the confidence, bagging
# and random forests). Beyond the course's sources (marked † where cited): UML §10.1–10.2
# (weak learnability, AdaBoost) and the opening of UML ch. 18 and §18.2 (decision trees, their
# splitting gains and pruning) — UML's chapters 10 and 18 are not among the texts this course
# is built from; we follow their standard treatment and say so where we do.*
#
# *Notation: every symbol of the course, chapter by chapter, with the letters that change meaning flagged, is in the [glossary](../docs/glossary.md).*
#
# A single simple rule — "a point is positive if its first coordinate is below 0.3" — is rarely
# accurate. An **ensemble** combines many such rules into one predictor. This chapter builds
# the two classic ways to do it. **Boosting** trains the rules one after the other, each on a
# reweighted sample that stresses the points its predecessors got wrong, and adds them up with
# weights; its training error provably falls exponentially fast. **Bagging** and **random
# forests** train the rules independently on bootstrap samples and let them vote; they reduce
# the variance of an unstable learner such as a deep decision tree.
#
# **You need:** chapter 01 (losses of the margin $y f(x)$, in particular the exponential loss
# $e^{-y f(x)}$), weighted averages, $\ln$ and $\exp$, and the difference between training and
# test error.
#
# **Objectives.** After this notebook you will be able to
# 1. fit a decision stump by weighted ERM and run AdaBoost by hand: $D_t$, $\varepsilon_t$,
#    $\alpha_t$, $Z_t$;
# 2. reproduce the slides' toy example and explain why its printed, rounded errors give
#    slightly different weights;
# 3. derive $\alpha_t = \tfrac12\ln\frac{1-\varepsilon_t}{\varepsilon_t}$ as the minimiser of
#    $Z_t$, and check the bound $\prod_t Z_t \le \exp(-2\sum_t\gamma_t^2)$ on the training error;
# 4. boost the *confidence* of a learner and measure its failure rate against δ;
# 5. grow decision trees with the training-error, entropy and Gini gains, and choose their size
#    on held-out data;
# 6. tell when bagging helps (unstable learners) and estimate an ensemble's error out of bag.
# 7. compare boosting, bagging and random forests on real data, and read their out-of-bag errors
#    against a test set.

# %%
from fractions import Fraction

import numpy as np

from kmlteach.datasets import moons
from kmlteach.ensembles import (
    adaboost,
    bagging,
    boost_confidence,
    decision_stump,
    decision_tree,
    papaya,
    prune,
    random_forest,
    runs_needed,
    toy_example,
)
from kmlteach.plots import OKABE_ITO, figure, label_axes
from kmlteach.plots.ch08 import plot_signed_regions, plot_stump, plot_weighted_points, ridge_classifier, show

SEED = 0
rng = np.random.default_rng(SEED)

# %% [markdown]
# ## 1 · Weak learners: decision stumps by weighted ERM
#
# Boosting needs a **weak learner**: given the sample and a distribution $D$ over its $m$
# points, it returns a hypothesis whose weighted error
# $$\varepsilon(h) = \sum_{i=1}^m D_i\,\mathbf 1[h(x_i) \ne y_i]$$
# is a little below ½ — better than a coin flip, not more (SL; UML §10.1†). The classic choice
# is the **decision stump**, a threshold on one coordinate (UML §10.1.1†):
# $$h_{j,\theta,s}(x) = s \text{ if } x_j \le \theta, \quad -s \text{ otherwise}, \qquad s \in \{\pm1\}.$$
# `decision_stump(X, y, D)` returns the stump of smallest weighted error, i.e. it solves
# weighted ERM over all features $j$, thresholds θ and signs $s$ exactly. Only the order of the
# values matters, so after sorting each feature once a single sweep with running sums of $D$
# evaluates every threshold: $O(dm\log m)$ per call. Below, a brute-force search over every
# feature, every threshold between two consecutive values and both signs finds the same
# minimum.

# %%
X_small = np.round(rng.normal(size=(12, 2)), 2)
y_small = np.where(X_small[:, 0] + 0.5 * X_small[:, 1] > 0, 1.0, -1.0)
y_small[[2, 7]] *= -1  # two labels no stump can explain
D_small = rng.random(12)
D_small /= D_small.sum()

stump = decision_stump(X_small, y_small, D_small)
print(
    f"stump: feature {stump.feature}, threshold {stump.threshold:.3f}, sign {stump.sign:+.0f}, "
    f"weighted error {stump.error:.4f}"
)

best = np.inf
for j in range(2):
    v = np.sort(X_small[:, j])
    for theta in np.r_[v[0] - 1, (v[:-1] + v[1:]) / 2]:
        for s in (1.0, -1.0):
            pred = np.where(X_small[:, j] <= theta, s, -s)
            best = min(best, D_small[pred != y_small].sum())
print(f"brute force over all stumps: {best:.4f}")
print(
    f"the stump's own predictions have weighted error {D_small[stump.predict(X_small) != y_small].sum():.4f}"
)

# %% [markdown]
# ## 2 · AdaBoost, step by step (SL; UML §10.2†)
#
# AdaBoost keeps a distribution $D_t$ over the training points. It starts uniform,
# $D_1(i) = 1/m$, and in each round $t = 1, \dots, T$
#
# 1. asks the weak learner for $h_t$ and measures its weighted error
#    $\varepsilon_t = \sum_i D_t(i)\,\mathbf 1[h_t(x_i)\ne y_i]$;
# 2. gives $h_t$ the weight $\alpha_t = \tfrac12 \ln\dfrac{1-\varepsilon_t}{\varepsilon_t}$,
#    positive whenever $\varepsilon_t < \tfrac12$ and larger for a better $h_t$;
# 3. reweights: $D_{t+1}(i) = D_t(i)\, e^{-\alpha_t y_i h_t(x_i)} / Z_t$, i.e. a point $h_t$
#    got right is multiplied by $e^{-\alpha_t} < 1$, a point it got wrong by $e^{\alpha_t} > 1$,
#    and $Z_t = \sum_i D_t(i)\,e^{-\alpha_t y_i h_t(x_i)}$ renormalises.
#
# The output is the weighted vote $H(x) = \operatorname{sign}\big(\sum_{t=1}^T \alpha_t h_t(x)\big)$.
# `adaboost(X, y, T)` returns the whole history: the distributions `D` (row $t-1$ is
# $D_t$), `epsilons`, `alphas`, `Z`, the `stumps` and the `training_error` of the vote after
# each round. It stops early, and says so, when a round has $\varepsilon_t = 0$ (a perfect
# stump: kept with a capped α) or $\varepsilon_t \ge \tfrac12$ (no edge left: discarded).

# %% [markdown]
# ### The slides' toy example
#
# The slides run three rounds of AdaBoost with axis-parallel stumps on a small two-class sample
# and report only ε = 0.30, 0.21, 0.14 and α = 0.42, 0.65, 0.92 — not the points themselves.
# `toy_example()` is our own sample that reproduces those numbers: ten points, five of each
# class, on which each round's stump misclassifies three.

# %%
X_toy, y_toy = toy_example()
toy = adaboost(X_toy, y_toy, 3)
for t in range(3):
    eps = toy.epsilons[t]
    wrong = int(np.sum(toy.stumps[t].predict(X_toy) != y_toy))
    print(
        f"round {t + 1}: {wrong} points wrong, eps = {Fraction(eps).limit_denominator(1000)} "
        f"= {eps:.4f}, alpha = {toy.alphas[t]:.4f} (rounded {toy.alphas[t]:.2f}), Z = {toy.Z[t]:.4f}"
    )
print(
    f"H(x) = sign({toy.alphas[0]:.2f} h1(x) + {toy.alphas[1]:.2f} h2(x) + {toy.alphas[2]:.2f} h3(x)), "
    f"training error {toy.training_error[-1]:.2f}"
)

# %% [markdown]
# **Predict first.** Round 1 misclassifies three of the ten points, ε = 0.3. After the
# reweighting, what total mass do these three points carry in $D_2$? (a) 0.3, as before;
# (b) ½; (c) 0.7; (d) 0.9.

# %%
from kmlteach.exercises import ask

ask("08.c_half", "?")

# %% [markdown]
# With the exact errors $3/10$, $3/14$ and $3/22$ the weights are 0.42, 0.65 and 0.92, as on
# the slides. Where do these fractions come from?
#
# <details><summary>Answer and why</summary>
#
# After round 1 the three mistakes hold half the mass, $1/6$ each, and the seven correct
# points share the other half, $1/14$ each. Round 2 errs on three of those seven:
# $\varepsilon_2 = 3/14$. After round 2 the points it got wrong hold $1/6$ each, the round-1
# mistakes $7/66$ each and the four points that were never wrong $1/22$ each; round 3 errs on
# three of these four: $\varepsilon_3 = 3/22$.
#
# </details>

# %%
for t in (1, 2):
    values = sorted({Fraction(d).limit_denominator(1000) for d in toy.D[t]}, reverse=True)
    print(
        f"D_{t + 1} takes the values {', '.join(str(v) for v in values)}; "
        f"mass on the round-{t} mistakes: {toy.D[t][toy.stumps[t - 1].predict(X_toy) != y_toy].sum():.4f}"
    )

# %% [markdown]
# The mass on each round's mistakes is exactly ½ (the cell above): this settles 08.c_half.
#
# The slides print the errors rounded to two digits. Feeding the *printed* values
# 0.30, 0.21, 0.14 into the formula for α does not give the printed weights:

# %%
for eps_exact, eps_printed in ((3 / 10, 0.30), (3 / 14, 0.21), (3 / 22, 0.14)):
    a_exact = 0.5 * np.log((1 - eps_exact) / eps_exact)
    a_printed = 0.5 * np.log((1 - eps_printed) / eps_printed)
    slope = 1 / (2 * eps_exact * (1 - eps_exact))
    print(
        f"eps = {eps_exact:.4f}: alpha = {a_exact:.4f} -> {a_exact:.2f} | printed eps = {eps_printed:.2f}: "
        f"alpha = {a_printed:.4f} -> {a_printed:.2f} | |d alpha / d eps| = {slope:.2f}"
    )

# %% [markdown]
# Rounds 2 and 3 give 0.66 and 0.91 instead of 0.65 and 0.92. The reason is the slope
# $|d\alpha/d\varepsilon| = 1/(2\varepsilon(1-\varepsilon))$, about 3 at $\varepsilon = 3/14$ and
# 4 at $3/22$: rounding ε by 0.004 moves α by about 0.013–0.015, enough to cross the next
# rounding boundary. So the printed α are those of the exact fractions, and the printed ε are
# the same fractions rounded. (In round 1 the printed ε *is* exact.)
#
# The figure shows the three rounds: marker area is proportional to $D_t(i)$, the thick line is
# the stump $h_t$, the shaded half is where $h_t = +1$. The last panel shades the sign of the
# weighted vote: every point is right.

# %%
xlim, ylim = (
    (X_toy[:, 0].min() - 0.8, X_toy[:, 0].max() + 0.8),
    (X_toy[:, 1].min() - 0.8, X_toy[:, 1].max() + 0.8),
)
fig, axes = figure(13.0, 3.5, ncols=4)
fig.set_layout_engine(None)  # a fixed layout: constrained layout cost 0.3 s here
fig.subplots_adjust(left=0.055, right=0.995, bottom=0.14, top=0.91, wspace=0.2)
for t, ax in enumerate(axes[:3]):
    plot_stump(toy.stumps[t], xlim, ylim, ax=ax)
    plot_weighted_points(X_toy, y_toy, toy.D[t], ax=ax, scale=1500)
    label_axes(
        ax,
        "$x_1$",
        "$x_2$" if t == 0 else "",
        f"round {t + 1}: ε = {toy.epsilons[t]:.2f}, α = {toy.alphas[t]:.2f}",
    )
plot_signed_regions(toy.decision_function, xlim, ylim, ax=axes[3], n=200)
plot_weighted_points(X_toy, y_toy, None, ax=axes[3], scale=500)
label_axes(axes[3], "$x_1$", "", r"$H = $ sign$(\Sigma_t\, \alpha_t h_t)$")
show(
    fig,
    alt="Four panels. Rounds 1 to 3 of AdaBoost on the ten-point toy example: in each, the "
    "points are drawn with area proportional to their weight and the chosen stump is a "
    "thick line; the three points it misclassifies grow in the next panel. The last "
    "panel shades the sign of the weighted vote, which classifies all ten points correctly.",
)

# %% [markdown]
# ## 3 · The training error falls exponentially (SL, analysis of AdaBoost)
#
# Write $\varepsilon_t = \tfrac12 - \gamma_t$: $\gamma_t$ is the **edge** of round $t$ over a
# coin flip. The theorem on the slides says that the vote $H$ of $T$ rounds has
# $$\text{training error}(H) \;\le\; \prod_{t=1}^T Z_t \;=\; \prod_{t=1}^T 2\sqrt{\varepsilon_t(1-\varepsilon_t)}
# \;=\; \prod_{t=1}^T \sqrt{1-4\gamma_t^2} \;\le\; \exp\Big(-2\sum_{t=1}^T\gamma_t^2\Big).$$
# If every edge is at least γ > 0, the error is below $e^{-2\gamma^2T}$, and AdaBoost never
# needs to know γ in advance. The proof has three steps.
#
# 1. **Unroll the weights.** Applying the update $T$ times from $D_1 = 1/m$ gives
#    $D_{T+1}(i) = e^{-y_i f(x_i)} / (m\prod_t Z_t)$ with $f = \sum_t \alpha_t h_t$.
# 2. **Error ≤ Π Z.** A mistake of $H$ means $y_i f(x_i) \le 0$, so $e^{-y_i f(x_i)} \ge 1$;
#    hence the training error is at most $\tfrac1m\sum_i e^{-y_i f(x_i)} =
#    \prod_t Z_t \sum_i D_{T+1}(i) = \prod_t Z_t$. (The exponential loss of chapter 01 bounds
#    the zero-one loss, and AdaBoost drives down its average.)
# 3. **Each factor.** Splitting $Z_t$ into mistakes and correct points gives
#    $Z_t = \varepsilon_t e^{\alpha_t} + (1-\varepsilon_t)e^{-\alpha_t} = 2\sqrt{\varepsilon_t(1-\varepsilon_t)}$
#    for the α above. The last inequality is $1 - x \le e^{-x}$ with $x = 4\gamma_t^2$.
#
# We run AdaBoost for 60 rounds on 150 points of two interleaved half-moons and check every
# step numerically, in every round.
#
# **Predict first.** Over the 60 rounds, the training error of the vote (a) falls in every
# round, like the bound; (b) rises in some rounds, while staying below the bound; (c) stays
# at its first value until the bound drops below $1/m$.

# %%
ask("08.c_rise", "?")

# %%
X_m, y_m = moons(150, noise=0.25, seed=SEED)
run = adaboost(X_m, y_m, 60)
T_run, m_run = len(run.alphas), len(y_m)
prod_z = np.cumprod(run.Z)
exp_bound = np.exp(-2 * np.cumsum((0.5 - run.epsilons) ** 2))
print(f"{T_run} rounds; final training error {run.training_error[-1]:.4f}")
print(
    f"Z_t = 2 sqrt(eps_t (1 - eps_t)) in every round: "
    f"{np.allclose(run.Z, 2 * np.sqrt(run.epsilons * (1 - run.epsilons)))}"
)
print(f"training error <= prod Z_t in every round: {bool(np.all(run.training_error <= prod_z + 1e-12))}")
print(f"prod Z_t <= exp(-2 sum gamma^2) in every round: {bool(np.all(prod_z <= exp_bound + 1e-12))}")
# step 1: the last distribution, unrolled from the uniform one
f_prev = sum(a * h.predict(X_m) for a, h in zip(run.alphas[:-1], run.stumps[:-1]))
unrolled = np.exp(-y_m * f_prev) / (m_run * prod_z[-2])
print(f"D_T equals exp(-y f(x)) / (m prod_(t<T) Z_t): {np.allclose(run.D[-1], unrolled)}")
first = int(np.argmax(prod_z < 1 / m_run)) + 1 if np.any(prod_z < 1 / m_run) else None
print(
    f"prod Z_t < 1/m (so the training error must be 0) from round {first} on; "
    f"training error there: {run.training_error[first - 1]:.4f}"
    if first
    else "prod Z_t stays above 1/m: the bound alone does not force a zero training error"
)
print(
    f"the training error went up in {int(np.sum(np.diff(run.training_error) > 0))} of the rounds; "
    f"prod Z_t fell in every round: {bool(np.all(np.diff(prod_z) < 0))}"
)

# %% [markdown]
# The bound decreases in every round (each $Z_t < 1$ while $\varepsilon_t < \tfrac12$), but the
# training error itself does not have to: it can go up for a round and only has to stay below
# the bound (the last line above: this settles 08.c_rise). Once $\prod_t Z_t < 1/m$ the training
# error is forced to 0, since one mistake already costs $1/m$.
#
# **Step through AdaBoost.** In the two widgets below and the figure between them, the left panel
# shows $D_t$ — the marker area is proportional to the weight — and the stump $h_t$ of round $t$
# with the half it labels $+1$ shaded; the middle panel shades the vote after $t$ rounds and
# crosses out its mistakes; the right panel shows the training error against $\prod_s Z_s$ and
# $\exp(-2\sum_s\gamma_s^2)$ on a log scale. Watch the weights pile up on the points near the
# other moon.

# %% [markdown] tags=["slide-skip"]
# **Predict, then reveal.** First, guess. The stump of round $t$, the shading and the vote
# stay hidden: from the weights $D_t$ alone, guess which kind of stump AdaBoost picks in this
# round, then press **Reveal**; step $t$ on for the next question. The readout keeps your
# score, and the figure after it shows round 10 revealed.

# %% tags=["slide-skip"]
# NBVAL_IGNORE_OUTPUT
from kmlteach.widgets.ch08 import make_adaboost_stepper

make_adaboost_stepper(X_m, y_m, T=60, result=run, predict=True)

# %%
from kmlteach.widgets.ch08 import make_adaboost_stepper

stepper = make_adaboost_stepper(X_m, y_m, T=60, result=run)
stepper.controls["t"].value = 10
show(
    stepper,
    alt="AdaBoost on two half-moons after 10 rounds. Left: the weighted points, the "
    "largest ones near the boundary between the moons, and the tenth stump as a "
    "line. Middle: the regions of the weighted vote, made of axis-parallel pieces, "
    "with its few mistakes crossed out. Right, log scale: the training error stays "
    "below the product of the Z_t, which stays below exp(-2 sum gamma^2).",
)

# %%
# NBVAL_IGNORE_OUTPUT
stepper

# %% [markdown]
# ## 4 · Why $\alpha_t = \tfrac12\ln\frac{1-\varepsilon_t}{\varepsilon_t}$?
#
# Step 2 of the proof holds for *any* choice of the weights $\alpha_t$: the training error is
# at most $\prod_t Z_t(\alpha_t)$ with $Z_t(\alpha) = \varepsilon_t e^{\alpha} +
# (1-\varepsilon_t)e^{-\alpha}$. So the natural choice is the α that makes each factor as
# small as possible — a greedy, round-by-round minimisation of the bound. $Z_t$ is a sum of two
# exponentials, hence convex in α, and its derivative
# $Z_t'(\alpha) = \varepsilon_t e^{\alpha} - (1-\varepsilon_t)e^{-\alpha}$ vanishes where
# $e^{2\alpha} = (1-\varepsilon_t)/\varepsilon_t$ — exactly AdaBoost's α. Putting it back,
# $e^{\alpha} = \sqrt{(1-\varepsilon_t)/\varepsilon_t}$ and both terms of $Z_t$ equal
# $\sqrt{\varepsilon_t(1-\varepsilon_t)}$: the minimum is $2\sqrt{\varepsilon_t(1-\varepsilon_t)}$,
# the factor of step 3. That both terms are equal also says that after the update the mistakes
# of $h_t$ carry exactly half of the mass of $D_{t+1}$, so $h_t$ is a coin flip for the next
# round (we saw $1/2$ in the toy example). Exercise 6 repeats the derivation for a weak
# learner that may abstain.

# %%
alpha_grid = np.linspace(-0.5, 2.5, 3001)
fig, ax = figure(6.0, 3.6)
for eps, col in ((0.1, OKABE_ITO["blue"]), (0.3, OKABE_ITO["vermillion"]), (0.45, OKABE_ITO["green"])):
    Z = eps * np.exp(alpha_grid) + (1 - eps) * np.exp(-alpha_grid)
    a_star = 0.5 * np.log((1 - eps) / eps)
    ax.plot(alpha_grid, Z, color=col, lw=2, label=f"ε = {eps}")
    ax.plot([a_star], [2 * np.sqrt(eps * (1 - eps))], "o", color=col, ms=8)
    print(
        f"eps = {eps:4.2f}: grid minimiser {alpha_grid[np.argmin(Z)]:.3f}, formula {a_star:.3f}; "
        f"min Z = {Z.min():.4f}, 2 sqrt(eps(1 - eps)) = {2 * np.sqrt(eps * (1 - eps)):.4f}"
    )
ax.axhline(1.0, color=OKABE_ITO["grey"], ls=":", lw=1.2)
ax.set_ylim(0.4, 1.6)
ax.legend(fontsize=8)
label_axes(
    ax,
    "α",
    r"$Z(\alpha) = \varepsilon e^{\alpha} + (1-\varepsilon)e^{-\alpha}$",
    "each Z_t is minimised by AdaBoost's α (dots)",
)
show(
    fig,
    alt="Three convex curves Z(alpha) for epsilon 0.1, 0.3 and 0.45. Each has its minimum, "
    "marked by a dot, at alpha = one half log((1 - epsilon)/epsilon), below 1; the smaller "
    "epsilon, the lower and further right the minimum.",
)

# %% [markdown]
# ## 5 · Boosting the confidence (SL, after Kearns & Vazirani)
#
# Boosting as above improves the *accuracy* ε of a weak learner. The slides close with the easy
# half of the story: improving its *confidence*. Suppose a learner $L$ returns a hypothesis with
# error below ε only with some small probability $\delta_0$ (a *success* probability: the slides
# call it "confidence at least $1-\delta_0$", but their count $(1-\delta_0)^k$ for "all $k$ runs
# fail" only works when $\delta_0$ is the chance that a run succeeds, as in Kearns & Vazirani's
# setting). The learner $L'$
#
# 1. runs $L$ $k$ times on independent samples, getting $h_1, \dots, h_k$;
# 2. returns the $h_j$ with the fewest mistakes on a fresh sample $S$.
#
# All $k$ runs fail with probability $(1-\delta_0)^k \le e^{-\delta_0 k}$, which is below δ/2 as
# soon as $k > \frac1{\delta_0}\ln\frac2\delta$; the other δ/2 is left for step 2, where the
# sample $S$ must be large enough to recognise a good $h_j$ (its size is left open on the slides;
# we take 400 points and accept an error up to ε + γ).
#
# `boost_confidence` simulates it. The target labels $x \in [0, 1]$ positive iff $x \le 0.5$,
# $x$ uniform. $L$ sees only $n = 4$ examples and puts its threshold halfway between the largest
# positive and the smallest negative, so its error is $|\hat\theta - 0.5|$. With ε = 0.05 it
# succeeds about one time in three. For each δ, $L'$ runs it $k$ = `runs_needed(δ₀, δ)` times,
# and the whole experiment is repeated 4000 times.

# %%
conf = boost_confidence(
    deltas=(0.3, 0.2, 0.1, 0.05, 0.02, 0.01), eps=0.05, gamma=0.02, n=4, sample_size=400, reps=4000, seed=SEED
)
print(f"success probability of L: delta0 = {conf.delta0:.3f}")
print(f"{'delta':>6s} {'k':>3s} {'(1-d0)^k':>9s} {'all k fail':>10s} {'L fails':>8s}")
for d, k, bound, all_fail, fail in zip(conf.deltas, conf.k, conf.all_fail_bound, conf.all_fail, conf.failure):
    print(f"{d:6.2f} {k:3d} {bound:9.4f} {all_fail:10.4f} {fail:8.4f}")
print(f"the slides' formula for other numbers: delta0 = 0.1, delta = 0.01 needs k = {runs_needed(0.1, 0.01)}")

# %% [markdown]
# In every row the measured chance that all $k$ runs fail stays near $(1-\delta_0)^k$, below
# δ/2, and the measured failure rate of $L'$ (error above ε + γ = 0.07) stays below δ: a
# learner that succeeds a third of the time becomes one that fails less than 1 % of the time
# with only 16 runs.

# %%
fig, ax = figure(5.5, 3.6)
ax.plot(conf.deltas, conf.deltas, "--", color=OKABE_ITO["grey"], label="δ (the target)")
ax.plot(conf.deltas, conf.deltas / 2, ":", color=OKABE_ITO["grey"], label="δ/2")
ax.plot(
    conf.deltas, conf.all_fail, "s-", color=OKABE_ITO["blue"], lw=1.5, label="measured: all k runs of L fail"
)
ax.plot(
    conf.deltas,
    np.where(conf.failure > 0, conf.failure, np.nan),
    "o-",
    color=OKABE_ITO["vermillion"],
    lw=2,
    label=f"measured failure of L′ ({conf.reps} repetitions)",
)
none = conf.failure == 0  # log axes cannot show 0: mark it at the bottom
if none.any():
    ax.plot(
        conf.deltas[none],
        np.full(none.sum(), 0.5 / conf.reps),
        "v",
        mfc="white",
        ms=8,
        color=OKABE_ITO["vermillion"],
        label="L′ never failed (drawn at 1/(2·reps))",
    )
ax.set_xscale("log")
ax.set_yscale("log")
ax.legend(fontsize=8)
label_axes(ax, "δ", "probability", "boosting the confidence")
show(
    fig,
    alt="Log-log plot against delta, between 0.01 and 0.3: the measured frequency that "
    "all k runs fail lies below the line delta/2, and the measured failure rate of the "
    "confidence-boosted learner lies lower still, below delta; for the two smallest "
    "deltas it never failed, shown by open triangles at the bottom.",
)

# %% [markdown]
# ## 6 · Decision trees (UML ch. 18†)
#
# A **decision tree** sends a point from the root to a leaf; every inner node tests one feature
# against a threshold and the leaf holds the label. UML opens chapter 18 with the papayas of its
# chapter 2: first test the colour — outside the range from pale green to pale yellow, predict
# *not tasty*; otherwise test the softness — a papaya that gives slightly to palm pressure is
# *tasty*, any other is not. Two tests, three leaves, and a rule anyone can read. A stump is a
# tree of depth 1; in the plane, the leaves of any such tree are axis-parallel rectangles.
#
# Our papaya data put colour and softness on [0, 1]: the tasty papayas are those inside a
# rectangle, and 8 % of the labels are flipped at random (taste is noisy). Below is the tree of
# depth 3 that the greedy learner of the next subsection grows with the entropy gain (the
# counts are [not tasty, tasty]): its first tests cut out the tasty colour range, then the
# softness.

# %%
Xp, yp, box = papaya(300, noise=0.08, seed=SEED)
Xp_val, yp_val, _ = papaya(300, noise=0.08, seed=SEED + 1)
Xp_test, yp_test, _ = papaya(1000, noise=0.08, seed=SEED + 2)
tasty = f"colour in [{box[0]:.2f}, {box[1]:.2f}], softness in [{box[2]:.2f}, {box[3]:.2f}]"
print(f"{len(yp)} training papayas, {int(np.sum(yp > 0))} tasty; the tasty box is {tasty}")
taste = np.where(yp > 0, "tasty", "not tasty")  # trees take any labels
print(decision_tree(Xp, taste, max_depth=3, criterion="entropy").export_text(["colour", "softness"]))

# %% [markdown]
# ### Growing a tree greedily: three gains (UML §18.2†)
#
# Finding the smallest tree consistent with a sample is hard, so trees are grown greedily from
# the root: at each leaf try every split and keep the one with the largest **gain**, the drop of
# an impurity measure $C$ from the node to its two children. For binary labels let $a$ be the
# fraction of positive labels at a node; UML §18.2† considers three choices of $C(a)$:
#
# * **training error** $C(a) = \min(a, 1-a)$ — the error of the node's majority label;
# * **entropy** (information gain, as in ID3/C4.5) $C(a) = -a\log_2 a - (1-a)\log_2(1-a)$;
# * **Gini index** (as in CART) $C(a) = 2a(1-a)$.
#
# A split sending the fraction $p_L$ of the node's points left (with positive fraction $a_L$
# there) and $p_R = 1 - p_L$ right (fraction $a_R$) has
# $$\text{Gain} = C(a) - \big(p_L\,C(a_L) + p_R\,C(a_R)\big).$$
#
# **Predict first.** Only about a fifth of these papayas are tasty. With the training-error
# gain, the candidate splits at the root have a gain that is (a) 0 for every candidate; (b)
# largest for the split closest to the tasty box; (c) negative: a split always costs.

# %%
ask("08.c_error_gain", "?")

# %% [markdown]
# All three vanish at $a \in \{0, 1\}$ and peak at $a = \tfrac12$.
#
# <details><summary>Answer and why</summary>
#
# Entropy and Gini are strictly concave, so a split that separates the classes even a little
# has positive gain; the training-error gain can be 0 for a useful split. Example: a node with
# 6 positives and 2 negatives, split into 4 positives | 2 positives + 2 negatives. Before the
# split the node predicts $+1$ and errs on 2 of 8 points. After it, the left child errs on
# none and the right child, a 2–2 tie, errs on 2 whichever label it predicts: again 2 of 8, so
# the training-error gain is 0 — yet the left child is already pure.
#
# </details>

# %%
a = np.linspace(0.0005, 0.9995, 1000)
C = {
    "training error": np.minimum(a, 1 - a),
    "entropy": -(a * np.log2(a) + (1 - a) * np.log2(1 - a)),
    "Gini": 2 * a * (1 - a),
}
node, left, right = (6, 2), (4, 0), (2, 2)  # (positives, negatives)
for name, fn in zip(
    C,
    (
        lambda q: min(q, 1 - q),
        lambda q: -sum(p * np.log2(p) for p in (q, 1 - q) if p > 0),
        lambda q: 2 * q * (1 - q),
    ),
):
    frac = lambda c: c[0] / sum(c)  # noqa: E731  (fraction of positives)
    gain = fn(frac(node)) - sum(sum(c) / sum(node) * fn(frac(c)) for c in (left, right))
    print(f"{name:15s} gain of the split (6+,2-) -> (4+,0-) | (2+,2-): {gain:.4f}")
fig, ax = figure(5.0, 3.4)
for (name, vals), col in zip(C.items(), (OKABE_ITO["grey"], OKABE_ITO["blue"], OKABE_ITO["vermillion"])):
    ax.plot(a, vals, lw=2, color=col, label=name)
ax.legend(fontsize=8)
label_axes(ax, "fraction a of positive labels at the node", "impurity C(a)", "three impurities (UML §18.2)")
show(
    fig,
    alt="The three impurity functions of the fraction a of positive labels: the training "
    "error min(a, 1 - a) is a tent with a kink at one half; the entropy (up to 1 bit) "
    "and the Gini index 2a(1 - a) (up to one half) are smooth and strictly concave. "
    "All three are 0 at a = 0 and a = 1 and largest at a = one half.",
)

# %% [markdown]
# ### Depth and pruning on held-out data
#
# Grown until its leaves are pure, a tree fits every training label — including the flipped
# ones — and carves small rectangles around them. The held-out error shows the cost. Two
# remedies use a **validation** set that the tree did not see (UML §18.2.2† discusses pruning):
#
# * limit the depth, and choose the depth of smallest validation error;
# * grow the full tree, then **prune** it bottom-up: replace a subtree by a leaf whenever the
#   leaf makes no more validation mistakes than the subtree (reduced-error pruning, `prune`).
#
# For each gain we compare the full tree, the tree of the chosen depth and the pruned tree on
# a third, independent test sample.

# %%
print("the first two levels of the tree grown with the training-error gain:")
print(decision_tree(Xp, taste, max_depth=2, criterion="error").export_text(["colour", "softness"]))
print(f"{'gain':8s} {'tree':>12s} {'depth':>5s} {'leaves':>6s} {'train':>6s} {'valid.':>6s} {'test':>6s}")
chosen = {}
for crit in ("error", "entropy", "gini"):
    full = decision_tree(Xp, yp, criterion=crit)
    by_depth = [decision_tree(Xp, yp, max_depth=d, criterion=crit) for d in range(min(full.depth, 12) + 1)]
    val_err = [np.mean(tr.predict(Xp_val) != yp_val) for tr in by_depth]
    chosen[crit] = int(np.argmin(val_err))  # ties: the shallower tree
    for label, tr in (
        ("full", full),
        ("chosen depth", by_depth[chosen[crit]]),
        ("pruned", prune(full, Xp_val, yp_val)),
    ):
        print(
            f"{crit:8s} {label:>12s} {tr.depth:5d} {tr.n_leaves:6d} {np.mean(tr.predict(Xp) != yp):6.3f} "
            f"{np.mean(tr.predict(Xp_val) != yp_val):6.3f} {np.mean(tr.predict(Xp_test) != yp_test):6.3f}"
        )

# %% [markdown]
# For every gain the fully grown tree has zero training error and a larger test error than the
# tree whose depth was chosen on the validation set; with the entropy and Gini gains, pruning
# the full tree gives the smallest test error with the fewest leaves. The training-error gain
# fails on these data: only about a fifth of the papayas are tasty, so no split at the root
# changes the majority label "not tasty" on either side, every candidate has gain 0, and the
# learner takes the first one — a sliver at the edge of the colour axis — and goes on peeling
# off a few points at a time. Its full tree is hundreds of levels deep, and neither the depth
# nor pruning finds anything better than a single leaf. The strictly concave gains see the
# progress that the error gain misses. This settles 08.c_error_gain.
#
# **Grow the tree yourself** with the slider below (the gain can be switched too): the dashed
# box is the true tasty region; the right panel traces the training error and the held-out
# error on the validation set against the depth. The slider starts at the depth that the
# validation set chose for the Gini gain above: the lowest point of the held-out curve.

# %%
from kmlteach.widgets.ch08 import make_tree_explorer

tree_view = make_tree_explorer(Xp, yp, Xp_val, yp_val, max_depth=8, rectangle=box)  # held out: validation
tree_view.controls["depth"].value = min(chosen["gini"], 8)
show(
    tree_view,
    alt="Left: the papaya training points in the colour-softness square, the "
    "dashed true tasty box, and the rectangles of a Gini tree of the depth "
    "chosen on validation data, which roughly cover the box. Right: training "
    "error falling with the depth towards 0, validation error falling to its "
    "lowest point at that depth and then rising again.",
)

# %%
# NBVAL_IGNORE_OUTPUT
tree_view

# %% [markdown]
# ## 7 · Bagging and the out-of-bag error (SL, after Breiman)
#
# **Bagging** (bootstrap aggregating) trains the same learner on $B$ bootstrap samples — $m$
# points drawn with replacement from the $m$ training points — and lets the $B$ predictors
# vote. A bootstrap sample misses a given point with probability $(1-1/m)^m \approx e^{-1}
# \approx 0.37$, so each member leaves about a third of the sample unseen. Those points are the
# member's **out-of-bag** (OOB) points: voting, for each training point, only with the members
# that did not see it gives an estimate of the ensemble's test error for free, without a
# held-out set.

# %%
m_b = 400
boot = np.random.default_rng(SEED).integers(0, m_b, size=(2000, m_b))
missing = np.mean([m_b - len(np.unique(row)) for row in boot]) / m_b
print(
    f"fraction of points out of bag, averaged over 2000 bootstrap samples of size {m_b}: "
    f"{missing:.4f} (e^-1 = {np.exp(-1):.4f}, (1 - 1/m)^m = {(1 - 1 / m_b) ** m_b:.4f})"
)

# %% [markdown]
# Bagging helps a learner whose output changes a lot when a few training points change — an
# **unstable** learner, such as a fully grown tree. Its predictions vary from one bootstrap
# sample to the next around a good average, and the vote averages the variation away. A
# **stable** learner, such as a least-squares linear classifier on two features, returns
# almost the same predictor from every bootstrap sample: the vote equals its members, and
# bagging changes nothing. We bag both on noisy half-moons.

# %%
X_b, y_b = moons(m_b, noise=0.3, seed=SEED + 3)
X_bt, y_bt = moons(2000, noise=0.3, seed=SEED + 4)
learners = {
    "least squares (stable)": ridge_classifier,
    "deep tree (unstable)": lambda X, y: decision_tree(X, y),
}
for name, learner in learners.items():
    single = learner(X_b, y_b)
    bag = bagging(X_b, y_b, learner, n_estimators=50, seed=SEED)
    print(
        f"{name:23s} one model on all data: test {np.mean(single.predict(X_bt) != y_bt):.3f} | "
        f"50 bagged: test {np.mean(bag.predict(X_bt) != y_bt):.3f}, OOB {bag.oob_error:.3f}"
    )

# %% [markdown]
# **How many members?** The widget below bags both learners with 1 to 60 members. The left two
# panels shade the vote of the first $n$ members; the right panel shows, for each learner, the
# test error (solid) and the OOB estimate (dashed) as $n$ grows. The tree's vote smooths its
# rectangles and its error drops; the linear vote barely moves. The OOB estimate is noisy for
# small $n$ — few members vote on each point, and it judges a smaller ensemble than the one it
# estimates — and settles near the test error.

# %%
from kmlteach.widgets.ch08 import make_bagging_explorer

bag_view = make_bagging_explorer(X_b, y_b, X_bt, y_bt, n_estimators=60, seed=SEED)
bag_view.controls["n"].value = 60
for name, e in bag_view.state["errors"].items():
    print(
        f"{name:23s} 60 members: test {e['test_error']:.3f}, OOB {e['oob_error']:.3f}; "
        f"a single member on average {e['member_test_error']:.3f}"
    )
show(
    bag_view,
    alt="Bagging on noisy half-moons. Left: the vote of 60 least-squares "
    "classifiers is a straight boundary. Middle: the vote of 60 deep trees "
    "follows the two moons. Right: test error (solid) and OOB error (dashed) "
    "against the number of members: flat for the linear learner, falling for "
    "the trees.",
)

# %%
# NBVAL_IGNORE_OUTPUT
bag_view

# %% [markdown]
# ## 8 · Random forests (SL, after Breiman)
#
# Bagged trees are still alike: grown on overlapping samples with every feature available, they
# tend to pick the same strong splits near the root. A **random forest** decorrelates them: at *every split* only a random subset of
# `max_features` of the $d$ features is considered (√d by default). The trees get individually
# a little worse and less alike. The OOB error comes for free again; below it is compared with
# the error on 2000 held-out points for several subset sizes (`None` = all features, i.e.
# bagged trees). The data have 10 features, of which the first 4 carry the label.
# The table also gives the average test error of one tree and how often two trees of the
# forest agree on a test point, averaged over all pairs.

# %%
rf_rng = np.random.default_rng(SEED + 5)
X_rf = rf_rng.normal(size=(2400, 10))
y_rf = np.where(
    X_rf[:, 0] + X_rf[:, 1] - X_rf[:, 2] * X_rf[:, 3] + 0.5 * rf_rng.normal(size=2400) > 0, 1.0, -1.0
)
X_rf_tr, y_rf_tr, X_rf_te, y_rf_te = X_rf[:400], y_rf[:400], X_rf[400:], y_rf[400:]
print(f"{'max_features':>12s} {'OOB error':>9s} {'held-out':>9s} {'one tree':>9s} {'agreement':>9s}")
for mf in (1, "sqrt", 6, None):
    forest = random_forest(X_rf_tr, y_rf_tr, n_trees=100, max_features=mf, seed=SEED)
    P = np.array([tree.predict(X_rf_te) for tree in forest.estimators])
    B = len(P)
    s_vote = P.sum(axis=0)
    agree = np.mean((1 + (s_vote**2 - B) / (B * (B - 1))) / 2)  # mean over pairs of trees
    print(
        f"{str(mf):>12s} {forest.oob_error:9.3f} {np.mean(forest.predict(X_rf_te) != y_rf_te):9.3f} "
        f"{np.mean(P != y_rf_te):9.3f} {agree:9.3f}"
    )

# %% [markdown]
# Fewer features per split make each tree worse (the "one tree" column) and the trees less
# alike (the agreement drops). On these data the two effects roughly cancel: the four forests
# are within about 0.01 of each other on held-out data — √d features do as well as bagged
# trees here, not better. In every row the OOB error is within about 0.02 of the held-out
# error, and it needed no data set aside.

# %% [markdown]
# ## 9 · Lab: boosting, bagging and forests on real wines
#
# The half-moons and the papayas above are drawings. The Wine Quality data of chapters 06 and
# 07 (Cortez et al. 2009, `kmlteach.datasets.wine_quality`, CC BY 4.0) are measurements: for
# each wine, eleven laboratory values and a red/white flag, and $y = +1$ when the experts'
# median grade is 7 or more (a *good* wine). As in those chapters we keep one copy of each
# repeated row, so that no wine is both trained on and tested on; 3 500 wines, drawn at random,
# train, and the other 1 820 test. Trees and stumps compare one feature with a threshold, so
# the measurements need no standardising.
#
# Three baselines first: the rule that calls every wine ordinary, the best single stump, and
# one decision tree grown until its leaves are pure.

# %%
from kmlteach.datasets import wine_quality

wq = wine_quality()
_, first = np.unique(wq.X, axis=0, return_index=True)
keep = np.sort(first)  # one copy of each wine
order = np.random.default_rng(SEED).permutation(len(keep))
X_wtr, y_wtr = wq.X[keep][order[:3500]], wq.y[keep][order[:3500]]
X_wte, y_wte = wq.X[keep][order[3500:]], wq.y[keep][order[3500:]]


def test_error(pred):
    """0-1 error on the 1 820 test wines."""
    return float(np.mean(pred != y_wte))


print(
    f"{len(y_wtr)} training wines ({np.mean(y_wtr > 0):.1%} good), {len(y_wte)} test wines ({np.mean(y_wte > 0):.1%} good)"
)
print(f"every wine ordinary: test error {test_error(-np.ones(len(y_wte))):.3f}")
stump_w = decision_stump(X_wtr, y_wtr)
print(
    f"best stump ({wq.feature_names[stump_w.feature]} above {stump_w.threshold:.2f} means good): "
    f"test error {test_error(stump_w.predict(X_wte)):.3f}"
)
tree_w = decision_tree(X_wtr, y_wtr)
print(
    f"one fully grown tree: depth {tree_w.depth}, {tree_w.n_leaves} leaves, training error "
    f"{np.mean(tree_w.predict(X_wtr) != y_wtr):.3f}, test error {test_error(tree_w.predict(X_wte)):.3f}"
)

# %% [markdown]
# The fully grown tree fits every training wine and errs on more test wines than the rule that
# calls them all ordinary: it has learnt the noise of its sample.
#
# **Predict first.** Bag 100 such trees (each grown to purity on a bootstrap sample of the
# 3 500 training wines) and let them vote. The test error of the vote is
# (a) about that of one tree: the members are copies of the same poor learner;
# (b) below the constant rule's: the vote averages away the trees' individual mistakes;
# (c) above that of one tree: each member sees only about 63 % of the distinct wines.

# %%
ask("08.c_wine_bagging", "?")

# %%
bag_w = bagging(X_wtr, y_wtr, lambda X, y: decision_tree(X, y), n_estimators=100, seed=SEED)
forest_w = random_forest(X_wtr, y_wtr, n_trees=100, seed=SEED)
boost_w = adaboost(X_wtr, y_wtr, 300)
P_bag = np.array([tree.predict(X_wte) for tree in bag_w.estimators])
P_forest = np.array([tree.predict(X_wte) for tree in forest_w.estimators])
F_boost = np.cumsum([a * h.predict(X_wte) for a, h in zip(boost_w.alphas, boost_w.stumps)], axis=0)
vote_error = {  # test error of the vote of the first n members (rounds), n = 1, 2, ...
    "AdaBoost on stumps": np.mean(np.where(F_boost > 0, 1, -1) != y_wte, axis=1),
    "bagged trees": np.mean(np.where(np.cumsum(P_bag, axis=0) > 0, 1, -1) != y_wte, axis=1),
    "random forest": np.mean(np.where(np.cumsum(P_forest, axis=0) > 0, 1, -1) != y_wte, axis=1),
}
print(f"{'ensemble':32s} {'training':>8s} {'OOB':>6s} {'test':>6s}  one member on the test wines")
print(
    f"{'AdaBoost, 300 rounds on stumps':32s} {boost_w.training_error[-1]:8.3f} {'-':>6s} "
    f"{vote_error['AdaBoost on stumps'][-1]:6.3f}  (the first stump: {vote_error['AdaBoost on stumps'][0]:.3f})"
)
for name, res, P in (
    ("100 bagged trees", bag_w, P_bag),
    ("random forest, 100 trees, √d", forest_w, P_forest),
):
    print(
        f"{name:32s} {np.mean(res.predict(X_wtr) != y_wtr):8.3f} {res.oob_error:6.3f} "
        f"{test_error(res.predict(X_wte)):6.3f}  {np.mean(P != y_wte):.3f} on average"
    )

fig, (ax, bx) = figure(11.5, 4.2, ncols=2)
rounds = np.arange(1, len(boost_w.alphas) + 1)
ax.plot(rounds, boost_w.training_error, "--", color=OKABE_ITO["blue"], lw=1.5, label="AdaBoost: training")
ax.plot(rounds, vote_error["AdaBoost on stumps"], color=OKABE_ITO["blue"], lw=2, label="AdaBoost: test")
members = np.arange(1, 101)
for name, res, col in (
    ("bagged trees", bag_w, OKABE_ITO["vermillion"]),
    ("random forest", forest_w, OKABE_ITO["green"]),
):
    bx.plot(members, vote_error[name], color=col, lw=2, label=f"{name}: test")
    bx.plot(members, res.oob_error_path, "--", color=col, lw=1.5, label=f"{name}: OOB")
for a_ in (ax, bx):
    a_.axhline(
        test_error(-np.ones(len(y_wte))),
        color=OKABE_ITO["grey"],
        ls=":",
        lw=1.5,
        label="every wine ordinary: test",
    )
    a_.axhline(
        test_error(tree_w.predict(X_wte)),
        color=OKABE_ITO["black"],
        ls="-.",
        lw=1.2,
        label="one deep tree: test",
    )
top = 1.15 * max(max(a_.get_ylim()[1] for a_ in (ax, bx)), test_error(tree_w.predict(X_wte)))
for a_ in (ax, bx):  # one scale for both panels, with room above the highest line
    a_.set_ylim(0, top)
ax.legend(fontsize=8, loc="lower left")
bx.legend(fontsize=8, loc="center right")
ax.set_xscale("log")
label_axes(ax, "rounds T (log scale)", "error", "AdaBoost on stumps")
label_axes(bx, "number of trees", "error", "bagging and a random forest")
show(
    fig,
    alt="Two panels of error on the wine data, each with the test error of the rule 'every wine "
    f"ordinary' ({test_error(-np.ones(len(y_wte))):.3f}, dotted) and of one deep tree "
    f"({test_error(tree_w.predict(X_wte)):.3f}, dash-dotted). Left, against the rounds of AdaBoost on "
    "a log axis: the training and test errors move up and down over the first 30 rounds, then "
    f"drift down slowly and end at {boost_w.training_error[-1]:.3f} (training) and "
    f"{vote_error['AdaBoost on stumps'][-1]:.3f} (test). Right, against the number of trees: the "
    "test and out-of-bag errors of bagged trees and of the random forest start near the single "
    "tree, fall fast over the first 20 trees and settle below the dotted line, the OOB curves a "
    "little above the test curves.",
)


# %% [markdown]
# The vote of 100 bagged trees errs on far fewer test wines than any one of its members, and
# fewer than the constant rule (this settles 08.c_wine_bagging). Each member alone is as poor as
# the single tree (the last column); their mistakes differ from tree to tree, and the majority
# vote cancels much of them — the variance reduction of section 7, on data nobody drew. The
# random forest, whose trees also sample the measurements at each split, ends at about the same
# place. Both out-of-bag estimates come within 0.01 of the test error, a little above it,
# without setting a single wine aside.
#
# AdaBoost on stumps tells a different story. After 300 rounds its test error is where the
# first stump started, and its training error is still far from 0. A weighted vote of stumps is
# a sum of functions of one measurement each, $f(x) = \sum_j g_j(x_j)$: every stump compares
# one measurement with a threshold, and a sum of them can never make the effect of one
# measurement depend on another. On these wines that family is too poor, while every tree of
# the two forests splits on several measurements in turn. The weak learner decides what
# boosting can reach.

# %% [markdown]
# ## 10 · Exercises
#
# Each exercise is checked against a reference implementation on several inputs.
# Stuck? `hint("08.xxx")`, then `hint("08.xxx", level=2)` and so on: three levels, from a
# nudge to close to code. The third level and `solution("08.xxx")` come with the solutions,
# when your course releases them (until then they say so).
#
# **Exercise 1 (weighted stump error).** Return $\sum_i D_i\mathbf 1[h(x_i)\ne y_i]$ for the
# stump $h(x) = $ `sign` if $x_{\text{feature}} \le$ `threshold`, else $-$`sign`.

# %%
from kmlteach.exercises import check, hint, solution  # noqa: F401  (hint and solution: for the student to call)


def stump_error(X, y, D, feature, threshold, sign):
    ### BEGIN SOLUTION
    pred = np.where(X[:, feature] <= threshold, sign, -sign)
    return float(np.sum(D[pred != y]))
    ### END SOLUTION


check("08.stump_error", stump_error)

# %% [markdown]
# **Exercise 2 (one AdaBoost round).** Given $D_t$, the labels $y$ and the predictions
# $h = h_t(x_i)$ of the weak hypothesis, return the tuple $(D_{t+1}, \varepsilon_t, \alpha_t, Z_t)$.


# %%
def adaboost_round(D, y, h):
    ### BEGIN SOLUTION
    eps = np.sum(D[h != y])
    alpha = 0.5 * np.log((1 - eps) / eps)
    w = D * np.exp(-alpha * y * h)
    Z = w.sum()
    return w / Z, eps, alpha, Z
    ### END SOLUTION


check("08.adaboost_round", adaboost_round)

# %% [markdown]
# **Exercise 3 (the training-error bound).** For the errors $\varepsilon_1, \dots, \varepsilon_T$
# of the rounds return the pair $\big(\prod_t 2\sqrt{\varepsilon_t(1-\varepsilon_t)},\;
# \exp(-2\sum_t\gamma_t^2)\big)$ with $\gamma_t = \tfrac12 - \varepsilon_t$.


# %%
def training_bound(epsilons):
    ### BEGIN SOLUTION
    eps = np.asarray(epsilons)
    prod_z = np.prod(2 * np.sqrt(eps * (1 - eps)))
    return prod_z, np.exp(-2 * np.sum((0.5 - eps) ** 2))
    ### END SOLUTION


check("08.training_bound", training_bound)

# %% [markdown]
# **Exercise 4 (out-of-bag error).** `predictions[b, i]` is the ±1 prediction of member $b$ on
# training point $i$, and `samples[b]` holds the $m$ indices of member $b$'s bootstrap sample.
# Point $i$'s OOB vote adds the predictions of the members whose sample does not contain $i$ and
# says $+1$ iff the sum is > 0 (a tie says $-1$, as `bagging` does). Return the fraction of
# wrong OOB votes among the points that have at least one OOB member.


# %%
def oob_error(predictions, samples, y):
    ### BEGIN SOLUTION
    B, m = predictions.shape
    oob = np.ones((B, m), dtype=bool)
    for b in range(B):
        oob[b, samples[b]] = False
    votes = np.sum(np.where(oob, predictions, 0.0), axis=0)
    has = oob.any(axis=0)
    pred = np.where(votes > 0, 1.0, -1.0)
    return np.mean(pred[has] != y[has])
    ### END SOLUTION


check("08.oob_error", oob_error)

# %% [markdown]
# **Exercise 5 (gain of a split).** Labels `y` (±1) at a node are split by the boolean mask
# `left`. Return the gain $C(a) - (p_L C(a_L) + p_R C(a_R))$ for `criterion` in `"error"`,
# `"entropy"` (base-2 logarithm, $0\log 0 = 0$) and `"gini"` (section 6). An empty side
# contributes nothing.


# %%
def split_gain(y, left, criterion):
    ### BEGIN SOLUTION
    def C(a):
        if criterion == "error":
            return min(a, 1 - a)
        if criterion == "gini":
            return 2 * a * (1 - a)
        return -sum(p * np.log2(p) for p in (a, 1 - a) if p > 0)

    gain = C(np.mean(y > 0))
    for side in (left, ~left):
        if side.any():
            gain -= side.sum() / len(y) * C(np.mean(y[side] > 0))
    return gain
    ### END SOLUTION


check("08.split_gain", split_gain)

# %% [markdown]
# **Exercise 6 (derivation: the best α when the weak learner may abstain).** Let $h$ take values
# in $\{-1, 0, +1\}$, where 0 means "no opinion". Under $D$, let $W_+$ be the weight of the points
# with $y_i h(x_i) = +1$, $W_-$ of those with $y_i h(x_i) = -1$ and $W_0$ of those with
# $h(x_i) = 0$. Write $Z(\alpha) = \sum_i D_i e^{-\alpha y_i h(x_i)}$ in terms of $W_+, W_-, W_0$,
# minimise it as in section 4, and return the pair $(\alpha^*, Z(\alpha^*))$. With $W_0 = 0$,
# $W_+ = 1-\varepsilon$ and $W_- = \varepsilon$ your answer must reduce to AdaBoost's α and
# $2\sqrt{\varepsilon(1-\varepsilon)}$.


# %%
def best_alpha(w_correct, w_wrong, w_abstain=0.0):
    ### BEGIN SOLUTION
    alpha = 0.5 * np.log(w_correct / w_wrong)
    return alpha, w_abstain + 2 * np.sqrt(w_correct * w_wrong)
    ### END SOLUTION


check("08.best_alpha", best_alpha)

# %% [markdown]
# ## Summary
#
# * A weak learner only needs an edge γ over a coin flip under every distribution; a decision
#   stump found by weighted ERM is the standard one.
# * AdaBoost reweights the sample so that each $h_t$ is a coin flip for the next round, and
#   weighs $h_t$ by $\alpha_t = \tfrac12\ln\frac{1-\varepsilon_t}{\varepsilon_t}$, the minimiser
#   of $Z_t$. Its training error is at most $\prod_t Z_t \le \exp(-2\sum_t\gamma_t^2)$. The
#   slides' toy example has $\varepsilon = 3/10, 3/14, 3/22$ and $\alpha = 0.42, 0.65, 0.92$;
#   the rounded ε printed next to them give 0.66 and 0.91.
# * Repeating a learner $k > \frac1{\delta_0}\ln\frac2\delta$ times and validating boosts its
#   confidence from $\delta_0$ to $1-\delta$.
# * Decision trees are grown greedily with the training-error, entropy or Gini gain; grown
#   fully they overfit, and a depth chosen on held-out data (or pruning) fixes it.
# * Bagging votes over bootstrap replicates and helps unstable learners such as deep trees, not
#   stable ones; random forests also sample the features at each split. Both estimate their
#   error out of bag.
# * On real wines a fully grown tree does worse than calling every wine ordinary, while a vote of
#   100 such trees (bagged or a forest) does better than both, with out-of-bag errors close to the
#   test error; boosting stumps, a sum of one-measurement rules, gets no further than one stump.
#
# Next: [09 · Large-margin theory and online kernel learning](09-theory.ipynb).

# %% [markdown]
# ### Recap quiz
#
# Five questions; pick an answer and the quiz says whether it is right and why. The list below
# is the static version; where the widget does not run, call `ask("08.q1", "b")` yourself.

# %%
from IPython.display import HTML, display

from kmlteach.exercises import quiz, quiz_html

display(HTML(quiz_html("08")))

# %%
# NBVAL_IGNORE_OUTPUT
quiz("08")

# %%
# Your progress in this chapter: a question counts with its first answer, a prediction
# explorer once, with the first answer it scores (its next questions are practice);
# kmlteach.progress() lists every chapter.
import kmlteach

kmlteach.progress("08")

# %% [markdown]
# ## Sources and further reading
#
# **Sources** (the short names used in this chapter):
#
# * **SL** = D. Roth, *CIS 519/419 Applied Machine Learning*, lecture slides, University of Pennsylvania (boosting, ensembles, multiclass and constraint classification) (boosting, bagging, random forests).
# * **UML** = S. Shalev-Shwartz and S. Ben-David, *Understanding Machine Learning: From Theory to Algorithms*, Cambridge University Press, 2014 (the opening of ch. 18; ch. 10 and §18.2 go beyond the course's copy of the sources, marked †).
#
# **Further reading** (classic references, beyond the course's sources):
#
# * Y. Freund and R. E. Schapire, "A decision-theoretic generalization of on-line learning and an application to boosting", *Journal of Computer and System Sciences* 55(1), 119–139, 1997 — AdaBoost.
# * R. E. Schapire and Y. Freund, *Boosting: Foundations and Algorithms*, MIT Press, 2012.
# * L. Breiman, "Bagging predictors", *Machine Learning* 24(2), 123–140, 1996, and "Random forests", *Machine Learning* 45(1), 5–32, 2001.
