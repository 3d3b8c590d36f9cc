"""Statistics for the arena: confidence intervals of means, shares and ratios.

Pure functions of numbers (no engine needed): Student-t intervals of a mean,
Wilson intervals of a proportion, delta-method intervals of a ratio of sums,
and the running mean with its interval for plotting convergence.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "Interval",
    "mean_ci",
    "proportion_ci",
    "ratio_ci",
    "running_ci",
    "running_mean",
    "share_ci",
    "t_quantile",
]

@dataclass(frozen=True)
class Interval:
    """A point estimate with a two-sided confidence interval `[lo, hi]`."""

    value: float
    lo: float
    hi: float

    @property
    def half_width(self) -> float:
        """Half the interval's width (the "±" figure)."""
        return (self.hi - self.lo) / 2

    def contains(self, x: float) -> bool:
        """True if `x` lies in the closed interval."""
        return self.lo <= x <= self.hi

    def __str__(self) -> str:
        """E.g. `+0.125 [-0.010, +0.260]`."""
        return f"{self.value:+.3f} [{self.lo:+.3f}, {self.hi:+.3f}]"


def t_quantile(df: int, p: float = 0.975) -> float:
    """Quantile of Student's t distribution with `df` degrees of freedom.

    Exact closed forms for df 1 and 2, otherwise the Cornish-Fisher expansion
    around the normal quantile (off by under 0.005 from df 3 on, plenty
    for a confidence interval).
    """
    if df < 1:
        raise ValueError("t_quantile needs df >= 1")
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:
        a = 4 * p * (1 - p)
        return (2 * p - 1) * math.sqrt(2 / a)
    z = statistics.NormalDist().inv_cdf(p)
    n = float(df)
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / n + g2 / n**2 + g3 / n**3 + g4 / n**4


def mean_ci(values: Sequence[float], confidence: float = 0.95) -> Interval:
    """Mean with a Student-t confidence interval (independent observations).

    One value gives a degenerate interval at that value; no value is an error.
    """
    n = len(values)
    if n == 0:
        raise ValueError("mean_ci of no values")
    m = math.fsum(values) / n
    if n == 1:
        return Interval(m, m, m)
    sd = statistics.stdev(values)
    h = t_quantile(n - 1, 0.5 + confidence / 2) * sd / math.sqrt(n)
    return Interval(m, m - h, m + h)


def proportion_ci(successes: float, n: int, confidence: float = 0.95) -> Interval:
    """A proportion with the Wilson score interval (good near 0 and 1)."""
    if n <= 0:
        raise ValueError("proportion_ci needs n >= 1")
    if not 0 <= successes <= n:
        raise ValueError("successes must lie in [0, n]")
    z = statistics.NormalDist().inv_cdf(0.5 + confidence / 2)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return Interval(p, max(0.0, centre - h), min(1.0, centre + h))


def ratio_ci(
    num: Sequence[float], den: Sequence[float], confidence: float = 0.95
) -> Interval | None:
    """Ratio of sums `sum(num) / sum(den)` over paired units, delta-method CI.

    Used for the leveling rate (levels gained by A / levels gained by both),
    with one unit per mirrored deal so the two halves stay together. Returns
    None when the denominator sums to zero. The interval is clipped to [0, 1]
    when the ratio is a share (num <= den unit by unit).
    """
    if len(num) != len(den):
        raise ValueError("num and den must pair up")
    n = len(num)
    total = math.fsum(den)
    if n == 0 or total == 0:
        return None
    r = math.fsum(num) / total
    if n == 1:
        return Interval(r, r, r)
    mean_den = total / n
    resid = [a - r * b for a, b in zip(num, den, strict=True)]
    var = math.fsum(e * e for e in resid) / (n - 1)
    h = t_quantile(n - 1, 0.5 + confidence / 2) * math.sqrt(var / n) / mean_den
    lo, hi = r - h, r + h
    if all(0 <= a <= b for a, b in zip(num, den, strict=True)):
        lo, hi = max(0.0, lo), min(1.0, hi)
    return Interval(r, lo, hi)


def share_ci(ci: Interval, n: int) -> Interval:
    """Widen a share's CI to at least the Wilson interval with `n` samples.

    With one sample per mirrored deal, a t (or delta-method) interval collapses
    to a point when every sample is equal (e.g. 100% wins); the Wilson interval
    of the same share over the same number of samples is never degenerate and is
    conservative, since a sample averaging two halves varies less than a coin.
    """
    w = proportion_ci(ci.value * n, n) if n else ci
    return Interval(ci.value, max(0.0, min(ci.lo, w.lo)), min(1.0, max(ci.hi, w.hi)))


def running_ci(
    values: Sequence[float], confidence: float = 0.95
) -> tuple[list[float], list[float]]:
    """Lower and upper CI bounds of the mean of the first k values, k = 1..n (Welford)."""
    lo: list[float] = []
    hi: list[float] = []
    mean = 0.0
    m2 = 0.0
    for k, v in enumerate(values, 1):
        d = v - mean
        mean += d / k
        m2 += d * (v - mean)
        if k == 1:
            lo.append(mean)
            hi.append(mean)
            continue
        h = t_quantile(k - 1, 0.5 + confidence / 2) * math.sqrt(max(m2, 0.0) / (k - 1) / k)
        lo.append(mean - h)
        hi.append(mean + h)
    return lo, hi


def running_mean(values: Iterable[float]) -> list[float]:
    """The mean of the first k values, for k = 1..n."""
    out: list[float] = []
    total = 0.0
    for k, v in enumerate(values, 1):
        total += v
        out.append(total / k)
    return out
