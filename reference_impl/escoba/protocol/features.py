"""Rule features: what an engine declares in `hello`, and what a case requires.

A feature is one value of one rule point, written `POINT:VALUE`: `capture.compulsory:optional`,
`scoring.velo.points:2`, `opening_table.escobas:none`. The rule points are the rows of the rules
matrix (`escoba.diff.points.extract`, `escoba matrix`), so the vocabulary is derived from them:
`RULES` gives, for every point, the feature(s) it maps to, the values assumed for an engine
that declares nothing about it, and when a case *exercises* it (when the case's expected
events would change if the point took another value). A test fails when a point of any bundled
ruleset has no rule here.

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
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

from escoba.memo import ByIdentity

#: features that are not rule points
TABLE_FEATURES = ("players", "match", "measures")


# ---------------------------------------------------------------------------------- what a case shows
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
    escobas: list[tuple[dict, dict]] = field(default_factory=list)  # (escoba event, the play)
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
            elif kind == "escoba" and last_play is not None:
                hand.escobas.append((dict(event), last_play[0]))
            elif kind in ("leftovers", "score") and not hand.over:
                hand.over = True
                hand.last_play_clears = last_play is not None and last_play[1]
                if kind == "leftovers":
                    hand.leftovers = dict(event)
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


# ---------------------------------------------------------------------------------- values
def _yes(value: Any) -> str:
    return "yes" if value else "no"


def _number(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)


def _plain(value: Any) -> str:
    if isinstance(value, bool):
        return _yes(value)
    return _number(value)


def _partnership(doc: Mapping[str, Any], players: int) -> str:
    for p in doc["players"].get("partnerships") or []:
        if p["players"] == players:
            return "/".join("+".join(str(s) for s in side) for side in p["sides"])
    return "none"


def award_value(award: Mapping[str, Any], doc: Mapping[str, Any]) -> str:
    """The feature value of an award policy: `most`, `more-than-20`, `holder-7d`, `per-unit`, `bonus`."""
    policy = award.get("policy")
    if policy == "threshold":
        from escoba.diff.points import _Meanings

        return f"more-than-{_number(_Meanings(doc).bound(award.get('more_than')))}"
    if policy == "holder":
        from escoba.errors import NotationError
        from escoba.game.cards import Deck

        deck = Deck.from_section(doc["deck"])
        try:
            return f"holder-{deck.code[deck.card(str(award.get('card')))]}"
        except NotationError:
            return f"holder-{award.get('card')}"
    return str(policy).replace("_", "-")


def values_text(table: Mapping[str, Any]) -> str:
    """A values table as a feature value: `7=21,6=18,1=16,...` (highest first)."""
    items = sorted(table.items(), key=lambda kv: (-float(kv[1]), str(kv[0])))
    return ",".join(f"{k}={_number(v)}" for k, v in items)


# ---------------------------------------------------------------------------------- the rules
Predicate = Callable[[Any, Facts], bool]  # (the point, the case) -> exercised?


@dataclass(frozen=True)
class FeatureRule:
    """The features of one rule point (a key pattern of `escoba.diff.points`: `scoring.*.award`)."""

    point: str
    exercised: Predicate
    when: str  # when a case exercises the point, in words (docs/protocol.md's table)
    default: tuple[str, ...] = ("*",)  # value patterns assumed when an engine declares none
    feature: str | None = None  # the feature key, when it is not the point's key (`players`)
    value: Callable[[Any, Facts], str] | None = None  # default: the point's value, plainly

    def key(self, point_key: str) -> str:
        return self.feature or point_key

    def features(self, point: Any, facts: Facts) -> list[str]:
        """Every feature this point has at this table (exercised or not)."""
        value = self.value(point, facts) if self.value is not None else _plain(point.value)
        return [f"{self.key(point.key)}:{value}"]


class _AwardRule(FeatureRule):
    """An award is two features: the policy, and for `most` the tie rule (`scoring.X.ties`)."""

    def features(self, point: Any, facts: Facts) -> list[str]:
        award = point.value
        found = [f"{point.key}:{award_value(award, facts.doc)}"]
        if award.get("policy") == "most":
            found.append(f"{_ties_key(point.key)}:{award.get('ties', 'nobody')}")
        return found


def _ties_key(award_key: str) -> str:
    return award_key.removesuffix(".award") + ".ties"


def _category(point: Any) -> str:
    return point.key.split(".")[1]


def _always(point: Any, facts: Facts) -> bool:
    return True


def _never(point: Any, facts: Facts) -> bool:
    return False


def _at_least(n: int) -> Predicate:
    return lambda point, facts: facts.players >= n


def _stock_divides(point: Any, facts: Facts) -> bool:
    deal = facts.doc["deal"]
    size = len(facts.rules.deck)
    rest = size - int(deal["table_size"])
    return rest % (facts.players * int(deal["hand_size"])) != 0


def _opening_triggers(facts: Facts, trigger: str | None = None, max_groups: int | None = None) -> list[bool]:
    finder, opening = facts.rules.finder, facts.doc["opening_table"]
    trigger = trigger or opening["trigger"]
    groups = int(opening.get("max_groups", 1)) if max_groups is None else max_groups
    found = []
    for table in facts.tables():
        if trigger == "total":  # the sum decides, split or not
            found.append(finder.total_groups(table, groups) > 0)
            continue
        split = finder.split_groups(table, groups) > 0
        found.append(split or (trigger == "any_combination" and finder.any_combination(table)))
    return found


def _trigger_matters(point: Any, facts: Facts) -> bool:
    if facts.doc["opening_table"]["action"] == "none":
        return False
    seen = {tuple(_opening_triggers(facts, t)) for t in ("all_cards", "any_combination", "total")}
    return len(seen) > 1


def _split_matters(point: Any, facts: Facts) -> bool:
    if facts.doc["opening_table"]["action"] == "none":
        return False
    finder, total = facts.rules.finder, facts.doc["opening_table"]["trigger"] == "total"
    return any((finder.total_groups(t, 2) if total else finder.split_groups(t, 2)) >= 2 for t in facts.tables())


def _action_matters(point: Any, facts: Facts) -> bool:
    return bool(facts.openings()) or any(_opening_triggers(facts))


def _opening_escobas_matter(point: Any, facts: Facts) -> bool:
    return any(not (set(o.get("cards", [])) & facts.jokers) or facts.rules.joker_escobas_score for o in facts.openings("dealer_takes"))


def _compulsory_matters(point: Any, facts: Facts) -> bool:
    if facts.probe == "compulsory" or any(e.get("event") == "rejected" and e.get("rule") == "compulsory" for e in facts.events):
        return True  # a probe of the compulsory rule
    for hand in facts.hands:
        for legal in hand.legal:
            if "count" in legal or any(m.get("take") for m in legal.get("moves", [])):
                return True
    return False


def _kinds_matter(point: Any, facts: Facts) -> bool:
    """What a card may take shows in every decision where some card can capture, and in a
    probe of a wrong sum or of a priority."""
    if facts.probe in ("wrong_sum", "priority"):
        return True
    if any(e.get("event") == "rejected" and e.get("rule") in ("wrong_sum", "priority") for e in facts.events):
        return True  # the same, tried among the moves
    return _compulsory_matters(point, facts)


def _target_used(point: Any, facts: Facts) -> bool:
    """The target is a rule only where a capture kind sums to it or the opening table uses it."""
    sums = [k["sum"] for k in facts.doc["capture"].get("kinds") or [{"sum": "target"}]]
    return "target" in sums or facts.doc["opening_table"]["action"] != "none"


def _kinds_value(point: Any, facts: Facts) -> str:
    """`target`, `card-single_card`, `card-fewest_cards,target`: each kind's sum, and its
    priority unless none; sorted, since the order of kinds means nothing."""
    kinds = point.value or [{"sum": "target"}]
    return ",".join(sorted(k["sum"] + ("" if k.get("priority", "none") == "none" else f"-{k['priority']}") for k in kinds))


def _last_play_sweeps(point: Any, facts: Facts) -> bool:
    return any(h.last_play_clears for h in facts.hands)


def _joker_escobas(point: Any, facts: Facts) -> bool:
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


def _leftovers_to_matter(point: Any, facts: Facts) -> bool:
    return any(h.captured for h, _ in facts.leftovers())


def _leftovers_taken(point: Any, facts: Facts) -> bool:
    return any(e.get("side") is not None for _, e in facts.leftovers())


def _nobody_captured(point: Any, facts: Facts) -> bool:
    if facts.doc["leftovers"].get("to") != "last_capturer":
        return False
    return any(not h.captured for h, _ in facts.leftovers())


def _scored(point: Any, facts: Facts) -> bool:
    return bool(facts.scored(_category(point)))


def _points_awarded(point: Any, facts: Facts) -> bool:
    return any(any(p for p in e.get("points", [])) for e in facts.scored(_category(point)))


def _values_used(point: Any, facts: Facts) -> bool:
    name = point.key.split(".", 1)[1]
    word = re.compile(rf"\b{re.escape(name)}\b")
    for category in facts.doc["scoring"]["categories"]:
        if word.search(str(category.get("measure", ""))) and facts.scored(str(category["id"])):
            return True
    return False


def _is_match(point: Any, facts: Facts) -> bool:
    return facts.target is not None


def _several_reach(point: Any, facts: Facts) -> bool:
    if facts.target is None or facts.totals is None:
        return False
    return sum(1 for t in facts.totals if t >= facts.target) >= 2


def _match_tie(point: Any, facts: Facts) -> bool:
    return facts.ties > 0 or (facts.match_end is not None and len(facts.match_end.get("winners", [])) > 1)


def _next_dealer_matters(point: Any, facts: Facts) -> bool:
    return facts.target is not None and facts.players >= 3 and len(facts.hands) >= 2


def _deck_suits(point: Any, facts: Facts) -> str:
    return ",".join(str(s["id"]) for s in point.value or ())


def _deck_ranks(point: Any, facts: Facts) -> str:
    return ",".join(f"{r['id']}={_number(r['value'])}" for r in point.value or ())


def _list(point: Any, facts: Facts) -> str:
    return ",".join(_number(v) for v in sorted(set(point.value or [])))


RULES: tuple[FeatureRule, ...] = (
    FeatureRule("deck.suits", _always, "always (every case deals the deck)", value=_deck_suits),
    FeatureRule("deck.ranks", _always, "always (capture values decide every capture)", value=_deck_ranks),
    FeatureRule("deck.scoring_suit", _never, "never: no event depends on it (measures name their suit)"),
    FeatureRule("deck.jokers", _always, "always (jokers change the deal)", default=("0",)),
    FeatureRule("players.counts", _always, "always: the case's number of players", default=(), feature="players",
                value=lambda p, f: str(f.players)),
    FeatureRule("players.partnerships", _at_least(4), "four players or more", default=("none",),
                value=lambda p, f: _partnership(f.doc, f.players)),
    FeatureRule("turn.direction", _at_least(3), "three players or more (at two, both ways are the same)",
                default=("counterclockwise",)),
    FeatureRule("turn.leader", _at_least(3), "three players or more (at two, the dealer's right is the left)",
                default=("dealer_right",)),
    FeatureRule("turn.next_dealer", _next_dealer_matters, "a match of two hands or more, at three players or more",
                default=("right",)),
    FeatureRule("deal.hand_size", _always, "always"),
    FeatureRule("deal.table_size", _always, "always"),
    FeatureRule("deal.table_first", _always, "always (it changes which cards go where)", default=("no",)),
    FeatureRule("deal.short_stock", _stock_divides, "the stock does not divide into whole rounds at this table",
                default=("forbid",)),
    FeatureRule("deal.open_hands", _never, "never: no event depends on it"),
    FeatureRule("opening_table.trigger", _trigger_matters,
                "a table turned up on which the triggers disagree: part of it makes the target but the whole "
                "does not split, or the whole adds up to it without splitting",
                default=("all_cards",)),
    FeatureRule("opening_table.max_groups", _split_matters, "a table turned up that splits into two groups making the target",
                default=("1",)),
    FeatureRule("opening_table.action", _action_matters, "a table turned up that the opening rule acts on",
                default=("none",)),
    FeatureRule("opening_table.escobas", _opening_escobas_matter, "the dealer takes an opening table"),
    FeatureRule("capture.target", _target_used, "a capture kind sums to it, or the opening table rule uses it",
                value=lambda p, f: "none" if p.value is None else _plain(p.value)),
    FeatureRule("capture.compulsory", _compulsory_matters,
                "a decision where some card can capture (or a probe of the compulsory rule)", default=()),
    FeatureRule("capture.kinds", _kinds_matter,
                "a decision where some card can capture (or a probe of a wrong sum or a priority)",
                default=("target",), value=_kinds_value),
    FeatureRule("capture.escoba_on_last_play", _last_play_sweeps, "the hand's last play takes every card on the table"),
    FeatureRule("capture.joker_escobas_score", _joker_escobas, "an escoba (or an opening take) made with a joker"),
    FeatureRule("leftovers.to", _leftovers_to_matter, "cards are left at the end of a hand in which someone captured"),
    FeatureRule("leftovers.escoba", _leftovers_taken, "cards left at the end go to a side"),
    FeatureRule("leftovers.if_nobody_captured", _nobody_captured, "cards are left at the end of a hand in which nobody captured"),
    FeatureRule("scoring.*", _scored, "the category is scored (its features are those of its award)",
                default=(), value=None, feature=None),
    _AwardRule("scoring.*.award", _scored, "the category is scored; `ties` when the leaders tie", default=()),
    FeatureRule("scoring.*.measure", _scored, "the category is scored"),
    FeatureRule("scoring.*.points", _points_awarded, "someone scores the category"),
    FeatureRule("values.*", _values_used, "a category whose measure uses the table is scored", value=lambda p, f: values_text(p.value)),
    FeatureRule("match.target", _never, "never: `start` names the target of a match case"),
    FeatureRule("match.target_options", _never, "never: `start` names the target of a match case", value=_list),
    FeatureRule("match.check", _is_match, "a match case"),
    FeatureRule("match.several_reach", _several_reach, "a match that ends with several sides over the target"),
    FeatureRule("match.tie", _match_tie, "an exact tie over the target", default=("extra_hand",)),
)  # fmt: skip

#: value patterns assumed for feature keys no rule names directly
EXTRA_DEFAULTS: dict[str, tuple[str, ...]] = {"scoring.*.ties": ("nobody",), "match": (), "measures": ()}


def rule_for(point_key: str) -> FeatureRule | None:
    """The rule of a point key (`scoring.velo.award` → the `scoring.*.award` rule)."""
    for rule in RULES:
        if _key_matches(rule.point, point_key):
            return rule
    return None


def _key_matches(pattern: str, key: str) -> bool:
    """`*` stands for one dotted part: `scoring.*` is a category, not its award."""
    parts, want = key.split("."), pattern.split(".")
    return len(parts) == len(want) and all(w == "*" or w == p for w, p in zip(want, parts))


def point_features(point: Any, facts: Facts, *, exercised_only: bool = True) -> list[str]:
    """The features of one point of `facts.doc`; only if the case exercises it, by default."""
    rule = rule_for(point.key)
    if rule is None:
        raise LookupError(f"no feature rule for the rule point {point.key!r} (protocol/features.py RULES)")
    if rule.point == "scoring.*":  # a category is its award
        return []
    if exercised_only and not rule.exercised(point, facts):
        return []
    found = rule.features(point, facts)
    if exercised_only and isinstance(rule, _AwardRule) and len(found) > 1 and not _leaders_tie(point, facts):
        found = found[:1]
    return found


def _leaders_tie(point: Any, facts: Facts) -> bool:
    for event in facts.scored(_category(point)):
        measures = [m for m in event.get("measures", []) if m is not None and not isinstance(m, bool)]
        if len(measures) >= 2 and measures.count(max(measures)) >= 2:
            return True
    return False


def required_features(
    doc: Mapping[str, Any],
    players: int,
    target: int | None,
    events: Sequence[Mapping[str, Any]],
    probe: str | None = None,
) -> frozenset[str]:
    """The features a case needs: those of the rule points its expected `events` exercise,
    `players:N`, and `match` for a match case."""
    from escoba.diff.points import extract

    facts = Facts(doc, players, target, events, probe)
    need = {f"players:{players}"}
    if target is not None:
        need.add("match")
    for point in extract(doc):
        if point.key == "players.counts":
            continue
        need.update(point_features(point, facts))
    return frozenset(need)


def ruleset_features(doc: Mapping[str, Any], players: int, target: int | None = None) -> list[str]:
    """Every feature of a ruleset at a table, exercised or not: what an engine implementing
    exactly that ruleset declares."""
    from escoba.diff.points import extract

    facts = Facts(doc, players, target, ())
    found = [f"players:{players}"] + (["match"] if target is not None else [])
    for point in extract(doc):
        if point.key == "players.counts":
            continue
        found.extend(point_features(point, facts, exercised_only=False))
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
        if _key_matches(pattern, key):
            return values
    point = point_of(f"{key}:")
    rule = rule_for(point) if point else None
    return rule.default if rule is not None else ()


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
    keys = sorted({rule.key(rule.point) for rule in RULES if rule.point not in ("players.counts", "scoring.*")})
    return ("players:2", "players:3", "players:4", "match", "measures", *(f"{k}:*" for k in keys), "scoring.*.ties:*")


# ---------------------------------------------------------------------------------- the documented table
_FORMS = {
    "deck.suits": "the suit ids in order: `oros,copas,espadas,bastos`",
    "deck.ranks": "`id=value` per rank in order: `1=1,2=2,…,rey=10`",
    "deck.jokers": "a number: `0`, `2`",
    "deck.scoring_suit": "a suit id: `oros`",
    "players.counts": "the case's number of players: `players:2`",
    "players.partnerships": "`none`, or the sides at the case's table: `0+2/1+3`",
    "capture.kinds": "each kind's sum, with `-priority` unless none, sorted: `target`, `card-single_card`, `card-fewest_cards,target`",
    "scoring.*": "(those of its award)",
    "scoring.*.award": "`most`, `more-than-N`, `holder-CODE` (`holder-7d`), `per-unit`, `bonus`; and `scoring.X.ties:nobody` / `:all` for `most`",
    "scoring.*.measure": "the measure's canonical text: `count(cards)`",
    "scoring.*.points": "a number",
    "values.*": "`key=value`, highest first: `7=21,6=18,1=16,…`",
    "match.target_options": "numbers: `15,21`",
}


def value_forms(rule: FeatureRule) -> str:
    """What the values of a rule's feature look like, for the documentation."""
    if rule.point in _FORMS:
        return _FORMS[rule.point]
    import json

    from escoba.data import schemas_dir

    section, key = rule.point.split(".", 1)
    schema = json.loads((schemas_dir() / "ruleset.schema.json").read_text(encoding="utf-8"))
    spec = schema["properties"].get(section, {}).get("properties", {}).get(key, {})
    if "enum" in spec:
        return ", ".join(f"`{v}`" for v in spec["enum"])
    if spec.get("type") == "boolean":
        return "`yes`, `no`"
    return "a number"


def features_markdown() -> str:
    """The table of rule points and their features (docs/protocol.md shows it; a test keeps it so)."""
    rows = ["| rule point | feature values | assumed when not declared | a case needs it when |", "|---|---|---|---|"]
    for rule in RULES:
        key = rule.key(rule.point)
        shown = f"`{rule.point}`" if key == rule.point else f"`{rule.point}` (feature `{key}:N`)"
        default = ", ".join(f"`{v}`" for v in rule.default) if rule.default else "nothing (declare it)"
        if rule.default == ("*",):
            default = "any value"
        if rule.point == "scoring.*":
            default = "—"
        rows.append(f"| {shown} | {value_forms(rule)} | {default} | {rule.when} |")
    return "\n".join(rows) + "\n"


def legacy_markdown() -> str:
    """The table of the first vocabulary's names and what each now stands for."""
    rows = ["| declared | stands for |", "|---|---|"]
    for name, features in LEGACY.items():
        rows.append(f"| `{name}` | {', '.join(f'`{f}`' for f in features)} |")
    return "\n".join(rows) + "\n"
