# %% [markdown]
# # 05 · Structured output prediction
#
# [Open this chapter on Binder](https://mybinder.org/v2/gh/kmlteach/kmlteach/main?urlpath=lab/tree/notebooks/05-structured.ipynb)
#
# *Sources: UML §17.3 (structured output prediction, the OCR chain, the dynamic programme),
# UML §17.2.5 (SGD for multiclass learning), UML exercise 17.3 (loss-augmented decoding),
# HSS2 §2.2.1 (Collins' perceptron and its mistake bound), HSS2 §2.4 (graph and taxonomy
# losses, Fig. 2.1).*
#
# *Notation: every symbol of the course, chapter by chapter, with the letters that change meaning flagged, is in the [glossary](../docs/glossary.md).*
#
# Chapter 04 predicted one label out of $k$. Here the label is a whole *sequence*: we read a
# word image letter by letter, and the answer is a string of $r$ letters. With
# $q = 26$ letters there are $26^r$ possible answers — far too many to score one by one. The
# linear multiclass machinery still applies verbatim; what saves us is that the score splits
# into pieces that only look at neighbouring letters, so a dynamic programme finds the best
# string without scoring them one by one (how cheaply is a question of section 3).
#
# **You need:** chapter 04 (class-sensitive feature maps Ψ, the generalized hinge loss and its
# SGD, the multiclass perceptron).
#
# **You will be able to:**
# 1. write the chain feature map $\Psi(x, y)$ with pixel–letter and letter–bigram features
#    and score a labelling with it;
# 2. decode with the Viterbi recursion, read its table $M$ and backpointers, and adapt it to
#    loss-augmented decoding;
# 3. train a chain model with structured SGD and Collins' perceptron, and see when the bigram
#    features beat an independent per-letter classifier (and when they hurt: scrambled words);
# 4. build a cost $\Delta$ from a taxonomy tree.

# %%
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import HTML, display

from kmlteach import structured as S
from kmlteach.datasets import ocr_words
from kmlteach.exercises import ask, quiz, quiz_html
from kmlteach.plots import show
from kmlteach.plots.ch05 import (
    plot_noise_sweep,
    plot_samples,
    plot_transitions,
    plot_viterbi_table,
    plot_word,
)
from kmlteach.widgets.ch05 import train_pair

SEED = 0
rng = np.random.default_rng(SEED)

# %% [markdown]
# ## 1 · The data: word images, already cut into letters
#
# UML §17.3 assumes the image of a word has been segmented into one small image per letter.
# `ocr_words` builds such data offline: each letter is drawn from the DejaVu Sans font that
# ships with matplotlib, on a 16 × 8 grid, bent by a small random affine map (rotation, shear,
# scale, shift) and covered with Gaussian pixel noise. The words come from a bundled list of
# about 3 900 common English words, so the letter sequences have the statistics of real
# English. A word with $r$ letters is stored as an $r \times 128$ array, one row per letter
# (UML writes the transpose, one column per letter).

# %%
data = ocr_words(6, noise=0.3, seed=SEED)
print(f"first word: {data.words[0]!r}, X[0] has shape {data.X[0].shape}, labels {data.y[0].tolist()} (a = 0)")
fig, ax = plt.subplots(figsize=(6, 4.2), layout="constrained")
plot_samples(data, n=6, ax=ax)
ax.set_title("six training words at noise 0.3")
show(
    fig,
    alt="Six noisy word images stacked, each labelled with its word on the left: "
    + ", ".join(data.words[:6])
    + ". The letters are readable through the pixel noise.",
)

# %% [markdown]
# ## 2 · Features, score and loss (UML §17.3)
#
# The cost of a prediction is the fraction of wrong letters,
# $\Delta(y', y) = \frac1r \sum_{t=1}^r 1[y'_t \ne y_t]$. The feature map has
# $d = nq + q^2$ coordinates of two kinds:
#
# * **type 1**, pixel $i$ × letter $j$: $\Psi_{i,j,1} = \frac1r \sum_t x_{t,i}\,1[y_t = j]$ —
#   which pixels are dark when the letter is $j$;
# * **type 2**, letter bigram: $\Psi_{a,b,2} = \frac1r \sum_{t \ge 2} 1[y_{t-1} = a]\,1[y_t = b]$ —
#   how often $b$ follows $a$.
#
# (We index the bigram by (previous, next); UML writes the pair the other way round.) With
# $w = (W_{\text{unary}}, W_{\text{pair}})$ the score is
# $\langle w, \Psi(x, y)\rangle = \frac1r\big(\sum_t \langle W_{\text{unary}}[y_t], x_t\rangle
# + \sum_{t\ge2} W_{\text{pair}}[y_{t-1}, y_t]\big)$. The bracket is a sum of local terms
# $\langle w, \phi(x, y_t, y_{t-1})\rangle$ — UML's Eq. (17.4) — and the factor $1/r$ does not
# change which labelling wins. `S.psi` builds the vector explicitly; `S.chain_score` computes
# the bracket directly from the weights.

