"""Targeted positions: for a rule point and a hypothesis, games whose events tell the point's
candidate values apart.

Seeded games reach the common rules at once and a rare one (a tie for most coins, a pile of
exactly 20, an opening 30 that splits) only by luck. So before its seeded games, `escoba
identify` asks, for each rule point of the hypothesis that has other values worth trying
(`escoba.explore.inference.candidates`), for positions where those values say different events.

The positions are the ones `escoba cases generate` searches for a point
(`escoba.transcript.suite.Builder.candidates`: opening tables of the target, of twice the target
split or not, or with a part making the target, dealt with `arrange_deck`; tables of three seats
or more for the turn, of four for partnerships; short matches for the match points; a placer
for the leftovers when nobody captured), played by the styles of `escoba.explore.games` (a
sweeper where the suite has its greedy bot, whose card values are measured afresh for every
hypothesis). A position is kept when some candidate value, not yet told apart by a position kept
before, makes the reference engine say other events for the same deck orders and moves (`differs`
answers that): the search stops when every candidate is told apart, or after `TRIES` positions.
A candidate no position told apart is left to the seeded games.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from escoba.errors import EscobaError

TRIES = 8  # positions tried per rule point
KEPT = 2  # positions kept per rule point at most


@dataclass
class Targeted:
    """The positions kept for one rule point and the candidate values they tell apart."""

    point: str
    cases: list[dict] = field(default_factory=list)  # case data, `expect` not yet filled
    told: list[Any] = field(default_factory=list)  # candidate values some kept position tells apart
    untold: list[Any] = field(default_factory=list)  # the others


def positions(
    path: str,
    point: str,
    values: Sequence[Any],
    differs: Callable[[dict, Any], bool],
    players: Sequence[int],
    seed: int,
    tries: int = TRIES,
) -> Targeted:
    """Positions under the ruleset file `path` (the hypothesis) for `point`: each a case
    (`escoba.explore.games.case_data`) telling apart some of `values`, the candidate values of the
    point; `differs(case, value)` says whether `value` makes the reference engine say other events
    for the case. `players`: the table sizes the engine sits at."""
    found = Targeted(point, untold=list(values))
    for k, data in enumerate(_games(path, point, players, seed)):
        if k >= tries or not found.untold or len(found.cases) >= KEPT:
            break
        told = [v for v in found.untold if differs(data, v)]
        if told:
            data["id"] = f"{data['id']}.{len(found.cases) + 1}"
            found.cases.append(data)
            found.told += told
            found.untold = [v for v in found.untold if not any(v is t for t in told)]
    return found


def _games(path: str, point: str, players: Sequence[int], seed: int) -> Iterator[dict]:
    """The games `escoba cases generate` tries for `point`, played under `path`, as case data."""
    import escoba
    from escoba.explore.games import DEALS, Setup, case_data, play_game
    from escoba.rules import load_resolved
    from escoba.rules.points import positions
    from escoba.transcript.suite import Builder

    rules = escoba.load_ruleset(path)
    builder = Builder(path, Path("."), path, f"identify-{seed}")
    builder.counts = [p for p in builder.counts if p in players] or [p for p in rules.player_counts if p in players][:1]
    if not builder.counts:
        return
    position = next((p for p in positions(load_resolved(path).doc) if p.key == point), None)
    if position is None:
        return
    recipe = position.rule.recipe
    opening = recipe.opening_tables
    for k, (count, dealer, decks, bots, target) in enumerate(builder.candidates(point, recipe)):
        styles = tuple("sweeper" if b == "greedy" else b for b in bots)
        # An opening point: each kind of opening table in turn, a 30 that does not split included
        # (escoba.explore.games.opening_table), which the suite's search does not deal.
        deal = DEALS[1 + k % (len(DEALS) - 1)] if opening else "shuffled"
        setup = Setup(count, dealer, target, deal, styles, seed * 7919 + k)
        try:
            game = play_game(rules, setup, None if opening else decks)
        except (EscobaError, ValueError, IndexError, StopIteration):
            game = None
        if game is None:
            if k > 4 * TRIES:
                return
            continue
        match = "a hand" if target is None else f"a match to {target}"
        note = f"A position for {point} (escoba identify, seed {seed}, try {k + 1}): {match} at {count} players, dealer {dealer}; styles {', '.join(styles)}."
        yield case_data(game, f"identify.{seed}.{point}", path, f"a position that tells the values of {point} apart", [note])
