"""`escoba site`: the rulesets, the matrix, the golden games, conformance and diffs as HTML.

    rulesets (resolved) ─┐
    rules matrix ────────┤
    golden cases ────────┼──▶ view models ──Jinja2──▶ pages in a fresh folder ──▶ DIR
    source texts ────────┤
    conformance / diff JSON (child processes, gather.py) ─┘

Every page links with relative paths and loads only the site's own stylesheet and script,
so the folder opens from the file system and can be copied anywhere. The site is built in a
new folder beside DIR and put in place only when every page is written: an interrupted or
failed build leaves DIR as it was.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from markupsafe import Markup

from escoba import escape
from escoba.errors import EscobaError, shorten
from escoba.site import charts, frames, gather
from escoba.site import faces as faces_mod
from escoba.site.sources import SourceText, pieces
from escoba.transcript.render import _measure as measure_text  # one way to print a measure

MARKER = ".escoba-site"  # written into every site: DIR may be replaced only if it holds one
STATUS_WORDS = {
    "stated": "stated by the source",
    "interpreted": "interpreted: the note says why",
    "default": "the common default: the source is silent",
    "erratum": "erratum: the source contradicts itself",
    "house": "a house rule",
    "inferred": "inferred from what an engine plays (escoba identify)",
}
BAD_COUNTS = {"fail", "error", "crash", "timeout", "broken-case", "new"}  # summary counts shown in red
CASE_GROUPS = (
    ("text", "From the text", "The Swedish example game, the first two deals as the text plays them."),
    ("rules", "Rule points", "One or more cases per point where the sources differ, each chosen and audited by hand."),
    ("probes", "Probes", "A move the engine must refuse, one per refusal class; the last step shows the refused move."),
    ("generated", "Generated games", "Seeded bot games for every bundled ruleset and player count."),
    ("perft", "Move counts", "Distinct play sequences to a fixed depth from a fixed deck: the deal, and the count."),
)


class SiteError(EscobaError):
    """The site cannot be built where or as asked (one line, exit status 2)."""


@dataclass
class Options:
    out: Path
    rulesets: list[str] = field(default_factory=list)  # files (or ids) beside the bundled ones
    engines: list[str] = field(default_factory=list)
    diffs: list[tuple[str, str]] = field(default_factory=list)
    diff_hands: int | None = None
    engine_timeout: float | None = None


@dataclass
class Summary:
    out: Path
    pages: int
    bytes: int
    seconds: float
    missing_quotes: list[str]


# --------------------------------------------------------------------------- entry point
def build(options: Options, log: Callable[[str], None] | None = None) -> Summary:
    started = time.perf_counter()
    out = options.out
    check_out(out)
    say = log or (lambda _message: None)
    jobs = [gather.conformance_job(e, options.engine_timeout) for e in options.engines]
    # A diff under the default (expert) bots is the site's longest child: it takes every core
    # (`--jobs 0`, the same numbers as one), so the site's wall time stays near the diff's.
    jobs += [gather.diff_job(a, b, options.diff_hands, jobs=0) for a, b in options.diffs]
    # The child processes run while this one renders the pages that do not need them.
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        pending, tmp = None, None
        try:  # a stop signal while the pages are made must stop the runs too
            pending = pool.submit(gather.run_all, jobs)
            site = _Site(options)
            tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
            site.render_static(tmp, say)
            reports = pending.result()
            site.render_reports(tmp, reports[: len(options.engines)], reports[len(options.engines) :], say)
            (tmp / MARKER).write_text("built by escoba site\n", encoding="utf-8")
            pages, size = _count(tmp)
            # mkdtemp makes the folder private (0700): the site is the umask's, like any
            # folder the user makes, so that a web server running as another user can serve it
            umask = os.umask(0)
            os.umask(umask)
            tmp.chmod(0o777 & ~umask)
            _replace(tmp, out)
        except BaseException:
            if pending is not None:
                pending.cancel()
            gather.stop_all()  # else the pool would wait for a conformance run to finish
            if tmp is not None:
                shutil.rmtree(tmp, ignore_errors=True)
            raise
    return Summary(out, pages, size, time.perf_counter() - started, site.sources_missing())


def _page_text(value: Any) -> Any:
    """What a template prints: text through `escoba.escape.html`, the pages' one escaping (a
    ruleset's title, a case's notes, an engine's name and messages may hold anything); Markup,
    built here from escaped parts, as it is."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return Markup(escape.html(value))
    return value


def check_out(out: Path) -> None:
    """--out before any work: a folder that can be written (escoba.outputs.check_output), and
    one that is empty, new or an earlier site (the build replaces it whole)."""
    from escoba.outputs import check_output

    check_output(str(out), "--out", folder=True)
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).exists():
        raise SiteError(f"--out {out}: a folder that holds something other than an escoba site; choose an empty or new folder")
    parent = out.parent if str(out.parent) else Path(".")
    if not parent.is_dir():
        raise SiteError(f"--out {out}: no folder {parent}")


def _replace(new: Path, out: Path) -> None:
    old = None
    if out.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=out.parent))
        os.rename(out, old / "site")
    os.rename(new, out)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _count(root: Path) -> tuple[int, int]:
    pages = size = 0
    for path in root.rglob("*"):
        if path.is_file():
            size += path.stat().st_size
            pages += path.suffix == ".html"
    return pages, size


