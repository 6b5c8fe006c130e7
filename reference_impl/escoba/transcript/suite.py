"""A conformance suite for any ruleset: what `escoba cases generate` writes and what
`escoba conformance --ruleset FILE` runs.

An engine author's own rules have no golden cases, so they are made here, from the reference
engine, for that ruleset:

- **seeded games**: for every player count, two games between a greedy and a random bot;
- **targeted positions**: for every rule point the ruleset sets that no case exercises yet, a
  position that does (`escoba.protocol.features` says when a case exercises a point): opening
  tables of the target and of twice the target, split or not, or with a part making the target
  (dealt with `escoba.engine.arrange.arrange_deck`), ties in each category, a side exactly at
  each threshold, leftovers when nobody captured (bots that never capture, where capture is
  optional), a sweep on the last play, and matches that end with several sides over the target
  or in an exact tie (short targets, so matches end soon);
- **probes**: a move the engine must refuse, for each refusal class the rules allow;
- **a perft count** from a seeded deal.

Every case is built by `escoba.transcript.build.fill`, exactly like a bundled one, and is
`audit: generated`: its expected events come from the reference engine, so it checks that an
engine plays these rules as the reference reads them (it audits nothing the reference might
get wrong). A point no search within the budget exercises is reported in `missed`.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from escoba.engine.arrange import arrange_deck
from escoba.engine.bots import BOTS
from escoba.engine.hand import Hand, shuffled_decks
from escoba.engine.match import Match
from escoba.game.moves import Move
from escoba.rules.points import Recipe
from escoba.transcript.case import FORMAT
from escoba.transcript.record import legal_event

if TYPE_CHECKING:
    from escoba.outputs import OutputFolder

MAX_PLAYERS = 4  # games at more players than this are left to the engine author's own cases
BUDGET = 80  # games tried per rule point before giving up on it


@dataclass
class Suite:
    """Generated case data (ready to write or load) and the points no case could exercise."""

    cases: list[dict] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)


@dataclass
class Game:
    """A game played out: the case's hands and the expected events (as `Replay` builds them)."""

    players: int
    dealer: int
    target: int | None
    hands: list[dict]
    events: list[dict]
    bots: list[str]
    seed: int


def _seed(*parts: Any) -> int:
    return zlib.crc32(".".join(map(str, parts)).encode())


def _placer(seed: int) -> Callable[[Hand], Move]:
    """Places a card whenever the rules let it, so that (with optional capture) nobody captures."""
    rng = random.Random(seed)

    def play(hand: Hand) -> Move:
        moves = hand.legal_moves()
        placements = [m for m in moves if not m.take]
        return rng.choice(placements or moves)

    return play


_BOTS: dict[str, Callable[[int], Callable[[Hand], Move]]] = {**BOTS, "placer": _placer}


def play(rules: Any, players: int, dealer: int, decks: Iterator[list[int]], bots: Sequence[str], seed: int, target: int | None = None) -> Game:
    """Play a hand (or a match to `target`) with seeded bots; the events a case would expect."""
    from escoba.notation import format_move

    seats = [_BOTS[name](seed + seat) for seat, name in enumerate(bots)]
    code = rules.deck.code
    events: list[dict] = []
    hands: list[dict] = []
    match = Match(rules, players, dealer=dealer, target=target, decks=decks) if target is not None else None
    while True:
        hand = match.new_hand() if match is not None else Hand(rules, players, dealer, decks)
        assert hand.events is not None
        events.extend(hand.events)
        moves = []
        while not hand.is_over:
            events.append(legal_event(hand))
            assert hand.to_play is not None
            move = seats[hand.to_play](hand)
            moves.append(format_move(move, rules.deck))
            events.extend(hand.apply(move))
        hands.append({"decks": [[code[c] for c in order] for order in hand.deck_orders], "moves": moves})
        if match is None:
            break
        events.extend(match.end_hand())
        if match.is_over:
            break
    return Game(players, dealer, target, hands, events, list(bots), seed)


