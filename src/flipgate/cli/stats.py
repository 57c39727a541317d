"""`flipgate power` and `flipgate calibrate`: what a gate can see, and a gate set from the noise.

    flipgate power [--cases N] [--flip-share F] [--regression POINTS ...] [--target POWER]
                   [--design-effect D] [--look N] [--unstable-share U [--plan-reps K ...]]
                   [--pass-rate P] [--gate FILE] [--suite full|smoke]
                   [--unpaired PASSES/N PASSES/N] [--threshold RATE] [--case-rate P --reps K]
                   [--format text|json]
    flipgate calibrate RUN RUN [RUN ...] | WORKSPACE | -w WORKSPACE  [--gate FILE] [--flaky FILE]
                   [--out FILE] [--format text|json]

`calibrate` prints the proposed gate spec, and writes it only to the new file `--out` names.
Exit codes: 0 done, 2 bad usage or bad input (nothing written).
"""

from __future__ import annotations

import argparse
from datetime import date
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from flipgate.cli.arguments import (
    Commands,
    add_curation_arguments,
    curation_request,
    look,
    share,
)
from flipgate.core.curation.calibrate import calibrate, write_proposed
from flipgate.core.errors import InputError
from flipgate.core.gate.power import (
    MAX_CASES,
    MAX_REPS,
    MODEL,
    REGRESSIONS,
    FlipRule,
    cases_needed,
    plan,
    smallest_blocked,
    verdict_chances,
)
from flipgate.core.gate.spec import load_spec
from flipgate.core.gate.stats import (
    POWER,
    below_threshold,
    collapsed_pass,
    unpaired_cases_needed,
    unpaired_p,
)
from flipgate.present.calibration import calibration_report, proposed_gate
from flipgate.present.report import json_text
from flipgate.present.text import literal
from flipgate.session import read_flaky, read_identical, read_spec

# Seed 001's worked example: 200 cases, 12 of them flipped, a 92% suite.
DEFAULT_CASES, DEFAULT_FLIP_SHARE, DEFAULT_PASS_RATE = 200, 0.06, 0.92
DEFAULT_CASE_RATE = 0.9  # an unstable case's pass rate per repetition, for the plan (seed 001)


def _console() -> Console:
    return Console(highlight=False, soft_wrap=True)


def _points(text: str) -> float:
    """A true regression, in points of pass rate: more than none, less than everything."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of points: {text!r}") from None
    if not 0 < value < 100:
        raise argparse.ArgumentTypeError(
            f"a regression lies between 0 and 100 points, not {text!r}"
        )
    return value


def _power(text: str) -> float:
    """A power wanted: a share strictly between never and always."""
    value = share(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"a power lies strictly between 0 and 1, not {text!r}")
    return value


def _design_effect(text: str) -> float:
    """A design effect: at least 1 (clones never carry more evidence than their count)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 1 <= value < 1e6:
        raise argparse.ArgumentTypeError(f"a design effect is at least 1, not {text!r}")
    return value


def _counts(text: str) -> tuple[int, int]:
    """`184/200`: passes of cases."""
    passes, sep, cases = text.partition("/")
    if not sep or not passes.isdigit() or not cases.isdigit() or int(cases) == 0:
        raise argparse.ArgumentTypeError(f"expected PASSES/CASES such as 184/200, not {text!r}")
    if int(passes) > int(cases):
        raise argparse.ArgumentTypeError(f"more passes than cases in {text!r}")
    return int(passes), int(cases)


# --------------------------------------------------------------------------- power


