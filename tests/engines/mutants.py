"""Mutant engines: the reference engine with one rule implemented wrong.

Each mutant is a bug an engine author could plausibly write (most are the bug classes seen in
public Escoba and Scopa engines). A golden suite with teeth fails every one of them on at least
one case; a mutant that survives points at a rule point the suite does not pin yet.

A mutant is a small patch of the reference engine through one of `ReferenceEngine`'s hooks:
- `adjust_rules`: the compiled `Rules` with one field read wrong (`dataclasses.replace`), the
  way an engine that ignores or inverts one ruleset setting behaves;
- a `CaptureFinder` subclass: capture enumeration that misses or adds subsets;
- `hand_class` / `match_class`: a Hand or Match subclass with one step changed (`hand_mutant`,
  `match_mutant`: a match deals its hands as the mutant's Hand too);
- `legal_json` / `play_events`: what goes on the wire;
- the `play` and `legal` commands themselves: a refusal with the wrong reason or kind, a
  refused move that still changes the hand, a move read off the wire wrongly.

Every rule point of the capture kinds has its mutant too: Escoba's sum read everywhere, the
priorities ignored, and a sweep on the last play counted where the ruleset says it is not
(`last-play-escoba-counted`). With Escoba's 15 that last one is an equivalent mutant for every
bundled Escoba ruleset: the only one with `escoba_on_last_play: false` (last-play-no-escoba)
has no jokers and nothing set aside, its 40 cards are worth 220 ≡ 10 (mod 15) and every capture
takes a multiple of 15, so cards are always left after the last play. Scopa, capturing by a
card's own value, sweeps on the last play, and its golden case catches it. (The other
direction is a real mutant wherever the opening table is set aside (de) or jokers are in play,
see `last-play-escoba-ignored`.)

`MUTANTS[name]` is the engine class; `tests/engines/mutant_engine.py NAME` serves one over
stdin/stdout, for runs through the real subprocess path.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from escoba.engine.hand import Hand
from escoba.engine.match import Match
from escoba.game.capture import CaptureFinder
from escoba.game.moves import Move
from escoba.protocol.server import ReferenceEngine, Refused
from escoba.rules.compile import Category, Rules

MUTANTS: dict[str, type[ReferenceEngine]] = {}
DESCRIPTIONS: dict[str, str] = {}

# Mutants added for the suite's blind spots (issue 11) that escoba explore and identify were
# not built to find, so their tests leave them out (tests/test_explore.py,
# tests/test_identify.py): explore's probes never send a take naming a card twice or an
# unknown code, and never ask for the state after a refusal or the legal moves after the
# hand; identify's table of what each mutant plays has no rows for the mutants after it.
BEYOND_EXPLORE = frozenset({"duplicate-take-accepted", "legal-after-hand-over", "refusal-removes-card", "unknown-take-code-ignored"})
BEYOND_IDENTIFY = BEYOND_EXPLORE | {
    "compulsory-as-wrong-sum", "dealer-dealt-last", "hand-over-as-not-in-hand", "last-capturer-starts-as-dealer",
    "malformed-as-bad-request", "match-end-first-two-sides", "match-tie-any-two-equal", "next-dealer-always-right",
    "not-in-hand-as-malformed", "opening-take-not-a-capture", "sum-checked-before-table", "thirty-splits-everywhere",
    "wrong-sum-accepted",
}  # fmt: skip


def mutant(name: str, description: str) -> Callable[[type[ReferenceEngine]], type[ReferenceEngine]]:
    def register(cls: type[ReferenceEngine]) -> type[ReferenceEngine]:
        cls.name = f"mutant-{name}"
        MUTANTS[name] = cls
        DESCRIPTIONS[name] = description
        return cls

    return register


def rules_mutant(name: str, description: str, change: Callable[[Rules], Rules]) -> None:
    """A mutant that reads one field of the compiled rules wrong."""
    cls = type(f"Mutant_{name.replace('-', '_')}", (ReferenceEngine,), {"adjust_rules": lambda self, rules: change(rules)})
    mutant(name, description)(cls)


def replace(**fields: Callable[[Rules], object]) -> Callable[[Rules], Rules]:
    """`rules` with each named field set to `fn(rules)`."""
    return lambda rules: dataclasses.replace(rules, **{k: fn(rules) for k, fn in fields.items()})


def categories(fn: Callable[[Category, Rules], Category | None]) -> Callable[[Rules], Rules]:
    """`rules` with each category mapped by `fn` (None drops it)."""

    def change(rules: Rules) -> Rules:
        mapped = (fn(c, rules) for c in rules.categories)
        return dataclasses.replace(rules, categories=tuple(c for c in mapped if c is not None))

    return change


def finder(cls: type[CaptureFinder]) -> Callable[[Rules], Rules]:
    def change(rules: Rules) -> Rules:
        f = rules.finder
        return dataclasses.replace(rules, finder=cls(f.value, f.is_joker, f.target, f.low, f.high))

    return change


# ---------------------------------------------------------------------------------- turn and deal
rules_mutant(
    "leader-wrong-side", "the player on the dealer's other side leads",
    replace(leader_offset=lambda r: -r.leader_offset),
)  # fmt: skip
rules_mutant(
    "turn-wrong-direction", "play passes the wrong way round the table",
    replace(direction=lambda r: -r.direction),
)  # fmt: skip
rules_mutant(
    "dealer-rotates-wrong-way", "the deal passes to the wrong neighbour between hands",
    replace(next_dealer_offset=lambda r: -r.next_dealer_offset),
)  # fmt: skip
rules_mutant(
    "table-before-hands", "the table is always turned up before the hands are dealt",
    replace(table_first=lambda r: True),
)  # fmt: skip
rules_mutant(
    "hands-before-table", "the hands are always dealt before the table is turned up",
    replace(table_first=lambda r: False),
)  # fmt: skip

# ---------------------------------------------------------------------------------- opening table
rules_mutant(
    "opening-15-not-escoba", "the dealer's opening 15 is taken but never scores an escoba",
    replace(opening_escobas=lambda r: "none"),
)  # fmt: skip
rules_mutant(
    "opening-escoba-always", "the dealer's opening take always scores escobas, whatever the ruleset says",
    replace(opening_escobas=lambda r: "per_group"),
)  # fmt: skip
rules_mutant(
    "opening-one-escoba-only", "an opening 30 that splits into two 15s is one escoba, not two",
    replace(opening_escobas=lambda r: "one" if r.opening_escobas == "per_group" else r.opening_escobas),
)  # fmt: skip
rules_mutant(
    "set-aside-as-dealer-takes", "an opening table the ruleset sets aside goes to the dealer",
    replace(opening_action=lambda r: "dealer_takes" if r.opening_action == "set_aside" else r.opening_action),
)  # fmt: skip
rules_mutant(
    "redeal-ignored", "an opening table that calls for a redeal is played as it lies",
    replace(opening_action=lambda r: "none" if r.opening_action == "redeal" else r.opening_action),
)  # fmt: skip
rules_mutant(
    "any-combination-as-whole-table", "the opening rule acts only when the whole table makes 15",
    replace(opening_trigger=lambda r: "all_cards"),
)  # fmt: skip
rules_mutant(
    "opening-total-as-split", "an opening table that adds up to 30 counts only if it splits into two 15s",
    replace(opening_trigger=lambda r: "all_cards" if r.opening_trigger == "total" else r.opening_trigger),
)  # fmt: skip


# ---------------------------------------------------------------------------------- capture kinds
def kinds(change: Callable[[tuple[tuple[str, str], ...]], tuple[tuple[str, str], ...]]) -> Callable[[Rules], Rules]:
    """`rules` whose capture finder reads the capture kinds as `change(kinds)`."""

    def apply(rules: Rules) -> Rules:
        f = rules.finder
        found = change(rules.capture_kinds)
        return dataclasses.replace(rules, finder=CaptureFinder(f.value, f.is_joker, rules.target or 15, f.low, f.high, found))

    return apply


rules_mutant(
    "kinds-ignored", "every card captures by making 15 with table cards, whatever capture.kinds says",
    kinds(lambda k: (("target", "none"),)),
)  # fmt: skip
rules_mutant(
    "priorities-ignored", "a capture kind's priority (a single card first, the fewest cards) is not applied",
    kinds(lambda k: tuple((total, "none") for total, _ in k)),
)  # fmt: skip
rules_mutant(
    "last-play-escoba-counted", "a sweep on the hand's last play is an escoba even where the ruleset says it is not",
    replace(escoba_on_last_play=lambda r: True),
)  # fmt: skip


class ThirtyIsTwo(CaptureFinder):
    """An opening table totalling twice the target counts as two groups, split or not."""

    __slots__ = ()

    def split_groups(self, table, max_groups):  # type: ignore[no-untyped-def]
        if max_groups >= 2 and len(table) >= 4 and sum(self.value[c] for c in table) == 2 * self.target:
            return 2
        return super().split_groups(table, max_groups)


rules_mutant("thirty-without-split", "an opening 30 is two escobas even when it does not split into two 15s", finder(ThirtyIsTwo))


# ---------------------------------------------------------------------------------- captures
class FilteringFinder(CaptureFinder):
    """Capture enumeration with a bug: `keep` filters the subsets one played card may take.

    The engine asks for captures two ways (per card, and every sum at once for a joker-free
    table), so both are filtered alike; a card left with no capture may then be placed, as it
    would be in an engine with this bug.
    """

    __slots__ = ()

    def keep(self, subsets: list, table) -> list:  # type: ignore[no-untyped-def]
        raise NotImplementedError

    def captures(self, card, table):  # type: ignore[no-untyped-def]
        return self.keep(list(super().captures(card, table)), table)

    def sums(self, table, limit=None):  # type: ignore[no-untyped-def]
        found = super().sums(table, limit)
        kept = {total: self.keep(list(subsets), table) for total, subsets in found.items()}
        return {total: subsets for total, subsets in kept.items() if subsets}


class NoSingles(FilteringFinder):
    __slots__ = ()

    def keep(self, subsets, table):  # type: ignore[no-untyped-def]
        return [s for s in subsets if len(s) > 1]


class NoWholeTable(FilteringFinder):
    __slots__ = ()

    def keep(self, subsets, table):  # type: ignore[no-untyped-def]
        return [s for s in subsets if len(s) < len(table)]


class SingleFirst(FilteringFinder):
    """Scopa's rule leaking in: a card that can take one card must take one card."""

    __slots__ = ()

    def keep(self, subsets, table):  # type: ignore[no-untyped-def]
        return [s for s in subsets if len(s) == 1] or subsets


