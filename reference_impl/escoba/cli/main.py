"""The `escoba` command: argument parsing, dispatch and exit codes.

Exit status: 0 success, 1 a real negative result (an invalid file, a failing case), 2 a usage
error (bad arguments, a ruleset id or file that does not exist). Errors print as one line each
on stderr; a traceback is a bug.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from escoba import __version__
from escoba.errors import EscobaError, UnknownRuleset

# One module per subcommand, each with HELP, DESCRIPTION, EPILOG, add_arguments(parser) and
# run(args) -> int. Modules keep heavy imports inside run() so that start-up stays fast.
COMMANDS = (
    "check", "show", "play", "simulate", "bench", "engine", "conformance", "diff", "matrix",
    "schema", "new", "list", "completion", "site",
)  # fmt: skip


class UsageError(EscobaError):
    """Arguments that make no sense together; exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="escoba",
        description="The executable specification of Escoba and its regional rule variants.",
        epilog=(
            "examples:\n"
            "  escoba check spec/house/escoba-doble.yaml\n"
            "  escoba conformance --engine './my-engine --jsonl'\n"
            "  escoba diff da sv --hands 2000\n"
            "\nRun 'escoba COMMAND --help' for the options of one command."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"escoba {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"escoba.cli.{name}")
        except ModuleNotFoundError as missing:  # a partial checkout; tests/test_cli.py pins them all
            if missing.name != f"escoba.cli.{name}":
                raise
            continue
        command = sub.add_parser(
            name,
            help=module.HELP,
            description=getattr(module, "DESCRIPTION", module.HELP),
            epilog=getattr(module, "EPILOG", None),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(command)
        command.set_defaults(_run=module.run)
    return parser


def add_format_argument(parser: argparse.ArgumentParser, choices: Sequence[str] = ("text", "json")) -> None:
    """The shared `--format FORMAT` / `--json` pair."""
    parser.add_argument("--format", choices=choices, default=choices[0], help=f"output format (default {choices[0]})")
    parser.add_argument("--json", dest="format", action="store_const", const="json", help="same as --format json")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args._run(args) or 0)
    except (UsageError, UnknownRuleset) as error:
        print(f"escoba {args.command}: {error}", file=sys.stderr)
        return 2
    except EscobaError as error:
        print(str(error), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
