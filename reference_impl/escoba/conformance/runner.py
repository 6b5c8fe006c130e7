"""Run golden cases against an engine and give each one outcome.

Outcomes:
- `pass`: the observed events are the expected ones;
- `fail`: they differ (the first divergence and its class explain how; every later one is
  listed too, each with its rule point), or the engine broke the protocol (class `protocol`:
  garbage, a wrong id, an oversized line, a malformed reply);
- `xfail`: a failure exactly as the expectations file pins it;
- `unsupported`: the case needs a feature the engine did not declare (or the engine refused
  `start` with `error.kind: "unsupported"`). A skip: it fails the run only under `strict`;
- `error`: the engine refused a request of the case (`ok: false`) with nothing diverging before;
- `crash`, `timeout`: the engine process exited, or did not answer in time;
- `broken-case`: the case itself does not load (a `TranscriptError`), whatever the engine.

The runner survives its engine: after a crash, a timeout or a protocol failure the engine is
killed (its whole process group) and a fresh one is started for the next case. An engine that
cannot even complete the handshake three times in a row is not started again; the remaining
cases get that failure.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache, partial
from typing import Any

from escoba import processes
from escoba.conformance.attribute import common_exercised, consolidate
from escoba.conformance.compare import (
    Divergence,
    all_divergences,
    chunks,
    first_divergence,
    measure_note,
)
from escoba.conformance.declared import DeclaredRules
from escoba.conformance.driver import Plan, line_steps, prepare, run_case
from escoba.conformance.expectations import Expectation
from escoba.conformance.scenario import Skip, scenario_plan
from escoba.errors import TranscriptError
from escoba.protocol.client import Session
from escoba.protocol.features import Declared, declared_by
from escoba.protocol.messages import EngineFailure, HelloReply

OUTCOMES = ("pass", "fail", "xfail", "unsupported", "error", "crash", "timeout", "broken-case")
MAX_START_FAILURES = 3


@dataclass
class Entry:
    """A case file as found: the loaded case, or why it does not load. One collected `lazy` is
    loaded when first needed (`load`), or beforehand by `preload`."""

    id: str
    case: Any = None  # escoba.transcript.Case
    problem: TranscriptError | None = None
    ruleset: str | None = None
    path: Any = None  # the case file, while it is not loaded (collect's `lazy`)
    schema: bool = False  # checked against the JSON Schema when loaded

    def load(self) -> Entry:
        """This entry with its case loaded (or its problem found), if it was not yet."""
        if self.path is not None:
            with _LOADING:
                if self.path is not None:  # (not loaded meanwhile by `preload`)
                    self.case, self.problem, self.ruleset = _load(self.path, self.schema)
                    self.path = None
        return self


# One case loads at a time: the loader's caches (rulesets, verdicts) are not shared between
# threads otherwise, and the GIL would run them one at a time anyway.
_LOADING = threading.Lock()


def preload(entries: Sequence[Entry], done: Callable[[], object] = lambda: None) -> threading.Thread:
    """Load the entries in order in a thread of their own, then call `done`: while a run's first
    cases go to the engine, the next ones load (a run with one session waits on its engine most
    of the time). A case the runner reaches first it loads itself."""

    def work() -> None:
        try:
            for entry in entries:
                entry.load()
        except Exception:  # a loader bug: the runner meets it again loading the case itself, and says so
            pass
        finally:
            done()

    thread = threading.Thread(target=work, name="escoba-preload", daemon=True)
    thread.start()
    return thread


@dataclass
class CaseResult:
    id: str
    outcome: str
    observed: str  # the outcome before the expectations file was applied
    title: str = ""
    kind: str = ""
    ruleset: str = ""
    clause: str = ""
    cls: str | None = None  # divergence class (fail, xfail)
    index: int | None = None  # index of the first divergent event
    message: str = ""
    divergence: Divergence | None = None
    context: list[dict] = field(default_factory=list)  # last events before a crash or refusal
    missing: list[str] = field(default_factory=list)  # unsupported: features not declared
    stderr: str = ""
    seconds: float = 0.0
    requests: int = 0
    pin: Expectation | None = None
    new: bool = False  # pinned, but failing differently: a new failure
    note: str = ""
    replay: str = ""
    divergences: list[Divergence] = field(default_factory=list)  # every one, each with its rule point
    notes: list[str] = field(default_factory=list)  # measure differences not compared, ...
    requires: list[str] = field(default_factory=list)  # the features the case needs
    common: list[str] = field(default_factory=list)  # the common rule points it exercises
    complete: bool = False  # the case ran to its end: what did not diverge agreed
    case: Any = field(default=None, repr=False, compare=False)
    events: list[dict] = field(default_factory=list, repr=False, compare=False)  # what the engine said
    doc: Any = field(default=None, repr=False, compare=False)  # the ruleset it was judged under (the declared rules, or the case's)
    scenario: Any = field(default=None, repr=False, compare=False)  # a scenario under declared rules (conformance/scenario.py)
    evidence: Any = field(default=None, repr=False, compare=False)  # its judged replies, until the run's explanations are checked

    @property
    def as_expected(self) -> bool:
        """Passed, or failed as pinned; a skip (`unsupported`) is judged by the run (`strict`)."""
        return self.outcome in ("pass", "xfail")

    @property
    def ran(self) -> bool:
        return self.outcome not in ("unsupported", "broken-case")


@dataclass
class EngineInfo:
    command: str
    name: str = ""
    version: str = ""
    features: list[str] = field(default_factory=list)
    rules: str | None = None  # the rules its hello declares


@dataclass
class RunReport:
    engine: EngineInfo
    results: list[CaseResult]
    seconds: float
    warnings: list[str] = field(default_factory=list)
    strict: bool = False  # an unpinned `unsupported` fails the run
    declared: Any = None  # the engine's features (escoba.protocol.features.Declared), once it said hello
    rules: Any = None  # the rules it declares it plays (conformance/declared.py), when it does
    _bugs: list[Any] | None = field(default=None, repr=False)

    def accepted(self, r: CaseResult) -> bool:
        """Does this result keep the run green?"""
        return _accepted(r, self.strict)

    @property
    def ok(self) -> bool:
        """Nothing failed, and at least one case ran (a run of skips proves nothing)."""
        return all(self.accepted(r) for r in self.results) and self.ran > 0

    @property
    def ran(self) -> int:
        return sum(r.ran for r in self.results)

    def profile(self) -> list[Any]:
        """The rules profile (escoba.conformance.profile)."""
        from escoba.conformance.profile import build_profile

        return build_profile(self.results, self.declared)

    def bugs(self) -> list[Any]:
        """The engine's bugs: each kind of departure, with its cases (escoba.conformance.bugs)."""
        if self._bugs is None:
            from escoba.conformance.bugs import find_bugs

            self._bugs = find_bugs(self.results)
        return self._bugs

    def variant(self) -> Any:
        """The declared rules next to the regional rulesets (escoba.conformance.variant); None
        for an engine that declares no rules."""
        if self.rules is None:
            return None
        from escoba.conformance.variant import variant_of

        return variant_of(self.rules, self.bugs())

    def why_nothing_ran(self) -> str | None:
        """One sentence saying why no case ran (None when some did)."""
        if self.ran:
            return None
        return nothing_ran(self.results)

    def counts(self) -> dict[str, int]:
        counts = {o: 0 for o in OUTCOMES}
        for r in self.results:
            counts[r.outcome] += 1
        return counts