# --------------------------------------------------------------------------- the site
class _Site:
    def __init__(self, options: Options):
        from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

        import escoba
        from escoba.data import sources_dir
        from escoba.diff.matrix import LETTER, STATUSES
        from escoba.diff.matrix import build as build_matrix
        from escoba.rules import bundled_ids, load_resolved

        self.env = Environment(
            loader=PackageLoader("escoba.site", "templates"),
            autoescape=select_autoescape(default=True, default_for_string=True),
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            finalize=_page_text,
        )
        self.env.globals.update(version=escoba.__version__, status_words=STATUS_WORDS, statuses=STATUSES, letters=LETTER)
        self.statuses, self.letters = STATUSES, LETTER
        names = list(bundled_ids())
        for extra in options.rulesets:
            if extra not in names:
                names.append(extra)
        self.resolved = [load_resolved(n) for n in names]
        ids = [r.id for r in self.resolved]
        doubled = sorted({i for i in ids if ids.count(i) > 1})
        if doubled:
            raise SiteError(f"--ruleset: two rulesets have the id {', '.join(doubled)}; give each file its own id")
        self.by_id = {r.id: r for r in self.resolved}
        self.env.globals["has_page"] = set(self.by_id).__contains__  # a parent given to no build has no page
        self.matrix = build_matrix(names)
        self.sources = {p.name: SourceText(p.name, p.read_text(encoding="utf-8")) for p in sorted(sources_dir().glob("*.txt"))}
        self.source_language: dict[str, str] = {}
        for r in self.resolved:
            source = r.doc.get("source")
            if isinstance(source, str) and r.doc.get("kind") == "source":
                self.source_language.setdefault(source, str(r.doc.get("language", "")))
        self.showcase = _load_showcase()
        self._faces: dict[str, faces_mod.Faces] = {}

    # ------------------------------------------------------------------ helpers
    def write(self, root: Path, rel: str, template: str, **context: Any) -> None:
        depth = rel.count("/")
        context.setdefault("root", "../" * depth)
        context.setdefault("section", rel.split("/")[0].removesuffix(".html") if depth else rel.removesuffix(".html"))
        context.setdefault("title", "escoba")
        html = self.env.get_template(template).render(**context)
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(html, encoding="utf-8")

    def faces(self, ruleset: str) -> faces_mod.Faces:
        hit = self._faces.get(ruleset)
        if hit is None:
            doc = self._doc(ruleset)
            hit = self._faces[ruleset] = faces_mod.Faces(doc["deck"], doc.get("language"))
        return hit

    def _doc(self, ruleset: str) -> dict[str, Any]:
        if ruleset in self.by_id:
            return self.by_id[ruleset].doc
        from escoba.rules import load_resolved

        resolved = load_resolved(ruleset)
        self.by_id[ruleset] = resolved  # by the name asked: a case's ruleset file is no page's id
        return resolved.doc

    def quotes(self, citation: Mapping[str, Any] | None, by: str) -> list[dict[str, Any]]:
        """A citation's quotes, each with its gloss and its anchor on the source page."""
        if not citation:
            return []
        source = str(citation.get("source", ""))
        text = self.sources.get(source)
        glosses = pieces(citation.get("gloss"))
        out = []
        for n, quote in enumerate(pieces(citation.get("quote"))):
            anchor = text.cite(quote, by) if text is not None else None
            out.append({
                "quote": quote,
                "gloss": glosses[n] if n < len(glosses) else "",
                "anchor": anchor,
                "source_page": _source_page(source),
                "lang": self.source_language.get(source, ""),
            })  # fmt: skip
        return out

    def sources_missing(self) -> list[str]:
        return [f"{s.name}: {q}" for s in self.sources.values() for q in s.missing]

    # ------------------------------------------------------------------ pages
    def render_static(self, root: Path, say: Callable[[str], None]) -> None:
        self.copy_static(root)
        rulesets = self.render_rulesets(root)
        say(f"{len(rulesets)} ruleset pages")
        self.render_matrix(root)
        games = self.render_games(root)
        say(f"{games} game pages")
        self.render_sources(root)  # last: every quote has been cited by now

    def render_reports(self, root: Path, conformance: Sequence[dict], diffs: Sequence[dict], say: Callable[[str], None]) -> None:
        self.render_conformance(root, conformance)
        self.render_diffs(root, diffs)
        self.write(
            root, "index.html", "index.html", title="escoba",
            counts={"rulesets": len(self.resolved), "games": self.case_count, "engines": len(conformance), "diffs": len(diffs)},
            showcase=self.showcase_view, faces=self.showcase_faces, faces_default=self.showcase_faces_default,
        )  # fmt: skip
        say(f"{len(conformance)} conformance reports, {len(diffs)} diffs")

    def copy_static(self, root: Path) -> None:
        static = resources.files("escoba.site") / "static"
        (root / "static").mkdir(parents=True, exist_ok=True)
        for item in static.iterdir():
            if item.name.endswith((".css", ".js")):
                (root / "static" / item.name).write_bytes(item.read_bytes())

    # -- rulesets
    def render_rulesets(self, root: Path) -> list[dict[str, Any]]:
        from escoba.rules.points import CONCERN_TITLES

        games_of: dict[str, list[str]] = {}
        for case in self.cases:
            games_of.setdefault(case.ruleset, []).append(case.id)
        listing = []
        for column in self.matrix.columns:
            resolved = self.by_id[column.id]
            doc = resolved.doc
            chain = [str(d.data.get("id", d.file)) for d in resolved.files]
            concerns: list[dict[str, Any]] = []
            differences = 0
            for row in self.matrix.rows:
                cell = row.cells.get(column.id)
                if cell is None or row.concern == "notes":
                    continue
                differences += cell.differs_from_base
                citation = None
                if cell.citation is not None:
                    c = cell.citation
                    citation = {
                        "status": c.status,
                        "source_label": _source_label(c.source),
                        "inherited_from": c.inherited_from,
                        "note": c.note,
                        "quotes": self.quotes(c.to_json(), f"{column.id}: {row.label}"),
                    }
                if not concerns or concerns[-1]["id"] != row.concern:
                    concerns.append({"id": row.concern, "title": CONCERN_TITLES.get(row.concern, row.concern), "points": []})
                concerns[-1]["points"].append({
                    "key": row.key, "anchor": point_anchor(row.key), "label": row.label, "text": cell.text,
                    "differs": cell.differs_from_base, "citation": citation,
                })  # fmt: skip
            view = {
                "id": column.id, "title": column.title, "kind": column.kind, "file": column.file, "chain": chain,
                "language": doc.get("language"), "source": doc.get("source"),
                "source_page": _source_page(doc["source"]) if isinstance(doc.get("source"), str) else None,
                "description": doc.get("description"), "concerns": concerns, "games": games_of.get(column.id, []),
                "errata": self._items(resolved, "errata"), "unsupported": self._items(resolved, "unsupported"),
                "changes": self.changes(resolved, {p["anchor"] for c in concerns for p in c["points"]}),
            }  # fmt: skip
            self.write(root, f"rulesets/{column.id}.html", "ruleset.html", title=f"{column.id}: {column.title}", r=view)
            listing.append({
                "id": column.id, "page": f"{column.id}.html", "kind": column.kind, "title": column.title,
                "parent": chain[-2] if len(chain) > 1 else None, "differences": differences,
            })  # fmt: skip
        self.write(root, "rulesets/index.html", "rulesets.html", title="Rulesets", rulesets=listing)
        return listing

    def changes(self, resolved: Any, anchors: set[str]) -> dict[str, Any] | None:
        """What a ruleset changes from the one it extends, for the top of its page: each point
        that differs, with the parent's value beside its own (`escoba diff PARENT ID`'s first
        view), and the rules it records as not played that the parent does not."""
        from escoba.diff.structural import Ruleset, diff_documents
        from escoba.rules import load_resolved

        if len(resolved.files) < 2:
            return None
        link = resolved.files[-2]
        parent_id = str(link.data.get("id", link.path.stem))
        parent = self.by_id.get(parent_id)
        if parent is None or parent.files[-1].path.resolve() != link.path.resolve():
            parent = load_resolved(str(link.path))
        diff = diff_documents(parent.doc, resolved.doc, Ruleset.of(parent), Ruleset.of(resolved))
        points = []
        for d in diff.differences:
            anchor = point_anchor(d.key)  # a point the ruleset does not have (a category it removed) has no place below
            points.append({"label": d.label, "anchor": anchor if anchor in anchors else None, "parent": d.a.text, "own": d.b.text})
        recorded = [{"id": r.id, "text": shorten(r.text, 160)} for r in diff.recorded if r.side == "b"]  # whole below
        return {"parent": parent_id, "points": points, "compared": diff.compared, "recorded": recorded}

    def _items(self, resolved: Any, key: str) -> list[dict[str, Any]]:
        """Errata or unsupported rules, each marked with the ruleset whose file states it."""
        own_file = resolved.files[-1].file
        file_ids = {d.file: str(d.data.get("id", d.file)) for d in resolved.files}
        out = []
        for n, item in enumerate(resolved.doc.get(key) or []):
            pos = resolved.positions.get(f"$.{key}[{n}]")
            origin = file_ids.get(pos.file) if pos is not None and pos.file != own_file else None
            out.append({
                "id": item.get("id"), "inherited_from": origin,
                "quotes": self.quotes(item, f"{resolved.id}: {key} {item.get('id')}"),
                "reason": item.get("reason"), "resolution": item.get("resolution"), "note": item.get("note"),
                "closest": item.get("closest"),
            })  # fmt: skip
        return out

    # -- matrix
    def render_matrix(self, root: Path) -> None:
        from escoba.diff.matrix import concerns

        areas, blocks = [], []
        for cid, title, rows in concerns(self.matrix):
            areas.append((cid, title, len(rows)))
            block_rows = []
            for row in rows:
                cells: list[dict[str, Any] | None] = []
                for column in self.matrix.columns:
                    cell = row.cells.get(column.id)
                    if cell is None:
                        cells.append(None)
                        continue
                    href = f"rulesets/{column.id}.html#{point_anchor(row.key) if cid != 'notes' else row.key}"
                    cells.append({
                        "text": cell.text, "differs": cell.differs_from_base, "status": cell.status,
                        "letter": self.letters.get(cell.status or "", ""), "href": href, "tip": _tip(cell),
                    })  # fmt: skip
                block_rows.append({
                    "key": row.key, "label": row.label, "cells": cells,
                    "differs": any(c is not None and c["differs"] for c in cells),
                })  # fmt: skip
            blocks.append({"id": cid, "title": title, "rows": block_rows})
        self.write(root, "matrix.html", "matrix.html", title="Rules matrix", columns=self.matrix.columns, areas=areas, rows_by_area=blocks)

    # -- games
    @property
    def cases(self) -> list[CaseView]:
        if not hasattr(self, "_cases"):
            self._cases = load_case_views()
        return self._cases

    def render_games(self, root: Path) -> int:
        groups: dict[str, list[dict[str, Any]]] = {g: [] for g, _, _ in CASE_GROUPS}
        self.showcase_view: dict[str, Any] | None = None
        self.showcase_faces: faces_mod.Faces | None = None
        self.showcase_faces_default = "spanish"
        for case in self.cases:
            folder = case.folder
            showcase = self.showcase if self.showcase is not None and case.id == self.showcase["case"] else None
            view, fc, default = self.game_view(case, showcase)
            self.write(root, f"games/{case.id}.html", "game.html", title=case.id, game=view, faces=fc, faces_default=default)
            groups.setdefault(folder, []).append({
                "id": case.id, "title": case.title, "ruleset": case.ruleset, "ruleset_page": f"{case.ruleset}.html",
                "players": case.players,
            })  # fmt: skip
            if showcase is not None:
                self.showcase_view, self.showcase_faces, self.showcase_faces_default = view, fc, default
        listing = [
            {"id": gid, "title": title, "about": about, "cases": groups[gid]}
            for gid, title, about in CASE_GROUPS
            if groups.get(gid)
        ]
        listing += [{"id": g, "title": g, "about": "", "cases": c} for g, c in groups.items() if c and g not in dict((x[0], 1) for x in CASE_GROUPS)]
        self.write(root, "games/index.html", "games.html", title="Games", groups=listing)
        self.case_count = len(self.cases)
        return len(self.cases)

    def game_view(self, case: Any, showcase: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], faces_mod.Faces, str]:
        doc = self._doc(case.ruleset_source)
        fc = self.faces(case.ruleset_source)
        default = faces_mod.default_faces(doc.get("language"))
        sides = _sides(doc, case.players)
        names = list(showcase["seats"]) if showcase else [f"Seat {s}" for s in range(case.players)]
        side_names = [" + ".join(names[s] for s in side) for side in sides]
        sentences: dict[int, list[dict[str, Any]]] = {}
        if showcase:
            for entry in showcase["sentences"]:
                q = self.quotes({"source": showcase["source"], "quote": entry["quote"], "gloss": entry["gloss"]}, "the example game")[0]
                q["placed"] = bool(entry.get("placed"))
                sentences.setdefault(int(entry["event"]), []).append(q)
        steps = []
        raw = frames.steps(case.expect, case.players, sides)
        for s in raw:
            steps.append(self.step_view(case, s, fc, default, names, side_names, sides, sentences))
        if case.kind == "probe" and case.probe:
            steps[-1]["notes"].append(
                f"Probe: the engine is asked to play {_probe_text(case.probe.get('move'))}; it must refuse it as {case.probe.get('reason')}."
            )
        if case.kind == "perft" and case.perft:
            steps[-1]["notes"].append(
                f"Move count: {case.perft.get('count')} distinct play sequences to depth {case.perft.get('depth')} from this position."
            )
        source_quote = None
        if case.source:
            found = self.quotes(dict(case.source) | {"gloss": None}, f"case {case.id}")
            source_quote = found[0] if found else None
        view = {
            "id": case.id, "title": case.title, "kind": case.kind, "audit": case.audit, "ruleset": case.ruleset,
            "ruleset_page": f"{case.ruleset}.html", "players": case.players, "target": case.target, "clause": case.clause,
            "notes": list(case.notes), "steps": steps, "hands": max((s.hand for s in raw), default=1),
            "source_quote": source_quote,
        }  # fmt: skip
        return view, fc, default

    def step_view(self, case: Any, s: frames.Step, fc: faces_mod.Faces, default: str, names: list[str],
                  side_names: list[str], sides: list[list[int]], sentences: Mapping[int, list[dict]]) -> dict[str, Any]:  # fmt: skip
        seats = []
        for seat in range(case.players):
            side = frames.side_of(seat, sides)
            seats.append({
                "name": names[seat], "hand": s.hands[seat] if seat < len(s.hands) else [],
                "pile": s.piles[side] if side < len(s.piles) else 0,
                "escobas": s.escobas[side] if side < len(s.escobas) else 0,
                "dealer": s.dealer == seat if s.dealer is not None else False, "active": s.seat == seat,
                "side_label": f"side {side}" if any(len(x) > 1 for x in sides) else "",
            })  # fmt: skip
        headline, move = _headline(s, names, side_names, fc)
        offered_moves, offered_label = [], ""
        if isinstance(s.offered, list):
            offered_moves = [
                {"text": fc.label(str(m.get("card"))) + (Markup(" x ") + fc.labels(list(m["take"])) if m.get("take") else ""),
                 "chosen": m.get("card") == s.card and sorted(m.get("take", [])) == sorted(s.take)}
                for m in s.offered
            ]  # fmt: skip
            offered_label = f"{len(s.offered)} legal move{'s' if len(s.offered) != 1 else ''}"
        elif isinstance(s.offered, int):
            offered_label = f"{s.offered} legal moves"
        scores = []
        for e in s.scores:
            measures = e.get("measures") or [None] * len(side_names)
            points = e.get("points") or [0] * len(side_names)
            scores.append({
                "category": e.get("category"), "reason": e.get("reason", ""),
                "cells": [(measure_text(m), p) for m, p in zip(measures, points)],
            })  # fmt: skip
        notes: list[Any] = [  # a declaration: cards shown as dealt, for points
            Markup("{} shows {} as dealt: {}").format(names[int(d["seat"])], fc.labels([str(c) for c in d.get("cards", [])]),
                                                     ", ".join(map(str, d.get("categories", []))))
            for d in s.declarations if d.get("seat") in range(len(names))
        ]  # fmt: skip
        if s.totals is not None:
            notes.append("Match totals: " + ", ".join(f"{n} {t}" for n, t in zip(side_names, s.totals)))
        if s.tie is not None:
            notes.append(f"Tie at {'–'.join(str(t) for t in s.tie.get('totals', []))}: nobody has won yet; another hand is dealt.")
        if s.match_end is not None:
            winners = s.match_end.get("winners", [])
            who = " and ".join(side_names[w] for w in winners if w < len(side_names)) or "nobody"
            notes.append(f"Match over: {who} win{'s' if len(winners) == 1 else ''}, {'–'.join(str(t) for t in s.match_end.get('totals', []))} ({s.match_end.get('reason', '')}).")
        if s.kind == "other":
            notes.append(f"Event: {s.note}")
        said = [q for i in range(s.first, s.last + 1) for q in sentences.get(i, [])]
        return {
            "kind": s.kind, "hand": s.hand, "headline": headline, "move": move, "seats": seats, "table": s.table,
            "card": s.card, "take": s.take, "escoba": s.escoba, "offered": s.offered, "offered_moves": offered_moves, "offered_label": offered_label,
            "scores": scores, "side_names": side_names,
            "hand_points": list(s.hand_end.get("points", [])) if s.hand_end else None,
            "notes": notes, "sentences": said,
        }  # fmt: skip

    # -- sources
    def render_sources(self, root: Path) -> None:
        listing = []
        cited_by_ruleset: dict[str, list[str]] = {}
        for r in self.resolved:
            for name in _sources_cited(r.doc):
                cited_by_ruleset.setdefault(name, []).append(r.id)
        for name, text in self.sources.items():
            page = _source_page(name)
            title = text.text.strip().splitlines()[0] if text.text.strip() else name
            view = {
                "name": name, "title": title, "language": self.source_language.get(name, ""),
                "quotes": len(text.quotes), "segments": text.segments(),
                "tooltip": lambda anchors, t=text: "quoted by " + "; ".join(t.cited_by(anchors)),
            }  # fmt: skip
            self.write(root, f"sources/{page}", "source.html", title=name, s=view)
            listing.append({
                "name": name, "page": page, "language": view["language"], "quotes": len(text.quotes),
                "rulesets": cited_by_ruleset.get(name, []),
            })  # fmt: skip
        self.write(root, "sources/index.html", "sources.html", title="Sources", sources=listing)

    # -- conformance
    def render_conformance(self, root: Path, reports: Sequence[dict]) -> None:
        summary_keys: list[str] = []
        for report in reports:  # in the reports' own order, so a count a runner adds is shown
            summary_keys += [k for k in report.get("summary", {}) if k not in summary_keys]
        engines = []
        for n, report in enumerate(reports, 1):
            engine = report.get("engine", {})
            name = engine.get("name") or engine.get("command") or f"engine {n}"
            view = {
                "page": f"engine-{n}.html", "name": f"{name} {engine.get('version', '')}".strip(),
                "command": engine.get("command", ""), "engine_name": engine.get("name", ""),
                "engine_version": engine.get("version", ""), "features": engine.get("features", []),
                "summary": report.get("summary", {}), "ok": report.get("ok", False),
                "seconds": float(report.get("seconds", 0.0)), "warnings": report.get("warnings", []),
                "cases": _case_views(report.get("cases", [])), "profile": _profile(report),
            }  # fmt: skip
            tally = {status: sum(p["status"] == status for p in view["profile"]) for status in ("agrees", "differs", "not exercised")}
            view["profile_counts"] = ", ".join(f"{n} {status}" for status, n in tally.items())
            engines.append(view)
        names = [e["name"] for e in engines]
        for e in engines:
            if names.count(e["name"]) > 1:
                e["name"] = f"{e['name']} ({e['command']})"
        for e in engines:
            self.write(root, f"conformance/{e['page']}", "engine.html", title=e["name"], e=e, summary_keys=summary_keys)
        by_case: dict[str, list[Any]] = {}
        for k, e in enumerate(engines):
            for c in e["cases"]:
                by_case.setdefault(c["id"], [None] * len(engines))[k] = {"outcome": c["outcome"], "href": f"{e['page']}#case-{c['id']}"}
        rows = [
            {"id": cid, "outcomes": outs}
            for cid, outs in sorted(by_case.items())
            if not all(o is not None and o["outcome"] == "pass" for o in outs)
        ]
        profile_rows = _profile_rows(engines)
        self.write(
            root, "conformance/index.html", "conformance.html", title="Conformance", engines=engines,
            summary_keys=summary_keys, bad_counts=BAD_COUNTS, case_rows=rows, same_count=len(by_case) - len(rows), profile_rows=profile_rows,
            audit=audit_view(),
        )  # fmt: skip

    # -- diffs
    def render_diffs(self, root: Path, reports: Sequence[dict]) -> None:
        listing = []
        for report in reports:
            a, b = report.get("a", {}), report.get("b", {})
            page = f"{_slug(a.get('id', 'a'))}-vs-{_slug(b.get('id', 'b'))}.html"
            view = self.diff_view(report)
            self.write(root, f"diffs/{page}", "diff.html", title=f"{a.get('id')} against {b.get('id')}", d=view)
            rescore = report.get("rescore") or {}
            changed = rescore.get("winner_changed") or {}
            listing.append({
                "a": a.get("id"), "b": b.get("id"), "page": page,
                "differences": (report.get("structural") or {}).get("differences", "—"),
                "recorded": len((report.get("structural") or {}).get("unsupported") or []),
                "hands": rescore.get("hands", 0),
                "winner_changed": f"{100 * changed['share']:.1f}%" if "share" in changed else "—",
            })  # fmt: skip
        self.write(root, "diffs/index.html", "diffs.html", title="Diffs", diffs=listing)

    def diff_view(self, report: Mapping[str, Any]) -> dict[str, Any]:
        a, b = dict(report.get("a", {})), dict(report.get("b", {}))
        for side in (a, b):
            side["page"] = f"{side.get('id')}.html" if side.get("id") in self.by_id else None
            side.setdefault("title", side.get("id", ""))
            side.setdefault("file", "")
        structural = report.get("structural") or {"differences": 0, "points_compared": 0, "concerns": []}
        concerns = []
        for concern in structural.get("concerns", []):
            rows = []
            for x in concern.get("differences", []):
                row = {"point": x.get("point", x.get("key")), "a": dict(x.get("a") or {}), "b": dict(x.get("b") or {})}
                for key, rid in (("a", a.get("id")), ("b", b.get("id"))):
                    row[key].setdefault("present", True)
                    row[key].setdefault("text", "")
                    row[key].setdefault("citation", None)
                    row[key]["quotes"] = self.quotes(row[key]["citation"], f"{rid}: {row['point']}")
                rows.append(row)
            if rows:
                concerns.append({"title": concern.get("title", concern.get("concern")), "rows": rows})
        # Rules one side records as not played (its `unsupported` list) and the other does not.
        recorded = []
        for item in structural.get("unsupported") or []:
            if isinstance(item, Mapping):
                side = a if item.get("ruleset") == "a" else b
                recorded.append({"ruleset": side.get("id"), "page": side.get("page"), "id": item.get("id"), "note": item.get("note"),
                                 "closest": item.get("closest"),
                                 "source": _source_label(str(item.get("source", ""))),
                                 "quotes": self.quotes(item, f"{side.get('id')}: unsupported {item.get('id')}")})  # fmt: skip
        # Defaults for what a report may leave out, so that a field it gains or drops later
        # changes what is shown, not whether the page builds.
        rescore = simulation = None
        if report.get("rescore"):
            rescore = {"games": "", "bots": [], "players": "", "seed": "", "method": "rescored", "hands": 0, "replayed": 0,
                       "not_replayed": [], "categories": [], "winner_changed": None, **report["rescore"]}  # fmt: skip
            rescore["categories"] = [{"flows": [], **c} for c in rescore["categories"]]
        if report.get("simulation"):
            simulation = {"hands": 0, "matches": 0, "players": "", "confidence": 0.95, "per_hand": [], "per_match": [],
                          **report["simulation"]}  # fmt: skip
            for key in ("per_hand", "per_match"):
                simulation[key] = [{"label": r.get("key", ""), "a": None, "b": None, "verdict": "", "difference": None, **r}
                                   for r in simulation[key]]  # fmt: skip
            simulation["paired"] = any(r["difference"] for r in simulation["per_hand"] + simulation["per_match"])
        known = {"format", "a", "b", "structural", "rescore", "simulation"}
        extra = [(k, json.dumps(v, indent=2, ensure_ascii=False)) for k, v in report.items() if k not in known]
        shown = {"hands", "matches", "seed", "players", "bots", "confidence", "a_unplayable", "b_unplayable", "per_hand",
                 "per_match", "sides"}  # fmt: skip
        extra += [(f"simulation.{k}", json.dumps(v, indent=2, ensure_ascii=False))
                  for k, v in (report.get("simulation") or {}).items() if k not in shown]  # fmt: skip
        return {
            "a": a, "b": b, "structural": structural, "concerns": concerns, "recorded": recorded, "rescore": rescore,
            "simulation": simulation, "charts": _diff_charts(rescore, simulation, (str(a.get("id")), str(b.get("id")))),
            "extra": extra, "command": f"escoba diff {_named(a)} {_named(b)} --format json",
        }  # fmt: skip


