"""An information-set Monte Carlo tree search bot (single-observer ISMCTS with UCT).

Cowling, Powley and Whitehouse, "Information Set Monte Carlo Tree Search" (IEEE TCIAIG, 2012):
the tree belongs to the seat that must move and is built over moves, not states. Each playout

1. chooses a root move by UCT (the seat's own moves are the same in every world);
2. determinizes: deals the cards this seat cannot see at random, consistently with what it
   sees (`View.determinize`): the search never looks at the real hidden cards. A root move's
   k-th playout is played in the k-th such deal, so every root move is judged in the same
   deals (common random numbers): the differences between moves are not the luck of the deal;
   then walks down the tree by UCT, among the moves legal in *this* determinization (a move's
   `avail` counts how often it could have been chosen, which stands in for the parent's visits
   in its exploration term: "subset-armed" bandits);
3. adds one new move, then plays the hand out;
4. scores the hand with the ruleset's own scoring and credits every move on the path with the
   lead of the side that made it (its points minus the mean of the other sides').

The move played is the root move of best value: the mean lead of its playouts shrunk towards
the greedy bot's judgement of it (see PRIOR). The budget is a number of playouts
(reproducible: the same seed and budget give the same move) or a time (not reproducible).
Once the seat knows where every card is (at two players, the last round), the bot does not
search: it plays exactly (`escoba.engine.bots.endgame`), which a tree of playouts can only
approach.

Four options make the strong search (spec `strong`, docs/bots.md), each off by default so
that `search:N` plays as it always has:

- `learned`: the root moves' prior is the learned judgement (`escoba.engine.bots.evaluation`)
  rather than the greedy judge's;
- `exact_last_deal`: a playout that reaches the last deal is valued by solving the rest of that
  deal exactly (`endgame.exact_leads`). In a deal of the unseen cards every card is then known
  to every seat still holding cards, as it is in the real hand, so the solve is what the
  players themselves could work out (no strategy fusion), where the light playout guessed;
- `own_view_replies`: inside the tree, an opponent with a choice replies as the greedy judge
  would from *its own* view of that deal (the cards it was dealt there), rather than by UCT
  over statistics pooled across deals that gave it other cards, which credits it with
  replies made knowing what the seat holds;
- `infer`: at two players, the deals of the unseen cards are weighed by what the opponent's
  plays of the round say of its hand (`escoba.engine.bots.inference`): after it placed a card
  where another would have captured, or took part of the table where another would have swept
  it, deals that give it such a card are drawn far less often.

Playouts: after the tree, each seat plays a light version of the greedy bot (the best capture
by the ruleset's card worths, `escoba.engine.worth`, else a random card), or uniformly at
random with `playout="random"`. They are played on `Hand`: a playout is a few moves, and
setting up the fused loop's state cost about what those moves saved (measured 0.95x the `Hand`
playouts, so that path was removed).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable

from escoba.engine.bots.basic import generator, thinking
from escoba.engine.bots.endgame import best_move, exact_leads, known_hand
from escoba.engine.bots.evaluation import Evaluation
from escoba.engine.bots.greedy import Judge
from escoba.engine.bots.inference import PlayLog
from escoba.engine.hand import Hand, Move
from escoba.engine.scoring import leads
from escoba.engine.view import View
from escoba.engine.worth import Worth, worth_of

Finish = Callable[[Hand, int], list[float]]  # plays a state out (to its horizon): each side's lead

EXPLORATION = 0.7  # UCT constant, in units of the spread of the leads seen so far
PRIOR = 8  # playouts' worth of weight given to the greedy judgement of a root move


class Node:
    __slots__ = ("avail", "children", "total", "visits")

    def __init__(self) -> None:
        self.visits = 0
        self.avail = 0
        self.total = 0.0
        self.children: dict[Move, Node] = {}


def search_bot(
    seed: int | random.Random | None = None,
    *,
    playouts: int | None = 200,
    seconds: float | None = None,
    playout: str = "greedy",
    learned: bool = False,
    exact_last_deal: bool = False,
    own_view_replies: bool = False,
    infer: bool = False,
) -> Callable[[Hand], Move]:
    """A seeded ISMCTS bot with a budget of `playouts` per move, or `seconds` per move; exact
    play once every card is known. The flags are the strong search's options (above)."""
    if playouts is None and seconds is None:
        raise ValueError("a search needs a budget: playouts or seconds")
    rng = generator(seed)
    log = PlayLog() if infer else None

    def choose(hand: Hand, seat: int) -> Move:
        known = known_hand(hand.view(seat))
        if known is not None:
            return best_move(known)
        return search(
            hand, seat, rng, playouts=playouts, seconds=seconds, playout=playout, learned=learned,
            exact_last_deal=exact_last_deal, own_view_replies=own_view_replies,
            deal=Hand.from_view if log is None else log.deal,
        )  # fmt: skip

    bot = thinking(choose)
    if log is None:
        return bot

    def play(hand: Hand) -> Move:  # every turn, forced moves too: the log reads each play
        seat = hand.to_play
        assert seat is not None and log is not None
        log.observe(hand.view(seat))
        move = bot(hand)
        log.played(hand, seat, move)
        return move

    return play


