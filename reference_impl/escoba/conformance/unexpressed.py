"""Rules the DSL cannot say, declared on their point: what conformance compares where they act.

A ruleset lists under `unsupported` the rules it plays that no key can write (docs/dsl.md). An
entry with a `point` naming a scoring category (`scoring.primera`, or one of its keys such as
`scoring.primera.measure`) says that this category's points follow such a rule: the category as
written is only the closest the DSL comes (it is what `simulate` and `diff` play). An engine
judged under these rules cannot be held to points the rules do not know, so the events are
compared on what the rules can say (`view`, applied alike to the expected and observed events):

- that category's `score` event: that it is scored, not its points or measures;
- `hand_end`: each side's points less that category's, which the same reply scored just before;
- a match's totals (`totals`, `tie`, `match_end`) and its winners: not compared, since they
  add that category in. Whether a match goes on or ends still is.

Every other event, and every other category's score, is compared as usual. The report lists
these declarations with the variant (conformance/variant.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

#: what stands, on both sides, for a value that depends on a rule the DSL cannot say
NOT_COMPARED = "not compared"


def declared(doc: Mapping[str, Any] | None) -> list[Mapping[str, Any]]:
    """The `unsupported` entries of a resolved ruleset that name a scoring category's point."""
    entries = (doc or {}).get("unsupported") or []
    return [e for e in entries if isinstance(e, Mapping) and str(e.get("point") or "").startswith("scoring.")]


def categories(doc: Mapping[str, Any] | None) -> frozenset[str]:
    """The ids of the categories whose points follow a rule declared not expressible."""
    return frozenset(str(e["point"]).split(".")[1] for e in declared(doc))


def view(doc: Mapping[str, Any] | None, events: Sequence[dict]) -> list[dict]:
    """`events` as compared under `doc`: the same list when it declares nothing not expressible.
    A view of a view is itself (the expected events of a plan may be viewed twice)."""
    unsaid = categories(doc)
    if not unsaid:
        return list(events)
    out: list[dict] = []
    hand: dict[str, Any] = {}  # this reply's scores of those categories, until its hand_end
    for event in events:
        if not isinstance(event, dict):
            out.append(event)
            continue
        kind = event.get("event")
        if kind == "score" and event.get("category") in unsaid:
            if event.get("points") != NOT_COMPARED:
                hand[str(event["category"])] = event.get("points")
            out.append({**event, "points": NOT_COMPARED, "measures": NOT_COMPARED})
        elif kind == "hand_end" and "without" not in event:
            out.append({**event, "points": _less(event.get("points"), hand.values()), "without": sorted(unsaid)})
            hand = {}
        elif kind in ("totals", "tie", "match_end"):
            out.append({**event, **{k: NOT_COMPARED for k in ("totals", "winners", "sides") if k in event}})
        else:
            out.append(event)
    return out


def _less(points: Any, scored: Any) -> Any:
    """Each side's points less those categories' points (as they came, where they are not
    numbers per side: a malformed event stays as the engine sent it, to be reported)."""
    if not isinstance(points, list) or not all(type(p) is int for p in points):
        return points
    left = list(points)
    for each in scored:
        if not isinstance(each, list) or len(each) != len(left) or not all(type(p) is int for p in each):
            return points
        left = [a - b for a, b in zip(left, each)]
    return left
