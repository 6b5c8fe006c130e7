"""The outside engines (tests/engines/outside): each starts, answers hello and plays whole games of
every bundled ruleset over the JSON-lines protocol without breaking it; each planted bug the
manifest names is really there; every rules.yaml checks; the manifest validates.

The runner's verdicts on these engines are not asserted here: the engines exist so that the
conformance tools can be judged against their manifest (issue 35).
"""

from __future__ import annotations

import functools
import json
import os
import queue
import random
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import jsonschema
import pytest
import yaml

from escoba.cli import main as cli
from escoba.rules import bundled_ids, load_resolved

ROOT = Path(__file__).resolve().parents[1]
OUTSIDE = ROOT / "tests" / "engines" / "outside"
MANIFEST = yaml.safe_load((OUTSIDE / "manifest.yaml").read_text(encoding="utf-8"))
ENGINES = {engine["name"]: engine for engine in MANIFEST["engines"]}
PROTOCOL = json.loads((ROOT / "schemas" / "protocol.schema.json").read_text(encoding="utf-8"))
SPANISH = {rank + suit for suit in "dhsc" for rank in "1234567SCR"}
TIMEOUT = 10.0


def inlined(node: Any, defs: dict) -> Any:
    """The schema with every `#/$defs/…` reference replaced by its definition (the protocol
    schema has no recursive definition): the same verdicts without a reference lookup per node."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            rest = {k: v for k, v in node.items() if k != "$ref"}
            target = inlined(defs[ref.removeprefix("#/$defs/")], defs)
            return {"allOf": [target, inlined(rest, defs)]} if rest else target
        return {k: inlined(v, defs) for k, v in node.items()}
    if isinstance(node, list):
        return [inlined(v, defs) for v in node]
    return node


def validator(definition: str, defs: dict | None = None) -> jsonschema.Draft202012Validator:
    defs = defs or PROTOCOL["$defs"]
    return jsonschema.Draft202012Validator(inlined(defs[definition], defs))


# A reply is checked as the schema's reply.<kind> with its events and moves left shallow, then each
# event against its own definition (chosen by its `event` field: the verdict of the schema's oneOf
# over every event definition) and each move against `move`, each distinct item once: the same
# verdicts at a fraction of the cost (a game is thousands of replies, mostly the same items).
EVENTS = {name.removeprefix("event."): validator(name) for name in PROTOCOL["$defs"] if name.startswith("event.")}
MOVE = validator("move")
_SHALLOW = dict(PROTOCOL["$defs"], event={"type": "object", "required": ["event"], "properties": {"event": {"enum": list(EVENTS)}}},
                move={"type": "object"})
REPLY = {cmd: validator(f"reply.{kind}", _SHALLOW) for cmd, kind in [
    ("hello", "hello"), ("start", "events"), ("play", "events"), ("next_hand", "events"), ("legal", "legal"),
    ("state", "state"), ("score", "score"), ("quit", "quit"),
]}
REFUSAL = validator("reply.error")


@functools.cache
def item_errors(kind: str, text: str) -> tuple[str, ...]:
    """What breaks the schema in one event (kind: its `event`) or one move (kind: 'move')."""
    check = MOVE if kind == "move" else EVENTS[kind]
    return tuple(e.message for e in check.iter_errors(json.loads(text)))


def protocol_errors(cmd: str, reply: dict) -> list[str]:
    """What breaks the protocol schema in this reply to `cmd`."""
    schema = REPLY[cmd] if reply.get("ok") is True else REFUSAL
    errors = [e.message for e in schema.iter_errors(reply)]
    if errors or reply.get("ok") is not True:
        return errors
    items = [(e["event"], e) for e in reply.get("events", ())] + [("move", m) for m in reply.get("moves", ())]
    if cmd == "score":
        items += [("score", e) for e in reply["hand"]["categories"]]
    for kind, item in items:
        errors += item_errors(kind, json.dumps(item))
    return errors


def command_of(engine: dict) -> list[str]:
    """The manifest's command; `python` is the interpreter running the tests."""
    argv = shlex.split(engine["command"])
    if argv[0] == "python":
        argv[0] = sys.executable
    elif shutil.which(argv[0]) is None:
        pytest.skip(f"{argv[0]} is not installed")
    return argv


