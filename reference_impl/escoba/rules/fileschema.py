"""The schema of ruleset files as written, generated from the schema of resolved rulesets.

`schemas/ruleset.schema.json` describes a *resolved* ruleset: every section present. A file as
written that `extends` another leaves out what it inherits, and may give a list item only its
`id` and the keys it changes (`extends` merges lists of objects by id). A file without
`extends` is a base: it needs every section a resolved ruleset needs, except `id` and `kind`,
which the loader infers from the file's name and folder.

`schemas/ruleset-file.schema.json` says exactly that, and is made from the resolved schema by
this module so that the two cannot drift:

    python -m escoba.rules.fileschema          # rewrite schemas/ruleset-file.schema.json
    python -m escoba.rules.fileschema --check  # exit 1 if the committed file is stale

What an extending file may leave out follows how `rules/resolve.py` merges: maps merge key by
key (so no key of a section is required), list items with an `id` merge by id (so they need
only their `id`), but three kinds of node are replaced whole and so must be complete as
written: a provenance citation, a category's `award`, and the items of a list without ids.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path
from typing import Any

from escoba.data import schemas_dir

RESOLVED = "ruleset.schema.json"
FILE = "ruleset-file.schema.json"

# `$defs` that are only ever replaced whole when a child gives them (so stay complete).
_ATOMIC_DEFS = {"citation"}
# Map keys whose value a child replaces whole (resolve.py's `_ATOMIC`).
_ATOMIC_KEYS = {"award"}
# Keys a base file may leave out: the loader infers them (resolve.py: ruleset_id, infer_kind).
_INFERRED = ("id", "kind")
# Keywords whose subschemas are conditions, not assertions: their `required` is kept as is.
_CONDITIONS = ("if",)


def generate(resolved: dict[str, Any]) -> dict[str, Any]:
    """The as-written schema for the resolved schema `resolved` (not modified)."""
    unknown = set(resolved.get("$defs", {})) - _ATOMIC_DEFS
    if unknown:  # a new definition: decide whether a child may give it in part, then list it
        raise ValueError(f"{RESOLVED}: $defs {sorted(unknown)} not classified in escoba.rules.fileschema")
    body = {k: copy.deepcopy(v) for k, v in resolved.items() if k not in ("$schema", "$id", "title", "description", "$defs")}
    base = copy.deepcopy(body)
    base["required"] = [k for k in body.get("required", []) if k not in _INFERRED]
    extending = _partial(copy.deepcopy(body))
    extending["required"] = ["dsl", "extends"]
    return {
        "$schema": resolved["$schema"],
        "$id": FILE,
        "title": "Escoba ruleset file as written (DSL v1)",
        "description": (
            "An Escoba ruleset file as written (see docs/dsl.md, docs/editors.md). A file with "
            "'extends' may leave out whatever its parent supplies; a file without it is a base "
            "and needs every section. The resolved form is ruleset.schema.json. Generated from "
            "ruleset.schema.json by 'python -m escoba.rules.fileschema': do not edit by hand."
        ),
        "type": "object",
        "if": {"required": ["extends"]},
        "then": {"$ref": "#/$defs/extending-file"},
        "else": {"$ref": "#/$defs/base-file"},
        "$defs": {
            **copy.deepcopy(resolved.get("$defs", {})),
            "base-file": base,
            "extending-file": extending,
        },
    }


def _partial(node: Any, merged_by_id: bool = False) -> Any:
    """`node` with what a child file may leave out made optional (in place)."""
    if isinstance(node, list):
        return [_partial(item) for item in node]
    if not isinstance(node, dict):
        return node
    if "required" in node:
        # An item of a list merged by id still needs the id that says which item it changes.
        kept = [k for k in node["required"] if merged_by_id and k == "id"]
        if kept:
            node["required"] = kept
        else:
            del node["required"]
    for key, value in node.items():
        if key in _CONDITIONS or key == "required":
            continue
        if key == "properties":
            node[key] = {name: (sub if name in _ATOMIC_KEYS else _partial(sub)) for name, sub in value.items()}
        elif key == "items" and isinstance(value, dict):
            # Items without ids replace the parent's list whole: complete as written.
            if "id" in value.get("properties", {}):
                node[key] = _partial(value, merged_by_id=True)
        elif key in ("allOf", "then", "else"):
            node[key] = _partial(value, merged_by_id)
        elif key in ("additionalProperties",) and isinstance(value, dict) and "$ref" not in value:
            node[key] = _partial(value)
    return node


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def expected_text(folder: Path | None = None) -> str:
    folder = folder or schemas_dir()
    resolved = json.loads((folder / RESOLVED).read_text(encoding="utf-8"))
    return render(generate(resolved))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m escoba.rules.fileschema", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed file is stale; write nothing")
    args = parser.parse_args(argv)
    target = schemas_dir() / FILE
    text = expected_text()
    current = target.read_text(encoding="utf-8") if target.is_file() else None
    if args.check:
        if current != text:
            print(f"{target} is stale: run python -m escoba.rules.fileschema", file=sys.stderr)
            return 1
        print(f"{target} is up to date")
        return 0
    if current != text:
        tmp = target.with_suffix(".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(target)
        print(f"wrote {target}")
    else:
        print(f"{target} is up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
