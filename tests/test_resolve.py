"""`extends:` inheritance: what merges, what replaces, provenance marks, positions, chains."""

from __future__ import annotations

from pathlib import Path

import pytest

from escoba.data import spec_dir
from escoba.errors import RulesetError
from escoba.rules import check, load_resolved


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def _resolve(folder: Path, text: str, name: str = "child.yaml"):
    return load_resolved(str(_write(folder, name, text)))


def _category(doc: dict, category_id: str) -> dict:
    return next(c for c in doc["scoring"]["categories"] if c["id"] == category_id)


def test_scalars_replace_and_maps_merge(tmp_path: Path) -> None:
    """A child's scalar replaces the parent's; the rest of the section is kept."""
    doc = _resolve(tmp_path, "dsl: 1\nextends: base\ncapture:\n  compulsory: hand\n").doc
    base = load_resolved("base").doc
    assert doc["capture"]["compulsory"] == "hand"
    assert {k: v for k, v in doc["capture"].items() if k not in ("compulsory", "provenance")} == {
        k: v for k, v in base["capture"].items() if k not in ("compulsory", "provenance")
    }


def test_lists_of_scalars_replace(tmp_path: Path) -> None:
    """A list of scalars is replaced whole, not appended to."""
    doc = _resolve(tmp_path, "dsl: 1\nextends: base\nplayers:\n  counts: [2]\n").doc
    assert doc["players"]["counts"] == [2]


def test_lists_of_items_merge_by_id(tmp_path: Path) -> None:
    """Items with an id merge with the parent's item of that id; new ids are appended in order."""
    doc = _resolve(
        tmp_path,
        "dsl: 1\nextends: base\nscoring:\n  categories:\n"
        "    - {id: sevens, title: Most sevens, measure: 'count(rank(cards, 7))', award: {policy: most}, points: 1}\n"
        "    - {id: velo, points: 2}\n",
    ).doc
    ids = [c["id"] for c in doc["scoring"]["categories"]]
    assert ids == ["escobas", "cards", "coins", "velo", "primera", "sevens"]
    assert _category(doc, "velo")["points"] == 2
    assert _category(doc, "velo")["award"] == {"policy": "holder", "card": "7 oros"}


def test_remove_true_deletes_an_item(tmp_path: Path) -> None:
    """`remove: true` deletes the parent's item; `remove: false` is dropped from the result."""
    doc = _resolve(
        tmp_path, "dsl: 1\nextends: base\nscoring:\n  categories:\n    - {id: primera, remove: true}\n    - {id: velo, remove: false}\n"
    ).doc
    assert [c["id"] for c in doc["scoring"]["categories"]] == ["escobas", "cards", "coins", "velo"]
    assert "remove" not in _category(doc, "velo")


def test_award_is_replaced_whole(tmp_path: Path) -> None:
    """A child's award replaces the parent's: a `holder` award does not keep the `ties` of a `most`."""
    doc = _resolve(
        tmp_path, "dsl: 1\nextends: base\nscoring:\n  categories:\n    - {id: coins, award: {policy: threshold, more_than: 5}}\n"
    ).doc
    assert _category(doc, "coins")["award"] == {"policy": "threshold", "more_than": 5}


def test_citations_are_replaced_whole_and_inherited_ones_marked(tmp_path: Path) -> None:
    """An overriding citation keeps nothing of the parent's; an inherited one says where it came from."""
    doc = _resolve(
        tmp_path,
        "dsl: 1\nextends: base\ncapture:\n  target: 15\n  provenance:\n    target: {status: house, source: house}\n",
    ).doc
    provenance = doc["capture"]["provenance"]
    assert provenance["target"] == {"status": "house", "source": "house"}
    assert provenance["compulsory"]["inherited_from"] == "base"
    assert _category(doc, "velo")["provenance"]["inherited_from"] == "base"


def test_inherited_from_names_the_ruleset_that_wrote_the_citation(tmp_path: Path) -> None:
    """Through two levels, a citation names the ancestor it was written in, not the nearest parent."""
    _write(tmp_path, "middle.yaml", "dsl: 1\nextends: base\nmatch:\n  provenance:\n    tie: {status: house, source: house}\n")
    resolved = _resolve(tmp_path, "dsl: 1\nextends: middle.yaml\n")
    provenance = resolved.doc["match"]["provenance"]
    assert (provenance["tie"]["inherited_from"], provenance["target"]["inherited_from"]) == ("middle", "base")
    assert resolved.doc["resolved_from"] == ["base", "middle", "child"]
    assert "extends" not in resolved.doc


def test_positions_point_into_the_file_each_node_came_from(tmp_path: Path) -> None:
    """An overridden node points into the child file, an inherited one into the parent's."""
    resolved = _resolve(tmp_path, "dsl: 1\nextends: base\n\ncapture:\n  compulsory: hand\n")
    assert resolved.positions["$.capture.compulsory"][:3] == (str(tmp_path / "child.yaml"), 5, 15)
    # The parent's shown name depends on where escoba is installed: its path from a checkout, or
    # its place among the bundled rulesets (`spec/base.yaml`) for an installed copy.
    shown = resolved.positions["$.capture.target"].file
    bundled = (spec_dir() / "base.yaml").resolve()
    assert Path(shown).resolve() == bundled or (shown == "spec/base.yaml" and bundled.parent.parent.name == "_data")