# %%
x, y = data.X[0], data.y[0]
q, n = 26, x.shape[1]
Wu, Wp = rng.normal(size=(q, n)), rng.normal(size=(q, q))
w = np.concatenate([Wu.ravel(), Wp.ravel()])
p = S.psi(x, y)
print(
    f"d = nq + q^2 = {p.size}; non-zero type-2 entries: {np.count_nonzero(p[n * q :])} "
    f"(= r - 1 = {len(y) - 1} bigrams)"
)
print(f"r <w, Psi(x, y)> = {len(y) * (w @ p):.6f}")
print(f"chain_score      = {S.chain_score(x, y, Wu, Wp):.6f}")

# %% [markdown]
# **Predict first.** A 5-letter word over q = 26 letters has 26⁵ ≈ 1.2·10⁷ labellings. About
# how many additions does the Viterbi recursion need to find the best one?
#
# * (a) 5 · 26 = 130
# * (b) 5 · 26² ≈ 3 400
# * (c) 26⁵ / 5 ≈ 2.4·10⁶
# * (d) 2²⁶ ≈ 6.7·10⁷
#
# Replace `"?"` by your letter and run the cell; the section below reveals the answer.

# %%
ask("05.c_cost", "?")

# %% [markdown]
# ## 3 · Decoding with dynamic programming (UML Eq. (17.5))
#
# Let $M_{s,\tau}$ be the best score of a prefix $y_1..y_\tau$ that ends with letter $s$.
# The best prefix ending in $s$ at step $\tau$ extends the best prefix ending in *some* $s'$ at
# step $\tau - 1$:
#
# $$M_{s,\tau} = \max_{s'} \big(M_{s',\tau-1} + W_{\text{pair}}[s', s]\big) + \langle W_{\text{unary}}[s], x_\tau\rangle,$$
#
# and the maximising $s'$ is stored as a backpointer $I_{s,\tau}$. The best full labelling ends
# in $\arg\max_s M_{s,r}$; following the backpointers from there recovers it.
#
# <details><summary>Answer and why</summary>
#
# Every step costs $q^2$ operations, so decoding costs $O(rq^2)$ instead of $q^r$ (this
# settles 05.c_cost).
#
# </details>
#
# `S.viterbi(unary, pairwise)` runs this recursion (compiled with Numba) and returns the labels, the score, $M$ and $I$;
# ties go to the smallest letter index. On short chains we can check it against plain
# enumeration:

# %%
agree = 0
for _ in range(200):
    r_, q_ = int(rng.integers(1, 6)), int(rng.integers(2, 5))
    U, P = rng.normal(size=(r_, q_)), rng.normal(size=(q_, q_))
    a, b = S.viterbi(U, P), S.brute_force_argmax(U, P)
    agree += int(np.array_equal(a.labels, b.labels) and abs(a.score - b.score) < 1e-12)
print(f"Viterbi = brute force on {agree} of 200 random chains")

# %% [markdown]
# To see the table on a real word we need weights. We train a chain model now (how, in §5) on
# 400 words and decode a test word. Below, the word image sits on top of the table $M$ (each
# column shown relative to its best cell: 0, yellow, is best; the colour bar gives the
# scale); the orange line is the backtracked path, the ring the best cell of the last column.
# The white arrows are the back-pointers of the five best cells of the last column: each
# starts at a cell $(s, \tau)$ and points *back* to its best predecessor $I_{s,\tau}$ in
# column $\tau - 1$, so backtracking follows the arrows. Under the image, the decoded letters;
# a wrong one is vermillion *and* underlined, and the true word is written below in grey.

