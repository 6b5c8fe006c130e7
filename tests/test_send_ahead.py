"""The next case's line is sent while this one's replies are read (Runner.run with one
session; SubprocessSession.send_ahead): the engine reads the same lines in the same order as
when the runner waits for each case, and works meanwhile instead of waiting."""

from __future__ import annotations

import os
import shlex
import sys
import time
from collections.abc import Iterator, Sequence
from itertools import pairwise
from pathlib import Path

import pytest

from escoba.conformance.runner import Entry, Runner, collect
from escoba.protocol.client import InProcessSession, SubprocessSession
from escoba.protocol.messages import Hello, HelloReply, Legal, Reply, Request

HERE = Path(__file__).parent
FAKE = HERE / "engines" / "fake_engine.py"
ENGINE = [sys.executable, "-m", "escoba", "engine"]


def some_cases() -> list[Entry]:
    """Games, a probe (refused, then `state`), a match (`next_hand`) and a perft case (a walk
    of its own after its line), in the suite's order."""
    entries = collect(patterns=["opening.*", "probe.wrong-sum.*", "match.*", "perft.fr.*", "capture.*"])
    kinds = {e.case.kind for e in entries} | {"match" for e in entries if e.case.target is not None}
    assert {"game", "probe", "perft", "match"} <= kinds and len(entries) > 20
    return entries


def test_the_engine_reads_the_same_lines_as_when_the_runner_waits_for_each_case(tmp_path: Path) -> None:
    entries = some_cases()

    def teed(name: str):  # type: ignore[no-untyped-def]
        """The reference engine behind `tee`: what it read, byte for byte."""
        log = tmp_path / name
        argv = ["sh", "-c", f'tee "$0" | exec {shlex.join(ENGINE)}', str(log)]
        return log, lambda: SubprocessSession(argv, timeout=30)

    ahead_log, connect = teed("ahead.jsonl")
    ahead = Runner(connect).run(entries)  # one session: each case sent ahead
    waited_log, connect = teed("waited.jsonl")
    runner = Runner(connect)
    try:
        waited = [runner.run_one(entry) for entry in entries]  # no case sent ahead
    finally:
        runner.close()
    assert [r.outcome for r in ahead.results] == [r.outcome for r in waited] == ["pass"] * len(entries)
    sent = ahead_log.read_bytes()
    assert sent.count(b'"cmd":"start"') > len(entries)  # the perft walk's replays are in it
    assert sent == waited_log.read_bytes()


class _Watched:
    """A session that tells what the runner did, in order: an exchange (by its requests'
    object), a line sent ahead, a reply read."""

    def __init__(self, log: list[tuple[str, int]]):
        self.inner, self.log = InProcessSession(), log
        self.hello = self.inner.hello

    def exchange(self, requests: Sequence[Request]) -> Iterator[Reply]:
        self.log.append(("exchange", id(requests)))  # when called, not when first read
        return self._replies(requests)

    def _replies(self, requests: Sequence[Request]) -> Iterator[Reply]:
        for reply in self.inner.exchange(requests):
            self.log.append(("reply", id(requests)))
            yield reply

    def send_ahead(self, requests: Sequence[Request]) -> None:
        self.log.append(("ahead", id(requests)))

    def request(self, request: Request) -> Reply:
        return next(self.exchange([request]))

    def drain(self, raise_failure: bool = False) -> None:
        return None

    def close(self) -> None:
        pass

    def stderr_tail(self) -> str:
        return ""


def test_each_case_is_sent_before_the_replies_to_the_one_before_are_read() -> None:
    entries = [e for e in some_cases() if e.case.kind != "perft"][:6]
    log: list[tuple[str, int]] = []
    report = Runner(lambda: _Watched(log)).run(entries)  # type: ignore[arg-type, return-value]
    assert [r.outcome for r in report.results] == ["pass"] * len(entries)
    exchanges = [i for i, (what, _) in enumerate(log) if what == "exchange"]
    assert len(exchanges) == len(entries)
    for before, this in pairwise(exchanges):
        sent = [i for i, (what, _) in enumerate(log) if what == "ahead" and log[i][1] == log[this][1]]
        # The case's own requests, sent ahead right after the previous case's were written and
        # before any of its replies was read; its exchange then takes them as they are.
        assert sent == [before + 1]


def test_a_line_sent_ahead_larger_than_the_pipes_is_written_while_replies_are_read() -> None:
    session = SubprocessSession(ENGINE, timeout=20)
    try:
        first = [Legal()] * 10
        pending = session.exchange(first)
        second = [Legal()] * 4000  # ~100 KB: more than a pipe holds, written as the engine reads
        session.send_ahead(second)
        assert len(list(pending)) == 10
        replies = list(session.exchange(second))
    finally:
        session.close()
    assert len(replies) == 4000 and all(r.kind == "bad_state" for r in replies)  # type: ignore[attr-defined]


def test_requests_sent_ahead_for_nothing_have_their_replies_dropped() -> None:
    session = SubprocessSession(ENGINE, timeout=20)
    try:
        session.send_ahead([Legal()] * 500)
        replies = list(session.exchange([Hello()]))  # another exchange comes first
    finally:
        session.close()
    assert len(replies) == 1 and isinstance(replies[0], HelloReply)


def test_a_run_stopped_with_a_case_sent_ahead_ends_at_once_and_leaves_nothing() -> None:
    """`-x`: the case sent ahead is not run; the engine is killed without being asked to quit
    (its replies to the unread requests would come first)."""
    entries = [e for e in some_cases() if e.case.kind == "game"][:3]
    pids: list[int] = []

    def connect() -> SubprocessSession:
        # The first legal moves listed in reverse: the first case fails.
        session = SubprocessSession([sys.executable, str(FAKE), "diverge-exit", "--after", "1000"], timeout=20)
        pids.append(session.pid)
        return session

    began = time.monotonic()
    report = Runner(connect).run(entries, first_failure=True)
    assert [r.outcome for r in report.results] == ["fail"]
    assert time.monotonic() - began < 15  # no reply timeout waited out (they are 20 s here)
    assert len(pids) == 1
    with pytest.raises(ProcessLookupError):  # the engine's process group is gone (and reaped)
        os.killpg(pids[0], 0)
