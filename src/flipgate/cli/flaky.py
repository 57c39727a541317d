"""`flipgate flaky`: propose, add, retire and check flaky-list entries from the command line.

    flipgate flaky propose RUN RUN [RUN ...] [--owner NAME] [--format text|json]
    flipgate flaky propose --rejudged RUN PASS [PASS ...] [--owner NAME] [--format text|json]
    flipgate flaky add CASE --owner NAME --reason TEXT [--evidence TEXT] [--suite RUN ...]
    flipgate flaky remove CASE --note TEXT
    flipgate flaky check [RUN ...] [--window N] [--format text|json]

Every subcommand takes `--workspace DIR` (its flaky.yaml, gate.yaml, baseline and
baseline-repeats/ become the defaults), `--flaky FILE` and `--gate FILE`; `add` and `remove` edit
only a list so named. Exit codes: 0 done, 1 `check` found a problem in the list, 2 bad usage or
bad input (nothing written).
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

from flipgate.cli.arguments import Commands, add_curation_arguments, curation_request
from flipgate.core.curation.entries import add, remove
from flipgate.core.curation.flips import FlipRecord, Proposal, propose
from flipgate.core.curation.judge import propose_unstable
from flipgate.core.curation.review import CheckReport, check
from flipgate.core.errors import InputError
from flipgate.core.gate.flaky import FlakyList
from flipgate.core.gate.judge import judge_repeats
from flipgate.core.runs.model import Run
from flipgate.core.vocab import ARMS
from flipgate.present.curation import done_words
from flipgate.present.report import json_text
from flipgate.present.text import literal, safe
from flipgate.session import (
    CurationRequest,
    read_arms,
    read_flaky,
    read_identical,
    read_judgings,
    read_runs,
    read_spec,
)

OK, PROBLEM = 0, 1


def _console() -> Console:
    # Rich drops colour by itself when stdout is not a terminal (or NO_COLOR is set); a line
    # longer than the terminal is left whole for it to wrap, not broken mid-sentence at 80.
    return Console(highlight=False, soft_wrap=True)


def _print_json(data: dict[str, Any]) -> None:
    print(json_text(data))


# --------------------------------------------------------------------------- propose


def cmd_propose(args: argparse.Namespace) -> int:
    request = curation_request(args)
    spec, flaky = read_spec(request), read_flaky(request)
    if args.rejudged:
        run, passes = read_judgings(request)
        measured = judge_repeats(ARMS[0], run, passes, spec)
        proposal = propose_unstable(measured, run, spec, flaky, args.owner)
    else:
        proposal = propose(read_identical(request, at_least=2), spec, flaky, args.owner)
    if args.format == "json":
        _print_json(proposal.to_json())
    else:
        _print_proposal(_console(), proposal, request.flaky)
    return OK


def _flips_table(records: Sequence[FlipRecord], evidence: Sequence[str] | None = None) -> Table:
    """A row per record: its flips and its evidence (`evidence`, else the record's own)."""
    table = Table(box=None, pad_edge=False, show_header=True, header_style="bold")
    table.add_column("case", no_wrap=True)
    table.add_column("flips", justify="right")
    table.add_column("evidence")
    said = evidence if evidence is not None else [record.evidence() for record in records]
    for record, words in zip(records, said, strict=True):
        table.add_row(literal(record.case), str(record.flips), literal(words))
    return table


def runs_words(proposal: Proposal) -> str:
    """What the proposal read across: identical runs, or one run's outputs judged again."""
    if proposal.judge_alone:
        return f"{len(proposal.runs)} judgings of one run's stored outputs"
    return f"{len(proposal.runs)} identical baseline runs"


def _print_proposal(console: Console, proposal: Proposal, path: Path | None) -> None:
    console.print(Text.assemble(f"{runs_words(proposal)}: ", literal(", ".join(proposal.runs))))
    console.print(
        Text.assemble(
            f"flaky list {safe(path or 'none')}: {proposal.listed} listed, cap {proposal.cap} of "
            f"{proposal.suite_cases} cases, {proposal.slots_left} slots left\n",
            (f"digest {proposal.flaky_digest}", "dim"),
        )
    )
    console.print()
    if proposal.entries:
        console.print(Text(f"Proposed entries ({len(proposal.entries)}):", style="bold"))
        entries = proposal.entries
        console.print(_flips_table([e.record for e in entries], [e.evidence for e in entries]))
        if len(proposal.entries) > proposal.slots_left:
            console.print(
                f"Only {proposal.slots_left} of them fit under the cap: repair and retire "
                "entries, or choose."
            )
    else:
        between = "judgings" if proposal.judge_alone else "runs"
        console.print(f"Nothing to propose: no unlisted case flipped between these {between}.")
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


def _measured_evidence(case: str, suite: Sequence[Run], request: CurationRequest) -> str:
    """How `case` flipped across the workspace's identical baseline runs (else the suite runs)."""
    identical = read_runs(request.identical) if request.workspace else []
    try:
        proposal = propose(
            identical if len(identical) >= 2 else list(suite), read_spec(request), FlakyList(), None
        )
    except InputError:
        proposal = None
    records = (
        [e.record for e in proposal.entries] + list(proposal.safety_findings) if proposal else []
    )
    record = next((r for r in records if r.case == case), None)
    if record is None:
        raise InputError(
            request.flaky_file,
            f"--evidence is required: {case!r} did not flip in identical baseline runs given "
            "here; say how often it flipped across how many runs",
            field="evidence",
        )
    return record.evidence()


def cmd_add(args: argparse.Namespace) -> int:
    request = curation_request(args)
    path = request.flaky_file
    suite_paths = [Path(p) for p in args.suite] or list(request.arms or ())
    if not suite_paths:
        raise InputError(
            path, "give --suite RUN (or --workspace): the suite says which cases exist"
        )
    suite = read_runs(suite_paths)
    evidence = args.evidence or _measured_evidence(args.case, suite, request)
    edit = add(
        path,
        args.case,
        args.owner,
        args.reason,
        evidence,
        date.today(),
        suite=suite,
        spec=read_spec(request),
        by=args.by,
    )
    _console().print(Text.assemble(literal(done_words(edit)), f"\nwrote {edit.path}"))
    return OK


def cmd_remove(args: argparse.Namespace) -> int:
    edit = remove(curation_request(args).flaky_file, args.case, args.note, date.today(), by=args.by)
    _console().print(Text.assemble(literal(done_words(edit)), f"\nwrote {edit.path}"))
    return OK


# --------------------------------------------------------------------------- check


def cmd_check(args: argparse.Namespace) -> int:
    request = curation_request(args)
    path = request.flaky_file
    report = check(
        path,
        read_identical(request, at_least=1),
        read_spec(request),
        today=date.today(),
        window=args.window,
        judged=read_arms(request),
    )
    if args.format == "json":
        _print_json(report.to_json())
    else:
        _print_check(_console(), report, path)
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


def add_parser(sub: Commands) -> None:
    """Register `flaky` and its subcommands; each sets `handler(args) -> exit code`."""
    flaky = sub.add_parser(
        "flaky", help="curate the flaky list: propose, add, remove (retire), check"
    )
    sub = flaky.add_subparsers(dest="flaky_command", metavar="SUBCOMMAND", required=True)

    p = sub.add_parser("propose", help="propose entries from runs of one baseline (same key)")
    add_curation_arguments(p, runs="two or more identical baseline runs")
    p.add_argument("--owner", help="who will own the proposed entries")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument(
        "--rejudged",
        action="store_true",
        help="the RUNs are one run and judgings of its stored outputs (default: the workspace's "
        "baseline and rejudged/baseline/): propose the cases unstable under the judge alone",
    )
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
    add_curation_arguments(a, runs=None)
    a.set_defaults(handler=cmd_add)

    r = sub.add_parser("remove", help="retire a repaired entry (kept under `retired:`)")
    r.add_argument("case", metavar="CASE")
    r.add_argument("--note", required=True, help="how it was repaired")
    r.add_argument("--by", help="who retires it (default: the entry's owner)")
    add_curation_arguments(r, runs=None)
    r.set_defaults(handler=cmd_remove)

    c = sub.add_parser(
        "check", help="flag entries gone from the suite, or quiet long enough to release"
    )
    add_curation_arguments(c, runs="identical baseline runs, oldest first")
    c.add_argument(
        "--window",
        type=int,
        default=3,
        metavar="N",
        help="quiet in the last N runs: ready to release (default 3)",
    )
    c.add_argument("--format", choices=("text", "json"), default="text")
    c.set_defaults(handler=cmd_check)
