"""What the DSL cannot say yet: the rules the bundled rulesets record as `unsupported`.

Each ruleset lists the rules its sources state that no key of the language can say, with why
(`note`) and the closest rule that can be written (`closest`). Here they are gathered, one
entry per rule id, for docs/house-rules.md's section of that name: a test compares the section
with `markdown()`, so the page changes when a list does. `python -m escoba.diff.unsupported`
prints it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Unplayable:
    """One rule id, as the first bundled ruleset that records it words it, and who records it."""

    id: str
    said: str  # the rule in English: the gloss of its source's words (else the words, or the note)
    why: str
    closest: str
    defined_by: list[str] = field(default_factory=list)  # rulesets whose own file records it
    inherited_by: list[str] = field(default_factory=list)


def collect() -> list[Unplayable]:
    """Every rule id recorded as unsupported by a bundled ruleset, in the order first met."""
    from escoba.diff.structural import Recorded
    from escoba.rules import bundled_ids, load_resolved

    found: dict[str, Unplayable] = {}
    for ruleset in bundled_ids():
        resolved = load_resolved(ruleset)
        own = resolved.files[-1].data
        own_ids = {str(item.get("id")) for item in own.get("unsupported") or [] if isinstance(item, dict) and not item.get("remove")}
        for item in resolved.doc.get("unsupported") or []:
            rid = str(item["id"])
            entry = found.get(rid)
            if entry is None:
                entry = found[rid] = Unplayable(rid, Recorded.of("a", item).text, _words(item.get("note")), _words(item.get("closest")))
            (entry.defined_by if rid in own_ids else entry.inherited_by).append(ruleset)
    return list(found.values())


def markdown(entries: list[Unplayable] | None = None) -> str:
    """The section's body: an entry per rule, what it says, why not, and the closest rule."""
    lines: list[str] = []
    for entry in collect() if entries is None else entries:
        who = ", ".join(f"`{r}`" for r in entry.defined_by)
        if entry.inherited_by:
            n = len(entry.inherited_by)
            who += f" (and {n} ruleset{'s' if n != 1 else ''} extending {'it' if len(entry.defined_by) == 1 else 'them'})"
        lines += [
            f"#### `{entry.id}`",
            "",
            f"Recorded by {who}. {entry.said}",
            "",
            f"- **Why not:** {entry.why or '—'}",
            f"- **Closest:** {entry.closest or '—'}",
            "",
        ]
    return "\n".join(lines)


def _words(text: Any) -> str:
    return " ".join(str(text).split()) if text else ""


if __name__ == "__main__":
    print(markdown(), end="")
