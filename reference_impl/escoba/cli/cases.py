"""`escoba cases generate`: a conformance suite for any ruleset, as case files."""

from __future__ import annotations

import argparse
import sys

from escoba.cli.main import HelpFormatter, UsageError, add_format_argument

HELP = "generate golden cases for a ruleset (your own rules): seeded games, targeted positions, probes"
DESCRIPTION = """\
Write a conformance suite for RULESET (an id or a YAML file) into a folder: the resolved
ruleset as ruleset.json, and one case file per case, naming it by that relative path.
The cases are seeded games at every player count, a targeted position for every rule
point the ruleset sets (openings of the target and of twice it, ties in each category,
a side exactly at each threshold, leftovers when nobody captured, matches that end with
several sides over the target or in a tie), a probe for each refusal class and a perft
count. Their expected events come from the reference engine (audit "generated").

Run them with 'escoba conformance --cases-dir DIR', or skip the files with
'escoba conformance --ruleset FILE', which generates the same cases on the fly.
Rule points no generated case exercises are listed (a 40-card deck never ends in a
sweep on the last play, for instance)."""
EPILOG = """\
examples:
  escoba cases generate my-rules.yaml --out tests/escoba-cases
  escoba conformance --engine ./my-engine --cases-dir tests/escoba-cases
  escoba cases generate spec/house/escoba-doble.yaml --out /tmp/doble --format json"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    generate = sub.add_parser(
        "generate", help="write the cases of RULESET into a folder", description=DESCRIPTION, epilog=EPILOG,
        formatter_class=HelpFormatter,
    )  # fmt: skip
    generate.add_argument("ruleset", metavar="RULESET", help="a bundled ruleset id or a ruleset file")
    generate.add_argument("--out", required=True, metavar="DIR", help="the folder to write (created if missing)")
    add_format_argument(generate)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from escoba.transcript.suite import write_suite

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {args.out}: not a folder")
    stale = _generated(out) if out.is_dir() else []
    if sys.stderr.isatty():
        print(f"generating cases for {args.ruleset}…", file=sys.stderr)
    suite = write_suite(args.ruleset, out)
    written = {f"{c['id']}.json" for c in suite.cases}
    for path in stale:  # a regeneration replaces the previous suite whole (and nothing else)
        if path.name not in written:
            path.unlink()
    if args.format == "json":
        import json

        print(json.dumps({"out": str(out), "cases": [c["id"] for c in suite.cases], "missed": suite.missed}, indent=2))
        return 0
    print(f"wrote {len(suite.cases)} cases and ruleset.json to {out}")
    if suite.missed:
        print(f"no generated case exercises: {', '.join(suite.missed)}")
    return 0


def _generated(folder) -> list:
    """Case files a previous `cases generate` wrote in `folder` (generated, naming ruleset.json)."""
    import json

    found = []
    for path in sorted(folder.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and data.get("audit") == "generated" and data.get("ruleset") == "ruleset.json":
            found.append(path)
    return found
