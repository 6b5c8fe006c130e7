"""The `escoba` command as a whole: every subcommand, --version, --help examples, list, completion."""

from __future__ import annotations

import argparse
import json
import re
import shlex
import subprocess
import tomllib
from pathlib import Path

import pytest

import escoba
from escoba.cli import completion
from escoba.cli import main as cli
from escoba.rules import registry

ROOT = Path(__file__).parents[1]
ALL_COMMANDS = (
    "check", "show", "play", "simulate", "bench", "engine", "conformance", "cases", "explore", "shrink", "identify",
    "diff", "matrix", "schema", "new", "list", "completion", "site",
)  # fmt: skip


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = cli.main(list(argv))
    except SystemExit as exit:  # argparse's own --version and --help
        code = int(exit.code or 0)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_every_subcommand_is_registered() -> None:
    """All subcommands load (a missing module would silently drop one from `escoba --help`)."""
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert set(ALL_COMMANDS) <= set(sub.choices)


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    """`escoba --version` prints 'escoba X.Y.Z', the version the installed distribution
    carries, which pyproject.toml takes from escoba/version.py (written once)."""
    from importlib.metadata import version as installed

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" in project["project"]["dynamic"]
    assert project["tool"]["hatch"]["version"]["path"] == "reference_impl/escoba/version.py"
    version = installed("escoba")
    assert run(capsys, "--version") == (0, f"escoba {version}\n", "")
    assert escoba.__version__ == version


def test_escoba_alone_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    """`escoba` with no command prints every command with its one-line help on stderr, then the usage error (exit 2)."""
    code, out, err = run(capsys)
    assert code == 2 and out == ""
    for name in ALL_COMMANDS:
        assert re.search(rf"^    {name}\b", err, re.M), name
    assert "validate rulesets" in err  # a command's help line, not just its name
    assert err.rstrip().endswith("escoba: error: the following arguments are required: COMMAND")

# --------------------------------------------------------------------------- --help examples


def help_examples() -> list[tuple[str, str]]:
    """(command, example line) for every line under 'examples:' in every --help."""
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    found = []
    for name, text in [("escoba", parser.epilog or ""), *((n, p.epilog or "") for n, p in sub.choices.items())]:
        assert "examples:" in text, f"escoba {name} --help has no examples"
        block = text.split("examples:", 1)[1].split("\n\n", 1)[0]
        found += [(name, line.strip()) for line in block.splitlines() if line.strip()]
    return found


# Files an example names that it writes, or that stand for the user's own: not in the repository.
PLACEHOLDERS = {
    "./my-engine": "the user's engine",
    "my-rules.yaml": "the user's file",
    "known-failures.yaml": "written by the --write-expectations example beside it",
    "tests/escoba-cases": "written by the cases generate example beside it",
}
OUTPUTS = {"plot", "write_expectations", "junit", "record", "out", "name", "shrink"}  # dests that name a file or folder to write
ADDRESSES = {"cluster"}  # dests that name a network address (tcp://host:port), not a file


def _looks_like_a_file(token: str) -> bool:
    return not token.startswith(("-", "$", "'", "~")) and ("/" in token or re.search(r"\.(yaml|yml|json|py|md|png)$", token) is not None)


def _input_files(words: list[str]) -> tuple[list[str], list[str]]:
    """The escoba argv of an example and the files it reads (outputs and redirections left out)."""
    argv, reads, i = [], [], 0
    while i < len(words):
        if words[i] in (">", ">>"):
            i += 2
            continue
        if words[i] == "<":
            reads.append(words[i + 1])
            i += 2
            continue
        argv.append(words[i])
        i += 1
    return argv, reads


