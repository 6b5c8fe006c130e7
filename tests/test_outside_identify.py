"""Issue 35's acceptance for `escoba identify` on the outside engines (tests/engines/outside/,
written as others write engines, each with a manifest of its departures from base and its
planted bugs): identify prints a house rule under which the engine passes every bundled scenario
except those that show its planted bugs (its own check says so, and the house rule it wrote,
declared to `escoba conformance`, says the same).

pampa (a Python engine: partners at four, capture if any card can, an opening 30 unsplit, most
sevens for the primera, no escoba with one's own last card; two bugs) runs in the everyday suite
(about 30 s). The others run in the deep profile (HYPOTHESIS_PROFILE=deep) or with
ESCOBA_OUTSIDE=1: a few minutes each (crisol and aalborg pass). An engine identify cannot yet
answer for is an expected failure, with the reason (`BEYOND`).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from test_outside_declared import MANIFEST, ROOT, _matches, engines, runnable

pytestmark = pytest.mark.skipif(not MANIFEST.exists(), reason="the outside engines (tests/engines/outside/) are not in this checkout")

SLOW = os.environ.get("HYPOTHESIS_PROFILE") == "deep" or bool(os.environ.get("ESCOBA_OUTSIDE"))
EVERYDAY = {"pampa"}
# What identify cannot yet infer, engine by engine (the value exists in no bundled ruleset and
# among no point's readings): the check then lists it among the failures, as it must. None of
# the five engines today.
BEYOND: dict[str, str] = {}


_IDENTIFIED: dict[str, dict] = {}


def identified(name: str, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """escoba identify on the engine, as an author runs it (--out DIR): its JSON report, once per engine."""
    if name not in _IDENTIFIED:
        engine = engines()[name]
        out = tmp_path_factory.mktemp(f"identify-{name}")
        # sent the ruleset the engine's own family starts from (an author of a Scopa engine sends scopa)
        sent = str(engine.get("extends") or "base")
        cmd = [sys.executable, "-m", "escoba", "identify", "--engine", engine["command"], "--ruleset", sent, "--out", str(out), "--format", "json"]  # fmt: skip
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, cwd=ROOT)
        assert done.returncode in (0, 1), done.stderr
        assert "Traceback" not in done.stderr
        _IDENTIFIED[name] = json.loads(done.stdout)
    return _IDENTIFIED[name]


class _Bug:
    """A bug of the check's JSON, as `_matches` reads a report's bug."""

    def __init__(self, data: dict):
        self.point, self.cls, self.title = data["point"], data["class"], data["title"]
        self.explained = data.get("explained")


def _shows(bug: dict, planted: dict) -> bool:
    """A bug of the check's JSON is a planted one: `_matches` (its rule point, or its class), or
    a point of which the planted one names a part (scoring.velo for scoring.velo.award), or,
    where no rule point explains it, the event it first shows in is one the manifest says the
    planted bug can show in (`score:<category>` for a category's score)."""
    points = planted.get("points", ())
    if _matches(_Bug(bug), planted) or any(str(p).startswith(f"{bug['point']}.") for p in points if bug["point"]):
        return True
    if bug["explained"] is not None:
        return False
    event = bug["first"]["expected"] or bug["first"]["observed"] or {}
    kind = str(event.get("event"))
    return (f"score:{event.get('category')}" if kind == "score" else kind) in {str(e) for e in planted.get("events", ())}


def params() -> list:
    out = []
    for name in sorted(engines()) or ["(none)"]:
        marks = []
        if name not in EVERYDAY:
            marks.append(pytest.mark.skipif(not SLOW, reason="a few minutes: HYPOTHESIS_PROFILE=deep or ESCOBA_OUTSIDE=1"))
        if name in BEYOND:
            marks.append(pytest.mark.xfail(reason=BEYOND[name], strict=False))
        out.append(pytest.param(name, marks=marks))
    return out


@pytest.mark.parametrize("name", params())
def test_identify_prints_rules_under_which_only_the_planted_bugs_fail(name, tmp_path_factory):
    """identify's house rule, checked on every bundled scenario, leaves failing only cases that
    show the engine's planted bugs, and each planted bug that a bundled scenario can show."""
    engine = engines()[name]
    if not runnable(engine):
        pytest.skip(f"{engine['command'].split()[0]} is not installed")
    report = identified(name, tmp_path_factory)
    check = report["check"]
    assert check is not None and check["nothing_ran"] is None, report
    assert check["ran"] >= 0.9 * check["total"], check
    planted = engine.get("bugs", [])
    unplanted = [b["title"] for b in check["bugs"] if not any(_shows(b, p) for p in planted)]
    assert not unplanted, (unplanted, report["house_rule"])
    assert check["bugs"], "no planted bug shows in any scenario"


def test_the_house_rule_is_what_conformance_declares_and_says_the_same(tmp_path_factory):
    """pampa: the house rule identify wrote names no category the engine does not score (fr's
    most sevens in place of base's primera), checks, and conformance --rules on it finds the
    failing kinds identify's check listed."""
    engine = engines()["pampa"]
    report = identified("pampa", tmp_path_factory)
    rule = Path(report["written"]["house_rule"])
    import yaml

    text = yaml.safe_load(rule.read_text(encoding="utf-8"))
    assert text["extends"] == "fr" and "scoring" not in text, text  # fr scores most sevens and no primera: nothing to add or remove
    assert {d["point"] for d in report["departures"]} == {d["point"] for d in engine["departures"] if not d["point"].startswith("scoring.")}
    done = subprocess.run(
        [sys.executable, "-m", "escoba", "conformance", "--engine", engine["command"], "--rules", str(rule), "--format", "json", "--no-targeted"],
        capture_output=True, text=True, timeout=1800, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    again = json.loads(done.stdout)
    assert sorted(b["title"] for b in again["bugs"]) == sorted(b["title"] for b in report["check"]["bugs"])
    assert shlex.split(report["check"]["bugs"][0]["replay"])[:2] == ["escoba", "conformance"]
