"""A bundled case as a scenario under the rules an engine declares.

A golden case is also a *scenario*: seats, a dealer, deck orders, and a line of moves and
probes chosen to reach a rare situation. An engine that plays its own rules
(conformance/declared.py) is sent each scenario with its declared ruleset in `start`, and the
reference computes what those rules make of it (`conformance.walk`: moves not legal under them
replaced by a deterministic substitute, probes they allow left out, hands played out or cut,
each said in the case's notes).

A scenario is skipped, with the reason, only where the case's fixed points forbid it: a deck the
declared rules do not have (a deck of the same shape, with other names, is translated card for
card: the suits by id, or in order with the coins suit to the coins suit), or a table of a size
they do not allow.

Hand-audited pins (`pins`) are checked where the declared rules agree with the case's own on
every point the pin's event depends on: the points whose `shows_in` (rules/points) holds that
event's kind or an event before it in a hand (`UPSTREAM`; for a score, the other categories
aside), compared by meaning, and only where the line has not left the script before the pin's
place. A pin that should hold and does not is a note (the reference and the registry disagree:
a bug of escoba's, reported, never blamed on the engine).

Expected events are computed once per declared document and case (`_CACHE`, keyed by the
document's digest and the case's content): the pytest plugin, shrinking and a second run in
one process pay nothing again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from escoba.conformance.declared import DeclaredRules
from escoba.conformance.driver import HandPlan, Plan
from escoba.conformance.walk import ProbeEntry, Walk, script_of
from escoba.errors import EscobaError, TranscriptError
from escoba.game.cards import Deck
from escoba.protocol.messages import Play, RawPlay

# The kinds of event whose rules an event of each kind depends on: what comes before it in a hand.
_DEAL = ("hand_start", "deal", "table", "opening")
_PLAY = (*_DEAL, "legal", "perft", "rejected", "state", "escoba")
_END = (*_PLAY, "leftovers", "score", "hand_end")
UPSTREAM: dict[str, tuple[str, ...]] = {
    **{k: _DEAL for k in _DEAL},
    **{k: _PLAY for k in ("legal", "perft", "rejected", "state", "play", "escoba")},
    "leftovers": (*_PLAY, "leftovers"),
    "score": (*_PLAY, "leftovers", "score"),
    "hand_end": _END,
    "totals": (*_END, "totals"),
    "tie": (*_END, "totals", "tie"),
    "match_end": (*_END, "totals", "tie", "match_end"),
}


MAX_PERFT = 1000  # lines a scenario's perft count may walk on the engine (the bundled counts go to 832)


@dataclass(frozen=True)
class Skip:
    """A scenario the declared rules cannot play, and why."""

    reason: str


@dataclass
class Scenario:
    """What became of a case under declared rules: the notes for the report, and its pins."""

    notes: list[str] = field(default_factory=list)
    substitutions: int = 0
    pins_checked: int = 0
    pins_skipped: int = 0
    pins_broken: list[str] = field(default_factory=list)  # pins that should hold and do not
    translated: str | None = None  # how the deck orders were translated, when they were


def scenario_plan(case: Any, declared: DeclaredRules) -> Plan | Skip:
    """The plan of `case` as a scenario under `declared` (or why it is skipped), from the cache
    when this document and this case were planned before in the process."""
    key = (declared.digest, _case_key(case))
    hit = _CACHE.get(key)
    if hit is None:
        if len(_CACHE) > 4096:
            _CACHE.clear()
        hit = _CACHE[key] = _plan(case, declared)
    if isinstance(hit, Skip):
        return hit
    # Plans are filled in by the driver (steps): each run its own, sharing the expected events.
    return Plan(hit.case if hit.case is case else case, hit.doc, hit.required, hit.hands, hit.expected, hit.decide_at_end,
                None, None, list(hit.steps or ()), list(hit.requests or ()), rules=hit.rules, script=hit.script,
                scenario=hit.scenario)  # fmt: skip


_CACHE: dict[tuple[str, str], Plan | Skip] = {}


def _case_key(case: Any) -> str:
    body = [case.id, str(case.path), case.kind, case.players, case.dealer, case.target, case.legal,
            [[list(h.decks), [e if isinstance(e, str) else [e.move, e.reason] for e in h.line]] for h in case.hands],
            [case.probe.move, case.probe.reason] if case.probe else None, case.perft.depth if case.perft else None]  # fmt: skip
    return hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode("utf-8")).hexdigest()[:24]


def _plan(case: Any, declared: DeclaredRules) -> Plan | Skip:
    from escoba.protocol.features import required_features

    rules = declared.rules
    if case.players not in rules.player_counts:
        counts = ", ".join(map(str, rules.player_counts))
        return Skip(f"a table of {case.players} players; the declared rules ({declared.name}) are played by {counts}")
    try:
        own = case.rules
    except (EscobaError, TranscriptError) as problem:
        return Skip(f"the case's own ruleset does not load: {str(problem).splitlines()[0]}")
    mapping, translated = translation(own.deck, rules.deck)
    if mapping is None and translated is not None:
        return Skip(translated)
    script = script_of(case, mapping, rules.deck.code) if mapping is not None else script_of(case)
    walk = Walk(script, rules, declared.doc, max_perft=MAX_PERFT)
    steps = list(walk.steps())
    if not steps:
        return Skip(walk.notes[-1] if walk.notes else "the declared rules cannot deal it")
    expected = [e for s in steps for e in s.expected]
    scenario = Scenario(translated=translated)
    scenario.substitutions = len(walk.substituted)
    if translated:
        scenario.notes.append(translated)
    if walk.substituted:
        n = len(walk.substituted)
        scenario.notes.append(f"{n} move{'s' if n > 1 else ''} of the case not legal under the declared rules, each replaced by the nearest legal move (first: {walk.substituted[0]})")
    scenario.notes += walk.notes
    _check_pins(case, declared, expected, walk, scenario)
    final = next((s for s in steps if s.kind == "probe" and s.what == "the probe"), None)
    reason = str(final.expected[0].get("rule")) if final is not None else None
    required = required_features(declared.doc, case.players, case.target, expected, reason)
    hands = []
    for h, line in enumerate(walk.lines):
        decks = [[rules.deck.code[c] for c in order] for order in walk.decks[h]]
        sent = [RawPlay(e.wire) if isinstance(e, ProbeEntry) else Play(rules.deck.code[e.card], tuple(rules.deck.code[c] for c in e.take)) for e in line]
        hands.append(HandPlan(decks, sent))
    if not hands:
        hands.append(HandPlan([[rules.deck.code[c] for c in order] for order in walk.decks[0]], []))
    line_steps = [(s.kind, s.request, s.what) for s in steps if s.request is not None]
    decide_at_end = script.kind != "game" and expected[-1]["event"] in ("legal", "perft")
    return Plan(case, declared.doc, frozenset(required), hands, expected, decide_at_end, None, None,  # type: ignore[arg-type]
                line_steps, [r for _, r, _ in line_steps], rules=rules, script=script, scenario=scenario)  # fmt: skip


# ---------------------------------------------------------------------------------- decks
def translation(source: Deck, target: Deck) -> tuple[list[int] | None, str | None]:
    """(None, None) for the same deck; (the map of card indices, what it did) for a deck of the
    same shape with other names; (None, why not) for another deck."""
    if source.code == target.code:
        return None, None
    shape = (len(source.suit_ids), len(source.rank_ids), source.jokers, source.rank_values)
    if shape != (len(target.suit_ids), len(target.rank_ids), target.jokers, target.rank_values):
        return None, f"dealt from {describe_deck(source)}, the declared rules' deck is {describe_deck(target)}"
    if set(source.suit_ids) == set(target.suit_ids):
        suits = [target.suit_ids.index(s) for s in source.suit_ids]
    else:  # the coins suit to the coins suit, the others in order
        order_s = [source.scoring_suit, *(i for i in range(len(source.suit_ids)) if i != source.scoring_suit)]
        order_t = [target.scoring_suit, *(i for i in range(len(target.suit_ids)) if i != target.scoring_suit)]
        suits = [0] * len(order_s)
        for a, b in zip(order_s, order_t):
            suits[a] = b
    n = len(source.rank_ids)
    mapping = []
    for card in source.cards:
        if source.is_joker(card):
            mapping.append(card)  # jokers come last in both, in order
        else:
            mapping.append(suits[source.suit[card]] * n + source.rank[card])
    pairs = [f"{target.code[mapping[c]]} for {source.code[c]}" for c in source.cards if source.code[c] != target.code[mapping[c]]]
    return mapping, f"the deck orders translated card for card to the declared rules' deck ({', '.join(pairs[:3])}, …)"


def describe_deck(deck: Deck) -> str:
    """`42 cards (oros, copas, espadas, bastos × 10 ranks, 2 jokers)`."""
    jokers = f", {deck.jokers} jokers" if deck.jokers else ""
    return f"{len(deck)} cards ({', '.join(deck.suit_ids)} × {len(deck.rank_ids)} ranks{jokers})"


# ---------------------------------------------------------------------------------- pins
def _check_pins(case: Any, declared: DeclaredRules, expected: list[dict], walk: Walk, scenario: Scenario) -> None:
    from escoba.rules.points import by_key, positions
    from escoba.transcript.case import pin_found, pin_matches, places

    if not case.pins:
        return
    mine, theirs = by_key(positions(declared.doc)), by_key(positions(case.document))
    where = places(case.expect)
    for pin in case.pins:
        differing = _differing_points(pin, mine, theirs)
        if differing:
            scenario.pins_skipped += 1
            continue
        if walk.changed is not None:
            at = pin.get("at")
            found = [p for p in where if (at is None or p.is_at(at)) and pin_matches(pin, case.expect[p.index])]
            if not found or (found[0].hand, -1 if found[0].move is None else found[0].move) >= walk.changed:
                scenario.pins_skipped += 1
                continue
        scenario.pins_checked += 1
        if not pin_found(pin, expected):
            shown = json.dumps(pin, ensure_ascii=False)
            scenario.pins_broken.append(shown)
            scenario.notes.append(f"a hand-audited pin does not hold under the declared rules, which agree with the case's on every point it depends on: {shown} (an escoba bug: please report)")


def _differing_points(pin: Mapping[str, Any], mine: Mapping[str, Any], theirs: Mapping[str, Any]) -> list[str]:
    """The points a pin's event depends on where the two rulesets answer otherwise."""
    kind = str(pin.get("event"))
    kinds = set(UPSTREAM.get(kind, _END))
    category = pin.get("category") if kind == "score" else None
    found = []
    for key in sorted(mine.keys() | theirs.keys()):
        a, b = mine.get(key), theirs.get(key)
        either = a if a is not None else b
        assert either is not None  # a key of one of the two
        rule = either.rule
        if not kinds & set(rule.shows_in):
            continue
        parts = key.split(".")
        if category is not None and parts[0] == "scoring" and len(parts) >= 2 and parts[1] != category:
            continue
        if a is None or b is None or a.meaning != b.meaning:
            found.append(key)
    return found
