"""Which rule point each divergence concerns.

A divergence is an event; a report for an engine author names the *rule* it breaks, as a point
of the rules matrix (`capture.compulsory`, `scoring.primera.award`, `values.primera`; the keys
of `escoba.diff.points`) or one of the `COMMON` points every ruleset shares (the deal
convention, move generation, refusing illegal moves...). Three ways, tried in this order:

1. **Another value explains it.** The reference engine replays the divergent reply with one
   point set otherwise (the compiled rules changed as a mutant engine would change them: the
   deal and opening of a hand, the legal moves of a position, a category's award from the
   same measures). If the result is what the engine said, that is the point, and `inferred` is
   the value the engine behaves as if it had. These explanations hold whatever came before.
2. **It follows from an earlier divergence.** Anything else after a divergence (a score with
   other measures once the piles differ, a legal list once the table differs) is attributed to
   the case's first divergence (`consequence_of`).
3. **The event says it.** Otherwise the kind of event and the fields that differ name the
   point (a leftovers' side: `leftovers.to`; a score's measures: the category's measure, or the
   values table it reads).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from typing import Any

from escoba.conformance.compare import Divergence, same, same_event

#: rule points every ruleset shares (not rows of the rules matrix), with what they are about
COMMON: dict[str, str] = {
    "common.deal": "the deal convention: the deck order dealt as docs/protocol.md says",
    "common.turn": "whose turn it is",
    "common.captures": "every capture offered: one legal move per subset that makes the target",
    "common.move_order": "legal moves listed in deck order",
    "common.refusals": "illegal moves refused, with their reason",
    "common.escoba": "a capture that clears the table is an escoba",
    "common.hand_total": "a hand's points are the sum of its categories",
    "common.match": "match totals and the end of a match",
}


def _kinds_alternatives(rules: Any) -> list[tuple[str, Any]]:
    """Other readings of what a card may take, as (feature value, rules): Escoba's sum alone,
    and the ruleset's own kinds without their priorities (each beside the ruleset's kind that
    takes the whole table, if it has one); and its own kinds without that one."""
    from escoba.game.capture import DEFAULT_KINDS, CaptureFinder
    from escoba.rules.points.capture import table_feature

    own, table = tuple(rules.capture_kinds), rules.table_kind
    readings = [(k, table) for k in (DEFAULT_KINDS, tuple((total, "none") for total, _ in own)) if k != own]
    if table is not None:
        readings.append((own, None))
    found = []
    f = rules.finder
    for kinds, whole in dict.fromkeys(readings):
        takes = f.takes_table if whole is not None else None
        finder = CaptureFinder(f.value, f.is_joker, rules.target or 15, f.low, f.high, kinds, takes, f.rank, f.unless_same_rank)
        named = [t + ("" if p == "none" else f"-{p}") for t, p in kinds] + ([table_feature(whole)] if whole is not None else [])
        found.append((",".join(sorted(named)), dataclasses.replace(rules, capture_kinds=kinds, table_kind=whole, finder=finder)))
    return found


def common_exercised(case: Any) -> list[str]:
    """The common points a case's expected events exercise."""
    kinds = {e.get("event") for e in case.expect}
    found = ["common.deal"]
    if "legal" in kinds or case.kind == "perft":
        found += ["common.turn", "common.captures"]
        if any(len(e.get("moves", ())) > 1 for e in case.expect if e.get("event") == "legal"):
            found.append("common.move_order")
    if case.kind == "probe" or "rejected" in kinds:
        found.append("common.refusals")
    if "escoba" in kinds:
        found.append("common.escoba")
    if "hand_end" in kinds:
        found.append("common.hand_total")
    if case.target is not None:
        found.append("common.match")
    return found


