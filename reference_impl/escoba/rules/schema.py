"""JSON Schema validation (`schemas/ruleset.schema.json`), told in plain words with positions.

Every independent error is reported, one line each, at the line of the node it is about; the
schema avoids `anyOf`/`oneOf`, so jsonschema's errors are already independent (where a combinator
does appear, `best_match` picks the headline among its alternatives).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any, cast

import jsonschema.validators
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match

from escoba.data import schemas_dir
from escoba.errors import Problem, quoted, shown
from escoba.rules.paths import Pos, join, locate

# How to call the allowed values of an enumerated key in a message ("… one of the policies: …").
_NOUNS = {
    "policy": "policies",
    "status": "statuses",
    "kind": "kinds",
    "ties": "tie rules",
    "direction": "directions",
    "leader": "leaders",
    "next_dealer": "dealer rotations",
    "short_stock": "short-stock rules",
    "trigger": "triggers",
    "action": "actions",
    "escobas": "escoba rules",
    "compulsory": "capture rules",
    "to": "destinations",
    "if_nobody_captured": "destinations",
    "check": "checks",
    "several_reach": "rules",
    "tie": "tie rules",
}
_PATTERNS = {
    "^[a-z][a-z0-9-]*$": "lower-case letters, digits and '-', starting with a letter",
    "^[a-z][a-z0-9_-]*$": "lower-case letters, digits, '_' and '-', starting with a letter",
    "^[a-z0-9][a-z0-9_-]*$": "lower-case letters, digits, '_' and '-'",
    "^[a-z_][a-z0-9_]*$": "lower-case letters, digits and '_'",
    "^[a-z]{2,3}$": "a two- or three-letter language code",
}
_TYPES = {
    "integer": "an integer",
    "number": "a number",
    "string": "a string",
    "boolean": "true or false",
    "array": "a list",
    "object": "a mapping",
    "null": "null",
}
# The header a raw file must get right before it can be resolved; sections are checked once resolved.
_HEADER = ("dsl", "id", "extends", "kind", "title", "description", "language", "source")


@cache
def ruleset_schema() -> dict[str, Any]:
    with open(schemas_dir() / "ruleset.schema.json", encoding="utf-8") as stream:
        return json.load(stream)


# JSON Schema counts 4.0 as an integer; a card count, seat or player count written `4.0` in
# YAML is a mistake to point at, not a number for the engine to trip over later.
_STRICT = Draft202012Validator.TYPE_CHECKER.redefine(
    "integer", lambda checker, value: isinstance(value, int) and not isinstance(value, bool)
)
_Validator = jsonschema.validators.extend(Draft202012Validator, type_checker=_STRICT)


@cache
def _validator() -> Draft202012Validator:
    return _Validator(ruleset_schema())


@cache
def _raw_validator() -> Draft202012Validator:
    full = ruleset_schema()
    properties = {k: (v if k in _HEADER else True) for k, v in full["properties"].items()}
    raw = {k: v for k, v in full.items() if k not in ("properties", "required")}
    return _Validator({**raw, "properties": properties, "required": ["dsl"]})


def validate(doc: Any, positions: Mapping[str, Pos], broken: set[str] | None = None) -> list[Problem]:
    """Problems of a resolved document, in document order. `broken`, when given, gets the
    JSON path of every node that is not what the schema says (a wrong type or value, a
    missing key: its mapping), for the checks that read the document next (an unknown key
    breaks nothing that is read)."""
    return _problems(_validator().iter_errors(doc), doc, positions, broken)


def validate_raw(doc: Any, positions: Mapping[str, Pos], broken: set[str] | None = None) -> list[Problem]:
    """Problems of one file's top level as written (unknown keys, the header)."""
    return _problems(_raw_validator().iter_errors(doc), doc, positions, broken)


def _problems(errors: Iterable[ValidationError], doc: Any, positions: Mapping[str, Pos], broken: set[str] | None = None) -> list[Problem]:
    seen: set[str] = set()
    found: list[Problem] = []
    for error in errors:
        if broken is not None and error.validator != "additionalProperties":
            broken.add(join(error.absolute_path))
        for problem in _explain(error, doc, positions):
            text = str(problem)
            if text not in seen:
                seen.add(text)
                found.append(problem)
    found.sort(key=lambda p: (p.location.file, p.location.line, p.location.column))
    return found


