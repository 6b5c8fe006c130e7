"""Golden cases: they validate, they are what the reference engine produces now, their pins
hold, broken cases are refused with their location, and the Swedish golden is the text's game.

A failure of `test_expect_is_what_the_engine_produces_now` means an engine change altered a
golden: either the change is a bug, or the golden must be regenerated on purpose with
`python -m escoba.transcript.generate` (which never rewrites a hand-written pin).
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

import escoba
from escoba.data import schemas_dir
from escoba.errors import TranscriptError
from escoba.game.moves import REASONS
from escoba.rules.sources import quoted_in
from escoba.transcript import Case, load_case, load_cases
from escoba.transcript.case import _build, case_from_data, cases_dir, iter_case_files, pin_found, places
from escoba.transcript.record import Replay, expected_events, perft_count, probe_reason
from escoba.transcript.render import render_case

ROOT = Path(__file__).resolve().parent.parent
BROKEN = Path(__file__).resolve().parent / "broken_cases"
CASE_FILES = list(iter_case_files(cases_dir()))
IDS = [p.stem for p in CASE_FILES]


@cache
def case(path: Path) -> Case:
    return load_case(path)  # loaded (and checked) once per run, whatever the test order


@pytest.fixture(autouse=True)
def _at_repository_root(monkeypatch):
    # Messages name files relative to the working folder; pin them as a user at the root sees them.
    monkeypatch.chdir(ROOT)


# --------------------------------------------------------------------------- the corpus


def test_the_corpus_is_small_and_covers_every_group():
    """Few enough cases, small enough files, for a subprocess engine to replay in seconds."""
    groups = {p.parent.name for p in CASE_FILES}
    assert groups == {"audit", "coverage", "generated", "perft", "probes", "rules", "text"}
    # 32 rulesets, the family among them, and the cases the ruleset audit asks for (every mutant
    # of a ruleset detected by three cases: conformance/README.md)
    assert len(CASE_FILES) <= 320
    assert sum(p.stat().st_size for p in CASE_FILES) <= 3_600_000


def test_ids_are_file_names_and_unique():
    """A case's id is its file name, and no id is used twice anywhere in the tree."""
    assert len(set(IDS)) == len(IDS)
    for path in CASE_FILES:
        assert json.loads(path.read_text(encoding="utf-8"))["id"] == path.stem


@pytest.mark.parametrize("path", CASE_FILES, ids=IDS)
def test_every_case_validates_against_the_schema(path):
    """The whole schema, as written (the loader dispatches events faster; same verdict)."""
    validator = Draft202012Validator(json.loads((schemas_dir() / "transcript.schema.json").read_text(encoding="utf-8")))
    errors = sorted(validator.iter_errors(json.loads(path.read_text(encoding="utf-8"))), key=str)
    assert not errors, errors[0].message


def test_the_schema_is_a_valid_draft_2020_12_schema():
    """The schema itself checks out against its metaschema."""
    Draft202012Validator.check_schema(json.loads((schemas_dir() / "transcript.schema.json").read_text(encoding="utf-8")))


@pytest.mark.parametrize("path", CASE_FILES, ids=IDS)
def test_expect_is_what_the_engine_produces_now(path):
    """Replaying the case in-process gives exactly its expected events (and perft count)."""
    c = case(path)
    assert expected_events(c) == list(c.expect)
    if c.perft is not None:
        assert perft_count(c) == c.perft.count


@pytest.mark.parametrize("path", CASE_FILES, ids=IDS)
def test_every_pin_matches_an_expected_event(path):
    """Pins are the hand-written audit: each is a subset of some event of expect (at the place
    its `at` names, if it names one)."""
    c = case(path)
    for pin in c.pins:
        assert pin_found(pin, c.expect), pin
    if c.audit in ("hand", "text") and c.kind == "game":  # a probe's fact is its reason
        assert c.pins, "an audited case states at least one fact by hand"


def test_audited_cases_say_how_they_tell_readings_apart():
    """Every hand-audited rule case carries notes, including how the other reading fails."""
    for c in (case(p) for p in CASE_FILES if p.parent.name == "rules"):
        assert c.audit == "hand" and c.notes, c.id
        assert any("Fails an engine" in n for n in c.notes), c.id


