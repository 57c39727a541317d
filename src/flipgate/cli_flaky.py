"""`flipgate flaky`: propose, add, retire and check flaky-list entries from the command line.

    flipgate flaky propose RUN RUN [RUN ...] [--owner NAME] [--format text|json]
    flipgate flaky add CASE --owner NAME --reason TEXT [--evidence TEXT] [--suite RUN ...]
    flipgate flaky remove CASE --note TEXT
    flipgate flaky check [RUN ...] [--window N] [--format text|json]

Every subcommand takes `--workspace DIR` (its flaky.yaml, gate.yaml, baseline and
baseline-repeats/ become the defaults), `--flaky FILE` and `--gate FILE`. Exit codes: 0 done,
1 `check` found a problem in the list, 2 bad usage or bad input (nothing written).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from flipgate.core.curation.entries import add, load_list, remove
from flipgate.core.curation.flips import FlipRecord, Proposal, propose
from flipgate.core.curation.review import CheckReport, check
from flipgate.core.errors import InputError
from flipgate.core.gate.flaky import FlakyList
from flipgate.core.gate.spec import GateSpec, load_spec
from flipgate.core.runs.model import Run
from flipgate.core.runs.reading import load_run
from flipgate.core.runs.workspace import REPEATS_FOLDER, find_repeats
from flipgate.present.report import json_text
from flipgate.present.text import literal, safe

OK, PROBLEM = 0, 1


# --------------------------------------------------------------------------- inputs


def _flaky_path(args: argparse.Namespace) -> Path:
    if args.flaky is not None:
        return Path(args.flaky)
    if args.workspace is not None:
        return Path(args.workspace) / "flaky.yaml"
    return Path("flaky.yaml")


def _spec(args: argparse.Namespace) -> GateSpec:
    if args.gate is not None:
        return load_spec(Path(args.gate))
    if args.workspace is not None and (Path(args.workspace) / "gate.yaml").exists():
        return load_spec(Path(args.workspace) / "gate.yaml")
    return load_spec(None)


def _workspace_runs(workspace: Path | None, *, repeats: bool, candidate: bool) -> list[Path]:
    """The baseline, then its identical repeats (baseline-repeats/*) or the candidate."""
    if workspace is None:
        return []
    found = [workspace / "baseline"]
    if repeats:
        found += find_repeats(workspace)
    if candidate:
        found.append(workspace / "candidate")
    return [p for p in found if p.exists()]


def _load(paths: Sequence[Path]) -> list[Run]:
    return [load_run(Path(p)) for p in paths]


def _baseline_runs(args: argparse.Namespace, *, at_least: int) -> list[Run]:
    paths = [Path(p) for p in args.runs] or _workspace_runs(
        args.workspace, repeats=True, candidate=False
    )
    if len(paths) < at_least:
        where = args.workspace or Path(".")
        raise InputError(
            where,
            f"give at least {at_least} runs of the same baseline (or --workspace with "
            f"{REPEATS_FOLDER}/)",
        )
    return _load(paths)


def _console() -> Console:
    # Rich drops colour by itself when stdout is not a terminal (or NO_COLOR is set); a line
    # longer than the terminal is left whole for it to wrap, not broken mid-sentence at 80.
    return Console(highlight=False, soft_wrap=True)


def _print_json(data: dict[str, Any]) -> None:
    print(json_text(data))


# --------------------------------------------------------------------------- propose


def cmd_propose(args: argparse.Namespace) -> int:
    runs = _baseline_runs(args, at_least=2)
    path = _flaky_path(args)
    flaky = load_list(path)
    proposal = propose(runs, _spec(args), flaky, args.owner)
    if args.format == "json":
        _print_json(proposal.to_json())
    else:
        _print_proposal(_console(), proposal, path)
    return OK


def _flips_table(records: Sequence[FlipRecord]) -> Table:
    table = Table(box=None, pad_edge=False, show_header=True, header_style="bold")
    table.add_column("case", no_wrap=True)
    table.add_column("flips", justify="right")
    table.add_column("evidence")
    for record in records:
        table.add_row(literal(record.case), str(record.flips), literal(record.evidence()))
    return table


def _print_proposal(console: Console, proposal: Proposal, path: Path) -> None:
    console.print(
        Text.assemble(
            f"{len(proposal.runs)} identical baseline runs: ",
            literal(", ".join(proposal.runs)),
        )
    )
    console.print(
        Text.assemble(
            f"flaky list {safe(path)}: {proposal.listed} listed, cap {proposal.cap} of "
            f"{proposal.suite_cases} cases, {proposal.slots_left} slots left\n",
            (f"digest {proposal.flaky_digest}", "dim"),
        )
    )
    console.print()
    if proposal.entries:
        console.print(Text(f"Proposed entries ({len(proposal.entries)}):", style="bold"))
        console.print(_flips_table([e.record for e in proposal.entries]))
        if len(proposal.entries) > proposal.slots_left:
            console.print(
                f"Only {proposal.slots_left} of them fit under the cap: repair and retire "
                "entries, or choose."
            )
    else:
        console.print("Nothing to propose: no unlisted case flipped between these runs.")
    if proposal.safety_findings:
        console.print()
        console.print(
            Text(
                f"Safety cases that flipped ({len(proposal.safety_findings)}): findings about "
                "the agent, never listed",
                style="bold red",
            )
        )
        console.print(_flips_table(proposal.safety_findings))
    if proposal.already_listed:
        console.print()
        console.print(Text(f"Listed, and flipped again ({len(proposal.already_listed)}):"))
        console.print(_flips_table(proposal.already_listed))
    if proposal.entries:
        console.print()
        console.print(
            'To list one: flipgate flaky add CASE --owner NAME --reason TEXT --evidence "..."'
        )


# --------------------------------------------------------------------------- add, remove


def _measured_evidence(case: str, suite: Sequence[Run], args: argparse.Namespace) -> str:
    """How `case` flipped across the workspace's identical baseline runs (else the suite runs)."""
    identical = _load(_workspace_runs(args.workspace, repeats=True, candidate=False))
    try:
        proposal = propose(
            identical if len(identical) >= 2 else list(suite), _spec(args), FlakyList(), None
        )
    except InputError:
        proposal = None
    records = (
        [e.record for e in proposal.entries] + list(proposal.safety_findings) if proposal else []
    )
    record = next((r for r in records if r.case == case), None)
    if record is None:
        raise InputError(
            _flaky_path(args),
            f"--evidence is required: {case!r} did not flip in identical baseline runs given "
            "here; say how often it flipped across how many runs",
            field="evidence",
        )
    return record.evidence()


def cmd_add(args: argparse.Namespace) -> int:
    suite_paths = [Path(p) for p in args.suite] or _workspace_runs(
        args.workspace, repeats=False, candidate=True
    )
    if not suite_paths:
        raise InputError(
            _flaky_path(args), "give --suite RUN (or --workspace): the suite says which cases exist"
        )
    suite = _load(suite_paths)
    evidence = args.evidence or _measured_evidence(args.case, suite, args)
    edit = add(
        _flaky_path(args),
        args.case,
        args.owner,
        args.reason,
        evidence,
        date.today(),
        suite=suite,
        spec=_spec(args),
        by=args.by,
    )
    _console().print(Text.assemble(literal(edit.message), f"\nwrote {edit.path}"))
    return OK


def cmd_remove(args: argparse.Namespace) -> int:
    edit = remove(_flaky_path(args), args.case, args.note, date.today(), by=args.by)
    _console().print(Text.assemble(literal(edit.message), f"\nwrote {edit.path}"))
    return OK


# --------------------------------------------------------------------------- check


def cmd_check(args: argparse.Namespace) -> int:
    runs = _baseline_runs(args, at_least=1)
    arms = _load(_workspace_runs(args.workspace, repeats=False, candidate=True))
    report = check(
        _flaky_path(args),
        runs,
        _spec(args),
        today=date.today(),
        window=args.window,
        judged=(arms[0], arms[1]) if len(arms) == 2 else None,
    )
    if args.format == "json":
        _print_json(report.to_json())
    else:
        _print_check(_console(), report, _flaky_path(args))
    return PROBLEM if report.problems else OK


def _print_check(console: Console, report: CheckReport, path: Path) -> None:
    console.print(
        Text.assemble(
            f"flaky list {safe(path)}: {len(report.entries)} listed, cap {report.cap} of "
            f"{report.suite_cases} cases\n",
            (f"digest {report.flaky_digest}", "dim"),
        )
    )
    console.print(Text.assemble("checked against: ", literal(", ".join(report.runs))))
    table = Table(box=None, pad_edge=False, header_style="bold")
    for name in ("case", "owner", "age", "flags", "in these runs"):
        table.add_column(name, no_wrap=name != "in these runs")
    for review in report.entries:
        table.add_row(
            literal(review.entry.case),
            literal(review.entry.owner),
            f"{review.age_days} d",
            Text(", ".join(review.flags) or "-", style="bold" if review.flags else ""),
            literal(review.record.evidence() if review.record else "-"),
        )
    console.print(table)
    ready = [r.entry.case for r in report.entries if r.ready]
    if ready:
        console.print(
            Text.assemble(
                f"Quiet in the last {report.window} runs (ready to release): ",
                literal(", ".join(ready)),
                "\nRetire once repaired: flipgate flaky remove CASE --note TEXT",
            )
        )
    for problem in report.problems:
        console.print(Text.assemble(("problem: ", "bold red"), literal(problem)))


# --------------------------------------------------------------------------- parser


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--workspace",
        "-w",
        type=Path,
        metavar="DIR",
        help="a workspace: its flaky.yaml, gate.yaml, baseline/, baseline-repeats/ by default",
    )
    parser.add_argument(
        "--flaky", type=Path, metavar="FILE", help="the flaky list (default: WORKSPACE/flaky.yaml)"
    )
    parser.add_argument(
        "--gate", type=Path, metavar="FILE", help="gate spec (for the cap and the collapse rules)"
    )


def add_flaky_parser(
    subparsers: argparse._SubParsersAction,  # type: ignore[type-arg]
) -> argparse.ArgumentParser:
    """Register `flaky` and its subcommands; each sets `handler(args) -> exit code`."""
    flaky: argparse.ArgumentParser = subparsers.add_parser(
        "flaky", help="curate the flaky list: propose, add, remove (retire), check"
    )
    sub = flaky.add_subparsers(dest="flaky_command", metavar="SUBCOMMAND", required=True)

    p = sub.add_parser("propose", help="propose entries from runs of one baseline (same key)")
    p.add_argument("runs", nargs="*", metavar="RUN", help="two or more identical baseline runs")
    p.add_argument("--owner", help="who will own the proposed entries")
    p.add_argument("--format", choices=("text", "json"), default="text")
    _common(p)
    p.set_defaults(handler=cmd_propose)

    a = sub.add_parser("add", help="list a case, with an owner, a reason and evidence")
    a.add_argument("case", metavar="CASE")
    a.add_argument("--owner", required=True, help="who repairs it")
    a.add_argument("--reason", required=True, help="why it flips")
    a.add_argument(
        "--evidence",
        help="how often it flipped across how many identical runs (default: measured from "
        "the workspace's baseline-repeats)",
    )
    a.add_argument(
        "--suite",
        action="append",
        default=[],
        metavar="RUN",
        help="a run of the suite: which cases exist and which are safety cases (repeatable)",
    )
    a.add_argument("--by", help="who makes this change (default: the owner)")
    _common(a)
    a.set_defaults(handler=cmd_add)

    r = sub.add_parser("remove", help="retire a repaired entry (kept under `retired:`)")
    r.add_argument("case", metavar="CASE")
    r.add_argument("--note", required=True, help="how it was repaired")
    r.add_argument("--by", help="who retires it (default: the entry's owner)")
    _common(r)
    r.set_defaults(handler=cmd_remove)

    c = sub.add_parser(
        "check", help="flag entries gone from the suite, or quiet long enough to release"
    )
    c.add_argument("runs", nargs="*", metavar="RUN", help="identical baseline runs, oldest first")
    c.add_argument(
        "--window",
        type=int,
        default=3,
        metavar="N",
        help="quiet in the last N runs: ready to release (default 3)",
    )
    c.add_argument("--format", choices=("text", "json"), default="text")
    _common(c)
    c.set_defaults(handler=cmd_check)
    return flaky
