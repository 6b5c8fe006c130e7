"""The Swedish example game (spec/sources/001_fdc33b82cc9be8cc.txt): the text's facts, and the
search that filled in the four deals the text does not give move by move.

The text plays the first two deals card by card, then says only what happened in the rest:
"Senare i given tar Ada båda sjuorna, gör en egen escoba och fångar dessutom 7♣" (later in the
deal Ada takes both sevens, makes an escoba of her own and also captures 7♣), four more deals of
three cards each, and the final count: you 21 cards, Ada 19; coins five each; the velo yours;
Ada three sevens to your one; the hand 4–2 to you (cards, velo, two escobas against sevens and
one escoba); most coins tied, to nobody.

`search()` deals the 24 cards the text leaves unnamed into the four remaining deals and picks
legal moves (depth first, seeded, with every fact that can fail early pruned early) until every
fact holds. `check_facts()` asserts each fact on an event stream; the golden case
`conformance/cases/text/sv.example-game.json` was made from `search()`'s result, and the tests
check it with `check_facts()`, so the fill-in is verified fact by fact, not trusted.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from escoba.engine.arrange import arrange_deck
from escoba.engine.hand import Hand
from escoba.game.moves import Move

YOU, ADA = 0, 1
PLAYERS, DEALER = 2, ADA

# "Ada vänder upp fyra kort — 3♣, 5♥, Kn♠ och 2♦ — och delar ut tre till var och en."
TABLE = ("3♣", "5♥", "Kn♠", "2♦")
ROUNDS = (
    # "Du har 7♦, K♥ och 4♣. Ada har 6♠, E♥ och D♣."
    (("7♦", "K♥", "4♣"), ("6♠", "E♥", "D♣")),
    # "du får 5♣, 7♠ och 2♥; Ada får 7♥, 4♦ och D♦"
    (("5♣", "7♠", "2♥"), ("7♥", "4♦", "D♦")),
)
MOVES = (
    "7♦ x 3♣ 5♥",  # "Du spelar 7♦ och tar 3♣ och 5♥"
    "E♥",  # "Hon lägger E♥"
    "4♣ x Kn♠ 2♦ E♥",  # "Du spelar 4♣ och tar Kn♠, 2♦ och E♥ … Det är en escoba"
    "6♠",  # "Ada måste lägga ett kort på det tomma bordet och lägger 6♠."
    "K♥",  # "Din K♥ behöver en femma och det finns ingen, så den hamnar också på bordet"
    "D♣ x 6♠",  # "Adas D♣, värd 9, tar 6♠, och K♥ blir ensam kvar"
    "5♣ x K♥",  # "5♣ med K♥ blir femton: andra escoban."
    "4♦",  # "Ada lägger 4♦ på det tomma bordet."
    "7♠",  # "Du lägger 7♠."
    "7♥",  # "Ada kan inte heller bli femton och lägger 7♥"
    "2♥",  # "Du lägger 2♥"
    "D♦ x 4♦ 2♥",  # "Adas D♦ tar 4♦ och 2♥ — två mynt till henne."
)
LATER_DEALS = 4  # "Fyra omgångar till om tre kort delas ut innan leken tar slut."


@dataclass(frozen=True)
class FillIn:
    deck: list[int]  # the whole deck order
    rounds: list[tuple[list[int], list[int]]]  # deals 3 to 6: (yours, Ada's)
    moves: list[Move]  # every move of the hand, the text's twelve first


def _rules():
    import escoba

    return escoba.load_ruleset("sv")


def _cards(rules, texts: Sequence[str]) -> list[int]:
    return [rules.deck.card(t) for t in texts]


def text_moves(rules) -> list[Move]:
    from escoba.notation import parse_move

    return [parse_move(m, rules.deck) for m in MOVES]


def remaining_cards(rules) -> list[int]:
    """The 24 cards the text never names, in deck order."""
    named = set(_cards(rules, TABLE)) | {c for r in ROUNDS for hand in r for c in _cards(rules, hand)}
    return [c for c in rules.deck.cards if c not in named]


def deck_order(rules, later: Sequence[tuple[Sequence[int], Sequence[int]]]) -> list[int]:
    rounds = [[list(_cards(rules, you)), list(_cards(rules, ada))] for you, ada in ROUNDS]
    rounds += [[list(you), list(ada)] for you, ada in later]
    return arrange_deck(rules, PLAYERS, DEALER, list(TABLE), rounds)


# --------------------------------------------------------------------------- the facts


def check_facts(rules, events: Sequence[dict]) -> None:
    """Assert every fact the text states about the whole hand on its event stream."""
    deck = rules.deck
    code = {c: i for i, c in enumerate(deck.code)}
    plays = [e for e in events if e["event"] == "play"]
    escobas = [(i, e) for i, e in enumerate(events) if e["event"] == "escoba"]
    scores = {e["category"]: e for e in events if e["event"] == "score"}
    end = next(e for e in events if e["event"] == "hand_end")

    def t(c: str) -> str:
        return deck.text[code[c]]

    # "Fyra omgångar till om tre kort delas ut": six deals of three cards each in all
    deals = [e for e in events if e["event"] == "deal"]
    assert len(deals) == 2 + LATER_DEALS, f"{len(deals)} deals"
    assert all(len(h) == 3 for e in deals for h in e["hands"])
    # The two escobas of the first two deals are yours; "gör en egen escoba": Ada one later;
    # "Med escobas slutar given 4–2": no further escoba for you.
    assert [e["seat"] for _, e in escobas] == [YOU, YOU, ADA], escobas
    assert all(e["scores"] for _, e in escobas)
    # "Senare i given tar Ada båda sjuorna … och fångar dessutom 7♣": captures of hers, later
    later = plays[len(MOVES):]
    taken_by_ada = [c for p in later if p["seat"] == ADA and p["take"] for c in (p["card"], *p["take"])]
    for seven in ("7♠", "7♥", "7♣"):
        assert deck.code[deck.card(seven)] in taken_by_ada, f"Ada does not capture {seven}"
    assert events[escobas[2][0] - 1]["event"] == "play"
    # "Till sist har du 21 kort mot Adas 19"
    assert end["cards"] == [21, 19], end
    # "mynten står fem mot fem"; "flest mynt är delat och går till ingen"
    assert scores["coins"]["measures"] == [5, 5] and scores["coins"]["points"] == [0, 0]
    # "velo är din"
    assert scores["velo"]["measures"] == [True, False] and scores["velo"]["points"] == [1, 0]
    # "Ada har tre sjuor mot din en"; "flest sjuor är Adas"
    assert scores["sevens"]["measures"] == [1, 3] and scores["sevens"]["points"] == [0, 1]
    # "Flest kort och velo är dina två poäng"
    assert scores["cards"]["measures"] == [21, 19] and scores["cards"]["points"] == [1, 0]
    assert scores["escobas"]["measures"] == [2, 1] and scores["escobas"]["points"] == [2, 1]
    # "Med escobas slutar given 4–2 till dig."
    assert end["points"] == [4, 2], end
    assert set(scores) == {"escobas", "cards", "coins", "velo", "sevens"}, "sv has no primera"
    assert t(plays[0]["card"]) == "7♦"


# --------------------------------------------------------------------------- the search


class _Search:
    def __init__(self, rules, order: list[int], rng: random.Random, budget: int):
        self.rules, self.order, self.rng, self.budget = rules, order, rng, budget
        deck = rules.deck
        self.coins = {c for c in deck.cards if deck.suit[c] == deck.scoring_suit}
        self.ada_sevens = set(_cards(rules, ("7♠", "7♥", "7♣")))
        self.table_sevens = set(_cards(rules, ("7♠", "7♥")))
        self.nodes = 0

    def bad(self, hand: Hand, move: Move, seat: int) -> bool:
        """A move that makes some fact impossible, whatever follows."""
        taken = {move.card, *move.take} if move.take else set()
        if seat == YOU and taken & self.ada_sevens:
            return True
        # A preference, not a fact: "tar Ada båda sjuorna" right after "vilket ess som helst
        # tömmer det" reads most naturally as one capture of the two sevens on the table.
        if len(taken & self.table_sevens) == 1:
            return True
        if move.take and len(move.take) == len(hand.table):  # an escoba
            return seat == YOU or hand.escobas[ADA] >= 1
        return False

    def ok_so_far(self, hand: Hand) -> bool:
        you, ada = hand.piles
        return (
            len(you) <= 21
            and len(ada) <= 19
            and len(self.coins.intersection(you)) <= 5
            and len(self.coins.intersection(ada)) <= 5
        )

    def done(self, hand: Hand) -> bool:
        you, ada = hand.piles
        return (
            [len(you), len(ada)] == [21, 19]
            and len(self.coins.intersection(you)) == 5
            and hand.escobas == [2, 1]
            and self.ada_sevens <= set(ada)
            and hand.points == [4, 2]
        )

    def facts_hold(self, line: list[Move]) -> bool:
        fill = FillIn(self.order, [], text_moves(self.rules) + line)
        try:
            check_facts(self.rules, replay(fill))
        except AssertionError:
            return False
        return True

    def dfs(self, hand: Hand, line: list[Move]) -> list[Move] | None:
        self.nodes += 1
        if self.nodes > self.budget:
            return None
        if hand.is_over:
            return line if self.done(hand) and self.facts_hold(line) else None
        seat = hand.to_play
        assert seat is not None
        moves = [m for m in hand.legal_moves() if not self.bad(hand, m, seat)]
        self.rng.shuffle(moves)
        snapshot = hand.to_json()
        for move in moves:
            child = Hand.from_json(self.rules, snapshot, record=False)
            child.apply(move)
            if self.ok_so_far(child):
                found = self.dfs(child, line + [move])
                if found is not None:
                    return found
        return None


def search(seed: int = 1, tries: int = 500, budget: int = 20_000) -> FillIn:
    """Deal the 24 unnamed cards and play them out until every fact of the text holds."""
    rules = _rules()
    rng = random.Random(seed)
    rest = remaining_cards(rules)
    for _ in range(tries):
        cards = list(rest)
        rng.shuffle(cards)
        later = [(cards[6 * k : 6 * k + 3], cards[6 * k + 3 : 6 * k + 6]) for k in range(LATER_DEALS)]
        order = deck_order(rules, later)
        hand = Hand(rules, PLAYERS, DEALER, [order], record=False)
        for move in text_moves(rules):
            hand.apply(move)
        line = _Search(rules, order, rng, budget).dfs(hand, [])
        if line is not None:
            fill = FillIn(order, [(list(a), list(b)) for a, b in later], text_moves(rules) + line)
            check_facts(rules, replay(fill))
            return fill
    raise RuntimeError(f"no fill-in found in {tries} deals")


def replay(fill: FillIn) -> list[dict]:
    rules = _rules()
    hand = Hand(rules, PLAYERS, DEALER, [fill.deck])
    for move in fill.moves:
        hand.apply(move)
    assert hand.events is not None
    return hand.events


if __name__ == "__main__":  # prints the fill-in, for a person to read
    from escoba.notation import format_move

    found = search()
    sv = _rules()
    for k, (you, ada) in enumerate(found.rounds, start=3):
        print(f"deal {k}: you {' '.join(sv.deck.text[c] for c in you)}; Ada {' '.join(sv.deck.text[c] for c in ada)}")
    print(", ".join(format_move(m, sv.deck) for m in found.moves[len(MOVES):]))
