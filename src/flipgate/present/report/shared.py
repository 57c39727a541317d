"""What the JSON, text and Markdown reports share: exit codes, the verdicts' styles, what each
rule found, the lines on the flaky list, the retired cases and the base, the effect and power
figures, and how a long list of cases is cut."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC
from typing import TypeVar

from flipgate.core.gate.bounds import DESIGN_EFFECT, NeverEvent
from flipgate.core.gate.compare import Comparison, GateResult
from flipgate.core.gate.excess import Excess
from flipgate.core.gate.family import Family, HeldPath
from flipgate.core.gate.ledger import ArmLedger, RepsExcluded
from flipgate.core.gate.looks import Looks, plain_measured
from flipgate.core.gate.rules import RULES, Evidence, Rule
from flipgate.core.gate.stats import Effect
from flipgate.core.plural import plural
from flipgate.core.vocab import ARMS, Arm, Coded, UnpairedState
from flipgate.present.numbers import p_beside, percent, signed_points
from flipgate.present.reasons import sentence
from flipgate.present.reasons.invalid import BASE_FILE_WORDS
from flipgate.present.reasons.ledger import STATE_WORDS, excluded_by
from flipgate.present.reasons.verdict import p_words
from flipgate.present.reasons.words import series, when

EXIT_CODES = {"PASS": 0, "BLOCK": 1, "INCONCLUSIVE": 3, "INVALID": 4}
VERDICT_STYLE = {
    "PASS": "bold green",
    "BLOCK": "bold red",
    "INCONCLUSIVE": "bold yellow",
    "INVALID": "bold magenta",
}
# The heading of what a rule found, where it is not the rule's name.
FOUND_WORDS = {
    "safety": "safety failures",
    "outcome_limit": "outcome limit",
    "budget": "budget exceeded",
}
FOUND_CASES = {"safety": "failed safety"}  # the cases a rule finds, as "every ... case" names them
DIRECTION_WORDS = {"pass_to_fail": "pass -> fail", "fail_to_pass": "fail -> pass"}
# A list of cases in the text and Markdown reports (flipped, failed safety) names this many at
# most, the first by case id, and says how many more: 10,000 flips made a 175 KB log line, and a
# 320 KB Markdown report where a pull-request comment holds 65,536 characters. The JSON report
# (and for flips, the rerun plan) names them all.
CASES_NAMED = 50
EFFECT_METHOD = "Tango's score interval, continuity-corrected"
WORTH_AT = (3.0, 5.0)  # the regressions a PASS states its chance of passing for
T = TypeVar("T")


def exit_code(result: GateResult) -> int:
    return EXIT_CODES[result.verdict]


def first(cases: Sequence[T]) -> tuple[Sequence[T], int]:
    """The cases a text or Markdown list names, and how many it leaves out."""
    return cases[:CASES_NAMED], max(len(cases) - CASES_NAMED, 0)


def more(left_out: int, which: str) -> str:
    """What ends a list that leaves `left_out` cases out."""
    return f"and {left_out:,} more (`flipgate gate --format json` lists every {which} case)"


@dataclass(frozen=True)
class Found:
    """What one rule found: reasons (worded by `present.reasons.sentence`), or case ids."""

    rule: Rule
    heading: str
    reasons: tuple[Coded, ...]
    cases: tuple[str, ...]

    @property
    def which(self) -> str:
        """The cases' kind, as "every ... case" names them."""
        return FOUND_CASES[self.rule.name]


def found(result: Evidence) -> Iterator[Found]:
    """What each rule found, in the table's order."""
    for rule in RULES:
        reasons, cases = rule.found(result), rule.cases(result)
        if reasons or cases:
            heading = FOUND_WORDS.get(rule.name, rule.name.replace("_", " "))
            yield Found(rule, heading, reasons, cases)


def effect_method(effect: Effect) -> str:
    """How the interval was made: Tango's, with the clusters' design effect, matched to the test."""
    if effect.matched:
        return f"{EFFECT_METHOD}, design effect {effect.design_effect:.2f} from the test's own p"
    if effect.method == DESIGN_EFFECT and effect.design_effect > 1:
        return f"{EFFECT_METHOD}, templates' design effect {effect.design_effect:.2f}"
    return EFFECT_METHOD


