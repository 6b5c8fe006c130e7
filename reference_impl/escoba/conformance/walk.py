"""The reference walking a case's line, one request at a time, from the deal or from an
engine's own state.

A case is a *script*: seats, dealer, deck orders, the moves and probes of each hand. `Walk`
plays it under some compiled rules (the case's own, or the rules an engine declares) and yields
each request the runner sends with the events it must cause (`Step`), exactly as the case
file's `expect` lists them when the rules are the case's own (tests/test_walk.py checks every
bundled case). Under other rules the script may not fit:

- a move that is not legal here is replaced by a deterministic **substitute**: the legal move
  with the same card whose take is nearest (most of the same cards, then fewest others), or,
  when that card is not held, the first legal move at or after it in the ordering of moves
  (the last one if none is);
- a probe that is legal here is **left out** (its `legal`, the refusal and the `state`);
- a hand that ends before its line does **cuts** the rest of the line; a hand of a game that
  is not over when its line is **played out** with the first legal move each turn;
- a match that ends before the case's last hand, or is not over after it, stops there;
- an opening table that these rules redeal is dealt again from the last deck order **cut** by
  the table's size (the case gives no other deck order).

Each is written in `notes`, and `changed` says where the line first left the script (a pin
after it no longer describes the game).

The walk's hand can be replaced between two steps (`resync`: the engine's state, after a
divergence) and a move the engine refused can be tried again (`retry`): the conformance runner
then goes on from where the engine is (conformance/resync.py).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from escoba.engine.hand import DeckError, Hand
from escoba.engine.match import Match
from escoba.errors import EscobaError
from escoba.game.moves import Move
from escoba.game.seats import next_dealer
from escoba.protocol.messages import Legal, NextHand, Play, RawPlay, Start, State
from escoba.rules.compile import Rules
from escoba.transcript.record import legal_event, perft, probe_reason, rejected_event, state_event

MAX_CUTS = 8  # deck orders cut again for an opening table these rules keep redealing
MAX_RETRIES = 3  # substitutes tried for one move the engine refuses


@dataclass(frozen=True)
class ProbeEntry:
    """A move that must be refused: as sent (a wire move, perhaps malformed on purpose), and the
    reason the case itself gives."""

    wire: Any
    reason: str


@dataclass(frozen=True)
class ScriptHand:
    decks: tuple[tuple[int, ...], ...]  # card indices, top of the stock first
    line: tuple[Move | ProbeEntry, ...]


@dataclass(frozen=True)
class Script:
    """A case's line in card indices of one deck."""

    kind: str  # game | probe | perft
    players: int
    dealer: int
    target: int | None
    legal: str  # how legal events record the moves: `moves` or `count`
    hands: tuple[ScriptHand, ...]
    probe: ProbeEntry | None = None  # a probe case's last move
    depth: int | None = None  # a perft case's depth


def script_of(case: Any, deck_map: Sequence[int] | None = None, codes: Sequence[str] | None = None) -> Script:
    """The script of a loaded case; with `deck_map` (the case's card index → another deck's)
    and `codes` (that deck's codes), translated card for card to that deck."""
    own = case.rules.deck.code
    index = {c: i for i, c in enumerate(own)}

    def card(c: int) -> int:
        return deck_map[c] if deck_map is not None else c

    def wire(value: Any) -> Any:  # a probe's move as sent: known codes translated, the rest kept
        if deck_map is None or codes is None:
            return value
        if isinstance(value, str):
            return codes[deck_map[index[value]]] if value in index else value
        if isinstance(value, list):
            return [wire(v) for v in value]
        if isinstance(value, dict):
            return {k: wire(v) for k, v in value.items()}
        return value

    hands = []
    for h, spec in enumerate(case.hands):
        moves = iter(case.moves(h))
        line: list[Move | ProbeEntry] = []
        for entry in spec.line:
            if isinstance(entry, str):
                m = next(moves)
                line.append(Move(card(m.card), tuple(sorted(card(c) for c in m.take))))
            else:
                line.append(ProbeEntry(wire(case.probe_wire(entry)), entry.reason))
        decks = tuple(tuple(card(c) for c in order) for order in case.deck_orders(h))
        hands.append(ScriptHand(decks, tuple(line)))
    probe = ProbeEntry(wire(case.probe_wire()), case.probe.reason) if case.probe is not None else None
    depth = case.perft.depth if case.perft is not None else None
    return Script(case.kind, int(case.players), int(case.dealer), case.target, case.legal, tuple(hands), probe, depth)


