"""The gate's statistics beyond McNemar's p (mcnemar.py): how big the change is, what the gate
can see, and the flips read by template (issue 13).

    sign_flip_p       the exact sign-flip test on clusters' net flips; McNemar's with singletons
    effect            (c - b) / n in points, with Tango's 95% score interval for paired proportions
    verdict_chances   exact P(BLOCK), P(INCONCLUSIVE), P(PASS) of a true regression under the
                      gate's own flip rule (significance, margin, flip cap)
    smallest_blocked, paired_cases_needed   the same rule solved for a regression or for cases
    unpaired_p, unpaired_cases_needed       the reading of two separate samples that pairing
                      replaces (seed 001's calculator), and the other figures seed 001 quotes

Nothing here imports scipy: `flipgate gate` reports the effect and the power on every run, and
scipy's import costs a CI job a second or more. Binomial sums use a table of log-factorials and
keep only the terms within `WINDOW_SD` standard deviations of the mean; the mass left out (under
1e-18) is far below any figure shown. Where a float tail falls near alpha, whether a count blocks
is settled by `mcnemar_p` itself, so the chances follow the gate's rule to the last case.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from statistics import NormalDist

import numpy as np

from flipgate.core.gate.mcnemar import mcnemar_p

LEVEL = 0.95
Z95 = NormalDist().inv_cdf(0.5 + LEVEL / 2)
TANGO = "tango_score"  # the effect's `method` in the JSON report
REGRESSIONS = (1.0, 2.0, 3.0, 5.0)  # points: the regressions every report gives chances for
POWER = 0.8  # "the smallest regression blocked 8 times in 10"
RESOLUTION = 0.1  # points: the step to which the smallest blocked regression is found
WINDOW_SD = 9.0  # binomial terms kept either side of the mean, in standard deviations


# --------------------------------------------------------------------------- cloned cases


def sign_flip_p(nets: Sequence[int]) -> float:
    """The exact one-sided sign-flip (randomisation) test on clusters' net flips `b_k - c_k`.

    With no change each cluster's net is as likely to have either sign, whatever the cases inside
    it share; p is the share of the 2**K sign assignments whose total is at least the observed
    one (Fisher 1935's randomisation test; Good 2005, Permutation, Parametric and Bootstrap
    Tests of Hypotheses, ch. 3). It is the exact form of Durkalski et al. (2003)'s clustered
    McNemar statistic, (sum d_k)^2 / sum d_k^2, which refers that ratio to a chi-square. When
    every net is -1, 0 or +1 (one case per cluster) the sums are a binomial count: McNemar's p.
    """
    magnitudes = [abs(d) for d in nets if d]
    observed = sum(nets)
    if all(m == 1 for m in magnitudes):
        up = (len(magnitudes) + observed) // 2
        return mcnemar_p(up, len(magnitudes) - up)
    if len(magnitudes) * sum(magnitudes) <= DIRECT_WORK:
        return _sign_flip_direct(magnitudes, observed)
    return _sign_flip_tilted(Counter(magnitudes), observed)


# Up to this many steps (clusters x the widest total), the distribution is convolved cluster by
# cluster, as small suites' reports always were; past it, that work grows with the square of the
# flips (a million cases: 37,000 flipped templates, 3 s), and the tilted sum below takes 20 ms.
DIRECT_WORK = 1 << 24


def _sign_flip_direct(magnitudes: list[int], observed: int) -> float:
    """The distribution of sum s_k |d_k| over fair signs, by convolution: index = total + centre.
    Each step writes only where the totals so far reach, into the other of two buffers padded
    by the largest step."""
    offset, pad = sum(magnitudes), max(magnitudes)
    centre = offset + pad
    dist, spare = np.zeros(2 * centre + 1), np.zeros(2 * centre + 1)
    dist[centre] = 1.0
    reach = 0
    for m in magnitudes:
        reach += m
        low, high = centre - reach, centre + reach + 1
        np.add(dist[low - m : high - m], dist[low + m : high + m], out=spare[low:high])
        spare[low:high] *= 0.5
        dist, spare = spare, dist
    return float(min(dist[centre + observed : centre + offset + 1].sum(), 1.0))


def _sign_flip_tilted(clusters: Counter[int], observed: int) -> float:
    """The same tail, summed where it lies: under signs tilted towards +, P'(s_k = +1) =
    1 / (1 + e^(-2 theta m_k)), the total's distribution has its bulk at the observed total, and
    P(T = x) = M(theta) e^(-theta x) P'(T = x), M(theta) = prod cosh(theta m_k) (exponential
    tilting; Siegmund 1976, Importance sampling in the Monte Carlo study of sequential tests, Ann.
    Statist. 4(4)). Under the tilt, the clusters of one magnitude m add m (2 j - n) for j ~
    Binomial(n, q_m): each kept within `WINDOW_SD` standard deviations (normalised there: the
    mass left out is under 1e-18 of it), the sum's distribution is their product in Fourier
    space, and weighed back by M(theta) e^(-theta x) <= 1 the tail keeps its relative precision
    (1e-12) however small p is."""
    offset = sum(m * n for m, n in clusters.items())
    if observed >= offset:  # every sign +: one assignment of 2**K
        return 0.5 ** sum(clusters.values()) if observed == offset else 0.0

    def mean(theta: float) -> float:
        return sum(n * m * math.tanh(theta * m) for m, n in clusters.items())

    theta = 0.0  # a total at or below the null's mean: p is large, no tilt is needed
    if observed > 0:
        high = 1.0
        while mean(high) < observed:
            high *= 2
        theta = _bisect(lambda t: observed - mean(t), 0.0, high)
    lowest, parts = 0, []
    for m, n in sorted(clusters.items()):
        j = _support(n, 1.0 / (1.0 + math.exp(-2 * theta * m)))
        # log P'(j) up to a constant, term to term: C(n, j+1) / C(n, j) and the odds e^(2 theta m)
        steps = np.log((n - j[:-1]) / j[1:]) + 2 * theta * m
        log_pmf = np.concatenate(([0.0], np.cumsum(steps)))
        pmf = np.exp(log_pmf - log_pmf.max())
        part = np.zeros(2 * m * (j.size - 1) + 1)
        part[:: 2 * m] = pmf / pmf.sum()
        parts.append(part)
        lowest += m * (2 * int(j[0]) - n)
    size = sum(part.size - 1 for part in parts) + 1
    width = 1 << (size - 1).bit_length()
    spectrum = np.ones(width // 2 + 1, dtype=np.complex128)
    for part in parts:
        spectrum *= np.fft.rfft(part, width)
    tilted = np.clip(np.fft.irfft(spectrum, width)[:size], 0.0, None)
    totals = lowest + np.arange(size)
    log_m = sum(
        n * (theta * m + math.log1p(math.exp(-2 * theta * m)) - math.log(2))
        for m, n in clusters.items()
    )
    tail = totals >= observed
    return float(min((tilted[tail] * np.exp(log_m - theta * totals[tail])).sum(), 1.0))


CLONED_FLIPS = 3  # a template with this many flips, and a quarter of all, holds cloned cases


@dataclass(frozen=True)
class TemplateFlips:
    """The flipped cases of one template: `broke` pass -> fail, `fixed` fail -> pass."""

    template: str
    broke: int
    fixed: int

    @property
    def flips(self) -> int:
        return self.broke + self.fixed


@dataclass(frozen=True)
class ClusterReading:
    """The flips read by case and by template; a case without a template is its own cluster."""

    templates: tuple[TemplateFlips, ...]  # templates with a flip, most flips first
    loose: tuple[int, int]  # (broke, fixed) among flipped cases without a template
    p_by_case: float
    p_by_template: float

    # Cached: the power panel asks on every render, and a suite may have thousands of templates.
    @cached_property
    def flips(self) -> int:
        return sum(t.flips for t in self.templates) + sum(self.loose)

    @property
    def clusters(self) -> int:
        """How many clusters hold a flip."""
        return len(self.templates) + sum(self.loose)

    @cached_property
    def concentrated(self) -> TemplateFlips | None:
        """The template the flips crowd into, if any: cloned cases that flipped together."""
        top = self.templates[0] if self.templates else None
        if top is None or top.flips < CLONED_FLIPS or 4 * top.flips < self.flips:
            return None
        return top

    def disagree(self, alpha: float) -> bool:
        return (self.p_by_case <= alpha) != (self.p_by_template <= alpha)


def read_clusters(templates: Sequence[TemplateFlips], loose: tuple[int, int]) -> ClusterReading:
    """Both readings of the same flips: McNemar's by case, the sign-flip test by template."""
    ordered = tuple(sorted(templates, key=lambda t: (-t.flips, t.template)))
    broke = sum(t.broke for t in ordered) + loose[0]
    fixed = sum(t.fixed for t in ordered) + loose[1]
    nets = [t.broke - t.fixed for t in ordered] + [1] * loose[0] + [-1] * loose[1]
    return ClusterReading(ordered, loose, mcnemar_p(broke, fixed), sign_flip_p(nets))