def test_source_quotes_are_in_the_sources():
    """A case's quoted sentence occurs in the source file (white space folded)."""
    for c in map(case, CASE_FILES):
        if c.source and c.source.get("quote"):
            assert quoted_in(c.source["file"], c.source["quote"]), c.id


# Every refusal class but `priority`, which exists only where a capture kind has a priority
# (Scopa's single card first): probed by one family case, probe.priority.scopa.
ESCOBA_REASONS = set(REASONS) - {"priority"}


def test_every_refusal_reason_is_probed_by_three_cases():
    """Each refusal class is probed by at least three cases (a probe case or probes among the
    moves), compulsory capture at the card and the hand level, and the reference refuses each
    probe for its reason where it stands."""
    probed = [case(p) for p in CASE_FILES if case(p).probes()]
    for reason in REASONS:
        having = {c.id for c in probed for _, p in c.probes() if p.reason == reason}
        assert len(having) >= (3 if reason in ESCOBA_REASONS else 1), (reason, having)
    compulsory = {c.ruleset for c in probed for _, p in c.probes() if p.reason == "compulsory"}
    assert {escoba.load_ruleset(r).compulsory for r in compulsory} == {"card", "hand"}
    for p in (c for c in probed if c.probe is not None):
        replay = Replay(p)
        replay.run()
        assert probe_reason(replay.hand, p.probe.move)[0] == p.probe.reason


def test_probes_among_the_moves_try_every_shape_of_illegal_move():
    """Mid-hand probes try a card held by another seat and one in the stock, a take from a pile
    with the right and the wrong sum, a doubled and an unknown take card, a take that is no
    list, and a move after the last play; each then sees `state` and `legal` again."""
    mid = [case(p) for p in CASE_FILES if any(not isinstance(e, str) for h in case(p).hands for e in h.line)]
    assert len(mid) >= 3
    for c in mid:
        shapes = set()
        for _, probe in c.probes():
            move = probe.move
            if isinstance(move, dict) and isinstance(move.get("take"), list):
                takes = move["take"]
                shapes.add("twice" if len(set(takes)) < len(takes) else "unknown code")
            elif isinstance(move, dict):
                shapes.add("take not a list")
        assert shapes >= {"twice", "unknown code", "take not a list"}, c.id
        assert {p.reason for _, p in c.probes()} == ESCOBA_REASONS, c.id


def test_a_refusal_changes_nothing_in_the_reference():
    """Around every probe among the moves, the legal moves before and after are the same and
    the state is the snapshot of the position it was tried in."""
    from escoba.transcript.record import state_event

    for c in (case(p) for p in CASE_FILES):
        if not any(e["event"] == "rejected" for e in c.expect):
            continue
        snapshots = _snapshots(c)
        order = {code: i for i, code in enumerate(c.rules.deck.code)}
        for i, event in enumerate(c.expect):
            if event["event"] == "rejected":
                before, state, after = c.expect[i - 1], c.expect[i + 1], c.expect[i + 2]
                assert before["event"] == after["event"] == "legal" and before == after, (c.id, i)
                assert state == state_event(snapshots[i - 1], order), (c.id, i)


def _snapshots(c: Case) -> dict[int, dict]:
    """The reference hand's snapshot at each legal event of a case, by the event's index."""
    found: dict[int, dict] = {}
    Replay(c, on_decision=lambda i, hand: found.setdefault(i, hand.to_json())).run()
    return found


def test_places_name_the_hand_the_entry_and_the_deal_round():
    """`places` counts hands from 0 (a redeal is the same hand), the entries of `moves` by the
    `legal` before each, and deal rounds by `deal` events; a pin with `at` matches only there."""
    c = case(cases_dir() / "probes" / "probe.mid-game.base.json")
    where = places(c.expect)
    plays = [p for p in where if c.expect[p.index]["event"] == "play"]
    assert [p.move for p in plays][:3] == [0, 1, 2] and plays[-1].move == len(c.hands[0].line) - 3
    assert {p.hand for p in where} == {0}
    deals = [p.deal for p in where if c.expect[p.index]["event"] == "deal"]
    assert deals == list(range(6))
    escoba_at = next(p for p in where if c.expect[p.index]["event"] == "escoba")
    assert pin_found({"event": "escoba", "seat": 0, "at": {"move": escoba_at.move}}, c.expect)
    assert not pin_found({"event": "escoba", "seat": 0, "at": {"move": escoba_at.move + 1}}, c.expect)
    assert pin_found({"event": "escoba", "at": {"index": escoba_at.index}}, c.expect)
    assert pin_found({"event": "escoba", "at": {"deal": escoba_at.deal}}, c.expect)
    redealt = case(cases_dir() / "rules" / "opening.redeal.de-redeal.json")
    assert {p.hand for p in places(redealt.expect)} == {0}
    match = case(cases_dir() / "rules" / "turn.4p.match.ru.json")
    assert {p.hand for p in places(match.expect)} == {0, 1}


