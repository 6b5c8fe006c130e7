"""The measure language (reference_impl/escoba/rules/expr.py), against the base ruleset's deck."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from escoba.rules.expr import ExprEnv, ExprError, compile_expression, env_from_deck

BASE = yaml.safe_load((Path(__file__).parents[1] / "spec" / "base.yaml").read_text("utf-8"))
ENV = env_from_deck(BASE["deck"], BASE["values"])
MEASURES = {c["id"]: c["measure"] for c in BASE["scoring"]["categories"] if "measure" in c}


def card(rank: str, suit: str) -> int:
    """Deck index of a card: suit-major, in the ruleset's order."""
    return ENV.suits.index(suit) * len(ENV.ranks) + ENV.ranks.index(rank)


def pile(*cards: str) -> list[int]:
    """`pile("7 oros", "sota bastos")` -> card indices."""
    return [card(*c.split()) for c in cards]


def value(text: str, cards: list[int] = (), escobas: int = 0, context: str = "side"):
    return compile_expression(text, ENV, context=context).fn(cards, escobas)


PRIMERA_PILE = pile(
    "7 oros", "2 oros", "7 copas", "sota copas", "1 espadas", "5 espadas", "sota bastos", "rey bastos"
)


# ----------------------------------------------------------------------------- the environment


def test_env_from_base_deck():
    """The base deck gives 40 cards, suit-major, with the rank and suit aliases resolved."""
    assert ENV.suits == ("oros", "copas", "espadas", "bastos")
    assert ENV.ranks[0] == "1" and ENV.ranks[-1] == "rey"
    assert len(ENV.card_suit) == 40 and ENV.card_suit[10] == 1 and ENV.card_rank[10] == 0
    assert ENV.rank_aliases["A"] == "1" and ENV.rank_aliases["S"] == "sota"
    assert ENV.rank_aliases["7"] == "7" and ENV.rank_aliases["K"] == "rey"
    assert ENV.suit_aliases["o"] == "oros" and ENV.suit_aliases["d"] == "oros"
    assert ENV.value_maps["primera"]["7"] == 21


def test_env_jokers_come_last():
    """Jokers are appended after the suited cards, with no suit and no rank."""
    env = env_from_deck({**BASE["deck"], "jokers": 2}, None)
    assert env.card_suit[40:] == (-1, -1) and env.card_rank[40:] == (-1, -1)
    assert env.value_maps == {}
    assert compile_expression("count(deck)", env).fn((), 0) == 42
    assert compile_expression("count(suit(deck, oros))", env).fn((), 0) == 10


# ----------------------------------------------------------------------------- base measures


@pytest.mark.parametrize(
    "category, cards, escobas, expected",
    [
        ("escobas", [], 3, 3),
        ("cards", PRIMERA_PILE, 0, 8),
        ("cards", [], 0, 0),
        ("coins", PRIMERA_PILE, 0, 2),
        ("coins", pile("7 copas", "1 bastos"), 0, 0),
        ("primera", PRIMERA_PILE, 0, 21 + 21 + 16 + 10),
        ("primera", pile("7 oros", "6 copas", "rey espadas", "caballo bastos"), 0, 21 + 18 + 10 + 10),
        ("primera", pile("7 oros", "7 copas", "7 espadas"), 0, None),
        ("primera", [], 0, None),
    ],
)
def test_base_measures(category, cards, escobas, expected):
    """The base ruleset's measures: escobas, cards, coins and primera (none without a suit)."""
    assert value(MEASURES[category], cards, escobas) == expected


