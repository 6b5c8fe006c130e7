"""Exact play once every card is known: the end of a hand as a game of perfect information.

When the stock is empty and at most one other seat still holds cards this seat cannot see,
the cards it has not seen are that seat's hand: the seat knows where every card is (at two
players, from the last deal on). The rest of the hand is then a game of perfect information,
and it is solved exactly.

A position's value is each side's lead when the hand ends (its points minus the mean of the
other sides', the quantity a hand decides), scored by the ruleset's own categories. The side to
move picks the move of its largest lead, the first of the sorted legal moves among equals: with
two sides this is minimax; with more, each side for itself (max^n).

Two solvers give the same values and the same moves (tests/test_endgame.py holds them together
on positions of every bundled ruleset):

- the reference, `_HandSolver`, plays the moves on `Hand` itself (`clone`, `legal_moves`,
  `apply`, the scoring when the hand ends), so every rule is played as `Hand` plays it;
- the compact one, `_Solver`, plays them on tuples of cards and bitmasks of piles, several
  times faster: a two-player hand's last round is solved in under a millisecond. What it plays
  of each rule point is listed in `PLAYED`, as each point lists what the fused simulation path
  plays; a ruleset with a value it does not play (a point added since, away from its default),
  or whose measures read the hand's history, is solved by the reference.

Solved positions are remembered in a table shared by every solver of the process for the same
ruleset: a position's value is a fact of the position, whoever asks (at two players both seats
know the whole last round, and the second to ask finds most of it solved).
"""

from __future__ import annotations

import random
import weakref
from collections.abc import Callable
from typing import Any

from escoba.engine.fused import fused
from escoba.engine.hand import Hand, Move
from escoba.engine.scoring import leads, score_hand
from escoba.engine.view import View
from escoba.rules.compile import Rules
from escoba.rules.points import ANY, RulePoint
from escoba.rules.points.base import BOTH
from escoba.rules.points.catalogue import SECTION_POINTS, unplayed

Leads = tuple[float, ...]
_INF = float("inf")
TABLE_LIMIT = 200_000  # solved positions kept per ruleset; past it the table starts again (bounded memory)

# What the compact solver plays of each rule point: ANY where it plays every value, because it
# reads the point through the reference (`CaptureFinder.captures`, the ruleset's scoring) or
# because the point cannot act once the stock is empty (the deal, the opening table, matches);
# a set where it plays those values itself. A point not listed (one added since) is played at
# its default only, as a solver that never heard of it plays it; another value, a field no
# point owns, or measures that read the hand's history: the reference solver plays the ruleset.
PLAYED: dict[str, Any] = {
    "players.counts": ANY, "players.partnerships": ANY, "turn.leader": ANY, "turn.next_dealer": ANY,
    "deal.hand_size": ANY, "deal.table_size": ANY, "deal.table_first": ANY, "deal.short_stock": ANY,
    "deal.open_hands": ANY, "opening_table.trigger": ANY, "opening_table.max_groups": ANY,
    "opening_table.action": ANY, "opening_table.escobas": ANY,
    "match.target": ANY, "match.target_options": ANY, "match.tie": ANY,
    "capture.target": ANY, "capture.kinds": ANY,
    "turn.direction": {1, -1}, "capture.compulsory": {"optional", "card", "hand"},
    "capture.escoba_on_last_play": BOTH, "capture.escoba_on_last_card": BOTH, "capture.joker_escobas_score": BOTH,
    "leftovers.to": {"last_capturer", "dealer", "discard"}, "leftovers.escoba": BOTH,
    "leftovers.if_nobody_captured": {"discard", "dealer"},
}  # fmt: skip


def known_hand(view: View) -> Hand | None:
    """The whole hand as `view`'s seat knows it, when it knows where every card is; else None."""
    if view.stock_size or view.to_play is None:
        return None
    hidden = [seat for seat, cards in enumerate(view.hands) if cards is None and view.hand_sizes[seat]]
    if len(hidden) > 1:
        return None
    # One hidden hand at most: the unseen cards are all in it, whatever the generator draws.
    return Hand.from_view(view, random.Random(0))


