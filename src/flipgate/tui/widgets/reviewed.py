"""The decision screen's list of cases: the cases opened in the app and those the triage named
(about 100,000 at a million cases), each marked opened, added by hand or not reviewed.

`listing` builds what the list shows, case by case, in the screen's worker; `CaseList` paints a
line only when it is on screen (Textual's line API), so a search, a tick of every case listed or
the cursor moved costs the lines in view, never the cases.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import polars as pl
from rich.segment import Segment
from rich.style import Style
from textual.binding import BindingType
from textual.events import Click
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from flipgate.core.decision.review_log import Looked, added_by_hand, opened
from flipgate.core.vocab import TRIAGE_CLASSES, TriageClass
from flipgate.present.triage import TITLES
from flipgate.tui.bindings import bindings_for
from flipgate.tui.format import safe
from flipgate.tui.widgets.lines import CURSOR_BAR

# ASCII: a mark reads the same in every terminal and theme
OPENED, ADDED, NOT_REVIEWED = "[o]", "[+]", "[ ]"


@dataclass(frozen=True)
class Listing:
    """The cases of the list, in its order: their ids, their lines (id and the classes whose
    step named it), which were opened and which added by hand, and, by class, which it named."""

    ids: list[str]
    rows: list[str]
    opened: np.ndarray
    added: np.ndarray
    named: dict[TriageClass, np.ndarray]
    lowered: pl.Series  # the ids in lower case, for the search
    index: dict[str, int]  # the row of each case id
    widest: int  # the cells of the longest line


def listing(triaged: Mapping[str, Sequence[TriageClass]], log: Sequence[Looked]) -> Listing:
    """The list's cases: those the triage named (with its classes), then those opened that it
    did not name, from the review log `log`. Case by case: a worker's job past a few thousand."""
    seen = set(opened(log))
    cases = {**triaged, **{case: triaged.get(case, ()) for case in opened(log)}}
    ids = list(cases)
    by_hand = set(added_by_hand(log))
    shown = [safe(case) for case in ids]
    width = max(map(len, shown), default=0)
    rows = [
        f"{case:<{width}}  {', '.join(TITLES[k] for k in classes)}".rstrip()
        for case, classes in zip(shown, cases.values(), strict=True)
    ]
    return Listing(
        ids=ids,
        rows=rows,
        opened=np.fromiter((case in seen for case in ids), bool, len(ids)),
        added=np.fromiter((case in by_hand for case in ids), bool, len(ids)),
        named={
            k: named
            for k in TRIAGE_CLASSES
            if (named := np.fromiter((k in c for c in cases.values()), bool, len(ids))).any()
        },
        lowered=pl.Series(ids, dtype=pl.String).str.to_lowercase(),
        index={case: row for row, case in enumerate(ids)},
        widest=max(map(len, rows), default=0),
    )


class CaseList(ScrollView, can_focus=True):
    """The cases, one line each with its mark (opened, added by hand, not reviewed), a cursor on
    one; only the lines on screen are painted. `listed` are the cases shown (a search's), as
    indices into the listing's rows. A case opened is reviewed, and stays so; the others are
    ticked by hand."""

    @dataclass
    class Ticked(Message):
        """Cases (indices into the rows) added by hand to the cases reviewed, or taken off."""

        cases: Sequence[int]
        added: bool

    @dataclass
    class Opening(Message):
        """`case` asked to be opened in the drill-down, `cases` (those listed) for n/p."""

        case: str
        cases: Sequence[str]

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("cases-reviewed")

    def __init__(self, cases: Listing, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows, self.ids, self.opened = cases.rows, cases.ids, cases.opened.copy()
        self.widest = len(CURSOR_BAR) + len(OPENED) + 1 + cases.widest
        self.ticked = self.opened | cases.added  # reviewed: opened in the app, or added by hand
        self.listed: np.ndarray = np.arange(len(self.rows), dtype=np.intp)
        self.cursor = 0
        self.virtual_size = Size(self.widest, len(self.listed))

    def line(self, row: int) -> str:
        """Row `row` of those listed as it is painted, without the cursor's bar."""
        case = int(self.listed[row])
        mark = OPENED if self.opened[case] else ADDED if self.ticked[case] else NOT_REVIEWED
        return f"{mark} {self.rows[case]}"

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        row = scroll_y + y
        width = self.scrollable_content_region.width
        base = self.rich_style
        if row >= len(self.listed):
            return Strip.blank(width, base)
        under = row == self.cursor
        style = base + Style(reverse=True) if under else base
        bar = Segment(CURSOR_BAR if under else " ", base + Style(bold=True))
        strip = Strip([bar, Segment(self.line(row), style)])
        return strip.crop(scroll_x, scroll_x + width).adjust_cell_length(width, style)

    def show(self, listed: np.ndarray) -> None:
        self.listed, self.cursor = listed, 0
        self.virtual_size = Size(self.widest, len(listed))
        self.scroll_home(animate=False)
        self.refresh()

    def listed_ticked(self) -> int:
        return int(self.ticked[self.listed].sum())

    def on_click(self, event: Click) -> None:
        """A click puts the cursor on the case clicked; a double click opens it."""
        offset = event.get_content_offset(self)
        if offset is not None:
            self.action_move_to(int(self.scroll_offset.y) + offset.y)
            if event.chain >= 2:
                self.action_open_case()

    def action_tick(self) -> None:
        if not len(self.listed):
            return
        case = int(self.listed[self.cursor])
        if self.opened[case]:
            self.notify("opened in the app: the review log shows it reviewed", timeout=3)
            return
        self.ticked[case] = not self.ticked[case]
        self.refresh()
        self.post_message(self.Ticked([case], bool(self.ticked[case])))

    def action_tick_listed(self, ticked: bool) -> None:
        listed = self.listed
        changing = listed[~self.opened[listed] & (self.ticked[listed] != ticked)]
        self.ticked[changing] = ticked
        self.refresh()
        self.post_message(self.Ticked(changing.tolist(), ticked))

    def action_move(self, step: int) -> None:
        self.action_move_to(self.cursor + step)

    def current_case(self) -> str | None:
        return self.ids[self.listed[self.cursor]] if len(self.listed) else None

    def action_open_case(self) -> None:
        if (case := self.current_case()) is not None:
            self.post_message(self.Opening(case, [self.ids[i] for i in self.listed]))

    def mark_opened(self, index: int) -> None:
        """Case `index` was opened in the app: reviewed, for good."""
        self.opened[index] = self.ticked[index] = True
        self.refresh()

    def action_page(self, step: int) -> None:
        self.action_move(step * max(1, self.scrollable_content_region.height - 1))

    def action_move_to(self, row: int) -> None:
        if not len(self.listed):
            return
        last = len(self.listed) - 1
        self.cursor = max(0, min(last, row % len(self.listed) if row < 0 else row))
        self.scroll_to(y=self._in_view(self.cursor), animate=False, immediate=True)
        self.refresh()

    def _in_view(self, row: int) -> float:
        """The scroll that keeps `row` in view, moving as little as it can."""
        top, height = self.scroll_offset.y, max(1, self.scrollable_content_region.height)
        return min(row, max(top, row - height + 1))