def test_generated_cases_cover_every_ruleset_and_player_count():
    """One or two seeded games for every bundled ruleset at every player count it allows."""
    from escoba.rules import bundled_ids

    have = {(c.ruleset, c.players) for c in (case(p) for p in CASE_FILES if p.parent.name == "generated")}
    want = {(r, n) for r in bundled_ids() for n in escoba.load_ruleset(r).player_counts}
    assert have == want


def test_the_generator_would_change_nothing(capsys):
    """The committed goldens are what the generator writes now (the CI check)."""
    from escoba.transcript.generate import main

    assert main(["--check"]) == 0, capsys.readouterr().out


def test_the_generator_fills_expect_and_never_touches_pins(tmp_path):
    """An audited case gets its expect back; a pin that no longer holds stops the generator."""
    import io

    from escoba.transcript.generate import Generator

    source = cases_dir() / "rules" / "opening.thirty-splits.fr.json"
    good, bad = tmp_path / "rules" / source.name, tmp_path / "other" / source.name
    for path in (good, bad):
        path.parent.mkdir()
    data = json.loads(source.read_text(encoding="utf-8"))
    good.write_text(json.dumps({**data, "expect": []}), encoding="utf-8")
    changed_pin = [{**data["pins"][0], "escobas": 1}]  # what a one-escoba engine would produce
    bad_text = json.dumps({**data, "id": data["id"], "pins": changed_pin})
    bad.write_text(bad_text, encoding="utf-8")
    out = io.StringIO()
    assert Generator(tmp_path, check=False, out=out, generated=False).run() == 1
    assert good.read_text(encoding="utf-8") == source.read_text(encoding="utf-8")
    assert bad.read_text(encoding="utf-8") == bad_text  # not written
    assert "$.pins[0]: matches no event the engine produces" in out.getvalue()


def test_render_shows_the_game(capsys):
    """The person-readable form has the deal, the plays in notation, escobas and the scores."""
    c = case(cases_dir() / "text" / "sv.example-game.json")
    text = render_case(c)
    assert "T table: 3♣ 5♥ S♠ 2♦ (total 18)" in text
    assert "T   3. seat 0: 4♣ x 2♦ 1♥ S♠" in text and "★ escoba for seat 0" in text
    assert re.search(r"T hand points +4 +2", text)


# --------------------------------------------------------------------------- broken cases

