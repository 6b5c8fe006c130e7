"""The fused simulation path: whole hands of random play in one loop, identical to `Hand`.

`Hand` is the readable specification of a hand; this module plays the very same hands, move
for move, when every seat is the random bot (`escoba.engine.bots.random_bot`), which is what
`escoba simulate`, `escoba diff` and the playouts of search bots spend their time on. It is
several times faster because it pays once for what `Hand` recomputes at every turn:

- **Captures by the table's values.** Which sets of table cards a played card can take
  depends only on the values (and joker marks) of the cards, never on their suits. The
  capture search runs once per multiset of table values (the table is kept sorted by value,
  its multiset as one integer updated as cards come and go) and its answer is kept as
  positions in the table. Tables in random play hold few cards: a few thousand multisets
  answer nearly every turn (some 25,000 in 20,000 hands of optional capture, fr, whose
  tables grow large), and every ruleset with the same capture search shares them.
  The search is `CaptureFinder.sums`'s (subsets grown card by card, as bitmasks of
  positions, pruned past the largest need) over the values, shared between tables: a
  table's subsets by total are those of the table without its last card, remembered, and
  those extended by that card. A value's captures are then the subsets of its need, kept in
  the table's entry with the other totals a table grows from (`Fused._grown`); with
  jokers (wild: a range of totals) or other capture kinds (`sum: card`, priorities: the
  Italian games) they are picked from the same subsets as `CaptureFinder.captures` picks
  them (`Fused._by_finder`; tests/test_fused_captures.py holds the two together on random
  tables and variants).
- **Legal moves counted, not listed.** From those sets the loop counts each held card's
  moves as `Hand.legal_moves` lists them (compulsory capture per card or per hand, or
  optional with the placement first), finds the one the random bot draws, and orders a
  card's captures by the deck order of the cards taken, as `Hand` does.
- **The same random draws, inlined.** The random bot plays `moves[rng.randrange(len(moves))]`
  and decks are shuffled by `random.shuffle`; both are re-expressed with `getrandbits`, which
  is exactly what CPython's `randrange` and `shuffle` do (the shuffle written out step by step,
  once per deck size). The inlined forms are checked against the library's, at import and per
  deck size; if they ever differ, the library functions are called.
- **Cards as codes**: every card in a hand, on the table or in the stock is one integer, its
  value key above its index, so no list of values is kept beside the cards; and the **turns**
  of a deal round (who plays, holding how many cards) are worked out once per round.
- **Piles as bitmasks**, scored by the compiled measures' bitmask closures
  (`Category.measure_on_mask`) and the award policies of `escoba.engine.scoring` (written out
  for two sides, the commonest table).
- **The deal convention as positions**: the deal plan of an identity order, once per table
  size and dealer, gives the positions read off every shuffled deck.
- **The opening table** by `opening_of`, kept by the table's values.
- **The hand's history** (engine/history.py), only for rulesets whose measures read it, and
  only as much as they read (`Rules.history_reads`): each capture recorded as `Hand._remember`
  records it when a measure reads `captures`, only the sweeps when they read no more than
  `sweeps` (what `sweeps` gives is then the same), no capture when they read only
  `last_capture`; the measures are given it at the end.

Which rules it runs is explicit: each rule point (`escoba.rules.points`) names the values of
its fields the fused path plays. A ruleset with a value it does not play (a rule point added
since, set away from its default) falls back to `Hand`, and `fallback_reason` says why; it
is never silently wrong. `tests/test_fused.py` plays every bundled ruleset at
every player count both ways and requires identical results, move by move.
"""

from __future__ import annotations

import dataclasses
import random
import weakref
from bisect import insort
from collections.abc import Callable, Sequence
from typing import Any

from escoba.engine.deal import deal_plan, leader
from escoba.engine.declarations import declared as declared_by
from escoba.engine.hand import MAX_REDEALS, Hand, opening_of
from escoba.engine.history import Capture, SideHistory, side_histories
from escoba.errors import EscobaError
from escoba.game.seats import next_seat
from escoba.rules.compile import Category, Rules
from escoba.rules.points.catalogue import CATEGORY_POINTS, SECTION_POINTS, unplayed

MEMO_LIMIT = 200_000  # remembered positions per ruleset; past it the memo starts again (bounded memory)
# By total (or by value key): subsets of a table, each as the bitmask of its positions.
BySum = tuple[tuple[int, ...], ...]

def fallback_reason(rules: Rules) -> str | None:
    """Why `rules` must be played by `Hand` rather than the fused path; None if it need not.
    Each rule point says which values of its fields the loop plays (`RulePoint.fast_path`:
    every value where the loop reads it through the reference functions, `legal_moves_for`,
    `opening_of`, `escoba.engine.deal`; a set where the loop implements it itself; by default
    only the point's default, which is what a loop that never heard of a new point plays)."""
    problem = _unplayed(rules, "Rules", SECTION_POINTS, rules.doc, "")
    if problem is None and rules.table_kind is not None and _table_keys(rules) is None:
        problem = "the fast path plays a capture of the whole table only by ranks whose capture value no other rank has"
    for cat in rules.categories:
        if problem is not None:
            break
        problem = _unplayed(cat, "Category", CATEGORY_POINTS, rules.doc, f"scoring category {cat.id!r}: ")
        if problem is None and cat.policy != "holder" and cat.measure_on_mask is None:
            problem = f"scoring category {cat.id!r} has no bitmask measure"
    return problem


def _unplayed(obj: Any, kind: str, rule_points: Sequence[Any], doc: Any, where: str) -> str | None:
    return unplayed(obj, kind, rule_points, doc, lambda rule: rule.fast_path, f"{where}the fast path")


