"""Fuzzing the conformance runner and the golden case loader.

An engine's replies are mutated one at a time (fields dropped, types swapped, ids wrong, junk
added, lines that are not JSON, huge or deeply nested values, refusals of every shape, a crash or
a timeout instead of a reply) and the runner must give each case one of its outcomes, render its
reports, and raise nothing. Most examples use an in-process session that sends every reply line
through the same `decode_line` and `parse_reply` a pipe does; a few run a real subprocess so that
the line reader, the caps and the process-group kill are exercised, and check nothing is left
running.

Golden case files copied to a temporary folder and mutated must load as a case or be refused
with a `TranscriptError` that names the file and a JSON path, never another exception.

tests/test_runner.py pins each misbehaviour with tests/engines/fake_engine.py; this file searches
around those points. More examples: HYPOTHESIS_PROFILE=deep python -m pytest tests/test_fuzz_protocol.py.
"""

from __future__ import annotations

import base64
import io
import json
import os
import random
import sys
import textwrap
import time
from collections.abc import Callable, Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

from escoba.conformance.report import render_markdown, render_text, to_json
from escoba.conformance.runner import OUTCOMES, Entry, Runner, RunReport, collect
from escoba.errors import TranscriptError
from escoba.protocol.client import SubprocessSession
from escoba.protocol.messages import (
    MAX_LINE,
    EngineCrashed,
    EngineFailure,
    EngineTimedOut,
    Hello,
    HelloReply,
    OversizedReply,
    Reply,
    Request,
    decode_line,
    parse_reply,
)
from escoba.protocol.server import ReferenceEngine
from escoba.transcript.case import cases_dir, load_case

CASE_FILES = sorted(cases_dir().rglob("*.json"))


@cache
def entries() -> tuple[Entry, ...]:
    """The bundled suite, loaded once (every case loads: tests/test_transcripts.py checks)."""
    found = tuple(collect())
    assert found and all(e.case is not None for e in found)
    return found


# --------------------------------------------------------------------------- replies, mutated


class Crash(Exception):
    """Stands for the engine exiting instead of answering."""


class Silence(Exception):
    """Stands for the engine never answering."""


class MutatingSession:
    """The reference engine in process, with the reply to request number `at` (hello is 0)
    replaced by `mutate(request, honest reply)`: a line of bytes, or Crash or Silence raised.

    Every reply goes through `decode_line` and `parse_reply`, and the line cap, as a pipe's do;
    after a failure the session is dead, as a real one is.
    """

    def __init__(self, at: int, mutate: Callable[[dict, dict], bytes]):
        self.at, self.mutate = at, mutate
        self.engine = ReferenceEngine()
        self.count = 0
        self._next_id = 0
        self._dead: EngineFailure | None = None
        self._pending: Iterator[Reply] | None = None
        reply = self.request(Hello())
        if not isinstance(reply, HelloReply):
            raise EngineCrashed(f"hello refused: {reply}")
        self.hello = reply

    def request(self, request: Request) -> Reply:
        return next(self.exchange([request]))

    def exchange(self, requests: Sequence[Request]) -> Iterator[Reply]:
        self.drain(raise_failure=True)
        messages = []
        for request in requests:
            self._next_id += 1
            messages.append(request.to_json(self._next_id))
        self._pending = self._replies(messages)
        return self._pending

    def _replies(self, messages: list[dict]) -> Iterator[Reply]:
        for message in messages:
            honest = self.engine.handle(json.loads(json.dumps(message)))
            line = json.dumps(honest).encode("utf-8")
            n, self.count = self.count, self.count + 1
            try:
                if n == self.at:
                    line = self.mutate(message, honest)
                if len(line) > MAX_LINE:
                    raise OversizedReply(f"{message['cmd']}: reply line longer than {MAX_LINE} bytes (stopped reading)", request=message)
                reply = parse_reply(message, decode_line(line, message))
            except Crash:
                raise self._died(EngineCrashed(f"{message['cmd']}: the engine exited with status 3 before answering", returncode=3)) from None
            except Silence:
                raise self._died(EngineTimedOut(f"{message['cmd']}: no reply within 10 s", request=message)) from None
            except EngineFailure as failure:
                raise self._died(failure) from None
            yield reply

    def _died(self, failure: EngineFailure) -> EngineFailure:
        self._dead, self._pending = failure, None
        return failure

    def drain(self, raise_failure: bool = False) -> EngineFailure | None:
        if self._dead is not None:
            if raise_failure:
                raise self._dead
            return self._dead
        pending, self._pending = self._pending, None
        try:
            for _ in pending or ():
                pass
        except EngineFailure as failure:
            if raise_failure:
                raise
            return failure
        return None

    def close(self) -> None:
        if self._dead is None:
            self._dead = EngineCrashed("the session is closed")

    def stderr_tail(self) -> str:
        return ""


