"""The engine protocol's messages: frozen requests, parsed replies, and what can go wrong.

The protocol is JSON lines (schemas/protocol.schema.json is normative; docs/protocol.md explains
it). Requests are built here and only here, so a request the runner sends always has the shape
the schema states. Replies are checked by hand against what the request asked for: the checks
are the schema's, written out so that a long run does not pay for a JSON Schema validation per
line (tests check that both agree). The contents of events are *not* judged here: a wrong event
is a divergence for the comparison to explain, not a broken protocol.

Lifecycle errors (after Bowtie's exceptions): each thing an engine process can do wrong is one
class, and each class maps to one outcome of a case (`crash`, `timeout`, or a failure of class
`protocol`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import Any, ClassVar

from escoba.errors import MESSAGE_LIMIT, ProtocolError
from escoba.escape import terminal
from escoba.game.moves import REASONS
from escoba.inputs import strict_json
from escoba.memo import ByIdentity

PROTOCOL_VERSION = 1
MAX_LINE = 1 << 20  # 1 MiB: the biggest honest reply (a `state` or a long event list) is ~10 KiB

#: why a move is illegal (`error.reason` of an `illegal_move` error)
#: `error.kind` values an engine may answer with
ERROR_KINDS = (
    "bad_json",  # the request line is not a JSON object
    "bad_request",  # a JSON object, but not a request of this protocol (missing or wrong fields)
    "unknown_command",
    "bad_state",  # a request that makes no sense now (`legal` before `start`, ...)
    "illegal_move",
    "unsupported",  # the engine cannot play this ruleset or table (counts as `unsupported`)
    "internal",  # the engine's own bug, reported instead of crashing
)


# ---------------------------------------------------------------------------------- requests
_COMPACT = json.JSONEncoder(separators=(",", ":")).encode  # made once: `json.dumps(..., separators=)` makes one per call
@dataclass(frozen=True)
class Request:
    cmd: ClassVar[str]

    def to_json(self, id: int) -> dict[str, Any]:
        body = {k: v for k, v in self.__dict__.items()}
        return {"id": id, "cmd": self.cmd, **body}

    def encode(self, id: int) -> tuple[dict[str, Any], bytes]:
        """The message and its line, newline included."""
        message = self.to_json(id)
        return message, _COMPACT(message).encode("utf-8") + b"\n"


@dataclass(frozen=True)
class Hello(Request):
    cmd: ClassVar[str] = "hello"
    protocol: int = PROTOCOL_VERSION


@dataclass(frozen=True)
class Start(Request):
    """Deal the first hand. `decks` are deck orders (top first), several only for redeals."""

    cmd: ClassVar[str] = "start"
    ruleset: Mapping[str, Any]
    players: int
    dealer: int
    decks: Sequence[Sequence[str]]
    target: int | None = None

    def encode(self, id: int) -> tuple[dict[str, Any], bytes]:
        # The ruleset is most of the line and the same for every start of a run: serialise it
        # once (perft cases replay from `start` hundreds of times).
        message = {"id": id, "cmd": "start"}
        rest = {"players": self.players, "dealer": self.dealer, "decks": self.decks, "target": self.target}
        line = (
            _COMPACT(message)[:-1]
            + ',"ruleset":'
            + ruleset_json(self.ruleset)
            + ","
            + _COMPACT(rest)[1:]
        )
        return message, line.encode("utf-8") + b"\n"

    def to_json(self, id: int) -> dict[str, Any]:
        return {"id": id, "cmd": "start", "ruleset": self.ruleset, "players": self.players,
                "dealer": self.dealer, "decks": self.decks, "target": self.target}  # fmt: skip


_RULESET_JSON: ByIdentity[str] = ByIdentity(256)


def ruleset_json(doc: Mapping[str, Any]) -> str:
    """`json.dumps(doc)`, remembered per document object."""
    return _RULESET_JSON.get(doc, _compact_json)


def _compact_json(doc: Mapping[str, Any]) -> str:
    return json.dumps(doc, separators=(",", ":"))


@dataclass(frozen=True)
class Legal(Request):
    cmd: ClassVar[str] = "legal"


@dataclass(frozen=True)
class Play(Request):
    cmd: ClassVar[str] = "play"
    card: str
    take: Sequence[str] = ()

    def to_json(self, id: int) -> dict[str, Any]:
        return {"id": id, "cmd": "play", "move": {"card": self.card, "take": list(self.take)}}


@dataclass(frozen=True)
class RawPlay(Request):
    """A `play` whose move is sent exactly as given: probes send malformed moves on purpose."""

    cmd: ClassVar[str] = "play"
    move: Any

    def to_json(self, id: int) -> dict[str, Any]:
        return {"id": id, "cmd": "play", "move": self.move}


@dataclass(frozen=True)
class State(Request):
    cmd: ClassVar[str] = "state"


@dataclass(frozen=True)
class Score(Request):
    cmd: ClassVar[str] = "score"


@dataclass(frozen=True)
class NextHand(Request):
    cmd: ClassVar[str] = "next_hand"
    decks: Sequence[Sequence[str]]


@dataclass(frozen=True)
class Quit(Request):
    cmd: ClassVar[str] = "quit"


COMMANDS = {c.cmd: c for c in (Hello, Start, Legal, Play, State, Score, NextHand, Quit)}


# ---------------------------------------------------------------------------------- replies
@dataclass(frozen=True)
class Reply:
    """Base of every successful reply."""


@dataclass(frozen=True)
class HelloReply(Reply):
    protocol: int
    name: str
    version: str
    features: frozenset[str]
    rules: str | None = None  # the ruleset the engine plays, when it plays one (docs/protocol.md)


@dataclass(frozen=True)
class EventsReply(Reply):
    events: tuple[dict, ...]


@dataclass(frozen=True)
class LegalReply(Reply):
    seat: int | None
    moves: tuple[dict, ...]


@dataclass(frozen=True)
class StateReply(Reply):
    state: dict


@dataclass(frozen=True)
class ScoreReply(Reply):
    hand: dict
    match: dict | None


@dataclass(frozen=True)
class QuitReply(Reply):
    pass


@dataclass(frozen=True)
class ErrorReply(Reply):
    """`ok: false`: the engine refused the request, in band. Not a protocol failure."""

    kind: str
    message: str
    reason: str | None = None

    def __str__(self) -> str:
        # kind and reason are words of the protocol (checked); the message is the engine's own
        # text, quoted escaped and cut short wherever it is shown
        why = f" ({self.reason})" if self.reason else ""
        return f"{self.kind}{why}: {terminal(self.message, MESSAGE_LIMIT)}"


# ---------------------------------------------------------------------------------- lifecycle errors
class EngineFailure(ProtocolError):
    """The engine process misbehaved; the session is unusable and must be restarted."""

    outcome: ClassVar[str] = "protocol"  # the case outcome (crash, timeout) or divergence class
    what: ClassVar[str] = "protocol violation"

    def __init__(self, message: str, *, request: dict | None = None, stderr: str = ""):
        self.message, self.request, self.stderr = message, request, stderr
        super().__init__(message)


class EngineCrashed(EngineFailure):
    """The process exited, or closed its stdout, before answering."""

    outcome = "crash"
    what = "crash"

    def __init__(self, message: str, *, returncode: int | None = None, **kw: Any):
        self.returncode = returncode
        super().__init__(message, **kw)


class EngineTimedOut(EngineFailure):
    """No complete reply line within the timeout."""

    outcome = "timeout"
    what = "timeout"


class GarbageReply(EngineFailure):
    """A reply line that is not a JSON object (binary, text, a JSON list...)."""

    what = "garbage"


class OversizedReply(GarbageReply):
    """A reply line longer than MAX_LINE bytes."""

    what = "oversized reply"


class WrongId(EngineFailure):
    """A reply whose `id` is not the request's."""

    what = "wrong id"


