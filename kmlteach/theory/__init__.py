"""Large-margin theory (HSS2 §2.4–2.5): the loss gallery, calibration, Rademacher averages;
Platt scaling (scores to probabilities)."""

from kmlteach._exports import public_names
from kmlteach.theory import calibration as _calibration
from kmlteach.theory import losses as _losses
from kmlteach.theory import platt as _platt
from kmlteach.theory import rademacher as _rademacher
from kmlteach.theory.calibration import *
from kmlteach.theory.losses import *
from kmlteach.theory.platt import *
from kmlteach.theory.rademacher import *

__all__ = public_names(_calibration, _losses, _rademacher, _platt)


def __dir__():
    return sorted(__all__)
