"""Was the gate loosened in the change under test? (SPEC §3.5 line 2, §8 `--base-*`)

Seed 001 forbids raising a threshold, or adding a case to the flaky list, in the change the gate
is judging: a threshold chosen while the gate is red is whatever lets the change through. So the
spec and the flaky list are compared with their base, as they stand where the change is going.
A stricter setting is fine; a looser one makes the comparison INVALID. What "looser" means, per
setting, is the table `docs/gate.md` prints from `ORDER`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from flipgate.core.gate.flaky import FlakyList, load_flaky
from flipgate.core.gate.retired import NO_RETIREMENTS, Retirements
from flipgate.core.gate.spec import GateSpec, default_spec, load_spec
from flipgate.core.io.gitref import read_at_ref

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
    "budgets.METRIC": "`max` or `max_increase` higher or removed, or the budget removed (a budget "
    "on another `stat` is another budget: the old one counts as removed)",
}
AGGREGATE_STRICTNESS = {"all": 0, "majority": 1}  # higher: looser


@dataclass(frozen=True)
class GateBase:
    """The gate spec and flaky list where the change is going; None: that file was not given."""

    spec: GateSpec | None
    flaky: FlakyList | None
    where: str  # `--base-ref main`, or the files named


@dataclass(frozen=True)
class AgainstBase:
    """What the comparison with the base found; `where` None: no base at all."""

    where: str | None
    unchecked: tuple[str, ...]  # "gate spec", "flaky list", "suite manifest": no base for them
    loosened: tuple[str, ...]  # settings looser than the base's, with both values
    flaky_added: tuple[str, ...]  # entries not in the base's list


def against_base(
    base: GateBase | None,
    spec: GateSpec,
    flaky: FlakyList,
    baseline_false_negatives: int,
    retired: Retirements = NO_RETIREMENTS,
) -> AgainstBase:
    """Compare the spec and the flaky list with the base, each half that was given. The suite's
    retirements are checked where they are judged (`Retirements.added`); here they count only as
    unchecked, when the suite retires cases and no base manifest was given."""
    base_spec = base.spec if base is not None else None
    base_flaky = base.flaky if base is not None else None
    given: list[tuple[str, object]] = [("gate spec", base_spec), ("flaky list", base_flaky)]
    if retired.cases:  # with nothing retired, no retirement can be the change's
        given.append(("suite manifest", retired.base))
    return AgainstBase(
        where=base.where if base is not None else None,
        unchecked=tuple(what for what, base_half in given if base_half is None),
        loosened=tuple(loosened(spec, base_spec, baseline_false_negatives))
        if base_spec is not None
        else (),
        flaky_added=tuple(flaky_added(flaky, base_flaky)) if base_flaky is not None else (),
    )


def base_at_ref(ref: str, gate: Path | None, flaky: Path | None) -> GateBase:
    """The spec and flaky list as they are at `ref`, read with git from the repository holding
    them. A file that did not exist there stands for the defaults (an empty list); a path of None
    (no file to look for) leaves that half unchecked."""
    spec = flaky_list = None
    if gate is not None:
        at = read_at_ref(gate, ref)
        spec = default_spec() if at.content is None else load_spec(at.name, at.content)
    if flaky is not None:
        at = read_at_ref(flaky, ref)
        flaky_list = FlakyList() if at.content is None else load_flaky(at.name, at.content)
    return GateBase(spec, flaky_list, f"base: {ref}")


def base_from_files(gate: Path | None, flaky: Path | None) -> GateBase:
    """The base named file by file (`--base-gate`, `--base-flaky`); None: not checked."""
    named = ", ".join(str(path) for path in (gate, flaky) if path is not None)
    return GateBase(
        load_spec(gate) if gate is not None else None,
        load_flaky(flaky) if flaky is not None else None,
        f"base: {named}",
    )


def loosened(spec: GateSpec, base: GateSpec, baseline_false_negatives: int) -> list[str]:
    """Each setting of `spec` looser than in `base`, naming the setting and both values."""
    found: list[str] = []
    if spec.alpha < base.alpha:
        found.append(f"alpha: {base.alpha:g} in the base, {spec.alpha:g} here")
    was, now = (_upper_bounds(s, baseline_false_negatives) for s in (base, spec))
    for setting, (before, shown_before) in was.items():
        after, shown_after = now.get(setting, (None, "removed"))
        if before is not None and (after is None or after > before):
            found.append(f"{setting}: {shown_before} in the base, {shown_after} here")
    for setting in ("ordinary", "safety"):
        before_rule = getattr(base, f"aggregate_{setting}")
        after_rule = getattr(spec, f"aggregate_{setting}")
        if AGGREGATE_STRICTNESS[after_rule] > AGGREGATE_STRICTNESS[before_rule]:
            found.append(f"aggregate.{setting}: {before_rule} in the base, {after_rule} here")
    if spec.escalation_runs < base.escalation_runs:
        found.append(
            f"escalation.runs: {base.escalation_runs} in the base, {spec.escalation_runs} here"
        )
    for setting, before_set, after_set in (
        ("outcomes.fail_on", base.fail_on, spec.fail_on),
        (
            "outcomes.limits.zero_false_negative_rules",
            frozenset(base.limits.zero_false_negative_rules),
            frozenset(spec.limits.zero_false_negative_rules),
        ),
    ):
        if taken := sorted(before_set - after_set):
            found.append(
                f"{setting}: {', '.join(taken)} taken out "
                f"([{', '.join(sorted(before_set))}] in the base, [{', '.join(sorted(after_set))}] here)"
            )
    return found


def flaky_added(flaky: FlakyList, base: FlakyList) -> list[str]:
    """The cases listed here and not in the base, in list order (a removal is a repair: fine)."""
    return [case for case in (e.case for e in flaky.entries) if case not in base.cases]


def _upper_bounds(
    spec: GateSpec, baseline_false_negatives: int
) -> dict[str, tuple[float | None, str]]:
    """The settings where a larger value lets more through: value (None: no limit) and its words."""

    def shown(value: float | None) -> tuple[float | None, str]:
        return value, "null (no limit)" if value is None else f"{value:g}"

    bounds = {
        "infra.max_share": shown(spec.infra_max_share),
        "flaky.max_share": shown(spec.flaky_max_share),
    }
    for name in sorted({"smoke", "full", *spec.sets}):
        rule = spec.set_rule(name)
        bounds[f"sets.{name}.margin"] = shown(rule.margin)
        bounds[f"sets.{name}.flip_cap"] = shown(rule.flip_cap)
    limits = spec.limits
    if limits.false_negative_max == "baseline":
        bounds["outcomes.limits.false_negative_max"] = (
            baseline_false_negatives,
            f"baseline ({baseline_false_negatives} here)",
        )
    else:
        bounds["outcomes.limits.false_negative_max"] = shown(limits.false_negative_max)
    bounds["outcomes.limits.inconclusive_max_share"] = shown(limits.inconclusive_max_share)
    for budget in spec.budgets:
        where = f"budgets.{budget.metric} ({budget.stat})"
        if budget.max is not None:
            bounds[f"{where} max"] = shown(budget.max)
        if budget.max_increase is not None:
            bounds[f"{where} max_increase"] = (
                budget.max_increase,
                f"{budget.max_increase:+.0%}",
            )
    return bounds
