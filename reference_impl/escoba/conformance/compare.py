"""Expected events against observed ones: the first divergence, explained.

A conformance failure is reported at the first event that differs, because everything after
it follows from it. The report shows a few matching events before it (where the engine still
agreed), a field-level diff of the two events, and a class naming which rule went wrong, so a
list of failures reads as a list of rule points (`capture`, `escoba`, `scoring:primera`).

Fields named `reason` are free text (an engine's explanation) and are never compared.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

CONTEXT = 3  # matching events shown before a divergence

#: divergence classes, by the event type where the difference shows
EVENT_CLASS = {
    "legal": "legal-moves",
    "rejected": "legal-moves",
    "perft": "legal-moves",
    "hand_start": "deal",
    "table": "deal",
    "deal": "deal",
    "opening": "opening-table",
    "play": "capture",
    "escoba": "escoba",
    "leftovers": "leftovers",
    "hand_end": "hand-score",
    "totals": "match-end",
    "tie": "match-end",
    "match_end": "match-end",
}
# Events that appear or not depending on a rule: when one stands where another was expected,
# the rule about the one that appears (or vanishes) is the rule that went wrong.
_OPTIONAL = ("escoba", "leftovers", "opening", "tie", "match_end")

CLASSES = (
    "legal-moves",
    "deal",
    "opening-table",
    "capture",
    "escoba",
    "leftovers",
    "scoring:<category id>",
    "hand-score",
    "match-end",
    "protocol",
)


def same(expected: Any, observed: Any) -> bool:
    """Equal as JSON values, ignoring every field named `reason` (and 1 == 1.0, never True == 1)."""
    if isinstance(expected, dict):
        if not isinstance(observed, dict):
            return False
        keys = (expected.keys() | observed.keys()) - {"reason"}
        return all(k in expected and k in observed and same(expected[k], observed[k]) for k in keys)
    if isinstance(expected, list):
        return (
            isinstance(observed, list)
            and len(expected) == len(observed)
            and all(same(e, o) for e, o in zip(expected, observed))
        )
    if isinstance(expected, bool) or isinstance(observed, bool):
        return type(expected) is type(observed) and expected == observed
    return expected == observed


@dataclass(frozen=True)
class FieldDiff:
    path: str  # `$.moves[2].take` style
    expected: Any
    observed: Any
    note: str = ""

    def to_json(self) -> dict:
        data = {"path": self.path, "expected": self.expected, "observed": self.observed}
        if self.note:
            data["note"] = self.note
        return data


_ABSENT = "<absent>"


@dataclass
class Divergence:
    """The first event where expected and observed differ."""

    index: int
    expected: dict | None  # None: the engine produced an event too many
    observed: dict | None  # None: the engine stopped short
    context: list[dict] = field(default_factory=list)
    diff: list[FieldDiff] = field(default_factory=list)
    cls: str = "protocol"

    def to_json(self) -> dict:
        return {
            "index": self.index,
            "class": self.cls,
            "expected": self.expected,
            "observed": self.observed,
            "context": self.context,
            "diff": [d.to_json() for d in self.diff],
        }


def first_divergence(expected: Sequence[dict], observed: Sequence[dict]) -> Divergence | None:
    """None when the two streams are the same event for event."""
    for i, (e, o) in enumerate(zip(expected, observed)):
        if not same(e, o):
            return _divergence(expected, observed, i)
    if len(expected) != len(observed):
        return _divergence(expected, observed, min(len(expected), len(observed)))
    return None


def _divergence(expected: Sequence[dict], observed: Sequence[dict], i: int) -> Divergence:
    e = expected[i] if i < len(expected) else None
    o = observed[i] if i < len(observed) else None
    return Divergence(
        index=i,
        expected=e,
        observed=o,
        context=list(observed[max(0, i - CONTEXT) : i]),
        diff=diff_events(e, o),
        cls=classify(e, o),
    )


def classify(expected: dict | None, observed: dict | None) -> str:
    """The divergence class of a pair of differing events (either may be missing)."""
    kinds = [ev.get("event") if isinstance(ev, dict) else None for ev in (expected, observed)]
    if kinds[0] != kinds[1]:
        for kind in kinds:
            if kind in _OPTIONAL:
                return EVENT_CLASS[kind]
    event = expected if expected is not None else observed
    if not isinstance(event, dict):
        return "protocol"
    kind = event.get("event")
    if kind == "score":
        return f"scoring:{event.get('category')}"
    return EVENT_CLASS.get(str(kind), "protocol")


def diff_events(expected: Any, observed: Any) -> list[FieldDiff]:
    """Field-level differences (at most a screenful)."""
    if expected is None or observed is None:
        return [FieldDiff("$", expected if expected is not None else _ABSENT, observed if observed is not None else _ABSENT)]
    found: list[FieldDiff] = []
    _diff(expected, observed, "$", found)
    return found[:20]


def _diff(e: Any, o: Any, path: str, out: list[FieldDiff]) -> None:
    if same(e, o):
        return
    if isinstance(e, dict) and isinstance(o, dict):
        for key in [*e.keys(), *(k for k in o if k not in e)]:
            if key == "reason":
                continue
            if key not in o:
                out.append(FieldDiff(f"{path}.{key}", e[key], _ABSENT))
            elif key not in e:
                out.append(FieldDiff(f"{path}.{key}", _ABSENT, o[key]))
            else:
                _diff(e[key], o[key], f"{path}.{key}", out)
        return
    if isinstance(e, list) and isinstance(o, list):
        if len(e) == len(o) and not _is_set_like(e, o):
            for i, (a, b) in enumerate(zip(e, o)):
                _diff(a, b, f"{path}[{i}]", out)
            return
        missing, extra = _multiset_difference(e, o)
        if not missing and not extra:
            out.append(FieldDiff(path, e, o, "same items in another order"))
        else:
            note = []
            if missing:
                note.append(f"missing {_short(missing)}")
            if extra:
                note.append(f"extra {_short(extra)}")
            out.append(FieldDiff(path, e, o, "; ".join(note)))
        return
    out.append(FieldDiff(path, e, o))


def _is_set_like(e: list, o: list) -> bool:
    # Lists of moves or of cards read best as "missing / extra", not position by position.
    items = (*e, *o)
    return bool(items) and all(isinstance(x, str) or (isinstance(x, dict) and "card" in x) for x in items)


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _multiset_difference(e: list, o: list) -> tuple[list, list]:
    left = [_key(x) for x in o]
    missing = []
    for x in e:
        k = _key(x)
        if k in left:
            left.remove(k)
        else:
            missing.append(x)
    extra = [json.loads(k) for k in left]
    return missing, extra


def _short(items: list) -> str:
    return ", ".join(format_value(x) for x in items)


def format_value(value: Any) -> str:
    """Compact text for a move, a card list or any JSON value."""
    if isinstance(value, dict) and set(value) == {"card", "take"}:
        take = value["take"]
        return value["card"] + (" x " + " ".join(map(str, take)) if take else "")
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def format_event(event: dict | None) -> str:
    """One line per event: `play seat=0 card=7d take=[3c 5h]`."""
    if event is None:
        return "(no event)"
    parts = [str(event.get("event", "?"))]
    for key, value in event.items():
        if key == "event":
            continue
        if key == "moves" and isinstance(value, list):
            parts.append(f"moves=[{', '.join(format_value(m) for m in value)}]")
        elif isinstance(value, list) and all(isinstance(x, str) for x in value):
            parts.append(f"{key}=[{' '.join(value)}]")
        else:
            parts.append(f"{key}={json.dumps(value, ensure_ascii=False, separators=(',', ':'))}")
    return " ".join(parts)
