"""The one factory of the app, for the command line and the tests: the app a request asks for."""

from __future__ import annotations

from flipgate.core.suite.audit import audit
from flipgate.session import CampaignInputs, GateInputs, GateRequest
from flipgate.session.suite import SuiteInputs
from flipgate.tui.app import FlipgateApp, GateApp, SuiteApp
from flipgate.tui.bindings import Keymap
from flipgate.tui.campaign import CampaignApp


def make_app(
    request: GateRequest,
    *,
    theme: str = "dark",
    keymap: Keymap | None = None,
    loaded: GateInputs | CampaignInputs | None = None,
) -> GateApp:
    """The app on `request`: the candidates screen first for a campaign, else the overview.
    `loaded`: the request already read (`session.read`, or `read_campaign` for a campaign);
    without it the app's loading worker reads it, and shows bad input on its screen.
    `keymap`: the user's, from `settings.load_settings`."""
    if request.is_campaign:
        campaign = loaded if isinstance(loaded, CampaignInputs) else None
        return CampaignApp(request, theme, campaign=campaign, keymap=keymap)
    inputs = loaded if isinstance(loaded, GateInputs) else None
    return GateApp(request, theme, inputs=inputs, keymap=keymap)


def make_suite_app(
    inputs: SuiteInputs, *, theme: str = "dark", keymap: Keymap | None = None
) -> SuiteApp:
    """The app on the suite-health screen of a suite workspace, read and checked already, with
    the user's `keymap` as `make_app` takes it."""
    return SuiteApp(audit(inputs), theme, keymap=keymap)


def run_app(app: FlipgateApp) -> int:
    """Run the app in the terminal; the exit status for the CLI: 2 when the input was bad."""
    app.run()
    if app.load_error is not None:
        return 2
    return app.return_code or 0
