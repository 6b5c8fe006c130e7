#!/usr/bin/env python3
"""A fixed-rules engine for the tests: the reference engine playing `rules.yaml` (base with
five departures) whatever ruleset `start` sends, declaring those rules in `hello`, with bugs
planted on request.

    python tests/engines/fixed_rules/engine.py [--declare RULES|none] [--feature F]... [--bug NAME]...
        [--primera-four-sevens]

`--declare`: what `hello`'s `rules` names (default: this folder's rules.yaml, as an absolute
path, the way an engine that keeps its rules file beside its code declares it). `--feature`:
features `hello` lists besides (default none). `--bug`: a planted bug, from `BUGS`. The
tests (tests/test_declared_rules.py) know which departures and bugs each run must report.
`--primera-four-sevens`: the primera is worth one point more to a side that took all four
sevens (`plays-four-sevens.yaml`, whose extra category the engine adds into its primera's score),
a rule no ruleset file can say; the engine then declares `four-sevens.yaml` by default, which
says so (`unsupported`, on the point `scoring.primera`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RULES = HERE / "rules.yaml"
FOUR_SEVENS = HERE / "four-sevens.yaml"  # what the engine declares with --primera-four-sevens
PLAYS_FOUR_SEVENS = HERE / "plays-four-sevens.yaml"  # what it then plays

#: the departures of rules.yaml from base: (rule point, the value played, in the report's words)
DEPARTURES = {
    "capture.compulsory": "optional",
    "opening_table.escobas": "one",
    "scoring.cards.award": "most (ties: all)",
    "leftovers.if_nobody_captured": "dealer",
    "scoring.velo.points": "2",
}

#: planted bugs, and the bug keys of a report (conformance/bugs.py) that may name each
BUGS = {
    "three-card-captures": "`legal` lists no capture taking three or more table cards (a play of one is still accepted)",
    "velo-twice": "the hand's total counts the velo's points twice (its score event is right)",
    "refusal-takes-card": "a refused move still takes the card from the hand",
    "no-state": "`state` is refused",
}


def engine_class(declare: str | None, features: list[str], bugs: set[str], four_sevens: bool = False) -> type:
    from escoba.engine.hand import Hand
    from escoba.protocol.server import ReferenceEngine, Refused
    from escoba.rules import load_resolved
    from escoba.rules.compile import compile_rules

    own = compile_rules(load_resolved(str(PLAYS_FOUR_SEVENS if four_sevens else RULES)).doc)

    class FixedRules(ReferenceEngine):
        name = "fixed-rules-test"
        version = "1.0"

        def compile(self, doc: Any) -> Any:  # plays its own rules, whatever it is sent
            return own

        def legal_json(self, hand: Hand) -> list[dict]:
            moves = super().legal_json(hand)
            if "three-card-captures" in bugs:
                moves = [m for m in moves if len(m["take"]) < 3]
            return moves

        def play_events(self, hand: Hand, move: Any) -> list[dict]:
            events = super().play_events(hand, move)
            if four_sevens:
                events = _folded(events)
            if "velo-twice" in bugs:
                velo = next((e for e in events if e.get("event") == "score" and e.get("category") == "velo"), None)
                if velo is not None:
                    events = [{**e, "points": [p + v for p, v in zip(e["points"], velo["points"])]} if e.get("event") == "hand_end" else e
                              for e in events]  # fmt: skip
            return events

        def _cmd_play(self, request: Any) -> dict:
            try:
                return super()._cmd_play(request)
            except Refused:
                hand = self.hand
                if "refusal-takes-card" in bugs and hand is not None and hand.to_play is not None:
                    card = self._code.get((request.get("move") or {}).get("card")) if isinstance(request.get("move"), dict) else None
                    if card in hand.hands[hand.to_play]:
                        hand.hands[hand.to_play].remove(card)
                        hand._legal = None
                raise

        def _cmd_state(self, request: Any) -> dict:
            if "no-state" in bugs:
                raise Refused("unsupported", "this engine keeps no state it can show")
            return super()._cmd_state(request)

    FixedRules.declares = declare
    FixedRules.features = tuple(features)
    return FixedRules


def _folded(events: list[dict]) -> list[dict]:
    """The four-sevens point added into the primera's score, as this engine tells a hand."""
    extra = next((e for e in events if e.get("event") == "score" and e.get("category") == "four-sevens"), None)
    if extra is None:
        return events
    return [
        {**e, "points": [p + x for p, x in zip(e["points"], extra["points"])]} if e.get("event") == "score" and e.get("category") == "primera" else e
        for e in events if e is not extra
    ]  # fmt: skip


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--declare", default=None)
    parser.add_argument("--primera-four-sevens", action="store_true")
    parser.add_argument("--feature", action="append", default=[])
    parser.add_argument("--bug", action="append", default=[], choices=sorted(BUGS))
    args = parser.parse_args(argv)
    from escoba.protocol.server import serve

    declare = args.declare or str(FOUR_SEVENS if args.primera_four_sevens else RULES)
    stdout = sys.stdout.buffer
    sys.stdout = sys.stderr
    engine = engine_class(None if declare == "none" else declare, args.feature, set(args.bug), args.primera_four_sevens)
    return serve(engine(), sys.stdin.buffer, stdout)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
