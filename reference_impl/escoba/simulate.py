"""Many independent hands (or matches) between bots, summarised as streaming statistics.

    >>> from escoba.simulate import simulate
    >>> stats = simulate("base", hands=2000, players=2, seed=1)
    >>> stats.points["primera"][0]          # Estimate(mean, half_width): points per hand, side 0
    >>> stats.to_json()

Reproducibility is the contract (seeds version 2, `SEED_VERSION`). Hand `i` depends on
`(seed, i)` and nothing else:

- it has one generator, `random.Random(hand_seed(seed, i))`;
- its deck orders are shuffled from that generator first (`shuffled_decks`), redeals included;
- then every seat's bot draws from the same generator, in the order the seats play;
- seat `i % players` deals, so every seat deals equally often and no side is favoured by the deal.

So the same seed gives the same numbers on any machine, and `jobs=J` gives exactly the numbers of
`jobs=1`: the index range is cut into chunks, each chunk returns an `Accumulator` of integer
sums, and the sums are merged in chunk order (integers, so merging is exact). Two rulesets with
the same deck simulated with the same seed see the same shuffles, which makes their difference
less noisy.

When every seat is the random bot and the ruleset is one the fused path implements
(`escoba.engine.fused`), the hands are played by that path, which plays exactly the hands
`Hand` would (tests/test_fused.py); otherwise by `Hand` and the bots.

Memory is constant in the number of hands: only counts, sums and sums of squares are kept.
Matches work the same way with `simulate_matches` (match `j` from `match_seed(seed, j)`).
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from escoba.engine.bots import bot_maker
from escoba.engine.fused import Fused, fused
from escoba.engine.hand import Hand, shuffled_decks
from escoba.engine.match import Match
from escoba.errors import EscobaError
from escoba.rules.compile import Rules, compile_rules

__all__ = [
    "SEED_VERSION",
    "Z95",
    "Accumulator",
    "Estimate",
    "MatchAccumulator",
    "MatchStats",
    "Stats",
    "derive_seed",
    "hand_seed",
    "match_seed",
    "simulate",
    "simulate_matches",
]

Z95 = 1.959963984540054  # two-sided 95% quantile of the normal distribution
CHUNK = 1000  # hands per unit of work: small enough for a smooth progress bar, big enough to amortise a process hop

Progress = Callable[[int, int], None]  # (done, total), called in the calling process


SEED_VERSION = 2  # 1: three generators per hand (deal, and one per seat); 2: one per hand (docs/simulate.md)


def derive_seed(seed: int, *path: int | str) -> int:
    """A 64-bit seed from a seed and a path such as `("hand", 12, "deal")`.

    A hash, not `seed + i`: neighbouring seeds must not give overlapping streams, and the
    value must not depend on the process, the platform or `PYTHONHASHSEED`.
    """
    text = ":".join(str(p) for p in (int(seed), *path)).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big")


def hand_seed(seed: int, i: int, kind: str = "hand") -> int:
    """The seed of hand `i`'s generator: `derive_seed(seed, kind)` in the low 64 bits and `i`
    above them. Distinct for every (seed, i), and one hash per run instead of one per hand:
    seeding a generator is already a third of what a simulated hand costs."""
    return int(i) << 64 | derive_seed(seed, kind)


def match_seed(seed: int, j: int) -> int:
    """The seed of match `j`'s generator (its deals and its bots)."""
    return hand_seed(seed, j, "match")


# ---------------------------------------------------------------------------------- estimates
@dataclass(frozen=True)
class Estimate:
    """A mean and its 95% confidence interval `mean ± half` (normal approximation).

    `half` is None when there are fewer than two observations: no interval can be given.
    """

    mean: float
    half: float | None
    n: int

    @property
    def low(self) -> float | None:
        return None if self.half is None else self.mean - self.half

    @property
    def high(self) -> float | None:
        return None if self.half is None else self.mean + self.half

    @classmethod
    def from_sums(cls, n: int, total: float, squares: float) -> Estimate:
        if n <= 0:
            return cls(0.0, None, 0)
        mean = total / n
        if n < 2:
            return cls(mean, None, n)
        variance = max(0.0, (squares - total * total / n) / (n - 1))  # max: rounding can dip below 0
        return cls(mean, Z95 * math.sqrt(variance / n), n)

    def to_json(self) -> dict[str, Any]:
        return {"mean": self.mean, "ci95": [self.low, self.high] if self.half is not None else None}


