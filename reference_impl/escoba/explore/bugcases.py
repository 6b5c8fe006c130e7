"""`escoba conformance --shrink DIR`: the first case of each bug, shrunk, as a case file.

A conformance report names each bug with the first case that shows it (conformance/bugs.py).
That case may be long (a whole game) and, for an engine that declares its rules, it was run as
a *scenario* of those rules (conformance/scenario.py): moves replaced, the deck translated. So
each bug's first case is written down as it was played, a case of the declared rules (the
ruleset named by its id, or, for a file, its resolved document beside the cases as
`declared.ruleset.json`), then shrunk (explore/shrinking.py) to the smallest case found that
fails the same way, and written into DIR. The bug then says where it is and the command that
replays it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from escoba.conformance.bugs import Bug
from escoba.conformance.compare import chunks
from escoba.errors import EscobaError
from escoba.explore.harness import Harness, case_length, fill_case
from escoba.explore.lockstep import slug
from escoba.explore.shrinking import shrink
from escoba.protocol.client import Session

RULESET_FILE = "declared.ruleset.json"


def shrink_bugs(bugs: Sequence[Bug], connect: Callable[[], Session], folder: Path, rules: Any, replay: Callable[[str], str]) -> None:
    """Shrink and write the first case of each bug (one that did not fail by diverging, such as
    a crash, is written as it is); set `bug.shrunk`. `replay(case_id)` is the command that runs
    a case of `folder`."""
    from escoba.transcript.build import dump_case
    from escoba.transcript.case import case_from_data

    ruleset = _ruleset(rules, folder)
    harness = Harness(connect, folder=folder, rules=rules)
    try:
        for n, bug in enumerate(bugs, 1):
            first = bug.first
            if first is None or first.case is None:
                continue
            data = _as_played(first, rules, ruleset, f"bug.{n}.{slug(bug.point or bug.cls or 'engine')}", bug.title)
            if data is None:
                continue
            try:
                filled = fill_case(data, folder, check=True)
            except EscobaError:
                continue
            result = harness.run(filled)
            found = shrink(harness, filled, result) if result.outcome == "fail" else None
            case = found.data if found is not None else filled
            path = folder / f"{case['id']}.json"
            case_from_data(case, path)  # the whole load-time check before a file is written
            temporary = path.with_suffix(".json.tmp")
            temporary.write_text(dump_case(case), encoding="utf-8")
            temporary.replace(path)
            bug.shrunk = {"file": str(path), "events": case_length(case), "replay": replay(case["id"]),
                          "notes": list(case.get("notes") or ())}  # fmt: skip
    finally:
        harness.close()


def _ruleset(rules: Any, folder: Path) -> str | None:
    """How the written cases name the declared rules (None: each case keeps its own)."""
    if rules is None:
        return None
    if not rules.is_file:
        return str(rules.id)
    (folder / RULESET_FILE).write_text(json.dumps(dict(rules.doc), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return RULESET_FILE


def _as_played(result: Any, rules: Any, ruleset: str | None, case_id: str, title: str) -> dict | None:
    """The case of a result as the engine was sent it: the case itself, or its scenario under
    the declared rules (the moves and probes as played, the deck as dealt)."""
    from escoba.transcript.case import FORMAT

    case = result.case
    # Who chose the moves, as the case the bug was found in says (a case with no pins claims
    # no audit of its events): its bots' seed, or a person's hand.
    audit = {"audit": case.audit if case.audit != "text" else "hand"}
    if case.audit == "generated" and case.generator is not None:
        audit["generator"] = dict(case.generator)
    head = {"format": FORMAT, "id": case_id, "title": f"{title} (from {case.id})", "clause": "game", **audit, "pins": [],
            "notes": [f"The first case of a bug found by escoba conformance: {case.id}, as the engine was sent it, without its pins."]}  # fmt: skip
    if rules is None:
        if case.path is None:
            return None
        data = json.loads(Path(case.path).read_text(encoding="utf-8"))
        keep = {k: v for k, v in data.items() if k not in ("expect", "requires", "from_text", "generator", "id", "title", "pins", "notes", "audit", "clause")}
        return {**keep, **head}
    if case.audit == "generated" and case.generator is None and case.kind == "game":
        return None  # a generated game that says not how: no honest audit to give it
    from escoba.conformance.scenario import Skip, scenario_plan
    from escoba.notation import format_move, move_from_wire

    plan = scenario_plan(case, rules)
    if isinstance(plan, Skip):
        return None
    deck = rules.rules.deck
    rejected = iter(e for (a, b) in chunks(plan.expected) for e in plan.expected[a:b] if e.get("event") == "rejected")
    steps = plan.steps or []
    final = next((request for kind, request, what in steps if kind == "probe" and what == "the probe"), None)
    def probe(wire: Any) -> dict[str, Any]:  # a probe as a case writes it: notation, unless malformed
        reason = str(next(rejected)["rule"])
        return {"move": wire if reason == "malformed" else format_move(move_from_wire(wire, deck), deck), "reason": reason}

    hands = []
    for hand in plan.hands:
        moves: list[Any] = []
        for request in hand.line:
            if hasattr(request, "move"):  # a probe among the moves: the reason these rules give it
                entry = probe(request.move)
                moves.append({"probe": entry["move"], "reason": entry["reason"]})
            else:
                moves.append(format_move(move_from_wire({"card": request.card, "take": list(request.take)}, deck), deck))
        hands.append({"decks": [list(d) for d in hand.decks], "moves": moves})
    played: dict[str, Any] = {**head, "kind": case.kind, "ruleset": ruleset, "players": case.players, "dealer": case.dealer,
                            "target": case.target, "hands": hands}  # fmt: skip
    if final is not None:
        played["probe"] = probe(final.move)
    elif case.kind == "probe":
        played["kind"] = "perft"  # its probe is legal under these rules: the case stops at the decision
        played["perft"] = {"depth": 1, "count": 1}
    if plan.expected and plan.expected[-1].get("event") == "perft":
        played["perft"] = {"depth": int(plan.expected[-1]["depth"]), "count": 1}
    return played
