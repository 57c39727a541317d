"""The app on a campaign workspace (`baseline/` and `candidates/NAME/`): the candidates screen
first, then, for the candidate chosen, the usual gate overview of the incumbent against it.

It is the gate app with another job for its loading worker (`read`): the campaign is read, every
candidate compared with the incumbent and ranked; opening a candidate gates that pair in a worker
(the incumbent's side judged once, kept), under the same terms as `flipgate gate BASELINE
candidates/NAME` with the same arguments, the candidates screen's progress line saying so
meanwhile (seconds at a million cases) and its keys waiting.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import ClassVar

from textual import work
from textual.binding import BindingType
from textual.message import Message
from textual.worker import Worker, WorkerState

from flipgate.session import (
    ArmResults,
    CampaignInputs,
    Comparison,
    GateRequest,
    Terms,
    gate,
    rank_campaign,
    read_campaign,
    reading_steps,
)
from flipgate.tui.app import GateApp
from flipgate.tui.bindings import Keymap, bindings_for
from flipgate.tui.collector import building
from flipgate.tui.messages import CandidateCompared, Ranked, Steps
from flipgate.tui.screens.candidates import CandidatesScreen
from flipgate.tui.screens.overview import OverviewScreen
from flipgate.tui.widgets.progress_line import ProgressLine


class CampaignApp(GateApp):
    BINDINGS: ClassVar[list[BindingType]] = [*GateApp.BINDINGS, *bindings_for("campaign")]

    def __init__(
        self,
        request: GateRequest,
        theme: str = "dark",
        *,
        campaign: CampaignInputs | None = None,
        terms: Terms | None = None,
        keymap: Keymap | None = None,
        settings_path: Path | None = None,
    ) -> None:
        # The pair the overview gates is set when a candidate is opened; until then, the first.
        super().__init__(request, theme, terms=terms, keymap=keymap, settings_path=settings_path)
        self.campaign_request = request
        self.campaign = campaign  # read already (`flipgate serve`'s), else by the loading worker
        # Set by the loading worker: what a candidate's overview is compared with. The ranking
        # keeps no comparison, one is made when a candidate is opened: on ten candidates of
        # 100,000 cases, keeping all ten took the app's peak RSS from 2.1 to 2.4 GB.
        self.judged: ArmResults | None = None

    def read(self) -> Message:
        """Every candidate compared with the incumbent and ranked, for the candidates screen."""
        request = self.campaign_request
        # the reads, the incumbent judged, each candidate compared
        terms, campaign = self.terms, self.campaign
        reading = 0 if campaign is not None else reading_steps(request, terms=terms is None)
        progress = Steps(self, reading + 1 + len(request.candidates))
        campaign = self.campaign = campaign or read_campaign(request, progress, terms=terms)
        ranking, self.judged = rank_campaign(campaign, progress)
        return Ranked(ranking)

    def on_ranked(self, message: Ranked) -> None:
        self.switch_screen(CandidatesScreen(message.ranking))

    @work(
        thread=True, exclusive=True, exit_on_error=False, group="candidate", description="candidate"
    )
    def on_candidates_screen_chosen(self, message: CandidatesScreen.Chosen) -> None:
        self.post_message(CandidateCompared(message.name, self.compare_candidate(message.name)))

    def compare_candidate(self, name: str) -> Comparison:
        """The chosen candidate's worker's job: the incumbent against it, gated as `flipgate
        open` gates the pair (the incumbent's side taken as the ranking judged it; the rerun
        plan priced when its screen opens), its step shown on the candidates screen."""
        assert self.campaign is not None and self.judged is not None
        with building():  # as the pair's load: kept out of the collections the screens cause
            return gate(self.campaign.pair(name), Steps(self, 1), judged=self.judged, price=False)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A candidate's gate that failed is said, and the candidates screen's keys work again."""
        if event.worker.group == "candidate" and event.state == WorkerState.ERROR:
            self._candidate_done()
            error = event.worker.error
            self.notify(str(error), title="gate", severity="error", markup=False)

    def _candidate_done(self) -> None:
        for line in self.screen.query(ProgressLine):
            line.finish()

    def regated(self, comparison: Comparison, *, reruns: bool = False) -> Comparison:
        """The pair's re-gate; the next candidate opened is judged by the lists as they now are
        (the ranking on the candidates screen stays as it was made)."""
        updated = super().regated(comparison, reruns=reruns)
        if self.campaign is not None and self.inputs is not None:
            self.campaign = replace(self.campaign, terms=self.inputs.terms)
        return updated

    def on_candidate_compared(self, message: CandidateCompared) -> None:
        assert self.campaign is not None
        self._candidate_done()  # the candidates screen's keys back for when esc returns there
        self.inputs = self.campaign.pair(message.name)  # the overview re-gates through it
        self.request = self.inputs.request
        self.push_screen(OverviewScreen(message.comparison, self.request, self.inputs.repeats))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "candidates":  # back to the candidates, from a candidate's overview only
            return isinstance(self.screen, OverviewScreen)
        return super().check_action(action, parameters)

    def action_candidates(self) -> None:
        if isinstance(self.screen, OverviewScreen):
            self.pop_screen()
