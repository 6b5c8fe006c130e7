"""`escoba site` without a browser: the viewer's steps, the showcase, quotes, charts, the CLI.

The pages themselves are opened in Chromium by tests/test_site_browser.py.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

import escoba
from escoba.data import sources_dir
from escoba.engine.hand import Hand
from escoba.rules import load_resolved
from escoba.site import charts, frames
from escoba.site.build import load_case_views
from escoba.site.faces import Faces
from escoba.site.sources import SourceText, anchor, fold
from escoba.transcript.case import cases_dir as golden_dir
from escoba.transcript.case import load_case

SITE = Path(escoba.__file__).resolve().parent / "site"
SWEDISH = golden_dir() / "text" / "sv.example-game.json"


def _engine_positions(case) -> list[tuple[list[str], list[list[str]], list[int], list[int]]]:
    """(table, hands, pile sizes, escobas) after each play, from the reference engine itself."""
    rules = case.rules
    deck = rules.deck
    hand = Hand(rules, case.players, case.dealer, case.deck_orders(0))
    out = []
    for move in case.moves(0):
        hand.apply(move)
        out.append((
            sorted(deck.code[c] for c in hand.table),
            [sorted(deck.code[c] for c in h) for h in hand.hands],
            [len(p) for p in hand.piles],
            list(hand.escobas),
        ))  # fmt: skip
    return out


@pytest.mark.parametrize("case_id", ["sv.example-game", "partnerships.4p.de", "opening.thirty-splits.fr"])
def test_steps_follow_the_engine(case_id):
    """After every play the viewer's table, hands, piles and escobas are the reference engine's."""
    path = next(golden_dir().rglob(f"{case_id}.json"))
    case = load_case(path, replay=False)
    sides = None
    for p in case.document["players"].get("partnerships") or []:
        if p["players"] == case.players:
            sides = p["sides"]
    steps = frames.steps(case.expect, case.players, sides)
    # The engine deals the next round (or scores) inside the play that empties the hands, so
    # its position after play k is the viewer's just before play k + 1 (or its last step).
    plays = [n for n, s in enumerate(steps) if s.card is not None]
    settled = [steps[nxt - 1] for nxt in plays[1:]] + [steps[-1]]
    expected = _engine_positions(case)
    assert len(settled) == len(expected)
    for step, (table, hands, piles, escobas) in zip(settled, expected):
        assert sorted(step.table) == table
        assert [sorted(h) for h in step.hands] == hands
        assert step.piles == piles
        assert step.escobas == escobas


def test_swedish_steps_end_on_the_texts_score():
    """The Swedish game's last step is the scoring table: 21 cards to 19, the hand 4–2."""
    case = json.loads(SWEDISH.read_text(encoding="utf-8"))
    last = frames.steps(case["expect"], 2)[-1]
    assert last.kind == "scoring"
    assert last.hand_end == {"event": "hand_end", "points": [4, 2], "cards": [21, 19]}
    assert [s["category"] for s in last.scores] == ["escobas", "cards", "coins", "velo", "sevens"]


def test_every_event_is_in_exactly_one_step():
    """The steps of every golden case cover its events once each, in order."""
    for case in load_case_views():
        ranges = frames.group(case.expect)
        covered = [i for first, last in ranges for i in range(first, last + 1)]
        assert covered == list(range(len(case.expect))), case.id


def test_showcase_sentences_are_in_the_text_and_on_their_events():
    """Each showcase sentence is quoted verbatim from the Swedish text and pinned to the event it tells."""
    showcase = yaml.safe_load((SITE / "showcase.yaml").read_text(encoding="utf-8"))
    case = json.loads(SWEDISH.read_text(encoding="utf-8"))
    assert showcase["case"] == case["id"]
    text = fold((sources_dir() / showcase["source"]).read_text(encoding="utf-8"))
    for entry in showcase["sentences"]:
        assert fold(entry["quote"]) in text, entry["quote"]
        event = case["expect"][entry["event"]]
        for key, value in entry["is"].items():
            assert event.get(key) == value, (entry["quote"], key, event)
        stated = entry["event"] in case["from_text"] or event["event"] == "score"
        assert stated != bool(entry.get("placed")), entry["quote"]


