"""Shrinking: the smallest case that still fails the same way.

A divergence found in a long seeded game is hard to read. `shrink` tries smaller cases, runs
each on the engine, and keeps one only when it fails *the same way* (the same rule point and
class of its first divergence: `harness.signature`) and is shorter (fewer expected events, then
fewer hands, players and plays, then a deck order closer to the deck's own). The steps, in the
order they are tried until none helps:

1. **fewer hands**: a match cut to the hand that diverges, alone or after fewer hands with a
   lower target;
2. **stop at the divergence**: a hand that diverges before its last play ends there (the case
   becomes a perft count of depth 1: it stops at the next decision, whose legal moves it lists);
3. **deal the position at once**: the table and hands of the divergent decision dealt as the
   first position (`arrange_deck`), the table trimmed or topped up to the ruleset's size;
4. **fewer players**: the same first position at a smaller table;
5. **a simpler deck order**: the cards no event of the case reaches, in deck order;
6. **the same deal played again**: for what only shows when a hand is over (leftovers,
   scoring), other players and choices on the same deck, which may end with fewer events.

Every candidate is an ordinary case (`escoba.transcript.build.fill` computes its expected
events), so the result is a case file `escoba conformance --cases-dir` runs, with each step
recorded in its `notes`.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from escoba.conformance.runner import CaseResult
from escoba.engine.arrange import arrange_deck
from escoba.engine.hand import Hand
from escoba.errors import EscobaError
from escoba.explore.harness import Harness, case_length, describe, fill_case, signature
from escoba.game.seats import dealer_for, turn_order

BUDGET = 60  # candidate cases run on the engine
FILL_BUDGET = 400  # candidate cases built (each is played by the reference engine)
REPLAYS = 24  # the same deal played again, for what shows only at a hand's end
SOONER = 8  # other lines from the same deal, for a divergence deep in a hand
WHY_NOT_SHORTER = "Why not shorter:"  # the note that explains a case longer than a stop at the divergence


@dataclass
class Shrunk:
    data: dict  # the smallest case that fails the same way, notes included
    result: CaseResult  # its run on the engine
    steps: list[str] = field(default_factory=list)
    tried: int = 0  # candidates run on the engine
    original: int = 0  # events in the case before shrinking

    @property
    def length(self) -> int:
        return case_length(self.data)


def shrink(harness: Harness, data: Mapping[str, Any], result: CaseResult | None = None, *, budget: int = BUDGET) -> Shrunk:
    """The smallest case found that fails like filled case `data` (run first if `result` is None)."""
    return _Shrinker(harness, dict(data), result, budget).run()


# ---------------------------------------------------------------------------------- where a case diverges
@dataclass(frozen=True)
class Spot:
    """Where the first divergence of a case is: which hand, how many of its plays come before
    it, and whether it is the `legal` event of a decision (else: the start, or a play's events)."""

    hand: int
    plays: int
    at_legal: bool


def spot(expect: Sequence[Mapping[str, Any]], index: int) -> Spot:
    hand = plays = 0
    for event in expect[: max(0, index)]:
        kind = event.get("event")
        if kind == "legal":
            plays += 1
        elif kind == "hand_end":
            hand, plays = hand + 1, 0
    at_legal = index < len(expect) and expect[index].get("event") == "legal"
    return Spot(hand, plays, at_legal)


def _sort_key(data: Mapping[str, Any]) -> tuple:
    hands = data["hands"]
    disorder = sum(a > b for hand in hands for order in hand["decks"] for a, b in itertools.pairwise(order))
    moves = sum(len(h["moves"]) for h in hands)
    return (case_length(data), len(hands), data["players"], moves, disorder)


def _dealers(expect: Sequence[Mapping[str, Any]]) -> list[int]:
    """The dealer of each hand (a redealt hand starts again with the same dealer)."""
    found: list[int] = []
    previous = None
    for event in expect:
        if event.get("event") == "hand_start" and not (previous is not None and previous.get("event") == "opening"):
            found.append(int(event["dealer"]))
        previous = event
    return found


def _hand_points(expect: Sequence[Mapping[str, Any]]) -> list[list[int]]:
    return [list(e.get("points", [])) for e in expect if e.get("event") == "hand_end"]


# ---------------------------------------------------------------------------------- the shrinker
class _Shrinker:
    def __init__(self, harness: Harness, data: dict, result: CaseResult | None, budget: int):
        self.harness, self.budget = harness, budget
        self.best = data
        self.result = result if result is not None else harness.run(data)
        self.wanted = signature(self.result)
        self.steps: list[str] = []
        self.tried = self.built = 0
        self.seen: set[str] = set()
        self.original = case_length(data)
        self._rules: tuple[str, Any] | None = None

    def run(self) -> Shrunk:
        passes = (self.fewer_hands, self.stop_early, self.deal_first, self.fewer_players, self.simpler_stock,
                  self.replay, self.sooner)  # fmt: skip
        progress = self.wanted[0] != "pass"
        while progress and self.tried < self.budget and self.built < FILL_BUDGET:
            progress = False
            for step in passes:
                if self._first_that_holds(step()):
                    progress = True
                    break
        data = dict(self.best)
        notes = list(data.get("notes") or [])
        if self.steps:
            notes.append(
                f"Shrunk by escoba shrink from {self.original} to {case_length(data)} events ({self.tried} smaller "
                f"cases tried on the engine), keeping the divergence {describe(self.wanted)}: " + "; ".join(self.steps) + "."
            )
        why = self._why_not_shorter()
        if why:
            notes.append(f"{WHY_NOT_SHORTER} {why}")
        data["notes"] = notes
        return Shrunk(data, self.result, self.steps, self.tried, self.original)

    def _first_that_holds(self, candidates: Iterator[tuple[str, dict]]) -> bool:
        """Run candidates until one is shorter and fails the same way; keep it."""
        for description, candidate in candidates:
            if self.tried >= self.budget or self.built >= FILL_BUDGET:
                return False
            key = json.dumps([candidate.get(k) for k in ("kind", "players", "dealer", "target", "hands", "probe")], sort_keys=True)
            if key in self.seen:
                continue
            self.seen.add(key)
            self.built += 1
            try:
                filled = _keep_pins(fill_case({**candidate, "pins": []}, self.harness.folder), candidate.get("pins") or [])
            except (EscobaError, ValueError, KeyError, IndexError):
                continue  # not a playable case (a probe that became legal, a match that does not end)
            if _sort_key(filled) >= _sort_key(self.best):
                continue
            self.tried += 1
            result = self.harness.run(filled)
            if signature(result) == self.wanted:
                self.steps.append(f"{description} ({case_length(self.best)} → {case_length(filled)} events)")
                self.best, self.result = filled, result
                return True
        return False

    # ------------------------------------------------------------------ facts about the current best
    @property
    def rules(self) -> Any:
        from escoba.transcript.case import case_from_data

        if self._rules is None or self._rules[0] != self.best["ruleset"]:
            path = self.harness.folder / f"{self.best['id']}.json" if self.harness.folder is not None else None
            self._rules = (self.best["ruleset"], case_from_data(self.best, path, replay=False).rules)
        return self._rules[1]

    def spot(self) -> Spot | None:
        index = self.result.index
        if index is None:
            return None
        return spot(self.best["expect"], index)

    def _replay(self, data: Mapping[str, Any], hand_index: int, plays: int) -> Hand:
        """The reference hand of `data`'s hand `hand_index` after `plays` of its moves."""
        from escoba.notation import parse_move

        rules = self.rules
        code = {c: i for i, c in enumerate(rules.deck.code)}
        spec = data["hands"][hand_index]
        dealer = _dealers(data["expect"])[hand_index]
        hand = Hand(rules, data["players"], dealer, iter([[code[c] for c in order] for order in spec["decks"]]))
        for text in spec["moves"][:plays]:
            hand.apply(parse_move(text, rules.deck))
        return hand

    def _variant(self, **changes: Any) -> dict:
        # from_text numbers the events of a source's own example: a smaller case has other events.
        data = {k: v for k, v in self.best.items() if k not in ("expect", "requires", "from_text")}
        if data.get("audit") == "text":
            data["audit"] = "hand"
        data.update(changes)
        if data.get("kind") != "game":
            data.pop("generator", None)  # a line cut short or dealt anew is no bot's game
        if data.get("kind") != "perft":
            data.pop("perft", None)
        if data.get("kind") != "probe":
            data.pop("probe", None)
        return data

    # ------------------------------------------------------------------ 1. fewer hands
    def fewer_hands(self) -> Iterator[tuple[str, dict]]:
        best, where = self.best, self.spot()
        if best["target"] is None:
            return
        hands, dealers = best["hands"], _dealers(best["expect"])
        last = where.hand if where is not None and where.hand < len(hands) else len(hands) - 1
        yield (f"hand {last + 1} of the match played alone", self._variant(target=None, dealer=dealers[last], hands=[hands[last]]))
        points = _hand_points(best["expect"])
        for first in range(last + 1):
            kept = hands[first : last + 1]
            totals = [0] * max((len(p) for p in points), default=0)
            reached = []
            for p in points[first : last + 1]:
                totals = [a + b for a, b in zip(totals, p)]
                reached.append(max(totals, default=0))
            before = max(reached[:-1], default=0)
            for target in range(before + 1, reached[-1] + 1):
                what = f"hands {first + 1}-{last + 1} of the match with the target {target}" if len(kept) > 1 else f"hand {first + 1} alone as a match to {target}"
                yield (what, self._variant(target=target, dealer=dealers[first], hands=kept))

    # ------------------------------------------------------------------ 2. stop at the divergence
    def stop_early(self) -> Iterator[tuple[str, dict]]:
        best, where = self.best, self.spot()
        if best["kind"] == "perft" or best["target"] is not None or where is None:
            return
        moves = best["hands"][0]["moves"]
        if best["kind"] == "game" and where.plays >= len(moves):
            return  # the divergence is on the hand's last play or after: the whole hand is needed
        if best["kind"] == "probe" and where.plays > len(moves):
            return  # the probe itself: the case already stops there
        kept = moves[: where.plays]
        when = "at its first decision" if not kept else f"after {len(kept)} play{'s' if len(kept) > 1 else ''}"
        yield (
            f"the hand stopped {when} (a perft count of depth 1 ends the case there)",
            self._variant(kind="perft", perft={"depth": 1, "count": 1}, hands=[{**best["hands"][0], "moves": kept}]),
        )

    # ------------------------------------------------------------------ 3. deal the position at once
    def deal_first(self) -> Iterator[tuple[str, dict]]:
        best, where = self.best, self.spot()
        if best["kind"] == "game" or best["target"] is not None or where is None:
            return
        moves = best["hands"][0]["moves"]
        if not moves:
            return
        # The divergence is at a decision (deal that position, keep no move), in a play's events
        # (deal the position before it, keep that play), or the probe (deal the probe's position).
        if where.at_legal or where.plays > len(moves):
            at, keep = min(where.plays, len(moves)), []
        elif where.plays >= 1:
            at, keep = where.plays - 1, [moves[where.plays - 1]]
        else:
            return
        try:
            hand = self._replay(best, 0, at)
        except EscobaError:
            return
        if hand.is_over:
            return
        for table, note in self._tables(hand):
            data = self._dealt(hand, table, keep, hand.players)
            if data is not None:
                yield (f"the position of decision {at + 1} dealt at once{note}", data)

    def _involved(self) -> set[int]:
        """Cards the first divergence names: in the moves or cards missing and extra, or in the
        fields that differ."""
        from escoba.conformance.compare import same

        codes = {c: i for i, c in enumerate(self.rules.deck.code)}
        found: set[int] = set()

        def walk(value: Any) -> None:
            if isinstance(value, str) and value in codes:
                found.add(codes[value])
            elif isinstance(value, dict):
                for v in value.values():
                    walk(v)
            elif isinstance(value, list):
                for v in value:
                    walk(v)

        d = self.result.divergence
        for f in d.diff if d is not None else ():
            if isinstance(f.expected, list) and isinstance(f.observed, list):
                walk([x for x in f.expected if not any(same(x, y) for y in f.observed)])
                walk([y for y in f.observed if not any(same(x, y) for x in f.expected)])
            else:
                walk(f.expected)
                walk(f.observed)
        return found

    def _tables(self, hand: Hand) -> Iterator[tuple[list[int], str]]:
        """Tables of the ruleset's size made from the position's table."""
        size, table = hand.rules.table_size, list(hand.table)
        pool = list(hand.stock)
        rng = random.Random(len(table) * 131 + len(pool))
        if len(table) == size:
            yield table, ""
        elif len(table) < size:
            need = size - len(table)
            if len(pool) < need:
                return
            yield table + pool[:need], f" (the table topped up with {need} card{'s' if need > 1 else ''} from the stock)"
            by_value = sorted(pool, key=lambda c: -hand.rules.deck.value[c])
            yield table + by_value[:need], " (the table topped up with high cards)"
            for _ in range(2):
                yield table + rng.sample(pool, need), " (the table topped up with other cards)"
        else:
            involved = [c for c in table if c in self._involved()]
            if len(involved) > size:
                involved = []
            others = [c for c in table if c not in involved]
            yield involved + others[: size - len(involved)], f" (the table trimmed to {size} cards)"
            for _ in range(3):
                yield involved + rng.sample(others, size - len(involved)), f" (the table trimmed to {size} cards)"

    def _dealt(self, hand: Hand, table: list[int], keep: list[str], players: int) -> dict | None:
        """A case whose first deal is `hand`'s position (the seat to play leading), with `players` seats."""
        rules = hand.rules
        size = rules.hand_size
        seat = hand.to_play
        assert seat is not None
        order_from_mover = turn_order(seat, rules.direction, hand.players)[:players]
        pool = [c for c in hand.stock if c not in table]
        held: list[list[int]] = []
        for s in order_from_mover:
            cards = [c for c in hand.hands[s] if c not in table][:size]
            while len(cards) < size and pool:
                cards.append(pool.pop(0))
            held.append(cards)
        # Seat the mover as the leader: the dealer sits `leader_offset` before it.
        mover = 0
        dealer = dealer_for(mover, rules.leader_offset, players)
        by_seat: list[list[int]] = [[] for _ in range(players)]
        for seat_, cards in zip(turn_order(mover, rules.direction, players), held):
            by_seat[seat_] = cards
        try:
            order = arrange_deck(rules, players, dealer, table, [by_seat], pool)
        except EscobaError:
            return None
        code = rules.deck.code
        kind = self.best["kind"]
        data = self._variant(players=players, dealer=dealer, hands=[{"decks": [[code[c] for c in order]], "moves": list(keep)}])
        if kind == "perft":
            data["perft"] = {"depth": 1, "count": 1}
        return data

    # ------------------------------------------------------------------ 4. fewer players
    def fewer_players(self) -> Iterator[tuple[str, dict]]:
        best = self.best
        if best["kind"] == "game" or best["target"] is not None or best["hands"][0]["moves"]:
            return
        if len(best["hands"][0]["decks"]) > 1:
            return  # a redeal: the position is not the first deck order's
        try:
            hand = self._replay(best, 0, 0)
        except EscobaError:
            return
        if hand.is_over:
            return
        counts = [p for p in hand.rules.player_counts if p < best["players"] and self.harness.supports(f"players:{p}")]
        for players in sorted(counts):
            data = self._dealt(hand, list(hand.table), [], players)
            if data is not None:
                yield (f"the same position at {players} players", data)

    # ------------------------------------------------------------------ 5. a simpler deck order
    def simpler_stock(self) -> Iterator[tuple[str, dict]]:
        best = self.best
        if best["kind"] == "game" or best["target"] is not None:
            return
        try:
            hand = self._replay(best, 0, len(best["hands"][0]["moves"]))
        except EscobaError:
            return
        rules, spec = hand.rules, best["hands"][0]
        order = hand.deck_orders[-1]
        used = len(order) - len(hand.stock)
        rest = sorted(order[used:])
        if rest == order[used:]:
            return
        code = rules.deck.code
        decks = [*spec["decks"][:-1], [code[c] for c in order[:used] + rest]]
        yield ("the cards no event reaches put in deck order", self._variant(hands=[{**spec, "decks": decks}]))

    # ------------------------------------------------------------------ 6. the same deal played again
    def replay(self) -> Iterator[tuple[str, dict]]:
        """Other players and choices on the first deck order, for what shows only at a hand's end."""
        from escoba.engine.hand import shuffled_decks
        from escoba.explore.games import LATER, STYLES, TIE, Setup, chain, play_game

        best = self.best
        if best["kind"] != "game":
            return
        rules = self.rules
        codes = {c: i for i, c in enumerate(rules.deck.code)}
        first = [codes[c] for c in best["hands"][0]["decks"][0]]
        counts = [p for p in rules.player_counts if self.harness.supports(f"players:{p}")]
        rng = random.Random(len(self.steps) * 7 + len(first))
        # A match again: to a target chosen where two sides tie, or that a second hand reaches,
        # or to a low one. The most players first: a hand at four is dealt in fewer rounds.
        targets = [None] if best["target"] is None else [TIE, LATER, 1, 2]
        sizes = sorted(counts, reverse=True) or [best["players"]]
        for k in range(REPLAYS):
            players = sizes[0] if k % 3 != 2 else sizes[(k // 3) % len(sizes)]
            styles = tuple(rng.choice(STYLES) for _ in range(players))
            target = targets[k % len(targets)]
            setup = Setup(players, k % players, target, "shuffled", styles, rng.randrange(1 << 31))
            game = play_game(rules, setup, decks=chain([first], shuffled_decks(rules, random.Random(setup.seed))))
            if game is None:
                continue
            what = "a match" if target is not None else "the deal"
            data = self._variant(players=players, dealer=setup.dealer, target=game.setup.target, hands=game.hands,
                                 generator={"seed": setup.seed, "bots": list(styles)})
            yield (f"{what} played again at {players} players by {', '.join(styles)} players", data)

    # ------------------------------------------------------------------ 7. the same divergence sooner
    def sooner(self) -> Iterator[tuple[str, dict]]:
        """For a hand stopped after some plays: other lines from the same deal, each run on the
        engine whole; one that shows the divergence after fewer plays is stopped there."""
        from escoba.engine.hand import shuffled_decks
        from escoba.explore.games import STYLES, Setup, chain, play_game

        best, where = self.best, self.spot()
        if best["kind"] != "perft" or where is None or not best["hands"][0]["moves"]:
            return
        rules = self.rules
        codes = {c: i for i, c in enumerate(rules.deck.code)}
        first = [codes[c] for c in best["hands"][0]["decks"][0]]
        rng = random.Random(len(first) * 31 + where.plays)
        for _ in range(SOONER):
            if self.tried >= self.budget:
                return
            styles = tuple(rng.choice(STYLES) for _ in range(best["players"]))
            setup = Setup(best["players"], best["dealer"], None, "shuffled", styles, rng.randrange(1 << 31))
            game = play_game(rules, setup, decks=chain([first], shuffled_decks(rules, random.Random(setup.seed))))
            if game is None:
                continue
            whole = self._variant(kind="game", hands=game.hands, generator={"seed": setup.seed, "bots": list(styles)})
            try:
                whole = fill_case(whole, self.harness.folder)
            except (EscobaError, ValueError, KeyError, IndexError):
                continue
            self.tried += 1
            result = self.harness.run(whole)
            if signature(result) != self.wanted or result.index is None:
                continue
            there = spot(whole["expect"], result.index)
            if there.plays < where.plays:
                cut = {**whole, "kind": "perft", "perft": {"depth": 1, "count": 1}}
                cut["hands"] = [{**whole["hands"][0], "moves": whole["hands"][0]["moves"][: there.plays]}]
                cut.pop("generator", None)
                yield (f"another line from the same deal, which shows it after {there.plays} plays", cut)

    # ------------------------------------------------------------------ notes
    def _why_not_shorter(self) -> str | None:
        best, where = self.best, self.spot()
        if self.wanted[0] == "pass":
            return None
        if best["kind"] in ("perft", "probe"):
            return self._why_not_sooner()
        plays = sum(len(h["moves"]) for h in best["hands"])
        if best["target"] is not None:
            hands = len(best["hands"])
            why = (
                f"the divergence ({describe(self.wanted)}) shows only in a match, so the case plays whole hands: "
                f"{hands} hand{'s' if hands > 1 else ''} ({plays} plays) to the target {best['target']}"
            )
            tied = [i for i, e in enumerate(best["expect"]) if e.get("event") == "tie"]
            if tied and hands > 1:
                why += "; after an exact tie over the target this ruleset plays another hand (match.tie: extra_hand), and the case must end with the match"
            elif where is not None and where.hand > 0:
                why += f"; the divergence is in hand {where.hand + 1}, and no shorter match found shows it"
            return why + "."
        if where is not None and where.plays >= len(best["hands"][0]["moves"]):
            return (
                f"the divergence ({describe(self.wanted)}) shows only on the hand's last play or after it, so the "
                f"case plays the whole hand, every card dealt: {_composition(best['expect'])}."
            )
        return None

    def _why_not_sooner(self) -> str | None:
        """For a case stopped after some plays: why it is not stopped sooner."""
        best = self.best
        if best["hands"][0]["moves"]:
            hand = self._replay(best, 0, len(best["hands"][0]["moves"]))
            return (
                f"the divergence ({describe(self.wanted)}) shows after {len(best['hands'][0]['moves'])} plays, with "
                f"{len(hand.table)} card(s) on the table; a deal turns up {hand.rules.table_size}, and neither that "
                f"position dealt at once nor another line from the same deal showed it sooner."
            )
        return None


def _keep_pins(data: dict, pins: Sequence[Mapping[str, Any]]) -> dict:
    """The hand-written pins of the case being shrunk that still hold in a smaller one (a pin
    that names its place, `at`, only where that place still holds it)."""
    from escoba.transcript.case import pin_found

    return {**data, "pins": [p for p in pins if pin_found(p, data["expect"])]}


def _composition(expect: Sequence[Mapping[str, Any]]) -> str:
    """What a whole hand's events are: `3 deals, 36 legal lists, 36 plays, 1 escoba, 5 scores, …`."""
    counts: dict[str, int] = {}
    for event in expect:
        counts[str(event.get("event"))] = counts.get(str(event.get("event")), 0) + 1
    words = {"legal": "legal list", "hand_start": "hand start", "hand_end": "hand end", "match_end": "match end"}
    parts = [f"{n} {words.get(kind, kind)}{'s' if n > 1 and kind not in ('leftovers', 'totals') else ''}" for kind, n in counts.items()]
    return f"{len(expect)} events ({', '.join(parts)})"
