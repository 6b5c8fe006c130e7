"""View 1: which rules differ, read off the two resolved documents.

The resolved documents, not the files, are compared: a key that moved, a comment, a key that
one file writes and the other inherits, a title or description, or a citation that changed
while the rule stayed are not differences. Each point is compared by its meaning (see
`points.py`): measures by their canonical form, holder cards by rank and suit, thresholds by
the number they stand for in the deck. Scoring categories are matched by id; one present in
only one ruleset is a difference. Provenance is shown beside each side's value, never diffed.

Beside the points, each side's recorded `unsupported` rules that the other side does not record
(by id): rules a ruleset states but the DSL cannot play. A house rule whose main rule is
recorded there differs from its parent by that rule, however few points differ.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from escoba.rules.points import CONCERNS, Citation, Position, category_ids, positions


@dataclass(frozen=True)
class Side:
    """One ruleset's position on a point; `point` is None when it has nothing there."""

    point: Position | None

    @property
    def text(self) -> str:
        if self.point is None:
            return "—"
        return self.point.text

    @property
    def citation(self) -> Citation | None:
        return self.point.citation if self.point is not None else None

    def to_json(self) -> dict[str, Any]:
        p = self.point
        return {
            "value": None if p is None else p.value,
            "text": self.text,
            "present": p is not None,
            "written": p is not None and p.written,
            "citation": None if self.citation is None else self.citation.to_json(),
        }


@dataclass(frozen=True)
class Difference:
    concern: str
    key: str
    label: str
    a: Side
    b: Side

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "point": self.label, "a": self.a.to_json(), "b": self.b.to_json()}


@dataclass(frozen=True)
class Recorded:
    """A rule one ruleset records as `unsupported` (stated, not played) and the other does not."""

    side: str  # "a" or "b"
    id: str
    source: str
    note: str | None
    quote: Any = None  # a string or a list of strings, as written
    gloss: Any = None
    closest: str | None = None  # the closest rule the DSL can say

    @classmethod
    def of(cls, side: str, item: Mapping[str, Any]) -> Recorded:
        return cls(side, str(item.get("id")), str(item.get("source", "")), item.get("note"), item.get("quote"), item.get("gloss"),
                   item.get("closest"))  # fmt: skip

    @property
    def text(self) -> str:
        """What the rule says, in one line: the gloss of its source's words (else the words, or
        the note of a rule that quotes nothing, as a house rule's)."""
        for said in (self.gloss, self.quote, self.note):
            if said:
                pieces = said if isinstance(said, list) else [said]
                return " ".join(" ".join(str(piece).split()) for piece in pieces)
        return "—"

    def to_json(self) -> dict[str, Any]:
        return {"ruleset": self.side, "id": self.id, "source": self.source, "quote": self.quote, "gloss": self.gloss, "note": self.note,
                "closest": self.closest}  # fmt: skip


def recorded_only(a: Mapping[str, Any], b: Mapping[str, Any]) -> tuple[Recorded, ...]:
    """The `unsupported` entries of each document whose id the other does not record, A's first."""
    ids_a = {str(u.get("id")) for u in a.get("unsupported") or []}
    ids_b = {str(u.get("id")) for u in b.get("unsupported") or []}
    only = [Recorded.of("a", u) for u in a.get("unsupported") or [] if str(u.get("id")) not in ids_b]
    return tuple(only + [Recorded.of("b", u) for u in b.get("unsupported") or [] if str(u.get("id")) not in ids_a])


@dataclass(frozen=True)
class Ruleset:
    """What the reports say about a compared ruleset."""

    id: str
    file: str
    kind: str
    title: str

    @classmethod
    def of(cls, resolved: Any) -> Ruleset:
        doc = resolved.doc
        files = getattr(resolved, "files", None) or []
        file = files[-1].file if files else str(doc.get("id"))
        return cls(str(resolved.id), str(file), str(doc.get("kind", "")), str(doc.get("title", resolved.id)))

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "file": self.file, "kind": self.kind, "title": self.title}


@dataclass(frozen=True)
class StructuralDiff:
    a: Ruleset
    b: Ruleset
    differences: tuple[Difference, ...]
    compared: int  # points compared
    recorded: tuple[Recorded, ...] = ()  # rules one side records as unsupported and the other does not

    @property
    def same(self) -> bool:
        """The same position on every point, and the same rules recorded as not played."""
        return not self.differences and not self.recorded

    def by_concern(self) -> list[tuple[str, str, list[Difference]]]:
        """(concern id, title, differences), every concern in order, empty ones included."""
        return [(cid, title, [d for d in self.differences if d.concern == cid]) for cid, title in CONCERNS]

    def keys(self) -> set[str]:
        return {d.key for d in self.differences}

    def to_json(self) -> dict[str, Any]:
        return {
            "a": self.a.to_json(),
            "b": self.b.to_json(),
            "points_compared": self.compared,
            "differences": len(self.differences),
            "unsupported": [r.to_json() for r in self.recorded],
            "concerns": [
                {"concern": cid, "title": title, "differences": [d.to_json() for d in diffs]}
                for cid, title, diffs in self.by_concern()
            ],
        }


def diff_documents(a: Mapping[str, Any], b: Mapping[str, Any], a_info: Ruleset, b_info: Ruleset) -> StructuralDiff:
    """The differences between two resolved documents."""
    pa, pb = positions(a), positions(b)
    ka, kb = {p.key: p for p in pa}, {p.key: p for p in pb}
    order = _merged_order([p.key for p in pa], [p.key for p in pb])
    differences: list[Difference] = []
    removed_or_added = set(category_ids(a)) ^ set(category_ids(b))
    for key in order:
        x, y = ka.get(key), kb.get(key)
        if x is not None and y is not None and x.meaning == y.meaning:
            continue
        # A category present in one ruleset only is one difference, not one per aspect.
        parts = key.split(".")
        if parts[0] == "scoring" and len(parts) == 3 and parts[1] in removed_or_added:
            continue
        sample = x or y
        assert sample is not None
        differences.append(Difference(sample.concern, key, sample.label, Side(x), Side(y)))
    return StructuralDiff(a_info, b_info, tuple(differences), len(order), recorded_only(a, b))


def diff_rulesets(a: Any, b: Any) -> StructuralDiff:
    """The differences between two `Resolved` rulesets (from `escoba.rules.load_resolved`)."""
    return diff_documents(a.doc, b.doc, Ruleset.of(a), Ruleset.of(b))


def _merged_order(first: list[str], second: list[str]) -> list[str]:
    """A's keys in A's order, with B-only keys slotted in after the key they follow in B."""
    out = list(first)
    seen = set(first)
    for i, key in enumerate(second):
        if key in seen:
            continue
        before = next((second[j] for j in range(i - 1, -1, -1) if second[j] in seen), None)
        out.insert(out.index(before) + 1 if before is not None else 0, key)
        seen.add(key)
    # Keep each concern together whatever the documents' order (the sort is stable).
    rank = {cid: n for n, (cid, _) in enumerate(CONCERNS)}
    return sorted(out, key=lambda k: rank[_concern(k)])


def _concern(key: str) -> str:
    section = key.split(".", 1)[0]
    return {
        "deck": "deck", "players": "players", "turn": "players", "deal": "deal", "opening_table": "opening",
        "capture": "capture", "leftovers": "leftovers", "scoring": "scoring", "values": "scoring", "match": "match",
    }[section]  # fmt: skip
