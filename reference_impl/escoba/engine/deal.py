"""The deal convention, written once: which cards of a deck order go to the table and to whom.

Given a deck order (top of the stock first), the first deal is the table then the first round
if `deal.table_first`, else the first round then the table. A round gives each seat a packet of
`hand_size` cards, starting with the player who leads and going in the direction of play (so
the dealer, when the dealer does not lead, gets a packet in turn like everyone else, not last).
Later rounds deal the same way from the rest of the stock. A last round too short for full
packets (allowed only with `short_stock: one_at_a_time`) goes out a card at a time from the
leader.

`Hand` deals with `first_deal_steps` and `deal_round` as play goes; `deal_plan` reads the whole
deal of an order at once; `order_for` and `arrange_deck` invert it. A fast path that deals
without a `Hand` must call these too (docs/architecture.md, "Deal order").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from escoba.errors import EscobaError
from escoba.game import seats
from escoba.rules.compile import Rules

TABLE, ROUND = "table", "round"


@dataclass(frozen=True)
class Deal:
    """What a deck order deals: the table as turned up, and each round's cards per seat."""

    table: tuple[int, ...]
    rounds: tuple[tuple[tuple[int, ...], ...], ...]


def leader(rules: Rules, players: int, dealer: int) -> int:
    """The seat that leads (and is dealt to first)."""
    return seats.leader(dealer, rules.leader_offset, players)


def dealing_order(rules: Rules, players: int, dealer: int) -> list[int]:
    """The seats in the order each round deals to them: the leader first, then in the
    direction of play."""
    return seats.turn_order(leader(rules, players, dealer), rules.direction, players)


def first_deal_steps(rules: Rules) -> tuple[str, str]:
    """The order of the first deal: `("table", "round")` or `("round", "table")`."""
    return (TABLE, ROUND) if rules.table_first else (ROUND, TABLE)


def deal_round(
    rules: Rules, order: Sequence[int], pos: int, seats: Sequence[int], players: int
) -> tuple[list[list[int]], int]:
    """One round dealt from `order` at `pos` to `seats` (from `dealing_order`): the hands by
    seat and the position after it. A short stock goes out a card at a time from the leader
    when the ruleset allows it; otherwise it is an error."""
    size = rules.hand_size
    hands: list[list[int]] = [[] for _ in range(players)]
    left = len(order) - pos
    if left >= size * players:
        for seat in seats:
            hands[seat] = list(order[pos : pos + size])
            pos += size
    elif rules.short_stock == "one_at_a_time":
        for i in range(left):
            hands[seats[i % players]].append(order[pos])
            pos += 1
    else:
        raise EscobaError(f"{left} cards left cannot be dealt in rounds of {size}")
    return hands, pos


def deal_plan(rules: Rules, players: int, dealer: int, order: Sequence[int]) -> Deal:
    """The whole deal of `order` under `rules`: the table and every round."""
    seats = dealing_order(rules, players, dealer)
    pos = 0
    table: tuple[int, ...] = ()
    rounds: list[tuple[tuple[int, ...], ...]] = []

    def one_round() -> None:
        nonlocal pos
        hands, pos = deal_round(rules, order, pos, seats, players)
        rounds.append(tuple(tuple(h) for h in hands))

    for step in first_deal_steps(rules):
        if step == TABLE:
            table, pos = tuple(order[pos : pos + rules.table_size]), pos + rules.table_size
        else:
            one_round()
    while pos < len(order):
        one_round()
    return Deal(table, tuple(rounds))


def order_for(rules: Rules, players: int, dealer: int, deal: Deal) -> list[int]:
    """A deck order that deals `deal` under `rules` (check it with `deal_plan`); rounds whose
    packets differ in size are laid out as a card-at-a-time deal would take them."""
    seats = dealing_order(rules, players, dealer)
    rounds: list[list[int]] = []
    for hands in deal.rounds:
        if len({len(hands[s]) for s in seats}) == 1:
            rounds.append([c for s in seats for c in hands[s]])
        else:
            queues = [list(hands[s]) for s in seats]
            cards: list[int] = []
            while any(queues):
                for q in queues:
                    if q:
                        cards.append(q.pop(0))
            rounds.append(cards)
    first = rounds[0] if rounds else []
    head: list[int] = []
    for step in first_deal_steps(rules):
        head += list(deal.table) if step == TABLE else first
    return head + [c for r in rounds[1:] for c in r]
