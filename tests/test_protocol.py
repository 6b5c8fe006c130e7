"""The engine protocol: the reference server's replies, their schema, the reply checks, and the
subprocess session's handling of a real `escoba engine`."""

from __future__ import annotations

import io
import json
import os
import random
import sys
from functools import cache

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from escoba.conformance.compare import same
from escoba.data import schemas_dir
from escoba.inputs import strict_json
from escoba.protocol.client import InProcessSession, SubprocessSession
from escoba.protocol.features import reference_features
from escoba.protocol.messages import (
    MAX_DEPTH,
    EngineCrashed,
    ErrorReply,
    EventsReply,
    GarbageReply,
    Hello,
    HelloReply,
    Legal,
    LegalReply,
    NextHand,
    Play,
    ProtocolViolation,
    Quit,
    RawPlay,
    Score,
    ScoreReply,
    Start,
    State,
    StateReply,
    WrongId,
    decode_line,
    parse_reply,
)
from escoba.protocol.server import ReferenceEngine, serve
from escoba.rules import load_resolved
from escoba.transcript.case import load_cases


@cache
def schema() -> dict:
    return json.loads((schemas_dir() / "protocol.schema.json").read_text(encoding="utf-8"))


@cache
def bundled_cases() -> list:
    return load_cases(replay=False)


@cache
def validator(definition: str) -> Draft202012Validator:
    return Draft202012Validator({"$defs": schema()["$defs"], "$ref": f"#/$defs/{definition}"})


def assert_valid(definition: str, message: dict) -> None:
    errors = sorted(validator(definition).iter_errors(message), key=lambda e: list(e.path))
    assert not errors, f"{definition}: {errors[0].message} at {list(errors[0].absolute_path)}"


class Recorder:
    """The reference engine with every request and reply kept, to check them against the schema."""

    def __init__(self) -> None:
        self.engine = ReferenceEngine()
        self.log: list[tuple[dict, dict]] = []
        self.next_id = 0

    def __call__(self, request) -> dict:  # type: ignore[no-untyped-def]
        self.next_id += 1
        message = request.to_json(self.next_id)
        reply = self.engine.handle(json.loads(json.dumps(message)))
        self.log.append((message, reply))
        return reply


def deck(ruleset: str = "fr") -> list[str]:
    from escoba import load_ruleset

    return list(load_ruleset(ruleset).deck.code)


def test_schema_is_a_valid_2020_12_schema():
    """schemas/protocol.schema.json is itself a valid JSON Schema."""
    Draft202012Validator.check_schema(schema())


def test_every_request_and_reply_of_a_match_fits_the_schema():
    """A whole match of requests and replies (every command) validates against the protocol schema."""
    engine = Recorder()
    doc = load_resolved("da").doc
    engine(Hello())
    engine(Start(doc, 2, 0, [deck("da")], 3))
    for _ in range(50):
        moves = engine(Legal())["moves"]
        if not moves:
            if engine(Score())["match"]["over"]:
                break
            engine(NextHand([list(reversed(deck("da")))]))
            continue
        engine(Play(moves[-1]["card"], tuple(moves[-1]["take"])))
        engine(State())
    engine(RawPlay({"card": "7d", "take": "3c"}))
    engine(Quit())
    assert any(m["cmd"] == "next_hand" for m, _ in engine.log)
    for message, reply in engine.log:
        if message["cmd"] != "play" or isinstance(message["move"].get("take"), list):
            assert_valid(f"request.{message['cmd']}", message)
        definition = "reply.error" if not reply["ok"] else {
            "start": "reply.events", "play": "reply.events", "next_hand": "reply.events",
        }.get(message["cmd"], f"reply.{message['cmd']}")  # fmt: skip
        assert_valid(definition, reply)
        assert_valid("reply", reply)
        assert isinstance(parse_reply(message, reply), ErrorReply) == (not reply["ok"])


def test_every_event_of_the_bundled_cases_fits_the_event_schema():
    """Each expected event of the golden cases is a protocol event (or one of the runner's own)."""
    seen = set()
    for case in bundled_cases():
        for event in case.expect:
            seen.add(event["event"])
            # The runner's own events (its `legal`, and a probe's `rejected` and `state`) are the
            # transcript schema's, checked with each case; the rest against one branch of the
            # `event` oneOf: ten times faster.
            if event["event"] not in ("legal", "rejected", "state"):
                errors = list(validator(f"event.{event['event']}").iter_errors(event))
                assert not errors, f"{case.id}: {event}: {errors[0].message}"
    assert {"hand_start", "deal", "play", "score", "hand_end"} <= seen


