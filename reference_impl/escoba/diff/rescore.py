"""View 2: the same games scored both ways.

A hand is played under ruleset A (by seeded bots, or taken from a transcript), then replayed
move by move under B: the same cards reach the same seats in the same rounds, every move must
be legal under B, and B's own rules decide the opening table, escobas, leftovers and scores.
Comparing the two scorings per category shows what B's rules do to the very same game: the
points that moved, from which side to which, and how often the hand's winner changes.

"The same deal" means the same table and the same cards to each seat, not the same deck
order: a ruleset that turns the table before the hands (sv) deals the same game from another
order, which `order_for` computes. When play itself differs (compulsory capture, the opening
table, turn order, deal sizes, a player count B does not allow), a hand may not replay; the
tally says which hands and why (the first illegal move with its reason, or the differing
opening or deal).

When no rule that shapes play or piles differs at this table (`play_equivalent`), replaying
gives exactly A's piles and escobas, so B only rescores them: that is the common case of two
rulesets that differ in scoring alone, and every hand replays.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from escoba.engine.deal import Deal, deal_plan, order_for
from escoba.engine.hand import DeckError, Hand
from escoba.engine.scoring import CategoryScore, score_hand
from escoba.errors import EscobaError, IllegalMoveError
from escoba.game.moves import Move
from escoba.rules.compile import Rules
from escoba.rules.points import POINTS

MAX_EXAMPLES = 5  # failed replays quoted per reason


# --------------------------------------------------------------------------- one hand
@dataclass
class Played:
    """A hand as played under A: enough to play it again under B."""

    label: str  # "hand 12", "case opening.x hand 1"
    players: int
    dealer: int
    deal: Deal
    moves: list[tuple[int, Move]]
    hand: Hand  # A's finished hand
    opening: tuple[tuple[int, ...], bool, int]  # A's table for the first play, set aside?, dealer's escobas


def record(hand: Hand, label: str, play: Any) -> Played:
    """Play `hand` to its end with `play(hand) -> Move`, keeping every move."""
    moves: list[tuple[int, Move]] = []
    deal = deal_plan(hand.rules, hand.players, hand.dealer, hand.deck_orders[-1])
    opening = (tuple(hand.table), bool(hand.set_aside), sum(hand.escobas))
    while hand.to_play is not None:
        seat = hand.to_play
        move = play(hand)
        hand.apply(move)
        moves.append((seat, Move(move[0], tuple(sorted(move[1])))))
    return Played(label, hand.players, hand.dealer, deal, moves, hand, opening)


@dataclass(frozen=True)
class Outcome:
    """B's scoring of a replayed hand, or why it could not be replayed."""

    scores: list[CategoryScore] | None
    points: list[int] | None
    side_of: list[int] | None
    kind: str | None = None  # deck | players | deal | opening | turn | illegal
    reason: str | None = None


def play_equivalent(a: Rules, b: Rules, players: int) -> bool:
    """True when, at this table, B plays every game exactly as A and builds the same piles:
    every rule point that play depends on (`RulePoint.in_play`) is the same under both."""
    if players not in b.player_counts:
        return False
    return all(rule.play_key(a, players) == rule.play_key(b, players) for rule in POINTS if rule.in_play)


def _deck_difference(a: Rules, b: Rules) -> str:
    """Why A's cards are not B's: their number, or the first card each names differently."""
    if len(a.deck) != len(b.deck):
        return f"the decks differ ({len(a.deck)} cards under {a.id}, {len(b.deck)} under {b.id})"
    c = next(i for i, (x, y) in enumerate(zip(a.deck.code, b.deck.code)) if x != y)
    return f"the decks name their cards differently ({a.deck.text[c]} under {a.id} is {b.deck.text[c]} under {b.id})"


