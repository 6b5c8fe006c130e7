"""A JSON document that cannot be changed: what a compiled `Rules` carries.

`escoba.load_ruleset` hands every caller the same cached `Rules`, and the document it holds
goes on to worker processes and engines. If a caller could edit it, the next caller would get
rules whose document says one thing while their compiled fields do another. So the document is
frozen deeply at compile time.

The frozen types subclass `dict` and `list` (refusing every mutating method) rather than
wrapping them, so that `json.dumps`, JSON Schema validation (`isinstance(x, dict)`) and pickling
to pool workers take them as they are, at no cost on the way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NoReturn


def _refuse(self: object, *args: object, **kwargs: object) -> NoReturn:
    raise TypeError(f"a frozen ruleset document cannot be changed ({type(self).__name__})")


class FrozenDict(dict):
    """A `dict` whose items cannot be set, deleted or updated."""

    __slots__ = ()
    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self) -> tuple[Any, ...]:  # pickle would rebuild it with __setitem__
        return (FrozenDict, (dict(self),))

    def __copy__(self) -> FrozenDict:
        return self

    def __deepcopy__(self, memo: dict) -> FrozenDict:
        return self


class FrozenList(list):
    """A `list` whose items cannot be set, deleted, added or reordered."""

    __slots__ = ()
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = extend = insert = pop = remove = reverse = sort = clear = _refuse

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenList, (list(self),))

    def __copy__(self) -> FrozenList:
        return self

    def __deepcopy__(self, memo: dict) -> FrozenList:
        return self


def freeze(value: Any) -> Any:
    """`value` with every mapping and list in it frozen (scalars as they are)."""
    if isinstance(value, FrozenDict | FrozenList):
        return value
    if isinstance(value, Mapping):
        return FrozenDict({k: freeze(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return FrozenList(freeze(v) for v in value)
    return value



def thaw(value: Any) -> Any:
    """A plain, changeable deep copy of `value` (frozen or not): what a caller edits to make
    another document from a compiled one (`rules.points.with_value`)."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [thaw(v) for v in value]
    return value
