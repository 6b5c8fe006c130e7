"""The measure language: parse, type-check and compile scoring expressions.

A ruleset's scoring categories say what they count with a small expression
(`count(suit(cards, oros))`, `best(suit(cards, oros), primera) + ...`). The user reference is
docs/expressions.md; the grammar is expr.lark next to this file.

Each expression goes through four steps, once, when the ruleset loads:

1. bounds: at most 2,000 characters and 50 levels of nesting, so no input can exhaust the stack;
2. parse (lark, LALR) and build frozen AST nodes;
3. check: resolve names by where they stand (a suit where `suit()` wants one, a rank where
   `rank()` wants one, ...), check types, fold literal sub-expressions;
4. compile to nested closures over card bitmasks precomputed from the deck.

Besides the side's pile, a measure may read the hand's history (`captures`, `sweeps`,
`last_capture`: engine/history.py). `Compiled.needs_history` says so, and only then does the
engine record it.

Every problem is an `ExprError` with a 0-based column into the text; the check goes on after
a problem (the part in error counts as whatever its place wants), so the error raised carries
in `errors` every problem of the expression, left to right, not only the first. Evaluation is
pure: `none` ("not eligible") propagates instead of raising.
"""

from __future__ import annotations

import difflib
import math
import operator
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from importlib import resources
from typing import Any, cast

from lark import Lark, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken, VisitError
from lark.visitors import Transformer_NonRecursive

from escoba.cachedir import cache_file, write_whole
from escoba.errors import EscobaError

__all__ = ["Compiled", "ExprEnv", "ExprError", "compile_expression", "env_from_deck"]

MAX_LENGTH = 2000
MAX_DEPTH = 50
MAX_DIGITS = 15  # a literal's integer part; a float of more than 308 digits is infinite


class ExprError(EscobaError):
    """An expression that does not parse or does not type-check; `column` is 0-based."""

    def __init__(self, message: str, column: int, text: str = ""):
        self.message, self.column, self.text = message, column, text
        # Every problem the check found, this one first (compile_expression fills it in).
        self.errors: list[ExprError] = [self]
        super().__init__(message)

    def __str__(self) -> str:
        if not self.text:
            return self.message
        # The caret goes under the column on its own line (measures may span YAML lines).
        start = self.text.rfind("\n", 0, self.column) + 1
        end = self.text.find("\n", self.column)
        line = self.text[start : end if end >= 0 else len(self.text)]
        return f"{self.message}\n    {line}\n    {' ' * (self.column - start)}^"


@dataclass(frozen=True)
class ExprEnv:
    """What an expression may name, and the deck it is evaluated over."""

    suits: tuple[str, ...]
    ranks: tuple[str, ...]
    rank_aliases: Mapping[str, str]
    card_suit: tuple[int, ...]
    card_rank: tuple[int, ...]
    value_maps: Mapping[str, Mapping[str, float]]
    # Added after the first six fields, with a default, so existing constructors still work:
    # every id/ascii/alias usable in suit(...) -> suit id ("o" -> "oros").
    suit_aliases: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Compiled:
    """A checked expression: `fn(cards, escobas, history=None)` evaluates it for one side's pile
    (and, when `needs_history`, the side's `SideHistory` from engine/history.py); `on_mask(bitmask
    of the pile, escobas, history)` is the same with the pile as a bitmask of card indices (what
    the fused simulation path keeps), the history always passed: None when not `needs_history`
    (one call per side and category in every simulated hand, so no wrapper adds a default)."""

    text: str
    kind: str  # "number" | "bool" | "set"; a measure is never "set" (that is an error)
    canonical: str
    fn: Callable[..., object] = field(compare=False, repr=False)
    needs_history: bool = False
    on_mask: Callable[..., object] | None = field(default=None, compare=False, repr=False)
    # Which of the history's names it reads (captures, sweeps, last_capture): a simulation
    # then records no more of the hand than that (engine/fused.py).
    history_reads: frozenset[str] = frozenset()


def env_from_deck(deck: dict, values: dict | None) -> ExprEnv:
    """The environment of a resolved ruleset's `deck` and `values` sections."""
    suits = tuple(str(s["id"]) for s in deck["suits"])
    ranks = tuple(str(r["id"]) for r in deck["ranks"])

    def aliases(items: list[dict]) -> dict[str, str]:
        # Ids first, so an alias never shadows another item's id.
        table = {str(item["id"]): str(item["id"]) for item in items}
        for item in items:
            for name in [item.get("ascii"), *(item.get("aliases") or [])]:
                if name is not None:
                    table.setdefault(str(name), str(item["id"]))
        return table

    card_suit = [s for s in range(len(suits)) for _ in ranks]
    card_rank = [r for _ in suits for r in range(len(ranks))]
    jokers = int(deck.get("jokers") or 0)
    return ExprEnv(
        suits=suits,
        ranks=ranks,
        rank_aliases=aliases(deck["ranks"]),
        card_suit=tuple(card_suit + [-1] * jokers),
        card_rank=tuple(card_rank + [-1] * jokers),
        value_maps={str(k): {str(r): v for r, v in m.items()} for k, m in (values or {}).items()},
        suit_aliases=aliases(deck["suits"]),
    )


# --------------------------------------------------------------------------- AST


@dataclass(frozen=True)
class Node:
    column: int
    # Nesting level of the subtree (parentheses count); not part of the meaning.
    depth: int = field(default=1, compare=False, kw_only=True)

    def children(self) -> tuple[Node, ...]:
        return ()


@dataclass(frozen=True)
class Const(Node):
    value: object  # int | float | bool | None
    text: str = field(default="", compare=False)  # the literal as written, for rank(set, 7)


@dataclass(frozen=True)
class Name(Node):
    name: str


