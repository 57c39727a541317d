"""`flipgate rank`: which candidate, by the release rule, and may it replace the incumbent?

    flipgate rank INCUMBENT CANDIDATE [CANDIDATE ...] [--gate FILE] [--flaky FILE]
                  [--change COMPONENT] [--format text|json|markdown]
    flipgate rank WORKSPACE        # baseline/ is the incumbent, candidates/NAME/ the candidates

Exit codes, beside the gate's (0 PASS, 1 BLOCK, 3 INCONCLUSIVE, 4 INVALID): 0 a winner by the
release key clears the incumbent, 1 no candidate may replace it, 2 bad usage or bad input.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from flipgate.cli_args import add_comparison_arguments, declared_change
from flipgate.core.errors import InputError

if TYPE_CHECKING:
    from flipgate.tui.bindings import Keymap


def cmd_rank(args: argparse.Namespace) -> int:
    from flipgate.core.gate.flaky import load_flaky
    from flipgate.core.gate.spec import load_spec
    from flipgate.core.importers import import_options
    from flipgate.core.rank.campaign import is_campaign, load_campaign
    from flipgate.core.rank.ranking import rank
    from flipgate.core.runs.model import Run
    from flipgate.core.runs.reading import load_run
    from flipgate.present import ranking as report
    from flipgate.present.report import json_text

    paths = [Path(p) for p in args.runs]
    gate, flaky = args.gate, args.flaky
    named: list[tuple[str | None, Path]]
    if len(paths) == 1:
        if paths[0].exists() and not is_campaign(paths[0]):
            raise InputError(
                paths[0],
                "not a campaign workspace (baseline/ and candidates/NAME/): give one, or the "
                "runs, INCUMBENT CANDIDATE [CANDIDATE ...]",
            )
        campaign = load_campaign(paths[0])
        incumbent_path, named = campaign.incumbent, list(campaign.candidates)
        gate = gate if gate is not None else campaign.gate
        flaky = flaky if flaky is not None else campaign.flaky
    elif is_campaign(paths[0]):
        raise InputError(
            paths[0], "a workspace stands alone: give a workspace, or INCUMBENT CANDIDATE ..."
        )
    else:
        incumbent_path, named = paths[0], [(None, p) for p in paths[1:]]
    spec, flaky_list = load_spec(gate), load_flaky(flaky)
    options = import_options(vars(args))
    incumbent = load_run(incumbent_path, lean=True, import_options=options)

    def candidates() -> Iterator[tuple[str, Run]]:
        """One run at a time, loaded when the ranking reaches it: a workspace's name is its
        folder's, a run given on the command line is named by its run_id."""
        for name, path in named:
            run = load_run(path, lean=True, import_options=options)
            yield name or run.run_id, run

    ranking = rank(incumbent, candidates(), spec, flaky_list, declared_change=declared_change(args))
    if args.format == "json":
        print(json_text(report.to_json(ranking)))
    elif args.format == "markdown":
        print(report.to_markdown(ranking))
    else:
        Console(highlight=False).print(report.to_text(ranking), soft_wrap=True)
    return report.exit_code(ranking)


def open_campaign(args: argparse.Namespace, *, keymap: Keymap | None = None) -> int | None:
    """`flipgate open WORKSPACE` on a campaign: the candidates screen (None: not a campaign).

    As for a pair of runs, every file is read and checked before any screen is drawn."""
    from flipgate.core.gate.flaky import load_flaky
    from flipgate.core.gate.spec import load_spec
    from flipgate.core.importers import import_options
    from flipgate.core.rank.campaign import is_campaign, load_campaign, load_campaign_runs

    if len(args.runs) != 1 or not is_campaign(Path(args.runs[0])):
        return None
    from flipgate.tui.app import run_app
    from flipgate.tui.campaign import CampaignApp

    campaign = load_campaign(Path(args.runs[0]))
    load_spec(campaign.gate)
    load_flaky(campaign.flaky)
    with Console(stderr=True).status("reading the runs") as status:
        runs = load_campaign_runs(
            campaign, status.update, import_options=import_options(vars(args))
        )
    return run_app(CampaignApp(campaign, args.theme, loaded=runs, keymap=keymap))


def add_rank_parser(sub: Any) -> None:
    rank = sub.add_parser(
        "rank",
        help="rank candidates against the incumbent by the release rule; exit 0 when the winner "
        "clears it, 1 when none may replace it",
    )
    add_comparison_arguments(
        rank,
        runs="a workspace with baseline/ and candidates/NAME/, or INCUMBENT CANDIDATE [CANDIDATE ...]",
        spec=": its `aggregate` is the release rule",
        candidate="each candidate",
    )
    rank.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    rank.set_defaults(handler=cmd_rank)
