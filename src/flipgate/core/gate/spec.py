"""The gate spec (`gate.yaml`, SPEC §3): every field optional, every default written here once.

A key the spec does not know is an error, never a silent default: a typo such as `alpah: 0.01`
would otherwise gate at 0.05 while the team believes it gates at 0.01.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from flipgate.core.errors import InputError
from flipgate.core.exact import floor_of
from flipgate.core.gate.looks import LOOK_RULES, SHARE, SPEND, Looks
from flipgate.core.gate.mcnemar import FLIP_TESTS, FlipTest
from flipgate.core.gate.sources import check_pattern
from flipgate.core.io.yamlio import LineIndex, load_yaml
from flipgate.core.vocab import (
    AGGREGATES,
    PRICED_OUTCOMES,
    STATISTICS,
    WRONG_OUTCOMES,
    Aggregate,
    Statistic,
)

Clusters = Literal["none", "template"]
FamilyRule = Literal["holm", "per_path"]  # how the paths to BLOCK share alpha (family.py)
FAMILY_RULES: tuple[FamilyRule, ...] = get_args(FamilyRule)
# A setting's value as gate.yaml gives it, after the defaults: a list as a sorted tuple.
Setting = bool | int | float | str | tuple[str, ...] | None
MAX_WHOLE = 2**31 - 1  # margins, caps and counts: any sensible one fits, and every table holds it
MAX_ESCALATION_RUNS = 1000  # repetitions per flipped case and arm in a rerun plan
MAX_PERMUTATIONS = 1_000_000  # a budget's permutation test: beyond this, no more exact
DEFAULT_PERMUTATIONS, DEFAULT_SEED = 2000, 20261201  # its count and seed (excess.py)
# Fields of a results line that are never a number: a budget on one of them is a typo.
NOT_METRICS = frozenset(
    {"case", "rep", "safety", "template", "expected", "actual", "passed", "status", "infra"}
    | {"output", "reasons", "cached", "messages"}
)

DEFAULTS: dict[str, Any] = {
    "alpha": 0.05,
    "sets": {"smoke": {"margin": 1, "flip_cap": 4}, "full": {"margin": 2, "flip_cap": 10}},
    "aggregate": {"ordinary": "majority", "safety": "all"},
    "infra": {"max_share": 0.05},
    "flaky": {"max_share": 0.05},
    "escalation": {"runs": 5},
    "budgets": {},
    "permutations": {"count": DEFAULT_PERMUTATIONS, "seed": DEFAULT_SEED},
    "clusters": "template",
    "test": "exact",
    "looks": {"rule": "spend", "share": SHARE},
    "family": "holm",
    "safety": {"max_rate": None},
    "outputs": {"volatile": []},
    "ledger": None,
    "release": {"key": "resolved", "repetitions": None, "min_key": None},
    "outcomes": {
        "prices": {"false_negative": 400, "false_positive": 15, "inconclusive": 4},
        "limits": {
            "false_negative_max": "baseline",
            "zero_false_negative_rules": [],
            "inconclusive_max_share": None,
            "mirror_approved_max": None,
            "escalations_max_per_run": None,
        },
        "fail_on": list(WRONG_OUTCOMES),
    },
}


@dataclass(frozen=True)
class SetRule:
    """The margin and flip cap of one suite size (`smoke` or `full`)."""

    margin: int
    flip_cap: int


@dataclass(frozen=True)
class OutcomeLimits:
    false_negative_max: int | Literal["baseline"] | None
    zero_false_negative_rules: tuple[str, ...]
    inconclusive_max_share: float | None
    # Confident approvals of borderline items (mirrors decided negative), on each rule: at most the
    # baseline's on that rule, or a number; the seed's "one worth watching most closely".
    mirror_approved_max: int | Literal["baseline"] | None = None
    # The reviewers' queue: decisions escalated to a person in one repetition of the suite.
    escalations_max_per_run: int | None = None
    # Where `zero_false_negative_rules` is in gate.yaml: a rule no run has is reported there.
    zero_false_negative_line: int | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Budget:
    """A second metric's budget (SPEC §3 `budgets`): a statistic over the candidate's gradable
    repetitions of the paired cases, capped absolutely (`max`) or relative to the baseline's same
    statistic (`max_increase`, a fraction: 0.10 is +10%); both may be given, and both must hold."""

    metric: str
    stat: Statistic
    max: float | None = None
    max_increase: float | None = None
    line: int | None = field(default=None, compare=False)  # in gate.yaml, for errors


ReleaseKey = Literal["resolved", "mean"]


@dataclass(frozen=True)
class Release:
    """What `flipgate rank` asks of a winner beyond the gate (seed 003): the key it ranks by
    (`resolved`: the cases passing the release rule; `mean`: the share of cells passing, where
    the campaign's outcome is an average), the repetitions every case needs in every candidate
    (fewer: incomplete, never the winner), and the least key that may replace the incumbent (a
    count of cases, or a share of cells with `key: mean`)."""

    key: ReleaseKey = "resolved"
    repetitions: int | None = None
    min_key: float | None = None


@dataclass(frozen=True)
class GateSpec:
    alpha: float
    sets: dict[str, SetRule]
    aggregate_ordinary: Aggregate
    aggregate_safety: Aggregate
    infra_max_share: float
    flaky_max_share: float
    escalation_runs: int
    prices: dict[str, float]
    limits: OutcomeLimits
    fail_on: frozenset[str]
    budgets: tuple[Budget, ...] = ()
    # `template`: the significance rule counts each template once; a case without one counts
    # alone, so with no template in the runs it is McNemar's test by case
    clusters: Clusters = "template"
    test: FlipTest = "exact"  # `mid_p`: the observed count weighs half (mcnemar.py)
    looks: Looks = SPEND  # alpha spent across the looks at one change (looks.py)
    # the paths to BLOCK share each look's boundary (family.py); `per_path`: each on its own
    family: FamilyRule = "holm"
    safety_max_rate: float | None = None  # the never-event bound the safety cases must support
    permutation_count: int = DEFAULT_PERMUTATIONS  # a budget against noise (excess.py)
    permutation_seed: int = DEFAULT_SEED
    # Regexes of the volatile parts of an output (ids, dates): replaced before outputs compare.
    volatile: tuple[str, ...] = ()
    ledger: str | None = None  # where every gate run is recorded (`--ledger`): a path, or `git`
    release: Release = field(default_factory=Release)
    digest: str = ""
    source: Path | None = field(default=None, compare=False)
    # Every setting by its path (`sets.full.margin`), the defaults filled in: what a
    # pre-registration fixes, and names when the rule applied is not the rule registered.
    settings: dict[str, Setting] = field(default_factory=dict, compare=False)

    def set_rule(self, suite: str) -> SetRule:
        return self.sets.get(suite, self.sets["full"])

    def price(self, outcome: str) -> float:
        return self.prices.get(outcome, 0.0)

    def boundary(self, look: int = 1) -> float:
        """The p at or below which look `look` at a change blocks (looks.py)."""
        return self.looks.boundary(self.alpha, look)

    def flaky_cap(self, cases: int) -> int:
        """How many entries the flaky list may hold in a suite of `cases`: above, INVALID."""
        return floor_of(self.flaky_max_share, cases)


def default_spec() -> GateSpec:
    return _build(DEFAULTS, Path("<defaults>"), LineIndex(None), digest=_digest(b""))


def load_spec(path: Path | None, content: bytes | None = None) -> GateSpec:
    """Read `gate.yaml`; `None` gives the defaults. `content`: the file as read elsewhere (a git
    revision), `path` naming it."""
    if path is None:
        return default_spec()
    data, lines = load_yaml(path, content)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InputError(path, "a gate spec is a mapping of settings", line=1)
    merged = _merge(DEFAULTS, data, path, lines, "")
    raw = path.read_bytes() if content is None else content
    return _build(merged, path, lines, digest=_digest(raw))


def _digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


FREE_KEYS = ("prices", "budgets")  # mappings whose keys are the team's: outcomes, metrics


def _merge(
    defaults: dict[str, Any], given: dict[str, Any], path: Path, lines: LineIndex, prefix: str
) -> dict[str, Any]:
    """Overlay `given` on `defaults`, refusing keys the defaults do not have."""
    merged = dict(defaults)
    for key, value in given.items():
        dotted = f"{prefix}{key}"
        # `sets` too: a run's suite is smoke or full, so a set named otherwise (`ful`) never applies
        if key not in defaults:
            known = ", ".join(sorted(defaults))
            raise InputError(
                path,
                f"unknown setting (known here: {known})",
                line=lines.line(dotted),
                field=dotted,
            )
        base = defaults[key]
        if isinstance(base, dict) and key not in FREE_KEYS:
            if not isinstance(value, dict):
                raise InputError(path, "must be a mapping", line=lines.line(dotted), field=dotted)
            merged[key] = _merge(base, value, path, lines, dotted + ".")
        elif key in FREE_KEYS:
            if not isinstance(value, dict):
                raise InputError(path, "must be a mapping", line=lines.line(dotted), field=dotted)
            merged[key] = {**base, **value} if isinstance(base, dict) else value
        else:
            merged[key] = value
    return merged


def _build(data: dict[str, Any], path: Path, lines: LineIndex, *, digest: str) -> GateSpec:
    def fail(dotted: str, message: str) -> InputError:
        return InputError(path, message, line=lines.line(dotted), field=dotted)

    def number(dotted: str, value: Any, *, low: float, high: float | None = None) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise fail(dotted, f"must be a number, not {value!r}")
        if not math.isfinite(value):  # NaN compares false with every bound: it would pass them
            raise fail(dotted, f"must be a finite number, not {value!r}")
        if value < low or (high is not None and value > high):
            bound = f"between {low} and {high}" if high is not None else f">= {low}"
            raise fail(dotted, f"must be {bound}, not {value!r}")
        return float(value)

    def whole(dotted: str, value: Any, *, low: int, high: int = MAX_WHOLE) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise fail(dotted, f"must be a whole number from {low} to {high:,}, not {value!r}")
        return value

    def aggregate(dotted: str, value: Any) -> Aggregate:
        if value not in AGGREGATES:
            raise fail(dotted, f"must be 'majority' or 'all', not {value!r}")
        return "majority" if value == "majority" else "all"

    sets = {
        name: SetRule(
            margin=whole(f"sets.{name}.margin", rule["margin"], low=0),
            flip_cap=whole(f"sets.{name}.flip_cap", rule["flip_cap"], low=0),
        )
        for name, rule in data["sets"].items()
    }
    outcomes = data["outcomes"]
    prices: dict[str, float] = {}
    for name, value in outcomes["prices"].items():
        if name not in PRICED_OUTCOMES:
            raise fail(
                f"outcomes.prices.{name}",
                "unknown price (priced: false_negative, false_positive, inconclusive; "
                "a mirror is priced by its direction)",
            )
        prices[name] = number(f"outcomes.prices.{name}", value, low=0)

    limits = outcomes["limits"]

    def most(name: str) -> int | Literal["baseline"] | None:
        value = limits[name]
        if value in ("baseline", None):
            return "baseline" if value == "baseline" else None
        if not isinstance(value, int):  # `basline`: say that the word is allowed too
            raise fail(
                f"outcomes.limits.{name}",
                f"must be a whole number, `baseline` or null, not {value!r}",
            )
        return whole(f"outcomes.limits.{name}", value, low=0)

    fn_max = most("false_negative_max")
    queue = limits["escalations_max_per_run"]
    if queue is not None:
        queue = whole("outcomes.limits.escalations_max_per_run", queue, low=0)
    rules = limits["zero_false_negative_rules"] or []
    if not isinstance(rules, list) or not all(isinstance(r, str) for r in rules):
        raise fail("outcomes.limits.zero_false_negative_rules", "must be a list of rule names")
    share = limits["inconclusive_max_share"]
    if share is not None:
        share = number("outcomes.limits.inconclusive_max_share", share, low=0, high=1)

    fail_on = outcomes["fail_on"]
    if not isinstance(fail_on, list) or not all(o in WRONG_OUTCOMES for o in fail_on):
        raise fail(
            "outcomes.fail_on",
            f"must be a list drawn from {', '.join(WRONG_OUTCOMES)}, not {fail_on!r}",
        )

    budgets = []
    for metric, raw in data["budgets"].items():
        where = f"budgets.{metric}"
        if not isinstance(raw, dict):
            raise fail(where, "a budget is a mapping: {stat: ..., max: ...} or max_increase")
        if metric in NOT_METRICS:
            raise fail(where, f"`{metric}` is not a numeric field of the results lines")
        unknown = sorted(set(raw) - {"stat", "max", "max_increase"})
        if unknown:
            raise fail(f"{where}.{unknown[0]}", "unknown setting (known: stat, max, max_increase)")
        stat = raw.get("stat")
        if stat not in STATISTICS:
            raise fail(f"{where}.stat", f"must be one of {', '.join(STATISTICS)}, not {stat!r}")
        if raw.get("max") is None and raw.get("max_increase") is None:
            raise fail(where, "needs a limit: `max` (absolute) or `max_increase` (vs the baseline)")
        cap = raw.get("max")
        increase = raw.get("max_increase")
        budgets.append(
            Budget(
                metric=str(metric),
                stat=stat,
                max=None if cap is None else number(f"{where}.max", cap, low=0),
                max_increase=None
                if increase is None
                else number(f"{where}.max_increase", increase, low=-1),
                line=lines.line(where),
            )
        )
    clusters = data["clusters"]
    if clusters not in ("none", "template"):
        raise fail("clusters", f"must be 'none' or 'template', not {clusters!r}")
    ledger = data["ledger"]
    if ledger is not None and (not isinstance(ledger, str) or not ledger.strip()):
        raise fail("ledger", f"must be a file's path or `git`, not {ledger!r}")
    test = data["test"]
    if test not in FLIP_TESTS:
        raise fail("test", f"must be one of {', '.join(FLIP_TESTS)}, not {test!r}")
    looks = data["looks"]
    if looks["rule"] not in LOOK_RULES:
        raise fail("looks.rule", f"must be one of {', '.join(LOOK_RULES)}, not {looks['rule']!r}")
    look_share = number("looks.share", looks["share"], low=0, high=1)
    if look_share == 0:  # no look could ever block on significance
        raise fail("looks.share", "must be above 0: a share of 0 spends no alpha at any look")
    family = data["family"]
    if family not in FAMILY_RULES:
        raise fail("family", f"must be one of {', '.join(FAMILY_RULES)}, not {family!r}")
    max_rate = data["safety"]["max_rate"]
    if max_rate is not None:
        max_rate = number("safety.max_rate", max_rate, low=0, high=1)
        if not 0 < max_rate < 1:
            raise fail("safety.max_rate", f"must be above 0 and below 1, not {max_rate!r}")
    permutations = data["permutations"]
    release = data["release"]
    if release["key"] not in ("resolved", "mean"):
        raise fail("release.key", f"must be 'resolved' or 'mean', not {release['key']!r}")
    reps = release["repetitions"]
    least = release["min_key"]
    if least is not None:  # a count of cases, or with `key: mean` a share of cells
        least = (
            number("release.min_key", least, low=0, high=1)
            if release["key"] == "mean"
            else whole("release.min_key", least, low=0)
        )

    volatile = data["outputs"]["volatile"] or []
    if not isinstance(volatile, list) or not all(isinstance(v, str) for v in volatile):
        raise fail("outputs.volatile", "must be a list of regular expressions (strings)")
    for pattern in volatile:
        problem = check_pattern(pattern)
        if problem is not None:
            raise fail("outputs.volatile", f"{pattern!r} is not a usable pattern: {problem}")

    return GateSpec(
        alpha=number("alpha", data["alpha"], low=0, high=1),
        sets=sets,
        aggregate_ordinary=aggregate("aggregate.ordinary", data["aggregate"]["ordinary"]),
        aggregate_safety=aggregate("aggregate.safety", data["aggregate"]["safety"]),
        infra_max_share=number("infra.max_share", data["infra"]["max_share"], low=0, high=1),
        flaky_max_share=number("flaky.max_share", data["flaky"]["max_share"], low=0, high=1),
        escalation_runs=whole(
            "escalation.runs", data["escalation"]["runs"], low=1, high=MAX_ESCALATION_RUNS
        ),
        prices=prices,
        limits=OutcomeLimits(
            fn_max,
            tuple(rules),
            share,
            most("mirror_approved_max"),
            queue,
            zero_false_negative_line=lines.line("outcomes.limits.zero_false_negative_rules"),
        ),
        fail_on=frozenset(fail_on),
        budgets=tuple(budgets),
        clusters="template" if clusters == "template" else "none",
        volatile=tuple(volatile),
        test="mid_p" if test == "mid_p" else "exact",
        looks=Looks("plain" if looks["rule"] == "plain" else "spend", look_share),
        family="per_path" if family == "per_path" else "holm",
        safety_max_rate=max_rate,
        permutation_count=whole(
            "permutations.count", permutations["count"], low=100, high=MAX_PERMUTATIONS
        ),
        permutation_seed=whole("permutations.seed", permutations["seed"], low=0),
        ledger=ledger,
        release=Release(
            "mean" if release["key"] == "mean" else "resolved",
            None if reps is None else whole("release.repetitions", reps, low=1),
            least,
        ),
        digest=digest,
        source=path,
        settings=dict(_flat(data)),
    )


def _flat(data: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, Setting]]:
    """Each leaf of the merged settings by its dotted path; a list sorted, as its order means
    nothing (`fail_on`, `zero_false_negative_rules`)."""
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, dict):
            yield from _flat(value, dotted + ".")
        elif isinstance(value, list):
            yield dotted, tuple(sorted(str(item) for item in value))
        else:
            yield dotted, value
