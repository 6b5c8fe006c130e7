"""escoba diff's paired statistics: differences hand by hand, McNemar, and --until-resolved."""

from __future__ import annotations

import io
import json
import math
import statistics
from statistics import NormalDist

import pytest

import escoba
from escoba.cli.main import main
from escoba.diff import runner
from escoba.diff.paired import Difference, Discordance, Pairs, binomial_two_sided, schedule, z_for
from escoba.rules import load_resolved
from escoba.simulate import deal_hand, derive_seed, seat_makers


def run_json(capsys, *argv: str) -> dict:
    assert main(["diff", *argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


# --------------------------------------------------------------------------- the arithmetic
def test_a_paired_difference_is_the_mean_and_spread_of_the_differences():
    """Pairs.difference gives mean(d) ± 1.96·stdev(d)/√n, as the statistics module computes it."""
    pairs_list = [(3, 5), (1, 1), (4, 2), (0, 3), (2, 2), (5, 9)]
    pairs = Pairs()
    for a, b in pairs_list:
        pairs.add(a, b)
    d = [b - a for a, b in pairs_list]
    got = pairs.difference()
    assert math.isclose(got.mean, statistics.mean(d))
    assert math.isclose(got.half, 1.959963984540054 * statistics.stdev(d) / math.sqrt(len(d)))
    merged = Pairs()
    for a, b in pairs_list[:2]:
        merged.add(a, b)
    rest = Pairs()
    for a, b in pairs_list[2:]:
        rest.add(a, b)
    assert merged.merge(rest) == pairs


def test_mcnemar_is_the_exact_binomial_test_on_discordant_pairs():
    """The p-value is 2·P(X ≤ min) for X ~ Bin(discordant, 1/2), checked against math.comb."""
    for k, n in [(0, 5), (2, 10), (7, 30), (15, 30), (40, 100)]:
        exact = min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2**n)
        if 2 * k == n:
            exact = 1.0
        assert math.isclose(binomial_two_sided(k, n), exact, rel_tol=1e-9)
    t = Discordance()
    for a, b in [(True, False)] * 9 + [(False, True)] * 1 + [(True, True)] * 5 + [(False, False)] * 5:
        t.add(a, b)
    assert (t.a_only, t.b_only, t.both, t.n) == (9, 1, 5, 20)
    assert math.isclose(t.p_value(), 2 * (1 + 10) / 2**10)


def test_several_looks_widen_the_interval_by_bonferroni():
    """One look keeps 1.96; K planned looks use the normal quantile of 1 − 0.05/(2K); looks double."""
    assert math.isclose(z_for(1), 1.959963984540054)
    assert math.isclose(z_for(6), NormalDist().inv_cdf(1 - 0.05 / 12))
    assert schedule(50, 400) == [50, 100, 200, 400]
    assert schedule(500, 1200) == [500, 1000, 1200]
    assert schedule(500, 100) == [100]


def test_a_difference_is_resolved_when_its_interval_excludes_zero_or_is_small():
    """Directions come from the paired interval; `below` needs the whole interval within ±size."""
    assert Difference(0.5, 0.2, 100).direction == "higher under B"
    assert Difference(-0.5, 0.2, 100).direction == "lower under B"
    assert Difference(0.1, 0.2, 100).direction == "within noise"
    assert Difference(0.0, 0.0, 100).direction == "same"
    assert Difference(0.01, 0.05, 100).below(0.1) and not Difference(0.01, 0.1, 100).below(0.1)


# --------------------------------------------------------------------------- the pairing
def test_the_paired_sums_are_hand_i_under_a_against_hand_i_under_b():
    """The runner's paired totals equal hands played here one by one from simulate's seeds."""
    a, b = escoba.load_ruleset("da"), escoba.load_ruleset("sv")
    job = runner.Job(load_resolved("da").doc, load_resolved("sv").doc, 2, 4, ("greedy", "random"))
    part = runner.run(job, 24)
    diffs, dealer = [], []
    for i in range(24):
        results = []
        for rules in (a, b):
            hand, _, seats = deal_hand(rules, 2, 4, i, seat_makers(("greedy", "random"), 2))
            while not hand.is_over:
                hand.apply(seats[hand.to_play](hand))
            side = hand.side_of[i % 2]
            results.append((sum(hand.points), hand.points[side] > max(p for s, p in enumerate(hand.points) if s != side)))
        diffs.append(results[1][0] - results[0][0])
        dealer.append((results[0][1], results[1][1]))
    assert part.paired.total.n == 24 and part.paired.total.sum_d == sum(diffs)
    assert part.paired.total.sum_d2 == sum(d * d for d in diffs)
    t = part.paired.dealer_wins
    assert (t.a_only, t.b_only) == (sum(x and not y for x, y in dealer), sum(y and not x for x, y in dealer))
    assert derive_seed(4, "hand", 0, "deal")  # the seeds the docs name


def test_json_reports_the_paired_difference_of_every_compared_figure(capsys):
    """Every per-hand and per-match row carries `difference` {mean, ci}; the tests and the
    resolution are in the JSON; the bots are recorded at the top."""
    data = run_json(capsys, "da", "spec/house/escoba-doble.yaml", "--hands", "300", "--matches", "8", "--bots", "greedy,random")
    assert data["bots"] == ["greedy", "random"] and data["simulation"]["bots"] == ["greedy", "random"]
    for row in data["simulation"]["per_hand"] + data["simulation"]["per_match"]:
        assert set(row) == {"key", "label", "a", "b", "difference", "verdict"}
        assert row["difference"] is None or set(row["difference"]) == {"mean", "ci"}
    total = next(r for r in data["simulation"]["per_hand"] if r["key"] == "points.total")
    assert total["verdict"] == "higher under B" and total["difference"]["ci"][0] > 0
    assert set(data["simulation"]["paired_tests"]) == {"dealer_wins", "first_dealer_wins"}
    res = data["resolution"]
    assert res["until_resolved"] is False and res["stopped"] == "single run" and res["hands"] == 300
    assert [h["key"] for h in res["headlines"]] == ["points.total", "escobas", "dealer_wins", "hands_per_match"]
    cats = data["rescore"]["categories"]
    escobas = next(c for c in cats if c["id"] == "escobas")
    assert escobas["difference"]["mean"] == pytest.approx(escobas["b_points_per_hand"] - escobas["a_points_per_hand"])


# --------------------------------------------------------------------------- --until-resolved
def test_until_resolved_stops_when_every_headline_is_resolved(capsys):
    """With random bots da against escoba-doble resolves at some look; the report says which
    look, how many hands, and that each headline is resolved."""
    data = run_json(capsys, "da", "spec/house/escoba-doble.yaml", "--until-resolved", "--batch", "400",
                    "--max-hands", "6400")  # fmt: skip
    res = data["resolution"]
    assert res["until_resolved"] and res["looks_planned"] == [400, 800, 1600, 3200, 6400]
    assert math.isclose(res["z"], NormalDist().inv_cdf(1 - 0.05 / 10))
    assert res["hands"] == res["looks_planned"][res["looks_taken"] - 1] and res["matches"] == res["hands"] // 10
    statuses = {h["key"]: h["status"] for h in res["headlines"]}
    assert statuses["points.total"] == "higher under B" and statuses["escobas"] == "same"
    assert res["stopped"] == ("resolved" if all(h["resolved"] for h in res["headlines"]) else "max_hands")
    assert data["simulation"]["hands"] == res["hands"] == data["rescore"]["hands"]


def test_until_resolved_gives_the_figures_of_one_run_of_as_many_hands(capsys):
    """Batches change nothing: the figures equal one plain run of the hands and matches it
    stopped at (only the intervals' width, widened for the looks, differs)."""
    data = run_json(capsys, "da", "sv", "--until-resolved", "--batch", "40", "--max-hands", "80", "--jobs", "2")
    res = data["resolution"]
    plain = run_json(capsys, "da", "sv", "--hands", str(res["hands"]), "--matches", str(res["matches"]))
    assert data["rescore"] == plain["rescore"]
    for mine, theirs in zip(data["simulation"]["per_hand"] + data["simulation"]["per_match"],
                            plain["simulation"]["per_hand"] + plain["simulation"]["per_match"]):  # fmt: skip
        assert mine["a"] == theirs["a"] and mine["b"] == theirs["b"]
        if mine["difference"] is not None:
            assert mine["difference"]["mean"] == theirs["difference"]["mean"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--max-hands", "100"], "escoba diff: --max-hands and --batch go with --until-resolved"),
        (["--until-resolved", "--matches", "5"], "escoba diff: --matches does not go with --until-resolved"),
        (["--until-resolved", "--max-hands", "1"], "escoba diff: --max-hands must be at least 2, got 1"),
        (["--bots", "search:x"], "escoba diff: bad search budget 'x' in 'search:x' in --bots"),
    ],
)
def test_resolution_options_are_checked(capsys, argv, message):
    """Misused resolution options and a bad search budget are usage errors (exit 2)."""
    assert main(["diff", "da", "sv", *argv]) == 2
    assert capsys.readouterr().err.startswith(message)


