"""JUnit XML for CI systems (GitHub Actions, GitLab, Jenkins render it): one `<testcase>` per case.

The mapping: `pass` and `xfail` (a failure as pinned) pass; `fail` is a `<failure>` whose type is
the divergence class and whose text is the report's detail for the case (the rule point, the
events, the diff, the replay command); `error`, `crash`, `timeout` and `broken-case` are
`<error>`s; `unsupported` is `<skipped>`. The class name is `escoba.<ruleset>`, so CI groups the
cases by ruleset. Each suite's `<system-out>` holds the report's two answers: the bugs, and for
an engine that declares its rules their variant; its `<properties>` name the declared rules.

Every text in it (a case id, the engine's name and version, a message, a detail) goes through
`escoba.escape.xml`: a control character an engine or a case file sent, which XML cannot hold,
would make a CI parser reject the whole report.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from escoba.conformance.report import NAME_LIMIT, case_details, render_bugs, render_variant
from escoba.conformance.runner import CaseResult, RunReport
from escoba.escape import shorten, xml

_ERRORS = ("error", "crash", "timeout", "broken-case")


def to_junit(reports: list[RunReport], name: str = "escoba conformance") -> str:
    """The runs as one JUnit XML document: a `<testsuite>` per engine."""
    root = ET.Element("testsuites", name=name)
    for report in reports:
        root.append(_suite(report, name))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _suite(report: RunReport, name: str) -> ET.Element:
    counts = report.counts()
    suite = ET.Element(
        "testsuite",
        name=xml(f"{name}: {_engine(report)}", lines=False),
        tests=str(len(report.results)),
        failures=str(counts["fail"]),
        errors=str(sum(counts[o] for o in _ERRORS)),
        skipped=str(counts["unsupported"]),
        time=f"{report.seconds:.3f}",
    )
    if report.rules is not None:
        properties = ET.SubElement(suite, "properties")
        ET.SubElement(properties, "property", name="escoba.rules", value=xml(report.rules.name, lines=False))
        ET.SubElement(properties, "property", name="escoba.rules.id", value=xml(report.rules.id, lines=False))
    for r in report.results:
        suite.append(_case(r))
    answers = render_bugs(report)
    variant = report.variant()
    if variant is not None:
        answers += ["", *render_variant(variant)]
    ET.SubElement(suite, "system-out").text = xml("\n".join(answers))
    return suite


def _case(r: CaseResult) -> ET.Element:
    case = ET.Element(
        "testcase", classname=xml(f"escoba.{r.ruleset or 'unknown'}", lines=False), name=xml(r.id, lines=False), time=f"{r.seconds:.3f}"
    )
    detail = xml("\n".join(case_details(r, all_divergences=True)))
    if r.outcome == "fail":
        failure = ET.SubElement(case, "failure", message=_line(r.message), type=xml(r.cls or "fail", lines=False))
        failure.text = detail
    elif r.outcome in _ERRORS:
        error = ET.SubElement(case, "error", message=_line(r.message), type=r.outcome)
        error.text = detail
    elif r.outcome == "unsupported":
        ET.SubElement(case, "skipped", message=_line(f"unsupported: {r.message}"))
    if r.note or r.notes:
        out = ET.SubElement(case, "system-out")
        out.text = xml("\n".join([r.note, *r.notes]).strip())
    return case


def _line(text: str) -> str:
    return xml(text.splitlines()[0], 500, lines=False) if text else ""


def _engine(report: RunReport) -> str:
    e = report.engine
    return shorten(f"{e.name} {e.version}".strip(), NAME_LIMIT) or e.command