@dataclass
class Step:
    """One request and the events it must cause. `before` is the reference hand's snapshot
    before it (kept on request: attribution answers the same request under other rules from
    there), `move` the move or probe it sends."""

    kind: str  # events (start, a play, next_hand), legal, probe, state, perft
    request: Any  # the protocol request; None for perft (the driver walks the engine itself)
    what: str
    expected: list[dict]
    hand: int
    before: dict | None = None
    move: Any = None
    totals: tuple[int, ...] | None = None  # a match's totals before the request
    played: int = 0  # hands of the match finished before the request
    dealer: int = 0  # the dealer before the request (a next hand's dealer follows from it)
    decks: tuple[tuple[int, ...], ...] = ()  # start, next_hand: the deck orders sent


@dataclass
class Walk:
    """Play `script` under `rules`; `steps()` yields each request with its expected events.
    `doc` is the ruleset `start` carries; `keep`: record each step's `before`."""

    script: Script
    rules: Rules
    doc: Mapping[str, Any]
    keep: bool = False
    max_perft: int | None = None  # a perft count above this is asked at a smaller depth (scenarios)
    hand: Hand | None = None
    totals: list[int] = field(default_factory=list)
    played: int = 0  # hands of the match finished
    over: bool = False  # the match is over
    notes: list[str] = field(default_factory=list)
    changed: tuple[int, int] | None = None  # (hand, entry of its line) where the line first left the script
    substituted: list[str] = field(default_factory=list)
    lines: list[list[Move | ProbeEntry]] = field(default_factory=list)  # per hand, what was sent
    decks: list[tuple[tuple[int, ...], ...]] = field(default_factory=list)  # per hand, the deck orders sent
    stopped: bool = False  # the engine and these rules share no move: nothing more to send
    _retry: list[dict] | None = None
    _listed: set[tuple[str, tuple[str, ...]]] | None = None

    # ------------------------------------------------------------------ from outside
    def resync(self, hand: Hand, totals: Sequence[int] | None = None, played: int | None = None, over: bool | None = None) -> None:
        """Go on from another position (an engine's state): the next step starts from `hand`;
        in a match, from the engine's totals (and its end, where it ended the match)."""
        self.hand = hand
        if totals is not None:
            self.totals = list(totals)
        if played is not None:
            self.played = played
        if over is not None:
            self.over = over

    def listed(self, moves: Sequence[Mapping[str, Any]] | None) -> None:
        """What the engine listed at the decision just asked (its `legal` reply): where it
        offers the case's next move and these rules do not, the move is sent anyway."""
        self._listed = {_wire_of(m) for m in moves or () if isinstance(m, Mapping)}

    def retry(self, listed: Sequence[Mapping[str, Any]]) -> None:
        """The engine refused the move just sent, which these rules allow: the next step plays a
        substitute among the moves the engine listed (`listed`, its last `legal` reply)."""
        self._retry = [dict(m) for m in listed]

    # ------------------------------------------------------------------ the walk
    def steps(self) -> Iterator[Step]:
        script, rules = self.script, self.rules
        code = rules.deck.code
        self.totals = [0] * len(rules.sides(script.players))
        first = self._deal(rules, script.dealer, script.hands[0].decks, 0)
        if first is None:
            return
        self.hand, decks = first
        yield self._step("events", Start(self.doc, script.players, script.dealer, _codes(decks, code), script.target),
                         "start", list(self.hand.events or ()), 0, decks=decks, dealer=script.dealer)  # fmt: skip
        for h, spec in enumerate(script.hands):
            if self.stopped:
                return
            if h:
                if self.over:
                    self.notes.append(f"the match is over after hand {h} under these rules: hands {h + 1}-{len(script.hands)} left out")
                    self._change(h, -1)
                    return
                previous = self.hand.dealer
                dealer = next_dealer(previous, rules.next_dealer_offset, script.players)
                before = self._before()
                dealt = self._deal(rules, dealer, spec.decks, h)
                if dealt is None:
                    return
                self.hand, decks = dealt
                yield self._step("events", NextHand(_codes(decks, code)), f"next_hand (hand {h + 1})",
                                 list(self.hand.events or ()), h, before=before, decks=decks, dealer=previous)  # fmt: skip
            self.lines.append([])
            yield from self._line(h, spec)
            if script.kind != "game":
                break
        if self.stopped:
            return
        if script.target is not None and not self.over and self.hand is not None and self.hand.is_over:
            self.notes.append(f"the match is not over after the case's {len(script.hands)} hand(s) under these rules: the scenario stops there")
        yield from self._ending()

    def _line(self, h: int, spec: ScriptHand) -> Iterator[Step]:
        plays = 0
        extended = False
        for i, entry in enumerate(spec.line):
            if self.stopped:
                return
            hand = self.hand
            assert hand is not None
            if isinstance(entry, ProbeEntry):
                reason, _ = probe_reason(hand, entry.wire)
                if reason is None:
                    self.notes.append(f"hand {h + 1}: the probe {_shown(entry.wire)} ({entry.reason}) is legal here: left out")
                    self._change(h, i)
                    continue
                yield from self._probe(h, plays, entry, reason)
                continue
            if hand.is_over:
                left = sum(isinstance(e, Move) for e in spec.line[i:])
                self.notes.append(f"hand {h + 1} is over after {plays} plays under these rules: {left} more of the case's moves left out")
                self._change(h, i)
                break
            plays += 1
            yield from self._play(h, i, plays, entry)
        hand = self.hand
        assert hand is not None
        if self.script.kind == "game" and not hand.is_over:
            added = 0
            while not hand.is_over and not self.stopped:
                plays += 1
                added += 1
                yield from self._play(h, None, plays, None)
                hand = self.hand
                assert hand is not None
            if self.stopped:
                return
            extended = True
            self.notes.append(f"hand {h + 1} was not over after the case's moves under these rules: {added} more plays, the first legal move each")
            self._change(h, len(spec.line))
        ends_with_probe = bool(spec.line) and isinstance(spec.line[-1], ProbeEntry) and not extended
        if ends_with_probe or (self.script.kind != "game" and not hand.is_over):
            yield self._step("legal", Legal(), f"legal (hand {h + 1}, at the end of the line)", [legal_event(hand, self.script.legal)], h)

    def _ending(self) -> Iterator[Step]:
        hand, script = self.hand, self.script
        if hand is None:
            return
        if script.probe is not None:
            reason, _ = probe_reason(hand, script.probe.wire)
            if reason is None:
                self.notes.append(f"the probe {_shown(script.probe.wire)} ({script.probe.reason}) is legal here: left out")
                self._change(0, len(script.hands[0].line))
            else:
                yield self._step("probe", RawPlay(script.probe.wire), "the probe",
                                 [rejected_event(script.probe.wire, "illegal_move", reason)], 0, move=script.probe)  # fmt: skip
        if script.depth is not None:
            depth, count = script.depth, perft(hand, script.depth) if self.max_perft is None else 0
            if self.max_perft is not None:  # the deepest count within the bound: the engine walks it over the protocol
                depth, count = 1, perft(hand, 1)
                while depth < script.depth:
                    deeper = perft(hand, depth + 1)
                    if deeper > self.max_perft:
                        self.notes.append(f"perft at depth {depth}, not {script.depth}: under these rules depth {depth + 1} already counts {deeper} lines (more than {self.max_perft})")
                        break
                    depth, count = depth + 1, deeper
            yield self._step("perft", None, "perft", [{"event": "perft", "depth": depth, "count": count}], 0)

    def _probe(self, h: int, plays: int, entry: ProbeEntry, reason: str) -> Iterator[Step]:
        hand = self.hand
        assert hand is not None
        where = f"(hand {h + 1}, after play {plays})"
        yield self._step("legal", Legal(), f"legal (hand {h + 1}, before play {plays + 1})", [legal_event(hand, self.script.legal)], h)
        order = {c: i for i, c in enumerate(self.rules.deck.code)}
        self.lines[h].append(entry)
        yield self._step("probe", RawPlay(entry.wire), f"the probe {_shown(entry.wire)} {where}",
                         [rejected_event(entry.wire, "illegal_move", reason)], h, move=entry)  # fmt: skip
        hand = self.hand  # the same position, or the engine's (resync)
        assert hand is not None
        yield self._step("state", State(), f"state after the probe {where}", [state_event(hand.to_json(), order)], h)

    def _play(self, h: int, i: int | None, plays: int, scripted: Move | None) -> Iterator[Step]:
        """A decision: its legal moves, then the move (the script's, or a substitute)."""
        hand = self.hand
        assert hand is not None
        yield self._step("legal", Legal(), f"legal (hand {h + 1}, before play {plays})", [legal_event(hand, self.script.legal)], h)
        hand = self.hand  # the engine's, after a divergence in its legal moves
        assert hand is not None
        if hand.is_over:
            return
        code = self.rules.deck.code
        offered, self._listed = self._listed, None
        if scripted is not None and scripted not in hand.legal_moves() and _wire(scripted, code) in (offered or ()):
            # The engine offers the case's move where these rules forbid it: sent as the case has
            # it, so the case goes on to what it was written to reach; these rules refuse it.
            found = hand.refusal(scripted)
            sent = {"card": code[scripted.card], "take": [code[c] for c in scripted.take]}
            rejected = rejected_event(sent, "illegal_move", found.reason if found is not None else "compulsory")
            self.lines[h].append(scripted)
            yield self._step("events", Play(code[scripted.card], tuple(code[c] for c in scripted.take)),
                             f"play {_move_text(scripted, code)} (hand {h + 1}, play {plays})", [rejected], h,
                             before=self._before(), move=scripted)  # fmt: skip
            self._retry = None
            return
        move = self._choose(hand, scripted, h, i, plays)
        tries = 0
        while True:
            before, totals, played = self._before(), tuple(self.totals), self.played
            try:
                events = list(hand.apply(move))
            except EscobaError as problem:  # a later round these rules cannot deal
                self.notes.append(f"hand {h + 1}, play {plays}: {problem}: the scenario stops there")
                self.stopped = True
                return
            if self.script.target is not None and hand.is_over:
                events += self._end_hand(hand)
            self.lines[h].append(move)
            step = self._step("events", Play(code[move.card], tuple(code[c] for c in move.take)),
                              f"play {_move_text(move, code)} (hand {h + 1}, play {plays})", events, h, before=before, move=move)  # fmt: skip
            step.totals, step.played = totals, played
            yield step
            refused, self._retry = self._retry, None
            if refused is None or tries >= MAX_RETRIES:
                return
            # The engine refused it: the walk was put back where the engine is; another move.
            tries += 1
            self.lines[h].pop()
            hand = self.hand
            assert hand is not None
            known = {_wire_of(m) for m in refused}
            shared = [m for m in hand.legal_moves() if (code[m.card], tuple(sorted(code[c] for c in m.take))) in known and m != move]
            if hand.is_over or not shared:
                self.notes.append(f"hand {h + 1}, play {plays}: the engine refused {_move_text(move, code)} and lists no other move these rules allow: the scenario stops there")
                self.stopped = True
                return
            self.notes.append(f"hand {h + 1}, play {plays}: the engine refused {_move_text(move, code)}: {_move_text(_nearest(shared, move), code)} played instead")
            move = _nearest(shared, move)

    def _choose(self, hand: Hand, scripted: Move | None, h: int, i: int | None, plays: int) -> Move:
        legal = hand.legal_moves()
        if scripted is not None and scripted in legal:
            return scripted
        if scripted is None:
            return legal[0]
        move = _nearest(legal, scripted)
        code = self.rules.deck.code
        found = hand.refusal(scripted)
        why = found.reason if found is not None else "not legal here"
        self.substituted.append(f"hand {h + 1}, play {plays}: {_move_text(scripted, code)} is not legal here ({why}): {_move_text(move, code)} played instead")
        self._change(h, i if i is not None else 0)
        return move

    # ------------------------------------------------------------------ deals, match, records
    def _deal(self, rules: Rules, dealer: int, decks: tuple[tuple[int, ...], ...], h: int) -> tuple[Hand, tuple[tuple[int, ...], ...]] | None:
        """The hand dealt from `decks`, cut again as often as these rules redeal (the decks sent)."""
        found = deal(rules, self.script.players, dealer, decks)
        if found is None:
            self.notes.append(f"hand {h + 1}: no deck order found that these rules do not redeal: the scenario stops there")
            return None
        hand, sent = found
        used = len(hand.deck_orders)
        self.decks.append(sent[:used])
        if used > len(decks):
            self.notes.append(f"hand {h + 1}: these rules redeal the opening table; the deck order cut by {rules.table_size} card(s) {used - len(decks)} time(s)")
            self._change(h, -1)
        elif used < len(decks):
            self.notes.append(f"hand {h + 1}: no redeal under these rules; {len(decks) - used} deck order(s) of the case left out")
            self._change(h, -1)
        return hand, sent[:used]

    def _end_hand(self, hand: Hand) -> list[dict]:
        events, self.totals, self.over = end_of_hand(self.rules, hand, self.totals, self.played, self.script.target)
        self.played += 1
        return events

    def _before(self) -> dict | None:
        return snapshot(self.hand) if self.keep and self.hand is not None else None

    def _step(self, kind: str, request: Any, what: str, expected: list[dict], h: int, *, before: dict | None = None,
              move: Any = None, decks: tuple[tuple[int, ...], ...] = (), dealer: int | None = None) -> Step:  # fmt: skip
        if self.keep and before is None and kind in ("legal", "probe", "state", "perft") and self.hand is not None:
            before = snapshot(self.hand)
        if dealer is None:
            dealer = self.hand.dealer if self.hand is not None else self.script.dealer
        return Step(kind, request, what, expected, h, before, move, tuple(self.totals), self.played, dealer, decks)

    def _change(self, h: int, i: int) -> None:
        if self.changed is None or (h, i) < self.changed:
            self.changed = (h, i)



