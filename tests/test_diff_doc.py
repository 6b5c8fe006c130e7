"""docs/diff.md cannot drift: its example outputs are what `escoba diff` prints, word for word.

A block preceded by `<!-- output: escoba diff ARGS -->` is the whole output of that command; one
preceded by `<!-- excerpt: escoba diff ARGS -->` is a run of whole lines of it.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from escoba.cli.main import main
from escoba.data import data_root

DOC = Path(__file__).parents[1] / "docs" / "diff.md"
MARK = re.compile(r"<!-- (output|excerpt): escoba (diff [^>]*?) -->\n```[a-z]*\n(.*?)```", re.S)


def examples() -> list[tuple[str, str, str]]:
    return MARK.findall(DOC.read_text(encoding="utf-8"))


def test_the_document_has_its_examples():
    """docs/diff.md marks its examples (random and search play among them), so the test below checks them."""
    commands = [command for _, command, _ in examples()]
    assert len(commands) >= 3
    assert any("--bots search" in c for c in commands) and any("--bots" not in c for c in commands)


@pytest.mark.parametrize("kind, command, block", examples(), ids=[c for _, c, _ in examples()])
def test_an_example_in_docs_diff_md_is_what_the_command_prints(capsys, monkeypatch, kind, command, block):
    """The documented output (or excerpt) is exactly what the command prints today."""
    # Run where the documented paths (spec/…) are, in a checkout or an installed escoba alike.
    monkeypatch.chdir(data_root())
    assert main(shlex.split(command)) == 0
    out = capsys.readouterr().out
    if kind == "output":
        assert block == out
    else:
        assert block in out and (out.startswith(block) or ("\n" + block) in out)
