"""Escoba's family (spec/family/) and the event house rules: registered, cited, and data only.

The family rulesets quote third-party pages that are kept as excerpt files (spec/sources/):
each has its header, stores nothing that no ruleset quotes, and every family ruleset cites them.
No family or house ruleset needed Python of its own: the engine and the rules code never name
one. `escoba diff base scopa --format markdown`, and each family game's diff against the
ruleset it extends (cirulla and scopa-dassi against scopa), are in the docs, produced here.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import escoba
from escoba.data import data_root, sources_dir, spec_dir
from escoba.rules import bundled_ids, load_resolved
from escoba.rules.resolve import citations
from escoba.rules.sources import fold, is_excerpts, split_excerpts
from escoba.transcript import load_cases

ROOT = Path(__file__).parents[1]
FAMILY = ("scopa", "scopone", "scopone-classico", "escova", "cirulla", "scopa-no-partners", "scopone-last-sweep",
          "cirulla-anticlockwise", "scopa-dassi", "asso-piglia-tutto")
EVENT_HOUSE_RULES = ("velo-escoba-double", "last-capture-point", "seven-escobas-double", "no-first-play-escoba",
                     "figure-sweep-bonus")
EXCERPTS = sorted(p for p in sources_dir().glob("*.txt") if is_excerpts(p.read_text(encoding="utf-8")))
# docs/diff-A-B.md: `escoba diff A B`, each family game against the ruleset it extends
DIFF_DOCS = {"diff-base-scopa.md": ("base", "scopa"), "diff-scopa-cirulla.md": ("scopa", "cirulla"),
             "diff-scopa-scopa-dassi.md": ("scopa", "scopa-dassi")}  # fmt: skip


def diff_args(a: str, b: str) -> list[str]:
    return ["diff", a, b, "--format", "markdown", "--hands", "200", "--seed", "0"]


def _quotes(doc: dict) -> list[tuple[str, str]]:
    """(source file, quote) of every citation, unsupported entry and erratum of a document."""
    found = [c for _, c in citations(doc)] + list(doc.get("unsupported") or []) + list(doc.get("errata") or [])
    out = []
    for c in found:
        quote = c.get("quote")
        for piece in quote if isinstance(quote, list) else [quote] if quote else []:
            out.append((str(c["source"]), piece))
    return out


def test_the_family_is_bundled_as_family_rulesets():
    """Each family game is a bundled id, a file in spec/family/, of kind family; each house rule in spec/house/."""
    ids = bundled_ids()
    for ruleset in FAMILY:
        resolved = load_resolved(ruleset)
        assert ruleset in ids and resolved.kind == "family"
        assert resolved.files[-1].path.parent == (spec_dir() / "family").resolve()
    for ruleset in EVENT_HOUSE_RULES:
        assert load_resolved(ruleset).kind == "house" and escoba.load_ruleset(ruleset).needs_history


def test_family_rulesets_cite_excerpt_files():
    """A family ruleset's own citations name excerpt files (or mark a default), and every excerpt file is cited."""
    excerpt_names = {p.name for p in EXCERPTS}
    cited: set[str] = set()
    for ruleset in FAMILY:
        own = load_resolved(ruleset).files[-1].data
        sources = {c["source"] for _, c in citations(own)} | {i["source"] for i in own.get("unsupported") or [] if "source" in i}
        assert sources - {"outside"} <= excerpt_names, ruleset
        assert sources & excerpt_names, ruleset
        for _, c in citations(own):
            if c["source"] == "outside":
                assert c["status"] == "default" and c.get("note"), (ruleset, c)
        cited |= {s for s, _ in _quotes(load_resolved(ruleset).doc)}
    assert excerpt_names <= cited


@pytest.mark.parametrize("path", EXCERPTS, ids=lambda p: p.name)
def test_an_excerpt_file_names_its_page(path: Path):
    """An excerpt file has its URL, title, language, retrieval date and storage note, then passages."""
    header, passages = split_excerpts(path.read_text(encoding="utf-8"))
    assert list(header) == ["url", "title", "language", "retrieved", "stored"], path.name
    assert re.fullmatch(r"https?://\S+", header["url"]) and header["title"]
    assert re.fullmatch(r"[a-z]{2}", header["language"])
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", header["retrieved"])
    assert header["stored"].startswith("excerpts only")
    assert passages and all(passages)