def power_figures(args: argparse.Namespace) -> dict[str, Any]:
    """Every figure `flipgate power` prints, as the JSON it prints with `--format json`."""
    spec = load_spec(args.gate)
    set_rule = spec.set_rule(args.suite)
    boundary = spec.boundary(args.look)
    rule = FlipRule(boundary, set_rule.margin, set_rule.flip_cap, spec.test)
    cases, flip_share, target, design = args.cases, args.flip_share, args.target, args.design_effect
    regressions = args.regression or list(REGRESSIONS)
    figures: dict[str, Any] = {
        "rule": {
            "alpha": spec.alpha,
            "look": args.look,
            "boundary": boundary,
            "test": spec.test,
            "margin": rule.margin,
            "flip_cap": rule.flip_cap,
        },
        "suite": args.suite,
        "cases": cases,
        "flip_share": flip_share,
        "design_effect": design,
        "model": MODEL,
        "target": target,
        "chances": [
            verdict_chances(cases, flip_share, d, rule, design).to_json() for d in regressions
        ],
        "smallest_blocked": smallest_blocked(cases, flip_share, rule, target, design),
        "cases_needed": [
            {
                "points": d,
                "paired": cases_needed(flip_share, d, rule, target, design),
                "unpaired_two_sided": unpaired_cases_needed(args.pass_rate, d, spec.alpha, target),
                "unpaired_one_sided": unpaired_cases_needed(
                    args.pass_rate, d, spec.alpha, target, sides=1
                ),
            }
            for d in regressions
        ],
        "pass_rate": args.pass_rate,
    }
    if args.unpaired:
        (a, n_a), (b, n_b) = args.unpaired
        figures["unpaired"] = {
            "baseline": [a, n_a],
            "candidate": [b, n_b],
            "points": 100 * (b / n_b - a / n_a),
            "p_two_sided": unpaired_p(a, n_a, b, n_b),
        }
    if args.threshold is not None:
        figures["threshold"] = {
            "threshold": args.threshold,
            "pass_rate": args.pass_rate,
            "cases": cases,
            "below": below_threshold(cases, args.pass_rate, args.threshold),
        }
    if args.unstable_share is not None:
        rate = args.case_rate if args.case_rate is not None else DEFAULT_CASE_RATE
        figures["plan"] = {
            "unstable_share": args.unstable_share,
            "case_rate": rate,
            "regressions": [
                {
                    "points": d,
                    "reps": [
                        {
                            "reps": row.reps,
                            "flip_share": row.noise_share,
                            "cases": row.cases,
                            "runs": row.runs,
                        }
                        for row in plan(
                            d,
                            rule,
                            unstable_share=args.unstable_share,
                            case_rate=rate,
                            reps=args.plan_reps,
                            power=target,
                            design_effect=design,
                        )
                    ],
                }
                for d in regressions
            ],
        }
    if args.case_rate is not None:
        figures["repetitions"] = {
            "case_rate": args.case_rate,
            "reps": args.reps,
            **{
                rule: collapsed_pass(args.case_rate, args.reps, rule)
                for rule in ("majority", "all", "any")
            },
        }
    return figures