# --------------------------------------------------------------------------- golden cases
@dataclass(frozen=True)
class CaseView:
    """What the site shows of a golden case, read from its JSON as it is stored.

    The bundled cases are checked by their schema and replayed by the test suite and by
    `escoba conformance`; the site only reads them, so it does not pay for those checks again.
    """

    id: str
    folder: str  # text, rules, probes, generated, perft
    title: str
    kind: str
    ruleset: str
    ruleset_source: str  # what to load: the id, or the file a path beside the case names
    players: int
    target: int | None
    clause: str
    audit: str
    notes: tuple[str, ...]
    expect: tuple[dict, ...]
    source: Mapping[str, Any] | None
    probe: Mapping[str, Any] | None
    perft: Mapping[str, Any] | None


def load_case_views() -> list[CaseView]:
    from escoba.transcript.case import MAX_FILE_BYTES, cases_dir, is_ruleset_path, iter_case_files, ruleset_file

    base = cases_dir()
    out = []
    for path in iter_case_files(base):
        if path.stat().st_size > MAX_FILE_BYTES:
            raise SiteError(f"{path}: larger than a case can be")
        data = json.loads(path.read_text(encoding="utf-8"))
        ruleset = str(data["ruleset"])
        source = str(ruleset_file(ruleset, path)) if is_ruleset_path(ruleset) else ruleset
        out.append(CaseView(
            id=str(data["id"]), folder=path.relative_to(base).parts[0], title=str(data.get("title", "")),
            kind=str(data.get("kind", "game")), ruleset=ruleset, ruleset_source=source, players=int(data["players"]),
            target=data.get("target"), clause=str(data.get("clause", "")), audit=str(data.get("audit", "")),
            notes=tuple(data.get("notes") or ()), expect=tuple(data.get("expect") or ()), source=data.get("source"),
            probe=data.get("probe"), perft=data.get("perft"),
        ))  # fmt: skip
    return out


