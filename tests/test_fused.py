"""The fused simulation path (`escoba.engine.fused`) plays exactly the hands `Hand` plays.

The main test plays 2,000 seeded hands of every bundled ruleset at every player count both
ways under `HYPOTHESIS_PROFILE=deep` (300 in the everyday suite: 2,000 cost about 3
CPU-minutes), random bots at every seat, and compares each hand move by move (seat, card,
cards taken), then its opening, piles, escobas, declarations and points per category and side. The reference side
is `Hand` with `random_bot`, dealt from `shuffled_decks`, exactly as `escoba simulate` plays a
hand when the fused path is off.

To keep the suite quick, each hand is played once per *group* of rulesets whose every field
but the scoring categories (and the match's target and tie rule, which no hand reads) is equal:
both `Hand` and the fused path read only those fields to play, so such rulesets play the same
game card for card under either. Each ruleset of a group is then scored both ways, by
`score_hand` and by its own fused scorer (`Fused.score`). The groups are spread over worker
processes.
"""

from __future__ import annotations

import dataclasses
import os
import random
from concurrent.futures import ProcessPoolExecutor

import pytest

import escoba
from escoba import simulate as sim
from escoba.engine import fused as fused_module
from escoba.engine.bots import random_bot
from escoba.engine.fused import Fused, fallback_reason, fused, playout
from escoba.engine.hand import Hand, shuffled_decks
from escoba.engine.history import SideHistory
from escoba.engine.scoring import score_category, score_hand
from escoba.rules import bundled_ids

HANDS = 2000 if os.environ.get("HYPOTHESIS_PROFILE") == "deep" else 300  # the 2,000 in the deep run
NOT_PLAY = {"id", "doc", "categories", "match_target", "target_options", "tie", "next_dealer_offset"}


def play_groups(ids) -> list[list[str]]:
    """Rulesets grouped by every Rules field that a hand's play reads (all but NOT_PLAY)."""
    groups: dict[tuple, list[str]] = {}
    for rid in ids:
        rules = escoba.load_ruleset(rid)
        finder = rules.finder  # its repr is an address: compared by what it holds
        key = tuple(
            (f.name, repr(getattr(rules, f.name))) for f in dataclasses.fields(rules) if f.name not in NOT_PLAY | {"finder"}
        ) + (rules.deck.value, finder.value, finder.is_joker, finder.target, finder.low, finder.high)
        groups.setdefault(key, []).append(rid)
    return list(groups.values())


def _reference(rules, players: int, dealer: int, seed: int):
    """One hand by `Hand` and `random_bot`, with its moves."""
    rng = random.Random(seed)
    hand = Hand(rules, players, dealer, shuffled_decks(rules, rng), record=False)
    opening = (int(any(hand.piles)), sum(hand.escobas), int(bool(hand.set_aside)), len(hand.deck_orders) - 1)
    bot = random_bot(rng)
    moves = []
    while hand.to_play is not None:
        seat = hand.to_play
        move = bot(hand)
        hand.apply(move)
        moves.append((seat, move.card, tuple(move.take)))
    return hand, opening, moves


def _as_read(history, reads):
    """A hand's history as far as measures reading `reads` see it, as the fused loop keeps it:
    every capture for `captures`, the sweeps (those that scored an escoba) for `sweeps`, no
    capture for `last_capture` alone."""
    if history is None or "captures" in reads:
        return history
    return [SideHistory(tuple(c for c in side.captures if c.escoba and "sweeps" in reads), side.last_capture)
            for side in history]  # fmt: skip


def _mask(cards) -> int:
    return sum(1 << c for c in cards)


