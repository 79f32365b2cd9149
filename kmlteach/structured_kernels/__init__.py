"""Kernels for structured data: strings, sets, graphs and generative models.

HSS1 §1.4 and UML §16.2.1. Every kernel here is an inner product of an explicit
(possibly huge) feature vector; where the feature map is small enough it is exposed
too (``*_features``), so the tests and the notebook can check ``Φ Φᵀ = K``.

Contents
--------
* strings: :func:`substring_kernel` (UML §16.2.1, suffix automaton in Numba),
  :func:`substring_features`, :func:`ngram_kernel` (HSS1 Eq. (1.34)),
  :func:`ngram_features`;
* sets: :func:`set_kernel` ``|A ∩ B|`` and :func:`set_features` (HSS1 §1.4.1);
* R-convolution: :func:`convolution_kernel` (HSS1 Eq. (1.36)) with the example
  relation :func:`prefix_suffix_splits`;
* graphs (``graphs.py``):
  :func:`adjacency_matrix`, :func:`graph_laplacian`, :func:`diffusion_kernel` and
  :func:`diffusion_kernel_limit` (HSS1 §1.4.4), :func:`shortest_paths` (Floyd–Warshall)
  and :func:`shortest_path_kernel` (Eq. (1.38)), :func:`random_walk_kernel`
  (product-graph form of the walk kernels (1.37)/(1.39));
* Fisher kernels of exponential families (HSS1 §1.4.6, Eqs. (1.40)–(1.43)):
  :func:`fisher_score`, :func:`fisher_information`, :func:`fisher_kernel`,
  :func:`exp_family_mle`;
* :func:`structured_gram` builds the Gram matrix of any of them over a list of items.

Where the code lives: ``strings.py``, ``sets.py``, ``graphs.py``, ``fisher.py``, ``gram.py``.
"""

from kmlteach._exports import public_names
from kmlteach.structured_kernels import fisher as _fisher
from kmlteach.structured_kernels import gram as _gram
from kmlteach.structured_kernels import graphs as _graphs
from kmlteach.structured_kernels import sets as _sets
from kmlteach.structured_kernels import strings as _strings
from kmlteach.structured_kernels.fisher import *
from kmlteach.structured_kernels.gram import *
from kmlteach.structured_kernels.graphs import *
from kmlteach.structured_kernels.sets import *
from kmlteach.structured_kernels.strings import *

__all__ = public_names(_strings, _sets, _graphs, _fisher, _gram)


def __dir__():
    return sorted(__all__)
