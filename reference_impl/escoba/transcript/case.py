"""Golden case files: load, validate, and check that a case is consistent with itself.

A case file (`conformance/cases/**/<id>.json`, schema `schemas/transcript.schema.json`) fixes a
ruleset, the table, the full deck orders and every choice; `expect` is every event a conforming
engine must produce. `load_case` refuses a broken case with `TranscriptError` naming the file
and the JSON path:

    conformance/cases/rules/x.json: $.hands[0].decks[0]: not the 40-card deck of fr (twice: 7d; missing: 3c)

Checks, in order (each stage stops the load, since later ones would only report consequences):
JSON, the format version, the schema, the id against the file name, the ruleset and the
table, the deck orders (permutations of the ruleset's deck), the moves (they parse, and are
legal when replayed by the reference engine under the case's own ruleset), the probes, and the
expected events (a sane order, and every pin matching its event).

Whether `expect` is what the reference engine produces *now* is not a load-time check: that is
what `tests/test_transcripts.py` and `escoba conformance` compare.
"""

from __future__ import annotations

import fnmatch
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path
from typing import Any, cast

from escoba.data import conformance_dir, schemas_dir
from escoba.errors import (
    EscobaError,
    Location,
    NotationError,
    Problem,
    TranscriptError,
    UnknownRuleset,
    quoted,
    shorten,
)
from escoba.inputs import Unreadable, describe, read_file, strict_json

FORMAT = 2  # the newest case format this escoba understands
# What format 2 added (a case that uses none of it may stay format 1): probes among the moves,
# the `rejected` and `state` events they cause, and pins that say where their event is (`at`).
KINDS = ("game", "probe", "perft")
MAX_FILE_BYTES = 2_000_000  # one case is a few dozen kilobytes; anything near this is not a case


@dataclass(frozen=True)
class Probe:
    """A move that must be refused, and the reason class it must be refused for."""

    move: str | Mapping[str, Any]  # notation, or a wire object (possibly malformed on purpose)
    reason: str


@dataclass(frozen=True)
class HandSpec:
    """One hand of a case: its deck orders (more than one if the table is redealt) and its line:
    the moves in notation, with probes among them (format 2) where an illegal move is tried."""

    decks: tuple[tuple[str, ...], ...]  # ASCII codes, top of the stock first
    line: tuple[str | Probe, ...]  # as written in `moves`

    @property
    def moves(self) -> tuple[str, ...]:
        """The moves played, in notation (the probes left out)."""
        return tuple(entry for entry in self.line if isinstance(entry, str))


@dataclass(frozen=True)
class Perft:
    depth: int
    count: int


