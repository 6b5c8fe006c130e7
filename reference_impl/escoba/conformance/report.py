"""Conformance reports: text for a terminal, JSON for tools (schemas/report.schema.json),
Markdown for a CI summary or a pull request.

Every failure shows the same things, in the order a person needs them: which rule point (the
case's clause, the divergence class and the rule point it was attributed to), where the engine
still agreed (a few matching events), the first event that differs, a field-level diff, the
later divergences (with `--all-divergences`; always in JSON), and the command that replays that
one case.

Then the two answers, never mixed (docs/conformance.md): first the engine's **bugs**, each
departure from the rules it plays with its rule point (or "no rule point explains it"), its
cases and the command that replays the first (conformance/bugs.py), and the rules profile
(escoba.conformance.profile): every rule point the engine agrees with, differs on, does not
claim, or was not exercised on; then, for an engine that declares its rules, its **variant**:
how those rules differ from each regional ruleset, with the sources' sentences, which is
information, not failure (conformance/variant.py).
"""

from __future__ import annotations

from typing import Any

from escoba.conformance.compare import format_event, format_value
from escoba.conformance.runner import OUTCOMES, CaseResult, RunReport
from escoba.escape import terminal
from escoba.version import __version__

NAME_LIMIT = 200  # characters of an engine's name and version shown

_LABEL = {
    "pass": "PASS",
    "fail": "FAIL",
    "xfail": "XFAIL",
    "unsupported": "SKIP",
    "error": "ERROR",
    "crash": "CRASH",
    "timeout": "TIMEOUT",
    "broken-case": "BROKEN-CASE",
}


# ---------------------------------------------------------------------------------- JSON
def to_json(report: RunReport) -> dict[str, Any]:
    counts = report.counts()
    return {
        "format": 1,
        "escoba": __version__,
        "engine": {
            "command": report.engine.command,
            "name": report.engine.name,
            "version": report.engine.version,
            "features": list(report.engine.features),
            "rules": report.engine.rules,
        },
        "ok": report.ok,
        "strict": report.strict,
        "seconds": round(report.seconds, 3),
        "summary": {"total": len(report.results), **counts, "new": sum(r.new for r in report.results), "ran": report.ran},
        "why": report.why_nothing_ran(),
        "rules": _rules_json(report),
        "warnings": list(report.warnings),
        "cases": [_case_json(r) for r in report.results],
        "bugs": [b.to_json() for b in report.bugs()],
        "profile": [p.to_json() for p in report.profile()],
        "variant": variant.to_json() if (variant := report.variant()) is not None else None,
    }


def _rules_json(report: RunReport) -> dict[str, Any] | None:
    if report.rules is None:
        return None
    return {**report.rules.to_json(), "label": report.rules.label(), "said": report.rules.said()}


def _case_json(r: CaseResult) -> dict[str, Any]:
    return {
        "id": r.id,
        "outcome": r.outcome,
        "observed": r.observed,
        "title": r.title,
        "kind": r.kind,
        "ruleset": r.ruleset,
        "clause": r.clause,
        "class": r.cls,
        "index": r.index,
        "message": r.message,
        "missing": list(r.missing),
        "divergence": r.divergence.to_json() if r.divergence is not None else None,
        "divergences": [d.to_json() for d in r.divergences],
        "notes": list(r.notes),
        "requires": list(r.requires),
        "context": list(r.context),
        "stderr": r.stderr,
        "seconds": round(r.seconds, 4),
        "requests": r.requests,
        "expectation": r.pin.to_json() if r.pin is not None else None,
        "new": r.new,
        "note": r.note,
        "replay": r.replay,
        "scenario": _scenario_json(r.scenario),
    }


def _scenario_json(scenario: Any) -> dict[str, Any] | None:
    """What became of a case as a scenario under declared rules (None: run as the case is)."""
    if scenario is None:
        return None
    return {"substitutions": scenario.substitutions, "pins_checked": scenario.pins_checked,
            "pins_skipped": scenario.pins_skipped, "pins_broken": list(scenario.pins_broken), "notes": list(scenario.notes)}  # fmt: skip


