"""The match: the target, the targets a source offers, when it is checked, who wins when
several sides reach it, and an exact tie at the top. `engine/match.py` plays them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from escoba.rules.points.base import ANY, Recipe, RulePoint, count, never
from escoba.rules.points.meanings import meanings_of


@dataclass(frozen=True)
class Outright:
    """A way to win the match at once (`match.wins_outright`): a condition measured on each
    side's hand when it ends, as a category's measure is (`measure(pile, escobas, history)`)."""

    id: str
    title: str
    measure: Callable[..., Any]
    measure_text: str
    needs_history: bool = False
    history_reads: frozenset[str] = frozenset()


def _is_match(position: Any, facts: Any) -> bool:
    return facts.target is not None


def _several_reach(position: Any, facts: Any) -> bool:
    if facts.target is None or facts.totals is None:
        return False
    return sum(1 for t in facts.totals if t >= facts.target) >= 2


def _tie(position: Any, facts: Any) -> bool:
    return facts.ties > 0 or (facts.match_end is not None and len(facts.match_end.get("winners", [])) > 1)


def _outright_fields(value: Any, doc: Mapping[str, Any]) -> tuple[Any, ...]:
    """`match.wins_outright` compiled: each condition as a measure (`Rules.wins_outright`)."""
    from escoba.rules.expr import compile_expression

    found = []
    for item in value or ():
        compiled = compile_expression(str(item["measure"]), meanings_of(doc).env())
        title = str(item.get("title", item["id"]))
        found.append(Outright(str(item["id"]), title, compiled.fn, str(item["measure"]), compiled.needs_history,
                              compiled.history_reads))  # fmt: skip
    return tuple(found)


def _conditions(value: Any, doc: Mapping[str, Any]) -> list[str]:
    """The conditions' canonical texts, sorted: what two rulesets share when they agree."""
    return sorted(meanings_of(doc).measure(item["measure"]) for item in value or ())


def _outright_text(value: Any, doc: Mapping[str, Any]) -> str:
    return "; ".join(f"{item.get('title', item['id'])}: {meanings_of(doc).measure(item['measure'])}" for item in value or ()) or "—"


def _outright_readings(value: Any, doc: Mapping[str, Any]) -> list[Any]:
    """No way to win at once; or one condition read one literal otherwise (a number one more
    or one less, a comparison strict or not: the measures' near readings)."""
    from escoba.rules.points.scoring import measure_readings

    items = [dict(item) for item in value or ()]
    found: list[Any] = [[]] if items else []
    for i, item in enumerate(items):
        found += [[*items[:i], {**item, "measure": other}, *items[i + 1 :]] for other in measure_readings(item["measure"], doc)]
    return found


def _outright_matters(position: Any, facts: Any) -> bool:
    """A match case in which some side's captures meet a condition when a hand ends (or a
    condition that reads the hand's history, which a case's events are not read for)."""
    if facts.target is None or not position.value:
        return False
    outright = facts.rules.wins_outright
    if any(o.needs_history for o in outright):
        return True
    return any(o.measure(pile, escobas) for h in facts.hands if h.over for pile, escobas in facts.ends(h) for o in outright)


_MATCHES = Recipe(match=True)
_NAMED = "a match case names its own target"
_ONE_VALUE = "one value only: the engine plays it and nothing else can be written"

POINTS = (
    count("match.target", "match", "target", "match_target", fast_path=ANY, fixed=_NAMED,
          exercised=never, when="never: `start` names the target of a match case"),
    RulePoint(
        "match.target_options", "match", "target options", default=lambda doc: [doc["match"]["target"]],
        text=lambda v, doc: ", ".join(str(t) for t in v or []), meaning=lambda v, doc: tuple(sorted(set(v or []))),
        fields=("target_options",), compile=lambda v, doc: tuple(v), fast_path=ANY, fixed=_NAMED,
        exercised=never, when="never: `start` names the target of a match case",
        feature_value=lambda p, f: ",".join(str(t) for t in sorted(set(p.value or []))), forms="numbers: `15,21`",
    ),
    RulePoint("match.check", "match", "target checked at", default="end_of_hand", no_field=_ONE_VALUE,
              exercised=_is_match, when="a match case", shows_in=("totals",), recipe=_MATCHES),
    RulePoint("match.several_reach", "match", "several reach the target", default="highest_wins", no_field=_ONE_VALUE,
              exercised=_several_reach, when="a match that ends with several sides over the target",
              shows_in=("match_end",), recipe=_MATCHES),
    RulePoint(
        "match.wins_outright", "match", "won at once", default=[],
        text=_outright_text, meaning=lambda v, doc: tuple(_conditions(v, doc)), values=_outright_readings,
        fields=("wins_outright",), compile=_outright_fields, fast_path=ANY,
        exercised=_outright_matters, when="a match case in which some side's captures at the end of a hand meet a condition",
        assumed=("none",), feature_value=lambda p, f: "; ".join(_conditions(p.value, f.doc)) or "none",
        forms="the conditions' canonical texts, sorted, `; ` between them: `count(suit(cards, denari)) == 10`; `none`",
        shows_in=("match_end", "tie", "totals"), recipe=_MATCHES,
    ),
    RulePoint("match.tie", "match", "exact tie", fields=("tie",), fast_path=ANY,
              exercised=_tie, when="an exact tie over the target", assumed=("extra_hand",),
              shows_in=("tie", "match_end"), recipe=_MATCHES),
)  # fmt: skip