class Replayer:
    """Replays hands played under `a` under `b` at a table of `players`."""

    def __init__(self, a: Rules, b: Rules, players: int, *, force_replay: bool = False):
        self.a, self.b, self.players = a, b, players
        self.shortcut = not force_replay and play_equivalent(a, b, players)
        self.blocked: tuple[str, str] | None = None
        if players not in b.player_counts:
            counts = ", ".join(map(str, b.player_counts))
            self.blocked = ("players", f"{b.id} is played by {counts} players, not {players}")
        elif a.deck.code != b.deck.code:
            self.blocked = ("deck", _deck_difference(a, b))
        elif a.deck.value != b.deck.value:
            self.blocked = ("deck", "the capture values of the cards differ")
        sides = b.sides(players) if self.blocked is None or self.blocked[0] != "players" else ()
        self.b_side_of = [0] * players
        for s, seats in enumerate(sides):
            for seat in seats:
                self.b_side_of[seat] = s

    def replay(self, played: Played) -> Outcome:
        if self.blocked is not None:
            return Outcome(None, None, None, *self.blocked)
        a_hand = played.hand
        # B's measures may read the hand's history: A's hand has it only if A's measures did too.
        # B's declarations (categories measured on dealt cards) are B's own: its hand replays.
        if self.shortcut and (not self.b.needs_history or a_hand.captures is not None) and not self.b.declarations:
            scores = score_hand(self.b, a_hand.piles, a_hand.escobas, a_hand.history())
            return Outcome(scores, _points(scores, len(a_hand.piles)), self.b_side_of)
        b, deck = self.b, self.b.deck
        order = order_for(b, played.players, played.dealer, played.deal)
        try:
            same_deal = deal_plan(b, played.players, played.dealer, order) == played.deal
        except EscobaError as error:  # e.g. a stock B cannot deal in whole rounds
            return Outcome(None, None, None, "deal", f"the deal differs: {error}")
        if not same_deal:
            return Outcome(None, None, None, "deal", _deal_reason(self.a, b))
        try:
            hand = Hand(b, played.players, played.dealer, [order], record=False)
        except DeckError:  # the opening table asks for a redeal that A did not make
            return Outcome(None, None, None, "opening", f"the opening table {_cards(deck, played.deal.table)} is dealt again under {b.id}")
        except EscobaError as error:  # e.g. a stock B cannot deal in whole rounds
            return Outcome(None, None, None, "deal", f"the deal differs: {error}")
        if sorted(hand.table) != sorted(played.opening[0]):
            return Outcome(None, None, None, "opening", _opening_reason(self.a, b, played, hand))
        for k, (seat, move) in enumerate(played.moves, 1):
            if hand.to_play != seat:
                return Outcome(None, None, None, "turn",
                               f"play {k}: seat {seat} played under {self.a.id}, but seat {hand.to_play} is to play under {b.id}")  # fmt: skip
            try:
                hand.apply(move)
            except IllegalMoveError as error:
                return Outcome(None, None, None, "illegal", f"play {k}: seat {seat} {_move(deck, move)}: {error.reason}")
        if not hand.is_over:  # cannot happen with the same deal; say so rather than score half a hand
            return Outcome(None, None, None, "deal", f"the hand is not over under {b.id} after the same plays")
        assert hand.scores is not None and hand.points is not None
        return Outcome(hand.scores, hand.points, hand.side_of)


def _points(scores: list[CategoryScore], sides: int) -> list[int]:
    return [sum(s.points[side] for s in scores) for side in range(sides)]


def _cards(deck: Any, cards: Iterable[int]) -> str:
    return " ".join(deck.text[c] for c in cards)


def _move(deck: Any, move: Move) -> str:
    text = deck.text[move.card]
    return f"{text} x {_cards(deck, move.take)}" if move.take else f"{text} (placed)"


