"""`Record`: a few named fields, compared and shown as a dataclass's are, without `dataclasses`."""

from __future__ import annotations


class Record:
    """A few named fields (`_fields`, in order, which are also its `__slots__`), compared and
    shown as a dataclass's are.

    The records met while loading a ruleset (`Location`, `Problem`, `Document`, `Resolved`) are
    written with it rather than with `dataclasses`: `escoba check` imports them at start-up, and
    `dataclasses` costs about 15 ms there (it imports `inspect`), a sixth of the whole command."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()

    def _values(self) -> tuple:
        return tuple(getattr(self, name) for name in self._fields)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._values() == other._values()

    __hash__ = None  # type: ignore[assignment]  # mutable, as a dataclass with eq is

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{n}={getattr(self, n)!r}' for n in self._fields)})"
