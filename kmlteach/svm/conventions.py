"""One λ convention for the whole course, and its conversion to scikit-learn's C.

Every regularised objective of :mod:`kmlteach` is written as in UML (15.12):

    (λ/2) ‖w‖² + (1/m) Σ_i loss_i.

The book also prints λ‖w‖² + (1/m) Σ loss ((15.6), §17.2.5): that is the same problem
for λ_book = λ/2. scikit-learn's SVMs (``SVC``, ``LinearSVC``, Crammer–Singer) minimise
½‖w‖² + C Σ_i loss_i; dividing by C·m gives (1/(2Cm))‖w‖² + (1/m) Σ loss, so

    C = 1 / (λ m)     and     λ = 1 / (C m).

``SGDClassifier(alpha=α)`` minimises (α/2)‖w‖² + mean loss: α = λ. The ν-SVM
(HSS2 (2.5)) has no λ: ν is a bound on fractions of points, see
:func:`kmlteach.svm.nu_svm`.
"""

from __future__ import annotations

from kmlteach._validation import check_int, check_positive

__all__ = ["lam_to_C", "C_to_lam"]


def lam_to_C(lam, m):
    """scikit-learn's ``C`` for the course's λ on m examples: C = 1/(λ m) (UML (15.12)).

    Parameters
    ----------
    lam : float > 0
        λ of (λ/2)‖w‖² + (1/m) Σ loss.
    m : int >= 1
        The number of training examples.

    Returns
    -------
    float
        The C of ½‖w‖² + C Σ loss (``SVC``, ``LinearSVC``, Crammer–Singer) with the
        same minimiser.

    Examples
    --------
    >>> lam_to_C(0.1, 50)
    0.2
    """
    lam = check_positive(lam, "lam")
    m = check_int(m, "m", minimum=1)
    return 1.0 / (lam * m)


def C_to_lam(C, m):
    """The course's λ for scikit-learn's ``C`` on m examples: λ = 1/(C m) (UML (15.12)).

    Parameters
    ----------
    C : float > 0
    m : int >= 1

    Returns
    -------
    float
        λ of (λ/2)‖w‖² + (1/m) Σ loss with the same minimiser as ½‖w‖² + C Σ loss.
    """
    C = check_positive(C, "C")
    m = check_int(m, "m", minimum=1)
    return 1.0 / (C * m)
