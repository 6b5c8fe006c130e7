"""`escoba cases generate`: a conformance suite for any ruleset, as case files; `escoba cases
audit`: how strong the bundled suite is, by mutating the bundled rulesets (escoba/mutation)."""

from __future__ import annotations

import argparse
import sys

from escoba.cli.main import HelpFormatter, UsageError, add_format_argument

HELP = "generate golden cases for a ruleset (your own rules); audit the bundled cases by mutating the rulesets"
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
AUDIT_DESCRIPTION = """\
Mutate every bundled ruleset, one rule point at a time, and replay the bundled cases
under each mutant: every other value the registry gives a rule point, and every
literal of a measure or an award read otherwise (a number, a comparison, a suit, a
rank, a card, a filter on one card widened to its rank or its suit, the history's
filters). A mutant applies to every ruleset that says what it misreads, and a case
of any of them detects it when its events change.

A mutant no case detects is searched for: targeted positions for its rule point and
seeded games under each ruleset that makes it. If a game tells it apart it is a
survivor, shown with that game shrunk (--out DIR writes it as a case file); if none
does, it is equivalent, with the reason the registry gives or the one written in
conformance/equivalent.yaml.

The report counts, per rule point and per ruleset, the mutants, how many are
detected, equivalent or surviving, and the weakest: the fewest cases detecting one.
Every detected mutant must be detected by at least three cases. The full audit
takes minutes (docs/conformance.md); --cache reuses an earlier audit's verdict for
every mutant whose rulesets, cases and settings have not changed, so only what a
change brings is computed, and --check fails when that is anything.

Exit status: 0 when no mutant survives and every detected one is detected by three
cases or more; 1 otherwise (and, with --check, when the cache is not current); 2 for
a usage error."""
AUDIT_EPILOG = """\
examples:
  escoba cases audit --jobs 2
  escoba cases audit --cache --check                 (what CI runs: is the bundled audit current?)
  escoba cases audit --cache --write conformance/audit.json
  escoba cases audit --ruleset scopa --out /tmp/survivors -v
  escoba cases audit --cache --format json"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    generate = sub.add_parser(
        "generate", help="write the cases of RULESET into a folder", description=DESCRIPTION, epilog=EPILOG,
        formatter_class=HelpFormatter,
    )  # fmt: skip
    generate.add_argument("ruleset", metavar="RULESET", help="a bundled ruleset id or a ruleset file")
    generate.add_argument("--out", required=True, metavar="DIR", help="the folder to write (created if missing)")
    add_format_argument(generate)
    audit = sub.add_parser(
        "audit", help="mutate the bundled rulesets and count the cases that detect each mutant",
        description=AUDIT_DESCRIPTION, epilog=AUDIT_EPILOG, formatter_class=HelpFormatter,
    )  # fmt: skip
    audit.add_argument(
        "--ruleset", action="append", default=[], metavar="ID",
        help="only the mutants this bundled ruleset makes (repeatable; default: every bundled ruleset)",
    )  # fmt: skip
    audit.add_argument(
        "--cache", nargs="?", const="", default=None, metavar="FILE",
        help="reuse the verdicts of an earlier audit's JSON where nothing they depend on changed (default FILE: the bundled conformance/audit.json)",
    )  # fmt: skip
    audit.add_argument("--check", action="store_true", help="with --cache: exit 1 unless the cache is current (write nothing)")
    audit.add_argument("--write", metavar="FILE", help="write the audit's JSON to FILE (a whole audit only: no --ruleset)")
    audit.add_argument("--out", metavar="DIR", help="write each survivor's shrunk case into DIR")
    audit.add_argument(
        "--suggest", metavar="DIR",
        help="write into DIR games that bring the survivors and the mutants below the bar up to it, to audit by hand (400 seeded games a ruleset: minutes)",
    )  # fmt: skip
    audit.add_argument("--positions", type=int, default=None, metavar="N", help="targeted positions tried per ruleset for a mutant no case detects (default 16)")
    audit.add_argument("--games", type=int, default=None, metavar="N", help="seeded games played per ruleset for a mutant no case detects (default 64)")
    audit.add_argument("--jobs", type=int, default=1, metavar="J", help="worker processes (0: one per CPU; default 1)")
    audit.add_argument("--no-shrink", dest="shrink", action="store_false", help="report each survivor's game as found")
    audit.add_argument("-v", "--verbose", action="store_true", help="list every mutant with the cases that detect it")
    add_format_argument(audit)


def run(args: argparse.Namespace) -> int:
    if args.action == "audit":
        return run_audit(args)
    from escoba.outputs import OutputFolder
    from escoba.transcript.suite import write_suite

    with OutputFolder(args.out, "--out") as out:  # checked before any case is generated
        stale = _generated(out)
        if sys.stderr.isatty():
            print(f"generating cases for {args.ruleset}…", file=sys.stderr)
        suite = write_suite(args.ruleset, out)
        written = {f"{c['id']}.json" for c in suite.cases}
        for name in stale:  # a regeneration replaces the previous suite whole (and nothing else)
            if name not in written:
                out.remove(name)
    if args.format == "json":
        import json

        print(json.dumps({"out": args.out, "cases": [c["id"] for c in suite.cases], "missed": suite.missed}, indent=2))
        return 0
    print(f"wrote {len(suite.cases)} cases and ruleset.json to {args.out}")
    if suite.missed:
        print(f"no generated case exercises: {', '.join(suite.missed)}")
    return 0


def _generated(folder) -> list[str]:
    """Case files a previous `cases generate` wrote in `folder` (generated, naming ruleset.json)."""
    from escoba.inputs import strict_json
    from escoba.transcript.case import MAX_FILE_BYTES

    found = []
    for name in folder.names():
        raw = folder.read(name, MAX_FILE_BYTES) if name.endswith(".json") else None
        try:
            data = strict_json(raw) if raw is not None else None
        except (ValueError, UnicodeDecodeError):
            continue
        if isinstance(data, dict) and data.get("audit") == "generated" and data.get("ruleset") == "ruleset.json":
            found.append(name)
    return found


def run_audit(args: argparse.Namespace) -> int:
    """`escoba cases audit` (see AUDIT_DESCRIPTION)."""
    from escoba.cli.main import worker_count
    from escoba.mutation.audit import bundled_cache, read_cache
    from escoba.mutation.audit import run as audit
    from escoba.mutation.equivalence import Effort
    from escoba.outputs import check_output_file
    from escoba.rules import bundled_ids

    unknown = [r for r in args.ruleset if r not in bundled_ids()]
    if unknown:
        raise UsageError(f"--ruleset {unknown[0]}: not a bundled ruleset (the audit mutates the bundled rulesets: escoba list)")
    if args.check and args.cache is None:
        raise UsageError("--check compares with a cache: give --cache too")
    if args.write and args.ruleset:
        raise UsageError("--write keeps a whole audit: leave out --ruleset")
    for option in ("positions", "games"):
        if getattr(args, option) is not None and getattr(args, option) < 0:
            raise UsageError(f"--{option} must be 0 or more, got {getattr(args, option)}")
    if args.write:
        check_output_file(args.write, "--write")
    out = _audit_out(args.out, "--out") if args.out else None
    suggest = _audit_out(args.suggest, "--suggest") if args.suggest else None
    defaults = Effort()
    effort = Effort(
        defaults.positions if args.positions is None else args.positions,
        defaults.games if args.games is None else args.games,
        min([defaults.declared, *(n for n in (args.positions, args.games) if n is not None)]),
    )  # fmt: skip
    cache = None
    if args.cache is not None:
        from escoba.errors import EscobaError

        try:
            cache = read_cache(args.cache or bundled_cache())
        except EscobaError as problem:
            raise UsageError(f"--cache: {problem}") from None
    say = (lambda line: print(line, file=sys.stderr)) if sys.stderr.isatty() else (lambda line: None)
    result = audit(args.ruleset or None, cache=cache, effort=effort, jobs=worker_count(args.jobs), shrink=args.shrink, say=say)
    written = _write_survivors(result, out) if out is not None else []
    suggested = _write_suggestions(result, suggest, say) if suggest is not None else []
    if args.write:
        import json

        from escoba.outputs import write_atomic

        write_atomic(args.write, json.dumps(result.to_json(), indent=1, ensure_ascii=False) + "\n", option="--write")
    if args.format == "json":
        import json

        print(json.dumps(result.to_json(), indent=1, ensure_ascii=False))
    else:
        from escoba.mutation.report import text

        print(text(result, verbose=args.verbose))
        for path in written:
            print(f"  survivor's case: {path}")
        for path in suggested:
            print(f"  suggested case: {path}")
    if args.check and result.stale:
        print(
            f"escoba cases audit: the cache is not current: {len(result.stale)} mutants changed, came or went "
            "(escoba cases audit --cache --write FILE brings it up to date)",
            file=sys.stderr,
        )
        return 1
    return 0 if result.ok else 1


def _audit_out(folder: str, option: str):
    """A folder of case files, checked before the audit (escoba.outputs.check_output)."""
    from escoba.outputs import OutputFolder

    return OutputFolder(folder, option)


def _write_suggestions(result, folder, say) -> list:
    """Games that bring the short mutants up to the bar, as case files to audit by hand."""
    from escoba.conformance.runner import collect
    from escoba.explore.lockstep import write_case_data
    from escoba.mutation.gaps import short, suggest
    from escoba.mutation.mutants import known_rulesets, mutants

    wanted = set(short(result))
    if not wanted:
        return []
    cases = [e.case for e in collect() if e.case is not None]
    found = [m for m in mutants(known_rulesets(cases), result.rulesets) if m.ident in wanted]
    have = {e.ident: e.cases for e in result.entries}
    return write_case_data(suggest(found, have, result.bar, say=say), folder)


def _write_survivors(result, out) -> list:
    from escoba.explore.lockstep import write_case_data

    cases = []
    for entry in result.survivors:
        case = dict(entry.survivor["case"])
        case["id"] = f"audit.{entry.ident}"
        case["notes"] = [*case.get("notes", []), f"A game telling apart the mutant {entry.label} (escoba cases audit)."]
        cases.append(case)
    return write_case_data(cases, out) if cases else []