# %%
NOISE = 0.3
train = ocr_words(400, noise=NOISE, seed=1)
test = ocr_words(200, noise=NOISE, seed=2)
chain = S.structured_sgd(train.X, train.y, eta=0.5, T=6000, seed=SEED)

i = 0
x, truth = test.X[i], test.y[i]
res = S.viterbi(S.unary_scores(x, chain.W_unary), chain.W_pair)
print(
    f"true word {test.words[i]!r}, decoded {''.join(chr(97 + k) for k in res.labels)!r}, "
    f"score {res.score:.3f}"
)
fig, (ax0, ax1) = plt.subplots(2, 1, figsize=(6.4, 8.2), height_ratios=[1.5, 5], layout="constrained")
plot_word(x, test.letter_shape, labels=res.labels, truth=truth, ax=ax0, aligned=True)
plot_viterbi_table(res.M, res.backpointers, len(x) - 1, labels=res.labels, ax=ax1)
decoded = "".join(chr(97 + k) for k in res.labels)
wrong = [t + 1 for t in range(len(x)) if res.labels[t] != truth[t]]
show(
    fig,
    alt=f"Top: the image of the test word {test.words[i]!r} with the decoded letters "
    f"{decoded!r} underneath"
    + (f" (letter {', '.join(map(str, wrong))} wrong, underlined)" if wrong else " (all correct)")
    + " and the true word below. Bottom: the Viterbi table, 26 letter rows by "
    f"{len(x)} positions, coloured by each cell's score minus its column's best; an orange line "
    "joins the backtracked letters and white arrows point from the five best cells of the last "
    "column back to their best predecessors.",
)

# %% [markdown] tags=["slide-skip"]
# **Predict, then reveal.** Ten other test words, decoded by the same chain. The widget shows a
# word's table $M$ and its best path (dashed), then moves the score of one pair of letters
# $a \to b$ by $\delta$. Tick the positions where the best path, the decoded word, will change
# (or "no change"), then press **Reveal** to draw the new path. A raised pair score can pull
# letters that are not $a$ or $b$ along with it: the path is chosen as a whole. Change the
# pair, $\delta$ or the word, or press **next question ▶**, for another question; the
# readout keeps your score.

# %% tags=["slide-skip"]
# NBVAL_IGNORE_OUTPUT
from kmlteach.widgets.ch05 import make_viterbi_trace

make_viterbi_trace(chain, ocr_words(10, noise=NOISE, seed=3), predict=True)

# %% [markdown]
# **Try it.** Step $\tau$ through the table: at each step the framed column is filled from the
# previous one, an arrow points back from each of its five best cells to the predecessor that
# cell chose (its back-pointer), the ring marks the best cell, and the letters under the image
# are the best *last* letters of the prefixes so far. At the final step the path is
# backtracked — notice that it need not pass through the best cell of every column.

# %%
# NBVAL_IGNORE_OUTPUT
from kmlteach.widgets.ch05 import make_viterbi_trace

make_viterbi_trace(chain, ocr_words(10, noise=NOISE, seed=3))

# %% [markdown]
# ## 4 · Loss-augmented decoding (UML exercise 17.3)
#
# SGD for multiclass learning (UML §17.2.5) needs, at every step, the labelling that violates
# the margin most:
#
# $$\hat y \in \arg\max_{y'} \; \Delta(y', y) + \langle w, \Psi(x, y') - \Psi(x, y)\rangle .$$
#
# **Predict first.** A cell below decodes a random 5-letter chain over 3 letters twice, plainly
# and loss-augmented with the true labelling $y$. Compared with the plain argmax, the
# loss-augmented labelling is (a) the same: the loss does not depend on the scores; (b) at
# least as far from $y$ in Hamming distance; (c) closer to $y$: the loss pulls the decoder
# towards the truth.

# %%
ask("05.c_augment", "?")

# %% [markdown]
# How is this maximised? The Hamming loss is itself a sum over positions, so it simply adds
# $1[s \ne y_t]$ to the unary score of letter $s$ at position $t$ (the factor $1/r$ is shared
# by $\Delta$ and $\Psi$), and the same recursion solves the problem.
# `S.loss_augmented_viterbi` does exactly that; any per-position cost matrix $\delta(s, y_t)$
# works the same way.

