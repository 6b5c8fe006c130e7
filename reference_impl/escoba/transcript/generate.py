"""Regenerate the golden data: `python -m escoba.transcript.generate [--check]`.

- **Generated games** (`cases/generated/<ruleset>.<players>p.<n>.json`, audit "generated"):
  one or two seeded bot games for every bundled ruleset and player count, rewritten whole.
- **Perft cases** (`cases/perft/*.json`, audit "generated"): fixed deck orders, the count
  recomputed.
- **Games the ruleset audit chose** (`cases/audit/suggest.<ruleset>.<n>.json`, audit "generated",
  kept from `escoba cases audit --suggest`): only `expect` is recomputed, as below.
- **Hand-audited and text cases** (audit "hand" / "text"): only `expect` (and nothing else) is
  recomputed from their hands and moves. Their `pins` are written by a person from the rule
  text and are never touched: if a recomputed `expect` no longer satisfies a pin, the case is
  not written and the command fails, naming the pin. That is the point of pins: an engine
  change cannot quietly rewrite what a person audited.

`--check` writes nothing and fails if any file would change (for CI).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from escoba.errors import EscobaError
from escoba.outputs import write_atomic
from escoba.transcript.build import PinMismatch, dump_case, fill
from escoba.transcript.case import cases_dir, iter_case_files, lowest_format

GENERATED = "generated"
PERFT = "perft"


# --------------------------------------------------------------------------- the plan


def _source_like(rules) -> bool:
    return rules.doc.get("kind") in ("base", "source")


def game_plan() -> list[dict]:
    """Every generated game: one per bundled ruleset and player count, a second one for the
    base and the source rulesets (the ones most engines implement first)."""
    import escoba
    from escoba.rules import bundled_ids

    plan = []
    for ruleset in bundled_ids():
        rules = escoba.load_ruleset(ruleset)
        for players in rules.player_counts:
            for n in (1, 2) if _source_like(rules) and players == 2 else (1,):
                case_id = f"{ruleset}.{players}p.{n}"
                seed = zlib.crc32(case_id.encode())  # stable, and independent of the plan's order
                bots = ["greedy" if (seat + n) % 2 == 0 else "random" for seat in range(players)]
                plan.append(
                    {
                        "id": case_id,
                        "title": f"{ruleset}, {players} players: a seeded game between "
                        + " and ".join(f"a {b} bot" for b in bots),
                        "kind": "game",
                        "ruleset": ruleset,
                        "players": players,
                        "dealer": n % players,
                        "target": None,
                        "clause": "game",
                        "audit": "generated",
                        "generator": {"seed": seed, "bots": bots},
                        "pins": [],
                    }
                )
    return plan


@dataclass(frozen=True)
class PerftSpec:
    id: str
    title: str
    ruleset: str
    players: int
    dealer: int
    seed: int
    depth: int
    moves: tuple[str, ...] = ()


# Decks from fixed seeds, chosen so that captures (several subsets, jokers, hand-level forcing)
# are on the table at the first decisions; counts stay in the thousands so that a runner that
# replays every line through a subprocess still finishes in seconds.
PERFT_PLAN: tuple[PerftSpec, ...] = (
    PerftSpec("perft.base.2p.d5", "base, 2 players: distinct play sequences to depth 5", "base", 2, 0, 262, 5),
    PerftSpec("perft.fr.2p.d4", "fr (capture optional: every card may also be placed): depth 4", "fr", 2, 1, 262, 4),
    PerftSpec("perft.de.4p.d4", "de, 4 players in partnerships (capture compulsory for the hand): depth 4", "de", 4, 0, 7, 4),
    PerftSpec("perft.de-jokers.2p.d4", "de-jokers (wild jokers in hand and on the table): depth 4", "de-jokers", 2, 0, 186, 4),
    PerftSpec("perft.sv.3p.d5", "sv, 3 players (dealer's left leads, table turned first): depth 5", "sv", 3, 2, 61, 5),
)


def play_game(spec: dict) -> dict:
    """Deal from the seed and let the bots play: the case's hands."""
    import escoba
    from escoba.engine.bots import bot_maker
    from escoba.engine.hand import Hand, shuffled_decks
    from escoba.notation import format_move

    rules = escoba.load_ruleset(spec["ruleset"])
    seed = spec["generator"]["seed"]
    hand = Hand(rules, spec["players"], spec["dealer"], shuffled_decks(rules, random.Random(seed)), record=False)
    bots = [bot_maker(name)(seed + seat) for seat, name in enumerate(spec["generator"]["bots"])]
    moves = []
    while not hand.is_over:
        assert hand.to_play is not None
        move = bots[hand.to_play](hand)
        moves.append(format_move(move, rules.deck))
        hand.apply(move)
    decks = [[rules.deck.code[c] for c in order] for order in hand.deck_orders]
    return {**spec, "hands": [{"decks": decks, "moves": moves}]}


