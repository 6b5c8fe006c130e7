"""The ruleset audit: every mutant of the bundled rulesets, replayed over the bundled cases.

For each mutant (`escoba.mutation.mutants`) the bundled cases of every ruleset it applies to
are replayed under it (`escoba.mutation.detect`). A mutant some case detects is **detected**,
and the number of such cases is its strength: the bar is three, the one `tests/test_mutants.py`
holds engine mutants to (a mutant one case detects is one regenerated `expect` away from a
blind spot). A mutant no case detects is searched (`escoba.mutation.equivalence`): a
**survivor** when some game tells it apart, **equivalent** when none does after the stated
effort, with the reason the registry gives or a person wrote (`conformance/equivalent.yaml`).
A reading that no valid ruleset can hold (the schema or the semantic checks refuse it under
every ruleset it would apply to) is **invalid**: listed, and no mutant.

The result is a JSON document (`Audit.to_json`, `conformance/audit.json` for the bundled
suite) holding each mutant's verdict and a **fingerprint** of what the verdict depends on (each
ruleset it applies to, the value written, the cases of those rulesets, the audit's effort).
Given an earlier result (`cache`), a mutant whose fingerprint has not changed keeps its verdict
and only the others are computed again: what a new rule point, a new ruleset or a changed case
brings. That is the check every CI run makes (tests/test_audit.py); the full audit, everything
computed again, runs in the deep profile and by hand (docs/conformance.md states its cost).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from escoba.mutation.equivalence import Effort

FORMAT = 1
VERSION = 1  # the meaning of a verdict: raised when detection or the search changes
BAR = 3  # cases each detected mutant must be detected by
LISTED = 5  # detecting case ids kept per mutant (all of them up to this many)
MAX_BYTES = 16 << 20  # an audit's JSON is a few hundred kilobytes
SURVIVOR = "survivor"
DETECTED = "detected"
EQUIVALENT = "equivalent"
INVALID = "invalid"


def bundled_cache() -> Path:
    """The audit of the bundled suite, kept beside the cases."""
    from escoba.data import conformance_dir

    return conformance_dir() / "audit.json"


def reasons_file() -> Path:
    """Why equivalent mutants are equivalent, where a person wrote it."""
    from escoba.data import conformance_dir

    return conformance_dir() / "equivalent.yaml"


@dataclass
class Entry:
    """The audit's verdict on one mutant."""

    ident: str
    label: str  # `key: was → reads`
    key: str
    point: str
    operator: str
    origins: list[str]
    applied: list[str]  # the rulesets it applies to as a valid ruleset
    verdict: str
    cases: int = 0  # cases that detect it
    by: list[str] = field(default_factory=list)  # the first LISTED of them
    reason: str = ""  # equivalent: why no game can tell it apart, as the registry declares it
    why: str = ""  # equivalent: why, as a person wrote it (conformance/equivalent.yaml)
    games: int = 0  # equivalent or survivor: games played looking for a difference
    survivor: dict | None = None  # {"ruleset", "case", "steps"}: the game that tells it apart
    fingerprint: str = ""
    seconds: float = 0.0
    reused: bool = False  # taken from the cache, not computed in this run

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.ident, "mutant": self.label, "point": self.point, "operator": self.operator,
            "origins": self.origins, "applied": self.applied, "verdict": self.verdict, "cases": self.cases, "by": self.by,
        }  # fmt: skip
        if self.verdict in (EQUIVALENT, SURVIVOR):
            out["games"] = self.games
        if self.reason:
            out["reason"] = self.reason
        if self.why:
            out["why"] = self.why
        if self.survivor is not None:
            out["survivor"] = self.survivor
        out["fingerprint"] = self.fingerprint
        out["seconds"] = round(self.seconds, 2)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Entry:
        return cls(
            str(data["id"]), str(data["mutant"]), str(data["mutant"]).split(":", 1)[0], str(data["point"]),
            str(data["operator"]), list(data["origins"]), list(data["applied"]), str(data["verdict"]),
            int(data.get("cases", 0)), list(data.get("by", [])), str(data.get("reason", "")), "", int(data.get("games", 0)),
            data.get("survivor"), str(data.get("fingerprint", "")), float(data.get("seconds", 0.0)), True,
        )  # fmt: skip