# ---------------------------------------------------------------------------------- hands
@dataclass
class Accumulator:
    """Integer sums over hands; `merge` of two chunks equals one run over both."""

    categories: tuple[str, ...]
    sides: int
    hands: int = 0
    points: list[int] = field(default_factory=list)  # [category * sides + side]
    points_sq: list[int] = field(default_factory=list)
    total: list[int] = field(default_factory=list)  # hand points per side
    total_sq: list[int] = field(default_factory=list)
    escobas: list[int] = field(default_factory=list)  # per side (opening escobas included)
    escobas_sq: list[int] = field(default_factory=list)
    escobas_hand: int = 0  # all sides together, per hand
    escobas_hand_sq: int = 0
    wins: list[int] = field(default_factory=list)  # hands a side won outright
    tied: int = 0  # hands whose best score was shared
    opening_taken: int = 0  # hands where the dealer took the opening table
    opening_escobas: int = 0
    opening_set_aside: int = 0
    redeals: int = 0

    def __post_init__(self) -> None:
        cells = len(self.categories) * self.sides
        for name, size in (("points", cells), ("points_sq", cells), ("total", self.sides), ("total_sq", self.sides),
                           ("escobas", self.sides), ("escobas_sq", self.sides), ("wins", self.sides)):  # fmt: skip
            if not getattr(self, name):
                setattr(self, name, [0] * size)

    def add(self, hand: Hand, opening: tuple[int, int, int, int]) -> None:
        """Count one finished hand; `opening` is (taken, escobas, set aside, redeals) at the deal."""
        assert hand.scores is not None and hand.points is not None
        self.add_points([p for score in hand.scores for p in score.points], hand.points, hand.escobas, opening)

    def add_points(
        self,
        category_points: Sequence[int],
        points: Sequence[int],
        escobas: Sequence[int],
        opening: Sequence[int],
        times: int = 1,
    ) -> None:
        """Count one finished hand given as numbers: points per category and side (category
        major, as `points` is kept), the hand's points and escobas per side, and the opening;
        or `times` hands that all ended so."""
        self.hands += times
        cells, cells_sq = self.points, self.points_sq
        for k, p in enumerate(category_points):
            if p:
                cells[k] += p * times
                cells_sq[k] += p * p * times
        total, total_sq = self.total, self.total_sq
        for s, p in enumerate(points):
            total[s] += p * times
            total_sq[s] += p * p * times
        for s, e in enumerate(escobas):
            self.escobas[s] += e * times
            self.escobas_sq[s] += e * e * times
        e = sum(escobas)
        self.escobas_hand += e * times
        self.escobas_hand_sq += e * e * times
        best = max(points)
        if points.count(best) == 1:
            self.wins[points.index(best)] += times
        else:
            self.tied += times
        taken, escobas_won, aside, redeals = opening
        self.opening_taken += taken * times
        self.opening_escobas += escobas_won * times
        self.opening_set_aside += aside * times
        self.redeals += redeals * times

    def merge(self, other: Accumulator) -> Accumulator:
        """Add another chunk's sums into this one (in place) and return self."""
        if (other.categories, other.sides) != (self.categories, self.sides):
            raise ValueError("cannot merge statistics of different rulesets or tables")
        for name in ("points", "points_sq", "total", "total_sq", "escobas", "escobas_sq", "wins"):
            mine, theirs = getattr(self, name), getattr(other, name)
            for k, v in enumerate(theirs):
                mine[k] += v
        for name in ("hands", "escobas_hand", "escobas_hand_sq", "tied", "opening_taken", "opening_escobas",
                     "opening_set_aside", "redeals"):  # fmt: skip
            setattr(self, name, getattr(self, name) + getattr(other, name))
        return self


