"""Misbehaving inputs, engines and signals: each ends in a documented exit code and a one-line
message, never in a traceback, a hang, a file half-written or a process left running.

The cases follow issue 11's list of what broke under attack (docs/errors.md states each exit
code). Commands that could hang if a guard regressed run as subprocesses with a timeout.
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import escoba
from escoba import outputs, processes
from escoba.cli import main as cli
from escoba.conformance.expectations import ExpectationsError
from escoba.conformance.expectations import load as load_expectations
from escoba.conformance.runner import Runner, collect
from escoba.inputs import read_file
from escoba.protocol.client import SubprocessSession
from escoba.protocol.server import ReferenceEngine, serve
from escoba.rules import check
from escoba.simulate import simulate

ROOT = Path(__file__).parents[1]
FAKE = ROOT / "tests" / "engines" / "fake_engine.py"
SECRET = "root:x:0:0:SECRET-MARKER:/root:/bin/bash"
ONE_CASE = "base.2p.1"
STOP_LIMIT = 2.0  # seconds from a stop signal to the end of the command (issue 11)


# --------------------------------------------------------------------------- helpers
def run_cli(*argv: str) -> tuple[int, str, str]:
    """`escoba ARGV` in this process: exit code, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(list(argv))
        except SystemExit as exit:  # argparse
            code = int(exit.code or 0)
    return code, out.getvalue(), err.getvalue()


def escoba_cmd(*argv: str) -> list[str]:
    return [sys.executable, "-m", "escoba", *argv]


def run(*argv: str, timeout: float = 120, env: dict[str, str] | None = None, **kw: Any) -> subprocess.CompletedProcess:
    """`escoba ARGV` as a subprocess; a hang fails the test instead of stopping the suite."""
    full_env = {**os.environ, **(env or {})}
    done = subprocess.run(escoba_cmd(*argv), capture_output=True, timeout=timeout, env=full_env, stdin=subprocess.DEVNULL, **kw)
    assert b"Traceback" not in done.stderr, done.stderr.decode(errors="replace")
    return done


