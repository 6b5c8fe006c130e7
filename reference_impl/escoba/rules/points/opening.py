"""The dealer's opening table: when it fires (`trigger`, `max_groups`), what happens to it
(`action`) and how many escobas the dealer scores for it (`escobas`). What a table does is
`engine/hand.opening_of`."""

from __future__ import annotations

from typing import Any

from escoba.rules.points.base import ANY, Recipe, RulePoint, count

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
)  # fmt: skip
