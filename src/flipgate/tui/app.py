"""The flipgate app: one factory builds it for the CLI and the tests.

The app only formats and navigates: a thread worker reads both runs and runs `flipgate.core`'s
gate, posting typed messages back (progress, then the comparison or the error), and the overview
replaces the loading screen when the comparison arrives.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import work
from textual.app import App
from textual.binding import BindingType
from textual.message import Message

from flipgate.core.gate.compare import Comparison, compare
from flipgate.core.gate.flaky import load_flaky
from flipgate.core.gate.reruns import compare_with_reruns
from flipgate.core.gate.retired import Retirements
from flipgate.core.importers import ImportOptions
from flipgate.core.runs.model import Run
from flipgate.core.runs.reading import load_run
from flipgate.core.runs.workspace import find_repeats, load_workspace
from flipgate.core.suite.audit import SuiteAudit, audit
from flipgate.core.suite.manifest import MANIFEST, load_retirements
from flipgate.core.suite.workspace import SuiteInputs
from flipgate.tui.bindings import Keymap, bindings_for
from flipgate.tui.commands import FlipgateCommands
from flipgate.tui.messages import (
    Loaded,
    LoadFailed,
    Progress,
    RegateFailed,
    RegateRequested,
    Steps,
)
from flipgate.tui.screens.help import HelpScreen
from flipgate.tui.screens.loading import LoadingScreen
from flipgate.tui.screens.overview import OverviewScreen
from flipgate.tui.screens.suite import SuiteScreen
from flipgate.tui.session import LoadedRuns, Sources, load_runs, read_gate
from flipgate.tui.themes import STYLESHEET, TEXTUAL_THEMES, THEMES
from flipgate.tui.widgets.progress_line import ProgressLine


class FlipgateApp(App[None]):
    TITLE = "flipgate"
    CSS = STYLESHEET
    BINDINGS: ClassVar[list[BindingType]] = bindings_for("app")
    COMMANDS: ClassVar = {FlipgateCommands}
    COMMAND_PALETTE_BINDING = "ctrl+p"

    def __init__(
        self,
        sources: Sources,
        theme: str = "dark",
        *,
        loaded: LoadedRuns | None = None,
        suite: SuiteAudit | None = None,
        keymap: Keymap | None = None,
    ) -> None:
        if theme not in TEXTUAL_THEMES:
            raise ValueError(f"unknown theme {theme!r} (themes: {', '.join(THEMES)})")
        super().__init__()
        self.sources = sources
        self.load_error: Exception | None = None
        self.loaded = loaded  # runs the CLI read (and checked) before the app started
        self.repeats: tuple[Run, ...] = ()  # identical baseline runs, for triage and flaky curation
        self.suite = suite  # opened on the suite-health screen alone (`flipgate suite open`)
        self.user_keymap: Keymap = dict(keymap or {})  # checked by `settings`: ids and keys exist
        for textual_theme in TEXTUAL_THEMES.values():
            self.register_theme(textual_theme)
        self.theme = TEXTUAL_THEMES[theme].name

    def on_mount(self) -> None:
        self.set_keymap(self.user_keymap)
        if self.suite is not None:
            self.push_screen(SuiteScreen(self.suite.inputs.path, self.suite, can_go_back=False))
            return
        self.push_screen(LoadingScreen())
        self.load()

    # ------------------------------------------------------------------ loading

    @work(thread=True, exclusive=True, exit_on_error=False)
    def load(self) -> None:
        """Read and compare off the event loop; the answer, or the error, goes to the app."""
        try:
            answer = self.read()
        except Exception as error:  # shown on screen; an unexpected one is labelled as such
            self.post_message(LoadFailed(error))
            return
        self.post_message(answer)

    def read(self) -> Message:
        """The load worker's job: both runs read and compared, for the overview."""
        sources = self.sources
        progress = Steps(self, 7)  # spec, flaky list, read + check for each run, pairing
        spec, flaky = read_gate(progress, sources.gate, sources.flaky)
        runs = self.loaded or load_runs(sources, progress)
        self.repeats = runs.repeats
        progress("pairing the cases and counting the flips")
        comparison = compare(
            runs.baseline,
            runs.candidate,
            spec,
            flaky,
            declared_change=sources.declared_change,
            retired=self.retirements(),
        )
        return Loaded(comparison)

    def retirements(self) -> Retirements:
        """The cases the workspace's suite manifest retired, read again each time the gate is."""
        manifest = self.sources.plan_folder / MANIFEST
        return load_retirements(manifest if manifest.is_file() else None)

    @work(thread=True, exclusive=True, exit_on_error=False, group="regate")
    def regate(self, comparison: Comparison, *, reruns: bool = False) -> None:
        """Apply the gate again: with the flaky list as it now is, or with the rerun results.

        The new overview replaces the old one; after a rerun its banner shows the first verdict.
        """
        sources = self.sources
        try:
            if reruns:
                paths = sources.rerun_paths()
                assert paths is not None
                progress = Steps(self, 5)  # read + check each arm, then the rule
                options = sources.import_options
                rerun_baseline, rerun_candidate = (
                    load_run(path, progress=progress, import_options=options) for path in paths
                )
                progress("applying the rule to the rerun results")
                updated = compare_with_reruns(
                    comparison,
                    rerun_baseline,
                    rerun_candidate,
                    declared_change=sources.declared_change,
                )
            else:
                progress = Steps(self, 2)
                progress("reading the flaky list")
                flaky = sources.flaky_path
                flaky_list = load_flaky(flaky if flaky.exists() else None)
                progress("pairing the cases and counting the flips, with the list as it is")
                updated = compare(
                    comparison.baseline,
                    comparison.candidate,
                    comparison.spec,
                    flaky_list,
                    declared_change=sources.declared_change,
                    previous=comparison.result.previous,
                    retired=self.retirements(),
                )
        except Exception as error:  # a bad rerun file: said on screen, the overview stays
            self.post_message(RegateFailed(error))
            return
        self.post_message(Loaded(updated))

    def on_regate_requested(self, message: RegateRequested) -> None:
        self.regate(message.comparison, reruns=message.reruns)

    def on_progress(self, message: Progress) -> None:
        if isinstance(self.screen, LoadingScreen):
            self.screen.show_progress(message.step, message.steps, message.description)
        else:  # applying the gate again: the overview shows how far it got
            for line in self.screen.query(ProgressLine):
                line.show(message)

    def on_loaded(self, message: Loaded) -> None:
        self.switch_screen(OverviewScreen(message.comparison, self.sources, self.repeats))

    def on_regate_failed(self, message: RegateFailed) -> None:
        for line in self.screen.query(ProgressLine):
            line.finish()
        self.notify(str(message.error), title="gate", severity="error", markup=False)

    def on_load_failed(self, message: LoadFailed) -> None:
        self.load_error = message.error
        if isinstance(self.screen, LoadingScreen):
            self.screen.show_error(message.error)

    # ------------------------------------------------------------------ help and themes

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    @property
    def flipgate_theme(self) -> str:
        """The theme in use, by flipgate's name for it (`dark`, `light`, `high-contrast`)."""
        return self.theme.removeprefix("flipgate-")

    def action_next_theme(self) -> None:
        self.use_theme(THEMES[(THEMES.index(self.flipgate_theme) + 1) % len(THEMES)])

    def use_theme(self, name: str) -> None:
        """Switch theme: Textual applies the stylesheet again with the theme's colours."""
        if name not in TEXTUAL_THEMES:
            raise ValueError(f"unknown theme {name!r}")
        self.theme = TEXTUAL_THEMES[name].name