def _deal_reason(a: Rules, b: Rules) -> str:
    if (a.hand_size, a.table_size) != (b.hand_size, b.table_size):
        return (f"the deal differs: {a.hand_size} cards each and {a.table_size} on the table under {a.id}, "
                f"{b.hand_size} and {b.table_size} under {b.id}")  # fmt: skip
    return f"the deal differs: {b.id} cannot deal the same cards to the same seats"


def _opening_reason(a: Rules, b: Rules, played: Played, b_hand: Hand) -> str:
    table = _cards(b.deck, played.deal.table)
    a_table, a_aside, a_escobas = played.opening
    return (f"the opening table {table}: {_what_happened(a_table, a_aside, a_escobas)} under {a.id}, "
            f"{_what_happened(tuple(b_hand.table), bool(b_hand.set_aside), sum(b_hand.escobas))} under {b.id}")  # fmt: skip


def _what_happened(table: tuple[int, ...], set_aside: bool, escobas: int) -> str:
    if table:
        return "it stays on the table"
    if set_aside:
        return "it is set aside"
    return "the dealer takes it" + (f" ({escobas} escoba{'s' if escobas != 1 else ''})" if escobas else " (no escoba)")


# --------------------------------------------------------------------------- the tally
@dataclass
class Tally:
    """Rescoring results summed over hands; `merge` of two chunks equals one run over both.

    Sides are named by where they sit from the dealer (0: the dealer's side, 1: the next side
    in the direction of play, ...), since the deal rotates and raw side numbers mean nothing.
    Flows are kept only when A and B have the same sides.
    """

    categories: tuple[str, ...]
    sides: int
    same_sides: bool
    hands: int = 0
    replayed: int = 0
    points_a: list[int] = field(default_factory=list)  # per category: all sides together
    points_b: list[int] = field(default_factory=list)
    changed: list[int] = field(default_factory=list)  # hands in which the category's award changed
    diff_sq: list[int] = field(default_factory=list)  # per category: sum over hands of (B's points − A's)²
    flows: list[dict[tuple[int, int], list[int]]] = field(default_factory=list)  # (from, to) -> [hands, points]; -1 nobody
    total_a: int = 0
    total_b: int = 0
    total_diff_sq: int = 0
    winner_changed: int = 0
    failures: dict[str, int] = field(default_factory=dict)
    examples: dict[str, list[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        n = len(self.categories)
        for name in ("points_a", "points_b", "changed", "diff_sq"):
            if not getattr(self, name):
                setattr(self, name, [0] * n)
        if not self.flows:
            self.flows = [{} for _ in range(n)]

    def add(self, played: Played, outcome: Outcome) -> None:
        self.hands += 1
        if outcome.scores is None:
            kind = outcome.kind or "illegal"
            self.failures[kind] = self.failures.get(kind, 0) + 1
            examples = self.examples.setdefault(kind, [])
            if len(examples) < MAX_EXAMPLES:
                examples.append(f"{played.label}: {outcome.reason}")
            return
        self.replayed += 1
        a_hand = played.hand
        assert a_hand.scores is not None and a_hand.points is not None and outcome.points is not None
        a_by = {s.category: s.points for s in a_hand.scores}
        b_by = {s.category: s.points for s in outcome.scores}
        dealer_side = a_hand.side_of[played.dealer]
        sides = self.sides
        for k, cat in enumerate(self.categories):
            pa, pb = a_by.get(cat), b_by.get(cat)
            ta, tb = sum(pa or ()), sum(pb or ())
            self.points_a[k] += ta
            self.points_b[k] += tb
            self.diff_sq[k] += (tb - ta) ** 2
            if not self.same_sides:
                if ta != tb:
                    self.changed[k] += 1
                continue
            va = list(pa) if pa is not None else [0] * sides
            vb = list(pb) if pb is not None else [0] * sides
            if va == vb:
                continue
            self.changed[k] += 1
            role = [(s - dealer_side) % sides for s in range(sides)]
            for (src, dst), moved in _flows(va, vb):
                key = (role[src] if src >= 0 else -1, role[dst] if dst >= 0 else -1)
                cell = self.flows[k].setdefault(key, [0, 0])
                cell[0] += 1
                cell[1] += moved
        points_a, points_b, sides_b = a_hand.points, outcome.points, outcome.side_of
        assert points_a is not None and points_b is not None and sides_b is not None  # both were scored
        self.total_a += sum(points_a)
        self.total_b += sum(points_b)
        self.total_diff_sq += (sum(points_b) - sum(points_a)) ** 2
        if _winner_changed(_winner(points_a, a_hand.side_of), _winner(points_b, sides_b)):
            self.winner_changed += 1

    def merge(self, other: Tally) -> Tally:
        if (other.categories, other.sides) != (self.categories, self.sides):
            raise ValueError("cannot merge tallies of different comparisons")
        self.hands += other.hands
        self.replayed += other.replayed
        for k in range(len(self.categories)):
            self.points_a[k] += other.points_a[k]
            self.points_b[k] += other.points_b[k]
            self.changed[k] += other.changed[k]
            self.diff_sq[k] += other.diff_sq[k]
            for key, (hands, points) in other.flows[k].items():
                cell = self.flows[k].setdefault(key, [0, 0])
                cell[0] += hands
                cell[1] += points
        self.total_a += other.total_a
        self.total_b += other.total_b
        self.total_diff_sq += other.total_diff_sq
        self.winner_changed += other.winner_changed
        for kind, count in other.failures.items():
            self.failures[kind] = self.failures.get(kind, 0) + count
            mine = self.examples.setdefault(kind, [])
            mine.extend(other.examples.get(kind, [])[: MAX_EXAMPLES - len(mine)])
        return self


def _flows(before: list[int], after: list[int]) -> list[tuple[tuple[int, int], int]]:
    """Pair the sides that lost points with those that gained them; -1 is nobody."""
    losses = [[s, a - b] for s, (a, b) in enumerate(zip(before, after)) if a > b]
    gains = [[s, b - a] for s, (a, b) in enumerate(zip(before, after)) if b > a]
    out: list[tuple[tuple[int, int], int]] = []
    while losses and gains:
        moved = min(losses[0][1], gains[0][1])
        out.append(((losses[0][0], gains[0][0]), moved))
        losses[0][1] -= moved
        gains[0][1] -= moved
        if not losses[0][1]:
            losses.pop(0)
        if not gains[0][1]:
            gains.pop(0)
    out.extend(((s, -1), n) for s, n in losses)
    out.extend(((-1, s), n) for s, n in gains)
    return out


def _winner(points: Sequence[int], side_of: Sequence[int]) -> frozenset[int] | None:
    """The seats of the side that won the hand outright; None for a shared best score."""
    best = max(points)
    leaders = [s for s, p in enumerate(points) if p == best]
    if len(leaders) != 1:
        return None
    return frozenset(seat for seat, side in enumerate(side_of) if side == leaders[0])


def _winner_changed(a: frozenset[int] | None, b: frozenset[int] | None) -> bool:
    """A change of winner; with different sides (partners under A, each alone under B) the
    winner is the same when one winning set of seats contains the other."""
    if a is None or b is None:
        return (a is None) != (b is None)
    return not (a <= b or b <= a)


def category_union(a: Rules, b: Rules) -> tuple[str, ...]:
    """A's categories in A's order, then B's own."""
    ids = [c.id for c in a.categories]
    return tuple(ids + [c.id for c in b.categories if c.id not in ids])


def new_tally(a: Rules, b: Rules, players: int) -> Tally:
    sides_a = a.sides(players)
    sides_b = b.sides(players) if players in b.player_counts else ()
    return Tally(category_union(a, b), len(sides_a), tuple(sides_a) == tuple(sides_b))


def role_name(role: int, sides: int) -> str:
    if role < 0:
        return "nobody"
    return "dealer's side" if role == 0 else f"dealer+{role}"
