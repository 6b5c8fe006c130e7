"""Which cases a conformance run runs: `escoba conformance` and the pytest plugin choose alike.

`--ruleset` takes bundled ids (their cases in the suite) and ruleset files (cases generated for
the file, as `escoba cases generate` writes them, into a folder the caller owns and removes);
`--case` globs filter both.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from escoba.errors import EscobaError


class SelectionError(EscobaError):
    """A selection that names nothing: an unknown ruleset, or no case at all."""


def split_rulesets(rulesets: Sequence[str]) -> tuple[list[str], list[str]]:
    """(bundled ids, ruleset files); SelectionError for a name that is neither."""
    from escoba.rules.registry import bundled_ids, unknown_message

    known = set(bundled_ids())
    # Anything there is a file to load (as registry.find has it), so that a folder or a pipe is
    # refused by the loader for what it is, not called missing.
    files = [r for r in rulesets if r not in known and os.path.lexists(r)]
    ids = [r for r in rulesets if r not in files]
    for ruleset in ids:
        if ruleset not in known:
            raise SelectionError(unknown_message(ruleset))
    return ids, files


def select(
    cases_dir: str | None, patterns: Sequence[str], rulesets: Sequence[str], folder: Callable[[str], str],
    lazy: bool = False, allow_empty: bool = False,
) -> tuple[list, list[str]]:
    """The entries to run and the ruleset files among `rulesets`, not loaded yet with `lazy`
    (`collect`). `folder(file)` gives an empty
    folder to generate that file's cases into. SelectionError when nothing is
    selected; a TranscriptError or RulesetError from a case folder or a ruleset file passes up."""
    from escoba.conformance.runner import collect
    from escoba.transcript.suite import write_suite

    ids, files = split_rulesets(rulesets)
    entries = collect(cases_dir, list(patterns), ids, lazy=lazy) if ids or not files else []
    for ruleset in files:
        out = folder(ruleset)
        write_suite(ruleset, out)
        entries += collect(out, list(patterns), lazy=lazy)
    if not entries and not allow_empty:
        raise SelectionError(nothing_selected(patterns, rulesets))
    return entries, files


def nothing_selected(patterns: Sequence[str], rulesets: Sequence[str]) -> str:
    bits = [f"--case {p}" for p in patterns] + [f"--ruleset {r}" for r in rulesets]
    return "no case matches the selection" + (f" ({' '.join(bits)})" if bits else "")


def targeted(rules: Any, folder: Callable[[str], str], patterns: Sequence[str] = ()) -> list:
    """The cases `escoba cases generate` makes for declared rules (targeted positions for every
    point they set, seeded games, probes, a perft count), generated into `folder(name)`: run as
    scenarios of those rules, next to the bundled ones. A case whose id `patterns` do not match
    is left out."""
    from escoba.conformance.runner import collect
    from escoba.transcript.suite import write_suite

    out = folder(rules.name)
    write_suite(rules.name, out)
    return collect(out, list(patterns), lazy=True)