@dataclass(frozen=True)
class Case:
    """A loaded, checked case. Events are plain JSON dicts: read them, do not change them."""

    id: str
    title: str
    kind: str  # game | probe | perft
    ruleset: str
    players: int
    dealer: int
    target: int | None  # None: a single hand
    clause: str
    audit: str  # hand | text | generated
    hands: tuple[HandSpec, ...]
    expect: tuple[dict, ...]
    pins: tuple[dict, ...] = ()
    from_text: tuple[int, ...] = ()
    notes: tuple[str, ...] = ()
    source: Mapping[str, str] | None = None
    probe: Probe | None = None
    perft: Perft | None = None
    generator: Mapping[str, Any] | None = None
    legal: str = "moves"  # how legal events record the moves: every move, or their count
    parsed: dict = field(default_factory=dict, compare=False, repr=False)  # hand → its moves, parsed once
    requires: tuple[str, ...] | None = None  # features needed (computed by the generator)
    format: int = FORMAT
    path: Path | None = field(default=None, compare=False)

    # ---------------------------------------------------------------- the engine's view
    @cached_property
    def rules(self):  # -> Rules
        return loaded_ruleset(self.ruleset_source())[1]

    @cached_property
    def document(self) -> dict:
        """The resolved ruleset document: what a runner sends an engine in `start`."""
        return loaded_ruleset(self.ruleset_source())[0]

    def ruleset_source(self) -> str:
        """What to load for `ruleset`: a bundled id, or the file a relative path names (see
        `ruleset_file`)."""
        return str(ruleset_file(self.ruleset, self.path)) if is_ruleset_path(self.ruleset) else self.ruleset

    def deck_orders(self, hand: int = 0) -> list[list[int]]:
        deck = self.rules.deck
        codes = {code: i for i, code in enumerate(deck.code)}
        return [[codes[c] for c in order] for order in self.hands[hand].decks]

    def moves(self, hand: int = 0) -> list:  # -> list[Move]
        if hand not in self.parsed:
            from escoba.notation import parse_move

            self.parsed[hand] = [parse_move(text, self.rules.deck) for text in self.hands[hand].moves]
        return list(self.parsed[hand])

    def wire_moves(self, hand: int = 0) -> list[dict]:
        """The moves as the protocol sends them: `{"card": "7d", "take": ["3c", "5h"]}`."""
        from escoba.notation import move_to_wire

        return [move_to_wire(m, self.rules.deck) for m in self.moves(hand)]

    def probe_wire(self, probe: Probe | None = None) -> Any:
        """A probe's move (the case's own `probe` by default) as the protocol sends it; a
        malformed probe is sent as written."""
        probe = probe if probe is not None else self.probe
        if probe is None:
            return None
        if isinstance(probe.move, str):
            from escoba.notation import move_to_wire, parse_move

            return move_to_wire(parse_move(probe.move, self.rules.deck), self.rules.deck)
        return dict(probe.move)

    def wire_line(self, hand: int = 0) -> list[tuple[str, Any]]:
        """Hand `hand`'s line as the protocol sends it: `("move", wire)` for a move played,
        `("probe", wire)` for a move that must be refused."""
        moves = iter(self.wire_moves(hand))
        return [("move", next(moves)) if isinstance(e, str) else ("probe", self.probe_wire(e)) for e in self.hands[hand].line]

    def required_features(self) -> frozenset[str]:
        """The features an engine needs for this case: as stored, or computed from `expect`."""
        if self.requires is not None:
            return frozenset(self.requires)
        from escoba.protocol.features import required_features

        return required_features(self.document, self.players, self.target, self.expect, self.probe.reason if self.probe else None)

    def probes(self) -> list[tuple[str, Probe]]:
        """Every probe of the case with its JSON path: those among the moves, then `probe`."""
        found = [
            (f"$.hands[{h}].moves[{i}]", entry)
            for h, spec in enumerate(self.hands)
            for i, entry in enumerate(spec.line)
            if isinstance(entry, Probe)
        ]
        return found + ([("$.probe", self.probe)] if self.probe is not None else [])

    @property
    def shown(self) -> str:
        return _shown(self.path) if self.path is not None else f"<case {self.id}>"


# --------------------------------------------------------------------------- rulesets named by path
_LOADED: dict[tuple[str, str], tuple[list[tuple[str, int, int]], Any]] = {}


def loaded_ruleset(source: str) -> tuple[dict, Any]:
    """The resolved document (frozen: every case of the ruleset shares it) and the compiled
    rules of a ruleset id or file, resolved once per process while no file of its `extends`
    chain changes: a suite names a few rulesets from a hundred cases, and resolving one
    (schema, semantic checks) is the loader's largest cost."""
    from escoba.rules import load_resolved
    from escoba.rules.compile import rules_from_document

    key = (os.getcwd(), source)  # a relative path means another file in another folder
    hit = _LOADED.get(key)
    if hit is None or _stamps([path for path, _, _ in hit[0]]) != hit[0]:
        resolved = load_resolved(source)
        if len(_LOADED) > 128:
            _LOADED.clear()
        hit = _LOADED[key] = (_stamps([str(d.path) for d in resolved.files]), rules_from_document(resolved.doc))
    return cast(dict, hit[1].doc), hit[1]  # Rules.doc is a FrozenDict: a dict no one can change


def _stamps(paths: list[str]) -> list[tuple[str, int, int]]:
    """Each file with its modification time and size (-1 for one that is gone)."""
    out = []
    for path in paths:
        try:
            st = os.stat(path)
            out.append((path, st.st_mtime_ns, st.st_size))
        except OSError:
            out.append((path, -1, -1))
    return out


