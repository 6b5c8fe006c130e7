"""Fuzzing move notation and illegal moves: text is a Move or a NotationError, a parsed move is
events or an IllegalMoveError, and a refused move leaves the hand exactly as it was.

tests/test_notation.py pins each message and fuzzes the Swedish deck with short texts; this
file covers every bundled deck, near-miss and unicode spellings, huge inputs, decks whose
names have several words, wire moves of any JSON shape, and moves applied to live hands.

More examples: HYPOTHESIS_PROFILE=deep python -m pytest tests/test_fuzz_notation.py (docs/errors.md).
"""

from __future__ import annotations

import json
import random
import unicodedata
from functools import cache
from typing import Any

import pytest
from hypothesis import assume, given, note
from hypothesis import strategies as st

import escoba
from escoba.engine.bots import random_bot
from escoba.engine.hand import Hand
from escoba.errors import IllegalMoveError, NotationError
from escoba.game.cards import Deck
from escoba.game.moves import Move
from escoba.notation import MAX_LENGTH, format_move, move_from_wire, parse_card, parse_cards, parse_move
from escoba.rules import bundled_ids
from rulebook import base_with

RULESETS = bundled_ids()


@cache
def deck_of(ruleset: str) -> Deck:
    return escoba.load_ruleset(ruleset).deck


@cache
def spellings(ruleset: str) -> tuple[tuple[str, int], ...]:
    """Ways people write each card of a bundled deck, from the ruleset's own names."""
    return tuple(_spellings(escoba.load_ruleset(ruleset).doc["deck"], deck_of(ruleset)))


def _spellings(section: dict, deck: Deck) -> list[tuple[str, int]]:
    found = []
    for card in deck.cards:
        found += [(deck.text[card], card), (deck.code[card], card)]
        if deck.is_joker(card):
            continue
        suit, rank = section["suits"][deck.suit[card]], section["ranks"][deck.rank[card]]
        for rank_name in (rank["id"], rank["name"], *rank.get("aliases", ())):
            for suit_name in (suit["id"], suit["name"]):
                for form in (f"{rank_name} {suit_name}", f"{rank_name} de {suit_name}", f"{rank_name} of {suit_name}"):
                    found.append((form, card))
    return found


# Characters people paste by accident or on purpose: other suit symbols, the emoji variation
# selector phones add after ♦, fullwidth digits, zero-width and direction marks, combining
# accents, line and paragraph separators, NUL.
UNICODE = [
    "♤", "♡", "♢", "♧", "\ufe0f", "\U0001f0a1", "\U0001f0c7", "７", "ｘ", "×", "✕", "\u200b", "\u200d",
    "\u200e", "\u202e", "\u0301", "\u0308", "\u00a0", "\u3000", "\u2028", "\u2029", "\x85", "\x00",
    "\t", "\r", "\n", "\x0b", "\x0c", "\x1c", ",", "，", "x", "X", "o", "О", "♦", "♥", "♠", "♣",
]  # fmt: skip


def near_miss(data: st.DataObject, text: str) -> str:
    """A spelling one slip away from a real one."""
    i = data.draw(st.integers(0, max(len(text) - 1, 0)), label="at")
    how = data.draw(st.sampled_from(["drop", "double", "case", "insert", "replace", "nfd", "nfkc", "pad"]))
    if how == "drop":
        return text[:i] + text[i + 1 :]
    if how == "double":
        return text[:i] + text[i : i + 1] + text[i:]
    if how == "case":
        return text.swapcase()
    if how == "insert":
        return text[:i] + data.draw(st.sampled_from(UNICODE)) + text[i:]
    if how == "replace":
        return text[:i] + data.draw(st.sampled_from(UNICODE)) + text[i + 1 :]
    if how == "nfd":
        return unicodedata.normalize("NFD", text)
    if how == "nfkc":
        return unicodedata.normalize("NFKC", text)
    return f" {text}\t"


