"""What a document's expressions and cards mean, compiled once per document: two rulesets that
write one rule two ways (`count(cards)` and `count( cards )`; `7 oros`, `7♦` and `7o`) agree."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from escoba.memo import ByIdentity
from escoba.rules.points.base import number


class Meanings:
    """Canonical forms of a ruleset's expressions and cards."""

    def __init__(self, doc: Mapping[str, Any]):
        self.doc = doc
        self._env: Any = None
        self._deck: Any = None

    def env(self) -> Any:
        if self._env is None:
            from escoba.rules.expr import env_from_deck

            self._env = env_from_deck(dict(self.doc["deck"]), dict(self.doc.get("values") or {}))
        return self._env

    def deck(self) -> Any:
        if self._deck is None:
            from escoba.game.cards import Deck

            self._deck = Deck.from_section(self.doc["deck"])
        return self._deck

    def measure(self, text: str) -> str:
        """The canonical form: spacing, aliases, redundant brackets and folded literals vanish."""
        from escoba.rules.expr import ExprError, compile_expression

        try:
            return compile_expression(str(text), self.env()).canonical
        except ExprError:  # a document that failed validation is never diffed; keep the text
            return " ".join(str(text).split())

    def bound(self, value: Any) -> Any:
        """A threshold, as the number it stands for in this deck (`count(deck) / 2` is 20)."""
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return number(value)
        from escoba.rules.expr import ExprError, compile_expression

        try:
            return number(compile_expression(str(value), self.env(), context="global").fn((), 0))
        except ExprError:
            return " ".join(str(value).split())

    def card(self, text: Any) -> tuple[str, str] | str:
        """A holder card as (rank id, suit id): `7 oros`, `7♦` and `7o` are one card."""
        from escoba.errors import NotationError

        deck = self.deck()
        try:
            c = deck.card(str(text))
        except NotationError:
            return str(text)
        if deck.is_joker(c):
            return deck.code[c]
        return (deck.rank_ids[deck.rank[c]], deck.suit_ids[deck.suit[c]])

    def card_code(self, text: Any) -> str:
        """A card's wire code (`7d`), or the text when it names no card."""
        from escoba.errors import NotationError

        try:
            return self.deck().code[self.deck().card(str(text))]
        except NotationError:
            return str(text)

    def card_text(self, text: Any) -> str:
        """A card's canonical text (`7♦`), or the text when it names no card."""
        from escoba.errors import NotationError

        try:
            return self.deck().text[self.deck().card(str(text))]
        except NotationError:
            return str(text)


_MEANINGS: ByIdentity[Meanings] = ByIdentity(64)


def meanings_of(doc: Mapping[str, Any]) -> Meanings:
    """The `Meanings` of a document, made once per document object."""
    return _MEANINGS.get(doc, Meanings)
