"""The Swedish example game (seeds/001), first two deals, replayed from the text under `sv`.

Each step quotes the sentence of the text it checks. The text names the cards in the French
deck: ♦ is coins, Kn = sota (8), D = caballo (9), K = rey (10), E = ace.
"""

from __future__ import annotations

import pytest

import escoba
from escoba.engine.arrange import arrange_deck
from escoba.engine.hand import Hand
from rulebook import move

YOU, ADA = 0, 1


@pytest.fixture
def game():
    rules = escoba.load_ruleset("sv")
    # "Ada vänder upp fyra kort — 3♣, 5♥, Kn♠ och 2♦ — och delar ut tre till var och en."
    order = arrange_deck(
        rules,
        players=2,
        dealer=ADA,
        table=["3♣", "5♥", "Kn♠", "2♦"],
        rounds=[
            [["7♦", "K♥", "4♣"], ["6♠", "E♥", "D♣"]],  # "Du har 7♦, K♥ och 4♣. Ada har 6♠, E♥ och D♣."
            [["5♣", "7♠", "2♥"], ["7♥", "4♦", "D♦"]],  # "du får 5♣, 7♠ och 2♥; Ada får 7♥, 4♦ och D♦"
        ],
    )
    return rules, Hand(rules, 2, ADA, [order])


def texts(rules, cards):
    return sorted(rules.deck.text[c] for c in cards)


def moves_of(rules, hand):
    return sorted(
        rules.deck.text[m.card] + (" x " + " ".join(rules.deck.text[c] for c in m.take) if m.take else "")
        for m in hand.legal_moves()
    )


def test_first_deal(game):
    """Deal one: no dealer escoba on 18; you lead; 7♦ takes 3♣ 5♥; 4♣ sweeps; D♣ takes 6♠."""
    rules, hand = game
    # "bordet blir 18, inte femton: ingen escoba för givaren"
    assert not [e for e in hand.events if e["event"] == "opening"]
    # "Spelaren till vänster om givaren börjar, och det är du."
    assert hand.to_play == YOU
    # "K♥ med 5♥, 4♣ med 3♣ och Kn♠, 7♦ med Kn♠ eller med 3♣ och 5♥" — the text's list of
    # "several ways" is not complete: K♥ also takes 2♦ and 3♣ (10 + 2 + 3 = 15).
    assert moves_of(rules, hand) == sorted(["R♥ x 5♥", "R♥ x 2♦ 3♣", "4♣ x S♠ 3♣", "7♦ x S♠", "7♦ x 5♥ 3♣"])
    hand.apply(move(rules, "7♦ x 3♣ 5♥"))
    # "Ada kan inte bli femton med något. Hon lägger E♥"
    assert all(not m.take for m in hand.legal_moves())
    hand.apply(move(rules, "E♥"))
    # "Du spelar 4♣ och tar Kn♠, 2♦ och E♥ … Det är en escoba"
    events = hand.apply(move(rules, "4♣ x Kn♠ 2♦ E♥"))
    assert {"event": "escoba", "seat": YOU, "side": YOU, "scores": True} in events
    # "Ada måste lägga ett kort på det tomma bordet och lägger 6♠."
    hand.apply(move(rules, "6♠"))
    # "Din K♥ behöver en femma och det finns ingen, så den hamnar också på bordet"
    assert moves_of(rules, hand) == ["R♥"]
    hand.apply(move(rules, "K♥"))
    # "Adas D♣, värd 9, tar 6♠, och K♥ blir ensam kvar"
    hand.apply(move(rules, "D♣ x 6♠"))
    assert texts(rules, hand.table) == ["R♥"]
    assert hand.escobas == [1, 0]


def test_second_deal(game):
    """Deal two: 5♣ sweeps K♥; 4♦, 7♠, 7♥, 2♥ placed; D♦ takes 4♦ 2♥; 7♠ 7♥ remain."""
    rules, hand = game
    for text in ("7♦ x 3♣ 5♥", "E♥", "4♣ x Kn♠ 2♦ E♥", "6♠", "K♥", "D♣ x 6♠"):
        hand.apply(move(rules, text))
    # "Nya händer om tre … Du spelar först, och 5♣ med K♥ blir femton: andra escoban."
    assert hand.to_play == YOU
    events = hand.apply(move(rules, "5♣ x K♥"))
    assert [e["event"] for e in events] == ["play", "escoba"]
    hand.apply(move(rules, "4♦"))  # "Ada lägger 4♦ på det tomma bordet."
    # "Inget av dina kort kan ta den, så du måste lägga ett."
    assert all(not m.take for m in hand.legal_moves())
    hand.apply(move(rules, "7♠"))
    hand.apply(move(rules, "7♥"))  # "Ada kan inte heller bli femton och lägger 7♥"
    hand.apply(move(rules, "2♥"))
    hand.apply(move(rules, "D♦ x 4♦ 2♥"))  # "Adas D♦ tar 4♦ och 2♥ — två mynt till henne."
    # "På bordet ligger 7♠ och 7♥, fjorton"
    assert texts(rules, hand.table) == ["7♠", "7♥"]
    assert hand.escobas == [2, 0]
    you, ada = hand.piles
    assert texts(rules, you) == sorted(["7♦", "3♣", "5♥", "4♣", "S♠", "2♦", "1♥", "5♣", "R♥"])
    assert texts(rules, ada) == sorted(["C♣", "6♠", "C♦", "4♦", "2♥"])
