"""docs/simulate.md cannot drift: every `escoba simulate` example in it prints what it shows.

Each ```console block whose first line is `$ escoba simulate …` and that shows output is run
in this process and its standard output compared with the block, line for line.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from escoba.cli import main as cli

DOC = Path(__file__).parents[1] / "docs" / "simulate.md"


def _examples() -> list[tuple[list[str], str]]:
    found = []
    for block in re.findall(r"```console\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S):
        first, _, output = block.partition("\n")
        if first.startswith("$ escoba simulate ") and output.strip():
            found.append((shlex.split(first[2:])[1:], output))
    return found


def test_the_document_has_simulate_examples():
    """docs/simulate.md shows at least the hands and the matches examples."""
    commands = [" ".join(argv) for argv, _ in _examples()]
    assert any("--hands" in c for c in commands) and any("--matches" in c for c in commands)


@pytest.mark.parametrize("argv, output", _examples(), ids=lambda x: " ".join(x) if isinstance(x, list) else "")
def test_simulate_example_prints_what_the_document_shows(argv, output, capsys):
    """The documented command prints exactly the documented report."""
    assert cli.main(argv) == 0
    assert capsys.readouterr().out == output
