"""Hostile arguments and files for the other commands: each ends in its documented exit code,
one line, no traceback, and text from a file reaches the terminal (or a YAML comment) escaped."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from escoba.protocol.client import SubprocessSession

from .conftest import engine, run_escoba

HOSTILE_TITLE = "Evil\\e[2J\\a\\ncapture: {target: 14}\\n# OK: ruleset valid"  # YAML escapes, read as control characters


def _hostile_parent(work: Path) -> Path:
    path = work / "evil.yaml"
    path.write_text(f'dsl: 1\nid: evil\nkind: house\nextends: base\ntitle: "{HOSTILE_TITLE}"\n', encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "argv, words",
    [
        (("explore", "--timeout", "nan"), "escoba explore: --timeout must be more than 0 seconds, got nan"),
        (("identify", "--timeout", "inf"), "escoba identify: --timeout must be more than 0 seconds, got inf"),
        (("shrink", "x.json", "--out", "o", "--timeout", "nan"), "escoba shrink: --timeout must be more than 0 seconds, got nan"),
        (("site", "--out", "s", "--timeout", "nan"), "escoba site: --timeout must be more than 0 seconds, got nan"),
        (("site", "--out", "s", "--engine", "'unbalanced"), "escoba site: --engine: No closing quotation"),
        (("site", "--out", "s", "--engine", engine("exit-at-once")), "escoba site: the engine did not start ("),
        (("matrix", "--rulesets", ""), "escoba matrix: --rulesets: no ruleset named in ''"),
        (("simulate", "sv", "--hands", "10", "--cluster", "no::such::host"), "escoba simulate: --cluster: 'no::such::host' is not a scheduler address ("),
        (("diff", "da", "sv", "--hands", "10", "--cluster", "tcp://host:0"), "escoba diff: --cluster: 'tcp://host:0' is not a scheduler address ("),
        # With declared rules, cases generated for them may be what --case names: the engine's
        # hello comes first, so an engine gone is what is said (once, exit 2).
        (("conformance", "--engine", engine("exit-at-once"), "--case", "no.such.case"), "escoba conformance: the engine did not start ("),
    ],
    ids=["explore-timeout-nan", "identify-timeout-inf", "shrink-timeout-nan", "site-timeout-nan", "site-unbalanced-engine",
         "site-engine-cannot-start", "matrix-empty-rulesets", "simulate-malformed-cluster", "diff-port-0",
         "no-case-engine-gone"],
)  # fmt: skip
def test_a_bad_argument_is_one_line_and_exit_2_before_any_work(work: Path, argv: tuple[str, ...], words: str) -> None:
    """Each is refused up front: exit 2, one line, no site built, in seconds."""
    ran = run_escoba(*argv, work=work)
    ran.assert_clean(seconds=60)
    assert ran.code == 2, (ran.code, ran.err)
    assert ran.one_line_error().startswith(words), ran.err
    assert not (work / "s").exists()


def test_a_session_closed_while_its_engine_exits_before_hello_is_closed_once(tmp_path: Path) -> None:
    """An engine that reads hello, then exits without answering, while the session is closed:
    no polite `quit` that waits for the handshake, no error, nothing left (the race behind
    `conformance --case NOTHING` with an engine that exits at once)."""
    script = tmp_path / "late.py"
    script.write_text("import sys, time\nsys.stdin.readline()\ntime.sleep(0.5)\nsys.exit(2)\n")
    for _ in range(3):
        session = SubprocessSession([sys.executable, str(script)], timeout=5, wait=False)
        time.sleep(0.2)  # it has read hello and not exited yet
        session.close()
        session.close()


def test_check_standard_input_closed_is_one_line(work: Path) -> None:
    """`escoba check -` started with its standard input closed: exit 2, one line."""
    done = subprocess.run(["sh", "-c", f'exec "{sys.executable}" -m escoba check - <&-'], capture_output=True, text=True, timeout=120, cwd=work)
    assert done.returncode == 2
    assert done.stderr == "escoba check: standard input is closed; nothing to read for '-'\n"


def test_extends_with_a_nul_byte_is_a_problem_of_the_file(work: Path) -> None:
    """`extends:` naming a path with a NUL byte is one located problem, exit 1."""
    (work / "nul.yaml").write_text('dsl: 1\nextends: "./a\\0b.yaml"\n', encoding="utf-8")
    ran = run_escoba("check", "nul.yaml", work=work)
    ran.assert_clean()
    assert ran.code == 1 and ran.out == "nul.yaml:2:10: $.extends: './a\\x00b.yaml' names no file: a file name cannot hold a NUL byte\n"


def test_play_reads_what_its_input_encoding_cannot_as_a_move_not_understood(work: Path) -> None:
    """Non-ASCII typed into `play` under PYTHONIOENCODING=ascii is a move not understood, not a traceback."""
    done = subprocess.run(
        [sys.executable, "-m", "escoba", "play", "base"], input="ñ\n".encode(), capture_output=True, timeout=120,
        env={**os.environ, "PYTHONIOENCODING": "ascii"}, cwd=work,
    )  # fmt: skip
    assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr[-2000:]
    assert b"is not a move" in done.stdout


def test_new_quotes_a_hostile_parent_title_as_one_comment_line(work: Path) -> None:
    """`escoba new --extends FILE` whose title holds line breaks and escape sequences: the new
    file's data is only the skeleton's (no rule planted by the title), `check` accepts it, and
    the title is one escaped comment line."""
    _hostile_parent(work)
    ran = run_escoba("new", "mine", "--extends", "evil.yaml", work=work, named=["mine.yaml"])
    ran.assert_clean()
    assert ran.code == 0, ran.err
    text = (work / "mine.yaml").read_text(encoding="utf-8")
    assert yaml.safe_load(text) == {"dsl": 1, "id": "mine", "kind": "house", "extends": "evil.yaml", "title": "evil with our house rules"}
    assert "# mine: a house rule on 'evil' (Evil\\x1b[2J\\x07\\ncapture: {target: 14}\\n# OK: ruleset valid)." in text
    assert run_escoba("check", "mine.yaml", work=work).out == "ok  mine.yaml (mine)\n"


@pytest.mark.parametrize("argv", [("matrix", "--rulesets", "base,evil.yaml"), ("diff", "base", "evil.yaml", "--hands", "0")], ids=["matrix", "diff"])
def test_a_ruleset_title_reaches_the_terminal_escaped(work: Path, argv: tuple[str, ...]) -> None:
    """A ruleset file's title with escape sequences and line breaks prints as one escaped line."""
    _hostile_parent(work)
    ran = run_escoba(*argv, work=work)
    ran.assert_clean()
    assert ran.code == 0, ran.err
    assert "Evil\\x1b[2J\\x07" in ran.out and "\n# OK: ruleset valid" not in ran.out


