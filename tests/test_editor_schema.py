"""The schemas an editor uses: ruleset files as written, modelines, `escoba schema`, check-jsonschema.

check-jsonschema is in the `test` extra and runs for real here: every bundled and documented
ruleset file passes the as-written schema, and the structural cases of the invalid corpus fail
with an error located at the JSON path of the mistake.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import urljoin

import pytest
from jsonschema import Draft202012Validator

from escoba.cli import main as cli
from escoba.data import schemas_dir
from escoba.rules import fileschema, registry

ROOT = Path(__file__).parents[1]
CORPUS = ROOT / "tests" / "invalid_rulesets"
FILE_SCHEMA = ROOT / "schemas" / "ruleset-file.schema.json"
RESOLVED_SCHEMA = ROOT / "schemas" / "ruleset.schema.json"
MODELINE = re.compile(r"# yaml-language-server: \$schema=(\S+)\n")
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def documented_files() -> list[tuple[str, str]]:
    """(where, text) of every YAML block in the docs that is a whole ruleset file (has `dsl:`),
    but those marked `<!-- invalid file: NAME -->`, which show mistakes on purpose."""
    found = []
    for doc in DOCUMENTS:
        text = doc.read_text(encoding="utf-8")
        for match in re.finditer(r"^```yaml\n(.*?)^```", text, re.S | re.M):
            if text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1].startswith("<!-- invalid file:"):
                continue
            if re.search(r"^dsl: ", match.group(1), re.M):
                line = text.count("\n", 0, match.start()) + 1
                found.append((f"{doc.relative_to(ROOT)}:{line}", match.group(1)))
    return found


def check_jsonschema(*files: Path | str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "check_jsonschema", "--schemafile", str(FILE_SCHEMA), *map(str, files)]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=cwd)


def file_validator() -> Draft202012Validator:
    return Draft202012Validator(json.loads(FILE_SCHEMA.read_text(encoding="utf-8")))


# --------------------------------------------------------------------------- generation


def test_committed_file_schema_is_generated_from_the_resolved_one() -> None:
    """schemas/ruleset-file.schema.json is what the generator makes now; stale says how to regenerate."""
    stale = "schemas/ruleset-file.schema.json is stale: run `python -m escoba.rules.fileschema`"
    assert FILE_SCHEMA.read_text(encoding="utf-8") == fileschema.expected_text(ROOT / "schemas"), stale


def test_generator_check_flag_reports_a_stale_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`python -m escoba.rules.fileschema --check` exits 1 naming the command when the file is stale."""
    shutil.copy(RESOLVED_SCHEMA, tmp_path / "ruleset.schema.json")
    (tmp_path / "ruleset-file.schema.json").write_text("{}\n")
    monkeypatch.setattr(fileschema, "schemas_dir", lambda: tmp_path)
    assert fileschema.main(["--check"]) == 1
    assert fileschema.main([]) == 0  # regenerates
    assert fileschema.main(["--check"]) == 0
    assert (tmp_path / "ruleset-file.schema.json").read_text() == FILE_SCHEMA.read_text(encoding="utf-8")


def test_generator_refuses_an_unclassified_definition() -> None:
    """A new `$defs` entry in the resolved schema must be classified before a file schema is made."""
    resolved = json.loads(RESOLVED_SCHEMA.read_text(encoding="utf-8"))
    resolved["$defs"]["new_thing"] = {"type": "object", "required": ["a"]}
    with pytest.raises(ValueError, match="new_thing"):
        fileschema.generate(resolved)


def test_ids_resolve_to_the_files_themselves() -> None:
    """Each schema's `$id`, resolved against wherever the file is read from, names that same file."""
    for path in (FILE_SCHEMA, RESOLVED_SCHEMA):
        schema = json.loads(path.read_text(encoding="utf-8"))
        for base in (path.as_uri(), "https://example.org/any/folder/" + path.name):
            assert urljoin(base, schema["$id"]) == base


# --------------------------------------------------------------------------- what the schema says


