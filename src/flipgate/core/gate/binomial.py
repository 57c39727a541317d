"""Binomial sums in floating point, for the figures beside the verdict (power, bounds, plans).

The verdict's own p is summed in exact integers (mcnemar.py); these are the sums that would cost
too much that way. Terms are Loader's saddle-point form (`pmf`) and only those within `WINDOW_SD`
standard deviations of the mean are kept: the mass left out (under 1e-18) is far below any figure
shown. Nothing here imports scipy on import (scipy.stats is over a second of a CI job's start-up);
the judge's Clopper-Pearson interval loads it when it is asked for. `above`, the rerun plan's
majority chance, is summed exactly.
"""

from __future__ import annotations

import math

import numpy as np

WINDOW_SD = 9.0  # binomial terms kept either side of the mean, in standard deviations


# Loader's saddle-point form (Loader 2000, "Fast and accurate computation of binomial
# probabilities", as R's dbinom): the log of a term is a sum of small quantities, never the
# difference of log-factorials near 1.3e7 at a million trials, whose last digits (3e-7 of the term
# when they were summed in a table) were all the difference held.
_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)
_STIRLING_SERIES_FROM = 16  # below, the Stirling error from lgamma; from here, its series


_STIRLING_SMALL = np.asarray(
    [0.0]  # k = 0, never read
    + [
        math.lgamma(k + 1) - (k + 0.5) * math.log(k) + k - _HALF_LOG_2PI
        for k in range(1, _STIRLING_SERIES_FROM)
    ]
)


def _stirling_errors(k: np.ndarray) -> np.ndarray:
    """log(k!) - log(sqrt(2 pi k) (k / e)^k), elementwise for k >= 0: small numbers, so each is
    exact to its last digits. Computed for the counts asked, not looked up in a table as long as
    the trials: a tail at ten million flips would build 134 MB of it."""
    x = np.maximum(k, _STIRLING_SERIES_FROM).astype(np.float64)
    x2 = x * x
    series = (1 / 12 - (1 / 360 - (1 / 1260 - (1 / 1680 - 1 / (1188 * x2)) / x2) / x2) / x2) / x
    errors: np.ndarray = np.where(
        k < _STIRLING_SERIES_FROM,
        _STIRLING_SMALL[np.minimum(k, _STIRLING_SERIES_FROM - 1)],
        series,
    )
    return errors


