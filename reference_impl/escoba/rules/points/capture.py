"""Capture: the target, whether a card that can capture must, what a played card may take
(`kinds`, `game/capture.py`), and which sweeps are escobas."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import product
from typing import Any

from escoba.game.capture import DEFAULT_KINDS
from escoba.rules.points.base import ANY, Recipe, RulePoint, flag, plain

_KIND_SUMS = {"target": "card + taken = target", "card": "taken = card's value"}
_PRIORITIES = {"none": "", "single_card": " (a single card first)", "fewest_cards": " (fewest cards)"}
DEFAULT_KINDS_DOC = [{"sum": "target", "priority": "none"}]


def kinds_of(value: Any) -> tuple[tuple[str, str], ...]:
    """`capture.kinds` as (sum, priority) pairs; left out, Escoba's one kind."""
    if not value:
        return DEFAULT_KINDS
    return tuple((str(k["sum"]), str(k.get("priority", "none"))) for k in value)


def _kinds_text(value: Any, doc: Mapping[str, Any]) -> str:
    return "; or ".join(_KIND_SUMS.get(s, s) + _PRIORITIES.get(p, f" ({p})") for s, p in kinds_of(value))


def _kinds_feature(position: Any, facts: Any) -> str:
    """`target`, `card-single_card`, `card-fewest_cards,target`: each kind's sum, and its
    priority unless none; sorted, since the order of kinds means nothing."""
    return ",".join(sorted(s + ("" if p == "none" else f"-{p}") for s, p in kinds_of(position.value)))


def _kinds_readings(value: Any, doc: Mapping[str, Any]) -> list[Any]:
    """The near readings of the kinds: one field of one kind changed, one kind left out, one
    kind added (every value the schema allows for the fields of a kind)."""
    from escoba.rules.schema import ruleset_schema

    spec = ruleset_schema()["properties"]["capture"]["properties"]["kinds"]
    fields = {name: s["enum"] for name, s in spec["items"]["properties"].items() if "enum" in s}
    current = [{"priority": "none", **dict(k)} for k in (value or DEFAULT_KINDS_DOC)]
    found: list[list[dict]] = []
    for i, kind in enumerate(current):
        for name, options in fields.items():
            found += [[*current[:i], {**kind, name: o}, *current[i + 1 :]] for o in options if kind.get(name) != o]
        if len(current) > 1:
            found.append(current[:i] + current[i + 1 :])
    if len(current) < spec.get("maxItems", 1):
        found += [[*current, dict(zip(fields, combination))] for combination in product(*fields.values())]
    return found


def _compulsory_matters(position: Any, facts: Any) -> bool:
    if facts.probe == "compulsory" or any(e.get("event") == "rejected" and e.get("rule") == "compulsory" for e in facts.events):
        return True  # a probe of the compulsory rule
    return any("count" in legal or any(m.get("take") for m in legal.get("moves", [])) for hand in facts.hands for legal in hand.legal)


def _kinds_matter(position: Any, facts: Any) -> bool:
    """What a card may take shows in every decision where some card can capture, and in a
    probe of a wrong sum or of a priority."""
    if facts.probe in ("wrong_sum", "priority"):
        return True
    if any(e.get("event") == "rejected" and e.get("rule") in ("wrong_sum", "priority") for e in facts.events):
        return True  # the same, tried among the moves
    return _compulsory_matters(position, facts)


def _target_used(position: Any, facts: Any) -> bool:
    """The target is a rule only where a capture kind sums to it or the opening table uses it."""
    sums = [k["sum"] for k in facts.doc["capture"].get("kinds") or DEFAULT_KINDS_DOC]
    return "target" in sums or facts.doc["opening_table"]["action"] != "none"


def _last_play_sweeps(position: Any, facts: Any) -> bool:
    return any(h.last_play_clears for h in facts.hands)


def _last_sweep_possible(rules: Any, counts: list[int]) -> bool:
    """Sweeping on the last play leaves nothing: every card was taken in groups making the
    target, so without jokers or cards set aside the deck must total a multiple of it
    (captures by kind, with no target sum, can sweep the last cards whatever they total)."""
    total = sum(rules.deck.value[c] for c in rules.deck.cards)
    return rules.target is None or rules.deck.jokers > 0 or rules.opening_action == "set_aside" or total % rules.target == 0


def _last_card_sweeps(position: Any, facts: Any) -> bool:
    """A play in the hand's last round that took every card with its player's last card."""
    return any(p.cleared and p.emptied and p.round == h.deals for h in facts.hands for p in h.plays)


def _joker_escobas(position: Any, facts: Any) -> bool:
    jokers = facts.jokers
    if not jokers:
        return False
    for hand in facts.hands:
        for _escoba, play in hand.escobas:
            if {play.get("card"), *play.get("take", [])} & jokers:
                return True
    return any(
        set(o.get("cards", [])) & jokers and facts.doc["opening_table"].get("escobas", "none") != "none"
        for o in facts.openings("dealer_takes")
    )


POINTS = (
    RulePoint(
        "capture.target", "capture", "capture target", default=None,
        fields=("target",), compile=lambda v, doc: int(v) if v is not None else None, in_play=True, fast_path=ANY,
        exercised=_target_used, when="a capture kind sums to it, or the opening table rule uses it",
        feature_value=lambda p, f: "none" if p.value is None else plain(p.value),
        fixed="the deck's capture values are made for it", shows_in=("legal", "opening"),
    ),
    RulePoint(
        "capture.compulsory", "capture", "compulsory capture",
        fields=("compulsory",), in_play=True, fast_path=frozenset({"optional", "card", "hand"}),
        exercised=_compulsory_matters, when="a decision where some card can capture (or a probe of the compulsory rule)",
        assumed=(), shows_in=("legal", "perft", "rejected"),
    ),
    RulePoint(
        "capture.kinds", "capture", "capture kinds", default=DEFAULT_KINDS_DOC,
        text=_kinds_text, meaning=lambda v, doc: tuple(sorted(kinds_of(v))), values=_kinds_readings,
        fields=("capture_kinds",), compile=lambda v, doc: kinds_of(v), in_play=True, fast_path=ANY,
        exercised=_kinds_matter, when="a decision where some card can capture (or a probe of a wrong sum or a priority)",
        assumed=("target",), feature_value=_kinds_feature, shows_in=("legal", "perft", "rejected"),
        forms="each kind's sum, with `-priority` unless none, sorted: `target`, `card-single_card`, `card-fewest_cards,target`",
    ),
    flag("capture.escoba_on_last_play", "capture", "escoba on the last play", "escoba_on_last_play", default=True,
         exercised=_last_play_sweeps, when="the hand's last play takes every card on the table", shows_in=("escoba",),
         recipe=Recipe(possible=_last_sweep_possible)),
    flag("capture.escoba_on_last_card", "capture", "escoba with a player's last card", "escoba_on_last_card", default=True,
         exercised=_last_card_sweeps, when="a player's last card of the hand takes every card on the table",
         assumed=("yes",), shows_in=("escoba",)),
    flag("capture.joker_escobas_score", "capture", "escobas made with a joker score", "joker_escobas_score", default=True,
         exercised=_joker_escobas, when="an escoba (or an opening take) made with a joker", shows_in=("escoba", "opening"),
         recipe=Recipe(opening_tables=True, possible=lambda rules, counts: rules.deck.jokers > 0)),
)  # fmt: skip
