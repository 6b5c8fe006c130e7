"""`escoba conformance --jobs J`: several engine sessions side by side give the report one
session gives (the results in the cases' order), restart engines that crash, stop as asked.
A stop signal with --jobs is in tests/test_hardening.py (`conformance-jobs`)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from escoba.cli.main import main
from escoba.conformance.runner import Runner, collect
from escoba.protocol.client import InProcessSession

ENGINES = Path(__file__).parent / "engines"
sys.path.insert(0, str(ENGINES))
from mutants import MUTANTS  # noqa: E402

MUTANT = f"{shlex.quote(sys.executable)} {shlex.quote(str(ENGINES / 'mutant_engine.py'))} opening-15-not-escoba"
FAKE = f"{shlex.quote(sys.executable)} {shlex.quote(str(ENGINES / 'fake_engine.py'))}"
CASES = ["--case", "opening.*", "--case", "probe.wrong-sum.*", "--case", "base.2p.*"]


def _outcomes(report: Any) -> list[tuple]:
    return [(r.id, r.outcome, r.cls, r.index, r.message, len(r.divergences), r.requests) for r in report.results]


def _without_times(value: Any) -> Any:
    """A JSON report without its timings, which differ from run to run."""
    if isinstance(value, dict):
        return {k: _without_times(v) for k, v in value.items() if k != "seconds"}
    if isinstance(value, list):
        return [_without_times(v) for v in value]
    return value


def test_sessions_side_by_side_report_what_one_session_reports():
    """Three in-process sessions of a mutant (failing some cases, passing others) give the
    results of one, case by case and in the cases' order."""
    entries = collect(patterns=["opening.*", "probe.*", "base.*"])
    assert len(entries) > 20
    one = Runner(lambda: InProcessSession(MUTANTS["opening-15-not-escoba"])).run(entries)
    three = Runner(lambda: InProcessSession(MUTANTS["opening-15-not-escoba"])).run(entries, jobs=3)
    assert {r.outcome for r in one.results} >= {"pass", "fail"}
    assert _outcomes(three) == _outcomes(one)
    assert three.engine == one.engine and three.warnings == one.warnings == []


@pytest.mark.parametrize(
    "engine",
    # The second exits at every `start`: each session restarts its engine for every case.
    # (Not one that strikes after N plays: it counts them over its life, which then depends on
    # which cases a session ran before.)
    [MUTANT, f"{FAKE} exit"],
    ids=["mutant", "crashing"],
)
def test_conformance_jobs_prints_the_report_of_one_session(capsys, engine):
    """--jobs 3 prints the JSON report --jobs 1 prints, timings aside."""
    reports = []
    for jobs in ("1", "3"):
        code = main(["conformance", "--engine", engine, *CASES, "--jobs", jobs, "--format", "json"])
        out = capsys.readouterr().out
        reports.append((code, _without_times(json.loads(out))))
    assert reports[0] == reports[1]
    summary = reports[0][1]["summary"]
    assert reports[0][0] == 1 and summary["crash" if "exit" in engine else "fail"] > 0


def test_maxfail_with_jobs_starts_no_case_past_the_limit():
    """With sessions side by side, --maxfail starts no new case once reached; the cases
    already running finish and are reported, and the warning counts those not run."""
    entries = collect(patterns=["opening.fifteen.*", "opening.thirty.*", "base.2p.*"])
    report = Runner(lambda: InProcessSession(MUTANTS["opening-15-not-escoba"])).run(entries, maxfail=1, jobs=2)
    failed = [r for r in report.results if r.outcome == "fail"]
    assert 1 <= len(failed) <= 2 and len(report.results) < len(entries)
    (warning,) = report.warnings
    assert warning.startswith("stopped after") and warning.endswith(f"{len(entries) - len(report.results)} not run")


def test_jobs_must_not_be_negative(capsys):
    assert main(["conformance", "--jobs", "-1"]) == 2
    assert capsys.readouterr().err.strip() == "escoba conformance: --jobs must be 0 (one per CPU) or more, got -1"
