"""What a rule point is: one declaration holding every part of one rule of the game.

A rule point is a question every ruleset answers (`capture.compulsory`: must a card that can
capture, capture?). Its declaration (`RulePoint`) says, in one place:

- **the document**: its key (the YAML path: `capture.compulsory` is `capture: compulsory:`,
  the schema's `#/properties/capture/properties/compulsory`), its concern and title (the rules
  matrix's group and row), what a file that leaves it out means (`default`), how its value is
  shown and what two rulesets share when they agree (`text`, `meaning`);
- **the compiled rules**: the `Rules` (or `Category`) fields it compiles to and how
  (`fields`, `compile`), or why it has none (`no_field`);
- **the protocol**: its feature values, those assumed for an engine that declares none, and
  when a case's events depend on it (`exercised`, `when`);
- **other values**: the values it may take in a document (`values`: what identify, the
  ruleset audit and attribution try), or why a case fixes it (`fixed`: its deck orders are
  dealt under it, it names its own target);
- **where it shows**: the kinds of event a different value changes (`shows_in`);
- **cases**: how to search for a game whose events tell its values apart (`recipe`);
- **the diff**: what play depends on at a table (`in_play`; None: it only scores, so a hand
  played under one ruleset can be rescored under another instead of replayed);
- **the fast path**: the values of its fields the fused simulation loop plays (`fast_path`).

The registry (`escoba.rules.points`) lists every point; the matrix, the structural diff, the
feature vocabulary, the fast path's fallback, the rescore shortcut and the generated cases
all read it, and `tests/test_points.py` checks that every compiled field has one point.
Categories and values tables are points of each document (`scoring.*.award`, `values.*`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

Doc = Mapping[str, Any]

REQUIRED: Any = object()  # the schema requires the key: there is no default
ANY = "any"  # the fast path plays every value of the point's fields
BOTH = frozenset({True, False})  # ... both values of a yes/no field


@dataclass(frozen=True)
class Recipe:
    """How to search for a game whose expected events exercise a point (`escoba cases
    generate`, identify's targeted positions): seeded games at a table of at least
    `min_players`, short matches when `match`, with these bots (`placer` places a card
    whenever the rules let it), and deck orders whose table an opening rule acts on when
    `opening_tables`. `possible(rules, counts)` is False when no game of these rules at these
    player counts can exercise it (none is searched for)."""

    min_players: int = 0
    match: bool = False
    bots: tuple[str, ...] = ("greedy", "random")
    opening_tables: bool = False
    possible: Callable[[Any, list[int]], bool] | None = None


def _as_is(value: Any, doc: Doc) -> Any:
    return value


def never(position: Any, facts: Any) -> bool:
    """No event of any case depends on the point."""
    return False


def always(position: Any, facts: Any) -> bool:
    return True


@dataclass(frozen=True)
class RulePoint:
    """One rule point (see the module's docstring for each part)."""

    key: str  # `capture.compulsory`; `scoring.*.award` for each category; `values.*` for each table
    concern: str
    title: str
    # -- the document
    default: Any = REQUIRED
    text: Callable[[Any, Doc], str] | None = None  # None: `word(value)`
    meaning: Callable[[Any, Doc], Any] = _as_is
    # -- the compiled rules
    fields: tuple[str, ...] = ()
    compile: Callable[[Any, Doc], Any] = _as_is  # one value per field (a tuple when several)
    no_field: str | None = None
    # -- the protocol
    exercised: Callable[[Any, Any], bool] = never  # (the document's position, the case's Facts)
    when: str = ""
    assumed: tuple[str, ...] = ("*",)  # feature value patterns assumed when an engine declares none
    feature_key: str | None = None  # the feature's key when it is not the point's (`players`)
    feature_value: Callable[[Any, Any], str] | None = None  # (position, facts); None: the value, plainly
    # (position, facts, exercised only?) -> its features, for a point that is not one feature
    features_of: Callable[[Any, Any, bool], list[str]] | None = None
    forms: str | None = None  # what its feature values look like (docs/protocol.md), when not enum/yes-no/number
    # -- other values
    values: Callable[[Any, Doc], list[Any]] | None = None  # (the value, the document) -> other readings
    fixed: str | None = None  # why a case cannot be played under another value (its deck orders fix it...)
    # -- where a different value shows, and how to make it show
    shows_in: tuple[str, ...] = ()
    recipe: Recipe = field(default_factory=Recipe)
    # -- the diff and the fast path
    # What play depends on at a table: True, the point's compiled fields; or (Rules, players) ->
    # what of it matters there; None: nothing (it only scores)
    in_play: Callable[[Any, int], Any] | bool | None = None
    # ANY, the set of values of its field, or {field: values}; None: only the compiled default,
    # which is what a fused loop that never heard of the point plays (the rest falls back to Hand)
    fast_path: Any = None

    @property
    def section(self) -> str:
        return self.key.split(".", 1)[0]

    @property
    def name(self) -> str:
        """The key inside its section (`compulsory`), or inside a category (`award`)."""
        return self.key.rsplit(".", 1)[1]

    @property
    def per_item(self) -> bool:
        """A point of each category (`scoring.*.award`) or values table (`values.*`)."""
        return "*" in self.key

    def feature(self, key: str) -> str:
        """The feature key of the point `key` (an instance of this declaration)."""
        return self.feature_key or key

    def play_key(self, rules: Any, players: int) -> Any:
        """What play depends on of this point under `rules` at a table of `players`: two
        rulesets whose keys are equal play every game of that table alike on this point."""
        if callable(self.in_play):
            return self.in_play(rules, players)
        return tuple(getattr(rules, name) for name in self.fields)

    def shown(self, value: Any, doc: Doc) -> str:
        return self.text(value, doc) if self.text is not None else word(value)


def flag(key: str, concern: str, title: str, field: str, **parts: Any) -> RulePoint:
    """A yes/no rule compiled to one boolean field, which play depends on and the fast path
    plays both ways (unless `parts` says otherwise)."""
    parts = {"in_play": True, "fast_path": BOTH, **parts}
    return RulePoint(key, concern, title, fields=(field,), compile=lambda v, doc: bool(v), **parts)


def count(key: str, concern: str, title: str, field: str, **parts: Any) -> RulePoint:
    """A rule that is a whole number, compiled to one int field."""
    return RulePoint(key, concern, title, fields=(field,), compile=lambda v, doc: int(v), **parts)


# --------------------------------------------------------------------------- words
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
    "pile": "the side's captures",
    "dealt": "each hand as dealt (a declaration)",
    "table": "the opening table (the dealer's side)",
}


def word(value: Any) -> str:
    """A value for people: `yes`/`no`, `—` for none, the words of an enumerated value."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "—"
    return _WORDS.get(str(value), str(value))


def number(x: Any) -> Any:
    """A whole float as an int (`20.0` is `20`)."""
    if isinstance(x, float) and x.is_integer():
        return int(x)
    return x


def plain(value: Any) -> str:
    """A value as a feature writes it: `yes`/`no`, whole numbers without `.0`."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(number(value))