@pytest.mark.parametrize(("command", "example"), help_examples(), ids=lambda x: x[:50])
def test_help_example_parses_and_names_files_that_exist(command: str, example: str) -> None:
    """Each --help example parses as escoba arguments, and every file it reads exists in the checkout."""
    text = re.split(r"\s{2,}", example)[0]
    words = shlex.split(text)
    segments: list[list[str]] = [[]]
    for word in words:
        if word == "|":
            segments.append([])
        else:
            segments[-1].append(word)
    files: list[str] = []
    invoked = False
    for segment in segments:
        argv, reads = _input_files(segment)
        files += reads
        if "escoba" in argv:
            invoked = True
            args = cli.build_parser().parse_args(argv[argv.index("escoba") + 1 :])
            for dest, value in vars(args).items():
                values = value if isinstance(value, list) else [value]
                for v in values:
                    if not isinstance(v, str) or dest in OUTPUTS or dest in ADDRESSES:
                        continue
                    if dest == "engine":
                        files += [w for w in shlex.split(v) if _looks_like_a_file(w)]
                    elif _looks_like_a_file(v) or dest in ("ruleset", "rulesets", "a", "b", "extends"):
                        files.append(v)
        else:
            files += [w for w in argv if _looks_like_a_file(w) and "escoba" not in w]
    assert invoked or "$(escoba" in text, f"escoba {command}: example runs no escoba: {example}"
    for name in [part for listed in files for part in listed.split(",")]:
        if name in PLACEHOLDERS or name == "-":
            continue
        exists = any(ROOT.glob(name)) if "*" in name else (ROOT / name).exists()
        assert name in registry.bundled() or exists, f"escoba {command} --help names {name}, which does not exist"


def test_help_examples_are_checked_for_a_known_stale_name() -> None:
    """The example parser finds the file names in examples (the stale velo-two.yaml would be caught)."""
    words = shlex.split("escoba check spec/house/velo-two.yaml")
    argv, _ = _input_files(words)
    args = cli.build_parser().parse_args(argv[1:])
    assert args.rulesets == ["spec/house/velo-two.yaml"] and not (ROOT / args.rulesets[0]).exists()
    assert "spec/house/velo-two.yaml" not in "\n".join(e for _, e in help_examples())


# --------------------------------------------------------------------------- escoba list


