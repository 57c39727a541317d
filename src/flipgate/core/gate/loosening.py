"""Was the gate loosened in the change under test? (SPEC §3.5 line 2, §8 `--base-*`)

Seed 001 forbids raising a threshold, or adding a case to the flaky list, in the change the gate
is judging: a threshold chosen while the gate is red is whatever lets the change through. So the
spec and the flaky list are compared with their base, as they stand where the change is going.
A stricter setting is fine; a looser one makes the comparison INVALID. What "looser" means, per
setting, is the table `docs/gate.md` prints from `ORDER`; each looser setting is a `Loosened`, its
code (`vocab.LooseningCode`) saying how, worded in `present/`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from flipgate.core.gate.flaky import FlakyList, load_flaky
from flipgate.core.gate.retired import NO_RETIREMENTS, Retirements
from flipgate.core.gate.spec import GateSpec, default_spec, load_spec
from flipgate.core.io.gitref import read_at_ref
from flipgate.core.vocab import BaseFile, LooseningCode, Statistic

# setting -> what makes it looser: the table of docs/gate.md (a test holds the two together)
ORDER: dict[str, str] = {
    "alpha": "lower: `p <= alpha` blocks, so a smaller alpha blocks less",
    "sets.NAME.margin": "higher: a larger net drop passes",
    "sets.NAME.flip_cap": "higher: more broken cases pass",
    "aggregate.ordinary, aggregate.safety": "`all` -> `majority`: a case passes on fewer "
    "repetitions",
    "infra.max_share, flaky.max_share": "higher: more infra failures or listed cases are tolerated",
    "escalation.runs": "lower: fewer repetitions settle an unclear verdict",
    "outcomes.fail_on": "an outcome taken out: it no longer fails a repetition",
    "outcomes.limits.false_negative_max": "higher, or `null` (no limit); `baseline` counts as the "
    "baseline run's false negatives",
    "outcomes.limits.zero_false_negative_rules": "a rule taken out",
    "outcomes.limits.inconclusive_max_share": "higher, or `null` (no limit)",
    "outcomes.limits.mirror_approved_max": "higher, or `null` (no limit); `baseline` counts as the "
    "baseline run's fewest confident approvals of borderline items on any rule",
    "outcomes.limits.escalations_max_per_run": "higher, or `null` (no limit)",
    "budgets.METRIC": "`max` or `max_increase` higher or removed, or the budget removed (a budget "
    "on another `stat` is another budget: the old one counts as removed)",
    "test": "`mid_p` -> `exact`: the exact test blocks on fewer counts",
    "clusters": "`none` -> `template`: counting each template once makes p larger",
    "family": "`per_path` -> `holm`: the paths share the look's boundary, each blocks at a "
    "smaller p",
    "looks": "a lower boundary at any of the first three looks: `rule: plain` -> `spend`, or a "
    "smaller `share` at the first",
    "safety.max_rate": "higher, or `null` (no bound asked)",
    "permutations": "`count` or `seed` changed: another draw of the budgets' swaps, which the "
    "change under test must not choose",
    "release.key": "changed: another key picks another winner",
    "release.repetitions, release.min_key": "lower, or `null` (nothing asked)",
}
LOOKS_COMPARED = 3  # looks whose boundaries are compared with the base's
AGGREGATE_STRICTNESS = {"all": 0, "majority": 1}  # higher: looser


@dataclass(frozen=True)
class BaseSource:
    """Where the base was read: at a git revision (`--base-ref`), or from the files named."""

    ref: str | None = None
    files: tuple[str, ...] = ()


@dataclass(frozen=True)
class GateBase:
    """The gate spec and flaky list where the change is going; None: that file was not given.
    `not_found`: the files in use here that the revision does not have (as git names them there):
    each stands for the defaults, and the comparison fails closed (`invalid.BaseNotFound`)."""

    spec: GateSpec | None
    flaky: FlakyList | None
    where: BaseSource
    not_found: tuple[tuple[BaseFile, str], ...] = ()


SettingValue = float | str | tuple[str, ...] | None  # as gate.yaml gives it; None: no limit


@dataclass(frozen=True)
class Loosened:
    """One setting looser here than at the base: how (its code), and both values as gate.yaml
    gives them (`removed`: the setting is gone here)."""

    code: LooseningCode
    setting: str  # its path in gate.yaml: `alpha`, `sets.full.margin`, `budgets.cost_usd.max`
    base: SettingValue
    here: SettingValue
    stat: Statistic | None = None  # a budget's statistic
    relative: bool = False  # a budget's `max_increase`: a change relative to the baseline
    baseline_false_negatives: int | None = None  # what `baseline` counts, where a side says it
    # what `baseline` counts for `mirror_approved_max`: the fewest on any rule of the baseline
    baseline_mirror_approved: int | None = None


@dataclass(frozen=True)
class AgainstBase:
    """What the comparison with the base found; `where` None: no base at all."""

    where: BaseSource | None
    unchecked: tuple[BaseFile, ...]  # the files no base was given for
    loosened: tuple[Loosened, ...]  # settings looser than the base's, with both values
    flaky_added: tuple[str, ...]  # entries not in the base's list
    not_found: tuple[tuple[BaseFile, str], ...] = ()  # in use here, not at the base revision


def against_base(
    base: GateBase | None,
    spec: GateSpec,
    flaky: FlakyList,
    baseline_false_negatives: int,
    retired: Retirements = NO_RETIREMENTS,
    baseline_mirror_approved: int = 0,
) -> AgainstBase:
    """Compare the spec and the flaky list with the base, each half that was given. The suite's
    retirements are checked where they are judged (`Retirements.added`); here they count only as
    unchecked, when the suite retires cases and no base manifest was given."""
    base_spec = base.spec if base is not None else None
    base_flaky = base.flaky if base is not None else None
    given: list[tuple[BaseFile, object]] = [("gate_spec", base_spec), ("flaky_list", base_flaky)]
    if retired.cases:  # with nothing retired, no retirement can be the change's
        given.append(("suite_manifest", retired.base))
    return AgainstBase(
        where=base.where if base is not None else None,
        unchecked=tuple(what for what, base_half in given if base_half is None),
        loosened=tuple(
            loosened(spec, base_spec, baseline_false_negatives, baseline_mirror_approved)
        )
        if base_spec is not None
        else (),
        flaky_added=tuple(flaky_added(flaky, base_flaky)) if base_flaky is not None else (),
        not_found=(*(base.not_found if base is not None else ()), *retired.base_not_found),
    )


def base_at_ref(ref: str, gate: Path | None, flaky: Path | None) -> GateBase:
    """The spec and flaky list as they are at `ref`, read with git from the repository holding
    them. A file that did not exist there stands for the defaults (an empty list); one in use
    here is also `not_found`: the change added or moved it (a workspace moved to another folder),
    and what it was at the base cannot be told. A path of None (no file to look for) leaves that
    half unchecked."""
    spec = flaky_list = None
    not_found: list[tuple[BaseFile, str]] = []
    if gate is not None:
        at = read_at_ref(gate, ref)
        spec = default_spec() if at.content is None else load_spec(at.name, at.content)
        if at.content is None and gate.exists():
            not_found.append(("gate_spec", str(at.name)))
    if flaky is not None:
        at = read_at_ref(flaky, ref)
        flaky_list = FlakyList() if at.content is None else load_flaky(at.name, at.content)
        if at.content is None and flaky.exists():
            not_found.append(("flaky_list", str(at.name)))
    return GateBase(spec, flaky_list, BaseSource(ref=ref), tuple(not_found))


def base_from_files(gate: Path | None, flaky: Path | None) -> GateBase:
    """The base named file by file (`--base-gate`, `--base-flaky`); None: not checked."""
    named = tuple(str(path) for path in (gate, flaky) if path is not None)
    return GateBase(
        load_spec(gate) if gate is not None else None,
        load_flaky(flaky) if flaky is not None else None,
        BaseSource(files=named),
    )


def loosened(
    spec: GateSpec, base: GateSpec, baseline_false_negatives: int, baseline_mirror_approved: int = 0
) -> list[Loosened]:
    """Each setting of `spec` looser than in `base`, with both values. `baseline` counts the
    baseline's false negatives, or for mirror approvals its fewest on any rule."""
    found: list[Loosened] = []
    if spec.alpha < base.alpha:
        found.append(Loosened("lowered", "alpha", base.alpha, spec.alpha))
    counted = {
        "outcomes.limits.false_negative_max": baseline_false_negatives,
        "outcomes.limits.mirror_approved_max": baseline_mirror_approved,
    }
    was, now = (_upper_bounds(s, counted) for s in (base, spec))
    for key, before in was.items():
        after = now.get(key)
        if before.limit is None:
            continue  # no limit at the base: nothing here can be looser
        if after is not None and after.limit is not None and after.limit <= before.limit:
            continue
        code: LooseningCode = (
            "removed" if after is None else "unlimited" if after.limit is None else "raised"
        )
        says_baseline = "baseline" in (before.value, None if after is None else after.value)
        found.append(
            Loosened(
                code,
                before.setting,
                before.value,
                None if after is None else after.value,
                stat=before.stat,
                relative=before.relative,
                baseline_false_negatives=baseline_false_negatives
                if says_baseline and before.setting == "outcomes.limits.false_negative_max"
                else None,
                baseline_mirror_approved=baseline_mirror_approved
                if says_baseline and before.setting == "outcomes.limits.mirror_approved_max"
                else None,
            )
        )
    for setting in ("ordinary", "safety"):
        before_rule = getattr(base, f"aggregate_{setting}")
        after_rule = getattr(spec, f"aggregate_{setting}")
        if AGGREGATE_STRICTNESS[after_rule] > AGGREGATE_STRICTNESS[before_rule]:
            found.append(Loosened("weakened", f"aggregate.{setting}", before_rule, after_rule))
    if spec.escalation_runs < base.escalation_runs:
        found.append(
            Loosened("lowered", "escalation.runs", base.escalation_runs, spec.escalation_runs)
        )
    found.extend(_statistics(spec, base))
    found.extend(_release(spec, base))
    for setting, before_set, after_set in (
        ("outcomes.fail_on", base.fail_on, spec.fail_on),
        (
            "outcomes.limits.zero_false_negative_rules",
            frozenset(base.limits.zero_false_negative_rules),
            frozenset(spec.limits.zero_false_negative_rules),
        ),
    ):
        if before_set - after_set:
            found.append(
                Loosened("taken_out", setting, tuple(sorted(before_set)), tuple(sorted(after_set)))
            )
    return found