def alive(pid: int) -> bool:
    """A process that exists and is not a zombie (a zombie of ours is reaped here)."""
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(pid, os.WNOHANG)
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rsplit(b")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in (b"Z", b"X")


def all_gone(pids: set[int], seconds: float = 3.0) -> set[int]:
    """The pids still alive after waiting up to `seconds` for them to go."""
    end = time.monotonic() + seconds
    left = {p for p in pids if alive(p)}
    while left and time.monotonic() < end:
        time.sleep(0.05)
        left = {p for p in left if alive(p)}
    return left


def one_line_each(text: str, limit: int = 700) -> None:
    assert all(len(line) <= limit for line in text.splitlines()), max(text.splitlines(), key=len)[:200]


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.yaml"
    os.mkfifo(path)
    return path


def house(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# =========================================================================== files from others
def test_extends_outside_the_folder_is_refused_without_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`extends:` naming an absolute path, a `../` path or a symlink out of the folder is one
    problem at the extends line; the file it names is never opened, and nothing of it shows."""
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = house(outside, "passwd.yaml", SECRET + "\n")
    work = tmp_path / "work"
    work.mkdir()
    (work / "link.yaml").symlink_to(secret)
    opened: list[str] = []
    real = read_file

    def spy(path: Any, limit: int) -> bytes:
        opened.append(os.path.realpath(path))
        return real(path, limit)

    monkeypatch.setattr("escoba.rules.yamlload.read_file", spy)
    monkeypatch.chdir(work)
    for extends in (str(secret), "../outside/passwd.yaml", "./link.yaml", "/etc/passwd", "../../../../../../etc/passwd"):
        house(work, "mine.yaml", f"dsl: 1\nextends: {extends}\n")
        code, out, err = run_cli("check", "mine.yaml")
        assert code == 1, (extends, out, err)
        assert out.startswith("mine.yaml:2:10: $.extends: ") and "is outside the folder of this file" in out
        assert "SECRET" not in out + err and "root:" not in out + err
    assert str(secret) not in opened and "/etc/passwd" not in opened


def test_rules_path_lets_extends_name_a_folder_the_user_gives(tmp_path: Path) -> None:
    """With --rules-path DIR, a file in DIR may be extended by path; without it, it may not."""
    house(tmp_path, "parents/p.yaml", "dsl: 1\nid: p\nextends: base\n")
    child = house(tmp_path, "rules/c.yaml", "dsl: 1\nextends: ../parents/p.yaml\n")
    assert run_cli("check", str(child))[0] == 1
    code, out, _ = run_cli("check", "--rules-path", str(tmp_path / "parents"), str(child))
    assert code == 0 and out.startswith("ok "), out


@pytest.mark.parametrize(
    "content, why",
    [
        (SECRET + "\nmore: [unclosed\n", "it does not load as YAML with 'dsl:' at its top"),
        (SECRET + "\n", "it does not load as YAML with 'dsl:' at its top"),
        ("services:\n  SECRET-MARKER: {image: x}\n", "it has no 'dsl:' at its top"),
        (b"\x00\x01SECRET-MARKER\xff", "it cannot be read as a YAML text file"),
    ],
    ids=["passwd-and-broken-yaml", "passwd", "another-yaml-file", "binary"],
)
def test_a_parent_that_is_not_a_ruleset_is_never_quoted(tmp_path: Path, content: str | bytes, why: str) -> None:
    """A file inside the folder that is no ruleset is one problem at `extends:`, whatever it
    holds, and no word of it is printed."""
    parent = tmp_path / "notes.yaml"
    parent.write_bytes(content if isinstance(content, bytes) else content.encode())
    child = house(tmp_path, "mine.yaml", "dsl: 1\nextends: ./notes.yaml\n")
    code, out, err = run_cli("check", str(child))
    assert code == 1
    assert out == f"{child}:2:10: $.extends: './notes.yaml' is not a ruleset ({why})\n"
    assert "SECRET" not in out + err


def _limited(gigabytes: float) -> Callable[[], None]:
    def limit() -> None:
        size = int(gigabytes * (1 << 30))
        resource.setrlimit(resource.RLIMIT_AS, (size, size))

    return limit


def test_an_alias_of_a_big_string_is_refused_in_bounded_memory_and_output(tmp_path: Path) -> None:
    """A 0.6 MB string repeated 5,000 times by aliases is refused as an alias bomb: the check
    runs under a 1.5 GB address-space limit and prints one short line."""
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("dsl: 1\nextends: base\nx: &a \"" + "y" * 600_000 + "\"\nz: [" + ", ".join(["*a"] * 5000) + "]\n")
    done = run("check", str(bomb), preexec_fn=_limited(1.5))
    assert done.returncode == 1
    assert done.stdout.decode().endswith("refused as an alias bomb\n") and len(done.stdout) < 300, done.stdout[:300]


def test_the_expectations_alias_bomb_is_refused(tmp_path: Path) -> None:
    """The 0.6 KB expectations file that grew to 14.8 GB is refused in one line, exit 2."""
    lines = ['a0: &a0 ["' + "x" * 100 + '"]'] + [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    bomb = tmp_path / "known.yaml"
    bomb.write_text("\n".join(lines) + "\n")
    assert len(bomb.read_bytes()) < 1000
    done = run("conformance", "--case", ONE_CASE, "--expectations", str(bomb), preexec_fn=_limited(1.5))
    assert done.returncode == 2
    err = done.stderr.decode()
    assert err.startswith(f"escoba conformance: {bomb}: not valid YAML: more than ") and "alias bomb" in err and err.count("\n") == 1


def test_many_problems_print_the_first_fifty_then_how_many_more(tmp_path: Path) -> None:
    """40,000 unknown keys are 50 lines and '… and 39950 more problems', in text and JSON."""
    many = house(tmp_path, "many.yaml", "dsl: 1\nextends: base\n" + "".join(f"k{i}: {i}\n" for i in range(40_000)))
    code, out, _ = run_cli("check", str(many))
    lines = out.splitlines()
    assert code == 1 and len(lines) == 51 and lines[-1] == "… and 39950 more problems"
    code, out, _ = run_cli("check", "--json", str(many))
    report = json.loads(out)["rulesets"][0]
    assert len(report["problems"]) == 50 and report["more_problems"] == 39_950


def test_quoted_values_are_cut_short(tmp_path: Path) -> None:
    """A 1,000-character key (YAML's longest) and 100,000-character values are quoted in a few dozen characters."""
    long = "q" * 100_000
    for n, body in enumerate((f"{long[:1000]}: 1\n", f"capture:\n  compulsory: {long}\n", f"id: Q{long}\n", f"capture:\n  target: !!int {long}\n")):
        mine = house(tmp_path, f"long{n}.yaml", f"dsl: 1\nextends: base\n{body}")
        code, out, _ = run_cli("check", str(mine))
        assert code == 1 and out.count("\n") == 1 and "qqqq…" in out, out[:300]
        one_line_each(out, 400)


@pytest.mark.parametrize(
    "value, message",
    [
        ("9" * 5000, f"'{'9' * 59}…' is too large a number for a ruleset (more than 15 digits)"),
        ("1.0e400", "'1.0e400' is not a finite number"),
        ("1.5e300", "'1.5e300' is too large a number for a ruleset (more than 15 digits)"),
        ("1234567890123456", "'1234567890123456' is too large a number for a ruleset (more than 15 digits)"),
    ],
    ids=["5000-digits", "infinite", "huge-float", "16-digits"],
)
def test_numbers_too_large_for_a_ruleset_are_problems(tmp_path: Path, value: str, message: str) -> None:
    """An integer of more digits than Python converts, or a number no float holds exactly, is a located problem."""
    mine = house(tmp_path, "big.yaml", f"dsl: 1\nextends: base\ncapture:\n  target: {value}\n")
    assert [f"{p.location.line}:{p.location.column}: {p.message}" for p in check(str(mine))] == [f"4:11: {message}"]


def _overflowing(tmp_path: Path) -> Path:
    factors = " * ".join(["999999999999999.5"] * 30)
    return house(
        tmp_path, "overflow.yaml",
        "dsl: 1\nextends: base\nscoring:\n  categories:\n"
        f"    - {{id: huge, title: Huge, measure: 'count(cards) * {factors}', award: {{policy: per_unit}}, points: 1}}\n",
    )  # fmt: skip


def test_a_measure_literal_over_fifteen_digits_is_refused_by_check(tmp_path: Path) -> None:
    """A 400-digit literal (an infinite float) is an expression error, so per_unit never sees it."""
    mine = house(
        tmp_path, "lit.yaml",
        "dsl: 1\nextends: base\nscoring:\n  categories:\n"
        f"    - {{id: huge, title: Huge, measure: 'count(cards) * {'9' * 400}.5', award: {{policy: per_unit}}, points: 1}}\n",
    )  # fmt: skip
    problems = check(str(mine))
    assert [p.message for p in problems] == ["number too large: at most 15 digits before the point"]
    assert problems[0].caret == len("count(cards) * ")


def test_a_measure_that_overflows_has_no_value_and_never_reaches_the_wire(tmp_path: Path) -> None:
    """A product of literals past the float range is no value (none), not inf: simulations run,
    and the engine's replies stay strict JSON (no Infinity, no NaN)."""
    mine = _overflowing(tmp_path)
    assert check(str(mine)) == []
    assert simulate(str(mine), 20).hands == 20
    rules = escoba.load_ruleset(str(mine))
    deck = [rules.deck.code[c] for c in rules.deck.cards]
    lines = [{"id": 1, "cmd": "hello", "protocol": 1},
             {"id": 2, "cmd": "start", "ruleset": rules.doc, "players": 2, "dealer": 0, "decks": [deck], "target": None}]  # fmt: skip
    engine, out = ReferenceEngine(), io.BytesIO()
    serve(engine, io.BytesIO(b"".join(json.dumps(x).encode() + b"\n" for x in lines)), out)
    while engine.hand is not None and not engine.hand.is_over:
        move = engine.legal_json(engine.hand)[0]
        serve(engine, io.BytesIO(json.dumps({"id": 3, "cmd": "play", "move": move}).encode() + b"\n"), out)

    def strict(name: str) -> Any:
        raise AssertionError(f"{name} on the wire")

    replies = [json.loads(line, parse_constant=strict) for line in out.getvalue().splitlines()]
    scores = [e for r in replies for e in r.get("events", []) if e["event"] == "score" and e["category"] == "huge"]
    assert scores and all(m is None for s in scores for m in s["measures"])


# --------------------------------------------------------------------------- unreadable inputs
@pytest.mark.parametrize(
    "argv, code, words",
    [
        (("check", "{fifo}"), 1, "not a regular file (a pipe, a device or a socket); a ruleset is a text file"),
        (("show", "{fifo}"), 1, "not a regular file"),
        (("play", "{fifo}"), 1, "not a regular file"),
        (("simulate", "{fifo}", "--hands", "5"), 1, "not a regular file"),
        (("bench", "{fifo}", "--hands", "5"), 1, "not a regular file"),
        (("diff", "{fifo}", "base", "--hands", "5"), 1, "not a regular file"),
        (("check", "/dev/zero"), 1, "/dev/zero: $: not a regular file"),
        (("check", "{tmp}"), 1, "is a directory, not a ruleset file"),
        (("conformance", "--cases-dir", "{cases}"), 1, "not a regular file (a pipe, a device or a socket); a case is a file"),
        (("conformance", "--case", ONE_CASE, "--expectations", "{fifo}"), 2, "cannot read expectations: not a regular file"),
        (("conformance", "--case", ONE_CASE, "--expectations", "/dev/zero"), 2, "cannot read expectations: not a regular file"),
        (("conformance", "--case", ONE_CASE, "--expectations", "{tmp}"), 2, "cannot read expectations: it is a folder"),
        (("diff", "da", "sv", "--transcript", "{fifo}"), 1, "not a regular file (a pipe, a device or a socket); a case is a file"),
    ],
    ids=["check-fifo", "show-fifo", "play-fifo", "simulate-fifo", "bench-fifo", "diff-fifo", "check-dev-zero",
         "check-folder", "case-folder-with-a-fifo", "expectations-fifo", "expectations-dev-zero",
         "expectations-folder", "transcript-fifo"],
)  # fmt: skip
def test_what_cannot_be_read_is_refused_not_waited_on(tmp_path: Path, fifo: Path, argv: tuple[str, ...], code: int, words: str) -> None:
    """FIFOs, devices and folders given as input are refused at once with the documented exit code."""
    cases = tmp_path / "cases"
    cases.mkdir()
    os.mkfifo(cases / "a-fifo.json")
    filled = [a.format(fifo=fifo, tmp=tmp_path, cases=cases) for a in argv]
    done = run(*filled, timeout=60)
    assert done.returncode == code, done
    assert words in (done.stdout + done.stderr).decode(), done


def test_an_expectations_file_goes_through_the_ruleset_guards(tmp_path: Path) -> None:
    """Not UTF-8, too large, a tag, too deep, NaN in JSON and a 5,000-digit index are each one ExpectationsError."""
    bad = {
        "latin1.yaml": b"cases:\n  a.b: {outcome: fail, note: \xf1}\n",
        "large.yaml": b"# " + b"x" * (2 << 20) + b"\n",
        "tag.yaml": b"cases: !!python/object/apply:os.system [true]\n",
        "deep.yaml": b"cases: " + b"[" * 100 + b"]" * 100 + b"\n",
        "nan.json": b'{"cases": {"a.b": {"outcome": "fail", "index": NaN}}}',
        "digits.json": b'{"cases": {"a.b": {"outcome": "fail", "index": ' + b"9" * 5000 + b"}}}",
    }
    for name, content in bad.items():
        (tmp_path / name).write_bytes(content)
        with pytest.raises(ExpectationsError) as raised:
            load_expectations(tmp_path / name)
        assert str(raised.value).startswith(f"{tmp_path / name}: "), str(raised.value)
        assert len(str(raised.value)) < 400 and "\n" not in str(raised.value)


def test_card_codes_must_be_ascii_and_name_one_card(tmp_path: Path) -> None:
    """A suit or rank whose ascii form is not ASCII letters and digits, and two cards (or a
    card and a joker) with one wire code, are problems of the ruleset."""
    unicode_suit = house(tmp_path, "u.yaml", "dsl: 1\nextends: base\ndeck:\n  suits:\n    - {id: oros, ascii: 'ó'}\n")
    assert [p.message for p in check(str(unicode_suit))] == [
        "the ascii form 'ó' must be ASCII letters and digits: it is part of a card's code on the wire"
    ]
    collide = house(
        tmp_path, "c.yaml",
        "dsl: 1\nextends: base\ndeck:\n  suits:\n    - {id: copas, ascii: 1d}\n  ranks:\n    - {id: sota, ascii: '11'}\n",
    )  # fmt: skip
    assert [p.message for p in check(str(collide))] == ["card code '11d' names both sota of oros and 1 of copas"]
    joker = house(
        tmp_path, "j.yaml",
        "dsl: 1\nextends: base\ndeck:\n  jokers: 1\n  suits:\n    - {id: copas, ascii: '1'}\n  ranks:\n    - {id: sota, ascii: X}\n",
    )  # fmt: skip
    assert "card code 'X1' names both sota of copas and joker 1" in [p.message for p in check(str(joker))]


# --------------------------------------------------------------------------- golden cases
def _case_copy(tmp_path: Path, change: Callable[[dict], Any] | None = None, text: Callable[[str], str] | None = None) -> Path:
    source = next(e for e in collect(patterns=[ONE_CASE]) if e.case is not None).case.path
    data = json.loads(source.read_text(encoding="utf-8"))
    if change is not None:
        change(data)
    body = json.dumps(data, indent=1)
    if text is not None:
        body = text(body)
    folder = tmp_path / "cases"
    folder.mkdir(exist_ok=True)
    (folder / source.name).write_text(body, encoding="utf-8")
    return folder


def _first(data: dict, event: str) -> dict:
    return next(e for e in data["expect"] if e["event"] == event)


@pytest.mark.parametrize(
    "change, text, words",
    [
        (lambda d: d.update(dealer=1.0), None, "$.dealer: 1.0 is not of type 'integer'"),
        (None, lambda t: t.replace('"players": 2', '"players": ' + "2" * 5000, 1), "not JSON: Exceeds the limit"),
        (None, lambda t: t.replace('"dealer": 1', '"dealer": NaN', 1).replace('"dealer": 0', '"dealer": NaN', 1), "not JSON: NaN is not JSON"),
        (lambda d: _first(d, "table")["cards"].__setitem__(0, "Zz"), None, "$.expect[2].cards[0]: unknown card code 'Zz' (not in the deck of base)"),
        (lambda d: d["hands"][0]["moves"].__setitem__(0, "1♦ x R♣"), None, "illegal move '1♦ x R♣'"),
    ],
    ids=["float-dealer", "huge-integer", "nan", "unknown-card-in-expect", "illegal-move-recorded"],
)  # fmt: skip
def test_a_broken_case_is_reported_as_broken_not_blamed_on_the_engine(tmp_path: Path, change: Any, text: Any, words: str) -> None:
    """A case that is itself wrong is outcome broken-case (exit 1), never pass, fail or error of the engine."""
    folder = _case_copy(tmp_path, change, text)
    code, out, _ = run_cli("conformance", "--cases-dir", str(folder), "--format", "json")
    result = json.loads(out)["cases"][0]
    assert code == 1 and result["outcome"] == "broken-case", result
    assert words in result["message"], result["message"]


# =========================================================================== outputs
@pytest.mark.parametrize(
    "target, words",
    [
        ("{tmp}/no-such-folder/known.yaml", "cannot write {tmp}/no-such-folder/known.yaml: no folder {tmp}/no-such-folder"),
        ("{tmp}", "{tmp} is a folder, not a file"),
        ("/dev/full", "/dev/full is not a regular file (a device or a pipe); write to a file"),
    ],
    ids=["missing-folder", "a-folder", "dev-full"],
)
def test_an_unwritable_expectations_file_is_refused_before_the_run(tmp_path: Path, target: str, words: str) -> None:
    """--write-expectations that cannot be written exits 2 before any engine is started."""
    marker = tmp_path / "engine-started"
    engine = f"{sys.executable} -c \"open('{marker}', 'w')\""
    code, _, err = run_cli("conformance", "--engine", engine, "--case", ONE_CASE, "--write-expectations", target.format(tmp=tmp_path))
    assert code == 2 and err == f"escoba conformance: --write-expectations: {words.format(tmp=tmp_path)}\n"
    assert not marker.exists()


@pytest.mark.parametrize(
    "target, words",
    [
        ("{tmp}/chart.nope", "--plot: cannot draw a '.nope' file; name it .png, .svg or .pdf (or "),
        ("{tmp}/chart", "--plot: cannot draw a file without an extension"),
        ("{tmp}/missing/chart.png", "--plot: cannot write {tmp}/missing/chart.png: no folder {tmp}/missing"),
        ("{tmp}", "--plot: cannot draw a file without an extension"),
        ("/proc/chart.png", "--plot: cannot write /proc/chart.png: "),  # a folder no file can be made in, even by root
    ],
    ids=["unknown-format", "no-extension", "missing-folder", "a-folder", "proc"],
)
def test_an_unwritable_chart_is_refused_before_the_simulation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str, words: str) -> None:
    """--plot with a format matplotlib cannot draw or a place it cannot write exits 2 before any hand is played."""

    def no_run(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the simulation ran")

    monkeypatch.setattr("escoba.diff.runner.run", no_run)
    code, _, err = run_cli("diff", "da", "sv", "--hands", "100000", "--plot", target.format(tmp=tmp_path))
    assert code == 2 and err.startswith(f"escoba diff: {words.format(tmp=tmp_path)}"), err


def test_a_record_file_that_cannot_be_made_is_refused_before_the_game() -> None:
    """play --record into a folder no file can be made in (/proc) exits 2 before the first deal, with one line."""
    done = run("play", "base", "--auto", "--record", "/proc/game.json")
    assert done.returncode == 2 and done.stdout == b"", done
    assert done.stderr.decode().startswith("escoba play: --record: cannot write /proc/game.json: "), done


def test_a_chart_gets_the_permissions_open_would_give(tmp_path: Path) -> None:
    """A result file made through a temporary file is 0666 less the umask, like any new file, not mkstemp's 0600."""
    from escoba.outputs import temporary_path

    with temporary_path(tmp_path / "chart.svg") as temp:
        Path(temp).write_text("<svg/>", encoding="utf-8")
    umask = os.umask(0)
    os.umask(umask)
    assert (tmp_path / "chart.svg").stat().st_mode & 0o777 == 0o666 & ~umask


def test_a_failed_write_keeps_the_old_expectations_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A write that fails half-way (a full disk) exits 2 and leaves the old file as it was, with no temporary file behind."""
    known = tmp_path / "known.yaml"
    known.write_text("format: 1\ncases: {}\n")

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(outputs.os, "fsync", full)
    code, _, err = run_cli("conformance", "--case", ONE_CASE, "--write-expectations", str(known))
    assert code == 2 and err.endswith(f"escoba conformance: --write-expectations: cannot write {known}: No space left on device\n"), err
    assert known.read_text() == "format: 1\ncases: {}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["known.yaml"]


def test_an_interrupted_write_leaves_the_old_file_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C in the middle of writing a result file leaves the old file and no temporary file."""
    target = tmp_path / "result.txt"
    target.write_text("old\n")

    def interrupted(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(outputs.os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        outputs.write_atomic(target, "new\n" * 1000)
    assert target.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["result.txt"]


def test_standard_output_that_refuses_writes_is_one_line_and_exit_2() -> None:
    """A full standard output (/dev/full) and a closed one (>&-) exit 2 with one line on stderr, the reference engine's too."""
    with open("/dev/full", "wb") as full:
        done = subprocess.run(escoba_cmd("show", "base"), stdout=full, stderr=subprocess.PIPE, timeout=120)
    assert done.returncode == 2 and done.stderr == b"escoba show: cannot write to standard output: No space left on device\n"
    done = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", *escoba_cmd("show", "base")], stderr=subprocess.PIPE, timeout=120)
    assert done.returncode == 2 and done.stderr == b"escoba show: standard output is closed; nothing could be written\n"
    with open("/dev/full", "wb") as full:
        done = subprocess.run(escoba_cmd("engine"), input=b'{"id": 1, "cmd": "hello", "protocol": 1}\n', stdout=full, stderr=subprocess.PIPE, timeout=120)
    assert done.returncode == 2 and done.stderr == b"escoba engine: cannot write to standard output: No space left on device\n"


def test_a_reader_that_goes_away_ends_the_command_quietly() -> None:
    """`escoba show base | head -1`: the closed pipe ends the command with status 0 and nothing on stderr."""
    proc = subprocess.Popen(escoba_cmd("matrix", "--format", "html"), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()
    assert proc.wait(120) == 0 and proc.stderr.read() == b""


@pytest.mark.parametrize(
    "argv",
    [("play", "base", "--auto", "--seed", "3"), ("play", "base", "--auto", "--ascii"), ("show", "base"), ("matrix",),
     ("diff", "da", "sv", "--hands", "40"), ("conformance", "--case", ONE_CASE), ("check", "nope/x.yaml")],
    ids=["play", "play-ascii", "show", "matrix", "diff", "conformance", "error-message"],
)  # fmt: skip
def test_any_output_encoding_works(argv: tuple[str, ...]) -> None:
    """Under PYTHONIOENCODING=cp1252 (Windows redirection) every command runs; cards show in ASCII."""
    done = run(*argv, env={"PYTHONIOENCODING": "cp1252"})
    assert done.returncode in (0, 2), done
    if argv[0] == "play":
        text = done.stdout.decode("cp1252")
        assert "♦" not in text and "deal: seat 0: " in text
        assert all(c in "1234567SCRdhsc" for c in text.split("deal: seat 0: ")[1].split()[0])


# =========================================================================== engines
def _run_fake(mode: str, *extra: str, timeout: float = 30.0) -> Any:
    # A generous timeout where the misbehaviour is not a silence: a loaded machine is slow, not wrong.
    runner = Runner(lambda: SubprocessSession([sys.executable, str(FAKE), mode, *extra], timeout=timeout))
    return runner.run(collect(patterns=[ONE_CASE]))


@pytest.mark.parametrize(
    "mode, words",
    [("id-true", "wrong id: reply id True does not echo request id "),
     ("extra-field", "protocol violation: start: reply has unknown field(s) 'debug' (allowed: id, ok, events)")],
)  # fmt: skip
def test_replies_are_held_to_the_protocol_schema(mode: str, words: str) -> None:
    """`"id": true` is not the id 1, and a field the protocol does not have is a protocol failure."""
    result = _run_fake(mode).results[0]
    assert (result.outcome, result.cls) == ("fail", "protocol") and result.message.startswith(words), result.message


def test_an_engines_escape_sequences_are_shown_escaped() -> None:
    """Terminal escape bytes an engine writes to stderr reach the report escaped, never raw."""
    result = _run_fake("stderr-escape", "--after", "0").results[0]
    assert result.outcome == "crash"
    assert "\x1b" not in result.stderr and "\x07" not in result.stderr
    assert "\\x1b[2J\\x1b]0;owned\\x07 the screen is cleared" in result.stderr


def test_an_engine_that_starts_its_own_session_leaves_nothing_behind(tmp_path: Path) -> None:
    """An engine whose child calls setsid() and is orphaned is killed with it after a timeout."""
    pidfile = tmp_path / "pids"
    report = _run_fake("setsid-hang", "--pidfile", str(pidfile), timeout=1.0)
    assert [r.outcome for r in report.results] == ["timeout"]
    pids = {int(p) for p in pidfile.read_text().split()}
    assert len(pids) == 2 and not all_gone(pids)


@pytest.mark.parametrize("value", ["nan", "inf", "0", "-1"])
def test_the_timeout_must_be_a_positive_finite_number(value: str) -> None:
    """--timeout nan (or inf, 0, -1) is a usage error, not a traceback."""
    code, _, err = run_cli("conformance", "--timeout", value)
    assert code == 2 and err.startswith("escoba conformance: --timeout must be more than 0 seconds"), err


def _sleep_then_pid(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def test_a_pool_never_starts_more_processes_than_tasks() -> None:
    """worker_pool(40 jobs, 2 tasks) runs two workers, not 40 (or 41)."""
    me = os.getpid()

    def children() -> set[int]:
        return {pid for pid, parent in processes._parents().items() if parent == me and alive(pid)} - {me}

    before = children()  # what earlier tests left running (a cluster's processes) is not the pool's
    with processes.worker_pool(40, 2) as pool:
        futures = [pool.submit(_sleep_then_pid, 0.5) for _ in range(2)]
        time.sleep(0.2)
        workers = children() - before
        assert {f.result() for f in futures} <= workers
    assert len(workers) <= 2, workers


def test_until_resolved_keeps_a_pool_no_larger_than_its_largest_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    """`diff --until-resolved --jobs 40` over batches of two chunks (a hand chunk, a match chunk) starts two workers, not 40."""
    sizes: list[int] = []
    real = processes.worker_pool

    def recording(jobs: int, tasks: int, *rest: Any) -> Any:
        sizes.append(min(jobs, tasks))
        return real(jobs, tasks, *rest)

    monkeypatch.setattr(processes, "worker_pool", recording)
    code, _, err = run_cli("diff", "da", "sv", "--until-resolved", "--batch", "2", "--max-hands", "4", "--jobs", "40", "--format", "json")
    assert code == 0, err
    assert sizes == [2]


def test_the_engine_refuses_what_is_not_strict_json_and_goes_on() -> None:
    """A NaN id, a 5,000-digit number and a 200 MB line each get a bad_json reply with a null
    id, in strict JSON; the engine answers the next request, and its memory stays bounded."""
    proc = subprocess.Popen(escoba_cmd("engine"), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(b'{"id": NaN, "cmd": "hello", "protocol": 1}\n{"id": ' + b"9" * 5000 + b', "cmd": "hello"}\n')
        proc.stdin.write(b'{"id": 1, "cmd": "hello", "protocol": 1, "pad": "')
        chunk = b"a" * (1 << 20)
        for _ in range(200):
            proc.stdin.write(chunk)
        proc.stdin.write(b'"}\n{"id": 2, "cmd": "hello", "protocol": 1}\n')
        proc.stdin.flush()
        replies = [json.loads(proc.stdout.readline(), parse_constant=lambda name: pytest.fail(name)) for _ in range(4)]
        with open(f"/proc/{proc.pid}/status") as status:
            peak_kib = next(int(line.split()[1]) for line in status if line.startswith("VmHWM"))
    finally:
        proc.stdin.close()
        proc.wait(30)
    assert [(r["id"], r["ok"]) for r in replies] == [(None, False), (None, False), (None, False), (2, True)]
    assert replies[0]["error"]["message"] == "not JSON: NaN is not JSON"
    assert replies[1]["error"]["message"].startswith("not JSON: Exceeds the limit (4300 digits)")
    assert replies[2]["error"]["message"] == "request line longer than 16777216 bytes (not read)"
    assert peak_kib < 150_000, f"{peak_kib} KiB: the long line was read whole"


# =========================================================================== signals
class _Command:
    """A command run in a session of its own (as a terminal's foreground job), its output read
    as it comes so that it never blocks on a full pipe."""

    def __init__(self, argv: list[str], stdin: bool = False):
        self.proc = subprocess.Popen(
            argv, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
        )  # fmt: skip
        self.out = bytearray()
        self.err = bytearray()
        for pipe, sink in ((self.proc.stdout, self.out), (self.proc.stderr, self.err)):
            threading.Thread(target=self._drain, args=(pipe, sink), daemon=True).start()

    @staticmethod
    def _drain(pipe: Any, sink: bytearray) -> None:
        for chunk in iter(lambda: pipe.read1(65536), b""):
            sink.extend(chunk)

    def wait_for(self, ready: Callable[[], bool], seconds: float = 90) -> None:
        end = time.monotonic() + seconds
        while not ready():
            assert self.proc.poll() is None, (self.out[-500:], self.err[-2000:])
            assert time.monotonic() < end, "the command never got going"
            time.sleep(0.05)

    def processes(self) -> set[int]:
        return {self.proc.pid} | processes.descendants(self.proc.pid)


def _workers_running(cmd: _Command) -> Callable[[], bool]:
    return lambda: len([p for p in processes.descendants(cmd.proc.pid) if alive(p)]) >= 2


def _setup(kind: str, tmp_path: Path) -> tuple[_Command, Callable[[], bool], set[int]]:
    """Start a command and say when it is in the thick of its work, and which pids to watch."""
    extra: set[int] = set()
    if kind == "simulate":
        cmd = _Command(escoba_cmd("simulate", "base", "--hands", "10000000", "--jobs", "2"))
        return cmd, _workers_running(cmd), extra
    if kind == "diff":
        cmd = _Command(escoba_cmd("diff", "da", "sv", "--hands", "10000000", "--jobs", "2"))
        return cmd, _workers_running(cmd), extra
    if kind == "until-resolved":  # one pool kept for every batch (diff/runner.new_pool)
        cmd = _Command(escoba_cmd("diff", "da", "sv", "--until-resolved", "--batch", "5000000", "--max-hands", "10000000", "--jobs", "2"))
        return cmd, _workers_running(cmd), extra
    if kind == "conformance":
        pidfile = tmp_path / "pids"
        engine = f"{sys.executable} {FAKE} setsid-hang --pidfile {pidfile}"
        cmd = _Command(escoba_cmd("conformance", "--engine", engine, "--case", ONE_CASE, "--timeout", "600"))
        return cmd, pidfile.exists, extra
    if kind == "conformance-jobs":  # two engines side by side, each hanging in a session of its own
        piddir = tmp_path / "pids"
        piddir.mkdir()
        engine = f"{sys.executable} {FAKE} setsid-hang --piddir {piddir}"
        cmd = _Command(escoba_cmd("conformance", "--engine", engine, "--case", "base.2p.*", "--jobs", "2", "--timeout", "600"))
        return cmd, lambda: len(list(piddir.glob("[0-9]*[0-9]"))) >= 2, extra
    if kind == "handshake":  # an engine that never answers hello
        engine = f"{sys.executable} -c 'import time; time.sleep(600)'"
        cmd = _Command(escoba_cmd("conformance", "--engine", engine, "--case", ONE_CASE))
        return cmd, lambda: bool(processes.descendants(cmd.proc.pid)), extra
    if kind == "site":  # its conformance run is a child process, whose engine hangs in a session of its own
        pidfile = tmp_path / "pids"
        engine = f"{sys.executable} {FAKE} setsid-hang --pidfile {pidfile}"
        cmd = _Command(escoba_cmd("site", "--out", str(tmp_path / "site"), "--engine", engine, "--timeout", "600", "--quiet"))
        return cmd, pidfile.exists, extra
    if kind == "play":
        cmd = _Command(escoba_cmd("play", "base"), stdin=True)
        return cmd, lambda: b"your move> " in cmd.out, extra
    cmd = _Command(escoba_cmd("engine"), stdin=True)
    assert cmd.proc.stdin is not None
    cmd.proc.stdin.write(b'{"id": 1, "cmd": "hello", "protocol": 1}\n')
    cmd.proc.stdin.flush()
    return cmd, lambda: b'"ok":true' in cmd.out, extra


SIGNALS = {"SIGINT": (signal.SIGINT, 130, "interrupted"), "SIGTERM": (signal.SIGTERM, 143, "terminated"),
           "SIGHUP": (signal.SIGHUP, 143, "terminated")}  # fmt: skip


@pytest.mark.parametrize("signame", list(SIGNALS))
@pytest.mark.parametrize(
    "kind", ["simulate", "diff", "until-resolved", "conformance", "conformance-jobs", "handshake", "site", "play", "engine"]
)
def test_a_stop_signal_ends_every_command_cleanly(tmp_path: Path, kind: str, signame: str) -> None:
    """Ctrl-C (to the whole foreground group, as a terminal sends it), SIGTERM and SIGHUP end
    the command within 2 s with 130, 143 and 143, one word on stderr, and no worker, engine
    or engine's detached child left."""
    signum, code, word = SIGNALS[signame]
    cmd, ready, _ = _setup(kind, tmp_path)
    try:
        cmd.wait_for(ready)
        watched = cmd.processes()
        if kind in ("conformance", "site"):
            watched |= {int(p) for p in (tmp_path / "pids").read_text().split()}
        if kind == "conformance-jobs":
            watched |= {int(p) for f in (tmp_path / "pids").glob("[0-9]*[0-9]") for p in f.read_text().split()}
        began = time.monotonic()
        if signum == signal.SIGINT:
            os.killpg(cmd.proc.pid, signum)
        else:
            os.kill(cmd.proc.pid, signum)
        status = cmd.proc.wait(30)
        seconds = time.monotonic() - began
    finally:
        with contextlib.suppress(OSError):
            os.killpg(cmd.proc.pid, signal.SIGKILL)
        if cmd.proc.poll() is None:
            cmd.proc.kill()
    time.sleep(0.1)  # let the pipe threads take the last bytes
    assert status == code, (status, bytes(cmd.err[-2000:]))
    assert seconds <= STOP_LIMIT, f"{seconds:.2f} s"
    assert bytes(cmd.err).endswith(f"{word}\n".encode()) and b"Traceback" not in cmd.err, bytes(cmd.err[-2000:])
    assert not all_gone(watched), "left running"


def test_pool_workers_die_when_their_parent_is_killed() -> None:
    """SIGKILL, which no handler sees, still takes the pool workers with it (PR_SET_PDEATHSIG)."""
    cmd = _Command(escoba_cmd("simulate", "base", "--hands", "10000000", "--jobs", "2"))
    try:
        cmd.wait_for(_workers_running(cmd))
        workers = processes.descendants(cmd.proc.pid)
        os.kill(cmd.proc.pid, signal.SIGKILL)
        cmd.proc.wait(30)
    finally:
        with contextlib.suppress(OSError):
            os.killpg(cmd.proc.pid, signal.SIGKILL)
    assert workers and not all_gone(workers, STOP_LIMIT)


def test_only_the_first_stop_signal_raises() -> None:
    """Inside signals_handled a SIGTERM raises Terminated once; a second one during the cleanup
    is dropped; the previous handlers come back afterwards."""
    before = signal.getsignal(signal.SIGTERM)
    cleaned = False
    with pytest.raises(processes.Terminated), processes.signals_handled():
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(1)
        finally:
            os.kill(os.getpid(), signal.SIGTERM)  # would raise again, half-way through cleaning up
            time.sleep(0.05)
            cleaned = True
    assert cleaned and signal.getsignal(signal.SIGTERM) == before



def test_signal_handling_is_left_alone_outside_the_main_thread() -> None:
    """Only the main thread may set signal handlers (elsewhere `signal.signal` raises
    ValueError): in another thread the blocks run unchanged, and the handlers stay as they were."""
    before = signal.getsignal(signal.SIGTERM)
    seen: list[Any] = []

    def elsewhere() -> None:
        try:
            with processes.signals_handled(), processes.stops_deferred():
                seen.append(signal.getsignal(signal.SIGTERM))
        except BaseException as problem:  # reported by the assertion below
            seen.append(problem)

    worker = threading.Thread(target=elsewhere)
    worker.start()
    worker.join()
    assert seen == [before]
    with processes.signals_handled():  # and in the main thread, they are set
        assert signal.getsignal(signal.SIGTERM) is not before
    assert signal.getsignal(signal.SIGTERM) == before


def test_a_stop_inside_stops_deferred_raises_when_the_block_ends() -> None:
    """A SIGTERM while a process is being started is held: the block runs to its end, then Terminated is raised."""
    finished = False
    with pytest.raises(processes.Terminated), processes.signals_handled():
        with processes.stops_deferred():
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.2)
            finished = True
        pytest.fail("the held stop was not raised")
    assert finished