class FirstSubsetOnly(FilteringFinder):
    """The engine picks the capture itself: one subset per card, never a choice."""

    __slots__ = ()

    def keep(self, subsets, table):  # type: ignore[no-untyped-def]
        return subsets[:1]


rules_mutant("single-card-captures-missed", "captures of a single table card are never offered", finder(NoSingles))
rules_mutant("whole-table-captures-missed", "a capture of every card on the table is never offered", finder(NoWholeTable))
rules_mutant("scopa-single-card-first", "Scopa's 'equal rank first': when one card can be taken, combinations are not offered", finder(SingleFirst))
rules_mutant("engine-picks-the-capture", "only the first subset is offered: the engine chooses the capture", finder(FirstSubsetOnly))
rules_mutant(
    "capture-optional", "capturing is optional where the ruleset makes it compulsory",
    replace(compulsory=lambda r: "optional"),
)  # fmt: skip
rules_mutant(
    "card-level-where-hand", "compulsory capture checked card by card where the ruleset says the whole hand",
    replace(compulsory=lambda r: "card" if r.compulsory == "hand" else r.compulsory),
)  # fmt: skip
rules_mutant(
    "capture-compulsory-where-optional", "capturing is forced (card level) where the ruleset makes it optional",
    replace(compulsory=lambda r: "card" if r.compulsory == "optional" else r.compulsory),
)  # fmt: skip


