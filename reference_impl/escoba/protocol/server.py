"""The reference engine behind the protocol: `escoba engine`, and the in-process session.

`ReferenceEngine.handle(request) -> reply` is the whole engine side of the protocol: a pure
function of the session's state that never raises, so the same object serves stdin/stdout
(`serve`) and the runner's in-process session. Every problem is answered in band with
`ok: false`. The engine compiles the resolved ruleset it receives in `start` (cached by
content: a conformance run sends the same few documents hundreds of times).

Mutant engines (tests/engines/mutants.py) subclass `ReferenceEngine` and override one hook:
`adjust_rules`, `hand_class`, `match_class`, `legal_json` or `play_events`.
"""

from __future__ import annotations

import json
import sys
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, BinaryIO

from escoba.engine.hand import Hand
from escoba.engine.match import Match
from escoba.errors import EscobaError, NotationError, one_line
from escoba.game.moves import Move
from escoba.inputs import strict_json
from escoba.notation import move_from_wire
from escoba.outputs import StdoutError
from escoba.protocol.features import reference_features
from escoba.protocol.messages import PROTOCOL_VERSION, error, ok
from escoba.rules import check_document
from escoba.rules.compile import Rules, compile_rules
from escoba.version import __version__


class Refused(Exception):
    """Raised inside a handler to answer `ok: false`."""

    def __init__(self, kind: str, message: str, reason: str | None = None):
        self.kind, self.message, self.reason = kind, message, reason
        super().__init__(message)


class _DeckQueue:
    """Deck orders for a match, fed a hand at a time by `start` and `next_hand`."""

    def __init__(self) -> None:
        self.orders: deque[list[int]] = deque()

    def __iter__(self) -> Iterator[list[int]]:
        return self

    def __next__(self) -> list[int]:
        if not self.orders:
            raise StopIteration
        return self.orders.popleft()