def make_app(
    baseline: Path,
    candidate: Path,
    gate: Path | None = None,
    flaky: Path | None = None,
    theme: str = "dark",
    declared_change: tuple[str, ...] | list[str] = (),
    *,
    workspace: Path | None = None,
    import_options: ImportOptions | None = None,
    repeats: tuple[Path, ...] = (),
    reruns: tuple[Path, Path] | None = None,
    keymap: Keymap | None = None,
) -> FlipgateApp:
    """The app on two runs; files are read in the app's worker, errors shown on its screen.

    The rerun plan goes into `workspace` when the runs come from one, else beside the candidate.
    Identical baseline runs (`repeats`) default to the workspace's `baseline-repeats/`; rerun
    results (`reruns`, baseline and candidate) to its `reruns/`. `keymap`: the user's, from
    `settings.load_settings`.
    """
    run_folder = candidate if candidate.is_dir() else candidate.parent
    sources = Sources(
        baseline=baseline,
        candidate=candidate,
        gate=gate,
        flaky=flaky,
        declared_change=tuple(declared_change),
        plan_folder=workspace or run_folder.parent,
        import_options=import_options,
        repeats=repeats or (find_repeats(workspace) if workspace else ()),
        reruns=reruns,
    )
    return FlipgateApp(sources, theme=theme, keymap=keymap)


def make_app_for_workspace(
    path: Path, theme: str = "dark", *, keymap: Keymap | None = None
) -> FlipgateApp:
    """The app on a workspace folder (baseline/, candidate/, optional gate.yaml, flaky.yaml).

    Raises `InputError` when `path` is not a workspace, before any screen is drawn.
    """
    workspace = load_workspace(path)
    return make_app(
        workspace.baseline,
        workspace.candidate,
        workspace.gate,
        workspace.flaky,
        theme,
        workspace=workspace.path,
        keymap=keymap,
    )


def make_suite_app(inputs: SuiteInputs, theme: str = "dark") -> FlipgateApp:
    """The app on the suite-health screen of a suite workspace, read and checked already."""
    path = inputs.path
    sources = Sources(path / "baseline", path / "candidate", None, None, (), plan_folder=path)
    return FlipgateApp(sources, theme=theme, suite=audit(inputs))


def run_app(app: FlipgateApp) -> int:
    """Run the app in the terminal; the exit status for the CLI: 2 when the input was bad."""
    app.run()
    if app.load_error is not None:
        return 2
    return app.return_code or 0


__all__ = [
    "FlipgateApp",
    "make_app",
    "make_app_for_workspace",
    "make_suite_app",
    "run_app",
]
