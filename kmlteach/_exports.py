"""How a topic package's ``__init__`` re-exports its modules (CONTRIBUTING, "The import rule").

Each module lists its public names once, in its own ``__all__``; the package's
``__init__`` star-imports the modules and gathers those lists with :func:`public_names`.
The scikit-learn based estimators (``<package>.estimators``) are named in ``__all__`` too
but load on first use, in the package's ``__getattr__`` (an import statement of its
``estimators`` module, so the edge is visible: no module imported by a computed name),
because scikit-learn is an optional dependency that takes seconds to import.
"""

from __future__ import annotations

__all__ = ["public_names", "no_attribute"]


def public_names(*modules, lazy=()):
    """The package's ``__all__``: every module's ``__all__`` in order, then ``lazy``.

    ``lazy`` names the estimators that the package's ``__getattr__`` loads from
    ``<package>.estimators`` on first use.
    """
    return [name for module in modules for name in module.__all__] + list(lazy)


def no_attribute(package: str, name: str) -> AttributeError:
    """The error a topic package's ``__getattr__`` raises for a name it does not have (the
    one Python itself gives). That ``__getattr__`` (PEP 562) is called only for names the
    package does not define; it imports ``<package>.estimators`` with an import statement
    when the name is one of the lazily loaded estimators, so the edge stays visible to
    readers and to tests/test_architecture.py."""
    return AttributeError(f"module {package!r} has no attribute {name!r}")
