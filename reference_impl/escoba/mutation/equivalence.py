"""A mutant no case detects: equivalent, or a survivor.

No bundled case telling a mutant apart proves nothing by itself. So the games that would, if
any can, are sought under each bundled ruleset that makes the mutant, with a stated effort
(`Effort`):

- **targeted positions** (`escoba.explore.targeted`): the deals `escoba cases generate` tries
  for the rule point (its `recipe`: opening tables of the target and of twice the target, tables
  of three or four seats, short matches, a placer where nobody may capture, ...), played by
  identify's styles of play;
- **seeded games** biased toward rare situations (`escoba.explore.games.random_setup`: arranged
  opening tables, sweepers, placers, levellers, matches whose target ends in a tie).

Each game is played by the reference engine under the ruleset, then replayed under the mutant
(the same deck orders and moves): the first whose events differ makes the mutant a
**survivor**, reported with that game shrunk to the smallest case the mutant still fails
(`escoba.explore.shrinking`, the mutant served as an engine). When none does, the mutant is
**equivalent** after that effort, with the reason where the registry gives one: the point is
one no event depends on (`exercised` is `never`), or no game of the ruleset can exercise it
(`recipe.possible` is false for it and for the mutant: no jokers, a stock that always divides,
compulsory capture that always leaves someone a capture). A mutant with such a reason is
searched with a smaller effort: the search only confirms what the declaration says.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from escoba.conformance.compare import first_divergence
from escoba.errors import EscobaError
from escoba.mutation.mutants import Applied, Mutant, Ruleset


@dataclass(frozen=True)
class Effort:
    """How hard to look for a game telling a mutant apart, under each ruleset that makes it."""

    positions: int = 16  # targeted positions (escoba.explore.targeted)
    games: int = 64  # seeded games (escoba.explore.games)
    declared: int = 4  # of each, where the registry says why none can tell them apart

    def to_json(self) -> dict[str, int]:
        return {"positions": self.positions, "games": self.games, "declared": self.declared}


@dataclass
class Verdict:
    """What the search found for one mutant."""

    equivalent: bool
    reason: str = ""  # why no game can tell them apart, where the registry says
    games: int = 0  # games played under the rulesets that make the mutant
    ruleset: str | None = None  # a survivor: the ruleset of the game that tells it apart
    case: dict | None = None  # a survivor: that game as a case (shrunk when it could be)
    steps: list[str] = field(default_factory=list)  # how it was shrunk


def reason_of(applied: Applied) -> str:
    """Why no game of this ruleset can tell the mutant apart, as the registry declares it
    (`{rulesets}` standing for the ruleset's name); empty where it does not."""
    from escoba.rules.points import rule_of
    from escoba.rules.points.base import never

    rule = rule_of(applied.key)
    if rule is None:
        return ""
    if rule.exercised is never:
        return f"no event depends on {rule.key} ({rule.when})"
    possible = rule.recipe.possible
    if possible is None or applied.doc is None:
        return ""
    original = applied.ruleset.rules
    counts = table_sizes(original)
    if not possible(original, counts) and not possible(applied.rules, counts):
        return f"no game of {{rulesets}} can exercise it (it shows when {rule.when})"
    return ""


def table_sizes(rules: Any) -> list[int]:
    """The tables a ruleset's games are played at (as `escoba cases generate` plays them)."""
    from escoba.transcript.suite import MAX_PLAYERS

    return [p for p in rules.player_counts if p <= MAX_PLAYERS] or [min(rules.player_counts)]


def search(mutant: Mutant, effort: Effort, seed: int = 0) -> Verdict:
    """Look for a game telling `mutant` apart under each bundled ruleset that makes it."""
    played = 0
    reasons: dict[str, list[str]] = {}  # a reason → the rulesets it is given for
    for applied in mutant.applied:
        if applied.ruleset.name not in mutant.origins or applied.doc is None:
            continue
        reason = reason_of(applied)
        budget = Effort(effort.declared, effort.declared) if reason else effort
        found, tried = _tell_apart(applied, budget, seed)
        played += tried
        if found is not None:
            return Verdict(False, games=played, ruleset=applied.ruleset.name, case=found)
        if reason:
            reasons.setdefault(reason, []).append(applied.ruleset.name)
    return Verdict(True, "; ".join(r.replace("{rulesets}", _names(names)) for r, names in reasons.items()), played)


def _names(names: list[str]) -> str:
    """`base`, `base or da`, `base, da or sv`, `any of 31 rulesets (base, da, …)`."""
    if len(names) <= 3:
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
    return f"any of {len(names)} rulesets ({', '.join(names[:2])}, …)"


def _tell_apart(applied: Applied, effort: Effort, seed: int) -> tuple[dict | None, int]:
    """A game (case data) under the applied ruleset that the mutant says other events for,
    and how many games were played looking for it."""
    from escoba.explore.targeted import positions

    original = applied.ruleset.rules
    counts = table_sizes(original)
    source = applied.ruleset.source
    tried = 0

    def differs(data: dict, value: Any = None) -> bool:
        nonlocal tried
        tried += 1
        return tells_apart(data, original, applied.rules)

    targeted = positions(source, applied.key, [applied.value], differs, counts, seed, tries=effort.positions)
    if targeted.cases:
        return targeted.cases[0], tried
    for data in seeded_games(applied.ruleset, effort.games, f"audit:{seed}:{applied.ruleset.name}:{applied.key}", "audit"):
        if differs(data):
            return data, tried
    return None, tried


def seeded_games(ruleset: Ruleset, games: int, seed: str, by: str) -> Iterator[dict]:
    """`games` seeded games of the ruleset, biased toward rare situations
    (`escoba.explore.games.random_setup`: arranged opening tables, styles of play, matches whose
    target ends in a tie), as case data `<by>.<ruleset>.<k>`; a deal that cannot be played
    out is left out."""
    from escoba.explore.games import STYLES, case_data, play_game, random_setup

    rules = ruleset.rules
    counts = table_sizes(rules)
    rng = random.Random(seed)
    for k in range(games):
        setup = random_setup(rules, rng, counts, True, STYLES)
        try:
            game = play_game(rules, setup)
        except (EscobaError, ValueError, IndexError, StopIteration):
            game = None
        if game is not None:
            yield case_data(game, f"{by}.{ruleset.name}.{k}", ruleset.source, f"a seeded game of {ruleset.name}",
                            [f"Played by escoba cases audit: {setup.describe()}."])  # fmt: skip


def tells_apart(data: Mapping[str, Any], original: Any, mutant: Any) -> bool:
    """Do the deck orders and moves of case data say other events under `mutant` than under
    `original` (or can the mutant not play them as written)?"""
    from escoba.notation import parse_move
    from escoba.transcript.case import _build
    from escoba.transcript.record import replayed_events

    case = _build({**data, "kind": "game", "expect": []}, None)
    moves = [[parse_move(text, original.deck) for text in h["moves"]] for h in data["hands"]]
    said = replayed_events(case, original, moves)
    if said is None:
        return False  # not a game of the ruleset at all
    other = replayed_events(case, mutant, moves)
    return other is None or first_divergence(said, other) is not None


def shrunk(applied: Applied, data: Mapping[str, Any]) -> tuple[dict, list[str]]:
    """The smallest case found that the mutant fails as it fails `data` (a game of a bundled
    ruleset), served as an engine; `data` with its expected events when it cannot be shrunk."""
    from escoba.explore.harness import Harness, fill_case
    from escoba.explore.shrinking import shrink
    from escoba.protocol.client import InProcessSession

    filled = fill_case(dict(data))
    rules = applied.rules
    with Harness(lambda: InProcessSession(lambda: mutant_engine(rules))) as harness:
        result = harness.run(filled)
        if result.outcome != "fail":
            return filled, []
        found = shrink(harness, filled, result)
    return found.data, found.steps


def mutant_engine(rules: Any) -> Any:
    """The reference engine playing `rules` whatever ruleset it is sent (a mutant's)."""
    from escoba.protocol.server import ReferenceEngine

    class MutantEngine(ReferenceEngine):
        def adjust_rules(self, sent: Any) -> Any:
            return rules

    return MutantEngine()
