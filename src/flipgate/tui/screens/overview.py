"""The gate overview, the home screen: verdict, flip matrix, cache key, outcomes, what was left
out, and on INCONCLUSIVE the next step with its rerun plan.

Panels stack in one column below `NARROW` columns so an 80x24 terminal still shows everything
(the column scrolls, and the focused panel is scrolled into view).
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from flipgate.core.errors import InputError
from flipgate.core.runs.model import Run
from flipgate.core.suite.manifest import MANIFEST
from flipgate.core.triage.walk import walk_path
from flipgate.present.glossary import OVERVIEW_TERMS
from flipgate.present.next_step import next_step
from flipgate.present.reasons import summary
from flipgate.session import Comparison, GateRequest, write_rerun_plan
from flipgate.tui.bindings import bindings_for, shown_keys
from flipgate.tui.format import literal
from flipgate.tui.messages import RegateRequested
from flipgate.tui.reach import Focused
from flipgate.tui.screens.calibration import CalibrationScreen
from flipgate.tui.screens.flaky import FlakyScreen
from flipgate.tui.screens.red_cases import RedCasesScreen
from flipgate.tui.screens.rerun_plan import PlanClosed, RerunPlanScreen
from flipgate.tui.screens.suite import SuiteScreen
from flipgate.tui.screens.triage import TriageScreen
from flipgate.tui.widgets import (
    BudgetsPanel,
    EscalationPanel,
    FlipMatrix,
    InfraPanel,
    KeyDiff,
    LeftOutPanel,
    OutcomesPanel,
    Panel,
    PowerPanel,
    ReconciliationPanel,
    TitleBar,
    VerdictBanner,
)
from flipgate.tui.widgets.flip_matrix import WIDTH as MATRIX_WIDTH
from flipgate.tui.widgets.judge import JudgePanel
from flipgate.tui.widgets.key_bar import KeyBar
from flipgate.tui.widgets.progress_line import ProgressLine, waiting

NARROW = 120  # columns below which the panels stack
PLAN_NAME = "rerun-plan.yaml"


class Panels(VerticalScroll, inherit_bindings=False):
    """The scrolling column of panels; arrows belong to the panels, so only paging keys here."""

    BINDINGS: ClassVar[list[BindingType]] = [
        ("pageup", "page_up"),
        ("pagedown", "page_down"),
        ("home", "scroll_home"),
        ("end", "scroll_end"),
    ]
    can_focus = False


def free_plan_name(folder: Path) -> Path:
    """The first of rerun-plan.yaml, rerun-plan-2.yaml, ... not yet taken."""
    target = folder / PLAN_NAME
    n = 2
    while target.exists():
        target = folder / f"rerun-plan-{n}.yaml"
        n += 1
    return target


class ConfirmPlanScreen(ModalScreen[str | None]):
    """The plan file exists: write under a new name (the default), overwrite, or cancel."""

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("confirm-plan")
    DEFAULT_CSS = """
    ConfirmPlanScreen { align: center middle; }
    ConfirmPlanScreen > Vertical { width: 72; max-width: 100%; height: auto; padding: 1 2; }
    """

    def __init__(self, existing: Path, new_name: Path) -> None:
        super().__init__()
        self.existing, self.new_name = existing, new_name

    def compose(self) -> ComposeResult:
        choices = {
            shown_keys(self.app, "plan-new-name"): Text.assemble(
                "write ", literal(self.new_name.name), " instead"
            ),
            shown_keys(self.app, "plan-overwrite"): Text("overwrite it"),
            shown_keys(self.app, "plan-cancel"): Text("cancel"),
        }
        width = max(len(keys) for keys in choices) + 2
        text = literal(str(self.existing))
        text.append(" already exists.\n")
        for keys, does in choices.items():
            text.append(f"\n{keys}", "bold")
            text.append(" " * (width - len(keys)))
            text.append_text(does)
        with Vertical() as box:
            box.border_title = "rerun plan"
            yield Static(text)
        yield KeyBar()

    def action_new_name(self) -> None:
        self.dismiss("new")

    def action_overwrite(self) -> None:
        self.dismiss("overwrite")

    def action_cancel(self) -> None:
        self.dismiss(None)


class OverviewScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = bindings_for("overview")
    TERMS = OVERVIEW_TERMS
    DEFAULT_CSS = f"""
    OverviewScreen .row {{ height: auto; }}
    OverviewScreen .row > Panel {{ width: 1fr; }}
    OverviewScreen .row > FlipMatrix {{ width: {MATRIX_WIDTH}; }}
    OverviewScreen .row > OutcomesPanel {{ width: 3fr; }}  /* a count and a cost per arm */
    OverviewScreen .row > ReconciliationPanel {{ width: 2fr; }}
    OverviewScreen.-narrow .row {{ layout: vertical; }}
    OverviewScreen.-narrow .row > Panel {{ width: 100%; }}
    """

    def __init__(
        self, comparison: Comparison, request: GateRequest, repeats: tuple[Run, ...] = ()
    ) -> None:
        super().__init__()
        self.comparison = comparison
        self.request = request
        self.plan_folder = request.folder
        self.repeats = repeats

    def compose(self) -> ComposeResult:
        comparison = self.comparison
        result = comparison.result
        yield TitleBar(result.runs["baseline"], result.runs["candidate"], result.suite)
        yield ProgressLine()  # while the gate is applied again
        with Panels():
            yield VerdictBanner(comparison, id="verdict")
            if result.escalation is not None:
                yield EscalationPanel(comparison, id="escalation")
            with Horizontal(classes="row"):
                yield FlipMatrix(comparison, id="matrix")
                yield PowerPanel(comparison, id="power")
            yield KeyDiff(comparison, id="key")
            if comparison.judge_repeats:  # rejudged/: the judge measured alone
                yield JudgePanel(comparison, id="judge")
            with Horizontal(classes="row"):
                yield OutcomesPanel(comparison, id="outcomes")
                # Pass/fail runs have no decisions to reconcile: one panel says so, full width.
                if any(summary.decisions for summary in result.outcomes.values()):
                    yield ReconciliationPanel(comparison, id="reconciliation")
            with Horizontal(classes="row"):
                yield InfraPanel(comparison, id="infra")
                yield LeftOutPanel(comparison, id="left-out")
            if result.budgets:
                yield BudgetsPanel(comparison, id="budgets")
        yield KeyBar()

    def on_mount(self) -> None:
        self.set_class(self.app.size.width < NARROW, "-narrow")  # before the first frame
        # The verdict stays in view on a short terminal: focus without scrolling to the matrix.
        self.query_one(FlipMatrix).focus(scroll_visible=False)

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.width < NARROW, "-narrow")
        for panel in self.query(Panel):  # a short terminal: the leading panels say their gist
            panel.refresh(layout=True)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return waiting(self, action)

    def offers(self, action: str) -> bool:
        """The footer leaves out the rerun plan's keys without a plan (pressed, they say why)."""
        return self.has_rerun_plan or action not in ("export_plan", "load_reruns")

    def focused_text(self) -> Focused:
        """What `y` copies here: the verdict line."""
        return Focused("verdict line", summary(self.comparison.result))

    @property
    def has_rerun_plan(self) -> bool:
        escalation = self.comparison.result.escalation
        return escalation is not None and escalation.action == "rerun_flipped"

    # ------------------------------------------------------------------ navigation

    def action_next_panel(self) -> None:
        self.focus_next()

    def action_previous_panel(self) -> None:
        self.focus_previous()

    def action_open(self) -> None:
        focused = self.focused
        self.open_red_cases(focused.drill_filter if isinstance(focused, Panel) else None)

    @on(FlipMatrix.CellChosen)
    def _cell_chosen(self, event: FlipMatrix.CellChosen) -> None:
        self.open_red_cases(event.cell)

    def action_red_cases(self) -> None:
        self.open_red_cases(None)

    def action_search(self) -> None:
        self.open_red_cases(None, search=True)

    def open_red_cases(self, cell: str | None, *, search: bool = False) -> None:
        """Push the red-case table, filtered to a kind (`pass_to_fail`, `unpaired`, ...) or not."""
        screen = RedCasesScreen(self.comparison, filter=cell)
        self.app.push_screen(screen)
        if search:
            screen.call_after_refresh(screen.run_action, "search")

    # ------------------------------------------------------------------ rerun plan

    def action_export_plan(self) -> None:
        escalation = self.comparison.result.escalation
        if not self.has_rerun_plan:
            why = (
                f"the gate says {self.comparison.result.verdict}"
                if escalation is None
                else next_step(escalation)
            )
            self.notify(
                f"No rerun plan to export: {why}.",
                title="rerun plan",
                severity="warning",
                markup=False,
            )
            return

        def chosen(closed: PlanClosed | None) -> None:
            if closed is not None:
                self.comparison = closed.comparison  # priced at the target chosen, and kept
                if closed.write:
                    self._export_plan()

        self.app.push_screen(RerunPlanScreen(self.comparison, self.request.rerun_target), chosen)

    def _export_plan(self) -> None:
        """Write the plan: a new file, or the choice of a new name or overwriting it."""
        target = self.plan_folder / PLAN_NAME
        if not target.exists():
            self._write_plan(target, overwrite=False)
            return
        new_name = free_plan_name(self.plan_folder)

        def chosen(choice: str | None) -> None:
            if choice == "overwrite":
                self._write_plan(target, overwrite=True)
            elif choice == "new":
                self._write_plan(new_name, overwrite=False)

        self.app.push_screen(ConfirmPlanScreen(target, new_name), chosen)

    def _write_plan(self, target: Path, *, overwrite: bool) -> None:
        try:
            why = summary(self.comparison.result)
            write_rerun_plan(self.comparison, target, why, overwrite=overwrite)
        except (InputError, OSError) as error:
            self.notify(f"Not written: {error}", title="rerun plan", severity="error", markup=False)
            return
        cases = len(self.comparison.result.flipped)
        self.notify(f"Wrote {target} ({cases} cases).", title="rerun plan", markup=False)

    # ------------------------------------------------------------------ triage, flaky list, reruns

    def action_triage(self) -> None:
        """The five-class checklist, resumed where it was left, ending at the signed decision."""
        self.app.push_screen(
            TriageScreen(
                self.comparison,
                walk_path(self.plan_folder),
                self.repeats,
                workspace=self.plan_folder,
            )
        )

    def action_flaky_list(self) -> None:
        """Curate the flaky list; the gate is applied again with the list as it is afterwards."""
        comparison = self.comparison
        screen = FlakyScreen(
            self.request.flaky_path,
            [comparison.baseline, comparison.candidate],
            list(self.repeats),
            comparison.spec,
            cases=comparison.cases,
        )

        def closed(_: None) -> None:  # the list may have changed: the gate is applied again
            self.post_message(RegateRequested(comparison))

        self.app.push_screen(screen, closed)

    def action_calibrate(self) -> None:
        """Gate the baseline against its identical repeats; propose a margin and a flip cap."""
        comparison = self.comparison
        self.app.push_screen(
            CalibrationScreen(
                [comparison.baseline, *self.repeats],
                comparison.spec,
                comparison.flaky,
                self.request.gate,
                self.plan_folder,
            )
        )

    def action_suite_health(self) -> None:
        """The suite-health screen of the suite whose manifest the gate reads (seed 002)."""
        workspace = self.request.suite_workspace
        if workspace is None:
            suite = self.request.suite
            read = (
                "no suite manifest" if suite is None else f"{suite}, not a workspace's {MANIFEST}"
            )
            self.notify(
                f"No suite health to show: the gate reads {read}.",
                title="suite health",
                severity="warning",
                markup=False,
            )
            return
        comparison = self.comparison

        def closed(retired: bool | None) -> None:
            if retired:  # the gate leaves the newly retired cases out of b and c
                self.post_message(RegateRequested(comparison))

        self.app.push_screen(SuiteScreen(workspace), closed)

    def action_load_reruns(self) -> None:
        """Load the rerun results of both arms and show the second verdict beside the first."""
        result = self.comparison.result
        if not self.has_rerun_plan:
            why = (
                "the rule was already applied twice"
                if result.previous
                else f"the gate says {result.verdict}"
            )
            self.notify(
                f"No reruns to load: {why}.", title="reruns", severity="warning", markup=False
            )
            return
        if self.request.rerun_paths() is None:
            folder = self.request.rerun_folder
            self.notify(
                f"Put the rerun results in {folder}/baseline and {folder}/candidate, or open with "
                "--rerun-baseline RUN --rerun-candidate RUN.",
                title="reruns",
                severity="warning",
                markup=False,
            )
            return
        self.post_message(RegateRequested(self.comparison, reruns=True))
