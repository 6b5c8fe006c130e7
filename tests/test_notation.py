"""The human notation of cards and moves: what it reads, what it writes, and how it refuses."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import escoba
from escoba.errors import NotationError
from escoba.game.moves import Move
from escoba.notation import (
    MAX_LENGTH,
    format_card,
    format_move,
    move_from_wire,
    move_to_wire,
    parse_card,
    parse_cards,
    parse_move,
)
from escoba.rules import bundled_ids


@pytest.fixture(scope="module")
def sv():
    return escoba.load_ruleset("sv").deck


def c(deck, text: str) -> int:
    return deck.card(text)


# --------------------------------------------------------------------------- reading


@pytest.mark.parametrize(
    "text, card, take",
    [
        ("7♦ x 3♣ 5♥", "7♦", ["3♣", "5♥"]),
        ("7♦", "7♦", []),
        ("7d x 3c 5h", "7♦", ["3♣", "5♥"]),
        ("7D X 3C 5H", "7♦", ["3♣", "5♥"]),
        ("7♦ × 3♣ 5♥", "7♦", ["3♣", "5♥"]),
        ("7♦ x 3♣, 5♥", "7♦", ["3♣", "5♥"]),
        ("  7♦   x  3♣\t5♥  ", "7♦", ["3♣", "5♥"]),
        # the Swedish text's French-deck letters: Kn 8, D 9, K 10, E ace
        ("4♣ x Kn♠ 2♦ E♥", "4♣", ["S♠", "2♦", "1♥"]),
        ("D♣ x 6♠", "C♣", ["6♠"]),
        ("K♥", "R♥", []),
        # Spanish letters and English ones
        ("S♦ x C♠", "S♦", ["C♠"]),
        ("R♣ x A♦ J♥", "R♣", ["1♦", "S♥"]),
        ("Q♠ x 6♣", "C♠", ["6♣"]),
        # words: a card of several words is split from its neighbours by the deck
        ("7 oros", "7♦", []),
        ("7 oros x 3 bastos 5 copas", "7♦", ["3♣", "5♥"]),
        ("sota de bastos x 7 oros", "S♣", ["7♦"]),
        ("7 ♦ x 3 ♣", "7♦", ["3♣"]),
    ],
)
def test_moves_read_as_the_texts_write_them(sv, text, card, take):
    """Symbols, ASCII, the texts' letters and Spanish words all read to the same move."""
    assert parse_move(text, sv) == Move(c(sv, card), tuple(sorted(c(sv, t) for t in take)))


def test_taken_cards_come_back_in_deck_order(sv):
    """The engine lists captures in deck order; a parsed move is equal to the engine's."""
    assert parse_move("7♦ x 3♣ 5♥", sv) == parse_move("7♦ x 5♥ 3♣", sv)
    assert format_move(parse_move("7♦ x 3♣ 5♥", sv), sv) == "7♦ x 5♥ 3♣"


def test_jokers_are_cards_where_the_deck_has_them():
    """X1 and X2 exist in de-jokers, and 'x1' is a joker, not the 'x' of a capture."""
    deck = escoba.load_ruleset("de-jokers").deck
    assert parse_move("X1 x 7♦ 3♣", deck) == Move(c(deck, "X1"), tuple(sorted([c(deck, "7♦"), c(deck, "3♣")])))
    assert parse_move("7♦ x x1", deck) == Move(c(deck, "7♦"), (c(deck, "X1"),))


def test_parse_card_and_parse_cards(sv):
    """One card, or a list of them in the order written."""
    assert parse_card("Kn♠", sv) == c(sv, "S♠")
    assert parse_card("7 oros", sv) == c(sv, "7♦")
    assert parse_cards("3♣ 5♥ Kn♠ 2♦", sv) == [c(sv, t) for t in ("3♣", "5♥", "S♠", "2♦")]
    assert parse_cards("", sv) == []


def test_a_card_may_be_named_in_many_words():
    """A house deck's long names ('Big Old King of Gold Coins') are one card, not a cap of words."""
    from rulebook import base_with

    doc = escoba.load_ruleset("base").doc["deck"]
    suits = [dict(s, name=n) for s, n in zip(doc["suits"], ["Gold Coins", "Cups", "Swords", "Clubs"])]
    ranks = [dict(r) for r in doc["ranks"]]
    ranks[9]["name"] = "Big Old King"
    deck = base_with(deck__suits=suits, deck__ranks=ranks).deck
    king = deck.card("rey oros")
    assert parse_move("7 oros x big old king of gold coins", deck) == Move(deck.card("7♦"), (king,))


def test_a_compiled_ruleset_can_stand_for_its_deck():
    """Callers holding `Rules` need not dig out `.deck`."""
    rules = escoba.load_ruleset("base")
    assert parse_move("7d x 3c 5h", rules) == parse_move("7d x 3c 5h", rules.deck)


