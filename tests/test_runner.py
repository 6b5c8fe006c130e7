"""The conformance runner: outcomes, first divergences, expectations, reports, the CLI, and an
engine that crashes, hangs or lies on demand (tests/engines/fake_engine.py)."""

from __future__ import annotations

import json
import os
import random
import shlex
import sys
import time
from functools import cache
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from escoba.cli.main import main
from escoba.conformance import expectations
from escoba.conformance.compare import classify, first_divergence, same
from escoba.conformance.report import render_markdown, render_text, to_json
from escoba.conformance.runner import Entry, Runner, collect
from escoba.data import schemas_dir
from escoba.protocol.client import InProcessSession, SubprocessSession
from escoba.protocol.messages import Legal
from escoba.protocol.server import ReferenceEngine
from escoba.rules import load_resolved
from escoba.transcript.build import dump_case, fill

HERE = Path(__file__).parent
FAKE = HERE / "engines" / "fake_engine.py"


@cache
def bundled() -> tuple[Entry, ...]:
    """The bundled suite, loaded once for this module."""
    return tuple(collect())


@cache
def two_player_games() -> tuple[Entry, ...]:
    """A few short, stable golden cases: two-player single hands of the bundled suite."""
    entries = [
        e for e in bundled()
        if e.case.kind == "game" and e.case.players == 2 and e.case.target is None and not e.case.ruleset.endswith(".yaml")
    ]  # fmt: skip
    assert len(entries) >= 3
    return tuple(entries[:3])


@cache
def three_player_game() -> Entry:
    return next(e for e in bundled() if e.case.kind == "game" and e.case.players == 3 and e.case.target is None)


@cache
def report_schema() -> Draft202012Validator:
    return Draft202012Validator(json.loads((schemas_dir() / "report.schema.json").read_text(encoding="utf-8")))


def alive(pid: int) -> bool:
    """Running (a zombie waiting to be reaped is not running)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state not in ("Z", "X")


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    # Only zombies left counts as gone: check members through /proc where there is one.
    proc = Path("/proc")
    if not proc.is_dir():
        return True
    for entry in proc.iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
                return True
    return False


def wait_gone(check, arg, seconds: float = 3.0) -> bool:  # type: ignore[no-untyped-def]
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not check(arg):
            return True
        time.sleep(0.05)
    return not check(arg)


class Recording:
    """Starts the fake engine and remembers every session's process group."""

    def __init__(self, argv: list[str], timeout: float):
        self.argv, self.timeout, self.pgids = argv, timeout, []

    def __call__(self) -> SubprocessSession:
        session = SubprocessSession(self.argv, timeout=self.timeout)
        self.pgids.append(session.pid)
        return session


# The reply timeout where silence is not what is tested: a loaded machine is slow, not wrong.
PATIENT = 20.0


def run_fake(mode: str, *extra: str, entries=None, timeout: float = PATIENT):  # type: ignore[no-untyped-def]
    argv = [sys.executable, str(FAKE), mode, *extra]
    recording = Recording(argv, timeout)  # a failed handshake leaves no group: close() killed it
    runner = Runner(recording, command=shlex.join(argv), replay=lambda c: f"escoba conformance --case {c}")
    chosen = list(entries if entries is not None else two_player_games()[:2])  # loaded before timing the engine
    began = time.monotonic()
    report = runner.run(chosen)
    return report, time.monotonic() - began, recording


# ------------------------------------------------------------------------------ fake engines
@pytest.mark.parametrize(
    "mode, extra, timeout, outcome, cls, words",
    [
        ("exit-at-once", (), PATIENT, "crash", None, "exited with status 2"),
        ("exit", ("--after", "2"), PATIENT, "crash", None, "exited with status 3"),
        ("hang", (), 1.0, "timeout", None, "no reply within 1 s"),
        ("slow", ("--delay", "4"), 1.0, "timeout", None, "no reply"),
        ("huge-line", (), PATIENT, "fail", "protocol", "oversized reply"),
        ("binary", ("--after", "1"), PATIENT, "fail", "protocol", "garbage"),
        ("not-json", (), PATIENT, "fail", "protocol", "not JSON"),
        ("wrong-id", ("--after", "0"), PATIENT, "fail", "protocol", "wrong id"),
        ("lie", (), PATIENT, "fail", "protocol", "reply needs `events`"),
        ("refuse", ("--after", "1"), PATIENT, "error", None, "not today"),
        ("fork-hang", (), PATIENT, "crash", None, "still holds its output open"),
    ],
)
def test_a_misbehaving_engine_is_classified_and_the_run_goes_on(mode, extra, timeout, outcome, cls, words):
    """Each misbehaviour gets its outcome, every case is still run, the run ends in bounded
    time, and no process of the engine is left behind."""
    report, seconds, recording = run_fake(mode, *extra, timeout=timeout)
    assert [r.outcome for r in report.results] == [outcome, outcome]
    assert all(r.cls == cls for r in report.results)
    assert words in report.results[0].message, report.results[0].message
    assert not report.ok
    # Bounded: well under two patient timeouts (an engine that hangs or floods would take them).
    assert seconds < 30, f"{mode}: {seconds:.1f} s"
    for pgid in recording.pgids:
        assert wait_gone(group_alive, pgid), f"{mode}: process group {pgid} left behind"


