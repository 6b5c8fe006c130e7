"""The pytest plugin (entry point pytest11): `pytest --escoba-engine CMD` runs the conformance
cases as pytest tests, end to end through pytester, on the reference engine and on a mutant."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import pytest

# pytester's in-process runs forget the modules first imported inside them, but PyYAML's C
# extension keeps the event classes of its first import: a second run that imported yaml
# afresh would never see a ScalarEvent (and spin for ever). Importing the parser here, which
# imports yaml, keeps one copy for all runs (the loader alone does not import yaml: a file
# read back from the cache folder needs no parser, so which run parses first varies).
import escoba.rules.yamlparse  # noqa: F401

pytest_plugins = ["pytester"]

ENGINES = Path(__file__).parent / "engines"
REFERENCE = f"{shlex.quote(sys.executable)} -m escoba engine"


def mutant(name: str) -> str:
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(ENGINES / 'mutant_engine.py'))} {name}"


def test_without_the_option_the_plugin_adds_nothing(pytester: pytest.Pytester) -> None:
    """A project's own tests run as before: no escoba items, no engine started."""
    pytester.makepyfile("def test_own():\n    assert True\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_each_case_is_a_passing_test_against_the_reference_engine(pytester: pytest.Pytester) -> None:
    """One pytest test per selected case, named after it; all pass."""
    from escoba.conformance.runner import collect

    result = pytester.runpytest("-p", "no:cacheprovider", "-v", "--escoba-engine", REFERENCE, "--escoba-case", "probe.*")
    result.assert_outcomes(passed=len(collect(patterns=["probe.*"])))
    result.stdout.fnmatch_lines(["*escoba::probe.compulsory.card.da PASSED*"])


def test_a_mutant_fails_with_the_runner_report_and_k_selects(pytester: pytest.Pytester) -> None:
    """A failing case shows the rule point, the diff and the replay command; -k selects cases."""
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--escoba-engine", mutant("opening-15-not-escoba"),
        "--escoba-case", "opening.*", "-k", "fifteen.escoba.da or fifteen.escoba.sv or no-escoba",
    )  # fmt: skip
    from escoba.conformance.runner import collect

    # no-escoba.ru passes: no escoba to miss; the other opening cases are deselected
    result.assert_outcomes(failed=2, passed=1, deselected=len(collect(patterns=["opening.*"])) - 3)
    result.stdout.fnmatch_lines(["*rule point: opening_table.escobas*", "*$.escobas: expected 1, observed 0*", "*replay: escoba conformance --engine*"])


def test_unsupported_is_a_skip_and_strict_fails_it(pytester: pytest.Pytester) -> None:
    """A case the engine declares no feature for is skipped, or fails under --escoba-strict."""
    example = Path(__file__).parent.parent / "docs" / "examples" / "minimal_engine.py"
    engine = f"{shlex.quote(sys.executable)} {shlex.quote(str(example))}"
    args = ["-p", "no:cacheprovider", "--escoba-engine", engine, "--escoba-case", "match.several-reach.base", "--escoba-case", "base.2p.1"]
    pytester.runpytest(*args).assert_outcomes(passed=1, skipped=1)
    pytester.runpytest(*args, "--escoba-strict").assert_outcomes(passed=1, failed=1)


def test_expectations_make_known_failures_xfail(pytester: pytest.Pytester) -> None:
    """A failure pinned by the expectations file is an expected failure."""
    pins = pytester.makefile(".yaml", known="format: 1\ncases:\n  opening.fifteen.escoba.da: {outcome: fail, class: opening-table}\n")
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--escoba-engine", mutant("opening-15-not-escoba"),
        "--escoba-case", "opening.fifteen.escoba.da", "--escoba-expectations", str(pins),
    )  # fmt: skip
    result.assert_outcomes(xfailed=1)


def test_an_engine_that_cannot_start_is_one_usage_error(pytester: pytest.Pytester) -> None:
    """No crash per case: pytest stops with one line naming the command."""
    result = pytester.runpytest("-p", "no:cacheprovider", "--escoba-engine", "no-such-engine --jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*the engine did not start (no-such-engine --jsonl)*"])


def test_a_ruleset_file_generates_its_cases_and_leaves_nothing_behind(pytester: pytest.Pytester, tmp_path: Path) -> None:
    """--escoba-ruleset FILE runs cases generated for that file; their folder is removed after."""
    house = tmp_path / "house.yaml"
    house.write_text("dsl: 1\nid: house\nkind: house\nextends: base\ntitle: Base rules\n", encoding="utf-8")
    temporary = Path(os.environ.get("TMPDIR", "/tmp"))
    before = set(temporary.glob("escoba-cases-*"))
    result = pytester.runpytest("-p", "no:cacheprovider", "-v", "--escoba-engine", REFERENCE, "--escoba-ruleset", str(house), "--escoba-case", "*.probe.*")
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) >= 4 and set(outcomes) == {"passed"}, outcomes
    result.stdout.fnmatch_lines(["*escoba::house.probe.* PASSED*"])
    assert set(temporary.glob("escoba-cases-*")) == before


def test_an_unknown_ruleset_is_one_usage_error_and_starts_no_engine(pytester: pytest.Pytester) -> None:
    """A selection that names nothing stops the session before any engine is started."""
    result = pytester.runpytest("-p", "no:cacheprovider", "--escoba-engine", "no-such-engine", "--escoba-ruleset", "dx")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unknown ruleset 'dx'*"])
    assert "did not start" not in result.stderr.str()


def test_an_engine_that_declares_its_rules_runs_the_scenarios_and_the_option_overrides(pytester: pytest.Pytester) -> None:
    """An engine of fixed rules that names them in hello passes the scenarios of its rules; with
    --escoba-rules base its departures fail, each with its rule point."""
    engine = f"{shlex.quote(sys.executable)} {shlex.quote(str(ENGINES / 'fixed_rules' / 'engine.py'))}"
    result = pytester.runpytest("-p", "no:cacheprovider", "--escoba-engine", engine, "--escoba-case", "compulsory.card.da")
    result.assert_outcomes(passed=1)
    result = pytester.runpytest("-p", "no:cacheprovider", "--escoba-engine", engine, "--escoba-case", "compulsory.card.da",
                                "--escoba-rules", "base")  # fmt: skip
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*rule point: capture.compulsory (the engine behaves as if optional)*", "*--rules base --case compulsory.card.da*"])
