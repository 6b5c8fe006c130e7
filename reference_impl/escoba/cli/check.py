"""`escoba check`: validate rulesets (YAML, extends, schema, semantic checks)."""

from __future__ import annotations

import argparse
import sys

from escoba.cli.main import add_format_argument
from escoba.errors import SHOWN_PROBLEMS

TYPE_CHECKING = False  # True for type checkers; `typing` is not imported at run time (escoba/__init__.py)
if TYPE_CHECKING:
    from typing import Any

HELP = "validate rulesets: YAML, extends, JSON Schema and semantic checks"
DESCRIPTION = """\
Validate ruleset files or bundled ruleset ids. A valid ruleset prints one line,
'ok  FILE (ID)'; an invalid one prints each problem on a line of its own:

  FILE:LINE:COLUMN: $.json.path: message

With no arguments every bundled ruleset is checked; '-' reads one ruleset from
standard input (named <stdin> in messages; a relative 'extends' is looked up from the
working folder).
Exit status: 0 all valid, 1 any invalid, 2 an unknown id or a missing file."""
EPILOG = """\
examples:
  escoba check                                  every bundled ruleset
  escoba check da sv                            two bundled rulesets by id
  escoba check spec/house/escoba-doble.yaml     a file (a house rule)
  escoba check - < spec/house/tie-shared.yaml   standard input, e.g. from an editor buffer
  escoba check --format json spec/house/*.yaml  problems as JSON, for an editor or CI"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("rulesets", nargs="*", metavar="FILE-OR-ID", help="ruleset files or bundled ids (default: all bundled)")
    add_format_argument(parser)


STDIN = "<stdin>"  # how a ruleset read from standard input is named in messages


def run(args: argparse.Namespace) -> int:
    from escoba.errors import RulesetError, UnknownRuleset, shown_problems
    from escoba.rules import bundled_ids, registry, valid_id

    names = list(args.rulesets) or bundled_ids()
    if names.count("-") > 1:
        print("escoba check: '-' (standard input) may be given once", file=sys.stderr)
        return 2
    unknown = []
    files: dict[str, str] = {}
    for name in names:
        try:
            files[name] = STDIN if name == "-" else registry.find(name)[1]
        except UnknownRuleset as error:
            unknown += error.problems
    if unknown:
        for problem in unknown:  # each on its own line, as main() prints a single error
            print(f"escoba check: {problem}", file=sys.stderr)
        return 2
    reports: list[dict[str, Any]] = []
    for name in names:
        report: dict[str, Any] = {"ruleset": name, "file": files[name], "id": None, "valid": True, "problems": []}
        text = None
        try:
            if name == "-":
                text = _read_stdin()
                report["id"] = valid_id(STDIN, text=text)
            else:
                report["id"] = valid_id(name)
        except RulesetError as error:
            report["valid"] = False
            report["problems"] = error.problems
            report["id"] = _declared_id(name, text)
        reports.append(report)
    if args.format == "json":
        _print_json(reports)
    else:
        for report in reports:
            if report["valid"]:
                print(f"ok  {report['file']} ({report['id']})")
            else:
                for line in shown_problems(report["problems"]):  # the first 50, then how many more
                    print(line)
    sys.stdout.flush()
    return 0 if all(r["valid"] for r in reports) else 1


def _read_stdin() -> str:
    """Standard input as a ruleset's text, with the same limits and refusals as a file."""
    from escoba.errors import UsageError
    from escoba.rules.limits import MAX_BYTES
    from escoba.rules.yamlload import decode_text

    if sys.stdin is None:  # started with its standard input closed (`<&-`)
        raise UsageError("standard input is closed; nothing to read for '-'")
    return decode_text(sys.stdin.buffer.read(MAX_BYTES + 1), STDIN)


def _declared_id(name: str, text: str | None) -> str | None:
    """The id an invalid file declares (or a bundled file's), if it can be read at all."""
    from escoba.errors import RulesetError
    from escoba.rules import registry
    from escoba.rules.yamlload import load_text

    try:
        data = load_text(text, STDIN).data if text is not None else registry.load_document(name).data
    except RulesetError:
        return None
    declared = data.get("id") if isinstance(data, dict) else None
    return declared if isinstance(declared, str) else None


def _print_json(reports: list[dict[str, Any]]) -> None:
    import json  # here: a text report (the usual one) does not pay for importing it

    out = {
        "valid": all(r["valid"] for r in reports),
        "rulesets": [
            {
                **r,
                "problems": [_problem_json(p) for p in r["problems"][:SHOWN_PROBLEMS]],
                **({"more_problems": len(r["problems"]) - SHOWN_PROBLEMS} if len(r["problems"]) > SHOWN_PROBLEMS else {}),
            }
            for r in reports
        ],
    }
    print(json.dumps(out, ensure_ascii=False, indent=2))


def _problem_json(problem: Any) -> dict[str, Any]:
    where = problem.location
    data = {"file": where.file, "line": where.line, "column": where.column, "path": where.path, "message": problem.message}
    if problem.excerpt is not None:
        data["excerpt"], data["caret"] = problem.excerpt, problem.caret
    data["text"] = str(problem)
    return data