class Runner:
    def __init__(
        self,
        connect: Callable[[], Session],
        *,
        command: str = "",
        expectations: Mapping[str, Expectation] | None = None,
        replay: Callable[[str], str] = lambda case_id: "",
        on_result: Callable[[int, int, CaseResult], None] | None = None,
        on_start: Callable[[int, int, str], None] | None = None,
        stop_at_divergence: bool = False,
        strict: bool = False,
        sent: Mapping[str, Any] | None = None,
        rules: DeclaredRules | None = None,
    ):
        # sent: the ruleset document every `start` carries instead of each case's own (escoba
        # identify asks what an engine plays when it is sent one ruleset; the cases expect another).
        # rules: the rules the engine declares it plays (conformance/declared.py): every case is
        # then a scenario under them (conformance/scenario.py).
        self.connect, self.command = connect, command
        self.rules = rules
        self.expectations = dict(expectations or {})
        self.replay, self.on_result, self.on_start = replay, on_result, on_start
        self.stop_at_divergence, self.strict = stop_at_divergence, strict
        self.sent = sent
        self.session: Session | None = None
        self.hello: HelloReply | None = None
        self._start_failures = 0
        self._given_up: EngineFailure | None = None
        self._ahead: tuple[Entry, Plan | Skip] | None = None  # the case sent ahead (`_send_ahead`)

    # ------------------------------------------------------------------ the run
    def run(
        self, entries: Iterable[Entry], *, first_failure: bool = False, maxfail: int | None = None, jobs: int = 1
    ) -> RunReport:
        """Every case in order; `first_failure` stops after the first result that is not as
        expected (a skip included), `maxfail` after that many failures (skips only under `strict`).

        With `jobs` above 1, that many sessions, each with an engine of its own, take the cases
        in turn side by side (a thread each: the engines work in their own processes while the
        runner reads another's replies); the results keep the cases' order. A stop (`maxfail`)
        starts no new case, and the cases already running finish."""
        entries = list(entries)
        began = time.monotonic()
        runners = [self, *(self._sibling() for _ in range(min(jobs, len(entries)) - 1))]
        turns = _Turns(self, entries, first_failure, maxfail)
        try:
            if len(runners) == 1:
                turns.take(self, ahead=True)
            else:
                turns.side_by_side(runners)
        finally:
            for runner in runners:
                runner.close()
        info = EngineInfo(self.command)
        declared = None
        hello = next((r.hello for r in runners if r.hello is not None), None)
        warnings = list(turns.warnings)
        if hello is not None:
            info = EngineInfo(self.command, hello.name, hello.version, sorted(hello.features), hello.rules)
            declared = self.declared_for(hello)
            if self.rules is not None:
                from escoba.conformance.declared import contradictions

                said = contradictions(self.rules, hello.features)
                if said:
                    warnings.insert(0, said)
        results = [r for r in turns.results if r is not None]
        consolidate(results)
        return RunReport(info, results, time.monotonic() - began, warnings, strict=self.strict, declared=declared, rules=self.rules)

    def declared_for(self, hello: HelloReply) -> Declared:
        """What the engine is taken to support: its declared rules' features, or its own list."""
        if self.rules is None:
            return declared_by(hello.features)
        return _declared_features(self.rules, hello.features)

    def _sibling(self) -> Runner:
        """A runner like this one, with a session of its own (`run` with `jobs`)."""
        return Runner(
            self.connect, command=self.command, expectations=self.expectations, replay=self.replay,
            stop_at_divergence=self.stop_at_divergence, strict=self.strict, sent=self.sent, rules=self.rules,
        )  # fmt: skip

    def _accepted(self, r: CaseResult) -> bool:
        return _accepted(r, self.strict)

    def run_one(self, entry: Entry, following: Entry | None = None) -> CaseResult:
        """One case's result. With `following`, the case to be run next, that case's requests
        are sent as soon as this one's are written (see `_send_ahead`)."""
        began = time.monotonic()
        result = self._outcome(entry, following)
        if result.outcome not in ("pass", "unsupported", "broken-case"):
            result = self._unless_broken(entry, result)
        result.seconds = time.monotonic() - began
        result.replay = self.replay(entry.id)
        self._apply_pin(result)
        return result

    def open(self) -> HelloReply:
        """Start the engine now, if it is not running (an `EngineFailure` if it cannot): its hello."""
        return self._session().hello

    def close(self) -> None:
        if self.session is not None:
            session, self.session = self.session, None
            session.close()

    # ------------------------------------------------------------------ one case
    def _outcome(self, entry: Entry, following: Entry | None = None) -> CaseResult:
        case = entry.load().case
        ahead, self._ahead = self._ahead, None
        if entry.problem is not None or case is None:
            return CaseResult(entry.id, "broken-case", "broken-case", ruleset=entry.ruleset or "", message=str(entry.problem))
        base: dict[str, Any] = dict(title=case.title, kind=case.kind, ruleset=case.ruleset, clause=case.clause)
        if ahead is not None and ahead[0] is entry:
            plan: Plan | Skip = ahead[1]  # prepared, and its line sent, while the case before was read
        else:
            try:
                plan = self._prepare(case)
            except TranscriptError as problem:
                return CaseResult(entry.id, "broken-case", "broken-case", message=str(problem), **base)
        if isinstance(plan, Skip):
            return CaseResult(entry.id, "unsupported", "unsupported", message=f"{_NOT_A_SCENARIO}{plan.reason}",
                              case=case, doc=self.rules.doc if self.rules is not None else None, **base)  # fmt: skip
        scenario = plan.scenario
        base.update(case=case, requires=sorted(plan.required), common=common_exercised(case), doc=plan.doc)
        if scenario is not None:
            base.update(scenario=scenario)
        try:
            session = self._session()
        except EngineFailure as failure:
            return self._failed(entry.id, failure, base)
        declared = self.declared_for(session.hello)
        missing = declared.missing(plan.required)
        if missing:
            return CaseResult(
                entry.id, "unsupported", "unsupported", missing=missing,
                message=f"needs {', '.join(missing)}", **base,
            )  # fmt: skip
        on_sent = None
        if following is not None and case.kind != "perft":  # a perft case exchanges again after its line
            on_sent = partial(self._send_ahead, session, following)
        try:
            trace = run_case(
                session, plan, stop_at_divergence=self.stop_at_divergence, measures=declared.measures, on_sent=on_sent
            )  # fmt: skip
        except EngineFailure as failure:
            self.close()  # a session that misbehaved once is not trusted with the next case
            events = getattr(failure, "trace", None)
            if events is not None and events.diverged:  # the divergence is the news; the failure came after
                result = self._judge(entry.id, plan, events, base, declared.measures, None)
                result.notes.append(f"then the engine failed: {failure.what}: {failure.message}")
                result.stderr = failure.stderr
                return result
            result = self._failed(entry.id, failure, base)
            if events is not None:
                result.requests = events.requests
                result.context = events.events[-3:]
                result.events = list(events.events)
                result.index = len(events.events)
            return result
        alive: Session | None = session
        if trace.drain_failure is not None:
            self.close()  # it died after the case had its answer: a fresh one for the next
            alive = None
        return self._judge(entry.id, plan, trace, base, declared.measures, alive)

    def _prepare(self, case: Any) -> Plan | Skip:
        if self.rules is not None:
            return scenario_plan(case, self.rules)
        plan = prepare(case)
        plan.sent = self.sent
        return plan

    def _send_ahead(self, session: Session, entry: Entry) -> None:
        """Write the line of the case to be run next while this one's replies are read, so that
        the engine never waits for the runner between two cases. The engine reads the same
        lines in the same order as without: a case's replies are all read (or dropped) before
        the next case's, and every case begins with `start`. A case that cannot be sent (broken,
        unsupported) is not."""
        send = getattr(session, "send_ahead", None)  # a session may not have it (in process, nothing to overlap)
        if send is None or entry.load().problem is not None or entry.case is None:
            return
        try:
            plan = self._prepare(entry.case)
        except TranscriptError:
            return
        if isinstance(plan, Skip) or self.declared_for(session.hello).missing(plan.required):
            return
        send(line_steps(plan)[1])
        self._ahead = (entry, plan)

    def _unless_broken(self, entry: Entry, result: CaseResult) -> CaseResult:
        """A case that is itself wrong (a move the rules forbid recorded as played) is a
        broken case, not the engine's failure. Cases are collected without replaying them
        through the reference engine (a game each); a case that did not pass is replayed now."""
        from escoba.transcript.case import load_case

        path = getattr(entry.case, "path", None)
        if path is None:
            return result
        try:
            with _LOADING:
                load_case(path, replay=True)
        except TranscriptError as problem:
            return CaseResult(entry.id, "broken-case", "broken-case", title=result.title, kind=result.kind,
                              ruleset=result.ruleset, clause=result.clause, message=str(problem))  # fmt: skip
        return result

    def _judge(self, case_id: str, plan: Plan, trace: Any, base: dict, measures: bool = True, session: Session | None = None) -> CaseResult:
        divergence = first_divergence(plan.expected, trace.events, measures)
        real = divergence is not None and divergence.index < len(trace.events)
        own = list(plan.scenario.notes) if plan.scenario is not None else []
        notes = own + ([] if measures else _measure_notes(plan.expected, trace))
        complete = trace.refusal is None and len(trace.events) >= len(plan.expected)
        base = {**base, "notes": notes, "complete": complete, "events": list(trace.events)}
        if trace.refusal is not None and not real:
            refusal = trace.refusal
            outcome = "unsupported" if refusal.kind == "unsupported" else "error"
            return CaseResult(
                case_id, outcome, outcome, index=len(trace.events), requests=trace.requests,
                message=f"{trace.refused}: the engine refused: {refusal}", context=trace.events[-3:], **base,
            )  # fmt: skip
        if divergence is None:
            return CaseResult(case_id, "pass", "pass", requests=trace.requests, **base)
        every, extra = self._every_divergence(plan, trace, divergence, measures, session)
        asked = extra.pop("_requests", 0)
        base.update(extra)
        return CaseResult(
            case_id, "fail", "fail", cls=divergence.cls, index=divergence.index, divergence=divergence,
            requests=trace.requests + asked, message=_divergence_message(divergence), divergences=every, **base,
        )  # fmt: skip

    def _every_divergence(
        self, plan: Plan, trace: Any, first: Divergence, measures: bool, session: Session | None
    ) -> tuple[list[Divergence], dict[str, Any]]:
        """Every divergence of a failed case, each with its rule point (conformance/resync.py:
        after each one the reference goes on from the engine's state); the first is `first`."""
        from escoba.conformance.resync import judge

        may_resync = session is not None and not self.stop_at_divergence
        judged = judge(session, plan, trace, measures=measures, resync=may_resync)
        extra: dict[str, Any] = {}
        if judged is None:  # the case's replies do not line up with its requests: as they came
            every = all_divergences(plan.expected, trace.events, trace.chunks, measures)
        else:
            every = judged.divergences
            extra = {"complete": judged.complete, "events": judged.observed, "_requests": judged.requests, "evidence": judged.evidence}
            if judged.failure is not None:
                self.close()  # it failed while the rest was judged: a fresh one for the next case
            if judged.notes:
                own = list(plan.scenario.notes) if plan.scenario is not None else []
                extra["notes"] = [*own, *(() if measures else _measure_notes(plan.expected, trace)), *judged.notes]
        same_place = next((d for d in every if d.index == first.index), every[0] if every else None)
        if same_place is None:
            every.insert(0, first)
        else:
            first.point, first.inferred, first.consequence_of = same_place.point, same_place.inferred, same_place.consequence_of
            first.explained, first.resync, first.alternatives = same_place.explained, same_place.resync, same_place.alternatives
        return every, extra

    def _failed(self, case_id: str, failure: EngineFailure, base: dict) -> CaseResult:
        if failure.outcome == "protocol":
            return CaseResult(
                case_id, "fail", "fail", cls="protocol", message=f"{failure.what}: {failure.message}",
                stderr=failure.stderr, **base,
            )  # fmt: skip
        return CaseResult(case_id, failure.outcome, failure.outcome, message=failure.message, stderr=failure.stderr, **base)

    def _session(self) -> Session:
        if self.session is not None:
            return self.session
        if self._given_up is not None:
            failure = self._given_up
            raise type(failure)(
                f"not run: the engine failed to start {MAX_START_FAILURES} times in a row (last: {failure.message})",
                stderr=failure.stderr,
            )
        try:
            self.session = self.connect()
        except EngineFailure as failure:
            self._start_failures += 1
            if self._start_failures >= MAX_START_FAILURES:
                self._given_up = failure
            raise
        self._start_failures = 0
        self.hello = self.session.hello
        return self.session

    def _apply_pin(self, result: CaseResult) -> None:
        pin = self.expectations.get(result.id)
        if pin is None:
            return
        result.pin = pin
        if result.observed == "pass":
            result.note = f"pinned as {pin.describe()} but passes: remove the pin"
        elif result.observed == "unsupported" and pin.outcome == "unsupported":
            result.note = f"known: {pin.note}" if pin.note else "skipped, as pinned"  # a skip stays a skip
        elif pin.matches(result.observed, result.cls, result.index):
            result.outcome = "xfail"
            result.note = f"known: {pin.note}" if pin.note else "known failure, as pinned"
        else:
            result.new = True
            got = result.observed + (f" ({result.cls} at event {result.index})" if result.cls else "")
            result.note = f"NEW: pinned as {pin.describe()}, now {got}"