# --------------------------------------------------------------------------- effect


@dataclass(frozen=True)
class Effect:
    """The paired change in pass rate, candidate minus baseline, in points, with its interval."""

    points: float
    low: float
    high: float
    method: str = TANGO
    level: float = LEVEL

    def words(self) -> str:
        """`-3.0 points (95% CI -6.4 to +0.5)`."""
        return (
            f"{self.points:+.1f} points ({self.level:.0%} CI {self.low:+.1f} to {self.high:+.1f})"
        )


def effect(b: int, c: int, n: int) -> Effect | None:
    """(c - b) / n, with Tango's score interval; None when no case was counted."""
    if n == 0:
        return None
    low, high = tango_interval(b, c, n)
    return Effect(100 * (c - b) / n, 100 * low, 100 * high)


def tango_interval(b: int, c: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Tango's score interval for the difference of paired proportions (c - b) / n.

    Tango, T. (1998). Equivalence test and confidence interval for the difference in proportions
    for the paired-sample design. Statistics in Medicine 17(8), 891-908. It holds every d that
    the score test of H0: P(fail -> pass) - P(pass -> fail) = d does not reject at level z:
    |c - b - n d| <= z sqrt(n (2 q + d (1 - d))), q the maximum-likelihood P(pass -> fail) under
    H0. Chosen because it uses only b, c and n, as the gate's test does (the cases that agree say
    nothing about the change), never leaves [-1, 1], keeps a width when nothing flipped, and holds
    its level at small n (Fagerland, Lydersen & Laake 2014, Recommended tests and confidence
    intervals for paired binomial proportions, Statistics in Medicine 33(16), 2850-2875).
    """
    # Swapping b and c mirrors the difference: the upper limit is minus the swapped lower one.
    return _tango_lower(b, c, n, z), -_tango_lower(c, b, n, z)


def _tango_lower(b: int, c: int, n: int, z: float) -> float:
    def excess(d: float) -> float:  # decreasing in d; zero at the lower limit
        w = -c - b + (2 * n - c + b) * d
        q = (math.sqrt(max(w * w + 8 * n * b * d * (1 - d), 0.0)) - w) / (4 * n)
        return c - b - n * d - z * math.sqrt(max(n * (2 * q + d * (1 - d)), 0.0))

    return _bisect(excess, -1.0, (c - b) / n)


def _bisect(f: Callable[[float], float], low: float, high: float) -> float:
    """The root of a decreasing f with f(low) >= 0 >= f(high), to a double's precision."""
    if f(low) <= 0:
        return low
    for _ in range(200):
        mid = (low + high) / 2
        if mid in (low, high):
            break
        if f(mid) > 0:
            low = mid
        else:
            high = mid
    return high