class Builder:
    """Builds the suite of one ruleset (see the module's docstring)."""

    def __init__(self, ruleset: str, out: Path, ref: str, stem: str, budget: int = BUDGET):
        import escoba
        from escoba.rules import load_resolved

        self.doc = load_resolved(ruleset).doc
        self.rules = escoba.load_ruleset(ruleset)
        self.out, self.ref, self.stem, self.budget = out, ref, stem, budget
        self.counts = [p for p in self.rules.player_counts if p <= MAX_PLAYERS] or [min(self.rules.player_counts)]
        self.suite = Suite()
        self.exercised: set[str] = set()  # rule points some case exercises

    # ------------------------------------------------------------------ the plan
    def build(self) -> Suite:
        from escoba.rules.points import positions

        for players in self.counts:
            for n, bots in enumerate((("greedy", "random"), ("random", "greedy")), 1):
                seed = _seed(self.stem, "game", players, n)
                chosen = [bots[seat % 2] for seat in range(players)]
                game = play(self.rules, players, n % players, self._decks(seed), chosen, seed)
                self.add(game, f"game.{players}p.{n}", "game", f"a seeded game at {players} players between " + " and ".join(f"a {b} bot" for b in chosen))
        for point in positions(self.doc):
            if point.key not in self.exercised:
                self.target(point)
        for extra in (self.ties, self.threshold_edges, self.probes, self.perft):
            extra()
        return self.suite

    def add(self, game: Game, name: str, clause: str, title: str, *, extra: dict | None = None) -> dict:
        from escoba.protocol.features import point_of

        data = {
            "format": FORMAT, "id": f"{self.stem}.{name}", "title": f"{self.stem}: {title}", "kind": "game",
            "ruleset": self.ref, "players": game.players, "dealer": game.dealer, "target": game.target,
            "clause": clause, "audit": "generated", "generator": {"seed": game.seed, "bots": game.bots},
            "pins": [], "hands": game.hands, "expect": [], **(extra or {}),
        }  # fmt: skip
        filled = self.fill(data)
        self.suite.cases.append(filled)
        for feature in filled["requires"]:
            point = point_of(feature)
            if point is not None:
                self.exercised.add(point)
                if point.endswith(".award"):
                    self.exercised.add(point.removesuffix(".award"))
        return filled

    def fill(self, data: dict) -> dict:
        """The case with its expected events, checked as if it were the file it will be."""
        from escoba.transcript.build import fill

        return fill(data, self.out / f"{data['id']}.json")

    def _decks(self, seed: int) -> Iterator[list[int]]:
        return shuffled_decks(self.rules, random.Random(seed))

    # ------------------------------------------------------------------ one point
    def target(self, point: Any) -> None:
        """Search for a game that exercises `point`; give up after the budget."""
        from escoba.protocol.features import Facts, point_features
        from escoba.rules.points.base import never

        rule = point.rule
        possible = rule.recipe.possible
        if rule.exercised is never or (possible is not None and not possible(self.rules, self.counts)):
            return
        for k, (players, dealer, decks, bots, target) in enumerate(self.candidates(point.key, rule.recipe)):
            if k >= self.budget:
                break
            seed = _seed(self.stem, point.key, k)
            try:
                game = play(self.rules, players, dealer, decks, bots, seed, target)
            except Exception:  # a redeal that runs out of deck orders, a match without end
                continue
            facts = Facts(self.doc, players, target, game.events)
            if rule.key == "scoring.*":  # a category: its award
                found = bool(facts.scored(point.key.split(".")[1]))
            else:
                found = bool(point_features(point, facts))
            if found:
                self.add(game, point.key.replace("_", "-"), point.key, f"a position that exercises {point.key} ({point.label})")
                return
        self.suite.missed.append(point.key)

    def candidates(self, key: str, recipe: Recipe) -> Iterator[tuple[int, int, Iterator[list[int]], list[str], int | None]]:
        """Tables, seats, deck orders, bots and target to try for a point (its `recipe`), most
        likely first."""
        counts = [p for p in self.counts if p >= recipe.min_players] or self.counts
        bots = list(recipe.bots)
        k = 0
        while True:
            players = counts[k % len(counts)]
            seed = _seed(self.stem, key, "deal", k)
            chosen = [bots[(seat + k) % len(bots)] for seat in range(players)]
            target = self._short_target(k) if recipe.match else None
            dealer = k % players
            decks = self._opening_decks(players, dealer, seed, k) if recipe.opening_tables else self._decks(seed)
            yield players, dealer, decks, chosen, target
            k += 1

    def _short_target(self, k: int) -> int:
        """Short matches end soon and tie often; the case's `start` names its own target."""
        return 2 + k % 5

    def _opening_decks(self, players: int, dealer: int, seed: int, k: int) -> Iterator[list[int]]:
        """Deck orders whose table is one of the tables an opening rule acts on (`arrange_deck`):
        the target, twice the target split or not, a part making the target."""
        rng = random.Random(seed)
        finder, size = self.rules.finder, self.rules.table_size
        kinds = ("split", "one", "part", "any")
        want = kinds[k % len(kinds)]
        cards = list(self.rules.deck.cards)
        for _ in range(2000):
            table = rng.sample(cards, size)
            two, one = finder.split_groups(table, 2), finder.split_groups(table, 1)
            if (
                (want == "split" and two >= 2)
                or (want == "one" and one == 1)
                or (want == "part" and not two and finder.any_combination(table))
                or want == "any"
            ):
                break
        rest = [c for c in cards if c not in table]
        rng.shuffle(rest)
        # The first round of hands named too: where the hands are dealt before the table, the
        # deck order of a table alone would deal its cards to the hands.
        size = self.rules.hand_size
        first_round = [rest[seat * size : (seat + 1) * size] for seat in range(players)]
        first = arrange_deck(self.rules, players, dealer, table, [first_round], rest[players * size :])
        return iter([first, *(list(d) for d, _ in zip(self._decks(seed + 1), range(4)))])

    # ------------------------------------------------------------------ extras
    def ties(self) -> None:
        """For each `most` category, a hand where the leaders tie (the tie rule decides)."""
        for cat in self.rules.categories:
            if cat.policy != "most" or any(f.startswith(f"scoring.{cat.id}.ties:") for c in self.suite.cases for f in c["requires"]):
                continue
            for k in range(self.budget):
                players = self.counts[k % len(self.counts)]
                seed = _seed(self.stem, cat.id, "tie", k)
                bots = [("greedy", "random")[(seat + k) % 2] for seat in range(players)]
                game = play(self.rules, players, k % players, self._decks(seed), bots, seed)
                score = next((e for e in game.events if e.get("event") == "score" and e.get("category") == cat.id), None)
                measures = [m for m in (score or {}).get("measures", []) if m is not None]
                if len(measures) >= 2 and measures.count(max(measures)) >= 2:
                    self.add(game, f"{cat.id}.tie", f"scoring.{cat.id}.award", f"{cat.id}: the leaders tie, and the tie rule ({cat.ties}) decides")
                    break

    def threshold_edges(self) -> None:
        """For each threshold, a hand where a side's measure is exactly the bound (`>` against `>=`)."""
        for cat in self.rules.categories:
            if cat.policy != "threshold" or cat.more_than is None:
                continue
            for k in range(self.budget):
                players = self.counts[k % len(self.counts)]
                seed = _seed(self.stem, cat.id, "edge", k)
                bots = [("greedy", "random")[seat % 2] for seat in range(players)]
                game = play(self.rules, players, k % players, self._decks(seed), bots, seed)
                score = next((e for e in game.events if e.get("event") == "score" and e.get("category") == cat.id), None)
                if score and any(m == cat.more_than for m in score.get("measures", [])):
                    self.add(game, f"{cat.id}.at-the-bound", f"scoring.{cat.id}.award", f"{cat.id}: a side has exactly {cat.more_than:g}, which is not more than it")
                    break

    def probes(self) -> None:
        """An illegal move for each refusal class the rules allow, at a seeded position."""
        from escoba.transcript.record import probe_reason

        players = self.counts[0]
        code = self.rules.deck.code
        for k in range(self.budget):
            seed = _seed(self.stem, "probe", k)
            hand = Hand(self.rules, players, 0, self._decks(seed))
            if hand.is_over or not any(m.take for m in hand.legal_moves()):
                continue
            seat = hand.to_play
            assert seat is not None
            other = hand.hands[(seat + 1) % players]
            held = sorted(hand.hands[seat])
            stock = hand.stock
            capture = next(m for m in hand.legal_moves() if m.take)
            wrong = next(((c, t) for c in held for t in hand.table if not self.rules.finder.makes_target((c, t))), None)
            tries: dict[str, Any] = {
                "not_in_hand": {"card": code[other[0]], "take": []} if other else None,
                "not_on_table": {"card": code[held[0]], "take": [code[stock[0]]]} if stock else None,
                "wrong_sum": {"card": code[wrong[0]], "take": [code[wrong[1]]]} if wrong else None,
                "compulsory": {"card": code[capture.card], "take": []} if self.rules.compulsory != "optional" else None,
                "malformed": {"card": "??", "take": []},
            }
            decks = [[code[c] for c in order] for order in hand.deck_orders]
            for reason, move in tries.items():
                if move is None:
                    continue
                wire = move if reason == "malformed" else " ".join([move["card"], *(["x", *move["take"]] if move["take"] else [])])
                if reason != "malformed" and probe_reason(hand, wire)[0] != reason:
                    continue
                data = {
                    "format": FORMAT, "id": f"{self.stem}.probe.{reason.replace('_', '-')}",
                    "title": f"{self.stem}: a move refused as {reason}", "kind": "probe", "ruleset": self.ref,
                    "players": players, "dealer": 0, "target": None, "clause": "legal_moves", "audit": "generated",
                    "pins": [], "hands": [{"decks": decks, "moves": []}], "probe": {"move": wire, "reason": reason},
                    "expect": [],
                }  # fmt: skip
                self.suite.cases.append(self.fill(data))
            return

    def perft(self) -> None:
        players = self.counts[0]
        seed = _seed(self.stem, "perft")
        code = self.rules.deck.code
        order = next(self._decks(seed))
        data = {
            "format": FORMAT, "id": f"{self.stem}.perft.{players}p.d3", "title": f"{self.stem}: distinct play sequences to depth 3",
            "kind": "perft", "ruleset": self.ref, "players": players, "dealer": 0, "target": None, "clause": "legal_moves",
            "audit": "generated", "pins": [], "hands": [{"decks": [[code[c] for c in order]], "moves": []}],
            "perft": {"depth": 3, "count": 1}, "expect": [],
        }  # fmt: skip
        try:
            self.suite.cases.append(self.fill(data))
        except Exception:  # a first deal that ends the hand at once, or redeals without end
            pass


