"""The fused simulation path: whole hands of random play in one loop, identical to `Hand`.

`Hand` is the readable specification of a hand; this module plays the very same hands, move
for move, when every seat is the random bot (`escoba.engine.bots.random_bot`), which is what
`escoba simulate`, `escoba diff` and the playouts of search bots spend their time on. It is
several times faster because it pays once for what `Hand` recomputes at every turn:

- **Captures by the table's values.** Which sets of table cards a played card can take
  depends only on the values (and joker marks) of the cards, never on their suits. The
  reference capture search (`CaptureFinder.captures`) is asked once per multiset of table
  values, for a card of each value; its answer is kept as positions in the table, which is
  kept sorted by value. Tables in random play hold few cards, so a few thousand multisets
  answer nearly every turn, and every ruleset with the same capture search shares them.
  From those sets the loop counts the legal moves as `Hand.legal_moves` builds them
  (compulsory capture per card, per hand, or optional), finds the one the random bot draws,
  and orders a card's captures by the deck order of the cards taken, as `Hand` does.
- **The same random draws, inlined.** The random bot plays `moves[rng.randrange(len(moves))]`
  and decks are shuffled by `random.shuffle`; both are re-expressed with `getrandbits`, which
  is exactly what CPython's `randrange` and `shuffle` do. At import the inlined forms are
  checked against the library's; if they ever differ, the library functions are called.
- **Piles as bitmasks**, scored by the compiled measures' bitmask closures
  (`Category.measure_on_mask`) and the award policies of `escoba.engine.scoring`.
- **The deal convention as positions**: `escoba.engine.deal` deals an identity order once per
  table size and dealer, and the positions it gives are read off every shuffled deck.
- **The opening table** by `opening_of`, kept by the table's values.

Which rules it runs is explicit: `FIELDS` names every field of `Rules` and `Category` with
the values the fused path implements. A ruleset with a field it does not know (a rule point
added since) or a value it does not implement falls back to `Hand`, and `fallback_reason`
says why; it is never silently wrong. `tests/test_fused.py` plays every bundled ruleset at
every player count both ways and requires identical results, move by move.
"""

from __future__ import annotations

import dataclasses
import random
import weakref
from bisect import insort
from collections.abc import Sequence
from typing import Any

from escoba.engine.deal import deal_plan, leader
from escoba.engine.hand import MAX_REDEALS, Hand, opening_of
from escoba.errors import EscobaError
from escoba.rules.compile import Category, Rules

MEMO_LIMIT = 200_000  # remembered positions per ruleset; past it the memo starts again (bounded memory)

# What the fused path does with each field. "any": read through the reference functions
# (legal_moves_for, opening_of, escoba.engine.deal) or not used by a hand at all, so every
# value is the reference's by construction; a set: the values the loop itself implements.
_ANY = "any"
FIELDS: dict[str, Any] = {
    # Rules
    "id": _ANY, "doc": _ANY, "deck": _ANY, "finder": _ANY, "player_counts": _ANY, "partnerships": _ANY,
    "direction": {1, -1}, "leader_offset": _ANY, "next_dealer_offset": _ANY,
    "hand_size": _ANY, "table_size": _ANY, "table_first": _ANY, "short_stock": _ANY,
    "open_hands": _ANY,  # who sees which cards: bots playing at random look at none
    "opening_trigger": _ANY, "opening_max_groups": _ANY, "opening_escobas": _ANY,
    "opening_action": {"none", "dealer_takes", "set_aside", "redeal"},
    "target": _ANY, "compulsory": {"optional", "card", "hand"},
    "escoba_on_last_play": {True, False}, "joker_escobas_score": {True, False},
    "leftovers_to": {"last_capturer", "dealer", "discard"}, "leftovers_escoba": {True, False},
    "if_nobody_captured": {"discard", "dealer"},
    "categories": _ANY,  # each checked below
    "match_target": _ANY, "target_options": _ANY, "tie": _ANY,  # matches, not hands
}  # fmt: skip
CATEGORY_FIELDS: dict[str, Any] = {
    "id": _ANY, "title": _ANY, "points": _ANY, "measure": _ANY, "measure_text": _ANY, "measure_on_mask": _ANY,
    "policy": {"most", "threshold", "holder", "per_unit", "bonus"},
    "ties": {"nobody", "all"}, "more_than": _ANY, "card": _ANY,
}  # fmt: skip


