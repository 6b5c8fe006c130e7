"""The project's error types.

Every error a user can meet is an `EscobaError`. Errors about a document carry where the
problem is (file, line, column, JSON path) and print as one line:

    spec/house/mine.yaml:12:5: $.scoring.categories[2].award: unknown policy 'mayority'

The CLI prints `str(error)` and never a traceback. Messages quote what a user wrote (keys, values,
names), which may hold line breaks or other invisible characters; a problem shows them escaped
(`'a\\nb'`), so that it stays one line and says exactly what is in the file.
"""

from __future__ import annotations

from dataclasses import dataclass


def one_line(text: str) -> str:
    """`text` with each character that is not printable (line breaks, controls, invisible
    format characters, spaces other than ' ') written as its Python escape: `\\n`, `\\x07`, `\\u2028`."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)  # repr escapes just those


class EscobaError(Exception):
    """Base class of every error the project raises on purpose."""


@dataclass(frozen=True)
class Location:
    """Where in a document a problem is. Line and column are 1-based; 0 means unknown."""

    file: str = "<string>"
    line: int = 0
    column: int = 0
    path: str = "$"

    def __str__(self) -> str:
        where = one_line(self.file)
        if self.line:
            where += f":{self.line}:{self.column or 1}"
        return f"{where}: {one_line(self.path)}"


@dataclass
class Problem:
    """One thing wrong with a document; `excerpt` (with a caret) is for expression errors."""

    location: Location
    message: str
    excerpt: str | None = None
    caret: int | None = None

    def __post_init__(self) -> None:
        self.message = one_line(self.message)
        if self.excerpt is not None:  # a blank for a blank, so the caret stays under its column
            self.excerpt = "".join(c if c.isprintable() else " " for c in self.excerpt)

    def __str__(self) -> str:
        text = f"{self.location}: {self.message}"
        if self.excerpt is not None and self.caret is not None:
            text += f"\n    {self.excerpt}\n    {' ' * self.caret}^"
        return text


class RulesetError(EscobaError):
    """A ruleset (or any rules document) is invalid: one or more problems, each located."""

    def __init__(self, problems: list[Problem]):
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


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
