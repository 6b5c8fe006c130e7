"""The user's cache folder: what escoba computes the same way every time, kept between runs.

`$XDG_CACHE_HOME/escoba` (or `~/.cache/escoba`), made for its user alone. What is kept there is
trusted when it is read back (a pickled parser, the digests of documents found valid, parsed
YAML texts as `marshal` data), so a folder or file that another user owns or may write is
never used. `ESCOBA_NO_CACHE=1` turns the cache off; where files have no owners (not POSIX)
there is none.
"""

from __future__ import annotations

import os
from collections.abc import Callable

TYPE_CHECKING = False  # True for type checkers; `typing` is not imported at run time (escoba/__init__.py)
if TYPE_CHECKING:
    from typing import BinaryIO


def cache_file(name: str) -> str | None:
    """The path of `name` in the cache folder, or None when there must be no cache: turned
    off, not POSIX, the folder cannot be made, or the folder or the file is not safely this
    user's (owned by another, writable by group or others, or a symbolic link)."""
    if not hasattr(os, "getuid") or os.environ.get("ESCOBA_NO_CACHE"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = os.path.join(base, "escoba")
    path = os.path.join(folder, name)
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        for where in (folder, path):
            if os.path.lexists(where):
                st = os.lstat(where)
                if st.st_uid != os.getuid() or st.st_mode & 0o022 or os.path.islink(where):
                    return None
    except OSError:
        return None
    return path


def folder_files(prefix: str) -> list[str]:
    """The paths of the cache folder's files whose names start with `prefix` (none when there
    is no usable cache)."""
    probe = cache_file(prefix)
    if probe is None:
        return []
    folder = os.path.dirname(probe)
    try:
        return [os.path.join(folder, n) for n in os.listdir(folder) if n.startswith(prefix)]
    except OSError:
        return []


def write_whole(path: str, write: Callable[[BinaryIO], object]) -> None:
    """Write a cache file through `write`, whole, then rename it into place: a reader never sees
    half a file. On a read-only or full disk nothing is written: a cache never fails a command."""
    part = f"{path}.{os.getpid()}.part"
    try:
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.replace(part, path)
    except OSError:
        try:
            os.unlink(part)
        except OSError:
            pass