def perft_case(spec: PerftSpec) -> dict:
    import escoba
    from escoba.engine.hand import shuffled_decks

    rules = escoba.load_ruleset(spec.ruleset)
    decks = shuffled_decks(rules, random.Random(spec.seed))
    return {
        "id": spec.id,
        "title": spec.title,
        "kind": "perft",
        "ruleset": spec.ruleset,
        "players": spec.players,
        "dealer": spec.dealer,
        "target": None,
        "clause": "legal_moves",
        "audit": "generated",
        "pins": [],
        "hands": [{"decks": [[rules.deck.code[c] for c in next(decks)]], "moves": list(spec.moves)}],
        "perft": {"depth": spec.depth, "count": 1},
    }


# --------------------------------------------------------------------------- writing


class Generator:
    def __init__(self, root: Path, check: bool, out=sys.stdout, *, generated: bool = True):
        # generated=False: only refill the audited cases found under root (used by the tests)
        self.root, self.check, self.out, self.generated = root, check, out, generated
        self.changed: list[Path] = []
        self.unchanged = 0
        self.removed: list[Path] = []
        self.failures: list[str] = []

    def write(self, path: Path, data: dict) -> None:
        try:
            text = dump_case(fill(data, path))
        except (PinMismatch, EscobaError) as e:
            self.failures.append(str(e))
            return
        old = path.read_text(encoding="utf-8") if path.exists() else None
        if old == text:
            self.unchanged += 1
            return
        self.changed.append(path)
        if not self.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, text)  # an interrupted run leaves each case whole, old or new

    def run(self) -> int:
        planned: set[Path] = set()
        for spec in game_plan() if self.generated else ():
            path = self.root / GENERATED / f"{spec['id']}.json"
            planned.add(path)
            game = play_game(spec)
            self.write(path, {"format": lowest_format(game), **game})
        for perft in PERFT_PLAN if self.generated else ():
            path = self.root / PERFT / f"{perft.id}.json"
            planned.add(path)
            case = perft_case(perft)
            self.write(path, {"format": lowest_format(case), **case})
        if self.root.is_dir():
            for path in iter_case_files(self.root):
                if path in planned:
                    continue
                try:
                    data = json.loads(path.read_text(encoding="utf-8"))
                except (OSError, ValueError) as e:
                    self.failures.append(f"{path}: cannot read: {e}")
                    continue
                owned = path.parent in (self.root / GENERATED, self.root / PERFT)
                if isinstance(data, dict) and data.get("audit") == "generated" and self.generated and owned:
                    # A case of the plan's folders the plan no longer makes has no other owner.
                    # Elsewhere (cases/audit/, the games the ruleset audit chose) only expect is
                    # recomputed, as for a hand case.
                    self.removed.append(path)
                    if not self.check:
                        path.unlink()
                    continue
                self.write(path, data)  # hand / text: only expect is recomputed
        return self.report()

    def report(self) -> int:
        verb = "would change" if self.check else "wrote"
        for path in self.changed:
            print(f"{verb} {path}", file=self.out)
        for path in self.removed:
            print(f"{'would remove' if self.check else 'removed'} {path}", file=self.out)
        for failure in self.failures:
            print(f"error: {failure}", file=self.out)
        print(
            f"{len(self.changed)} {verb}, {self.unchanged} unchanged, {len(self.removed)} removed, "
            f"{len(self.failures)} failed",
            file=self.out,
        )
        if self.failures:
            return 1
        return 1 if self.check and (self.changed or self.removed) else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m escoba.transcript.generate",
        description="Regenerate generated and perft cases; recompute expect of audited cases (never their pins).",
        epilog="examples:\n  python -m escoba.transcript.generate\n  python -m escoba.transcript.generate --check",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if anything would change")
    parser.add_argument("--root", type=Path, default=None, help="the cases folder (default: the bundled conformance/cases)")
    args = parser.parse_args(argv)
    return Generator(args.root or cases_dir(), args.check).run()


if __name__ == "__main__":
    sys.exit(main())
