"""Student's t and the beta distribution in plain Python, for the diff's small-sample intervals.

SciPy is not a run-time dependency, so the few pieces `escoba diff` needs are here: the
regularized incomplete beta function I_x(a, b) (a continued fraction, evaluated by the modified
Lentz method, as in Press et al., *Numerical Recipes*, §6.4), and from it

- the two-sided p-value of Student's t, P(|T| ≥ t) = I_{ν/(ν+t²)}(ν/2, 1/2), and the quantile
  `t_quantile(alpha, ν)` it inverts (the t of a two-sided (1 − alpha) interval);
- the beta quantile `beta_quantile(q, a, b)`, the bounds of a Clopper–Pearson interval.

Quantiles are found by Newton steps on the distribution function, kept inside a bracket that
bisection narrows whenever a step would leave it, so they converge for any argument. The suite
checks every function against SciPy (tests/test_diff_distributions.py) to 1e-9 or better.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache

_TINY = 1e-300
_EPS = 1e-15
_MAX_TERMS = 100_000  # the fraction needs about √max(a, b) terms: ample for a million pairs


def betainc(a: float, b: float, x: float, y: float | None = None) -> float:
    """The regularized incomplete beta function I_x(a, b), for a, b > 0 and 0 ≤ x ≤ 1.

    `y` is 1 − x when the caller knows it more precisely than 1 − x can be computed (x close
    to 1): the t distribution's tails need it at many degrees of freedom."""
    if y is None:
        y = 1.0 - x
    if x <= 0.0:
        return 0.0
    if y <= 0.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(y)
    # The fraction converges fast below the mean of the distribution; above it, the symmetry
    # I_x(a, b) = 1 − I_{1−x}(b, a) moves the evaluation there.
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _fraction(b, a, y) / b


def _fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b), by the modified Lentz method."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, _MAX_TERMS):
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)), -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + aa / c
            c = c if abs(c) > _TINY else _TINY
            step = d * c
            h *= step
        if abs(step - 1.0) < _EPS:
            return h
    raise ArithmeticError(f"the incomplete beta fraction did not converge (a={a}, b={b}, x={x})")


def _beta_density(a: float, b: float, x: float) -> float:
    if x <= 0.0 or x >= 1.0:
        return 0.0
    log = (a - 1) * math.log(x) + (b - 1) * math.log1p(-x) + math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    return math.exp(log)


def t_two_sided(t: float, df: float) -> float:
    """P(|T| ≥ |t|) for Student's t with `df` degrees of freedom."""
    t2 = t * t
    if t2 == 0.0:
        return 1.0
    # x = ν/(ν+t²) and 1 − x = t²/(ν+t²), each computed directly (no cancellation).
    return min(1.0, betainc(df / 2.0, 0.5, df / (df + t2), t2 / (df + t2)))


def _t_density(t: float, df: float) -> float:
    log = (math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
           - (df + 1) / 2 * math.log1p(t * t / df))  # fmt: skip
    return math.exp(log)


@lru_cache(maxsize=512)
def t_quantile(alpha: float, df: float) -> float:
    """The t > 0 with P(|T| ≥ t) = alpha: a two-sided (1 − alpha) interval is mean ± t · se."""
    if not 0.0 < alpha < 1.0 or df <= 0:
        raise ValueError(f"t_quantile needs 0 < alpha < 1 and df > 0, got alpha={alpha}, df={df}")
    hi = 1.0
    while t_two_sided(hi, df) > alpha:
        hi *= 2.0
    return _solve(lambda t: t_two_sided(t, df) - alpha, lambda t: -2.0 * _t_density(t, df), 0.0, hi, hi / 2)


@lru_cache(maxsize=4096)
def beta_quantile(q: float, a: float, b: float) -> float:
    """The x with I_x(a, b) = q (0 ≤ q ≤ 1)."""
    if q <= 0.0:
        return 0.0
    if q >= 1.0:
        return 1.0
    mean = a / (a + b)
    return _solve(lambda x: betainc(a, b, x) - q, lambda x: _beta_density(a, b, x), 0.0, 1.0, mean)


def _solve(f: Callable[[float], float], slope: Callable[[float], float], lo: float, hi: float, x: float) -> float:
    """The root of an increasing or decreasing f in [lo, hi] (f(lo) and f(hi) of opposite signs):
    Newton steps from x, bisection whenever a step leaves the bracket or stalls."""
    f_lo = f(lo)
    for _ in range(200):
        fx = f(x)
        if fx == 0.0:
            return x
        if (fx < 0.0) == (f_lo < 0.0):
            lo, f_lo = x, fx
        else:
            hi = x
        s = slope(x)
        step = x - fx / s if s != 0.0 else lo - 1.0
        if not lo < step < hi:
            step = (lo + hi) / 2
        if abs(step - x) <= 1e-15 * abs(step) or hi - lo <= 1e-15 * abs(hi):
            return step
        x = step
    return x
