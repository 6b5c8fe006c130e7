"""docs/identify.md's example outputs are what the commands print now.

Each example follows a marker `<!-- example: NAME -->`; the producer of that name runs the
command it shows, on a mutant engine of tests/engines standing for "my engine", and the block
must be its output, timings aside. To refresh the docs after a deliberate change:
`python tests/test_identify_doc.py` prints every block.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
DOC = ROOT / "docs" / "identify.md"


def cli(*args: str) -> str:
    """`escoba ARGS` run from the checkout, as a console transcript (stdout only)."""
    from escoba.cli.main import main

    out = io.StringIO()
    with contextlib.chdir(ROOT), contextlib.redirect_stdout(out):
        main(list(args))
    return out.getvalue()


def mutant(name: str) -> tuple[str, str]:
    """The command that serves mutant `name`, and how the doc shows it."""
    return f"{shlex.quote(sys.executable)} tests/engines/mutant_engine.py {name}", f"python tests/engines/mutant_engine.py {name}"


def explore() -> str:
    engine, label = mutant("opening-15-not-escoba")
    with tempfile.TemporaryDirectory() as folder:
        output = cli("explore", "--engine", engine, "--ruleset", "da", "--games", "30", "--first", "--out", folder)
        output = output.replace(folder, "found")
    command = f"escoba explore --engine '{label}' --ruleset da --games 30 --first --out found"
    return f"$ {command}\n" + output.replace(shlex.quote(engine), shlex.quote(label)).replace(engine, label)


def shrink() -> str:
    engine, label = mutant("capture-optional")
    case = "conformance/cases/rules/compulsory.card.da.json"
    with tempfile.TemporaryDirectory() as folder:
        output = cli("shrink", case, "--engine", engine, "--out", folder).replace(folder, "shrunk")
    return f"$ escoba shrink {case} --engine '{label}' --out shrunk\n{output}"


def identify() -> str:
    engine, label = mutant("leftovers-to-dealer")
    with tempfile.TemporaryDirectory() as folder:
        output = cli("identify", "--engine", engine, "--ruleset", "da", "--games", "4", "--out", folder).replace(folder, "inferred")
    command = f"escoba identify --engine '{label}' --ruleset da --games 4 --out inferred"
    return f"$ {command}\n" + output.replace(engine, label)


def impostor() -> str:
    engine, label = mutant("plays:sv")
    output = cli("identify", "--engine", engine, "--games", "4")
    return f"$ escoba identify --engine '{label}' --games 4\n" + output.replace(engine, label)


PRODUCERS: dict[str, Callable[[], str]] = {
    "explore": explore,
    "shrink": shrink,
    "identify": identify,
    "impostor": impostor,
}


def blocks() -> dict[str, str]:
    """The block after each `<!-- example: NAME -->` marker of the doc."""
    text = DOC.read_text(encoding="utf-8")
    return {m.group(1): m.group(2) for m in re.finditer(r"<!-- example: ([\w-]+) -->\n```\w*\n(.*?)```", text, re.S)}


def normal(text: str) -> str:
    return re.sub(r"\d+\.\d s\b", "N s", text)


def test_every_example_has_a_producer():
    """Each marked example in the doc has a producer here, and each producer an example."""
    assert set(blocks()) == set(PRODUCERS)


@pytest.mark.parametrize("name", sorted(PRODUCERS))
def test_the_example_is_what_the_command_prints(name):
    """The example block is the command's output now (run times aside)."""
    assert normal(blocks()[name]) == normal(PRODUCERS[name]())


if __name__ == "__main__":
    for name, produce in PRODUCERS.items():
        print(f"<!-- example: {name} -->\n```console\n{produce()}```\n")
