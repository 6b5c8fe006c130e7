"""Documents already found valid, remembered between runs (escoba/rules/verdicts.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import escoba.rules as rules_pipeline
from escoba.errors import RulesetError
from escoba.rules import check_document, load_resolved, semantics, verdicts, yamlparse
from escoba.rules.yamlload import load_file, load_text

pytestmark = pytest.mark.skipif(
    not hasattr(os, "getuid"), reason="the cache is kept only where files have owners (POSIX)"
)

HOUSE = "dsl: 1\nid: mine\nkind: house\ntitle: Mine\nextends: da\ncapture:\n  compulsory: hand\n  provenance:\n    compulsory: {status: house, source: house, note: ours}\n"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A cache folder of the test's own, as a new process would find it (nothing read yet)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("ESCOBA_NO_CACHE", raising=False)
    _new_process(monkeypatch)
    return tmp_path / "cache" / "escoba"


def _new_process(monkeypatch) -> None:
    monkeypatch.setattr(verdicts, "_known", None)
    monkeypatch.setattr(verdicts, "_file", None)
    rules_pipeline._VALID.clear()


def _never_judged(*args, **kwargs):
    raise AssertionError("judged again")


def _house(tmp_path: Path, text: str = HOUSE) -> str:
    path = tmp_path / "mine.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_a_valid_ruleset_is_judged_once_then_known_by_its_content(cache, tmp_path, monkeypatch):
    """A ruleset that passed is not judged again by a later process; a change to its text is."""
    path = _house(tmp_path)
    assert load_resolved(path).doc["capture"]["compulsory"] == "hand"
    (kept,) = cache.glob("valid-*")
    assert len(kept.read_text().split()) == 1 and kept.stat().st_mode & 0o077 == 0
    _new_process(monkeypatch)
    monkeypatch.setattr(semantics, "check", _never_judged)
    assert load_resolved(path).doc["capture"]["compulsory"] == "hand"  # from the verdict, not judged
    _house(tmp_path, HOUSE.replace("hand", "card"))
    _new_process(monkeypatch)
    with pytest.raises(AssertionError, match="judged again"):
        load_resolved(path)


def test_problems_are_never_remembered(cache, tmp_path, monkeypatch):
    """A ruleset with problems is judged afresh every time, so its messages are the current code's."""
    path = _house(tmp_path, HOUSE.replace("compulsory: hand", "compulsory: sometimes"))
    for _ in range(2):
        _new_process(monkeypatch)
        with pytest.raises(RulesetError, match="sometimes"):
            load_resolved(path)
    assert not any(f.read_text() for f in cache.glob("valid-*"))


def test_a_document_is_known_by_its_exact_types(cache, monkeypatch):
    """`check_document` (an engine's `start`) remembers a document, and `4` is not `4.0` nor `true`."""
    doc = load_resolved("da").doc
    assert check_document(doc) == []
    _new_process(monkeypatch)
    assert verdicts.known("document", doc)
    changed = {**doc, "capture": {**doc["capture"], "target": 15.0}}
    assert not verdicts.known("document", changed)
    assert check_document(changed) != []


def test_other_judges_know_no_verdict_and_only_recent_judges_keep_theirs(cache, tmp_path, monkeypatch):
    """When the code or data that judge a document change, no old verdict counts; two installs
    used in turn keep their own verdicts, and the files of fingerprints older than the last
    `JUDGES_KEPT` are removed."""
    load_resolved(_house(tmp_path))
    (mine,) = cache.glob("valid-*")
    real_judges = verdicts._judges()
    _new_process(monkeypatch)
    monkeypatch.setattr(verdicts, "_judges", lambda: "other")
    with monkeypatch.context() as judging:
        judging.setattr(semantics, "check", _never_judged)
        with pytest.raises(AssertionError, match="judged again"):
            load_resolved(_house(tmp_path))
    load_resolved(_house(tmp_path))  # judged by "other" now
    _new_process(monkeypatch)
    monkeypatch.setattr(verdicts, "_judges", lambda: real_judges)
    monkeypatch.setattr(semantics, "check", _never_judged)
    load_resolved(_house(tmp_path))  # the first install's verdict is still there
    assert mine.exists()
    monkeypatch.undo()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    os.utime(mine, ns=(1, 1))  # the oldest
    for n in range(verdicts.JUDGES_KEPT - 1):  # with "other", JUDGES_KEPT newer fingerprints
        _new_process(monkeypatch)
        monkeypatch.setattr(verdicts, "_judges", lambda n=n: f"newer{n}")
        load_resolved(_house(tmp_path))
    assert not mine.exists() and not list(cache.glob(f"parsed-{real_judges}-*"))
    assert len(list(cache.glob("valid-*"))) == verdicts.JUDGES_KEPT