def sampled_move(view: View, moves: list[Move], rng: random.Random, worlds: int) -> Move:
    """The move of the largest mean lead over `worlds` deals of the cards `view`'s seat cannot
    see (`Hand.from_view`), each solved exactly as if every card were known: a sampled solve
    for the end of a hand at three or four players, where the last cards are in several hidden
    hands. (Each deal is solved knowing its hidden cards, so it is an estimate: the measured
    gain is in docs/bots.md.) The first of the moves among equals."""
    seat = view.seat
    totals = [0.0] * len(moves)
    for _ in range(worlds):
        world = Hand.from_view(view, rng)
        side = world.side_of[seat]
        for i, move in enumerate(moves):
            after = world.clone()
            after.apply(move)
            totals[i] += exact_leads(after)[side]
    return moves[max(range(len(moves)), key=totals.__getitem__)]


def best_move(state: Hand) -> Move:
    """The move of the largest lead for the side to play in a hand whose every card is known
    (the first of the legal moves among equals)."""
    return _solver(state)(state)[1]


def exact_leads(state: Hand) -> Leads:
    """Each side's lead at the end of the hand under exact play from `state` (every card known)."""
    if state.points is not None:
        return _leads(state.points)
    return _solver(state)(state)[0]


def compact_plays(rules: Rules) -> bool:
    """Whether the compact solver plays `rules` (else the reference solver does)."""
    return not rules.needs_history and unplayed(rules, "Rules", SECTION_POINTS, rules.doc, _played, "the solver") is None


def _played(rule: RulePoint) -> Any:
    return PLAYED.get(rule.key)


def _solver(state: Hand) -> Callable[[Hand], tuple[Leads, Move]]:
    rules = state.rules
    memo = _memo_of(rules)
    if memo.compact:
        return _Solver(rules, state.players, state.dealer, memo).root
    return _HandSolver(memo.table).root


class _Memo:
    """What the solvers of one ruleset remember: which solver plays it, solved positions, and
    for the compact solver each card's captures on a table and each distinct end's leads."""

    def __init__(self, compact: bool = True) -> None:
        self.compact = compact
        self.table: dict[tuple, Leads] = {}
        self.bounds: dict[tuple, tuple[float, float]] = {}  # two sides: what alpha-beta learned of a position
        self.captures: dict[tuple[int, tuple[int, ...]], list[tuple[int, ...]]] = {}
        self.scored: dict[tuple[tuple[int, ...], tuple[int, ...]], Leads] = {}

    def bounded(self) -> _Memo:
        if len(self.table) + len(self.bounds) + len(self.captures) + len(self.scored) > TABLE_LIMIT:
            self.table.clear()
            self.bounds.clear()
            self.captures.clear()
            self.scored.clear()
        return self


_memos: dict[int, tuple[weakref.ref[Rules], _Memo]] = {}  # id(rules) -> (the rules, what their solvers remember)


def _memo_of(rules: Rules) -> _Memo:
    found = _memos.get(id(rules))
    if found is None or found[0]() is not rules:
        for key in [k for k, (ref, _) in _memos.items() if ref() is None]:  # rules that are gone
            del _memos[key]
        found = _memos[id(rules)] = (weakref.ref(rules), _Memo(compact_plays(rules)))
    return found[1].bounded()


def _leads(points: list[int]) -> Leads:
    return tuple(leads(points))


# --------------------------------------------------------------------------- the reference
class _HandSolver:
    """Plays every move on `Hand`."""

    def __init__(self, table: dict[tuple, Leads]) -> None:
        self.table = table

    def root(self, state: Hand) -> tuple[Leads, Move]:
        seat = state.to_play
        assert seat is not None, "the hand is over"
        side = state.side_of[seat]
        best: Leads | None = None
        chosen = None
        for move in state.legal_moves():
            after = state.clone()
            after.apply(move)
            leads = self._value(after)
            if best is None or leads[side] > best[side]:
                best, chosen = leads, move
        assert best is not None and chosen is not None
        return best, chosen

    def _value(self, state: Hand) -> Leads:
        if state.points is not None:
            return _leads(state.points)
        key = ("hand", state.dealer, state.to_play, state.last_capturer,
               tuple(tuple(sorted(cards)) for cards in state.hands), tuple(sorted(state.table)),
               tuple(tuple(sorted(pile)) for pile in state.piles), tuple(state.escobas),
               None if state.captures is None else tuple(tuple(mine) for mine in state.captures))  # fmt: skip
        found = self.table.get(key)
        if found is None:
            found = self.table[key] = self.root(state)[0]
        return found