BROKEN_MESSAGES = {
    "bad-notation": "tests/broken_cases/bad-notation.json: $.hands[0].moves[2]: unknown card 'Z♦'\n    1♦ x Z♦\n         ^",
    "duplicate-card": "tests/broken_cases/duplicate-card.json: $.hands[0].decks[0]: not the 40-card deck of base (twice: 7d; missing: 3c)",
    "events-out-of-order": "tests/broken_cases/events-out-of-order.json: $.expect[3]: 'play' cannot come after 'table'",
    "format-1-with-probe-among-moves": "tests/broken_cases/format-1-with-probe-among-moves.json: $.hands[0].moves[0]: a probe among the moves needs format 2 (the case says format 1)",
    "future-format": "tests/broken_cases/future-format.json: $.format: format 3 is newer than this escoba understands (2)",
    "id-is-not-the-file-name": "tests/broken_cases/id-is-not-the-file-name.json: $.id: the id 'some.other-id' is not the file name 'id-is-not-the-file-name'",
    "illegal-move": "tests/broken_cases/illegal-move.json: $.hands[0].moves[0]: illegal move 'R♥': capture is compulsory: R♥ can take 4♦ 1♣",
    "missing-cards": "tests/broken_cases/missing-cards.json: $.hands[0].decks[0]: not the 40-card deck of base (missing: Sc Rc)",
    "not-json": "tests/broken_cases/not-json.json:3:1: $: not JSON: Expecting property name enclosed in double quotes",
    "pin-matches-nothing": 'tests/broken_cases/pin-matches-nothing.json: $.pins[0]: matches no expected event: {"event": "escoba", "seat": 0, "side": 0, "scores": false}',
    "pin-at-another-place": 'tests/broken_cases/pin-at-another-place.json: $.pins[0]: matches no expected event: {"event": "play", "seat": 0, "card": "Rh", "take": ["2h", "3s"], "at": {"move": 1}}',
    "probe-among-moves-wrong-reason": "tests/broken_cases/probe-among-moves-wrong-reason.json: $.hands[0].moves[0].reason: the probe move is refused as wrong_sum (R♥ 1♣ make 11, not 15), not not_in_hand",
    "probe-wrong-reason": "tests/broken_cases/probe-wrong-reason.json: $.probe.reason: the probe move is refused as wrong_sum (R♥ 2♥ 1♣ make 13, not 15), not not_in_hand",
    "unfinished-hand": "tests/broken_cases/unfinished-hand.json: $.hands[0].moves: the hand is not over after 34 moves",
    "unknown-card-code": "tests/broken_cases/unknown-card-code.json: $.hands[0].decks[0][5]: unknown card code '8d' (not in the deck of base)",
    "unknown-field": "tests/broken_cases/unknown-field.json: $: unknown field(s) ('winner' was unexpected)",
    # the list of known rulesets that follows grows with the project; its start is the point
    "unknown-ruleset": "tests/broken_cases/unknown-ruleset.json: $.ruleset: unknown ruleset 'dx' (did you mean 'da' or 'de'?); known rulesets: base, da,",
}


def test_every_broken_case_has_a_pinned_message():
    """No broken case file is left untested."""
    assert {p.stem for p in BROKEN.glob("*.json")} == set(BROKEN_MESSAGES)


@pytest.mark.parametrize("name", sorted(BROKEN_MESSAGES))
def test_broken_cases_are_refused_with_their_location(name):
    """A broken golden is a TranscriptError naming the file and the JSON path, never a crash."""
    with pytest.raises(TranscriptError) as info:
        load_case(Path("tests/broken_cases") / f"{name}.json")
    message = BROKEN_MESSAGES[name]
    if name == "unknown-ruleset":
        assert str(info.value).startswith(message)
    else:
        assert str(info.value) == message


def test_load_cases_finds_by_id_or_path_pattern():
    """Patterns match an id (`opening.*`) or a path under the root (`probes/*`)."""
    assert {c.id for c in load_cases(pattern="opening.*", replay=False)} >= {"opening.thirty-splits.fr", "opening.redeal.de-redeal"}
    assert [c.id for c in load_cases(pattern="probes/probe.wrong-*", replay=False)] == ["probe.wrong-sum.base"]
    with pytest.raises(TranscriptError, match="no such folder of cases"):
        load_cases(ROOT / "no-such-folder")


def test_a_case_that_names_a_joker_in_a_deck_without_jokers_is_refused():
    """Deck orders are checked against the case's own ruleset's deck."""
    data = json.loads((cases_dir() / "probes" / "probe.wrong-sum.base.json").read_text(encoding="utf-8"))
    data["hands"][0]["decks"][0][0] = "X1"
    with pytest.raises(TranscriptError, match=r"\$\.hands\[0\]\.decks\[0\]\[0\]: unknown card code 'X1'"):
        case_from_data(data)


# --------------------------------------------------------------------------- the Swedish golden


@pytest.fixture(scope="module")
def swedish():
    return load_case(cases_dir() / "text" / "sv.example-game.json")


