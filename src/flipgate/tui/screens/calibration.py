"""The gate calibrated from identical baseline runs (the workspace's `baseline-repeats/`): every
pair's flips, how often the current spec cried wolf on them, and a proposed margin and flip cap
that `w` writes to a new file beside gate.yaml, never over it. The cases that flipped are listed
under it: enter (or a click) opens one in the runs open.

The pairs are gated in a thread worker; `flipgate.core.curation.calibrate` does all the counting.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerState

from flipgate.core.curation.calibrate import (
    Calibration,
    calibrate,
    free_name,
    write_proposed,
)
from flipgate.core.errors import InputError
from flipgate.core.gate.flaky import FlakyList
from flipgate.core.gate.spec import GateSpec
from flipgate.core.runs.model import Run
from flipgate.core.runs.workspace import REPEATS_FOLDER
from flipgate.present.calibration import (
    FLIPPED_WORDS,
    PAIR_COLUMNS,
    calibration_report,
    flip_counts,
    pair_rows,
    proposed_gate,
)
from flipgate.present.export import frame_of
from flipgate.present.glossary import CALIBRATION_TERMS
from flipgate.tui.bindings import bindings_for
from flipgate.tui.format import literal
from flipgate.tui.reach import Shown, open_case
from flipgate.tui.widgets.key_bar import KeyBar


class CalibrationScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = bindings_for("calibration")
    FOOTER_FIRST = ("export-csv",)  # the pairs' table is what a reviewer takes away from here
    TERMS = CALIBRATION_TERMS
    DEFAULT_CSS = """
    CalibrationScreen #calibration-header { height: auto; padding: 0 1; background: $boost; }
    CalibrationScreen VerticalScroll { padding: 0 1; }
    CalibrationScreen #flipped-title { margin-top: 1; color: $text-muted; }
    CalibrationScreen #flipped { height: auto; max-height: 12; border: none; padding: 0; }
    """

    def __init__(
        self,
        runs: list[Run],
        spec: GateSpec,
        flaky: FlakyList,
        gate: Path | None,
        folder: Path,
    ) -> None:
        super().__init__()
        self.runs, self.spec, self.flaky = runs, spec, flaky
        self.gate, self.folder = gate, folder
        self.calibration: Calibration | None = None

    def compose(self) -> ComposeResult:
        header = Text("Calibration  ", style="bold")
        header.append("identical baseline runs gated against each other: every flip is noise")
        yield Static(header, id="calibration-header")
        with VerticalScroll():
            yield Static(id="calibration-body")
        yield KeyBar()

    def on_mount(self) -> None:
        body = self.query_one("#calibration-body", Static)
        if len(self.runs) < 2:
            body.update(
                literal(
                    f"No identical baseline runs to compare: put them in {self.folder / REPEATS_FOLDER}/ "
                    "or open with --baseline-repeat RUN (repeatable)."
                )
            )
            return
        body.update(Text(f"gating {len(self.runs) * (len(self.runs) - 1)} pairs of runs..."))
        self._calibrate()

    @work(thread=True, exclusive=True, exit_on_error=False)
    def _calibrate(self) -> Calibration:
        return calibrate(self.runs, self.spec, self.flaky)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        body = self.query_one("#calibration-body", Static)
        if event.state == WorkerState.SUCCESS and isinstance(event.worker.result, Calibration):
            self.calibration = event.worker.result
            text = Text("\nw writes the proposed spec to a new file beside gate.yaml", style="dim")
            body.update(calibration_report(self.calibration, list_flipped=False))
            scroll = self.query_one(VerticalScroll)
            scroll.mount_all([*self._flipped(self.calibration), Static(text)])
            self.refresh_bindings()  # `w` now has something to write
        elif event.state == WorkerState.ERROR:
            body.update(literal(f"Not calibrated: {event.worker.error}"))

    def _flipped(self, calibration: Calibration) -> list[Static | OptionList]:
        """The cases that flipped, each with how many pairs it flipped in, to open."""
        counts = flip_counts(calibration)
        if not counts:
            return []
        pairs = len(calibration.pairs)
        title = f"{FLIPPED_WORDS} ({len(counts)}): enter opens one in the runs open"
        listed = OptionList(
            *(
                Option(literal(case) + Text(f"  in {n} of {pairs} pairs", style="dim"), id=case)
                for case, n in counts.items()
            ),
            id="flipped",
        )
        self.call_after_refresh(self._reach, listed)
        return [Static(title, id="flipped-title"), listed]

    def _reach(self, listed: OptionList) -> None:
        """The list focused and scrolled into view: at 80x24 it sits below the pairs' table."""
        listed.focus(scroll_visible=False)
        listed.scroll_visible(animate=False)

    @on(OptionList.OptionSelected, "#flipped")
    def _open(self, event: OptionList.OptionSelected) -> None:
        if self.calibration is not None and event.option.id is not None:
            open_case(self.app, event.option.id, self.calibration.flipped)

    def shown_table(self) -> Shown | None:
        """Each pair gated, as the table at the top shows it."""
        if self.calibration is None:
            return None
        return Shown("calibration-pairs", frame_of(PAIR_COLUMNS, pair_rows(self.calibration)))

    def offers(self, action: str) -> bool:
        """The footer offers `w` once there is a proposal to write."""
        return action != "write" or self.calibration is not None

    def action_write(self) -> None:
        if self.calibration is None:
            self.notify("Nothing to write yet.", title="calibration", severity="warning")
            return
        target = free_name(self.folder)
        try:
            text = proposed_gate(self.calibration, self.gate, date.today())
            write_proposed(text, target, self.gate)
        except (InputError, OSError) as error:
            self.notify(
                f"Not written: {error}", title="calibration", severity="error", markup=False
            )
            return
        self.notify(f"Wrote {target}; gate.yaml is untouched.", title="calibration", markup=False)

    def action_back(self) -> None:
        self.dismiss()
