"""The project's error types.

Every error a user can meet is an `EscobaError`. Errors about a document carry where the
problem is (file, line, column, JSON path) and print as one line:

    spec/house/mine.yaml:12:5: $.scoring.categories[2].award: unknown policy 'mayority'

The CLI prints `str(error)` and never a traceback. Messages quote what a user wrote (keys, values,
names), which may hold line breaks or other invisible characters; a problem shows them escaped
(`'a\\nb'`), so that it stays one line and says exactly what is in the file.

Every message is bounded, whatever the file holds: a quoted value is cut at `QUOTE_LIMIT`
characters (`quoted`), a problem's message at `MESSAGE_LIMIT`, and an error with many problems
prints the first `SHOWN_PROBLEMS` and says how many more there are.
"""

from __future__ import annotations

from escoba.escape import shorten, terminal
from escoba.record import Record

QUOTE_LIMIT = 60  # characters of a user's value quoted in a message
MESSAGE_LIMIT = 500  # characters of one problem's message
SHOWN_PROBLEMS = 50  # problems printed for one error; the rest are counted


def quoted(value: object, limit: int = QUOTE_LIMIT) -> str:
    """A value from a file or an engine, for a message: quoted if text, one line, at most
    `limit` characters of it shown."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 4 * limit:
        return f"a number of about {int(value.bit_length() * 0.30103) + 1} digits"  # str() has a digit limit
    text = value if isinstance(value, str) else str(value) if isinstance(value, int | float) else repr(value)
    if len(text) > limit:
        text = f"{text[: limit - 1]}…"
    text = one_line(text)
    return f"'{text}'" if isinstance(value, str) else text


def shown(value: object, collection: str = "{}") -> str:
    """A YAML value named in a message: null, true or false, `a mapping` or `a list` (inside
    `collection`, e.g. "({})"), anything else `quoted`."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict | list):
        return collection.format("a mapping" if isinstance(value, dict) else "a list")
    return quoted(value)


def one_line(text: str) -> str:
    """`text` with each character that is not printable (line breaks, controls, invisible
    format characters, spaces other than ' ') written as its Python escape: `\\n`, `\\x07`,
    `\\u2028` (escoba.escape.terminal, the terminal's one escaping)."""
    return terminal(text)


class EscobaError(Exception):
    """Base class of every error the project raises on purpose."""


class UsageError(EscobaError):
    """Arguments that make no sense together, or name what cannot be used; exit status 2."""


class Location(Record):
    """Where in a document a problem is. Line and column are 1-based; 0 means unknown.
    Immutable and hashable."""

    _fields = ("file", "line", "column", "path")
    __slots__ = _fields
    file: str
    line: int
    column: int
    path: str

    def __init__(self, file: str = "<string>", line: int = 0, column: int = 0, path: str = "$"):
        for name, value in zip(self._fields, (file, line, column, path)):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: a Location is immutable")

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(self._values())

    def __reduce__(self) -> tuple:  # pickling and copying rebuild it (fields cannot be set)
        return (Location, self._values())

    def __str__(self) -> str:
        where = one_line(self.file)
        if self.line:
            where += f":{self.line}:{self.column or 1}"
        return f"{where}: {one_line(self.path)}"


class Problem(Record):
    """One thing wrong with a document; `excerpt` (with a caret) is for expression errors."""

    _fields = ("location", "message", "excerpt", "caret")
    __slots__ = _fields

    def __init__(self, location: Location, message: str, excerpt: str | None = None, caret: int | None = None):
        self.location = location
        self.message = shorten(one_line(message), MESSAGE_LIMIT)
        if excerpt is not None:  # a blank for a blank, so the caret stays under its column
            excerpt = "".join(c if c.isprintable() else " " for c in excerpt)
        self.excerpt = excerpt
        self.caret = caret

    def __str__(self) -> str:
        text = f"{self.location}: {self.message}"
        if self.excerpt is not None and self.caret is not None:
            text += f"\n    {self.excerpt}\n    {' ' * self.caret}^"
        return text


class ValueProblem(Problem):
    """A YAML problem with a value the document still holds, in another form than meant (`no`
    kept as its text, a value with a tag it may not have): a later stage's problem at that
    node or inside it is a consequence of this one."""


class RulesetError(EscobaError):
    """A ruleset (or any rules document) is invalid: one or more problems, each located."""

    def __init__(self, problems: list[Problem]):
        self.problems = list(problems)
        super().__init__("\n".join(shown_problems(self.problems)))


def shown_problems(problems: list[Problem], limit: int = SHOWN_PROBLEMS) -> list[str]:
    """The lines that print `problems`: the first `limit`, then how many more there are."""
    lines = [str(p) for p in problems[:limit]]
    if len(problems) > limit:
        lines.append(f"… and {len(problems) - limit} more problems")
    return lines


class UnknownRuleset(RulesetError):
    """An id that names no bundled ruleset and no file."""


class NotationError(EscobaError):
    """Text that is not a card or a move in the project's notation (it does not parse)."""

    def __init__(self, message: str, text: str = "", column: int | None = None):
        self.message, self.text, self.column = message, text, column
        if column is not None and text:
            message = f"{message}\n    {text}\n    {' ' * column}^"
        super().__init__(message)


class IllegalMoveError(EscobaError):
    """A well-formed move that the rules do not allow here; `reason` says which rule."""

    def __init__(self, reason: str, move: object = None):
        self.reason, self.move = reason, move
        super().__init__(reason)


class TranscriptError(EscobaError):
    """A golden transcript that is itself broken (not an engine failure)."""


class ProtocolError(EscobaError):
    """An engine broke the JSON-lines protocol."""
