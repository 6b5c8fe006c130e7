"""Where results go: files written whole or not at all, checked before the work, and standard
output in whatever encoding it has.

A result file (`--write-expectations`, `--plot`, a generated case) is written to a temporary
file in its own folder and renamed over the target only once it is complete, so an interrupt,
a full disk or an error half-way leaves the old file as it was; a file that must be new
(`play --record`, `escoba new`) is linked into place instead, never over one that exists. Whether the target can be
written at all (its folder exists, it is not a folder or a device) is checked before a run, so
that a typo costs nothing.

An output encoding that cannot show a character (cp1252 cannot show ♦, as with Windows
redirection) gets the card's ASCII suit letter (`7♦` → `7d`, the wire form) or a plain-ASCII
stand-in for the few symbols reports use, and `?` for anything else: never a traceback.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from escoba.errors import EscobaError

TYPE_CHECKING = False  # True for type checkers; `typing` is not imported at run time (escoba/__init__.py)
if TYPE_CHECKING:
    from typing import Any, BinaryIO, TextIO


class OutputError(EscobaError):
    """An output that cannot be written (exit status 2, like a usage error: the user named it)."""


class StdoutError(OutputError):
    """Standard output refused a write (a full disk, /dev/full, a closed descriptor)."""

    def __init__(self, problem: OSError):
        super().__init__(f"cannot write to standard output: {problem.strerror or problem}")


def check_output_file(path: str, option: str) -> None:
    """Raise OutputError unless `path` can be written as a result file: its folder exists and
    is writable, and the path is a regular file or nothing yet."""
    target = Path(path)
    folder = target.parent
    if not path or target.name in ("", ".", ".."):
        raise OutputError(f"{option}: {path!r} is not a file name")
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as problem:
        raise OutputError(f"{option}: cannot write {path}: {problem.strerror or problem}") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise OutputError(f"{option}: {path} is a folder, not a file")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise OutputError(f"{option}: {path} is not a regular file (a device or a pipe); write to a file")
    if not folder.is_dir():
        raise OutputError(f"{option}: cannot write {path}: no folder {folder}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"{option}: cannot write {path}: the folder {folder} is not writable")
    # The result goes to a temporary file beside it first: make sure one can be made there (a
    # read-only file system, /proc, and root, whom os.access always lets through).
    try:
        fd, probe = _mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as problem:
        raise OutputError(f"{option}: cannot write {path}: {problem.strerror or problem}") from None
    try:
        os.close(fd)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(probe)


def write_atomic(path: str | os.PathLike[str], data: str | bytes, *, option: str = "") -> None:
    """Write `data` to `path` whole: to a temporary file beside it, then renamed over it."""
    target = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        with _temporary_beside(target) as (handle, temp):
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
            handle.close()
            os.replace(temp, target)
    except OSError as problem:
        prefix = f"{option}: " if option else ""
        raise OutputError(f"{prefix}cannot write {path}: {problem.strerror or problem}") from None


def write_new(path: str | os.PathLike[str], text: str, *, option: str = "") -> bool:
    """Write `text` to `path` if no file has that name; False (and nothing written) if one does.

    The text goes to a temporary file beside it first and is linked into place, so a reader
    never sees half a file and a file that appeared meanwhile is left alone."""
    target = Path(path)
    try:
        with _temporary_beside(target) as (handle, temp):
            handle.write(text.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
            try:
                os.link(temp, target)
            except FileExistsError:
                return False
    except OSError as problem:
        prefix = f"{option}: " if option else ""
        raise OutputError(f"{prefix}cannot write {path}: {problem.strerror or problem}") from None
    return True


@contextlib.contextmanager
def _temporary_beside(target: Path) -> Iterator[tuple[BinaryIO, str]]:
    """An open binary temporary file in `target`'s folder, removed unless it was renamed."""
    fd, temp = _mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        _as_open_makes_it(fd)
        with os.fdopen(fd, "wb") as handle:
            yield handle, temp
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)


def _as_open_makes_it(fd: int) -> None:
    """The permissions open() would give a new file (0666 less the umask), not mkstemp's 0600."""
    umask = os.umask(0)
    os.umask(umask)
    os.fchmod(fd, 0o666 & ~umask)


@contextlib.contextmanager
def temporary_path(path: str | os.PathLike[str], *, option: str = "") -> Iterator[str]:
    """A path beside `path` for a writer that wants a file name (a chart library); renamed over
    `path` when the block ends normally, removed otherwise."""
    target = Path(path)
    prefix = f"{option}: " if option else ""
    try:
        fd, temp = _mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=target.suffix)
    except OSError as problem:
        raise OutputError(f"{prefix}cannot write {path}: {problem.strerror or problem}") from None
    try:
        _as_open_makes_it(fd)
    finally:
        os.close(fd)
    try:
        yield temp
        os.replace(temp, target)
    except OSError as problem:
        raise OutputError(f"{prefix}cannot write {path}: {problem.strerror or problem}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)


# --------------------------------------------------------------------------- any encoding
# The suit symbols of the bundled decks and their ASCII letters (the wire form); a deck of
# other symbols registers its own with `register_suits`.
_STAND_INS: dict[str, str] = {
    "♦": "d", "♥": "h", "♠": "s", "♣": "c",
    "→": "->", "←": "<-", "×": "x", "·": "-", "—": "--", "–": "-", "…": "...", "≥": ">=", "≤": "<=",
    "≠": "!=", "±": "+/-", "≡": "==", "✓": "ok", "✗": "x", "▶": ">", "«": "<<", "»": ">>",
    "‘": "'", "’": "'", "“": '"', "”": '"', "─": "-", "═": "=", "│": "|", "┼": "+", "•": "*",
}  # fmt: skip
ERRORS = "escoba-ascii"


def register_suits(symbols: Any, letters: Any) -> None:
    """Print these suit symbols as these letters where the output cannot show them."""
    for symbol, letter in zip(symbols, letters):
        _STAND_INS.setdefault(symbol, letter)


def _stand_in(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    text = error.object[error.start : error.end]
    return "".join(_STAND_INS.get(c, "?") for c in text), error.end


codecs.register_error(ERRORS, _stand_in)


def can_show(stream: TextIO, text: str) -> bool:
    """True when `stream`'s encoding can write `text` as it is."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def tolerate_encoding(stream: Any) -> None:
    """Make a text stream write what its encoding cannot show as ASCII stand-ins, not raise."""
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is None or can_show(stream, "".join(_STAND_INS)):
        return
    with contextlib.suppress(Exception):
        reconfigure(errors=ERRORS)


def _mkstemp(**where: Any) -> tuple[int, str]:
    # tempfile (with shutil, random and the compressors it imports) costs ~10 ms at start-up;
    # only a command that writes a file pays it.
    import tempfile

    return tempfile.mkstemp(**where)