@mutant("legal-moves-unsorted", "legal moves are listed in the order found, not in deck order")
class LegalUnsorted(ReferenceEngine):
    def legal_json(self, hand):  # type: ignore[no-untyped-def]
        return list(reversed(super().legal_json(hand)))


@mutant("legal-moves-duplicated", "a capture reachable two ways is listed twice")
class LegalDuplicated(ReferenceEngine):
    def legal_json(self, hand):  # type: ignore[no-untyped-def]
        moves = super().legal_json(hand)
        takes = [m for m in moves if len(m["take"]) > 1]
        return moves + takes[:1]


# ---------------------------------------------------------------------------------- refusals
class RefusalMutant(ReferenceEngine):
    """`play` with one step of the refusal wrong; `change(reason, move)` is the reason the
    mutant gives instead (None: the same)."""

    def refuse(self, refusal: Refused, request: Mapping[str, Any]) -> Refused:
        return refusal

    def _cmd_play(self, request: Mapping[str, Any]) -> dict:
        try:
            return super()._cmd_play(request)
        except Refused as refusal:
            raise self.refuse(refusal, request) from None


def reason_mutant(name: str, description: str, wrong: Callable[[ReferenceEngine, str, Any], str]) -> None:
    """A mutant that refuses with another reason: `wrong(engine, reason, move)`."""

    def refuse(self, refusal: Refused, request: Mapping[str, Any]) -> Refused:
        if refusal.kind != "illegal_move" or refusal.reason is None:
            return refusal
        return Refused(refusal.kind, refusal.message, wrong(self, refusal.reason, request.get("move")))

    mutant(name, description)(type(f"Mutant_{name.replace('-', '_')}", (RefusalMutant,), {"refuse": refuse}))


