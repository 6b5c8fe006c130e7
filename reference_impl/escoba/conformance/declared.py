"""The rules an engine says it plays: a ruleset, named in its `hello` or by the runner's option.

An engine written for one set of rules (most are) cannot be configured from `start`: it plays
what it plays. It states those rules once, as a ruleset: a bundled id (`"rules": "base"`) or a
ruleset file, usually a house rule extending the closest bundled one (`"rules": "rules.yaml"`,
a path relative to the folder the engine runs in). `escoba conformance --rules FILE-OR-ID`
says the same from outside and wins over `hello` (the report says so). Everything follows from
the declared ruleset:

- the engine's features are that ruleset's at each of its player counts
  (`protocol.features.ruleset_features`), with `match`; `measures` and `players:N` stay the
  engine's own word (an engine may play fewer player counts than its rules allow);
- each bundled case is run as a *scenario* under those rules (conformance/scenario.py).

The feature list stays for engines that really are configurable from `start`. An engine that
declares both rules and rule-point features that say otherwise is told in one line
(`contradictions`): the declared rules are what the run uses.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from escoba.errors import EscobaError
from escoba.rules.compile import Rules

HELLO, OPTION = "hello", "--rules"


class DeclaredRulesError(EscobaError):
    """Declared rules that cannot be used: no such ruleset, or an invalid one (one line)."""


@dataclass(frozen=True, eq=False)
class DeclaredRules:
    """A ruleset an engine plays, loaded and compiled."""

    name: str  # as declared: `base`, `rules.yaml`
    origin: str  # HELLO or OPTION
    id: str  # the ruleset's id
    kind: str  # base, source, variant, family, house
    extends: tuple[str, ...]  # the ids of its `extends` chain, nearest first
    doc: Mapping[str, Any]  # the resolved document (frozen), what `start` carries
    rules: Rules
    overrides: str | None = None  # the engine's own `hello` rules, when the option wins

    @cached_property
    def digest(self) -> str:
        """A digest of the document's content: two declarations of the same rules share it."""
        text = json.dumps(self.doc, sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]

    @property
    def is_file(self) -> bool:
        from escoba.transcript.case import is_ruleset_path

        return is_ruleset_path(self.name)

    def label(self) -> str:
        """`base (bundled)`, `rules.yaml (house rule velo-dos, extending da)`."""
        if not self.is_file:
            return f"{self.name} (bundled)"
        parent = f", extending {self.extends[0]}" if self.extends else ""
        kind = "house rule" if self.kind == "house" else self.kind or "ruleset"
        return f"{self.name} ({kind} {self.id}{parent})"

    def said(self) -> str:
        """Where the declaration comes from, for the report's first lines."""
        if self.origin == OPTION:
            also = f"; the engine's hello names {self.overrides!r}, the option wins" if self.overrides else ""
            return f"--rules{also}"
        return "the engine's hello"

    def features(self, players: Iterable[int] | None = None) -> list[str]:
        """Every feature of these rules at each player count (`players`: those the engine plays,
        default all its rules allow), and `match`."""
        from escoba.protocol.features import ruleset_features

        counts = [n for n in self.rules.player_counts if players is None or n in set(players)]
        found: list[str] = []
        for n in counts:
            for f in ruleset_features(self.doc, n, target=1):
                if f not in found:
                    found.append(f)
        return found

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "origin": self.origin, "id": self.id, "kind": self.kind,
                "extends": list(self.extends), "overrides": self.overrides, "digest": self.digest}  # fmt: skip


def load_declared(name: str, origin: str, overrides: str | None = None) -> DeclaredRules:
    """The declared rules `name` (a bundled id, or a ruleset file: relative paths from the
    working folder, where the runner starts engines); DeclaredRulesError in one line."""
    from escoba.rules import load_resolved
    from escoba.rules.compile import rules_from_document
    from escoba.rules.frozen import freeze
    from escoba.transcript.case import is_ruleset_path

    who = "--rules" if origin == OPTION else "the engine's hello"
    if not isinstance(name, str) or not name.strip():
        raise DeclaredRulesError(f"{who}: the declared rules must name a ruleset (a bundled id or a ruleset file)")
    from escoba.rules.registry import bundled_ids

    if name not in bundled_ids() and not is_ruleset_path(name):
        raise DeclaredRulesError(
            f"{who} declares the rules {name!r}: neither a bundled ruleset id ({', '.join(bundled_ids()[:6])}, …) "
            "nor a ruleset file (.yaml, .yml or .json)"
        )
    try:
        resolved = load_resolved(name)
    except EscobaError as problem:
        first = str(problem).splitlines()[0] if str(problem) else type(problem).__name__
        raise DeclaredRulesError(f"{who} declares the rules {name!r}, which do not load: {first}") from None
    doc = freeze(resolved.doc)
    rules = rules_from_document(doc)
    chain = [str(d.data.get("id", "")) for d in resolved.files]  # root first
    return DeclaredRules(name, origin, str(resolved.id), str(resolved.kind), tuple(reversed(chain[:-1])), rules.doc, rules, overrides)


def engine_counts(hello_features: Iterable[str]) -> list[int] | None:
    """The player counts an engine names in its features (`players:2`), or None if it names none."""
    found = []
    for f in hello_features:
        key, _, value = f.partition(":")
        if key == "players" and value.isdigit():
            found.append(int(value))
    return sorted(set(found)) or None


def features_of(declared: DeclaredRules, hello_features: Iterable[str]) -> list[str]:
    """What a run takes the engine to support: its declared rules' features at the player
    counts it plays (all its rules allow, unless it names some), `match`, and `measures` if it
    says so."""
    own = list(hello_features)
    counts = engine_counts(own)
    found = [f"players:{n}" for n in declared.rules.player_counts if counts is None or n in counts]
    found += [f for f in declared.features(counts) if not f.startswith("players:")]
    if "measures" in own:
        found.append("measures")
    return found


def contradictions(declared: DeclaredRules, hello_features: Iterable[str]) -> str | None:
    """One line naming where the engine's own rule-point features say otherwise than its declared
    rules (None when they agree, or it declares none): the declared rules are used."""
    from escoba.protocol.features import TABLE_FEATURES, Declared

    own = [f for f in hello_features if f.partition(":")[0] not in TABLE_FEATURES]
    problems: list[str] = []
    counts = engine_counts(hello_features)
    if counts is not None and not set(counts) & set(declared.rules.player_counts):
        allowed = ", ".join(map(str, declared.rules.player_counts))
        problems.append(f"players: declares {', '.join(map(str, counts))}, the rules allow {allowed}")
    if own:
        said = Declared(own)
        seen: set[str] = set()
        for feature in declared.features(counts):
            key, _, value = feature.partition(":")
            if key in seen or key in TABLE_FEATURES or not said.declared_values(key) or said.supports(feature):
                continue
            seen.add(key)
            problems.append(f"{key}: declares {', '.join(said.declared_values(key))}, the rules say {value}")
    if not problems:
        return None
    shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
    return f"the engine's features contradict its declared rules {declared.name}: {shown} (the declared rules are used)"
