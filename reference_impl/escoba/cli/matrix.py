"""`escoba matrix`: every rule point against every bundled ruleset."""

from __future__ import annotations

import argparse
import json

from escoba.cli.main import UsageError, add_format_argument

HELP = "the rules matrix: every rule point of every bundled ruleset, with its citation status"
DESCRIPTION = """\
A table whose rows are the points of the rules catalogue (deck, players and partnerships,
direction, leader, dealer rotation, the deal, the opening table, compulsory capture,
leftovers, each scoring category with its award and points, the match) and whose columns
are the bundled rulesets (spec/, spec/family/, then spec/house/). Each cell gives the value and the status
of the citation behind it (S stated, I interpreted, D default, E erratum, H house):
in Markdown a link to the citation's line in the ruleset file, in HTML a tooltip with the
quote, its gloss and the note. Values that differ from base are in bold.

docs/rules-matrix.md is this command's Markdown output; links are relative to docs/
unless --link-prefix says otherwise."""
EPILOG = """\
examples:
  escoba matrix > docs/rules-matrix.md               regenerate the documentation page
  escoba matrix --format html > matrix.html          tooltips with each quote and gloss
  escoba matrix --format json | jq '.rows[0]'        for tools
  escoba matrix --rulesets base,da,sv                a few columns only"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_format_argument(parser, ("markdown", "html", "json"))
    parser.add_argument("--rulesets", metavar="ID[,ID…]", help="columns to show (default: every bundled ruleset)")
    parser.add_argument(
        "--link-prefix", default="../", metavar="PREFIX",
        help="put before spec/… in links (default ../, right for a page in docs/)",
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from escoba.diff.matrix import build, render_html, render_markdown

    ids = None
    if args.rulesets is not None:
        ids = [i.strip() for i in args.rulesets.split(",") if i.strip()]
        if not ids:
            raise UsageError(f"--rulesets: no ruleset named in {args.rulesets!r}; give ids or files, separated by commas")
    matrix = build(ids)
    if args.format == "json":
        print(json.dumps(matrix.to_json(), indent=2, ensure_ascii=False))
    elif args.format == "html":
        print(render_html(matrix, args.link_prefix), end="")
    else:
        print(render_markdown(matrix, args.link_prefix), end="")
    return 0
