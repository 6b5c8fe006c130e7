"""Ruleset ids → files.

A bundled ruleset's id is its file's stem in `spec/` or `spec/house/`. Anything given that is an
existing path is a file, whatever its name; a name that is neither is an `UnknownRuleset`.
"""

from __future__ import annotations

import difflib
import os
from functools import cache
from pathlib import Path

from escoba.data import data_root, spec_dir
from escoba.errors import Location, Problem, UnknownRuleset
from escoba.rules.yamlload import Document, load_file


class _Plain(Problem):
    """A problem about a command-line argument: there is no document to point into."""

    def __str__(self) -> str:
        return self.message


@cache
def bundled() -> dict[str, Path]:
    """Bundled ruleset ids and their files: spec/*.yaml first, then spec/house/*.yaml."""
    found: dict[str, Path] = {}
    for folder in (spec_dir(), spec_dir() / "house"):
        for file in sorted(folder.glob("*.yaml"), key=lambda f: f.stem):
            found.setdefault(file.stem, file.resolve())
    return found


def bundled_ids() -> list[str]:
    return list(bundled())


def is_bundled(path: Path) -> bool:
    return path.resolve() in set(bundled().values())


def display_name(path: Path) -> str:
    """How to show a bundled file: relative to the working folder if inside it, else `spec/...`."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        relative = str(path)
    if not relative.startswith(".."):
        return relative
    try:
        return str(path.resolve().relative_to(data_root()))
    except ValueError:
        return str(path)


def find(id_or_path: str) -> tuple[Path, str]:
    """The file for an id or path, and the name to show for it in messages."""
    candidate = Path(id_or_path)
    if os.path.lexists(candidate):
        return candidate, id_or_path
    known = bundled()
    if id_or_path in known:
        return known[id_or_path], display_name(known[id_or_path])
    raise UnknownRuleset([_Plain(Location(id_or_path), unknown_message(id_or_path))])


def unknown_message(name: str) -> str:
    """`unknown ruleset 'dx' (did you mean 'da'?); known: base, da, …` or `no such file: …`."""
    known = bundled_ids()
    if "/" in name or os.sep in name or name.endswith((".yaml", ".yml")):
        return f"no such file: {name}"
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    hint = f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
    return f"unknown ruleset '{name}'{hint}; known rulesets: {', '.join(known)}"


def load_document(id_or_path: str) -> Document:
    """The raw (unresolved) document for an id or path."""
    path, shown = find(id_or_path)
    return load_file(path, shown)
