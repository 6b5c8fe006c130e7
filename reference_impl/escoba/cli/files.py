"""Writing a file the user asked for: whole or not at all, and never over one that exists."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_new(path: Path, text: str) -> bool:
    """Write `text` to `path` if no file has that name; False (and nothing written) if one does.

    The text goes to a temporary file beside it first and is linked into place, so a reader
    never sees half a file and a file that appeared meanwhile is left alone."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.link(tmp, path)
        return True
    except FileExistsError:
        return False
    finally:
        os.unlink(tmp)
