"""`flipgate serve` in a real browser: the server started as a user starts it, headless Chromium
driven over the DevTools protocol to open the overview, press `r`, open a case, and save a
screenshot; the text on screen at that moment is read from the browser's terminal and checked.

Skipped, with the reason, where Chromium is absent (`.ci/run` installs Debian's `chromium`).
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from flipgate.cli.serve import open_arguments
from tests.conftest import SAMPLES

CHROMIUM = next(
    (
        found
        for name in ("chromium", "chromium-browser", "google-chrome")
        if (found := shutil.which(name))
    ),
    None,
)
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="no Chromium here (apt-get install chromium)"
)
WAIT = 60.0  # seconds for a screen to show on a loaded machine

# Run before the page's own script: keep each xterm.js terminal the page makes (it assigns
# `this.terminal = new Terminal(...)`), so the text on screen can be read from its buffer.
KEEP_TERMINALS = """
Object.defineProperty(Object.prototype, "terminal", {
  configurable: true,
  set(value) {
    (window.__terminals = window.__terminals || []).push(value);
    Object.defineProperty(this, "terminal", {value, writable: true, configurable: true});
  },
});
"""
SCREEN_TEXT = """
(() => {
  const term = (window.__terminals || []).find((t) => t && t.buffer);
  if (!term) return "";
  const buffer = term.buffer.active, lines = [];
  for (let y = 0; y < term.rows; y++) {
    const line = buffer.getLine(buffer.viewportY + y);
    lines.push(line ? line.translateToString(true) : "");
  }
  return lines.join("\\n");
})()
"""


def test_serve_passes_on_the_arguments_of_open() -> None:
    argv = ["ws", "--host", "0.0.0.0", "--gate", "g.yaml", "--port=9000", "--theme", "light"]
    assert open_arguments(argv) == ["ws", "--gate", "g.yaml", "--theme", "light"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def wait_for_port(port: int, process: subprocess.Popen[bytes]) -> None:
    for _ in range(int(WAIT * 10)):
        assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.1)
            continue
        writer.close()
        return
    raise AssertionError(f"nothing listens on port {port}")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    """`flipgate serve` on a copy of the agent suite, as a user runs it."""
    workspace = shutil.copytree(SAMPLES / "agent-suite", tmp_path / "ws")
    port = free_port()
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    command = [sys.executable, "-m", "flipgate", "serve", str(workspace), "--port", str(port)]
    process = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, start_new_session=True)
    try:
        yield port, process
    finally:
        os.killpg(process.pid, 15)  # the server and the app each tab started
        process.wait(timeout=10)


class Page:
    """One browser tab over the DevTools protocol."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse) -> None:
        self.socket = socket
        self.ids = itertools.count(1)

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        sent = next(self.ids)
        await self.socket.send_json({"id": sent, "method": method, "params": params})
        async for message in self.socket:
            answer = json.loads(message.data)
            if answer.get("id") == sent:
                assert "error" not in answer, answer
                return dict(answer.get("result", {}))
        raise AssertionError("the browser closed")

    async def text(self) -> str:
        said = await self.send("Runtime.evaluate", expression=SCREEN_TEXT, returnByValue=True)
        return str(said["result"].get("value", ""))

    async def shows(self, *words: str) -> str:
        """The screen's text once it holds every one of `words`."""
        text = ""
        for _ in range(int(WAIT * 4)):
            text = await self.text()
            if all(word in text for word in words):
                return text
            await asyncio.sleep(0.25)
        raise AssertionError(f"{words} never showed; the screen:\n{text}")

    async def press(self, key: str, code: str, virtual: int, text: str) -> None:
        for kind in ("keyDown", "keyUp"):
            event = {"type": kind, "key": key, "code": code, "windowsVirtualKeyCode": virtual}
            await self.send(
                "Input.dispatchKeyEvent", **event, **({"text": text} if kind == "keyDown" else {})
            )


@pytest.fixture
async def browser(tmp_path: Path) -> AsyncIterator[Page]:
    assert CHROMIUM is not None
    port = free_port()
    chromium = subprocess.Popen(
        [
            CHROMIUM,
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'chromium'}",
            f"--remote-debugging-port={port}",
            "--window-size=1400,900",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        await wait_for_port(port, chromium)
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://127.0.0.1:{port}/json/list") as listing:
                tabs = await listing.json()
            url = next(tab["webSocketDebuggerUrl"] for tab in tabs if tab["type"] == "page")
            async with session.ws_connect(url, max_msg_size=0) as socket:
                yield Page(socket)
    finally:
        chromium.terminate()
        chromium.wait(timeout=10)


@needs_chromium
async def test_the_served_app_in_a_browser(
    served: tuple[int, subprocess.Popen[bytes]], browser: Page, tmp_path: Path
) -> None:
    port, server = served
    await wait_for_port(port, server)
    await browser.send("Page.enable")
    await browser.send("Page.addScriptToEvaluateOnNewDocument", source=KEEP_TERMINALS)
    await browser.send("Page.navigate", url=f"http://127.0.0.1:{port}/")
    overview = await browser.shows("verdict", "flip matrix")
    assert "BLOCK" in overview or "PASS" in overview or "INCONCLUSIVE" in overview
    await browser.send("Runtime.evaluate", expression="window.__terminals[0].focus()")
    await browser.press("r", "KeyR", 82, "r")
    await browser.shows("cases to review")
    await browser.press("Enter", "Enter", 13, "\r")
    case = await browser.shows("reason", "decisions and checks")
    shot = await browser.send("Page.captureScreenshot", format="png")
    png = tmp_path / "served-case.png"
    png.write_bytes(base64.b64decode(shot["data"]))
    assert png.read_bytes().startswith(b"\x89PNG") and png.stat().st_size > 10_000
    assert "case " in case and "Back" in case  # the drill-down's header and footer
