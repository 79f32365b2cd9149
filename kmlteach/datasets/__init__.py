"""Seeded data generators and small bundled data (nothing downloads at run time).

Each chapter's generators live in their own module and are re-exported here, so
``kmlteach.datasets.three_balls`` etc. are the public names.
"""

from ._basic import blobs, rings, moons, separable, line_example

__all__ = ["blobs", "rings", "moons", "separable", "line_example"]
from ._ranking import ranking_queries, fraud, split_queries  # noqa: E402  (ch. 06-07)
__all__ += ["ranking_queries", "fraud", "split_queries"]
from ._multiclass import example_17_1_weights, three_balls  # noqa: E402  (ch. 04)
__all__ += ["three_balls", "example_17_1_weights"]
from ._ocr import ocr_words  # noqa: E402  (ch. 05)
__all__ += ["ocr_words"]
from ._real import breast_cancer  # noqa: E402  (ch. 02, a real data set)
__all__ += ["breast_cancer"]
