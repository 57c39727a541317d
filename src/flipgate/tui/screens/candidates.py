"""The candidates screen: every candidate of a campaign against the incumbent, ranked by the
release rule, with the three labels (highest mean, winner, clears) marked and said apart.

Enter on a candidate opens the usual gate overview of the incumbent against it once the app's
worker has gated the pair (the progress line says so meanwhile, and enter waits); esc there comes
back here. Everything shown is `flipgate.core.rank`'s, in the words `flipgate rank` prints.

Where the table does not fit (80 columns), it goes compact rather than cut: the labels as their
marks (the legend in the border), the evidence without the sentence the summary below says in
full, and the completeness last; what is still too wide scrolls sideways with the candidate's
name fixed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Static

from flipgate.core.plural import plural
from flipgate.present.export import frame_of
from flipgate.present.glossary import CANDIDATES_TERMS
from flipgate.present.ranking import (
    COLUMNS,
    LABEL_WORDS,
    MARK_LEGEND,
    evidence_short,
    grid_words,
    key_words,
    marks,
    release_rule_words,
    summary_lines,
    table_rows,
)
from flipgate.session import Ranking
from flipgate.tui.bindings import bindings_for
from flipgate.tui.format import VERDICT_SYMBOL, literal
from flipgate.tui.reach import Shown
from flipgate.tui.widgets.key_bar import KeyBar
from flipgate.tui.widgets.progress_line import ProgressLine, waiting

COMPLETE = [name for name, _ in COLUMNS].index("complete")
COMPACT_COLUMNS = (*COLUMNS[:COMPLETE], *COLUMNS[COMPLETE + 1 :], COLUMNS[COMPLETE])
FRAME = 5  # the table's border and padding, and a scrollbar's column


class CandidateTable(DataTable[Text | str]):
    """The candidates, one row each; enter opens the one under the cursor (shown in the key bar,
    where the stock table's own enter is not)."""

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("candidates")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "select_cursor":  # one candidate gated at a time; the cursor still moves
            return waiting(self.screen, action)
        return True


class CandidatesScreen(Screen[None]):
    TERMS = CANDIDATES_TERMS
    DEFAULT_CSS = """
    CandidatesScreen #heading { height: auto; padding: 0 1; background: $surface; }
    CandidatesScreen DataTable {
        height: auto; max-height: 60%; border: round $foreground 30%; padding: 0 1;
        border-title-color: $foreground-muted;
    }
    CandidatesScreen DataTable:focus { border: round $primary; }
    CandidatesScreen #labels {
        height: 1fr; border: round $foreground 30%; border-title-color: $foreground-muted;
        padding: 0 1;
    }
    """

    @dataclass
    class Chosen(Message):
        """A candidate was chosen: the app opens its gate overview against the incumbent."""

        name: str

    def __init__(self, ranking: Ranking) -> None:
        super().__init__()
        self.ranking = ranking
        self.compact: bool | None = None  # decided by the width, once the screen has one

    def compose(self) -> ComposeResult:
        yield Static(id="heading")
        yield CandidateTable(
            id="candidates", cursor_type="row", zebra_stripes=True, fixed_columns=1
        )
        with VerticalScroll(id="labels") as labels:
            labels.border_title = "highest mean, winner, clears: three labels, never one"
            labels.can_focus = False
            yield Static(id="summary")
        yield ProgressLine()  # while a chosen candidate is gated
        yield KeyBar()

    def on_mount(self) -> None:
        self._lay_out()
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._fill())
        self.query_one(DataTable).focus()

    def on_resize(self) -> None:
        self._lay_out()

    def _fits(self) -> bool:
        """Whether the table in its full words fits across the screen."""
        rows = [tuple(name for name, _ in COLUMNS), *table_rows(self.ranking)]
        widths = [max(cell_len(row[i]) for row in rows) + 2 for i in range(len(COLUMNS))]
        return sum(widths) + 2 + FRAME <= self.size.width  # the verdict's symbol: 2 more

    def _lay_out(self) -> None:
        """The columns for the width: full where they fit, compact where not."""
        compact = not self._fits()
        if compact == self.compact:
            return
        self.compact = compact
        table = self.query_one(DataTable)
        table.clear(columns=True)
        for name, _justify in COMPACT_COLUMNS if compact else COLUMNS:
            table.add_column(name, key=name)
        table.border_title = (
            f"candidates · {MARK_LEGEND}"
            if compact
            else f"candidates · key: {key_words(self.ranking)}"
        )
        self.query_one("#heading", Static).update(self._heading())
        self._fill()

    def _heading(self) -> Text:
        ranking = self.ranking
        heading = Text.assemble(
            ("flipgate  ", "bold"),
            f"{plural(len(ranking.standings), 'candidate')} against the incumbent ",
            literal(ranking.incumbent.run_id, "bold"),
            f" on {grid_words(ranking)}",
            f" · release rule: {release_rule_words(ranking.rule)}",
        )
        if self.compact:  # the key, which the border has no room for
            heading.append(f" · key: {key_words(ranking)}")
        return heading

    def _fill(self) -> None:
        """Rows and sentences, coloured from the app's theme (refilled when it changes)."""
        theme = self.app.current_theme
        verdict_colour = {
            "PASS": theme.success,
            "BLOCK": theme.error,
            "INCONCLUSIVE": theme.warning,
            "INVALID": theme.secondary,
        }
        table = self.query_one(DataTable)
        cursor = table.cursor_row
        table.clear()
        rows = table_rows(self.ranking)
        for standing, row in zip(self.ranking.standings, rows, strict=False):
            name, labels, mean, key, group, complete, verdict, p = row
            winner = standing.name == self.ranking.winner
            if self.compact:
                labels = marks(self.ranking, standing.name, words=False)
                p = evidence_short(standing)
            cells = [
                literal(name, "bold" if winner else ""),
                Text(labels, style="bold"),
                Text(mean, justify="right"),
                Text(key, justify="right"),
                Text(group, justify="right"),
                Text(complete, style="" if standing.eligible else f"bold {theme.warning}"),
                Text(
                    f"{VERDICT_SYMBOL[verdict]} {verdict}", style=f"bold {verdict_colour[verdict]}"
                ),
                Text(p),
            ]
            table.add_row(*self._ordered(cells), key=standing.name)
        name, _labels, mean, key, *rest = rows[-1]
        incumbent: list[Text | str] = [
            Text(name, style="italic"),
            "",
            Text(mean, justify="right"),
            Text(key, justify="right"),
            *rest,
        ]
        table.add_row(*self._ordered(incumbent))
        # keyless: the row keys are the candidates' names, and one may be "incumbent"
        table.move_cursor(row=cursor)

        summary = Text()
        clears = theme.success if self.ranking.clears else theme.error
        for heading, words in summary_lines(self.ranking):
            style = f"bold {clears}" if heading == LABEL_WORDS["clears"] else "bold"
            summary.append_text(Text.assemble((f"{heading}: ", style), literal(words), "\n"))
        summary.rstrip()
        self.query_one("#summary", Static).update(summary)

    def shown_table(self) -> Shown:
        """The table in its full words, whatever the width shows: `flipgate rank`'s columns."""
        return Shown(
            "candidates", frame_of([name for name, _ in COLUMNS], table_rows(self.ranking))
        )

    def _ordered(self, cells: Sequence[Text | str]) -> list[Text | str]:
        """A row's cells in the order of the columns shown: compact puts completeness last."""
        if not self.compact:
            return list(cells)
        return [*cells[:COMPLETE], *cells[COMPLETE + 1 :], cells[COMPLETE]]

    @on(DataTable.RowSelected)
    def _selected(self, event: DataTable.RowSelected) -> None:
        name = event.row_key.value
        if name is None:  # the incumbent's row
            self.notify(
                "The incumbent is what every candidate is compared with: choose a candidate.",
                title="candidates",
            )
            return
        self.post_message(self.Chosen(name))
