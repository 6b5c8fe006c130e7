"""The second answer of a report: which rules the engine plays, next to the regional ones.

An engine that declares its rules (conformance/declared.py) plays a *variant*: how those rules
differ from each regional ruleset (`base`, the source rulesets, the family's games) is
information for its author and players, never a failure. Each difference is a rule point of the
registry, compared by meaning (the structural diff, diff/structural.py), with the regional
ruleset's own sentence for it (the quote its document cites, and its gloss).

A second list says what the run *saw*: the points on which the engine played as if another
value held (a bug of the declared rules, conformance/bugs.py). If those are the rules its author
means, they belong in the declared rules (a house rule that says them); the variant is then
those rules, not the ones declared.

A third lists the rules the declared rules say they cannot write, each on its point
(`unsupported` entries with a `point`, conformance/unexpressed.py): what the run compared
around them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from escoba.conformance.declared import DeclaredRules
from escoba.conformance.unexpressed import declared

#: the kinds of bundled ruleset a variant is compared with
REGIONAL = ("base", "source", "family")


@dataclass(frozen=True)
class Row:
    """One rule point on which the declared rules and a regional ruleset differ."""

    key: str
    label: str
    yours: str
    theirs: str
    quote: str | None = None  # the regional ruleset's sentence for its value
    gloss: str | None = None  # that sentence in English, when the source is in another language
    status: str | None = None  # stated, interpreted, default…

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "label": self.label, "yours": self.yours, "theirs": self.theirs,
                "quote": self.quote, "gloss": self.gloss, "status": self.status}  # fmt: skip


@dataclass
class Comparison:
    id: str
    kind: str
    title: str
    rows: list[Row] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "title": self.title, "differences": [r.to_json() for r in self.rows]}


@dataclass(frozen=True)
class Observed:
    """A point the engine was seen to play otherwise than declared."""

    point: str
    declared: str | None
    inferred: str
    cases: int

    def to_json(self) -> dict[str, Any]:
        return {"point": self.point, "declared": self.declared, "inferred": self.inferred, "cases": self.cases}


@dataclass(frozen=True)
class Unsaid:
    """A rule the declared rules play and cannot write, on its point (conformance/unexpressed.py)."""

    point: str
    id: str
    note: str
    closest: str

    def to_json(self) -> dict[str, Any]:
        return {"point": self.point, "id": self.id, "note": self.note, "closest": self.closest}

    def compared(self) -> str:
        """What the run compared instead, in words."""
        category = self.point.split(".")[1]
        return (f"not compared: the {category}'s points and measures, a match's totals and winners; each hand's points "
                f"compared without the {category}'s; everything else as usual")  # fmt: skip


@dataclass
class Variant:
    rules: DeclaredRules
    comparisons: list[Comparison]  # fewest differences first
    observed: list[Observed]
    unsaid: list[Unsaid] = field(default_factory=list)

    @property
    def closest(self) -> Comparison | None:
        return self.comparisons[0] if self.comparisons else None

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules.label(),
            "closest": self.closest.id if self.closest is not None else None,
            "rulesets": [c.to_json() for c in self.comparisons],
            "observed": [o.to_json() for o in self.observed],
            "not_expressible": [u.to_json() for u in self.unsaid],
        }


def variant_of(rules: DeclaredRules, bugs: Iterable[Any] = ()) -> Variant:
    """The declared rules next to every regional ruleset, and the points the run saw played otherwise."""
    from escoba.conformance.attribute import VALUE

    comparisons = [compare(rules, other) for other in regional()]
    comparisons.sort(key=lambda c: (len(c.rows), REGIONAL.index(c.kind) if c.kind in REGIONAL else 9))
    observed = [Observed(str(b.point), b.declared, str(b.inferred), len(b.cases)) for b in bugs if b.explained == VALUE]
    unsaid = [Unsaid(str(e["point"]), str(e["id"]), " ".join(str(e.get("note") or "").split()), " ".join(str(e.get("closest") or "").split()))
              for e in declared(rules.doc)]  # fmt: skip
    return Variant(rules, comparisons, observed, unsaid)


def regional() -> list[Any]:
    """The bundled rulesets a variant is compared with, resolved (base, sources, family)."""
    from escoba.rules import bundled_ids, load_resolved

    found = []
    for rid in bundled_ids():
        resolved = load_resolved(rid)
        if resolved.kind in REGIONAL:
            found.append(resolved)
    return found


def compare(rules: DeclaredRules, other: Any) -> Comparison:
    from escoba.diff.structural import Ruleset, diff_documents

    mine = Ruleset(rules.id, rules.name, rules.kind, str(rules.doc.get("title", rules.id)))
    diff = diff_documents(rules.doc, other.doc, mine, Ruleset.of(other))
    rows = []
    for d in diff.differences:
        citation = d.b.citation
        quote = _sentence(citation.quote) if citation is not None else None
        gloss = _sentence(citation.gloss) if citation is not None else None
        rows.append(Row(d.key, d.label, d.a.text, d.b.text, quote, gloss if gloss != quote else None,
                        citation.status if citation is not None else None))  # fmt: skip
    return Comparison(str(other.id), str(other.kind), str(other.doc.get("title", other.id)), rows)


def _sentence(value: Any) -> str | None:
    """A citation's quote (a sentence or a list of them) as one string."""
    if value is None:
        return None
    if isinstance(value, list | tuple):
        return " ".join(str(v) for v in value) or None
    return str(value) or None
