"""The reference walking a case's line (conformance/walk.py) is the case: under a case's own
rules it sends the requests the runner sends and expects the events the case file lists, reply
by reply, for every bundled case; under other rules it says what it changed."""

from __future__ import annotations

from functools import cache

from escoba.conformance.compare import chunks
from escoba.conformance.driver import line_steps, prepare
from escoba.conformance.runner import Entry, collect
from escoba.conformance.walk import Walk, deal, script_of, snapshot
from escoba.engine.hand import Hand
from escoba.transcript.case import loaded_ruleset


@cache
def bundled() -> tuple[Entry, ...]:
    return tuple(collect())


def test_every_bundled_case_is_its_own_walk():
    """For every bundled case the walk under its own rules gives the runner's requests, the
    case's expected events, and one step per reply of the case, with nothing changed."""
    for entry in bundled():
        case = entry.case
        plan = prepare(case)
        walk = Walk(script_of(case), case.rules, plan.doc)
        steps = list(walk.steps())
        assert [s.request for s in steps if s.request is not None] == line_steps(plan)[1], case.id
        assert [e for s in steps for e in s.expected] == plan.expected, case.id
        assert [len(s.expected) for s in steps] == [b - a for a, b in chunks(plan.expected)], case.id
        assert not walk.notes and not walk.substituted and walk.changed is None, case.id


def test_a_snapshot_keeps_the_tables_order():
    """The walk's snapshot holds the table in the order its cards came to it (the order of a
    hand's leftovers), where the canonical snapshot sorts it."""
    _, rules = loaded_ruleset("base")
    hand = Hand(rules, 2, 0, seed=3)
    hand.apply(next(m for m in hand.legal_moves() if not m.take))
    assert snapshot(hand)["table"] == [rules.deck.code[c] for c in hand.table]
    assert sorted(snapshot(hand)["table"], key=rules.deck.code.index) == hand.to_json()["table"]


def test_an_opening_these_rules_redeal_is_dealt_again_from_the_deck_cut():
    """A deck order whose table these rules redeal, with no other deck order given, is dealt
    again from the same order cut by the table's size; the deck orders offered say so."""
    _, rules = loaded_ruleset("de-redeal")
    code = {c: i for i, c in enumerate(rules.deck.code)}
    fifteen = [code[c] for c in ("7d", "5h", "2s", "1c")]  # a table of 15, turned up after two hands of 3
    rest = [c for c in rules.deck.cards if c not in fifteen]
    order = rest[:6] + fifteen + rest[6:]
    found = deal(rules, 2, 0, [order])
    assert found is not None
    hand, offered = found
    assert len(offered) >= 2 and offered[1] == tuple(order[4:] + order[:4])
    assert len(hand.deck_orders) == len(offered)