# --------------------------------------------------------------------------- small pieces
def point_anchor(key: str) -> str:
    return "p-" + key.replace(".", "-")


def _named(side: Mapping[str, Any]) -> str:
    """How a command line names a compared ruleset: a bundled one by its id (`escoba diff da
    sv`), another by its file as the report shows it."""
    from escoba.rules import registry

    rid, file = str(side.get("id", "")), str(side.get("file") or "")
    bundled = registry.bundled().get(rid)
    if bundled is not None and file in ("", registry.display_name(bundled), registry.place(bundled)):
        return rid
    return shlex.quote(file or rid)


def _source_page(name: str) -> str:
    return name.removesuffix(".txt") + ".html"


def _source_label(source: str) -> str:
    return {"outside": "outside references", "house": "house rule"}.get(source, source)


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in str(text))


def _tip(cell: Any) -> str:
    c = cell.citation
    if c is None:
        return "the DSL's default: no file writes this key"
    parts = [c.short()]
    parts += [f"“{q}”" for q in pieces(c.quote)]
    parts += [f"({g})" for g in pieces(c.gloss)]
    if c.note:
        parts.append(c.note)
    return " ".join(parts)


def _sources_cited(doc: Mapping[str, Any]) -> set[str]:
    from escoba.rules.resolve import citations

    found = {str(c.get("source")) for _, c in citations(dict(doc))}
    for key in ("errata", "unsupported"):
        found |= {str(i.get("source")) for i in doc.get(key) or []}
    if isinstance(doc.get("source"), str):
        found.add(doc["source"])
    return {f for f in found if f.endswith(".txt")}