# ---------------------------------------------------------------------------------- text
def render_text(report: RunReport, *, all_cases: bool = False, all_divergences: bool = False, verbosity: int = 0) -> str:
    """Failures in detail, one line for each other case that is not a pass, the bugs and the
    rules profile, the variant (for an engine that declares its rules), then the summary.
    `verbosity` -1 (`-q`): the failing cases' lines, the bugs' titles, the profile's count and
    the summary; 1 (`-v`): every case, and every point of the profile."""
    all_cases = all_cases or verbosity > 0
    lines = [f"escoba conformance: {_engine_line(report)}"]
    if report.rules is not None:
        lines.append(f"rules: {report.rules.label()}, declared by {report.rules.said()}")
    lines += [f"warning: {w}" for w in report.warnings]
    details = [r for r in report.results if _needs_detail(r)] if verbosity >= 0 else []
    for r in report.results:
        quiet_skip = verbosity < 0 and r.outcome in ("pass", "xfail", "unsupported") and not r.new
        if (all_cases or r.outcome != "pass" or r.note) and not quiet_skip:
            lines.append(f"  {_LABEL[r.outcome]:<12} {r.id}{_short_status(r)}")
    for r in details:
        lines.append("")
        lines.extend(case_details(r, all_divergences=all_divergences))
    lines.append("")
    lines.extend(render_bugs(report, brief=verbosity < 0))
    lines.append("")
    profile = render_profile(report.profile(), every=verbosity > 0)
    lines.extend(profile if verbosity >= 0 else profile[:1])
    variant = report.variant()
    if variant is not None:
        lines.append("")
        lines.extend(render_variant(variant, brief=verbosity < 0))
    lines.append("")
    lines.append(summary_line(report))
    # Each line escaped as a whole: what an engine or a case file said in it (a name, a
    # message, an id) can neither run on the terminal nor break the line into two.
    return "\n".join(map(terminal, lines)) + "\n"


def render_bugs(report: RunReport, *, brief: bool = False) -> list[str]:
    """The first answer: each kind of departure, with its rule point, cases and replay command."""
    bugs = report.bugs()
    whose = "the declared rules" if report.rules is not None else "each case's rules"
    if not bugs:
        ran = "in every case that ran" if report.ran else "(no case ran)"
        return [f"bugs: none: the engine plays {whose} {ran}"]
    lines = [f"bugs: {len(bugs)} kind{'s' if len(bugs) != 1 else ''} of departure from {whose}"]
    said = "declared" if report.rules is not None else "the case's rules"
    for n, bug in enumerate(bugs, 1):
        declared = f" ({said}: {bug.declared})" if bug.declared else ""
        count = len(bug.cases)
        lines.append(f"  {n}. {bug.title}{declared}: {count} case{'s' if count != 1 else ''}")
        if brief:
            continue
        lines.append(f"     first: {bug.cases[0]} {_clip(bug.example(), 150)}")
        if bug.shrunk is not None:
            lines.append(f"     shrunk: {bug.shrunk['file']} ({bug.shrunk['events']} events)")
            lines.append(f"     replay: {bug.shrunk['replay']}")
        elif bug.replay:
            lines.append(f"     replay: {bug.replay}")
        if report.rules is not None and bug.explained is None and (bug.point or "").startswith("scoring."):
            # Only the author can tell a bug from a rule the DSL cannot say.
            lines.append(f"     if the engine means it and no key can say it: declare {bug.point} not expressible "
                         "(docs/conformance.md, section 3)")  # fmt: skip
    return lines