def _sum_wrong(engine: ReferenceEngine, move: Any) -> bool:
    rules = engine.rules
    assert rules is not None
    code = {c: i for i, c in enumerate(rules.deck.code)}
    cards = [code[c] for c in [move["card"], *move["take"]] if c in code]
    return not rules.finder.makes_target(tuple(cards))


reason_mutant(
    "sum-checked-before-table", "a take that is neither on the table nor of the right sum is refused as wrong_sum (the sum is checked first)",
    lambda self, reason, move: "wrong_sum" if reason == "not_on_table" and _sum_wrong(self, move) else reason,
)  # fmt: skip
reason_mutant(
    "hand-over-as-not-in-hand", "a move after the hand is over is refused as not_in_hand (every hand is empty)",
    lambda self, reason, move: "not_in_hand" if reason == "hand_over" else reason,
)  # fmt: skip
reason_mutant(
    "not-in-hand-as-malformed", "a card the player does not hold is refused as malformed (an unknown card to that hand)",
    lambda self, reason, move: "malformed" if reason == "not_in_hand" else reason,
)  # fmt: skip
reason_mutant(
    "compulsory-as-wrong-sum", "placing a card where capture is compulsory is refused as wrong_sum (the card alone does not make 15)",
    lambda self, reason, move: "wrong_sum" if reason == "compulsory" else reason,
)  # fmt: skip


@mutant("refusal-removes-card", "a refused move still takes the played card out of the hand")
class RefusalRemovesCard(RefusalMutant):
    def refuse(self, refusal: Refused, request: Mapping[str, Any]) -> Refused:
        hand, move = self.hand, request.get("move")
        if hand is not None and hand.to_play is not None and isinstance(move, dict) and move.get("card") in self._code:
            held = hand.hands[hand.to_play]
            card = self._code[move["card"]]
            if card in held:
                held.remove(card)
                hand._legal = None
        return refusal


@mutant("wrong-sum-accepted", "a capture of table cards that do not make 15 with the card played is accepted")
class WrongSumAccepted(ReferenceEngine):
    def _cmd_play(self, request: Mapping[str, Any]) -> dict:
        hand = self._playing()
        move = self._move(request.get("move"))
        held = hand.hands[hand.to_play] if hand.to_play is not None else []
        if move.card in held and move.take and all(c in hand.table for c in move.take) and move not in hand.legal_moves():
            events = hand._play(move)
            return {"events": events + (self.match.end_hand() if self.match is not None and hand.is_over else [])}
        return super()._cmd_play(request)


class WireMutant(ReferenceEngine):
    """The move read off the wire wrongly: `codes(take)` is the take the mutant reads."""

    def read_take(self, take: list) -> list:
        return take

    def _move(self, move: Any) -> Move:
        if isinstance(move, dict) and isinstance(move.get("take"), list):
            move = {**move, "take": self.read_take(move["take"])}
        return super()._move(move)