@lru_cache(maxsize=16)
def _declared_features(rules: DeclaredRules, features: frozenset[str]) -> Declared:
    """An engine's declared rules' features (at the player counts it plays), once per run."""
    from escoba.conformance.declared import features_of

    return declared_by(frozenset(features_of(rules, features)))


def nothing_ran(results: Sequence[CaseResult]) -> str:
    """Why no case of a run ran, in one sentence: the commonest reason, with how many it held
    back (`no case could run: 180 of 219 cases need capture.compulsory:card, which the engine
    does not declare; 39 others for other reasons`)."""
    from collections import Counter

    if not results:
        return "no case could run: none was selected"
    why: Counter[str] = Counter()
    for r in results:
        if r.outcome == "broken-case":
            why["do not load"] += 1
        elif r.missing:
            why[f"need {r.missing[0]}, which the engine does not declare"] += 1
        elif r.message.startswith(_NOT_A_SCENARIO):
            why[f"are not scenarios of the declared rules ({r.message.removeprefix(_NOT_A_SCENARIO).split(';')[0]})"] += 1
        elif r.outcome == "unsupported":
            why[f"were refused by the engine as unsupported ({r.message.splitlines()[0] if r.message else 'no reason given'})"] += 1
        else:
            why[f"ended {r.outcome}"] += 1
    reason, n = why.most_common(1)[0]
    rest = len(results) - n
    more = f"; {rest} other{'s' if rest != 1 else ''} for other reasons" if rest else ""
    return f"no case could run: {n} of {len(results)} case{'s' if len(results) != 1 else ''} {reason}{more}"


