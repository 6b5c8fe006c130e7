"""`escoba play`: a terminal game, a person in seat 0 against bots (or bots only with --auto).

The game reads lines from a stream and writes to another, so a pipe or a test can drive it
exactly as a person at a terminal does. A wrong entry never touches the game: it is turned
into a one-line message (`EntryError`) before anything is applied.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from escoba.cli.main import UsageError
from escoba.game.seats import dealer_for

# What typing a card alone does: one wording for --help, the in-game '?' and the docs.
LONE_CARD = (
    "a lone card places it, unless the rules make that card capture: "
    "then it takes, if it can take in only one way"
)

HELP = "play a game in the terminal against bots (or watch bots play with --auto)"
DESCRIPTION = """\
You sit in seat 0 and play against bots, hand after hand, until a side reaches the
target. Each turn shows the table, your hand, what each side has captured and the
running score, then the numbered legal moves. Type a move number, or a move in card
notation: a card with 'x' and the cards it takes (7♦ x 3♣ 5♥, or 7d x 3c 5h in ASCII);
{LONE_CARD}.
'?' or 'help' lists the moves, 'q' quits and prints the score so far. A wrong entry
changes nothing: a one-line message says why and the prompt comes back.

Each hand ends with its scoring: per category, each side's measure and points; at a
terminal the game waits for Enter before the next hand. Suits and the scoring table are
in colour on a terminal that shows it, unless NO_COLOR is set (--color overrides).
Input may come from a pipe; the end of input ends the game (exit status 0).

--record FILE writes the game, when it ends or you quit, as a golden case (the hands
finished so far, in the format of conformance/cases: docs/transcripts.md), so that an odd
game becomes a test: escoba conformance --cases-dir DIR runs it against any engine.
--auto --format json prints the game's events as JSON instead of the text view.""".replace("{LONE_CARD}", LONE_CARD)
EPILOG = """\
examples:
  escoba play base                            you against one greedy bot, to 21
  escoba play de --players 4 --seed 7         partners: you and seat 2 against seats 1 and 3
  escoba play de-open --players 2             every hand is played face up
  escoba play sv --auto --seed 3 --target 11  watch two bots play a short match
  escoba play sv --seed 3 --record odd-game.json   keep the game as a golden case
  escoba play da --auto --seed 1 --format json     the events of a bot game, for tools
  printf '1\\n1\\n?\\nq\\n' | escoba play base --seed 1   scripted input"""

