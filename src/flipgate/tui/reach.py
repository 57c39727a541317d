"""What a reviewer takes from any screen: the text in focus copied (`y`, OSC 52) or opened in the
pager (`o`), the table shown written to a file (`x` CSV, `X` Markdown), and any case opened by
its id (`:`).

A screen says what it has by two optional methods, which the app's actions ask:

    focused_text() -> Focused | None    the case id, output, reason or verdict line in focus
    shown_table() -> Shown | None       the rows the screen shows, as a frame of text

Text goes out literally: the pager gets it with every hidden character shown (`present.text.
safe`, so `less -R` obeys no escape in a model's output), exports are made safe per format
(`present.export`). Where the app cannot hand the terminal over (served to a browser, or under
test), the text opens in a viewer inside the app instead.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

import polars as pl
from rich.text import Text
from textual import on
from textual.app import App, ComposeResult, SuspendNotSupported
from textual.binding import BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.suggester import Suggester
from textual.widgets import DataTable, Input, OptionList, Static
from textual.widgets.option_list import Option

from flipgate.core.io.atomic import make_folder, write_atomic
from flipgate.present.export import SUFFIX, Format, frame_of, render
from flipgate.present.text import safe
from flipgate.session import Comparison
from flipgate.tui.bindings import bindings_for, shown_keys
from flipgate.tui.format import literal
from flipgate.tui.widgets.lines import LinesView

EXPORTS = Path(".flipgate") / "exports"  # inside the workspace, beside the triage walk
MATCHES = 8  # case ids listed under the go-to field as the reviewer types


@dataclass(frozen=True)
class Focused:
    """The text in focus and what it is, in the words of the toast: `the candidate output of rep
    2 (case-061)`."""

    what: str
    text: str


@dataclass(frozen=True)
class Shown:
    """The table a screen shows: `name` names the file (`cases`, `flaky-list`)."""

    name: str
    frame: pl.DataFrame

    @classmethod
    def of(cls, name: str, table: DataTable[Any]) -> Shown:
        """A table on screen as it shows it: its column labels, each row's cells as text."""
        header = [column.label.plain for column in table.ordered_columns]
        return cls(name, frame_of(header, map(table.get_row_at, range(table.row_count))))


def export(shown: Shown, form: Format, folder: Path, *, now: datetime | None = None) -> Path:
    """Write `shown` into `folder` as a new file, whole or not at all; returns its path."""
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    make_folder(folder)
    target = folder / f"{shown.name}-{stamp}{SUFFIX[form]}"
    n = 2
    while target.exists():
        target = folder / f"{shown.name}-{stamp}-{n}{SUFFIX[form]}"
        n += 1
    write_atomic(target, render(shown.frame, form))
    return target


# --------------------------------------------------------------------------- the pager


def pager_command(environ: dict[str, str] | None = None) -> list[str] | None:
    """`$PAGER`, else `$EDITOR`, else `less` when installed; None: no pager to run."""
    env = os.environ if environ is None else environ
    for name in ("PAGER", "EDITOR"):
        if value := env.get(name, "").strip():
            return shlex.split(value)
    less = shutil.which("less")
    return [less] if less else None


def file_name(what: str) -> str:
    """A file name a pager shows in its prompt, from what the text is."""
    kept = "".join(c if c.isalnum() or c in "-_." else "-" for c in what)
    return "-".join(part for part in kept.split("-") if part)[:80] or "text"


def open_in_pager(app: App[Any], focused: Focused) -> str:
    """Hand the terminal to the pager on `focused`'s text; where it cannot be handed over (a
    browser, a test), show the text in the app's own viewer. Returns what was done, for a toast."""
    command = pager_command()
    if command is not None:
        folder = Path(tempfile.mkdtemp(prefix="flipgate-"))
        path = folder / f"{file_name(focused.what)}.txt"
        path.write_text(safe(focused.text, lines=True), encoding="utf-8")
        try:
            with app.suspend():
                subprocess.run([*command, str(path)], check=False)
            return f"Opened the {focused.what} in {Path(command[0]).name}."
        except SuspendNotSupported:
            pass
        except OSError as error:
            app.notify(f"{command[0]}: {error}", title="pager", severity="error", markup=False)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    app.push_screen(TextViewer(focused))
    return f"Showing the {focused.what} here (no terminal pager to hand it to)."


