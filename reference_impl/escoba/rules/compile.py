"""Resolved ruleset document → `Rules`: everything the engine runs, decided once.

The engine never looks at the YAML again: each choice a ruleset makes becomes a field here
(an int offset, a flag, a compiled measure), so the hot loop pays nothing for generality.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, cast

from escoba.game import seats
from escoba.game.capture import DEFAULT_KINDS, CaptureFinder, Kind
from escoba.game.cards import Deck
from escoba.outputs import register_suits
from escoba.rules.expr import compile_expression, env_from_deck
from escoba.rules.frozen import freeze

_TURN = {"counterclockwise": 1, "clockwise": -1}
_SIDE = {"dealer_right": 1, "dealer_left": -1, "right": 1, "left": -1}


@dataclass(frozen=True)
class Category:
    """A scoring category: a measure per side and a policy that turns measures into points."""

    id: str
    title: str
    policy: str  # most | threshold | holder | per_unit | bonus
    points: int
    # measure(pile, escobas, history=None): history is the side's engine/history.SideHistory,
    # needed (and then required) when `needs_history`.
    measure: Callable[..., Any] | None
    measure_text: str | None
    # the same measure of a pile given as a bitmask: (mask, escobas, history=None), the side's
    # history needed as for `measure`
    measure_on_mask: Callable[..., Any] | None
    ties: str = "nobody"  # most: nobody | all
    more_than: float | None = None  # threshold
    card: int | None = None  # holder
    needs_history: bool = False
    history_reads: frozenset[str] = frozenset()  # the history's names the measure reads (`Compiled`)


@dataclass(frozen=True)
class Rules:
    id: str
    doc: Mapping[str, Any]
    deck: Deck
    finder: CaptureFinder
    player_counts: tuple[int, ...]
    partnerships: Mapping[int, tuple[tuple[int, ...], ...]]
    direction: int  # +1: next player is seat + 1 (counter-clockwise)
    leader_offset: int  # seat of the leader relative to the dealer
    next_dealer_offset: int
    hand_size: int
    table_size: int
    table_first: bool
    short_stock: str
    open_hands: bool
    opening_trigger: str
    opening_max_groups: int
    opening_action: str
    opening_escobas: str
    target: int | None  # None: no capture kind sums to a target and no opening rule uses one
    compulsory: str  # optional | card | hand
    escoba_on_last_play: bool
    joker_escobas_score: bool
    leftovers_to: str
    leftovers_escoba: bool
    if_nobody_captured: str
    categories: tuple[Category, ...]
    match_target: int
    target_options: tuple[int, ...]
    tie: str  # extra_hand | shared_win
    # Added with capture kinds and event measures (issue 14); defaults keep older callers working.
    # (sum, priority) pairs: what a played card may take (engine/capture.py); Escoba's default
    # is ((target, none),), and `finder.simple` says so.
    capture_kinds: tuple[Kind, ...] = DEFAULT_KINDS
    # Some measure reads the hand's history (captures, sweeps, last_capture): Hand then records
    # it and passes it to the measures. Decided here, once, so other rulesets pay nothing.
    needs_history: bool = False
    # Which of its names they read: the fused simulation loop records only the sweeps when no
    # measure reads every capture, and no capture when they read only last_capture.
    history_reads: frozenset[str] = frozenset()

    def __deepcopy__(self, memo: dict) -> Rules:
        return self  # compiled once and never changed: a copy of a state shares its rules

    def __reduce__(self) -> tuple:
        # Compiled measures are closures, which do not pickle: a pickled Rules is its resolved
        # document, compiled again where it is loaded (once per process and document).
        return (rules_from_document, (dict(self.doc),))

    def sides(self, players: int) -> tuple[tuple[int, ...], ...]:
        """The scoring units at this table: partnerships if the ruleset has them, else seats."""
        return self.partnerships.get(players) or tuple((seat,) for seat in range(players))

    def side_of(self, players: int) -> list[int]:
        """The side of each seat at this table."""
        return seats.side_of(self.sides(players), players)


_from_documents: dict[str, Rules] = {}


def rules_from_document(doc: Mapping[str, Any]) -> Rules:
    """`compile_rules`, cached by the document's content (what unpickling a `Rules` calls)."""
    import json

    key = json.dumps(doc, sort_keys=True, ensure_ascii=False, default=str)
    if key not in _from_documents:
        if len(_from_documents) > 64:
            _from_documents.clear()
        _from_documents[key] = compile_rules(doc)
    return _from_documents[key]


