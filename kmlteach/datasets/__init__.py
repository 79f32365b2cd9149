"""Seeded data generators and small bundled data (nothing downloads at run time).

Each chapter's generators live in their own module and are re-exported here, so
``kmlteach.datasets.three_balls`` etc. are the public names.
"""

from ._basic import blobs, line_example, moons, rings, separable
from ._multiclass import example_17_1_weights, three_balls  # ch. 04
from ._ocr import ocr_words  # ch. 05
from ._ranking import fraud, ranking_queries, split_queries  # ch. 06-07
from ._real import RealData, breast_cancer, digits, iris, penguins, wine, wine_quality  # real data sets

__all__ = ["blobs", "rings", "moons", "separable", "line_example"]
__all__ += ["three_balls", "example_17_1_weights"]
__all__ += ["ocr_words"]
__all__ += ["ranking_queries", "fraud", "split_queries"]
__all__ += ["RealData", "breast_cancer", "digits", "wine", "iris", "penguins", "wine_quality"]
