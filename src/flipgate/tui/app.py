"""The flipgate app: its themes, help and keymap (`FlipgateApp`), and the app on a pair of runs
(`GateApp`); `factory.make_app` builds it, or its campaign sibling, for the CLI and the tests.

The app only formats and navigates: a thread worker asks the application layer
(`flipgate.session`) to read the request and gate it, posting typed messages back (progress,
then the comparison or the error), and the overview replaces the loading screen when the
comparison arrives.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import ClassVar

from textual import work
from textual.app import App
from textual.binding import BindingType
from textual.message import Message

from flipgate.core.decision.record import DecisionRecord
from flipgate.core.decision.review_log import Looked
from flipgate.core.errors import InputError
from flipgate.core.suite.audit import SuiteAudit
from flipgate.present.export import Format
from flipgate.session import (
    Comparison,
    GateInputs,
    GateRequest,
    Terms,
    gate,
    gate_again,
    read,
    read_again,
    reading_steps,
)
from flipgate.tui.bindings import Keymap, bindings_for
from flipgate.tui.collector import building
from flipgate.tui.commands import FlipgateCommands
from flipgate.tui.messages import (
    Loaded,
    LoadFailed,
    Progress,
    RegateFailed,
    RegateRequested,
    Steps,
)
from flipgate.tui.reach import (
    EXPORTS,
    Focused,
    GoToCase,
    comparison_shown,
    export,
    open_case,
    open_in_pager,
)
from flipgate.tui.review import Reviewed
from flipgate.tui.screens.help import HelpScreen
from flipgate.tui.screens.loading import LoadingScreen
from flipgate.tui.screens.overview import OverviewScreen
from flipgate.tui.screens.replay import ReplayScreen
from flipgate.tui.screens.suite import SuiteScreen
from flipgate.tui.settings import remember_theme
from flipgate.tui.themes import STYLESHEET, TEXTUAL_THEMES, THEMES
from flipgate.tui.widgets.progress_line import ProgressLine


class Unjoined(ThreadPoolExecutor):
    """The app's worker threads, not waited for when its event loop closes (the interpreter
    still waits for them at its exit, unless `run_app` ends the process first)."""

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        super().shutdown(wait=False, cancel_futures=cancel_futures)


class FlipgateApp(App[None]):
    """What every flipgate app shares: themes, help, the user's keymap, progress shown, what
    the reviewer looked at (`review_log`; None: nothing is recorded, as in a replay). Its first
    screen is each kind's own (`open_first_screen`)."""

    TITLE = "flipgate"
    CSS = STYLESHEET
    BINDINGS: ClassVar[list[BindingType]] = bindings_for("app")
    COMMANDS: ClassVar = {FlipgateCommands}
    COMMAND_PALETTE_BINDING = "ctrl+p"

    def __init__(
        self,
        theme: str = "dark",
        *,
        keymap: Keymap | None = None,
        settings_path: Path | None = None,
    ) -> None:
        if theme not in TEXTUAL_THEMES:
            raise ValueError(f"unknown theme {theme!r} (themes: {', '.join(THEMES)})")
        super().__init__()
        self.load_error: Exception | None = None
        self.reading = False  # the runs are being read and gated, in a thread
        self.quit_on_error = False  # the command line's: bad input ends the app, said after it
        self.user_keymap: Keymap = dict(keymap or {})  # checked by `settings`: ids and keys exist
        self.settings_path = settings_path  # where `t` remembers the theme; None: the default
        self.review_log: list[Looked] | None = []
        for textual_theme in TEXTUAL_THEMES.values():
            self.register_theme(textual_theme)
        self.theme = TEXTUAL_THEMES[theme].name

    def on_mount(self) -> None:
        self.set_keymap(self.user_keymap)
        self.open_first_screen()

    def open_first_screen(self) -> None:
        raise NotImplementedError

    def on_progress(self, message: Progress) -> None:
        if isinstance(self.screen, LoadingScreen):
            self.screen.show_progress(message.step, message.steps, message.description)
        else:  # applying the gate again: the overview shows how far it got
            for line in self.screen.query(ProgressLine):
                line.show(message)

    def on_reviewed(self, message: Reviewed) -> None:
        if self.review_log is not None:
            self.review_log.append(message.looked)

    # ------------------------------------------------------------------ help and themes

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    @property
    def flipgate_theme(self) -> str:
        """The theme in use, by flipgate's name for it (`dark`, `light`, `high-contrast`)."""
        return self.theme.removeprefix("flipgate-")

    def action_next_theme(self) -> None:
        """The next theme, said by name, and remembered for the next start."""
        name = THEMES[(THEMES.index(self.flipgate_theme) + 1) % len(THEMES)]
        self.use_theme(name)
        try:
            where = remember_theme(name, self.settings_path)
        except (InputError, OSError) as error:
            self.notify(f"Theme {name}; not remembered: {error}", title="theme", markup=False)
            return
        self.notify(f"Theme {name}, remembered in {where}.", title="theme", markup=False)

    def use_theme(self, name: str) -> None:
        """Switch theme: Textual applies the stylesheet again with the theme's colours."""
        if name not in TEXTUAL_THEMES:
            raise ValueError(f"unknown theme {name!r}")
        self.theme = TEXTUAL_THEMES[name].name

    # ------------------------------------------------------------------ copy, pager, export

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Copy, the pager and export are offered where the screen has something to give."""
        if action in ("copy", "open_text"):
            return hasattr(self.screen, "focused_text")
        if action == "export":
            return hasattr(self.screen, "shown_table")
        if action == "go_to_case":
            return comparison_shown(self) is not None
        return True

    @property
    def export_folder(self) -> Path:
        """Where `x` writes: the workspace's own folder for what the tool keeps."""
        return Path.cwd() / EXPORTS

    def _focused(self, verb: str) -> Focused | None:
        focused: Focused | None = getattr(self.screen, "focused_text", lambda: None)()
        if focused is None:
            self.notify(f"Nothing in focus to {verb} here.", title=verb, severity="warning")
        return focused

    def action_copy(self) -> None:
        if focused := self._focused("copy"):
            self.copy_to_clipboard(focused.text)
            self.notify(
                f"Copied the {focused.what} ({len(focused.text):,} characters).",
                title="copied",
                markup=False,
            )

    def action_open_text(self) -> None:
        if focused := self._focused("open"):
            self.notify(open_in_pager(self, focused), title="pager", markup=False)

    def action_export(self, form: Format) -> None:
        shown = getattr(self.screen, "shown_table", lambda: None)()
        if shown is None:
            self.notify("No table to export here.", title="export", severity="warning")
            return
        try:
            path = export(shown, form, self.export_folder)
        except (InputError, OSError) as error:
            self.notify(f"Not exported: {error}", title="export", severity="error", markup=False)
            return
        rows = shown.frame.height
        self.notify(f"Exported {rows:,} rows to {path}.", title="export", markup=False)

    def action_go_to_case(self) -> None:
        comparison = comparison_shown(self)
        if comparison is None:
            return

        def chosen(case: str | None) -> None:
            if case is not None:
                open_case(self, case)

        self.push_screen(GoToCase(comparison.cases["case"]), chosen)


