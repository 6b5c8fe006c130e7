"""An engine author's own rules: cases generated for a ruleset file (`escoba cases generate`,
`escoba conformance --ruleset FILE`), and case files naming a ruleset by a relative path."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path

import pytest

from escoba.cli.main import main
from escoba.conformance.profile import DIFFERS, NOT_EXERCISED
from escoba.conformance.runner import Runner, collect
from escoba.errors import TranscriptError
from escoba.protocol.client import InProcessSession
from escoba.protocol.server import ReferenceEngine
from escoba.transcript.case import load_case
from escoba.transcript.suite import write_suite

HOUSE = """\
dsl: 1
id: doble-sin-apertura
kind: house
extends: base
title: Base rules, escobas worth two, no escoba for the opening 15
opening_table:
  escobas: none
  provenance:
    escobas: {status: house, source: house, note: The dealer takes an opening 15 without an escoba.}
scoring:
  categories:
    - id: escobas
      points: 2
      provenance: {status: house, source: house, note: Each escoba is worth two points.}
"""
DIFFERING = {"opening_table.escobas", "scoring.escobas.points"}


class HouseEngine(ReferenceEngine):
    """An engine whose real rules are HOUSE, whatever it is sent (base rules plus two changes)."""

    name = "house-engine"

    def adjust_rules(self, rules):  # type: ignore[no-untyped-def]
        categories = tuple(dataclasses.replace(c, points=2) if c.id == "escobas" else c for c in rules.categories)
        return dataclasses.replace(rules, opening_escobas="none", categories=categories)


@pytest.fixture(scope="module")
def house(tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("house")
    path = folder / "house.yaml"
    path.write_text(HOUSE, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def generated(house, tmp_path_factory):  # type: ignore[no-untyped-def]
    out = tmp_path_factory.mktemp("cases")
    suite = write_suite(str(house), out)
    return out, suite


def test_generated_cases_are_a_self_contained_folder_the_reference_passes(generated):
    """The folder holds the resolved ruleset and cases that name it by a relative path; every
    case loads (with the full replay check) and the reference engine passes them all."""
    out, suite = generated
    assert (out / "ruleset.json").is_file()
    files = sorted(p for p in out.glob("*.json") if p.name != "ruleset.json")
    assert len(files) == len(suite.cases) >= 10
    for path in files:
        case = load_case(path)
        assert case.ruleset == "ruleset.json" and case.audit == "generated"
    report = Runner(InProcessSession).run(collect(out))
    assert report.ok and report.counts()["pass"] == len(files)


def test_generated_cases_exercise_every_point_the_rules_allow(generated):
    """Every rule point of the file that a game of these rules can exercise has a case: what is
    left is what no event depends on, or what a 40-card deck without jokers cannot show."""
    out, suite = generated
    report = Runner(InProcessSession).run(collect(out))
    idle = {p.point for p in report.profile() if p.status == NOT_EXERCISED}
    assert idle <= {
        "deck.scoring_suit", "deal.open_hands", "match.target", "match.target_options", "deal.short_stock",
        "capture.escoba_on_last_play", "capture.joker_escobas_score", "leftovers.if_nobody_captured",
        # the family's points, which a house rule of da leaves at their defaults (no condition, no wild card)
        "deck.declaration_wild", "opening_table.redeal_when", "opening_table.dealer_takes_when", "match.wins_outright",
    }, idle  # fmt: skip
    assert set(suite.missed) <= idle
    kinds = {c["kind"] for c in suite.cases}
    assert kinds == {"game", "probe", "perft"}
    ids = {c["id"] for c in suite.cases}
    assert "doble-sin-apertura.opening-table.escobas" in ids or any("opening_table.escobas:none" in c["requires"] for c in suite.cases)


def test_generation_is_deterministic(house, generated, tmp_path, monkeypatch):
    """The same file gives the same cases, byte for byte (built again, not from the cache)."""
    import escoba.transcript.suite as suite_module

    monkeypatch.setattr(suite_module, "_BUILT", {})
    out, _ = generated
    again = tmp_path / "again"
    write_suite(str(house), again)
    first = {p.name: p.read_text(encoding="utf-8") for p in out.glob("*.json")}
    second = {p.name: p.read_text(encoding="utf-8") for p in again.glob("*.json")}
    assert first == second


def test_an_engine_of_those_rules_passes_them_and_fails_base_on_exactly_the_differences(generated):
    """The engine whose real rules are the house file passes every generated case, and run on
    the bundled base cases differs on exactly the points where the file departs from base."""
    out, _ = generated
    own = Runner(lambda: InProcessSession(HouseEngine)).run(collect(out))
    assert own.ok and own.counts()["pass"] == len(own.results), [(r.id, r.outcome, r.message) for r in own.results if r.outcome != "pass"]
    base = Runner(lambda: InProcessSession(HouseEngine)).run(collect(rulesets=["base"]))
    assert {p.point for p in base.profile() if p.status == DIFFERS} == DIFFERING


def test_conformance_runs_a_ruleset_file_on_the_fly(house, capsys):
    """`escoba conformance --ruleset FILE` generates the cases, runs them, leaves nothing behind,
    and names the command that replays one case."""
    before = set(Path(os.environ.get("TMPDIR", "/tmp")).glob("escoba-cases-*"))
    code = main(["conformance", "--ruleset", str(house), "--case", "*.probe.*", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["summary"]["pass"] == report["summary"]["total"] >= 4
    assert all(c["replay"].endswith(f"--case {c['id']}") and "--ruleset" in c["replay"] for c in report["cases"])
    assert set(Path(os.environ.get("TMPDIR", "/tmp")).glob("escoba-cases-*")) == before


def test_cases_generate_writes_the_folder(house, tmp_path, capsys):
    """`escoba cases generate FILE --out DIR` writes the suite and says how many cases."""
    out = tmp_path / "mine"
    (tmp_path / "mine").mkdir()
    (out / "notes.json").write_text('{"not": "a generated case"}', encoding="utf-8")
    assert main(["cases", "generate", str(house), "--out", str(out), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["cases"]) == len(list(out.glob("doble-sin-apertura.*.json")))
    assert (out / "notes.json").exists()  # not generated: left alone


# ------------------------------------------------------------------------------ ruleset paths
def copy_case(folder: Path, ruleset: str) -> Path:
    """A bundled case rewritten to name a ruleset file."""
    from escoba.transcript.case import cases_dir

    data = json.loads((cases_dir() / "generated" / "base.2p.1.json").read_text(encoding="utf-8"))
    data["ruleset"] = ruleset
    path = folder / "base.2p.1.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_case_names_a_ruleset_file_beside_it(tmp_path):
    """A relative path inside the case's folder loads, also from a subfolder."""
    from escoba.rules import load_resolved

    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "base.ruleset.json").write_text(json.dumps(load_resolved("base").doc), encoding="utf-8")
    case = load_case(copy_case(tmp_path, "rules/base.ruleset.json"))
    assert case.document["id"] == "base"
    assert [e.id for e in collect(tmp_path)] == ["base.2p.1"]  # the ruleset file is not a case