def test_hello_declares_every_feature():
    """The reference engine declares the whole feature vocabulary and protocol 1."""
    reply = ReferenceEngine().handle({"id": 1, "cmd": "hello", "protocol": 1})
    assert reply["ok"] and reply["protocol"] == 1 and reply["features"] == list(reference_features())


@pytest.mark.parametrize(
    "request_, kind",
    [
        ({"id": 1, "cmd": "dance"}, "unknown_command"),
        ({"id": 1}, "bad_request"),
        ({"id": 1, "cmd": "legal"}, "bad_state"),
        ({"id": 1, "cmd": "play", "move": {"card": "7d", "take": []}}, "bad_state"),
        ({"id": 1, "cmd": "next_hand", "decks": []}, "bad_state"),
        ({"id": 1, "cmd": "hello", "protocol": 2}, "bad_request"),
        ({"id": 1, "cmd": "start", "ruleset": "fr", "players": 2, "dealer": 0, "decks": [], "target": None}, "bad_request"),
    ],
)
def test_requests_that_make_no_sense_are_refused_in_band(request_, kind):
    """Unknown commands, missing fields and out-of-order requests get `ok: false` with a kind."""
    reply = ReferenceEngine().handle(request_)
    assert reply == {"id": 1, "ok": False, "error": {"kind": kind, "message": reply["error"]["message"]}}


def test_a_deck_that_is_not_the_rulesets_deck_is_refused():
    """`start` with a deck order missing a card is a bad request naming the problem."""
    engine = ReferenceEngine()
    reply = engine.handle({"id": 1, "cmd": "start", "ruleset": load_resolved("fr").doc, "players": 2,
                           "dealer": 0, "decks": [deck()[:-1]], "target": None})  # fmt: skip
    assert reply["error"]["kind"] == "bad_request" and "missing" in reply["error"]["message"]


def started(ruleset: str = "fr", order: list[str] | None = None) -> ReferenceEngine:
    engine = ReferenceEngine()
    reply = engine.handle({"id": 0, "cmd": "start", "ruleset": load_resolved(ruleset).doc, "players": 2,
                           "dealer": 0, "decks": [order or deck(ruleset)], "target": None})  # fmt: skip
    assert reply["ok"], reply
    return engine


def test_illegal_moves_are_refused_with_their_reason():
    """Each kind of illegal move is refused with `illegal_move` and the contract's reason."""
    order = deck("de")
    random.Random(2).shuffle(order)  # a deal with a capture on offer
    engine = started("de", order)  # compulsory capture at the hand level
    hand = engine.hand
    code = hand.rules.deck.code
    mine = [code[c] for c in hand.hands[hand.to_play]]
    table = [code[c] for c in hand.table]
    other = next(c for c in code if c not in mine and c not in table)

    def reason(move) -> str | None:  # type: ignore[no-untyped-def]
        reply = engine.handle({"id": 9, "cmd": "play", "move": move})
        assert not reply["ok"] and reply["error"]["kind"] == "illegal_move", reply
        return reply["error"]["reason"]

    assert reason({"card": other, "take": []}) == "not_in_hand"
    assert reason({"card": mine[0], "take": [other]}) == "not_on_table"
    assert reason({"card": "Zz", "take": []}) == "malformed"
    assert reason({"card": mine[0], "take": "3c"}) == "malformed"
    assert reason({"card": mine[0], "take": [table[0], table[0]]}) == "malformed"
    assert reason([mine[0]]) == "malformed"
    value = hand.rules.deck.value
    wrong = [t for t in table if value[code.index(t)] + value[code.index(mine[0])] != 15]
    assert reason({"card": mine[0], "take": [wrong[0]]}) == "wrong_sum"
    capturing = [m for m in engine.legal_json(hand) if m["take"]]
    assert capturing, "this deal must offer a capture"
    placing = next(c for c in mine)
    assert reason({"card": placing, "take": []}) == "compulsory"


def test_serve_answers_line_by_line_and_reports_bad_json_with_a_null_id():
    """`serve` answers each line in order, bad JSON in band (id null), and stops at quit."""
    stdin = io.BytesIO(
        b'{"id":1,"cmd":"hello","protocol":1}\n'
        b"not json\n"
        b"\n"
        b"[1, 2]\n"
        b'{"id":"x","cmd":"quit"}\n'
        b'{"id":3,"cmd":"hello","protocol":1}\n'
    )
    stdout = io.BytesIO()
    assert serve(ReferenceEngine(), stdin, stdout) == 0
    replies = [json.loads(line) for line in stdout.getvalue().splitlines()]
    assert [r["id"] for r in replies] == [1, None, None, "x"]
    assert [r["ok"] for r in replies] == [True, False, False, True]
    assert replies[1]["error"]["kind"] == replies[2]["error"]["kind"] == "bad_json"


