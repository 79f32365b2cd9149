"""Every scikit-learn style estimator of the course inside Pipeline + GridSearchCV + clone.

The chapters 08 and 09 compare our estimators with scikit-learn's in pipelines; this
checks that they behave like scikit-learn estimators there (parameters are searched,
clones are unfitted copies, a column-vector y is ravelled with a warning).
"""

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import DataConversionWarning
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from kmlteach import kernel_methods as km
from kmlteach import multiclass as M
from kmlteach import svm

rng = np.random.default_rng(0)
X2 = rng.normal(size=(80, 3))
y2 = np.where(X2[:, 0] + 0.5 * X2[:, 1] > 0, "pos", "neg")
X3 = rng.normal(size=(90, 2))
# a wide gap around the mean of the first coordinate: separable by a hyperplane through the
# origin after any fold's standardisation (HardSVM with homogeneous=True must fit)
Xh = X2[np.abs(X2[:, 0] - X2[:, 0].mean()) > 0.6]
yh = np.where(Xh[:, 0] > X2[:, 0].mean(), 1, -1)
y3 = np.digitize(X3[:, 0], [-0.5, 0.5])

CASES = [
    (svm.SoftSVM(), {"clf__lam": [0.01, 0.1]}, X2, y2),
    (svm.HardSVM(), {"clf__homogeneous": [False, True]}, Xh, yh),
    (km.KernelSVM(T=500), {"clf__sigma": [0.5, 2.0]}, X2, y2),
    (M.MulticlassSVM(T=2000), {"clf__lam": [0.01, 0.1]}, X3, y3),
]


@pytest.mark.parametrize("est,grid,X,y", CASES, ids=lambda v: type(v).__name__ if hasattr(v, "fit") else "")
def test_pipeline_gridsearch_clone(est, grid, X, y):
    pipe = Pipeline([("scale", StandardScaler()), ("clf", est)])
    search = GridSearchCV(pipe, grid, cv=3, error_score="raise").fit(X, y)
    assert search.best_score_ > 0.6
    assert set(search.best_params_) == set(grid)
    assert search.predict(X[:5]).shape == (5,)
    c = clone(est)
    assert c.get_params() == est.get_params()
    assert not any(k.endswith("_") and not k.startswith("_") for k in vars(c))


def test_kernel_pca_in_a_pipeline():
    pipe = Pipeline(
        [("scale", StandardScaler()), ("kpca", km.KernelPCA(n_components=2)), ("clf", svm.SoftSVM())]
    )
    search = GridSearchCV(pipe, {"kpca__sigma": [0.5, 5.0]}, cv=3).fit(X2, y2)
    assert search.best_score_ > 0.6


@pytest.mark.parametrize(
    "est", [svm.SoftSVM(), km.KernelSVM(T=200), M.MulticlassSVM(T=200)], ids=lambda e: type(e).__name__
)
def test_column_vector_y_is_ravelled_with_a_warning(est):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        est.fit(X2, y2.reshape(-1, 1))
    assert any(issubclass(x.category, DataConversionWarning) for x in w)
    assert est.predict(X2[:3]).shape == (3,)


def test_sklearn_tags():
    assert svm.SoftSVM().__sklearn_tags__().estimator_type == "classifier"
    assert not svm.SoftSVM().__sklearn_tags__().classifier_tags.multi_class
    assert not km.KernelSVM().__sklearn_tags__().classifier_tags.multi_class
    assert M.MulticlassSVM().__sklearn_tags__().classifier_tags.multi_class
    assert km.KernelPCA().__sklearn_tags__().transformer_tags is not None
