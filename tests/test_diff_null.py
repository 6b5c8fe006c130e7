"""Null diffs: a ruleset against a relabelled copy of itself, where any claimed difference is false.

The short version of benchmarks/diff_null.py (which plays the default bots, 2,000 hands a seed):
40 seeds of a smaller diff under random bots, on every CI run.
"""

from __future__ import annotations

import yaml

from escoba.cli.main import main
from escoba.diff.null import null_runs, relabelled
from escoba.diff.runner import Job, run
from escoba.diff.structural import diff_rulesets
from escoba.rules import load_resolved
from escoba.rules.compile import compile_rules
from escoba.simulate import deal_hand, seat_makers


def test_the_relabelled_copy_is_the_same_game_under_other_names(tmp_path, capsys):
    """The copy is a valid ruleset that differs from da only in its suits' order and a renamed
    category; hand i deals the same ranks to the same seats in the same order under both, in
    other suits."""
    doc = load_resolved("da").doc
    copy = relabelled(doc)
    path = tmp_path / "da-relabelled.yaml"
    path.write_text(yaml.safe_dump(copy, allow_unicode=True, sort_keys=False), encoding="utf-8")
    assert main(["check", str(path)]) == 0
    capsys.readouterr()
    keys = {d.key for d in diff_rulesets(load_resolved("da"), load_resolved(str(path))).differences}
    assert keys == {"deck.suits", "scoring.primera", "scoring.primera-renamed"}
    a, b = compile_rules(doc), compile_rules(copy)
    assert a.deck.suit_ids[a.deck.scoring_suit] == b.deck.suit_ids[b.deck.scoring_suit] == "oros"
    other_suits = False
    for i in range(20):
        ha, _, _ = deal_hand(a, 2, 0, i, seat_makers(("random",), 2))
        hb, _, _ = deal_hand(b, 2, 0, i, seat_makers(("random",), 2))
        for cards_a, cards_b in zip([ha.table, *ha.hands], [hb.table, *hb.hands]):
            assert [a.deck.rank[c] for c in cards_a] == [b.deck.rank[c] for c in cards_b]
            other_suits |= [a.deck.text[c] for c in cards_a] != [b.deck.text[c] for c in cards_b]
    assert other_suits


def test_renaming_alone_would_test_nothing():
    """Without the suits' new order the copy plays the very same games: every pair is equal,
    so no interval could ever claim a difference (which is why the copy reorders the suits)."""
    doc = load_resolved("da").doc
    renamed = relabelled(doc)
    renamed["deck"]["suits"] = doc["deck"]["suits"]
    part = run(Job(doc, renamed, 2, 0, ("greedy",)), 60, matches=4)
    assert part.paired.total.sum_d2 == part.paired.escobas.sum_d2 == part.paired.dealer_wins.sum_d2 == 0
    assert part.paired_matches.hands.sum_d2 == 0


def test_a_null_diff_claims_a_difference_in_at_most_five_percent_of_seeds():
    """da against its relabelled copy, 40 seeds of 200 hands and 20 matches under random bots:
    the pairs differ (total points, the dealer's wins and hands per match vary pair by pair), yet
    at most 2 of the 40 runs (5%) have a headline interval that excludes zero; four plain 95%
    intervals on the same runs would claim more."""
    runs = null_runs(load_resolved("da").doc, range(40), 200, 20, [("random",)])
    for r in runs:
        found = {v.headline.key: v for v in r.strengths[0]}
        assert not found["points.total"].difference.same and not found["hands_per_match"].difference.same
    corrected = sum(1 for r in runs if r.rejections)
    plain = sum(1 for r in runs if any(v.difference.p_value < 0.05 for v in r.strengths[0]))
    assert corrected <= 2 < plain, (corrected, plain)
    assert all(len(r.claims) <= len(r.rejections) for r in runs)
