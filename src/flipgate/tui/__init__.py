"""The terminal app: it shows what the application layer (`flipgate.session`) read and gated, and
never computes the gate itself. `factory.make_app` builds it."""

from flipgate.tui.app import FlipgateApp
from flipgate.tui.factory import make_app, make_suite_app, run_app

__all__ = ["FlipgateApp", "make_app", "make_suite_app", "run_app"]
