"""Expectations files: the known failures of one engine, pinned by *how* they fail.

    # my-engine.expectations.yaml
    format: 1
    engine: my-engine          # free text, for people
    cases:
      opening.thirty-splits.two-escobas:
        outcome: fail
        class: opening-table   # optional: the divergence class must be this one
        index: 7               # optional: and the first divergent event this one
        note: we do not split 30 into two groups yet
      partnership.four-players.velo:
        outcome: unsupported

A case that fails exactly as pinned is `xfail` and keeps the run green. A pinned case that fails
*differently* (another class, another event, another outcome) is a NEW failure: a known bug
must not hide a new one. A pinned case that passes is reported so the pin can go.

JSON with the same structure is accepted too (a `.json` file).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from escoba.errors import EscobaError

PINNABLE = ("fail", "error", "crash", "timeout", "unsupported", "broken-case")


class ExpectationsError(EscobaError):
    """An expectations file that cannot be read or does not have the documented shape."""


@dataclass(frozen=True)
class Expectation:
    outcome: str
    cls: str | None = None
    index: int | None = None
    note: str = ""

    def matches(self, outcome: str, cls: str | None, index: int | None) -> bool:
        return (
            outcome == self.outcome
            and (self.cls is None or self.cls == cls)
            and (self.index is None or self.index == index)
        )

    def describe(self) -> str:
        text = self.outcome
        if self.cls:
            text += f" ({self.cls}"
            text += f" at event {self.index})" if self.index is not None else ")"
        elif self.index is not None:
            text += f" (at event {self.index})"
        return text

    def to_json(self) -> dict:
        data: dict[str, Any] = {"outcome": self.outcome}
        if self.cls is not None:
            data["class"] = self.cls
        if self.index is not None:
            data["index"] = self.index
        if self.note:
            data["note"] = self.note
        return data


def load(path: str | Path) -> dict[str, Expectation]:
    """Read an expectations file (YAML or JSON); ExpectationsError names the problem."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as problem:
        raise ExpectationsError(f"{path}: cannot read expectations: {problem.strerror or problem}") from None
    try:
        if path.suffix == ".json":
            data = json.loads(text)
        else:
            import yaml

            data = yaml.safe_load(text)
    except (ValueError, Exception) as problem:  # yaml.YAMLError and JSONDecodeError
        kind = "JSON" if path.suffix == ".json" else "YAML"
        raise ExpectationsError(f"{path}: not valid {kind}: {_one_line(problem)}") from None
    return parse(data, str(path))


def _one_line(problem: Exception) -> str:
    """A parser's complaint in one line, with where it stopped (PyYAML's spans several)."""
    if isinstance(problem, json.JSONDecodeError):
        return f"{problem.msg} (line {problem.lineno}, column {problem.colno})"
    what = getattr(problem, "problem", None) or str(problem).splitlines()[0]
    mark = getattr(problem, "problem_mark", None)
    where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
    return " ".join(f"{what}{where}".split())


def parse(data: Any, where: str = "<expectations>") -> dict[str, Expectation]:
    if not isinstance(data, Mapping):
        raise ExpectationsError(f"{where}: an expectations file is a mapping with `format: 1` and `cases`")
    if data.get("format", 1) != 1:
        raise ExpectationsError(f"{where}: $.format: unknown format {data.get('format')!r} (this runner reads 1)")
    unknown = set(data) - {"format", "engine", "cases"}
    if unknown:
        raise ExpectationsError(f"{where}: unknown key {sorted(unknown)[0]!r} (allowed: format, engine, cases)")
    cases = data.get("cases") or {}
    if not isinstance(cases, Mapping):
        raise ExpectationsError(f"{where}: $.cases: a mapping from case id to expectation")
    found = {}
    for case_id, entry in cases.items():
        at = f"{where}: $.cases[{json.dumps(str(case_id))}]"
        if isinstance(entry, str):  # shorthand: `case.id: unsupported`
            entry = {"outcome": entry}
        if not isinstance(entry, Mapping):
            raise ExpectationsError(f"{at}: an expectation is a mapping with `outcome`")
        extra = set(entry) - {"outcome", "class", "index", "note"}
        if extra:
            raise ExpectationsError(f"{at}: unknown key {sorted(extra)[0]!r} (allowed: outcome, class, index, note)")
        outcome = entry.get("outcome")
        if outcome not in PINNABLE:
            raise ExpectationsError(f"{at}.outcome: {outcome!r} is not one of {', '.join(PINNABLE)}")
        index = entry.get("index")
        if index is not None and (not isinstance(index, int) or isinstance(index, bool) or index < 0):
            raise ExpectationsError(f"{at}.index: an event index (0 or more), not {index!r}")
        cls = entry.get("class")
        if cls is not None and not isinstance(cls, str):
            raise ExpectationsError(f"{at}.class: a divergence class such as 'capture', not {cls!r}")
        found[str(case_id)] = Expectation(outcome, cls, index, str(entry.get("note") or ""))
    return found


def dump(pins: Mapping[str, Expectation], engine: str = "", as_json: bool = False) -> str:
    """The text of an expectations file pinning `pins` (cases sorted by id)."""
    data = {"format": 1, "engine": engine, "cases": {k: pins[k].to_json() for k in sorted(pins)}}
    if as_json:
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    import yaml

    header = "# Known failures, pinned by how they fail; see docs/conformance.md (expectations files).\n"
    return header + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


def unknown_ids(pins: Mapping[str, Expectation], known: Iterable[str]) -> list[str]:
    """Pinned ids that name no case (a typo, or a case that was removed)."""
    known = set(known)
    return sorted(k for k in pins if k not in known)