def test_quotes_are_found_across_line_breaks_and_cover_the_text():
    """A quote folded to one line is found where the text breaks it; segments rebuild the text."""
    source = SourceText("x.txt", "Intro.\n\nOne rule  is\nhere. Another rule.\nEnd.")
    first = source.cite("One rule is here.", "a")
    second = source.cite("rule is here. Another", "b")
    assert first == anchor("One  rule is\nhere.") and second is not None
    assert source.cite("Not in it.", "c") is None and source.missing == ["Not in it."]
    segments = source.segments()
    assert "".join(s.text for s in segments) == source.text
    marked = "".join(s.text for s in segments if first in s.anchors)
    assert marked == "One rule  is\nhere."
    both = [s.text for s in segments if first in s.anchors and second in s.anchors]
    assert both == ["rule  is\nhere."]


def test_card_faces_in_both_decks():
    """A card is drawn in the Spanish suits and in the French deck, with the text's own letters."""
    doc = load_resolved("sv").doc
    sv = Faces(doc["deck"], "sv")
    da = Faces(doc["deck"], "da")
    html = str(sv.card("Ss"))
    assert '<b class="es">S</b>' in html and '<b class="fr">Kn</b>' in html and "#swords" in html and "♠" in html
    assert '<b class="fr">J</b>' in str(da.card("Ss"))
    assert str(sv.label("1h")) == '<span class="es">1♥</span><span class="fr">E♥</span>'
    assert str(sv.label("7d")) == "7♦"


def test_charts_are_svg_with_proportional_bars():
    """A bar chart is well-formed SVG and a bar twice the value is twice as long."""
    svg = charts.bars("t", [("x", [charts.Bar("a", 1.0), charts.Bar("b", 2.0)]), ("y", [charts.Bar("a", None)])])
    root = ET.fromstring(str(svg))
    widths = [float(r.get("width")) for r in root.iter("{http://www.w3.org/2000/svg}rect")]
    assert len(widths) == 2 and widths[1] == pytest.approx(2 * widths[0], rel=0.01)
    forest = charts.intervals("t", [("m", [charts.Interval("a", 1.0, 0.5, 1.5), charts.Interval("b", None)])])
    assert ET.fromstring(str(forest)).tag.endswith("svg")


def _escoba(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "escoba", *args], capture_output=True, text=True, cwd=cwd, timeout=300)


def test_cli_refuses_a_folder_that_is_not_a_site(tmp_path):
    """--out naming a folder with other files in it is a usage error, and the files stay."""
    (tmp_path / "keep.txt").write_text("mine")
    done = _escoba("site", "--out", str(tmp_path))
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "other than an escoba site" in done.stderr
    assert (tmp_path / "keep.txt").read_text() == "mine"


def test_cli_usage_errors_before_any_work(tmp_path):
    """An unknown ruleset in --diff is a usage error and writes nothing."""
    done = _escoba("site", "--out", str(tmp_path / "s"), "--diff", "da", "nosuch")
    assert done.returncode == 2 and "nosuch" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "s").exists()


SITE_DOC = Path(__file__).parents[1] / "docs" / "site.md"


