"""Checks a schema cannot state: cards that exist, a deal that can be dealt, a target that can
be made, partnerships that seat everyone once, measures that compile, quotes that really are in
the source. Each reports located problems.

Each check reads some parts of the resolved document, and runs only when the schema found
those parts as it says (`broken`: the JSON paths of the nodes it did not): so a schema problem
in one category does not hide a wrong card in another, nor an expression's problems.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from functools import cache
from typing import Any

from escoba.errors import NotationError, Problem, quoted
from escoba.game.cards import Deck
from escoba.rules import registry
from escoba.rules.expr import ExprError, compile_expression, env_from_deck
from escoba.rules.paths import join, locate, within
from escoba.rules.resolve import Resolved, citations
from escoba.rules.sources import fold, quoted_in, source_files

_SECTIONS = ("deck", "players", "turn", "deal", "opening_table", "capture", "leftovers", "match")
_NEEDS_NOTE = ("interpreted", "erratum", "default", "inferred")
MAX_SUM = 30  # the largest sum a capture may ask of the table (docs/dsl.md, capture)
_NOT_FILES = ("outside", "house")
# What a category's measure must be, by award policy.
_MEASURE_KIND = {"most": "number", "threshold": "number", "per_unit": "number", "bonus": "bool"}
_KIND_WORDS = {"number": "a number", "bool": "a condition (true or false)", "set": "a set of cards"}


def check(resolved: Resolved, broken: frozenset[str] = frozenset()) -> list[Problem]:
    """The semantic problems of a resolved document; with `broken` (the paths the schema
    found wrong), the checks that would read a broken node are left out."""
    checker = _Checker(resolved, broken)
    # Each check, with the parts it reads, which must be whole (categories and citations are
    # guarded one by one, inside their checks).
    steps: tuple[tuple[Any, tuple[tuple[str | int, ...], ...]], ...] = (
        (checker.file_name, (("id",),)),
        (checker.deck, (("deck",),)),
        (checker.values, (("deck",), ("values",))),
        (checker.players, (("players",),)),
        (checker.deal, (("deck",), ("players",), ("deal",))),
        (checker.target, (("deck",), ("capture",), ("opening_table",))),
        (checker.categories, (("deck",), ("values",))),
        (checker.outright, (("deck",), ("values",), ("match",), ("opening_table",))),
        (checker.unsaid, (("scoring",),)),
        (checker.citations, ()),
        (checker.cited_keys, ()),
    )
    for step, reads in steps:
        if all(checker.whole(parts) for parts in reads):
            step()
    return checker.problems


def check_document(doc: dict[str, Any]) -> list[Problem]:
    """The checks that bear on play, for a resolved document that comes with no files (a
    conformance runner's `start` request): the deck, values, players, deal, target, categories."""
    from types import SimpleNamespace

    checker = _Checker(SimpleNamespace(doc=doc, positions={}, files=[]))  # type: ignore[arg-type]
    for step in (checker.deck, checker.values, checker.players, checker.deal, checker.target, checker.categories, checker.outright):
        step()
    return checker.problems


class _Checker:
    def __init__(self, resolved: Resolved, broken: frozenset[str] = frozenset()):
        self.resolved = resolved
        self.doc = resolved.doc
        self.problems: list[Problem] = []
        self.broken = broken

    def whole(self, parts: Iterable[str | int], inside: bool = True) -> bool:
        """No broken node at `parts` or above it, nor (with `inside`) below it."""
        path = join(parts)
        return not any(within(path, bad) or (inside and within(bad, path)) for bad in self.broken)

    def problem(self, parts: Iterable[str | int], message: str, *, key: bool = False, **extra: Any) -> None:
        self.problems.append(Problem(locate(self.resolved.positions, parts, key=key), message, **extra))

    # -- the file ---------------------------------------------------------------------------

    def file_name(self) -> None:
        own = self.resolved.files[-1]
        if registry.is_bundled(own.path) and self.doc["id"] != own.path.stem:
            self.problem(("id",), f"id '{self.doc['id']}' does not match the file name {own.path.name}")

    # -- the deck ---------------------------------------------------------------------------

    def deck(self) -> None:
        deck = self.doc["deck"]
        for list_key, forms in (("suits", ("id", "symbol", "ascii", "aliases")), ("ranks", ("id", "ascii", "aliases"))):
            owners: dict[str, list[tuple[tuple[str | int, ...], str]]] = {}
            for i, item in enumerate(deck[list_key]):
                for form in forms:
                    names = (item.get(form) or []) if form == "aliases" else [item.get(form)]
                    for j, name in enumerate(names):
                        parts = ("deck", list_key, i, form, j) if form == "aliases" else ("deck", list_key, i, form)
                        if name is not None:
                            owners.setdefault(name, []).append((parts, item["id"]))
            for name, found in owners.items():
                if len({owner for _, owner in found}) > 1:
                    self.name_clash(name, found, list_key[:-1])
        self.card_codes(deck)
        suit_ids = {s["id"] for s in deck["suits"]}
        for i, rank in enumerate(deck["ranks"]):
            if rank["id"] in suit_ids:
                self.problem(("deck", "ranks", i, "id"), f"rank id '{rank['id']}' is also a suit id")
        if deck["scoring_suit"] not in suit_ids:
            hint = _did_you_mean(deck["scoring_suit"], suit_ids)
            self.problem(("deck", "scoring_suit"), f"no suit '{deck['scoring_suit']}' in the deck{hint}")

    def card_codes(self, deck: dict[str, Any]) -> None:
        """Each card's wire code (rank ascii + suit ascii, jokers X1, X2…) is plain ASCII and
        names one card: engines in any language read it, and `1` + `1c` must not be `11` + `c`."""
        for list_key in ("suits", "ranks"):
            for i, item in enumerate(deck[list_key]):
                form = str(item.get("ascii", ""))
                if not _ASCII_FORM.fullmatch(form):
                    self.problem(
                        ("deck", list_key, i, "ascii"),
                        f"the ascii form {quoted(form)} must be ASCII letters and digits: it is part of a card's code on the wire",
                    )
        owner: dict[str, str] = {}
        for suit in deck["suits"]:
            for i, rank in enumerate(deck["ranks"]):
                code = f"{rank.get('ascii')}{suit.get('ascii')}"
                card = f"{rank.get('id')} of {suit.get('id')}"
                if code in owner:
                    self.problem(("deck", "ranks", i, "ascii"), f"card code {quoted(code)} names both {owner[code]} and {card}")
                owner.setdefault(code, card)
        for j in range(1, int(deck.get("jokers", 0) or 0) + 1):
            if f"X{j}" in owner:
                self.problem(("deck", "jokers"), f"card code 'X{j}' names both {owner[f'X{j}']} and joker {j}")

    def name_clash(self, name: str, found: list[tuple[tuple[str | int, ...], str]], what: str) -> None:
        """Blame the most recent occurrence: the file that added the clash, not its parent."""
        parts = self.newest([entry[0] for entry in found])
        owner = next(o for p, o in found if p == parts)
        others = " and ".join(f"'{o}'" for o in sorted({o for _, o in found if o != owner}))
        self.problem(parts, f"'{name}' already names {what} {others}")

    def newest(self, candidates: list[tuple[str | int, ...]]) -> tuple[str | int, ...]:
        """Of several nodes, the one set by the most derived file of the chain (latest in it)."""
        order = {doc.file: n for n, doc in enumerate(self.resolved.files)}

        def recency(parts: tuple[str | int, ...]) -> tuple[int, int, int]:
            where = locate(self.resolved.positions, parts)
            return order.get(where.file, -1), where.line, where.column

        return max(candidates, key=recency)

    def values(self) -> None:
        rank_ids = [r["id"] for r in self.doc["deck"]["ranks"]]
        forms = _rank_forms(self.doc["deck"])
        for name, table in (self.doc.get("values") or {}).items():
            for rank in table:
                if rank in rank_ids:
                    continue
                if rank in forms:
                    hint = f"; write its id '{forms[rank]}'"
                else:
                    hint = _did_you_mean(rank, rank_ids) or f" (ranks: {', '.join(rank_ids)})"
                self.problem(("values", name, rank), f"'{rank}' is not a rank id{hint}", key=True)

    # -- players and the deal ---------------------------------------------------------------

    def players(self) -> None:
        players = self.doc["players"]
        counts = players["counts"]
        first: dict[int, int] = {}
        for i, entry in enumerate(players.get("partnerships") or []):
            n = entry["players"]
            here = ("players", "partnerships", i)
            if n not in counts:
                self.problem(here + ("players",), f"partnerships for {n} players, but players.counts is {counts}")
            if n in first:
                line = locate(self.resolved.positions, ("players", "partnerships", first[n])).line
                self.problem(here + ("players",), f"a second partnerships entry for {n} players (first at line {line})")
                continue
            first[n] = i
            owner: dict[int, int] = {}
            for s, side in enumerate(entry["sides"]):
                for k, seat in enumerate(side):
                    where = here + ("sides", s, k)
                    if seat >= n:
                        self.problem(where, f"seat {seat} does not exist with {n} players (seats 0 to {n - 1})")
                    elif seat in owner:
                        self.problem(where, f"seat {seat} is in two sides ({owner[seat]} and {s})")
                    else:
                        owner[seat] = s
            missing = [seat for seat in range(n) if seat not in owner]
            if missing:
                listed = ", ".join(map(str, missing))
                self.problem(here + ("sides",), f"seat{'s' if len(missing) > 1 else ''} {listed} in no side; the sides must seat all {n} players")

    def deal(self) -> None:
        deck, deal = self.doc["deck"], self.doc["deal"]
        jokers = deck.get("jokers") or 0
        cards = len(deck["suits"]) * len(deck["ranks"])
        left = cards + jokers - deal["table_size"]
        one_at_a_time = deal.get("short_stock", "forbid") == "one_at_a_time"
        # The sizes come from several keys, perhaps several files: blame the one the most derived
        # file set (a house rule's `table_size: 0`, not the `hand_size` its parent has always had).
        culprit = self.newest([("deal", "hand_size"), ("deal", "table_size")])
        for n in self.doc["players"]["counts"]:
            round_size = n * deal["hand_size"]
            counted = f"{left} cards ({cards} + {jokers} jokers − {deal['table_size']} on the table)"
            if left < round_size:
                self.problem(culprit, f"with {n} players, {counted} are too few for one round of {n} × {deal['hand_size']}")
            elif left % round_size and not one_at_a_time:
                self.problem(
                    culprit,
                    f"with {n} players, {counted} do not deal in whole rounds of {n} × {deal['hand_size']} = {round_size}; "
                    "change hand_size or table_size, or set short_stock: one_at_a_time",
                )

    def target(self) -> None:
        """The capture kinds, and the sums they reach: the target, or a card's own value."""
        deck, capture = self.doc["deck"], self.doc["capture"]
        kinds = capture.get("kinds") or [{"sum": "target"}]
        sums = [k["sum"] for k in kinds]
        for i, kind in enumerate(kinds):
            if kind["sum"] in sums[:i]:
                self.problem(("capture", "kinds", i, "sum"), f"a second capture kind with sum '{kind['sum']}': each sum is one kind")
            self.table_kind(i, kind)
        if all(s == "table" for s in sums):
            self.problem(("capture", "kinds"), "a 'sum: table' kind needs a kind that sums beside it (target or card): the other cards capture by it")
        jokers = deck.get("jokers") or 0
        if jokers and [(k["sum"], k.get("priority", "none")) for k in kinds] != [("target", "none")]:
            self.problem(
                ("capture", "kinds"),
                "jokers are wild only in captures that make the target: with deck.jokers, capture.kinds must be "
                "[{sum: target}] (the language has no wild card in a sum to a card's value, nor a priority among joker captures)",
            )
        values = tuple(sorted(r["value"] for r in deck["ranks"]))
        if "card" in sums:
            for i, rank in enumerate(deck["ranks"]):
                if rank["value"] > MAX_SUM:
                    self.problem(("deck", "ranks", i, "value"), f"a 'sum: card' capture makes a card's value, which must be at most {MAX_SUM}, not {rank['value']}")
        target = capture.get("target")
        users = [what for what, uses in (("a 'sum: target' capture kind", "target" in sums),
                                         ("the opening table rule", self.doc["opening_table"]["action"] != "none")) if uses]
        if target is None:
            if users:
                self.problem(("capture",), f"no capture.target, but {' and '.join(users)} {'use' if len(users) > 1 else 'uses'} it")
            return
        if "target" not in sums:
            return
        if jokers and 2 <= target <= 20:
            return  # a joker is worth whatever the capture needs
        if not _reachable(values, len(deck["suits"]), target):
            self.problem(("capture", "target"), f"no played card and table cards can make {target} with this deck's values")

    def table_kind(self, i: int, kind: dict[str, Any]) -> None:
        """`sum: table` names the ranks that take the whole table, and has no priority; the
        kinds that sum have no ranks nor the table kind's yes-or-no fields."""
        here = ("capture", "kinds", i)
        if kind["sum"] != "table":
            for key in ("ranks", "unless_same_rank", "escoba"):
                if key in kind:
                    self.problem(here + (key,), f"'{key}' belongs to a 'sum: table' kind, not to 'sum: {kind['sum']}'")
            return
        if "priority" in kind:
            self.problem(here + ("priority",), "a 'sum: table' kind has one capture, the whole table: no priority")
        if "ranks" not in kind:
            self.problem(here, "a 'sum: table' kind names the ranks that take the whole table (ranks: [\"1\"] for the aces)")
            return
        forms = _rank_forms(self.doc["deck"])
        for j, rank in enumerate(kind["ranks"]):
            if str(rank) not in forms:
                hint = _did_you_mean(str(rank), forms)
                self.problem(here + ("ranks", j), f"no rank '{rank}' in the deck{hint}")

    # -- scoring ----------------------------------------------------------------------------

    def categories(self) -> None:
        deck = self.doc["deck"]
        try:
            env = env_from_deck(deck, self.doc.get("values") or {})
        except Exception:  # pragma: no cover - a deck that passed the schema always builds
            env = None
        try:
            cards: Deck | None = Deck.from_section(deck)
        except ValueError:  # a scoring suit that is no suit: the deck's own check says so
            cards = None
        if not self.whole(("scoring", "categories"), inside=False):
            return
        for i, category in enumerate(self.doc["scoring"]["categories"]):
            here = ("scoring", "categories", i)
            if not self.whole(here, inside=False):
                continue
            # A measure is checked even beside a broken award: only what kind it must be (a
            # number, a condition) waits for a policy the schema found right.
            policy = category["award"]["policy"] if self.whole(here + ("award",)) else None
            dealt = category.get("measured_on", "pile") != "pile"
            if dealt and policy not in ("per_unit", None):
                self.problem(here + ("measured_on",), f"a category measured on dealt cards scores per declaration: award per_unit, not {policy}")
            elif policy == "holder":
                card = category["award"]["card"]
                if cards is not None and not _names_card(cards, card):
                    self.problem(here + ("award", "card"), f"no card '{card}' in the deck")
            elif env is not None and "measure" in category and self.whole(here + ("measure",)):
                kind = _MEASURE_KIND.get(policy or "")
                wanted = ("number", "bool") if dealt else (kind,) if kind else None
                self.expression(category["measure"], here + ("measure",), env, "hand" if dealt else "side", wanted, policy)
            if policy == "threshold" and isinstance(category["award"]["more_than"], str) and env is not None:
                self.expression(category["award"]["more_than"], here + ("award", "more_than"), env, "global", ("number",), policy)
        wild = deck.get("declaration_wild")
        if wild is not None and cards is not None and self.whole(("deck", "declaration_wild")) and not _names_card(cards, wild):
            self.problem(("deck", "declaration_wild"), f"no card '{wild}' in the deck")

    def unsaid(self) -> None:
        """A rule declared not expressible on a category's point names a category scored here."""
        if not self.whole(("unsupported",), inside=False):  # not a list: the schema said so
            return
        scored = {c.get("id") for c in self.doc["scoring"]["categories"]}
        for i, item in enumerate(self.doc.get("unsupported") or []):
            if not self.whole(("unsupported", i)):  # the schema said what is wrong with it (a null, say)
                continue
            point = item.get("point")
            if point is not None and point.split(".")[1] not in scored:
                shown = ", ".join(sorted(str(c) for c in scored))
                self.problem(("unsupported", i, "point"), f"no category '{point.split('.')[1]}' is scored here (scored: {shown})")

    def outright(self) -> None:
        """Each way to win a match at once has an id of its own and a condition for a measure;
        a condition on the opening table is one too, of the cards as dealt."""
        env = env_from_deck(self.doc["deck"], self.doc.get("values") or {})
        for key in ("redeal_when", "dealer_takes_when"):
            condition = self.doc["opening_table"].get(key)
            if condition is not None:
                self.expression(condition, ("opening_table", key), env, "hand", ("bool",), "opening_table")
        items = (self.doc.get("match") or {}).get("wins_outright") or []
        seen: set[str] = set()
        for i, item in enumerate(items):
            here = ("match", "wins_outright", i)
            if item["id"] in seen:
                self.problem(here + ("id",), f"a second way to win at once with id '{item['id']}'")
            seen.add(item["id"])
            self.expression(item["measure"], here + ("measure",), env, "side", ("bool",), "wins_outright")

    def expression(
        self, text: str, parts: tuple[str | int, ...], env: Any, context: str, wanted: tuple[str, ...] | None, policy: str | None
    ) -> None:  # fmt: skip
        try:
            compiled = compile_expression(text, env, context=context)
        except ExprError as error:
            for each in error.errors:  # every problem of the expression, left to right
                # One line for the excerpt: a literal block's line breaks would misplace the caret.
                self.problem(parts, each.message, excerpt=text.replace("\n", " "), caret=each.column)
            return
        if wanted is not None and compiled.kind not in wanted:
            what = "measure" if parts[-1] in ("measure", "redeal_when", "dealer_takes_when") else "bound"
            whose = {"wins_outright": "a way to win at once", "opening_table": "an opening-table condition"}.get(policy or "", f"a '{policy}' award")
            must = " or ".join(_KIND_WORDS[w] for w in wanted)
            self.problem(parts, f"the {what} of {whose} must be {must}, got {_KIND_WORDS[compiled.kind]}")

    # -- provenance -------------------------------------------------------------------------

    def citations(self) -> None:
        source = self.doc.get("source")
        if source is not None and self.whole(("source",)):
            self.source_file(("source",), source)
        elif self.resolved.kind in ("source", "variant"):
            self.problem((), f"a {self.resolved.kind} ruleset names its source document (source: FILE in spec/sources/)")
        found: list[tuple[tuple[str | int, ...], dict[str, Any]]] = list(citations(self.doc))
        for list_key in ("unsupported", "errata"):
            if self.whole((list_key,), inside=False):
                for i, item in enumerate(self.doc.get(list_key) or []):
                    found.append(((list_key, i), item))
        for parts, citation in found:
            if self.whole(parts):
                self.citation(parts, citation)

    def citation(self, parts: tuple[str | int, ...], citation: dict[str, Any]) -> None:
        status = citation.get("status")
        if status in _NEEDS_NOTE and not citation.get("note"):
            self.problem(parts, f"a citation with status '{status}' needs a note saying why")
        source = citation.get("source")
        if not isinstance(source, str):
            return  # the schema says what is wrong with it
        is_file = source not in _NOT_FILES
        if is_file and not self.source_file(parts + ("source",), source):
            return
        quote, gloss = citation.get("quote"), citation.get("gloss")
        if quote is None:
            if is_file:
                self.problem(parts, f"a citation of {source} needs a quote")
            return
        if gloss is None:
            self.problem(parts + ("quote",), "a quote needs a gloss (its English translation)")
        elif isinstance(quote, list) != isinstance(gloss, list) or (isinstance(quote, list) and len(quote) != len(gloss)):
            self.problem(parts + ("gloss",), f"the gloss is {_pieces(gloss)} but the quote is {_pieces(quote)}: give one gloss per quote")
        if not is_file:
            return
        quotes = quote if isinstance(quote, list) else [quote]
        for j, piece in enumerate(quotes):
            if not quoted_in(source, piece):
                where = parts + ("quote", j) if isinstance(quote, list) else parts + ("quote",)
                self.problem(where, f'quote not found in {source}: "{_short(fold(piece))}"')

    def source_file(self, parts: tuple[str | int, ...], source: str) -> bool:
        known = source_files()
        if source in known:
            return True
        # The folder holds one file per page quoted: name a few, count the rest (a message stays one line).
        shown = ", ".join(known[:KNOWN_SOURCES_SHOWN]) + (f", and {len(known) - KNOWN_SOURCES_SHOWN} more" if len(known) > KNOWN_SOURCES_SHOWN else "")
        hint = _did_you_mean(source, known) or f" (known: {shown}; outside, house)"
        self.problem(parts, f"no source '{source}' in spec/sources/{hint}")
        return False

    def cited_keys(self) -> None:
        """A source, variant or family ruleset cites every rule it sets itself (house rules need not)."""
        if self.resolved.kind not in ("source", "variant", "family"):
            return
        own = self.resolved.files[-1]
        positions = own.positions
        for section in _SECTIONS:
            body = own.data.get(section)
            if not isinstance(body, dict):
                continue
            cited: Any = body.get("provenance") if isinstance(body.get("provenance"), dict) else {}
            for key in body:
                if key != "provenance" and key not in cited:
                    self.problems.append(
                        Problem(locate(positions, (section, key), key=True), f"no provenance for '{key}': a {self.resolved.kind} ruleset cites every rule it sets")
                    )
        scoring = own.data.get("scoring")
        items = scoring.get("categories") if isinstance(scoring, dict) else None
        for i, item in enumerate(items if isinstance(items, list) else []):
            if isinstance(item, dict) and item.get("remove") is not True and "provenance" not in item:
                where = locate(positions, ("scoring", "categories", i))
                self.problems.append(Problem(where, f"no provenance for category '{item.get('id')}': a {self.resolved.kind} ruleset cites every rule it sets"))


# -- helpers ------------------------------------------------------------------------------


KNOWN_SOURCES_SHOWN = 5


def _did_you_mean(name: str, candidates: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _rank_forms(deck: dict[str, Any]) -> dict[str, str]:
    forms: dict[str, str] = {}
    for rank in deck["ranks"]:
        for name in [rank["id"], rank["ascii"], *(rank.get("aliases") or [])]:
            forms.setdefault(str(name), str(rank["id"]))
    return forms


def _names_card(deck: Deck, text: Any) -> bool:
    """Does `text` name a card of `deck`, in any spelling `Deck.card` accepts?"""
    try:
        deck.card(str(text))
    except NotationError:
        return False
    return True


@cache
def _reachable(values: tuple[int, ...], copies: int, target: int) -> bool:
    """Can one played card and one or more other cards (each value at most `copies` times) sum to target?"""
    for played in set(values):
        rest = target - played
        if rest < 0:
            continue
        counts = {v: copies * values.count(v) for v in set(values)}
        counts[played] -= 1
        anything, nonempty = {0}, set[int]()
        for value, count in counts.items():
            steps = range(1, count + 1)
            nonempty = {s + k * value for s in nonempty for k in range(count + 1)} | {
                s + k * value for s in anything for k in steps
            }
            anything |= {s + k * value for s in anything for k in steps}
            anything = {s for s in anything if s <= rest}
            nonempty = {s for s in nonempty if s <= rest}
        if rest in nonempty:
            return True
    return False


_ASCII_FORM = re.compile(r"[A-Za-z0-9]+")


def _short(text: str, limit: int = 70) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _pieces(value: Any) -> str:
    if isinstance(value, list):
        return f"a list of {len(value)}"
    return "a single string"
