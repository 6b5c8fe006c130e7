"""The human notation of cards and moves, close to how the rule texts write them.

    >>> deck = escoba.load_ruleset("sv").deck
    >>> parse_move("7♦ x 3♣ 5♥", deck)          # play 7♦, take 3♣ and 5♥
    Move(card=6, take=(14, 32))
    >>> format_move(parse_move("Kn♠ x E♥", deck), deck)
    'S♠ x 1♥'
    >>> format_move(parse_move("7 oros", deck), deck, ascii=True)
    '7d'

The grammar (`notation.lark`) gives the structure and the column of every word; the ruleset's
deck resolves the words into cards (`Deck.card`), so the rank and suit names and aliases a
ruleset declares (`Kn`, `E`, `D`, `K` in the Swedish text; `S`, `C`, `R`, `A`, `J`, `Q`, `oros`)
are accepted without the grammar knowing them.

Text that is not a move raises `NotationError` with the column of the problem (a caret in the
message). A move that parses but is not legal in a position is the engine's business
(`IllegalMoveError`), never this module's: "R♦ x 5♣" parses whatever the table holds.
"""

from __future__ import annotations

import unicodedata
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from escoba.errors import NotationError
from escoba.game.cards import Deck
from escoba.game.moves import Move

__all__ = [
    "MAX_LENGTH",
    "format_card",
    "format_move",
    "move_from_wire",
    "move_to_wire",
    "parse_card",
    "parse_cards",
    "parse_move",
]

MAX_LENGTH = 200  # a move names at most a hand card and a table; 200 characters is plenty


# --------------------------------------------------------------------------- syntax tree


@dataclass(frozen=True)
class Word:
    text: str
    column: int  # 0-based, in characters
    end: int


@dataclass(frozen=True)
class Group:
    """Cards written one after another; each item is a comma-free run of words."""

    items: tuple[tuple[Word, ...], ...]


@dataclass(frozen=True)
class MoveTree:
    played: Group
    takes: Word | None  # the 'x', when the move takes
    taken: Group | None


class _Builder(Transformer):
    def WORD(self, token: Token) -> Word:
        return Word(str(token), token.start_pos or 0, token.end_pos or 0)

    def TAKES(self, token: Token) -> Word:
        return Word(str(token), token.start_pos or 0, token.end_pos or 0)

    def item(self, words: list[Word]) -> tuple[Word, ...]:
        return tuple(words)

    def group(self, children: list[Any]) -> Group:
        return Group(tuple(c for c in children if isinstance(c, tuple)))

    def move(self, children: list[Any]) -> MoveTree:
        if len(children) == 1:
            return MoveTree(children[0], None, None)
        return MoveTree(children[0], children[1], children[2])

    def start_move(self, children: list[Any]) -> MoveTree:
        return children[0]

    def start_card(self, children: list[Any]) -> tuple[Word, ...]:
        return children[0]


@lru_cache(maxsize=1)
def _parser() -> Lark:
    grammar = resources.files(__package__).joinpath("notation.lark").read_text(encoding="utf-8")
    return Lark(
        grammar,
        parser="lalr",
        lexer="basic",
        propagate_positions=True,
        start=["start_move", "start_card"],
    )