def _compare(group: list[str], players: int, hands: int) -> list[str]:
    """Play `hands` hands of a play group both ways and score them under each of its rulesets;
    the differences found (at most three)."""
    every = [escoba.load_ruleset(rid) for rid in group if players in escoba.load_ruleset(rid).player_counts]
    kernels = [(rules, fused(rules)) for rules in every]
    player = next((k for _, k in kernels if k is not None), None)
    if player is None:
        return []  # every ruleset of the group falls back to Hand (reported by test_every_bundled_ruleset_runs_fused)
    problems: list[str] = []
    for i in range(hands):
        seed = sim.hand_seed(11, i)
        hand, opening, moves = _reference(every[0], players, i % players, seed)
        trace: list = []
        out = player.deal_and_play(random.Random(seed), players, i % players, trace=trace)
        played = {
            "moves": (moves, trace),
            "opening": (opening, out.opening),
            "piles": ([_mask(p) for p in hand.piles], out.piles),
            "set aside": (_mask(hand.set_aside), out.set_aside),
            "escobas": (hand.escobas, out.escobas),
            "history": (_as_read(hand.history(), every[0].history_reads), out.history),  # None unless a measure reads it
            "declarations": (hand.declared, out.declared),  # None unless a category is measured on dealt cards
        }
        differ = [what for what, (a, b) in played.items() if a != b]
        for rules, kernel in kernels:
            if kernel is None:
                continue
            scores = score_hand(rules, hand.piles, hand.escobas, hand.history(), hand.declared)
            category_points, points = kernel.score(out.piles, out.escobas, out.history, out.declared)
            if category_points != [p for s in scores for p in s.points]:
                differ.append(f"{rules.id}'s category points")
            if points != [sum(s.points[side] for s in scores) for side in range(len(hand.piles))]:
                differ.append(f"{rules.id}'s points")
        if differ and len(problems) < 3:
            problems.append(f"{', '.join(group)}, {players} players, hand {i}: {', '.join(differ)} differ")
    return problems


def test_play_groups_hold_every_bundled_ruleset_once():
    """The groups the equivalence test plays cover every bundled ruleset exactly once."""
    groups = play_groups(bundled_ids())
    assert sorted(rid for group in groups for rid in group) == sorted(bundled_ids())


def test_every_bundled_ruleset_plays_the_same_hands_both_ways():
    """HANDS seeded hands of every bundled ruleset at every player count: the fused path and
    Hand make the same moves and reach the same opening, piles, escobas and points."""
    jobs = [(group, n) for group in play_groups(bundled_ids()) for n in (2, 3, 4)
            if any(n in escoba.load_ruleset(rid).player_counts for rid in group)]  # fmt: skip
    with ProcessPoolExecutor(max_workers=min(len(jobs), os.cpu_count() or 1)) as pool:
        results = list(pool.map(_compare, *zip(*jobs), [HANDS] * len(jobs)))
    problems = [p for found in results for p in found]
    assert problems == []


def test_every_bundled_ruleset_runs_fused():
    """No bundled ruleset falls back to Hand today (the list of those that would is printed).

    A new rule point is played fused at its default only, until its `fast_path` says which of
    its values the fused loop plays: docs/architecture.md, "Adding a rule point"."""
    reasons = {rid: fallback_reason(escoba.load_ruleset(rid)) for rid in bundled_ids()}
    print("\n".join(f"falls back: {rid}: {why}" for rid, why in reasons.items() if why))
    assert {rid: why for rid, why in reasons.items() if why} == {}


def test_playouts_equal_random_play_on_the_hand():
    """playout(hand, rng) gives the points random_bot(rng) reaches from the same position, and
    leaves the hand as it was, from positions part way through hands of several rulesets."""
    for ruleset in ("base", "sv", "de-jokers", "fr", "de", "cirulla", "scopa", "seven-escobas-double", "last-capture-point"):
        rules = escoba.load_ruleset(ruleset)
        for players in rules.player_counts:
            for i in range(30):
                rng = random.Random(i)
                hand = Hand(rules, players, i % players, shuffled_decks(rules, rng), record=False)
                stop = rng.randrange(1, 30)
                while hand.to_play is not None and hand.plays < stop:
                    moves = hand.legal_moves()
                    hand.apply(moves[rng.randrange(len(moves))])
                if hand.to_play is None:
                    continue
                before = hand.to_json()
                points = playout(hand, random.Random(1000 + i))
                assert hand.to_json() == before
                replay, bot = Hand.from_json(rules, before, record=False), random_bot(random.Random(1000 + i))
                while replay.to_play is not None:
                    replay.apply(bot(replay))
                assert points == replay.points, (ruleset, players, i)