@pytest.mark.parametrize(
    "text, cards, expected",
    [
        ("count(rank(cards, 7))", pile("7 oros", "7 bastos", "6 oros"), 2),
        ("count(rank(cards, 7)) == 4", pile("7 oros", "7 copas", "7 espadas", "7 bastos"), True),
        ("count(rank(cards, 7)) == 4", pile("7 oros", "7 copas", "7 espadas"), False),
        ("count(cards) > count(deck) / 2", pile(*(f"{r} oros" for r in ENV.ranks), "1 copas",
                                                 *(f"{r} bastos" for r in ENV.ranks)), True),
        ("count(cards) > count(deck) / 2", pile(*(f"{r} oros" for r in ENV.ranks)), False),
        ("best(cards, primera)", pile("sota oros", "1 copas"), 16),
        ("total(cards, primera)", pile("sota oros", "1 copas"), 26),
        ("total(cards, primera)", [], 0),
        ("total(suit(deck, oros), primera)", [], 21 + 18 + 16 + 15 + 14 + 13 + 12 + 10 + 10 + 10),
        ("count(rank(suit(cards, o), S))", pile("sota oros", "sota copas", "rey oros"), 1),
        ("min(count(cards), 2) + max(escobas, 1)", pile("1 oros", "2 oros", "3 oros"), 3),
        ("count(cards) * 2 - 1 if count(cards) > 1 else -1", pile("1 oros", "2 oros"), 3),
        ("count(cards) * 2 - 1 if count(cards) > 1 else -1", [], -1),
        ("count(cards) >= 2 and not count(suit(cards, oros)) == 0", pile("1 oros", "2 copas"), True),
        ("count(suit(cards, copas)) == 1 or false", pile("1 oros"), False),
        ("count(deck) / 2", [], 20),
    ],
)
def test_measure_values(text, cards, expected):
    """Sevens, 'all four sevens', 'more than half the deck' and the other building blocks."""
    assert value(text, cards) == expected


def test_global_threshold():
    """A global expression sees only the deck: half the base deck is 20."""
    compiled = compile_expression("count(deck) / 2", ENV, context="global")
    assert compiled.kind == "number" and compiled.fn((), 0) == 20


# ----------------------------------------------------------------------------- none


@pytest.mark.parametrize(
    "text, expected",
    [
        ("none", None),
        ("none + 1", None),
        ("2 * none", None),
        ("none / 1", None),
        ("-none", None),
        ("none < 1", None),
        ("none == none", None),
        ("not none", None),
        ("true and none", None),
        ("false and none", None),
        ("true or none", None),
        ("min(none, 1)", None),
        ("max(3, none)", None),
        ("1 if none else 2", None),
        ("none if true else 2", None),
        ("1 if false else none", None),
        ("1 / 0", None),
        ("best(suit(cards, oros), primera) + 1", None),
        ("best(suit(cards, oros), primera) > 0", None),
        ("best(suit(cards, oros), primera) > 0 or true", None),
        ("1 if best(suit(cards, oros), primera) > 0 else 0", None),
        ("count(cards) / count(suit(cards, oros))", None),
    ],
)
def test_none_propagates(text, expected):
    """Arithmetic, comparison, logic, min/max and if-conditions with none give none."""
    assert value(text, pile("7 copas")) is expected


def test_best_of_empty_set_is_none_and_total_is_zero():
    """best() of a set with no valued card is none; total() of it is 0."""
    assert value("best(cards, primera)") is None
    assert value("total(cards, primera)") == 0


@pytest.mark.parametrize(
    "text, kind",
    [("count(cards)", "number"), ("none", "number"), ("count(cards) > 3", "bool"),
     ("true if count(cards) > 3 else none", "bool"), ("not true", "bool")],
)
def test_kinds(text, kind):
    """Numbers (and a bare none) are "number"; conditions are "bool"."""
    assert compile_expression(text, ENV).kind == kind


# ----------------------------------------------------------------------------- static errors

