"""Which bundled cases detect a mutant.

Each case of a ruleset the mutant applies to is replayed by the reference engine under that
ruleset so read (`escoba.transcript.record.Replay` with the mutant's compiled rules: the case's
deck orders and moves), and its events are compared with the case's `expect` as the conformance
runner compares an engine's (`escoba.conformance.compare.same_event`, measures included: the
reference declares them; a perft count is counted again). A case **detects** the mutant when
some event differs, or when the case cannot be played as written under it (a move the
misreading makes illegal, a probe refused for another reason or not at all, a hand or a match
that ends elsewhere): an engine that misread the point so would fail it. The replay stops at
the first difference.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from escoba.conformance.compare import first_divergence, same_event
from escoba.errors import EscobaError
from escoba.mutation.mutants import Mutant, digest


class _Differs(Exception):
    """Raised inside a replay at its first event that differs from the case's."""


def detects(case: Any, rules: Any) -> bool:
    """Does `case`, replayed under `rules`, say anything else than its `expect`?"""
    from escoba.transcript.record import Replay, perft

    expect = case.expect
    checked = 0

    def on_decision(index: int, hand: Any) -> None:
        nonlocal checked
        events = replay.events
        if index > len(expect):
            raise _Differs
        for i in range(checked, index):
            if not same_event(expect[i], events[i]):
                raise _Differs
        checked = index

    replay = Replay(case, rules, [case.moves(h) for h in range(len(case.hands))], on_decision)
    try:
        events = replay.run()
    except _Differs:
        return True
    except (EscobaError, ValueError, KeyError, IndexError):
        return True  # not playable as written under the misreading
    if first_divergence(expect, events) is not None:
        return True
    if case.kind == "perft":
        assert replay.hand is not None and case.perft is not None
        return perft(replay.hand, case.perft.depth) != case.perft.count
    return False


def detecting(mutant: Mutant) -> list[str]:
    """The ids of the cases that detect `mutant`, over every ruleset it applies to, sorted."""
    found: list[str] = []
    for applied in mutant.applied:
        if applied.doc is None:
            continue
        found += [case.id for case in applied.ruleset.cases if detects(case, applied.rules)]
    return sorted(found)


def case_digest(case: Any) -> str:
    """What a case's detection depends on: its table, its deal, its line and what it expects
    (not its title, notes, pins or `requires`)."""
    hands = [[list(map(list, h.decks)), [e if isinstance(e, str) else [e.move, e.reason] for e in h.line]] for h in case.hands]
    probe = [case.probe.move, case.probe.reason] if case.probe is not None else None
    perft = [case.perft.depth, case.perft.count] if case.perft is not None else None
    return digest([case.kind, case.players, case.dealer, case.target, case.legal, hands, probe, perft, list(case.expect)])


def fingerprint(mutant: Mutant, case_digests: Mapping[str, str], version: Sequence[Any]) -> str:
    """What the audit's verdict on a mutant depends on: each ruleset it applies to (its rules,
    the value written, its cases) and the audit's own settings (`version`)."""
    parts = [
        [a.ruleset.name, digest(a.ruleset.doc), digest(a.value), [case_digests[c.id] for c in a.ruleset.cases]]
        for a in mutant.applied
    ]
    return digest([mutant.ident, list(version), parts])
