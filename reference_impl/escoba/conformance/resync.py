"""After a divergence, go on from where the engine is.

A case's requests go to the engine all at once (conformance/driver.py); what follows a
divergence was computed for the reference's game, not the engine's. So once a reply differs,
the runner asks the engine where it is and judges the rest from there:

1. it sends the requests up to the divergent one again, from `start`, then `state`
   (the engine must answer them as before: a replay that differs is reported);
2. the reference hand is rebuilt from that `state` (`engine_hand`: the fields docs/protocol.md
   lists; the table's order, and the hand's history where the measures read it, from the events
   the engine sent), and in a match the totals are the engine's last `totals`;
3. the walk (conformance/walk.py) goes on from there a request at a time: the case's next move
   if it is legal where the engine is, else a substitute (and, when the engine refuses a move
   the rules allow, another that it listed);
4. at the next reply that differs the same again, so that each divergence is judged on its own
   and explained on its own (conformance/attribute.py).

Where the runner cannot go on (no usable `state`, a replay that differs, an engine that refuses
`state`), every later divergence of the first run is said to follow the last one judged, with
that reason (`Divergence.resync`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from escoba.conformance import unexpressed
from escoba.conformance.attribute import Chunk, Explainer
from escoba.conformance.compare import CONTEXT, Divergence, all_divergences, same_event
from escoba.conformance.driver import Plan, perft_on_engine, rejected_play, reply_chunk
from escoba.conformance.walk import Step, Walk, script_of
from escoba.protocol.messages import EngineFailure, ErrorReply, LegalReply, Play, Reply, State, StateReply

MAX_RESYNCS = 400  # divergent replies judged one by one in a case; the rest follow the last
FIELDS = ("players", "dealer", "to_play", "stock", "hands", "table", "piles", "escobas", "set_aside", "last_capturer", "plays")


@dataclass
class Judgement:
    """A failed case judged reply by reply: the streams compared (the expected events of each
    request and the engine's replies), every divergence, and what stopped the judging."""

    expected: list[dict] = field(default_factory=list)
    observed: list[dict] = field(default_factory=list)
    divergences: list[Divergence] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    complete: bool = False  # judged to the end of the case
    failure: EngineFailure | None = None  # the engine failed while the rest was judged
    requests: int = 0
    evidence: Evidence | None = None  # what the explanations were checked against, for the whole run's check


@dataclass
class Evidence:
    """A case's replies as judged, for checking an explanation against the whole run
    (`attribute.consolidate`): the explainer, every reply (step, what the engine said, whether
    it diverged), and the divergent ones with their facts."""

    explainer: Explainer
    replies: list[tuple[Step, list[dict], bool]]
    divergent: list[tuple[Chunk, Any]]


class _Stopped(Exception):
    """Judging cannot go on (the reason is the message)."""


def judge(session: Any, plan: Plan, trace: Any, *, measures: bool = True, resync: bool = True) -> Judgement | None:
    """Every divergence of a case whose first run diverged, each with its rule point. None when
    the walk does not line up with the plan (a case the runner judges the old way)."""
    return _Judge(session, plan, trace, measures, resync).run()


class _Judge:
    def __init__(self, session: Any, plan: Plan, trace: Any, measures: bool, resync: bool):
        self.session, self.plan, self.trace, self.measures, self.may_resync = session, plan, trace, measures, resync
        script = plan.script if plan.script is not None else script_of(plan.case)
        self.walk = Walk(script, plan.rules, plan.sent if plan.sent is not None else plan.doc, keep=True)
        self.explainer = Explainer(plan.doc, plan.rules, script, measures)
        self.order = {c: i for i, c in enumerate(plan.rules.deck.code)}
        self.out = Judgement()
        self.steps: list[Step] = []  # sent, in order
        self.chunks: list[list[dict]] = []  # what the engine said to each
        self.divergent: list[tuple[Chunk, Any]] = []  # each divergent reply, with the facts of the events up to it
        self.lockstep = False  # going on a request at a time from the engine's state
        self.last_listed: list[dict] | None = None  # the engine's last `legal` moves

    # ------------------------------------------------------------------ the walk
    def run(self) -> Judgement | None:
        judged = self._run()
        if judged is not None:  # each value that explains a divergence must hold at every other reply
            diverged = {id(chunk.step) for chunk, _ in self.divergent}
            replies = [(step, chunk, id(step) in diverged) for step, chunk in zip(self.steps, self.chunks)]
            self.explainer.confirm(replies, self.divergent)
            judged.evidence = Evidence(self.explainer, replies, self.divergent)
        return judged

    def _run(self) -> Judgement | None:
        trace, out = self.trace, self.out
        steps = self.walk.steps()
        divergent: Step | None = None
        for n, step in enumerate(steps):
            if n < len(trace.chunks):
                a, b = trace.chunks[n]
                observed = list(trace.events[a:b])
            elif trace.refusal is not None and n == len(trace.chunks):
                refused = self._refused(step, trace.refusal)
                if refused is None:
                    return None  # a refusal of something other than a move: the old way
                observed = refused
            else:
                return None
            if not self._record(step, observed):
                divergent = step
                break
        if divergent is None:
            return None
        if divergent.request is None:  # a perft count: the case ends there
            out.complete = True
            return out
        resyncs = 0
        while True:
            if not self.may_resync:
                self._follow("the run stops at the first divergence")
                return out
            if resyncs >= MAX_RESYNCS:
                self._follow(f"more than {MAX_RESYNCS} divergent replies: the rest is not judged one by one")
                return out
            resyncs += 1
            try:
                self._resync()
                more = self._lockstep(steps)
            except _Stopped as stopped:
                self._follow(str(stopped))
                return out
            except EngineFailure as failure:
                out.failure = failure
                out.notes.append(f"then the engine failed: {failure.what}: {failure.message}")
                return out
            except (AssertionError, IndexError, KeyError, TypeError, ValueError) as problem:
                if not self.lockstep:
                    raise
                # the position is the engine's (a state checked for shape, not for sense): the
                # reference playing on from it may find it impossible
                self._follow(f"the reference cannot play on from the engine's state ({type(problem).__name__}: {str(problem)[:120]})")
                return out
            if not more:
                out.complete = not self.walk.stopped
                return out

    def _record(self, step: Step, observed: list[dict]) -> bool:
        """Judge one reply; True if it agrees. A divergent reply's divergences are explained."""
        out = self.out
        at, where = len(out.expected), len(out.observed)
        expected = unexpressed.view(self.plan.doc, step.expected)
        self.steps.append(step)
        self.chunks.append(observed)
        out.expected += expected
        out.observed += observed
        if len(observed) == len(expected) and all(same_event(e, o, self.measures) for e, o in zip(expected, observed)):
            return True
        found = all_divergences(expected, observed, [(0, len(observed))], self.measures)
        n = len(self.chunks) - 1
        for d in found:
            d.index += at
            d.chunk = n
            back = where + (observed.index(d.observed) if d.observed is not None and d.observed in observed else len(observed))
            d.context = list(out.observed[max(0, back - CONTEXT) : back])
        context = []  # the engine's legal moves just before, where they agreed: an explanation must give them too
        if step.kind in ("events", "probe") and len(self.steps) >= 2 and self.steps[-2].kind == "legal":
            before = self.steps[-2]
            if not any(chunk.step is before for chunk, _ in self.divergent):
                context = [(before, self.chunks[-2])]
        chunk = Chunk(step, observed, found, context)
        facts = self._facts()
        self.explainer.explain(chunk, facts)
        self.divergent.append((chunk, facts))
        out.divergences += found
        return False

    def _facts(self) -> Any:
        """What the engine's events so far show: which points its position exercises."""
        from escoba.protocol.features import Facts

        script = self.walk.script
        try:
            return Facts(self.plan.doc, script.players, script.target, list(self.out.observed))
        except Exception:  # events an engine's position made odd: no preference between points
            return None

    def _refused(self, step: Step, reply: ErrorReply) -> list[dict] | None:
        """A refused move stands for a `rejected` event; any other refusal stops judging."""
        if isinstance(step.request, Play):
            return rejected_play(step.request, reply)
        return None

    def _resync(self) -> None:
        """Read the engine's `state` (the first time after sending the requests so far again,
        since the first run went past the divergence): the walk goes on from there."""
        if self.lockstep:  # a request at a time: the engine is where the divergent reply left it
            replies = [next(iter(self.session.exchange([State()])))]
        else:
            requests = [s.request for s in self.steps]
            if any(r is None for r in requests):
                raise _Stopped("the case ends there")
            replies = list(self.session.exchange([*requests, State()]))
            for step, chunk, reply in zip(self.steps, self.chunks, replies):
                if isinstance(reply, LegalReply):
                    self.last_listed = list(reply.moves)
                again = self._chunk_of(step, reply)
                if again is None or len(again) != len(chunk) or not all(same_event(a, b, self.measures) for a, b in zip(again, chunk)):
                    raise _Stopped(f"the engine answered {step.what} otherwise when the case was sent again: its state cannot be trusted")
        self.out.requests += len(replies)
        state = replies[-1]
        if isinstance(state, ErrorReply):
            raise _Stopped(f"the engine refused `state` ({state}): the reference cannot go on from where the engine is")
        if not isinstance(state, StateReply):
            raise _Stopped("the engine's `state` reply holds no state")
        hand, why = engine_hand(state.state, self.plan.rules, self.walk.script.players, self._hand_events())
        if hand is None:
            raise _Stopped(why)
        totals, played, over = self._totals()
        self.walk.resync(hand, totals, played, over)
        self.lockstep = True
        last = self.steps[-1]
        if isinstance(last.request, Play) and self.chunks[-1] and self.chunks[-1][0].get("event") == "rejected":
            self.walk.retry(self.last_listed or [])

    def _lockstep(self, steps: Any) -> bool:
        """Go on a request at a time; True when a reply differs again, False at the end."""
        for step in steps:
            if step.request is None:  # perft: the engine's own count from here
                line = [m for hand in self.walk.lines for m in hand if not hasattr(m, "wire")]
                code = self.plan.rules.deck.code
                plays = [Play(code[m.card], tuple(code[c] for c in m.take)) for m in line]
                start = self.steps[0].request
                depth = int(step.expected[0].get("depth", self.walk.script.depth or 1))
                count = perft_on_engine(self.session, start, plays, depth, self._check)
                observed = [{"event": "perft", "depth": depth, "count": count}]
            else:
                reply = next(iter(self.session.exchange([step.request])))
                self.out.requests += 1
                if isinstance(reply, LegalReply):  # the moves themselves, even where the case keeps a count
                    self.walk.listed(reply.moves)
                    self.last_listed = list(reply.moves)
                observed_or_none = self._chunk_of(step, reply)
                if observed_or_none is None:
                    self._record(step, [])  # what it did not give differs, and is explained as it can be
                    raise _Stopped(f"the engine refused {step.what} ({reply})")
                observed = observed_or_none
            if not self._record(step, observed):
                return True
        return False

    def _check(self, reply: Reply, what: str) -> Reply:
        self.out.requests += 1
        if isinstance(reply, ErrorReply):
            raise _Stopped(f"the engine refused {what} ({reply})")
        return reply

    def _chunk_of(self, step: Step, reply: Reply) -> list[dict] | None:
        if isinstance(reply, ErrorReply) and step.kind != "probe":
            return self._refused(step, reply)
        return unexpressed.view(self.plan.doc, reply_chunk(step.kind, step.request, reply, self.walk.script.legal, self.order))

    # ------------------------------------------------------------------ the engine's position
    def _hand_events(self) -> list[dict]:
        """The engine's events since its current hand was dealt."""
        events = self.out.observed
        start = 0
        for i, event in enumerate(events):
            if event.get("event") == "hand_start":
                start = i
        return events[start:]

    def _totals(self) -> tuple[list[int] | None, int | None, bool]:
        """A match's totals, hands played and whether it is over, as the engine's events say."""
        over = any(e.get("event") == "match_end" for e in self.out.observed)
        last = next((e for e in reversed(self.out.observed) if e.get("event") == "totals"), None)
        if last is None and self.walk.script.target is not None:
            # No hand of the match over yet, as the engine tells it, even where the reference's
            # own game had ended one (the engine refused the move that ended it).
            return [0] * len(self.plan.rules.sides(self.walk.script.players)), 0, over
        if last is None or not isinstance(last.get("totals"), list):
            return None, None, over
        try:
            return [int(t) for t in last["totals"]], int(last.get("hand", 0)), over
        except (TypeError, ValueError):  # an engine's totals that are not numbers: the reference's own
            return None, None, over

    def _follow(self, reason: str) -> None:
        """Judging stops: the last divergent reply's divergences say why. While nothing was sent
        again yet, the rest of the first run is compared as it came, each later divergence
        following the last one judged."""
        out, trace, plan = self.out, self.trace, self.plan
        done = len(self.chunks)
        for d in out.divergences:
            if d.chunk == done - 1:
                d.resync = reason
        last = out.divergences[-1] if out.divergences else None
        first_run = out.observed == list(trace.events[: len(out.observed)]) and out.expected == list(plan.expected[: len(out.expected)])
        if last is None or not first_run:
            out.notes.append(f"the rest of the case is not judged: {reason}")
            return
        for d in all_divergences(plan.expected, trace.events, trace.chunks, self.measures):
            if d.chunk is not None and d.chunk >= done:
                d.point, d.inferred, d.consequence_of, d.resync = last.point, last.inferred, last.index, reason
                d.explained = None
                out.divergences.append(d)
        out.expected, out.observed = list(plan.expected), list(trace.events)
        out.complete = trace.refusal is None and len(trace.events) >= len(plan.expected)


def engine_hand(state: Mapping[str, Any], rules: Any, players: int, events: Sequence[Mapping[str, Any]]) -> tuple[Any, str]:
    """The reference hand at the engine's position (its `state`, docs/protocol.md), or (None,
    why not). The table's order (which a state need not keep) and the hand's history (for
    measures that read it, when the state has none) come from the engine's own events."""
    from escoba.engine.hand import Hand

    missing = [k for k in FIELDS if k not in state]
    if missing:
        return None, f"the engine's state has no {', '.join(missing)}: the reference cannot go on from where the engine is"
    data = dict(state)
    if data.get("players") != players:
        return None, f"the engine's state says {data.get('players')!r} players, the case has {players}"
    sides = len(set(rules.side_of(players)))
    for key, count, what in (("hands", players, "players"), ("piles", sides, "sides"), ("escobas", sides, "sides")):
        value = data.get(key)
        if not isinstance(value, list) or len(value) != count:  # Hand.from_json indexes them by seat and side
            held = f"{len(value)} {key}" if isinstance(value, list) else f"{key} that are no list"
            return None, f"the engine's state has {held}, these rules' table of {players} has {count} {what}"
    table = data.get("table")
    if isinstance(table, list):
        order = _table_order(events)
        data["table"] = [c for c in order if c in table] + [c for c in table if c not in order]
    if rules.needs_history and "captures" not in data:
        data["round"], data["captures"] = _history(events, rules)
    try:
        hand = Hand.from_json(rules, data, record=True)
    except Exception as problem:  # an engine's data: any shape at all
        return None, f"the engine's state is not a position of these rules ({type(problem).__name__}: {str(problem)[:120]})"
    if hand.to_play is not None and not 0 <= hand.to_play < players:
        return None, f"the engine's state has seat {hand.to_play!r} to play"
    return hand, ""


def _table_order(events: Sequence[Mapping[str, Any]]) -> list[str]:
    """The table's cards in the order they came to it, read off a hand's events."""
    table: list[str] = []
    for event in events:
        kind = event.get("event")
        if kind == "table":
            table = [str(c) for c in event.get("cards") or ()]
        elif kind == "opening" and event.get("action") in ("dealer_takes", "set_aside"):
            table = []
        elif kind == "play":
            take = [str(c) for c in event.get("take") or ()]
            if take:
                table = [c for c in table if c not in take]
            else:
                table.append(str(event.get("card")))
        elif kind == "leftovers":
            table = []
    return table


def _history(events: Sequence[Mapping[str, Any]], rules: Any) -> tuple[int, list[dict]]:
    """The deal round and each side's captures, read off a hand's events (the state's `round`
    and `captures` when the engine does not give them)."""
    side_of: dict[int, int] = {}
    rounds, plays = 0, 0
    captures: list[dict] = []
    for i, event in enumerate(events):
        kind = event.get("event")
        if kind == "hand_start":
            players = int(event.get("players", 0))
            side_of = dict(enumerate(rules.side_of(players))) if players else {}
            rounds = 0
        elif kind == "deal":
            rounds += 1
        elif kind == "play":
            plays += 1
            if event.get("take"):
                after = events[i + 1] if i + 1 < len(events) else {}
                escoba = after.get("event") == "escoba" and bool(after.get("scores"))
                seat = int(event.get("seat", 0))
                captures.append({"side": side_of.get(seat, seat), "card": event.get("card"), "take": list(event.get("take") or ()),
                                 "round": rounds, "first": plays == 1, "last": False, "escoba": escoba})  # fmt: skip
    return rounds, captures