def search(
    hand: Hand,
    seat: int,
    rng: random.Random,
    *,
    playouts: int | None = 200,
    seconds: float | None = None,
    playout: str = "greedy",
    learned: bool = False,
    exact_last_deal: bool = False,
    own_view_replies: bool = False,
    deal: Callable[[View, random.Random], Hand] = Hand.from_view,
) -> Move:
    """The move ISMCTS chooses for `seat`, which must be to play, from `hand.view(seat)` only
    (the flags: the module's docstring)."""
    view = hand.view(seat)
    rules = hand.rules
    side_of = hand.side_of
    sides = hand.sides
    worth = worth_of(rules, sides)
    prefer = _preference(worth) if playout == "greedy" else None
    evaluate = _Evaluate(worth)
    settled = _settled if exact_last_deal else None
    finish = _greedy_playout(prefer, evaluate, settled) if prefer is not None else _random_playout(rng, evaluate, settled)
    root = Node()
    # The greedy bot's judgement of each move (or the learned one's) is the prior: a move's
    # value is its playouts' mean lead shrunk towards it, as if it were PRIOR playouts' worth of
    # evidence. Small budgets play about as the judgement does; large ones overrule it where
    # the playouts disagree.
    judge = Evaluation(view, worth) if learned else Judge(view, worth)
    prior = {m: judge.move(m) for m in hand.legal_moves()}
    base = evaluate(hand)[side_of[seat]]  # the lead now: root values are gains from here
    root_moves = hand.legal_moves()
    worlds: list[Hand] = []
    deadline = None if seconds is None else time.perf_counter() + seconds
    # Running mean and spread of the leads, so that the exploration term has the rewards' scale.
    count, mean, m2 = 0, 0.0, 0.0
    done = 0
    while True:
        if playouts is not None and done >= playouts:
            break
        if deadline is not None and done and time.perf_counter() >= deadline:
            break
        done += 1
        spread = math.sqrt(m2 / (count - 1)) if count > 1 else 1.0
        c = EXPLORATION * max(spread, 0.25)
        # The root move first (the root's moves are the same in every world), then the world:
        # a root move's k-th playout is played in world k, so that every root move is judged
        # in the same deals of the unseen cards (common random numbers): the differences
        # between root moves are not the luck of the deal.
        children = root.children
        untried = [m for m in root_moves if m not in children]
        if untried:  # the greedy judge's favourite first
            first = max(untried, key=lambda m: prior[m])
            child = children[first] = Node()
        else:
            first, best_score = root_moves[0], -math.inf
            log_n = math.log(done)
            for m in root_moves:
                child = children[m]
                value = (child.total - base * child.visits + PRIOR * prior[m]) / (child.visits + PRIOR)
                score = value + c * math.sqrt(log_n / child.visits)
                if score > best_score:
                    first, best_score = m, score
            child = children[first]
        k = child.visits
        while len(worlds) <= k:
            worlds.append(deal(view, rng))
        state = worlds[k].clone()
        stock = state.stock_size
        state.apply(first)
        node = child
        path: list[tuple[Node, int]] = [(child, side_of[seat])]
        while not untried and state.to_play is not None:
            mover = side_of[state.to_play]
            legal = state.legal_moves()
            children = node.children
            untried_here = [m for m in legal if m not in children]
            for m in legal:
                seen = children.get(m)
                if seen is not None:
                    seen.avail += 1
            if own_view_replies and mover != side_of[seat] and len(legal) > 1:
                # The opponent replies as it would knowing only its own cards in this deal.
                reply = Judge(state.view(state.to_play), worth)
                move = max(legal, key=reply.move)
                state.apply(move)
                replied = children.get(move)
                if replied is None:
                    child = children[move] = Node()
                    child.avail = 1
                    path.append((child, mover))
                    break
                node = replied
                path.append((node, mover))
                continue
            if untried_here:  # the move the playout policy likes best: replies are not random guesses
                move = prefer(state, untried_here) if prefer is not None else untried_here[rng.randrange(len(untried_here))]
                child = children[move] = Node()
                child.avail = 1
                state.apply(move)
                path.append((child, mover))
                break
            best, best_score = None, -math.inf
            for m in legal:
                child = children[m]
                score = child.total / child.visits + c * math.sqrt(math.log(child.avail) / child.visits)
                if score > best_score:
                    best, best_score = m, score
            assert best is not None
            node = children[best]
            state.apply(best)
            path.append((node, mover))
        leads = finish(state, stock)
        for child, mover in path:
            child.visits += 1
            child.total += leads[mover]
        lead = leads[side_of[seat]]
        count += 1
        delta = lead - mean
        mean += delta / count
        m2 += delta * (lead - mean)

    def judged(m: Move) -> float:
        child = root.children.get(m)
        n, total = (child.visits, child.total - base * child.visits) if child is not None else (0, 0.0)
        return (total + PRIOR * prior[m]) / (n + PRIOR)

    return max(hand.legal_moves(), key=judged)


