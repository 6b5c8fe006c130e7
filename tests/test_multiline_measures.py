"""A measure written over several lines is the same measure everywhere a measure is a key.

docs/expressions.md says line breaks are free in a measure, and docs/dsl.md folds its own
primera example. Features, the `requires` of generated cases and the cases themselves must
then use the measure's canonical text, never the text as written: a line break in a feature
would not even be a feature (one line, `POINT:VALUE`). Each bundled ruleset is extended by a
house file that writes every one of its measures (and every threshold written as an
expression) as a multi-line block scalar; one seeded hand of cases is generated for it, as
`escoba cases generate` builds them, and the reference engine must pass it.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import escoba
from escoba.cli.main import main
from escoba.conformance.runner import Runner, collect
from escoba.engine.hand import shuffled_decks
from escoba.protocol.client import InProcessSession
from escoba.rules import bundled_ids, load_resolved
from escoba.transcript.build import dump_case
from escoba.transcript.suite import RULESET_FILE, Builder, play


def spread(text: str) -> list[str]:
    """An expression's text cut into several lines, at each ', ' and before each ' + ' or ' - '
    (a line break is a space to the measure language); a text with no such place is put
    between parentheses on lines of their own."""
    for sep in (", ", " + ", " - ", " and ", " or "):
        text = text.replace(sep, sep.rstrip() + "\n")
    lines = text.splitlines()
    return lines if len(lines) > 1 else ["(", f"  {text}", ")"]


def block(key: str, text: str, indent: str) -> str:
    body = "".join(f"{indent}  {line}\n" for line in spread(text))
    return f"{indent}{key}: |\n{body}"


def multiline_house(ruleset: str) -> tuple[str, int]:
    """A house file extending `ruleset` with every measure and expression bound as a block
    scalar over several lines, and how many texts it rewrote."""
    doc = load_resolved(ruleset).doc
    items, count = [], 0
    for category in doc["scoring"]["categories"]:
        lines = ""
        if "measure" in category:
            lines += block("measure", category["measure"], "      ")
            count += 1
        award = category["award"]
        if isinstance(award.get("more_than"), str):
            fields = "".join(f"        {k}: {json.dumps(v)}\n" for k, v in award.items() if k != "more_than")
            lines += "      award:\n" + fields + block("more_than", award["more_than"], "        ")
            count += 1
        if lines:
            items.append(f"    - id: {category['id']}\n{lines}")
    text = f"dsl: 1\nid: {ruleset}-multiline\nkind: house\nextends: {ruleset}\nscoring:\n  categories:\n{''.join(items)}"
    return text, count


@pytest.mark.parametrize("ruleset", bundled_ids())
def test_multiline_measures_generate_cases_the_reference_passes(ruleset, tmp_path):
    """Every measure of the ruleset written over several lines: a generated hand requires each
    measure by its canonical text (the original's), and the reference engine passes the case."""
    text, rewritten = multiline_house(ruleset)
    assert rewritten >= 1
    path = tmp_path / f"{ruleset}-multiline.yaml"
    path.write_text(text, encoding="utf-8")
    doc = load_resolved(str(path)).doc
    assert any("\n" in c.get("measure", "") for c in doc["scoring"]["categories"])  # really written over lines
    out = tmp_path / "cases"
    out.mkdir()
    (out / RULESET_FILE).write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    builder = Builder(str(out / RULESET_FILE), out, RULESET_FILE, str(doc["id"]))
    players = builder.counts[0]
    seed = 1
    game = play(builder.rules, players, 0, shuffled_decks(builder.rules, random.Random(seed)), ["greedy", "random"] * 2, seed)
    case = builder.add(game, f"game.{players}p", "game", f"a seeded game at {players} players")  # validates the case
    (out / f"{case['id']}.json").write_text(dump_case(case), encoding="utf-8")
    original = escoba.load_ruleset(ruleset)
    for category in original.categories:
        if category.measure_text is not None and any(f.startswith(f"scoring.{category.id}.measure:") for f in case["requires"]):
            assert f"scoring.{category.id}.measure:{category.measure_text}" in case["requires"]
    report = Runner(InProcessSession).run(collect(out))
    assert report.ok and report.counts()["pass"] == 1, [(r.id, r.outcome, r.message) for r in report.results]


def test_cases_generate_and_conformance_ruleset_take_a_multiline_measure(tmp_path, capsys, monkeypatch):
    """`escoba cases generate FILE` and `escoba conformance --ruleset FILE` take a file whose
    measures are block scalars (they stopped with a schema error about a temporary file)."""
    text, _ = multiline_house("da")
    path = tmp_path / "da-multiline.yaml"
    path.write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["cases", "generate", str(path), "--out", "generated", "--format", "json"]) == 0
    written = json.loads(capsys.readouterr().out)["cases"]
    assert written and all((Path("generated") / f"{c}.json").is_file() for c in written)
    assert main(["conformance", "--ruleset", str(path), "--case", "*.probe.*", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["summary"]["pass"] == report["summary"]["total"] >= 1