@dataclass(frozen=True)
class Ref(Node):
    """A name after resolution: kind is "var", "suit", "rank" or "map"; id is canonical."""

    kind: str
    id: str


@dataclass(frozen=True)
class Call(Node):
    func: str
    args: tuple[Node, ...]
    close: int  # column of ')', where a missing argument is reported

    def children(self) -> tuple[Node, ...]:
        return self.args


@dataclass(frozen=True)
class Chain(Node):
    """`first op x op y ...` for one operator class: "or", "and", "sum" or "product"."""

    level: str
    first: Node
    rest: tuple[tuple[str, Node], ...]

    def children(self) -> tuple[Node, ...]:
        return (self.first, *(x for _, x in self.rest))


@dataclass(frozen=True)
class Compare(Node):
    op: str
    left: Node
    right: Node

    def children(self) -> tuple[Node, ...]:
        return (self.left, self.right)


@dataclass(frozen=True)
class Unary(Node):
    op: str  # "-" or "not"
    operand: Node

    def children(self) -> tuple[Node, ...]:
        return (self.operand,)


@dataclass(frozen=True)
class Broken(Node):
    """A part of the expression whose problem is already reported: it fits wherever it stands,
    so that the check goes on without reporting its consequences."""


@dataclass(frozen=True)
class IfElse(Node):
    then: Node
    cond: Node
    other: Node

    def children(self) -> tuple[Node, ...]:
        return (self.then, self.cond, self.other)


def _deeper(node: Node) -> Node:
    return replace(node, depth=1 + max((c.depth for c in node.children()), default=0))


def _number(text: str) -> int | float:
    if "." not in text:
        return int(text)
    value = float(text)
    # 7.0 and 7 are the same number, and print the same in canonical forms.
    return int(value) if value.is_integer() else value


@v_args(meta=True)
class _Builder(Transformer_NonRecursive):
    """Lark tree -> AST. Non-recursive, so a deep input cannot overflow the stack here."""

    def number(self, meta, children):
        (tok,) = children
        if len(str(tok).split(".")[0]) > MAX_DIGITS:  # 400 digits would be an infinite float
            raise ExprError(f"number too large: at most {MAX_DIGITS} digits before the point", meta.start_pos, "")
        return Const(meta.start_pos, _number(str(tok)), text=str(tok))

    def name(self, meta, children):
        return Name(meta.start_pos, str(children[0]))

    def none(self, meta, children):
        return Const(meta.start_pos, None)

    def true(self, meta, children):
        return Const(meta.start_pos, True)

    def false(self, meta, children):
        return Const(meta.start_pos, False)

    def arguments(self, meta, children):
        return tuple(children)

    def call(self, meta, children):
        func, args = children
        return _deeper(Call(meta.start_pos, str(func), args or (), meta.end_pos - 1))

    def paren(self, meta, children):
        # Parentheses leave no node, but they count as nesting, and errors about the
        # parenthesised operand point at its '('.
        (inner,) = children
        return replace(inner, column=meta.start_pos, depth=inner.depth + 1)

    def _chain(self, level, meta, children):
        if level in ("and", "or"):  # lark drops keyword tokens: children are the operands
            operands, ops = children, [level] * (len(children) - 1)
        else:
            operands, ops = children[::2], [str(t) for t in children[1::2]]
        first, rest = operands[0], list(zip(ops, operands[1:]))
        if isinstance(first, Chain) and first.level == level:
            # (a + b) + c means a + b + c: fold the left operand in (chains are left-assoc).
            first, rest = first.first, [*first.rest, *rest]
        if level in ("and", "or"):
            # and/or are associative, also under none-propagation: flatten every operand.
            flat: list[Node] = []
            for x in [first, *(x for _, x in rest)]:
                flat.extend(x.children() if isinstance(x, Chain) and x.level == level else [x])
            first, rest = flat[0], [(level, x) for x in flat[1:]]
        return _deeper(Chain(meta.start_pos, level, first, tuple(rest)))

    def or_expr(self, meta, children):
        return self._chain("or", meta, children)

    def and_expr(self, meta, children):
        return self._chain("and", meta, children)

    def sum(self, meta, children):
        return self._chain("sum", meta, children)

    def product(self, meta, children):
        return self._chain("product", meta, children)

    def comparison(self, meta, children):
        left, op, right = children
        return _deeper(Compare(meta.start_pos, str(op), left, right))

    def not_(self, meta, children):
        return _deeper(Unary(meta.start_pos, "not", children[0]))

    def neg(self, meta, children):
        return _deeper(Unary(meta.start_pos, "-", children[1]))

    def if_else(self, meta, children):
        return _deeper(IfElse(meta.start_pos, *children))


# --------------------------------------------------------------------------- parsing


@lru_cache(maxsize=1)
def _parser() -> Lark:
    """The expression parser. Building its LALR tables costs most of `escoba check`'s start-up,
    so the built parser is kept in the user's cache folder (`parser_cache_file`) and loaded
    from there when the grammar, lark and Python are the same; built afresh otherwise."""
    import hashlib

    import lark

    grammar = resources.files(__package__).joinpath("expr.lark").read_text(encoding="utf-8")
    options = {"parser": "lalr", "lexer": "basic", "propagate_positions": True}
    key = f"{grammar}{sorted(options.items())}{lark.__version__}{sys.version}"
    path = parser_cache_file(hashlib.sha256(key.encode()).hexdigest()[:32])
    if path is not None:
        try:
            with open(path, "rb") as f:
                return Lark.load(f)
        except Exception:  # none yet, or a file another version left unreadable: built below
            pass
    parser = Lark(grammar, **options)
    if path is not None:
        write_whole(path, parser.save)
    return parser


