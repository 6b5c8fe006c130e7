"""Test helpers: compile the base ruleset with a few points changed, and name cards as people do.

Engine tests state the rule they pin as a change to the neutral base (`compulsory="hand"`), so
they do not depend on any regional file and read like the rule itself.
"""

from __future__ import annotations

import copy
from functools import cache

import yaml

from escoba.data import spec_dir
from escoba.engine.arrange import arrange_deck
from escoba.engine.hand import Hand
from escoba.game.moves import Move
from escoba.rules.compile import Rules, compile_rules


@cache
def _base_doc() -> dict:
    return yaml.safe_load((spec_dir() / "base.yaml").read_text(encoding="utf-8"))


def base_with(*, categories: list[dict] | None = None, **changes) -> Rules:
    """The base ruleset with `section__key=value` changes, e.g. `capture__compulsory="hand"`."""
    doc = copy.deepcopy(_base_doc())
    for dotted, value in changes.items():
        section, key = dotted.split("__")
        doc[section][key] = value
    if categories is not None:
        doc["scoring"]["categories"] = categories
    doc["id"] = "test"
    return compile_rules(doc)


def cards(rules: Rules, text: str) -> list[int]:
    return [rules.deck.card(t) for t in text.split()]


def deal(rules: Rules, players: int, dealer: int, table: str, *hands: str, rest: str = "", **kw) -> Hand:
    """A hand dealt so that the table and the first round of hands are as written."""
    order = arrange_deck(rules, players, dealer, table.split(), [[h.split() for h in hands]], rest.split())
    return Hand(rules, players, dealer, [order], **kw)


def move(rules: Rules, text: str) -> Move:
    """`"7♦ x 3♣ 5♥"` takes; `"7♦"` places."""
    played, _, taken = text.partition(" x ")
    return Move(rules.deck.card(played.strip()), tuple(sorted(cards(rules, taken))))


def base_without_target() -> str:
    """YAML text of a root ruleset (no `extends`): base with `capture.target` left out and no
    opening-table rule, so that only the default capture kind still needs the target."""
    doc = copy.deepcopy(_base_doc())
    doc.update(id="mine", kind="house")
    del doc["capture"]["target"], doc["capture"]["provenance"]["target"]
    doc["opening_table"]["action"] = "none"
    return yaml.safe_dump(doc, allow_unicode=True, sort_keys=False)