def test_the_modeline_names_an_installed_schema_by_its_absolute_path(tmp_path: Path) -> None:
    """A schema inside a Python installation (a virtual environment, site-packages) is named by
    its absolute path, so that moving the file or the environment alone keeps it; one in the
    file's own project is named relative to the file."""
    from escoba.cli.new import schema_path

    installed = Path(sys.prefix).resolve() / "lib" / "site-packages" / "escoba" / "_data" / "schemas" / "ruleset-file.schema.json"
    assert schema_path(installed, Path(sys.prefix).resolve() / "project") == str(installed)
    checkout = tmp_path / "repo" / "schemas" / "ruleset-file.schema.json"
    assert schema_path(checkout, tmp_path / "repo" / "rules") == "../schemas/ruleset-file.schema.json"


def test_conformance_with_an_engine_gone_before_the_cases_load_is_usage_error_every_time(work: Path) -> None:
    """`--case` matching nothing, an engine that exits a moment after start: exit 2 and one
    line, the same run after run (it raced into a traceback about half the time). The engine's
    hello is read first: the rules it declares may generate the cases --case names."""
    late = work / "late.py"
    late.write_text("import sys, time\nsys.stdin.readline()\ntime.sleep(0.3)\nsys.exit(2)\n")
    for _ in range(3):
        ran = run_escoba("conformance", "--engine", f"{sys.executable} late.py", "--case", "no.such.case", work=work)
        assert ran.code == 2 and ran.one_line_error().startswith("escoba conformance: the engine did not start (")
        assert ran.one_line_error().endswith("hello: the engine exited with status 2 before answering")

