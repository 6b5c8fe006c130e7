"""The dealer's opening table: when it fires (`trigger`, `max_groups`), what happens to it
(`action`) and how many escobas the dealer scores for it (`escobas`). What a table does is
`engine/hand.opening_of`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from escoba.rules.points.base import ANY, Recipe, RulePoint, count
from escoba.rules.points.meanings import meanings_of

_OPENING = Recipe(opening_tables=True)


def triggers(facts: Any, trigger: str | None = None, max_groups: int | None = None) -> list[bool]:
    """For each table the case turns up, whether the opening rule fires on it (under another
    trigger or number of groups when given)."""
    finder, opening = facts.rules.finder, facts.doc["opening_table"]
    trigger = trigger or opening["trigger"]
    groups = int(opening.get("max_groups", 1)) if max_groups is None else max_groups
    found = []
    for table in facts.tables():
        if trigger == "total":  # the sum decides, split or not
            found.append(finder.total_groups(table, groups) > 0)
            continue
        split = finder.split_groups(table, groups) > 0
        found.append(split or (trigger == "any_combination" and finder.any_combination(table)))
    return found


def _trigger_matters(position: Any, facts: Any) -> bool:
    if facts.doc["opening_table"]["action"] == "none":
        return False
    seen = {tuple(triggers(facts, t)) for t in ("all_cards", "any_combination", "total")}
    return len(seen) > 1


def _split_matters(position: Any, facts: Any) -> bool:
    if facts.doc["opening_table"]["action"] == "none":
        return False
    finder, total = facts.rules.finder, facts.doc["opening_table"]["trigger"] == "total"
    return any((finder.total_groups(t, 2) if total else finder.split_groups(t, 2)) >= 2 for t in facts.tables())


def _action_matters(position: Any, facts: Any) -> bool:
    return bool(facts.openings()) or any(triggers(facts))


def _escobas_matter(position: Any, facts: Any) -> bool:
    return any(
        not (set(o.get("cards", [])) & facts.jokers) or facts.rules.joker_escobas_score for o in facts.openings("dealer_takes")
    )


def _condition(value: Any, doc: Mapping[str, Any]) -> Any:
    """A condition on the table as turned up, compiled: its function of the table's cards
    (`fn(cards, escobas)`); None where the ruleset has none."""
    if value is None:
        return None
    from escoba.rules.expr import compile_expression

    return compile_expression(str(value), meanings_of(doc).env(), context="hand").fn


def _canonical(value: Any, doc: Mapping[str, Any]) -> str | None:
    return None if value is None else meanings_of(doc).measure(value)


def _condition_readings(value: Any, doc: Mapping[str, Any]) -> list[Any]:
    """No condition; or the condition read one literal otherwise (a measure's near readings)."""
    from escoba.rules.points.scoring import measure_readings

    return [] if value is None else [None, *measure_readings(value, doc)]


def _holds_on_a_table(position: Any, facts: Any) -> bool:
    """Some table turned up meets the condition (without it, those tables are played)."""
    holds = _condition(position.value, facts.doc)
    return holds is not None and any(holds(table, 0) for table in facts.tables())


def _table_condition(key: str, title: str, when: str, example: str) -> RulePoint:
    field = {"redeal_when": "opening_redeal_when", "dealer_takes_when": "opening_takes_when"}[key.split(".")[1]]
    return RulePoint(
        key, "opening", title, default=None,
        text=lambda v, doc: _canonical(v, doc) or "—", meaning=_canonical,
        fields=(field,), compile=_condition,
        exercised=_holds_on_a_table, when=when,
        assumed=("none",),
        feature_value=lambda p, f: _canonical(p.value, f.doc) or "none",
        forms=f"the condition's canonical text: `{example}`; `none`",
        values=_condition_readings,
        shows_in=("opening", "hand_start", "deal"), recipe=_OPENING,
        in_play=lambda rules, players: _canonical(rules.doc["opening_table"].get(key.split(".")[1]), rules.doc),
        fast_path=ANY,
    )  # fmt: skip


POINTS = (
    RulePoint(
        "opening_table.trigger", "opening", "opening table: trigger",
        fields=("opening_trigger",), in_play=True, fast_path=ANY, shows_in=("opening",), recipe=_OPENING,
        exercised=_trigger_matters, assumed=("all_cards",),
        when="a table turned up on which the triggers disagree: part of it makes the target but the whole "
        "does not split, or the whole adds up to it without splitting",
    ),
    count("opening_table.max_groups", "opening", "opening table: groups counted", "opening_max_groups", default=1,
          in_play=True, fast_path=ANY, shows_in=("opening",), recipe=_OPENING, values=lambda v, doc: [g for g in (1, 2) if g != v],
          exercised=_split_matters, when="a table turned up that splits into two groups making the target", assumed=("1",)),
    RulePoint(
        "opening_table.action", "opening", "opening table: action",
        fields=("opening_action",), in_play=True, fast_path=frozenset({"none", "dealer_takes", "set_aside", "redeal"}),
        shows_in=("opening", "deal"), recipe=_OPENING,
        exercised=_action_matters, when="a table turned up that the opening rule acts on", assumed=("none",),
    ),
    RulePoint(
        "opening_table.escobas", "opening", "opening table: escobas",
        fields=("opening_escobas",), in_play=True, fast_path=ANY, shows_in=("opening",), recipe=_OPENING,
        exercised=_escobas_matter, when="the dealer takes an opening table",
    ),
    _table_condition("opening_table.redeal_when", "opening table: dealt again when",
                     "a table turned up that meets the condition (it is dealt again)", "count(rank(cards, re)) >= 3"),
    _table_condition("opening_table.dealer_takes_when", "opening table: dealer takes it when",
                     "a table turned up that meets the condition (the dealer takes it)", "total(cards, face) < 9"),
)  # fmt: skip