def render_variant(variant: Any, *, brief: bool = False, shown: int = 3) -> list[str]:
    """The second answer: the declared rules next to the regional rulesets, closest first, the
    closest with the sources' sentences; then what the run saw played otherwise."""
    lines = [f"variant: {variant.rules.label()} next to the regional rulesets (information, not a failure)"]
    for k, c in enumerate(variant.comparisons):
        n = len(c.rows)
        head = f"  {c.id} ({c.kind}): " + ("the same rules" if not n else f"{n} point{'s differ' if n != 1 else ' differs'}")
        if k == 0 and not brief:
            lines.append(head + (":" if n else ""))
            for row in c.rows:
                said = f" — “{_clip(row.quote, 110)}”" if row.quote else ""
                gloss = f" ({_clip(row.gloss, 110)})" if row.gloss else ""
                lines.append(f"    {row.key}: yours {_clip(row.yours, 60)}; {c.id} {_clip(row.theirs, 60)}{said}{gloss}")
        elif k < shown or not brief:
            keys = ", ".join(row.key for row in c.rows)
            lines.append(head + (f": {_clip(keys, 150)}" if n else ""))
    for u in variant.unsaid:
        lines.append(f"  not expressible: {u.point} ({u.id}): {_clip(u.note, 150)}")
        lines.append(f"    compared around it: {u.compared()}")
    for o in variant.observed:
        declared = f" (declared: {o.declared})" if o.declared else ""
        lines.append(f"  seen in this run: {o.point} played as if {o.inferred}{declared}, in {o.cases} case{'s' if o.cases != 1 else ''}: "
                     "a bug, or a rule to declare")  # fmt: skip
    return lines


def render_profile(profile: list, *, every: bool = False) -> list[str]:
    """The rules profile as text: a count, each point that differs, the points not exercised
    (`every`: each point that agrees too)."""
    from escoba.conformance.profile import DIFFERS, NOT_CLAIMED, NOT_EXERCISED, counts

    n = counts(profile)
    unclaimed = f", {n[NOT_CLAIMED]} not claimed" if n[NOT_CLAIMED] else ""
    head = f"rules profile: {n['agrees']} agree, {n[DIFFERS]} differ{unclaimed}, {n[NOT_EXERCISED]} not exercised"
    lines = [head]
    for p in profile:
        if every and p.status != DIFFERS:
            lines.append(f"  {p.status.upper():<8} {p.point} ({p.label}): {len(p.agree)} case{'' if len(p.agree) == 1 else 's'}")
        if p.status != DIFFERS:
            continue
        how = f", as if {' / '.join(p.inferred)}" if p.inferred else ""
        cases = len(p.differ)
        example = p.example or {}
        lines.append(f"  DIFFERS  {p.point} ({p.label}): {cases} case{'' if cases == 1 else 's'}{how}")
        if example:
            lines.append(f"           first: {example.get('case')} {_clip(str(example.get('message', '')), 120)}")
    unclaimed_points = [p for p in profile if p.status == NOT_CLAIMED]
    for p in unclaimed_points:
        cases = len(p.unclaimed)
        lines.append(f"  NOT CLAIMED {p.point}: the engine declares {', '.join(p.declared or ())}; "
                     f"{cases} case{'' if cases == 1 else 's'} needing another value not run")  # fmt: skip
    idle = [p.point for p in profile if p.status == NOT_EXERCISED]
    if idle and not every:
        lines.append(f"  not exercised: {', '.join(idle)}")
    return lines


def summary_line(report: RunReport) -> str:
    counts = report.counts()
    parts = [f"{n} {o}" if o != "unsupported" else f"{n} skipped (unsupported)" for o, n in counts.items() if n]
    new = sum(r.new for r in report.results)
    if new:
        parts.append(f"{new} NEW")
    verdict = "OK" if report.ok else "FAILED"
    total = len(report.results)
    why = ""
    if not report.ok and report.ran == 0:
        why = f"; {report.why_nothing_ran()}"
    elif report.strict and counts["unsupported"] and not report.ok:
        why = "; --strict: skips fail"
    return f"{verdict}: {total} case{'' if total == 1 else 's'}: {', '.join(parts) or 'none'}{why} ({report.seconds:.1f} s)"


def engine_name(report: RunReport) -> str:
    """The engine's name and version as it said them in `hello` (cut short), else its command."""
    e = report.engine
    return terminal(f"{e.name} {e.version}".strip(), NAME_LIMIT) or e.command


