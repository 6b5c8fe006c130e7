"""Scoring: each category (`scoring.*`) with its award policy, its measure and its points, and
each values table a measure reads (`values.*`). Points of each document: a category's points
are named by its id (`scoring.velo.award`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from itertools import pairwise
from typing import Any

from escoba.rules.points.base import ANY, RulePoint, number
from escoba.rules.points.meanings import Meanings, meanings_of

POLICIES = frozenset({"most", "threshold", "holder", "per_unit", "bonus"})


def _category(position: Any) -> str:
    return position.key.split(".")[1]


def _scored(position: Any, facts: Any) -> bool:
    return bool(facts.scored(_category(position)))


def _points_awarded(position: Any, facts: Any) -> bool:
    return any(any(p for p in e.get("points", [])) for e in facts.scored(_category(position)))


def _values_used(position: Any, facts: Any) -> bool:
    name = position.key.split(".", 1)[1]
    named = re.compile(rf"\b{re.escape(name)}\b")
    return any(
        named.search(str(category.get("measure", ""))) and facts.scored(str(category["id"]))
        for category in facts.doc["scoring"]["categories"]
    )


# --------------------------------------------------------------------------- awards
def award_text(award: Mapping[str, Any], meanings: Meanings | None = None) -> str:
    policy = award.get("policy")
    if policy == "most":
        return f"most (ties: {award.get('ties', 'nobody')})"
    if policy == "threshold":
        bound = award.get("more_than")
        shown = str(number(bound)) if isinstance(bound, (int, float)) else str(bound)
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


def award_meaning(award: Mapping[str, Any], meanings: Meanings) -> Any:
    policy = award.get("policy")
    if policy == "most":
        return ("most", award.get("ties", "nobody"))
    if policy == "threshold":
        return ("threshold", meanings.bound(award.get("more_than")))
    if policy == "holder":
        return ("holder", meanings.card(award.get("card")))
    return (policy,)


def award_value(award: Mapping[str, Any], doc: Mapping[str, Any]) -> str:
    """The feature value of an award policy: `most`, `more-than-20`, `holder-7d`, `per-unit`, `bonus`."""
    policy = award.get("policy")
    if policy == "threshold":
        return f"more-than-{number(meanings_of(doc).bound(award.get('more_than')))}"
    if policy == "holder":
        return f"holder-{meanings_of(doc).card_code(award.get('card'))}"
    return str(policy).replace("_", "-")


def ties_key(award_key: str) -> str:
    """The feature key of an award's tie rule: `scoring.coins.award` → `scoring.coins.ties`."""
    return award_key.removesuffix(".award") + ".ties"


def _award_features(position: Any, facts: Any, exercised_only: bool) -> list[str]:
    """An award is two features: the policy, and for `most` the tie rule (`scoring.X.ties`),
    which a case exercises only where the leaders tie."""
    award = position.value
    found = [f"{position.key}:{award_value(award, facts.doc)}"]
    if award.get("policy") == "most" and (not exercised_only or _leaders_tie(position, facts)):
        found.append(f"{ties_key(position.key)}:{award.get('ties', 'nobody')}")
    return found


def _leaders_tie(position: Any, facts: Any) -> bool:
    for event in facts.scored(_category(position)):
        measures = [m for m in event.get("measures", []) if m is not None and not isinstance(m, bool)]
        if len(measures) >= 2 and measures.count(max(measures)) >= 2:
            return True
    return False


def _award_fields(award: Mapping[str, Any], doc: Mapping[str, Any]) -> tuple[str, str, float | None, int | None]:
    """policy, ties, the threshold's bound as a number, the holder's card."""
    policy = award["policy"]
    meanings = meanings_of(doc)
    more_than = float(meanings.bound(award["more_than"])) if policy == "threshold" else None
    card = meanings.deck().card(str(award["card"])) if policy == "holder" else None
    return policy, award.get("ties", "nobody"), more_than, card


def _award_readings(award: Mapping[str, Any], doc: Mapping[str, Any]) -> list[dict]:
    """The other readings of an award: ties to all or to nobody, and more than half for the
    most of a count; "at least" for "more than" and most for a threshold."""
    policy = award.get("policy")
    found: list[dict[str, Any]] = []
    if policy == "most":
        found += [{"policy": "most", "ties": t} for t in ("nobody", "all") if t != award.get("ties", "nobody")]
        half = _half_of_deck(award, doc)
        if half is not None:
            found.append({"policy": "threshold", "more_than": half})
        return found
    if policy == "threshold":
        bound = meanings_of(doc).bound(award.get("more_than"))
        found.append({"policy": "most", "ties": "nobody"})
        if isinstance(bound, (int, float)):
            found.append({"policy": "threshold", "more_than": bound - 1})
        return found
    return []


