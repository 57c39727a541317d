"""`flipgate power` and `flipgate calibrate`: what a gate can see, and a gate set from the noise.

    flipgate power [--cases N] [--flip-share F] [--regression POINTS ...] [--target POWER]
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

from flipgate.cli.arguments import Commands, add_curation_arguments, curation_request, share
from flipgate.core.curation.calibrate import calibrate, proposed_spec, write_proposed
from flipgate.core.errors import InputError
from flipgate.core.gate.spec import load_spec
from flipgate.core.gate.stats import (
    POWER,
    REGRESSIONS,
    FlipRule,
    below_threshold,
    collapsed_pass,
    paired_cases_needed,
    smallest_blocked,
    unpaired_cases_needed,
    unpaired_p,
    verdict_chances,
)
from flipgate.present.calibration import calibration_report
from flipgate.present.report import json_text
from flipgate.present.text import literal
from flipgate.session import read_flaky, read_identical, read_spec

# Seed 001's worked example: 200 cases, 12 of them flipped, a 92% suite.
DEFAULT_CASES, DEFAULT_FLIP_SHARE, DEFAULT_PASS_RATE = 200, 0.06, 0.92


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
    rule = FlipRule(spec.alpha, set_rule.margin, set_rule.flip_cap)
    cases, flip_share, target = args.cases, args.flip_share, args.target
    regressions = args.regression or list(REGRESSIONS)
    figures: dict[str, Any] = {
        "rule": {"alpha": rule.alpha, "margin": rule.margin, "flip_cap": rule.flip_cap},
        "suite": args.suite,
        "cases": cases,
        "flip_share": flip_share,
        "target": target,
        "chances": [verdict_chances(cases, flip_share, d, rule).to_json() for d in regressions],
        "smallest_blocked": smallest_blocked(cases, flip_share, rule, target),
        "cases_needed": [
            {
                "points": d,
                "paired": paired_cases_needed(flip_share, d, rule, target),
                "unpaired_two_sided": unpaired_cases_needed(args.pass_rate, d, rule.alpha, target),
                "unpaired_one_sided": unpaired_cases_needed(
                    args.pass_rate, d, rule.alpha, target, sides=1
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
    if args.reps < 1:
        raise InputError(Path("--reps"), "at least one repetition")
    if args.cases < 1:
        raise InputError(Path("--cases"), "at least one case")
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
            f"(alpha {rule['alpha']:g}, margin {rule['margin']}, flip cap {rule['flip_cap']}, "
            f"suite {figures['suite']})"
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


# --------------------------------------------------------------------------- calibrate


def cmd_calibrate(args: argparse.Namespace) -> int:
    request = curation_request(args)
    runs = read_identical(request, at_least=2)
    spec = read_spec(request)
    calibration = calibrate(runs, spec, read_flaky(request))
    proposal = proposed_spec(calibration, request.gate, date.today())
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
