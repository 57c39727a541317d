"""The terminal app: it shows what `flipgate.core` computed and never computes the gate itself."""

from flipgate.tui.app import FlipgateApp, make_app, make_app_for_workspace, run_app

__all__ = ["FlipgateApp", "make_app", "make_app_for_workspace", "run_app"]