def test_a_crash_mid_hand_shows_the_events_before_it():
    """A crash after some plays reports where: the last events the engine produced."""
    report, _, _ = run_fake("exit", "--after", "2")
    result = report.results[0]
    assert result.index and result.index > 3 and result.context[-1]["event"] == "legal"
    text = render_text(report)
    assert "last events before it:" in text and "replay: escoba conformance --case" in text


def test_the_child_that_keeps_stdout_open_is_killed(tmp_path):
    """A grandchild that inherits stdout and hangs is killed with the engine's process group."""
    pidfile = tmp_path / "child.pid"
    report, seconds, _ = run_fake("fork-hang", "--pidfile", str(pidfile), entries=two_player_games()[:1])
    child = int(pidfile.read_text())
    assert report.results[0].outcome == "crash"
    assert wait_gone(alive, child), "the engine's child is still running"
    assert seconds < 15  # a crash, noticed long before the patient timeout


def test_an_engine_that_never_starts_is_not_restarted_forever():
    """After three failed handshakes in a row the remaining cases are not run, and say so."""
    entries = list(two_player_games()) + [three_player_game()]
    report, _, _recording = run_fake("exit-at-once", entries=entries)
    assert [r.outcome for r in report.results] == ["crash"] * 4
    assert report.results[3].message.startswith("not run: the engine failed to start 3 times")


def test_a_crash_after_the_divergence_does_not_hide_it():
    """Requests are pipelined; an engine that diverges and later dies on a request the case no
    longer needs is reported at its divergence, and a fresh engine runs the next case."""
    report, _, recording = run_fake("diverge-exit", "--after", "3")
    assert [(r.outcome, r.cls) for r in report.results] == [("fail", "legal-moves")] * 2
    assert len(recording.pgids) == 2  # the dead engine was replaced


def test_pipelined_requests_never_deadlock_on_full_pipes():
    """Thousands of requests written at once while the engine's replies fill the other pipe:
    the session reads as it writes, so neither side waits for the other forever."""
    session = SubprocessSession([sys.executable, "-m", "escoba", "engine"], timeout=20)
    try:
        replies = list(session.exchange([Legal()] * 4000))  # ~100 KB out, ~450 KB back
    finally:
        session.close()
    assert len(replies) == 4000 and all(r.kind == "bad_state" for r in replies)  # type: ignore[attr-defined]


def test_stderr_floods_do_not_block_and_are_kept_short():
    """An engine writing megabytes to stderr still passes; the report keeps only a tail."""
    report, seconds, _ = run_fake("stderr-flood", "--flood", "8", timeout=10)
    assert [r.outcome for r in report.results] == ["pass", "pass"]
    assert seconds < 20


def test_undeclared_features_make_a_case_unsupported():
    """A case needing three players is unsupported for an engine that declares only two."""
    entries = [two_player_games()[0], three_player_game()]
    report, _, _ = run_fake("two-players", entries=entries, timeout=10)
    assert [r.outcome for r in report.results] == ["pass", "unsupported"]
    assert report.results[1].missing == ["players:3"]


# ------------------------------------------------------------------------------ in-process runs
def test_the_reference_engine_passes_the_whole_suite_in_process():
    """Every bundled case passes against the reference engine (the goldens are its output)."""
    report = Runner(InProcessSession).run(bundled())
    failing = [(r.id, r.outcome, r.message) for r in report.results if r.outcome != "pass"]
    assert not failing
    assert report.ok


