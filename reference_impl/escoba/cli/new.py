"""`escoba new`: write the commented skeleton of a house rule."""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

HELP = "write a commented skeleton of a house rule extending a ruleset (never overwrites)"
DESCRIPTION = """\
Write NAME.yaml: a house rule that extends a ruleset and changes nothing yet, with the
parent's values of the rule points most often changed written out as comments (and the
values each one allows). 'escoba check' accepts the file as written; uncomment a line
and change it. The first line points an editor at the schema (docs/editors.md).

NAME is the new ruleset's id (lower-case letters, digits and '-'), or a path ending in
.yaml whose file name is the id. An existing file is never overwritten (exit 2)."""
EPILOG = """\
examples:
  escoba new velo-dos --extends da              writes velo-dos.yaml, a house rule on da
  escoba new rules/casa.yaml --extends sv       writes rules/casa.yaml (id casa)
  escoba new mine --extends spec/house/tie-shared.yaml   extend a file, not an id"""

_ID = re.compile(r"^[a-z][a-z0-9-]*$")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", metavar="NAME", help="the new ruleset's id, or a path NAME.yaml")
    parser.add_argument("--extends", required=True, metavar="ID-OR-FILE", help="the ruleset it changes: a bundled id or a file")


def schema_path(schema: Path, folder: Path) -> str:
    """How a file in `folder` names the schema: relative when both are in one project (a
    checkout's schemas/ and a file in it: moving the project keeps the path), absolute when the
    schema is an installed copy, inside a Python installation or a virtual environment (a
    relative path into one breaks when either the file or the environment moves)."""
    installed = any(schema.is_relative_to(Path(p).resolve()) for p in {sys.prefix, sys.base_prefix, sys.exec_prefix})
    installed = installed or "site-packages" in schema.parts or "dist-packages" in schema.parts
    near = os.path.commonpath([schema, folder]) != os.path.dirname(os.path.abspath(os.sep))
    return os.path.relpath(schema, folder) if near and not installed else str(schema)


def run(args: argparse.Namespace) -> int:
    from escoba.cli.main import UsageError
    from escoba.data import schemas_dir
    from escoba.outputs import check_output, write_new
    from escoba.rules import registry
    from escoba.rules.fileschema import FILE
    from escoba.rules.skeleton import skeleton

    target = Path(args.name if args.name.endswith((".yaml", ".yml")) else f"{args.name}.yaml")
    ruleset_id = target.stem
    if not _ID.match(ruleset_id):
        raise UsageError(f"'{ruleset_id}' is not a ruleset id: use lower-case letters, digits and '-', starting with a letter")
    if os.path.lexists(target):
        raise UsageError(f"{target} already exists; not overwritten (choose another name or delete it)")
    if not target.parent.is_dir():
        raise UsageError(f"no such folder: {target.parent}")
    check_output(str(target), "NAME")  # a folder that takes no new file, a link, found before anything
    registry.find(args.extends)  # UnknownRuleset (exit 2) for a name that is nothing
    extends, check = args.extends, f"escoba check {target}"
    if extends not in registry.bundled() or os.path.lexists(extends):
        extends = os.path.relpath(extends, target.parent)  # written relative to the new file
        if "/" not in extends and not extends.endswith((".yaml", ".yml")):
            extends = f"./{extends}"
        if extends.startswith("..") or os.path.isabs(extends):  # extends stays in its file's folder unless told
            check = f"escoba check --rules-path {os.path.dirname(args.extends) or '.'} {target}"
    modeline = schema_path(schemas_dir() / FILE, target.parent.resolve())
    if not write_new(target, skeleton(ruleset_id, args.extends, extends, modeline, str(target))):
        raise UsageError(f"{target} already exists; not overwritten (choose another name or delete it)")
    print(f"wrote {target} (a house rule extending {args.extends}); check it with: {check}")
    return 0
