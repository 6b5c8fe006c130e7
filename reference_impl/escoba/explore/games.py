"""Seeded games biased toward what random play rarely reaches, written as case data.

Random play finds the common rules at once and the rare ones hardly ever: an opening table
that makes the target, a capture that sweeps on the last play, a tie for most coins, a hand in
which nobody captures. So each game here picks, from its seed,

- a **deal**: a shuffled deck, or one whose table is arranged (`arrange_deck`) to be a table an
  opening rule acts on: the whole table making the target, twice the target split in two or
  not, a part of it making the target;
- a **style** of play for each seat: `random`, `greedy`, `sweeper` (takes a sweep when one is
  offered, a capture otherwise), `placer` (places whenever the rules allow: with optional
  capture nobody may capture at all), `leveller` (captures when behind in cards and places when
  ahead, so that piles, and the categories counted on them, end level).
  Every style prefers a sweep on the hand's last play.

The game is played by the reference engine and written as a case (`case_data`), whose
expected events `escoba.transcript.build.fill` computes like any other case's.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from escoba.engine.arrange import arrange_deck
from escoba.engine.bots import greedy_bot
from escoba.engine.hand import Hand, shuffled_decks
from escoba.engine.match import Match
from escoba.errors import EscobaError
from escoba.game.moves import Move
from escoba.rules.compile import Rules
from escoba.transcript.case import FORMAT

STYLES = ("random", "greedy", "sweeper", "placer", "leveller")
DEALS = ("shuffled", "opening-whole", "opening-split", "opening-no-split", "opening-part")
MAX_HANDS = 12  # a match case holds at most 16 hands; a short target ends long before this
MAX_TRIES = 2000  # random tables drawn to find one of an opening kind

Bot = Callable[[Hand], Move]


@dataclass(frozen=True)
class Setup:
    """Everything a game depends on besides the rules: the table, the deal and the players' styles."""

    players: int
    dealer: int
    target: int | None  # None: a single hand; 0: a match whose target is chosen to end it in a tie
    deal: str  # one of DEALS
    styles: tuple[str, ...]  # one per seat
    seed: int

    def describe(self) -> str:
        if self.target is None:
            match = "a hand"
        elif self.target == TIE:
            match = "a match whose target is the first total two sides share"
        elif self.target == LATER:
            match = "a match whose target a second hand or a later one reaches"
        else:
            match = f"a match to {self.target}"
        deal = "a shuffled deck" if self.deal == "shuffled" else f"a deck arranged for an {self.deal.replace('-', ' ')} table"
        return f"{match} at {self.players} players, dealer {self.dealer}, {deal}; styles {', '.join(self.styles)}"


# Setup.target values that choose the target once hands are played: where two sides first
# share the top total (an exact tie over the target), or where a later hand first raises the
# top total (a match of two hands or more, as short as that allows).
TIE = 0
LATER = -1


def random_setup(rules: Rules, rng: random.Random, players: Sequence[int], matches: bool, styles: Sequence[str] = STYLES) -> Setup:
    """A setup drawn from `rng`: one of `players`; a match three times in ten (its target chosen
    where two sides tie, or where a later hand reaches it, or a short one); an arranged deal two
    times in five."""
    count = rng.choice(list(players))
    target = None
    if matches and rng.random() < 0.3:
        target = rng.choice((TIE, LATER, rng.choice((1, 2, 3, 4, 5, 6))))
    deal = "shuffled" if rng.random() < 0.6 else rng.choice(DEALS[1:])
    chosen = tuple(rng.choice(list(styles)) for _ in range(count))
    return Setup(count, rng.randrange(count), target, deal, chosen, rng.randrange(1 << 31))


# ---------------------------------------------------------------------------------- play
def _sweeps(hand: Hand, move: Move) -> bool:
    return bool(move.take) and len(move.take) == len(hand.table)


def _last_play(hand: Hand) -> bool:
    return not hand.stock and sum(len(h) for h in hand.hands) == 1