class SilentEscobas(ReferenceEngine):
    """No escoba is ever announced (or counted)."""

    def play_events(self, hand, move):  # type: ignore[no-untyped-def]
        events = super().play_events(hand, move)
        return [e for e in events if e["event"] != "escoba"]


def escoba_case() -> Entry:
    for entry in bundled():
        if entry.case.kind == "game" and any(e["event"] == "escoba" for e in entry.case.expect):
            return entry
    raise AssertionError("no bundled case has an escoba")


def test_a_divergence_is_reported_at_its_first_event_with_context_diff_and_class():
    """The first differing event, the matching ones before it, a diff and the class are reported."""
    entry = escoba_case()
    connect = lambda: InProcessSession(SilentEscobas)
    report = Runner(connect, replay=lambda c: f"escoba conformance --case {c}").run([entry])
    result = report.results[0]
    assert result.outcome == "fail" and result.cls == "escoba"
    d = result.divergence
    assert d is not None and d.expected["event"] == "escoba" and d.context and len(d.context) <= 3
    assert result.index == d.index == next(i for i, e in enumerate(entry.case.expect) if e["event"] == "escoba")
    text = render_text(report)
    for words in ("class: escoba", "matching events before it:", f"expected #{d.index}: escoba",
                  f"rule clause: {entry.case.clause}", f"replay: escoba conformance --case {entry.id}"):  # fmt: skip
        assert words in text
    assert f"`{entry.id}`" in render_markdown(report)
    document = to_json(report)
    assert not list(report_schema().iter_errors(document))
    assert document["cases"][0]["divergence"]["class"] == "escoba"


def test_an_unexpected_refusal_is_an_error_not_a_failure():
    """`ok: false` to a request of the case, with nothing diverging before it, is `error`."""

    class Refuses(ReferenceEngine):
        def _cmd_legal(self, request):  # type: ignore[no-untyped-def]
            from escoba.protocol.server import Refused

            raise Refused("internal", "legal is broken")

    report = Runner(lambda: InProcessSession(Refuses)).run([two_player_games()[0]])
    result = report.results[0]
    assert result.outcome == "error" and "legal is broken" in result.message and result.index > 0


def test_refusing_start_as_unsupported_counts_as_unsupported():
    """An engine may refuse `start` with kind `unsupported` (a ruleset beyond it)."""

    class Picky(ReferenceEngine):
        def _cmd_start(self, request):  # type: ignore[no-untyped-def]
            from escoba.protocol.server import Refused

            raise Refused("unsupported", "no measure language here")

    report = Runner(lambda: InProcessSession(Picky)).run([two_player_games()[0]])
    assert report.results[0].outcome == "unsupported"


def write_case(folder: Path, data: dict) -> Path:
    path = folder / f"{data['id']}.json"
    path.write_text(dump_case(fill(data)), encoding="utf-8")
    return path


def probe_data(reason: str = "compulsory") -> dict:
    """A German (compulsory, hand level) deal where placing a card is refused."""
    from escoba import load_ruleset

    codes = list(load_ruleset("de").deck.code)
    random.Random(2).shuffle(codes)  # this deal offers a capture on the first play
    return {
        "format": 1, "id": f"probe.test.{reason}", "title": "placing where a capture is compulsory",
        "kind": "probe", "ruleset": "de", "players": 2, "dealer": 0, "target": None,
        "clause": "capture.compulsory", "audit": "hand", "pins": [],
        "hands": [{"decks": [codes], "moves": []}], "probe": {"move": None, "reason": reason}, "expect": [],
    }  # fmt: skip


def test_probes_pass_on_the_right_reason_and_fail_on_acceptance(tmp_path):
    """A probe passes when its move is refused with the right reason; an engine that accepts
    the illegal move (or names another reason) fails it, class legal-moves."""
    from escoba.engine.hand import Hand

    data = probe_data()
    engine = ReferenceEngine()
    engine.handle({"id": 1, "cmd": "start", "ruleset": load_resolved("de").doc, "players": 2, "dealer": 0,
                   "decks": data["hands"][0]["decks"], "target": None})  # fmt: skip
    hand: Hand = engine.hand  # type: ignore[assignment]
    assert any(m.take for m in hand.legal_moves())  # so placing any card breaks the compulsory capture
    data["probe"]["move"] = hand.rules.deck.code[hand.hands[hand.to_play][0]]
    write_case(tmp_path, data)
    entries = collect(tmp_path)
    assert entries[0].case.kind == "probe"
    assert Runner(InProcessSession).run(entries).results[0].outcome == "pass"

    class Lenient(ReferenceEngine):
        def adjust_rules(self, rules):  # type: ignore[no-untyped-def]
            import dataclasses

            return dataclasses.replace(rules, compulsory="optional")

    result = Runner(lambda: InProcessSession(Lenient)).run(entries).results[0]
    assert result.outcome == "fail" and result.cls == "legal-moves"