@dataclass(frozen=True)
class Stats:
    """What `simulate` returns. Every mean is per hand; lists are indexed by side."""

    ruleset: str
    players: int
    sides: int
    side_seats: tuple[tuple[int, ...], ...]
    hands: int
    seed: int
    bots: tuple[str, ...]
    categories: tuple[str, ...]
    points: dict[str, tuple[Estimate, ...]]  # category id -> per side
    total: tuple[Estimate, ...]  # all categories together, per side
    escobas: Estimate  # escobas per hand, all sides together
    escobas_by_side: tuple[Estimate, ...]
    wins: tuple[int, ...]  # hands won outright, per side
    tied: int
    opening: dict[str, int]  # taken, escobas, set_aside, redeals (counts over all hands)
    accumulator: Accumulator = field(repr=False, compare=False)

    @classmethod
    def from_accumulator(cls, rules: Rules, players: int, seed: int, bots: Sequence[str], acc: Accumulator) -> Stats:
        n, sides = acc.hands, acc.sides
        points = {
            cat: tuple(
                Estimate.from_sums(n, acc.points[k * sides + s], acc.points_sq[k * sides + s]) for s in range(sides)
            )
            for k, cat in enumerate(acc.categories)
        }
        return cls(
            ruleset=rules.id,
            players=players,
            sides=sides,
            side_seats=tuple(rules.sides(players)),
            hands=n,
            seed=seed,
            bots=tuple(bots),
            categories=acc.categories,
            points=points,
            total=tuple(Estimate.from_sums(n, acc.total[s], acc.total_sq[s]) for s in range(sides)),
            escobas=Estimate.from_sums(n, acc.escobas_hand, acc.escobas_hand_sq),
            escobas_by_side=tuple(Estimate.from_sums(n, acc.escobas[s], acc.escobas_sq[s]) for s in range(sides)),
            wins=tuple(acc.wins),
            tied=acc.tied,
            opening={
                "taken": acc.opening_taken,
                "escobas": acc.opening_escobas,
                "set_aside": acc.opening_set_aside,
                "redeals": acc.redeals,
            },
            accumulator=acc,
        )

    def to_json(self) -> dict[str, Any]:
        """Plain JSON-ready data (the `escoba simulate --format json` document)."""
        return {
            "kind": "hands",
            "seed_version": SEED_VERSION,
            "ruleset": self.ruleset,
            "players": self.players,
            "sides": [list(s) for s in self.side_seats],
            "hands": self.hands,
            "seed": self.seed,
            "bots": list(self.bots),
            "confidence": 0.95,
            "points_per_hand": {
                cat: [e.to_json() for e in self.points[cat]] for cat in self.categories
            },
            "total_per_hand": [e.to_json() for e in self.total],
            "escobas_per_hand": self.escobas.to_json(),
            "escobas_per_hand_by_side": [e.to_json() for e in self.escobas_by_side],
            "hands_won": list(self.wins),
            "hands_tied": self.tied,
            "opening": dict(self.opening),
        }


# ---------------------------------------------------------------------------------- matches
@dataclass
class MatchAccumulator:
    """Integer sums over matches; `merge` of two chunks equals one run over both."""

    sides: int
    matches: int = 0
    hands: int = 0
    hands_sq: int = 0
    wins: list[int] = field(default_factory=list)  # matches a side won alone
    shared: int = 0  # matches ending in a shared win
    shared_by_side: list[int] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)  # final totals per side
    totals_sq: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        for name in ("wins", "shared_by_side", "totals", "totals_sq"):
            if not getattr(self, name):
                setattr(self, name, [0] * self.sides)

    def add(self, match: Match) -> None:
        self.matches += 1
        self.hands += match.hands_played
        self.hands_sq += match.hands_played**2
        winners = match.winners or []
        if len(winners) == 1:
            self.wins[winners[0]] += 1
        else:
            self.shared += 1
            for s in winners:
                self.shared_by_side[s] += 1
        for s, t in enumerate(match.totals):
            self.totals[s] += t
            self.totals_sq[s] += t * t

    def merge(self, other: MatchAccumulator) -> MatchAccumulator:
        if other.sides != self.sides:
            raise ValueError("cannot merge statistics of different tables")
        for name in ("wins", "shared_by_side", "totals", "totals_sq"):
            mine, theirs = getattr(self, name), getattr(other, name)
            for k, v in enumerate(theirs):
                mine[k] += v
        self.matches += other.matches
        self.hands += other.hands
        self.hands_sq += other.hands_sq
        self.shared += other.shared
        return self