def fallback_reason(rules: Rules) -> str | None:
    """Why `rules` must be played by `Hand` rather than the fused path; None if it need not."""
    problem = _unimplemented(rules, FIELDS, "")
    for cat in rules.categories:
        if problem is not None:
            break
        problem = _unimplemented(cat, CATEGORY_FIELDS, f"scoring category {cat.id!r}: ")
        if problem is None and cat.policy != "holder" and cat.measure_on_mask is None:
            problem = f"scoring category {cat.id!r} has no bitmask measure"
    return problem


def _unimplemented(obj: Any, known: dict[str, Any], where: str) -> str | None:
    for f in dataclasses.fields(obj):
        if f.name not in known:
            return f"{where}the fast path does not implement the rule field {f.name!r}"
        allowed, value = known[f.name], getattr(obj, f.name)
        if allowed != _ANY and value not in allowed:
            return f"{where}the fast path does not implement {f.name} = {value!r}"
    return None


# ------------------------------------------------------------------ the random draws
def _randbelow(getrandbits: Any, n: int) -> int:
    k = n.bit_length()
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return r


def _inlined_draws_agree() -> bool:
    """Do `randrange` and `shuffle` draw exactly as the inlined forms below? (CPython ≥ 3.2
    does; another implementation might not, and then the library functions are called.)"""
    for seed in range(20):
        a, b = random.Random(seed), random.Random(seed)
        if any(a.randrange(n) != _randbelow(b.getrandbits, n) for n in (1, 2, 3, 5, 8, 13, 40, 1000)):
            return False
        x, y = list(range(42)), list(range(42))
        a.shuffle(x)
        for i in range(41, 0, -1):
            j = _randbelow(b.getrandbits, i + 1)
            y[i], y[j] = y[j], y[i]
        if x != y or a.random() != b.random():
            return False
    return True


INLINED = _inlined_draws_agree()


# ------------------------------------------------------------------ the compiled ruleset
@dataclasses.dataclass
class Outcome:
    """A finished hand, as the fused path reports it (lists by side)."""

    points: list[int]  # the hand's points per side
    category_points: list[int]  # [category * sides + side], in the ruleset's category order
    escobas: list[int]
    piles: list[int]  # bitmask of the cards each side captured
    set_aside: int  # bitmask
    opening: tuple[int, int, int, int]  # (dealer took the table, opening escobas, set aside, redeals)


class _Table:
    """What depends on the number of players and the dealer: seats, sides, deal positions."""

    def __init__(self, rules: Rules, players: int, dealer: int):
        self.sides = len(rules.sides(players))
        self.side_of = rules.side_of(players)
        self.players = players
        self.dealer = dealer
        self.leader = leader(rules, players, dealer)
        self.next = [(s + rules.direction) % players for s in range(players)]
        # The deal convention, applied once to the identity order: positions, not cards.
        size = len(rules.deck)
        plan = deal_plan(rules, players, dealer, range(size))
        self.table = list(plan.table)
        self.first = [list(h) for h in plan.rounds[0]] if plan.rounds else [[] for _ in range(players)]
        self.first_stop = len(plan.table) + sum(len(h) for h in self.first)
        # Later rounds by the number of cards left when they are dealt: (seat, offsets from the top).
        self.rounds: dict[int, list[tuple[int, list[int]]]] = {}
        start = self.first_stop
        for hands in plan.rounds[1:]:
            self.rounds[size - start] = [(seat, [p - start for p in h]) for seat, h in enumerate(hands) if h]
            start += sum(len(h) for h in hands)


