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

from escoba.errors import EscobaError, one_line, quoted, shorten
from escoba.inputs import Unreadable, read_file, strict_json

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


MAX_BYTES = 1 << 20  # an expectations file pins at most a few hundred cases


def load(path: str | Path) -> dict[str, Expectation]:
    """Read an expectations file (YAML or JSON); ExpectationsError names the problem.

    It goes through the guards of the ruleset loader (rules/yamlload.py): a regular file of at
    most 1 MiB, UTF-8, no tags, bounded nesting and aliases; JSON is read strictly (no NaN, no
    integer of more digits than Python converts)."""
    from escoba.errors import RulesetError
    from escoba.rules import yamlload

    path = Path(path)
    try:
        raw = read_file(path, MAX_BYTES)
    except Unreadable as problem:
        why = {"directory": "it is a folder", "special": "not a regular file (a pipe, a device or a socket)",
               "large": f"larger than {MAX_BYTES} bytes"}.get(problem.kind, problem.detail)  # fmt: skip
        raise ExpectationsError(f"{path}: cannot read expectations: {why}") from None
    kind = "JSON" if path.suffix == ".json" else "YAML"
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as problem:
        raise ExpectationsError(f"{path}: not valid {kind}: not UTF-8 (byte {problem.start})") from None
    if path.suffix == ".json":
        try:
            data = strict_json(text)
        except (ValueError, RecursionError) as problem:  # JSONDecodeError is a ValueError
            raise ExpectationsError(f"{path}: not valid JSON: {_one_line(problem)}") from None
    else:
        try:
            data = yamlload.load_text(text, str(path)).data if text.strip() else None
        except RulesetError as error:
            first = error.problems[0]
            where = f" (line {first.location.line}, column {first.location.column})" if first.location.line else ""
            more = f"; and {len(error.problems) - 1} more problems" if len(error.problems) > 1 else ""
            raise ExpectationsError(f"{path}: not valid YAML: {first.message}{where}{more}") from None
    return parse(data, str(path))



def _one_line(problem: Exception) -> str:
    """A parser's complaint in one line, with where it stopped."""
    if isinstance(problem, json.JSONDecodeError):
        return f"{problem.msg} (line {problem.lineno}, column {problem.colno})"
    return shorten(one_line(str(problem).splitlines()[0] if str(problem) else type(problem).__name__), 200)


def parse(data: Any, where: str = "<expectations>") -> dict[str, Expectation]:
    if not isinstance(data, Mapping):
        raise ExpectationsError(f"{where}: an expectations file is a mapping with `format: 1` and `cases`")
    if data.get("format", 1) != 1:
        raise ExpectationsError(f"{where}: $.format: unknown format {quoted(data.get('format'))} (this runner reads 1)")
    unknown = set(data) - {"format", "engine", "cases"}
    if unknown:
        raise ExpectationsError(f"{where}: unknown key {quoted(sorted(map(str, unknown))[0])} (allowed: format, engine, cases)")
    cases = data.get("cases") or {}
    if not isinstance(cases, Mapping):
        raise ExpectationsError(f"{where}: $.cases: a mapping from case id to expectation")
    found = {}
    for case_id, entry in cases.items():
        at = f"{where}: $.cases[{json.dumps(shorten(str(case_id), 80))}]"
        if isinstance(entry, str):  # shorthand: `case.id: unsupported`
            entry = {"outcome": entry}
        if not isinstance(entry, Mapping):
            raise ExpectationsError(f"{at}: an expectation is a mapping with `outcome`")
        extra = set(entry) - {"outcome", "class", "index", "note"}
        if extra:
            raise ExpectationsError(f"{at}: unknown key {quoted(sorted(map(str, extra))[0])} (allowed: outcome, class, index, note)")
        outcome = entry.get("outcome")
        if outcome not in PINNABLE:
            raise ExpectationsError(f"{at}.outcome: {quoted(outcome)} is not one of {', '.join(PINNABLE)}")
        index = entry.get("index")
        if index is not None and (not isinstance(index, int) or isinstance(index, bool) or index < 0):
            raise ExpectationsError(f"{at}.index: an event index (0 or more), not {quoted(index)}")
        cls = entry.get("class")
        if cls is not None and not isinstance(cls, str):
            raise ExpectationsError(f"{at}.class: a divergence class such as 'capture', not {quoted(cls)}")
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