# %%
U, P = rng.normal(size=(5, 3)), rng.normal(size=(3, 3))
y_true = np.array([0, 1, 2, 1, 0])
plain, aug = S.viterbi(U, P), S.loss_augmented_viterbi(U, P, y_true)
check_bf = S.brute_force_argmax(U + (np.arange(3)[None, :] != y_true[:, None]), P)
print(
    f"plain argmax {plain.labels.tolist()}, loss-augmented {aug.labels.tolist()} "
    f"(Hamming distance to y: {5 * S.hamming_loss(plain.labels, y_true):.0f} and "
    f"{5 * S.hamming_loss(aug.labels, y_true):.0f}); "
    f"brute force agrees: {np.array_equal(aug.labels, check_bf.labels)}"
)

# %% [markdown]
# The loss-augmented labelling is at least as far from $y$ as the plain one, always: it beats
# the plain argmax on score plus loss, and the plain argmax wins on score alone, so it must win
# on the loss. Decoding looks for the labelling that violates the margin most, a wrong one.
# This settles 05.c_augment.

# %% [markdown]
# ## 5 · Learning: structured SGD and Collins' perceptron
#
# **Structured SGD** is UML's "SGD for Multiclass Learning" with the chain $\Psi$: start from
# $w^{(1)} = 0$; at step $t$ draw a word, find $\hat y$ by loss-augmented Viterbi, and step
# $w^{(t+1)} = w^{(t)} - \eta\,(\Psi(x, \hat y) - \Psi(x, y))$; output the average
# $\bar w = \frac1T \sum_t w^{(t)}$.
#
# **Collins' perceptron** (HSS2 §2.2.1) predicts with the plain argmax and, after a mistake,
# adds $\eta(\Psi(x, y) - \Psi(x, z))$. On separable data it makes at most $(R/\gamma)^2$
# mistakes (HSS2 Theorem 11; the tests check the bound). We average its iterates too.
#
# The baseline is the same learner **without** the type-2 features: every letter is then
# classified on its own by a linear multiclass model with the same pixel features.

# %%
alone = S.structured_sgd(train.X, train.y, eta=0.5, T=6000, seed=SEED, transitions=False)
perc = S.structured_perceptron(train.X, train.y, epochs=8, seed=SEED)
print(f"test letter error at noise {NOISE}:")
print(f"  independent letters (SGD, type-1 only) {S.letter_error(alone, test.X, test.y):.3f}")
print(f"  chain model, structured SGD            {S.letter_error(chain, test.X, test.y):.3f}")
print(f"  chain model, averaged perceptron       {S.letter_error(perc, test.X, test.y):.3f}")
print(f"  perceptron mistakes per epoch: {perc.history.astype(int).tolist()}")

# %% [markdown]
# ### When do the bigrams help?
#
# Does the chain model, which adds the bigram features, read noisy words better than a model
# that reads each letter on its own? A small sweep: at each noise level both models are
# trained on the same 400 words (T = 6000 SGD steps) and tested on the same 150 words — one
# run per level, no repetitions, so differences of a point or two are within the noise of the
# experiment.

# %% [markdown]
# **Predict first.** At noise 0.1 every letter image is easy to read on its own. Compared with
# a model that reads each letter independently, the chain model's letter error will be
#
# * (a) much lower (half or less)
# * (b) about the same
# * (c) much higher
#
# Replace `"?"` by your letter and run the cell; the sweep below reveals the answer.

# %%
ask("05.c_noise", "?")

# %%
noise_levels = [0.1, 0.3, 0.5, 0.7]
err_chain, err_alone = [], []
for nz in noise_levels:
    c_model, a_model = train_pair(nz, n_train=400, T=6000, seed=SEED)
    te = ocr_words(150, noise=nz, seed=5)
    err_chain.append(S.letter_error(c_model, te.X, te.y))
    err_alone.append(S.letter_error(a_model, te.X, te.y))
    print(f"noise {nz:.1f}: independent {err_alone[-1]:.3f}, chain {err_chain[-1]:.3f}")
