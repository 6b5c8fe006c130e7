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


def test_base_fr_under_greedy_and_random_finds_the_escoba_change_negligible_and_bot_sensitive():
    """The documented `escoba diff base fr --bots greedy --second-bots random` (the test above
    pins it to the real output) calls the escobas under greedy play negligible or within noise, where random play
    shows them lower, and marks that row bot-sensitive; all points stay lower under both."""
    block = next(b for kind, command, b in examples() if command == "diff base fr --bots greedy --second-bots random")
    rows = {}
    for line in block.splitlines():
        cells = re.split(r"\s{2,}", line.strip())
        if len(cells) == 8:
            rows[cells[0]] = cells
    header = rows["headline"]
    assert header[2:] == ["B − A (greedy)", "what the interval shows", "B − A (random)", "under random", "bot-sensitive?",
                          "resolved?"]  # fmt: skip
    escobas = rows["escobas made per hand"]
    assert escobas[3] in ("below 0.1 escobas", "unresolved") and escobas[5] == "lower under fr" and escobas[6] == "yes"
    points = rows["all points per hand"]
    assert points[3] == points[5] == "lower under fr" and points[6] == "no"