def chooser(style: str, seed: int) -> Bot:
    """A seeded player of one style (see the module's docstring)."""
    rng = random.Random(seed)
    greedy = greedy_bot(seed)

    def play(hand: Hand) -> Move:
        moves = hand.legal_moves()
        sweeps = [m for m in moves if _sweeps(hand, m)]
        if sweeps and (_last_play(hand) or style == "sweeper"):
            return rng.choice(sweeps)
        captures = [m for m in moves if m.take]
        places = [m for m in moves if not m.take]
        if style == "greedy":
            return greedy(hand)
        if style == "sweeper":
            return rng.choice(captures or moves)
        if style == "placer":
            return rng.choice(places or moves)
        if style == "leveller":
            assert hand.to_play is not None
            mine = len(hand.piles[hand.side_of[hand.to_play]])
            ahead = mine > min(len(p) for p in hand.piles)
            pool = (places if ahead else captures) or moves
            return rng.choice(pool) if ahead else max(pool, key=lambda m: (len(m.take), rng.random()))
        return rng.choice(moves)

    return play


def deck_orders(rules: Rules, setup: Setup) -> Iterator[list[int]]:
    """The deck orders of a game: the first as the setup's deal says, then shuffled ones."""
    rng = random.Random(setup.seed)
    if setup.deal != "shuffled":
        table = opening_table(rules, setup.deal, rng)
        if table is not None:
            rest = [c for c in rules.deck.cards if c not in table]
            rng.shuffle(rest)
            size = rules.hand_size
            first_round = [rest[seat * size : (seat + 1) * size] for seat in range(setup.players)]
            yield arrange_deck(rules, setup.players, setup.dealer, table, [first_round], rest[setup.players * size :])
    yield from shuffled_decks(rules, rng)


def opening_table(rules: Rules, kind: str, rng: random.Random) -> list[int] | None:
    """A table of `rules.table_size` cards of one opening kind, or None if none turns up."""
    finder, size = rules.finder, rules.table_size
    cards = list(rules.deck.cards)
    if size < 1 or size > len(cards):
        return None
    for _ in range(MAX_TRIES):
        table = rng.sample(cards, size)
        one, two = finder.split_groups(table, 1), finder.split_groups(table, 2)
        if (
            (kind == "opening-whole" and one == 1)
            or (kind == "opening-split" and two >= 2)
            or (kind == "opening-no-split" and not two and rules.target is not None
                and sum(rules.deck.value[c] for c in table) == 2 * rules.target)
            or (kind == "opening-part" and not two and finder.any_combination(table))
        ):
            return table
    return None


@dataclass
class Game:
    """A game played out: each hand's deck orders and moves, as a case holds them."""

    setup: Setup
    hands: list[dict]


def play_game(rules: Rules, setup: Setup, decks: Iterator[list[int]] | None = None) -> Game | None:
    """Play `setup` with the reference engine; None when the deal cannot be played out (an
    opening table redealt without end, a match that does not end within MAX_HANDS)."""
    seats = [chooser(style, setup.seed + 7919 * (seat + 1)) for seat, style in enumerate(setup.styles)]
    decks = deck_orders(rules, setup) if decks is None else decks
    try:
        if setup.target is None:
            hand = Hand(rules, setup.players, setup.dealer, decks, record=False)
            return Game(setup, [_play_hand(hand, seats)])
        target: int | None = setup.target
        played: list[dict] = []
        if target in (TIE, LATER):
            target, played = _sought_target(rules, setup, decks, seats)
        if target is None:
            return None
        code = {c: i for i, c in enumerate(rules.deck.code)}
        again = (order for spec in played for order in ([code[c] for c in o] for o in spec["decks"]))
        match = Match(rules, setup.players, dealer=setup.dealer, target=target, decks=chain(again, decks), record=False)
        hands: list[dict] = []
        while not match.is_over:
            if len(hands) >= MAX_HANDS:
                return None
            hand = match.new_hand()
            replayed = played[len(hands)]["moves"] if len(hands) < len(played) else None
            hands.append(_play_hand(hand, seats, replayed))
            match.end_hand()
    except EscobaError:
        return None
    return Game(Setup(setup.players, setup.dealer, target, setup.deal, setup.styles, setup.seed), hands)