@cache
def mid_game_probes() -> Entry:
    """A bundled game with probes among its moves (docs/transcripts.md, format 2)."""
    return next(e for e in bundled() if e.id == "probe.mid-game.base")


def test_a_probe_among_the_moves_is_followed_by_state_and_legal():
    """The runner sends each probe among the moves, then `state`, then `legal`, and compares
    the refusal, the state's four fields and the legal moves; the reference passes."""
    case = mid_game_probes().case
    kinds = [e["event"] for e in case.expect]
    first = kinds.index("rejected")
    assert kinds[first - 1 : first + 3] == ["legal", "rejected", "state", "legal"]
    assert set(next(e for e in case.expect if e["event"] == "state")) == {"event", "to_play", "hands", "table", "piles"}
    assert Runner(InProcessSession).run([mid_game_probes()]).results[0].outcome == "pass"


def test_a_state_is_compared_on_its_four_fields_in_any_card_order():
    """An engine may list the cards of its `state` in any order and add fields of its own."""
    import random as rand

    class Shuffles(ReferenceEngine):
        def _cmd_state(self, request):  # type: ignore[no-untyped-def]
            state = dict(super()._cmd_state(request)["state"])
            rng = rand.Random(7)
            for key in ("hands", "piles"):
                state[key] = [rng.sample(cards, len(cards)) for cards in state[key]]
            state["table"] = rng.sample(state["table"], len(state["table"]))
            return {"state": {**state, "mine": "anything"}}

    assert Runner(lambda: InProcessSession(Shuffles)).run([mid_game_probes()]).results[0].outcome == "pass"


def test_a_refusal_that_changes_the_state_fails_at_the_state():
    """A refused move that still takes the card out of the hand fails the case at the `state`
    right after it (class legal-moves, rule point common.refusals)."""
    from escoba.protocol.server import Refused

    class Leaky(ReferenceEngine):
        def _cmd_play(self, request):  # type: ignore[no-untyped-def]
            try:
                return super()._cmd_play(request)
            except Refused:
                hand, card = self.hand, self._code.get(request["move"].get("card"))
                if hand is not None and hand.to_play is not None and card in hand.hands[hand.to_play]:
                    hand.hands[hand.to_play].remove(card)
                    hand._legal = None
                raise

    result = Runner(lambda: InProcessSession(Leaky)).run([mid_game_probes()]).results[0]
    assert (result.outcome, result.cls) == ("fail", "legal-moves")
    assert result.divergence.expected["event"] == "state" and result.divergence.point == "common.refusals"


def test_an_engine_without_state_errs_on_a_case_with_probes_among_the_moves():
    """`state` is a request of such a case: refusing it is an `error`, not a pass."""
    from escoba.protocol.server import Refused

    class NoState(ReferenceEngine):
        def _cmd_state(self, request):  # type: ignore[no-untyped-def]
            raise Refused("unknown_command", "unknown command 'state'")

    result = Runner(lambda: InProcessSession(NoState)).run([mid_game_probes()]).results[0]
    assert result.outcome == "error" and "state after the probe" in result.message


def test_a_broken_case_is_reported_and_the_others_still_run(tmp_path):
    """A case file that does not load is `broken-case`; the good ones still run."""
    good = two_player_games()[0]
    (tmp_path / f"{good.id}.json").write_text(good.case.path.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "broken.one.json").write_text('{"format": 1, "id": "broken.one"', encoding="utf-8")
    report = Runner(InProcessSession).run(collect(tmp_path))
    outcomes = {r.id: r.outcome for r in report.results}
    assert outcomes == {"broken.one": "broken-case", good.id: "pass"}
    assert "not JSON" in next(r.message for r in report.results if r.id == "broken.one")