class Fused:
    """A ruleset compiled for the fused loop. Get one with `fused(rules)`.

    The table is kept as a sorted list of *codes*, `code = value key << shift | card`, so that
    it is sorted by value (then deck order) and its value sequence is the multiset of its
    values: the key of the capture memo. Hands are lists of cards in deck order.
    """

    def __init__(self, rules: Rules):
        reason = fallback_reason(rules)
        if reason is not None:
            raise EscobaError(f"{rules.id}: {reason}")
        self.rules = rules
        finder = rules.finder
        cards = rules.deck.cards
        top = max(finder.value) + 1  # jokers sort after every value
        self.played = tuple(top if finder.is_joker[c] else finder.value[c] for c in cards)  # a card's value key
        self.shift = shift = max(1, len(cards).bit_length())
        self.card_mask = (1 << shift) - 1
        self.code = tuple(self.played[c] << shift | c for c in cards)
        size = (top + 1) << shift
        self.code_key = [0] * size  # code -> value key
        self.code_bit = [0] * size  # code -> the card's bit in a pile mask
        for c in cards:
            self.code_key[self.code[c]] = self.played[c]
            self.code_bit[self.code[c]] = 1 << c
        self.bit = tuple(1 << c for c in cards)
        self.jokers = sum(1 << c for c in cards if finder.is_joker[c])
        self.representative = {k: next(c for c in cards if self.played[c] == k) for k in set(self.played)}
        self.deck = list(cards)
        # Shared by every ruleset with the same capture search (same values, jokers, target).
        self._captures = _capture_memo((finder.value, finder.is_joker, finder.target, finder.low, finder.high))
        self._openings: dict[tuple, tuple[str, int, int] | None] = {}
        self._tables: dict[tuple[int, int], _Table] = {}
        self._scoring = [_scorer(cat) for cat in rules.categories]

    def table(self, players: int, dealer: int) -> _Table:
        found = self._tables.get((players, dealer))
        if found is None:
            if players not in self.rules.player_counts:
                raise EscobaError(f"{self.rules.id} is played by {', '.join(map(str, self.rules.player_counts))} players, not {players}")
            found = self._tables[(players, dealer)] = _Table(self.rules, players, dealer)
        return found

    # -------------------------------------------------------------- memoised reference answers
    def _captures_on(self, key: tuple[int, ...], table: list[int]) -> dict[int, tuple[tuple[int, ...], ...]]:
        """For a table (codes, sorted), what a card of each value key can take: subsets as
        positions in the table. The reference capture search (`CaptureFinder.captures`) decides
        which sets of cards make the target; it looks only at values and joker marks, so the
        answer holds for every table with the same values."""
        mask = self.card_mask
        cards = [code & mask for code in table]
        at = {c: i for i, c in enumerate(cards)}
        finder = self.rules.finder
        found = {}
        for k, card in self.representative.items():
            subsets = finder.captures(card, cards)
            if subsets:
                found[k] = tuple(tuple(sorted(at[c] for c in s)) for s in subsets)
        if len(self._captures) >= MEMO_LIMIT:
            self._captures.clear()
        self._captures[key] = found
        return found

    def _opening(self, table: list[int]) -> tuple[str, int, int] | None:
        key = tuple(sorted(map(self.played.__getitem__, table)))
        try:
            return self._openings[key]
        except KeyError:
            found = self._openings[key] = opening_of(self.rules, table)
            return found

    # -------------------------------------------------------------- a whole hand
    def deal_and_play(
        self, rng: random.Random, players: int, dealer: int, cards: list[int] | None = None, trace: list | None = None
    ) -> Outcome:
        """Shuffle, deal and play one hand with random bots drawing from `rng`, exactly as
        `Hand(rules, players, dealer, shuffled_decks(rules, rng))` played by `random_bot(rng)` at
        every seat would. `cards` is the list `shuffled_decks` keeps shuffling (a match passes the
        same list from hand to hand); `trace`, if given, receives each (seat, card, taken cards)."""
        t = self.table(players, dealer)
        if cards is None:
            cards = list(self.deck)
        getrandbits = rng.getrandbits
        bit = self.bit
        piles = [0] * t.sides
        escobas = [0] * t.sides
        set_aside = 0
        last: int | None = None
        taken = aside = opening_escobas = 0
        redeals = 0
        while True:
            if redeals == MAX_REDEALS:
                raise EscobaError(f"no playable deal after {MAX_REDEALS} redeals")
            if INLINED:
                for i in range(len(cards) - 1, 0, -1):
                    n = i + 1
                    k = n.bit_length()
                    j = getrandbits(k)
                    while j >= n:
                        j = getrandbits(k)
                    cards[i], cards[j] = cards[j], cards[i]
            else:
                rng.shuffle(cards)
            table = [cards[p] for p in t.table]
            found = self._opening(table) if table else None
            if found is None:
                break
            action, _, escobas_won = found
            if action == "redeal":
                redeals += 1
                continue
            mask = 0
            for c in table:
                mask |= bit[c]
            if action == "dealer_takes":
                side = t.side_of[dealer]
                piles[side] |= mask
                escobas[side] += escobas_won
                last = dealer
                taken, opening_escobas = 1, escobas_won
            else:  # set_aside
                set_aside |= mask
                aside = 1
            table = []
            break
        hands = []
        for positions in t.first:
            h = [cards[p] for p in positions]
            h.sort()
            hands.append(h)
        code = self.code
        codes = sorted([code[c] for c in table])
        outcome = self._play(getrandbits, rng, t, hands, codes, cards, t.first_stop, piles, escobas, last, t.leader, trace)
        outcome.set_aside |= set_aside
        outcome.opening = (taken, opening_escobas, aside, redeals)
        return outcome

    def _play(
        self,
        getrandbits: Any,
        rng: random.Random,
        t: _Table,
        hands: list[list[int]],
        table: list[int],
        stock: Sequence[int],
        pos: int,
        piles: list[int],
        escobas: list[int],
        last: int | None,
        seat: int,
        trace: list | None,
    ) -> Outcome:
        """Play from a position to the end of the hand: `hands` in deck order, `table` as sorted
        codes, the stock `stock[pos:]`, `seat` to play (and holding a card)."""
        rules = self.rules
        code, played, card_mask, jokers = self.code, self.played, self.card_mask, self.jokers
        code_key = self.code_key.__getitem__
        code_bit = self.code_bit
        memo_get = self._captures.get
        side_of, nxt = t.side_of, t.next
        stock_end = len(stock)
        compulsory = rules.compulsory
        optional, per_card = compulsory == "optional", compulsory == "card"
        last_play_escoba = rules.escoba_on_last_play
        joker_check = bool(jokers) and not rules.joker_escobas_score
        inlined = INLINED
        none: tuple = ()
        left = sum(map(len, hands))
        while True:
            h = hands[seat]
            key = tuple(map(code_key, table))
            caps = memo_get(key)
            if caps is None:
                caps = self._captures_on(key, table)
            get = caps.get
            found = [get(played[c], none) for c in h]
            # How many legal moves each held card has, in the order of `legal_moves_for`.
            if per_card:
                counts = [len(f) or 1 for f in found]
            elif optional:
                counts = [len(f) + 1 for f in found]
            else:  # hand: captures only, unless nobody... no card can capture
                counts = [len(f) for f in found]
                if not any(counts):
                    counts = [1] * len(h)
                    found = [none] * len(h)
            n = sum(counts)
            if inlined:
                nbits = n.bit_length()
                r = getrandbits(nbits)
                while r >= n:
                    r = getrandbits(nbits)
            else:
                r = rng.randrange(n)
            i = 0
            while r >= counts[i]:
                r -= counts[i]
                i += 1
            subsets: Sequence[tuple[int, ...]] = found[i]
            if optional:
                r -= 1  # the placement comes first
            card = h.pop(i)
            left -= 1
            if subsets and r >= 0:
                if len(subsets) > 1:  # the reference orders captures by the deck order of the cards taken
                    subsets = sorted(subsets, key=lambda s: sorted(table[p] & card_mask for p in s))
                take = subsets[r]
                side = side_of[seat]
                mask = 1 << card
                for p in take:
                    mask |= code_bit[table[p]]
                piles[side] |= mask
                last = seat
                if trace is not None:
                    trace.append((seat, card, tuple(sorted(table[p] & card_mask for p in take))))
                if len(take) == len(table):
                    table = []
                    if (last_play_escoba or left or pos < stock_end) and not (joker_check and mask & jokers):
                        escobas[side] += 1
                else:
                    for p in reversed(take):
                        del table[p]
            else:
                if trace is not None:
                    trace.append((seat, card, ()))
                insort(table, code[card])
            if left:
                seat = nxt[seat]
                while not hands[seat]:  # only a short last round leaves someone without cards
                    seat = nxt[seat]
            elif pos < stock_end:
                for s, positions in t.rounds[stock_end - pos]:
                    dealt = [stock[pos + p] for p in positions]
                    dealt.sort()
                    hands[s] = dealt
                    left += len(dealt)
                pos += left
                seat = t.leader
                while not hands[seat]:
                    seat = nxt[seat]
            else:
                break
        return self._finish(t, [c & card_mask for c in table], piles, escobas, last)

    def _finish(self, t: _Table, table: list[int], piles: list[int], escobas: list[int], last: int | None) -> Outcome:
        rules = self.rules
        set_aside = 0
        if table:
            mask = 0
            for c in table:
                mask |= self.bit[c]
            to = rules.leftovers_to
            if to == "last_capturer" and last is not None:
                seat: int | None = last
            elif to == "dealer" or (to == "last_capturer" and rules.if_nobody_captured == "dealer"):
                seat = t.dealer
            else:
                seat = None
            if seat is None:
                set_aside = mask
            else:
                side = t.side_of[seat]
                piles[side] |= mask
                if rules.leftovers_escoba:
                    escobas[side] += 1
        category_points, points = self.score(piles, escobas)
        return Outcome(points, category_points, escobas, piles, set_aside, (0, 0, 0, 0))

    def score(self, piles: list[int], escobas: list[int]) -> tuple[list[int], list[int]]:
        """Points per category and side (category major) and per side, for piles as bitmasks."""
        category_points: list[int] = []
        points = [0] * len(piles)
        for score in self._scoring:
            got = score(piles, escobas)
            category_points += got
            for s, p in enumerate(got):
                points[s] += p
        return category_points, points

    # -------------------------------------------------------------- from a given position
    def playout(self, hand: Hand, rng: random.Random, trace: list | None = None) -> Outcome | None:
        """Random play from `hand`'s position to the end (the hand itself is not changed); None
        for a stock the deal convention would not leave (a hand built by hand from JSON)."""
        if hand.to_play is None:
            raise EscobaError("the hand is over: nothing to play out")
        t = self.table(hand.players, hand.dealer)
        left = len(hand._stock) - hand._next
        if left and left not in t.rounds:
            return None
        bit, code = self.bit, self.code
        piles = []
        for pile in hand.piles:
            mask = 0
            for c in pile:
                mask |= bit[c]
            piles.append(mask)
        return self._play(
            rng.getrandbits, rng, t, [sorted(h) for h in hand.hands], sorted([code[c] for c in hand.table]),
            hand._stock, hand._next, piles, list(hand.escobas), hand.last_capturer, hand.to_play, trace,
        )  # fmt: skip


