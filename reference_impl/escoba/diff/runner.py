"""Plays the hands behind views 2 and 3 in one pass, in chunks, on one or more processes.

Hand `i` is dealt and played under A exactly as `escoba.simulate` plays its hand `i` (same
seeds, same dealer, same bots), which serves both views: its moves are replayed under B
(view 2) and its scores go into A's statistics (view 3). Then hand `i` is played under B from
the same seeds (view 3). Playing A once for both views is what keeps `escoba diff` fast.

When nothing that shapes play differs at this table (`rescore.play_equivalent`), the same
deck order deals the same cards under both (`table_first` too), and the bots look only at the
cards and the capture target, B's own game from the same seeds *is* A's game, move for move;
B's hand `i` is then A's hand rescored, not played a second time.

Match j is played under A and under B from the same seeds, exactly as
`escoba.simulate.simulate_matches` plays its match j, in chunks in the same pool of workers as
the hands. Each pair of hands and each pair of matches also goes into the paired sums
(`escoba.diff.paired`): the differences are measured pair by pair.

`run` plays the hands `start … stop-1` and the matches `match_start … match_stop-1`, so that
`--until-resolved` can play on in batches and merge them: batch boundaries change nothing, since
hand i and match j depend only on the seed and their index.

Determinism: each chunk returns integer sums; chunks are merged in index order, so `jobs=J`
gives exactly the figures of `jobs=1`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from escoba.diff.compare_sim import Totals
from escoba.diff.paired import HandResult, MatchResult, PairedHands, PairedMatches
from escoba.diff.rescore import Played, Replayer, Tally, new_tally, record
from escoba.engine.bots.specs import searches
from escoba.engine.hand import Hand
from escoba.rules.compile import Rules, compile_rules
from escoba.simulate import Accumulator, MatchAccumulator, deal_hand, play_match, seat_makers

CHUNK = 500
MATCH_CHUNK = 50
SEARCH_CHUNK = 2  # hands per unit of work when a search bot plays (seconds each): a live progress bar
# Bots whose choices depend only on the legal moves, the cards and the capture target, never on
# how piles are scored: with them, two play-equivalent rulesets play the very same game.
SCORING_BLIND = frozenset({"random"})

Progress = Callable[[int, int], None]


@dataclass
class Part:
    """One chunk's sums (also the whole run's, once merged)."""

    tally: Tally
    acc_a: Accumulator
    totals_a: Totals
    acc_b: Accumulator | None
    totals_b: Totals | None
    paired: PairedHands | None
    matches_a: MatchAccumulator
    matches_b: MatchAccumulator | None
    paired_matches: PairedMatches | None

    def merge(self, other: Part) -> Part:
        self.tally.merge(other.tally)
        self.acc_a.merge(other.acc_a)
        self.totals_a.merge(other.totals_a)
        self.matches_a.merge(other.matches_a)
        if self.acc_b is not None and other.acc_b is not None and self.totals_b is not None and other.totals_b is not None:
            self.acc_b.merge(other.acc_b)
            self.totals_b.merge(other.totals_b)
        if self.paired is not None and other.paired is not None:
            self.paired.merge(other.paired)
        if self.matches_b is not None and other.matches_b is not None:
            self.matches_b.merge(other.matches_b)
        if self.paired_matches is not None and other.paired_matches is not None:
            self.paired_matches.merge(other.paired_matches)
        return self


@dataclass(frozen=True)
class Job:
    """Plain data, so that a worker process can compile the rules again (closures do not pickle)."""

    doc_a: Mapping[str, Any]
    doc_b: Mapping[str, Any]
    players: int
    seed: int
    bots: tuple[str, ...]
    force_replay: bool = False


class _Context:
    def __init__(self, job: Job, a: Rules | None = None, b: Rules | None = None):
        self.job = job
        self.a = a or compile_rules(job.doc_a)
        self.b = b or compile_rules(job.doc_b)
        self.replayer = Replayer(self.a, self.b, job.players, force_replay=job.force_replay)
        self.b_plays = job.players in self.b.player_counts
        # The replay maps the deal, view 3 reuses the deck order: both must deal the same cards.
        self.same_game = (
            self.replayer.shortcut
            and self.a.table_first == self.b.table_first
            and self.a.deck.scoring_suit == self.b.deck.scoring_suit
            and all(bot in SCORING_BLIND for bot in job.bots)
        )

    def empty(self) -> Part:
        a, b, players = self.a, self.b, self.job.players
        acc_b = Accumulator(tuple(c.id for c in b.categories), len(b.sides(players))) if self.b_plays else None
        totals_b = Totals(tuple(c.id for c in b.categories)) if self.b_plays else None
        common = tuple(c.id for c in a.categories if c.id in {d.id for d in b.categories})
        return Part(
            new_tally(a, b, players),
            Accumulator(tuple(c.id for c in a.categories), len(a.sides(players))),
            Totals(tuple(c.id for c in a.categories)),
            acc_b,
            totals_b,
            PairedHands(common) if self.b_plays else None,
            MatchAccumulator(len(a.sides(players))),
            MatchAccumulator(len(b.sides(players))) if self.b_plays else None,
            PairedMatches(len(a.sides(players)) if self.b_plays and a.sides(players) == b.sides(players) else 0)
            if self.b_plays
            else None,
        )

    def play(self, rules: Rules, i: int) -> tuple[Hand, tuple[int, int, int, int], Played]:
        """Hand `i` under `rules`, as `escoba.simulate` plays it (pinned by a test)."""
        job = self.job
        hand, opening, seats = deal_hand(rules, job.players, job.seed, i, seat_makers(job.bots, job.players))
        played = record(hand, f"hand {i}", lambda h: seats[h.to_play](h))
        return hand, opening, played

    def chunk(self, start: int, stop: int) -> Part:
        part = self.empty()
        dealers = self.job.players
        for i in range(start, stop):
            hand, opening, played = self.play(self.a, i)
            part.acc_a.add(hand, opening)
            part.totals_a.add(hand)
            outcome = self.replayer.replay(played)
            part.tally.add(played, outcome)
            if self.same_game:
                hand_b: Any = SimpleNamespace(scores=outcome.scores, points=outcome.points, escobas=hand.escobas,
                                              side_of=self.replayer.b_side_of)  # fmt: skip
                part.acc_b.add(hand_b, opening)  # type: ignore[union-attr]
                part.totals_b.add(hand_b)  # type: ignore[union-attr]
            elif self.b_plays:
                hand_b, opening_b, _ = self.play(self.b, i)
                part.acc_b.add(hand_b, opening_b)  # type: ignore[union-attr]
                part.totals_b.add(hand_b)  # type: ignore[union-attr]
            if part.paired is not None:
                dealer = i % dealers  # as deal_hand deals hand i
                part.paired.add(
                    HandResult.of(hand.scores, hand.points, hand.escobas, hand.side_of, dealer),  # type: ignore[arg-type]
                    HandResult.of(hand_b.scores, hand_b.points, hand_b.escobas, hand_b.side_of, dealer),
                )
        return part

    def match_chunk(self, start: int, stop: int) -> Part:
        """Matches `start … stop-1` under A and under B, from the same seeds."""
        part = self.empty()
        job = self.job
        makers = seat_makers(job.bots, job.players)
        sides_a, sides_b = self.a.sides(job.players), self.b.sides(job.players) if self.b_plays else ()
        for j in range(start, stop):
            match_a = play_match(self.a, job.players, job.seed, j, makers, self.a.match_target)
            part.matches_a.add(match_a)
            if self.b_plays:
                match_b = play_match(self.b, job.players, job.seed, j, makers, self.b.match_target)
                part.matches_b.add(match_b)  # type: ignore[union-attr]
                first = j % job.players  # as simulate_matches deals match j first
                part.paired_matches.add(MatchResult.of(match_a, sides_a, first), MatchResult.of(match_b, sides_b, first))  # type: ignore[union-attr]
        return part

    def task(self, task: tuple[str, int, int]) -> Part:
        kind, start, stop = task
        return self.chunk(start, stop) if kind == "hands" else self.match_chunk(start, stop)

    def replay_all(self, hands: Iterable[Played]) -> Tally:
        tally = new_tally(self.a, self.b, self.job.players)
        for played in hands:
            tally.add(played, self.replayer.replay(played))
        return tally


def run(
    job: Job,
    hands: int,
    jobs: int = 1,
    progress: Progress | None = None,
    rules: tuple[Rules, Rules] | None = None,
    matches: int = 0,
    *,
    start: int = 0,
    match_start: int = 0,
    pool: Any = None,
    slot: int = 0,
    cluster: str | None = None,
) -> Part:
    """Hands `start … hands-1` under A (replayed under B) and under B, and matches
    `match_start … matches-1` of each. `progress(done, total)` counts hands, a match weighing as
    much as `MATCH_WEIGHT` hands. `pool`: an executor from `new_pool` whose jobs hold this one at
    `slot` (`--until-resolved` keeps one for all its batches and both bot strengths); else one is
    made for this run. `cluster`: the same tasks on a Dask scheduler, or "local" (`escoba.cluster`)."""
    tasks = plan(job, hands, matches, start, match_start)
    if not tasks:
        raise ValueError("nothing to play")
    # Matches first: a match is several hands, best started while the hand chunks fill the gaps.
    tasks.sort(key=lambda t: t[0] != "matches")
    weight = {"hands": 1, "matches": MATCH_WEIGHT}
    total = sum(weight[kind] * (hi - lo) for kind, lo, hi in tasks)
    results: list[Part | None] = [None] * len(tasks)
    done = 0

    def finished(k: int, result: Part) -> None:
        nonlocal done
        results[k] = result
        done += weight[tasks[k][0]] * (tasks[k][2] - tasks[k][1])
        if progress is not None:
            progress(done, total)

    if cluster is not None:
        from escoba import cluster as dask

        dask.run(cluster, jobs, _cluster_task, (dask.token(job), job), [(task,) for task in tasks], finished)
    elif pool is None and (jobs <= 1 or len(tasks) <= 1):
        context = _Context(job, *(rules or (None, None)))
        for k, task in enumerate(tasks):
            finished(k, context.task(task))
    else:
        from concurrent.futures import as_completed

        from escoba.processes import worker_pool

        own = pool is None
        # Our own pool lives for this run; a pool from the caller (--until-resolved) is theirs to end.
        with worker_pool(jobs, len(tasks), _init, (job,)) if own else contextlib.nullcontext(pool) as executor:
            futures = {executor.submit(_task, task, slot if not own else 0): k for k, task in enumerate(tasks)}
            for future in as_completed(futures):
                finished(futures[future], future.result())
    # In the order of the indices: the merge does not depend on which chunk finished first.
    order = sorted(range(len(tasks)), key=lambda k: (tasks[k][0], tasks[k][1]))
    merged = results[order[0]]
    assert merged is not None
    for k in order[1:]:
        part = results[k]
        assert part is not None
        merged.merge(part)
    return merged


MATCH_WEIGHT = 7  # a match is 6 to 9 hands: its share of the progress bar


def plan(job: Job, hands: int, matches: int, start: int = 0, match_start: int = 0) -> list[tuple[str, int, int]]:
    """The chunks `run` splits hands `start … hands-1` and matches `match_start … matches-1` into."""
    size = SEARCH_CHUNK if any(searches(b) for b in job.bots) else CHUNK
    msize = max(1, size // 10) if size == SEARCH_CHUNK else MATCH_CHUNK
    tasks: list[tuple[str, int, int]] = [("hands", lo, min(lo + size, hands)) for lo in range(start, hands, size)]
    tasks += [("matches", lo, min(lo + msize, matches)) for lo in range(match_start, matches, msize)]
    return tasks


def new_pool(played: Sequence[Job], jobs: int, tasks: int) -> Any:
    """A context giving a pool of `jobs` workers (never more than `tasks`, the most any run
    will be given) ready for `run(played[k], ..., pool=..., slot=k)`, or None when one process
    will do; its workers stop with it, at once on an interrupt (processes.worker_pool)."""
    if jobs <= 1 or tasks <= 1:
        return contextlib.nullcontext(None)
    from escoba.processes import worker_pool

    return worker_pool(jobs, tasks, _init, tuple(played))


def replay(job: Job, hands: Sequence[Played], rules: tuple[Rules, Rules]) -> Tally:
    """Replay hands that were played elsewhere (a transcript) under B."""
    return _Context(job, *rules).replay_all(hands)


_workers: list[_Context] = []  # in a worker process: a context per job the pool serves


def _init(*played: Job) -> None:
    _workers[:] = [_Context(job) for job in played]


def _task(task: tuple[str, int, int], slot: int = 0) -> Part:
    return _workers[slot].task(task)


_cluster_contexts: dict[str, _Context] = {}  # on a Dask worker: one context per job token


def _cluster_task(shared: tuple[str, Job], task: tuple[str, int, int]) -> Part:
    """A task (hands or matches) on a Dask worker, its job's context made once per worker."""
    name, job = shared
    context = _cluster_contexts.get(name)
    if context is None:
        if len(_cluster_contexts) > 8:
            _cluster_contexts.clear()
        context = _cluster_contexts[name] = _Context(job)
    return context.task(task)
