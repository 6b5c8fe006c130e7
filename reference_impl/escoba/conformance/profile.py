"""The rules profile of a run: for every rule point, does the engine agree, differ, or was it not
exercised?

The summary an engine author reads first, and the data `escoba explore`-style tools build on:
one `PointProfile` per rule point of the rulesets the run touched (the rows of the rules
matrix, `escoba.diff.points`) and per `COMMON` point every ruleset shares.

- **differs**: a divergence of some case was attributed to the point
  (`escoba.conformance.attribute`): the engine does not play what it says it plays;
- **agrees**: some case that exercises the point (its `requires`, docs/protocol.md "Features")
  ran to its end with no divergence attributed to the point;
- **not claimed**: no case that exercises it ran, because the engine *declares* values for the
  point that leave out the one a case needs. Information, not a failure: the engine says itself
  that it plays another rule (rows about rules an engine does not claim are never `differs`);
- **not exercised**: no case that ran exercises it.

Each point also counts, per feature value (`capture.compulsory:card`, `...:hand`), the cases that
agree and differ, so an engine that implements one value of a point and not another shows it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from escoba.conformance.attribute import COMMON
from escoba.memo import ByIdentity

AGREES, DIFFERS, NOT_CLAIMED, NOT_EXERCISED = "agrees", "differs", "not claimed", "not exercised"


@dataclass
class ValueCount:
    feature: str  # `capture.compulsory:card`
    agree: int = 0
    differ: int = 0

    def to_json(self) -> dict:
        return {"feature": self.feature, "agree": self.agree, "differ": self.differ}


@dataclass
class PointProfile:
    """One rule point across a run."""

    point: str  # `capture.compulsory`, `scoring.primera.award`, `common.captures`
    label: str
    concern: str  # deck, players, deal, opening, capture, leftovers, scoring, match, common
    agree: list[str] = field(default_factory=list)  # ids of the cases that agree
    differ: list[str] = field(default_factory=list)  # ids of the cases that differ
    example: dict | None = None  # the first difference: case, index, class, message, events
    values: dict[str, ValueCount] = field(default_factory=dict)
    declared: list[str] | None = None  # what the engine declares for it, when it declares something
    inferred: list[str] = field(default_factory=list)  # values the engine behaves as if it had
    unclaimed: list[str] = field(default_factory=list)  # cases not run: the engine declares other values

    @property
    def status(self) -> str:
        if self.differ:
            return DIFFERS
        if self.agree:
            return AGREES
        return NOT_CLAIMED if self.unclaimed else NOT_EXERCISED

    def to_json(self) -> dict:
        return {
            "point": self.point,
            "label": self.label,
            "concern": self.concern,
            "status": self.status,
            "agree": len(self.agree),
            "differ": len(self.differ),
            "cases": list(self.differ),
            "example": self.example,
            "values": [v.to_json() for v in self.values.values()],
            "declared": self.declared,
            "inferred": list(self.inferred),
            "unclaimed": list(self.unclaimed),
        }


def ruleset_points(doc: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """(key, label, concern) of every rule point of a case's ruleset (`escoba.diff.points`),
    remembered per document: extracting them compiles the ruleset's measures again, and a run
    can have them extracted while it waits on its engine (`escoba conformance` does, once its
    cases are loaded), not after. A case's document is never changed."""
    return _POINTS.get(doc, _extract_points)


