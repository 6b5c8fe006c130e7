"""The expression parser kept in the user's cache folder (escoba/rules/expr.py, `_parser`)."""

from __future__ import annotations

import os

import pytest

from escoba.rules import expr

TEXTS = ["count(cards) + 1 if escobas > 2 else none", "best(suit(cards, oros), primera)", "count(made_with(sweeps, rank(deck, 7)))"]


def _build():
    return expr._parser.__wrapped__()  # not the process's lru_cache: the cache folder decides


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="the cache is kept only where files have owners (POSIX)")
def test_the_parser_is_kept_and_loaded_from_a_private_folder(tmp_path, monkeypatch):
    """The first build writes one file in $XDG_CACHE_HOME/escoba (a folder only its user may
    write); the next loads it, and both parse as a parser built without the cache does."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("ESCOBA_NO_CACHE", raising=False)
    first = _build()
    files = list((tmp_path / "escoba").iterdir())
    assert [f.suffix for f in files] == [".lark"] and (tmp_path / "escoba").stat().st_mode & 0o077 == 0
    loaded = _build()
    monkeypatch.setenv("ESCOBA_NO_CACHE", "1")
    plain = _build()
    for text in TEXTS:
        assert loaded.parse(text) == first.parse(text) == plain.parse(text)  # rule names compare as text
        assert loaded.parse(text).meta.end_pos == plain.parse(text).meta.end_pos == len(text)  # positions kept


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="the cache is kept only where files have owners (POSIX)")
def test_a_cache_file_others_may_write_is_not_read(tmp_path, monkeypatch):
    """A group-writable cache file is never unpickled (parser_cache_file says None), and a
    broken one is replaced by a parser built afresh."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("ESCOBA_NO_CACHE", raising=False)
    _build()
    (cached,) = (tmp_path / "escoba").iterdir()
    cached.write_bytes(b"not a pickle")
    assert _build().parse(TEXTS[0]) == expr._parser().parse(TEXTS[0])
    assert cached.read_bytes() != b"not a pickle"  # written again, whole
    cached.chmod(0o666)
    assert expr.parser_cache_file(cached.stem.removeprefix("expr-")) is None
