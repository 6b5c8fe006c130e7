"""Expected events against observed ones: the first divergence, and every other one, explained.

A case's outcome is decided at the first event that differs (expectations files pin it). The
report shows a few matching events before it (where the engine still agreed), a field-level
diff of the two events, and a class naming which rule went wrong, so a list of failures reads
as a list of rule points (`capture`, `escoba`, `scoring:primera`).

After the first divergence the runner keeps driving the case, so the rest of the stream is
compared too (`all_divergences`): reply by reply (a *chunk* is the events of one reply), the
events of each chunk aligned by kind, so that one extra escoba does not make every later event
differ. `escoba.conformance.attribute` then names each divergence's rule point.

Fields named `reason` are free text (an engine's explanation) and are never compared. A score
event's `measures` are compared only for an engine that declares the feature `measures`;
otherwise a measure difference with the same points is a note, not a divergence.
"""

from __future__ import annotations

import json
import marshal
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

CONTEXT = 3  # matching events shown before a divergence

#: divergence classes, by the event type where the difference shows
EVENT_CLASS = {
    "legal": "legal-moves",
    "rejected": "legal-moves",
    "state": "legal-moves",  # the state after a refusal: a refused move that changed something
    "perft": "legal-moves",
    "hand_start": "deal",
    "table": "deal",
    "deal": "deal",
    "opening": "opening-table",
    "declaration": "hand-score",  # points for cards as dealt: what the hand scores
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
_OPTIONAL = ("escoba", "leftovers", "opening", "declaration", "tie", "match_end")

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
    if expected == observed and marshal.dumps(expected, 2) == marshal.dumps(observed, 2):
        # Equal with the same types everywhere, found in C: most events of a run agree, and
        # the walk below costs several times more. Marshal's format 2 writes a value's type
        # beside it (True, 1 and 1.0 differ) and nothing else: no references between objects,
        # so the same value gives the same bytes whatever objects hold it (it is faster than
        # `repr`, which did this before).
        return True
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


def same_event(expected: Any, observed: Any, measures: bool = True) -> bool:
    """`same`, except that with `measures=False` the `measures` of two score events are not compared."""
    if not measures and _both_scores(expected, observed):
        return same({k: v for k, v in expected.items() if k != "measures"}, {k: v for k, v in observed.items() if k != "measures"})
    return same(expected, observed)


def _both_scores(expected: Any, observed: Any) -> bool:
    return (
        isinstance(expected, dict)
        and isinstance(observed, dict)
        and expected.get("event") == "score"
        and observed.get("event") == "score"
    )


def measure_note(expected: Any, observed: Any) -> str | None:
    """A note for two score events that differ only in their measures (None otherwise)."""
    if _both_scores(expected, observed) and same_event(expected, observed, False) and not same(expected, observed):
        return (
            f"score {expected.get('category')}: measures {format_value(observed.get('measures'))}, expected "
            f"{format_value(expected.get('measures'))}, with the same points (not compared: the engine does not "
            "declare `measures`)"
        )
    return None


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
    """An event where expected and observed differ.

    `index` numbers the expected stream (for an extra event: where it stands in it). `point` is
    the rule point it concerns (a key of `escoba.diff.points`, or a `common.*` point every
    ruleset shares; see `escoba.conformance.attribute`), `inferred` the value of that point the
    engine behaves as if it had, when the runner could tell, and `consequence_of` the index of
    an earlier divergence this one follows from.
    """

    index: int
    expected: dict | None  # None: the engine produced an event too many
    observed: dict | None  # None: the engine stopped short
    context: list[dict] = field(default_factory=list)
    diff: list[FieldDiff] = field(default_factory=list)
    cls: str = "protocol"
    point: str | None = None
    inferred: str | None = None
    consequence_of: int | None = None
    chunk: int | None = None  # which reply of the case (0: start)
    # how the point was found (conformance/attribute.py): "value" (another value of it
    # reproduces the reply), "shape" (the events prove a common rule), "follows" (other
    # divergences of the reply explain it); None: no rule point explains it
    explained: str | None = None
    resync: str | None = None  # how the reference went on after it: None (it did), or why it could not
    alternatives: list[tuple[str, str]] = field(default_factory=list)  # (point, value) pairs that explain it as well

    def to_json(self) -> dict:
        return {
            "index": self.index,
            "class": self.cls,
            "point": self.point,
            "inferred": self.inferred,
            "consequence_of": self.consequence_of,
            "explained": self.explained,
            "resync": self.resync,
            "also": [f"{p} as if {v}" for p, v in self.alternatives if (p, v) != (self.point, self.inferred)],
            "expected": self.expected,
            "observed": self.observed,
            "context": self.context,
            "diff": [d.to_json() for d in self.diff],
        }


def first_divergence(expected: Sequence[dict], observed: Sequence[dict], measures: bool = True) -> Divergence | None:
    """None when the two streams are the same event for event."""
    for i, (e, o) in enumerate(zip(expected, observed)):
        if not same_event(e, o, measures):
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


# ---------------------------------------------------------------------------------- every divergence
_ALONE = ("legal", "rejected", "state", "perft")  # runner events: one request, one event


def chunks(events: Sequence[dict]) -> list[tuple[int, int]]:
    """(start, end) of the events of each reply, read off an expected stream: a runner event is
    its own reply; a reply ends before one, and a hand dealt after a match's totals starts one.
    """
    bounds: list[tuple[int, int]] = []
    start = 0
    for i, event in enumerate(events):
        kind = event.get("event")
        previous = events[i - 1].get("event") if i else None
        if i > start and (kind in _ALONE or previous in _ALONE or (kind == "hand_start" and previous in ("totals", "tie"))):
            bounds.append((start, i))
            start = i
    if start < len(events):
        bounds.append((start, len(events)))
    return bounds


def _align_key(event: Any) -> str:
    if not isinstance(event, dict):
        return "?"
    kind = str(event.get("event"))
    return f"score:{event.get('category')}" if kind == "score" else kind


def all_divergences(
    expected: Sequence[dict],
    observed: Sequence[dict],
    observed_chunks: Sequence[tuple[int, int]],
    measures: bool = True,
) -> list[Divergence]:
    """Every divergence, reply by reply: the expected stream is cut into `chunks`, the observed
    one as it came (`observed_chunks`), and the events of each pair aligned by kind. A reply the
    engine never gave (the case stopped) is not compared."""
    import difflib

    found: list[Divergence] = []
    for n, ((e0, e1), (o0, o1)) in enumerate(zip(chunks(expected), observed_chunks)):
        exp, obs = list(expected[e0:e1]), list(observed[o0:o1])
        if len(exp) == len(obs) and all(same_event(a, b, measures) for a, b in zip(exp, obs)):
            continue
        matcher = difflib.SequenceMatcher(a=[_align_key(e) for e in exp], b=[_align_key(o) for o in obs], autojunk=False)
        for _op, a0, a1, b0, b1 in matcher.get_opcodes():
            pairs = min(a1 - a0, b1 - b0)
            for k in range(max(a1 - a0, b1 - b0)):
                e = exp[a0 + k] if k < a1 - a0 else None
                o = obs[b0 + k] if k < b1 - b0 else None
                if e is not None and o is not None and k < pairs and same_event(e, o, measures):
                    continue
                at = e0 + a0 + min(k, a1 - a0)
                where = o0 + b0 + min(k, b1 - b0)
                # Two categories' scores are two divergences: one category the engine left
                # out, another it scores that the rules do not (each a rule of its own).
                split = [(e, None), (None, o)] if _other_categories(e, o) else [(e, o)]
                for x, y in split:
                    found.append(
                        Divergence(
                            index=at, expected=x, observed=y, context=list(observed[max(0, where - CONTEXT) : where]),
                            diff=diff_events(x, y), cls=classify(x, y), chunk=n,
                        )
                    )  # fmt: skip
    return found


def _other_categories(expected: Any, observed: Any) -> bool:
    """Both events are scores, of two categories."""
    return (
        isinstance(expected, dict) and isinstance(observed, dict)
        and expected.get("event") == observed.get("event") == "score"
        and expected.get("category") != observed.get("category")
    )  # fmt: skip


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
