"""Online kernel learning (HSS2 §2.2.2): NORMA and the losses it follows."""

from kmlteach.online.losses import CLASSIFICATION_LOSSES, NORMA_LOSSES, norma_loss
from kmlteach.online.norma import NormaResult, norma

__all__ = ["CLASSIFICATION_LOSSES", "NORMA_LOSSES", "NormaResult", "norma", "norma_loss"]
