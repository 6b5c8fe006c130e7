"""The points on which a ruleset takes a position, read off a resolved document.

Both the structural diff and the rules matrix are built from the same list, so the matrix rows
and the diff lines cannot drift apart: each `Point` is one row of the rules catalogue
(the rows of docs/rules-matrix.md), with its value as the engine reads it, a short text for
people, a `meaning` that two rulesets share exactly when they agree (a measure's canonical
form, a holder card by rank and suit, a list of player counts as a set...), and the citation
that backs it.

Keys the DSL lets a file leave out take the engine's default (see docs/dsl.md), so
a file that writes `table_first: false` and one that leaves it out agree.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

# (id, title) in the order the diff and the matrix show them.
CONCERNS: tuple[tuple[str, str], ...] = (
    ("deck", "Deck"),
    ("players", "Players & turn"),
    ("deal", "Deal"),
    ("opening", "Opening table"),
    ("capture", "Capture"),
    ("leftovers", "Leftovers"),
    ("scoring", "Scoring"),
    ("match", "Match"),
)
CONCERN_TITLES = dict(CONCERNS)

# What the engine does when a key is left out (rules/compile.py and the schema's descriptions).
DEFAULTS: dict[tuple[str, str], Any] = {
    ("deck", "jokers"): 0,
    ("players", "partnerships"): [],
    ("deal", "table_first"): False,
    ("deal", "short_stock"): "forbid",
    ("deal", "open_hands"): False,
    ("opening_table", "max_groups"): 1,
    ("capture", "kinds"): [{"sum": "target", "priority": "none"}],
    ("capture", "escoba_on_last_play"): True,
    ("capture", "joker_escobas_score"): True,
    ("leftovers", "escoba"): False,
    ("leftovers", "if_nobody_captured"): "discard",
    ("match", "check"): "end_of_hand",
    ("match", "several_reach"): "highest_wins",
}

_WORDS = {
    "dealer_right": "dealer's right",
    "dealer_left": "dealer's left",
    "counterclockwise": "counter-clockwise",
    "clockwise": "clockwise",
    "all_cards": "the whole table splits into groups making the target",
    "any_combination": "any part of the table makes the target",
    "total": "the table's cards add up to the target (or a multiple)",
    "dealer_takes": "dealer takes them",
    "set_aside": "set aside",
    "redeal": "redeal",
    "none": "none",
    "one": "one",
    "per_group": "one per group making the target",
    "optional": "optional",
    "card": "card level (a played card that can capture must)",
    "hand": "hand level (must capture if any card can)",
    "last_capturer": "last capturer",
    "dealer": "dealer",
    "discard": "discarded",
    "forbid": "must divide into whole rounds",
    "one_at_a_time": "last short round one card at a time",
    "end_of_hand": "end of a hand",
    "highest_wins": "highest total wins",
    "extra_hand": "another hand",
    "shared_win": "shared win",
}


@dataclass(frozen=True)
class Citation:
    """The provenance of one point, as the resolved document carries it."""

    status: str
    source: str
    inherited_from: str | None = None
    quote: Any = None
    gloss: Any = None
    note: str | None = None
    path: str | None = None  # JSON path of the citation in the resolved document

    @classmethod
    def of(cls, data: Any, path: str) -> Citation | None:
        if not isinstance(data, Mapping) or "status" not in data:
            return None
        return cls(
            status=str(data["status"]),
            source=str(data.get("source", "")),
            inherited_from=data.get("inherited_from"),
            quote=data.get("quote"),
            gloss=data.get("gloss"),
            note=data.get("note"),
            path=path,
        )

    def short(self) -> str:
        """`stated · 001` / `default · outside ← base`: status, source file stem prefix, origin."""
        source = self.source
        if source.endswith(".txt"):
            source = source.split("_", 1)[0]
        text = f"{self.status} · {source}" if source else self.status
        if self.inherited_from:
            text += f" ← {self.inherited_from}"
        return text

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"status": self.status, "source": self.source, "inherited_from": self.inherited_from}
        for name in ("quote", "gloss", "note"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out


@dataclass(frozen=True)
class Point:
    """One position a ruleset takes. `meaning` is what is compared; `text` is what is shown."""

    concern: str
    key: str  # stable identifier: `capture.compulsory`, `scoring.cards.award`
    label: str
    value: Any  # plain JSON data
    text: str
    meaning: Any = field(compare=False)
    citation: Citation | None = field(default=None, compare=False)
    written: bool = True  # False: the key is absent and the engine default applies
    path: str | None = field(default=None, compare=False)  # JSON path of the value, when written


# --------------------------------------------------------------------------- formatting
def word(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "—"
    return _WORDS.get(str(value), str(value))


def _suits_text(deck: Mapping[str, Any]) -> str:
    suits = deck.get("suits") or []
    ranks = deck.get("ranks") or []
    jokers = int(deck.get("jokers") or 0)
    count = len(suits) * len(ranks) + jokers
    names = ", ".join(f"{s.get('id')} {s.get('symbol', '')}".strip() for s in suits)
    return f"{count} cards: {len(suits)} suits ({names}) × {len(ranks)} ranks"


def _values_text(ranks: list[Mapping[str, Any]]) -> str:
    parts: list[str] = []
    run: list[str] = []
    for r in ranks:
        rid, value = str(r.get("id")), r.get("value")
        if rid.isdigit() and value == int(rid):
            run.append(rid)
            continue
        if run:
            parts.append(f"{run[0]}–{run[-1]} face value" if len(run) > 1 else f"{run[0]} = {run[0]}")
            run = []
        parts.append(f"{rid} {value}")
    if run:
        parts.append(f"{run[0]}–{run[-1]} face value" if len(run) > 1 else f"{run[0]} = {run[0]}")
    return ", ".join(parts)


def _partnerships_text(value: list[Mapping[str, Any]]) -> str:
    if not value:
        return "none (each for themselves)"
    out = []
    for p in sorted(value, key=lambda p: p.get("players", 0)):
        sides = " v ".join("+".join(str(s) for s in side) for side in p.get("sides", []))
        out.append(f"at {p.get('players')}: seats {sides}")
    return "; ".join(out)


def _number(x: Any) -> Any:
    if isinstance(x, float) and x.is_integer():
        return int(x)
    return x


# --------------------------------------------------------------------------- measures
class _Meanings:
    """Canonical forms of a ruleset's expressions and cards, compiled once per document."""

    def __init__(self, doc: Mapping[str, Any]):
        self.doc = doc
        self._env: Any = None
        self._deck: Any = None

    def env(self) -> Any:
        if self._env is None:
            from escoba.rules.expr import env_from_deck

            self._env = env_from_deck(dict(self.doc["deck"]), dict(self.doc.get("values") or {}))
        return self._env

    def measure(self, text: str) -> str:
        """The canonical form: spacing, aliases, redundant brackets and folded literals vanish."""
        from escoba.rules.expr import ExprError, compile_expression

        try:
            return compile_expression(str(text), self.env()).canonical
        except ExprError:  # a document that failed validation is never diffed; keep the text
            return " ".join(str(text).split())

    def bound(self, value: Any) -> Any:
        """A threshold, as the number it stands for in this deck (`count(deck) / 2` is 20)."""
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return _number(value)
        from escoba.rules.expr import ExprError, compile_expression

        try:
            return _number(compile_expression(str(value), self.env(), context="global").fn((), 0))
        except ExprError:
            return " ".join(str(value).split())

    def card(self, text: Any) -> tuple[str, str] | str:
        """A holder card as (rank id, suit id): `7 oros`, `7♦` and `7o` are one card."""
        from escoba.errors import NotationError
        from escoba.game.cards import Deck

        if self._deck is None:
            self._deck = Deck.from_section(self.doc["deck"])
        deck = self._deck
        try:
            c = deck.card(str(text))
        except NotationError:
            return str(text)
        if deck.is_joker(c):
            return deck.code[c]
        return (deck.rank_ids[deck.rank[c]], deck.suit_ids[deck.suit[c]])

    def card_text(self, text: Any) -> str:
        from escoba.errors import NotationError
        from escoba.game.cards import Deck

        if self._deck is None:
            self._deck = Deck.from_section(self.doc["deck"])
        try:
            return self._deck.text[self._deck.card(str(text))]
        except NotationError:
            return str(text)