def _deviance(x: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """x log(x / mean) + mean - x, for x > 0, as x log1p(d / mean) - d (d = x - mean): no
    cancellation between terms the size of x."""
    d: np.ndarray = x - mean
    deviance: np.ndarray = x * np.log1p(d / mean) - d
    return deviance


def pmf(n: np.ndarray, j: np.ndarray, p: float) -> np.ndarray:
    """P(X = j), X ~ Binomial(n, p), elementwise; zero where j is outside 0..n."""
    n, j = np.asarray(n, dtype=np.int64), np.asarray(j, dtype=np.int64)
    n, j = np.broadcast_arrays(n, j)
    inside = (j >= 0) & (j <= n)
    if p in (0.0, 1.0):
        return np.asarray(inside & (j == (0 if p == 0 else n)), dtype=np.float64)
    between = inside & (j > 0) & (j < n)
    nn = np.where(between, n, 2)  # a term strictly between 0 and n, where the form holds
    jj = np.where(between, j, 1)
    kk = nn - jj
    log = (
        _stirling_errors(nn)
        - _stirling_errors(jj)
        - _stirling_errors(kk)
        - _deviance(jj, nn * p)
        - _deviance(kk, nn * (1 - p))
        + 0.5 * np.log(nn / (2 * math.pi * jj * kk))
    )
    ends = np.where(j == 0, n * math.log1p(-p), n * math.log(p))
    return np.where(between, np.exp(log), np.where(inside, np.exp(ends), 0.0))


def half_pmf(n: int, j: int) -> float:
    """P(X = j), X ~ Binomial(n, 1/2), for one count (a loop's step, where arrays cost more)."""
    if not 0 <= j <= n:
        return 0.0
    return math.exp(
        math.lgamma(n + 1) - math.lgamma(j + 1) - math.lgamma(n - j + 1) - n * math.log(2)
    )


def support(n: int, p: float) -> np.ndarray:
    """The counts of Binomial(n, p) within WINDOW_SD standard deviations of its mean."""
    mean, sd = n * p, math.sqrt(n * p * (1 - p))
    low = max(0, math.floor(mean - WINDOW_SD * sd) - 1)
    return np.arange(low, min(n, math.ceil(mean + WINDOW_SD * sd) + 1) + 1)


def tail(n: int, t: int, p: float) -> float:
    """P(X >= t), X ~ Binomial(n, p), over the support (the rest is below any figure shown)."""
    j = support(n, p)
    return float(pmf(np.asarray(n), j[j >= t], p).sum()) if t > 0 else 1.0


def tails_along(ks: np.ndarray, ts: np.ndarray, p: float) -> np.ndarray:
    """P(Binomial(k, p) >= t_k) for consecutive k whose threshold t_k steps by 0 or 1.

    One more trial moves the tail by a single term: T_{k+1}(t) = T_k(t) + p pmf_k(t - 1), and
    T_{k+1}(t + 1) = T_k(t) - (1 - p) pmf_k(t). So a whole run of k costs one sum and a cumsum.
    """
    first = tail(int(ks[0]), int(ts[0]), p)
    k, t = ks[:-1], ts[:-1]
    moves = np.where(np.diff(ts) == 0, p * pmf(k, t - 1, p), -(1 - p) * pmf(k, t, p))
    return np.clip(first + np.concatenate(([0.0], np.cumsum(moves))), 0.0, 1.0)


def half_at_least(n: int, k: int) -> float:
    """P(X >= k), X ~ Binomial(n, 1/2), to about 1e-11 of itself however far in the tail: the
    McNemar p past the exact sums (`mcnemar.EXACT_FLIPS`), without scipy's incomplete beta
    (scipy.special loads in 0.3 s of CPU, a fortieth of a million-case gate).

    The tail beyond the middle is summed from k up; one below it is 1 minus the other end's (by
    symmetry, P(X <= k - 1) = P(X >= n - k + 1)), so a small p never comes from a difference.
    Log-concavity bounds the terms left out: the log of a term falls by at least 4 / (n + 2)
    more at each step past the middle, so m = 6 sqrt(n) + 2 terms on, a term is below e^-72 of
    the first, and all the rest below 1e-24 of the sum."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    if 2 * k <= n:
        return 1.0 - half_at_least(n, n - k + 1)
    last = min(n, k + math.ceil(6 * math.sqrt(n)) + 2)
    return float(pmf(np.asarray(n), np.arange(k, last + 1), 0.5).sum())


EXACT_ABOVE = 64  # up to here `above` sums in whole numbers, microseconds a rate; beyond, floats


def above(k: int, n: int, rates: np.ndarray) -> np.ndarray:
    """P(X > k), X ~ Binomial(n, rate), for each rate: the rerun plan's majority chance.

    A float rate is a fraction a / 2^e, so up to `EXACT_ABOVE` trials (a rerun's repetitions) the
    tail is sum(C(n, j) a^j (2^e - a)^(n - j)) / 2^(e n), a ratio of whole numbers that Python
    divides correctly rounded; beyond, its terms (`pmf`) are summed in floats. Each distinct
    rate is summed once: a rerun's cases take a few. scipy.special's `bdtrc` gives the same to
    an ulp or two, but loading it is a third of a second of the gate's start-up (its array-API
    layer imports numpy's testing and f2py).
    """
    distinct, where = np.unique(np.asarray(rates, dtype=np.float64), return_inverse=True)
    tails = [_above(k, n, rate) for rate in distinct.tolist()]
    return np.asarray(tails, dtype=np.float64)[where.reshape(-1)]


def _above(k: int, n: int, rate: float) -> float:
    if k < 0:
        return 1.0
    if k >= n:
        return 0.0
    if n > EXACT_ABOVE:  # every term, the far tail too: a rate near 0 or 1 puts it there
        return float(pmf(np.asarray(n), np.arange(k + 1, n + 1), rate).sum())
    passes, whole = rate.as_integer_ratio()
    fails = whole - passes
    total: int = sum(math.comb(n, j) * passes**j * fails ** (n - j) for j in range(k + 1, n + 1))
    scale: int = whole**n
    return total / scale


EXACT_TRIALS = 1000  # up to here every math.comb(n, j) is a float (below 2^1024)


def binom_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k), X ~ Binomial(n, p): summed exactly term by term up to EXACT_TRIALS trials,
    over the support beyond them (a suite of 5,000 cases, 1,100 repetitions of a case)."""
    if n <= EXACT_TRIALS:
        return math.fsum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(0, k + 1))
    if k >= n or k < 0:
        return float(k >= n)
    j = support(n, p)
    return float(pmf(np.asarray(n), j[j <= k], p).sum())


def binom_quantile(n: int, p: float, q: float) -> int:
    """The smallest x with P(X <= x) >= q, X ~ Binomial(n, p)."""
    if n == 0 or p <= 0:
        return 0
    j = support(n, p)
    below = np.cumsum(pmf(np.asarray(n), j, p)) + (1.0 - tail(n, int(j[0]), p))
    return int(j[np.searchsorted(below, q - 1e-12)])


def _at_most(x: int, n: int, p: float) -> float:
    """P(X <= x), X ~ Binomial(n, p), over the support."""
    if x >= n:
        return 1.0
    return 1.0 - tail(n, x + 1, p) if x >= 0 else 0.0


def clopper_pearson_upper(x: int, n: int, level: float) -> float:
    """The exact one-sided upper confidence bound at `level` for a rate seen x times in n.

    Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial limits illustrated
    in the case of the binomial. Biometrika 26(4), 404-413: the rate u with P(X <= x; n, u) = 1 -
    level. With x = 0 it is 1 - (1 - level)^(1/n), about 3/n at 95% (the "rule of three").
    """
    if n == 0 or x >= n:
        return 1.0
    miss = 1.0 - level
    if x == 0:
        return -math.expm1(math.log(miss) / n)
    low, high = x / n, 1.0  # P(X <= x; u) falls as u rises: bisect to a double's precision
    for _ in range(200):
        mid = (low + high) / 2
        if mid in (low, high):
            break
        low, high = (mid, high) if _at_most(x, n, mid) > miss else (low, mid)
    return high


def clopper_pearson(k: int, n: int, level: float) -> tuple[float, float]:
    """The exact two-sided interval at `level` of a rate seen k times in n: each bound leaves
    (1 - level) / 2 in its tail (the Beta quantiles; its upper bound is `clopper_pearson_upper`
    at (1 + level) / 2)."""
    from scipy.stats import beta  # the judge's interval only: the gate's start-up goes without

    if n == 0:
        return 0.0, 1.0
    tail = (1 - level) / 2
    low = 0.0 if k == 0 else float(beta.ppf(tail, k, n - k + 1))
    high = 1.0 if k == n else float(beta.ppf(1 - tail, k + 1, n - k))
    return low, high


def cases_for_rate(max_rate: float, level: float) -> int:
    """The fewest cases, none failing, whose Clopper-Pearson upper bound at `level` is at most
    `max_rate`: the smallest n with (1 - level)^(1/n) >= 1 - max_rate."""
    if max_rate >= 1:
        return 0
    if max_rate <= 0:
        raise ValueError("no number of cases bounds a failure rate at zero")
    n = math.ceil(math.log(1 - level) / math.log1p(-max_rate))
    while n > 1 and clopper_pearson_upper(0, n - 1, level) <= max_rate:  # a float at the edge
        n -= 1
    while clopper_pearson_upper(0, n, level) > max_rate:
        n += 1
    return n
