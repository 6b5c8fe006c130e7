"""Resolved ruleset document → `Rules`: everything the engine runs, decided once.

The engine never looks at the YAML again: each choice a ruleset makes becomes a field here
(an int offset, a flag, a compiled measure), so the hot loop pays nothing for generality.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from escoba.game import seats
from escoba.game.capture import DEFAULT_KINDS, CaptureFinder, Kind, TableKind
from escoba.game.cards import Deck
from escoba.outputs import register_suits
from escoba.rules.frozen import freeze
from escoba.rules.points import REQUIRED, RulePoint, meanings_of
from escoba.rules.points.capture import kinds_of
from escoba.rules.points.catalogue import CATEGORY_POINTS, SECTION_POINTS, category_value, section_value
from escoba.rules.points.match import Outright


@dataclass(frozen=True)
class Category:
    """A scoring category: a measure per side and a policy that turns measures into points."""

    id: str
    title: str
    policy: str  # most | threshold | holder | per_unit | bonus
    points: int
    # measure(pile, escobas, history=None): history is the side's engine/history.SideHistory,
    # needed (and then required) when `needs_history`.
    measure: Callable[..., Any] | None = None  # None: a holder's category measures nothing
    measure_text: str | None = None
    # the same measure of a pile given as a bitmask: (mask, escobas, history=None), the side's
    # history needed as for `measure`
    measure_on_mask: Callable[..., Any] | None = None
    ties: str = "nobody"  # most: nobody | all
    more_than: float | None = None  # threshold
    card: int | None = None  # holder
    needs_history: bool = False
    history_reads: frozenset[str] = frozenset()  # the history's names the measure reads (`Compiled`)
    # pile: the side's captures as the hand ends; dealt: each hand as dealt to the side, the
    # values added up (a declaration, engine/declarations.py); table: the opening table, for
    # the dealer's side.
    measured_on: str = "pile"


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
    escoba_on_last_card: bool  # False: a sweep with a player's own last card of the hand is no escoba
    joker_escobas_score: bool
    leftovers_to: str
    leftovers_escoba: bool
    if_nobody_captured: str
    categories: tuple[Category, ...]
    match_target: int
    target_options: tuple[int, ...]
    tie: str  # extra_hand | shared_win
    # The conditions that win a match at once (cappotto: every coin); none by default.
    wins_outright: tuple[Outright, ...] = ()
    # Added with capture kinds and event measures (issue 14); defaults keep older callers working.
    # (sum, priority) pairs: what a played card may take (engine/capture.py); Escoba's default
    # is ((target, none),), and `finder.simple` says so.
    capture_kinds: tuple[Kind, ...] = DEFAULT_KINDS
    # The kind that takes the whole table (`sum: table`), kept apart from the kinds that sum;
    # None: no card does. The finder knows which cards it is (`CaptureFinder.whole_table`).
    table_kind: TableKind | None = None
    # Some measure reads the hand's history (captures, sweeps, last_capture): Hand then records
    # it and passes it to the measures. Decided here, once, so other rulesets pay nothing.
    needs_history: bool = False
    # Which of its names they read: the fused simulation loop records only the sweeps when no
    # measure reads every capture, and no capture when they read only last_capture.
    history_reads: frozenset[str] = frozenset()
    # The indices of the categories measured on dealt cards (a hand, the opening table), not
    # on the pile: Hand adds them up as the cards are dealt. Empty for most rulesets.
    declarations: tuple[int, ...] = ()
    # A card that stands for any card when a dealt hand is measured (None: none does).
    declaration_wild: int | None = None
    # Conditions on the opening table as turned up (`fn(cards, escobas)`): deal again; the dealer
    # takes it (no escoba). None: no such condition (engine/hand.opening_of).
    opening_redeal_when: Callable[..., Any] | None = None
    opening_takes_when: Callable[..., Any] | None = None

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
    """Compile a resolved, validated ruleset document (`Rules.doc` is a frozen copy of it):
    each rule point compiles its own fields (`escoba.rules.points`); the rest is derived."""
    doc = freeze(doc)
    deck = meanings_of(doc).deck()
    register_suits(deck.suit_symbols, deck.suit_ascii)  # shown as letters where an output cannot show them
    fields = _fields(SECTION_POINTS, lambda rule: section_value(doc, rule)[0], doc)
    kinds, target = fields["capture_kinds"], fields["target"]
    values = deck.rank_values
    table: TableKind | None = fields.get("table_kind")
    takes = [not deck.is_joker(c) and deck.rank_ids[deck.rank[c]] in table.ranks for c in deck.cards] if table else None
    finder = CaptureFinder(
        deck.value, [deck.is_joker(c) for c in deck.cards], target, min(values), max(values), kinds,
        takes, deck.rank, table.unless_same_rank if table else False,
    )  # fmt: skip
    categories = tuple(Category(**_category_fields(cat, doc)) for cat in doc["scoring"]["categories"])
    outright: tuple[Outright, ...] = fields.get("wins_outright", ())
    return Rules(
        id=doc["id"],
        doc=doc,
        deck=deck,
        finder=finder,
        categories=categories,
        needs_history=any(c.needs_history for c in categories) or any(o.needs_history for o in outright),
        history_reads=frozenset().union(*(c.history_reads for c in categories), *(o.history_reads for o in outright)),
        declarations=tuple(i for i, c in enumerate(categories) if c.measured_on != "pile"),
        **fields,
    )


def _fields(rules: Sequence[RulePoint], value_of: Callable[[RulePoint], Any], doc: Mapping[str, Any]) -> dict[str, Any]:
    """The compiled fields of these points (a point absent from the document, as a holder's
    measure, leaves its fields to their defaults)."""
    fields: dict[str, Any] = {}
    for rule in rules:
        value = value_of(rule)
        if not rule.fields or (value is None and rule.default is REQUIRED):
            continue
        compiled = rule.compile(value, doc)
        fields.update(zip(rule.fields, compiled) if len(rule.fields) > 1 else ((rule.fields[0], compiled),))
    return fields


def _category_fields(cat: Mapping[str, Any], doc: Mapping[str, Any]) -> dict[str, Any]:
    return _fields(CATEGORY_POINTS, lambda rule: category_value(cat, rule)[0], doc)


def capture_kinds(capture: Mapping[str, Any]) -> tuple[Kind, ...]:
    """`capture.kinds` as (sum, priority) pairs; left out, Escoba's one kind."""
    return kinds_of(capture.get("kinds"))
