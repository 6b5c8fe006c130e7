"""The rules pipeline: safe YAML with positions, the invalid-ruleset corpus, every bundled ruleset."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from escoba.cli.show import to_yaml
from escoba.errors import RulesetError
from escoba.rules import bundled_ids, check, load_resolved
from escoba.rules.registry import KNOWN_RULESETS_SHOWN
from escoba.rules.semantics import KNOWN_SOURCES_SHOWN
from escoba.rules.sources import source_files
from escoba.rules.yamlload import load_file, load_text

CORPUS = Path(__file__).parent / "invalid_rulesets"


def _expected() -> dict[str, list[str]]:
    cases: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in (CORPUS / "expected.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("=== "):
            current = cases.setdefault(line[4:], [])
        elif current is not None and line and not line.startswith("#"):
            current.append(line)
    return cases


EXPECTED = _expected()


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_invalid_corpus(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each corpus file is rejected with exactly the pinned, located messages."""
    monkeypatch.chdir(CORPUS)
    more_sources = str(len(source_files()) - KNOWN_SOURCES_SHOWN)
    ids = bundled_ids()
    known = ", ".join(ids[:KNOWN_RULESETS_SHOWN]) + (f", and {len(ids) - KNOWN_RULESETS_SHOWN} more (escoba list)" if len(ids) > KNOWN_RULESETS_SHOWN else "")
    expected = [line.replace("{known}", known).replace("{more_sources}", more_sources) for line in EXPECTED[case]]
    assert "\n".join(str(p) for p in check(case)).splitlines() == expected


def test_corpus_is_complete() -> None:
    """Every file in the corpus has pinned messages, every pinned case has a file, and there are 45+."""
    files = {p.name for p in CORPUS.iterdir() if p.name != "expected.txt"}
    assert files == set(EXPECTED)
    assert len(files) >= 45
    assert all(EXPECTED[case] for case in EXPECTED)


@pytest.mark.parametrize("ruleset", bundled_ids())
def test_bundled_ruleset_is_valid(ruleset: str) -> None:
    """Every bundled ruleset in spec/ and spec/house/ passes every check."""
    assert [str(p) for p in check(ruleset)] == []


def test_two_megabyte_file_is_refused(tmp_path: Path) -> None:
    """A file over 1 MiB is refused before it is parsed."""
    big = tmp_path / "big.yaml"
    big.write_text("dsl: 1\nextends: base\ndescription: " + "x" * (2 * 1024 * 1024) + "\n")
    assert [str(p) for p in check(str(big))] == [f"{big}: $: file larger than 1048576 bytes; a ruleset is a small text file"]


def test_unreadable_file_is_a_located_problem(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file that cannot be read is a problem of that file, not a traceback."""
    target = tmp_path / "locked.yaml"
    target.write_text("dsl: 1\nextends: base\n")

    real_open = os.open

    def refuse(path: Any, *args: Any, **kwargs: Any) -> int:  # as the OS refuses a chmod 000 file (CI runs as root)
        if os.path.basename(path) == "locked.yaml":
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)
    assert [str(p) for p in check(str(target))] == [f"{target}: $: cannot read the file: Permission denied"]


def test_every_node_has_a_position() -> None:
    """Every node of a loaded file, down to list items and alias copies, has a line and column."""
    doc = load_file(Path("spec/base.yaml").resolve(), "spec/base.yaml")
    paths: list[str] = []

    def walk(value: object, path: str) -> None:
        paths.append(path)
        if isinstance(value, dict):
            for key, item in value.items():
                walk(item, f"{path}.{key}" if re.fullmatch(r"[A-Za-z_]\w*", key) else f"{path}['{key}']")
        elif isinstance(value, list):
            for i, item in enumerate(value):
                walk(item, f"{path}[{i}]")

    walk(doc.data, "$")
    assert set(paths) <= set(doc.positions)
    assert all(doc.positions[p].line >= 1 and doc.positions[p].column >= 1 for p in paths)


def test_positions_are_one_based_and_point_at_the_value() -> None:
    """Line and column are 1-based, of the value, with the key's own position kept beside it."""
    doc = load_text("dsl: 1\ncapture:\n  target: 15\n  list: [a, 'b']\n", "x.yaml")
    assert doc.positions["$.capture.target"][1:] == (3, 11, 3, 3)
    assert doc.positions["$.capture.list[1]"][1:3] == (4, 13)


def test_alias_copies_are_independent_and_point_at_the_anchor() -> None:
    """An alias yields a copy (changing one never changes the other) located at the anchored text."""
    doc = load_text("a: &x {k: [1]}\nb: *x\n", "x.yaml")
    doc.data["b"]["k"].append(2)
    assert doc.data["a"] == {"k": [1]}
    assert doc.positions["$.b.k"][1:3] == doc.positions["$.a.k"][1:3] == (1, 11)
    assert doc.positions["$.b"][3:] == (2, 1)


def test_yaml_12_scalars() -> None:
    """Plain scalars read as YAML 1.2 does; quoted 'no' is text; nothing but plain types come out."""
    doc = load_text('a: true\nb: "no"\nc: 17.5\nd: ~\ne: -3\nf: !!str 12\ng: [x, "7"]\n')
    assert doc.data == {"a": True, "b": "no", "c": 17.5, "d": None, "e": -3, "f": "12", "g": ["x", "7"]}


def test_loading_runs_no_code(tmp_path: Path) -> None:
    """A python tag is refused as data: nothing is constructed, so nothing runs."""
    marker = tmp_path / "ran"
    text = f"x: !!python/object/apply:os.system ['touch {marker}']\n"
    with pytest.raises(RulesetError, match="tag '!!python/object/apply:os.system' is not allowed"):
        load_text(text)
    assert not marker.exists()


def test_several_yaml_problems_are_reported_together() -> None:
    """All the YAML problems of a file come out at once, in file order."""
    with pytest.raises(RulesetError) as raised:
        load_text("a: no\nb: 1\nb: 2\nc: off\n", "x.yaml")
    assert [str(p) for p in raised.value.problems] == [
        "x.yaml:1:4: $.a: 'no' is read as a boolean by YAML 1.1: write true or false, or quote it (\"no\") for the text",
        "x.yaml:3:1: $: duplicate key 'b' (first at line 2)",
        "x.yaml:4:4: $.c: 'off' is read as a boolean by YAML 1.1: write true or false, or quote it (\"off\") for the text",
    ]


_plain = st.recursive(
    # Numbers as a ruleset may hold them: at most 15 digits (limits.MAX_DIGITS).
    st.none() | st.booleans() | st.integers(-(10**15) + 1, 10**15 - 1)
    | st.floats(allow_nan=False, allow_infinity=False, min_value=-1e15 + 1, max_value=1e15 - 1) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(), _plain, min_size=1, max_size=5))
