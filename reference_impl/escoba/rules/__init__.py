"""The rules pipeline: a ruleset id or file → a resolved, validated document.

    YAML (yamlload) → extends (resolve) → JSON Schema (schema) → semantic checks (semantics)

Every problem that can be found is reported in one run, so that a file is fixed in one round:
a YAML problem that still leaves a document to read (a YAML 1.1 boolean kept as its text)
does not stop the schema, and a schema problem stops only the semantic checks that read the
broken part (`semantics.check(..., broken=…)`), since those would report its consequences.
What stops everything is a file that cannot be read as a document, another DSL version, or
an `extends` chain that cannot be followed or merged.
"""

from __future__ import annotations

from pathlib import Path

from escoba.errors import Location, Problem, RulesetError, UnknownRuleset, ValueProblem
from escoba.rules import registry, verdicts
from escoba.rules.paths import within
from escoba.rules.resolve import Resolved, load_chain, resolve, ruleset_id, tolerant
from escoba.rules.yamlload import Document, load_text

__all__ = ["Resolved", "bundled_ids", "check", "check_document", "load_resolved", "valid_id"]


def load_resolved(id_or_path: str, text: str | None = None) -> Resolved:
    """The resolved ruleset; RulesetError with every problem, UnknownRuleset for a bad name.

    With `text`, that is the file's content (standard input), shown as `id_or_path`; a relative
    `extends` in it is looked up from the working folder, and without an `id` it is 'stdin'."""
    shown, chain, early = _chain(id_or_path, text)
    if text is None and not early:
        hit = _VALID.get(shown)
        if hit is not None and len(hit[0]) == len(chain) and all(a is b for a, b in zip(hit[0], chain)):
            return _copy(hit[1])
    resolved = _judged(chain, early)
    if text is None:
        if len(_VALID) > 64:
            _VALID.clear()
        _VALID[shown] = (tuple(chain), resolved)
        return _copy(resolved)
    return resolved


def valid_id(id_or_path: str, text: str | None = None) -> str:
    """The id of a valid ruleset (errors as `load_resolved`'s): all `escoba check` needs, so a
    chain whose verdict is remembered is not even resolved."""
    _, chain, early = _chain(id_or_path, text)
    if not early and verdicts.known("ruleset", _chain_key(chain)):
        return ruleset_id(chain[0])
    return _judged(chain, early).id


def _chain(id_or_path: str, text: str | None) -> tuple[str, list[Document], list[Problem]]:
    """The name shown, the `extends` chain of a ruleset (child first), and the problems of
    its files that still read as documents (each such file stands in the chain as it reads)."""
    early: list[Problem] = []
    if text is None:
        path, shown = registry.find(id_or_path)
        return shown, load_chain(path, shown, readable=early), early
    # Where the text stands for `extends` and messages; with no `id:` its id is 'stdin'.
    path, shown = Path.cwd() / "stdin.yaml", id_or_path
    first = tolerant(lambda: load_text(text, shown, path), early)
    return shown, load_chain(path, shown, first=first, readable=early), early


def _chain_key(chain: list[Document]) -> list:
    """Everything a chain's verdict depends on besides the judges' code (rules/verdicts.py):
    each file's data, the name it is shown by, where it is and whether it is bundled (a
    bundled file's name must be its id)."""
    return [(doc.file, str(doc.path), registry.is_bundled(doc.path), doc.data) for doc in chain]


def _judged(chain: list[Document], early: list[Problem]) -> Resolved:
    """The chain resolved and validated, or RulesetError with every problem found (`early`,
    the YAML problems of files that still read, among them); a verdict remembered is not
    judged again."""
    chain_key = _chain_key(chain)
    if not early and verdicts.known("ruleset", chain_key):
        return resolve(chain)
    from escoba.rules import schema, semantics  # jsonschema and lark load only when needed

    broken: set[str] = set()
    header = _header_problems(chain, schema, broken)
    if broken & {"$", "$.dsl"}:  # no `dsl: 1`: another language (or no ruleset); nothing more to say
        _stop_if(early + header)
    try:
        resolved = resolve(chain)
    except RulesetError as error:
        _stop_if(early + header + error.problems)
        raise
    early = _resolved_paths(early, chain, resolved)
    found = header + schema.validate(resolved.doc, resolved.positions, broken)
    # A YAML problem already says what is wrong with its value (`no` read as text); the schema
    # would only say that the text is not true or false.
    said = [p.location.path for p in early if isinstance(p, ValueProblem)]
    found = [p for p in found if not any(within(p.location.path, s) for s in said)]
    _stop_if(_once(early + found + semantics.check(resolved, broken=frozenset(broken | set(said)))))
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


def _header_problems(chain, schema, broken: set[str]) -> list[Problem]:
    problems: list[Problem] = []
    for doc in chain:
        problems += schema.validate_raw(doc.data, doc.positions, broken)
    return problems


def _resolved_paths(problems: list[Problem], chain: list[Document], resolved: Resolved) -> list[Problem]:
    """YAML problems, found in one file, with the JSON paths of the resolved ruleset as every
    other problem has them (`$.scoring.categories[5]`, not the file's own `[1]`): the node at
    the same place of the same file. A node the ruleset does not keep keeps its file's path."""
    where: dict[tuple[str, int, int], str] = {}
    for path, pos in sorted(resolved.positions.items(), key=lambda item: -len(item[0])):
        where[(pos.file, pos.line, pos.column)] = path  # the shortest path of a place wins
    files = {doc.file: doc for doc in chain}
    shown = []
    for problem in problems:
        at = problem.location
        doc = files.get(at.file)
        node = doc.positions.get(at.path) if doc is not None else None
        path = where.get((node.file, node.line, node.column), at.path) if node is not None else at.path
        shown.append(type(problem)(Location(at.file, at.line, at.column, path), problem.message, problem.excerpt, problem.caret))
    return shown


def _once(problems: list[Problem]) -> list[Problem]:
    """Each problem once: a file's top level is checked as written and again once resolved."""
    first: dict[str, Problem] = {}
    for problem in problems:
        first.setdefault(str(problem), problem)
    return list(first.values())


def _stop_if(problems: list[Problem]) -> None:
    if problems:
        # Document order: what a user fixes top to bottom (sort is stable within a line).
        problems.sort(key=lambda p: (p.location.file, p.location.line, p.location.column))
        raise RulesetError(problems)
