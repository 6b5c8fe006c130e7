"""The expected event stream of a case, produced by the reference engine in-process.

What the conformance runner compares, event for event:

- each hand's own events (`Hand.events`: hand_start, table, deal, opening, …);
- before each decision, `{"event": "legal", "seat": s, "moves": [{"card": .., "take": [..]}, …]}`
  (the runner builds the same event from an engine's `legal` reply);
- the events each play causes; at the end of the hand its scores and `hand_end`;
- in match cases (target not null), `Match.end_hand`'s `totals` / `tie` / `match_end` after
  each `hand_end`.

A probe among the moves (format 2) adds, where it stands, the legal event of that position (as
before any move), `{"event": "rejected", "move": .., "kind": "illegal_move", "rule": REASON}`
and `{"event": "state", ...}`, the fields `STATE_FIELDS` of the unchanged snapshot; a line
that ends with a probe ends with one more legal event. Probe cases replay their line, then (if
a decision is pending) its legal event; the probe move must be refused with the case's reason
class. Perft cases replay their line, add the legal event of
the position, and count distinct play sequences from there.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from escoba.engine.hand import Hand
from escoba.engine.match import Match
from escoba.errors import EscobaError, IllegalMoveError, NotationError
from escoba.game.moves import Move


class ReplayError(EscobaError):
    """A case that the reference engine cannot replay as written; `path` is a JSON path."""

    def __init__(self, path: str, message: str):
        self.path, self.message = path, message
        super().__init__(f"{path}: {message}")


class _Decks:
    """Deck orders fed one hand at a time: a hand that needs more than its case gives (a
    redeal) must fail, not silently take the next hand's deck."""

    def __init__(self) -> None:
        self.queue: list[list[int]] = []

    def __iter__(self) -> Iterator[list[int]]:
        return self

    def __next__(self) -> list[int]:
        if not self.queue:
            raise StopIteration
        return self.queue.pop(0)


def legal_event(hand: Hand, record: str = "moves") -> dict:
    """The runner's event before a decision; `record="count"` keeps only how many moves."""
    if record == "count":
        return {"event": "legal", "seat": hand.to_play, "count": len(hand.legal_moves())}
    code = hand.rules.deck.code
    return {
        "event": "legal",
        "seat": hand.to_play,
        "moves": [{"card": code[m.card], "take": [code[c] for c in m.take]} for m in hand.legal_moves()],
    }


def rejected_event(move: Any, kind: str, rule: str | None) -> dict:
    """The runner's event for a refused move: the move as sent, the error kind and its reason
    class (`rule`, not `reason`: fields named `reason` are free text and never compared)."""
    return {"event": "rejected", "move": move, "kind": kind, "rule": rule}


#: the fields of an engine's `state` snapshot the runner compares after a refusal
STATE_FIELDS = ("to_play", "hands", "table", "piles")


def state_event(snapshot: Mapping[str, Any], order: Mapping[str, int]) -> dict:
    """The runner's event for a `state` reply: `STATE_FIELDS` of the snapshot, the cards of
    each list in deck order (`order`: code → position), so an engine may keep them in any
    order. A field the snapshot lacks is left out (and shows as missing)."""

    def canonical(cards: Any) -> Any:
        if not isinstance(cards, list):
            return cards
        known = [c for c in cards if isinstance(c, str) and c in order]
        other = [c for c in cards if not (isinstance(c, str) and c in order)]
        return sorted(known, key=order.__getitem__) + sorted(other, key=lambda c: json.dumps(c, sort_keys=True))

    event: dict[str, Any] = {"event": "state"}
    for key in STATE_FIELDS:
        if key not in snapshot:
            continue
        value = snapshot[key]
        if key in ("hands", "piles") and isinstance(value, list):
            value = [canonical(cards) for cards in value]
        elif key == "table":
            value = canonical(value)
        event[key] = value
    return event


