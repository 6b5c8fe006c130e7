"""Writing case files: key order, layout, and filling `expect` from a case's hands and moves.

The layout is for people and for diffs: one event per line, one deck order per line, so a
changed golden shows as the few events that changed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from escoba.protocol.features import required_features
from escoba.transcript.case import (
    _build,
    _check_format,
    _check_schema,
    _Checker,
    _error,
    _shown,
    case_from_data,
    lowest_format,
    pin_found,
)
from escoba.transcript.record import Replay, ReplayError, perft

KEY_ORDER = (
    "format", "id", "title", "notes", "kind", "ruleset", "players", "dealer", "target", "clause",
    "source", "audit", "generator", "requires", "pins", "hands", "probe", "perft", "from_text", "expect",
)  # fmt: skip


def ordered(data: Mapping[str, Any]) -> dict:
    known = {k: data[k] for k in KEY_ORDER if k in data}
    return known | {k: v for k, v in data.items() if k not in known}


def _line(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def dump_case(data: Mapping[str, Any]) -> str:
    """The text of a case file."""
    data = ordered(data)
    out = ["{"]
    items = list(data.items())
    for n, (key, value) in enumerate(items):
        comma = "," if n + 1 < len(items) else ""
        if key in ("expect", "pins", "notes") and value:
            out.append(f'  "{key}": [')
            out += [f"    {_line(v)}{',' if i + 1 < len(value) else ''}" for i, v in enumerate(value)]
            out.append(f"  ]{comma}")
        elif key == "hands":
            out.append('  "hands": [')
            for h, hand in enumerate(value):
                out.append("    {")
                out.append('      "decks": [')
                decks = hand["decks"]
                out += [f"        {_line(d)}{',' if i + 1 < len(decks) else ''}" for i, d in enumerate(decks)]
                out.append("      ],")
                out.append(f'      "moves": {_line(hand["moves"])}')
                out.append(f"    }}{',' if h + 1 < len(value) else ''}")
            out.append(f"  ]{comma}")
        else:
            out.append(f'  "{key}": {_line(value)}{comma}')
    out.append("}")
    return "\n".join(out) + "\n"


class PinMismatch(Exception):
    """A hand-written pin no longer matches the events the engine produces."""


def fill(data: Mapping[str, Any], path: Path | None = None, *, check: bool = True, schema: bool = True) -> dict:
    """`data` with `expect` (and a perft count) recomputed by the reference engine.

    Everything else is kept as written. A pin that matches no recomputed event is an error:
    the pins are the audit, and the generator must not quietly move the goalposts.
    `check=False` leaves out the final load-time check of the whole case (its events against
    the schema, its moves replayed again): for cases built in memory by a search, which are
    run and thrown away; a case about to be written is always checked. `schema=False` also
    leaves out the schema check, for such cases whose ruleset is a file (escoba identify's
    hypotheses) where a case file names a bundled id.
    """
    data = ordered({**data, "format": data.get("format", lowest_format(data)), "expect": []})
    if "perft" in data:
        data["perft"] = {**data["perft"], "count": 1}
    # The case as written, less what is computed here (expect, the perft count, pins' matches).
    where = path if path is not None else Path("<case>")
    _check_format(data, where)
    if schema:
        _check_schema(data, where)
    case = _build(data, path)
    rules, moves = _Checker(case, where, replay=False).static()
    replay = Replay(case, rules, moves)
    try:
        events = replay.run()
    except ReplayError as e:
        raise _error(where, e.path, e.message) from None
    data["expect"] = events
    data["requires"] = sorted(required_features(case.document, case.players, case.target, events, case.probe.reason if case.probe else None))
    if case.perft is not None:
        assert replay.hand is not None
        data["perft"] = {"depth": case.perft.depth, "count": perft(replay.hand, case.perft.depth)}
    for i, pin in enumerate(data.get("pins", [])):
        if not pin_found(pin, events):
            raise PinMismatch(f"{_shown(where)}: $.pins[{i}]: matches no event the engine produces: {_line(pin)}")
    if check:
        case_from_data(data, path)  # the full load-time check, on what is about to be written
    return data


def played_case(
    case_id: str,
    ruleset: str,
    players: int,
    dealer: int,
    target: int | None,
    hands: list[dict[str, list]],
    *,
    title: str,
    notes: list[str],
) -> dict:
    """A game someone played (`escoba play --record`) as a case: its decks and moves, `expect`
    filled by the reference engine. `hands` are `{"decks": [[code…]…], "moves": [text…]}`."""
    data = {
        "id": case_id,
        "title": title,
        "notes": notes,
        "kind": "game",
        "ruleset": ruleset,
        "players": players,
        "dealer": dealer,
        "target": target,
        "clause": "game",
        "audit": "hand",
        "pins": [],
        "hands": hands,
    }
    return fill({"format": lowest_format(data), **data})
