"""The deck a ruleset describes, and the text forms of its cards.

A card is an `int`: its index in the deck order (suit-major, suits and ranks in the order the
ruleset lists them, jokers last). Everything else (value, suit, rank, names) is looked up in
`Deck` tuples, which keeps the engine's state small and its hot loops free of attribute access.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from escoba.errors import NotationError

JOKER = -1  # suit/rank index of a joker


@dataclass(frozen=True)
class Deck:
    suit_ids: tuple[str, ...]
    suit_symbols: tuple[str, ...]
    suit_ascii: tuple[str, ...]
    rank_ids: tuple[str, ...]
    rank_ascii: tuple[str, ...]
    rank_values: tuple[int, ...]
    jokers: int
    scoring_suit: int
    # per card index
    value: tuple[int, ...] = field(repr=False)
    suit: tuple[int, ...] = field(repr=False)
    rank: tuple[int, ...] = field(repr=False)
    text: tuple[str, ...] = field(repr=False)  # canonical: 7♦, S♠, X1
    code: tuple[str, ...] = field(repr=False)  # ASCII, used on the wire: 7d, Ss, X1
    _lookup: Mapping[str, int] = field(repr=False, compare=False)

    @classmethod
    def from_section(cls, deck: Mapping) -> Deck:
        """Build from a resolved ruleset's `deck` section."""
        suits, ranks = deck["suits"], deck["ranks"]
        jokers = int(deck.get("jokers", 0))
        value, suit, rank, text, code = [], [], [], [], []
        for si, s in enumerate(suits):
            for ri, r in enumerate(ranks):
                value.append(int(r["value"]))
                suit.append(si)
                rank.append(ri)
                text.append(f"{r['ascii']}{s['symbol']}")
                code.append(f"{r['ascii']}{s['ascii']}")
        for j in range(1, jokers + 1):
            value.append(0)
            suit.append(JOKER)
            rank.append(JOKER)
            text.append(f"X{j}")
            code.append(f"X{j}")
        # Decks repeat from ruleset to ruleset (a conformance run compiles fifty): the table of
        # spellings is built once per deck description (read-only: it is shown as a proxy).
        key = repr((suits, ranks, jokers))
        lookup = _LOOKUPS.get(key)
        if lookup is None:
            if len(_LOOKUPS) >= 64:
                _LOOKUPS.clear()  # bounded: a search over many rulesets makes many decks
            lookup = _LOOKUPS[key] = _build_lookup(suits, ranks, jokers)
        suit_ids = tuple(s["id"] for s in suits)
        return cls(
            suit_ids=suit_ids,
            suit_symbols=tuple(s["symbol"] for s in suits),
            suit_ascii=tuple(s["ascii"] for s in suits),
            rank_ids=tuple(str(r["id"]) for r in ranks),
            rank_ascii=tuple(str(r["ascii"]) for r in ranks),
            rank_values=tuple(int(r["value"]) for r in ranks),
            jokers=jokers,
            scoring_suit=suit_ids.index(deck.get("scoring_suit", suit_ids[0])),
            value=tuple(value),
            suit=tuple(suit),
            rank=tuple(rank),
            text=tuple(text),
            code=tuple(code),
            _lookup=MappingProxyType(lookup),
        )

    def __len__(self) -> int:
        return len(self.value)

    @property
    def cards(self) -> range:
        return range(len(self.value))

    def is_joker(self, card: int) -> bool:
        return self.suit[card] == JOKER

    def card(self, text: str) -> int:
        """Parse one card in any accepted form: `7♦`, `7d`, `Kn♠`, `7 oros`, `X1`."""
        key = " ".join(text.split())
        if key in self._lookup:
            return self._lookup[key]
        folded = key.lower()
        if folded in self._lookup:
            return self._lookup[folded]
        raise NotationError(f"unknown card {text!r}{_card_hint(key)}")

    def exactly(self, text: str) -> int | None:
        """The card `text` spells exactly as one of its accepted spellings (no folding of case
        or spaces), or None."""
        return self._lookup.get(text)

    def cards_from(self, texts: Iterable[str]) -> list[int]:
        return [self.card(t) for t in texts]

    def codes(self, cards: Iterable[int]) -> list[str]:
        return [self.code[c] for c in cards]

    def texts(self, cards: Iterable[int]) -> list[str]:
        return [self.text[c] for c in cards]


def _card_hint(text: str) -> str:
    if re.fullmatch(r"(8|9|10)\s*\S*", text):
        return " (the Spanish deck has no 8, 9 or 10: sota, caballo and rey count 8, 9, 10)"
    return ""


_LOOKUPS: dict[str, dict[str, int]] = {}


def _build_lookup(suits: Sequence[Mapping], ranks: Sequence[Mapping], jokers: int) -> dict[str, int]:
    """Every accepted spelling of every card. Exact spellings first; a lower-case copy of the
    word forms (`7 oros`, `sota de bastos`) for people typing quickly."""
    lookup: dict[str, int] = {}
    nranks = len(ranks)
    for si, s in enumerate(suits):
        tight = {s["symbol"], s["ascii"], *s.get("aliases", ())}
        words = {s["id"], s.get("name", s["id"])}
        for ri, r in enumerate(ranks):
            index = si * nranks + ri
            rank_forms = {str(r["id"]), str(r["ascii"]), *(str(a) for a in r.get("aliases", ()))}
            rank_words = {str(r["id"]), str(r.get("name", r["id"]))}
            for rf in rank_forms:
                for sf in tight:
                    lookup.setdefault(f"{rf}{sf}", index)
                for sf in tight | words:
                    lookup.setdefault(f"{rf} {sf}", index)
            for rw in rank_forms | rank_words:
                for sw in words:
                    for form in (f"{rw} {sw}", f"{rw} de {sw}", f"{rw} of {sw}"):
                        lookup.setdefault(form.lower(), index)
    for j in range(1, jokers + 1):
        index = len(suits) * nranks + j - 1
        for form in (f"X{j}", f"x{j}", f"joker {j}", f"comodín {j}"):
            lookup.setdefault(form, index)
    return lookup