def parser_cache_file(key: str) -> str | None:
    """Where the built parser with this key is kept: `expr-KEY.lark` in the user's cache
    folder (escoba/cachedir.py). The file is a pickle, so only in a folder that belongs to this
    user and that nobody else may write (None otherwise: the parser is then built each time)."""
    return cache_file(f"expr-{key}.lark")


_CLOSERS = (("RPAR", "')'"), ("COMMA", "','"), ("ELSE", "'else'"))


def _syntax_error(e: UnexpectedInput, text: str) -> ExprError:
    if isinstance(e, UnexpectedCharacters):
        assert e.pos_in_stream is not None  # the lexer always knows where it stopped
        char = text[e.pos_in_stream]
        hint = " (compare with '==')" if char == "=" else ""
        return ExprError(f"unexpected character {char!r}{hint}", e.pos_in_stream, text)
    if not isinstance(e, UnexpectedToken):  # pragma: no cover - LALR reports tokens
        return ExprError("unexpected end of the expression", len(text.rstrip()), text)
    accepts = set(e.accepts or e.expected)
    if accepts & {"NAME", "NUMBER"}:
        wanted = "an expression"
    elif closers := [word for term, word in _CLOSERS if term in accepts]:
        wanted = " or ".join(closers)
    elif "$END" in accepts:
        wanted = "an operator or the end of the expression"
    else:  # pragma: no cover - every parser state accepts one of the above
        wanted = "something else"
    if e.token.type == "$END":
        return ExprError(f"expected {wanted} here", len(text.rstrip()), text)
    column = e.token.start_pos
    if e.token.type == "NAME" and str(e.token).lower() in _BEYOND:  # `count(e for e in sweeps)`
        return ExprError(f"unexpected {str(e.token)!r}: {_BEYOND[str(e.token).lower()]}", column, text)
    if e.token.type == "COMPARE" and wanted != "an expression":
        return ExprError(
            "comparisons do not chain: write 'a < b and b < c'", column, text
        )
    return ExprError(f"unexpected {str(e.token)!r}, expected {wanted} here", column, text)


# Parsing is most of the cost of a compile, and rulesets repeat their parents' measures; the
# AST is immutable, so it can be shared. (Errors are not cached: they are raised again.)
@lru_cache(maxsize=1024)
def _parse(text: str) -> Node:
    if len(text) > MAX_LENGTH:
        raise ExprError(
            f"expression too long: {len(text)} characters, at most {MAX_LENGTH}",
            MAX_LENGTH,
            text,
        )
    # Parentheses are checked on the text so the caret lands on the first '(' too many;
    # other nesting (`not not ...`, `- - ...`, nested `if`) on the tree below.
    depth = 0
    for column, char in enumerate(text):
        depth += (char == "(") - (char == ")")
        if depth > MAX_DEPTH:
            raise _too_deep(column, text)
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as e:
        raise _syntax_error(e, text) from None
    try:
        root = _Builder().transform(tree)
    except VisitError as e:  # lark wraps what a callback raises
        if isinstance(e.orig_exc, ExprError):
            raise ExprError(e.orig_exc.message, e.orig_exc.column, text) from None
        raise
    if root.depth > MAX_DEPTH:
        # Report where the nesting passes the limit, counted from the outside in.
        node = root
        while node.depth > root.depth - MAX_DEPTH and node.children():
            node = max(node.children(), key=lambda c: c.depth)
        raise _too_deep(node.column, text)
    return root


def _too_deep(column: int, text: str) -> ExprError:
    return ExprError(f"expression nested too deeply (more than {MAX_DEPTH} levels)", column, text)


# --------------------------------------------------------------------------- checking

NUMBER, BOOL, SET, SUIT, RANK, MAP, NONE = "number", "bool", "set", "suit", "rank", "map", "none"
BROKEN = "broken"  # the type of a part in error (a `Broken` node): it fits anything
EVENTS = "events"  # a list of captures from the hand's history
CARDS_OR_EVENTS = "cards or events"  # what count() takes

_DESCRIBE = {
    NUMBER: "a number",
    BOOL: "a condition",
    SET: "a set",
    SUIT: "a suit",
    RANK: "a rank",
    MAP: "a value map",
    NONE: "none",
    EVENTS: "a list of captures",
    CARDS_OR_EVENTS: "a set or a list of captures",
}

# name -> (argument types, result type)
_FUNCTIONS: dict[str, tuple[tuple[str, ...], str]] = {
    "count": ((CARDS_OR_EVENTS,), NUMBER),
    "suit": ((SET, SUIT), SET),
    "rank": ((SET, RANK), SET),
    "card": ((SET, RANK, SUIT), SET),
    "best": ((SET, MAP), NUMBER),
    "total": ((SET, MAP), NUMBER),
    "of_a_kind": ((SET,), NUMBER),
    "min": ((NUMBER, NUMBER), NUMBER),
    "max": ((NUMBER, NUMBER), NUMBER),
    # The hand's history: lists of captures, filtered, and the cards they moved.
    "played": ((EVENTS,), SET),
    "taken": ((EVENTS,), SET),
    "made_with": ((EVENTS, SET), EVENTS),
    "taking": ((EVENTS, SET), EVENTS),
    "first_play": ((EVENTS,), EVENTS),
    "last_play": ((EVENTS,), EVENTS),
    "in_round": ((EVENTS, NUMBER), EVENTS),
}
_VARIABLES = {"cards": SET, "deck": SET, "escobas": NUMBER, "captures": EVENTS, "sweeps": EVENTS,
              "last_capture": BOOL}
_HISTORY = ("captures", "sweeps", "last_capture")
_SIDE_ONLY = ("cards", "escobas", *_HISTORY)
# What a measure of cards as dealt (a hand, the opening table: context "hand") cannot see.
_PLAY_ONLY = ("escobas", *_HISTORY)
CONTEXTS = ("side", "global", "hand")
_KEYWORDS = ("none", "true", "false")
_ORDINALS = ("first", "second", "third")