QUIT = {"q", "quit", "exit"}
HELP_WORDS = {"?", "help", "h"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("ruleset", metavar="FILE-OR-ID", help="a ruleset file or bundled id")
    parser.add_argument("--players", type=int, metavar="N", help="players at the table (default 2, if the ruleset allows it)")
    parser.add_argument("--seed", type=int, metavar="S", help="seed for the deal and the bots (default: a fresh one, printed)")
    parser.add_argument("--bots", default="greedy", metavar="NAME[,NAME…]", help="bot per seat, repeated round the table (default greedy)")
    parser.add_argument("--auto", action="store_true", help="bots in every seat; print the whole game")
    parser.add_argument("--target", type=int, metavar="T", help="points that win the match (default the ruleset's)")
    parser.add_argument("--ascii", action="store_true", help="write cards as 7d, Sc instead of 7♦, S♣")
    parser.add_argument(
        "--color", choices=("auto", "always", "never"), default="auto",
        help="colour suits and the scoring table: auto (a terminal, and NO_COLOR not set), always, never",
    )  # fmt: skip
    parser.add_argument("--record", metavar="FILE", help="write the game as a golden case file (FILE.json; never overwrites)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="json (with --auto): the game's events as JSON")


def run(args: argparse.Namespace) -> int:
    import escoba
    from escoba.cli.simulate import check_arguments

    rules = escoba.load_ruleset(args.ruleset)
    players, bots, _ = check_arguments(rules, args.players, args.bots, 1)
    if args.target is not None and args.target < 1:
        raise UsageError(f"--target must be at least 1, got {args.target}")
    if args.format == "json" and not args.auto:
        raise UsageError("--format json needs --auto: a person plays in the text view")
    record = _record_target(args.record, args.ruleset) if args.record else None
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
    color = args.color == "always" or (args.color == "auto" and wants_color(sys.stdout))
    out: TextIO = open(os.devnull, "w", encoding="utf-8") if args.format == "json" else sys.stdout  # noqa: SIM115
    game = Game(rules, players, seed, bots, target=args.target, auto=args.auto, ascii=args.ascii, out=out, color=color)
    if sys.stdin is None and not args.auto:
        raise UsageError("standard input is closed; a person plays by typing moves (or watch with --auto)")
    reconfigure = getattr(sys.stdin, "reconfigure", None)
    if reconfigure is not None:  # what the input encoding cannot read (é typed under ascii) is a move not understood
        reconfigure(errors="replace")
    try:
        code = game.play(sys.stdin)
    finally:
        if out is not sys.stdout:
            out.close()
    if args.format == "json":
        print(json.dumps(game.as_json(), ensure_ascii=False))
    if record is not None:
        game.write_record(record, args)
    return code


def wants_color(stream: TextIO) -> bool:
    """Colour only on a terminal, never when NO_COLOR is set and not empty (no-color.org), nor on TERM=dumb."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return hasattr(stream, "isatty") and stream.isatty()


def _record_target(name: str, ruleset: str) -> Path:
    """Check --record before the game: a new .json file whose name is a case id, a bundled ruleset."""
    from escoba.rules import registry

    path = Path(name)
    if path.suffix != ".json":
        raise UsageError(f"--record {name}: a case file ends in .json")
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*(\.[a-z0-9][a-z0-9-]*)*", path.stem):
        raise UsageError(f"--record {name}: the file name is the case id: lower-case letters, digits, '-' and '.'")
    if os.path.lexists(path):
        raise UsageError(f"--record {name}: the file exists; not overwritten")
    if not path.parent.is_dir():
        raise UsageError(f"--record {name}: no such folder: {path.parent}")
    from escoba.outputs import check_output_file

    check_output_file(name, "--record")  # a folder that takes no file is found now, not after the game
    if ruleset not in registry.bundled() or os.path.lexists(ruleset):
        raise UsageError(f"--record needs a bundled ruleset id (a case names its ruleset by id), not {ruleset}")
    return path


class EntryError(Exception):
    """What the person typed is not a move they can make now; the message is one line."""


# ---------------------------------------------------------------------------------- entries
def read_move(hand: Any, text: str, names: Sequence[str] | None = None) -> Any:
    """The legal move `text` means in `hand` (a number from the list, or card notation).

    Raises `EntryError` with a one-line reason; never changes `hand`.
    """
    from escoba.errors import NotationError
    from escoba.game.moves import Move
    from escoba.notation import parse_move

    deck = hand.rules.deck
    names = names or deck.text
    legal = hand.legal_moves()
    text = text.strip()
    if text.isascii() and text.isdigit():  # not '²': int() refuses it, as it refuses 5,000 digits
        k = int(text) if len(text) <= 6 else 0
        if not 1 <= k <= len(legal):
            raise EntryError(f"no move number {text if len(text) <= 6 else text[:6] + '…'}: choose 1 to {len(legal)}")
        return legal[k - 1]
    try:
        move = parse_move(text, deck)
    except NotationError as error:
        if not _looks_like_a_move(text, deck):
            raise EntryError(
                f"{text!r} is not a move: type a move number, a card (7d) or a capture (7d x 3c 5h); ? lists the moves"
            ) from None
        raise EntryError(error.message) from None
    hand_cards = hand.hands[hand.to_play]
    if move.card not in hand_cards:
        raise EntryError(f"{names[move.card]} is not in your hand")
    for c in move.take:
        if c not in hand.table:
            raise EntryError(f"{names[c]} is not on the table")
    if move in legal:
        return move
    if not move.take:
        captures = [m for m in legal if m.card == move.card and m.take]
        if len(captures) == 1:
            return captures[0]  # only one way to take: typing the card alone is enough
        if len(captures) > 1:
            options = " or ".join(" ".join(names[c] for c in m.take) for m in captures)
            example = f"{names[move.card]} x {' '.join(names[c] for c in captures[0].take)}"
            raise EntryError(f"{names[move.card]} can take {options}: type the whole capture, e.g. {example}")
    reason = hand.why_illegal(Move(move.card, move.take))
    raise EntryError(reason or "not a legal move here")


def _looks_like_a_move(text: str, deck: Any) -> bool:
    """Does any word read as a card or as 'x'? If not, the entry is not an attempt at a move."""
    from escoba.errors import NotationError

    for word in text.replace(",", " ").split():
        if word in ("x", "X", "×"):
            return True
        try:
            deck.card(word)
            return True
        except NotationError:
            pass
    return False


# ---------------------------------------------------------------------------------- game
class Game:
    """One match at the terminal. Seat 0 is the person unless `auto`."""

    def __init__(
        self,
        rules: Any,
        players: int,
        seed: int,
        bots: Sequence[str],
        *,
        target: int | None = None,
        auto: bool = False,
        ascii: bool = False,
        out: TextIO = sys.stdout,
        color: bool = False,
    ):
        from escoba.engine.bots import bot_maker
        from escoba.engine.match import Match
        from escoba.outputs import can_show
        from escoba.simulate import derive_seed

        self.rules, self.players, self.seed, self.auto, self.out = rules, players, seed, auto, out
        self.paint = Paint(color)
        deck = rules.deck
        # ASCII names where the output cannot show a suit (cp1252, as with Windows redirection).
        plain = deck.code if ascii or not can_show(out, "".join(deck.suit_symbols)) else deck.text
        self.names = [self.paint.card(name, _suit_symbol(deck, c)) for c, name in enumerate(plain)]
        self.first_dealer = dealer_for(0, rules.leader_offset, players)
        self.played: list[tuple[Any, list[str]]] = []  # each hand dealt and the moves made in it (canonical text)
        # The first dealer is chosen so that the person leads the first hand.
        self.match = Match(
            rules, players, dealer=self.first_dealer, target=target, seed=derive_seed(seed, "play", "deal"), record=True
        )
        first = 0 if auto else 1
        self.bot_names = {s: bots[(s - first) % len(bots)] for s in range(first, players)}
        self.bots: dict[int, Callable] = {
            s: bot_maker(name)(derive_seed(seed, "play", "seat", s)) for s, name in self.bot_names.items()
        }
        self.sides = rules.sides(players)

    # -------------------------------------------------------------- labels
    def seat_name(self, seat: int) -> str:
        if seat == 0 and not self.auto:
            return "you"
        return f"seat {seat}"

    def side_name(self, side: int) -> str:
        seats = self.sides[side]
        if len(seats) == 1:
            return self.seat_name(seats[0])
        if 0 in seats and not self.auto:
            return "you+" + "+".join(str(s) for s in seats if s != 0)
        return "seats " + "+".join(map(str, seats))

    def cards(self, cards: Sequence[int]) -> str:
        return " ".join(self.names[c] for c in cards) or "—"

    def move_text(self, move: Any) -> str:
        if not move.take:
            return self.names[move.card]
        return f"{self.names[move.card]} x {self.cards(move.take)}"

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")

    # -------------------------------------------------------------- the match
    def play(self, stdin: TextIO) -> int:
        rules, match = self.rules, self.match
        who = "bots only" if self.auto else "you are seat 0"
        bots = ", ".join(f"seat {s} {n}" for s, n in self.bot_names.items())
        self.say(f"Escoba: {rules.id}, {self.players} players ({who}; {bots}), first to {match.target}, seed {self.seed}")
        if len(self.sides) < self.players:
            self.say("Partners: " + " · ".join(self.side_name(s) for s in range(len(self.sides))))
        while not match.is_over:
            hand = match.new_hand()
            self.played.append((hand, []))
            self.say()
            self.say(f"── Hand {match.hands_played + 1} · seat {hand.dealer} deals, seat {hand.leader} leads ──")
            self.show_events(hand.events or ())
            while not hand.is_over:
                seat = hand.to_play
                if seat in self.bots:
                    move = self.bots[seat](hand)
                    events = self.apply(hand, move)
                    # After the last play the leftovers are already swept: show them until then.
                    left = next((e["cards"] for e in events if e["event"] == "leftovers"), None)
                    shown = hand.table if left is None else hand.rules.deck.cards_from(left)
                    table = f"   [table: {self.cards(sorted(shown))}]" if self.auto else ""
                    self.say(f"{self.seat_name(seat)} plays {self.move_text(move)}{self.escoba_note(events)}{table}")
                    self.show_events(events)
                    continue
                move = self.ask(hand, stdin)
                if move is None:
                    return 0
                events = self.apply(hand, move)
                self.say(f"you play {self.move_text(move)}{self.escoba_note(events)}")
                self.show_events(events)
            for event in match.end_hand():
                self.show_match_event(event)
            self.score_table(hand)
            if not match.is_over and not self.auto and _is_terminal(stdin) and not self.pause(stdin):
                return 0
        return 0

    def apply(self, hand: Any, move: Any) -> list[dict]:
        from escoba.notation import format_move

        self.played[-1][1].append(format_move(move, self.rules.deck))
        return hand.apply(move)

    def pause(self, stdin: TextIO) -> bool:
        """Between hands at a terminal: wait for Enter, so the scoring can be read. False: quit."""
        self.out.write("Enter for the next hand, q to quit> ")
        self.out.flush()
        line = stdin.readline()
        if not line or line.strip().lower() in QUIT:
            self.left()
            return False
        return True

    def left(self) -> None:
        totals = " · ".join(f"{self.side_name(s)} {t}" for s, t in enumerate(self.match.totals))
        hands = _count(self.match.hands_played, "hand")
        self.say(f"you left the game; score so far: {totals} (first to {self.match.target}; {hands} finished)")

    # -------------------------------------------------------------- what is kept
    def finished_hands(self) -> list[tuple[Any, list[str]]]:
        return [(hand, moves) for hand, moves in self.played if hand.is_over]

    def as_json(self) -> dict:
        """The game's events, hand by hand, then how the match stands (--auto --format json)."""
        match = self.match
        return {
            "ruleset": self.rules.id,
            "players": self.players,
            "seed": self.seed,
            "target": match.target,
            "hands": [{"events": list(hand.events or [])} for hand, _ in self.played],
            "match": list(match.events),
            "totals": list(match.totals),
            "winners": match.winners,
        }

    def write_record(self, path: Path, args: argparse.Namespace) -> None:
        """The hands finished so far as a golden case at `path` (a new file, written whole)."""
        from escoba.outputs import write_new
        from escoba.transcript.build import dump_case, played_case

        finished = self.finished_hands()
        if not finished:
            print(f"escoba play: nothing recorded in {path}: no hand was finished", file=sys.stderr)
            return
        deck = self.rules.deck
        # A case is a whole match (with its target) or one hand (no target): a match left
        # unfinished keeps its last finished hand, the one just seen.
        if self.match.is_over:
            kept, dealer, target = finished, self.first_dealer, self.match.target
            over = f"the whole match ({_count(len(finished), 'hand')}, to {target})"
        else:
            kept, dealer, target = finished[-1:], finished[-1][0].dealer, None
            over = f"hand {len(finished)} of a match left unfinished"
        hands = [{"decks": [deck.codes(order) for order in hand.deck_orders], "moves": moves} for hand, moves in kept]
        who = "bots only" if self.auto else "seat 0 a person"
        command = f"escoba play {args.ruleset} --players {self.players} --seed {self.seed}"
        if args.target is not None:
            command += f" --target {args.target}"
        data = played_case(
            path.stem, self.rules.id, self.players, dealer, target,
            hands,
            title=f"{self.rules.id}, {self.players} players: a game recorded by escoba play",
            notes=[f"Recorded by `{command}` ({who}, bots {', '.join(self.bot_names.values())}): {over}."],
        )  # fmt: skip
        if not write_new(path, dump_case(data)):
            print(f"escoba play: {path} appeared during the game; not overwritten", file=sys.stderr)
            return
        told = sys.stdout if args.format == "text" else sys.stderr  # JSON output stays one document
        print(f"recorded {over} in {path}", file=told)

    def ask(self, hand: Any, stdin: TextIO) -> Any:
        """The person's move, asked until it is legal; None when they quit or input ends."""
        self.show_state(hand)
        legal = hand.legal_moves()
        self.say(self.numbered(legal))
        echo = not (hasattr(stdin, "isatty") and stdin.isatty())
        while True:
            self.out.write("your move> ")
            self.out.flush()
            line = stdin.readline()
            if not line:
                self.say()
                self.say("end of input: the game is left unfinished")
                return None
            text = line.strip()
            if echo:  # piped input is not echoed by a terminal: show it so the transcript reads
                self.say(text)
            if not text:
                continue
            if text.lower() in QUIT:
                self.left()
                return None
            if text.lower() in HELP_WORDS:
                self.say(f"legal moves (type the number or the move; {LONE_CARD}):")
                for k, move in enumerate(legal, 1):
                    self.say(f"  {k:2d}  {self.move_text(move)}")
                continue
            try:
                return read_move(hand, text, self.names)
            except EntryError as error:
                self.say(f"! {error}")

    def numbered(self, moves: Sequence[Any]) -> str:
        items = [f"{k}) {self.move_text(m)}" for k, m in enumerate(moves, 1)]
        lines, line = [], "moves:"
        for item in items:
            if len(_visible(line)) + 3 + len(_visible(item)) > 78:
                lines.append(line)
                line = "      "
            line += "   " + item
        lines.append(line)
        return "\n".join(lines)

    # -------------------------------------------------------------- what is shown
    def show_state(self, hand: Any) -> None:
        self.say(f"table:     {self.cards(sorted(hand.table))}")
        for seat in range(1, self.players):
            shown = self.cards(sorted(hand.hands[seat])) if self.rules.open_hands else _count(len(hand.hands[seat]), "card")
            self.say(f"seat {seat}:    {shown}")
        self.say(f"your hand: {self.cards(sorted(hand.hands[0]))}")
        piles = " · ".join(
            f"{self.side_name(s)} {_count(len(hand.piles[s]), 'card')}, {_count(hand.escobas[s], 'escoba')}"
            for s in range(hand.sides)
        )
        self.say(f"captured:  {piles} · stock {len(hand.stock)}")
        totals = " · ".join(f"{self.side_name(s)} {t}" for s, t in enumerate(self.match.totals))
        self.say(f"score:     {totals} (first to {self.match.target})")

    def escoba_note(self, events: Sequence[dict]) -> str:
        for e in events:
            if e["event"] == "escoba":
                return "  ** escoba! **" if e["scores"] else "  (a sweep with a joker: no escoba point)"
        return ""

    def show_events(self, events: Sequence[dict]) -> None:
        deck = self.rules.deck
        for e in events:
            kind = e["event"]
            if kind == "deal" and (self.auto or self.rules.open_hands):
                hands = " · ".join(f"{self.seat_name(s)}: {self.cards(deck.cards_from(h))}" for s, h in enumerate(e["hands"]))
                self.say(f"deal: {hands}")
            elif kind == "deal":
                self.say(f"deal: you get {self.cards(deck.cards_from(e['hands'][0]))}")
            elif kind == "table" and self.auto:  # the person sees the table with their hand
                self.say(f"table: {self.cards(deck.cards_from(e['cards']))}")
            elif kind == "opening":
                cards = self.cards(deck.cards_from(e["cards"]))
                if e["action"] == "redeal":
                    self.say(f"opening table {cards} makes {self.rules.target}: the cards are dealt again")
                elif e["action"] == "set_aside":
                    self.say(f"opening table {cards} makes {self.rules.target}: set aside")
                else:
                    gets = f", {_count(e['escobas'], 'escoba')}" if e["escobas"] else ""
                    self.say(f"opening table {cards}: {self.seat_name(e['seat'])} (the dealer) takes it{gets}")
            elif kind == "leftovers":
                cards = self.cards(deck.cards_from(e["cards"]))
                to = "nobody" if e["seat"] is None else self.seat_name(e["seat"])
                self.say(f"left on the table: {cards} → {to}")

    def show_match_event(self, event: dict) -> None:
        if event["event"] == "tie":
            self.say(f"tie at {event['totals'][event['sides'][0]]} over the target: another hand")
        elif event["event"] == "match_end":
            self.match_end = event

    def score_table(self, hand: Any) -> None:
        self.say()
        self.say(f"Hand {self.match.hands_played} scoring")
        table = score_table(hand, [self.side_name(s) for s in range(hand.sides)], self.match.totals, self.match.target)
        self.say(self.paint.table(table))
        end = getattr(self, "match_end", None)
        if end is not None:
            winners = [self.side_name(s) for s in end["winners"]]
            totals = " to ".join(str(t) for t in sorted(end["totals"], reverse=True))
            if len(winners) > 1:
                self.say(f"Match over: a shared win for {' and '.join(winners)} ({totals})")
            elif winners[0] == "you" or winners[0].startswith("you+"):
                self.say(f"Match over: you win, {totals}")
            else:
                verb = "win" if winners[0].startswith("seats ") else "wins"
                self.say(f"Match over: {winners[0]} {verb}, {totals}")


def score_table(hand: Any, side_names: Sequence[str], totals: Sequence[int], target: int) -> str:
    """Category, each side's measure, each side's points; then hand points and running totals."""
    n = hand.sides
    width = max(6, *(len(name) for name in side_names))
    rows = [[s.category, *(_measure(m) for m in s.measures), *(str(p) for p in s.points)] for s in hand.scores or []]
    rows.append(["hand points", *([""] * n), *(str(p) for p in hand.points)])
    rows.append([f"total (to {target})", *([""] * n), *(str(t) for t in totals)])
    first = max(8, *(len(r[0]) for r in rows))
    block = n * width + 2 * (n - 1)

    def line(cells: Sequence[str]) -> str:
        measures = "  ".join(c.rjust(width) for c in cells[1 : n + 1])
        points = "  ".join(c.rjust(width) for c in cells[n + 1 :])
        return f"{cells[0].ljust(first)}  {measures}    {points}".rstrip()

    out = [
        f"{'':{first}}  {'measure'.center(block)}    {'points'.center(block)}".rstrip(),
        line(["category", *side_names, *side_names]),
        "-" * (first + 2 * block + 6),
    ]
    out += [line(r) for r in rows[:-2]]
    out.append("-" * (first + 2 * block + 6))
    out += [line(r) for r in rows[-2:]]
    return "\n".join(out)


# ANSI colours by suit symbol: gold, red, blue, green (oros, copas, espadas, bastos).
_SUIT_COLOURS = {"♦": "33", "♥": "31", "♠": "34", "♣": "32"}


class Paint:
    """ANSI colour for a terminal: suits in their colours, the scoring table's headings and totals."""

    def __init__(self, enabled: bool):
        self.enabled = enabled

    def _wrap(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.enabled and text else text

    def card(self, name: str, symbol: str | None) -> str:
        return self._wrap(name, _SUIT_COLOURS.get(symbol or "", "35"))  # jokers magenta

    def table(self, text: str) -> str:
        """Bold headings and the totals rows; the rest as it is."""
        if not self.enabled:
            return text
        lines = text.split("\n")
        return "\n".join(self._wrap(line, "1") if n < 2 or n >= len(lines) - 2 else line for n, line in enumerate(lines))


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _visible(text: str) -> str:
    return _ANSI.sub("", text)


def _suit_symbol(deck: Any, card: int) -> str | None:
    suit = deck.suit[card]
    return deck.suit_symbols[suit] if 0 <= suit < len(deck.suit_symbols) else None


def _is_terminal(stream: Any) -> bool:
    return hasattr(stream, "isatty") and stream.isatty()


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def _measure(value: Any) -> str:
    if value is None:
        return "—"  # not eligible (e.g. primera without a card of every suit)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)