# ------------------------------------------------------------------------------ comparison
def test_reason_fields_are_never_compared():
    """Free-text `reason` fields may differ anywhere; every other field must match exactly."""
    assert same({"event": "score", "points": [1, 0], "reason": "a"}, {"event": "score", "points": [1, 0], "reason": "b"})
    assert same({"event": "match_end", "reason": "x"}, {"event": "match_end"})
    assert not same({"points": [1, 0]}, {"points": [0, 1]})
    assert not same({"scores": True}, {"scores": 1})
    assert not same({"a": 1}, {"a": 1, "b": 2})


@pytest.mark.parametrize(
    "expected, observed, cls",
    [
        ({"event": "legal", "moves": []}, {"event": "legal", "moves": [1]}, "legal-moves"),
        ({"event": "deal", "hands": []}, {"event": "deal", "hands": [[]]}, "deal"),
        ({"event": "hand_start", "leader": 1}, {"event": "hand_start", "leader": 0}, "deal"),
        ({"event": "opening", "escobas": 2}, {"event": "opening", "escobas": 1}, "opening-table"),
        ({"event": "escoba"}, {"event": "legal"}, "escoba"),
        ({"event": "legal"}, {"event": "escoba"}, "escoba"),
        ({"event": "leftovers", "side": 0}, {"event": "leftovers", "side": 1}, "leftovers"),
        ({"event": "leftovers"}, {"event": "score"}, "leftovers"),
        ({"event": "score", "category": "primera"}, {"event": "score", "category": "primera", "points": 1}, "scoring:primera"),
        ({"event": "hand_end", "points": [1]}, {"event": "hand_end", "points": [2]}, "hand-score"),
        ({"event": "match_end"}, {"event": "hand_start"}, "match-end"),
        ({"event": "totals"}, None, "match-end"),
        ({"event": "rejected", "rule": "compulsory"}, {"event": "play"}, "legal-moves"),
        ({"event": "perft", "count": 1}, {"event": "perft", "count": 2}, "legal-moves"),
    ],
)
def test_divergence_classes_name_the_rule(expected, observed, cls):
    """The class follows the event where the difference shows (an appearing or vanishing
    escoba, leftovers, opening or match end names its own rule)."""
    assert classify(expected, observed) == cls


def test_first_divergence_of_legal_moves_lists_missing_and_extra_moves():
    """A legal-move set is diffed as missing and extra moves, not position by position."""
    a = {"card": "7d", "take": ["3c", "5h"]}
    b = {"card": "7d", "take": ["Sc"]}
    c = {"card": "Rd", "take": []}
    d = first_divergence(
        [{"event": "hand_start"}, {"event": "legal", "seat": 0, "moves": [a, b]}],
        [{"event": "hand_start"}, {"event": "legal", "seat": 0, "moves": [a, c]}],
    )
    assert d is not None and d.index == 1 and d.cls == "legal-moves"
    assert d.diff[0].path == "$.moves" and d.diff[0].note == "missing 7d x Sc; extra Rd"
    same_set = first_divergence([{"event": "legal", "moves": [a, b]}], [{"event": "legal", "moves": [b, a]}])
    assert same_set is not None and same_set.diff[0].note == "same items in another order"
    short = first_divergence([{"event": "a"}, {"event": "b"}], [{"event": "a"}])
    assert short is not None and short.index == 1 and short.observed is None


# ------------------------------------------------------------------------------ expectations
def test_a_pinned_failure_is_xfail_and_a_different_one_is_new():
    """A failure as pinned keeps the run green; the same case failing differently is NEW."""
    entry = escoba_case()
    connect = lambda: InProcessSession(SilentEscobas)
    index = next(i for i, e in enumerate(entry.case.expect) if e["event"] == "escoba")
    pinned = Runner(connect, expectations=expectations.parse({"cases": {entry.id: {"outcome": "fail", "class": "escoba", "index": index}}})).run([entry])
    assert pinned.results[0].outcome == "xfail" and pinned.ok
    moved = Runner(connect, expectations=expectations.parse({"cases": {entry.id: {"outcome": "fail", "class": "capture"}}})).run([entry])
    assert moved.results[0].outcome == "fail" and moved.results[0].new and not moved.ok
    assert "NEW: pinned as fail (capture), now fail (escoba at event" in moved.results[0].note
    fixed = Runner(InProcessSession, expectations=expectations.parse({"cases": {entry.id: "fail"}})).run([entry])
    assert fixed.results[0].outcome == "pass" and fixed.ok and "remove the pin" in fixed.results[0].note