@dataclass(frozen=True)
class MatchStats:
    """What `simulate_matches` returns. Win rates are shares of all matches, per side."""

    ruleset: str
    players: int
    sides: int
    side_seats: tuple[tuple[int, ...], ...]
    matches: int
    seed: int
    bots: tuple[str, ...]
    target: int
    hands_per_match: Estimate
    win_rate: tuple[Estimate, ...]  # won alone; a 0/1 variable per match, so the CI is the binomial's
    wins: tuple[int, ...]
    shared: int  # matches ending in a shared win (ruleset tie: shared_win)
    shared_by_side: tuple[int, ...]
    final_total: tuple[Estimate, ...]
    accumulator: MatchAccumulator = field(repr=False, compare=False)

    @classmethod
    def from_accumulator(
        cls, rules: Rules, players: int, seed: int, bots: Sequence[str], target: int, acc: MatchAccumulator
    ) -> MatchStats:
        n = acc.matches
        return cls(
            ruleset=rules.id,
            players=players,
            sides=acc.sides,
            side_seats=tuple(rules.sides(players)),
            matches=n,
            seed=seed,
            bots=tuple(bots),
            target=target,
            hands_per_match=Estimate.from_sums(n, acc.hands, acc.hands_sq),
            win_rate=tuple(Estimate.from_sums(n, w, w) for w in acc.wins),
            wins=tuple(acc.wins),
            shared=acc.shared,
            shared_by_side=tuple(acc.shared_by_side),
            final_total=tuple(Estimate.from_sums(n, acc.totals[s], acc.totals_sq[s]) for s in range(acc.sides)),
            accumulator=acc,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": "matches",
            "seed_version": SEED_VERSION,
            "ruleset": self.ruleset,
            "players": self.players,
            "sides": [list(s) for s in self.side_seats],
            "matches": self.matches,
            "seed": self.seed,
            "bots": list(self.bots),
            "target": self.target,
            "confidence": 0.95,
            "hands_per_match": self.hands_per_match.to_json(),
            "win_rate": [e.to_json() for e in self.win_rate],
            "matches_won": list(self.wins),
            "matches_shared": self.shared,
            "matches_shared_by_side": list(self.shared_by_side),
            "final_total": [e.to_json() for e in self.final_total],
        }


# ---------------------------------------------------------------------------------- running
def simulate(
    rules: Rules | str,
    hands: int,
    players: int = 2,
    seed: int = 0,
    bots: Sequence[str] = ("random",),
    jobs: int = 1,
    progress: Progress | None = None,
    cluster: str | None = None,
) -> Stats:
    """Play `hands` independent hands and summarise the points per category and side.

    `rules` is a compiled `Rules` or a ruleset id/path. `bots` are bot specs (`random`,
    `greedy`, `expert`, `search:200`: `escoba.engine.bots.bot_maker`), given per seat and repeated round
    the table. `jobs > 1` spreads chunks over worker processes with identical results;
    `cluster` (a Dask scheduler address, or "local" for a LocalCluster of `jobs` workers)
    spreads the same chunks over a cluster, with identical results too (`escoba.cluster`).
    `progress(done, total)` is called after each chunk. Raises `EscobaError` for an impossible
    request.
    """
    rules, bots = _check(rules, hands, players, bots, jobs, "hands")
    job = (rules.doc, "hands", players, int(seed), tuple(bots), None)
    acc = _run(rules, job, hands, jobs, progress, cluster)
    return Stats.from_accumulator(rules, players, int(seed), bots, acc)