class ProtocolViolation(EngineFailure):
    """A JSON reply that does not have the shape the request calls for."""

    what = "protocol violation"


# ---------------------------------------------------------------------------------- parsing
MAX_DEPTH = 32  # a reply nests four levels (state → hands → a hand → a card); 32 is generous


def decode_line(line: bytes, request: dict | None = None) -> dict:
    """One reply line → a JSON object, or GarbageReply.

    Strict JSON (RFC 8259): `NaN` and `Infinity`, which Python would accept, are garbage, so a
    report never carries them. Nesting is capped, so nothing downstream recurses too deep.
    """
    try:
        value = strict_json(line)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError, ValueError) as error:
        raise GarbageReply(f"reply is not JSON ({error}): {_excerpt(line)}", request=request) from None
    if not isinstance(value, dict):
        raise GarbageReply(f"reply is not a JSON object: {_excerpt(line)}", request=request)
    if line.count(b"[") + line.count(b"{") > MAX_DEPTH and _too_deep(line, value):
        raise GarbageReply(f"reply nests deeper than {MAX_DEPTH} levels: {_excerpt(line)}", request=request)
    return value


# Depth is measured on the text first, in C (a walk over the decoded value cost a fifth of a
# conformance run: legal replies of the stress cases carry thousands of moves): strings are
# dropped (so that brackets in them do not count), the rest kept as brackets of one kind (the
# line is valid JSON by then, so they pair up), and the innermost pairs removed, one level per
# pass. A value other than an object or a list counts one level below its container, as a card
# counts in a hand: so containers nested exactly MAX_DEPTH deep are settled by the walk.
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_SQUARE = bytes.maketrans(b"{}", b"[]")
_NOT_BRACKET = bytes(set(range(256)) - set(b"[]{}"))
_NOT_BRACKET_OR_QUOTE = bytes(set(range(256)) - set(b'[]{}"'))


