"""A compiled Rules cannot be changed through the cached object load_ruleset hands out."""

from __future__ import annotations

import copy
import json
import pickle

import pytest

import escoba
from escoba.rules import check_document, load_resolved


def test_the_document_of_cached_rules_refuses_every_change():
    """Setting, deleting, appending or updating anywhere in Rules.doc raises TypeError, and the
    next load_ruleset still carries the document as resolved."""
    rules = escoba.load_ruleset("da")
    doc = rules.doc
    attempts = [
        lambda: doc.__setitem__("id", "x"),
        lambda: doc.pop("id"),
        lambda: doc.update(id="x"),
        lambda: doc["capture"].__setitem__("target", 99),
        lambda: doc["capture"].setdefault("new", 1),
        lambda: doc["scoring"]["categories"].append({}),
        lambda: doc["scoring"]["categories"].__delitem__(0),
        lambda: doc["scoring"]["categories"][0].clear(),
        lambda: doc["deck"]["suits"].sort(key=str),
        lambda: doc["players"]["counts"].__setitem__(0, 9),
    ]
    for attempt in attempts:
        with pytest.raises(TypeError, match="frozen"):
            attempt()
    with pytest.raises(TypeError):
        doc["scoring"]["categories"] += [{}]
    assert escoba.load_ruleset("da").doc == load_resolved("da").doc


def test_partnerships_and_card_names_cannot_be_changed():
    """The compiled partnerships and the deck's card lookup are read-only mappings."""
    rules = escoba.load_ruleset("de")
    with pytest.raises(TypeError):
        rules.partnerships[4] = ((0,), (1, 2, 3))  # type: ignore[index]
    with pytest.raises(TypeError):
        rules.deck._lookup["7d"] = 0  # type: ignore[index]


def test_the_frozen_document_still_serialises_validates_and_pickles():
    """json.dumps, the schema and semantic checks, pickling (to pool workers) and deepcopy
    take the frozen document as the plain one."""
    rules = escoba.load_ruleset("de-jokers")
    plain = load_resolved("de-jokers").doc
    assert json.dumps(rules.doc, sort_keys=True) == json.dumps(plain, sort_keys=True)
    assert check_document(rules.doc) == []
    again = pickle.loads(pickle.dumps(rules.doc))
    assert again == plain and type(again) is type(rules.doc)
    with pytest.raises(TypeError):
        again["id"] = "x"
    assert copy.deepcopy(rules.doc) == plain
