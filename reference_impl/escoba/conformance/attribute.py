"""Which rule point each divergence concerns, proved, never guessed.

A divergence is an event of one reply (a *chunk*) that differs from what the rules say. It is
**attributed to a rule point** only when the reference, with that point alone set otherwise,
answers the same request from the same position exactly as the engine did: generically, for
every point of the rules (`rules.points`) whose `shows_in` holds the kind of a divergent event
of the chunk, and each of its other values (`other_values`, set by `with_value`). The position
is the engine's own (conformance/resync.py goes on from the engine's state after each
divergence), so each divergence is judged on its own. `inferred` is the value that reproduces
it. An explanation must also reproduce what the engine said at that position just before (its
legal moves, before a play or a probe), and must not make any other event of the chunk differ.

Otherwise, in this order:

- **the event's shape proves a rule every ruleset shares** (`COMMON`): the same legal moves in
  another order (`common.move_order`), a refusal for another reason or a state that a refused
  move changed (`common.refusals`);
- **it follows from other divergences of the same reply** that points explain (a hand's total
  after two categories that score otherwise): the points together reproduce it
  (`consequence_of`);
- **no rule point explains it**: `explained` is None and `point` names, where one fits, what
  the event concerns: the common point (the deal, the captures offered, an escoba, the hand's
  total, the match), or the category a score event scores (`scoring.primera`: which of its
  aspects, if any, is not said), with the event's class.

`Explainer.explain` does this for one chunk; conformance/resync.py calls it for every divergent
reply of a case.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from escoba.conformance import unexpressed
from escoba.conformance.compare import Divergence, all_divergences, same, same_event

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

#: the common point an event of each kind concerns, when no rule point explains it
_COMMON_OF = {
    "hand_start": "common.deal", "deal": "common.deal", "table": "common.deal",
    "legal": "common.captures", "perft": "common.captures", "play": "common.captures",
    "rejected": "common.refusals", "state": "common.refusals",
    "escoba": "common.escoba", "hand_end": "common.hand_total",
    "totals": "common.match", "tie": "common.match", "match_end": "common.match",
}  # fmt: skip

VALUE, SHAPE, FOLLOWS = "value", "shape", "follows"  # how a divergence was explained
MAX_AT_ONCE = 3  # departures one reply may show together (each a point of its own)


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


@dataclass
class Chunk:
    """One reply judged: the walk's step (the request, the expected events, the position before
    it), what the engine said, the divergences found in it, and what the engine said just before
    at the same position (its `legal` reply before a play or a probe: (step, observed))."""

    step: Any  # conformance.walk.Step, with `before`
    observed: list[dict]
    divergences: list[Divergence]
    context: list[tuple[Any, list[dict]]]


@dataclass(frozen=True)
class Candidate:
    """Another value of one point: tried as the value the engine plays."""

    key: str  # the point, as the document names it (`scoring.velo.points`)
    value: Any = field(compare=False)
    shown: str  # the value in words (`inferred`)
    token: str = ""  # the value as JSON: what two candidates are compared by


class Explainer:
    """Explains the divergent chunks of one case, walked under `rules` (document `doc`)."""

    def __init__(self, doc: Mapping[str, Any], rules: Any, script: Any, measures: bool = True):
        self.doc, self.rules, self.script, self.measures = doc, rules, script, measures
        self._alternatives: list[tuple[Candidate, frozenset[str]]] | None = None
        self.used: dict[tuple[str, str], Candidate] = {}  # the values that explained something
        self.rejected: set[Candidate] = set()  # values a reply of the case contradicts
        self.laid: dict[Candidate, tuple[Candidate, ...]] = {}  # value → the values it was found laid on

    # ------------------------------------------------------------------ one chunk
    def explain(self, chunk: Chunk, facts: Any = None) -> None:
        """Set `point`, `inferred`, `explained` and `consequence_of` on each divergence of
        `chunk`. `facts` (protocol.features.Facts of the events so far) break a tie between
        points that explain a divergence equally: a point the position exercises first."""
        # What the engine did not say after refusing a move follows the refusal (a refused
        # move does nothing more: `_carried`), whatever value would also leave it out. (What it
        # said after taking a move the rules refuse is its own game: explained if it can be.)
        pending = [
            d for d in chunk.divergences
            if d.point is None and not (d.observed is None and _after_refusal(d, chunk.divergences) is not None)
        ]  # fmt: skip
        if not pending:
            self._unexplained(chunk)
            return
        for d in pending:
            shape = self._shape(d, chunk)
            if shape is not None:
                d.point, d.explained = shape, SHAPE
        pending = [d for d in pending if d.point is None]
        if not pending:
            return
        for d in pending:
            self._side_of_seat(d)
        pending = [d for d in pending if d.point is None]
        if not pending:
            self._unexplained(chunk)
            return
        keys = {id(d): _key(d) for d in pending}
        before = {_key(d) for d in chunk.divergences}
        chosen: list[Candidate] = []
        # A reply may show two departures at once (a hand's last play: a capture rule and a
        # scoring rule): each round tries every other value on top of those already found.
        for _ in range(MAX_AT_ONCE):
            rest = [d for d in pending if d.point is None]
            if not rest:
                break
            if chosen:  # what the values found so far give together follows from them
                self._follows(chunk, rest, keys, before, chosen)
                rest = [d for d in rest if d.point is None]
                if not rest:
                    break
            found = self._round(chunk, rest, keys, before, chosen, facts)
            if not found:
                break
            chosen += [c for c in found if c not in chosen]
        rest = [d for d in pending if d.point is None]
        known = [c for c in self.used.values() if c not in self.rejected and c not in chosen]
        if rest and known:
            # One event may show the values the case has already shown only together (a deal
            # both passed to the left and begun on the dealer's left), or a departure of its own
            # only together with them (a second hand's dealer): the values found in its earlier
            # replies are tried together, then laid under each other value.
            self._together(chunk, rest, keys, before, [*chosen, *known])
            rest = [d for d in pending if d.point is None]
        if rest and known:
            laid = self._round(chunk, rest, keys, before, [*chosen, *known], facts)
            for c in laid:
                self.laid.setdefault(c, tuple(known))
            chosen += laid
            rest = [d for d in pending if d.point is None]
        if rest and chosen:
            self._follows(chunk, rest, keys, before, chosen)
        self._unexplained(chunk)

    def _together(
        self, chunk: Chunk, rest: Sequence[Divergence], keys: Mapping[int, Any], before: set[tuple[str, str]],
        values: Sequence[Candidate],
    ) -> None:  # fmt: skip
        """Divergences `values` reproduce together are explained by those of them that show in
        their kind of event."""
        together = self._combined(values)
        left = self._left(chunk, together, before) if together is not None else None
        if left is None:
            return
        shows = dict(self.alternatives())
        for d in rest:
            if keys[id(d)] in left:
                continue
            owners = [c for c in values if _kinds(d) & shows.get(c, frozenset())] or list(values[:1])
            d.point, d.inferred, d.explained = owners[0].key, owners[0].shown, VALUE
            d.alternatives = [(c.key, c.shown) for c in owners]

    def _follows(
        self, chunk: Chunk, rest: Sequence[Divergence], keys: Mapping[int, Any], before: set[tuple[str, str]],
        chosen: Sequence[Candidate],
    ) -> None:  # fmt: skip
        """Divergences the values found so far reproduce together follow from them."""
        together = self._combined(chosen)
        left = self._left(chunk, together, before) if together is not None else None
        if left is None:
            return
        cause = next(d for d in chunk.divergences if d.explained == VALUE)
        for d in rest:
            if keys[id(d)] not in left:
                d.point, d.inferred, d.explained, d.consequence_of = cause.point, cause.inferred, FOLLOWS, cause.index

    def _round(
        self, chunk: Chunk, rest: Sequence[Divergence], keys: Mapping[int, Any], before: set[tuple[str, str]],
        chosen: Sequence[Candidate], facts: Any,
    ) -> list[Candidate]:  # fmt: skip
        """Try each other value (on top of `chosen`); attribute what the best explain."""
        explaining: dict[int, list[tuple[Candidate, set[tuple[str, str]]]]] = {}
        taken = {c.key for c in chosen}
        for candidate, rules, shows in self._candidates(rest):
            if candidate in self.rejected or candidate.key in taken:
                continue
            if chosen:
                rules = self._combined([*chosen, candidate])
                if rules is None:
                    continue
            left = self._left(chunk, rules, before)
            if left is None:
                continue
            # A value explains a reply through the events it changes: it must put right at
            # least one of them (a hand's total it mends by a score the engine never said is
            # a coincidence, not the engine's rule).
            if not any(keys[id(d)] not in left and _kinds(d) & shows for d in rest):
                continue
            for d in rest:
                if keys[id(d)] not in left:
                    explaining.setdefault(id(d), []).append((candidate, left))
        found: list[Candidate] = []
        for d in rest:
            options = explaining.get(id(d))
            if not options:
                continue
            # The candidates that explain the most of this reply, those the position exercises
            # first, then the catalogue's order.
            fewest = min(len(left) for _, left in options)
            best = [c for c, left in options if len(left) == fewest]
            best.sort(key=lambda c: not self._exercised(c, facts))
            d.point, d.inferred, d.explained = best[0].key, best[0].shown, VALUE
            d.alternatives = [(c.key, c.shown) for c in best]
            for c in best:
                self.used.setdefault((c.key, c.shown), c)
            if best[0] not in found:
                found.append(best[0])
        return found

    def _side_of_seat(self, d: Divergence) -> None:
        """An event of one seat (an escoba, leftovers, the opening take) that differs only in
        the side it names: the value of `players.partnerships` that puts the seat on that side
        reproduces it. (A snapshot holds piles per side, so it cannot be answered again under
        rules with other sides: the side of the seat is what such a value changes.)"""
        e, o = d.expected, d.observed
        if e is None or o is None or e.get("event") not in ("escoba", "leftovers", "opening") or e.get("event") != o.get("event"):
            return
        if not same({**e, "side": None}, {**o, "side": None}) or not isinstance(o.get("seat"), int):
            return
        for candidate, rules, _ in self._candidates([d]):
            if candidate.key != "players.partnerships" or candidate in self.rejected:
                continue
            try:
                side = rules.side_of(int(self.script.players))[int(o["seat"])]
            except (IndexError, KeyError, TypeError, ValueError):
                continue
            if side == o.get("side"):
                d.point, d.inferred, d.explained = candidate.key, candidate.shown, VALUE
                d.alternatives = [(candidate.key, candidate.shown)]
                self.used.setdefault((candidate.key, candidate.shown), candidate)
                return

    def _unexplained(self, chunk: Chunk) -> None:
        for d in chunk.divergences:
            if d.point is not None:
                continue
            e, o = d.expected or {}, d.observed or {}
            if e.get("event") == o.get("event") == "rejected" and e.get("move") == o.get("move"):
                d.point, d.explained = "common.refusals", SHAPE  # the same move refused for another reason
            else:
                d.point = concerns(d)
        _carried(chunk, self.doc)

    def _exercised(self, candidate: Candidate, facts: Any) -> bool:
        if facts is None:
            return True
        from escoba.rules.points import by_key, positions

        position = by_key(positions(self.doc)).get(candidate.key)
        try:
            return position is not None and bool(position.rule.exercised(position, facts))
        except Exception:  # a predicate that cannot read these events: no preference
            return True

    # ------------------------------------------------------------------ the whole case
    def confirm(self, judged: Sequence[tuple[Any, list[dict], bool]], chunks: Sequence[tuple[Chunk, Any]]) -> None:
        """A value explains a divergence only if it also gives what the engine said at every
        other position of the case where it would change something: each reply that agreed
        (`judged`: step, what the engine said, whether it diverged) is answered again under it.
        Values a reply contradicts are dropped, and the divergent chunks (with their facts)
        explained again without them, until none is contradicted."""
        while True:
            dropped = False
            for candidate in list(self.used.values()):
                if candidate not in self.rejected and not self._holds(candidate, judged):
                    self.rejected.add(candidate)
                    dropped = True
            if not dropped:
                return
            self.used.clear()
            for chunk, facts in chunks:
                for d in chunk.divergences:
                    d.point = d.inferred = d.consequence_of = d.explained = None
                    d.alternatives = []
                self.explain(chunk, facts)

    def _holds(self, candidate: Candidate, judged: Sequence[tuple[Any, list[dict], bool]]) -> bool:
        compiled = compiled_with(self.doc, candidate.key, candidate.value)
        shows = next((s for c, s in self.alternatives() if c == candidate), frozenset())
        if compiled is None:
            return False
        under = self.laid.get(candidate, ())
        laid = (self._combined(under), self._combined([*under, candidate])) if under else None
        for step, observed, diverged in judged:
            if not shows & {str(e.get("event")) for e in step.expected} or _counts_only(step.expected):
                continue
            if not diverged:
                again = self._redo(step, compiled)
                if again is not None and not _same_chunk(again, observed, self.measures):
                    return False
            elif laid is not None and None not in laid:
                # A value found laid on others must also hold where those others alone give
                # what the engine said (optional capture's replies, for a capture rule found
                # on top of it).
                agreed = self._redo(step, laid[0])
                if agreed is not None and _same_chunk(agreed, observed, self.measures):
                    again = self._redo(step, laid[1])
                    if again is not None and not _same_chunk(again, observed, self.measures):
                        return False
        return True

    # ------------------------------------------------------------------ shapes
    def _shape(self, d: Divergence, chunk: Chunk) -> str | None:
        """A common point the two events alone prove (see the module's docstring)."""
        e, o = d.expected, d.observed
        if e is None or o is None:
            return None
        kind = _kind(d)
        if kind == "legal" and e.get("seat") == o.get("seat") and "moves" in e and "moves" in o and _same_multiset(e["moves"], o["moves"]):
            return "common.move_order"
        if kind == "state" and chunk.step.kind == "state":
            return "common.refusals"  # the position before the refusal agreed: the refusal changed it
        return None

    # ------------------------------------------------------------------ candidates
    def _candidates(self, pending: Sequence[Divergence]) -> list[tuple[Candidate, Any, frozenset[str]]]:
        """The other values of the points that show in the kinds of the pending divergences,
        compiled (once per document) as they are first needed."""
        kinds = {k for d in pending for k in (_kind_of(d.expected), _kind_of(d.observed)) if k}
        self._scored_by_engine(pending)
        found = []
        for candidate, shows in self.alternatives():
            if kinds & shows:
                compiled = compiled_with(self.doc, candidate.key, candidate.value)
                if compiled is not None:
                    found.append((candidate, compiled, shows))
        return found

    def alternatives(self) -> list[tuple[Candidate, frozenset[str]]]:
        """Every other value of every point of the document that shows in some event, in the
        catalogue's order, with the kinds of event it shows in."""
        if self._alternatives is None:
            from escoba.rules.points import other_values, positions

            self._alternatives = []
            for position in positions(self.doc):
                rule = position.rule
                if not rule.shows_in:
                    continue
                for value in other_values(self.doc, position):
                    shown = "not scored" if value is None else _shown(rule, value, self.doc)
                    token = json.dumps(value, sort_keys=True, default=str)
                    self._alternatives.append((Candidate(position.key, value, shown, token), frozenset(rule.shows_in)))
        return self._alternatives

    def _scored_by_engine(self, pending: Sequence[Divergence]) -> None:
        """A category the engine scores that the rules do not: each way a bundled ruleset scores
        a category of that id becomes a value to try (scored after the others)."""
        from escoba.rules.bundled import bundled_categories, categories_of
        from escoba.rules.points import rule_of

        ours = {str(c.get("id")) for c in categories_of(self.doc)}
        seen = {c.token for c, _ in self.alternatives()}
        title, award = rule_of("scoring.*"), rule_of("scoring.*.award")
        for d in pending:
            o = d.observed or {}
            if o.get("event") != "score" or str(o.get("category")) in ours:
                continue
            for category in bundled_categories():
                if str(category["id"]) != str(o.get("category")):
                    continue
                token = json.dumps(category, sort_keys=True, default=str)
                if token not in seen:
                    seen.add(token)
                    shown = f"scored: {_shown(title, category, self.doc)}, {_shown(award, category.get('award'), self.doc)}"
                    candidate = Candidate(f"scoring.{category['id']}", category, shown, token)
                    self.alternatives().append((candidate, frozenset(("score",))))

    def _combined(self, chosen: Sequence[Candidate]) -> Any:
        from escoba.rules.compile import rules_from_document
        from escoba.rules.points import with_value

        doc: Any = self.doc
        for c in chosen:
            doc = with_value(doc, c.key, c.value)
            if doc is None:
                return None
        try:
            return rules_from_document(doc)
        except Exception:  # two values that no ruleset can hold together
            return None

    # ------------------------------------------------------------------ answers under other rules
    def _redo(self, step: Any, rules: Any) -> list[dict] | None:
        """`redo`, compared as the case's events are (conformance/unexpressed.py)."""
        again = redo(step, rules, self.script)
        return None if again is None else unexpressed.view(self.doc, again)

    def _left(self, chunk: Chunk, rules: Any, before: set[tuple[str, str]]) -> set[tuple[str, str]] | None:
        """The divergences (by kind) still left when `rules` answer the chunk's request from the
        same position; None when these rules contradict what the engine said there (a new
        divergence in the chunk, or its legal moves before)."""
        for step, observed in chunk.context:
            again = self._redo(step, rules)
            if again is None or not _same_chunk(again, observed, self.measures):
                return None
        again = self._redo(chunk.step, rules)
        if again is None:
            return None
        left = {_key(d) for d in all_divergences(again, chunk.observed, [(0, len(chunk.observed))], self.measures)}
        if not left <= before:
            return None
        return left


def redo(step: Any, rules: Any, script: Any) -> list[dict] | None:
    """What `rules` answer `step`'s request from the position before it (None: they cannot)."""
    from escoba.engine.hand import Hand
    from escoba.errors import EscobaError, IllegalMoveError
    from escoba.game.seats import next_dealer
    from escoba.protocol.messages import NextHand, Start
    from escoba.transcript.record import legal_event, perft, probe_reason, rejected_event, state_event

    try:
        request = step.request
        if isinstance(request, Start | NextHand):
            dealer = step.dealer if isinstance(request, Start) else next_dealer(step.dealer, rules.next_dealer_offset, script.players)
            hand = Hand(rules, script.players, dealer, iter([list(d) for d in step.decks]))
            return list(hand.events or ())
        if step.before is None:
            return None
        hand = Hand.from_json(rules, step.before)
        if step.kind == "legal":
            return [legal_event(hand, script.legal)]
        if step.kind == "state":
            order = {c: i for i, c in enumerate(rules.deck.code)}
            return [state_event(hand.to_json(), order)]
        if step.kind == "perft":
            return [{"event": "perft", "depth": script.depth, "count": perft(hand, int(script.depth))}]
        if step.kind == "probe":
            wire = step.move.wire
            reason, _ = probe_reason(hand, wire)
            if reason is not None:
                return [rejected_event(wire, "illegal_move", reason)]
            from escoba.notation import move_from_wire

            return _played(hand, move_from_wire(wire, rules.deck), rules, step, script)
        move = step.move
        if move not in hand.legal_moves():
            code = rules.deck.code
            found = hand.refusal(move)
            wire = {"card": code[move.card], "take": [code[c] for c in move.take]}
            return [rejected_event(wire, "illegal_move", found.reason if found is not None else "compulsory")]
        return _played(hand, move, rules, step, script)
    except (EscobaError, IllegalMoveError, KeyError, IndexError, ValueError, TypeError):
        return None


def _played(hand: Any, move: Any, rules: Any, step: Any, script: Any) -> list[dict]:
    from escoba.conformance.walk import end_of_hand

    events = list(hand.apply(move))
    if script.target is not None and hand.is_over:
        events += end_of_hand(rules, hand, step.totals or (), step.played, script.target)[0]
    return events


_COMPILED: dict[tuple[int, str, str], Any] = {}


def compiled_with(doc: Mapping[str, Any], key: str, value: Any) -> Any:
    """The rules of `doc` with point `key` set to `value`, compiled once per document object
    (None where that value cannot be set alone, or does not make a ruleset)."""
    from escoba.rules.compile import rules_from_document
    from escoba.rules.points import with_value

    memo = (id(doc), key, json.dumps(value, sort_keys=True, default=str))
    if memo in _COMPILED and _COMPILED[memo][0] is doc:
        return _COMPILED[memo][1]
    changed = with_value(doc, key, value)
    compiled = None
    if changed is not None:
        try:
            compiled = rules_from_document(changed)
        except Exception:  # a value the compiler refuses alone (a measure that no longer parses)
            compiled = None
    if len(_COMPILED) > 4096:
        _COMPILED.clear()
    _COMPILED[memo] = (doc, compiled)
    return compiled


# ---------------------------------------------------------------------------------- a whole run
def consolidate(results: Sequence[Any]) -> None:
    """The run's explanations checked against each other: a value that explains a divergence
    in one case must not be contradicted by what the engine said in another case of the same
    rules (`confirm_across`); then, where several values explain a divergence equally, the
    fewest values that explain every divergence of the run: each time the value that explains
    the most divergences still open (the first met on a tie), so that one departure seen in
    many cases is named once."""
    confirm_across(results)
    open_ = [d for r in results for d in getattr(r, "divergences", ()) if d.explained == VALUE and len(d.alternatives) > 1]
    if not open_:
        return
    order: dict[tuple[str, str], int] = {}
    for r in results:
        for d in getattr(r, "divergences", ()):
            if d.explained == VALUE:
                for alt in d.alternatives or [(d.point, d.inferred)]:
                    order.setdefault(alt, len(order))
    every = [d for r in results for d in getattr(r, "divergences", ()) if d.explained == VALUE]
    covered: set[int] = set()
    while len(covered) < len(every):
        counts: dict[tuple[str, str], int] = {}
        for d in every:
            if id(d) not in covered:
                for alt in d.alternatives or [(d.point, d.inferred)]:
                    counts[alt] = counts.get(alt, 0) + 1
        best = max(counts, key=lambda a: (counts[a], -order[a]))
        for d in every:
            if id(d) not in covered and best in (d.alternatives or [(d.point, d.inferred)]):
                d.point, d.inferred = best
                covered.add(id(d))
    for r in results:  # what follows a divergence names its point
        divs = getattr(r, "divergences", ())
        by_index = {d.index: d for d in divs if d.explained == VALUE}
        for d in divs:
            if d.explained == FOLLOWS and d.consequence_of in by_index:
                cause = by_index[d.consequence_of]
                d.point, d.inferred = cause.point, cause.inferred
        if getattr(r, "divergence", None) is not None:
            same = next((d for d in divs if d.index == r.divergence.index), None)
            if same is not None:
                r.divergence.point, r.divergence.inferred = same.point, same.inferred


def confirm_across(results: Sequence[Any]) -> None:
    """Drop every value some case of the run contradicts (an agreeing reply it would change),
    in every case judged under the same rules, and explain those cases again without it."""
    groups: dict[int, list[Any]] = {}
    for r in results:
        evidence = getattr(r, "evidence", None)
        if evidence is not None:
            groups.setdefault(id(evidence.explainer.doc), []).append(evidence)
    for group in groups.values():
        while True:
            # A value one case already contradicts is contradicted for every case of these rules.
            bad = {c for e in group for c in e.explainer.rejected}
            live = {c for e in group for c in e.explainer.used.values() if c not in e.explainer.rejected}
            contradicted = {c for c in live if c in bad or any(not e.explainer._holds(c, e.replies) for e in group)}
            if not contradicted:
                break
            for e in group:
                if any(c in contradicted for c in e.explainer.used.values()):
                    e.explainer.rejected |= contradicted
                    e.explainer.used.clear()
                    for chunk, facts in e.divergent:
                        for d in chunk.divergences:
                            d.point = d.inferred = d.consequence_of = d.explained = None
                            d.alternatives = []
                        e.explainer.explain(chunk, facts)
                    e.explainer.confirm(e.replies, e.divergent)
                else:
                    e.explainer.rejected |= contradicted
    for r in results:
        if getattr(r, "evidence", None) is not None:
            r.evidence = None  # the snapshots of every reply are not kept past the run
            if r.divergence is not None and r.divergences:
                same = next((d for d in r.divergences if d.index == r.divergence.index), r.divergences[0])
                r.divergence.point, r.divergence.inferred = same.point, same.inferred
                r.divergence.explained, r.divergence.consequence_of = same.explained, same.consequence_of


# ---------------------------------------------------------------------------------- helpers
def _shown(rule: Any, value: Any, doc: Mapping[str, Any]) -> str:
    """A value in words, as the rules matrix shows it (its own JSON where it cannot)."""
    try:
        return str(rule.shown(value, doc))
    except Exception:  # a reading the point's words do not cover
        return json.dumps(value, ensure_ascii=False, default=str)


def _key(d: Divergence) -> tuple[str, str]:
    """A divergence as the engine's event it concerns (its kind, and category), or the expected
    event the engine did not give: under other rules the expected side changes, the engine's not."""
    if d.observed is not None:
        return ("said", _align(d.observed))
    return ("missing", _align(d.expected))


def _align(event: Any) -> str:
    if not isinstance(event, dict):
        return "-"
    kind = str(event.get("event"))
    return f"score:{event.get('category')}" if kind == "score" else kind


def _kind(d: Divergence) -> str | None:
    return _kind_of(d.expected) or _kind_of(d.observed)


def _kinds(d: Divergence) -> set[str | None]:
    """The kinds of both sides of a divergence (a refused play: `play` expected, `rejected` said)."""
    return {_kind_of(d.expected), _kind_of(d.observed)}


def _kind_of(event: Any) -> str | None:
    return event.get("event") if isinstance(event, dict) else None


def _counts_only(events: Sequence[dict]) -> bool:
    """A reply that says how many (legal moves kept as a count, a perft count): one that agrees
    may still hide other moves, so it contradicts no explanation."""
    return bool(events) and all(e.get("event") == "perft" or (e.get("event") == "legal" and "count" in e) for e in events)


def _same_chunk(a: Sequence[dict], b: Sequence[dict], measures: bool) -> bool:
    return len(a) == len(b) and all(same_event(x, y, measures) for x, y in zip(a, b))


def _same_multiset(a: Sequence[Any], b: Sequence[Any]) -> bool:
    return sorted(json.dumps(x, sort_keys=True) for x in a) == sorted(json.dumps(x, sort_keys=True) for x in b)


def _carried(chunk: Chunk, doc: Mapping[str, Any] | None = None) -> None:
    """What an earlier divergence of the same reply carries into the rest of it follows from it:
    what the engine does not say after refusing the move (a refused move does nothing more); a
    category scored after a play or leftovers that put other cards in the piles; a hand's total,
    the match's totals and its end that differ only by what the divergent scores and piles
    carry (a hand's points are its categories' sum, the totals the hands' sum): the engine adds
    up its own scores right, so they are no departure of their own. A total that does not add
    up stays a divergence of its own."""
    expected, observed = unexpressed.view(doc, chunk.step.expected), list(chunk.observed)
    earlier: list[Divergence] = []
    for d in chunk.divergences:
        kind = _kind(d)
        cause = None
        moved = next((c for c in earlier if _kind(c) in ("play", "leftovers")), None)  # other cards in the piles
        if d.explained is not None or d.consequence_of is not None:
            pass
        elif (refusal := _after_refusal(d, chunk.divergences)) is not None:
            cause = refusal
        elif kind == "score":
            cause = moved
        elif kind == "hand_end" and d.expected is not None and d.observed is not None:
            carried = _difference(_summed(observed, d.observed), _summed(expected, d.expected))
            if carried is not None and carried == _difference(d.observed.get("points"), d.expected.get("points")):
                cause = next((c for c in earlier if _kind(c) == "score"), None) or moved
        elif kind == "totals" and d.expected is not None and d.observed is not None:
            hand = next((c for c in reversed(earlier) if _kind(c) == "hand_end"), None)
            if hand is not None and hand.expected is not None and hand.observed is not None:
                carried = _difference(hand.observed.get("points"), hand.expected.get("points"))
                if carried is not None and carried == _difference(d.observed.get("totals"), d.expected.get("totals")):
                    cause = hand
        elif kind in ("tie", "match_end"):
            cause = next((c for c in earlier if _kind(c) == "totals"), None)
        if cause is not None:
            root = next((c for c in chunk.divergences if c.index == cause.consequence_of), cause)
            d.point, d.inferred, d.explained, d.consequence_of = root.point, root.inferred, FOLLOWS, root.index
        earlier.append(d)


def _after_refusal(d: Divergence, divergences: Sequence[Divergence]) -> Divergence | None:
    """The earlier divergence of the same reply `d` follows from as a refusal's consequence: the
    engine refused a move (so it does nothing more: `d` is an event it did not say), or took one
    the rules refuse (so it did what a move does: `d` is an event it said, none expected)."""
    for c in divergences:
        if c is d:
            return None
        if d.observed is None and _kind_of(c.observed) == "rejected":
            return c
        if d.expected is None and _kind_of(c.expected) == "rejected" and _kind_of(c.observed) != "rejected":
            return c
    return None


def _summed(events: Sequence[Mapping[str, Any]], end: Mapping[str, Any]) -> list[Any] | None:
    """Each side's points in the score events of the hand that `end` (one of `events`) ends."""
    at = next((i for i, e in enumerate(events) if e is end or e == end), None)
    if at is None:
        return None
    total: list[Any] | None = None
    for e in reversed(events[:at]):
        if e.get("event") == "hand_end":
            break
        if e.get("event") == "score":
            points = e.get("points")
            if points == unexpressed.NOT_COMPARED:  # left out of the hand's points as compared
                continue
            if not isinstance(points, list):
                return None
            total = list(points) if total is None else [a + b for a, b in zip(total, points)]
    return total


def _difference(a: Any, b: Any) -> list[Any] | None:
    """`a - b` side by side (None unless both are lists of numbers of one length)."""
    if not isinstance(a, list) or not isinstance(b, list) or len(a) != len(b):
        return None
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (*a, *b)):
        return None
    return [x - y for x, y in zip(a, b)]


def concerns(d: Divergence) -> str | None:
    """What a divergence no rule point explains concerns: a common point, or the category a
    score event scores (None where nothing fits)."""
    e = d.expected or d.observed or {}
    if e.get("event") == "score":
        return f"scoring.{e.get('category')}"
    return _COMMON_OF.get(str(e.get("event")))


def explained_text(d: Divergence) -> str:
    """How a divergence is explained, in words, for the reports."""
    if d.explained == VALUE:
        return f"{d.point}, as if {d.inferred}"
    if d.explained == FOLLOWS:
        return f"follows #{d.consequence_of} ({d.point})"
    if d.explained == SHAPE:
        return str(d.point)
    if d.consequence_of is not None:
        return f"follows #{d.consequence_of}" + (f" ({d.point})" if d.point else "")
    where = f"{d.cls}" + (f", {d.point}" if d.point else "")
    return f"no rule point explains it ({where})"

