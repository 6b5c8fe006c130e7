"""Null diffs: a ruleset against a relabelled copy of itself, where every claimed difference is false.

`escoba diff` promises that a run claims a headline difference that is not there in at most 5%
of runs (escoba.diff.headlines). This module measures that promise: the copy plays the same
game under other names, so any headline whose interval excludes zero is a false claim, and over
many seeds the share of runs with one estimates the rate the promise bounds.

Renaming alone (an id, a category's id and title) would test nothing: the copy then plays the
very same games, every pair is equal and no interval can exclude zero. The copy therefore also
lists the suits in another order. A deck order deals cards by their index (suit-major in the
order the ruleset lists its suits, docs/architecture.md), so the same shuffle deals other cards
under the copy: the two sides of a pair are different games drawn from the same distribution
(a shuffle is uniform, so relabelling the deck's positions changes nothing in distribution).
Ranks keep their positions, so captures by value, and with them random bots' escobas, stay
paired exactly; who holds the coins and the seven of coins does not.

tests/test_diff_null.py runs a short version on every CI run; benchmarks/diff_null.py the long one.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from escoba.diff.headlines import SHOWN, Verdict, verdicts
from escoba.diff.runner import Job, run


def relabelled(doc: Mapping[str, Any]) -> dict[str, Any]:
    """A resolved ruleset document as the same game under other names: a new id and title, its
    last scoring category's id and title renamed, its suits listed in another order (the scoring
    suit named, so that it stays the same suit)."""
    out = copy.deepcopy(dict(doc))
    out["id"] = f"{doc['id']}-relabelled"
    out["title"] = f"{doc.get('title', doc['id'])}, relabelled"
    out.pop("resolved_from", None)
    deck = out["deck"]
    suits = deck["suits"]
    deck.setdefault("scoring_suit", suits[0]["id"])
    deck["suits"] = suits[1:] + suits[:1]
    category = out["scoring"]["categories"][-1]
    category["id"] = f"{category['id']}-renamed"
    category["title"] = f"{category.get('title', category['id'])} (renamed)"
    return out


@dataclass(frozen=True)
class NullRun:
    """One seed's headlines, every strength's (the run's own bots first)."""

    seed: int
    strengths: tuple[tuple[Verdict, ...], ...]

    @property
    def claims(self) -> list[Verdict]:
        """The headlines labelled higher or lower: each a false claim here."""
        return [v for found in self.strengths for v in found if v.status in SHOWN]

    @property
    def rejections(self) -> list[Verdict]:
        """The headlines whose interval excludes zero (also those labelled `below` for lying
        inside their negligible band): the events Holm's correction bounds."""
        return [v for found in self.strengths for v in found if v.difference.direction in SHOWN]


def null_runs(
    doc: Mapping[str, Any],
    seeds: Sequence[int],
    hands: int,
    matches: int,
    bots: Sequence[tuple[str, ...]],
    players: int = 2,
) -> list[NullRun]:
    """For each seed, the diff's headlines of `doc` against its relabelled copy, under each set
    of bots (the first the run's own, the rest further strengths), corrected together as
    `escoba diff` corrects them."""
    other = relabelled(doc)
    out = []
    for seed in seeds:
        job = Job(doc, other, players, seed, tuple(bots[0]))
        parts = [run(replace(job, bots=tuple(b)), hands, matches=matches) for b in bots]
        out.append(NullRun(seed, verdicts([(p.paired, p.paired_matches) for p in parts])))
    return out