@pytest.mark.parametrize(
    ("document", "errors"),
    [
        ({"dsl": 1, "extends": "da", "scoring": {"categories": [{"id": "velo", "points": 2}]}}, []),
        ({"dsl": 1, "extends": "da", "deck": {"suits": [{"id": "oros", "name": "Golds"}]}}, []),
        ({"dsl": 1, "extends": "da", "scoring": {"categories": [{"points": 2}]}}, ["'id' is a required property"]),
        (
            {"dsl": 1, "extends": "da", "scoring": {"categories": [{"id": "x", "award": {"policy": "holder"}}]}},
            ["'card' is a required property"],  # an award is replaced whole, so it is complete as written
        ),
        (
            {"dsl": 1, "extends": "de", "players": {"partnerships": [{"players": 4}]}},
            ["'sides' is a required property"],  # a list without ids is replaced whole
        ),
        (
            {"dsl": 1, "extends": "da", "capture": {"provenance": {"target": {"status": "stated"}}}},
            ["'source' is a required property"],  # a citation is replaced whole
        ),
        ({"extends": "da"}, ["'dsl' is a required property"]),
        ({"dsl": 1, "extends": "da", "capture": {"targt": 15}}, ["Additional properties are not allowed ('targt' was unexpected)"]),
    ],
)
def test_extending_file_may_leave_out_what_its_parent_supplies(document: dict, errors: list[str]) -> None:
    """With `extends`, sections and keys are optional, but what is replaced whole must be complete."""
    assert [e.message for e in file_validator().iter_errors(document)] == errors


def test_base_file_needs_every_section_except_id_and_kind() -> None:
    """Without `extends` a file is a base: every section is required, but not the inferred id and kind."""
    base = registry.load_document("base").data
    assert list(file_validator().iter_errors(base)) == []
    assert [e.message for e in file_validator().iter_errors({k: v for k, v in base.items() if k not in ("id", "kind")})] == []
    without_deck = {k: v for k, v in base.items() if k != "deck"}
    assert [e.message for e in file_validator().iter_errors(without_deck)] == ["'deck' is a required property"]
    partial_deal = {**base, "deal": {"hand_size": 3}}
    assert [e.message for e in file_validator().iter_errors(partial_deal)] == ["'table_size' is a required property"]


def test_resolved_schema_still_rejects_a_file_as_written() -> None:
    """The resolved schema is the strict one: a house file as written does not pass it (why both exist)."""
    resolved = Draft202012Validator(json.loads(RESOLVED_SCHEMA.read_text(encoding="utf-8")))
    house = registry.load_document("escoba-doble").data
    assert "'deck' is a required property" in [e.message for e in resolved.iter_errors(house)]


# --------------------------------------------------------------------------- modelines


@pytest.mark.parametrize("ruleset", registry.bundled_ids())
def test_every_bundled_file_starts_with_a_modeline_to_the_file_schema(ruleset: str) -> None:
    """The first line of each bundled ruleset points the YAML language server at the as-written schema."""
    path = registry.bundled()[ruleset]
    first = path.read_text(encoding="utf-8").splitlines(keepends=True)[0]
    match = MODELINE.fullmatch(first)
    assert match, f"{path}: first line is {first!r}"
    assert (path.parent / match.group(1)).resolve() == (schemas_dir() / "ruleset-file.schema.json").resolve()


def test_every_documented_ruleset_file_starts_with_the_modeline() -> None:
    """Every whole ruleset file shown in README.md or docs/ starts with the modeline (relative to the checkout)."""
    found = documented_files()
    assert len(found) >= 6  # README's velo-dos, dsl.md's escoba-doble, the tutorial's four
    for where, text in found:
        match = MODELINE.match(text)
        assert match, f"{where}: a ruleset file example must start with the modeline"
        assert match.group(1) in ("schemas/ruleset-file.schema.json", "../../schemas/ruleset-file.schema.json"), where


# --------------------------------------------------------------------------- check-jsonschema


def test_check_jsonschema_passes_on_every_bundled_and_documented_file(tmp_path: Path) -> None:
    """check-jsonschema with the as-written schema accepts all bundled rulesets and every documented file."""
    documented = []
    for n, (_, text) in enumerate(documented_files()):
        documented.append(tmp_path / f"documented-{n}.yaml")
        documented[-1].write_text(text, encoding="utf-8")
    files = [*registry.bundled().values(), *documented]
    assert len(files) >= 22 + 6
    result = check_jsonschema(*files)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ok -- validation done" in result.stdout


# Structural cases of the invalid corpus (what a schema can say), each with the JSON path of the
# mistake in the file as written (list indexes count the file's own items, not the resolved list's).
STRUCTURAL = {
    "bad-id.yaml": "$.id",
    "capture-target-too-high.yaml": "$.capture.target",
    "category-id-a-list.yaml": "$.scoring.categories[0].id",
    "category-without-id.yaml": "$.scoring.categories[0]",
    "comments-only.yaml": "$",
    "dsl-version.yaml": "$.dsl",
    "empty.yaml": "$",
    "extends-not-a-string.yaml": "$.extends",
    "infinite-number.yaml": "$.match.target",
    "jokers-out-of-range.yaml": "$.deck.jokers",
    "key-not-used-by-policy.yaml": "$.scoring.categories[0].award.ties",
    "missing-dsl.yaml": "$",
    "missing-required.yaml": "$.scoring.categories[0].award",
    "no-as-value.yaml": "$.leftovers.escoba",
    "not-a-mapping.yaml": "$",
    "on-as-key.yaml": "$.deal",
    "provenance-unknown-key.yaml": "$.capture.provenance",
    "scalar-document.yaml": "$",
    "several-schema-errors.yaml": "$.players.counts",
    "unknown-key.yaml": "$.scoring.categories[0]",
    "unknown-policy.yaml": "$.scoring.categories[0].award.policy",
    "unknown-top-level-key.yaml": "$",
    "wrong-type.yaml": "$.scoring.categories[0].points",
}


