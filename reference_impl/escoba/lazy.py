"""Names a package hands on without importing them until asked (PEP 562): `escoba --help`
does not pay for jsonschema and lark, and `escoba.explore` not for the runner."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping


def attach(package: str, where: Mapping[str, str], names: Iterable[str]) -> tuple[Callable, Callable]:
    """A package's `__getattr__` and `__dir__` for the names in `where` (name → module)."""
    shown = sorted(set(names) | set(where))

    def __getattr__(name: str) -> object:
        if name in where:
            import importlib

            return getattr(importlib.import_module(where[name]), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        # What dir(), help() and tab completion show: the lazy names too, not only what is loaded.
        import sys

        return sorted(set(vars(sys.modules[package])) | set(shown))

    return __getattr__, __dir__
