"""Paired statistics: A and B compared on the same deals, hand by hand and match by match.

Hand i is dealt from the same deck order, with the same seeded bots, under A and under B
(`escoba.simulate`'s seeds), and so is match j. A figure's difference is therefore measured
pair by pair: d_i = (B's figure in hand i) − (A's figure in hand i), and its mean has the
interval mean(d) ± z · sd(d) / √n. Most of what makes one hand differ from another (the cards)
is the same on both sides of a pair, so sd(d) is much smaller than the spread of either side,
and a real difference shows with far fewer hands than two independent intervals would need.

For yes/no figures (did the dealer's side win the hand?) the paired test is McNemar's: only
the discordant pairs (yes under A and no under B, or the reverse) carry information, and under
"no difference" each discordant pair goes either way with probability 1/2 (an exact binomial
test).

`--until-resolved` looks at the data several times (after 1, 2, 4, 8 … batches); each look
would spend 5% of error if its interval were a plain 95% one. The looks are planned in advance
(they depend only on the batch size and `--max-hands`), so every interval of such a run is
widened for all of them at once (Bonferroni: 95% / K per look), and the reported intervals keep
95% coverage whenever the run stops.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any

from escoba.simulate import Z95, Estimate

CONFIDENCE = 0.95


def z_for(looks: int) -> float:
    """The two-sided normal quantile that keeps 95% coverage over `looks` planned looks."""
    if looks <= 1:
        return Z95
    return NormalDist().inv_cdf(1 - (1 - CONFIDENCE) / (2 * looks))


@dataclass(frozen=True)
class Difference(Estimate):
    """B − A, paired: the mean difference and its interval `mean ± half` (None below 2 pairs)."""

    @property
    def direction(self) -> str:
        """`higher under B`, `lower under B` (the interval excludes zero), `same` (every pair
        equal) or `within noise`."""
        if self.half == 0 and self.mean == 0:
            return "same"
        if self.half is None:
            return "within noise"
        if self.mean - self.half > 0:
            return "higher under B"
        if self.mean + self.half < 0:
            return "lower under B"
        return "within noise"

    def below(self, size: float) -> bool:
        """True when the whole interval lies within ±size: any difference is smaller than that."""
        return self.half is not None and -size < self.mean - self.half and self.mean + self.half < size

    def to_json(self) -> dict[str, Any]:
        return {"mean": self.mean, "ci": [self.low, self.high] if self.half is not None else None}


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

    def difference(self, z: float = Z95) -> Difference:
        n = self.n
        if n == 0:
            return Difference(0.0, None, 0)
        mean = self.sum_d / n
        if n < 2:
            return Difference(mean, None, n)
        variance = max(0.0, (self.sum_d2 - self.sum_d * self.sum_d / n) / (n - 1))
        return Difference(mean, z * math.sqrt(variance / n), n)


@dataclass
class Discordance:
    """A yes/no figure on pairs: how often it holds under A only, under B only, under both."""

    a_only: int = 0
    b_only: int = 0
    both: int = 0
    n: int = 0

    def add(self, a: bool, b: bool) -> None:
        self.n += 1
        if a and b:
            self.both += 1
        elif a:
            self.a_only += 1
        elif b:
            self.b_only += 1

    def merge(self, other: Discordance) -> Discordance:
        self.a_only += other.a_only
        self.b_only += other.b_only
        self.both += other.both
        self.n += other.n
        return self

    def p_value(self) -> float:
        """McNemar's exact test: two-sided binomial p-value of the discordant pairs' split."""
        return binomial_two_sided(min(self.a_only, self.b_only), self.a_only + self.b_only)

    def to_json(self) -> dict[str, Any]:
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
    dealer_wins: Discordance = field(default_factory=Discordance)  # the dealer's side wins outright
    dealer_wins_pairs: Pairs = field(default_factory=Pairs)
    winner_changed: int = 0

    def __post_init__(self) -> None:
        if not self.points:
            self.points = [Pairs() for _ in self.categories]

    def add(self, a: HandResult, b: HandResult) -> None:
        for k, cat in enumerate(self.categories):
            self.points[k].add(a.points[cat], b.points[cat])
        self.total.add(a.total, b.total)
        self.escobas.add(a.escobas, b.escobas)
        self.dealer_wins.add(a.dealer_won, b.dealer_won)
        self.dealer_wins_pairs.add(int(a.dealer_won), int(b.dealer_won))
        if a.winner != b.winner:
            self.winner_changed += 1

    def merge(self, other: PairedHands) -> PairedHands:
        for mine, theirs in zip(self.points, other.points):
            mine.merge(theirs)
        self.total.merge(other.total)
        self.escobas.merge(other.escobas)
        self.dealer_wins.merge(other.dealer_wins)
        self.dealer_wins_pairs.merge(other.dealer_wins_pairs)
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
    first_dealer_wins: Discordance = field(default_factory=Discordance)  # the first dealer's side wins alone
    first_dealer_wins_pairs: Pairs = field(default_factory=Pairs)
    side_wins: list[Pairs] = field(default_factory=list)  # side s wins alone
    shared: Pairs = field(default_factory=Pairs)  # a shared win
    winner_changed: int = 0

    def __post_init__(self) -> None:
        if not self.side_wins:
            self.side_wins = [Pairs() for _ in range(self.sides)]

    def add(self, a: MatchResult, b: MatchResult) -> None:
        self.hands.add(a.hands, b.hands)
        self.first_dealer_wins.add(a.first_dealer_won, b.first_dealer_won)
        self.first_dealer_wins_pairs.add(int(a.first_dealer_won), int(b.first_dealer_won))
        for s, pairs in enumerate(self.side_wins):
            pairs.add(int(a.alone == s), int(b.alone == s))
        self.shared.add(int(a.shared), int(b.shared))
        if a.winner != b.winner:
            self.winner_changed += 1

    def merge(self, other: PairedMatches) -> PairedMatches:
        self.hands.merge(other.hands)
        self.first_dealer_wins.merge(other.first_dealer_wins)
        self.first_dealer_wins_pairs.merge(other.first_dealer_wins_pairs)
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


# --------------------------------------------------------------------------- headlines
@dataclass(frozen=True)
class Headline:
    """A difference `--until-resolved` plays on for, and the size below which it is negligible."""

    key: str
    label: str
    size: float
    unit: str


HEADLINES = (
    Headline("points.total", "all points per hand", 0.1, "points"),
    Headline("escobas", "escobas made per hand", 0.1, "escobas"),
    Headline("dealer_wins", "hands won by the dealer's side", 0.02, "share"),
    Headline("hands_per_match", "hands per match", 0.25, "hands"),
)


@dataclass(frozen=True)
class Verdict:
    headline: Headline
    difference: Difference
    exact: bool = True  # False: a yes/no headline whose McNemar test does not reject "no difference"

    @property
    def status(self) -> str:
        """`higher under B` / `lower under B` (a difference shown), `below SIZE` (shown to be
        smaller than the headline's size), `same` (identical in every pair) or `unresolved`."""
        d = self.difference.direction
        if d == "same" or (d in ("higher under B", "lower under B") and self.exact):
            return d
        if self.difference.below(self.headline.size):
            return "below"
        return "unresolved"

    @property
    def resolved(self) -> bool:
        return self.status != "unresolved"

    def to_json(self) -> dict[str, Any]:
        h = self.headline
        return {"key": h.key, "label": h.label, "size": h.size, "unit": h.unit, "difference": self.difference.to_json(),
                "pairs": self.difference.n, "status": self.status, "resolved": self.resolved}  # fmt: skip


def schedule(first: int, most: int) -> list[int]:
    """The planned looks: `first` hands, then doubling, the last at `most` (all ≥ 1)."""
    first = max(1, min(first, most))
    looks = [first]
    while looks[-1] < most:
        looks.append(min(most, looks[-1] * 2))
    return looks


@dataclass(frozen=True)
class Resolution:
    """How far the hands went and which headline differences they settled.

    `looks` are the planned numbers of hands at which the data is looked at (one look without
    `--until-resolved`); `taken` how many were reached; `z` the quantile of every difference's
    interval (1.96 for one look, wider for several)."""

    until_resolved: bool
    looks: tuple[int, ...]
    taken: int
    z: float
    hands: int
    matches: int
    verdicts: tuple[Verdict, ...]

    @property
    def resolved(self) -> bool:
        return all(v.resolved for v in self.verdicts)

    @property
    def stopped(self) -> str:
        """`resolved`, `max_hands` (the last planned look was reached) or `single run`."""
        if not self.until_resolved:
            return "single run"
        return "resolved" if self.resolved else "max_hands"

    def to_json(self) -> dict[str, Any]:
        return {
            "until_resolved": self.until_resolved,
            "stopped": self.stopped,
            "hands": self.hands,
            "matches": self.matches,
            "looks_planned": list(self.looks),
            "looks_taken": self.taken,
            "z": self.z,
            "headlines": [v.to_json() for v in self.verdicts],
        }


def verdicts(paired: PairedHands | None, matches: PairedMatches | None, z: float) -> tuple[Verdict, ...]:
    """The headline differences, paired, at the quantile `z` (none when B is not played)."""
    if paired is None:
        return ()
    source: dict[str, Pairs | None] = {
        "points.total": paired.total,
        "escobas": paired.escobas,
        "dealer_wins": paired.dealer_wins_pairs,
        "hands_per_match": matches.hands if matches is not None and matches.hands.n else None,
    }
    alpha = 2 * (1 - NormalDist().cdf(z))
    out = []
    for h in HEADLINES:
        pairs = source[h.key]
        if pairs is not None:
            out.append(Verdict(h, pairs.difference(z), h.unit != "share" or mcnemar(pairs) < alpha))
    return tuple(out)


def mcnemar(pairs: Pairs) -> float:
    """McNemar's exact p-value for a yes/no figure kept as Pairs of 0s and 1s."""
    a_only, b_only = (pairs.sum_d2 - pairs.sum_d) // 2, (pairs.sum_d2 + pairs.sum_d) // 2
    return binomial_two_sided(min(a_only, b_only), a_only + b_only)
