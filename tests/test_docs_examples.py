"""The console examples in docs/ cannot drift: each shows what its command prints today.

A page's examples are the ```console blocks whose lines starting with `$ ` are commands; the
lines after a command, up to the next one, are what it prints (standard output). The page's
files come first: a fenced block right after `<!-- file: NAME -->` is written to NAME in a
fresh folder (beside links to the bundled `spec/` and `schemas/`; `<!-- invalid file: NAME -->`
for a file with mistakes on purpose, which tests/test_editor_schema.py then does not expect to
validate), where the commands then run,
in process, as `escoba` would. What is shown is compared line for line:

- the whole output, by default;
- its first lines, when the last line shown is `...`;
- a run of whole lines of it, in a block right after `<!-- excerpt -->`.

A command that prints what no run can repeat (an install path, a file another tool writes) is
shown in a block right after `<!-- not run: why -->`. Pages with tests of their own are checked
there (docs/simulate.md, diff.md, conformance.md, identify.md); `test_every_console_output_in_docs_is_checked`
fails for any other page's output that no test checks.

After a deliberate change, `python tests/test_docs_examples.py docs/house-rules.md` rewrites
the page's whole-output blocks with what the commands print now (excerpts and first lines are
chosen by hand, and only reported).

docs/house-rules.md's "What the DSL cannot say yet" is generated too: the text between its
`begin:`/`end:` markers is `escoba.diff.unsupported.markdown()`.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
CHECKED = ("house-rules.md", "dsl.md", "editors.md", "transcripts.md")  # the pages this module runs
OWN_TESTS = ("simulate.md", "diff.md", "conformance.md", "identify.md")  # pages with tests of their own
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.M | re.S)
MARK = re.compile(r"<!-- (file|invalid file|excerpt|not run)(?:: ([^>]*?))? -->\n\Z")
UNSUPPORTED = re.compile(r"(<!-- begin: python -m escoba\.diff\.unsupported -->\n)(.*?)(<!-- end: python -m escoba\.diff\.unsupported -->)", re.S)


@dataclass
class Example:
    command: str
    shown: list[str]
    mode: str  # "whole", "first" or "excerpt"
    line: int  # of the command in the page
    alone: bool = False  # the only command of its block (a block to fill, when it shows nothing yet)

    @property
    def argv(self) -> list[str]:
        return shlex.split(self.command, comments=True)


@dataclass
class Page:
    path: Path
    files: dict[str, str] = field(default_factory=dict)
    examples: list[Example] = field(default_factory=list)
    not_run: list[tuple[int, str]] = field(default_factory=list)  # (line, why)


def read(path: Path) -> Page:
    text = path.read_text(encoding="utf-8")
    page = Page(path)
    for block in FENCE.finditer(text):
        mark = MARK.search(text, 0, block.start())
        kind, arg = (mark[1], mark[2]) if mark is not None and mark.end() == block.start() else (None, None)
        line = text.count("\n", 0, block.start()) + 2
        if kind in ("file", "invalid file"):
            page.files[str(arg)] = block[2]
        elif block[1] == "console" and kind == "not run":
            page.not_run.append((line, str(arg)))
        elif block[1] == "console":
            page.examples += _examples(block[2], line, "excerpt" if kind == "excerpt" else None)
    return page


def _examples(body: str, first_line: int, mode: str | None) -> list[Example]:
    found: list[Example] = []
    for n, row in enumerate(body.splitlines()):
        if row.startswith("$ "):
            found.append(Example(row[2:], [], mode or "whole", first_line + n))
        elif found:
            found[-1].shown.append(row)
    for example in found:
        example.alone = len(found) == 1
        if mode is None and example.shown[-1:] == ["..."]:
            example.shown, example.mode = example.shown[:-1], "first"
    return found


def run(example: Example, folder: Path) -> str:
    """What `escoba ARGS` prints on its standard output, run in `folder`."""
    from escoba.cli.main import main

    argv = example.argv
    assert argv[0] == "escoba", f"line {example.line}: not an escoba command: {example.command}"
    out = io.StringIO()
    with contextlib.chdir(folder), contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        try:
            main(argv[1:])
        except SystemExit:  # argparse's --help
            pass
    return out.getvalue()


def folder_for(page: Page, where: Path) -> Path:
    """A fresh folder with the page's files and links to the bundled spec/ and schemas/."""
    from escoba.data import data_root

    where.mkdir(parents=True, exist_ok=True)
    for name in ("spec", "schemas"):
        os.symlink(data_root() / name, where / name)
    for name, text in page.files.items():
        (where / name).write_text(text, encoding="utf-8")
    return where