def _scorer(cat: Category) -> Any:
    """One category's award as a function of (piles as bitmasks, escobas) -> points per side,
    by the policies of `escoba.engine.scoring.score_category` (tests/test_fused.py pins them
    against it)."""
    pts, policy = cat.points, cat.policy
    if policy == "holder":
        card = cat.card
        assert card is not None
        return lambda piles, escobas: [pts if m >> card & 1 else 0 for m in piles]
    measure = cat.measure_on_mask
    assert measure is not None
    if policy == "per_unit":
        return lambda piles, escobas: [0 if v is None else pts * int(v) for v in map(measure, piles, escobas)]
    if policy == "bonus":
        return lambda piles, escobas: [pts if v is not None and v else 0 for v in map(measure, piles, escobas)]
    if policy == "threshold":
        bound = cat.more_than
        assert bound is not None
        return lambda piles, escobas: [pts if v is not None and v > bound else 0 for v in map(measure, piles, escobas)]
    shared = cat.ties == "all"

    def most(piles: list[int], escobas: list[int]) -> list[int]:
        values = list(map(measure, piles, escobas))
        eligible = [v for v in values if v is not None]
        out = [0] * len(values)
        if not eligible:
            return out
        best = max(eligible)
        leaders = [s for s, v in enumerate(values) if v is not None and v == best]
        if len(leaders) == 1 or shared:
            for s in leaders:
                out[s] = pts
        return out

    return most


