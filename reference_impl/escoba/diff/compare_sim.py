"""View 3: each ruleset played on its own from the same deck orders, side by side.

Hand `i` under A and hand `i` under B start from the same shuffle and the same seeded bots
(`escoba.simulate`'s seeds), so the difference between the two columns is the rules', not
the cards'. Every figure is a mean per hand with a 95% confidence interval, and every
difference B − A is measured pair by pair (`escoba.diff.paired`): its interval comes from the
per-hand (per-match) differences (Student's t, or McNemar's exact test for a yes/no figure),
and the verdict from that interval alone. The rows that are headlines (`escoba.diff.headlines`)
carry the headline's interval, corrected for the headlines being read together.

`escoba.simulate` keeps statistics per side. The diff also needs each category's points per
hand for all sides together (a "most" category gives its point to one side or nobody, so the
sides' figures are not independent and their intervals cannot simply be added); `Totals`
keeps those sums beside simulate's `Accumulator`, from the same hands.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from escoba.diff.headlines import Verdict
from escoba.diff.paired import ALPHA, Difference, PairedHands, PairedMatches, Pairs, YesNo
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
    """One compared figure: A's and B's estimates (None where a ruleset has no such thing) and
    the paired difference B − A (None when the figure cannot be paired); a headline row carries
    its headline's verdict, whose interval is its difference."""

    key: str
    label: str
    a: Estimate | None
    b: Estimate | None
    difference: Difference | None = None
    headline: Verdict | None = None

    @property
    def verdict(self) -> str:
        """`same`, `within noise`, `higher under B`, `lower under B`, `below` (a headline shown
        negligible), `only A`, `only B` or `—`: from the paired difference's interval when
        there is one."""
        a, b = self.a, self.b
        if a is None and b is None:
            return "—"
        if b is None:
            return "only A"
        if a is None:
            return "only B"
        if self.headline is not None:
            status = self.headline.status
            return "within noise" if status == "unresolved" else status
        if self.difference is not None:
            return self.difference.direction
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
            "difference": None if self.difference is None else self.difference.to_json(),
            "verdict": self.verdict,
            "headline": self.headline is not None,  # its difference is the headline's, corrected
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
    per_hand: tuple[Row, ...]  # categories, then total points, escobas, the dealer's side's wins
    per_match: tuple[Row, ...]  # hands per match, each side's match wins, the first dealer's side's wins
    tests: dict[str, YesNo] = field(default_factory=dict)  # McNemar: dealer_wins, first_dealer_wins
    winner_changed: dict[str, tuple[int, int]] = field(default_factory=dict)  # hands/matches: (changed, pairs)
    alpha: float = ALPHA  # the error of each row that is not a headline (less than 5% after several looks)

    def row(self, key: str) -> Row | None:
        return next((r for r in (*self.per_hand, *self.per_match) if r.key == key), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "hands": self.hands,
            "matches": self.matches,
            "seed": self.seed,
            "players": self.players,
            "bots": list(self.bots),
            "confidence": 0.95,
            "difference_confidence": 1 - self.alpha,
            "a_unplayable": self.a.reason,
            "b_unplayable": self.b.reason,
            "per_hand": [r.to_json() for r in self.per_hand],
            "per_match": [r.to_json() for r in self.per_match],
            "paired_tests": {key: t.test_json() for key, t in self.tests.items()},
            "winner_changed": {key: {"changed": c, "pairs": n, "share": c / n if n else None}
                               for key, (c, n) in self.winner_changed.items()},
            "sides": {
                "a": [list(s) for s in self.a.stats.side_seats] if self.a.stats else None,
                "b": [list(s) for s in self.b.stats.side_seats] if self.b.stats else None,
            },
        }


