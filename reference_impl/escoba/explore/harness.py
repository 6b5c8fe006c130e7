"""Case data run on one engine, through the conformance runner.

Explore, shrink and identify all make cases in memory (a dict in the case format) and ask one
question of each: what does the engine do with it? `Harness` answers with the runner's own
`CaseResult` (outcome, the first divergence with its class and rule point, every event the
engine said), so nothing here compares events or names rule points a second way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from escoba.conformance.runner import CaseResult, Entry, Runner
from escoba.protocol.client import Session
from escoba.protocol.features import Declared
from escoba.protocol.messages import HelloReply


def fill_case(data: Mapping[str, Any], folder: Path | None = None, *, check: bool = False) -> dict:
    """`data` with its expected events (TranscriptError for a case that cannot be played).
    `check`: also the whole load-time check a case file gets (for a case about to be written).
    A case whose ruleset is a file (a hypothesis of escoba identify) is never written: it skips
    the schema, which asks a case file for a bundled id."""
    from escoba.transcript.build import fill

    schema = not str(data.get("ruleset", "")).endswith((".yaml", ".yml", ".json"))
    return fill(data, folder / f"{data['id']}.json" if folder is not None else None, check=check, schema=schema)


def case_length(data: Mapping[str, Any]) -> int:
    """How long a case is: the events it expects (what a person reads to follow it)."""
    return len(data.get("expect") or ())


class Harness:
    """One engine session for many cases; restarted by the runner after a crash or a timeout.

    `sent`: the ruleset document every `start` carries instead of each case's own (identify).
    `folder`: where the cases are taken to live, for cases that name a ruleset file there.
    """

    def __init__(
        self,
        connect: Callable[[], Session],
        *,
        command: str = "",
        sent: Mapping[str, Any] | None = None,
        folder: Path | None = None,
        rules: Any = None,
    ):
        # rules: the rules the engine declares it plays (conformance/declared.py): each case is
        # run as a scenario of them, as `escoba conformance` runs it.
        self.runner = Runner(connect, command=command, stop_at_divergence=True, sent=sent, rules=rules)
        self.folder = folder
        self.runs = 0  # cases run on the engine

    def open(self) -> HelloReply:
        """Start the engine now (an `EngineFailure` if it cannot): its `hello` reply."""
        return self.runner.open()

    @property
    def declared(self) -> Declared:
        return self.runner.declared_for(self.open())

    def supports(self, feature: str) -> bool:
        return self.declared.supports(feature)

    def run(self, data: Mapping[str, Any]) -> CaseResult:
        """Run case data filled by `fill_case` (or loaded from a file) on the engine."""
        from escoba.transcript.case import _build

        path = self.folder / f"{data['id']}.json" if self.folder is not None else None
        case = _build(dict(data), path)  # built by fill_case, which checked it
        self.runs += 1
        return self.runner.run_one(Entry(case.id, case=case, ruleset=case.ruleset))

    def close(self) -> None:
        self.runner.close()

    def __enter__(self) -> Harness:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def signature(result: CaseResult) -> tuple[str, str | None, str | None]:
    """What "the same failure" means while shrinking: the outcome, and for a failure the rule
    point and class of its first divergence."""
    if result.outcome == "fail" and result.divergence is not None:
        return ("fail", result.divergence.point, result.cls)
    return (result.outcome, None, None)


def describe(sig: tuple[str, str | None, str | None]) -> str:
    outcome, point, cls = sig
    if outcome == "fail":
        return f"{point or 'an unnamed point'} ({cls})"
    return outcome
