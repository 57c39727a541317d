"""The one factory of the app, for the command line and the tests: the app a request asks for."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from flipgate.core.suite.audit import audit
from flipgate.session import CampaignInputs, GateInputs, GateRequest, Terms
from flipgate.session.suite import SuiteInputs
from flipgate.tui.app import FlipgateApp, GateApp, SuiteApp
from flipgate.tui.bindings import Keymap
from flipgate.tui.campaign import CampaignApp


def make_app(
    request: GateRequest,
    *,
    theme: str = "dark",
    keymap: Keymap | None = None,
    settings_path: Path | None = None,
    quit_on_error: bool = False,
    terms: Terms | None = None,
    read: GateInputs | CampaignInputs | None = None,
) -> GateApp:
    """The app on `request`: the candidates screen first for a campaign, else the overview.
    Its loading worker reads the request (but `terms`, when the command line read them, and
    all of it when `read` holds it: `flipgate serve`'s tabs); bad input is shown on its screen,
    or with `quit_on_error` (the command line's) ends the app, for `run_app` to raise.
    `keymap`: the user's, from `settings.load_settings`; `settings_path`: the file `t` remembers
    the theme in (None: the user's settings file)."""
    app: GateApp
    if request.is_campaign:
        campaign = read if isinstance(read, CampaignInputs) else None
        app = CampaignApp(
            request,
            theme,
            campaign=campaign,
            terms=terms,
            keymap=keymap,
            settings_path=settings_path,
        )
    else:
        inputs = read if isinstance(read, GateInputs) else None
        app = GateApp(
            request, theme, inputs=inputs, terms=terms, keymap=keymap, settings_path=settings_path
        )
    app.quit_on_error = quit_on_error
    return app


def make_suite_app(
    inputs: SuiteInputs,
    *,
    theme: str = "dark",
    keymap: Keymap | None = None,
    settings_path: Path | None = None,
) -> SuiteApp:
    """The app on the suite-health screen of a suite workspace, read and checked already, with
    the user's `keymap` and `settings_path` as `make_app` takes them."""
    return SuiteApp(audit(inputs), theme, keymap=keymap, settings_path=settings_path)


def run_app(app: FlipgateApp) -> int:
    """Run the app in the terminal; the exit status for the CLI. The error that ended the app's
    loading is raised once the terminal is restored (an `InputError`: exit 2, said by `cli`)."""
    app.run()
    if app.load_error is not None:
        raise app.load_error
    if app.reading:  # quit while loading: the read's thread cannot be stopped, nor waited for
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(app.return_code or 0)
    return app.return_code or 0