# Words people reach for that name something a measure cannot see: said plainly, since no
# spelling of them would work. A measure is one side's pile and history, at the end of a hand.
_ONE_SIDE = ("a measure is evaluated for one side at a time and cannot see another side; "
             "comparing sides is the award policy's job (most, threshold)")
_NO_PLAY_STATE = ("a measure is evaluated when the hand is over, when hands and table are empty; "
                  "it sees the side's pile (cards) and the hand's history (captures, sweeps, last_capture)")
_NO_POINTS = "a measure cannot see points or the match score: it scores one hand from its cards and plays"
_NO_SEATS = "a measure cannot name seats or the dealer: it is evaluated for each side alike"
_NO_LOOPS = ("the measure language has no loops, variables or comprehensions; filter lists of "
             "captures with made_with(), taking(), first_play(), last_play() and in_round()")
_BEYOND = {
    **dict.fromkeys(("opponent", "opponents", "other", "others", "rival", "them", "sides", "side"), _ONE_SIDE),
    **dict.fromkeys(("table", "hand", "hands", "stock", "held", "leftovers"), _NO_PLAY_STATE),
    **dict.fromkeys(("points", "score", "scores", "total_points", "match", "target", "totals"), _NO_POINTS),
    **dict.fromkeys(("dealer", "seat", "seats", "player", "players", "leader", "partner"), _NO_SEATS),
    **dict.fromkeys(("for", "in", "each", "lambda", "where", "filter", "map", "let", "sum", "all", "any",
                     "if_", "len", "length"), _NO_LOOPS),
}

# English speakers write the English suit names, which difflib cannot relate to the Spanish
# ids; used only when the ruleset has that suit id.
_SUIT_WORDS = {
    "coins": "oros", "golds": "oros", "diamonds": "oros",
    "cups": "copas", "hearts": "copas",
    "swords": "espadas", "spades": "espadas",
    "clubs": "bastos", "batons": "bastos", "sticks": "bastos",
}