# --------------------------------------------------------------------------- refusing


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty move"),
        ("   ", "empty move\n       \n    ^"),
        ("Z♦", "unknown card 'Z♦'\n    Z♦\n    ^"),
        ("7♦ x Z♦", "unknown card 'Z♦'\n    7♦ x Z♦\n         ^"),
        ("7 Zoros x 3♣", "unknown card '7 Zoros'\n    7 Zoros x 3♣\n    ^"),
        (
            "8♦",
            "unknown card '8♦' (the Spanish deck has no 8, 9 or 10: sota, caballo and rey count 8, 9, 10)"
            "\n    8♦\n    ^",
        ),
        ("7♦ x 3♣ 3c", "3♣ is named twice\n    7♦ x 3♣ 3c\n            ^"),
        ("7♦ x 7d", "7♦ is named twice\n    7♦ x 7d\n         ^"),
        ("7♦ 3♣", "a move plays one card; write 'x' before the cards it takes\n    7♦ 3♣\n       ^"),
        ("7♦ x", "expected a card here\n    7♦ x\n        ^"),
        ("x 3♣", "expected the card played before 'x'\n    x 3♣\n    ^"),
        ("7♦ x x 3♣", "unexpected 'x', expected a card here\n    7♦ x x 3♣\n         ^"),
        ("7♦ x 3♣ x 5♥", "a move has one 'x'\n    7♦ x 3♣ x 5♥\n            ^"),
        ("7♦ x 3♣,, 5♥", "unexpected ',', expected a card here\n    7♦ x 3♣,, 5♥\n            ^"),
        ("7♦ x 3♣ ,", "expected a card here\n    7♦ x 3♣ ,\n             ^"),
        ("7♦x3♣", "unknown card '7♦x3♣'\n    7♦x3♣\n    ^"),
        ("X1", "unknown card 'X1'\n    X1\n    ^"),
        ("7♦\nx 3♣", "unexpected character '\\n'\n    7♦\ufffdx 3♣\n      ^"),
        ("\r", "empty move\n    \ufffd\n    ^"),
        ("7♦ x\tZ♦", "unknown card 'Z♦'\n    7♦ x\ufffdZ♦\n         ^"),
        ("7♦ " * 100, f"move too long: 300 characters, at most {MAX_LENGTH}"),
    ],
)
def test_bad_moves_are_refused_with_a_caret(sv, text, message):
    """Each refusal names the problem and points at its column."""
    with pytest.raises(NotationError) as info:
        parse_move(text, sv)
    assert str(info.value) == message


def test_the_error_carries_text_and_column(sv):
    """Tools that place their own caret get the raw column."""
    with pytest.raises(NotationError) as info:
        parse_move("7♦ x 3♣ Q♣ Zz", sv)
    assert (info.value.message, info.value.text, info.value.column) == ("unknown card 'Zz'", "7♦ x 3♣ Q♣ Zz", 11)


@pytest.mark.parametrize(
    "text, message",
    [
        ("7♦ x 3♣", "expected a single card, not a move\n    7♦ x 3♣\n       ^"),
        ("7♦ 5♥", "expected a single card\n    7♦ 5♥\n       ^"),
        ("", "empty card"),
    ],
)
def test_parse_card_wants_exactly_one(sv, text, message):
    """A move or two cards are not a card."""
    with pytest.raises(NotationError) as info:
        parse_card(text, sv)
    assert str(info.value) == message


def test_parse_cards_refuses_a_move_and_repeats(sv):
    """A list of cards has no 'x' and names each card once."""
    with pytest.raises(NotationError, match=r"^expected cards, not a move"):
        parse_cards("7♦ x 3♣", sv)
    with pytest.raises(NotationError, match=r"^3♣ is named twice"):
        parse_cards("3♣ 5♥ 3c", sv)


def test_a_non_string_is_refused(sv):
    """Data from JSON may be anything; only text is notation."""
    with pytest.raises(NotationError, match="a move is written as text, not int"):
        parse_move(7, sv)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- writing and round trips

RULESETS = bundled_ids()


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_card_of_every_ruleset_round_trips(ruleset):
    """format → parse gives the card back, in both the symbol and the ASCII form."""
    deck = escoba.load_ruleset(ruleset).deck
    for card in deck.cards:
        for ascii in (False, True):
            text = format_card(card, deck, ascii=ascii)
            assert parse_card(text, deck) == card
            assert parse_move(text, deck) == Move(card, ())


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_card_round_trips_inside_a_capture(ruleset):
    """Each card, played and taken beside others, reads back to the same move."""
    deck = escoba.load_ruleset(ruleset).deck
    cards = list(deck.cards)
    for i, card in enumerate(cards):
        take = tuple(sorted({cards[(i + k) % len(cards)] for k in (1, 7, 13)}))
        move = Move(card, take)
        for ascii in (False, True):
            assert parse_move(format_move(move, deck, ascii=ascii), deck) == move
        assert move_from_wire(move_to_wire(move, deck), deck) == move