def test_check_jsonschema_fails_with_a_located_error_on_the_structural_corpus() -> None:
    """Each structural case of tests/invalid_rulesets fails check-jsonschema, naming the file and the path."""
    result = check_jsonschema(*STRUCTURAL, cwd=CORPUS)
    assert result.returncode == 1, result.stdout + result.stderr
    located = set(re.findall(r"^\s*(\S+\.yaml)::(\$\S*):", result.stdout, re.M))
    for name, path in STRUCTURAL.items():
        assert (name, path) in located, f"{name}: no error at {path} in\n{result.stdout}"
    assert {name for name, _ in located} == set(STRUCTURAL)


def test_structural_corpus_cases_are_still_in_the_corpus() -> None:
    """The structural list names real corpus files whose escoba message is at the same top-level section."""
    expected = (CORPUS / "expected.txt").read_text(encoding="utf-8")
    for name, path in STRUCTURAL.items():
        block = expected.split(f"=== {name}\n", 1)[1].split("\n===", 1)[0]
        section = path.split(".")[1].split("[")[0] if "." in path else None
        assert section is None or f"$.{section}" in block, (name, block)


# --------------------------------------------------------------------------- escoba schema


def test_schema_command_prints_the_installed_schema_paths(capsys: pytest.CaptureFixture[str]) -> None:
    """`escoba schema` prints the as-written schema's path, `--resolved` the resolved one's; both exist."""
    assert cli.main(["schema"]) == 0
    printed = Path(capsys.readouterr().out.strip())
    assert printed.is_file() and printed.read_text(encoding="utf-8") == FILE_SCHEMA.read_text(encoding="utf-8")
    assert cli.main(["schema", "--resolved"]) == 0
    printed = Path(capsys.readouterr().out.strip())
    assert printed.is_file() and printed.read_text(encoding="utf-8") == RESOLVED_SCHEMA.read_text(encoding="utf-8")


def installed_layout(tmp_path: Path) -> Path:
    """The package laid out as the wheel installs it (pyproject's force-include): data in escoba/_data/."""
    site = tmp_path / "site"
    shutil.copytree(ROOT / "reference_impl" / "escoba", site / "escoba", ignore=shutil.ignore_patterns("__pycache__", "_data"))
    for folder in ("spec", "schemas", "conformance"):
        shutil.copytree(ROOT / folder, site / "escoba" / "_data" / folder)
    return site


def test_schema_command_works_from_an_installed_wheel_layout(tmp_path: Path) -> None:
    """From the wheel's layout (no checkout around it) `escoba schema` names the schema inside the package."""
    site = installed_layout(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = subprocess.run(
        [sys.executable, "-c", "import sys; from escoba.cli.main import main; sys.exit(main(['schema']))"],
        capture_output=True, text=True, timeout=60, cwd=elsewhere, env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()) == site / "escoba" / "_data" / "schemas" / "ruleset-file.schema.json"


def test_check_from_an_installed_wheel_layout_names_files_as_the_docs_do(tmp_path: Path) -> None:
    """Outside any checkout, `escoba check` names bundled files by their place among the bundled rulesets (`spec/…`), never by the package's install path."""
    site = installed_layout(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = subprocess.run(
        [sys.executable, "-c", "import sys; from escoba.cli.main import main; sys.exit(main(['check', 'base', 'tie-shared']))"],
        capture_output=True, text=True, timeout=120, cwd=elsewhere, env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["ok  spec/base.yaml (base)", "ok  spec/house/tie-shared.yaml (tie-shared)"]
    assert str(site) not in result.stdout


def test_editors_doc_examples_are_what_the_tools_print(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """docs/editors.md's `escoba new` line and check-jsonschema error are the tools' own output."""
    doc = (ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["new", "velo-dos", "--extends", "da"]) == 0
    assert f"$ escoba new velo-dos --extends da\n{capsys.readouterr().out}" in doc
    Path("bad.yaml").write_text("dsl: 1\nextends: da\ncapture: {target: 150}\n")
    result = check_jsonschema("bad.yaml", cwd=tmp_path)
    assert result.returncode == 1
    assert f'$ check-jsonschema --schemafile "$(escoba schema)" bad.yaml\n{result.stdout}' in doc