_MOVES: dict[tuple[Any, str], Any] = {}


def _parse_move(text: str, deck: Any) -> Any:
    """`parse_move`, remembered per deck (equal decks of different rulesets share it): the same
    few hundred moves recur across a suite's cases, and the parser is the loader's largest cost."""
    from escoba.notation import parse_move

    key = (deck, text)
    hit = _MOVES.get(key)
    if hit is None:
        if len(_MOVES) > 20000:
            _MOVES.clear()
        hit = _MOVES[key] = parse_move(text, deck)
    return hit


RULESET_SUFFIXES = (".yaml", ".yml", ".json")


def is_ruleset_path(ruleset: str) -> bool:
    """A case's `ruleset` names a file (`my-rules.yaml`), not a bundled id."""
    return ruleset.endswith(RULESET_SUFFIXES)


def ruleset_file(ruleset: str, case_path: Path | None) -> Path:
    """The ruleset file a case names by a path relative to the case file. Cases may come from
    anyone, so the file must be inside the case's own folder (or below it): no absolute path,
    no `..`, no symbolic link leading out. A case not read from a file was built in memory by
    escoba itself (escoba identify's hypotheses, in its scratch folder): its path is taken as
    written, relative to the working folder."""
    if case_path is None:
        if not Path(ruleset).is_file():
            raise _error(Path("<case>"), "$.ruleset", f"no ruleset file {ruleset}")
        return Path(ruleset)
    base = case_path.parent
    where = case_path
    relative = Path(ruleset)
    if relative.is_absolute() or ".." in relative.parts or "\\" in ruleset:
        raise _error(where, "$.ruleset", f"{ruleset!r}: a ruleset file is named by a path inside the case's folder (no absolute path, no '..')")
    target = base / relative
    try:
        inside = target.resolve().is_relative_to(base.resolve())
    except (OSError, RuntimeError):
        inside = False
    if not inside:
        raise _error(where, "$.ruleset", f"{ruleset!r} leads out of the case's folder")
    if not target.is_file():
        raise _error(where, "$.ruleset", f"no ruleset file {_shown(target)}")
    return target


# --------------------------------------------------------------------------- loading


def cases_dir() -> Path:
    return conformance_dir() / "cases"


def load_cases(root: str | Path | None = None, pattern: str | None = None, *, replay: bool = True) -> list[Case]:
    """Every case under `root` (default: the bundled `conformance/cases`), sorted by path.

    `pattern` is a shell pattern matched against the case id (`opening.*`) or the path relative
    to `root` (`rules/*`, `generated/sv.*`).
    """
    base = Path(root) if root is not None else cases_dir()
    found = []
    for path in iter_case_files(base):
        if pattern is not None:
            relative = path.relative_to(base).as_posix() if base.is_dir() else path.name
            if not (fnmatch.fnmatchcase(path.stem, pattern) or fnmatch.fnmatchcase(relative, pattern)):
                continue
        found.append(load_case(path, replay=replay))
    return found


def iter_case_files(root: Path) -> Iterator[Path]:
    if root.is_file() or (root.exists() and not root.is_dir()):
        yield root  # a FIFO or a device too: load_case says why it is no case
        return
    if not root.is_dir():
        raise TranscriptError(f"{_shown(root)}: no such folder of cases")
    found = (p for p in root.rglob("*.json") if not is_ruleset_name(p.name))
    yield from sorted(found, key=lambda p: p.relative_to(root).as_posix())


def is_ruleset_name(name: str) -> bool:
    """`ruleset.json` and `*.ruleset.json` beside cases are rulesets the cases name, not cases."""
    return name == "ruleset.json" or name.endswith(".ruleset.json")