_NOT_A_SCENARIO = "not a scenario of the declared rules: "


def _accepted(r: CaseResult, strict: bool) -> bool:
    """A result that keeps a run green: a pass, a failure as pinned, a skip (unless strict and unpinned)."""
    if r.outcome == "unsupported":
        return not strict or r.pin is not None
    return r.as_expected


def _measure_notes(expected: list[dict], trace: Any) -> list[str]:
    """Measure differences with the same points, for an engine whose measures are not compared."""
    found = []
    for (e0, e1), (o0, o1) in zip(chunks(expected), trace.chunks):
        observed = {o.get("category"): o for o in trace.events[o0:o1] if o.get("event") == "score"}
        for e in expected[e0:e1]:
            if e.get("event") == "score" and e.get("category") in observed:
                note = measure_note(e, observed[e["category"]])
                if note:
                    found.append(note)
    return found


def _divergence_message(d: Divergence) -> str:
    if d.observed is None:
        return f"event {d.index}: the engine stopped short, expected {d.expected.get('event') if d.expected else '?'}"
    if d.expected is None:
        return f"event {d.index}: an extra event {d.observed.get('event')}"
    fields = ", ".join(f.path for f in d.diff[:4])
    return f"event {d.index} ({d.expected.get('event')}): {fields} differ"


