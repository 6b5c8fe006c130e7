"""`escoba shrink`: cut a failing case down to the smallest case that fails the same way."""

from __future__ import annotations

import argparse

from escoba.cli.main import UsageError, add_format_argument, check_timeout

HELP = "cut a case an engine fails down to the smallest case that fails the same way"
DESCRIPTION = """\
Run a case file on an engine and, if the engine fails it, try smaller cases until
none is smaller that still fails the same way (the same rule point and class of its
first divergence, or the same crash, timeout or refusal): fewer hands, the hand
stopped at the divergence, the position dealt at once, fewer players, a simpler
deck order, the same deal played again. The smallest is written as a case file
(its id the original's with '.shrunk'), its shrinking steps in its notes.

Exit status: 0 when the case was shrunk and written; 1 when the engine passes the
case (nothing to shrink); 2 for a usage error or an engine that cannot start."""
EPILOG = """\
examples:
  escoba shrink conformance/cases/rules/compulsory.card.da.json --engine './my-engine' --out shrunk
  escoba shrink conformance/cases/probes/probe.compulsory.hand.de.json --engine ./my-engine --out shrunk --budget 200
  escoba conformance --engine ./my-engine --cases-dir shrunk"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("case", metavar="CASE", help="a case file (conformance/cases/**/ID.json, or one explore wrote)")
    parser.add_argument("--engine", metavar="CMD", help="the engine command (default: the reference engine)")
    parser.add_argument("--out", metavar="DIR", required=True, help="write the shrunk case into DIR")
    parser.add_argument("--budget", type=int, default=60, metavar="N", help="smaller cases to try on the engine at most (default 60)")
    parser.add_argument("--timeout", type=float, default=10.0, metavar="S", help="seconds to wait for each reply (default 10)")
    add_format_argument(parser)


def run(args: argparse.Namespace) -> int:
    import json
    from pathlib import Path

    from escoba.cli.explore import engine_command, start_engine
    from escoba.errors import TranscriptError
    from escoba.explore.harness import case_length, describe, signature
    from escoba.explore.shrinking import shrink
    from escoba.inputs import Unreadable, read_file, strict_json
    from escoba.outputs import OutputFolder
    from escoba.transcript.build import dump_case
    from escoba.transcript.case import MAX_FILE_BYTES, load_case

    if args.budget < 1:
        raise UsageError(f"--budget must be at least 1, got {args.budget}")
    check_timeout(args.timeout)
    try:
        case = load_case(args.case)
    except TranscriptError as problem:
        raise UsageError(str(problem).splitlines()[0]) from None
    try:  # read again as data, through the same guards (the file may have changed meanwhile)
        data = strict_json(read_file(args.case, MAX_FILE_BYTES))
    except (Unreadable, ValueError) as problem:
        raise UsageError(f"{args.case}: cannot read the case again: {problem}") from None
    folder = OutputFolder(args.out, "--out")  # before the engine starts: a folder that cannot be is found now
    argv, shown = engine_command(args.engine)
    harness = start_engine(argv, shown, args.timeout, "shrink")
    harness.folder = Path(args.case).parent
    try:
        result = harness.run(data)
        if result.outcome in ("pass", "unsupported"):
            verdict = "passes" if result.outcome == "pass" else f"does not support ({result.message})"
            if args.format == "json":
                print(json.dumps({"case": case.id, "outcome": result.outcome, "shrunk": None}, indent=2))
            else:
                print(f"escoba shrink: the engine {verdict} {case.id}: nothing to shrink")
            return 1
        shrunk = shrink(harness, data, result, budget=args.budget)
    finally:
        harness.close()
    out = dict(shrunk.data)
    out["id"] = f"{case.id}.shrunk"
    with folder:
        path = folder.write(f"{out['id']}.json", dump_case(out))
    sig = describe(signature(result))
    if args.format == "json":
        report = {"case": case.id, "outcome": result.outcome, "divergence": sig, "events": shrunk.original,
                  "shrunk": {"id": out["id"], "path": str(path), "events": case_length(out), "steps": shrunk.steps, "tried": shrunk.tried}}  # fmt: skip
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return 0
    print(f"escoba shrink: {case.id} — the engine fails it: {sig}")
    for step in shrunk.steps:
        print(f"  {step}")
    print(f"{shrunk.original} → {case_length(out)} events ({shrunk.tried} smaller cases tried): wrote {path}")
    return 0