ERRORS = [
    # syntax
    ("count(cards", 11, "expected ')' or ',' here"),
    ("(count(cards) + 1", 17, "expected ')' here"),
    ("1 +", 3, "expected an expression here"),
    ("", 0, "expected an expression here"),
    ("count(cards) 1", 13, "unexpected '1', expected an operator or the end of the expression here"),
    ("count(cards oros)", 12, "unexpected 'oros', expected ')' or ',' here"),
    ("suit(cards,)", 11, "unexpected ')', expected an expression here"),
    ("1 if true", 9, "expected 'else' here"),
    ("1 < 2 < 3", 6, "comparisons do not chain: write 'a < b and b < c'"),
    ("count(cards) = 1", 13, "unexpected character '=' (compare with '==')"),
    ("count(cards) @ 2", 13, "unexpected character '@'"),
    ("7.", 1, "unexpected character '.'"),
    # names
    ("coins", 0, "unknown name 'coins' (did you mean 'oros'?)"),
    ("count(cadrs)", 6, "unknown name 'cadrs' (did you mean 'cards'?)"),
    ("escoba", 0, "unknown name 'escoba' (did you mean 'escobas'?)"),
    ("count(suit(cards, coins))", 18, "unknown suit 'coins' (did you mean 'oros'?)"),
    ("count(suit(cards, espada))", 18, "unknown suit 'espada' (did you mean 'espadas'?)"),
    ("count(rank(cards, 11))", 18, "unknown rank '11'"),
    ("count(rank(cards, sotta))", 18, "unknown rank 'sotta' (did you mean 'sota'?)"),
    ("best(cards, primiera)", 12, "unknown value map 'primiera' (did you mean 'primera'?)"),
    ("cuont(cards)", 0, "unknown function 'cuont' (did you mean 'count'?)"),
    ("count", 0, "'count' is a function: write count(...)"),
    # arity
    ("count(cards, deck)", 13, "count() takes 1 argument, got 2"),
    ("count()", 6, "count() takes 1 argument, got 0"),
    ("best(cards)", 10, "best() takes 2 arguments, got 1"),
    ("min(1, 2, 3)", 10, "min() takes 2 arguments, got 3"),
    # argument types
    ("count(suit(cards, 7))", 18, "suit() expects a suit as its second argument, got a number"),
    ("count(suit(cards, primera))", 18, "suit() expects a suit as its second argument, got a value map"),
    ("count(rank(cards, oros))", 18, "rank() expects a rank as its second argument, got a suit"),
    ("count(rank(cards, 3 + 4))", 18, "rank() expects a rank as its second argument, got a number"),
    ("best(cards, oros)", 12, "best() expects a value map as its second argument, got a suit"),
    ("count(escobas)", 6, "count() expects a set or a list of captures as its first argument, got a number"),
    ("count(sota)", 6, "count() expects a set or a list of captures as its first argument, got a rank"),
    ("min(cards, 1)", 4, "min() expects a number as its first argument, got a set"),
    ("total(count(cards), primera)", 6, "total() expects a set as its first argument, got a number"),
    # operator types
    ("cards + 1", 0, "'+' needs numbers, got a set"),
    ("1 * (cards)", 4, "'*' needs numbers, got a set"),
    ("count(cards) - true", 15, "'-' needs numbers, got a condition"),
    ("-deck", 1, "'-' needs a number, got a set"),
    ("count(cards) > deck", 15, "'>' needs numbers, got a set"),
    ("count(cards) and true", 0, "'and' needs conditions, got a number"),
    ("true or 1", 8, "'or' needs conditions, got a number"),
    ("not escobas", 4, "'not' needs a condition, got a number"),
    ("1 if escobas else 2", 5, "'if' needs a condition, got a number"),
    ("cards if true else deck", 0, "the branches of 'if ... else' must be numbers or conditions, got a set"),
    ("1 if true else false", 15, "the branches of 'if ... else' must be of one type, got a number and a condition"),
    # what a measure may be
    ("cards", 0, "a measure must be a number or a condition, got a set"),
    ("suit(cards, oros)", 0, "a measure must be a number or a condition, got a set"),
    ("oros", 0, "a measure must be a number or a condition, got a suit"),
    ("primera", 0, "a measure must be a number or a condition, got a value map"),
    # bounds
    ("1" + " + 1" * 500, 2000, "expression too long: 2001 characters, at most 2000"),
    ("(" * 51 + "1" + ")" * 51, 50, "expression nested too deeply (more than 50 levels)"),
    ("count(" * 60 + "cards" + ")" * 60, 50 * 6 + 5, "expression nested too deeply (more than 50 levels)"),
    ("-" * 80 + "1", 50, "expression nested too deeply (more than 50 levels)"),
    ("not " * 60 + "true", 200, "expression nested too deeply (more than 50 levels)"),
]


