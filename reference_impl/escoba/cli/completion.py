"""`escoba completion SHELL`: a shell completion script for subcommands, options and ruleset ids.

The script is made from the argument parser itself, so a new option completes without anyone
remembering to add it here. Completion runs no Python: the ids of the bundled rulesets are
written into the script when it is printed (print it again after upgrading escoba).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field

HELP = "print a shell completion script (bash, zsh or fish) for commands, options and ruleset ids"
DESCRIPTION = """\
Print a script that makes the shell complete escoba's subcommands, their options, the
values of options that take a fixed set (--format json, …) and the ids of the bundled
rulesets wherever a ruleset is expected (files ending in .yaml are offered too).

Load it for this shell, or install it to load in every new one:

  bash  eval "$(escoba completion bash)"
        escoba completion bash > ~/.local/share/bash-completion/completions/escoba
  zsh   eval "$(escoba completion zsh)"          (in ~/.zshrc)
  fish  escoba completion fish > ~/.config/fish/completions/escoba.fish"""
EPILOG = """\
examples:
  escoba completion bash > ~/.local/share/bash-completion/completions/escoba
  eval "$(escoba completion zsh)"
  escoba completion fish > ~/.config/fish/completions/escoba.fish"""

SHELLS = ("bash", "zsh", "fish")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("shell", choices=SHELLS, help="the shell to complete in")


def run(args: argparse.Namespace) -> int:
    from escoba.cli.main import build_parser
    from escoba.rules import bundled_ids

    commands = describe(build_parser())
    render = {"bash": bash, "zsh": zsh, "fish": fish}[args.shell]
    print(render(commands, bundled_ids()), end="")
    return 0


@dataclass
class Command:
    name: str
    help: str
    options: list[str] = field(default_factory=list)  # every option string: --format, -h, …
    choices: dict[str, list[str]] = field(default_factory=dict)  # option → its fixed values
    ruleset_options: list[str] = field(default_factory=list)  # options whose value is a ruleset
    value_options: list[str] = field(default_factory=list)  # other options that take a value
    positional: str | list[str] | None = None  # "rulesets", a fixed list, or nothing to offer


def _names_a_ruleset(action: argparse.Action) -> bool:
    """The project's convention: a ruleset argument's metavar says ID, or its help says 'bundled id'."""
    return "ID" in str(action.metavar or "") or "bundled id" in (action.help or "")


def describe(parser: argparse.ArgumentParser) -> list[Command]:
    """Each subcommand with what can follow it, read off the parser."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {choice.dest: choice.help or "" for choice in sub._choices_actions}
    commands = []
    for name, command_parser in sub.choices.items():
        command = Command(name, helps.get(name, ""))
        for action in command_parser._actions:
            if action.option_strings:
                command.options += action.option_strings
                if action.nargs == 0:
                    continue
                for option in action.option_strings:
                    if action.choices:
                        command.choices[option] = [str(c) for c in action.choices]
                    elif _names_a_ruleset(action):
                        command.ruleset_options.append(option)
                    else:
                        command.value_options.append(option)
            elif action.choices:
                command.positional = [str(c) for c in action.choices]
            elif _names_a_ruleset(action) and command.positional is None:
                command.positional = "rulesets"
        commands.append(command)
    return commands


def _words(items: list[str]) -> str:
    return " ".join(items)


# ---------------------------------------------------------------------------- bash (and zsh)


def bash(commands: list[Command], ids: list[str]) -> str:
    lines = [
        "# escoba completion for bash: eval \"$(escoba completion bash)\"",
        "_escoba() {",
        '    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"',
        f'    local ids="{_words(ids)}"',
        "    COMPREPLY=()",
        "    if [[ $COMP_CWORD -eq 1 ]]; then",
        f'        COMPREPLY=($(compgen -W "{_words([c.name for c in commands])} --help --version" -- "$cur"))',
        "        return 0",
        "    fi",
        '    local options="" rulesets="" positional=""',
        '    case "${COMP_WORDS[1]}" in',
    ]
    for c in commands:
        positional = "@rulesets" if isinstance(c.positional, str) else _words(c.positional or [])
        lines.append(f'        {c.name}) options="{_words(c.options)}"; positional="{positional}"')
        for option, values in c.choices.items():
            lines.append(f'            if [[ "$prev" == "{option}" ]]; then COMPREPLY=($(compgen -W "{_words(values)}" -- "$cur")); return 0; fi')
        for option in c.ruleset_options:
            lines.append(f'            if [[ "$prev" == "{option}" ]]; then rulesets=1; fi')
        for option in c.value_options:
            lines.append(f'            if [[ "$prev" == "{option}" ]]; then COMPREPLY=($(compgen -f -- "$cur")); return 0; fi')
        lines.append("            ;;")
    lines += [
        "        *) return 0 ;;",
        "    esac",
        '    if [[ -z "$rulesets" && "$cur" == -* ]]; then',
        '        COMPREPLY=($(compgen -W "$options" -- "$cur"))',
        '    elif [[ -n "$rulesets" || "$positional" == "@rulesets" ]]; then',
        '        COMPREPLY=($(compgen -W "$ids" -- "$cur") $(compgen -f -X "!*.y*ml" -- "$cur") $(compgen -d -- "$cur"))',
        '    elif [[ -n "$positional" ]]; then',
        '        COMPREPLY=($(compgen -W "$positional" -- "$cur"))',
        "    else",
        '        COMPREPLY=($(compgen -f -- "$cur"))',
        "    fi",
        "    return 0",
        "}",
        "complete -o filenames -F _escoba escoba",
    ]
    return "\n".join(lines) + "\n"


def zsh(commands: list[Command], ids: list[str]) -> str:
    # zsh runs bash completion functions through bashcompinit: one script to maintain.
    return (
        "# escoba completion for zsh: eval \"$(escoba completion zsh)\" in ~/.zshrc\n"
        "autoload -U +X compinit && compinit\n"
        "autoload -U +X bashcompinit && bashcompinit\n" + bash(commands, ids).split("\n", 1)[1]
    )


# ---------------------------------------------------------------------------- fish


def _fish_quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def fish(commands: list[Command], ids: list[str]) -> str:
    lines = [
        "# escoba completion for fish: escoba completion fish > ~/.config/fish/completions/escoba.fish",
        "complete -c escoba -f",
        f"complete -c escoba -n __fish_use_subcommand -l version -d {_fish_quote('print the version')}",
    ]
    for c in commands:
        lines.append(f"complete -c escoba -n __fish_use_subcommand -a {c.name} -d {_fish_quote(c.help)}")
    for c in commands:
        when = f"'__fish_seen_subcommand_from {c.name}'"
        for option in c.options:
            flag = f"-l {option[2:]}" if option.startswith("--") else f"-s {option[1:]}"
            if option in c.choices:
                lines.append(f"complete -c escoba -n {when} {flag} -xa {_fish_quote(_words(c.choices[option]))}")
            elif option in c.ruleset_options:
                lines.append(f"complete -c escoba -n {when} {flag} -ra {_fish_quote(_words(ids))}")
            elif option in c.value_options:
                lines.append(f"complete -c escoba -n {when} {flag} -r -F")
            else:
                lines.append(f"complete -c escoba -n {when} {flag}")
        if isinstance(c.positional, str):  # "rulesets"
            lines.append(f"complete -c escoba -n {when} -a {_fish_quote(_words(ids))} -F")
        elif c.positional:
            lines.append(f"complete -c escoba -n {when} -xa {_fish_quote(_words(c.positional))}")
    return "\n".join(lines) + "\n"
