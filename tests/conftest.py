"""Hypothesis profiles: `ci` (the default) and `deep`, chosen with HYPOTHESIS_PROFILE.

    HYPOTHESIS_PROFILE=deep python -m pytest tests/test_fuzz_*.py    # the larger fuzz budget

Tests that set their own `max_examples` keep it under either profile.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

import pytest
from hypothesis import HealthCheck, settings

# No deadline: a 2-core CI machine makes per-example timing noise, not findings.
settings.register_profile("ci", max_examples=100, deadline=None)
settings.register_profile(
    "deep", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# The suite keeps its own cache folder (escoba/cachedir.py: the expression parser, the verdicts
# of documents found valid), empty at the start of a run and shared by every test and the
# processes they start: nothing kept by an earlier run or another checkout is ever read.
_CACHE = tempfile.mkdtemp(prefix="escoba-test-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)

# The slowest whole runs (ten seconds to a minute or so each: a buggy engine through every bundled
# scenario, one-point engines declaring everything) keep CI under its twenty minutes: marked `whole_run`,
# they run with ESCOBA_SLOW=1 or under the deep profile, and are skipped with that reason
# otherwise. They pass; the mark is about time, never about a failure.
SLOW = bool(os.environ.get("ESCOBA_SLOW")) or os.environ.get("HYPOTHESIS_PROFILE") == "deep"


def pytest_collection_modifyitems(config, items):  # type: ignore[no-untyped-def]
    if SLOW:
        return
    skip = pytest.mark.skip(reason="a whole run: ESCOBA_SLOW=1 or HYPOTHESIS_PROFILE=deep")
    for item in items:
        if item.get_closest_marker("whole_run") is not None:
            item.add_marker(skip)



@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist (`python -m pytest -n auto`, as CI runs the suite)
def pytest_xdist_auto_num_workers(config):  # type: ignore[no-untyped-def]
    """A worker per core, at most four: each grows to about 2 GB over the whole suite."""
    return max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1))