class _Turns:
    """The cases of one run, handed out in order to one runner or to several side by side,
    with what `run`'s stopping rules need: the results by case, the failures so far."""

    def __init__(self, runner: Runner, entries: list[Entry], first_failure: bool, maxfail: int | None):
        self.runner, self.entries = runner, entries
        self.first_failure, self.maxfail = first_failure, maxfail
        self.results: list[CaseResult | None] = [None] * len(entries)
        self.warnings: list[str] = []
        self.next = 0  # the next case to hand out
        self.failures = 0
        self.stopped = False
        self.lock = threading.Lock()
        self.problems: list[BaseException] = []  # a runner's own failure (a bug), raised by `side_by_side`

    def take(self, runner: Runner, ahead: bool = False) -> None:
        """Run cases on `runner` until none is left or the run stops; with `ahead` (one runner
        alone), each case's line is sent while the one before is read (`Runner.run_one`)."""
        total, on_start, on_result = len(self.entries), self.runner.on_start, self.runner.on_result
        while True:
            with self.lock:
                if self.stopped or self.next == total or processes.stopping():
                    return
                n, entry = self.next, self.entries[self.next]
                self.next += 1
                following = self.entries[self.next] if ahead and self.next < total else None
                if on_start:
                    on_start(n + 1, total, entry.id)
            result = runner.run_one(entry, following)
            with self.lock:
                self.results[n] = result
                if on_result:
                    on_result(n + 1, total, result)
                if self.stopped:
                    continue
                if self.first_failure and not result.as_expected:
                    self.stopped = True
                    continue
                self.failures += not self.runner._accepted(result)
                if self.maxfail is not None and self.failures >= self.maxfail and self.next < total:
                    s = "" if self.failures == 1 else "s"
                    self.warnings.append(
                        f"stopped after {self.failures} failing case{s} (--maxfail {self.maxfail}): {total - self.next} not run"
                    )
                    self.stopped = True

    def side_by_side(self, runners: list[Runner]) -> None:
        """Each runner takes cases in a thread of its own. A stop signal reaches this (the main)
        thread: the others see it (`processes.stopping`) at their next read or write and end,
        each closing its own engine; this one waits for them, then raises it."""
        threads = [threading.Thread(target=self._guarded, args=(r,), name=f"escoba-session-{i}", daemon=True)
                   for i, r in enumerate(runners)]  # fmt: skip
        for thread in threads:
            thread.start()
        try:
            for thread in threads:
                thread.join()
        except BaseException:
            with self.lock:
                self.stopped = True
            for thread in threads:
                thread.join()
            raise
        if self.problems:
            raise self.problems[0]

    def _guarded(self, runner: Runner) -> None:
        try:
            self.take(runner)
        except BaseException as problem:  # raised again in the main thread
            with self.lock:
                self.stopped = True
                self.problems.append(problem)
        finally:
            runner.close()