class Session:
    """One engine process, asked one request at a time; every reply held to the protocol schema."""

    def __init__(self, engine: dict) -> None:
        self.name = engine["name"]
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the session: close() closes it)
        self.process = subprocess.Popen(command_of(engine), cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=self.stderr, start_new_session=True)
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.next_id = 0

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in iter(self.process.stdout.readline, b""):
            self.lines.put(line)
        self.lines.put(b"")

    def said(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read()[-2000:].decode("utf-8", "replace")

    def batch(self, *requests: tuple[str, dict]) -> list[dict]:
        """The replies to several requests written at once (the protocol pipelines requests),
        each a well-formed line with its id, held to the protocol schema."""
        assert self.process.stdin is not None
        lines = []
        for cmd, fields in requests:
            self.next_id += 1
            lines.append(json.dumps({"id": self.next_id, "cmd": cmd, **fields}).encode() + b"\n")
        self.process.stdin.write(b"".join(lines))
        self.process.stdin.flush()
        replies = []
        for offset, (cmd, _) in enumerate(requests):
            try:
                line = self.lines.get(timeout=TIMEOUT)
            except queue.Empty:
                pytest.fail(f"{self.name}: no reply to {cmd} within {TIMEOUT} s")
            assert line, f"{self.name} exited on {cmd}: {self.said()}"
            reply = json.loads(line)
            ident = self.next_id - len(requests) + 1 + offset
            assert isinstance(reply, dict) and reply.get("id") == ident, f"{self.name}: {line!r}"
            errors = protocol_errors(cmd, reply)
            assert not errors, f"{self.name}: {cmd} reply breaks the protocol: {errors[:3]} in {line[:300]!r}"
            kind = reply.get("error", {}).get("kind")
            assert kind != "internal", f"{self.name}: internal error on {cmd}: {reply['error']['message']}"
            replies.append(reply)
        return replies

    def raw(self, cmd: str, **fields: Any) -> dict:
        """The reply to one request, refused or not."""
        return self.batch((cmd, fields))[0]

    def ask(self, cmd: str, **fields: Any) -> dict:
        reply = self.raw(cmd, **fields)
        assert reply["ok"] is True, f"{self.name}: {cmd} refused: {reply['error']}"
        return reply

    def close(self) -> None:
        try:
            if self.process.poll() is None:
                self.raw("quit")
                self.process.wait(timeout=5)
        finally:
            if self.process.poll() is None:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
            self.stderr.close()


def session(name: str) -> Iterator[Session]:
    s = Session(ENGINES[name])
    try:
        yield s
    finally:
        s.close()


@functools.cache
def _resolved(ruleset: str) -> str:
    return json.dumps(load_resolved(ruleset).doc)


def resolved(ruleset: str) -> dict:
    """The resolved ruleset document (a fresh copy: engines get it as JSON anyway)."""
    doc: dict = json.loads(_resolved(ruleset))
    return doc


def deck_of(doc: dict) -> list[str]:
    codes = [rank["ascii"] + suit["ascii"] for suit in doc["deck"]["suits"] for rank in doc["deck"]["ranks"]]
    return codes + [f"X{i}" for i in range(1, doc["deck"].get("jokers", 0) + 1)]


def arranged(doc: dict, first: list[str]) -> list[str]:
    """A deck order whose top is `first`, the rest in deck order."""
    return first + [c for c in deck_of(doc) if c not in first]


def refused_as_unsupported(engine: dict, doc: dict) -> bool:
    """What the manifest says the engine cannot play: jokers, or a deck it does not know."""
    return doc["deck"].get("jokers", 0) > 0 or (engine["deck"] == "spanish" and not set(deck_of(doc)) <= SPANISH)


def play_out(s: Session, rng: random.Random) -> list[dict]:
    """Random legal moves until the hand is over, a capture four times in five when there is
    one (tables where nobody captures grow to hundreds of moves a decision, and cost time, not
    coverage); the events of the plays."""
    events: list[dict] = []
    legal = s.ask("legal")
    for _ in range(400):
        if legal["seat"] is None:
            assert legal["moves"] == []
            assert any(e["event"] == "hand_end" for e in events), f"{s.name}: the hand ended without hand_end"
            return events
        assert legal["moves"], f"{s.name}: seat {legal['seat']} is to play and has no legal move"
        captures = [m for m in legal["moves"] if m["take"]]
        move = rng.choice(captures if captures and rng.random() < 0.8 else legal["moves"])
        seat = legal["seat"]
        played, legal = s.batch(("play", {"move": move}), ("legal", {}))
        assert played["ok"] is True, f"{s.name}: play refused: {played['error']}"
        assert legal["ok"] is True, f"{s.name}: legal refused: {legal['error']}"
        reply = played["events"]
        assert reply and reply[0] == {"event": "play", "seat": seat, **move}, f"{s.name}: {reply[:1]} for {move}"
        events += reply
    pytest.fail(f"{s.name}: the hand did not end in 400 plays")


# ------------------------------------------------------------------------------------ the manifest
def test_manifest_validates() -> None:
    """manifest.yaml validates against manifest.schema.json (itself a valid 2020-12 schema)."""
    schema = json.loads((OUTSIDE / "manifest.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in jsonschema.Draft202012Validator(schema).iter_errors(MANIFEST)]
    assert errors == []


def test_manifest_names_files_that_exist() -> None:
    """Each engine's folder, program, README and rules file exist, and the names are unique."""
    assert len(ENGINES) == len(MANIFEST["engines"]) >= 5
    for name, engine in ENGINES.items():
        program = shlex.split(engine["command"])[-1]
        assert Path(program).parent == Path("tests/engines/outside") / name
        for path in (program, engine["readme"], engine["rules"]):
            assert (ROOT / path).is_file(), path


def test_engines_vary() -> None:
    """Escoba engines depart from base on 4 to 8 points, no two on the same set; 1 to 3 bugs each."""
    seen: set[frozenset[tuple[str, str | None]]] = set()
    for engine in ENGINES.values():
        own = [d for d in engine["departures"] if not d.get("in_parent")]
        if engine["extends"] == "base":
            assert 4 <= len(own) <= 8, engine["name"]
        key = frozenset((d["point"], d["feature"] or d.get("value")) for d in engine["departures"])
        assert key not in seen, engine["name"]
        seen.add(key)
        assert 1 <= len(engine["bugs"]) <= 3
    assert {e["language"] for e in ENGINES.values()} == {"python", "javascript"}


@pytest.mark.parametrize("name", ENGINES)
def test_rules_file_checks(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The engine's rules.yaml passes `escoba check`, extends what the manifest says, and lists
    under `unsupported` exactly as many rules as the manifest marks not expressible."""
    engine = ENGINES[name]
    path = ROOT / engine["rules"]
    assert cli.main(["check", str(path)]) == 0, capsys.readouterr().out
    written = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert written["extends"] == engine["extends"]
    assert load_resolved(str(path)).doc["id"] == name
    unexpressible = [d for d in engine["departures"] if not d["expressible"]]
    assert len(written.get("unsupported", [])) == len(unexpressible)


# ------------------------------------------------------------------------------------ the protocol
@pytest.mark.parametrize("name", ENGINES)
def test_plays_every_bundled_ruleset(name: str) -> None:
    """The engine answers hello, then plays a whole hand of every bundled ruleset (at one of its
    player counts, in turn) with every reply well formed, refusing `start` as unsupported exactly
    where the manifest says it cannot play (jokers, another deck); it answers state and score."""
    engine = ENGINES[name]
    rng = random.Random(f"outside-{name}")
    for s in session(name):
        hello = s.ask("hello", protocol=1)
        assert hello["engine"]["name"] == name
        assert {f"players:{n}" for n in engine["players"]} <= set(hello["features"])
        for i, ruleset in enumerate(bundled_ids()):
            doc = resolved(ruleset)
            counts = [n for n in doc["players"]["counts"] if n in engine["players"]]
            players = counts[i % len(counts)]
            order = deck_of(doc)
            rng.shuffle(order)
            reply = s.raw("start", ruleset=doc, players=players, dealer=rng.randrange(players), decks=[order], target=None)
            if refused_as_unsupported(engine, doc):
                assert reply["ok"] is False and reply["error"]["kind"] == "unsupported", ruleset
                continue
            assert reply["ok"] is True, f"{ruleset}: {reply}"
            assert reply["events"][0]["event"] == "hand_start"
            play_out(s, rng)
            state = s.ask("state")["state"]
            assert state["to_play"] is None and state["table"] == [] and all(h == [] for h in state["hands"])
            assert s.ask("score")["hand"]["points"] is not None


@pytest.mark.parametrize("name", ENGINES)
def test_plays_matches(name: str) -> None:
    """The engine plays a match to 4 points at each of its player counts: `totals` after every
    hand, next_hand until `match_end`."""
    engine = ENGINES[name]
    doc = resolved("base")
    rng = random.Random(f"match-{name}")
    for s in session(name):
        s.ask("hello", protocol=1)
        for players in engine["players"]:
            order = deck_of(doc)
            rng.shuffle(order)
            s.ask("start", ruleset=doc, players=players, dealer=0, decks=[order], target=4)
            for hand in range(1, 40):
                events = play_out(s, rng)
                names = [e["event"] for e in events]
                assert names[names.index("hand_end") + 1] == "totals"
                assert events[names.index("totals")]["hand"] == hand
                if "match_end" in names:
                    assert s.ask("score")["match"]["over"] is True
                    break
                rng.shuffle(order)
                assert s.ask("next_hand", decks=[order])["events"][0]["event"] == "hand_start"
            else:
                pytest.fail(f"{name}: no match_end after 40 hands")


@pytest.mark.parametrize("name", ENGINES)
def test_refusals_keep_the_session(name: str) -> None:
    """Requests out of place, unknown commands, non-JSON lines and illegal moves are refused in
    band, with the protocol's error kinds, and the session goes on."""
    doc = resolved("base")
    for s in session(name):
        assert s.raw("legal")["error"]["kind"] == "bad_state"
        assert s.raw("shuffle")["error"]["kind"] == "unknown_command"
        assert s.raw("hello", protocol=2)["error"]["kind"] == "bad_request"
        assert s.process.stdin is not None
        s.process.stdin.write(b"not json\n")
        s.process.stdin.flush()
        garbage = json.loads(s.lines.get(timeout=TIMEOUT))
        assert garbage["id"] is None and garbage["error"]["kind"] == "bad_json"
        s.ask("start", ruleset=doc, players=2, dealer=1, decks=[deck_of(doc)], target=None)
        other = s.ask("state")["state"]["hands"][1][0]
        for move, reason in [({"card": other, "take": []}, "not_in_hand"), ({"card": "1d", "take": "2d"}, "malformed"),
                             ({"card": "1d", "take": ["Zz"]}, "malformed")]:
            refusal = s.raw("play", move=move)["error"]
            assert (refusal["kind"], refusal["reason"]) == ("illegal_move", reason), move
        assert s.raw("next_hand", decks=[deck_of(doc)])["error"]["kind"] == "bad_state"
        assert s.ask("legal")["seat"] == 0


# ------------------------------------------------------------------------------------ the planted bugs
# Each planted bug of the manifest, shown on a position built for it: the engine does what the
# bug says and not what its rules.yaml says. These keep the manifest true: an engine "fixed" by
# accident fails here.

def start(s: Session, ruleset: str, first: list[str], *, players: int = 2, dealer: int = 1) -> dict:
    doc = resolved(ruleset)
    s.ask("hello", protocol=1)
    return s.ask("start", ruleset=doc, players=players, dealer=dealer, decks=[arranged(doc, first)], target=None)


def moves_of(s: Session, card: str) -> list[list[str]]:
    return [m["take"] for m in s.ask("legal")["moves"] if m["card"] == card]


def hands_until(s: Session, ruleset: str, found: Callable[[list[dict]], bool], *, players: int = 2, dealer: int = 0) -> list[dict]:
    """Seeded random hands until one whose events `found` accepts (the first of at most 300)."""
    doc = resolved(ruleset)
    s.ask("hello", protocol=1)
    for seed in range(300):
        rng = random.Random(seed)
        order = deck_of(doc)
        rng.shuffle(order)
        events = s.ask("start", ruleset=doc, players=players, dealer=dealer, decks=[order], target=None)["events"]
        events += play_out(s, rng)
        if found(events):
            return events
    pytest.fail("no hand shows it")


class Sweep(NamedTuple):
    """A play that cleared the table, and where it stood in the hand."""

    last_round: bool  # the stock was empty (every card dealt)
    own_last: bool  # the player's last card of the hand
    last_play: bool  # the hand's last play
    escoba: bool  # an escoba event followed it


def sweeps_of(events: list[dict]) -> list[Sweep]:
    """The sweeps of one hand of 40 cards, four of them on the table, from its events alone."""
    table: list[str] = []
    hands: list[list[str]] = []
    dealt, found = 0, []
    plays = [i for i, e in enumerate(events) if e["event"] == "play"]
    for i, e in enumerate(events):
        if e["event"] == "table":
            table = list(e["cards"])
        elif e["event"] == "opening" and e["action"] == "dealer_takes":
            table = []
        elif e["event"] == "deal":
            hands = [list(hand) for hand in e["hands"]]
            dealt = dealt + sum(len(hand) for hand in hands)
        elif e["event"] == "play":
            hands[e["seat"]].remove(e["card"])
            table = [c for c in table if c not in e["take"]] if e["take"] else table + [e["card"]]
            if e["take"] and not table:
                last_round = dealt + 4 == 40
                found.append(Sweep(last_round, last_round and not hands[e["seat"]], i == plays[-1],
                                   events[i + 1]["event"] == "escoba"))
    return found


def score(events: list[dict], category: str) -> dict:
    return next(e for e in events if e["event"] == "score" and e["category"] == category)


def bug_crisol_capture_search_three_cards(s: Session) -> None:
    # 5♥ and the four table cards 1+2+3+4 make 15: a capture of four table cards.
    start(s, "base", ["5h", "6h", "7h", "Rs", "Cs", "Ss", "1d", "2d", "3d", "4d"])
    assert ["1d", "2d", "3d", "4d"] not in moves_of(s, "5h")
    assert [t for t in moves_of(s, "6h") if t] == [["2d", "3d", "4d"]]  # three cards are found
    assert s.ask("play", move={"card": "5h", "take": ["1d", "2d", "3d", "4d"]})["events"][1]["event"] == "escoba"


def bug_crisol_tied_points_twice(s: Session) -> None:
    def tied(events: list[dict]) -> bool:
        return any(score(events, c)["points"] == [1, 1] for c in ("cards", "coins"))

    events = hands_until(s, "base", tied)
    categories = sum((e["points"][0] for e in events if e["event"] == "score"), 0)
    shared = sum(1 for c in ("cards", "coins") if score(events, c)["points"] == [1, 1])
    assert events[-1]["event"] == "hand_end" and events[-1]["points"][0] == categories + shared


def bug_pampa_refill_for_two(s: Session) -> None:
    dealt: list[str] = []

    def repeats(events: list[dict]) -> bool:
        dealt[:] = [c for e in events if e["event"] == "deal" for hand in e["hands"] for c in hand]
        return len(dealt) != len(set(dealt))

    events = hands_until(s, "base", repeats, players=3)
    deals = [e for e in events if e["event"] == "deal"]
    assert len(deals) > 4  # 27 cards after the first deal are 3 more rounds of 9, not more


def bug_pampa_unchecked_capture(s: Session) -> None:
    # 1♥ and R♦ make 11, not 15: the take must be refused (wrong_sum), and pampa plays it.
    start(s, "base", ["1h", "2h", "3h", "1s", "2s", "3s", "Rd", "Rs", "Rc", "4c"])
    assert s.raw("play", move={"card": "1h", "take": ["Rd"]})["ok"] is True
    assert s.ask("state")["state"]["table"] == ["Rs", "Rc", "4c"]


def bug_tucuman_single_card_skipped(s: Session) -> None:
    # 5♥ takes R♦ alone, or 4♦ + 6♦: only the pair is offered, and the single is refused.
    start(s, "base", ["5h", "1h", "1s", "Cs", "Cc", "Sc", "Rd", "6d", "4d", "1c"])
    assert moves_of(s, "5h") == [["4d", "6d"]]
    refusal = s.raw("play", move={"card": "5h", "take": ["Rd"]})["error"]
    assert (refusal["kind"], refusal["reason"]) == ("illegal_move", "priority")


def bug_tucuman_last_capturer_turn_index(s: Session) -> None:
    def captured_with_leftovers(events: list[dict]) -> bool:
        plays = [e for e in events if e["event"] == "play" and e["take"]]
        return bool(plays) and any(e["event"] == "leftovers" for e in events)

    # Seat 0 deals: seat 1 leads, first in the turn order, so turn index and seat are swapped.
    events = hands_until(s, "base", captured_with_leftovers, dealer=0)
    last_capturer = [e["seat"] for e in events if e["event"] == "play" and e["take"]][-1]
    leftovers = next(e for e in events if e["event"] == "leftovers")
    assert leftovers["seat"] == 1 - last_capturer


def bug_aalborg_captures_by_size(s: Session) -> None:
    # The table comes first (aalborg deals it before the hands). 5♥ takes R♦, or 4♦ + 6♦: in deck
    # order [4♦ 6♦] comes before [R♦] (4♦ before R♦); aalborg lists the single first.
    start(s, "base", ["Rd", "6d", "4d", "1c", "5h", "1h", "1s", "Cs", "Cc", "Sc"])
    assert moves_of(s, "5h") == [["Rd"], ["4d", "6d"]]


def bug_aalborg_velo_from_capture_log(s: Session) -> None:
    # The table 7♦ 5♥ 2♠ 1♣ makes 15: the dealer (seat 1) takes it, velo included.
    opening = start(s, "base", ["7d", "5h", "2s", "1c", "1h", "2h", "3h", "4s", "5s", "6s"])["events"]
    assert [e["seat"] for e in opening if e["event"] == "opening"] == [1]
    velo = score(play_out(s, random.Random(0)), "velo")
    assert velo["measures"] == [False, False] and velo["points"] == [0, 0]


def bug_settebello_last_table_card_single(s: Session) -> None:
    # R♦ takes R♣ alone (nothing else on the table adds up to 10); R♣ is last in deck order.
    start(s, "scopa", ["Rd", "1h", "1s", "Cs", "Cc", "Fc", "Rc", "2h", "3s", "4h"])
    assert moves_of(s, "Rd") == [[]]


def bug_settebello_no_scopa_last_round(s: Session) -> None:
    def found(events: list[dict]) -> list[bool]:
        return [w.escoba for w in sweeps_of(events) if w.last_round and not w.last_play]

    # At four players the last round has twelve plays, and a sweep in it comes in fewer hands.
    escobas = found(hands_until(s, "scopa", lambda events: bool(found(events)), players=4))
    assert escobas and not any(escobas)


def bug_settebello_repeated_take_accepted(s: Session) -> None:
    # 3♥ takes 3♣; naming 3♣ twice is malformed, and settebello plays it as if named once.
    start(s, "scopa", ["3h", "1h", "1s", "Cs", "Cc", "Fc", "3c", "Rh", "Rs", "Rc"])
    assert s.raw("play", move={"card": "3h", "take": ["3c", "3c"]})["ok"] is True


BUGS = {(f.__name__.split("_")[1], f.__name__.split("_", 2)[2].replace("_", "-")): f for f in [
    bug_crisol_capture_search_three_cards, bug_crisol_tied_points_twice, bug_pampa_refill_for_two,
    bug_pampa_unchecked_capture, bug_tucuman_single_card_skipped, bug_tucuman_last_capturer_turn_index,
    bug_aalborg_captures_by_size, bug_aalborg_velo_from_capture_log, bug_settebello_last_table_card_single,
    bug_settebello_no_scopa_last_round, bug_settebello_repeated_take_accepted,
]}


def test_every_planted_bug_has_a_witness() -> None:
    """Each bug the manifest names is shown by one of the positions below, and no other."""
    assert set(BUGS) == {(e["name"], b["id"]) for e in ENGINES.values() for b in e["bugs"]}


@pytest.mark.parametrize(("name", "bug"), list(BUGS))
def test_planted_bug_is_there(name: str, bug: str) -> None:
    """The engine shows its planted bug on a position built for it (see each function)."""
    for s in session(name):
        BUGS[name, bug](s)


# ------------------------------------------------------------------------------------ a rule only pampa plays
def test_pampa_own_last_card_sweep_is_no_escoba() -> None:
    """pampa plays its rules.yaml's `capture.escoba_on_last_card: false` (the rule point added
    for it, docs/architecture.md): a sweep with a player's own last card of the hand takes the
    cards and is no escoba."""
    def found(events: list[dict]) -> list[bool]:
        return [w.escoba for w in sweeps_of(events) if w.own_last]

    for s in session("pampa"):
        escobas = found(hands_until(s, "base", lambda events: bool(found(events))))
        assert escobas and not any(escobas)
