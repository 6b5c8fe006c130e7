"""The source documents as pages: the full text with every quoted sentence highlighted.

A ruleset quotes its source with the line breaks and spaces folded (rules/semantics.py checks
`" ".join(quote.split())` against the text folded the same way), so a quote is found here by
its words with any run of white space between them. Each distinct quote gets a stable anchor,
`q-` and a hash of its folded words, that ruleset pages link to.
"""

from __future__ import annotations

import hashlib
import itertools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field


def fold(text: str) -> str:
    """The form quotes are compared in: NFC, white space runs as one space."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def anchor(quote: str) -> str:
    """The anchor of a quote on its source page (the same for every citation of it)."""
    return "q-" + hashlib.sha1(fold(quote).encode("utf-8")).hexdigest()[:10]


def pieces(value: object) -> list[str]:
    """A citation's quote (or gloss) as a list: a quote may be one string or several."""
    if value is None:
        return []
    if isinstance(value, list):
        return [str(v) for v in value]
    return [str(value)]


@dataclass
class Quote:
    text: str  # folded
    anchor: str
    start: int
    end: int
    cited_by: list[str] = field(default_factory=list)  # "sv: who leads", shown on hover


@dataclass(frozen=True)
class Segment:
    text: str
    anchors: tuple[str, ...]  # the quotes this stretch of text belongs to (empty: unquoted)
    starts: tuple[str, ...]  # anchors of the quotes that begin here


class SourceText:
    """One source document and the quotes found in it."""

    def __init__(self, name: str, text: str):
        self.name = name
        self.text = unicodedata.normalize("NFC", text)
        self.quotes: dict[str, Quote] = {}
        self.missing: list[str] = []

    def cite(self, quote: str, by: str) -> str | None:
        """Record that `by` quotes `quote`; its anchor, or None if the text does not hold it."""
        key = anchor(quote)
        found = self.quotes.get(key)
        if found is None:
            words = fold(quote).split(" ")
            pattern = r"\s+".join(re.escape(w) for w in words if w)
            match = re.search(pattern, self.text) if pattern else None
            if match is None:
                self.missing.append(quote)
                return None
            found = self.quotes[key] = Quote(fold(quote), key, match.start(), match.end())
        if by not in found.cited_by:
            found.cited_by.append(by)
        return key

    def segments(self) -> list[Segment]:
        """The text cut at every quote boundary, each stretch with the quotes covering it."""
        cuts = {0, len(self.text)}
        for q in self.quotes.values():
            cuts.update((q.start, q.end))
        bounds = sorted(cuts)
        out: list[Segment] = []
        for lo, hi in itertools.pairwise(bounds):
            covering = tuple(q.anchor for q in self.quotes.values() if q.start <= lo and hi <= q.end)
            starts = tuple(q.anchor for q in self.quotes.values() if q.start == lo)
            out.append(Segment(self.text[lo:hi], covering, starts))
        return out

    def cited_by(self, anchors: Iterable[str]) -> list[str]:
        seen: list[str] = []
        for a in anchors:
            for who in self.quotes[a].cited_by:
                if who not in seen:
                    seen.append(who)
        return seen