def _statistics(spec: GateSpec, base: GateSpec) -> list[Loosened]:
    """The statistical settings of issue 27 that let more through than the base's."""
    found: list[Loosened] = []
    if (base.test, spec.test) == ("mid_p", "exact"):
        found.append(Loosened("weakened", "test", base.test, spec.test))
    if (base.clusters, spec.clusters) == ("none", "template"):
        found.append(Loosened("weakened", "clusters", base.clusters, spec.clusters))
    if (base.family, spec.family) == ("per_path", "holm"):
        found.append(Loosened("weakened", "family", base.family, spec.family))
    # compared at the base's alpha: a lower alpha is said once, as `alpha`
    if any(
        spec.looks.boundary(base.alpha, look) < base.looks.boundary(base.alpha, look)
        for look in range(1, LOOKS_COMPARED + 1)
    ):
        found.append(Loosened("lowered", "looks", _looks(base), _looks(spec)))
    if (base.permutation_count, base.permutation_seed) != (
        spec.permutation_count,
        spec.permutation_seed,
    ):
        was = f"{base.permutation_count} from seed {base.permutation_seed}"
        now = f"{spec.permutation_count} from seed {spec.permutation_seed}"
        found.append(Loosened("weakened", "permutations", was, now))
    return found


def _release(spec: GateSpec, base: GateSpec) -> list[Loosened]:
    """What `flipgate rank` asks of a winner (gate.yaml's `release`), asked less than the base."""
    found: list[Loosened] = []
    was, now = base.release, spec.release
    if was.key != now.key:
        found.append(Loosened("weakened", "release.key", was.key, now.key))
        return found  # a least key of another key is not comparable with the base's
    for setting, before, after in (
        ("release.repetitions", was.repetitions, now.repetitions),
        ("release.min_key", was.min_key, now.min_key),
    ):
        if before is not None and (after is None or after < before):
            found.append(
                Loosened("removed" if after is None else "lowered", setting, before, after)
            )
    return found