@pytest.mark.parametrize("text, column, message", ERRORS, ids=[e[2][:40] + "|" + e[0][:30] for e in ERRORS])
def test_static_errors(text, column, message):
    """Each static error has its exact message and the column of the offending token."""
    with pytest.raises(ExprError) as caught:
        compile_expression(text, ENV)
    assert (caught.value.message, caught.value.column) == (message, column)


@pytest.mark.parametrize(
    "text, column, message",
    [
        ("count(cards) / 2", 6, "'cards' belongs to a side and cannot be used here; only 'deck' can"),
        ("escobas", 0, "'escobas' belongs to a side and cannot be used here; only 'deck' can"),
        # 'cards' is not a name here, so it is not suggested either.
        ("cadrs", 0, "unknown name 'cadrs' (did you mean 'copas'?)"),
        ("dekc", 0, "unknown name 'dekc' (did you mean 'deck'?)"),
    ],
)
def test_global_context_errors(text, column, message):
    """In a global expression the side's pile and escobas do not exist."""
    with pytest.raises(ExprError) as caught:
        compile_expression(text, ENV, context="global")
    assert (caught.value.message, caught.value.column) == (message, column)


def test_nesting_at_the_limit_compiles():
    """Exactly 50 levels are allowed; long flat chains are not nesting."""
    assert value("(" * 49 + "1" + ")" * 49) == 1
    assert value("1" + " + 1" * 400) == 401


def test_error_prints_the_line_and_a_caret():
    """str() of an ExprError shows the message, the expression's line and a caret."""
    with pytest.raises(ExprError) as caught:
        compile_expression("count(cards)\n  + coins", ENV)
    assert str(caught.value) == (
        "unknown name 'coins' (did you mean 'oros'?)\n      + coins\n        ^"
    )


# ----------------------------------------------------------------------------- canonical forms


@pytest.mark.parametrize(
    "a, b",
    [
        ("count(suit(cards,oros))", "count( suit(cards, o) )"),
        ("count(suit(cards, oros))", "(count(suit(cards, d)))"),
        ("count(rank(cards, 7))", "count(rank(cards,7))"),
        ("count(rank(cards, 1))", "count(rank(cards, A))"),
        ("count(rank(cards, E))", "count(rank(cards, 1))"),
        ("count(rank(cards, sota))", "count(rank(cards, J))"),
        ("count(cards) > 7", "count(cards) > 7.0"),
        ("count(cards) + 1 + 2", "(count(cards) + 1) + 2"),
        ("count(cards) > 1 and escobas > 0 and true", "count(cards) > 1 and (escobas > 0 and true)"),
        ("escobas * 2", "escobas * (1 + 1)"),
        ("escobas", "((escobas))"),
        ("count(deck) / 2", "count(deck)/2"),
    ],
)
def test_same_meaning_same_canonical(a, b):
    """Aliases, spacing, redundant parentheses and number spellings do not change the canonical form."""
    assert compile_expression(a, ENV).canonical == compile_expression(b, ENV).canonical


@pytest.mark.parametrize(
    "text, canonical",
    [
        ("count( suit(cards, o) )", "count(suit(cards, oros))"),
        ("count(rank(cards, S))", "count(rank(cards, sota))"),
        ("escobas - (1 - count(cards))", "escobas - (1 - count(cards))"),
        ("(escobas + 1) * 2", "(escobas + 1) * 2"),
        ("-(escobas + 1)", "-(escobas + 1)"),
        ("not (escobas > 1 or true)", "not (escobas > 1 or true)"),
        ("(1 if escobas > 0 else 2) + 1", "(1 if escobas > 0 else 2) + 1"),
        ("0.50 * escobas", "0.5 * escobas"),
        ("escobas + 2 * 3", "escobas + 6"),
    ],
)
def test_canonical_text(text, canonical):
    """The canonical form resolves aliases and keeps only the parentheses the meaning needs."""
    assert compile_expression(text, ENV).canonical == canonical