def interval_words(effect: Effect) -> str:
    """`-3.0 points (90% CI -7.1 to +0.5)`, each bound keeping its sign."""
    return (
        f"{effect.points:+.1f} points ({percent(effect.level)} CI {signed_points(effect.low)} to "
        f"{signed_points(effect.high)})"
    )


def effect_line(result: GateResult) -> str:
    """`effect: -3.0 points (90% CI -7.1 to +0.5), Tango's score interval · p = 0.073`: each
    bound one-sided at the test's level."""
    if result.effect is None:
        return f"effect: none (no case paired) · {p_words(result)}"
    effect = result.effect
    return f"effect: {interval_words(effect)}, {effect_method(effect)} · {p_words(result)}"


def looks_line(result: GateResult, looks: Looks) -> str:
    """How alpha is spent across the looks at this change, this look's boundary, and how the
    paths to BLOCK shared it."""
    family = family_words(result.family)
    if looks.rule == "plain":
        size, rate, error = plain_measured(result.paired, result.p_by == "template")
        return (
            f"looks: plain, alpha {result.alpha:g} at every look; measured with no change, the "
            f"rerun escalation blocks {rate:.1%} ± {error:.1%} of the time at {size:,} cases "
            "(bench/simulate_gate.py)" + family
        )
    level = result.blocks_at if result.family is None else result.family.level
    return (
        f"looks: alpha {result.alpha:g} spent across the looks at this change, each spending "
        f"{looks.share:.0%} of what is left: look {result.look} blocks at p <= {level:.3g}" + family
    )


def _path_name(path: HeldPath) -> str:
    return PATH_WORDS[path.kind].format(metric=path.metric)


PATH_WORDS = {
    "significance": "the flips",
    "false_negatives": "the false negatives",
    "mirror_approved": "the confident approvals on {metric}",
    "budget": "the {metric} budget",
}


def family_words(family: Family | None) -> str:
    """`, shared by Holm over 2 paths: the flips held to p <= 0.0125 (p 0.019), the false
    negatives to 0.025 (p 0.001)`; under `family: per_path`, each path's own level and what that
    costs. Nothing where one path is all there is to test."""
    if family is None or len(family.paths) < 2:
        return ""
    held = ", ".join(
        f"{_path_name(path)} {'held to' if not i else 'to'} {path.boundary:.3g} "
        f"(p {p_beside(path.p, path.boundary)})"
        for i, path in enumerate(family.paths)
    )
    if family.rule == "per_path":
        return (
            f"; each of {len(family.paths)} paths at its own level (family: per_path): {held}; "
            "together they BLOCK with no change more often than alpha"
        )
    return f", shared by Holm over {len(family.paths)} paths: {held}"


def boundary_words(result: GateResult) -> tuple[str, str]:
    """The banner's name and value for what the flips were held to: `look 1 blocks at p ≤`,
    `0.025`; where paths share the look by Holm, the flips' share of it, one of level / k
    (family.py): `look 1 by Holm: flips p ≤`, `0.025/3 = 0.00833`."""
    family = result.family
    if family is None or family.rule != "holm" or len(family.paths) < 2:
        return f"look {result.look} blocks at p ≤", f"{result.blocks_at:.3g}"
    share = round(family.level / result.blocks_at)
    return (
        f"look {result.look} by Holm: flips p ≤",
        f"{family.level:.3g}/{share} = {result.blocks_at:.3g}",
    )


def worth_line(result: GateResult, *, brief: bool = False) -> str | None:
    """What a PASS rules out, and how often a regression would have passed: `rules out a
    regression beyond 4.1 points at 97.5% (the interval's lower bound); would have passed: a
    3-point one 25%, a 5-point one 11%`; `brief`, for a banner: `rules out a regression beyond
    4.1 points (97.5%); passes a 3-point one 25%, a 5-point one 11%`."""
    if result.verdict != "PASS" or result.effect is None:
        return None
    effect = result.effect
    chances = {c.points: c.passes for c in result.power.chances}
    odds = ", ".join(f"a {d:g}-point one {chances[d]:.0%}" for d in WORTH_AT if d in chances)
    level = percent(effect.one_sided)
    ruled_out = f"rules out a regression beyond {effect.rules_out:.1f} points"
    if brief:
        return f"{ruled_out} ({level}); passes {odds}"
    return f"{ruled_out} at {level} (the interval's lower bound); would have passed: {odds}"