class TextViewer(ModalScreen[None]):
    """A long text, whole and literal, scrolled here: the pager of the served app."""

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("pager")
    DEFAULT_CSS = """
    TextViewer { align: center middle; }
    TextViewer > VerticalScroll {
        width: 100%; height: 100%; background: $surface; border: round $primary;
        border-title-color: $primary; padding: 0 1;
    }
    """

    def __init__(self, focused: Focused) -> None:
        super().__init__()
        self.focused_text_ = focused

    def compose(self) -> ComposeResult:
        with VerticalScroll() as scroll:
            scroll.border_title = self.focused_text_.what
            scroll.border_subtitle = f"{shown_keys(self.app, 'pager-close', first=True)} closes"
            rows = safe(self.focused_text_.text, lines=True).expandtabs().split("\n")
            view = LinesView()
            view.show([(line,) for line in rows])
            yield view

    def action_close(self) -> None:
        self.dismiss()


# --------------------------------------------------------------------------- go to case


def comparison_shown(app: App[Any]) -> Comparison | None:
    """The comparison whose cases `:` and `enter` reach: the one of the screen nearest the top
    that shows one (None: none is open, as on the candidates screen)."""
    for screen in reversed(app.screen_stack):
        comparison = getattr(screen, "comparison", None)
        if isinstance(comparison, Comparison):
            return comparison
    return None


def open_case(
    app: App[Any],
    case: str,
    cases: Sequence[str] = (),
    back: Callable[[str | None], None] | None = None,
) -> None:
    """The drill-down of `case` (n/p walk `cases`; `back` called with the case it shows last
    when it closes), or a toast when no comparison open has it."""
    from flipgate.tui.screens.case import push_case  # the case screen lists cases it reaches

    comparison = comparison_shown(app)
    if comparison is None or case not in comparison.cases["case"]:
        app.notify(f"{safe(case)} is not a case of the runs open", title="open", markup=False)
        return
    push_case(app, comparison, case, cases, back)


class CaseIds(Suggester):
    """Completes a case id from its start, by bisection of the sorted ids: instant on a million."""

    def __init__(self, ids: Sequence[str]) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.ids = ids  # sorted

    async def get_suggestion(self, value: str) -> str | None:
        if not value:
            return None
        at = bisect_left(self.ids, value)
        if at < len(self.ids) and self.ids[at].startswith(value):
            return self.ids[at]
        return None


class GoToCase(ModalScreen[str | None]):
    """`:`: a case id typed (tab or right completes it, the ids holding what is typed listed
    below), enter opens it."""

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("go-to-case")
    DEFAULT_CSS = """
    GoToCase { align: center top; }
    GoToCase > Vertical {
        width: 72; max-width: 100%; height: auto; margin-top: 2; padding: 0 1;
        background: $surface; border: round $primary; border-title-color: $primary;
    }
    GoToCase OptionList { height: auto; max-height: 10; border: none; }
    GoToCase #go-note { color: $text-muted; }
    """

    def __init__(self, cases: pl.Series) -> None:
        super().__init__()
        self.cases = cases.sort()
        self.lowered = self.cases.str.to_lowercase()

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "go to case"
            box.border_subtitle = (
                f"enter opens · {shown_keys(self.app, 'go-cancel', first=True)} cancels"
            )
            yield Input(
                placeholder=f"a case id, of {len(self.cases):,}",
                suggester=CaseIds(self.cases.to_list()),
                id="go-case",
            )
            yield OptionList(id="go-matches")
            yield Static(id="go-note")

    @on(Input.Changed, "#go-case")
    def _typed(self, event: Input.Changed) -> None:
        matches = self.matching(event.value)
        listed = self.query_one("#go-matches", OptionList)
        listed.set_options([Option(literal(case), id=case) for case in matches[:MATCHES]])
        more = len(matches) - MATCHES
        note = (
            f"and {more:,} more"
            if more > 0
            else ("no case holds this" if event.value and not matches else "")
        )
        self.query_one("#go-note", Static).update(note)

    def matching(self, typed: str) -> list[str]:
        """The ids that hold `typed` (any case), those that start with it first."""
        if not typed:
            return []
        held = self.cases.filter(self.lowered.str.contains(typed.lower(), literal=True))
        first = held.str.to_lowercase().str.starts_with(typed.lower())
        return [*held.filter(first).to_list(), *held.filter(~first).to_list()]

    @on(Input.Submitted, "#go-case")
    def _submitted(self, event: Input.Submitted) -> None:
        typed = event.value.strip()
        if typed in self.cases:  # an exact id
            self.dismiss(typed)
            return
        matches = self.matching(typed)
        if len(matches) == 1:
            self.dismiss(matches[0])
        elif matches:
            self.query_one("#go-matches", OptionList).focus()
        else:
            self.query_one("#go-note", Static).update(
                Text.assemble("no case ", literal(repr(typed)))
            )

    @on(OptionList.OptionSelected, "#go-matches")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
