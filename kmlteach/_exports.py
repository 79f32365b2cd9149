"""How a topic package's ``__init__`` re-exports its modules (CONTRIBUTING, "The import rule").

Each module lists its public names once, in its own ``__all__``; the package's
``__init__`` star-imports the modules and gathers those lists with :func:`public_names`.
The scikit-learn based estimators (``<package>.estimators``) are named in ``__all__`` too
but load on first use through :func:`lazy_attribute`, because scikit-learn is an optional
dependency that takes seconds to import.
"""

from __future__ import annotations

from importlib import import_module

__all__ = ["public_names", "lazy_attribute"]


def public_names(*modules, lazy=()):
    """The package's ``__all__``: every module's ``__all__`` in order, then ``lazy``.

    ``lazy`` names the estimators that :func:`lazy_attribute` loads from
    ``<package>.estimators`` on first use.
    """
    return [name for module in modules for name in module.__all__] + list(lazy)


def lazy_attribute(package, name, exported):
    """The module-level ``__getattr__`` of a topic package (PEP 562).

    Python calls it only for a name the package does not define: a name in ``exported``
    (the package's ``__all__``) is then one of the lazily loaded estimators, imported
    from ``<package>.estimators``; any other name raises the usual ``AttributeError``.
    """
    if name in exported:
        return getattr(import_module(f"{package}.estimators"), name)
    raise AttributeError(f"module {package!r} has no attribute {name!r}")
