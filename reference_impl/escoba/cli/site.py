"""`escoba site`: write the static site (rulesets, matrix, games, conformance, diffs)."""

from __future__ import annotations

import argparse
import sys

from escoba.cli.main import UsageError, check_timeout

HELP = "write a static HTML site: rulesets with their sources, the rules matrix, every golden game, conformance and diffs"
DESCRIPTION = """\
Write a folder of HTML pages that opens from the file system (no server, nothing fetched
when it is viewed):

  rulesets/   one page per bundled ruleset (and per --ruleset FILE): every rule point,
              its value, the quoted source sentence with its gloss and status, inherited
              points marked with where they come from, errata
  sources/    each source text in full, every quoted sentence highlighted
  matrix.html the rules matrix, filterable by area, differences from base highlighted
  games/      every golden case as a card-by-card viewer (buttons or arrow keys)
  conformance/ per --engine: the rules profile and every case's outcome, failures with
              the first divergence, the field diff and the replay command
  diffs/      per --diff A B: the three views of `escoba diff`, with SVG charts

The front page (DIR/index.html, open it in any browser) shows the Swedish example game
beside the text's own sentences.
DIR is replaced only when the whole site is written, and only if it is empty or holds an
earlier site. Needs the `site` extra: pip install 'escoba[site]'."""
EPILOG = """\
examples:
  escoba site --out site                                 rulesets, matrix, sources, games
  escoba site --out site --engine "escoba engine" --diff da sv
  escoba site --out site --engine "./my-engine --jsonl" --engine "escoba engine"
  escoba site --out site --ruleset my-rules.yaml --diff da my-rules.yaml"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, metavar="DIR", help="the folder to write (replaced if it holds an earlier site)")
    parser.add_argument("--engine", action="append", default=[], metavar="CMD",
                        help="run the golden cases against this engine command and show the report (repeatable)")  # fmt: skip
    parser.add_argument("--diff", action="append", nargs=2, default=[], metavar=("A", "B"),
                        help="compare two rulesets (ids or files) and show the three views (repeatable)")  # fmt: skip
    parser.add_argument("--ruleset", action="append", default=[], metavar="FILE",
                        help="a ruleset file to give a page and a matrix column besides the bundled ones (repeatable)")  # fmt: skip
    parser.add_argument("--hands", type=int, metavar="N", help="hands per diff view (default: escoba diff's own)")
    parser.add_argument("--timeout", type=float, metavar="S", help="seconds to wait for each engine reply (default: escoba conformance's own)")
    parser.add_argument("--quiet", action="store_true", help="print nothing but errors")


def run(args: argparse.Namespace) -> int:
    try:
        import jinja2  # noqa: F401
    except ModuleNotFoundError:
        raise UsageError("needs Jinja2: pip install 'escoba[site]'") from None
    from pathlib import Path

    from escoba.cli.explore import engine_command, start_engine
    from escoba.protocol.client import DEFAULT_TIMEOUT
    from escoba.rules.registry import find
    from escoba.site.build import Options, SiteError, build, check_out

    if args.hands is not None and args.hands < 0:
        raise UsageError(f"--hands must be 0 or more, got {args.hands}")
    if args.timeout is not None:
        check_timeout(args.timeout)
    for name in [*args.ruleset, *(x for pair in args.diff for x in pair)]:
        find(name)  # an unknown id or a missing file is a usage error before any work
    try:
        check_out(Path(args.out))
    except SiteError as error:
        raise UsageError(str(error)) from None
    for command in args.engine:  # each must start before a page is built: one line and exit 2 if not
        argv, shown = engine_command(command)
        start_engine(argv, shown, args.timeout or DEFAULT_TIMEOUT, "site").close()
    options = Options(
        out=Path(args.out), rulesets=list(args.ruleset), engines=list(args.engine),
        diffs=[(a, b) for a, b in args.diff], diff_hands=args.hands, engine_timeout=args.timeout,
    )  # fmt: skip
    log = None if args.quiet else (lambda message: print(message, file=sys.stderr))
    try:
        summary = build(options, log)
    except SiteError as error:
        raise UsageError(str(error)) from None
    for missing in summary.missing_quotes:
        print(f"warning: quote not found in its source: {missing}", file=sys.stderr)
    if not args.quiet:
        print(f"wrote {summary.pages} pages ({summary.bytes / 1e6:.1f} MB) to {summary.out} in {summary.seconds:.1f} s")
        print(f"open {summary.out / 'index.html'}")
    return 0