@mutant("duplicate-take-accepted", "a take naming the same card twice is read as naming it once, and played")
class DuplicateTakeAccepted(WireMutant):
    def read_take(self, take: list) -> list:
        return list(dict.fromkeys(c for c in take if isinstance(c, str)))


@mutant("unknown-take-code-ignored", "an unknown card code in a take is ignored, and the rest played")
class UnknownTakeCodeIgnored(WireMutant):
    def read_take(self, take: list) -> list:
        return [c for c in take if c in self._code]


@mutant("malformed-as-bad-request", "a malformed move is refused with kind bad_request, not illegal_move")
class MalformedAsBadRequest(ReferenceEngine):
    def _move(self, move: Any) -> Move:
        try:
            return super()._move(move)
        except Refused as refusal:
            raise Refused("bad_request", refusal.message) from None


@mutant("legal-after-hand-over", "legal after the hand is over names the dealer (who played last) instead of no seat")
class LegalAfterHandOver(ReferenceEngine):
    def _cmd_legal(self, request: Mapping[str, Any]) -> dict:
        hand = self._playing()
        if hand.is_over:
            return {"seat": hand.dealer, "moves": []}
        return super()._cmd_legal(request)


# ---------------------------------------------------------------------------------- escobas
rules_mutant(
    "last-play-escoba-ignored", "a sweep on the hand's last play never counts as an escoba",
    replace(escoba_on_last_play=lambda r: False),
)  # fmt: skip
rules_mutant(
    "joker-escobas-score", "an escoba made with a joker scores where the ruleset says it does not",
    replace(joker_escobas_score=lambda r: True),
)  # fmt: skip


# ---------------------------------------------------------------------------------- leftovers
rules_mutant(
    "leftovers-to-dealer", "the cards left at the end go to the dealer, not the last to capture",
    replace(leftovers_to=lambda r: "dealer" if r.leftovers_to == "last_capturer" else r.leftovers_to),
)  # fmt: skip
rules_mutant(
    "leftovers-are-an-escoba", "taking the cards left at the end counts as an escoba",
    replace(leftovers_escoba=lambda r: True),
)  # fmt: skip


def hand_mutant(name: str, description: str) -> Callable[[type[Hand]], type[Hand]]:
    """A mutant whose hands (in a match too) are dealt as the decorated `Hand` subclass."""

    def register(hand: type[Hand]) -> type[Hand]:
        match = type(f"{hand.__name__}Match", (Match,), {"hand_class": hand})
        engine = type(f"Mutant_{name.replace('-', '_')}", (ReferenceEngine,), {"hand_class": hand, "match_class": match})
        mutant(name, description)(engine)
        return hand

    return register


@hand_mutant("dealer-dealt-last", "each round is dealt from the leader in the direction of play, but the dealer is always dealt last (where the dealer's left leads, the dealer's packet comes second)")
class DealerDealtLast(Hand):
    def _start(self) -> None:
        self._seats = [s for s in self._seats if s != self.dealer] + [self.dealer]
        super()._start()


@hand_mutant("leftovers-to-next-player", "the leftovers go to the seat after the last capturer")
class LeftoversToNextPlayer(Hand):
    """The leftovers go to the player after the last capturer (an off-by-one in the seat)."""

    def _finish(self) -> None:
        if self.last_capturer is not None:
            self.last_capturer = (self.last_capturer + self.rules.direction) % self.players
        super()._finish()


@hand_mutant("last-capturer-starts-as-dealer", "the last capturer starts as the dealer, so the leftovers of a hand nobody captured in go to the dealer")
class LastCapturerStartsAsDealer(Hand):
    def _start(self) -> None:
        super()._start()
        if self.last_capturer is None:
            self.last_capturer = self.dealer


@hand_mutant("opening-take-not-a-capture", "the dealer's opening take does not make the dealer the last capturer, so a hand nobody captures in after it leaves its leftovers to nobody")
class OpeningTakeNotACapture(Hand):
    def _opening(self) -> bool:
        done = super()._opening()
        self.last_capturer = None  # nobody has played yet: only the opening take could have set it
        return done