def test_list_shows_every_bundled_ruleset(capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`escoba list` has a line per bundled ruleset: id, kind, title and its file as the docs name it (from another folder, `spec/…`)."""
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "list")
    assert code == 0
    lines = out.splitlines()
    assert [line.split()[0] for line in lines] == registry.bundled_ids()
    assert lines[0].split()[:2] == ["base", "base"]
    da = next(line for line in lines if line.startswith("da "))
    assert da.split()[1] == "source" and "Escoba del 15 (Danish app rules)" in da
    assert da.rsplit("  ", 1)[1] == "spec/da.yaml"
    assert next(line for line in lines if line.startswith("tie-shared ")).split()[1] == "house"


def test_list_json(capsys: pytest.CaptureFixture[str]) -> None:
    """`escoba list --format json` is a list of {id, kind, title, extends, file}."""
    code, out, _ = run(capsys, "list", "--format", "json")
    rows = json.loads(out)
    assert code == 0 and [r["id"] for r in rows] == registry.bundled_ids()
    by_id = {r["id"]: r for r in rows}
    assert by_id["da-velo2"] | {"file": None, "title": None} == {"id": "da-velo2", "kind": "variant", "title": None, "extends": "da", "file": None}
    assert by_id["base"]["extends"] is None and by_id["base"]["kind"] == "base"
    assert all(Path(r["file"]).is_file() for r in rows)


# --------------------------------------------------------------------------- completion


def bash_complete(script: Path, *words: str) -> list[str]:
    """What bash's completion function offers after `words` (the last is the word being typed)."""
    program = f"""
source {shlex.quote(str(script))}
COMP_WORDS=({" ".join(shlex.quote(w) for w in words)})
COMP_CWORD={len(words) - 1}
_escoba
printf '%s\\n' "${{COMPREPLY[@]}}"
"""
    result = subprocess.run(["bash", "--norc", "--noprofile", "-c", program], capture_output=True, text=True, timeout=30, cwd=script.parent)
    assert result.returncode == 0, result.stderr
    return [line for line in result.stdout.splitlines() if line]


def test_bash_completion_completes_commands_options_values_and_ids(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Run through bash's own completion machinery: subcommands, options, option values, ruleset ids, files."""
    code, out, _ = run(capsys, "completion", "bash")
    assert code == 0
    script = tmp_path / "escoba.bash"
    script.write_text(out, encoding="utf-8")
    (tmp_path / "mine.yaml").write_text("dsl: 1\n")
    (tmp_path / "notes.txt").write_text("")
    assert bash_complete(script, "escoba", "") == [*ALL_COMMANDS, "--help", "--version"]
    assert bash_complete(script, "escoba", "c") == ["check", "conformance", "cases", "completion"]
    assert bash_complete(script, "escoba", "check", "--f") == ["--format"]
    assert bash_complete(script, "escoba", "check", "--format", "") == ["text", "json"]
    assert bash_complete(script, "escoba", "diff", "da", "s") == [i for i in registry.bundled_ids() if i.startswith("s")]
    assert bash_complete(script, "escoba", "play", "da-v") == ["da-velo2"]
    assert bash_complete(script, "escoba", "check", "m") == ["most-sevens-all-tied", "mine.yaml"]
    assert bash_complete(script, "escoba", "check", "n") == ["no-first-play-escoba", "no-opening-escoba"]  # YAML files only, not notes.txt
    assert bash_complete(script, "escoba", "new", "x", "--extends", "tie") == ["tie-shared"]
    assert bash_complete(script, "escoba", "conformance", "--ruleset", "fr") == ["fr"]
    assert bash_complete(script, "escoba", "completion", "") == ["bash", "zsh", "fish"]
    assert "--seed" in bash_complete(script, "escoba", "simulate", "--")


def test_zsh_and_fish_scripts_name_every_command_and_id(capsys: pytest.CaptureFixture[str]) -> None:
    """The zsh script loads the bash function through bashcompinit; fish's lists each command, option and id."""
    _, zsh, _ = run(capsys, "completion", "zsh")
    assert "bashcompinit" in zsh and "complete -o filenames -F _escoba escoba" in zsh
    _, fish, _ = run(capsys, "completion", "fish")
    for name in ALL_COMMANDS:
        assert f"complete -c escoba -n __fish_use_subcommand -a {name} -d " in fish
    assert "complete -c escoba -n '__fish_seen_subcommand_from check' -l format -xa 'text json'" in fish
    assert " ".join(registry.bundled_ids()) in fish


def test_completion_reads_the_parser() -> None:
    """Ruleset arguments are recognised by the metavar/help convention, so new commands complete ids too."""
    commands = {c.name: c for c in completion.describe(cli.build_parser())}
    assert commands["check"].positional == "rulesets"
    assert commands["diff"].positional == "rulesets"
    assert "--extends" in commands["new"].ruleset_options
    assert commands["conformance"].choices["--format"] == ["text", "json", "markdown"]
    assert commands["schema"].positional is None


# --------------------------------------------------------------------------- the library


def test_dir_shows_the_lazy_names() -> None:
    """dir(escoba) lists Hand, Match, the bots and everything in __all__, though they load lazily."""
    names = dir(escoba)
    for name in ("Hand", "Match", "greedy_bot", "random_bot", "load_ruleset", "IllegalMoveError", *escoba.__all__):
        assert name in names
    with pytest.raises(AttributeError, match="has no attribute 'Nope'"):
        escoba.Nope  # noqa: B018


@pytest.mark.parametrize("columns", ["50", "120"])
def test_help_is_sized_as_argparse_sizes_it(monkeypatch: pytest.MonkeyPatch, columns: str) -> None:
    """`HelpFormatter` (which does not import shutil) wraps help at the width argparse's own
    formatter would, from `COLUMNS`."""
    monkeypatch.setenv("COLUMNS", columns)
    ours = cli.build_parser("simulate")
    sub = next(a for a in ours._actions if isinstance(a, argparse._SubParsersAction)).choices["simulate"]
    theirs = argparse.RawDescriptionHelpFormatter(sub.prog)
    assert sub._get_formatter()._width == theirs._width and sub._get_formatter()._max_help_position == theirs._max_help_position
    wide = sub.format_help()
    monkeypatch.setattr(sub, "formatter_class", argparse.RawDescriptionHelpFormatter)
    assert wide == sub.format_help()