def _sides(doc: Mapping[str, Any], players: int) -> list[list[int]]:
    for p in (doc.get("players") or {}).get("partnerships") or []:
        if p.get("players") == players:
            return [list(side) for side in p.get("sides", [])]
    return [[s] for s in range(players)]


def _probe_text(move: Any) -> str:
    return move if isinstance(move, str) else json.dumps(move, ensure_ascii=False)


def _headline(s: frames.Step, names: list[str], side_names: list[str], fc: faces_mod.Faces) -> tuple[Markup, Markup]:
    """The step's title and the line under it, cards written in both face styles."""
    empty = Markup("")
    if s.kind == "deal":
        if s.turned is not None and s.dealt is not None:
            head = Markup("{} deals").format(names[s.dealer] if s.dealer is not None else "The dealer")
            bits = [Markup("table {}").format(fc.labels(s.turned))]
        else:
            head, bits = Markup("New hands"), []
        if s.opening:
            o = s.opening
            who = names[o["seat"]] if o.get("seat") is not None else "the dealer"
            what = {"dealer_takes": f"{who} takes the opening table", "set_aside": "the opening table is set aside",
                    "redeal": "the table is dealt again"}  # fmt: skip
            escobas = int(o.get("escobas") or 0)
            bits.append(Markup("{}: {}{}").format(
                what.get(str(o.get("action")), str(o.get("action"))), fc.labels(list(o.get("cards", []))),
                f", {escobas} escoba{'s' if escobas != 1 else ''}" if escobas else "",
            ))  # fmt: skip
        return head, Markup("; ").join(bits)
    if s.kind in ("play", "offer") and s.seat is not None:
        who = names[s.seat]
        if s.card is None:
            return Markup("{} to play").format(who), empty
        if s.take:
            move = Markup("{} plays {} and takes {}").format(who, fc.label(s.card), fc.labels(s.take))
        else:
            move = Markup("{} places {} on the table").format(who, fc.label(s.card))
        if s.escoba:
            move += " — escoba!" if s.escoba_scores else " — the table is cleared (an escoba that scores nothing)"
        return move, empty
    if s.kind == "leftovers" and s.leftovers is not None:
        side = s.leftovers.get("side")
        who = side_names[side] if isinstance(side, int) and side < len(side_names) else "nobody"
        return Markup("Leftovers to {}").format(who), fc.labels(list(s.leftovers.get("cards", [])))
    if s.kind == "scoring":
        if s.hand_end:
            return Markup("Scoring: {}").format("–".join(str(p) for p in s.hand_end.get("points", []))), empty
        return Markup("Scoring"), empty
    if s.kind == "match_end":
        return Markup("Match over"), empty
    if s.kind == "tie":
        return Markup("Tie"), empty
    if s.kind == "other":
        return Markup("Another event"), empty
    return Markup(s.kind), empty