def test_swedish_golden_first_two_deals_are_the_texts(swedish):
    """Table, hands and the twelve plays of deals one and two are exactly the text's."""
    from escoba.transcript import swedish as text

    rules = swedish.rules
    assert swedish.hands[0].moves[: len(text.MOVES)] == text.MOVES
    deck = rules.deck
    codes = lambda texts: [deck.code[deck.card(t)] for t in texts]
    events = list(swedish.expect)
    assert events[0] == {"event": "hand_start", "dealer": text.ADA, "leader": text.YOU, "players": 2}
    assert events[1] == {"event": "table", "cards": codes(text.TABLE)}  # turned before the hands
    deals = [e for e in events if e["event"] == "deal"]
    assert [deals[0]["hands"], deals[1]["hands"]] == [[codes(h) for h in r] for r in text.ROUNDS]
    assert not [e for e in events if e["event"] == "opening"]  # "bordet blir 18 … ingen escoba för givaren"
    # the first decision: the text's four ways to make 15, and the fifth it misses (K♥ 2♦ 3♣)
    first = events[3]
    assert first["event"] == "legal" and {"card": "Rh", "take": ["2d", "3c"]} in first["moves"]
    assert len([m for m in first["moves"] if m["take"]]) == 5
    plays = [e for e in events if e["event"] == "play"][:12]
    assert [(p["seat"], p["card"]) for p in plays] == [(i % 2, deck.code[deck.card(m.split()[0])]) for i, m in enumerate(text.MOVES)]
    escobas = [i for i, e in enumerate(events) if e["event"] == "escoba"]
    assert [events[i - 1]["card"] for i in escobas[:2]] == ["4c", "5c"]  # "En escoba", "andra escoban"
    # "På bordet ligger 7♠ och 7♥": the 13th play is made on that table
    assert swedish.moves()[12].card in {deck.card(c) for c in ("4♠", "6♦", "6♥")}


def test_swedish_golden_satisfies_every_fact_of_the_text(swedish):
    """The filled-in deals end as the text says: 21–19 cards, coins 5–5, velo, sevens 1–3, 4–2."""
    from escoba.transcript.swedish import check_facts

    check_facts(swedish.rules, list(swedish.expect))


def test_swedish_facts_have_teeth(swedish):
    """check_facts refuses a stream where one stated fact is changed."""
    from escoba.transcript.swedish import check_facts

    events = [dict(e) for e in swedish.expect]
    end = next(i for i, e in enumerate(events) if e["event"] == "hand_end")
    events[end] = {**events[end], "points": [3, 3]}
    with pytest.raises(AssertionError):
        check_facts(swedish.rules, events)


def test_swedish_from_text_marks_only_what_the_text_states(swedish):
    """Marked events are of the first two deals (12 plays) or the final count."""
    events = swedish.expect
    thirteenth = [i for i, e in enumerate(events) if e["event"] == "play"][12]
    for i in swedish.from_text:
        assert i < thirteenth or events[i]["event"] in ("score", "hand_end"), events[i]
    assert 3 not in swedish.from_text  # the text's list of captures is incomplete


# --------------------------------------------------------------------------- metamorphic checks

SWAP = {"h": "s", "s": "h"}  # copas ↔ espadas: no category gives either suit a role in base or fr


def _swap_code(code: str) -> str:
    return code[:-1] + SWAP.get(code[-1], code[-1]) if not code.startswith("X") else code


def _swap_events(events, deck) -> list[dict]:
    index = {c: i for i, c in enumerate(deck.code)}

    def cards(xs, sort=False):
        out = [_swap_code(c) for c in xs]
        return sorted(out, key=index.__getitem__) if sort else out

    swapped = []
    for e in events:
        e = dict(e)
        for key in ("cards",):
            if isinstance(e.get(key), list) and e["event"] != "hand_end":
                e[key] = cards(e[key])
        if e["event"] == "state":  # a snapshot lists its cards in deck order
            e.update(hands=[cards(h, True) for h in e["hands"]], table=cards(e["table"], True), piles=[cards(p, True) for p in e["piles"]])
        elif "hands" in e:
            e["hands"] = [cards(h) for h in e["hands"]]
        if e["event"] == "rejected":
            e["move"] = _swap_wire(e["move"])
        if "card" in e:
            e["card"] = _swap_code(e["card"])
        if "take" in e:
            e["take"] = cards(e["take"], sort=True)  # takes are listed in deck order
        if e["event"] == "legal" and "moves" in e:  # a count of moves is the same count
            moves = [{"card": _swap_code(m["card"]), "take": cards(m["take"], sort=True)} for m in e["moves"]]
            e["moves"] = sorted(moves, key=lambda m: (index[m["card"]], [index[c] for c in m["take"]]))
        swapped.append(e)
    return swapped


