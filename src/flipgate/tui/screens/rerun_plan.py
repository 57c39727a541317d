"""The rerun-plan dialog (issue 23 item 4): what the plan takes (repetitions, tokens, cost) and
what it buys (the chance it resolves the verdict), the cheapest plan that reaches the target,
and the key that writes it. The target moves in steps of 5 points; each step prices the plan
again in a worker, through the session, as `flipgate gate --target` does. The app gates without
pricing (at a million cases pricing takes as long as the rest of the gate), so the first opening
prices it in that worker too, saying so meanwhile; the dialog closed without writing keeps the
price for the next opening."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Static

from flipgate.present.next_step import next_step
from flipgate.present.rerun_price import price_lines
from flipgate.session import Comparison, priced
from flipgate.tui.bindings import bindings_for
from flipgate.tui.format import literal
from flipgate.tui.widgets.key_bar import KeyBar

TARGET_STEP = 0.05


@dataclass(frozen=True)
class PlanClosed:
    """The comparison as the dialog left it (priced at the target shown, once priced), and
    whether to write its plan."""

    comparison: Comparison
    write: bool


class RerunPlanScreen(ModalScreen[PlanClosed]):
    """Dismissed with the comparison as priced and whether to write the plan."""

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("rerun-plan")
    DEFAULT_CSS = """
    RerunPlanScreen { align: center middle; }
    RerunPlanScreen > Vertical {
        width: 100; max-width: 100%; height: auto; max-height: 100%; padding: 0 1;
        border: round $primary; background: $surface;
    }
    RerunPlanScreen VerticalScroll { height: auto; max-height: 1fr; }
    """

    @dataclass
    class Priced(Message):
        comparison: Comparison

    def __init__(self, comparison: Comparison, target: float) -> None:
        """`target`: the chance to aim for, unless `comparison` was priced at one already."""
        super().__init__()
        self.comparison = comparison
        price = comparison.rerun_price
        self.target = price.target if price is not None else target

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "rerun plan"
            with VerticalScroll():
                yield Static(self._body(), id="plan-body")
        yield KeyBar()

    def on_mount(self) -> None:
        if self.comparison.rerun_price is None and self._plans:
            self._price(self.target)

    @property
    def _plans(self) -> bool:
        """A plan to price: a full run's rerun of the flipped cases (what `priced` prices)."""
        escalation = self.comparison.result.escalation
        return (
            escalation is not None
            and escalation.action == "rerun_flipped"
            and escalation.runs is not None
        )

    def _body(self) -> Table | Text:
        escalation = self.comparison.result.escalation
        price = self.comparison.rerun_price
        if escalation is None or not self._plans:
            return Text("no rerun plan: the gate decided")
        if price is None:
            cases = len(escalation.cases)
            return Text(f"pricing the plan for {cases:,} cases (what it takes and buys) …")
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold", no_wrap=True)
        table.add_column(overflow="fold")
        table.add_row("why", literal(next_step(escalation)))
        for label, value in price_lines(price):
            table.add_row(label, literal(value))
        table.add_row("target", Text(f"{price.target:.0%} (+ and - move it by 5 points)"))
        return table

    def action_write(self) -> None:
        if self.comparison.rerun_price is None:
            self.notify("Still pricing the plan.", title="rerun plan", severity="warning")
            return
        self.dismiss(PlanClosed(self.comparison, write=True))

    def action_cancel(self) -> None:
        self.dismiss(PlanClosed(self.comparison, write=False))

    def action_target(self, step: int) -> None:
        target = round(self.target + step * TARGET_STEP, 2)
        if 0 < target < 1:
            self.target = target
            self._price(target)

    @work(thread=True, exclusive=True, description="price")
    def _price(self, target: float) -> None:
        self.post_message(self.Priced(priced(self.comparison, target)))

    @on(Priced)
    def _priced(self, message: Priced) -> None:
        self.comparison = message.comparison
        self.query_one("#plan-body", Static).update(self._body())