@dataclass
class Audit:
    """The verdict on every mutant, and what the run was over."""

    entries: list[Entry]
    rulesets: list[str]  # the bundled rulesets audited
    cases: int  # bundled cases replayed
    effort: Effort
    bar: int = BAR
    stale: list[str] = field(default_factory=list)  # ids computed again, or gone, against the cache given

    @property
    def mutants(self) -> list[Entry]:
        """The entries that are mutants (a valid ruleset holds them)."""
        return [e for e in self.entries if e.verdict != INVALID]

    @property
    def survivors(self) -> list[Entry]:
        return [e for e in self.entries if e.verdict == SURVIVOR]

    @property
    def weak(self) -> list[Entry]:
        """Detected mutants below the bar."""
        return [e for e in self.entries if e.verdict == DETECTED and e.cases < self.bar]

    @property
    def ok(self) -> bool:
        return not self.survivors and not self.weak

    @property
    def seconds(self) -> float:
        """What computing every verdict cost (each entry's own time, reused ones included)."""
        return sum(e.seconds for e in self.entries)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT, "version": VERSION, "bar": self.bar, "effort": self.effort.to_json(),
            "rulesets": self.rulesets, "cases": self.cases, "ok": self.ok, "seconds": round(self.seconds, 1),
            "figures": figures(self), "mutants": [e.to_json() for e in self.entries],
        }  # fmt: skip


    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Audit:
        """An audit as its JSON holds it (every entry `reused`); the reasons a person wrote are
        attached again from `conformance/equivalent.yaml`."""
        effort = data["effort"]
        entries = [Entry.from_json(e) for e in data["mutants"]]
        _attach_reasons(entries, written_reasons())
        return cls(entries, list(data["rulesets"]), int(data["cases"]), Effort(**effort), int(data["bar"]))


def read_audit(path: str | Path) -> Audit:
    """An earlier audit's JSON (an `EscobaError`, one line, if it cannot be read as one)."""
    import json

    from escoba.errors import EscobaError
    from escoba.inputs import Unreadable, describe, read_file

    try:
        data = json.loads(read_file(Path(path), MAX_BYTES).decode("utf-8"))
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            found = data.get("format") if isinstance(data, dict) else None
            raise ValueError(f"format {found!r}, not {FORMAT}")
        return Audit.from_json(data)
    except Unreadable as problem:
        raise EscobaError(f"{path}: {describe(problem, MAX_BYTES, 'an audit')}") from None
    except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError, RecursionError) as problem:
        raise EscobaError(f"{path}: not an audit written by escoba cases audit ({problem})") from None


def read_cache(path: str | Path) -> dict[str, Entry]:
    """The entries of an earlier audit's JSON, by mutant id."""
    return {e.ident: e for e in read_audit(path).entries}


def written_reasons(path: Path | None = None) -> dict[str, dict[str, str]]:
    """Mutant id → `{"mutant": its label, "why": why it is equivalent}`, as a person wrote them
    in `conformance/equivalent.yaml` (through the ruleset loader's guards)."""
    from escoba.errors import EscobaError
    from escoba.rules.yamlload import load_file

    path = reasons_file() if path is None else path
    if not path.is_file():
        return {}
    data = load_file(path).data or {}
    try:
        return {str(k): {"mutant": str(v["mutant"]), "why": " ".join(str(v["why"]).split())} for k, v in (data.get("mutants") or {}).items()}
    except (KeyError, TypeError, AttributeError) as problem:
        raise EscobaError(f"{path}: each mutant needs `mutant` and `why` ({problem!r} is missing or malformed)") from None


def run(
    only: Iterable[str] | None = None,
    *,
    cache: Mapping[str, Entry] | None = None,
    effort: Effort | None = None,
    jobs: int = 1,
    shrink: bool = True,
    say: Callable[[str], None] = lambda _: None,
) -> Audit:
    """Audit the mutants the bundled rulesets make (those of `only`, when given), reusing the
    verdicts of `cache` whose fingerprints are unchanged."""
    from escoba.conformance.runner import collect
    from escoba.mutation.detect import case_digest, fingerprint
    from escoba.mutation.mutants import known_rulesets, mutants

    effort = effort or Effort()
    only = list(only) if only is not None else None
    cases = [e.case for e in collect() if e.case is not None]
    rulesets = known_rulesets(cases)
    found = mutants(rulesets, only)
    digests = {c.id: case_digest(c) for c in cases}
    version = [VERSION, effort.to_json()]
    reasons = written_reasons()
    entries: list[Entry | None] = []
    todo: list[int] = []
    for mutant in found:
        current = fingerprint(mutant, digests, version)
        cached = (cache or {}).get(mutant.ident)
        if cached is not None and cached.fingerprint == current:
            entries.append(cached)
        else:
            entries.append(None)
            todo.append(len(entries) - 1)
    say(f"{len(found)} mutants of {len({o for m in found for o in m.origins})} rulesets over {len(cases)} cases; {len(todo)} to compute")
    for k, entry in _computed([found[i] for i in todo], digests, version, effort, jobs, shrink, say):
        entries[todo[k]] = entry
    done = [e for e in entries if e is not None]
    _attach_reasons(done, reasons)
    stale = [done[i].ident for i in todo]
    if cache is not None:
        made = {m.ident for m in found}
        stale += sorted(i for i, e in cache.items() if i not in made and (only is None or set(e.origins) & set(only)))
    audited = [r.name for r in rulesets if r.bundled and (only is None or r.name in only)]
    return Audit(done, audited, len(cases), effort, stale=stale)


