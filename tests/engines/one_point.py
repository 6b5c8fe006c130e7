"""Engines that disagree with `base` in exactly one rule point each, and say so in `hello`.

Each is the reference engine with one rule fixed to another value whatever ruleset it is sent
(the way an engine written for one set of house rules behaves), and declares honest features:
the reference engine's, with that point's features replaced by the value it really plays. Run
over the bundled suite, its rules profile must name that point, and only that point, as
`differs` (tests/test_one_point_engines.py): by its own declaration where it says the case's
value is not its own, by what it does where it cannot say (move validation, move order).

    escoba conformance --engine 'python tests/engines/one_point_engine.py NAME'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from escoba.protocol.features import reference_features
from escoba.protocol.server import ReferenceEngine
from escoba.rules.compile import Rules, compile_rules


@dataclass(frozen=True)
class OnePoint:
    name: str
    point: str  # the rule point it differs on
    description: str
    engine: type[ReferenceEngine]


ENGINES: dict[str, OnePoint] = {}


def honest(point_key: str, *values: str) -> tuple[str, ...]:
    """The reference features, with `point_key`'s replaced by the values the engine plays."""
    kept = tuple(f for f in reference_features() if not f.startswith(f"{point_key}:"))
    return kept + tuple(f"{point_key}:{v}" for v in values)


def register(name: str, point: str, description: str, features: tuple[str, ...] | None = None, **body: Any) -> None:
    attrs: dict[str, Any] = {"name": f"one-point-{name}", **body}
    if features is not None:
        attrs["features"] = features
    cls = type(f"OnePoint_{name.replace('-', '_')}", (ReferenceEngine,), attrs)
    ENGINES[name] = OnePoint(name, point, description, cls)


def fixed(change: Callable[[Rules], Rules]) -> Callable[[ReferenceEngine, Rules], Rules]:
    return lambda self, rules: change(rules)


def _field(**values: Any) -> Callable[[ReferenceEngine, Rules], Rules]:
    return fixed(lambda rules: dataclasses.replace(rules, **values))


def _categories(fn: Callable[[Any], Any]) -> Callable[[ReferenceEngine, Rules], Rules]:
    return fixed(lambda rules: dataclasses.replace(rules, categories=tuple(fn(c) for c in rules.categories)))


# Face values for the figures: a plausible misreading of the primera table (sota 8, caballo 9,
# rey 10 instead of 10 each).
OTHER_PRIMERA = {"7": 21, "6": 18, "1": 16, "5": 15, "4": 14, "3": 13, "2": 12, "sota": 8, "caballo": 9, "rey": 10}
OTHER_PRIMERA_TEXT = ",".join(f"{k}={v}" for k, v in sorted(OTHER_PRIMERA.items(), key=lambda kv: (-kv[1], kv[0])))


def _other_primera(self: ReferenceEngine, rules: Rules) -> Rules:
    values: Mapping[str, Any] = rules.doc.get("values") or {}
    if "primera" not in values:
        return rules
    # The figures at their face values 8, 9 and 10, under whatever names the deck gives them
    # (sota, caballo, rey; fante, cavallo, re): an engine that knew only the Spanish names would
    # score no primera at all with an Italian deck, a second departure, not this one.
    figures = [r["id"] for r in rules.doc["deck"]["ranks"] if r["value"] > 7]
    other = {**{k: v for k, v in OTHER_PRIMERA.items() if k.isdigit()}, **{f: 8 + k for k, f in enumerate(figures)}}
    doc = {**rules.doc, "values": {**values, "primera": other}}
    return compile_rules(doc)