def compile_rules(doc: Mapping[str, Any]) -> Rules:
    """Compile a resolved, validated ruleset document (`Rules.doc` is a frozen copy of it)."""
    doc = freeze(doc)
    deck_doc = doc["deck"]
    deck = Deck.from_section(deck_doc)
    register_suits(deck.suit_symbols, deck.suit_ascii)  # shown as letters where an output cannot show them
    values = [int(r["value"]) for r in deck_doc["ranks"]]
    kinds = capture_kinds(doc["capture"])
    target = doc["capture"].get("target")
    finder = CaptureFinder(
        deck.value,
        [deck.is_joker(c) for c in deck.cards],
        int(target) if target is not None else None,
        min(values),
        max(values),
        kinds,
    )
    env = env_from_deck(deck_doc, doc.get("values") or {})
    players, turn, deal = doc["players"], doc["turn"], doc["deal"]
    opening, capture, leftovers, match = doc["opening_table"], doc["capture"], doc["leftovers"], doc["match"]
    categories = tuple(_category(c, deck, env) for c in doc["scoring"]["categories"])
    return Rules(
        id=doc["id"],
        doc=doc,
        deck=deck,
        finder=finder,
        player_counts=tuple(players["counts"]),
        partnerships=MappingProxyType(
            {p["players"]: tuple(tuple(side) for side in p["sides"]) for p in players.get("partnerships", [])}
        ),
        direction=_TURN[turn["direction"]],
        leader_offset=_SIDE[turn["leader"]],
        next_dealer_offset=_SIDE[turn["next_dealer"]],
        hand_size=int(deal["hand_size"]),
        table_size=int(deal["table_size"]),
        table_first=bool(deal.get("table_first", False)),
        short_stock=deal.get("short_stock", "forbid"),
        open_hands=bool(deal.get("open_hands", False)),
        opening_trigger=opening["trigger"],
        opening_max_groups=int(opening.get("max_groups", 1)),
        opening_action=opening["action"],
        opening_escobas=opening["escobas"],
        target=int(target) if target is not None else None,
        compulsory=capture["compulsory"],
        escoba_on_last_play=bool(capture.get("escoba_on_last_play", True)),
        joker_escobas_score=bool(capture.get("joker_escobas_score", True)),
        leftovers_to=leftovers["to"],
        leftovers_escoba=bool(leftovers.get("escoba", False)),
        if_nobody_captured=leftovers.get("if_nobody_captured", "discard"),
        categories=categories,
        match_target=int(match["target"]),
        target_options=tuple(match.get("target_options", [match["target"]])),
        tie=match["tie"],
        capture_kinds=kinds,
        needs_history=any(c.needs_history for c in categories),
        history_reads=frozenset().union(*(c.history_reads for c in categories)),
    )


def capture_kinds(capture: Mapping[str, Any]) -> tuple[Kind, ...]:
    """`capture.kinds` as (sum, priority) pairs; left out, Escoba's one kind."""
    kinds = capture.get("kinds")
    if not kinds:
        return DEFAULT_KINDS
    return tuple((str(k["sum"]), str(k.get("priority", "none"))) for k in kinds)


def _category(doc: Mapping[str, Any], deck: Deck, env) -> Category:
    award = doc["award"]
    policy = award["policy"]
    measure_text = doc.get("measure")
    compiled = compile_expression(str(measure_text), env) if measure_text is not None else None
    more_than = None
    if policy == "threshold":
        bound = award["more_than"]
        if isinstance(bound, (int, float)) and not isinstance(bound, bool):
            more_than = float(bound)
        else:
            more_than = float(cast(float, compile_expression(str(bound), env, context="global").fn((), 0)))
    card = deck.card(str(award["card"])) if policy == "holder" else None
    return Category(
        id=doc["id"],
        title=doc.get("title", doc["id"]),
        policy=policy,
        points=int(doc.get("points", 1)),
        measure=compiled.fn if compiled is not None else None,
        measure_text=measure_text,
        measure_on_mask=compiled.on_mask if compiled is not None else None,
        ties=award.get("ties", "nobody"),
        more_than=more_than,
        card=card,
        needs_history=compiled is not None and compiled.needs_history,
        history_reads=compiled.history_reads if compiled is not None else frozenset(),
    )
