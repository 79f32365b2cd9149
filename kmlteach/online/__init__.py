"""Online kernel learning (HSS2 §2.2.2): NORMA and the losses it follows."""

from ._losses import CLASSIFICATION_LOSSES, NORMA_LOSSES, norma_loss
from ._norma import NormaResult, norma

__all__ = ["CLASSIFICATION_LOSSES", "NORMA_LOSSES", "NormaResult", "norma", "norma_loss"]
