"""The catalogue of rule points, in the order the matrix and the diff show them, and the
positions a document takes on them.

`POINTS` lists every declaration (`base.RulePoint`), one module per concern. A document's
**positions** (`positions(doc)`) are the points as that ruleset answers them: one per section
point, and one per category and values table for the points of each (`scoring.velo.award`).
Keys a file leaves out take the point's default, so a file that writes `table_first: false`
and one that leaves it out agree. `with_value` writes another answer into a copy of a
document; `other_values` lists the answers worth trying (identify, the ruleset audit).

Fields of the compiled rules that no point owns are `DERIVED`, each with the reason.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from escoba.memo import ByIdentity
from escoba.rules.frozen import FrozenDict, thaw
from escoba.rules.points import capture, deal, deck, leftovers, match, opening, players, scoring
from escoba.rules.points.base import ANY, REQUIRED, RulePoint

Doc = Mapping[str, Any]

#: (id, title) of each concern, in the order the diff and the matrix show them
CONCERNS: tuple[tuple[str, str], ...] = (
    ("deck", "Deck"),
    ("players", "Players & turn"),
    ("deal", "Deal"),
    ("opening", "Opening table"),
    ("capture", "Capture"),
    ("leftovers", "Leftovers"),
    ("scoring", "Scoring"),
    ("match", "Match"),
)
CONCERN_TITLES = dict(CONCERNS)

POINTS: tuple[RulePoint, ...] = (
    *deck.POINTS, *players.POINTS, *deal.POINTS, *opening.POINTS, *capture.POINTS, *leftovers.POINTS,
    *scoring.POINTS, *match.POINTS,
)  # fmt: skip
SECTION_POINTS = tuple(p for p in POINTS if not p.per_item)
CATEGORY_POINTS = tuple(p for p in POINTS if p.key.startswith("scoring.*"))
VALUES_POINT = next(p for p in POINTS if p.key == "values.*")

#: compiled fields no single point owns, and what they are made from
DERIVED: dict[str, str] = {
    "Rules.id": "the ruleset's id, not a rule",
    "Rules.doc": "the resolved document itself",
    "Rules.deck": "the deck points together (deck.suits, deck.ranks, deck.jokers, deck.scoring_suit)",
    "Rules.finder": "the capture search, from deck.ranks, capture.target and capture.kinds",
    "Rules.categories": "the scoring.* points of each category",
    "Rules.needs_history": "some category's measure reads the hand's history (scoring.*.measure)",
    "Rules.history_reads": "the history names the categories' measures read (scoring.*.measure)",
    "Rules.declarations": "the categories measured on dealt cards, not the pile (scoring.*.measured_on)",
}


@lru_cache(maxsize=1024)
def rule_of(key: str) -> RulePoint | None:
    """The declaration of a point key (`scoring.velo.award` → `scoring.*.award`)."""
    parts = key.split(".")
    for rule in POINTS:
        want = rule.key.split(".")
        if len(want) == len(parts) and all(w == "*" or w == p for w, p in zip(want, parts)):
            return rule
    return None


# --------------------------------------------------------------------------- positions
@dataclass(frozen=True)
class Citation:
    """The provenance of one position, as the resolved document carries it."""

    status: str
    source: str
    inherited_from: str | None = None
    quote: Any = None
    gloss: Any = None
    note: str | None = None
    path: str | None = None  # JSON path of the citation in the resolved document

    @classmethod
    def of(cls, data: Any, path: str) -> Citation | None:
        if not isinstance(data, Mapping) or "status" not in data:
            return None
        return cls(
            status=str(data["status"]),
            source=str(data.get("source", "")),
            inherited_from=data.get("inherited_from"),
            quote=data.get("quote"),
            gloss=data.get("gloss"),
            note=data.get("note"),
            path=path,
        )

    def short(self) -> str:
        """`stated · 001` / `default · outside ← base`: status, source file stem prefix, origin."""
        source = self.source
        if source.endswith(".txt"):
            source = source.split("_", 1)[0]
        text = f"{self.status} · {source}" if source else self.status
        if self.inherited_from:
            text += f" ← {self.inherited_from}"
        return text

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"status": self.status, "source": self.source, "inherited_from": self.inherited_from}
        for name in ("quote", "gloss", "note"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out


@dataclass(frozen=True)
class Position:
    """The answer one ruleset gives to one rule point. `meaning` is what is compared; `text`
    is what is shown."""

    concern: str
    key: str  # `capture.compulsory`, `scoring.cards.award`
    label: str
    value: Any  # plain JSON data
    text: str
    meaning: Any = field(compare=False)
    citation: Citation | None = field(default=None, compare=False)
    written: bool = True  # False: the key is absent and the point's default applies
    path: str | None = field(default=None, compare=False)  # JSON path of the value, when written

    @property
    def rule(self) -> RulePoint:
        found = rule_of(self.key)
        assert found is not None, self.key
        return found


def default_of(rule: RulePoint, doc: Doc) -> Any:
    """What the engine plays when a file leaves the point out."""
    return rule.default(doc) if callable(rule.default) else copy.deepcopy(rule.default)


def unplayed(
    obj: Any, kind: str, rule_points: Sequence[RulePoint], doc: Doc, allowed_of: Callable[[RulePoint], Any], who: str,
) -> str | None:  # fmt: skip
    """Why a loop that restates the rules (the fused simulation path, the endgame solver) cannot
    play `obj` (a `Rules`, or a `Category` when `kind` is "Category"); None if it can.

    `allowed_of(rule)` gives the values of the point's fields the loop plays: ANY, a set, a
    dict of sets by field, or None for the point's compiled default only (what a loop that
    never heard of a new point plays). A field that no point owns and that is not `DERIVED` is
    unknown to every loop."""
    known = {name.split(".", 1)[1] for name in DERIVED if name.startswith(kind + ".")}
    for rule in rule_points:
        known.update(rule.fields)
        allowed = allowed_of(rule)
        if not rule.fields or allowed == ANY:
            continue
        if allowed is None:  # the default only
            default = rule.compile(default_of(rule, doc), doc)
            allowed = dict(zip(rule.fields, ({v} for v in default))) if len(rule.fields) > 1 else {default}
        for name in rule.fields:
            values = allowed.get(name, ANY) if isinstance(allowed, dict) else allowed
            value = getattr(obj, name)
            if values != ANY and value not in values:
                return f"{who} does not implement {name} = {value!r} ({rule.key})"
    for f in dataclasses.fields(obj):
        if f.name not in known:
            return f"{who} does not know the rule field {f.name!r}"
    return None


def section_value(doc: Doc, rule: RulePoint) -> tuple[Any, bool]:
    """The value of a section point in `doc`, and whether the document writes it."""
    body = doc.get(rule.section) or {}
    if rule.name in body:
        return body[rule.name], True
    return (None if rule.default is REQUIRED else default_of(rule, doc)), False


def positions(doc: Doc) -> list[Position]:
    """Every position of a resolved document, in catalogue order (categories in document order).
    A compiled ruleset's document cannot change: its positions are worked out once."""
    if isinstance(doc, FrozenDict):
        return list(_POSITIONS.get(doc, _positions))
    return _positions(doc)


