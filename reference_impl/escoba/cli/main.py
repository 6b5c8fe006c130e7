"""The `escoba` command: argument parsing, dispatch and exit codes.

Exit status: 0 success, 1 a real negative result (an invalid file, a failing case), 2 a usage
error (bad arguments, a ruleset id or file that does not exist, an output that cannot be
written), 130 interrupted (Ctrl-C), 143 terminated (SIGTERM or SIGHUP). Errors print as one
line each on stderr; a traceback is a bug.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from escoba import processes
from escoba.errors import EscobaError, UnknownRuleset, UsageError
from escoba.outputs import OutputError, StdoutError, tolerate_encoding
from escoba.version import __version__

TYPE_CHECKING = False  # True for type checkers; `typing` is not imported at run time (escoba/__init__.py)
if TYPE_CHECKING:
    from typing import Any, NoReturn

# One module per subcommand, each with HELP, DESCRIPTION, EPILOG, add_arguments(parser) and
# run(args) -> int. Modules keep heavy imports inside run() so that start-up stays fast.
COMMANDS = (
    "check", "show", "play", "simulate", "bench", "engine", "conformance", "cases", "explore", "shrink", "identify",
    "diff", "matrix", "schema", "new", "list", "completion", "site",
)  # fmt: skip


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """argparse's formatter (descriptions and epilogs as written), sized to the terminal as
    argparse sizes it (`shutil.get_terminal_size`: `COLUMNS`, else the terminal, else 80) but
    without importing `shutil`, and with it bz2, lzma and zlib: argparse makes a formatter for
    every `add_argument`, so that import was a twentieth of `escoba check`'s start-up."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None):
        if width is None:
            width = _columns() - 2  # argparse's margin
        super().__init__(prog, indent_increment, max_help_position, width)


def _columns() -> int:
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0 and sys.__stdout__ is not None:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


class _Parser(argparse.ArgumentParser):
    """argparse, with its complaints bounded (a 5,000-digit `--seed` is not echoed whole) and
    `HelpFormatter` by default."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        from escoba.errors import one_line, shorten

        super().error(shorten(one_line(message), 300))


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with `only`, a subcommand's name, just that subcommand (its
    module alone is imported: `escoba check` does not pay for the other seventeen)."""
    parser = _Parser(
        prog="escoba",
        description="The executable specification of Escoba and its regional rule variants.",
        epilog=(
            "examples:\n"
            "  escoba check spec/house/escoba-doble.yaml\n"
            "  escoba conformance --engine './my-engine --jsonl'\n"
            "  escoba diff da sv --hands 2000\n"
            "\nRun 'escoba COMMAND --help' for the options of one command."
        ),
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"escoba {__version__}")
    # Shared by every subcommand: where `extends:` may find files besides each file's folder.
    common = _Parser(add_help=False)
    common.add_argument(
        "--rules-path", action="append", default=[], metavar="DIR",
        help="a folder whose rulesets `extends:` may name by path, besides the folder of the file that names them (repeatable)",
    )  # fmt: skip
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS if only is None else (only,):
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
            formatter_class=HelpFormatter,
            parents=[common],
        )
        module.add_arguments(command)
        command.set_defaults(_run=module.run)
    return parser


def add_format_argument(parser: argparse.ArgumentParser, choices: Sequence[str] = ("text", "json")) -> None:
    """The shared `--format FORMAT` / `--json` pair."""
    parser.add_argument("--format", choices=choices, default=choices[0], help=f"output format (default {choices[0]})")
    parser.add_argument("--json", dest="format", action="store_const", const="json", help="same as --format json")


def check_timeout(seconds: float, option: str = "--timeout") -> float:
    """A reply timeout as the command line gives it: a positive, finite number of seconds
    (every command that waits for an engine, and the pytest plugin, check it here)."""
    if not 0 < seconds < float("inf"):  # nan too: it compares false
        raise UsageError(f"{option} must be more than 0 seconds, got {seconds:g}")
    return seconds


def worker_count(jobs: int) -> int:
    """`--jobs J` as a number of workers (0: one per CPU); a negative J is a usage error."""
    if jobs < 0:
        raise UsageError(f"--jobs must be 0 (one per CPU) or more, got {jobs}")
    return jobs or os.cpu_count() or 1


def main(argv: Sequence[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):
        tolerate_encoding(stream)  # cp1252 and the like: ASCII stand-ins, not a traceback
    args_list = sys.argv[1:] if argv is None else list(argv)
    if not args_list:
        # `escoba` alone, as `git` alone: the commands with a line each, not only the usage
        # line argparse gives. Still a usage error (exit 2, on stderr): no command ran.
        parser = build_parser()
        parser.print_help(sys.stderr)
        print("\nescoba: error: the following arguments are required: COMMAND", file=sys.stderr)
        return 2
    # A known subcommand first: only its parser is built (its arguments, errors and --help are
    # the same); anything else (--help, --version, a misspelt command) gets the whole parser.
    parser = build_parser(args_list[0] if args_list and args_list[0] in COMMANDS else None)
    args = parser.parse_args(args_list)
    if sys.stdout is None:  # started with its standard output closed (`>&-`)
        print(f"escoba {args.command}: standard output is closed; nothing could be written", file=sys.stderr)
        return 2
    real_stdout = sys.stdout
    sys.stdout = _Guarded(real_stdout)
    if args.rules_path:
        from escoba.rules.resolve import set_rules_path

        set_rules_path(args.rules_path)
    try:
        with processes.signals_handled():
            processes.stop_with_parent()
            try:
                code = int(args._run(args) or 0)
                sys.stdout.flush()
                return code
            except (UsageError, UnknownRuleset, OutputError) as error:
                if isinstance(error, StdoutError):
                    _discard_stdout(real_stdout)
                print(f"escoba {args.command}: {error}", file=sys.stderr)
                return 2
            except EscobaError as error:
                print(str(error), file=sys.stderr)
                return 1
            except (KeyboardInterrupt, processes.Terminated) as stop:
                print("interrupted" if isinstance(stop, KeyboardInterrupt) else "terminated", file=sys.stderr)
                return processes.exit_code(stop)
            except BrokenPipeError:  # the reader went away (`escoba … | head`): nothing more to say
                _discard_stdout(real_stdout)
                return 0
    finally:
        sys.stdout = real_stdout
        if args.rules_path:
            set_rules_path(())


class _Guarded:
    """sys.stdout, with a failed write told apart from the other OSErrors of a command."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as problem:
            raise StdoutError(problem) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as problem:
            raise StdoutError(problem) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _discard_stdout(stream: Any) -> None:
    """Point the standard output at /dev/null, so that the interpreter's last flush of what
    could not be written does not print a complaint of its own."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def entry() -> None:
    """The `escoba` command (and `python -m escoba`): `main`, then exit with its status.

    After a stop signal the process ends at once, once its own cleanup is done (workers and
    engines killed, files whole): an exception raised by a signal can land inside the standard
    library's pool machinery and leave a helper thread that the interpreter's own exit would
    wait for forever."""
    code = main()
    if processes.stopped_by() is None:
        sys.exit(code)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    os._exit(code)


if __name__ == "__main__":
    entry()
