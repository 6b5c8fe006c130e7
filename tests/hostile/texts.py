"""Hostile texts: what an engine, a case file or a ruleset may say, for every medium's escaping.

The fake engine (tests/engines/fake_engine.py) says them as its name, its version and its refusal
messages; the tests write them into rulesets and case files.
"""

from __future__ import annotations

HOSTILE: dict[str, str] = {
    "clear-screen": "\x1b[2J\x1b[H",
    "title-and-bell": "\x1b]0;owned\x07",
    "csi-c1": "\x9b31mred",
    "newline-forgery": "ok\nOK: 999 cases: 999 pass (0.0 s)",
    "carriage-return": "pass\rFAIL",
    "yaml-live-line": "x\ncapture: {target: 14}\n# ",
    "markup": '<script>alert("x")</script> & \'quotes\'',
    "nul": "a\x00b",
    "c0-controls": "".join(chr(c) for c in range(32)),
    "delete-and-c1": "\x7f\x80\x85\x9f",
    "line-separators": "a\u2028b\u2029c",
    "bidi-override": "abc\u202edcba",
    "bom-and-zero-width": "\ufeffa\u200bb",
    "noncharacters": "\ufffe\uffff",
    "lone-surrogate": "a\ud800b",
    "very-long": "q" * 100_000,
    "accented-and-suits": "Baraja española ♦♥♠♣ café",
}

# What no medium's text may keep raw: C0 and C1 controls (escape sequences, bells, line breaks
# but the ones a medium keeps), line and paragraph separators, bidirectional overrides,
# noncharacters, lone surrogates.
NEVER_RAW = {chr(c) for c in (*range(0x20), *range(0x7F, 0xA0))} | {"\u2028", "\u2029", "\u202e", "\ufffe", "\uffff", "\ud800"}

# For the fake engine: a name and a message holding every kind of trouble at once, and long.
ENGINE_NAME = "evil\x1b[2J\x1b]0;owned\x07\nOK: all pass\ufffe" + "n" * 5000
ENGINE_MESSAGE = "refused\x1b[31m\nFAIL forged\u202e" + "m" * 5000
