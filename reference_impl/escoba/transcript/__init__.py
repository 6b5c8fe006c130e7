"""Golden transcripts: the case format, loading and checking, recording with the reference
engine, rendering for people, and the generator (`python -m escoba.transcript.generate`).

    >>> from escoba.transcript import load_cases
    >>> for case in load_cases(pattern="opening.*"):
    ...     case.id, case.ruleset, case.kind, len(case.expect)

The format is described in docs/transcripts.md; the schema is schemas/transcript.schema.json.
"""

from __future__ import annotations

from escoba.transcript.case import (
    FORMAT,
    Case,
    HandSpec,
    Perft,
    Probe,
    case_from_data,
    cases_dir,
    load_case,
    load_cases,
    pin_matches,
)

__all__ = [
    "FORMAT",
    "Case",
    "HandSpec",
    "Perft",
    "Probe",
    "case_from_data",
    "cases_dir",
    "expected_events",
    "load_case",
    "load_cases",
    "pin_matches",
    "render_case",
]


def __getattr__(name: str):
    # record and render pull in the engine's match and bots; load them when asked for.
    if name == "expected_events":
        from escoba.transcript.record import expected_events

        return expected_events
    if name == "render_case":
        from escoba.transcript.render import render_case

        return render_case
    raise AttributeError(name)
