"""`escoba schema`: where the installed JSON Schema for ruleset files is."""

from __future__ import annotations

import argparse

HELP = "print the path of the JSON Schema for ruleset files (for an editor or check-jsonschema)"
DESCRIPTION = """\
Print the path of the installed JSON Schema that ruleset files are checked against,
so that an editor or check-jsonschema can use it (docs/editors.md).

By default the schema of files as written: a file with 'extends' may leave out what
its parent supplies. --resolved gives the schema of resolved rulesets instead (what
'escoba show' prints and what the conformance runner sends to engines)."""
EPILOG = """\
examples:
  escoba schema                                           the as-written schema's path
  escoba schema --resolved                                the resolved schema's path
  check-jsonschema --schemafile "$(escoba schema)" spec/house/escoba-doble.yaml"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--resolved", action="store_true", help="the schema of resolved rulesets, not of files as written")


def run(args: argparse.Namespace) -> int:
    from escoba.data import schemas_dir
    from escoba.rules.fileschema import FILE, RESOLVED

    print(schemas_dir() / (RESOLVED if args.resolved else FILE))
    return 0