# --------------------------------------------------------------------------- extraction
@dataclass(frozen=True)
class _Spec:
    concern: str
    section: str
    key: str  # key in the section; also the provenance key
    label: str
    text: Callable[[Any, Mapping[str, Any]], str] = lambda v, doc: word(v)
    meaning: Callable[[Any, Mapping[str, Any]], Any] = lambda v, doc: v
    value: Callable[[Mapping[str, Any]], Any] | None = None


_KIND_SUMS = {"target": "card + taken = target", "card": "taken = card's value"}
_PRIORITIES = {"none": "", "single_card": " (a single card first)", "fewest_cards": " (fewest cards)"}


def _kinds(v: Any) -> list[tuple[str, str]]:
    return [(str(k.get("sum")), str(k.get("priority", "none"))) for k in v or ()]


def _kinds_text(v: Any, doc: Any) -> str:
    return "; or ".join(_KIND_SUMS.get(s, s) + _PRIORITIES.get(p, f" ({p})") for s, p in _kinds(v))


def _sorted_partnerships(v: Any, doc: Any) -> Any:
    return sorted(
        (p.get("players"), tuple(sorted(tuple(sorted(s)) for s in p.get("sides", [])))) for p in v or []
    )


SECTION_SPECS: tuple[_Spec, ...] = (
    _Spec("deck", "deck", "suits", "deck",
          text=lambda v, doc: _suits_text(doc["deck"]),
          meaning=lambda v, doc: tuple(s.get("id") for s in v or ()) + ("×",) + tuple(str(r.get("id")) for r in doc["deck"].get("ranks") or ())),
    _Spec("deck", "deck", "ranks", "capture values",
          text=lambda v, doc: _values_text(v or []),
          meaning=lambda v, doc: tuple((str(r.get("id")), _number(r.get("value"))) for r in v or ())),
    _Spec("deck", "deck", "scoring_suit", "scoring suit (coins)"),
    _Spec("deck", "deck", "jokers", "jokers"),
    _Spec("players", "players", "counts", "player counts",
          text=lambda v, doc: ", ".join(str(c) for c in sorted(v or [])),
          meaning=lambda v, doc: tuple(sorted(set(v or [])))),
    _Spec("players", "players", "partnerships", "partnerships",
          text=lambda v, doc: _partnerships_text(v or []), meaning=_sorted_partnerships),
    _Spec("players", "turn", "direction", "direction of play"),
    _Spec("players", "turn", "leader", "who leads"),
    _Spec("players", "turn", "next_dealer", "the deal passes to the"),
    _Spec("deal", "deal", "hand_size", "cards per hand"),
    _Spec("deal", "deal", "table_size", "cards on the table"),
    _Spec("deal", "deal", "table_first", "table dealt before the hands"),
    _Spec("deal", "deal", "short_stock", "a stock that does not divide"),
    _Spec("deal", "deal", "open_hands", "hands played face up"),
    _Spec("opening", "opening_table", "trigger", "opening table: trigger"),
    _Spec("opening", "opening_table", "max_groups", "opening table: groups counted"),
    _Spec("opening", "opening_table", "action", "opening table: action"),
    _Spec("opening", "opening_table", "escobas", "opening table: escobas"),
    _Spec("capture", "capture", "target", "capture target"),
    _Spec("capture", "capture", "compulsory", "compulsory capture"),
    _Spec("capture", "capture", "kinds", "capture kinds", text=_kinds_text,
          meaning=lambda v, doc: tuple(sorted(_kinds(v)))),
    _Spec("capture", "capture", "escoba_on_last_play", "escoba on the last play"),
    _Spec("capture", "capture", "joker_escobas_score", "escobas made with a joker score"),
    _Spec("leftovers", "leftovers", "to", "leftovers go to the"),
    _Spec("leftovers", "leftovers", "escoba", "leftovers are an escoba"),
    _Spec("leftovers", "leftovers", "if_nobody_captured", "leftovers when nobody captured"),
    _Spec("match", "match", "target", "target"),
    _Spec("match", "match", "target_options", "target options",
          text=lambda v, doc: ", ".join(str(t) for t in v or []),
          meaning=lambda v, doc: tuple(sorted(set(v or [])))),
    _Spec("match", "match", "check", "target checked at"),
    _Spec("match", "match", "several_reach", "several reach the target"),
    _Spec("match", "match", "tie", "exact tie"),
)  # fmt: skip