def _attach_reasons(entries: Iterable[Entry], written: Mapping[str, Mapping[str, str]]) -> None:
    for entry in entries:
        found = written.get(entry.ident)
        entry.why = found["why"] if found is not None and entry.verdict == EQUIVALENT else ""


def _computed(found: Sequence[Any], digests: Mapping[str, str], version: Sequence[Any], effort: Effort, jobs: int, shrink: bool,
              say: Callable[[str], None]) -> Iterable[tuple[int, Entry]]:  # fmt: skip
    """(index in `found`, its entry) for each mutant, computed here or by `jobs` workers."""
    if jobs <= 1 or len(found) < 2:
        for k, mutant in enumerate(found):
            entry = verdict(mutant, digests, version, effort, shrink)
            say(f"  {entry.verdict:10} {entry.cases:3}  {entry.label}")
            yield k, entry
        return
    from concurrent.futures import as_completed

    from escoba.processes import worker_pool

    with worker_pool(jobs, len(found), _worker_init, (effort, shrink)) as pool:
        futures = {pool.submit(_worker_verdict, m.ident): k for k, m in enumerate(found)}
        for future in as_completed(futures):
            entry = future.result()
            say(f"  {entry.verdict:10} {entry.cases:3}  {entry.label}")
            yield futures[future], entry


def verdict(mutant: Any, digests: Mapping[str, str], version: Sequence[Any], effort: Effort, shrink: bool = True) -> Entry:
    """The verdict on one mutant: detected (by how many cases), equivalent, survivor or invalid."""
    from escoba.mutation.detect import detecting, fingerprint
    from escoba.mutation.equivalence import search, shrunk

    start = time.process_time()
    valid = [a.ruleset.name for a in mutant.applied if a.doc is not None]
    entry = Entry(
        mutant.ident, mutant.label, mutant.key, mutant.point, mutant.operator, list(mutant.origins), valid, INVALID,
        fingerprint=fingerprint(mutant, digests, version),
    )  # fmt: skip
    if not any(a.doc is not None for a in mutant.applied if a.ruleset.name in mutant.origins):
        entry.seconds = time.process_time() - start
        return entry
    ids = detecting(mutant)
    entry.cases, entry.by = len(ids), ids[:LISTED]
    if ids:
        entry.verdict = DETECTED
    else:
        found = search(mutant, effort)
        entry.games, entry.reason = found.games, found.reason
        entry.verdict = EQUIVALENT if found.equivalent else SURVIVOR
        if found.case is not None:
            applied = next(a for a in mutant.applied if a.ruleset.name == found.ruleset)
            case, steps = shrunk(applied, found.case) if shrink else (found.case, [])
            entry.survivor = {"ruleset": found.ruleset, "case": case, "steps": steps}
    entry.seconds = time.process_time() - start
    return entry


# ---------------------------------------------------------------------------------- workers
_WORKER: dict[str, Any] = {}


def _worker_init(effort: Effort, shrink: bool) -> None:
    from escoba.conformance.runner import collect
    from escoba.mutation.detect import case_digest
    from escoba.mutation.mutants import known_rulesets, mutants

    cases = [e.case for e in collect() if e.case is not None]
    _WORKER["mutants"] = {m.ident: m for m in mutants(known_rulesets(cases))}
    _WORKER["digests"] = {c.id: case_digest(c) for c in cases}
    _WORKER["effort"], _WORKER["shrink"] = effort, shrink


def _worker_verdict(ident: str) -> Entry:
    effort = _WORKER["effort"]
    return verdict(_WORKER["mutants"][ident], _WORKER["digests"], [VERSION, effort.to_json()], effort, _WORKER["shrink"])


def _row(name: str, entries: Sequence[Entry]) -> dict[str, Any]:
    detected = [e.cases for e in entries if e.verdict == DETECTED]
    return {
        "name": name, "mutants": len(entries), "detected": len(detected),
        "equivalent": sum(e.verdict == EQUIVALENT for e in entries), "survivors": sum(e.verdict == SURVIVOR for e in entries),
        "weakest": min(detected) if detected else None,
    }  # fmt: skip


def figures(audit: Audit) -> dict[str, Any]:
    """The audit's counts: in all, per rule point (declaration) and per bundled ruleset."""
    mutants = audit.mutants
    points: dict[str, list[Entry]] = {}
    for e in mutants:
        points.setdefault(e.point, []).append(e)
    from escoba.rules.points import POINTS

    order = {p.key: k for k, p in enumerate(POINTS)}
    return {
        **_row("all", mutants), "invalid": sum(e.verdict == INVALID for e in audit.entries),
        "below_bar": len(audit.weak), "registry": sum(e.operator == "registry" for e in mutants),
        "operators": sum(e.operator != "registry" for e in mutants),
        "points": [_row(p, points[p]) for p in sorted(points, key=lambda p: (order.get(p, len(order)), p))],
        "rulesets": [_row(r, [e for e in mutants if r in e.origins]) for r in audit.rulesets],
    }  # fmt: skip
