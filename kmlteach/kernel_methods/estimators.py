"""Estimators of chapter 02 (scikit-learn style): KernelSVM and KernelPCA.

They are built on :mod:`kmlteach._estimator` (scikit-learn's base classes when it is
installed). ``kmlteach.kernel_methods`` loads this module on first use of either
name, so importing the algorithm functions never imports scikit-learn.
"""

from __future__ import annotations

import numpy as np

from kmlteach._estimator import (
    BaseEstimator,
    ClassifierMixin,
    TransformerMixin,
    check_is_fitted,
    sklearn_validate,
)
from kmlteach._validation import as_matrix, check_int
from kmlteach.kernel_methods.class_mean import kernel_expansion
from kmlteach.kernel_methods.pca import kernel_pca, kernel_pca_transform
from kmlteach.kernel_methods.sgd import kernel_sgd_svm
from kmlteach.kernels import gram, kernel_params

__all__ = ["KernelSVM", "KernelPCA"]

# ----------------------------------------------------------------------------- estimators

def _estimator_X(X) -> np.ndarray:
    """The validation gate, with the wording scikit-learn's estimator checks look for."""
    if isinstance(X, np.ndarray) and X.ndim == 1:
        raise ValueError(f"X must be a 2-D array (n_samples, n_features), got 1-D with shape "
                         f"{X.shape}. Reshape your data with X.reshape(-1, 1) (one feature) "
                         f"or X.reshape(1, -1) (one sample)")
    if isinstance(X, np.ndarray) and X.ndim == 2 and X.shape[1] == 0:
        raise ValueError(f"X has 0 feature(s) (shape={X.shape}) while a minimum of 1 is required.")
    return as_matrix(X, "X")


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

    def _check_predict_X(self, X):
        check_is_fitted(self)
        Xa = _estimator_X(sklearn_validate(self, X, reset=False))
        if Xa.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {Xa.shape[1]} features, but {type(self).__name__} is expecting "
                             f"{self.n_features_in_} features as input (as in the training data)")
        return Xa


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

    def __init__(self, kernel="gaussian", lam=0.01, T=None, seed=0, sigma=1.0, gamma=None,
                 degree=2, c=1.0, order=3):
        self.kernel = kernel
        self.lam = lam
        self.T = T
        self.seed = seed
        self.sigma = sigma
        self.gamma = gamma
        self.degree = degree
        self.c = c
        self.order = order

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def fit(self, X, y):
        kernel_params(self.kernel, **self._gram_params())
        X, y = sklearn_validate(self, X, y)
        Xa = _estimator_X(X)
        if y is None:
            raise ValueError("KernelSVM requires y to be passed, but the target y is None")
        ya = np.asarray(y)
        if ya.ndim != 1 or ya.shape[0] != Xa.shape[0]:
            raise ValueError(f"y must be a 1-D array with one label per row of X "
                             f"({Xa.shape[0]}), got shape {ya.shape}")
        if ya.dtype.kind == "f" and not np.all(np.isfinite(ya)):
            raise ValueError("y contains NaN or infinite labels")
        classes, idx = np.unique(ya, return_inverse=True)
        if classes.size != 2:
            looks_continuous = ya.dtype.kind == "f" and np.any(ya != np.round(ya))
            raise ValueError(f"y must contain exactly 2 classes: Only binary classification is "
                             f"supported. Got {classes.size} class{'es' if classes.size != 1 else ''}"
                             + (" (y looks continuous: a regression target?)" if looks_continuous else ""))
        m = Xa.shape[0]
        T = 20 * m if self.T is None else check_int(self.T, "T", minimum=1)
        K = gram(self.kernel, Xa, **self._gram_params())
        res = kernel_sgd_svm(K, np.where(idx.reshape(-1) == 1, 1.0, -1.0), self.lam, T, self.seed)
        self.classes_ = classes
        self.X_fit_ = Xa
        self.alpha_ = res.alpha
        self.n_features_in_ = Xa.shape[1]
        return self

    def decision_function(self, X) -> np.ndarray:
        Xa = self._check_predict_X(X)
        return kernel_expansion(gram(self.kernel, Xa, self.X_fit_, **self._gram_params()), self.alpha_)

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

    def __init__(self, n_components=2, kernel="gaussian", sigma=1.0, gamma=None, degree=2,
                 c=1.0, order=3):
        self.n_components = n_components
        self.kernel = kernel
        self.sigma = sigma
        self.gamma = gamma
        self.degree = degree
        self.c = c
        self.order = order

    def fit(self, X, y=None):
        kernel_params(self.kernel, **self._gram_params())
        Xa = _estimator_X(sklearn_validate(self, X))
        k = check_int(self.n_components, "n_components", minimum=1)
        if k > Xa.shape[0]:
            raise ValueError(f"n_components={k} must be at most the number of samples "
                             f"({Xa.shape[0]} sample{'s' if Xa.shape[0] != 1 else ''})")
        self.result_ = kernel_pca(gram(self.kernel, Xa, **self._gram_params()), k)
        self.eigenvalues_ = self.result_.eigenvalues
        self.alphas_ = self.result_.alphas
        self.embedding_ = self.result_.embedding
        self.X_fit_ = Xa
        self.n_features_in_ = Xa.shape[1]
        return self

    def transform(self, X) -> np.ndarray:
        Xa = self._check_predict_X(X)
        return kernel_pca_transform(self.result_, gram(self.kernel, Xa, self.X_fit_,
                                                       **self._gram_params()))

    def fit_transform(self, X, y=None):
        return self.fit(X).embedding_.copy()