# --------------------------------------------------------------------------- the compact solver
Position = tuple[int, int | None, tuple[tuple[int, ...], ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]
# (to play, last capturer, hands, table, piles as bitmasks, escobas): cards sorted in deck order.


class _Solver:
    """Plays the moves of `Hand._play` and the end of `Hand._finish` on tuples and bitmasks.

    With two sides the values are found by alpha-beta (side 0's lead; side 1's is its
    opposite), which leaves most lines unplayed once one reply refutes a move; with more
    sides, each for itself, every line is played."""

    def __init__(self, rules: Rules, players: int, dealer: int, memo: _Memo) -> None:
        self.rules, self.players, self.dealer = rules, players, dealer
        self.table, self.bounds, self.captures_of, self.scored = memo.table, memo.bounds, memo.captures, memo.scored
        self.side_of = rules.side_of(players)
        self.two = len(rules.sides(players)) == 2
        self.cards = rules.deck.cards
        self.kernel = fused(rules)

    def root(self, state: Hand) -> tuple[Leads, Move]:
        assert state.to_play is not None, "the hand is over"
        piles = []
        for pile in state.piles:
            mask = 0
            for c in pile:
                mask |= 1 << c
            piles.append(mask)
        position: Position = (state.to_play, state.last_capturer, tuple(tuple(sorted(h)) for h in state.hands),
                              tuple(sorted(state.table)), tuple(piles), tuple(state.escobas))  # fmt: skip
        if not self.two:
            leads, (card, take) = self._search(position)
            return leads, Move(card, take)
        # The first move of the best lead: each later move is searched only for being better
        # (a window from the best so far), so a move as good as an earlier one is never taken.
        first = self.side_of[state.to_play] == 0
        best = -_INF if first else _INF
        chosen: tuple[int, tuple[int, ...]] = (-1, ())
        for card, take in self._moves(position):
            after, ended = self._step(position, card, take)
            if ended is not None:
                value = ended[0]
            else:
                value = self._alphabeta(after, best, _INF) if first else self._alphabeta(after, -_INF, best)  # type: ignore[arg-type]
            if value > best if first else value < best:
                best, chosen = value, (card, take)
        return (best, -best), Move(*chosen)

    def _alphabeta(self, position: Position, alpha: float, beta: float) -> float:
        """Side 0's lead under exact play if it lies between alpha and beta; else a bound
        beyond the one it passes (fail-soft)."""
        key = (self.dealer, *position)
        exact = self.table.get(key)
        if exact is not None:
            return exact[0]
        low, high = self.bounds.get(key, (-_INF, _INF))
        if low >= beta or low == high:
            return low
        if high <= alpha:
            return high
        window = alpha, beta
        alpha, beta = max(alpha, low), min(beta, high)
        first = self.side_of[position[0]] == 0
        best = -_INF if first else _INF
        for card, take in self._moves(position):
            after, ended = self._step(position, card, take)
            value = ended[0] if ended is not None else self._alphabeta(after, alpha, beta)  # type: ignore[arg-type]
            if first:
                if value > best:
                    best = value
                    alpha = max(alpha, best)
            elif value < best:
                best = value
                beta = min(beta, best)
            if alpha >= beta:
                break
        if window[0] < best < window[1]:
            self.table[key] = (best, -best)
        elif best <= window[0]:
            self.bounds[key] = (low, min(high, best))
        else:
            self.bounds[key] = (max(low, best), high)
        return best

    def _value(self, position: Position) -> Leads:
        key = (self.dealer, *position)
        found = self.table.get(key)
        if found is None:
            found = self.table[key] = self._search(position)[0]
        return found

    def _search(self, position: Position) -> tuple[Leads, tuple[int, tuple[int, ...]]]:
        """Every side for itself: the first move of the mover's largest lead."""
        side = self.side_of[position[0]]
        best: Leads | None = None
        chosen: tuple[int, tuple[int, ...]] = (-1, ())
        for card, take in self._moves(position):
            after, ended = self._step(position, card, take)
            leads = ended if ended is not None else self._value(after)  # type: ignore[arg-type]
            if best is None or leads[side] > best[side]:
                best, chosen = leads, (card, take)
        assert best is not None
        return best, chosen
    def _moves(self, position: Position) -> list[tuple[int, tuple[int, ...]]]:
        """`Hand.legal_moves`, in its order: by card, a placement before the card's captures."""
        seat, _, hands, table, _, _ = position
        compulsory = self.rules.compulsory
        held = hands[seat]
        found = self.captures_of
        subsets = []
        for card in held:
            key = (card, table)
            captures = found.get(key)
            if captures is None:
                captures = found[key] = self.rules.finder.captures(card, table)
            subsets.append(captures)
        may_place = compulsory != "hand" or not any(subsets)
        moves: list[tuple[int, tuple[int, ...]]] = []
        for card, captures in zip(held, subsets):
            if may_place and (compulsory == "optional" or not captures):
                moves.append((card, ()))
            moves.extend((card, take) for take in captures)
        return moves

    def _step(self, position: Position, card: int, take: tuple[int, ...]) -> tuple[Position | None, Leads | None]:
        """`Hand._play`, then `Hand._advance`: (the next position, None), or (None, the leads)
        when the move ends the hand (`Hand._finish`)."""
        seat, last, hands, table, piles, escobas = position
        rules = self.rules
        held = tuple(c for c in hands[seat] if c != card)
        hands = (*hands[:seat], held, *hands[seat + 1 :])
        if take:
            side = self.side_of[seat]
            table = tuple(c for c in table if c not in take)
            mask = 1 << card
            for c in take:
                mask |= 1 << c
            piles = (*piles[:side], piles[side] | mask, *piles[side + 1 :])
            last = seat
            # The stock is empty: the hand's last play empties every hand, a player's last
            # card its own.
            if not table and (rules.escoba_on_last_play or any(hands)) and (rules.escoba_on_last_card or held):
                jokers = rules.finder.is_joker
                if rules.joker_escobas_score or not (jokers[card] or any(jokers[c] for c in take)):
                    escobas = (*escobas[:side], escobas[side] + 1, *escobas[side + 1 :])
        else:
            table = tuple(sorted((*table, card)))
        if not any(hands):
            return None, self._finish(last, table, piles, escobas)
        step, n = rules.direction, self.players
        nxt = (seat + step) % n
        while not hands[nxt]:
            nxt = (nxt + step) % n
        return (nxt, last, hands, table, piles, escobas), None

    def _finish(self, last: int | None, table: tuple[int, ...], piles: tuple[int, ...], escobas: tuple[int, ...]) -> Leads:
        """The leftovers as `Hand._finish` gives them, and the scoring."""
        rules = self.rules
        if table:
            if rules.leftovers_to == "last_capturer" and last is not None:
                seat: int | None = last
            elif rules.leftovers_to == "dealer" or (
                rules.leftovers_to == "last_capturer" and rules.if_nobody_captured == "dealer"
            ):
                seat = self.dealer
            else:
                seat = None
            if seat is not None:
                side = self.side_of[seat]
                mask = 0
                for c in table:
                    mask |= 1 << c
                piles = (*piles[:side], piles[side] | mask, *piles[side + 1 :])
                if rules.leftovers_escoba:
                    escobas = (*escobas[:side], escobas[side] + 1, *escobas[side + 1 :])
        ended = (piles, escobas)
        found = self.scored.get(ended)  # scored once per distinct end: scoring is what costs most
        if found is None:
            found = self.scored[ended] = _leads(self._points(list(piles), list(escobas)))
        return found

    def _points(self, piles: list[int], escobas: list[int]) -> list[int]:
        """Each side's points, by the fused path's scoring of bitmask piles when the ruleset has
        one (tested against `score_hand`, tests/test_fused.py), else by `score_hand` itself."""
        if self.kernel is not None:
            return self.kernel.score(piles, escobas)[1]
        scores = score_hand(self.rules, [[c for c in self.cards if mask >> c & 1] for mask in piles], escobas)
        return [sum(s.points[side] for s in scores) for side in range(len(piles))]