def simulate_matches(
    rules: Rules | str,
    matches: int,
    players: int = 2,
    seed: int = 0,
    bots: Sequence[str] = ("random",),
    jobs: int = 1,
    target: int | None = None,
    progress: Progress | None = None,
    cluster: str | None = None,
) -> MatchStats:
    """Play `matches` independent matches to `target` (the ruleset's by default).

    Match `j` starts with seat `j % players` dealing; see the module docstring for seeds.
    """
    rules, bots = _check(rules, matches, players, bots, jobs, "matches")
    goal = rules.match_target if target is None else int(target)
    if goal < 1:
        raise EscobaError(f"the target must be a positive number of points, got {goal}")
    job = (rules.doc, "matches", players, int(seed), tuple(bots), goal)
    acc = _run(rules, job, matches, jobs, progress, cluster)
    return MatchStats.from_accumulator(rules, players, int(seed), bots, goal, acc)


def _check(
    rules: Rules | str, count: int, players: int, bots: Sequence[str], jobs: int, what: str
) -> tuple[Rules, tuple[str, ...]]:
    if isinstance(rules, str):
        import escoba

        rules = escoba.load_ruleset(rules)
    if count < 1:
        raise EscobaError(f"the number of {what} must be at least 1, got {count}")
    if players not in rules.player_counts:
        counts = ", ".join(map(str, rules.player_counts))
        raise EscobaError(f"{rules.id} is played by {counts} players, not {players}")
    bots = tuple(bots)
    if not bots:
        raise EscobaError("at least one bot is needed")
    for b in bots:
        bot_maker(b)  # EscobaError for an unknown bot or a bad search budget
    if jobs < 1:
        raise EscobaError(f"jobs must be at least 1, got {jobs}")
    return rules, bots


# A job is (ruleset document, kind, players, seed, bots, target): plain data, so that a worker
# process can compile the rules again from the document (compiled measures are closures, which
# do not pickle). The calling process plays with the `Rules` it was given.
Job = tuple


def _run(rules: Rules, job: Job, count: int, jobs: int, progress: Progress | None, cluster: str | None = None):
    chunks = [(start, min(start + CHUNK, count)) for start in range(0, count, CHUNK)]
    done = 0
    results: list[Any] = [None] * len(chunks)

    def finished(k: int, result: Any) -> None:
        nonlocal done
        results[k] = result
        done += chunks[k][1] - chunks[k][0]
        if progress is not None:
            progress(done, count)

    if cluster is not None:
        from escoba import cluster as dask

        dask.run(cluster, jobs, _cluster_chunk, (dask.token(job), job), chunks, finished)
    elif jobs == 1 or len(chunks) == 1:
        for k, (start, stop) in enumerate(chunks):
            finished(k, _play_range(rules, job, start, stop))
    else:
        from concurrent.futures import as_completed

        from escoba.processes import worker_pool

        with worker_pool(jobs, len(chunks), _worker_init, (job,)) as pool:
            futures = {pool.submit(_worker_chunk, start, stop): k for k, (start, stop) in enumerate(chunks)}
            for future in as_completed(futures):
                finished(futures[future], future.result())
    total = results[0]
    for part in results[1:]:  # chunk order, so that the merge is the same whatever finished first
        total.merge(part)
    return total


_cluster_rules: dict[str, Rules] = {}  # on a cluster worker: compiled rules by job token


def _cluster_chunk(shared: tuple[str, Job], start: int, stop: int):
    """A chunk on a Dask worker: the rules compiled once per job, then played as anywhere."""
    name, job = shared
    rules = _cluster_rules.get(name)
    if rules is None:
        if len(_cluster_rules) > 8:
            _cluster_rules.clear()
        rules = _cluster_rules[name] = compile_rules(job[0])
    return _play_range(rules, job, start, stop)


_worker_job: tuple[Rules, Job] | None = None


def _worker_init(job: Job) -> None:
    global _worker_job
    _worker_job = (compile_rules(job[0]), job)


def _worker_chunk(start: int, stop: int):
    assert _worker_job is not None
    rules, job = _worker_job
    return _play_range(rules, job, start, stop)


def _play_range(rules: Rules, job: Job, start: int, stop: int):
    _, kind, players, seed, bots, target = job
    makers = seat_makers(bots, players)
    kernel = fast_path(rules, bots)
    if kind == "hands":
        acc = Accumulator(tuple(c.id for c in rules.categories), len(rules.sides(players)))
        if kernel is not None:
            _fused_range(kernel, acc, players, seed, start, stop)
        else:
            for i in range(start, stop):
                acc.add(*_play_hand(rules, players, seed, i, makers))
        return acc
    macc = MatchAccumulator(len(rules.sides(players)))
    for j in range(start, stop):
        macc.add(play_match(rules, players, seed, j, makers, target))
    return macc


