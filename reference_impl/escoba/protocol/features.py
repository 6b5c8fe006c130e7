"""Rule features: what an engine declares in `hello`, and what a case requires.

A feature is one value of one rule point, written `POINT:VALUE`: `capture.compulsory:optional`,
`scoring.velo.points:2`, `opening_table.escobas:none`. The vocabulary is the rule points'
(`escoba.rules.points`): each declares its feature value, the values assumed for an engine that
declares nothing about it, and when a case *exercises* it (when the case's expected events
would change if the point took another value). This module reads a case's events for them.

Three features name the table rather than a rule: `players:N` (the number of players, the
point `players.counts`), `match` (a match case, not a single hand) and `measures` (not a
requirement: the engine reports the ruleset's measures exactly, so they are compared).

A case requires the features of the points its expected events exercise (`required_features`),
computed once when the case is written and stored in it (`requires`). An engine declares what
it does (`Declared`): patterns are allowed (`scoring.*.award:more-than-*`), and a point the
engine says nothing about falls back to the rule's defaults. The feature names of protocol
version 1's first vocabulary (`compulsory:card`, `opening:split`, `award:most`, ...) are
aliases (`LEGACY`) and keep meaning what they meant.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

from escoba.memo import ByIdentity
from escoba.rules.points import POINTS, Position, RulePoint, plain, positions, rule_of

#: features that are not rule points
TABLE_FEATURES = ("players", "match", "measures")


# ---------------------------------------------------------------------------------- what a case shows
@dataclass(frozen=True)
class Played:
    """One play of a hand: who, what it took, whether it cleared the table and emptied the
    player's hand, and in which round (the count of deals so far)."""

    seat: int
    take: tuple[str, ...]
    cleared: bool
    emptied: bool
    round: int


@dataclass
class HandFacts:
    """What one hand of a case's expected events shows."""

    dealer: int
    tables: list[list[str]] = field(default_factory=list)  # each table turned up (several on a redeal)
    openings: list[dict] = field(default_factory=list)
    legal: list[dict] = field(default_factory=list)
    captured: bool = False  # someone captured (the dealer taking an opening table counts)
    last_capturer: int | None = None
    last_play_clears: bool = False  # the hand's last play took every card on the table
    plays: list[Played] = field(default_factory=list)
    deals: int = 0  # rounds dealt (the last one once the hand is over)
    dealt: list[list[str]] = field(default_factory=list)  # each hand dealt to a seat, every round
    held: list[int] = field(default_factory=list)  # cards each seat holds
    escobas: list[tuple[dict, dict]] = field(default_factory=list)  # (escoba event, the play)
    taken: dict[int, list[str]] = field(default_factory=dict)  # by side: the cards captured (the pile)
    scored: dict[int, int] = field(default_factory=dict)  # by side: escobas that score (the opening's too)
    leftovers: dict | None = None
    scores: dict[str, dict] = field(default_factory=dict)
    over: bool = False


