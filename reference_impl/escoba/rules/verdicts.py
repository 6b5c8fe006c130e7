"""Documents already found valid, remembered by their content between runs.

Validating a ruleset (the JSON Schema, then the semantic checks, which parse every measure)
costs far more than reading it, and gives the same verdict every time the same document is
judged by the same code; yet `escoba check`, every engine start and every conformance run
judge the same bundled rulesets again. So a document that passed is remembered by a digest of
everything its verdict depends on:

- the document as parsed (`repr` of the data: exact types, so `1`, `1.0`, `true` and `"1"`
  differ) and, for a ruleset, the name, the path and whether it is bundled of every file of
  its `extends` chain (a bundled file's name must be its id);
- the judges (`_judges`): every module of `escoba.rules` and its grammar, the schemas, the
  source documents that citations are checked against, the installed jsonschema, lark and
  PyYAML (by path, size and modification time), and the versions of Python and escoba.

Only successes are kept: a document with problems is judged afresh each time, so its messages
are always the current code's. The digests live in one file per judges' fingerprint,
`valid-FINGERPRINT` in the user's cache folder (escoba/cachedir.py, with its safety rules and
`ESCOBA_NO_CACHE=1`). The files of the `JUDGES_KEPT` fingerprints written to most recently are
kept and older ones removed: two installs used in turn (a checkout and a release, two virtual
environments) do not wipe each other's, and the folder stays bounded. A hit skips the
checks, and with them the imports of jsonschema and lark: what makes `escoba check` fast.

The same folder keeps each YAML text parsed without a problem (`keep`, `kept`: the data and
positions `yamlload.load_file` built), under the same fingerprint, so that a file read before
is not parsed again, nor PyYAML imported.
"""

from __future__ import annotations

import os
import sys
from importlib.util import find_spec

try:  # hashlib's blake2b itself, without the OpenSSL start-up hashlib pays (~5 ms of `escoba check`)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - another Python implementation
    from hashlib import blake2b

from escoba.cachedir import cache_file, folder_files, write_whole
from escoba.version import __version__

PREFIX = "valid-"
JUDGES_KEPT = 4  # fingerprints whose files are kept (the current one and the 3 written to last)
MAX_BYTES = 4 << 20  # about 120,000 digests; past it the file starts again (bounded disk)

_known: set[str] | None = None  # the digests of this fingerprint, read once per process
_file: str | None = None


def known(kind: str, *parts: object) -> bool:
    """Was this document (`kind` and the parts its verdict depends on) found valid before?"""
    return _digest(kind, parts) in _digests()


def remember(kind: str, *parts: object) -> None:
    """Record that this document was found valid (nothing happens without a usable cache)."""
    digest = _digest(kind, parts)
    found = _digests()
    if digest in found or _file is None:
        return
    found.add(digest)
    try:
        if os.path.exists(_file) and os.path.getsize(_file) > MAX_BYTES:
            os.unlink(_file)
        fd = os.open(_file, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:  # one short append: whole lines even when two processes write at once
            os.write(fd, f"{digest}\n".encode())
        finally:
            os.close(fd)
    except OSError:  # a read-only or full disk: nothing remembered, nothing wrong
        pass


# ------------------------------------------------------------------ parsed texts
PARSED = "parsed"  # YAML texts parsed without a problem (rules/yamlload.py)
MAX_KEPT = 256  # files of one kind; past it, the others go (bounded disk)


def kept(kind: str, key: str) -> bytes | None:
    """The value kept for `key` by the current judges, or None."""
    path = _kept_file(kind, key)
    if path is None:
        return None
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:  # none yet
        return None


def keep(kind: str, key: str, value: bytes) -> None:
    """Keep `value` for `key` (written whole: cachedir.write_whole)."""
    path = _kept_file(kind, key)
    if path is None:
        return
    others = folder_files(f"{kind}-")
    if len(others) >= MAX_KEPT:
        for other in others:
            try:
                os.unlink(other)
            except OSError:
                pass
    write_whole(path, lambda f: f.write(value))


def _kept_file(kind: str, key: str) -> str | None:
    _digests()  # the judges' fingerprint, and the files of older ones removed
    if _file is None:
        return None
    judged = os.path.basename(_file)[len(PREFIX) :]
    return cache_file(f"{kind}-{judged}-{_digest(kind, (key,))}")


def _digest(kind: str, parts: tuple[object, ...]) -> str:
    return blake2b(f"{kind}\0{parts!r}".encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _digests() -> set[str]:
    global _known, _file
    if _known is None:
        _known = set()
        _file = cache_file(PREFIX + _judges())
        if _file is not None:
            verdict_files = folder_files(PREFIX)
            kept = _recent_judges(_fingerprint(_file), verdict_files)
            for other in verdict_files + folder_files(f"{PARSED}-"):
                if _fingerprint(other) not in kept:
                    try:
                        os.unlink(other)
                    except OSError:
                        pass
            try:
                with open(_file, encoding="ascii", errors="replace") as f:
                    _known.update(line.strip() for line in f)
            except OSError:  # none yet
                pass
    return _known


def _fingerprint(path: str) -> str:
    """The judges' fingerprint of a cache file: `valid-FINGERPRINT`, `parsed-FINGERPRINT-KEY`,
    either with `.PID.part` while it is written."""
    return os.path.basename(path).split("-")[1].split(".")[0]


def _recent_judges(judged: str, verdict_files: list[str]) -> set[str]:
    """This fingerprint and the `JUDGES_KEPT - 1` others whose verdict files were written last."""
    stamped = []
    for path in verdict_files:
        try:
            stamped.append((os.stat(path).st_mtime_ns, _fingerprint(path)))
        except OSError:
            pass
    others = [name for _, name in sorted(stamped, reverse=True) if name != judged]
    return {judged, *others[: JUDGES_KEPT - 1]}


def _judges() -> str:
    """A fingerprint of the code and data that judge a document (see the module's docstring)."""
    from escoba.data import schemas_dir, sources_dir

    here = os.path.dirname(os.path.abspath(__file__))
    paths = sorted(os.path.join(here, n) for n in os.listdir(here) if n.endswith((".py", ".lark")))
    for folder in (schemas_dir(), sources_dir()):
        paths += sorted(str(p) for p in folder.iterdir())
    for package in ("jsonschema", "lark", "yaml"):
        spec = find_spec(package)
        if spec is not None and spec.origin:
            paths.append(spec.origin)
    h = blake2b(f"{sys.version}\0{__version__}\0".encode(), digest_size=12)
    for path in paths:
        try:
            st = os.stat(path)
            h.update(f"{path}\0{st.st_mtime_ns}\0{st.st_size}\n".encode("utf-8", "surrogatepass"))
        except OSError:
            h.update(f"{path}\0missing\n".encode("utf-8", "surrogatepass"))
    return h.hexdigest()
