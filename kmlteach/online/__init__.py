"""Online kernel learning (HSS2 §2.2.2): NORMA and the losses it follows."""

from kmlteach._exports import public_names
from kmlteach.online import losses as _losses
from kmlteach.online import norma as _norma
from kmlteach.online.losses import *
from kmlteach.online.norma import *

__all__ = public_names(_losses, _norma)


def __dir__():
    return sorted(__all__)