# ------------------------------------------------------------------------------ reply checks
REQUEST = {"id": 4, "cmd": "legal"}


@pytest.mark.parametrize(
    "reply, error",
    [
        ({"id": 5, "ok": True, "seat": 0, "moves": []}, WrongId),
        ({"ok": True, "seat": 0, "moves": []}, WrongId),
        ({"id": 4, "seat": 0, "moves": []}, ProtocolViolation),
        ({"id": 4, "ok": True, "moves": []}, ProtocolViolation),
        ({"id": 4, "ok": True, "seat": 0, "moves": [{"card": "7d"}]}, ProtocolViolation),
        ({"id": 4, "ok": True, "seat": True, "moves": []}, ProtocolViolation),
        ({"id": 4, "ok": False}, ProtocolViolation),
        ({"id": 4, "ok": False, "error": {"kind": "oops", "message": ""}}, ProtocolViolation),
        ({"id": 4, "ok": False, "error": {"kind": "illegal_move", "message": ""}}, ProtocolViolation),
    ],
)
def test_replies_that_break_the_protocol_are_refused(reply, error):
    """A wrong id, a missing field or an unknown error kind is a protocol failure, not data."""
    with pytest.raises(error):
        parse_reply(REQUEST, reply)
    assert not validator("reply.legal").is_valid(reply) or reply.get("id") != 4


@pytest.mark.parametrize(
    "line",
    [b"\xff\xfe binary", b"hello", b"[1]", b'"text"', b"", b'{"id": 4, "x": NaN}', b'{"id": 4, "x": -Infinity}',
     b'{"id": 4, "x": ' + b"[" * 40 + b"]" * 40 + b"}", b"[" * 100_000],
)  # fmt: skip
def test_lines_that_are_not_json_objects_are_garbage(line):
    """Anything but a strict JSON object of sane depth on a reply line is garbage."""
    with pytest.raises(GarbageReply):
        decode_line(line, REQUEST)


def test_good_replies_parse_into_frozen_objects():
    """Each reply kind parses into its typed, frozen object."""
    assert parse_reply(REQUEST, {"id": 4, "ok": True, "seat": None, "moves": []}) == LegalReply(None, ())
    hello = parse_reply({"id": 1, "cmd": "hello"}, {"id": 1, "ok": True, "protocol": 1, "engine": {"name": "x", "version": "1"}, "features": ["jokers"]})
    assert hello == HelloReply(1, "x", "1", frozenset({"jokers"}))
    assert isinstance(parse_reply({"id": 1, "cmd": "state"}, {"id": 1, "ok": True, "state": {}}), StateReply)
    assert isinstance(parse_reply({"id": 1, "cmd": "score"}, {"id": 1, "ok": True, "hand": {}, "match": None}), ScoreReply)
    refused = parse_reply(REQUEST, {"id": 4, "ok": False, "error": {"kind": "illegal_move", "message": "no", "reason": "compulsory"}})
    assert refused == ErrorReply("illegal_move", "no", "compulsory")
    with pytest.raises(AttributeError):
        refused.kind = "x"  # type: ignore[misc]


def test_start_lines_carry_the_whole_ruleset():
    """The pre-serialised `start` line decodes to the same message `to_json` builds."""
    doc = load_resolved("sv").doc
    start = Start(doc, 3, 1, [deck("sv")], None)
    message, line = start.encode(7)
    assert json.loads(line) == json.loads(json.dumps(start.to_json(7)))
    assert message == {"id": 7, "cmd": "start"}


# ------------------------------------------------------------------------------ sessions
def test_subprocess_session_plays_through_escoba_engine():
    """`escoba engine` in a subprocess answers a whole exchange and exits on close."""
    session = SubprocessSession([sys.executable, "-m", "escoba", "engine"], timeout=20)
    try:
        assert session.hello.name == "escoba-reference"
        events = session.request(Start(load_resolved("fr").doc, 2, 0, [deck()], None))
        assert isinstance(events, EventsReply) and events.events[0]["event"] == "hand_start"
        legal = session.request(Legal())
        assert isinstance(legal, LegalReply) and legal.seat == 1 and legal.moves
        refused = session.request(Play("Zz"))
        assert isinstance(refused, ErrorReply) and refused.reason == "malformed"
    finally:
        proc = session.proc
        session.close()
    assert proc.returncode is not None


