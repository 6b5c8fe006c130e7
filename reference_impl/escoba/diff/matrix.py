"""The rules matrix: every point of the rules catalogue against every bundled ruleset.

Rows are the points `escoba.rules.points.positions` reads off a resolved document (the same ones the
structural diff compares), grouped by concern, plus each ruleset's errata and unsupported
rules; columns are the bundled rulesets. A cell shows the value, the status of the citation
behind it (stated, interpreted, default, erratum, house) and where that citation is: a link
to the line of the ruleset file in Markdown, a tooltip with the quote and its gloss in HTML.
A value that differs from `base` is in bold, so a column reads as "what this ruleset changes".

docs/rules-matrix.md is this module's Markdown output; a test fails when it is out of date.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from escoba import escape
from escoba.escape import terminal
from escoba.rules.points import CONCERNS, Citation, Position, positions

FORMAT = 1
STATUSES = ("stated", "interpreted", "default", "erratum", "house", "inferred")
LETTER = {"stated": "S", "interpreted": "I", "default": "D", "erratum": "E", "house": "H", "inferred": "N"}
NOTES = ("notes", "Errata and unsupported rules")


@dataclass(frozen=True)
class Cell:
    text: str
    value: Any
    status: str | None  # the citation's status; None: no citation (a DSL default, a values map)
    citation: Citation | None
    file: str | None  # repository-relative file of the citation (or of the value), e.g. spec/da.yaml
    line: int | None
    differs_from_base: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "value": self.value,
            "status": self.status,
            "citation": None if self.citation is None else self.citation.to_json(),
            "file": self.file,
            "line": self.line,
            "differs_from_base": self.differs_from_base,
        }


@dataclass(frozen=True)
class MatrixRow:
    concern: str
    key: str
    label: str
    cells: dict[str, Cell | None]  # ruleset id -> cell; None: the ruleset has no such point


@dataclass(frozen=True)
class Column:
    id: str
    file: str
    kind: str
    title: str


@dataclass(frozen=True)
class Matrix:
    columns: tuple[Column, ...]
    rows: tuple[MatrixRow, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "statuses": list(STATUSES),
            "rulesets": [c.__dict__ for c in self.columns],
            "rows": [
                {
                    "concern": r.concern,
                    "key": r.key,
                    "point": r.label,
                    "cells": {cid: (None if cell is None else cell.to_json()) for cid, cell in r.cells.items()},
                }
                for r in self.rows
            ],
        }


# --------------------------------------------------------------------------- building
class _Locator:
    """Repository-relative file and line of a JSON path in a resolved ruleset."""

    def __init__(self, resolved: Any):
        from escoba.rules.registry import place

        self.positions = resolved.positions
        # A file outside the bundle keeps the name it was shown by.
        self.files: dict[str, str] = {doc.file: place(doc.path) or doc.file for doc in resolved.files}

    def __call__(self, path: str | None) -> tuple[str | None, int | None]:
        if path is None:
            return None, None
        pos = self.positions.get(path)
        if pos is None:
            return None, None
        # The key's line, not the value's: an aliased citation's value sits at its anchor.
        line = pos.key_line or pos.line
        return self.files.get(pos.file, pos.file), line


def _cell(point: Position, locate: _Locator, base: Position | None, compare: bool) -> Cell:
    citation = point.citation
    file, line = locate(citation.path if citation is not None else point.path)
    if file is None and point.path is not None:
        file, line = locate(point.path)
    return Cell(
        text=point.text,
        value=point.value,
        status=citation.status if citation is not None else None,
        citation=citation,
        file=file,
        line=line,
        differs_from_base=compare and (base is None or base.meaning != point.meaning),
    )


def _matrix_points(doc: Mapping[str, Any]) -> list[Position]:
    """The matrix's rows of one ruleset: a category's award and points share one cell."""
    out: list[Position] = []
    points = positions(doc)
    by_key = {p.key: p for p in points}
    for p in points:
        parts = p.key.split(".")
        if p.key.startswith("scoring.") and len(parts) == 2:
            continue  # the category itself: its award row says it exists
        if p.key.startswith("scoring.") and parts[-1] == "points":
            continue  # folded into the award row
        if p.key.startswith("scoring.") and parts[-1] == "award":
            pts = by_key[f"scoring.{parts[1]}.points"]
            unit = "pt" if pts.value == 1 else "pts"
            out.append(
                Position(p.concern, p.key, parts[1], p.value, f"{p.text} · {pts.value} {unit}",
                      (p.meaning, pts.meaning), p.citation, path=p.path)
            )  # fmt: skip
            continue
        out.append(p)
    return out


def _notes(resolved: Any, locate: _Locator) -> list[tuple[str, str, Cell | None]]:
    doc = resolved.doc
    rows: list[tuple[str, str, Cell | None]] = []
    for key, label in (("errata", "errata recorded"), ("unsupported", "rules the DSL cannot express")):
        items = doc.get(key) or []
        ids = [str(i.get("id")) for i in items]
        file, line = locate(f"$.{key}") if items else (None, None)
        text = ", ".join(ids) if ids else "—"
        rows.append((f"{key}", label, Cell(text, ids, None, None, file, line)))
    return rows


def build(ids: list[str] | None = None) -> Matrix:
    """The matrix of `ids` (default: every bundled ruleset, `spec/`, `spec/family/`, then `spec/house/`)."""
    from escoba.rules import bundled_ids, load_resolved

    ids = list(ids) if ids is not None else bundled_ids()
    resolved = [load_resolved(i) for i in ids]
    base_doc = load_resolved("base").doc if "base" in bundled_ids() else None
    base_points = {p.key: p for p in _matrix_points(base_doc)} if base_doc is not None else {}
    columns: list[Column] = []
    per_ruleset: list[dict[str, Cell]] = []
    order: list[str] = []
    labels: dict[str, tuple[str, str]] = {}
    notes: dict[str, dict[str, Cell | None]] = {}
    for r in resolved:
        locate = _Locator(r)
        main_file = r.files[-1]
        columns.append(
            Column(r.id, locate.files.get(main_file.file, main_file.file), str(r.doc.get("kind", "")),
                   str(r.doc.get("title", r.id)))
        )  # fmt: skip
        cells: dict[str, Cell] = {}
        points = _matrix_points(r.doc)
        _merge_order(order, [p.key for p in points])
        for p in points:
            labels.setdefault(p.key, (p.concern, p.label))
            cells[p.key] = _cell(p, locate, base_points.get(p.key), bool(base_points) and r.id != "base")
        per_ruleset.append(cells)
        for key, label, cell in _notes(r, locate):
            labels.setdefault(key, (NOTES[0], label))
            notes.setdefault(key, {})[r.id] = cell
    rank = {cid: n for n, (cid, _) in enumerate(CONCERNS)}
    order.sort(key=lambda k: rank[labels[k][0]])  # stable: keeps each concern's own order
    rows = [
        MatrixRow(labels[k][0], k, labels[k][1], {c.id: cells.get(k) for c, cells in zip(columns, per_ruleset)})
        for k in order
    ]
    for key, cells_by_id in notes.items():
        rows.append(MatrixRow(NOTES[0], key, labels[key][1], {c.id: cells_by_id.get(c.id) for c in columns}))
    return Matrix(tuple(columns), tuple(rows))


def _merge_order(order: list[str], keys: list[str]) -> None:
    """Add `keys` to `order`, each new key after the key it follows in its own list."""
    seen = set(order)
    previous: str | None = None
    for key in keys:
        if key not in seen:
            at = order.index(previous) + 1 if previous is not None else 0
            order.insert(at, key)
            seen.add(key)
        previous = key


def concerns(matrix: Matrix) -> list[tuple[str, str, list[MatrixRow]]]:
    out = []
    for cid, title in (*CONCERNS, NOTES):
        rows = [r for r in matrix.rows if r.concern == cid]
        if rows:
            out.append((cid, title, rows))
    return out


# --------------------------------------------------------------------------- Markdown
MD_INTRO = """\
# Rules matrix