# --------------------------------------------------------------------------- progress (issue 16)
class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_long_diff_draws_a_progress_bar_on_a_terminal_and_erases_it(monkeypatch, capsys):
    """escoba diff with 2,000 hands (and 50 matches, each counting as 7 hands of work) draws a
    bar on a terminal's stderr, ends by erasing it, and draws nothing when stderr is not a
    terminal."""
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main(["diff", "da", "sv", "--hands", "2000", "--format", "json"]) == 0
    drawn = terminal.getvalue()
    assert "[" in drawn and "2,350/2,350 hands" in drawn and drawn.endswith("\r\033[K")
    json.loads(capsys.readouterr().out)  # the report itself is untouched
    pipe = io.StringIO()
    monkeypatch.setattr("sys.stderr", pipe)
    assert main(["diff", "da", "sv", "--hands", "2000", "--format", "json"]) == 0
    assert pipe.getvalue() == ""


def test_a_yes_no_difference_needs_mcnemar_to_agree():
    """Three discordant pairs in ten, all one way: the normal interval excludes zero but McNemar's
    exact test (p = 0.25) does not, so the row says within noise and the headline stays unresolved."""
    from escoba.diff.compare_sim import Row
    from escoba.diff.paired import HEADLINES, Verdict, mcnemar

    pairs = Pairs()
    for a, b in [(0, 1)] * 3 + [(1, 1)] * 7:
        pairs.add(a, b)
    assert pairs.difference().direction == "higher under B" and mcnemar(pairs) == pytest.approx(0.25)
    row = Row("dealer_wins", "dealer's side wins the hand", None, None, pairs.difference(), mcnemar(pairs) < 0.05)
    assert row.a is None and Row("x", "x", row.difference, row.difference, row.difference, False).verdict == "within noise"
    dealer = next(h for h in HEADLINES if h.key == "dealer_wins")
    assert Verdict(dealer, pairs.difference(), exact=False).status == "unresolved"