class Attributor:
    """Names the rule point of each divergence of one case (see the module's docstring)."""

    def __init__(self, plan: Any, observed: Sequence[dict], observed_chunks: Sequence[tuple[int, int]], measures: bool):
        from escoba.conformance.compare import chunks

        self.plan, self.case = plan, plan.case
        self.expected: list[dict] = plan.expected
        self.observed, self.observed_chunks, self.measures = observed, observed_chunks, measures
        self.expected_chunks = chunks(self.expected)
        self._rules: Any = None
        self._positions: dict[int, dict] | None = None

    # ------------------------------------------------------------------ plumbing
    @property
    def rules(self) -> Any:
        if self._rules is None:
            from escoba.protocol.features import _compiled

            self._rules = _compiled(self.plan.doc)
        return self._rules

    def positions(self) -> dict[int, dict]:
        """Snapshots of the reference hand before each decision, by the index of its legal event."""
        if self._positions is None:
            from escoba.transcript.record import Replay

            found: dict[int, dict] = {}
            try:
                Replay(self.case, self.rules, on_decision=lambda i, hand: found.setdefault(i, hand.to_json())).run()
            except Exception:  # a broken case was refused before it ran; never let naming fail a run
                pass
            self._positions = found
        return self._positions

    def observed_chunk(self, n: int | None) -> list[dict]:
        if n is None or n >= len(self.observed_chunks):
            return []
        a, b = self.observed_chunks[n]
        return list(self.observed[a:b])

    def expected_chunk(self, n: int | None) -> list[dict]:
        if n is None or n >= len(self.expected_chunks):
            return []
        a, b = self.expected_chunks[n]
        return self.expected[a:b]

    # ------------------------------------------------------------------ the walk
    def run(self, divergences: Sequence[Divergence]) -> None:
        first: Divergence | None = None
        for d in divergences:
            found = self.direct(d)
            if found is None and first is not None and first.point is not None:
                d.point, d.consequence_of = first.point, first.index
            else:
                d.point, d.inferred = found if found is not None else (self.fallback(d), None)
            if first is None:
                first = d

    def direct(self, d: Divergence) -> tuple[str, str | None] | None:
        """A point some other value (or the event's own shape) proves, whatever came before."""
        kind = _kind(d.expected) or _kind(d.observed)
        if d.chunk == 0 and kind in ("hand_start", "deal", "table", "opening"):
            return self._start(d)
        if kind == "legal":
            return self._legal(d)
        if kind == "perft":
            return self._perft(d)
        if kind in ("rejected", "state"):
            return self._rejected(d)
        if kind == "escoba":
            return self._escoba(d)
        if kind == "score":
            return self._score(d)
        if kind == "hand_start" and _field_differs(d, "dealer"):
            return ("turn.next_dealer", None)
        if kind in ("tie", "match_end"):
            return self._match_end(d)
        if kind in ("hand_end", "totals") and _sides_differ(d):
            return ("players.partnerships", None)
        return None

    def fallback(self, d: Divergence) -> str:
        """The point the event's kind and fields name, for a first divergence nothing proves."""
        kind = _kind(d.expected) or _kind(d.observed)
        if kind == "hand_start":
            return "turn.leader" if _field_differs(d, "leader") else "common.deal"
        if kind in ("deal", "table"):
            return "common.deal"
        if kind == "opening":
            groups = (d.observed or {}).get("groups") if d.expected is None else None
            if _field_differs(d, "groups") or (isinstance(groups, int) and groups >= 2):
                return "opening_table.max_groups"
            if d.expected is None or d.observed is None or _field_differs(d, "action"):
                return "opening_table.action"
            return "opening_table.escobas"
        if kind == "leftovers":
            hand = self._hand_facts(d.index)
            if hand is not None and not hand.captured:
                return "leftovers.if_nobody_captured"
            return "leftovers.to"
        if kind == "score":
            return self._score_fallback(d)
        if kind in ("legal", "perft", "play"):
            return "common.captures"
        if kind in ("rejected", "state"):
            return "common.refusals"
        if kind == "hand_end":
            return "common.hand_total"
        if kind in ("totals", "tie", "match_end"):
            return "common.match"
        return "common.deal"

    # ------------------------------------------------------------------ start: another deal
    def _start(self, d: Divergence) -> tuple[str, str | None] | None:
        from escoba.engine.hand import Hand

        observed = self.observed_chunk(d.chunk)
        case, rules = self.case, self.rules
        code = {c: i for i, c in enumerate(rules.deck.code)}
        decks = [[code[c] for c in order] for order in case.hands[0].decks]
        for point, inferred, alt in self._start_alternatives():
            try:
                hand = Hand(alt, int(case.players), int(case.dealer), iter([list(o) for o in decks]))
            except Exception:  # that value cannot deal this deck (a redeal with one deck order)
                continue
            events = list(hand.events or ())
            if len(events) == len(observed) and all(same_event(a, b, self.measures) for a, b in zip(events, observed)):
                return (point, inferred)
        return None

    def _start_alternatives(self) -> list[tuple[str, str, Any]]:
        r = self.rules
        found: list[tuple[str, str, Any]] = []
        if int(self.case.players) >= 3:
            found.append(("turn.leader", _side_word(-r.leader_offset, "dealer_"), dataclasses.replace(r, leader_offset=-r.leader_offset)))
            found.append(("turn.direction", "clockwise" if r.direction > 0 else "counterclockwise", dataclasses.replace(r, direction=-r.direction)))
        found.append(("deal.table_first", "no" if r.table_first else "yes", dataclasses.replace(r, table_first=not r.table_first)))
        # The narrower readings first: no opening at all is also what `action: none` gives.
        found += [("opening_table.max_groups", str(v), dataclasses.replace(r, opening_max_groups=v)) for v in (1, 2) if v != r.opening_max_groups]
        found += [("opening_table.trigger", v, dataclasses.replace(r, opening_trigger=v)) for v in ("all_cards", "any_combination", "total") if v != r.opening_trigger]
        found += [("opening_table.escobas", v, dataclasses.replace(r, opening_escobas=v)) for v in ("none", "one", "per_group") if v != r.opening_escobas]
        found.append(("capture.joker_escobas_score", "no" if r.joker_escobas_score else "yes", dataclasses.replace(r, joker_escobas_score=not r.joker_escobas_score)))
        found += [("opening_table.action", v, dataclasses.replace(r, opening_action=v)) for v in ("dealer_takes", "set_aside", "redeal", "none") if v != r.opening_action]
        return found  # fmt: skip

    # ------------------------------------------------------------------ legal moves
    def _legal(self, d: Divergence) -> tuple[str, str | None] | None:
        e, o = d.expected, d.observed
        if e is None or o is None:
            return None
        if e.get("seat") != o.get("seat"):
            return None  # the turn went elsewhere: a consequence, or the turn rule (fallback)
        if "moves" in e and "moves" in o and _same_multiset(e["moves"], o["moves"]):
            return ("common.move_order", None)
        snapshot = self.positions().get(d.index)
        if snapshot is None:
            return None
        from escoba.engine.hand import Hand
        from escoba.transcript.record import legal_event

        for value in ("optional", "card", "hand"):
            if value == self.rules.compulsory:
                continue
            alt = dataclasses.replace(self.rules, compulsory=value)
            event = legal_event(Hand.from_json(alt, snapshot, record=False), getattr(self.case, "legal", "moves"))
            if same(event, o):
                return ("capture.compulsory", value)
        for value, alt in _kinds_alternatives(self.rules):
            event = legal_event(Hand.from_json(alt, snapshot, record=False), getattr(self.case, "legal", "moves"))
            if same(event, o):
                return ("capture.kinds", value)
        return None

    def _perft(self, d: Divergence) -> tuple[str, str | None] | None:
        """A count of play sequences that another compulsory rule gives."""
        if d.expected is None or d.observed is None or d.index < 1:
            return None
        snapshot = self.positions().get(d.index - 1)
        if snapshot is None:
            return None
        from escoba.engine.hand import Hand
        from escoba.transcript.record import perft

        for value in ("optional", "card", "hand"):
            if value != self.rules.compulsory:
                alt = dataclasses.replace(self.rules, compulsory=value)
                if perft(Hand.from_json(alt, snapshot, record=False), int(d.expected.get("depth", 0))) == d.observed.get("count"):
                    return ("capture.compulsory", value)
        return None

    def _rejected(self, d: Divergence) -> tuple[str, str | None] | None:
        """A refusal that differs, or the state after one (a refused move that changed it)."""
        rule = (d.expected or {}).get("rule") if _kind(d.expected) == "rejected" else None
        if rule == "compulsory" and d.observed is not None and d.observed.get("event") == "play":
            # Accepted a placement the ruleset forbids: a lenient capture rule if the engine
            # also listed it as legal, a missing check of its own legal moves if it did not.
            before = self.observed_chunk((d.chunk or 1) - 1)
            move = (d.expected or {}).get("move")
            listed = any(isinstance(m, dict) and m.get("card") == (move or {}).get("card") and not m.get("take") for e in before for m in e.get("moves", ()))
            if listed:
                return ("capture.compulsory", "optional")
        # The same position (the deal and every move played or refused before as expected): the
        # refusal itself. A refused move the engine accepted earlier leaves another position.
        shaping = ("hand_start", "deal", "table", "opening", "play", "rejected")

        def moves(chunk: Callable[[int], list[dict]]) -> list[dict]:
            return [e for n in range(d.chunk or 0) for e in chunk(n) if e.get("event") in shaping]

        if moves(self.observed_chunk) == moves(self.expected_chunk):
            return ("common.refusals", None)
        return None

    # ------------------------------------------------------------------ escobas
    def _escoba(self, d: Divergence) -> tuple[str, str | None] | None:
        if d.expected is not None and d.observed is not None:
            if _field_differs(d, "scores"):
                return ("capture.joker_escobas_score", _yes(d.observed.get("scores")))
            if _field_differs(d, "side") and not _field_differs(d, "seat"):
                return ("players.partnerships", None)
            return None
        chunk = self.expected_chunk(d.chunk)
        play = next((e for e in chunk if e.get("event") == "play"), None)
        plays_same = [e for e in self.observed_chunk(d.chunk) if e.get("event") == "play"] == [e for e in chunk if e.get("event") == "play"]
        if not plays_same:
            return None
        last = any(e.get("event") in ("leftovers", "score") for e in chunk)
        if last:
            return ("capture.escoba_on_last_play", "no" if d.observed is None else "yes")
        jokers = {c for c in self.rules.deck.code if c.startswith("X")}
        if play is not None and {play.get("card"), *play.get("take", [])} & jokers:
            return ("capture.joker_escobas_score", None)
        return ("common.escoba", None)

    # ------------------------------------------------------------------ scores
    def _category(self, name: Any) -> Any:
        return next((c for c in self.rules.categories if c.id == name), None)

    def _score(self, d: Divergence) -> tuple[str, str | None] | None:
        e, o = d.expected, d.observed
        if e is None or o is None:
            name = (e or o or {}).get("category")
            return (f"scoring.{name}", None)
        name = e.get("category")
        if len(e.get("points", [])) != len(o.get("points", [])):
            return ("players.partnerships", None)
        measures_equal = same(e.get("measures"), o.get("measures")) or "measures" not in o
        if not measures_equal:
            return None  # other measures: a consequence, or the measure itself (fallback)
        cat = self._category(name)
        if cat is None:
            return (f"scoring.{name}.award", None)
        for point, inferred, alt in _award_alternatives(cat):
            if _award(alt, e.get("measures", [])) == list(o.get("points", [])):
                return (f"scoring.{name}.{point}", inferred)
        return (f"scoring.{name}.award", None)

    def _score_fallback(self, d: Divergence) -> str:
        event = d.expected or d.observed or {}
        name = event.get("category")
        cat = self._category(name)
        text = getattr(cat, "measure_text", None) or ""
        # A measure that counts escobas (`escobas`, or the sweeps of an event house rule) with
        # one more or one fewer for the side that took the leftovers.
        if re.search(r"\b(escobas|sweeps)\b", text) and self._leftovers_escoba(d):
            return "leftovers.escoba"
        for table in (self.plan.doc.get("values") or {}):
            if re.search(rf"\b{re.escape(str(table))}\b", text):
                return f"values.{table}"
        return f"scoring.{name}.measure" if text else f"scoring.{name}.award"

    def _leftovers_escoba(self, d: Divergence) -> bool:
        """One more (or one less) escoba for exactly the side that took the leftovers."""
        e, o = d.expected, d.observed
        chunk = self.expected_chunk(d.chunk)
        left = next((x for x in chunk if x.get("event") == "leftovers" and x.get("cards")), None)
        if e is None or o is None or left is None or left.get("side") is None:
            return False
        diff = [b - a for a, b in zip(e.get("measures", []), o.get("measures", [])) if isinstance(a, int) and isinstance(b, int)]
        side = left["side"]
        return len(diff) > side and abs(diff[side]) == 1 and sum(map(abs, diff)) == 1

    # ------------------------------------------------------------------ match end
    def _match_end(self, d: Divergence) -> tuple[str, str | None] | None:
        e, o = d.expected, d.observed
        if e is None or o is None or not same(e.get("totals"), o.get("totals")):
            return None
        kinds = (e.get("event"), o.get("event"))
        if kinds == ("tie", "match_end"):
            return ("match.tie", "shared_win" if len(o.get("winners", [])) > 1 else None)
        if kinds == ("match_end", "tie"):
            return ("match.tie", "extra_hand")
        if kinds == ("match_end", "match_end"):
            if len(e.get("winners", [])) > 1 or len(o.get("winners", [])) > 1:
                return ("match.tie", None)
            return ("match.several_reach", None)
        return None

    def _hand_facts(self, index: int) -> Any:
        from escoba.protocol.features import Facts

        upto = self.expected[: index + 1]
        facts = Facts(self.plan.doc, int(self.case.players), self.case.target, upto)
        return facts.hands[-1] if facts.hands else None


