"""docs/research.md cannot drift: its examples run and print what it shows, and its bounds table
is what the bridges report."""

from __future__ import annotations

import doctest
import os
import re
from pathlib import Path

import pyspiel

import escoba.research.openspiel  # noqa: F401  (registers the games the table loads)

ROOT = Path(__file__).parents[1]
DOC = ROOT / "docs" / "research.md"
TABLE = [("da", 2), ("da", 4), ("fr", 3), ("de", 4), ("de-jokers", 2), ("de-redeal", 2), ("scopone", 4),
         ("cirulla", 2), ("velo-escoba-double", 2)]  # fmt: skip


def test_the_examples_print_what_the_document_shows():
    """Every ```pycon block, run in order in one namespace from the repository's root (the
    examples name spec/ files), prints exactly what follows each prompt."""
    text = DOC.read_text(encoding="utf-8")
    blocks = re.findall(r"```pycon\n(.*?)```", text, re.S)
    assert len(blocks) >= 4
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    names: dict = {}
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        for k, block in enumerate(blocks):
            test = parser.get_doctest(block, names, f"research.md block {k + 1}", str(DOC), 0)
            runner.run(test, clear_globs=False)
            names = test.globs  # a DocTest runs in a copy: the next block starts from what this one left
    finally:
        os.chdir(here)
    assert runner.summarize(verbose=False).failed == 0


def bounds_table() -> str:
    rows = ["| ruleset | players | actions | longest hand | lead | observation | information state |",
            "|---|---|---|---|---|---|---|"]  # fmt: skip
    for ruleset, players in TABLE:
        game = pyspiel.load_game("python_escoba", {"ruleset": ruleset, "players": players})
        state = game.new_initial_state()
        lead = game.max_utility()
        assert game.min_utility() == -lead
        rows.append(f"| `{ruleset}` | {players} | {game.num_distinct_actions()} | {game.max_game_length()} | "
                    f"±{lead:g} | {len(state.observation_tensor(0)):,} | {len(state.information_state_tensor(0)):,} |")  # fmt: skip
    return "\n".join(rows)


def test_the_bounds_table_is_what_the_games_report():
    """The table under <!-- bounds-table --> is regenerated from the games, row for row."""
    text = DOC.read_text(encoding="utf-8")
    shown = text.split("<!-- bounds-table -->\n", 1)[1].split("\n\n", 1)[0]
    assert shown == bounds_table()
