"""Every command that reads a ruleset, against the shared hostile ruleset files.

A FIFO (never to be waited on), /dev/zero (never to be read to its end), binary data, an
`extends:` out of the folder, an alias bomb, and a valid ruleset whose title holds escape
sequences and line breaks. An invalid file is exit 1 with its problems (one line each), the
valid one exit 0 with its title escaped wherever it is printed; nothing is ever written but the
named outputs, in bounded time and memory.

By default each file meets one command in turn (and `check` meets them all); with
ESCOBA_HOSTILE=deep every file meets every command.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .conftest import DEEP, run_escoba

FILES = {
    "fifo": None,  # made in the scratch folder
    "dev-zero": "/dev/zero",
    "binary": b"dsl: 1\nextends: base\n\x00\x01\xff",
    "extends-outside": b'dsl: 1\nextends: "../../../../etc/passwd"\n',
    "alias-bomb": (
        "dsl: 1\nextends: base\n" + 'a0: &a0 ["' + "x" * 100 + '"]\n'
        + "".join(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]\n" for i in range(1, 10))
    ).encode(),
    "hostile-title": b'dsl: 1\nid: evil\nkind: house\nextends: base\ntitle: "Evil\\e[2J\\a\\nOK: all valid\\u202e"\n',
}

# (the command line with X for the file, the outputs it writes)
COMMANDS = {
    "check": (["check", "X"], []),
    "show": (["show", "X"], []),
    "play": (["play", "X", "--auto", "--seed", "1"], []),
    "simulate": (["simulate", "X", "--hands", "20"], []),
    "bench": (["bench", "X", "--hands", "20"], []),
    "diff": (["diff", "X", "base", "--hands", "20"], []),
    "matrix": (["matrix", "--rulesets", "base,X"], []),
    "new": (["new", "mine", "--extends", "X"], ["mine.yaml"]),
    "cases": (["cases", "generate", "X", "--out", "o"], ["o"]),
    "conformance": (["conformance", "--ruleset", "X", "--list"], []),
}

_names, _commands = list(FILES), list(COMMANDS)
DEFAULT = {("check", f) for f in _names} | {(_commands[1 + k % (len(_commands) - 1)], f) for k, f in enumerate(_names)}
DEFAULT |= {("show", "hostile-title"), ("new", "hostile-title")}  # YAML out of a title: the deep profile found show's
PAIRS = [(c, f) for c in _commands for f in _names if DEEP or (c, f) in DEFAULT]


def _expected(command: str, name: str) -> int:
    if name == "hostile-title":
        return 0
    return 1  # a pipe or a device too: the loader says what it is (once conformance called it missing)


@pytest.mark.parametrize("command, name", PAIRS, ids=[f"{c}-{f}" for c, f in PAIRS])
def test_a_hostile_ruleset_file_is_its_problems_or_its_escaped_title(work: Path, command: str, name: str) -> None:
    """Exit 1 with the file's problems (or 0 for the valid file), nothing raw on the terminal,
    nothing written but the named outputs, no process left, bounded time and memory."""
    if name == "fifo":
        os.mkfifo(work / "ruleset.yaml")
        path = "ruleset.yaml"
    elif isinstance(FILES[name], bytes):
        (work / "ruleset.yaml").write_bytes(FILES[name])  # type: ignore[arg-type]
        path = "ruleset.yaml"
    else:
        path = str(FILES[name])
    argv, named = COMMANDS[command]
    ran = run_escoba(*(a.replace("X", path) for a in argv), work=work, named=named)
    ran.assert_clean(seconds=120)
    assert ran.code == _expected(command, name), (ran.code, ran.out[-1500:], ran.err[-1500:])
    if ran.code == 1:
        problems = (ran.out + ran.err).strip().splitlines()
        assert problems and all(line.startswith(path) for line in problems), problems[:5]
    if name == "hostile-title" and command in ("matrix", "new", "diff"):
        shown = ran.out + ((work / "mine.yaml").read_text(encoding="utf-8") if command == "new" else "")
        assert "Evil\\x1b[2J\\x07" in shown and "valid\\u202e" in shown  # (a Markdown cell has a space for the line break)