def test_playout_of_a_finished_hand_is_an_error():
    """A finished hand has nothing to play out: EscobaError, not a wrong answer."""
    rules = escoba.load_ruleset("base")
    hand = Hand(rules, 2, 0, seed=1, record=False)
    while hand.to_play is not None:
        hand.apply(hand.legal_moves()[0])
    with pytest.raises(escoba.EscobaError):
        playout(hand, random.Random(1))


# --------------------------------------------------------------------------- scoring
@pytest.mark.parametrize("ruleset", ["base", "da", "sv", "ru", "da-sevens", "ru-escova", "most-sevens-all-tied"])
def test_fused_scoring_equals_score_category_on_random_piles(ruleset):
    """Each category's fused award equals score_category's points on random piles, 2 to 4 sides
    (most, threshold, holder, per_unit and bonus, ties to nobody and to all)."""
    rules = escoba.load_ruleset(ruleset)
    rng = random.Random(5)
    for _ in range(300):
        sides = rng.choice((2, 3, 4))
        cards = list(rules.deck.cards)
        rng.shuffle(cards)
        cuts = sorted(rng.sample(range(len(cards) + 1), sides - 1))
        piles = [cards[a:b] for a, b in zip([0, *cuts], [*cuts, len(cards)])]
        escobas = [rng.randrange(4) for _ in range(sides)]
        for cat in rules.categories:
            award = fused_module._scorer(cat, sides)
            assert list(award([_mask(p) for p in piles], escobas, (None,) * sides)) == list(score_category(cat, piles, escobas).points)


# --------------------------------------------------------------------------- falling back
def test_a_rule_point_the_loop_does_not_play_falls_back_away_from_its_default(monkeypatch):
    """A rule point that does not say which values the fused loop plays (a point added later:
    `fast_path` left out) is played fused only at its default; a ruleset that sets it otherwise
    goes to Hand, the reason naming the field, the value and the point, and simulate then
    gives Hand's numbers, the same."""
    from escoba.rules.points.catalogue import SECTION_POINTS

    rules = escoba.load_ruleset("last-play-no-escoba")  # capture.escoba_on_last_play: no
    expected = sim.simulate(rules, 60, 2, seed=2).to_json()
    unplayed = tuple(dataclasses.replace(p, fast_path=None) if p.key == "capture.escoba_on_last_play" else p for p in SECTION_POINTS)
    monkeypatch.setattr(fused_module, "SECTION_POINTS", unplayed)
    fresh = dataclasses.replace(rules)  # a new Rules object: the compiled forms are kept per object
    assert fallback_reason(fresh) == "the fast path does not implement escoba_on_last_play = False (capture.escoba_on_last_play)"
    assert fused(fresh) is None and sim.fast_path(fresh, ("random",)) is None
    assert sim.simulate(fresh, 60, 2, seed=2).to_json() == expected
    assert fallback_reason(dataclasses.replace(escoba.load_ruleset("base"))) is None  # at its default: fused


def test_an_unknown_rule_field_falls_back_with_a_reason():
    """A compiled field no rule point owns and that is not derived from them falls back to Hand."""
    from escoba.rules.compile import Rules

    more_rules = dataclasses.make_dataclass("MoreRules", [("new_rule", bool, False)], bases=(Rules,), frozen=True)
    rules = escoba.load_ruleset("base")
    more = more_rules(**{f.name: getattr(rules, f.name) for f in dataclasses.fields(rules)})
    assert fallback_reason(more) == "the fast path does not know the rule field 'new_rule'"


def test_an_unknown_rule_value_falls_back_with_a_reason():
    """A value the fused loop does not implement (here an unknown compulsory-capture mode) is a
    fallback with the field and value named, never a wrong game."""
    rules = dataclasses.replace(escoba.load_ruleset("base"), compulsory="twice")
    assert fallback_reason(rules) == "the fast path does not implement compulsory = 'twice' (capture.compulsory)"
    assert fused(rules) is None
    with pytest.raises(escoba.EscobaError):
        Fused(rules)


