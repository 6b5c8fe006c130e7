"""Safe YAML into plain data, with a position for every node.

The parser (libyaml when present) only produces events; this module builds the data itself, so
it never constructs a Python object from a tag and never runs code. Building from events also
lets it stop at the first sign of abuse (too deep, too many nodes) before memory is spent, and
see what the standard constructors hide: duplicate keys, `<<` merge keys, and the plain scalars
that YAML 1.1 reads as something else than YAML 1.2 does (`no`, `on`, `010`, `1:30`, dates).

Positions are keyed by JSON path (`$.scoring.categories[2].award`); see `paths.py`. They are
given as an editor shows them: lines end at LF, CRLF or CR only, and columns count characters.
The parser's own line numbers also break lines at NEL, U+2028 and U+2029, which no editor does,
so where a text has those, positions come from the parser's character index (see `paths.Lines`).
"""

from __future__ import annotations

import marshal
from collections.abc import Callable
from pathlib import Path

from escoba.errors import Location, Problem, RulesetError
from escoba.inputs import Unreadable, read_file
from escoba.record import Record
from escoba.rules.limits import BOM, MAX_BYTES
from escoba.rules.paths import Lines, Pos
from escoba.rules.verdicts import PARSED, keep, kept

TYPE_CHECKING = False  # True for type checkers; `typing` is not imported at run time (escoba/__init__.py)
if TYPE_CHECKING:
    from typing import Any



class Document(Record):
    """One YAML file as plain data: `data` and a `Pos` for every JSON path in it."""

    _fields = ("file", "path", "data", "positions")
    __slots__ = _fields

    def __init__(self, file: str, path: Path, data: Any, positions: dict[str, Pos]):
        self.file = file  # as shown to the user
        self.path = path
        self.data = data
        self.positions = positions


class ReadableProblems(RulesetError):
    """Problems of a text that still reads as a document (a YAML 1.1 boolean kept as its text,
    a duplicate key whose first value is kept, a value cut at a comma and joined again):
    `document` is what it reads as, so that `escoba check` can report the problems of the
    later stages too, in the same run. Whoever wants a valid document gets the error."""

    def __init__(self, problems: list[Problem], document: Document):
        super().__init__(problems)
        self.document = document


def _failure(file: str) -> Callable[..., RulesetError]:
    def fail(message: str, line: int = 0, column: int = 0) -> RulesetError:
        return RulesetError([Problem(Location(file, line, column, "$"), message)])

    return fail


def read_text(path: Path, file: str) -> str:
    """The file's text, or a RulesetError saying why it cannot be a ruleset."""
    fail = _failure(file)
    try:
        raw = read_file(path, MAX_BYTES)  # a FIFO or /dev/zero is refused, not waited on
    except Unreadable as problem:
        if problem.kind == "directory":
            raise fail("is a directory, not a ruleset file") from None
        if problem.kind == "special":
            raise fail("not a regular file (a pipe, a device or a socket); a ruleset is a text file") from None
        if problem.kind == "large":
            raise fail(f"file larger than {MAX_BYTES} bytes; a ruleset is a small text file") from None
        raise fail(f"cannot read the file: {problem.detail}") from None
    return decode_text(raw, file)


def decode_text(raw: bytes, file: str) -> str:
    """The text of a file's bytes (at most MAX_BYTES + 1 read), or a RulesetError saying why not."""
    fail = _failure(file)
    if len(raw) > MAX_BYTES:
        raise fail(f"file larger than {MAX_BYTES} bytes; a ruleset is a small text file")
    if b"\0" in raw:
        line, column = _byte_position(raw, raw.index(b"\0"))
        raise fail("binary data (a NUL byte), not a YAML text file", line, column)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line, column = _byte_position(raw, error.start)
        raise fail(f"not UTF-8: byte 0x{raw[error.start]:02x} cannot be decoded; save the file as UTF-8", line, column) from None
    if not text.strip():
        raise fail("empty file; a ruleset is a YAML mapping (start with 'dsl: 1')")
    return text


def _byte_position(raw: bytes, offset: int) -> tuple[int, int]:
    """The line and column of the byte at `offset` of a file that is not (all) UTF-8 text."""
    before = raw[:offset].decode("utf-8", errors="replace")
    if raw.startswith(b"\xef\xbb\xbf"):
        before = before[1:]  # the byte-order mark that decoding as utf-8-sig drops
    return Lines(before).position(len(before))


def load_file(path: Path, file: str | None = None) -> Document:
    """Load one ruleset file; raise RulesetError with every problem found.

    A text parsed before without a problem is read back from the cache folder (cachedir.py), by
    a digest of the text, its names and the parser's code (`verdicts.judges`): parsing needs
    PyYAML, whose import alone is a good part of `escoba check`'s start-up."""
    file = file if file is not None else str(path)
    text = read_text(path, file)
    key = f"{file}\0{path}\0{text}"
    known = kept(PARSED, key)
    if known is not None:
        try:
            data, positions = marshal.loads(known)
            return Document(file, path, data, {k: Pos(*v) for k, v in positions.items()})
        except Exception:  # a file another version left, or a broken one: parsed afresh below
            pass
    document = load_text(text, file, path)
    keep(PARSED, key, marshal.dumps((document.data, {k: tuple(v) for k, v in document.positions.items()})))
    return document


def load_text(text: str, file: str = "<string>", path: Path | None = None) -> Document:
    """Parse YAML text into a Document whose data is a mapping with string keys."""
    if text.startswith(BOM):
        # A byte-order mark says how the file is encoded and is no character of it (as when
        # read_text decodes it as utf-8-sig); positions count from what follows.
        text = text[1:]
    from escoba.rules.yamlparse import _Composer  # PyYAML: only when a text must be parsed

    composer = _Composer(text, file)
    data = composer.run()
    if composer.problems:
        if composer.unreadable:
            raise RulesetError(composer.problems)
        raise ReadableProblems(composer.problems, Document(file, path or Path(file), data, composer.positions))
    return Document(file, path or Path(file), data, composer.positions)



def reads_as_text(text: str) -> bool:
    """Whether `text`, written unquoted, loads back as that same text without a problem."""
    from escoba.rules.yamlparse import reads_as_text

    return reads_as_text(text)
