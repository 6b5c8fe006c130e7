"""Searching an engine for what it does differently: explore, shrink, identify.

- `explore` (escoba.explore.lockstep) plays seeded games on an engine in lockstep with the
  reference engine, with moves and deals biased toward what random play rarely reaches, and
  stops each game at its first divergence (`escoba explore`);
- `shrink` (escoba.explore.shrinking) cuts a failing case down to the smallest case that still
  fails the same way (same rule point, same class), written as an ordinary case file;
- `identify` (escoba.explore.inference) decides which rules an engine plays: the closest
  bundled ruleset, each rule point where it departs with a minimal case, and a house rule
  (`escoba identify`);

All three run cases through the conformance runner (`escoba.conformance.runner`, wrapped by
escoba.explore.harness): the same driver, comparison and rule-point attribution as
`escoba conformance`, so a divergence found here is reported exactly as the suite reports it.
docs/identify.md walks through them.

    >>> from escoba.explore import explore, shrink, identify
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from escoba.lazy import attach

__all__ = ["explore", "identify", "shrink", "write_cases"]

if TYPE_CHECKING:
    from escoba.explore.inference import identify
    from escoba.explore.lockstep import explore, write_cases
    from escoba.explore.shrinking import shrink

_LAZY = {
    "explore": "escoba.explore.lockstep",
    "write_cases": "escoba.explore.lockstep",
    "shrink": "escoba.explore.shrinking",
    "identify": "escoba.explore.inference",
}


__getattr__, __dir__ = attach(__name__, _LAZY, __all__)