def collect(root: Any = None, patterns: Iterable[str] = (), rulesets: Iterable[str] = (), *, lazy: bool = False) -> list[Entry]:
    """The case files under `root` (default: the bundled suite) whose id matches one of the
    glob `patterns` and whose ruleset is one of `rulesets` (empty: any).

    Each file is loaded on its own, so one broken case is one `broken-case`, not a failed run;
    with `lazy`, later (`Entry.load`, `preload`). The loader's replay check (the moves are legal
    for the reference engine) is skipped: it costs a game per case, and the reference engine's
    own run reports the same problem. The bundled cases are not checked against the JSON Schema
    again either: the tests check every one (tests/test_transcripts.py); cases from elsewhere
    are checked in full.
    """
    import fnmatch
    from pathlib import Path

    from escoba.transcript.case import cases_dir, iter_case_files

    patterns, wanted = list(patterns), set(rulesets)
    entries = []
    for path in iter_case_files(cases_dir() if root is None else Path(root)):
        case_id = path.stem
        if patterns and not any(fnmatch.fnmatchcase(case_id, p) for p in patterns):
            continue
        if lazy:
            ruleset = _ruleset_of(path) if wanted else None  # a case whose file does not say is broken: kept
            if not wanted or ruleset in wanted or ruleset is None:
                entries.append(Entry(case_id, ruleset=ruleset, path=path, schema=root is not None))
            continue
        case, problem, ruleset = _load(path, schema=root is not None)
        if case is None and (not wanted or ruleset in wanted or ruleset is None):
            entries.append(Entry(case_id, problem=problem, ruleset=ruleset))
        elif case is not None and (not wanted or case.ruleset in wanted):
            entries.append(Entry(case_id, case=case, ruleset=case.ruleset))
    return entries


def _load(path: Any, schema: bool) -> tuple[Any, TranscriptError | None, str | None]:
    """(the case, None, its ruleset), or (None, why it does not load, its ruleset if the file says)."""
    from escoba.transcript.case import load_case

    try:
        case = load_case(path, replay=False, schema=schema)
    except (TranscriptError, RecursionError, ValueError, LookupError, TypeError) as problem:
        # Anything but a TranscriptError is a loader bug; the run still goes on without it.
        if not isinstance(problem, TranscriptError):
            problem = TranscriptError(f"{path}: the case loader failed ({type(problem).__name__}: {problem}); please report")
        return None, problem, _ruleset_of(path)
    return case, None, case.ruleset


def _ruleset_of(path: Any) -> str | None:
    """A case's ruleset as its file says it, without loading the case (to honour --ruleset)."""
    import json

    from escoba.inputs import Unreadable, read_file
    from escoba.transcript.case import MAX_FILE_BYTES

    try:  # read as the case loader reads: a FIFO or a device is refused, not waited on
        value = json.loads(read_file(path, MAX_FILE_BYTES).decode("utf-8")).get("ruleset")
    except (Unreadable, ValueError, AttributeError, RecursionError):
        return None
    return value if isinstance(value, str) else None
