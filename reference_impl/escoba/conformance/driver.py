"""Drive one golden case through an engine session and record what the engine says.

The observed stream is built exactly as docs/protocol.md ("Events") and docs/transcripts.md describe the expected one:
the `start` reply's events; before each entry of a hand's line a `legal` event made from the
engine's `legal` reply; the events of each `play`; in a match, the `next_hand` events when a
hand is over. Some events exist only on the runner's side:

- a probe (among the moves, or a probe case's last request) is recorded as `{"event":
  "rejected", "move": .., "kind": KIND, "rule": REASON}` from the refusal (`rule`, not
  `reason`: fields named `reason` are never compared); a probe among the moves is followed by
  `{"event": "state", ...}`, the compared fields of the engine's `state` reply
  (`escoba.transcript.record.state_event`), and a line that ends with a probe by one more
  `legal`. These are in the case's `expect`; a probe case's `rejected` is added here;
- a perft case ends with `{"event": "perft", "depth": d, "count": n}`, the number of distinct
  play sequences of `d` plays from its last position, found by walking the engine's own
  legal moves through the protocol.

Preparing a case (its ruleset, deck orders and moves in the wire form) is separate from driving
it, so that a broken case is reported as `broken-case` before any engine is involved.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from escoba.conformance import unexpressed
from escoba.conformance.compare import format_value, same_event
from escoba.errors import EscobaError, TranscriptError
from escoba.protocol.client import Session
from escoba.protocol.messages import (
    EngineFailure,
    ErrorReply,
    EventsReply,
    Legal,
    LegalReply,
    NextHand,
    Play,
    ProtocolViolation,
    RawPlay,
    Reply,
    Start,
    State,
    StateReply,
)
from escoba.transcript.record import rejected_event, state_event


@dataclass(frozen=True)
class HandPlan:
    decks: list[list[str]]  # deck orders in card codes, top of the stock first
    line: list[Play | RawPlay]  # the moves, and the probes among them (RawPlay: must be refused)

    @property
    def moves(self) -> list[Play]:
        return [m for m in self.line if isinstance(m, Play)]


@dataclass
class Plan:
    """A case ready to send: everything checked and in wire form."""

    case: Any  # escoba.transcript.Case
    doc: dict  # the resolved ruleset sent in `start`
    required: frozenset[str]
    hands: list[HandPlan]
    expected: list[dict]
    decide_at_end: bool = False  # probe/perft: the case stops at a decision (ask `legal` there)
    probe: RawPlay | None = None
    sent: Mapping[str, Any] | None = None  # the ruleset `start` carries, when not `doc` (see Runner)
    steps: list[tuple[str, Any, str]] | None = None  # the line's requests (`line_steps`), once made
    requests: list[Any] | None = None  # the requests of `steps` (the object `send_ahead` is given)
    rules: Any = None  # the compiled rules of `doc` (default: the case's own)
    script: Any = None  # the line the reference walks (conformance/walk.py; default: the case's own)
    scenario: Any = None  # a scenario under declared rules: its notes and pins (conformance/scenario.py)

    def __post_init__(self) -> None:
        if self.rules is None:
            self.rules = self.case.rules
        self.expected = unexpressed.view(self.doc, self.expected)


def prepare(case: Any) -> Plan:
    """Check a loaded case and turn it into requests; TranscriptError when the case is broken."""
    try:
        doc = case.document
        hands = [
            HandPlan(
                decks=[list(order) for order in spec.decks],
                line=[Play(m["card"], tuple(m["take"])) if kind == "move" else RawPlay(m) for kind, m in case.wire_line(h)],
            )
            for h, spec in enumerate(case.hands)
        ]
        expected = [dict(e) for e in case.expect]
        decide_at_end = case.kind != "game" and bool(expected) and expected[-1]["event"] == "legal"
        probe = None
        if case.kind == "probe":
            probe = RawPlay(case.probe_wire())
            expected.append(rejected_event(probe.move, "illegal_move", case.probe.reason))
        elif case.kind == "perft":
            expected.append({"event": "perft", "depth": case.perft.depth, "count": case.perft.count})
        elif case.kind != "game":
            raise TranscriptError(f"{case.id}: unknown case kind {case.kind!r}")
        required = case.required_features()
    except TranscriptError:
        raise
    except (EscobaError, KeyError, TypeError, ValueError, AttributeError) as problem:
        raise TranscriptError(f"{case.id}: {problem}") from problem
    return Plan(case, doc, required, hands, expected, decide_at_end, probe)


def rejected_play(request: Play, reply: ErrorReply) -> list[dict]:
    """A refused move as the `rejected` event it stands for."""
    return [rejected_event({"card": request.card, "take": list(request.take)}, reply.kind, reply.reason)]


@dataclass
class Trace:
    """What the engine said. `refusal` is an unexpected `ok: false` that stopped the case."""

    events: list[dict] = field(default_factory=list)
    chunks: list[tuple[int, int]] = field(default_factory=list)  # (start, end) of each reply's events
    refusal: ErrorReply | None = None
    refused: str = ""  # the request refused, in words
    requests: int = 0
    diverged: bool = False  # some event differs from the expected one
    drain_failure: EngineFailure | None = None  # the engine died after the case had its answer


class _Stop(Exception):
    pass


class Driver:
    """Runs one prepared case on one session. EngineFailure propagates with `.trace` set."""

    def __init__(
        self, session: Session, plan: Plan, *, stop_at_divergence: bool = False, measures: bool = True,
        on_sent: Callable[[], object] | None = None,
    ):  # fmt: skip
        self.session, self.plan = session, plan
        self.on_sent = on_sent  # called once the case's line is written (the runner sends the next case ahead)
        self.stop_at_divergence, self.measures = stop_at_divergence, measures
        self.trace = Trace()
        self._order: dict[str, int] | None = None  # card code -> deck position, for `state`

    def run(self) -> Trace:
        try:
            self._replay()
            if self.plan.case.kind == "perft":
                self._perft()
        except _Stop:
            pass
        except EngineFailure as failure:
            failure.trace = self.trace  # type: ignore[attr-defined]
            raise
        finally:
            # Replies the case no longer needs (after a divergence) are read and dropped, so
            # the next case starts in step; an engine that dies meanwhile is restarted.
            self.trace.drain_failure = self.session.drain()
        return self.trace

    # ------------------------------------------------------------------ plumbing
    def _check(self, reply: Reply, what: str) -> Reply:
        self.trace.requests += 1
        if isinstance(reply, ErrorReply):
            self.trace.refusal, self.trace.refused = reply, what
            raise _Stop
        return reply

    def _record(self, events: Sequence[dict]) -> None:
        """One reply's events (a chunk). After a divergence the case goes on, unless asked to
        stop there: the replies were all requested already, and the rest is compared too."""
        trace, expected = self.trace, self.plan.expected
        events = unexpressed.view(self.plan.doc, events)
        trace.chunks.append((len(trace.events), len(trace.events) + len(events)))
        for event in events:
            i = len(trace.events)
            trace.events.append(event)
            if i >= len(expected) or not same_event(expected[i], event, self.measures):
                trace.diverged = True
        if trace.diverged and self.stop_at_divergence:
            raise _Stop

    def _start_request(self) -> Start:
        return line_steps(self.plan)[1][0]

    def _order_of(self) -> dict[str, int]:
        if self._order is None:
            self._order = {c: i for i, c in enumerate(self.plan.rules.deck.code)}
        return self._order

    def _chunk(self, kind: str, request: Any, reply: Reply, what: str) -> list[dict]:
        if kind == "probe":  # an illegal move must be refused with the right reason
            self.trace.requests += 1
        elif isinstance(request, Play) and isinstance(reply, ErrorReply) and reply.kind == "illegal_move":
            # A move of the case refused as illegal: the engine's rules said no where these
            # say yes (a divergence, a `rejected` event, as for a probe), not a failure to run.
            self.trace.requests += 1
            return rejected_play(request, reply)
        else:
            self._check(reply, what)
        return reply_chunk(kind, request, reply, getattr(self.plan.case, "legal", "moves"), self._order_of())

    # ------------------------------------------------------------------ the case's line
    def _replay(self) -> None:
        """Send the whole line at once (start, then `legal` and `play` for each move, ...) and
        record the replies in order; see SubprocessSession.exchange."""
        steps, requests = line_steps(self.plan)
        replies = self.session.exchange(requests)
        if self.on_sent is not None:
            self.on_sent()
        for (kind, request, what), reply in zip(steps, replies):
            self._record(self._chunk(kind, request, reply, what))

    # ------------------------------------------------------------------ perft
    def _perft(self) -> None:
        depth = int(self.plan.expected[-1].get("depth", self.plan.case.perft.depth))  # a scenario may count less deep
        line = [m for hand in self.plan.hands for m in hand.moves]
        self._record([{"event": "perft", "depth": depth, "count": self._count(line, depth)}])

    def _count(self, line: list[Play], depth: int) -> int:
        return perft_on_engine(self.session, self._start_request(), line, depth, self._check, getattr(self.plan.case, "legal", "moves"))


def perft_on_engine(session: Session, start: Start, line: list[Play], depth: int, check: Callable[[Reply, str], Reply],
                    legal: str = "moves") -> int:  # fmt: skip
    """Distinct sequences of `depth` more plays from the position after `line` on the engine;
    a sequence that ends the hand sooner counts once (as in `escoba.transcript.record.perft`).

    The protocol has no undo, so each position is reached by replaying from the deal
    (start, the plays, legal); the last level counts the legal moves without playing them
    (perft's bulk count). The positions are asked level by level, `_PERFT_BATCH` replays to
    an exchange: the engine works on one replay while the runner reads the replies to the
    last, where asking one position at a time left each side waiting for the other.
    `check(reply, what)` raises on a refusal.
    """
    if depth == 0:
        return 1
    count, level = 0, [line]
    for left in range(depth, 0, -1):
        deeper: list[list[Play]] = []
        for i in range(0, len(level), _PERFT_BATCH):
            batch = level[i : i + _PERFT_BATCH]
            for path, moves in zip(batch, _legal_after(session, start, batch, check)):
                if not moves:  # the hand is over
                    count += 1
                elif left == 1:
                    count += len(moves)
                else:
                    deeper += [[*path, Play(m["card"], tuple(m["take"]))] for m in moves]
        level = deeper
    return count


def _legal_after(session: Session, start: Start, paths: list[list[Play]], check: Callable[[Reply, str], Reply]) -> list[list[dict]]:
    """The engine's legal moves after each line of plays, all replayed in one exchange."""
    replies = iter(session.exchange([request for path in paths for request in (start, *path, Legal())]))
    moves = []
    for path in paths:
        check(next(replies), "start (perft)")
        for move in path:
            check(next(replies), f"play {_text(move)} (perft line {' '.join(map(_text, path))})")
        reply = check(next(replies), "legal (perft)")
        if not isinstance(reply, LegalReply):
            raise ProtocolViolation("legal: no moves in the reply")
        moves.append(list(reply.moves))
    return moves


def reply_chunk(kind: str, request: Any, reply: Reply, legal: str, order: Mapping[str, int]) -> list[dict]:
    """The events a reply stands for in the observed stream (docs/protocol.md, "Events"): a
    play's events, a `legal` event, a `state` event, a probe's `rejected` event. A refusal of
    anything but a probe is the caller's to judge first."""
    if kind == "probe":
        if isinstance(reply, ErrorReply):
            return [rejected_event(request.move, reply.kind, reply.reason)]
        return list(_events(reply))
    if kind == "legal":
        if not isinstance(reply, LegalReply):
            raise ProtocolViolation("legal: no moves in the reply")
        if legal == "count":  # the case keeps only how many
            return [{"event": "legal", "seat": reply.seat, "count": len(reply.moves)}]
        return [{"event": "legal", "seat": reply.seat, "moves": list(reply.moves)}]
    if kind == "state":
        if not isinstance(reply, StateReply):
            raise ProtocolViolation("state: no state in the reply")
        return [state_event(reply.state, order)]
    return list(_events(reply))


def _events(reply: Reply) -> tuple[dict, ...]:
    if not isinstance(reply, EventsReply):  # parse_reply guarantees it; a mutant might not
        raise ProtocolViolation("no events in the reply")
    return reply.events


# Replays per exchange in a perft walk: enough that neither side waits for the other, few
# enough that the requests of one exchange stay small (each `start` carries the ruleset).
_PERFT_BATCH = 32


def line_steps(plan: Plan) -> tuple[list[tuple[str, Any, str]], list[Any]]:
    """A case's line as requests (made once per plan): each with what its reply is
    (`events`, `legal`, `state`, `probe`) and the request in words."""
    if plan.steps is not None and plan.requests is not None:
        return plan.steps, plan.requests
    start = Start(plan.doc if plan.sent is None else plan.sent, int(plan.case.players), int(plan.case.dealer), plan.hands[0].decks, plan.case.target)
    steps: list[tuple[str, Any, str]] = [("events", start, "start")]
    for k, hand in enumerate(plan.hands):
        if k:
            steps.append(("events", NextHand(hand.decks), f"next_hand (hand {k + 1})"))
        n = 0  # plays so far
        for entry in hand.line:
            steps.append(("legal", Legal(), f"legal (hand {k + 1}, before play {n + 1})"))
            if isinstance(entry, RawPlay):  # a probe: refused, and nothing changes
                where = f"(hand {k + 1}, after play {n})"
                steps.append(("probe", entry, f"the probe {format_value(entry.move)} {where}"))
                steps.append(("state", State(), f"state after the probe {where}"))
            else:
                n += 1
                steps.append(("events", entry, f"play {_text(entry)} (hand {k + 1}, play {n})"))
        ends_with_probe = bool(hand.line) and isinstance(hand.line[-1], RawPlay)
        if ends_with_probe or (k + 1 == len(plan.hands) and plan.decide_at_end):
            steps.append(("legal", Legal(), f"legal (hand {k + 1}, at the end of the line)"))
    if plan.probe is not None:
        steps.append(("probe", plan.probe, "the probe"))
    plan.steps, plan.requests = steps, [request for _, request, _ in steps]
    return plan.steps, plan.requests


def _text(move: Play) -> str:
    return move.card + (" x " + " ".join(move.take) if move.take else "")


def run_case(
    session: Session, plan: Plan, *, stop_at_divergence: bool = False, measures: bool = True,
    on_sent: Callable[[], object] | None = None,
) -> Trace:  # fmt: skip
    return Driver(session, plan, stop_at_divergence=stop_at_divergence, measures=measures, on_sent=on_sent).run()