def test_in_process_session_gives_the_same_replies():
    """The in-process session answers exactly what the subprocess one does."""
    session = InProcessSession()
    reply = session.request(Start(load_resolved("fr").doc, 2, 0, [deck()], None))
    expected = ReferenceEngine().handle(Start(load_resolved("fr").doc, 2, 0, [deck()], None).to_json(1))
    assert list(reply.events) == expected["events"]  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------------- reading fast
def _walked_depth(value) -> int:
    """Nesting as the protocol counts it, by walking the value: a value one level below its
    container (the independent pin of `messages._too_deep`, which reads the text)."""
    if isinstance(value, dict):
        return 1 + max(map(_walked_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_walked_depth, value), default=0)
    return 1


_LEAVES = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
    st.text(alphabet='[]{}"\\ab,:ñ', max_size=6),
)  # fmt: skip


@st.composite
def _nested(draw):
    """A JSON value whose deepest branch is near MAX_DEPTH, with brackets, quotes and
    backslashes inside its strings and keys."""
    depth = draw(st.integers(MAX_DEPTH - 3, MAX_DEPTH + 3))
    value = draw(_LEAVES)
    for _ in range(depth):
        siblings = draw(st.lists(_LEAVES, max_size=2))
        if draw(st.booleans()):
            value = [*siblings, value] if draw(st.booleans()) else [value, *siblings]
        else:
            keys = draw(
                st.lists(
                    st.text(alphabet='[]{}"\\k', max_size=3),
                    min_size=len(siblings) + 1,
                    max_size=len(siblings) + 1,
                    unique=True,
                )
            )
            value = dict(zip(keys, [value, *siblings]))
    return value


@given(_nested(), st.booleans(), st.booleans())
def test_depth_read_off_the_text_is_the_walked_depth(value, ascii_only, spaced):
    """A reply is refused as too deep exactly when its value nests deeper than MAX_DEPTH."""
    line = json.dumps(value, ensure_ascii=ascii_only, separators=(", ", ": ") if spaced else (",", ":")).encode()
    reply = {"id": 4, "ok": True, "seat": 0, "moves": [], "x": value}
    line = b'{"id": 4, "ok": true, "seat": 0, "moves": [], "x": ' + line + b"}"
    if _walked_depth(reply) > MAX_DEPTH:
        with pytest.raises(GarbageReply, match="deeper"):
            decode_line(line, REQUEST)
    else:
        assert decode_line(line, REQUEST) == reply


@given(
    st.recursive(
        _LEAVES,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
        max_leaves=12,
    )
)
def test_strict_json_reads_what_json_reads(value):
    """`strict_json` (one decoder made once) gives what `json.loads` gives, from text or bytes."""
    text = json.dumps(value)
    assert strict_json(text) == strict_json(text.encode()) == strict_json(text.encode("utf-16")) == json.loads(text)
    for refused in ("NaN", "[1, Infinity]", "\ufeff[1]"):
        with pytest.raises(ValueError):
            strict_json(refused)


@pytest.mark.parametrize(
    "expected, observed, agree",
    [({"a": [1, "x"]}, {"a": [1, "x"]}, True), ({"a": 1}, {"a": 1.0}, True), ({"a": [True]}, {"a": [1]}, False),
     ({"a": 0}, {"a": False}, False), ({"a": 1, "reason": "x"}, {"a": 1, "reason": "y"}, True),
     ({"a": 1, "b": 2}, {"b": 2, "a": 1}, True), ([1, 2], (1, 2), False)],
)  # fmt: skip
def test_events_agree_as_json_values(expected, observed, agree):
    """Comparing events: 1 is 1.0 but never true, key order and `reason` do not count."""
    assert same(expected, observed) is agree


def test_a_session_that_does_not_wait_reads_its_hello_first():
    """`wait=False` starts the engine and sends hello without waiting; the first exchange
    reads that hello before its own replies, and `handshake()` gives it."""
    session = SubprocessSession([sys.executable, "-m", "escoba", "engine"], wait=False)
    try:
        assert isinstance(session.request(Hello()), HelloReply)
        assert session.handshake().features == frozenset(reference_features())
    finally:
        session.close()


def test_an_engine_that_dies_before_hello_fails_the_handshake():
    """A session that did not wait reports an engine that exits before hello at `handshake()`,
    and leaves nothing running."""
    session = SubprocessSession([sys.executable, "-c", "import sys; sys.exit(3)"], wait=False)
    with pytest.raises(EngineCrashed, match="status 3"):
        session.handshake()
    assert session.proc is None  # closed: reaped, nothing left running
    with pytest.raises(ProcessLookupError):
        os.kill(session.pid, 0)