def test_no_cache_when_turned_off_or_not_private(cache, tmp_path, monkeypatch):
    """ESCOBA_NO_CACHE=1 keeps nothing; a verdict file others may write is never read."""
    monkeypatch.setenv("ESCOBA_NO_CACHE", "1")
    load_resolved(_house(tmp_path))
    assert not cache.exists() or not list(cache.glob("valid-*"))
    monkeypatch.delenv("ESCOBA_NO_CACHE")
    _new_process(monkeypatch)
    load_resolved(_house(tmp_path))
    (kept,) = cache.glob("valid-*")
    kept.chmod(0o666)
    _new_process(monkeypatch)
    monkeypatch.setattr(semantics, "check", _never_judged)
    with pytest.raises(AssertionError, match="judged again"):
        load_resolved(_house(tmp_path))


def test_a_known_ruleset_loads_without_yaml_jsonschema_or_lark(tmp_path):
    """What makes `escoba check` fast: the second process to check a ruleset imports neither
    the YAML parser, nor the JSON Schema validator, nor the expression parser."""
    code = (
        "import sys; from escoba.rules import check; assert check('sv') == []; "
        "print(' '.join(m for m in ('yaml', 'jsonschema', 'lark') if m in sys.modules) or '-')"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    env.pop("ESCOBA_NO_CACHE", None)
    runs = [
        subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout.split()
        for _ in range(2)
    ]
    assert runs == [["yaml", "jsonschema", "lark"], ["-"]]


def test_a_known_ruleset_is_checked_without_the_heavy_imports(tmp_path):
    """`escoba check ID` the second time imports none of the modules that made its start-up
    slow: the parsers and validators, `dataclasses` (and `inspect`), `json`, `shutil`, `copy`, `typing`,
    `threading`."""
    heavy = ("yaml", "jsonschema", "lark", "dataclasses", "inspect", "json", "shutil", "copy", "typing", "threading")
    code = (
        "import sys; from escoba.cli.main import main; assert main(['check', 'sv']) == 0; "
        f"print(' '.join(m for m in {heavy!r} if m in sys.modules) or '-', file=sys.stderr)"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    env.pop("ESCOBA_NO_CACHE", None)
    runs = [
        subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stderr.split()
        for _ in range(2)
    ]
    assert set(runs[0]) >= {"yaml", "jsonschema", "lark"}  # the first run judged it
    assert runs[1] == ["-"]


def test_a_text_parsed_before_is_read_back_as_parsed(cache, tmp_path, monkeypatch):
    """The data and positions kept for a file are those a fresh parse gives; a kept file that
    does not read back is parsed afresh."""
    path = Path(_house(tmp_path, HOUSE + "values:\n  primera: {'7': 21, '6': 18.5}\nx: [1, 'a', true, null]\n"))
    fresh = load_text(path.read_text(encoding="utf-8"), "mine.yaml", path)
    first = load_file(path, "mine.yaml")
    (kept,) = cache.glob("parsed-*")
    _new_process(monkeypatch)
    monkeypatch.setattr(yamlparse, "_Composer", _never_judged)
    again = load_file(path, "mine.yaml")
    assert fresh == first == again and type(again.positions["$.capture"]) is type(fresh.positions["$.capture"])
    kept.write_bytes(b"not marshal data")
    _new_process(monkeypatch)
    with pytest.raises(AssertionError, match="judged again"):
        load_file(path, "mine.yaml")