class _Evaluate:
    """Each side's lead: the real one when the hand is over, else the worth of what it has
    captured (half a card's worth: `Worth.card` counts a card won *and* denied)."""

    def __init__(self, worth: Worth):
        self.card_worth, self.escoba = worth.card, worth.escoba

    def __call__(self, state: Hand) -> list[float]:
        if state.points is not None:
            return self.over(state.points)
        return self.captured(state.piles, state.escobas)

    def over(self, points: list[int]) -> list[float]:
        return leads([float(p) for p in points])

    def captured(self, piles: list[list[int]], escobas: list[int]) -> list[float]:
        card_worth, escoba = self.card_worth, self.escoba
        return leads([sum(card_worth[c] for c in pile) / 2 + escoba * e for pile, e in zip(piles, escobas)])


Settled = Callable[[Hand, int], bool] | None  # whether a playout's state is solved exactly from here


def _settled(state: Hand, stock: int) -> bool:
    """A playout that began before the last deal has reached it, with a play still to make, and
    every seat still holding cards knows every card (at most two seats hold any: each sees the
    other's hand as the cards it has not seen)."""
    return stock > 0 and state.stock_size == 0 and state.to_play is not None and sum(1 for h in state.hands if h) <= 2


def _random_playout(rng: random.Random, evaluate: _Evaluate, settled: Settled = None) -> Finish:
    def finish(state: Hand, stock: int) -> list[float]:
        while state.to_play is not None and not _past_horizon(state, stock):
            if settled is not None and settled(state, stock):
                return list(exact_leads(state))
            moves = state.legal_moves()
            state.apply(moves[rng.randrange(len(moves))])
        if settled is not None and settled(state, stock):
            return list(exact_leads(state))
        return evaluate(state)

    return finish


def _past_horizon(state: Hand, stock: int) -> bool:
    """Playouts stop once the next round has been dealt and its leader has played: what
    follows depends mostly on cards nobody has seen, which only adds noise."""
    return state.stock_size < stock and sum(map(len, state.hands)) < state.players * state.rules.hand_size


def _preference(worth: Worth) -> Callable[[Hand, list[Move]], Move]:
    """The light greedy policy: the capture worth most under the ruleset's scoring (an escoba
    included), else placing the card worth least."""
    card_worth, escoba = worth.card, worth.escoba

    def prefer(state: Hand, moves: list[Move]) -> Move:
        table = len(state.table)
        best, best_gain = moves[0], -math.inf
        for m in moves:
            card, take = m
            if take:
                gain = card_worth[card] + sum(card_worth[c] for c in take)
                if len(take) == table:
                    gain += escoba
            else:
                gain = -card_worth[card] - 1000.0
            if gain > best_gain:
                best, best_gain = m, gain
        return best

    return prefer


def _greedy_playout(prefer: Callable[[Hand, list[Move]], Move], evaluate: _Evaluate, settled: Settled = None) -> Finish:
    def finish(state: Hand, stock: int) -> list[float]:
        while state.to_play is not None and not _past_horizon(state, stock):
            if settled is not None and settled(state, stock):
                return list(exact_leads(state))
            state.apply(prefer(state, state.legal_moves()))
        if settled is not None and settled(state, stock):
            return list(exact_leads(state))
        return evaluate(state)

    return finish
