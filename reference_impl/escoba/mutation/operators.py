"""Readings of a ruleset that only the audit tries: the rest of the literals a measure or an
award writes.

The registry's readings (`escoba.rules.points.other_values`: a number one more or one less, a
comparison strict or not, `made_with` for `taking`, ties, "at least", the points, a values
table's neighbours swapped, every field of a capture kind, ...) are what `escoba identify` and
the conformance attribution try at every divergence they explain, each try a replay. The audit
tries these too, and these besides:

- a **suit** in a measure read as each other suit of the deck (`suit(cards, oros)` as
  `suit(cards, copas)`);
- a **rank** in a measure read as the rank before or after it in the deck's order (`sota` as
  `7` or `caballo`; for a number the registry's one-more-or-less already does it);
- a **filter on one card widened** to its rank or to its suit (`card(deck, 7, oros)` as
  `rank(deck, 7)` and as `suit(deck, oros)`);
- the **history's filters** read as their siblings: the hand's first play as its last play or
  as the first deal round (`first_play(x)` as `last_play(x)` and `in_round(x, 1)`), the last
  play as the first, the cards played as the cards taken and back, the sweeps as every capture
  and back;
- a **holder's card** read as a card beside it: the same rank in each other suit, the rank
  before or after it in its suit;
- a **threshold** one higher (`more than 20` as `more than 21`; one lower, "at least", is
  the registry's).

They are kept here rather than in the registry because nothing but the audit needs them:
identify reports a category whose measure it cannot explain as differing on that measure, and
a primera measure alone has twelve suit readings, each a replay at every divergence identify
or the attribution explains. A reading that turns out useful to identify moves to the point's
`values` in `escoba.rules.points`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

from escoba.rules.expr import Call, Chain, Compare, Const, ExprEnv, ExprError, IfElse, Node, Ref, Unary
from escoba.rules.points import Position, meanings_of, number

# Names and functions read as their siblings (each way where both are listed).
_VARIABLES = {"sweeps": ("captures",), "captures": ("sweeps",)}
_FILTERS = {"first_play": ("last_play",), "last_play": ("first_play",), "played": ("taken",), "taken": ("played",)}


def readings(doc: Mapping[str, Any], position: Position) -> list[Any]:
    """The audit's own other values of a position (none for most points: the registry's
    readings are all there is to try)."""
    key = position.rule.key
    if key == "scoring.*.measure":
        return measure_readings(position.value, doc)
    if key == "scoring.*.award":
        return award_readings(position.value, doc)
    return []


# ---------------------------------------------------------------------------------- measures
def measure_readings(text: Any, doc: Mapping[str, Any]) -> list[str]:
    """A measure with one literal read otherwise (see the module's docstring), each a valid
    measure in canonical form, none twice and none the measure itself."""
    from escoba.rules.expr import canonical_text, compile_expression, resolved_tree

    env = meanings_of(doc).env()
    try:
        tree = resolved_tree(str(text), env)
    except ExprError:
        return []
    source = canonical_text(tree)
    found: list[str] = []
    for changed in rewrites(tree, env):
        reading = canonical_text(changed)
        if reading == source or reading in found:
            continue
        try:
            compile_expression(reading, env)
        except ExprError:
            continue
        found.append(reading)
    return found


def rewrites(node: Node, env: ExprEnv) -> Iterator[Node]:
    """The tree with one node read otherwise, for every node that can be, outermost first."""
    yield from _local(node, env)
    for i, child in enumerate(node.children()):
        for changed in rewrites(child, env):
            yield _with_child(node, i, changed)


def _local(node: Node, env: ExprEnv) -> Iterator[Node]:
    if isinstance(node, Ref):
        if node.kind == "suit":
            yield from (replace(node, id=s) for s in env.suits if s != node.id)
        elif node.kind == "rank" and node.id in env.ranks:
            at = env.ranks.index(node.id)
            yield from (replace(node, id=env.ranks[j]) for j in (at - 1, at + 1) if 0 <= j < len(env.ranks))
        elif node.kind == "var":
            yield from (replace(node, id=v) for v in _VARIABLES.get(node.id, ()))
    elif isinstance(node, Call):
        if node.func == "card":
            cards, rank, suit = node.args
            yield replace(node, func="rank", args=(cards, rank))
            yield replace(node, func="suit", args=(cards, suit))
        yield from (replace(node, func=f) for f in _FILTERS.get(node.func, ()))
        if node.func == "first_play":
            yield replace(node, func="in_round", args=(node.args[0], Const(node.column, 1)))


def _with_child(node: Node, i: int, child: Node) -> Node:
    """`node` with its `i`-th child (in `children()` order) replaced."""
    if isinstance(node, Call):
        return replace(node, args=(*node.args[:i], child, *node.args[i + 1 :]))
    if isinstance(node, Chain):
        if i == 0:
            return replace(node, first=child)
        op = node.rest[i - 1][0]
        return replace(node, rest=(*node.rest[: i - 1], (op, child), *node.rest[i:]))
    if isinstance(node, Compare):
        return replace(node, left=child) if i == 0 else replace(node, right=child)
    if isinstance(node, Unary):
        return replace(node, operand=child)
    if isinstance(node, IfElse):
        return replace(node, then=child) if i == 0 else replace(node, cond=child) if i == 1 else replace(node, other=child)
    raise AssertionError(f"{type(node).__name__} has no children")  # pragma: no cover


# ---------------------------------------------------------------------------------- awards
def award_readings(award: Mapping[str, Any], doc: Mapping[str, Any]) -> list[dict]:
    """A holder's card read as a card beside it; a threshold one higher."""
    from escoba.errors import NotationError

    policy = award.get("policy")
    meanings = meanings_of(doc)
    if policy == "threshold":
        bound = meanings.bound(award.get("more_than"))
        return [{"policy": "threshold", "more_than": number(bound + 1)}] if isinstance(bound, (int, float)) else []
    if policy != "holder":
        return []
    deck = meanings.deck()
    try:
        card = deck.card(str(award.get("card")))
    except NotationError:
        return []
    if deck.is_joker(card):
        return []
    rank, suit = deck.rank[card], deck.suit[card]
    beside = [
        c for c in deck.cards
        if not deck.is_joker(c) and c != card and (deck.rank[c] == rank or (deck.suit[c] == suit and abs(deck.rank[c] - rank) == 1))
    ]  # fmt: skip
    return [{**award, "card": f"{deck.rank_ids[deck.rank[c]]} {deck.suit_ids[deck.suit[c]]}"} for c in beside]