register(
    "optional-capture", "capture.compulsory", "capture is optional, whatever the ruleset says",
    honest("capture.compulsory", "optional"), adjust_rules=_field(compulsory="optional"),
)  # fmt: skip
register(
    "hand-level-capture", "capture.compulsory", "capture is compulsory for the whole hand",
    honest("capture.compulsory", "hand"), adjust_rules=_field(compulsory="hand"),
)  # fmt: skip
register(
    "coins-ties-all", "scoring.coins.award", "a tie for most coins scores for every tied side",
    reference_features() + ("scoring.coins.ties:all",),
    adjust_rules=_categories(lambda c: dataclasses.replace(c, ties="all") if c.id == "coins" and c.policy == "most" else c),
)  # fmt: skip
register(
    "primera-figures-face-value", "values.primera", "primera counts sota, caballo and rey at 8, 9 and 10",
    honest("values.primera", OTHER_PRIMERA_TEXT), adjust_rules=_other_primera,
)  # fmt: skip
register(
    "opening-15-no-escoba", "opening_table.escobas", "the dealer takes an opening 15 without scoring an escoba",
    honest("opening_table.escobas", "none"), adjust_rules=_field(opening_escobas="none"),
)  # fmt: skip
register(
    "thirty-never-splits", "opening_table.max_groups", "an opening 30 is never split into two 15s",
    honest("opening_table.max_groups", "1"), adjust_rules=_field(opening_max_groups=1),
)  # fmt: skip
register(
    "opening-set-aside", "opening_table.action", "an opening 15 is set aside instead of going to the dealer",
    honest("opening_table.action", "set_aside", "none"),
    adjust_rules=fixed(lambda r: dataclasses.replace(r, opening_action="set_aside") if r.opening_action == "dealer_takes" else r),
)  # fmt: skip
register(
    "nobody-captured-to-dealer", "leftovers.if_nobody_captured", "when nobody captured, the dealer takes the leftovers",
    honest("leftovers.if_nobody_captured", "dealer"), adjust_rules=_field(if_nobody_captured="dealer"),
)  # fmt: skip
register(
    "no-last-play-escoba", "capture.escoba_on_last_play", "a sweep on the hand's last play is no escoba",
    honest("capture.escoba_on_last_play", "no"), adjust_rules=_field(escoba_on_last_play=False),
)  # fmt: skip
register(
    "table-first", "deal.table_first", "the table is turned up before the hands are dealt",
    honest("deal.table_first", "yes"), adjust_rules=_field(table_first=True),
)  # fmt: skip
register(
    "escobas-worth-two", "scoring.escobas.points", "each escoba is worth two points",
    honest("scoring.escobas.points", "2"),
    adjust_rules=_categories(lambda c: dataclasses.replace(c, points=2) if c.id == "escobas" else c),
)  # fmt: skip
register(
    "leftovers-are-an-escoba", "leftovers.escoba", "taking the cards left at the end is an escoba",
    honest("leftovers.escoba", "yes"), adjust_rules=_field(leftovers_escoba=True),
)  # fmt: skip


class _NoValidation(ReferenceEngine):
    """Plays every legal move as the reference does, and accepts an illegal one without a word."""

    def _cmd_play(self, request: Mapping[str, Any]) -> dict:
        hand = self.hand
        if hand is not None:
            try:
                move = self._move(request.get("move"))
            except Exception:
                move = None
            if move is not None and move in hand.legal_moves():
                return {"events": self.play_events(hand, move)}
        card = request.get("move", {}).get("card") if isinstance(request.get("move"), dict) else None
        seat = hand.to_play if hand is not None else 0
        return {"events": [{"event": "play", "seat": seat, "card": str(card), "take": []}]}


class _Unsorted(ReferenceEngine):
    def legal_json(self, hand):  # type: ignore[no-untyped-def]
        return list(reversed(super().legal_json(hand)))


ENGINES["no-move-validation"] = OnePoint(
    "no-move-validation", "common.refusals", "illegal moves are accepted", type("OnePointNoValidation", (_NoValidation,), {"name": "one-point-no-move-validation"})
)
ENGINES["moves-unsorted"] = OnePoint(
    "moves-unsorted", "common.move_order", "legal moves are listed in reverse deck order", type("OnePointUnsorted", (_Unsorted,), {"name": "one-point-moves-unsorted"})
)