def _table_keys(rules: Rules) -> frozenset[int] | None:
    """The capture values of the cards that take the whole table (`sum: table`): the loop
    knows a card by its value alone, so none when another card has one of those values."""
    finder = rules.finder
    takers = finder.takes_table or ()
    keys = frozenset(finder.value[c] for c, takes in enumerate(takers) if takes)
    if any(finder.value[c] in keys and not takes for c, takes in enumerate(takers)):
        return None
    return keys


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
BITS = tuple(n.bit_length() for n in range(256))  # `n.bit_length()` without a call, for the usual numbers of moves


def _shuffler(size: int) -> Callable[[list, Callable[[int], int]], None] | None:
    """`random.shuffle` of a list of `size` items, with `getrandbits` of its generator: the
    same draws and swaps, written out step by step with each step's bounds as constants. Every
    deal shuffles the whole deck, and the loop's own bookkeeping was a fifth of the shuffle's
    cost. None when the inlined draws are not the library's (`INLINED`) or this form does not
    shuffle as `random.shuffle` does (checked here, once per deck size)."""
    if not INLINED:
        return None
    lines = ["def shuffle(x, getrandbits):"]
    for i in range(size - 1, 0, -1):  # random.shuffle: x[i] swapped with x[_randbelow(i + 1)]
        k = (i + 1).bit_length()
        lines += [f" j = getrandbits({k})", f" while j >= {i + 1}:", f"  j = getrandbits({k})", f" x[{i}], x[j] = x[j], x[{i}]"]
    namespace: dict[str, Any] = {}
    exec("\n".join(lines), namespace)  # text built above from integers only
    shuffle = namespace["shuffle"]
    for seed in range(5):
        a, b = random.Random(seed), random.Random(seed)
        x, y = list(range(size)), list(range(size))
        a.shuffle(x)
        shuffle(y, b.getrandbits)
        if x != y or a.random() != b.random():
            return None
    return shuffle


class _Positions(dict):
    """A bitmask of positions -> those positions from the highest down (worked out once)."""

    def __missing__(self, mask: int) -> tuple[int, ...]:
        if len(self) >= MEMO_LIMIT:
            self.clear()
        found = self[mask] = tuple(p for p in range(mask.bit_length() - 1, -1, -1) if mask >> p & 1)
        return found


_POSITIONS = _Positions()


# Moves per held card by key, from each key's captures, as `Hand.legal_moves` lists them: a
# card that can capture has one move per capture (and its placement first when capture is
# optional); a card that cannot has its placement, except under hand-level compulsion, where it
# has none (and if no card can capture, the loop gives every card its placement).
_MOVES: dict[str, Callable[[Sequence[Sequence[int]]], tuple[int, ...]]] = {
    "optional": lambda captures: tuple([len(c) + 1 for c in captures]),
    "card": lambda captures: tuple([len(c) or 1 for c in captures]),
    "hand": lambda captures: tuple(map(len, captures)),
}


# ------------------------------------------------------------------ the compiled ruleset
@dataclasses.dataclass
class Outcome:
    """A finished hand, as the fused path reports it (lists by side)."""

    category_points: list[int]  # [category * sides + side], in the ruleset's category order
    escobas: list[int]
    piles: list[int]  # bitmask of the cards each side captured
    set_aside: int  # bitmask
    opening: tuple[int, int, int, int]  # (dealer took the table, opening escobas, set aside, redeals)
    # What `Hand.history()` gives, for rulesets that keep it, as far as their measures read it:
    # every capture, only the sweeps, or none (`Fused.kept`); who made the last capture always.
    history: list[SideHistory] | None = None
    # Per side and category, the declarations added up (`Hand.declared`); None without any.
    declared: list[list[Any]] | None = None

    @property
    def points(self) -> list[int]:
        """The hand's points per side, its categories' summed (worked out when asked for: a
        simulation sums the categories of all its hands instead)."""
        sides, cells = len(self.escobas), self.category_points
        return [sum(cells[side::sides]) for side in range(sides)]


@dataclasses.dataclass
class _Position:
    """A hand in play as the loop holds it: cards as codes (`Fused`), hands in deck order, the
    table sorted, the stock from `pos` on to be dealt, piles as bitmasks; the turns left in
    the round (`_turns`); each side's history so far (None when the ruleset keeps none), the
    plays made and the deal round (`Hand.captures`, `.plays`, `.round`); each side's
    declarations so far (`Hand.declared`; None for a ruleset without any)."""

    hands: list[list[int]]
    table: list[int]
    stock: list[int]
    pos: int
    piles: list[int]
    escobas: list[int]
    last: int | None
    turns: Turns
    history: list[list[Capture]] | None
    plays: int
    round: int
    declared: list[list[Any]] | None = None


class _Table:
    """What depends on the number of players and the dealer: seats, sides, deal positions."""

    def __init__(self, rules: Rules, players: int, dealer: int):
        self.sides = len(rules.sides(players))
        self.side_of = rules.side_of(players)
        self.players = players
        self.dealer = dealer
        self.leader = leader(rules, players, dealer)
        self.next = [next_seat(s, rules.direction, players) for s in range(players)]
        # The deal convention, applied once to the identity order: positions, not cards.
        size = len(rules.deck)
        plan = deal_plan(rules, players, dealer, range(size))
        self.table = list(plan.table)
        self.first = [list(h) for h in plan.rounds[0]] if plan.rounds else [[] for _ in range(players)]
        self.first_stop = len(plan.table) + sum(len(h) for h in self.first)
        self.first_turns = _turns([len(h) for h in self.first], self.leader, self.next)
        # Later rounds by the number of cards left when they are dealt: per seat dealt to, a
        # slice (start, stop) of the stock from its top when the packet is contiguous, else
        # the positions one by one (a short round dealt a card at a time); and the round's turns.
        self.rounds: dict[int, tuple[list[tuple[int, int, int, list[int] | None]], Turns]] = {}
        start = self.first_stop
        for hands in plan.rounds[1:]:
            packets: list[tuple[int, int, int, list[int] | None]] = []
            for seat, h in enumerate(hands):
                offsets = [p - start for p in h]
                if offsets and offsets == list(range(offsets[0], offsets[0] + len(offsets))):
                    packets.append((seat, offsets[0], offsets[0] + len(offsets), None))
                elif offsets:
                    packets.append((seat, 0, 0, offsets))
            self.rounds[size - start] = (packets, _turns([len(h) for h in hands], self.leader, self.next))
            start += sum(len(h) for h in hands)


