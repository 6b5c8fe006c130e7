"""`escoba diff` as text, Markdown or JSON, and as a chart.

The three views are built elsewhere (`structural`, `rescore`, `compare_sim`); this module only
lays them out. The JSON keys are stable: tools read them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from escoba.diff.compare_sim import Comparison, Row
from escoba.diff.headlines import Headline, Resolution, Verdict
from escoba.diff.paired import ALPHA, FEW_PAIRS, Difference, Pairs
from escoba.diff.rescore import Tally, role_name
from escoba.diff.structural import StructuralDiff
from escoba.errors import shorten
from escoba.escape import terminal
from escoba.rules.points import Citation
from escoba.simulate import Estimate

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
    resolution: Resolution | None = None

    # ------------------------------------------------------------------ JSON
    def to_json(self) -> dict[str, Any]:
        s = self.structural
        out: dict[str, Any] = {
            "format": FORMAT,
            "a": s.a.to_json(),
            "b": s.b.to_json(),
            "structural": s.to_json(),
            "bots": list(self.games.bots) if self.games is not None and self.games.kind == "bots" else None,
            "rescore": None,
            "simulation": None,
            "resolution": None,
        }
        if self.games is not None and self.tally is not None:
            out["rescore"] = _rescore_json(self.games, self.tally)
        if self.simulation is not None:
            out["simulation"] = self.simulation.to_json()
        if self.resolution is not None:
            out["resolution"] = self.resolution.to_json()
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
                "difference": rescore_difference(tally, k).to_json(),
                "flows": [
                    {"from": role_name(src, tally.sides), "to": role_name(dst, tally.sides), "hands": h, "points": p}
                    for (src, dst), (h, p) in sorted(tally.flows[k].items())
                ],
            }
            for k, cat in enumerate(tally.categories)
        ],
        "total": {"a_points_per_hand": _ratio(tally.total_a, n), "b_points_per_hand": _ratio(tally.total_b, n),
                  "difference": rescore_difference(tally, None).to_json()},
        "winner_changed": {"hands": tally.winner_changed, "share": _ratio(tally.winner_changed, n),
                           "ci": Estimate.from_sums(n, tally.winner_changed, tally.winner_changed).to_json()["ci95"]},
    }


def rescore_difference(tally: Tally, k: int | None) -> Difference:
    """B − A points per hand on the very same hands (category k, or all points): paired."""
    if k is None:
        a, b, sq = tally.total_a, tally.total_b, tally.total_diff_sq
    else:
        a, b, sq = tally.points_a[k], tally.points_b[k], tally.diff_sq[k]
    return Pairs(tally.replayed, a, b, b - a, sq).difference()


def _ratio(x: int, n: int) -> float | None:
    return x / n if n else None


# --------------------------------------------------------------------------- tables
def text_table(headers: Sequence[str], rows: Sequence[Sequence[str]], indent: str = "  ") -> str:
    rows = [[terminal(cell) for cell in row] for row in rows]  # a ruleset's title may hold anything
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
    """A Markdown table cell: its pipes and backslashes escaped, one line, nothing that runs on a terminal."""
    return terminal(text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " "))


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


def _diff(d: Difference | None, percent: bool = False, level: float | None = 0.95) -> str:
    """A paired difference B − A: `+1.370 ± 0.052`, an exact (asymmetric) interval as
    `-2.1 [-3.6, -0.6] pts` (shares in percentage points); its confidence in brackets when it
    is not the table's `level` (always, for None); `†` after a t interval on fewer than
    FEW_PAIRS pairs."""
    if d is None:
        return "—"
    scale, digits = (100, 1) if percent else (1, 3)
    text = f"{scale * d.mean:+.{digits}f}"
    if d.low is not None and d.high is not None:
        if d.half is not None or d.low == d.high:
            text += f" ± {scale * (d.half or 0.0):.{digits}f}"
        else:
            text += f" [{scale * d.low:+.{digits}f}, {scale * d.high:+.{digits}f}]"
    if percent:
        text += " pts"
    if d.low is not None and (level is None or abs(d.confidence - level) > 1e-9):
        text += f" ({_level(d.confidence)})"
    return text + (" †" if d.few else "")


def _level(confidence: float) -> str:
    """A confidence as a percentage: 95%, 98.33%, 99.38%."""
    return f"{100 * confidence:.2f}".rstrip("0").rstrip(".") + "%"


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
    recorded = f", and {len(s.recorded)} rule{'s' if len(s.recorded) != 1 else ''} recorded but not played" if s.recorded else ""
    heading(f"1. Rules that differ: {len(s.differences)} of {s.compared} points{recorded}")
    if s.same:
        para("None: the two rulesets take the same position on every point (titles, comments and citations aside).")
    for _cid, title, diffs in s.by_concern():
        if not diffs:
            continue
        heading(title, 3)
        rows = [[d.label, d.a.text, d.b.text, _cite(d.a.citation), _cite(d.b.citation)] for d in diffs]
        out.append(table(["point", a, b, f"{a} cites", f"{b} cites"], rows))
        out.append("\n")
    if s.recorded:
        # Rules a ruleset states that the DSL cannot play (its `unsupported` list): no point
        # shows them, so they are listed beside the points, lest two rulesets look alike.
        heading("Recorded but not played", 3)
        para("Rules one ruleset states that the DSL cannot say yet (its unsupported list) and the other does not record: "
             "neither the games nor the simulations below play them.")  # fmt: skip
        blank()
        said = (lambda text: text) if markdown else (lambda text: shorten(text, 100))  # a terminal's line
        rows = [[a if r.side == "a" else b, r.id, said(r.text), r.source] for r in s.recorded]
        out.append(table(["ruleset", "rule", "what it says", "source"], rows))
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
    # Every line escaped as a whole (escoba.escape): a title or a path the rulesets' files give
    # runs nothing on a terminal.
    text = "\n".join(map(terminal, "".join(out).split("\n")))
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
            rows.append([cat, _num(tally.points_a[k] / n), _num(tally.points_b[k] / n),
                         _diff(rescore_difference(tally, k)), changed, moved or "—"])  # fmt: skip
        rows.append(["all points", _num(tally.total_a / n), _num(tally.total_b / n), _diff(rescore_difference(tally, None)), "", ""])
        out.append(table(["category", f"{a} pts/hand", f"{b} pts/hand", "B − A (95%)", "hands changed", "points moved"], rows))
        out.append("\n")
        share = Estimate.from_sums(n, tally.winner_changed, tally.winner_changed)
        para(f"The hand's winner changes in {tally.winner_changed} of {n} replayed hands "
             f"({_est(share, percent=True)}).")  # fmt: skip
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
    level = 1 - sim.alpha
    plain = "95%" if abs(level - 0.95) < 1e-9 else f"{_level(level)}, for the planned looks"
    para(f"{sim.hands} hands{matches} per ruleset, {sim.players} players, {bots} bots, seed {sim.seed}; "
         "means per hand (all sides together) with 95% intervals; B − A is paired, hand i under "
         f"{a} against hand i under {b} (match j against match j), with its {plain} interval (Student's t; "
         "for a yes/no row, [low, high] from McNemar's exact test). The headline rows (all points, escobas made, "
         "the dealer's side's wins, hands per match) carry the corrected interval of the headline table below, "
         "at the level in brackets.")  # fmt: skip
    for side, name in ((sim.a, a), (sim.b, b)):
        if side.reason:
            para(f"{name} not played: {side.reason}.")
    blank()
    share = {"dealer_wins", "first_dealer_wins", "match_shared"}
    rows = [[r.label, _est(r.a, r.key in share), _est(r.b, r.key in share), _diff(r.difference, r.key in share, level),
             _verdict(r, a, b)] for r in sim.per_hand]  # fmt: skip
    out.append(table(["per hand", a, b, "B − A", "difference"], rows))
    out.append("\n")
    if sim.per_match:
        rows = [
            [r.label, _est(r.a, percent=r.key != "hands_per_match"), _est(r.b, percent=r.key != "hands_per_match"),
             _diff(r.difference, r.key != "hands_per_match", level), _verdict(r, a, b)]
            for r in sim.per_match
        ]  # fmt: skip
        out.append(table(["per match", a, b, "B − A", "difference"], rows))
        out.append("\n")
    few = [r.label for r in (*sim.per_hand, *sim.per_match) if r.difference is not None and r.difference.few]
    if few:
        para(f"† fewer than {FEW_PAIRS} pairs ({', '.join(few)}): a t interval this small is only as good as "
             "the differences are close to normal; play more to rely on it.")  # fmt: skip
    lines = []
    for key, what in (("dealer_wins", "hands won by the dealer's side"), ("first_dealer_wins", "matches won by the first dealer's side")):
        t = sim.tests.get(key)
        if t is not None and t.n:
            row = sim.row(key)
            corrected = ""
            if row is not None and row.headline is not None and report.resolution is not None:
                corrected = f" ({_p(row.headline.adjusted_p)} corrected for the {report.resolution.family} headline rows)"
            lines.append(f"{what}: {t.a_only} pairs only under {a}, {t.b_only} only under {b}, "
                         f"McNemar exact p = {_p(t.p_value())}{corrected}")  # fmt: skip
    for key, (changed, pairs) in sim.winner_changed.items():
        if pairs:
            unit = "hand" if key == "hands" else "match"
            lines.append(f"the {unit}'s winner differs in {changed} of {pairs} pairs ({100 * changed / pairs:.1f}%)")
    if lines:
        para("Paired: " + "; ".join(lines) + ".")
        blank()
    if report.resolution is not None:
        _render_resolution(report, out, heading, para, blank, table)


def _p(p: float) -> str:
    return "< 0.0001" if p < 0.0001 else f"{p:.4f}"


def _size(h: Headline) -> str:
    return f"{100 * h.size:.0f} pts" if h.unit == "share" else f"{h.size:g} {h.unit}"


def _status(v: Verdict, b: str) -> str:
    status = v.status.replace("under B", f"under {b}")
    return f"below {_size(v.headline)}" if status == "below" else status


def _render_resolution(report: Report, out: list[str], heading: Any, para: Any, blank: Any, table: Any) -> None:
    res = report.resolution
    assert res is not None
    b = report.structural.b.id
    heading("Headline differences", 3)
    first, second = res.strengths[0], res.second
    mine = ",".join(first.bots)
    headers = ["headline", "negligible below", f"B − A ({mine})", "what the interval shows"]
    theirs = None
    if second is not None:
        theirs = ",".join(second.bots)
        headers += [f"B − A ({theirs})", f"under {theirs}", "bot-sensitive?"]
    headers.append("resolved?")
    rows = []
    for v in first.verdicts:
        share = v.headline.unit == "share"
        row = [v.headline.label, _size(v.headline), _diff(v.difference, share, None), _status(v, b)]
        if second is not None:
            other = next((w for w in second.verdicts if w.headline.key == v.headline.key), None)
            sensitive = res.sensitive(v.headline.key)
            row += [_diff(other.difference if other else None, share, None), _status(other, b) if other else "—",
                    "can't tell" if sensitive is None else ("yes" if sensitive else "no")]  # fmt: skip
        resolved = "yes" if v.resolved else ("no: few pairs" if v.difference.few and v.status != "unresolved" else "no")
        rows.append([*row, resolved])
    out.append(table(headers, rows))
    out.append("\n")
    para(f"Each interval is at the level in brackets: the {res.family} headline rows are corrected for being read "
         "together (Holm), so that a diff of two rulesets that play alike claims a difference in at most "
         f"{100 * ALPHA:g}% of runs. "
         "Negligible (below) when the whole interval lies within ± the size; higher or lower when it excludes "
         f"zero; resolved when either holds on at least {FEW_PAIRS} pairs (for a t interval).")  # fmt: skip
    if second is not None:
        para(f"Bot-sensitive: the conclusion under {mine} (higher, lower or negligible) is not the one under {theirs}, "
             "or it is unresolved under one and the two intervals have no value in common: what the rule does depends "
             "on how well it is played. Can't tell: unresolved under one and the intervals overlap.")  # fmt: skip
    if res.until_resolved:
        how = ("every headline resolved" if res.stopped == "resolved"
               else f"--max-hands reached with {sum(not v.resolved for v in res.verdicts)} not resolved")  # fmt: skip
        para(f"--until-resolved: {how} after {res.hands:,} hands and {res.matches:,} matches "
             f"(look {res.taken} of at most {len(res.looks)}, at {', '.join(f'{n:,}' for n in res.looks)} hands; "
             f"each look spends {100 * res.alpha:.3g}% of error).")  # fmt: skip
    else:
        para("--until-resolved plays on until each headline is resolved.")
    blank()


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
    if v == "below" and row.headline is not None:
        return f"below {_size(row.headline.headline)}"
    return v


# --------------------------------------------------------------------------- chart
class PlotUnavailable(Exception):
    """matplotlib is not installed."""


PLOT_HINT = "--plot needs matplotlib, which escoba installs only on request: pip install 'escoba[plot]'"


def check_plot(path: str | None = None) -> None:
    """Raise PlotUnavailable before any work is done if the chart could not be drawn (no
    matplotlib), or OutputError if it could not be written to `path` (a format matplotlib does
    not draw, a missing folder, a folder, a device)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise PlotUnavailable(PLOT_HINT) from None
    if path is None:
        return
    from pathlib import Path

    from escoba.outputs import OutputError, check_output_file

    formats = _plot_formats()
    kind = Path(path).suffix[1:].lower()
    if kind not in formats:
        what = f"a '.{kind}' file" if kind else "a file without an extension"
        raise OutputError(f"--plot: cannot draw {what}; name it .png, .svg or .pdf (or {', '.join(sorted(formats))})")
    check_output_file(path, "--plot")


def _plot_formats() -> set[str]:
    import matplotlib

    matplotlib.use("Agg")  # files only: no display needed
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    return set(FigureCanvasAgg(Figure()).get_supported_filetypes())


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
    from pathlib import Path

    from escoba.outputs import temporary_path

    with temporary_path(path, option="--plot") as temp:  # whole or not at all
        fig.savefig(temp, format=Path(path).suffix[1:].lower())
    plt.close(fig)