def _suggest(name: str, candidates: Sequence[str]) -> str:
    word = _SUIT_WORDS.get(name.lower())
    if word in candidates:
        return f" (did you mean {word!r}?)"
    close = difflib.get_close_matches(name, candidates, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _fits(actual: str, wanted: str) -> bool:
    # A literal none stands for a missing number or a missing condition.
    if actual == BROKEN:
        return True
    if wanted == CARDS_OR_EVENTS:
        return actual in (SET, EVENTS)
    return actual == wanted or (actual == NONE and wanted in (NUMBER, BOOL))


def _listing(names: Sequence[str]) -> str:
    return ", ".join(names)


class _Checker:
    """Resolves names, checks types and folds literals: AST -> (resolved AST, type)."""

    def __init__(self, env: ExprEnv, context: str, text: str):
        self.env, self.context, self.text = env, context, text
        self.suits = {s: s for s in env.suits} | dict(env.suit_aliases)
        hidden = {"side": (), "global": _SIDE_ONLY, "hand": _PLAY_ONLY}[context]
        self.variables = [v for v in _VARIABLES if v not in hidden]
        self.errors: list[ExprError] = []  # every problem found, in the order found

    def error(self, message: str, node: Node) -> ExprError:
        return ExprError(message, node.column, self.text)

    def check(self, node: Node) -> tuple[Node, str]:
        """The node resolved and its type; a node with a problem is recorded and stands as
        `Broken` (a raise inside it stops only its own check)."""
        try:
            return getattr(self, "_" + type(node).__name__)(node)
        except ExprError as error:
            return self.broken(error, node)

    def broken(self, error: ExprError, node: Node) -> tuple[Node, str]:
        self.errors.append(error)
        return Broken(node.column), BROKEN

    def expect(self, node: Node, wanted: str, message: str) -> Node:
        checked, kind = self.check(node)
        if not _fits(kind, wanted):
            return self.broken(self.error(f"{message}, got {_DESCRIBE[kind]}", node), node)[0]
        return checked

    # -- names

    def lookup(self, name: str) -> tuple[str, str, str] | None:
        """(ref kind, id, type) of a name standing where a value goes, or None if unknown."""
        if name in _VARIABLES:
            return ("var", name, _VARIABLES[name])
        if name in self.suits:
            return ("suit", self.suits[name], SUIT)
        if name in self.env.value_maps:
            return ("map", name, MAP)
        if name in self.env.rank_aliases:
            return ("rank", self.env.rank_aliases[name], RANK)
        return None

    def _Name(self, node: Name) -> tuple[Node, str]:
        found = self.lookup(node.name)
        if found is None:
            if node.name in _FUNCTIONS:
                raise self.error(f"{node.name!r} is a function: write {node.name}(...)", node)
            # A bare name is most likely a misspelt name; a function is suggested only if no
            # name is close ('cardz' is 'cards', not the function card()).
            names = [*self.variables, *self.env.suits, *self.env.value_maps, *_KEYWORDS]
            hint = (self.beyond(node.name) or _suggest(node.name, names)
                    or _suggest(node.name, list(_FUNCTIONS)) or self.known_names())
            raise self.error(f"unknown name {node.name!r}{hint}", node)
        kind, ident, typ = found
        if kind == "var" and ident in _PLAY_ONLY and self.context == "hand":
            raise self.error(
                f"{ident!r} is not known when the cards are dealt: a measure of dealt cards sees 'cards' and 'deck'", node
            )
        if kind == "var" and ident in _SIDE_ONLY and self.context == "global":
            raise self.error(
                f"{ident!r} belongs to a side and cannot be used here; only 'deck' can", node
            )
        return Ref(node.column, kind, ident), typ

    def _Const(self, node: Const) -> tuple[Node, str]:
        if node.value is None:
            return node, NONE
        return node, BOOL if isinstance(node.value, bool) else NUMBER

    # -- calls

    def known_names(self) -> str:
        """`; names: …` — what a name may be here, when nothing written is close."""
        maps = f"; value maps: {_listing(list(self.env.value_maps))}" if self.env.value_maps else ""
        return (f"; names: {_listing([*self.variables, *_KEYWORDS])}; suits: {_listing(self.env.suits)}"
                f"{maps}; functions: {_listing(list(_FUNCTIONS))}")

    def beyond(self, word: str) -> str:
        """`: <why>` when the word names something no measure can see (docs/expressions.md)."""
        why = _BEYOND.get(word.lower())
        return f": {why}" if why else ""

    def _Call(self, node: Call) -> tuple[Node, str]:
        if node.func not in _FUNCTIONS:
            hint = (self.beyond(node.func) or _suggest(node.func, list(_FUNCTIONS))
                    or f"; functions: {_listing(list(_FUNCTIONS))}")
            raise self.error(f"unknown function {node.func!r}{hint}", node)
        params, result = _FUNCTIONS[node.func]
        if len(node.args) != len(params):
            n = len(params)
            where = node.args[n] if len(node.args) > n else replace(node, column=node.close)
            raise self.error(
                f"{node.func}() takes {n} argument{'s' if n > 1 else ''}, got {len(node.args)}",
                where,
            )
        args = tuple(self.argument(node.func, i, arg, wanted)
                     for i, (arg, wanted) in enumerate(zip(node.args, params)))
        if node.func == "in_round":
            # A round is a fixed number (1 for the first deal), so the filter is built once.
            number = args[1]
            if not isinstance(number, Broken) and not (isinstance(number, Const) and isinstance(number.value, int)
                    and not isinstance(number.value, bool) and number.value >= 1):
                raise self.error("in_round() expects a round number (1, 2, ...) as its second argument", number)
        return self.fold(replace(node, args=args)), result

    def argument(self, func: str, i: int, arg: Node, wanted: str) -> Node:
        what = f"{func}() expects {_DESCRIBE[wanted]} as its {_ORDINALS[i]} argument"
        # Suits, ranks and value maps are names looked up where they stand (and a number
        # literal is read as a rank id). An unknown name gets the specific message ("unknown
        # suit"); a known name of another kind falls through to the type message.
        table = {SUIT: self.suits, RANK: self.env.rank_aliases,
                 MAP: {m: m for m in self.env.value_maps}}.get(wanted)
        written = arg.name if isinstance(arg, Name) else None
        if isinstance(arg, Const) and arg.text and wanted == RANK:
            written = arg.text
        if table is not None and written is not None:
            if written in table:
                return Ref(arg.column, wanted, table[written])
            if isinstance(arg, Const) or (self.lookup(written) is None
                                          and written not in _FUNCTIONS):
                label = "value map" if wanted == MAP else wanted
                hint = "" if isinstance(arg, Const) else _suggest(written, list(table))
                return self.broken(self.error(f"unknown {label} {written!r}{hint}", arg), arg)[0]
        return self.expect(arg, wanted, what)

    # -- operators

    def _Chain(self, node: Chain) -> tuple[Node, str]:
        wanted = BOOL if node.level in ("and", "or") else NUMBER
        need = "conditions" if wanted == BOOL else "numbers"
        ops = [node.rest[0][0], *(op for op, _ in node.rest)]
        operands = [self.expect(x, wanted, f"{op!r} needs {need}")
                    for op, x in zip(ops, node.children())]
        rest = tuple((op, x) for (op, _), x in zip(node.rest, operands[1:]))
        return self.fold(replace(node, first=operands[0], rest=rest)), wanted

    def _Compare(self, node: Compare) -> tuple[Node, str]:
        left, right = (self.expect(x, NUMBER, f"{node.op!r} needs numbers")
                       for x in (node.left, node.right))
        return self.fold(replace(node, left=left, right=right)), BOOL

    def _Unary(self, node: Unary) -> tuple[Node, str]:
        wanted, need = (BOOL, "a condition") if node.op == "not" else (NUMBER, "a number")
        operand = self.expect(node.operand, wanted, f"{node.op!r} needs {need}")
        return self.fold(replace(node, operand=operand)), wanted

    def _IfElse(self, node: IfElse) -> tuple[Node, str]:
        # Left to right, as written: `then if cond else other`.
        then, a = self.check(node.then)
        cond = self.expect(node.cond, BOOL, "'if' needs a condition")
        other, b = self.check(node.other)
        if BROKEN in (a, b):
            return self.fold(replace(node, then=then, cond=cond, other=other)), b if a == BROKEN else a
        for x, kind in ((node.then, a), (node.other, b)):
            if kind not in (NUMBER, BOOL, NONE):
                raise self.error(
                    f"the branches of 'if ... else' must be numbers or conditions, "
                    f"got {_DESCRIBE[kind]}",
                    x,
                )
        if NONE not in (a, b) and a != b:
            raise self.error(
                f"the branches of 'if ... else' must be of one type, "
                f"got {_DESCRIBE[a]} and {_DESCRIBE[b]}",
                node.other,
            )
        kind = b if a == NONE else a
        return self.fold(replace(node, then=then, cond=cond, other=other)), kind

    def fold(self, node: Node) -> Node:
        """A node whose operands are all literals becomes the literal it evaluates to."""
        if not all(isinstance(c, Const) for c in node.children()):
            return node
        value = _Compiler(self.env).value(node)
        assert value.fn is None
        return Const(node.column, value.const)


# --------------------------------------------------------------------------- canonical form

_LEVEL = {"or": 2, "and": 3, "not": 4, "compare": 5, "sum": 6, "product": 7, "-": 8}


def _level(node: Node) -> int:
    if isinstance(node, IfElse):
        return 1
    if isinstance(node, Chain):
        return _LEVEL[node.level]
    if isinstance(node, Compare):
        return _LEVEL["compare"]
    if isinstance(node, Unary):
        return _LEVEL[node.op]
    if isinstance(node, Const) and isinstance(node.value, (int, float)) and node.value < 0:
        return _LEVEL["-"]
    return 9


def _show_number(value: int | float) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value)