@dataclass
class Facts:
    """A case as the feature rules see it: its ruleset, table and expected events."""

    doc: Mapping[str, Any]
    players: int
    target: int | None
    events: Sequence[Mapping[str, Any]]
    probe: str | None = None  # the probe's reason, for a probe case
    hands: list[HandFacts] = field(default_factory=list)
    ties: int = 0  # `tie` events (an exact tie over the target)
    match_end: dict | None = None
    totals: list[int] | None = None

    def __post_init__(self) -> None:
        self._walk()

    @cached_property
    def rules(self) -> Any:  # -> Rules, compiled once per document
        return _compiled(self.doc)

    @cached_property
    def jokers(self) -> frozenset[str]:
        return frozenset(f"X{j}" for j in range(1, int(self.doc["deck"].get("jokers", 0)) + 1))

    def _walk(self) -> None:
        hand: HandFacts | None = None
        table: list[str] = []
        last_play: tuple[dict, bool] | None = None  # the last play, and whether it emptied the table
        previous = ""
        for event in self.events:
            kind = event.get("event")
            if kind == "hand_start":
                if hand is None or previous != "opening":  # after a redeal the same hand goes on
                    hand = HandFacts(int(event.get("dealer", 0)))
                    self.hands.append(hand)
                    last_play = None
            elif hand is None:
                previous = str(kind)
                continue
            elif kind == "table":
                table = list(event.get("cards", []))
                hand.tables.append(list(table))
            elif kind == "opening":
                hand.openings.append(dict(event))
                if event.get("action") in ("dealer_takes", "set_aside"):
                    table = []
                if event.get("action") == "dealer_takes":
                    hand.captured, hand.last_capturer = True, event.get("seat")
                    self._take(hand, event.get("side"), event.get("cards", []), int(event.get("escobas") or 0))
            elif kind == "deal":
                hand.deals += 1
                hand.held = [len(cards) for cards in event.get("hands", [])]
                hand.dealt += [[str(c) for c in cards] for cards in event.get("hands", []) if isinstance(cards, list)]
            elif kind == "legal":
                hand.legal.append(dict(event))
            elif kind == "play":
                take = list(event.get("take", []))
                if take:
                    for card in take:
                        if card in table:
                            table.remove(card)
                    hand.captured, hand.last_capturer = True, event.get("seat")
                    last_play = (dict(event), not table)
                else:
                    table.append(str(event.get("card")))
                    last_play = (dict(event), False)
                seat = event.get("seat")
                seat = seat if isinstance(seat, int) else -1
                hand.plays.append(Played(seat, tuple(take), bool(take) and not table, self._last_card(hand, seat), hand.deals))
                if take:
                    self._take(hand, self._side(seat), [event.get("card"), *take], 0)
            elif kind == "escoba" and last_play is not None:
                hand.escobas.append((dict(event), last_play[0]))
                self._take(hand, event.get("side"), [], 1 if event.get("scores", True) else 0)
            elif kind in ("leftovers", "score") and not hand.over:
                hand.over = True
                hand.last_play_clears = last_play is not None and last_play[1]
                if kind == "leftovers":
                    hand.leftovers = dict(event)
                    escoba = 1 if self.doc["leftovers"].get("escoba") else 0
                    self._take(hand, event.get("side"), event.get("cards", []), escoba)
            if kind == "score":
                hand.over = True
                hand.scores[str(event.get("category"))] = dict(event)
            elif kind == "tie":
                self.ties += 1
            elif kind == "totals":
                self.totals = list(event.get("totals", []))
            elif kind == "match_end":
                self.match_end = dict(event)
            previous = str(kind)

    def _side(self, seat: int) -> int | None:
        side_of = self.rules.side_of(self.players) if self.players in self.rules.player_counts else []
        return side_of[seat] if 0 <= seat < len(side_of) else None

    @staticmethod
    def _take(hand: HandFacts, side: Any, cards: Sequence[Any], escobas: int) -> None:
        """Add captured cards (and scoring escobas) to a side's pile, when the event names one."""
        if not isinstance(side, int):
            return
        hand.taken.setdefault(side, []).extend(str(c) for c in cards)
        hand.scored[side] = hand.scored.get(side, 0) + escobas

    def ends(self, hand: HandFacts) -> list[tuple[list[int], int]]:
        """Each side's pile (card indices) and scoring escobas as `hand` ended: what a measure
        of the side reads (without the hand's history)."""
        code = {c: i for i, c in enumerate(self.rules.deck.code)}
        sides = len(self.rules.sides(self.players)) if self.players in self.rules.player_counts else 0
        return [([code[c] for c in hand.taken.get(s, []) if c in code], hand.scored.get(s, 0)) for s in range(sides)]

    @staticmethod
    def _last_card(hand: HandFacts, seat: int) -> bool:
        """Count a card played by `seat`; True when it was the last the seat held."""
        if not 0 <= seat < len(hand.held):
            return False
        hand.held[seat] -= 1
        return hand.held[seat] == 0

    # ------------------------------------------------------------------ questions the rules ask
    def openings(self, action: str | None = None) -> list[dict]:
        return [o for h in self.hands for o in h.openings if action is None or o.get("action") == action]

    def scored(self, category: str) -> list[dict]:
        return [h.scores[category] for h in self.hands if category in h.scores]

    def tables(self) -> list[list[int]]:
        """Every table turned up, as card indices."""
        code = {c: i for i, c in enumerate(self.rules.deck.code)}
        return [[code[c] for c in t if c in code] for h in self.hands for t in h.tables]

    def leftovers(self) -> list[tuple[HandFacts, dict]]:
        """Hands whose leftovers were not empty."""
        return [(h, h.leftovers) for h in self.hands if h.leftovers and h.leftovers.get("cards")]