def _positions(doc: Doc) -> list[Position]:
    found: list[Position] = []
    for rule in SECTION_POINTS:
        if rule.concern == "match" and not any(p.concern == "match" for p in found):
            found += _scoring_positions(doc)
        value, written = section_value(doc, rule)
        prov = (doc.get(rule.section) or {}).get("provenance") or {}
        found.append(
            Position(
                rule.concern, rule.key, rule.title, value, rule.shown(value, doc), rule.meaning(value, doc),
                Citation.of(prov.get(rule.name), f"$.{rule.section}.provenance.{rule.name}"), written,
                f"$.{rule.section}.{rule.name}" if written else None,
            )
        )  # fmt: skip
    return found


_POSITIONS: ByIdentity[list[Position]] = ByIdentity(64)


def _scoring_positions(doc: Doc) -> list[Position]:
    found: list[Position] = []
    for index, cat in enumerate((doc.get("scoring") or {}).get("categories") or []):
        cid = str(cat["id"])
        at = f"$.scoring.categories[{index}]"
        citation = Citation.of(cat.get("provenance"), f"{at}.provenance")
        for rule in CATEGORY_POINTS:
            value, written = category_value(cat, rule)
            if value is None:
                continue
            found.append(
                Position(
                    "scoring", rule.key.replace("*", cid), f"{cid}: {rule.title}", value, rule.shown(value, doc),
                    rule.meaning(value, doc), citation, written, f"{at}.{rule.name}" if written and rule.name != "*" else at,
                )
            )  # fmt: skip
    for name, table in sorted((doc.get("values") or {}).items()):
        rule = VALUES_POINT
        found.append(
            Position("scoring", f"values.{name}", f"values: {name}", dict(table), rule.shown(table, doc),
                     rule.meaning(table, doc), None, path=f"$.values.{name}")
        )  # fmt: skip
    return found


