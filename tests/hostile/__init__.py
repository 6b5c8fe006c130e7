"""The hostile-input suite: every command against engines and files that misbehave on purpose.

Each test runs a command as a user would (mostly as a child process, in a scratch folder) and
asserts what docs/errors.md promises: one line on stderr for an error, the documented exit code,
nothing written outside what the command was told to write, no process left running (the
engine, its children, a child in a session of its own), and bounded time and memory.

    python -m pytest tests/hostile -q                        # the default: fast
    ESCOBA_HOSTILE=deep python -m pytest tests/hostile -q    # every engine against every command

The hostile engines are the modes of tests/engines/fake_engine.py; the hostile texts (escape
sequences, line breaks, U+FFFE, very long text) are `texts.HOSTILE`, the same strings every
medium's escaping is tested with (test_escape.py).
"""