json_junk = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
    | st.sampled_from(["7d", "X1", "", "legal", "play", "hand_end", "illegal_move", "internal"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=10,
)  # fmt: skip


def places(value: Any, path: tuple = ()) -> list[tuple]:
    """Every path into a JSON value."""
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += places(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += places(item, (*path, index))
    return found


def _set(value: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    node = value
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = new
    return value


def _delete(value: Any, path: tuple) -> Any:
    if not path:
        return value
    node = value
    for part in path[:-1]:
        node = node[part]
    del node[path[-1]]
    return value


def nested(depth: int, leaf: Any) -> str:
    """A JSON text nested `depth` levels deep (written, not built: json.dumps would refuse)."""
    return "[" * depth + json.dumps(leaf) + "]" * depth


@st.composite
def reply_mutations(draw: Any) -> Callable[[dict, dict], bytes]:
    """One way of getting a reply wrong."""
    how = draw(st.sampled_from([
        "drop", "retype", "extra", "id", "ok", "refuse", "not-json", "huge", "deep", "crash",
        "silence", "nan", "duplicate-moves", "swap-events",
    ]))  # fmt: skip
    seed = draw(st.integers(0, 2**32 - 1))
    junk = draw(json_junk)
    text = draw(st.binary(max_size=40) | st.sampled_from([b"", b"null", b"[]", b"42", b'"ok"', b"{", b'{"id": 1', b"\xff\xfe", b"NaN"]))
    depth = draw(st.sampled_from([10, 100, 900, 990, 1_000, 5_000, 100_000]))
    size = draw(st.sampled_from([1_000, 500_000, MAX_LINE - 100, MAX_LINE + 1, 3 * MAX_LINE]))
    note(f"mutation {how}")

    def mutate(request: dict, reply: dict) -> bytes:
        rng = random.Random(seed)
        reply = json.loads(json.dumps(reply))
        spots = places(reply)
        spot = rng.choice(spots)
        if how == "drop":
            reply = _delete(reply, rng.choice(spots[1:] or [()]))
        elif how == "retype":
            reply = _set(reply, spot, junk)
        elif how == "extra":
            dicts = [p for p in spots if isinstance(_get(reply, p), dict)]
            _get(reply, rng.choice(dicts))[rng.choice(["junk", "id", "ok", "event", "moves", "reason"])] = junk
        elif how == "id":
            reply["id"] = rng.choice([reply["id"] + 1, -1, str(reply["id"]), None, [reply["id"]], 2**70, 1.5, junk])
        elif how == "ok":
            reply["ok"] = rng.choice([None, 1, 0, "true", [], junk])
        elif how == "refuse":
            reply = {"id": request["id"], "ok": False, "error": rng.choice([
                junk, {"kind": "internal", "message": junk}, {"kind": "illegal_move", "message": "no", "reason": junk},
                {"kind": rng.choice(["unsupported", "bad_state", "illegal_move", "oops"]), "message": "no",
                 "reason": rng.choice(["compulsory", "not_in_hand", None, "nope"])},
            ])}  # fmt: skip
        elif how == "not-json":
            return text
        elif how == "huge":
            return json.dumps(_set(reply, spot, "x" * size)).encode()
        elif how == "deep":
            marker = "\u0000DEEP\u0000"
            return json.dumps(_set(reply, spot, marker)).replace(json.dumps(marker), nested(depth, 1)).encode()
        elif how == "crash":
            raise Crash
        elif how == "silence":
            raise Silence
        elif how == "nan":
            return json.dumps(_set(reply, spot, float(rng.choice(["nan", "inf", "-inf"])))).encode()
        elif how == "duplicate-moves" and isinstance(reply.get("moves"), list):
            reply["moves"] = reply["moves"] * rng.choice([2, 50])
        elif how == "swap-events" and isinstance(reply.get("events"), list):
            rng.shuffle(reply["events"])
        return json.dumps(reply).encode()

    return mutate


def _get(value: Any, path: tuple) -> Any:
    for part in path:
        value = value[part]
    return value


def assert_reports_render(results: list) -> None:
    """The text, Markdown and JSON reports of any result render, and the JSON is strict JSON."""
    from escoba.conformance.runner import EngineInfo

    report = RunReport(EngineInfo("fuzz"), results, 0.0)
    render_text(report, all_cases=True)
    render_markdown(report)
    text = json.dumps(to_json(report), ensure_ascii=False, allow_nan=False)
    json.loads(text)


@given(st.sampled_from(range(len(CASE_FILES))), st.integers(0, 60), reply_mutations())
def test_any_wrong_reply_gets_an_outcome(index: int, at: int, mutate: Callable) -> None:
    """Whatever one reply says (or if none comes), the case gets one outcome and reports render."""
    entry = entries()[index % len(entries())]
    note(f"case {entry.id}, reply {at}")
    runner = Runner(lambda: MutatingSession(at, mutate))
    result = runner.run_one(entry)
    runner.close()
    note(f"{result.outcome} {result.cls}: {result.message[:200]}")
    assert result.outcome in OUTCOMES
    assert_reports_render([result])


@given(st.lists(st.tuples(st.integers(0, 40), reply_mutations()), min_size=2, max_size=4), st.randoms(use_true_random=False))
def test_a_run_of_misbehaving_sessions_goes_on(faults: list, rng: random.Random) -> None:
    """A run whose engine fails case after case restarts it, gives up after three failed starts, and raises nothing."""
    chosen = rng.sample(list(entries()), len(faults))
    plan = iter(faults + [(10**9, None)] * 10)

    def connect() -> MutatingSession:
        at, mutate = next(plan)
        return MutatingSession(at, mutate or (lambda request, reply: json.dumps(reply).encode()))

    report = Runner(connect).run(chosen)
    assert [r.id for r in report.results] == [e.id for e in chosen]
    assert all(r.outcome in OUTCOMES for r in report.results)
    assert_reports_render(report.results)


# --------------------------------------------------------------------------- a real pipe

ENGINE = textwrap.dedent(
    """
    # The reference engine, except that reply number AT (hello is 0) is the line given.
    import base64, json, os, sys, time
    from escoba.protocol.server import ReferenceEngine
    at, line = int(sys.argv[1]), base64.b64decode(sys.argv[2])
    pidfile = sys.argv[3] if len(sys.argv) > 3 else None
    engine, out, n = ReferenceEngine(), sys.stdout.buffer, 0
    for request in sys.stdin.buffer:
        reply = json.dumps(engine.handle(json.loads(request))).encode() + b"\\n"
        if n == at:
            if line == b"EXIT":
                sys.exit(3)
            if line == b"HANG":
                time.sleep(3600)
            if line == b"FORK" and os.fork() == 0:  # a child that holds stdout open
                time.sleep(3600)
            if line == b"FORK":
                open(pidfile, "w").write(str(os.getpid()))
                os._exit(0)
            reply = line + b"\\n"
        out.write(reply)
        out.flush()
        n += 1
    """
)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead: reaped by nobody because its parent is gone or not ours
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True


@pytest.fixture(scope="module")
def engine_script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("engine") / "engine.py"
    path.write_text(ENGINE, encoding="utf-8")
    return path


PIPE_LINES = [
    b"EXIT", b"", b"not json", b"\xff\xfe\x00", b'{"id": 1}', b"[1, 2]", b"x" * (MAX_LINE + 10),
    nested(100_000, 1).encode(), b'{"id": 3, "ok": true, "events": [NaN]}', b"\x00" * 100,
]  # fmt: skip


# Each example starts Python processes: a twentieth of the profile's budget (12 at least).
@settings(max_examples=max(12, settings.default.max_examples // 20))
@given(st.integers(0, 6), st.sampled_from(PIPE_LINES), st.sampled_from(range(len(CASE_FILES))))
def test_a_subprocess_engine_that_breaks_gets_an_outcome_and_leaves_nothing(engine_script: Path, at: int, line: bytes, index: int) -> None:
    """Over a real pipe, a broken reply line (or an exit) is an outcome, and the engine is gone after."""
    entry = entries()[index % len(entries())]
    sessions: list[SubprocessSession] = []

    def connect() -> SubprocessSession:
        argv = [sys.executable, str(engine_script), str(at), base64.b64encode(line).decode()]
        session = SubprocessSession(argv, timeout=5)
        sessions.append(session)
        return session

    runner = Runner(connect)
    result = runner.run_one(entry)
    runner.close()
    assert result.outcome in OUTCOMES
    assert all(not alive(s.pid) for s in sessions) if sessions else True
    assert_reports_render([result])


def test_a_forking_engine_leaves_no_process_behind(engine_script: Path, tmp_path: Path) -> None:
    """An engine that exits mid-case while its child holds stdout open is a crash; both are gone."""
    pidfile = tmp_path / "pid"
    entry = next(e for e in entries() if e.case.kind == "game")
    pids: list[int] = []

    def connect() -> SubprocessSession:
        argv = [sys.executable, str(engine_script), "3", base64.b64encode(b"FORK").decode(), str(pidfile)]
        session = SubprocessSession(argv, timeout=5)
        pids.append(session.pid)
        return session

    runner = Runner(connect)
    result = runner.run_one(entry)
    runner.close()
    assert result.outcome == "crash"
    assert pids and not any(alive(pid) for pid in pids)
    assert group_empties(pids[0]), group_members(pids[0])


def group_empties(pgid: int, seconds: float = 5.0) -> bool:
    """The group's last process is gone within a few seconds: SIGKILL to a group is delivered
    asynchronously, so a member may still show for a few milliseconds after close()."""
    deadline = time.monotonic() + seconds
    while group_members(pgid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def group_members(pgid: int) -> list[int]:
    """Live processes in a process group (Linux /proc; elsewhere nothing can be listed)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


# --------------------------------------------------------------------------- golden case files, mutated


def case_places(data: Any) -> list[tuple]:
    return places(data)[1:]


@st.composite
def case_mutations(draw: Any) -> tuple[str, Callable[[bytes], bytes]]:
    how = draw(st.sampled_from(["drop", "retype", "extra", "near-miss", "huge", "deep", "swap", "shuffle-deck",
                                "truncate", "bytes", "move", "number"]))  # fmt: skip
    seed = draw(st.integers(0, 2**32 - 1))
    junk = draw(json_junk)
    blob = draw(st.binary(min_size=1, max_size=12))
    move = draw(st.sampled_from(["7♦ x 3♣", "Z♦", "", "x", "7d x 7d", "X1", "R♦ x 5♣ 5♣", "7♦\n", "7" * 300]))
    number = draw(st.sampled_from([-1, 0, 1, 5, 10**20, -(10**20), 1.5, 2**63]))
    note(f"case mutation {how}")

    def mutate(raw: bytes) -> bytes:
        rng = random.Random(seed)
        if how == "truncate":
            return raw[: rng.randrange(len(raw))]
        if how == "bytes":
            at = rng.randrange(len(raw))
            return raw[:at] + blob + raw[at + len(blob) :]
        data = json.loads(raw)
        spots = case_places(data)
        spot = rng.choice(spots)
        if how == "drop":
            _delete(data, spot)
        elif how == "retype":
            _set(data, spot, junk)
        elif how == "extra":
            dicts = [p for p in [(), *spots] if isinstance(_get(data, p), dict)]
            _get(data, rng.choice(dicts))[rng.choice(["junk", "probe", "perft", "generator", "from_text", "notes"])] = junk
        elif how == "near-miss":
            strings = [p for p in spots if isinstance(_get(data, p), str)]
            if strings:
                where = rng.choice(strings)
                text = _get(data, where)
                i = rng.randrange(len(text) + 1)
                _set(data, where, text[:i] + rng.choice(["x", "", " ", "é", "\u0000"]) + text[i + 1 :])
        elif how == "huge":
            _set(data, spot, "x" * rng.choice([1000, 3_000_000]))
        elif how == "deep":
            marker = "\u0000DEEP\u0000"
            _set(data, spot, marker)
            return json.dumps(data).replace(json.dumps(marker), nested(rng.choice([50, 900, 5000]), 1)).encode()
        elif how == "swap":
            a, b = rng.choice(spots), rng.choice(spots)
            if not (a[: len(b)] == b or b[: len(a)] == a):  # neither inside the other
                va, vb = _get(data, a), _get(data, b)
                _set(data, a, vb)
                _set(data, b, va)
        elif how == "shuffle-deck":
            for hand in data.get("hands", []):
                for order in hand.get("decks", []):
                    if order:
                        order[rng.randrange(len(order))] = rng.choice(order)
        elif how == "move":
            for hand in data.get("hands", []):
                if hand.get("moves"):
                    hand["moves"][rng.randrange(len(hand["moves"]))] = move
        elif how == "number":
            numbers = [p for p in spots if isinstance(_get(data, p), int) and not isinstance(_get(data, p), bool)]
            if numbers:
                _set(data, rng.choice(numbers), number)
        return json.dumps(data, ensure_ascii=False).encode()

    return how, mutate


@pytest.fixture(scope="module")
def case_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cases")


@given(st.sampled_from(CASE_FILES), case_mutations(), st.booleans())
def test_a_mutated_case_file_loads_or_is_a_located_transcript_error(case_dir: Path, source: Path, mutation: tuple, replay: bool) -> None:
    """A damaged case file is a Case or a TranscriptError naming the file and a JSON path, nothing else."""
    _how, mutate = mutation
    path = case_dir / source.name
    path.write_bytes(mutate(source.read_bytes()))
    try:
        case = load_case(path, replay=replay)
    except TranscriptError as error:
        message = str(error)
        note(message)
        shown = os.path.relpath(path) if not os.path.relpath(path).startswith("..") else str(path)
        assert message.startswith(shown + ":"), message
        assert ": $" in message.split("\n")[0], message
        runner = Runner(lambda: MutatingSession(10**9, lambda q, r: b""))
        result = runner.run_one(Entry(path.stem, problem=error))
        assert result.outcome == "broken-case"
        return
    assert case.id == path.stem
    runner = Runner(lambda: MutatingSession(10**9, lambda q, r: b""))
    result = runner.run_one(Entry(case.id, case=case, ruleset=case.ruleset))
    runner.close()
    assert result.outcome in OUTCOMES
    assert_reports_render([result])


# --------------------------------------------------------------------------- pinned findings


def test_a_nan_in_a_reply_keeps_the_json_report_strict_json() -> None:
    """An engine that answers with NaN (Python's json reads it) still gets a report that is strict JSON."""
    entry = next(e for e in entries() if e.id == "base.2p.1")

    def nan_table(request: dict, reply: dict) -> bytes:
        return json.dumps(reply).replace('"event": "table"', '"event": "table", "score": NaN').encode()

    runner = Runner(lambda: MutatingSession(1, nan_table))
    result = runner.run_one(entry)
    runner.close()
    assert result.outcome in OUTCOMES
    assert_reports_render([result])


def _broken_copy(folder: Path, name: str, change: Callable[[dict], str]) -> Path:
    source = next(p for p in CASE_FILES if p.name == name)
    path = folder / name
    path.write_text(change(json.loads(source.read_text(encoding="utf-8"))), encoding="utf-8")
    return path


def _seat_minus_one(data: dict) -> str:
    index = next(i for i, e in enumerate(data["expect"]) if e["event"] == "leftovers")
    data["expect"][index]["seat"] = -1
    return json.dumps(data)


def _deep_moves(data: dict) -> str:
    data["hands"][0]["moves"] = "DEEP"
    return json.dumps(data).replace('"DEEP"', nested(5_000, "7d"))


@pytest.mark.parametrize(
    "name, change, where",
    [
        ("da.4p.1.json", _seat_minus_one, "$.expect["),  # best_match picks a sub-error of an if/then
        ("da.4p.1.json", _deep_moves, "$"),  # the JSON parser's recursion limit
    ],
    ids=["seat-minus-one", "nested-5000-deep"],
)
def test_pinned_broken_case_is_a_transcript_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, change: Callable, where: str) -> None:
    """Each of these case files is refused with a TranscriptError at its location, and the runner calls it broken."""
    monkeypatch.chdir(tmp_path)
    path = _broken_copy(tmp_path, name, change)
    with pytest.raises(TranscriptError) as raised:
        load_case(path.name)
    assert str(raised.value).startswith(f"{path.name}: {where}")
    entries_found = collect(tmp_path)
    assert [(e.id, e.case) for e in entries_found] == [(path.stem, None)]
    assert Runner(lambda: MutatingSession(10**9, lambda q, r: b"")).run_one(entries_found[0]).outcome == "broken-case"


def test_an_unparsable_expectations_file_is_a_one_line_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`--expectations` naming a file that is not YAML exits 2 with one line, as every usage error does."""
    from escoba.cli.main import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "known.yaml").write_text("cases: [\n", encoding="utf-8")
    assert main(["conformance", "--case", "base.2p.1", "--expectations", "known.yaml"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("escoba conformance: known.yaml: not valid YAML: ") and err.count("\n") == 1, err


# --------------------------------------------------------------------------- the reference engine, fed junk

from escoba.protocol.messages import ERROR_KINDS, REASONS  # noqa: E402


@cache
def start_request(ruleset_id: str) -> dict:
    from escoba import load_ruleset

    rules = load_ruleset(ruleset_id)
    order = [rules.deck.code[c] for c in rules.deck.cards]
    return {"cmd": "start", "ruleset": dict(rules.doc), "players": rules.player_counts[0], "dealer": 0, "decks": [order], "target": None}


RULESET_IDS = sorted({e.case.ruleset_source() for e in entries()}) if CASE_FILES else ["base"]  # ids, or files beside cases
COMMANDS = ["hello", "start", "legal", "play", "state", "score", "next_hand", "quit", "dance", ""]


@st.composite
def engine_requests(draw: Any) -> dict:
    """A request of any command with some fields right, some junk and some missing."""
    ruleset_id = draw(st.sampled_from(RULESET_IDS))
    request = dict(start_request(ruleset_id))
    request["cmd"] = draw(st.sampled_from(COMMANDS) | json_junk)
    request["id"] = draw(st.integers(0, 10**6) | json_junk)
    for key in draw(st.lists(st.sampled_from(["players", "dealer", "decks", "target", "protocol", "move", "ruleset"]), max_size=3)):
        if key == "move":
            request[key] = draw(json_junk | st.fixed_dictionaries({"card": st.sampled_from(["7d", "1c", "X1", "Rd"]), "take": st.lists(st.sampled_from(["3c", "5h", "7d", "Sd"]), max_size=3)}))
        elif key == "players":
            request[key] = draw(st.integers(-2, 6) | json_junk)
        else:
            request[key] = draw(json_junk)
    if draw(st.booleans()):
        del request["ruleset"]
    return request


@given(st.sampled_from(RULESET_IDS), st.lists(engine_requests(), max_size=8), st.data())
def test_the_reference_engine_answers_every_request_in_band(ruleset_id: str, requests: list, data: st.DataObject) -> None:
    """Whatever it is sent after a good start, `escoba engine` answers ok or a known error kind in band."""
    engine = ReferenceEngine()
    engine.handle({"id": 0, **start_request(ruleset_id)})
    for request in requests:
        if data.draw(st.booleans(), label="play a legal move first"):
            legal = engine.handle({"id": 1, "cmd": "legal"})
            if legal.get("ok") and legal["moves"]:
                engine.handle({"id": 2, "cmd": "play", "move": data.draw(st.sampled_from(legal["moves"]))})
        reply = engine.handle(request)
        note(f"{str(request)[:300]} -> {str(reply)[:300]}")
        assert reply["ok"] in (True, False)
        assert reply["id"] is request.get("id") or reply["id"] == request.get("id")
        if reply["ok"] is False:
            error = reply["error"]
            assert error["kind"] in ERROR_KINDS, error
            if error["kind"] == "internal":
                # The engine compiles the document it is sent without validating it (the runner
                # only sends resolved rulesets): a broken one is an internal error, nothing else is.
                valid = [start_request(r)["ruleset"] for r in RULESET_IDS]
                assert request.get("cmd") == "start" and request.get("ruleset") not in valid, error
            assert isinstance(error["message"], str) and error["message"]
            if error["kind"] == "illegal_move":
                assert error["reason"] in REASONS


@given(st.lists(st.binary(max_size=60) | st.sampled_from([b"{}", b'{"id": 1}', b"[]", b"null", b"\xff", b'{"cmd": "legal", "id": []}', nested(5000, 1).encode()]), max_size=6))
def test_escoba_engine_answers_every_line_with_one_json_line(lines: list) -> None:
    """Each non-blank input line, whatever its bytes, gets exactly one reply line that parses."""
    from escoba.protocol.server import serve

    lines = [line.replace(b"\n", b" ") for line in lines]
    out = io.BytesIO()
    assert serve(ReferenceEngine(), io.BytesIO(b"".join(line + b"\n" for line in lines)), out) == 0
    replies = out.getvalue().splitlines()
    assert len(replies) == sum(1 for line in lines if line.strip())
    for reply in replies:
        assert decode_line(reply)["ok"] in (True, False)
