"""The t and beta distributions escoba diff computes in plain Python, checked against SciPy and
against published table values (SciPy is a test dependency only, never a run-time one)."""

from __future__ import annotations

import math

import pytest
from scipy import special, stats

from escoba.diff.distributions import beta_quantile, betainc, t_quantile, t_two_sided

DFS = [1, 2, 3, 4, 5, 9, 29, 49, 99, 1999, 19_999, 1_000_000]
ALPHAS = [0.5, 0.05, 0.05 / 4, 0.05 / 8, 0.05 / 40, 1e-6]


@pytest.mark.parametrize("a", [0.5, 1, 2, 10.5, 1000, 50_000])
@pytest.mark.parametrize("b", [0.5, 1, 3, 20, 1000])
def test_the_incomplete_beta_function_is_scipys(a, b):
    """I_x(a, b) agrees with scipy.special.betainc to 1e-9 (relative) across shapes and x."""
    for x in [1e-6, 0.01, 0.3, 0.5, 0.7, 0.99, 0.999999]:
        expected = special.betainc(a, b, x)
        got = betainc(a, b, x)
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-300), (a, b, x)


@pytest.mark.parametrize("df", DFS)
def test_the_t_quantile_and_tail_are_scipys(df):
    """The two-sided t quantile and tail agree with scipy.stats.t to 1e-8 at every level the
    diff uses (95%, Holm's steps over 4 and 8 rows, 40 looks) and far into the tail."""
    for alpha in ALPHAS:
        assert t_quantile(alpha, df) == pytest.approx(stats.t.isf(alpha / 2, df), rel=1e-8), (alpha, df)
    for t in [0.1, 1.0, 2.0, 5.0, 30.0]:
        assert t_two_sided(t, df) == pytest.approx(2 * stats.t.sf(t, df), rel=1e-8), (t, df)


def test_the_t_quantile_is_the_published_table():
    """Two-sided 95% values of Student's t as printed in tables (Fisher & Yates; NIST handbook
    1.3.6.7.2): 12.706 at 1 degree of freedom, 2.776 at 4, 2.262 at 9, 2.045 at 29, 1.984 at
    100; and the normal 1.960 in the limit."""
    for df, table in [(1, 12.706), (4, 2.776), (9, 2.262), (29, 2.045), (100, 1.984), (10**7, 1.960)]:
        assert round(t_quantile(0.05, df), 3) == table


@pytest.mark.parametrize("a, b", [(1, 1), (0.5, 3), (3, 200), (229, 1772), (1, 1999), (2000, 1), (12, 9), (5e3, 1.5e4)])
def test_the_beta_quantile_is_scipys(a, b):
    """The beta quantile (Clopper–Pearson's bounds) agrees with scipy.stats.beta.ppf to 1e-9."""
    for q in [1e-6, 0.05 / 16, 0.025, 0.5, 0.975, 1 - 0.05 / 16]:
        assert beta_quantile(q, a, b) == pytest.approx(stats.beta.ppf(q, a, b), rel=1e-9), (a, b, q)
    assert beta_quantile(0.0, a, b) == 0.0 and beta_quantile(1.0, a, b) == 1.0


def test_a_bad_level_is_refused():
    """t_quantile refuses a level outside (0, 1) rather than looping or returning nonsense."""
    for alpha in (0.0, 1.0, -0.1, math.nan):
        with pytest.raises(ValueError):
            t_quantile(alpha, 10)