class Replay:
    """Replays a case with the reference engine; `run()` returns the expected events and
    raises `ReplayError` where the case cannot be played as written."""

    def __init__(self, case, rules=None, moves: Sequence[Sequence[Move]] | None = None, on_decision=None):
        # on_decision(index, hand): called before each legal event with its index in the events
        self.on_decision = on_decision
        self.case = case
        self.rules = rules if rules is not None else case.rules
        self.moves = moves if moves is not None else [case.moves(h) for h in range(len(case.hands))]
        self.hand: Hand | None = None  # the last hand, at the end of the line
        self.events: list[dict] = []
        self._order = {c: i for i, c in enumerate(self.rules.deck.code)}

    def run(self) -> list[dict]:
        case, rules = self.case, self.rules
        decks = _Decks()
        match = None
        if case.target is not None:
            match = Match(rules, case.players, dealer=case.dealer, target=case.target, decks=decks)
        events = self.events
        for h, spec in enumerate(case.hands):
            decks.queue = [[self._order[c] for c in order] for order in spec.decks]
            try:
                hand = match.new_hand() if match is not None else Hand(rules, case.players, case.dealer, decks)
            except EscobaError as e:
                raise ReplayError(f"$.hands[{h}].decks", str(e)) from None
            if decks.queue:
                used = len(hand.deck_orders)
                raise ReplayError(f"$.hands[{h}].decks", f"the hand used {used} deck order(s), the case gives {used + len(decks.queue)}")
            assert hand.events is not None
            events.extend(hand.events)
            self.hand = hand
            moves = iter(self.moves[h])
            for i, entry in enumerate(spec.line):
                path = f"$.hands[{h}].moves[{i}]"
                if not isinstance(entry, str):  # a probe: refused, and nothing changes
                    self._legal(hand)
                    self._probe(hand, entry, path)
                    continue
                if hand.is_over:
                    raise ReplayError(path, "the hand is already over")
                self._legal(hand)
                try:
                    events.extend(hand.apply(next(moves)))
                except IllegalMoveError as e:
                    raise ReplayError(path, f"illegal move {entry!r}: {e.reason}") from None
                if match is not None and hand.is_over:  # totals go in the reply of the last play
                    events.extend(match.end_hand())
                    if match.is_over and h + 1 < len(case.hands):
                        raise ReplayError("$.hands", f"the match is over after hand {h + 1}, but {len(case.hands)} hands are given")
            # After a probe the runner asks `legal` again; a probe or perft case stops at a decision.
            if (spec.line and not isinstance(spec.line[-1], str)) or (case.kind != "game" and not hand.is_over):
                self._legal(hand)
            if case.kind != "game":
                break
            if not hand.is_over:
                raise ReplayError(f"$.hands[{h}].moves", f"the hand is not over after {len(self.moves[h])} moves")
        if match is not None and not match.is_over:
            raise ReplayError("$.hands", f"the match is not over after {len(case.hands)} hand(s)")
        last = self.hand
        assert last is not None
        if case.kind == "perft" and last.is_over:
            raise ReplayError("$.hands[0].moves", "a perft case counts from a decision, but the hand is over")
        if case.probe is not None:
            self._check_probe(last, case.probe, "$.probe")
        return events

    def _legal(self, hand: Hand) -> None:
        if self.on_decision is not None:
            self.on_decision(len(self.events), hand)
        self.events.append(legal_event(hand, self.case.legal))

    def _probe(self, hand: Hand, probe: Any, path: str) -> None:
        """A probe among the moves: refused for its reason, then the unchanged state."""
        self._check_probe(hand, probe, path)
        self.events.append(rejected_event(self.case.probe_wire(probe), "illegal_move", probe.reason))
        self.events.append(state_event(hand.to_json(), self._order))

    def _check_probe(self, hand: Hand, probe: Any, path: str) -> None:
        reason, why = probe_reason(hand, probe.move)
        if reason is None:
            raise ReplayError(f"{path}.move" if path == "$.probe" else f"{path}.probe", "the probe move is legal here")
        if reason != probe.reason:
            raise ReplayError(f"{path}.reason", f"the probe move is refused as {reason} ({why}), not {probe.reason}")


def probe_reason(hand: Hand, move: str | Mapping[str, Any]) -> tuple[str | None, str]:
    """The reason class (docs/protocol.md, "Errors") for which the engine refuses `move`,
    and the engine's words; `(None, "")` if the move is legal."""
    from escoba.notation import move_from_wire, parse_move

    deck = hand.rules.deck
    try:
        parsed = parse_move(move, deck) if isinstance(move, str) else move_from_wire(move, deck)
    except NotationError as e:
        return "malformed", e.message
    if hand.is_over:
        return "hand_over", "the hand is over"
    if parsed in hand.legal_moves():
        return None, ""
    found = hand.refusal(parsed)
    return (found.reason, found.words) if found is not None else ("compulsory", "not a legal move here")


def reason_class(hand: Hand, move: Move) -> str:
    """Which rule an illegal move breaks (`escoba.game.moves`: checked in the order a player
    would notice)."""
    found = hand.refusal(move)
    return found.reason if found is not None else "compulsory"


def replayed_events(case, rules, moves: Sequence[Sequence[Move]]) -> list[dict] | None:
    """The events the reference engine says for `case`'s deck orders and `moves` under the
    compiled `rules` (another ruleset than the case's, a hypothesis, a mutant); None where it
    cannot play them as written."""
    try:
        return Replay(case, rules, moves).run()
    except (EscobaError, ValueError, KeyError, IndexError):
        return None


def expected_events(case) -> list[dict]:
    """What a conforming engine must produce for `case` (plus the runner's legal events)."""
    return Replay(case).run()


def perft(hand: Hand, depth: int) -> int:
    """Distinct play sequences of `depth` plays from this position; a sequence that ends the
    hand sooner counts once. The hand is not changed."""
    if depth == 0 or hand.is_over:
        return 1
    return _perft(Hand.from_json(hand.rules, hand.to_json(), record=False), depth)


def _perft(hand: Hand, depth: int) -> int:
    if depth == 0 or hand.is_over:
        return 1
    total = 0
    for move in hand.legal_moves():
        child = hand.clone()  # a copy, not a snapshot read back: a few times cheaper
        child.apply(move)
        total += _perft(child, depth - 1)
    return total


def perft_count(case) -> int:
    replay = Replay(case)
    replay.run()
    assert replay.hand is not None and case.perft is not None
    return perft(replay.hand, case.perft.depth)
