"""The rules pipeline: a ruleset id or file → a resolved, validated document.

    YAML (yamlload) → extends (resolve) → JSON Schema (schema) → semantic checks (semantics)

Each stage reports every problem it finds; a stage that found any stops the pipeline, since the
next would only report their consequences.
"""

from __future__ import annotations

from pathlib import Path

from escoba.errors import Problem, RulesetError, UnknownRuleset
from escoba.rules import registry, verdicts
from escoba.rules.resolve import Resolved, load_chain, resolve, ruleset_id
from escoba.rules.yamlload import Document, load_text

__all__ = ["Resolved", "bundled_ids", "check", "check_document", "load_resolved", "valid_id"]


def load_resolved(id_or_path: str, text: str | None = None) -> Resolved:
    """The resolved ruleset; RulesetError with every problem, UnknownRuleset for a bad name.

    With `text`, that is the file's content (standard input), shown as `id_or_path`; a relative
    `extends` in it is looked up from the working folder, and without an `id` it is 'stdin'."""
    shown, chain = _chain(id_or_path, text)
    if text is None:
        hit = _VALID.get(shown)
        if hit is not None and len(hit[0]) == len(chain) and all(a is b for a, b in zip(hit[0], chain)):
            return _copy(hit[1])
    resolved = _judged(chain)
    if text is None:
        if len(_VALID) > 64:
            _VALID.clear()
        _VALID[shown] = (tuple(chain), resolved)
        return _copy(resolved)
    return resolved


def valid_id(id_or_path: str, text: str | None = None) -> str:
    """The id of a valid ruleset (errors as `load_resolved`'s): all `escoba check` needs, so a
    chain whose verdict is remembered is not even resolved."""
    _, chain = _chain(id_or_path, text)
    if verdicts.known("ruleset", _chain_key(chain)):
        return ruleset_id(chain[0])
    return _judged(chain).id


def _chain(id_or_path: str, text: str | None) -> tuple[str, list[Document]]:
    """The name shown and the `extends` chain of a ruleset (child first)."""
    if text is None:
        path, shown = registry.find(id_or_path)
        return shown, load_chain(path, shown)
    # Where the text stands for `extends` and messages; with no `id:` its id is 'stdin'.
    path, shown = Path.cwd() / "stdin.yaml", id_or_path
    return shown, load_chain(path, shown, first=load_text(text, shown, path))


def _chain_key(chain: list[Document]) -> list:
    """Everything a chain's verdict depends on besides the judges' code (rules/verdicts.py):
    each file's data, the name it is shown by, where it is and whether it is bundled (a
    bundled file's name must be its id)."""
    return [(doc.file, str(doc.path), registry.is_bundled(doc.path), doc.data) for doc in chain]


def _judged(chain: list[Document]) -> Resolved:
    """The chain resolved and validated, or RulesetError; a verdict remembered is not judged
    again."""
    chain_key = _chain_key(chain)
    if verdicts.known("ruleset", chain_key):
        return resolve(chain)
    from escoba.rules import schema, semantics  # jsonschema and lark load only when needed

    _stop_if(_header_problems(chain, schema))
    resolved = resolve(chain)
    _stop_if(schema.validate(resolved.doc, resolved.positions))
    _stop_if(semantics.check(resolved))
    verdicts.remember("ruleset", chain_key)
    return resolved


# Validated chains, by the name shown: the parsed files (`load_cached` gives the same objects
# while no file of the chain changed on disk, and this cache keeps them alive, so identity is
# a sound key) and their resolved document. Validation is most of the cost of loading, and
# searches load the same few rulesets thousands of times.
_VALID: dict[str, tuple[tuple[object, ...], Resolved]] = {}


def _copy(resolved: Resolved) -> Resolved:
    """A resolved ruleset whose document the caller may change without touching the cache."""
    import copy

    return Resolved(resolved.id, copy.deepcopy(resolved.doc), resolved.positions, resolved.files, resolved.kind)


def check(id_or_path: str) -> list[Problem]:
    """Every problem of a ruleset (empty if valid); UnknownRuleset if the name names nothing."""
    try:
        load_resolved(id_or_path)
    except RulesetError as error:
        if isinstance(error, UnknownRuleset):
            raise
        return error.problems
    return []


def check_document(doc: object) -> list[Problem]:
    """Problems of an already resolved document received as data (no files, no positions):
    the schema, then the semantic checks that bear on play. Empty if it can be played."""
    if verdicts.known("document", doc):
        return []
    from escoba.rules import schema, semantics

    problems = schema.validate(doc, {})
    if problems or not isinstance(doc, dict):
        return problems
    problems = semantics.check_document(doc)
    if not problems:
        verdicts.remember("document", doc)
    return problems


def bundled_ids() -> list[str]:
    return registry.bundled_ids()


def _header_problems(chain, schema) -> list[Problem]:
    problems: list[Problem] = []
    for doc in chain:
        problems += schema.validate_raw(doc.data, doc.positions)
    return problems


def _stop_if(problems: list[Problem]) -> None:
    if problems:
        # Document order: what a user fixes top to bottom (sort is stable within a line).
        problems.sort(key=lambda p: (p.location.file, p.location.line, p.location.column))
        raise RulesetError(problems)