def snapshot(hand: Hand) -> dict:
    """`hand.to_json()` with the table in the order its cards came to it (the canonical
    snapshot sorts it): the order a hand's leftovers are listed in."""
    data = hand.to_json()
    data["table"] = [hand.rules.deck.code[c] for c in hand.table]
    return data


def deal(rules: Rules, players: int, dealer: int, decks: Sequence[Sequence[int]]) -> tuple[Hand, tuple[tuple[int, ...], ...]] | None:
    """A hand dealt from `decks` under `rules`; where these rules redeal more often than the
    deck orders given allow, the last one cut by the table's size (at most `MAX_CUTS` times).
    None when no deck order found can be dealt. Also the deck orders offered (those a hand
    did not use are not sent)."""
    offered = [tuple(d) for d in decks]
    for _ in range(MAX_CUTS + 1):
        try:
            hand = Hand(rules, players, dealer, iter([list(d) for d in offered]))
        except DeckError as problem:
            if "no further deck order" not in str(problem):
                return None
            last = offered[-1]
            cut = max(1, rules.table_size)
            offered.append(last[cut:] + last[:cut])
            continue
        except EscobaError:
            return None
        return hand, tuple(offered)
    return None


def end_of_hand(rules: Rules, hand: Hand, totals: Sequence[int], played: int, target: int | None) -> tuple[list[dict], list[int], bool]:
    """A finished hand of a match counted: its events (totals, tie, match_end), the new totals,
    and whether the match is over."""
    match = Match(rules, hand.players, dealer=hand.dealer, target=target, decks=iter(()))
    match.totals, match.hands_played, match.hand = list(totals), played, hand
    events = match.end_hand()
    return events, list(match.totals), match.is_over


