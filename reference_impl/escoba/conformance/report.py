"""Conformance reports: text for a terminal, JSON for tools (schemas/report.schema.json),
Markdown for a CI summary or a pull request.

Every failure shows the same five things, in the order a person needs them: which rule point
(the case's clause and the divergence class), where the engine still agreed (a few matching
events), the first event that differs, a field-level diff, and the command that replays that
one case.
"""

from __future__ import annotations

from typing import Any

from escoba import __version__
from escoba.conformance.compare import format_event, format_value
from escoba.conformance.runner import OUTCOMES, CaseResult, RunReport

_LABEL = {
    "pass": "PASS",
    "fail": "FAIL",
    "xfail": "XFAIL",
    "unsupported": "UNSUPPORTED",
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
        },
        "ok": report.ok,
        "seconds": round(report.seconds, 3),
        "summary": {"total": len(report.results), **counts, "new": sum(r.new for r in report.results)},
        "warnings": list(report.warnings),
        "cases": [_case_json(r) for r in report.results],
    }


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
        "context": list(r.context),
        "stderr": r.stderr,
        "seconds": round(r.seconds, 4),
        "requests": r.requests,
        "expectation": r.pin.to_json() if r.pin is not None else None,
        "new": r.new,
        "note": r.note,
        "replay": r.replay,
    }


# ---------------------------------------------------------------------------------- text
def render_text(report: RunReport, *, all_cases: bool = False) -> str:
    """Failures in detail, one line for each other case that is not a pass, then the summary."""
    lines = [f"escoba conformance: {_engine_line(report)}"]
    lines += [f"warning: {w}" for w in report.warnings]
    details = [r for r in report.results if _needs_detail(r)]
    for r in report.results:
        if all_cases or r.outcome != "pass" or r.note:
            lines.append(f"  {_LABEL[r.outcome]:<12} {r.id}{_short_status(r)}")
    for r in details:
        lines.append("")
        lines.extend(_details(r))
    lines.append("")
    lines.append(summary_line(report))
    return "\n".join(lines) + "\n"


def summary_line(report: RunReport) -> str:
    counts = report.counts()
    parts = [f"{n} {o}" for o, n in counts.items() if n]
    new = sum(r.new for r in report.results)
    if new:
        parts.append(f"{new} NEW")
    verdict = "OK" if report.ok else "FAILED"
    total = len(report.results)
    return f"{verdict}: {total} case{'' if total == 1 else 's'}: {', '.join(parts) or 'none'} ({report.seconds:.1f} s)"


def _engine_line(report: RunReport) -> str:
    e = report.engine
    name = f"{e.name} {e.version}".strip() or "(no handshake)"
    return f"{name} — {e.command}"


def _needs_detail(r: CaseResult) -> bool:
    return r.outcome in ("fail", "error", "crash", "timeout", "broken-case") or r.new


def _short_status(r: CaseResult) -> str:
    bits = []
    if r.cls:
        bits.append(f"[{r.cls}" + (f" @ event {r.index}]" if r.index is not None else "]"))
    if r.outcome == "unsupported":
        bits.append(r.message)
    if r.note:
        bits.append(f"— {r.note}")
    return ("  " + " ".join(bits)) if bits else ""


def _details(r: CaseResult) -> list[str]:
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
    else:
        if r.cls:
            lines.append(f"  class: {r.cls}")
        lines.append(f"  {r.message}")
        if r.context:
            lines.append("  last events before it:")
            first = (r.index or len(r.context)) - len(r.context)
            lines += [f"    #{first + i} {_clip(format_event(e))}" for i, e in enumerate(r.context)]
    if r.stderr.strip():
        tail = r.stderr.strip().splitlines()[-5:]
        lines.append("  engine stderr (last lines):")
        lines += [f"    | {_clip(t)}" for t in tail]
    if r.replay:
        lines.append(f"  replay: {r.replay}")
    return lines


def _clip(text: str, width: int = 160) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


# ---------------------------------------------------------------------------------- Markdown
def render_markdown(report: RunReport) -> str:
    counts = report.counts()
    out = [f"## Escoba conformance: {'✅ OK' if report.ok else '❌ FAILED'}", ""]
    out.append(f"Engine: `{report.engine.command}` ({_engine_line(report).split(' — ')[0]}), {report.seconds:.1f} s")
    out.append("")
    out.append("| " + " | ".join(o for o in OUTCOMES) + " | total |")
    out.append("|" + "---:|" * (len(OUTCOMES) + 1))
    out.append("| " + " | ".join(str(counts[o]) for o in OUTCOMES) + f" | {len(report.results)} |")
    for w in report.warnings:
        out += ["", f"> warning: {w}"]
    listed = [r for r in report.results if r.outcome != "pass" or r.note]
    if listed:
        out += ["", "| case | outcome | class | clause | note |", "|---|---|---|---|---|"]
        for r in listed:
            extra = r.note or (r.message if r.outcome == "unsupported" else "")
            out.append(f"| `{r.id}` | {r.outcome}{' (NEW)' if r.new else ''} | {r.cls or ''} | {r.clause} | {_md(extra)} |")
    details = [r for r in report.results if _needs_detail(r)]
    if details:
        out += ["", "### Failures"]
        for r in details:
            out += ["", f"#### `{r.id}` — {r.outcome}", "", "```text", *_details(r)[1:], "```"]
    return "\n".join(out) + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