# ---------------------------------------------------------------------------------- scoring
def _primera_by_capture_value(cat: Category, rules: Rules) -> Category:
    if cat.measure_text is None or "primera" not in cat.measure_text:
        return cat
    deck = rules.deck
    suits = range(len(deck.suit_ids))

    def measure(pile, escobas):  # type: ignore[no-untyped-def]
        best = [max((deck.value[c] for c in pile if deck.suit[c] == s), default=None) for s in suits]
        return None if None in best else sum(best)

    return dataclasses.replace(cat, measure=measure)


def _primera_missing_suit_eligible(cat: Category, rules: Rules) -> Category:
    if cat.measure_text is None or "primera" not in cat.measure_text:
        return cat
    deck = rules.deck
    table = {str(k): v for k, v in (rules.doc.get("values") or {}).get("primera", {}).items()}
    worth = [table.get(deck.rank_ids[deck.rank[c]], 0) if not deck.is_joker(c) else 0 for c in deck.cards]

    def measure(pile, escobas):  # type: ignore[no-untyped-def]
        return sum(max((worth[c] for c in pile if deck.suit[c] == s), default=0) for s in range(len(deck.suit_ids)))

    return dataclasses.replace(cat, measure=measure)


def _sevens_count_sixes(cat: Category, rules: Rules) -> Category:
    if cat.measure_text is None or cat.measure_text.replace(" ", "") != "count(rank(cards,7))":
        return cat
    deck = rules.deck
    wanted = {deck.rank_ids.index("7"), deck.rank_ids.index("6")}
    return dataclasses.replace(cat, measure=lambda pile, escobas: sum(1 for c in pile if deck.rank[c] in wanted))


rules_mutant("primera-capture-values", "primera counts each suit's best card at its capture value (7, 8, 9, 10) instead of 21, 18, 16…", categories(_primera_by_capture_value))
rules_mutant("primera-missing-suit-eligible", "a side missing a suit still scores primera (an empty suit counts 0)", categories(_primera_missing_suit_eligible))
rules_mutant("sevens-count-sixes", "'most sevens' counts sevens and sixes", categories(_sevens_count_sixes))
rules_mutant(
    "ties-to-all", "a tie for most scores for every tied side where the ruleset says nobody",
    categories(lambda c, r: dataclasses.replace(c, ties="all") if c.policy == "most" else c),
)  # fmt: skip
rules_mutant(
    "ties-to-nobody", "a tie for most scores for nobody where the ruleset says every tied side",
    categories(lambda c, r: dataclasses.replace(c, ties="nobody") if c.policy == "most" else c),
)  # fmt: skip
rules_mutant(
    "threshold-as-most", "'more than N' is read as 'most'",
    categories(lambda c, r: dataclasses.replace(c, policy="most", ties="nobody") if c.policy == "threshold" else c),
)  # fmt: skip
rules_mutant(
    "threshold-at-least", "'more than N' is read as 'N or more' (>= instead of >)",
    categories(lambda c, r: dataclasses.replace(c, more_than=c.more_than - 1) if c.policy == "threshold" else c),
)  # fmt: skip
rules_mutant(
    "velo-ignored", "the seven of coins scores nothing",
    categories(lambda c, r: None if c.policy == "holder" else c),
)  # fmt: skip
rules_mutant(
    "escobas-one-point", "every escoba is worth one point whatever the ruleset says",
    categories(lambda c, r: dataclasses.replace(c, points=1) if c.policy == "per_unit" else c),
)  # fmt: skip
rules_mutant(
    "bonus-ignored", "bonus categories (all sevens, all coins) are never awarded",
    categories(lambda c, r: None if c.policy == "bonus" else c),
)  # fmt: skip
rules_mutant(
    "partnership-points-per-player", "partners score as separate players",
    replace(partnerships=lambda r: {}),
)  # fmt: skip


# ---------------------------------------------------------------------------------- match end
def match_mutant(name: str, description: str) -> Callable[[type[Match]], type[Match]]:
    """A mutant whose matches end as the decorated `Match` subclass decides."""

    def register(match: type[Match]) -> type[Match]:
        mutant(name, description)(type(f"Mutant_{name.replace('-', '_')}", (ReferenceEngine,), {"match_class": match}))
        return match

    return register