def _too_deep(line: bytes, value: Any) -> bool:
    """Does `value`, decoded from `line`, nest deeper than MAX_DEPTH, a value below its container?"""
    if b"\\" in line:  # an escaped quote may hide in a string: the regular expression finds them
        brackets = _STRING.sub(b"", line).translate(_SQUARE, _NOT_BRACKET)
    else:
        # Every quote is a string's. Kept with the brackets, most strings are `""` (card
        # names); dropping those pairs (or a closing quote and the next opening one: nothing
        # but string stood between them) leaves quotes that still open and close strings.
        brackets = line.translate(_SQUARE, _NOT_BRACKET_OR_QUOTE).replace(b'""', b"")
        if b'"' in brackets:
            brackets = b"".join(brackets.split(b'"')[::2])
    depth = 0
    while brackets and depth <= MAX_DEPTH:
        brackets = brackets.replace(b"[]", b"")  # one level: bytes.replace does not rescan what it joined
        depth += 1
    if depth != MAX_DEPTH:
        return depth > MAX_DEPTH
    return _depth(value) > MAX_DEPTH



def _depth(value: Any) -> int:
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > MAX_DEPTH:
            break
        if isinstance(node, dict):
            stack.extend((v, depth + 1) for v in node.values())
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node)
    return deepest


def parse_reply(request: dict, reply: dict) -> Reply:
    """Check a decoded reply against the request it answers; return the typed reply.

    Raises WrongId or ProtocolViolation; an `ok: false` reply is returned as ErrorReply.
    """
    echoed = reply.get("id", _MISSING)
    # `True == 1` and `1.0 == 1` in Python, but not on the wire: the id must be the same JSON value.
    if echoed != request["id"] or type(echoed) is not type(request["id"]):
        raise WrongId(f"reply id {_shown(echoed)} does not echo request id {request['id']!r}", request=request)
    ok = reply.get("ok")
    if ok is False:
        error = reply.get("error")
        if not isinstance(error, dict):
            raise _violation(request, "`ok: false` without an `error` object")
        _closed(request, reply, ("id", "ok", "error"), "reply")
        _closed(request, error, ("kind", "message", "reason"), "error")
        kind, message, reason = error.get("kind"), error.get("message", ""), error.get("reason")
        if kind not in ERROR_KINDS:
            raise _violation(request, f"unknown error.kind {kind!r} (one of {', '.join(ERROR_KINDS)})")
        if not isinstance(message, str):
            raise _violation(request, "error.message is not a string")
        if kind == "illegal_move" and reason not in REASONS:
            raise _violation(request, f"illegal_move with error.reason {reason!r} (one of {', '.join(REASONS)})")
        if reason is not None and not isinstance(reason, str):
            raise _violation(request, "error.reason is not a string")
        return ErrorReply(kind, message, reason)
    if ok is not True:
        raise _violation(request, "`ok` must be true or false")
    _closed(request, reply, _FIELDS[request["cmd"]], "reply")
    return _PARSERS[request["cmd"]](request, reply)


_MISSING = object()
# The keys of each `ok: true` reply (schemas/protocol.schema.json: no others are allowed).
_FIELDS = {
    "hello": ("id", "ok", "protocol", "engine", "features", "rules"),
    "start": ("id", "ok", "events"),
    "play": ("id", "ok", "events"),
    "next_hand": ("id", "ok", "events"),
    "legal": ("id", "ok", "seat", "moves"),
    "state": ("id", "ok", "state"),
    "score": ("id", "ok", "hand", "match"),
    "quit": ("id", "ok"),
}


