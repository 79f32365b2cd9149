# %% [markdown]
# # 00 · Welcome: how this course works
#
# [Open this chapter on Binder](https://mybinder.org/v2/gh/kmlteach/kmlteach/main?urlpath=lab/tree/notebooks/00-welcome.ipynb)
#
# *Notation: every symbol of the course, chapter by chapter, with the letters that change meaning flagged, is in the [glossary](../docs/glossary.md).*
#
# This course teaches large-margin and kernel methods by letting you run, poke at and
# re-derive every algorithm. Each chapter is one notebook like this one. The algorithms
# themselves live in a small Python package, `kmlteach`, whose functions follow the
# pseudo-code of the books line by line, so you can read them side by side.
#
# **You need:** Python and NumPy basics (arrays, `@` for matrix products); nothing else.
#
# **You will be able to** (the objectives of this notebook):
# 1. run cells, move widgets and use the self-checking exercises;
# 2. check your environment with `kmlteach.check_env()`;
# 3. read the notation of the course, and know where the sources disagree.

# %% [markdown]
# ## Running the notebooks
#
# * **Run a cell** with <kbd>Shift</kbd>+<kbd>Enter</kbd>; *Run → Run All Cells* runs a whole
#   chapter. Every notebook runs top to bottom in well under a minute.
# * **Widgets** (sliders, drop-downs) redraw a figure when you move them. Next to every widget
#   there is a static figure of the same idea, so the page still reads where widgets do not
#   run (a PDF export, a preview on the web).
# * **Numba.** The heavy loops are compiled with Numba the first time they run; the compiled
#   code is cached on disk, so later runs are instant. `python -m kmlteach warmup` compiles
#   everything ahead of time (Binder does this for you).
# * **Nothing is downloaded.** All data sets are generated from a seed or ship with the package.
#
# First, check the environment. The last line tells you whether sliders can render here.

# %%
# NBVAL_IGNORE_OUTPUT
import kmlteach

info = kmlteach.check_env()

# %% [markdown]
# ## A first widget
#
# The figure below is a static picture: a hyperplane $\langle w, x\rangle = 0$ in the plane,
# given by the angle of its normal vector $w$. Under it the same picture becomes a widget; move the angle and watch the
# readout. (Widgets are built in `kmlteach.widgets`; the notebooks only call them.)

# %%
import numpy as np

from kmlteach.datasets import separable
from kmlteach.plots import figure, scatter_classes, show
from kmlteach.plots.ch01 import plot_hyperplane

SEED = 0
X, y = separable(m=30, d=2, margin=0.6, seed=SEED)
X = X * 2.5
theta = np.deg2rad(30)
w = np.array([np.cos(theta), np.sin(theta)])

fig, ax = figure(4.8, 4.2)
scatter_classes(X, y, ax=ax)
plot_hyperplane(w, 0.0, ax, xlim=(-3.5, 3.5), ylim=(-3.5, 3.5), margin=False)
ax.set_aspect("equal")
ax.set_xlabel("$x_1$")
ax.set_ylabel("$x_2$")
ax.legend(loc="upper left", fontsize=8)
ax.annotate("", xy=1.5 * w, xytext=(0, 0), arrowprops=dict(arrowstyle="->", lw=2, color="#009E73"))
ax.text(*(1.6 * w), "w", color="#009E73", fontsize=12)
ax.set_title(r"the hyperplane $\langle w, x\rangle = 0$ for $w$ at 30°")
mistakes = int(np.sum(y * (X @ w) <= 0))
show(
    fig,
    alt=f"{len(y)} points of two classes in the plane, circles (y = -1) and triangles "
    f"(y = +1), the line through the origin perpendicular to a green arrow w at 30 "
    f"degrees; {mistakes} of the points lie on the wrong side of the line.",
)
print(f"points on the wrong side: {mistakes} of {len(y)}")

# %%
# NBVAL_IGNORE_OUTPUT
from kmlteach.widgets.welcome import make_angle_demo

make_angle_demo(X, y)