def _half_of_deck(award: Mapping[str, Any], doc: Mapping[str, Any]) -> int | float | None:
    """Half of what a counted category counts in the whole deck: "the most cards" read as "more
    than half of them", as da says it ("more than 20 cards"); the two differ only at three or
    more sides. None for a category that does not count cards (a primera is no count)."""
    from escoba.rules.expr import ExprError, compile_expression

    # The award is the category's own object (positions read it from the document), so the
    # category is found by identity: two categories may have equal awards and other measures.
    cat = next((c for c in (doc.get("scoring") or {}).get("categories") or () if c.get("award") is award), None)
    if cat is None or "measure" not in cat:
        return None
    try:
        compiled = compile_expression(str(cat["measure"]), meanings_of(doc).env())
    except ExprError:
        return None
    if compiled.needs_history or not compiled.canonical.startswith("count("):
        return None
    total = compiled.fn(tuple(range(len(meanings_of(doc).deck().code))), 0)
    return number(total / 2) if isinstance(total, (int, float)) and total > 0 else None


def _measure_fields(text: Any, doc: Mapping[str, Any]) -> tuple[Any, ...]:
    """The measure compiled once: its function over a pile, its text, its function over a
    pile's bitmask, and whether (and which of) the hand's history it reads."""
    from escoba.rules.expr import compile_expression

    compiled = compile_expression(str(text), meanings_of(doc).env())
    return compiled.fn, text, compiled.on_mask, compiled.needs_history, compiled.history_reads


_LITERAL = re.compile(r"(?<![\w.])\d+(?![\w.])|==|!=|<=|>=|<|>|\bmade_with\b|\btaking\b")
_SWAP = {"==": "!=", "!=": "==", "<=": "<", "<": "<=", ">=": ">", ">": ">=", "made_with": "taking", "taking": "made_with"}


def measure_readings(text: Any, doc: Mapping[str, Any]) -> list[str]:
    """The near readings of a measure: one literal changed (a number one more or one less, a
    comparison strict or not, `made_with` for `taking`), each still a valid measure."""
    from escoba.rules.expr import ExprError, compile_expression

    source = meanings_of(doc).measure(text)
    found: list[str] = []
    for m in _LITERAL.finditer(source):
        word = m.group()
        swaps = [str(int(word) + 1), str(int(word) - 1)] if word.isdigit() else [_SWAP[word]]
        for other in swaps:
            reading = source[: m.start()] + other + source[m.end() :]
            try:
                compile_expression(reading, meanings_of(doc).env())
            except ExprError:
                continue
            if reading not in found and reading != source:
                found.append(reading)
    return found


_BEST_OF_SUIT = re.compile(r"best\(suit\(cards, (\w+)\), (\w+)\)")


def best_of_suits_readings(text: Any, doc: Mapping[str, Any]) -> list[str]:
    """Two other ways players count a measure that adds up the best card of each suit by a
    values table (a primera), each a documented misreading: a suit missing counting nothing
    instead of losing the category ("Se non hai neanche una carta di un seme, allora la
    primiera è vinta dall'avversario" is the rule it misses); and the most of the table's best
    rank, then of the next ("si crede che chi ha il maggior numero di 7 … vinca il punto della
    primiera, ma così non è", giochistars.it), counting the ranks the table tells apart (a
    value of their own), each rank's count a digit in base suits + 1."""
    from escoba.rules.expr import ExprError, compile_expression

    meanings = meanings_of(doc)
    source = meanings.measure(text)
    terms = source.split(" + ")
    found = [_BEST_OF_SUIT.fullmatch(t) for t in terms]
    if not found or any(m is None for m in found):
        return []
    suits = [m.group(1) for m in found if m is not None]
    tables = {m.group(2) for m in found if m is not None}
    table = (doc.get("values") or {}).get(next(iter(tables))) if len(tables) == 1 else None
    if len(set(suits)) != len(suits) or not isinstance(table, Mapping):
        return []
    values = [float(v) for v in table.values()]
    own = sorted((r for r, v in table.items() if values.count(float(v)) == 1), key=lambda r: -float(table[r]))
    base = len(suits) + 1
    readings = [
        " + ".join(f"({t} if count(suit(cards, {s})) > 0 else 0)" for t, s in zip(terms, suits)),
        " + ".join(f"count(rank(cards, {r}))" + (f" * {w}" if (w := base ** (len(own) - 1 - i)) > 1 else "") for i, r in enumerate(own)),
    ]
    kept = []
    for reading in readings:
        try:
            kept.append(compile_expression(reading, meanings.env()).canonical)
        except ExprError:
            continue
    return [r for r in kept if r != source]


