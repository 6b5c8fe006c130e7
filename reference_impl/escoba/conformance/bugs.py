"""The first answer of a report: the engine's bugs, each departure from the rules it plays.

Every divergence of every case is judged on its own (conformance/resync.py) and explained
(conformance/attribute.py). A *bug* is one kind of departure, found in one or more cases:

- a rule point the engine plays otherwise, with the value it plays as if it had
  (`capture.compulsory`, as if optional): a bug of the declared rules, or a rule the engine's
  author meant and did not declare (the report's variant part says which rules those are);
- a common rule every ruleset shares that the events prove broken (legal moves out of order,
  a refusal for the wrong reason, a refused move that changed the hand);
- a divergence no rule point explains, by its class and the common point it concerns (the
  captures offered, the deal, a hand's total...): never blamed on a guess;
- an engine that crashed, hung, or broke the protocol.

Divergences that follow from another one of the same reply are that one's, not bugs of their
own. Each bug names the first case that shows it, the command that replays that case, and,
when the run was asked to (`--shrink DIR`), the smallest case shrinking found (explore/shrinking.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from escoba.conformance.attribute import COMMON, FOLLOWS, SHAPE, VALUE
from escoba.conformance.compare import Divergence, format_event

_FAILURES = {"crash": "the engine crashed", "timeout": "the engine did not answer in time", "error": "the engine refused a request"}


@dataclass
class Bug:
    """One kind of departure, and the cases that show it."""

    key: tuple[str, ...]
    title: str  # one line
    point: str | None  # the rule point (or common point) it concerns
    explained: str | None  # attribute.VALUE, SHAPE, or None (no rule point explains it)
    inferred: str | None  # the value the engine plays as if it had
    cls: str | None  # the divergence class, or the outcome (crash, timeout, error, protocol)
    cases: list[str] = field(default_factory=list)
    first: Any = None  # the first CaseResult that shows it
    divergence: Divergence | None = None  # its first divergence there
    replay: str = ""
    shrunk: dict | None = None  # {"file", "events", "replay", "notes"} once shrunk

    @property
    def declared(self) -> str | None:
        """The value the declared rules give the point (for a point some value explains)."""
        if self.explained != VALUE or self.first is None or self.point is None:
            return None
        return declared_text(getattr(self.first, "doc", None), self.point)

    def to_json(self) -> dict[str, Any]:
        d = self.divergence
        return {
            "title": self.title,
            "point": self.point,
            "explained": self.explained,
            "inferred": self.inferred,
            "declared": self.declared,
            "class": self.cls,
            "cases": list(self.cases),
            "first": {
                "case": self.first.id if self.first is not None else None,
                "index": d.index if d is not None else None,
                "expected": d.expected if d is not None else None,
                "observed": d.observed if d is not None else None,
                "message": self.example(),
            },
            "replay": self.replay,
            "shrunk": self.shrunk,
        }

    def example(self) -> str:
        d = self.divergence
        if d is None:
            return str(getattr(self.first, "message", ""))
        if d.observed is None:
            return f"#{d.index}: expected {format_event(d.expected)}, the engine said nothing"
        if d.expected is None:
            return f"#{d.index}: the engine said {format_event(d.observed)}, nothing was expected"
        return f"#{d.index}: expected {format_event(d.expected)}; the engine said {format_event(d.observed)}"


def find_bugs(results: Iterable[Any]) -> list[Bug]:
    """The bugs a run shows, in the order first met."""
    found: dict[tuple[str, ...], Bug] = {}
    for r in results:
        if r.observed in _FAILURES or (r.observed == "fail" and r.cls == "protocol"):
            cls = "protocol" if r.observed == "fail" else r.observed
            key = ("outcome", cls)
            title = f"{_FAILURES.get(cls, 'the engine broke the protocol')}: {_first_line(r.message)}"
            _add(found, Bug(key, title, None, None, None, cls), r, None)
            continue
        if r.observed != "fail":
            continue
        for d in r.divergences:
            if d.explained == FOLLOWS or d.consequence_of is not None:
                continue  # another divergence of the case explains it
            _add(found, _bug_of(d), r, d)
    return list(found.values())


def _add(found: dict, new: Bug, r: Any, d: Divergence | None) -> None:
    bug = found.get(new.key)
    if bug is None:
        bug = found[new.key] = new
        bug.first, bug.divergence, bug.replay = r, d, r.replay
    if r.id not in bug.cases:
        bug.cases.append(r.id)


def _bug_of(d: Divergence) -> Bug:
    if d.explained == VALUE:
        return Bug(("value", str(d.point), str(d.inferred)), f"{d.point}: the engine plays as if {d.inferred}", d.point, VALUE, d.inferred, d.cls)
    if d.explained == SHAPE:
        rule = COMMON.get(str(d.point), str(d.point))
        return Bug(("shape", str(d.point)), f"{d.point} broken ({rule})", d.point, SHAPE, None, d.cls)
    where = f"{d.cls}" + (f": {d.point}, {COMMON[d.point]}" if d.point in COMMON else f": {d.point}" if d.point else "")
    return Bug(("none", str(d.cls), str(d.point)), f"no rule point explains it ({where})", d.point, None, None, d.cls)


def declared_text(doc: Any, key: str) -> str | None:
    """A point's value in the declared rules, in words (None where the document has no such point)."""
    if doc is None:
        return None
    from escoba.rules.points import by_key, positions

    position = by_key(positions(doc)).get(key)
    return position.text if position is not None else None


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= 120 else line[:119] + "…"