def _looks(spec: GateSpec) -> str:
    """`spend 0.5 (0.025, 0.0125, 0.00625)`: the rule and its first boundaries."""
    first = ", ".join(f"{spec.boundary(k):.3g}" for k in range(1, LOOKS_COMPARED + 1))
    share = f" {spec.looks.share:g}" if spec.looks.rule == "spend" else ""
    return f"{spec.looks.rule}{share} ({first})"


def flaky_added(flaky: FlakyList, base: FlakyList) -> list[str]:
    """The cases listed here and not in the base, in list order (a removal is a repair: fine)."""
    return [case for case in (e.case for e in flaky.entries) if case not in base.cases]


@dataclass(frozen=True)
class _Bound:
    """A setting where a larger value lets more through: its path, its limit (None: no limit)
    and its value as gate.yaml gives it."""

    setting: str
    limit: float | None
    value: SettingValue
    stat: Statistic | None = None
    relative: bool = False


def _upper_bounds(spec: GateSpec, counted: dict[str, int]) -> dict[str, _Bound]:
    """The settings where a larger value lets more through. Keyed by path, and a budget's by its
    statistic too: a budget on another statistic is another budget, the old one removed.
    `counted`: what `baseline` stands for, per setting that may say it."""
    bounds = [
        _Bound("infra.max_share", spec.infra_max_share, spec.infra_max_share),
        _Bound("flaky.max_share", spec.flaky_max_share, spec.flaky_max_share),
    ]
    for name in sorted({"smoke", "full", *spec.sets}):
        rule = spec.set_rule(name)
        bounds.append(_Bound(f"sets.{name}.margin", rule.margin, rule.margin))
        bounds.append(_Bound(f"sets.{name}.flip_cap", rule.flip_cap, rule.flip_cap))
    limits = spec.limits
    for setting, most in (
        ("outcomes.limits.false_negative_max", limits.false_negative_max),
        ("outcomes.limits.mirror_approved_max", limits.mirror_approved_max),
    ):
        bounds.append(_Bound(setting, counted[setting] if most == "baseline" else most, most))
    share = limits.inconclusive_max_share
    bounds.append(_Bound("outcomes.limits.inconclusive_max_share", share, share))
    queue = limits.escalations_max_per_run
    bounds.append(_Bound("outcomes.limits.escalations_max_per_run", queue, queue))
    rate = spec.safety_max_rate
    bounds.append(_Bound("safety.max_rate", rate, rate))
    for budget in spec.budgets:
        where = f"budgets.{budget.metric}"
        if budget.max is not None:
            bounds.append(_Bound(f"{where}.max", budget.max, budget.max, budget.stat))
        if budget.max_increase is not None:
            increase = budget.max_increase
            bounds.append(
                _Bound(f"{where}.max_increase", increase, increase, budget.stat, relative=True)
            )
    return {f"{b.setting}/{b.stat}": b for b in bounds}