# --------------------------------------------------------------------------- binomial sums


@lru_cache(maxsize=8)
def _log_factorials(size: int) -> np.ndarray:
    return np.concatenate(([0.0], np.cumsum(np.log(np.arange(1, size + 1, dtype=np.float64)))))


def _pmf(n: np.ndarray, j: np.ndarray, p: float) -> np.ndarray:
    """P(X = j), X ~ Binomial(n, p), elementwise; zero where j is outside 0..n."""
    n, j = np.asarray(n, dtype=np.int64), np.asarray(j, dtype=np.int64)
    inside = (j >= 0) & (j <= n)
    if p in (0.0, 1.0):
        return np.asarray(inside & (j == (0 if p == 0 else n)), dtype=np.float64)
    safe = np.where(inside, j, 0)
    top = int(n.max(initial=1))
    table = _log_factorials(max(1024, 1 << top.bit_length()))  # few sizes, so few cached
    log = (
        table[n] - table[safe] - table[n - safe] + safe * math.log(p) + (n - safe) * math.log1p(-p)
    )
    return np.where(inside, np.exp(log), 0.0)


def _half_pmf(n: int, j: int) -> float:
    """P(X = j), X ~ Binomial(n, 1/2), for one count (a loop's step, where arrays cost more)."""
    if not 0 <= j <= n:
        return 0.0
    return math.exp(
        math.lgamma(n + 1) - math.lgamma(j + 1) - math.lgamma(n - j + 1) - n * math.log(2)
    )