fig, ax = plt.subplots(figsize=(5.5, 3.6), layout="constrained")
plot_noise_sweep(noise_levels, err_chain, err_alone, ax=ax)
show(
    fig,
    alt="Test letter error against pixel noise for independent letters (circles) and the "
    "chain model (triangles): "
    + "; ".join(
        f"noise {nz:.1f}: {a:.3f} and {c:.3f}" for nz, a, c in zip(noise_levels, err_alone, err_chain)
    )
    + ". Both grow with the noise; the chain model's error is the lower one from noise 0.3 on.",
)

# %% [markdown]
# What this run shows, and no more: at noise 0.1 the two letter errors are equal to within
# 0.001; at noise 0.3, 0.5 and 0.7 the chain model's letter error is lower by 0.05–0.07. It does
# not show *which* bigrams do the work (the weights below give a hint), nor how the gap
# would vary over other training sets or seeds. This settles 05.c_noise.
#
# **Try it.** Move the noise: both models are retrained at that noise (a second or so), and
# one test word is decoded by each. Wrong letters are shown in vermillion and underlined,
# with the true word in grey below. A noise level is trained once, in the background; until
# it is ready the figure says so and keeps the previous words.

# %%
# NBVAL_IGNORE_OUTPUT
from kmlteach.widgets.ch05 import make_noise_compare

make_noise_compare(noise=0.4)

# %% [markdown]
# ### What the bigram weights learned
#
# The learned $W_{\text{pair}}[a, b]$ is large for pairs that are common in English and
# negative for pairs that rarely or never occur. The ranking of the weights is not the
# ranking of the counts: the SGD update is driven by decoding mistakes (the loss-augmented
# labelling against the true one), not by how often a pair occurs. The heat map shows the averaged SGD weights; below it,
# the strongest learned bigrams are compared with the bigram counts of the training words.