Turns = tuple[tuple[int, int, int], ...]


def _turns(held: list[int], seat: int, nxt: list[int]) -> Turns:
    """The turns of play until every hand is empty, from `seat` (or the first seat after it
    that holds a card), each seat passing to the next that holds one, as `Hand` does: each
    turn as (seat, cards it holds, cards left in all hands after its play). Worked out once
    per deal round rather than at every play."""
    held = list(held)
    left = sum(held)
    turns = []
    while left:
        while not held[seat]:  # only a short last round leaves someone without cards
            seat = nxt[seat]
        left -= 1
        turns.append((seat, held[seat], left))
        held[seat] -= 1
        seat = nxt[seat]
    return tuple(turns)


class Fused:
    """A ruleset compiled for the fused loop. Get one with `fused(rules)`.

    Cards on the table are kept as *codes*, `value key << shift | card`, in a sorted list: by
    value, then deck order. A table is then known, as far as captures go, by the multiset of
    its values, kept as one integer (`sig`: a count per value key in a field of `width` bits),
    updated as cards come and go; it is the key of the capture memo, and a capture is a set of
    positions in the sorted list. Hands are lists of cards in deck order, with the value keys
    of their cards beside them.
    """

    def __init__(self, rules: Rules):
        reason = fallback_reason(rules)
        if reason is not None:
            raise EscobaError(f"{rules.id}: {reason}")
        self.rules = rules
        finder = rules.finder
        cards = rules.deck.cards
        top = max(finder.value) + 1  # jokers sort after every value
        played = tuple(top if finder.is_joker[c] else finder.value[c] for c in cards)  # a card's value key
        self.played = played
        self.shift = shift = max(1, len(cards).bit_length())
        self.card_mask = (1 << shift) - 1
        self.code = tuple(played[c] << shift | c for c in cards)
        width = max(played.count(k) for k in played).bit_length()
        low = min(played)  # the lowest value key in the lowest bits: dict probes spread on them
        self.unit = [1 << (width * (k - low)) if k >= low else 0 for k in range(top + 1)]  # a card of key k in `sig`
        size = (top + 1) << shift
        # With every card worth at least 1, no jokers and one sum for every kind, no capture of a
        # card is a subset of another of the same card, so ordering captures by their masks of
        # `code_rank` bits (the most significant for the first card of the deck) is ordering them
        # by the deck order of their cards. Otherwise (a 4 on 1 3 7 takes 1 3 by value and 1 3 7
        # to 15; a joker on 5 takes 5 and 5 with the joker), each card has two bits, the upper
        # set in its code_rank, and a capture's key has the lower bit of its last card set too:
        # 1 3 then comes before 1 3 7, as lists compare (`_play`).
        one_sum = len({total for total, _ in finder.kinds}) == 1
        self.rank_by_mask = not finder.has_jokers and min(finder.value) >= 1 and one_sum
        spread = 1 if self.rank_by_mask else 2
        self.code_bit = [0] * size  # code -> the card's bit in a pile mask
        self.code_rank = [0] * size
        for c in cards:
            self.code_bit[self.code[c]] = 1 << c
            self.code_rank[self.code[c]] = 1 << (spread * (len(cards) - 1 - c) + spread - 1)
        self.bit = tuple(1 << c for c in cards)
        self.jokers = sum(1 << c for c in cards if finder.is_joker[c])
        self.representative = {k: next(c for c in cards if played[c] == k) for k in set(played)}
        self.keys = top + 1
        # Escoba's one kind, without jokers and with every card worth less than the target, is
        # searched by the loop itself (`_grown`); jokers, other capture kinds (the Italian games)
        # or a card worth the target or more, by `_by_finder`, with the largest sum any kind asks
        # of the table's cards other than jokers (`CaptureFinder.limit`). No sum past `limit` is
        # needed.
        self.by_finder = finder.has_jokers or not finder.simple or max(finder.value) >= finder.target
        self.target = finder.target
        self.limit = max(finder.limit, 0) if self.by_finder else finder.target - min(self.representative)
        self.top = top if finder.has_jokers else self.keys  # the jokers' value key (none: past every key)
        self.moves_of = _MOVES[rules.compulsory]
        # The subsets of an empty table: the empty one, of total 0 (by total downwards, from
        # `limit` for `_search`, from the target in an entry of `_grown`).
        self.no_subsets: BySum = ((),) * self.limit + ((0,),)
        nothing = ((),) * self.target + ((0,),)
        self.empty_entry = self.moves_of(nothing[: self.keys]) + nothing
        self.codes = self.code  # the deck in its order, as codes
        # Shared by every ruleset with the same capture search (same values, jokers, target, kinds).
        # The whole table (`sum: table`): the value keys of its cards (jokers never take it:
        # rules/semantics.py), whether a card of that value on the table stops it, and the keys
        # whose sweep that way is no escoba.
        self.table_keys = (_table_keys(rules) if rules.table_kind is not None else None) or frozenset()  # (never None: fallback_reason)
        self.unless_same_rank = finder.unless_same_rank
        table_kind = rules.table_kind
        self.no_escoba_keys = self.table_keys if table_kind is not None and not table_kind.escoba else frozenset()
        search = (
            finder.value, finder.is_joker, finder.target, finder.low, finder.high, finder.kinds, self.table_keys,
            finder.unless_same_rank,
        )  # fmt: skip
        self._subsets = _memo(search)  # table values -> its subsets by total, up to `limit` (`_search`)
        self._captures = _memo((*search, rules.compulsory))  # table values -> moves and captures per key
        self._openings: dict[int, tuple[str, int, int] | None] = {}
        self.opening_by_cards = rules.opening_redeal_when is not None or rules.opening_takes_when is not None
        self._tables: dict[tuple[int, int], _Table] = {}
        self._scoring: dict[int, list] = {}  # sides -> each category's award (`_scorer`), and its declarations' index
        # Declarations (categories measured on dealt cards): what a hand or table declares, by
        # where it was measured and the cards' mask (`engine/declarations.declared`).
        self._declared: dict[tuple[str, int], Any] | None = {} if rules.declarations else None
        self._no_history = (None,) * max(rules.player_counts)  # the measures' history when none is kept
        # The captures a hand's history keeps: every one if a measure reads `captures`; if they
        # read no more than `sweeps`, the sweeps (`sweeps` is the same list then); if only
        # `last_capture`, none (None). A sweep is one capture in ten or so: recording every
        # capture cost a house rule that scores sweeps alone 7% of its instructions.
        reads = rules.history_reads
        self.kept = "captures" if "captures" in reads else "sweeps" if "sweeps" in reads else None
        self._shuffle = _shuffler(len(cards))

    def table(self, players: int, dealer: int) -> _Table:
        found = self._tables.get((players, dealer))
        if found is None:
            if players not in self.rules.player_counts:
                raise EscobaError(f"{self.rules.id} is played by {', '.join(map(str, self.rules.player_counts))} players, not {players}")
            found = self._tables[(players, dealer)] = _Table(self.rules, players, dealer)
        return found

    @property
    def tables_remembered(self) -> int:
        """How many tables of values the capture memo holds (shared by every ruleset with the
        same capture search and compulsory-capture rule): what a run has had to work out, the
        tables met and, for Escoba's one kind without jokers, those they were grown from."""
        return len(self._captures)

    def _sig(self, codes: Sequence[int]) -> int:
        """The multiset of the values of these codes (C calls only: twice a hand)."""
        return sum(map(self.unit.__getitem__, map(self.shift.__rrshift__, codes)))

    # -------------------------------------------------------------- memoised reference answers
    def _captures_on(self, sig: int, table: list[int]) -> tuple:
        """For a table (codes, sorted) with these values, one flat tuple: by value key, the
        number of legal moves of a held card, then (at `keys + key`) the captures of a card of
        that key, each as the bitmask of its positions in the table (`_POSITIONS` lists them).

        Which sets of cards make the target depends only on their values (and joker marks), so
        the answer holds for every table with the same values. Without jokers a key's captures
        are the table's subsets that total its need (`_grown`); with jokers or capture kinds
        other than Escoba's, they are picked from the table's subsets as `CaptureFinder.captures`
        picks them (`_by_finder`).

        One tuple rather than a tuple of tuples: every play reads its table's entry, and tables
        of optional capture (fr) are many (tens of thousands of entries); each object read is
        one more cache miss. Tuples of integers and of tuples of them: the garbage collector
        soon stops tracking them, so the entries are not walked by every full collection."""
        if not self.by_finder:
            return self._grown(sig, table, len(table))
        captures = self._by_finder(sig, table)
        entry = self.moves_of(captures) + captures
        if len(self._captures) >= MEMO_LIMIT:
            self._captures.clear()
        self._captures[sig] = entry
        return entry

    def _grown(self, sig: int, table: list[int], length: int) -> tuple:
        """The entry (`_captures_on`) of `table[:length]` (values `sig`, not in the memo) for
        Escoba's one kind without jokers: after the moves by key, the table's subsets by total,
        from the target down to 0, so that a card of key k finds its captures, the subsets of
        total target − k, at `keys + k`.

        This is `CaptureFinder.sums`'s search (subsets grown card by card, pruned past `limit`),
        shared between tables: the table is sorted by value, so its cards but the last are the
        first positions of every table that holds their values, and the subsets of a table are
        those of the table without its last card (its entry, remembered: the table it grew
        from, most often) and those extended by that card. A new table's values then cost the
        search of one card instead of all of them: tables of optional capture (fr) grow to 7 to
        15 cards, and a search over all of them was most of a cold simulation's time. The
        extended subsets hold the highest position, so they follow the others of their total in
        the order of masks: no sorting is needed. The memo so holds every table met and the
        tables it grew from; one entry a table, holding its subsets, rather than an entry and
        the subsets apart: the garbage collector walks each new object and what it holds, and
        fr meets tens of thousands of tables."""
        memo = self._captures
        if length:
            last = length - 1
            value = table[last] >> self.shift
            smaller = sig - self.unit[value]
            fewer = memo.get(smaller) or self._grown(smaller, table, last)  # (an entry is never empty)
            keys = self.keys
            grown = _extended(fewer, keys + self.target - self.limit, value, last)
            grown[:keys] = self.moves_of(grown[keys : 2 * keys])
            found = tuple(grown)
        else:  # (remembered too: the table after every sweep)
            found = self.empty_entry
        if len(memo) >= MEMO_LIMIT:
            memo.clear()
        memo[sig] = found
        return found

    def _by_finder(self, sig: int, table: list[int]) -> BySum:
        """`CaptureFinder.captures` of a card of each value key on a table (codes, sorted; values
        `sig`), as masks of positions, from the subsets of its cards other than jokers by total
        (`_search`): the same captures, in another order (the loop orders a card's captures by
        the deck order of the cards taken, whatever the order they come in). A card worth the
        target or more takes nothing with Escoba's one kind (`CaptureFinder.target_captures`).

        Jokers are wild (`CaptureFinder._captures_with_jokers`): with j of them among the card
        played and the cards taken, the other cards taken total between target − value − j ×
        highest and target − value − j × lowest, and the jokers alone may be taken when that
        range reaches 0. Other capture kinds: `CaptureFinder.by_kinds`, a sum and a priority
        each, their captures merged."""
        finder, shift, unit, top = self.rules.finder, self.shift, self.unit, self.top
        target, low, high, limit = finder.target, finder.low, finder.high, self.limit
        length = len(table)
        wild = []  # the positions of the table's jokers: they sort last
        while length and table[length - 1] >> shift == top:
            length -= 1
            wild.append(1 << length)
            sig -= unit[top]
        by_total = self._subsets_of(sig, table[:length])
        listed: list[tuple[int, ...]] = [()] * self.keys
        if finder.simple:  # Escoba's one kind, with jokers (`CaptureFinder.target_captures`)
            choices = [(0, 0)]  # (jokers taken, mask of their positions)
            for bit in wild:
                choices += [(j + 1, m | bit) for j, m in choices]
            for k in self.representative:
                played_joker = k == top
                v = 0 if played_joker else k
                found: list[int] = []
                for j, jokers in choices:
                    j += played_joker
                    lo, hi = (target - v, target - v) if j == 0 else (target - v - j * high, target - v - j * low)
                    if hi < 0 or (hi == 0 and j == 0 and not wild):  # (nothing to reach, as the finder
                        continue  # says when neither the card nor the table has a joker)
                    for total in range(max(lo, 0), min(hi, limit) + 1):
                        subsets = by_total[limit - total]
                        if total == 0 and not jokers:
                            subsets = subsets[1:]  # the empty subset, first: nothing taken
                        found += map(jokers.__or__, subsets)
                listed[k] = tuple(found)
        else:
            for k, card in self.representative.items():  # (the language has no jokers here)
                v = finder.value[card]
                kept: tuple[int, ...] | set[int] = ()
                for sum_to, priority in finder.kinds:
                    need = target - v if sum_to == "target" else v
                    subsets = by_total[limit - need] if 0 < need <= limit else ()
                    if subsets and priority != "none":
                        fewest = 1 if priority == "single_card" else min(m.bit_count() for m in subsets)
                        subsets = tuple(m for m in subsets if m.bit_count() == fewest) or subsets
                    kept = subsets if not kept else set(kept).union(subsets)
                listed[k] = tuple(kept)
            # `CaptureFinder.whole_table`: a card of these values takes every position, its one
            # capture, unless the table is empty or (`unless_same_rank`) holds a card of its value.
            for k in self.table_keys:
                if table and not (self.unless_same_rank and any(x >> shift == k for x in table)):
                    listed[k] = ((1 << len(table)) - 1,)
        return tuple(listed)

    def _subsets_of(self, sig: int, table: list[int]) -> BySum:
        """The subsets of the cards of a table (codes, sorted; values `sig`) by total, up to
        `limit` (no card takes more): `_search` of the cards that fit, those past `limit` left
        out (the last: the table is sorted by value)."""
        shift, limit, unit = self.shift, self.limit, self.unit
        length = len(table)
        while length and table[length - 1] >> shift > limit:
            length -= 1
            sig -= unit[table[length] >> shift]
        return self._search(sig, table, length)

    def _search(self, sig: int, table: list[int], length: int) -> BySum:
        """Every subset of `table[:length]` (values `sig`, all at most `limit`) by total, from
        `limit` down to 0: the bitmasks of the positions of the subsets of each total, grown
        from the table without its last card as `_grown` grows an entry's, for `_by_finder`."""
        if not length:
            return self.no_subsets
        found = self._subsets.get(sig)
        if found is not None:
            return found
        last = length - 1
        value = table[last] >> self.shift
        found = tuple(_extended(self._search(sig - self.unit[value], table, last), 0, value, last))
        if len(self._subsets) >= MEMO_LIMIT:
            self._subsets.clear()
        self._subsets[sig] = found
        return found

    def _opening(self, table: list[int]) -> tuple[str, int, int] | None:
        """`opening_of` for a table given as codes, remembered by the table's values (by its
        cards, when a condition on the table may read their ranks and suits)."""
        sig = sum(map(self.code_bit.__getitem__, table)) if self.opening_by_cards else self._sig(table)
        try:
            return self._openings[sig]
        except KeyError:
            found = self._openings[sig] = opening_of(self.rules, [c & self.card_mask for c in table])
            return found

    # -------------------------------------------------------------- a whole hand
    def deal_and_play(self, rng: random.Random, players: int, dealer: int, trace: list | None = None) -> Outcome:
        """Shuffle, deal and play one hand with random bots drawing from `rng`, exactly as
        `Hand(rules, players, dealer, shuffled_decks(rules, rng))` played by `random_bot(rng)` at
        every seat would; `trace`, if given, receives each (seat, card, taken cards)."""
        t = self.table(players, dealer)
        # The deck is shuffled as codes: the same permutation `shuffled_decks` applies to the
        # cards, with each card's value key already beside it for the hands and the table.
        stock = list(self.codes)
        getrandbits = rng.getrandbits
        code_bit = self.code_bit
        piles = [0] * t.sides
        escobas = [0] * t.sides
        set_aside = 0
        last: int | None = None
        taken = aside = opening_escobas = 0
        redeals = 0
        while True:
            if redeals == MAX_REDEALS:
                raise EscobaError(f"no playable deal after {MAX_REDEALS} redeals")
            if self._shuffle is not None:
                self._shuffle(stock, getrandbits)
            else:
                rng.shuffle(stock)
            table = [stock[p] for p in t.table]
            turned = table  # (the opening may take it: a declaration measures it as it was turned)
            found = self._opening(table) if table else None
            if found is None:
                break
            action, _, escobas_won = found
            if action == "redeal":
                redeals += 1
                continue
            mask = 0
            for c in table:
                mask |= code_bit[c]
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
        in_deck_order = self.card_mask.__and__
        hands = []
        for positions in t.first:
            h = [stock[p] for p in positions]
            h.sort(key=in_deck_order)
            hands.append(h)
        table.sort()
        history: list[list[Capture]] | None = [[] for _ in range(t.sides)] if self.rules.needs_history else None
        declared = None
        if self._declared is not None:
            declared = [[0] * len(self.rules.categories) for _ in range(t.sides)]
            self._declare(declared, [t.side_of[dealer]], [turned], "table")
            self._declare(declared, [t.side_of[s] for s in range(players)], hands, "dealt")
        at = _Position(hands, table, stock, t.first_stop, piles, escobas, last, t.first_turns, history, 0, 1, declared)
        outcome = self._play(rng, t, at, trace)
        outcome.set_aside |= set_aside
        outcome.opening = (taken, opening_escobas, aside, redeals)
        return outcome

    def _play(self, rng: random.Random, t: _Table, at: _Position, trace: list | None) -> Outcome:
        """Play a hand from `at` to its end, each move drawn as the random bot draws it from
        `Hand.legal_moves()`; `trace`, if given, receives each (seat, card, taken cards).

        A move is the table's entry looked up (`_captures_on`), the draw (the legal moves
        counted card by card, one drawn as `rng.randrange` draws it), then the card placed or
        its capture made. The draw stays written out here: as a function called per move it
        cost 10 to 13% of fr's and sv's simulation (20,000 hands, medians of 6 pairs); the
        rarer steps are methods: which capture the draw names (`_nth_capture`), the history
        (`_remember`), the next round (`_deal_round`)."""
        hands, table, stock, piles, escobas = at.hands, at.table, at.stock, at.piles, at.escobas
        pos, last, turns, deal_round = at.pos, at.last, at.turns, at.round
        rules = self.rules
        shift, card_mask, jokers, unit, code_bit = self.shift, self.card_mask, self.jokers, self.unit, self.code_bit
        memo, spots, captured = self._captures, _POSITIONS.__getitem__, self.keys  # captures sit at `keys` in an entry
        side_of, getrandbits, inlined = t.side_of, rng.getrandbits, INLINED
        stock_end = len(stock)
        optional = rules.compulsory == "optional"
        last_play_escoba, last_card_escoba = rules.escoba_on_last_play, rules.escoba_on_last_card
        no_escoba_keys, unless_same_rank = self.no_escoba_keys, self.unless_same_rank
        joker_check = bool(jokers) and not rules.joker_escobas_score
        recording = at.history if self.kept is not None else None  # the lists captures are recorded in
        every_capture = self.kept == "captures"
        sig = self._sig(table)
        played_before = at.plays - pos + len(turns)  # plays made = played_before + pos - left, as cards are dealt and played
        while True:
            for seat, holds, left in turns:
                h = hands[seat]
                try:  # (a try costs nothing until it catches)
                    entry = memo[sig]  # moves by value key, then captures (`_captures_on`)
                except KeyError:
                    entry = self._captures_on(sig, table)
                # How many legal moves: the held cards' moves summed (unrolled for small hands).
                if holds == 3:
                    first = entry[h[0] >> shift]
                    second = first + entry[h[1] >> shift]
                    n = second + entry[h[2] >> shift]
                    if not n:
                        first, second, n = 1, 2, 3
                elif holds == 2:
                    first = entry[h[0] >> shift]
                    n = first + entry[h[1] >> shift]
                    if not n:
                        first, n = 1, 2
                elif holds == 1:
                    first = entry[h[0] >> shift] or 1
                    n = first
                else:
                    counts = [entry[x >> shift] for x in h]
                    n = sum(counts)
                    if not n:
                        counts, n = [1] * holds, holds
                    first = counts[0]
                if inlined:
                    try:
                        nbits = BITS[n]
                    except IndexError:
                        nbits = n.bit_length()
                    r = getrandbits(nbits)
                    while r >= n:
                        r = getrandbits(nbits)
                else:
                    r = rng.randrange(n)
                if r < first:
                    i = 0
                elif holds == 2:
                    i = 1
                    r -= first
                elif holds == 3:
                    if r < second:
                        i = 1
                        r -= first
                    else:
                        i = 2
                        r -= second
                else:
                    i = 0
                    while r >= counts[i]:
                        r -= counts[i]
                        i += 1
                held = h.pop(i)
                if optional:
                    r -= 1
                key = held >> shift
                captures = entry[captured + key]  # masks of positions
                if r < 0 or not captures:  # the card is placed
                    if trace is not None:
                        trace.append((seat, held & card_mask, ()))
                    insort(table, held)
                    sig += unit[key]
                    continue
                if len(captures) > 1:
                    r = self._nth_capture(captures, r, table)
                take = spots(captures[r])
                side = side_of[seat]
                mask = code_bit[held]
                for p in take:
                    taken_code = table[p]
                    mask |= code_bit[taken_code]
                    sig -= unit[taken_code >> shift]
                piles[side] |= mask
                last = seat
                if trace is not None:
                    trace.append((seat, held & card_mask, tuple(sorted(table[p] & card_mask for p in take))))
                if not sig:  # no value left on the table: it was swept
                    swept = (
                        (last_play_escoba or left or pos < stock_end)
                        and (last_card_escoba or h or pos < stock_end)
                        and not (joker_check and mask & jokers)
                        # the whole table taken by a `sum: table` kind that makes no escoba
                        # (`table` is still the table before the capture)
                        and not (key in no_escoba_keys and not (unless_same_rank and any(x >> shift == key for x in table)))
                    )
                    table = []
                    if swept:
                        escobas[side] += 1
                else:
                    swept = False
                    for p in take:  # from the highest position down
                        del table[p]
                if recording is not None and (swept or every_capture):  # what Hand._remember records
                    self._remember(recording[side], held & card_mask, mask, deal_round, played_before + pos - left == 1,
                                   not left and pos >= stock_end, swept)  # fmt: skip
            if pos == stock_end:
                break
            pos, turns = self._deal_round(t, hands, stock, pos, at.declared)
            deal_round += 1
        return self._finish(t, sum(map(code_bit.__getitem__, table)), piles, escobas, last, at.history, at.declared)

    def _nth_capture(self, captures: Sequence[int], r: int, table: list[int]) -> int:
        """The index, among a card's `captures` (masks of table positions, in the memo's order),
        of the r-th in the order the reference lists them: the deck order of the cards taken.
        Each capture's key is its code_rank mask (with the bit below its last card set too
        unless `rank_by_mask`); the r-th capture is the one of the r-th largest key (keys of
        distinct sets differ). Plain loops: over a capture's few cards they cost about half the
        chains of `map` they replaced (20,000 hands: 7.8% fewer instructions in fr)."""
        spots, ranks, by_mask = _POSITIONS.__getitem__, self.code_rank, self.rank_by_mask
        if len(captures) == 2:
            a = b = 0
            for p in spots(captures[0]):
                a += ranks[table[p]]
            for p in spots(captures[1]):
                b += ranks[table[p]]
            if not by_mask:
                a |= (a & -a) >> 1
                b |= (b & -b) >> 1
            return 1 - r if a < b else r
        keys = []
        for positions in map(spots, captures):
            a = 0
            for p in positions:
                a += ranks[table[p]]
            keys.append(a if by_mask else a | (a & -a) >> 1)
        return keys.index(sorted(keys, reverse=True)[r])

    @staticmethod
    def _remember(mine: list[Capture], card: int, mask: int, deal_round: int, first: bool, last: bool, swept: object) -> None:
        """A capture added to the side's history, as `Hand._remember` records it."""
        mine.append(tuple.__new__(Capture, (card, mask ^ 1 << card, deal_round, first, last, bool(swept))))

    def _deal_round(
        self, t: _Table, hands: list[list[int]], stock: list[int], pos: int, declared: list[list[Any]] | None = None
    ) -> tuple[int, Turns]:  # fmt: skip
        """The next round dealt from `stock` at `pos` into `hands` (the deal convention, as
        positions: `_Table.rounds`), what its hands declare added to `declared`: the position
        after it and its turns."""
        packets, turns = t.rounds[len(stock) - pos]
        in_deck_order = self.card_mask.__and__
        for s, a, b, positions in packets:
            dealt = stock[pos + a : pos + b] if positions is None else [stock[pos + p] for p in positions]
            dealt.sort(key=in_deck_order)
            hands[s] = dealt
        if declared is not None:
            self._declare(declared, [t.side_of[s] for s, *_ in packets], [hands[s] for s, *_ in packets], "dealt")
        return pos + len(turns), turns

    def _declare(self, declared: list[list[Any]], sides: Sequence[int], hands: Sequence[Sequence[int]], on: str) -> None:
        """Add what each of these hands (codes) declares to its side (`Hand._declare`), each
        remembered by its cards."""
        memo, card_mask, bit = self._declared, self.card_mask, self.code_bit
        assert memo is not None
        for side, held in zip(sides, hands):
            if not held:
                continue
            key = (on, sum(map(bit.__getitem__, held)))
            try:
                values = memo[key]
            except KeyError:
                if len(memo) >= MEMO_LIMIT:
                    memo.clear()
                values = memo[key] = declared_by(self.rules, [x & card_mask for x in held], on)
            if values is not None:
                declared[side] = [a + b for a, b in zip(declared[side], values)]

    def _finish(
        self, t: _Table, mask: int, piles: list[int], escobas: list[int], last: int | None,
        captures: list[list[Capture]] | None, declared: list[list[Any]] | None = None,
    ) -> Outcome:  # fmt: skip
        """The hand's end: the cards left on the table (`mask`) given as the rules say, and the
        hand scored."""
        rules = self.rules
        set_aside = 0
        if mask:
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
        history = None
        if captures is not None:
            history = side_histories(captures, t.side_of[last] if last is not None else None)
        points = self._category_points(piles, escobas, history, declared)
        return Outcome(points, escobas, piles, set_aside, (0, 0, 0, 0), history, declared)

    def score(
        self, piles: list[int], escobas: list[int], history: list[SideHistory] | None = None,
        declared: list[list[Any]] | None = None,
    ) -> tuple[list[int], list[int]]:  # fmt: skip
        """Points per category and side (category major) and per side, for piles as bitmasks
        (and each side's history, needed when the ruleset's measures read it; each side's
        declarations, for a ruleset with categories measured on dealt cards)."""
        cells, sides = self._category_points(piles, escobas, history, declared), len(piles)
        return cells, [sum(cells[side::sides]) for side in range(sides)]

    def _category_points(
        self, piles: list[int], escobas: list[int], history: list[SideHistory] | None,
        declared: list[list[Any]] | None = None,
    ) -> list[int]:  # fmt: skip
        if self.rules.needs_history and history is None:
            raise EscobaError(f"the measures of {self.rules.id} read the hand's history, and none was given")
        sides = len(piles)
        scoring = self._scoring.get(sides)
        if scoring is None:
            # A category measured on dealt cards is scored from its declarations, added up as
            # they were dealt: its award is given those values where others get the piles.
            scoring = self._scoring[sides] = [
                (_scorer(cat, sides), None) if cat.measured_on == "pile"
                else (_scorer(dataclasses.replace(cat, measure_on_mask=_as_declared), sides), k)
                for k, cat in enumerate(self.rules.categories)
            ]  # fmt: skip
        each = history if history is not None else self._no_history
        if declared is None:
            declared = [[0] * len(scoring)] * sides
        cells: list[int] = []
        for award, k in scoring:
            cells += award(piles if k is None else [mine[k] for mine in declared], escobas, each)
        return cells

    # -------------------------------------------------------------- from a given position
    def playout(self, hand: Hand, rng: random.Random, trace: list | None = None) -> Outcome | None:
        """Play from `hand`'s position to the end at random (the hand itself is not changed).
        None for a stock the deal convention would not leave (a hand built from JSON)."""
        if hand.to_play is None:
            raise EscobaError("the hand is over: nothing to play out")
        t = self.table(hand.players, hand.dealer)
        left = len(hand._stock) - hand._next
        if left and left not in t.rounds:
            return None
        bit, code = self.bit, self.code
        in_deck_order = self.card_mask.__and__
        piles = []
        for pile in hand.piles:
            mask = 0
            for c in pile:
                mask |= bit[c]
            piles.append(mask)
        at = _Position(
            [sorted([code[c] for c in h], key=in_deck_order) for h in hand.hands], sorted([code[c] for c in hand.table]),
            [code[c] for c in hand._stock], hand._next, piles, list(hand.escobas), hand.last_capturer,
            _turns([len(h) for h in hand.hands], hand.to_play, t.next),
            [self._kept_of(mine) for mine in hand.captures] if hand.captures is not None else None, hand.plays, hand.round,
            None if hand.declared is None else [list(d) for d in hand.declared],
        )  # fmt: skip
        return self._play(rng, t, at, trace)

    def _kept_of(self, captures: Sequence[Capture]) -> list[Capture]:
        """Those of a side's captures that the history keeps (`kept`)."""
        if self.kept == "captures":
            return list(captures)
        return [c for c in captures if c.escoba] if self.kept == "sweeps" else []