def load_case(path: str | Path, *, replay: bool = True, schema: bool = True) -> Case:
    """Load one case file and check it; `TranscriptError` (file, JSON path, message) if broken.

    `replay=False` skips the checks that run the reference engine (legal moves, the probe);
    `schema=False` skips the JSON Schema, for the bundled cases only (tests/test_transcripts.py
    checks every one of them against it; a conformance run need not again).
    """
    path = Path(path)
    try:
        raw = read_file(path, MAX_FILE_BYTES)  # a FIFO or a device in a case folder is refused, not waited on
    except Unreadable as problem:
        if problem.kind == "large":
            raise _error(path, "$", f"more than a case may hold ({MAX_FILE_BYTES} bytes)") from None
        if problem.kind == "os":
            raise TranscriptError(f"{_shown(path)}: cannot read: {problem.detail}") from None
        raise _error(path, "$", describe(problem, MAX_FILE_BYTES, "a case")) from None
    try:
        data = strict_json(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise _error(path, "$", f"not UTF-8 (byte {e.start})") from None
    except json.JSONDecodeError as e:
        raise TranscriptError(f"{_shown(path)}:{e.lineno}:{e.colno}: $: not JSON: {e.msg}") from None
    except ValueError as e:  # NaN, Infinity, or an integer of more digits than Python converts
        raise _error(path, "$", f"not JSON: {shorten(str(e), 120)}") from None
    except RecursionError:  # json nests by recursion; a case is a few levels deep
        raise _error(path, "$", "nested too deeply to be a case") from None
    return case_from_data(data, path, replay=replay, schema=schema)


def case_from_data(data: Any, path: Path | None = None, *, replay: bool = True, schema: bool = True) -> Case:
    """Check already-parsed case data (the generator uses this before writing a file)."""
    where = path if path is not None else Path("<case>")
    _check_format(data, where)
    if schema:
        _check_schema(data, where)
    if path is not None and data["id"] != path.stem:
        raise _error(where, "$.id", f"the id {data['id']!r} is not the file name {path.stem!r}")
    case = _build(data, path)
    _Checker(case, where, replay).run()
    return case


def _check_format(data: Any, where: Path) -> None:
    if not isinstance(data, dict):
        raise _error(where, "$", "a case is a JSON object")
    version = data.get("format")
    if isinstance(version, int) and not isinstance(version, bool) and version > FORMAT:
        raise _error(where, "$.format", f"format {version} is newer than this escoba understands ({FORMAT})")
    # The schema says these too, but jsonschema reports a `false` subschema without its path.
    kind = data.get("kind")
    for key in ("probe", "perft"):
        if key in data and kind in KINDS and kind != key:
            raise _error(where, f"$.{key}", f"only a {key} case has a {key}, not a {kind} case")
    if "generator" in data and data.get("audit") != "generated":
        raise _error(where, "$.generator", "only a generated case has a generator")
    if version == 1:
        newer = _format_2_feature(data)
        if newer is not None:
            raise _error(where, newer[0], f"{newer[1]} needs format 2 (the case says format 1)")


def lowest_format(data: Mapping[str, Any]) -> int:
    """The oldest format that holds a case: what the generator writes for the cases it makes."""
    return 2 if _format_2_feature(data) is not None else 1


def _format_2_feature(data: Mapping[str, Any]) -> tuple[str, str] | None:
    """The first thing in a case that format 1 does not have: (JSON path, what it is)."""
    hands = data.get("hands")
    for h, hand in enumerate(hands if isinstance(hands, list) else ()):
        moves = hand.get("moves") if isinstance(hand, dict) else None
        for i, move in enumerate(moves if isinstance(moves, list) else ()):
            if isinstance(move, dict):
                return f"$.hands[{h}].moves[{i}]", "a probe among the moves"
    pins = data.get("pins")
    for i, pin in enumerate(pins if isinstance(pins, list) else ()):
        if isinstance(pin, dict) and "at" in pin:
            return f"$.pins[{i}].at", "a pin that says where its event is"
    return None


@cache
def schema() -> dict:
    return json.loads((schemas_dir() / "transcript.schema.json").read_text(encoding="utf-8"))


@cache
def _validator(definition: str | None = None):
    """The whole schema, or one of its `$defs` (an event type) with the rest for references."""
    from jsonschema import Draft202012Validator, validators

    # JSON Schema counts 1.0 as an integer; a seat, a dealer or a count written 1.0 is a
    # broken case here, not a float that later indexes a list.
    strict = validators.extend(
        Draft202012Validator,
        type_checker=Draft202012Validator.TYPE_CHECKER.redefine(
            "integer", lambda checker, value: isinstance(value, int) and not isinstance(value, bool)
        ),
    )
    whole = schema()
    if definition is None:
        return strict(whole)
    # References inlined: resolving `#/$defs/code` for every card is most of the cost otherwise.
    return strict(_inline({"$ref": f"#/$defs/{definition}"}, whole["$defs"]))


def _inline(node: Any, defs: Mapping[str, Any]) -> Any:
    """`node` with each local `$ref` replaced by what it names (the schema has no cycles)."""
    if isinstance(node, list):
        return [_inline(n, defs) for n in node]
    if not isinstance(node, dict):
        return node
    rest = {k: _inline(v, defs) for k, v in node.items() if k != "$ref"}
    if "$ref" not in node:
        return rest
    target = _inline(defs[node["$ref"].removeprefix("#/$defs/")], defs)
    return {**rest, "allOf": [*rest.get("allOf", []), target]} if rest else target


def _check_schema(data: Any, where: Path) -> None:
    # Events are most of a case and the schema picks an event's shape with one if/then per
    # event type, which jsonschema evaluates one by one; dispatching on "event" here gives the
    # same verdict (the schema says the same thing) at a fraction of the cost.
    expect = data.get("expect")
    events_here = isinstance(expect, list) and all(isinstance(e, dict) and e.get("event") in _EVENTS for e in expect)
    shallow = {**data, "expect": []} if events_here else data
    errors: list[tuple[Any, tuple[Any, ...]]] = [(e, ()) for e in _validator().iter_errors(shallow)]
    if events_here and not errors:
        for i, event in enumerate(expect):
            errors += [(e, ("expect", i)) for e in _validator(f"{event['event']}Event").iter_errors(event)]
            if errors:
                break
    if not errors:
        return
    from jsonschema.exceptions import best_match

    # best_match prefers the error that says what is wrong over "not valid under any of". A
    # field of the wrong type also leaves every field "unevaluated"; the type is the news.
    found = [e for e, _ in errors]
    error = best_match([e for e in found if e.validator != "unevaluatedProperties"] or found)
    # best_match may pick an error inside another's context: its prefix is its top error's.
    top = error
    while top.parent is not None:
        top = top.parent
    prefix = next((p for e, p in errors if e is top), ())
    raise _error(where, _json_path((*prefix, *error.absolute_path)), _schema_message(error))


_EVENTS = (
    "hand_start", "table", "deal", "opening", "declaration", "legal", "play", "escoba", "leftovers", "score",
    "hand_end", "totals", "tie", "match_end", "rejected", "state",
)  # fmt: skip


def _schema_message(error) -> str:
    if error.validator == "unevaluatedProperties" or error.validator == "additionalProperties":
        return error.message.replace("Unevaluated properties are not allowed", "unknown field(s)").replace(
            "Additional properties are not allowed", "unknown field(s)"
        )
    if error.validator == "required":
        return error.message.replace("is a required property", "is required")
    return error.message


def _build(data: dict, path: Path | None) -> Case:
    probe = data.get("probe")
    perft = data.get("perft")
    return Case(
        id=data["id"],
        title=data["title"],
        kind=data["kind"],
        ruleset=data["ruleset"],
        players=data["players"],
        dealer=data["dealer"],
        target=data["target"],
        clause=data["clause"],
        audit=data["audit"],
        hands=tuple(HandSpec(tuple(tuple(d) for d in h["decks"]), tuple(map(_entry, h["moves"]))) for h in data["hands"]),
        expect=tuple(data["expect"]),
        pins=tuple(data["pins"]),
        from_text=tuple(data.get("from_text", ())),
        notes=tuple(data.get("notes", ())),
        source=data.get("source"),
        probe=Probe(probe["move"], probe["reason"]) if probe else None,
        perft=Perft(perft["depth"], perft["count"]) if perft else None,
        generator=data.get("generator"),
        legal=data.get("legal", "moves"),
        requires=tuple(data["requires"]) if "requires" in data else None,
        format=data["format"],
        path=path,
    )


def _entry(move: str | Mapping[str, Any]) -> str | Probe:
    """A `moves` entry: a move in notation, or a probe `{"probe": MOVE, "reason": R}`."""
    return move if isinstance(move, str) else Probe(move["probe"], move["reason"])


# --------------------------------------------------------------------------- consistency


# The fields of each event that hold card codes (schemas/transcript.schema.json).
_CARD_FIELDS = {
    "table": ("cards",), "deal": ("hands",), "opening": ("cards",), "declaration": ("cards",), "leftovers": ("cards",),
    "play": ("card", "take"), "legal": ("moves",), "state": ("hands", "table", "piles"),  # not `rejected`: a probe may send `Zz`
}  # fmt: skip


class _Checker:
    """A case's consistency with itself and its ruleset (not with the engine's current output)."""

    def __init__(self, case: Case, where: Path, replay: bool):
        self.case, self.where, self.replay = case, where, replay

    def fail(self, path: str, message: str, excerpt: str | None = None, caret: int | None = None) -> TranscriptError:
        return _error(self.where, path, message, excerpt, caret)

    def run(self) -> None:
        rules, moves = self.static()
        if self.replay:
            self._replay(rules, moves)
        self._order()
        self._pins()
        for i, index in enumerate(self.case.from_text):
            if index >= len(self.case.expect):
                raise self.fail(f"$.from_text[{i}]", f"no event {index}: expect has {len(self.case.expect)}")

    def static(self) -> tuple[Any, list]:
        """The checks that need the ruleset but not the engine: the table, the decks, the moves."""
        case = self.case
        rules = self._rules()
        if case.players not in rules.player_counts:
            counts = ", ".join(map(str, rules.player_counts))
            raise self.fail("$.players", f"{case.ruleset} is played by {counts} players, not {case.players}")
        if case.dealer >= case.players:
            raise self.fail("$.dealer", f"the dealer must be a seat from 0 to {case.players - 1}")
        if case.kind != "game" and (case.target is not None or len(case.hands) != 1):
            raise self.fail("$.hands", f"a {case.kind} case is one hand with target null")
        if case.target is None and len(case.hands) != 1:
            raise self.fail("$.hands", "a single-hand case (target null) has exactly one hand")
        for h, spec in enumerate(case.hands):
            for d, order in enumerate(spec.decks):
                self._deck(rules, order, f"$.hands[{h}].decks[{d}]")
        moves = [self._moves(rules, h, spec) for h, spec in enumerate(case.hands)]
        case.parsed.update(enumerate(moves))  # the runner sends them next: parse once
        for path, probe in case.probes():
            self._probe_parses(rules, probe, path if path == "$.probe" else path + ".probe")
        self._expected_cards(rules)
        return rules, moves

    def _expected_cards(self, rules: Any) -> None:
        """Every card an expected event names is a card of the deck: an engine cannot be
        asked to produce `Zz`."""
        known = set(rules.deck.code)

        def codes(value: Any, path: str) -> Iterator[tuple[str, Any]]:
            if isinstance(value, list):
                for i, item in enumerate(value):
                    yield from codes(item, f"{path}[{i}]")
            elif isinstance(value, dict):
                for key in ("card", "take"):
                    if key in value:
                        yield from codes(value[key], f"{path}.{key}")
            else:
                yield path, value

        def leaves(value: Any, out: list) -> list:
            if isinstance(value, list):
                for item in value:
                    leaves(item, out)
            elif isinstance(value, dict):
                for key in ("card", "take"):
                    if key in value:
                        leaves(value[key], out)
            else:
                out.append(value)
            return out

        for i, event in enumerate(self.case.expect):
            for key in _CARD_FIELDS.get(str(event.get("event")), ()):
                if key in event and not isinstance(event[key], int):  # `legal` may record a count of moves
                    if all(code in known for code in leaves(event[key], [])):
                        continue  # the usual case, found without writing a path for every card
                    for path, code in codes(event[key], f"$.expect[{i}].{key}"):
                        if code not in known:
                            raise self.fail(path, f"unknown card code {quoted(code)} (not in the deck of {rules.id})")

    def _rules(self):  # -> Rules
        try:
            return loaded_ruleset(self.case.ruleset_source())[1]
        except TranscriptError as e:
            raise self.fail("$.ruleset", getattr(e, "message", str(e))) from None
        except UnknownRuleset as e:
            raise self.fail("$.ruleset", str(e)) from None
        except EscobaError as e:
            raise self.fail("$.ruleset", f"ruleset {self.case.ruleset} does not load: {str(e).splitlines()[0]}") from None

    def _deck(self, rules, order: Sequence[str], path: str) -> None:
        deck = rules.deck
        known = set(deck.code)
        for i, code in enumerate(order):
            if code not in known:
                raise self.fail(f"{path}[{i}]", f"unknown card code {code!r} (not in the deck of {rules.id})")
        counts: dict[str, int] = {}
        for code in order:
            counts[code] = counts.get(code, 0) + 1
        twice = [c for c in deck.code if counts.get(c, 0) > 1]
        missing = [c for c in deck.code if c not in counts]
        if twice or missing:
            parts = (["twice: " + " ".join(twice)] if twice else []) + (["missing: " + " ".join(missing)] if missing else [])
            raise self.fail(path, f"not the {len(deck)}-card deck of {rules.id} ({'; '.join(parts)})")

    def _moves(self, rules, h: int, spec: HandSpec) -> list:
        parsed = []
        for i, text in enumerate(spec.line):
            if not isinstance(text, str):
                continue  # a probe: checked with the others
            try:
                parsed.append(_parse_move(text, rules.deck))
            except NotationError as e:
                raise self.fail(f"$.hands[{h}].moves[{i}]", e.message, e.text or None, e.column) from None
        return parsed

    def _probe_parses(self, rules, probe: Probe, path: str) -> None:
        from escoba.notation import parse_move

        # `$.probe.move`, or `$.hands[0].moves[3].probe` for a probe among the moves
        where = path + ".move" if path == "$.probe" else path
        if isinstance(probe.move, str):
            try:
                parse_move(probe.move, rules.deck)
            except NotationError as e:
                raise self.fail(where, e.message, e.text or None, e.column) from None
        elif probe.reason != "malformed":
            raise self.fail(where, "only a malformed probe is written as a wire object")

    def _replay(self, rules, moves: list[list]) -> None:
        from escoba.transcript.record import Replay, ReplayError

        try:
            Replay(self.case, rules, moves).run()
        except ReplayError as e:
            raise self.fail(e.path, e.message) from None

    def _order(self) -> None:
        """Events in an order an engine could produce: `legal` right before a play or a probe,
        an escoba right after the play that made it, scores after the last play, totals after
        a hand, `state` right after a refusal."""
        case = self.case
        state = "start"
        for i, event in enumerate(case.expect):
            name = _order_name(event)
            if name not in _FOLLOWS.get(state, ()):
                after = "at the start" if state == "start" else f"after '{state}'"
                raise self.fail(f"$.expect[{i}]", f"'{name}' cannot come {after}")
            if name == "play" and state == "legal" and event["seat"] != case.expect[i - 1]["seat"]:
                raise self.fail(f"$.expect[{i}]", f"seat {event['seat']} plays after the legal moves of seat {case.expect[i - 1]['seat']}")
            state = name
        over = "legal (hand over)"  # the line ends with a probe of a finished hand, and its legal
        if case.kind == "game":
            ends: tuple[str, ...] = ("hand_end", over) if case.target is None else ("match_end", over)
        else:  # a probe or perft stops at a decision; a probe of a finished hand at its end
            ends = ("legal", "hand_end", over) if case.kind == "probe" else ("legal",)
        if state not in ends:
            raise self.fail("$.expect", f"a {case.kind} case's events end with {' or '.join(repr(e) for e in ends)}, not {state!r}")

    def _pins(self) -> None:
        for i, pin in enumerate(self.case.pins):
            if not pin_found(pin, self.case.expect):
                raise self.fail(f"$.pins[{i}]", f"matches no expected event: {json.dumps(pin, ensure_ascii=False)}")


def _order_name(event: Mapping[str, Any]) -> str:
    # A legal event once the hand is over (`seat: null`) comes where a play cannot follow.
    name = str(event["event"])
    return "legal (hand over)" if name == "legal" and event.get("seat") is None else name


# After each event, the events that may follow it ("start": the first event).
_FOLLOWS: dict[str, tuple[str, ...]] = {
    "start": ("hand_start",),
    "hand_start": ("table", "deal"),
    "table": ("deal", "opening", "declaration", "legal"),
    "deal": ("table", "opening", "declaration", "legal"),
    "opening": ("hand_start", "declaration", "legal"),
    "declaration": ("declaration", "legal"),
    "legal": ("play", "rejected"),
    "legal (hand over)": ("rejected", "hand_start"),
    "rejected": ("state",),
    "state": ("legal", "legal (hand over)"),
    "play": ("escoba", "legal", "deal", "leftovers", "score"),
    "escoba": ("legal", "deal", "leftovers", "score"),
    "leftovers": ("score",),
    "score": ("score", "hand_end"),
    "hand_end": ("totals", "legal (hand over)"),
    "totals": ("hand_start", "tie", "match_end", "legal (hand over)"),
    "tie": ("hand_start", "legal (hand over)"),
    "match_end": ("legal (hand over)",),
}


def pin_matches(pin: Mapping[str, Any], event: Mapping[str, Any]) -> bool:
    """A pin matches an event that has every field of the pin with the same value (its `at`,
    where the event is, aside: see `pin_found`)."""
    return all(key in event and event[key] == value for key, value in pin.items() if key != "at")


@dataclass(frozen=True)
class Place:
    """Where an expected event stands: its index, the hand (from 0, as in `$.hands[h]`), the
    entry of that hand's `moves` it follows (from 0; None before the first), and the deal
    round of that hand it belongs to (from 0: the first deal; None before it)."""

    index: int
    hand: int
    move: int | None
    deal: int | None

    def is_at(self, at: Mapping[str, int]) -> bool:
        return all(getattr(self, key) == value for key, value in at.items())


def places(expect: Sequence[Mapping[str, Any]]) -> list[Place]:
    """The place of every event of an expected stream, read off the stream itself: each entry
    of a hand's `moves`, a move or a probe, starts with the `legal` event the runner asks for
    before it, and a hand starts with its `hand_start` (a redeal deals the same hand again)."""
    found: list[Place] = []
    hand, move, deal = -1, -1, -1
    previous: Mapping[str, Any] = {}
    for i, event in enumerate(expect):
        kind = event.get("event")
        if kind == "hand_start":
            redeal = previous.get("event") == "opening" and previous.get("action") == "redeal"
            hand, move, deal = (hand, move, -1) if redeal else (hand + 1, -1, -1)
        elif kind == "deal":
            deal += 1
        elif kind == "legal":
            move += 1
        found.append(Place(i, max(hand, 0), move if move >= 0 else None, deal if deal >= 0 else None))
        previous = event
    return found


def pin_found(pin: Mapping[str, Any], expect: Sequence[Mapping[str, Any]]) -> bool:
    """The pin matches an event of `expect`, at the place its `at` names if it names one:
    `{"index": 57}`, or any of `{"hand": 1, "move": 35, "deal": 5}` (docs/transcripts.md)."""
    at = pin.get("at")
    if at is None:
        return any(pin_matches(pin, event) for event in expect)
    return any(place.is_at(at) and pin_matches(pin, expect[place.index]) for place in places(expect))


# --------------------------------------------------------------------------- helpers


def _error(where: Path, path: str, message: str, excerpt: str | None = None, caret: int | None = None) -> TranscriptError:
    error = TranscriptError(str(Problem(Location(_shown(where), path=path), message, excerpt, caret)))
    error.file, error.path, error.message = _shown(where), path, message  # type: ignore[attr-defined]
    return error


def _shown(path: Path) -> str:
    """A path as messages show it: relative to the working folder when inside it."""
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return str(path)
    return str(path) if relative.startswith("..") else relative


def _json_path(parts: Sequence[Any]) -> str:
    text = "$"
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text
