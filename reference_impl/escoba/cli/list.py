"""`escoba list`: the bundled rulesets, with their kinds, titles and files."""

from __future__ import annotations

import argparse
import json

from escoba.cli.main import add_format_argument

HELP = "list the bundled rulesets: id, kind, title and file"
DESCRIPTION = """\
Every bundled ruleset (spec/ then spec/house/) on a line: its id (what 'extends', 'check',
'play' and the other commands accept), its kind (base, source, variant, house), its title
and its file, named by a path that exists from the working folder. --format json gives the
same as a list of objects with the ruleset each one extends."""
EPILOG = """\
examples:
  escoba list
  escoba list --format json | jq -r '.[] | select(.kind == "house") | .id'"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_format_argument(parser)


def run(args: argparse.Namespace) -> int:
    from escoba.rules import registry
    from escoba.rules.resolve import infer_kind, load_cached

    rows: list[dict[str, str | None]] = []
    for ruleset_id, path in registry.bundled().items():
        doc = load_cached(path, registry.display_name(path))
        data = doc.data if isinstance(doc.data, dict) else {}
        rows.append(
            {
                "id": ruleset_id,
                "kind": infer_kind(doc) if isinstance(doc.data, dict) else None,
                "title": data.get("title"),
                "extends": data.get("extends"),
                "file": doc.file,
            }
        )
    if args.format == "json":
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return 0
    width = max(len(str(r["id"])) for r in rows)
    kinds = max(len(str(r["kind"])) for r in rows)
    titles = max(len(str(r["title"] or "")) for r in rows)
    for r in rows:
        print(f"{r['id']!s:<{width}}  {r['kind']!s:<{kinds}}  {r['title'] or '':<{titles}}  {r['file']}".rstrip())
    return 0