def test_cli_builds_then_replaces_its_own_site(tmp_path):
    """A build writes every section and a page per --ruleset FILE; a rebuild replaces it (and writes the pages and megabytes docs/site.md gives); a failed one leaves it."""
    house = tmp_path / "velo-dos.yaml"
    house.write_text(
        "dsl: 1\nid: velo-dos\nkind: house\nextends: da\nscoring:\n  categories:\n    - {id: velo, points: 2}\n"
        "unsupported:\n  - {id: velo-shown, source: house, note: The velo is shown to the table when it is taken.}\n"
    )
    out = tmp_path / "site"
    done = _escoba("site", "--out", str(out), "--quiet", "--ruleset", str(house), "--diff", "da", "sv", "--diff", "da", "velo-dos.yaml",
                   "--hands", "0", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    pages = {p.relative_to(out).as_posix() for p in out.rglob("*.html")}
    assert {"index.html", "matrix.html", "rulesets/sv.html", "games/sv.example-game.html", "sources/index.html",
            "conformance/index.html", "diffs/index.html", "rulesets/velo-dos.html"} <= pages  # fmt: skip
    assert len([p for p in pages if p.startswith("games/")]) == len(load_case_views()) + 1
    page = (out / "rulesets" / "velo-dos.html").read_text(encoding="utf-8")
    assert "inherited from <a" in page and 'href="da.html"' in page
    _shows_the_audit((out / "conformance" / "index.html").read_text(encoding="utf-8"))
    assert 'href="rulesets/velo-dos.html"' in (out / "matrix.html").read_text(encoding="utf-8")
    # The house rule's page leads with what it changes from da (the point and both values), before the deck.
    changes = page.index('id="changes"')
    assert changes < page.index('id="deck"')
    summary = page[changes : page.index("</section>", changes)]
    assert "<th>velo: points</th><td>1</td><td>2</td>" in summary  # (a point with no place of its own below is not linked)
    assert 'href="#unsupported-velo-shown"' in summary
    # Each diff page publishes the command as a person types it, and lists what one side records but does not play.
    published = (out / "diffs" / "da-vs-sv.html").read_text(encoding="utf-8")
    assert "<code>escoba diff da sv --format json</code>" in published
    house_diff = (out / "diffs" / "da-vs-velo-dos.html").read_text(encoding="utf-8")
    assert "<code>escoba diff da velo-dos.yaml --format json</code>" in house_diff
    assert "1 rule recorded but not played" in house_diff and "<code>velo-shown</code>" in house_diff
    assert "shown to the table" in house_diff
    (out / "stale.html").write_text("old")
    done = _escoba("site", "--out", str(out), "--quiet")
    assert done.returncode == 0 and not (out / "stale.html").exists() and not (out / "rulesets" / "velo-dos.html").exists()
    figures = re.search(r"`escoba site --out site` writes ([\d,]+) pages \((\d+) MB\)", SITE_DOC.read_text(encoding="utf-8"))
    assert figures is not None, "docs/site.md gives the pages and megabytes of `escoba site --out site`"
    files = [p for p in out.rglob("*") if p.is_file()]
    built = (sum(p.suffix == ".html" for p in files), round(sum(p.stat().st_size for p in files) / 1e6))
    assert built == (int(figures[1].replace(",", "")), int(figures[2])), f"docs/site.md says {figures[0]}; the build wrote {built[0]} pages, {built[1]} MB"
    broken = tmp_path / "broken.yaml"
    broken.write_text("dsl: 1\nid: broken\nkind: house\nextends: da\ncapture: {target: fifteen}\n")
    done = _escoba("site", "--out", str(out), "--ruleset", str(broken))
    assert done.returncode == 1 and "broken.yaml" in done.stderr and "Traceback" not in done.stderr
    assert (out / "index.html").exists() and (out / ".escoba-site").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".site")] == []


