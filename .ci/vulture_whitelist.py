# Names vulture (run by .ci/run over the package) reports as unused, each kept on purpose.
# A name goes here only with its reason; anything else vulture finds is dead code to remove.
# ruff does not lint this file: it is a list of names, not code that runs.

# Module-level __getattr__: the lazy imports of `escoba` and `escoba.transcript` (PEP 562).
__getattr__

# Called by name: the reference engine dispatches requests to `_cmd_<cmd>` (protocol/server.py);
# lark Transformers call the method named after each rule and terminal (rules/expr.py,
# notation/__init__.py); the audit renderer calls `_<event>` for each event (transcript/render.py).
_._cmd_hello
_._cmd_start
_._cmd_legal
_._cmd_play
_._cmd_state
_._cmd_score
_._cmd_next_hand
_._cmd_quit
_.number
_.none
_.true
_.false
_.arguments
_.paren
_.or_expr
_.and_expr
_.product
_.comparison
_.not_
_.neg
_._Name
_._Const
_._Call
_._Chain
_._Compare
_._Unary
_._IfElse
_.WORD
_.TAKES
_.start_move
_.start_card
_._hand_start
_._deal
_._escoba
_._leftovers
_._hand_end
_._totals
_._tie
_._match_end

# The signature of yaml's Emitter.increase_indent, which cli/show.py overrides.
indentless

# Every mutating method of the frozen ruleset document is assigned the refusal (rules/frozen.py).
reverse
kwargs

# Public fields of the library's data objects (docs/architecture.md), read by programs that
# use escoba, though no module of escoba itself reads them: the deck's per-suit and per-rank
# forms, the match targets a ruleset offers, a generated case's generator, the accumulator
# behind simulation statistics (kept so that runs can be merged), and the conformance
# vocabulary of divergence classes and whether a trace stopped at its first divergence.
suit_symbols
suit_ascii
rank_ascii
target_options
generator
accumulator
CLASSES
diverged
_.diverged

# Public functions used by the tests and by programs, not by the package itself.
_.captures_for
perft_count
