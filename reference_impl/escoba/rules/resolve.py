"""`extends:` inheritance: a ruleset is its parent with the child's changes laid over it.

Maps merge key by key; scalars and lists of scalars replace; lists of objects with an `id` merge
by id (new ids appended in order, `remove: true` deletes). Two kinds of map are replaced whole,
never merged, because half of one glued to half of another means nothing: a provenance citation
(the child's quote must not keep the parent's gloss) and a category's `award` (a `holder` award
must not keep the `ties` of the `most` award it replaces).

Every node of the result keeps the position it came from, in whichever file that was.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from escoba.data import spec_dir
from escoba.errors import Location, Problem, RulesetError, UnknownRuleset, quoted
from escoba.record import Record
from escoba.rules import registry
from escoba.rules.paths import Pos, child_path, item_path, join
from escoba.rules.yamlload import Document, ReadableProblems, load_file, read_text

TYPE_CHECKING = False  # True for type checkers; `typing` is not imported at run time (escoba/__init__.py)
if TYPE_CHECKING:
    from typing import Any

MAX_CHAIN = 64

# Top-level keys in the order `escoba show` prints them; unknown keys follow in file order.
TOP_ORDER = (
    "dsl", "id", "kind", "resolved_from", "title", "language", "description", "source",
    "deck", "players", "turn", "deal", "opening_table", "capture", "leftovers", "values",
    "scoring", "match", "unsupported", "errata",
)  # fmt: skip
_OWN = ("id", "kind", "extends", "resolved_from")  # what a ruleset never takes from its parent
_ATOMIC = ("award",)

_cache: dict[tuple[str, str], tuple[tuple[int, int], Document | RulesetError]] = {}


class Resolved(Record):
    """A ruleset with its `extends` chain applied."""

    _fields = ("id", "doc", "positions", "files", "kind")
    __slots__ = _fields

    def __init__(self, id: str, doc: dict[str, Any], positions: dict[str, Pos], files: list[Document], kind: str):
        self.id = id
        self.doc = doc
        self.positions = positions
        self.files = files  # the chain, root (usually `base`) first
        self.kind = kind


def load_cached(path: Path, shown: str) -> Document:
    """A parsed file, re-read only when it changed on disk; never mutate what it returns."""
    try:
        stat = os.stat(path)
        stamp = (stat.st_mtime_ns, stat.st_size)
    except OSError:
        return load_file(path, shown)  # let the loader say why
    key = (str(path.resolve()), shown)
    hit = _cache.get(key)
    if hit is None or hit[0] != stamp:
        try:
            result: Document | RulesetError = load_file(path, shown)
        except RulesetError as error:
            result = error
        hit = _cache[key] = (stamp, result)
    if isinstance(hit[1], RulesetError):
        raise hit[1]
    return hit[1]


def load_chain(path: Path, shown: str, first: Document | None = None, readable: list[Problem] | None = None) -> list[Document]:
    """The file and its ancestors, child first; located problems for a broken `extends`.

    `first`: the file already parsed (text from standard input), standing at `path`.
    `readable`: where to put the problems of files that still read as documents
    (`ReadableProblems`), whose documents then stand in the chain; without it they raise."""
    doc = first if first is not None else tolerant(lambda: load_cached(path, shown), readable)
    chain = [doc]
    seen = {doc.path.resolve(): doc.file}
    while True:
        if not isinstance(doc.data, dict) or "extends" not in doc.data:
            return chain
        extends = doc.data["extends"]
        where = _where(doc, "$.extends")
        if not isinstance(extends, str) or not extends:
            raise RulesetError([Problem(where, "must name a ruleset id or a path to a file")])
        if len(chain) > MAX_CHAIN:
            raise RulesetError([Problem(where, f"a chain deeper than {MAX_CHAIN} rulesets")])
        parent_path, parent_shown = _parent_file(doc, extends, where)
        real = parent_path.resolve()
        if real in seen:
            cycle = [d.file for d in chain] + [seen[real]]
            raise RulesetError([Problem(where, "cycle: " + " → ".join(cycle))])
        doc = tolerant(lambda: _load_parent(parent_path, parent_shown, extends, where), readable)  # noqa: B023 - called at once
        seen[real] = doc.file
        chain.append(doc)


def tolerant(load: Callable[[], Document], readable: list[Problem] | None) -> Document:
    """`load()`; a file whose problems leave a readable document gives that document, its
    problems added to `readable` (when it is a list: else they are raised)."""
    try:
        return load()
    except ReadableProblems as error:
        if readable is None:
            raise
        readable.extend(error.problems)
        return error.document


# Directories besides each file's own where `extends:` may name files (the CLI's --rules-path).
_rules_path: tuple[Path, ...] = ()


def set_rules_path(directories: Iterable[str | os.PathLike[str]]) -> None:
    """Let `extends:` name files in these directories too (and below them), not only in the
    folder of the file that names them."""
    global _rules_path
    _rules_path = tuple(Path(d) for d in directories)


def _inside(path: str, folder: str) -> bool:
    return os.path.commonpath([path, folder]) == folder


def _load_parent(path: Path, shown: str, extends: str, where: Location) -> Document:
    """A parent named by `extends:`. A file that is not a ruleset (no `dsl:` at its top) is
    one problem at the `extends:` line that never quotes what the file holds."""

    def not_a_ruleset(why: str) -> RulesetError:
        return RulesetError([Problem(where, f"{quoted(extends)} is not a ruleset ({why})")])

    try:
        doc = load_cached(path, shown)
    except UnknownRuleset:
        raise
    except RulesetError as error:
        try:
            text = read_text(path, shown)
        except RulesetError:
            raise not_a_ruleset("it cannot be read as a YAML text file") from None
        if not _DSL_LINE.search(text):
            raise not_a_ruleset("it does not load as YAML with 'dsl:' at its top") from None
        raise error  # a ruleset with problems of its own: those are worth reading
    if not isinstance(doc.data, dict) or "dsl" not in doc.data:
        raise not_a_ruleset("it has no 'dsl:' at its top")
    return doc


_DSL_LINE = re.compile(r"^dsl[ \t]*:", re.MULTILINE)


def _parent_file(doc: Document, extends: str, where: Location) -> tuple[Path, str]:
    if "/" in extends or os.sep in extends or extends.endswith((".yaml", ".yml")):
        if "\0" in extends:  # no file has such a name (and the operating system refuses to look)
            raise RulesetError([Problem(where, f"{quoted(extends)} names no file: a file name cannot hold a NUL byte")])
        path = doc.path.parent / extends
        # Only inside the naming file's folder (or a --rules-path): a ruleset from someone else
        # must not be able to read, let alone print, any other file. Checked before reading.
        real = os.path.realpath(path)
        allowed = [os.path.realpath(doc.path.parent), *(os.path.realpath(d) for d in _rules_path)]
        if not any(_inside(real, folder) for folder in allowed):
            message = (f"{quoted(extends)} is outside the folder of this file; name a file in "
                       f"{os.path.normpath(doc.path.parent)} (or below it), a bundled id, or add its folder with --rules-path")  # fmt: skip
            raise RulesetError([Problem(where, message)])
        # os.path.isfile, not Path.is_file: on a name the OS refuses (too long, a folder that
        # may not be searched) Path.is_file raises in Python 3.11; for extends it names no file.
        if os.path.isfile(path) or (os.path.exists(path) and not os.path.isdir(path)):  # a FIFO: refused when read
            return path, os.path.normpath(os.path.join(os.path.dirname(doc.file), extends))
        message = f"no such file {extends} (looked in {os.path.normpath(doc.path.parent)})"
        raise RulesetError([Problem(where, message)])
    known = registry.bundled()
    if extends in known:
        return known[extends], registry.display_name(known[extends])
    raise RulesetError([Problem(where, registry.unknown_message(extends))])


def _where(doc: Document, path: str) -> Location:
    pos = doc.positions.get(path) or doc.positions.get("$")
    return Location(doc.file, pos.line, pos.column, path) if pos else Location(doc.file, 0, 0, path)


def ruleset_id(doc: Document) -> str:
    own = doc.data.get("id") if isinstance(doc.data, dict) else None
    return own if isinstance(own, str) else doc.path.stem


def infer_kind(doc: Document) -> str:
    """`kind` when the file leaves it out: from where a bundled file lives, else `house`."""
    own = doc.data.get("kind")
    if own is not None:
        return own
    folder = doc.path.resolve().parent
    spec = spec_dir().resolve()
    if folder == spec / "family":
        return "family"
    if folder != spec:
        return "house"
    if "extends" not in doc.data:
        return "base"
    return "source" if doc.data["extends"] == "base" else "variant"


def resolve(chain: list[Document]) -> Resolved:
    """Apply a chain (child first, as `load_chain` gives it); RulesetError on a bad merge."""
    problems: list[Problem] = []
    doc: dict[str, Any] = {}
    positions: dict[str, Pos] = {}
    ids: list[str] = []
    for link in reversed(chain):
        if ids:
            _mark_inherited(doc, positions, ids[-1])
        merger = _Merger(link, ids[-1] if ids else None, problems)
        doc, positions = merger.top(doc, positions, ids)
        if ids:
            _uncite_changes(doc, positions, link)
        ids.append(ruleset_id(link))
    if problems:
        raise RulesetError(problems)
    return Resolved(ids[-1], doc, positions, list(reversed(chain)), doc.get("kind", "house"))


def citations(doc: dict[str, Any]) -> list[tuple[tuple[str | int, ...], dict[str, Any]]]:
    """Every provenance citation: each section's `provenance:` values and each category's."""
    found: list[tuple[tuple[str | int, ...], dict[str, Any]]] = []
    for section, body in doc.items():
        if isinstance(body, dict) and isinstance(body.get("provenance"), dict):
            for key, citation in body["provenance"].items():
                if isinstance(citation, dict):
                    found.append(((section, "provenance", key), citation))
    scoring = doc.get("scoring")
    categories = scoring.get("categories") if isinstance(scoring, dict) else None
    for i, category in enumerate(categories if isinstance(categories, list) else []):
        if isinstance(category, dict) and isinstance(category.get("provenance"), dict):
            found.append((("scoring", "categories", i, "provenance"), category["provenance"]))
    return found


def _mark_inherited(doc: dict[str, Any], positions: dict[str, Pos], parent: str) -> None:
    for parts, citation in citations(doc):
        if "inherited_from" not in citation:
            citation["inherited_from"] = parent
            path = join(parts)
            if path in positions:
                positions[child_path(path, "inherited_from")] = positions[path]


def _uncite_changes(doc: dict[str, Any], positions: dict[str, Pos], link: Document) -> None:
    """A value a file changes without citing anything is no longer what the parent's citation
    says: `points: 2` on the velo must not show the Danish page's quote for one point. Such a
    citation is replaced by one saying who set the value (house rules may leave provenance out;
    source rulesets may not, and the semantic checks say so)."""
    child = link.data if isinstance(link.data, dict) else {}
    own = ruleset_id(link)

    def uncited(path: str) -> dict[str, Any]:
        return {"status": "house", "source": "house", "note": f"set by {own} without a citation"}

    def replace(holder: dict[str, Any], key: str, path: str, where: str) -> None:
        holder[key] = uncited(path)
        pos = link.positions.get(where) or positions.get(path)
        if pos is not None:
            for field in ("", ".status", ".source", ".note"):
                positions[path + field] = pos

    for section, body in child.items():
        merged = doc.get(section)
        if not isinstance(body, dict) or not isinstance(merged, dict):
            continue
        given: Any = body.get("provenance") if isinstance(body.get("provenance"), dict) else {}
        cited = merged.get("provenance")
        for key in body:
            if key != "provenance" and key not in given and isinstance(cited, dict) and key in cited:
                replace(cited, key, join((section, "provenance", key)), child_path(child_path("$", section), key))
    scoring = child.get("scoring")
    items = scoring.get("categories") if isinstance(scoring, dict) else None
    merged_scoring = doc.get("scoring")
    merged_items = merged_scoring.get("categories") if isinstance(merged_scoring, dict) else None
    if not isinstance(merged_items, list):
        return  # the schema reports the broken section
    for i, item in enumerate(items if isinstance(items, list) else []):
        if not isinstance(item, dict) or "provenance" in item or item.get("remove") is True:
            continue
        if not set(item) - {"id", "remove"}:
            continue
        for j, target in enumerate(merged_items):
            if isinstance(target, dict) and target.get("id") == item.get("id") and "provenance" in target:
                replace(target, "provenance", join(("scoring", "categories", j, "provenance")), item_path("$.scoring.categories", i))


class _Merger:
    """Lays one file over the resolved parent, building fresh data and positions."""

    def __init__(self, link: Document, parent_id: str | None, problems: list[Problem]):
        self.link = link
        self.parent_id = parent_id
        self.problems = problems
        self.old_pos: dict[str, Pos] = {}
        self.out: dict[str, Pos] = {}

    def top(self, parent: dict[str, Any], parent_pos: dict[str, Pos], ids: list[str]) -> tuple[dict[str, Any], dict[str, Pos]]:
        self.old_pos = parent_pos
        child = self.link.data
        merged: dict[str, Any] = {}
        self.out["$"] = self.link.positions["$"]
        for key in [k for k in parent if k not in _OWN] + [k for k in child if k not in parent and k not in _OWN]:
            path = child_path("$", key)
            if key not in child:
                merged[key] = self.copy(parent[key], path, path, self.old_pos)
            elif key not in parent:
                merged[key] = self.copy(child[key], path, path, self.link.positions)
            else:
                merged[key] = self.merge(parent[key], path, child[key], path, path, atomic_children=False)
        own_id = ruleset_id(self.link)
        merged["id"] = own_id
        self.out["$.id"] = self.link.positions.get("$.id", self.out["$"])
        merged["kind"] = infer_kind(self.link)
        self.out["$.kind"] = self.link.positions.get("$.kind", self.out["$"])
        if self.parent_id is not None:
            merged["resolved_from"] = ids + [own_id]
            where = self.link.positions.get("$.extends", self.out["$"])
            self.out["$.resolved_from"] = where
            for i in range(len(ids) + 1):
                self.out[item_path("$.resolved_from", i)] = where
        rank = {key: n for n, key in enumerate(TOP_ORDER)}
        ordered = dict(sorted(merged.items(), key=lambda kv: rank.get(kv[0], len(rank))))
        return ordered, self.out

    def copy(self, value: Any, src: str, dst: str, positions: dict[str, Pos]) -> Any:
        pos = positions.get(src)
        if pos is not None:
            self.out[dst] = pos
        if isinstance(value, dict):
            return {k: self.copy(v, child_path(src, k), child_path(dst, k), positions) for k, v in value.items()}
        if isinstance(value, list):
            return [self.copy(v, item_path(src, i), item_path(dst, i), positions) for i, v in enumerate(value)]
        return value

    def merge(
        self, old: Any, old_path: str, new: Any, new_path: str, dst: str, atomic_children: bool, item: bool = False
    ) -> Any:
        """`old` from the resolved parent at `old_path`, `new` from this file at `new_path`.

        `atomic_children`: the values of this map are citations; `item`: this map is a list
        item, whose `provenance` is one citation.
        """
        if isinstance(old, dict) and isinstance(new, dict):
            self.out[dst] = self.link.positions[new_path]
            merged: dict[str, Any] = {}
            for key in list(old) + [k for k in new if k not in old]:
                o, n, d = child_path(old_path, key), child_path(new_path, key), child_path(dst, key)
                if key not in new:
                    merged[key] = self.copy(old[key], o, d, self.old_pos)
                elif key not in old or atomic_children or key in _ATOMIC or (item and key == "provenance"):
                    merged[key] = self.copy(new[key], n, d, self.link.positions)
                else:
                    merged[key] = self.merge(old[key], o, new[key], n, d, atomic_children=key == "provenance")
            return merged
        if isinstance(new, list) and _merges_by_id(old, new):
            return self.merge_items(old if isinstance(old, list) else [], old_path, new, new_path, dst)
        return self.copy(new, new_path, dst, self.link.positions)

    def merge_items(self, old: list[Any], old_path: str, new: list[Any], new_path: str, dst: str) -> list[Any]:
        self.out[dst] = self.link.positions[new_path]
        by_id = {item.get("id"): i for i, item in enumerate(old) if isinstance(item, dict) and _is_id(item.get("id"))}
        changes: dict[Any, tuple[int, dict[str, Any]]] = {}
        first_line: dict[Any, int] = {}
        for i, item in enumerate(new):
            here = item_path(new_path, i)
            if not isinstance(item, dict) or "id" not in item:
                self.problem(here, "this item has no 'id'; the items of this list are merged by id")
                continue
            item_id = item["id"]
            if not _is_id(item_id):
                self.problem(child_path(here, "id"), f"an id must be a name, not {_kind(item_id)}")
                continue
            if item_id in first_line:
                self.problem(child_path(here, "id"), f"duplicate id '{item_id}' (first at line {first_line[item_id]})")
                continue
            first_line[item_id] = self.link.positions[here].line
            if item.get("remove") is True and item_id not in by_id:
                where = f" (the parent '{self.parent_id}' has none)" if self.parent_id else ""
                self.problem(child_path(here, "remove"), f"no item '{item_id}' to remove{where}")
                continue
            changes[item_id] = (i, item)
        result: list[Any] = []
        for i, item in enumerate(old):
            change = changes.pop(item.get("id"), None) if isinstance(item, dict) and _is_id(item.get("id")) else None
            if change is not None and change[1].get("remove") is True:
                continue
            o, d = item_path(old_path, i), item_path(dst, len(result))
            if change is None:
                result.append(self.copy(item, o, d, self.old_pos))
            else:
                merged = self.merge(item, o, change[1], item_path(new_path, change[0]), d, False, item=True)
                result.append(self._strip_remove(merged, d))
        for i, item in changes.values():
            d = item_path(dst, len(result))
            result.append(self._strip_remove(self.copy(item, item_path(new_path, i), d, self.link.positions), d))
        return result

    def _strip_remove(self, item: dict[str, Any], path: str) -> dict[str, Any]:
        """`remove: false` says nothing once resolved; drop it."""
        if item.get("remove") is False:
            del item["remove"]
            self.out.pop(child_path(path, "remove"), None)
        return item

    def problem(self, path: str, message: str) -> None:
        pos = self.link.positions.get(path)
        location = Location(self.link.file, pos.line, pos.column, path) if pos else Location(self.link.file, 0, 0, path)
        self.problems.append(Problem(location, message))


def _kind(value: Any) -> str:
    return {dict: "a map", list: "a list", type(None): "null"}.get(type(value), type(value).__name__)


def _is_id(value: Any) -> bool:
    # Ids key dictionaries here; a list or map in their place is reported, never hashed.
    return isinstance(value, (str, int)) and not isinstance(value, bool)


def _merges_by_id(old: Any, new: list[Any]) -> bool:
    """A list whose items are objects with ids (or whose parent list is one) merges by id."""
    if new and all(isinstance(item, dict) and "id" in item for item in new):
        return True
    parent_has_ids = isinstance(old, list) and old and all(isinstance(i, dict) and "id" in i for i in old)
    return bool(parent_has_ids and any(isinstance(item, dict) for item in new))
