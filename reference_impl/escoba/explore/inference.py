"""Identify: which rules does this engine play?

The engine is always sent one ruleset (the one it claims to play, `base` unless told). What it
does is compared with a **hypothesis**, a resolved ruleset document that starts as the one sent:
seeded games (`escoba.explore.games`, biased toward rare situations) are played under the
hypothesis by the reference engine and run on the engine through the conformance runner. At a
divergence the hypothesis is changed so that it explains what the engine said, smallest change
first:

1. **one rule point set to another value**: the values bundled rulesets give the point, the
   values the ruleset schema allows, and for an award the readings the attribution knows
   (ties to all or to nobody, "at least" for "more than", most for a threshold, 0–4 points);
   the point the runner attributed the divergence to is tried first. A value explains the
   divergence when the reference engine, playing the same deal and moves under the changed
   hypothesis, says every event the engine said, the divergent one included.
   Which categories are scored is a point too: a bundled ruleset's category the hypothesis
   lacks may be scored after the others, or in place of one (`changed`);
2. **another bundled ruleset**, with the points already inferred laid over it.

A change is judged on the engine's events up to its divergent one (`_through`): what follows in
the same reply is judged when the game runs again under the new hypothesis.

A change must also explain every game played before (the engine passed each under the
hypothesis of its time); when no change of the hypothesis does, each earlier adoption is
withdrawn in turn (latest first) and the changes of what is left are tried, so that a first
guess two points could explain (an opening 30 ignored: at most one group, or only a table that
splits) is corrected by a later game that tells them apart. A change that explains it is
adopted and the game is run again; a divergence nothing explains
is reported as "differs: no value of this rule point matches", with its case, and never
guessed; it stops only its own game there (`confine`): the events before it still count. Games
the engine refuses, crashes or times out on decide nothing.

`escoba identify` then checks the house rule on every bundled scenario
(`escoba.explore.recheck`); a point no game decided that a scenario proves (`proven`) joins it
(`adopt`).

The result names the bundled ruleset closest to the final hypothesis (over the points some game
that ran to its end exercised: see `escoba.conformance.profile`; which categories are scored and
the deck, which any such game decides, always count), each point where the engine
departs from it with the minimal case that shows it (`escoba.explore.shrinking`), the points
no game decided, and a house rule (`extends:` the closest ruleset, each departing point set and
marked `status: inferred`) under which the engine passes every game played.
"""

from __future__ import annotations

import copy
import functools
import json
import random
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from escoba.conformance.attribute import concerns
from escoba.conformance.compare import first_divergence
from escoba.conformance.report import NAME_LIMIT
from escoba.conformance.runner import CaseResult
from escoba.errors import EscobaError
from escoba.escape import shorten
from escoba.explore.harness import Harness, case_length, fill_case
from escoba.protocol.client import Session
from escoba.rules.bundled import bundled, categories_of, other_categories
from escoba.rules.points import with_value

GAMES = 40
# The styles of play (escoba.explore.games) without `greedy`, whose card values are measured
# afresh for every hypothesis (seconds each).
STYLES = ("random", "sweeper", "placer", "leveller")
ADOPTIONS = 12  # changes to the hypothesis one game may need
# What the runner's attribution calls a divergence of a point every ruleset shares, and the
# concerns whose points may explain it.
COMMON_CONCERNS = {
    "common.deal": ("deal", "players", "opening"),
    "common.turn": ("players",),
    "common.captures": ("capture",),
    "common.move_order": ("capture",),
    "common.refusals": ("capture",),
    "common.escoba": ("capture", "opening", "leftovers"),
    "common.hand_total": ("scoring", "leftovers"),
    "common.match": ("match",),
}


@dataclass
class Departure:
    """A rule point where the engine plays another value than the closest ruleset."""

    point: str
    label: str
    value: Any  # the value the engine plays (plain JSON data)
    text: str
    closest_text: str  # what the closest ruleset says
    found: dict  # the game that showed it (under the hypothesis of the time)
    case: dict | None = None  # the minimal case, under the closest ruleset
    steps: list[str] = field(default_factory=list)
    scenario: str | None = None  # for a point no game decided: the bundled scenario that proved it (the check)

    def to_json(self) -> dict:
        return {
            "point": self.point, "label": self.label, "value": self.value, "text": self.text,
            "closest": self.closest_text, "case": self.case["id"] if self.case else None,
            "case_events": case_length(self.case) if self.case else None, "shrink_steps": self.steps,
            "scenario": self.scenario,
        }  # fmt: skip


@dataclass
class Unmatched:
    """A divergence no value of any rule point explains."""

    point: str | None
    case: dict  # the game that showed it (under the hypothesis of the time)
    result: CaseResult
    minimal: dict | None = None  # the smallest case showing it under the closest ruleset

    def to_json(self) -> dict:
        d = self.result.divergence
        return {"point": self.point, "case": self.minimal["id"] if self.minimal else None, "message": self.result.message,
                "divergence": d.to_json() if d else None}  # fmt: skip