def _explain(error: ValidationError, doc: Any, positions: Mapping[str, Pos]) -> list[Problem]:
    parts = list(error.absolute_path)
    key = parts[-1] if parts and isinstance(parts[-1], str) else None
    # jsonschema's stubs type these as unions with `Unset`; a reported error always has them.
    validator, value, instance = error.validator, cast(Any, error.validator_value), cast(Any, error.instance)
    schema = cast(Any, error.schema)

    def at(message: str, where: list[Any] = parts, *, on_key: bool = False, shown: list[Any] | None = None) -> Problem:
        path = join(shown if shown is not None else where)
        return Problem(locate(positions, where, key=on_key, path=path), message)

    if validator in ("anyOf", "oneOf") and error.context:
        return _explain(best_match(error.context), doc, positions)
    if validator == "additionalProperties":
        allowed = ", ".join(sorted(schema.get("properties", {})))
        extra = [k for k in instance if k not in schema.get("properties", {})]
        return [at(f"unknown key {quoted(k)} (expected one of: {allowed})", parts + [k], on_key=True, shown=parts) for k in extra]
    if validator == "required":
        # jsonschema reports each missing key in an error of its own, named first in its message.
        missing = [k for k in value if k not in instance and error.message.startswith(repr(k))]
        category = parts[:2] == ["scoring", "categories"] and len(parts) == 3
        if missing == ["measure"] and category and not _known_policy(instance):
            return []  # whether a category needs a measure depends on its policy, the mistake to fix first
        return [at(f"missing required key '{k}'") for k in missing[:1]]
    if error.relative_schema_path and "propertyNames" in error.relative_schema_path:
        allowed = ", ".join(schema.get("enum", [])) if isinstance(schema, dict) else ""
        if validator == "enum":
            return [at(f"provenance for unknown key {quoted(instance)} (expected one of: {allowed})", parts + [instance], on_key=True, shown=parts)]
        return [at(f"key {quoted(instance)} does not have the expected form ({_pattern(value)})", parts + [instance], on_key=True, shown=parts)]
    if validator == "not" and value == {}:
        return [at(_not_used(key, parts, doc), on_key=True, shown=parts[:-1])]
    if validator == "type":
        wanted = [value] if isinstance(value, str) else list(value)
        return [at(f"expected {' or '.join(_TYPES[t] for t in wanted)}, got {shown(instance)}")]
    if validator == "enum":
        noun = _NOUNS.get(key or "", f"values of '{key}'" if key else "values")
        return [at(f"{shown(instance)} is not one of the {noun}: {', '.join(map(str, value))}")]
    if validator == "const":
        if key == "dsl":
            return [at(f"unsupported DSL version {shown(instance)} (this escoba reads dsl: {value})")]
        return [at(f"expected {shown(value)}, got {shown(instance)}")]
    if validator == "minimum":
        return [at(f"must be at least {value}, got {shown(instance)}")]
    if validator == "maximum":
        return [at(f"must be at most {value}, got {shown(instance)}")]
    if validator == "pattern":
        return [at(f"{shown(instance)} does not have the expected form ({_pattern(value)})")]
    if validator == "minLength":
        return [at("must not be empty")]
    if validator == "minItems":
        return [at(f"needs at least {value} item{'s' if value != 1 else ''}, got {len(instance)}")]
    if validator == "uniqueItems":
        repeated = sorted({shown(v) for v in instance if instance.count(v) > 1})
        return [at(f"repeated item{'s' if len(repeated) > 1 else ''}: {', '.join(repeated)}")]
    return [at(error.message)]


def _known_policy(category: Any) -> bool:
    """Whether a category's award names one of the policies (which decide what else it needs)."""
    award = category.get("award") if isinstance(category, dict) else None
    policy = award.get("policy") if isinstance(award, dict) else None
    award_schema = ruleset_schema()["properties"]["scoring"]["properties"]["categories"]["items"]["properties"]["award"]
    return isinstance(policy, str) and policy in award_schema["properties"]["policy"]["enum"]


def _not_used(key: str | None, parts: list[Any], doc: Any) -> str:
    """A key that the node's policy does not take (`card` on a `most` award)."""
    parent: Any = doc
    for part in parts[:-1]:
        parent = parent[part]
    policy = parent.get("policy") if isinstance(parent, dict) else None
    if policy is None and isinstance(parent, dict) and isinstance(parent.get("award"), dict):
        policy = parent["award"].get("policy")
    if policy is not None:
        return f"key '{key}' is not used by the policy '{policy}'"
    return f"key '{key}' is not allowed here"


def _pattern(pattern: str) -> str:
    return _PATTERNS.get(pattern, f"matching {pattern}")
