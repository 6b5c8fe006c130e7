"""Capture: the target, whether a card that can capture must, what a played card may take
(`kinds`, `game/capture.py`), and which sweeps are escobas."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import product
from typing import Any

from escoba.game.capture import DEFAULT_KINDS, TableKind
from escoba.rules.points.base import ANY, Recipe, RulePoint, flag, plain
from escoba.rules.points.meanings import meanings_of

_KIND_SUMS = {"target": "card + taken = target", "card": "taken = card's value"}
_PRIORITIES = {"none": "", "single_card": " (a single card first)", "fewest_cards": " (fewest cards)"}
DEFAULT_KINDS_DOC = [{"sum": "target", "priority": "none"}]
TABLE = "table"  # the `sum` of the kind that takes the whole table (`TableKind`)


def kinds_of(value: Any) -> tuple[tuple[str, str], ...]:
    """`capture.kinds` as (sum, priority) pairs, the kinds that sum (not `sum: table`); left
    out, Escoba's one kind."""
    if not value:
        return DEFAULT_KINDS
    return tuple((str(k["sum"]), str(k.get("priority", "none"))) for k in value if k["sum"] != TABLE)


def table_kind_of(value: Any, doc: Mapping[str, Any] | None = None) -> TableKind | None:
    """The `sum: table` kind of `capture.kinds` (None if it has none), its ranks as rank ids
    (an alias, or a number where the id is digits, is read as the id)."""
    for kind in value or ():
        if kind["sum"] == TABLE:
            ids = meanings_of(doc).env().rank_aliases if doc is not None else {}
            ranks = tuple(ids.get(str(r), str(r)) for r in kind.get("ranks") or ())
            return TableKind(ranks, bool(kind.get("unless_same_rank", False)), bool(kind.get("escoba", True)))
    return None


def _kinds_fields(value: Any, doc: Mapping[str, Any]) -> tuple[Any, Any]:
    """The two compiled fields of `capture.kinds`: the kinds that sum, and the table kind."""
    return kinds_of(value), table_kind_of(value, doc)


def _table_text(kind: TableKind) -> str:
    text = f"the whole table with a {' or '.join(kind.ranks)}"
    extra = [*(["unless one lies there"] if kind.unless_same_rank else []), *([] if kind.escoba else ["no escoba"])]
    return text + (f" ({'; '.join(extra)})" if extra else "")


def _kinds_text(value: Any, doc: Mapping[str, Any]) -> str:
    sums = [_KIND_SUMS.get(s, s) + _PRIORITIES.get(p, f" ({p})") for s, p in kinds_of(value)]
    table = table_kind_of(value, doc)
    return "; or ".join(sums + ([_table_text(table)] if table is not None else []))


def _kinds_meaning(value: Any, doc: Mapping[str, Any]) -> Any:
    table = table_kind_of(value, doc)
    return (*sorted(kinds_of(value)), *([(TABLE, tuple(sorted(table.ranks)), *table[1:])] if table is not None else []))


def table_feature(kind: TableKind) -> str:
    """`table-1`, `table-1-unless_same_rank-no_escoba`: the ranks, then what differs from the
    kind's defaults."""
    return "-".join([TABLE, "+".join(sorted(kind.ranks)), *(["unless_same_rank"] if kind.unless_same_rank else []),
                     *([] if kind.escoba else ["no_escoba"])])  # fmt: skip


def _kinds_feature(position: Any, facts: Any) -> str:
    """`target`, `card-single_card`, `card-fewest_cards,target`: each kind's sum, and its
    priority unless none (the table kind: `table_feature`); sorted, since the order of kinds
    means nothing."""
    found = [s + ("" if p == "none" else f"-{p}") for s, p in kinds_of(position.value)]
    table = table_kind_of(position.value, facts.doc)
    return ",".join(sorted(found + ([table_feature(table)] if table is not None else [])))


def _kinds_readings(value: Any, doc: Mapping[str, Any]) -> list[Any]:
    """The near readings of the kinds: one field of one kind changed, one kind left out, one
    kind added (every value the schema allows for the fields of a kind that sums); for the
    kind that takes the whole table, each of its yes-or-no fields the other way."""
    from escoba.rules.schema import ruleset_schema

    spec = ruleset_schema()["properties"]["capture"]["properties"]["kinds"]
    items = spec["items"]["properties"]
    fields = {name: [o for o in s["enum"] if o != TABLE] for name, s in items.items() if "enum" in s}
    flags = {"unless_same_rank": False, "escoba": True}  # the table kind's yes-or-no fields, and their defaults
    current = [dict(k) if k["sum"] == TABLE else {"priority": "none", **dict(k)} for k in (value or DEFAULT_KINDS_DOC)]
    found: list[list[dict]] = []
    for i, kind in enumerate(current):
        if kind["sum"] == TABLE:
            changed = [{**kind, name: not kind.get(name, default)} for name, default in flags.items()]
        else:
            changed = [{**kind, name: o} for name, options in fields.items() for o in options if kind.get(name) != o]
        found += [[*current[:i], other, *current[i + 1 :]] for other in changed]
        rest = current[:i] + current[i + 1 :]
        if any(k["sum"] != TABLE for k in rest):  # a ruleset keeps at least one kind that sums
            found.append(rest)
    if sum(1 for k in current if k["sum"] != TABLE) < len(fields["sum"]):  # room for a kind that sums
        found += [[*current, dict(zip(fields, combination))] for combination in product(*fields.values())]
    return found


