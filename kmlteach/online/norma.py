"""NORMA: online learning in an RKHS (HSS2 §2.2.2, Algorithm 2.1; Kivinen et al. 2004).

Stochastic gradient descent on the instantaneous regularised risk
``J_t(f) = l(x_t, y_t, f) + (λ/2) ||f||²_H`` whose gradient is
``g_t = l'_t k(x_t, ·) + λ f_t``. In kernel-expansion form one step is

    f_{t+1} = (1 − η_t λ) f_t − η_t l'_t k(x_t, ·),      f_1 = 0,

so every old coefficient shrinks by the factor (1 − η_t λ) and one new coefficient
``−η_t l'_t`` is appended. With λ = 0, η_t = 1, the linear kernel and the perceptron
loss this is the perceptron (HSS2 §2.2.2), whose mistakes Novikoff's theorem bounds.

Implementation
--------------
* **Lazy decay.** The expansion is stored as ``coef_s = S · c_s`` with one global scale
  ``S = Π (1 − η_t λ)``: a step multiplies ``S`` (O(1)) instead of every coefficient
  (O(t)), and stores the new term as ``c_t = −η_t l'_t / S``. When ``S`` falls below
  1e-150 the stored ``c`` are multiplied by ``S`` and ``S`` is reset to 1.
* **Budget (Kivinen et al. 2004, §truncation).** With ``budget=τ`` only the last τ terms
  are kept: after the step at time t the term of time t − τ is dropped, so a prediction
  costs O(τ) kernel values. The dropped terms make f differ from the expansion that
  keeps them (with the same updates). ``truncated_coef[s]`` is the coefficient the term
  of time s would have in the final f had it been kept (its stored value times the later
  decay), and ``truncation_error = Σ_s |truncated_coef[s]| √k(x_s, x_s)`` bounds, by the
  triangle inequality, the RKHS norm of that difference, ``||f_kept-all − f||_H``. As
  the decay is geometric, the error shrinks like (1 − ηλ)^τ.
* Kernel values come from :func:`kmlteach.kernels.gram` in blocks (the rows of the next
  few hundred points against the current window of terms), so every kernel and
  parameter of :mod:`kmlteach.kernels` works and the values are bit-identical to
  ``gram``'s; the streaming loop over the block is one Numba kernel.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kmlteach._jit import jit
from kmlteach._validation import (
    as_vector,
    check_binary_labels,
    check_choice,
    check_int,
    check_nonnegative,
    check_positive,
    check_X,
)
from kmlteach.kernels.evaluation import kernel_value, native_kernel
from kmlteach.kernels.gram import gram, kernel_params
from kmlteach.online.losses import CLASSIFICATION_LOSSES, NORMA_LOSSES, _loss_and_derivative

__all__ = ["NormaResult", "norma"]

_BLOCK_ENTRIES = 2_000_000  # kernel values per block (16 MB)


@dataclass(frozen=True)
class NormaResult:
    """Output of :func:`norma`.

    Attributes
    ----------
    coef : ndarray (n,)
        Coefficient of ``k(x_t, ·)`` in the final f (0 for terms dropped by the budget).
    predictions : ndarray (n,)
        ``f_t(x_t)``, the prediction made before the update at time t.
    mistakes : ndarray of int64 (n,)
        Cumulative number of mistakes ``y_t f_t(x_t) ≤ 0`` up to time t (t = 1, where
        f₁ = 0, counts); for ``"epsilon_insensitive"`` a mistake is ``|y_t − f_t(x_t)| > ε``.
    losses : ndarray (n,)
        ``l(x_t, y_t, f_t)``, the loss incurred at time t.
    eta : ndarray (n,)
        The step sizes η_t used.
    truncated_coef : ndarray (n,)
        For dropped terms, the coefficient they would have in the final f; 0 otherwise.
    truncation_error : float
        ``Σ_s |truncated_coef[s]| √k(x_s, x_s)`` ≥ RKHS norm of the dropped part (0
        without a budget).
    n_terms : int
        Number of terms kept in the final expansion: min(n, budget), or n without a
        budget (a term whose update was 0 counts, with coefficient 0).

    Source: HSS2 §2.2.2, Algorithm 2.1.
    """

    coef: np.ndarray
    predictions: np.ndarray
    mistakes: np.ndarray
    losses: np.ndarray
    eta: np.ndarray
    truncated_coef: np.ndarray
    truncation_error: float
    n_terms: int
    lam: float
    loss: str
    kernel: str
    kernel_params: dict = field(repr=False)
    X: np.ndarray = field(repr=False)

    def decision_function(self, Z) -> np.ndarray:
        """``f(z) = Σ_s coef_s k(x_s, z)`` for each row z of ``Z`` (shape (m, d))."""
        Za = check_X(Z, "Z", n_cols=self.X.shape[1])
        keep = np.flatnonzero(self.coef != 0.0)
        if keep.size == 0:
            return np.zeros(Za.shape[0])
        K = gram(self.kernel, Za, self.X[keep], **self.kernel_params)
        return K @ self.coef[keep]


def _step_sizes(eta, n: int, lam: float) -> np.ndarray:
    if callable(eta):
        etas = np.empty(n)
        for t in range(1, n + 1):
            etas[t - 1] = check_positive(eta(t), "eta")
    else:
        etas = np.full(n, check_positive(eta, "eta"))
    if lam > 0 and np.max(etas) * lam >= 1.0:
        t = int(np.argmax(etas * lam >= 1.0)) + 1
        raise ValueError(
            f"eta must satisfy eta_t * lam < 1 so that the decay factor "
            f"(1 - eta_t lam) is positive; at t = {t}, eta_t * lam = "
            f"{etas[t - 1] * lam:.4g}"
        )
    return etas


def norma(X, y, lam, eta, kernel="gaussian", loss="hinge", *, budget=None, epsilon=0.1, **kernel_params_):
    """NORMA, HSS2 Algorithm 2.1 in kernel-expansion form: one pass over the rows of X.

    ``f_1 = 0``; for t = 1..n: predict ``f_t(x_t)``, then
    ``f_{t+1} = (1 − η_t λ) f_t − η_t l'_t k(x_t, ·)`` with ``l'_t = ∂l/∂f`` at
    ``f_t(x_t)`` (HSS2 §2.2.2; the table of losses is in :mod:`kmlteach.online.losses`).

    Parameters
    ----------
    X : array (n, d)
        The stream, in order.
    y : array (n,)
        Labels −1/+1 (hinge, perceptron, logistic) or real targets (squared,
        epsilon_insensitive).
    lam : float ≥ 0
        Regularisation λ of ``J_t(f) = l + (λ/2)||f||²_H``.
    eta : float > 0 or callable
        Step size η, or a function ``t ↦ η_t`` called for t = 1, 2, …, n (e.g.
        ``lambda t: 1 / np.sqrt(t)``). Every η_t λ must be < 1.
    kernel : str, default="gaussian"
        A kernel name of :func:`kmlteach.kernels.gram`, with its parameters as keywords
        (``sigma`` for the Gaussian, UML convention exp(−||x − x'||²/(2σ))).
    loss : {"hinge", "perceptron", "logistic", "squared", "epsilon_insensitive"}
    budget : int, optional
        Keep only the last ``budget`` terms of the expansion (Kivinen et al. 2004).
    epsilon : float, default=0.1
        ε of the ε-insensitive loss.

    Returns
    -------
    NormaResult
        ``.coef``, ``.predictions``, ``.mistakes``, ``.losses``, ``.truncated_coef``,
        ``.truncation_error``, ``.decision_function(Z)``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 0.0]]); y = np.array([1.0, -1.0, 1.0])
    >>> r = norma(X, y, lam=0.0, eta=1.0, kernel="linear", loss="perceptron")
    >>> r.predictions.tolist(), r.coef.tolist(), r.mistakes.tolist()
    ([0.0, 0.0, 2.0], [1.0, -1.0, 0.0], [1, 2, 2])
    """
    Xa = check_X(X, "X")
    n = Xa.shape[0]
    check_choice(loss, "loss", NORMA_LOSSES)
    if loss in CLASSIFICATION_LOSSES:
        ya = check_binary_labels(y, "y", n=n, of="one per row of X")
    else:
        ya = as_vector(y, "y", length=n)
    lam_ = check_nonnegative(lam, "lam")
    eps = check_nonnegative(epsilon, "epsilon")
    tau = n if budget is None else check_int(budget, "budget", minimum=1)
    tau = min(tau, n)
    full = kernel_params(kernel, **kernel_params_)
    params = {"sigma": full["sigma"]} if kernel == "gaussian" else full
    etas = _step_sizes(eta, n, lam_)

    c = np.zeros(n)
    pred = np.empty(n)
    losses = np.empty(n)
    mist = np.empty(n, dtype=np.int64)
    diag = np.empty(n)
    state = np.array([1.0, 0.0, 0.0])  # scale S, first kept term, mistakes so far
    code = NORMA_LOSSES.index(loss)
    native = native_kernel(kernel, params)
    run = (ya, etas, lam_, code, eps, tau, c, state, pred, losses, mist, diag)  # both paths pass these
    if native is not None:
        # one pass, kernel values computed in the loop (no block of Gram entries is wasted)
        sq = np.einsum("ij,ij->i", Xa, Xa)
        _norma_kernel(Xa, sq, *native, np.empty((0, 0)), 0, 0, *run)
    else:
        # other kernels: blocks of rows of gram() against the current window of terms
        block = max(1, min(n, _BLOCK_ENTRIES // (tau + 256), 256))
        for a in range(0, n, block):
            e = min(n, a + block)
            lo = max(0, a - tau)
            K = gram(kernel, Xa[a:e], Xa[lo:e], **params)
            _norma_kernel(Xa[a:e], np.empty(0), -1, 0.0, 0.0, K, a, lo, *run)
    S, first = state[0], int(state[1])
    coef = np.zeros(n)
    coef[first:] = c[first:] * S
    truncated = np.zeros(n)
    truncated[:first] = c[:first] * S
    err = float(np.sum(np.abs(truncated[:first]) * np.sqrt(np.maximum(diag[:first], 0.0))))
    return NormaResult(
        coef=coef,
        predictions=pred,
        mistakes=mist,
        losses=losses,
        eta=etas,
        truncated_coef=truncated,
        truncation_error=err,
        n_terms=n - first,
        lam=lam_,
        loss=loss,
        kernel=kernel,
        kernel_params=params,
        X=Xa,
    )


def _norma_example():
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    return (
        X,
        np.ones(2),
        2,
        0.5,
        0.0,
        np.empty((0, 0)),
        0,
        0,
        np.array([1.0, -1.0]),
        np.ones(2),
        0.1,
        0,
        0.1,
        2,
        np.zeros(2),
        np.array([1.0, 0.0, 0.0]),
        np.empty(2),
        np.empty(2),
        np.empty(2, dtype=np.int64),
        np.empty(2),
    )


@jit(warmup=_norma_example)
def _norma_kernel(
    X, sq, native, p1, p2, K, a, col0, y, eta, lam, code, eps, tau, c, state, pred, losses, mist, diag
):
    """Run the steps t = a .. a + (rows) − 1 (0-based) of NORMA.

    With ``native >= 0`` the kernel values k(x_t, x_s) are computed here from ``X``
    (all n rows) and ``sq`` (squared norms); otherwise ``K[t − a, s − col0] = k(x_t, x_s)``
    is a block of ``gram`` and ``X`` holds the block's rows. ``c`` holds the stored
    coefficients (true coefficient = S · c_s); ``state = [S, first kept term, mistakes]``
    carries over between blocks.
    """
    S = state[0]
    first = int(state[1])
    m = int(state[2])
    rows = X.shape[0] - a if native >= 0 else K.shape[0]
    for r in range(rows):
        t = a + r
        f = 0.0
        if native >= 0:
            xt = X[t]
            for s in range(first, t):
                if c[s] != 0.0:
                    f += c[s] * kernel_value(xt, X[s], sq[t], sq[s], native, p1, p2)
            diag[t] = kernel_value(xt, xt, sq[t], sq[t], native, p1, p2)
        else:
            for s in range(first, t):
                f += c[s] * K[r, s - col0]
            diag[t] = K[r, t - col0]
        f *= S
        pred[t] = f
        val, der = _loss_and_derivative(f, y[t], code, eps)
        losses[t] = val
        if code == 4:
            if abs(y[t] - f) > eps:
                m += 1
        elif y[t] * f <= 0.0:
            m += 1
        mist[t] = m
        S *= 1.0 - eta[t] * lam
        if S < 1e-150:
            for s in range(t):
                c[s] *= S
            S = 1.0
        c[t] = -eta[t] * der / S if der != 0.0 else 0.0
        if t + 1 - first > tau:
            first += 1
    state[0] = S
    state[1] = first
    state[2] = m