def category_value(cat: Mapping[str, Any], rule: RulePoint) -> tuple[Any, bool]:
    """The value of a category point (None: the category has no such point, as a holder has
    no measure), and whether the category writes it."""
    if rule.key == "scoring.*":
        return {"id": str(cat["id"]), "title": str(cat.get("title", cat["id"]))}, True
    if rule.name == "measure" and ("measure" not in cat or (cat.get("award") or {}).get("policy") == "holder"):
        return None, False
    if rule.name == "measured_on" and cat.get("measured_on", "pile") == "pile":
        return None, False  # the pile, as every category but a declaration: no row of its own
    if rule.name in cat:
        return cat[rule.name], True
    return (None if rule.default is REQUIRED else default_of(rule, cat)), False


def by_key(found: list[Position]) -> dict[str, Position]:
    return {p.key: p for p in found}


def category_ids(doc: Doc) -> list[str]:
    return [str(c["id"]) for c in (doc.get("scoring") or {}).get("categories") or []]


# --------------------------------------------------------------------------- other answers
def with_value(doc: Doc, key: str, value: Any) -> dict | None:
    """A copy of `doc` with point `key` set to `value`; None where the point cannot be set
    alone (a category that is not there, a point of no section). For a category, `None`
    means "not scored": the category is removed (None if it is the only one); a whole category
    of that id is scored in its place, or after the others where the document has none."""
    out = thaw(doc)  # a compiled ruleset's document is frozen: its copy must not be
    parts = key.split(".")
    if parts[0] == "values" and len(parts) == 2:
        out.setdefault("values", {})[parts[1]] = copy.deepcopy(value)
        return out
    if parts[0] == "scoring" and len(parts) == 2 and isinstance(value, Mapping) and str(value.get("id")) == parts[1]:
        cats = (out.setdefault("scoring", {}).get("categories")) or []
        at = next((i for i, c in enumerate(cats) if str(c.get("id")) == parts[1]), len(cats))
        out["scoring"]["categories"] = [*cats[:at], copy.deepcopy(dict(value)), *cats[at + 1 :]]
        return out
    if parts[0] == "scoring" and len(parts) == 2 and value is None:
        cats = (out.get("scoring") or {}).get("categories") or []
        kept = [c for c in cats if str(c.get("id")) != parts[1]]
        if len(kept) == len(cats) or not kept:
            return None
        out["scoring"]["categories"] = kept
        return out
    if parts[0] == "scoring" and len(parts) == 3:
        for cat in (out.get("scoring") or {}).get("categories") or []:
            if str(cat.get("id")) == parts[1]:
                cat[parts[2]] = copy.deepcopy(value)
                return out
        return None
    if len(parts) == 2 and isinstance(out.get(parts[0]), dict):
        out[parts[0]][parts[1]] = copy.deepcopy(value)
        return out
    return None


def other_values(doc: Doc, position: Position) -> list[Any]:
    """The other answers worth trying for a position of `doc`: the point's own readings, or
    every value the ruleset schema allows (an enumeration, yes or no); for a category, also
    not scoring it at all (None)."""
    rule = position.rule
    if rule.fixed is not None:
        return []
    if rule.key == "scoring.*":
        return [None]
    if rule.values is not None:
        return [v for v in rule.values(position.value, doc) if v != position.value]
    spec = _schema_of(rule)
    if "enum" in spec:
        return [v for v in spec["enum"] if v != position.value]
    if spec.get("type") == "boolean":
        return [not position.value]
    return []


def _schema_of(rule: RulePoint) -> dict[str, Any]:
    """The ruleset schema's description of a section point (the JSON Schema is data)."""
    from escoba.rules.schema import ruleset_schema

    spec = ruleset_schema()["properties"].get(rule.section, {}).get("properties", {}).get(rule.name, {})
    return spec if isinstance(spec, dict) else {}