def _nearest(legal: Sequence[Move], scripted: Move) -> Move:
    """The substitute for a move: the same card's move whose take is nearest, or the first move
    at or after it in the ordering (the last move if none is)."""
    same = [m for m in legal if m.card == scripted.card]
    if same:
        want = set(scripted.take)
        return min(same, key=lambda m: (-len(want & set(m.take)), len(want ^ set(m.take))))
    later = [m for m in legal if (m.card, m.take) >= (scripted.card, scripted.take)]
    return later[0] if later else legal[-1]


def _wire(move: Move, code: Sequence[str]) -> tuple[str, tuple[str, ...]]:
    return code[move.card], tuple(sorted(code[c] for c in move.take))


def _wire_of(move: Mapping[str, Any]) -> tuple[str, tuple[str, ...]]:
    return str(move.get("card")), tuple(sorted(str(c) for c in move.get("take") or ()))


def _codes(decks: Sequence[Sequence[int]], code: Sequence[str]) -> list[list[str]]:
    return [[code[c] for c in order] for order in decks]


def _move_text(move: Move, code: Sequence[str]) -> str:
    return code[move.card] + (" x " + " ".join(code[c] for c in move.take) if move.take else "")


def _shown(wire: Any) -> str:
    from escoba.conformance.compare import format_value

    return format_value(wire)
