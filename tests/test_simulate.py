"""The simulation library (`escoba.simulate`) and `escoba simulate`: reproducibility, arithmetic, CLI."""

from __future__ import annotations

import json
import math
import random

import pytest

import escoba
from escoba import simulate as sim
from escoba.cli import main as cli
from escoba.engine.bots import BOTS
from escoba.engine.hand import Hand, shuffled_decks
from escoba.errors import EscobaError
from escoba.simulate import Accumulator, Estimate, derive_seed, hand_seed, match_seed, simulate, simulate_matches


@pytest.fixture(autouse=True)
def _only_our_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    # The other subcommands are other people's modules; these tests need only simulate.
    monkeypatch.setattr(cli, "COMMANDS", ("simulate",))


# ------------------------------------------------------------------------- reproducibility
def test_same_seed_same_numbers():
    """Two runs with the same seed give identical statistics; another seed gives others."""
    first = simulate("base", 300, 2, seed=4).to_json()
    assert simulate("base", 300, 2, seed=4).to_json() == first
    assert simulate("base", 300, 2, seed=5).to_json() != first


def test_jobs_two_equals_jobs_one_exactly(monkeypatch):
    """Worker processes give exactly the numbers of one process (small chunks force many of them)."""
    monkeypatch.setattr(sim, "CHUNK", 37)
    one = simulate("de", 250, 4, seed=9, bots=("greedy", "random"), jobs=1)
    two = simulate("de", 250, 4, seed=9, bots=("greedy", "random"), jobs=2)
    assert two.to_json() == one.to_json()
    assert two.accumulator == one.accumulator


def test_matches_jobs_two_equals_jobs_one_exactly(monkeypatch):
    """simulate_matches in two processes equals one process, shared wins included."""
    monkeypatch.setattr(sim, "CHUNK", 7)
    one = simulate_matches("tie-shared", 30, 2, seed=2, jobs=1, target=6)
    two = simulate_matches("tie-shared", 30, 2, seed=2, jobs=2, target=6)
    assert two.to_json() == one.to_json()


def test_chunk_size_does_not_change_the_numbers(monkeypatch):
    """Hand i depends on (seed, i) only: cutting the range differently changes nothing."""
    whole = simulate("sv", 120, 3, seed=1).to_json()
    monkeypatch.setattr(sim, "CHUNK", 11)
    assert simulate("sv", 120, 3, seed=1).to_json() == whole


@pytest.mark.parametrize("bots", [("random",), ("greedy", "random")])
def test_hand_i_is_played_from_its_documented_seeds(bots):
    """The documented contract (seeds v2): one generator per hand seeded with hand_seed(seed, i),
    the deck shuffled from it first, then every seat's bot drawing from it; seat i mod players deals."""
    rules = escoba.load_ruleset("fr")
    points = [0, 0]
    for i in range(40):
        rng = random.Random(hand_seed(3, i))
        hand = Hand(rules, 2, i % 2, shuffled_decks(rules, rng), record=False)
        seats = [BOTS[bots[s % len(bots)]](rng) for s in range(2)]
        while not hand.is_over:
            hand.apply(seats[hand.to_play](hand))
        points = [p + q for p, q in zip(points, hand.points)]
    stats = simulate(rules, 40, 2, seed=3, bots=bots)
    assert [e.mean for e in stats.total] == [p / 40 for p in points]


def test_derive_seed_is_stable():
    """Derived seeds are fixed numbers (not Python's salted hash), different per path."""
    # Pinned values: changing the derivation silently changes every published simulation figure.
    assert derive_seed(0, "hand", 0, "deal") == 0x6DD9014A6C4B7DBC
    assert derive_seed(12345, "match", 7, "seat", 3) == 5146938229985727874
    assert len({derive_seed(s, "hand", i, "deal") for s in range(5) for i in range(50)}) == 250