def _compulsory_matters(position: Any, facts: Any) -> bool:
    if facts.probe == "compulsory" or any(e.get("event") == "rejected" and e.get("rule") == "compulsory" for e in facts.events):
        return True  # a probe of the compulsory rule
    return any("count" in legal or any(m.get("take") for m in legal.get("moves", [])) for hand in facts.hands for legal in hand.legal)


def _kinds_matter(position: Any, facts: Any) -> bool:
    """What a card may take shows in every decision where some card can capture, and in a
    probe of a wrong sum or of a priority."""
    if facts.probe in ("wrong_sum", "priority"):
        return True
    if any(e.get("event") == "rejected" and e.get("rule") in ("wrong_sum", "priority") for e in facts.events):
        return True  # the same, tried among the moves
    return _compulsory_matters(position, facts)


def _target_used(position: Any, facts: Any) -> bool:
    """The target is a rule only where a capture kind sums to it or the opening table uses it."""
    sums = [k["sum"] for k in facts.doc["capture"].get("kinds") or DEFAULT_KINDS_DOC]
    return "target" in sums or facts.doc["opening_table"]["action"] != "none"


def _last_play_sweeps(position: Any, facts: Any) -> bool:
    return any(h.last_play_clears for h in facts.hands)


def _last_sweep_possible(rules: Any, counts: list[int]) -> bool:
    """Sweeping on the last play leaves nothing: every card was taken in groups making the
    target, so without jokers or cards set aside the deck must total a multiple of it
    (captures by kind, with no target sum, can sweep the last cards whatever they total)."""
    total = sum(rules.deck.value[c] for c in rules.deck.cards)
    return rules.target is None or rules.deck.jokers > 0 or rules.opening_action == "set_aside" or total % rules.target == 0


def _last_card_sweeps(position: Any, facts: Any) -> bool:
    """A play in the hand's last round that took every card with its player's last card."""
    return any(p.cleared and p.emptied and p.round == h.deals for h in facts.hands for p in h.plays)


def _joker_escobas(position: Any, facts: Any) -> bool:
    jokers = facts.jokers
    if not jokers:
        return False
    for hand in facts.hands:
        for _escoba, play in hand.escobas:
            if {play.get("card"), *play.get("take", [])} & jokers:
                return True
    return any(
        set(o.get("cards", [])) & jokers and facts.doc["opening_table"].get("escobas", "none") != "none"
        for o in facts.openings("dealer_takes")
    )


POINTS = (
    RulePoint(
        "capture.target", "capture", "capture target", default=None,
        fields=("target",), compile=lambda v, doc: int(v) if v is not None else None, in_play=True, fast_path=ANY,
        exercised=_target_used, when="a capture kind sums to it, or the opening table rule uses it",
        feature_value=lambda p, f: "none" if p.value is None else plain(p.value),
        fixed="the deck's capture values are made for it", shows_in=("legal", "opening"),
    ),
    RulePoint(
        "capture.compulsory", "capture", "compulsory capture",
        fields=("compulsory",), in_play=True, fast_path=frozenset({"optional", "card", "hand"}),
        exercised=_compulsory_matters, when="a decision where some card can capture (or a probe of the compulsory rule)",
        assumed=(), shows_in=("legal", "perft", "rejected"),
    ),
    RulePoint(
        "capture.kinds", "capture", "capture kinds", default=DEFAULT_KINDS_DOC,
        text=_kinds_text, meaning=_kinds_meaning, values=_kinds_readings,
        fields=("capture_kinds", "table_kind"), compile=_kinds_fields, in_play=True, fast_path=ANY,
        exercised=_kinds_matter, when="a decision where some card can capture (or a probe of a wrong sum or a priority)",
        assumed=("target",), feature_value=_kinds_feature, shows_in=("legal", "perft", "rejected", "escoba"),
        forms="each kind's sum, with `-priority` unless none, sorted: `target`, `card-single_card`, "
        "`card-fewest_cards,target`; the whole table: `table-RANKS`, with `-unless_same_rank`, `-no_escoba` "
        "(`card-single_card,table-1-unless_same_rank-no_escoba`)",
    ),
    flag("capture.escoba_on_last_play", "capture", "escoba on the last play", "escoba_on_last_play", default=True,
         exercised=_last_play_sweeps, when="the hand's last play takes every card on the table", shows_in=("escoba",),
         recipe=Recipe(possible=_last_sweep_possible)),
    flag("capture.escoba_on_last_card", "capture", "escoba with a player's last card", "escoba_on_last_card", default=True,
         exercised=_last_card_sweeps, when="a player's last card of the hand takes every card on the table",
         assumed=("yes",), shows_in=("escoba",)),
    flag("capture.joker_escobas_score", "capture", "escobas made with a joker score", "joker_escobas_score", default=True,
         exercised=_joker_escobas, when="an escoba (or an opening take) made with a joker", shows_in=("escoba", "opening"),
         recipe=Recipe(opening_tables=True, possible=lambda rules, counts: rules.deck.jokers > 0)),
)  # fmt: skip