# ------------------------------------------------------------------ finding the compiled form
_capture_memos: dict[tuple, dict] = {}


def _capture_memo(search: tuple) -> dict[tuple[int, ...], dict[int, tuple[tuple[int, ...], ...]]]:
    """The capture memo of one capture search (values, joker marks, target, value range)."""
    return _capture_memos.setdefault(search, {})


_compiled: dict[int, tuple[weakref.ref, Fused | str]] = {}  # id(rules) -> (the rules, their fused form or why not)


def fused(rules: Rules) -> Fused | None:
    """The fused form of `rules`, compiled once per `Rules` object; None if it falls back."""
    found = _compiled.get(id(rules))
    if found is None or found[0]() is not rules:
        for key in [k for k, (ref, _) in _compiled.items() if ref() is None]:  # rules that are gone
            del _compiled[key]
        reason = fallback_reason(rules)
        found = _compiled[id(rules)] = (weakref.ref(rules), reason if reason is not None else Fused(rules))
    value = found[1]
    return value if isinstance(value, Fused) else None


def playout(hand: Hand, rng: random.Random) -> list[int]:
    """Random play from `hand`'s position to the end of the hand; the points per side.

    Exactly what cloning the hand and playing `moves[rng.randrange(len(moves))]` of its legal
    moves at every turn would give (and what it does, on a clone, for a ruleset the fused path
    does not implement). `hand` is not changed. For search bots: play out a determinized hand.
    """
    kernel = fused(hand.rules)
    outcome = kernel.playout(hand, rng) if kernel is not None else None
    if outcome is not None:
        return outcome.points
    other = hand.clone()
    other.events = None
    while other.to_play is not None:
        moves = other.legal_moves()
        other.apply(moves[rng.randrange(len(moves))])
    assert other.points is not None
    return list(other.points)
