"""Paired statistics: A and B compared on the same deals, hand by hand and match by match.

Hand i is dealt from the same deck order, with the same seeded bots, under A and under B
(`escoba.simulate`'s seeds), and so is match j. A figure's difference is therefore measured
pair by pair: d_i = (B's figure in hand i) − (A's figure in hand i). Most of what makes one
hand differ from another (the cards) is the same on both sides of a pair, so the spread of the
d_i is much smaller than the spread of either side, and a real difference shows with far fewer
hands than two independent intervals would need.

Two kinds of interval, each the right one for its figure at any number of pairs:

- a figure with a value (points, escobas, hands per match): Student's t on the differences,
  mean(d) ± t(n−1) · sd(d) / √n. With many pairs t is the normal quantile; with few it is
  wider, as it must be (4 matches: 3.18, not 1.96). It is exact when the differences are
  normal; below `FEW_PAIRS` pairs it rests on that, and the report says so.
- a yes/no figure (the dealer's side wins the hand): only the discordant pairs (yes under A
  and no under B, or the reverse) carry information. Given D of them, the number that went B's
  way is binomial(D, π), and "no difference" is π = ½: McNemar's exact test. The interval on
  the difference of the two shares, q · (2π − 1) with q the share of pairs that are discordant,
  takes Clopper–Pearson bounds for π and for q (`YesNo.difference`): it excludes zero exactly
  when McNemar's test rejects at the same level, so the two never disagree, and a few
  discordant pairs among many that agree count for no more than McNemar's test says they do
  (a normal interval on the 0/1 differences would call 5 in 1,000, all one way, a difference).

Each interval is at a stated level (95%, or wider where several are read together:
escoba.diff.headlines) and carries the p-value of the test it inverts, so a label read off the
interval and a p-value printed beside it say the same thing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from escoba.diff.distributions import beta_quantile, t_quantile, t_two_sided

ALPHA = 0.05  # one interval on its own: 95%
FEW_PAIRS = 30  # below this many pairs a t interval rests on near-normal differences: the report warns


@dataclass(frozen=True)
class Difference:
    """B − A, paired: the mean difference and its interval [low, high] (None below 2 pairs) at
    `confidence`, with the two-sided p-value of "no difference" by the test the interval inverts.

    `method` is "t" (Student's t on the differences) or "exact" (a yes/no figure: McNemar)."""

    mean: float
    low: float | None
    high: float | None
    n: int
    p_value: float = 1.0
    confidence: float = 1 - ALPHA
    method: str = "t"

    @property
    def half(self) -> float | None:
        """Half the width of a symmetric (t) interval; None for an exact interval or none."""
        if self.low is None or self.high is None or self.method != "t":
            return None
        return (self.high - self.low) / 2

    @property
    def same(self) -> bool:
        """Every pair equal: not even noise."""
        return self.n > 0 and self.mean == 0 and self.low == 0 and self.high == 0

    @property
    def few(self) -> bool:
        """A t interval on fewer than FEW_PAIRS pairs: it rests on near-normal differences."""
        return self.method == "t" and 0 < self.n < FEW_PAIRS and not self.same

    @property
    def direction(self) -> str:
        """`higher under B`, `lower under B` (the interval excludes zero), `same` (every pair
        equal) or `within noise`: read off the interval, never off anything else."""
        if self.same:
            return "same"
        if self.low is None or self.high is None:
            return "within noise"
        if self.low > 0:
            return "higher under B"
        if self.high < 0:
            return "lower under B"
        return "within noise"

    def below(self, size: float) -> bool:
        """True when the whole interval lies within ±size: any difference is smaller than that."""
        return self.low is not None and self.high is not None and -size < self.low and self.high < size

    def to_json(self) -> dict[str, Any]:
        return {"mean": self.mean, "ci": [self.low, self.high] if self.low is not None else None,
                "confidence": self.confidence, "method": self.method, "p_value": self.p_value,
                "few_pairs": self.few}  # fmt: skip


@dataclass
class Pairs:
    """Integer sums over pairs (a, b) of one figure: enough for both means and the paired difference.

    `merge` of two chunks equals one run over both (integers: exact in any order)."""

    n: int = 0
    sum_a: int = 0
    sum_b: int = 0
    sum_d: int = 0
    sum_d2: int = 0

    def add(self, a: int, b: int) -> None:
        d = b - a
        self.n += 1
        self.sum_a += a
        self.sum_b += b
        self.sum_d += d
        self.sum_d2 += d * d

    def merge(self, other: Pairs) -> Pairs:
        self.n += other.n
        self.sum_a += other.sum_a
        self.sum_b += other.sum_b
        self.sum_d += other.sum_d
        self.sum_d2 += other.sum_d2
        return self

    def _spread(self) -> float | None:
        """The standard error of mean(d); None below 2 pairs."""
        n = self.n
        if n < 2:
            return None
        return math.sqrt(max(0.0, (self.sum_d2 - self.sum_d * self.sum_d / n) / (n - 1)) / n)

    def p_value(self) -> float:
        """Student's paired t test of "no difference", two-sided."""
        se = self._spread()
        if se is None or self.sum_d == 0:
            return 1.0
        return 0.0 if se == 0 else t_two_sided(self.sum_d / self.n / se, self.n - 1)

    def difference(self, alpha: float = ALPHA) -> Difference:
        """mean(d) ± t · sd(d)/√n, the two-sided (1 − alpha) Student t interval."""
        n = self.n
        if n == 0:
            return Difference(0.0, None, None, 0)
        if self.sum_d2 == 0:
            return Difference(0.0, 0.0, 0.0, n, 1.0, 1 - alpha)  # every pair equal
        mean, se = self.sum_d / n, self._spread()
        if se is None:
            return Difference(mean, None, None, n, 1.0, 1 - alpha)
        # se == 0: every pair moved by the same amount, shown without doubt.
        half = t_quantile(alpha, n - 1) * se if se else 0.0
        return Difference(mean, mean - half, mean + half, n, self.p_value(), 1 - alpha)


@dataclass
class YesNo(Pairs):
    """Pairs of a yes/no figure (1 for yes): its difference is McNemar's, exact at any size."""

    @property
    def a_only(self) -> int:
        return (self.sum_d2 - self.sum_d) // 2

    @property
    def b_only(self) -> int:
        return (self.sum_d2 + self.sum_d) // 2

    @property
    def both(self) -> int:
        return self.sum_a - self.a_only

    def p_value(self) -> float:
        """McNemar's exact test: two-sided binomial p-value of the discordant pairs' split."""
        return binomial_two_sided(min(self.a_only, self.b_only), self.a_only + self.b_only)

    def difference(self, alpha: float = ALPHA) -> Difference:
        """The share under B − the share under A, with an interval that excludes zero exactly
        when McNemar's exact test rejects "no difference" at `alpha`.

        With D discordant pairs among n, of which b went B's way: the difference is q(2π − 1)
        for q the share of discordant pairs and π the chance that one goes B's way. [π_L, π_U]
        is the Clopper–Pearson (1 − alpha) interval of b in D (its bounds cross ½ exactly when
        the exact binomial test does, the binomial at ½ being symmetric), and each end of the
        interval scales 2π − 1 by the Clopper–Pearson bound of q that moves it away from zero:
        a far end is only reached when π or q lies beyond its own bound on that side."""
        n, a, b = self.n, self.a_only, self.b_only
        discordant = a + b
        if n == 0:
            return Difference(0.0, None, None, 0, 1.0, 1 - alpha, "exact")
        if discordant == 0:
            return Difference(0.0, 0.0, 0.0, n, 1.0, 1 - alpha, "exact")
        half_alpha = alpha / 2
        pi_low = beta_quantile(half_alpha, b, discordant - b + 1) if b > 0 else 0.0
        pi_high = beta_quantile(1 - half_alpha, b + 1, discordant - b) if b < discordant else 1.0
        q_low = beta_quantile(half_alpha, discordant, n - discordant + 1)
        q_high = beta_quantile(1 - half_alpha, discordant + 1, n - discordant) if discordant < n else 1.0
        lo, hi = 2 * pi_low - 1, 2 * pi_high - 1
        low = lo * (q_high if lo < 0 else q_low)
        high = hi * (q_high if hi > 0 else q_low)
        return Difference((b - a) / n, low, high, n, self.p_value(), 1 - alpha, "exact")

    def test_json(self) -> dict[str, Any]:
        return {"pairs": self.n, "a_only": self.a_only, "b_only": self.b_only, "both": self.both,
                "test": "McNemar (exact binomial on the discordant pairs)", "p_value": self.p_value()}  # fmt: skip


def binomial_two_sided(k: int, n: int) -> float:
    """P(X ≤ k or X ≥ n − k) for X ~ Binomial(n, 1/2), k ≤ n/2: computed in logs, so it stays
    exact enough for a million pairs."""
    if n == 0:
        return 1.0
    k = min(k, n - k)
    log_half = n * math.log(0.5)
    lgn = math.lgamma(n + 1)
    tail = 0.0
    for i in range(k + 1):
        tail += math.exp(lgn - math.lgamma(i + 1) - math.lgamma(n - i + 1) + log_half)
    return min(1.0, 2 * tail) if 2 * k != n else 1.0


# --------------------------------------------------------------------------- per hand, per match
@dataclass
class PairedHands:
    """Hand i under A beside hand i under B, summed over hands."""

    categories: tuple[str, ...]  # the categories both rulesets score
    points: list[Pairs] = field(default_factory=list)  # per category, all sides together
    total: Pairs = field(default_factory=Pairs)
    escobas: Pairs = field(default_factory=Pairs)
    dealer_wins: YesNo = field(default_factory=YesNo)  # the dealer's side wins outright
    winner_changed: int = 0

    def __post_init__(self) -> None:
        if not self.points:
            self.points = [Pairs() for _ in self.categories]

    def add(self, a: HandResult, b: HandResult) -> None:
        for k, cat in enumerate(self.categories):
            self.points[k].add(a.points[cat], b.points[cat])
        self.total.add(a.total, b.total)
        self.escobas.add(a.escobas, b.escobas)
        self.dealer_wins.add(int(a.dealer_won), int(b.dealer_won))
        if a.winner != b.winner:
            self.winner_changed += 1

    def merge(self, other: PairedHands) -> PairedHands:
        for mine, theirs in zip(self.points, other.points):
            mine.merge(theirs)
        self.total.merge(other.total)
        self.escobas.merge(other.escobas)
        self.dealer_wins.merge(other.dealer_wins)
        self.winner_changed += other.winner_changed
        return self


@dataclass(frozen=True)
class HandResult:
    """What a finished hand contributes to the paired figures."""

    points: dict[str, int]  # per category, all sides together
    total: int
    escobas: int
    dealer_won: bool  # the dealer's side scored strictly more than every other side
    winner: frozenset[int] | None  # the seats of the side that won outright; None for a shared best

    @classmethod
    def of(cls, scores: Any, points: list[int], escobas: list[int], side_of: list[int], dealer: int) -> HandResult:
        best = max(points)
        leaders = [s for s, p in enumerate(points) if p == best]
        winner = None
        if len(leaders) == 1:
            winner = frozenset(seat for seat, side in enumerate(side_of) if side == leaders[0])
        return cls(
            {s.category: sum(s.points) for s in scores},
            sum(points),
            sum(escobas),
            winner is not None and dealer in winner,
            winner,
        )


@dataclass
class PairedMatches:
    """Match j under A beside match j under B, summed over matches. Per-side wins are paired
    only when A and B score the same sides (`sides` > 0)."""

    sides: int = 0
    hands: Pairs = field(default_factory=Pairs)
    first_dealer_wins: YesNo = field(default_factory=YesNo)  # the first dealer's side wins alone
    side_wins: list[YesNo] = field(default_factory=list)  # side s wins alone
    shared: YesNo = field(default_factory=YesNo)  # a shared win
    winner_changed: int = 0

    def __post_init__(self) -> None:
        if not self.side_wins:
            self.side_wins = [YesNo() for _ in range(self.sides)]

    def add(self, a: MatchResult, b: MatchResult) -> None:
        self.hands.add(a.hands, b.hands)
        self.first_dealer_wins.add(int(a.first_dealer_won), int(b.first_dealer_won))
        for s, pairs in enumerate(self.side_wins):
            pairs.add(int(a.alone == s), int(b.alone == s))
        self.shared.add(int(a.shared), int(b.shared))
        if a.winner != b.winner:
            self.winner_changed += 1

    def merge(self, other: PairedMatches) -> PairedMatches:
        self.hands.merge(other.hands)
        self.first_dealer_wins.merge(other.first_dealer_wins)
        for mine, theirs in zip(self.side_wins, other.side_wins):
            mine.merge(theirs)
        self.shared.merge(other.shared)
        self.winner_changed += other.winner_changed
        return self


@dataclass(frozen=True)
class MatchResult:
    hands: int
    first_dealer_won: bool
    winner: frozenset[int]  # the seats of the winning sides
    alone: int | None  # the side that won alone
    shared: bool

    @classmethod
    def of(cls, match: Any, sides: tuple[tuple[int, ...], ...], first_dealer: int) -> MatchResult:
        winners = match.winners or []
        seats = frozenset(seat for s in winners for seat in sides[s])
        alone = winners[0] if len(winners) == 1 else None
        return cls(match.hands_played, alone is not None and first_dealer in seats, seats, alone, len(winners) > 1)