class SuiteApp(FlipgateApp):
    """The suite-health screen alone (`flipgate suite open`), on a suite read and audited."""

    def __init__(
        self,
        suite: SuiteAudit,
        theme: str = "dark",
        *,
        keymap: Keymap | None = None,
        settings_path: Path | None = None,
    ) -> None:
        super().__init__(theme, keymap=keymap, settings_path=settings_path)
        self.suite = suite

    def open_first_screen(self) -> None:
        self.push_screen(SuiteScreen(self.suite.inputs.path, self.suite, can_go_back=False))

    @property
    def export_folder(self) -> Path:
        return self.suite.inputs.path / EXPORTS


class GateApp(FlipgateApp):
    """The app on a pair of runs: the loading screen, then the gate overview and what it opens.

    `inputs`: the request read and checked already (a replay's, before the app started), else
    read by the loading worker; `terms`: its spec and lists, read already (`flipgate open`'s,
    which says bad ones before the app starts), else read by the worker too. Both workers ask
    the session: `load` to read and gate, `regate` to gate again after an edit or with the
    rerun results.
    """

    def __init__(
        self,
        request: GateRequest,
        theme: str = "dark",
        *,
        inputs: GateInputs | None = None,
        terms: Terms | None = None,
        keymap: Keymap | None = None,
        settings_path: Path | None = None,
    ) -> None:
        super().__init__(theme, keymap=keymap, settings_path=settings_path)
        self.request = request
        self.inputs = inputs
        self.terms = terms

    def open_first_screen(self) -> None:
        self.push_screen(LoadingScreen(self.request))
        # Quit while loading: the event loop closes without waiting for the read's thread (it
        # cannot be stopped), and `run_app` ends the process rather than wait for it there.
        asyncio.get_running_loop().set_default_executor(Unjoined())
        self.reading = True
        self.load()

    # ------------------------------------------------------------------ loading

    @work(thread=True, exclusive=True, exit_on_error=False)
    def load(self) -> None:
        """Read and compare off the event loop; the answer, or the error, goes to the app."""
        try:
            with building():  # the comparison kept out of the collections the screens cause
                answer = self.read()
        except Exception as error:  # shown on screen; an unexpected one is labelled as such
            self.post_message(LoadFailed(error))
            return
        finally:
            self.reading = False
        self.post_message(answer)
        if isinstance(answer, Loaded):  # a campaign's candidates are gated one by one later
            _make_decisions(answer.comparison)

    def read(self) -> Message:
        """The load worker's job: the request read (unless the CLI read it) and gated."""
        inputs = self.inputs
        reruns = self.request.reruns is not None
        terms = self.terms
        reading = 0 if inputs is not None else reading_steps(self.request, terms=terms is None)
        progress = Steps(self, reading + 1 + reruns)  # the reads, the gate, the gate again
        inputs = self.inputs = inputs or read(self.request, progress, terms=terms)
        return Loaded(gate(inputs, progress, price=False))  # priced when its screen opens

    @work(thread=True, exclusive=True, exit_on_error=False, group="regate", description="regate")
    def regate(self, comparison: Comparison, *, reruns: bool = False) -> None:
        """Apply the gate again: with the flaky list and the suite as they now are, or with the
        rerun results. The new overview replaces the old one; after a rerun its banner shows
        the first verdict."""
        try:
            with building():
                updated = self.regated(comparison, reruns=reruns)
        except Exception as error:  # a bad rerun file: said on screen, the overview stays
            self.post_message(RegateFailed(error))
            return
        self.post_message(Loaded(updated))
        _make_decisions(updated)

    def regated(self, comparison: Comparison, *, reruns: bool = False) -> Comparison:
        """The regate worker's job: what may have changed read again, and the gate applied."""
        inputs = self.inputs
        assert inputs is not None  # an overview is only shown once the inputs were read
        fresh = reruns and inputs.reruns is None  # each rerun arm read and checked first
        progress = Steps(self, 2 + (self.request.suite is not None) + 4 * fresh)
        inputs = self.inputs = read_again(inputs, progress, reruns=reruns)
        return gate_again(comparison, inputs, progress, reruns=reruns, price=False)

    def on_regate_requested(self, message: RegateRequested) -> None:
        self.regate(message.comparison, reruns=message.reruns)

    @property
    def export_folder(self) -> Path:
        return self.request.folder / EXPORTS

    def on_loaded(self, message: Loaded) -> None:
        repeats = self.inputs.repeats if self.inputs is not None else ()
        self.switch_screen(OverviewScreen(message.comparison, self.request, repeats))

    def on_regate_failed(self, message: RegateFailed) -> None:
        for line in self.screen.query(ProgressLine):
            line.finish()
        self.notify(str(message.error), title="gate", severity="error", markup=False)

    def on_load_failed(self, message: LoadFailed) -> None:
        self.load_error = message.error
        if self.quit_on_error:
            self.exit(return_code=2)
        elif isinstance(self.screen, LoadingScreen):
            self.screen.show_error(message.error)


class ReplayApp(GateApp):
    """A signed decision's review log walked again over the runs it was made on (`flipgate
    replay`): read-only, and recording nothing."""

    def __init__(
        self,
        request: GateRequest,
        record: DecisionRecord,
        path: Path,
        theme: str = "dark",
        *,
        inputs: GateInputs | None = None,
        keymap: Keymap | None = None,
        settings_path: Path | None = None,
    ) -> None:
        super().__init__(request, theme, inputs=inputs, keymap=keymap, settings_path=settings_path)
        self.review_log = None
        self.record, self.decision_path = record, path

    def on_loaded(self, message: Loaded) -> None:
        message.prevent_default()  # the replay instead of the overview
        self.switch_screen(ReplayScreen(message.comparison, self.record, self.decision_path))


__all__ = ["FlipgateApp", "GateApp", "ReplayApp", "SuiteApp"]


def _make_decisions(comparison: Comparison) -> None:
    """The decisions one a row, which the gate never makes and the screens read (the case list,
    a case, the search, triage), made in the worker once the overview is posted: on the first
    screen's thread they would stall it (half a second of CPU at a million cases)."""
    with building():
        comparison.decisions  # noqa: B018 (a cached property: made and kept)
