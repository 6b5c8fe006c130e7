"""The headline differences: the few rows a reader takes away from a diff, read together.

Four figures close `escoba diff` (all points per hand, escobas made per hand, hands the dealer's
side wins, hands per match), under each bot strength the run plays. A reader looks at all of
them at once and remembers whichever shows a difference, so each is not tested at 5% on its
own: with eight plain 95% intervals, a diff of a ruleset against a relabelled copy of itself
would claim something in more than a quarter of runs (benchmarks/diff_null.py: 28%). The
intervals of all the headline rows of a run are corrected together by Holm's step-down method
(Holm 1979): sorted by p-value, the first is tested at alpha/m, the next at alpha/(m − 1), …
until one shows no difference; that one and every later row keep that step's level. Each row's interval is printed at the level it
was tested at, so its label follows the interval beside it, and the chance that a run claims any
difference where there is none stays at most alpha (5% per look). The Holm-adjusted p-value
(`Verdict.adjusted_p`) is below alpha exactly when the row's interval excludes zero.

A headline is *negligible* when its whole interval lies within ± its size (`below`): decided
by the interval alone, before the direction, so a difference far smaller than the size is
`below` under every seed whose interval fits in the band, even one that also excludes zero
(read direction first, it came out `lower` under one seed and `below` under another).
Otherwise it is `higher` / `lower` when the interval excludes zero, `same` when every pair is
equal, or `unresolved`. A t interval on fewer than FEW_PAIRS pairs is
marked as such and does not count as resolved.

`--until-resolved` looks at the data several times (after 1, 2, 4, 8 … batches); the looks are
planned in advance (they depend only on the batch size and `--max-hands`), so every interval of
such a run is widened for all of them at once (Bonferroni: alpha / K per look, then Holm within
a look), and the reported conclusions keep their error rate whenever the run stops.

Two strengths: `escoba diff`'s default bots play the headlines under a strong and a weaker
strength (cli/diff.py, DEFAULT_BOTS); a row whose conclusion (higher, lower or negligible) is
not the same under both is *bot-sensitive*: what the rule does depends on how well it is
played. Where a strength leaves the row unresolved, the row is bot-sensitive only if the two
intervals have no value in common; otherwise the run cannot tell.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from escoba.diff.paired import ALPHA, Difference, PairedHands, PairedMatches, Pairs

SHOWN = ("higher under B", "lower under B")


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


def alpha_for(looks: int) -> float:
    """The error one of `looks` planned looks may spend, so that all of them spend ALPHA."""
    return ALPHA / max(1, looks)


@dataclass(frozen=True)
class Verdict:
    headline: Headline
    difference: Difference  # at the level Holm tested this row at
    adjusted_p: float = 1.0  # Holm-adjusted: below the run's alpha exactly when the interval excludes zero

    @property
    def status(self) -> str:
        """`below` (the whole interval within ± the headline's size: negligible), `same` (every
        pair equal), `higher under B` / `lower under B` (the interval excludes zero) or
        `unresolved`."""
        d = self.difference
        if d.same:
            return "same"
        if d.below(self.headline.size):
            return "below"
        return d.direction if d.direction in SHOWN else "unresolved"

    @property
    def conclusion(self) -> str:
        """What two strengths are compared on: `higher under B`, `lower under B`, `negligible`
        (same or below) or `unresolved`."""
        status = self.status
        return "negligible" if status in ("same", "below") else status

    @property
    def resolved(self) -> bool:
        """A conclusion, on enough pairs for its interval to be trusted."""
        return self.status != "unresolved" and not self.difference.few

    def to_json(self) -> dict[str, Any]:
        h = self.headline
        return {"key": h.key, "label": h.label, "size": h.size, "unit": h.unit, "difference": self.difference.to_json(),
                "pairs": self.difference.n, "status": self.status, "resolved": self.resolved,
                "p_corrected": self.adjusted_p}  # fmt: skip


def holm(family: Sequence[Pairs], alpha: float = ALPHA) -> list[tuple[Difference, float]]:
    """Each figure's difference at the level Holm's step-down method tests it at, and its
    Holm-adjusted p-value; in the order given."""
    m = len(family)
    p = [pairs.p_value() for pairs in family]
    out: list[tuple[Difference, float] | None] = [None] * m
    stopped: float | None = None  # the level of the first row that showed nothing
    adjusted = 0.0
    for rank, i in enumerate(sorted(range(m), key=lambda i: p[i])):
        level = stopped if stopped is not None else alpha / (m - rank)
        difference = family[i].difference(level)
        if stopped is None and difference.direction not in SHOWN:
            stopped = level
        adjusted = max(adjusted, min(1.0, (m - rank) * p[i]))
        out[i] = (difference, adjusted)
    return [row for row in out if row is not None]


def verdicts(
    strengths: Sequence[tuple[PairedHands | None, PairedMatches | None]], alpha: float = ALPHA
) -> tuple[tuple[Verdict, ...], ...]:
    """Per strength, its headline verdicts (none when B is not played), every headline row of
    every strength corrected together (Holm) for an error of `alpha`."""
    rows: list[tuple[int, Headline, Pairs]] = []
    for k, (paired, matches) in enumerate(strengths):
        if paired is None:
            continue
        source: dict[str, Pairs | None] = {
            "points.total": paired.total,
            "escobas": paired.escobas,
            "dealer_wins": paired.dealer_wins,
            "hands_per_match": matches.hands if matches is not None and matches.hands.n else None,
        }
        rows += [(k, h, pairs) for h in HEADLINES if (pairs := source[h.key]) is not None]
    found: list[list[Verdict]] = [[] for _ in strengths]
    for (k, h, _), (difference, adjusted) in zip(rows, holm([pairs for _, _, pairs in rows], alpha)):
        found[k].append(Verdict(h, difference, adjusted))
    return tuple(tuple(v) for v in found)


def _apart(x: Difference, y: Difference) -> bool:
    """Two intervals with no value in common."""
    if x.low is None or x.high is None or y.low is None or y.high is None:
        return False
    return x.high < y.low or y.high < x.low


def schedule(first: int, most: int) -> list[int]:
    """The planned looks: `first` hands, then doubling, the last at `most` (all ≥ 1)."""
    first = max(1, min(first, most))
    looks = [first]
    while looks[-1] < most:
        looks.append(min(most, looks[-1] * 2))
    return looks


@dataclass(frozen=True)
class Strength:
    """The headlines as one set of bots played them."""

    bots: tuple[str, ...]
    verdicts: tuple[Verdict, ...]

    def to_json(self) -> dict[str, Any]:
        return {"bots": list(self.bots), "headlines": [v.to_json() for v in self.verdicts]}


@dataclass(frozen=True)
class Resolution:
    """How far the hands went and which headline differences they settled.

    `looks` are the planned numbers of hands at which the data is looked at (one look without
    `--until-resolved`); `taken` how many were reached; `alpha` the error each look may spend,
    shared by the headline rows of every strength (Holm); `strengths` the bots' headlines, the
    run's own bots first, then the second strength when one was played."""

    until_resolved: bool
    looks: tuple[int, ...]
    taken: int
    alpha: float
    hands: int
    matches: int
    strengths: tuple[Strength, ...]

    @property
    def verdicts(self) -> tuple[Verdict, ...]:
        return self.strengths[0].verdicts if self.strengths else ()

    @property
    def second(self) -> Strength | None:
        return self.strengths[1] if len(self.strengths) > 1 else None

    @property
    def family(self) -> int:
        """How many headline rows were corrected together."""
        return sum(len(s.verdicts) for s in self.strengths)

    def sensitive(self, key: str) -> bool | None:
        """Does the headline's conclusion change between the two strengths?

        True when both reach a conclusion and they differ, or when one is unresolved but the two
        intervals have no value in common (whatever the difference is under one bot, it is not
        that under the other); False when both reach the same conclusion; None when it is
        unresolved under one and the intervals overlap, or under both (it cannot tell), or with
        one strength."""
        second = self.second
        if second is None:
            return None
        mine = next((v for v in self.verdicts if v.headline.key == key), None)
        theirs = next((v for v in second.verdicts if v.headline.key == key), None)
        if mine is None or theirs is None:
            return None
        if "unresolved" not in (mine.conclusion, theirs.conclusion):
            return mine.conclusion != theirs.conclusion
        return True if _apart(mine.difference, theirs.difference) else None

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
        first = self.strengths[0] if self.strengths else Strength((), ())
        return {
            "until_resolved": self.until_resolved,
            "stopped": self.stopped,
            "hands": self.hands,
            "matches": self.matches,
            "looks_planned": list(self.looks),
            "looks_taken": self.taken,
            "alpha": self.alpha,
            "correction": {"method": "holm", "rows": self.family},
            "bots": list(first.bots),
            "headlines": [{**v.to_json(), "bot_sensitive": self.sensitive(v.headline.key)} for v in first.verdicts],
            "second": None if self.second is None else self.second.to_json(),
        }