def _support(n: int, p: float) -> np.ndarray:
    """The counts of Binomial(n, p) within WINDOW_SD standard deviations of its mean."""
    mean, sd = n * p, math.sqrt(n * p * (1 - p))
    low = max(0, math.floor(mean - WINDOW_SD * sd) - 1)
    return np.arange(low, min(n, math.ceil(mean + WINDOW_SD * sd) + 1) + 1)


def _tail(n: int, t: int, p: float) -> float:
    """P(X >= t), X ~ Binomial(n, p), over the support (the rest is below any figure shown)."""
    j = _support(n, p)
    return float(_pmf(np.asarray(n), j[j >= t], p).sum()) if t > 0 else 1.0


def _tails_along(ks: np.ndarray, ts: np.ndarray, p: float) -> np.ndarray:
    """P(Binomial(k, p) >= t_k) for consecutive k whose threshold t_k steps by 0 or 1.

    One more trial moves the tail by a single term: T_{k+1}(t) = T_k(t) + p pmf_k(t - 1), and
    T_{k+1}(t + 1) = T_k(t) - (1 - p) pmf_k(t). So a whole run of k costs one sum and a cumsum.
    """
    first = _tail(int(ks[0]), int(ts[0]), p)
    k, t = ks[:-1], ts[:-1]
    moves = np.where(np.diff(ts) == 0, p * _pmf(k, t - 1, p), -(1 - p) * _pmf(k, t, p))
    return np.clip(first + np.concatenate(([0.0], np.cumsum(moves))), 0.0, 1.0)


# --------------------------------------------------------------------------- what the gate can see


@dataclass(frozen=True)
class FlipRule:
    """The part of the verdict a flip count decides (SPEC 3.5 lines 3, 6 and 7)."""

    alpha: float
    margin: int
    flip_cap: int


@dataclass(frozen=True)
class Chances:
    """How often a true regression of `points` ends as each verdict."""

    points: float
    block: float
    inconclusive: float
    passes: float

    def to_json(self) -> dict[str, float]:
        return {
            "points": self.points,
            "block": self.block,
            "inconclusive": self.inconclusive,
            "pass": self.passes,
        }


@lru_cache(maxsize=64)
def critical_flips(first: int, last: int, alpha: float) -> tuple[int, ...]:
    """For k = first..last flips, the smallest b with mcnemar_p(b, k - b) <= alpha (k + 1: none).

    Adding a flip moves the critical b by 0 or 1, and its tail by one term (as in
    `_tails_along`), so the run is walked once; a tail within rounding of alpha is settled by
    `mcnemar_p` itself.
    """
    if alpha >= 1:
        return (0,) * (last - first + 1)

    def settle(k: int, b: int) -> int:
        while b > 1 and mcnemar_p(b - 1, k - b + 1) <= alpha:
            b -= 1
        while b <= k and mcnemar_p(b, k - b) > alpha:
            b += 1
        return b

    j = _support(first, 0.5)
    tails = np.cumsum(_pmf(np.asarray(first), j, 0.5)[::-1])[::-1]
    blocks = j[(tails <= alpha) & (j >= 1)]
    b = settle(first, int(blocks[0]) if len(blocks) else first + 1)
    tail = _tail(first, b, 0.5)
    crit = [b]
    for k in range(first, last):
        stay = tail + 0.5 * _half_pmf(k, b - 1)
        if stay <= alpha:
            tail = stay
        else:
            tail -= 0.5 * _half_pmf(k, b)
            b += 1
        if min(abs(tail - alpha), abs(stay - alpha)) <= 1e-9 * alpha:
            b = settle(k + 1, b)
            tail = mcnemar_p(b, k + 1 - b) if b <= k + 1 else 0.0
        crit.append(b)
    return tuple(crit)


