"""docs/bots.md shows the output of two benchmark scripts, the bot ladder (benchmarks/bots.py)
and the time of a skilled-play diff (benchmarks/diff.py), each under the command that made it.
Here the commands must be the scripts' own and the shown output must have the shape the
scripts print for those commands: the same rows, columns and lines. Not the figures: they come
from a run of minutes to hours on a shared machine, and are a benchmark's, never a test's."""

from __future__ import annotations

import importlib.util
import re
import shlex
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).parents[1]
DOC = ROOT / "docs" / "bots.md"
NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def script(name: str) -> ModuleType:
    """benchmarks/NAME.py as a module (a script, not a package module)."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def section(marker: str) -> tuple[list[str], list[str]]:
    """The command of the ```sh block after `<!-- marker -->` (its arguments after the script's
    path) and the lines that follow it up to the next blank line after the output."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index(f"<!-- {marker} -->")
    block = re.search(r"```sh\n(.*?)\n```\n", text[start:], re.S)
    assert block is not None, f"no command under <!-- {marker} -->"
    words = shlex.split(block.group(1))
    assert words[0] == "python" and words[1].startswith("benchmarks/"), words
    rest = text[start + block.end() :]
    output = re.match(r"\n?```text\n(.*?)\n```\n", rest, re.S)
    if output:
        return words[2:], output.group(1).splitlines()
    shown = re.match(r"\n?(.*?\n\d[\d,]* deals per pair[^\n]*)\n", rest, re.S)  # the tables, then the closing line
    assert shown is not None, f"no output under <!-- {marker} -->"
    return words[2:], shown.group(1).splitlines()


def shape(line: str) -> str:
    """A line with every number (and sign) made the same, and its spacing: what a run cannot change."""
    return " ".join(NUMBER.sub("N", line.replace("+", "")).replace("-N", "N").split())


LADDERS = re.findall(r"<!-- (ladder[\w-]*) -->", DOC.read_text(encoding="utf-8"))


def test_the_ladders_are_found():
    """docs/bots.md marks the whole ladder and the strong search's runs, so the test below checks them."""
    assert "ladder" in LADDERS and len(LADDERS) >= 4, LADDERS


@pytest.mark.parametrize("marker", LADDERS)
def test_the_ladder_is_shown_as_benchmarks_bots_prints_it(marker):
    """Each ladder's command parses with benchmarks/bots.py's options, and the tables under it
    have the rows and columns the script prints for that command's pairs and games, each cell
    in the script's format, then its closing line."""
    bots = script("bots")
    argv, lines = section(marker)
    args = bots.build_parser().parse_args(argv)
    assert args.format == "markdown"
    fake = {(pair, game): bots.Tally(leads=[0.5, 1.5], cpu=[0.001, 0.002], decisions=[1, 1])
            for pair in args.pairs for game in args.games}  # fmt: skip
    expected = [bots.markdown(rows) for rows in bots.tables(fake, args.pairs, args.games)]
    shown = "\n".join(lines).split("\n\n")
    assert len(shown) == 3, "two tables and the closing line"
    for table, want in zip(shown, expected):
        assert [shape(row) for row in table.splitlines()] == [shape(row) for row in want.splitlines()]
    assert shape(shown[2]).startswith(shape(f"{args.deals:,} deals per pair and game, each played once per side;"))
    assert f"--jobs {args.jobs}" in shown[2]


def test_the_diff_time_is_shown_as_benchmarks_diff_prints_it():
    """The skilled-play diff's command parses with benchmarks/diff.py's options, and the output
    under it is the script's: a yardstick line, one line per round, the medians."""
    diff = script("diff")
    argv, lines = section("diff-time")
    args = diff.build_parser().parse_args(argv)
    shown = " ".join(["escoba", "diff", args.a, args.b, "--hands", str(args.hands), "--jobs", str(args.jobs)]
                     + (["--bots", args.bots] if args.bots else []))  # fmt: skip
    assert args.bots, "a skilled-play diff names its bot"
    assert lines[0].startswith("yardstick: ")
    rounds = lines[1:-1]
    assert len(rounds) == args.rounds
    for r, line in enumerate(rounds, 1):
        assert shape(line) == shape(diff.round_line(r, shown, 1.0, 1.0, (1.0, 1.0), 1.0))
    assert shape(lines[-1]) == shape(diff.median_line(args.rounds, shown, [1.0], [1.0], [1.0]))
