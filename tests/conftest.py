"""Hypothesis profiles: `ci` (the default) and `deep`, chosen with HYPOTHESIS_PROFILE.

    HYPOTHESIS_PROFILE=deep python -m pytest tests/test_fuzz_*.py    # the larger fuzz budget

Tests that set their own `max_examples` keep it under either profile.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

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