class ReferenceEngine:
    """One engine session: at most one game (a hand, or a match) at a time."""

    name = "escoba-reference"
    version = __version__
    features: Sequence[str] = reference_features()
    declares: str | None = None  # for an engine of fixed rules: the ruleset its hello names (docs/protocol.md)
    hand_class: type[Hand] = Hand
    match_class: type[Match] = Match

    def __init__(self) -> None:
        self._compiled: dict[str, list[tuple[Mapping[str, Any], Rules]]] = {}
        self.rules: Rules | None = None
        self.hand: Hand | None = None
        self.match: Match | None = None
        self._queue = _DeckQueue()
        self._code: dict[str, int] = {}

    # ------------------------------------------------------------------ dispatch
    def handle(self, request: Mapping[str, Any]) -> dict:
        """Answer one decoded request; never raises."""
        id = request.get("id")
        cmd = request.get("cmd")
        handler = getattr(self, f"_cmd_{cmd}", None) if isinstance(cmd, str) else None
        if handler is None:
            if not isinstance(cmd, str):
                return error(id, "bad_request", "a request needs `cmd`, a string")
            return error(id, "unknown_command", f"unknown command {cmd!r}")
        try:
            return ok(id, **handler(request))
        except Refused as refusal:
            return error(id, refusal.kind, refusal.message, refusal.reason)
        except EscobaError as problem:
            return error(id, "bad_request", str(problem))
        except Exception as bug:  # an engine bug is reported in band, the session goes on
            return error(id, "internal", f"{type(bug).__name__}: {bug}")

    # ------------------------------------------------------------------ commands
    def _cmd_hello(self, request: Mapping[str, Any]) -> dict:
        if request.get("protocol") != PROTOCOL_VERSION:
            raise Refused("bad_request", f"this engine speaks protocol {PROTOCOL_VERSION}, not {request.get('protocol')!r}")
        reply = {
            "protocol": PROTOCOL_VERSION,
            "engine": {"name": self.name, "version": self.version, "language": "python"},
            "features": list(self.features),
        }
        if self.declares is not None:
            reply["rules"] = self.declares
        return reply

    def _cmd_start(self, request: Mapping[str, Any]) -> dict:
        doc, players, dealer = request.get("ruleset"), request.get("players"), request.get("dealer")
        target = request.get("target")
        if not isinstance(doc, dict):
            raise Refused("bad_request", "start needs `ruleset`, a resolved ruleset document")
        if not _is_int(players) or not _is_int(dealer):
            raise Refused("bad_request", "start needs `players` and `dealer`, integers")
        assert isinstance(players, int) and isinstance(dealer, int)
        if target is not None and not _is_int(target):
            raise Refused("bad_request", "`target` must be an integer or null")
        rules = self.compile(doc)
        self.rules, self.hand, self.match = rules, None, None
        self._code = {code: card for card, code in enumerate(rules.deck.code)}
        self._queue.orders.clear()
        self._queue.orders.extend(self._decks(request))
        if target is None:
            self.hand = self.hand_class(rules, players, dealer, self._queue)
        else:
            self.match = self.match_class(rules, players, dealer=dealer, target=target, decks=self._queue)
            self.hand = self.match.new_hand()
        return {"events": list(self.hand.events or ())}

    def _cmd_legal(self, request: Mapping[str, Any]) -> dict:
        hand = self._playing()
        return {"seat": hand.to_play, "moves": self.legal_json(hand)}

    def _cmd_play(self, request: Mapping[str, Any]) -> dict:
        hand = self._playing()
        move = self._move(request.get("move"))
        if move not in hand.legal_moves():
            found = hand.refusal(move)
            reason, words = found if found is not None else ("compulsory", "not a legal move here")
            raise Refused("illegal_move", words, reason)
        return {"events": self.play_events(hand, move)}

    def _cmd_state(self, request: Mapping[str, Any]) -> dict:
        return {"state": self._playing().to_json()}

    def _cmd_score(self, request: Mapping[str, Any]) -> dict:
        hand = self._playing()
        categories = [s.to_event() for s in hand.scores] if hand.scores is not None else []
        match = None
        if self.match is not None:
            match = {"totals": list(self.match.totals), "over": self.match.is_over, "winners": self.match.winners}
        return {"hand": {"points": hand.points, "categories": categories}, "match": match}

    def _cmd_next_hand(self, request: Mapping[str, Any]) -> dict:
        match, hand = self.match, self.hand
        if match is None or hand is None:
            raise Refused("bad_state", "next_hand needs a match in progress (start with a target)")
        if not hand.is_over:
            raise Refused("bad_state", "the current hand is not finished")
        if match.is_over:
            raise Refused("bad_state", "the match is over")
        self._queue.orders.clear()
        self._queue.orders.extend(self._decks(request))
        self.hand = match.new_hand()
        return {"events": list(self.hand.events or ())}

    def _cmd_quit(self, request: Mapping[str, Any]) -> dict:
        return {}

    # ------------------------------------------------------------------ hooks for mutants
    def compile(self, doc: Mapping[str, Any]) -> Rules:
        # Looked up by id, then by equality: comparing two dicts is ~10x cheaper than
        # serialising one for a hash key, and a perft case sends `start` hundreds of times.
        same_id = self._compiled.setdefault(str(doc.get("id")), [])
        for known, rules in same_id:
            if known == doc:
                return rules
        problems = check_document(doc)  # a runner may send anything: refuse it in words
        if problems:
            shown = "; ".join(f"{p.location.path}: {p.message}" for p in problems[:3])
            more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
            raise Refused("bad_request", f"the ruleset in start is not valid: {shown}{more}")
        rules = self.adjust_rules(compile_rules(doc))
        same_id.append((doc, rules))
        return rules

    def adjust_rules(self, rules: Rules) -> Rules:
        return rules

    def legal_json(self, hand: Hand) -> list[dict]:
        code = hand.rules.deck.code
        return [{"card": code[m.card], "take": [code[c] for c in m.take]} for m in hand.legal_moves()]

    def play_events(self, hand: Hand, move: Move) -> list[dict]:
        """Apply a legal move; a match adds its totals (and end) after the hand's last event."""
        events = hand.apply(move)
        if self.match is not None and hand.is_over:
            events = events + self.match.end_hand()
        return events

    # ------------------------------------------------------------------ helpers
    def _playing(self) -> Hand:
        if self.hand is None:
            raise Refused("bad_state", "no game in progress: send `start` first")
        return self.hand

    def _decks(self, request: Mapping[str, Any]) -> list[list[int]]:
        decks = request.get("decks")
        if not isinstance(decks, list) or not decks or not all(isinstance(d, list) for d in decks):
            raise Refused("bad_request", "`decks` must be a non-empty list of deck orders")
        return [[self._card(c) for c in order] for order in decks]

    def _card(self, code: Any) -> int:
        card = self._code.get(code) if isinstance(code, str) else None
        if card is None:
            raise Refused("bad_request", f"{code!r} is not a card code of this deck")
        return card

    def _move(self, move: Any) -> Move:
        assert self.rules is not None  # a move is only read once a hand has started
        try:
            return move_from_wire(move, self.rules.deck)
        except NotationError as problem:
            raise Refused("illegal_move", problem.message, "malformed") from None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


