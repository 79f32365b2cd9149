"""kmlteach._exports: how a topic package's __init__ gathers and lazily loads its names."""

from __future__ import annotations

import subprocess
import sys
import types

import pytest

from kmlteach._exports import lazy_exports, no_attribute, public_names


def _module(name, names):
    module = types.ModuleType(name)
    module.__all__ = list(names)
    return module


def test_public_names_keeps_every_modules_order_then_the_lazy_names():
    a, b = _module("a", ["f", "g"]), _module("b", ["H"])
    assert public_names(a, b, lazy=("Est",)) == ["f", "g", "H", "Est"]
    assert public_names(b) == ["H"]


def test_a_packages_getattr_loads_the_estimator_from_its_estimators_module():
    import kmlteach.svm
    import kmlteach.svm.estimators as est

    assert kmlteach.svm.HardSVM is est.HardSVM


def test_lazy_exports_loads_on_first_use_of_an_exported_name_only():
    loaded = []
    estimators = types.SimpleNamespace(Est=object())

    def load():
        loaded.append(1)
        return estimators

    getattr_, dir_ = lazy_exports("pkg", ["f", "Est"], load)
    assert dir_() == ["Est", "f"] and not loaded
    with pytest.raises(AttributeError, match=r"^module 'pkg' has no attribute 'nope'$"):
        getattr_("nope")
    assert not loaded
    assert getattr_("Est") is estimators.Est and loaded == [1]


def test_any_other_name_raises_the_usual_error():
    import kmlteach.svm

    assert str(no_attribute("kmlteach.svm", "nope")) == "module 'kmlteach.svm' has no attribute 'nope'"
    with pytest.raises(AttributeError, match=r"^module 'kmlteach.svm' has no attribute 'nope'$"):
        kmlteach.svm.nope  # noqa: B018
    assert not hasattr(kmlteach.svm, "_ipython_canary_method_should_not_exist_")


@pytest.mark.parametrize("pkg", ["kmlteach.svm", "kmlteach.kernel_methods", "kmlteach.multiclass"])
def test_a_topic_package_imports_without_its_estimators(pkg):
    code = (
        f"import sys, {pkg} as p; "
        f"assert '{pkg}.estimators' not in sys.modules; "
        "assert not hasattr(p, 'nope'); "
        "assert set(p.__all__) <= set(dir(p))"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
