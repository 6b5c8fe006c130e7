"""Hypothesis profiles: `ci` (the default) and `deep`, chosen with HYPOTHESIS_PROFILE.

    HYPOTHESIS_PROFILE=deep python -m pytest tests/test_fuzz_*.py    # the larger fuzz budget

Tests that set their own `max_examples` keep it under either profile.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# No deadline: a 2-core CI machine makes per-example timing noise, not findings.
settings.register_profile("ci", max_examples=100, deadline=None)
settings.register_profile(
    "deep", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