@match_mutant("exact-tie-first-side-wins", "an exact tie over the target is a win for the first side")
class FirstSideWinsTies(Match):
    """An exact tie over the target goes to the first side instead of another hand."""

    def end_hand(self) -> list[dict]:
        events = super().end_hand()
        if events[-1]["event"] == "tie":
            tie = events.pop()
            self.winners = [tie["sides"][0]]
            events.append({"event": "match_end", "winners": self.winners, "totals": list(self.totals), "reason": "tie"})
        if self.winners is not None and len(self.winners) > 1:  # a shared win, too
            self.winners = self.winners[:1]
            events[-1] = {**events[-1], "winners": self.winners}
        return events


@match_mutant("first-to-reach-wins", "several sides over the target: the first side wins, not the highest total")
class FirstToReachWins(Match):
    """When several sides reach the target, the first of them wins, not the highest."""

    def end_hand(self) -> list[dict]:
        events = super().end_hand()
        reached = [s for s in range(self.sides) if self.totals[s] >= self.target]
        if len(reached) > 1:
            self.winners = reached[:1]
            events = [e for e in events if e["event"] not in ("tie", "match_end")]
            events.append({"event": "match_end", "winners": self.winners, "totals": list(self.totals), "reason": "first"})
        return events


rules_mutant(
    "shared-win-ignored", "an exact tie is played off where the ruleset makes it a shared win",
    replace(tie=lambda r: "extra_hand"),
)  # fmt: skip


@match_mutant("match-end-first-two-sides", "with three or four sides, only the first two are compared at the end of a hand")
class FirstTwoSidesOnly(Match):
    """Only the first two sides are checked against the target (a two-player habit)."""

    def end_hand(self) -> list[dict]:
        sides, self.sides = self.sides, min(self.sides, 2)
        try:
            return super().end_hand()
        finally:
            self.sides = sides


@match_mutant("match-tie-any-two-equal", "any two sides over the target with equal totals tie, even below a higher total")
class AnyTwoEqualTie(Match):
    """A tie is read as "two sides over the target are equal", not "the highest total is shared"."""

    def end_hand(self) -> list[dict]:
        events = super().end_hand()
        reached = [s for s in range(self.sides) if self.totals[s] >= self.target]
        tied = [s for s in reached if sum(self.totals[t] == self.totals[s] for t in reached) > 1]
        if self.winners is not None and len(self.winners) == 1 and tied:
            if self.rules.tie == "shared_win":
                self.winners = tied
                events[-1] = {**events[-1], "winners": tied, "reason": "tie"}
            else:
                self.winners = None
                events[-1] = {"event": "tie", "sides": tied, "totals": list(self.totals)}
        return events


rules_mutant(
    "thirty-splits-everywhere", "an opening table that splits into two groups of 15 is taken where the ruleset counts one group only",
    replace(opening_max_groups=lambda r: max(r.opening_max_groups, 2)),
)  # fmt: skip
rules_mutant(
    "next-dealer-always-right", "the deal always passes to the right, whatever the ruleset says",
    replace(next_dealer_offset=lambda r: 1),
)  # fmt: skip


# ---------------------------------------------------------------------------------- impostors
# Engines that play another bundled ruleset than the one they are sent: the reference engine
# serving `sv` while the runner sends `base`, say (escoba identify must name `sv`).
IMPOSTORS: dict[str, type[ReferenceEngine]] = {}


def impostor(ruleset: str) -> type[ReferenceEngine]:
    """The reference engine playing bundled `ruleset` whatever ruleset `start` sends."""
    if ruleset not in IMPOSTORS:
        from escoba.rules import load_resolved

        def compile(self: ReferenceEngine, doc: Any) -> Rules:
            return ReferenceEngine.compile(self, load_resolved(ruleset).doc)

        IMPOSTORS[ruleset] = type(f"Plays_{ruleset.replace('-', '_')}", (ReferenceEngine,), {"compile": compile, "name": f"plays-{ruleset}"})
    return IMPOSTORS[ruleset]