def test_every_stored_passage_is_quoted():
    """No excerpt file stores a passage that no ruleset or golden case quotes: only quotes are kept."""
    quotes: dict[str, list[str]] = {}
    for ruleset in bundled_ids():
        for source, quote in _quotes(load_resolved(ruleset).doc):
            quotes.setdefault(source, []).append(fold(quote))
    for case in load_cases(replay=False):
        if case.source and case.source.get("quote"):
            quotes.setdefault(case.source["file"], []).append(fold(case.source["quote"]))
    for path in EXCERPTS:
        for passage in split_excerpts(path.read_text(encoding="utf-8"))[1]:
            assert any(q in fold(passage) for q in quotes.get(path.name, [])), f"{path.name}: {passage[:60]}…"


def test_no_family_or_house_ruleset_is_named_in_the_engine():
    """The engine and the rules code name no family or house ruleset: every rule is data."""
    house = [p.stem for p in (spec_dir() / "house").glob("*.yaml")]
    ids = [*FAMILY, *house]
    assert set(EVENT_HOUSE_RULES) <= set(house)
    code = ROOT / "reference_impl" / "escoba"
    for folder in ("engine", "rules"):
        for path in (code / folder).rglob("*"):
            if path.suffix not in (".py", ".lark"):
                continue
            text = path.read_text(encoding="utf-8")
            for ruleset in ids:
                found = re.search(rf"(?<![\w-]){re.escape(ruleset)}(?![\w-])", text, re.IGNORECASE)
                assert found is None, f"{path.relative_to(ROOT)} names the ruleset {ruleset!r}"


@pytest.mark.parametrize("name", sorted(DIFF_DOCS))
def test_each_family_diff_is_in_the_docs(name):
    """docs/diff-A-B.md is exactly `escoba diff A B --format markdown --hands 200 --seed 0`."""
    args = diff_args(*DIFF_DOCS[name])
    # Run where the documented paths (spec/…) are, in a checkout or an installed escoba alike.
    out = subprocess.run([sys.executable, "-m", "escoba", *args], capture_output=True, text=True, check=True,
                         cwd=data_root()).stdout
    assert (ROOT / "docs" / name).read_text(encoding="utf-8") == out, (
        f"docs/{name} is out of date: run `escoba {' '.join(args)} > docs/{name}`"
    )


def test_the_family_games_own_rules_are_played_not_listed():
    """Cirulla plays its ace, declarations, dealer's table points, two-aces redeal and cappotto,
    and Scopa d'Assi its ace and Napoleone: none is left in an `unsupported` list."""
    cirulla, assi = escoba.load_ruleset("cirulla"), escoba.load_ruleset("scopa-dassi")
    assert cirulla.table_kind is not None and assi.table_kind is not None and not assi.table_kind.escoba
    assert {cirulla.categories[i].id for i in cirulla.declarations} == {"low-hand", "low-three", "three-of-a-kind", "low-table", "high-table"}
    assert cirulla.declaration_wild == cirulla.deck.card("7♥") and cirulla.opening_redeal_when is not None
    assert [o.id for o in cirulla.wins_outright] == ["cappotto"] and [o.id for o in assi.wins_outright] == ["napoleone"]
    for ruleset in ("cirulla", "scopa-dassi"):
        listed = {item["id"] for item in load_resolved(ruleset).doc.get("unsupported") or []}
        assert not listed & {"ace-takes-all", "hand-declarations", "dealer-table-points", "two-aces", "cappotto", "three-kings"}


def test_every_unsupported_rule_says_why():
    """Every rule a bundled ruleset leaves unplayed (`unsupported`) carries a note saying why,
    in words about the game rather than the file format (no 'key', 'DSL' or 'the language')."""
    for ruleset in bundled_ids():
        for item in load_resolved(ruleset).doc.get("unsupported") or []:
            note = str(item.get("note") or "")
            assert note, (ruleset, item["id"])
            assert not re.search(r"\b(key|keys|DSL|the language)\b", note), (ruleset, item["id"], note)


