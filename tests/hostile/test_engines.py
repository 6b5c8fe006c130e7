"""Every command that drives an engine, against the shared hostile engines.

The engines (tests/engines/fake_engine.py modes) never answer, exit at once, flood their
output, lie, crash mid-game, hang after a few replies with a child in a session of its own,
send a 5,000-digit number, a reply nested 100,000 deep or NaN, refuse with a message full of
escape sequences, or name themselves with one. Each command must end with its documented exit
code (docs/errors.md), an error in one line, nothing raw on the terminal, no process left,
nothing written but its named outputs, in bounded time and memory.

By default each engine meets the commands where it matters most (about two minutes); with
ESCOBA_HOSTILE=deep every engine meets every command.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from .conftest import DEEP, ONE_CASE, ROOT, engine, run_argv, run_escoba

# name: (the fake engine's arguments, what it does to a run)
ENGINES: dict[str, tuple[tuple[str, ...], str]] = {
    "silent": (("silent",), "no-start"),
    "exit-at-once": (("exit-at-once",), "no-start"),
    "flooding": (("huge-line", "--after", "1"), "fails"),
    "lying": (("lie", "--after", "1"), "fails"),
    "crashing-mid-game": (("exit", "--after", "3"), "fails"),
    "hanging-with-a-detached-child": (("setsid-hang", "--after", "2"), "fails"),
    "huge-number": (("digits", "--after", "2"), "fails"),
    "deeply-nested": (("deep", "--after", "2"), "fails"),
    "nan": (("nan", "--after", "2"), "fails"),
    "hostile-refusal": (("hostile-refuse", "--after", "1"), "fails"),
    "hostile-name": (("hostile-hello",), "passes"),
    "stderr-flood": (("stderr-flood", "--after", "1", "--flood", "4"), "passes"),
}

# The exit status of each command for each kind of engine (docs/errors.md): an engine that
# cannot start is a usage error (pytest's own status for one is 4); a failing engine is a real
# negative result, except for shrink (which then has something to shrink) and site (which
# shows the failures).
CODES = {
    "conformance": {"no-start": 2, "fails": 1, "passes": 0},
    "explore": {"no-start": 2, "fails": 1, "passes": 0},
    "identify": {"no-start": 2, "fails": 1, "passes": 0},
    "shrink": {"no-start": 2, "fails": 0, "passes": 1},
    "site": {"no-start": 2, "fails": 0, "passes": 0},
    "pytest": {"no-start": 4, "fails": 1, "passes": 0},
}

# Where each engine meets each command by default (the deep profile: everywhere).
DEFAULT = {
    "conformance": set(ENGINES),
    "explore": {"lying", "crashing-mid-game", "hanging-with-a-detached-child", "hostile-name", "exit-at-once"},
    "identify": {"flooding", "huge-number", "deeply-nested", "nan", "hostile-refusal", "hostile-name"},
    "shrink": {"crashing-mid-game", "hostile-name", "exit-at-once"},
    "site": {"exit-at-once"},  # a site with a failing engine's report: the deep profile (25 s)
    "pytest": {"hanging-with-a-detached-child", "hostile-refusal", "exit-at-once"},
}
CASE_FILE = ROOT / "conformance" / "cases" / "generated" / f"{ONE_CASE}.json"


def _argv(command: str, eng: str) -> tuple[list[str], list[str]]:
    """The command line (after `escoba`, or pytest's) and the outputs it is told to write."""
    if command == "conformance":
        return ["conformance", "--engine", eng, "--case", ONE_CASE, "--timeout", "2", "--junit", "report.xml"], ["report.xml"]
    if command == "explore":
        return ["explore", "--engine", eng, "--games", "2", "--timeout", "2", "--no-shrink", "--out", "found"], ["found"]
    if command == "identify":
        return ["identify", "--engine", eng, "--games", "2", "--no-targeted", "--no-shrink", "--timeout", "2", "--out", "inferred"], ["inferred"]
    if command == "shrink":
        return ["shrink", str(CASE_FILE), "--engine", eng, "--out", "shrunk", "--budget", "3", "--timeout", "2"], ["shrunk"]
    if command == "site":
        return ["site", "--out", "site", "--engine", eng, "--timeout", "2", "--quiet"], ["site"]
    return ["-m", "pytest", "-p", "no:cacheprovider", "-q", "--escoba-engine", eng, "--escoba-case", ONE_CASE, "--escoba-timeout", "2"], []


# The site runs every bundled case (219) on an engine: one that is restarted after each case
# (a crash, a hang, a protocol failure) takes minutes there, even in the deep profile.
SITE_DEEP = {"silent", "exit-at-once", "hostile-refusal", "hostile-name", "stderr-flood"}
PAIRS = [(c, e) for c in CODES for e in ENGINES if e in DEFAULT[c] or (DEEP and (c != "site" or e in SITE_DEEP))]


@pytest.mark.parametrize("command, name", PAIRS, ids=[f"{c}-{e}" for c, e in PAIRS])
def test_a_hostile_engine_gets_the_documented_exit_and_leaves_nothing(work: Path, command: str, name: str) -> None:
    """The command ends with its documented exit code, one line for an error, everything the
    engine said escaped, no process left (the engine, its detached child), nothing written
    but its named outputs, in bounded time and memory."""
    args, kind = ENGINES[name]
    argv, named = _argv(command, engine(*args))
    if command == "pytest":
        ran = run_argv([sys.executable, *argv], work, named=named)
    else:
        ran = run_escoba(*argv, work=work, named=named)
    ran.assert_clean(seconds=150)
    assert ran.code == CODES[command][kind], (ran.code, ran.err[-2000:], ran.out[-2000:])
    if ran.code == 2:
        assert ran.one_line_error().startswith(f"escoba {command}: the engine did not start (")
    if ran.code == 4:
        assert "the engine did not start" in ran.err and "Traceback" not in ran.err
    if command == "conformance" and kind != "no-start":
        suite = ET.parse(work / "report.xml").getroot().find("testsuite")  # well-formed, whatever the engine said
        assert suite is not None
        if name == "hostile-name":
            assert suite.get("name", "").startswith("escoba conformance: evil\\x1b[2J\\x1b]0;owned\\x07\\nOK")
    if name == "hostile-name" and command in ("conformance", "explore", "identify"):
        assert "evil\\x1b[2J\\x1b]0;owned\\x07\\nOK: all pass\\ufffe" in ran.out, ran.out[:500]
    if name == "hostile-refusal" and command == "conformance":
        assert "refused\\x1b[31m\\nFAIL forged\\u202e" in ran.out and "FAIL forged" not in ran.out.replace("\\nFAIL forged", "")


def test_the_junit_report_of_a_hostile_case_id_is_well_formed(work: Path) -> None:
    """A case whose id holds a control character still makes JUnit XML a parser accepts, the
    id shown escaped."""
    cases = work / "cases"
    cases.mkdir()
    text = CASE_FILE.read_text(encoding="utf-8").replace(f'"id": "{ONE_CASE}"', '"id": "evil\\u0007case"')
    (cases / "evil\x07case.json").write_text(text, encoding="utf-8")
    ran = run_escoba("conformance", "--engine", engine("hostile-hello"), "--cases-dir", "cases", "--junit", "report.xml", work=work, named=["report.xml"])
    ran.assert_clean()
    root = ET.parse(work / "report.xml").getroot()
    case = root.find("testsuite/testcase")
    assert case is not None and case.get("name") == "evil\\x07case"