MAX_REQUEST = 16 << 20  # bytes: a `start` with a big ruleset is ~40 KiB; 16 MiB is generous


def serve(engine: ReferenceEngine, stdin: BinaryIO, stdout: BinaryIO, max_line: int = MAX_REQUEST) -> int:
    """Answer requests line by line until `quit` or end of input. Never exits on a bad line:
    one too long is refused (and skipped without being held in memory), one that is not
    strict JSON (NaN, Infinity, an integer of more digits than Python converts) is `bad_json`."""
    for line in _lines(stdin, max_line):
        if line is None:
            reply, request = error(None, "bad_json", f"request line longer than {max_line} bytes (not read)"), None
        elif not line.strip():
            continue
        else:
            try:
                request = strict_json(line)
            except (UnicodeDecodeError, ValueError, RecursionError) as problem:  # JSONDecodeError is a ValueError
                reply, request = error(None, "bad_json", f"not JSON: {one_line(str(problem))[:200]}"), None
            else:
                if isinstance(request, dict):
                    reply = engine.handle(request)
                else:
                    reply = error(None, "bad_json", "a request is a JSON object")
        try:
            stdout.write(_encode(reply) + b"\n")
            stdout.flush()
        except BrokenPipeError:
            return 0  # the runner went away: nobody is left to answer
        except OSError as problem:
            raise StdoutError(problem) from None
        if isinstance(request, dict) and request.get("cmd") == "quit" and reply["ok"]:
            break
    return 0


def _lines(stream: BinaryIO, max_line: int) -> Iterator[bytes | None]:
    """The lines of `stream`; None for a line longer than `max_line`, whose rest is skipped in
    bounded chunks."""
    while True:
        line = stream.readline(max_line + 1)
        if not line:
            return
        if len(line) > max_line and not line.endswith(b"\n"):
            while True:
                rest = stream.readline(1 << 16)
                if not rest or rest.endswith(b"\n"):
                    break
            yield None
            continue
        yield line



# One encoder for every reply: `json.dumps` with options builds a new one per call.
_ENCODE = json.JSONEncoder(separators=(",", ":"), allow_nan=False).encode


def _encode(reply: dict) -> bytes:
    """The reply line: strict JSON only (an echoed id or a score can never come out as NaN)."""
    try:
        return _ENCODE(reply).encode("ascii")
    except (ValueError, TypeError) as problem:
        id = reply.get("id")
        if not (isinstance(id, (int, str)) and not isinstance(id, float)):
            id = None
        return json.dumps(error(id, "internal", f"the reply could not be written as JSON: {problem}")).encode("ascii")


def main() -> int:
    """Serve on the process's stdin/stdout. Anything printed by mistake goes to stderr, so it
    can never corrupt the reply stream."""
    stdout = sys.stdout.buffer
    sys.stdout = sys.stderr
    return serve(ReferenceEngine(), sys.stdin.buffer, stdout)