def test_format_move(sv):
    """Canonical symbols by default, ASCII codes on request; a placement is the lone card."""
    move = parse_move("Kn♠ x E♥ 2♦", sv)
    assert format_move(move, sv) == "S♠ x 2♦ 1♥"
    assert format_move(move, sv, ascii=True) == "Ss x 2d 1h"
    assert format_move(parse_move("K♥", sv), sv) == "R♥"
    assert move_to_wire(move, sv) == {"card": "Ss", "take": ["2d", "1h"]}


@pytest.mark.parametrize(
    "data, message",
    [
        ({"card": "7d"}, "a move is an object with exactly the keys 'card' and 'take'"),
        ({"card": "7d", "take": "3c"}, "'take' must be a list of card codes"),
        ({"card": "7♦", "take": []}, "unknown card code '7♦'"),
        ({"card": "7d", "take": ["3c", "3c"]}, "a card is named twice in the move"),
    ],
)
def test_wire_moves_are_strict(sv, data, message):
    """On the wire only exact ASCII codes are cards."""
    with pytest.raises(NotationError) as info:
        move_from_wire(data, sv)
    assert str(info.value) == message


# --------------------------------------------------------------------------- properties

ALPHABET = st.sampled_from(list("7d3c5hx ×,♦♥♠♣KnESCRDAQJXo12 \t\n") + ["oros", "de", "sota", "x1"])


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(max_size=40), st.lists(ALPHABET, max_size=12).map("".join)))
def test_any_text_is_a_move_or_a_notation_error(text):
    """Arbitrary text never raises anything but NotationError, and a move read formats back."""
    deck = escoba.load_ruleset("sv").deck
    try:
        move = parse_move(text, deck)
    except NotationError as e:
        assert e.message
        assert e.column is None or 0 <= e.column <= len(text)
        return
    assert isinstance(move, Move) and move.card not in move.take
    assert parse_move(format_move(move, deck), deck) == move


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_random_moves_round_trip(data):
    """Any card with any set of other cards formats and parses back, in either form."""
    deck = escoba.load_ruleset(data.draw(st.sampled_from(["base", "de-jokers"]))).deck
    cards = data.draw(st.lists(st.sampled_from(list(deck.cards)), min_size=1, max_size=8, unique=True))
    move = Move(cards[0], tuple(sorted(cards[1:])))
    assert parse_move(format_move(move, deck, ascii=data.draw(st.booleans())), deck) == move


def test_the_plain_spelling_is_read_as_the_grammar_reads_it():
    """Moves written as escoba writes them (canonical or ASCII names, 'x', single spaces) are
    read by a lookup that gives the grammar's move for each, in every bundled deck; anything
    else (spacing, case, a card twice, a word the deck lacks) is left to the grammar."""
    import random

    from escoba.notation import _grammar_move, _plain_move

    rng = random.Random(7)
    for rid in bundled_ids():
        deck = escoba.load_ruleset(rid).deck
        for _ in range(60):
            card, *taken = rng.sample(range(len(deck.code)), rng.randint(1, 5))
            for ascii in (False, True):
                text = format_move((card, tuple(taken)), deck, ascii=ascii)
                assert _plain_move(text, deck) == _grammar_move(text, deck), (rid, text)
        code = deck.code[0]
        for other in (f" {code}", f"{code}  x {deck.code[1]}", f"{code} x", f"{code} x {code}", code.lower() + "?", f"{code} X {deck.code[1]}"):
            assert _plain_move(other, deck) is None, (rid, other)


# --------------------------------------------------------------------------- Hand.apply with text


def _capture_position() -> escoba.Hand:
    """A base hand whose first player has a capture to make (seed 1 deals one)."""
    rules = escoba.load_ruleset("base")
    for seed in range(50):
        hand = escoba.Hand(rules, players=2, dealer=0, seed=seed)
        if any(m.take for m in hand.legal_moves()):
            return hand
    raise AssertionError("no seed under 50 deals a capture")


def test_hand_apply_takes_the_terminals_notation():
    """`Hand.apply("7d x 3c 5h")` plays the move that text names, in ASCII or with suit symbols, as the Move itself does."""
    hand = _capture_position()
    move = next(m for m in hand.legal_moves() if m.take)
    deck = hand.rules.deck
    for text in (format_move(move, deck), format_move(move, deck, ascii=True)):
        again = hand.clone()
        assert again.apply(text) == hand.clone().apply(move)


def test_hand_apply_refuses_text_that_is_not_a_move_and_other_types():
    """Text that does not parse raises NotationError; a value that is neither a move nor text raises a TypeError naming the forms taken; the hand is unchanged."""
    hand = _capture_position()
    before = hand.to_json()
    with pytest.raises(NotationError, match="unknown card"):
        hand.apply("7z x 3c")
    with pytest.raises(TypeError, match=r"a move is a Move, a \(card, take\) pair of card indices, or the move's notation \('7♦ x 3♣ 5♥', '7d x 3c 5h'\), not int 7"):
        hand.apply(7)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not tuple"):
        hand.apply(("7d", ["3c"]))
    assert hand.to_json() == before