def assert_notation_error(error: NotationError, text: Any) -> None:
    """A NotationError says what is wrong and, when it has a column, shows the text and a caret."""
    assert error.message.strip()
    lines = str(error).split("\n")
    if error.column is None or not error.text:
        assert lines == [error.message]
        return
    assert isinstance(text, str) and 0 <= error.column <= len(text)
    assert len(lines) == 3 and lines[0] == error.message, lines
    assert lines[1] == "    " + error.text and "\n" not in error.text and "\r" not in error.text
    assert lines[2] == "    " + " " * error.column + "^"


def parse_or_error(text: Any, deck: Deck) -> Move | None:
    try:
        move = parse_move(text, deck)
    except NotationError as error:
        assert_notation_error(error, text)
        return None
    assert isinstance(move, Move) and move.card in deck.cards
    assert all(c in deck.cards for c in move.take) and move.card not in move.take
    assert list(move.take) == sorted(set(move.take))
    assert parse_move(format_move(move, deck), deck) == move
    assert parse_move(format_move(move, deck, ascii=True), deck) == move
    return move


# --------------------------------------------------------------------------- text → move


@given(st.sampled_from(RULESETS), st.text(max_size=60) | st.lists(st.sampled_from(UNICODE), max_size=20).map("".join))
def test_any_text_on_any_deck_is_a_move_or_a_notation_error(ruleset: str, text: str) -> None:
    """Arbitrary text, on every bundled deck, parses to a Move or raises NotationError only."""
    parse_or_error(text, deck_of(ruleset))


@given(st.data())
def test_near_miss_moves_are_a_move_or_a_notation_error(data: st.DataObject) -> None:
    """Real spellings with a slip (a dropped letter, a wrong suit symbol, an emoji selector) never crash."""
    ruleset = data.draw(st.sampled_from(RULESETS), label="ruleset")
    pool = spellings(ruleset)
    words = [data.draw(st.sampled_from(pool))[0] for _ in range(data.draw(st.integers(1, 5), label="cards"))]
    slipped = data.draw(st.integers(0, len(words) - 1), label="slipped")
    words[slipped] = near_miss(data, words[slipped])
    glue = data.draw(st.sampled_from([" ", ", ", " x ", " × ", "\t", "x", " ,"]), label="glue")
    text = words[0] + (" x " + glue.join(words[1:]) if len(words) > 1 and data.draw(st.booleans()) else glue + glue.join(words[1:]))
    note(repr(text))
    parse_or_error(text, deck_of(ruleset))


@given(st.sampled_from(RULESETS), st.data())
def test_every_spelling_a_deck_accepts_reads_as_that_card(ruleset: str, data: st.DataObject) -> None:
    """Any spelling Deck.card accepts is the same card to parse_card, parse_move and parse_cards."""
    deck = deck_of(ruleset)
    text, _card = data.draw(st.sampled_from(spellings(ruleset)))
    text = data.draw(st.sampled_from([text, text.lower(), text.upper(), f"  {text} "]))
    try:
        expected = deck.card(text)
    except NotationError:
        assume(False)
    assert parse_card(text, deck) == expected
    assert parse_move(text, deck) == Move(expected, ())
    assert parse_cards(text, deck) == [expected]