def _swap_wire(move):
    """A move as sent, ♥ and ♠ exchanged in its codes (a malformed one as far as it goes)."""
    if not isinstance(move, dict):
        return move
    swap = lambda x: _swap_code(x) if isinstance(x, str) else x
    take = move.get("take")
    return {**move, **({"card": swap(move["card"])} if "card" in move else {}), **({"take": [swap(x) for x in take]} if isinstance(take, list) else {"take": swap(take)} if "take" in move else {})}


def _swap_entry(entry):
    if isinstance(entry, str):
        return entry.translate(str.maketrans("♥♠", "♠♥"))
    probe = entry["probe"]
    return {**entry, "probe": probe.translate(str.maketrans("♥♠", "♠♥")) if isinstance(probe, str) else _swap_wire(probe)}


def _without_reasons(events):
    """Events less their free-text reasons; a refused take in any order (a probe written in
    notation is sent in deck order, one written as a wire object as written)."""
    out = []
    for e in events:
        e = {k: v for k, v in e.items() if k != "reason"}
        if e["event"] == "rejected" and isinstance(e["move"], dict) and isinstance(e["move"].get("take"), list):
            e["move"] = {**e["move"], "take": sorted(map(str, e["move"]["take"]))}
        out.append(e)
    return out


SWAPPABLE = [p for p in CASE_FILES if json.loads(p.read_text(encoding="utf-8"))["ruleset"] in ("base", "fr")]


@pytest.mark.parametrize("path", SWAPPABLE, ids=[p.stem for p in SWAPPABLE])
def test_swapping_copas_and_espadas_swaps_the_events(path):
    """Deck orders and moves with ♥ and ♠ exchanged give the expected events exchanged."""
    c = case(path)
    deck = c.rules.deck
    data = json.loads(path.read_text(encoding="utf-8"))
    for hand in data["hands"]:
        hand["decks"] = [[_swap_code(x) for x in d] for d in hand["decks"]]
        hand["moves"] = [_swap_entry(m) for m in hand["moves"]]
    if isinstance(data.get("probe", {}).get("move"), str):
        data["probe"]["move"] = data["probe"]["move"].translate(str.maketrans("♥♠", "♠♥"))
    data["pins"], data["expect"] = [], []
    got = Replay(_build(data, path)).run()
    assert _without_reasons(got) == _without_reasons(_swap_events(c.expect, deck))


def _rotate(events, n: int, r: int, sides_are_seats: bool) -> list[dict]:
    seat = lambda s: None if s is None else (s + r) % n

    def per_side(xs):
        # value of old side s goes to side s + r
        return [xs[(i - r) % n] for i in range(n)] if sides_are_seats else xs

    out = []
    for e in events:
        e = dict(e)
        for key in ("seat", "dealer", "leader", "to_play"):
            if key in e:
                e[key] = seat(e[key])
        if "piles" in e:  # a state's piles are per side
            e["piles"] = per_side(e["piles"])
        if "side" in e:
            e["side"] = seat(e["side"]) if sides_are_seats else e["side"]
        if "hands" in e:
            e["hands"] = per_side(e["hands"]) if sides_are_seats else [e["hands"][(i - r) % n] for i in range(n)]
        for key in ("points", "measures", "totals"):
            if key in e:
                e[key] = per_side(e[key])
        if e["event"] == "hand_end":
            e["cards"] = per_side(e["cards"])
        for key in ("sides", "winners"):
            if key in e:
                e[key] = sorted(seat(s) for s in e[key]) if sides_are_seats else e[key]
        out.append(e)
    return out


ROTATABLE = [
    p
    for p in CASE_FILES
    if (d := json.loads(p.read_text(encoding="utf-8")))["kind"] == "game" and d["audit"] != "generated"
]


@pytest.mark.parametrize("path", ROTATABLE, ids=[p.stem for p in ROTATABLE])
def test_rotating_the_seats_rotates_the_events(path):
    """The same deck orders and moves with the dealer one seat on give every seat one seat on
    (two seats with partnerships, which keeps each partnership whole: sides do not move)."""
    c = case(path)
    partners = bool(c.rules.partnerships.get(c.players))
    step = 2 if partners else 1
    data = json.loads(path.read_text(encoding="utf-8"))
    data["dealer"] = (c.dealer + step) % c.players
    data["pins"], data["expect"] = [], []
    got = Replay(_build(data, path)).run()
    assert _without_reasons(got) == _without_reasons(_rotate(c.expect, c.players, step, not partners))
