"""JSON paths (`$.scoring.categories[2].award`) and the source position kept for each."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import namedtuple
from collections.abc import Iterable, Mapping

from escoba.errors import Location, one_line

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_BREAK = re.compile(r"\r\n?|\n")  # the line breaks of editors

TYPE_CHECKING = False  # True for type checkers; `typing` is not imported at run time (escoba/__init__.py)
if TYPE_CHECKING:
    from typing import NamedTuple

    class Pos(NamedTuple):
        """Where a node's text is: its file, and the 1-based line and column of the value and of its key."""

        file: str
        line: int
        column: int
        key_line: int = 0
        key_column: int = 0

else:  # the same record, made without `typing`
    Pos = namedtuple("Pos", ["file", "line", "column", "key_line", "key_column"], defaults=(0, 0))
    Pos.__doc__ = "Where a node's text is: its file, and the 1-based line and column of the value and of its key."


def child_path(path: str, key: str) -> str:
    if _NAME.match(key):
        return f"{path}.{key}"
    return f"{path}[{_quote(key)}]"


def item_path(path: str, index: int) -> str:
    return f"{path}[{index}]"


def within(path: str, ancestor: str) -> bool:
    """Whether the JSON path `path` is `ancestor` or a node inside it."""
    return path == ancestor or (path.startswith(ancestor) and path[len(ancestor)] in ".[")


def join(parts: Iterable[str | int]) -> str:
    path = "$"
    for part in parts:
        path = item_path(path, part) if isinstance(part, int) else child_path(path, part)
    return path


def _quote(key: str) -> str:
    # A key may hold any character; the path is shown on one line (backslashes doubled first,
    # so that an escaped line break and a written backslash-n stay two paths).
    return "'" + one_line(key.replace("\\", "\\\\").replace("'", "\\'")) + "'"


def locate(positions: Mapping[str, Pos], parts: Iterable[str | int], *, key: bool = False, path: str | None = None) -> Location:
    """The Location of the node at `parts`, or of its nearest ancestor that has a position.

    `key=True` points at the key of a mapping entry rather than at its value (for an unknown
    or duplicated key). `path` overrides the JSON path shown.
    """
    parts = list(parts)
    shown = path if path is not None else join(parts)
    for n in range(len(parts), -1, -1):
        pos = positions.get(join(parts[:n]))
        if pos is not None:
            if key and n == len(parts) and pos.key_line:
                return Location(pos.file, pos.key_line, pos.key_column, shown)
            return Location(pos.file, pos.line, pos.column, shown)
    return Location("<unknown>", 0, 0, shown)


class Lines:
    """Character offsets into a text → (line, column), both 1-based, as an editor counts them."""

    def __init__(self, text: str):
        self.starts = [0] + [match.end() for match in _BREAK.finditer(text)]

    def position(self, index: int) -> tuple[int, int]:
        line = bisect_right(self.starts, index)
        return line, index - self.starts[line - 1] + 1