# %% [markdown]
# **Predict, then reveal.** Every chapter has widgets like the next one: they ask first and
# show after. Here the line is hidden and only $w$ (the green arrow) is drawn: count the points
# that lie on the wrong side of $\langle w, x\rangle = 0$, type the number, then press
# **Reveal**. **next question ▶** turns $w$ to another angle. The readout keeps your score, and
# your first answer to each prediction goes into your progress (`kmlteach.progress()`).

# %%
# NBVAL_IGNORE_OUTPUT
make_angle_demo(X, y, angle=250, predict=True)  # a setting the figures above do not show

# %% [markdown]
# ## Exercises check themselves
#
# Each exercise is a function for you to complete. In your copy (the *student version*) its
# body is a single line `raise NotImplementedError(...)`; replace it with your code and run the
# cell. The call `check(...)` under it runs your function on several inputs, compares with the
# reference implementation and prints ✓, ✗ with the first failing input, or "not implemented
# yet". It never stops the notebook. `hint(...)` gives a nudge; `solution(...)` prints the
# solution once your course releases the solutions (until then it says so).
# Write the exercises with NumPy: when an exercise is graded, a call to a `kmlteach` function
# that computes its answer (the library's own version of it, or a close relative) earns no
# points for that exercise, and the feedback names the function. Use the library to check
# your results, not to produce them.
#
# **Warm-up exercise.** For a weight vector $w$ and a labelled sample $(x_i, y_i)$ with
# $y_i \in \{-1, +1\}$, the *functional margins* are $y_i\langle w, x_i\rangle$: positive when
# $x_i$ is on the side its label asks for. Compute all of them at once.

# %%
from kmlteach.exercises import check, hint, solution  # noqa: F401  (hint and solution: for the student to call)


def margins(X, y, w):
    ### BEGIN SOLUTION
    return y * (X @ w)
    ### END SOLUTION


check("00.margins", margins)

# %% [markdown]
# **Hints come in levels.** `hint(id)` prints the first, most conceptual one and says how many
# there are in your copy; `hint(id, level=2)` and so on get closer to code. The last level, the
# closest to code, comes with the solutions, as `solution(id)` does: when your course releases
# them (until then both say so). Ask for the hints in order, and for the solution only at the
# end. Every exercise also has a time estimate in minutes (the course map below adds them up).

# %%
hint("00.margins")

# %% [markdown]
# **Predict, then look.** Some cells ask a question *before* the cell that answers it. Write your
# prediction as a letter in the `ask(...)` call (it starts as `"?"`, which only asks you to
# predict), run it, then run the next cell.
#
# A point with label $y = -1$ gets the score $\langle w, x\rangle = 2$. Its functional margin is
# (a) $+2$: correctly classified; (b) $-2$: on the wrong side; (c) $0$: on the hyperplane.

# %%
from kmlteach.exercises import ask, quiz, quiz_html

ask("00.c_sign", "?")

# %%
y_pt, score = -1.0, 2.0
print(f"functional margin y<w, x> = {y_pt * score:+.1f}")

# %% [markdown]
# ## Notation, and where the sources differ
#
# We follow *Understanding Machine Learning* (UML) wherever it has a formula, and say so when
# another source writes the same thing differently.
#
# | object | this course | differences between the sources |
# |---|---|---|
# | sample | $S = ((x_1, y_1), \dots, (x_m, y_m))$, $x_i \in \mathbb{R}^d$ | HSS writes $n$ for the sample size |
# | labels (binary) | $y \in \{-1, +1\}$ | UML's class-mean exercise (16.6) outputs $\{0, 1\}$; convert with $2y - 1$ |
# | halfspace | $h(x) = \operatorname{sign}(\langle w, x\rangle + b)$ | *homogeneous* means $b = 0$ |
# | regularisation | every regularised objective is $\frac{\lambda}{2}\lVert w\rVert^2 + \frac1m\sum_i \text{loss}_i$ (UML (15.12), what SGD solves): soft-SVM, kernel SVM, multiclass SVM, ridge | UML (15.6) and §17.2.5 write $\lambda\lVert w\rVert^2$ (their $\lambda$ is half ours); HSS and libraries write $\frac12\lVert w\rVert^2 + C\sum_i \xi_i$, i.e. $C = 1/(\lambda m)$ (`kmlteach.svm.lam_to_C`) |
# | Gaussian kernel | $\exp(-\lVert x - x'\rVert^2/(2\sigma))$ (UML §16.2, $\sigma$ not squared) | HSS and scikit-learn: $\exp(-\gamma\lVert x - x'\rVert^2)$, so $\gamma = 1/(2\sigma)$ |
# | polynomial kernel | $(c + \langle x, x'\rangle)^k$ | UML uses $c = 1$; $c = 0$ is the homogeneous kernel of HSS |
# | perceptron mistake | $y\langle w, x\rangle \le 0$ | HSS prints "$\ge 0$ is correct", which never updates from $w = 0$ |
# | diffusion kernel | $\exp(\beta(A - D))$, the heat kernel | HSS prints $e^{-\beta L}$ with $L = A - D$; chapter 03 shows both |
#
# The library follows the same conventions; its docstrings cite the equation they implement.