@dataclass
class Identification:
    """What `identify` found."""

    engine: str
    sent: str  # the ruleset the engine was sent
    seed: int
    closest: str = ""
    departures: list[Departure] = field(default_factory=list)
    unmatched: list[Unmatched] = field(default_factory=list)
    decided: list[str] = field(default_factory=list)  # points some complete game exercised
    from_sent: list[str] = field(default_factory=list)  # decided points where it departs from the ruleset sent
    undecided: dict[str, str] = field(default_factory=dict)  # point → why not
    games: int = 0
    positions: int = 0  # targeted positions run (escoba.explore.targeted)
    targeted: list[str] = field(default_factory=list)  # points whose candidate values targeted positions told apart
    cases: int = 0
    refused: int = 0  # games the engine refused, crashed or timed out on
    adopted: list[str] = field(default_factory=list)  # each change to the hypothesis, in words
    house_rule: str = ""
    seconds: float = 0.0
    nothing_ran: str | None = None  # why no game ran on the engine, in one sentence (None when one did)
    name: str = ""  # the engine's name, as the house rule's id and title say it

    @property
    def exact(self) -> bool:
        """The engine plays a bundled ruleset, as far as the games told (and they told something)."""
        return bool(self.decided) and not self.departures and not self.unmatched

    def to_json(self) -> dict:
        return {
            "engine": self.engine, "sent": self.sent, "seed": self.seed, "games": self.games, "positions": self.positions,
            "targeted": self.targeted, "cases": self.cases,
            "refused": self.refused, "seconds": round(self.seconds, 3), "closest": self.closest, "exact": self.exact,
            "departures": [d.to_json() for d in self.departures], "unmatched": [u.to_json() for u in self.unmatched],
            "decided": self.decided, "from_sent": self.from_sent, "undecided": self.undecided, "adopted": self.adopted, "house_rule": self.house_rule,
            "nothing_ran": self.nothing_ran,
        }  # fmt: skip


