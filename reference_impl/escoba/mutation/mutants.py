"""The mutants of the bundled rulesets: every rule point read another way, one at a time.

A **mutant** is one misreading of one rule point: the point read as `reads` where a ruleset says
`was` (`capture.compulsory`: card level read as optional; `scoring.velo.award`: the holder of
7♦ read as the holder of 6♦). Each bundled ruleset makes its mutants from its positions
(`escoba.rules.points.positions`): for each, every other value the registry gives
(`other_values`: the single-point mutants `escoba identify` tries too) and the audit's own
readings of the literals of a measure or an award (`escoba.mutation.operators`), each written
into a copy of the document (`with_value`) that must still be a valid ruleset.

A misreading is one mutant wherever rulesets say the same thing at that point (the same
meaning, `RulePoint.meaning`): an engine that reads "card level" as "optional" reads it so in
da, sv and every ruleset that says it. So a mutant is **applied** to every ruleset whose
position means `was`, the bundled ones and those the bundled cases play (the coverage cases'
`base-*.yaml` beside them), and each of their cases may detect it (`escoba.mutation.detect`).
Its `origins` are the bundled rulesets that make it: the per-ruleset figures of the report.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from hashlib import blake2b
from typing import Any

from escoba.rules.points import Position, other_values, positions, with_value

REGISTRY = "registry"  # a reading of the point's declaration (`other_values`)
AUDIT = "audit"  # one of the audit's own operators (`escoba.mutation.operators`)


def digest(data: Any, size: int = 8) -> str:
    """A short stable digest of JSON data (hex)."""
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, default=str, separators=(",", ":"))
    return blake2b(text.encode("utf-8"), digest_size=size).hexdigest()


@dataclass(frozen=True, eq=False)
class Ruleset:
    """A ruleset the audit knows: its resolved document and the bundled cases that play it."""

    name: str  # the document's id
    doc: Mapping[str, Any]
    bundled: bool
    source: str  # what loads it: a bundled id, or the file a case names
    cases: tuple[Any, ...] = ()  # escoba.transcript.case.Case

    @cached_property
    def rules(self) -> Any:
        """Its compiled rules."""
        return _compiled(self.doc)


@dataclass(frozen=True, eq=False)
class Applied:
    """A mutant applied to one ruleset: its document read that way (made when first asked for,
    since listing the mutants must be quick; the same id as the ruleset's)."""

    ruleset: Ruleset
    key: str
    value: Any  # the other value, as written into the document

    @cached_property
    def doc(self) -> Mapping[str, Any] | None:
        """The document so read; None where that is no ruleset anyone could write (the schema
        or the semantic checks refuse it)."""
        from escoba.rules import check_document

        changed = with_value(self.ruleset.doc, self.key, self.value)
        return None if changed is None or check_document(changed) else changed

    @cached_property
    def rules(self) -> Any:
        """The compiled rules of the document so read."""
        assert self.doc is not None
        return _compiled(self.doc)


def _compiled(doc: Mapping[str, Any]) -> Any:
    import copy

    from escoba.rules.compile import compile_rules

    return compile_rules(copy.deepcopy(dict(doc)))


@dataclass
class Mutant:
    """One misreading of one rule point (see the module's docstring)."""

    ident: str  # a digest of (key, the meaning read, the meaning it is read as): stable across runs
    key: str  # the position: `capture.compulsory`, `scoring.velo.award`
    point: str  # the rule point's declaration: `scoring.*.award`
    was: str  # what the rulesets say, as the matrix shows it
    reads: str  # what the mutant reads instead
    operator: str  # REGISTRY or AUDIT
    origins: list[str] = field(default_factory=list)  # the bundled rulesets that make it
    applied: list[Applied] = field(default_factory=list)  # every ruleset it applies to, origins first

    @property
    def label(self) -> str:
        return f"{self.key}: {self.was} → {self.reads}"


def mutants(rulesets: Sequence[Ruleset], only: Iterable[str] | None = None) -> list[Mutant]:
    """The mutants the bundled rulesets among `rulesets` make (those some ruleset of `only`
    makes, when given), each applied to every ruleset of `rulesets` that says what it misreads;
    in the order of the rulesets, then of the registry's positions."""
    makers = [r for r in rulesets if r.bundled]
    found: dict[str, Mutant] = {}
    for making in (True, False):  # the mutants first, then every other ruleset they apply to
        for ruleset in makers if making else [r for r in rulesets if not r.bundled]:
            doc = ruleset.doc
            for position in positions(doc):
                for value, operator in _readings(doc, position):
                    reads = None if value is None else position.rule.meaning(value, doc)
                    ident = digest([position.key, position.meaning, reads])
                    mutant = found.get(ident)
                    if mutant is None and not making:
                        continue
                    if mutant is not None and any(a.ruleset.name == ruleset.name for a in mutant.applied):
                        continue  # another way of writing the same reading
                    if mutant is None:
                        shown = "not scored" if value is None else position.rule.shown(value, doc)
                        mutant = found[ident] = Mutant(ident, position.key, position.rule.key, position.text, shown, operator)
                    if making:
                        mutant.origins.append(ruleset.name)
                    mutant.applied.append(Applied(ruleset, position.key, value))
    if only is not None:
        wanted = set(only)
        return [m for m in found.values() if wanted & set(m.origins)]
    return list(found.values())


def _readings(doc: Mapping[str, Any], position: Position) -> list[tuple[Any, str]]:
    """The other values of a position worth a mutant, each with its operator; a reading that
    means what the position means is the same rule written otherwise, and none."""
    from escoba.mutation.operators import readings

    found: list[tuple[Any, str]] = [(v, REGISTRY) for v in other_values(doc, position)]
    found += [(v, AUDIT) for v in readings(doc, position)]
    kept: list[tuple[Any, str]] = []
    meanings: list[Any] = []
    for value, operator in found:
        meaning = None if value is None else position.rule.meaning(value, doc)
        if (value is not None and meaning == position.meaning) or (value is not None and meaning in meanings):
            continue
        meanings.append(meaning)
        kept.append((value, operator))
    return kept


def known_rulesets(cases: Sequence[Any]) -> list[Ruleset]:
    """The bundled rulesets, then the other rulesets `cases` play, each with its cases."""
    from escoba.rules import bundled_ids, load_resolved

    by_source: dict[str, list[Any]] = {}
    for case in cases:
        by_source.setdefault(case.ruleset_source(), []).append(case)
    found = [Ruleset(name, lean(load_resolved(name).doc), True, name, tuple(by_source.pop(name, ()))) for name in bundled_ids()]
    names = {r.name for r in found}
    for source, played in sorted(by_source.items()):
        doc = lean(played[0].document)
        name = str(doc.get("id", source))
        if name in names:
            name = source  # a file whose id a bundled ruleset already has: known by its path
        names.add(name)
        found.append(Ruleset(name, doc, False, source, tuple(played)))
    return found


def lean(doc: Any) -> Any:
    """A resolved document as plain data without its provenance: the rules alone, a third of
    the size or less, so that thousands of copies (a mutant each) are quick to make and check.
    What a document compiles to does not depend on its provenance."""
    if isinstance(doc, Mapping):
        return {str(k): lean(v) for k, v in doc.items() if k != "provenance"}
    if isinstance(doc, (list, tuple)):
        return [lean(v) for v in doc]
    return doc