@pytest.mark.parametrize("length", [MAX_LENGTH - 1, MAX_LENGTH, MAX_LENGTH + 1, 10**6])
@pytest.mark.parametrize("unit", ["7♦ ", "x", ",", " ", "🂡", "\u0301"])
def test_long_inputs_are_refused_or_read_quickly(length: int, unit: str) -> None:
    """Inputs around and far beyond the length limit raise NotationError (or parse), never more."""
    text = (unit * (length // len(unit) + 1))[:length]
    for parse in (parse_move, parse_card, parse_cards):
        try:
            parse(text, deck_of("sv"))
        except NotationError as error:
            assert_notation_error(error, text)
            if length > MAX_LENGTH:
                assert str(error).startswith(("move too long", "card too long", "list of cards too long"))


@given(st.text(min_size=1, max_size=MAX_LENGTH).filter(lambda t: t.strip()))
def test_parse_card_and_parse_cards_on_any_text(text: str) -> None:
    """parse_card and parse_cards raise nothing but NotationError, on any text up to the limit."""
    deck = deck_of("de-jokers")
    for parse in (parse_card, parse_cards):
        try:
            parse(text, deck)
        except NotationError as error:
            assert_notation_error(error, text)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6) | st.sampled_from(["7d", "3c", "X1", "Ss"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=10,
)
wire_moves = st.one_of(
    json_values,
    st.fixed_dictionaries({"card": json_values, "take": json_values}),
    st.fixed_dictionaries({"card": st.sampled_from(["7d", "3c", "Ss"]), "take": st.lists(json_values, max_size=4)}),
)


@given(st.sampled_from(RULESETS), wire_moves)
def test_wire_moves_of_any_shape_are_a_move_or_a_notation_error(ruleset: str, data: Any) -> None:
    """A protocol move of any JSON shape is a Move or a NotationError, nothing else."""
    try:
        move = move_from_wire(data, deck_of(ruleset))
    except NotationError as error:
        assert error.message.strip()
        return
    assert isinstance(move, Move) and move.card not in move.take


# --------------------------------------------------------------------------- decks with long names


def deck_with_names(suit_names: list[str], rank_names: list[str]) -> Deck:
    """The base deck with other suit and rank names: house rules may name cards as they like."""
    doc = escoba.load_ruleset("base").doc["deck"]
    suits = [dict(s, name=n) for s, n in zip(doc["suits"], suit_names)]
    ranks = [dict(r, name=n) for r, n in zip(doc["ranks"], rank_names)]
    return base_with(deck__suits=suits, deck__ranks=ranks).deck


name_words = st.lists(st.sampled_from(["Big", "Old", "King", "Gold", "Coins", "Cups", "Of", "La", "Reina", "Grand"]), min_size=1, max_size=3).map(" ".join)


@given(st.lists(name_words, min_size=4, max_size=4), st.lists(name_words, min_size=10, max_size=10), st.data())
def test_several_word_names_read_as_their_card(suit_names: list[str], rank_names: list[str], data: st.DataObject) -> None:
    """With several-word rank and suit names, every spelling Deck.card accepts parses to that card."""
    deck = deck_with_names(suit_names, rank_names)
    card = data.draw(st.sampled_from(list(deck.cards)), label="card")
    rank, suit = rank_names[deck.rank[card]], suit_names[deck.suit[card]]
    text = data.draw(st.sampled_from([f"{rank} {suit}", f"{rank} de {suit}", f"{rank} of {suit}"]), label="text")
    try:
        expected = deck.card(text)
    except NotationError:
        assume(False)  # two names that run into each other: the deck itself cannot tell them apart
    try:
        assert parse_move(text, deck) == Move(expected, ())
    except NotationError as error:
        assert_notation_error(error, text)


def test_a_five_word_card_name_parses() -> None:
    """'big old king of gold coins' (a rank and suit named in three and two words) is one card."""
    deck = deck_with_names(["Gold Coins", "Cups", "Swords", "Clubs"], ["As", "Dos", "Tres", "Cuatro", "Cinco", "Seis", "Siete", "Sota", "Caballo", "Big Old King"])
    king_of_gold = deck.card("rey oros")
    assert deck.card("big old king of gold coins") == king_of_gold
    assert parse_move("big old king of gold coins", deck) == Move(king_of_gold, ())
    assert parse_move("7 oros x big old king of gold coins", deck) == Move(deck.card("7 oros"), (king_of_gold,))


# --------------------------------------------------------------------------- moves on live hands


def hand_at(ruleset: str, players: int, seed: int, steps: int) -> Hand:
    """A seeded hand after `steps` random plays (or at its end)."""
    rules = escoba.load_ruleset(ruleset)
    hand = Hand(rules, players, seed % players, seed=seed)
    bot = random_bot(seed)
    for _ in range(steps):
        if hand.is_over:
            break
        hand.apply(bot(hand))
    return hand


@st.composite
def live_positions(draw: Any) -> Hand:
    ruleset = draw(st.sampled_from(RULESETS))
    players = draw(st.sampled_from(escoba.load_ruleset(ruleset).player_counts))
    return hand_at(ruleset, players, draw(st.integers(0, 10**6)), draw(st.integers(0, 40)))


def candidate_text(data: st.DataObject, hand: Hand) -> str:
    """Move text aimed at the edges: cards in the hand or not, on the table or not, right sums or not."""
    deck = hand.rules.deck
    seat = hand.to_play if hand.to_play is not None else 0
    held, table = hand.hands[seat], hand.table
    others = [c for c in deck.cards if c not in held and c not in table]
    pick = lambda pool: data.draw(st.sampled_from(pool or list(deck.cards)))
    card = pick(data.draw(st.sampled_from([held, held, others, table])))
    take = data.draw(st.lists(st.sampled_from(table or list(deck.cards)), max_size=5, unique=True), label="take")
    if data.draw(st.booleans()):
        take = take + data.draw(st.lists(st.sampled_from(list(deck.cards)), max_size=2), label="extra")
    legal = hand.legal_moves()
    if legal and data.draw(st.integers(0, 3)) == 0:
        chosen = data.draw(st.sampled_from(legal), label="legal")
        card, take = chosen.card, list(chosen.take)
    names = deck.code if data.draw(st.booleans()) else deck.text
    text = names[card] + (" x " + " ".join(names[c] for c in take) if take else "")
    if data.draw(st.integers(0, 4)) == 0:
        text = near_miss(data, text)
    return text


@given(live_positions(), st.data())
def test_a_parsed_move_on_a_live_hand_is_events_or_an_illegal_move(hand: Hand, data: st.DataObject) -> None:
    """Applying any parsed move gives events or IllegalMoveError, and a refused move changes nothing."""
    text = candidate_text(data, hand)
    note(f"{hand.rules.id}, seat {hand.to_play} holds {hand.rules.deck.texts(hand.hands[hand.to_play or 0])}, table {hand.rules.deck.texts(hand.table)}: {text!r}")
    move = parse_or_error(text, hand.rules.deck)
    if move is None:
        return
    before = json.dumps(hand.to_json())
    events_before = len(hand.events or [])
    legal = list(hand.legal_moves())
    try:
        events = hand.apply(move)
    except IllegalMoveError as error:
        assert move not in legal
        assert isinstance(error.reason, str) and error.reason.strip() and str(error) == error.reason
        assert json.dumps(hand.to_json()) == before
        assert len(hand.events or []) == events_before
        assert hand.legal_moves() == legal
        return
    assert move in legal
    assert events and events[0]["event"] == "play" and events[0]["seat"] in range(hand.players)
    assert json.dumps(hand.to_json()) != before


@given(st.sampled_from(RULESETS), st.integers(0, 10**6))
def test_a_finished_hand_refuses_every_move(ruleset: str, seed: int) -> None:
    """Once a hand is over, every move is an IllegalMoveError and the final state stays."""
    rules = escoba.load_ruleset(ruleset)
    hand = hand_at(ruleset, rules.player_counts[seed % len(rules.player_counts)], seed, 10**6)
    assert hand.is_over
    before = json.dumps(hand.to_json())
    card = random.Random(seed).choice(list(rules.deck.cards))
    with pytest.raises(IllegalMoveError, match="^the hand is over$"):
        hand.apply(Move(card, ()))
    assert json.dumps(hand.to_json()) == before