@pytest.mark.parametrize(
    "data, words",
    [
        ([], "a mapping"),
        ({"format": 2}, "unknown format 2"),
        ({"cases": {"x": {"outcome": "pass"}}}, "'pass' is not one of"),
        ({"cases": {"x": {"outcome": "fail", "index": -1}}}, "an event index"),
        ({"cases": {"x": {"outcome": "fail", "colour": "red"}}}, "unknown key 'colour'"),
        ({"cases": [1]}, "a mapping from case id"),
        ({"engine": "x", "extra": 1}, "unknown key 'extra'"),
    ],
)
def test_expectations_files_are_checked(data, words):
    """A malformed expectations file is refused with the place and the problem."""
    with pytest.raises(expectations.ExpectationsError, match=words):
        expectations.parse(data, "known.yaml")


def test_expectations_round_trip_through_yaml_and_json(tmp_path):
    """A written expectations file reads back to the same pins."""
    pins = {"a.b": expectations.Expectation("fail", "capture", 12, "known"), "c": expectations.Expectation("unsupported")}
    for name in ("known.yaml", "known.json"):
        path = tmp_path / name
        path.write_text(expectations.dump(pins, "my-engine", as_json=name.endswith(".json")), encoding="utf-8")
        assert expectations.load(path) == pins


# ------------------------------------------------------------------------------ the command
def test_cli_reference_run_exits_0_with_a_valid_json_report(capsys):
    """`escoba conformance --case ID --format json` runs the subprocess reference and exits 0."""
    ids = [e.id for e in two_player_games()[:2]]
    assert main(["conformance", *(arg for i in ids for arg in ("--case", i)), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert not list(report_schema().iter_errors(report))
    assert report["ok"] and report["summary"]["pass"] == 2 and report["engine"]["name"] == "escoba-reference"


def test_cli_failing_engine_exits_1_and_writes_then_honours_expectations(tmp_path, capsys):
    """A failing engine exits 1; pinning its failures with --write-expectations makes the same
    run exit 0 with --expectations."""
    engine = f"{shlex.quote(sys.executable)} {shlex.quote(str(FAKE))} refuse --after 1"
    case = two_player_games()[0].id
    pins = tmp_path / "known.yaml"
    assert main(["conformance", "--engine", engine, "--case", case, "--write-expectations", str(pins)]) == 1
    out = capsys.readouterr().out
    assert "ERROR" in out and f"--case {case}" in out
    assert main(["conformance", "--engine", engine, "--case", case, "--expectations", str(pins)]) == 0
    assert "XFAIL" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--ruleset", "xx"], "unknown ruleset 'xx'"),
        (["--case", "no.such.case*"], "no case matches"),
        (["--engine", "'"], "--engine"),
        (["--timeout", "0"], "--timeout"),
        (["--expectations", "/nonexistent/known.yaml"], "cannot read expectations"),
    ],
)
def test_cli_usage_errors_exit_2(argv, words, capsys):
    """Bad arguments exit 2 with one line naming the problem."""
    assert main(["conformance", *argv]) == 2
    assert words in capsys.readouterr().err


def test_cli_list_shows_cases_and_their_features(capsys):
    """`--list` names each selected case with the features it needs, and runs nothing."""
    assert main(["conformance", "--list", "--ruleset", "sv", "--case", "sv.*"]) == 0
    out = capsys.readouterr().out
    assert "table_first" in out and "leader:dealer_left" in out and out.rstrip().endswith("cases")


def test_the_documented_minimal_engine_passes_what_it_declares():
    """docs/examples/minimal_engine.py, run as the docs say, passes every case it declares the
    features for and is `unsupported` on the rest: the walkthrough stays true."""
    example = HERE.parent / "docs" / "examples" / "minimal_engine.py"
    argv = [sys.executable, str(example)]
    report = Runner(lambda: SubprocessSession(argv, timeout=20)).run([e for e in bundled() if e.ruleset in ("fr", "base")])
    outcomes = {r.outcome for r in report.results}
    assert outcomes <= {"pass", "unsupported"}, [(r.id, r.outcome, r.message) for r in report.results if r.outcome not in ("pass", "unsupported")]
    assert "pass" in outcomes and report.engine.name == "minimal-engine"