def _as_declared(value: Any, escobas: int, history: Any) -> Any:
    """A category's measure when its values were added up as the cards were dealt (`Outcome.declared`)."""
    return value


def _extended(fewer: Sequence, start: int, value: int, position: int) -> list:
    """The subsets of a table by total, downwards from `fewer[start]` (of the largest total a
    card takes; `fewer[i]`: of total t − i), with a card of `value` at `position` added to the
    table: a total gains the subsets of its total less `value`, each with the card. A list, with
    what `fewer` holds before `start` unchanged."""
    bit = 1 << position
    totals = list(fewer)
    i = start
    for extended in fewer[start + value :]:
        if extended:
            if len(extended) == 1:  # (two in three: no list, no tuple of unknown length)
                totals[i] += (extended[0] | bit,)
            else:
                totals[i] += tuple([m | bit for m in extended])
        i += 1
    return totals


def _scorer(cat: Category, sides: int) -> Any:
    """One category's award as a function of (piles as bitmasks, escobas, each side's history:
    None per side when the ruleset keeps none) -> points per side, by the policies of
    `escoba.engine.scoring.score_category` (tests/test_fused.py pins them against it).

    Every simulated hand calls each category's award once, so the commonest cases, a card's
    holder and the most of something between two sides, are written out for two sides: their
    award is then a constant tuple, with no list built and no loop."""
    pts, policy = cat.points, cat.policy
    if policy == "holder":
        card = cat.card
        assert card is not None
        if sides == 2:
            first, second, neither = (pts, 0), (0, pts), (0, 0)
            return lambda piles, escobas, history: (
                first if piles[0] >> card & 1 else second if piles[1] >> card & 1 else neither
            )  # fmt: skip
        return lambda piles, escobas, history: [pts if m >> card & 1 else 0 for m in piles]
    on_mask = cat.measure_on_mask
    assert on_mask is not None
    if policy == "per_unit":
        return lambda piles, escobas, history: [
            0 if v is None else pts * int(v) for v in map(on_mask, piles, escobas, history)
        ]  # fmt: skip
    if policy == "bonus":
        return lambda piles, escobas, history: [
            pts if v is not None and v else 0 for v in map(on_mask, piles, escobas, history)
        ]  # fmt: skip
    if policy == "threshold":
        bound = cat.more_than
        assert bound is not None
        return lambda piles, escobas, history: [
            pts if v is not None and v > bound else 0 for v in map(on_mask, piles, escobas, history)
        ]  # fmt: skip
    shared = cat.ties == "all"

    def most(piles: list[int], escobas: list[int], history: Sequence[SideHistory | None]) -> list[int]:
        values = list(map(on_mask, piles, escobas, history))
        out = [0] * len(values)
        if None in values:  # some side not eligible: the best among the others
            eligible = [v for v in values if v is not None]
            if not eligible:
                return out
            best = max(eligible)
            leaders = [s for s, v in enumerate(values) if v is not None and v == best]
        else:
            best = max(values)
            if values.count(best) == 1:
                out[values.index(best)] = pts
                return out
            leaders = [s for s, v in enumerate(values) if v == best]
        if len(leaders) == 1 or shared:
            for s in leaders:
                out[s] = pts
        return out

    if sides != 2:
        return most
    first, second, tied = (pts, 0), (0, pts), (pts, pts) if shared else (0, 0)

    def most_of_two(piles: list[int], escobas: list[int], history: Sequence[SideHistory | None]) -> Sequence[int]:
        a = on_mask(piles[0], escobas[0], history[0])
        b = on_mask(piles[1], escobas[1], history[1])
        if a is None or b is None:
            return most(piles, escobas, history)
        return first if a > b else second if b > a else tied

    return most_of_two


# ------------------------------------------------------------------ finding the compiled form
_memos: dict[tuple, dict] = {}


def clear_memos() -> None:
    """Forget every remembered capture and opening (a benchmark's cold start)."""
    for memo in _memos.values():
        memo.clear()
    for _, value in _compiled.values():
        if isinstance(value, Fused):
            value._openings.clear()


def _memo(search: tuple) -> dict:
    """The memo of one capture search (values, joker marks, target, value range, and for legal
    moves the compulsory-capture rule), shared by every ruleset that has it."""
    return _memos.setdefault(search, {})


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