def _canonical(node: Node, at_least: int = 1) -> str:
    """Text of a resolved AST with single spaces and only the parentheses it needs."""
    if isinstance(node, Const):
        if node.value is None or isinstance(node.value, bool):
            text = {None: "none", True: "true", False: "false"}[node.value]
        else:
            text = _show_number(cast(float, node.value))
    elif isinstance(node, Ref):
        text = node.id
    elif isinstance(node, Call):
        text = f"{node.func}({', '.join(_canonical(a) for a in node.args)})"
    elif isinstance(node, Chain):
        level = _LEVEL[node.level]
        text = _canonical(node.first, level)
        for op, x in node.rest:
            text += f" {op} {_canonical(x, level + 1)}"
    elif isinstance(node, Compare):
        level = _LEVEL["compare"] + 1
        text = f"{_canonical(node.left, level)} {node.op} {_canonical(node.right, level)}"
    elif isinstance(node, Unary):
        text = ("not " if node.op == "not" else "-") + _canonical(node.operand, _LEVEL[node.op])
    elif isinstance(node, IfElse):
        then, cond = _canonical(node.then, 2), _canonical(node.cond, 2)
        text = f"{then} if {cond} else {_canonical(node.other, 1)}"
    else:  # pragma: no cover - Name nodes never survive checking
        raise AssertionError(node)
    return f"({text})" if _level(node) < at_least else text


def resolved_tree(text: str, env: ExprEnv, *, context: str = "side") -> Node:
    """The checked tree of an expression (names resolved to `Ref`s, literals folded), for a
    tool that rewrites expressions (the ruleset audit's operators, escoba/mutation); an
    `ExprError` as `compile_expression` raises it. `canonical_text` prints a tree."""
    return _Checker(env, context, text).check(_parse(text))[0]


def canonical_text(node: Node) -> str:
    """The canonical text of a checked tree (`Compiled.canonical` of the expression it is)."""
    return _canonical(node)


# --------------------------------------------------------------------------- compiling

# (bitmask of the side's cards, escobas, the side's history or None) -> value
Fn = Callable[[int, int, Any], object]
MaskFn = Callable[[int, int, Any], int]  # the same arguments -> a bitmask of cards


@dataclass(frozen=True)
class _Value:
    """A compiled number or condition: a constant (fn is None) or a closure."""

    fn: Fn | None
    const: object = None

    def call(self) -> Fn:
        if self.fn is not None:
            return self.fn
        const = self.const
        return lambda m, e, h: const


@dataclass(frozen=True)
class _Set:
    """A compiled set: `source` intersected with `mask`. The source is the deck ("deck": the
    set is the constant `mask`), the side's pile ("cards") or a closure giving a bitmask (the
    cards played or taken in some captures)."""

    source: str | MaskFn
    mask: int
    whole: bool = False  # `mask` holds every card: a closure's cards need no intersecting

    def call(self) -> MaskFn:
        """The set as a closure giving its bitmask."""
        source, mask = self.source, self.mask
        if source == "deck":
            return lambda m, e, h: mask
        if source == "cards":
            return lambda m, e, h: m & mask
        assert callable(source)
        if self.whole:
            return source
        return lambda m, e, h: source(m, e, h) & mask


Events = Callable[[int, int, Any], Sequence[Any]]  # -> the captures (engine/history.Capture)


def _arith(op: Callable[[object, object], object]) -> Callable[[object, object], object]:
    def apply(a, b):
        try:
            value = op(a, b)
        except (ZeroDivisionError, OverflowError):
            # x / 0 has no value; so has a number too large for a float: both are none.
            return None
        if isinstance(value, float) and not math.isfinite(value):
            return None  # a float product can overflow to inf without raising: no value either
        return value

    return apply


_OPS = {
    "+": _arith(operator.add),
    "-": _arith(operator.sub),
    "*": _arith(operator.mul),
    "/": _arith(operator.truediv),
}
_COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
            ">": operator.gt, ">=": operator.ge}


def _played_mask(captures: Sequence[Any]) -> int:
    m = 0
    for c in captures:
        m |= 1 << c.card
    return m


def _taken_mask(captures: Sequence[Any]) -> int:
    m = 0
    for c in captures:
        m |= c.taken
    return m


_ESCOBA = operator.attrgetter("escoba")  # `sweeps` filtered in C: every simulated hand reads them


