"""The commented skeleton `escoba new` writes: a house rule extending a ruleset, ready to edit.

The file checks as it is (it changes nothing yet) and shows, commented out, the parent's value
of the rule points people most often change, with the values the schema allows, so that
writing a house rule is uncommenting a line and changing a word.

Whatever of the parent goes into a comment (its title, its values) goes through
`escoba.escape.yaml_comment`: a parent file is someone else's text, and a line break in its
title would end the comment and write live YAML into the new file.
"""

from __future__ import annotations

from typing import Any

from escoba.escape import yaml_comment
from escoba.rules import load_resolved
from escoba.rules.schema import ruleset_schema

# (section, keys) shown commented out, in the order of docs/dsl.md.
_POINTS = (
    ("opening_table", ("trigger", "action", "escobas")),
    ("capture", ("target", "compulsory", "escoba_on_last_play")),
    ("leftovers", ("to", "escoba")),
    ("match", ("target", "tie")),
)


def skeleton(ruleset_id: str, parent_name: str, extends: str, modeline: str | None, file: str = "FILE") -> str:
    """The text of a new house rule `ruleset_id` on the ruleset `parent_name` (an id or a path
    from the working folder), naming it `extends` in the file (the id, or a path from the file)."""
    parent = load_resolved(parent_name).doc
    c = yaml_comment
    lines = [f"# yaml-language-server: $schema={c(modeline)}"] if modeline else []
    lines += [
        f"# {ruleset_id}: a house rule on '{c(str(parent['id']))}' ({c(str(parent.get('title', parent['id'])), 200)}).",
        f"# Write only what your table plays differently: everything else comes from {c(str(parent['id']))}.",
        "# Maps merge key by key; list items (scoring categories) merge by id; {id: x, remove: true}",
        "# deletes one. Uncomment a line and change its value. Language: docs/dsl.md and",
        f"# docs/house-rules.md. Check: escoba check {c(file)}; compare: escoba diff {c(str(parent['id']))} {c(file)}",
        "dsl: 1",
        f"id: {ruleset_id}",
        "kind: house",
        f"extends: {_plain_or_quoted(extends)}",
        f"title: {parent['id']} with our house rules",
        "",
    ]
    properties = ruleset_schema()["properties"]
    for section, keys in _POINTS:
        values = parent.get(section, {})
        shown = [key for key in keys if key in values]
        if not shown:
            continue
        lines.append(f"# {section}:")
        for key in shown:
            allowed = properties[section]["properties"][key].get("enum")
            hint = f"  # {' | '.join(map(str, allowed))}" if allowed else ""
            lines.append(f"#   {key}: {c(_scalar(values[key]))}{c(hint)}")
        lines.append("")
    categories = parent.get("scoring", {}).get("categories", [])
    if categories:
        lines += ["# scoring:", "#   categories:"]
        for category in categories:
            lines.append(f"#     - {{id: {c(str(category['id']))}, points: {c(str(category.get('points', 1)))}}}")
        lines += [
            "#     - id: my-bonus                 # a new category: see docs/expressions.md",
            "#       measure: count(rank(cards, 7)) == 4",
            "#       award: {policy: bonus}",
            "#       points: 1",
            "#       provenance: {status: house, source: house, note: Why our table plays it.}",
        ]
    return "\n".join(lines).rstrip("\n") + "\n"


def _plain_or_quoted(text: str) -> str:
    """A YAML scalar for `text`: as it is when YAML reads it back unchanged as a string (an id,
    a plain path), else double-quoted in JSON's escapes, which YAML reads too."""
    import json
    import re

    import yaml

    if re.fullmatch(r"[A-Za-z0-9_./-]+", text) and yaml.safe_load(text) == text:
        return text
    return json.dumps(text)


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
