"""Estimators of chapter 02 (scikit-learn style): KernelSVM and KernelPCA.

They are built on :mod:`kmlteach._estimator` (scikit-learn's base classes when it is
installed). ``kmlteach.kernel_methods`` loads this module on first use of either
name, so importing the algorithm functions never imports scikit-learn.
"""

from __future__ import annotations

import numpy as np

from kmlteach._estimator import BaseEstimator, ClassifierMixin, TransformerMixin, check_is_fitted, keep_params
from kmlteach._validation import check_int, check_positive, validate_data
from kmlteach.kernel_methods.class_mean import kernel_expansion
from kmlteach.kernel_methods.pca import _kernel_pca, kernel_pca_transform
from kmlteach.kernel_methods.sgd import _kernel_sgd_svm
from kmlteach.kernels import kernel_params
from kmlteach.kernels.distance import gaussian_row_data
from kmlteach.kernels.gram import gram_prechecked

__all__ = ["KernelSVM", "KernelPCA"]

# ----------------------------------------------------------------------------- estimators


class _KernelParamsMixin:
    """Turn the estimator's kernel parameters into :func:`gram` keyword arguments."""

    def _gram_params(self) -> dict:
        # every kernel parameter is checked, also those the chosen kernel ignores (as
        # scikit-learn validates SVC's degree for an RBF kernel): a typo must not pass
        kernel_params("gaussian", sigma=self.sigma)
        if self.gamma is not None:
            kernel_params("gaussian", gamma=self.gamma)
        kernel_params("polynomial", degree=self.degree, c=self.c)
        kernel_params("bspline", order=self.order)
        if self.kernel == "polynomial":
            return {"degree": self.degree, "c": self.c}
        if self.kernel == "gaussian":
            return {"gamma": self.gamma} if self.gamma is not None else {"sigma": self.sigma}
        if self.kernel == "exponential":
            return {"gamma": 1.0 if self.gamma is None else self.gamma}
        if self.kernel == "bspline":
            return {"order": self.order}
        return {}

    def _kernel_args(self) -> dict:
        """Every kernel parameter checked once; the completed parameters of the kernel."""
        params = self._gram_params()
        return kernel_params(self.kernel, **params)

    def _gram_fit(self, Xa: np.ndarray, params: dict) -> np.ndarray:
        """K(X, X) of the checked training data, without checking it again."""
        return gram_prechecked(self.kernel, params, Xa, Xa, True)

    def _gram_new(self, X) -> np.ndarray:
        """K(X, X_fit_) for new points: X validated once (predict, transform)."""
        check_is_fitted(self)
        Xa = validate_data(self, X, reset=False)
        return gram_prechecked(self.kernel, self._kernel_args(), Xa, self.X_fit_, False)


class KernelSVM(_KernelParamsMixin, ClassifierMixin, BaseEstimator):
    """Soft-SVM with a kernel, trained by :func:`kernel_sgd_svm` (UML §16.3; not an exact solver).

    Objective (UML (16.5)): ``(lam/2)||w||^2 + mean hinge``; prediction
    ``sign(sum_j alpha_j k(x_j, x))`` (no bias, as in §16.3). Any two labels: the
    first of ``np.unique(y)`` plays -1, the second +1; a score of exactly 0 predicts
    the second class.

    Parameters
    ----------
    kernel : str, default="gaussian" (one of :data:`kmlteach.kernels.KERNELS`)
    lam : float > 0, default=0.01
    T : int, default=None (then 20 m steps)
    seed : int or None, default=0
    sigma, gamma, degree, c, order : kernel parameters (see :func:`kmlteach.kernels.gram`;
        for the Gaussian ``gamma`` overrides ``sigma`` when given).

    Attributes
    ----------
    alpha_ : (m,) averaged coefficients; X_fit_ ; classes_ ; n_features_in_
    """

    def __init__(
        self, kernel="gaussian", lam=0.01, T=None, seed=0, sigma=1.0, gamma=None, degree=2, c=1.0, order=3
    ):
        keep_params(self, locals())

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def fit(self, X, y):
        # the one validation pass: parameters, then the data (validate_data)
        params = self._kernel_args()
        lam = check_positive(self.lam, "lam")
        Xa, classes, idx = validate_data(self, X, y, max_classes=2)
        m = Xa.shape[0]
        T = 20 * m if self.T is None else check_int(self.T, "T", minimum=1)
        ya = np.where(idx == 1, 1.0, -1.0)
        # rows on demand only for short runs: over many steps SGD updates most points, and
        # then the whole matrix (upper triangle, two threads) is cheaper (review: 20 m steps
        # updated 700-1000 of 1000 points)
        lazy = self.kernel == "gaussian" and T <= 4 * m
        rows = gaussian_row_data(Xa, params["gamma"]) if lazy else None
        K = self._gram_fit(Xa, params) if rows is None else None  # else rows as SGD needs them
        res = _kernel_sgd_svm(K, ya, lam, T, self.seed, rows=rows)
        self.classes_ = classes
        self.X_fit_ = Xa
        self.alpha_ = res.alpha
        return self

    def decision_function(self, X) -> np.ndarray:
        return kernel_expansion(self._gram_new(X), self.alpha_)

    def predict(self, X) -> np.ndarray:
        scores = self.decision_function(X)
        return self.classes_[(scores >= 0.0).astype(int)]


class KernelPCA(_KernelParamsMixin, TransformerMixin, BaseEstimator):
    """Kernel PCA as a transformer (HSS1 §1.3.2), built on :func:`kernel_pca`.

    Parameters
    ----------
    n_components : int, default=2 (at most the number of training points)
    kernel : str, default="gaussian"
    sigma, gamma, degree, c, order : kernel parameters as in :class:`KernelSVM`.

    Attributes
    ----------
    eigenvalues_, alphas_, embedding_ : as in :class:`KernelPCAResult`; X_fit_; n_features_in_
    """

    def __init__(self, n_components=2, kernel="gaussian", sigma=1.0, gamma=None, degree=2, c=1.0, order=3):
        keep_params(self, locals())

    def fit(self, X, y=None):
        # the one validation pass: parameters, then the data (validate_data)
        params = self._kernel_args()
        Xa = validate_data(self, X)
        k = check_int(self.n_components, "n_components", minimum=1)
        if k > Xa.shape[0]:
            raise ValueError(
                f"n_components={k} must be at most the number of samples "
                f"({Xa.shape[0]} sample{'s' if Xa.shape[0] != 1 else ''})"
            )
        self.result_ = _kernel_pca(self._gram_fit(Xa, params), k)
        self.eigenvalues_ = self.result_.eigenvalues
        self.alphas_ = self.result_.alphas
        self.embedding_ = self.result_.embedding
        self.X_fit_ = Xa
        return self

    def transform(self, X) -> np.ndarray:
        return kernel_pca_transform(self.result_, self._gram_new(X))

    def fit_transform(self, X, y=None):
        return self.fit(X).embedding_.copy()