def test_stop_all_ends_a_conformance_run_and_its_engine():
    """An interrupted build kills the running report and the engine it started: nothing is left behind."""
    import os
    import threading
    import time

    from escoba.site import gather

    sleeper = f"{sys.executable} -c 'import time; time.sleep(120)'"
    job = gather.conformance_job(sleeper, timeout=60)
    failure: list[BaseException] = []
    worker = threading.Thread(target=lambda: _capture(failure, gather.run_one, job))
    worker.start()
    deadline = time.monotonic() + 60
    while not gather._RUNNING and time.monotonic() < deadline:
        time.sleep(0.05)
    (child,) = tuple(gather._RUNNING)
    from escoba.processes import descendants

    while not descendants(child.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
    started = descendants(child.pid)  # the engine, in a process group of its own
    assert started, "the run never started its engine"
    gather.stop_all()
    worker.join(30)
    assert not worker.is_alive()
    assert failure and isinstance(failure[0], gather.GatherError)
    with pytest.raises(ProcessLookupError):
        os.killpg(child.pid, 0)  # the whole group is gone
    time.sleep(0.2)
    assert not [pid for pid in started if _running(pid)], "the engine was left running"


def _running(pid: int) -> bool:
    """Alive and not a zombie."""
    from pathlib import Path

    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def _capture(into: list[BaseException], fn, *args) -> None:
    try:
        fn(*args)
    except BaseException as error:
        into.append(error)


def test_paired_differences_get_their_own_chart_with_the_zero_line():
    """When a diff report carries paired differences (B − A), they are drawn against a zero line."""
    from escoba.site.build import _diff_charts

    row = {"label": "escobas", "a": {"mean": 1.0, "ci95": [0.9, 1.1]}, "b": {"mean": 1.2, "ci95": [1.1, 1.3]}}
    plain = _diff_charts(None, {"per_hand": [row], "per_match": []}, ("da", "sv"))
    assert "paired" not in plain
    paired = _diff_charts(None, {"per_hand": [dict(row, difference={"mean": 0.2, "ci": [0.1, 0.3]})], "per_match": []}, ("da", "sv"))
    svg = ET.fromstring(str(paired["paired"]))
    zero = [line for line in svg.iter("{http://www.w3.org/2000/svg}line") if line.get("class") == "zero"]
    assert len(zero) == 1 and "B − A: sv − da" in str(paired["paired"])


def test_a_declaration_joins_its_deal_and_moves_no_card():
    """A declaration (cards shown as dealt, for points) is part of its deal's step, listed there."""
    expect = [
        {"event": "hand_start", "dealer": 0, "leader": 1, "players": 2},
        {"event": "deal", "hands": [["1c"], ["2c"]]},
        {"event": "table", "cards": ["3c"]},
        {"event": "declaration", "seat": 1, "side": 1, "cards": ["2c"], "categories": ["low-hand"]},
        {"event": "play", "seat": 1, "card": "2c", "take": []},
    ]
    found = frames.steps(expect, 2)
    assert [s.kind for s in found] == ["deal", "play"]
    assert found[0].declarations == [expect[3]] and found[0].hands == [["1c"], ["2c"]]


def test_an_event_the_viewer_does_not_know_is_a_step_shown_as_it_is():
    """A future event kind gets its own step, with the event printed, and moves no card."""
    expect = [
        {"event": "hand_start", "dealer": 0, "leader": 1, "players": 2},
        {"event": "deal", "hands": [["1c"], ["2c"]]},
        {"event": "table", "cards": ["3c"]},
        {"event": "call", "seat": 1, "what": "escoba de mano"},
        {"event": "play", "seat": 1, "card": "2c", "take": []},
    ]
    found = frames.steps(expect, 2)
    assert [s.kind for s in found] == ["deal", "other", "play"]
    assert '"call"' in found[1].note and found[1].table == ["3c"]
    assert found[2].table == ["3c", "2c"]


def _shows_the_audit(page: str) -> None:
    """The conformance page says how strong the suite is: the bundled ruleset audit's totals, a
    row per rule point and per ruleset, and each equivalent mutant with its reason."""
    from markupsafe import escape

    from escoba.mutation.audit import EQUIVALENT, bundled_cache, read_audit
    from escoba.mutation.report import figures

    audit = read_audit(bundled_cache())
    f = figures(audit)
    assert f"Of {f['mutants']} mutants of {len(audit.rulesets)} rulesets, {f['detected']} are detected" in page
    assert page.count("<tr><td><code>") == len(f["points"]) + len(f["rulesets"])
    for e in (e for e in audit.entries if e.verdict == EQUIVALENT):
        assert str(escape(e.label)) in page
