"""escoba matrix: every rule point against every bundled ruleset, and docs/rules-matrix.md."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from escoba.cli.main import main
from escoba.data import data_root
from escoba.diff.matrix import build, render_html, render_markdown
from escoba.rules import bundled_ids

DOC = Path(__file__).resolve().parent.parent / "docs" / "rules-matrix.md"

# The rules catalogue's points (shared/rules-catalogue.md) as matrix row keys.
CATALOGUE = (
    "deck.suits", "deck.ranks", "deck.jokers", "deck.scoring_suit",
    "players.counts", "players.partnerships", "turn.direction", "turn.leader", "turn.next_dealer",
    "deal.hand_size", "deal.table_size", "deal.table_first",
    "opening_table.trigger", "opening_table.max_groups", "opening_table.action", "opening_table.escobas",
    "capture.target", "capture.compulsory", "capture.escoba_on_last_play",
    "leftovers.to", "leftovers.escoba", "leftovers.if_nobody_captured",
    "scoring.escobas.award", "scoring.cards.award", "scoring.coins.award", "scoring.velo.award",
    "scoring.primera.award", "scoring.primera.measure", "scoring.sevens.award", "scoring.all-sevens.award",
    "values.primera", "match.target", "match.target_options", "match.check", "match.several_reach", "match.tie",
    "errata", "unsupported",
)  # fmt: skip


@pytest.fixture(scope="module")
def matrix():
    return build()


def row(matrix, key):
    return next(r for r in matrix.rows if r.key == key)


def test_docs_rules_matrix_is_up_to_date(matrix):
    """docs/rules-matrix.md is exactly `escoba matrix --format markdown`: regenerate it when a ruleset changes."""
    if not DOC.is_file():
        pytest.fail(f"{DOC} is missing: escoba matrix --format markdown > docs/rules-matrix.md")
    assert DOC.read_text(encoding="utf-8") == render_markdown(matrix), (
        "docs/rules-matrix.md is out of date: run `escoba matrix --format markdown > docs/rules-matrix.md`"
    )


def test_columns_are_every_bundled_ruleset(matrix):
    """One column per bundled ruleset, spec/ first, then spec/house/."""
    assert [c.id for c in matrix.columns] == bundled_ids()
    assert {"base", "da", "sv", "de", "fr", "ru"} <= {c.id for c in matrix.columns}
    assert all((data_root() / c.file).is_file() for c in matrix.columns)


def test_rows_cover_every_point_of_the_rules_catalogue(matrix):
    """Every catalogue point is a row (deck, players, turn, deal, opening, capture, leftovers, scoring, match, errata)."""
    keys = [r.key for r in matrix.rows]
    missing = [k for k in CATALOGUE if k not in keys]
    assert not missing
    assert len(keys) == len(set(keys))


def test_cells_carry_the_citation_status_and_its_line(matrix):
    """sv's leader cell: dealer's left, stated, linked to the line of its citation in spec/sv.yaml."""
    cell = row(matrix, "turn.leader").cells["sv"]
    assert (cell.text, cell.status, cell.file) == ("dealer's left", "stated", "spec/sv.yaml")
    line = (data_root() / cell.file).read_text(encoding="utf-8").splitlines()[cell.line - 1]
    assert line.strip().startswith("leader:")
    assert cell.differs_from_base


def test_inherited_citations_link_to_the_file_that_wrote_them(matrix):
    """da-30 inherits da's tie rule: the cell links into spec/da.yaml, with da's status."""
    cell = row(matrix, "match.tie").cells["da-30"]
    assert cell.file == "spec/da.yaml" and cell.status == "stated"
    assert cell.citation.inherited_from == "da"


def test_a_category_a_ruleset_does_not_score_is_empty(matrix):
    """sv has no primera and da no most sevens: those cells are empty, not invented."""
    assert row(matrix, "scoring.primera.award").cells["sv"] is None
    assert row(matrix, "scoring.sevens.award").cells["da"] is None
    assert row(matrix, "scoring.sevens.award").cells["sv"].text == "most (ties: nobody) · 1 pt"
    assert row(matrix, "scoring.sevens.award").cells["sv"].differs_from_base  # base scores no sevens


def test_house_rules_are_marked_house(matrix):
    """escoba-doble's two-point escobas carry the house status."""
    cell = row(matrix, "scoring.escobas.award").cells["escoba-doble"]
    assert cell.status == "house" and cell.text == "per unit · 2 pts" and cell.differs_from_base


def test_markdown_cells_link_and_mark_status(matrix):
    """Markdown: bold where a value differs from base, the status letter linked to the file line."""
    text = render_markdown(matrix)
    assert "**dealer's left** <sup>[S](../spec/sv.yaml#L" in text
    assert "| [escoba-doble](../spec/house/escoba-doble.yaml) | house |" in text


def test_html_cells_hold_the_quote_and_gloss(matrix):
    """HTML: the title attribute holds the citation's quote and its gloss, escaped."""
    page = render_html(matrix)
    assert page.startswith("<!DOCTYPE html>")
    assert "Spelaren till vänster om givaren börjar, och det är du." in page
    assert "The player to the left of the dealer starts, and that is you." in page
    assert 'class="stated differs"' in page


def test_cli_formats(capsys):
    """escoba matrix prints Markdown by default, and HTML or JSON on request."""
    assert main(["matrix", "--rulesets", "base,sv"]) == 0
    assert capsys.readouterr().out.startswith("# Rules matrix")
    assert main(["matrix", "--format", "json", "--rulesets", "base,sv"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in data["rulesets"]] == ["base", "sv"]
    leader = next(r for r in data["rows"] if r["key"] == "turn.leader")
    assert leader["cells"]["sv"]["status"] == "stated" and leader["cells"]["base"]["status"] == "default"
    assert main(["matrix", "--format", "html", "--rulesets", "de"]) == 0
    assert "</table>" in capsys.readouterr().out