RULESET_FILE = "ruleset.json"  # the copy of the ruleset the written cases name
_BUILT: dict[tuple[str, int], Suite] = {}


def write_suite(ruleset: str, out: str | Path | OutputFolder, *, budget: int = BUDGET) -> Suite:
    """Generate the suite of a ruleset (an id or a file) into the folder `out` (a path, or an
    `OutputFolder` checked already): the resolved ruleset as `ruleset.json` (the cases name it
    by that relative path, so the folder is self-contained and does not change when the
    original file is edited), and one file per case. Each file is written whole (through the
    folder, so never through a symbolic link planted in it)."""
    import json

    from escoba.outputs import OutputFolder
    from escoba.rules import load_resolved
    from escoba.transcript.build import dump_case

    folder = out if isinstance(out, OutputFolder) else OutputFolder(str(out), "--out")
    try:
        doc = load_resolved(ruleset).doc
        text = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
        copy = folder.write(RULESET_FILE, text)
        key = (text, budget)
        suite = _BUILT.get(key)
        if suite is None:  # the same rules give the same cases: built once per process
            suite = Builder(str(copy), folder.path, RULESET_FILE, str(doc["id"]), budget).build()
            if len(_BUILT) >= 8:
                _BUILT.clear()
            _BUILT[key] = suite
        for case in suite.cases:
            folder.write(f"{case['id']}.json", dump_case(case))
    finally:
        if folder is not out:
            folder.close()
    return suite
