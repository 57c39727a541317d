"""`flipgate open` run headless in a test: `run_app` as the command line calls it, the app run
without a terminal, and, with `until_loaded`, quit once its loading worker is done."""

from __future__ import annotations

import asyncio
import functools

import flipgate.tui.factory
from flipgate.tui.app import GateApp
from flipgate.tui.screens.loading import LoadingScreen

RUN_APP = flipgate.tui.factory.run_app


def headless(app: GateApp) -> int:
    """`run_app` on `app` run without a terminal: its exit status, or the error it raises."""
    app.run = functools.partial(type(app).run, app, headless=True, size=(80, 24))  # type: ignore[method-assign]
    return RUN_APP(app)


def until_loaded(app: GateApp) -> int:
    """`headless`, the app quit once the screen after loading is up (or the loading failed)."""

    async def quit_when_loaded() -> None:
        while not (app.load_error or not isinstance(app.screen, LoadingScreen)):
            await asyncio.sleep(0.01)
        while not app.screen.is_mounted:
            await asyncio.sleep(0.01)
        app.exit()

    app.call_later(lambda: app.run_worker(quit_when_loaded()))
    return headless(app)