def _closed(request: dict, obj: dict, allowed: Sequence[str], what: str) -> None:
    if len(obj) <= len(allowed) and obj.keys() <= set(allowed):
        return  # every reply of a run comes here: the usual answer, found by a set operation
    extra = [k for k in obj if k not in allowed]
    if extra:
        shown = ", ".join(_shown(k) for k in extra[:3]) + (f" and {len(extra) - 3} more" if len(extra) > 3 else "")
        raise _violation(request, f"{what} has unknown field(s) {shown} (allowed: {', '.join(allowed)})")


def _shown(value: Any, limit: int = 40) -> str:
    """A value from an engine, quoted for a message: short, one line, printable."""
    if value is _MISSING:
        return "(none)"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _hello(request: dict, reply: dict) -> Reply:
    protocol, engine, features = reply.get("protocol"), reply.get("engine"), reply.get("features")
    if protocol != PROTOCOL_VERSION:
        raise _violation(request, f"engine speaks protocol {protocol!r}, the runner speaks {PROTOCOL_VERSION}")
    if not isinstance(engine, dict) or not isinstance(engine.get("name"), str) or not engine["name"]:
        raise _violation(request, "hello reply needs engine.name")
    if not isinstance(engine.get("version"), str):
        raise _violation(request, "hello reply needs engine.version, a string")
    if not isinstance(features, list) or not all(isinstance(f, str) for f in features):
        raise _violation(request, "hello reply needs `features`, a list of strings")
    if len(set(features)) != len(features):
        raise _violation(request, "hello reply lists a feature twice")
    rules = reply.get("rules")
    if rules is not None and (not isinstance(rules, str) or not rules.strip()):
        raise _violation(request, "hello reply's `rules` names a ruleset: a bundled id or a ruleset file, a string")
    return HelloReply(protocol, engine["name"], engine["version"], frozenset(features), rules)


def _events(request: dict, reply: dict) -> Reply:
    events = reply.get("events")
    if not isinstance(events, list):
        raise _violation(request, "reply needs `events`, a list")
    for i, event in enumerate(events):
        if not isinstance(event, dict) or not isinstance(event.get("event"), str):
            raise _violation(request, f"events[{i}] is not an object with a string `event`")
    return EventsReply(tuple(events))


def _legal(request: dict, reply: dict) -> Reply:
    seat, moves = reply.get("seat", _MISSING), reply.get("moves")
    if seat is _MISSING or not (seat is None or (isinstance(seat, int) and not isinstance(seat, bool) and seat >= 0)):
        raise _violation(request, "legal reply needs `seat`, a seat number or null")
    if not isinstance(moves, list):
        raise _violation(request, "legal reply needs `moves`, a list")
    for i, move in enumerate(moves):
        if not _is_move(move):
            raise _violation(request, f"moves[{i}] is not a move {{card, take}}")
    return LegalReply(seat, tuple(moves))


def _state(request: dict, reply: dict) -> Reply:
    if not isinstance(reply.get("state"), dict):
        raise _violation(request, "state reply needs `state`, an object")
    return StateReply(reply["state"])


def _score(request: dict, reply: dict) -> Reply:
    hand, match = reply.get("hand"), reply.get("match", _MISSING)
    if not isinstance(hand, dict):
        raise _violation(request, "score reply needs `hand`, an object")
    if match is _MISSING or not (match is None or isinstance(match, dict)):
        raise _violation(request, "score reply needs `match`, an object or null")
    return ScoreReply(hand, match)


def _quit(request: dict, reply: dict) -> Reply:
    return QuitReply()


_PARSERS = {
    "hello": _hello,
    "start": _events,
    "play": _events,
    "next_hand": _events,
    "legal": _legal,
    "state": _state,
    "score": _score,
    "quit": _quit,
}


def _is_move(move: Any) -> bool:
    if not isinstance(move, dict):
        return False
    take = move.get("take")
    # map, not a generator: legal replies of the stress cases list thousands of moves
    return isinstance(move.get("card"), str) and isinstance(take, list) and all(map(isinstance, take, repeat(str)))


def _violation(request: dict, message: str) -> ProtocolViolation:
    return ProtocolViolation(f"{request['cmd']}: {message}", request=request)


def _excerpt(line: bytes, limit: int = 80) -> str:
    text = repr(line[:limit])
    return text + (f"... ({len(line)} bytes)" if len(line) > limit else "")


# ---------------------------------------------------------------------------------- replies built by engines
def ok(id: Any, **body: Any) -> dict:
    return {"id": id, "ok": True, **body}


def error(id: Any, kind: str, message: str, reason: str | None = None) -> dict:
    err: dict[str, Any] = {"kind": kind, "message": message}
    if reason is not None:
        err["reason"] = reason
    return {"id": id, "ok": False, "error": err}

