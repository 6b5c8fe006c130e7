"""Where results go: files written whole or not at all, checked before the work, and standard
output in whatever encoding it has.

Every output a command is told to write (`--out DIR`, `--junit`, `--plot`, `--record`,
`--write-expectations`, `escoba new`'s file) is checked by `check_output` before any work, so
that a typo costs nothing: the file is a regular file or nothing yet, its folder takes a new
file, it is not a symbolic link; a folder is a folder or nothing yet, and a link to one that
another user planted in a shared folder is not followed.

A result file is written to a new temporary file in its own folder (O_EXCL, O_NOFOLLOW) and
renamed over the target only once it is complete, so an interrupt, a full disk or an error
half-way leaves the old file as it was, and a symbolic link is replaced, never written
through; a file that must be new (`play --record`, `escoba new`) is linked into place
instead, never over one that exists. The files of a folder of results (`OutputFolder`) are
made the same way inside the folder opened once, under plain file names: nothing lands
outside it.

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
    from typing import Any, TextIO


class OutputError(EscobaError):
    """An output that cannot be written (exit status 2, like a usage error: the user named it)."""


class StdoutError(OutputError):
    """Standard output refused a write (a full disk, /dev/full, a closed descriptor)."""

    def __init__(self, problem: OSError):
        super().__init__(f"cannot write to standard output: {problem.strerror or problem}")


# --------------------------------------------------------------------------- checked before the work
def check_output(path: str, option: str, *, folder: bool = False) -> Path:
    """The one check of an output path, made before any work (every `--out`, `--junit`,
    `--plot`, `--record`, `--write-expectations` and `escoba new`'s file): raise OutputError
    unless results can be written there.

    A file must be a regular file or nothing yet, in a folder that exists and takes a new file;
    it must not be a symbolic link (a result is never written through one: name the file it
    points to). A folder (`folder=True`) must be a folder or nothing yet, under a folder that
    takes a new one; a symbolic link to a folder is followed only if the user who runs the
    command made it, or it lies in a folder no one else can write (a link planted in a shared
    folder such as /tmp is refused, as Linux's protected_symlinks refuses it)."""
    what = "folder" if folder else "file"
    if not path or "\0" in path or (not folder and Path(path).name in ("", ".", "..")):
        raise OutputError(f"{option}: {path!r} is not a {what} name")
    target = Path(path)
    try:
        st = os.lstat(target)
    except (FileNotFoundError, NotADirectoryError):  # nothing yet (or a file above it: said below)
        st = None
    except OSError as problem:
        raise OutputError(f"{option}: cannot write {path}: {problem.strerror or problem}") from None
    if st is not None and stat.S_ISLNK(st.st_mode):
        if not folder:
            raise OutputError(f"{option}: {path} is a symbolic link; a result is not written through one (name the file it points to)")
        if not _trusted_link(target, st):
            raise OutputError(f"{option}: {path} is a symbolic link another user made in a folder others can write; not followed")
        try:
            st = os.stat(target)
        except OSError as problem:
            raise OutputError(f"{option}: {path} is a symbolic link to nothing usable: {problem.strerror or problem}") from None
    if folder:
        if st is not None and not stat.S_ISDIR(st.st_mode):
            raise OutputError(f"{option}: {path} is not a folder")
        inside = target if st is not None else _nearest_folder(target, option, path)
        _probe(inside, option, path, folder=True)
        return target
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise OutputError(f"{option}: {path} is a folder, not a file")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise OutputError(f"{option}: {path} is not a regular file (a device or a pipe); write to a file")
    parent = target.parent
    if not parent.is_dir():
        raise OutputError(f"{option}: cannot write {path}: no folder {parent}")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"{option}: cannot write {path}: the folder {parent} is not writable")
    if st is not None and _shared_and_not_ours(parent, st):
        raise OutputError(f"{option}: cannot write {path}: another user's file in a folder others can write")
    _probe(parent, option, path, folder=False)
    return target


def check_output_file(path: str, option: str) -> None:
    """`check_output` for a result file."""
    check_output(path, option)


def _trusted_link(link: Path, st: os.stat_result) -> bool:
    """May a symbolic link to a folder be followed: made by the user who runs us, or by the
    owner of a folder that no one else can write."""
    if st.st_uid == os.geteuid():
        return True
    try:
        holder = os.stat(link.parent)
    except OSError:
        return False
    return not holder.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and holder.st_uid in (st.st_uid, 0)


def _shared_and_not_ours(parent: Path, st: os.stat_result) -> bool:
    """A file of another user in a sticky folder others can write (/tmp): it cannot be
    replaced, so the run would fail at its end."""
    if os.geteuid() == 0 or st.st_uid == os.geteuid():
        return False
    try:
        mode = os.stat(parent).st_mode
    except OSError:
        return False
    return bool(mode & stat.S_ISVTX) and bool(mode & (stat.S_IWGRP | stat.S_IWOTH))


def _nearest_folder(target: Path, option: str, path: str) -> Path:
    """The closest existing folder above a folder to create (which must be a folder)."""
    above = target.absolute().parent
    while not os.path.lexists(above):
        above = above.parent
    if not above.is_dir():
        raise OutputError(f"{option}: cannot make {path}: {above} is not a folder")
    return above


def _probe(where: Path, option: str, path: str, *, folder: bool) -> None:
    """Make (and remove) a file, or a folder, in `where`, as the run will: a read-only file
    system, /proc, and root, whom os.access always lets through, are found now."""
    try:
        if folder:
            made = _mkdtemp(dir=where, prefix=".escoba-probe.")
            os.rmdir(made)
        else:
            fd, probe = _mkstemp(dir=where, prefix=f".{Path(path).name}.", suffix=".tmp")
            os.close(fd)
            os.unlink(probe)
    except OSError as problem:
        raise OutputError(f"{option}: cannot write {path}: {problem.strerror or problem}") from None


# --------------------------------------------------------------------------- written whole
def write_atomic(path: str | os.PathLike[str], data: str | bytes, *, option: str = "") -> None:
    """Write `data` to `path` whole: to a new temporary file beside it, then renamed over it
    (a symbolic link at `path` is replaced, never written through)."""
    target = Path(path)
    try:
        with _folder_open(target.parent) as folder:
            _write_in(folder, target.name, data, replace=True)
    except OSError as problem:
        raise OutputError(f"{_prefix(option)}cannot write {path}: {problem.strerror or problem}") from None


def write_new(path: str | os.PathLike[str], text: str, *, option: str = "") -> bool:
    """Write `text` to `path` if no file has that name; False (and nothing written) if one does.

    The text goes to a temporary file beside it first and is linked into place, so a reader
    never sees half a file and a file that appeared meanwhile is left alone."""
    target = Path(path)
    try:
        with _folder_open(target.parent) as folder:
            return _write_in(folder, target.name, text, replace=False)
    except OSError as problem:
        raise OutputError(f"{_prefix(option)}cannot write {path}: {problem.strerror or problem}") from None


class OutputFolder:
    """A folder of results (`--out DIR`): checked when made (`check_output`, before any work),
    created and opened when the first file is written, each file then made inside the open
    folder with O_EXCL and O_NOFOLLOW under a temporary name and renamed into place. A name is
    a plain file name, so nothing lands outside the folder; a symbolic link found in it,
    planted before or during the run, is replaced, never written through."""

    def __init__(self, path: str, option: str):
        self.path, self.option = Path(path), option
        check_output(path, option, folder=True)
        self._fd: int | None = None

    def write(self, name: str, data: str | bytes) -> Path:
        """Write the file `name` of the folder whole; its path."""
        where = self.path / name
        try:
            _write_in(self._open(), _plain(name, self.path, self.option), data, replace=True)
        except OSError as problem:
            raise OutputError(f"{self.option}: cannot write {where}: {problem.strerror or problem}") from None
        return where

    def names(self) -> list[str]:
        """The names in the folder now (none when it does not exist yet)."""
        if self._fd is None and not self.path.is_dir():
            return []
        return sorted(os.listdir(self._open()))

    def read(self, name: str, limit: int) -> bytes | None:
        """A regular file of the folder, if it is one of at most `limit` bytes (never a FIFO,
        a device or what a symbolic link points to)."""
        try:
            fd = os.open(_plain(name, self.path, self.option), _READ | _NOFOLLOW, dir_fd=self._open())
        except OSError:
            return None
        with os.fdopen(fd, "rb") as handle:
            st = os.fstat(handle.fileno())
            data = handle.read(limit + 1) if stat.S_ISREG(st.st_mode) else b""
        return data if stat.S_ISREG(st.st_mode) and len(data) <= limit else None

    def remove(self, name: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(_plain(name, self.path, self.option), dir_fd=self._open())

    def close(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)

    def __enter__(self) -> OutputFolder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _open(self) -> int:
        if self._fd is None:
            try:
                self._fd = _make_and_open(self.path, self.option)
            except OSError as problem:
                raise OutputError(f"{self.option}: cannot write {self.path}: {problem.strerror or problem}") from None
        return self._fd


_READ = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


def _plain(name: str, folder: Path, option: str) -> str:
    """`name` if it is a file name inside a folder (no separator, not `.` or `..`)."""
    if not name or name in (".", "..") or "/" in name or os.sep in name or "\0" in name:
        raise OutputError(f"{option}: {name!r} is not a file name inside {folder}")
    return name


def _make_and_open(path: Path, option: str) -> int:
    """Create the folder `path` if it is missing (its parents too), then open it. A folder that
    appears meanwhile is checked again (a link planted in the race is refused as before)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        os.mkdir(path)
    except FileExistsError:
        check_output(str(path), option, folder=True)
    return os.open(path, os.O_RDONLY | _DIRECTORY | getattr(os, "O_CLOEXEC", 0))


@contextlib.contextmanager
def _folder_open(folder: Path) -> Iterator[int]:
    fd = os.open(folder if str(folder) else ".", os.O_RDONLY | _DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    try:
        yield fd
    finally:
        os.close(fd)


def _write_in(folder: int, name: str, data: str | bytes, *, replace: bool) -> bool:
    """Write `name` in the open `folder` whole: a new temporary file (O_EXCL, O_NOFOLLOW, the
    permissions open() gives a new file), synced, then renamed over `name` (`replace`) or
    linked to it, False if `name` exists. The temporary file goes on any exception."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        temp = f".{name[:200]}.{os.urandom(4).hex()}.tmp"
        try:
            fd = os.open(temp, flags, 0o666, dir_fd=folder)  # 0666 less the umask, as open() makes files
            break
        except FileExistsError:
            continue
    else:  # pragma: no cover - 100 collisions of 32 random bits
        raise FileExistsError(f"no temporary name free beside {name}")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        if replace:
            os.replace(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
            return True
        try:
            os.link(temp, name, src_dir_fd=folder, dst_dir_fd=folder, follow_symlinks=False)
        except FileExistsError:
            return False
        return True
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp, dir_fd=folder)


def _prefix(option: str) -> str:
    return f"{option}: " if option else ""


@contextlib.contextmanager
def temporary_path(path: str | os.PathLike[str], *, option: str = "") -> Iterator[str]:
    """A path beside `path` for a writer that wants a file name (a chart library); renamed over
    `path` when the block ends normally, removed otherwise."""
    target = Path(path)
    prefix = _prefix(option)
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


def _as_open_makes_it(fd: int) -> None:
    """The permissions open() would give a new file (0666 less the umask), not mkstemp's 0600."""
    umask = os.umask(0)
    os.umask(umask)
    os.fchmod(fd, 0o666 & ~umask)


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


def _mkdtemp(**where: Any) -> str:
    import tempfile

    return tempfile.mkdtemp(**where)
