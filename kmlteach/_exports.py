"""How a topic package's ``__init__`` re-exports its modules (CONTRIBUTING, "The import rule").

Each module lists its public names once, in its own ``__all__``; the package's
``__init__`` star-imports the modules and gathers those lists with :func:`public_names`.
The scikit-learn based estimators (``<package>.estimators``) are named in ``__all__`` too
but load on first use, through the ``__getattr__`` that :func:`lazy_exports` builds,
because scikit-learn is an optional dependency that takes seconds to import. The package
hands it a loader, ``_estimators()``, defined in its own ``__init__`` around an import
statement of its ``estimators`` module, so the edge is visible: no module imported by a
computed name.
"""

from __future__ import annotations

__all__ = ["public_names", "lazy_exports", "no_attribute"]


def public_names(*modules, lazy=()):
    """The package's ``__all__``: every module's ``__all__`` in order, then ``lazy``.

    ``lazy`` names the estimators that the package's ``__getattr__`` loads from
    ``<package>.estimators`` on first use.
    """
    return [name for module in modules for name in module.__all__] + list(lazy)


def lazy_exports(package: str, names, load):
    """The module ``__getattr__`` and ``__dir__`` (PEP 562) of topic package ``package``.

    Python calls ``__getattr__`` only for names the package does not define, i.e. the
    lazily loaded estimators: for one of ``names`` (the package's ``__all__``) it returns
    that attribute of ``load()``, the package's ``estimators`` module, imported by an
    import statement inside ``load`` (which keeps the edge visible to readers and to
    tests/test_architecture.py); any other name raises :func:`no_attribute`. ``load`` runs
    on first use only, never at import. ``__dir__`` lists ``names``, the estimators included
    before they are loaded.
    """

    def __getattr__(name):
        if name in names:
            return getattr(load(), name)
        raise no_attribute(package, name)

    def __dir__():
        return sorted(names)

    return __getattr__, __dir__


def no_attribute(package: str, name: str) -> AttributeError:
    """The error a topic package's ``__getattr__`` raises for a name it does not have (the
    one Python itself gives)."""
    return AttributeError(f"module {package!r} has no attribute {name!r}")
