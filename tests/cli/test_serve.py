"""`flipgate serve` up to the server's start: the runs checked first, the command each tab runs,
and the warning off 127.0.0.1 (the browser itself: tests/browser/)."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any, ClassVar

import pytest
import textual_serve.server

from flipgate.cli import main
from tests.conftest import SAMPLES


class FakeServer:
    started: ClassVar[list[FakeServer]] = []

    def __init__(self, command: str, *, host: str, port: int, **_: Any) -> None:
        self.command, self.host, self.port = command, host, port

    def serve(self) -> None:
        FakeServer.started.append(self)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> list[FakeServer]:
    FakeServer.started = []
    monkeypatch.setattr(textual_serve.server, "Server", FakeServer)
    return FakeServer.started


def test_each_tab_runs_open_with_the_same_arguments_on_this_machine(
    server: list[FakeServer], capsys: pytest.CaptureFixture[str]
) -> None:
    workspace = str(SAMPLES / "agent-suite")
    assert main(["serve", workspace, "--theme", "light", "--port", "8123"]) == 0
    (started,) = server
    assert (started.host, started.port) == ("127.0.0.1", 8123)
    assert shlex.split(started.command)[-4:] == ["open", workspace, "--theme", "light"]
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
