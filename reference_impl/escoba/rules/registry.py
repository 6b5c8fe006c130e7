"""Ruleset ids → files.

A bundled ruleset's id is its file's stem in `spec/`, `spec/family/` or `spec/house/`. Anything
given that is an existing path is a file, whatever its name; a name that is neither is an
`UnknownRuleset`.
"""

from __future__ import annotations

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
    """Bundled ruleset ids and their files: spec/*.yaml first, then spec/family/*.yaml, then
    spec/house/*.yaml."""
    found: dict[str, Path] = {}
    for folder in (spec_dir(), spec_dir() / "family", spec_dir() / "house"):
        # The folder resolved once, not each file: a short command's start-up (only a file that
        # is itself a link needs resolving on its own).
        real = folder.resolve()
        try:
            entries = sorted((e for e in os.scandir(real) if e.name.endswith(".yaml")), key=lambda e: e.name[:-5])
        except OSError:
            continue
        for entry in entries:
            found.setdefault(entry.name[:-5], (real / entry.name).resolve() if entry.is_symlink() else real / entry.name)
    return found


def bundled_ids() -> list[str]:
    return list(bundled())


def is_bundled(path: Path) -> bool:
    return path.resolve() in set(bundled().values())


def display_name(path: Path) -> str:
    """How to show a bundled file: a path that names it from the working folder.

    Relative when the file is under the working folder, or the working folder is inside the
    checkout or package that holds it (`../../spec/base.yaml`); otherwise absolute, since a
    short `spec/…` would name nothing where the user is (an installed escoba, another folder).
    """
    try:
        relative = os.path.relpath(path)
        inside = not os.path.relpath(os.getcwd(), data_root()).startswith("..")
    except ValueError:  # another drive on Windows
        return str(path)
    if not relative.startswith("..") or inside:
        return relative
    return str(path)


def find(id_or_path: str) -> tuple[Path, str]:
    """The file for an id or path, and the name to show for it in messages."""
    if not id_or_path:
        raise UnknownRuleset([_Plain(Location(id_or_path), "an empty name is neither a ruleset id nor a file")])
    candidate = Path(id_or_path)
    if os.path.lexists(candidate):
        return candidate, id_or_path
    known = bundled()
    if id_or_path in known:
        return known[id_or_path], display_name(known[id_or_path])
    raise UnknownRuleset([_Plain(Location(id_or_path), unknown_message(id_or_path))])


def unknown_message(name: str) -> str:
    """`unknown ruleset 'dx' (did you mean 'da'?); known rulesets: base, da, …` or `no such file: …`."""
    known = bundled_ids()
    if "/" in name or os.sep in name or name.endswith((".yaml", ".yml")):
        return f"no such file: {name}"
    close = [c for c in known if _edits(name, c) <= max(1, len(name) // 4)]
    close.sort(key=lambda c: _edits(name, c))
    hint = f" (did you mean {' or '.join(repr(c) for c in close[:3])}?)" if close else ""
    return f"unknown ruleset '{name}'{hint}; known rulesets: {', '.join(known)}"


def _edits(a: str, b: str) -> int:
    """Edits (insert, delete, replace, swap two neighbours) from `a` to `b`: typos, not likeness."""
    if abs(len(a) - len(b)) > 3 or max(len(a), len(b)) > 64:
        return 99
    previous: list[int] = []
    row = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        earlier, previous, row = previous, row, [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], earlier[j - 2] + 1)
    return row[len(b)]


def load_document(id_or_path: str) -> Document:
    """The raw (unresolved) document for an id or path."""
    path, shown = find(id_or_path)
    return load_file(path, shown)
