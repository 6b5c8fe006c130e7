"""Identify's check of its own answer: every bundled scenario, under the rules it is about to print.

`escoba identify` infers a house rule from seeded games and targeted positions. Before it prints
that rule, the engine runs every bundled case as a scenario of it, exactly as
`escoba conformance --rules FILE` would (`escoba.conformance.runner.Runner` with the rules
declared): the cases that still fail are the engine's bugs, or points identify could not decide,
and the output lists them by kind (`RunReport.bugs`), so that nobody reads an inferred rule as
"the engine passes everything" when it does not.
"""

from __future__ import annotations

import copy
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from escoba.protocol.client import Session


@dataclass
class Recheck:
    """The bundled scenarios run under the inferred rules: how many ran, and what failed."""

    total: int  # bundled cases
    ran: int  # of which the engine played (not skipped)
    passed: int
    bugs: list[Any] = field(default_factory=list)  # escoba.conformance.bugs.Bug, one per kind of departure
    nothing_ran: str | None = None  # why no case ran, in one sentence (None when one did)
    report: Any = field(default=None, repr=False)  # the whole RunReport (its bug section is rendered as conformance renders it)

    @property
    def failed(self) -> int:
        return sum(len(b.cases) for b in self.bugs)

    def to_json(self) -> dict:
        return {"total": self.total, "ran": self.ran, "passed": self.passed, "nothing_ran": self.nothing_ran,
                "bugs": [b.to_json() for b in self.bugs]}  # fmt: skip


def settle(connect: Callable[[], Session], found: Any, *, command: str = "", save: Callable[[Any], Path | None] = lambda found: None,
           replay: Callable[[str], str] | None = None) -> Recheck:  # fmt: skip
    """The check of identify's house rule (`recheck`); where a scenario proves the value of a
    point no game decided (a deal where nobody captures, which seeded games rarely reach), that
    value joins the house rule (`escoba.explore.inference.adopt`) and the check runs once more;
    then, where a scenario shows another value of a point the games decided (a primera counted
    otherwise that agreed in every game played), the one the most failing cases show joins it if
    the check then fails less.
    `save`: writes the house rule where the user asked (None: nowhere), before each check."""
    from escoba.explore.inference import adopt, proven
    from escoba.rules import load_resolved

    checked = recheck(connect, found.house_rule, command=command, rules_file=save(found), replay=replay)
    for decided in (False, True):
        if checked.report is None or not checked.bugs:
            return checked
        with tempfile.TemporaryDirectory(prefix="escoba-recheck-") as scratch:
            rules_file = Path(scratch) / "rules.yaml"
            rules_file.write_text(found.house_rule, encoding="utf-8")
            values = proven(found, checked.bugs, load_resolved(str(rules_file)).doc, decided=decided)
        if not values:
            continue
        before = copy.deepcopy(found)
        adopt(found, values)
        again = recheck(connect, found.house_rule, command=command, rules_file=save(found), replay=replay)
        if decided and again.failed >= checked.failed:
            # A point the games decided is overruled only where the check then fails less.
            found.__dict__.update(before.__dict__)
            save(found)
            continue
        checked = again
    return checked


def recheck(connect: Callable[[], Session], house_rule: str, *, command: str = "", rules_file: Path | None = None,
            replay: Callable[[str], str] | None = None) -> Recheck:  # fmt: skip
    """Every bundled case, as a scenario of `house_rule` (ruleset YAML text), on the engine.
    `rules_file`: where that text was written (its replay commands name it); otherwise a
    scratch copy is used and removed."""
    from escoba.conformance.declared import OPTION, load_declared
    from escoba.conformance.runner import Runner, collect

    with tempfile.TemporaryDirectory(prefix="escoba-recheck-") as scratch:
        if rules_file is None:
            import yaml

            rules_file = Path(scratch) / f"{yaml.safe_load(house_rule)['id']}.yaml"
            rules_file.write_text(house_rule, encoding="utf-8")
        declared = load_declared(str(rules_file), OPTION)
        runner = Runner(connect, command=command, rules=declared, replay=replay or (lambda case_id: ""))
        report = runner.run(collect())
    counts = report.counts()
    return Recheck(len(report.results), report.ran, counts["pass"], report.bugs(), report.why_nothing_ran(), report)