def test_show_yaml_loads_back(data: dict) -> None:
    """What `escoba show` writes loads back, through the strict loader, to the same data."""
    assert load_text(to_yaml(data)).data == data


def test_load_resolved_gives_the_chain_and_kind() -> None:
    """load_resolved returns the resolved document, its chain of files and its kind."""
    resolved = load_resolved("base")
    assert (resolved.id, resolved.kind, [d.path.name for d in resolved.files]) == ("base", "base", ["base.yaml"])
    assert "extends" not in resolved.doc and resolved.positions["$.capture.target"].file.endswith("base.yaml")


def test_a_validated_ruleset_is_kept_until_a_file_of_its_chain_changes(tmp_path: Path) -> None:
    """load_resolved serves a checked chain from memory, as an equal copy the caller may change,
    and reads the files again when one of them changed on disk (a parent included)."""
    parent = tmp_path / "parent-rules.yaml"
    child = tmp_path / "child-rules.yaml"
    parent.write_text("dsl: 1\nid: parent-rules\nkind: house\nextends: base\ncapture: {compulsory: optional}\n", encoding="utf-8")
    child.write_text("dsl: 1\nid: child-rules\nkind: house\nextends: parent-rules.yaml\n", encoding="utf-8")
    first, again = load_resolved(str(child)), load_resolved(str(child))
    assert first.doc == again.doc and first.doc is not again.doc
    again.doc["capture"]["compulsory"] = "hand"  # the caller's copy, not the cache
    assert load_resolved(str(child)).doc["capture"]["compulsory"] == "optional"
    parent.write_text(parent.read_text(encoding="utf-8").replace("optional", "card  "), encoding="utf-8")
    assert load_resolved(str(child)).doc["capture"]["compulsory"] == "card"


def _node_paths(value: object, prefix: tuple = ()) -> list[tuple]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _node_paths(item, prefix + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += _node_paths(item, prefix + (i,))
    return found


_BASE = load_resolved("base").doc
_BASE_PATHS = [p for p in _node_paths(_BASE) if p and p[0] not in ("id", "kind")]
_REPLACEMENTS = st.sampled_from(
    [None, 0, -1, 2, 5, 99, 1.5, "", "x", "oros", "7 oros", "X1", "count(", "count(cards)", "deck", True, [], {}, [1],
     [[0, 1], [1]], {"policy": "holder"}, {"policy": "threshold", "more_than": "count(cards)"}, {"id": "x"}]
)  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_BASE_PATHS), _REPLACEMENTS), min_size=1, max_size=3))
def test_check_never_crashes_on_a_damaged_ruleset(tmp_path_factory: pytest.TempPathFactory, changes: list) -> None:
    """Whatever nodes of a ruleset are replaced by whatever values, check reports problems, never raises."""
    import copy

    doc = copy.deepcopy(_BASE)
    del doc["id"]
    for path, value in changes:
        target = doc
        try:
            for part in path[:-1]:
                target = target[part]
            target[path[-1]] = copy.deepcopy(value)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier change removed this node
    file = tmp_path_factory.mktemp("damaged") / "damaged.yaml"
    file.write_text(to_yaml(doc), encoding="utf-8")
    assert isinstance(check(str(file)), list)