Every point on which an Escoba ruleset takes a position (the rows of the rules catalogue),
against every bundled ruleset. Generated from the YAML by `escoba matrix --format markdown >
docs/rules-matrix.md`; a test fails when this file is out of date, so it cannot drift from the
rulesets. `escoba matrix --format html` gives the same table with each citation's quote and
gloss on hover; `escoba diff A B` compares two rulesets point by point.

Each value carries the status of the citation behind it, linked to that citation's line in the
ruleset file (which may be the parent the ruleset inherits it from):
**S** stated by the source, **I** interpreted (the note says why), **D** the common default
(the source is silent), **E** erratum (the source contradicts itself), **H** house rule. A value
without a mark is the DSL's default for a key no file writes. Values in **bold** differ from
`base`; "—" means the ruleset has no such point (a scoring category it does not score).
"""


def _rel(file: str | None, prefix: str) -> str | None:
    if file is None:
        return None
    return file if "://" in file or file.startswith("/") else prefix + file


def render_markdown(matrix: Matrix, link_prefix: str = "../") -> str:
    """Markdown tables, one per concern; links are relative to docs/ (`link_prefix`)."""
    from escoba.diff.report import md_cell

    out = [MD_INTRO]
    out.append("\n| ruleset | kind | title |\n|---|---|---|\n")
    for c in matrix.columns:
        out.append(f"| [{c.id}]({_rel(c.file, link_prefix)}) | {c.kind} | {md_cell(c.title)} |\n")
    for _cid, title, rows in concerns(matrix):
        out.append(f"\n## {title}\n\n")
        out.append("| point | " + " | ".join(c.id for c in matrix.columns) + " |\n")
        out.append("|---|" + "---|" * len(matrix.columns) + "\n")
        for row in rows:
            cells = [_md(row.cells.get(c.id), link_prefix, md_cell) for c in matrix.columns]
            out.append(f"| {md_cell(row.label)} | " + " | ".join(cells) + " |\n")
    return "\n".join(map(terminal, "".join(out).split("\n")))  # a file's title or path runs nothing on a terminal


def _md(cell: Cell | None, prefix: str, escape: Any) -> str:
    if cell is None:
        return "—"
    text = escape(cell.text)
    if cell.differs_from_base:
        text = f"**{text}**"
    href = _rel(cell.file, prefix)
    if cell.status is not None:
        mark = LETTER.get(cell.status, cell.status)
        return f"{text} <sup>[{mark}]({href}#L{cell.line})</sup>" if href else f"{text} <sup>{mark}</sup>"
    if href and cell.value not in ([], None):
        return f"[{text}]({href}#L{cell.line})"
    return text


# --------------------------------------------------------------------------- HTML
def render_html(matrix: Matrix, link_prefix: str = "../") -> str:
    """A standalone page; each cell's title attribute holds the citation's quote and gloss."""
    e = escape.html
    out = [
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Escoba rules matrix</title>\n",
        "<style>\n"
        "body{font-family:sans-serif;font-size:13px}table{border-collapse:collapse;margin-bottom:1.5em}\n"
        "th,td{border:1px solid #ccc;padding:3px 5px;vertical-align:top}th{background:#eee;position:sticky;top:0}\n"
        "td.stated{background:#eef8ee}td.interpreted{background:#fff7e0}td.default{background:#f4f4f4}\n"
        "td.erratum{background:#fde8e8}td.house{background:#e8eefd}td.differs{font-weight:bold}\n"
        "sup a{text-decoration:none}\n</style>\n</head>\n<body>\n<h1>Escoba rules matrix</h1>\n",
        "<p>Generated by <code>escoba matrix --format html</code>. Cell colour and letter: the citation's status "
        "(S stated, I interpreted, D default, E erratum, H house); hover a cell for the quote, its gloss and the "
        "note; the letter links to the citation's line. Bold: differs from <code>base</code>.</p>\n",
    ]
    for _cid, title, rows in concerns(matrix):
        out.append(f"<h2>{e(title)}</h2>\n<table>\n<tr><th>point</th>")
        for c in matrix.columns:
            href = _rel(c.file, link_prefix)
            out.append(f"<th title=\"{e(c.title)}\"><a href=\"{e(href or '')}\">{e(c.id)}</a></th>")
        out.append("</tr>\n")
        for row in rows:
            out.append(f"<tr><th>{e(row.label)}</th>")
            for c in matrix.columns:
                out.append(_html_cell(row.cells.get(c.id), link_prefix))
            out.append("</tr>\n")
        out.append("</table>\n")
    out.append("</body>\n</html>\n")
    return "".join(out)


def _html_cell(cell: Cell | None, prefix: str) -> str:
    e = escape.html
    if cell is None:
        return "<td>—</td>"
    classes = [cell.status] if cell.status else []
    if cell.differs_from_base:
        classes.append("differs")
    attrs = f' class="{" ".join(classes)}"' if classes else ""
    if cell.citation is not None:
        attrs += f' title="{e(_tooltip(cell.citation))}"'
    body = e(cell.text)
    href = _rel(cell.file, prefix)
    if cell.status is not None and href:
        body += f' <sup><a href="{e(href)}#L{cell.line}">{LETTER.get(cell.status, "?")}</a></sup>'
    return f"<td{attrs}>{body}</td>"


def _tooltip(c: Citation) -> str:
    lines = [f"{c.status} · {c.source}" + (f" (inherited from {c.inherited_from})" if c.inherited_from else "")]
    quotes = c.quote if isinstance(c.quote, list) else ([c.quote] if c.quote else [])
    glosses = c.gloss if isinstance(c.gloss, list) else ([c.gloss] if c.gloss else [])
    for i, q in enumerate(quotes):
        lines.append(f"“{' '.join(str(q).split())}”")
        if i < len(glosses):
            lines.append(f"— {' '.join(str(glosses[i]).split())}")
    if c.note:
        lines.append("Note: " + " ".join(c.note.split()))
    return "\n".join(lines)