def never_event_brief(bound: NeverEvent) -> str:
    """`failure rate at most 45.1% at 95% (5 safety templates, none failing)`."""
    unit = "template" if bound.by == "template" else "case"
    failing = "none failing" if not bound.failed else f"{bound.failed:,} failing"
    asked = ""
    if bound.max_rate is not None:
        asked = f"; asked {percent(bound.max_rate)}" + (
            "" if bound.supported else f": {bound.more:,} more needed"
        )
    return (
        f"failure rate at most {percent(bound.upper)} at {percent(bound.level)} "
        f"({plural(bound.cases, f'safety {unit}')}, {failing}){asked}"
    )


def limit_lines(result: GateResult) -> list[str]:
    """The tests beside the limits, breached or not: the false negatives against the baseline's,
    what the safety cases bound."""
    tested = [result.false_negatives, result.safety_bound]
    listed = (*result.limit_breaches, *result.safety_short)  # said where their rule is
    return [
        sentence(t) for t in tested if t is not None and t not in listed and not _nothing_to_test(t)
    ]


def _nothing_to_test(tested: object) -> bool:
    """A test with nothing in it (no case whose false negatives differ) says nothing worth a
    line."""
    return isinstance(tested, Excess) and tested.clusters == 0


def power_rows(result: GateResult) -> list[list[str]]:
    """[regression, BLOCK, INCONCLUSIVE, PASS] in percent, one row per regression."""
    return [
        [f"-{c.points:g} points", *(f"{x:.0%}" for x in (c.block, c.inconclusive, c.passes))]
        for c in result.power.chances
    ]


def power_title(result: GateResult) -> str:
    power = result.power
    clustered = (
        f", templates' design effect {power.design_effect:.2f} (approximate)"
        if power.design_effect > 1
        else ""
    )
    return (
        f"what the gate can see: {power.cases:,} cases, {power.flip_share:.1%} flipping"
        f"{clustered}; "
        + (
            f"{power.power:.0%} BLOCK from -{power.smallest_blocked:g} points"
            if power.smallest_blocked is not None
            else f"no regression is blocked {power.power:.0%} of the time"
        )
    )


def unchecked_note(result: GateResult) -> str | None:
    """Said once, when part of the base was not given: what could not be checked."""
    unchecked = result.base.unchecked
    if not unchecked:
        return None
    files, checks, options = zip(*(BASE_FILE_WORDS[u] for u in unchecked), strict=True)
    return (
        f"no base {series(files, 'or')} given (--base-ref REF, or {series(options, 'and')}): "
        f"whether this change {series(checks, 'or')} was not checked"
    )


def flaky_lines(result: GateResult) -> list[str]:
    """The listed cases left out of b and c, and the entries for cases neither run has (a case
    renamed or gone: the entry leaves nothing out)."""
    lines = []
    if left_out := len(result.flaky_listed) - len(result.flaky_unknown):
        flipped = f", {len(result.flaky_flipped)} flipped here" if result.flaky_flipped else ""
        lines.append(f"flaky list: {plural(left_out, 'case')} left out of b and c{flipped}")
    if unknown := result.flaky_unknown:
        shown, hidden = first(unknown)
        named = ", ".join(shown) + (f", {more(hidden, 'unknown flaky')}" if hidden else "")
        entries = plural(len(unknown), "entry", "entries")
        lines.append(f"flaky list: {entries} for cases in neither run: {named}")
    return lines


def retired_lines(result: GateResult) -> list[str]:
    """The retired cases, as the flaky list is shown: left out of b and c, with date and reason."""
    if not result.retired:
        return []
    flipped = f", {len(result.retired_flipped)} flipped here" if result.retired_flipped else ""
    shown, hidden = first(result.retired)
    return [
        f"retired: {plural(len(result.retired), 'case')} left out of b and c{flipped}",
        *(f"  {r.case} retired {r.retired}: {r.reason}" for r in shown),
        *([more(hidden, "retired")] if hidden else []),
    ]


def registration_line(comparison: Comparison) -> str:
    """Whether the rule was registered before the run, and by whom: every report says it."""
    registration = comparison.result.registration
    if registration is None:
        return "rule: not registered before the run (`flipgate prereg`, then `gate --prereg`)"
    candidate = comparison.candidate
    created = candidate.created
    if created is None:
        order = f"run {candidate.run_id} does not say when it was created"
    elif (created if created.tzinfo else created.replace(tzinfo=UTC)) < registration.registered:
        order = f"after run {candidate.run_id} was created"
    else:
        order = f"before run {candidate.run_id}"
    return f"rule registered at {when(registration.registered)} by {registration.signer}, {order}"


