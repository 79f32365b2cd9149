"""Structured output prediction on chains (UML §17.3, HSS2 §2.2.1 and §2.4).

A word image ``x`` is an (r, n) array, one row per letter image (UML writes it as an
n x r matrix with one column per letter). A labelling ``y`` is a sequence of r labels
in 0..q-1. The chain feature map of UML §17.3 has two blocks (d = nq + q²):

* type 1 (pixel x letter): Ψ¹[j, i] = (1/r) Σ_t x[t, i] 1[y_t = j]
* type 2 (letter bigram):  Ψ²[a, b] = (1/r) Σ_{t≥2} 1[y_{t-1} = a] 1[y_t = b]

so a weight vector is a pair ``W_unary`` (q, n) and ``W_pair`` (q, q), flattened as
``w = concat(W_unary.ravel(), W_pair.ravel())``. Note the order: ``W_pair[a, b]``
scores b *right after* a, the convention of :func:`viterbi`; UML indexes its type-2
feature (i, j) as "i follows j", i.e. our ``[j, i]``. The book's Ψ carries a factor
1/r; the objective of Eq. (17.4), Σ_t ⟨w, φ(x, y_t, y_{t-1})⟩, does not, so
:func:`chain_score` (= Eq. (17.4)) equals r ⟨w, Ψ(x, y)⟩.

Tie rule used everywhere (Viterbi, brute force, learners): the smallest label index
wins each argmax. For whole labellings this selects, among all maximisers, the one
that is smallest when compared from the *last* position backwards.

Where the code lives: ``chain.py`` (Ψ, scores, Hamming loss), ``viterbi.py``
(decoding), ``learning.py`` (structured SGD, Collins' perceptron), ``taxonomy.py``
(HSS2 §2.4's taxonomy cost).
"""

from kmlteach._exports import public_names
from kmlteach.structured import chain as _chain
from kmlteach.structured import learning as _learning
from kmlteach.structured import taxonomy as _taxonomy
from kmlteach.structured import viterbi as _viterbi
from kmlteach.structured.chain import *
from kmlteach.structured.learning import *
from kmlteach.structured.taxonomy import *
from kmlteach.structured.viterbi import *

__all__ = public_names(_chain, _viterbi, _learning, _taxonomy)


def __dir__():
    return sorted(__all__)