# ---------------------------------------------------------------------------------- hypotheses
class Hypotheses:
    """Hypothesis documents as ruleset files in a scratch folder (cases name their ruleset by a
    name the loader finds), each checked like any ruleset file; None for one that does not load."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.paths: dict[str, str | None] = {}

    def path(self, doc: Mapping[str, Any]) -> str | None:
        import escoba

        key = json.dumps(doc, sort_keys=True, ensure_ascii=False)
        if key not in self.paths:
            name = f"identify-h{len(self.paths) + 1}"
            path = self.folder / f"{name}.yaml"
            path.write_text(json.dumps({**doc, "id": name}, ensure_ascii=False), encoding="utf-8")
            try:
                escoba.load_ruleset(str(path))
                self.paths[key] = str(path)
            except EscobaError:
                self.paths[key] = None
        return self.paths[key]


def candidates(doc: Mapping[str, Any]) -> dict[str, list[Any]]:
    """The other values worth trying for each point of `doc` (see the module's docstring): the
    values bundled rulesets give it, then the point's own readings (`other_values`)."""
    from escoba.rules.points import other_values, positions

    own = {p.key: p for p in positions(doc)}
    found: dict[str, list[tuple[Any, Any]]] = {k: [] for k, p in own.items() if p.rule.fixed is None}

    def add(key: str, value: Any, meaning: Any) -> None:
        if key in found and meaning != own[key].meaning and all(m != meaning for _, m in found[key]):
            found[key].append((value, meaning))

    for _name, _doc, points in bundled():
        for p in points.values():
            if p.key in found:
                add(p.key, p.value, p.meaning)
    for key in found:
        point = own[key]
        for value in other_values(doc, point):
            if value is None:  # a category not scored
                found[key].append((None, None))
            else:
                add(key, value, point.rule.meaning(value, doc))
    options = {k: [v for v, _ in vs] for k, vs in found.items() if vs}
    # Which categories are scored is a point too: a bundled ruleset's category the hypothesis
    # lacks, scored after the others or in place of one of them (most sevens for the primera).
    mine = {str(c.get("id")) for c in categories_of(doc)}
    for category in other_categories(mine):
        options.setdefault(f"scoring.{category['id']}", []).append(category)
        for replaced in sorted(mine):
            if f"scoring.{replaced}" in options:
                options[f"scoring.{replaced}"].append(category)
    return options


def changed(doc: Mapping[str, Any], key: str, value: Any) -> dict | None:
    """`with_value`, and for a category key a whole category (a dict): scored in place of the
    category the key names, or after the others where the document has no such category."""
    parts = key.split(".")
    if not (parts[0] == "scoring" and len(parts) == 2 and isinstance(value, dict)):
        return with_value(doc, key, value)
    out = copy.deepcopy(dict(doc))
    cats = categories_of(out)
    if any(str(c.get("id")) == str(value["id"]) for c in cats if str(c.get("id")) != parts[1]):
        return None  # the category is scored already
    where = next((i for i, c in enumerate(cats) if str(c.get("id")) == parts[1]), None)
    if where is None:
        cats.append(copy.deepcopy(value))
    else:
        cats[where] = copy.deepcopy(value)
    out.setdefault("scoring", {})["categories"] = cats
    return out


# ---------------------------------------------------------------------------------- the search
class _Identifier:
    def __init__(self, harness: Harness, sent_name: str, folder: Path, seed: int, players: Sequence[int] | None):
        from escoba.rules import load_resolved

        self.harness, self.seed = harness, seed
        self.sent_name = sent_name
        self.sent = load_resolved(sent_name).doc
        self.hypotheses = Hypotheses(folder)
        self.doc: dict = copy.deepcopy(self.sent)
        self.base: dict = copy.deepcopy(self.sent)  # the hypothesis before the points inferred: sent, or a bundled ruleset
        self.inferred: dict[str, Any] = {}  # point → value, in the order adopted
        # (case, the engine's events) of every game it passed, and of every divergence explained
        self.history: list[tuple[dict, list[dict]]] = []
        self.evidence: dict[str, dict] = {}  # point → the game that showed it
        self.players = players
        self.passed: list[tuple[dict, CaseResult]] = []  # (case, result) of games run to their end
        self.unmatched: dict[str | None, Unmatched] = {}
        self.games = self.cases = self.refused = self.positions = 0
        self.held: list[CaseResult] = []  # the results of the games the engine refused, crashed or timed out on
        self.no_table = 0  # games at no table size both the ruleset and the engine (and --players) allow
        self.adopted: list[str] = []
        self.targeted: list[str] = []  # points whose candidate values targeted positions told apart
        self._compiled: dict[str, Any] = {}
        self.measures = harness.declared.measures  # compared only where the engine says it reports them

    # ------------------------------------------------------------------ cases under a hypothesis
    def filled(self, data: Mapping[str, Any], doc: Mapping[str, Any]) -> dict | None:
        """`data` with its ruleset the hypothesis `doc` and its expected events; None if the
        reference engine cannot play its moves under `doc`."""
        path = self.hypotheses.path(doc)
        if path is None:
            return None
        try:
            filled = fill_case({**data, "ruleset": path, "pins": []})
        except (EscobaError, ValueError, KeyError, IndexError):
            return None
        # The engine is sent another ruleset than the case's: it needs only the table it sits at.
        filled["requires"] = [f for f in filled["requires"] if f.startswith("players:") or f == "match"]
        return filled

    def explains(self, data: Mapping[str, Any], doc: Mapping[str, Any], events: Sequence[dict]) -> bool:
        """Does the reference engine under `doc`, dealt the same deck orders and making the
        same moves, say every event the engine said (its divergent one included)? Under `doc`
        the case may stop being playable further on (a move no longer legal, a match that ends
        sooner or later): what it says up to there is what counts."""
        cut = _upto(data, len(events))
        if self._surely_not(cut, doc, events):
            return False
        path = self.hypotheses.path(doc)
        if path is None:
            return False
        said = _replayed(cut, path)
        d = first_divergence(said, events, self.measures)
        return d is None or (d.index >= len(events) and d.observed is None)

    def _surely_not(self, data: Mapping[str, Any], doc: Mapping[str, Any], events: Sequence[dict]) -> bool:
        """The hypothesis, compiled in memory without a ruleset file's checks, plays the case
        through and says otherwise than the engine before its last event: it cannot explain it.
        Most values tried at a divergence fail so; only the others are written as a file and
        checked (a few ms against some 80). Anything it cannot play through is left to that check."""
        from escoba.transcript.record import replayed_events

        rules = self.compiled(doc)
        base = self.hypotheses.path(self.doc)
        if rules is None or base is None:
            return False
        try:
            case, moves = _case_and_moves(data, base, rules)
        except (EscobaError, ValueError, KeyError, TypeError, IndexError):
            return False
        said = replayed_events(case, rules, moves)
        if said is None:
            return False
        d = first_divergence(said, events, self.measures)
        return d is not None and (d.index < len(events) or d.observed is not None)

    def consistent(self, data: Mapping[str, Any], doc: Mapping[str, Any], events: Sequence[dict]) -> bool:
        """`doc` explains this game's events and those of every game the engine passed."""
        return self.explains(data, doc, events) and all(self.explains(d, doc, e) for d, e in self.history)

    def minimize(self) -> None:
        """Withdraw each inferred value the others make needless: without it the hypothesis
        still explains every game. Where two values explained a game equally (an opening rule
        that never fires, or no opening action at all), a later game may have needed the one
        not taken first: the smallest change is kept, whatever order the games came in."""
        for key in list(reversed(self.inferred)):
            doc = self.rebuilt({k: v for k, v in self.inferred.items() if k != key})
            if doc is not None and self.history and all(self.explains(d, doc, e) for d, e in self.history):
                self.inferred.pop(key)
                self.evidence.pop(key, None)
                self.doc = doc
                self.adopted.append(f"{key} withdrawn: the other values explain every game")

    def rebuilt(self, inferred: Mapping[str, Any]) -> dict | None:
        """The hypothesis with only the points of `inferred` set (None if one cannot be)."""
        doc: dict | None = copy.deepcopy(self.base)
        for key, value in inferred.items():
            doc = changed(doc, key, value) if doc is not None else None
        return doc

    def confine(self, filled: dict, result: CaseResult) -> None:
        """A divergence no value explains stops only its own game there: the events before it
        were the hypothesis's, so every later change must explain them too, and the points they
        exercised are decided."""
        d = result.divergence
        if d is None or d.index == 0:
            return
        self.history.append((filled, list(result.events[: d.index])))
        self.passed.append(({**filled, "expect": filled["expect"][: d.index]}, result))

    # ------------------------------------------------------------------ explaining a divergence
    def explain(self, data: dict, result: CaseResult) -> tuple[str | None, str | None, Any, dict] | None:
        """The smallest change of the hypothesis that explains the engine's events and every
        earlier game: (the point withdrawn or None, the point set or None, its value, the new
        hypothesis); or ("ruleset", name) as the point set and its value."""
        assert result.divergence is not None
        events = _through(result)
        point = result.divergence.point
        starts: list[tuple[str | None, dict | None]] = [(None, self.doc)]
        starts += [(k, self.rebuilt({j: v for j, v in self.inferred.items() if j != k})) for k in reversed(self.inferred)]
        for withdrawn, start in starts:
            if start is None:
                continue
            if withdrawn is not None and self.consistent(data, start, events):
                return withdrawn, None, None, start
            options = candidates(start)
            for key in _order(list(options), point):
                for value in options[key]:
                    doc = changed(start, key, value)
                    if doc is not None and doc != self.doc and self.consistent(data, doc, events):
                        return withdrawn, key, value, doc
        found = self._another_ruleset(data, events)
        return None if found is None else (None, *found)

    def _another_ruleset(self, data: dict, events: Sequence[dict]) -> tuple[str, Any, dict] | None:
        from escoba.rules.points import positions

        mine = {p.key: p.meaning for p in positions(self.doc)}
        ranked = []
        for name, doc, _points in bundled():
            for key, value in self.inferred.items():
                doc = changed(doc, key, value) or doc
            points = {p.key: p.meaning for p in positions(doc)}
            ranked.append((sum(points.get(k) != mine.get(k) for k in set(points) | set(mine)), name, doc))
        for _, name, doc in sorted(ranked, key=lambda r: (r[0], r[1])):
            if doc != self.doc and self.consistent(data, doc, events):
                return "ruleset", name, doc
        return None

    # ------------------------------------------------------------------ targeted positions
    def compiled(self, doc: Mapping[str, Any]) -> Any:
        """The compiled rules of a hypothesis, without the checks of a ruleset file (only to
        tell whether a value changes the events: a value adopted is checked as a file); None
        for one that does not compile."""
        from escoba.rules.compile import compile_rules

        key = json.dumps(doc, sort_keys=True, ensure_ascii=False)
        if key not in self._compiled:
            try:
                self._compiled[key] = compile_rules(copy.deepcopy(dict(doc)))
            except (EscobaError, ValueError, KeyError, TypeError, IndexError):
                self._compiled[key] = None
        return self._compiled[key]

    def counts(self, doc: Mapping[str, Any]) -> list[int]:
        """The table sizes of `doc` the engine sits at (and the user asked for)."""
        import escoba

        path = self.hypotheses.path(doc)
        assert path is not None
        rules = escoba.load_ruleset(path)
        return [p for p in rules.player_counts if (self.players is None or p in self.players) and self.harness.supports(f"players:{p}")]

    def exercised(self) -> set[str]:
        """The points some game the engine played to its end exercised (docs/protocol.md, "Features")."""
        from escoba.protocol.features import point_of, required_features
        from escoba.rules import load_resolved

        found: set[str] = set()
        for filled, _result in self.passed:
            for feature in required_features(load_resolved(filled["ruleset"]).doc, filled["players"], filled["target"], filled["expect"], None):
                point = point_of(feature)
                if point is not None:
                    found.add(point)
                    if point.startswith("scoring.") and point.endswith(".award"):
                        found.add(point.removesuffix(".award"))
        return found

    def target_points(self) -> None:
        """For each point of the hypothesis with other values worth trying, the positions that
        tell them apart (`escoba.explore.targeted`), run on the engine like a seeded game. The
        hypothesis may change on the way: each point's positions are built under the one of
        its time."""
        from escoba.explore.targeted import positions

        keys = list(_candidates(self.doc))
        for key in keys:
            options = _candidates(self.doc).get(key)
            path = self.hypotheses.path(self.doc)
            counts = self.counts(self.doc)
            if not options or path is None or not counts:
                continue
            seen: dict[int, tuple[Any, list, list[dict] | None]] = {}
            doc = self.doc

            def differs(data: dict, value: Any, doc: dict = doc, path: str = path, key: str = key, seen: dict = seen) -> bool:
                from escoba.transcript.record import replayed_events

                other = changed(doc, key, value)
                rules = self.compiled(other) if other is not None else None
                if rules is None:
                    return False
                if id(data) not in seen:  # the case and its moves read once, for every value tried
                    case, moves = _case_and_moves(data, path, rules)
                    seen.clear()
                    seen[id(data)] = (case, moves, replayed_events(case, self.compiled(doc), moves))
                case, moves, said = seen[id(data)]
                return said is not None and replayed_events(case, rules, moves) != said

            found = positions(path, key, options, differs, counts, self.seed)
            passed = [self.run(data, f"the position for {key}") for data in found.cases]
            self.positions += len(found.cases)
            if found.cases and all(passed) and not found.untold:
                self.targeted.append(key)

    # ------------------------------------------------------------------ one game
    def play(self, game: int) -> None:
        import escoba
        from escoba.explore.games import case_data, play_game, random_setup

        rng = random.Random(f"identify:{self.seed}:{game}")
        path = self.hypotheses.path(self.doc)
        assert path is not None
        rules = escoba.load_ruleset(path)
        counts = self.counts(self.doc)
        if not counts:
            self.no_table += 1
            return
        setup = random_setup(rules, rng, counts, self.harness.supports("match"), STYLES)
        played = play_game(rules, setup)
        if played is None:
            return
        self.games += 1
        data = case_data(played, f"identify.{self.seed}.{game}", path, f"identify game {game} of seed {self.seed}",
                         [f"Played by escoba identify (seed {self.seed}, game {game}): {setup.describe()}."])  # fmt: skip
        self.run(data, f"game {game}")

    def run(self, data: dict, label: str) -> bool:
        """Run a game on the engine, changing the hypothesis until it explains the engine's
        events (or nothing does): whether the engine played it to its end."""
        for _ in range(ADOPTIONS):
            filled = self.filled(data, self.doc)
            if filled is None:
                return False  # the game's moves are not legal under what the engine was found to play
            result = self.harness.run(filled)
            self.cases += 1
            if result.outcome == "pass":
                self.passed.append((filled, result))
                self.history.append((filled, list(result.events)))
                return True
            if result.outcome != "fail" or result.divergence is None:
                # A refusal, a crash, a timeout, or a failure of the protocol itself (a flood,
                # a 5,000-digit number, NaN): no event the rules could explain
                self.refused += 1
                self.held.append(result)
                return False
            point = result.divergence.point
            if point in self.unmatched:
                self.confine(filled, result)
                return False
            change = self.explain(filled, result)
            if change is None:
                # A value the runner found for this game alone, which no value explains with
                # the other games: the divergence is named as one no rule point explains.
                if result.divergence is not None and result.divergence.explained == "value":
                    point = concerns(result.divergence)
                self.unmatched[point] = Unmatched(point, filled, result)
                self.confine(filled, result)
                return False
            withdrawn, key, value, doc = change
            self.doc = doc
            self.history.append((filled, _through(result)))  # what every later change must explain too
            if withdrawn is not None:
                self.inferred.pop(withdrawn)
                self.evidence.pop(withdrawn, None)
                self.adopted.append(f"{label}: {withdrawn} withdrawn")
            if key == "ruleset":
                self.base = copy.deepcopy(next(d for n, d, _ in bundled() if n == value))
                self.adopted.append(f"{label}: the rules of {value}")
            elif key is not None:
                self.inferred[key] = value
                self.evidence.setdefault(key, filled)
                self.adopted.append(f"{label}: {key} = {_shown(value)}")
        return False


def _meaning(points: Mapping[str, Any], key: str) -> Any:
    p = points.get(key)
    return None if p is None else p.meaning


def _order(keys: list[str], point: str | None) -> list[str]:
    """The attributed point first, then the points of its concern."""
    from escoba.rules.points import rule_of

    def concern(key: str) -> str:
        rule = rule_of(key)
        return rule.concern if rule is not None else ""

    near: tuple[str, ...] = ()
    if point is not None:
        near = COMMON_CONCERNS.get(point, (concern(point),))
    # Points of other concerns are not tried: a value there would have been named instead.
    return sorted((k for k in keys if point is None or k == point or concern(k) in near), key=lambda k: k != point)


def _through(result: CaseResult) -> list[dict]:
    """The engine's events up to its divergent one: the rest of that reply (a hand's scores and
    its end after a divergent score) is judged under the hypothesis that explains it, in the next
    run of the game, where a bug after it is a divergence of its own."""
    d = result.divergence
    return list(result.events if d is None else result.events[: d.index + 1])


def _upto(data: Mapping[str, Any], count: int) -> dict:
    """The case cut after the move its event `count` belongs to (and one more move, since
    another hypothesis may say a few more or fewer events per move): what `explains` needs."""
    from escoba.explore.shrinking import spot

    where = spot(data["expect"], count)
    if where.hand >= len(data["hands"]):  # after the last hand: the match's end
        return dict(data)
    hands = [dict(h) for h in data["hands"][: where.hand + 1]]
    hands[-1]["moves"] = hands[-1]["moves"][: where.plays + 1]
    return {**data, "hands": hands}


def _case_and_moves(data: Mapping[str, Any], ruleset: str, rules: Any) -> tuple[Any, list[list[Any]]]:
    """The game of `data` as a case of `ruleset` (a file: its deck orders and seats), and its
    moves read on the deck of `rules` (the compiled rules it is replayed under)."""
    from escoba.notation import parse_move
    from escoba.transcript.case import _build

    case = _build({**data, "ruleset": ruleset, "kind": "game", "expect": []}, None)
    return case, [[parse_move(text, rules.deck) for text in h["moves"]] for h in data["hands"]]


def _replayed(data: Mapping[str, Any], ruleset: str) -> list[dict]:
    """The events the reference engine says for the case's deck orders and moves under
    `ruleset`, as far as they can be played (`escoba.transcript.record.Replay`). A hand that
    `ruleset` deals from fewer deck orders than the case holds (no redeal) is played from those."""
    import re

    from escoba.transcript.case import _build
    from escoba.transcript.record import Replay, ReplayError

    hands = [dict(h) for h in data["hands"]]
    for _ in range(len(hands) + 1):
        case = _build({**data, "ruleset": ruleset, "kind": "game", "expect": [], "hands": hands}, None)
        try:
            replay = Replay(case)
        except (EscobaError, ValueError, KeyError):
            return []
        try:
            replay.run()
        except ReplayError as e:
            where = re.fullmatch(r"\$\.hands\[(\d+)\]\.decks", e.path)
            used = re.match(r"the hand used (\d+) deck order", e.message)
            if where and used:
                h = int(where.group(1))
                hands = [*hands[:h], {**hands[h], "decks": hands[h]["decks"][: int(used.group(1))]}]
                continue
        except (EscobaError, ValueError, KeyError, IndexError):
            pass
        return replay.events
    return []


@functools.lru_cache(maxsize=8)
def _candidates_of(key: str) -> dict[str, list[Any]]:
    return candidates(json.loads(key))


def _candidates(doc: Mapping[str, Any]) -> dict[str, list[Any]]:
    """`candidates(doc)`, computed once per hypothesis."""
    return _candidates_of(json.dumps(doc, sort_keys=True, ensure_ascii=False))


def _shown(value: Any) -> str:
    from escoba.rules.points import word

    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return word(value)


# ---------------------------------------------------------------------------------- the result
def identify(
    connect: Callable[[], Session] | Harness,
    *,
    ruleset: str = "base",
    games: int = GAMES,
    seed: int = 0,
    players: Sequence[int] | None = None,
    shrinking: bool = True,
    targeted: bool = True,
    name: str | None = None,
    on_game: Callable[[int, int], None] | None = None,
) -> Identification:
    """Which rules does the engine play, when sent `ruleset`? (See the module's docstring.)"""
    from escoba.rules import load_resolved

    sent = load_resolved(ruleset).doc
    harness = connect if isinstance(connect, Harness) else Harness(connect, sent=sent)
    harness.runner.sent = sent
    began = time.monotonic()
    hello = harness.open()
    engine = shorten(f"{hello.name} {hello.version}".strip(), NAME_LIMIT)  # the house rule's title quotes it
    try:
        with tempfile.TemporaryDirectory(prefix="escoba-identify-") as scratch:
            work = _Identifier(harness, ruleset, Path(scratch), seed, players)
            for game in range(1, games + 1):
                work.play(game)
                if on_game is not None:
                    on_game(game, games)
            if targeted and not (work.refused and work.refused == work.games):  # an engine that refused every game is not asked again
                work.target_points()
            work.minimize()
            found = _conclude(work, engine, name or hello.name)
            if shrinking:
                _minimal_cases(harness, found, work)
    finally:
        if not isinstance(connect, Harness):
            harness.close()
    found.seconds = time.monotonic() - began
    return found


def _conclude(work: _Identifier, engine: str, name: str | None) -> Identification:
    from escoba.rules.points import positions

    found = Identification(engine, work.sent_name, work.seed, games=work.games, positions=work.positions, targeted=work.targeted,
                           cases=work.cases, refused=work.refused, adopted=work.adopted)  # fmt: skip
    mine = {p.key: p for p in positions(work.doc)}
    exercised = work.exercised()
    # Which categories are scored is decided by any hand that was scored, and the deck by any
    # deal: the engine played the ruleset's deck (it refuses a start with a deck it lacks).
    played = bool(work.passed)
    categories = {k for k in mine if _is_category(k)} if played else set()
    decks = {k for k in mine if k.startswith("deck.")} if played else set()
    decided = [k for k in mine if k in exercised or k in work.inferred or k in work.targeted or k in categories or k in decks]
    decided += [k for k in work.inferred if k not in mine]  # a category found not scored
    found.decided = decided
    found.nothing_ran = _why_nothing_ran(work)
    for key in mine:
        if key not in decided:
            found.undecided[key] = "no game that ran to its end exercised it" if not work.refused else "no game that ran to its end exercised it (the engine refused or failed some games)"
    for u in work.unmatched.values():
        found.unmatched.append(u)
        if u.point is not None:
            found.undecided.pop(u.point, None)
    sent = {p.key: p for p in positions(work.sent)}
    gone = [k for k in sent if k not in mine and k.split(".")[0] == "scoring" and ".".join(k.split(".")[:2]) not in mine]
    from_sent = [k for k in decided if _meaning(sent, k) != _meaning(mine, k)] + [k for k in gone if k.count(".") == 1]
    # a category scored or not says its parts: they are not listed again
    found.from_sent = [k for k in dict.fromkeys(from_sent) if k.count(".") < 2 or ".".join(k.split(".")[:2]) not in from_sent]
    # The closest bundled ruleset, over the decided points; the ruleset sent wins a tie.
    best: tuple | None = None
    for rid, _doc, theirs in bundled():
        # a category the ruleset scores and the engine was not seen to is a difference too
        gone = [k for k in theirs if _is_category(k) and k not in mine and k not in decided] if played else []
        differ = [k for k in [*decided, *gone] if _meaning(theirs, k) != _meaning(mine, k)]
        # the points of a category one of the two does not score are said by the category
        differ = [k for k in differ if k.count(".") < 2 or ".".join(k.split(".")[:2]) not in differ]
        total = sum(_meaning(theirs, k) != _meaning(mine, k) for k in set(mine) | set(theirs))
        rank = (len(differ), rid != work.sent_name, total, rid)
        if best is None or rank < best[0]:
            best = (rank, rid, differ, theirs)
    assert best is not None
    _, closest, differ, theirs = best
    found.closest = closest
    for key in differ:
        p, other = mine.get(key), theirs.get(key)
        evidence = work.evidence.get(key) or (work.passed[0][0] if work.passed else {})
        label = p.label if p is not None else other.label if other is not None else key
        value, text = (p.value, p.text) if p is not None else (None, "not scored")
        if p is not None and _is_category(key):  # a category the closest ruleset lacks: all of it
            value = next(c for c in categories_of(work.doc) if f"scoring.{c['id']}" == key)
            value = {k: v for k, v in value.items() if k != "provenance"}
        found.departures.append(Departure(key, label, value, text, other.text if other else "no such category", evidence))
    found.name = name or engine
    found.house_rule = house_rule(found, mine, found.name)
    return found


def _why_nothing_ran(work: _Identifier) -> str | None:
    """One sentence saying why no game ran on the engine (None when one did: passed or diverged)."""
    from escoba.explore.lockstep import why_nothing_ran

    return why_nothing_ran(work.cases, work.held, work.no_table, str(work.no_table))


def _is_category(key: str) -> bool:
    """Is this point key a whole scoring category (`scoring.primera`), not one of its parts?"""
    return key.startswith("scoring.") and key.count(".") == 1


def _minimal_cases(harness: Harness, found: Identification, work: _Identifier) -> None:
    """For each departure, its game under the closest ruleset (sent as conformance sends it),
    shrunk to the smallest case that still departs on that point."""
    from escoba.explore.harness import signature
    from escoba.explore.lockstep import slug
    from escoba.explore.shrinking import shrink

    def smallest(game: dict, point: str, title: str) -> Any:
        data = {**game, "ruleset": found.closest, "pins": [], "id": f"identify.{slug(found.closest)}.{slug(point)}", "title": title, "clause": point}
        try:
            filled = fill_case(data)
        except (EscobaError, ValueError, KeyError, IndexError):
            return None
        result = harness.run(filled)
        return shrink(harness, filled, result) if signature(result)[1] == point else None

    sent = harness.runner.sent
    harness.runner.sent = None
    try:
        for departure in found.departures:
            if departure.found:
                shrunk = smallest(departure.found, departure.point, f"{found.closest}: the engine plays {departure.point} = {_shown(departure.value)}")
                if shrunk is not None:
                    departure.case, departure.steps = shrunk.data, shrunk.steps
        for u in found.unmatched:
            if u.point is not None:
                shrunk = smallest(u.case, u.point, f"{found.closest}: the engine departs on {u.point}, as no value of it does")
                u.minimal = shrunk.data if shrunk is not None else None
    finally:
        harness.runner.sent = sent


def house_rule(found: Identification, mine: Mapping[str, Any], engine: str) -> str:
    """The house rule the engine plays: `extends:` the closest ruleset, each departure set."""
    import yaml

    from escoba.explore.lockstep import slug

    doc: dict[str, Any] = {
        "dsl": 1, "id": f"{slug(engine)}-inferred"[:60].strip("-"), "kind": "house",
        "title": f"The rules {engine} plays, as escoba identify inferred them", "extends": found.closest,
    }  # fmt: skip
    for d in found.departures:
        note = f"inferred by escoba identify (seed {found.seed}, sent {found.sent}): {found.closest} has {d.closest_text}"
        citation = {"status": "inferred", "source": "house", "note": note}
        parts = d.point.split(".")
        if parts[0] == "values":
            doc.setdefault("values", {})[parts[1]] = d.value
        elif parts[0] == "scoring" and len(parts) == 2 and isinstance(d.value, dict):  # a category scored that the closest lacks
            doc.setdefault("scoring", {}).setdefault("categories", []).append({**d.value, "provenance": citation})
        elif parts[0] == "scoring" and len(parts) == 2:  # a category the closest scores and the engine does not
            doc.setdefault("scoring", {}).setdefault("categories", []).append({"id": parts[1], "remove": True})
        elif parts[0] == "scoring" and len(parts) == 3:
            cats = doc.setdefault("scoring", {}).setdefault("categories", [])
            cat = next((c for c in cats if c["id"] == parts[1]), None)
            if cat is None:
                cat = {"id": parts[1]}
                cats.append(cat)
            cat[parts[2]] = d.value
            cat["provenance"] = citation
        elif len(parts) == 2:
            section = doc.setdefault(parts[0], {})
            section[parts[1]] = d.value
            section.setdefault("provenance", {})[parts[1]] = citation
    text = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)
    return text