# %%
fig, ax = plt.subplots(figsize=(6.5, 5.8), layout="constrained")
plot_transitions(chain.W_pair, ax=ax)
ax.set_title("learned transition weights (structured SGD)")
top3 = [chr(97 + k // 26) + chr(97 + k % 26) for k in np.argsort(chain.W_pair, axis=None)[::-1][:3]]
show(
    fig,
    alt="A 26 by 26 heat map of the learned bigram weights, previous letter by rows and "
    "next letter by columns, red for positive and blue for negative weights; the strongest "
    f"pairs are {', '.join(top3)}, and most cells are close to zero.",
)

from collections import Counter

counts = Counter(wd[k : k + 2] for wd in train.words for k in range(len(wd) - 1))
order = np.argsort(chain.W_pair, axis=None)[::-1][:12]
learned = [chr(97 + k // 26) + chr(97 + k % 26) for k in order]
frequent = {b for b, _ in counts.most_common(60)}
print("12 strongest learned bigrams:", " ".join(learned))
print(
    f"{len(set(learned) & frequent)} of them are among the 60 most frequent bigrams "
    f"of the training words ({len(counts)} distinct bigrams occur)"
)
worst = [chr(97 + k // 26) + chr(97 + k % 26) for k in np.argsort(chain.W_pair, axis=None)[:8]]
print("8 most penalised bigrams:", " ".join(worst), "| their counts:", [counts.get(b, 0) for b in worst])

# %% [markdown]
# **Try it.** Retrain with more or fewer SGD steps and watch the bigram weights appear. Which
# pairs come first? Compare them with the counts printed above.

# %%
# NBVAL_IGNORE_OUTPUT
from kmlteach.widgets.ch05 import make_transition_growth

make_transition_growth(train, ocr_words(100, noise=NOISE, seed=4))

# %% [markdown]
# ### Lab on real data: words never seen, and words scrambled
#
# What is real in these data? The letter *sequences*: every word comes from SCOWL's list of the
# most common English words (the file `kmlteach/data/words.txt`, whose header gives the source
# and the licence), and every glyph from a real font, DejaVu Sans; only the distortion and the
# pixel noise of each letter are simulated. So the bigram weights have learned something about
# English. Two questions the test words of section 3 cannot settle, since they were drawn from
# the same list as the training words and some of them also occur in training:
#
# 1. Does the chain model read words it has never seen, or does it recognise words it
#    remembers?
# 2. Does it read the letters, or guess them from English?
#
# The protocol: a pool of 1 500 word images at noise 0.3; both models (chain and independent
# letters, structured SGD with T = 6000 as above) are trained on the first 400. They are tested
# on 200 later words of the pool that do *not* occur among the training words, on the later
# images of words that *do* occur in training (new images of known words), and on the 200 new
# words *scrambled*: each word's letter images in a random order, which keeps every image and
# destroys the English bigrams.
#
# **Predict first.** On the scrambled words, the chain model's letter error, compared with that
# of the model that reads each letter on its own, is (a) still lower: the chain model reads
# each letter better; (b) the same: both models see the same letter images; (c) higher: its
# bigram weights now pull towards wrong letters.

# %%
ask("05.c_scramble", "?")

# %%
pool = ocr_words(1500, noise=NOISE, seed=21)
seen = set(pool.words[:400])
chain_l = S.structured_sgd(pool.X[:400], pool.y[:400], eta=0.5, T=6000, seed=SEED)
alone_l = S.structured_sgd(pool.X[:400], pool.y[:400], eta=0.5, T=6000, seed=SEED, transitions=False)
new_i = [i for i in range(400, len(pool.words)) if pool.words[i] not in seen][:200]
known_i = [i for i in range(400, len(pool.words)) if pool.words[i] in seen]
rng_l = np.random.default_rng(7)
orders = [rng_l.permutation(len(pool.y[i])) for i in new_i]
sets = {
    "words never seen in training": ([pool.X[i] for i in new_i], [pool.y[i] for i in new_i]),
    "new images of training words": ([pool.X[i] for i in known_i], [pool.y[i] for i in known_i]),
    "the unseen words, scrambled": (
        [pool.X[i][o] for i, o in zip(new_i, orders)],
        [pool.y[i][o] for i, o in zip(new_i, orders)],
    ),
}


def word_accuracy(model, X, Y):
    """Fraction of the words decoded without a single wrong letter."""
    return float(np.mean([np.array_equal(p, t) for p, t in zip(S.predict(model, X), Y)]))


print(f"noise {NOISE}, trained on 400 words ({len(seen)} distinct)")
print(
    "test set                        words   letter error: chain  independent   words read right: chain  independent"
)
for name, (X_l, Y_l) in sets.items():
    print(
        f"{name:<30} {len(Y_l):6d}   {S.letter_error(chain_l, X_l, Y_l):19.3f}  {S.letter_error(alone_l, X_l, Y_l):11.3f}"
        f"   {100 * word_accuracy(chain_l, X_l, Y_l):21.1f} %  {100 * word_accuracy(alone_l, X_l, Y_l):9.1f} %"
    )

# %% [markdown]
# 1. The chain model reads words it never saw: on the 200 unseen words its letter error is
#    0.089 against 0.135 for independent letters, and it reads 52 % of them without a mistake
#    against 35.5 %. Nor does it lean on remembered words: between the unseen words and new
#    images of training words, the independent model, which can remember no word, improves
#    more (0.135 → 0.107) than the chain model (0.089 → 0.081). What its bigram weights
#    learned from 376 distinct words carries over to the other words of the language.
# 2. Scrambled, the same unseen words cost the chain model a letter error of 0.161 against
#    0.135 (this settles 05.c_scramble). The independent model's error does not move, since it
#    reads each letter alone, while the chain model's pair weights favour pairs that are no
#    longer there. A learned prior helps where it is true and hurts where it is false: a
#    structured model is only as good as the match between the structure it learned and the
#    data it meets.

# %% [markdown]
# ## 6 · A cost that knows a taxonomy (HSS2 §2.4)
#
# The Hamming loss treats all mistakes alike. When labels sit in a tree — HSS2's Fig. 2.1
# files documents under Computers → Hardware → Storage → HDD, and so on — confusing *CDROM*
# with *HDD* is a smaller mistake than confusing it with *Cables*. HSS2 therefore sets
# $\Delta(y, y')$ to the length of the shortest path between the two nodes, and uses it as the
# required margin in the hinge loss (their Eq. (2.21)):
# $\max\{0, \max_{\tilde y \ne y} [\Delta(\tilde y, y) + f(x, \tilde y)] - f(x, y)\}$.
# With every label a child of one root and edges of weight $\rho/2$, this $\Delta$ becomes
# $\rho(1 - \delta_{y,y'})$ and the loss is the ordinary multiclass hinge with margin $\rho$.
# The matrix can be passed as `delta` to any multiclass learner that accepts a cost matrix.

# %%
tax = S.taxonomy_delta()
L = list(tax.labels)
D = tax.delta
print(
    f"Delta(CDROM, HDD) = {D[L.index('CDROM'), L.index('HDD')]:.0f}, "
    f"Delta(CDROM, Cables) = {D[L.index('CDROM'), L.index('Cables')]:.0f}"
)
fig, ax = plt.subplots(figsize=(6, 5), layout="constrained")
im = ax.imshow(D, cmap="viridis")
ax.set_xticks(range(len(L)), L, rotation=60, ha="right")
ax.set_yticks(range(len(L)), L)
for a in range(len(L)):
    for b in range(len(L)):
        ax.text(
            b,
            a,
            f"{D[a, b]:.0f}",
            ha="center",
            va="center",
            color="white" if D[a, b] < 3 else "black",
            fontsize=8,
        )
fig.colorbar(im, ax=ax, label="tree distance Δ")
ax.set_title("HSS2 Fig. 2.1 taxonomy: shortest-path cost")
show(
    fig,
    alt=f"A {len(L)} by {len(L)} matrix of tree distances between the taxonomy's labels, "
    "each cell labelled with its value: 0 on the diagonal, small between siblings such as "
    f"CDROM and HDD ({D[L.index('CDROM'), L.index('HDD')]:.0f}), larger between labels in "
    f"different branches such as CDROM and Cables ({D[L.index('CDROM'), L.index('Cables')]:.0f}).",
)

flat = S.taxonomy_delta({"root": ["a", "b", "c"]}, edge_weight=0.5, leaves_only=True)
print("two-level tree, edges of weight 1/2:\n", flat.delta)

# %% [markdown]
# ## 7 · Exercises
#
# Each exercise is checked against the course's reference on several cases. Rows of `x` are
# letters; labels are integers.
# Stuck? `hint("05.xxx")`, then `hint("05.xxx", level=2)` and so on: three levels, from a
# nudge to close to code. The third level and `solution("05.xxx")` come with the solutions,
# when your course releases them (until then they say so).
#
# **Exercise 1 (score of a labelling).** Return
# $\sum_t \langle W_{\text{unary}}[y_t], x_t\rangle + \sum_{t\ge2} W_{\text{pair}}[y_{t-1}, y_t]$,
# the objective of Eq. (17.4).

# %%
from kmlteach.exercises import check, hint, solution  # noqa: F401  (hint and solution: for the student to call)


def score(x, y, W_unary, W_pair):
    ### BEGIN SOLUTION
    return float(np.sum(W_unary[y] * x) + np.sum(W_pair[y[:-1], y[1:]]))
    ### END SOLUTION


check("05.chain_score", score)

# %% [markdown]
# **Exercise 2 (the Viterbi recursion).** Given `unary` of shape (r, q) and `pairwise` of shape
# (q, q), return the labelling (an int array of length r) maximising
# $\sum_t \text{unary}[t, y_t] + \sum_{t\ge2} \text{pairwise}[y_{t-1}, y_t]$, via Eq. (17.5)
# and backtracking. On ties take the smallest index (`np.argmax` does).


# %%
def viterbi_decode(unary, pairwise):
    ### BEGIN SOLUTION
    r, q = unary.shape
    M = np.zeros((q, r))
    I = np.zeros((q, r), dtype=int)
    M[:, 0] = unary[0]
    for tau in range(1, r):
        cand = M[:, tau - 1][:, None] + pairwise
        I[:, tau] = cand.argmax(axis=0)
        M[:, tau] = cand.max(axis=0) + unary[tau]
    y = np.zeros(r, dtype=int)
    y[-1] = np.argmax(M[:, -1])
    for tau in range(r - 1, 0, -1):
        y[tau - 1] = I[y[tau], tau]
    return y
    ### END SOLUTION


check("05.viterbi", viterbi_decode)

# %% [markdown]
# **Exercise 3 (loss-augmented decoding).** Return the labelling maximising
# $\sum_t 1[y_t \ne y^{\text{true}}_t]$ + the score of Exercise 2. Reuse your `viterbi_decode`.


# %%
def loss_augmented(unary, pairwise, y_true):
    ### BEGIN SOLUTION
    q = unary.shape[1]
    cost = (np.arange(q)[None, :] != np.asarray(y_true)[:, None]).astype(float)
    return viterbi_decode(unary + cost, pairwise)
    ### END SOLUTION


check("05.loss_augmented", loss_augmented)

# %% [markdown]
# **Exercise 4 (derivation: the score is linear in the weights).** Show that the chain score
# of Exercise 1 can be written $\langle G_{\text{unary}}, W_{\text{unary}}\rangle +
# \langle G_{\text{pair}}, W_{\text{pair}}\rangle$ (sums of entry-wise products) for
# matrices that depend only on $x$ and $y$, and return them as a pair `(G_unary, G_pair)` of
# shapes (q, n) and (q, q). How do they relate to $\Psi(x, y)$ of section 2, and why is this
# exactly what structured SGD needs (UML §17.3)?


# %%
def score_coefficients(x, y, q):
    ### BEGIN SOLUTION
    Gu = np.zeros((q, x.shape[1]))
    Gp = np.zeros((q, q))
    for t in range(len(y)):
        Gu[y[t]] += x[t]
        if t > 0:
            Gp[y[t - 1], y[t]] += 1.0
    return Gu, Gp
    ### END SOLUTION


check("05.score_coefficients", score_coefficients)

# %% [markdown]
# ## Summary
#
# * A structured label is a sequence; the chain feature map adds pixel–letter and
#   letter–bigram features, and its score is a sum of terms that each see two neighbouring
#   letters.
# * That locality makes the argmax over $q^r$ strings a dynamic programme: the table
#   $M_{s,\tau}$ and its backpointers give the best labelling in $O(rq^2)$.
# * An additive loss such as Hamming folds into the unary scores, so the loss-augmented
#   argmax needed by SGD is the same recursion.
# * Structured SGD and Collins' perceptron learn the weights; the bigram weights recover
#   frequent letter pairs of the training words, and in our one sweep the chain model made
#   fewer letter errors than independent letters once the images were noisy (noise ≥ 0.3).
# * The chain model reads words it never saw better than independent letters do, and worse
#   when the letters of those words are scrambled: its bigram weights are a prior learned from
#   English.
# * A tree over the labels gives a graded cost $\Delta$; with a flat tree it is the usual
#   multiclass margin.
#
# Next: [06 · Ranking](06-ranking.ipynb) — another structured output, scored with Kendall's
# tau and NDCG.

# %% [markdown]
# ## Recap quiz
#
# Five questions on this chapter. The list below is the static
# version; the widget after it checks your answers (or call `ask("05.q1", "a")`
# yourself, with a number for a numeric question, as in `ask("05.q2", 100)`).

# %%
display(HTML(quiz_html("05")))

# %%
# NBVAL_IGNORE_OUTPUT
quiz("05")

# %%
# Your progress in this chapter: a question counts with its first answer, a prediction
# explorer once, with the first answer it scores (its next questions are practice);
# kmlteach.progress() lists every chapter.
import kmlteach

kmlteach.progress("05")

# %% [markdown]
# ## Sources and further reading
#
# **Sources** (the short names used in this chapter):
#
# * **UML** = S. Shalev-Shwartz and S. Ben-David, *Understanding Machine Learning: From Theory to Algorithms*, Cambridge University Press, 2014 (§17.3).
# * **HSS2** = T. Hofmann, B. Schölkopf, A. J. Smola et al., chapters 1 (*Measuring Similarity with Kernels*, HSS1) and 2 (*Discriminative Models*, HSS2) of G. Bakır, T. Hofmann, B. Schölkopf, A. J. Smola, B. Taskar and S. V. N. Vishwanathan (eds.), *Predicting Structured Data*, MIT Press, 2007 (§2.2.1, §2.4).
#
# **Further reading** (classic references, beyond the course's sources):
#
# * M. Collins, "Discriminative training methods for hidden Markov models: theory and experiments with perceptron algorithms", *Proceedings of EMNLP*, 2002 — the structured perceptron.
# * I. Tsochantaridis, T. Joachims, T. Hofmann and Y. Altun, "Large margin methods for structured and interdependent output variables", *Journal of Machine Learning Research* 6, 1453–1484, 2005 — structured SVMs and taxonomy costs.
# * L. R. Rabiner, "A tutorial on hidden Markov models and selected applications in speech recognition", *Proceedings of the IEEE* 77(2), 257–286, 1989 — the Viterbi recursion.
