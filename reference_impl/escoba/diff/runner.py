"""Plays the hands behind views 2 and 3 in one pass, in chunks, on one or more processes.

Hand `i` is dealt and played under A exactly as `escoba.simulate` plays its hand `i` (same
seeds, same dealer, same bots), which serves both views: its moves are replayed under B
(view 2) and its scores go into A's statistics (view 3). Then hand `i` is played under B from
the same seeds (view 3). Playing A once for both views is what keeps `escoba diff` fast.

When nothing that shapes play differs at this table (`rescore.play_equivalent`), the same
deck order deals the same cards under both (`table_first` too), and the bots look only at the
cards and the capture target, B's own game from the same seeds *is* A's game, move for move;
B's hand `i` is then A's hand rescored, not played a second time.

Matches (hands per match, match wins) come from `escoba.simulate.simulate_matches`, run inside
the same pool of workers as the hand chunks, so that both rulesets' matches and the hands share
the processes instead of waiting for one another.

Determinism: each chunk returns integer sums; chunks are merged in index order, so `jobs=J`
gives exactly the figures of `jobs=1`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from escoba.diff.compare_sim import Totals
from escoba.diff.rescore import Played, Replayer, Tally, new_tally, record
from escoba.engine.hand import Hand
from escoba.rules.compile import Rules, compile_rules
from escoba.simulate import Accumulator, MatchStats, deal_hand, seat_makers, simulate_matches

CHUNK = 500
# Bots whose choices depend only on the legal moves, the cards and the capture target, never on
# how piles are scored: with them, two play-equivalent rulesets play the very same game.
SCORING_BLIND = frozenset({"random", "greedy"})

Progress = Callable[[int, int], None]


@dataclass
class Part:
    """One chunk's sums (also the whole run's, once merged)."""

    tally: Tally
    acc_a: Accumulator
    totals_a: Totals
    acc_b: Accumulator | None
    totals_b: Totals | None
    matches_a: MatchStats | None = None
    matches_b: MatchStats | None = None

    def merge(self, other: Part) -> Part:
        self.tally.merge(other.tally)
        self.acc_a.merge(other.acc_a)
        self.totals_a.merge(other.totals_a)
        if self.acc_b is not None and other.acc_b is not None and self.totals_b is not None and other.totals_b is not None:
            self.acc_b.merge(other.acc_b)
            self.totals_b.merge(other.totals_b)
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
        return Part(
            new_tally(a, b, players),
            Accumulator(tuple(c.id for c in a.categories), len(a.sides(players))),
            Totals(tuple(c.id for c in a.categories)),
            acc_b,
            totals_b,
        )

    def play(self, rules: Rules, i: int) -> tuple[Hand, tuple[int, int, int, int], Played]:
        """Hand `i` under `rules`, as `escoba.simulate` plays it (pinned by a test)."""
        job = self.job
        hand, opening, seats = deal_hand(rules, job.players, job.seed, i, seat_makers(job.bots, job.players))
        played = record(hand, f"hand {i}", lambda h: seats[h.to_play](h))
        return hand, opening, played

    def chunk(self, start: int, stop: int) -> Part:
        part = self.empty()
        for i in range(start, stop):
            hand, opening, played = self.play(self.a, i)
            part.acc_a.add(hand, opening)
            part.totals_a.add(hand)
            outcome = self.replayer.replay(played)
            part.tally.add(played, outcome)
            if self.same_game:
                hand_b: Any = SimpleNamespace(scores=outcome.scores, points=outcome.points, escobas=hand.escobas)
                part.acc_b.add(hand_b, opening)  # type: ignore[union-attr]
                part.totals_b.add(hand_b)  # type: ignore[union-attr]
            elif self.b_plays:
                hand_b, opening_b, _ = self.play(self.b, i)
                part.acc_b.add(hand_b, opening_b)  # type: ignore[union-attr]
                part.totals_b.add(hand_b)  # type: ignore[union-attr]
        return part

    def matches(self, which: str, count: int) -> MatchStats:
        job = self.job
        rules = self.a if which == "a" else self.b
        return simulate_matches(rules, count, job.players, job.seed, job.bots, jobs=1)

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
) -> Part:
    """Hands `0 … hands-1` under A (replayed under B) and under B, and `matches` matches of each."""
    chunks = [(start, min(start + CHUNK, hands)) for start in range(0, hands, CHUNK)]
    results: list[Part | None] = [None] * len(chunks)
    played: dict[str, MatchStats] = {}
    which = ["a", "b"] if matches else []
    done = 0
    if jobs <= 1 or len(chunks) + len(which) <= 1:
        context = _Context(job, *(rules or (None, None)))
        for k, (start, stop) in enumerate(chunks):
            results[k] = context.chunk(start, stop)
            done += stop - start
            if progress is not None:
                progress(done, hands)
        if "b" in which and not context.b_plays:
            which.remove("b")
        for side in which:
            played[side] = context.matches(side, matches)
    else:
        from concurrent.futures import ProcessPoolExecutor, as_completed

        rules_b = rules[1] if rules else compile_rules(job.doc_b)
        if job.players not in rules_b.player_counts:
            which = [w for w in which if w != "b"]
        with ProcessPoolExecutor(max_workers=jobs, initializer=_init, initargs=(job,)) as pool:
            # Matches first: each is one long task, best started while the chunks fill the gaps.
            futures: dict[Any, Any] = {pool.submit(_matches, side, matches): side for side in which}
            futures.update({pool.submit(_chunk, start, stop): k for k, (start, stop) in enumerate(chunks)})
            for future in as_completed(futures):
                key = futures[future]
                if isinstance(key, str):
                    played[key] = future.result()
                    continue
                results[key] = future.result()
                done += chunks[key][1] - chunks[key][0]
                if progress is not None:
                    progress(done, hands)
    total = results[0]
    assert total is not None
    for part in results[1:]:  # in index order: the merge does not depend on which chunk finished first
        assert part is not None
        total.merge(part)
    total.matches_a, total.matches_b = played.get("a"), played.get("b")
    return total


def replay(job: Job, hands: Sequence[Played], rules: tuple[Rules, Rules]) -> Tally:
    """Replay hands that were played elsewhere (a transcript) under B."""
    return _Context(job, *rules).replay_all(hands)


_worker: _Context | None = None


def _init(job: Job) -> None:
    global _worker
    _worker = _Context(job)


def _chunk(start: int, stop: int) -> Part:
    assert _worker is not None
    return _worker.chunk(start, stop)


def _matches(which: str, count: int) -> MatchStats:
    assert _worker is not None
    return _worker.matches(which, count)