def verdict_chances(cases: int, flip_share: float, points: float, rule: FlipRule) -> Chances:
    """Exact chances of each verdict when the pass rate truly drops by `points`.

    The model: each of `cases` independent paired cases flips pass -> fail with probability
    p_b and fail -> pass with p_c, where p_b + p_c is the flip share (the noise, held at the
    observed one) and p_b - p_c the regression; a regression larger than the flip share flips
    only one way. Then k = b + c ~ Binomial(cases, p_b + p_c) and b | k ~ Binomial(k, p_b /
    (p_b + p_c)), and each (b, k - b) meets the gate's rule: BLOCK when p <= alpha, else PASS
    when b - c <= margin and b <= flip cap, else INCONCLUSIVE. Safety, validity, outcome limits
    and budgets are not flip counts and are left out.
    """
    d = points / 100
    share = min(max(flip_share, d), 1.0)
    if cases == 0 or share == 0:  # nothing flips: b = c = 0, p = 1, within any margin
        return Chances(points, 0.0, 0.0, 1.0)
    ks = _support(cases, share)
    k_pmf = _pmf(np.asarray(cases), ks, share)
    crit = np.array(critical_flips(int(ks[0]), int(ks[-1]), rule.alpha))
    pass_max = np.minimum(np.minimum(rule.flip_cap, (ks + rule.margin) // 2), crit - 1)
    broke = (share + d) / 2 / share  # P(pass -> fail | flipped)
    block = _tails_along(ks, crit, broke)
    passes = 1.0 - _tails_along(ks, pass_max + 1, broke)
    p_block = float(np.clip((k_pmf * block).sum(), 0.0, 1.0))
    p_pass = float(np.clip((k_pmf * passes).sum(), 0.0, 1.0 - p_block))
    return Chances(points, p_block, 1.0 - p_block - p_pass, p_pass)


def smallest_blocked(
    cases: int, flip_share: float, rule: FlipRule, power: float = POWER
) -> float | None:
    """The smallest regression, in points to `RESOLUTION`, blocked with at least `power`.

    P(BLOCK) rises with the regression: the steps double until one is blocked often enough,
    then halve back between the last two (small regressions first: they cost the least).
    """
    top = round(100 / RESOLUTION)

    def blocked(step: int) -> bool:
        return verdict_chances(cases, flip_share, step * RESOLUTION, rule).block >= power

    if cases == 0:
        return None
    low, high = 0, 1
    while not blocked(high):
        if high == top:
            return None
        low, high = high, min(2 * high, top)
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if blocked(mid) else (mid, high)
    return round(high * RESOLUTION, 1)


def paired_cases_needed(
    flip_share: float, points: float, rule: FlipRule, power: float = POWER, limit: int = 10**7
) -> int | None:
    """The fewest paired cases whose gate blocks a `points` regression with at least `power`.

    P(BLOCK) saw-tooths a little with the case count (the critical b moves in whole steps), so
    this is where the rising trend first reaches `power`, found by doubling and halving.
    """

    def enough(n: int) -> bool:
        return verdict_chances(n, flip_share, points, rule).block >= power

    high = 8
    while not enough(high):
        high *= 2
        if high > limit:
            return None
    low = high // 2
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if enough(mid) else (mid, high)
    return high


@dataclass(frozen=True)
class Power:
    """What the gate can see on these cases: each verdict's chances for a few regressions."""

    cases: int
    flip_share: float
    chances: tuple[Chances, ...]
    smallest_blocked: float | None  # points: blocked with `power`, None if no size ever is
    power: float = POWER

    def to_json(self) -> dict[str, object]:
        return {
            "cases": self.cases,
            "flip_share": self.flip_share,
            "regressions": [chance.to_json() for chance in self.chances],
            "power": self.power,
            "smallest_blocked": self.smallest_blocked,
            "assumes": "independent cases, flip share held at the one observed",
        }

    def plainly(self) -> str:
        """What a PASS is worth: `a regression of 4.6 points or more would have been blocked 8
        times in 10; a 2-point one would pass 3 times in 10`."""
        times = round(10 * self.power)
        if self.smallest_blocked is None:
            seen = f"no regression, however large, would be blocked {times} times in 10 on {self.cases} cases"
        else:
            seen = (
                f"a regression of {self.smallest_blocked:g} points or more would have been "
                f"blocked {times} times in 10"
            )
        passing = [c for c in self.chances if round(10 * c.passes) >= 3]
        if passing:
            worst = passing[-1]
            seen += (
                f"; a {worst.points:g}-point one would pass {round(10 * worst.passes)} times in 10"
            )
        return seen


def gate_power(b: int, c: int, cases: int, rule: FlipRule) -> Power:
    """The chances of REGRESSIONS, and the smallest blocked, at the flip share observed."""
    share = (b + c) / cases if cases else 0.0
    return Power(
        cases,
        share,
        tuple(verdict_chances(cases, share, points, rule) for points in REGRESSIONS),
        smallest_blocked(cases, share, rule),
    )


# --------------------------------------------------------------------------- unpaired and repeats


def unpaired_p(passes_a: int, n_a: int, passes_b: int, n_b: int) -> float:
    """Two-sided p of the pooled two-proportion z test: two runs read as separate samples."""
    pooled = (passes_a + passes_b) / (n_a + n_b)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n_a + 1 / n_b))
    if se == 0:
        return 1.0
    z = abs(passes_a / n_a - passes_b / n_b) / se
    return 2 * (1 - NormalDist().cdf(z))