def agrees(example: Example, printed: str) -> bool:
    lines = printed.splitlines()
    if example.mode == "whole":
        return lines == example.shown
    if example.mode == "first":
        return lines[: len(example.shown)] == example.shown
    n = len(example.shown)
    return n > 0 and any(lines[i : i + n] == example.shown for i in range(len(lines) - n + 1))


# --------------------------------------------------------------------------- the tests


def _cases() -> list[tuple[str, Example]]:
    """The examples that show output (a list of commands with comments shows none), and those
    alone in their block, which are there for their output."""
    return [(name, e) for name in CHECKED for e in read(DOCS / name).examples if e.shown or e.mode != "whole" or e.alone]


# What a page's command printed in a fresh folder of the page's files: the same command shown
# again (excerpts of one `escoba diff`, each a greedy run of seconds) is not run again.
_printed: dict[tuple[str, str], str] = {}


@pytest.mark.parametrize("name, example", _cases(), ids=lambda x: x if isinstance(x, str) else f"{x.line}: {x.command}")
def test_a_console_example_shows_what_its_command_prints(name, example, tmp_path):
    """The lines shown under a `$ escoba …` command are what it prints in a folder holding the page's files."""
    page = read(DOCS / name)
    key = (name, example.command)
    if key not in _printed:
        _printed[key] = run(example, folder_for(page, tmp_path / "here"))
    printed = _printed[key]
    assert example.shown, f"docs/{name}:{example.line}: `{example.command}` shows no output"
    assert agrees(example, printed), f"docs/{name}:{example.line}: `{example.command}` ({example.mode}) now prints:\n{printed}"


def test_every_console_output_in_docs_is_checked():
    """Every command shown with output in docs/ is run by a test: this module, a page's own test, or marked not run with a reason."""
    for path in sorted(DOCS.glob("*.md")):
        page = read(path)
        if path.name in OWN_TESTS:
            continue
        unchecked = [e for e in page.examples if e.shown and path.name not in CHECKED]
        assert unchecked == [], f"{path.name}: output shown but no test runs it: {[e.command for e in unchecked]}"
        assert all(why.strip() for _, why in page.not_run), path.name
    for name in CHECKED:
        for example in read(DOCS / name).examples:
            assert example.argv[0] == "escoba" or not example.shown, f"{name}:{example.line}: {example.command}"


def test_the_house_rules_tutorial_runs_its_files():
    """docs/house-rules.md writes velo-dos.yaml, bad.yaml and comma.yaml, and shows check, simulate and diff output for them."""
    page = read(DOCS / "house-rules.md")
    assert {"velo-dos.yaml", "bad.yaml", "comma.yaml"} <= set(page.files)
    commands = {e.argv[1] for e in page.examples if e.shown}
    assert {"check", "simulate", "diff"} <= commands


def test_what_the_dsl_cannot_say_yet_is_the_unsupported_lists():
    """docs/house-rules.md's section lists every rule a bundled ruleset records as unsupported, with why and the closest rule, as generated from them."""
    from escoba.diff.unsupported import collect, markdown

    found = UNSUPPORTED.search((DOCS / "house-rules.md").read_text(encoding="utf-8"))
    assert found is not None
    assert found[2] == markdown(), "out of date: run `python tests/test_docs_examples.py docs/house-rules.md`"
    entries = collect()
    assert entries and all(e.closest and e.why for e in entries)  # every bundled entry says why and what comes closest


# --------------------------------------------------------------------------- refreshing a page


def refresh(path: Path) -> None:
    """Rewrite the page's whole-output examples and generated section with what runs print now."""
    import tempfile

    from escoba.diff.unsupported import markdown

    page = read(path)
    lines = path.read_text(encoding="utf-8").split("\n")
    with tempfile.TemporaryDirectory() as tmp:
        folder = folder_for(page, Path(tmp) / "here")
        for example in reversed(page.examples):  # from the bottom, so the line numbers above hold
            if not (example.shown or example.alone or example.mode != "whole"):
                continue  # a command listed for the reader, no output shown
            printed = run(example, folder)
            if agrees(example, printed):
                continue
            if example.mode != "whole":
                print(f"{path.name}:{example.line}: `{example.command}` ({example.mode}) no longer agrees; it prints:\n{printed}")
                continue
            lines[example.line : example.line + len(example.shown)] = printed.splitlines()
    text = UNSUPPORTED.sub(lambda m: m[1] + markdown() + m[3], "\n".join(lines))
    path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        refresh(Path(arg).resolve())
