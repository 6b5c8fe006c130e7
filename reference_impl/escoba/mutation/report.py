"""The audit's figures, per rule point and per ruleset, and the text `escoba cases audit` prints.

For each group (a rule point's declaration, `scoring.*.measure`; a bundled ruleset, for the
mutants it makes): how many mutants, how many detected, equivalent and surviving, and the
weakest, the fewest cases that detect one of its detected mutants.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from escoba.mutation.audit import BAR, EQUIVALENT, Audit, figures


def shown_rulesets(names: Sequence[str]) -> str:
    """`fr`, `fr and sv`, `31 rulesets (base, da, …)`."""
    if len(names) <= 3:
        return " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
    return f"{len(names)} rulesets ({', '.join(names[:2])}, …)"


def _table(rows: Sequence[dict[str, Any]], first: str) -> list[str]:
    head = (first, "mutants", "detected", "equivalent", "survivors", "weakest")
    body = [(r["name"], r["mutants"], r["detected"], r["equivalent"], r["survivors"], "—" if r["weakest"] is None else r["weakest"]) for r in rows]
    widths = [max(len(str(x)) for x in col) for col in zip(head, *body)]
    lines = []
    for cells in (head, *body):
        lines.append("  " + "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip())
    return lines


def text(audit: Audit, *, verbose: bool = False) -> str:
    """The report `escoba cases audit` prints."""
    f = figures(audit)
    say: list[str] = []
    out: Callable[[str], None] = say.append
    out(
        f"escoba cases audit: {f['mutants']} mutants of {len(audit.rulesets)} bundled rulesets "
        f"({f['registry']} of the registry's readings, {f['operators']} of the audit's own), over {audit.cases} cases"
    )
    out("")
    out("by rule point:")
    say += _table(f["points"], "rule point")
    out("")
    out("by ruleset (the mutants each makes):")
    say += _table(f["rulesets"], "ruleset")
    equivalent = [e for e in audit.entries if e.verdict == EQUIVALENT]
    out("")
    out(f"equivalent ({len(equivalent)}): no case detects them, and no game told them apart")
    for e in equivalent:
        because = "; ".join(x.rstrip(".") for x in (e.reason, e.why) if x) or "no reason known"
        out(f"  {e.label}")
        out(f"      {because}; {e.games} games under {shown_rulesets(e.origins)}")
    if f["invalid"]:
        out("")
        out(f"{f['invalid']} other readings are no valid ruleset wherever they would apply (refused by the schema or the semantic checks): no mutants")
    weak = sorted(audit.weak, key=lambda e: (e.cases, e.label))
    if weak:
        out("")
        out(f"below the bar ({len(weak)}): detected by fewer than {audit.bar} cases")
        for e in weak:
            out(f"  {e.cases}  {e.label}  ({', '.join(e.by)})")
    if audit.survivors:
        out("")
        out(f"survivors ({len(audit.survivors)}): no case detects them, and a game tells them apart")
        for e in audit.survivors:
            assert e.survivor is not None
            case = e.survivor["case"]
            out(f"  {e.label}")
            out(f"      under {e.survivor['ruleset']}: {len(case.get('expect') or [])} events, {case.get('players')} players (--out DIR writes it)")
    if verbose:
        out("")
        out("every mutant (cases that detect it, verdict):")
        for e in audit.mutants:
            out(f"  {e.cases:4}  {e.verdict:10}  {e.label}")
    out("")
    weakest = f["weakest"]
    if audit.ok:
        out(
            f"OK: no survivor; {f['detected']} mutants detected, each by {audit.bar} cases or more "
            f"(the weakest by {weakest}); {f['equivalent']} equivalent"
        )
    else:
        out(f"FAILED: {len(audit.survivors)} survivors, {len(audit.weak)} mutants detected by fewer than {audit.bar} cases")
    return "\n".join(say)


__all__ = ["BAR", "figures", "text"]
