"""Write the golden cases that the mutants showed missing: `python tests/engines/make_extra_cases.py`.

Each case is searched for among seeded bot games (the first seed whose game shows the rule
point), then written with `escoba.transcript.build.fill`, so `expect` is the reference engine's
own output and the pins (checked on every load) state the fact the case exists for. They wait in
tests/engines/extra_cases/ until the case author moves them into conformance/cases/rules/.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Callable

import escoba
from escoba.engine.bots import greedy_bot, random_bot
from escoba.engine.hand import shuffled_decks
from escoba.engine.match import Match
from escoba.notation import format_move
from escoba.transcript.build import dump_case, fill

OUT = Path(__file__).parent / "extra_cases"


def play_match(ruleset: str, players: int, target: int, seed: int) -> tuple[list[dict], list[dict]]:
    """A seeded match between greedy and random bots: its hands (decks, moves) and events."""
    rules = escoba.load_ruleset(ruleset)
    match = Match(rules, players, dealer=0, target=target, decks=shuffled_decks(rules, random.Random(seed)))
    bots = [(greedy_bot if seat % 2 == 0 else random_bot)(seed + seat) for seat in range(players)]
    hands = []
    while not match.is_over:
        hand = match.new_hand()
        moves = []
        while not hand.is_over:
            move = bots[hand.to_play](hand)
            moves.append(format_move(move, rules.deck, ascii=True))
            hand.apply(move)
        match.end_hand()
        hands.append({"decks": [[rules.deck.code[c] for c in d] for d in hand.deck_orders], "moves": moves})
    return hands, match.events


def first_match(ruleset: str, players: int, target: int, wanted: Callable[[list[dict], list[dict]], bool]):  # type: ignore[no-untyped-def]
    for seed in range(5000):
        hands, events = play_match(ruleset, players, target, seed)
        if wanted(hands, events):
            return seed, hands, events
    raise SystemExit(f"no seed gives the wanted {ruleset} match")


def case(case_id: str, title: str, ruleset: str, players: int, target: int | None, clause: str,
         hands: list[dict], pins: list[dict], notes: list[str]) -> dict:  # fmt: skip
    return {
        "format": 1, "id": case_id, "title": title, "notes": notes, "kind": "game", "ruleset": ruleset,
        "players": players, "dealer": 0, "target": target, "clause": clause, "audit": "hand",
        "pins": pins, "hands": hands, "expect": [],
    }  # fmt: skip


def build() -> list[dict]:
    cases = []
    for ruleset, seat in (("fr", 1), ("ru", 2)):  # fr passes the deal to the right, ru to the left
        seed, hands, events = first_match(ruleset, 3, 6, lambda h, e: len(h) >= 2)
        cases.append(case(
            f"match.next-dealer.{ruleset}.3p", f"{ruleset}, 3 players: the second hand is dealt by seat {seat}",
            ruleset, 3, 6, "turn.next_dealer", hands,
            [{"event": "hand_start", "dealer": seat}],
            [f"A seeded match (seed {seed}, greedy and random bots) long enough for a second deal. With three "
             "players the dealer's right and left neighbours differ, so an engine that passes the deal the "
             "wrong way deals hand 2 from the other seat."],
        ))  # fmt: skip

    def tie(h, e):  # type: ignore[no-untyped-def]
        return any(x["event"] == "tie" for x in e)

    seed, hands, events = first_match("sv", 2, 5, tie)
    cases.append(case(
        "match.exact-tie.extra-hand.sv", "sv: an exact tie over the target is played off with another hand",
        "sv", 2, 5, "match.tie", hands, [{"event": "tie", "sides": [0, 1]}],
        [f"Seed {seed}: both sides reach the target with the same total; the Swedish rules play another "
         "hand, so an engine that gives the win to one side (or stops) diverges at the tie."],
    ))  # fmt: skip
    seed, hands, events = first_match("tie-shared", 2, 5, lambda h, e: any(x["event"] == "match_end" and len(x["winners"]) == 2 for x in e))
    cases.append(case(
        "match.exact-tie.shared-win.tie-shared", "tie-shared: an exact tie over the target is a shared win",
        "tie-shared", 2, 5, "match.tie", hands, [{"event": "match_end", "winners": [0, 1]}],
        [f"Seed {seed}: both sides reach the target with the same total, and this house rule makes that a "
         "shared win; an engine that plays another hand, or names one winner, diverges at the match end."],
    ))  # fmt: skip

    def higher_second(h, e):  # type: ignore[no-untyped-def]
        end = e[-1]
        return end["event"] == "match_end" and end["winners"] == [1] and end["totals"][0] >= 5

    seed, hands, events = first_match("base", 2, 5, higher_second)
    cases.append(case(
        "match.several-reach.highest-wins.base", "base: both sides pass the target; the higher total wins",
        "base", 2, 5, "match.several_reach", hands, [{"event": "match_end", "winners": [1]}],
        [f"Seed {seed}: at the end of the last hand both sides are at or over the target and side 1 is "
         "higher; side 0 would win if the first side over the target (or the first listed) won."],
    ))  # fmt: skip

    return cases


def main() -> int:
    OUT.mkdir(exist_ok=True)
    for data in build():
        path = OUT / f"{data['id']}.json"
        path.write_text(dump_case(fill(data, path)), encoding="utf-8")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