def _engine_line(report: RunReport) -> str:
    e = report.engine
    name = terminal(f"{e.name} {e.version}".strip(), NAME_LIMIT) or "(no handshake)"
    return f"{name} — {e.command}"


def _needs_detail(r: CaseResult) -> bool:
    return r.outcome in ("fail", "error", "crash", "timeout", "broken-case") or r.new


def _short_status(r: CaseResult) -> str:
    bits = []
    if r.cls:
        bits.append(f"[{r.cls}" + (f" @ event {r.index}]" if r.index is not None else "]"))
    if r.divergence is not None and r.divergence.point:
        bits.append(r.divergence.point if r.divergence.explained else f"{r.divergence.point} (no rule point explains it)")
    if r.outcome == "unsupported":
        bits.append(f"unsupported: {r.message}")
    if r.note:
        bits.append(f"— {r.note}")
    return ("  " + " ".join(bits)) if bits else ""


def case_details(r: CaseResult, *, all_divergences: bool = False) -> list[str]:
    head = f"{_LABEL[r.outcome]} {r.id}"
    if r.title:
        head += f" — {r.title}"
    lines = [head]
    if r.clause or r.ruleset:
        lines.append(f"  rule clause: {r.clause or '?'} (ruleset {r.ruleset or '?'}, {r.kind or '?'} case)")
    if r.note:
        lines.append(f"  {r.note}")
    d = r.divergence
    if d is not None:
        if d.point and d.explained:
            lines.append(f"  rule point: {d.point}" + (f" (the engine behaves as if {d.inferred})" if d.inferred else ""))
        else:
            lines.append(f"  rule point: no rule point explains it ({d.cls}" + (f"; it concerns {d.point}" if d.point else "") + ")")
        lines.append(f"  class: {d.cls}; first divergent event: #{d.index}")
        if d.context:
            lines.append("  matching events before it:")
            first = d.index - len(d.context)
            lines += [f"    #{first + i} {_clip(format_event(e))}" for i, e in enumerate(d.context)]
        lines.append(f"  expected #{d.index}: {_clip(format_event(d.expected))}")
        lines.append(f"  observed #{d.index}: {_clip(format_event(d.observed))}")
        if d.diff:
            lines.append("  diff:")
            for f in d.diff:
                note = f"  ({f.note})" if f.note else ""
                if f.note and isinstance(f.expected, list):  # missing/extra says it better than two long lists
                    lines.append(f"    {f.path}: {f.note}")
                else:
                    lines.append(f"    {f.path}: expected {_clip(format_value(f.expected), 80)}, observed {_clip(format_value(f.observed), 80)}{note}")
        later = [x for x in r.divergences if x.index != d.index or x.expected != d.expected]
        if later and all_divergences:
            lines.append(f"  later divergences ({len(later)}):")
            lines += [f"    {_divergence_line(x)}" for x in later]
        elif later:
            lines.append(f"  and {len(later)} later divergence{'' if len(later) == 1 else 's'} (--all-divergences lists them)")
    else:
        if r.cls:
            lines.append(f"  class: {r.cls}")
        lines += [f"  {line}" for line in r.message.splitlines() or [""]]
        if r.context:
            lines.append("  last events before it:")
            first = (r.index or len(r.context)) - len(r.context)
            lines += [f"    #{first + i} {_clip(format_event(e))}" for i, e in enumerate(r.context)]
    for note in r.notes:
        lines.append(f"  note: {note}")
    if r.stderr.strip():
        lines.append("  engine stderr (last lines):")
        lines += [f"    | {_clip(t)}" for t in stderr_tail(r.stderr)]
    if r.replay:
        lines.append(f"  replay: {r.replay}")
    return [terminal(line) for line in lines]


