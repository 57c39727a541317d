"""`flipgate serve` up to the server's start: the runs checked first, the command each tab runs,
and the warning off 127.0.0.1 (the browser itself: tests/browser/)."""

from __future__ import annotations

import shlex
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest
import textual_serve.server

import flipgate.session.reading
import flipgate.tui.factory
from flipgate.cli import main
from flipgate.session import gate
from flipgate.tui.app import GateApp
from flipgate.tui.campaign import CampaignApp
from tests.cli.headless import until_loaded
from tests.conftest import SAMPLES


class FakeServer:
    started: ClassVar[list[FakeServer]] = []
    tab: ClassVar[Callable[[list[str]], None] | None] = None  # a tab opened while it serves

    def __init__(self, command: str, *, host: str, port: int, **_: Any) -> None:
        self.command, self.host, self.port = command, host, port

    def serve(self) -> None:
        FakeServer.started.append(self)
        if FakeServer.tab is not None:
            FakeServer.tab(shlex.split(self.command)[3:])  # after `python -m flipgate`


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> list[FakeServer]:
    FakeServer.started, FakeServer.tab = [], None
    monkeypatch.setattr(textual_serve.server, "Server", FakeServer)
    return FakeServer.started


def test_each_tab_runs_open_with_the_same_arguments_on_this_machine(
    server: list[FakeServer], capsys: pytest.CaptureFixture[str]
) -> None:
    workspace = str(SAMPLES / "agent-suite")
    assert main(["serve", workspace, "--theme", "light", "--port", "8123"]) == 0
    (started,) = server
    assert (started.host, started.port) == ("127.0.0.1", 8123)
    command = shlex.split(started.command)
    assert command[-6:-2] == ["open", workspace, "--theme", "light"]
    assert command[-2] == "--kept" and not Path(command[-1]).exists()  # removed once served
    err = capsys.readouterr().err
    assert "serving the app at http://127.0.0.1:8123" in err and "warning" not in err


def test_another_host_is_served_with_a_warning(
    server: list[FakeServer], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", str(SAMPLES / "agent-suite"), "--host", "0.0.0.0"]) == 0
    assert server[0].host == "0.0.0.0"
    assert "warning: serving on 0.0.0.0: anyone who can reach it" in capsys.readouterr().err


def test_bad_input_is_exit_2_before_anything_is_served(
    server: list[FakeServer], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", str(tmp_path / "nowhere")]) == 2
    assert not server and "flipgate: error:" in capsys.readouterr().err


@pytest.mark.parametrize("workspace", ["agent-suite", "winner-rule"])
def test_each_tab_maps_the_runs_read_before_the_server_started(
    workspace: str, server: list[FakeServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The runs are read and checked once, by `serve`; a tab's `flipgate open` reads no file
    again (a counter on every run read and on the spec's), and gates what was kept: the same
    answer as a tab that read them itself."""
    reads: Counter[str] = Counter()
    for name in ("load_run", "load_spec"):
        read = getattr(flipgate.session.reading, name)

        def counted(*args: Any, _name: str = name, _read: Any = read, **options: Any) -> Any:
            reads[_name] += 1
            return _read(*args, **options)

        monkeypatch.setattr(flipgate.session.reading, name, counted)
    tabs: list[GateApp] = []

    def tab(argv: list[str]) -> None:
        reads.clear()
        assert main(argv) == 0
        assert not reads  # nothing read again
        assert main(argv[: argv.index("--kept")]) == 0  # a tab that reads them itself
        assert reads["load_spec"] == 1 and reads["load_run"] >= 2

    def run_app(app: GateApp) -> int:
        tabs.append(app)
        return until_loaded(app)

    FakeServer.tab = tab
    monkeypatch.setattr(flipgate.tui.factory, "run_app", run_app)
    assert main(["serve", str(SAMPLES / workspace)]) == 0
    mapped, read = tabs
    if isinstance(mapped, CampaignApp):
        assert isinstance(read, CampaignApp) and mapped.campaign is not None
        assert [n for n, _ in mapped.campaign.candidates] == [
            n
            for n, _ in read.campaign.candidates  # type: ignore[union-attr]
        ]
        assert mapped.judged is not None
    else:
        assert mapped.inputs is not None and read.inputs is not None
        assert mapped.inputs.baseline.reps.equals(read.inputs.baseline.reps)
        assert mapped.inputs.terms == read.inputs.terms
        answers = [gate(app.inputs).result for app in (mapped, read)]  # type: ignore[arg-type]
        assert len({(r.verdict, r.rule, r.b, r.c, r.p) for r in answers}) == 1


def test_inputs_that_cannot_be_kept_are_read_by_each_tab(
    server: list[FakeServer], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A part that cannot be pickled (a ledger's open connection): the tabs read the runs."""
    import flipgate.session.kept

    def unpicklable(*_: object) -> None:
        raise TypeError("cannot pickle 'sqlite3.Connection' object")

    monkeypatch.setattr(flipgate.session.kept, "keep", unpicklable)
    workspace = str(SAMPLES / "agent-suite")
    assert main(["serve", workspace]) == 0
    assert shlex.split(server[0].command)[-2:] == ["open", workspace]
    assert "the runs read could not be kept for the tabs (TypeError: cannot pickle" in (
        capsys.readouterr().err
    )