def test_hand_seed_is_the_index_above_the_run_hash():
    """hand_seed(seed, i) is i in the bits above 64 and derive_seed(seed, "hand") below: distinct per (seed, i)."""
    assert hand_seed(0, 0) == derive_seed(0, "hand")
    assert hand_seed(7, 5) == 5 * 2**64 + derive_seed(7, "hand")
    assert match_seed(7, 5) == 5 * 2**64 + derive_seed(7, "match")
    assert len({hand_seed(s, i) for s in range(5) for i in range(50)}) == 250
    assert sim.SEED_VERSION == 2


# ------------------------------------------------------------------------- arithmetic
@pytest.mark.parametrize("ruleset, players", [("base", 2), ("de", 4), ("ru", 3), ("escoba-doble", 2)])
def test_category_means_add_up_to_the_mean_hand_points(ruleset, players):
    """For every side, the sum over categories of mean points equals the mean points per hand."""
    stats = simulate(ruleset, 200, players, seed=7)
    for side in range(stats.sides):
        assert math.isclose(sum(stats.points[c][side].mean for c in stats.categories), stats.total[side].mean, abs_tol=1e-12)


def test_wins_and_ties_count_every_hand():
    """Hands won outright per side plus tied hands is the number of hands."""
    stats = simulate("da", 150, 3, seed=2)
    assert sum(stats.wins) + stats.tied == stats.hands == 150


def test_confidence_interval_is_the_normal_approximation():
    """mean ± 1.96·s/√n with the sample standard deviation; no interval from one observation."""
    values = [0, 1, 1, 3, 2, 0, 1]
    n, mean = len(values), sum(values) / len(values)
    s = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    e = Estimate.from_sums(n, sum(values), sum(v * v for v in values))
    assert math.isclose(e.mean, mean) and math.isclose(e.half, 1.959963984540054 * s / math.sqrt(n))
    assert e.low < mean < e.high
    single = Estimate.from_sums(1, 3, 9)
    assert single.half is None and single.to_json() == {"mean": 3.0, "ci95": None}


def test_merge_equals_one_pass():
    """Merging two accumulators gives the sums one accumulator over both ranges would."""
    rules = escoba.load_ruleset("base")
    job = (rules.doc, "hands", 2, 5, ("random",), None)
    whole = sim._play_range(rules, job, 0, 60)
    parts = sim._play_range(rules, job, 0, 25).merge(sim._play_range(rules, job, 25, 60))
    assert parts == whole
    with pytest.raises(ValueError):
        parts.merge(Accumulator(("x",), 2))


def test_opening_counts_and_escobas():
    """Opening-table counts follow the ruleset's action: takes in base, set-asides in de, redeals in de-redeal."""
    assert simulate("base", 400, 2, seed=1).opening["taken"] > 0
    assert simulate("de", 100, 2, seed=1).opening["set_aside"] > 0
    assert simulate("de-redeal", 100, 2, seed=1).opening["redeals"] > 0
    stats = simulate("base", 200, 2, seed=1)
    assert math.isclose(stats.escobas.mean, sum(e.mean for e in stats.escobas_by_side))


def test_match_stats_add_up():
    """Every match is won by one side or shared; win rates are shares of all matches."""
    stats = simulate_matches("base", 40, 2, seed=3, target=5)
    assert sum(stats.wins) + stats.shared == 40
    assert [e.mean for e in stats.win_rate] == [w / 40 for w in stats.wins]
    assert stats.hands_per_match.mean >= 1


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"hands": 0}, "the number of hands must be at least 1, got 0"),
        ({"players": 5}, "base is played by 2, 3, 4 players, not 5"),
        ({"bots": ("clever",)}, "unknown bot 'clever'; known bots: random, greedy, expert, learned, search:PLAYOUTS, strong[:PLAYOUTS]"),
        ({"jobs": 0}, "jobs must be at least 1, got 0"),
    ],
)
def test_library_refuses_impossible_requests(kwargs, message):
    """simulate raises EscobaError with a clear message for impossible arguments."""
    args = {"rules": "base", "hands": 10, "players": 2} | kwargs
    with pytest.raises(EscobaError) as error:
        simulate(**args)
    assert str(error.value) == message


