"""View 3: each ruleset played on its own from the same deck orders, side by side.

Hand `i` under A and hand `i` under B start from the same shuffle and the same seeded bots
(`escoba.simulate`'s seeds), so the difference between the two columns is the rules', not
the cards'. Every figure is a mean per hand with a 95% confidence interval; two figures whose
intervals overlap are reported as "within noise" rather than as a difference.

`escoba.simulate` keeps statistics per side. The diff also needs each category's points per
hand for all sides together (a "most" category gives its point to one side or nobody, so the
sides' figures are not independent and their intervals cannot simply be added); `Totals`
keeps those sums beside simulate's `Accumulator`, from the same hands.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from escoba.engine.hand import Hand
from escoba.simulate import Estimate, MatchStats, Stats


@dataclass
class Totals:
    """Per category, points per hand for all sides together: count, sum and sum of squares."""

    categories: tuple[str, ...]
    hands: int = 0
    sums: list[int] = field(default_factory=list)
    squares: list[int] = field(default_factory=list)
    total: int = 0
    total_sq: int = 0

    def __post_init__(self) -> None:
        if not self.sums:
            self.sums = [0] * len(self.categories)
            self.squares = [0] * len(self.categories)

    def add(self, hand: Hand) -> None:
        self.hands += 1
        assert hand.scores is not None and hand.points is not None
        for k, score in enumerate(hand.scores):
            p = sum(score.points)
            self.sums[k] += p
            self.squares[k] += p * p
        t = sum(hand.points)
        self.total += t
        self.total_sq += t * t

    def merge(self, other: Totals) -> Totals:
        if other.categories != self.categories:
            raise ValueError("cannot merge totals of different rulesets")
        self.hands += other.hands
        for k in range(len(self.categories)):
            self.sums[k] += other.sums[k]
            self.squares[k] += other.squares[k]
        self.total += other.total
        self.total_sq += other.total_sq
        return self

    def estimate(self, category: str) -> Estimate:
        k = self.categories.index(category)
        return Estimate.from_sums(self.hands, self.sums[k], self.squares[k])

    def total_estimate(self) -> Estimate:
        return Estimate.from_sums(self.hands, self.total, self.total_sq)


@dataclass(frozen=True)
class Row:
    """One compared figure: A's and B's estimates (None where a ruleset has no such thing)."""

    key: str
    label: str
    a: Estimate | None
    b: Estimate | None

    @property
    def verdict(self) -> str:
        """`same`, `within noise`, `higher under B`, `lower under B`, `only A`, `only B` or `—`."""
        a, b = self.a, self.b
        if a is None and b is None:
            return "—"
        if b is None:
            return "only A"
        if a is None:
            return "only B"
        if (a.mean, a.half) == (b.mean, b.half):
            return "same"  # the very same hands scored alike: not even noise
        if a.half is None or b.half is None:
            return "within noise" if a.mean == b.mean else ("higher under B" if b.mean > a.mean else "lower under B")
        if a.mean == b.mean or (a.low <= b.high and b.low <= a.high):  # type: ignore[operator]
            return "within noise"
        return "higher under B" if b.mean > a.mean else "lower under B"

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "label": self.label,
            "a": None if self.a is None else self.a.to_json(),
            "b": None if self.b is None else self.b.to_json(),
            "verdict": self.verdict,
        }


@dataclass(frozen=True)
class Simulated:
    """One ruleset's side of view 3; `reason` says why it could not be played."""

    stats: Stats | None
    totals: Totals | None
    matches: MatchStats | None
    reason: str | None = None


@dataclass(frozen=True)
class Comparison:
    hands: int
    matches: int
    seed: int
    players: int
    bots: tuple[str, ...]
    a: Simulated
    b: Simulated
    per_hand: tuple[Row, ...]  # categories, then total points and escobas
    per_match: tuple[Row, ...]  # hands per match, then each side's match wins

    def to_json(self) -> dict[str, Any]:
        return {
            "hands": self.hands,
            "matches": self.matches,
            "seed": self.seed,
            "players": self.players,
            "bots": list(self.bots),
            "confidence": 0.95,
            "a_unplayable": self.a.reason,
            "b_unplayable": self.b.reason,
            "per_hand": [r.to_json() for r in self.per_hand],
            "per_match": [r.to_json() for r in self.per_match],
            "sides": {
                "a": [list(s) for s in self.a.stats.side_seats] if self.a.stats else None,
                "b": [list(s) for s in self.b.stats.side_seats] if self.b.stats else None,
            },
        }


def compare(hands: int, matches: int, seed: int, players: int, bots: tuple[str, ...], a: Simulated, b: Simulated) -> Comparison:
    """Line up A's and B's figures: categories matched by id, A's order first."""
    cats_a = list(a.totals.categories) if a.totals else []
    cats_b = list(b.totals.categories) if b.totals else []
    rows: list[Row] = []
    for cat in cats_a + [c for c in cats_b if c not in cats_a]:
        rows.append(
            Row(
                f"points.{cat}",
                cat,
                a.totals.estimate(cat) if a.totals and cat in cats_a else None,
                b.totals.estimate(cat) if b.totals and cat in cats_b else None,
            )
        )
    rows.append(Row("points.total", "all points", _opt(a.totals, "total"), _opt(b.totals, "total")))
    rows.append(Row("escobas", "escobas made", a.stats.escobas if a.stats else None, b.stats.escobas if b.stats else None))
    per_match: list[Row] = []
    ma, mb = a.matches, b.matches
    if ma is not None or mb is not None:
        per_match.append(Row("hands_per_match", "hands per match", ma.hands_per_match if ma else None,
                             mb.hands_per_match if mb else None))  # fmt: skip
        sides = max(len(ma.win_rate) if ma else 0, len(mb.win_rate) if mb else 0)
        for s in range(sides):
            wa = ma.win_rate[s] if ma and s < len(ma.win_rate) else None
            wb = mb.win_rate[s] if mb and s < len(mb.win_rate) else None
            per_match.append(Row(f"match_wins.{s}", f"side {s} wins", wa, wb))
        if (ma and ma.shared) or (mb and mb.shared):
            per_match.append(Row("match_shared", "shared wins", _share(ma), _share(mb)))
    return Comparison(hands, matches, seed, players, tuple(bots), a, b, tuple(rows), tuple(per_match))


def _opt(totals: Totals | None, what: str) -> Estimate | None:
    return totals.total_estimate() if totals is not None else None


def _share(m: MatchStats | None) -> Estimate | None:
    if m is None:
        return None
    return Estimate.from_sums(m.matches, m.shared, m.shared)