def audit_view() -> dict[str, Any] | None:
    """How strong the bundled suite is: the ruleset audit kept beside the cases
    (conformance/audit.json, `escoba cases audit`), its figures per rule point and per
    ruleset and its equivalent mutants with their reasons; None when there is none."""
    from escoba.mutation.audit import EQUIVALENT, bundled_cache, read_audit
    from escoba.mutation.report import figures, shown_rulesets

    path = bundled_cache()
    if not path.is_file():
        return None
    audit = read_audit(path)
    equivalent = [
        {"mutant": e.label, "reason": "; ".join(x.rstrip(".") for x in (e.reason, e.why) if x), "games": e.games, "rulesets": shown_rulesets(e.origins)}
        for e in audit.entries if e.verdict == EQUIVALENT
    ]  # fmt: skip
    return {"figures": figures(audit), "bar": audit.bar, "cases": audit.cases, "rulesets": len(audit.rulesets),
            "ok": audit.ok, "equivalent": equivalent}  # fmt: skip


def _case_views(cases: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    order = {"fail": 0, "crash": 1, "timeout": 2, "error": 3, "broken-case": 4, "unsupported": 5, "xfail": 6, "pass": 7}
    out = []
    for c in cases:
        outcome = str(c.get("outcome", ""))
        message = str(c.get("message") or "")
        out.append({
            "id": c.get("id"), "outcome": outcome, "title": c.get("title", ""), "clause": c.get("clause", ""),
            "new": bool(c.get("new")), "detail": outcome != "pass", "open": False,
            "summary": message.splitlines()[0] if message else outcome,
            "message": message if "\n" in message else "", "divergence": c.get("divergence"),
            "context": c.get("context") or [], "missing": c.get("missing") or [], "stderr": c.get("stderr") or "",
            "expectation": c.get("expectation"), "replay": c.get("replay", ""),
            "divergences": [d for d in c.get("divergences") or [] if isinstance(d, Mapping)],
        })  # fmt: skip
    out.sort(key=lambda v: (order.get(v["outcome"], 8), str(v["id"])))
    return out


def _profile(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The report's rules profile (schemas/report.schema.json `profile`): every rule point's verdict."""
    rows = []
    for item in report.get("profile") or []:
        if not isinstance(item, Mapping):
            continue
        status = str(item.get("status", ""))
        example = item.get("example") if isinstance(item.get("example"), Mapping) else None
        rows.append({
            "key": str(item.get("point", "")), "label": str(item.get("label") or item.get("point", "")),
            "concern": str(item.get("concern", "")), "verdict": status.replace(" ", "-"), "status": status,
            "agree": item.get("agree", 0), "differ": item.get("differ", 0),
            "cases": [str(c) for c in item.get("cases") or []], "example": example,
            "value_counts": [v for v in item.get("values") or [] if isinstance(v, Mapping)],
            "declared": item.get("declared"), "inferred": list(item.get("inferred") or []),
        })  # fmt: skip
    return rows


def _profile_rows(engines: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    keys: dict[str, str] = {}
    for e in engines:
        for p in e["profile"]:
            keys.setdefault(p["key"], p["label"])
    rows = []
    for key, label in keys.items():
        verdicts = [next((p for p in e["profile"] if p["key"] == key), None) for e in engines]
        mixed = len({v["status"] if v else None for v in verdicts}) > 1
        rows.append({"label": label, "verdicts": verdicts, "mixed": mixed})
    return rows


def _diff_charts(rescore: Mapping[str, Any] | None, simulation: Mapping[str, Any] | None, ids: tuple[str, str]) -> dict[str, Any]:
    names = [("a", f"A: {ids[0]}"), ("b", f"B: {ids[1]}")]
    out: dict[str, Any] = {}
    if rescore:
        groups = [
            (str(c.get("id")), [charts.Bar("a", c.get("a_points_per_hand")), charts.Bar("b", c.get("b_points_per_hand"))])
            for c in rescore.get("categories", [])
        ]
        total = rescore.get("total") or {}
        if total:
            groups.append(("all points", [charts.Bar("a", total.get("a_points_per_hand")), charts.Bar("b", total.get("b_points_per_hand"))]))
        out["points"] = charts.bars("Points per hand, the same hands", groups, names)
        hands = max(int(rescore.get("replayed") or rescore.get("hands") or 0), 1)
        changed = [
            (str(c.get("id")), [charts.Bar("b", 100.0 * int(c.get("hands_changed") or 0) / hands, f"{c.get('hands_changed', 0)} hands")])
            for c in rescore.get("categories", [])
        ]
        winner = rescore.get("winner_changed") or {}
        if winner:
            changed.append(("hand's winner", [charts.Bar("b", 100.0 * float(winner.get("share", 0.0)), f"{winner.get('hands', 0)} hands")]))
        out["winners"] = charts.bars("Hands that change under B (% of replayed hands)", changed, [names[1]])
    if simulation:
        def interval(series: str, item: Mapping[str, Any] | None) -> charts.Interval:
            if not item:
                return charts.Interval(series, None)
            low, high = (item.get("ci95") or item.get("ci") or [None, None])[:2]
            return charts.Interval(series, item.get("mean"), low, high)

        rows = [(str(r.get("label")), [interval("a", r.get("a")), interval("b", r.get("b"))]) for r in simulation.get("per_hand", [])]
        out["intervals"] = charts.intervals("Per hand, each ruleset on its own (95% intervals)", rows, names)
        rows = [(str(r.get("label")), [interval("a", r.get("a")), interval("b", r.get("b"))]) for r in simulation.get("per_match", [])]
        out["matches"] = charts.intervals("Per match: length and wins (95% intervals)", rows, names)
        paired = []
        for r in [*simulation.get("per_hand", []), *simulation.get("per_match", [])]:
            d = r.get("difference")
            if isinstance(d, Mapping) and d.get("mean") is not None:
                low, high = (d.get("ci") or d.get("ci95") or [None, None])[:2]
                paired.append((str(r.get("label")), [charts.Interval("b", d["mean"], low, high)]))
        if paired:
            out["paired"] = charts.intervals("B − A on the same hands and matches, paired (95% intervals)", paired,
                                             [("b", f"B − A: {ids[1]} − {ids[0]}")], zero=True)  # fmt: skip
    return out


def _load_showcase() -> dict[str, Any] | None:
    import yaml

    text = (resources.files("escoba.site") / "showcase.yaml").read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    return data if isinstance(data, dict) else None
