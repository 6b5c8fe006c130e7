"""The records read at start-up, written without `dataclasses` (escoba/record.py)."""

from __future__ import annotations

import copy
import pickle

import pytest

from escoba.errors import Location, Problem
from escoba.rules import load_resolved


def test_a_location_is_an_immutable_value():
    """Locations compare and hash by their fields, refuse assignment, and survive pickling
    (workers send errors back) and copying."""
    here = Location("mine.yaml", 3, 5, "$.deal")
    assert here == Location("mine.yaml", 3, 5, "$.deal") and hash(here) == hash(Location("mine.yaml", 3, 5, "$.deal"))
    assert here != Location("mine.yaml", 3, 6, "$.deal") and here != ("mine.yaml", 3, 5, "$.deal")
    assert Location() == Location("<string>", 0, 0, "$")
    with pytest.raises(AttributeError):
        here.line = 4  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(here)) == here and copy.deepcopy(here) == here
    assert repr(here) == "Location(file='mine.yaml', line=3, column=5, path='$.deal')"


def test_a_problem_is_one_line_and_compares_by_its_fields():
    """A problem's message is made one line and its excerpt printable when it is made; problems
    compare by their fields, are not hashable (they are mutable) and survive pickling."""
    problem = Problem(Location("f", 1, 2), "bad\nvalue", "a\tb", 1)
    assert problem.message == "bad\\nvalue" and problem.excerpt == "a b"
    assert str(problem) == "f:1:2: $: bad\\nvalue\n    a b\n     ^"
    assert problem == Problem(Location("f", 1, 2), "bad\nvalue", "a\tb", 1) != Problem(Location("f", 1, 2), "other")
    with pytest.raises(TypeError):
        hash(problem)
    assert pickle.loads(pickle.dumps(problem)) == problem


def test_a_resolved_ruleset_pickles_and_copies_whole():
    """A resolved ruleset (and the documents of its chain) come back equal from pickling and
    copying, as worker processes receive them."""
    resolved = load_resolved("sv")
    again = pickle.loads(pickle.dumps(resolved))
    assert again == resolved and again.files == resolved.files and copy.copy(resolved) == resolved
    assert again.id == "sv" and again.doc == resolved.doc