class _Compiler:
    """Resolved AST -> closures. Anything not depending on the side is computed here, once."""

    def __init__(self, env: ExprEnv):
        self.env = env
        self.full = (1 << len(env.card_suit)) - 1

    def mask(self, pick: Callable[[int], bool]) -> int:
        return sum(1 << i for i in range(len(self.env.card_suit)) if pick(i))

    # -- sets

    def set_of(self, node: Node) -> _Set:
        if isinstance(node, Ref):  # cards or deck
            return _Set("cards" if node.id == "cards" else "deck", self.full)
        assert isinstance(node, Call), node
        if node.func == "card":
            inner, rank, suit = self.set_of(node.args[0]), node.args[1], node.args[2]
            assert isinstance(rank, Ref) and isinstance(suit, Ref)
            r, s = self.env.ranks.index(rank.id), self.env.suits.index(suit.id)
            keep = self.mask(lambda i: self.env.card_rank[i] == r and self.env.card_suit[i] == s)
            return _Set(inner.source, inner.mask & keep)
        if node.func in ("played", "taken"):
            events = self.events(node.args[0])
            of = _played_mask if node.func == "played" else _taken_mask
            return _Set(lambda m, e, h: of(events(m, e, h)), self.full, whole=True)
        assert node.func in ("suit", "rank"), node
        inner, ref = self.set_of(node.args[0]), node.args[1]
        assert isinstance(ref, Ref)
        if node.func == "suit":
            s = self.env.suits.index(ref.id)
            keep = self.mask(lambda i: self.env.card_suit[i] == s)
        else:
            r = self.env.ranks.index(ref.id)
            keep = self.mask(lambda i: self.env.card_rank[i] == r)
        return _Set(inner.source, inner.mask & keep)

    # -- lists of captures (the hand's history)

    def events(self, node: Node) -> Events:
        if isinstance(node, Ref):
            if node.id == "captures":
                return lambda m, e, h: h.captures
            assert node.id == "sweeps", node
            return lambda m, e, h: list(filter(_ESCOBA, h.captures))
        assert isinstance(node, Call), node
        inner = self.events(node.args[0])
        if node.func == "first_play":
            return lambda m, e, h: [c for c in inner(m, e, h) if c.first]
        if node.func == "last_play":
            return lambda m, e, h: [c for c in inner(m, e, h) if c.last]
        if node.func == "in_round":
            n = node.args[1]
            assert isinstance(n, Const)
            number = n.value
            return lambda m, e, h: [c for c in inner(m, e, h) if c.round == number]
        assert node.func in ("made_with", "taking"), node
        chosen = self.set_of(node.args[1])
        if node.func == "made_with":
            if chosen.source == "deck":
                mask = chosen.mask
                return lambda m, e, h: [c for c in inner(m, e, h) if mask >> c.card & 1]
            dynamic = chosen.call()

            def made_with(m, e, h):
                mask = dynamic(m, e, h)
                return [c for c in inner(m, e, h) if mask >> c.card & 1]

            return made_with
        if chosen.source == "deck":
            mask = chosen.mask
            return lambda m, e, h: [c for c in inner(m, e, h) if c.taken & mask]
        dynamic = chosen.call()

        def taking(m, e, h):
            mask = dynamic(m, e, h)
            return [c for c in inner(m, e, h) if c.taken & mask]

        return taking

    def groups(self, name: str) -> tuple[tuple[object, int], ...]:
        """A value map as (value, mask of the cards worth it), highest value first."""
        values = self.env.value_maps[name]
        by_value: dict[Any, int] = {}  # values of a value map: numbers
        for i, r in enumerate(self.env.card_rank):
            if r >= 0 and self.env.ranks[r] in values:
                v = values[self.env.ranks[r]]
                by_value[v] = by_value.get(v, 0) | (1 << i)
        return tuple(sorted(by_value.items(), key=lambda g: g[0], reverse=True))

    # -- numbers and conditions

    def value(self, node: Node) -> _Value:
        if isinstance(node, Const):
            return _Value(None, node.value)
        if isinstance(node, Ref):
            if node.id == "last_capture":
                return _Value(lambda m, e, h: h.last_capture)
            assert node.id == "escobas", node
            return _Value(lambda m, e, h: e)
        if isinstance(node, Call):
            return self.call(node)
        if isinstance(node, Chain):
            return self.chain(node)
        parts = [self.value(c) for c in node.children()]
        if isinstance(node, Compare):
            cmp = _COMPARE[node.op]
            return self.combine(parts, lambda a, b: None if a is None or b is None else cmp(a, b))
        if isinstance(node, Unary):
            if node.op == "not":
                return self.combine(parts, lambda a: None if a is None else not a)
            return self.combine(parts, lambda a: None if a is None else -a)
        assert isinstance(node, IfElse)
        then, cond, other = parts
        if cond.fn is None:  # a constant condition picks its branch now
            return _Value(None, None) if cond.const is None else (then if cond.const else other)
        t, c, o = then.call(), cond.fn, other.call()

        def if_else(m, e, h):
            test = c(m, e, h)
            return None if test is None else t(m, e, h) if test else o(m, e, h)

        return _Value(if_else)

    def combine(self, parts: list[_Value], apply: Callable[..., object]) -> _Value:
        """Apply a none-aware function to compiled parts; constant parts give a constant."""
        if all(p.fn is None for p in parts):
            return _Value(None, apply(*(p.const for p in parts)))
        fns = [p.call() for p in parts]
        if len(fns) == 1:
            (f,) = fns
            return _Value(lambda m, e, h: apply(f(m, e, h)))
        f, g = fns
        return _Value(lambda m, e, h: apply(f(m, e, h), g(m, e, h)))

    def chain(self, node: Chain) -> _Value:
        parts = [self.value(c) for c in node.children()]
        if node.level in ("and", "or"):
            # none wins over true and false: `false and none` is none, so no short cut.
            join = all if node.level == "and" else any

            def logic(*values):
                return None if any(v is None for v in values) else join(values)

            if all(p.fn is None for p in parts):
                return _Value(None, logic(*(p.const for p in parts)))
            fns = [p.call() for p in parts]
            return _Value(lambda m, e, h: logic(*(f(m, e, h) for f in fns)))

        ops = [_OPS[op] for op, _ in node.rest]

        def arithmetic(first, rest):
            acc = first
            for op, b in zip(ops, rest):
                if acc is None or b is None:
                    return None
                acc = op(acc, b)
            return acc

        if all(p.fn is None for p in parts):
            return _Value(None, arithmetic(parts[0].const, [p.const for p in parts[1:]]))
        first, *fns = [p.call() for p in parts]
        pairs = list(zip(ops, fns))

        def evaluate(m, e, h):
            acc = first(m, e, h)
            for op, f in pairs:  # stop at the first none: evaluation is pure
                if acc is None:
                    return None
                b = f(m, e, h)
                if b is None:
                    return None
                acc = op(acc, b)
            return acc

        return _Value(evaluate)

    def call(self, node: Call) -> _Value:
        if node.func in ("min", "max"):
            pick = min if node.func == "min" else max
            parts = [self.value(a) for a in node.args]
            return self.combine(parts, lambda a, b: None if a is None or b is None else pick(a, b))
        if node.func == "count" and _kind_of(node.args[0]) == EVENTS:
            events = self.events(node.args[0])
            return _Value(lambda m, e, h: len(events(m, e, h)))
        chosen = self.set_of(node.args[0])
        source, mask = chosen.source, chosen.mask
        if node.func == "of_a_kind":
            return self.of_a_kind(chosen)
        if node.func == "count":
            if source == "deck":
                return _Value(None, mask.bit_count())
            if source == "cards":
                return _Value(lambda m, e, h: (m & mask).bit_count())
            of = chosen.call()
            return _Value(lambda m, e, h: of(m, e, h).bit_count())
        ref = node.args[1]
        assert isinstance(ref, Ref)
        groups: tuple[tuple[Any, int], ...] = tuple((v, g & mask) for v, g in self.groups(ref.id) if g & mask)

        def best_of(bits: int) -> object:
            for v, g in groups:
                if bits & g:
                    return v
            return None

        if len(groups) == 1:  # one value (`total(..., figures)`): no generator to run
            ((worth, cards),) = groups

            def total_of(bits: int) -> object:
                return worth * (bits & cards).bit_count()

        else:

            def total_of(bits: int) -> object:
                return sum(v * (bits & g).bit_count() for v, g in groups)

        of_bits: Callable[[int], object] = best_of if node.func == "best" else total_of
        if source == "deck":
            return _Value(None, of_bits(self.full))
        if source == "cards":
            return _Value(lambda m, e, h: of_bits(m))
        of = chosen.call()
        return _Value(lambda m, e, h: of_bits(of(m, e, h)))

    def of_a_kind(self, chosen: _Set) -> _Value:
        """The most cards of one rank in the set (three of a kind: 3); 0 for an empty set.
        Jokers have no rank and count for none."""
        by_rank = [0] * len(self.env.ranks)
        for i, r in enumerate(self.env.card_rank):
            if r >= 0:
                by_rank[r] |= 1 << i
        ranks = [m & chosen.mask for m in by_rank if m & chosen.mask]

        def most(bits: int) -> object:
            return max([(bits & m).bit_count() for m in ranks], default=0)

        if chosen.source == "deck":
            return _Value(None, most(self.full))
        if chosen.source == "cards":
            return _Value(lambda m, e, h: most(m))
        of = chosen.call()
        return _Value(lambda m, e, h: most(of(m, e, h)))


