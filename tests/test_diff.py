"""escoba diff: the structural diff, the rescoring of the same games, the side-by-side simulation."""

from __future__ import annotations

import itertools
import json
import sys
import textwrap
from pathlib import Path

import pytest

import escoba
from escoba.cli.diff import DEFAULT_BOTS
from escoba.cli.main import main
from escoba.diff import runner
from escoba.diff.rescore import Replayer
from escoba.diff.structural import diff_rulesets
from escoba.engine.deal import deal_plan, order_for
from escoba.rules import load_resolved
from escoba.simulate import simulate

SOURCES = ("base", "da", "sv", "de", "fr", "ru")


def structural(a: str, b: str):
    return diff_rulesets(load_resolved(a), load_resolved(b))


def house(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"dsl: 1\nid: {name}\n" + textwrap.dedent(body), encoding="utf-8")
    return str(path)


def run_json(capsys, *argv: str) -> dict:
    assert main(["diff", *argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def tally_of(a: str, b: str, hands: int, players: int = 2, bots=("random",), force_replay: bool = False):
    job = runner.Job(load_resolved(a).doc, load_resolved(b).doc, players, 0, tuple(bots), force_replay)
    return runner.run(job, hands)


# --------------------------------------------------------------------------- every pair


@pytest.mark.parametrize("a,b", list(itertools.permutations(SOURCES, 2)))
def test_structural_diff_of_every_pair_runs_and_is_symmetric(a, b):
    """Every ordered pair of source rulesets diffs; A↔B swaps the sides of the same differences."""
    there, back = structural(a, b), structural(b, a)
    assert there.keys() == back.keys()
    for d in there.differences:
        mirror = next(x for x in back.differences if x.key == d.key)
        assert (mirror.a.text, mirror.b.text) == (d.b.text, d.a.text)


@pytest.mark.parametrize("name", SOURCES)
def test_a_ruleset_does_not_differ_from_itself(name):
    """diff A A has no differences."""
    assert structural(name, name).same


@pytest.mark.parametrize("a,b", list(itertools.combinations(SOURCES, 2)))
def test_every_pair_runs_all_three_views(capsys, a, b):
    """Rescoring and simulation run for every pair with a few hands, under the default bots (the
    headlines under both strengths), and the JSON keeps its shape."""
    data = run_json(capsys, a, b, "--hands", "12", "--matches", "1")
    assert set(data) == {"format", "a", "b", "bots", "structural", "rescore", "simulation", "resolution"}
    assert data["rescore"]["hands"] == 12
    assert data["rescore"]["replayed"] + sum(f["hands"] for f in data["rescore"]["not_replayed"]) == 12
    assert data["simulation"]["hands"] == 12 and data["simulation"]["per_match"]
    assert data["resolution"]["second"]["bots"] == [DEFAULT_BOTS[1]] and data["resolution"]["correction"]["rows"] == 8


# --------------------------------------------------------------------------- pinned differences


def test_da_sv_primera_only_in_da_sevens_only_in_sv():
    """da scores primera and sv does not; sv scores most sevens and da does not."""
    d = {x.key: x for x in structural("da", "sv").differences}
    assert d["scoring.primera"].a.point is not None and d["scoring.primera"].b.point is None
    assert d["scoring.sevens"].a.point is None and d["scoring.sevens"].b.point is not None
    assert "scoring.primera.award" not in d and "scoring.sevens.measure" not in d  # one line per missing category


def test_da_sv_cards_and_coins_threshold_against_most():
    """da awards cards and coins above a threshold (20, 5), sv to the most."""
    d = {x.key: x for x in structural("da", "sv").differences}
    assert d["scoring.cards.award"].a.text == "more than 20"
    assert d["scoring.cards.award"].b.text == "most (ties: nobody)"
    assert d["scoring.coins.award"].a.text == "more than 5"
    assert d["scoring.coins.award"].b.text == "most (ties: nobody)"
    assert d["scoring.cards.award"].concern == "scoring"


def test_da_sv_citations_are_shown_with_their_status_and_origin():
    """Each side's citation is shown: status, source file prefix, and the ruleset it is inherited from."""
    d = {x.key: x for x in structural("da", "sv").differences}
    leader = d["turn.leader"]
    assert leader.concern == "players"
    assert leader.a.citation.short() == "default · outside ← base"
    assert leader.b.citation.short() == "stated · 001"


def test_de_fr_compulsory_opening_and_partnerships():
    """de: hand-level compulsory capture, opening table set aside without escoba, partners at four;
    fr: optional capture, the dealer's opening escobas, each for themselves."""
    d = {x.key: x for x in structural("de", "fr").differences}
    assert (d["capture.compulsory"].a.point.value, d["capture.compulsory"].b.point.value) == ("hand", "optional")
    assert (d["opening_table.action"].a.point.value, d["opening_table.action"].b.point.value) == ("set_aside", "dealer_takes")
    assert (d["opening_table.escobas"].a.point.value, d["opening_table.escobas"].b.point.value) == ("none", "per_group")
    assert d["players.partnerships"].a.text == "at 4: seats 0+2 v 1+3"
    assert d["players.partnerships"].b.point.value == []
    assert {x.concern for x in d.values()} >= {"players", "opening", "capture", "scoring"}


# --------------------------------------------------------------------------- by meaning, not text


def test_measures_are_compared_by_meaning(tmp_path):
    """Two measures that differ only in spacing and a suit alias are the same rule."""
    spaced = house(tmp_path, "spaced", """\
        extends: base
        scoring:
          categories:
            - id: coins
              measure: "count( suit( cards , o ) )"
        """)  # fmt: skip
    other = house(tmp_path, "other", """\
        extends: base
        scoring:
          categories:
            - id: coins
              measure: count(suit(cards,oros))
        """)  # fmt: skip
    assert structural(spaced, other).same
    assert structural("base", spaced).same


def test_a_measure_that_counts_something_else_differs(tmp_path):
    """A measure with another meaning is a difference, shown in its canonical form."""
    cups = house(tmp_path, "cups", """\
        extends: base
        scoring:
          categories:
            - id: coins
              measure: count(suit(cards, copas))
        """)  # fmt: skip
    (d,) = structural("base", cups).differences
    assert d.key == "scoring.coins.measure"
    assert d.b.text == "count(suit(cards, copas))"


def test_holder_cards_and_thresholds_are_compared_by_meaning(tmp_path):
    """`7♦` is the same card as `7 oros`; a threshold of `count(deck) / 2` is 20."""
    written = house(tmp_path, "written", """\
        extends: da
        scoring:
          categories:
            - id: cards
              award: {policy: threshold, more_than: count(deck) / 2}
            - id: velo
              award: {policy: holder, card: "7♦"}
        """)  # fmt: skip
    assert structural("da", written).same


def test_a_moved_key_comments_titles_and_citations_are_not_differences(tmp_path):
    """Key order, comments, a value written that was inherited anyway, titles and provenance are not rules."""
    moved = house(tmp_path, "moved", """\
        # The same rules as da, written differently.
        title: Another title
        description: Another description.
        match:
          tie: extra_hand
          target: 21
          provenance:
            tie: {status: house, source: house, note: We say it again.}
        extends: da
        scoring:
          categories:
            - id: primera
              title: Setenta
            - id: escobas
              points: 1
        capture:
          compulsory: card
          target: 15
        """)  # fmt: skip
    assert structural("da", moved).same


def test_a_category_present_in_one_ruleset_only_is_one_difference(tmp_path):
    """A category only B scores is one difference, whatever its measure, award and points."""
    extra = house(tmp_path, "extra", """\
        extends: base
        scoring:
          categories:
            - id: all-coins
              title: All ten coins
              measure: count(suit(cards, oros)) == 10
              award: {policy: bonus}
              points: 2
        """)  # fmt: skip
    (d,) = structural("base", extra).differences
    assert d.key == "scoring.all-coins" and d.a.point is None and d.b.text == "All ten coins"


# --------------------------------------------------------------------------- recorded, not played

LAST_HAND = """\
    kind: house
    extends: da
    title: Danish rules; the last hand must be won
    unsupported:
      - id: last-hand-must-be-won
        source: house
        note: A side that reaches 21 wins only if it also won the last hand.
        closest: match.target 21, as da; nothing asks who won the last hand.
    """


def test_a_rule_recorded_but_not_played_is_shown_beside_the_points(tmp_path, capsys):
    """A house rule whose one rule is `unsupported` is not "the same": diff's text, Markdown and JSON list the rule, on its side, beside 0 differing points."""
    mine = house(tmp_path, "last-hand", LAST_HAND)
    diff = structural("da", mine)
    assert diff.differences == () and not diff.same
    (only,) = diff.recorded
    assert (only.side, only.id, only.source) == ("b", "last-hand-must-be-won", "house")
    assert main(["diff", "da", mine, "--hands", "0"]) == 0
    text = capsys.readouterr().out
    assert f"1. Rules that differ: 0 of {diff.compared} points, and 1 rule recorded but not played\n" in text
    assert "None: the two rulesets take the same position" not in text
    row = next(line for line in text.splitlines() if "last-hand-must-be-won" in line)
    assert row.split()[:2] == ["last-hand", "last-hand-must-be-won"] and "reaches 21 wins only if" in row
    assert main(["diff", "da", mine, "--hands", "0", "--format", "markdown"]) == 0
    assert "| last-hand | last-hand-must-be-won | A side that reaches 21 wins only if it also won the last hand. | house |" in capsys.readouterr().out
    data = run_json(capsys, "da", mine, "--hands", "0")
    assert data["structural"]["unsupported"] == [{
        "ruleset": "b", "id": "last-hand-must-be-won", "source": "house", "quote": None, "gloss": None,
        "note": "A side that reaches 21 wins only if it also won the last hand.",
        "closest": "match.target 21, as da; nothing asks who won the last hand.",
    }]  # fmt: skip


def test_rules_both_record_are_no_difference_and_the_sides_swap():
    """A rule both rulesets record (inherited, or by the same id) is no difference; diff B A puts each recorded rule on the other side."""
    assert structural("da", "da-velo2").recorded == ()  # escoba-marker, inherited
    there, back = structural("scopa", "cirulla"), structural("cirulla", "scopa")
    assert {(r.side, r.id) for r in there.recorded} == {("b" if r.side == "a" else "a", r.id) for r in back.recorded}
    assert ("a", "six-players") in {(r.side, r.id) for r in there.recorded}  # cirulla removes scopa's
    assert ("b", "seven-wild-opening") in {(r.side, r.id) for r in there.recorded}


# --------------------------------------------------------------------------- rescoring


def test_scoring_only_differences_replay_every_hand():
    """da and escoba-doble differ only in scoring: every hand replays and escoba points double."""
    part = tally_of("da", "escoba-doble", 60)
    t = part.tally
    assert (t.hands, t.replayed, t.failures) == (60, 60, {})
    k = t.categories.index("escobas")
    assert t.points_b[k] == 2 * t.points_a[k] and t.points_a[k] > 0
    others = [i for i in range(len(t.categories)) if i != k]
    assert all(t.points_a[i] == t.points_b[i] and t.changed[i] == 0 for i in others)


def test_rescoring_moves_points_between_sides_and_counts_winner_changes():
    """da → sv: primera points go from a side to nobody, most sevens from nobody to a side."""
    t = tally_of("da", "sv", 80).tally
    primera, sevens = t.categories.index("primera"), t.categories.index("sevens")
    assert t.points_b[primera] == 0 and t.points_a[sevens] == 0
    assert all(dst == -1 for (_src, dst) in t.flows[primera])
    assert all(src == -1 for (src, _dst) in t.flows[sevens])
    assert 0 < t.winner_changed < t.replayed


def test_rescoring_the_piles_is_the_same_as_replaying_the_moves():
    """When play cannot differ, rescoring A's piles gives exactly what a move-by-move replay gives."""
    quick = tally_of("da", "sv", 50).tally
    slow = tally_of("da", "sv", 50, force_replay=True).tally
    assert Replayer(escoba.load_ruleset("da"), escoba.load_ruleset("sv"), 2).shortcut
    assert quick == slow


def test_a_compulsory_capture_difference_reports_unreplayable_hands_with_the_reason(tmp_path):
    """base (card level) → hand level: hands that place a card while another could capture fail, naming the play."""
    strict = house(tmp_path, "strict", """\
        extends: base
        capture:
          compulsory: hand
        """)  # fmt: skip
    t = tally_of("base", strict, 60).tally
    assert set(t.failures) == {"illegal"} and t.failures["illegal"] > 0
    assert all("capture is compulsory" in e for e in t.examples["illegal"])
    assert t.examples["illegal"][0].startswith("hand ") and ": play " in t.examples["illegal"][0]
    assert t.replayed + t.failures["illegal"] == 60


def test_fr_to_de_names_the_differing_opening_table():
    """fr → de: a table that merely contains a 15 is set aside under de but stays under fr."""
    t = tally_of("fr", "de", 40).tally
    assert t.failures["opening"] > 0
    assert "stays on the table under fr, it is set aside under de" in t.examples["opening"][0]


def test_an_opening_table_b_deals_again_is_named():
    """de → de-redeal: a table de sets aside is dealt again under de-redeal, so that hand does not replay."""
    t = tally_of("de", "de-redeal", 30).tally
    assert set(t.failures) == {"opening"} and t.replayed > 0
    assert t.examples["opening"][0].endswith("is dealt again under de-redeal")


def test_partners_against_individuals_compare_all_sides_together():
    """de → fr at four: partners under de, each alone under fr; no flows, and a partner's win is still a win."""
    t = tally_of("de", "fr", 40, players=4).tally
    assert not t.same_sides and t.replayed > 0
    assert all(not flows for flows in t.flows)
    assert t.winner_changed < t.replayed


def test_a_player_count_b_does_not_allow_replays_no_hand(tmp_path, capsys):
    """B without four-player games: no hand replays (reason given) and B is not simulated."""
    duel = house(tmp_path, "duel", """\
        extends: base
        players:
          counts: [2]
        """)  # fmt: skip
    data = run_json(capsys, "base", duel, "--players", "4", "--hands", "12", "--matches", "1")
    assert data["rescore"]["replayed"] == 0
    (failure,) = data["rescore"]["not_replayed"]
    assert failure["reason"] == "players" and "played by 2 players, not 4" in failure["examples"][0]
    assert data["simulation"]["b_unplayable"] and data["simulation"]["per_match"][0]["b"] is None


def test_the_same_deal_is_found_for_a_ruleset_that_turns_the_table_first():
    """sv turns the table before the hands: order_for gives sv the deal da made from another order."""
    da, sv = escoba.load_ruleset("da"), escoba.load_ruleset("sv")
    order = list(range(40))
    deal = deal_plan(da, 2, 1, order)
    again = order_for(sv, 2, 1, deal)
    assert again != order and deal_plan(sv, 2, 1, again) == deal
    assert len(deal.rounds) == 6 and deal.table == (6, 7, 8, 9)


# --------------------------------------------------------------------------- simulation


def test_view_three_plays_the_hands_escoba_simulate_plays():
    """Hand i under A and under B is simulate's hand i: the same seeds give the same sums."""
    for a, b in (("da", "sv"), ("da", "escoba-doble")):
        part = tally_of(a, b, 40)
        assert part.acc_a.points == simulate(a, 40, 2, 0, ("random",)).accumulator.points
        assert part.acc_b.points == simulate(b, 40, 2, 0, ("random",)).accumulator.points
        assert part.acc_b.escobas == simulate(b, 40, 2, 0, ("random",)).accumulator.escobas


def test_jobs_give_the_numbers_of_one_job(monkeypatch):
    """--jobs 2 merges chunks in order: exactly the figures of one process."""
    monkeypatch.setattr(runner, "CHUNK", 15)
    monkeypatch.setattr(runner, "MATCH_CHUNK", 1)
    job = runner.Job(load_resolved("fr").doc, load_resolved("de").doc, 2, 3, ("random",))
    one, two = runner.run(job, 45, 1, matches=3), runner.run(job, 45, 2, matches=3)
    assert one.tally == two.tally and one.acc_b.points == two.acc_b.points
    assert one.totals_a == two.totals_a and one.matches_b == two.matches_b
    assert one.paired == two.paired and one.paired_matches == two.paired_matches


def test_overlapping_intervals_are_within_noise(capsys):
    """Overlapping 95% intervals are within noise; identical figures are the same; apart is higher or lower."""
    data = run_json(capsys, "da", "escoba-doble", "--hands", "200", "--matches", "2", "--bots", "random")
    rows = {r["key"]: r for r in data["simulation"]["per_hand"]}
    assert rows["points.cards"]["verdict"] == "same"  # random bots play the same games, scored alike
    assert rows["points.escobas"]["verdict"] == "higher under B"
    data = run_json(capsys, "da", "sv", "--hands", "200", "--matches", "2", "--bots", "random")
    rows = {r["key"]: r for r in data["simulation"]["per_hand"]}
    assert rows["points.cards"]["verdict"] == "within noise"  # other deals (sv turns the table first), same rule
    assert rows["points.primera"]["a"]["ci95"][0] <= rows["points.primera"]["a"]["mean"]


# --------------------------------------------------------------------------- formats and CLI


def test_text_output_groups_by_concern_and_shows_all_three_views(capsys):
    """The text report has the concerns that differ, the rescoring table and the simulation table."""
    assert main(["diff", "da", "sv", "--hands", "40", "--matches", "2"]) == 0
    out = capsys.readouterr().out
    for heading in ("1. Rules that differ: 7 of", "Players & turn", "Scoring", "Match",
                    "2. The same games scored both ways", "3. Each ruleset on its own"):  # fmt: skip
        assert heading in out
    assert "Opening table" not in out  # no difference there
    assert "stated · 001" in out and "within noise" in out


def test_markdown_output_is_headings_and_pipe_tables(capsys):
    """--format markdown: headings and pipe tables, ready to paste into an issue."""
    assert main(["diff", "de", "fr", "--hands", "30", "--matches", "1", "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# `escoba diff de fr`")
    assert "### Capture\n\n| point | de | fr | de cites | fr cites |\n|---|---|---|---|---|\n" in out
    assert "| compulsory capture | hand level" in out


def test_json_structural_keys_are_stable(capsys):
    """--format json: the structural part keeps its keys (tools read them)."""
    data = run_json(capsys, "da", "sv", "--hands", "0")
    assert data["rescore"] is None and data["simulation"] is None
    concerns = [c["concern"] for c in data["structural"]["concerns"]]
    assert concerns == ["deck", "players", "deal", "opening", "capture", "leftovers", "scoring", "match"]
    line = data["structural"]["concerns"][1]["differences"][0]
    assert set(line) == {"key", "point", "a", "b"}
    assert set(line["a"]) == {"value", "text", "present", "written", "citation"}
    assert line["b"]["citation"]["status"] == "stated" and line["a"]["citation"]["inherited_from"] == "base"


def test_plot_without_matplotlib_says_how_to_install_it(monkeypatch, capsys, tmp_path):
    """--plot with matplotlib missing: a one-line message naming escoba[plot], exit 2, no traceback, no output."""
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # makes `import matplotlib` fail
    status = main(["diff", "da", "sv", "--plot", str(tmp_path / "chart.png")])
    captured = capsys.readouterr()
    assert status == 2
    assert "pip install 'escoba[plot]'" in captured.err and "Traceback" not in captured.err
    assert captured.out == "" and not (tmp_path / "chart.png").exists()


def test_plot_writes_a_chart_when_matplotlib_is_installed(capsys, tmp_path):
    """--plot FILE draws points per category, A beside B."""
    chart = tmp_path / "chart.png"
    assert main(["diff", "da", "sv", "--hands", "30", "--matches", "1", "--plot", str(chart)]) == 0
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_unknown_ruleset_is_a_usage_error(capsys):
    """A name that is no ruleset: exit 2 and the known ids."""
    assert main(["diff", "da", "dx", "--hands", "0"]) == 2
    assert "unknown ruleset 'dx'" in capsys.readouterr().err


def test_transcript_hands_are_rescored(capsys):
    """--transcript: the hands of golden cases of A are replayed under B instead of bot games."""
    from escoba.transcript import cases_dir, load_cases

    cases = [c for c in load_cases(cases_dir(), pattern="da.2p.*", replay=False) if c.kind == "game"]
    assert cases, "the bundled corpus has generated two-player games of da"
    data = run_json(capsys, "da", "sv", "--hands", "0", "--transcript", str(cases[0].path))
    rescore = data["rescore"]
    assert rescore["games"] == "transcript" and rescore["hands"] == len(cases[0].hands)
    assert rescore["replayed"] == rescore["hands"]  # da and sv play alike at two players


def test_a_transcript_of_another_ruleset_is_refused(capsys, tmp_path):
    """--transcript whose games are not of A: exit 2, saying which ruleset they are of."""
    from escoba.transcript import cases_dir, load_cases

    cases = load_cases(cases_dir(), pattern="sv.2p.*", replay=False)
    assert cases, "the bundled corpus has generated games of sv"
    assert main(["diff", "da", "fr", "--hands", "0", "--transcript", str(cases[0].path)]) == 2
    assert "has no game of da" in capsys.readouterr().err
