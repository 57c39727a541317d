"""The app on a campaign workspace (`baseline/` and `candidates/NAME/`): the candidates screen
first, then, for the candidate chosen, the usual gate overview of the incumbent against it.

It is the flipgate app with another job for its loading worker (`read`): the runs are read (or
taken as the CLI read them), every candidate is compared with the incumbent and ranked; opening
a candidate compares it again in a worker (the incumbent's side judged once, kept).
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import work
from textual.binding import BindingType
from textual.message import Message

from flipgate.core.gate.compare import ArmResults, compare, judge_arm
from flipgate.core.gate.flaky import FlakyList
from flipgate.core.rank.campaign import Campaign, CampaignRuns, load_campaign, load_campaign_runs
from flipgate.core.rank.ranking import rank
from flipgate.core.runs.reading import load_run
from flipgate.core.runs.workspace import find_repeats
from flipgate.tui.app import FlipgateApp
from flipgate.tui.bindings import Keymap, bindings_for
from flipgate.tui.messages import CandidateCompared, Ranked, Steps
from flipgate.tui.screens.candidates import CandidatesScreen
from flipgate.tui.screens.overview import OverviewScreen
from flipgate.tui.session import Sources, read_gate


def candidate_sources(campaign: Campaign, candidate: Path) -> Sources:
    """One candidate's overview is opened on the incumbent and it; what the overview writes (a
    rerun plan, the triage walk, decisions) goes into the campaign's folder."""
    return Sources(
        baseline=campaign.incumbent,
        candidate=candidate,
        gate=campaign.gate,
        flaky=campaign.flaky,
        declared_change=(),
        plan_folder=campaign.path,
        repeats=find_repeats(campaign.path),
    )


class CampaignApp(FlipgateApp):
    BINDINGS: ClassVar[list[BindingType]] = [*FlipgateApp.BINDINGS, *bindings_for("campaign")]

    def __init__(
        self,
        campaign: Campaign,
        theme: str = "dark",
        *,
        loaded: CampaignRuns | None = None,
        keymap: Keymap | None = None,
    ) -> None:
        sources = candidate_sources(campaign, campaign.candidates[0][1])
        super().__init__(sources, theme, keymap=keymap)
        self.campaign = campaign
        self.campaign_runs = loaded  # runs the CLI read (and checked) before the app started
        # Set by the loading worker: what a candidate's overview is compared with. The ranking
        # keeps no comparison, one is made when a candidate is opened: on ten candidates of
        # 100,000 cases, keeping all ten took the app's peak RSS from 2.1 to 2.4 GB.
        self.judged: ArmResults | None = None
        self.flaky = FlakyList()

    def read(self) -> Message:
        """Every candidate compared with the incumbent and ranked, for the candidates screen."""
        campaign = self.campaign
        # the spec, the flaky list, each run read and checked, the ranking, each candidate compared
        progress = Steps(self, 5 + 3 * len(campaign.candidates))
        spec, self.flaky = read_gate(progress, campaign.gate, campaign.flaky)
        runs = self.campaign_runs = self.campaign_runs or load_campaign_runs(campaign, progress)
        self.repeats = tuple(load_run(path) for path in self.sources.repeats)
        progress("comparing each candidate with the incumbent")
        self.judged = judge_arm("baseline", runs.incumbent, spec)
        ranking = rank(
            runs.incumbent,
            runs.candidates,
            spec,
            self.flaky,
            judged_baseline=self.judged,
            on_compared=lambda name, _: progress(f"compared {name} with the incumbent"),
        )
        return Ranked(ranking)

    def on_ranked(self, message: Ranked) -> None:
        self.switch_screen(CandidatesScreen(message.ranking))

    @work(thread=True, exclusive=True, exit_on_error=False, group="candidate")
    def on_candidates_screen_chosen(self, message: CandidatesScreen.Chosen) -> None:
        """The incumbent against the candidate chosen, compared as `flipgate open` compares."""
        assert self.campaign_runs is not None and self.judged is not None
        run = dict(self.campaign_runs.candidates)[message.name]
        incumbent, spec = self.campaign_runs.incumbent, self.judged.spec
        comparison = compare(incumbent, run, spec, self.flaky, judged_baseline=self.judged)
        self.post_message(CandidateCompared(message.name, comparison))

    def on_candidate_compared(self, message: CandidateCompared) -> None:
        path = dict(self.campaign.candidates)[message.name]
        self.sources = candidate_sources(self.campaign, path)  # the overview re-gates through it
        self.push_screen(OverviewScreen(message.comparison, self.sources, self.repeats))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "candidates":  # back to the candidates, from a candidate's overview only
            return isinstance(self.screen, OverviewScreen)
        return super().check_action(action, parameters)

    def action_candidates(self) -> None:
        if isinstance(self.screen, OverviewScreen):
            self.pop_screen()


def make_app_for_campaign(
    path: Path, theme: str = "dark", *, loaded: CampaignRuns | None = None
) -> CampaignApp:
    """The app on a campaign folder; `InputError` when it is not one, before any screen is drawn."""
    return CampaignApp(load_campaign(path), theme, loaded=loaded)
