"""What a CI job uses: JUnit XML, stopping early, quiet and verbose output, several engines in
one table, and an engine that cannot start reported in one line (exit 2)."""

from __future__ import annotations

import json
import shlex
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from escoba.cli.main import main
from escoba.conformance.report import render_grid, render_text
from escoba.conformance.runner import Runner, collect
from escoba.protocol.client import InProcessSession

ENGINES = Path(__file__).parent / "engines"
REFERENCE = f"{shlex.quote(sys.executable)} -m escoba engine"
MUTANT = f"{shlex.quote(sys.executable)} {shlex.quote(str(ENGINES / 'mutant_engine.py'))} opening-15-not-escoba"
CASES = ["--case", "opening.fifteen.*", "--case", "probe.wrong-sum.base"]


def test_junit_has_one_testcase_per_case_with_failures_and_skips(tmp_path, capsys):
    """--junit writes JUnit XML: a <failure> (typed by the class, with the report) for a failing
    case, nothing for a pass, grouped by ruleset."""
    out = tmp_path / "junit.xml"
    assert main(["conformance", "--engine", MUTANT, *CASES, "--junit", str(out), "-q"]) == 1
    suite = ET.parse(out).getroot().find("testsuite")
    assert suite is not None
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert set(cases) >= {"opening.fifteen.escoba.da", "probe.wrong-sum.base"}
    failure = cases["opening.fifteen.escoba.da"].find("failure")
    assert failure is not None and failure.get("type") == "opening-table"
    assert "rule point: opening_table.escobas" in (failure.text or "")
    assert cases["probe.wrong-sum.base"].find("failure") is None
    assert cases["probe.wrong-sum.base"].get("classname") == "escoba.base"
    assert int(suite.get("failures") or 0) == sum(1 for c in cases.values() if c.find("failure") is not None)


def test_maxfail_and_exitfirst_stop_the_run(capsys):
    """-x stops at the first failing case, --maxfail N after N, and the report says so."""
    assert main(["conformance", "--engine", MUTANT, "--case", "opening.fifteen.*", "-x", "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["summary"]["fail"] == 1 and any("--maxfail 1" in w for w in report["warnings"])


def test_quiet_and_verbose_output():
    """-q keeps the failing cases and the summary; -v lists every case and every agreeing point."""
    import sys as _sys

    _sys.path.insert(0, str(ENGINES))
    from mutants import MUTANTS

    entries = collect(patterns=["opening.fifteen.*", "probe.wrong-sum.base"])
    report = Runner(lambda: InProcessSession(MUTANTS["opening-15-not-escoba"])).run(entries)
    quiet = render_text(report, verbosity=-1)
    assert "FAIL         opening.fifteen.escoba.da" in quiet and "matching events before it" not in quiet
    assert "PASS" not in quiet and quiet.rstrip().splitlines()[-1].startswith("FAILED")
    verbose = render_text(report, verbosity=1)
    assert "PASS         probe.wrong-sum.base" in verbose and "AGREES   capture.compulsory" in verbose


def test_several_engines_print_one_grid(capsys, tmp_path):
    """--engine A --engine B runs both and prints one table, engines by outcomes; --junit
    writes a test suite per engine."""
    junit = tmp_path / "junit.xml"
    assert main(["conformance", "--engine", REFERENCE, "--engine", MUTANT, *CASES, "--junit", str(junit)]) == 1
    suites = ET.parse(junit).getroot().findall("testsuite")
    assert [s.get("failures") for s in suites] == ["0", "3"] and all(s.get("tests") == "6" for s in suites)
    out = capsys.readouterr().out
    lines = out.splitlines()
    header = next(line for line in lines if line.startswith("engine"))
    assert "pass" in header and "differs on" in header
    assert any(line.startswith("escoba-reference") and line.rstrip().endswith("yes") for line in lines)
    assert any(line.startswith("mutant-opening-15-not-escoba") and "opening_table.escobas" in line and line.rstrip().endswith("NO") for line in lines)


def test_render_grid_in_markdown():
    """The grid is a Markdown table for a CI summary too."""
    report = Runner(InProcessSession).run(collect(patterns=["probe.wrong-sum.base"]))
    table = render_grid([report, report], markdown=True)
    assert table.startswith("| engine | pass |") and table.count("\n") == 4


def test_an_engine_that_cannot_start_is_one_line_and_exit_2(capsys):
    """A mistyped command: one line naming it, exit 2, not a crash per case; with several
    engines, before any of them runs a case."""
    assert main(["conformance", "--engine", "no-such-engine --jsonl"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the engine did not start (no-such-engine --jsonl)" in err
    assert main(["conformance", "--engine", REFERENCE, "--engine", "no-such-engine", "--format", "json"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "(no-such-engine)" in err


def test_the_line_quotes_what_names_the_problem_not_a_stack_frame():
    """From a Python traceback, the exception's line; from Node, the error above the frames."""
    from escoba.conformance.report import did_not_start
    from escoba.protocol.messages import EngineCrashed

    python = "Traceback (most recent call last):\n  File \"/x/errors.py\", line 1, in <module>\nModuleNotFoundError: No module named 'engine'\n"
    node = "node:internal/modules/cjs/loader:1080\nError: Cannot find module '/x/engine.js'\n    at Module._resolveFilename (node:internal)\n"
    said = did_not_start("python e.py", EngineCrashed("exited with status 1 before answering", stderr=python))
    assert said == "the engine did not start (python e.py): exited with status 1 before answering; it said: ModuleNotFoundError: No module named 'engine'"
    assert did_not_start("node e.js", EngineCrashed("x", stderr=node)).endswith("it said: Error: Cannot find module '/x/engine.js'")
    assert did_not_start("e", EngineCrashed("x")) == "the engine did not start (e): x"


def test_an_output_file_in_a_missing_folder_is_a_usage_error_before_the_run(capsys, tmp_path):
    """--junit or --write-expectations into a folder that does not exist: one line, exit 2,
    no engine started (and never a traceback)."""
    for flag in ("--junit", "--write-expectations"):
        assert main(["conformance", "--engine", "no-such-engine", *CASES, flag, str(tmp_path / "gone" / "out.xml")]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"{flag}: cannot write" in err and "no folder" in err


def test_an_engine_that_dies_before_hello_says_why(capsys, tmp_path):
    """An engine that exits before hello: one line with the first error line of its stderr."""
    script = tmp_path / "broken.py"
    script.write_text("import sys\nsys.stderr.write('Error: Cannot find module engine.js\\n' + 'at x\\n' * 50)\nsys.exit(1)\n")
    assert main(["conformance", "--engine", f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "it said: Error: Cannot find module engine.js" in err


def test_several_engines_write_a_list_of_reports_the_schema_describes(capsys):
    """With two --engine options, --format json prints one report per engine, in the order
    given, and schemas/report.schema.json accepts the list (and each report alone)."""
    from jsonschema import Draft202012Validator

    from escoba.data import schemas_dir

    schema = Draft202012Validator(json.loads((schemas_dir() / "report.schema.json").read_text(encoding="utf-8")))
    assert main(["conformance", "--engine", REFERENCE, "--engine", MUTANT, *CASES, "--format", "json"]) == 1
    reports = json.loads(capsys.readouterr().out)
    assert [r["engine"]["command"] for r in reports] == [REFERENCE, MUTANT]
    assert [r["ok"] for r in reports] == [True, False]
    assert not list(schema.iter_errors(reports))
    assert not list(schema.iter_errors(reports[1]))
    assert list(schema.iter_errors([reports[0]]))  # a list holds several engines' reports
