"""A case as a person reads it: the deal, each play in notation, the table after it, escobas
marked, and the score table. For auditing a golden against the rule text:

    python -m escoba.transcript.render sv.example-game
    python -m escoba.transcript.render conformance/cases/rules/opening.thirty-splits.fr.json

Everything shown comes from the case's `expect` (what an engine must produce), so the
rendering shows the golden itself, not a fresh run of the engine. In the Swedish example
game, lines the source text states are marked `T`; the others are the filled-in part.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

from escoba.transcript.case import Case, cases_dir, load_case, load_cases

ESCOBA = "★ escoba"


class _Renderer:
    def __init__(self, case: Case):
        self.case = case
        self.deck = case.rules.deck
        self.code = {c: i for i, c in enumerate(self.deck.code)}
        self.sides = case.rules.sides(case.players)
        self.lines: list[str] = []
        self.table: list[str] = []
        self.plays = 0
        self.hand_no = 0

    def text(self, codes: Sequence[str]) -> str:
        return " ".join(self.deck.text[self.code[c]] for c in codes) or "—"

    def total(self, codes: Sequence[str]) -> int:
        return sum(self.deck.value[self.code[c]] for c in codes)

    def side_name(self, side: int | None) -> str:
        if side is None:
            return "nobody"
        seats = self.sides[side]
        return f"side {side} (seats {' & '.join(map(str, seats))})" if len(seats) > 1 else f"seat {seats[0]}"

    def emit(self, index: int | None, text: str) -> None:
        mark = "T " if index is not None and index in self.case.from_text else "  "
        self.lines.append(f"{mark}{text}" if self.case.from_text else f"  {text}")

    def render(self) -> str:
        case = self.case
        head = f"{case.id} — {case.title}"
        self.lines += [head, "=" * min(len(head), 100)]
        table = "single hand" if case.target is None else f"match to {case.target}"
        self.lines.append(
            f"ruleset {case.ruleset}, {case.players} players, dealer seat {case.dealer}, {table}; "
            f"clause {case.clause}; audit: {case.audit}"
        )
        for note in case.notes:
            self.lines.append(f"note: {note}")
        if case.source:
            quote = f": “{case.source['quote']}”" if case.source.get("quote") else ""
            self.lines.append(f"source: {case.source['file']}{quote}")
        for pin in case.pins:
            self.lines.append("pin: " + ", ".join(f"{k}={v}" for k, v in pin.items()))
        if case.from_text:
            self.lines.append("T = stated by the source text; unmarked lines are filled in consistently with it")
        scores: list[dict] = []
        for i, e in enumerate(case.expect):
            getattr(self, "_" + e["event"])(i, e, scores)
        if case.probe is not None:
            shown = case.probe.move if isinstance(case.probe.move, str) else repr(case.probe.move)
            self.lines += ["", f"probe: {shown} must be refused as {case.probe.reason}"]
        if case.perft is not None:
            self.lines += ["", f"perft: {case.perft.count} distinct play sequences of {case.perft.depth} plays from here"]
        return "\n".join(self.lines) + "\n"

    # ---------------------------------------------------------------- one method per event
    def _hand_start(self, i, e, scores):
        self.hand_no += 1 if not (self.lines and self.lines[-1].endswith("redeal")) else 0
        self.plays, self.table = 0, []
        self.lines.append("")
        self.emit(i, f"Hand {self.hand_no}: seat {e['dealer']} deals, seat {e['leader']} leads")

    def _table(self, i, e, scores):
        self.table = list(e["cards"])
        self.emit(i, f"table: {self.text(e['cards'])} (total {self.total(e['cards'])})")

    def _deal(self, i, e, scores):
        hands = " | ".join(f"seat {s}: {self.text(h)}" for s, h in enumerate(e["hands"]))
        self.emit(i, f"deal: {hands}")

    def _opening(self, i, e, scores):
        cards = self.text(e["cards"])
        if e["action"] == "redeal":
            self.emit(i, f"opening table {cards} makes 15: redeal")
            return
        self.table = []
        if e["action"] == "dealer_takes":
            extra = f", {e['escobas']} escoba(s)" if e["escobas"] else ", no escoba"
            self.emit(i, f"opening table {cards}: dealer seat {e['seat']} takes it ({e['groups']} group(s) of 15{extra})")
        else:
            self.emit(i, f"opening table {cards}: set aside ({e['groups']} group(s) of 15), no escoba")

    def _legal(self, i, e, scores):
        pass  # the choices are in the case; printing them all would drown the game

    def _rejected(self, i, e, scores):
        from escoba.errors import NotationError
        from escoba.notation import format_move, move_from_wire

        try:
            shown = format_move(move_from_wire(e["move"], self.deck), self.deck)
        except NotationError:  # malformed on purpose: shown as sent
            shown = json.dumps(e["move"], ensure_ascii=False)
        self.emit(i, f"   ✗ probe {shown}: refused ({e['rule']})")

    def _state(self, i, e, scores):
        self.emit(i, "    state after the refusal: " + ("hand over" if e["to_play"] is None else f"seat {e['to_play']} to play")
                  + f", table {self.text(e['table'])}")  # fmt: skip

    def _play(self, i, e, scores):
        self.plays += 1
        card = self.deck.text[self.code[e["card"]]]
        if e["take"]:
            for c in e["take"]:
                self.table.remove(c)
            move = f"{card} x {self.text(e['take'])}"
        else:
            self.table.append(e["card"])
            move = card
        self.emit(i, f"{self.plays:>3}. seat {e['seat']}: {move:<24} table: {self.text(self.table)}")

    def _escoba(self, i, e, scores):
        what = ESCOBA if e["scores"] else f"{ESCOBA} (made with a joker: scores nothing)"
        self.lines[-1] = self.lines[-1].rstrip() + f"   {what} for {self.side_name(e['side'])}"
        if i in self.case.from_text and not self.lines[-1].startswith("T"):
            self.lines[-1] = "T" + self.lines[-1][1:]

    def _leftovers(self, i, e, scores):
        self.table = []
        self.emit(i, f"left on the table: {self.text(e['cards'])} → {self.side_name(e['side'])}")

    def _score(self, i, e, scores):
        scores.append((i, e))

    def _hand_end(self, i, e, scores):
        sides = range(len(e["points"]))
        width = max([len(str(s[1]["category"])) for s in scores] + [12])
        self.emit(None, "")
        self.emit(None, f"{'':<{width}}  " + "".join(f"{self.side_name(s):>24}" for s in sides))
        for index, s in scores:
            cells = "".join(f"{_measure(m) + ' → ' + str(p):>24}" for m, p in zip(s["measures"], s["points"]))
            self.emit(index, f"{s['category']:<{width}}  {cells}")
        self.emit(None, f"{'cards taken':<{width}}  " + "".join(f"{c:>24}" for c in e["cards"]))
        self.emit(i, f"{'hand points':<{width}}  " + "".join(f"{p:>24}" for p in e["points"]))
        scores.clear()

    def _totals(self, i, e, scores):
        self.emit(i, f"totals after hand {e['hand']}: " + ", ".join(f"{self.side_name(s)} {t}" for s, t in enumerate(e["totals"])))

    def _tie(self, i, e, scores):
        self.emit(i, f"exact tie over the target ({', '.join(self.side_name(s) for s in e['sides'])}): another hand")

    def _match_end(self, i, e, scores):
        self.emit(i, f"match over: {' and '.join(self.side_name(s) for s in e['winners'])} win(s)")


def _measure(value: object) -> str:
    if value is None:
        return "–"
    if value is True:
        return "yes"
    if value is False:
        return "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def render_case(case: Case) -> str:
    """The case as text for a person."""
    return _Renderer(case).render()


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print("usage: python -m escoba.transcript.render CASE-ID-OR-FILE ...", file=sys.stderr)
        return 2
    for arg in args:
        path = Path(arg)
        found = [load_case(path)] if path.is_file() else load_cases(cases_dir(), pattern=arg)
        if not found:
            print(f"no case matches {arg!r}", file=sys.stderr)
            return 1
        for case in found:
            sys.stdout.write(render_case(case))
    return 0


if __name__ == "__main__":
    sys.exit(main())