_COMPILED: ByIdentity[Any] = ByIdentity(64)


def _compiled(doc: Mapping[str, Any]) -> Any:
    from escoba.rules.compile import compile_rules

    return _COMPILED.get(doc, compile_rules)


#: value patterns assumed for feature keys no rule names directly
EXTRA_DEFAULTS: dict[str, tuple[str, ...]] = {"scoring.*.ties": ("nobody",), "match": (), "measures": ()}


def point_features(point: Position, facts: Facts, *, exercised_only: bool = True) -> list[str]:
    """The features of one position of `facts.doc`; only if the case exercises it, by default."""
    rule = point.rule
    if exercised_only and not rule.exercised(point, facts):
        return []
    if rule.features_of is not None:
        return rule.features_of(point, facts, exercised_only)
    value = rule.feature_value(point, facts) if rule.feature_value is not None else plain(point.value)
    return [f"{rule.feature(point.key)}:{value}"]


def required_features(
    doc: Mapping[str, Any],
    players: int,
    target: int | None,
    events: Sequence[Mapping[str, Any]],
    probe: str | None = None,
) -> frozenset[str]:
    """The features a case needs: those of the rule points its expected `events` exercise,
    `players:N`, and `match` for a match case."""
    return frozenset(_features(Facts(doc, players, target, events, probe), exercised_only=True))


def ruleset_features(doc: Mapping[str, Any], players: int, target: int | None = None) -> list[str]:
    """Every feature of a ruleset at a table, exercised or not: what an engine implementing
    exactly that ruleset declares."""
    return _features(Facts(doc, players, target, ()), exercised_only=False)


def _features(facts: Facts, *, exercised_only: bool) -> list[str]:
    found = [f"players:{facts.players}"] + (["match"] if facts.target is not None else [])
    for point in positions(facts.doc):
        if point.key != "players.counts":
            found.extend(point_features(point, facts, exercised_only=exercised_only))
    return found


def point_of(feature: str) -> str | None:
    """The rule point a feature names (`players:3` → `players.counts`, `scoring.x.ties:all` →
    `scoring.x.award`); None for `match` and `measures`."""
    key = feature.split(":", 1)[0]
    if key == "players":
        return "players.counts"
    if key in TABLE_FEATURES:
        return None
    if key.endswith(".ties"):
        return key.removesuffix(".ties") + ".award"
    return key


# ---------------------------------------------------------------------------------- what an engine declares
#: the first vocabulary's names, and the features each stands for
LEGACY: dict[str, tuple[str, ...]] = {
    "partnerships": ("players.partnerships:*",),
    "compulsory:optional": ("capture.compulsory:optional",),
    "compulsory:card": ("capture.compulsory:card",),
    "compulsory:hand": ("capture.compulsory:hand",),
    "opening:dealer_takes": ("opening_table.action:dealer_takes", "opening_table.action:none"),
    "opening:set_aside": ("opening_table.action:set_aside", "opening_table.action:none"),
    "opening:redeal": ("opening_table.action:redeal", "opening_table.action:none"),
    "opening:any_combination": ("opening_table.trigger:any_combination", "opening_table.trigger:all_cards"),
    "opening:split": ("opening_table.max_groups:2", "opening_table.max_groups:1"),
    "jokers": ("deck.jokers:*",),
    "short_stock": ("deal.short_stock:one_at_a_time", "deal.short_stock:forbid"),
    "award:most": ("scoring.*.award:most",),
    "award:threshold": ("scoring.*.award:more-than-*",),
    "award:holder": ("scoring.*.award:holder-*",),
    "award:per_unit": ("scoring.*.award:per-unit",),
    "award:bonus": ("scoring.*.award:bonus",),
    "ties:all": ("scoring.*.ties:all", "scoring.*.ties:nobody"),
    "tie:shared_win": ("match.tie:shared_win", "match.tie:extra_hand"),
    "table_first": ("deal.table_first:yes", "deal.table_first:no"),
    "turn:clockwise": ("turn.direction:clockwise", "turn.direction:counterclockwise"),
    "leader:dealer_left": ("turn.leader:dealer_left", "turn.leader:dealer_right"),
    "next_dealer:left": ("turn.next_dealer:left", "turn.next_dealer:right"),
}