def _kind_of(node: Node) -> str:
    """SET or EVENTS, for a checked set-or-events node (count's argument)."""
    if isinstance(node, Ref):
        return EVENTS if node.kind == "var" and node.id in ("captures", "sweeps") else SET
    assert isinstance(node, Call)
    return _FUNCTIONS[node.func][1]


# --------------------------------------------------------------------------- entry point


def compile_expression(text: str, env: ExprEnv, *, context: str = "side") -> Compiled:
    """Parse, check and compile one expression; `context` is "side", "global" or "hand".

    A "side" expression is a measure of one side's pile (`cards`, `escobas`) and history
    (`captures`, `sweeps`, `last_capture`); a "global" one (a threshold such as
    `count(deck) / 2`) may use only `deck` and literals; a "hand" one measures cards as they
    are dealt (a player's hand, the opening table: `cards`), before any play, with `deck`.
    """
    if context not in CONTEXTS:
        raise ValueError(f"context must be one of {', '.join(CONTEXTS)}, not {context!r}")
    checker = _Checker(env, context, text)
    node, kind = checker.check(_parse(text))
    if checker.errors:
        found = sorted({(e.column, e.message): e for e in checker.errors}.values(), key=lambda e: e.column)
        found[0].errors = found
        raise found[0]
    if kind not in (NUMBER, BOOL, NONE):
        raise checker.error(
            f"a measure must be a number or a condition, got {_DESCRIBE[kind]}", node
        )
    compiler = _Compiler(env)
    root = compiler.value(node)
    inner = root.call()
    reads = frozenset(name for name in _HISTORY if _uses(node, (name,)))  # which of the history's names
    needs_history = bool(reads)
    if root.fn is not None and _uses(node, ("cards",)):

        def fn(cards: Sequence[int], escobas: int, history: Any = None) -> object:
            m = 0
            for c in cards:
                m |= 1 << c
            return inner(m, escobas, history)

    else:

        def fn(cards: Sequence[int], escobas: int, history: Any = None) -> object:
            return inner(0, escobas, history)

    if needs_history:
        plain = fn

        def fn(cards: Sequence[int], escobas: int, history: Any = None) -> object:
            if history is None:  # a caller that did not record the hand: a bug, not a none
                raise ValueError(f"the measure {text!r} reads the hand's history, and none was given")
            return plain(cards, escobas, history)

    # `inner` reads the mask only when the expression uses the cards (otherwise it is given 0).
    return Compiled(text, BOOL if kind == BOOL else NUMBER, _canonical(node), fn, needs_history, inner, reads)


def _uses(node: Node, names: Sequence[str]) -> bool:
    if isinstance(node, Ref):
        return node.kind == "var" and node.id in names
    return any(_uses(c, names) for c in node.children())
