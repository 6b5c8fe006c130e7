"""Card faces: each card drawn both ways, in the Spanish suits and in the French-suited deck.

A card is shown from its wire code (`7d`, `Ss`, `X1`) and the ruleset's deck section. Both
faces are written into the page and a class on the page's body picks one, so the reader can
switch without a reload. Spanish faces show the rank as the notation writes it (1–7, S sota,
C caballo, R rey) beside a drawn suit; French faces show the letters of a French deck and the
suit symbol the ruleset gives (♦ ♥ ♠ ♣). Suits are matched to pictures by that symbol, so a
ruleset that names its suits differently (denari, coppe…) still gets coins, cups, swords and
clubs.

The letters of French court cards depend on the language of the text: the Swedish text writes
E, Kn, D, K (ess, knekt, dam, kung) where an English one writes A, J, Q, K. This is how the
page looks, not a rule of the game: no rule reads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from escoba import escape

# The picture of each suit symbol (ids of the <symbol>s in templates/suits.svg.j2).
PICTURES = {"♦": "coins", "♥": "cups", "♠": "swords", "♣": "clubs"}
RED = {"♦", "♥"}

# French court letters by capture value, per language of the ruleset (English otherwise).
FRENCH_LETTERS: dict[str, dict[int, str]] = {
    "sv": {1: "E", 8: "Kn", 9: "D", 10: "K"},
    "": {1: "A", 8: "J", 9: "Q", 10: "K"},
}


def default_faces(language: str | None) -> str:
    """`french` for a ruleset whose text deals a French-suited deck in its own letters."""
    return "french" if language in FRENCH_LETTERS and language else "spanish"


@dataclass(frozen=True)
class CardInfo:
    code: str
    spanish: str  # rank as the notation writes it
    french: str
    picture: str  # coins, cups, swords, clubs; "joker"
    symbol: str
    name: str  # "Siete de Oros"


class Faces:
    """The faces of one deck; `card(code)` is the HTML of one card."""

    def __init__(self, deck: Mapping[str, Any], language: str | None = None):
        letters = FRENCH_LETTERS.get(language or "", FRENCH_LETTERS[""])
        self.info: dict[str, CardInfo] = {}
        for suit in deck["suits"]:
            symbol = str(suit.get("symbol", ""))
            for rank in deck["ranks"]:
                code = f"{rank['ascii']}{suit['ascii']}"
                value = int(rank["value"])
                self.info[code] = CardInfo(
                    code=code,
                    spanish=str(rank["ascii"]),
                    french=letters.get(value, str(rank["ascii"])),
                    picture=PICTURES.get(symbol, "coins"),
                    symbol=symbol,
                    name=f"{rank.get('name', rank['id'])} de {suit.get('name', suit['id'])}",
                )
        for j in range(1, int(deck.get("jokers") or 0) + 1):
            code = f"X{j}"
            self.info[code] = CardInfo(code, "★", "★", "joker", "", f"Comodín {j}")
        self._html: dict[tuple[str, str], Markup] = {}
        self._labels: dict[str, Markup] = {}

    def card(self, code: str, extra: str = "") -> Markup:
        key = (code, extra)
        hit = self._html.get(key)
        if hit is not None:
            return hit
        info = self.info.get(code)
        if info is None:  # a code the deck does not know: show it as written
            # (an engine or a case file wrote it: escaped as every text of the pages is)
            html = Markup('<span class="card unknown{}">{}</span>').format(f" {extra}" if extra else "", Markup(escape.html(code)))
        elif info.picture == "joker":
            html = Markup(
                '<span class="card joker{x}" title="{name}" data-card="{code}"><b>★</b><i>{code}</i></span>'
            ).format(x=f" {extra}" if extra else "", name=info.name, code=code)
        else:
            colour = "red" if info.symbol in RED else "black"
            # The <symbol>s carry their viewBox, so a bare <svg><use> scales to the CSS size.
            html = Markup(
                '<span class="card {pic} {colour}{x}" title="{name}" data-card="{code}">'
                '<b class="es">{sp}</b><b class="fr">{fr}</b><svg class="es"><use href="#{pic}"/></svg>'
                '<i class="fr">{sym}</i></span>'
            ).format(pic=info.picture, colour=colour, x=f" {extra}" if extra else "", name=info.name,
                     sp=info.spanish, sym=info.symbol, fr=info.french, code=code)  # fmt: skip
        self._html[key] = html
        return html

    def label(self, code: str) -> Markup:
        """A card as text in both face styles (`S♠` or `Kn♠`); the page shows one."""
        hit = self._labels.get(code)  # a site writes each card's label tens of thousands of times
        if hit is None:
            hit = self._labels[code] = self._label(code)
        return hit

    def _label(self, code: str) -> Markup:
        info = self.info.get(code)
        if info is None or info.picture == "joker" or info.spanish == info.french:
            return Markup("{}{}").format(info.spanish if info and info.picture != "joker" else code, info.symbol if info else "")
        return Markup('<span class="es">{sp}{sym}</span><span class="fr">{fr}{sym}</span>').format(
            sp=info.spanish, fr=info.french, sym=info.symbol
        )

    def labels(self, codes: list[str]) -> Markup:
        return Markup(" ").join(self.label(c) for c in codes)
