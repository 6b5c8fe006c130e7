"""escoba diff's paired statistics: differences hand by hand, McNemar, and --until-resolved."""

from __future__ import annotations

import io
import json
import math
import random
import statistics

import pytest
from scipy import stats

import escoba
from escoba.cli.diff import DEFAULT_BOTS
from escoba.cli.main import main
from escoba.diff import runner
from escoba.diff.headlines import HEADLINES, Resolution, Strength, Verdict, alpha_for, holm, schedule
from escoba.diff.paired import FEW_PAIRS, Difference, Pairs, YesNo, binomial_two_sided
from escoba.rules import load_resolved
from escoba.simulate import deal_hand, derive_seed, seat_makers


def run_json(capsys, *argv: str) -> dict:
    assert main(["diff", *argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


# --------------------------------------------------------------------------- the arithmetic
def pairs_of(kind, pairs_list):
    pairs = kind()
    for a, b in pairs_list:
        pairs.add(a, b)
    return pairs


def test_a_paired_difference_is_student_t_on_the_differences():
    """Pairs.difference gives mean(d) ± t(n−1)·stdev(d)/√n and the paired t test's p-value, as
    SciPy computes them; merged chunks give the same sums as one run."""
    pairs_list = [(3, 5), (1, 1), (4, 2), (0, 3), (2, 2), (5, 9)]
    pairs = pairs_of(Pairs, pairs_list)
    d = [b - a for a, b in pairs_list]
    got = pairs.difference()
    half = stats.t.isf(0.025, len(d) - 1) * statistics.stdev(d) / math.sqrt(len(d))
    assert math.isclose(got.mean, statistics.mean(d)) and got.half == pytest.approx(half, rel=1e-9)
    assert got.p_value == pytest.approx(stats.ttest_1samp(d, 0).pvalue, rel=1e-9)
    assert got.method == "t" and got.confidence == 0.95
    wider = pairs.difference(0.01)
    assert wider.half == pytest.approx(stats.t.isf(0.005, 5) * statistics.stdev(d) / math.sqrt(6), rel=1e-9)
    assert wider.confidence == 0.99 and wider.p_value == got.p_value
    merged = pairs_of(Pairs, pairs_list[:2]).merge(pairs_of(Pairs, pairs_list[2:]))
    assert merged == pairs


def test_mcnemar_is_the_exact_binomial_test_on_discordant_pairs():
    """The p-value is 2·P(X ≤ min) for X ~ Bin(discordant, 1/2), checked against math.comb."""
    for k, n in [(0, 5), (2, 10), (7, 30), (15, 30), (40, 100)]:
        exact = min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2**n)
        if 2 * k == n:
            exact = 1.0
        assert math.isclose(binomial_two_sided(k, n), exact, rel_tol=1e-9)
    t = pairs_of(YesNo, [(1, 0)] * 9 + [(0, 1)] * 1 + [(1, 1)] * 5 + [(0, 0)] * 5)
    assert (t.a_only, t.b_only, t.both, t.n) == (9, 1, 5, 20)
    assert math.isclose(t.p_value(), 2 * (1 + 10) / 2**10)
    assert t.difference().p_value == t.p_value() and t.difference().method == "exact"


def test_several_looks_split_the_error():
    """One look spends 5%; K planned looks spend 5%/K each; looks double up to the bound."""
    assert alpha_for(1) == 0.05 and alpha_for(6) == pytest.approx(0.05 / 6)
    assert schedule(50, 400) == [50, 100, 200, 400]
    assert schedule(500, 1200) == [500, 1000, 1200]
    assert schedule(500, 100) == [100]


def test_a_direction_and_negligible_are_read_off_the_interval():
    """Directions come from the interval alone; `below` needs the whole interval within ±size."""
    assert Difference(0.5, 0.3, 0.7, 100).direction == "higher under B"
    assert Difference(-0.5, -0.7, -0.3, 100).direction == "lower under B"
    assert Difference(0.1, -0.1, 0.3, 100).direction == "within noise"
    assert Difference(0.0, 0.0, 0.0, 100).direction == "same"
    assert Difference(0.01, -0.04, 0.06, 100).below(0.1) and not Difference(0.01, -0.09, 0.11, 100).below(0.1)
    assert Difference(0.3, None, None, 1).direction == "within noise" and not Difference(0.3, None, None, 1).below(1)


def test_a_difference_inside_the_negligible_band_is_below_not_lower():
    """A headline whose interval excludes zero but lies inside ± its size is `below` (negligible),
    not `lower`: the label cannot flip from below to lower as intervals narrow."""
    escobas = next(h for h in HEADLINES if h.key == "escobas")
    narrow = Verdict(escobas, Difference(-0.03, -0.05, -0.01, 4000))
    assert narrow.difference.direction == "lower under B" and narrow.status == "below" and narrow.resolved
    assert Verdict(escobas, Difference(-0.08, -0.12, -0.04, 400)).status == "lower under B"
    assert Verdict(escobas, Difference(-0.03, -0.12, 0.06, 400)).status == "unresolved"
    assert Verdict(escobas, Difference(0.0, 0.0, 0.0, 400)).status == "same"


def test_a_headline_is_bot_sensitive_when_the_conclusions_differ():
    """Negligible under one strength and lower under the other: bot-sensitive; the same
    conclusion: not; unresolved under one or both: sensitive only when the two intervals have
    no value in common, else the run cannot tell (None), as it cannot with one strength."""
    escobas = next(h for h in HEADLINES if h.key == "escobas")

    def resolution(*differences: Difference) -> Resolution:
        strengths = tuple(Strength((bots,), (Verdict(escobas, d),)) for bots, d in zip(("greedy", "random"), differences))
        return Resolution(False, (2000,), 1, 0.05, 2000, 50, strengths)

    lower, also_lower = Difference(-0.9, -1.0, -0.8, 2000), Difference(-0.5, -0.7, -0.3, 2000)
    below, same = Difference(0.0, -0.03, 0.03, 2000), Difference(0.0, 0.0, 0.0, 2000)
    overlapping, apart = Difference(-0.4, -0.9, 0.1, 50), Difference(0.2, -0.1, 0.5, 50)
    assert resolution(below, lower).sensitive("escobas") is True
    assert resolution(same, lower).sensitive("escobas") is True
    assert resolution(same, below).sensitive("escobas") is False  # both negligible
    assert resolution(lower, also_lower).sensitive("escobas") is False
    assert resolution(apart, lower).sensitive("escobas") is True
    assert resolution(overlapping, lower).sensitive("escobas") is None
    assert resolution(overlapping, apart).sensitive("escobas") is None  # both unresolved: no conclusion to compare
    assert resolution(lower).sensitive("escobas") is None and resolution(lower, lower).family == 2


# --------------------------------------------------------------------------- small samples
def test_a_yes_no_interval_excludes_zero_exactly_when_mcnemar_rejects():
    """Over every split of up to 30 discordant pairs, at 95% and at Holm's 98.75%, the exact
    interval excludes zero if and only if McNemar's exact p-value is below the level, and it
    always holds the observed difference."""
    for n in (40, 2000):
        for alpha in (0.05, 0.0125):
            for a in range(31):
                for b in range(31 - a):
                    pairs = pairs_of(YesNo, [(1, 0)] * a + [(0, 1)] * b + [(0, 0)] * (n - a - b))
                    d = pairs.difference(alpha)
                    shown = d.direction in ("higher under B", "lower under B")
                    assert shown == (binomial_two_sided(min(a, b), a + b) < alpha), (n, alpha, a, b)
                    assert d.low <= d.mean <= d.high


def test_the_yes_no_interval_covers_the_difference_at_least_95_percent():
    """Computed exactly (every outcome weighed by its multinomial probability, no simulation):
    at 20 and 40 pairs and shares from rare to even, the exact interval holds the true
    difference of the two shares at least 95% of the time."""
    for n in (20, 40):
        intervals = {}
        for a in range(n + 1):
            for b in range(n + 1 - a):
                d = pairs_of(YesNo, [(1, 0)] * a + [(0, 1)] * b + [(0, 0)] * (n - a - b)).difference()
                intervals[a, b] = (d.low, d.high)
        for p_a, p_b in [(0.05, 0.05), (0.1, 0.3), (0.2, 0.2), (0.02, 0.15), (0.35, 0.45), (0.25, 0.05), (0.45, 0.5)]:
            truth = p_b - p_a
            covered = 0.0
            for (a, b), (low, high) in intervals.items():
                if low <= truth <= high:
                    log_p = (math.lgamma(n + 1) - math.lgamma(a + 1) - math.lgamma(b + 1) - math.lgamma(n - a - b + 1)
                             + a * math.log(p_a) + b * math.log(p_b) + (n - a - b) * math.log1p(-p_a - p_b))  # fmt: skip
                    covered += math.exp(log_p)
            assert covered >= 0.95, (n, p_a, p_b, covered)


def test_a_handful_of_discordant_pairs_shows_nothing():
    """Three discordant pairs in ten, or five in a thousand, all one way: a normal interval on
    the 0/1 differences excludes zero, but McNemar's exact test (p = 0.25, 0.0625) does not
    reject, and neither does the interval printed, so the row is within noise."""
    for a_only, n in [(3, 10), (5, 1000)]:
        pairs = pairs_of(YesNo, [(0, 1)] * a_only + [(1, 1)] * (n - a_only))
        normal = pairs_of(Pairs, [(0, 1)] * a_only + [(1, 1)] * (n - a_only))
        mean, sd = normal.sum_d / n, math.sqrt((normal.sum_d2 - normal.sum_d**2 / n) / (n - 1))
        assert mean - 1.96 * sd / math.sqrt(n) > 0  # what the normal approximation would have claimed
        assert pairs.difference().direction == "within noise" and pairs.p_value() > 0.05


def test_a_t_interval_on_few_pairs_is_marked():
    """A t interval on fewer than 30 pairs is marked `few` (and its headline not resolved); 30
    pairs, an exact yes/no interval and identical pairs are not."""
    assert FEW_PAIRS == 30
    few = pairs_of(Pairs, [(6, 9), (7, 8), (8, 9), (5, 9), (7, 9)] * 2).difference()
    assert few.few and few.direction == "higher under B"
    hands = next(h for h in HEADLINES if h.key == "hands_per_match")
    assert Verdict(hands, few).status == "higher under B" and not Verdict(hands, few).resolved
    assert not pairs_of(Pairs, [(6, 9), (7, 8), (8, 9)] * 10).difference().few
    assert not pairs_of(YesNo, [(0, 1)] * 3 + [(1, 1)] * 5).difference().few
    assert not pairs_of(Pairs, [(6, 6)] * 4).difference().few


def test_four_matches_use_students_t_not_the_normal_quantile():
    """With 4 pairs of matches the interval's quantile is t(3) = 3.182, not 1.96."""
    d = pairs_of(Pairs, [(7, 9), (6, 7), (8, 8), (5, 8)]).difference()
    spread = statistics.stdev([2, 1, 0, 3]) / 2
    assert d.half == pytest.approx(3.182446305284263 * spread, rel=1e-9)


# --------------------------------------------------------------------------- read together
class Figure:
    """A figure with a given p-value whose interval at level alpha excludes zero exactly when
    p < alpha (as a t or exact interval does): the shape holm() reads."""

    def __init__(self, p: float):
        self.p = p

    def p_value(self) -> float:
        return self.p

    def difference(self, alpha: float) -> Difference:
        low = 1.0 if self.p < alpha else -1.0
        return Difference(1.0, low, 3.0, 100, self.p, 1 - alpha)


def test_holm_tests_in_order_of_p_and_stops_at_the_first_that_shows_nothing():
    """Holm over p = 0.01, 0.04, 0.03, 0.005: levels 0.0125 (0.005), 0.0167 (0.01), then 0.025
    for 0.03, which shows nothing, so 0.04 keeps that level; adjusted p-values are the textbook
    ones (0.03, 0.06, 0.06, 0.02), each below 5% exactly when its interval excludes zero."""
    found = holm([Figure(p) for p in (0.01, 0.04, 0.03, 0.005)])
    levels = [round(1 - d.confidence, 6) for d, _ in found]
    assert levels == [round(0.05 / 3, 6), 0.025, 0.025, 0.0125]
    assert [d.direction for d, _ in found] == ["higher under B", "within noise", "within noise", "higher under B"]
    assert [round(p, 6) for _, p in found] == [0.03, 0.06, 0.06, 0.02]
    assert all((p < 0.05) == (d.direction != "within noise") for d, p in found)


def test_holm_over_correlated_null_rows_claims_near_five_percent():
    """Four null figures shaped like the headlines (integer points on 200 pairs, a yes/no on 200
    pairs, integer hands per match on 40 pairs and a figure correlated with it), 2,000 seeded
    replications: Holm claims some difference in 2.5–5.5% of them (the promise is at most 5%),
    where four plain 95% intervals claim one in more than 10%."""
    rng = random.Random(31)
    corrected = plain = 0
    for _ in range(2000):
        points, dealer, hands, near = Pairs(), YesNo(), Pairs(), Pairs()
        for _ in range(200):
            points.add(rng.randint(2, 9), rng.randint(2, 9))
            dealer.add(int(rng.random() < 0.45), int(rng.random() < 0.45))
        for _ in range(40):
            a, b = rng.randint(5, 10), rng.randint(5, 10)
            hands.add(a, b)
            near.add(a + rng.randint(0, 2), b + rng.randint(0, 2))
        family = [points, dealer, hands, near]
        corrected += any(d.direction != "within noise" for d, _ in holm(family))
        plain += any(f.difference().direction != "within noise" for f in family)
    assert 0.025 <= corrected / 2000 <= 0.055, corrected
    assert plain / 2000 > 0.10, plain


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
    """Every per-hand and per-match row carries `difference` {mean, ci, confidence, method,
    p_value, few_pairs}; a headline row carries its headline's corrected difference; the tests
    and the resolution are in the JSON; the bots are recorded at the top."""
    data = run_json(capsys, "da", "spec/house/escoba-doble.yaml", "--hands", "300", "--matches", "8", "--bots", "greedy,random")
    assert data["bots"] == ["greedy", "random"] and data["simulation"]["bots"] == ["greedy", "random"]
    res = data["resolution"]
    headlines = {h["key"]: h for h in res["headlines"]}
    for row in data["simulation"]["per_hand"] + data["simulation"]["per_match"]:
        assert set(row) == {"key", "label", "a", "b", "difference", "verdict", "headline"}
        assert row["difference"] is None or set(row["difference"]) == {"mean", "ci", "confidence", "method", "p_value",
                                                                       "few_pairs"}  # fmt: skip
        assert row["headline"] == (row["key"] in headlines)
        if row["headline"]:
            assert row["difference"] == headlines[row["key"]]["difference"]
        elif row["difference"] is not None:
            assert row["difference"]["confidence"] == 0.95
    total = next(r for r in data["simulation"]["per_hand"] if r["key"] == "points.total")
    assert total["verdict"] == "higher under B" and total["difference"]["ci"][0] > 0
    assert set(data["simulation"]["paired_tests"]) == {"dealer_wins", "first_dealer_wins"}
    assert res["until_resolved"] is False and res["stopped"] == "single run" and res["hands"] == 300
    assert list(headlines) == ["points.total", "escobas", "dealer_wins", "hands_per_match"]
    assert res["correction"] == {"method": "holm", "rows": 4} and res["second"] is None  # --bots given: one strength
    assert headlines["hands_per_match"]["difference"]["few_pairs"] and not headlines["hands_per_match"]["resolved"]
    cats = data["rescore"]["categories"]
    escobas = next(c for c in cats if c["id"] == "escobas")
    assert escobas["difference"]["mean"] == pytest.approx(escobas["b_points_per_hand"] - escobas["a_points_per_hand"])


def test_labels_follow_the_interval_printed_beside_them(capsys):
    """In every row of several reports the label is what the interval says: higher when it lies
    above zero, lower below, same when it is [0, 0], within noise (or unresolved) when it holds
    zero; a headline is `below` exactly when its interval lies within ± its size."""
    reports = [run_json(capsys, "base", "fr", "--hands", "300", "--matches", "8"),
               run_json(capsys, "da", "spec/house/escoba-doble.yaml", "--hands", "300", "--matches", "30", "--bots", "random"),
               run_json(capsys, "da", "sv", "--hands", "150", "--matches", "8", "--second-bots", "none")]  # fmt: skip
    checked = 0
    for data in reports:
        sizes = {h.key: h.size for h in HEADLINES}
        rows = [(r["verdict"], r["difference"], r["key"]) for r in data["simulation"]["per_hand"] + data["simulation"]["per_match"]]
        for strength in [data["resolution"], data["resolution"]["second"] or {"headlines": []}]:
            rows += [(h["status"], h["difference"], h["key"]) for h in strength["headlines"]]
        for label, difference, key in rows:
            if difference is None or difference["ci"] is None:
                continue
            low, high = difference["ci"]
            if low == high == 0:
                assert label == "same", (key, label)
                continue
            if label == "below":
                assert -sizes[key] < low and high < sizes[key]
                continue
            if key in sizes:
                assert not (-sizes[key] < low and high < sizes[key]), (key, label, low, high)
            expected = ("higher under B" if low > 0 else "lower under B" if high < 0
                        else label if label in ("within noise", "unresolved") else "within noise")  # fmt: skip
            assert label == expected, (key, label, low, high)
            checked += 1
    assert checked > 40


def test_default_bots_play_the_headlines_under_two_strengths(capsys):
    """Without --bots the diff is played by DEFAULT_BOTS' first and its headlines again by the
    second; Holm corrects all eight rows together; each headline says whether it is bot-sensitive.
    --bots alone plays one strength, --second-bots none too, --second-bots adds one."""
    data = run_json(capsys, "da", "sv", "--hands", "120", "--matches", "30")
    res = data["resolution"]
    assert DEFAULT_BOTS == ("expert", "greedy")
    assert data["bots"] == ["expert"] and res["bots"] == ["expert"] and res["second"]["bots"] == ["greedy"]
    assert res["correction"] == {"method": "holm", "rows": 8}
    second = {h["key"]: h for h in res["second"]["headlines"]}
    for h in res["headlines"]:
        conclusion = {"same": "negligible", "below": "negligible"}.get
        mine, theirs = conclusion(h["status"], h["status"]), conclusion(second[h["key"]]["status"], second[h["key"]]["status"])
        (low, high), (low2, high2) = h["difference"]["ci"], second[h["key"]]["difference"]["ci"]
        if "unresolved" not in (mine, theirs):
            assert h["bot_sensitive"] is (mine != theirs)
        elif high < low2 or high2 < low:
            assert h["bot_sensitive"] is True
        else:
            assert h["bot_sensitive"] is None
    levels = sorted(h["difference"]["confidence"] for strength in (res, res["second"]) for h in strength["headlines"])
    assert levels[-1] == pytest.approx(1 - 0.05 / 8)  # the smallest p-value of the eight at 5%/8
    assert run_json(capsys, "da", "sv", "--hands", "40", "--matches", "2", "--bots", "random")["resolution"]["second"] is None
    assert run_json(capsys, "da", "sv", "--hands", "40", "--matches", "2", "--second-bots", "none")["resolution"]["second"] is None
    both = run_json(capsys, "da", "sv", "--hands", "40", "--matches", "2", "--bots", "random", "--second-bots", "greedy")
    assert both["resolution"]["second"]["bots"] == ["greedy"] and both["resolution"]["correction"]["rows"] == 8


def test_da_against_da_sevens_keeps_its_conclusions_under_both_strengths(capsys):
    """da → da-sevens (three more sevens score a point each): more points a hand and shorter
    matches under greedy play and under random play alike, neither row bot-sensitive."""
    res = run_json(capsys, "da", "da-sevens", "--hands", "400", "--matches", "40")["resolution"]
    for strength in (res, res["second"]):
        statuses = {h["key"]: h["status"] for h in strength["headlines"]}
        assert statuses["points.total"] == "higher under B" and statuses["hands_per_match"] == "lower under B"
    sensitive = {h["key"]: h["bot_sensitive"] for h in res["headlines"]}
    assert sensitive["points.total"] is False and sensitive["hands_per_match"] is False


# --------------------------------------------------------------------------- --until-resolved
def test_until_resolved_stops_when_every_headline_is_resolved(capsys):
    """With random bots da against escoba-doble resolves at some look; the report says which
    look, how many hands, and that each headline is resolved."""
    data = run_json(capsys, "da", "spec/house/escoba-doble.yaml", "--until-resolved", "--batch", "400",
                    "--max-hands", "6400", "--bots", "random")  # fmt: skip
    res = data["resolution"]
    assert res["until_resolved"] and res["looks_planned"] == [400, 800, 1600, 3200, 6400]
    assert res["alpha"] == pytest.approx(0.05 / 5)
    assert res["hands"] == res["looks_planned"][res["looks_taken"] - 1] and res["matches"] == res["hands"] // 10
    statuses = {h["key"]: h["status"] for h in res["headlines"]}
    assert statuses["points.total"] == "higher under B" and statuses["escobas"] == "same"
    assert res["stopped"] == ("resolved" if all(h["resolved"] for h in res["headlines"]) else "max_hands")
    assert data["simulation"]["hands"] == res["hands"] == data["rescore"]["hands"]


def test_until_resolved_gives_the_figures_of_one_run_of_as_many_hands(capsys):
    """Batches change nothing: the figures, under both strengths, equal one plain run of the
    hands and matches it stopped at (only the intervals' width, widened for the looks, differs)."""
    data = run_json(capsys, "da", "sv", "--until-resolved", "--batch", "40", "--max-hands", "80", "--jobs", "2")
    res = data["resolution"]
    plain = run_json(capsys, "da", "sv", "--hands", str(res["hands"]), "--matches", str(res["matches"]))
    assert data["rescore"] == plain["rescore"]
    for mine, theirs in zip(data["simulation"]["per_hand"] + data["simulation"]["per_match"],
                            plain["simulation"]["per_hand"] + plain["simulation"]["per_match"]):  # fmt: skip
        assert mine["a"] == theirs["a"] and mine["b"] == theirs["b"]
        if mine["difference"] is not None:
            assert mine["difference"]["mean"] == theirs["difference"]["mean"]
    for mine, theirs in zip(res["second"]["headlines"], plain["resolution"]["second"]["headlines"]):
        assert mine["difference"]["mean"] == theirs["difference"]["mean"] and mine["pairs"] == theirs["pairs"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--max-hands", "100"], "escoba diff: --max-hands and --batch go with --until-resolved"),
        (["--until-resolved", "--matches", "5"], "escoba diff: --matches does not go with --until-resolved"),
        (["--until-resolved", "--max-hands", "1"], "escoba diff: --max-hands must be at least 2, got 1"),
        (["--bots", "search:x"], "escoba diff: bad search budget 'x' in 'search:x' in --bots"),
        (["--second-bots", "search:x"], "escoba diff: bad search budget 'x' in 'search:x' in --second-bots"),
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
    assert main(["diff", "da", "sv", "--hands", "2000", "--bots", "random", "--format", "json"]) == 0
    drawn = terminal.getvalue()
    assert "[" in drawn and "2,350/2,350 hands" in drawn and drawn.endswith("\r\033[K")
    json.loads(capsys.readouterr().out)  # the report itself is untouched
    pipe = io.StringIO()
    monkeypatch.setattr("sys.stderr", pipe)
    assert main(["diff", "da", "sv", "--hands", "2000", "--bots", "random", "--format", "json"]) == 0
    assert pipe.getvalue() == ""
