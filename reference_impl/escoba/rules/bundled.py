"""What the bundled rulesets say, read once: each one's resolved document and points, and every
distinct scoring category among them (what `identify` and the attribution of a divergence try
as a category an engine scores that the rules it was judged under do not)."""

from __future__ import annotations

import functools
import json
from typing import Any


@functools.cache
def bundled() -> list[tuple[str, dict, dict[str, Any]]]:
    """Each bundled ruleset: its id, resolved document and points by key (read once)."""
    from escoba.rules import load_resolved, registry
    from escoba.rules.points import positions

    found = []
    for name in registry.bundled_ids():
        doc = load_resolved(name).doc
        found.append((name, doc, {p.key: p for p in positions(doc)}))
    return found


def categories_of(doc: Any) -> list[dict]:
    return list((doc.get("scoring") or {}).get("categories") or [])


@functools.cache
def bundled_categories() -> list[dict]:
    """Every distinct scoring category of the bundled rulesets (without its provenance)."""
    found: dict[str, dict] = {}
    for _name, doc, _points in bundled():
        for category in categories_of(doc):
            plain = {k: v for k, v in category.items() if k != "provenance"}
            found.setdefault(json.dumps(plain, sort_keys=True, ensure_ascii=False), plain)
    return list(found.values())


def other_categories(ids: set[str]) -> list[dict]:
    """The bundled categories whose id is none of `ids`."""
    return [c for c in bundled_categories() if str(c["id"]) not in ids]
