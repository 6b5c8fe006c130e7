"""`escoba diff` as text, Markdown or JSON, and as a chart.

The three views are built elsewhere (`structural`, `rescore`, `compare_sim`); this module only
lays them out. The JSON keys are stable: tools read them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from escoba.diff.compare_sim import Comparison, Row
from escoba.diff.points import Citation
from escoba.diff.rescore import Tally, role_name
from escoba.diff.structural import StructuralDiff

FORMAT = 1


@dataclass(frozen=True)
class Games:
    """Where view 2's games come from."""

    kind: str  # bots | transcript
    hands: int
    players: int
    seed: int
    bots: tuple[str, ...]
    transcript: str | None = None
    rescored: bool = False  # True: no rule shaping play differs, piles were rescored directly
    note: str | None = None  # why view 2 or 3 was skipped


@dataclass(frozen=True)
class Report:
    structural: StructuralDiff
    games: Games | None
    tally: Tally | None
    simulation: Comparison | None

    # ------------------------------------------------------------------ JSON
    def to_json(self) -> dict[str, Any]:
        s = self.structural
        out: dict[str, Any] = {
            "format": FORMAT,
            "a": s.a.to_json(),
            "b": s.b.to_json(),
            "structural": s.to_json(),
            "rescore": None,
            "simulation": None,
        }
        if self.games is not None and self.tally is not None:
            out["rescore"] = _rescore_json(self.games, self.tally)
        if self.simulation is not None:
            out["simulation"] = self.simulation.to_json()
        return out


def _rescore_json(games: Games, tally: Tally) -> dict[str, Any]:
    n = tally.replayed
    return {
        "games": games.kind,
        "transcript": games.transcript,
        "players": games.players,
        "seed": games.seed if games.kind == "bots" else None,
        "bots": list(games.bots) if games.kind == "bots" else None,
        "method": "rescored" if games.rescored else "replayed",
        "hands": tally.hands,
        "replayed": tally.replayed,
        "not_replayed": [
            {"reason": kind, "hands": count, "examples": tally.examples.get(kind, [])}
            for kind, count in sorted(tally.failures.items())
        ],
        "same_sides": tally.same_sides,
        "categories": [
            {
                "id": cat,
                "a_points_per_hand": _ratio(tally.points_a[k], n),
                "b_points_per_hand": _ratio(tally.points_b[k], n),
                "hands_changed": tally.changed[k],
                "flows": [
                    {"from": role_name(src, tally.sides), "to": role_name(dst, tally.sides), "hands": h, "points": p}
                    for (src, dst), (h, p) in sorted(tally.flows[k].items())
                ],
            }
            for k, cat in enumerate(tally.categories)
        ],
        "total": {"a_points_per_hand": _ratio(tally.total_a, n), "b_points_per_hand": _ratio(tally.total_b, n)},
        "winner_changed": {"hands": tally.winner_changed, "share": _ratio(tally.winner_changed, n)},
    }


def _ratio(x: int, n: int) -> float | None:
    return x / n if n else None


