"""The gate's statistics beyond McNemar's p (mcnemar.py): the flips read by template (issue 13),
how big the change is, and the figures seed 001 quotes.

    sign_flip_p       the exact sign-flip test on clusters' net flips; McNemar's with singletons
    ClusterReading    the flips by case and by template, and the design effect of the clustering
    effect, tango_interval   (c - b) / n in points with Tango's score interval (bounds.py puts
                      it at the test's level)
    unpaired_p, unpaired_cases_needed       the reading of two separate samples that pairing
                      replaces (seed 001's calculator), and the other figures seed 001 quotes

What the gate can see (power) is power.py; bounds at the test's level, bounds.py; binomial sums,
binomial.py. Nothing here imports scipy: `flipgate gate` reports these on every run, and scipy's
import costs a CI job a second or more.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from statistics import NormalDist

import numpy as np

from flipgate.core.gate.binomial import binom_cdf, pmf
from flipgate.core.gate.mcnemar import FlipTest, flip_p

LEVEL = 0.95
Z95 = NormalDist().inv_cdf(0.5 + LEVEL / 2)
TANGO = "tango_score_cc"  # the effect's `method` in the JSON report: Tango's, corrected
POWER = 0.8  # the power sizes are planned for: "the smallest regression blocked 8 times in 10"


# --------------------------------------------------------------------------- cloned cases


def sign_flip_p(nets: Sequence[int], test: FlipTest = "exact") -> float:
    """The exact one-sided sign-flip (randomisation) test on clusters' net flips `b_k - c_k`.

    With no change each cluster's net is as likely to have either sign, whatever the cases inside
    it share; p is the share of the 2**K sign assignments whose total is at least the observed
    one (Fisher 1935's randomisation test; Good 2005, Permutation, Parametric and Bootstrap
    Tests of Hypotheses, ch. 3). It is the exact form of Durkalski et al. (2003)'s clustered
    McNemar statistic, (sum d_k)^2 / sum d_k^2, which refers that ratio to a chi-square. When
    every net is -1, 0 or +1 (one case per cluster) the sums are a binomial count: McNemar's p.
    With `test: mid_p` the observed total counts half, as in `mcnemar_mid_p`.
    """
    magnitudes = [abs(d) for d in nets if d]
    observed = sum(nets)
    if all(m == 1 for m in magnitudes):
        up = (len(magnitudes) + observed) // 2
        return flip_p(up, len(magnitudes) - up, test)
    dist, offset = sign_flip_distribution(magnitudes)
    at_least = dist[observed + offset :].sum()
    if test == "mid_p":
        at_least -= dist[observed + offset] / 2
    return float(min(at_least, 1.0))


FFT_WORK = 20_000_000  # clusters x largest total: beyond it, the distribution by FFT


def sign_flip_distribution(magnitudes: Sequence[int]) -> tuple[np.ndarray, int]:
    """P(sum s_k m_k = t) over fair signs s_k, for t = -offset..offset: (the array, offset).

    By convolution, one cluster at a time: each step writes only where the totals so far reach,
    into the other of two buffers padded by the largest step (the benchmark's 3,696 flipped
    templates take 14 ms, where rolling whole arrays took 110). Where that would cost more than
    `FFT_WORK` (an outcome limit's per-case differences on a large suite), equal magnitudes are
    taken together, each a scaled Binomial(n_m, 1/2), and multiplied in Fourier space: exact to
    about 1e-15 of the largest term, far below any p that is compared with alpha.
    """
    offset = int(sum(magnitudes))
    if not magnitudes:
        return np.ones(1), 0
    if len(magnitudes) * offset > FFT_WORK:
        return _by_fft(magnitudes, offset), offset
    pad = max(magnitudes)
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
    return dist[pad : pad + 2 * offset + 1], offset


def _by_fft(magnitudes: Sequence[int], offset: int) -> np.ndarray:
    size = 2 * offset + 1
    length = 1 << (size - 1).bit_length()
    spectrum = np.ones(length // 2 + 1, dtype=np.complex128)
    for m, count in Counter(magnitudes).items():
        term = np.zeros(2 * m * count + 1)  # m (2 X - count), X ~ Binomial(count, 1/2)
        term[:: 2 * m] = pmf(np.asarray(count), np.arange(count + 1), 0.5)
        spectrum *= np.fft.rfft(term, length)
    dist = np.clip(np.fft.irfft(spectrum, length)[:size], 0.0, None)
    return np.asarray(dist / dist.sum())


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

    @cached_property
    def design_effect(self) -> float:
        """How much the clustering widens the noise in the net flips: sum of each template's net
        squared over the flips (the clustered variance of the net under no change, Durkalski et
        al. 2003, over McNemar's b + c), never below 1 (Kish 1965, Survey Sampling, 8.2: clones
        that flip together carry less evidence than their count, never more). 1 with no
        template, or with nothing flipped."""
        if not self.flips:
            return 1.0
        squares = sum((t.broke - t.fixed) ** 2 for t in self.templates) + sum(self.loose)
        return max(1.0, squares / self.flips)

    def disagree(self, alpha: float) -> bool:
        return (self.p_by_case <= alpha) != (self.p_by_template <= alpha)


def read_clusters(
    templates: Sequence[TemplateFlips], loose: tuple[int, int], test: FlipTest = "exact"
) -> ClusterReading:
    """Both readings of the same flips: McNemar's by case, the sign-flip test by template."""
    ordered = tuple(sorted(templates, key=lambda t: (-t.flips, t.template)))
    broke = sum(t.broke for t in ordered) + loose[0]
    fixed = sum(t.fixed for t in ordered) + loose[1]
    nets = [t.broke - t.fixed for t in ordered] + [1] * loose[0] + [-1] * loose[1]
    return ClusterReading(ordered, loose, flip_p(broke, fixed, test), sign_flip_p(nets, test))


# --------------------------------------------------------------------------- effect


@dataclass(frozen=True)
class Effect:
    """The paired change in pass rate, candidate minus baseline, in points, with its interval.

    `level` is the two-sided level; each bound alone holds at (1 + level) / 2 (bounds.py: at the
    test's level, each bound one-sided at 1 - alpha). `design_effect` is the variance inflation
    the interval allowed for (1: independent cases); `matched` says it was set from the test's
    own p, where the interval would otherwise have disagreed with the verdict."""

    points: float
    low: float
    high: float
    method: str = TANGO
    level: float = LEVEL
    design_effect: float = 1.0
    matched: bool = False

    @property
    def one_sided(self) -> float:
        """The level of each bound alone."""
        return (1 + self.level) / 2

    @property
    def rules_out(self) -> float:
        """The regression, in points, beyond which the lower bound rules it out (0: the bound
        itself is a gain, every regression is ruled out)."""
        return max(0.0, -self.low)


def tango_interval(
    b: float, c: float, n: float, z: float = Z95, correction: float = 0.0
) -> tuple[float, float]:
    """Tango's score interval for the difference of paired proportions (c - b) / n.

    Tango, T. (1998). Equivalence test and confidence interval for the difference in proportions
    for the paired-sample design. Statistics in Medicine 17(8), 891-908. It holds every d that
    the score test of H0: P(fail -> pass) - P(pass -> fail) = d does not reject at level z:
    |c - b - n d| <= z sqrt(n (2 q + d (1 - d))), q the maximum-likelihood P(pass -> fail) under
    H0. Chosen because it uses only b, c and n, as the gate's test does (the cases that agree say
    nothing about the change), never leaves [-1, 1], keeps a width when nothing flipped, and holds
    its level at small n (Fagerland, Lydersen & Laake 2014, Recommended tests and confidence
    intervals for paired binomial proportions, Statistics in Medicine 33(16), 2850-2875).

    `correction` takes that many flips off |c - b - n d| before it is compared (a continuity
    correction, as Edwards 1948 takes one off McNemar's |b - c|): with 1, each bound holds its
    one-sided level, where the plain interval misses it (bounds.py, docs/statistics.md).
    """
    # Swapping b and c mirrors the difference: the upper limit is minus the swapped lower one.
    return _tango_lower(b, c, n, z, correction), -_tango_lower(c, b, n, z, correction)


def _tango_lower(b: float, c: float, n: float, z: float, correction: float) -> float:
    def excess(d: float) -> float:  # decreasing in d; zero at the lower limit
        w = -c - b + (2 * n - c + b) * d
        q = (math.sqrt(max(w * w + 8 * n * b * d * (1 - d), 0.0)) - w) / (4 * n)
        spread = z * math.sqrt(max(n * (2 * q + d * (1 - d)), 0.0))
        return c - b - correction - n * d - spread

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
    "TANGO",
    "ClusterReading",
    "Effect",
    "TemplateFlips",
    "below_threshold",
    "collapsed_pass",
    "read_clusters",
    "sign_flip_distribution",
    "sign_flip_p",
    "tango_interval",
    "unpaired_cases_needed",
    "unpaired_p",
]
