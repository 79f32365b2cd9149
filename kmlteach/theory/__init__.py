"""Large-margin theory (HSS2 §2.4–2.5): the loss gallery, calibration, Rademacher averages."""

from kmlteach.theory.calibration import BOOK_CALIBRATION, Calibration, calibration, conditional_risk
from kmlteach.theory.losses import (
    BINARY_LOSSES,
    LOSS_GALLERY,
    LossEval,
    epsilon_insensitive,
    exponential,
    graph_distance,
    huber,
    logistic,
    multiclass_logistic,
    multiclass_soft_margin,
    novelty,
    soft_margin,
    squared_soft_margin,
)
from kmlteach.theory.rademacher import (
    MarginBound,
    RademacherEstimate,
    margin_bound,
    rademacher_kernel,
    rademacher_linear,
)

__all__ = [
    "BINARY_LOSSES",
    "BOOK_CALIBRATION",
    "LOSS_GALLERY",
    "Calibration",
    "LossEval",
    "MarginBound",
    "RademacherEstimate",
    "calibration",
    "conditional_risk",
    "epsilon_insensitive",
    "exponential",
    "graph_distance",
    "huber",
    "logistic",
    "margin_bound",
    "multiclass_logistic",
    "multiclass_soft_margin",
    "novelty",
    "rademacher_kernel",
    "rademacher_linear",
    "soft_margin",
    "squared_soft_margin",
]