def cmd_power(args: argparse.Namespace) -> int:
    for flag, counts, low, high, what in (
        ("--reps", [args.reps], 1, MAX_REPS, "repetition"),
        ("--plan-reps", args.plan_reps, 1, MAX_REPS, "repetition"),
        ("--cases", [args.cases], 1, MAX_CASES, "case"),
    ):
        if any(not low <= count <= high for count in counts):
            raise InputError(Path(flag), f"from {low} to {high:,} {what}s")
    for points in args.regression or REGRESSIONS:
        if points >= 100 * args.pass_rate:  # the unpaired figures' candidate would pass below 0%
            raise InputError(
                Path("--regression"),
                f"a {points:g}-point drop from a {args.pass_rate:.0%} pass rate "
                "(--pass-rate) leaves nothing to pass",
            )
    figures = power_figures(args)
    if args.format == "json":
        print(json_text(figures))
        return 0
    console = _console()
    rule = figures["rule"]
    table = Table(
        title=(
            f"the paired gate on {figures['cases']:,} cases, {figures['flip_share']:.1%} flipping "
            "with no regression"
            + (
                f", design effect {figures['design_effect']:g}"
                if figures["design_effect"] > 1
                else ""
            )
            + f" (alpha {rule['alpha']:g}: look {rule['look']} blocks at p <= "
            f"{rule['boundary']:.3g}; margin {rule['margin']}, flip cap {rule['flip_cap']}, "
            f"suite {figures['suite']}; a regression adds breaks to that noise)"
        ),
        title_justify="left",
    )
    table.add_column("true regression", no_wrap=True)
    for verdict in ("BLOCK", "INCONCLUSIVE", "PASS"):
        table.add_column(verdict, justify="right")
    for chance in figures["chances"]:
        table.add_row(
            f"-{chance['points']:g} points",
            *(f"{chance[v]:.1%}" for v in ("block", "inconclusive", "pass")),
        )
    console.print(table)
    target = figures["target"]
    smallest = figures["smallest_blocked"]
    console.print(
        f"blocked {target:.0%} of the time: a regression of {smallest:g} points or more"
        if smallest is not None
        else f"no regression is blocked {target:.0%} of the time on {figures['cases']} cases"
    )
    needed = Table(
        title=(
            f"cases needed to block {target:.0%} of the time (paired at "
            f"{figures['flip_share']:.1%} flipping; two separate samples at a "
            f"{figures['pass_rate']:.0%} pass rate)"
        ),
        title_justify="left",
    )
    for column in ("regression", "paired", "unpaired, two-sided", "unpaired, one-sided"):
        needed.add_column(column, justify="right", no_wrap=True)
    for row in figures["cases_needed"]:
        needed.add_row(
            f"-{row['points']:g} points",
            f"{row['paired']:,}" if row["paired"] is not None else "over 10,000,000",
            f"{row['unpaired_two_sided']:,} per version",
            f"{row['unpaired_one_sided']:,} per version",
        )
    console.print(needed)
    if "plan" in figures:
        console.print(_plan_table(figures["plan"], target))
    if "unpaired" in figures:
        u = figures["unpaired"]
        console.print(
            f"read as two separate samples, {u['baseline'][0]}/{u['baseline'][1]} against "
            f"{u['candidate'][0]}/{u['candidate'][1]} is {u['points']:+.1f} points, two-sided "
            f"p {u['p_two_sided']:.2f} (pooled two-proportion z test)"
        )
    if "threshold" in figures:
        t = figures["threshold"]
        console.print(
            f"a fixed threshold of {t['threshold']:.0%} on a suite that truly passes "
            f"{t['pass_rate']:.0%} of {t['cases']:,} cases fails a run that changed nothing "
            f"{t['below']:.1%} of the time"
        )
    if "repetitions" in figures:
        r = figures["repetitions"]
        console.print(
            f"a case that passes {r['case_rate']:.0%} of its runs, over {r['reps']} repetitions: "
            f"passes a majority {r['majority']:.3f}, all of them {r['all']:.3f}, at least one "
            f"(rerunning until green) {r['any']:.3f}"
        )
    return 0


def _plan_table(planned: dict[str, Any], target: float) -> Table:
    """Cases and repetitions: for each repetition count, the noise it leaves and the cases needed."""
    table = Table(
        title=(
            f"planning repetitions: {planned['unstable_share']:.0%} of cases unstable, each "
            f"passing {planned['case_rate']:.0%} of its runs; cases needed to block "
            f"{target:.0%} of the time"
        ),
        title_justify="left",
    )
    table.add_column("regression", no_wrap=True)
    for column in ("repetitions", "flipping", "cases", "runs, both arms"):
        table.add_column(column, justify="right", no_wrap=True)
    for regression in planned["regressions"]:
        for row in regression["reps"]:
            table.add_row(
                f"-{regression['points']:g} points",
                str(row["reps"]),
                f"{row['flip_share']:.1%}",
                f"{row['cases']:,}" if row["cases"] is not None else "over 10,000,000",
                f"{row['runs']:,}" if row["runs"] is not None else "",
            )
    return table


# --------------------------------------------------------------------------- calibrate