@pytest.mark.parametrize(
    "ruleset, words",
    [
        ("rules/../../base.yaml", "no absolute path, no '..'"),
        ("../base.yaml", r"\$\.ruleset"),
        ("missing.yaml", "no ruleset file"),
        ("link.yaml", "leads out of the case's folder"),
    ],
)
def test_a_ruleset_path_cannot_leave_the_case_folder(tmp_path, ruleset, words):
    """Case files come from others: a path out of the case's folder (`..`, a symbolic link) or
    to nothing is refused in one line."""
    inner = tmp_path / "cases"
    inner.mkdir()
    outside = tmp_path / "base.yaml"
    outside.write_text("dsl: 1\n", encoding="utf-8")
    (inner / "link.yaml").symlink_to(outside)
    with pytest.raises(TranscriptError, match=words) as error:
        load_case(copy_case(inner, ruleset))
    assert "\n" not in str(error.value)


def test_an_absolute_ruleset_path_is_refused_by_the_schema(tmp_path):
    """An absolute path is not even a valid `ruleset` value."""
    with pytest.raises(TranscriptError, match=r"\$\.ruleset"):
        load_case(copy_case(tmp_path, str(Path(sys.prefix) / "x.yaml")))


def test_a_ruleset_named_again_is_loaded_afresh_when_a_file_of_its_chain_changed(tmp_path, monkeypatch):
    """The loader's ruleset cache: the same document while no file changes, a fresh one when the
    parent a ruleset extends changes (not only the file named)."""
    from escoba.transcript.case import loaded_ruleset

    monkeypatch.chdir(tmp_path)
    parent = tmp_path / "parent.yaml"
    parent.write_text(HOUSE, encoding="utf-8")
    (tmp_path / "child.yaml").write_text("dsl: 1\nid: child\nkind: house\nextends: parent.yaml\ntitle: The parent's rules\n", encoding="utf-8")
    doc, rules = loaded_ruleset("child.yaml")
    assert loaded_ruleset("child.yaml")[1] is rules
    assert next(c for c in doc["scoring"]["categories"] if c["id"] == "escobas")["points"] == 2
    parent.write_text(HOUSE.replace("points: 2", "points: 3"), encoding="utf-8")
    os.utime(parent, ns=(1, 1))  # a new stamp even where the clock is coarse
    doc, again = loaded_ruleset("child.yaml")
    assert again is not rules
    assert next(c for c in doc["scoring"]["categories"] if c["id"] == "escobas")["points"] == 3