# ------------------------------------------------------------------------- CLI
def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_cli_json_parses_and_matches_the_library(capsys):
    """--format json prints the Stats document, the same numbers as the library call."""
    code, out, err = run(capsys, "simulate", "base", "--hands", "150", "--seed", "3", "--format", "json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data == simulate("base", 150, 2, seed=3).to_json()
    assert set(data["points_per_hand"]) == {"escobas", "cards", "coins", "velo", "primera"}
    assert data["points_per_hand"]["velo"][0]["ci95"][0] <= data["points_per_hand"]["velo"][0]["mean"]


def test_cli_matches_json(capsys):
    """--matches prints hands per match, win rates and shared wins as JSON."""
    code, out, _ = run(capsys, "simulate", "sv", "--matches", "12", "--target", "5", "--json", "--jobs", "2")
    data = json.loads(out)
    assert code == 0 and data["kind"] == "matches" and data["matches"] == 12 and data["target"] == 5
    assert {"hands_per_match", "win_rate", "matches_shared"} <= set(data)


def test_cli_text_table(capsys):
    """The text report is a category × side table of mean ± half width, with a total row."""
    code, out, _ = run(capsys, "simulate", "de", "--players", "4", "--hands", "60", "--bots", "greedy,random")
    lines = out.splitlines()
    assert code == 0
    assert lines[0] == "de: 60 hands, 4 players, bots greedy,random, seed 0"
    header = next(line for line in lines if line.startswith("category"))
    assert header.split() == ["category", "seats", "0+2", "seats", "1+3"]
    assert any(line.startswith("total ") and line.count("±") == 2 for line in lines)
    assert any(line.startswith("escobas per hand") for line in lines)


def test_cli_no_progress_bar_when_not_a_terminal(capsys):
    """Nothing is written on stderr when it is not a TTY, even for a long run."""
    code, _, err = run(capsys, "simulate", "base", "--hands", "5000", "--jobs", "2")
    assert code == 0 and err == ""


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--players", "5"], "escoba simulate: base is played by 2, 3 or 4 players, not 5"),
        (["--bots", "random,clever"], "escoba simulate: unknown bot 'clever' in --bots; known bots: random, greedy, expert, learned, search:PLAYOUTS, strong[:PLAYOUTS]"),
        (["--bots", "random,"], "escoba simulate: unknown bot an empty name in --bots; known bots: random, greedy, expert, learned, search:PLAYOUTS, strong[:PLAYOUTS]"),
        (["--hands", "0"], "escoba simulate: --hands must be at least 1, got 0"),
        (["--matches", "-1"], "escoba simulate: --matches must be at least 1, got -1"),
        (["--target", "11"], "escoba simulate: --target needs --matches (single hands have no target)"),
        (["--matches", "3", "--target", "0"], "escoba simulate: --target must be at least 1, got 0"),
        (["--jobs", "-2"], "escoba simulate: --jobs must be 0 (one per CPU) or more, got -2"),
    ],
)
def test_cli_usage_errors_exit_2(capsys, argv, message):
    """Impossible arguments exit 2 with one clear line on stderr and nothing on stdout."""
    code, out, err = run(capsys, "simulate", "base", *argv)
    assert (code, out, err) == (2, "", message + "\n")


def test_cli_unknown_ruleset_and_exclusive_options_exit_2(capsys):
    """An unknown ruleset id and --hands with --matches are usage errors (exit 2)."""
    code, _, err = run(capsys, "simulate", "bse")
    assert code == 2 and err.startswith("escoba simulate: unknown ruleset 'bse'")
    with pytest.raises(SystemExit) as exit_:
        cli.main(["simulate", "base", "--hands", "3", "--matches", "3"])
    assert exit_.value.code == 2


@pytest.mark.parametrize("argv", [["--help"], ["simulate", "--help"], ["bench", "--help"], ["play", "--help"]])
def test_help_texts_format(capsys, monkeypatch, argv):
    """`escoba --help` and each command's --help print (argparse %-formats help strings) and exit 0."""
    monkeypatch.setattr(cli, "COMMANDS", ("play", "simulate", "bench"))
    with pytest.raises(SystemExit) as exit_:
        cli.main(argv)
    out, _ = capsys.readouterr()
    assert exit_.value.code == 0 and "examples:" in out