def cmd_calibrate(args: argparse.Namespace) -> int:
    request = curation_request(args)
    runs = read_identical(request, at_least=2)
    spec = read_spec(request)
    calibration = calibrate(runs, spec, read_flaky(request))
    proposal = proposed_gate(calibration, request.gate, date.today())
    if args.out is not None:
        write_proposed(proposal, args.out, request.gate)
    if args.format == "json":
        written = str(args.out) if args.out is not None else None
        print(json_text({**calibration.to_json(), "written": written, "proposal": proposal}))
        return 0
    console = _console()
    console.print(calibration_report(calibration))
    if args.out is not None:
        console.print(literal(f"proposed spec written to {args.out} (the gate spec is untouched)"))
    else:
        console.print(
            literal(f"proposed spec (written nowhere; --out FILE writes it):\n{proposal}")
        )
    return 0


# --------------------------------------------------------------------------- parsers


def add_parser(sub: Commands) -> None:
    power = sub.add_parser(
        "power",
        help="what a gate can see: each verdict's chances for a regression, and the cases needed",
        description="The exact chances of BLOCK, INCONCLUSIVE and PASS under the gate's own "
        "rule for a true regression, the smallest regression blocked, and the cases a paired "
        "gate needs beside two separate samples. Defaults: seed 001's worked example.",
    )
    power.add_argument("--cases", type=int, default=DEFAULT_CASES, help="paired cases (200)")
    power.add_argument(
        "--flip-share",
        type=share,
        default=DEFAULT_FLIP_SHARE,
        help="share of cases that flip either way with no regression (0.06)",
    )
    power.add_argument(
        "--regression",
        type=_points,
        action="append",
        metavar="POINTS",
        help="a true drop in pass rate, in points (repeatable; default 1 2 3 5)",
    )
    power.add_argument("--target", type=_power, default=POWER, help="power wanted (0.8)")
    power.add_argument(
        "--design-effect",
        type=_design_effect,
        default=1.0,
        metavar="D",
        help="cloned cases: the variance inflation of the flips, 1 + (m - 1) rho for templates of "
        "m cases whose flips correlate by rho (1: independent cases)",
    )
    power.add_argument(
        "--look",
        type=look,
        default=1,
        metavar="N",
        help="the look at the change whose boundary to plan for (1: the first)",
    )
    power.add_argument(
        "--unstable-share",
        type=share,
        metavar="U",
        help="plan repetitions: the share of cases whose verdict varies between runs "
        "(their per-run pass rate: --case-rate, 0.9)",
    )
    power.add_argument(
        "--plan-reps",
        type=int,
        nargs="+",
        default=[1, 3, 5],
        metavar="K",
        help="repetition counts to plan for (1 3 5)",
    )
    power.add_argument(
        "--pass-rate",
        type=share,
        default=DEFAULT_PASS_RATE,
        help="the suite's pass rate, for the unpaired figures (0.92)",
    )
    power.add_argument("--gate", type=Path, help="gate spec (default: the spec's defaults)")
    power.add_argument("--suite", choices=("full", "smoke"), default="full")
    power.add_argument(
        "--unpaired",
        type=_counts,
        nargs=2,
        metavar="PASSES/N",
        help="two pass counts read as separate samples, e.g. 184/200 176/200",
    )
    power.add_argument(
        "--threshold", type=share, help="a fixed pass-rate threshold to price (e.g. 0.90)"
    )
    power.add_argument(
        "--case-rate", type=share, help="one case's pass rate, collapsed over --reps"
    )
    power.add_argument("--reps", type=int, default=3, help="repetitions per case (3)")
    power.add_argument("--format", choices=("text", "json"), default="text")
    power.set_defaults(handler=cmd_power)

    cal = sub.add_parser(
        "calibrate",
        help="gate identical baseline runs against each other; propose a margin and flip cap",
    )
    add_curation_arguments(
        cal, runs="two or more identical baseline runs, or a workspace (its baseline-repeats/)"
    )
    cal.add_argument(
        "--out",
        type=Path,
        metavar="FILE",
        help="write the proposed spec to this new file (default: print it, write nothing)",
    )
    cal.add_argument("--format", choices=("text", "json"), default="text")
    cal.set_defaults(handler=cmd_calibrate)
