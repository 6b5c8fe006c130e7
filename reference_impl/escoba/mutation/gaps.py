"""Games that fill the audit's gaps: for the survivors and the mutants below the bar, a few
games that together bring each up to it (`escoba cases audit --suggest DIR`).

Seeded games are played under each bundled ruleset that makes such a mutant
(`escoba.explore.games`: arranged opening tables, sweepers, placers, levellers, matches whose
target ends in a tie), and each game is replayed under each of those mutants
(`escoba.mutation.equivalence.tells_apart`). Then games are chosen greedily, the one that
detects the most mutants still short of the bar first, until each mutant has its cases or no
game helps. A suggestion is no case yet: a person reads it (`python -m
escoba.transcript.render`), keeps a game, writes its notes, pins and source sentence, and puts
it in `conformance/cases/rules/` (docs/conformance.md, "How strong is the suite").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from escoba.mutation.mutants import Mutant

GAMES = 400  # seeded games played per ruleset


def suggest(
    mutants: Sequence[Mutant], have: Mapping[str, int], bar: int, *, games: int = GAMES, seed: int = 0,
    say: Callable[[str], None] = lambda _: None,
) -> list[dict]:  # fmt: skip
    """Case data (expected events filled), each game named with the mutants it detects, that
    bring every mutant of `mutants` to `bar` detecting cases (`have`: how many it has now)."""
    from escoba.explore.harness import fill_case
    from escoba.mutation.equivalence import seeded_games, tells_apart

    need = {m.ident: bar - have.get(m.ident, 0) for m in mutants if have.get(m.ident, 0) < bar}
    chosen: list[dict] = []
    rulesets = [r for r in dict.fromkeys(o for m in mutants for o in m.origins)]
    for name in rulesets:
        pool = [m for m in mutants if name in m.origins and need.get(m.ident, 0) > 0]
        applied = {m.ident: next(a for a in m.applied if a.ruleset.name == name) for m in pool}
        pool = [m for m in pool if applied[m.ident].doc is not None]
        if not pool:
            continue
        ruleset = applied[pool[0].ident].ruleset
        rules = ruleset.rules
        found: list[tuple[dict, set[str]]] = []
        for data in seeded_games(ruleset, games, f"suggest:{seed}:{name}", "suggest"):
            told = {m.ident for m in pool if tells_apart(data, rules, applied[m.ident].rules)}
            if told:
                found.append((data, told))
        say(f"{name}: {len(found)} of {games} games detect some of its {len(pool)} mutants short of the bar")
        labels = {m.ident: m.label for m in pool}
        while found:
            # The most help per hand: a match helps with many hands, and costs as many.
            data, told = max(found, key=lambda f: (sum(need.get(i, 0) > 0 for i in f[1]) / len(f[0]["hands"]), -len(f[0]["hands"])))
            helped = sorted(i for i in told if need.get(i, 0) > 0)
            if not helped:
                break
            for i in helped:
                need[i] -= 1
            found = [f for f in found if f[0] is not data]
            data = {**data, "notes": [*data["notes"], *(f"Detects the mutant {labels[i]}." for i in helped)]}
            chosen.append(fill_case(data))
    return chosen


def short(audit: Any) -> list[str]:
    """The ids of an audit's mutants that a suggestion would help: survivors, and detected
    mutants below the bar."""
    return [e.ident for e in (*audit.survivors, *audit.weak)]
