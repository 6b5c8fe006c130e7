"""What is worked out once per object: a bounded memo keyed by the object's identity.

Documents (resolved rulesets) are dicts: not hashable, and comparing or hashing their contents
costs more than the answer saves. Each entry keeps its object alive, so that an id is never
another object's while its entry exists; the objects must not change once asked about. Past
`size` entries the memo starts again (bounded memory in a long-lived process).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class ByIdentity(Generic[T]):
    __slots__ = ("_entries", "_size")

    def __init__(self, size: int):
        self._size = size
        self._entries: dict[int, tuple[Any, T]] = {}

    def get(self, obj: Any, make: Callable[[Any], T]) -> T:
        """`make(obj)`, remembered for `obj` itself (not for an equal object)."""
        hit = self._entries.get(id(obj))
        if hit is None or hit[0] is not obj:
            if len(self._entries) >= self._size:
                self._entries.clear()
            hit = self._entries[id(obj)] = (obj, make(obj))
        return hit[1]