def unpaired_cases_needed(
    rate: float, points: float, alpha: float, power: float = POWER, *, sides: int = 2
) -> int:
    """Cases per version for two separate samples to detect a drop of `points` from `rate`.

    The textbook normal-approximation size of the two-proportion test (Fleiss, Levin & Paik 2003,
    Statistical Methods for Rates and Proportions, 4.2, without continuity correction).
    """
    p1, p2 = rate, rate - points / 100
    mean = (p1 + p2) / 2
    normal = NormalDist()
    z_a, z_b = normal.inv_cdf(1 - alpha / sides), normal.inv_cdf(power)
    spread = z_a * math.sqrt(2 * mean * (1 - mean)) + z_b * math.sqrt(p1 * (1 - p1) + p2 * (1 - p2))
    return math.ceil((spread / (p1 - p2)) ** 2)


def binom_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k), X ~ Binomial(n, p), summed exactly term by term (small n only)."""
    return math.fsum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(0, k + 1))


def binom_quantile(n: int, p: float, q: float) -> int:
    """The smallest x with P(X <= x) >= q, X ~ Binomial(n, p)."""
    if n == 0 or p <= 0:
        return 0
    j = _support(n, p)
    below = np.cumsum(_pmf(np.asarray(n), j, p)) + (1.0 - _tail(n, int(j[0]), p))
    return int(j[np.searchsorted(below, q - 1e-12)])


def below_threshold(cases: int, rate: float, threshold: float) -> float:
    """How often one run of a suite that truly passes `rate` lands under `threshold`."""
    under = math.ceil(threshold * cases) - 1  # passes below the threshold: at most this many
    return binom_cdf(under, cases, rate) if under >= 0 else 0.0


def collapsed_pass(rate: float, reps: int, rule: str) -> float:
    """How often a case that passes each repetition with `rate` passes its collapsed verdict.

    `majority` (a tie fails), `all` (the safety rule) or `any` (rerun until green).
    """
    if rule == "all":
        return rate**reps
    if rule == "any":
        return 1 - (1 - rate) ** reps
    return 1 - binom_cdf(reps // 2, reps, rate)


__all__ = [
    "CLONED_FLIPS",
    "LEVEL",
    "POWER",
    "REGRESSIONS",
    "TANGO",
    "Chances",
    "ClusterReading",
    "Effect",
    "FlipRule",
    "Power",
    "TemplateFlips",
    "below_threshold",
    "binom_quantile",
    "collapsed_pass",
    "critical_flips",
    "effect",
    "gate_power",
    "paired_cases_needed",
    "read_clusters",
    "sign_flip_p",
    "smallest_blocked",
    "tango_interval",
    "unpaired_cases_needed",
    "unpaired_p",
    "verdict_chances",
]