def compare(
    hands: int,
    matches: int,
    seed: int,
    players: int,
    bots: tuple[str, ...],
    a: Simulated,
    b: Simulated,
    paired: PairedHands | None = None,
    paired_matches: PairedMatches | None = None,
    alpha: float = ALPHA,
    headlines: tuple[Verdict, ...] = (),
) -> Comparison:
    """Line up A's and B's figures: categories matched by id, A's order first; differences
    paired hand by hand and match by match, with (1 − alpha) intervals, but the headline rows
    with their headline's corrected interval."""
    cats_a = list(a.totals.categories) if a.totals else []
    cats_b = list(b.totals.categories) if b.totals else []
    verdict_of = {v.headline.key: v for v in headlines}

    def row(key: str, label: str, ea: Estimate | None, eb: Estimate | None, pairs: Pairs | None) -> Row:
        verdict = verdict_of.get(key)
        if verdict is not None:
            return Row(key, label, ea, eb, verdict.difference, verdict)
        return Row(key, label, ea, eb, None if pairs is None else pairs.difference(alpha))

    rows: list[Row] = []
    for cat in cats_a + [c for c in cats_b if c not in cats_a]:
        k = paired.categories.index(cat) if paired is not None and cat in paired.categories else None
        rows.append(
            row(
                f"points.{cat}",
                cat,
                a.totals.estimate(cat) if a.totals and cat in cats_a else None,
                b.totals.estimate(cat) if b.totals and cat in cats_b else None,
                paired.points[k] if paired is not None and k is not None else None,
            )
        )
    rows.append(row("points.total", "all points", _opt(a.totals, "total"), _opt(b.totals, "total"),
                    paired.total if paired else None))  # fmt: skip
    rows.append(row("escobas", "escobas made", a.stats.escobas if a.stats else None, b.stats.escobas if b.stats else None,
                    paired.escobas if paired else None))  # fmt: skip
    tests: dict[str, YesNo] = {}
    changed: dict[str, tuple[int, int]] = {}
    if paired is not None:
        w = paired.dealer_wins
        rows.append(row("dealer_wins", "dealer's side wins the hand", _binary(w.n, w.sum_a), _binary(w.n, w.sum_b), w))
        tests["dealer_wins"] = w
        changed["hands"] = (paired.winner_changed, paired.total.n)
    per_match: list[Row] = []
    ma, mb, pm = a.matches, b.matches, paired_matches
    if ma is not None or mb is not None:
        per_match.append(row("hands_per_match", "hands per match", ma.hands_per_match if ma else None,
                             mb.hands_per_match if mb else None, pm.hands if pm else None))  # fmt: skip
        sides = max(len(ma.win_rate) if ma else 0, len(mb.win_rate) if mb else 0)
        for s in range(sides):
            wa = ma.win_rate[s] if ma and s < len(ma.win_rate) else None
            wb = mb.win_rate[s] if mb and s < len(mb.win_rate) else None
            pairs = pm.side_wins[s] if pm is not None and s < len(pm.side_wins) else None
            per_match.append(row(f"match_wins.{s}", f"side {s} wins", wa, wb, pairs))
        if pm is not None:
            f = pm.first_dealer_wins
            per_match.append(row("first_dealer_wins", "first dealer's side wins", _binary(f.n, f.sum_a),
                                 _binary(f.n, f.sum_b), f))  # fmt: skip
            tests["first_dealer_wins"] = f
            changed["matches"] = (pm.winner_changed, pm.hands.n)
        if (ma and ma.shared) or (mb and mb.shared):
            shared = pm.shared if pm else None
            per_match.append(row("match_shared", "shared wins", _share(ma), _share(mb), shared))
    return Comparison(hands, matches, seed, players, tuple(bots), a, b, tuple(rows), tuple(per_match), tests, changed, alpha)


def _binary(n: int, yes: int) -> Estimate:
    return Estimate.from_sums(n, yes, yes)


def _opt(totals: Totals | None, what: str) -> Estimate | None:
    return totals.total_estimate() if totals is not None else None


def _share(m: MatchStats | None) -> Estimate | None:
    if m is None:
        return None
    return Estimate.from_sums(m.matches, m.shared, m.shared)