def _section_value(doc: Mapping[str, Any], section: str, key: str) -> tuple[Any, bool]:
    body = doc.get(section) or {}
    if key in body:
        return body[key], True
    if (section, key) == ("match", "target_options"):
        return [body.get("target")], False
    return DEFAULTS.get((section, key)), False


def _provenance(doc: Mapping[str, Any], section: str, key: str) -> Citation | None:
    body = doc.get(section) or {}
    prov = body.get("provenance") or {}
    return Citation.of(prov.get(key), f"$.{section}.provenance.{key}")


def extract(doc: Mapping[str, Any]) -> list[Point]:
    """Every point of a resolved document, in catalogue order (categories in document order)."""
    meanings = _Meanings(doc)
    points: list[Point] = []
    for spec in SECTION_SPECS:
        value, written = _section_value(doc, spec.section, spec.key)
        points.append(
            Point(
                concern=spec.concern,
                key=f"{spec.section}.{spec.key}",
                label=spec.label,
                value=value,
                text=spec.text(value, doc),
                meaning=spec.meaning(value, doc),
                citation=_provenance(doc, spec.section, spec.key),
                written=written,
                path=f"$.{spec.section}.{spec.key}" if written else None,
            )
        )
    scoring = _scoring_points(doc, meanings)
    first_match = next(i for i, p in enumerate(points) if p.concern == "match")
    return points[:first_match] + scoring + points[first_match:]


