"""The match: the target, the targets a source offers, when it is checked, who wins when
several sides reach it, and an exact tie at the top. `engine/match.py` plays them."""

from __future__ import annotations

from typing import Any

from escoba.rules.points.base import ANY, Recipe, RulePoint, count, never


def _is_match(position: Any, facts: Any) -> bool:
    return facts.target is not None


def _several_reach(position: Any, facts: Any) -> bool:
    if facts.target is None or facts.totals is None:
        return False
    return sum(1 for t in facts.totals if t >= facts.target) >= 2


def _tie(position: Any, facts: Any) -> bool:
    return facts.ties > 0 or (facts.match_end is not None and len(facts.match_end.get("winners", [])) > 1)


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
    RulePoint("match.tie", "match", "exact tie", fields=("tie",), fast_path=ANY,
              exercised=_tie, when="an exact tie over the target", assumed=("extra_hand",),
              shows_in=("tie", "match_end"), recipe=_MATCHES),
)  # fmt: skip
