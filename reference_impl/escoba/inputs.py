"""Reading a file someone else wrote: only a regular file, and only so much of it.

Every loader of outside input (rulesets, golden cases, expectations files) opens files here.
Opening is non-blocking, so a FIFO with no writer cannot hang the caller, and the open file is
checked before a byte is read: a folder, a FIFO, a device (`/dev/zero` would never end) or a
socket is refused. A regular file is read up to a limit and refused past it, so the size of
what is read is bounded whatever the file is.
"""

from __future__ import annotations

import os
import stat
from functools import cache
from pathlib import Path

TYPE_CHECKING = False  # True for type checkers; `typing` is not imported at run time (escoba/__init__.py)
if TYPE_CHECKING:
    from typing import Any


class Unreadable(Exception):
    """Why a file was not read. `kind` is `directory`, `special` (a FIFO, a device, a socket),
    `large` (more than the limit) or `os` (the system refused: `detail` says how)."""

    def __init__(self, kind: str, detail: str = ""):
        self.kind, self.detail = kind, detail
        super().__init__(detail or kind)


def read_file(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; `Unreadable` otherwise."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(Path(path), flags)
    except IsADirectoryError:
        raise Unreadable("directory") from None
    except OSError as problem:
        raise Unreadable("os", problem.strerror or str(problem)) from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise Unreadable("directory")
        if not stat.S_ISREG(mode):
            raise Unreadable("special")
        os.set_blocking(fd, True)
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as problem:
        raise Unreadable("os", problem.strerror or str(problem)) from None
    finally:
        os.close(fd)
    if size > limit:
        raise Unreadable("large")
    return b"".join(chunks)


def describe(problem: Unreadable, limit: int, what: str) -> str:
    """The usual words for why a file is not read as `what` ("a ruleset", "a case")."""
    if problem.kind == "directory":
        return f"is a directory, not {what} file"
    if problem.kind == "special":
        return f"not a regular file (a pipe, a device or a socket); {what} is a file"
    if problem.kind == "large":
        return f"file larger than {limit} bytes"
    return f"cannot read the file: {problem.detail}"


def strict_json(text: str | bytes) -> Any:
    """`json.loads`, strict: `NaN`, `Infinity` and `-Infinity` (which Python accepts) are a
    ValueError, as is an integer of more digits than Python converts. Nothing read from outside
    can then be written back out as non-JSON."""
    # `json.loads` as written, with one decoder made once: passing `parse_constant` to
    # `json.loads` builds a new decoder for every call, a tenth of a conformance run.
    json, decoder = _json()
    if isinstance(text, (bytes, bytearray)):
        text = text.decode(json.detect_encoding(text), "surrogatepass")
    elif text.startswith("\ufeff"):
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    return decoder.decode(text)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


@cache
def _json() -> tuple[Any, Any]:
    """The `json` module and the strict decoder, on first use: reading a ruleset (`escoba
    check`) needs neither, and importing `json` is a few milliseconds of its start-up."""
    import json

    return json, json.JSONDecoder(parse_constant=_no_constant)