def defaults_for(key: str) -> tuple[str, ...]:
    """The value patterns an engine that declares nothing about feature `key` is assumed to support."""
    for pattern, values in EXTRA_DEFAULTS.items():
        if fnmatch.fnmatchcase(key, pattern) and key.count(".") == pattern.count("."):
            return values
    point = point_of(f"{key}:")
    rule = rule_of(point) if point else None
    return rule.assumed if rule is not None else ()


class Declared:
    """The features of a `hello` reply, aliases expanded, asked whether they cover a requirement."""

    def __init__(self, features: Iterable[str]):
        self.raw = frozenset(features)
        expanded: list[str] = []
        for f in sorted(self.raw):
            expanded.extend(LEGACY.get(f, (f,)))
        self.patterns: list[tuple[str, str]] = [tuple(f.split(":", 1)) if ":" in f else (f, "") for f in expanded]  # type: ignore[misc]
        self._supported: dict[str, bool] = {}

    @property
    def measures(self) -> bool:
        """The engine reports the ruleset's measures exactly: compare them."""
        return "measures" in self.raw

    def supports(self, feature: str) -> bool:
        found = self._supported.get(feature)
        if found is None:  # asked of every case, for the few features a suite requires: once each
            key, _, value = feature.partition(":")
            own = self.declared_values(key) or defaults_for(key)
            found = self._supported[feature] = any(fnmatch.fnmatchcase(value, v) for v in own)
        return found

    def missing(self, required: Iterable[str]) -> list[str]:
        return sorted(f for f in required if not self.supports(f))

    def declared_values(self, key: str) -> list[str]:
        """What the engine declares for one feature key (empty: it says nothing). A key named
        exactly wins over patterns: `scoring.coins.ties:all` beside `scoring.*.ties:*`."""
        exact = [v for k, v in self.patterns if k == key]
        return exact or [v for k, v in self.patterns if fnmatch.fnmatchcase(key, k)]


@lru_cache(maxsize=16)
def declared_by(features: frozenset[str]) -> Declared:
    """The `Declared` of a hello's features, made once per set: a run asks it of every case."""
    return Declared(features)


def reference_features() -> tuple[str, ...]:
    """What the reference engine declares: every value of every point, and `measures`."""
    keys = sorted({rule.feature(rule.key) for rule in POINTS if rule.key not in ("players.counts", "scoring.*")})
    return ("players:2", "players:3", "players:4", "match", "measures", *(f"{k}:*" for k in keys), "scoring.*.ties:*")


# ---------------------------------------------------------------------------------- the documented table
def value_forms(rule: RulePoint) -> str:
    """What the values of a point's feature look like, for the documentation."""
    if rule.forms is not None:
        return rule.forms
    import json

    from escoba.data import schemas_dir

    schema = json.loads((schemas_dir() / "ruleset.schema.json").read_text(encoding="utf-8"))
    spec = schema["properties"].get(rule.section, {}).get("properties", {}).get(rule.name, {})
    if "enum" in spec:
        return ", ".join(f"`{v}`" for v in spec["enum"])
    if spec.get("type") == "boolean":
        return "`yes`, `no`"
    return "a number"


def features_markdown() -> str:
    """The table of rule points and their features (docs/protocol.md shows it; a test keeps it so)."""
    rows = ["| rule point | feature values | assumed when not declared | a case needs it when |", "|---|---|---|---|"]
    for rule in POINTS:
        key = rule.feature(rule.key)
        shown = f"`{rule.key}`" if key == rule.key else f"`{rule.key}` (feature `{key}:N`)"
        default = ", ".join(f"`{v}`" for v in rule.assumed) if rule.assumed else "nothing (declare it)"
        if rule.assumed == ("*",):
            default = "any value"
        if rule.key == "scoring.*":
            default = "—"
        rows.append(f"| {shown} | {value_forms(rule)} | {default} | {rule.when} |")
    return "\n".join(rows) + "\n"


def legacy_markdown() -> str:
    """The table of the first vocabulary's names and what each now stands for."""
    rows = ["| declared | stands for |", "|---|---|"]
    for name, features in LEGACY.items():
        rows.append(f"| `{name}` | {', '.join(f'`{f}`' for f in features)} |")
    return "\n".join(rows) + "\n"
