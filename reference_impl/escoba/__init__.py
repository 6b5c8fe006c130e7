"""escoba: the executable specification of the card game Escoba and its regional variants.

    >>> import escoba
    >>> rules = escoba.load_ruleset("da")            # an id, or a path to a YAML file
    >>> hand = escoba.Hand(rules, players=2, dealer=0, seed=7)
    >>> while not hand.is_over:
    ...     events = hand.apply(hand.legal_moves()[0])
    >>> hand.points                                   # per side
"""

from __future__ import annotations

from escoba.lazy import attach
from escoba.version import __version__ as __version__

# True for type checkers, False at run time, without importing `typing`: the modules a plain
# command loads (`escoba check`: the CLI, the file readers, the rules pipeline up to a cached
# verdict) import their annotations' names under `if TYPE_CHECKING:` set this way, as CPython's
# own standard library does since 3.14; importing `typing` is ~5 ms of a ~70 ms command.
TYPE_CHECKING = False


__all__ = [
    "EscobaError",
    "Hand",
    "IllegalMoveError",
    "Match",
    "Move",
    "NotationError",
    "Rules",
    "RulesetError",
    "greedy_bot",
    "load_ruleset",
    "random_bot",
]

if TYPE_CHECKING:
    from escoba.engine.bots import greedy_bot, random_bot
    from escoba.engine.hand import Hand, Move
    from escoba.engine.match import Match
    from escoba.errors import EscobaError, IllegalMoveError, NotationError, RulesetError
    from escoba.rules.compile import Rules

_LAZY = {
    "Hand": "escoba.engine.hand",
    "Move": "escoba.engine.hand",
    "Match": "escoba.engine.match",
    "Rules": "escoba.rules.compile",
    "random_bot": "escoba.engine.bots",
    "greedy_bot": "escoba.engine.bots",
    "EscobaError": "escoba.errors",
    "IllegalMoveError": "escoba.errors",
    "NotationError": "escoba.errors",
    "RulesetError": "escoba.errors",
}


__getattr__, __dir__ = attach(__name__, _LAZY, __all__)


_cache: dict = {}


def load_ruleset(name: str) -> Rules:
    """Load, resolve, validate and compile a ruleset by id (`da`) or path (`mine.yaml`).

    Raises `RulesetError` (with every problem located) for an invalid document.
    """
    import json

    from escoba.rules import load_resolved
    from escoba.rules.compile import compile_rules

    # Keyed by the resolved document itself: a change to any file of the extends chain (not
    # only the one named) gives fresh rules; parsing is cached per file by load_resolved.
    doc = load_resolved(name).doc
    key = json.dumps(doc, sort_keys=True, ensure_ascii=False)
    if key not in _cache:
        if len(_cache) > 64:
            _cache.clear()
        _cache[key] = compile_rules(doc)
    return _cache[key]
