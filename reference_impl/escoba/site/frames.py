"""A golden case's event stream as the steps of the game viewer.

The viewer shows the game the way the events tell it, not the way an engine would replay it:
each step is the position after a group of events (the deal, one play with its escoba, the
leftovers, the scoring). Nothing here knows a rule; it only moves the cards the events name.
tests/test_site.py checks the positions against the reference engine's own state.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

# Events that open a new step; the others join the step before them.
_STEP_STARTS = {"hand_start", "deal", "legal", "play", "leftovers", "score", "tie", "match_end"}
_KNOWN = {"hand_start", "table", "deal", "opening", "declaration", "legal", "play", "escoba", "leftovers", "score",
          "hand_end", "totals", "tie", "match_end"}  # fmt: skip
# Within a step these may follow each other without opening another one.
_JOINS = {
    "hand_start": {"table", "deal", "opening", "declaration"},
    "deal": {"table", "opening", "declaration"},
    "legal": {"play", "escoba"},
    "play": {"escoba"},
    "score": {"score", "hand_end", "totals", "tie", "match_end"},
    "leftovers": set(),
    "tie": {"match_end"},
    "match_end": set(),
}


@dataclass
class Step:
    kind: str  # deal, play, leftovers, scoring, probe, perft
    first: int  # index of its first event in `expect`
    last: int
    hand: int  # 1-based hand of the match
    table: list[str]
    hands: list[list[str]]
    piles: list[int]  # cards captured per side
    escobas: list[int]  # escobas per side (those that score)
    seat: int | None = None  # who played
    card: str | None = None
    take: list[str] = field(default_factory=list)
    escoba: bool = False
    escoba_scores: bool = True
    offered: list[dict] | int | None = None  # the legal moves before the play (list, or a count)
    dealt: list[list[str]] | None = None
    turned: list[str] | None = None  # table cards turned up in this step
    opening: dict | None = None
    declarations: list[dict] = field(default_factory=list)  # cards shown as dealt, for points
    leftovers: dict | None = None
    scores: list[dict] = field(default_factory=list)
    hand_end: dict | None = None
    totals: list[int] | None = None
    tie: dict | None = None
    match_end: dict | None = None
    dealer: int | None = None
    leader: int | None = None
    note: str = ""


def side_of(seat: int, sides: Sequence[Sequence[int]]) -> int:
    for i, side in enumerate(sides):
        if seat in side:
            return i
    return seat


def group(expect: Sequence[Mapping[str, Any]]) -> list[tuple[int, int]]:
    """Index ranges [first, last] of the events that make one step each."""
    ranges: list[tuple[int, int]] = []
    start: int | None = None
    opener = ""
    for i, event in enumerate(expect):
        name = str(event.get("event"))
        if start is not None and (name not in _JOINS.get(opener, set()) or (name == opener and name != "score")):
            ranges.append((start, i - 1))
            start = None
        if start is None:
            start, opener = i, (name if name in _STEP_STARTS else "hand_start")
    if start is not None:
        ranges.append((start, len(expect) - 1))
    return ranges


def steps(expect: Sequence[Mapping[str, Any]], players: int, sides: Sequence[Sequence[int]] | None = None) -> list[Step]:
    """The viewer's steps; `sides` lists the seats of each scoring side (default one per seat)."""
    sides = [list(s) for s in sides] if sides else [[s] for s in range(players)]
    table: list[str] = []
    hands: list[list[str]] = [[] for _ in range(players)]
    piles = [0] * len(sides)
    escobas = [0] * len(sides)
    hand_no = 0
    out: list[Step] = []
    for first, last in group(expect):
        events = expect[first : last + 1]
        step = Step("deal", first, last, hand_no, [], [], [], [])
        unknown = [e for e in events if e.get("event") not in _KNOWN]
        for event in events:
            name = event.get("event")
            if name == "hand_start":
                hand_no += 1
                step.hand = hand_no
                table, hands = [], [[] for _ in range(players)]
                piles, escobas = [0] * len(sides), [0] * len(sides)
                step.dealer, step.leader = event.get("dealer"), event.get("leader")
            elif name == "table":
                table = list(event.get("cards", []))
                step.turned = list(table)
            elif name == "deal":
                hands = [list(h) for h in event.get("hands", [])] + [[] for _ in range(players - len(event.get("hands", [])))]
                step.dealt = [list(h) for h in event.get("hands", [])]
            elif name == "opening":
                step.opening = dict(event)
                taken = set(event.get("cards", []))
                table = [c for c in table if c not in taken]
                if event.get("action") == "dealer_takes" and event.get("side") is not None:
                    piles[int(event["side"])] += len(taken)
                escobas_won = int(event.get("escobas") or 0)
                if escobas_won and event.get("side") is not None:
                    escobas[int(event["side"])] += escobas_won
            elif name == "declaration":
                step.declarations.append(dict(event))
            elif name == "legal":
                step.kind = "play"
                step.offered = event.get("moves", event.get("count"))
                step.seat = event.get("seat")
            elif name == "play":
                step.kind = "play"
                seat = int(event["seat"])
                card, take = str(event["card"]), [str(c) for c in event.get("take", [])]
                step.seat, step.card, step.take = seat, card, take
                if card in hands[seat]:
                    hands[seat].remove(card)
                if take:
                    table = [c for c in table if c not in set(take)]
                    piles[side_of(seat, sides)] += 1 + len(take)
                else:
                    table.append(card)
            elif name == "escoba":
                step.escoba = True
                step.escoba_scores = bool(event.get("scores", True))
                if step.escoba_scores:
                    escobas[int(event.get("side", side_of(int(event["seat"]), sides)))] += 1
            elif name == "leftovers":
                step.kind = "leftovers"
                step.leftovers = dict(event)
                if event.get("side") is not None:
                    piles[int(event["side"])] += len(event.get("cards", []))
                table = [c for c in table if c not in set(event.get("cards", []))]
            elif name == "score":
                step.kind = "scoring"
                step.scores.append(dict(event))
            elif name == "hand_end":
                step.kind = "scoring"
                step.hand_end = dict(event)
            elif name == "totals":
                step.totals = list(event.get("totals", []))
            elif name == "tie":
                step.kind = "scoring" if step.kind == "scoring" else "tie"
                step.tie = dict(event)
            elif name == "match_end":
                step.kind = "scoring" if step.kind == "scoring" else "match_end"
                step.match_end = dict(event)
        if len(unknown) == len(events):  # an event this viewer does not know: shown as it is
            step.kind, step.note = "other", "; ".join(json.dumps(e, ensure_ascii=False) for e in unknown)
        step.hand = hand_no
        step.table, step.hands = list(table), [list(h) for h in hands]
        step.piles, step.escobas = list(piles), list(escobas)
        out.append(step)
    return _merge_offers(out)


def _merge_offers(found: list[Step]) -> list[Step]:
    """A `legal` event with no play after it (a probe's last position) stays a step of its own."""
    for step in found:
        if step.kind == "play" and step.card is None:
            step.kind = "offer"
    return found