# %% [markdown]
# ## The course map
#
# The chapters depend on each other as drawn below (an arrow from A to B: read A before B;
# an arrow implied by a longer path is not drawn).
# Each box gives the estimated time — reading (from `book.toml`) plus the exercises' minutes
# (from their records) — and the points its graded exercises carry; the table after it lists those
# exercises. Chapters marked *planned* are still being written.

# %%
from IPython.display import HTML, display

from kmlteach.course.coursemap import alt_text, course_map, course_rows, format_minutes

ax = course_map()
show(ax.figure, alt=alt_text())

# %%
print(f"{'ch':<3} {'time':>10}  {'points':>6}  graded exercises (points)")
for row in course_rows():
    graded = ", ".join(f"{e} ({p})" for e, p in row["graded"]) or "—"
    print(f"{row['id']:<3} {format_minutes(row['minutes']):>10}  {row['points']:>6}  {graded}")

# %% [markdown]
# ## Summary
#
# * Run top to bottom; move widgets; the static figure next to each widget says the same thing.
# * `kmlteach.check_env()` reports versions, the Numba cache and widget support.
# * Exercises: fill in the function, run `check`; ask for `hint` (level 1, 2, ...) before `solution`.
# * Concept checks: predict with `ask(id, "a")`, then run the cell that reveals the answer.
# * Next: [01 · Margins and support vector machines](01-svm.ipynb).

# %% [markdown]
# ## Recap quiz
#
# Five questions on this notebook. Below is a static list; the widget after it lets you pick an
# answer and check it (or type `ask("00.q1", "a")` in a cell).

# %%
display(HTML(quiz_html("00")))

# %%
# NBVAL_IGNORE_OUTPUT
quiz("00")

# %%
# Your progress in this chapter: a question counts with its first answer, a prediction
# explorer once, with the first answer it scores (its next questions are practice);
# kmlteach.progress() lists every chapter.
import kmlteach

kmlteach.progress("00")

# %% [markdown]
# ## Sources and further reading
#
# **Sources** (the short names used in this chapter):
#
# * This chapter has no source of its own. The course's sources, cited by their short names in every chapter, are: **UML** = S. Shalev-Shwartz and S. Ben-David, *Understanding Machine Learning: From Theory to Algorithms*, Cambridge University Press, 2014; **HSS1**, **HSS2** = T. Hofmann, B. Schölkopf, A. J. Smola et al., chapters 1 (*Measuring Similarity with Kernels*, HSS1) and 2 (*Discriminative Models*, HSS2) of G. Bakır, T. Hofmann, B. Schölkopf, A. J. Smola, B. Taskar and S. V. N. Vishwanathan (eds.), *Predicting Structured Data*, MIT Press, 2007; **SL** = D. Roth, *CIS 519/419 Applied Machine Learning*, lecture slides, University of Pennsylvania (boosting, ensembles, multiclass and constraint classification).
#
# **Further reading** (classic references, beyond the course's sources):
#
# * B. Schölkopf and A. J. Smola, *Learning with Kernels*, MIT Press, 2002 — the standard book on kernel methods, written by two of HSS's authors.
# * T. Hastie, R. Tibshirani and J. Friedman, *The Elements of Statistical Learning*, 2nd ed., Springer, 2009 — chapters 10 and 12 cover boosting and SVMs from a statistician's side.