def fast_path(rules: Rules, bots: Sequence[str]) -> Fused | None:
    """The fused path for these rules and bots, or None when `Hand` must play: a bot other
    than `random` at some seat, or a rule the fused path does not implement
    (`escoba.engine.fused.fallback_reason`)."""
    if any(bot != "random" for bot in bots):
        return None
    return fused(rules)


def _fused_range(kernel: Fused, acc: Accumulator, players: int, seed: int, start: int, stop: int) -> None:
    base = derive_seed(seed, "hand")  # hand_seed(seed, i), with the hash taken once
    rng = random.Random()
    reseed = _seeding(rng)
    play = kernel.deal_and_play
    # Hands end in few distinct ways (about 1,200 in 20,000 hands of sv): each is counted once
    # with how often it came, instead of adding every hand's numbers to the sums one by one.
    endings: dict[tuple[int, ...], int] = {}
    for i in range(start, stop):
        reseed(i << 64 | base)
        out = play(rng, players, i % players)
        ending = (*out.category_points, *out.escobas, *out.opening)
        endings[ending] = endings.get(ending, 0) + 1
    cells, sides = len(acc.points), acc.sides
    for ending, times in endings.items():
        category_points = ending[:cells]
        points = [sum(category_points[side::sides]) for side in range(sides)]
        acc.add_points(category_points, points, ending[cells : cells + sides], ending[cells + sides :], times)


def _seeding(rng: random.Random) -> Callable[[int], None]:
    """`rng.seed` for integer seeds: the generator's own seeding, without the checks of
    `random.Random.seed` written in Python (of the seed's type, and the cache of `gauss`, which
    no hand reads), when it leaves the very same state (CPython's does); else `rng.seed`."""
    own = super(random.Random, rng).seed
    a, b = random.Random(), random.Random()
    a.seed(7 << 64 | 5)
    super(random.Random, b).seed(7 << 64 | 5)
    return own if a.getstate() == b.getstate() else rng.seed


def seat_makers(bots: Sequence[str], players: int) -> list:
    """The bot constructor of each seat: `bots` repeated round the table."""
    return [bot_maker(bots[s % len(bots)]) for s in range(players)]


def deal_hand(rules: Rules, players: int, seed: int, i: int, makers) -> tuple[Hand, tuple[int, int, int, int], list]:
    """Hand `i` of a seeded run, dealt and not yet played: the hand, its opening counts (taken,
    escobas, set aside, redeals) and the seated bots, all drawing from the hand's one generator.
    `escoba diff` plays the same hands."""
    rng = random.Random(hand_seed(seed, i))
    hand = Hand(rules, players, i % players, shuffled_decks(rules, rng), record=False)
    # Without events, the opening is read off the state before the first play.
    opening = (int(any(hand.piles)), sum(hand.escobas), int(bool(hand.set_aside)), len(hand.deck_orders) - 1)
    seats = [make(rng) for make in makers]
    return hand, opening, seats


def _play_hand(rules: Rules, players: int, seed: int, i: int, makers) -> tuple[Hand, tuple[int, int, int, int]]:
    hand, opening, seats = deal_hand(rules, players, seed, i, makers)
    while hand.to_play is not None:
        hand.apply(seats[hand.to_play](hand))
    return hand, opening


def play_match(rules: Rules, players: int, seed: int, j: int, makers, target: int) -> Match:
    """Match `j` of a seeded run, played to its end (`escoba diff` plays the same matches)."""
    rng = random.Random(match_seed(seed, j))
    match = Match(rules, players, dealer=j % players, target=target, decks=shuffled_decks(rules, rng), record=False)
    seats = [make(rng) for make in makers]
    while not match.is_over:
        hand = match.new_hand()
        while hand.to_play is not None:
            hand.apply(seats[hand.to_play](hand))
        match.end_hand()
    return match
