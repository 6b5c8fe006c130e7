# Names vulture (run by .ci/run over the package) reports as unused, each kept on purpose.
# A name goes here only with its reason; anything else vulture finds is dead code to remove.
# ruff does not lint this file: it is a list of names, not code that runs.

# Module-level __getattr__ and __dir__: the lazy imports of `escoba` and `escoba.transcript` (PEP 562).
__getattr__
__dir__

# Called by name: the reference engine dispatches requests to `_cmd_<cmd>` (protocol/server.py);
# lark Transformers call the method named after each rule and terminal (rules/expr.py,
# notation/__init__.py); the audit renderer calls `_<event>` for each event (transcript/render.py);
# OpenSpiel calls the methods of its Game, State and Bot API (research/openspiel.py), and
# registering the games is what importing that module is for (GAMES); PettingZoo calls the
# methods and reads the attributes of its AECEnv API (research/pettingzoo.py).
_._cmd_hello
_._cmd_start
_._cmd_legal
_._cmd_play
_._cmd_state
_._cmd_score
_._cmd_next_hand
_._cmd_quit
_._rejected
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
_.make_py_observer
_.chance_outcomes
_._apply_action
_._legal_actions
_._action_to_string
_.set_from
_.string_from
_.max_chance_nodes_in_history
_.provides_policy
_.restart_at
_.metadata
_.observation_space
_.action_space
_.infos
GAMES
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

# Public fields of the library's data objects (docs/architecture.md), for programs that use
# escoba, though nothing here reads them: the deck's per-suit and per-rank forms, the match
# targets a ruleset offers, a generated case's generator, and the conformance vocabulary of
# divergence classes (conformance/compare.py), and the header keys of a source excerpt file
# (rules/sources.py).
suit_symbols
suit_ascii
rank_ascii
target_options
generator
CLASSES
HEADER_KEYS


# pytest calls these by name: the hooks of escoba's pytest plugin (escoba/pytest_plugin.py), the
# methods of its test item, and a test module's `pytest_plugins`.
pytest_addoption
pytest_configure
pytest_collection_modifyitems
pytest_sessionfinish
exitstatus
pytest_unconfigure
runtest
reportinfo
pytest_plugins
pytestmark
pytest_xdist_auto_num_workers  # pytest-xdist's hook, in tests/conftest.py

# Called by name: the outside engine aalborg (tests/engines/outside/aalborg/engine.py) dispatches
# each request to `on_<cmd>`, as the app it ports does.
_.on_hello
_.on_quit
_.on_legal
_.on_play
_.on_next_hand
_.on_state
_.on_score

# The standard library calls these by name: the context manager protocol's arguments
# (outputs.OutputFolder.__exit__), html.parser's handlers (tests/hostile/test_escape.py).
exc
handle_starttag
handle_data