def _play_hand(hand: Hand, seats: Sequence[Bot], moves: Sequence[str] | None = None) -> dict:
    """Play a hand out (with `moves` as written, if given): its deck orders and moves."""
    from escoba.notation import format_move, parse_move

    deck = hand.rules.deck
    played: list[str] = []
    while not hand.is_over:
        assert hand.to_play is not None
        move = parse_move(moves[len(played)], deck) if moves is not None else seats[hand.to_play](hand)
        played.append(format_move(move, deck))
        hand.apply(move)
    return {"decks": [[deck.code[c] for c in order] for order in hand.deck_orders], "moves": played}


def _sought_target(rules: Rules, setup: Setup, decks: Iterator[list[int]], seats: Sequence[Bot]) -> tuple[int | None, list[dict]]:
    """Play hands until the totals give the target `setup.target` asks for (TIE: two sides share
    the top total and nobody had it before; LATER: a hand after the first raises the top
    total). The hands played, to be played again in the match."""
    endless = Match(rules, setup.players, dealer=setup.dealer, target=1 << 30, decks=decks, record=False)
    played: list[dict] = []
    best_before = 0
    for _ in range(MAX_HANDS):
        played.append(_play_hand(endless.new_hand(), seats))
        endless.end_hand()
        totals = sorted(endless.totals, reverse=True)
        tied = len(totals) > 1 and totals[0] == totals[1]
        if totals[0] > best_before and (tied if setup.target == TIE else len(played) > 1):
            return totals[0], played
        best_before = max(best_before, totals[0])
    return None, played


def chain(*parts: Iterable[list[int]]) -> Iterator[list[int]]:
    """Deck orders from each part in turn."""
    for part in parts:
        yield from part


def case_data(game: Game, case_id: str, ruleset: str, title: str, notes: Sequence[str] = ()) -> dict[str, Any]:
    """The case of a game, `expect` not yet filled (`escoba.transcript.build.fill` does that)."""
    setup = game.setup
    return {
        "format": FORMAT, "id": case_id, "title": title, "notes": list(notes), "kind": "game", "ruleset": ruleset,
        "players": setup.players, "dealer": setup.dealer, "target": setup.target, "clause": "game",
        "audit": "generated", "generator": {"seed": setup.seed, "bots": list(setup.styles)}, "pins": [], "hands": game.hands,
    }  # fmt: skip


# ---------------------------------------------------------------------------------- probes
def illegal_moves(hand: Hand) -> dict[str, Any]:
    """One move per refusal class the position allows (docs/protocol.md, "Errors"): notation,
    or a wire object for `malformed`. Each is what `probe_reason` calls it."""
    from escoba.notation import format_move
    from escoba.transcript.record import probe_reason

    deck, rules = hand.rules.deck, hand.rules
    found: dict[str, Any] = {"malformed": {"card": "??", "take": []}}
    if hand.is_over:
        found["hand_over"] = format_move(Move(hand.deck_orders[-1][0], ()), deck)
        return found
    seat = hand.to_play
    assert seat is not None
    held = sorted(hand.hands[seat])
    elsewhere = sorted(c for s, h in enumerate(hand.hands) if s != seat for c in h) + list(hand.stock)
    tries: dict[str, Move | None] = {
        "not_in_hand": Move(elsewhere[0], ()) if elsewhere else None,
        "not_on_table": Move(held[0], (elsewhere[0],)) if held and elsewhere else None,
        "wrong_sum": next((Move(c, (t,)) for c in held for t in sorted(hand.table) if not rules.finder.makes_target((c, t))), None),
        "compulsory": next((Move(c, ()) for c in held if Move(c, ()) not in hand.legal_moves()), None),
    }
    for reason, move in tries.items():
        if move is not None:
            text = format_move(move, deck)
            if probe_reason(hand, text)[0] == reason:
                found[reason] = text
    return found