# --------------------------------------------------------------------------- tables
def text_table(headers: Sequence[str], rows: Sequence[Sequence[str]], indent: str = "  ") -> str:
    widths = [len(h) for h in headers]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))
    lines = [indent + "  ".join(h.ljust(widths[i]) for i, h in enumerate(headers)).rstrip()]
    lines.append(indent + "  ".join("-" * w for w in widths))
    for row in rows:
        lines.append(indent + "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip())
    return "\n".join(lines) + "\n"


def md_cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def md_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(md_cell(h) for h in headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(md_cell(c) for c in row) + " |")
    return "\n".join(lines) + "\n"


def _cite(c: Citation | None) -> str:
    return c.short() if c is not None else "—"


def _sources(structural: StructuralDiff) -> list[str]:
    seen: dict[str, str] = {}
    for d in structural.differences:
        for side in (d.a, d.b):
            c = side.citation
            if c is not None and c.source.endswith(".txt"):
                seen.setdefault(c.source.split("_", 1)[0], c.source)
    return [f"{k} = spec/sources/{v}" for k, v in sorted(seen.items())]


def _num(x: float | None, digits: int = 3) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def _est(e: Any, percent: bool = False) -> str:
    if e is None:
        return "—"
    if percent:
        return f"{100 * e.mean:.1f}%" + ("" if e.half is None else f" ± {100 * e.half:.1f}")
    return f"{e.mean:.3f}" + ("" if e.half is None else f" ± {e.half:.3f}")


# --------------------------------------------------------------------------- text and Markdown
def render(report: Report, markdown: bool = False) -> str:
    """The whole report: text for a terminal, or Markdown for an issue."""
    s = report.structural
    a, b = s.a.id, s.b.id
    table = md_table if markdown else text_table
    out: list[str] = []

    def heading(text: str, level: int = 2) -> None:
        if markdown:
            out.append(f"{'#' * level} {text}\n\n")
        else:
            out.append(f"{text}\n{'=' * len(text) if level <= 2 else '-' * len(text)}\n")

    def para(text: str) -> None:
        out.append(text + "\n\n" if markdown else "  " + text + "\n")

    def blank() -> None:
        if not markdown:
            out.append("\n")

    if markdown:
        out.append(f"# `escoba diff {a} {b}`\n\n")
    else:
        out.append(f"escoba diff {a} {b}\n\n")
    out.append(table(["", "ruleset", "title", "file"], [["A", a, s.a.title, s.a.file], ["B", b, s.b.title, s.b.file]]))
    out.append("\n")

    # 1. structural
    heading(f"1. Rules that differ: {len(s.differences)} of {s.compared} points")
    if s.same:
        para("None: the two rulesets take the same position on every point (titles, comments and citations aside).")
    for _cid, title, diffs in s.by_concern():
        if not diffs:
            continue
        heading(title, 3)
        rows = [[d.label, d.a.text, d.b.text, _cite(d.a.citation), _cite(d.b.citation)] for d in diffs]
        out.append(table(["point", a, b, f"{a} cites", f"{b} cites"], rows))
        out.append("\n")
    sources = _sources(s)
    if sources:
        para("Citations: status · source (← the ruleset the citation is inherited from); " + "; ".join(sources) + ".")
        blank()

    # 2. rescoring
    if report.games is not None:
        _render_rescore(report, out, heading, para, blank, table)

    # 3. simulation
    if report.simulation is not None:
        _render_simulation(report, out, heading, para, blank, table)
    text = "".join(out)
    return text.rstrip("\n") + "\n"


def _render_rescore(report: Report, out: list[str], heading: Any, para: Any, blank: Any, table: Any) -> None:
    games, tally = report.games, report.tally
    assert games is not None
    a, b = report.structural.a.id, report.structural.b.id
    heading("2. The same games scored both ways")
    if games.kind == "transcript":
        source = f"{games.hands} hand{'s' if games.hands != 1 else ''} from {games.transcript}, played under {a}"
    else:
        bots = ",".join(games.bots)
        source = f"{games.hands} hands played under {a} by {bots} bots ({games.players} players, seed {games.seed})"
    if tally is None:
        para(f"{source}: {games.note or 'not replayed'}.")
        return
    how = (
        "no rule that shapes play differs at this table, so every hand replays and its piles are rescored"
        if games.rescored
        else "each hand replayed move by move"
    )
    para(f"{source}, replayed under {b} ({how}): {tally.replayed} of {tally.hands} hands replayed.")
    blank()
    if tally.failures:
        rows = []
        for kind, count in sorted(tally.failures.items(), key=lambda kv: -kv[1]):
            examples = tally.examples.get(kind, [])
            rows.append([_FAILURE.get(kind, kind), str(count), examples[0] if examples else ""])
        out.append(table(["not replayed", "hands", "first example (play k: seat, move: the rule it breaks under B)"], rows))
        out.append("\n")
        more = [e for kind in sorted(tally.failures) for e in tally.examples.get(kind, [])[1:3]]
        if more:
            para("More examples: " + "; ".join(more) + ".")
            blank()
    n = tally.replayed
    if n:
        rows = []
        for k, cat in enumerate(tally.categories):
            flows = sorted(tally.flows[k].items(), key=lambda kv: (-kv[1][1], kv[0]))
            moved = "; ".join(
                f"{role_name(src, tally.sides)} → {role_name(dst, tally.sides)}: {p} pts in {h} hands"
                for (src, dst), (h, p) in flows[:3]
            )
            if len(flows) > 3:
                moved += f"; … ({len(flows) - 3} more)"
            changed = f"{tally.changed[k]} ({100 * tally.changed[k] / n:.1f}%)"
            rows.append([cat, _num(tally.points_a[k] / n), _num(tally.points_b[k] / n), changed, moved or "—"])
        rows.append(["all points", _num(tally.total_a / n), _num(tally.total_b / n), "", ""])
        out.append(table(["category", f"{a} pts/hand", f"{b} pts/hand", "hands changed", "points moved"], rows))
        out.append("\n")
        para(f"The hand's winner changes in {tally.winner_changed} of {n} replayed hands "
             f"({100 * tally.winner_changed / n:.1f}%).")  # fmt: skip
        if not tally.same_sides:
            para(f"{a} and {b} score different sides at {games.players} players (partnerships or not); "
                 "points are compared for all sides together and no flows are given.")  # fmt: skip
        elif tally.sides > 1:
            para("Sides are named from the dealer: dealer's side, then dealer+1, … in the direction of play.")
        blank()


_FAILURE = {
    "players": "player count not allowed",
    "deck": "different deck",
    "deal": "different deal",
    "opening": "different opening table",
    "turn": "different turn order",
    "illegal": "illegal move",
}


def _render_simulation(report: Report, out: list[str], heading: Any, para: Any, blank: Any, table: Any) -> None:
    sim = report.simulation
    assert sim is not None
    a, b = report.structural.a.id, report.structural.b.id
    heading("3. Each ruleset on its own, from the same seeds")
    bots = ",".join(sim.bots)
    matches = f" and {sim.matches} matches" if sim.matches else ""
    para(f"{sim.hands} hands{matches} per ruleset, {sim.players} players, {bots} bots, seed {sim.seed}; "
         "means per hand (all sides together) with 95% intervals; overlapping intervals are within noise.")  # fmt: skip
    for side, name in ((sim.a, a), (sim.b, b)):
        if side.reason:
            para(f"{name} not played: {side.reason}.")
    blank()
    rows = [[r.label, _est(r.a), _est(r.b), _verdict(r, a, b)] for r in sim.per_hand]
    out.append(table(["per hand", a, b, "difference"], rows))
    out.append("\n")
    if sim.per_match:
        rows = [
            [r.label, _est(r.a, percent=r.key != "hands_per_match"), _est(r.b, percent=r.key != "hands_per_match"),
             _verdict(r, a, b)]
            for r in sim.per_match
        ]  # fmt: skip
        out.append(table(["per match", a, b, "difference"], rows))
        out.append("\n")


def _verdict(row: Row, a: str, b: str) -> str:
    v = row.verdict
    if v == "higher under B":
        return f"higher under {b}"
    if v == "lower under B":
        return f"lower under {b}"
    if v == "only A":
        return f"only {a}"
    if v == "only B":
        return f"only {b}"
    return v


# --------------------------------------------------------------------------- chart
class PlotUnavailable(Exception):
    """matplotlib is not installed."""


PLOT_HINT = "--plot needs matplotlib, which escoba installs only on request: pip install 'escoba[plot]'"


def check_plot() -> None:
    """Raise PlotUnavailable before any work is done if the chart could not be drawn."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise PlotUnavailable(PLOT_HINT) from None


def plot(report: Report, path: str) -> None:
    """Points per hand per category, A and B side by side, with 95% intervals (view 3, else view 2)."""
    check_plot()
    import matplotlib

    matplotlib.use("Agg")  # files only: no display needed
    import matplotlib.pyplot as plt

    a, b = report.structural.a.id, report.structural.b.id
    labels: list[str] = []
    va: list[float] = []
    vb: list[float] = []
    ea: list[float] = []
    eb: list[float] = []
    title = f"escoba diff {a} {b}: points per hand"
    if report.simulation is not None:
        for r in report.simulation.per_hand:
            if r.key == "escobas":
                continue
            labels.append(r.label)
            va.append(r.a.mean if r.a else 0.0)
            vb.append(r.b.mean if r.b else 0.0)
            ea.append((r.a.half or 0.0) if r.a else 0.0)
            eb.append((r.b.half or 0.0) if r.b else 0.0)
        title += f" ({report.simulation.hands} hands each, 95% intervals)"
    elif report.tally is not None and report.tally.replayed:
        t, n = report.tally, report.tally.replayed
        labels = list(t.categories)
        va = [p / n for p in t.points_a]
        vb = [p / n for p in t.points_b]
        ea = eb = [0.0] * len(labels)
        title += f" (the same {n} hands scored both ways)"
    x = list(range(len(labels)))
    width = 0.4
    fig, ax = plt.subplots(figsize=(max(6.0, 1.1 * len(labels) + 2), 4.5))
    ax.bar([i - width / 2 for i in x], va, width, yerr=ea, label=a, capsize=3)
    ax.bar([i + width / 2 for i in x], vb, width, yerr=eb, label=b, capsize=3)
    ax.set_xticks(x)
    ax.set_xticklabels(labels, rotation=30, ha="right")
    ax.set_ylabel("points per hand (all sides)")
    ax.set_title(title, fontsize=10)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