def _values_readings(table: Any, doc: Mapping[str, Any]) -> list[dict]:
    """The near readings of a values table: two neighbours in its ranking swapped (a primera
    table that ranks the 6 above the ace, say)."""
    ranked = sorted(table, key=lambda k: (-float(table[k]), str(k)))
    found: list[dict] = []
    for high, low in pairwise(ranked):
        if table[high] != table[low]:
            found.append({**table, high: table[low], low: table[high]})
    return found


def _values_text(table: Mapping[str, Any]) -> str:
    return " ".join(f"{k}={number(v)}" for k, v in sorted(table.items(), key=lambda kv: (-float(kv[1]), str(kv[0]))))


def values_feature(table: Mapping[str, Any]) -> str:
    """A values table as a feature value: `7=21,6=18,1=16,...` (highest first)."""
    items = sorted(table.items(), key=lambda kv: (-float(kv[1]), str(kv[0])))
    return ",".join(f"{k}={number(v)}" for k, v in items)


POINTS = (
    RulePoint(
        "scoring.*", "scoring", "category",
        text=lambda v, doc: str(v["title"]), meaning=lambda v, doc: True,
        fields=("id", "title"), compile=lambda v, doc: (v["id"], v["title"]),
        exercised=_scored, when="the category is scored (its features are those of its award)", assumed=(),
        features_of=lambda p, f, exercised_only: [], forms="(those of its award)",
        shows_in=("score",),
        fast_path=ANY,
    ),
    RulePoint(
        "scoring.*.award", "scoring", "award",
        text=lambda v, doc: award_text(v, meanings_of(doc)), meaning=lambda v, doc: award_meaning(v, meanings_of(doc)),
        fields=("policy", "ties", "more_than", "card"), compile=_award_fields,
        exercised=_scored, when="the category is scored; `ties` when the leaders tie", assumed=(),
        features_of=_award_features,
        forms="`most`, `more-than-N`, `holder-CODE` (`holder-7d`), `per-unit`, `bonus`; and `scoring.X.ties:nobody` / `:all` for `most`",
        values=_award_readings,
        shows_in=("score",),
        fast_path={"policy": POLICIES, "ties": frozenset({"nobody", "all"})},
    ),
    RulePoint(
        "scoring.*.measure", "scoring", "measure",
        text=lambda v, doc: meanings_of(doc).measure(v), meaning=lambda v, doc: meanings_of(doc).measure(v),
        fields=("measure", "measure_text", "measure_on_mask", "needs_history", "history_reads"), compile=_measure_fields,
        exercised=_scored, when="the category is scored",
        # The canonical text, as the forms say: a measure written over several lines, or with
        # other spacing or aliases, is the same feature (and a feature is one line).
        feature_value=lambda p, f: str(p.meaning),
        forms="the measure's canonical text: `count(cards)`",
        values=lambda v, doc: [*measure_readings(v, doc), *best_of_suits_readings(v, doc)],
                shows_in=("score",),
        fast_path=ANY,
    ),
    RulePoint(
        "scoring.*.measured_on", "scoring", "measured on", default="pile",
        fields=("measured_on",), compile=lambda v, doc: str(v or "pile"),
        exercised=_scored, when="the category is scored (only a category measured on dealt cards has the point)",
        assumed=("pile",),
        forms="`pile`, `dealt`, `table`",
        values=lambda v, doc: [o for o in ("pile", "dealt", "table") if o != v],
        shows_in=("declaration", "score"),
        fast_path=ANY,
    ),
    RulePoint(
        "scoring.*.points", "scoring", "points", default=1,
        meaning=lambda v, doc: number(v), text=lambda v, doc: str(number(v)),
        fields=("points",), compile=lambda v, doc: int(v),
        exercised=_points_awarded, when="someone scores the category",
        forms="a number",
        values=lambda v, doc: [n for n in range(5) if n != v],
        shows_in=("score",),
        fast_path=ANY,
    ),
    RulePoint(
        "values.*", "scoring", "values",
        text=lambda v, doc: _values_text(v), meaning=lambda v, doc: tuple(sorted((str(k), number(x)) for k, x in v.items())),
        no_field="read by the measures that name it, and compiled into them",
        exercised=_values_used, when="a category whose measure uses the table is scored",
        feature_value=lambda p, f: values_feature(p.value),
        forms="`key=value`, highest first: `7=21,6=18,1=16,…`",
        values=_values_readings,
        shows_in=("score",),
    ),
)  # fmt: skip