def attempt_line(result: GateResult) -> str | None:
    """Which attempt and look at its change this gate is (None: no ledger)."""
    earlier = result.earlier
    if earlier is None:
        return None
    before = f"; earlier: {', '.join(earlier.verdicts)}" if earlier.verdicts else ""
    return f"attempt {earlier.attempt} of change {earlier.change_id} (look {earlier.look}){before}"


def failing(comparison: Comparison) -> tuple[int, int]:
    """Each arm's cases that fail by the gate's rule (paired or not)."""
    cases = comparison.cases
    return tuple(  # type: ignore[return-value]
        int((cases[f"{prefix}_passed"] == False).sum())  # noqa: E712 (null: no verdict)
        for prefix in ("base", "cand")
    )


NOT_BALANCED = "the states do not add up to the cases: a defect, please report it"
ALLOW_PARTIAL_NOTE = (
    "--allow-partial: runs that are not whole are gated by choice, to INCONCLUSIVE at best, "
    "never PASS"
)


def ledger_words(arm: Arm, ledger: ArmLedger) -> str:
    """`candidate 8 cases = 5 paired + 3 run not finished`: an arm's cases by state; those left
    out for the other arm's sake said so: `baseline 8 cases = 5 paired + 3 run not finished in
    the candidate`."""
    other = next(a for a in ARMS if a != arm)
    counts: list[str] = []
    for state, n in ledger.states.items():
        theirs = ledger.for_other.get(state, 0) if state != "paired" else 0
        if n - theirs or state == "paired":
            counts.append(f"{n - theirs:,} {STATE_WORDS[state]}")
        if theirs:
            counts.append(f"{theirs:,} {STATE_WORDS[state]} in the {other}")
    return f"{arm} {plural(ledger.cases, 'case')} = {' + '.join(counts)}"


def run_words(ledger: ArmLedger) -> str | None:
    """What an arm's run says of itself where it lacks something or does not say: `its run did
    not finish (started): 10 of 24 repetitions ran`; None where it is whole."""
    said = []
    if ledger.finished is False:
        said.append(
            f"its run did not finish ({ledger.status}): {ledger.reps:,} of "
            f"{plural(ledger.planned, 'repetition')} ran"
        )
    elif ledger.missing:
        said.append(f"{ledger.missing:,} of its {plural(ledger.planned, 'repetition')} missing")
    elif ledger.status is not None and ledger.finished is None:
        said.append("its log does not say whether the run finished")
    if ledger.excluded:
        said.append(f"{plural(ledger.excluded, 'repetition')} excluded")
    return "; ".join(said) or None


def left_out_groups(result: GateResult) -> list[tuple[str, list[str]]]:
    """The cases left out of the cells by state and arm (and, for excluded ones, by who excluded
    them and why), in the order met: `excluded in the candidate by qa@example.com (leaked)`."""
    groups: dict[tuple[UnpairedState, Arm, str], list[str]] = {}
    for left in result.unpaired:
        who = f" {excluded_by(left)}" if isinstance(left, RepsExcluded) else ""
        groups.setdefault((left.code, left.arm, who), []).append(left.case)
    return [
        (f"{STATE_WORDS[state]} in the {arm}{who}", cases)
        for (state, arm, who), cases in groups.items()
    ]


def ledger_lines(result: GateResult) -> list[str]:
    """The case ledger: each arm's cases by state and what its run lacks, then the cases left
    out; one line when every case is paired."""
    arms = [
        ledger_words(arm, found) + "".join(f"; {said}" for said in filter(None, [run_words(found)]))
        for arm, found in result.ledger.arms.items()
    ]
    lines = (
        [f"ledger: {' · '.join(arms)}"] if not result.unpaired else [f"ledger: {a}" for a in arms]
    )
    if not result.ledger.balanced:
        lines.append(f"ledger: {NOT_BALANCED}")
    for heading, cases in left_out_groups(result):
        named, hidden = first(cases)
        listing = ", ".join(named) + (f", {more(hidden, 'left out')}" if hidden else "")
        lines.append(f"  {heading}: {listing}")
    if result.allow_partial:
        lines.append(ALLOW_PARTIAL_NOTE)
    return lines