def _extract_points(doc: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    from escoba.rules.points import positions

    return [(p.key, p.label, p.concern) for p in positions(doc)]


_POINTS: ByIdentity[list[tuple[str, str, str]]] = ByIdentity(256)


def build_profile(results: Iterable[Any], declared: Any = None) -> list[PointProfile]:
    """The profile of a run's `CaseResult`s (in the rules matrix's order, common points last).

    `declared` is the engine's `escoba.protocol.features.Declared` (None: nothing declared)."""
    from escoba.protocol.features import point_of

    profile: dict[str, PointProfile] = {}
    docs_seen: set[int] = set()
    common: dict[str, PointProfile] = {k: PointProfile(k, text, "common") for k, text in COMMON.items()}
    results = list(results)
    skipped: dict[str, dict] = {}  # the first case not run for each point not claimed
    for r in results:
        case = getattr(r, "case", None)
        if case is None:
            continue
        doc = judged_document(r)
        if id(doc) not in docs_seen:
            docs_seen.add(id(doc))
            for key, label, concern in ruleset_points(doc):
                profile.setdefault(key, PointProfile(key, label, concern))
    profile.update(common)

    for r in results:
        case = getattr(r, "case", None)
        if case is None:
            continue
        requires = list(r.requires)
        by_point: dict[str, list[str]] = {}
        for f in requires:
            point = point_of(f)
            if point is not None and point in profile:
                by_point.setdefault(point, []).append(f)
                if point.startswith("scoring.") and point.endswith(".award"):  # a scored category
                    by_point.setdefault(point.removesuffix(".award"), [])
        differing: dict[str, Any] = {}
        for d in r.divergences:
            if d.point is not None and d.point not in differing:
                differing[d.point] = d
                if d.inferred and d.point in profile and d.inferred not in profile[d.point].inferred:
                    profile[d.point].inferred.append(d.inferred)
        if r.observed == "unsupported" and declared is not None:
            for f in r.missing:
                point = point_of(f)
                key = f.split(":", 1)[0]
                if point in profile and point not in ("players.counts",) and declared.declared_values(key):
                    profile[point].unclaimed.append(r.id)
                    skipped.setdefault(point, _example(r, _Declared(f, declared.declared_values(key))))
        for point, d in differing.items():
            if point not in profile:
                profile[point] = PointProfile(point, point, "common")
            entry = profile[point]
            entry.differ.append(r.id)
            if entry.example is None:
                entry.example = _example(r, d)
            for f in by_point.get(point, []):
                entry.values.setdefault(f, ValueCount(f)).differ += 1
        if r.complete:
            for point in {*by_point, *r.common}:
                if point in differing or point not in profile:
                    continue
                profile[point].agree.append(r.id)
                for f in by_point.get(point, []):
                    profile[point].values.setdefault(f, ValueCount(f)).agree += 1
    for point, example in skipped.items():
        if profile[point].status == NOT_CLAIMED:
            profile[point].example = example
    if declared is not None:
        for entry in profile.values():
            if entry.concern == "common":
                continue
            values = sorted({v for k in _feature_keys(entry) for v in declared.declared_values(k)})
            entry.declared = values or None
    return list(profile.values())


def judged_document(r: Any) -> Any:
    """The ruleset a result was judged under: the engine's declared rules, or the case's own."""
    return r.doc if getattr(r, "doc", None) is not None else r.case.document


def _feature_keys(entry: PointProfile) -> list[str]:
    if entry.point == "players.counts":
        return ["players"]
    keys = [entry.point]
    if entry.point.endswith(".award"):
        keys.append(entry.point.removesuffix(".award") + ".ties")
    return keys


@dataclass
class _Declared:
    """A point the engine declares other values for (the case was not run)."""

    feature: str
    values: Sequence[str]


def _example(r: Any, d: Any) -> dict:
    if isinstance(d, _Declared):
        return {
            "case": r.id, "index": None, "class": None, "expected": None, "observed": None,
            "message": f"the engine declares {', '.join(d.values)}; the case needs {d.feature}",
        }  # fmt: skip
    from escoba.conformance.compare import format_event

    if d.observed is None:
        message = f"#{d.index}: missing {format_event(d.expected)}"
    elif d.expected is None:
        message = f"#{d.index}: extra {format_event(d.observed)}"
    else:
        fields = "; ".join(_diff_text(f) for f in d.diff[:2])
        message = f"#{d.index} {d.expected.get('event')}: {fields}"
    if d.consequence_of is not None:
        message += f" (follows from #{d.consequence_of})"
    return {"case": r.id, "index": d.index, "class": d.cls, "expected": d.expected, "observed": d.observed, "message": message}


def _diff_text(f: Any) -> str:
    from escoba.conformance.compare import format_value

    if f.note:
        return f"{f.path}: {f.note}"
    return f"{f.path}: expected {_clip(format_value(f.expected))}, observed {_clip(format_value(f.observed))}"


def _clip(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def counts(profile: Sequence[PointProfile]) -> dict[str, int]:
    found = {AGREES: 0, DIFFERS: 0, NOT_CLAIMED: 0, NOT_EXERCISED: 0}
    for p in profile:
        found[p.status] += 1
    return found