CHANGED = {  # the points the diff shows, and how many
    "velo-escoba-double": (["escobas: measure"], 1),
    "seven-escobas-double": (["escobas: measure"], 1),
    "no-first-play-escoba": (["escobas: measure"], 1),
    "last-capture-point": (["last-capture: category"], 1),
    "figure-sweep-bonus": (["figure-sweeps: category", "values: figures"], 2),
}


@pytest.mark.parametrize("ruleset", [*EVENT_HOUSE_RULES, *FAMILY])
def test_checks_plays_simulates_and_diffs_against_its_parent(ruleset, capsys, monkeypatch):
    """Each event house rule and family game checks, plays a game with bots, simulates, and
    diffs against its parent (a family game against base): the commands a user runs."""
    from escoba.cli import main as cli

    def run(*argv: str) -> tuple[int, str]:
        code = cli.main(list(argv))
        out, err = capsys.readouterr()
        assert "Traceback" not in out + err, err
        return code, out

    players = str(escoba.load_ruleset(ruleset).player_counts[-1 if ruleset.startswith("scopone") else 0])
    assert run("check", ruleset)[0] == 0
    monkeypatch.setattr(sys, "stdin", __import__("io").StringIO(""))
    code, out = run("play", ruleset, "--auto", "--seed", "5", "--players", players, "--target", "5")
    assert code == 0 and "Match over:" in out, out[-400:]
    code, out = run("simulate", ruleset, "--hands", "60", "--players", players)
    assert code == 0
    parent = load_resolved(ruleset).doc.get("resolved_from", ["base"])[-2] if ruleset in EVENT_HOUSE_RULES else "base"
    code, out = run("diff", parent, ruleset, "--hands", "40", "--players", players)
    assert code == 0
    if ruleset in CHANGED:
        points, count = CHANGED[ruleset]
        assert all(p in out for p in points) and f"Rules that differ: {count} of" in out, out[:800]


# --------------------------------------------------------------------------- the disputed readings
VARIANTS = {  # variant: (parent, the points it changes, the parent's erratum that records the dispute)
    "scopa-no-partners": ("scopa", {"players.partnerships"}, "four-players-paired"),
    "scopone-last-sweep": ("scopone", {"capture.escoba_on_last_play"}, "last-play-sweep"),
    "cirulla-anticlockwise": ("cirulla", {"turn.direction", "turn.leader", "turn.next_dealer"}, "direction-of-play"),
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_disputed_reading_is_an_erratum_with_both_sentences_and_a_variant_that_plays_the_other(variant):
    """The variant differs from its parent on exactly the disputed points, each stated by the other reference; the parent's erratum quotes one reference and names the variant."""
    from escoba.diff.structural import diff_rulesets

    parent, points, erratum_id = VARIANTS[variant]
    diff = diff_rulesets(load_resolved(parent), load_resolved(variant))
    assert diff.keys() == points and diff.recorded == ()
    erratum = next(e for e in load_resolved(parent).doc["errata"] if e["id"] == erratum_id)
    assert variant in erratum["resolution"] and erratum.get("quote")
    own = load_resolved(variant).files[-1].data
    for point in points:
        section, key = point.split(".")
        assert own[section]["provenance"][key]["status"] in ("stated", "interpreted")


def test_scopa_states_where_the_deal_passes_and_how_a_match_ends():
    """Scopa's next dealer and match end, which public pages state, are `stated` with their quote; scopone's opening note no longer points at the three-kings entry it removes."""
    doc = load_resolved("scopa").doc
    for section, key in (("turn", "next_dealer"), ("match", "check"), ("match", "several_reach"), ("match", "tie")):
        citation = doc[section]["provenance"][key]
        assert citation["status"] == "stated" and citation["quote"], (section, key)
    scopone = load_resolved("scopone").doc
    assert "three-kings" not in {u["id"] for u in scopone.get("unsupported") or []}
    assert "three-kings" not in scopone["opening_table"]["provenance"]["trigger"].get("note", "")


def test_cirulla_records_parletts_wild_seven_as_not_played():
    """The seven of hearts (cups) wild when the dealer takes the opening table is unsupported, quoted from Parlett, with why and the closest rule."""
    entry = next(u for u in load_resolved("cirulla").doc["unsupported"] if u["id"] == "seven-wild-opening")
    assert entry["source"] == "parlett-cirulla.txt" and "is wild" in entry["quote"] and entry["note"] and entry["closest"]
