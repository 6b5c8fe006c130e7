"""The documents in spec/sources/ that citations quote, and where a quote may be found in them.

Two kinds of file live there:

- **whole documents**: the five regional rule texts the project was built from, kept verbatim;
  a quote may be anywhere in the text;
- **excerpt files** of third-party pages (the family games' references), which are not ours to
  store whole: a header of `key: value` lines (`url`, `title`, `language`, `retrieved`,
  `stored`), then the passages the rulesets quote, exactly as the page has them, each after a
  line `---`. A quote must lie within one passage.

Quotes are compared with white space folded (runs of spaces and line breaks are one space) and
Unicode in NFC form, otherwise exactly.
"""

from __future__ import annotations

import unicodedata
from functools import cache

from escoba.data import sources_dir

HEADER_KEYS = ("url", "title", "language", "retrieved", "stored")
SEPARATOR = "---"


def fold(text: str) -> str:
    """White space folded to single spaces, Unicode in NFC: the form quotes are compared in."""
    return " ".join(unicodedata.normalize("NFC", text).split())


@cache
def source_files() -> tuple[str, ...]:
    """The file names a citation may name, sorted."""
    return tuple(sorted(p.name for p in sources_dir().glob("*.txt")))


def is_excerpts(text: str) -> bool:
    """An excerpt file starts with its `url:` header line."""
    return text.startswith("url: ")


def split_excerpts(text: str) -> tuple[dict[str, str], list[str]]:
    """An excerpt file's header (key → value) and its passages, as written (not folded)."""
    lines = text.splitlines()
    header: dict[str, str] = {}
    i = 0
    while i < len(lines) and lines[i].strip() != SEPARATOR:
        if lines[i].strip():
            key, _, value = lines[i].partition(":")
            header[key.strip()] = value.strip()
        i += 1
    passages: list[list[str]] = []
    for line in lines[i:]:
        if line.strip() == SEPARATOR:
            passages.append([])
        else:
            passages[-1].append(line)
    return header, ["\n".join(p).strip() for p in passages]


@cache
def passages(name: str) -> tuple[str, ...]:
    """Where a quote of `name` may be found, folded: the whole text, or each stored passage."""
    text = (sources_dir() / name).read_text(encoding="utf-8")
    if not is_excerpts(text):
        return (fold(text),)
    return tuple(fold(p) for p in split_excerpts(text)[1])


def quoted_in(name: str, quote: str) -> bool:
    """Does `quote` occur in the source `name` (within one passage of an excerpt file)?"""
    piece = fold(quote)
    return any(piece in passage for passage in passages(name))