def _tree(text: str, start: str, what: str) -> Any:
    if not isinstance(text, str):
        raise NotationError(f"a {what} is written as text, not {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        # The text itself is not echoed: it may be anything, of any size.
        raise NotationError(f"{what} too long: {len(text)} characters, at most {MAX_LENGTH}")
    if not text.strip():
        raise NotationError(f"empty {what}", _shown(text), 0)
    try:
        return _Builder().transform(_parser().parse(text, start=start))
    except UnexpectedInput as e:
        raise _syntax_error(e, text, what) from None


def _shown(text: str) -> str:
    """The text as the caret line shows it: a control character (a line break) would tear the
    excerpt apart, so each becomes one visible mark and the columns stay right."""
    return "".join("\ufffd" if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch for ch in text)


def _syntax_error(e: UnexpectedInput, raw: str, what: str) -> NotationError:
    text = _shown(raw)
    if isinstance(e, UnexpectedCharacters):
        return NotationError(f"unexpected character {e.char!r}", text, e.pos_in_stream)
    if not isinstance(e, UnexpectedToken):  # pragma: no cover - LALR with a basic lexer reports tokens
        return NotationError(f"not a {what}", text, 0)
    token, wants_card = e.token, "WORD" in (e.accepts or e.expected)
    if token.type == "$END":
        # Only a trailing 'x' or ',' can leave the parser wanting more.
        return NotationError("expected a card here", text, len(raw.rstrip()))
    column = token.start_pos
    if token.type == "TAKES":
        if what == "card":
            return NotationError("expected a single card, not a move", text, column)
        if column == len(raw) - len(raw.lstrip()):
            return NotationError("expected the card played before 'x'", text, column)
        if wants_card:
            return NotationError("unexpected 'x', expected a card here", text, column)
        return NotationError("a move has one 'x'", text, column)
    if token.type == "COMMA" and wants_card:
        return NotationError("unexpected ',', expected a card here", text, column)
    return NotationError(f"unexpected {str(token)!r}", text, column)  # pragma: no cover


# --------------------------------------------------------------------------- words → cards


def _as_deck(deck: Deck | Any) -> Deck:
    """A `Deck`, or anything that has one (a compiled `Rules`)."""
    return deck if isinstance(deck, Deck) else deck.deck


_LONGEST: OrderedDict[int, tuple[Mapping, int]] = OrderedDict()


def _longest_name(deck: Deck) -> int:
    """The most words any spelling of a card has in this deck (`sota de bastos`: 3; a house
    deck may name a rank `Big Old King`), which bounds how far a card can run.

    Cached by the identity of the deck's spelling table, not by the deck: two decks that differ
    only in their names compare equal."""
    lookup = deck._lookup
    hit = _LONGEST.get(id(lookup))
    if hit is None or hit[0] is not lookup:
        hit = (lookup, max((len(key.split()) for key in lookup), default=1))
        _LONGEST[id(lookup)] = hit
        if len(_LONGEST) > 64:
            _LONGEST.popitem(last=False)
    return hit[1]


def _lookup(deck: Deck, words: tuple[Word, ...]) -> int | None:
    try:
        return deck.card(" ".join(w.text for w in words))
    except NotationError:
        return None


def _cards_of_item(deck: Deck, words: tuple[Word, ...], text: str) -> list[tuple[int, Word]]:
    """Split a run of words into cards: a card may be several words (`7 oros`), so this tries
    the longest spelling first and backtracks when the rest of the run would not split."""
    n = len(words)
    # splits[i]: the run from word i on splits into cards (computed right to left)
    splits = [False] * (n + 1)
    splits[n] = True
    starts: list[list[tuple[int, int]]] = [[] for _ in range(n)]  # (end word, card), longest first
    longest = _longest_name(deck)
    for i in range(n - 1, -1, -1):
        for j in range(min(n, i + longest), i, -1):
            card = _lookup(deck, words[i:j])
            if card is not None:
                starts[i].append((j, card))
        splits[i] = any(splits[j] for j, _ in starts[i])
    found: list[tuple[int, Word]] = []
    i = 0
    while i < n:
        if not starts[i]:
            # The unknown stretch runs to the next word where a card could begin.
            j = i + 1
            while j < n and not starts[j]:
                j += 1
            chunk = text[words[i].column : words[j - 1].end]
            try:
                deck.card(chunk)
            except NotationError as e:
                raise NotationError(e.message, _shown(text), words[i].column) from None
            raise AssertionError("unreachable: a stretch with no card start is a card")  # pragma: no cover
        j, card = next(((j, c) for j, c in starts[i] if splits[j]), starts[i][0])
        found.append((card, Word(text[words[i].column : words[j - 1].end], words[i].column, words[j - 1].end)))
        i = j
    return found


def _cards_of_group(deck: Deck, group: Group, text: str) -> list[tuple[int, Word]]:
    return [pair for item in group.items for pair in _cards_of_item(deck, item, text)]


def _no_repeats(deck: Deck, cards: Iterable[tuple[int, Word]], text: str) -> None:
    seen: set[int] = set()
    for card, word in cards:
        if card in seen:
            raise NotationError(f"{deck.text[card]} is named twice", _shown(text), word.column)
        seen.add(card)


# --------------------------------------------------------------------------- API


def parse_move(text: str, deck: Deck | Any) -> Move:
    """`"7♦ x 3♣ 5♥"` → `Move(7♦, (3♣, 5♥))`; `"7♦"` → `Move(7♦, ())`.

    The taken cards come back in deck order, as the engine lists them. Raises `NotationError`.
    """
    deck = _as_deck(deck)
    quick = _plain_move(text, deck)
    return quick if quick is not None else _grammar_move(text, deck)


def _grammar_move(text: str, deck: Deck) -> Move:
    """`parse_move` through the grammar: every spelling, and the errors."""
    tree: MoveTree = _tree(text, "start_move", "move")
    played = _cards_of_group(deck, tree.played, text)
    if len(played) > 1:
        raise NotationError("a move plays one card; write 'x' before the cards it takes", _shown(text), played[1][1].column)
    taken = _cards_of_group(deck, tree.taken, text) if tree.taken is not None else []
    _no_repeats(deck, played + taken, text)
    return Move(played[0][0], tuple(sorted(card for card, _ in taken)))


def _plain_move(text: str, deck: Deck) -> Move | None:
    """The move, when `text` is written the way escoba writes moves (`7♦ x 3♣ 5♥`, `7d x 3c
    5h`: single spaces, each card one word the deck spells exactly, no card twice); None for
    anything else, which the grammar reads (and explains, if it is wrong). Cases hold thousands of moves in
    this form, and the grammar is the case loader's largest cost."""
    if not isinstance(text, str):
        return None
    words = text.split(" ")
    if len(words) == 2 or (len(words) > 2 and words[1] != "x"):
        return None
    cards = [deck.exactly(w) for w in (words[:1] + words[2:])]
    if None in cards or len(set(cards)) != len(cards):
        return None
    played, *taken = cards
    return Move(played, tuple(sorted(taken)))  # type: ignore[arg-type]


def parse_card(text: str, deck: Deck | Any) -> int:
    """One card in any spelling the deck accepts: `7♦`, `7d`, `Kn♠`, `7 oros`, `X1`."""
    deck = _as_deck(deck)
    words = _tree(text, "start_card", "card")
    cards = _cards_of_item(deck, words, text)
    if len(cards) > 1:
        raise NotationError("expected a single card", _shown(text), cards[1][1].column)
    return cards[0][0]


def parse_cards(text: str, deck: Deck | Any) -> list[int]:
    """Several cards, in the order written (`3♣ 5♥ Kn♠ 2♦`); an empty text is no cards."""
    deck = _as_deck(deck)
    if isinstance(text, str) and not text.strip():
        return []
    tree: MoveTree = _tree(text, "start_move", "list of cards")
    if tree.takes is not None:
        raise NotationError("expected cards, not a move", _shown(text), tree.takes.column)
    cards = _cards_of_group(deck, tree.played, text)
    _no_repeats(deck, cards, text)
    return [card for card, _ in cards]


def format_card(card: int, deck: Deck | Any, ascii: bool = False) -> str:
    """`7♦` (canonical) or `7d` (ASCII, as on the wire)."""
    deck = _as_deck(deck)
    return (deck.code if ascii else deck.text)[card]


def format_move(move: Move | tuple, deck: Deck | Any, ascii: bool = False) -> str:
    """`7♦ x 3♣ 5♥` or `7♦`; `parse_move` reads it back to the same move."""
    deck = _as_deck(deck)
    names = deck.code if ascii else deck.text
    card, take = move[0], tuple(move[1])
    if not take:
        return names[card]
    return f"{names[card]} x {' '.join(names[c] for c in take)}"


def move_to_wire(move: Move | tuple, deck: Deck | Any) -> dict:
    """The protocol's form of a move: `{"card": "7d", "take": ["3c", "5h"]}`."""
    deck = _as_deck(deck)
    return {"card": deck.code[move[0]], "take": [deck.code[c] for c in move[1]]}


def move_from_wire(data: Mapping, deck: Deck | Any) -> Move:
    """The protocol's form back to a `Move`. Only exact ASCII codes are accepted on the wire."""
    deck = _as_deck(deck)
    if not isinstance(data, Mapping) or set(data) != {"card", "take"}:
        raise NotationError("a move is an object with exactly the keys 'card' and 'take'")
    take = data["take"]
    if not isinstance(take, list):
        raise NotationError("'take' must be a list of card codes")
    codes = {code: i for i, code in enumerate(deck.code)}
    cards = []
    for code in [data["card"], *take]:
        if not isinstance(code, str) or code not in codes:
            raise NotationError(f"unknown card code {code!r}")
        cards.append(codes[code])
    if len(set(cards)) != len(cards):
        raise NotationError("a card is named twice in the move")
    return Move(cards[0], tuple(sorted(cards[1:])))
