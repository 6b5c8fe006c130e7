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
    """How a bundled file is shown: the one place that decides it, for every command and the
    site (ids are for command lines; this is for where a file is named).

    Its path from the working folder when that is the folder of a checkout, or inside it, or
    the file lies below the working folder (`spec/da.yaml`, `../base.yaml`). Anywhere else, its
    place among the bundled rulesets, `spec/da.yaml` as the docs show it: an absolute path, or
    one into an installed package (`…/site-packages/escoba/_data/spec/da.yaml`), says where
    escoba is installed, not which ruleset it is.
    """
    root = data_root()
    installed = root.name == "_data"  # the wheel's copy, inside the package
    try:
        relative = os.path.relpath(path)
        inside = not os.path.relpath(os.getcwd(), root).startswith("..")
    except ValueError:  # another drive on Windows
        relative, inside = "", False
    if relative and (inside or (not installed and not relative.startswith(".."))):
        return relative
    return place(path) or str(path)  # (a bundled file that is a link to a file elsewhere)


def place(path: Path) -> str | None:
    """A bundled file's place among the bundled data, `spec/da.yaml` (the same in a checkout and
    in an installed escoba: what docs and generated pages name); None for any other file."""
    try:
        return Path(path).resolve().relative_to(data_root().resolve()).as_posix()
    except ValueError:
        return None


def find(id_or_path: str) -> tuple[Path, str]:
    """The file for an id or path, and the name to show for it in messages."""
    if not id_or_path:
        raise UnknownRuleset([_Plain(Location(id_or_path), "an empty name is neither a ruleset id nor a file")])
    candidate = Path(id_or_path)
    known = bundled()
    # A file wins over a bundled id of its name; a folder named `fr` or `base` in the working
    # directory (never a ruleset) does not hide the bundled ruleset.
    if os.path.lexists(candidate) and not (id_or_path in known and candidate.is_dir()):
        return candidate, id_or_path
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
    # The list grows with every bundled ruleset: name the first ones, count the rest, so the
    # message stays one readable line (a problem is cut at 500 characters).
    more = len(known) - KNOWN_RULESETS_SHOWN
    shown = ", ".join(known[:KNOWN_RULESETS_SHOWN]) + (f", and {more} more (escoba list)" if more > 0 else "")
    return f"unknown ruleset '{name}'{hint}; known rulesets: {shown}"


KNOWN_RULESETS_SHOWN = 20


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