def test_different_meaning_different_canonical():
    """Grouping that changes the meaning stays in the canonical form."""
    assert (
        compile_expression("escobas - (1 - count(cards))", ENV).canonical
        != compile_expression("escobas - 1 - count(cards)", ENV).canonical
    )


# ----------------------------------------------------------------------------- robustness

TOKENS = [
    "cards", "deck", "escobas", "oros", "o", "copas", "primera", "none", "true", "false",
    "count", "suit", "rank", "best", "total", "min", "max", "sota", "S", "A", "and", "or",
    "not", "if", "else", "(", ")", ",", "+", "-", "*", "/", "==", "!=", "<", "<=", ">", ">=",
    "0", "1", "7", "2.5", "11", "x", " ", "=", ".", "\n",
]


@settings(max_examples=400, deadline=None)
@given(st.one_of(
    st.lists(st.sampled_from(TOKENS), max_size=30).map(" ".join),
    st.lists(st.sampled_from(TOKENS), max_size=30).map("".join),
    st.text(alphabet="abcdeorsnt017(),+-*/<>=!. _", max_size=60),
))
def test_any_text_compiles_or_raises_expr_error(text):
    """Random text over the alphabet compiles or raises ExprError, nothing else; results are values."""
    try:
        compiled = compile_expression(text, ENV)
    except ExprError as error:
        assert 0 <= error.column <= len(text)
        return
    result = compiled.fn(PRIMERA_PILE, 2)
    assert result is None or isinstance(result, (bool, int, float))


def test_evaluation_is_pure():
    """The same pile gives the same value, and the pile passed in is not changed."""
    compiled = compile_expression(MEASURES["primera"], ENV)
    cards = list(PRIMERA_PILE)
    assert compiled.fn(cards, 0) == compiled.fn(cards, 0) == 68
    assert cards == PRIMERA_PILE


def test_expr_env_without_suit_aliases():
    """An ExprEnv built by hand without suit aliases still accepts suit ids."""
    env = ExprEnv(
        suits=("oros",), ranks=("1", "2"), rank_aliases={"1": "1", "2": "2"},
        card_suit=(0, 0), card_rank=(0, 1), value_maps={"v": {"1": 5, "2": 3}},
    )
    assert compile_expression("best(suit(cards, oros), v)", env).fn([1], 0) == 3
    assert compile_expression("total(rank(deck, 2), v)", env).fn([], 0) == 3


# ----------------------------------------------------------------------------- every problem at once


@pytest.mark.parametrize(
    "text, problems",
    [
        ("count(rank(cards, 11)) + count(suit(cards, coins))",
         [(18, "unknown rank '11'"), (43, "unknown suit 'coins' (did you mean 'oros'?)")]),
        ("count(cards) + cardz + best(cards, primerra) > escobas and 3",
         [(15, "unknown name 'cardz' (did you mean 'cards'?)"), (35, "unknown value map 'primerra' (did you mean 'primera'?)"),
          (59, "'and' needs conditions, got a number")]),
        ("min(count(cards)) + total(cards, figures) + foo(1)",
         [(16, "min() takes 2 arguments, got 1"), (33, "unknown value map 'figures'"), (44, "unknown function 'foo'; functions: count, suit, rank, card, best, total, of_a_kind, min, max, played, taken, made_with, taking, first_play, last_play, in_round")]),
    ],
)
def test_an_expression_reports_every_problem_left_to_right(text, problems):
    """The check goes on past a problem: the error raised is the first, and `errors` holds every problem with its column, left to right."""
    with pytest.raises(ExprError) as caught:
        compile_expression(text, ENV)
    assert [(e.column, e.message) for e in caught.value.errors] == problems
    assert caught.value.errors[0] is caught.value


def test_a_problem_is_not_reported_again_as_its_consequences():
    """A part in error fits wherever it stands: `count(cardz) > 2` is one problem, not also a type error on the comparison."""
    with pytest.raises(ExprError) as caught:
        compile_expression("count(cardz) > 2 and escobas", ENV)
    assert [e.message for e in caught.value.errors] == ["unknown name 'cardz' (did you mean 'cards'?)", "'and' needs conditions, got a number"]