def _divergence_line(d) -> str:
    from escoba.conformance.attribute import explained_text

    where = f"#{d.index} {d.cls}"
    point = f" [{explained_text(d)}" + (f"; {d.resync}" if d.resync else "") + "]"
    if d.observed is None:
        what = f"missing {format_event(d.expected)}"
    elif d.expected is None:
        what = f"extra {format_event(d.observed)}"
    else:
        what = "; ".join(f"{f.path}: {f.note}" if f.note else f"{f.path}: expected {format_value(f.expected)}, observed {format_value(f.observed)}" for f in d.diff[:3])
    return _clip(f"{where}{point}: {what}", 200)


#: what makes a line of an engine's stderr look like the one that names the problem
_ERRORISH = ("error", "exception", "cannot", "can't", "not found", "no such", "fatal", "panic", "failed", "traceback")
STDERR_BUDGET = 2048  # bytes of an engine's stderr a report shows


def did_not_start(command: str, failure: Any) -> str:
    """One line for an engine that did not get as far as answering `hello`: the command, what
    went wrong, and the line of its stderr that names the problem (not a stack frame)."""
    lines = [line.strip() for line in (failure.stderr or "").splitlines() if line.strip()]
    named = [
        line for line in lines
        if any(word in line.lower() for word in _ERRORISH) and not line.startswith(("Traceback", "File ", "at "))
    ]  # fmt: skip
    said = named[0] if named else lines[-1] if lines else ""
    why = failure.message + (f"; it said: {_clip(said, 200)}" if said else "")
    return f"the engine did not start ({command}): {why}"