def proven(found: Identification, bugs: Sequence[Any], doc: Mapping[str, Any], *, decided: bool = False) -> dict[str, tuple[Any, str]]:
    """The points no game decided that a scenario of the check proves another value of: the
    runner's attribution found that value alone reproduces what the engine did
    (`escoba.conformance.attribute`, "value"); point → (the value, the first case). `bugs`: the
    check's kinds of failure (`RunReport.bugs`); `doc`: the house rule they ran under, resolved.
    `decided`: instead, the one point the most failing cases show another value of, among those
    the games decided (their games could not tell the two values apart; the check did)."""
    from escoba.conformance.attribute import VALUE, _shown
    from escoba.rules.points import other_values, positions

    mine = {p.key: p for p in positions(doc)}
    found_values: dict[str, tuple[Any, str]] = {}
    if decided:
        overruled = [b for b in bugs if b.explained == VALUE and b.point in mine and b.point not in found.undecided]
        bugs = sorted(overruled, key=lambda b: -len(b.cases))[:1]
    for bug in bugs:
        if bug.explained != VALUE or bug.point not in mine or bug.point in found_values:
            continue
        if not decided and bug.point not in found.undecided:
            continue
        position = mine[bug.point]
        for value in other_values(doc, position):
            shown = "not scored" if value is None else _shown(position.rule, value, doc)
            if shown == bug.inferred:
                found_values[bug.point] = (value, bug.cases[0])
                break
    return found_values


def adopt(found: Identification, values: Mapping[str, tuple[Any, str]]) -> None:
    """Each point a scenario proved (`proven`) becomes a departure, decided, and the house rule
    is written again with it."""
    from escoba.rules.points import positions

    closest_doc = next(d for n, d, _ in bundled() if n == found.closest)
    theirs = {p.key: p for p in positions(closest_doc)}
    for key, (value, case_id) in values.items():
        doc = changed(closest_doc, key, value)
        p = {q.key: q for q in positions(doc)}.get(key) if doc is not None else None
        if p is None or key not in theirs:
            continue
        found.departures.append(Departure(key, p.label, value, p.text, theirs[key].text, {}, scenario=case_id))
        found.undecided.pop(key, None)
        found.decided.append(key)
        found.adopted.append(f"the check's scenario {case_id}: {key} = {_shown(value)}")
    found.house_rule = house_rule(found, {}, found.name)


def cases_of(found: Identification) -> Iterator[dict]:
    """The minimal case of each departure, and the case of each divergence nothing explains."""
    for d in found.departures:
        if d.case is not None:
            yield d.case
    for u in found.unmatched:
        if u.minimal is not None:
            yield u.minimal
