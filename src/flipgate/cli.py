"""The command line: `flipgate gate` for CI, `flipgate open` for the app, and the tools around them.

Exit codes (SPEC §8): 0 PASS, 1 BLOCK, 3 INCONCLUSIVE, 4 INVALID, 2 bad usage or bad input;
`flipgate rank` (cli_rank.py): 0 a winner clears the incumbent, 1 none may replace it, 2 bad input.
Every input is loaded and validated before anything is written or drawn.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from flipgate.cli_args import (
    add_comparison_arguments,
    add_import_arguments,
    add_theme_argument,
    declared_change,
)
from flipgate.cli_flaky import add_flaky_parser
from flipgate.cli_rank import add_rank_parser, open_campaign
from flipgate.cli_stats import add_stats_parser
from flipgate.cli_suite import add_suite_parser
from flipgate.core.errors import InputError
from flipgate.core.gate.retired import NO_RETIREMENTS, Retirements
from flipgate.core.importers import ImportOptions, import_options
from flipgate.core.io.files import writing
from flipgate.core.io.listing import text_name
from flipgate.core.plural import plural
from flipgate.core.vocab import ARMS, REVIEW_DECISIONS, TRIAGE_CLASSES
from flipgate.present.text import literal, safe
from flipgate.streams import exit_code, guarded_stdout

if TYPE_CHECKING:
    from flipgate.core.gate.compare import Comparison
    from flipgate.core.gate.loosening import GateBase

BAD_INPUT = 2


def bundled_samples() -> Path:
    """The sample workspaces: shipped inside the wheel, or beside the source tree."""
    packaged = Path(__file__).parent / "sample_runs"
    return packaged if packaged.exists() else Path(__file__).parents[2] / "sample_runs"


DEFAULT_WORKSPACE = "listing-reviewer"


@dataclass(frozen=True)
class Inputs:
    """What a command compares: two runs, the gate spec and the flaky list, maybe a workspace."""

    baseline: Path
    candidate: Path
    gate: Path | None
    flaky: Path | None
    workspace: Path | None
    declared_change: tuple[str, ...]
    import_options: ImportOptions
    suite: Path | None = None  # the suite manifest: its retired cases are left out of b and c
    base_suite: Path | None = None  # the manifest where the change is going
    base_ref: str | None = None  # or the git revision where it is going (`gate --base-ref`)


def _add_run_arguments(parser: argparse.ArgumentParser) -> None:
    add_comparison_arguments(
        parser,
        runs="a workspace folder, or BASELINE CANDIDATE (run folders, run.yaml, Inspect logs or "
        "promptfoo results.json)",
    )
    parser.add_argument(
        "--suite",
        type=Path,
        metavar="FILE",
        help="suite manifest: its retired cases are left out of b and c (default: the "
        "workspace's suite.yaml)",
    )
    parser.add_argument(
        "--base-suite",
        type=Path,
        metavar="FILE",
        help="the suite manifest where the change is going: a retirement the change adds is INVALID",
    )


def _add_rerun_arguments(parser: argparse.ArgumentParser) -> None:
    for arm in ARMS:
        parser.add_argument(
            f"--rerun-{arm}",
            type=Path,
            metavar="RUN",
            help=f"the escalation's rerun results of the flipped cases, {arm} arm",
        )


def resolve_inputs(args: argparse.Namespace) -> Inputs:
    from flipgate.core.runs.workspace import is_workspace, load_workspace

    runs = [Path(r) for r in args.runs]
    workspace = None
    if len(runs) == 1:
        workspace = load_workspace(runs[0])
        baseline, candidate = workspace.baseline, workspace.candidate
    elif len(runs) == 2:
        baseline, candidate = runs
        if is_workspace(baseline):
            raise InputError(
                baseline, "a workspace stands alone: give a workspace, or BASELINE CANDIDATE"
            )
    else:
        raise InputError(
            Path(args.runs[2]), "give a workspace, or exactly two runs: BASELINE CANDIDATE"
        )
    gate = args.gate if args.gate is not None else (workspace.gate if workspace else None)
    flaky = args.flaky if args.flaky is not None else (workspace.flaky if workspace else None)
    suite = args.suite
    if suite is None and workspace is not None and (workspace.path / "suite.yaml").is_file():
        suite = workspace.path / "suite.yaml"
    return Inputs(
        baseline,
        candidate,
        gate,
        flaky,
        workspace.path if workspace else None,
        declared_change(args),
        import_options(vars(args)),
        suite,
        args.base_suite,
        getattr(args, "base_ref", None),  # only `gate` reads a base at a revision
    )


def load_comparison(
    inputs: Inputs, *, lean: bool = False, base: GateBase | None = None
) -> Comparison:
    """Load and validate everything, then apply the gate."""
    from flipgate.core.gate.compare import compare
    from flipgate.core.gate.flaky import load_flaky
    from flipgate.core.gate.spec import load_spec
    from flipgate.core.runs.reading import load_run

    spec = load_spec(inputs.gate)
    flaky = load_flaky(inputs.flaky)
    budgeted = frozenset(budget.metric for budget in spec.budgets)
    retired = _retirements(inputs)
    # One arm after the other: each read already uses every core, and the peak memory halves.
    baseline, candidate = (
        load_run(path, import_options=inputs.import_options, lean=lean, keep=budgeted)
        for path in (inputs.baseline, inputs.candidate)
    )
    return compare(
        baseline,
        candidate,
        spec,
        flaky,
        declared_change=inputs.declared_change,
        retired=retired,
        base=base,
    )


def _retirements(inputs: Inputs) -> Retirements:
    """The suite manifest's retired cases. Its reader imports pyarrow, which the gate on Parquet
    otherwise never loads (a tenth of a second of start-up): only when a manifest is named."""
    if inputs.suite is None and inputs.base_suite is None:
        return NO_RETIREMENTS
    from flipgate.core.suite.manifest import load_retirements

    return load_retirements(inputs.suite, inputs.base_suite, base_ref=inputs.base_ref)


def _base(args: argparse.Namespace, inputs: Inputs) -> GateBase | None:
    """The gate spec and flaky list where the change is going (SPEC §8 `--base-*`)."""
    from flipgate.core.gate.loosening import base_at_ref, base_from_files

    if args.base_ref is None:
        given = args.base_gate is not None or args.base_flaky is not None
        return base_from_files(args.base_gate, args.base_flaky) if given else None
    if any(named is not None for named in (args.base_gate, args.base_flaky, args.base_suite)):
        raise InputError(
            Path("--base-ref"),
            "give --base-ref, or --base-gate/--base-flaky/--base-suite: not both",
        )
    # The files this gate read, or those a workspace would hold: a file added in the change is
    # checked against the defaults, and one deleted in it, as the defaults against the base.
    where = inputs.workspace
    gate = inputs.gate or (where / "gate.yaml" if where else None)
    flaky = inputs.flaky or (where / "flaky.yaml" if where else None)
    return base_at_ref(args.base_ref, gate, flaky)


# --------------------------------------------------------------------------- commands


def cmd_gate(args: argparse.Namespace) -> int:
    from flipgate.core.gate.reruns import compare_with_reruns, write_rerun_plan
    from flipgate.core.runs.reading import load_run
    from flipgate.present import report
    from flipgate.present.reasons import summary

    inputs = resolve_inputs(args)
    reruns = _reruns(args)
    comparison = load_comparison(inputs, lean=True, base=_base(args, inputs))
    if reruns is not None:
        rerun_baseline, rerun_candidate = (
            load_run(path, import_options=inputs.import_options) for path in reruns
        )
        comparison = compare_with_reruns(
            comparison, rerun_baseline, rerun_candidate, declared_change=inputs.declared_change
        )
    result = comparison.result
    if args.rerun_plan is not None:
        if result.escalation is not None and result.escalation.action == "rerun_flipped":
            try:
                with writing(args.rerun_plan):
                    write_rerun_plan(
                        comparison,
                        args.rerun_plan,
                        summary(result),
                        overwrite=args.replace_rerun_plan,
                    )
            except FileExistsError:
                raise InputError(
                    args.rerun_plan, "exists: give --replace-rerun-plan to write over it"
                ) from None
            print(f"flipgate: rerun plan written to {safe(args.rerun_plan)}", file=sys.stderr)
        else:
            print(
                f"flipgate: no rerun plan: the verdict is {result.verdict}, not an INCONCLUSIVE full run",
                file=sys.stderr,
            )

    if args.format == "json":
        print(report.json_text(report.to_json(comparison)))
    elif args.format == "markdown":
        print(report.to_markdown(comparison))
    elif args.format == "junit":
        from flipgate.present.junit import to_junit

        sys.stdout.write(to_junit(comparison))
    else:
        Console(highlight=False).print(report.to_text(comparison), soft_wrap=True)
    return report.exit_code(result)


def cmd_open(args: argparse.Namespace) -> int:
    from flipgate.tui.settings import load_settings

    settings = load_settings(args.config)
    # a workspace with candidates/: cli_rank.py
    if (code := open_campaign(args, keymap=settings.keymap)) is not None:
        return code
    from flipgate.tui.app import make_app, run_app

    inputs = resolve_inputs(args)
    from flipgate.core.gate.flaky import load_flaky
    from flipgate.core.gate.spec import load_spec
    from flipgate.tui.session import load_runs

    load_spec(inputs.gate)
    load_flaky(inputs.flaky)
    app = make_app(
        inputs.baseline,
        inputs.candidate,
        inputs.gate,
        inputs.flaky,
        theme=args.theme,
        declared_change=inputs.declared_change,
        workspace=inputs.workspace,
        import_options=inputs.import_options,
        repeats=tuple(args.baseline_repeat),
        reruns=_reruns(args),
        keymap=settings.keymap,
    )
    # Every file is read and checked before any screen is drawn: bad input is an error on the
    # terminal and exit 2, as with `flipgate gate`. The app's worker then pairs and counts.
    with Console(stderr=True).status("reading the runs") as status:
        app.loaded = load_runs(app.sources, progress=status.update)
    return run_app(app)


def _reruns(args: argparse.Namespace) -> tuple[Path, Path] | None:
    if (args.rerun_baseline is None) != (args.rerun_candidate is None):
        raise InputError(
            Path("--rerun-baseline"), "give both --rerun-baseline and --rerun-candidate, or neither"
        )
    if args.rerun_baseline is None:
        return None
    for path in (args.rerun_baseline, args.rerun_candidate):
        _check_run_path(path)
    return args.rerun_baseline, args.rerun_candidate


def _check_run_path(path: Path) -> None:
    if not path.exists():
        raise InputError(path, "no such run (expected a run directory, its run.yaml, or a log)")


def cmd_import(args: argparse.Namespace) -> int:
    from flipgate.core.importers import read_external, write_run
    from flipgate.core.runs.reading import run_from_records

    imported = read_external(Path(args.log), import_options(vars(args)))
    # Validate as a run before writing, so a log we cannot gate on is never written out.
    run_from_records(
        imported.manifest, imported.records, source=imported.source, source_format=imported.tool
    )
    write_run(imported, Path(args.out_dir))
    for note in imported.notes:
        print(f"flipgate: note: {safe(note)}", file=sys.stderr)  # words from the log
    print(
        f"flipgate: wrote {plural(len(imported.records), 'repetition')} from {safe(args.log)} "
        f"to {safe(args.out_dir)}"
    )
    return 0


def cmd_decide(args: argparse.Namespace) -> int:
    from flipgate.core.decision.file import DecisionExistsError, decision_workspace, write_decision
    from flipgate.core.decision.record import InvalidDecision, Reviewer
    from flipgate.core.decision.review import build_record
    from flipgate.core.decision.signing import SigningError, find_signing_key
    from flipgate.core.triage.walk import checklist, load_walk, walk_path

    inputs = resolve_inputs(args)
    out = args.out or (inputs.workspace / "decisions" if inputs.workspace else Path("decisions"))
    try:
        reviewer = Reviewer.parse(args.reviewer) if args.reviewer else Reviewer.from_git()
        key = find_signing_key(args.key)
        comparison = load_comparison(inputs)
        unknown = sorted(set(args.case) - set(comparison.cases["case"]))
        if unknown:
            raise InputError(Path("--case"), f"in neither run: {', '.join(map(repr, unknown))}")
        # A triage walk left in the workspace for these runs goes into the record, as in the app.
        walk = load_walk(walk_path(inputs.workspace), comparison) if inputs.workspace else None
        record = build_record(
            comparison,
            workspace=decision_workspace(out),
            decision=args.decision,
            cause=args.cause,
            reason=args.reason,
            reviewer=reviewer,
            checklist=checklist(walk) if walk else (),
            cases_reviewed=args.case,
        )
        with writing(out):
            written = write_decision(record, key, out, allow_prompt=sys.stdin.isatty())
    except InvalidDecision as bad:
        raise InputError(
            Path(f"--{bad.field.split('.')[0].replace('_', '-')}"), bad.message
        ) from None
    except (SigningError, DecisionExistsError) as failed:
        print(f"flipgate: error: {safe(failed)}", file=sys.stderr)
        return BAD_INPUT
    print(f"flipgate: signed decision written to {safe(written)}")
    print(f"flipgate: verify with: flipgate verify {safe(written)}")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from flipgate.core.decision.file import verify_decision

    path = Path(args.decision_file)
    if not path.is_file():
        raise InputError(path, "no such decision file")
    result = verify_decision(path, args.allowed_signers)
    console = Console(highlight=False, soft_wrap=True)  # a path is never broken across lines
    for check in result.checks:
        mark = "✓" if check.ok else "✗"
        console.print(Text.assemble((f"{mark} {check.name}: ", "bold"), literal(check.why)))
    if result.ok:
        console.print(literal(f"verified: {path}", style="bold green"))
        return 0
    console.print(literal(f"NOT verified: {path}", style="bold red"))
    return 1


# --------------------------------------------------------------------------- parser


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="flipgate",
        description="Triage a red LLM regression gate. With no command, opens the app on the bundled sample runs.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    gate = sub.add_parser("gate", help="apply the gate to two runs and exit 0/1/3/4 (for CI)")
    _add_run_arguments(gate)
    gate.add_argument("--format", choices=("text", "json", "markdown", "junit"), default="text")
    base = gate.add_argument_group("the base: the gate as it stands where the change is going")
    base.add_argument(
        "--base-ref",
        metavar="REF",
        help="read gate.yaml, flaky.yaml and suite.yaml at this git revision",
    )
    base.add_argument("--base-gate", type=Path, metavar="FILE", help="the base's gate spec")
    base.add_argument("--base-flaky", type=Path, metavar="FILE", help="the base's flaky list")
    gate.add_argument(
        "--rerun-plan",
        type=Path,
        metavar="FILE",
        help="on an INCONCLUSIVE full run, write the rerun plan here (a new file)",
    )
    gate.add_argument(
        "--replace-rerun-plan",
        action="store_true",
        help="write the rerun plan over an existing file",
    )
    _add_rerun_arguments(gate)
    gate.set_defaults(handler=cmd_gate)

    open_ = sub.add_parser("open", help="open the triage app on a workspace or two runs")
    _add_run_arguments(open_)
    add_theme_argument(open_)
    _add_rerun_arguments(open_)
    open_.add_argument(
        "--baseline-repeat",
        action="append",
        default=[],
        type=Path,
        metavar="RUN",
        help="an identical baseline run, for the triage walk and flaky curation (repeatable; "
        "default: the workspace's baseline-repeats/)",
    )
    open_.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        help="settings (a keymap; docs/keys.md); default: $XDG_CONFIG_HOME/flipgate/config.yaml",
    )
    open_.set_defaults(handler=cmd_open)

    decide = sub.add_parser("decide", help="write a signed reviewer decision without the app")
    _add_run_arguments(decide)
    decide.add_argument("--decision", required=True, choices=REVIEW_DECISIONS)
    decide.add_argument(
        "--cause",
        required=True,
        choices=TRIAGE_CLASSES,
    )
    decide.add_argument("--reason", required=True, help="why; any Unicode is kept exactly")
    decide.add_argument("--reviewer", help='"Name <email>" (default: git user.name and user.email)')
    decide.add_argument(
        "--key", type=Path, help="SSH key to sign with (default: git user.signingkey)"
    )
    decide.add_argument("--case", action="append", default=[], help="a case reviewed (repeatable)")
    decide.add_argument("--out", type=Path, help="file or folder (default: WORKSPACE/decisions/)")
    decide.set_defaults(handler=cmd_decide)

    verify = sub.add_parser("verify", help="check a decision's signature, signer and runs")
    verify.add_argument("decision_file", metavar="DECISION_FILE")
    verify.add_argument(
        "--allowed-signers", type=Path, help="default: git's gpg.ssh.allowedSignersFile"
    )
    verify.set_defaults(handler=cmd_verify)

    imp = sub.add_parser(
        "import", help="write an Inspect AI or promptfoo log out as a run in our format"
    )
    imp.add_argument("log", metavar="LOG")
    imp.add_argument("out_dir", metavar="OUT_DIR")
    add_import_arguments(imp)
    imp.set_defaults(handler=cmd_import)
    add_flaky_parser(sub)
    add_rank_parser(sub)
    add_stats_parser(sub)
    add_suite_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    for arg in argv:  # a name from a shell in another locale: no file, report or key can hold it
        if (shown := text_name(arg)) is not None:
            print(f"flipgate: error: an argument that is not UTF-8 text: {shown}", file=sys.stderr)
            return BAD_INPUT
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:  # plain `flipgate`: the app on the bundled sample
        args = parser.parse_args(["open", str(bundled_samples() / DEFAULT_WORKSPACE)])
    with guarded_stdout() as stdout:
        try:
            code: int = args.handler(args)
        except InputError as exc:
            print(f"flipgate: error: {safe(exc)}", file=sys.stderr)  # values from the file
            code = BAD_INPUT
    return exit_code(code, stdout)