def test_error_in_resolved_document_names_the_child_line(tmp_path: Path) -> None:
    """A schema error in a merged category is reported at the child's line, under the resolved path."""
    child = _write(tmp_path, "child.yaml", "dsl: 1\nextends: base\nscoring:\n  categories:\n    - {id: velo, points: two}\n")
    assert [str(p) for p in check(str(child))] == [f"{child}:5:26: $.scoring.categories[3].points: expected an integer, got 'two'"]


def test_extends_by_relative_path(tmp_path: Path) -> None:
    """`extends:` may name a file relative to the extending file."""
    (tmp_path / "parents").mkdir()
    _write(tmp_path / "parents", "mine.yaml", "dsl: 1\nextends: da\nmatch:\n  target: 31\n")
    resolved = _resolve(tmp_path, "dsl: 1\nextends: parents/mine.yaml\n")
    assert (resolved.doc["match"]["target"], resolved.doc["resolved_from"]) == (31, ["base", "da", "mine", "child"])


def test_kind_of_a_file_outside_spec_is_house(tmp_path: Path) -> None:
    """A file outside spec/ that does not say its kind is a house rule (and needs no provenance)."""
    resolved = _resolve(tmp_path, "dsl: 1\nextends: da\ncapture:\n  compulsory: hand\n")
    assert (resolved.kind, resolved.doc["kind"], resolved.id) == ("house", "house", "child")


def _chain(folder: Path, depth: int) -> Path:
    for n in range(1, depth + 1):
        parent = "base" if n == 1 else f"level{n - 1}.yaml"
        _write(folder, f"level{n}.yaml", f"dsl: 1\nextends: {parent}\nmatch:\n  target: {n + 10}\n")
    return folder / f"level{depth}.yaml"


def test_chain_fifty_deep_is_valid(tmp_path: Path) -> None:
    """A chain of 50 files above base resolves, the last change winning."""
    resolved = load_resolved(str(_chain(tmp_path, 50)))
    assert resolved.doc["match"]["target"] == 60
    assert len(resolved.doc["resolved_from"]) == 51


def test_chain_seventy_deep_is_rejected(tmp_path: Path) -> None:
    """A chain deeper than 64 is refused at the extends that goes one too far."""
    top = _chain(tmp_path, 70)
    with pytest.raises(RulesetError) as raised:
        load_resolved(str(top))
    assert [str(p) for p in raised.value.problems] == [f"{tmp_path / 'level6.yaml'}:2:10: $.extends: a chain deeper than 64 rulesets"]


def test_cycle_through_three_files(tmp_path: Path) -> None:
    """A cycle is reported at the extends that closes it, naming the whole loop."""
    for name, parent in (("a", "b"), ("b", "c"), ("c", "a")):
        _write(tmp_path, f"{name}.yaml", f"dsl: 1\nextends: {parent}.yaml\n")
    a = str(tmp_path / "a.yaml")
    problems = [str(p) for p in check(a)]
    assert problems == [f"{tmp_path / 'c.yaml'}:2:10: $.extends: cycle: {a} → {tmp_path / 'b.yaml'} → {tmp_path / 'c.yaml'} → {a}"]


def test_resolved_keys_keep_the_natural_order(tmp_path: Path) -> None:
    """The resolved document lists its header first, then the sections in the parent's order."""
    doc = _resolve(tmp_path, "dsl: 1\nextends: base\ntitle: Mine\nmatch:\n  target: 31\ndeck:\n  jokers: 0\n").doc
    assert list(doc)[:5] == ["dsl", "id", "kind", "resolved_from", "title"]
    assert list(doc).index("deck") < list(doc).index("match")


def test_parent_is_not_changed_by_resolving_a_child(tmp_path: Path) -> None:
    """Resolving a child never alters the cached parent (no inherited_from leaks into base)."""
    _resolve(tmp_path, "dsl: 1\nextends: base\n")
    assert "inherited_from" not in load_resolved("base").doc["capture"]["provenance"]["target"]


def test_a_value_changed_without_a_citation_loses_the_parents_citation(tmp_path: Path) -> None:
    """velo `points: 2` with no provenance must not keep da's quote for one point; it says who set it."""
    doc = _resolve(tmp_path, "dsl: 1\nid: mine\nextends: da\nscoring:\n  categories:\n    - {id: velo, points: 2}\n"
                   "capture:\n  compulsory: optional\n").doc
    assert _category(doc, "velo")["provenance"] == {"status": "house", "source": "house", "note": "set by mine without a citation"}
    assert doc["capture"]["provenance"]["compulsory"]["note"] == "set by mine without a citation"
    assert doc["capture"]["provenance"]["target"]["inherited_from"] == "da"
    assert _category(doc, "cards")["provenance"]["inherited_from"] == "da"


def test_load_ruleset_sees_a_change_in_a_parent_file(tmp_path: Path) -> None:
    """Compiled rules are cached by resolved content: editing the parent of a house rule counts."""
    import os

    import escoba

    parent = _write(tmp_path, "parent.yaml", "dsl: 1\nid: parent\nextends: da\nmatch: {target: 21}\n")
    child = _write(tmp_path, "child.yaml", "dsl: 1\nid: child\nextends: parent.yaml\n")
    assert escoba.load_ruleset(str(child)).match_target == 21
    parent.write_text(parent.read_text(encoding="utf-8").replace("21", "31"), encoding="utf-8")
    os.utime(parent, ns=(1, 2_000_000_000_000_000_000))  # a new modification time, whatever the clock
    assert escoba.load_ruleset(str(child)).match_target == 31
