"""The yardstick: a plain hand-written Python loop of the base rules, random play.

It is what a competent programmer writes in an afternoon for one ruleset (two players, 40
cards, the dealer's opening 15 as an escoba, card-level compulsory capture, escobas, most
cards, most coins, the velo, primera), with no generality at all. `escoba bench` reports the
interpreter's speed beside this loop's, on the same machine, in the same run; it lives in the
package so that an installed `escoba bench` has it (benchmarks/handwritten.py runs it alone).

It is deliberately left as written: making it faster or slower would move the goalpost.
"""

from __future__ import annotations

import random
import time
from itertools import combinations

VALUES = [v for _ in range(4) for v in (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)]
SUITS = [s for s in range(4) for _ in range(10)]
PRIMERA = [p for _ in range(4) for p in (16, 12, 13, 14, 15, 18, 21, 10, 10, 10)]
VELO = 6  # the seven of coins: suit 0, seventh rank


def captures(card, table):
    need = 15 - VALUES[card]
    found = []
    for size in range(1, len(table) + 1):
        for subset in combinations(table, size):
            if sum(VALUES[c] for c in subset) == need:
                found.append(subset)
    return found


def primera(pile):
    best = [0, 0, 0, 0]
    for c in pile:
        if PRIMERA[c] > best[SUITS[c]]:
            best[SUITS[c]] = PRIMERA[c]
    return sum(best) if all(best) else None


def play_hand(rng):
    deck = list(range(40))
    rng.shuffle(deck)
    hands = [deck[0:3], deck[3:6]]
    table = deck[6:10]
    pos = 10
    piles = [[], []]
    escobas = [0, 0]
    last = None
    if sum(VALUES[c] for c in table) == 15:
        piles[0].extend(table)
        escobas[0] += 1
        table = []
        last = 0
    seat = 1
    while True:
        hand = hands[seat]
        moves = []
        for card in hand:
            caps = captures(card, table)
            if caps:
                moves.extend((card, cap) for cap in caps)
            else:
                moves.append((card, ()))
        card, take = moves[rng.randrange(len(moves))]
        hand.remove(card)
        if take:
            for c in take:
                table.remove(c)
            piles[seat].append(card)
            piles[seat].extend(take)
            last = seat
            if not table:
                escobas[seat] += 1
        else:
            table.append(card)
        seat = 1 - seat
        if not hands[0] and not hands[1]:
            if pos >= 40:
                break
            hands = [deck[pos : pos + 3], deck[pos + 3 : pos + 6]]
            pos += 6
            seat = 1
    if table and last is not None:
        piles[last].extend(table)
    points = list(escobas)
    for measure in (len, lambda p: sum(1 for c in p if SUITS[c] == 0), primera):
        m = [measure(piles[0]), measure(piles[1])]
        if None not in m and m[0] != m[1]:
            points[0 if m[0] > m[1] else 1] += 1
        elif m[0] is not None and m[1] is None:
            points[0] += 1
        elif m[1] is not None and m[0] is None:
            points[1] += 1
    points[0 if VELO in piles[0] else 1] += 1
    return points


def hands_per_second(hands: int, seed: int = 1) -> float:
    rng = random.Random(seed)
    start = time.perf_counter()
    for _ in range(hands):
        play_hand(rng)
    return hands / (time.perf_counter() - start)


if __name__ == "__main__":  # python -m escoba.baseline N: `escoba bench` times it as a whole process
    import sys

    count = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    print(f"{count} hands: {hands_per_second(count):,.0f} hands/s")