def test_other_bots_are_played_by_hand():
    """Only all-random tables take the fused path; a greedy seat means Hand plays."""
    rules = escoba.load_ruleset("base")
    assert sim.fast_path(rules, ("random",)) is not None
    assert sim.fast_path(rules, ("random", "random")) is not None
    assert sim.fast_path(rules, ("greedy", "random")) is None


# --------------------------------------------------------------------------- the history kept
@pytest.mark.parametrize("measure, kept", [
    ("count(taking(captures, rank(deck, 7)))", "captures"),  # every capture: no bundled ruleset reads them
    ("count(made_with(sweeps, rank(deck, 7)))", "sweeps"),
    ("last_capture", None),
])  # fmt: skip
def test_the_loop_keeps_the_history_its_measures_read(measure: str, kept: str | None) -> None:
    """The fused loop records every capture only when a measure reads `captures`, the sweeps
    when they read no more than `sweeps`, none for `last_capture` alone; the points are
    `Hand`'s all the same, hand by hand, in play and in playouts from the middle of a hand."""
    from rulebook import base_with

    rules = base_with(categories=[
        {"id": "escobas", "measure": "escobas", "award": {"policy": "per_unit"}},
        {"id": "read", "measure": measure, "award": {"policy": "most"}},
    ])  # fmt: skip
    kernel = fused(rules)
    assert kernel is not None and kernel.kept == kept
    recorded = 0
    for i in range(150):
        seed = sim.hand_seed(5, i)
        hand, _, _ = _reference(rules, 2, i % 2, seed)
        out = kernel.deal_and_play(random.Random(seed), 2, i % 2)
        assert out.history == _as_read(hand.history(), rules.history_reads)
        recorded += sum(len(side.captures) for side in out.history or ())
        scores = score_hand(rules, hand.piles, hand.escobas, hand.history())
        assert out.category_points == [p for s in scores for p in s.points]
    assert (recorded > 0) == (kept is not None)
    # Playouts from hands half played (their history so far cut to what is kept) give the
    # points of playing the rest with `Hand`, as `playout` promises.
    for k in range(30):
        rng = random.Random(k)
        hand = Hand(rules, 2, k % 2, shuffled_decks(rules, rng), record=False)
        bot = random_bot(rng)
        for _ in range(10 + k % 17):
            hand.apply(bot(hand))
        rest = hand.clone()
        draws = random.Random(100 + k)
        while rest.to_play is not None:
            moves = rest.legal_moves()
            rest.apply(moves[draws.randrange(len(moves))])
        assert playout(hand, random.Random(100 + k)) == list(rest.points or [])


@pytest.mark.parametrize("ruleset", ["sv", "fr"])
def test_the_memo_holds_one_entry_per_table_of_values_met(ruleset: str) -> None:
    """`Fused.tables_remembered` (benchmarks/speed.py reports it) is the number of distinct
    tables of values met at a turn, and of those they were grown from (each table's subsets
    are grown from those of the table without its highest card: `Fused._grown`), counted here
    on `Hand`'s tables, turn by turn."""
    rules = escoba.load_ruleset(ruleset)
    kernel = fused(rules)
    assert kernel is not None
    fused_module.clear_memos()
    assert kernel.tables_remembered == 0
    finder = rules.finder
    met = set()
    for seed in range(40):
        rng = random.Random(seed)
        hand = Hand(rules, 2, seed % 2, shuffled_decks(rules, rng), record=False)
        bot = random_bot(rng)
        while hand.to_play is not None:
            met.add(tuple(sorted((finder.is_joker[c], finder.value[c]) for c in hand.table)))
            hand.apply(bot(hand))
        kernel.deal_and_play(random.Random(seed), 2, seed % 2)
    grown_from = {values[:n] for values in met for n in range(len(values) + 1)}
    assert kernel.tables_remembered == len(grown_from) > len(met) > 40