def stderr_tail(text: str, budget: int = STDERR_BUDGET) -> list[str]:
    """The last lines of an engine's stderr that fit in `budget` bytes, and, when it is not among
    them, the first line that looks like an error (the one that names the problem, such as
    Node's `Error: Cannot find module ...`, is often far above a long stack trace)."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    tail: list[str] = []
    used = 0
    for line in reversed(lines):
        size = len(line.encode("utf-8", "replace")) + 1
        if tail and used + size > budget:
            break
        tail.insert(0, line if size <= budget else line[: budget // 2] + "…")
        used += size
    first = next((line for line in lines if any(word in line.lower() for word in _ERRORISH)), None)
    if first is not None and first not in tail:
        return [first, "…", *tail]
    if len(tail) < len(lines):
        return ["…", *tail]
    return tail


def _clip(text: str, width: int = 160) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


# ---------------------------------------------------------------------------------- several engines
def render_grid(reports: list[RunReport], markdown: bool = False) -> str:
    """Several engines on the same cases: one row per engine, a column per outcome and the rule
    points each differs on, like a compatibility table."""
    from escoba.conformance.profile import DIFFERS

    head = ["engine", *OUTCOMES, "differs on", "ok"]
    rows = []
    for report in reports:
        counts = report.counts()
        differs = [p.point for p in report.profile() if p.status == DIFFERS]
        name = engine_name(report)
        rows.append([name, *(str(counts[o]) for o in OUTCOMES), ", ".join(differs) or "—", "yes" if report.ok else "NO"])
    if markdown:
        out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        out += ["| " + " | ".join(_md(c) for c in row) + " |" for row in rows]
        return "\n".join(map(terminal, out)) + "\n"
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
    widths[-2] = min(widths[-2], 60)
    line = lambda cells: "  ".join(_clip(str(c), widths[i]).ljust(widths[i]) for i, c in enumerate(cells)).rstrip()
    return "\n".join([line(head), *(line(r) for r in rows)]) + "\n"


# ---------------------------------------------------------------------------------- Markdown
def render_markdown(report: RunReport) -> str:
    counts = report.counts()
    out = [f"## Escoba conformance: {'✅ OK' if report.ok else '❌ FAILED'}", ""]
    out.append(f"Engine: `{report.engine.command}` ({_engine_line(report).split(' — ')[0]}), {report.seconds:.1f} s")
    if report.rules is not None:
        out += ["", f"Rules: {_md(report.rules.label())}, declared by {_md(report.rules.said())}"]
    out.append("")
    out.append("| " + " | ".join(o for o in OUTCOMES) + " | total |")
    out.append("|" + "---:|" * (len(OUTCOMES) + 1))
    out.append("| " + " | ".join(str(counts[o]) for o in OUTCOMES) + f" | {len(report.results)} |")
    why = report.why_nothing_ran()
    if why:
        out += ["", f"> {_md(why)}"]
    for w in report.warnings:
        out += ["", f"> warning: {_md(w)}"]
    listed = [r for r in report.results if r.outcome != "pass" or r.note]
    if listed:
        out += ["", "| case | outcome | class | clause | note |", "|---|---|---|---|---|"]
        for r in listed:
            extra = r.note or (r.message if r.outcome == "unsupported" else "")
            out.append(f"| `{r.id}` | {r.outcome}{' (NEW)' if r.new else ''} | {r.cls or ''} | {r.clause} | {_md(extra)} |")
    from escoba.conformance.profile import DIFFERS

    out += ["", "### Bugs", ""]
    bugs = report.bugs()
    if not bugs:
        out.append("None: the engine plays " + ("its declared rules" if report.rules is not None else "each case's rules") + " in every case that ran.")
    else:
        out += [f"| # | departure | {'declared' if report.rules is not None else 'the case rules'} | cases | first | replay |", "|---:|---|---|---:|---|---|"]
        for n, bug in enumerate(bugs, 1):
            replay = bug.shrunk["replay"] if bug.shrunk is not None else bug.replay
            out.append(f"| {n} | {_md(bug.title)} | {_md(bug.declared or '')} | {len(bug.cases)} | `{bug.cases[0]}` {_md(_clip(bug.example(), 120))} | `{_md(replay)}` |")
    profile = report.profile()
    out += ["", f"**Rules profile:** {render_profile(profile)[0].split(': ', 1)[1]}"]
    differing = [p for p in profile if p.status == DIFFERS]
    if differing:
        out += ["", "| rule point | cases | first |", "|---|---:|---|"]
        for p in differing:
            first = p.example or {}
            out.append(f"| `{p.point}` ({_md(p.label)}) | {len(p.differ)} | `{first.get('case', '')}` {_md(str(first.get('message', '')))} |")
    variant = report.variant()
    if variant is not None:
        out += ["", "### Variant", "", f"{_md(variant.rules.label())} next to the regional rulesets: information, not a failure.", ""]
        closest = variant.closest
        if closest is not None and closest.rows:
            out += [f"Closest: `{closest.id}` ({len(closest.rows)} points differ).", "",
                    "| rule point | yours | " + _md(closest.id) + " | the source says |", "|---|---|---|---|"]  # fmt: skip
            for row in closest.rows:
                said = row.quote + (f" ({row.gloss})" if row.gloss else "") if row.quote else ""
                out.append(f"| `{row.key}` | {_md(row.yours)} | {_md(row.theirs)} | {_md(_clip(said, 200))} |")
        elif closest is not None:
            out.append(f"The same rules as `{closest.id}`.")
        others = [c for c in variant.comparisons[1:]]
        if others:
            out += ["", "| ruleset | points that differ |", "|---|---|"]
            out += [f"| `{c.id}` ({c.kind}) | {len(c.rows)}: {_md(', '.join(r.key for r in c.rows))} |" for c in others]
        if variant.unsaid:
            out += ["", "Declared not expressible (the rules cannot write them; what depends on them only is not compared):", ""]
            out += [f"- `{u.point}` ({_md(u.id)}): {_md(u.note)} Compared around it: {_md(u.compared())}." for u in variant.unsaid]
        if variant.observed:
            out += ["", "Seen in this run (a bug, or a rule to declare):", ""]
            out += [f"- `{o.point}` played as if {_md(o.inferred)}" + (f" (declared: {_md(o.declared)})" if o.declared else "") + f", in {o.cases} case(s)" for o in variant.observed]
    details = [r for r in report.results if _needs_detail(r)]
    if details:
        out += ["", "### Failures"]
        for r in details:
            out += ["", f"#### `{r.id}` — {r.outcome}", "", "```text", *case_details(r)[1:], "```"]
    return "\n".join(map(terminal, out)) + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