def attribute(plan: Any, observed: Sequence[dict], observed_chunks: Sequence[tuple[int, int]], divergences: Sequence[Divergence], measures: bool = True) -> None:
    """Set `point` (and `inferred`, `consequence_of`) on each divergence of one case, in order."""
    Attributor(plan, observed, observed_chunks, measures).run(divergences)


# ---------------------------------------------------------------------------------- awards
def _award_alternatives(cat: Any) -> list[tuple[str, str, Any]]:
    """(point suffix, inferred value, the category read otherwise) for a category's award."""
    found: list[tuple[str, str, Any]] = []
    if cat.policy == "most":
        other = "all" if cat.ties == "nobody" else "nobody"
        found.append(("award", f"most, ties: {other}", dataclasses.replace(cat, ties=other)))
    if cat.policy == "threshold" and cat.more_than is not None:
        found.append(("award", "at least the bound", dataclasses.replace(cat, more_than=cat.more_than - 1)))
        found.append(("award", "most", dataclasses.replace(cat, policy="most", ties="nobody")))
    for points in range(0, 5):
        if points != cat.points:
            found.append(("points", str(points), dataclasses.replace(cat, points=points)))
    return found


def _award(cat: Any, measures: Sequence[Any]) -> list[int]:
    """The points `cat` gives these measures, by the engine's own scoring code."""
    from escoba.engine.scoring import score_category

    sides = len(measures)
    if cat.policy == "holder":
        piles: list[list[int]] = [[cat.card] if measures[s] else [] for s in range(sides)]
        return list(score_category(cat, piles, [0] * sides).points)
    # The measures are given: the category's own measure (which may read the hand's history)
    # is not evaluated.
    given = dataclasses.replace(cat, measure=_measure_of(measures), needs_history=False, history_reads=frozenset())
    return list(score_category(given, [[s] for s in range(sides)], [0] * sides).points)


def _measure_of(measures: Sequence[Any]) -> Callable[[list[int], int], Any]:
    return lambda pile, escobas: measures[pile[0]]


# ---------------------------------------------------------------------------------- helpers
def _kind(event: Any) -> str | None:
    return event.get("event") if isinstance(event, dict) else None


def _field_differs(d: Divergence, name: str) -> bool:
    return d.expected is not None and d.observed is not None and not same(d.expected.get(name), d.observed.get(name))


def _sides_differ(d: Divergence) -> bool:
    e, o = d.expected, d.observed
    if e is None or o is None:
        return False
    for name in ("points", "totals", "cards"):  # per side in hand_end and totals
        a, b = e.get(name), o.get(name)
        if isinstance(a, list) and isinstance(b, list) and len(a) != len(b):
            return True
    return False


def _same_multiset(a: Sequence[Any], b: Sequence[Any]) -> bool:
    import json

    return sorted(json.dumps(x, sort_keys=True) for x in a) == sorted(json.dumps(x, sort_keys=True) for x in b)


def _side_word(offset: int, prefix: str = "") -> str:
    return prefix + ("right" if offset > 0 else "left")


def _yes(value: Any) -> str:
    return "yes" if value else "no"
