"""README.md's examples work as written: its Python runs, its house rule checks, its commands parse."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from escoba.cli import main as cli

ROOT = Path(__file__).parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", README, re.S | re.M)


@pytest.mark.parametrize("code", blocks("python"), ids=lambda c: c.splitlines()[2][:40])
def test_readme_python_example_runs(code: str) -> None:
    """Each Python block of the README runs as written (its asserts included)."""
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, "README.md", "exec"), {"__name__": "readme"})


def test_readme_house_rule_checks_and_shows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The README's velo-dos.yaml, saved as it says, passes `escoba check` and `escoba show`."""
    (house,) = [b for b in blocks("yaml") if "velo-dos.yaml" in b]
    monkeypatch.chdir(tmp_path)
    Path("velo-dos.yaml").write_text(house, encoding="utf-8")
    assert cli.main(["check", "velo-dos.yaml"]) == 0
    assert capsys.readouterr().out == "ok  velo-dos.yaml (velo-dos)\n"
    assert cli.main(["show", "velo-dos.yaml"]) == 0
    assert "id: velo-dos" in capsys.readouterr().out


def test_readme_commands_parse_and_name_what_exists() -> None:
    """Every `escoba …` line in the README's shell blocks parses; the files it reads exist (or are the README's own)."""
    own = {"velo-dos.yaml", "./my-engine", "my-rules.yaml", "my-rules/my-engine-inferred.yaml"}  # the README's own files (the last written by its identify)
    commands = [line for block in blocks("sh") for line in block.splitlines() if line.startswith("escoba ")]
    assert len(commands) >= 8
    for line in commands:
        words = shlex.split(line.split("#", 1)[0].split(">", 1)[0])
        args = cli.build_parser().parse_args(words[1:])
        named = [v for v in vars(args).values() if isinstance(v, str)] + [x for v in vars(args).values() if isinstance(v, list) for x in v]
        for value in named:
            for word in shlex.split(value) if " " in value else [value]:
                if "/" in word or word.endswith((".yaml", ".py", ".json")):
                    assert word in own or (ROOT / word).exists(), f"README: {line}: {word} does not exist"


def test_quick_start_is_two_commands() -> None:
    """The Quick start block is exactly the two commands it promises."""
    quick = README.split("## Quick start", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    assert quick.splitlines() == ["pip install . && escoba conformance", "pip install '.[test]' && python -m pytest -n auto"]


def test_a_new_engine_needs_three_commands() -> None:
    """The README shows a new engine going from nothing to a full report in at most three
    commands: install, identify writing the rules file, conformance declaring that file."""
    part = README.split("From nothing to a full report, three commands:", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    commands = [line.split("#", 1)[0].strip() for line in part.splitlines() if line.strip()]
    assert len(commands) <= 3 and commands[0].startswith("pip install")
    identify, conformance = shlex.split(commands[1]), shlex.split(commands[2])
    assert identify[:2] == ["escoba", "identify"] and conformance[:2] == ["escoba", "conformance"]
    out = identify[identify.index("--out") + 1]
    assert conformance[conformance.index("--rules") + 1].startswith(f"{out}/")