def _values_map_text(m: Mapping[str, Any]) -> str:
    return " ".join(f"{k}={_number(v)}" for k, v in sorted(m.items(), key=lambda kv: (-float(kv[1]), str(kv[0]))))


def _scoring_points(doc: Mapping[str, Any], meanings: _Meanings) -> list[Point]:
    points: list[Point] = []
    categories = (doc.get("scoring") or {}).get("categories") or []
    for index, cat in enumerate(categories):
        cid = str(cat["id"])
        title = str(cat.get("title", cid))
        citation = Citation.of(cat.get("provenance"), f"$.scoring.categories[{index}].provenance")
        award = dict(cat.get("award") or {})
        policy = award.get("policy")
        at = f"$.scoring.categories[{index}]"
        points.append(
            Point("scoring", f"scoring.{cid}", f"{cid}: category", {"id": cid, "title": title}, title, True, citation,
                  path=at)
        )  # fmt: skip
        points.append(
            Point("scoring", f"scoring.{cid}.award", f"{cid}: award", award, award_text(award, meanings),
                  award_meaning(award, meanings), citation, path=f"{at}.award")
        )  # fmt: skip
        if "measure" in cat and policy != "holder":
            canonical = meanings.measure(cat["measure"])
            points.append(
                Point("scoring", f"scoring.{cid}.measure", f"{cid}: measure", cat["measure"], canonical, canonical,
                      citation, path=f"{at}.measure")
            )  # fmt: skip
        pts = _number(cat.get("points", 1))
        points.append(
            Point("scoring", f"scoring.{cid}.points", f"{cid}: points", pts, str(pts), pts, citation, "points" in cat,
                  path=f"{at}.points" if "points" in cat else at)
        )  # fmt: skip
    for name, table in sorted((doc.get("values") or {}).items()):
        meaning = tuple(sorted((str(k), _number(v)) for k, v in table.items()))
        points.append(
            Point("scoring", f"values.{name}", f"values: {name}", dict(table), _values_map_text(table), meaning, None,
                  path=f"$.values.{name}")
        )  # fmt: skip
    return points


def award_text(award: Mapping[str, Any], meanings: _Meanings | None = None) -> str:
    policy = award.get("policy")
    if policy == "most":
        return f"most (ties: {award.get('ties', 'nobody')})"
    if policy == "threshold":
        bound = award.get("more_than")
        shown = str(_number(bound)) if isinstance(bound, (int, float)) else str(bound)
        if meanings is not None and not isinstance(bound, (int, float)):
            shown += f" (= {meanings.bound(bound)})"
        return f"more than {shown}"
    if policy == "holder":
        card = award.get("card")
        return f"holder of {meanings.card_text(card) if meanings else card}"
    if policy == "per_unit":
        return "per unit"
    if policy == "bonus":
        return "bonus when the measure holds"
    return str(policy)


def award_meaning(award: Mapping[str, Any], meanings: _Meanings) -> Any:
    policy = award.get("policy")
    if policy == "most":
        return ("most", award.get("ties", "nobody"))
    if policy == "threshold":
        return ("threshold", meanings.bound(award.get("more_than")))
    if policy == "holder":
        return ("holder", meanings.card(award.get("card")))
    return (policy,)


def by_key(points: list[Point]) -> dict[str, Point]:
    return {p.key: p for p in points}


def category_ids(doc: Mapping[str, Any]) -> list[str]:
    return [str(c["id"]) for c in (doc.get("scoring") or {}).get("categories") or []]
